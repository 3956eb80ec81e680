//! The Online screen (the name and server, creating a game and its code, joining or watching by
//! code, quick pairing, the lobby, the leaderboard, the games to return to, hosting a server on
//! this computer) and, at the table,
//! what online play adds: the connection's state, the opponent gone and the claim, and the
//! opponent's take-back request. Games that last days (the paces offered, the player's games
//! at the server, the days left at the table) are in `days`.

mod club;
mod days;

use super::{
    HostPort, Hosting, LinkState, Online, OnlineFiles, OnlineNotice, OnlineRequest, OnlineTable,
};
use crate::screen::Screen;
use crate::settings::Settings;
use crate::theme::{PanelSet, PanelSpace, nav, side_panel};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
pub use days::{Pace, pace_choices};
use khet_engine::{Color as Side, TimeControl};
use khet_protocol::{ClientMsg, ClockSpec, NewGame, SeatChoice};

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<Form>()
        .add_systems(
            EguiPrimaryContextPass,
            screen
                .run_if(in_state(Screen::Online))
                .in_set(PanelSet::Side),
        )
        .add_systems(
            EguiPrimaryContextPass,
            (
                players,
                connection,
                opponent_gone,
                days::days_left,
                takeback_asked,
                club::table_rematch,
            )
                .run_if(resource_exists::<OnlineTable>.and_then(in_state(Screen::Playing)))
                .in_set(PanelSet::Overlays),
        );
}

/// What the player is filling in on the Online screen.
#[derive(Resource)]
pub struct Form {
    pub setup: &'static str,
    /// An index into [`pace_choices`].
    pub clock: usize,
    pub color: SeatChoice,
    pub rated: bool,
    pub listed: bool,
    pub code: String,
    pub pairing_rated: bool,
    /// The code typed to open a tournament.
    pub tournament: String,
}

impl Form {
    /// The game the form describes, to create or to challenge someone to.
    pub fn new_game(&self) -> NewGame {
        let pace = pace_choices()
            .get(self.clock)
            .copied()
            .unwrap_or(Pace::Clock(None));
        NewGame {
            setup: self.setup.to_string(),
            clock: pace.clock(),
            color: self.color,
            rated: self.rated,
            listed: self.listed,
            days_per_move: pace.days(),
        }
    }
}

impl Default for Form {
    fn default() -> Form {
        Form {
            setup: "khet2/classic",
            clock: 2,
            color: SeatChoice::Random,
            rated: false,
            listed: true,
            code: String::new(),
            pairing_rated: false,
            tournament: String::new(),
        }
    }
}

/// The clocks offered: none, then the table's presets.
pub fn clock_choices() -> Vec<Option<ClockSpec>> {
    std::iter::once(None)
        .chain(TimeControl::PRESETS.iter().map(|t| {
            Some(ClockSpec::minutes(
                u64::from(t.minutes),
                u64::from(t.increment_seconds),
            ))
        }))
        .collect()
}

/// Where the table's notice of the opponent's time goes: top right, below the clocks' line,
/// which stays in view (centred, it covered the corner of the "Online game" window at the top
/// left). "Opponent gone" (a live game) and "Days a move" (a game of days) share it: a game is
/// one or the other, so they never stand on each other.
pub(super) const BESIDE_CLOCKS: (egui::Align2, [f32; 2]) = (egui::Align2::RIGHT_TOP, [-10.0, 70.0]);

fn clock_label(clock: Option<ClockSpec>) -> String {
    khet_protocol::correspondence::pace(clock, None)
}

