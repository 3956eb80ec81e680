//! A game: the start, every turn played (move and shot), the result, and the repetition rule.

use crate::laser::{Shot, fire};
use crate::movegen::IllegalMove;
use crate::moves::Move;
use crate::notation::parse_position_with;
use crate::piece::Color;
use crate::position::Position;
use crate::rules::{NoMoves, Rules};
use crate::setup::Setup;
use crate::text::quote;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a game was won.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WinReason {
    /// The loser's Pharaoh was lit (by either laser).
    PharaohHit,
    /// The loser resigned.
    Resignation,
    /// The loser had no legal move (rule option `no-moves-loss`).
    NoLegalMoves,
    /// The loser's clock ran out (the rule books have no clock; a game with one ends so).
    Time,
    /// The loser left an online game and stayed away past the grace period; the one who stayed
    /// claimed the win.
    Abandonment,
}

/// Why a game was drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DrawReason {
    /// The player to move claimed a threefold repetition of the arrangement.
    Repetition,
    /// A draw offer was accepted.
    Agreement,
    /// One split shot lit both Pharaohs.
    BothPharaohsHit,
    /// The player to move had no legal move (rule option `no-moves-draw`, the default).
    NoLegalMoves,
    /// A player left an online game; the one who stayed claimed a draw rather than the win.
    Abandonment,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
/// How a game ended.
pub enum GameResult {
    /// One side won.
    Win {
        /// Who won.
        winner: Color,
        /// Why.
        reason: WinReason,
    },
    /// Nobody won.
    Draw {
        /// Why.
        reason: DrawReason,
    },
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameResult::Win { winner, reason } => {
                let loser = winner.other();
                match reason {
                    WinReason::PharaohHit => {
                        write!(f, "{winner} wins: the {loser} Pharaoh was lit")
                    }
                    WinReason::Resignation => write!(f, "{winner} wins: {loser} resigned"),
                    WinReason::NoLegalMoves => {
                        write!(f, "{winner} wins: {loser} had no legal move")
                    }
                    WinReason::Time => write!(f, "{winner} wins: {loser}'s time ran out"),
                    WinReason::Abandonment => write!(f, "{winner} wins: {loser} left the game"),
                }
            }
            GameResult::Draw { reason } => match reason {
                DrawReason::Repetition => write!(f, "Draw by threefold repetition"),
                DrawReason::Agreement => write!(f, "Draw by agreement"),
                DrawReason::BothPharaohsHit => write!(f, "Draw: both Pharaohs were lit"),
                DrawReason::NoLegalMoves => write!(f, "Draw: the player to move had no legal move"),
                DrawReason::Abandonment => write!(f, "Draw: a player left the game"),
            },
        }
    }
}

/// One turn: the move as played and the shot that followed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    /// Who moved.
    pub color: Color,
    /// The move.
    pub mv: Move,
    /// The mover's shot, fired on the board after the move.
    pub shot: Shot,
}

