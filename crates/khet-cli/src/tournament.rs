//! `khet-engine online --tournament CODE`: the engine joins a tournament and plays every game it
//! is paired in, then exits when the tournament ends, so that a club can fill a table with
//! computers at chosen levels. It asks the server for the tournament every half second while it
//! waits for a pairing (as a player glances at the pairings board), and plays each game as
//! `online` plays one, riding out a lost connection the same way.

use crate::online::{self, Online};
use crate::out::{Failure, Out};
use khet_protocol::client::{ClientError, Connection};
use khet_protocol::{ClientMsg, Refusal, ServerMsg, TournamentStatus, TournamentView, check_code};
use std::collections::HashSet;
use std::io::Write;
use std::time::Duration;

/// How long the engine waits between two looks at the pairings.
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// How long an answer may take before the connection is taken for lost.
const ANSWER_WAIT: Duration = Duration::from_secs(30);

/// What the server answered a tournament's message: the tournament, or the refusal.
type Answer = Result<TournamentView, (Refusal, String)>;

/// Sends `msg` and waits for the tournament it is answered with, or its refusal.
fn ask(conn: &mut Connection, msg: &ClientMsg) -> Result<Answer, ClientError> {
    conn.send(msg)?;
    loop {
        match conn.recv(ANSWER_WAIT)? {
            Some(ServerMsg::Tournament { tournament }) => return Ok(Ok(*tournament)),
            Some(ServerMsg::Refused { code, reason }) => return Ok(Err((code, reason))),
            Some(_) => {}
            None => return Err(ClientError::Connection("the server did not answer".into())),
        }
    }
}

/// Joins tournament `code` and plays its games; prints `tournament CODE joined`, then for each
/// game `game CODE result RESULT`, and at the end the engine's place and points.
pub fn play(online: &Online, code: &str, out: &mut Out<impl Write>) -> Result<(), Failure> {
    let code = check_code(code).map_err(Failure::Input)?;
    let identity = online::identity(&online.identity)?;
    let mut conn = online::connect(&online.server, &identity, &online.name, false)?;
    let me = conn.player.id.clone();
    let join = ClientMsg::JoinTournament { code: code.clone() };
    match ask(&mut conn, &join).map_err(online::refused)? {
        Ok(_) => {}
        // In already (a restarted bot): it plays on.
        Err((Refusal::NotNow, why)) if why.contains("already") => {}
        Err((_, why)) => return Err(Failure::Input(why)),
    }
    out.now(format_args!("tournament {code} joined"))?;
    if let online::Strength::Level(level) = online.strength {
        out.now(format_args!("level {level} rating {}", level.rating()))?;
    }
    let mut played = HashSet::new();
    loop {
        let view = match ask(&mut conn, &ClientMsg::Tournament { code: code.clone() }) {
            Ok(Ok(view)) => view,
            Ok(Err((_, why))) => return Err(Failure::Input(why)),
            Err(e) if e.is_transient() => {
                eprintln!("{e}; reconnecting");
                conn = online::connect(&online.server, &identity, &online.name, true)?;
                continue;
            }
            Err(e) => return Err(online::refused(e)),
        };
        if view.status == TournamentStatus::Finished {
            let place = view.players.iter().position(|p| p.id == me);
            match place {
                Some(n) => out.line(format_args!(
                    "tournament over: place {} of {}, {} points",
                    n + 1,
                    view.players.len(),
                    view.players[n].points
                ))?,
                None => out.line(format_args!("tournament over"))?,
            }
            conn.close();
            return Ok(());
        }
        let next = view
            .game_for(&me)
            .and_then(|p| p.code.clone())
            .filter(|c| !played.contains(c));
        let Some(game) = next else {
            // Nothing to play yet: the next round, or the others' games, first.
            std::thread::sleep(LOOK_EVERY);
            continue;
        };
        conn.send(&ClientMsg::Join { code: game.clone() })
            .map_err(online::refused)?;
        let secret = loop {
            match conn.recv(ANSWER_WAIT).map_err(online::refused)? {
                Some(ServerMsg::Seat { code, secret, .. }) if code == game => break secret,
                Some(ServerMsg::Refused { reason, .. }) => {
                    return Err(Failure::Input(format!("game {game}: {reason}")));
                }
                Some(_) => {}
                None => return Err(Failure::Input("the server gave no seat".into())),
            }
        };
        let (back, result) =
            online::play_seat(conn, online, identity.clone(), game.clone(), secret)?;
        conn = back;
        out.now(format_args!("game {game} result {result}"))?;
        played.insert(game);
        // Stop following the game, and let the answers to what was sent during it (a claim
        // or an offer the end overtook, refused) go by: the server answers in order, so what
        // comes after the pong is the tournament's.
        conn.send(&ClientMsg::Leave).map_err(online::refused)?;
        conn.send(&ClientMsg::Ping).map_err(online::refused)?;
        loop {
            match conn.recv(ANSWER_WAIT).map_err(online::refused)? {
                Some(ServerMsg::Pong) => break,
                Some(_) => {}
                None => return Err(Failure::Input("the server did not answer".into())),
            }
        }
    }
}
