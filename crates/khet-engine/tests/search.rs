//! The computer opponent: kills, defences, forced wins, time, stop, determinism, repetitions,
//! mate scores.

mod common;

use common::*;
use khet_engine::eval::WIN;
use khet_engine::search::DEFAULT_CONTEMPT;
use khet_engine::*;
use std::time::Duration;

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

#[test]
fn finds_a_pharaoh_kill_in_one() {
    // Silver's beam goes up the j file into the back of its own Pyramid on j8; turning it to face
    // SW sends the beam west along rank 8 into the Red Pharaoh.
    let p = bare2(&[
        ("j8", Piece::pyramid(Color::Silver, Diagonal::NW)),
        ("c3", Piece::pyramid(Color::Red, Diagonal::NE)),
    ]);
    for d in 1..=4 {
        let r = Searcher::default().search(&p, depth(d), |_| {});
        assert_eq!(
            r.best,
            Some(Move::Rotate {
                at: sq("j8"),
                rotation: Rotation::Anticlockwise
            }),
            "depth {d}"
        );
        assert!(r.score >= WIN - 2, "depth {d}: {}", r.score);
    }
}

/// Whether Red, to move, can light Silver's Pharaoh.
fn red_kills(p: &Position) -> bool {
    p.legal_moves().into_iter().any(|m| {
        let mut q = *p;
        q.play_unchecked(m).pharaoh_hit(Color::Silver)
    })
}

#[test]
fn avoids_a_move_that_lets_the_opponent_kill() {
    // Red's beam comes down the a file, turns east on a2 and is stopped by Silver's Anubis shield
    // on d2; behind it, on f2, Silver's Pharaoh. Moving or turning the Anubis loses.
    let mut p = bare2(&[
        ("a2", Piece::pyramid(Color::Red, Diagonal::NE)),
        ("d2", Piece::anubis(Color::Silver, Direction::W)),
        ("h5", Piece::pyramid(Color::Silver, Diagonal::NE)),
    ]);
    p.put(sq("e1"), None);
    p.put(sq("f2"), Some(Piece::pharaoh(Color::Silver)));
    let losing = p
        .legal_moves()
        .into_iter()
        .filter(|&m| {
            let mut q = p;
            !q.play_unchecked(m).is_game_over() && red_kills(&q)
        })
        .count();
    assert!(
        losing >= 3,
        "the test position should offer losing moves ({losing})"
    );
    for d in 2..=4 {
        let r = Searcher::default().search(&p, depth(d), |_| {});
        let mut q = p;
        q.play_unchecked(r.best.unwrap());
        assert!(
            !red_kills(&q),
            "depth {d}: {} lets Red kill",
            r.best.unwrap()
        );
    }
}

/// Moves after which every reply loses to a Pharaoh hit (or lights Red's own Pharaoh).
fn forced_wins_in_three(p: &Position) -> Vec<Move> {
    let me = p.side_to_move();
    p.legal_moves()
        .into_iter()
        .filter(|&m1| {
            let mut a = *p;
            let h = a.play_unchecked(m1);
            if h.is_game_over() {
                return false;
            }
            a.legal_moves().into_iter().all(|m2| {
                let mut b = a;
                let h2 = b.play_unchecked(m2);
                if h2.is_game_over() {
                    return h2.pharaoh_hit(me.other()) && !h2.pharaoh_hit(me);
                }
                b.legal_moves().into_iter().any(|m3| {
                    let mut c = b;
                    let h3 = c.play_unchecked(m3);
                    h3.pharaoh_hit(me.other()) && !h3.pharaoh_hit(me)
                })
            })
        })
        .collect()
}

/// The game's puzzle book.
fn shipped_puzzles() -> khet_engine::puzzle::PuzzleBook {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/puzzles/puzzles.ron"
    );
    let bytes = std::fs::read(path).expect("the shipped puzzles");
    khet_engine::puzzle::PuzzleBook::from_bytes(&bytes, path).expect("they read")
}

/// Asserts that a search of `puzzle`'s start chose the solution's first move.
#[track_caller]
fn assert_plays_first_move(r: &SearchResult, puzzle: &khet_engine::puzzle::Puzzle) {
    assert_eq!(
        r.best.map(|m| m.to_string()).as_deref(),
        Some(puzzle.solution[0].as_str()),
        "{}",
        puzzle.name
    );
}

/// The shipped puzzles in at most `moves` moves, each with its start and the plies of its win.
fn short_puzzles(moves: u32) -> Vec<(khet_engine::puzzle::Puzzle, Position, u32)> {
    shipped_puzzles()
        .puzzles
        .into_iter()
        .filter(|p| p.moves <= moves)
        .map(|puzzle| {
            let start = puzzle.start().expect("its position");
            let plies = 2 * puzzle.moves - 1;
            (puzzle, start, plies)
        })
        .collect()
}

