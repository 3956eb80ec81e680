//! The Debian package as a player meets it, installed: `.ci/package` builds it with cargo-deb,
//! checks it with Debian's tools, unpacks it into a temporary root and runs these tests with
//! `KHET_PACKAGE_ROOT` set to that root (they are `#[ignore]`d in a plain `cargo test`, which has
//! no package to look at).
//!
//! - The files are where the desktop looks for them: the programs, the entry, every icon size,
//!   the metainfo, the manual pages, the licence; `--version` and `--help` answer, and the help
//!   shows nothing for developers.
//! - The installed game, run from a folder with no `assets/` under Xvfb, is whole: the log says
//!   the models and sounds are the built-in ones and tells of no fallback, the window has the
//!   game's title, class and icon, and its screenshot shows the modelled pieces. The test build
//!   of the package (`KHET_PACKAGE_TOUR=1`) plays the short scripted tour twice, once as
//!   installed and once with `KHET_ASSETS` naming an empty folder (the built-in shapes), and the
//!   two pictures must differ where the pieces stand and agree on the empty squares. The
//!   player's package has no tour: it is run for a while and left.

mod common;

use common::picture::{Image, Sidecar};
use khet::desktop::{APP_ID, TITLE};
use khet_engine::Setup;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The unpacked package.
fn root() -> PathBuf {
    PathBuf::from(
        std::env::var_os("KHET_PACKAGE_ROOT")
            .expect("KHET_PACKAGE_ROOT names the unpacked package (.ci/package sets it)"),
    )
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The value of `key=` in a desktop entry.
fn entry<'a>(text: &'a str, key: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {key} in the desktop entry"))
}

fn png_size(path: &Path) -> (u32, u32) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (reader.info().width, reader.info().height)
}

fn output(program: &Path, arg: &str) -> String {
    let out = Command::new(program)
        .arg(arg)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    assert!(
        out.status.success(),
        "{} {arg}: {}",
        program.display(),
        out.status
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
#[ignore = "needs an unpacked package: .ci/package runs it"]
fn the_installed_files_are_where_the_desktop_looks() {
    let root = root();
    let games = root.join("usr/games");
    let desktop = read(&root.join(format!("usr/share/applications/{APP_ID}.desktop")));
    let exec = entry(&desktop, "Exec");
    assert!(games.join(exec).is_file(), "Exec={exec} is not installed");
    assert_eq!(entry(&desktop, "Icon"), APP_ID);
    assert_eq!(entry(&desktop, "StartupWMClass"), APP_ID);
    let icons = root.join("usr/share/icons/hicolor");
    for size in [16, 24, 32, 48, 64, 128, 256, 512] {
        let png = icons.join(format!("{size}x{size}/apps/{APP_ID}.png"));
        assert_eq!(png_size(&png), (size, size), "{}", png.display());
    }
    assert!(read(&icons.join(format!("scalable/apps/{APP_ID}.svg"))).contains("<svg"));
    let metainfo = read(&root.join(format!("usr/share/metainfo/{APP_ID}.metainfo.xml")));
    assert!(metainfo.contains(&format!("<id>{APP_ID}</id>")));
    assert!(metainfo.contains(&format!(
        "<launchable type=\"desktop-id\">{APP_ID}.desktop</launchable>"
    )));
    for page in ["khet.6.gz", "khet-engine.6.gz"] {
        assert!(
            root.join("usr/share/man/man6").join(page).is_file(),
            "{page}"
        );
    }
    assert!(read(&root.join("usr/share/doc/khet/copyright")).contains("License: MIT"));

    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        output(&games.join("khet"), "--version").trim(),
        format!("khet {version}")
    );
    let help = output(&games.join("khet"), "--help");
    assert!(
        help.contains("Files:") && help.contains("settings.ron"),
        "{help}"
    );
    for dev_only in ["autoplay", "bench"] {
        assert!(
            !help.contains(dev_only),
            "the player's help shows {dev_only}"
        );
    }
    assert!(output(&games.join("khet-engine"), "--version").contains(version));
}

/// One run of the installed game under Xvfb from an empty folder: its log, what `xprop` said of
/// its window, and the tour's screenshots (if it has the tour).
struct Run {
    log: String,
    window: String,
    shots: PathBuf,
}

/// Starts the game in `dir`, waits for its window (at most 120 s), asks `xprop` about it (until
/// its icon is there, at most 120 s more), then
/// waits for the tour to end or, without one, for the game to say where its models and sounds
/// come from (at most 120 s more), and stops it.
fn run_installed(dir: &Path, tour: bool, assets: Option<&Path>) -> Run {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let shots = dir.join("shots");
    let game = root().join("usr/games/khet");
    let script = r#"
        "$0" "$@" > game.log 2>&1 &
        pid=$!
        for _ in $(seq 240); do
            w=$(xwininfo -root -tree | grep -F "$KHET_TITLE" | awk '{print $1}' | head -n 1)
            [ -n "$w" ] && break
            sleep 0.5
        done
        # The icon is set in the game's first frame after the window appears: asked again
        # until it is there (at most 120 s), so that a quick look does not miss it.
        for _ in $(seq 240); do
            [ -n "$w" ] || break
            xprop -id "$w" WM_CLASS _NET_WM_NAME _NET_WM_ICON | cut -c 1-200 | head -n 4 > window.txt
            grep -q "Icon (" window.txt && break
            sleep 0.5
        done
        if [ "$KHET_RUN_TOUR" = 1 ]; then wait $pid; exit; fi
        # Without the tour: until the game has said where its models and sounds come from.
        for _ in $(seq 240); do
            grep -q "models: " game.log && grep -q "sounds: " game.log && break
            kill -0 $pid 2>/dev/null || break
            sleep 0.5
        done
        kill $pid; wait $pid 2>/dev/null; true
    "#;
    let mut cmd = Command::new("timeout");
    cmd.args([
        "600",
        "xvfb-run",
        "-a",
        "-s",
        "-screen 0 1280x800x24",
        "sh",
        "-c",
    ])
    .arg(script)
    .arg(&game)
    .current_dir(dir)
    .env("KHET_TITLE", TITLE)
    .env("KHET_CONFIG", dir.join("config"))
    .env("KHET_DATA", dir.join("data"))
    .env_remove("KHET_ASSETS")
    .env_remove("BEVY_ASSET_ROOT")
    .env_remove("CARGO_MANIFEST_DIR");
    if tour {
        cmd.arg("--autoplay")
            .arg(&shots)
            .env("KHET_RUN_TOUR", "1")
            .env("KHET_AUTOPLAY_SHORT", "1")
            .env("KHET_AUTOPLAY_QUALITY", "low");
    }
    if let Some(a) = assets {
        cmd.env("KHET_ASSETS", a);
    }
    let status = cmd.status().expect("timeout, xvfb-run and sh run");
    assert!(
        status.success(),
        "the installed game's run failed: {status}"
    );
    Run {
        log: read(&dir.join("game.log")),
        window: std::fs::read_to_string(dir.join("window.txt")).unwrap_or_default(),
        shots,
    }
}

/// The lines of a log that tell of a fallback.
fn fallbacks(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| l.contains("Model file") || l.contains("Sound file"))
        .collect()
}

