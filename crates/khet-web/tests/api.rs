//! The page's engine API, natively: whole games played through it agree with the engine move
//! for move, and what the page reads (JSON) has the shapes `src/lib.rs` documents.

use khet_engine::{Color, Game, Kind, Rng, Setup, catalogue, fire};
use khet_web::KhetGame;
use serde_json::Value;
use std::collections::BTreeSet;

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The texts of the legal moves the page gets, with each grouped under its piece's square.
fn page_moves(g: &KhetGame) -> BTreeSet<String> {
    let moves = parse(&g.legal_moves());
    let mut out = BTreeSet::new();
    for (square, list) in moves.as_object().expect("an object by square") {
        for m in list.as_array().expect("a list of moves") {
            let text = m["text"].as_str().expect("text").to_string();
            assert!(text.starts_with(square.as_str()), "{text} under {square}");
            match m["kind"].as_str() {
                Some("rotate") => {
                    assert!(m["to"].is_null());
                    let dir = m["rotate"].as_str().expect("cw or ccw");
                    let sign = if dir == "cw" { '+' } else { '-' };
                    assert_eq!(text, format!("{square}{sign}"));
                }
                Some(kind @ ("step" | "swap" | "unstack")) => {
                    let to = m["to"].as_str().expect("a destination");
                    let expected =
                        format!("{square}{to}{}", if kind == "unstack" { "^" } else { "" });
                    assert_eq!(text, expected);
                    assert!(m["rotate"].is_null());
                }
                other => panic!("kind {other:?} of {text}"),
            }
            assert!(out.insert(text), "a move listed twice");
        }
    }
    out
}

fn engine_moves(game: &Game) -> BTreeSet<String> {
    game.legal_moves().iter().map(ToString::to_string).collect()
}

/// The page's board has the engine's pieces, square by square.
fn assert_board_matches(g: &KhetGame, game: &Game) {
    let board = parse(&g.board());
    let pieces = board["pieces"].as_array().expect("pieces");
    let position = game.position();
    assert_eq!(pieces.len(), position.pieces().count());
    for (p, (sq, piece)) in pieces.iter().zip(position.pieces()) {
        assert_eq!(p["square"], sq.to_string());
        assert_eq!(p["text"], piece.describe());
        assert_eq!(p["height"], piece.height());
    }
    let side = match game.side_to_move() {
        Color::Silver => "silver",
        Color::Red => "red",
    };
    assert_eq!(board["side_to_move"], side);
    assert_eq!(g.side_to_move(), side);
    assert_eq!(board["position"], position.to_string());
}

/// A whole game through the page's API: Silver the computer at Casual, Red a random legal move
/// taken from the page's list. At every ply the page's moves are the engine's, and its board,
/// its shot and its record follow an engine game played beside it.
#[test]
fn a_whole_game_through_the_api_agrees_with_the_engine() {
    let mut g = KhetGame::new("classic").expect("a built-in setup");
    let mut game = Game::new(Setup::builtin("khet2/classic").expect("built in").position);
    let mut rng = Rng::new(51);
    let mut played = Vec::new();
    while !g.is_over() {
        assert!(played.len() < 400, "the game should end: {played:?}");
        let moves = page_moves(&g);
        assert_eq!(moves, engine_moves(&game), "ply {}", played.len());
        assert_board_matches(&g, &game);
        let text = if game.side_to_move() == Color::Silver {
            g.computer_move("casual").expect("a move")
        } else {
            let list: Vec<&String> = moves.iter().collect();
            list[rng.below(list.len())].clone()
        };
        assert!(moves.contains(&text), "{text} is one of the legal moves");
        let preview = parse(&g.preview(&text).expect("a legal move previews"));
        let turn = parse(&g.play(&text).expect("a legal move plays"));
        let engine_turn = game
            .play_text(&text)
            .expect("the engine plays it too")
            .clone();
        played.push(text.clone());
        assert_eq!(turn["move"], text);
        assert_eq!(turn["ply"], played.len());
        assert_eq!(turn["shot"]["text"], engine_turn.shot.to_string());
        assert_eq!(
            turn["shot"], preview,
            "the preview is the shot that follows"
        );
        assert_eq!(parse(&g.last_shot()), turn["shot"]);
        let hits: Vec<&str> = turn["shot"]["hits"]
            .as_array()
            .expect("hits")
            .iter()
            .map(|h| h["square"].as_str().expect("a square"))
            .collect();
        let engine_hits: Vec<String> = engine_turn
            .shot
            .hits
            .iter()
            .map(|h| h.square.to_string())
            .collect();
        assert_eq!(hits, engine_hits);
    }
    assert_board_matches(&g, &game);
    assert!(page_moves(&g).is_empty(), "no moves once the game is over");
    let result = game.result().expect("over").to_string();
    assert_eq!(g.result_text().as_deref(), Some(result.as_str()));
    assert_eq!(parse(&g.moves()), serde_json::json!(played));
    let last = parse(&g.last_shot());
    assert!(
        !last["hits"].as_array().expect("hits").is_empty(),
        "the last shot ends the game"
    );
    // The game resumes from what `saved` gives.
    let again = KhetGame::new(&g.saved()).expect("the saved line reads back");
    assert_eq!(again.move_texts(), played);
    assert_eq!(again.board(), g.board());
    assert_eq!(again.result_text(), g.result_text());
    // Over: every move is refused with the result, and the computer has none.
    let refused = g.play(&played[0]).expect_err("no move after the end");
    assert!(refused.contains(&result), "{refused}");
    assert!(g.computer_move("beginner").is_err());
}