/// The shipped puzzles in one or two moves, checked by brute force, apart from the puzzle
/// solver that proved them: the stored first move is the only one that wins so soon, and none
/// wins sooner.
#[test]
fn the_short_shipped_puzzles_agree_with_brute_force() {
    let book = shipped_puzzles();
    let mut checked = [0; 2];
    for puzzle in book.puzzles.iter().filter(|p| p.moves <= 2) {
        let p = puzzle.start().expect("its position");
        let first = puzzle.solution_moves().expect("its line")[0];
        let me = p.side_to_move();
        let wins_in_one: Vec<Move> = p
            .legal_moves()
            .into_iter()
            .filter(|&m| {
                let mut q = p;
                let h = q.play_unchecked(m);
                h.pharaoh_hit(me.other()) && !h.pharaoh_hit(me)
            })
            .collect();
        if puzzle.moves == 1 {
            assert_eq!(wins_in_one, [first], "{}", puzzle.name);
        } else {
            assert!(wins_in_one.is_empty(), "{}: {wins_in_one:?}", puzzle.name);
            assert_eq!(forced_wins_in_three(&p), [first], "{}", puzzle.name);
        }
        checked[puzzle.moves as usize - 1] += 1;
    }
    // The shipped puzzles (`docs/engine.md`, Puzzles): wins in one and in two among its 48.
    assert!(checked[0] >= 6 && checked[1] >= 6, "{checked:?}");
}

#[test]
fn finds_forced_wins_in_three_plies() {
    // Positions from pseudo-random games with a forced win in 3 plies and none in 1.
    let mut found = 0;
    let mut seed = 99u64;
    'games: for g in 0..400 {
        let mut p = setup(["classic", "imhotep", "dynasty"][g % 3]).position;
        for _ in 0..60 {
            let moves = p.legal_moves();
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mv = moves[(seed >> 33) as usize % moves.len()];
            if p.play_unchecked(mv).is_game_over() {
                continue 'games;
            }
            let win_in_one = p.legal_moves().into_iter().any(|m| {
                let mut q = p;
                q.play_unchecked(m).pharaoh_hit(p.side_to_move().other())
            });
            if win_in_one {
                continue 'games;
            }
            let wins = forced_wins_in_three(&p);
            if !wins.is_empty() {
                let r = Searcher::default().search(&p, depth(3), |_| {});
                assert!(
                    r.score >= WIN - 3,
                    "{p:?}: score {} for {:?}, wins {wins:?}",
                    r.score,
                    r.best
                );
                assert!(
                    wins.contains(&r.best.unwrap()),
                    "{p:?}: {:?} is not one of {wins:?}",
                    r.best
                );
                found += 1;
                if found == 3 {
                    return;
                }
                continue 'games;
            }
        }
    }
    assert!(
        found >= 1,
        "no position with a forced win in three plies was found"
    );
}

#[test]
fn a_timed_search_ends_by_itself_with_a_legal_move() {
    let mut seed = 5u64;
    for g in 0..6 {
        let mut p = setup(["classic", "imhotep", "dynasty"][g % 3]).position;
        for _ in 0..(10 + g * 5) {
            let moves = p.legal_moves();
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mut q = p;
            if !q
                .play_unchecked(moves[(seed >> 33) as usize % moves.len()])
                .is_game_over()
            {
                p = q;
            }
        }
        // Unlimited, this search runs for minutes: that it ends at all, by its own clock, is
        // what is checked (how soon is the benchmarks' business).
        let r = within_patience("a search of 150 ms", move || {
            Searcher::default().search(
                &p,
                Limits {
                    time: Some(Duration::from_millis(150)),
                    ..Limits::default()
                },
                |_| {},
            )
        });
        assert!(p.is_legal(r.best.unwrap()));
    }
}

#[test]
fn stop_ends_an_unlimited_search_with_a_legal_move() {
    let p = setup("classic").position;
    let mut s = Searcher::default();
    let stop = s.stop_flag();
    // Stopped once it has reported its first iteration: under way, and without a limit.
    let (reported, first) = std::sync::mpsc::channel();
    let searching = std::thread::spawn(move || {
        s.search(&p, Limits::default(), |_| {
            let _ = reported.send(());
        })
    });
    first
        .recv_timeout(PATIENCE)
        .expect("the search reports its first iteration");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    // Without the stop this search would not end.
    let r = within_patience("the stopped search", move || searching.join().unwrap());
    assert!(p.is_legal(r.best.unwrap()));
}

