//! What games that last days add to online play: the paces offered when creating a game (live
//! clocks, then days a move), the player's games as the server lists them (those where it is
//! their move first), and at the table the time the side to move has left, with the claim once
//! the opponent's days have run out. Being away is how such a game is played: the table shows
//! no "opponent gone" for it.

use super::super::{Online, OnlineFiles, OnlineRequest, OnlineTable};
use crate::theme::PanelSpace;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use khet_protocol::correspondence::{pace, time_left};
use khet_protocol::{ClientMsg, ClockSpec, DAYS_PER_MOVE, MyGame, Status};
use std::time::Duration;

/// A game's pace: a live clock (or none), or days a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    Clock(Option<ClockSpec>),
    Days(u32),
}

impl Pace {
    pub fn label(self) -> String {
        pace(self.clock(), self.days())
    }

    pub fn clock(self) -> Option<ClockSpec> {
        match self {
            Pace::Clock(clock) => clock,
            Pace::Days(_) => None,
        }
    }

    pub fn days(self) -> Option<u32> {
        match self {
            Pace::Clock(_) => None,
            Pace::Days(days) => Some(days),
        }
    }
}

/// The paces a new game may have: no clock, the table's presets, then days a move.
pub fn pace_choices() -> Vec<Pace> {
    super::clock_choices()
        .into_iter()
        .map(Pace::Clock)
        .chain(DAYS_PER_MOVE.into_iter().map(Pace::Days))
        .collect()
}

/// What a game of the list says of whose move it is.
fn whose_move(game: &MyGame, now_ms: u64) -> String {
    match (game.status, game.your_turn, game.deadline_ms) {
        (Status::Open, _, _) => "waiting for an opponent".into(),
        (_, true, Some(deadline)) if deadline <= now_ms => "your move, out of time".into(),
        (_, true, Some(deadline)) => format!("your move, {} left", time_left(deadline - now_ms)),
        (_, true, None) => "your move".into(),
        (_, false, _) => "their move".into(),
    }
}

/// The player's games at the server, those where it is their move first: Return for a game
/// this computer holds the seat of, Join for a tournament's (its seat is the player's by
/// identity). Nothing while the list is empty.
pub(super) fn my_games(
    ui: &mut egui::Ui,
    online: &Online,
    files: &OnlineFiles,
    requests: &mut MessageWriter<OnlineRequest>,
) {
    if online.mine.is_empty() {
        return;
    }
    ui.separator();
    ui.strong("Your games at the server");
    let now = crate::files::now_ms();
    egui::Grid::new("online-mine").striped(true).show(ui, |ui| {
        for game in &online.mine {
            let who = game
                .opponent
                .as_ref()
                .map_or_else(String::new, |p| format!("vs {}", p.name));
            ui.monospace(&game.code);
            ui.label(who);
            ui.small(format!(
                "{}, {}",
                pace(game.clock, game.days_per_move),
                whose_move(game, now)
            ));
            if files.file.seat(&game.code).is_some() {
                if ui.button("Return").clicked() {
                    requests.write(OnlineRequest::Return(game.code.clone()));
                }
            } else if game.tournament.is_some() && ui.button("Join").clicked() {
                let code = game.code.clone();
                requests.write(OnlineRequest::Send(ClientMsg::Join { code }));
            }
            ui.end_row();
        }
    });
}

/// At the table, in a game of days a move: whose move it is and the time they have left, and,
/// once the opponent's days have run out, the claim.
pub(super) fn days_left(
    mut contexts: EguiContexts,
    space: Res<PanelSpace>,
    table: Res<OnlineTable>,
    mut requests: MessageWriter<OnlineRequest>,
    mut frames: ResMut<crate::frames::NextFrame>,
) -> Result {
    let view = &table.mirror.view;
    let (Some(days), Some(deadline)) = (view.days_per_move, view.deadline_ms) else {
        return Ok(());
    };
    if view.status != Status::Playing || view.result.is_some() {
        return Ok(());
    }
    let to_move = table.mirror.game.side_to_move();
    let now = crate::files::now_ms();
    let left = deadline.saturating_sub(now);
    // Shown by the minute, and by the second in the last minute.
    frames.within(Duration::from_millis(if left < 60_000 {
        1000
    } else {
        60_000
    }));
    let who = if table.you() == Some(to_move) {
        "Your move".to_string()
    } else {
        format!("{to_move} to move")
    };
    let (align, offset) = super::BESIDE_CLOCKS;
    crate::theme::dialog("Days a move", align, offset, &space).show(contexts.ctx_mut()?, |ui| {
        if left == 0 {
            ui.label(format!("{who}: out of time."));
        } else {
            ui.label(format!("{who}: {} left.", time_left(left)));
        }
        ui.small(format!("{} each move.", pace(None, Some(days))));
        if left == 0 && table.you() == Some(to_move.other()) {
            ui.horizontal(|ui| {
                for (label, draw) in [("Claim the win", false), ("Claim a draw", true)] {
                    if ui.button(label).clicked() {
                        requests.write(OnlineRequest::Send(ClientMsg::ClaimAbandoned { draw }));
                    }
                }
            });
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(status: Status, your_turn: bool, deadline_ms: Option<u64>) -> MyGame {
        MyGame {
            code: "abcd2345".into(),
            setup: "khet2/classic".into(),
            status,
            color: None,
            opponent: None,
            your_turn,
            plies: 0,
            rated: false,
            clock: None,
            days_per_move: deadline_ms.map(|_| 3),
            deadline_ms,
            left_ms: None,
            tournament: None,
        }
    }

    #[test]
    fn the_list_says_whose_move_and_the_time_left() {
        let now = 1_000_000_000;
        let day = khet_protocol::DAY_MS;
        let cases = [
            (game(Status::Open, false, None), "waiting for an opponent"),
            (
                game(Status::Playing, true, Some(now + 2 * day)),
                "your move, 2 days 0 hours left",
            ),
            (
                game(Status::Playing, true, Some(now - 1)),
                "your move, out of time",
            ),
            (game(Status::Playing, true, None), "your move"),
            (game(Status::Playing, false, Some(now + day)), "their move"),
        ];
        for (g, want) in cases {
            assert_eq!(whose_move(&g, now), want);
        }
    }

    #[test]
    fn the_paces_offered_are_the_clocks_then_the_days() {
        let paces = pace_choices();
        assert_eq!(paces[0], Pace::Clock(None));
        let days: Vec<u32> = paces.iter().filter_map(|p| p.days()).collect();
        assert_eq!(days, DAYS_PER_MOVE);
        assert_eq!(paces.last().unwrap().label(), "14 days a move");
    }
}