fn screen(
    mut contexts: EguiContexts,
    mut space: ResMut<PanelSpace>,
    mut go: ResMut<NextState<Screen>>,
    mut settings: ResMut<Settings>,
    online: Option<Res<Online>>,
    table: Option<Res<OnlineTable>>,
    files: Res<OnlineFiles>,
    notice: Res<OnlineNotice>,
    mut form: ResMut<Form>,
    mut requests: MessageWriter<OnlineRequest>,
    hosting: Option<Res<Hosting>>,
    mut host_port: ResMut<HostPort>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    side_panel(&ctx, &mut space, |ui| {
        nav(ui, Screen::Online, &mut go);
        egui::ScrollArea::vertical().show(ui, |ui| {
            match &online {
                None => offline(ui, &mut settings, &files, &notice, &mut requests),
                Some(online) => {
                    let link_base = hosting.as_deref().map(Hosting::address);
                    let server = link_base.as_deref().unwrap_or(&online.server);
                    connected(
                        ui,
                        online,
                        server,
                        table.as_deref(),
                        &files,
                        &mut form,
                        &mut requests,
                    );
                }
            }
            let name = khet_protocol::check_name(&settings.online_name);
            host(ui, hosting.as_deref(), &mut host_port, &mut requests, &name);
        });
    });
    Ok(())
}

/// *Host on this computer* (once the player's `name` will do, since the game connects to the
/// server it hosts under it), or what is hosted and how friends reach it.
fn host(
    ui: &mut egui::Ui,
    hosting: Option<&Hosting>,
    port: &mut HostPort,
    requests: &mut MessageWriter<OnlineRequest>,
    name: &Result<String, String>,
) {
    ui.separator();
    match hosting {
        None => {
            let why_not = name
                .as_ref()
                .err()
                .map(|e| format!("Give your name first: {e}."));
            ui.horizontal(|ui| {
                let button = ui
                    .add_enabled(
                        why_not.is_none(),
                        egui::Button::new("Host on this computer"),
                    )
                    .on_hover_text(
                        "Run a Khet server in this game, for friends on the same network: \
                         your game connects to it, and theirs to the address shown.",
                    );
                if let Some(why) = &why_not {
                    button.on_disabled_hover_text(why);
                } else if button.clicked() {
                    requests.write(OnlineRequest::Host(port.port));
                }
                ui.label("port");
                ui.add(egui::DragValue::new(&mut port.port).range(1024..=65535));
            });
            if let Some(why) = &why_not {
                ui.small(why);
            }
        }
        Some(hosting) => {
            ui.strong("Hosting a server on this computer");
            ui.label("Friends on this network connect their game to");
            copyable(ui, &hosting.address());
            ui.label("or watch the games in a browser at");
            copyable(ui, &hosting.page());
            if hosting.lan.is_none() {
                ui.small(
                    "This computer has no network besides itself: only its own games reach it.",
                );
            }
            ui.small(format!(
                "If they cannot connect, allow incoming connections on port {} in this \
                 computer's firewall.",
                hosting.port()
            ));
            if ui.button("Stop hosting").clicked() {
                requests.write(OnlineRequest::StopHosting);
            }
        }
    }
}

/// A line of text to copy, with its button.
fn copyable(ui: &mut egui::Ui, text: &str) {
    ui.horizontal(|ui| {
        ui.monospace(text);
        if ui.small_button("Copy").clicked() {
            ui.ctx().copy_text(text.to_string());
        }
    });
}

fn offline(
    ui: &mut egui::Ui,
    settings: &mut Settings,
    files: &OnlineFiles,
    notice: &OnlineNotice,
    requests: &mut MessageWriter<OnlineRequest>,
) {
    ui.label("Play a friend anywhere, or anyone waiting, through a Khet server.");
    let mut name = settings.online_name.clone();
    let mut server = settings.online_server.clone();
    egui::Grid::new("online-who").num_columns(2).show(ui, |ui| {
        ui.label("Your name");
        ui.add(egui::TextEdit::singleline(&mut name).char_limit(khet_protocol::MAX_NAME_CHARS));
        ui.end_row();
        ui.label("Server");
        ui.text_edit_singleline(&mut server).on_hover_text(
            "ws://HOST:PORT, or wss://HOST:PORT for a server with TLS. Several nodes of one service, separated by commas, are tried in \
             turn: if yours goes down, the game goes on on another.",
        );
        ui.end_row();
    });
    if name != settings.online_name {
        settings.online_name = name;
    }
    if server != settings.online_server {
        settings.online_server = server;
    }
    let name_ok = khet_protocol::check_name(&settings.online_name);
    let connect = ui.add_enabled(name_ok.is_ok(), egui::Button::new("Connect"));
    if let Err(e) = &name_ok {
        connect.on_disabled_hover_text(e);
    } else if connect.clicked() {
        requests.write(OnlineRequest::Connect);
    }
    if let Some(n) = &notice.0 {
        ui.colored_label(egui::Color32::from_rgb(235, 110, 90), n);
    }
    ui.small("Or run a server with `khet-server` (see the README).");
    games_to_return(ui, files, requests);
}