#[test]
fn same_position_and_seed_give_the_same_move() {
    let p = setup("dynasty").position;
    let a = Searcher::default().search(&p, depth(4), |_| {});
    let b = Searcher::default().search(&p, depth(4), |_| {});
    assert_eq!((a.best, a.score), (b.best, b.score));
}

/// Every level's choice is legal, and the same game and seed give the same move at every
/// level, Master too: the levels search to a depth or a node count, not a time (here a
/// budget far beyond what the search needs, so that a loaded machine cannot cut it short).
#[test]
fn every_level_chooses_legally_and_the_same_seed_gives_the_same_move() {
    // Out of the book: six plies of the greedy player.
    let mut game = Game::new(setup("dynasty").position);
    let mut rng = khet_engine::Rng::new(5);
    for _ in 0..6 {
        let mv = khet_engine::greedy_move(&game, &mut rng).expect("a move");
        game.play(mv).unwrap();
    }
    let choose = |level: Level, seed| {
        let mut rng = khet_engine::Rng::new(seed);
        let mut searcher = Searcher::new(1 << 16);
        searcher.book = Some(std::sync::Arc::new(khet_engine::book::Book::builtin()));
        level.choose(&mut searcher, &game, Duration::from_secs(600), &mut rng)
    };
    for level in Level::ALL {
        let first = choose(level, 7).expect("a move");
        assert!(game.position().is_legal(first), "{level}: {first}");
        assert_eq!(choose(level, 7), Some(first), "{level}");
    }
}

/// The move `level` chooses at `p` with 200 ms and a fixed seed.
fn chosen(level: Level, p: Position) -> Move {
    let mut rng = khet_engine::Rng::new(1);
    level
        .choose(
            &mut Searcher::new(1 << 16),
            &Game::new(p),
            Duration::from_millis(200),
            &mut rng,
        )
        .unwrap()
}

#[test]
fn every_level_takes_a_kill_and_avoids_suicide() {
    let p = bare2(&[
        ("j8", Piece::pyramid(Color::Silver, Diagonal::NW)),
        ("c3", Piece::pyramid(Color::Red, Diagonal::NE)),
    ]);
    for level in Level::ALL {
        let mv = chosen(level, p);
        let mut q = p;
        let hits = q.play_unchecked(mv);
        assert!(hits.pharaoh_hit(Color::Red), "{} chose {mv}", level.name());
    }
    // Silver's own beam runs j1 → j2 (turned west) → e2 (turned south) → its Pharaoh on e1, so
    // every move that leaves that path alone lights Silver's own Pharaoh: the far pyramids' moves,
    // the Pharaoh's step into the beam, the Sphinx turned along rank 1. Most moves are such.
    let p = bare2(&[
        ("j2", Piece::pyramid(Color::Silver, Diagonal::SW)),
        ("e2", Piece::pyramid(Color::Silver, Diagonal::SE)),
        ("c5", Piece::pyramid(Color::Silver, Diagonal::NE)),
        ("g6", Piece::pyramid(Color::Silver, Diagonal::NW)),
        ("d7", Piece::pyramid(Color::Silver, Diagonal::SE)),
    ]);
    let suicides = |p: &Position, mv: Move| {
        let mut q = *p;
        q.play_unchecked(mv).pharaoh_hit(Color::Silver)
    };
    let moves = p.legal_moves();
    let fatal = moves.iter().filter(|&&mv| suicides(&p, mv)).count();
    assert!(
        fatal * 2 > moves.len(),
        "{fatal} of {} moves are suicides",
        moves.len()
    );
    for level in Level::ALL {
        let mv = chosen(level, p);
        assert!(
            !suicides(&p, mv),
            "{} lit its own Pharaoh with {mv}",
            level.name()
        );
    }
}

#[test]
fn searches_both_editions_and_beam_splitters() {
    for name in [
        "khet1/classic",
        "khet1/dynasty",
        "imhotep-eyes",
        "dynasty-eyes",
    ] {
        let p = setup(name).position;
        let r = Searcher::default().search(&p, depth(4), |_| {});
        assert!(p.is_legal(r.best.unwrap()), "{name}");
        assert_eq!(r.depth, 4, "{name}");
        for level in Level::ALL {
            let mut rng = khet_engine::Rng::new(3);
            let mv = level.choose(
                &mut Searcher::new(1 << 16),
                &Game::new(p),
                Duration::from_millis(50),
                &mut rng,
            );
            assert!(p.is_legal(mv.unwrap()), "{name} {}", level.name());
        }
    }
}

