//! Watching a game again: the replay screen keeps the whole game as a tape and puts its first
//! `n` moves on the table as the match, so every step forward is played and shot exactly as in
//! play, a step back is a take-back, and a jump rebuilds the board at once. On demand the engine
//! analyses the shown position in the background (score, best line, best move on the board).
//! "Continue from here" starts a casual game from the shown position, history included.

pub mod best_move;
pub mod ui;

use crate::news::News;
use crate::offload::{Job, SentGame};
use crate::screen::Screen;
use crate::table::{
    GameEnded, Match, MoveRequested, NewGameRequested, NewGameSpec, Phase, Show, Undone, Watch,
    has_match,
};
use bevy::prelude::*;
use bevy::tasks::Task;
use bevy::tasks::futures::check_ready;
use khet_engine::Player;
use khet_engine::{DrawReason, Game, GameResult, Limits, Move, Searcher, WinReason};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The game being watched, whole.
#[derive(Resource, Clone, Debug)]
pub struct Tape {
    pub game: Game,
    pub name: String,
    /// The match to go back to when the replay was opened from the table.
    pub back_to: Option<NewGameSpec>,
}

/// Moves along the tape.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Forward,
    Back,
    /// Straight to the position after this many moves.
    To(usize),
    /// Toggle playing the moves one after another.
    PlayPause,
}

/// Playing the tape by itself: a step every `interval` seconds once the shot has faded.
#[derive(Resource, Debug)]
pub struct AutoPlay {
    pub playing: bool,
    pub interval: f32,
    waited: f32,
}

impl Default for AutoPlay {
    fn default() -> AutoPlay {
        AutoPlay {
            playing: false,
            interval: 0.6,
            waited: 0.0,
        }
    }
}

/// The engine's view of the shown position.
#[derive(Resource, Default)]
pub struct Analysis {
    pub enabled: bool,
    /// The move count of the position analysed (or being analysed).
    pub ply: Option<usize>,
    pub found: Option<Found>,
    /// A fixed depth instead of [`ANALYSIS_TIME`]: the same analysis on any machine, however
    /// busy (the window tests' pictures show the best line, which a time's search makes
    /// longer on a faster machine).
    pub depth: Option<u32>,
    task: Option<(Task<Found>, Arc<AtomicBool>)>,
}

/// What the analysis found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Found {
    pub ply: usize,
    /// Raw score from Silver's side (see `khet_engine::Score::from_raw`).
    pub silver_score: i32,
    pub depth: u32,
    pub best: Option<Move>,
    pub line: Vec<Move>,
}

/// How long the analysis of one position searches.
pub const ANALYSIS_TIME: Duration = Duration::from_millis(1500);

pub(super) fn plugin(app: &mut App) {
    keys_plugin(app);
    crate::frames::add_waking_message::<Step>(app)
        .init_resource::<AutoPlay>()
        .init_resource::<Analysis>()
        .add_systems(Update, watch.in_set(crate::GameSet::Input))
        .add_systems(
            Update,
            (steps, auto_play, finish_tape, analyse)
                .chain()
                .run_if(in_state(Screen::Replay).and_then(has_match))
                .in_set(crate::GameSet::Logic)
                .before(crate::table::Flow),
        )
        .add_systems(OnExit(Screen::Replay), stop_analysis);
}

/// The replay's keys (the core's: they only write steps).
fn keys_plugin(app: &mut App) {
    app.add_systems(
        Update,
        keys.run_if(in_state(Screen::Replay).and_then(crate::keys::keys_free))
            .in_set(crate::GameSet::Input),
    );
}

/// Arrow keys, Home and End step through a replay; P plays or pauses it.
fn keys(keys: Res<ButtonInput<KeyCode>>, tape: Option<Res<Tape>>, mut steps: MessageWriter<Step>) {
    let end = tape.map_or(0, |t| t.game.turns().len());
    for (key, step) in [
        (KeyCode::ArrowRight, Step::Forward),
        (KeyCode::ArrowLeft, Step::Back),
        (KeyCode::Home, Step::To(0)),
        (KeyCode::End, Step::To(end)),
        (KeyCode::KeyP, Step::PlayPause),
    ] {
        if keys.just_pressed(key) {
            steps.write(step);
        }
    }
}

/// The first `n` moves of `game`, as a game.
pub fn prefix(game: &Game, n: usize) -> Game {
    let mut g = Game::new(*game.start());
    for t in game.turns().iter().take(n) {
        if g.play(t.mv).is_err() {
            break;
        }
    }
    g
}

fn watch(
    mut requests: MessageReader<Watch>,
    mut new_game: MessageWriter<NewGameRequested>,
    mut go: ResMut<NextState<Screen>>,
    mut auto: ResMut<AutoPlay>,
    mut commands: Commands,
) {
    let Some(w) = requests.read().last() else {
        return;
    };
    let start = prefix(&w.game, 0);
    let spec = NewGameSpec::resuming(w.name.clone(), start, [Player::Person; 2], String::new());
    new_game.write(NewGameRequested(spec));
    commands.insert_resource(Tape {
        game: w.game.clone(),
        name: w.name.clone(),
        back_to: w.back_to.clone(),
    });
    *auto = AutoPlay::default();
    go.set(Screen::Replay);
}

