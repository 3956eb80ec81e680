//! The status bar along the bottom: the latest news, in words.

use super::{PanelSet, PanelSpace, root};
use crate::news::StatusLine;
use crate::state::{Match, has_match};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        bar.run_if(has_match).in_set(PanelSet::Bottom),
    );
}

fn bar(
    mut contexts: EguiContexts,
    mut space: ResMut<PanelSpace>,
    status: Res<StatusLine>,
    m: Res<Match>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = root(&ctx, &space, "status");
    let text = match &status.0 {
        Some(news) => news.to_string(),
        None => format!("{} to move", m.game.side_to_move()),
    };
    let panel = egui::Panel::bottom("status").show(&mut root, |ui| {
        ui.label(text);
    });
    space.free.max.y -= panel.response.rect.height();
    Ok(())
}