#[test]
fn capture_gain_equals_the_material_difference() {
    let mut seed = 11u64;
    let mut captures = 0;
    for g in 0..60 {
        let mut p = setup(
            [
                "classic",
                "imhotep",
                "dynasty",
                "khet1/classic",
                "dynasty-eyes",
            ][g % 5],
        )
        .position;
        for _ in 0..80 {
            let side = p.side_to_move();
            for mv in p.legal_moves() {
                let mut q = p;
                let hits = q.play_unchecked(mv);
                if hits.is_game_over() {
                    continue;
                }
                let (b, a) = (
                    khet_engine::eval::material(&p),
                    khet_engine::eval::material(&q),
                );
                let expected = (b[side.other().index()] - a[side.other().index()])
                    - (b[side.index()] - a[side.index()]);
                assert_eq!(
                    khet_engine::eval::capture_gain(&p, mv, hits, side),
                    expected,
                    "{p:?} {mv}"
                );
                captures += usize::from(hits.squares != 0);
            }
            let moves = p.legal_moves();
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mut q = p;
            if q.play_unchecked(moves[(seed >> 33) as usize % moves.len()])
                .is_game_over()
            {
                break;
            }
            p = q;
        }
    }
    assert!(captures > 100, "too few captures exercised ({captures})");
}

/// Plays the search against itself from `start` (at `depth`, repetition rule on or off, with or
/// without late-move pruning) until a threefold repetition, a result or `plies`; the game.
fn self_play(
    start: Position,
    depth_plies: u32,
    repetitions: bool,
    pruning: bool,
    plies: usize,
) -> Game {
    let mut game = Game::new(start);
    let mut s = Searcher::new(1 << 16);
    s.options.repetitions = repetitions;
    s.options.late_move_pruning = pruning;
    // Without the reach terms, which by themselves keep a side that is ahead changing its beam
    // (and so the blind search from repeating here): these games are about repetitions alone.
    s.options.weights.reach = 0;
    s.options.weights.capture_reach = 0;
    while !game.is_over() && !game.can_claim_draw() && game.turns().len() < plies {
        let Some(mv) = s.search_game(&game, depth(depth_plies), |_| {}).best else {
            break;
        };
        game.play(mv).unwrap();
    }
    game
}

#[test]
fn a_side_ahead_does_not_repeat_where_the_blind_search_does() {
    // Silver is three Pyramids up; Red can only shuffle. The search blind to repetitions shuffles
    // too, into a threefold repetition; knowing the game's history it plays on.
    let start = bare2(&[
        ("c3", Piece::pyramid(Color::Silver, Diagonal::NE)),
        ("d3", Piece::pyramid(Color::Silver, Diagonal::NW)),
        ("g2", Piece::pyramid(Color::Silver, Diagonal::NE)),
        ("e2", Piece::anubis(Color::Silver, Direction::N)),
        ("f7", Piece::anubis(Color::Red, Direction::S)),
        ("e7", Piece::anubis(Color::Red, Direction::S)),
    ]);
    // Two depths: whether the blind search shuffles into a threefold repetition within 120
    // plies depends on the order it tries equally ranked moves in (at depth 3 it does not, nor
    // at depth 4 with late-move pruning, which leaves other moves to tie): the blind games are
    // played without it, the aware ones with it (as played) and without.
    for (depth_plies, pruning) in [(2, false), (4, false), (2, true), (4, true)] {
        let blind = self_play(start, depth_plies, false, false, 120);
        assert!(
            blind.can_claim_draw(),
            "the blind search was expected to repeat at depth {depth_plies}"
        );
        let aware = self_play(start, depth_plies, true, pruning, 120);
        assert!(
            !aware.can_claim_draw() && (aware.turns().len() == 120 || aware.is_over()),
            "repeated after {} plies at depth {depth_plies} (pruning: {pruning})",
            aware.turns().len()
        );
        if let Some(result) = aware.result() {
            assert!(
                matches!(
                    result,
                    GameResult::Win {
                        winner: Color::Silver,
                        ..
                    }
                ),
                "{result}"
            );
        }
    }
}

#[test]
fn the_side_behind_steers_into_a_repetition() {
    // Red is three Pyramids down: a draw is worth more to it than playing on, so with a
    // repetition at hand it takes it. Build one: both sides turn a piece and turn it back twice.
    let mut game = Game::new(bare2(&[
        ("c3", Piece::pyramid(Color::Silver, Diagonal::NE)),
        ("d3", Piece::pyramid(Color::Silver, Diagonal::NW)),
        ("g2", Piece::pyramid(Color::Silver, Diagonal::NE)),
        ("e2", Piece::anubis(Color::Silver, Direction::N)),
        ("e7", Piece::anubis(Color::Red, Direction::S)),
    ]));
    for m in ["e2+", "e7+", "e2-", "e7-", "e2+", "e7+", "e2-"] {
        game.play_text(m).unwrap();
    }
    // Red to move: e7- brings back the arrangement for the third time.
    let r = Searcher::default().search_game(&game, depth(4), |_| {});
    let mut after = game.clone();
    after.play(r.best.unwrap()).unwrap();
    assert!(after.can_claim_draw(), "Red played {:?}", r.best);
    // A draw is worth minus the contempt to the side searching, far better than three Pyramids
    // down.
    assert_eq!(r.score, -DEFAULT_CONTEMPT);
}

