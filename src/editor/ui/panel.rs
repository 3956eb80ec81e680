//! The setup editor's side panel: where to start from, name and description, symmetry, undo,
//! the palette, the picked-up piece, the lasers, what the engine says, save and play.

use crate::editor::fairness::{CheckFairness, Fairness};
use crate::editor::{Edit, Editor};
use crate::screen::Screen;
use crate::setups::SetupLibrary;
use crate::theme::{PanelSet, PanelSpace, nav, wide_side_panel};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use khet_engine::{Color as Side, Edition, Position, Rotation};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        panel
            .run_if(in_state(Screen::Editor))
            .in_set(PanelSet::Side),
    );
}

fn panel(
    mut contexts: EguiContexts,
    mut space: ResMut<PanelSpace>,
    editor: Res<Editor>,
    library: Res<SetupLibrary>,
    fairness: Res<Fairness>,
    mut go: ResMut<NextState<Screen>>,
    mut edits: MessageWriter<Edit>,
    mut check: MessageWriter<CheckFairness>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    wide_side_panel(&ctx, &mut space, 430.0, |ui| {
        nav(ui, Screen::Editor, &mut go);
        egui::ScrollArea::vertical().show(ui, |ui| {
            start_from(ui, &library, &mut edits);
            ui.horizontal(|ui| {
                ui.label("Name");
                // Edited on a copy: the editor changes (and its marks are redrawn) only when
                // the text does.
                let mut name = editor.name.clone();
                if ui.text_edit_singleline(&mut name).changed() {
                    edits.write(Edit::Name(name));
                }
            });
            let mut description = editor.description.clone();
            let field = egui::TextEdit::multiline(&mut description)
                .desired_rows(2)
                .hint_text("Description");
            if ui.add(field).changed() {
                edits.write(Edit::Description(description));
            }
            ui.horizontal(|ui| {
                let mut symmetric = editor.symmetric;
                if ui.checkbox(&mut symmetric, "Symmetric").on_hover_text("Every edit is repeated on the partner square, colours swapped").changed() {
                    edits.write(Edit::Symmetric(symmetric));
                }
                if ui.add_enabled(!editor.undo.is_empty(), egui::Button::new("↶ Undo")).clicked() {
                    edits.write(Edit::Undo);
                }
                if ui.add_enabled(!editor.redo.is_empty(), egui::Button::new("↷ Redo")).clicked() {
                    edits.write(Edit::Redo);
                }
            });
            ui.separator();
            super::palette::palette(ui, &editor, &mut edits);
            picked(ui, &editor, &mut edits);
            ui.separator();
            lasers(ui, &editor, &mut edits);
            super::report::report(ui, &editor, &fairness, &mut check);
            ui.separator();
            ui.horizontal(|ui| {
                let ok = editor.problems.is_empty();
                if ui.add_enabled(ok, egui::Button::new("Save")).on_hover_text("To your setups folder; the new-game list shows it at once").clicked() {
                    edits.write(Edit::Save);
                }
                if ui.add_enabled(ok, egui::Button::new("Play it")).clicked() {
                    edits.write(Edit::PlayIt);
                }
            });
            ui.small("Click a piece to pick it up, an empty square to put it down · Q / E turn · Delete removes · Ctrl+Z / Ctrl+Y · Esc drops the brush");
        });
    });
    Ok(())
}

fn start_from(ui: &mut egui::Ui, library: &SetupLibrary, edits: &mut MessageWriter<Edit>) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Start from");
        for (edition, label) in [(Edition::Khet2, "empty 2.0"), (Edition::Khet1, "empty 1.0")] {
            if ui.button(label).clicked() {
                edits.write(Edit::Start(Position::empty(edition), "My setup".into()));
            }
        }
        egui::ComboBox::from_id_salt("editor-start")
            .selected_text("a setup…")
            .show_ui(ui, |ui| {
                for listing in &library.listings {
                    if let Ok(setup) = &listing.setup
                        && ui.selectable_label(false, &listing.label).clicked()
                    {
                        edits.write(Edit::Start(setup.position, format!("My {}", setup.name)));
                    }
                }
            });
    });
}

fn picked(ui: &mut egui::Ui, editor: &Editor, edits: &mut MessageWriter<Edit>) {
    let Some((sq, piece)) = editor
        .selected
        .and_then(|s| Some((s, editor.board.piece_at(s)?)))
    else {
        return;
    };
    ui.horizontal(|ui| {
        ui.label(format!("{} on {sq}:", piece.describe()));
        if ui.button("↺").clicked() {
            edits.write(Edit::Rotate(sq, Rotation::Anticlockwise));
        }
        if ui.button("↻").clicked() {
            edits.write(Edit::Rotate(sq, Rotation::Clockwise));
        }
        if ui.button("Remove").clicked() {
            edits.write(Edit::Remove(sq));
        }
    });
}

fn lasers(ui: &mut egui::Ui, editor: &Editor, edits: &mut MessageWriter<Edit>) {
    ui.horizontal(|ui| {
        for side in Side::ALL {
            if ui.button(format!("Fire {side}")).clicked() {
                edits.write(Edit::Fire(side));
            }
        }
    });
    if let Some(shot) = &editor.shot {
        let hits: Vec<String> = shot
            .hits
            .iter()
            .map(|h| format!("{} on {}", h.piece.describe(), h.square))
            .collect();
        ui.label(if hits.is_empty() {
            format!("{}'s beam hits nothing.", shot.color)
        } else {
            format!("{}'s beam hits {}.", shot.color, hits.join(", "))
        });
    }
}
