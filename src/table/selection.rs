//! The piece a person has picked up: clicks select one of the mover's pieces and move it, turn
//! requests turn it; each answer, or the reason for none, is [`News`]. Only on the playing
//! screen, and only while nothing is moving.

use crate::news::News;
use crate::screen::Screen;
use crate::table::{Match, MoveRequested, NewGameRequested, Show, Undone, has_match};
use bevy::prelude::*;
use khet_engine::{Game, Move, Rotation, Square};

/// A square (or the piece on it) was clicked.
#[derive(Message, Clone, Copy, Debug)]
pub struct SquareClicked(pub Square);

/// Turn the selected piece.
#[derive(Message, Clone, Copy, Debug)]
pub struct RotateSelected(pub Rotation);

/// What else can be done with the selection.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectionAction {
    Deselect,
    /// Switch between moving a stack of obelisks whole or its top.
    ToggleStackMode,
}

/// When a stack of obelisks is selected: does a click on a square move the stack or its top?
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StackMode {
    #[default]
    Whole,
    Top,
}

/// The selected piece, valid for the board it was picked on (`ply` turns into the game).
#[derive(Resource, Default, Debug)]
pub struct Selection {
    square: Option<Square>,
    ply: usize,
    pub stack_mode: StackMode,
}

impl Selection {
    /// The selected square, if it still belongs to the board shown (a move, a take-back or the
    /// end of the game drops it).
    pub fn square(&self, game: &Game) -> Option<Square> {
        self.square
            .filter(|_| self.ply == game.turns().len() && !game.is_over())
    }

    /// The legal moves of the selected piece.
    pub fn moves(&self, game: &Game) -> Vec<Move> {
        match self.square(game) {
            Some(sq) => game
                .legal_moves()
                .into_iter()
                .filter(|m| m.from() == sq)
                .collect(),
            None => Vec::new(),
        }
    }

    /// The move a click on `to` makes with the selected piece, honouring the stack mode.
    pub fn move_to(&self, game: &Game, to: Square) -> Option<Move> {
        let moves: Vec<Move> = self
            .moves(game)
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

    fn select(&mut self, sq: Square, game: &Game) {
        self.square = Some(sq);
        self.ply = game.turns().len();
        self.stack_mode = StackMode::Whole;
    }
}

/// The square under the pointer (the stage rings it; the laser preview aims there).
#[derive(Resource, Default, Clone, Copy, PartialEq, Eq)]
pub struct Hovered(pub Option<Square>);

pub(super) fn plugin(app: &mut App) {
    crate::frames::add_waking_message::<SquareClicked>(app);
    crate::frames::add_waking_message::<RotateSelected>(app);
    crate::frames::add_waking_message::<SelectionAction>(app)
        .init_resource::<Hovered>()
        .init_resource::<Selection>()
        .add_systems(
            Update,
            (
                forget,
                (clicks, rotations, actions).run_if(in_state(Screen::Playing)),
            )
                .chain()
                .run_if(has_match)
                .in_set(crate::GameSet::Logic)
                .before(crate::table::Flow),
        );
}

/// A new game or a take-back drops the selection.
fn forget(
    mut new_games: MessageReader<NewGameRequested>,
    mut undone: MessageReader<Undone>,
    mut selection: ResMut<Selection>,
) {
    if new_games.read().count() + undone.read().count() > 0 {
        *selection = Selection::default();
    }
}

/// Clicks select a piece of the side to move, or move the selected one.
fn clicks(
    mut clicks: MessageReader<SquareClicked>,
    mut moves: MessageWriter<MoveRequested>,
    mut news: MessageWriter<News>,
    mut selection: ResMut<Selection>,
    m: Res<Match>,
    show: Res<Show>,
) {
    for &SquareClicked(sq) in clicks.read() {
        if !show.is_idle() {
            continue;
        }
        let game = &m.game;
        if game.is_over() {
            news.write(News::GameIsOver);
            continue;
        }
        if !m.person_to_move() {
            news.write(
                if m.player(game.side_to_move()) == khet_engine::Player::Online {
                    News::OpponentsTurn
                } else {
                    News::ComputersTurn
                },
            );
            continue;
        }
        if let Some(mv) = selection.move_to(game, sq) {
            moves.write(MoveRequested(mv));
            continue;
        }
        let side = game.side_to_move();
        let selected = selection.square(game);
        news.write(match game.position().piece_at(sq) {
            Some(p) if p.color() == side && selected == Some(sq) => {
                selection.square = None;
                News::ToMove(side)
            }
            Some(p) if p.color() == side => {
                selection.select(sq, game);
                News::Selected {
                    at: sq,
                    kind: p.kind(),
                    moves: selection.moves(game).len(),
                }
            }
            Some(p) if selected.is_none() => News::NotYours {
                kind: p.kind(),
                owner: p.color(),
                to_move: side,
            },
            // Explain why this square is not a move, in the engine's words.
            _ => match selected {
                Some(from) => match game.position().check_move(Move::Step { from, to: sq }) {
                    Err(e) => News::NotAMove(e.reason.to_string()),
                    Ok(_) => News::NotAMove("that square is not reachable".into()),
                },
                None => News::SelectOwn(side),
            },
        });
    }
}

fn rotations(
    mut requests: MessageReader<RotateSelected>,
    mut moves: MessageWriter<MoveRequested>,
    mut news: MessageWriter<News>,
    selection: Res<Selection>,
    m: Res<Match>,
    show: Res<Show>,
) {
    for &RotateSelected(rotation) in requests.read() {
        if !show.is_idle() || !m.person_to_move() {
            continue;
        }
        let Some(at) = selection.square(&m.game) else {
            news.write(News::SelectToTurn);
            continue;
        };
        match m.game.position().check_move(Move::Rotate { at, rotation }) {
            Ok(mv) => {
                moves.write(MoveRequested(mv));
            }
            Err(e) => {
                news.write(News::CannotTurn(e.reason.to_string()));
            }
        }
    }
}

fn actions(mut actions: MessageReader<SelectionAction>, mut selection: ResMut<Selection>) {
    for action in actions.read() {
        match action {
            SelectionAction::Deselect => selection.square = None,
            SelectionAction::ToggleStackMode => {
                selection.stack_mode = match selection.stack_mode {
                    StackMode::Whole => StackMode::Top,
                    StackMode::Top => StackMode::Whole,
                };
            }
        }
    }
}
