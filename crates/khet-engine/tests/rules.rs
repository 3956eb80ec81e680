//! The rules against `docs/rules.md`: perft, opening laser paths, setups, every piece face,
//! restricted squares, swaps, stacks, Eyes of Horus, repetition, draws and the end of a game,
//! and Khet 1.0's setups derived from 2.0's. (Text forms, files and their errors are
//! `formats.rs`.)

mod common;

use common::*;
use khet_engine::*;

#[test]
fn perft_matches_the_reference_counts_at_the_three_setups() {
    let table = [
        ("classic", [77, 5_920, 451_867]),
        ("dynasty", [70, 4_855, 334_920]),
        ("imhotep", [73, 5_343, 387_129]),
    ];
    for (name, counts) in table {
        let p = setup(name).position;
        for (d, &n) in counts.iter().enumerate() {
            assert_eq!(perft(&p, d as u32 + 1), n, "{name} perft({})", d + 1);
        }
        // Red to move at the setup has the same number of moves.
        let mut red = p;
        red.set_side_to_move(Color::Red);
        assert_eq!(perft(&red, 1), counts[0], "{name} Red perft(1)");
    }
}

#[test]
fn eight_classic_depth_two_lines_end_with_red_lighting_its_own_pharaoh() {
    let start = setup("classic").position;
    let mut self_kills = 0;
    for mv in start.legal_moves() {
        let mut p = start;
        assert!(!p.play_unchecked(mv).is_game_over());
        for reply in p.legal_moves() {
            let mut q = p;
            let hits = q.play_unchecked(reply);
            if hits.pharaoh_hit(Color::Red) {
                self_kills += 1;
            }
        }
    }
    assert_eq!(self_kills, 8);
}

/// The reference paths write turns as `(→W)`; [`Shot`]'s text writes `(W)`.
fn normalise(reference_path: &str) -> String {
    reference_path.replace('→', "")
}

#[test]
fn opening_shots_follow_the_reference_paths() {
    let vectors = [
        (
            "classic",
            "j2 j3 j4(→W) i4 h4(→N) h5(→E) i5 j5(→N) j6 j7 j8, off",
            "a7 a6 a5(→E) b5 c5(→S) c4(→W) b4 a4(→S) a3 a2 a1, off",
        ),
        (
            "imhotep",
            "j2 j3 j4(W) i4(N) i5(E) j5(N) j6 j7 j8, off",
            "a7 a6 a5(E) b5(S) b4(W) a4(S) a3 a2 a1, off",
        ),
        (
            "dynasty",
            "j2 j3(W) i3 h3 g3 f3(N) f4(E) g4 h4(S) h3 h2 h1, off",
            "a7 a6(E) b6 c6 d6 e6(S) e5(W) d5 c5(N) c6 c7 c8, off",
        ),
    ];
    for (name, silver, red) in vectors {
        let p = setup(name).position;
        let s = fire(&p, Color::Silver);
        let r = fire(&p, Color::Red);
        assert_eq!(s.to_string(), normalise(silver), "{name} Silver");
        assert_eq!(r.to_string(), normalise(red), "{name} Red");
        assert!(s.hits.is_empty() && r.hits.is_empty());
        assert_eq!(s.segments.first().and_then(|seg| seg.from), Some(sq("j1")));
        assert_eq!(
            s.segments.last().map(|seg| seg.end),
            Some(SegmentEnd::LeftBoard)
        );
    }
}