#[test]
fn the_hash_option_sizes_the_table() {
    for mb in [1, 16, 100] {
        let bytes = Searcher::with_hash_mb(mb).hash_bytes();
        assert!(
            bytes <= mb << 20 && bytes > (mb << 20) / 4,
            "{mb} MiB: {bytes} bytes"
        );
    }
}

/// Lazy SMP: where the answer is forced (the shipped puzzles in one and two moves, each with one
/// winning first move), two and four threads at a fixed depth find the same move and score as
/// one; elsewhere they complete the depth asked with a legal move. Every search shares one table
/// between its threads (atomics only: no data race to find).
#[test]
fn threads_agree_with_one_thread_where_the_answer_is_forced() {
    let mut compared = 0;
    for (puzzle, p, plies) in short_puzzles(2) {
        let one = Searcher::new(1 << 16).search(&p, depth(plies), |_| {});
        for threads in [2, 4] {
            let mut s = Searcher::new(1 << 16);
            s.options.threads = threads;
            let many = s.search(&p, depth(plies), |_| {});
            let what = format!("{} with {threads} threads", puzzle.name);
            assert_same_answer(&many, &one, &what);
        }
        assert_plays_first_move(&one, &puzzle);
        compared += 1;
    }
    assert!(compared >= 12, "{compared}");
    for name in ["classic", "imhotep", "dynasty", "khet1/classic"] {
        let p = setup(name).position;
        let mut s = Searcher::new(1 << 18);
        s.options.threads = 3;
        let r = s.search(&p, depth(4), |_| {});
        assert_eq!(r.depth, 4, "{name}");
        assert!(p.is_legal(r.best.expect("a move")), "{name}");
    }
}

/// Null moves prune only what passing proves, but the reduced reply to a pass can miss a deep
/// threat: the forced wins of the shipped puzzles in one to three moves are all found, the
/// same first move and the same length, at most two plies later with null moves than without;
/// and a search for a forced win (`go mate`) makes none, so finds each at its length.
#[test]
fn null_moves_keep_every_forced_win() {
    let mut compared = 0;
    for (puzzle, p, plies) in short_puzzles(3) {
        // The reference prunes nothing: late-move pruning, on as played, may also find a win
        // a ply later.
        let search = |null_moves: bool, limits: Limits| {
            let mut s = Searcher::new(1 << 16);
            s.options.null_moves = null_moves;
            s.options.late_move_pruning = null_moves;
            s.search(&p, limits, |_| {})
        };
        let without = search(false, depth(plies));
        assert_plays_first_move(&without, &puzzle);
        let later = search(true, depth(plies + 2));
        let exact = search(
            true,
            Limits {
                mate: Some(puzzle.moves),
                ..Limits::default()
            },
        );
        for (with, how) in [(later, "two plies later"), (exact, "a mate search")] {
            assert_same_answer(&with, &without, &format!("{}: {how}", puzzle.name));
        }
        compared += 1;
    }
    assert!(compared >= 24, "{compared}");
}

/// Graded reductions search late quiet moves several plies shallower, but a move that beats
/// alpha there is searched again in full: the forced wins of the shipped puzzles in one to
/// three moves are all found with the same first move and length as without them, at most two
/// plies later (with null moves, as played).
#[test]
fn graded_reductions_keep_every_forced_win() {
    let mut compared = 0;
    for (puzzle, p, plies) in short_puzzles(3) {
        let search = |graded: bool| {
            let mut s = Searcher::new(1 << 16);
            s.options.graded_reductions = graded;
            s.search(&p, depth(plies + 2), |_| {})
        };
        let (without, with) = (search(false), search(true));
        assert_same_answer(&with, &without, &puzzle.name);
        assert_plays_first_move(&with, &puzzle);
        compared += 1;
    }
    assert!(compared >= 24, "{compared}");
}

/// Late-move pruning skips late quiet moves near the horizon, off the principal line, once the
/// node's Pharaoh is kept: the forced wins of the shipped puzzles in one to three moves are
/// still found with the same first move and length, at most two plies later; a search for a
/// forced win prunes nothing (the same tree, node for node); and from a setup it searches
/// fewer nodes to the same depth.
#[test]
fn late_move_pruning_keeps_every_forced_win() {
    let (without, with) =
        keeps_every_forced_win(|s, on| s.options.late_move_pruning = on, true, "classic");
    assert!(with < without * 3 / 4, "{with} of {without}");
}

