//! The pump: what the link's thread heard, taken in each frame. Messages outside a game change
//! the connection's state; a game's go to the table half (`super::table`).

use super::link::FromLink;
use super::seats::Seat;
use super::state::{LinkState, Online, OnlineFiles, OnlineNotice};
use super::table::{Following, OnlineTable, Table, game_message};
use crate::news::News;
use bevy::prelude::*;
use khet_protocol::{ChallengeInfo, ChallengeStatus, ClientMsg, ServerMsg};

pub(super) fn pump(
    mut online: ResMut<Online>,
    mut table: Option<ResMut<OnlineTable>>,
    mut files: ResMut<OnlineFiles>,
    mut notice: ResMut<OnlineNotice>,
    mut news: MessageWriter<News>,
    mut t: Table,
    mut commands: Commands,
) {
    let mut fresh = None;
    for event in online.link.drain() {
        match event {
            FromLink::Connected(player) => {
                news.write(News::Online(format!(
                    "Online: connected to {} as {} ({}).",
                    online.server,
                    player.name,
                    player.rating_text()
                )));
                online.state = LinkState::Connected(player);
                // Take up what we follow again, from the last event we have.
                match table.as_deref().or(fresh.as_ref()) {
                    Some(tab) => online.send(tab.follow_again()),
                    None => online.send(ClientMsg::Lobby),
                }
                online.send(ClientMsg::Leaderboard);
                online.send(ClientMsg::MyGames);
                online.send(ClientMsg::Challenges);
            }
            FromLink::Lost(why) => {
                if !matches!(online.state, LinkState::Lost(_)) {
                    news.write(News::Online(format!(
                        "Online: connection lost ({why}); reconnecting…"
                    )));
                }
                online.state = LinkState::Lost(why);
            }
            FromLink::Failed(why) => {
                news.write(News::Online(format!("Online: {why}")));
                notice.0 = Some(why);
                commands.remove_resource::<Online>();
                return;
            }
            FromLink::Msg(msg) => {
                if let Some(game) = message(*msg, &mut online, &mut files, &mut news) {
                    let mut following = Following {
                        live: table.as_deref_mut(),
                        fresh: &mut fresh,
                    };
                    game_message(
                        game,
                        &mut online,
                        &mut following,
                        &mut files,
                        &mut news,
                        &mut t,
                    );
                }
            }
        }
    }
    if let Some(fresh) = fresh {
        commands.insert_resource(fresh);
    }
}

/// A message from the server outside a game, taken in here; a game's is handed back, for the
/// table half.
fn message(
    msg: ServerMsg,
    online: &mut Online,
    files: &mut OnlineFiles,
    news: &mut MessageWriter<News>,
) -> Option<ServerMsg> {
    match msg {
        ServerMsg::Lobby { games } => online.lobby = games,
        ServerMsg::Leaderboard { players } => online.leaders = players,
        ServerMsg::MyGames { games } => online.mine = games,
        ServerMsg::Challenges { challenges } => online.challenges = challenges,
        ServerMsg::Challenge { challenge } => challenged(online, challenge, news),
        ServerMsg::Tournament { tournament } => online.tournament = Some(tournament),
        ServerMsg::Tournaments { tournaments } => online.tournaments = tournaments,
        ServerMsg::Seat { code, secret, .. } => {
            files.file.remember(Seat {
                server: online.server.clone(),
                code,
                secret,
                over: false,
            });
            files.save(news);
        }
        ServerMsg::Welcome { .. } | ServerMsg::Pong => {}
        game => return Some(game),
    }
    None
}

/// A challenge of the player's as it stands now: kept while it waits, told when answered.
fn challenged(online: &mut Online, challenge: ChallengeInfo, news: &mut MessageWriter<News>) {
    online.challenges.retain(|c| c.id != challenge.id);
    let told = match challenge.status {
        ChallengeStatus::Pending => {
            online.challenges.push(challenge);
            return;
        }
        ChallengeStatus::Accepted => "accepted",
        ChallengeStatus::Declined => "declined",
        ChallengeStatus::Withdrawn => "withdrawn",
        ChallengeStatus::Expired => "expired",
    };
    news.write(News::Online(format!(
        "Online: the challenge of {} to {} was {told}.",
        challenge.from.name, challenge.to.name
    )));
}

/// On coming back to the Online screen, what it lists is asked for again: the player's games (one
/// may have ended, or an opponent moved, meanwhile), the tournaments, and the tournament opened
/// (a round may have been paired).
pub(super) fn ask_again(online: Option<Res<Online>>) {
    let Some(online) = online else {
        return;
    };
    online.send(ClientMsg::MyGames);
    online.send(ClientMsg::Tournaments);
    if let Some(t) = &online.tournament {
        online.send(ClientMsg::Tournament {
            code: t.code.clone(),
        });
    }
}

/// How often the Online screen asks again for the player's games and the tournaments while it
/// is shown.
const GAMES_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// How often it asks again for a tournament not over while it is shown: a round paired, a
/// result in, seen without a click (the tournament's page asks every 2 s).
const TOURNAMENT_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// When each list was last asked for while the screen was shown.
#[derive(Default)]
pub(super) struct Asked {
    games: Option<bevy::platform::time::Instant>,
    tournament: Option<bevy::platform::time::Instant>,
}

/// While the Online screen is shown, what changes without the player is asked for again now
/// and then (the first time is [`ask_again`]'s, on entering).
pub(super) fn ask_while_shown(
    online: Res<Online>,
    mut asked: Local<Asked>,
    mut frames: ResMut<crate::frames::NextFrame>,
) {
    let now = bevy::platform::time::Instant::now();
    let due = |at: &mut Option<bevy::platform::time::Instant>, every| {
        let due = at.is_some_and(|t| now.duration_since(t) >= every);
        if due || at.is_none() {
            *at = Some(now);
        }
        due
    };
    if due(&mut asked.games, GAMES_EVERY) {
        online.send(ClientMsg::MyGames);
        online.send(ClientMsg::Tournaments);
    }
    frames.within(GAMES_EVERY);
    let open = online
        .tournament
        .as_ref()
        .filter(|t| t.status != khet_protocol::TournamentStatus::Finished);
    if let Some(t) = open {
        if due(&mut asked.tournament, TOURNAMENT_EVERY) {
            online.send(ClientMsg::Tournament {
                code: t.code.clone(),
            });
        }
        frames.within(TOURNAMENT_EVERY);
    }
}
