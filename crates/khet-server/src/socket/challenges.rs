//! A connection's challenges: the commands that make, answer and withdraw them (and ask for a
//! rematch), and what the player's other connections and other nodes tell it of them. Only a
//! connection that asked for its challenges, or made or answered one, is told: an older client
//! never meets a message it cannot read.

use super::{Next, Session};
use crate::hub::Seat;
use crate::messages::{Notice, Refused};
use khet_engine::Color;
use khet_protocol::{ChallengeStatus, ClientMsg, Refusal, ServerMsg, Status, check_code};
use std::sync::Arc;
use tokio::sync::broadcast;

/// The next notice for a connection that listens, or never.
pub(super) async fn next_notice(
    notices: &mut Option<broadcast::Receiver<Arc<Notice>>>,
) -> Result<Arc<Notice>, broadcast::error::RecvError> {
    match notices {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

impl Session {
    /// The player's notices reach this connection from now on.
    fn listen(&mut self) {
        if self.notices.is_none() {
            self.notices = Some(self.hub.notices(&self.player.id));
        }
    }

    /// The connection no longer listens (it ends).
    pub(super) fn stop_listening(&mut self) {
        if self.notices.take().is_some() {
            self.hub.stop_listening(&self.player.id);
        }
    }

    /// A challenge's command, or a rematch's.
    pub(super) async fn challenge_command(&mut self, msg: ClientMsg) -> Next {
        self.listen();
        let player = self.player.clone();
        let done = match msg {
            ClientMsg::Challenges => return self.send_challenges().await,
            ClientMsg::Challenge { player: to, game } => self
                .hub
                .challenge(&player, &to, &game, None)
                .await
                .map(drop),
            ClientMsg::AcceptChallenge { id } => {
                let seat = self.hub.accept_challenge(&player, &id).await;
                return self.seated(seat).await;
            }
            ClientMsg::DeclineChallenge { id } => {
                let declined = ChallengeStatus::Declined;
                self.hub.end_challenge(&player, &id, declined).await
            }
            ClientMsg::WithdrawChallenge { id } => {
                let withdrawn = ChallengeStatus::Withdrawn;
                self.hub.end_challenge(&player, &id, withdrawn).await
            }
            ClientMsg::Rematch { code } => {
                let seat = match check_code(&code) {
                    Ok(code) => self.hub.rematch(&player, &code).await,
                    Err(e) => Err(Refused::new(Refusal::UnknownGame, e)),
                };
                match seat {
                    Ok(Some(seat)) => return self.seated(Ok(seat)).await,
                    Ok(None) => Ok(()),
                    Err(refused) => Err(refused),
                }
            }
            _ => Ok(()),
        };
        match done {
            // Told through the notices, as the player's other connections are.
            Ok(()) => Next::Continue,
            Err(refused) => self.refuse(refused).await,
        }
    }

    async fn send_challenges(&mut self) -> Next {
        match self.hub.pending_challenges(&self.player.id).await {
            Ok(challenges) => {
                self.send(&ServerMsg::Challenges { challenges }.to_json())
                    .await
            }
            Err(refused) => self.refuse(refused).await,
        }
    }

    /// What the player's notices say: a challenge passed on, a seat taken (unless this
    /// connection plays another game), or, behind, the list again.
    pub(super) async fn notice(
        &mut self,
        notice: Result<Arc<Notice>, broadcast::error::RecvError>,
    ) -> Next {
        match notice.as_deref() {
            Ok(Notice::Challenge { json }) => self.send(json).await,
            Ok(Notice::Seated {
                code,
                color,
                secret,
            }) => {
                let seat = seat(code, *color, secret);
                if self.plays_another_game().await {
                    // The seat is the player's to take when they choose; the game they play
                    // is not taken from under them.
                    let msg = ServerMsg::Seat {
                        code: seat.code,
                        color: Some(seat.color),
                        secret: seat.secret,
                    };
                    return self.send(&msg.to_json()).await;
                }
                self.seated(Ok(seat)).await
            }
            Err(broadcast::error::RecvError::Lagged(_)) => self.send_challenges().await,
            Err(broadcast::error::RecvError::Closed) => {
                self.notices = None;
                Next::Continue
            }
        }
    }

    /// Whether this connection is seated in a game being played (an open game's creator only
    /// waits, and takes the accepted game).
    async fn plays_another_game(&mut self) -> bool {
        let hub = self.hub.clone();
        let Some(code) = self
            .follow
            .as_ref()
            .filter(|f| f.seat.is_some())
            .map(|f| f.code.clone())
        else {
            return false;
        };
        match hub.store().game(&code).await {
            Ok(Some(game)) => game.status == Status::Playing,
            // Not known to be over: left alone.
            _ => true,
        }
    }
}

fn seat(code: &str, color: Color, secret: &str) -> Seat {
    Seat {
        code: code.to_string(),
        color,
        secret: secret.to_string(),
    }
}
