//! The new-game form: edition, setup (with a preview), players and levels, casual or
//! tournament, clock, swap rule. Its choices are the settings' defaults, kept between runs.

use super::SideTab;
use crate::screen::Screen;
use crate::settings::Settings;
use crate::setups::SetupLibrary;
use crate::table::{NewGameRequested, NewGameSpec};
use crate::theme::{PanelSet, PanelSpace, nav, side_panel};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use khet_engine::{Edition, Rules};

/// The form's edition and chosen setup (the rest lives in the settings).
#[derive(Resource)]
pub struct NewGameForm {
    pub edition: Edition,
    pub chosen: Option<String>,
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
            .run_if(in_state(SideTab::NewGame))
            .in_set(PanelSet::Side),
    );
}

fn panel(
    mut contexts: EguiContexts,
    mut space: ResMut<PanelSpace>,
    mut form: ResMut<NewGameForm>,
    mut settings: ResMut<Settings>,
    mut tab: ResMut<NextState<SideTab>>,
    library: Res<SetupLibrary>,
    mut go: ResMut<NextState<Screen>>,
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
        let chosen = super::setup_list::setups(ui, form.edition, &mut form.chosen, &library);
        // The form's choices are the settings' defaults: written back (and saved) on change.
        let mut choice = settings.clone();
        crate::theme::players::players(ui, &mut choice.players, &mut choice.computer_level);
        crate::theme::rules_form::rules(
            ui,
            &mut choice.mode,
            &mut choice.clock,
            &mut choice.swap_landing,
        );
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
                    lesson: false,
                    online: false,
                }));
                tab.set(SideTab::Game);
            }
            if ui.button("Back to the game").clicked() {
                tab.set(SideTab::Game);
            }
        });
        settings.set_if_neq(choice);
    });
    Ok(())
}
