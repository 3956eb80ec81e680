//! The match at the table: the engine's [`Game`] (the single source of truth for the rules) with
//! who plays it and how, the messages that change it (the mouse, the keys, the panels and the
//! tests all write the same ones), and the turn flow: move animation, then the shot, then removal.
//! The selection lives with the input code ([`crate::selection`]), what happened is told through
//! [`News`], and the shown board and shot are [`Show`].

use crate::news::News;
use crate::settings::{Settings, animation_dt};
use bevy::prelude::*;
use khet_engine::{
    Color as Side, Game, GameResult, Move, Piece, Position, Rules, Setup, Shot, Square, Turn,
};
use serde::{Deserialize, Serialize};

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Player {
    Person,
    Computer(khet_engine::Level),
}

impl Player {
    /// How a record names the player (`Person`, `Computer Master`).
    pub fn label(self) -> String {
        match self {
            Player::Person => "Person".into(),
            Player::Computer(level) => format!("Computer {}", level.name()),
        }
    }

    /// The player a record names; any other name (another program's, a person's) is a person.
    pub fn from_label(label: &str) -> Player {
        label
            .strip_prefix("Computer ")
            .and_then(|l| l.parse().ok())
            .map_or(Player::Person, Player::Computer)
    }
}

/// Casual games allow take-backs and hints; tournament games follow the rule book: "the move
/// cannot be taken back".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    #[default]
    Casual,
    Tournament,
}

/// A time control: each side's time at the start and what a move adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControl {
    pub minutes: u32,
    pub increment_seconds: u32,
}

impl TimeControl {
    /// The choices offered; a custom one can be typed in.
    pub const PRESETS: [TimeControl; 4] = [
        TimeControl::new(3, 2),
        TimeControl::new(5, 3),
        TimeControl::new(10, 5),
        TimeControl::new(30, 0),
    ];

    pub const fn new(minutes: u32, increment_seconds: u32) -> TimeControl {
        TimeControl {
            minutes,
            increment_seconds,
        }
    }

    pub fn initial(self) -> std::time::Duration {
        std::time::Duration::from_secs(u64::from(self.minutes) * 60)
    }

    pub fn increment(self) -> std::time::Duration {
        std::time::Duration::from_secs(u64::from(self.increment_seconds))
    }
}

impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} min + {} s", self.minutes, self.increment_seconds)
    }
}

/// What a new game starts from.
#[derive(Clone, Debug)]
pub struct NewGameSpec {
    pub setup: Setup,
    pub rules: Rules,
    pub players: [Player; 2],
    pub mode: Mode,
    pub clock: Option<TimeControl>,
    /// Moves already played from the setup (a resumed game, or "continue from here"), and the
    /// clocks as they stood then.
    pub resume: Option<Resume>,
    /// A tutorial step or a puzzle ([`crate::lesson`]): no autosave, no computer opponent.
    pub lesson: bool,
}

impl NewGameSpec {
    /// A casual game without clocks from `setup`.
    pub fn casual(setup: Setup, players: [Player; 2]) -> NewGameSpec {
        NewGameSpec {
            setup,
            rules: Rules::default(),
            players,
            mode: Mode::Casual,
            clock: None,
            resume: None,
            lesson: false,
        }
    }
}

impl NewGameSpec {
    /// A casual game taking up `game` where it stands (a saved or pasted game, a replay's
    /// start, "continue from here"); the game's start, side to move included, is its setup.
    pub fn resuming(name: String, game: Game, players: [Player; 2], date: String) -> NewGameSpec {
        let start = *game.start();
        let setup = Setup {
            name,
            edition: start.edition(),
            description: String::new(),
            position: start,
        };
        NewGameSpec {
            rules: start.rules(),
            resume: Some(Resume {
                game,
                remaining: None,
                file: None,
                date,
            }),
            ..NewGameSpec::casual(setup, players)
        }
    }
}

/// A game to take up where it stood.
#[derive(Clone, Debug)]
pub struct Resume {
    pub game: Game,
    /// Each side's time left, if the game had clocks.
    pub remaining: Option<[std::time::Duration; 2]>,
    /// The file it was saved in: autosaves go on there.
    pub file: Option<std::path::PathBuf>,
    /// When it began.
    pub date: String,
}

/// The match: the engine's game plus who plays it, how, and where it is saved.
#[derive(Resource)]
pub struct Match {
    pub game: Game,
    pub setup_name: String,
    pub spec: NewGameSpec,
    /// A pending draw offer, by this side.
    pub draw_offer: Option<Side>,
    /// When the game began (UTC, `2026-11-22T14:30:00Z`), also the base of its file name.
    pub date: String,
    /// Where the game is saved; chosen at its first save.
    pub file: Option<std::path::PathBuf>,
}

