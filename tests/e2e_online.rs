//! Online play in the real window under Xvfb: a real server in this process, two bots opening
//! games, and the game's scripted online tour (`khet --online-tour`, `src/dev/online_tour.rs`).
//! Each picture's check reads what a player reads there, from the pixels (Tesseract), and looks
//! where it must appear:
//! - the lobby: the Online screen's panel lists both bots' games;
//! - a game in progress: the "Online game" window names both players, both clocks are shown at
//!   the top;
//! - the opponent gone: a notice at the top right names Bea and the claim, over the board, and
//!   covers neither the players' window nor the rest of the board.
//!
//! A second run with every drawn part left out (`KHET_BROKEN=all`) must fail every check. These
//! pictures have no reference frames: the lobby's order, the bots' timing and the countdown
//! change from run to run, and the checks above say what must be there.
//!
//! Needs what `tests/e2e.rs` needs (`xvfb-run`, Mesa's Vulkan, Tesseract); `KHET_SKIP_E2E=1`
//! skips it with `cargo test`.

mod common;

use common::picture::{Image, Rect, read_text, read_text_scaled};
use common::tour::{say, says};
use std::path::PathBuf;
use std::sync::Mutex;

/// One window at a time: the two tests of this file each run the game under Xvfb.
static WINDOW: Mutex<()> = Mutex::new(());

/// Pixels of `a` and `b` within `rect` that differ by more than 60 in sum.
fn changed(a: &Image, b: &Image, (x0, y0, x1, y1): Rect) -> usize {
    let mut n = 0;
    for y in y0..y1.min(a.height) {
        for x in x0..x1.min(a.width) {
            let (p, q) = (a.rgb[y * a.width + x], b.rgb[y * b.width + x]);
            let d: i32 = (0..3)
                .map(|i| (i32::from(p[i]) - i32::from(q[i])).abs())
                .sum();
            if d > 60 {
                n += 1;
            }
        }
    }
    n
}

/// Runs the online tour against a server of this process, with `KHET_BROKEN` set to `broken`
/// if given; the folder of its pictures.
fn online_tour(name: &str, broken: Option<&str>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{:07}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    let data = dir.join("server");
    runtime.spawn(async move {
        let store = khet_server::store::Store::open_folder(&data).await.unwrap();
        let listener = tokio::net::TcpListener::from_std(listener).unwrap();
        khet_server::serve(
            listener,
            store,
            // The tour's bots are new identities that offer a rated game at once.
            khet_server::Settings {
                identity: khet_server::identity::IdentityPolicy {
                    games_before_rated: 0,
                    ..khet_server::identity::IdentityPolicy::default()
                },
                ..khet_server::Settings::default()
            },
            std::future::pending(),
        )
        .await
        .unwrap();
    });
    let shots = dir.join("shots");
    let mut cmd = common::tour::game_in_window(&dir, broken);
    cmd.arg("--online-tour")
        .arg(&shots)
        .args(["--server", &url]);
    let status = cmd.status().expect("timeout and xvfb-run run");
    assert!(status.success(), "the online tour failed: {status}");
    runtime.shutdown_background();
    dir
}

struct Shots {
    dir: PathBuf,
}

impl Shots {
    fn img(&self, name: &str) -> Image {
        Image::load(&self.dir.join("shots").join(format!("{name}.png")))
    }
}

fn want_text(f: &mut Vec<String>, text: &str, phrase: &str, where_: &str) {
    if !says(text, phrase) {
        f.push(format!("{where_} does not say {phrase:?}; read: {text:?}"));
    }
}

/// The Online screen's panel lists both bots' games, each with its creator, clock and kind.
fn lobby(s: &Shots) -> Vec<String> {
    let mut f = Vec::new();
    let text = read_text(&s.img("online-lobby"), (0, 0, 330, 770));
    for phrase in [
        "Open games",
        "Bea (",
        "Cy (",
        "5+3, rated",
        "3+2, casual",
        "Accept",
    ] {
        want_text(&mut f, &text, phrase, "the Online screen's panel");
    }
    f
}

