//! The status bar along the bottom: the latest news, in words.

use crate::news::StatusLine;
use crate::theme::{PanelSet, PanelSpace, root};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(EguiPrimaryContextPass, bar.in_set(PanelSet::Bottom));
}

fn bar(
    mut contexts: EguiContexts,
    mut space: ResMut<PanelSpace>,
    status: Res<StatusLine>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = root(&ctx, &space, "status");
    let text = status
        .0
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default();
    let panel = egui::Panel::bottom("status").show(&mut root, |ui| {
        ui.label(text);
    });
    space.free.max.y -= panel.response.rect.height();
    Ok(())
}
