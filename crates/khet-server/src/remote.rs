//! A game owned by another node, as this node's players and spectators reach it: a task that
//! takes the same commands as a room (`messages::Command`) and passes them to the owner through
//! the broker, and that hands the owner's events to its followers here. It ends when nobody here
//! follows the game any more, when another node takes the game up (`moved`), or when the owner
//! does not answer; its followers' connections then close, and their clients reconnect and find
//! the game where it is now.

use crate::cluster::{ANSWER_WAIT, Answer, Broker, GameMsg, PlayerWire, Request};
use crate::messages::{Attached, Command, Out, Refused, RoomHost};
use crate::util::lock;
use khet_engine::Color;
use std::sync::{Arc, Mutex};
use tokio::sync::{broadcast, mpsc};
use tokio::time::{Duration, Instant, sleep_until};

/// How long a proxy nobody follows waits before it ends (a player between two connections).
const LINGER: Duration = Duration::from_secs(30);

/// How many times a proxy asks the owner for what it missed while the broker was down: the
/// owner's node subscribes again within the broker's longest wait between attempts (5 s) after
/// this one. Each try is a publish (which waits out the broker's retries, about 10 s, while it
/// cannot be reached) and then `cluster::ANSWER_WAIT` at most for the answer.
const RESYNC_TRIES: u32 = 3;

/// The followers of a proxy whose attach the owner answered, each by its side (none for a
/// spectator). Shared with the hub, which tells the owner regularly who follows its games here:
/// the owner stops counting them when it cannot hear this node for a lease (a broker outage),
/// and counts them again as told.
pub type Followers = Arc<Mutex<Vec<Option<Color>>>>;

/// A proxy of game `code`, owned by node `owner`.
pub struct Proxy {
    /// The hub's number for it.
    pub id: u64,
    /// The game.
    pub code: String,
    /// The owning node.
    pub owner: String,
    /// The broker.
    pub broker: Arc<Broker>,
    /// The hub, to be forgotten by at the end.
    pub host: Box<dyn RoomHost>,
    /// Its followers, as the hub reads them.
    pub followers: Followers,
}

/// What a proxy's request tasks tell it.
enum Done {
    /// A follower attached (or failed to).
    Attached(bool),
    /// The owner did not answer.
    Silent,
}

impl Proxy {
    /// Runs the proxy on `commands`, with the game's channel `game` (registered, not yet
    /// subscribed). It subscribes here, not in the hub, so that no hub lock waits on the
    /// broker; the commands wait meanwhile, so no follower is answered before the game's events
    /// reach the proxy.
    pub async fn run(
        self,
        mut commands: mpsc::Receiver<Command>,
        mut game: mpsc::UnboundedReceiver<GameMsg>,
    ) {
        let subscribed = tokio::time::timeout(ANSWER_WAIT, self.broker.subscribe_game(&self.code));
        let failed = match subscribed.await {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(e),
            Err(_) => Some("subscribing timed out".to_string()),
        };
        if let Some(e) = failed {
            // Not the code: an unlisted game's is its secret, and a proxy does not know
            // whether its game is listed.
            tracing::debug!(code = %self.code, "broker: following a game: {e}");
            tracing::warn!("broker: following a game of another node: {e}");
            self.host.remove_room(&self.code, self.id);
            commands.close();
            while let Ok(command) = commands.try_recv() {
                command.refuse(Refused::unavailable());
            }
            self.broker.unfollow_game(&self.code, self.id).await;
            return;
        }
        let (tx, _) = broadcast::channel::<Out>(256);
        let (done_tx, mut done) = mpsc::unbounded_channel::<Done>();
        let mut followers: u32 = 0;
        let mut idle_since = Some(Instant::now());
        // The last event handed to the followers, from which a resync asks.
        let mut last: Option<u64> = None;
        loop {
            let idle_end = idle_since.map(|t| t + LINGER);
            tokio::select! {
                command = commands.recv() => match command {
                    Some(Command::Detach { seat, .. }) => {
                        // A connection detaches only once its attach was answered, when its
                        // side went into the list.
                        let mut here = lock(&self.followers);
                        if let Some(i) = here.iter().position(|s| *s == seat) {
                            here.swap_remove(i);
                        }
                        drop(here);
                        followers = followers.saturating_sub(1);
                        if followers == 0 {
                            idle_since = Some(Instant::now());
                        }
                        let broker = self.broker.clone();
                        let (owner, code) = (self.owner.clone(), self.code.clone());
                        tokio::spawn(async move {
                            let _ = broker.request(&owner, &code, Request::Detach { seat }).await;
                        });
                    }
                    Some(command) => {
                        if matches!(command, Command::Attach { .. }) {
                            followers += 1;
                            idle_since = None;
                        }
                        self.forward(command, tx.clone(), done_tx.clone());
                    }
                    None => break,
                },
                msg = game.recv() => match msg {
                    Some(GameMsg::Out { n, json }) => {
                        last = n.max(last);
                        let _ = tx.send((n, json.into()));
                    }
                    Some(GameMsg::Resync) => self.resync(last, tx.clone(), done_tx.clone()),
                    Some(GameMsg::Moved { owner }) if owner != self.owner => break,
                    Some(GameMsg::Moved { .. }) => {}
                    None => break,
                },
                Some(done) = done.recv() => match done {
                    Done::Attached(true) => {}
                    Done::Attached(false) => {
                        followers = followers.saturating_sub(1);
                        if followers == 0 {
                            idle_since = Some(Instant::now());
                        }
                    }
                    Done::Silent => break,
                },
                () = sleep_until(idle_end.unwrap_or_else(Instant::now)), if idle_end.is_some() => break,
            }
        }
        // Forgotten first, so that nobody is handed this proxy while it ends.
        self.host.remove_room(&self.code, self.id);
        self.broker.unfollow_game(&self.code, self.id).await;
    }

