//! `khet --online-tour DIR --server URL`: online play in the real window, for its end-to-end
//! test and the README's pictures. Two bots (threads speaking the protocol, as another player's
//! game would) open listed games; the player connects and the Online screen shows the lobby
//! (`online-lobby.png`); the player accepts Bea's game, and both play two moves each at the
//! table with the server's clocks running (`online-game.png`); then Bea's connection drops and
//! the table shows her gone with the claim's countdown (`online-gone.png`).

use super::script::{Autoplay, Flow, STEP_DEADLINE, Step, go, interpret, shoot};
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

impl Plugin for OnlineTourPlugin {
    fn build(&self, app: &mut App) {
        super::broken::plugin(app);
        super::script::keep_drawing(app);
        app.insert_resource(Autoplay::new(self.dir.clone()))
            .insert_resource(Tour {
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
                    settings.quality = super::tour::quality_from_env();
                    // Pictures compared with references: the camera's shake, a jitter of a pixel or two
                    // that depends on the very frame a picture is taken in, is off.
                    settings.camera_shake = false;
                    settings.online_name = "Ada".into();
                    settings.online_server.clone_from(&tour.server);
                },
            )
            .add_systems(
                Update,
                (|world: &mut World| interpret(world, ONLINE_TOUR, report))
                    .in_set(crate::GameSet::Input),
            );
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

/// How everything the tour waits on stands, for the report when a step never comes.
fn report(world: &World) -> String {
    let t = world.resource::<Tour>();
    let online = world.get_resource::<Online>();
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
    format!(
        "; link: {link}; lobby: {lobby} games; notice: {:?}; bots: {}",
        world.resource::<OnlineNotice>().0,
        bots.join(", ")
    )
}

/// The online tour, in order.
const ONLINE_TOUR: &[Step] = &[
    Step {
        what: "the bots started and the link asked for",
        run: start,
    },
    Step {
        what: "the link to be connected and the lobby to list both bots' games",
        run: lobby_listed,
    },
    Step {
        what: "online-lobby: the lobby",
        run: lobby,
    },
    Step {
        what: "Bea's game's code",
        run: join_bea,
    },
    Step {
        what: "the game at the table, four plies played",
        run: four_plies,
    },
    Step {
        what: "online-game: the game with both clocks",
        run: playing,
    },
    Step {
        what: "Bea shown gone for more than 3 s",
        run: bea_gone,
    },
    Step {
        what: "online-gone: the opponent-gone notice",
        run: gone,
    },
];

fn start(world: &mut World) -> Flow {
    let listed = |clock, rated, color| NewGame {
        setup: "khet2/classic".into(),
        clock: Some(clock),
        color,
        rated,
        listed: true,
        days_per_move: None,
    };
    let mut t = world.resource_mut::<Tour>();
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
    world.write_message(OnlineRequest::Connect);
    go(world, Screen::Online);
    Flow::Next
}

fn lobby_listed(world: &mut World) -> Flow {
    let listed = world
        .get_resource::<Online>()
        .is_some_and(|o| matches!(o.state, LinkState::Connected(_)) && o.lobby.len() >= 2);
    if listed { Flow::After(20) } else { Flow::Stay }
}

fn lobby(world: &mut World) -> Flow {
    let lobby = world.get_resource::<Online>().map_or(0, |o| o.lobby.len());
    shoot(world, "online-lobby", &format!("lobby {lobby}\n"));
    Flow::After(10)
}

fn join_bea(world: &mut World) -> Flow {
    let code = world
        .resource::<Tour>()
        .bea_code
        .lock()
        .ok()
        .and_then(|c| c.clone());
    let Some(code) = code else {
        return Flow::Stay;
    };
    world.write_message(OnlineRequest::Send(ClientMsg::Join { code }));
    Flow::Next
}

/// Ada (the player) answers Bea's moves with a shallow search until four plies are played.
fn four_plies(world: &mut World) -> Flow {
    let at_table = *world.resource::<State<Screen>>().get() == Screen::Playing
        && world.contains_resource::<OnlineTable>();
    if !at_table || !world.resource::<Show>().is_idle() {
        return Flow::Stay;
    }
    let m = world.resource::<Match>();
    let turns = m.game.turns().len();
    if turns >= 4 {
        return Flow::After(30);
    }
    let synced = world.resource::<OnlineTable>().mirror.game.turns().len() == turns;
    let ours = m.game.side_to_move() == Side::Silver && m.spec.online && synced;
    let best = ours
        .then(|| Searcher::new(1 << 14).search_game(&m.game, Limits::depth(2), |_| {}))
        .and_then(|found| found.best);
    if let Some(mv) = best {
        world.write_message(MoveRequested(mv));
        world.resource_mut::<Autoplay>().wait = 5;
    }
    Flow::Stay
}

/// The game with both clocks; then Bea's connection drops.
fn playing(world: &mut World) -> Flow {
    let clocks = world
        .get_resource::<OnlineTable>()
        .and_then(|t| t.mirror.clocks())
        .map_or("none".into(), |c| format!("{:?}", c.remaining_ms));
    shoot(world, "online-game", &format!("clocks {clocks}\n"));
    world
        .resource::<Tour>()
        .bea_leaves
        .store(true, Ordering::Relaxed);
    Flow::After(10)
}

fn bea_gone(world: &mut World) -> Flow {
    let gone = world
        .get_resource::<OnlineTable>()
        .and_then(|t| t.absence)
        .and_then(|a| a.gone(Side::Red))
        .is_some_and(|g| g > Duration::from_secs(3));
    if gone { Flow::After(10) } else { Flow::Stay }
}

fn gone(world: &mut World) -> Flow {
    shoot(world, "online-gone", "gone\n");
    Flow::Next
}
