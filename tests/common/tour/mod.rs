//! The pictures of the scripted tour (`khet --autoplay DIR`, `src/dev/tour`) and what each must
//! show, as one table ([`PICTURES`]): a row a picture, with its check, the parts of it that move
//! from run to run, the drawn parts its check depends on and how near its reference it must be.
//! The window test (`tests/e2e.rs`) runs the tour and wants every check to pass and every
//! picture to match its reference frame (`tests/frames/`); the broken-features run
//! (`tests/e2e_broken.rs`) leaves drawn parts out and wants each check to fail exactly when one
//! of its own parts is left out.
//!
//! What is judged is the picture: where a check reads text, it reads it from the pixels
//! ([`read_text`](super::picture::read_text), Tesseract). The notes beside the pictures say only
//! where to look: where the squares are on screen, which pieces stand where, and what the script
//! did.
//!
//! The table is here; running the tour and loading its pictures is [`run`], and each picture's
//! check is in [`checks`].

mod checks;
mod run;

// What the window tests use, at the paths they use; a test program that uses none of it (each
// test file compiles `common` whole) leaves them unused.
#[allow(unused_imports)]
pub use checks::says;
#[allow(unused_imports)]
pub use run::{Run, game_in_window, run_tour, say};

use super::picture::{Rect, Tolerance};
use checks::{
    atlas_later, beam, break_before, breaking, clock, clock_later, editor_before, fairness,
    game_over, initial, new_atlas, no_aim, open, pharaoh_before, pharaoh_lit, preview, problem,
    puzzle, puzzle_before, replay, report_before, selected, settings, tutorial,
};
use std::path::{Path, PathBuf};

/// A picture of the tour and its check: what it shows, said in a failure; the check, which
/// gives every reason it fails (none when it passes); the rectangles of the half-size picture
/// left out of the comparison with the reference, each with what moves there; its drawn parts;
/// and how far it may be from its reference.
pub struct Picture {
    pub name: &'static str,
    pub shows: &'static str,
    pub check: fn(&Run) -> Vec<String>,
    pub moving: &'static [(Rect, &'static str)],
    /// The drawn parts (`KHET_BROKEN`'s names, `src/dev/broken.rs`) whose absence alone makes
    /// the check fail, and no others: the broken-features run wants the check to fail when any
    /// of them is left out and to pass when only others are. Text a check reads in the side
    /// panel is the "panels"; text drawn over the board (the game-over window, the clocks, the
    /// notices, the board's letters) is the "overlays".
    ///
    /// A check that compares with an earlier picture (02 with 01, 09a with 08b, 09 with 09a, 11
    /// with 11a, 12 with 12a, 14 with 14a) compares two pictures of one run, with the same parts
    /// left out of both; what it looks for is what is new, which another part's absence does
    /// not hide, so the earlier picture's parts are not its own (without the pieces, a ring or
    /// a mark only shows more of itself).
    pub parts: &'static [&'static str],
    /// How far it may be from its reference frame: [`TOLERANCE`], or [`FLARES`] where the beam's
    /// flares flicker.
    pub tolerance: Tolerance,
}

/// How far a still picture may be from its reference frame: regions of 16 × 16 half-size pixels
/// (32 × 32 of the window), each at least this similar in structure and at most this far in
/// colour. Runs of the same tour on this machine differ only where something moves with the
/// machine's speed (masked per picture, each with its reason) and where a flare flickers
/// ([`FLARES`]); elsewhere a run's pictures keep to SSIM 0.994 and ΔE 0.8 of their references
/// (`tests/e2e.rs` says each picture's worst). A missing piece, beam, ring or line of text takes
/// its regions far past these, and so does the laser preview's faint path, which takes
/// `09-preview`'s only to SSIM 0.92 (`tests/e2e.rs` judges the view without it as `09-preview`
/// and wants it refused). The old single bound, SSIM 0.8 and ΔE 8, let that pass.
pub const TOLERANCE: Tolerance = Tolerance {
    region: 16,
    ssim: 0.95,
    delta_e: 3.0,
};

/// The bound of a picture with the beam's flares in it, which flicker from run to run: at worst
/// SSIM 0.93 and ΔE 5.7 in a region over a dozen runs, three of them with the cores kept busy.
pub const FLARES: Tolerance = Tolerance {
    region: 16,
    ssim: 0.88,
    delta_e: 8.0,
};
/// Where the committed reference frames are: one per picture, at half size, of the Low preset
/// the test runs (the others draw differently and are not judged against references).
pub fn frames_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/frames/low")
}

