//! The egui panels, one file each: a side panel per screen (the game, the new-game form, the
//! saved games, the replay, the settings), the status bar, the overlays on the board (labels,
//! turn buttons, clocks) and the dialogs. Each panel takes its room from [`PanelSpace`], and the
//! camera's viewport is set from what is left.

use crate::screen::{GoTo, Screen};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use khet_engine::{Color as Side, Kind};

pub mod dialogs;
pub mod game_over;
pub mod game_panel;
pub mod moves;
pub mod new_game;
pub mod notices;
pub mod open_games;
pub mod overlays;
pub mod preview;
pub mod replay_panel;
pub mod settings_panel;
pub mod status_bar;
pub mod table_buttons;

/// The part of the window (logical points) not yet taken by a panel this frame.
#[derive(Resource, Clone, Copy, Debug)]
pub struct PanelSpace {
    pub free: egui::Rect,
}

/// The order of the panels in a frame: the side panel takes the full height, the status bar
/// the bottom of what is left, then the board gets the rest and the overlays go on top.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub enum PanelSet {
    Begin,
    Side,
    Bottom,
    Viewport,
    Overlays,
}

pub(super) fn plugin(app: &mut App) {
    app.insert_resource(PanelSpace {
        free: egui::Rect::NOTHING,
    })
    .configure_sets(
        EguiPrimaryContextPass,
        (
            PanelSet::Begin,
            PanelSet::Side,
            PanelSet::Bottom,
            PanelSet::Viewport,
            PanelSet::Overlays,
        )
            .chain(),
    )
    .add_systems(EguiPrimaryContextPass, begin.in_set(PanelSet::Begin));
    game_panel::plugin(app);
    new_game::plugin(app);
    open_games::plugin(app);
    replay_panel::plugin(app);
    settings_panel::plugin(app);
    status_bar::plugin(app);
    overlays::plugin(app);
    dialogs::plugin(app);
}

fn begin(mut contexts: EguiContexts, mut space: ResMut<PanelSpace>) -> Result {
    space.free = contexts.ctx_mut()?.viewport_rect();
    Ok(())
}

/// A background `Ui` over the free space, for a panel to take its part of.
pub fn root(ctx: &egui::Context, space: &PanelSpace, id: &'static str) -> egui::Ui {
    egui::Ui::new(
        ctx.clone(),
        id.into(),
        egui::UiBuilder::new()
            .layer_id(egui::LayerId::background())
            .max_rect(space.free),
    )
}

/// Shows a side panel on the left and takes its width from the free space.
pub fn side_panel(ctx: &egui::Context, space: &mut PanelSpace, add: impl FnOnce(&mut egui::Ui)) {
    let mut root = root(ctx, space, "side");
    let panel = egui::Panel::left("side")
        .default_size(300.0)
        .resizable(false)
        .show(&mut root, add);
    space.free.min.x += panel.response.rect.width();
}

/// The heading and the way to every screen.
pub fn nav(ui: &mut egui::Ui, here: Screen, go: &mut MessageWriter<GoTo>) {
    ui.horizontal(|ui| {
        ui.heading("Khet");
        for (screen, label) in [
            (Screen::Playing, "Game"),
            (Screen::Open, "Open"),
            (Screen::Settings, "Settings"),
        ] {
            if ui.selectable_label(here == screen, label).clicked() && here != screen {
                go.write(GoTo(screen));
            }
        }
    });
    ui.separator();
}

pub fn side_color(side: Side) -> egui::Color32 {
    match side {
        Side::Silver => egui::Color32::from_rgb(225, 230, 240),
        Side::Red => egui::Color32::from_rgb(235, 80, 70),
    }
}

pub fn piece_letter(kind: Kind) -> &'static str {
    match kind {
        Kind::Pharaoh => "K",
        Kind::Sphinx => "X",
        Kind::Pyramid => "P",
        Kind::Anubis => "A",
        Kind::Scarab => "S",
        Kind::Djed => "D",
        Kind::Obelisk => "O",
        Kind::Eye => "E",
    }
}

/// A duration as `m:ss`, with tenths under ten seconds.
pub fn clock_text(d: std::time::Duration) -> String {
    let s = d.as_secs();
    if s < 10 {
        format!("0:{:04.1}", d.as_secs_f32())
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}