#[test]
fn khet1_lasers_enter_over_the_edge() {
    // Same squares as 2.0 Classic, no Sphinxes: Silver's beam enters j1 from below.
    let p = setup("khet1/classic").position;
    assert_eq!(p.edition(), Edition::Khet1);
    let s = fire(&p, Color::Silver);
    assert_eq!(s.segments[0].from, None);
    assert_eq!(
        s.to_string(),
        "j1 j2 j3 j4(W) i4 h4(N) h5(E) i5 j5(N) j6 j7 j8, off"
    );
    let r = fire(&p, Color::Red);
    assert_eq!(
        r.to_string(),
        "a8 a7 a6 a5(E) b5 c5(S) c4(W) b4 a4(S) a3 a2 a1, off"
    );
    // A piece standing on j1 is simply the first square the beam meets.
    let q = board(
        Edition::Khet1,
        Color::Silver,
        &[
            ("e1", Piece::pharaoh(Color::Silver)),
            ("f8", Piece::pharaoh(Color::Red)),
            ("j1", Piece::obelisk(Color::Silver, 2)),
        ],
    );
    let shot = fire(&q, Color::Silver);
    assert_eq!(shot.hits.len(), 1);
    assert_eq!(shot.hits[0].effect, HitEffect::TopRemoved);
    let mut after = q;
    after.play(Move::Step {
        from: sq("e1"),
        to: sq("d1"),
    });
    assert_eq!(
        after.piece_at(sq("j1")),
        Some(Piece::obelisk(Color::Silver, 1))
    );
}

#[test]
fn every_setup_is_symmetric_and_checks_out() {
    let entries = catalogue();
    assert_eq!(entries.len(), 8, "{entries:?}");
    // The catalogue is the repository's setups/ folder, built in.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../setups");
    for (name, s) in entries {
        let src = std::fs::read_to_string(dir.join(format!("{name}.ron"))).unwrap();
        assert_eq!(Setup::from_ron(&src, name).unwrap(), s, "{name}");
        let p = s.position;
        assert!(p.problems().is_empty(), "{}", s.name);
        let mut m = p.mirrored();
        m.set_side_to_move(Color::Silver);
        assert_eq!(
            m, p,
            "{} is not symmetric under a half turn with colours swapped",
            s.name
        );
        let per_side = p
            .pieces()
            .filter(|(_, x)| x.color() == Color::Silver)
            .map(|(_, x)| x.height() as usize)
            .sum::<usize>();
        let expected = if s.edition == Edition::Khet2 { 13 } else { 14 };
        assert_eq!(per_side, expected, "{}", s.name);
    }
}

// ---- each piece face -------------------------------------------------------------------------

/// Fires Silver's Sphinx (j1, pointing W along rank 1) at a piece on c1 and returns the shot.
fn shoot_rank1(piece: Piece) -> Shot {
    let mut p = bare2(&[("c1", piece)]);
    p.put(sq("j1"), Some(Piece::sphinx(Color::Silver, Direction::W)));
    p.put(sq("e1"), None);
    p.put(sq("e2"), Some(Piece::pharaoh(Color::Silver)));
    fire(&p, Color::Silver)
}

#[test]
fn pyramid_faces() {
    // The beam travels W, entering through the E face.
    for (facing, expected) in [
        (Diagonal::NE, Some(Direction::N)),
        (Diagonal::SE, Some(Direction::S)),
        (Diagonal::SW, None),
        (Diagonal::NW, None),
    ] {
        let shot = shoot_rank1(Piece::pyramid(Color::Red, facing));
        let first = shot.segments[0];
        assert_eq!(first.to, sq("c1"), "{facing}");
        match expected {
            Some(d) => {
                assert_eq!(first.end, SegmentEnd::Turned(d), "{facing}");
                assert!(shot.hits.is_empty());
            }
            None => {
                assert_eq!(first.end, SegmentEnd::Hit, "{facing}");
                assert_eq!(shot.hits[0].effect, HitEffect::Removed);
            }
        }
    }
}

#[test]
fn pyramid_reflections_follow_the_beam_algebra() {
    // NE turns a beam travelling S into E, and W into N (`docs/rules.md`, Beam algebra).
    let p = bare2(&[("a7", Piece::pyramid(Color::Silver, Diagonal::NE))]);
    let shot = fire(&p, Color::Red); // a8 pointing S: travels S into a7
    assert_eq!(shot.segments[0].end, SegmentEnd::Turned(Direction::E));
}

