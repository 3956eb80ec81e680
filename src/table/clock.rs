//! Chess clocks for a game with a time control: the side to move's clock runs in real time while
//! the table waits for its move (a person's or the computer's thinking), and stops while a shot
//! is shown and away from the playing screen. A move adds the increment. At zero the side loses
//! on time (`WinReason::Time`). Take-backs leave the clocks as they are.

use crate::news::News;
use crate::screen::Screen;
use crate::table::{GameEnded, Match, MoveApplied, NewGameRequested, Show, has_match};
use bevy::prelude::*;
use khet_engine::Color as Side;
use std::time::Duration;

/// Both sides' clocks; present only in a game with a time control.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct Clocks {
    pub control: khet_engine::TimeControl,
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
            .after(crate::table::Flow)
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

fn add_increment(
    mut applied: MessageReader<MoveApplied>,
    clocks: Option<ResMut<Clocks>>,
    m: Res<Match>,
) {
    // Online, the server's clocks are shown as they are (`crate::online`).
    let (Some(mut clocks), false) = (clocks, m.spec.online) else {
        applied.clear();
        return;
    };
    for MoveApplied { turn, .. } in applied.read() {
        let inc = clocks.control.increment();
        clocks.remaining[turn.color.index()] += inc;
    }
}

/// How long until a clock showing `left` shows another time: whole seconds from ten seconds
/// up, tenths below (as the clock faces show it), a millisecond past the change.
pub fn until_shown_change(left: Duration) -> Duration {
    let step: u128 = if left >= Duration::from_secs(10) {
        1_000_000_000
    } else {
        100_000_000
    };
    let into = left.as_nanos() % step;
    let wait = if into == 0 { step } else { into };
    Duration::from_nanos(wait as u64) + Duration::from_millis(1)
}

fn run_clock(
    time: Res<Time<Real>>,
    show: Res<Show>,
    clocks: Option<ResMut<Clocks>>,
    mut m: ResMut<Match>,
    mut ended: MessageWriter<GameEnded>,
    mut news: MessageWriter<News>,
    mut frames: ResMut<crate::frames::NextFrame>,
) {
    let Some(mut clocks) = clocks else { return };
    // Online, the server runs the clocks and their flags (`crate::online`).
    if m.game.is_over() || !show.is_idle() || m.spec.online {
        return;
    }
    let side = m.game.side_to_move();
    let left = &mut clocks.remaining[side.index()];
    *left = left.saturating_sub(time.delta());
    // The running clock is drawn again when its shown time changes (and its flag falls on
    // time), not every frame.
    frames.within(until_shown_change(*left));
    if left.is_zero()
        && let Ok(result) = m.game.lose_on_time(side)
    {
        m.draw_offer = None;
        news.write(News::Ended(result));
        ended.write(GameEnded(result));
    }
}

#[cfg(test)]
mod tests {
    use super::until_shown_change;
    use std::time::Duration;

    #[test]
    fn a_clock_is_drawn_again_when_its_shown_time_changes() {
        let ms = Duration::from_millis;
        // 2:03.4 shows 2:03 until 2:03.0.
        assert_eq!(until_shown_change(ms(123_400)), ms(401));
        assert_eq!(until_shown_change(ms(123_000)), ms(1_001));
        // Under ten seconds the tenths change.
        assert_eq!(until_shown_change(ms(9_960)), ms(61));
        assert_eq!(until_shown_change(ms(5_000)), ms(101));
        assert_eq!(until_shown_change(Duration::ZERO), ms(101));
    }
}
