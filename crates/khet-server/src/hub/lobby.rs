//! The lobby: the open games of this node and of the others, as JSON to everyone who follows it.

use super::Hub;
use crate::util::lock;
use khet_protocol::{OpenGame, ServerMsg};
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::watch;

/// Open games by their creation time and code: oldest first.
pub(super) type Lobby = BTreeMap<(u64, String), OpenGame>;

/// The lobby's message for its followers.
pub(super) fn lobby_json(lobby: &Lobby) -> Arc<str> {
    ServerMsg::Lobby {
        games: lobby.values().cloned().collect(),
    }
    .to_json()
    .into()
}

impl Hub {
    /// Shows, updates or removes an open game in the lobby.
    pub fn set_lobby_entry(&self, code: &str, created_ms: u64, entry: Option<OpenGame>) {
        let changed = {
            let mut lobby = lock(&self.inner.lobby);
            let key = (created_ms, code.to_string());
            match entry {
                Some(entry) => lobby.insert(key, entry.clone()).as_ref() != Some(&entry),
                None => lobby.remove(&key).is_some(),
            }
        };
        if changed {
            self.lobby_changed();
            if self.inner.cluster.is_some() {
                let hub = self.clone();
                tokio::spawn(async move { hub.beat().await });
            }
        }
    }

    /// The open games of every node.
    pub(super) fn whole_lobby(&self) -> Lobby {
        let mut all = lock(&self.inner.lobby).clone();
        for peer in lock(&self.inner.peers).values() {
            for (created_ms, game) in &peer.lobby {
                all.insert((*created_ms, game.code.clone()), game.clone());
            }
        }
        all
    }

    /// The lobby of every node, as JSON, to everyone who follows it here. The picture is made
    /// while the channel is held, so that pictures are sent in the order they were made: made
    /// first and sent after, a change made on another thread meanwhile could be sent and then
    /// overwritten by the older picture, and the game would stay missing from every follower's
    /// lobby until the next change.
    pub(super) fn lobby_changed(&self) {
        self.inner
            .lobby_tx
            .send_modify(|json| *json = lobby_json(&self.whole_lobby()));
    }

    /// How many games of this node wait in the lobby.
    pub fn open_games(&self) -> usize {
        lock(&self.inner.lobby).len()
    }

    /// The lobby as JSON, now and whenever it changes.
    pub fn lobby(&self) -> watch::Receiver<Arc<str>> {
        self.inner.lobby_tx.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use khet_protocol::PlayerInfo;

    fn open_game(code: &str) -> OpenGame {
        OpenGame {
            code: code.to_string(),
            setup: "Classic (Khet 2.0)".into(),
            clock: None,
            rated: false,
            creator: PlayerInfo {
                id: format!("p{code}"),
                name: format!("Player {code}"),
                rating: 1500.0,
                deviation: 350.0,
                games: 0,
            },
            joiner_color: None,
            days_per_move: None,
        }
    }

    fn shown(rx: &watch::Receiver<Arc<str>>) -> usize {
        match ServerMsg::from_json(&rx.borrow()) {
            Ok(ServerMsg::Lobby { games }) => games.len(),
            other => panic!("not a lobby: {other:?}"),
        }
    }

    /// Games entering the lobby at the same moment, each from its own thread as rooms on
    /// tokio's workers do: what the lobby's followers are shown ends with every one of them. A
    /// follower is sent the lobby only when it changes, so a stale last picture is never mended
    /// (the online window test once waited for the second of two games for seven minutes).
    /// Sending a picture made before another thread's change failed this within four rounds in
    /// each of five runs.
    #[test]
    fn games_entering_the_lobby_at_once_are_all_shown() {
        let (_runtime, hub, dir) = crate::hub::hub_for_test("lobby-race");
        // A lobby of some size, so that each picture takes a while to make.
        for i in 0..300 {
            let code = format!("old{i:05}");
            hub.set_lobby_entry(&code, i, Some(open_game(&code)));
        }
        let rx = hub.lobby();
        assert_eq!(shown(&rx), 300);
        for round in 0..100u64 {
            let threads: Vec<_> = (0..6u64)
                .map(|t| {
                    let hub = hub.clone();
                    std::thread::spawn(move || {
                        let code = format!("new{t}");
                        hub.set_lobby_entry(&code, 1_000 + t, Some(open_game(&code)));
                    })
                })
                .collect();
            for t in threads {
                t.join().unwrap();
            }
            assert_eq!(
                shown(&rx),
                306,
                "round {round}: a game entered but is not shown"
            );
            for t in 0..6u64 {
                hub.set_lobby_entry(&format!("new{t}"), 1_000 + t, None);
            }
            assert_eq!(shown(&rx), 300);
        }
        drop(hub);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
