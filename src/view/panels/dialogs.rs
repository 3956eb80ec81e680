//! The dialogs: a draw offer to answer, the end of a game, the offer to resume an unfinished
//! game, "save as", notices of damaged files; and the tool buttons that open some of them.

use crate::clock::Clocks;
use crate::news::News;
use crate::replay::Watch;
use crate::saves::SaveAs;
use crate::settings::Settings;
use crate::state::{Match, NewGameRequested, NewGameSpec, TableAction, has_match};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_egui::{EguiClipboard, EguiContexts, EguiPrimaryContextPass, egui};

/// Open the "save as" dialog (Ctrl+S).
#[derive(Message, Clone, Copy, Debug)]
pub struct OpenSaveDialog;

/// The "save as" dialog: open, and the name typed so far.
#[derive(Resource, Default)]
pub struct SaveDialog(pub Option<String>);

pub(super) fn plugin(app: &mut App) {
    app.add_message::<OpenSaveDialog>()
        .init_resource::<SaveDialog>()
        .add_systems(
            EguiPrimaryContextPass,
            (
                super::game_over::game_over,
                draw_offer,
                save_as,
                super::notices::resume_offer,
                super::notices::notices,
            )
                .run_if(has_match)
                .in_set(super::PanelSet::Overlays),
        );
}

/// The game panel's tools: save, copy, paste, watch.
#[derive(SystemParam)]
pub struct Tools<'w> {
    clipboard: ResMut<'w, EguiClipboard>,
    news: MessageWriter<'w, News>,
    new_game: MessageWriter<'w, NewGameRequested>,
    watch: MessageWriter<'w, Watch>,
    open_save: MessageWriter<'w, OpenSaveDialog>,
    settings: Res<'w, Settings>,
    clocks: Option<Res<'w, Clocks>>,
}

impl Tools<'_> {
    pub fn buttons(&mut self, ui: &mut egui::Ui, m: &Match) {
        ui.horizontal_wrapped(|ui| {
            if ui
                .button("Save…")
                .on_hover_text("Ctrl+S: save under a name")
                .clicked()
            {
                self.open_save.write(OpenSaveDialog);
            }
            if ui
                .button("Copy game")
                .on_hover_text("The protocol's line: position <start> moves …")
                .clicked()
            {
                self.clipboard.set_text(&m.game.to_protocol_line());
                self.news.write(News::Copied("the game"));
            }
            if ui
                .button("Copy position")
                .on_hover_text("The position string")
                .clicked()
            {
                self.clipboard.set_text(&m.game.position().to_string());
                self.news.write(News::Copied("the position"));
            }
            if ui
                .button("Paste")
                .on_hover_text("A protocol line or a position string: play on from there")
                .clicked()
            {
                self.paste(m);
            }
            if ui
                .add_enabled(!m.game.turns().is_empty(), egui::Button::new("Replay"))
                .on_hover_text("Watch this game move by move, with analysis")
                .clicked()
            {
                self.watch.write(Watch {
                    game: m.game.clone(),
                    name: m.setup_name.clone(),
                    back_to: Some(crate::saves::spec_now(m, self.clocks.as_deref())),
                });
            }
        });
    }

    fn paste(&mut self, m: &Match) {
        let text = self.clipboard.get_text().unwrap_or_default();
        match crate::saves::game_from_text(&text, m.game.start().rules()) {
            Ok(game) => {
                let setup = khet_engine::Setup {
                    name: "Pasted".into(),
                    edition: game.start().edition(),
                    description: String::new(),
                    position: *game.start(),
                };
                let mut spec = NewGameSpec::casual(setup, self.settings.players);
                spec.rules = game.start().rules();
                spec.resume = Some(crate::state::Resume {
                    game,
                    remaining: None,
                    file: None,
                    date: crate::files::now_utc(),
                });
                self.new_game.write(NewGameRequested(spec));
            }
            Err(e) => {
                self.news.write(News::PasteFailed(e));
            }
        }
    }
}

fn draw_offer(
    mut contexts: EguiContexts,
    m: Res<Match>,
    mut actions: MessageWriter<TableAction>,
) -> Result {
    let Some(by) = m.draw_offer else {
        return Ok(());
    };
    // A computer answers by itself.
    if m.player(by.other()) != crate::state::Player::Person {
        return Ok(());
    }
    egui::Window::new("Draw offered")
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_TOP, [0.0, 20.0])
        .show(contexts.ctx_mut()?, |ui| {
            ui.label(format!(
                "{by} offers a draw. {}, do you accept?",
                by.other()
            ));
            ui.horizontal(|ui| {
                if ui.button("Accept").clicked() {
                    actions.write(TableAction::AcceptDraw);
                }
                if ui.button("Decline").clicked() {
                    actions.write(TableAction::DeclineDraw);
                }
            });
        });
    Ok(())
}

fn save_as(
    mut contexts: EguiContexts,
    mut dialog: ResMut<SaveDialog>,
    mut open: MessageReader<OpenSaveDialog>,
    mut save: MessageWriter<SaveAs>,
    m: Res<Match>,
) -> Result {
    if open.read().count() > 0 && dialog.0.is_none() {
        dialog.0 = Some(format!(
            "{} {}",
            m.setup_name,
            m.date.get(..10).unwrap_or("")
        ));
    }
    let Some(name) = dialog.0.as_mut() else {
        return Ok(());
    };
    let mut close = false;
    egui::Window::new("Save the game")
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
        .show(contexts.ctx_mut()?, |ui| {
            ui.label("Name:");
            let field = ui.text_edit_singleline(name);
            field.request_focus();
            let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            ui.horizontal(|ui| {
                if ui.button("Save").clicked() || enter {
                    save.write(SaveAs(name.clone()));
                    close = true;
                }
                if ui.button("Cancel").clicked() {
                    close = true;
                }
            });
        });
    if close {
        dialog.0 = None;
    }
    Ok(())
}
