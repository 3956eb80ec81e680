//! A real `khet-server` process on 127.0.0.1 (a free port, a temporary data folder) and blocking
//! clients that keep a mirror of their game, for the online tests.

#![allow(dead_code)]

pub mod browser;
pub mod certificate;
pub mod ocr;
pub mod services;
pub mod static_host;

use khet_engine::{Color, Game, GameResult, Limits, Rng, Searcher, Setup, WinReason};
use khet_protocol::client::Connection;
use khet_protocol::{ClientMsg, Mirror, NewGame, Refusal, SeatChoice, ServerMsg, Status};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long any one wait in these tests may take before it fails: far longer than anything
/// takes on a loaded machine, so that only a real hang fails.
pub const PATIENCE: Duration = Duration::from_secs(60);

static COUNTER: AtomicU64 = AtomicU64::new(1);

fn unique() -> u64 {
    COUNTER.fetch_add(1, Ordering::Relaxed)
}

/// Sample `name` of `server`'s `/metrics` (0 before it is counted).
pub fn metric(server: &Server, name: &str) -> f64 {
    let (status, body) = server.get("/metrics");
    assert_eq!(status, 200, "{body}");
    body.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0.0)
}

/// A number no other call in this test program gets.
/// The folder for a test's screenshots: `$var` if set, or `name` in the target's folder for
/// tests' files.
pub fn shots_dir(var: &str, name: &str) -> PathBuf {
    let dir = std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name));
    std::fs::create_dir_all(&dir).expect("a folder for the screenshots");
    dir
}

pub fn unique_number() -> u64 {
    unique()
}

/// A temporary folder, removed at the end.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "khet-server-test-{}-{name}-{}",
            std::process::id(),
            unique()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        TempDir(dir)
    }
}

impl TempDir {
    /// The folder, left for someone else to remove.
    pub fn keep(self) -> PathBuf {
        let dir = self.0.clone();
        std::mem::forget(self);
        dir
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Where a server keeps its games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The built-in SQLite database in a data folder (the default).
    Sqlite,
    /// A database of the test program's PostgreSQL server.
    Postgres,
}

/// A database for one test: a data folder, or a new PostgreSQL database.
pub struct Db {
    dir: TempDir,
    url: Option<String>,
}

impl Db {
    pub fn new(backend: Backend, name: &str) -> Db {
        let dir = TempDir::new(name);
        let url = match backend {
            Backend::Sqlite => None,
            Backend::Postgres => Some(services::Postgres::get().database(name)),
        };
        Db { dir, url }
    }

    /// A new database on `pg`, a test's own PostgreSQL server.
    pub fn on(pg: &services::Postgres, name: &str) -> Db {
        Db {
            dir: TempDir::new(name),
            url: Some(pg.database(name)),
        }
    }

    /// The data folder (of the built-in database).
    pub fn folder(&self) -> &std::path::Path {
        &self.dir.0
    }

    /// A name no other database of this test program has.
    pub fn name(&self) -> String {
        self.dir
            .0
            .file_name()
            .map(|n| n.to_string_lossy().replace('_', "-"))
            .unwrap_or_default()
    }