#[test]
fn two_sided_mirrors_and_eye_turn_from_every_side() {
    for kind in [Kind::Scarab, Kind::Djed] {
        for (mirror, out) in [(Diagonal::NE, Direction::N), (Diagonal::NW, Direction::S)] {
            // Travelling W: `\` turns W into N, `/` turns W into S.
            let shot = shoot_rank1(Piece::new(Color::Red, kind, mirror as u8));
            assert_eq!(
                shot.segments[0].end,
                SegmentEnd::Turned(out),
                "{kind} {mirror}"
            );
            assert!(shot.hits.is_empty());
        }
    }
}

#[test]
fn anubis_front_blocks_and_other_faces_lose_it() {
    for (front, survives) in [
        (Direction::E, true),
        (Direction::N, false),
        (Direction::W, false),
        (Direction::S, false),
    ] {
        let shot = shoot_rank1(Piece::anubis(Color::Red, front));
        if survives {
            assert_eq!(shot.segments[0].end, SegmentEnd::Blocked, "{front}");
            assert!(shot.hits.is_empty());
        } else {
            assert_eq!(shot.hits.len(), 1, "{front}");
        }
    }
}

#[test]
fn pharaoh_sphinx_obelisk_faces() {
    let shot = shoot_rank1(Piece::pharaoh(Color::Red));
    assert_eq!(shot.hits[0].effect, HitEffect::PharaohLit);
    // Red's own Sphinx stops Silver's beam and nothing happens.
    let p = bare2(&[]);
    let mut p = p;
    p.put(sq("j1"), Some(Piece::sphinx(Color::Silver, Direction::N)));
    p.put(sq("a8"), Some(Piece::sphinx(Color::Red, Direction::E)));
    // Silver's beam goes up the j file and off; Red's goes along rank 8 into f8's Pharaoh.
    let red = fire(&p, Color::Red);
    assert_eq!(red.hits[0].effect, HitEffect::PharaohLit);
    assert_eq!(red.hits[0].square, sq("f8"));
    // A mirror on j8 turning Silver's beam west along rank 8 into... the Pharaoh on f8 first.
    let mut q = bare2(&[("j8", Piece::pyramid(Color::Silver, Diagonal::SW))]);
    q.put(sq("f8"), None);
    q.put(sq("f7"), Some(Piece::pharaoh(Color::Red)));
    let s = fire(&q, Color::Silver);
    assert_eq!(
        s.segments.last().map(|x| (x.to, x.end)),
        Some((sq("a8"), SegmentEnd::Blocked))
    );
    let single = shoot_rank1(Piece::obelisk(Color::Red, 1));
    assert_eq!(single.hits[0].effect, HitEffect::Removed);
}

#[test]
fn a_player_who_lights_their_own_pharaoh_loses() {
    // Silver's beam up the j file, turned west on j5 into its own Pharaoh on e5.
    let mut p = bare2(&[
        ("j5", Piece::pyramid(Color::Silver, Diagonal::SW)),
        ("c3", Piece::pyramid(Color::Silver, Diagonal::NE)),
    ]);
    p.put(sq("e1"), None);
    p.put(sq("e5"), Some(Piece::pharaoh(Color::Silver)));
    let mut g = Game::new(p);
    g.play_text("c3c2").unwrap();
    assert_eq!(
        g.result(),
        Some(GameResult::Win {
            winner: Color::Red,
            reason: WinReason::PharaohHit
        })
    );
    assert!(g.play_text("a8+").is_err());
}

// ---- moves -----------------------------------------------------------------------------------

