//! What a club's server adds to the Online screen: challenges (made from the leaderboard with
//! the game being created, answered wherever the player is connected), a rematch at the table
//! once a game is over, and a tournament opened by its code (standings, joining and
//! withdrawing, and the game the player is paired in). The challenges are shown only while
//! there are some, the rematch only once a game is over.

use super::super::{LinkState, Online, OnlineRequest, OnlineTable};
use super::Form;
use crate::theme::PanelSpace;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use khet_protocol::correspondence::pace;
use khet_protocol::{
    ChallengeInfo, ClientMsg, SeatChoice, Status, TournamentStatus, TournamentView,
};

/// The player's id, once connected.
fn my_id(online: &Online) -> Option<&str> {
    match &online.state {
        LinkState::Connected(me) => Some(me.id.as_str()),
        _ => None,
    }
}

/// A challenge's terms, as a line: `khet2/classic, 5+3, rated, Ada plays Silver`.
fn terms(c: &ChallengeInfo) -> String {
    let rated = if c.rated { "rated" } else { "casual" };
    let sides = match c.color {
        SeatChoice::Silver => format!("{} plays Silver", c.from.name),
        SeatChoice::Red => format!("{} plays Red", c.from.name),
        SeatChoice::Random => "sides drawn".to_string(),
    };
    format!(
        "{}, {}, {rated}, {sides}",
        c.setup,
        pace(c.clock, c.days_per_move)
    )
}

/// The challenges waiting for an answer: Accept and Decline for those made to the player,
/// Withdraw for theirs.
pub(super) fn challenges(
    ui: &mut egui::Ui,
    online: &Online,
    requests: &mut MessageWriter<OnlineRequest>,
) {
    if online.challenges.is_empty() {
        return;
    }
    let me = my_id(online);
    ui.separator();
    ui.strong("Challenges");
    let send = |requests: &mut MessageWriter<OnlineRequest>, msg| {
        requests.write(OnlineRequest::Send(msg));
    };
    for c in &online.challenges {
        ui.horizontal_wrapped(|ui| {
            let id = c.id.clone();
            if me == Some(c.to.id.as_str()) {
                ui.label(format!("From {}:", c.from.name));
                ui.small(terms(c));
                if ui.button("Accept").clicked() {
                    send(requests, ClientMsg::AcceptChallenge { id });
                } else if ui.button("Decline").clicked() {
                    send(requests, ClientMsg::DeclineChallenge { id });
                }
            } else {
                ui.label(format!("To {}:", c.to.name));
                ui.small(terms(c));
                if ui.button("Withdraw").clicked() {
                    send(requests, ClientMsg::WithdrawChallenge { id });
                }
            }
        });
    }
}

/// The button beside a leaderboard's player: a challenge to the game the form describes.
pub(super) fn challenge_button(
    ui: &mut egui::Ui,
    online: &Online,
    player: &str,
    form: &Form,
    requests: &mut MessageWriter<OnlineRequest>,
) {
    if my_id(online).is_none_or(|me| me == player) {
        return;
    }
    if ui
        .small_button("Challenge")
        .on_hover_text("Challenge them to the game described under Create a game.")
        .clicked()
    {
        requests.write(OnlineRequest::Send(ClientMsg::Challenge {
            player: player.to_string(),
            game: form.new_game(),
        }));
    }
}

/// At the table, once a game the player played is over: the rematch, colours swapped (the
/// opponent's own click accepts it).
pub(super) fn rematch(
    ui: &mut egui::Ui,
    table: &OnlineTable,
    requests: &mut MessageWriter<OnlineRequest>,
) {
    if table.you().is_none() || table.mirror.view.status != Status::Over {
        return;
    }
    if ui
        .button("Rematch")
        .on_hover_text("The same game again, colours swapped: it starts once both ask.")
        .clicked()
    {
        requests.write(OnlineRequest::Send(ClientMsg::Rematch {
            code: table.code.clone(),
        }));
    }
}

/// A tournament by its code: opened, then its standings, Join or Withdraw, and the game the
/// player is paired in now.
pub(super) fn tournament(
    ui: &mut egui::Ui,
    online: &Online,
    form: &mut Form,
    requests: &mut MessageWriter<OnlineRequest>,
) {
    ui.separator();
    ui.strong("Tournament");
    let send = |requests: &mut MessageWriter<OnlineRequest>, msg| {
        requests.write(OnlineRequest::Send(msg));
    };
    ui.horizontal(|ui| {
        ui.add(
            egui::TextEdit::singleline(&mut form.tournament)
                .hint_text("tournament's code")
                .desired_width(150.0),
        );
        let code = khet_protocol::check_code(&form.tournament);
        if ui
            .add_enabled(code.is_ok(), egui::Button::new("Open"))
            .clicked()
            && let Ok(code) = code
        {
            send(requests, ClientMsg::Tournament { code });
        }
    });
    listed(ui, online, requests);
    if let Some(t) = &online.tournament {
        standings(ui, t, my_id(online), requests);
    }
}

