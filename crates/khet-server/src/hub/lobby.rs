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

    /// The lobby of every node, as JSON, to everyone who follows it here.
    pub(super) fn lobby_changed(&self) {
        self.inner
            .lobby_tx
            .send_replace(lobby_json(&self.whole_lobby()));
    }

    /// The lobby as JSON, now and whenever it changes.
    pub fn lobby(&self) -> watch::Receiver<Arc<str>> {
        self.inner.lobby_tx.subscribe()
    }
}