#[test]
fn reserved_squares_refuse_the_other_colour() {
    // Silver pyramid on b2 may not enter the a file; Red may not enter b1 (reserved for Silver).
    let p = bare2(&[
        ("b2", Piece::pyramid(Color::Silver, Diagonal::NE)),
        ("c2", Piece::pyramid(Color::Red, Diagonal::NE)),
    ]);
    let err = p
        .check_move(Move::Step {
            from: sq("b2"),
            to: sq("a2"),
        })
        .unwrap_err();
    assert_eq!(
        err.reason,
        Reason::Reserved {
            square: sq("a2"),
            for_color: Color::Red
        }
    );
    assert!(p.is_legal(Move::Step {
        from: sq("b2"),
        to: sq("b1")
    }));
    let mut r = p;
    r.set_side_to_move(Color::Red);
    assert!(matches!(
        r.check_move(Move::Step {
            from: sq("c2"),
            to: sq("b1")
        })
        .unwrap_err()
        .reason,
        Reason::Reserved { .. }
    ));
    assert!(r.is_legal(Move::Step {
        from: sq("c2"),
        to: sq("c1")
    }));
    // i8 is Red's: Silver may not stand there.
    assert_eq!(reserved_for(sq("i8")), Some(Color::Red));
    assert_eq!(reserved_for(sq("b8")), Some(Color::Silver));
    assert_eq!(reserved_for(sq("j4")), Some(Color::Silver));
    assert_eq!(reserved_for(sq("e4")), None);
}

#[test]
fn swaps_and_the_swap_landing_option() {
    // A Silver Scarab on b2 swapping with a Red Pyramid on b1 would put the Red Pyramid... no:
    // the Scarab lands on b1 (Silver's square, fine) and the Red Pyramid lands on b2 (fine).
    // The strict rule bites when the swapped piece lands on a square reserved against it.
    let p = bare2(&[
        ("b1", Piece::scarab(Color::Silver, Diagonal::NE)),
        ("c2", Piece::pyramid(Color::Red, Diagonal::NE)),
    ]);
    let swap = Move::Swap {
        from: sq("b1"),
        to: sq("c2"),
    };
    let err = p.check_move(swap).unwrap_err();
    assert!(
        matches!(err.reason, Reason::SwapLandingReserved { .. }),
        "{err}"
    );
    assert!(!p.legal_moves().contains(&swap));
    let permissive = p.with_rules(Rules {
        swap_landing: SwapLanding::Permissive,
        ..Rules::default()
    });
    assert!(permissive.legal_moves().contains(&swap));
    let mut after = permissive;
    after.play(swap);
    assert_eq!(
        after.piece_at(sq("b1")).map(Piece::kind),
        Some(Kind::Pyramid)
    );
    assert_eq!(
        after.piece_at(sq("c2")).map(Piece::kind),
        Some(Kind::Scarab)
    );
    // Text `b1c2` is read as the swap; orientations are kept.
    assert_eq!(permissive.parse_move("b1c2"), Ok(swap));
    // No swaps with a Pharaoh, Scarab or Sphinx.
    let q = bare2(&[
        ("e2", Piece::scarab(Color::Silver, Diagonal::NE)),
        ("f2", Piece::scarab(Color::Red, Diagonal::NE)),
    ]);
    assert_eq!(
        q.check_move(Move::Step {
            from: sq("e2"),
            to: sq("e1")
        })
        .unwrap_err()
        .reason,
        Reason::CannotSwapWith(Kind::Pharaoh)
    );
    assert_eq!(
        q.check_move(Move::Step {
            from: sq("e2"),
            to: sq("f2")
        })
        .unwrap_err()
        .reason,
        Reason::CannotSwapWith(Kind::Scarab)
    );
    // A Pyramid cannot move onto a piece.
    let r = bare2(&[("d1", Piece::pyramid(Color::Silver, Diagonal::NE))]);
    assert!(matches!(
        r.check_move(Move::Step {
            from: sq("d1"),
            to: sq("e1")
        })
        .unwrap_err()
        .reason,
        Reason::Occupied { .. }
    ));
}

