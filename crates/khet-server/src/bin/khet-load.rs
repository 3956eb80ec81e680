//! `khet-load`: the server under load, measured. It starts `khet-server` (the binary beside
//! this one) on loopback with a fresh database, or uses `--server URL`, and plays `--games`
//! games at once between pairs of bots over real WebSockets. Each bot thinks `--think-ms`
//! (jittered) and plays a random legal move. It reports:
//! - the games played at once and the moves a second;
//! - the round trip of a move (sent until its `moved` event comes back): median and p99;
//! - the server's memory and CPU;
//! - whether every acknowledged move is in the server's records.
//!
//! With `--database postgres://… --broker redis://… --nodes 2` it starts that many nodes of one
//! cluster instead, and each game's two bots connect to different nodes; `--compare` runs the
//! one-node SQLite server first and then the cluster, and prints both side by side.
//!
//! With `--flood N`, it measures twice, on a fresh server each time: the games alone, then the
//! games while one address (127.0.0.2) sends N plain HTTP requests, as fast as it can or spread
//! evenly over `--flood-seconds`, the round trip then taken over the flood's time; it reports how
//! many the server refused (429). The flood runs on a thread of its own at the lowest priority,
//! so that on a machine shared with the bots it takes their time last: what the bots measure is
//! then the server's doing more than their own machine's. The bots come from addresses of their
//! own (127.0.1.1, 127.0.1.2, …), as players do.
//!
//! A benchmark, not a test: run it on a quiet machine
//! (`cargo run --release -p khet-server --bin khet-load -- --games 1000`).

use clap::Parser;
use futures_util::{SinkExt, StreamExt};
use khet_engine::Rng;
use khet_protocol::{ClientMsg, Mirror, NewGame, SeatChoice, ServerMsg, Status, VERSION};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

#[derive(Parser)]
#[command(
    name = "khet-load",
    about = "Many bot games at once against a Khet server, measured"
)]
struct Args {
    /// Games played at once
    #[arg(long, default_value_t = 1000)]
    games: u32,
    /// How long a bot thinks before each move, on average (milliseconds)
    #[arg(long, default_value_t = 2000)]
    think_ms: u64,
    /// Seconds measured, once every game has started
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// Seconds over which the games are started
    #[arg(long, default_value_t = 20)]
    ramp: u64,
    /// An already running server instead of starting one
    #[arg(long, conflicts_with_all = ["database", "compare"])]
    server: Option<String>,
    /// The nodes' PostgreSQL database (an empty one), instead of SQLite
    #[arg(long, value_name = "URL", requires = "broker")]
    database: Option<String>,
    /// The nodes' Redis
    #[arg(long, value_name = "URL", requires = "database")]
    broker: Option<String>,
    /// Nodes started on the database and broker
    #[arg(long, default_value_t = 2)]
    nodes: usize,
    /// Measure the one-node SQLite server, then the nodes on PostgreSQL and Redis, and print
    /// both side by side
    #[arg(long, requires = "database")]
    compare: bool,
    /// Also count this process and its children in the cluster's memory and CPU (the
    /// PostgreSQL and Redis servers)
    #[arg(long, value_name = "PID")]
    watch_pid: Vec<u32>,
    /// Measure the games alone, then while one address sends this many plain HTTP requests
    #[arg(long, value_name = "N", default_value_t = 0, conflicts_with_all = ["database", "server"])]
    flood: u64,
    /// The flood's requests, in turn (default: the lists, the pages and /metrics)
    #[arg(long, value_name = "PATH", requires = "flood")]
    flood_path: Vec<String>,
    /// Spread the flood's requests evenly over this many seconds (0: as fast as answered), so
    /// that the flooded window is as long as the window alone (`--seconds`)
    #[arg(long, value_name = "S", default_value_t = 0, requires = "flood")]
    flood_seconds: u64,
}

