//! The side panel of a game: who is to move, the moves, the lost pieces, and what can be done
//! at the table (draws, resignation, take-back, hint, save, copy and paste, replay).

use super::SideTab;
use crate::screen::Screen;
use crate::table::ai::{HintRequested, Thinking};
use crate::table::{Match, OnTable, Show, TableAction, has_match};
use crate::theme::{PanelSet, PanelSpace, moves::move_list, nav, side_panel};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        panel
            .run_if(
                in_state(SideTab::Game)
                    .and_then(has_match)
                    .and_then(in_state(OnTable::Game)),
            )
            .in_set(PanelSet::Side),
    );
}

fn panel(
    mut contexts: EguiContexts,
    mut space: ResMut<PanelSpace>,
    mut tab: ResMut<NextState<SideTab>>,
    m: Res<Match>,
    show: Res<Show>,
    thinking: Option<Res<Thinking>>,
    time: Res<Time>,
    mut go: ResMut<NextState<Screen>>,
    mut actions: MessageWriter<TableAction>,
    mut hints: MessageWriter<HintRequested>,
    mut tools: super::tools::Tools,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    side_panel(&ctx, &mut space, |ui| {
        nav(ui, Screen::Playing, &mut go);
        let since = thinking
            .as_deref()
            .filter(|t| t.purpose == crate::table::ai::Purpose::Play)
            .map(|t| (time.elapsed_secs() - t.since).max(0.0));
        super::to_move::to_move(ui, &m, since, !show.is_idle());
        ui.add_space(4.0);
        ui.label("Moves");
        move_list(ui, m.game.turns(), None, 200.0);
        ui.add_space(4.0);
        super::to_move::lost(ui, &m);
        ui.separator();
        super::table_buttons::table_buttons(
            ui,
            &m,
            &show,
            thinking.is_some(),
            &mut actions,
            &mut hints,
        );
        if ui.button("New game…").clicked() {
            tab.set(SideTab::NewGame);
        }
        tools.buttons(ui, &m);
        ui.small("Left click: select and move · Q / E or ↺ ↻: turn · right-drag: orbit · wheel: zoom · Space: skip · Ctrl+Z: take back · Ctrl+S: save");
    });
    Ok(())
}