#[test]
fn rotations_one_move_per_distinct_result() {
    let p = bare2(&[
        ("c3", Piece::scarab(Color::Silver, Diagonal::NE)),
        ("d3", Piece::pyramid(Color::Silver, Diagonal::NE)),
        ("e3", Piece::anubis(Color::Silver, Direction::N)),
    ]);
    let moves = p.legal_moves();
    let rotations = |at: &str| {
        moves
            .iter()
            .filter(|m| matches!(m, Move::Rotate { at: a, .. } if *a == sq(at)))
            .count()
    };
    assert_eq!(rotations("c3"), 1, "a Scarab has one rotation");
    assert_eq!(rotations("d3"), 2);
    assert_eq!(rotations("e3"), 2);
    assert_eq!(rotations("e1"), 0, "a Pharaoh never rotates");
    assert_eq!(rotations("j1"), 1, "a Sphinx has exactly one rotation");
    assert_eq!(
        p.check_move(Move::Rotate {
            at: sq("e1"),
            rotation: Rotation::Clockwise
        })
        .unwrap_err()
        .reason,
        Reason::CannotRotate(Kind::Pharaoh)
    );
    // The Scarab's anticlockwise turn is the same move, written `+`.
    assert_eq!(
        p.parse_move("c3-"),
        Ok(Move::Rotate {
            at: sq("c3"),
            rotation: Rotation::Clockwise
        })
    );
    // Silver's Sphinx toggles N <-> W; either sign is read as that one rotation.
    let sphinx_turn = p.parse_move("j1+").unwrap();
    assert_eq!(sphinx_turn.to_string(), "j1-");
    let mut q = p;
    q.play(sphinx_turn);
    assert_eq!(
        q.piece_at(sq("j1")).and_then(Piece::facing),
        Some(Direction::W)
    );
    // Red to move now.
    assert_eq!(
        q.check_move(Move::Step {
            from: sq("a8"),
            to: sq("b8")
        })
        .unwrap_err()
        .reason,
        Reason::SphinxNeverMoves
    );
    assert_eq!(
        q.check_move(Move::Step {
            from: sq("c3"),
            to: sq("c4")
        })
        .unwrap_err()
        .reason,
        Reason::NotYourPiece {
            square: sq("c3"),
            piece: Piece::scarab(Color::Silver, Diagonal::NE)
        }
    );
    q.set_side_to_move(Color::Silver);
    assert_eq!(
        q.check_move(Move::Step {
            from: sq("j1"),
            to: sq("i1")
        })
        .unwrap_err()
        .reason,
        Reason::SphinxNeverMoves
    );
    assert_eq!(
        q.check_move(Move::Step {
            from: sq("c3"),
            to: sq("c5")
        })
        .unwrap_err()
        .reason,
        Reason::NotAdjacent
    );
    assert_eq!(
        q.check_move(Move::Step {
            from: sq("c6"),
            to: sq("c5")
        })
        .unwrap_err()
        .reason,
        Reason::NoPiece(sq("c6"))
    );
}

