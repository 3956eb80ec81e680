//! The hub's side of a node among several: its heartbeat (with its open games), the other
//! nodes' heartbeats, its leases renewed and the games of nodes gone taken up, and the other
//! nodes' requests about its games answered.

use super::{Hub, Peer};
use crate::cluster::{self, Answer, Beat, Incoming, Request};
use crate::messages::{Command, Refused};
use crate::util::lock;
use std::collections::HashSet;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

impl Hub {
    /// Says to the other nodes that this one is alive, with its open games.
    pub(super) async fn beat(&self) {
        let Some(cluster) = &self.inner.cluster else {
            return;
        };
        let beat = Beat {
            node: self.inner.node.clone(),
            lobby: lock(&self.inner.lobby)
                .iter()
                .map(|((created_ms, _), game)| (*created_ms, game.clone()))
                .collect(),
        };
        cluster
            .broker
            .publish(&cluster.broker.channels().nodes(), &beat)
            .await;
    }

    /// A node's life among several, until the process ends: answers other nodes' requests,
    /// hears their heartbeats, beats its own, renews its leases and takes up the games of
    /// nodes that died.
    pub async fn run_cluster(self, mut incoming: mpsc::UnboundedReceiver<Incoming>) {
        let Some(cluster) = &self.inner.cluster else {
            return;
        };
        let lease = cluster.lease;
        let mut beat = tokio::time::interval(cluster::BEAT_EVERY);
        let mut renew = tokio::time::interval(lease / 3);
        loop {
            tokio::select! {
                msg = incoming.recv() => match msg {
                    Some(Incoming::Request { id, from, code, req }) => {
                        let hub = self.clone();
                        tokio::spawn(async move { hub.answer(id, from, code, req).await });
                    }
                    Some(Incoming::Beat(beat)) => {
                        lock(&self.inner.peers).insert(beat.node, Peer {
                            heard: tokio::time::Instant::now(),
                            lobby: beat.lobby,
                        });
                        self.lobby_changed();
                    }
                    None => return,
                },
                _ = beat.tick() => {
                    self.beat().await;
                    self.forget_silent_peers(lease).await;
                }
                _ = renew.tick() => self.keep_leases().await,
            }
        }
    }

    /// Renews this node's leases, has the rooms it did not cover check theirs, and takes up the
    /// games no node holds.
    async fn keep_leases(&self) {
        match self
            .inner
            .store
            .renew(&self.inner.node, self.lease_until())
            .await
        {
            Ok(kept) => self.check_leases(&kept.into_iter().collect()),
            Err(e) => crate::metrics::failed("renewing leases", &e),
        }
        match self.resume_games().await {
            Ok(0) => {}
            Ok(n) => {
                crate::metrics::took_over(n);
                tracing::info!(games = n, "took up the games of a node gone");
            }
            Err(e) => crate::metrics::failed("taking up games", &e),
        }
    }

    /// Asks each room here whose game is not in `kept` to check its lease: most are of games
    /// over, which hold none, or were loaded after the renewal; a room whose game another node
    /// took up while this one stalled ends. A room too busy to be asked is asked at the next
    /// renewal.
    fn check_leases(&self, kept: &HashSet<String>) {
        let rooms: Vec<_> = lock(&self.inner.rooms)
            .iter()
            .filter(|(code, live)| live.local && !kept.contains(*code))
            .map(|(_, live)| live.tx.clone())
            .collect();
        for room in rooms {
            let _ = room.try_send(Command::CheckLease);
        }
    }

    /// Nodes not heard for a lease are gone: their open games leave the lobby, and their
    /// followers of this node's games stop counting.
    async fn forget_silent_peers(&self, lease: Duration) {
        let gone: Vec<String> = {
            let mut peers = lock(&self.inner.peers);
            let gone: Vec<String> = peers
                .iter()
                .filter(|(_, p)| p.heard.elapsed() > lease)
                .map(|(n, _)| n.clone())
                .collect();
            for node in &gone {
                peers.remove(node);
            }
            gone
        };
        if gone.is_empty() {
            return;
        }
        self.lobby_changed();
        for node in gone {
            let followers = lock(&self.inner.remote_followers)
                .remove(&node)
                .unwrap_or_default();
            for (code, seat) in followers {
                if let Some(room) = self.live(&code) {
                    let _ = room.send(Command::Detach { seat }).await;
                }
            }
        }
    }

    /// Answers another node's request about a game of this node's.
    async fn answer(&self, id: u64, from: String, code: String, req: Request) {
        let Some(cluster) = &self.inner.cluster else {
            return;
        };
        let result = self.answer_for(&from, &code, req).await;
        cluster.broker.reply(&from, id, result).await;
    }

    async fn answer_for(&self, from: &str, code: &str, req: Request) -> Result<Answer, Refused> {
        // Only a room of this node's answers: a proxy here, or no room, means the game is
        // elsewhere now, and the asker must look again.
        let room = match lock(&self.inner.rooms).get(code) {
            Some(live) if live.local && !live.tx.is_closed() => live.tx.clone(),
            _ => return Err(Refused::unavailable()),
        };
        let closed = |_| Refused::unavailable();
        match req {
            Request::Attach { seat, since } => {
                let (reply, answer) = oneshot::channel();
                room.send(Command::Attach { seat, since, reply })
                    .await
                    .map_err(closed)?;
                let attached = answer.await.map_err(|_| Refused::unavailable())??;
                lock(&self.inner.remote_followers)
                    .entry(from.to_string())
                    .or_default()
                    .push((code.to_string(), attached.you));
                Ok(Answer::Attached {
                    you: attached.you,
                    catch_up: attached
                        .catch_up
                        .into_iter()
                        .map(|(n, json)| (n, json.to_string()))
                        .collect(),
                })
            }
            Request::Detach { seat } => {
                let known = {
                    let mut all = lock(&self.inner.remote_followers);
                    let list = all.entry(from.to_string()).or_default();
                    match list.iter().position(|(c, s)| c == code && *s == seat) {
                        Some(i) => {
                            list.swap_remove(i);
                            true
                        }
                        None => false,
                    }
                };
                if known {
                    room.send(Command::Detach { seat }).await.map_err(closed)?;
                }
                Ok(Answer::Done)
            }
            Request::Join {
                player,
                secret_hash,
            } => {
                let (reply, answer) = oneshot::channel();
                room.send(Command::Join {
                    player: player.into(),
                    secret_hash,
                    reply,
                })
                .await
                .map_err(closed)?;
                Ok(Answer::Joined(
                    answer.await.map_err(|_| Refused::unavailable())??,
                ))
            }
            Request::Act { seat, action } => {
                let (reply, answer) = oneshot::channel();
                room.send(Command::Act {
                    seat,
                    action,
                    reply,
                })
                .await
                .map_err(closed)?;
                answer.await.map_err(|_| Refused::unavailable())??;
                Ok(Answer::Done)
            }
        }
    }
}
