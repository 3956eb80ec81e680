//! What happened at the table, as typed messages: every system says what it did or why it did
//! nothing with a [`News`], tests match on the variants, and this one module turns the latest
//! into the words of the status line.

use bevy::prelude::*;
use khet_engine::{Color as Side, GameResult, Kind, Move, Square};
use std::collections::HashMap;
use std::fmt;

pub mod ui;

/// One thing that happened, or one reason nothing did.
#[derive(Message, Clone, Debug, PartialEq)]
pub enum News {
    /// A new game, or the selection dropped: whose move it is.
    ToMove(Side),
    Selected {
        at: Square,
        kind: Kind,
        moves: usize,
    },
    /// The engine's reason a click is not a move.
    NotAMove(String),
    NotYours {
        kind: Kind,
        owner: Side,
        to_move: Side,
    },
    SelectOwn(Side),
    ComputersTurn,
    /// Online, the player elsewhere is to move.
    OpponentsTurn,
    GameIsOver,
    SelectToTurn,
    CannotTurn(String),
    /// A move was made; its shot is on its way.
    Played {
        side: Side,
        mv: Move,
    },
    /// The shot landed and the game goes on.
    Landed {
        side: Side,
        mv: Move,
        hits: usize,
        to_move: Side,
    },
    Refused(String),
    Ended(GameResult),
    DrawOffered(Side),
    /// `by` declined the offer.
    DrawDeclined {
        by: Side,
    },
    NoDraw(String),
    TakenBack {
        plies: usize,
        to_move: Side,
    },
    NoTakeBack(&'static str),
    HintSearching,
    Hint(Move),
    Saved(String),
    /// Saving failed: the reason, with the file.
    SaveFailed(String),
    Copied(&'static str),
    /// Pasted text that is neither a protocol line nor a position string.
    PasteFailed(String),
    /// A file of the player's was damaged; the reason, and what the game did instead.
    Damaged(String),
    /// The renderer runs on the CPU (its name): the game picked Low graphics by itself.
    SoftwareRenderer(String),
    /// `Auto` graphics stepped down to this preset: the frames were too slow.
    AutoQuality(String),
    /// About the sound: muted, unmuted, no device (and why).
    Sound(String),
    /// An asset file (a model, a sound) missing or broken: its path, why, and what is used
    /// instead.
    Asset(String),
    /// Online play: connected, the connection lost or back, what the server refused.
    Online(String),
}

impl fmt::Display for News {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            News::ToMove(side) => write!(f, "{side} to move"),
            News::Selected { at, kind, moves: 0 } => {
                write!(f, "The {kind} on {at} has no legal move.")
            }
            News::Selected {
                kind: Kind::Sphinx, ..
            } => write!(f, "The Sphinx only turns: use ↺ ↻ or Q / E."),
            News::Selected { at, kind, .. } => write!(
                f,
                "{kind} on {at} selected: click a highlighted square, or turn it with ↺ ↻ (Q / E)."
            ),
            News::NotAMove(reason) => write!(f, "Not a move: {reason}."),
            News::NotYours {
                kind,
                owner,
                to_move,
            } => write!(f, "That {kind} is {owner}'s; {to_move} is to move."),
            News::SelectOwn(side) => write!(f, "Select one of {side}'s pieces."),
            News::ComputersTurn => write!(f, "It is the computer's turn."),
            News::OpponentsTurn => write!(f, "It is your opponent's turn."),
            News::GameIsOver => write!(f, "The game is over: start a new game or a rematch."),
            News::SelectToTurn => write!(f, "Select a piece to turn it."),
            News::CannotTurn(reason) => write!(f, "Cannot turn it: {reason}."),
            News::Played { side, mv } => write!(f, "{side} played {mv}"),
            News::Landed {
                side,
                mv,
                hits,
                to_move,
            } => {
                let hit = match hits {
                    0 => String::new(),
                    1 => ", hitting a piece".into(),
                    n => format!(", hitting {n} pieces"),
                };
                write!(f, "{side} played {mv}{hit}. {to_move} to move.")
            }
            News::Refused(reason) => write!(f, "Refused: {reason}"),
            News::Ended(result) => write!(f, "{result}"),
            News::DrawOffered(by) => {
                write!(
                    f,
                    "{by} offers a draw; {} may accept or decline.",
                    by.other()
                )
            }
            News::DrawDeclined { by } => {
                write!(f, "{by} declines {}'s draw offer.", by.other())
            }
            News::NoDraw(reason) => write!(f, "No draw: {reason}."),
            News::TakenBack { plies, to_move } => {
                let moves = if *plies == 1 { "move" } else { "moves" };
                write!(f, "Took back {plies} {moves}. {to_move} to move.")
            }
            News::NoTakeBack(reason) => write!(f, "No take-back: {reason}."),
            News::HintSearching => write!(f, "Master is looking for a hint…"),
            News::Hint(mv) => write!(f, "Hint: Master would play {mv}."),
            News::Saved(file) => write!(f, "Saved as {file}."),
            News::SaveFailed(reason) => write!(f, "Not saved: {reason}"),
            News::Copied(what) => write!(f, "Copied {what} to the clipboard."),
            News::PasteFailed(reason) => write!(f, "Nothing to paste: {reason}"),
            News::Damaged(reason)
            | News::Sound(reason)
            | News::Asset(reason)
            | News::Online(reason) => {
                write!(f, "{reason}")
            }
            News::AutoQuality(preset) => write!(
                f,
                "Graphics: Auto now draws at {preset}, the frames were slow. Change it under \
                 Settings, Graphics."
            ),
            News::SoftwareRenderer(name) => write!(
                f,
                "A software renderer ({name}): graphics set to Low. Change it under Settings, Graphics."
            ),
        }
    }
}

/// An error's first line (a loader's error may carry a backtrace after it).
pub fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// What the status line shows: the latest news told on the screen the player is on. Each
/// screen keeps its own line, so the editor does not show the game's last move, and the game's
/// line is there again on the way back.
#[derive(Resource, Default, Debug)]
pub struct StatusLine(pub Option<News>);

/// What the player must see and dismiss: damaged files and what was done about them.
#[derive(Resource, Default, Debug)]
pub struct Notices(pub Vec<String>);

pub(super) fn plugin(app: &mut App) {
    crate::frames::add_waking_message::<News>(app)
        .init_resource::<StatusLine>()
        .init_resource::<Notices>()
        .add_systems(Update, keep_latest.after(crate::GameSet::Logic));
}

fn keep_latest(
    mut news: MessageReader<News>,
    mut status: ResMut<StatusLine>,
    mut notices: ResMut<Notices>,
    screen: Option<Res<State<crate::screen::Screen>>>,
    mut lines: Local<HashMap<crate::screen::Screen, News>>,
) {
    let here = screen.map_or_else(Default::default, |s| *s.get());
    for n in news.read() {
        if let News::Damaged(text) = n {
            notices.0.push(text.clone());
        }
        lines.insert(here, n.clone());
    }
    let shown = lines.get(&here);
    if status.0.as_ref() != shown {
        status.0 = shown.cloned();
    }
}
