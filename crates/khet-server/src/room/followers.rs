//! Who follows a room: its players' connections (counted, so that a player gone is seen) and
//! spectators, on this node and, told by them, on others.

use super::{RemoteFollower, Room};
use khet_engine::Color;
use tokio::time::{Duration, Instant};

impl Room {
    /// Counts a follower: a player is here (and everyone is told), or one more spectator.
    pub(super) fn count(&mut self, seat: Option<Color>) {
        match seat {
            Some(side) => {
                self.connected[side.index()] += 1;
                self.gone_since[side.index()] = None;
                self.send_presence();
                self.update_lobby();
            }
            None => self.spectators += 1,
        }
    }

    /// A follower on node `node` detaches: uncounted if the room still counts it for that node.
    pub(super) fn detach_remote(&mut self, node: &str, seat: Option<Color>) {
        let Some(list) = self.remote.get_mut(node) else {
            return;
        };
        if let Some(i) = list.iter().position(|f| f.seat == seat) {
            list.swap_remove(i);
            if list.is_empty() {
                self.remote.remove(node);
            }
            self.detach(seat);
        }
    }

    /// Counts node `from`'s followers as it says: those said and not counted count (this node
    /// had taken `from` for gone), those counted and not said stop (their detach was lost),
    /// unless attached less than `young` ago.
    pub(super) fn recount(&mut self, from: String, mut said: Vec<Option<Color>>, young: Duration) {
        let list = self.remote.entry(from).or_default();
        // The oldest match first (those counted because said before any attached): an unmatched
        // one is then the youngest, which may stay.
        list.sort_by_key(|f| f.attached);
        let mut gone = Vec::new();
        list.retain(|f| {
            if let Some(i) = said.iter().position(|s| *s == f.seat) {
                said.swap_remove(i);
                true
            } else if f.attached.is_some_and(|t| t.elapsed() < young) {
                true
            } else {
                gone.push(f.seat);
                false
            }
        });
        list.extend(said.iter().map(|&seat| RemoteFollower {
            seat,
            attached: None,
        }));
        self.remote.retain(|_, list| !list.is_empty());
        for seat in said {
            self.count(seat);
        }
        for seat in gone {
            self.detach(seat);
        }
    }

    pub(super) fn detach(&mut self, seat: Option<Color>) {
        match seat {
            Some(side) => {
                let c = &mut self.connected[side.index()];
                *c = c.saturating_sub(1);
                if *c == 0 {
                    self.gone_since[side.index()] = Some(Instant::now());
                    self.send_presence();
                    self.update_lobby();
                }
            }
            None => self.spectators = self.spectators.saturating_sub(1),
        }
    }
}
