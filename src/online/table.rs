//! The table half of online play: the game followed ([`OnlineTable`]: the server's game as a
//! [`Mirror`], the clocks as received, the opponent's absence), brought to the table each frame
//! (the opponent's moves played in turn, the server's result, the whole game again if they
//! disagree), the table's buttons and the player's moves forwarded, the server's clocks shown.

use super::state::{Online, OnlineFiles};
use crate::frames::NextFrame;
use crate::news::News;
use crate::screen::Screen;
use crate::table::clock::{Clocks, until_shown_change};
use crate::table::spec::Resume;
use crate::table::{
    GameEnded, Match, MoveApplied, MoveRequested, NewGameRequested, NewGameSpec, Show, TableAction,
    Undone,
};
use bevy::platform::time::Instant;
use bevy::prelude::*;
use khet_engine::{Color as Side, Mode, Player, Setup, TimeControl};
use khet_protocol::{
    Applied, ClientMsg, GameEvent, GameView, Mirror, MirrorError, Refusal, ServerMsg, Status,
};
use std::time::Duration;

/// The player's opponent's absence as the server last told it.
#[derive(Clone, Copy, Debug)]
pub struct Absence {
    pub connected: [bool; 2],
    pub gone_ms: [Option<u64>; 2],
    pub grace_ms: u64,
    pub at: Instant,
}

impl Absence {
    /// How long `side` has been gone now.
    pub fn gone(&self, side: Side) -> Option<Duration> {
        self.gone_ms[side.index()].map(|ms| Duration::from_millis(ms) + self.at.elapsed())
    }
}

/// The online game the table shows (played or watched).
#[derive(Resource)]
pub struct OnlineTable {
    pub code: String,
    /// The seat's secret; none when watching.
    pub secret: Option<String>,
    /// The server's game.
    pub mirror: Mirror,
    /// When the mirror's clocks were received.
    pub clocks_at: Instant,
    pub absence: Option<Absence>,
    /// Whether the table has been given the game.
    on_table: bool,
    /// The file the table autosaves the game in, kept when the table is given the game again
    /// (after a resync), so that one game stays one file.
    file: Option<std::path::PathBuf>,
}

impl OnlineTable {
    /// The player's side; none when watching.
    pub fn you(&self) -> Option<Side> {
        self.mirror.you
    }

    pub(super) fn follow_again(&self) -> ClientMsg {
        let since = Some(self.mirror.event);
        match &self.secret {
            Some(secret) => ClientMsg::Play {
                code: self.code.clone(),
                secret: secret.clone(),
                since,
            },
            None => ClientMsg::Watch {
                code: self.code.clone(),
                since,
            },
        }
    }
}

/// Everything the pump may change at the table.
#[derive(bevy::ecs::system::SystemParam)]
pub(super) struct Table<'w> {
    m: Option<ResMut<'w, Match>>,
    show: ResMut<'w, Show>,
    new_game: MessageWriter<'w, NewGameRequested>,
    undone: MessageWriter<'w, Undone>,
    go: ResMut<'w, NextState<Screen>>,
}

/// The online game followed: the table's resource, or one made in this frame (inserted at its
/// end), so that the messages after a first sync find it.
pub(super) struct Following<'a> {
    pub(super) live: Option<&'a mut OnlineTable>,
    pub(super) fresh: &'a mut Option<OnlineTable>,
}

impl Following<'_> {
    fn get(&mut self) -> Option<&mut OnlineTable> {
        match self.fresh {
            Some(f) => Some(f),
            None => self.live.as_deref_mut(),
        }
    }

    fn set(&mut self, tab: OnlineTable) {
        match (&mut self.live, self.fresh.is_some()) {
            (Some(live), false) => **live = tab,
            _ => *self.fresh = Some(tab),
        }
    }
}

