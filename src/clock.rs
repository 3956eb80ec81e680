//! Chess clocks for a game with a time control: the side to move's clock runs in real time while
//! the table waits for its move (a person's or the computer's thinking), and stops while a shot
//! is shown and away from the playing screen. A move adds the increment. At zero the side loses
//! on time (`WinReason::Time`). Take-backs leave the clocks as they are.

use crate::news::News;
use crate::screen::Screen;
use crate::state::{GameEnded, Match, MoveApplied, NewGameRequested, Show, has_match};
use bevy::prelude::*;
use khet_engine::Color as Side;
use std::time::Duration;

/// Both sides' clocks; present only in a game with a time control.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct Clocks {
    pub control: crate::state::TimeControl,
    /// Silver's and Red's time left.
    pub remaining: [Duration; 2],
}

impl Clocks {
    /// The engine's view, to plan the computer's time.
    pub fn engine_clock(&self) -> khet_engine::Clock {
        khet_engine::Clock {
            remaining: self.remaining,
            increment: [self.control.increment(); 2],
            moves_to_go: None,
        }
    }

    pub fn left(&self, side: Side) -> Duration {
        self.remaining[side.index()]
    }
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (
            set_up,
            add_increment,
            run_clock.run_if(in_state(Screen::Playing)),
        )
            .chain()
            .run_if(has_match)
            .after(crate::state::Flow)
            .in_set(crate::GameSet::Logic),
    );
}

/// A new match brings its clocks (as saved, for a resumed game) or takes them away.
fn set_up(mut new_games: MessageReader<NewGameRequested>, mut commands: Commands) {
    let Some(NewGameRequested(spec)) = new_games.read().last() else {
        return;
    };
    match spec.clock {
        Some(control) => {
            let remaining = spec
                .resume
                .as_ref()
                .and_then(|r| r.remaining)
                .unwrap_or([control.initial(); 2]);
            commands.insert_resource(Clocks { control, remaining });
        }
        None => commands.remove_resource::<Clocks>(),
    }
}

fn add_increment(mut applied: MessageReader<MoveApplied>, clocks: Option<ResMut<Clocks>>) {
    let Some(mut clocks) = clocks else {
        applied.clear();
        return;
    };
    for MoveApplied { turn, .. } in applied.read() {
        let inc = clocks.control.increment();
        clocks.remaining[turn.color.index()] += inc;
    }
}

fn run_clock(
    time: Res<Time<Real>>,
    show: Res<Show>,
    clocks: Option<ResMut<Clocks>>,
    mut m: ResMut<Match>,
    mut ended: MessageWriter<GameEnded>,
    mut news: MessageWriter<News>,
) {
    let Some(mut clocks) = clocks else { return };
    if m.game.is_over() || !show.is_idle() {
        return;
    }
    let side = m.game.side_to_move();
    let left = &mut clocks.remaining[side.index()];
    *left = left.saturating_sub(time.delta());
    if left.is_zero()
        && let Ok(result) = m.game.lose_on_time(side)
    {
        m.draw_offer = None;
        news.write(News::Ended(result));
        ended.write(GameEnded(result));
    }
}
