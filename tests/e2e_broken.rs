//! The window test's checks fail for what they check, and only for that: the scripted tour again,
//! twice, each time with one of two groups of the drawn parts left out (`KHET_BROKEN`,
//! `src/dev/broken.rs`: the pieces' models, the beam, the highlights, the effects, the laser
//! preview, the editor's marks, the side panels and the overlays). Each picture names the parts
//! its check depends on (`common::tour::PICTURES`); in each run:
//! - every picture is still a drawn frame, so that a failing check is not a blank window (as
//!   `tests/e2e.rs` judges it, but for the top eighth when the side panel is left out: only
//!   the panel and the clocks reach above the board);
//! - a picture with one of its parts left out fails its check (every reason is said) and
//!   differs from its reference frame;
//! - a picture with all its parts drawn passes its check: the others' absence does not fail it,
//!   and its text is read (a Tesseract that reads nothing would fail these, and its errors stop
//!   the test, `common::picture::read_text`).
//!
//! Two runs rather than one a part: each takes two minutes. The groups are chosen so that most
//! pictures have all their parts in one of them, and so fail in one run and pass in the other;
//! the three with parts in both fail in both, each time for the parts of that run. The tour
//! itself runs to its end whatever is left out: the game's state never waits on what is drawn.
//!
//! Needs what `tests/e2e.rs` needs; `KHET_SKIP_E2E=1` skips the runs with `cargo test`.
//! `KHET_E2E_BROKEN_DIRS=DIR1,DIR2` judges the pictures of earlier runs instead (the folders a
//! failure names, one a group, in order), when working on the checks; `KHET_E2E_DIR` is the
//! window test's and is not taken here.

mod common;

use common::tour::{PICTURES, Picture, Run, run_tour, say};
use std::path::PathBuf;

/// The parts `KHET_BROKEN` can leave out, as `src/dev/broken.rs`'s `PARTS` names them (the game
/// refuses a name it does not know, so a misspelt group stops the run).
const PARTS: [&str; 8] = [
    "pieces",
    "beam",
    "highlights",
    "effects",
    "preview",
    "marks",
    "panels",
    "overlays",
];

/// The two runs' parts left out, between them every part once: what is drawn over the board or
/// for the player's hand (the panels, the overlays, the highlights, the preview), and the
/// board's own things (the pieces, the beam, the effects, the editor's marks). Kept together:
/// - the panels and the overlays: without the side panel the board's room widens, and the
///   clocks and the game-over window move with it;
/// - the panels and the preview: without the panel, the pointer the tour rests on it for
///   `09a-no-aim` rests where the panel was, and could aim the preview;
/// - the highlights and the overlays: the selection ring's near arc lies under the turn
///   buttons, and its check is judged with them there.
///
/// Only `04-gameover` (pieces, beam, overlays), `11a-puzzle` (pieces, panels) and `12-editor`
/// (marks, panels) have parts in both.
const GROUPS: [&[&str]; 2] = [
    &["highlights", "preview", "panels", "overlays"],
    &["pieces", "beam", "effects", "marks"],
];

#[test]
fn the_groups_leave_out_every_part_once_and_each_part_is_some_pictures() {
    for part in PARTS {
        let groups = GROUPS.iter().filter(|g| g.contains(&part)).count();
        assert_eq!(
            groups, 1,
            "the {part} are left out in {groups} groups, not one"
        );
        assert!(
            PICTURES.iter().any(|p| p.parts.contains(&part)),
            "no picture's check depends on the {part}: nothing shows that it fails without them"
        );
    }
    for group in GROUPS {
        for part in group {
            assert!(PARTS.contains(part), "a group leaves out {part:?}, no part");
        }
    }
    for p in PICTURES {
        assert!(!p.parts.is_empty(), "{}: no parts", p.name);
        for part in p.parts {
            assert!(PARTS.contains(part), "{}: {part:?} is no part", p.name);
        }
    }
}