/// The listed tournaments not over, newest first, each with Open (the club's page lists the
/// finished ones too).
fn listed(ui: &mut egui::Ui, online: &Online, requests: &mut MessageWriter<OnlineRequest>) {
    let open: Vec<_> = online
        .tournaments
        .iter()
        .filter(|t| t.status != TournamentStatus::Finished)
        .take(8)
        .collect();
    if open.is_empty() {
        return;
    }
    egui::Grid::new("online-tournaments")
        .striped(true)
        .show(ui, |ui| {
            for t in open {
                ui.label(&t.name);
                ui.small(format!(
                    "{}, {}, {} players, {}",
                    t.kind.name(),
                    t.clock,
                    t.players,
                    status_text(t.status)
                ));
                if ui.small_button("Open").clicked() {
                    let code = t.code.clone();
                    requests.write(OnlineRequest::Send(ClientMsg::Tournament { code }));
                }
                ui.end_row();
            }
        });
}

/// Where a tournament is, in words.
fn status_text(status: TournamentStatus) -> &'static str {
    match status {
        TournamentStatus::Created => "not started",
        TournamentStatus::Running => "under way",
        TournamentStatus::Paused => "paused",
        TournamentStatus::Finished => "over",
    }
}

fn standings(
    ui: &mut egui::Ui,
    t: &TournamentView,
    me: Option<&str>,
    requests: &mut MessageWriter<OnlineRequest>,
) {
    let status = status_text(t.status);
    ui.label(format!(
        "{} ({}, {}, {}): {status}",
        t.name,
        t.kind.name(),
        t.setup,
        t.clock
    ));
    let code = t.code.clone();
    let send = |requests: &mut MessageWriter<OnlineRequest>, msg| {
        requests.write(OnlineRequest::Send(msg));
    };
    ui.horizontal(|ui| {
        let entered = me.is_some_and(|me| t.players.iter().any(|p| p.id == me && !p.withdrawn));
        if t.status != TournamentStatus::Finished {
            if entered {
                if ui.button("Withdraw").clicked() {
                    send(
                        requests,
                        ClientMsg::WithdrawTournament { code: code.clone() },
                    );
                }
            } else if ui.button("Join").clicked() {
                send(requests, ClientMsg::JoinTournament { code: code.clone() });
            }
        }
        if ui.small_button("Refresh").clicked() {
            send(requests, ClientMsg::Tournament { code: code.clone() });
        }
    });
    if let Some(game) = me.and_then(|me| t.game_for(me))
        && let Some(game_code) = &game.code
    {
        ui.horizontal(|ui| {
            ui.label(format!(
                "Your game: {} against {}",
                game_code,
                opponent(game, me)
            ));
            if ui.button("Play").clicked() {
                let code = game_code.clone();
                send(requests, ClientMsg::Join { code });
            }
        });
    }
    egui::Grid::new("online-standings")
        .striped(true)
        .show(ui, |ui| {
            for (i, p) in t.players.iter().take(16).enumerate() {
                ui.label(format!("{}.", i + 1));
                ui.label(&p.name);
                ui.label(format!("{}", p.points));
                ui.small(if p.withdrawn { "withdrawn" } else { "" });
                ui.end_row();
            }
        });
}

/// The other player's name in `game`.
fn opponent(game: &khet_protocol::tournament::TournamentPairing, me: Option<&str>) -> String {
    if me == Some(game.silver_id.as_str()) {
        game.red.clone().unwrap_or_default()
    } else {
        game.silver.clone()
    }
}

/// At the table, once a game the player played is over: a window with the rematch, below the
/// players' window.
pub(super) fn table_rematch(
    mut contexts: EguiContexts,
    space: Res<PanelSpace>,
    table: Res<OnlineTable>,
    mut requests: MessageWriter<OnlineRequest>,
) -> Result {
    if table.you().is_none() || table.mirror.view.status != Status::Over {
        return Ok(());
    }
    crate::theme::dialog("Game over", egui::Align2::LEFT_TOP, [10.0, 130.0], &space)
        .show(contexts.ctx_mut()?, |ui| rematch(ui, &table, &mut requests));
    Ok(())
}
