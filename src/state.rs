//! The game's one authoritative state: a resource wrapping the engine's [`Game`], the messages
//! that change it (the mouse, the keys, the panels and tests all write the same ones), and the
//! turn flow: move animation, then the shot, then removal.

use bevy::prelude::*;
use khet_engine::{
    Color as Side, Game, GameResult, Move, Piece, Position, Rotation, Rules, Setup, Shot, Square,
    Turn,
};

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Player {
    Person,
    Computer(khet_engine::Level),
}

/// The state's own systems, for ordering the computer after them.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub struct Flow;

/// What a new game starts from.
#[derive(Clone, Debug)]
pub struct NewGameSpec {
    pub setup: Setup,
    pub rules: Rules,
    pub players: [Player; 2],
}

/// When a stack of obelisks is selected: does a click on a square move the stack or its top?
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StackMode {
    #[default]
    Whole,
    Top,
}

/// The match: the engine's game (the single source of truth for the rules) plus what the
/// people at the table are doing.
#[derive(Resource)]
pub struct KhetGame {
    pub game: Game,
    pub setup_name: String,
    pub spec: NewGameSpec,
    pub selected: Option<Square>,
    pub stack_mode: StackMode,
    /// The status line: what just happened, or why a click did nothing.
    pub status: String,
    /// A pending draw offer, by this side.
    pub draw_offer: Option<Side>,
    /// Pieces each side has lost, in order.
    pub lost: [Vec<Piece>; 2],
}

impl KhetGame {
    pub fn new(spec: NewGameSpec) -> KhetGame {
        let game = Game::new(spec.setup.position.with_rules(spec.rules));
        KhetGame {
            game,
            setup_name: spec.setup.name.clone(),
            spec,
            selected: None,
            stack_mode: StackMode::Whole,
            status: "Silver to move".into(),
            draw_offer: None,
            lost: [Vec::new(), Vec::new()],
        }
    }

    /// The legal moves of the selected piece.
    pub fn selected_moves(&self) -> Vec<Move> {
        match self.selected {
            Some(sq) => self
                .game
                .legal_moves()
                .into_iter()
                .filter(|m| m.from() == sq)
                .collect(),
            None => Vec::new(),
        }
    }

    /// The move a click on `to` makes with the selected piece, honouring the stack mode.
    pub fn move_to(&self, to: Square) -> Option<Move> {
        let moves: Vec<Move> = self
            .selected_moves()
            .into_iter()
            .filter(|m| m.to() == to && !matches!(m, Move::Rotate { .. }))
            .collect();
        let top = self.stack_mode == StackMode::Top;
        moves
            .iter()
            .find(|m| matches!(m, Move::Unstack { .. }) == top)
            .or(moves.first())
            .copied()
    }
}

// ---- messages in --------------------------------------------------------------------------------

/// A square (or the piece on it) was clicked.
#[derive(Message, Clone, Copy, Debug)]
pub struct SquareClicked(pub Square);

/// Turn the selected piece.
#[derive(Message, Clone, Copy, Debug)]
pub struct RotateSelected(pub Rotation);

/// Play this move for the side to move (checked by the engine).
#[derive(Message, Clone, Copy, Debug)]
pub struct MoveRequested(pub Move);

#[derive(Message, Clone, Debug)]
pub struct NewGameRequested(pub NewGameSpec);

/// Table actions from the panels.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableAction {
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    ClaimDraw,
    Resign,
    /// Complete the running animation at once.
    Skip,
    /// Show the last shot again.
    ReplayShot,
    ToggleStackMode,
    Deselect,
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

/// Animation timing. `speed` scales everything; 0 makes it instant (tests, "skip").
#[derive(Resource, Clone, Debug)]
pub struct Settings {
    pub speed: f32,
    pub move_seconds: f32,
    pub beam_squares_per_second: f32,
    pub linger_seconds: f32,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            speed: 1.0,
            move_seconds: 0.35,
            beam_squares_per_second: 16.0,
            linger_seconds: 1.2,
        }
    }
}

