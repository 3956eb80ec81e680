//! The 3D game in a browser (`/3d`), as a player meets it: Debian's Chromium, headless, drawing
//! WebGL2 on the CPU (`SwiftShader`), against a real `khet-server` built with the `game-3d` feature,
//! which carries the game `scripts/build-game-web` built.
//!
//! Built only with that feature (`required-features` in Cargo.toml), as `.ci/web3d` builds it:
//! the game for the browser is a second cold build of Bevy, too long for every CI run.
//! `KHET_3D_SHOTS=DIR` keeps the screenshots there (else in the target's temporary folder).

mod common;

use common::browser::{Browser, Picture};
use common::{Backend, Db, PATIENCE, Server, arrive, create_as_silver, join_as_red, shots_dir};
use std::time::{Duration, Instant};

/// The page's size: the window test's aspect, small enough for `SwiftShader`.
const SIZE: (u32, u32) = (1280, 720);

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

#[test]
fn the_3d_page_draws_the_board() {
    let db = Db::new(Backend::Sqlite, "game3d-board");
    let server = Server::start(&db, 0, &[]);
    let browser = Browser::webgl(SIZE.0, SIZE.1);
    browser.open(&format!("http://{}/3d/", server.addr));
    let shot = board_drawn(&browser);
    let dir = shots_dir("KHET_3D_SHOTS", "game3d");
    std::fs::write(dir.join("3d-board.png"), browser.screenshot()).expect("the screenshot saved");
    assert!(
        shot.width >= 1000,
        "the page fills the window: {} wide",
        shot.width
    );
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