/// A message from the server about the game followed (the connection half hands them on).
pub(super) fn game_message(
    msg: ServerMsg,
    online: &mut Online,
    table: &mut Following,
    files: &mut OnlineFiles,
    news: &mut MessageWriter<News>,
    t: &mut Table,
) {
    match msg {
        ServerMsg::Sync { event, you, game } => {
            let code = game.code.clone();
            let secret = you.and_then(|_| files.file.seat(&code).map(|s| s.secret.clone()));
            match Mirror::from_sync(event, you, game) {
                Ok(mirror) => {
                    online.waiting = (mirror.view.status == Status::Open).then(|| code.clone());
                    let file = table
                        .get()
                        .filter(|t| t.code == code)
                        .and_then(|t| t.file.clone());
                    let tab = OnlineTable {
                        code,
                        secret,
                        clocks_at: Instant::now(),
                        absence: None,
                        on_table: false,
                        file,
                        mirror,
                    };
                    start_table(&tab, t);
                    let on_table = tab.mirror.view.status != Status::Open;
                    table.set(OnlineTable { on_table, ..tab });
                }
                Err(e) => {
                    news.write(News::Online(format!("Online: {e}")));
                }
            }
        }
        ServerMsg::Event { n, event } => {
            let Some(tab) = table.get() else {
                return;
            };
            match tab.mirror.apply(n, &event) {
                Ok(Applied::Changed(event)) => {
                    tab.clocks_at = Instant::now();
                    game_event(event, tab, online, files, news, t);
                }
                Ok(Applied::Duplicate) => {}
                Err(MirrorError::Gap { .. }) => online.send(tab.follow_again()),
                Err(e) => {
                    news.write(News::Online(format!("Online: {e}")));
                }
            }
        }
        ServerMsg::Presence {
            connected,
            gone_ms,
            grace_ms,
            clocks,
        } => {
            if let Some(tab) = table.get() {
                tab.mirror.set_clocks(clocks);
                tab.clocks_at = Instant::now();
                tab.absence = Some(Absence {
                    connected,
                    gone_ms,
                    grace_ms,
                    at: Instant::now(),
                });
            }
        }
        ServerMsg::Refused { code, reason } => {
            news.write(News::Online(format!("The server refused: {reason}")));
            // The table and the server disagree about the game: take the server's.
            if matches!(
                code,
                Refusal::Stale | Refusal::NotYourTurn | Refusal::Illegal
            ) && let Some(tab) = table.get()
            {
                online.send(match tab.follow_again() {
                    ClientMsg::Play { code, secret, .. } => ClientMsg::Play {
                        code,
                        secret,
                        since: None,
                    },
                    other => other,
                });
            }
        }
        ServerMsg::Lobby { .. }
        | ServerMsg::Leaderboard { .. }
        | ServerMsg::Seat { .. }
        | ServerMsg::Welcome { .. }
        | ServerMsg::Pong
        // Views are for pages, which ask for them; the game keeps its own mirror.
        | ServerMsg::View { .. }
        // Tournaments are the Online screen's, not the table's.
        | ServerMsg::Tournament { .. }
        // The Online screen's (the pump keeps them).
        | ServerMsg::Challenges { .. }
        | ServerMsg::Challenge { .. }
        | ServerMsg::MyGames { .. }
        | ServerMsg::Tournaments { .. } => {}
    }
}

fn game_event(
    event: GameEvent,
    tab: &mut OnlineTable,
    online: &mut Online,
    files: &mut OnlineFiles,
    news: &mut MessageWriter<News>,
    t: &mut Table,
) {
    match event {
        GameEvent::Started { .. } => {
            online.waiting = None;
            if !tab.on_table {
                start_table(tab, t);
                tab.on_table = true;
            }
        }
        GameEvent::DrawOffered { by } => {
            if let Some(m) = t.m.as_mut() {
                m.draw_offer = Some(by);
            }
            news.write(News::DrawOffered(by));
        }
        GameEvent::DrawDeclined { by } => {
            if let Some(m) = t.m.as_mut() {
                m.draw_offer = None;
            }
            news.write(News::DrawDeclined { by: by.other() });
        }
        GameEvent::TakebackRequested { by } => {
            news.write(News::Online(format!(
                "{by} asks to take back their last move."
            )));
        }
        GameEvent::TakebackDeclined { by } => {
            news.write(News::Online(format!(
                "{} declines {by}'s take-back.",
                by.other()
            )));
        }
        GameEvent::TakenBack { plies, .. } => {
            if let Some(m) = t.m.as_mut() {
                let mut taken = 0;
                while m.game.turns().len() > plies as usize && m.game.undo().is_ok() {
                    taken += 1;
                }
                m.draw_offer = None;
                *t.show = Show::at_rest(&m.game, t.show.landings);
                if taken > 0 {
                    t.undone.write(Undone { plies: taken });
                    news.write(News::TakenBack {
                        plies: taken,
                        to_move: m.game.side_to_move(),
                    });
                }
            }
        }
        GameEvent::Ended { .. } => {
            if files.file.finish(&tab.code) {
                files.save(news);
            }
        }
        GameEvent::Moved { .. } => {}
    }
}