/// What one run measured.
#[derive(Default)]
struct Report {
    label: String,
    live: i64,
    peak_live: i64,
    started: u64,
    moves_per_second: f64,
    median_ms: f64,
    p99_ms: f64,
    max_ms: f64,
    memory_mb: f64,
    kb_a_game: f64,
    cpu_percent: f64,
    /// The database's and broker's memory (MB) and CPU (% of a core), if counted.
    others: Option<(f64, f64)>,
    finished: usize,
    missing: usize,
    errors: u64,
    /// The flood, if any: answered 200, refused 429, anything else, and its seconds.
    flood: Option<(u64, u64, u64, f64)>,
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

#[derive(Default)]
struct Stats {
    /// Round trips in microseconds, while measuring.
    rtts: Mutex<Vec<u32>>,
    measuring: std::sync::atomic::AtomicBool,
    /// The report is written: what fails now is the bench shutting down.
    done: std::sync::atomic::AtomicBool,
    moves: AtomicU64,
    live: AtomicI64,
    started: AtomicU64,
    errors: AtomicU64,
    /// (code, moves acknowledged to the bots).
    acknowledged: Mutex<Vec<(String, usize)>>,
}

async fn send(ws: &mut Socket, msg: &ClientMsg) -> Result<(), String> {
    ws.send(Message::text(msg.to_json()))
        .await
        .map_err(|e| e.to_string())
}

async fn recv(ws: &mut Socket) -> Result<ServerMsg, String> {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(120), ws.next())
            .await
            .map_err(|_| "no message for 120 s".to_string())?
            .ok_or("closed")?
            .map_err(|e| e.to_string())?;
        if let Message::Text(text) = msg {
            return ServerMsg::from_json(text.as_str());
        }
    }
}

/// The bot `n`'s own address when the server is on loopback (all of 127/8 is this machine's),
/// as players have theirs: the server's limits are per address.
fn bot_address(url: &str, n: u64) -> Option<std::net::IpAddr> {
    let host = url.strip_prefix("ws://")?.split(':').next()?;
    (host == "127.0.0.1").then(|| {
        let n = u32::try_from(n % 60_000).unwrap_or(0);
        std::net::Ipv4Addr::new(127, 0, 1 + (n / 250) as u8, (n % 250) as u8 + 1).into()
    })
}

async fn connect(url: &str, n: u64) -> Result<Socket, String> {
    let address = format!("{url}/ws");
    let (mut ws, _) = match bot_address(url, n) {
        Some(from) => {
            let to: std::net::SocketAddr = url
                .trim_start_matches("ws://")
                .parse()
                .map_err(|e| format!("{url}: {e}"))?;
            let socket = tokio::net::TcpSocket::new_v4().map_err(|e| e.to_string())?;
            socket
                .bind(std::net::SocketAddr::new(from, 0))
                .map_err(|e| format!("{from}: {e}"))?;
            let stream = socket.connect(to).await.map_err(|e| e.to_string())?;
            tokio_tungstenite::client_async(address, MaybeTlsStream::Plain(stream))
                .await
                .map_err(|e| e.to_string())?
        }
        None => tokio_tungstenite::connect_async(address)
            .await
            .map_err(|e| e.to_string())?,
    };
    send(
        &mut ws,
        &ClientMsg::Hello {
            version: VERSION,
            identity: format!("{:032x}", n + 1),
            name: format!("bot {n}"),
            views: false,
        },
    )
    .await?;
    match recv(&mut ws).await? {
        ServerMsg::Welcome { .. } => Ok(ws),
        other => Err(format!("not welcomed: {other:?}")),
    }
}

/// Reads until the game's sync.
async fn synced(ws: &mut Socket) -> Result<Mirror, String> {
    loop {
        if let ServerMsg::Sync { event, you, game } = recv(ws).await? {
            return Mirror::from_sync(event, you, game).map_err(|e| e.to_string());
        }
    }
}

