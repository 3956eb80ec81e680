//! The setup editor: here its state and its edits, with no drawing (a board being built, undo
//! and redo, symmetric placement, the engine's own checks, saving to the player's setups folder
//! and playing the setup); `fairness` runs "Is it fair?" in the background, `marks` rings the
//! problem squares on the board, and `ui/` is the editor's side panel. The 3D board shows
//! [`Editor::board`] while the editor screen is open.
//!
//! Symmetric placement (on by default, as every official setup is built): an edit on a square
//! is repeated on its partner, the square turned half a turn, with the colours swapped and the
//! piece turned half a turn. Moving, turning or removing a piece takes the partner along only
//! where the partner is that mirror image, so an asymmetric piece placed with symmetry off is
//! never disturbed by accident.

pub mod fairness;
mod keys;
pub mod marks;
pub mod ui;

use crate::news::News;
use crate::screen::Screen;
use crate::setups::SetupLibrary;
use crate::table::selection::SquareClicked;
use crate::table::{Match, NewGameRequested, NewGameSpec, Phase, Show, beam_timeline};
use bevy::prelude::*;
use khet_engine::{
    Color as Side, Edition, Kind, Piece, Position, Problem, Rotation, Setup, Shot, Square, fire,
};
use std::path::PathBuf;

/// The setup being made.
#[derive(Resource, Clone, Debug)]
pub struct Editor {
    pub board: Position,
    pub name: String,
    pub description: String,
    pub symmetric: bool,
    /// The piece a click places, if one is chosen in the palette.
    pub brush: Option<Piece>,
    /// The piece a click on an empty square moves there.
    pub selected: Option<Square>,
    /// What the engine finds wrong with the board, recomputed after every edit.
    pub problems: Vec<Problem>,
    /// The last laser fired in the editor.
    pub shot: Option<Shot>,
    pub undo: Vec<Position>,
    pub redo: Vec<Position>,
}

impl Default for Editor {
    fn default() -> Editor {
        let classic = Setup::builtin("khet2/classic").map(|s| s.position);
        Editor::starting_from(
            classic.unwrap_or_else(|_| Position::empty(Edition::Khet2)),
            "My setup",
        )
    }
}

/// One change to the editor.
#[derive(Message, Clone, Debug, PartialEq)]
pub enum Edit {
    /// Put this piece here (an obelisk on an own single obelisk stacks).
    Place(Square, Piece),
    Remove(Square),
    Move {
        from: Square,
        to: Square,
    },
    Rotate(Square, Rotation),
    Undo,
    Redo,
    /// Start again from this board (an empty board of an edition, or a setup).
    Start(Position, String),
    Symmetric(bool),
    Brush(Option<Piece>),
    /// Pick up the piece on this square (or put it down).
    Select(Option<Square>),
    Name(String),
    Description(String),
    /// Fire this side's laser on the board and show it.
    Fire(Side),
    /// Save to the player's setups folder (refused while there are problems).
    Save,
    /// Start a game from the board.
    PlayIt,
}

impl Editor {
    pub fn starting_from(board: Position, name: &str) -> Editor {
        let mut e = Editor {
            board,
            name: name.to_string(),
            description: String::new(),
            symmetric: true,
            brush: None,
            selected: None,
            problems: Vec::new(),
            shot: None,
            undo: Vec::new(),
            redo: Vec::new(),
        };
        e.check();
        e
    }

    /// Recomputes the problems: the engine's checks of a position, and that the setup reads
    /// back from its own file.
    pub fn check(&mut self) {
        self.problems = self.board.problems();
    }

    /// The setup as it would be saved.
    pub fn setup(&self) -> Setup {
        let mut board = self.board;
        board.set_side_to_move(Side::Silver);
        Setup::from_position(self.name.trim(), self.description.trim(), &board)
    }

    /// Applies a board edit (with its partner when symmetric), keeping undo; `false` when it
    /// changes nothing.
    pub fn edit(&mut self, edit: &Edit) -> bool {
        let before = self.board;
        let after = match edit {
            Edit::Undo => return self.step_history(true),
            Edit::Redo => return self.step_history(false),
            Edit::Start(board, name) => {
                self.name.clone_from(name);
                *board
            }
            _ => match edited(&self.board, edit, self.symmetric) {
                Some(b) => b,
                None => return false,
            },
        };
        if after == before && !matches!(edit, Edit::Start(..)) {
            return false;
        }
        self.undo.push(before);
        self.redo.clear();
        self.board = after;
        self.after_change();
        true
    }

