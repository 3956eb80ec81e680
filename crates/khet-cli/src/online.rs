//! `khet-engine online`: the engine plays one game through a Khet server, as a player would, and
//! rides out a dropped connection or a server restart (it reconnects with backoff for up to a
//! minute and takes its seat again; the server's numbered events make every move count once).

use crate::out::{Failure, Out};
use khet_engine::{Clock, DrawLimits, Level, Limits, Rng, Searcher};
use khet_protocol::client::{Backoff, ClientError, Connection};
use khet_protocol::{
    ClientMsg, ClockSpec, Mirror, MirrorError, NewGame, Refusal, ServerMsg, check_code, is_secret,
};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long the engine keeps trying to reach a server that went away.
const RECONNECT_FOR: Duration = Duration::from_secs(60);

/// What to ask the server for.
pub enum Request {
    /// A new game.
    Create(NewGame),
    /// The free seat of a game.
    Join(String),
    /// Quick pairing.
    Seek {
        /// The time control.
        clock: Option<ClockSpec>,
        /// Rated or casual.
        rated: bool,
    },
}

/// How the engine plays.
#[derive(Clone, Copy)]
pub enum Strength {
    /// Master with this long a move.
    MoveTime(Duration),
    /// A level, with the clock's share of time.
    Level(Level),
}

/// Everything `khet-engine online` was told.
pub struct Online {
    /// The server's base address.
    pub server: String,
    /// How to play.
    pub strength: Strength,
    /// The display name.
    pub name: String,
    /// The file of the identity.
    pub identity: PathBuf,
}

/// The identity in `path`, made and stored (atomically) on first use.
pub(crate) fn identity(path: &Path) -> Result<String, Failure> {
    match std::fs::read(path) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let text = text.trim_start_matches('\u{feff}').trim();
            if is_secret(text) {
                return Ok(text.to_string());
            }
            return Err(Failure::Input(format!(
                "{}:1: not an identity (32 lowercase hexadecimal digits); delete it to make a new one",
                path.display()
            )));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Failure::Input(format!("{}: {e}", path.display()))),
    }
    let secret = khet_protocol::new_secret().map_err(Failure::Input)?;
    let fail = |e: std::io::Error| Failure::Input(format!("{}: {e}", path.display()));
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let tmp = path.with_extension("tmp");
    std::fs::File::create(&tmp)
        .and_then(|mut f| {
            f.write_all(secret.as_bytes())?;
            f.sync_all()
        })
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(fail)?;
    Ok(secret)
}

/// The default identity file: the data folder's `engine-identity` (the game keeps its own).
pub fn default_identity() -> PathBuf {
    directories::ProjectDirs::from("", "", "khet")
        .map_or_else(|| PathBuf::from("."), |d| d.data_dir().to_path_buf())
        .join("engine-identity")
}

/// How often a stalled game's draw offer is made again.
const OFFER_EVERY: usize = 20;

struct Player {
    conn: Connection,
    server: String,
    identity: String,
    name: String,
    code: String,
    secret: String,
    mirror: Option<Mirror>,
    /// The ply of the last move sent and not yet seen played.
    sent: Option<usize>,
    /// The opponent's absence as last told, and when.
    gone: Option<(u64, u64, Instant)>,
    claimed: bool,
    /// The ply at which a repetition was claimed, so a refused claim is not sent again.
    repetition_claimed: Option<usize>,
    /// The ply of our last draw offer.
    offered: Option<usize>,
    /// The ply at which we accepted a draw, so a refused acceptance (the offer lapsed) is not
    /// sent again.
    accepted: Option<usize>,
    searcher: Searcher,
    rng: Rng,
    strength: Strength,
}

/// Connects; after a lost connection (`retry`), keeps trying for [`RECONNECT_FOR`]. A first
/// connection that fails is reported at once: the address is more likely wrong than the
/// server restarting.
pub(crate) fn connect(
    server: &str,
    identity: &str,
    name: &str,
    retry: bool,
) -> Result<Connection, Failure> {
    let started = Instant::now();
    let mut backoff = Backoff::default();
    loop {
        match Connection::open(server, identity, name) {
            Ok(conn) => return Ok(conn),
            Err(e) if retry && e.is_transient() && started.elapsed() < RECONNECT_FOR => {
                eprintln!("{e}; trying again");
                std::thread::sleep(backoff.next_wait());
            }
            Err(e) => return Err(Failure::Input(e.to_string())),
        }
    }
}

pub(crate) fn refused(e: ClientError) -> Failure {
    Failure::Input(e.to_string())
}

