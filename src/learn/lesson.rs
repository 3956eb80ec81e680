//! Lessons at the table: a tutorial step or a puzzle is a casual game from a small position
//! with a goal. The player moves as in any game; this module judges each move:
//! - a tutorial step by its shot ([`crate::learn::tutorial::Goal`]); a miss says where the beam went;
//! - a puzzle with the engine's exact solver: after each of the player's moves the defender
//!   answers with its best reply, found on the async pool. A reply that escapes is the
//!   refutation of a wrong move, played on the board.
//!
//! The computer opponent, the clock, autosave and the game-over window stay out of lessons.

use crate::learn::progress::Progress;
use crate::learn::tutorial::{STEPS, why_missed};
use crate::news::News;
use crate::offload::{Job, SentPosition};
use crate::screen::Screen;
use crate::table::{
    Match, MoveApplied, NewGameRequested, NewGameSpec, OnTable, Show, Undone, has_match,
};
use bevy::prelude::*;
use bevy::tasks::Task;
use bevy::tasks::futures::check_ready;
use khet_engine::Player;
use khet_engine::puzzle::{Defence, Puzzle, PuzzleBook, Solver};
use khet_engine::{Color as Side, GameResult, Level, Move, Position, Setup};
use serde::{Deserialize, Serialize};

/// The shipped puzzles (`assets/puzzles/puzzles.ron`, checked by `khet-engine puzzles verify`
/// in the tests), built into the game so they are always there.
const PUZZLES: &str = include_str!("../../assets/puzzles/puzzles.ron");

/// The puzzles on offer.
#[derive(Resource, Clone, Debug, Default)]
pub struct PuzzleShelf(pub Vec<Puzzle>);

impl PuzzleShelf {
    pub fn shipped() -> PuzzleShelf {
        match PuzzleBook::from_bytes(PUZZLES.as_bytes(), "assets/puzzles/puzzles.ron") {
            Ok(book) => PuzzleShelf(book.puzzles),
            Err(e) => unreachable!("the shipped puzzles are checked by the tests: {e}"),
        }
    }
}

/// Which lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LessonKind {
    Tutorial(usize),
    Puzzle(usize),
}

/// Where the player stands in the lesson.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Trying,
    /// The defender is finding its reply.
    Answering,
    Solved,
    /// Why the move missed; the board shows the shot (and, in a puzzle, the refutation).
    Missed(String),
}

/// The lesson on the table.
#[derive(Resource)]
pub struct Lesson {
    pub kind: LessonKind,
    pub solver: Side,
    pub verdict: Verdict,
    reply: Option<Task<Option<Defence>>>,
    ready: Option<Defence>,
    /// A hint being searched (off the solution's line), for this position.
    hint: Option<Task<Option<(SentPosition, Move)>>>,
}

/// Start (or restart) a lesson.
#[derive(Message, Clone, Copy, Debug)]
pub struct StartLesson(pub LessonKind);

/// What the lesson panel asks.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub enum LessonAction {
    /// Start this lesson again.
    Retry,
    /// The next step or puzzle.
    Next,
    /// Show the move to make.
    Hint,
    /// Leave for a casual game of Classic.
    Leave,
}

pub(super) fn plugin(app: &mut App) {
    crate::frames::add_waking_message::<StartLesson>(app);
    crate::frames::add_waking_message::<LessonAction>(app)
        .insert_resource(PuzzleShelf::shipped())
        .add_systems(
            Update,
            (actions, start).chain().in_set(crate::GameSet::Input),
        )
        .add_systems(OnExit(OnTable::Lesson), forget)
        .add_systems(
            Update,
            (judge, answer)
                .chain()
                .run_if(has_match.and_then(in_state(OnTable::Lesson)))
                .after(crate::table::Flow)
                .in_set(crate::GameSet::Logic),
        );
}

/// The game a lesson starts from: the player against the lesson's defender.
fn spec(name: &str, start: Position) -> NewGameSpec {
    let solver = start.side_to_move();
    let mut players = [Player::Person, Player::Person];
    players[solver.other().index()] = Player::Computer(Level::Master);
    NewGameSpec {
        rules: start.rules(),
        lesson: true,
        ..NewGameSpec::casual(
            Setup {
                name: name.to_string(),
                edition: start.edition(),
                description: String::new(),
                position: start,
            },
            players,
        )
    }
}

fn start(
    mut starts: MessageReader<StartLesson>,
    shelf: Res<PuzzleShelf>,
    mut new_game: MessageWriter<NewGameRequested>,
    mut go: ResMut<NextState<Screen>>,
    mut news: MessageWriter<News>,
    mut hint: ResMut<crate::table::ai::Hint>,
    mut commands: Commands,
) {
    let Some(&StartLesson(kind)) = starts.read().last() else {
        return;
    };
    let (name, start) = match kind {
        LessonKind::Tutorial(i) => match STEPS.get(i) {
            Some(step) => (format!("Tutorial {}: {}", i + 1, step.title), step.start()),
            None => return,
        },
        LessonKind::Puzzle(i) => match shelf.0.get(i).map(|p| (p, p.start())) {
            Some((p, Ok(start))) => (p.name.clone(), start),
            Some((p, Err(e))) => {
                news.write(News::Refused(format!("{}: {e}", p.name)));
                return;
            }
            None => return,
        },
    };
    hint.0 = None;
    new_game.write(NewGameRequested(spec(&name, start)));
    commands.insert_resource(Lesson {
        kind,
        solver: start.side_to_move(),
        verdict: Verdict::Trying,
        reply: None,
        ready: None,
        hint: None,
    });
    go.set(Screen::Playing);
}

