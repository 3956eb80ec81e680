//! The end of a game, once the last shot has landed: the result, and what next; after a
//! person's second win in a row against a level of the computer, the next level up.

use crate::settings::Settings;
use crate::table::clock::Clocks;
use crate::table::ladder::{Climb, suggestion};
use crate::table::ui::SideTab;
use crate::table::{Match, NewGameRequested, Show, Watch};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

pub fn game_over(
    mut contexts: EguiContexts,
    space: Res<crate::theme::PanelSpace>,
    m: Res<Match>,
    show: Res<Show>,
    clocks: Option<Res<Clocks>>,
    screen: Res<State<crate::screen::Screen>>,
    mut tab: ResMut<NextState<SideTab>>,
    mut new_game: MessageWriter<NewGameRequested>,
    mut watch: MessageWriter<Watch>,
    settings: Res<Settings>,
    mut climb: MessageWriter<Climb>,
    mut closed: Local<Option<(String, usize)>>,
    moment: Option<Res<crate::table::cues::PharaohMoment>>,
) -> Result {
    let Some(result) = m.game.result() else {
        return Ok(());
    };
    let this = (m.date.clone(), m.game.turns().len());
    // A lit Pharaoh has its moment first.
    if !show.is_idle()
        || moment.is_some()
        || *screen.get() != crate::screen::Screen::Playing
        || closed.as_ref() == Some(&this)
    {
        return Ok(());
    }
    crate::theme::dialog("Game over", egui::Align2::CENTER_CENTER, [0.0, 0.0], &space).show(
        contexts.ctx_mut()?,
        |ui| {
            ui.heading(result.to_string());
            ui.label(format!(
                "after {} moves, {}",
                m.game.turns().len(),
                m.setup_name
            ));
            if let Some((beaten, wins, next)) = suggestion(&m, settings.streak) {
                ui.add_space(4.0);
                ui.horizontal(|ui| {
                    ui.label(format!(
                        "{} wins in a row against {beaten}. Try {next} ({})?",
                        in_words(wins),
                        next.rating()
                    ));
                    if ui.button(format!("Play {next}")).clicked() {
                        climb.write(Climb(next));
                    }
                });
                ui.add_space(4.0);
            }
            ui.horizontal(|ui| {
                if ui.button("Rematch").clicked() {
                    let mut spec = m.spec.clone();
                    spec.resume = None;
                    new_game.write(NewGameRequested(spec));
                }
                if ui.button("New game…").clicked() {
                    tab.set(SideTab::NewGame);
                    *closed = Some(this.clone());
                }
                if ui.button("Replay and analyse").clicked() {
                    watch.write(Watch {
                        game: m.game.clone(),
                        name: m.setup_name.clone(),
                        back_to: Some(m.spec_now(clocks.map(|c| c.remaining))),
                    });
                }
                if ui.button("Close").clicked() {
                    *closed = Some(this.clone());
                }
            });
        },
    );
    Ok(())
}

/// A count of wins at the start of a sentence: "Two", "Three", … "12".
fn in_words(n: u32) -> String {
    let words = [
        "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
    ];
    n.checked_sub(2)
        .and_then(|i| words.get(i as usize))
        .map_or(n.to_string(), |w| (*w).to_string())
}
