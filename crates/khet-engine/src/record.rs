//! Game records in RON: the start, the rule options, the moves and the result, replayable move by
//! move.
//!
//! ```ron
//! Record(
//!     setup: "Classic",
//!     start: "x33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1KA13X1 0",
//!     rules: (swap_landing: Strict, no_moves: Draw),
//!     moves: ["j1-", "h2g2"],
//!     result: Some(Win(winner: Silver, reason: Resignation)),
//! )
//! ```

use crate::game::{Game, GameResult, WinReason};
use crate::notation::{parse_position, position_to_string};
use crate::rules::Rules;
use crate::setup::line_of;
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "Record")]
pub struct Record {
    /// The setup's name, for people; `start` is what counts.
    #[serde(default)]
    pub setup: String,
    /// The starting position string.
    pub start: String,
    #[serde(default)]
    pub rules: Rules,
    /// The moves in text form.
    pub moves: Vec<String>,
    #[serde(default)]
    pub result: Option<GameResult>,
}

/// Why a record could not be read or replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    pub file: String,
    pub line: usize,
    pub reason: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.reason)
    }
}

impl std::error::Error for RecordError {}

impl Record {
    /// The record of a game.
    pub fn from_game(game: &Game, setup: &str) -> Record {
        Record {
            setup: setup.to_string(),
            start: position_to_string(game.start()),
            rules: game.start().rules(),
            moves: game.turns().iter().map(|t| t.mv.to_string()).collect(),
            result: game.result(),
        }
    }

    /// RON text, with the moves numbered in pairs for people reading it.
    pub fn to_ron(&self) -> String {
        let mut out = String::from("Record(\n");
        out += &format!("    setup: {:?},\n", self.setup);
        out += &format!("    start: {:?},\n", self.start);
        out += &format!(
            "    rules: {},\n",
            ron::to_string(&self.rules).unwrap_or_else(|_| "()".into())
        );
        out += "    moves: [\n";
        for (i, pair) in self.moves.chunks(2).enumerate() {
            let quoted: Vec<String> = pair.iter().map(|m| format!("{m:?},")).collect();
            out += &format!("        {} // {}\n", quoted.join(" "), i + 1);
        }
        out += "    ],\n";
        out += &format!(
            "    result: {},\n",
            ron::to_string(&self.result).unwrap_or_else(|_| "None".into())
        );
        out += ")\n";
        out
    }

    /// Reads a record from RON text; `file` names it in errors.
    pub fn from_ron(src: &str, file: &str) -> Result<Record, RecordError> {
        ron::from_str(src).map_err(|e| RecordError {
            file: file.to_string(),
            line: e.span.start.line.max(1),
            reason: e.code.to_string(),
        })
    }

    /// Replays the record into a game, checking every move; `src` and `file` place errors.
    pub fn replay(&self, src: &str, file: &str) -> Result<Game, RecordError> {
        let error = |line: usize, reason: String| RecordError {
            file: file.to_string(),
            line,
            reason,
        };
        let start_line = line_of(src, "start", 0).unwrap_or(1);
        let start = parse_position(&self.start)
            .map_err(|e| error(start_line, format!("start position {e}")))?;
        let mut game = Game::new(start.with_rules(self.rules));
        for (i, text) in self.moves.iter().enumerate() {
            let quoted = format!("{text:?}");
            let nth = self.moves[..i].iter().filter(|m| *m == text).count();
            let line = line_of(src, &quoted, nth).unwrap_or(start_line);
            game.play_text(text)
                .map_err(|e| error(line, format!("move {} ({text}): {e}", i + 1)))?;
        }
        let result_line = line_of(src, "result", 0).unwrap_or(1);
        match (game.result(), self.result) {
            (Some(played), Some(recorded)) if played != recorded => {
                return Err(error(
                    result_line,
                    format!("the moves end the game ({played}), not as recorded ({recorded})"),
                ));
            }
            (Some(_), _) => {}
            (None, Some(recorded)) => {
                let consistent = match recorded {
                    GameResult::Win {
                        reason: WinReason::PharaohHit,
                        ..
                    } => false,
                    GameResult::Draw {
                        reason: crate::DrawReason::BothPharaohsHit,
                    } => false,
                    GameResult::Draw {
                        reason: crate::DrawReason::Repetition,
                    } => game.can_claim_draw(),
                    _ => true,
                };
                if !consistent {
                    return Err(error(
                        result_line,
                        format!("the moves do not lead to the recorded result ({recorded})"),
                    ));
                }
                game.set_result(Some(recorded));
            }
            (None, None) => {}
        }
        Ok(game)
    }

    /// Reads and replays a record file.
    pub fn load(path: &std::path::Path) -> Result<Game, RecordError> {
        let file = path.display().to_string();
        let src = std::fs::read_to_string(path).map_err(|e| RecordError {
            file: file.clone(),
            line: 0,
            reason: format!("cannot read: {e}"),
        })?;
        Record::from_ron(&src, &file)?.replay(&src, &file)
    }
}
