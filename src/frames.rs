//! Frames only when something changes. With a window, the game does not draw continuously: it
//! waits for input or a window event, and otherwise draws only when a feature asks for it. Each
//! feature that animates asks for the next frame at once ([`NextFrame::now`]) while it moves; a
//! feature that waits for a time asks for a frame by then ([`NextFrame::within`]: a clock's
//! shown second, a settings file's delayed save); work on another thread wakes the loop when it
//! ends ([`Waker`]: the computer's move is shown the moment it is found); and a message or a
//! change of state made in one frame gets the next frame, where it is acted on
//! ([`add_waking_message`], [`wake_on_transition`]). A leaf: features write here, and the view turns it into Bevy's
//! reactive update mode (`stage::rest`).
//! Headless, nobody reads it.

use bevy::prelude::*;
use std::sync::Arc;
use std::time::Duration;

/// When the next frame is wanted, gathered over one frame from every feature.
#[derive(Resource, Default, Debug)]
pub struct NextFrame {
    within: Option<Duration>,
    /// Whether the last frame asked for the next at once: something was moving.
    moving: bool,
}

impl NextFrame {
    /// Something moves: the next frame at once.
    pub fn now(&mut self) {
        self.within(Duration::ZERO);
    }

    /// Something changes by then: a frame within `wait` at the latest.
    pub fn within(&mut self, wait: Duration) {
        self.within = Some(self.within.map_or(wait, |w| w.min(wait)));
    }

    /// What was asked this frame, and a fresh start for the next.
    pub fn take(&mut self) -> Option<Duration> {
        self.moving = self.within == Some(Duration::ZERO);
        self.within.take()
    }

    /// Whether anything moved in the last frame (asked for the next at once): the scripted
    /// tour waits for a still picture with it.
    pub fn moving(&self) -> bool {
        self.moving
    }
}

/// Wakes the game's loop from another thread (a search or a batch that has finished). Without a
/// window it does nothing.
#[derive(Resource, Clone, Default)]
pub struct Waker(Option<Arc<dyn Fn() + Send + Sync>>);

impl Waker {
    /// A waker that calls `wake`.
    pub fn new(wake: impl Fn() + Send + Sync + 'static) -> Waker {
        Waker(Some(Arc::new(wake)))
    }

    /// Wakes the loop, if it sleeps.
    pub fn wake(&self) {
        if let Some(w) = &self.0 {
            w();
        }
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<NextFrame>().init_resource::<Waker>();
}

/// Registers the message `M`, and one more frame after any frame that wrote one ([`wake_on`]):
/// how a feature adds a message that asks for something to be done.
pub fn add_waking_message<M: Message>(app: &mut App) -> &mut App {
    app.add_message::<M>();
    wake_on::<M>(app);
    app
}

/// One more frame after any frame that wrote an `M`: whoever reads it next frame (a system of an
/// earlier set, or the panels' messages, written after the game's systems ran) gets that
/// frame. Each feature registers its own messages.
fn wake_on<M: Message>(app: &mut App) {
    app.add_systems(Last, keep_awake_on::<M>);
}

fn keep_awake_on<M: Message>(mut written: MessageReader<M>, mut next: ResMut<NextFrame>) {
    if written.read().count() > 0 {
        next.now();
    }
}

/// One more frame while a change of the state `S` waits: transitions are made at the start of
/// the next frame.
pub fn wake_on_transition<S: bevy::state::state::FreelyMutableState>(app: &mut App) {
    app.add_systems(
        Last,
        |pending: Option<Res<NextState<S>>>, mut next: ResMut<NextFrame>| {
            if pending.is_some_and(|p| !matches!(*p, NextState::Unchanged)) {
                next.now();
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soonest_wish_wins_and_is_taken_once() {
        let mut next = NextFrame::default();
        assert_eq!(next.take(), None);
        next.within(Duration::from_millis(500));
        next.within(Duration::from_millis(200));
        next.within(Duration::from_secs(3));
        assert_eq!(next.take(), Some(Duration::from_millis(200)));
        assert_eq!(next.take(), None);
        next.within(Duration::from_secs(1));
        next.now();
        assert_eq!(next.take(), Some(Duration::ZERO));
    }
}