/// A search switch (`set` turns it on or off) keeps the forced wins of the shipped puzzles in
/// one to three moves: found with the same first move and length as without it, at most two
/// plies later; a search for a forced win finds the same, and where the switch `prunes`, it
/// is the same tree, node for node (pruning is off there). Returns the nodes to depth 7 from
/// `setup` without it and with it.
fn keeps_every_forced_win(set: fn(&mut Searcher, bool), prunes: bool, setup: &str) -> (u64, u64) {
    let mut compared = 0;
    for (puzzle, p, plies) in short_puzzles(3) {
        let search = |on: bool, limits: Limits| {
            let mut s = Searcher::new(1 << 16);
            set(&mut s, on);
            s.search(&p, limits, |_| {})
        };
        let without = search(false, depth(plies + 2));
        let with = search(true, depth(plies + 2));
        assert_same_answer(&with, &without, &puzzle.name);
        assert_plays_first_move(&with, &puzzle);
        let mate = Limits {
            mate: Some(puzzle.moves),
            ..Limits::default()
        };
        let (mate_with, mate_without) = (search(true, mate), search(false, mate));
        assert_same_answer(&mate_with, &mate_without, &puzzle.name);
        if prunes {
            assert_eq!(mate_with.nodes, mate_without.nodes, "{}", puzzle.name);
        }
        compared += 1;
    }
    assert!(compared >= 24, "{compared}");
    let p = Setup::builtin(setup).unwrap().position;
    let nodes = |on: bool| {
        let mut s = Searcher::new(1 << 16);
        set(&mut s, on);
        s.search(&p, depth(7), |_| {}).nodes
    };
    (nodes(false), nodes(true))
}

/// History gravity only reorders quiet moves: it keeps every short forced win (a search for
/// one reorders too), and the tree from a setup is another.
#[test]
fn history_gravity_keeps_every_forced_win() {
    let (without, with) =
        keeps_every_forced_win(|s, on| s.options.history_gravity = on, false, "classic");
    assert_ne!(with, without);
}

/// The graded reduction grows with the depth and the move's place, and is never less than the
/// one ply of the plain reductions.
#[test]
fn the_graded_reduction_grows_with_depth_and_move_number() {
    use khet_engine::search::graded_reduction;
    for d in 0..70 {
        for i in 0..200 {
            let r = graded_reduction(d, i);
            assert!(r >= 1, "{d} {i}");
            assert!(
                graded_reduction(d + 1, i) >= r && graded_reduction(d, i + 1) >= r,
                "{d} {i}"
            );
        }
    }
    assert_eq!(graded_reduction(3, 3), 1);
    assert_eq!(graded_reduction(8, 40), 3);
}

/// A search told of the match's draw limits scores a line that reaches one as a draw (less
/// the contempt, for the side searching): from the setup, with the move limit one ply away or
/// a no-capture limit of one ply (no first move captures anything), every line is drawn.
#[test]
fn the_draw_limits_score_a_line_that_reaches_one_as_a_draw() {
    let mut game = Game::new(setup("classic").position);
    game.play_text("j4j3").unwrap();
    assert!(game.turns()[0].shot.hits.is_empty(), "a quiet first move");
    let plies = game.turns().len() as u32;
    let score = |limits: DrawLimits| {
        let mut s = Searcher::new(1 << 16);
        s.options.draw_limits = limits;
        s.search_game(&game, depth(3), |_| {}).score
    };
    let free = score(DrawLimits::default());
    assert_ne!(free, -DEFAULT_CONTEMPT, "a line searched on");
    for limits in [
        DrawLimits {
            plies: Some(plies + 1),
            quiet_plies: None,
        },
        DrawLimits {
            plies: None,
            quiet_plies: Some(2),
        },
    ] {
        assert_eq!(score(limits), -DEFAULT_CONTEMPT, "{limits:?}");
    }
    // Limits beyond the search's reach change nothing.
    assert_eq!(score(DrawLimits::MATCH), free);
}

/// Aspiration windows change how an iteration is searched, not what it finds: the shipped
/// puzzles in two moves and less (forced wins, far outside the windows) are solved with the same
/// move and length, and from the setups the score at depth 6 stays within a window of the
/// full-window search's (the move may differ where two score alike).
#[test]
fn aspiration_keeps_forced_wins_and_scores() {
    let search = |p: &Position, aspiration: bool, plies: u32| {
        let mut s = Searcher::new(1 << 16);
        s.options.aspiration = aspiration;
        s.search(p, depth(plies), |_| {})
    };
    let mut compared = 0;
    for (puzzle, p, plies) in short_puzzles(2) {
        let (with, without) = (search(&p, true, plies + 2), search(&p, false, plies + 2));
        assert_same_answer(&with, &without, &puzzle.name);
        compared += 1;
    }
    assert!(compared >= 12, "{compared}");
    for name in ["classic", "imhotep", "dynasty", "khet1/classic"] {
        let p = setup(name).position;
        let (with, without) = (search(&p, true, 6), search(&p, false, 6));
        assert!(
            (with.score - without.score).abs() <= 35 && p.is_legal(with.best.unwrap()),
            "{name}: {} against {}",
            with.score,
            without.score
        );
    }
}

