//! Online play in the real window under Xvfb: a real server in this process, two bots opening
//! games, and the game's scripted online tour (`khet --online-tour`). The pictures must show what
//! a player sees:
//! - the lobby's two games listed on the Online screen;
//! - a game in progress with both clocks;
//! - the opponent-gone notice over the board when Bea's connection drops.
//!
//! Needs what `tests/e2e.rs` needs (`xvfb-run`, Mesa's Vulkan); `KHET_SKIP_E2E=1` skips it.

mod common;

use common::picture::Image;
use std::process::Command;

/// Pixels of `a` and `b` within `rect` (x0, y0, x1, y1) that differ by more than 60 in sum.
fn changed(a: &Image, b: &Image, rect: (usize, usize, usize, usize)) -> usize {
    let (x0, y0, x1, y1) = rect;
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

/// Light pixels (text, lines) within `rect`.
fn light(img: &Image, rect: (usize, usize, usize, usize)) -> usize {
    let (x0, y0, x1, y1) = rect;
    (y0..y1.min(img.height))
        .flat_map(|y| (x0..x1.min(img.width)).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            img.rgb[y * img.width + x]
                .iter()
                .map(|&c| u32::from(c))
                .sum::<u32>()
                > 450
        })
        .count()
}

#[test]
fn the_real_window_plays_online() {
    if std::env::var_os("KHET_SKIP_E2E").is_some() {
        eprintln!("skipped: KHET_SKIP_E2E is set");
        return;
    }
    let dir = std::env::temp_dir().join(format!("khet-e2e-online-{}", std::process::id()));
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
            khet_server::Settings::default(),
            std::future::pending(),
        )
        .await
        .unwrap();
    });
    let shots = dir.join("shots");
    let status = Command::new("timeout")
        .args(["600", "xvfb-run", "-a", "-s", "-screen 0 1280x800x24"])
        .arg(env!("CARGO_BIN_EXE_khet"))
        .env("KHET_AUTOPLAY_QUALITY", "low")
        // Settings, identity and seats of its own, as on a new machine: the run neither reads
        // nor overwrites the developer's.
        .env("KHET_CONFIG", dir.join("config"))
        .env("KHET_DATA", dir.join("data"))
        .arg("--online-tour")
        .arg(&shots)
        .args(["--server", &url])
        .status()
        .expect("timeout and xvfb-run run");
    assert!(status.success(), "the online tour failed: {status}");

    let lobby = Image::load(&shots.join("online-lobby.png"));
    let game = Image::load(&shots.join("online-game.png"));
    let gone = Image::load(&shots.join("online-gone.png"));
    assert_eq!((lobby.width, lobby.height), (1280, 800));
    // The Online screen's side panel is full of text (the forms, the lobby's rows); at the
    // table the same strip is the game panel, another picture.
    let panel = (0, 0, 300, 800);
    assert!(
        light(&lobby, panel) > 3000,
        "the Online screen's panel is nearly empty"
    );
    assert!(
        changed(&lobby, &game, panel) > 3000,
        "the table's panel looks like the Online screen"
    );
    // The opponent-gone notice appears over the board, top right below the clocks, where the
    // game picture had the board; elsewhere on the board little changes.
    let notice = (900, 60, 1280, 240);
    let appeared = changed(&game, &gone, notice);
    assert!(
        appeared > 4000,
        "no notice appeared at the top ({appeared} pixels changed)"
    );
    // A window of egui's neutral dark grey where the board and the bluish-black background
    // were, with grey text in it (neither the board nor the background is grey).
    let dark = |p: [u8; 3]| {
        let lo = p.iter().min().copied().unwrap_or(0);
        let hi = p.iter().max().copied().unwrap_or(0);
        lo >= 20 && hi <= 50 && hi - lo <= 2
    };
    let grey_text = |p: [u8; 3]| {
        let lo = p.iter().min().copied().unwrap_or(0);
        let hi = p.iter().max().copied().unwrap_or(0);
        lo >= 100 && hi - lo <= 4
    };
    let count = |img: &Image, test: &dyn Fn([u8; 3]) -> bool| {
        let (x0, y0, x1, y1) = notice;
        (y0..y1)
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .filter(|&(x, y)| test(img.rgb[y * img.width + x]))
            .count()
    };
    let darker = count(&gone, &dark).saturating_sub(count(&game, &dark));
    assert!(
        darker > 10_000,
        "no dark window over the board ({darker} more dark pixels)"
    );
    let text = count(&gone, &grey_text).saturating_sub(count(&game, &grey_text));
    assert!(
        text > 300,
        "the notice has no text ({text} more grey pixels)"
    );
    // The "Online game" window at the top left stays whole: the notice does not cover it.
    let players = (310, 10, 650, 105);
    let covered = changed(&game, &gone, players);
    assert!(
        covered < 50,
        "the notice covers the Online game window ({covered} pixels changed)"
    );
    let board_low = (440, 450, 1100, 780);
    let elsewhere = changed(&game, &gone, board_low);
    assert!(
        elsewhere < appeared / 4,
        "the whole picture changed ({elsewhere})"
    );
    runtime.shutdown_background();
    if std::env::var_os("KHET_KEEP_E2E").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