#[test]
fn each_picture_check_fails_without_its_own_drawn_parts_and_passes_without_the_others() {
    if std::env::var_os("KHET_SKIP_E2E").is_some() {
        eprintln!("skipped: KHET_SKIP_E2E is set");
        return;
    }
    let earlier = earlier_runs();
    let mut dirs = Vec::new();
    let mut wrong = Vec::new();
    for (i, left_out) in GROUPS.iter().enumerate() {
        let dir = match &earlier {
            Some(earlier) => earlier[i].clone(),
            None => run_tour(
                &format!("khet-broken-{}", i + 1),
                Some(left_out.join(",").as_str()),
            ),
        };
        wrong.extend(judge(&Run::load(&dir), left_out));
        dirs.push(dir.display().to_string());
    }
    assert!(
        wrong.is_empty(),
        "{} failures (pictures in {}; KHET_E2E_BROKEN_DIRS={} judges them again):\n{}",
        wrong.len(),
        dirs.join(" and "),
        dirs.join(","),
        wrong.join("\n")
    );
    if earlier.is_none() {
        for dir in dirs {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The folders of earlier runs in `KHET_E2E_BROKEN_DIRS`, one a group, if it is set.
fn earlier_runs() -> Option<Vec<PathBuf>> {
    let list = std::env::var("KHET_E2E_BROKEN_DIRS").ok()?;
    let dirs: Vec<PathBuf> = list.split(',').map(PathBuf::from).collect();
    assert_eq!(
        dirs.len(),
        GROUPS.len(),
        "KHET_E2E_BROKEN_DIRS: {} folders for {} groups",
        dirs.len(),
        GROUPS.len()
    );
    Some(dirs)
}

/// What is wrong with a run that left out `left_out`: each picture must be drawn, fail its
/// check and differ from its reference when one of its parts is left out, and pass its check
/// when none is. Says each failing check's reasons, and how the run went.
fn judge(run: &Run, left_out: &[&str]) -> Vec<String> {
    say(&format!("e2e, broken: without the {}", left_out.join(", ")));
    // Without the side panel the top eighth above the board holds only the clocks, if any.
    let from_band = usize::from(left_out.contains(&"panels"));
    let mut wrong = Vec::new();
    let (mut failed, mut passed) = (0, 0);
    for p in PICTURES {
        if let Some(why) = run.img(p.name).undrawn_from_band(from_band) {
            wrong.push(format!("{}: {why}", p.name));
            continue;
        }
        let reasons = (p.check)(run);
        let missing: Vec<&str> = p
            .parts
            .iter()
            .copied()
            .filter(|part| left_out.contains(part))
            .collect();
        if missing.is_empty() {
            if reasons.is_empty() {
                passed += 1;
            } else {
                wrong.push(format!(
                    "{}: fails with its parts ({}) drawn: {}",
                    p.name,
                    p.parts.join(", "),
                    reasons.join("; ")
                ));
            }
            continue;
        }
        failed += usize::from(!reasons.is_empty());
        wrong.extend(without_its_parts(run, p, &missing, &reasons));
    }
    let own = PICTURES
        .iter()
        .filter(|p| p.parts.iter().any(|part| left_out.contains(part)))
        .count();
    say(&format!(
        "e2e, broken: {failed} of {own} checks failed without their parts, {passed} of {} passed \
         with theirs drawn",
        PICTURES.len() - own
    ));
    wrong
}

/// What is wrong with a picture whose `missing` parts were left out: its check must fail (its
/// `reasons`, said here) and the picture must differ from its reference.
fn without_its_parts(run: &Run, p: &Picture, missing: &[&str], reasons: &[String]) -> Vec<String> {
    let without = missing.join(", ");
    let mut wrong = Vec::new();
    say(&format!("  {} without the {without}:", p.name));
    for r in reasons {
        say(&format!("    {r}"));
    }
    if reasons.is_empty() {
        wrong.push(format!(
            "{}: passes its check without the {without}",
            p.name
        ));
    }
    match run.against_reference(p) {
        Ok(c) if c.failed.is_empty() => wrong.push(format!(
            "{}: matches its reference without the {without}",
            p.name
        )),
        Ok(_) => {}
        Err(e) => wrong.push(format!("{}: {e}", p.name)),
    }
    wrong
}