/// Any other game ends the lesson: the table leaves [`OnTable::Lesson`], and the lesson goes.
/// (It was put in place before the table entered the state, by [`start`].)
fn forget(mut commands: Commands) {
    commands.remove_resource::<Lesson>();
}

fn actions(
    mut actions: MessageReader<LessonAction>,
    lesson: Option<ResMut<Lesson>>,
    m: Option<Res<Match>>,
    shelf: Res<PuzzleShelf>,
    mut starts: MessageWriter<StartLesson>,
    mut new_game: MessageWriter<NewGameRequested>,
    mut hint: ResMut<crate::table::ai::Hint>,
    waker: Res<crate::frames::Waker>,
) {
    let (Some(mut lesson), Some(m)) = (lesson, m) else {
        actions.clear();
        return;
    };
    for action in actions.read() {
        match action {
            LessonAction::Retry => {
                starts.write(StartLesson(lesson.kind));
            }
            LessonAction::Next => {
                let next = match lesson.kind {
                    LessonKind::Tutorial(i) if i + 1 < STEPS.len() => LessonKind::Tutorial(i + 1),
                    LessonKind::Puzzle(i) if i + 1 < shelf.0.len() => LessonKind::Puzzle(i + 1),
                    _ => continue,
                };
                starts.write(StartLesson(next));
            }
            LessonAction::Hint => match next_move(&lesson, &m, &shelf) {
                Hinted::Now(mv) => hint.0 = Some((*m.game.position(), mv)),
                Hinted::Search { left } => {
                    // Off the solution's line: the solver finds a winning move on the async
                    // pool, never inside a frame.
                    let job = FindWin {
                        position: SentPosition(*m.game.position()),
                        left,
                    };
                    lesson.hint = Some(crate::offload::spawn(job, waker.clone()));
                }
                Hinted::Nothing => {}
            },
            LessonAction::Leave => {
                if let Ok(setup) = Setup::builtin("khet2/classic") {
                    let players = [Player::Person, Player::Computer(Level::Casual)];
                    new_game.write(NewGameRequested(NewGameSpec::casual(setup, players)));
                }
            }
        }
    }
}

/// Where a hint comes from.
enum Hinted {
    /// The step's move, or the puzzle's next solution move.
    Now(Move),
    /// Off the solution's line: a winning move within `left` moves must be searched for.
    Search {
        left: u32,
    },
    Nothing,
}

/// The move that solves the lesson from here: the step's move, or the puzzle's next solution
/// move while the player has followed it (else the solver is asked).
fn next_move(lesson: &Lesson, m: &Match, shelf: &PuzzleShelf) -> Hinted {
    let position = m.game.position();
    if position.side_to_move() != lesson.solver || m.game.is_over() {
        return Hinted::Nothing;
    }
    let found = match lesson.kind {
        LessonKind::Tutorial(i) => STEPS
            .get(i)
            .and_then(|step| position.parse_move(step.intended).ok()),
        LessonKind::Puzzle(i) => {
            let Some(puzzle) = shelf.0.get(i) else {
                return Hinted::Nothing;
            };
            if let Some(mv) = next_on_line(puzzle, m) {
                return Hinted::Now(mv);
            }
            let made = m.game.turns().len().div_ceil(2) as u32;
            return match puzzle.moves.checked_sub(made) {
                Some(left) if left > 0 => Hinted::Search { left },
                _ => Hinted::Nothing,
            };
        }
    };
    found.map_or(Hinted::Nothing, Hinted::Now)
}

/// The solution's next move, if the game so far is the start of the solution's line.
fn next_on_line(puzzle: &Puzzle, m: &Match) -> Option<Move> {
    let played: Vec<Move> = m.game.turns().iter().map(|t| t.mv).collect();
    let line = puzzle.solution_moves().ok()?;
    if line.starts_with(&played) {
        line.get(played.len()).copied()
    } else {
        None
    }
}