    fn step_history(&mut self, back: bool) -> bool {
        let (from, to) = if back {
            (&mut self.undo, &mut self.redo)
        } else {
            (&mut self.redo, &mut self.undo)
        };
        let Some(board) = from.pop() else {
            return false;
        };
        to.push(self.board);
        self.board = board;
        self.after_change();
        true
    }

    fn after_change(&mut self) {
        self.shot = None;
        if self
            .selected
            .is_some_and(|s| self.board.piece_at(s).is_none())
        {
            self.selected = None;
        }
        self.check();
    }
}

/// The piece as the other side would have it in the partner square: colours swapped, half a turn.
pub fn partner(piece: Piece) -> Piece {
    piece.mirrored()
}

/// The board after a board edit, `None` if the edit is not possible.
pub fn edited(board: &Position, edit: &Edit, symmetric: bool) -> Option<Position> {
    let mut b = *board;
    let mirrored_at = |b: &Position, sq: Square| {
        let p = b.piece_at(sq)?;
        let twin = sq.rotate_180();
        (symmetric && twin != sq && b.piece_at(twin) == Some(partner(p))).then_some(twin)
    };
    match *edit {
        Edit::Place(sq, piece) => {
            let piece = match b.piece_at(sq) {
                Some(p)
                    if p.kind() == Kind::Obelisk
                        && piece.kind() == Kind::Obelisk
                        && p.color() == piece.color()
                        && p.height() == 1 =>
                {
                    Piece::obelisk(p.color(), 2)
                }
                _ => piece,
            };
            b.put(sq, Some(piece));
            if symmetric && sq.rotate_180() != sq {
                b.put(sq.rotate_180(), Some(partner(piece)));
            }
        }
        Edit::Remove(sq) => {
            if let Some(twin) = mirrored_at(&b, sq) {
                b.put(twin, None);
            }
            b.put(sq, None);
        }
        Edit::Rotate(sq, rotation) => {
            let p = b.piece_at(sq)?;
            let twin = mirrored_at(&b, sq);
            let turned = p.rotated(rotation);
            b.put(sq, Some(turned));
            if let Some(t) = twin {
                b.put(t, Some(partner(turned)));
            }
        }
        Edit::Move { from, to } => {
            let p = b.piece_at(from)?;
            if b.piece_at(to).is_some() {
                return None;
            }
            let twin = mirrored_at(&b, from);
            b.put(from, None);
            if let Some(t) = twin {
                b.put(t, None);
            }
            let twin_to = to.rotate_180();
            if twin.is_some() && (b.piece_at(twin_to).is_some() || twin_to == to) {
                return None;
            }
            b.put(to, Some(p));
            if twin.is_some() {
                b.put(twin_to, Some(partner(p)));
            }
        }
        _ => return None,
    }
    Some(b)
}

/// Whether the board equals its own half turn with colours swapped (side to move aside).
pub fn is_symmetric(board: &Position) -> bool {
    let mirrored = board.mirrored();
    board.pieces().eq(mirrored.pieces())
}

pub(super) fn plugin(app: &mut App) {
    keys::plugin(app);
    crate::frames::add_waking_message::<Edit>(app)
        .init_resource::<Editor>()
        .add_systems(
            Update,
            (clicks, apply_edits)
                .chain()
                .run_if(in_state(Screen::Editor))
                .in_set(crate::GameSet::Logic)
                .before(crate::table::Flow),
        )
        .add_systems(
            Update,
            show_board
                .run_if(in_state(Screen::Editor))
                .in_set(crate::GameSet::Logic)
                .after(crate::table::Flow),
        )
        .add_systems(OnExit(Screen::Editor), back_to_the_game);
    fairness::plugin(app);
}

/// A click places the brush's piece, picks a piece up, or puts the picked piece down.
fn clicks(
    mut clicks: MessageReader<SquareClicked>,
    editor: Res<Editor>,
    mut edits: MessageWriter<Edit>,
) {
    let mut selected = editor.selected;
    for &SquareClicked(sq) in clicks.read() {
        match (editor.brush, editor.board.piece_at(sq), selected) {
            (Some(piece), _, _) => {
                edits.write(Edit::Place(sq, piece));
            }
            (None, Some(_), s) if s == Some(sq) => selected = None,
            (None, Some(_), _) => selected = Some(sq),
            (None, None, Some(from)) => {
                edits.write(Edit::Move { from, to: sq });
                selected = None;
            }
            (None, None, None) => {}
        }
    }
    if selected != editor.selected {
        edits.write(Edit::Select(selected));
    }
}