/// One bot plays its side of the game until it ends.
async fn play(
    ws: &mut Socket,
    mut mirror: Mirror,
    think: Duration,
    seed: u64,
    stats: &Stats,
) -> Result<usize, String> {
    let mut rng = Rng::new(seed);
    let mut sent: Option<(usize, Instant)> = None;
    loop {
        if mirror.view.status == Status::Over || mirror.result().is_some() {
            return Ok(mirror.game.turns().len());
        }
        if mirror.my_turn() && sent.is_none() {
            let jitter = think.as_millis() as u64 / 2;
            let wait = think / 2 + Duration::from_millis(rng.below(jitter as usize * 2 + 1) as u64);
            tokio::time::sleep(wait).await;
            let moves = mirror.game.legal_moves();
            let Some(mv) = rng.pick(&moves) else {
                return Ok(mirror.game.turns().len());
            };
            let ply = mirror.game.turns().len();
            send(
                ws,
                &ClientMsg::Move {
                    ply: ply as u32,
                    mv: mv.to_string(),
                },
            )
            .await?;
            sent = Some((ply, Instant::now()));
        }
        match recv(ws).await? {
            ServerMsg::Event { n, event } => {
                mirror.apply(n, &event).map_err(|e| e.to_string())?;
                if let (Some((ply, at)), khet_protocol::GameEvent::Moved { ply: p, .. }) =
                    (sent, &event)
                    && *p as usize == ply
                {
                    if stats.measuring.load(Ordering::Relaxed) {
                        let micros = u32::try_from(at.elapsed().as_micros()).unwrap_or(u32::MAX);
                        stats.rtts.lock().map_err(|e| e.to_string())?.push(micros);
                        stats.moves.fetch_add(1, Ordering::Relaxed);
                    }
                    sent = None;
                }
            }
            ServerMsg::Refused { reason, .. } => return Err(format!("refused: {reason}")),
            _ => {}
        }
    }
}

/// A pair of bots playing game after game until `until`.
async fn pair(urls: Arc<Vec<String>>, n: u64, think: Duration, until: Instant, stats: Arc<Stats>) {
    let result = async {
        // With several nodes, the two players of a game are on different ones.
        let node = |k: u64| &urls[usize::try_from(k).unwrap_or(0) % urls.len()];
        let mut a = connect(node(n), 2 * n).await?;
        let mut b = connect(node(n + 1), 2 * n + 1).await?;
        let mut round = 0;
        while Instant::now() < until {
            let new = NewGame {
                setup: "classic".into(),
                clock: None,
                color: SeatChoice::Silver,
                rated: false,
                listed: false,
                days_per_move: None,
            };
            send(&mut a, &ClientMsg::Create(new)).await?;
            let code = loop {
                if let ServerMsg::Seat { code, .. } = recv(&mut a).await? {
                    break code;
                }
            };
            let mirror_a = synced(&mut a).await?;
            send(&mut b, &ClientMsg::Join { code: code.clone() }).await?;
            let mirror_b = synced(&mut b).await?;
            stats.live.fetch_add(1, Ordering::Relaxed);
            stats.started.fetch_add(1, Ordering::Relaxed);
            let seed = n * 1000 + round;
            let (ra, rb) = tokio::join!(
                play(&mut a, mirror_a, think, seed * 2 + 1, &stats),
                play(&mut b, mirror_b, think, seed * 2 + 2, &stats)
            );
            stats.live.fetch_sub(1, Ordering::Relaxed);
            let plies = ra?.max(rb?);
            stats
                .acknowledged
                .lock()
                .map_err(|e| e.to_string())?
                .push((code, plies));
            round += 1;
        }
        Ok::<(), String>(())
    }
    .await;
    if let Err(e) = result
        && !stats.done.load(Ordering::Relaxed)
        && stats.errors.fetch_add(1, Ordering::Relaxed) < 5
    {
        eprintln!("bot pair {n}: {e}");
    }
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    f64::from(sorted[i]) / 1000.0
}

