//! A correspondence game's days, as its room judges them: each turn has the game's days a move
//! from its start (stored with each move, so a restart or another node counts from the same
//! moment), and a player whose days ran out may have the game claimed from them. Being away is
//! how such a game is played: nobody may claim it for that alone.

use super::Room;
use crate::messages::Refused;
use khet_engine::Color;
use khet_protocol::correspondence::time_left;
use khet_protocol::{DAY_MS, Refusal};

impl Room {
    /// When the side to move's days run out (the server's Unix milliseconds), in a
    /// correspondence game being played.
    pub(super) fn deadline_ms(&self) -> Option<u64> {
        self.row.deadline_ms().filter(|_| !self.game.is_over())
    }

    /// When an open correspondence game stops waiting for an opponent: after its days a move,
    /// whether or not its creator is connected.
    pub(super) fn open_until_ms(&self) -> Option<u64> {
        let days = self.row.days_per_move?;
        Some(self.row.created_ms.saturating_add(u64::from(days) * DAY_MS))
    }

    /// `seat` claims the game of an opponent whose days to move ran out: won on time, or drawn
    /// if `draw`.
    pub(super) async fn claim_days(&mut self, seat: Color, draw: bool) -> Result<(), Refused> {
        let late = self.game.side_to_move();
        if late == seat {
            return Err(Refused::new(
                Refusal::NotNow,
                "it is your move: your opponent's days have not begun",
            ));
        }
        let Some(deadline) = self.deadline_ms() else {
            return Err(Refused::new(
                Refusal::NotNow,
                "the game is not being played",
            ));
        };
        let now = self.host.now_ms();
        if now < deadline {
            return Err(Refused::new(
                Refusal::NotNow,
                format!(
                    "your opponent has {} left to move; claim the game once their days run out",
                    time_left(deadline - now)
                ),
            ));
        }
        let mut game = self.game.clone();
        let result = if draw {
            game.abandon(late, true)
        } else {
            game.lose_on_time(late)
        };
        self.end(result).await
    }
}
