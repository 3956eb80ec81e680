//! The game panel's tools: save, copy the game or the position, paste, replay.

use crate::news::News;
use crate::settings::Settings;
use crate::table::OpenSaveDialog;
use crate::table::clock::Clocks;
use crate::table::{Match, NewGameRequested, NewGameSpec, Watch};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_egui::{EguiClipboard, egui};

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
                    back_to: Some(m.spec_now(self.clocks.as_ref().map(|c| c.remaining))),
                });
            }
        });
    }

    fn paste(&mut self, m: &Match) {
        let text = self.clipboard.get_text().unwrap_or_default();
        match crate::table::spec::game_from_text(&text, m.game.start().rules()) {
            Ok(game) => {
                let spec = NewGameSpec::resuming(
                    "Pasted".into(),
                    game,
                    self.settings.players,
                    crate::files::now_utc(),
                );
                self.new_game.write(NewGameRequested(spec));
            }
            Err(e) => {
                self.news.write(News::PasteFailed(e));
            }
        }
    }
}
