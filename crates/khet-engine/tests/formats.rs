//! The engine's text forms and files: position strings in the Khet2-AI format, setup and record
//! files (RON) read back whole or refused with their file, line and reason, move and position
//! text errors, names read and printed, and the promises about them that fuzzing broke. (The
//! rules of play themselves are `rules.rs`.)

mod common;

use common::*;
use khet_engine::*;

#[test]
fn position_strings_match_the_khet2_ai_format() {
    let classic = "x33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1KA13X1 0";
    assert_eq!(setup("classic").position.to_string(), classic);
    assert_eq!(parse_position(classic).unwrap(), setup("classic").position);
    // The extension covers 1.0 and the Eye.
    let k1 = setup("khet1/classic").position.to_string();
    assert!(
        k1.contains("o2") && k1.contains('d') && !k1.contains('x'),
        "{k1}"
    );
    assert_eq!(
        parse_position(&k1).unwrap(),
        setup("khet1/classic").position
    );
    let eyes = setup("imhotep-eyes").position.to_string();
    assert!(eyes.contains('E') && eyes.contains('e'), "{eyes}");
    assert_eq!(
        parse_position(&eyes).unwrap(),
        setup("imhotep-eyes").position
    );
}

// ---- files -----------------------------------------------------------------------------------

#[test]
fn broken_setups_report_file_line_and_reason() {
    let src = r#"Setup(
    name: "Broken",
    edition: Khet2,
    pieces: [
        Sphinx(Red, "a8", S),
        Pharaoh(Red, "f8"),
        Pyramid(Red, "j5", SE),
        Sphinx(Silver, "j1", N),
        Pharaoh(Silver, "e1"),
        Pyramid(Silver, "e1", NE),
        Pyramid(Silver, "z9", NE),
        Djed(Silver, "c3", NE),
    ],
)
"#;
    let errs = Setup::from_ron(src, "broken.ron").unwrap_err();
    let text = errs.to_string();
    assert!(
        text.contains("broken.ron:7:") && text.contains("reserved for Silver"),
        "{text}"
    );
    assert!(
        text.contains("broken.ron:10:") && text.contains("two pieces on e1"),
        "{text}"
    );
    assert!(
        text.contains("broken.ron:11:") && text.contains("'z9' is not a square"),
        "{text}"
    );
    assert!(
        text.contains("broken.ron:12:") && text.contains("Djed has no place in Khet 2.0"),
        "{text}"
    );
    assert_eq!(errs.0.len(), 4, "{text}");

    let syntax = "Setup(\n    name: \"x\",\n    edition: Khet3,\n    pieces: [],\n)\n";
    let e = Setup::from_ron(syntax, "s.ron").unwrap_err().to_string();
    assert!(e.starts_with("s.ron:3:"), "{e}");

    let stack = "Setup(name: \"x\", edition: Khet1, pieces: [\n Pharaoh(Red, \"f8\"),\n Pharaoh(Silver, \"e1\"),\n Obelisk(Silver, \"d1\", 3),\n])";
    let e = Setup::from_ron(stack, "o.ron").unwrap_err().to_string();
    assert!(
        e.contains("o.ron:4:") && e.contains("only two Obelisks may stack"),
        "{e}"
    );

    let no_pharaoh = "Setup(name: \"x\", edition: Khet1, pieces: [\n Pharaoh(Red, \"f8\"),\n])";
    let e = Setup::from_ron(no_pharaoh, "p.ron")
        .unwrap_err()
        .to_string();
    assert!(e.contains("Silver has 0 Pharaohs"), "{e}");
}

#[test]
fn setups_round_trip_through_ron() {
    for name in ["classic", "khet1/dynasty", "dynasty-eyes"] {
        let s = setup(name);
        let again = Setup::from_ron(&s.to_ron(), "again.ron")
            .unwrap_or_else(|e| panic!("{e}\n{}", s.to_ron()));
        assert_eq!(again, s);
    }
}

