use super::*;
use crate::moves::Move;

#[test]
fn the_beam_summary_lights_the_squares_the_shot_passes() {
    // Every built-in setup (fixed lasers, Obelisks and Eyes among them) along a game.
    for (name, setup) in crate::setup::catalogue() {
        let mut p = setup.position;
        for ply in 0..60 {
            for color in Color::ALL {
                let shot = fire(&p, color);
                let walked = shot
                    .squares()
                    .iter()
                    .fold(0u128, |b, s| b | 1u128 << s.index());
                assert_eq!(
                    p.beam_summary(color),
                    (walked, shot.impact()),
                    "{name}: {p}"
                );
            }
            let moves = p.legal_moves();
            if moves.is_empty() || p.play(moves[(ply * 7) % moves.len()]).is_game_over() {
                break;
            }
        }
    }
}

#[test]
fn reach_counts_the_moves_a_plan_needs() {
    // Red's beam leaves a8 south and turns east at its own Pyramid on a7. Moving that
    // Pyramid off the file (1) and bringing the one on b3 to a1, facing north-east (2),
    // sends the beam along rank 1 into Silver's Pharaoh on e1.
    let mut p: Position = "x33a3s2a33/p13p4kp23/4s11p12P3/1S27P3/8p11/1p1P41A11p23/4S2A14/4K4X1 0"
        .parse()
        .unwrap();
    assert_eq!(p.reach(Color::Red), 3);
    p.set_side_to_move(Color::Red);
    let sq = |s: &str| s.parse::<Square>().unwrap();
    p.play_unchecked(Move::Step {
        from: sq("a7"),
        to: sq("b7"),
    });
    assert_eq!(p.reach(Color::Red), 2);
}

#[test]
fn reach_goes_through_a_wall_by_capture_or_by_swap() {
    // Silver's beam turns west at j3 and takes Red's Pyramid on f3 from behind; the next
    // shot runs on to Red's Pharaoh on c3.
    let p: Position = "x39/////2k2p43P3//4K4X1 0".parse().unwrap();
    assert_eq!(
        p.reaches(Color::Silver),
        Reach {
            pharaoh: 1,
            capture: 0,
            sides: 1
        }
    );
    // An Anubis facing the beam is not taken, but the Scarab beside it can swap onto f3
    // and turn the beam north, into the Pharaoh on f6.
    let p: Position = "x39//5k4//6S23/5a23P3//4K4X1 0".parse().unwrap();
    assert_eq!(p.reach(Color::Silver), 1);
    let far: Position = "x39//5k4///5a23P3//4K4X1 0".parse().unwrap();
    assert!(far.reach(Color::Silver) > 1, "{}", far.reach(Color::Silver));
    for p in [p, far] {
        assert_eq!(p.reaches(Color::Silver), p.reaches_stepwise(Color::Silver));
    }
}

#[test]
fn reach_places_no_mirror_on_a_square_reserved_against_the_side() {
    // Silver's beam turns west at j3 and runs off the board at a3. A Pyramid on a3, one
    // step from Silver's on b2, would turn it north into Red's Pharaoh on a6, but the a
    // file is Red's: Silver has to go round, a Pyramid to b3 (1) and another to b6 (3).
    let p: Position = "x39//k9///9P3/1P18/4K4X1 0".parse().unwrap();
    let reach = p.reaches(Color::Silver);
    assert_eq!(reach.pharaoh, 4);
    assert_eq!(reach, p.reaches_stepwise(Color::Silver));
    // Red, the same mirrored, may not place one on j6 either.
    assert_eq!(p.mirrored().reaches(Color::Red), reach);
    // On the b file the same plan is one move.
    let b: Position = "x39//1k8///9P3/2P17/4K4X1 0".parse().unwrap();
    assert_eq!(b.reach(Color::Silver), 1);
}

#[test]
fn reach_counts_the_sides_of_the_pharaoh_a_move_more_opens() {
    // Silver's beam turns west at j3 into its own Anubis on e3: moving the Anubis off (1)
    // lights Red's Pharaoh on c3 from the east. Moving the j3 Pyramid down to j2 (1) sends
    // the beam along rank 2 to the Pyramid on c2, which turns it north into the Pharaoh
    // from the south. Two sides open with one move each: one Red move cannot shut both.
    let p: Position = "x39/////2k1A24P3/2P17/4K4X1 0".parse().unwrap();
    let fork = Reach {
        pharaoh: 1,
        capture: 1,
        sides: 2,
    };
    assert_eq!(p.reaches(Color::Silver), fork);
    assert_eq!(p.reaches_stepwise(Color::Silver), fork);
    // Without the Pyramid on c2 only the east side is open within two moves.
    let one: Position = "x39/////2k1A24P3//4K4X1 0".parse().unwrap();
    assert_eq!(one.reaches(Color::Silver).sides, 1);
    assert_eq!(
        one.reaches(Color::Silver),
        one.reaches_stepwise(Color::Silver)
    );
}