/// The clocks' faces over the board, whose seconds run with the machine's speed (the clocks'
/// checks read them).
const CLOCKS: &[(Rect, &str)] = &[((340, 0, 500, 28), "the clocks' running seconds")];

/// Every picture of the tour, in its order, with its check.
pub const PICTURES: &[Picture] = &[
    Picture {
        name: "01-initial",
        shows: "the board at the start, Silver's pieces where the engine has them",
        check: initial,
        moving: &[],
        parts: &["pieces"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "02-selected",
        shows: "a gold ring on the clicked piece and green dots on its destinations",
        check: selected,
        moving: &[],
        parts: &["highlights"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "03-beam",
        shows: "the beam mid-flight along the squares it has lit",
        check: beam,
        moving: &[],
        parts: &["beam"],
        tolerance: FLARES,
    },
    Picture {
        name: "03b-pharaoh-before",
        shows: "Red's beam short of the Pharaoh, no pillar yet",
        check: pharaoh_before,
        moving: &[],
        parts: &["beam"],
        tolerance: FLARES,
    },
    Picture {
        name: "03c-pharaoh-lit",
        shows: "a pillar of light over the lit Pharaoh",
        check: pharaoh_lit,
        moving: &[],
        parts: &["effects"],
        tolerance: FLARES,
    },
    Picture {
        name: "04-gameover",
        shows: "the game-over window with the result, the lit Pharaoh glowing",
        check: game_over,
        moving: &[],
        parts: &["pieces", "beam", "overlays"],
        tolerance: FLARES,
    },
    Picture {
        name: "05-replay",
        shows: "the replay at move 1: the evaluation bar, the best line, no glow",
        check: replay,
        moving: &[(
            (0, 80, 160, 120),
            "the evaluation and the best line, as deep as the analysis got in its 1.5 s",
        )],
        parts: &["panels"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "06-open",
        shows: "the saved games, the damaged file with its reason",
        check: open,
        moving: &[(
            (0, 48, 240, 84),
            "the temporary folder's name and the save's time",
        )],
        parts: &["panels"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "07-settings",
        shows: "the settings' panel",
        check: settings,
        moving: &[],
        parts: &["panels"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "08-clock",
        shows: "both clocks at about five minutes",
        check: clock,
        moving: CLOCKS,
        parts: &["overlays"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "08b-clock-later",
        shows: "Silver's clock one to three seconds on, Red's the same",
        check: clock_later,
        moving: CLOCKS,
        parts: &["overlays"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "08c-new-atlas",
        shows: "the first frame from a new font atlas: both clocks whole, every text drawn",
        check: new_atlas,
        moving: &[],
        parts: &["overlays"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "08d-atlas-later",
        shows: "the clocks held at 4:44 and 4:33",
        check: atlas_later,
        moving: &[],
        parts: &["overlays"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "09a-no-aim",
        shows: "the piece picked up, ringed",
        check: no_aim,
        moving: CLOCKS,
        parts: &["highlights"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "09-preview",
        shows: "the laser preview along its path, and nowhere else",
        check: preview,
        moving: CLOCKS,
        parts: &["preview"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "10-tutorial",
        shows: "the tutorial's step and why the move missed",
        check: tutorial,
        moving: &[],
        parts: &["panels"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "11a-puzzle",
        shows: "the puzzle's board and its goal",
        check: puzzle_before,
        moving: &[],
        parts: &["pieces", "panels"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "11-puzzle",
        shows: "the hint's ring on the piece to move, nothing else changed",
        check: puzzle,
        moving: &[],
        parts: &["highlights"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "12a-editor",
        shows: "the editor's panel, no problem yet",
        check: editor_before,
        moving: &[],
        parts: &["panels"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "12-editor",
        shows: "the problem square marked, the problems listed",
        check: problem,
        moving: &[],
        parts: &["marks", "panels"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "13a-editor",
        shows: "the editor's panel, no report yet",
        check: report_before,
        moving: &[],
        parts: &["panels"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "13-fairness",
        shows: "the fairness report in the editor's panel",
        check: fairness,
        moving: &[],
        parts: &["panels"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "14a-break-before",
        shows: "the Red piece whole on c4",
        check: break_before,
        moving: &[],
        parts: &["pieces"],
        tolerance: TOLERANCE,
    },
    Picture {
        name: "14-break",
        shows: "the piece on c4 breaking: a flash and red shards",
        check: breaking,
        moving: &[],
        parts: &["effects"],
        tolerance: FLARES,
    },
];
