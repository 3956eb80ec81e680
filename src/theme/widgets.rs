//! What the panels share: the room they take, the way between screens, colours and texts.

use super::PanelSpace;
use crate::screen::Screen;
use bevy::prelude::*;
use bevy_egui::egui;
use khet_engine::{Color as Side, Kind};

/// A dialog window over the board: fixed size, not collapsible, anchored within the room the
/// panels leave (`space`), so that it is centred on the board, not on the window.
pub fn dialog(
    title: &'static str,
    anchor: egui::Align2,
    offset: [f32; 2],
    space: &PanelSpace,
) -> egui::Window<'static> {
    let window = egui::Window::new(title)
        .collapsible(false)
        .resizable(false)
        .anchor(anchor, offset);
    // Until the panels have taken their room (the first frame), the whole window.
    if space.free.is_positive() {
        window.constrain_to(space.free)
    } else {
        window
    }
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
    wide_side_panel(ctx, space, 300.0, add);
}

/// [`side_panel`] of a chosen width, for screens with more to list.
pub fn wide_side_panel(
    ctx: &egui::Context,
    space: &mut PanelSpace,
    width: f32,
    add: impl FnOnce(&mut egui::Ui),
) {
    let mut root = root(ctx, space, "side");
    let panel = egui::Panel::left("side")
        .default_size(width)
        .resizable(false)
        .show(&mut root, |ui| {
            // A short window scrolls the panel rather than cutting off its foot (the keys).
            egui::ScrollArea::vertical().show(ui, add);
        });
    space.free.min.x += panel.response.rect.width();
}

/// The heading and the way to every screen.
pub fn nav(ui: &mut egui::Ui, here: Screen, go: &mut NextState<Screen>) {
    // Wrapped, so that the side panel keeps its width (and the board its room) however many
    // screens there are.
    ui.horizontal_wrapped(|ui| {
        ui.heading("Khet");
        for (screen, label) in [
            (Screen::Playing, "Game"),
            (Screen::Online, "Online"),
            (Screen::Learn, "Learn"),
            (Screen::Editor, "Editor"),
            (Screen::Open, "Open"),
            (Screen::Settings, "Settings"),
        ] {
            if ui.selectable_label(here == screen, label).clicked() && here != screen {
                go.set(screen);
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