/// From a Khet2-AI match (Classic, ply 72): Red is far ahead and wins in four moves by a chain
/// of threats, each parried in one way only, which the full search at 200 ms a move missed.
const THREAT_CHAIN: &str = "x33a3ka3p22/4s15/3p31S24/p11p36P4/2S17/9P3/2p12s11P1p11/6K2X1 1";

/// A timed search looks for a chain of threats first and plays the win it proves at once:
/// its one report is the whole line, scored as a forced hit in four.
#[test]
fn a_timed_search_plays_a_chain_of_threats_that_wins() {
    let p = parse_position(THREAT_CHAIN).expect("position");
    let mut reports = Vec::new();
    let limits = Limits {
        time: Some(Duration::from_secs(120)),
        soft: Some(Duration::from_secs(6)),
        ..Limits::default()
    };
    let r = Searcher::default().search(&p, limits, |r| reports.push(r.clone()));
    assert_eq!(Score::from_raw(r.score), Score::Mate(4));
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!((reports[0].depth, r.pv.len()), (7, 7), "{:?}", r.pv);
    let mut at = p;
    for (i, mv) in r.pv.iter().enumerate() {
        assert!(at.is_legal(*mv), "{mv} in {:?}", r.pv);
        let hits = at.play_unchecked(*mv);
        assert_eq!(hits.is_game_over(), i == 6, "{mv} in {:?}", r.pv);
        if i == 6 {
            assert!(hits.pharaoh_hit(Color::Silver) && !hits.pharaoh_hit(Color::Red));
        }
    }
    // A fixed depth searches as before, the threats left to the full search.
    let mut reports = 0;
    Searcher::default().search(&p, depth(2), |_| reports += 1);
    assert_eq!(reports, 2);
}

/// The chain's first move back into an arrangement the game has had (it could be claimed as
/// a repetition): the full search decides, from depth 1.
#[test]
fn a_chain_of_threats_into_a_repetition_is_left_to_the_full_search() {
    let p = parse_position(THREAT_CHAIN).expect("position");
    let limits = Limits {
        time: Some(Duration::from_secs(120)),
        soft: Some(Duration::from_secs(2)),
        ..Limits::default()
    };
    let first = Searcher::default().search(&p, limits, |_| {}).pv[0];
    assert_eq!(first.to_string(), "f2g3");
    // Red's Pyramid there and back, Silver's Scarab turned and back: the start again.
    let mut game = Game::new(p);
    for mv in ["f2g3", "c4+", "g3f2", "c4-"] {
        let turn = game.play_text(mv).expect("legal");
        assert!(turn.shot.hits.is_empty(), "{mv} takes nothing");
    }
    assert!(game.position().same_arrangement(&p));
    let mut depths = Vec::new();
    let r = Searcher::default().search_game(&game, limits, |r| depths.push(r.depth));
    assert!(game.position().is_legal(r.best.expect("a move")));
    assert_eq!(depths.first(), Some(&1), "{depths:?}");
}

/// The same chain with Silver given Pyramids, out of its way, until Red leads by less than
/// one: the threat-space search is for a side that is ahead, so the full search decides.
#[test]
fn the_threat_space_search_is_for_a_side_ahead() {
    let mut p = parse_position(THREAT_CHAIN).expect("position");
    for at in ["g7", "h7", "i7", "h6", "i6"] {
        assert!(p.piece_at(sq(at)).is_none(), "{at}");
        p.put(sq(at), Some(Piece::pyramid(Color::Silver, Diagonal::NE)));
    }
    let mut solver = khet_engine::puzzle::Solver::threats_only(u64::MAX);
    let chain = solver.shortest_win(&p, 8).expect("no limit");
    assert!(chain.is_some_and(|n| n >= 2), "{chain:?}");
    let limits = Limits {
        time: Some(Duration::from_secs(120)),
        soft: Some(Duration::from_secs(2)),
        ..Limits::default()
    };
    let mut depths = Vec::new();
    Searcher::default().search(&p, limits, |r| depths.push(r.depth));
    assert_eq!(depths.first(), Some(&1), "{depths:?}");
}