    /// Asks the owner for the events after `last` (as a spectator would, attaching and
    /// detaching at once) and hands them to the followers, who drop what they have already.
    /// The owner's node subscribes again on its own time, and a request sent before is lost:
    /// asked again while no answer comes, [`RESYNC_TRIES`] times; then the proxy ends, and its
    /// followers reconnect and find the game where it is.
    fn resync(
        &self,
        last: Option<u64>,
        tx: broadcast::Sender<Out>,
        done: mpsc::UnboundedSender<Done>,
    ) {
        let broker = self.broker.clone();
        let (owner, code) = (self.owner.clone(), self.code.clone());
        tokio::spawn(async move {
            for _ in 0..RESYNC_TRIES {
                let request = Request::Attach {
                    seat: None,
                    since: last,
                };
                match broker.request(&owner, &code, request).await {
                    Ok(Answer::Attached { catch_up, .. }) => {
                        // Events only: a presence here (an owner of an older version sends one)
                        // would be handed out after any newer one that came live meanwhile.
                        for (n, json) in catch_up {
                            if n.is_some() {
                                let _ = tx.send((n, json.into()));
                            }
                        }
                        let _ = broker
                            .request(&owner, &code, Request::Detach { seat: None })
                            .await;
                        return;
                    }
                    Err(refused) if refused.is_unavailable() => {}
                    _ => break,
                }
            }
            let _ = done.send(Done::Silent);
        });
    }

    /// Sends `command` to the owner on a task of its own (so that events flow meanwhile).
    fn forward(
        &self,
        command: Command,
        tx: broadcast::Sender<Out>,
        done: mpsc::UnboundedSender<Done>,
    ) {
        let broker = self.broker.clone();
        let (owner, code) = (self.owner.clone(), self.code.clone());
        let here = self.followers.clone();
        tokio::spawn(async move {
            let silent =
                |r: &Result<Answer, Refused>| r.as_ref().is_err_and(Refused::is_unavailable);
            match command {
                Command::Attach {
                    seat, since, reply, ..
                } => {
                    // Subscribed before asking, so that no event falls between the catch-up
                    // and the live ones (the connection drops what it has twice).
                    let rx = tx.subscribe();
                    let answer = broker
                        .request(&owner, &code, Request::Attach { seat, since })
                        .await;
                    if silent(&answer) {
                        let _ = done.send(Done::Silent);
                    }
                    let result = match answer {
                        Ok(Answer::Attached { you, catch_up }) => {
                            // Counted before the connection has it, so before its detach.
                            lock(&here).push(you);
                            Ok(Attached {
                                you,
                                rx,
                                catch_up: catch_up
                                    .into_iter()
                                    .map(|(n, j)| (n, j.into()))
                                    .collect(),
                            })
                        }
                        Ok(_) => Err(unexpected()),
                        Err(e) => Err(e),
                    };
                    let _ = done.send(Done::Attached(result.is_ok()));
                    let _ = reply.send(result);
                }
                Command::Join {
                    player,
                    secret_hash,
                    reply,
                } => {
                    let req = Request::Join {
                        player: PlayerWire::from(&player),
                        secret_hash,
                    };
                    let answer = broker.request(&owner, &code, req).await;
                    if silent(&answer) {
                        let _ = done.send(Done::Silent);
                    }
                    let _ = reply.send(match answer {
                        Ok(Answer::Joined(color)) => Ok(color),
                        Ok(_) => Err(unexpected()),
                        Err(e) => Err(e),
                    });
                }
                Command::Act {
                    seat,
                    action,
                    reply,
                } => {
                    let answer = broker
                        .request(&owner, &code, Request::Act { seat, action })
                        .await;
                    if silent(&answer) {
                        let _ = done.send(Done::Silent);
                    }
                    let _ = reply.send(answer.map(|_| ()));
                }
                // A proxy holds no lease (the owner checks its own), and counts nobody for
                // another node.
                Command::Detach { .. }
                | Command::Recount { .. }
                | Command::Forget { .. }
                | Command::CheckLease => {}
            }
        });
    }
}

fn unexpected() -> Refused {
    Refused::new(
        khet_protocol::Refusal::Storage,
        "the game's server answered something else",
    )
}
