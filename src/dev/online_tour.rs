//! `khet --online-tour DIR --server URL`: online play in the real window, for its end-to-end
//! test and the README's pictures. Two bots (threads speaking the protocol, as another player's
//! game would) open listed games; the player connects and the Online screen shows the lobby
//! (`online-lobby.png`); the player accepts Bea's game, and both play two moves each at the
//! table with the server's clocks running (`online-game.png`); then Bea's connection drops and
//! the table shows her gone with the claim's countdown (`online-gone.png`).

use super::script::{Autoplay, STEP_DEADLINE, finish, shoot};
use crate::online::{LinkState, Online, OnlineNotice, OnlineRequest, OnlineTable};
use crate::screen::Screen;
use crate::table::{Match, MoveRequested, Show};
use bevy::prelude::*;
use khet_engine::{Color as Side, Limits, Searcher};
use khet_protocol::client::{Backoff, Connection};
use khet_protocol::{ClientMsg, ClockSpec, Mirror, NewGame, SeatChoice, ServerMsg};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct OnlineTourPlugin {
    pub dir: PathBuf,
    pub server: String,
}

#[derive(Resource)]
struct Tour {
    auto: Autoplay,
    server: String,
    /// Set to make Bea's connection drop.
    bea_leaves: Arc<AtomicBool>,
    bea_code: Arc<Mutex<Option<String>>>,
    /// What each bot did, in order, for the report when a step never comes.
    bots: Vec<(&'static str, BotLog)>,
}

/// A bot's doings, shared with its thread: each with how many times in a row it happened.
type BotLog = Arc<Mutex<Vec<(String, u32)>>>;

fn note(log: &BotLog, what: String) {
    if let Ok(mut log) = log.lock() {
        match log.last_mut() {
            Some((last, n)) if *last == what => *n += 1,
            _ => log.push((what, 1)),
        }
    }
}

/// What step `step` of [`run`] waits for, for the report when it never comes.
fn waits_for(step: usize) -> &'static str {
    match step {
        1 => "the link to be connected and the lobby to list both bots' games",
        3 => "Bea's game's code",
        4 => "the game at the table, four plies played",
        6 => "Bea shown gone for more than 3 s",
        _ => "a screenshot or the end",
    }
}

impl Plugin for OnlineTourPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(Tour {
            auto: Autoplay::new(self.dir.clone()),
            server: self.server.clone(),
            bea_leaves: Arc::new(AtomicBool::new(false)),
            bea_code: Arc::default(),
            bots: Vec::new(),
        })
        .add_systems(
            Startup,
            |mut offer: ResMut<crate::learn::progress::TutorialOffer>,
             mut settings: ResMut<crate::settings::Settings>,
             tour: Res<Tour>| {
                offer.0 = false;
                settings.quality = super::autoplay::quality_from_env();
                settings.online_name = "Ada".into();
                settings.online_server.clone_from(&tour.server);
            },
        )
        .add_systems(Update, run.in_set(crate::GameSet::Input));
    }
}

