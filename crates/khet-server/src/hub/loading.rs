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

impl Hub {
    /// Takes up the games not over that no node holds (alone: every one), so that their clocks
    /// run and their players find them. Returns how many.
    pub async fn resume_games(&self) -> Result<usize, StoreError> {
        let codes = match self.inner.cluster {
            None => self.inner.store.unfinished().await?,
            Some(_) => {
                let node = &self.inner.node;
                self.inner.store.orphans(now_ms(), node).await?
            }
        };
        let mut taken = 0;
        for code in &codes {
            if self.take_up(code).await? {
                tracing::info!(code = %code, node = %self.inner.node, "game taken up");
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
    async fn take_up(&self, code: &str) -> Result<bool, StoreError> {
        let _loading = self.inner.loading.lock().await;
        if self.is_local(code) {
            return Ok(false);
        }
        match self.inner.store.game(code).await? {
            Some(row) => Ok(self.load(row).await?.is_some()),
            None => Ok(false),
        }
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
        let tx = self.spawn(row, players, &moves)?;
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
                "game {code} is owned by node {owner}"
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