/// How far animations move this frame: scaled by the speed setting, and everything at once
/// when the speed is 0 (tests) or the player skips.
pub fn animation_dt(time: &Time, settings: &Settings, show: &Show) -> f32 {
    if settings.speed <= 0.0 || show.skip {
        f32::INFINITY
    } else {
        time.delta_secs() * settings.speed
    }
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
    app.add_message::<SquareClicked>()
        .add_message::<RotateSelected>()
        .add_message::<MoveRequested>()
        .add_message::<NewGameRequested>()
        .add_message::<TableAction>()
        .add_message::<MoveApplied>()
        .add_message::<GameEnded>()
        .init_resource::<Settings>()
        .init_resource::<Show>()
        .add_systems(
            Update,
            (
                new_game,
                clicks,
                rotations,
                table_actions,
                play_moves,
                advance_show,
            )
                .chain()
                .in_set(Flow)
                .in_set(crate::GameSet::Logic),
        );
}

fn new_game(
    mut requests: MessageReader<NewGameRequested>,
    mut commands: Commands,
    mut show: ResMut<Show>,
) {
    if let Some(NewGameRequested(spec)) = requests.read().last() {
        let game = KhetGame::new(spec.clone());
        *show = Show {
            display: Some(*game.game.position()),
            landings: show.landings,
            ..Show::default()
        };
        commands.insert_resource(game);
    }
}

fn human_to_move(game: &KhetGame) -> bool {
    human_to_move_side(game, game.game.side_to_move())
}

fn human_to_move_side(game: &KhetGame, side: Side) -> bool {
    game.spec.players[side.index()] == Player::Person
}

/// Clicks select a piece of the side to move, or move the selected one.
fn clicks(
    mut clicks: MessageReader<SquareClicked>,
    mut moves: MessageWriter<MoveRequested>,
    game: Option<ResMut<KhetGame>>,
    show: Res<Show>,
) {
    let Some(mut game) = game else { return };
    for &SquareClicked(sq) in clicks.read() {
        if !show.is_idle() {
            continue;
        }
        if game.game.is_over() {
            game.status = "The game is over: start a new game or a rematch.".into();
            continue;
        }
        if !human_to_move(&game) {
            game.status = "It is the computer's turn.".into();
            continue;
        }
        let side = game.game.side_to_move();
        let piece = game.game.position().piece_at(sq);
        if let Some(mv) = game.move_to(sq) {
            moves.write(MoveRequested(mv));
            continue;
        }
        match piece {
            Some(p) if p.color() == side => {
                if game.selected == Some(sq) {
                    game.selected = None;
                    game.status = format!("{side} to move");
                } else {
                    game.selected = Some(sq);
                    game.stack_mode = StackMode::Whole;
                    let n = game.selected_moves().len();
                    game.status = match (p.kind(), n) {
                        (_, 0) => format!("The {} on {sq} has no legal move.", p.kind()),
                        (khet_engine::Kind::Sphinx, _) => {
                            "The Sphinx only turns: use ↺ ↻ or Q / E.".into()
                        }
                        _ => format!(
                            "{} on {sq} selected: click a highlighted square, or turn it with ↺ ↻ (Q / E).",
                            p.kind()
                        ),
                    };
                }
            }
            Some(p) if game.selected.is_none() => {
                game.status = format!("That {} is {}'s; {side} is to move.", p.kind(), p.color());
            }
            _ => match game.selected {
                Some(from) => {
                    // Explain why this square is not a move, in the engine's words.
                    let attempt = Move::Step { from, to: sq };
                    game.status = match game.game.position().check_move(attempt) {
                        Err(e) => format!("Not a move: {}.", e.reason),
                        Ok(_) => "Not a move.".into(),
                    };
                }
                None => game.status = format!("Select one of {side}'s pieces."),
            },
        }
    }
}

fn rotations(
    mut requests: MessageReader<RotateSelected>,
    mut moves: MessageWriter<MoveRequested>,
    game: Option<ResMut<KhetGame>>,
    show: Res<Show>,
) {
    let Some(mut game) = game else { return };
    for &RotateSelected(rotation) in requests.read() {
        if !show.is_idle() || game.game.is_over() || !human_to_move(&game) {
            continue;
        }
        let Some(at) = game.selected else {
            game.status = "Select a piece to turn it.".into();
            continue;
        };
        match game
            .game
            .position()
            .check_move(Move::Rotate { at, rotation })
        {
            Ok(mv) => {
                moves.write(MoveRequested(mv));
            }
            Err(e) => game.status = format!("Cannot turn it: {}.", e.reason),
        }
    }
}