impl Match {
    pub fn new(spec: NewGameSpec) -> Match {
        let (game, date, file) = match &spec.resume {
            Some(r) => (r.game.clone(), r.date.clone(), r.file.clone()),
            None => (
                Game::new(spec.setup.position.with_rules(spec.rules)),
                crate::files::now_utc(),
                None,
            ),
        };
        Match {
            game,
            setup_name: spec.setup.name.clone(),
            spec,
            draw_offer: None,
            date,
            file,
        }
    }

    /// Who plays `side`.
    pub fn player(&self, side: Side) -> Player {
        self.spec.players[side.index()]
    }

    /// Whether a person has the move in a game still going.
    pub fn person_to_move(&self) -> bool {
        !self.game.is_over() && self.player(self.game.side_to_move()) == Player::Person
    }

    /// The pieces each side has lost, in order, from the game's turns.
    pub fn lost(&self) -> [Vec<Piece>; 2] {
        let mut lost = [Vec::new(), Vec::new()];
        for hit in self.game.turns().iter().flat_map(|t| &t.shot.hits) {
            if hit.effect != khet_engine::HitEffect::PharaohLit {
                lost[hit.piece.color().index()].push(hit.piece);
            }
        }
        lost
    }
}

/// Whether a match is on the table (run condition).
pub fn has_match(m: Option<Res<Match>>) -> bool {
    m.is_some()
}

// ---- messages in --------------------------------------------------------------------------------

/// Play this move for the side to move (checked by the engine).
#[derive(Message, Clone, Copy, Debug)]
pub struct MoveRequested(pub Move);

#[derive(Message, Clone, Debug)]
pub struct NewGameRequested(pub NewGameSpec);

/// Table actions from the panels and keys.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableAction {
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    ClaimDraw,
    Resign,
    /// Take back the last move (casual games; against the computer, back to the person's move).
    Undo,
    /// Complete the running animation at once.
    Skip,
    /// Show the last shot again.
    ReplayShot,
}

// ---- messages out -------------------------------------------------------------------------------

/// A move was played: the engine's turn (move and shot). The board the laser saw is `fired_on`.
#[derive(Message, Clone, Debug)]
pub struct MoveApplied {
    pub turn: Turn,
    pub fired_on: Position,
}

/// The game ended.
#[derive(Message, Clone, Copy, Debug)]
pub struct GameEnded(pub GameResult);

/// Moves were taken back (by undo, or a replay stepping back); the board is shown at once.
#[derive(Message, Clone, Copy, Debug)]
pub struct Undone {
    pub plies: usize,
}

/// The state's own systems, for ordering the computer after them.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub struct Flow;

// ---- the turn flow ------------------------------------------------------------------------------

/// What is being shown. Input is ignored unless `Idle`.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Phase {
    #[default]
    Idle,
    /// The moved piece slides or turns.
    Moving { elapsed: f32 },
    /// The beam grows along the path; `front` is how far it has come, in squares.
    Firing { front: f32 },
    /// The beam stays a while, then fades.
    Lingering { elapsed: f32 },
}

/// The shot being shown, and the board the entities show meanwhile.
#[derive(Resource, Default)]
pub struct Show {
    pub phase: Phase,
    /// The last shot, kept for drawing and replay.
    pub shot: Option<Shot>,
    /// The board the pieces show: after the move but before the hit pieces leave, while the
    /// beam is on its way; the engine's position otherwise.
    pub display: Option<Position>,
    /// Total length of the shot in squares, and where each segment starts along it.
    pub length: f32,
    pub segment_starts: Vec<f32>,
    /// Whether the shown shot is a replay (nothing is removed at its end).
    pub replay: bool,
    /// Complete the animation at once ("skip").
    pub skip: bool,
    /// Extra time the moved piece is shown before the laser fires (the computer's moves).
    pub pause: f32,
    /// How many shots have landed (not counting replays): the view flashes the hits of each.
    pub landings: u32,
}

impl Show {
    /// Nothing moving, the board as the game stands, the last shot kept for "replay shot".
    pub fn at_rest(game: &Game, landings: u32) -> Show {
        let shot = game.last_turn().map(|t| t.shot.clone());
        let (segment_starts, length) = shot.as_ref().map(beam_timeline).unwrap_or_default();
        Show {
            display: Some(*game.position()),
            shot,
            length,
            segment_starts,
            landings,
            ..Show::default()
        }
    }

    /// Whether the table takes input: nothing moving, the beam at most fading.
    pub fn is_idle(&self) -> bool {
        matches!(self.phase, Phase::Idle | Phase::Lingering { .. })
    }
}