/// The players' window at the top left names both, and both clocks are shown at the top (two
/// times, `M:SS`, read from the pixels; one picture cannot show them running).
fn game(s: &Shots) -> Vec<String> {
    let mut f = Vec::new();
    let img = s.img("online-game");
    let players = read_text(&img, (300, 0, 700, 120));
    want_text(&mut f, &players, "Silver: Ada", "the players' window");
    want_text(&mut f, &players, "Red: Bea", "the players' window");
    let clocks = read_text_scaled(&img, (700, 0, 1280, 60), 4);
    let times = clocks
        .split(|c: char| !(c.is_ascii_digit() || c == ':'))
        .filter(|t| t.len() >= 4 && t.contains(':'))
        .count();
    if times < 2 {
        f.push(format!("no two clocks at the top; read: {clocks:?}"));
    }
    f
}

/// The notice at the top right, where the game's picture had the board, names Bea and the claim;
/// the players' window and the rest of the board stay as they were.
fn gone(s: &Shots) -> Vec<String> {
    let mut f = Vec::new();
    let (game, gone) = (s.img("online-game"), s.img("online-gone"));
    let notice: Rect = (880, 50, 1280, 260);
    let text = read_text(&gone, notice);
    for phrase in [
        "Opponent gone",
        "Bea left the game",
        "you may claim the game",
    ] {
        want_text(&mut f, &text, phrase, "the top right of the board");
    }
    let appeared = changed(&game, &gone, notice);
    if appeared <= 4000 {
        f.push(format!(
            "no notice appeared at the top right ({appeared} pixels changed)"
        ));
    }
    let covered = changed(&game, &gone, (310, 10, 650, 105));
    if covered >= 50 {
        f.push(format!(
            "the notice covers the Online game window ({covered} pixels changed)"
        ));
    }
    let elsewhere = changed(&game, &gone, (440, 450, 1100, 780));
    if elsewhere * 4 >= appeared {
        f.push(format!(
            "the whole picture changed ({elsewhere} pixels low on the board)"
        ));
    }
    f
}

type Check = fn(&Shots) -> Vec<String>;

/// The online tour's pictures and their checks.
const PICTURES: &[(&str, Check)] = &[
    ("online-lobby", lobby),
    ("online-game", game),
    ("online-gone", gone),
];

/// The tour's run of `name` with `broken` parts left out, one window at a time; none when
/// `KHET_SKIP_E2E` is set.
fn run(name: &str, broken: Option<&str>) -> Option<Shots> {
    if std::env::var_os("KHET_SKIP_E2E").is_some() {
        eprintln!("skipped: KHET_SKIP_E2E is set");
        return None;
    }
    let _window = WINDOW
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    Some(Shots {
        dir: online_tour(name, broken),
    })
}

#[test]
fn the_real_window_plays_online_and_shows_the_lobby_the_game_and_the_opponent_gone() {
    let Some(shots) = run("khet-e2e-online", None) else {
        return;
    };
    let mut failures = Vec::new();
    for (name, check) in PICTURES {
        let img = shots.img(name);
        if (img.width, img.height) != (1280, 800) {
            failures.push(format!("{name}: {} × {}", img.width, img.height));
        }
        if let Some(why) = img.undrawn() {
            failures.push(format!("{name}: {why}"));
        }
        failures.extend(
            check(&shots)
                .into_iter()
                .map(|why| format!("{name}: {why}")),
        );
    }
    assert!(
        failures.is_empty(),
        "{} failures (pictures in {}):\n{}",
        failures.len(),
        shots.dir.display(),
        failures.join("\n")
    );
    if std::env::var_os("KHET_KEEP_E2E").is_none() {
        let _ = std::fs::remove_dir_all(&shots.dir);
    }
}

#[test]
fn with_its_drawn_parts_left_out_the_online_tour_fails_every_picture_check() {
    let Some(shots) = run("khet-e2e-online-broken", Some("all")) else {
        return;
    };
    let mut passed = Vec::new();
    for (name, check) in PICTURES {
        match check(&shots).first() {
            Some(why) => say(&format!("e2e online, broken: {name}: {why}")),
            None => passed.push(*name),
        }
    }
    say(&format!(
        "e2e online, broken: {} of {} picture checks failed",
        PICTURES.len() - passed.len(),
        PICTURES.len()
    ));
    assert!(
        passed.is_empty(),
        "checks that pass with the drawn parts left out: {passed:?}"
    );
    let _ = std::fs::remove_dir_all(&shots.dir);
}