/// The server's resident memory (kB) and CPU time (clock ticks), from /proc.
fn usage(pid: u32) -> (u64, u64) {
    let rss = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0);
    let cpu = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            let after = s.rsplit_once(')')?.1;
            let f: Vec<&str> = after.split_whitespace().collect();
            Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
        })
        .unwrap_or(0);
    (rss, cpu)
}

fn start_server(args: &[String]) -> Result<(Child, String), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let server = exe.with_file_name(format!("khet-server{}", std::env::consts::EXE_SUFFIX));
    let mut child = Command::new(&server)
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .args([
            "--log-level",
            "warn",
            "--sockets-per-address",
            "1000000",
            "--connects-per-minute",
            "1000000",
            // Every bot connects from loopback: the caps on games waiting for an opponent
            // would count them all as one household.
            "--open-games-per-address",
            "1000000",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", server.display()))?;
    let mut line = String::new();
    let mut out = BufReader::new(child.stdout.take().ok_or("no output")?);
    out.read_line(&mut line).map_err(|e| e.to_string())?;
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .ok_or_else(|| format!("the server said {line:?}"))?
        .to_string();
    Ok((child, url))
}

fn moves_in_record(addr: &str, code: &str) -> Option<usize> {
    let mut text = String::new();
    // The server's budget of requests an address: wait as it says when it is spent.
    for _ in 0..10 {
        let mut s = std::net::TcpStream::connect(addr).ok()?;
        write!(
            s,
            "GET /games/{code}.ron HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .ok()?;
        text.clear();
        s.read_to_string(&mut text).ok()?;
        if !text.starts_with("HTTP/1.1 429") {
            break;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    let body = text.split_once("\r\n\r\n")?.1;
    let record = khet_engine::Record::from_ron(body, code).ok()?;
    Some(record.moves.len())
}

/// The servers of one run: their processes (none for `--server`) and addresses.
struct Servers {
    label: String,
    children: Vec<Child>,
    /// Other processes counted with them (the database and the broker, with their children).
    others: Vec<u32>,
    urls: Vec<String>,
    data: Option<std::path::PathBuf>,
}

impl Servers {
    fn sqlite() -> Result<Servers, String> {
        let data = std::env::temp_dir().join(format!("khet-load-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&data);
        let (child, url) = start_server(&["--data".into(), data.display().to_string()])?;
        Ok(Servers {
            label: "1 node, SQLite".into(),
            children: vec![child],
            others: Vec::new(),
            urls: vec![url],
            data: Some(data),
        })
    }

    fn cluster(
        database: &str,
        broker: &str,
        nodes: usize,
        others: &[u32],
    ) -> Result<Servers, String> {
        let cluster = format!("load{}", std::process::id());
        // The nodes' shared secret, in a folder removed with the servers.
        let dir = std::env::temp_dir().join(format!("khet-load-{cluster}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let secret_file = dir.join("cluster.secret");
        let secret = khet_protocol::new_secret().map_err(|e| e.to_string())?;
        std::fs::write(&secret_file, format!("{secret}{secret}"))
            .map_err(|e| format!("{}: {e}", secret_file.display()))?;
        let mut servers = Servers {
            label: format!("{nodes} nodes, PostgreSQL + Redis"),
            children: Vec::new(),
            others: others.to_vec(),
            urls: Vec::new(),
            data: Some(dir),
        };
        for i in 0..nodes.max(1) {
            let args = [
                "--database",
                database,
                "--broker",
                broker,
                "--cluster",
                &cluster,
                "--node",
                &format!("n{i}"),
                "--cluster-secret-file",
                &secret_file.display().to_string(),
            ]
            .map(String::from);
            let (child, url) = start_server(&args)?;
            servers.children.push(child);
            servers.urls.push(url);
        }
        Ok(servers)
    }

    /// Resident memory (kB) and CPU ticks of all the nodes together.
    fn usage(&self) -> Option<(u64, u64)> {
        if self.children.is_empty() {
            return None;
        }
        let pids = self.children.iter().map(Child::id);
        Some(pids.map(usage).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)))
    }

    /// The same of the database and broker, with their children; the memory is the
    /// proportional set size, so that PostgreSQL's shared memory counts once, not once per
    /// backend.
    fn others_usage(&self) -> Option<(u64, u64)> {
        if self.others.is_empty() {
            return None;
        }
        let pids = children_of(&self.others);
        Some(
            pids.into_iter()
                .map(|pid| (pss(pid), usage(pid).1))
                .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)),
        )
    }
}

/// A process's proportional set size (kB).
fn pss(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Pss:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// `pids` and their children now (PostgreSQL's backends are its postmaster's children).
fn children_of(pids: &[u32]) -> Vec<u32> {
    let mut all = pids.to_vec();
    if pids.is_empty() {
        return all;
    }
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let parent = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                s.rsplit_once(')')?
                    .1
                    .split_whitespace()
                    .nth(1)?
                    .parse::<u32>()
                    .ok()
            });
        if parent.is_some_and(|p| pids.contains(&p)) {
            all.push(pid);
        }
    }
    all
}

impl Drop for Servers {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(data) = &self.data {
            let _ = std::fs::remove_dir_all(data);
        }
    }
}

fn main() -> Result<(), String> {
    let args = Args::parse();
    let mut runs = Vec::new();
    if let Some(url) = &args.server {
        runs.push(Servers {
            label: url.clone(),
            children: Vec::new(),
            others: Vec::new(),
            urls: vec![url.clone()],
            data: None,
        });
    } else if let (Some(database), Some(broker)) = (&args.database, &args.broker) {
        if args.compare {
            runs.push(Servers::sqlite()?);
        }
        runs.push(Servers::cluster(
            database,
            broker,
            args.nodes,
            &args.watch_pid,
        )?);
    } else {
        runs.push(Servers::sqlite()?);
    }
    let mut reports = Vec::new();
    if args.flood > 0 {
        // The games alone, then with the flood, each on a fresh server.
        let alone = runs.pop().ok_or("no server")?;
        reports.push(measure(&args, &alone, 0)?);
        drop(alone);
        std::thread::sleep(Duration::from_secs(2));
        let mut flooded = Servers::sqlite()?;
        flooded.label = format!("{}, flooded", flooded.label);
        reports.push(measure(&args, &flooded, args.flood)?);
    }
    for servers in runs {
        reports.push(measure(&args, &servers, 0)?);
        // The next run starts on a quiet machine.
        drop(servers);
        std::thread::sleep(Duration::from_secs(2));
    }
    if reports.len() > 1 {
        print_table(&reports);
    }
    Ok(())
}

fn print_table(reports: &[Report]) {
    println!();
    print!("| |");
    for r in reports {
        print!(" {} |", r.label);
    }
    println!();
    println!("|---|{}", "---|".repeat(reports.len()));
    let rows: [(&str, fn(&Report) -> String); 11] = [
        ("games at once", |r| {
            format!("{} ({} at most)", r.live, r.peak_live)
        }),
        ("games started", |r| r.started.to_string()),
        ("moves a second", |r| format!("{:.0}", r.moves_per_second)),
        ("round trip, median", |r| format!("{:.2} ms", r.median_ms)),
        ("round trip, p99", |r| format!("{:.2} ms", r.p99_ms)),
        ("round trip, max", |r| format!("{:.1} ms", r.max_ms)),
        ("server memory (the nodes)", |r| {
            format!("{:.0} MB ({:.0} kB a game)", r.memory_mb, r.kb_a_game)
        }),
        ("server CPU (the nodes)", |r| {
            format!("{:.0} % of one core", r.cpu_percent)
        }),
        ("database and broker", |r| match r.others {
            Some((mb, cpu)) => format!("{mb:.0} MB, {cpu:.0} % of one core"),
            None => "in the server".into(),
        }),
        ("finished games, missing moves, bot errors", |r| {
            format!("{}, {}, {}", r.finished, r.missing, r.errors)
        }),
        (
            "flood: served, refused (429), other; seconds",
            |r| match r.flood {
                Some((ok, refused, other, s)) => format!("{ok}, {refused}, {other}; {s:.1} s"),
                None => "none".into(),
            },
        ),
    ];
    for (name, cell) in rows {
        print!("| {name} |");
        for r in reports {
            print!(" {} |", cell(r));
        }
        println!();
    }
}

/// [`flood`] on a thread of its own, at the lowest priority ([`lowest_priority`]),
/// with a runtime of its own: its answer comes back through the returned receiver.
fn flood_apart(
    addr: String,
    n: u64,
    paths: Vec<String>,
    over: Duration,
) -> tokio::sync::oneshot::Receiver<(u64, u64, u64)> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        lowest_priority();
        let counts = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map(|runtime| runtime.block_on(flood(&addr, n, &paths, over)))
            .unwrap_or((0, 0, n));
        let _ = tx.send(counts);
    });
    rx
}