/// Plays one game; prints `code CODE` and `link URL` (the game's page) first when it created
/// the game, and the result and the game's code at the end.
pub fn play(online: &Online, request: &Request, out: &mut Out<impl Write>) -> Result<(), Failure> {
    let msg = match request {
        Request::Create(new) => ClientMsg::Create(new.clone()),
        Request::Join(code) => ClientMsg::Join {
            code: check_code(code).map_err(Failure::Input)?,
        },
        Request::Seek { clock, rated } => ClientMsg::Seek {
            clock: *clock,
            rated: *rated,
        },
    };
    let identity = identity(&online.identity)?;
    let mut conn = connect(&online.server, &identity, &online.name, false)?;
    conn.send(&msg).map_err(refused)?;
    let (code, secret) = loop {
        match conn.recv(Duration::from_secs(30)).map_err(refused)? {
            Some(ServerMsg::Seat { code, secret, .. }) => break (code, secret),
            Some(ServerMsg::Refused { reason, .. }) => return Err(Failure::Input(reason)),
            Some(_) => {}
            None => return Err(Failure::Input("the server gave no seat".into())),
        }
    };
    if matches!(request, Request::Create(_) | Request::Seek { .. }) {
        out.now(format_args!("code {code}"))?;
        // The page where a friend plays it in a browser, on the first server of the list.
        let server = online.server.split(',').next().unwrap_or_default();
        out.now(format_args!(
            "link {}",
            khet_protocol::play_link(server, &code)
        ))?;
    }
    if let Strength::Level(level) = online.strength {
        // Its measured strength: Elo above a player who has just learned the rules.
        out.now(format_args!("level {level} rating {}", level.rating()))?;
    }
    let (conn, result) = play_seat(conn, online, identity, code.clone(), secret)?;
    out.line(format_args!("result {result}"))?;
    out.line(format_args!("game {code}"))?;
    conn.close();
    Ok(())
}

/// Plays the game of the seat just given on `conn` (`code` and its `secret`) to its end: the
/// connection (a new one if the old was lost on the way) and the result.
pub(crate) fn play_seat(
    conn: Connection,
    online: &Online,
    identity: String,
    code: String,
    secret: String,
) -> Result<(Connection, khet_engine::GameResult), Failure> {
    let mut player = Player {
        conn,
        server: online.server.clone(),
        identity,
        name: online.name.clone(),
        code,
        secret,
        mirror: None,
        sent: None,
        gone: None,
        claimed: false,
        repetition_claimed: None,
        offered: None,
        accepted: None,
        searcher: Searcher::default(),
        rng: Rng::new(u64::from(std::process::id())),
        strength: online.strength,
    };
    // Master plays from the opening book, as in the game and the protocol.
    player.searcher.book = Some(crate::openings::shipped());
    let result = player.run()?;
    Ok((player.conn, result))
}

impl Player {
    fn run(&mut self) -> Result<khet_engine::GameResult, Failure> {
        loop {
            if let Some(result) = self.mirror.as_ref().and_then(Mirror::result)
                && self
                    .mirror
                    .as_ref()
                    .is_some_and(|m| m.view.status == khet_protocol::Status::Over)
            {
                return Ok(result);
            }
            self.maybe_move()?;
            self.maybe_claim()?;
            match self.conn.recv(Duration::from_millis(200)) {
                Ok(Some(msg)) => self.receive(msg)?,
                Ok(None) => {}
                Err(e) if e.is_transient() => self.reconnect(&e)?,
                Err(e) => return Err(refused(e)),
            }
        }
    }

    fn resync(&mut self) -> Result<(), Failure> {
        let since = self.mirror.as_ref().map(|m| m.event);
        self.conn
            .send(&ClientMsg::Play {
                code: self.code.clone(),
                secret: self.secret.clone(),
                since,
            })
            .map_err(refused)
    }

    fn reconnect(&mut self, why: &ClientError) -> Result<(), Failure> {
        eprintln!("{why}; reconnecting");
        self.conn = connect(&self.server, &self.identity, &self.name, true)?;
        // A move sent just before may or may not have been stored: the resync tells.
        self.sent = None;
        self.resync()
    }

    fn receive(&mut self, msg: ServerMsg) -> Result<(), Failure> {
        match msg {
            ServerMsg::Sync { event, you, game } => {
                let mirror = Mirror::from_sync(event, you, game)
                    .map_err(|e| Failure::Input(e.to_string()))?;
                self.sent = None;
                self.mirror = Some(mirror);
            }
            ServerMsg::Event { n, event } => {
                let Some(mirror) = self.mirror.as_mut() else {
                    return self.resync();
                };
                match mirror.apply(n, &event) {
                    Ok(_) => {}
                    Err(MirrorError::Gap { .. }) => return self.resync(),
                    Err(e) => return Err(Failure::Input(e.to_string())),
                }
            }
            ServerMsg::Presence {
                gone_ms,
                grace_ms,
                clocks,
                ..
            } => {
                if let Some(mirror) = self.mirror.as_mut() {
                    mirror.set_clocks(clocks);
                }
                let you = self.mirror.as_ref().and_then(|m| m.you);
                self.gone = you
                    .and_then(|c| gone_ms[c.other().index()])
                    .map(|g| (g, grace_ms, Instant::now()));
            }
            ServerMsg::Refused { code, reason } => match code {
                Refusal::Stale | Refusal::NotYourTurn => return self.resync(),
                Refusal::Illegal => {
                    return Err(Failure::Input(format!(
                        "the server refused our move: {reason}"
                    )));
                }
                _ => {
                    eprintln!("the server refused: {reason}");
                    // A refused claim or acceptance: play a move instead.
                    if self.sent.is_some()
                        && (self.sent == self.repetition_claimed || self.sent == self.accepted)
                    {
                        self.sent = None;
                    }
                }
            },
            _ => {}
        }
        Ok(())
    }