fn games_to_return(
    ui: &mut egui::Ui,
    files: &OnlineFiles,
    requests: &mut MessageWriter<OnlineRequest>,
) {
    let unfinished: Vec<_> = files.file.unfinished().take(5).collect();
    if unfinished.is_empty() {
        return;
    }
    ui.separator();
    ui.strong("Your games in progress");
    for seat in unfinished {
        ui.horizontal(|ui| {
            ui.monospace(&seat.code);
            ui.small(&seat.server);
            if ui.button("Return").clicked() {
                requests.write(OnlineRequest::Return(seat.code.clone()));
            }
        });
    }
}

fn connected(
    ui: &mut egui::Ui,
    online: &Online,
    server: &str,
    table: Option<&OnlineTable>,
    files: &OnlineFiles,
    form: &mut Form,
    requests: &mut MessageWriter<OnlineRequest>,
) {
    let send = |requests: &mut MessageWriter<OnlineRequest>, msg| {
        requests.write(OnlineRequest::Send(msg));
    };
    ui.horizontal(|ui| match &online.state {
        LinkState::Connecting => {
            ui.spinner();
            ui.label(format!("Connecting to {}…", online.server));
        }
        LinkState::Connected(me) => {
            ui.label(format!(
                "{} ({}) on {}",
                me.name,
                me.rating_text(),
                online.server
            ));
        }
        LinkState::Lost(why) => {
            ui.spinner();
            ui.label(format!("Reconnecting… ({why})"));
        }
    });
    if ui.button("Disconnect").clicked() {
        requests.write(OnlineRequest::Disconnect);
    }
    if let Some(code) = &online.waiting {
        ui.separator();
        ui.strong("Waiting for your opponent");
        ui.horizontal(|ui| {
            ui.label("Code:");
            ui.monospace(egui::RichText::new(code).size(20.0).strong());
        });
        let link = khet_protocol::play_link(server, code);
        ui.horizontal(|ui| {
            ui.small(&link);
            if ui.small_button("Copy").clicked() {
                ui.ctx().copy_text(link.clone());
            }
        });
        ui.small(
            "Send the link: your friend plays in a browser, or joins with it (or the code) here.",
        );
        if ui.button("Withdraw the game").clicked() {
            send(requests, ClientMsg::Resign);
            send(requests, ClientMsg::Lobby);
        }
    } else if let Some(t) = table {
        ui.separator();
        ui.label(format!(
            "Following {}: {}",
            t.code,
            super::describe(&t.mirror.view)
        ));
    }
    ui.separator();
    create_form(ui, form, requests);
    ui.separator();
    ui.strong("Join or watch a game");
    ui.horizontal(|ui| {
        ui.add(
            egui::TextEdit::singleline(&mut form.code)
                .hint_text("code or link")
                .desired_width(150.0),
        );
        let code = khet_protocol::check_code(&form.code);
        if ui
            .add_enabled(code.is_ok(), egui::Button::new("Join"))
            .clicked()
            && let Ok(code) = &code
        {
            send(requests, ClientMsg::Join { code: code.clone() });
        }
        if ui
            .add_enabled(code.is_ok(), egui::Button::new("Watch"))
            .clicked()
            && let Ok(code) = code
        {
            send(requests, ClientMsg::Watch { code, since: None });
        }
    });
    ui.separator();
    ui.strong("Quick pairing");
    ui.horizontal_wrapped(|ui| {
        for clock in clock_choices().into_iter().skip(1) {
            if ui.button(clock_label(clock)).clicked() {
                send(
                    requests,
                    ClientMsg::Seek {
                        clock,
                        rated: form.pairing_rated,
                    },
                );
            }
        }
        ui.checkbox(&mut form.pairing_rated, "rated");
    });
    ui.separator();
    lobby(ui, online, requests);
    club::challenges(ui, online, requests);
    ui.separator();
    leaderboard(ui, online, form, requests);
    club::tournament(ui, online, form, requests);
    if online.mine.is_empty() {
        games_to_return(ui, files, requests);
    } else {
        days::my_games(ui, online, files, requests);
    }
}

