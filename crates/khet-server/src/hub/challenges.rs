//! Challenges and rematches (issue 65): one player asks another, by id, for a game with a setup
//! and clock; the other accepts or declines wherever they are connected, now or when they next
//! come (a challenge is stored). An accept creates the game with both players seated. A rematch
//! is a challenge of a finished game's opponent, colours swapped, and the opponent's own ask
//! accepts it: one click each.
//!
//! Both players' connections that asked for their challenges are told of each change, on this
//! node and, through the broker, on every other ([`crate::cluster::PlayerNotice`]).

use super::seats::{Caps, offered};
use super::{Hub, Seat};
use crate::cluster::{Answer, Request};
use crate::messages::{Command, Notice, Refused};
use crate::store::{ChallengeRow, PlayerRow};
use crate::util::lock;
use khet_engine::Color;
use khet_protocol::{
    ChallengeInfo, ChallengeStatus, ClientMsg, MAX_PENDING_CHALLENGES, NewGame, Refusal,
    SeatChoice, ServerMsg, Status,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::{broadcast, oneshot};

/// How many notices a connection may fall behind before it is sent its list again.
const NOTICES_KEPT: usize = 16;

/// How often challenges past their time are marked expired, and both players told: a player
/// waiting for an answer learns within this that none will come.
const EXPIRY_SWEEP: std::time::Duration = std::time::Duration::from_secs(10);

/// Each player's connections on this node that hear of their challenges.
#[derive(Default)]
pub(super) struct Listeners(Mutex<HashMap<String, broadcast::Sender<Arc<Notice>>>>);

fn unknown_challenge() -> Refused {
    Refused::new(
        Refusal::UnknownChallenge,
        "no challenge of yours waits with this id (answered, withdrawn or expired)",
    )
}

impl Hub {
    /// Where player `id`'s notices reach a connection from now on.
    pub fn notices(&self, id: &str) -> broadcast::Receiver<Arc<Notice>> {
        lock(&self.inner.listeners.0)
            .entry(id.to_string())
            .or_insert_with(|| broadcast::channel(NOTICES_KEPT).0)
            .subscribe()
    }

    /// A connection of player `id` stopped listening: the player is forgotten here once none
    /// listens.
    pub fn stop_listening(&self, id: &str) {
        let mut listeners = lock(&self.inner.listeners.0);
        if listeners.get(id).is_some_and(|tx| tx.receiver_count() == 0) {
            listeners.remove(id);
        }
    }

    /// Whether a connection of player `id` on this node hears of their challenges.
    pub(super) fn listens_here(&self, id: &str) -> bool {
        lock(&self.inner.listeners.0)
            .get(id)
            .is_some_and(|tx| tx.receiver_count() > 0)
    }

    /// Whether a connection of player `id` hears of their challenges here or on another node:
    /// each other node is asked, and one that does not answer in time counts as no.
    async fn listens_anywhere(&self, id: &str) -> bool {
        if self.listens_here(id) {
            return true;
        }
        let Some(broker) = self.broker() else {
            return false;
        };
        let peers: Vec<String> = lock(&self.inner.peers).keys().cloned().collect();
        let asks = peers.iter().map(|node| {
            let ask = Request::Listens {
                player: id.to_string(),
            };
            broker.request(node, "", ask)
        });
        futures_util::future::join_all(asks)
            .await
            .into_iter()
            .any(|answer| matches!(answer, Ok(Answer::Listens(true))))
    }

    /// Tells player `id`'s connections on this node.
    pub fn tell_here(&self, id: &str, notice: Notice) {
        if let Some(tx) = lock(&self.inner.listeners.0).get(id) {
            let _ = tx.send(Arc::new(notice));
        }
    }

    /// Tells player `id`'s connections here and on every other node.
    async fn tell(&self, id: &str, notice: Notice) {
        if let Some(broker) = self.broker() {
            let msg = crate::cluster::PlayerNotice {
                player: id.to_string(),
                notice: notice.clone(),
            };
            broker.publish(&broker.channels().players(), &msg).await;
        }
        self.tell_here(id, notice);
    }

    /// Tells both players of a challenge what it is now.
    async fn announce(&self, info: &ChallengeInfo) {
        let json = ServerMsg::Challenge {
            challenge: info.clone(),
        }
        .to_json();
        for id in [&info.from.id, &info.to.id] {
            let notice = Notice::Challenge { json: json.clone() };
            self.tell(id, notice).await;
        }
    }

    /// Marks the challenges past their time expired, every [`EXPIRY_SWEEP`], and tells both
    /// players of each (the node whose sweep marked it tells them, once, on every node).
    pub async fn expire_challenges(self) {
        let mut every = tokio::time::interval(EXPIRY_SWEEP);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            let expired = match self.inner.store.expire_challenges(self.now_ms()).await {
                Ok(rows) => rows,
                Err(e) => {
                    crate::metrics::failed("expiring challenges", &e);
                    continue;
                }
            };
            for row in expired {
                let from = self.known_player(&row.challenger).await;
                let to = self.known_player(&row.challenged).await;
                if let (Ok(from), Ok(to)) = (from, to) {
                    self.announce(&info(&row, &from, &to)).await;
                }
            }
        }
    }

    async fn known_player(&self, id: &str) -> Result<PlayerRow, Refused> {
        self.inner
            .store
            .player(id)
            .await?
            .ok_or_else(|| Refused::new(Refusal::UnknownPlayer, "no player has this id"))
    }

    /// Player `from` challenges player `to` to game `new` (`new.color` is `from`'s side), or
    /// asks for a rematch of game `rematch_of`. Stored, then both players are told.
    pub async fn challenge(
        &self,
        from: &PlayerRow,
        to: &str,
        new: &NewGame,
        rematch_of: Option<&str>,
    ) -> Result<ChallengeInfo, Refused> {
        if to == from.id {
            return Err(Refused::new(
                Refusal::NotNow,
                "you cannot challenge yourself",
            ));
        }
        let challenged = self.known_player(to).await?;
        let setup = offered(new)?;
        if new.rated {
            self.may_play_rated(from).await?;
        }
        let now = self.now_ms();
        let pending = self.inner.store.pending_challenges(&from.id, now).await?;
        let made: Vec<&ChallengeRow> = pending.iter().filter(|c| c.challenger == from.id).collect();
        if made.len() >= MAX_PENDING_CHALLENGES {
            let why = format!(
                "you have {} challenges waiting for an answer; withdraw one first",
                made.len()
            );
            return Err(Refused::new(Refusal::NotNow, why));
        }
        if made.iter().any(|c| c.challenged == to) {
            let why = format!("your challenge to {} waits already", challenged.name);
            return Err(Refused::new(Refusal::NotNow, why));
        }
        let row = ChallengeRow {
            id: crate::secret::new_code().map_err(|e| Refused::new(Refusal::Storage, e))?,
            challenger: from.id.clone(),
            challenged: to.to_string(),
            setup: catalogue_name(&setup.name).map_or_else(|| new.setup.clone(), str::to_string),
            clock: new.clock,
            days_per_move: new.days_per_move,
            color: new.color,
            rated: new.rated,
            rematch_of: rematch_of.map(str::to_string),
            status: ChallengeStatus::Pending,
            game: None,
            created_ms: now,
        };
        self.inner.store.insert_challenge(&row).await?;
        tracing::info!(by = %from.name, to = %challenged.name, rematch = rematch_of.is_some(), "challenge made");
        let info = info(&row, from, &challenged);
        self.announce(&info).await;
        Ok(info)
    }

    /// Player `id`'s challenges waiting for an answer, made and received, oldest first.
    pub async fn pending_challenges(&self, id: &str) -> Result<Vec<ChallengeInfo>, Refused> {
        let rows = self
            .inner
            .store
            .pending_challenges(id, self.now_ms())
            .await?;
        let mut players: HashMap<String, PlayerRow> = HashMap::new();
        let mut list = Vec::with_capacity(rows.len());
        for row in rows {
            for id in [&row.challenger, &row.challenged] {
                if !players.contains_key(id) {
                    let player = self.known_player(id).await?;
                    players.insert(id.clone(), player);
                }
            }
            if let (Some(from), Some(to)) =
                (players.get(&row.challenger), players.get(&row.challenged))
            {
                list.push(info(&row, from, to));
            }
        }
        Ok(list)
    }

    /// Challenge `id`, pending and `player`'s to answer (as the challenged player) or to
    /// withdraw (as the challenger).
    async fn pending_of(
        &self,
        id: &str,
        player: &str,
        challenged: bool,
    ) -> Result<ChallengeRow, Refused> {
        let row = self.inner.store.challenge(id).await?;
        row.filter(|c| c.status == ChallengeStatus::Pending)
            .filter(|c| {
                let whose = if challenged {
                    &c.challenged
                } else {
                    &c.challenger
                };
                whose == player
            })
            .ok_or_else(unknown_challenge)
    }

    /// Player `player` declines challenge `id` (`Declined`) or, as its challenger, withdraws
    /// it (`Withdrawn`); both players are told.
    pub async fn end_challenge(
        &self,
        player: &PlayerRow,
        id: &str,
        status: ChallengeStatus,
    ) -> Result<(), Refused> {
        let challenged = status == ChallengeStatus::Declined;
        let mut row = self.pending_of(id, &player.id, challenged).await?;
        if !self
            .inner
            .store
            .end_challenge(id, status, self.now_ms())
            .await?
        {
            return Err(unknown_challenge());
        }
        row.status = status;
        let other = if challenged {
            &row.challenger
        } else {
            &row.challenged
        };
        let other = self.known_player(other).await?;
        let (from, to) = if challenged {
            (&other, player)
        } else {
            (player, &other)
        };
        self.announce(&info(&row, from, to)).await;
        Ok(())
    }

    /// Player `player` accepts challenge `id`: the game is created with both seated, the
    /// challenger is told (and given their seat), and the accepter's seat is returned.
    pub async fn accept_challenge(&self, player: &PlayerRow, id: &str) -> Result<Seat, Refused> {
        let mut row = self.pending_of(id, &player.id, true).await?;
        let challenger = self.known_player(&row.challenger).await?;
        // A challenger who is not there would get no seat, and lose the game on abandonment:
        // the challenge waits for them.
        if !self.listens_anywhere(&challenger.id).await {
            let why = format!(
                "{} is not connected now; the challenge waits for them",
                challenger.name
            );
            return Err(Refused::new(Refusal::NotNow, why));
        }
        if row.rated {
            self.may_play_rated(player).await?;
            self.may_play_rated(&challenger).await?;
        }
        // Taken first, so that of two accepts at once (two connections, two nodes) only one
        // creates a game.
        let store = &self.inner.store;
        if !store
            .end_challenge(id, ChallengeStatus::Accepted, self.now_ms())
            .await?
        {
            return Err(unknown_challenge());
        }
        let new = NewGame {
            setup: row.setup.clone(),
            clock: row.clock,
            color: row.color,
            rated: row.rated,
            listed: false,
            days_per_move: row.days_per_move,
        };
        let (theirs, mine) = match self.seat_both(&challenger, player, &new).await {
            Ok(seats) => seats,
            Err(refused) => {
                // Nothing was played: the challenge waits again, for another try.
                let _ = store.reopen_challenge(id).await;
                return Err(refused);
            }
        };
        store.set_challenge_game(id, &mine.code).await?;
        row.status = ChallengeStatus::Accepted;
        row.game = Some(mine.code.clone());
        tracing::info!(by = %player.name, of = %challenger.name, code = %crate::logs::game(&mine.code, false), "challenge accepted");
        self.announce(&info(&row, &challenger, player)).await;
        let seated = Notice::Seated {
            code: theirs.code,
            color: theirs.color,
            secret: theirs.secret,
        };
        self.tell(&challenger.id, seated).await;
        Ok(mine)
    }

    /// A game `new` with `creator` seated as `new.color` says and `joiner` in the other seat.
    async fn seat_both(
        &self,
        creator: &PlayerRow,
        joiner: &PlayerRow,
        new: &NewGame,
    ) -> Result<(Seat, Seat), Refused> {
        let first = self.open_game(creator, new, Caps::Exempt).await?;
        match self.join(&first.code, joiner).await {
            Ok(second) => Ok((first, second)),
            Err(refused) => {
                // Refused at the table (a rated pair's games of the day): the game nobody will
                // play is withdrawn, as its creator's resignation would.
                self.withdraw(&first).await;
                Err(refused)
            }
        }
    }

    /// Withdraws the open game of `seat`, as its creator's resignation does.
    async fn withdraw(&self, seat: &Seat) {
        let Some(room) = self.live(&seat.code) else {
            return;
        };
        let (reply, answer) = oneshot::channel();
        let resign = Command::Act {
            seat: seat.color,
            action: ClientMsg::Resign,
            reply,
        };
        if room.send(resign).await.is_ok() {
            let _ = answer.await;
        }
    }

    /// Player `player` asks for a rematch of finished game `code`: the opponent's rematch of it,
    /// if they asked already, is accepted (the player's seat returned); otherwise the opponent
    /// is challenged to the same game with colours swapped (`None`).
    pub async fn rematch(&self, player: &PlayerRow, code: &str) -> Result<Option<Seat>, Refused> {
        let game = self.inner.store.game(code).await?.ok_or_else(|| {
            Refused::new(Refusal::UnknownGame, format!("no game has the code {code}"))
        })?;
        let Some(side) = Color::ALL
            .into_iter()
            .find(|c| game.players[c.index()].as_deref() == Some(player.id.as_str()))
        else {
            let why = "only the game's players may ask for a rematch";
            return Err(Refused::new(Refusal::NotPlaying, why));
        };
        let opponent = match &game.players[side.other().index()] {
            Some(id) if game.status == Status::Over => id.clone(),
            _ => {
                let why = "a rematch follows a finished game";
                return Err(Refused::new(Refusal::NotNow, why));
            }
        };
        // Once at a time, so that two players asking together do not challenge each other.
        let _pairing = self.inner.pairing.lock().await;
        let pending = self
            .inner
            .store
            .pending_challenges(&player.id, self.now_ms())
            .await?;
        let theirs = pending
            .iter()
            .find(|c| c.rematch_of.as_deref() == Some(code) && c.challenger == opponent);
        if let Some(theirs) = theirs {
            return self.accept_challenge(player, &theirs.id).await.map(Some);
        }
        let Some(setup) = catalogue_name(&game.setup) else {
            let why = format!("the server no longer offers {}", game.setup);
            return Err(Refused::new(Refusal::BadGame, why));
        };
        let new = NewGame {
            setup: setup.to_string(),
            clock: game.clock,
            color: match side.other() {
                Color::Silver => SeatChoice::Silver,
                Color::Red => SeatChoice::Red,
            },
            rated: game.rated,
            listed: false,
            days_per_move: game.days_per_move,
        };
        self.challenge(player, &opponent, &new, Some(code)).await?;
        Ok(None)
    }
}