fn steps(
    mut steps: MessageReader<Step>,
    tape: Option<Res<Tape>>,
    mut m: ResMut<Match>,
    mut show: ResMut<Show>,
    mut auto: ResMut<AutoPlay>,
    mut moves: MessageWriter<MoveRequested>,
    mut undone: MessageWriter<Undone>,
    mut news: MessageWriter<News>,
) {
    let Some(tape) = tape else { return };
    for &step in steps.read() {
        let at = m.game.turns().len();
        let target = match step {
            Step::PlayPause => {
                auto.playing = !auto.playing;
                continue;
            }
            // A step forward is played, shot and all.
            Step::Forward => {
                if show.is_idle()
                    && let Some(t) = tape.game.turns().get(at)
                {
                    moves.write(MoveRequested(t.mv));
                }
                continue;
            }
            Step::Back => at.saturating_sub(1),
            Step::To(n) => n.min(tape.game.turns().len()),
        };
        auto.playing &= !matches!(step, Step::Back);
        if target != at || show.phase != Phase::Idle {
            m.game = prefix(&tape.game, target);
            *show = Show::at_rest(&m.game, show.landings);
            undone.write(Undone {
                plies: at.saturating_sub(target),
            });
            news.write(News::ToMove(m.game.side_to_move()));
        }
    }
}

fn auto_play(
    time: Res<Time>,
    mut auto: ResMut<AutoPlay>,
    tape: Option<Res<Tape>>,
    m: Res<Match>,
    show: Res<Show>,
    mut steps: MessageWriter<Step>,
    mut frames: ResMut<crate::frames::NextFrame>,
) {
    let Some(tape) = tape else { return };
    if !auto.playing || show.phase != Phase::Idle {
        auto.waited = 0.0;
        return;
    }
    if m.game.turns().len() >= tape.game.turns().len() {
        auto.playing = false;
        return;
    }
    auto.waited += time.delta_secs();
    if auto.waited >= auto.interval {
        auto.waited = 0.0;
        steps.write(Step::Forward);
    }
    frames.within(std::time::Duration::from_secs_f32(
        (auto.interval - auto.waited).max(0.0),
    ));
}

/// At the tape's end, a result the moves do not make (a resignation, an agreement, a claim, a
/// flag fall) is given to the shown game too.
fn finish_tape(
    tape: Option<Res<Tape>>,
    mut m: ResMut<Match>,
    mut ended: MessageWriter<GameEnded>,
    mut news: MessageWriter<News>,
) {
    let Some(tape) = tape else { return };
    let (Some(result), None) = (tape.game.result(), m.game.result()) else {
        return;
    };
    if m.game.turns().len() != tape.game.turns().len() {
        return;
    }
    let done = match result {
        GameResult::Win {
            winner,
            reason: WinReason::Resignation,
        } => m.game.resign(winner.other()),
        GameResult::Win {
            winner,
            reason: WinReason::Time,
        } => m.game.lose_on_time(winner.other()),
        GameResult::Draw {
            reason: DrawReason::Agreement,
        } => m.game.agree_draw(),
        GameResult::Draw {
            reason: DrawReason::Repetition,
        } => m.game.claim_draw(),
        _ => return,
    };
    if let Ok(r) = done {
        news.write(News::Ended(r));
        ended.write(GameEnded(r));
    }
}

/// Starts a search of the shown position when it changed, and takes in what it found.
fn analyse(
    mut analysis: ResMut<Analysis>,
    m: Res<Match>,
    show: Res<Show>,
    mut hint: ResMut<crate::table::ai::Hint>,
    waker: Res<crate::frames::Waker>,
) {
    if let Some((task, _)) = &mut analysis.task
        && let Some(found) = check_ready(task)
    {
        analysis.task = None;
        if Some(found.ply) == analysis.ply {
            hint.0 = found.best.map(|mv| (*m.game.position(), mv));
            analysis.found = Some(found);
        }
    }
    let ply = m.game.turns().len();
    if !analysis.enabled || analysis.ply == Some(ply) || !show.is_idle() {
        return;
    }
    if let Some((_, stop)) = analysis.task.take() {
        stop.store(true, Ordering::Relaxed);
    }
    analysis.ply = Some(ply);
    analysis.found = None;
    hint.0 = None;
    if m.game.is_over() {
        return;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let job = Analyse {
        ply,
        depth: analysis.depth,
        game: SentGame(m.game.clone()),
        stop: Some(stop.clone()),
    };
    let task = crate::offload::spawn(job, waker.clone());
    analysis.task = Some((task, stop));
}

/// The analysis of one position, away from the frame ([`crate::offload`]).
#[derive(Serialize, Deserialize)]
pub struct Analyse {
    ply: usize,
    #[serde(default)]
    depth: Option<u32>,
    game: SentGame,
    /// Ends the search at once; none in the browser's worker (its search ends in its time).
    #[serde(skip)]
    stop: Option<Arc<AtomicBool>>,
}

impl Job for Analyse {
    const NAME: &'static str = "analyse";
    type Answer = Found;

    fn run(self) -> Found {
        let game = self.game.0;
        let mut searcher = Searcher::new(1 << 20);
        if let Some(stop) = self.stop {
            searcher.set_stop_flag(stop);
        }
        let limits = self
            .depth
            .map_or(Limits::time(ANALYSIS_TIME), Limits::depth);
        let r = searcher.search_game(&game, limits, |_| {});
        let silver = game.side_to_move() == khet_engine::Color::Silver;
        Found {
            ply: self.ply,
            silver_score: if silver { r.score } else { -r.score },
            depth: r.depth,
            best: r.best,
            line: r.pv,
        }
    }
}

fn stop_analysis(mut analysis: ResMut<Analysis>, mut hint: ResMut<crate::table::ai::Hint>) {
    if let Some((_, stop)) = analysis.task.take() {
        stop.store(true, Ordering::Relaxed);
    }
    analysis.ply = None;
    analysis.found = None;
    hint.0 = None;
}
