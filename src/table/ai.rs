//! The computer at the table: when a computer plays the side to move, it searches away from the
//! frame ([`crate::offload`]: Bevy's `AsyncComputeTaskPool`, or the browser's worker) and plays through the same `MoveRequested` message a
//! click writes. A new game or a take-back stops a running search at once through its atomic
//! flag. It answers draw offers (accepts only when it is not ahead), claims a repetition only
//! when it is behind, and gives a person a hint (the move Master would play) in casual games.
//! Master plays the opening book's move at once where the book has the position, unless the
//! settings turn the book off.
//! With clocks, it plans its time from its own clock. Its move is held until it has seemed to
//! think for its level's least pause ([`Level::least_pause`]), counted in the game's time; an
//! answer to an offer and a hint are given the moment they are found.

use crate::news::News;
use crate::offload::{Job, SentGame};
use crate::table::clock::Clocks;
use crate::table::{
    GameEnded, Match, MoveRequested, NewGameRequested, Show, TableAction, Undone, has_match,
};
use bevy::prelude::*;
use bevy::tasks::Task;
use bevy::tasks::futures::check_ready;
use khet_engine::level::quick_score;
use khet_engine::{Book, Level, Move, Position, Searcher};
use khet_engine::{Mode, Player};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use std::time::Duration;

/// What a search is for, and what it found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Purpose {
    /// The computer's own move.
    Play,
    /// A hint for a person.
    Hint,
    /// Whether to accept the draw the other side offered.
    DrawAnswer,
}

/// What a search decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    Play(Move),
    ClaimDraw,
    Hint(Move),
    Draw(bool),
    Nothing,
}

/// What the computer is doing: a search on a worker thread.
#[derive(Resource)]
pub struct Thinking {
    task: Task<Decision>,
    stop: Arc<AtomicBool>,
    pub purpose: Purpose,
    /// When the search began (seconds since start), for the indicator.
    pub since: f32,
    /// The time the search was given: the level's, or less when the clock says so.
    pub budget: Duration,
    /// The threads it searches with.
    pub threads: usize,
    /// The least time from `since` before what it found is acted on: for its move, the level's
    /// pause (never more than the clock plans for the move); else none.
    pub pause: Duration,
    /// What the search found, held until the pause has passed.
    found: Option<Decision>,
}

impl Thinking {
    /// Whether the search has found its answer, held until the pause has passed.
    pub fn held(&self) -> bool {
        self.found.is_some()
    }
}

/// The hint last given, shown until the position changes.
#[derive(Resource, Default)]
pub struct Hint(pub Option<(Position, Move)>);

/// Asks for a hint for the side to move.
#[derive(Message, Clone, Copy, Debug)]
pub struct HintRequested;

/// Time per move by level, without clocks: the engine's, which the browser page shares.
pub fn budget(level: Level) -> Duration {
    level.budget()
}

pub(super) fn plugin(app: &mut App) {
    crate::frames::add_waking_message::<HintRequested>(app)
        .init_resource::<Hint>()
        .add_systems(
            Update,
            (
                stop_on_new_game,
                // A lesson's defender is the lesson's solver, not the computer opponent.
                start_thinking.run_if(
                    in_state(crate::table::OnTable::Game)
                        .and_then(in_state(crate::screen::Screen::Playing)),
                ),
                finish_thinking,
            )
                .chain()
                .run_if(has_match)
                .in_set(crate::GameSet::Logic)
                .after(crate::table::Flow),
        );
}

/// A new game, a take-back or the end of the game makes a running search pointless.
fn stop_on_new_game(
    mut new_games: MessageReader<NewGameRequested>,
    mut undone: MessageReader<Undone>,
    mut ended: MessageReader<GameEnded>,
    thinking: Option<Res<Thinking>>,
    mut commands: Commands,
) {
    let stale = new_games.read().count() + undone.read().count() + ended.read().count() > 0;
    if stale && let Some(t) = thinking {
        t.stop.store(true, Ordering::Relaxed);
        commands.remove_resource::<Thinking>();
    }
}

