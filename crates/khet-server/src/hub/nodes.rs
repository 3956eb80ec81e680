//! The hub's side of a node among several: its heartbeat (with its open games), the other
//! nodes' heartbeats, its leases renewed and the games of nodes gone taken up, the other
//! nodes' requests about its games answered, and who follows whose games told and counted.

use super::{Hub, Peer, RemoteFollower};
use crate::cluster::{self, Answer, Beat, Incoming, NodeMsg, Request};
use crate::messages::{Command, Refused};
use crate::util::lock;
use khet_engine::Color;
use std::collections::{HashMap, HashSet};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

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

    /// A node's life among several, until the process ends, in three parts that run apart:
    /// hearing the others (their requests answered, their heartbeats and followers), speaking
    /// to them (its heartbeat, and who follows their games here), and holding its leases. A
    /// publish waits out a broker outage (the connection manager's retries, about 10 s), and
    /// neither the leases, kept in the database, nor the answers may wait with it: a node whose
    /// renewals waited so lost its games to another node while it was alive.
    pub async fn run_cluster(self, incoming: mpsc::UnboundedReceiver<Incoming>) {
        let Some(cluster) = &self.inner.cluster else {
            return;
        };
        let lease = cluster.lease;
        tokio::select! {
            () = self.hear(incoming) => {}
            () = self.speak(lease) => {}
            () = self.hold_leases(lease) => {}
        }
    }

    /// Answers other nodes' requests and hears their heartbeats and followers, until the
    /// broker's reader ends.
    async fn hear(&self, mut incoming: mpsc::UnboundedReceiver<Incoming>) {
        while let Some(msg) = incoming.recv().await {
            match msg {
                Incoming::Request {
                    id,
                    from,
                    code,
                    req,
                } => {
                    let hub = self.clone();
                    tokio::spawn(async move { hub.answer(id, from, code, req).await });
                }
                Incoming::Beat(beat) => {
                    let peer = Peer {
                        heard: Instant::now(),
                        lobby: beat.lobby,
                    };
                    lock(&self.inner.peers).insert(beat.node, peer);
                    self.lobby_changed();
                }
                Incoming::Followers { from, follow } => {
                    let hub = self.clone();
                    tokio::spawn(async move { hub.recount(&from, follow).await });
                }
            }
        }
    }

    /// Beats (and forgets the nodes silent for a lease), and tells the others who follows their
    /// games here as often as it renews its leases.
    async fn speak(&self, lease: Duration) {
        let mut beat = tokio::time::interval(cluster::BEAT_EVERY);
        let mut tell = tokio::time::interval(lease / 3);
        // After a stall (a publish waiting out a broker outage), one list, not each one missed.
        tell.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            tokio::select! {
                _ = beat.tick() => {
                    self.beat().await;
                    self.forget_silent_peers(lease).await;
                }
                _ = tell.tick() => self.tell_followers().await,
            }
        }
    }

    /// Renews the leases every third of one.
    async fn hold_leases(&self, lease: Duration) {
        let mut renew = tokio::time::interval(lease / 3);
        loop {
            renew.tick().await;
            self.keep_leases().await;
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
            .filter(|(code, live)| live.local() && !kept.contains(*code))
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
            for f in followers {
                if let Some(room) = self.room_of(&f.code, f.room) {
                    let _ = room.send(Command::Detach { seat: f.seat }).await;
                }
            }
        }
    }

    /// Room `id` of game `code`, if it still runs (a follower counted by a room is not
    /// uncounted in one loaded since).
    fn room_of(&self, code: &str, id: u64) -> Option<mpsc::Sender<Command>> {
        lock(&self.inner.rooms)
            .get(code)
            .filter(|live| live.id == id && !live.tx.is_closed())
            .map(|live| live.tx.clone())
    }

    /// Tells every other node who follows its games through this one's proxies (an empty list
    /// to a node with none, so that it stops counting any it still does). Told to all at once:
    /// while the broker is down each publish waits for the broker's connection.
    async fn tell_followers(&self) {
        let Some(cluster) = &self.inner.cluster else {
            return;
        };
        let mut by_owner: HashMap<String, Vec<(String, Option<Color>)>> = lock(&self.inner.peers)
            .keys()
            .map(|node| (node.clone(), Vec::new()))
            .collect();
        for (code, live) in lock(&self.inner.rooms).iter() {
            if let Some((owner, followers)) = &live.proxy
                && !live.tx.is_closed()
            {
                let list = by_owner.entry(owner.clone()).or_default();
                list.extend(lock(followers).iter().map(|seat| (code.clone(), *seat)));
            }
        }
        let broker = &cluster.broker;
        let told = by_owner.into_iter().map(|(owner, follow)| async move {
            let msg = NodeMsg::Followers {
                from: self.inner.node.clone(),
                follow,
            };
            broker.publish(&broker.channels().node(&owner), &msg).await;
        });
        futures_util::future::join_all(told).await;
    }

    /// Counts the followers node `from` says it has of this node's games as it says: those
    /// this node stopped counting (it could not hear `from` for a lease: a broker outage) count
    /// again, and those `from` no longer has (a detach lost on the way) stop. A follower counted
    /// less than [`cluster::ANSWER_WAIT`] ago stays: `from` may have spoken before the answer
    /// to its attach reached it. A detach crossing what `from` says leaves a follower counted
    /// until `from` next speaks.
    async fn recount(&self, from: &str, follow: Vec<(String, Option<Color>)>) {
        let now = Instant::now();
        let mut changes = Vec::new();
        {
            let mut all = lock(&self.inner.remote_followers);
            // Read with the followers held, so that every follower counted has its room here
            // unless that room has ended.
            let rooms: HashMap<String, u64> = lock(&self.inner.rooms)
                .iter()
                .filter(|(_, live)| live.local() && !live.tx.is_closed())
                .map(|(code, live)| (code.clone(), live.id))
                .collect();
            let mut said: HashMap<(String, Option<Color>), usize> = HashMap::new();
            for key in follow {
                if rooms.contains_key(&key.0) {
                    *said.entry(key).or_default() += 1;
                }
            }
            let counted = all.entry(from.to_string()).or_default();
            // The oldest match first: an unmatched one is then the youngest, which may stay.
            counted.sort_by_key(|f| f.since);
            counted.retain(|f| {
                if rooms.get(&f.code) != Some(&f.room) {
                    // Its room has ended: nothing counts it any more.
                    return false;
                }
                match said.get_mut(&(f.code.clone(), f.seat)) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        true
                    }
                    _ if now.duration_since(f.since) < cluster::ANSWER_WAIT => true,
                    _ => {
                        let detach = Command::Detach { seat: f.seat };
                        changes.push((f.code.clone(), f.room, detach));
                        false
                    }
                }
            });
            for ((code, seat), n) in said {
                let room = rooms[&code];
                for _ in 0..n {
                    counted.push(RemoteFollower {
                        code: code.clone(),
                        seat,
                        room,
                        since: now,
                    });
                    changes.push((code.clone(), room, Command::Present { seat }));
                }
            }
        }
        for (code, id, command) in changes {
            if let Some(room) = self.room_of(&code, id) {
                let _ = room.send(command).await;
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
        let (room, id) = match lock(&self.inner.rooms).get(code) {
            Some(live) if live.local() && !live.tx.is_closed() => (live.tx.clone(), live.id),
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
                    .push(RemoteFollower {
                        code: code.to_string(),
                        seat: attached.you,
                        room: id,
                        since: Instant::now(),
                    });
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
                    match list.iter().position(|f| f.code == code && f.seat == seat) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hub::Admitted;
    use crate::secret;
    use crate::store::PlayerRow;
    use khet_protocol::{NewGame, SeatChoice, ServerMsg};

    async fn player(hub: &Hub, identity: char, name: &str) -> PlayerRow {
        match hub.player(&identity.to_string().repeat(32), name).await {
            Ok(Admitted::Player(p)) => p,
            _ => panic!("no player {name}"),
        }
    }

    /// Who game `code`'s room says is here, read as a spectator's catch-up: after every
    /// command sent to the room before.
    async fn shown(hub: &Hub, code: &str) -> [bool; 2] {
        let (room, attached) = hub.attach(code, None, None).await.unwrap();
        room.send(Command::Detach { seat: None }).await.unwrap();
        match attached
            .catch_up
            .last()
            .map(|(_, json)| ServerMsg::from_json(json))
        {
            Some(Ok(ServerMsg::Presence { connected, .. })) => connected,
            other => panic!("not presence: {other:?}"),
        }
    }

    /// Node b's followers counted longer ago than an answer can take.
    fn aged(hub: &Hub) {
        for f in lock(&hub.inner.remote_followers).values_mut().flatten() {
            f.since = f.since.checked_sub(cluster::ANSWER_WAIT).unwrap();
        }
    }

    /// What node b says of its followers of this node's game is what counts: its player counts
    /// again after this node took b for gone, once however often b says so; one b no longer
    /// has (a detach lost) stops counting; and one counted just now stays, as b may have spoken
    /// before the answer to its attach reached it.
    #[test]
    fn followers_on_another_node_count_as_that_node_says() {
        let (runtime, hub, dir) = crate::hub::hub_for_test("recount");
        runtime.block_on(async {
            let (silver, red) = (
                player(&hub, 'a', "Silver").await,
                player(&hub, 'b', "Red").await,
            );
            let new = NewGame {
                setup: "classic".into(),
                clock: None,
                color: SeatChoice::Silver,
                rated: false,
                listed: false,
            };
            let seat = hub.create(&silver, &new).await.unwrap();
            let code = seat.code.clone();
            let red_seat = hub.join(&code, &red).await.unwrap();
            let _silver_here = hub.attach(&code, Some(&seat.secret), None).await.unwrap();
            // Red follows the game from node b.
            let attach = Request::Attach {
                seat: Some(secret::hash(&red_seat.secret)),
                since: None,
            };
            hub.answer_for("b", &code, attach).await.unwrap();
            assert_eq!(shown(&hub, &code).await, [true, true]);
            hub.recount("b", Vec::new()).await;
            assert_eq!(shown(&hub, &code).await, [true, true], "just counted");

            let red_on_b = vec![(code.clone(), Some(Color::Red))];
            hub.recount("b", red_on_b.clone()).await;
            // b silent for a lease: Red gone with it.
            lock(&hub.inner.peers).insert(
                "b".into(),
                Peer {
                    heard: Instant::now().checked_sub(Duration::from_secs(20)).unwrap(),
                    lobby: Vec::new(),
                },
            );
            hub.forget_silent_peers(Duration::from_secs(10)).await;
            assert_eq!(shown(&hub, &code).await, [true, false], "b taken for gone");
            hub.recount("b", red_on_b.clone()).await;
            hub.recount("b", red_on_b.clone()).await;
            assert_eq!(shown(&hub, &code).await, [true, true], "Red counted again");
            // Counted once: one detach and Red is gone.
            let detach = Request::Detach {
                seat: Some(Color::Red),
            };
            hub.answer_for("b", &code, detach).await.unwrap();
            assert_eq!(shown(&hub, &code).await, [true, false], "counted twice");

            // Red back, then gone from b with the detach lost: b's next word uncounts Red.
            hub.recount("b", red_on_b).await;
            assert_eq!(shown(&hub, &code).await, [true, true]);
            aged(&hub);
            hub.recount("b", Vec::new()).await;
            assert_eq!(shown(&hub, &code).await, [true, false], "a lost detach");
        });
        let _ = std::fs::remove_dir_all(&dir);
    }
}
