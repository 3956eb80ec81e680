//! The new-game form: edition, setup (with a preview), players and levels, casual or
//! tournament, clock, swap rule. Its choices are the settings' defaults, kept between runs.

use super::game_panel::SideTab;
use super::{PanelSet, PanelSpace, nav, side_color, side_panel};
use crate::screen::{GoTo, Screen};
use crate::settings::Settings;
use crate::setups::SetupLibrary;
use crate::state::{NewGameRequested, NewGameSpec, Player};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use khet_engine::{Color as Side, Edition, Level, Rules};

/// The form's edition and chosen setup (the rest lives in the settings).
#[derive(Resource)]
pub struct NewGameForm {
    edition: Edition,
    chosen: Option<String>,
}

impl Default for NewGameForm {
    fn default() -> NewGameForm {
        NewGameForm {
            edition: Edition::Khet2,
            chosen: Some("khet2/classic".into()),
        }
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<NewGameForm>().add_systems(
        EguiPrimaryContextPass,
        panel
            .run_if(in_state(Screen::Playing).and_then(resource_equals(SideTab::NewGame)))
            .in_set(PanelSet::Side),
    );
}

fn panel(
    mut contexts: EguiContexts,
    mut space: ResMut<PanelSpace>,
    mut form: ResMut<NewGameForm>,
    mut settings: ResMut<Settings>,
    mut tab: ResMut<SideTab>,
    library: Res<SetupLibrary>,
    mut go: MessageWriter<GoTo>,
    mut new_game: MessageWriter<NewGameRequested>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    side_panel(&ctx, &mut space, |ui| {
        nav(ui, Screen::Playing, &mut go);
        ui.horizontal(|ui| {
            ui.label("Edition");
            ui.radio_value(&mut form.edition, Edition::Khet2, "Khet 2.0");
            ui.radio_value(&mut form.edition, Edition::Khet1, "Khet 1.0");
        });
        let chosen = setups(ui, &mut form, &library);
        // The form's choices are the settings' defaults: written back (and saved) on change.
        let mut choice = settings.clone();
        players(ui, &mut choice.players);
        super::settings_panel::rules(ui, &mut choice);
        ui.add_space(6.0);
        ui.horizontal(|ui| {
            if ui
                .add_enabled(
                    chosen.is_some(),
                    egui::Button::new(egui::RichText::new("Start").strong()),
                )
                .clicked()
                && let Some(setup) = chosen
            {
                new_game.write(NewGameRequested(NewGameSpec {
                    setup,
                    rules: Rules {
                        swap_landing: choice.swap_landing,
                        ..Rules::default()
                    },
                    players: choice.players,
                    mode: choice.mode,
                    clock: choice.clock,
                    resume: None,
                }));
                *tab = SideTab::Game;
            }
            if ui.button("Back to the game").clicked() {
                *tab = SideTab::Game;
            }
        });
        settings.set_if_neq(choice);
    });
    Ok(())
}

fn setups(
    ui: &mut egui::Ui,
    form: &mut NewGameForm,
    library: &SetupLibrary,
) -> Option<khet_engine::Setup> {
    ui.label("Setup");
    egui::ScrollArea::vertical()
        .max_height(180.0)
        .show(ui, |ui| {
            for listing in &library.listings {
                match &listing.setup {
                    Ok(setup) if setup.edition == form.edition => {
                        let chosen = form.chosen.as_deref() == Some(listing.label.as_str());
                        let label = format!("{} ({})", setup.name, listing.label);
                        if ui
                            .selectable_label(chosen, label)
                            .on_hover_text(&setup.description)
                            .clicked()
                        {
                            form.chosen = Some(listing.label.clone());
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        ui.add_enabled(
                            false,
                            egui::Button::selectable(false, format!("⚠ {}", listing.label)),
                        );
                        ui.label(
                            egui::RichText::new(e.to_string())
                                .small()
                                .color(egui::Color32::from_rgb(230, 150, 90)),
                        );
                    }
                }
            }
        });
    let chosen = form
        .chosen
        .as_deref()
        .and_then(|l| library.find(l))
        .filter(|s| s.edition == form.edition)
        .cloned();
    if let Some(setup) = &chosen {
        super::preview::preview(ui, &setup.position);
        ui.small(&setup.description);
    }
    chosen
}

/// Person or computer for each side, and the computer's level.
pub fn players(ui: &mut egui::Ui, players: &mut [Player; 2]) {
    ui.label("Players");
    for s in [Side::Silver, Side::Red] {
        let player = &mut players[s.index()];
        ui.horizontal(|ui| {
            ui.label(egui::RichText::new(format!("{s}:")).color(side_color(s)));
            let person = *player == Player::Person;
            if ui.selectable_label(person, "Person").clicked() {
                *player = Player::Person;
            }
            if ui.selectable_label(!person, "Computer").clicked() && person {
                *player = Player::Computer(Level::Casual);
            }
            if let Player::Computer(level) = player {
                egui::ComboBox::from_id_salt(("level", s.index()))
                    .selected_text(level.name())
                    .show_ui(ui, |ui| {
                        for l in Level::ALL {
                            ui.selectable_value(level, l, l.name())
                                .on_hover_text(l.description());
                        }
                    });
            }
        });
    }
}