/// The catalogue name (`khet1/dynasty`, which a new game takes) of the built-in setup named
/// `name` for people (`Dynasty (Khet 1.0)`, which a game keeps).
fn catalogue_name(name: &str) -> Option<&'static str> {
    khet_engine::setup::catalogue()
        .into_iter()
        .find(|(_, setup)| setup.name == name)
        .map(|(id, _)| id)
}

/// A challenge as its players see it.
fn info(row: &ChallengeRow, from: &PlayerRow, to: &PlayerRow) -> ChallengeInfo {
    ChallengeInfo {
        id: row.id.clone(),
        from: from.info(),
        to: to.info(),
        setup: row.setup.clone(),
        clock: row.clock,
        color: row.color,
        rated: row.rated,
        rematch_of: row.rematch_of.clone(),
        days_per_move: row.days_per_move,
        status: row.status,
        game: row.game.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use khet_protocol::CHALLENGE_LIFETIME_MS;

    use crate::hub::player_for_test as player;

    /// A challenge not answered in its lifetime is no longer pending, is marked expired, and
    /// can be neither accepted nor declined; the challenger may challenge again.
    #[test]
    fn a_challenge_unanswered_past_its_lifetime_expires() {
        let (runtime, hub, dir) = super::super::hub_for_test("challenge-expiry");
        runtime.block_on(async {
            let (ada, bea) = (
                player(&hub, 'a', "Ada").await,
                player(&hub, 'b', "Bea").await,
            );
            let new = NewGame {
                setup: "classic".into(),
                clock: None,
                color: SeatChoice::Random,
                rated: false,
                listed: false,
                days_per_move: None,
            };
            let made = hub.challenge(&ada, &bea.id, &new, None).await.unwrap();
            let store = hub.store();
            let now = hub.now_ms();
            assert_eq!(
                store.pending_challenges(&bea.id, now).await.unwrap().len(),
                1
            );
            let later = now + CHALLENGE_LIFETIME_MS + 1;
            let declined = ChallengeStatus::Declined;
            assert!(
                !store
                    .end_challenge(&made.id, declined, later)
                    .await
                    .unwrap()
            );
            assert!(
                store
                    .pending_challenges(&bea.id, later)
                    .await
                    .unwrap()
                    .is_empty()
            );
            let row = store.challenge(&made.id).await.unwrap().unwrap();
            assert_eq!(row.status, ChallengeStatus::Expired);
            let refused = hub.accept_challenge(&bea, &made.id).await.unwrap_err();
            assert_eq!(refused.code, Refusal::UnknownChallenge);
            assert!(hub.challenge(&ada, &bea.id, &new, None).await.is_ok());
        });
        let _ = std::fs::remove_dir_all(dir);
    }
}