    /// The server's arguments that name it.
    pub fn args(&self) -> Vec<std::ffi::OsString> {
        match &self.url {
            Some(url) => vec!["--database".into(), url.into()],
            None => vec!["--data".into(), self.dir.0.clone().into()],
        }
    }
}

/// Each test of a file, run once on each backend: `mod sqlite` and `mod postgres`.
#[macro_export]
macro_rules! on_each_backend {
    ($($test:ident),* $(,)?) => {
        mod sqlite {
            $(#[test]
            fn $test() {
                super::$test(super::common::Backend::Sqlite)
            })*
        }
        mod postgres {
            $(#[test]
            fn $test() {
                super::$test(super::common::Backend::Postgres)
            })*
        }
    };
}

/// A running server.
pub struct Server {
    child: Child,
    /// `ws://127.0.0.1:PORT`.
    pub url: String,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl Server {
    /// Starts `khet-server` on `db`, on `port` (0: any free one), with extra arguments.
    pub fn start(db: &Db, port: u16, extra: &[&str]) -> Server {
        Server::start_with(db, port, extra, Stdio::inherit())
    }

    /// Starts `khet-server` as [`Server::start`] does, its log (standard error) going to `log`.
    pub fn start_logged(db: &Db, port: u16, extra: &[&str], log: &std::path::Path) -> Server {
        let file = std::fs::File::create(log).expect("a log file");
        Server::start_with(db, port, extra, Stdio::from(file))
    }

    fn start_with(db: &Db, port: u16, extra: &[&str], stderr: Stdio) -> Server {
        let mut args: Vec<std::ffi::OsString> =
            vec!["--listen".into(), format!("127.0.0.1:{port}").into()];
        args.extend(db.args());
        // The games' comings and goings would fill the tests' output: warnings and errors only,
        // unless a test asks for more.
        if !extra.contains(&"--log-level") {
            args.extend(["--log-level".into(), "warn".into()]);
        }
        args.extend(extra.iter().map(Into::into));
        Server::run(
            std::path::Path::new(env!("CARGO_BIN_EXE_khet-server")),
            &args,
            stderr,
        )
    }

    /// Starts `program` (this build's `khet-server`, or an installed one) with `args`, and
    /// waits for it to say where it listens.
    pub fn run(
        program: &std::path::Path,
        args: &[impl AsRef<std::ffi::OsStr>],
        stderr: Stdio,
    ) -> Server {
        let mut child = Command::new(program)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
        let stdout = child.stdout.take().expect("its output");
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        reader
            .read_line(&mut line)
            .expect("it says where it listens");
        // Keep reading what else it says, as a terminal would.
        std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("not the first line expected: {line:?}"))
            .to_string();
        let addr = url
            .trim_start_matches("wss://")
            .trim_start_matches("ws://")
            .to_string();
        Server { child, url, addr }
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its resident memory now, in kB (`VmRSS` in `/proc/PID/status`).
    pub fn rss_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .expect("its /proc status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS in its status")
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.addr.rsplit(':').next().unwrap().parse().unwrap()
    }

    /// SIGKILL: no chance to finish anything.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// A plain HTTP GET: status and body.
    pub fn get(&self, path: &str) -> (u16, String) {
        let mut s = TcpStream::connect(&self.addr).expect("connects");
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.addr
        )
        .unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        let status = text[9..12].parse().unwrap();
        let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
        (status, body.to_string())
    }

