//! The watch page in a real browser: headless Chromium opens the lobby page and a game's watch
//! page while two players play it through a real server, and the test reads what the page shows
//! (its DOM and its pixels): the game listed, the pieces, each move, each shot's beam, the
//! clocks and the result. The screenshots are kept in `$CARGO_TARGET_TMPDIR/watch` (the
//! pictures of `docs/server.md` come from there).

mod common;

use common::browser::{Browser, Picture};
use common::{Backend, Client, Db, Server, pair, pharaoh_line};
use khet_protocol::{ClockSpec, NewGame, SeatChoice};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Instant;

fn shots_dir() -> PathBuf {
    common::shots_dir("KHET_WATCH_SHOTS", "watch")
}

fn count(browser: &Browser, selector: &str) -> u64 {
    browser
        .eval(&format!("document.querySelectorAll('{selector}').length"))
        .as_u64()
        .expect("a count")
}

/// The moves as the page lists them, in order.
fn page_moves(browser: &Browser) -> Vec<String> {
    let text = browser
        .eval("[...document.querySelectorAll('#moves li')].map(li => li.textContent).join('  ')");
    text.as_str()
        .expect("text")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// The pixels the beam itself puts on screen: the page shot with the beam, and again with the
/// beam's layer hidden; the pixels that differ inside the board, and how many of them are red.
fn beam_pixels(browser: &Browser) -> (usize, usize, Picture) {
    // The beam grows along its path (a CSS animation for each segment): wait until every
    // segment has finished growing.
    browser.until(
        "the beam grown to its end",
        "document.getAnimations().filter(a => a.animationName === 'beam')\
         .every(a => a.playState === 'finished')",
    );
    let with = Picture::from_png(&browser.screenshot());
    browser.eval("(document.querySelector('.beam').style.visibility = 'hidden', true)");
    let without = Picture::from_png(&browser.screenshot());
    browser.eval("(document.querySelector('.beam').style.visibility = '', true)");
    let rect = browser.eval(
        "(() => { const r = document.getElementById('board').getBoundingClientRect(); \
         return [r.x, r.y, r.width, r.height].map(Math.round); })()",
    );
    let r: Vec<u32> = rect
        .as_array()
        .expect("a rectangle")
        .iter()
        .map(|v| v.as_u64().unwrap_or(0) as u32)
        .collect();
    let (mut differ, mut red) = (0, 0);
    for y in r[1]..(r[1] + r[3]).min(with.height) {
        for x in r[0]..(r[0] + r[2]).min(with.width) {
            let i = ((y * with.width + x) * 4) as usize;
            let (a, b) = (&with.rgba[i..i + 3], &without.rgba[i..i + 3]);
            if a != b {
                differ += 1;
                if a[0] > 200 && i32::from(a[0]) - i32::from(a[1]) > 60 {
                    red += 1;
                }
            }
        }
    }
    (differ, red, with)
}

#[test]
fn a_browser_watches_a_game_live_moves_beams_clocks_and_result() {
    let db = Db::new(Backend::Sqlite, "browser");
    let server = Server::start(&db, 0, &[]);
    let http = server.url.replace("ws://", "http://");
    let new = NewGame {
        setup: "classic".into(),
        clock: Some(ClockSpec::minutes(10, 5)),
        color: SeatChoice::Silver,
        rated: false,
        // Listed: the lobby page shows only what is public.
        listed: true,
        days_per_move: None,
    };
    let (mut silver, mut red, code): (Client, Client, String) = pair(&server.url, new);
    let paired = Instant::now();
    let shots = shots_dir();
    let browser = Browser::start(1280, 900);

    // The lobby lists the game with its players, linked to its watch page.
    browser.open(&format!("{http}/"));
    browser.until(
        "the game in the lobby",
        &format!(
            "[...document.querySelectorAll('#playing a')].some(a => a.textContent === '{code}' \
             && a.getAttribute('href') === '/watch/{code}')"
        ),
    );
    let row = browser.eval("document.querySelector('#playing tbody tr').textContent");
    assert!(
        row.as_str()
            .is_some_and(|r| r.contains("Silver player") && r.contains("Red player")),
        "{row}"
    );
    std::fs::write(shots.join("lobby.png"), browser.screenshot()).unwrap();

    // The watch page: every piece of the setup, both players, both clocks, no beam yet.
    browser.open(&format!("{http}/watch/{code}"));
    let pieces = silver.mirror().game.position().pieces().count() as u64;
    browser.until(
        "the setup's pieces",
        &format!("document.querySelectorAll('.pieces .piece').length === {pieces}"),
    );
    assert_eq!(
        count(&browser, ".beam line"),
        0,
        "no shot before the first move"
    );
    let names = browser.eval("document.getElementById('name-silver').textContent + '|' + document.getElementById('name-red').textContent");
    assert_eq!(names, Value::from("Silver: Silver player|Red: Red player"));
    // Silver's clock runs from the pairing and the page counts it down, so on a loaded machine
    // it may already show 9:5x; Red's stands still at its full ten minutes.
    let clock = |side: &str| {
        let text = browser.eval(&format!(
            "document.getElementById('clock-{side}').textContent"
        ));
        let text = text.as_str().unwrap_or_default().to_owned();
        let (m, s) = text.split_once(':').unwrap_or(("", ""));
        let seconds = m.parse::<u64>().ok().zip(s.parse::<u64>().ok());
        (text.clone(), seconds.map(|(m, s)| m * 60 + s))
    };
    // Silver's clock has counted down from 10:00 by no more than the time since the pairing
    // (and a second for the display's rounding), however long that was.
    let (text, silver_left) = clock("silver");
    let since_pairing = paired.elapsed().as_secs();
    assert!(
        silver_left.is_some_and(|s| s <= 600 && s + since_pairing + 1 >= 600),
        "Silver's clock counts down from 10:00 ({since_pairing} s since the pairing): {text}"
    );
    assert_eq!(clock("red").0, "10:00");
    assert_eq!(count(&browser, "#clock-silver.running"), 1);
    assert_eq!(count(&browser, "#clock-red.running"), 0);
    browser.until(
        "Silver's clock counting down",
        "document.getElementById('clock-silver').textContent !== '10:00'",
    );
    let (differ, _, _) = beam_pixels(&browser);
    assert_eq!(differ, 0, "nothing is drawn where no beam is");

    let line = pharaoh_line();
    let mut beam_checked = false;
    for (i, mv) in line.iter().enumerate() {
        let (mover, other) = if i % 2 == 0 {
            (&mut silver, &mut red)
        } else {
            (&mut red, &mut silver)
        };
        mover.play(mv);
        other.until("the opponent's move", |c| c.plies() > i);
        browser.until(
            &format!("move {} ({mv})", i + 1),
            &format!(
                "document.querySelectorAll('#moves li').length === {}",
                i / 2 + 1
            ),
        );
        browser.until(
            "the position after it",
            &format!(
                "document.querySelectorAll('.pieces .piece').length === {}",
                silver.mirror().game.position().pieces().count()
            ),
        );
        assert!(
            count(&browser, ".beam .shot line") > 0,
            "move {}: a beam",
            i + 1
        );
        let hits = silver.mirror().game.last_turn().unwrap().shot.hits.len();
        // The first shot that hits a piece, and the game's end, are looked at in pixels.
        if hits > 0 && !beam_checked && i + 1 < line.len() {
            let (differ, reddish, picture) = beam_pixels(&browser);
            assert!(
                differ > 2000,
                "the beam covers the board's pixels: {differ}"
            );
            assert!(
                reddish * 3 > differ,
                "the beam is red: {reddish} of {differ}"
            );
            assert_eq!(count(&browser, ".beam .piece.hit"), hits as u64);
            let mut png = Vec::new();
            {
                let mut encoder = png::Encoder::new(&mut png, picture.width, picture.height);
                encoder.set_color(png::ColorType::Rgba);
                let mut writer = encoder.write_header().unwrap();
                writer.write_image_data(&picture.rgba).unwrap();
            }
            std::fs::write(shots.join("game.png"), png).unwrap();
            beam_checked = true;
        }
    }
    assert!(beam_checked, "a shot hit a piece before the end");
    assert_eq!(page_moves(&browser), silver.mirror().view.moves);

    // The end: the result in words, the clocks stopped, the lit Pharaoh in the beam's layer.
    let result = silver.wait_result().to_string();
    browser.until(
        "the result",
        &format!(
            "!document.getElementById('result').hidden && \
             document.getElementById('result').textContent === {}",
            Value::from(result.clone())
        ),
    );
    assert_eq!(count(&browser, ".beam .piece.pharaoh_lit"), 1);
    assert_eq!(count(&browser, ".clock.running"), 0, "the clocks stop");
    // The lit Pharaoh glows gold in the beam's layer too: the red is counted on its own.
    let (differ, reddish, _) = beam_pixels(&browser);
    assert!(
        differ > 2000 && reddish > 1000,
        "the last beam: {reddish} of {differ}"
    );
    std::fs::write(shots.join("end.png"), browser.screenshot()).unwrap();

    // A code that is no game is said so, not shown as an empty board.
    browser.open(&format!("{http}/watch/zzzzzzzz"));
    browser.until(
        "the refusal",
        "document.getElementById('status').textContent.includes('no game')",
    );
}

/// Names made of markup, quotes, a right-to-left letter and emoji are shown as the text they
/// are on the lobby and the watch page: no element is made from a name, and no script in one
/// runs (issue 53). (A right-to-left override is refused at the hello since issue 61.)
#[test]
fn names_with_markup_are_shown_as_text_and_run_nothing() {
    let db = Db::new(Backend::Sqlite, "markup");
    let server = Server::start(&db, 0, &[]);
    let http = server.url.replace("ws://", "http://");
    // Each at most 24 characters, as a name may be.
    let evil = "<img src=x onerror=p()>";
    let odd = "\"Q'&\u{5d0}🐍</td>";
    let mut silver = Client::connect(&server.url, evil);
    let code = silver.create(NewGame {
        setup: "classic".into(),
        clock: None,
        color: SeatChoice::Silver,
        rated: false,
        listed: true,
        days_per_move: None,
    });
    let mut red = Client::connect(&server.url, odd);
    red.join(&code);
    silver.until("the start", |c| {
        c.mirror().view.status == khet_protocol::Status::Playing
    });
    let browser = Browser::start(1280, 900);
    // A trap the markup would spring: `p()` marks the page.
    let trap = "(window.p = () => { document.body.dataset.pwned = '1'; }, true)";
    let safe = |where_: &str| {
        assert_eq!(
            browser.eval("document.body.dataset.pwned === undefined"),
            Value::Bool(true),
            "a script in a name ran on {where_}"
        );
        assert_eq!(
            count(&browser, "img"),
            0,
            "an element made from a name on {where_}"
        );
        let text = browser.eval("document.body.textContent");
        let text = text.as_str().unwrap_or_default();
        assert!(
            text.contains(evil) && text.contains(odd),
            "the names as text on {where_}: {text}"
        );
    };
    browser.open(&format!("{http}/"));
    browser.eval(trap);
    browser.until(
        "the game in the lobby",
        &format!("document.body.textContent.includes('{code}')"),
    );
    safe("the lobby");
    browser.open(&format!("{http}/watch/{code}"));
    browser.eval(trap);
    browser.until(
        "the players' names",
        "document.getElementById('name-red').textContent.length > 5",
    );
    safe("the watch page");
    drop((silver, red));
}