fn create_form(ui: &mut egui::Ui, form: &mut Form, requests: &mut MessageWriter<OnlineRequest>) {
    ui.strong("Create a game");
    egui::Grid::new("online-create")
        .num_columns(2)
        .show(ui, |ui| {
            ui.label("Setup");
            egui::ComboBox::from_id_salt("online-setup")
                .selected_text(form.setup)
                .show_ui(ui, |ui| {
                    for name in khet_engine::setup::catalogue_names() {
                        ui.selectable_value(&mut form.setup, name, name);
                    }
                });
            ui.end_row();
            ui.label("Clock");
            let choices = pace_choices();
            let chosen = choices
                .get(form.clock)
                .copied()
                .unwrap_or(Pace::Clock(None));
            egui::ComboBox::from_id_salt("online-clock")
                .selected_text(chosen.label())
                .show_ui(ui, |ui| {
                    for (i, pace) in choices.iter().enumerate() {
                        ui.selectable_value(&mut form.clock, i, pace.label());
                    }
                });
            ui.end_row();
            ui.label("You play");
            ui.horizontal(|ui| {
                ui.radio_value(&mut form.color, SeatChoice::Silver, "Silver");
                ui.radio_value(&mut form.color, SeatChoice::Red, "Red");
                ui.radio_value(&mut form.color, SeatChoice::Random, "Random");
            });
            ui.end_row();
        });
    ui.checkbox(&mut form.rated, "Rated (no take-backs)");
    ui.checkbox(&mut form.listed, "Show it in the lobby for anyone");
    if ui.button("Create").clicked() {
        requests.write(OnlineRequest::Send(ClientMsg::Create(form.new_game())));
    }
}

fn lobby(ui: &mut egui::Ui, online: &Online, requests: &mut MessageWriter<OnlineRequest>) {
    ui.strong("Open games");
    if online.lobby.is_empty() {
        ui.small("Nobody is waiting. Create a game, or pair quickly.");
        return;
    }
    let me = match &online.state {
        LinkState::Connected(p) => Some(p.id.clone()),
        _ => None,
    };
    egui::Grid::new("online-lobby")
        .striped(true)
        .show(ui, |ui| {
            for g in &online.lobby {
                ui.label(format!("{} ({})", g.creator.name, g.creator.rating_text()));
                let you = g
                    .joiner_color
                    .map_or("either side".into(), |c: Side| format!("you {c}"));
                let rated = if g.rated { "rated" } else { "casual" };
                ui.small(format!(
                    "{}, {}, {rated}, {you}",
                    g.setup,
                    khet_protocol::correspondence::pace(g.clock, g.days_per_move)
                ));
                let own = me.as_deref() == Some(g.creator.id.as_str());
                if ui.add_enabled(!own, egui::Button::new("Accept")).clicked() {
                    requests.write(OnlineRequest::Send(ClientMsg::Join {
                        code: g.code.clone(),
                    }));
                }
                ui.end_row();
            }
        });
}

fn leaderboard(
    ui: &mut egui::Ui,
    online: &Online,
    form: &Form,
    requests: &mut MessageWriter<OnlineRequest>,
) {
    ui.horizontal(|ui| {
        ui.strong("Leaderboard");
        if ui.small_button("Refresh").clicked() {
            requests.write(OnlineRequest::Send(ClientMsg::Leaderboard));
        }
    });
    if online.leaders.is_empty() {
        ui.small("No rated games yet.");
        return;
    }
    egui::Grid::new("online-leaders")
        .striped(true)
        .show(ui, |ui| {
            for (i, p) in online.leaders.iter().take(10).enumerate() {
                ui.label(format!("{}.", i + 1));
                ui.label(&p.name);
                ui.label(p.rating_text());
                ui.small(format!("{} games", p.games));
                club::challenge_button(ui, online, &p.id, form, requests);
                ui.end_row();
            }
        });
}