/// Lowers the calling thread to the lowest priority (nice 19), where Linux can say which thread
/// it is (`/proc/thread-self`) and `renice` is there; else leaves it as it is.
fn lowest_priority() {
    let Ok(link) = std::fs::read_link("/proc/thread-self") else {
        return;
    };
    if let Some(tid) = link.file_name().and_then(|t| t.to_str()) {
        let _ = Command::new("renice")
            .args(["-n", "19", "-p", tid])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// Sends `n` plain HTTP requests from 127.0.0.2 to `addr` over four connections at a time, as
/// fast as they are answered or, with `over` longer than zero, the `i`-th no sooner than
/// `i / n` of `over` after the first: answered 200, refused 429, anything else (a failed
/// connection included).
async fn flood(addr: &str, n: u64, paths: &[String], over: Duration) -> (u64, u64, u64) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let Ok(to) = addr.parse::<std::net::SocketAddr>() else {
        return (0, 0, n);
    };
    let paths: Arc<Vec<String>> = Arc::new(if paths.is_empty() {
        ["/games", "/players", "/", "/play", "/metrics"]
            .map(String::from)
            .to_vec()
    } else {
        paths.to_vec()
    });
    let next = Arc::new(AtomicU64::new(0));
    let start = tokio::time::Instant::now();
    let mut workers = Vec::new();
    for _ in 0..4 {
        let (next, paths) = (next.clone(), paths.clone());
        workers.push(tokio::spawn(async move {
            let (mut ok, mut refused, mut other) = (0, 0, 0);
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                if !over.is_zero() {
                    tokio::time::sleep_until(start + over.mul_f64(i as f64 / n as f64)).await;
                }
                let answer = async {
                    let socket = tokio::net::TcpSocket::new_v4().ok()?;
                    socket.bind(([127, 0, 0, 2], 0).into()).ok()?;
                    let mut s = socket.connect(to).await.ok()?;
                    let request = format!(
                        "GET {} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                        paths[usize::try_from(i).unwrap_or(0) % paths.len()]
                    );
                    s.write_all(request.as_bytes()).await.ok()?;
                    let mut head = [0u8; 12];
                    s.read_exact(&mut head).await.ok()?;
                    let mut rest = Vec::new();
                    s.read_to_end(&mut rest).await.ok()?;
                    Some(head)
                };
                match answer.await {
                    Some(head) if &head[9..12] == b"200" => ok += 1,
                    Some(head) if &head[9..12] == b"429" => refused += 1,
                    _ => other += 1,
                }
            }
            (ok, refused, other)
        }));
    }
    let mut total = (0, 0, 0);
    for w in workers {
        if let Ok((a, b, c)) = w.await {
            total = (total.0 + a, total.1 + b, total.2 + c);
        }
    }
    total
}