fn apply_edits(
    mut edits: MessageReader<Edit>,
    mut editor: ResMut<Editor>,
    mut library: ResMut<SetupLibrary>,
    settings: Res<crate::settings::Settings>,
    mut new_game: MessageWriter<NewGameRequested>,
    mut go: ResMut<NextState<Screen>>,
    mut news: MessageWriter<News>,
    mut show: ResMut<Show>,
) {
    for edit in edits.read() {
        match edit {
            Edit::Symmetric(on) => editor.symmetric = *on,
            Edit::Select(sq) => editor.selected = *sq,
            Edit::Name(name) => editor.name.clone_from(name),
            Edit::Description(text) => editor.description.clone_from(text),
            Edit::Brush(b) => {
                editor.brush = *b;
                if b.is_some() {
                    editor.selected = None;
                }
            }
            Edit::Fire(side) => {
                let shot = fire(&editor.board, *side);
                let (starts, length) = beam_timeline(&shot);
                *show = Show {
                    phase: Phase::Firing { front: 0.0 },
                    shot: Some(shot.clone()),
                    display: Some(editor.board),
                    length,
                    segment_starts: starts,
                    replay: true,
                    landings: show.landings,
                    hold: true,
                    ..Show::default()
                };
                editor.shot = Some(shot);
            }
            Edit::Save => match save(&editor, &mut library) {
                Ok(path) => {
                    news.write(News::Saved(path.display().to_string()));
                }
                Err(e) => {
                    news.write(News::SaveFailed(e));
                }
            },
            Edit::PlayIt => {
                if editor.problems.is_empty() {
                    let spec = NewGameSpec::casual(editor.setup(), settings.players);
                    new_game.write(NewGameRequested(spec));
                    go.set(Screen::Playing);
                } else {
                    news.write(News::Refused(format!(
                        "the setup has {} problem(s): {}",
                        editor.problems.len(),
                        editor.problems[0]
                    )));
                }
            }
            other => {
                editor.edit(other);
            }
        }
    }
}

/// The player's setup file for `name`: letters, digits, spaces, `-` and `_` kept.
pub fn setup_file(dir: &std::path::Path, name: &str) -> PathBuf {
    let stem = crate::files::safe_stem(name, "setup")
        .replace(' ', "-")
        .to_lowercase();
    dir.join(format!("{stem}.ron"))
}

/// Saves the setup atomically and lists it at once; refused while the engine finds problems.
pub fn save(editor: &Editor, library: &mut SetupLibrary) -> Result<PathBuf, String> {
    if let Some(first) = editor.problems.first() {
        return Err(format!(
            "{} problem(s) remain, first: {first}",
            editor.problems.len()
        ));
    }
    if editor.name.trim().is_empty() {
        return Err("the setup needs a name".into());
    }
    let dir = library
        .own_dir
        .clone()
        .ok_or("there is no folder for your setups")?;
    let setup = editor.setup();
    let text = setup.to_ron();
    // What is written must read back as the same setup, through the same checks as any file.
    let path = setup_file(&dir, &editor.name);
    let read = Setup::from_ron(&text, &path.display().to_string()).map_err(|e| e.to_string())?;
    if read.position.pieces().ne(setup.position.pieces()) {
        return Err("the setup does not read back the same".into());
    }
    crate::files::write_atomic(&path, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    *library = SetupLibrary::load_with(library.own_dir.clone());
    Ok(path)
}

/// The board the pieces show is the editor's while the editor is open; a laser fired in the
/// editor stays drawn (held: [`Show::hold`]) until the next edit.
fn show_board(editor: Res<Editor>, mut show: ResMut<Show>) {
    if show.display != Some(editor.board) {
        show.display = Some(editor.board);
        if editor.shot.is_none() {
            show.phase = Phase::Idle;
            show.shot = None;
            show.hold = false;
        }
    }
}

fn back_to_the_game(m: Option<Res<Match>>, mut show: ResMut<Show>) {
    if let Some(m) = m {
        *show = Show::at_rest(&m.game, show.landings);
    }
}