#[test]
fn reach_is_nought_exactly_when_the_beam_lights_the_enemy_pharaoh_and_is_symmetric() {
    let mut rng = crate::rng::Rng::new(5);
    let mut lit = 0;
    for setup in [
        "classic",
        "imhotep",
        "dynasty",
        "khet1/classic",
        "khet1/dynasty",
    ] {
        for _ in 0..30 {
            let mut p = crate::setup::Setup::builtin(setup).unwrap().position;
            for _ in 0..100 {
                for color in Color::ALL {
                    let reach = p.reach(color);
                    assert!(reach <= REACH_CAP);
                    let lights = p.trace_hits(color).pharaoh_hit(color.other());
                    assert_eq!(reach == 0, lights, "{p}");
                    lit += lights as u32;
                    assert_eq!(reach, p.mirrored().reach(color.other()), "{p}");
                }
                let moves = p.legal_moves();
                let Some(mv) = rng.pick(&moves) else { break };
                if p.play_unchecked(mv).is_game_over() {
                    break;
                }
            }
        }
    }
    assert!(lit > 10, "{lit} positions with a lit Pharaoh");
}

/// Calls `f` at every position of `games` random games of up to `plies` from every kind of
/// setup (Sphinxes, fixed lasers, beam splitters), and at the same position thinned out,
/// where beams run far and plans are long.
fn random_positions(seed: u64, games: usize, plies: usize, mut f: impl FnMut(&Position)) {
    let mut rng = crate::rng::Rng::new(seed);
    for setup in [
        "classic",
        "imhotep",
        "dynasty",
        "khet1/classic",
        "khet1/imhotep",
        "khet2/imhotep-eyes",
        "khet2/dynasty-eyes",
    ] {
        for _ in 0..games {
            let mut p = crate::setup::Setup::builtin(setup).unwrap().position;
            for _ in 0..plies {
                f(&p);
                f(&thinned(&p, &mut rng));
                let moves = p.legal_moves();
                let Some(mv) = rng.pick(&moves) else { break };
                if p.play_unchecked(mv).is_game_over() {
                    break;
                }
            }
        }
    }
}

#[test]
fn reaches_on_bitboards_are_reaches_square_by_square() {
    let mut seen = [0u32; REACH_CAP as usize + 1];
    let mut captures = [0u32; REACH_CAP as usize + 1];
    let mut sides = [0u32; 5];
    random_positions(17, 20, 120, |q| {
        for color in Color::ALL {
            let reaches = q.reaches(color);
            assert_eq!(
                q.reaches_with(color, false),
                Reach {
                    sides: 0,
                    ..reaches
                },
                "{q} {color:?}"
            );
            assert_eq!(reaches, q.reaches_stepwise(color), "{q} {color:?}");
            assert!(reaches.capture <= reaches.pharaoh, "{q} {color:?}");
            seen[reaches.pharaoh as usize] += 1;
            captures[reaches.capture as usize] += 1;
            sides[reaches.sides as usize] += 1;
        }
    });
    assert!(seen.iter().all(|&n| n > 20), "every reach is met: {seen:?}");
    assert!(
        captures[..4].iter().all(|&n| n > 20),
        "captures: {captures:?}"
    );
    assert!(sides[..4].iter().all(|&n| n > 20), "sides: {sides:?}");
}

#[test]
fn a_move_beside_the_beam_makes_the_same_turn_as_one_traced() {
    // Every move: the turn made with the beam before the move is the turn made by tracing.
    let (mut beside, mut across) = (0u32, 0u32);
    random_positions(23, 6, 80, |q| {
        let beam = q.beam_before_move();
        for mv in q.legal_moves() {
            let (mut traced, mut shortcut) = (*q, *q);
            let hits = traced.play_unchecked(mv);
            assert_eq!(shortcut.play_beside(mv, beam), hits, "{q} {mv}");
            assert_eq!(shortcut, traced, "{q} {mv}");
            assert_eq!(shortcut.key(), traced.key(), "{q} {mv}");
            if crate::position::touches(mv, beam.0) {
                across += 1;
            } else {
                beside += 1;
            }
        }
    });
    assert!(
        beside > 10_000 && across > 1_000,
        "{beside} beside, {across} across"
    );
}

/// `p` with about half of the pieces that are neither Pharaohs nor lasers taken off.
fn thinned(p: &Position, rng: &mut crate::rng::Rng) -> Position {
    let mut q = *p;
    for (sq, piece) in p.pieces() {
        if !matches!(piece.kind(), Kind::Pharaoh | Kind::Sphinx) && rng.below(2) == 0 {
            q.put(sq, None);
        }
    }
    q
}
