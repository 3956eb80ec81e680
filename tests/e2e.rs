//! The real game window under Xvfb with Mesa's software Vulkan: a scripted opening (the game's
//! `--autoplay` mode) saves screenshots, and this test checks what a player would see in them:
//! a board that is drawn, a selected piece with its highlights, the beam along the engine's path
//! mid-flight, the game-over window with the lit Pharaoh; then the replay with its evaluation
//! bar, the saved games with a damaged file, the settings, a game with clocks, the laser
//! preview, a tutorial step, a puzzle's hint, the editor's problems and fairness report, and a
//! piece breaking. Each is judged on screen, where it must appear, against a picture taken
//! without it (the same view before it appeared, or the start); the notes beside the pictures
//! say only where the squares are and what the script did.
//!
//! Needs `xvfb-run` and `mesa-vulkan-drivers` (`.ci/run` installs them). Set `KHET_SKIP_E2E=1`
//! to skip it on a machine without them; it fails, rather than passes silently, otherwise.

mod common;

use common::picture::{Image, Sidecar};
use std::path::PathBuf;
use std::process::Command;

/// A lit Pharaoh glows white-hot over most of its square: at least this many of the 625 pixels
/// within 12 of its centre (a highlight on polished metal covers a few dozen at most).
const GLOWING: usize = 200;

fn beam_colored(p: [u8; 3]) -> bool {
    p[0] >= 200 && p[0] as i32 - p[1] as i32 >= 50 && p[0] as i32 - p[2] as i32 >= 50
}

/// Every check's failure, reported together at the end: one run of the slow window judges all
/// of its pictures.
#[derive(Default)]
struct Checks(Vec<String>);

impl Checks {
    fn check(&mut self, ok: bool, failure: impl FnOnce() -> String) {
        if !ok {
            self.0.push(failure());
        }
    }
}

/// Of six empty squares' tiles, how many show the board (lit), not the background.
fn lit_tiles(img: &Image, side: &Sidecar) -> usize {
    ["d3", "e3", "f6", "g7", "b2", "e6"]
        .iter()
        .filter(|sq| {
            img.any_near(side.tile[**sq], 3, |p| {
                p.iter().map(|&c| c as u32).sum::<u32>() > 300
            })
        })
        .count()
}

/// The board's part of the picture: the squares' box, with a margin for the pieces.
fn board_box(side: &Sidecar) -> (std::ops::Range<i64>, std::ops::Range<i64>) {
    let xs = side.tile.values().map(|t| t.0 as i64);
    let ys = side.tile.values().map(|t| t.1 as i64);
    let (x0, x1) = (xs.clone().min().unwrap_or(0), xs.max().unwrap_or(0));
    let (y0, y1) = (ys.clone().min().unwrap_or(0), ys.max().unwrap_or(0));
    (x0 - 60..x1 + 60, y0 - 80..y1 + 60)
}

