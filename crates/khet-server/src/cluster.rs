//! Several nodes sharing the players, through Redis pub/sub (as lichess's lila and lila-ws do).
//!
//! Each game not over is owned by one node at a time, which holds its lease in the database
//! (`store::Store::acquire`; every write names the lease's token, so a node that lost a game
//! writes nothing). A player connected to another node reaches the game through a proxy there
//! (`remote`), which sends the player's commands to the owner on the owner's channel and gets the
//! game's events on the game's channel. Pub/sub loses messages when a connection drops, so the
//! events stay numbered and a follower that misses one follows again, as with one node. For the
//! same reason each node tells every other, every third of a lease, who follows the other's
//! games through it ([`NodeMsg::Followers`]), and the owner counts them as told: a player there
//! counts as present again after the owner took the node for gone (silent for a lease, as in a
//! broker outage), and a follower whose detach was lost stops counting.
//!
//! Channels, each under the cluster's name (`khet` unless `--cluster` says otherwise, so that
//! two clusters can share one Redis): `khet:node:NAME` (requests to a node, the replies to its
//! requests, and who follows its games on each other node), `khet:game:CODE` (the owner's
//! events of a game, and `moved` when a node takes it over), `khet:nodes` (each node's
//! heartbeat, with its open games for the lobby) and `khet:players` (what a player's
//! connections on every node are told: their challenges, [`PlayerNotice`]).
//!
//! Every message is sealed with the secret the nodes share (`seal`): one published by anyone
//! else who reaches Redis, changed, moved to another channel, stale or heard before is dropped
//! and counted, and a node's request, followers or heartbeat names the node that sealed it.

use crate::messages::{Notice, Out, Refused};
use crate::seal::{Dropped, Hidden, Opened, Seal};
use crate::store::PlayerRow;
use crate::util::lock;
use futures_util::StreamExt;
use khet_engine::Color;
use khet_protocol::{ClientMsg, OpenGame, Refusal};
use redis::AsyncCommands;
use redis::aio::{ConnectionManager, PubSubSink, PubSubStream};
use serde::{Deserialize, Serialize};
use skillratings::glicko2::Glicko2Rating;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// How long a node waits for another's answer before it takes the other for gone.
pub const ANSWER_WAIT: Duration = Duration::from_secs(5);

/// How often a node says it is alive (and what its lobby holds).
pub const BEAT_EVERY: Duration = Duration::from_secs(1);

/// A player as sent between nodes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlayerWire {
    id: String,
    name: String,
    rating: f64,
    deviation: f64,
    volatility: f64,
    games: i64,
}

impl From<&PlayerRow> for PlayerWire {
    fn from(p: &PlayerRow) -> PlayerWire {
        PlayerWire {
            id: p.id.clone(),
            name: p.name.clone(),
            rating: p.rating.rating,
            deviation: p.rating.deviation,
            volatility: p.rating.volatility,
            games: p.games,
        }
    }
}

impl From<PlayerWire> for PlayerRow {
    fn from(p: PlayerWire) -> PlayerRow {
        PlayerRow {
            id: p.id,
            name: p.name,
            rating: Glicko2Rating {
                rating: p.rating,
                deviation: p.deviation,
                volatility: p.volatility,
            },
            games: p.games,
        }
    }
}

/// What a proxy asks a game's owner: the room's commands, less their reply channels.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    /// Follow the game (a player with the hash of the seat's secret, or a spectator).
    Attach {
        /// The seat's secret hash.
        seat: Option<String>,
        /// The last event the client has.
        since: Option<u64>,
    },
    /// Stop following.
    Detach {
        /// The side.
        seat: Option<Color>,
    },
    /// Take the free seat.
    Join {
        /// Who.
        player: PlayerWire,
        /// The hash of the seat's secret.
        secret_hash: String,
    },
    /// A player's action.
    Act {
        /// The side.
        seat: Color,
        /// The action.
        action: ClientMsg,
    },
    /// Whether a connection of player `player` on the asked node hears of their challenges
    /// (asked with no game: an accept waits for the challenger to be there).
    Listens {
        /// The player's id.
        player: String,
    },
}

