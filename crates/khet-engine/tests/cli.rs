//! The headless CLI: counts, paths, and one-line errors with exit status 2 on bad input.

use std::process::Command;

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
fn perft_and_divide_count_as_khet_md() {
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
    let (code, out, _) = run(&[
        "match",
        "--a",
        "casual",
        "--b",
        "beginner",
        "--games",
        "2",
        "--movetime",
        "20",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("Casual vs Beginner:") && out.contains("over 2 games"),
        "{out}"
    );
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
    let (code, _, err) = run(&["match", "--a", "grandmaster"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown level"), "{err}");
}
