//! The headless CLI: counts, paths, one-line errors with exit status 2 on bad input, closed
//! pipes and full disks, help for every command, and replaying records.

use std::io::Read;
use std::process::{Command, Stdio};

/// A fresh scratch folder for one test, named after it and this process.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("khet-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_khet-engine"))
        .args(args)
        .output()
        .expect("the CLI runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn perft_and_divide_count_as_the_reference() {
    let (code, out, _) = run(&["perft", "2", "--setup", "imhotep"]);
    assert_eq!(code, 0);
    assert_eq!(out.trim(), "perft(2) = 5343");
    let (code, out, _) = run(&["divide", "2"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 78, "77 moves and a total");
    assert!(out.trim_end().ends_with("total 5920"), "{out}");
    let classic = "x33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1KA13X1 0";
    let (code, out, _) = run(&[
        "perft",
        "1",
        "--position",
        classic,
        "--rules",
        "permissive-swap",
    ]);
    assert_eq!((code, out.trim()), (0, "perft(1) = 77"));
}

#[test]
fn fire_and_show_print_the_board_and_beam() {
    let (code, out, _) = run(&["fire", "--setup", "dynasty", "--color", "red"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("a7 a6(E) b6 c6 d6 e6(S) e5(W) d5 c5(N) c6 c7 c8, off"),
        "{out}"
    );
    let (code, out, _) = run(&["fire", "--moves", "j1-"]);
    assert_eq!(code, 0);
    // After Silver turns its Sphinx west (capturing f1's Anubis), Red is to move and fires.
    assert!(out.starts_with("Red fires"), "{out}");
    let (code, out, _) = run(&["show", "--setup", "khet1/imhotep"]);
    assert_eq!(code, 0);
    assert!(out.contains("Khet 1.0") && out.contains("OO"), "{out}");
}

#[test]
fn bad_input_is_one_line_and_exit_two() {
    for args in [
        vec!["perft"],
        vec!["perft", "x"],
        vec!["perft", "2", "--setup", "nosuch"],
        vec!["fire", "--position", "x33a3ka3p22/2p37 0"],
        vec!["fire", "--moves", "j1- h2h4"],
        vec!["show", "--rules", "loose"],
        vec!["fly"],
        vec![],
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let (_, _, err) = run(&["fire", "--moves", "j1- h2h4"]);
    assert!(err.contains("move 2") && err.contains("not yours"), "{err}");
}

/// `games` games of `a` against Beginner at 20 ms a move, with `more` arguments: the exit
/// status, output and error output.
fn against_beginner(a: &str, games: &str, more: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "match",
        "--a",
        a,
        "--b",
        "beginner",
        "--games",
        games,
        "--movetime",
        "20",
    ];
    args.extend_from_slice(more);
    run(&args)
}

/// Two games of Casual against Beginner, their records kept in `records`; the match's output.
fn casual_match(records: &std::path::Path) -> String {
    let (code, out, _) = against_beginner(
        "casual",
        "2",
        &["--records", records.to_str().expect("UTF-8")],
    );
    assert_eq!(code, 0, "{out}");
    out
}

#[test]
fn search_and_match_commands() {
    let (code, out, _) = run(&["search", "--setup", "dynasty", "--depth", "3"]);
    assert_eq!(code, 0);
    assert!(
        out.lines().any(|l| l.starts_with("info depth 3 score ")),
        "{out}"
    );
    assert!(
        out.lines()
            .last()
            .is_some_and(|l| l.starts_with("bestmove ")),
        "{out}"
    );
    // Graded reductions (the default) search the same depth in fewer nodes than one-ply ones
    // (one thread: node counts repeat).
    let nodes_at_7 = |extra: &[&str]| {
        let mut args = vec!["search", "--setup", "classic", "--depth", "7"];
        args.extend_from_slice(extra);
        let (code, out, _) = run(&args);
        assert_eq!(code, 0, "{out}");
        let line = out.lines().find(|l| l.starts_with("info depth 7 "));
        let nodes = line.and_then(|l| l.split(" nodes ").nth(1)?.split(' ').next()?.parse().ok());
        nodes.unwrap_or_else(|| panic!("{out}"))
    };
    let graded: u64 = nodes_at_7(&[]);
    let one_ply: u64 = nodes_at_7(&["--one-ply-reductions"]);
    assert!(graded < one_ply, "{graded} against {one_ply}");
    // Late-move pruning (the default) cuts more of it.
    let unpruned: u64 = nodes_at_7(&["--no-late-move-pruning"]);
    assert!(graded < unpruned, "{graded} against {unpruned}");
    let records = scratch("records");
    let out = casual_match(&records);
    assert!(
        out.contains("Casual vs Beginner:") && out.contains("over 2 games"),
        "{out}"
    );
    // Each game's record is kept and replays to the game the match reported.
    for n in 1..=2 {
        let file = records.join(format!("game-{n}.ron"));
        let (code, replayed, err) = run(&["replay", file.to_str().expect("a UTF-8 path")]);
        assert_eq!(code, 0, "{err}");
        let plies = out
            .lines()
            .find(|l| l.starts_with(&format!("game {n} ")))
            .and_then(|l| l.split("after ").last())
            .and_then(|l| l.split(' ').next())
            .expect("the game's line");
        assert!(
            replayed.contains(&format!("{plies}. ")),
            "game {n}, {plies} plies: {replayed}"
        );
    }
    let _ = std::fs::remove_dir_all(&records);
    // An external engine speaking the protocol: our own, as a separate process.
    let engine = format!("engine:{} uci", env!("CARGO_BIN_EXE_khet-engine"));
    let (code, out, err) = run(&[
        "match",
        "--a",
        "beginner",
        "--b",
        &engine,
        "--games",
        "2",
        "--movetime",
        "20",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("over 2 games"), "{out}");
    // A sequential test decides a lopsided match in a few pairs, from varied openings.
    let (code, out, err) = run(&[
        "match",
        "--a",
        "casual",
        "--b",
        "beginner",
        "--sprt",
        "0,200",
        "--games",
        "60",
        "--movetime",
        "10",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("SPRT [0, 200]") && out.contains("H1 accepted"),
        "{out}"
    );
    assert!(out.contains("opening 2"), "{out}");
    let (code, _, err) = run(&["match", "--sprt", "5,0"]);
    assert_eq!(code, 2);
    assert!(err.contains("ELO0 < ELO1"), "{err}");
    let (code, _, err) = run(&["match", "--a", "emperor"]);
    assert_eq!(code, 2);
    assert!(err.contains("is not a level"), "{err}");
    // An engine that does not play ends the match with the reason, at once, without hanging.
    let (code, _, err) = run(&["match", "--b", "engine:true", "--games", "2"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("'true' does not play")
            && (err.contains("closed before answering") || err.contains("engine gone")),
        "{err}"
    );
    // The summary names the causes of the draws a side led.
    assert!(out.contains("without a capture"), "{out}");
}

/// `pool` takes the bounds `match` takes, a test for no loss's negative one too.
#[test]
fn pool_takes_a_match_log_and_the_bounds_match_takes() {
    let dir = scratch("pool");
    let log = dir.join("a.log");
    std::fs::write(
        &log,
        "plan: 100 ms a move, 4 random opening plies\n\
         game 1 (classic opening 1, Master plays Silver): Silver wins: the Red Pharaoh was lit after 90 plies\n\
         game 2 (classic opening 1, Master plays Red): draw at the move limit after 200 plies\n",
    )
    .unwrap();
    let log = log.to_str().unwrap();
    let (code, out, err) = run(&["pool", "--sprt", "-10,5", log]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("2 games (1 pairs): +1 =1 -0"), "{out}");
    assert!(out.contains("SPRT [-10, 5]: LLR"), "{out}");
    let (code, _, err) = run(&["pool", "--sprt", "5,-10", log]);
    assert_eq!(code, 2);
    assert!(err.contains("ELO0 < ELO1"), "{err}");
}

const CLASSIC: &str =
    "x33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1KA13X1 0";
/// Classic with Red's c7 Pyramid on j7, a square reserved for Silver: only a game under
/// `permissive-swap` can reach it (by a swap).
const RED_ON_J7: &str =
    "x33a3ka3p22/9p3/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1KA13X1 0";

#[test]
fn a_closed_pipe_ends_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_khet-engine"))
        .args(["divide", "3"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one byte, then close the pipe as `head -c1` would.
    let mut first = [0u8; 1];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_full_disk_is_one_line_and_a_failure() {
    let Ok(full) = std::fs::File::create("/dev/full") else {
        return; // not Linux
    };
    let out = Command::new(env!("CARGO_BIN_EXE_khet-engine"))
        .args(["divide", "2"])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: cannot write the output"), "{err}");
}

#[test]
fn every_command_has_help() {
    for command in [
        "perft",
        "divide",
        "fire",
        "show",
        "search",
        "bench",
        "bench-search",
        "uci",
        "match",
        "tune",
        "texel",
        "openings",
        "replay",
        "puzzles",
        "puzzles mine",
        "puzzles verify",
    ] {
        let mut args: Vec<&str> = command.split(' ').collect();
        args.push("--help");
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{command}: {err}");
        assert!(out.contains("Usage: khet-engine"), "{command}: {out}");
    }
}

#[test]
fn errors_stay_on_one_line() {
    for args in [
        vec!["perft", "1", "--setup", "no\nsuch\r\u{1b}[2J"],
        vec!["fire", "--position", "x33\n 0"],
        vec!["fire", "--moves", "j1-\u{7}"],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err:?}");
        assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    }
}

#[test]
fn a_piece_on_a_reserved_square_needs_permissive_rules() {
    let (code, _, err) = run(&["perft", "1", "--position", RED_ON_J7]);
    assert_eq!(code, 2);
    assert!(err.contains("reserved for Silver"), "{err}");
    let (code, out, err) = run(&[
        "perft",
        "1",
        "--position",
        RED_ON_J7,
        "--rules",
        "permissive-swap",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("perft(1) = "), "{out}");
    let (code, _, _) = run(&["perft", "1", "--position", CLASSIC]);
    assert_eq!(code, 0);
}

#[test]
fn replay_prints_every_ply_and_reports_a_damaged_file() {
    let dir = scratch("replay");
    let good = dir.join("game.ron");
    std::fs::write(
        &good,
        format!(
            "Record(\n  setup: \"Classic\",\n  start: \"{CLASSIC}\",\n  moves: [\n    \"j1-\", \"a8-\",\n  ],\n)\n"
        ),
    )
    .unwrap();
    let (code, out, err) = run(&["replay", good.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert!(lines[1].contains("Silver j1-: hits Silver Anubis"), "{out}");
    assert!(
        lines[3].starts_with("final ") && lines[4] == "result unfinished",
        "{out}"
    );
    // With analysis: the engine's view beside each move, and the same final lines.
    let (code, analysed, err) = run(&["replay", good.to_str().unwrap(), "--depth", "2"]);
    assert_eq!(code, 0, "{err}");
    let seen: Vec<&str> = analysed.lines().collect();
    assert_eq!(seen.len(), 5, "{analysed}");
    for ply in &seen[1..3] {
        assert!(
            ply.contains(" (engine: ") && ply.ends_with(", depth 2)"),
            "{analysed}"
        );
    }
    assert_eq!(seen[3..], lines[3..], "{analysed}");
    let (code, _, err) = run(&["replay", good.to_str().unwrap(), "--movetime", "0"]);
    assert_eq!(code, 2, "{err}");
    let damaged = dir.join("damaged.ron");
    std::fs::write(
        &damaged,
        format!("Record(\n  start: \"{CLASSIC}\",\n  moves: [\"j1-\",\n \"a8a7\"],\n)\n"),
    )
    .unwrap();
    let (code, _, err) = run(&["replay", damaged.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("damaged.ron:4: move 2 (a8a7)"), "{err}");
    let misspelt = dir.join("misspelt.ron");
    std::fs::write(
        &misspelt,
        format!("Record(\n  start: \"{CLASSIC}\",\n  moves: [],\n  reslt: None,\n)\n"),
    )
    .unwrap();
    let (code, _, err) = run(&["replay", misspelt.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("misspelt.ron:4:") && err.contains("reslt"),
        "{err}"
    );
    std::fs::write(&misspelt, [0xff, 0xfe, b'R']).unwrap();
    let (code, _, err) = run(&["replay", misspelt.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("not UTF-8"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The shipped puzzles all verify: a legal line, a win in exactly N, one winning first move.
#[test]
fn every_shipped_puzzle_verifies() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/puzzles/puzzles.ron"
    );
    let (code, out, err) = run(&["puzzles", "verify", path]);
    assert_eq!(code, 0, "{out}{err}");
    let shipped = out.lines().filter(|l| l.starts_with("ok ")).count();
    assert_eq!(shipped, 48, "{shipped} puzzles:\n{out}");
    assert!(!out.contains("FAILED"), "{out}");
    // What `docs/game.md` and `docs/engine.md` promise: eight from each setup of both editions,
    // wins in 1 to 4, difficulties 1 to 5 (each used).
    let bytes = std::fs::read(path).unwrap();
    let book = khet_engine::puzzle::PuzzleBook::from_bytes(&bytes, path).unwrap();
    for setup in [
        "khet2/classic",
        "khet2/imhotep",
        "khet2/dynasty",
        "khet1/classic",
        "khet1/imhotep",
        "khet1/dynasty",
    ] {
        let from = book
            .puzzles
            .iter()
            .filter(|p| p.source.split(',').next() == Some(setup))
            .count();
        assert_eq!(from, 8, "{setup}");
    }
    for n in 1..=4 {
        assert!(book.puzzles.iter().any(|p| p.moves == n), "none in {n}");
    }
    for d in 1..=5 {
        assert!(
            book.puzzles.iter().any(|p| p.difficulty == d),
            "none of difficulty {d}"
        );
    }
}

/// A puzzle that does not hold is named with its reason, and the command fails.
#[test]
fn a_wrong_puzzle_is_named() {
    let dir = scratch("puzzles");
    let good = "(puzzle: \"\")";
    let path = dir.join("bad.ron");
    // j5- sends the beam off the board: it lights nothing.
    let text = r#"(puzzles: [
        (name: "turn the Pyramid", position: "x29/2p27//3k5P2////4K4X1 0", to_move: Silver,
         moves: 1, solution: ["j5+"], difficulty: 1),
        (name: "the wrong way", position: "x29/2p27//3k5P2////4K4X1 0", to_move: Silver,
         moves: 1, solution: ["j5-"], difficulty: 1),
    ])"#;
    std::fs::write(&path, text).expect("written");
    let (code, out, err) = run(&["puzzles", "verify", path.to_str().expect("path")]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.contains("ok 1: turn the Pyramid"), "{out}");
    assert!(
        out.contains("FAILED 2: the wrong way: the last solution move j5- lights no Pharaoh"),
        "{out}"
    );
    assert!(err.contains("puzzles 2 failed"), "{err}");
    std::fs::write(&path, good).expect("written");
    let (code, _, err) = run(&["puzzles", "verify", path.to_str().expect("path")]);
    assert_eq!(code, 2);
    assert!(
        err.contains("bad.ron:1:") && err.contains("puzzle"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_match_from_a_book_plays_each_position_from_both_sides() {
    // Silver to move lights Red's Pharaoh at once (a shipped puzzle): whoever plays Silver wins.
    let dir = scratch("book");
    let book = dir.join("book.txt");
    std::fs::write(
        &book,
        "# Silver lights the Pharaoh in 1\nx29/3s1kP34/9P1/4P4S1S13/5A21s22/2P47/2KA11P24/1P15P11X4 0\n",
    )
    .unwrap();
    let book = book.to_str().expect("a UTF-8 path");
    let (code, out, err) = against_beginner("master", "2", &["--book", book]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("game 1 (book 1, Master plays Silver): Silver wins")
            && out.contains("game 2 (book 1, Master plays Red): Silver wins")
            && out.contains("+1 =0 -1 over 2 games")
            // Silver is 9.6 Pyramids ahead in material: each contender converted it once.
            && out.contains(
                "from a start a Pyramid or more ahead, the side ahead: won 1, drew 0, lost 0 by \
                 Master, won 1, drew 0, lost 0 by Beginner"
            ),
        "{out}"
    );
    // The log resumes: its two games count, and play goes on from the third.
    let log = dir.join("match.log");
    std::fs::write(&log, format!("\u{feff}{out}")).unwrap();
    let log = log.to_str().expect("a UTF-8 path");
    let resume = |a: &str, games: &str, logs: &[&str]| {
        let mut more = vec!["--book", book];
        for log in logs {
            more.extend(["--resume", log]);
        }
        against_beginner(a, games, &more)
    };
    let (code, again, err) = resume("master", "4", &[log]);
    assert_eq!(code, 0, "{err}");
    assert!(
        again.starts_with(
            "plan: 20 ms a move, a book of 1 position\nresumed after 2 games (+1 =0 -1)"
        ) && !again.contains("game 2 (")
            && again.contains("game 3 (book 1, Master plays Silver): Silver wins")
            && again.contains("game 4 (book 1, Master plays Red): Silver wins")
            && again.contains("+2 =0 -2 over 4 games"),
        "{again}"
    );
    let (code, _, err) = resume("master", "2", &[log]);
    assert_eq!(code, 2);
    assert!(err.contains("2 games played already"), "{err}");
    // A resumed run's log holds its new games only: both logs, in order, resume it again.
    let log2 = dir.join("match-2.log");
    std::fs::write(&log2, &again).unwrap();
    let (code, third, err) = resume("master", "6", &[log, log2.to_str().expect("path")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        third.contains("\nresumed after 4 games (+2 =0 -2)")
            && third.contains("game 5 (")
            && third.contains("+3 =0 -3 over 6 games"),
        "{third}"
    );
    // Another contender's log is refused, naming the line; half a pair is played again.
    let (code, _, err) = resume("strong", "4", &[log]);
    assert_eq!(code, 2);
    assert!(
        err.contains("match.log:2: game 1 was 'book 1, Master'"),
        "{err}"
    );
    let half = dir.join("half.log");
    let first_line = out.lines().nth(1).expect("a game line");
    std::fs::write(&half, format!("{first_line}\n")).unwrap();
    let (code, again, err) = resume("master", "2", &[half.to_str().expect("path")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        again.contains("game 1 (") && again.contains("+1 =0 -1 over 2 games"),
        "{again}"
    );
    std::fs::write(
        &half,
        "game 2 (book 1, Master plays Red): Silver wins after 1 plies\n",
    )
    .unwrap();
    let (code, _, err) = resume("master", "4", &[half.to_str().expect("path")]);
    assert_eq!(code, 2);
    assert!(
        err.contains("half.log:1: game 2 where game 1 was due"),
        "{err}"
    );
    // A log played with another number of opening plies or time a move is refused: its games
    // started elsewhere, or were played at another strength.
    let other = dir.join("other.log");
    std::fs::write(
        &other,
        "plan: 20 ms a move, 5 random opening plies\n\
         game 1 (classic opening 1, Master plays Silver): Silver wins after 3 plies\n\
         game 2 (classic opening 1, Master plays Red): Silver wins after 3 plies\n",
    )
    .unwrap();
    let other = other.to_str().expect("path");
    let (code, _, err) =
        against_beginner("master", "4", &["--resume", other, "--opening-plies", "4"]);
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "other.log:1: the log's 'plan: 20 ms a move, 5 random opening plies' is not this \
             match's 'plan: 20 ms a move, 4 random opening plies'"
        ),
        "{err}"
    );
    let (code, _, err) = run(&[
        "match",
        "--a",
        "master",
        "--games",
        "4",
        "--movetime",
        "30",
        "--opening-plies",
        "5",
        "--resume",
        other,
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("is not this match's 'plan: 30 ms a move"),
        "{err}"
    );
    // The same plan reads it: its two games count.
    let (code, _, err) =
        against_beginner("master", "2", &["--resume", other, "--opening-plies", "5"]);
    assert_eq!(code, 2);
    assert!(err.contains("2 games played already"), "{err}");
    std::fs::write(dir.join("bad.txt"), "x29 0\n").unwrap();
    let bad = dir.join("bad.txt");
    let (code, _, err) = run(&["match", "--book", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.txt:1: "), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn openings_makes_a_book_from_kept_games_and_extends_it() {
    let dir = scratch("openings");
    let records = dir.join("records");
    let path = |p: &std::path::Path| p.to_str().expect("a UTF-8 path").to_string();
    casual_match(&records);
    let book = dir.join("book.txt");
    let make = |plies: &str| {
        run(&[
            "openings",
            "--records",
            &path(&records),
            "--file",
            &path(&book),
            "--plies",
            plies,
            "--movetime",
            "20",
            "--jobs",
            "2",
        ])
    };
    // Two games from one setup's start, both sides: the start, and a position a ply on in
    // each game (one per game, unless both games opened alike).
    let (code, out, err) = make("2");
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&book).expect("the book is written");
    let entries = khet_engine::Book::parse(&text).expect("it reads back");
    assert!((2..=3).contains(&entries.len()), "{text}");
    assert!(
        out.contains(&format!("{} position(s) in", entries.len())),
        "{out}"
    );
    let start = khet_engine::Setup::builtin("classic").unwrap().position;
    assert!(entries.probe(&start).is_some(), "{text}");
    // Again with more plies: what the book has is not searched again.
    let (code, out, err) = make("4");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(&format!("{} position(s) in the book,", entries.len())),
        "{out}"
    );
    let grown = khet_engine::Book::parse(&std::fs::read_to_string(&book).unwrap()).unwrap();
    assert!(grown.len() > entries.len());
    // A damaged book is refused with its file and line, and left as it was.
    let damaged = format!("{text}not a line\n");
    std::fs::write(&book, &damaged).unwrap();
    let (code, _, err) = make("4");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("book.txt") && err.contains(&format!("line {}", damaged.lines().count())),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&book).unwrap(), damaged);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The learned evaluation's tools: `learn-data` writes each quiet position of its games with a
/// score and a result, `learn-train` reads them back and writes a network the engine can read
/// (or says it wrote none), and a damaged line is refused with its file and line; `search
/// --learned` searches with a network.
#[test]
fn learned_evaluation_data_is_written_read_back_and_refused_when_damaged() {
    let dir = scratch("learn");
    let (code, out, err) = run(&["learn-data", "--games", "2", "--depth", "1"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.len() > 10, "{out}");
    for line in &lines {
        let parts: Vec<&str> = line.split('\t').collect();
        assert_eq!(parts.len(), 3, "{line}");
        assert!(parts[1].parse::<i32>().is_ok(), "{line}");
        assert!(["0", "0.5", "1"].contains(&parts[2]), "{line}");
    }
    let data = dir.join("data.txt");
    std::fs::write(&data, &out).unwrap();
    let net = dir.join("net.bin");
    let (d, n) = (data.to_str().unwrap(), net.to_str().unwrap());
    let (code, out, err) = run(&["learn-train", "--data", d, "--to", n, "--epochs", "3"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("{} positions", lines.len())), "{out}");
    if out.contains("wrote") {
        let bytes = std::fs::read(&net).unwrap();
        assert!(khet_engine::learned::Net::from_bytes(&bytes).is_some());
    } else {
        assert!(out.contains("nothing written") && !net.exists(), "{out}");
    }
    let damaged = dir.join("damaged.txt");
    std::fs::write(&damaged, format!("{}\nnot a position\t0\t1\n", lines[0])).unwrap();
    let (code, _, err) = run(&[
        "learn-train",
        "--data",
        damaged.to_str().unwrap(),
        "--to",
        n,
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("damaged.txt:2:"), "{err}");
    let (code, out, err) = run(&["search", "--depth", "3", "--learned"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("bestmove"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