/// The table's game from the server's: the start, the moves so far, the clocks, the players (the
/// player a person, the opponent online; both online when watching).
fn table_spec(tab: &OnlineTable) -> NewGameSpec {
    let view = &tab.mirror.view;
    let start = *tab.mirror.game.start();
    let setup = Setup {
        name: view.setup.clone(),
        edition: start.edition(),
        description: String::new(),
        position: start,
    };
    let players = Side::ALL.map(|side| {
        if tab.you() == Some(side) {
            Player::Person
        } else {
            Player::Online
        }
    });
    let clock = view.clock.map(|c| {
        TimeControl::new(
            u32::try_from(c.initial_ms / 60_000).unwrap_or(u32::MAX),
            u32::try_from(c.increment_ms / 1000).unwrap_or(u32::MAX),
        )
    });
    let remaining = tab
        .mirror
        .clocks()
        .map(|c| c.remaining_ms.map(Duration::from_millis));
    let mut game = tab.mirror.game.clone();
    if let Some(result) = view.result {
        game.end_with(result);
    }
    NewGameSpec {
        setup,
        rules: start.rules(),
        players,
        mode: if view.rated {
            Mode::Tournament
        } else {
            Mode::Casual
        },
        clock,
        resume: Some(Resume {
            game,
            remaining,
            file: tab.file.clone(),
            date: crate::files::now_utc(),
        }),
        lesson: false,
        online: true,
    }
}

/// Puts the server's game on the table (a new game, or the same one again after a resync).
fn start_table(tab: &OnlineTable, t: &mut Table) {
    if tab.mirror.view.status == Status::Open {
        return;
    }
    t.new_game.write(NewGameRequested(table_spec(tab)));
    t.go.set(Screen::Playing);
}

/// The table's buttons, forwarded: the server decides.
pub(super) fn forward_actions(
    mut actions: MessageReader<TableAction>,
    online: Option<Res<Online>>,
    tab: Option<Res<OnlineTable>>,
    m: Option<Res<Match>>,
) {
    let (Some(online), Some(tab), Some(m)) = (online, tab, m) else {
        actions.clear();
        return;
    };
    if !m.spec.online {
        actions.clear();
        return;
    }
    for action in actions.read() {
        let offer = tab.mirror.view.draw_offer;
        let msg = match action {
            TableAction::OfferDraw if offer.is_some() && offer != tab.you() => {
                ClientMsg::AcceptDraw
            }
            TableAction::OfferDraw => ClientMsg::OfferDraw,
            TableAction::AcceptDraw => ClientMsg::AcceptDraw,
            TableAction::DeclineDraw => ClientMsg::DeclineDraw,
            TableAction::ClaimDraw => ClientMsg::ClaimRepetition,
            TableAction::Resign => ClientMsg::Resign,
            TableAction::Undo if m.spec.mode == Mode::Casual => ClientMsg::RequestTakeback,
            _ => continue,
        };
        if tab.you().is_some() {
            online.send(msg);
        }
    }
}