/// Length in squares of a segment, as drawn: from the centre of `from` (or the board edge) to
/// the centre of `to` (or past the edge for a beam that leaves the board).
pub fn segment_length(seg: &khet_engine::Segment) -> f32 {
    let (fx, fy) = match seg.from {
        Some(f) => (f.file().index() as f32, f.rank().index() as f32),
        None => {
            let (dx, dy) = seg.dir.delta();
            let s = seg.edge_entry();
            (
                s.file().index() as f32 - 0.5 * dx as f32,
                s.rank().index() as f32 - 0.5 * dy as f32,
            )
        }
    };
    let (tx, ty) = (seg.to.file().index() as f32, seg.to.rank().index() as f32);
    let mut len = (tx - fx).abs() + (ty - fy).abs();
    if seg.end == khet_engine::SegmentEnd::LeftBoard {
        len += 0.6;
    }
    len
}

/// Where each segment starts along the beam (a split's branches start where their parent
/// reached the Eye), and the total length to the farthest end.
pub fn beam_timeline(shot: &Shot) -> (Vec<f32>, f32) {
    let mut starts = Vec::with_capacity(shot.segments.len());
    let mut ends_at: Vec<(Square, f32)> = Vec::new();
    let mut total: f32 = 0.0;
    for seg in &shot.segments {
        let start = match seg.from {
            Some(f) => ends_at
                .iter()
                .rev()
                .find(|(s, _)| *s == f)
                .map_or(0.0, |&(_, d)| d),
            None => 0.0,
        };
        let end = start + segment_length(seg);
        starts.push(start);
        ends_at.push((seg.to, end));
        total = total.max(end);
    }
    (starts, total)
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<MoveRequested>()
        .add_message::<NewGameRequested>()
        .add_message::<TableAction>()
        .add_message::<MoveApplied>()
        .add_message::<GameEnded>()
        .add_message::<Undone>()
        .init_resource::<Show>()
        .add_systems(Update, new_game.in_set(Flow).in_set(crate::GameSet::Logic))
        .add_systems(
            Update,
            (table_actions, play_moves, advance_show)
                .chain()
                .after(new_game)
                .run_if(has_match)
                .in_set(Flow)
                .in_set(crate::GameSet::Logic),
        );
}

fn new_game(
    mut requests: MessageReader<NewGameRequested>,
    mut commands: Commands,
    mut show: ResMut<Show>,
    mut news: MessageWriter<News>,
) {
    if let Some(NewGameRequested(spec)) = requests.read().last() {
        let m = Match::new(spec.clone());
        *show = Show::at_rest(&m.game, show.landings);
        news.write(match m.game.result() {
            Some(r) => News::Ended(r),
            None => News::ToMove(m.game.side_to_move()),
        });
        commands.insert_resource(m);
    }
}

fn table_actions(
    mut actions: MessageReader<TableAction>,
    mut ended: MessageWriter<GameEnded>,
    mut undone: MessageWriter<Undone>,
    mut news: MessageWriter<News>,
    mut m: ResMut<Match>,
    mut show: ResMut<Show>,
) {
    for &action in actions.read() {
        let side = m.game.side_to_move();
        let mut result = None;
        match action {
            TableAction::OfferDraw => {
                if !m.game.is_over() && m.draw_offer.is_none() {
                    // A computer's answer comes from its search (see `ai`), never from a frame.
                    m.draw_offer = Some(side);
                    news.write(News::DrawOffered(side));
                }
            }
            TableAction::AcceptDraw => {
                if m.draw_offer.take().is_some() {
                    result = m.game.agree_draw().ok();
                }
            }
            TableAction::DeclineDraw => {
                if let Some(by) = m.draw_offer.take() {
                    news.write(News::DrawDeclined { by: by.other() });
                }
            }
            TableAction::ClaimDraw => match m.game.claim_draw() {
                Ok(r) => result = Some(r),
                Err(e) => {
                    news.write(News::NoDraw(e.to_string()));
                }
            },
            TableAction::Resign => result = m.game.resign(side).ok(),
            TableAction::Undo => {
                if let Some(plies) = undo(&mut m, &mut show, &mut news) {
                    undone.write(Undone { plies });
                }
            }
            TableAction::Skip => {
                if show.phase != Phase::Idle {
                    show.skip = true;
                }
            }
            TableAction::ReplayShot => {
                if show.is_idle() && show.shot.is_some() {
                    show.replay = true;
                    show.phase = Phase::Firing { front: 0.0 };
                }
            }
        }
        if let Some(r) = result {
            m.draw_offer = None;
            news.write(News::Ended(r));
            ended.write(GameEnded(r));
        }
    }
}