fn table_actions(
    mut actions: MessageReader<TableAction>,
    mut ended: MessageWriter<GameEnded>,
    game: Option<ResMut<KhetGame>>,
    mut show: ResMut<Show>,
) {
    let Some(mut game) = game else { return };
    for &action in actions.read() {
        let side = game.game.side_to_move();
        let mut result = None;
        match action {
            TableAction::OfferDraw => {
                if !game.game.is_over() {
                    game.draw_offer = Some(side);
                    game.status = format!(
                        "{side} offers a draw; {} may accept or decline.",
                        side.other()
                    );
                    // A computer accepts only when its evaluation says it is not ahead.
                    if let Player::Computer(_) = game.spec.players[side.other().index()] {
                        game.draw_offer = None;
                        if crate::ai::quick_score(game.game.position()) >= 0 {
                            result = game.game.agree_draw().ok();
                        } else {
                            game.status = format!(
                                "{} (computer) declines the draw: it is ahead.",
                                side.other()
                            );
                        }
                    }
                }
            }
            TableAction::AcceptDraw => {
                if game.draw_offer.take().is_some() {
                    result = game.game.agree_draw().ok();
                }
            }
            TableAction::DeclineDraw => {
                if let Some(by) = game.draw_offer.take() {
                    game.status = format!("{} declines {by}'s draw offer.", by.other());
                }
            }
            TableAction::ClaimDraw => match game.game.claim_draw() {
                Ok(r) => result = Some(r),
                Err(e) => game.status = format!("No draw: {e}."),
            },
            TableAction::Resign => {
                result = game.game.resign(side).ok();
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
            TableAction::ToggleStackMode => {
                game.stack_mode = match game.stack_mode {
                    StackMode::Whole => StackMode::Top,
                    StackMode::Top => StackMode::Whole,
                };
            }
            TableAction::Deselect => game.selected = None,
        }
        if let Some(r) = result {
            game.selected = None;
            game.draw_offer = None;
            game.status = r.to_string();
            ended.write(GameEnded(r));
        }
    }
}

fn play_moves(
    mut requests: MessageReader<MoveRequested>,
    mut applied: MessageWriter<MoveApplied>,
    game: Option<ResMut<KhetGame>>,
    mut show: ResMut<Show>,
) {
    let Some(mut game) = game else { return };
    for &MoveRequested(mv) in requests.read() {
        if !show.is_idle() {
            continue;
        }
        let mut fired_on = *game.game.position();
        match game.game.play(mv) {
            Ok(turn) => {
                let turn = turn.clone();
                fired_on.apply_move(turn.mv);
                for hit in &turn.shot.hits {
                    if hit.effect != khet_engine::HitEffect::PharaohLit {
                        game.lost[hit.piece.color().index()].push(hit.piece);
                    }
                }
                game.selected = None;
                game.draw_offer = None;
                game.status = format!("{} played {}", turn.color, turn.mv);
                let (starts, length) = beam_timeline(&turn.shot);
                *show = Show {
                    phase: Phase::Moving { elapsed: 0.0 },
                    shot: Some(turn.shot.clone()),
                    display: Some(fired_on),
                    length,
                    segment_starts: starts,
                    replay: false,
                    skip: false,
                    pause: if human_to_move_side(&game, turn.color) {
                        0.0
                    } else {
                        0.3
                    },
                    landings: show.landings,
                };
                applied.write(MoveApplied { turn, fired_on });
            }
            Err(e) => game.status = format!("Refused: {e}"),
        }
    }
}

/// Moves the show along: the piece's move, the beam, the removal, the linger.
fn advance_show(
    time: Res<Time>,
    settings: Res<Settings>,
    game: Option<ResMut<KhetGame>>,
    mut show: ResMut<Show>,
    mut ended: MessageWriter<GameEnded>,
) {
    let Some(mut game) = game else { return };
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
                        show.display = Some(*game.game.position());
                        show.landings += 1;
                        if game.game.is_over() {
                            if let Some(r) = game.game.result() {
                                game.status = r.to_string();
                                ended.write(GameEnded(r));
                            }
                        } else {
                            game.status =
                                format!("{}. {} to move.", game.status, game.game.side_to_move());
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