/// An owner's answer.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// Following: the side, and what the client missed.
    Attached {
        /// The side it plays.
        you: Option<Color>,
        /// Event numbers and JSON, to send first.
        catch_up: Vec<(Option<u64>, String)>,
    },
    /// Seated on this side.
    Joined(Color),
    /// Done.
    Done,
    /// Whether the player asked about listens there.
    Listens(bool),
}

/// A message on a node's channel.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum NodeMsg {
    /// A request from node `from`.
    Request {
        /// The asker's number for it.
        id: u64,
        /// The asking node.
        from: String,
        /// The game.
        code: String,
        /// What it asks.
        req: Request,
    },
    /// The answer to request `id`.
    Reply {
        /// The asker's number.
        id: u64,
        /// The answer or the refusal.
        result: Result<Answer, (Refusal, String)>,
        /// The refusal is [`Refused::unavailable`]: the game is not (or no longer) the answering
        /// node's. Left out when false, so that every other reply reads as it did before.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        unavailable: bool,
    },
    /// Who follows games of this channel's node on node `from` now: each game and side (none
    /// for a spectator), once per follower. Sent regularly, with no answer: a lost one is made
    /// up by the next.
    Followers {
        /// The node they are connected to.
        from: String,
        /// Each follower's game and side.
        follow: Vec<(String, Option<Color>)>,
        /// Which run of `from` this is (its start, in ms): its numbers start again.
        #[serde(default)]
        run: u64,
        /// The list's number in that run, from 1, so that a list older than one already
        /// counted is dropped; 0 (a node of an older version) is never dropped.
        #[serde(default)]
        seq: u64,
    },
}

/// A message on a game's channel.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum GameMsg {
    /// A message of the room for its followers.
    Out {
        /// Its event number (none for presence).
        n: Option<u64>,
        /// The JSON to send.
        json: String,
    },
    /// Node `owner` has taken the game up: proxies of another owner end.
    Moved {
        /// The new owner.
        owner: String,
    },
    /// This node's connection to the broker was lost and made again: whatever was published
    /// meanwhile is lost, and the proxy asks the owner for it. Never published: a node gives it
    /// to its own proxies.
    Resync,
}

/// A notice for a player's connections, wherever they are ([`Channels::players`]).
#[derive(Debug, Serialize, Deserialize)]
pub struct PlayerNotice {
    /// The player's id.
    pub player: String,
    /// What they are told.
    pub notice: Notice,
}

/// A node's heartbeat.
#[derive(Debug, Serialize, Deserialize)]
pub struct Beat {
    /// The node.
    pub node: String,
    /// Its open games, with their creation times.
    pub lobby: Vec<(u64, OpenGame)>,
}

/// What arrives from Redis for this node.
pub enum Incoming {
    /// A request for a game this node owns.
    Request {
        /// The asker's number.
        id: u64,
        /// The asking node.
        from: String,
        /// The game.
        code: String,
        /// What it asks.
        req: Request,
    },
    /// Another node's heartbeat.
    Beat(Beat),
    /// Who follows this node's games on node `from` ([`NodeMsg::Followers`]).
    Followers {
        /// The node.
        from: String,
        /// Each follower's game and side.
        follow: Vec<(String, Option<Color>)>,
        /// The run of `from` and the list's number in it.
        order: (u64, u64),
    },
    /// Another node's notice for a player's connections here.
    Notice(PlayerNotice),
}

/// This node's connections to Redis.
pub struct Broker {
    /// The cluster's name: the channels' prefix.
    cluster: String,
    node: String,
    client: redis::Client,
    /// Seals what this node publishes and opens what it hears.
    seal: Seal,
    conn: ConnectionManager,
    sink: tokio::sync::Mutex<PubSubSink>,
    next_id: AtomicU64,
    pending: Mutex<HashMap<u64, oneshot::Sender<Result<Answer, Refused>>>>,
    /// The proxies' game channels: where their messages go, with each proxy's number.
    games: Mutex<HashMap<String, (u64, mpsc::UnboundedSender<GameMsg>)>>,
}

fn broker_error(e: redis::RedisError) -> String {
    format!("broker: {e}")
}

