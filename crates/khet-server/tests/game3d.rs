//! The 3D game in a browser (`/3d`), as a player meets it: Debian's Chromium, headless, drawing
//! WebGL2 on the CPU (`SwiftShader`), against a real `khet-server` built with the `game-3d` feature,
//! which carries the game `scripts/build-game-web` built.
//!
//! Built only with that feature (`required-features` in Cargo.toml), as `.ci/web3d` builds it:
//! the game for the browser is a second cold build of Bevy, too long for every CI run.
//! `KHET_3D_SHOTS=DIR` keeps the screenshots there (else in the target's temporary folder).
//! The board's picture is judged as the window test judges its pictures, against its reference
//! frame (`tests/frames/3d-board.png`, half size); after a deliberate change to what the page
//! shows, `KHET_UPDATE_FRAMES=1` writes it again (look at it before committing).

mod common;
// The window test's pictures: a screenshot judged region by region against its reference.
#[allow(dead_code)]
#[path = "../../../tests/common/picture.rs"]
mod picture;

use common::browser::{Browser, Picture};
use common::{Backend, Db, MOVES_SHOWN, PATIENCE, Server, arrive, click_move};
use common::{create_as_silver, join_as_red, ocr, shots_dir};
use khet_engine::{Game, Move, Record, Setup};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The browser's window: a page of 1280 × 720 (the window test's aspect, small enough for
/// `SwiftShader`) under the 143 pixels headless Chromium's window keeps for itself.
const SIZE: (u32, u32) = (1280, 863);

/// Whether a pixel is one of the board's squares (the stone's sand and slate: not the page's
/// dark background, not pure white or black).
fn board_colour([r, g, b]: [u8; 3]) -> bool {
    let (r, g, b) = (i32::from(r), i32::from(g), i32::from(b));
    let lightness = r + g + b;
    lightness > 150 && lightness < 700 && (r - b).abs() < 120
}