fn run_autoplay() -> PathBuf {
    // KHET_E2E_DIR=DIR checks the pictures of an earlier run instead (when working on the checks).
    if let Some(dir) = std::env::var_os("KHET_E2E_DIR") {
        return PathBuf::from(dir);
    }
    let dir = std::env::temp_dir().join(format!("khet-e2e-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let status = Command::new("timeout")
        .args(["900", "xvfb-run", "-a", "-s", "-screen 0 1280x800x24"])
        .arg(env!("CARGO_BIN_EXE_khet"))
        // What a player without a graphics card gets (Auto picks Low on llvmpipe), and three
        // times as fast as High here; the pictures in `docs/` are taken at High.
        .env("KHET_AUTOPLAY_QUALITY", "low")
        // Settings and saves of its own, as on a new machine: the run neither reads nor
        // overwrites the developer's.
        .env("KHET_CONFIG", dir.join("config"))
        .env("KHET_DATA", dir.join("data"))
        .arg("--autoplay")
        .arg(&dir)
        .status()
        .expect("timeout and xvfb-run run");
    assert!(status.success(), "the scripted game failed: {status}");
    dir
}

#[test]
fn the_real_window_shows_the_game() {
    if std::env::var_os("KHET_SKIP_E2E").is_some() {
        eprintln!("skipped: KHET_SKIP_E2E is set");
        return;
    }
    let has_xvfb = Command::new("sh")
        .args(["-c", "command -v xvfb-run"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        has_xvfb,
        "xvfb-run is missing: apt-get install xvfb mesa-vulkan-drivers, or set KHET_SKIP_E2E=1"
    );
    let dir = run_autoplay();
    let mut checks = Checks::default();

    // 1. The initial board is drawn: tiles of empty squares show the board, not the background.
    let img = Image::load(&dir.join("01-initial.png"));
    let side = Sidecar::load(&dir.join("01-initial.txt"));
    assert_eq!((img.width, img.height), (1280, 800));
    let lit = lit_tiles(&img, &side);
    checks.check(lit >= 5, || {
        format!("the board is not drawn where the squares are ({lit}/6 tiles lit)")
    });
    let mut colors: Vec<[u8; 3]> = img.rgb.iter().step_by(7).copied().collect();
    colors.sort_unstable();
    colors.dedup();
    checks.check(colors.len() > 2000, || {
        format!("the picture is nearly blank ({} colours)", colors.len())
    });

    // 2. A selected piece: a gold ring on the square the script clicked, where the picture
    // before had none (the pieces' own gold trim is in both), and green dots on destinations.
    let initial = Image::load(&dir.join("01-initial.png"));
    let img = Image::load(&dir.join("02-selected.png"));
    let side = Sidecar::load(&dir.join("02-selected.txt"));
    let clicked = side
        .lines
        .get("clicked")
        .expect("the script's click")
        .clone();
    checks.check(side.lines.get("selected") == Some(&clicked), || {
        format!(
            "the game selected {:?}, not {clicked}",
            side.lines.get("selected")
        )
    });
    let gold = |p: [u8; 3]| p[0] >= 200 && p[1] >= 140 && (p[2] as i32) < p[1] as i32 - 60;
    let (xs, ys) = board_box(&side);
    let new_gold: Vec<(i64, i64)> = ys
        .flat_map(|y| xs.clone().map(move |x| (x, y)))
        .filter(|&(x, y)| img.at(x, y).is_some_and(gold) && !initial.at(x, y).is_some_and(gold))
        .collect();
    let n = new_gold.len();
    let (sx, sy) = new_gold
        .iter()
        .fold((0, 0), |(sx, sy), &(x, y)| (sx + x, sy + y));
    let at = side.tile[&clicked];
    let centre = (sx as f32 / n.max(1) as f32, sy as f32 / n.max(1) as f32);
    let off = (centre.0 - at.0).hypot(centre.1 - at.1);
    checks.check(n >= 40 && off < 30.0, || {
        format!("no selection ring on {clicked}: {n} new gold pixels, centred {off:.0} px away")
    });
    let green = |p: [u8; 3]| {
        p[1] >= 150 && p[1] as i32 - p[0] as i32 >= 60 && p[1] as i32 - p[2] as i32 >= 40
    };
    let dots = side
        .tile
        .values()
        .filter(|&&t| img.any_near(t, 4, green) && !initial.any_near(t, 4, green))
        .count();
    checks.check(dots >= 2, || format!("no destination highlights ({dots})"));

    // 3. The beam mid-flight: beam-coloured pixels along the squares it has lit so far.
    let img = Image::load(&dir.join("03-beam.png"));
    let side = Sidecar::load(&dir.join("03-beam.txt"));
    let path: Vec<String> = side
        .lines
        .get("beam")
        .map(|b| b.split_whitespace().map(String::from).collect())
        .unwrap_or_default();
    checks.check(path.len() >= 4, || {
        format!("the beam had lit too few squares: {path:?}")
    });
    let on_beam = path
        .iter()
        .filter(|sq| img.any_near(side.square[*sq], 6, beam_colored))
        .count();
    checks.check(on_beam * 10 >= path.len() * 7, || {
        format!(
            "beam pixels on only {on_beam} of {} squares of {path:?}",
            path.len()
        )
    });
    // And not everywhere: squares far from the path show no beam.
    let off_beam = ["a1", "b3", "c2", "d2", "a3"]
        .iter()
        .filter(|sq| img.any_near(side.square[**sq], 2, beam_colored))
        .count();
    checks.check(off_beam <= 1, || {
        format!("beam colour where no beam is ({off_beam})")
    });

    // 3b, 3c. The lit Pharaoh, before and after: a pillar of light stands over its square once
    // it is lit, not before.
    let before = Image::load(&dir.join("03b-pharaoh-before.png"));
    let after = Image::load(&dir.join("03c-pharaoh-lit.png"));
    let side = Sidecar::load(&dir.join("03c-pharaoh-lit.txt"));
    let end = side.lines.get("beam_end").expect("the beam's end is noted");
    let (px, py) = side.square[end.as_str()];
    // The pillar is pale gold light, from the Pharaoh up to the top of the picture.
    let pale = |p: [u8; 3]| p[0] >= 200 && p[1] >= 190 && p[2] >= 150;
    let band: Vec<(i64, i64)> = (20..=150)
        .flat_map(|dy| (-4..=4).map(move |dx| (px as i64 + dx, py as i64 - dy)))
        .filter(|&(_, y)| y >= 0)
        .collect();
    let column = |img: &Image| {
        band.iter()
            .filter(|&&(x, y)| img.at(x, y).is_some_and(pale))
            .count()
    };
    let (lit_column, dark_column) = (column(&after), column(&before));
    checks.check(
        lit_column * 2 >= band.len() && dark_column * 10 < band.len(),
        || {
            format!(
                "no pillar over {end}: {lit_column} pale pixels after, {dark_column} before (of {})",
                band.len()
            )
        },
    );

    // 4. Game over: the window with the result, and the lit Pharaoh glowing.
    let img = Image::load(&dir.join("04-gameover.png"));
    let side = Sidecar::load(&dir.join("04-gameover.txt"));
    let result = side.lines.get("result").expect("the game is over").clone();
    checks.check(result.contains("wins") || result.contains("Draw"), || {
        result.clone()
    });
    // egui's window: a dark, grey, even block in the middle of the board's view (right of the
    // panel), where the board was at the start (the same view, two moves earlier).
    let (xs, _) = board_box(&side);
    let (cx, cy) = ((xs.start + xs.end) / 2, img.height as i64 / 2);
    let window = img.count_in(cx - 100..cx + 100, cy - 20..cy + 20, |x, y, p| {
        let (lo, hi) = (*p.iter().min().unwrap(), *p.iter().max().unwrap());
        hi < 90 && hi - lo < 12 && img.differs(&initial, x, y, 25)
    });
    checks.check(window > 4000, || {
        format!("no game-over window in the middle ({window} of 8000 pixels)")
    });
    // The lit Pharaoh glows warm white.
    let glow = |p: [u8; 3]| p[0] >= 245 && p[1] >= 215 && p[2] >= 160;
    let glowing: Vec<&String> = side
        .square
        .iter()
        .filter(|(_, s)| img.count_near(**s, 12, glow) >= GLOWING)
        .map(|(name, _)| name)
        .collect();
    checks.check(!glowing.is_empty(), || "no lit Pharaoh glows".into());
    // Nothing else on the board is that bright.
    checks.check(glowing.len() <= 3, || format!("{glowing:?} glow"));

    // 5. The replay, at move 1 with the analysis: the evaluation bar (Silver's light share
    // beside Red's) in the side panel, a best move, and the board drawn with no Pharaoh glowing
    // where one glowed at the end.
    let img = Image::load(&dir.join("05-replay.png"));
    let note = Sidecar::load(&dir.join("05-replay.txt"));
    let analysis = note.lines.get("analysis").expect("the analysis is noted");
    checks.check(analysis.contains("best "), || analysis.clone());
    let silver = |p: [u8; 3]| p[0] >= 215 && p[1] >= 220 && p[2] >= 230;
    let red = |p: [u8; 3]| p[0] >= 220 && p[1] <= 100 && p[2] <= 90;
    let bar_rows = (60..400)
        .filter(|&y| {
            let row: Vec<[u8; 3]> = (8..290).filter_map(|x| img.at(x, y)).collect();
            row.iter().filter(|p| silver(**p)).count() + row.iter().filter(|p| red(**p)).count()
                >= 250
        })
        .count();
    checks.check(bar_rows >= 10, || {
        format!("no evaluation bar in the replay panel ({bar_rows} rows)")
    });
    let lit = lit_tiles(&img, &note);
    checks.check(lit >= 5, || {
        format!("the replay's board is not drawn ({lit}/6 tiles lit)")
    });
    for name in &glowing {
        let n = img.count_near(note.square[name.as_str()], 12, glow);
        checks.check(n < GLOWING / 4, || {
            format!("{name} still glows after stepping back ({n} pixels)")
        });
    }

    // 6. The saved games: the game just played and the damaged file, listed with its reason.
    let note = Sidecar::load(&dir.join("06-open.txt"));
    checks.check(
        note.lines.get("games").map(String::as_str) == Some("2 damaged 1"),
        || format!("saved games: {:?}", note.lines.get("games")),
    );
    let open = Image::load(&dir.join("06-open.png"));
    let orange = |p: [u8; 3]| p[0] >= 200 && (120..=180).contains(&p[1]) && p[2] <= 120;
    let warned = open.count_in(0..470, 0..800, |_, _, p| orange(p));
    checks.check(warned >= 30, || {
        format!("the damaged file's reason is not shown ({warned} orange pixels)")
    });

    // 7. The settings screen: a side panel (egui's grey) with its own text, not the saved
    // games' text before it, and its sliders and choices (egui's blue).
    let img = Image::load(&dir.join("07-settings.png"));
    let panel = img.count_in(0..300, 0..800, |_, _, p| {
        p.iter().all(|&c| c.abs_diff(27) <= 3)
    });
    let ink = img.count_in(0..300, 0..800, |x, y, p| {
        p[0] > 150 && p[1] > 150 && img.differs(&open, x, y, 40)
    });
    let widgets = img.count_in(0..300, 0..800, |x, y, p| {
        p[0] <= 20
            && p[1].abs_diff(92) <= 12
            && p[2].abs_diff(128) <= 12
            && img.differs(&open, x, y, 40)
    });
    checks.check(panel >= 120_000 && ink >= 2000 && widgets >= 300, || {
        format!(
            "no settings panel: {panel} panel pixels, {ink} new light pixels, {widgets} new widget pixels"
        )
    });

    // 8. Both clocks at the top, where the game without clocks had none, and the running one
    // showing another time a second later.
    let img = Image::load(&dir.join("08-clock.png"));
    let later = Image::load(&dir.join("08b-clock-later.png"));
    let top = |test: &dyn Fn([u8; 3]) -> bool| {
        img.count_in(300..1280, 0..70, |x, y, p| {
            test(p) && !initial.at(x, y).is_some_and(test)
        })
    };
    let (silver_ink, red_ink) = (top(&silver), top(&red));
    checks.check(silver_ink >= 40 && red_ink >= 40, || {
        format!("no clocks at the top of the board ({silver_ink} silver, {red_ink} red pixels)")
    });
    let ticked = later.count_in(300..1280, 0..70, |x, y, _| later.differs(&img, x, y, 40));
    checks.check(ticked >= 10, || {
        format!("the running clock shows the same time a second later ({ticked} pixels changed)")
    });

    // 9. The laser preview of an aimed move: faint light along its path, not elsewhere,
    // compared with the same moment before aiming.
    let before = Image::load(&dir.join("09a-no-aim.png"));
    let img = Image::load(&dir.join("09-preview.png"));
    let note = Sidecar::load(&dir.join("09-preview.txt"));
    let path: Vec<String> = note
        .lines
        .get("path")
        .map(|p| p.split_whitespace().map(String::from).collect())
        .unwrap_or_default();
    checks.check(path.len() >= 4, || format!("a short preview: {path:?}"));
    let seen = path
        .iter()
        .filter(|sq| img.changed_near(&before, note.square[sq.as_str()], 8, 12) >= 3)
        .count();
    checks.check(seen * 2 >= path.len(), || {
        format!(
            "the preview is seen on {seen} of the {} squares of {path:?}",
            path.len()
        )
    });
    let far: Vec<&String> = note
        .square
        .iter()
        .filter(|&(_, &p)| {
            path.iter().all(|sq| {
                let q = note.square[sq.as_str()];
                (p.0 - q.0).hypot(p.1 - q.1) > 45.0
            })
        })
        .map(|(name, _)| name)
        .collect();
    let stray = far
        .iter()
        .filter(|sq| img.changed_near(&before, note.square[sq.as_str()], 8, 12) >= 3)
        .count();
    checks.check(stray <= 1, || {
        format!("the picture changed on {stray} squares away from the preview")
    });

    // 10–13. Learning and inventing: each on screen where it must appear.
    let panel_pixels = |img: &Image, test: &dyn Fn([u8; 3]) -> bool| {
        img.count_in(0..430, 0..800, |_, _, p| test(p))
    };
    let orange = |p: [u8; 3]| p[0] > 200 && (120..=200).contains(&p[1]) && p[2] < 110;
    let note = Sidecar::load(&dir.join("10-tutorial.txt"));
    let why = note.lines.get("missed").expect("the miss is noted");
    checks.check(why.contains("shield stopped the beam on e5"), || {
        why.clone()
    });
    let n = panel_pixels(&Image::load(&dir.join("10-tutorial.png")), &orange);
    checks.check(n >= 60, || {
        format!("the miss's reason is not in the panel ({n} orange pixels)")
    });
    // The puzzle's hint rings the piece to move, where the picture before the hint had none,
    // and changes nothing else on the board.
    let before = Image::load(&dir.join("11a-puzzle.png"));
    let img = Image::load(&dir.join("11-puzzle.png"));
    let note = Sidecar::load(&dir.join("11-puzzle.txt"));
    let hint = note.lines.get("hint").cloned().unwrap_or_default();
    let from = hint.split_whitespace().next().unwrap_or("a1").to_string();
    // The ring is cyan (the reserved squares' blue is paler).
    let cyan = |p: [u8; 3]| p[2] >= 180 && p[1] >= 140 && i32::from(p[2]) - i32::from(p[0]) >= 70;
    let ring = img.count_near(note.tile[&from], 40, cyan) as i64
        - before.count_near(note.tile[&from], 40, cyan) as i64;
    checks.check(ring >= 60, || {
        format!("no hint ring on {from} ({ring} new cyan pixels)")
    });
    let at = note.tile[&from];
    let elsewhere = note
        .tile
        .values()
        .filter(|&&t| (t.0 - at.0).hypot(t.1 - at.1) > 100.0)
        .filter(|&&t| img.changed_near(&before, t, 10, 30) >= 5)
        .count();
    checks.check(elsewhere <= 2, || {
        format!("the hint changed {elsewhere} squares away from {from}")
    });
    // The editor marks the problem square red: the Silver Pyramid the script put on Red's a4,
    // where the picture before had no such red. (Its symmetric twin, a Red Pyramid on j5, is red
    // itself and stands in the fired beam: its mark cannot be told apart there.)
    let before = Image::load(&dir.join("12a-editor.png"));
    let img = Image::load(&dir.join("12-editor.png"));
    let note = Sidecar::load(&dir.join("12-editor.txt"));
    let alarm = |p: [u8; 3]| p[0] >= 200 && p[1] <= 90 && p[2] <= 90;
    let (after, was) = (
        img.count_near(note.tile["a4"], 30, alarm),
        before.count_near(note.tile["a4"], 30, alarm),
    );
    checks.check(after >= was + 100, || {
        format!("no problem mark on a4: {after} red pixels, {was} before")
    });
    let problem_red =
        |p: [u8; 3]| p[0] > 200 && (80..=140).contains(&p[1]) && (60..=120).contains(&p[2]);
    let n = panel_pixels(&img, &problem_red);
    checks.check(n >= 60, || {
        format!("the editor lists no problem ({n} red pixels)")
    });
    // The fairness report: new text in the editor's panel.
    let before = Image::load(&dir.join("13a-editor.png"));
    let img = Image::load(&dir.join("13-fairness.png"));
    let report = img.count_in(0..430, 0..800, |x, y, _| img.differs(&before, x, y, 40));
    checks.check(report >= 1500, || {
        format!("no fairness report in the panel ({report} pixels changed)")
    });
    let note = Sidecar::load(&dir.join("13-fairness.txt"));
    checks.check(
        note.lines
            .get("fair")
            .is_some_and(|f| f.starts_with("games 4")),
        || "no report".into(),
    );

    // 14. A piece breaking: the strike's flash and the red shards around c4, where the picture
    // before the move showed the Pyramid whole.
    let before = Image::load(&dir.join("14a-break-before.png"));
    let img = Image::load(&dir.join("14-break.png"));
    let side = Sidecar::load(&dir.join("14-break.txt"));
    let c4 = side.square["c4"];
    let white = |p: [u8; 3]| p.iter().all(|&c| c >= 220);
    let flash = img.count_near(c4, 40, white) as i64 - before.count_near(c4, 40, white) as i64;
    // Red lacquer, lit: red well above green and blue (the board's tiles are sand and grey).
    let red_shard = |p: [u8; 3]| {
        p[0] >= 120
            && i32::from(p[0]) - i32::from(p[1]) >= 70
            && i32::from(p[0]) - i32::from(p[2]) >= 70
    };
    // The beam comes in along rank 4, a level line through c4 on screen: its band is left out.
    let shards = img.count_in(
        c4.0 as i64 - 70..c4.0 as i64 + 71,
        c4.1 as i64 - 70..c4.1 as i64 + 71,
        |x, y, p| {
            (y - c4.1 as i64).abs() > 8 && red_shard(p) && !before.at(x, y).is_some_and(red_shard)
        },
    );
    checks.check(flash >= 300 && shards >= 150, || {
        format!("no piece breaking on c4: {flash} new flash and {shards} new shard pixels")
    });

    let fps = std::fs::read_to_string(dir.join("fps.txt")).unwrap_or_default();
    eprintln!("autoplay: {fps}");
    assert!(
        checks.0.is_empty(),
        "{} checks failed (pictures in {}):\n{}",
        checks.0.len(),
        dir.display(),
        checks.0.join("\n")
    );
    if std::env::var_os("KHET_E2E_DIR").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
