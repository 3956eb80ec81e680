//! Property tests over random playouts and random positions: no panics; generation and checking
//! agree exactly; the incremental hash equals the recomputed one; text forms round-trip; beams
//! end, also with many beam splitters.

mod common;

use common::stepwise::trace_hits_stepwise;
use common::*;
use khet_engine::*;
use proptest::prelude::*;
use std::collections::HashSet;

/// Every move shape on every square: what a careless or hostile caller could send.
fn all_candidates() -> Vec<Move> {
    let mut out = Vec::new();
    for from in Square::ALL {
        for rotation in [Rotation::Clockwise, Rotation::Anticlockwise] {
            out.push(Move::Rotate { at: from, rotation });
        }
        for to in Square::ALL {
            let df = from.file().index().abs_diff(to.file().index());
            let dr = from.rank().index().abs_diff(to.rank().index());
            // Neighbours plus a sample of far squares.
            if df <= 1 && dr <= 1 || (from.index() + to.index()) % 17 == 0 {
                out.push(Move::Step { from, to });
                out.push(Move::Swap { from, to });
                out.push(Move::Unstack { from, to });
            }
        }
    }
    out
}

/// The properties every reachable or random position must have.
fn check_position(p: &Position, candidates: &[Move]) -> Result<(), TestCaseError> {
    prop_assert_eq!(p.arrangement_hash(), p.compute_hash());
    let text = p.to_string();
    let back = parse_position_with(&text, p.rules())
        .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
    prop_assert_eq!(back.with_rules(p.rules()), *p, "{}", text);
    let moves = p.legal_moves();
    let set: HashSet<Move> = moves.iter().copied().collect();
    prop_assert_eq!(set.len(), moves.len(), "duplicate moves");
    prop_assert_eq!(p.count_moves(), moves.len() as u64);
    for &m in &moves {
        prop_assert_eq!(p.check_move(m), Ok(m), "generated {} refused", m);
        prop_assert_eq!(p.parse_move(&m.to_string()), Ok(m));
    }
    for &c in candidates {
        if let Ok(canonical) = p.check_move(c) {
            prop_assert!(
                set.contains(&canonical),
                "{} accepted as {} but not generated in {}",
                c,
                canonical,
                text
            );
        }
    }
    // One move per distinct result.
    let mut results = HashSet::new();
    for &m in &moves {
        let mut q = *p;
        q.apply_move(m);
        prop_assert!(
            results.insert(q.cells_for_test()),
            "two moves give the same board: {}",
            m
        );
    }
    for color in Color::ALL {
        let shot = fire(p, color);
        prop_assert!(shot.segments.len() <= 4 * 80);
        prop_assert_eq!(shot.impact(), p.trace_hits(color));
        prop_assert_eq!(
            p.trace_hits(color),
            trace_hits_stepwise(p, color),
            "fast and stepwise tracers disagree"
        );
    }
    Ok(())
}

trait CellsForTest {
    fn cells_for_test(&self) -> String;
}
impl CellsForTest for Position {
    fn cells_for_test(&self) -> String {
        self.to_string()
    }
}

fn playout(start: Position, choices: &[u16], candidates: &[Move]) -> Result<(), TestCaseError> {
    let mut game = Game::new(start);
    for &c in choices {
        let p = *game.position();
        check_position(&p, candidates)?;
        let moves = game.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mv = moves[c as usize % moves.len()];
        let mut fast = p;
        let hits = fast.play_unchecked(mv);
        let turn = game
            .play(mv)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(turn.shot.impact(), hits);
        prop_assert_eq!(*game.position(), fast);
        prop_assert_eq!(fast.arrangement_hash(), fast.compute_hash());
        if game.is_over() {
            prop_assert!(hits.is_game_over() || game.position().count_moves() == 0);
            break;
        }
    }
    // The record replays to the same game.
    let record = Record::from_game(&game, "random");
    let text = record.to_ron();
    let back = Record::from_ron(&text, "r.ron").map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&back, &record);
    let replayed = back
        .replay(&text, "r.ron")
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(replayed.position(), game.position());
    prop_assert_eq!(replayed.result(), game.result());
    Ok(())
}