    fn maybe_move(&mut self) -> Result<(), Failure> {
        let Some(mirror) = self.mirror.as_ref() else {
            return Ok(());
        };
        let ply = mirror.game.turns().len();
        if !mirror.my_turn() || self.sent == Some(ply) {
            return Ok(());
        }
        let side = mirror.game.side_to_move();
        let budget = match (self.strength, mirror.clocks()) {
            (Strength::MoveTime(t), _) => t,
            (Strength::Level(level), Some(clocks)) => {
                let increment = mirror
                    .view
                    .clock
                    .map_or(Duration::ZERO, |c| Duration::from_millis(c.increment_ms));
                let clock = Clock {
                    remaining: clocks.remaining_ms.map(Duration::from_millis),
                    increment: [increment; 2],
                    moves_to_go: None,
                };
                let share = clock.limits(side).soft.unwrap_or(Duration::from_secs(1));
                share.min(level.budget())
            }
            (Strength::Level(level), None) => level.budget(),
        };
        let game = mirror.game.clone();
        // The server has no move limit, and two engines that each score a draw below playing
        // on could shuffle for ever: past the match's limit of plies without a capture, a
        // draw is taken when offered, and offered.
        let stalled = DrawLimits::MATCH
            .quiet_plies
            .is_some_and(|limit| crate::matches::quiet_plies(&game) >= limit);
        let you = mirror.you;
        if stalled
            && self.accepted != Some(ply)
            && you.is_some_and(|c| mirror.view.draw_offer == Some(c.other()))
        {
            self.conn.send(&ClientMsg::AcceptDraw).map_err(refused)?;
            self.sent = Some(ply);
            self.accepted = Some(ply);
            return Ok(());
        }
        // Not ahead in a position seen three times: take the draw, as the game's computer
        // does, rather than shuffle on (the server has no move limit).
        if self.repetition_claimed != Some(ply)
            && game.can_claim_draw()
            && khet_engine::level::quick_score(game.position()) <= 0
        {
            self.conn
                .send(&ClientMsg::ClaimRepetition)
                .map_err(refused)?;
            self.sent = Some(ply);
            self.repetition_claimed = Some(ply);
            return Ok(());
        }
        let thinking = Instant::now();
        let mv = match self.strength {
            Strength::MoveTime(t) => {
                self.searcher.options.quiescence = true;
                self.searcher
                    .search_game(&game, Limits::time(t), |_| {})
                    .best
            }
            Strength::Level(level) => {
                level.choose(&mut self.searcher, &game, budget, &mut self.rng)
            }
        };
        let Some(mv) = mv else {
            return Ok(());
        };
        // A level answers no sooner than its least pause, as in the game and the play page: it
        // feels alive to a person, and two quick levels in a tournament play at a pace the
        // server's message limits and its spectators can follow.
        if let Strength::Level(level) = self.strength {
            let spent = thinking.elapsed();
            if spent < level.least_pause() {
                std::thread::sleep(level.least_pause() - spent);
            }
        }
        self.conn
            .send(&ClientMsg::Move {
                ply: u32::try_from(ply).unwrap_or(u32::MAX),
                mv: mv.to_string(),
            })
            .map_err(refused)?;
        self.sent = Some(ply);
        // Offered after the move (a move ends the mover's own offer), once in OFFER_EVERY plies.
        if stalled && self.offered.is_none_or(|at| ply >= at + OFFER_EVERY) {
            self.conn.send(&ClientMsg::OfferDraw).map_err(refused)?;
            self.offered = Some(ply);
        }
        Ok(())
    }

    /// Claims the win when the opponent has been gone past the server's grace period.
    fn maybe_claim(&mut self) -> Result<(), Failure> {
        let Some((gone, grace, told)) = self.gone else {
            return Ok(());
        };
        let playing = self.mirror.as_ref().is_some_and(|m| {
            m.view.status == khet_protocol::Status::Playing && m.result().is_none()
        });
        let away = gone + u64::try_from(told.elapsed().as_millis()).unwrap_or(u64::MAX);
        if playing && !self.claimed && away > grace {
            self.claimed = true;
            self.conn
                .send(&ClientMsg::ClaimAbandoned { draw: false })
                .map_err(refused)?;
        }
        Ok(())
    }
}