/// Judges each of the player's moves as it is made.
fn judge(
    mut applied: MessageReader<MoveApplied>,
    mut undone: MessageReader<Undone>,
    mut lesson: ResMut<Lesson>,
    m: Res<Match>,
    shelf: Res<PuzzleShelf>,
    mut progress: ResMut<Progress>,
    waker: Res<crate::frames::Waker>,
) {
    if undone.read().count() > 0 {
        lesson.verdict = Verdict::Trying;
        lesson.reply = None;
        lesson.ready = None;
        lesson.hint = None;
    }
    for MoveApplied { turn, fired_on } in applied.read() {
        let won = matches!(m.game.result(), Some(GameResult::Win { winner, .. }) if winner == lesson.solver);
        if turn.color != lesson.solver {
            // Only a defender with nothing better lights its own Pharaoh.
            if won
                && let LessonKind::Puzzle(i) = lesson.kind
                && let Some(p) = shelf.0.get(i)
            {
                progress.puzzles.insert(p.position.clone());
                lesson.verdict = Verdict::Solved;
            }
            continue;
        }
        match lesson.kind {
            LessonKind::Tutorial(i) => {
                let Some(step) = STEPS.get(i) else { continue };
                lesson.verdict = if step.goal.reached_by(&turn.shot) {
                    progress.tutorial.insert(i);
                    Verdict::Solved
                } else {
                    Verdict::Missed(why_missed(&turn.shot, fired_on))
                };
            }
            LessonKind::Puzzle(i) => {
                let Some(puzzle) = shelf.0.get(i) else {
                    continue;
                };
                let made = m
                    .game
                    .turns()
                    .iter()
                    .filter(|t| t.color == lesson.solver)
                    .count() as u32;
                lesson.verdict = if won {
                    progress.puzzles.insert(puzzle.position.clone());
                    Verdict::Solved
                } else if m.game.is_over() {
                    Verdict::Missed(format!("{}. Try again.", ending(m.game.result())))
                } else if made >= puzzle.moves {
                    Verdict::Missed(format!(
                        "That was your last move, and the Pharaoh is not lit: a win in {} needs \
                         another first move or another line. Try again.",
                        puzzle.moves
                    ))
                } else {
                    let left = puzzle.moves - made;
                    match stored_reply(puzzle, &m, left) {
                        // On the stored line the verified best defence answers at once.
                        Some(d) => lesson.ready = Some(d),
                        None => {
                            let job = Defend {
                                position: SentPosition(*m.game.position()),
                                left,
                            };
                            lesson.reply = Some(crate::offload::spawn(job, waker.clone()));
                        }
                    }
                    Verdict::Answering
                };
            }
        }
    }
}

/// A hint off the solution's line: the solver's winning move, away from the frame.
#[derive(Serialize, Deserialize)]
pub struct FindWin {
    position: SentPosition,
    left: u32,
}

impl Job for FindWin {
    const NAME: &'static str = "find-win";
    type Answer = Option<(SentPosition, Move)>;

    fn run(self) -> Option<(SentPosition, Move)> {
        let mut solver = Solver::with_limit(2_000_000);
        let mv = solver.winning_move(&self.position.0, self.left).ok()??;
        Some((self.position, mv))
    }
}

/// The defender's reply off the stored line: the solver's best defence, away from the frame.
#[derive(Serialize, Deserialize)]
pub struct Defend {
    position: SentPosition,
    left: u32,
}

impl Job for Defend {
    const NAME: &'static str = "defend";
    type Answer = Option<Defence>;

    fn run(self) -> Option<Defence> {
        Solver::default()
            .defence(&self.position.0, self.left)
            .ok()
            .flatten()
    }
}

/// The solution's next reply while the player has followed the solution: `verify` proved it a
/// best defence, and answering with it keeps the game on the line the puzzle shows. (A search
/// would find a reply as good, perhaps another one; it takes at most 0.03 s after the first
/// move of any shipped puzzle, release build.)
fn stored_reply(puzzle: &Puzzle, m: &Match, left: u32) -> Option<Defence> {
    next_on_line(puzzle, m).map(|reply| Defence {
        reply,
        solver_needs: Some(left),
    })
}

fn ending(result: Option<GameResult>) -> String {
    result.map_or_else(|| "The game ended".to_string(), |r| r.to_string())
}

/// Plays the defender's reply once it is found and the board is at rest.
fn answer(
    mut lesson: ResMut<Lesson>,
    show: Res<Show>,
    mut hint: ResMut<crate::table::ai::Hint>,
    mut moves: MessageWriter<crate::table::MoveRequested>,
) {
    // Polled every frame without marking the lesson changed; it changes when a task ends.
    let polled = lesson.bypass_change_detection();
    let reply = polled.reply.as_mut().and_then(check_ready);
    let hinted = polled.hint.as_mut().and_then(check_ready);
    if let Some(found) = reply {
        lesson.reply = None;
        match found {
            Some(d) => lesson.ready = Some(d),
            None => lesson.verdict = Verdict::Missed("The defender has no move.".into()),
        }
    }
    if let Some(found) = hinted {
        lesson.hint = None;
        hint.0 = found.map(|(position, mv)| (position.0, mv));
    }
    if !show.is_idle() || lesson.ready.is_none() {
        return;
    }
    let Some(d) = lesson.ready.take() else { return };
    moves.write(crate::table::MoveRequested(d.reply));
    lesson.verdict = match d.solver_needs {
        None => Verdict::Missed(format!(
            "The defender answers {} and escapes: there is no forced win from here. Try again.",
            d.reply
        )),
        Some(_) => Verdict::Trying,
    };
}