/// One measured run against `servers` (while `flood` requests are sent, if any).
fn measure(args: &Args, servers: &Servers, flood_requests: u64) -> Result<Report, String> {
    let urls = Arc::new(servers.urls.clone());
    let url = servers.urls.join(",");
    let idle = servers.usage();

    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let stats = Arc::new(Stats::default());
    let think = Duration::from_millis(args.think_ms);
    let ramp = Duration::from_secs(args.ramp);
    let begin = Instant::now();
    let until = begin + ramp + Duration::from_secs(args.seconds);
    let mut report = Report {
        label: servers.label.clone(),
        ..Report::default()
    };
    println!(
        "{}: {} games at once ({} connections), a move every {} ms a bot, server {url}",
        servers.label,
        args.games,
        args.games * 2,
        args.think_ms
    );
    runtime.block_on(async {
        let tasks = start_games(args.games, &urls, &stats, think, ramp, until);
        tokio::time::sleep(ramp).await;
        let live = stats.live.load(Ordering::Relaxed);
        println!("after the ramp: {live} games live");
        let before = servers.usage();
        let others_before = servers.others_usage();
        stats.measuring.store(true, Ordering::Relaxed);
        let window = Instant::now();
        let peak_live = hold_window(
            args,
            &urls,
            &stats,
            flood_requests,
            until,
            window,
            live,
            &mut report,
        )
        .await;
        stats.measuring.store(false, Ordering::Relaxed);
        let seconds = window.elapsed().as_secs_f64();
        let after = servers.usage();
        let others_after = servers.others_usage();
        report_moves(&stats, live, peak_live, seconds, &mut report);
        report_usage(
            idle,
            before,
            after,
            others_before,
            others_after,
            live,
            seconds,
            &mut report,
        );
        // Let the games end (the bots stop starting new ones) and check the records.
        // Five seconds for the games near their end; the rest are left unfinished (only
        // finished games are checked), and end with the runtime.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        for t in tasks {
            let _ = tokio::time::timeout_at(deadline, t).await;
        }
    });
    check_records(servers, &stats, &mut report);
    Ok(report)
}