/// The player's own moves go to the server as they are played at the table.
pub(super) fn send_moves(
    mut applied: MessageReader<MoveApplied>,
    online: Option<Res<Online>>,
    tab: Option<Res<OnlineTable>>,
    m: Option<Res<Match>>,
) {
    let (Some(tab), Some(m)) = (tab, m) else {
        applied.clear();
        return;
    };
    for MoveApplied { turn, .. } in applied.read() {
        if Some(turn.color) != tab.you() || !m.spec.online {
            continue;
        }
        let ply = m.game.turns().len().saturating_sub(1);
        if let Some(online) = &online {
            online.send(ClientMsg::Move {
                ply: u32::try_from(ply).unwrap_or(u32::MAX),
                mv: turn.mv.to_string(),
            });
        }
    }
}

/// Brings the table to the server's game: the next move the server has, once the table is at
/// rest; the server's result once every move is shown; the whole game again if they disagree.
pub(super) fn reconcile(
    mut tab: ResMut<OnlineTable>,
    mut m: ResMut<Match>,
    show: Res<Show>,
    mut moves: MessageWriter<MoveRequested>,
    mut ended: MessageWriter<GameEnded>,
    mut news: MessageWriter<News>,
    mut new_game: MessageWriter<NewGameRequested>,
) {
    if !m.spec.online || !tab.on_table || !show.is_idle() {
        return;
    }
    if m.file.is_some() && tab.file != m.file {
        tab.file.clone_from(&m.file);
    }
    let server = tab.mirror.game.turns();
    let here = m.game.turns();
    let common = server
        .iter()
        .zip(here)
        .take_while(|(a, b)| a.mv == b.mv)
        .count();
    // The table may be one move ahead: the player's own, on its way to the server.
    let own_ahead = here.len() == server.len() + 1
        && common == server.len()
        && here.last().map(|t| t.color) == tab.you();
    if common < here.len() && !own_ahead {
        new_game.write(NewGameRequested(table_spec(&tab)));
        return;
    }
    if let Some(next) = server.get(here.len()) {
        moves.write(MoveRequested(next.mv));
        return;
    }
    if let Some(result) = tab.mirror.view.result
        && m.game.result().is_none()
        && here.len() == server.len()
    {
        m.game.end_with(result);
        m.draw_offer = None;
        news.write(News::Ended(result));
        ended.write(GameEnded(result));
    }
}

/// The clocks shown are the server's, counted down from when they were received.
pub(super) fn show_clocks(
    tab: Res<OnlineTable>,
    clocks: Option<ResMut<Clocks>>,
    mut frames: ResMut<NextFrame>,
) {
    let (Some(mut clocks), Some(server)) = (clocks, tab.mirror.clocks()) else {
        return;
    };
    let elapsed = u64::try_from(tab.clocks_at.elapsed().as_millis()).unwrap_or(u64::MAX);
    for side in Side::ALL {
        clocks.remaining[side.index()] = Duration::from_millis(server.left(side, elapsed));
    }
    if let Some(side) = server.running {
        frames.within(until_shown_change(clocks.left(side)));
    }
}

/// A game of another kind on the table ends the following of the online one (which goes on at
/// the server).
pub(super) fn leave_on_new_game(
    mut new_games: MessageReader<NewGameRequested>,
    online: Option<Res<Online>>,
    tab: Option<Res<OnlineTable>>,
    mut commands: Commands,
) {
    if new_games.read().any(|NewGameRequested(spec)| !spec.online) && tab.is_some() {
        if let Some(online) = online {
            online.send(ClientMsg::Leave);
            online.send(ClientMsg::Lobby);
        }
        commands.remove_resource::<OnlineTable>();
    }
}

/// The server's view of a game, for the screen.
pub fn describe(view: &GameView) -> String {
    let names = view.players.each_ref().map(|p| {
        p.as_ref().map_or("—".to_string(), |p| {
            format!("{} ({})", p.name, p.rating_text())
        })
    });
    let clock = view.clock.map_or("no clock".into(), |c| c.to_string());
    let rated = if view.rated { "rated" } else { "casual" };
    format!(
        "{}: {} v {}, {clock}, {rated}",
        view.setup, names[0], names[1]
    )
}
