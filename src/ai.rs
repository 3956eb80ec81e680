//! The computer at the table: when a computer plays the side to move, it searches on Bevy's
//! `AsyncComputeTaskPool` (never blocking a frame) and plays through the same `MoveRequested`
//! message a click writes. A new game stops a running search at once through its atomic flag.
//! It answers draw offers (accepts only when it is not ahead), claims a repetition only when it
//! is behind, and gives a person a hint (the move Master would play).

use crate::state::{KhetGame, MoveRequested, NewGameRequested, Player, Show, TableAction};
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use khet_engine::{Level, Limits, Move, Position, Searcher};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use std::time::Duration;

/// What the computer is doing: a search for a move, or for a hint.
#[derive(Resource)]
pub struct Thinking {
    task: Task<Option<Move>>,
    stop: Arc<AtomicBool>,
    /// A hint for a person rather than the computer's own move.
    pub hint: bool,
    /// When the search began (seconds since start), for the indicator.
    pub since: f32,
}

/// The hint last given, shown until the position changes.
#[derive(Resource, Default)]
pub struct Hint(pub Option<(Position, Move)>);

/// Asks for a hint for the side to move.
#[derive(Message, Clone, Copy, Debug)]
pub struct HintRequested;

/// Time per move by level.
pub fn budget(level: Level) -> Duration {
    match level {
        Level::Beginner | Level::Casual => Duration::from_millis(300),
        Level::Strong => Duration::from_millis(1500),
        Level::Master => Duration::from_millis(2500),
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Hint>()
        .add_message::<HintRequested>()
        .add_systems(
            Update,
            (stop_on_new_game, start_thinking, finish_thinking)
                .chain()
                .in_set(crate::GameSet::Logic)
                .after(crate::state::Flow),
        );
}

fn stop_on_new_game(
    mut new_games: MessageReader<NewGameRequested>,
    thinking: Option<Res<Thinking>>,
    mut commands: Commands,
) {
    if new_games.read().last().is_some()
        && let Some(t) = thinking
    {
        t.stop.store(true, Ordering::Relaxed);
        commands.remove_resource::<Thinking>();
    }
}

/// The evaluation of `position` from its side to move, by a short search.
pub fn quick_score(position: &Position) -> i32 {
    Searcher::new(1 << 14)
        .search(
            position,
            Limits {
                depth: Some(3),
                ..Limits::default()
            },
            |_| {},
        )
        .score
}

fn start_thinking(
    game: Option<ResMut<KhetGame>>,
    show: Res<Show>,
    thinking: Option<Res<Thinking>>,
    mut hints: MessageReader<HintRequested>,
    mut actions: MessageWriter<TableAction>,
    time: Res<Time>,
    mut commands: Commands,
) {
    let Some(mut game) = game else { return };
    let want_hint = hints.read().last().is_some();
    if thinking.is_some() || game.game.is_over() || show.phase != crate::state::Phase::Idle {
        return;
    }
    let side = game.game.side_to_move();
    let position = *game.game.position();
    let history = game.game.clone();
    let (level, hint) = match game.spec.players[side.index()] {
        Player::Computer(level) => (level, false),
        Player::Person if want_hint => (Level::Master, true),
        Player::Person => return,
    };
    if !hint && game.game.can_claim_draw() && quick_score(&position) < -50 {
        actions.write(TableAction::ClaimDraw);
        return;
    }
    let mut searcher = Searcher::new(1 << 18);
    // Taken before the searcher moves into the task: setting it ends the search at once.
    let stop = searcher.stop_flag();
    let mut seed = game.game.turns().len() as u64 * 0x9E37_79B9 + 17;
    let budget = if hint {
        Duration::from_millis(1000)
    } else {
        budget(level)
    };
    let task = AsyncComputeTaskPool::get()
        .spawn(async move { level.choose(&mut searcher, &history, budget, &mut seed) });
    if hint {
        game.status = "Master is looking for a hint…".into();
    }
    commands.insert_resource(Thinking {
        task,
        stop,
        hint,
        since: time.elapsed_secs(),
    });
}

fn finish_thinking(
    thinking: Option<ResMut<Thinking>>,
    game: Option<ResMut<KhetGame>>,
    mut hint: ResMut<Hint>,
    mut moves: MessageWriter<MoveRequested>,
    mut commands: Commands,
) {
    let (Some(mut thinking), Some(mut game)) = (thinking, game) else {
        return;
    };
    let Some(mv) = check_ready(&mut thinking.task) else {
        return;
    };
    commands.remove_resource::<Thinking>();
    let Some(mv) = mv else { return };
    if thinking.hint {
        hint.0 = Some((*game.game.position(), mv));
        game.status = format!("Hint: Master would play {mv}.");
    } else {
        moves.write(MoveRequested(mv));
    }
}
