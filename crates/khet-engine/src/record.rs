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
use crate::notation::parse_position_with;
use crate::ronlines::RonLines;
use crate::rules::Rules;
use crate::text::quote;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The largest record text read: a game of a thousand moves takes about 12 KB.
pub const MAX_RECORD_BYTES: usize = 4 * 1024 * 1024;

/// A game as text: where it started, under which rules, its moves and its result. Unknown fields
/// are refused with their line; a UTF-8 byte-order mark is accepted.
///
/// ```
/// use khet_engine::{Game, Record, Setup};
/// let mut game = Game::new(Setup::builtin("classic")?.position);
/// game.play_text("j1-")?;
/// let text = Record::from_game(&game, "Classic").to_ron();
/// let again = Record::from_ron(&text, "game.ron")?.replay(&text, "game.ron")?;
/// assert_eq!(again.position(), game.position());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "Record", deny_unknown_fields)]
pub struct Record {
    /// The setup's name, for people; `start` is what counts.
    #[serde(default)]
    pub setup: String,
    /// The starting position string.
    pub start: String,
    /// The rule options the game was played under.
    #[serde(default)]
    pub rules: Rules,
    /// The moves in text form.
    pub moves: Vec<String>,
    /// How the game ended, if it has (resignations and agreements are not in the moves).
    #[serde(default)]
    pub result: Option<GameResult>,
    /// When the game began, in UTC (`2026-11-22T14:30:00Z`); empty if unknown.
    #[serde(default)]
    pub date: String,
    /// Who played Silver and Red, for people (the game writes `Person` or `Computer Master`);
    /// empty if unknown.
    #[serde(default)]
    pub players: [String; 2],
    /// Played under tournament rules: no take-backs and no hints.
    #[serde(default)]
    pub tournament: bool,
    /// The clocks of a game played with them.
    #[serde(default)]
    pub clock: Option<RecordClock>,
}

/// A game's clocks: the time control and what each side had left when the record was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordClock {
    /// Each side's time at the start, in milliseconds.
    pub initial_ms: u64,
    /// Added to a side's clock after each of its moves, in milliseconds.
    pub increment_ms: u64,
    /// Silver's and Red's time left, in milliseconds.
    pub remaining_ms: [u64; 2],
}

/// Why a record could not be read or replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// The file's name as the caller gave it.
    pub file: String,
    /// 1-based line; 0 for the whole file.
    pub line: usize,
    /// What is wrong, on one line.
    pub reason: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.reason)
    }
}

impl std::error::Error for RecordError {}

/// Seconds since 1970 as the ISO 8601 UTC time of [`Record::date`] (`2026-11-22T14:30:05Z`;
/// Howard Hinnant's days-to-civil algorithm, so no time-zone database is needed). The engine
/// reads no clock: callers pass the time.
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

impl Record {
    /// The record of a game.
    pub fn from_game(game: &Game, setup: &str) -> Record {
        Record {
            setup: setup.to_string(),
            start: game.start().to_string(),
            rules: game.start().rules(),
            moves: game.turns().iter().map(|t| t.mv.to_string()).collect(),
            result: game.result(),
            date: String::new(),
            players: [String::new(), String::new()],
            tournament: false,
            clock: None,
        }
    }

    /// RON text, with the moves numbered in pairs for people reading it.
    pub fn to_ron(&self) -> String {
        let mut out = String::from("Record(\n");
        out += &format!("    setup: {:?},\n", self.setup);
        out += &format!("    start: {:?},\n", self.start);
        if !self.date.is_empty() {
            out += &format!("    date: {:?},\n", self.date);
        }
        if self.players.iter().any(|p| !p.is_empty()) {
            out += &format!(
                "    players: ({:?}, {:?}),\n",
                self.players[0], self.players[1]
            );
        }
        if self.tournament {
            out += "    tournament: true,\n";
        }
        if let Some(c) = &self.clock {
            out += &format!(
                "    clock: Some((initial_ms: {}, increment_ms: {}, remaining_ms: ({}, {}))),\n",
                c.initial_ms, c.increment_ms, c.remaining_ms[0], c.remaining_ms[1]
            );
        }
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

    /// Reads and replays a record from a file's bytes (see [`crate::text::decode`]).
    pub fn game_from_bytes(bytes: &[u8], file: &str) -> Result<Game, RecordError> {
        let src =
            crate::text::decode(bytes, MAX_RECORD_BYTES, "a game record").map_err(|reason| {
                RecordError {
                    file: file.to_string(),
                    line: 0,
                    reason,
                }
            })?;
        Record::from_ron(src, file)?.replay(src, file)
    }

    /// Reads a record from RON text; `file` names it in errors.
    pub fn from_ron(src: &str, file: &str) -> Result<Record, RecordError> {
        let error = |line: usize, reason: String| RecordError {
            file: file.to_string(),
            line,
            reason,
        };
        if src.len() > MAX_RECORD_BYTES {
            return Err(error(
                0,
                format!(
                    "{} bytes is too big for a game record (at most {MAX_RECORD_BYTES})",
                    src.len()
                ),
            ));
        }
        let src = src.strip_prefix('\u{feff}').unwrap_or(src);
        ron::from_str(src).map_err(|e| error(e.span.start.line.max(1), quote(&e.code.to_string())))
    }

    /// Replays the record into a game, checking every move; `src` and `file` place errors.
    pub fn replay(&self, src: &str, file: &str) -> Result<Game, RecordError> {
        let error = |line: usize, reason: String| RecordError {
            file: file.to_string(),
            line,
            reason,
        };
        let lines = RonLines::scan(src.strip_prefix('\u{feff}').unwrap_or(src));
        let start_line = lines.field("start").unwrap_or(1);
        let start = parse_position_with(&self.start, self.rules)
            .map_err(|e| error(start_line, format!("start position {e}")))?;
        let mut game = Game::new(start);
        for (i, text) in self.moves.iter().enumerate() {
            let line = lines.string_in("moves", i);
            game.play_text(text)
                .map_err(|e| error(line, format!("move {} ({}): {e}", i + 1, quote(text))))?;
        }
        let result_line = lines.field("result").unwrap_or(1);
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
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_dates() {
        assert_eq!(super::utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(super::utc(1_795_357_805), "2026-11-22T14:30:05Z");
    }
}