/// A client of Redis at `url` (`redis://`, or `rediss://` for TLS), with `password` if given
/// apart from the URL.
fn client(url: &str, password: Option<&Hidden<String>>) -> Result<redis::Client, String> {
    use redis::IntoConnectionInfo;
    // rediss:// builds its TLS on the process's rustls provider: ring, as the server's own TLS
    // (a provider already installed stays).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut info = url.into_connection_info().map_err(broker_error)?;
    if let Some(Hidden(password)) = password {
        let settings = info.redis_settings().clone().set_password(password);
        info = info.set_redis_settings(settings);
    }
    redis::Client::open(info).map_err(broker_error)
}

impl Broker {
    /// Connects to the broker of `settings` as its node. The stream of what arrives is handed
    /// to [`Broker::run`].
    pub async fn connect(
        settings: &crate::ClusterSettings,
    ) -> Result<(Arc<Broker>, PubSubStream), String> {
        let client = client(&settings.broker, settings.broker_password.as_ref())?;
        let conn = ConnectionManager::new(client.clone())
            .await
            .map_err(broker_error)?;
        let (cluster, node) = (settings.name.as_str(), settings.node.as_str());
        let channels = Channels(cluster.to_string());
        let (sink, stream) = subscribed(&client, &channels, node, &[]).await?;
        Ok((
            Arc::new(Broker {
                cluster: cluster.to_string(),
                node: node.to_string(),
                client,
                seal: Seal::new(settings.secret.clone(), node),
                conn,
                sink: tokio::sync::Mutex::new(sink),
                next_id: AtomicU64::new(1),
                pending: Mutex::new(HashMap::new()),
                games: Mutex::new(HashMap::new()),
            }),
            stream,
        ))
    }

    /// This node's name.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// Whether Redis answers (`/readyz`).
    pub async fn ping(&self) -> Result<(), String> {
        let mut conn = self.conn.clone();
        redis::cmd("PING")
            .query_async::<String>(&mut conn)
            .await
            .map(drop)
            .map_err(broker_error)
    }

    /// The cluster's channels.
    pub fn channels(&self) -> Channels {
        Channels(self.cluster.clone())
    }

    /// Publishes `msg` on `channel`; a lost message is what pub/sub allows, so a failure is
    /// only logged.
    pub async fn publish(&self, channel: &str, msg: &impl Serialize) {
        let Ok(json) = serde_json::to_string(msg) else {
            return;
        };
        // Sealed once: sent again below, it is the same message, dropped by a receiver that
        // heard it.
        let json = self.seal.seal(channel, &json);
        let mut conn = self.conn.clone();
        let mut sent: redis::RedisResult<i64> = conn.publish(channel, &json).await;
        if sent
            .as_ref()
            .is_err_and(|e| e.is_io_error() || e.is_connection_dropped())
        {
            // The connection manager makes a new connection after a failed command: once more,
            // on it (a message sent twice is dropped by its receiver, a lost request is a
            // player's wait and refusal).
            sent = conn.publish(channel, &json).await;
        }
        if let Err(e) = sent {
            crate::metrics::broker_failed();
            tracing::warn!("broker: publish on {channel}: {e}");
        }
    }