/// At the table: who plays (names and ratings), on what terms, and the game's code.
fn players(mut contexts: EguiContexts, space: Res<PanelSpace>, table: Res<OnlineTable>) -> Result {
    let view = &table.mirror.view;
    // Top left of the board's view, over the dark beyond the board's far rim: at the bottom it
    // covered the near rim and its letters.
    let dialog = crate::theme::dialog("Online game", egui::Align2::LEFT_TOP, [10.0, 10.0], &space);
    dialog.show(contexts.ctx_mut()?, |ui| {
        for side in [Side::Silver, Side::Red] {
            let who = view.players[side.index()]
                .as_ref()
                .map_or("—".to_string(), |p| {
                    format!("{} ({})", p.name, p.rating_text())
                });
            let you = if table.you() == Some(side) {
                " — you"
            } else {
                ""
            };
            ui.colored_label(
                crate::theme::side_color(side),
                format!("{side}: {who}{you}"),
            );
        }
        let rated = if view.rated { "rated" } else { "casual" };
        let clock = khet_protocol::correspondence::pace(view.clock, view.days_per_move);
        let watching = if table.you().is_none() {
            " · watching"
        } else {
            ""
        };
        ui.small(format!("{rated} · {clock} · game {}{watching}", table.code));
    });
    Ok(())
}

/// At the table: the connection lost and being taken up again.
fn connection(
    mut contexts: EguiContexts,
    space: Res<PanelSpace>,
    online: Option<Res<Online>>,
) -> Result {
    let why = match online.as_deref().map(|o| &o.state) {
        Some(LinkState::Lost(why)) => why.clone(),
        None => "not connected: go to Online to connect".into(),
        _ => return Ok(()),
    };
    crate::theme::dialog("Connection", egui::Align2::RIGHT_TOP, [-10.0, 60.0], &space).show(
        contexts.ctx_mut()?,
        |ui| {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!("Reconnecting to the server… {why}"));
            });
            ui.small("The game waits at the server; your clock runs.");
        },
    );
    Ok(())
}

/// At the table: the opponent has left; after the grace period the player may claim the game.
fn opponent_gone(
    mut contexts: EguiContexts,
    space: Res<PanelSpace>,
    table: Res<OnlineTable>,
    mut requests: MessageWriter<OnlineRequest>,
    mut frames: ResMut<crate::frames::NextFrame>,
) -> Result {
    let (Some(you), Some(absence)) = (table.you(), table.absence) else {
        return Ok(());
    };
    let view = &table.mirror.view;
    // Being away is how a game of days a move is played (`days::days_left`).
    if view.status != khet_protocol::Status::Playing
        || view.result.is_some()
        || view.days_per_move.is_some()
    {
        return Ok(());
    }
    let Some(gone) = absence.gone(you.other()) else {
        return Ok(());
    };
    let grace = std::time::Duration::from_millis(absence.grace_ms);
    let name = view.players[you.other().index()]
        .as_ref()
        .map_or("Your opponent".into(), |p| p.name.clone());
    // The count is shown by the second.
    frames.within(std::time::Duration::from_millis(
        1000 - u64::from(gone.subsec_millis()),
    ));
    let (align, offset) = BESIDE_CLOCKS;
    crate::theme::dialog("Opponent gone", align, offset, &space).show(contexts.ctx_mut()?, |ui| {
        ui.label(format!("{name} left the game {} s ago.", gone.as_secs()));
        if gone < grace {
            ui.label(format!(
                "If they are not back in {} s, you may claim the game. Their clock runs.",
                (grace - gone).as_secs() + 1
            ));
        } else {
            ui.label("They have not come back. You may claim the game, or wait.");
        }
        ui.horizontal(|ui| {
            let ready = gone >= grace;
            if ui
                .add_enabled(ready, egui::Button::new("Claim the win"))
                .clicked()
            {
                requests.write(OnlineRequest::Send(ClientMsg::ClaimAbandoned {
                    draw: false,
                }));
            }
            if ui
                .add_enabled(ready, egui::Button::new("Claim a draw"))
                .clicked()
            {
                requests.write(OnlineRequest::Send(ClientMsg::ClaimAbandoned {
                    draw: true,
                }));
            }
        });
    });
    Ok(())
}

