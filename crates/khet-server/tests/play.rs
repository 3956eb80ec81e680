//! The play page in a real browser: headless Chromium, driven through chromedriver with real
//! clicks, keys and touches on the page's elements, plays against a protocol client through a
//! real server. The tests read what the page shows and what reached the server (its record, its
//! refusals counted in `/metrics`). Screenshots go to `$CARGO_TARGET_TMPDIR/play` (or
//! `KHET_PLAY_SHOTS`); `docs/` keeps some.

mod common;

use common::browser::{Browser, Picture};
use common::{Backend, Client, Db, Server, pharaoh_line, replayed};
use common::{MOVES_SHOWN, arrive, click_move, create_as_silver, join_as_red, moves_shown, square};
use khet_protocol::{ClockSpec, NewGame, SeatChoice, Status};
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn shots_dir() -> PathBuf {
    common::shots_dir("KHET_PLAY_SHOTS", "play")
}

fn text(browser: &Browser, expression: &str) -> String {
    browser
        .eval(expression)
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn status(browser: &Browser) -> String {
    text(browser, "document.getElementById('status').textContent")
}

/// The refusals the server has sent, of every kind, from its `/metrics`.
fn refusals(server: &Server) -> f64 {
    let (code, body) = server.get("/metrics");
    assert_eq!(code, 200);
    body.lines()
        .filter(|l| l.starts_with("khet_refusals_total{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// Waits until every segment of the last shot's beam has grown to its end (for a screenshot
/// that shows the whole beam).
fn beam_grown(browser: &Browser) {
    browser.until(
        "the beam grown to its end",
        "document.getAnimations().filter(a => a.animationName === 'beam')\
         .every(a => a.playState === 'finished')",
    );
}

/// Silver's clock as the page shows it (`M:SS`): a time, above nothing and at most `most`
/// seconds (what the clock was given: it only runs down between increments).
fn clock_within(browser: &Browser, most: u32) {
    let clock = text(
        browser,
        "document.querySelector('#player-bottom .clock').textContent",
    );
    let seconds = clock
        .trim()
        .split_once(':')
        .and_then(|(m, s)| Some(m.parse::<u32>().ok()? * 60 + s.parse::<u32>().ok()?));
    assert!(
        seconds.is_some_and(|s| s > 0 && s <= most),
        "Silver's clock {clock:?}: a time up to {most} s"
    );
}

/// A page player (`name`) who created a game as Silver, and a protocol client who took the
/// other seat by the code, as Red: the page shows its move to make. The client and the code.
fn seated_against_a_client(browser: &Browser, server: &Server, name: &str) -> (Client, String) {
    arrive(browser, server, name);
    let code = create_as_silver(browser);
    (join_as_red(browser, server, &code), code)
}

#[test]
fn a_browser_player_creates_plays_by_clicks_survives_a_reload_and_wins() {
    let db = Db::new(Backend::Sqlite, "play");
    let server = Server::start(&db, 0, &[]);
    let browser = Browser::start(1280, 900);
    let (mut red, code) = seated_against_a_client(&browser, &server, "Browser player");
    assert!(
        text(&browser, "document.getElementById('link').value")
            .starts_with(&format!("http://{}/play/", server.addr))
    );
    let bars = text(
        &browser,
        "document.getElementById('player-top').textContent + '|' + \
         document.getElementById('player-bottom').textContent",
    );
    assert!(
        bars.starts_with("Red: Client player") && bars.contains("|Silver: Browser player"),
        "Silver's own side at the bottom: {bars}"
    );
    // This server was built without the 3D game: it says so, and the page offers none.
    let (_, offer) = server.get("/setups");
    let offer: Value = serde_json::from_str(&offer).unwrap_or_default();
    assert_eq!(offer["game_3d"], Value::Bool(false), "{offer}");
    assert_eq!(
        browser.eval(
            "[document.getElementById('nav-3d').hidden, document.getElementById('in-3d').hidden]"
        ),
        serde_json::json!([true, true]),
        "no 3D game offered by a server without it"
    );
    // Silver's clock shows the game's ten minutes, running down: never more.
    clock_within(&browser, 600);
    let refused_before = refusals(&server);

    // An opponent's piece, an empty square: nothing is sent, and the page says why.
    browser.click(&square("a8"));
    assert!(
        status(&browser).contains("That is Red's sphinx"),
        "{}",
        status(&browser)
    );
    browser.click(&square("e3"));
    assert!(
        status(&browser).contains("e3 is empty"),
        "{}",
        status(&browser)
    );

    let line = pharaoh_line();
    let half = 6;
    for (i, mv) in line.iter().enumerate().take(half) {
        if i % 2 == 0 {
            click_move(&browser, mv);
        } else {
            red.play(mv);
        }
        red.until("the move", |c| c.plies() > i);
        // Every move so far listed (rows count two): the page has the last one before the next.
        browser.until(
            &format!("move {} listed", i + 1),
            &format!("{MOVES_SHOWN} >= {}", i + 1),
        );
        if i % 2 == 0 {
            // Out of turn: a click on one's own piece sends nothing and says whose turn it is.
            browser.click(&square("j1"));
            assert_eq!(status(&browser), "It is Red's turn.");
        }
    }
    assert_eq!(moves_shown(&browser), half);
    assert!(
        browser
            .eval("document.querySelectorAll('.beam line').length")
            .as_u64()
            .unwrap_or(0)
            > 0,
        "the last shot's beam is drawn"
    );
    let stored = replayed(&server, &code);
    let stored: Vec<String> = stored.turns().iter().map(|t| t.mv.to_string()).collect();
    assert_eq!(stored, line[..half], "the clicked moves reached the record");
    assert_eq!(
        refusals(&server),
        refused_before,
        "no click sent a move the server refused"
    );

    // A reload in mid-game: the same seat, position and clocks.
    let pieces = browser.eval("document.querySelectorAll('.pieces .piece').length");
    browser.reload();
    browser.until(
        "the game again after the reload",
        &format!("{MOVES_SHOWN} >= {half}"),
    );
    assert_eq!(
        browser.eval("document.querySelectorAll('.pieces .piece').length"),
        pieces
    );
    browser.until(
        "Silver's move again",
        "document.getElementById('status').textContent.includes('Your move')",
    );
    // The clock again, within what it was given: ten minutes and 5 s for each of Silver's moves.
    clock_within(&browser, 600 + 5 * u32::try_from(half / 2).unwrap_or(0));

    for (i, mv) in line.iter().enumerate().skip(half) {
        if i % 2 == 0 {
            click_move(&browser, mv);
        } else {
            red.play(mv);
        }
        red.until("the move", |c| c.plies() > i);
        browser.until(
            &format!("move {} listed", i + 1),
            &format!("{MOVES_SHOWN} >= {}", i + 1),
        );
    }
    browser.until("the result", "!document.getElementById('result').hidden");
    let result = text(&browser, "document.getElementById('result').textContent");
    assert!(result.contains("Silver wins"), "{result}");
    assert_eq!(refusals(&server), refused_before);
    beam_grown(&browser);
    std::fs::write(shots_dir().join("won.png"), browser.screenshot()).unwrap();
}

#[test]
fn a_phone_plays_by_taps_and_shows_the_whole_board() {
    let db = Db::new(Backend::Sqlite, "phone");
    let server = Server::start(&db, 0, &[]);
    let browser = Browser::phone(360, 640);
    let (mut red, _) = seated_against_a_client(&browser, &server, "Phone player");
    let line = pharaoh_line();
    let mv = &line[0];
    browser.tap(&square(&mv[..2]));
    if mv.ends_with('+') || mv.ends_with('-') {
        let turn = if mv.ends_with('+') { "cw" } else { "ccw" };
        browser.tap(&format!("[data-rotate=\"{turn}\"]"));
    } else {
        browser.tap(&square(&mv[2..4]));
    }
    red.until("the tapped move", |c| c.plies() == 1);
    assert_eq!(red.mirror().view.moves[0], *mv);
    browser.until(
        "the beam grown to its end",
        "document.getElementById('status').textContent.startsWith('Last move') && \
         document.getAnimations().filter(a => a.animationName === 'beam')\
         .every(a => a.playState === 'finished')",
    );
    // The whole board is on the screen, at the width of the phone, without scrolling sideways.
    let rect = browser.eval(
        "(() => { const r = document.getElementById('board').getBoundingClientRect(); \
         return [r.left, r.top, r.right, r.bottom, document.documentElement.scrollWidth]; })()",
    );
    let r: Vec<f64> = rect
        .as_array()
        .expect("a rectangle")
        .iter()
        .map(|v| v.as_f64().unwrap_or(-1.0))
        .collect();
    assert!(
        r[0] >= 0.0 && r[2] <= 360.0 && r[1] >= 0.0 && r[3] <= 640.0 && r[4] <= 360.0,
        "the board within 360 × 640: {r:?}"
    );
    assert!(
        r[2] - r[0] >= 320.0,
        "the board uses the phone's width: {r:?}"
    );
    let shot = browser.screenshot();
    std::fs::write(shots_dir().join("phone.png"), &shot).unwrap();
    let picture = Picture::from_png(&shot);
    assert_eq!((picture.width, picture.height), (360, 640));
    // The board's squares are drawn: sand-coloured pixels fill much of its rectangle.
    let (sand, area) = board_squares(&picture, &r);
    assert!(
        sand * 3 > area,
        "{sand} of {area} pixels are the board's squares"
    );
}

/// What a friend sees on a phone who opens the link a player sent, with nothing kept in the
/// browser (no name yet), as facts read from the page: the visible text, the board's rectangle
/// and pieces, the fields and forms shown.
const WHAT_A_FRIEND_SEES: &str = "(() => { \
    const seen = (el) => !!el && el.checkVisibility(); \
    const b = document.getElementById('board').getBoundingClientRect(); \
    const fields = [...document.querySelectorAll('input, select, textarea')].filter(seen); \
    return { \
      text: document.body.innerText, \
      board: [b.left, b.top, b.right, b.bottom], \
      board_seen: seen(document.getElementById('board')), \
      pieces: document.querySelectorAll('#board .pieces .piece').length, \
      fields: fields.map((f) => f.id || f.name || f.tagName), \
      name_bottom: seen(document.getElementById('name')) \
        ? document.getElementById('name').getBoundingClientRect().bottom : null, \
      forms: ['create-form', 'join-form', 'seek', 'computer-form', 'lobby', 'best'] \
        .filter((id) => seen(document.getElementById(id))), \
      scroll_width: document.documentElement.scrollWidth, \
    }; })()";

/// The link lands on the game: a friend who opens `/play/CODE` on a 360 × 640 phone sees whose
/// game it is, its board whole within the first screen, and one field, for their name; none of
/// the lobby's forms (create, join, pairing, the computer). Their name given, they sit down at
/// once in the free seat. (On the page before issue 64 it showed "Give your name to play game
/// CODE", the name field, then the create, join and pairing forms, and no board: its section
/// was hidden, and drawn below the forms when a CSS rule overrode `hidden`.)
#[test]
fn a_friend_who_opens_the_link_on_a_phone_sees_whose_game_the_board_and_one_name_field() {
    let db = Db::new(Backend::Sqlite, "friend");
    let server = Server::start(&db, 0, &[]);
    let mut ann = Client::connect(&server.url, "Ann");
    let code = ann.create(NewGame {
        setup: "classic".into(),
        clock: Some(ClockSpec::minutes(10, 5)),
        color: SeatChoice::Silver,
        rated: false,
        listed: false,
        days_per_move: None,
    });
    let browser = Browser::phone(360, 640);
    browser.open(&format!("http://{}/play/{code}", server.addr));
    // The game's pieces drawn, or a named deadline: the facts below say what is missing.
    let deadline = Instant::now() + Duration::from_secs(15);
    while browser.eval("document.querySelectorAll('#board .pieces .piece').length > 0")
        != Value::Bool(true)
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    let shot = browser.screenshot();
    std::fs::write(shots_dir().join("friend.png"), &shot).unwrap();
    let seen = browser.eval(WHAT_A_FRIEND_SEES);
    let shown = seen["text"].as_str().unwrap_or_default();
    let board: Vec<f64> = seen["board"]
        .as_array()
        .expect("the board's rectangle")
        .iter()
        .map(|v| v.as_f64().unwrap_or(-1.0))
        .collect();
    let mut wrong = Vec::new();
    if !shown.contains("Ann invites you") {
        wrong.push("whose game it is (Ann's) is not said");
    }
    if seen["board_seen"] != Value::Bool(true) || seen["pieces"].as_u64().unwrap_or(0) == 0 {
        wrong.push("the board is not shown with its pieces");
    }
    if !(board[0] >= 0.0 && board[1] >= 0.0 && board[2] <= 360.0 && board[3] <= 640.0)
        || board[2] - board[0] < 320.0
    {
        wrong.push("the board is not whole within the first screen at the phone's width");
    }
    if seen["fields"] != serde_json::json!(["name"]) {
        wrong.push("the fields shown are not the name's alone");
    }
    if seen["name_bottom"].as_f64().is_none_or(|b| b > 640.0) {
        wrong.push("the name field is not within the first screen");
    }
    if seen["forms"] != serde_json::json!([]) {
        wrong.push("some of the lobby's forms are shown");
    }
    if seen["scroll_width"].as_f64().unwrap_or(0.0) > 360.0 {
        wrong.push("the page scrolls sideways");
    }
    assert!(
        wrong.is_empty(),
        "{wrong:#?}\nwhat the page shows: {seen:#}"
    );
    let picture = Picture::from_png(&shot);
    let (sand, area) = board_squares(&picture, &board);
    assert!(
        sand * 3 > area,
        "the board's squares on screen: {sand} of {area} pixels"
    );

    // A name, and the friend plays the free seat at once: Red, Ann's opponent.
    browser.type_into("#name", "Bea");
    browser.tap("#name-button");
    ann.until("the friend seated", |c| {
        c.mirror().view.status == Status::Playing
    });
    assert_eq!(
        ann.mirror().view.players[1]
            .as_ref()
            .map(|p| p.name.as_str()),
        Some("Bea")
    );
    browser.until(
        "the friend at the table, as Red",
        "document.getElementById('player-bottom').textContent.startsWith('Red: Bea') && \
         document.getElementById('status').textContent.includes('Silver to move')",
    );
    assert_eq!(text(&browser, "location.pathname"), format!("/play/{code}"));
}

#[test]
fn junk_in_storage_and_an_unknown_game_get_a_message_not_a_blank_page() {
    let db = Db::new(Backend::Sqlite, "junk");
    let server = Server::start(&db, 0, &[]);
    let browser = Browser::start(1024, 768);
    browser.open(&format!("http://{}/play", server.addr));
    browser.eval(
        "(localStorage.setItem('khet.identity', '{not json'), \
          localStorage.setItem('khet.seats', '[1,2'), \
          localStorage.setItem('khet.name', '\"Junk\"'), true)",
    );
    browser.open(&format!("http://{}/play/zzzzzzzz", server.addr));
    browser.until(
        "a message about the unknown game",
        "!document.getElementById('problem').hidden",
    );
    let problem = text(&browser, "document.getElementById('problem').textContent");
    assert!(problem.contains("no game"), "{problem}");
    assert_eq!(text(&browser, "location.pathname"), "/play");
    assert_eq!(
        browser.eval("document.getElementById('home').hidden"),
        Value::Bool(false)
    );
    // The junk identity was replaced by a good one, and the name kept.
    let identity = text(
        &browser,
        "JSON.parse(localStorage.getItem('khet.identity'))",
    );
    assert_eq!(identity.len(), 32, "{identity}");
    assert_eq!(
        text(&browser, "document.getElementById('name').value"),
        "Junk"
    );
    // A kept game against the computer that the engine refuses: said, forgotten, the lobby.
    browser.eval(
        "(localStorage.setItem('khet.computer', JSON.stringify({setup: 'classic', \
          level: 'casual', you: 'silver', saved: 'no such setup'})), true)",
    );
    browser.open(&format!("http://{}/play/computer", server.addr));
    browser.until(
        "a message about the game that cannot start",
        "document.getElementById('problem').textContent.includes('could not start')",
    );
    assert_eq!(text(&browser, "location.pathname"), "/play");
    assert_eq!(
        browser.eval("localStorage.getItem('khet.computer')"),
        Value::Null
    );
}

/// The moves the page lists, in order.
fn page_moves(browser: &Browser) -> Vec<String> {
    let moves = browser
        .eval("[...document.querySelectorAll('#moves li')].map(li => li.textContent).join(' ')");
    moves
        .as_str()
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_computer_answers_in_the_page_with_legal_moves_and_the_page_keeps_drawing() {
    use khet_engine::{Game, Setup};
    let db = Db::new(Backend::Sqlite, "computer");
    let server = Server::start(&db, 0, &[]);
    let browser = Browser::start(1280, 900);
    browser.open(&format!("http://{}/play", server.addr));
    browser.until(
        "the game against the computer offered",
        "document.querySelectorAll('#computer-setup option').length >= 8 && \
         !document.getElementById('computer-form').hidden",
    );
    // The levels offered are the engine's, weakest first, with the ratings it gives them.
    let offered = browser.eval(
        "Array.from(document.querySelectorAll('#level option'), o => o.value + '=' + o.textContent)",
    );
    let engine: Vec<String> = khet_engine::Level::ALL
        .iter()
        .map(|l| format!("{}={} · {}", l.name().to_lowercase(), l.name(), l.rating()))
        .collect();
    assert_eq!(offered, serde_json::json!(engine));
    // Master thinks its whole budget (2.5 s a move), in which a page whose main thread were
    // busy would draw nothing.
    browser.click("#level option[value=\"master\"]");
    browser.click("#computer-color option[value=\"silver\"]");
    browser.click("#play-computer");
    browser.until(
        "the first move to make",
        "document.getElementById('status').textContent.startsWith('Your move')",
    );
    assert_eq!(text(&browser, "location.pathname"), "/play/computer");
    // Frames drawn while the computer thinks, counted by the page's own clock of frames.
    browser.eval(
        "(window.thinkingFrames = 0, (function count() { \
           if (document.body.dataset.thinking === 'yes') window.thinkingFrames++; \
           requestAnimationFrame(count); })(), true)",
    );
    let start = Setup::builtin("classic").unwrap().position;
    // Once the page has loaded, the game needs no server.
    server.kill();
    for turn in 0..2 {
        let before = page_moves(&browser);
        let game = Game::from_moves(start, &before).expect("the page's moves replay natively");
        // The first of the engine's steps that loses nothing at once.
        let mv = game
            .legal_moves()
            .into_iter()
            .find(|&mv| {
                let mut g = game.clone();
                matches!(mv, khet_engine::Move::Step { .. })
                    && g.play(mv).is_ok_and(|t| t.shot.hits.is_empty())
            })
            .expect("a quiet step");
        let text = mv.to_string();
        if turn == 0 {
            // The piece picked up, the pointer over where it would go: the page's engine shows
            // where the laser would shoot after the move.
            browser.click(&square(&text[..2]));
            browser.hover(&square(&text[2..4]));
            browser.until(
                "the laser's preview",
                "document.querySelectorAll('.preview line').length > 0",
            );
            browser.click(&square(&text[2..4]));
        } else {
            click_move(&browser, &text);
        }
        browser.until(
            &format!("the computer's reply {turn}"),
            &format!(
                "document.querySelectorAll('#moves li').length === {} && \
                 document.body.dataset.thinking === 'no'",
                before.len() / 2 + 1
            ),
        );
        let after = page_moves(&browser);
        assert_eq!(after.len(), before.len() + 2, "{after:?}");
        assert_eq!(after[before.len()], mv.to_string());
        Game::from_moves(start, &after)
            .unwrap_or_else(|e| panic!("the computer's reply is legal natively: {e}: {after:?}"));
    }
    // A page whose thread the search held would draw no frame while it thought (one at most as
    // it began): two thoughts of Master's, frames in each, are more than that.
    let frames = browser.eval("window.thinkingFrames").as_u64().unwrap_or(0);
    assert!(
        frames >= 4,
        "only {frames} frames drawn while the computer thought"
    );
    beam_grown(&browser);
    std::fs::write(shots_dir().join("computer.png"), browser.screenshot()).unwrap();
}

/// `GET path` with `accept` as the Accept-Encoding: the response's head and body, as bytes.
fn fetch(server: &Server, path: &str, accept: &str) -> (String, Vec<u8>) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(&server.addr).expect("connects");
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {}\r\nAccept-Encoding: {accept}\r\nConnection: close\r\n\r\n",
        server.addr
    )
    .unwrap();
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes).unwrap();
    let split = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    (
        String::from_utf8_lossy(&bytes[..split]).to_lowercase(),
        bytes[split + 4..].to_vec(),
    )
}

#[test]
fn the_engine_is_served_gzipped_to_browsers_that_take_it() {
    let db = Db::new(Backend::Sqlite, "gzip");
    let server = Server::start(&db, 0, &[]);
    let (head, plain) = fetch(&server, "/web/khet_web_bg.wasm", "identity");
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("content-type: application/wasm"), "{head}");
    assert!(!head.contains("content-encoding"), "{head}");
    assert_eq!(&plain[..4], b"\0asm", "WebAssembly");
    let (head, packed) = fetch(&server, "/web/khet_web_bg.wasm", "gzip, deflate, br");
    assert!(head.contains("content-encoding: gzip"), "{head}");
    assert_eq!(&packed[..2], &[0x1f, 0x8b], "gzip");
    assert!(
        packed.len() * 2 < plain.len(),
        "{} bytes gzipped of {}",
        packed.len(),
        plain.len()
    );
}

/// The keys that move the board's keyboard cursor from square `from` to square `to`, on a
/// board seen from Silver's side (`WebDriver`'s codes for the arrows).
fn arrows(from: &str, to: &str) -> String {
    let (f, t) = (from.as_bytes(), to.as_bytes());
    let files = i32::from(t[0]) - i32::from(f[0]);
    let ranks = i32::from(t[1]) - i32::from(f[1]);
    let (right, left, up, down) = ('\u{E014}', '\u{E012}', '\u{E013}', '\u{E015}');
    let mut keys = String::new();
    for _ in 0..files.abs() {
        keys.push(if files > 0 { right } else { left });
    }
    for _ in 0..ranks.abs() {
        keys.push(if ranks > 0 { up } else { down });
    }
    keys
}

#[test]
fn a_move_by_keyboard_alone() {
    let db = Db::new(Backend::Sqlite, "keys");
    let server = Server::start(&db, 0, &[]);
    let browser = Browser::start(1280, 900);
    let (mut red, _) = seated_against_a_client(&browser, &server, "Keyboard player");
    // Tab to the board, as a person without a mouse does.
    for _ in 0..12 {
        if browser.eval("document.activeElement && document.activeElement.id") == "board" {
            break;
        }
        browser.keys("\u{E004}");
    }
    assert_eq!(
        browser.eval("document.activeElement.id"),
        "board",
        "the board takes the focus by Tab"
    );
    // The cursor starts on e1; Enter picks up, the arrows go on, Enter puts down.
    let mv = &pharaoh_line()[0];
    let (from, to) = (&mv[..2], &mv[2..4]);
    browser.keys(&arrows("e1", from));
    assert!(
        status(&browser).starts_with(&format!("{from}: Silver")),
        "the cursor's square said: {}",
        status(&browser)
    );
    browser.keys("\u{E007}");
    browser.keys(&arrows(from, to));
    browser.keys("\u{E007}");
    red.until("the move made by keys", |c| c.plies() == 1);
    assert_eq!(red.mirror().view.moves[0], *mv);
}

/// The sand-coloured pixels (the board's squares) within the board's rectangle `[left, top,
/// right, bottom]` of a picture, and the rectangle's area.
fn board_squares(picture: &Picture, board: &[f64]) -> (usize, usize) {
    let (x, y, w, h) = (
        board[0] as u32,
        board[1] as u32,
        (board[2] - board[0]) as u32,
        (board[3] - board[1]) as u32,
    );
    let sand = picture.count((x, y, w, h), |[r, g, b]| {
        r > 200 && g > 190 && b > 140 && b < 200 && r > b + 30
    });
    (sand, (w * h) as usize)
}
