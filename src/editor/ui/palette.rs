//! The editor's palette: every kind of the edition in either colour (the Eye of Horus in both
//! editions); the chosen one is placed by a click on the board.

use crate::editor::{Edit, Editor};
use crate::theme::side_color;
use bevy::prelude::*;
use bevy_egui::egui;
use khet_engine::{Color as Side, Edition, Kind, Piece};

/// The kinds a setup of `edition` may hold.
pub fn kinds(edition: Edition) -> &'static [Kind] {
    match edition {
        Edition::Khet2 => &[
            Kind::Pharaoh,
            Kind::Sphinx,
            Kind::Pyramid,
            Kind::Anubis,
            Kind::Scarab,
            Kind::Eye,
        ],
        Edition::Khet1 => &[
            Kind::Pharaoh,
            Kind::Pyramid,
            Kind::Obelisk,
            Kind::Djed,
            Kind::Eye,
        ],
    }
}

/// A new piece as placed from the palette: Silver's face north, Red's south.
pub fn fresh(side: Side, kind: Kind) -> Piece {
    match kind {
        Kind::Obelisk => Piece::obelisk(side, 1),
        _ => Piece::new(side, kind, if side == Side::Silver { 0 } else { 2 }),
    }
}

pub fn palette(ui: &mut egui::Ui, editor: &Editor, edits: &mut MessageWriter<Edit>) {
    ui.label("Place (click a square); click the chosen one again to stop placing:");
    for side in Side::ALL {
        ui.horizontal_wrapped(|ui| {
            ui.label(egui::RichText::new(side.name()).color(side_color(side)));
            for &kind in kinds(editor.board.edition()) {
                let piece = fresh(side, kind);
                let chosen = editor
                    .brush
                    .is_some_and(|b| b.color() == side && b.kind() == kind);
                if ui.selectable_label(chosen, kind.name()).clicked() {
                    edits.write(Edit::Brush((!chosen).then_some(piece)));
                }
            }
        });
    }
}