/// At the table: the opponent asks to take back their last move.
fn takeback_asked(
    mut contexts: EguiContexts,
    space: Res<PanelSpace>,
    table: Res<OnlineTable>,
    mut requests: MessageWriter<OnlineRequest>,
) -> Result {
    let (Some(you), Some(by)) = (table.you(), table.mirror.view.takeback) else {
        return Ok(());
    };
    if by == you {
        return Ok(());
    }
    crate::theme::dialog(
        "Take-back asked",
        egui::Align2::CENTER_TOP,
        [0.0, 70.0],
        &space,
    )
    .show(contexts.ctx_mut()?, |ui| {
        ui.label(format!("{by} asks to take back their last move."));
        ui.horizontal(|ui| {
            if ui.button("Accept").clicked() {
                requests.write(OnlineRequest::Send(ClientMsg::AcceptTakeback));
            }
            if ui.button("Decline").clicked() {
                requests.write(OnlineRequest::Send(ClientMsg::DeclineTakeback));
            }
        });
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::ecs::system::SystemState;
    use egui::accesskit::Role;

    /// What the player sees of *Host on this computer* with `name` given, and what a click on
    /// it asks for: whether it is enabled, the texts shown around it, and the ports asked to
    /// host on. Drawn by egui as on the Online screen, read through its accessibility tree.
    fn host_clicked(name: &str) -> (bool, Vec<String>, Vec<u16>) {
        let mut world = World::new();
        world.init_resource::<Messages<OnlineRequest>>();
        let mut state = SystemState::<MessageWriter<OnlineRequest>>::new(&mut world);
        let mut requests = state.get_mut(&mut world).expect("a writer of requests");
        let mut port = HostPort {
            port: 7000,
            folder: None,
        };
        let name = khet_protocol::check_name(name);
        let ctx = egui::Context::default();
        ctx.enable_accesskit();
        let mut frame = |events: Vec<egui::Event>| {
            let input = egui::RawInput {
                events,
                ..Default::default()
            };
            let mut output =
                ctx.run_ui(input, |ui| host(ui, None, &mut port, &mut requests, &name));
            // The font's texture, which a renderer would take.
            output.textures_delta.clear();
            output
                .platform_output
                .accesskit_update
                .expect("the accessibility tree")
        };
        let shown = frame(Vec::new());
        let (_, button) = shown
            .nodes
            .iter()
            .find(|(_, n)| n.label() == Some("Host on this computer"))
            .expect("the Host button");
        let enabled = !button.is_disabled();
        let texts = shown
            .nodes
            .iter()
            .filter(|(_, n)| n.role() == Role::Label)
            .filter_map(|(_, n)| n.value().map(String::from))
            .collect();
        let b = button.bounds().expect("where the button is");
        let pos = egui::pos2(((b.x0 + b.x1) / 2.0) as f32, ((b.y0 + b.y1) / 2.0) as f32);
        let press = |pressed| egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        };
        frame(vec![egui::Event::PointerMoved(pos), press(true)]);
        frame(vec![press(false)]);
        frame(Vec::new());
        let asked = world
            .resource::<Messages<OnlineRequest>>()
            .iter_current_update_messages()
            .filter_map(|r| match r {
                OnlineRequest::Host(port) => Some(*port),
                _ => None,
            })
            .collect();
        (enabled, texts, asked)
    }

    #[test]
    fn hosting_waits_for_a_name() {
        // No name, or only spaces: the button is greyed, says why, and a click asks nothing.
        for name in ["", "   "] {
            let (enabled, texts, asked) = host_clicked(name);
            assert!(!enabled, "enabled with the name {name:?}");
            assert!(
                texts.iter().any(|t| t.starts_with("Give your name first")),
                "{texts:?}"
            );
            assert_eq!(asked, Vec::<u16>::new());
        }
        // With a name, a click asks to host on the chosen port, and nothing is to be given.
        let (enabled, texts, asked) = host_clicked("Ada");
        assert!(enabled);
        assert!(
            !texts.iter().any(|t| t.contains("Give your name")),
            "{texts:?}"
        );
        assert_eq!(asked, vec![7000]);
    }
}