/// A bot: opens `new` as `name`, answers each move with a shallow search after a short pause,
/// and drops its connection when `leave` is set. It connects as another player's game does,
/// trying again while the connection fails for a reason that may pass (until
/// [`STEP_DEADLINE`]), and writes what it does and hears in `log`.
fn bot(
    server: String,
    name: &'static str,
    n: u64,
    new: NewGame,
    leave: Arc<AtomicBool>,
    code: Arc<Mutex<Option<String>>>,
    log: BotLog,
) {
    std::thread::spawn(move || {
        let identity = format!("{:032x}", 0xB07_0000 + n);
        let began = Instant::now();
        let mut backoff = Backoff::default();
        let mut conn = loop {
            match Connection::open(&server, &identity, name) {
                Ok(conn) => break conn,
                Err(e) if e.is_transient() && began.elapsed() < STEP_DEADLINE => {
                    note(&log, format!("connect failed, trying again: {e}"));
                    std::thread::sleep(backoff.next_wait());
                }
                Err(e) => {
                    error!("online tour: {name} cannot connect: {e}");
                    note(&log, format!("cannot connect: {e}"));
                    return;
                }
            }
        };
        note(
            &log,
            format!("connected after {:.1} s", began.elapsed().as_secs_f64()),
        );
        if let Err(e) = conn.send(&ClientMsg::Create(new)) {
            note(&log, format!("create not sent: {e}"));
        }
        let mut mirror: Option<Mirror> = None;
        let mut sent = None;
        while !leave.load(Ordering::Relaxed) {
            match conn.recv(Duration::from_millis(50)) {
                Ok(Some(ServerMsg::Seat { code: c, .. })) => {
                    note(&log, format!("seated in {c}"));
                    if let Ok(mut code) = code.lock() {
                        *code = Some(c);
                    }
                }
                Ok(Some(ServerMsg::Sync { event, you, game })) => {
                    mirror = Mirror::from_sync(event, you, game).ok();
                    note(&log, format!("synced at event {event}"));
                }
                Ok(Some(ServerMsg::Event { n, event })) => {
                    if let Some(m) = mirror.as_mut() {
                        let _ = m.apply(n, &event);
                    }
                }
                Ok(Some(ServerMsg::Refused { code, reason })) => {
                    note(&log, format!("refused ({code:?}): {reason}"));
                }
                Ok(_) => {}
                Err(e) => {
                    note(&log, format!("connection ended: {e}"));
                    return;
                }
            }
            if let Some(m) = &mirror
                && m.my_turn()
                && sent != Some(m.game.turns().len())
            {
                std::thread::sleep(Duration::from_millis(400));
                let best = Searcher::new(1 << 14).search_game(&m.game, Limits::depth(2), |_| {});
                if let Some(mv) = best.best {
                    let ply = m.game.turns().len();
                    let _ = conn.send(&ClientMsg::Move {
                        ply: ply as u32,
                        mv: mv.to_string(),
                    });
                    sent = Some(ply);
                }
            }
        }
        // Gone without a goodbye, as a closed laptop is.
        note(&log, "left without a goodbye".into());
        drop(conn);
    });
}

/// Says what the tour waited for at its deadline, and how everything it waits on stands.
fn give_up(t: &Tour, waited: Duration, online: Option<&Online>, notice: &OnlineNotice) {
    let link = online.map_or_else(
        || "no connection (none asked for, or it failed)".to_string(),
        |o| format!("{:?}", o.state),
    );
    let lobby = online.map_or(0, |o| o.lobby.len());
    let bots: Vec<String> = t
        .bots
        .iter()
        .map(|(name, log)| {
            let log = log.lock().map_or_else(
                |_| String::new(),
                |log| {
                    let said: Vec<String> = log
                        .iter()
                        .map(|(what, n)| match n {
                            1 => what.clone(),
                            n => format!("{what} (×{n})"),
                        })
                        .collect();
                    said.join("; ")
                },
            );
            format!("{name}: [{log}]")
        })
        .collect();
    error!(
        "online tour: gave up at step {} after {:.0} s (deadline {} s) waiting for {}; link: \
         {link}; lobby: {lobby} games; notice: {:?}; bots: {}",
        t.auto.step,
        waited.as_secs_f64(),
        STEP_DEADLINE.as_secs(),
        waits_for(t.auto.step),
        notice.0,
        bots.join(", ")
    );
}

