//! The hub's side of a node among several: its heartbeat (with its open games), the other
//! nodes' heartbeats, its leases renewed and the games of nodes gone taken up, the other
//! nodes' requests about its games answered, and who follows whose games told and counted.

use super::{Hub, Peer};
use crate::cluster::{self, Answer, Beat, Incoming, NodeMsg, Request};
use crate::messages::{Command, Refused};
use crate::util::lock;
use khet_engine::Color;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

/// A list of followers another node told ([`NodeMsg::Followers`]).
struct List {
    from: String,
    follow: Vec<(String, Option<Color>)>,
    order: (u64, u64),
}

/// Whether a list numbered `order` (run, number) is to be counted after the last counted of
/// node `from`, which it becomes: a list of another run is (the node started again), and one
/// unnumbered (a node of an older version).
fn newer(last: &mut HashMap<String, (u64, u64)>, from: &str, order: (u64, u64)) -> bool {
    let (run, seq) = order;
    if seq == 0 {
        return true;
    }
    match last.get(from) {
        Some(&(r, s)) if r == run && s >= seq => false,
        _ => {
            last.insert(from.to_string(), order);
            true
        }
    }
}

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

    /// A node's life among several, until the process ends, in parts that run apart: hearing
    /// the others (their requests answered, their heartbeats), counting who follows here
    /// through them, speaking to them (its heartbeat, and who follows their games here),
    /// taking those silent for a lease for gone, taking up the games of nodes gone, and
    /// renewing its leases. A publish waits out a broker
    /// outage (the connection manager's retries, about 10 s), and neither the leases, kept in
    /// the database, nor the answers may wait with it: a node whose renewals waited so lost its
    /// games to another node while it was alive. The renewals run on a task of their own, and
    /// wait on nothing but the database.
    pub async fn run_cluster(self, incoming: mpsc::UnboundedReceiver<Incoming>) {
        let Some(cluster) = &self.inner.cluster else {
            return;
        };
        let lease = cluster.lease;
        let renewing = tokio::spawn(self.clone().hold_leases(lease));
        let (lists_tx, lists) = mpsc::unbounded_channel();
        tokio::select! {
            () = self.hear(incoming, lists_tx) => {}
            () = self.count_lists(lists) => {}
            () = self.speak(lease) => {}
            () = self.watch_peers(lease) => {}
            () = self.take_up_orphans(lease) => {}
        }
        renewing.abort();
    }

    /// Answers other nodes' requests and hears their heartbeats, and passes their lists of
    /// followers on to be counted one at a time, until the broker's reader ends.
    async fn hear(
        &self,
        mut incoming: mpsc::UnboundedReceiver<Incoming>,
        lists: mpsc::UnboundedSender<List>,
    ) {
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
                Incoming::Followers {
                    from,
                    follow,
                    order,
                } => {
                    let _ = lists.send(List {
                        from,
                        follow,
                        order,
                    });
                }
                Incoming::Notice(notice) => self.tell_here(&notice.player, notice.notice),
            }
        }
    }

    /// Counts the lists of followers as they come, one at a time, so that an older list of a
    /// node never undoes a newer one; one older than the last counted of its node is dropped.
    async fn count_lists(&self, mut lists: mpsc::UnboundedReceiver<List>) {
        let mut last = HashMap::new();
        while let Some(list) = lists.recv().await {
            if newer(&mut last, &list.from, list.order) {
                self.recount(&list.from, list.follow, cluster::ANSWER_WAIT)
                    .await;
            }
        }
    }

    /// Beats, and tells the others who follows their games here as often as it renews its
    /// leases.
    async fn speak(&self, lease: Duration) {
        let mut beat = tokio::time::interval(cluster::BEAT_EVERY);
        let mut tell = tokio::time::interval(lease / 3);
        // After a stall (a publish waiting out a broker outage), one list, not each one missed.
        tell.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            tokio::select! {
                _ = beat.tick() => self.beat().await,
                _ = tell.tick() => self.tell_followers().await,
            }
        }
    }

    /// Forgets the nodes silent for a lease, looked for every beat. Apart from `speak`: during
    /// a broker outage each of its publishes waits about 10 s, and a node silent for a lease
    /// would be taken for gone only after two of them more.
    async fn watch_peers(&self, lease: Duration) {
        let mut look = tokio::time::interval(cluster::BEAT_EVERY);
        loop {
            look.tick().await;
            self.forget_silent_peers(lease).await;
        }
    }

    /// Renews the leases every third of one, and has the rooms it did not cover check theirs.
    /// Nothing else: taking games up waits on the loading lock, and through it on whatever a
    /// load waits on.
    async fn hold_leases(self, lease: Duration) {
        let mut renew = tokio::time::interval(lease / 3);
        loop {
            renew.tick().await;
            match self
                .inner
                .store
                .renew(&self.inner.node, self.lease_until())
                .await
            {
                Ok(kept) => self.check_leases(&kept.into_iter().collect()),
                Err(e) => crate::metrics::failed("renewing leases", &e),
            }
        }
    }

    /// Takes up the games no node holds, every third of a lease.
    async fn take_up_orphans(&self, lease: Duration) {
        let mut look = tokio::time::interval(lease / 3);
        loop {
            look.tick().await;
            match self.resume_games(false).await {
                Ok(0) => {}
                Ok(n) => {
                    crate::metrics::took_over(n);
                    tracing::info!(games = n, "took up the games of a node gone");
                }
                Err(e) => crate::metrics::failed("taking up games", &e),
            }
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
            self.forget_peer(&node).await;
        }
    }

    /// Node `node`'s followers stop counting in every room here that may count some.
    async fn forget_peer(&self, node: &str) {
        let games = lock(&self.inner.remote_games)
            .remove(node)
            .unwrap_or_default();
        for (code, id) in games {
            if let Some(room) = self.local_room(&code, id) {
                let from = node.to_string();
                let _ = room.send(Command::Forget { from }).await;
            }
        }
    }

    /// Room `id` of game `code`, if it still runs here.
    fn local_room(&self, code: &str, id: u64) -> Option<mpsc::Sender<Command>> {
        lock(&self.inner.rooms)
            .get(code)
            .filter(|live| live.id == id && live.local() && !live.tx.is_closed())
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
        let seq = self.inner.lists_told.fetch_add(1, Ordering::Relaxed) + 1;
        let broker = &cluster.broker;
        let told = by_owner.into_iter().map(|(owner, follow)| async move {
            let msg = NodeMsg::Followers {
                from: self.inner.node.clone(),
                follow,
                run: self.inner.run,
                seq,
            };
            broker.publish(&broker.channels().node(&owner), &msg).await;
        });
        futures_util::future::join_all(told).await;
    }

    /// Has each room here that may count followers on node `from` count them as `from` says
    /// (`Command::Recount`): those this node stopped counting (it could not hear `from` for a
    /// lease: a broker outage) count again, and those `from` no longer has (a detach lost on
    /// the way) stop, unless attached less than `young` ago (`from` may have spoken before the
    /// answer to its attach reached it). The rooms apply it in turn with their attaches and
    /// detaches; a list made before a detach that reaches the room after it counts that
    /// follower again, with an entry, until `from`'s next list.
    async fn recount(&self, from: &str, follow: Vec<(String, Option<Color>)>, young: Duration) {
        let mut said: HashMap<String, Vec<Option<Color>>> = HashMap::new();
        for (code, seat) in follow {
            said.entry(code).or_default().push(seat);
        }
        let known = lock(&self.inner.remote_games)
            .get(from)
            .cloned()
            .unwrap_or_default();
        let (mut live, mut ended) = (Vec::new(), Vec::new());
        {
            let rooms = lock(&self.inner.rooms);
            let here = |code: &str| {
                rooms
                    .get(code)
                    .filter(|live| live.local() && !live.tx.is_closed())
                    .map(|live| (live.id, live.tx.clone()))
            };
            for (code, id) in known {
                match here(&code) {
                    Some((now, tx)) if now == id => live.push((code, id, tx)),
                    _ => ended.push((code, id)),
                }
            }
            for code in said.keys() {
                if !live.iter().any(|(c, _, _)| c == code)
                    && let Some((id, tx)) = here(code)
                {
                    live.push((code.clone(), id, tx));
                }
            }
        }
        {
            let mut all = lock(&self.inner.remote_games);
            let games = all.entry(from.to_string()).or_default();
            for (code, id) in ended {
                if games.get(&code) == Some(&id) {
                    games.remove(&code);
                }
            }
            for (code, id, _) in &live {
                games.insert(code.clone(), *id);
            }
        }
        for (code, _, room) in live {
            let command = Command::Recount {
                from: from.to_string(),
                follow: said.remove(&code).unwrap_or_default(),
                young,
            };
            let _ = room.send(command).await;
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
        if let Request::Listens { player } = &req {
            return Ok(Answer::Listens(self.listens_here(player)));
        }
        // Only a room of this node's answers: a proxy here, or no room, means the game is
        // elsewhere now, and the asker must look again.
        let (room, id) = match lock(&self.inner.rooms).get(code) {
            Some(live) if live.local() && !live.tx.is_closed() => (live.tx.clone(), live.id),
            _ => return Err(Refused::unavailable()),
        };
        let closed = |_| Refused::unavailable();
        match req {
            Request::Attach { seat, since } => {
                // Known before the room counts it, so that a node taken for gone is uncounted
                // in every room that counts it.
                lock(&self.inner.remote_games)
                    .entry(from.to_string())
                    .or_default()
                    .insert(code.to_string(), id);
                let (reply, answer) = oneshot::channel();
                let node = Some(from.to_string());
                room.send(Command::Attach {
                    seat,
                    since,
                    node,
                    reply,
                })
                .await
                .map_err(closed)?;
                let attached = answer.await.map_err(|_| Refused::unavailable())??;
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
                // The room uncounts it only if it still counts it for `from`.
                let node = Some(from.to_string());
                room.send(Command::Detach { seat, node })
                    .await
                    .map_err(closed)?;
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
            // Answered above: it names no game.
            Request::Listens { .. } => Err(Refused::unavailable()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::Attached;
    use crate::secret;
    use khet_protocol::{NewGame, SeatChoice, ServerMsg};

    use crate::hub::player_for_test as player;

    /// Who is present, if `json` is a presence message.
    fn presence(json: &str) -> Option<[bool; 2]> {
        match ServerMsg::from_json(json) {
            Ok(ServerMsg::Presence { connected, .. }) => Some(connected),
            _ => None,
        }
    }

    /// Who game `code`'s room says is here, read as a spectator's catch-up: after every
    /// command sent to the room before.
    async fn shown(hub: &Hub, code: &str) -> [bool; 2] {
        let (room, attached) = hub.attach(code, None, None).await.unwrap();
        let detach = Command::Detach {
            seat: None,
            node: None,
        };
        room.send(detach).await.unwrap();
        let last = attached.catch_up.last().map(|(_, json)| json.clone());
        last.as_deref()
            .and_then(presence)
            .unwrap_or_else(|| panic!("not presence: {last:?}"))
    }

    /// A game of Silver's on this node, joined by Red, with Silver following it here (while
    /// the test holds what it returns last): its code and Red's seat.
    async fn game(hub: &Hub) -> (String, crate::hub::Seat, Attached) {
        let (silver, red) = (
            player(hub, 'a', "Silver").await,
            player(hub, 'b', "Red").await,
        );
        let new = NewGame {
            setup: "classic".into(),
            clock: None,
            color: SeatChoice::Silver,
            rated: false,
            listed: false,
            days_per_move: None,
        };
        let seat = hub.create(&silver, &new, None).await.unwrap();
        let code = seat.code.clone();
        let red_seat = hub.join(&code, &red).await.unwrap();
        let (_, silver_here) = hub.attach(&code, Some(&seat.secret), None).await.unwrap();
        (code, red_seat, silver_here)
    }

    /// Red attaches to game `code` from node b.
    async fn red_on_b(hub: &Hub, code: &str, red: &crate::hub::Seat) {
        let attach = Request::Attach {
            seat: Some(secret::hash(&red.secret)),
            since: None,
        };
        hub.answer_for("b", code, attach).await.unwrap();
    }

    /// What node b says of its followers of this node's game is what counts: its player counts
    /// again after this node took b for gone, once however often b says so; one b no longer
    /// has (a detach lost) stops counting; and one counted just now stays, as b may have spoken
    /// before the answer to its attach reached it.
    #[test]
    fn followers_on_another_node_count_as_that_node_says() {
        let (runtime, hub, dir) = crate::hub::hub_for_test("recount");
        runtime.block_on(async {
            let (code, red, _silver_here) = game(&hub).await;
            let wait = cluster::ANSWER_WAIT;
            red_on_b(&hub, &code, &red).await;
            assert_eq!(shown(&hub, &code).await, [true, true]);
            hub.recount("b", Vec::new(), wait).await;
            assert_eq!(shown(&hub, &code).await, [true, true], "just counted");

            let red_on_b = vec![(code.clone(), Some(Color::Red))];
            hub.recount("b", red_on_b.clone(), wait).await;
            // b silent for a lease: Red gone with it.
            hub.forget_peer("b").await;
            assert_eq!(shown(&hub, &code).await, [true, false], "b taken for gone");
            hub.recount("b", red_on_b.clone(), wait).await;
            hub.recount("b", red_on_b.clone(), wait).await;
            assert_eq!(shown(&hub, &code).await, [true, true], "Red counted again");
            // Counted once: one detach and Red is gone.
            let detach = Request::Detach {
                seat: Some(Color::Red),
            };
            hub.answer_for("b", &code, detach).await.unwrap();
            assert_eq!(shown(&hub, &code).await, [true, false], "counted twice");

            // Red back, then gone from b with the detach lost: b's next word uncounts Red,
            // once the answer to Red's attach has had its time.
            hub.recount("b", red_on_b, wait).await;
            assert_eq!(shown(&hub, &code).await, [true, true]);
            hub.recount("b", Vec::new(), Duration::ZERO).await;
            assert_eq!(shown(&hub, &code).await, [true, false], "a lost detach");
        });
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Red leaves node b just as b's list that still has Red is counted (the race of a list's
    /// count and a detach, driven in each order). Whichever reaches the room first, each count
    /// the list makes has its entry, so b's next list, without Red, leaves Red gone: Red's
    /// abandonment can be claimed.
    #[test]
    fn a_detach_that_overtakes_a_list_leaves_no_count_behind() {
        let (runtime, hub, dir) = crate::hub::hub_for_test("overtaken");
        runtime.block_on(async {
            let (code, red, _silver_here) = game(&hub).await;
            let wait = cluster::ANSWER_WAIT;
            red_on_b(&hub, &code, &red).await;
            hub.forget_peer("b").await;
            assert_eq!(shown(&hub, &code).await, [true, false], "b taken for gone");
            // b's list, made while Red was there, is counted after Red's detach.
            let detach = || Request::Detach {
                seat: Some(Color::Red),
            };
            hub.answer_for("b", &code, detach()).await.unwrap();
            let red_on_b = vec![(code.clone(), Some(Color::Red))];
            hub.recount("b", red_on_b.clone(), wait).await;
            assert_eq!(shown(&hub, &code).await, [true, true], "the list counted");
            // b's next list: Red is not there.
            hub.recount("b", Vec::new(), wait).await;
            assert_eq!(
                shown(&hub, &code).await,
                [true, false],
                "Red counted for good after leaving"
            );
            // The other order: the list, then the detach.
            hub.recount("b", red_on_b, wait).await;
            hub.answer_for("b", &code, detach()).await.unwrap();
            assert_eq!(shown(&hub, &code).await, [true, false], "the detach lost");
        });
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Node b's proxy asks for what it missed (as after a broker outage) while Silver alone is
    /// here, and Red attaches before the answer reaches b: b's proxy hands out what came live,
    /// then the catch-up. The last presence b's followers see must be the newest.
    #[test]
    fn a_catch_up_for_another_node_never_shows_an_older_presence() {
        let (runtime, hub, dir) = crate::hub::hub_for_test("resync");
        runtime.block_on(async {
            let (code, red, _silver_here) = game(&hub).await;
            // What goes live to the game's channel, as node b hears it.
            let (_, mut live) = hub.attach(&code, None, None).await.unwrap();
            assert_eq!(shown(&hub, &code).await, [true, false]);
            let resync = Request::Attach {
                seat: None,
                since: Some(1),
            };
            let Answer::Attached { catch_up, .. } =
                hub.answer_for("b", &code, resync).await.unwrap()
            else {
                panic!("not attached");
            };
            let _red_here = hub.attach(&code, Some(&red.secret), None).await.unwrap();
            let mut handed = Vec::new();
            while let Ok((_, json)) = live.rx.try_recv() {
                handed.push(json.to_string());
            }
            handed.extend(catch_up.into_iter().map(|(_, json)| json));
            let last = handed.iter().rev().find_map(|json| presence(json));
            assert_eq!(last, Some([true, true]), "an older presence shown last");
        });
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Lists are counted in the order their node numbered them, within one run of it.
    #[test]
    fn an_older_list_is_dropped() {
        let mut last = HashMap::new();
        assert!(newer(&mut last, "b", (7, 2)));
        assert!(!newer(&mut last, "b", (7, 1)), "an older list");
        assert!(!newer(&mut last, "b", (7, 2)), "the same list twice");
        assert!(newer(&mut last, "c", (7, 1)), "another node's");
        assert!(newer(&mut last, "b", (9, 1)), "b started again");
        assert!(newer(&mut last, "b", (0, 0)), "a node of an older version");
        assert!(newer(&mut last, "b", (9, 2)));
    }
}