#[test]
#[ignore = "needs an unpacked package: .ci/package runs it"]
fn the_installed_game_is_whole_without_an_assets_folder() {
    let tour = std::env::var_os("KHET_PACKAGE_TOUR").is_some_and(|t| !t.is_empty());
    let base = std::env::temp_dir().join(format!("khet-package-{}", std::process::id()));
    let run = run_installed(&base.join("installed"), tour, None);

    assert!(
        run.log
            .contains("models: built-in assets/models/pieces.glb")
            && run.log.contains("sounds: built-in assets/sounds/"),
        "the models and sounds are not the built-in ones:\n{}",
        run.log
    );
    assert_eq!(fallbacks(&run.log), Vec::<&str>::new(), "a fallback");
    assert!(!run.log.contains("panicked"), "{}", run.log);
    assert!(
        run.window.contains(&format!("\"{APP_ID}\"")),
        "the window's class: {}",
        run.window
    );
    assert!(
        run.window.contains(TITLE),
        "the window's title: {}",
        run.window
    );
    assert!(
        run.window.contains("Icon (128 x 128)"),
        "the window's icon: {}",
        run.window
    );
    if !tour {
        return;
    }

    // The same tour with the built-in shapes: an empty folder in place of the assets.
    let empty = base.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let shapes = run_installed(&base.join("shapes"), true, Some(&empty));
    assert!(
        !fallbacks(&shapes.log).is_empty(),
        "without the files the game must fall back and say so"
    );

    let modelled = Image::load(&run.shots.join("01-initial.png"));
    let built_in = Image::load(&shapes.shots.join("01-initial.png"));
    let side = Sidecar::load(&run.shots.join("01-initial.txt"));
    // How different the two pictures are around a point: the mean over a 21 × 21 window of
    // each pixel's largest channel difference.
    let difference = |(x, y): (f32, f32)| {
        let (x, y) = (x.round() as i64, y.round() as i64);
        let mut sum = 0u64;
        for dy in -10..=10 {
            for dx in -10..=10 {
                let (a, b) = (modelled.at(x + dx, y + dy), built_in.at(x + dx, y + dy));
                if let (Some(a), Some(b)) = (a, b) {
                    sum += (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap_or(0) as u64;
                }
            }
        }
        sum as f64 / 441.0
    };
    let classic = Setup::builtin("khet2/classic").expect("Classic").position;
    let (mut pieces, mut empties) = (Vec::new(), Vec::new());
    for sq in khet_engine::Square::ALL {
        let d = difference(side.square[&sq.to_string()]);
        let named = (sq.to_string(), (d * 10.0).round() / 10.0);
        if classic.piece_at(sq).is_some() {
            pieces.push(named);
        } else {
            empties.push(named);
        }
    }
    let changed = pieces.iter().filter(|(_, d)| *d > 8.0).count();
    let same = empties.iter().filter(|(_, d)| *d < 3.0).count();
    eprintln!("pieces (square, difference): {pieces:?}");
    eprintln!("empty squares: {empties:?}");
    assert!(
        changed * 4 >= pieces.len() * 3,
        "the modelled pieces do not show: {changed} of {} pieces differ from the built-in shapes",
        pieces.len()
    );
    // The back rank's empty squares are small in the picture and their pieces' tops overlap
    // them: most, not all, agree.
    assert!(
        same * 10 >= empties.len() * 8,
        "the pictures differ away from the pieces: {same} of {} empty squares agree",
        empties.len()
    );
    let _ = std::fs::remove_dir_all(&base);
}
