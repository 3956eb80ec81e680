//! The side panel of a game: who is to move, the moves, the lost pieces, and what can be done
//! at the table (draws, resignation, take-back, hint, save, copy and paste, replay).

use super::{PanelSet, PanelSpace, moves::move_list, nav, piece_letter, side_color, side_panel};
use crate::ai::{HintRequested, Thinking};
use crate::screen::{GoTo, Screen};
use crate::state::{Match, Mode, Player, Show, TableAction, has_match};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use khet_engine::Color as Side;

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
                    .and_then(resource_equals(SideTab::Game)),
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
    mut tools: super::dialogs::Tools,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    side_panel(&ctx, &mut space, |ui| {
        nav(ui, Screen::Playing, &mut go);
        let side = m.game.side_to_move();
        let mode = if m.spec.mode == Mode::Tournament {
            " · tournament"
        } else {
            ""
        };
        ui.label(format!(
            "{} · {}{mode}",
            m.setup_name,
            m.game.start().edition()
        ));
        match m.game.result() {
            Some(r) => {
                ui.label(egui::RichText::new(r.to_string()).strong());
            }
            None => {
                ui.horizontal(|ui| {
                    let (dot, _) =
                        ui.allocate_exact_size(egui::vec2(16.0, 16.0), egui::Sense::hover());
                    ui.painter()
                        .circle_filled(dot.center(), 7.0, side_color(side));
                    ui.label(
                        egui::RichText::new(format!("{side} to move"))
                            .color(side_color(side))
                            .strong()
                            .size(18.0),
                    );
                });
            }
        }
        if let Some(t) = thinking
            .as_deref()
            .filter(|t| t.purpose == crate::ai::Purpose::Play)
        {
            ui.horizontal(|ui| {
                ui.spinner();
                let level = match m.player(side) {
                    Player::Computer(l) => l.name(),
                    Player::Person => "",
                };
                ui.label(format!(
                    "{side} ({level}) is thinking… {:.0} s",
                    (time.elapsed_secs() - t.since).max(0.0)
                ));
            });
        }
        for s in [Side::Silver, Side::Red] {
            if let Player::Computer(l) = m.player(s) {
                ui.small(
                    egui::RichText::new(format!("{s}: computer, {}", l.name()))
                        .color(side_color(s)),
                );
            }
        }
        ui.add_space(4.0);
        ui.label("Moves");
        move_list(ui, m.game.turns(), None, 200.0);
        ui.add_space(4.0);
        let lost = m.lost();
        for s in [Side::Silver, Side::Red] {
            let letters: Vec<&str> = lost[s.index()]
                .iter()
                .map(|p| piece_letter(p.kind()))
                .collect();
            let text = if letters.is_empty() {
                "nothing".into()
            } else {
                letters.join(" ")
            };
            ui.label(egui::RichText::new(format!("{s} lost: {text}")).color(side_color(s)));
        }
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
