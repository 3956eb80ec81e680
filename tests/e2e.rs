//! The real game window under Xvfb with Mesa's software Vulkan: the scripted tour
//! (`khet --autoplay`, `src/dev/tour`) plays a game and visits every screen, saving pictures,
//! and each picture is judged three ways (the table is `common::tour::PICTURES`):
//! - it is a drawn frame, not a blank, one-coloured or half-drawn one;
//! - its own check passes: what a player must see there, judged on the pixels (a ring where the
//!   piece was clicked, the beam along its path, the game-over window's words read by OCR…);
//! - it matches its committed reference frame (`tests/frames/low/`) region by region, within
//!   its tolerance (`common::tour::TOLERANCE` unless it has its own).
//!
//! A failed comparison writes the picture, the reference and their difference to
//! `$CARGO_TARGET_DIR/e2e-failed/` (`target/` by default). After a deliberate change to what the
//! window shows, `KHET_UPDATE_FRAMES=1 cargo test --test e2e` writes the new references (look at
//! them before committing). `tests/e2e_broken.rs` shows that every check fails without what it
//! checks.
//!
//! Needs `xvfb-run`, `mesa-vulkan-drivers` and `tesseract-ocr` (`.ci/test` installs them).
//! `KHET_SKIP_E2E=1` skips it on a machine without them with `cargo test`; `.ci/test` refuses to.

mod common;

use common::tour::{PICTURES, Run, frames_dir, run_tour, say};
use std::path::PathBuf;

/// Where a failed comparison's pictures go: beside the build, where CI keeps its files.
fn failed_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"),
            PathBuf::from,
        )
        .join("e2e-failed")
}

#[test]
fn the_real_window_shows_every_picture_of_the_tour_as_a_player_must_see_it() {
    if std::env::var_os("KHET_SKIP_E2E").is_some() {
        eprintln!("skipped: KHET_SKIP_E2E is set");
        return;
    }
    let dir = run_tour("khet-e2e", None);
    let run = Run::load(&dir);
    let update = std::env::var_os("KHET_UPDATE_FRAMES").is_some();
    let _ = std::fs::remove_dir_all(failed_dir());
    let mut failures = Vec::new();
    // Each picture's worst region (SSIM/ΔE), said in one line: what a tolerance is chosen from.
    let mut each = Vec::new();
    // The worst region of any picture: its value, the picture, and that picture's bound.
    let (mut worst_ssim, mut worst_delta_e) = ((1.0f64, "", 1.0), (0.0f64, "", 0.0));
    for p in PICTURES {
        let img = run.img(p.name);
        if (img.width, img.height) != (1280, 800) {
            failures.push(format!(
                "{}: {} × {}, not the window's 1280 × 800",
                p.name, img.width, img.height
            ));
            continue;
        }
        if let Some(why) = img.undrawn() {
            failures.push(format!("{}: {why}", p.name));
        }
        for why in (p.check)(&run) {
            failures.push(format!("{} ({}): {why}", p.name, p.shows));
        }
        if update {
            std::fs::create_dir_all(frames_dir()).unwrap();
            img.halved()
                .save(&frames_dir().join(format!("{}.png", p.name)));
            continue;
        }
        match run.against_reference(p) {
            Ok(c) => {
                each.push(format!(
                    "{} {:.3}/{:.1}",
                    &p.name[..3.min(p.name.len())],
                    c.worst_ssim,
                    c.worst_delta_e
                ));
                if c.worst_ssim < worst_ssim.0 {
                    worst_ssim = (c.worst_ssim, p.name, p.tolerance.ssim);
                }
                if c.worst_delta_e > worst_delta_e.0 {
                    worst_delta_e = (c.worst_delta_e, p.name, p.tolerance.delta_e);
                }
                if !c.failed.is_empty() {
                    let kept = run.keep_failure(p, &c, &failed_dir());
                    let worst = c.failed.iter().min_by(|a, b| a.ssim.total_cmp(&b.ssim));
                    failures.push(format!(
                        "{}: differs from its reference in {} regions (worst {:?}); see {kept}",
                        p.name,
                        c.failed.len(),
                        worst
                    ));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", p.name)),
        }
    }
    if !update {
        failures.extend(a_missing_preview_is_off_its_reference(&run));
    }
    say(&format!(
        "e2e: worst region of each picture, SSIM/ΔE: {}",
        each.join(", ")
    ));
    let fps = std::fs::read_to_string(dir.join("fps.txt")).unwrap_or_default();
    say(&format!(
        "e2e: {} pictures judged; against the references, worst region SSIM {:.3} ({}, at least \
         {}), worst mean ΔE {:.2} ({}, at most {}); autoplay: {}",
        PICTURES.len(),
        worst_ssim.0,
        worst_ssim.1,
        worst_ssim.2,
        worst_delta_e.0,
        worst_delta_e.1,
        worst_delta_e.2,
        fps.trim()
    ));
    if update {
        say(&format!(
            "e2e: references written to {}",
            frames_dir().display()
        ));
    }
    assert!(
        failures.is_empty(),
        "{} failures (pictures in {}):\n{}",
        failures.len(),
        dir.display(),
        failures.join("\n")
    );
    if std::env::var_os("KHET_E2E_DIR").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `09-preview`'s own bound must see a missing preview: the picture before it (`09a-no-aim`, the
/// same view with the piece picked up and nothing aimed) judged as `09-preview` differs from its
/// reference. The faint path is the least a region comparison must catch.
fn a_missing_preview_is_off_its_reference(run: &Run) -> Option<String> {
    let preview = PICTURES.iter().find(|p| p.name == "09-preview")?;
    match run.judge_as("09a-no-aim", preview) {
        Ok(c) if c.failed.is_empty() => Some(format!(
            "09-preview's bound (SSIM {}, ΔE {}) passes the view without the preview: worst \
             region SSIM {:.3}, ΔE {:.2}",
            preview.tolerance.ssim, preview.tolerance.delta_e, c.worst_ssim, c.worst_delta_e
        )),
        Ok(_) => None,
        Err(e) => Some(format!("09-preview: {e}")),
    }
}