#[test]
fn a_refused_move_is_the_engines_reason_and_changes_nothing() {
    let mut g = KhetGame::new("classic").expect("built in");
    let board = g.board();
    let reason = g.play("h2h4").expect_err("two squares");
    assert_eq!(
        reason,
        "h2h4 is illegal: a piece moves one square (diagonals included)"
    );
    assert!(g.play("banana").expect_err("not a move").contains("banana"));
    assert!(g.play("a8a7").expect_err("Red's piece").contains("illegal"));
    assert!(g.preview("h2h4").is_err());
    assert_eq!(g.board(), board);
    assert_eq!(g.moves(), "[]");
    assert_eq!(g.last_shot(), "null");
    assert!(g.undo().is_err(), "nothing to take back");
    assert!(
        KhetGame::new("no-such-setup")
            .expect_err("unknown")
            .contains("no setup named")
    );
    assert!(KhetGame::new("classic moves h2h4").is_err());
    assert!(
        g.computer_move("emperor")
            .expect_err("no such level")
            .contains("level")
    );
}

#[test]
fn every_built_in_setup_starts_and_its_moves_are_the_engines() {
    let setups = parse(&KhetGame::setups());
    let names: Vec<&str> = setups
        .as_array()
        .expect("a list")
        .iter()
        .map(|s| s["name"].as_str().expect("a name"))
        .collect();
    let catalogue = catalogue();
    assert_eq!(names, catalogue.iter().map(|(n, _)| *n).collect::<Vec<_>>());
    assert!(names.contains(&"khet1/dynasty") && names.contains(&"khet2/imhotep-eyes"));
    for (name, setup) in catalogue {
        let g = KhetGame::new(name).expect("built in");
        let game = Game::new(setup.position);
        assert_eq!(page_moves(&g), engine_moves(&game), "{name}");
        assert_board_matches(&g, &game);
        let board = parse(&g.board());
        for (laser, color) in board["lasers"]
            .as_array()
            .expect("lasers")
            .iter()
            .zip(Color::ALL)
        {
            let first = fire(game.position(), color).segments[0];
            assert_eq!(laser["dir"], first.dir.to_string(), "{name}");
            assert_eq!(
                laser["from"].as_str(),
                first.from.map(|s| s.to_string()).as_deref()
            );
        }
    }
}

#[test]
fn khet_1_shows_fixed_lasers_stacks_and_unstacking() {
    let mut g = KhetGame::new("khet1/classic").expect("built in");
    let board = parse(&g.board());
    assert_eq!(board["edition"], "Khet 1.0");
    let lasers = board["lasers"].as_array().expect("lasers");
    assert!(
        lasers.iter().all(|l| l["from"].is_null()),
        "beyond the edge"
    );
    assert_eq!(
        (lasers[0]["entry"].as_str(), lasers[0]["dir"].as_str()),
        (Some("j1"), Some("N"))
    );
    assert_eq!(
        (lasers[1]["entry"].as_str(), lasers[1]["dir"].as_str()),
        (Some("a8"), Some("S"))
    );
    let stacks: Vec<&Value> = board["pieces"]
        .as_array()
        .expect("pieces")
        .iter()
        .filter(|p| p["kind"] == "obelisk" && p["height"] == 2)
        .collect();
    assert!(
        !stacks.is_empty(),
        "Classic 1.0 starts with stacked obelisks"
    );
    let stack = stacks
        .iter()
        .find(|p| p["color"] == "silver")
        .expect("a Silver stack");
    let square = stack["square"].as_str().expect("square");
    let moves = parse(&g.legal_moves());
    let unstack = moves[square]
        .as_array()
        .expect("the stack moves")
        .iter()
        .find(|m| m["kind"] == "unstack")
        .expect("its top obelisk may step alone")["text"]
        .as_str()
        .expect("text")
        .to_string();
    g.play(&unstack).expect("legal");
    let after = parse(&g.board());
    let at = |sq: &str| {
        after["pieces"]
            .as_array()
            .expect("pieces")
            .iter()
            .find(|p| p["square"] == sq)
            .cloned()
    };
    assert_eq!(at(square).expect("the bottom obelisk stays")["height"], 1);
}