/// Takes back the last move, or against the computer everything back to the person's last move;
/// the board is shown as it was at once. `None` (and the news why) when nothing was taken back.
fn undo(m: &mut Match, show: &mut Show, news: &mut MessageWriter<News>) -> Option<usize> {
    if m.spec.mode == Mode::Tournament {
        news.write(News::NoTakeBack(
            "the move cannot be taken back in a tournament game",
        ));
        return None;
    }
    if !show.is_idle() {
        news.write(News::NoTakeBack("wait for the shot to land"));
        return None;
    }
    let has_person = m.spec.players.contains(&Player::Person);
    let mut plies = 0;
    while let Ok(turn) = m.game.undo() {
        plies += 1;
        // Against the computer, back to the person's own last move.
        if !has_person || m.player(turn.color) == Player::Person {
            break;
        }
    }
    if plies == 0 {
        news.write(News::NoTakeBack("there is no move to take back"));
        return None;
    }
    m.draw_offer = None;
    *show = Show::at_rest(&m.game, show.landings);
    news.write(News::TakenBack {
        plies,
        to_move: m.game.side_to_move(),
    });
    Some(plies)
}

fn play_moves(
    mut requests: MessageReader<MoveRequested>,
    mut applied: MessageWriter<MoveApplied>,
    mut news: MessageWriter<News>,
    mut m: ResMut<Match>,
    mut show: ResMut<Show>,
) {
    for &MoveRequested(mv) in requests.read() {
        if !show.is_idle() {
            continue;
        }
        let mut fired_on = *m.game.position();
        match m.game.play(mv) {
            Ok(turn) => {
                let turn = turn.clone();
                fired_on.apply_move(turn.mv);
                // A move answers a standing offer of the other side's: it declines it.
                if let Some(by) = m.draw_offer.take()
                    && by != turn.color
                {
                    news.write(News::DrawDeclined { by: turn.color });
                }
                news.write(News::Played {
                    side: turn.color,
                    mv: turn.mv,
                });
                let (starts, length) = beam_timeline(&turn.shot);
                *show = Show {
                    phase: Phase::Moving { elapsed: 0.0 },
                    shot: Some(turn.shot.clone()),
                    display: Some(fired_on),
                    length,
                    segment_starts: starts,
                    replay: false,
                    skip: false,
                    pause: if m.player(turn.color) == Player::Person {
                        0.0
                    } else {
                        0.3
                    },
                    landings: show.landings,
                };
                applied.write(MoveApplied { turn, fired_on });
            }
            Err(e) => {
                news.write(News::Refused(e.to_string()));
            }
        }
    }
}

/// Moves the show along: the piece's move, the beam, the removal, the linger.
fn advance_show(
    time: Res<Time>,
    settings: Res<Settings>,
    m: Res<Match>,
    mut show: ResMut<Show>,
    mut ended: MessageWriter<GameEnded>,
    mut news: MessageWriter<News>,
) {
    let dt = animation_dt(&time, &settings, &show);
    loop {
        let next = match show.phase.clone() {
            Phase::Idle => break,
            Phase::Moving { elapsed } => {
                let e = elapsed + dt;
                if e >= settings.move_seconds + show.pause {
                    Phase::Firing { front: 0.0 }
                } else {
                    Phase::Moving { elapsed: e }
                }
            }
            Phase::Firing { front } => {
                let f = front + dt * settings.beam_squares_per_second;
                if f >= show.length {
                    if !show.replay {
                        // The beam has landed: the hit pieces leave, the board is the engine's.
                        show.display = Some(*m.game.position());
                        show.landings += 1;
                        match m.game.result() {
                            Some(r) => {
                                news.write(News::Ended(r));
                                ended.write(GameEnded(r));
                            }
                            None => {
                                if let Some(t) = m.game.last_turn() {
                                    news.write(News::Landed {
                                        side: t.color,
                                        mv: t.mv,
                                        hits: t.shot.hits.len(),
                                        to_move: m.game.side_to_move(),
                                    });
                                }
                            }
                        }
                    }
                    show.replay = false;
                    Phase::Lingering { elapsed: 0.0 }
                } else {
                    Phase::Firing { front: f }
                }
            }
            Phase::Lingering { elapsed } => {
                let e = elapsed + dt;
                if e >= settings.linger_seconds {
                    Phase::Idle
                } else {
                    Phase::Lingering { elapsed: e }
                }
            }
        };
        let advanced = next != show.phase;
        show.phase = next;
        if show.phase == Phase::Idle {
            show.skip = false;
        }
        // With an instant speed, run through every phase in one frame.
        if !(advanced && dt.is_infinite()) {
            break;
        }
    }
}