/// A book of one position: `classic` after `moves`, answered with `answer`.
fn one_entry_book(moves: &[&str], answer: &str) -> (Game, Book, Move) {
    let mut game = Game::new(Setup::builtin("classic").expect("classic").position);
    for mv in moves {
        game.play_text(mv).expect("legal");
    }
    let p = *game.position();
    let mv = p.parse_move(answer).expect("a move");
    let mut book = Book::default();
    book.insert(
        p,
        BookMove {
            mv,
            depth: 12,
            score: 34,
        },
    );
    (game, book, mv)
}

#[test]
fn a_timed_or_node_limited_search_plays_the_books_move_at_once_and_other_searches_search() {
    // A move the search would not choose (Silver turns its Sphinx onto its own Anubis), so
    // that playing it shows where it came from.
    let (game, book, mv) = one_entry_book(&[], "j1-");
    let mut s = Searcher::default();
    s.book = Some(std::sync::Arc::new(book));
    let mut reports = Vec::new();
    let r = s.search_game(&game, Limits::time(Duration::from_secs(30)), |r| {
        reports.push(r.clone());
    });
    // At once: no node searched of the 30 s it had.
    assert_eq!((r.best, r.score, r.depth, r.nodes), (Some(mv), 34, 12, 0));
    assert_eq!(reports.len(), 1, "one info line, the book's");
    // A node count is a budget as a time is (Master's): the book's move at once.
    let nodes = Limits {
        nodes: Some(5_000),
        ..Limits::default()
    };
    let r = s.search_game(&game, nodes, |_| {});
    assert_eq!((r.best, r.nodes), (Some(mv), 0), "{r:?}");
    // To a depth or a forced hit, it searches.
    for limits in [
        depth(2),
        Limits {
            time: Some(Duration::from_secs(30)),
            depth: Some(2),
            ..Limits::default()
        },
        Limits {
            time: Some(Duration::from_secs(30)),
            mate: Some(1),
            ..Limits::default()
        },
    ] {
        let r = s.search_game(&game, limits, |_| {});
        assert!(r.nodes > 0 && r.best != Some(mv), "{limits:?}: {r:?}");
    }
    // Without the book, the same timed search searches.
    s.book = None;
    let r = s.search_game(&game, Limits::time(Duration::from_millis(200)), |_| {});
    assert!(r.nodes > 0 && r.best != Some(mv), "{r:?}");
}

#[test]
fn a_book_move_back_into_an_arrangement_the_game_has_had_is_left_to_the_search() {
    // Pyramids there and back: Red's book move a6a5 would bring back the start.
    let (game, book, mv) = one_entry_book(&["c1c2", "a5a6", "c2c1"], "a6a5");
    let mut after = *game.position();
    after.play_unchecked(mv);
    let start = Setup::builtin("classic").expect("classic").position;
    assert!(after.same_arrangement(&start));
    let mut s = Searcher::default();
    s.book = Some(std::sync::Arc::new(book));
    let limits = Limits::time(Duration::from_millis(300));
    let r = s.search_game(&game, limits, |_| {});
    assert!(r.nodes > 0, "{r:?}");
    // The same position met with no history before it is played from the book.
    let r = s.search(game.position(), limits, |_| {});
    assert_eq!((r.best, r.nodes), (Some(mv), 0));
}

#[test]
fn a_node_limit_bounds_the_whole_search() {
    use khet_engine::search::CHECK_EVERY;
    // Positions from pseudo-random play, searched one after another by one searcher, so that
    // each search meets the table the last one left and takes its own path to the limit.
    let mut rng = khet_engine::Rng::new(11);
    for threads in [1, 2] {
        let mut s = Searcher::new(1 << 16);
        s.options.threads = threads;
        for name in ["classic", "imhotep", "dynasty"] {
            let mut p = setup(name).position;
            for _ in 0..6 {
                for _ in 0..4 {
                    let moves = p.legal_moves();
                    let Some(mv) = rng.pick(&moves) else { break };
                    let mut q = p;
                    q.play(mv);
                    if q.pharaoh(Color::Silver).is_none() || q.pharaoh(Color::Red).is_none() {
                        break;
                    }
                    p = q;
                }
                for limit in [700, 3000, 9000] {
                    let limits = Limits {
                        nodes: Some(limit),
                        ..Limits::default()
                    };
                    let r = s.search(&p, limits, |_| {});
                    // Each thread looks once it has counted CHECK_EVERY more nodes, and a
                    // few more unwind the search.
                    let most = limit + threads as u64 * CHECK_EVERY + 64;
                    assert!(
                        r.nodes <= most,
                        "{threads} thread(s), {limit} nodes asked, {} searched at\n{}",
                        r.nodes,
                        p.diagram()
                    );
                }
            }
        }
    }
}