/// Waits until the canvas has drawn the board: a good part of the middle of the page in the
/// board's colours. The screenshot.
fn board_drawn(browser: &Browser) -> Picture {
    let start = Instant::now();
    loop {
        let shot = Picture::from_png(&browser.screenshot());
        let middle = (
            shot.width / 4,
            shot.height / 4,
            shot.width / 2,
            shot.height / 2,
        );
        let area = (middle.2 * middle.3) as usize;
        if shot.count(middle, board_colour) > area / 4 {
            return shot;
        }
        assert!(
            start.elapsed() < PATIENCE * 3,
            "the 3D page never drew the board; its console: {:#?}",
            browser.console()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// Waits until the page shows `phrase` (read from its pixels: egui draws the game's words into
/// the canvas) and clicks its middle, the topmost where it stands more than once.
fn click_words(browser: &Browser, phrase: &str) {
    let at = words_at(browser, phrase, false);
    browser.click_at(at.x, at.y);
}

/// Clicks the button whose words are `phrase`: where they are the whole line, not the start of
/// a heading ("Create" under "Create a game").
fn click_button(browser: &Browser, phrase: &str) {
    let at = words_at(browser, phrase, true);
    browser.click_at(at.x, at.y);
}

/// Presses the button `phrase` that goes away once pressed (it closes its panel or dialog):
/// clicked again until it has gone. A click in the very frame that first draws a button can
/// come before egui knows it is there, and the page then stays as it was.
fn press(browser: &Browser, phrase: &str) {
    let start = Instant::now();
    loop {
        click_lowest(browser, phrase);
        if shows_words_gone_within(browser, phrase, Duration::from_secs(5)) {
            return;
        }
        assert!(
            start.elapsed() < PATIENCE * 2,
            "{phrase:?} stays on the page, pressed again and again"
        );
    }
}

/// Whether the page stops showing `phrase` within `time`.
fn shows_words_gone_within(browser: &Browser, phrase: &str, time: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < time {
        let words = ocr::words(&Picture::from_png(&browser.screenshot()));
        if ocr::find(&words, phrase).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    false
}

/// Waits until the page shows `phrase`.
fn shows_words(browser: &Browser, phrase: &str) {
    words_at(browser, phrase, false);
}

/// Where the page shows `phrase` (the topmost; `alone` on a line of its own), once it does;
/// after [`PATIENCE`] twice the test fails with what was read, the last screenshot kept beside
/// the others.
fn words_at(browser: &Browser, phrase: &str, alone: bool) -> ocr::Found {
    places(browser, phrase, alone)[0]
}

/// Clicks the lowest place the page shows `phrase`: a dialog's button ("Resume", beside "Not
/// now") under a title that reads nearly the same ("Resume?").
fn click_lowest(browser: &Browser, phrase: &str) {
    let places = places(browser, phrase, false);
    let at = places
        .iter()
        .max_by(|a, b| a.y.total_cmp(&b.y))
        .expect("a place");
    browser.click_at(at.x, at.y);
}

/// Every place the page shows `phrase` (`alone` on a line of its own), topmost first, once it
/// shows it at all; after [`PATIENCE`] twice the test fails with what was read, the last
/// screenshot kept beside the others.
fn places(browser: &Browser, phrase: &str, alone: bool) -> Vec<ocr::Found> {
    let start = Instant::now();
    loop {
        let png = browser.screenshot();
        let words = ocr::words(&Picture::from_png(&png));
        let found: Vec<ocr::Found> = ocr::find(&words, phrase)
            .into_iter()
            .filter(|f| f.alone || !alone)
            .collect();
        if !found.is_empty() {
            return found;
        }
        if start.elapsed() > PATIENCE * 2 {
            let dir = shots_dir("KHET_3D_SHOTS", "game3d");
            let file = dir.join(format!("never-{}.png", phrase.replace(' ', "-")));
            let _ = std::fs::write(&file, &png);
            let read: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
            panic!(
                "the page never showed {phrase:?} ({}); it read: {}",
                file.display(),
                read.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// The notices of a first start, put away as a player does, by their buttons: the software
/// renderer's (graphics set to Low) and the tutorial's offer.
fn first_start_notices_put_away(browser: &Browser) {
    press(browser, "OK");
    press(browser, "Not now");
}

/// Where the board's squares are on the page now (`window.khetSquares()`).
fn squares(browser: &Browser) -> HashMap<String, (f64, f64)> {
    let value = browser.eval("window.khetSquares ? window.khetSquares() : {}");
    value
        .as_object()
        .map(|squares| {
            squares
                .iter()
                .filter_map(|(sq, at)| Some((sq.clone(), (at[0].as_f64()?, at[1].as_f64()?))))
                .collect()
        })
        .unwrap_or_default()
}

/// Clicks the square `sq` of the 3D board where it is on the page.
fn click_square(browser: &Browser, sq: &str) {
    let start = Instant::now();
    loop {
        if let Some(&(x, y)) = squares(browser).get(sq) {
            browser.click_at(x, y);
            return;
        }
        assert!(start.elapsed() < PATIENCE, "{sq} is never on the page");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Plays `mv` on the 3D board as a player does with the mouse and keys: the piece, then the
/// square it goes to, or E (a clockwise turn) or Q. The piece is clicked until the status line
/// says it is picked up: a click while the last shot is still shown only skips the shot.
fn play_by_clicks(browser: &Browser, mv: &str) {
    let start = Instant::now();
    loop {
        click_square(browser, &mv[..2]);
        if shows_words_within(browser, "selected", Duration::from_secs(6)) {
            break;
        }
        if start.elapsed() > PATIENCE * 2 {
            let dir = shots_dir("KHET_3D_SHOTS", "game3d");
            let shot = dir.join(format!("never-picked-up-{}.png", &mv[..2]));
            let _ = std::fs::write(&shot, browser.screenshot());
            panic!(
                "the piece on {} was never picked up: {}",
                &mv[..2],
                shot.display()
            );
        }
    }
    match mv.as_bytes()[2] {
        b'+' => browser.keys("e"),
        b'-' => browser.keys("q"),
        _ => click_square(browser, &mv[2..4]),
    }
}

/// Whether the page shows `phrase` within `time`.
fn shows_words_within(browser: &Browser, phrase: &str, time: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < time {
        let words = ocr::words(&Picture::from_png(&browser.screenshot()));
        if !ocr::find(&words, phrase).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    false
}

/// A step of a piece of the side to move to an empty square after which the game goes on: a
/// move a player makes with two clicks.
fn a_step(game: &Game) -> Move {
    game.legal_moves()
        .into_iter()
        .find(|&mv| {
            let mut after = game.clone();
            matches!(mv, Move::Step { .. }) && after.play(mv).is_ok() && !after.is_over()
        })
        .expect("a step that goes on")
}

/// The games the page saved in the browser's storage, by key: each record's text.
fn saved_games(browser: &Browser) -> Vec<(String, String)> {
    let value = browser.eval(
        "Object.keys(localStorage).filter(k => k.startsWith('khet:/khet/data/games/'))\
         .map(k => [k, localStorage.getItem(k)])",
    );
    value
        .as_array()
        .map(|games| {
            games
                .iter()
                .filter_map(|g| Some((g[0].as_str()?.into(), g[1].as_str()?.into())))
                .collect()
        })
        .unwrap_or_default()
}

/// Waits until a saved game has `plies` moves at least; the native engine replays it (every move
/// legal). Its storage key and the game.
fn saved_with(browser: &Browser, plies: usize) -> (String, Game) {
    let start = Instant::now();
    loop {
        for (key, text) in saved_games(browser) {
            let game = Record::game_from_bytes(text.as_bytes(), &key)
                .unwrap_or_else(|e| panic!("the saved game replays: {e}\n{text}"));
            if game.positions().len() > plies {
                return (key, game);
            }
        }
        if start.elapsed() > PATIENCE * 2 {
            let dir = shots_dir("KHET_3D_SHOTS", "game3d");
            let _ = std::fs::write(
                dir.join(format!("never-saved-{plies}.png")),
                browser.screenshot(),
            );
            panic!(
                "no saved game reached {plies} moves: {:#?}",
                saved_games(browser)
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The page's frames so far and the time (ms), counted by the browser's animation frames: a
/// page whose main thread is busy gets none.
const FRAMES: &str = "[window.khetFrames, performance.now()]";

/// Starts counting the page's animation frames into `window.khetFrames`.
fn count_frames(browser: &Browser) {
    browser.eval(
        "(window.khetFrames = 0, (function tick() { window.khetFrames++; \
         requestAnimationFrame(tick); })(), true)",
    );
}

fn frames_at(browser: &Browser) -> (f64, f64) {
    let v = browser.eval(FRAMES);
    (v[0].as_f64().unwrap_or(0.0), v[1].as_f64().unwrap_or(0.0))
}

/// Each side's pieces of Classic's start seen where the page says their squares are: a dozen
/// pixels of their colour within 10 of the square's middle (at the mirrors' height), on nine
/// squares in ten at least (a piece may hide a little of its neighbour).
fn pieces_on_their_squares(image: &picture::Image, squares: &HashMap<String, (f64, f64)>) {
    let start = Setup::builtin("classic").expect("Classic").position;
    for (side, colour) in [
        (
            khet_engine::Color::Silver,
            picture::silver_piece as fn([u8; 3]) -> bool,
        ),
        (khet_engine::Color::Red, picture::red_lacquer),
    ] {
        let theirs: Vec<String> = start
            .pieces()
            .filter(|(_, piece)| piece.color() == side)
            .map(|(sq, _)| sq.to_string())
            .collect();
        let seen = theirs
            .iter()
            .filter(|sq| {
                squares
                    .get(*sq)
                    .is_some_and(|&(x, y)| image.count_near((x as f32, y as f32), 10, colour) >= 12)
            })
            .count();
        eprintln!(
            "figure: {side}'s pieces seen on {seen} of their {} squares",
            theirs.len()
        );
        assert!(
            !theirs.is_empty() && seen * 10 >= theirs.len() * 9,
            "{side}'s pieces are seen on {seen} of their {} squares",
            theirs.len()
        );
    }
}

/// How far the board's picture may be from its reference: regions of 16 × 16 half-size pixels,
/// as the window test judges its still pictures; `SwiftShader` draws the same frame the same way
/// from run to run (four runs: worst region SSIM 1.000, ΔE 0; the test says it as a figure).
const BOARD_TOLERANCE: picture::Tolerance = picture::Tolerance {
    region: 16,
    ssim: 0.95,
    delta_e: 3.0,
};

/// `image` (the page's screenshot) against its committed reference at half size,
/// `tests/frames/NAME.png`; `KHET_UPDATE_FRAMES=1` writes the reference instead (look at it
/// before committing).
fn like_its_reference(image: &picture::Image, name: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/frames")
        .join(format!("{name}.png"));
    let half = image.halved();
    if std::env::var_os("KHET_UPDATE_FRAMES").is_some() {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("the folder");
        half.save(&path);
        return;
    }
    let reference = picture::Image::load(&path);
    let c = picture::compare(&half, &reference, BOARD_TOLERANCE, &[]);
    eprintln!(
        "figure: {name} against its reference: worst region SSIM {:.3}, ΔE {:.2}",
        c.worst_ssim, c.worst_delta_e
    );
    assert!(
        c.failed.is_empty(),
        "{name} differs from its reference in {} regions (worst SSIM {:.3}, ΔE {:.2}); the \
         picture is in the shots' folder",
        c.failed.len(),
        c.worst_ssim,
        c.worst_delta_e
    );
}

#[test]
fn the_3d_page_draws_the_board() {
    let db = Db::new(Backend::Sqlite, "game3d-board");
    let server = Server::start(&db, 0, &[]);
    let browser = Browser::webgl(SIZE.0, SIZE.1);
    browser.open(&format!("http://{}/3d/", server.addr));
    let shot = board_drawn(&browser);
    let dir = shots_dir("KHET_3D_SHOTS", "game3d");
    std::fs::write(dir.join("3d-first-board.png"), browser.screenshot())
        .expect("the screenshot saved");
    // What the browser fetched for the game, as sent (compressed) and as read.
    let fetched = browser.eval(
        "performance.getEntriesByType('resource').filter(e => /khet(_bg\\.wasm|\\.js)$/.test(e.name))\
         .map(e => `${e.name.split('/').pop()} ${e.transferSize} bytes sent, ${e.decodedBodySize} read`)",
    );
    eprintln!("figure: the game's download: {fetched}");
    assert!(
        shot.width >= 1000,
        "the page fills the window: {} wide",
        shot.width
    );
    // What a player sees before the first move, the first start's notices put away: the
    // board, both sides' pieces on their squares, as its reference frame shows it.
    first_start_notices_put_away(&browser);
    std::fs::write(dir.join("3d-board.png"), browser.screenshot()).expect("the screenshot saved");
    let image = picture::Image::load(&dir.join("3d-board.png"));
    pieces_on_their_squares(&image, &squares(&browser));
    like_its_reference(&image, "3d-board");
    let errors: Vec<String> = browser
        .console()
        .into_iter()
        .filter(|l| l.starts_with("\"SEVERE\""))
        .collect();
    assert!(errors.is_empty(), "the page's console: {errors:#?}");
}

#[test]
fn without_webgl2_the_page_says_so_and_offers_the_2d_page() {
    let db = Db::new(Backend::Sqlite, "game3d-nogl");
    let server = Server::start(&db, 0, &[]);
    let browser = Browser::without_webgl(SIZE.0, SIZE.1);
    browser.open(&format!("http://{}/3d/abcdefgh", server.addr));
    browser.until(
        "why it cannot draw",
        "!document.getElementById('elsewhere').hidden",
    );
    let why = browser.eval("document.getElementById('why').textContent");
    assert!(
        why.as_str().is_some_and(|w| w.contains("WebGL2")),
        "the reason: {why}"
    );
    let link = browser.eval("document.getElementById('flat').getAttribute('href')");
    assert_eq!(
        link.as_str(),
        Some("/play/abcdefgh"),
        "the same game on the 2D page"
    );
}

#[test]
fn the_play_page_opens_its_game_in_3d_from_the_same_seat() {
    let db = Db::new(Backend::Sqlite, "game3d-seat");
    let server = Server::start(&db, 0, &[]);
    let browser = Browser::webgl(SIZE.0, SIZE.1);
    arrive(&browser, &server, "Page player");
    browser.until(
        "the 3D game offered in the header",
        "!document.getElementById('nav-3d').hidden",
    );
    let code = create_as_silver(&browser);
    let mut red = join_as_red(&browser, &server, &code);
    browser.until(
        "this game offered in 3D",
        "!document.getElementById('in-3d').hidden",
    );
    let href = browser.eval("document.getElementById('in-3d-link').getAttribute('href')");
    assert_eq!(href.as_str(), Some(format!("/3d/{code}").as_str()));
    red.until("Silver at the 2D page", |c| {
        c.presence.is_some_and(|(on, _)| on[0])
    });
    // The 2D page closed (its browser ended, its socket with it), then the link followed in a
    // browser holding the same storage: the 3D page takes Silver's seat with the secret the 2D
    // page kept (a spectator would not count as Silver).
    let kept = browser.eval(
        "JSON.stringify(['khet.identity', 'khet.name', 'khet.seats']\
         .map(k => [k, localStorage.getItem(k)]))",
    );
    let kept = kept.as_str().unwrap_or_default().to_string();
    drop(browser);
    red.until("Silver gone with the 2D page", |c| {
        c.presence.is_some_and(|(on, _)| !on[0])
    });
    let browser = Browser::webgl(SIZE.0, SIZE.1);
    browser.open(&format!("http://{}/healthz", server.addr));
    browser.eval(&format!(
        "JSON.parse({kept:?}).forEach(([k, v]) => localStorage.setItem(k, v)), true"
    ));
    browser.open(&format!("http://{}/3d/{code}", server.addr));
    red.until("Silver back, from the 3D page", |c| {
        c.presence.is_some_and(|(on, _)| on[0])
    });
    board_drawn(&browser);
    let dir = shots_dir("KHET_3D_SHOTS", "game3d");
    std::fs::write(dir.join("3d-online-seat.png"), browser.screenshot())
        .expect("the screenshot saved");
    // One player in this browser: the 3D game keeps the 2D page's identity as its own.
    let identity = browser.eval("JSON.parse(localStorage.getItem('khet.identity'))");
    let identity = identity.as_str().unwrap_or_default().to_string();
    let online = browser.eval("localStorage.getItem('khet:/khet/data/online.ron')");
    assert!(
        identity.len() == 32 && online.as_str().is_some_and(|f| f.contains(&identity)),
        "the 3D game's online.ron ({online}) holds the 2D page's identity {identity}"
    );
}

#[test]
fn against_the_computer_by_clicks_frames_come_while_it_thinks_and_a_reload_resumes() {
    let db = Db::new(Backend::Sqlite, "game3d-computer");
    let server = Server::start(&db, 0, &[]);
    let browser = Browser::webgl(SIZE.0, SIZE.1);
    // A player who chose Master for Red, without its opening book, before: the settings file
    // the game keeps in the browser's storage. Master then thinks for seconds on every move,
    // long enough to count frames in.
    browser.open(&format!("http://{}/healthz", server.addr));
    browser.eval(
        "(localStorage.setItem('khet:/khet/config/settings.ron', \
         '(players: (Person, Computer(Master)), computer_book: false)'), true)",
    );
    let asked = Instant::now();
    browser.open(&format!("http://{}/3d/", server.addr));
    board_drawn(&browser);
    eprintln!(
        "figure: the first board {:.1} s after the page was asked for",
        asked.elapsed().as_secs_f64()
    );
    first_start_notices_put_away(&browser);
    // The table begins with a game at the table for two; a new game takes the players chosen.
    press(&browser, "New game");
    press(&browser, "Start");

    count_frames(&browser);
    let mut game = Game::new(Setup::builtin("classic").expect("Classic").position);
    let first = a_step(&game);
    play_by_clicks(&browser, &first.to_string());
    // The piece slides and the beam is drawn: frames as fast as the machine draws them.
    let (fa, ta) = frames_at(&browser);
    std::thread::sleep(Duration::from_secs(1));
    let (fb, tb) = frames_at(&browser);
    let page = browser.eval("`${innerWidth}×${innerHeight}`");
    eprintln!(
        "figure: {:.1} frames a second at Low, a page of {page} (SwiftShader), while a move is shown",
        (fb - fa) * 1000.0 / (tb - ta),
    );
    let (key, saved) = saved_with(&browser, 1);
    let (f1, t1) = frames_at(&browser);
    assert_eq!(saved.positions().len(), 2, "one move saved");
    game.play(first).expect("legal");
    assert!(
        saved.position().same_arrangement(game.position()),
        "the move clicked ({first}) is the move saved"
    );
    // The computer's reply, legal by the native engine (the saved record replays), and the
    // frames drawn while it thought: the page's main thread was free.
    let (_, replied) = saved_with(&browser, 2);
    let (f2, t2) = frames_at(&browser);
    let frames = f2 - f1;
    eprintln!(
        "figure: {frames} frames in the {:.1} s between the move and the computer's reply",
        (t2 - t1) / 1000.0
    );
    assert!(
        frames >= 5.0,
        "frames kept coming while the computer thought: {frames} in {:.1} s",
        (t2 - t1) / 1000.0
    );
    let reply = replied.positions().len() - 1;
    assert_eq!(reply, 2, "one reply");
    let dir = shots_dir("KHET_3D_SHOTS", "game3d");
    std::fs::write(dir.join("3d-computer.png"), browser.screenshot())
        .expect("the screenshot saved");

    // A reload: the game offers the unfinished game, and resumed, it goes on from its moves.
    browser.reload();
    board_drawn(&browser);
    press(&browser, "Resume");
    let mut game = replied;
    let third = a_step(&game);
    play_by_clicks(&browser, &third.to_string());
    game.play(third).expect("legal");
    let (again, resumed) = saved_with(&browser, 3);
    assert_eq!(again, key, "the same game goes on, in the same save");
    assert!(
        resumed.positions()[3].same_arrangement(game.position()),
        "the resumed game holds the two moves before the reload and the one after"
    );
}

#[test]
fn a_game_created_in_3d_is_joined_from_the_play_page_and_moves_cross_both_ways() {
    let db = Db::new(Backend::Sqlite, "game3d-join");
    let server = Server::start(&db, 0, &[]);
    let ann = Browser::webgl(SIZE.0, SIZE.1);
    // Ann played on the 2D page once: her name is in the browser's storage.
    ann.open(&format!("http://{}/healthz", server.addr));
    ann.eval("(localStorage.setItem('khet.name', JSON.stringify('Ann')), true)");
    ann.open(&format!("http://{}/3d/", server.addr));
    board_drawn(&ann);
    first_start_notices_put_away(&ann);
    click_words(&ann, "Online");
    click_words(&ann, "Connect");
    click_button(&ann, "Create");
    shows_words(&ann, "Waiting for your opponent");
    // The game's code, from the seat the 3D page gave the 2D page in the storage.
    ann.until(
        "the new game's seat",
        "Object.keys(JSON.parse(localStorage.getItem('khet.seats') || '{}')).length === 1",
    );
    let code = ann.eval("Object.keys(JSON.parse(localStorage.getItem('khet.seats')))[0]");
    let code = code.as_str().expect("a code").to_string();

    let bea = Browser::start(1280, 900);
    bea.open(&format!("http://{}/play/{code}", server.addr));
    bea.until(
        "the name field",
        "!!document.getElementById('name')?.offsetParent",
    );
    bea.type_into("#name", "Bea");
    bea.click("#name-button");
    bea.until(
        "Bea at Ann's table",
        "document.getElementById('player-bottom').textContent.includes(': Bea')",
    );
    let bottom = bea.eval("document.getElementById('player-bottom').textContent");
    let ann_first = bottom.as_str().is_some_and(|b| b.starts_with("Red"));

    // Moves cross each way: whoever is Silver begins; the third move is made only once the
    // second reached its player.
    let mut game = Game::new(Setup::builtin("classic").expect("Classic").position);
    for ply in 0..3 {
        let mv = a_step(&game);
        let ann_moves = (ply % 2 == 0) == ann_first;
        if ann_moves {
            play_by_clicks(&ann, &mv.to_string());
        } else {
            click_move(&bea, &mv.to_string());
        }
        game.play(mv).expect("legal");
        bea.until(
            &format!(
                "move {} ({mv}, by {})",
                ply + 1,
                if ann_moves { "Ann in 3D" } else { "Bea" }
            ),
            &format!("{MOVES_SHOWN} >= {}", ply + 1),
        );
    }
    // The server's record holds the three moves, in the order played.
    let record = common::replayed(&server, &code);
    assert!(
        record.position().same_arrangement(game.position()) && record.positions().len() == 4,
        "the server's game is the one played across the two pages"
    );
    let dir = shots_dir("KHET_3D_SHOTS", "game3d");
    std::fs::write(dir.join("3d-online-join.png"), ann.screenshot()).expect("the screenshot saved");
}

#[test]
fn the_tutorial_accepts_a_correct_move() {
    let db = Db::new(Backend::Sqlite, "game3d-learn");
    let server = Server::start(&db, 0, &[]);
    let browser = Browser::webgl(SIZE.0, SIZE.1);
    browser.open(&format!("http://{}/3d/", server.addr));
    board_drawn(&browser);
    click_words(&browser, "OK");
    click_words(&browser, "Start the tutorial");
    // Its first step (its title wraps in the panel: the line above it).
    shows_words(&browser, "Tutorial 1 of 9");
    // Its first step: turn the Pyramid on j5 clockwise, so the beam lights the Red Pharaoh.
    play_by_clicks(&browser, "j5+");
    shows_words(&browser, "Solved!");
    let progress = || {
        browser
            .eval("localStorage.getItem('khet:/khet/data/progress.ron') || ''")
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let kept: String = progress().split_whitespace().collect();
    assert!(
        kept.contains("tutorial:[0,"),
        "the step kept as done: {}",
        progress()
    );
}

#[test]
fn a_puzzle_accepts_its_winning_move() {
    let db = Db::new(Backend::Sqlite, "game3d-puzzle");
    let server = Server::start(&db, 0, &[]);
    let browser = Browser::webgl(SIZE.0, SIZE.1);
    browser.open(&format!("http://{}/3d/", server.addr));
    board_drawn(&browser);
    first_start_notices_put_away(&browser);
    // The first puzzle of the shelf, as the Learn screen lists it.
    let book = khet_engine::puzzle::PuzzleBook::from_bytes(
        include_bytes!("../../../assets/puzzles/puzzles.ron"),
        "puzzles.ron",
    )
    .expect("the shipped puzzles");
    let puzzle = &book.puzzles[0];
    click_words(&browser, "Learn");
    // Its entry wraps in the panel after the side to move: its second line, the topmost of
    // those that read so.
    let title = puzzle.name.rsplit(": ").next().unwrap_or(&puzzle.name);
    let wrapped = title.split_once(' ').map_or(title, |(_, rest)| rest);
    // Clicked until the puzzle is open (its heading): a click in the frame that draws the list
    // first may come before egui knows the entry is there.
    let start = Instant::now();
    loop {
        click_words(&browser, wrapped);
        if shows_words_within(&browser, "Puzzle 1 of", Duration::from_secs(6)) {
            break;
        }
        assert!(start.elapsed() < PATIENCE * 2, "the puzzle never opened");
    }
    for mv in puzzle.solution.iter().take(1) {
        play_by_clicks(&browser, mv);
    }
    shows_words(&browser, "Solved!");
    let dir = shots_dir("KHET_3D_SHOTS", "game3d");
    std::fs::write(dir.join("3d-puzzle.png"), browser.screenshot()).expect("the screenshot saved");
    browser.until(
        "the puzzle kept as solved",
        &format!(
            "(localStorage.getItem('khet:/khet/data/progress.ron') || '').includes({:?})",
            puzzle.position
        ),
    );
}

/// The depth of the measured search: about a second natively.
const MEASURED_DEPTH: u32 = 9;

#[test]
fn the_engine_in_the_3d_pages_worker_searches_the_native_tree() {
    let db = Db::new(Backend::Sqlite, "game3d-measure");
    let server = Server::start(&db, 0, &[]);
    let browser = Browser::webgl(SIZE.0, SIZE.1);
    browser.open(&format!("http://{}/3d/", server.addr));
    board_drawn(&browser);
    let position = Setup::builtin("classic").expect("Classic").position;
    let rules = position.rules();
    let job = format!(
        "(position: ((swap_landing: {:?}, no_moves: {:?}), {:?}), depth: {MEASURED_DEPTH})",
        rules.swap_landing,
        rules.no_moves,
        position.to_string()
    );
    // The game's own worker script, as the game starts it, given the job the game would send.
    browser.eval(&format!(
        "(window.khetMeasured = null, (() => {{ \
           const w = new Worker('/3d/think-worker.js', {{ type: 'module' }}); \
           w.onmessage = (e) => {{ window.khetMeasured = e.data; w.terminate(); }}; \
           w.postMessage({{ id: 1, name: 'measure', job: {job:?} }}); }})(), true)"
    ));
    let start = Instant::now();
    while browser.eval("window.khetMeasured !== null") != serde_json::Value::Bool(true) {
        assert!(start.elapsed() < PATIENCE * 5, "the worker never answered");
        std::thread::sleep(Duration::from_millis(200));
    }
    let answer = browser.eval("window.khetMeasured");
    let text = answer["answer"]
        .as_str()
        .unwrap_or_else(|| panic!("the worker's answer: {answer}"));
    let (nodes, micros) = text
        .trim_matches(|c| c == '(' || c == ')')
        .split_once(',')
        .and_then(|(n, t)| Some((n.trim().parse::<u64>().ok()?, t.trim().parse::<u64>().ok()?)))
        .unwrap_or_else(|| panic!("nodes and microseconds: {text}"));
    let native = khet_engine::Searcher::default().search(
        &position,
        khet_engine::Limits::depth(MEASURED_DEPTH),
        |_| {},
    );
    assert_eq!(nodes, native.nodes, "the page searched the native tree");
    eprintln!(
        "figure: the 3D page's worker searched Classic to depth {MEASURED_DEPTH}: {nodes} nodes in \
         {:.2} s, {:.0} nodes/s",
        micros as f64 / 1e6,
        nodes as f64 * 1e6 / micros.max(1) as f64
    );
}

/// The folder `scripts/build-game-web` leaves (as `build.rs` finds it): `KHET_GAME_3D_DIR`, or
/// `web/khet-3d` in the target directory.
fn static_folder() -> std::path::PathBuf {
    if let Some(dir) = std::env::var_os("KHET_GAME_3D_DIR") {
        return dir.into();
    }
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(
            || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
            std::path::PathBuf::from,
        )
        .join("web/khet-3d")
}

#[test]
fn the_static_folder_plays_the_computer_with_no_server() {
    // Any web host: the folder's files as they are, with their types, uncompressed, and nothing
    // else (no /healthz, no /ws, no /play).
    let host = common::static_host::StaticHost::serve(&static_folder());
    let browser = Browser::webgl(SIZE.0, SIZE.1);
    browser.open(&format!("http://{}/icon.png", host.addr));
    browser.eval(
        "(localStorage.setItem('khet:/khet/config/settings.ron', \
         '(players: (Person, Computer(Casual)))'), true)",
    );
    browser.open(&format!("http://{}/", host.addr));
    board_drawn(&browser);
    first_start_notices_put_away(&browser);
    press(&browser, "New game");
    press(&browser, "Start");
    let mut game = Game::new(Setup::builtin("classic").expect("Classic").position);
    let first = a_step(&game);
    play_by_clicks(&browser, &first.to_string());
    game.play(first).expect("legal");
    // The computer's reply came from the page's worker: the record replays in the native engine.
    let (_, replied) = saved_with(&browser, 2);
    assert!(
        replied.positions()[1].same_arrangement(game.position()),
        "the move clicked ({first}) is the first saved"
    );
    let asked: Vec<String> = host.asked();
    assert!(
        asked
            .iter()
            .all(|path| !path.starts_with("/ws") && !path.starts_with("/play")),
        "the game asked the host only for its files: {asked:?}"
    );
    let dir = shots_dir("KHET_3D_SHOTS", "game3d");
    std::fs::write(dir.join("3d-static.png"), browser.screenshot()).expect("the screenshot saved");
}
