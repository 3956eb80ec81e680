//! The side panel of a game: who is to move, the moves, the lost pieces, and what can be done
//! at the table (draws, resignation, take-back, hint, save, copy and paste, replay).

use super::{PanelSet, PanelSpace, moves::move_list, nav, side_panel};
use crate::ai::{HintRequested, Thinking};
use crate::screen::{GoTo, Screen};
use crate::state::{Match, Show, TableAction, has_match};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass};

/// Which side panel the playing screen shows.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SideTab {
    #[default]
    Game,
    NewGame,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<SideTab>().add_systems(
        EguiPrimaryContextPass,
        panel
            .run_if(
                in_state(Screen::Playing)
                    .and_then(has_match)
                    .and_then(resource_equals(SideTab::Game))
                    .and_then(not(crate::lesson::in_lesson)),
            )
            .in_set(PanelSet::Side),
    );
}

fn panel(
    mut contexts: EguiContexts,
    mut space: ResMut<PanelSpace>,
    mut tab: ResMut<SideTab>,
    m: Res<Match>,
    show: Res<Show>,
    thinking: Option<Res<Thinking>>,
    time: Res<Time>,
    mut go: MessageWriter<GoTo>,
    mut actions: MessageWriter<TableAction>,
    mut hints: MessageWriter<HintRequested>,
    mut tools: super::tools::Tools,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    side_panel(&ctx, &mut space, |ui| {
        nav(ui, Screen::Playing, &mut go);
        let since = thinking
            .as_deref()
            .filter(|t| t.purpose == crate::ai::Purpose::Play)
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
            *tab = SideTab::NewGame;
        }
        tools.buttons(ui, &m);
        ui.small("Left click: select and move · Q / E or ↺ ↻: turn · right-drag: orbit · wheel: zoom · Space: skip · Ctrl+Z: take back · Ctrl+S: save");
    });
    Ok(())
}
