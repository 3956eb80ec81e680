//! "Save as" (Ctrl+S): the game saved under a name of the player's choosing.

use crate::saves::SaveAs;
use crate::table::{Match, OpenSaveDialog};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

/// The "save as" dialog: open, and the name typed so far.
#[derive(Resource, Default)]
pub struct SaveDialog(pub Option<String>);

pub fn save_as(
    mut contexts: EguiContexts,
    space: Res<crate::theme::PanelSpace>,
    mut dialog: ResMut<SaveDialog>,
    mut open: MessageReader<OpenSaveDialog>,
    mut save: MessageWriter<SaveAs>,
    m: Res<Match>,
) -> Result {
    if open.read().count() > 0 && dialog.0.is_none() {
        dialog.0 = Some(format!(
            "{} {}",
            m.setup_name,
            m.date.get(..10).unwrap_or("")
        ));
    }
    let Some(name) = dialog.0.as_mut() else {
        return Ok(());
    };
    let mut close = false;
    crate::theme::dialog(
        "Save the game",
        egui::Align2::CENTER_CENTER,
        [0.0, 0.0],
        &space,
    )
    .show(contexts.ctx_mut()?, |ui| {
        ui.label("Name:");
        let field = ui.text_edit_singleline(name);
        field.request_focus();
        let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        ui.horizontal(|ui| {
            if ui.button("Save").clicked() || enter {
                save.write(SaveAs(name.clone()));
                close = true;
            }
            if ui.button("Cancel").clicked() {
                close = true;
            }
        });
    });
    if close {
        dialog.0 = None;
    }
    Ok(())
}
