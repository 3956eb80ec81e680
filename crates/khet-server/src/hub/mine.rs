//! A player's own list of games: those waiting for an opponent or being played, listed or not,
//! the ones where it is their move first (the soonest deadline first), as a player of games
//! that last days opens the site to see.

use super::Hub;
use crate::messages::Refused;
use crate::store::{GameRow, PlayerRow};
use khet_engine::{Color, parse_position};
use khet_protocol::{MyGame, Status};

/// The most games a list holds: past what anyone plays at once.
const MY_GAMES: u32 = 200;

impl Hub {
    /// Player `player`'s games not over, those where it is their move first.
    pub async fn my_games(&self, player: &PlayerRow) -> Result<Vec<MyGame>, Refused> {
        let store = &self.inner.store;
        let rows = store.unfinished_of(&player.id, MY_GAMES).await?;
        let now = self.now_ms();
        let mut games = Vec::with_capacity(rows.len());
        for (row, plies) in rows {
            let color = Color::ALL
                .into_iter()
                .find(|c| row.players[c.index()].as_deref() == Some(player.id.as_str()));
            let opponent = match color.and_then(|c| row.players[c.other().index()].clone()) {
                Some(id) => store.player(&id).await?.map(|p| p.info()),
                None => None,
            };
            let your_turn = row.status == Status::Playing && color == to_move(&row, plies);
            games.push(MyGame {
                your_turn,
                color,
                opponent,
                plies: u32::try_from(plies).unwrap_or(u32::MAX),
                deadline_ms: row.deadline_ms(),
                left_ms: row.deadline_ms().map(|d| d.saturating_sub(now)),
                code: row.code,
                setup: row.setup,
                status: row.status,
                rated: row.rated,
                clock: row.clock,
                days_per_move: row.days_per_move,
                tournament: row.tournament,
            });
        }
        // Stable: the rest stay newest first.
        games.sort_by_key(|g| {
            let soonest = g.deadline_ms.unwrap_or(u64::MAX);
            (!g.your_turn, if g.your_turn { soonest } else { 0 })
        });
        Ok(games)
    }
}

/// The side to move in game `row` after `plies` moves (none if its start does not read: the
/// game is then not anyone's move as far as a list can tell).
fn to_move(row: &GameRow, plies: u64) -> Option<Color> {
    let first = parse_position(&row.start).ok()?.side_to_move();
    Some(if plies.is_multiple_of(2) {
        first
    } else {
        first.other()
    })
}