#[test]
fn the_eye_of_horus_is_a_piece_with_a_mirror() {
    let g = KhetGame::new("khet2/imhotep-eyes").expect("built in");
    let board = parse(&g.board());
    let eyes: Vec<&Value> = board["pieces"]
        .as_array()
        .expect("pieces")
        .iter()
        .filter(|p| p["kind"] == "eye")
        .collect();
    assert_eq!(eyes.len(), 2);
    for eye in eyes {
        assert!(eye["mirror"] == "\\" || eye["mirror"] == "/", "{eye}");
    }
    let position = Setup::builtin("khet2/imhotep-eyes")
        .expect("built in")
        .position;
    assert_eq!(
        position
            .pieces()
            .filter(|(_, p)| p.kind() == Kind::Eye)
            .count(),
        2
    );
}

#[test]
fn every_level_answers_a_legal_move_and_the_hint_names_it() {
    let mut g = KhetGame::new("classic moves j1- a8+").expect("a start with moves");
    let legal = page_moves(&g);
    for level in khet_engine::Level::ALL {
        let mv = g
            .computer_move(&level.name().to_uppercase())
            .expect("a move");
        assert!(legal.contains(&mv), "{level}: {mv}");
        assert_eq!(
            KhetGame::least_pause(level.name()),
            Ok(level.least_pause().as_millis() as u32)
        );
    }
    assert!(KhetGame::least_pause("emperor").is_err());
    let hint = parse(&g.hint("beginner").expect("a hint"));
    let text = hint["text"].as_str().expect("text");
    assert!(legal.contains(text));
    assert!(text.starts_with(hint["from"].as_str().expect("from")));
    // Not played: the game is where it was (the engine writes a Sphinx's turn that has the
    // same result either way one way only).
    let engine =
        Game::from_protocol(&["classic", "j1-", "a8+"], Default::default()).expect("legal");
    assert_eq!(
        g.move_texts(),
        engine
            .turns()
            .iter()
            .map(|t| t.mv.to_string())
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_position_string_starts_a_game_and_take_backs_and_claims_work() {
    let start = Setup::builtin("khet2/dynasty").expect("built in").position;
    let mut g = KhetGame::new(&start.to_string()).expect("a position string");
    assert_eq!(parse(&g.board())["position"], start.to_string());
    assert!(KhetGame::new("x33a3ka3p22 0").is_err(), "a broken position");
    let mv = g.computer_move("beginner").expect("a move");
    g.play(&mv).expect("legal");
    g.undo().expect("one to take back");
    assert_eq!(g.moves(), "[]");
    assert!(!g.can_claim_draw());
    assert!(g.claim_draw().is_err());
    assert_eq!(
        g.resign("red").expect("may resign"),
        "Silver wins: Red resigned"
    );
    assert!(g.is_over());
}

#[test]
fn the_view_is_the_servers_view_of_the_same_game() {
    // The page draws a game against the computer from the same view an online game's server
    // sends: the engine's pieces, legal moves, shot and result, and the players' names.
    let mut g = KhetGame::new("classic").unwrap();
    g.play("c1d2").unwrap();
    let view: khet_protocol::view::BoardView =
        serde_json::from_str(&g.view("red", "khet2/classic", "You\nComputer").unwrap())
            .expect("a BoardView");
    let mut game = Game::new(Setup::builtin("classic").unwrap().position);
    game.play_text("c1d2").unwrap();
    assert_eq!(view.legal.len(), game.legal_moves().len());
    assert_eq!(view.pieces.len(), game.position().pieces().count());
    assert_eq!(view.moves, ["c1d2"]);
    assert_eq!(view.turn, "red");
    assert_eq!(view.you.as_deref(), Some("red"));
    assert_eq!(view.players[0].as_deref(), Some("You"));
    assert!(view.shot.is_some() && view.result.is_none());
    // The preview is a shot as the page draws it, and refuses what is not a move.
    let preview: khet_protocol::view::ShotView =
        serde_json::from_str(&g.preview_view("a8-").unwrap()).unwrap();
    assert_eq!(preview.color, "red");
    assert!(g.preview_view("a1a1").is_err());
    assert!(g.view("blue", "classic", "").is_err());
}