fn run(
    mut tour: ResMut<Tour>,
    online: Option<Res<Online>>,
    notice: Res<OnlineNotice>,
    table: Option<Res<OnlineTable>>,
    m: Option<Res<Match>>,
    show: Res<Show>,
    screen: Res<State<Screen>>,
    mut requests: MessageWriter<OnlineRequest>,
    mut moves: MessageWriter<MoveRequested>,
    mut go: ResMut<NextState<Screen>>,
    mut exit: MessageWriter<AppExit>,
    mut frames: ResMut<crate::frames::NextFrame>,
    mut commands: Commands,
) {
    // The script drives the game frame by frame, as the autoplay's does: it never lets the
    // loop rest, or it would wait on the heartbeat for input nobody gives.
    frames.now();
    let t = &mut *tour;
    t.auto.frames += 1;
    if let Some(waited) = t.auto.overdue() {
        give_up(t, waited, online.as_deref(), &notice);
        exit.write(AppExit::error());
        return;
    }
    if t.auto.wait > 0 {
        t.auto.wait -= 1;
        return;
    }
    let connected = online
        .as_ref()
        .is_some_and(|o| matches!(o.state, LinkState::Connected(_)));
    match t.auto.step {
        0 => {
            t.auto.started = Some(Instant::now());
            let listed = |clock, rated, color| NewGame {
                setup: "khet2/classic".into(),
                clock: Some(clock),
                color,
                rated,
                listed: true,
            };
            let (bea, cy) = (BotLog::default(), BotLog::default());
            t.bots = vec![("Bea", bea.clone()), ("Cy", cy.clone())];
            bot(
                t.server.clone(),
                "Bea",
                1,
                listed(ClockSpec::minutes(5, 3), true, SeatChoice::Red),
                t.bea_leaves.clone(),
                t.bea_code.clone(),
                bea,
            );
            bot(
                t.server.clone(),
                "Cy",
                2,
                listed(ClockSpec::minutes(3, 2), false, SeatChoice::Random),
                Arc::new(AtomicBool::new(false)),
                Arc::default(),
                cy,
            );
            requests.write(OnlineRequest::Connect);
            go.set(Screen::Online);
            t.auto.step = 1;
        }
        1 if connected && online.as_ref().is_some_and(|o| o.lobby.len() >= 2) => {
            t.auto.step = 2;
            t.auto.wait = 20;
        }
        2 => {
            let lobby = online.as_ref().map_or(0, |o| o.lobby.len());
            shoot(
                &mut t.auto,
                "online-lobby",
                format!("lobby {lobby}\n"),
                &mut commands,
            );
            t.auto.step = 3;
            t.auto.wait = 10;
        }
        3 => {
            if let Some(code) = t.bea_code.lock().ok().and_then(|c| c.clone()) {
                requests.write(OnlineRequest::Send(ClientMsg::Join { code }));
                t.auto.step = 4;
            }
        }
        4 if *screen.get() == Screen::Playing && table.is_some() => {
            let (Some(m), true) = (m.as_ref(), show.is_idle()) else {
                return;
            };
            let turns = m.game.turns().len();
            if turns >= 4 {
                t.auto.step = 5;
                t.auto.wait = 30;
            } else if m.game.side_to_move() == Side::Silver
                && m.spec.online
                && table
                    .as_ref()
                    .is_some_and(|t| t.mirror.game.turns().len() == turns)
            {
                let best = Searcher::new(1 << 14).search_game(&m.game, Limits::depth(2), |_| {});
                if let Some(mv) = best.best {
                    moves.write(MoveRequested(mv));
                    t.auto.wait = 5;
                }
            }
        }
        5 => {
            let clocks = table
                .as_ref()
                .and_then(|t| t.mirror.clocks())
                .map_or("none".into(), |c| format!("{:?}", c.remaining_ms));
            shoot(
                &mut t.auto,
                "online-game",
                format!("clocks {clocks}\n"),
                &mut commands,
            );
            t.bea_leaves.store(true, Ordering::Relaxed);
            t.auto.step = 6;
            t.auto.wait = 10;
        }
        6 if table
            .as_ref()
            .and_then(|t| t.absence)
            .and_then(|a| a.gone(Side::Red))
            .is_some_and(|g| g > Duration::from_secs(3)) =>
        {
            t.auto.step = 7;
            t.auto.wait = 10;
        }
        7 => {
            shoot(&mut t.auto, "online-gone", "gone\n".into(), &mut commands);
            t.auto.step = 8;
        }
        8 => finish(&mut t.auto, &mut exit),
        _ => {}
    }
}