#[test]
fn obelisks_stack_move_together_and_unstack() {
    let s1 = |c| Piece::obelisk(c, 1);
    let s2 = |c| Piece::obelisk(c, 2);
    let p = board(
        Edition::Khet1,
        Color::Silver,
        &[
            ("e1", Piece::pharaoh(Color::Silver)),
            ("f8", Piece::pharaoh(Color::Red)),
            ("c3", s2(Color::Silver)),
            ("d3", s1(Color::Silver)),
            ("f3", s1(Color::Silver)),
            ("g3", s1(Color::Silver)),
            ("c4", s1(Color::Red)),
        ],
    );
    let moves = p.legal_moves();
    // The stack: whole-stack steps to the empty neighbours, and top-only moves to them and onto d3.
    let from_c3: Vec<String> = moves
        .iter()
        .filter(|m| m.from() == sq("c3"))
        .map(ToString::to_string)
        .collect();
    assert!(
        from_c3.contains(&"c3b3".to_string()) && from_c3.contains(&"c3b3^".to_string()),
        "{from_c3:?}"
    );
    assert!(from_c3.contains(&"c3d3^".to_string()));
    assert!(
        !from_c3.contains(&"c3d3".to_string()),
        "a stack may not climb onto a third obelisk"
    );
    assert!(
        !from_c3.iter().any(|m| m.starts_with("c3c4")),
        "no stacking with the other colour"
    );
    assert_eq!(
        p.check_move(Move::Step {
            from: sq("c3"),
            to: sq("d3")
        })
        .unwrap_err()
        .reason,
        Reason::StackTooHigh
    );
    assert_eq!(
        p.check_move(Move::Unstack {
            from: sq("d3"),
            to: sq("d4")
        })
        .unwrap_err()
        .reason,
        Reason::NotAStack
    );
    assert!(
        !moves.iter().any(|m| matches!(m, Move::Rotate { .. })),
        "obelisks never rotate"
    );
    // Single onto single stacks.
    let mut q = p;
    q.play(Move::Step {
        from: sq("f3"),
        to: sq("g3"),
    });
    assert_eq!(q.piece_at(sq("g3")), Some(s2(Color::Silver)));
    assert_eq!(q.piece_at(sq("f3")), None);
    // The top moves alone, leaving the bottom.
    let mut r = p;
    r.play(p.parse_move("c3b2^").unwrap());
    assert_eq!(r.piece_at(sq("c3")), Some(s1(Color::Silver)));
    assert_eq!(r.piece_at(sq("b2")), Some(s1(Color::Silver)));
    // The whole stack moves as one.
    let mut t = p;
    t.play(p.parse_move("c3b2").unwrap());
    assert_eq!(t.piece_at(sq("b2")), Some(s2(Color::Silver)));
    assert_eq!(t.piece_at(sq("c3")), None);
    // A Djed swaps with a stack of either colour.
    let u = board(
        Edition::Khet1,
        Color::Red,
        &[
            ("e1", Piece::pharaoh(Color::Silver)),
            ("f8", Piece::pharaoh(Color::Red)),
            ("d5", Piece::djed(Color::Red, Diagonal::NE)),
            ("d4", s2(Color::Silver)),
        ],
    );
    let mut v = u;
    v.play(u.parse_move("d5d4").unwrap());
    assert_eq!(v.piece_at(sq("d5")), Some(s2(Color::Silver)));
}

#[test]
fn eye_of_horus_splits_and_hits_several_pieces() {
    // Silver's beam up the j file meets an Eye `/` on j4: straight on up the file, and turned...
    // `/` turns N into E: off the board. Use `\`: N into W, along rank 4.
    let p = bare2(&[
        ("j4", Piece::eye(Color::Silver, Diagonal::NE)),
        ("j6", Piece::pyramid(Color::Silver, Diagonal::NE)),
        ("c4", Piece::pyramid(Color::Red, Diagonal::NW)),
    ]);
    let shot = fire(&p, Color::Silver);
    let hit: Vec<Square> = shot.hits.iter().map(|h| h.square).collect();
    assert_eq!(hit.len(), 2, "{shot}");
    assert!(hit.contains(&sq("j6")) && hit.contains(&sq("c4")), "{shot}");
    assert!(
        shot.segments
            .iter()
            .any(|s| matches!(s.end, SegmentEnd::Split(Direction::W)))
    );
    let mut after = p;
    // Any move off the beams' way: the Pharaoh steps e1-e2.
    let hits = after.play(p.parse_move("e1e2").unwrap());
    assert_eq!(hits.count(), 2);
    assert_eq!(after.piece_at(sq("j6")), None);
    assert_eq!(after.piece_at(sq("c4")), None);
    assert_eq!(
        after.piece_at(sq("j4")).map(Piece::kind),
        Some(Kind::Eye),
        "an Eye is never removed"
    );
}

