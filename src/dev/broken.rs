//! `KHET_BROKEN=PARTS`: the window with drawn parts left out, for the broken-features run of the
//! window test (`tests/e2e_broken.rs`), which shows that each picture check fails without the
//! parts it checks and passes without the others. PARTS is a comma-separated list of [`PARTS`]'
//! names, or `all`. The systems that draw a part simply do not run; the game's state goes on as
//! ever, so the tour still takes every picture.

use crate::schedule::Drawn;
use crate::theme::PanelSet;
use bevy::prelude::*;
use bevy_egui::EguiPrimaryContextPass;

/// A part of the window that can be left out.
#[derive(Clone, Debug)]
enum Part {
    Board(Drawn),
    Panels(PanelSet),
}

/// The parts by name: the board's (see [`Drawn`]) and egui's: the side panels (each screen's
/// own, with the evaluation bar, the saved games, the settings, the lessons' text, the editor's
/// problems and fairness report) and the overlays (the game-over window, the clocks' faces, the
/// notices, the board's letters, the online players' window). `tests/e2e_broken.rs` names them
/// too: each is left out in one of its runs, and is some picture's part.
const PARTS: &[(&str, Part)] = &[
    ("pieces", Part::Board(Drawn::Pieces)),
    ("beam", Part::Board(Drawn::Beam)),
    ("highlights", Part::Board(Drawn::Highlights)),
    ("effects", Part::Board(Drawn::Effects)),
    ("preview", Part::Board(Drawn::Preview)),
    ("marks", Part::Board(Drawn::EditorMarks)),
    ("panels", Part::Panels(PanelSet::Side)),
    ("overlays", Part::Panels(PanelSet::Overlays)),
];

/// Leaves out the parts `KHET_BROKEN` names, and says which; an unknown name stops the program
/// rather than leave out nothing.
pub fn plugin(app: &mut App) {
    let Ok(list) = std::env::var("KHET_BROKEN") else {
        return;
    };
    let names: Vec<&str> = list
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    let known: Vec<&str> = PARTS.iter().map(|(name, _)| *name).collect();
    if let Some(unknown) = names.iter().find(|n| **n != "all" && !known.contains(n)) {
        panic!(
            "KHET_BROKEN: no part called {unknown:?}; the parts: all, {}",
            known.join(", ")
        );
    }
    for (name, part) in PARTS {
        if !names.iter().any(|n| *n == "all" || n == name) {
            continue;
        }
        warn!("KHET_BROKEN: the {name} are left out");
        match part {
            Part::Board(set) => {
                app.configure_sets(Update, set.run_if(never));
            }
            Part::Panels(set) => {
                app.configure_sets(EguiPrimaryContextPass, set.clone().run_if(never));
            }
        }
    }
}

fn never() -> bool {
    false
}