    /// Asks `owner` about game `code`, and waits [`ANSWER_WAIT`] at most.
    pub async fn request(&self, owner: &str, code: &str, req: Request) -> Result<Answer, Refused> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        let msg = NodeMsg::Request {
            id,
            from: self.node.clone(),
            code: code.to_string(),
            req,
        };
        self.publish(&self.channels().node(owner), &msg).await;
        let answer = tokio::time::timeout(ANSWER_WAIT, rx).await;
        lock(&self.pending).remove(&id);
        match answer {
            Ok(Ok(result)) => result,
            _ => Err(Refused::unavailable()),
        }
    }

    /// Answers request `id` of node `to`.
    pub async fn reply(&self, to: &str, id: u64, result: Result<Answer, Refused>) {
        let unavailable = result.as_ref().is_err_and(Refused::is_unavailable);
        let msg = NodeMsg::Reply {
            id,
            result: result.map_err(|r| (r.code, r.reason)),
            unavailable,
        };
        self.publish(&self.channels().node(to), &msg).await;
    }

    /// Where game `code`'s channel goes for proxy `id` (once subscribed, by
    /// [`Broker::subscribe_game`]; a connection made again subscribes to it too). Waits on
    /// nothing: the hub calls it while it holds its loading lock.
    pub fn follow_game(&self, code: &str, id: u64) -> mpsc::UnboundedReceiver<GameMsg> {
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.games).insert(code.to_string(), (id, tx));
        rx
    }

    /// Subscribes to game `code`'s channel. Waits on Redis: a partitioned broker can hold it
    /// for long, so the caller bounds it.
    pub async fn subscribe_game(&self, code: &str) -> Result<(), String> {
        self.sink
            .lock()
            .await
            .subscribe(self.channels().game(code))
            .await
            .map_err(broker_error)
    }

    /// Stops receiving game `code`'s channel for proxy `id` (a later proxy of the game keeps
    /// it).
    pub async fn unfollow_game(&self, code: &str, id: u64) {
        {
            let mut games = lock(&self.games);
            if games.get(code).is_none_or(|(of, _)| *of != id) {
                return;
            }
            games.remove(code);
        }
        let channel = self.channels().game(code);
        let _ = self.sink.lock().await.unsubscribe(channel).await;
    }

    /// Reads what arrives until the process ends: replies go to their requests, game messages
    /// to their proxies, requests and heartbeats to `incoming`. A lost connection is made
    /// again (every subscription with it); what was sent meanwhile is lost, as pub/sub allows.
    pub async fn run(
        self: Arc<Self>,
        mut stream: PubSubStream,
        incoming: mpsc::UnboundedSender<Incoming>,
    ) {
        loop {
            while let Some(msg) = stream.next().await {
                let channel = msg.get_channel_name().to_string();
                let Ok(payload) = msg.get_payload::<String>() else {
                    continue;
                };
                self.route(&channel, &payload, &incoming);
            }
            crate::metrics::broker_failed();
            tracing::warn!("broker: connection lost; connecting again");
            stream = self.reconnect().await;
        }
    }

    fn route(&self, channel: &str, payload: &str, incoming: &mpsc::UnboundedSender<Incoming>) {
        let Opened { node: sender, body } = match self.seal.open(channel, payload) {
            Ok(opened) => opened,
            Err(why) => return self.seal.dropped(channel, why),
        };
        let channels = self.channels();
        if let Some(code) = channels.game_code(channel) {
            if let Ok(msg) = serde_json::from_str::<GameMsg>(body)
                && let Some((_, tx)) = lock(&self.games).get(code)
            {
                let _ = tx.send(msg);
            }
        } else if channel == channels.players() {
            // This node told its own connections as it published.
            if sender != self.node
                && let Ok(notice) = serde_json::from_str::<PlayerNotice>(body)
            {
                let _ = incoming.send(Incoming::Notice(notice));
            }
        } else if channel == channels.nodes() {
            if let Ok(beat) = serde_json::from_str::<Beat>(body)
                && beat.node != self.node
            {
                if beat.node != sender {
                    return self.seal.dropped(channel, Dropped::BadSeal);
                }
                let _ = incoming.send(Incoming::Beat(beat));
            }
        } else {
            match serde_json::from_str::<NodeMsg>(body) {
                Ok(NodeMsg::Request {
                    id,
                    from,
                    code,
                    req,
                }) => {
                    if from != sender {
                        return self.seal.dropped(channel, Dropped::BadSeal);
                    }
                    let _ = incoming.send(Incoming::Request {
                        id,
                        from,
                        code,
                        req,
                    });
                }
                Ok(NodeMsg::Reply {
                    id,
                    result,
                    unavailable,
                }) => {
                    if let Some(tx) = lock(&self.pending).remove(&id) {
                        let _ = tx.send(result.map_err(|(code, why)| {
                            if unavailable {
                                Refused::unavailable()
                            } else {
                                Refused::new(code, why)
                            }
                        }));
                    }
                }
                Ok(NodeMsg::Followers {
                    from,
                    follow,
                    run,
                    seq,
                }) => {
                    if from != sender {
                        return self.seal.dropped(channel, Dropped::BadSeal);
                    }
                    let order = (run, seq);
                    let _ = incoming.send(Incoming::Followers {
                        from,
                        follow,
                        order,
                    });
                }
                Err(e) => tracing::warn!("broker: not a node message: {e}"),
            }
        }
    }

    async fn reconnect(&self) -> PubSubStream {
        let mut wait = Duration::from_millis(100);
        loop {
            tokio::time::sleep(wait).await;
            let games: Vec<String> = lock(&self.games).keys().cloned().collect();
            let attempt = subscribed(&self.client, &self.channels(), &self.node, &games).await;
            match attempt {
                Ok((sink, stream)) => {
                    *self.sink.lock().await = sink;
                    // Events published while the connection was down never come: without a
                    // later event to show the gap, a follower would wait for them forever.
                    for (_, tx) in lock(&self.games).values() {
                        let _ = tx.send(GameMsg::Resync);
                    }
                    return stream;
                }
                Err(e) => {
                    crate::metrics::broker_failed();
                    tracing::warn!("{e}");
                    wait = (wait * 2).min(Duration::from_secs(5));
                }
            }
        }
    }
}

