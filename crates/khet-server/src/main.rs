//! `khet-server`: run Khet's online play on this machine (`--help`).

use clap::Parser;
use khet_server::limits::LimitSettings;
use khet_server::store::Store;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "khet-server",
    version,
    about = "Khet online: games between players anywhere, checked by the engine and stored \
             before they are acknowledged",
    after_help = "It prints `listening on ws://ADDRESS` when ready. Games and players are kept \
                  in an SQLite database in the data folder, or in PostgreSQL with --database. See \
                  docs/online-protocol.md."
)]
struct Args {
    /// The address and port to listen on (port 0: any free port)
    #[arg(long, default_value = "127.0.0.1:7878")]
    listen: SocketAddr,
    /// The folder of the built-in SQLite database (default: the platform's data folder, e.g.
    /// ~/.local/share/khet/server)
    #[arg(long, conflicts_with = "database")]
    data: Option<PathBuf>,
    /// A database server instead of the built-in one: postgres://USER@HOST:PORT/DATABASE
    /// (the schema is made or brought up to date at start)
    #[arg(long, value_name = "URL")]
    database: Option<String>,
    /// Run as one node among several: the Redis server they share, redis://HOST:PORT (needs
    /// --database, the PostgreSQL they share)
    #[arg(long, value_name = "URL", requires = "database")]
    broker: Option<String>,
    /// The cluster's name: nodes of one cluster share it, and clusters sharing one Redis differ
    #[arg(long, default_value = "khet", requires = "broker")]
    cluster: String,
    /// This node's name among the nodes (default: a new random one at each start)
    #[arg(long, requires = "broker")]
    node: Option<String>,
    /// Seconds a node holds its games without renewing: how soon another node takes up the
    /// games of one that died
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 10.0,
        requires = "broker"
    )]
    lease: f64,
    /// Sockets one address may have open at once
    #[arg(long, default_value_t = LimitSettings::default().sockets_per_address)]
    sockets_per_address: u32,
    /// New sockets one address may open a minute
    #[arg(long, default_value_t = LimitSettings::default().connects_per_minute)]
    connects_per_minute: u32,
    /// Messages one connection may send a second
    #[arg(long, default_value_t = LimitSettings::default().messages_per_second)]
    messages_per_second: u32,
    /// Seconds a player must be gone before the opponent may claim the game
    #[arg(long, value_name = "SECONDS", default_value_t = khet_protocol::ABANDON_GRACE_MS as f64 / 1000.0)]
    abandon_grace: f64,
}

fn data_folder() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "khet").map(|d| d.data_dir().join("server"))
}

async fn shutdown() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let term = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut s) => {
                    s.recv().await;
                }
                Err(_) => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = ctrl_c => {}
            () = term => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

/// `url` without its password, for messages.
fn redacted(url: &str) -> String {
    match (url.split_once("://"), url.rfind('@')) {
        (Some((scheme, rest)), Some(at)) if at > scheme.len() => {
            let (userinfo, host) = rest.split_at(at - scheme.len() - 3);
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{scheme}://{user}{host}")
        }
        _ => url.to_string(),
    }
}

async fn run(args: Args) -> Result<(), String> {
    let (store, where_) = match &args.database {
        Some(url) => {
            let store = Store::open(url)
                .await
                .map_err(|e| format!("{}: {e}", redacted(url)))?;
            (store, redacted(url))
        }
        None => {
            let data = args
                .data
                .or_else(data_folder)
                .ok_or("no data folder: give one with --data")?;
            let store = Store::open_folder(&data)
                .await
                .map_err(|e| format!("{}: {e}", data.display()))?;
            (store, data.display().to_string())
        }
    };
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    // Whoever started the server may have stopped reading its output: never fail on that.
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "listening on ws://{addr}\ndata in {where_}");
    let _ = stdout.flush();
    if !(0.0..=86_400.0).contains(&args.abandon_grace) {
        return Err("--abandon-grace is 0 to 86400 seconds".into());
    }
    if !(1.0..=3_600.0).contains(&args.lease) {
        return Err("--lease is 1 to 3600 seconds".into());
    }
    let settings = khet_server::Settings {
        limits: LimitSettings {
            sockets_per_address: args.sockets_per_address,
            connects_per_minute: args.connects_per_minute,
            messages_per_second: args.messages_per_second,
        },
        abandon_grace: Duration::from_secs_f64(args.abandon_grace),
        cluster: match args.broker {
            Some(broker) => {
                let node = match args.node {
                    Some(node) => node,
                    None => {
                        khet_protocol::new_secret().map_err(|e| e.to_string())?[..8].to_string()
                    }
                };
                if node.is_empty() || !node.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                    return Err("--node is letters, digits and dashes".into());
                }
                if args.cluster.is_empty()
                    || !args
                        .cluster
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-')
                {
                    return Err("--cluster is letters, digits and dashes".into());
                }
                Some(khet_server::ClusterSettings {
                    name: args.cluster,
                    broker,
                    node,
                    lease: Duration::from_secs_f64(args.lease),
                })
            }
            None => None,
        },
    };
    khet_server::serve(listener, store, settings, shutdown())
        .await
        .map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