/// Why an action on a game was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// The game is over.
    Over(GameResult),
    /// The move is illegal.
    Illegal(IllegalMove),
    /// A repetition draw was claimed without a threefold repetition.
    NoRepetition {
        /// How often the arrangement has appeared.
        times: usize,
    },
    /// Nothing to take back.
    NothingToUndo,
    /// Move text that is not a move.
    Syntax(crate::ParseMoveError),
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::Over(r) => write!(f, "the game is over ({r})"),
            GameError::Illegal(e) => e.fmt(f),
            GameError::NoRepetition { times } => write!(
                f,
                "no draw to claim: this arrangement has appeared {times} time(s); it must appear three times"
            ),
            GameError::NothingToUndo => write!(f, "there is no move to take back"),
            GameError::Syntax(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for GameError {}

/// A game in progress or finished. The engine's single source of truth for the game's rules.
#[derive(Clone, Debug)]
pub struct Game {
    /// `positions[0]` is the start; `positions[i]` the board after `i` turns.
    positions: Vec<Position>,
    turns: Vec<Turn>,
    result: Option<GameResult>,
}

impl Game {
    /// A game from `start`, under the rules `start` carries.
    pub fn new(start: Position) -> Game {
        let mut game = Game {
            positions: vec![start],
            turns: Vec::new(),
            result: None,
        };
        game.check_no_moves();
        game
    }

    /// The game after `moves` (move text) from `start`, or which move is wrong and why.
    pub fn from_moves(start: Position, moves: &[impl AsRef<str>]) -> Result<Game, String> {
        let mut game = Game::new(start);
        for (i, m) in moves.iter().enumerate() {
            let m = m.as_ref();
            if game.is_over() {
                return Err(format!(
                    "move {} ({}) follows the end of the game",
                    i + 1,
                    quote(m)
                ));
            }
            game.play_text(m)
                .map_err(|e| format!("move {} ({}): {e}", i + 1, quote(m)))?;
        }
        Ok(game)
    }

    /// Reads the words of the protocol's `position` command: a setup name (`startpos` is
    /// Classic) or a position string with its side to move, then optionally `moves …`.
    ///
    /// ```
    /// use khet_engine::{Game, Rules};
    /// let game = Game::from_protocol(&["classic", "moves", "j1-"], Rules::default())?;
    /// let line = game.to_protocol_line();
    /// let words: Vec<&str> = line.split_whitespace().skip(1).collect();
    /// assert_eq!(Game::from_protocol(&words, Rules::default())?.position(), game.position());
    /// # Ok::<(), String>(())
    /// ```
    pub fn from_protocol(words: &[&str], rules: Rules) -> Result<Game, String> {
        let Some(&first) = words.first() else {
            return Err("position needs standard, imhotep, dynasty or a position string".into());
        };
        let name = if first == "startpos" {
            "classic"
        } else {
            first
        };
        let (start, rest) = match Setup::builtin(name) {
            Ok(setup) => (setup.position.with_rules(rules), &words[1..]),
            Err(unknown) if !first.contains('/') => return Err(unknown.to_string()),
            Err(_) => {
                let side = words
                    .get(1)
                    .ok_or("a position string needs its side to move (0 or 1)")?;
                let p = parse_position_with(&format!("{first} {side}"), rules)
                    .map_err(|e| e.to_string())?;
                (p, &words[2..])
            }
        };
        let moves = match rest.first() {
            Some(&"moves") => &rest[1..],
            _ => rest,
        };
        Game::from_moves(start, moves)
    }

    /// The protocol's line that sets up this game: `position <start> moves …`.
    pub fn to_protocol_line(&self) -> String {
        let mut line = format!("position {}", self.start());
        if !self.turns.is_empty() {
            line += " moves";
            for t in &self.turns {
                line += &format!(" {}", t.mv);
            }
        }
        line
    }

    /// Where the game began.
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The board now.
    pub fn position(&self) -> &Position {
        self.positions
            .last()
            .unwrap_or_else(|| unreachable!("a game always has its start"))
    }

    /// Every position so far, the start first.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// Every turn played, the first first.
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// The turn played last.
    pub fn last_turn(&self) -> Option<&Turn> {
        self.turns.last()
    }

    /// How the game ended, if it has.
    pub fn result(&self) -> Option<GameResult> {
        self.result
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.result.is_some()
    }

    /// Whose turn it is.
    pub fn side_to_move(&self) -> Color {
        self.position().side_to_move()
    }

    /// The legal moves now (none once the game is over).
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.is_over() {
            Vec::new()
        } else {
            self.position().legal_moves()
        }
    }

    /// Plays a move for the side to move: checks it, makes it, fires, removes what was hit, and
    /// ends the game when a Pharaoh is lit.
    pub fn play(&mut self, mv: Move) -> Result<&Turn, GameError> {
        if let Some(r) = self.result {
            return Err(GameError::Over(r));
        }
        let before = *self.position();
        let mv = before.check_move(mv).map_err(GameError::Illegal)?;
        let color = before.side_to_move();
        let mut board = before;
        board.apply_move(mv);
        let shot = fire(&board, color);
        let hits = shot.impact();
        board.remove_hits(hits);
        board.set_side_to_move(color.other());
        self.result = match (
            hits.pharaoh_hit(Color::Silver),
            hits.pharaoh_hit(Color::Red),
        ) {
            (true, true) => Some(GameResult::Draw {
                reason: DrawReason::BothPharaohsHit,
            }),
            (true, false) => Some(GameResult::Win {
                winner: Color::Red,
                reason: WinReason::PharaohHit,
            }),
            (false, true) => Some(GameResult::Win {
                winner: Color::Silver,
                reason: WinReason::PharaohHit,
            }),
            (false, false) => None,
        };
        self.positions.push(board);
        self.turns.push(Turn { color, mv, shot });
        self.check_no_moves();
        Ok(self
            .turns
            .last()
            .unwrap_or_else(|| unreachable!("just pushed")))
    }

    /// Reads move text against the current board and plays it.
    pub fn play_text(&mut self, text: &str) -> Result<&Turn, GameError> {
        if let Some(r) = self.result {
            return Err(GameError::Over(r));
        }
        let mv = self.position().parse_move(text).map_err(|e| match e {
            crate::MoveError::Syntax(e) => GameError::Syntax(e),
            crate::MoveError::Illegal(e) => GameError::Illegal(e),
        })?;
        self.play(mv)
    }

    fn check_no_moves(&mut self) {
        if self.result.is_none() && self.position().count_moves() == 0 {
            let stuck = self.side_to_move();
            self.result = Some(match self.position().rules().no_moves {
                NoMoves::Draw => GameResult::Draw {
                    reason: DrawReason::NoLegalMoves,
                },
                NoMoves::Loss => GameResult::Win {
                    winner: stuck.other(),
                    reason: WinReason::NoLegalMoves,
                },
            });
        }
    }

    /// How many times the current arrangement has appeared in this game, this time included.
    pub fn repetitions(&self) -> usize {
        let now = self.position();
        self.positions
            .iter()
            .filter(|p| p.same_arrangement(now))
            .count()
    }

    /// Whether the player to move may claim a draw: the arrangement (whoever is to move) has
    /// appeared for the third time or more.
    pub fn can_claim_draw(&self) -> bool {
        !self.is_over() && self.repetitions() >= 3
    }

    /// The player to move claims a draw by repetition.
    pub fn claim_draw(&mut self) -> Result<GameResult, GameError> {
        if let Some(r) = self.result {
            return Err(GameError::Over(r));
        }
        let times = self.repetitions();
        if times < 3 {
            return Err(GameError::NoRepetition { times });
        }
        Ok(*self.result.insert(GameResult::Draw {
            reason: DrawReason::Repetition,
        }))
    }

    /// Both players agreed to a draw (the offer and its answer are the game's business).
    pub fn agree_draw(&mut self) -> Result<GameResult, GameError> {
        if let Some(r) = self.result {
            return Err(GameError::Over(r));
        }
        Ok(*self.result.insert(GameResult::Draw {
            reason: DrawReason::Agreement,
        }))
    }

    /// `color` resigns.
    pub fn resign(&mut self, color: Color) -> Result<GameResult, GameError> {
        if let Some(r) = self.result {
            return Err(GameError::Over(r));
        }
        Ok(*self.result.insert(GameResult::Win {
            winner: color.other(),
            reason: WinReason::Resignation,
        }))
    }

    /// `color`'s clock ran out: it loses. The clock itself is the caller's (the engine has no
    /// time); a game over already is refused.
    pub fn lose_on_time(&mut self, color: Color) -> Result<GameResult, GameError> {
        if let Some(r) = self.result {
            return Err(GameError::Over(r));
        }
        Ok(*self.result.insert(GameResult::Win {
            winner: color.other(),
            reason: WinReason::Time,
        }))
    }

    /// `gone` left an online game and the other claimed it: the win, or a draw if `draw`. How
    /// long a player must be gone is the server's business.
    pub fn abandon(&mut self, gone: Color, draw: bool) -> Result<GameResult, GameError> {
        if let Some(r) = self.result {
            return Err(GameError::Over(r));
        }
        let result = if draw {
            GameResult::Draw {
                reason: DrawReason::Abandonment,
            }
        } else {
            GameResult::Win {
                winner: gone.other(),
                reason: WinReason::Abandonment,
            }
        };
        Ok(*self.result.insert(result))
    }

    /// Takes back the last turn (and any result it or a later claim produced).
    pub fn undo(&mut self) -> Result<Turn, GameError> {
        let turn = self.turns.pop().ok_or(GameError::NothingToUndo)?;
        self.positions.pop();
        self.result = None;
        self.check_no_moves();
        Ok(turn)
    }

    /// Ends the game with a result decided elsewhere: a server's (a resignation, an agreement,
    /// a flag, an abandonment, a claimed repetition) or a record's. A game over already keeps
    /// its own result, which is returned.
    pub fn end_with(&mut self, result: GameResult) -> GameResult {
        *self.result.get_or_insert(result)
    }

    /// Sets a result read from a record (resignations and agreements are not in the moves).
    pub(crate) fn set_result(&mut self, result: Option<GameResult>) {
        self.result = result;
    }
}
