//! Games loaded into rooms: taken up from the store (at the start, and those of nodes gone), a
//! game's room found or loaded when a client asks for it, or a proxy of it when another node
//! owns it.

use super::{Hub, Live};
use crate::cluster::GameMsg;
use crate::messages::Command;
use crate::remote::{Followers, Proxy};
use crate::store::{GameRow, Lease, StoreError};
use crate::util::{lock, now_ms};
use khet_engine::Color;
use khet_protocol::Status;
use std::sync::atomic::Ordering;
use tokio::sync::mpsc;

/// At most this many games are taken up at once (at a start, or at each look for a gone node's
/// games): the newest. The others are loaded when a player comes back to one (or, on a node
/// among several, at the next looks), so that what a start loads is bounded whatever the
/// database holds.
const TAKE_UP_AT_ONCE: u32 = 2_000;

impl Hub {
    /// Takes up the games not over that no node holds (alone: every one), so that their clocks
    /// run and their players find them; `start` at this node's start, when the games it held
    /// before are its to take up too. Open games that have waited past the withdraw time are
    /// withdrawn instead: their creators are long gone. Returns how many were taken up.
    pub async fn resume_games(&self, start: bool) -> Result<usize, StoreError> {
        let now = now_ms();
        let node = &self.inner.node;
        let after = u64::try_from(self.withdraw_after().as_millis()).unwrap_or(u64::MAX);
        let mine = start.then_some(node.as_str());
        let withdrawn = self
            .inner
            .store
            .withdraw_overdue(now.saturating_sub(after), now, mine)
            .await?;
        if withdrawn > 0 {
            tracing::info!(
                games = withdrawn,
                "withdrew the open games waiting too long"
            );
        }
        let codes = match self.inner.cluster {
            None => self.inner.store.unfinished(TAKE_UP_AT_ONCE).await?,
            Some(_) => {
                let store = &self.inner.store;
                store.orphans(now, node, TAKE_UP_AT_ONCE).await?
            }
        };
        let mut taken = 0;
        for code in &codes {
            if self.take_up(code).await? {
                taken += 1;
            }
        }
        Ok(taken)
    }

    /// The room of game `code`, loaded from the store if it is not live (or, when another node
    /// owns it, a proxy to that node); `None` if there is no such game.
    pub async fn room(&self, code: &str) -> Result<Option<mpsc::Sender<Command>>, StoreError> {
        if let Some(tx) = self.live(code) {
            return Ok(Some(tx));
        }
        let _loading = self.inner.loading.lock().await;
        if let Some(tx) = self.live(code) {
            return Ok(Some(tx));
        }
        let Some(row) = self.inner.store.game(code).await? else {
            return Ok(None);
        };
        if let Some(tx) = self.load(row).await? {
            return Ok(Some(tx));
        }
        // Another node holds the lease: reach the game there.
        match self.inner.store.game(code).await? {
            Some(GameRow {
                lease: Lease {
                    owner: Some(owner), ..
                },
                ..
            }) if owner != self.inner.node => self.proxy(code, &owner).map(Some),
            // It changed hands meanwhile: once more from the start.
            Some(row) => Ok(self.load(row).await?),
            None => Ok(None),
        }
    }

    /// Takes the lease of game `code` and runs its room here, unless it runs here already or
    /// another node holds it (a proxy of it here ends when the room's `moved` reaches it).
    /// Whether it did.
    pub(super) async fn take_up(&self, code: &str) -> Result<bool, StoreError> {
        let _loading = self.inner.loading.lock().await;
        if self.is_local(code) {
            return Ok(false);
        }
        let Some(row) = self.inner.store.game(code).await? else {
            return Ok(false);
        };
        let game = crate::logs::game(code, row.listed);
        let taken = self.load(row).await?.is_some();
        if taken {
            tracing::info!(code = %game, node = %self.inner.node, "game taken up");
        }
        Ok(taken)
    }

    /// Runs the room of a stored game here: a game over needs no lease (nothing is written);
    /// one not over needs this node to take its lease. `None` if another node holds it.
    async fn load(&self, mut row: GameRow) -> Result<Option<mpsc::Sender<Command>>, StoreError> {
        let code = row.code.clone();
        if row.status != Status::Over {
            let (now, until) = (now_ms(), self.lease_until());
            let alone = self.inner.cluster.is_none();
            let Some(token) = self
                .inner
                .store
                .acquire(&code, &self.inner.node, now, until, alone)
                .await?
            else {
                return Ok(None);
            };
            row.lease = Lease {
                owner: Some(self.inner.node.clone()),
                token,
                until_ms: until,
            };
        }
        let moves = self.inner.store.moves(&code).await?;
        let mut players = [None, None];
        for side in Color::ALL {
            if let Some(id) = &row.players[side.index()] {
                players[side.index()] = self.inner.store.player(id).await?;
            }
        }
        let taken_over = row.status != Status::Over;
        let creator = (row.status == Status::Open)
            .then(|| row.players.iter().flatten().next().cloned())
            .flatten();
        let tx = self.spawn(row, players, &moves)?;
        if let Some(creator) = creator {
            // Counted against its creator's cap again (its address is not stored).
            self.opened(&code, &creator, None);
        }
        if taken_over && let Some(cluster) = &self.inner.cluster {
            // Proxies elsewhere of the game's last owner end; their followers come back here.
            // Not waited for: during a broker outage a publish waits about 10 s, and games are
            // taken up while the leases are renewed.
            let moved = GameMsg::Moved {
                owner: self.inner.node.clone(),
            };
            let broker = cluster.broker.clone();
            let channel = broker.channels().game(&code);
            tokio::spawn(async move { broker.publish(&channel, &moved).await });
        }
        Ok(Some(tx))
    }

    /// A proxy here of game `code`, owned by node `owner`. Called with the loading lock held,
    /// it waits on nothing: the proxy subscribes to the game's channel on its own task, so a
    /// broker that does not answer holds up no load, and no renewal behind one.
    fn proxy(&self, code: &str, owner: &str) -> Result<mpsc::Sender<Command>, StoreError> {
        let Some(cluster) = &self.inner.cluster else {
            return Err(StoreError::Broker(format!(
                "a game is owned by node {owner}, and this node has no broker"
            )));
        };
        let id = self.inner.next_room.fetch_add(1, Ordering::Relaxed);
        let game = cluster.broker.follow_game(code, id);
        let followers = Followers::default();
        let proxy = Proxy {
            id,
            code: code.to_string(),
            owner: owner.to_string(),
            broker: cluster.broker.clone(),
            host: Box::new(self.clone()),
            followers: followers.clone(),
        };
        let (tx, rx) = mpsc::channel(64);
        let live = Live {
            id,
            tx: tx.clone(),
            proxy: Some((owner.to_string(), followers)),
        };
        lock(&self.inner.rooms).insert(code.to_string(), live);
        tokio::spawn(proxy.run(rx, game));
        Ok(tx)
    }
}