/// Spawns the `games` games' pairs of bots, their starts spread evenly over `ramp`.
fn start_games(
    games: u32,
    urls: &Arc<Vec<String>>,
    stats: &Arc<Stats>,
    think: Duration,
    ramp: Duration,
    until: Instant,
) -> Vec<tokio::task::JoinHandle<()>> {
    let mut tasks = Vec::new();
    for n in 0..u64::from(games) {
        let delay = ramp.mul_f64(n as f64 / f64::from(games.max(1)));
        let (urls, stats) = (urls.clone(), stats.clone());
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            pair(urls, n, think, until, stats).await;
        }));
    }
    tasks
}

/// Waits out the measured window, opened at `window` with `live` games live: the flood's time
/// (its counts go into `report`), or else until `until`; the most games live seen.
async fn hold_window(
    args: &Args,
    urls: &[String],
    stats: &Stats,
    flood_requests: u64,
    until: Instant,
    window: Instant,
    live: i64,
    report: &mut Report,
) -> i64 {
    let mut peak_live = live;
    if flood_requests > 0 {
        // The window is the flood's time.
        let addr = urls[0].trim_start_matches("ws://").to_string();
        let over = Duration::from_secs(args.flood_seconds);
        let answer = flood_apart(addr, flood_requests, args.flood_path.clone(), over);
        let (ok, refused, other) = answer.await.unwrap_or((0, 0, flood_requests));
        let seconds = window.elapsed().as_secs_f64();
        println!(
            "flood from 127.0.0.2: {flood_requests} requests in {seconds:.1} s: {ok} served, \
             {refused} refused (429), {other} other"
        );
        report.flood = Some((ok, refused, other, seconds));
        peak_live = peak_live.max(stats.live.load(Ordering::Relaxed));
    } else {
        while Instant::now() < until {
            tokio::time::sleep(Duration::from_secs(1)).await;
            peak_live = peak_live.max(stats.live.load(Ordering::Relaxed));
        }
    }
    peak_live
}