const SETUPS: [&str; 8] = [
    "classic",
    "imhotep",
    "dynasty",
    "imhotep-eyes",
    "dynasty-eyes",
    "khet1/classic",
    "khet1/imhotep",
    "khet1/dynasty",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_playouts_keep_every_invariant(
        setup_index in 0..SETUPS.len(),
        permissive in any::<bool>(),
        choices in prop::collection::vec(any::<u16>(), 1..80),
    ) {
        let candidates = all_candidates();
        let mut start = setup(SETUPS[setup_index]).position;
        if permissive {
            start.set_rules(Rules { swap_landing: SwapLanding::Permissive, ..Rules::default() });
        }
        playout(start, &choices, &candidates)?;
    }

    #[test]
    fn random_positions_keep_every_invariant(
        khet1 in any::<bool>(),
        pharaohs in (0..80u8, 0..80u8),
        pieces in prop::collection::vec((0..80u8, 0..8usize, any::<bool>(), 0..4u8, 1..3u8), 0..40),
        choices in prop::collection::vec(any::<u16>(), 1..30),
    ) {
        let edition = if khet1 { Edition::Khet1 } else { Edition::Khet2 };
        let mut p = Position::empty(edition);
        let free = |p: &Position, i: u8, c: Color| {
            let s = Square::ALL[i as usize];
            p.piece_at(s).is_none() && reserved_for(s) != Some(c.other()) && s != sphinx_square(Color::Silver) && s != sphinx_square(Color::Red)
        };
        if edition == Edition::Khet2 {
            p.put(sphinx_square(Color::Silver), Some(Piece::sphinx(Color::Silver, Direction::N)));
            p.put(sphinx_square(Color::Red), Some(Piece::sphinx(Color::Red, Direction::S)));
        }
        prop_assume!(free(&p, pharaohs.0, Color::Silver));
        p.put(Square::ALL[pharaohs.0 as usize], Some(Piece::pharaoh(Color::Silver)));
        prop_assume!(free(&p, pharaohs.1, Color::Red));
        p.put(Square::ALL[pharaohs.1 as usize], Some(Piece::pharaoh(Color::Red)));
        for (i, k, red, o, h) in pieces {
            let color = if red { Color::Red } else { Color::Silver };
            let kind = Kind::ALL[k];
            let allowed = !matches!(
                (edition, kind),
                (_, Kind::Pharaoh | Kind::Sphinx)
                    | (Edition::Khet2, Kind::Djed | Kind::Obelisk)
                    | (Edition::Khet1, Kind::Scarab | Kind::Anubis)
            );
            if allowed && free(&p, i, color) {
                let piece = if kind == Kind::Obelisk { Piece::obelisk(color, h) } else { Piece::new(color, kind, o) };
                p.put(Square::ALL[i as usize], Some(piece));
            }
        }
        prop_assert!(p.problems().is_empty(), "{:?}", p.problems());
        playout(p, &choices, &all_candidates())?;
    }
}

#[test]
fn garbage_position_strings_are_refused_without_panic() {
    let samples = [
        "",
        " ",
        "0",
        "////////",
        "x33a3ka3p22/2p37 0",
        "k/k/k/k/k/k/k/k 0",
        "99999999/ 0",
        "é 0",
        "x9/x9/x9/x9/x9/x9/x9/x9 1",
    ];
    for s in samples {
        assert!(parse_position(s).is_err(), "{s}");
    }
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,60}") {
        let _ = parse_position(&s);
        let _ = setup("classic").position.parse_move(&s);
        let _ = Setup::from_ron(&s, "x.ron");
        let _ = Record::from_ron(&s, "x.ron");
    }
}