#[test]
fn records_replay_and_report_bad_moves() {
    let mut g = Game::new(setup("imhotep").position);
    for m in ["e1e2", "f8f7", "d3d2", "h8h7", "e2e1"] {
        g.play_text(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    assert!(g.result().is_none());
    g.resign(Color::Red).unwrap();
    let rec = Record::from_game(&g, "Imhotep");
    let text = rec.to_ron();
    let back = Record::from_ron(&text, "game.ron").unwrap();
    assert_eq!(back, rec);
    let replayed = back.replay(&text, "game.ron").unwrap();
    assert_eq!(replayed.position(), g.position());
    assert_eq!(replayed.result(), g.result());
    // An illegal move is reported with its line and reason.
    let bad = text.replace("\"h8h7\"", "\"h8h6\"");
    let e = Record::from_ron(&bad, "bad.ron")
        .unwrap()
        .replay(&bad, "bad.ron")
        .unwrap_err();
    assert!(
        e.to_string().starts_with("bad.ron:7:") && e.to_string().contains("move 4 (h8h6)"),
        "{e}"
    );
    let e = Record::from_ron("Record(start: 3)", "r.ron").unwrap_err();
    assert!(e.to_string().starts_with("r.ron:1:"), "{e}");
}

#[test]
fn records_keep_players_date_mode_and_clocks_and_a_loss_on_time() {
    let mut g = Game::new(setup("classic").position);
    g.play_text("j1-").unwrap();
    assert_eq!(
        g.lose_on_time(Color::Red),
        Ok(GameResult::Win {
            winner: Color::Silver,
            reason: WinReason::Time
        })
    );
    assert!(matches!(
        g.lose_on_time(Color::Silver),
        Err(GameError::Over(_))
    ));
    assert_eq!(
        g.result().unwrap().to_string(),
        "Silver wins: Red's time ran out"
    );
    let mut rec = Record::from_game(&g, "Classic");
    rec.date = "2026-11-22T14:30:00Z".into();
    rec.players = ["Person".into(), "Computer \"Master\" é".into()];
    rec.tournament = true;
    rec.clock = Some(RecordClock {
        initial_ms: 300_000,
        increment_ms: 3_000,
        remaining_ms: [297_500, 0],
    });
    let text = rec.to_ron();
    let back = Record::from_ron(&text, "t.ron").unwrap();
    assert_eq!(back, rec, "{text}");
    let replayed = back.replay(&text, "t.ron").unwrap();
    assert_eq!(replayed.result(), g.result());
    // Without them, none is written, and older records still read.
    let plain = Record::from_game(&g, "Classic").to_ron();
    assert!(
        !plain.contains("clock") && !plain.contains("players"),
        "{plain}"
    );
    let e = Record::from_ron(&text.replace("increment_ms", "incrment_ms"), "t.ron").unwrap_err();
    assert!(e.to_string().contains("incrment_ms"), "{e}");
}

#[test]
fn move_text_errors_are_clear() {
    let p = setup("classic").position;
    let e = p.parse_move("h2").unwrap_err().to_string();
    assert!(e.contains("not a move"), "{e}");
    let e = p.parse_move("h2h4").unwrap_err().to_string();
    assert!(e.contains("one square"), "{e}");
    let e = p.parse_move("a8a7").unwrap_err().to_string();
    assert!(e.contains("not yours"), "{e}");
}

// ---- promises that fuzzing broke -------------------------------------------------------------

const TWO_PHARAOHS: &str = "Setup(\n    name: \"x\",\n    edition: Khet2,\n    pieces: [\n        Sphinx(Red, \"a8\", S),\n        Pharaoh(Red, \"f8\"),\n        Pharaoh(Red, \"e8\"),\n        Pharaoh(Silver, \"e1\"),\n        Sphinx(Silver, \"j1\", N),\n    ],\n)";

#[test]
fn every_setup_problem_points_at_its_pieces_lines() {
    let e = Setup::from_ron(TWO_PHARAOHS, "two.ron").unwrap_err();
    let lines: Vec<usize> = e.0.iter().map(|e| e.line).collect();
    assert_eq!(lines, [6, 7], "{e}");
    assert!(
        e.0[0].reason.contains("Red has 2 Pharaohs (on e8 and f8)"),
        "{e}"
    );
    // An Obelisk in Khet 2.0: its own line, and the article right.
    let obelisk = TWO_PHARAOHS.replace("Pharaoh(Red, \"e8\")", "Obelisk(Red, \"e8\", 1)");
    let e = Setup::from_ron(&obelisk, "o.ron").unwrap_err().to_string();
    assert_eq!(e, "o.ron:7: e8: an Obelisk has no place in Khet 2.0", "{e}");
}

#[test]
fn setup_files_refuse_unknown_fields_and_accept_a_byte_order_mark() {
    let ok = TWO_PHARAOHS.replace("        Pharaoh(Red, \"e8\"),\n", "");
    assert!(Setup::from_ron(&ok, "ok.ron").is_ok());
    assert!(Setup::from_ron(&format!("\u{feff}{ok}"), "bom.ron").is_ok());
    let misspelt = ok.replace("name:", "nmae:");
    let e = Setup::from_ron(&misspelt, "m.ron").unwrap_err().to_string();
    assert!(e.starts_with("m.ron:2:") && e.contains("nmae"), "{e}");
    let extra = ok.replace("edition:", "author: \"me\",\n    edition:");
    let e = Setup::from_ron(&extra, "a.ron").unwrap_err().to_string();
    assert!(e.starts_with("a.ron:3:") && e.contains("author"), "{e}");
    // A record too.
    let mut g = Game::new(setup("classic").position);
    g.play_text("j1-").unwrap();
    let text = Record::from_game(&g, "Classic").to_ron();
    let e = Record::from_ron(&text.replace("moves:", "movs:"), "r.ron").unwrap_err();
    assert!(e.to_string().contains("movs"), "{e}");
    assert!(Record::from_ron(&format!("\u{feff}{text}"), "r.ron").is_ok());
}

#[test]
fn huge_files_are_refused_and_big_ones_read_in_linear_time() {
    let huge = format!("{}{}", TWO_PHARAOHS, " ".repeat(setup::MAX_SETUP_BYTES));
    let e = Setup::from_ron(&huge, "huge.ron").unwrap_err().to_string();
    assert!(e.contains("too big"), "{e}");
    // 80 pieces with long comments between them, under the limit: the error names the 80th
    // piece's line, found in one pass (the old search of each piece's square from the top of the
    // file took seconds for a megabyte).
    let mut src = String::from("Setup(name: \"many\", edition: Khet2, pieces: [\n");
    for sq in Square::ALL {
        src += &format!("// {}\nPyramid(Red, \"{sq}\", NE),\n", "x".repeat(1500));
    }
    src += "])";
    assert!(src.len() < setup::MAX_SETUP_BYTES);
    let e = Setup::from_ron(&src, "many.ron").unwrap_err();
    assert!(
        e.0.iter().any(|e| e.line == 161 && e.reason.contains("j8")),
        "{e}"
    );
    let too_many = src.replace("])", "Pharaoh(Red, \"a1\"),\n])");
    let e = Setup::from_ron(&too_many, "m.ron").unwrap_err().to_string();
    assert!(e.contains("81 pieces cannot stand on a board of 80"), "{e}");
}

#[test]
fn position_errors_count_characters_and_escape_the_text() {
    let e = parse_position(
        "é33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1KA13X1 0",
    )
    .unwrap_err();
    assert_eq!(e.at, Some(1), "{e}");
    let e = parse_position("éé/x 0").unwrap_err();
    assert!(matches!(e.kind, PositionErrorKind::RankCount(2)), "{e}");
    let e = parse_position(
        "x33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1KA13X1 \u{1b}[2J",
    )
    .unwrap_err()
    .to_string();
    assert!(!e.contains('\u{1b}') && e.contains("\\u{1b}"), "{e}");
    let e = "e4\n".repeat(3).parse::<Square>().unwrap_err().to_string();
    assert_eq!(e.lines().count(), 1, "{e}");
}

#[test]
fn a_piece_on_a_reserved_square_is_read_only_under_permissive_swap() {
    let red_on_j7 =
        "x33a3ka3p22/9p3/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1KA13X1 0";
    let e = parse_position(red_on_j7).unwrap_err();
    assert!(
        matches!(&e.kind, PositionErrorKind::Unplayable(p) if matches!(p[0], Problem::Reserved { .. })),
        "{e}"
    );
    let permissive: Rules = "permissive-swap".parse().unwrap();
    let p = parse_position_with(red_on_j7, permissive).unwrap();
    assert_eq!(p.rules(), permissive);
    assert_eq!(p.to_string(), red_on_j7);
}

#[test]
fn names_read_and_print() {
    for color in Color::ALL {
        assert_eq!(color.to_string().parse::<Color>(), Ok(color));
    }
    for kind in Kind::ALL {
        assert_eq!(kind.to_string().parse::<Kind>(), Ok(kind));
    }
    for file in File::ALL {
        assert_eq!(file.to_string().parse::<File>(), Ok(file));
    }
    for rank in Rank::ALL {
        assert_eq!(rank.to_string().parse::<Rank>(), Ok(rank));
    }
    for level in Level::ALL {
        assert_eq!(level.to_string().parse::<Level>(), Ok(level));
    }
    assert!("k".parse::<File>().is_err() && "9".parse::<Rank>().is_err());
    assert_eq!(Kind::Anubis.with_article(), "an Anubis");
    assert_eq!(Kind::Pyramid.with_article(), "a Pyramid");
    let e = "blue".parse::<Color>().unwrap_err().to_string();
    assert_eq!(e, "'blue' is not a colour (silver or red)");
}