#[test]
fn eye_lighting_both_pharaohs_is_a_draw() {
    // Silver's beam up the j file splits on j5 (`\`): on to the Red Pharaoh on j... Red may not
    // stand on the j file, so: split west along rank 5 into the Silver Pharaoh on c5, and the
    // straight part turned by a mirror on j7 west into the Red Pharaoh on d7.
    let mut p = bare2(&[
        ("j5", Piece::eye(Color::Silver, Diagonal::NE)),
        ("j7", Piece::pyramid(Color::Silver, Diagonal::SW)),
        ("c2", Piece::pyramid(Color::Silver, Diagonal::NE)),
    ]);
    p.put(sq("e1"), None);
    p.put(sq("c5"), Some(Piece::pharaoh(Color::Silver)));
    p.put(sq("f8"), None);
    p.put(sq("d7"), Some(Piece::pharaoh(Color::Red)));
    let mut g = Game::new(p);
    g.play_text("c2c1").unwrap();
    assert_eq!(
        g.result(),
        Some(GameResult::Draw {
            reason: DrawReason::BothPharaohsHit
        })
    );
}

#[test]
fn split_beams_that_loop_terminate() {
    // Four mirrors in a ring around an Eye: the reflected beam circles back into the Eye.
    let p = bare2(&[
        ("j3", Piece::eye(Color::Silver, Diagonal::NE)), // N -> straight N and W
        ("j6", Piece::scarab(Color::Silver, Diagonal::NW)), // `/`: N -> E: off
        ("c3", Piece::scarab(Color::Silver, Diagonal::NE)), // `\`: W -> N
        ("c6", Piece::scarab(Color::Red, Diagonal::NW)), // `/`: N -> E
        ("g6", Piece::scarab(Color::Red, Diagonal::NE)), // `\`: E -> S
        ("g3", Piece::eye(Color::Red, Diagonal::NW)),    // S -> straight S and W ...
    ]);
    let shot = fire(&p, Color::Silver);
    assert!(shot.segments.len() < 64, "{shot}");
    let mut q = p;
    q.play_unchecked(Move::Step {
        from: sq("e1"),
        to: sq("e2"),
    });
}

// ---- game ------------------------------------------------------------------------------------

#[test]
fn threefold_repetition_allows_a_claim() {
    let mut g = Game::new(setup("classic").position);
    assert!(!g.can_claim_draw());
    // The Pharaohs step out and back; no shot hits anything.
    let cycle = ["e1e2", "f8f7", "e2e1", "f7f8"];
    for m in cycle {
        g.play_text(m).unwrap();
    }
    assert_eq!(g.repetitions(), 2);
    assert!(!g.can_claim_draw());
    assert!(matches!(
        g.claim_draw(),
        Err(GameError::NoRepetition { times: 2 })
    ));
    for m in cycle {
        g.play_text(m).unwrap();
    }
    assert_eq!(g.repetitions(), 3);
    assert!(g.can_claim_draw());
    assert_eq!(
        g.claim_draw().unwrap(),
        GameResult::Draw {
            reason: DrawReason::Repetition
        }
    );
    assert!(g.play_text("e1e2").is_err());
}

#[test]
fn repetition_counts_arrangements_not_whose_turn() {
    // Silver walks a Pyramid round a triangle (3 moves) while Red's Pharaoh steps out and back
    // (2 moves): the start arrangement returns with Red to move, and counts.
    let mut g = Game::new(setup("classic").position);
    for m in ["h2h3", "f8f7", "h3g2", "f7f8", "g2h2"] {
        g.play_text(m).unwrap();
    }
    assert_eq!(g.side_to_move(), Color::Red);
    assert_eq!(g.repetitions(), 2);
    for m in ["f8f7", "h2h3", "f7f8", "h3h2"] {
        g.play_text(m).unwrap();
    }
    assert_eq!(g.side_to_move(), Color::Red);
    assert_eq!(g.repetitions(), 3);
    assert!(g.can_claim_draw());
}