    /// SIGTERM, as systemd stops a service; then waits for it to end, within [`PATIENCE`]
    /// (failing with `while_` in the message if it does not). Its exit status.
    pub fn terminate(mut self, while_: &str) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .is_ok_and(|s| s.success());
        assert!(sent, "SIGTERM sent");
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("its status") {
                return status;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "khet-server still runs {} s after SIGTERM, {while_}",
                PATIENCE.as_secs()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Freezes it (SIGSTOP): its sockets stay open and nothing answers, as a node whose machine
    /// stalls (swapping, a virtual machine moved) and then goes on as if nothing happened.
    pub fn pause(&self) {
        self.signal("STOP");
    }

    /// Lets it go on (SIGCONT) after [`Server::pause`].
    pub fn resume(&self) {
        self.signal("CONT");
    }

    fn signal(&self, which: &str) {
        let sent = Command::new("kill")
            .args([format!("-{which}"), self.child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        assert!(sent, "SIG{which} sent to khet-server");
    }

    /// Whether it still answers.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_none() && self.get("/").0 == 200
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `khet-server ARGS`, run to its end.
pub fn tend(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_khet-server"))
        .args(args)
        .output()
        .expect("khet-server runs")
}

/// `khet-server --data DATA COMMAND FILE` (`backup`, `restore`), run to its end.
pub fn tend_on(
    data: &std::path::Path,
    command: &str,
    file: &std::path::Path,
) -> std::process::Output {
    tend(&[
        "--data".as_ref(),
        data.as_os_str(),
        command.as_ref(),
        file.as_os_str(),
    ])
}

/// What a command said: its standard output, then its standard error.
pub fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The arguments that make a server node `name` of the tests' cluster on `db` (`test-DBNAME`)
/// over the broker at `broker`, the nodes' secret in `secret_file`, then `extra`.
pub fn node_args(
    db: &Db,
    broker: &str,
    secret_file: &str,
    name: &str,
    extra: &[&str],
) -> Vec<String> {
    let cluster = format!("test-{}", db.name());
    let own = [
        "--broker",
        broker,
        "--cluster",
        &cluster,
        "--node",
        name,
        "--cluster-secret-file",
        secret_file,
    ];
    own.iter().chain(extra).map(ToString::to_string).collect()
}

/// A new identity: 32 lowercase hexadecimal digits, different for each client.
pub fn identity() -> String {
    format!("{:016x}{:016x}", std::process::id(), unique())
}

/// A player or spectator with its own connection and mirror.
pub struct Client {
    pub conn: Connection,
    pub url: String,
    pub identity: String,
    pub name: String,
    pub mirror: Option<Mirror>,
    pub seat: Option<(String, String)>,
    pub refusals: Vec<(Refusal, String)>,
    /// Events applied, by number (to prove each is applied once).
    pub applied: Vec<u64>,
    pub syncs: usize,
    pub presence: Option<([bool; 2], [Option<u64>; 2])>,
    pub lobby: Option<Vec<khet_protocol::OpenGame>>,
}

impl Client {
    pub fn connect(url: &str, name: &str) -> Client {
        Client::with_identity(url, name, &identity())
    }

    pub fn with_identity(url: &str, name: &str, identity: &str) -> Client {
        let conn = Connection::open(url, identity, name).expect("connects and is welcomed");
        Client {
            conn,
            url: url.to_string(),
            identity: identity.to_string(),
            name: name.to_string(),
            mirror: None,
            seat: None,
            refusals: Vec::new(),
            applied: Vec::new(),
            syncs: 0,
            presence: None,
            lobby: None,
        }
    }

    pub fn send(&mut self, msg: &ClientMsg) {
        self.conn.send(msg).expect("sent");
    }

    /// Handles one message if one comes within `wait`.
    pub fn pump(&mut self, wait: Duration) -> Option<ServerMsg> {
        self.try_pump(wait).expect("the connection holds")
    }

    /// Handles one message if one comes within `wait`; the connection's failure, if it fails.
    pub fn try_pump(
        &mut self,
        wait: Duration,
    ) -> Result<Option<ServerMsg>, khet_protocol::client::ClientError> {
        let Some(msg) = self.conn.recv(wait)? else {
            return Ok(None);
        };
        match &msg {
            ServerMsg::Seat { code, secret, .. } => {
                self.seat = Some((code.clone(), secret.clone()));
            }
            ServerMsg::Sync { event, you, game } => {
                self.syncs += 1;
                self.mirror = Some(Mirror::from_sync(*event, *you, game.clone()).expect("replays"));
            }
            ServerMsg::Event { n, event } => {
                let mirror = self.mirror.as_mut().expect("a sync before events");
                match mirror.apply(*n, event).expect("in order") {
                    khet_protocol::Applied::Changed(_) => self.applied.push(*n),
                    khet_protocol::Applied::Duplicate => {}
                }
            }
            ServerMsg::Refused { code, reason } => self.refusals.push((*code, reason.clone())),
            ServerMsg::Presence {
                connected,
                gone_ms,
                clocks,
                ..
            } => {
                self.presence = Some((*connected, *gone_ms));
                if let Some(mirror) = self.mirror.as_mut() {
                    mirror.set_clocks(*clocks);
                }
            }
            ServerMsg::Lobby { games } => self.lobby = Some(games.clone()),
            _ => {}
        }
        Ok(Some(msg))
    }

    /// Takes its seat again after its node went away, as a client does: reconnects to the
    /// first node of its list that answers and follows the game from the last event it has,
    /// again and again until a node serves the game (one whose owner died serves it once the
    /// dead node's lease has run out). Fails after [`PATIENCE`].
    pub fn rejoin(&mut self) {
        let start = Instant::now();
        let (code, secret) = self.seat.clone().expect("a seat");
        'attempt: loop {
            assert!(
                start.elapsed() < PATIENCE,
                "{}: no node served the game again",
                self.name
            );
            std::thread::sleep(Duration::from_millis(200));
            let Ok(conn) = Connection::open(&self.url, &self.identity, &self.name) else {
                continue;
            };
            std::mem::replace(&mut self.conn, conn).close();
            let since = self.mirror.as_ref().map(|m| m.event);
            if self
                .conn
                .send(&ClientMsg::Play {
                    code: code.clone(),
                    secret: secret.clone(),
                    since,
                })
                .is_err()
            {
                continue;
            }
            // Followed again once the room has said who is here.
            self.presence = None;
            let asked = Instant::now();
            while self.presence.is_none() {
                if asked.elapsed() > PATIENCE || self.try_pump(Duration::from_millis(100)).is_err()
                {
                    continue 'attempt;
                }
            }
            return;
        }
    }

    /// Handles messages until `done` holds; fails after [`PATIENCE`].
    pub fn until(&mut self, what: &str, done: impl Fn(&Client) -> bool) {
        let start = Instant::now();
        while !done(self) {
            assert!(
                start.elapsed() < PATIENCE,
                "{}: waited too long for {what} (refused: {:?})",
                self.name,
                self.refusals
            );
            self.pump(Duration::from_millis(100));
        }
    }

    /// Handles what arrives within `wait`.
    pub fn drain(&mut self, wait: Duration) {
        let end = Instant::now() + wait;
        while Instant::now() < end {
            self.pump(Duration::from_millis(20));
        }
    }

    pub fn create(&mut self, new: NewGame) -> String {
        self.send(&ClientMsg::Create(new));
        self.until("a seat", |c| c.seat.is_some() && c.mirror.is_some());
        self.seat.clone().unwrap().0
    }

    pub fn join(&mut self, code: &str) {
        self.send(&ClientMsg::Join { code: code.into() });
        self.until("a seat", |c| c.seat.is_some() && c.mirror.is_some());
    }

    pub fn mirror(&self) -> &Mirror {
        self.mirror.as_ref().expect("following a game")
    }

    pub fn plies(&self) -> usize {
        self.mirror.as_ref().map_or(0, |m| m.game.turns().len())
    }

    pub fn you(&self) -> Color {
        self.mirror().you.expect("seated")
    }

    /// Plays `mv` as the next ply and waits until the server announced it.
    pub fn play(&mut self, mv: &str) {
        self.until(&format!("my turn to play {mv}"), |c| c.mirror().my_turn());
        let ply = self.plies();
        self.send(&ClientMsg::Move {
            ply: ply as u32,
            mv: mv.into(),
        });
        let refused = self.refusals.len();
        self.until(&format!("{mv} played"), |c| {
            c.plies() > ply || c.refusals.len() > refused
        });
        assert_eq!(
            self.refusals.len(),
            refused,
            "{mv} refused: {:?}",
            self.refusals.last()
        );
    }

    /// Sends `msg` and waits for its refusal, which must be `code`.
    pub fn refused(&mut self, msg: &ClientMsg, code: Refusal) {
        let before = self.refusals.len();
        self.send(msg);
        self.until(&format!("a refusal of {msg:?}"), |c| {
            c.refusals.len() > before
        });
        assert_eq!(
            self.refusals[before].0, code,
            "{msg:?}: {:?}",
            self.refusals[before]
        );
    }

    pub fn result(&self) -> Option<GameResult> {
        self.mirror.as_ref().and_then(|m| {
            (m.view.status == Status::Over)
                .then_some(m.view.result)
                .flatten()
        })
    }

    pub fn wait_result(&mut self) -> GameResult {
        self.until("the end of the game", |c| c.result().is_some());
        self.result().unwrap()
    }

    /// Takes its seat again on a new connection, as after a drop (`since` the last event it
    /// has) or after a restart of the program (no mirror: the whole game).
    pub fn reconnect(&mut self, keep_mirror: bool) {
        let conn = Connection::open(&self.url, &self.identity, &self.name).expect("reconnects");
        std::mem::replace(&mut self.conn, conn).close();
        if !keep_mirror {
            self.mirror = None;
        }
        let (code, secret) = self.seat.clone().expect("a seat");
        let since = self.mirror.as_ref().map(|m| m.event);
        self.send(&ClientMsg::Play {
            code,
            secret,
            since,
        });
    }
}

/// A game Silver wins by lighting the Pharaoh: Silver searches two plies, Red plays at random
/// (a fixed seed), so the line is the same on every run and ends within a few dozen plies.
pub fn pharaoh_line() -> Vec<String> {
    let mut game = Game::new(Setup::builtin("classic").unwrap().position);
    let mut rng = Rng::new(7);
    let mut searcher = Searcher::default();
    let mut moves = Vec::new();
    while !game.is_over() {
        assert!(moves.len() < 400, "the line ends");
        let mv = if game.side_to_move() == Color::Silver {
            searcher
                .search_game(&game, Limits::depth(2), |_| {})
                .best
                .unwrap()
        } else {
            rng.pick(&game.legal_moves()).unwrap()
        };
        game.play(mv).unwrap();
        moves.push(mv.to_string());
    }
    assert!(matches!(
        game.result(),
        Some(GameResult::Win {
            winner: Color::Silver,
            reason: WinReason::PharaohHit
        })
    ));
    moves
}

/// Plays `moves` from where the game stands; every client in `watchers` sees each move.
pub fn play_line(
    silver: &mut Client,
    red: &mut Client,
    watchers: &mut [&mut Client],
    moves: &[String],
) {
    let base = silver.plies();
    for (i, mv) in moves.iter().enumerate() {
        let (mover, other) = if (base + i).is_multiple_of(2) {
            (&mut *silver, &mut *red)
        } else {
            (&mut *red, &mut *silver)
        };
        mover.play(mv);
        other.until("the opponent's move", |c| c.plies() > base + i);
        for w in watchers.iter_mut() {
            w.until("the move", |c| c.plies() > base + i);
        }
    }
}

/// Silver claims the win once Red has been gone past the grace (1 s in these tests), and the
/// game ends so, in the stored record too. A claim before the grace has passed is refused as not
/// yet due, and made again, as a player would press again, until it is taken (or [`PATIENCE`]
/// passes).
pub fn claim_abandoned_win(silver: &mut Client, server: &Server, code: &str) {
    let start = Instant::now();
    loop {
        let refused = silver.refusals.len();
        silver.send(&ClientMsg::ClaimAbandoned { draw: false });
        silver.until("the claim's answer", |c| {
            c.result().is_some() || c.refusals.len() > refused
        });
        if silver.result().is_some() {
            break;
        }
        let (why, reason) = &silver.refusals[refused];
        assert_eq!(*why, Refusal::NotNow, "{reason}");
        assert!(
            start.elapsed() < PATIENCE,
            "the claim was never due: {reason}"
        );
        silver.drain(Duration::from_millis(100));
    }
    let won = GameResult::Win {
        winner: Color::Silver,
        reason: WinReason::Abandonment,
    };
    assert_eq!(silver.wait_result(), won);
    assert_eq!(replayed(server, code).result(), Some(won));
}

/// A casual game without clocks from Classic, the creator Silver.
pub fn casual() -> NewGame {
    NewGame {
        setup: "classic".into(),
        clock: None,
        color: SeatChoice::Silver,
        rated: false,
        listed: false,
        days_per_move: None,
    }
}

/// Two players seated in a new game: Silver (the creator) and Red.
pub fn pair(url: &str, new: NewGame) -> (Client, Client, String) {
    let mut silver = Client::connect(url, "Silver player");
    let code = silver.create(new);
    let mut red = Client::connect(url, "Red player");
    red.join(&code);
    silver.until("the start", |c| c.mirror().view.status == Status::Playing);
    assert_eq!(silver.you(), Color::Silver);
    assert_eq!(red.you(), Color::Red);
    (silver, red, code)
}

/// The record at `/games/CODE.ron`, replayed by the engine.
pub fn replayed(server: &Server, code: &str) -> khet_engine::Game {
    let (status, text) = server.get(&format!("/games/{code}.ron"));
    assert_eq!(status, 200, "{text}");
    khet_engine::Record::from_ron(&text, "record")
        .and_then(|r| r.replay(&text, "record"))
        .unwrap_or_else(|e| panic!("the record replays: {e}\n{text}"))
}

/// A raw WebSocket to the server, to send what no well-behaved client sends.
pub fn raw(server: &Server) -> tungstenite::WebSocket<TcpStream> {
    let stream = TcpStream::connect(&server.addr).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let (socket, _) = tungstenite::client::client(format!("{}/ws", server.url), stream).unwrap();
    socket
}

/// The next text message on a raw socket, or `None` when the server closed it.
pub fn next_text(socket: &mut tungstenite::WebSocket<TcpStream>) -> Option<String> {
    loop {
        match socket.read() {
            Ok(tungstenite::Message::Text(t)) => return Some(t.to_string()),
            // Interrupted (the test program stopped and continued): read again.
            Err(tungstenite::Error::Io(e)) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Ok(tungstenite::Message::Close(_)) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// Opens `/play` on a new browser profile and gives a name; the page says hello.
pub fn arrive(browser: &browser::Browser, server: &Server, name: &str) {
    arrive_at(browser, &server.addr.to_string(), name);
}

/// [`arrive`] at the server at `addr` (`HOST:PORT`), a process of the test's own or another.
pub fn arrive_at(browser: &browser::Browser, addr: &str, name: &str) {
    browser.open(&format!("http://{addr}/play"));
    browser.until("the name form", "!document.getElementById('home').hidden");
    browser.type_into("#name", name);
    browser.click("#name-form button");
    browser.until(
        "the welcome (a rating shown)",
        "document.getElementById('rating').textContent.startsWith('Rating')",
    );
    browser.until(
        "the setups listed",
        "document.querySelectorAll('#setup option').length >= 8",
    );
}

/// Creates a game as Silver with the page's form (the clock as the form has it) and returns
/// its code, read from the link the page offers.
pub fn create_as_silver(browser: &browser::Browser) -> String {
    browser.click("#color option[value=\"silver\"]");
    browser.click("#create");
    browser.until(
        "the link to send",
        "!document.getElementById('share').hidden",
    );
    let text = |expression: &str| {
        browser
            .eval(expression)
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let link = text("document.getElementById('link').value");
    let code = link.rsplit('/').next().unwrap_or_default().to_string();
    assert_eq!(
        text("location.pathname"),
        format!("/play/{code}"),
        "the page's address is the game's link: {link}"
    );
    code
}

/// A protocol client who takes the other seat of the page's game `code`, as Red: the page
/// (Silver) shows its move to make.
pub fn join_as_red(browser: &browser::Browser, server: &Server, code: &str) -> Client {
    let mut red = Client::connect(&server.url, "Client player");
    red.join(code);
    red.until("the start", |c| c.mirror().view.status == Status::Playing);
    browser.until(
        "Silver to move",
        "document.getElementById('status').textContent.startsWith('Your move')",
    );
    red
}

/// The play page's square `sq` (`c1`), as a CSS selector.
pub fn square(sq: &str) -> String {
    format!("#board [data-square=\"{sq}\"]")
}

/// Plays `mv` (engine text) on the page as a person does: the piece's square, then the square
/// it goes to, or a turn button.
pub fn click_move(browser: &browser::Browser, mv: &str) {
    let from = &mv[..2];
    browser.click(&square(from));
    if let Some(turn) = mv
        .strip_suffix('+')
        .or(mv.strip_suffix('-'))
        .map(|_| if mv.ends_with('+') { "cw" } else { "ccw" })
    {
        browser.click(&format!("[data-rotate=\"{turn}\"]"));
    } else {
        browser.click(&square(&mv[2..4]));
    }
}

/// The page's count of the moves it lists (two to a row, each row a `li`).
pub const MOVES_SHOWN: &str = "[...document.querySelectorAll('#moves li')]\
    .map(li => li.textContent).join(' ').split(/\\s+/).filter(Boolean).length";

pub fn moves_shown(browser: &browser::Browser) -> usize {
    let shown = browser.eval(MOVES_SHOWN).as_u64().unwrap_or(0);
    usize::try_from(shown).unwrap_or(usize::MAX)
}