/// The window's games and moves: the games live (`live` at its start, `peak_live` at most),
/// the moves a second and their round trips, printed and put in `report`.
fn report_moves(stats: &Stats, live: i64, peak_live: i64, seconds: f64, report: &mut Report) {
    let moves = stats.moves.load(Ordering::Relaxed);
    let mut rtts = stats.rtts.lock().map(|r| r.clone()).unwrap_or_default();
    rtts.sort_unstable();
    println!(
        "games at once: {} at the start of the window, {peak_live} at most; {} games started",
        live,
        stats.started.load(Ordering::Relaxed)
    );
    report.live = live;
    report.peak_live = peak_live;
    report.started = stats.started.load(Ordering::Relaxed);
    report.moves_per_second = moves as f64 / seconds;
    report.median_ms = percentile(&rtts, 0.5);
    report.p99_ms = percentile(&rtts, 0.99);
    report.max_ms = percentile(&rtts, 1.0);
    println!(
        "moves: {moves} in {seconds:.1} s = {:.1} a second",
        report.moves_per_second
    );
    println!(
        "round trip of a move: median {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        report.median_ms, report.p99_ms, report.max_ms
    );
}

/// The memory and CPU over the window (usages as (kB, CPU ticks)) of the database and broker,
/// if counted, and of the servers against `idle`, `live` games sharing them: printed and put in
/// `report`.
fn report_usage(
    idle: Option<(u64, u64)>,
    before: Option<(u64, u64)>,
    after: Option<(u64, u64)>,
    others_before: Option<(u64, u64)>,
    others_after: Option<(u64, u64)>,
    live: i64,
    seconds: f64,
    report: &mut Report,
) {
    if let (Some((_, cpu0)), Some((kb, cpu1))) = (others_before, others_after) {
        let share = (cpu1 - cpu0) as f64 / 100.0 / seconds * 100.0;
        report.others = Some((kb as f64 / 1024.0, share));
        println!(
            "database and broker: {:.1} MB (proportional); CPU {share:.0} % of one core",
            kb as f64 / 1024.0
        );
    }
    if let (Some((idle_kb, _)), Some((_, cpu0)), Some((rss, cpu1))) = (idle, before, after) {
        let ticks = 100.0; // USER_HZ on Linux
        report.memory_mb = rss as f64 / 1024.0;
        report.kb_a_game = (rss.saturating_sub(idle_kb)) as f64 / live.max(1) as f64;
        report.cpu_percent = (cpu1 - cpu0) as f64 / ticks / seconds * 100.0;
        println!(
            "server: {:.1} MB idle, {:.1} MB with the games: {:.0} kB a game; CPU {:.0} % of one core",
            idle_kb as f64 / 1024.0,
            rss as f64 / 1024.0,
            (rss.saturating_sub(idle_kb)) as f64 / live.max(1) as f64,
            (cpu1 - cpu0) as f64 / ticks / seconds * 100.0
        );
    }
}

/// Checks each finished game's acknowledged moves against the server's record of it, and
/// prints and puts in `report` the games checked, those missing moves and the bots' errors.
fn check_records(servers: &Servers, stats: &Stats, report: &mut Report) {
    let errors = stats.errors.load(Ordering::Relaxed);
    let acknowledged = stats
        .acknowledged
        .lock()
        .map(|a| a.clone())
        .unwrap_or_default();
    let addr = servers.urls[0].trim_start_matches("ws://").to_string();
    let mut missing = 0;
    for (code, plies) in &acknowledged {
        if moves_in_record(&addr, code).is_none_or(|m| m < *plies) {
            missing += 1;
        }
    }
    println!(
        "records: {} finished games checked, {missing} missing acknowledged moves; bot errors: {errors}",
        acknowledged.len()
    );
    stats.done.store(true, Ordering::Relaxed);
    report.finished = acknowledged.len();
    report.missing = missing;
    report.errors = errors;
}