#[test]
fn draws_resignation_undo() {
    let mut g = Game::new(setup("dynasty").position);
    g.play_text("j1-").unwrap();
    assert_eq!(
        g.agree_draw().unwrap(),
        GameResult::Draw {
            reason: DrawReason::Agreement
        }
    );
    assert!(matches!(g.resign(Color::Red), Err(GameError::Over(_))));
    let turn = g.undo().unwrap();
    assert_eq!(turn.mv.to_string(), "j1-");
    assert!(g.result().is_none());
    assert_eq!(
        g.resign(Color::Silver).unwrap(),
        GameResult::Win {
            winner: Color::Red,
            reason: WinReason::Resignation
        }
    );
    assert!(matches!(
        Game::new(setup("dynasty").position).undo(),
        Err(GameError::NothingToUndo)
    ));
}

#[test]
fn no_legal_moves_follows_the_rule_option() {
    // Khet 1.0: Silver's lone Pharaoh boxed in by Red obelisks on squares it cannot enter.
    let mut p = board(
        Edition::Khet1,
        Color::Silver,
        &[
            ("j1", Piece::pharaoh(Color::Silver)),
            ("f8", Piece::pharaoh(Color::Red)),
            ("i2", Piece::obelisk(Color::Red, 1)),
        ],
    );
    // i1 is Red's; j2 blocked by a Silver obelisk? No: leave j2 empty to move, then block it.
    assert!(p.count_moves() > 0);
    p.put(sq("j2"), Some(Piece::djed(Color::Red, Diagonal::NE)));
    // A Red piece on j2 is not allowed (Silver's square): problems() says so, but as a
    // hand-made board it still tests the option.
    assert_eq!(p.count_moves(), 0);
    let g = Game::new(p);
    assert_eq!(
        g.result(),
        Some(GameResult::Draw {
            reason: DrawReason::NoLegalMoves
        })
    );
    let g = Game::new(p.with_rules("no-moves-loss".parse().unwrap()));
    assert_eq!(
        g.result(),
        Some(GameResult::Win {
            winner: Color::Red,
            reason: WinReason::NoLegalMoves
        })
    );
}

// ---- Khet 1.0's setups -----------------------------------------------------------------------

/// Khet 1.0's setup as `docs/rules.md` derives it from 2.0's: the same squares and orientations,
/// each Anubis a stacked pair of obelisks of its colour, each Scarab a Djed, no Sphinx.
fn khet1_from_khet2(p: &Position) -> Position {
    let mut out = Position::empty(Edition::Khet1);
    for (sq, piece) in p.pieces() {
        let derived = match piece.kind() {
            Kind::Anubis => Some(Piece::obelisk(piece.color(), 2)),
            Kind::Scarab => Some(Piece::djed(piece.color(), piece.mirror().unwrap())),
            Kind::Sphinx => None,
            _ => Some(piece),
        };
        out.put(sq, derived);
    }
    out
}

#[test]
fn khet1_setups_are_khet2s_derived_by_the_rule_and_their_perft_is_pinned() {
    // Self-derived regression values: the reference counts cover 2.0 only, so these were counted by
    // this engine alone (2026-11-24) and pin it; no second program has confirmed them.
    let table = [
        ("classic", [79, 6_228, 489_525]),
        ("dynasty", [70, 4_850, 334_528]),
        ("imhotep", [75, 5_635, 420_864]),
    ];
    for (name, counts) in table {
        let derived = khet1_from_khet2(&setup(name).position);
        let shipped = setup(&format!("khet1/{name}")).position;
        assert_eq!(shipped.edition(), Edition::Khet1, "{name}");
        assert_eq!(
            shipped.pieces().collect::<Vec<_>>(),
            derived.pieces().collect::<Vec<_>>(),
            "khet1/{name} is not 2.0's {name} derived by the rule of docs/rules.md"
        );
        // 14 pieces a side, a stack of two obelisks counting as two.
        let silver: u32 = shipped
            .pieces()
            .filter(|(_, p)| p.color() == Color::Silver)
            .map(|(_, p)| u32::from(p.height()))
            .sum();
        assert_eq!(silver, 14, "{name}");
        let found: Vec<u64> = (1..=3).map(|d| perft(&shipped, d)).collect();
        assert_eq!(found, counts, "khet1/{name} perft 1..3");
    }
}