/// The channels of a cluster, by its name.
pub struct Channels(String);

impl Channels {
    /// Node `name`'s channel.
    pub fn node(&self, name: &str) -> String {
        format!("{}:node:{name}", self.0)
    }

    /// Game `code`'s channel.
    pub fn game(&self, code: &str) -> String {
        format!("{}:game:{code}", self.0)
    }

    /// The game of a game's channel.
    fn game_code<'a>(&self, channel: &'a str) -> Option<&'a str> {
        channel
            .strip_prefix(self.0.as_str())?
            .strip_prefix(":game:")
    }

    /// The heartbeats' channel.
    pub fn nodes(&self) -> String {
        format!("{}:nodes", self.0)
    }

    /// The players' channel: every node hears it, and tells the player's connections there.
    pub fn players(&self) -> String {
        format!("{}:players", self.0)
    }
}

/// A pub/sub connection subscribed to the node's channel, the heartbeats, the players' channel
/// and `games`.
async fn subscribed(
    client: &redis::Client,
    channels: &Channels,
    node: &str,
    games: &[String],
) -> Result<(PubSubSink, PubSubStream), String> {
    let pubsub = client.get_async_pubsub().await.map_err(broker_error)?;
    let (mut sink, stream) = pubsub.split();
    sink.subscribe(channels.node(node))
        .await
        .map_err(broker_error)?;
    sink.subscribe(channels.nodes())
        .await
        .map_err(broker_error)?;
    sink.subscribe(channels.players())
        .await
        .map_err(broker_error)?;
    for code in games {
        sink.subscribe(channels.game(code))
            .await
            .map_err(broker_error)?;
    }
    Ok((sink, stream))
}

/// An [`Out`] as a game message.
pub fn out_msg(out: &Out) -> GameMsg {
    GameMsg::Out {
        n: out.0,
        json: out.1.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reply's refusal keeps its wire form; only an unavailable one carries the flag, and a
    /// reply without it reads as not unavailable.
    #[test]
    fn a_reply_says_unavailable_only_when_it_is() {
        let reply = |refused: Refused| NodeMsg::Reply {
            id: 7,
            unavailable: refused.is_unavailable(),
            result: Err((refused.code, refused.reason)),
        };
        let plain = serde_json::to_string(&reply(Refused::new(Refusal::NotNow, "no"))).unwrap();
        assert_eq!(
            plain,
            r#"{"t":"reply","id":7,"result":{"Err":["not_now","no"]}}"#
        );
        let gone = serde_json::to_string(&reply(Refused::unavailable())).unwrap();
        assert!(gone.ends_with(r#","unavailable":true}"#), "{gone}");
        for (json, unavailable) in [(plain, false), (gone, true)] {
            match serde_json::from_str::<NodeMsg>(&json).unwrap() {
                NodeMsg::Reply { unavailable: u, .. } => assert_eq!(u, unavailable),
                other => panic!("not a reply: {other:?}"),
            }
        }
    }
}