/// What the search is for now, if anything: a draw offer to the computer first, then the
/// computer's move, then a hint a person asked for.
fn purpose(m: &Match, want_hint: bool) -> Option<(Level, Purpose)> {
    let side = m.game.side_to_move();
    if let Some(by) = m.draw_offer
        && let Player::Computer(level) = m.player(by.other())
    {
        return Some((level, Purpose::DrawAnswer));
    }
    match m.player(side) {
        Player::Computer(level) => Some((level, Purpose::Play)),
        // No hints online: the opponent is a person playing alone.
        Player::Person if want_hint && m.spec.mode == Mode::Casual && !m.spec.online => {
            Some((Level::Master, Purpose::Hint))
        }
        Player::Person | Player::Online => None,
    }
}

/// The search itself, away from the frame ([`crate::offload`]): the game as its record (so that
/// the browser's worker can be sent it as text), and how to search it.
#[derive(Serialize, Deserialize)]
pub struct Decide {
    purpose: Purpose,
    level: Level,
    game: SentGame,
    budget: Duration,
    seed: u64,
    threads: usize,
    book: bool,
    /// Set to end the search at once (a new game, a take-back). A worker in the browser has
    /// none: its search ends within its budget, and its answer is dropped.
    #[serde(skip)]
    stop: Option<Arc<AtomicBool>>,
}

impl Job for Decide {
    const NAME: &'static str = "decide";
    type Answer = Decision;

    fn run(self) -> Decision {
        let game = self.game.0;
        let mut searcher = searcher(self.threads, self.book);
        if let Some(stop) = self.stop {
            searcher.set_stop_flag(stop);
        }
        let mut rng = khet_engine::Rng::new(self.seed);
        let (level, budget) = (self.level, self.budget);
        match self.purpose {
            Purpose::DrawAnswer => {
                // The offer came from the side to move: the computer is not ahead when that
                // side is not behind.
                Decision::Draw(quick_score(game.position()) >= 0)
            }
            Purpose::Play if game.can_claim_draw() && quick_score(game.position()) < -50 => {
                Decision::ClaimDraw
            }
            Purpose::Play => level
                .choose(&mut searcher, &game, budget, &mut rng)
                .map_or(Decision::Nothing, Decision::Play),
            Purpose::Hint => level
                .choose(&mut searcher, &game, budget, &mut rng)
                .map_or(Decision::Nothing, Decision::Hint),
        }
    }
}

/// The computer's searcher. Master and Strong search on `threads` (the lower levels'
/// fixed-depth scoring is one thread's); Master's timed search plays the opening book's move
/// where it has one, if `book`. The book is read (a few milliseconds) the first time it is
/// wanted, and kept.
fn searcher(threads: usize, book: bool) -> Searcher {
    static BOOK: OnceLock<Arc<Book>> = OnceLock::new();
    let mut searcher = Searcher::new(1 << 18);
    searcher.options.threads = threads;
    if book {
        searcher.book = Some(BOOK.get_or_init(|| Arc::new(Book::builtin())).clone());
    }
    searcher
}

fn start_thinking(
    m: Res<Match>,
    show: Res<Show>,
    thinking: Option<Res<Thinking>>,
    clocks: Option<Res<Clocks>>,
    mut hints: MessageReader<HintRequested>,
    mut news: MessageWriter<News>,
    time: Res<Time>,
    waker: Res<crate::frames::Waker>,
    settings: Res<crate::settings::Settings>,
    mut commands: Commands,
) {
    let want_hint = hints.read().last().is_some();
    if thinking.is_some() || m.game.is_over() || show.phase != crate::table::Phase::Idle {
        return;
    }
    let Some((level, purpose)) = purpose(&m, want_hint) else {
        return;
    };
    let game = m.game.clone();
    let side = game.side_to_move();
    // What the clock plans for the move, if there are clocks.
    let planned = clocks.map_or(Duration::MAX, |c| {
        let limits = c.engine_clock().limits(side);
        limits.soft.or(limits.time).unwrap_or_default()
    });
    let budget = match purpose {
        Purpose::Hint => Duration::from_millis(1000),
        _ => budget(level).min(planned),
    };
    // On its own turn the computer seems to think for its pause, never longer than its clock
    // plans for the move; the person's clock runs while it answers an offer, and a hint waits
    // for nobody.
    let pause = match purpose {
        Purpose::Play => level.least_pause().min(planned),
        Purpose::DrawAnswer | Purpose::Hint => Duration::ZERO,
    };
    let threads = settings.search_threads();
    let stop = Arc::new(AtomicBool::new(false));
    let job = Decide {
        purpose,
        level,
        game: SentGame(game),
        budget,
        seed: m.game.turns().len() as u64 * 0x9E37_79B9 + 17,
        threads,
        book: settings.computer_book,
        stop: Some(stop.clone()),
    };
    // The search's end wakes the window's loop, though it sleeps.
    let task = crate::offload::spawn(job, waker.clone());
    if purpose == Purpose::Hint {
        news.write(News::HintSearching);
    }
    commands.insert_resource(Thinking {
        task,
        stop,
        purpose,
        since: time.elapsed_secs(),
        budget,
        threads,
        pause,
        found: None,
    });
}

fn finish_thinking(
    thinking: Option<ResMut<Thinking>>,
    mut hint: ResMut<Hint>,
    m: Res<Match>,
    time: Res<Time>,
    mut moves: MessageWriter<MoveRequested>,
    mut actions: MessageWriter<TableAction>,
    mut news: MessageWriter<News>,
    mut frames: ResMut<crate::frames::NextFrame>,
    mut commands: Commands,
) {
    let Some(mut thinking) = thinking else { return };
    if thinking.found.is_none() {
        thinking.found = check_ready(&mut thinking.task);
    }
    let Some(decision) = thinking.found else {
        return;
    };
    // A reply the moment a move is made feels like no opponent: it waits out its pause, and a
    // frame comes when the pause is over, though nothing else moves.
    let left = thinking.pause.as_secs_f32() - (time.elapsed_secs() - thinking.since);
    if left > 0.0 {
        frames.within(Duration::from_secs_f32(left));
        return;
    }
    commands.remove_resource::<Thinking>();
    match decision {
        Decision::Play(mv) => {
            moves.write(MoveRequested(mv));
        }
        Decision::ClaimDraw => {
            actions.write(TableAction::ClaimDraw);
        }
        Decision::Hint(mv) => {
            hint.0 = Some((*m.game.position(), mv));
            news.write(News::Hint(mv));
        }
        Decision::Draw(true) => {
            actions.write(TableAction::AcceptDraw);
        }
        Decision::Draw(false) => {
            actions.write(TableAction::DeclineDraw);
        }
        Decision::Nothing => {}
    }
}

#[cfg(test)]
mod tests {
    use super::{Decide, Decision, Purpose, searcher};
    use crate::offload::{Job, SentGame};
    use crate::settings::Settings;
    use khet_engine::{Game, Level};
    use khet_engine::{Limits, Setup};
    use std::time::Duration;

    #[test]
    fn master_opens_from_the_book_only_if_the_settings_say_so() {
        let classic = Setup::builtin("khet2/classic").expect("built in").position;
        let timed = Limits {
            time: Some(Duration::from_millis(50)),
            ..Limits::default()
        };
        let settings = Settings::default();
        assert!(settings.computer_book, "on by default");
        let booked = searcher(1, settings.computer_book).search(&classic, timed, |_| {});
        let entry = khet_engine::Book::builtin()
            .probe(&classic)
            .expect("the book has Classic");
        assert_eq!((booked.best, booked.nodes), (Some(entry.mv), 0));
        let searched = searcher(1, false).search(&classic, timed, |_| {});
        assert!(searched.best.is_some());
        assert!(searched.nodes > 0, "it searched: {searched:?}");
    }

    /// What the browser's worker does: the job as text, through the crate's table, answered as
    /// text; the same move as the job run here, and a game that is not one refused.
    #[test]
    fn a_job_sent_as_text_is_answered_as_it_is_run_here() {
        let mut game = Game::new(Setup::builtin("khet2/classic").expect("built in").position);
        let first = game.legal_moves()[0];
        game.play(first).expect("a legal move");
        let job = || Decide {
            purpose: Purpose::Play,
            level: Level::Beginner,
            game: SentGame(game.clone()),
            budget: Duration::from_millis(200),
            seed: 7,
            threads: 1,
            book: false,
            stop: None,
        };
        let here = job().run();
        assert!(matches!(here, Decision::Play(_)), "{here:?}");
        let text = ron::to_string(&job()).expect("a job is text");
        let answer = crate::think(Decide::NAME, &text).expect("the table knows it");
        let there: Decision = ron::from_str(&answer).expect("an answer is text");
        assert_eq!(there, here);
        let broken = text.replacen("Record(", "Recor(", 1);
        let refused = crate::think(Decide::NAME, &broken);
        assert!(
            refused.as_ref().is_err_and(|e| e.contains("decide")),
            "{refused:?}"
        );
        assert!(crate::think("no-such-job", &text).is_err());
    }
}
