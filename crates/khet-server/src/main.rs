//! `khet-server`: run Khet's online play on this machine (`--help`), and tend its data
//! (`backup`, `restore`).

mod config;

use clap::{Parser, Subcommand};
use khet_server::hub::OpenGameSettings;
use khet_server::identity::IdentityPolicy;
use khet_server::limits::LimitSettings;
use khet_server::logs::LogFormat;
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
    after_help = "It prints `listening on ws://ADDRESS` (wss:// with TLS) when ready, and logs to standard error. \
                  Games and players are kept in an SQLite database in the data folder, or in \
                  PostgreSQL with --database. Every option can also be set in a file given with \
                  --config, one `name = value` a line (the option's name without its dashes); \
                  an option given on the command line wins. See docs/server.md."
)]
struct Cli {
    /// Options from FILE: one `name = value` a line, `#` for comments
    #[arg(long, value_name = "FILE", global = true)]
    config: Option<PathBuf>,
    /// The folder of the built-in SQLite database (default: the platform's data folder, e.g.
    /// ~/.local/share/khet/server)
    #[arg(long, conflicts_with = "database", global = true)]
    data: Option<PathBuf>,
    /// A database server instead of the built-in one: postgres://USER@HOST:PORT/DATABASE
    /// (the schema is made or brought up to date at start)
    #[arg(long, value_name = "URL", global = true)]
    database: Option<String>,
    /// Where the operator's commands (`admin`) arrive: a Unix socket only this user may open
    /// (default: admin.sock in the data folder; none with --database unless given)
    #[arg(long, value_name = "PATH", global = true)]
    admin_socket: Option<PathBuf>,
    #[command(flatten)]
    serve: Args,
    #[command(subcommand)]
    command: Option<Tend>,
}

/// What an operator does besides serving.
#[allow(clippy::doc_markdown)] // The doc comments are `--help`'s text, not Markdown.
#[derive(Subcommand)]
enum Tend {
    /// Copy the built-in database to FILE, whole, while the server runs (PostgreSQL: pg_dump)
    Backup {
        /// Where the copy goes (replaced once the copy is whole)
        file: PathBuf,
    },
    /// Put a backup in place as the data folder's database; the server must be stopped (the
    /// database replaced is kept beside it)
    Restore {
        /// The backup
        file: PathBuf,
    },
    /// Tell the running server (through --admin-socket)
    Admin {
        #[command(subcommand)]
        what: Admin,
    },
}

/// The operator's commands to a running server.
#[derive(Subcommand)]
enum Admin {
    /// List the players, newest first
    Players,
    /// List the games, newest first
    Games,
    /// Give a player a name of the operator's choosing, which the player's game cannot change
    Rename {
        /// The player's id (as `players` shows it)
        player: String,
        /// The new name
        name: String,
    },
    /// Bar an identity: its games end as resigned, and it cannot connect again
    Bar {
        /// The player's id
        player: String,
        /// What the player is told
        #[arg(default_value = "")]
        reason: String,
    },
    /// Let a barred identity connect again
    Unbar {
        /// The player's id
        player: String,
    },
    /// Take an open game out of the lobby (withdrawn, as its creator would)
    Unlist {
        /// The game's code
        code: String,
    },
    /// Create, start, pause, resume or end a tournament
    Tournament {
        #[command(subcommand)]
        what: khet_server::admin::TournamentCommand,
    },
}

/// Serving.
#[allow(clippy::doc_markdown)] // The doc comments are `--help`'s text, not Markdown.
#[derive(clap::Args)]
struct Args {
    /// The address and port to listen on (port 0: any free port)
    #[arg(long, default_value = "127.0.0.1:7878")]
    listen: SocketAddr,
    /// Run as one node among several: the Redis server they share, redis://HOST:PORT, or
    /// rediss://HOST:PORT for TLS (needs --database, the PostgreSQL they share, and
    /// --cluster-secret-file)
    #[arg(long, value_name = "URL", requires = "database")]
    broker: Option<String>,
    /// The cluster's name: nodes of one cluster share it, and clusters sharing one Redis differ
    #[arg(long, default_value = "khet", requires = "broker")]
    cluster: String,
    /// This node's name among the nodes (default: a new random one at each start)
    #[arg(long, requires = "broker")]
    node: Option<String>,
    /// The secret the nodes of the cluster share, which signs their messages: this file's
    /// content, at least 32 bytes (needed with --broker; readable by the server's user only)
    #[arg(long, value_name = "FILE", requires = "broker")]
    cluster_secret_file: Option<PathBuf>,
    /// Redis's password, this file's content (instead of in --broker's URL, which others may
    /// read on the command line)
    #[arg(long, value_name = "FILE", requires = "broker")]
    broker_password_file: Option<PathBuf>,
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
    /// Requests (pages, lists, files, socket openings) one address may make a minute, after a
    /// burst of a quarter as many; past it, 429. An address is the first 64 bits of an IPv6 address (one subscriber's), or an IPv4 address
    #[arg(long, default_value_t = LimitSettings::default().requests_per_minute)]
    requests_per_minute: u32,
    /// Connections open at once, all addresses together (WebSockets included); past it, 503
    #[arg(long, default_value_t = LimitSettings::default().max_connections)]
    max_connections: u32,
    /// A reverse proxy in front, ADDR or ADDR/PREFIX: a request from it is counted as from the
    /// client its X-Forwarded-For names (the right-most address not a trusted proxy's). Give it
    /// once for each proxy; without it the header is ignored
    #[arg(long, value_name = "ADDR[/PREFIX]")]
    trusted_proxy: Vec<khet_server::edge::Prefix>,
    /// Let the pages of another site open the WebSockets: https://HOST[:PORT], once for each.
    /// Programs (no Origin) and the server's own pages always may
    #[arg(long, value_name = "URL", value_parser = khet_server::edge::parse_origin)]
    allow_origin: Vec<String>,
    /// Seconds a player must be gone before the opponent may claim the game
    #[arg(long, value_name = "SECONDS", default_value_t = khet_protocol::ABANDON_GRACE_MS as f64 / 1000.0)]
    abandon_grace: f64,
    /// Games (casual ones with a move from each side, or rated) a player must finish before
    /// playing rated (0: none)
    #[arg(long, value_name = "GAMES", default_value_t = IdentityPolicy::default().games_before_rated)]
    games_before_rated: u32,
    /// Rated games two players may start against each other in 24 hours (0: no limit)
    #[arg(long, value_name = "GAMES", default_value_t = IdentityPolicy::default().rated_per_pair_per_day)]
    rated_per_pair_per_day: u32,
    /// Hours a bar holds new identities from the networks the barred player connected from
    /// (an IPv4 address, an IPv6 /64), which are kept that long for it (0: none kept or held)
    #[arg(long, value_name = "HOURS", default_value_t = 24.0)]
    bar_holds_network: f64,
    /// Games one player may have waiting for an opponent at once
    #[arg(long, default_value_t = OpenGameSettings::default().per_player)]
    open_games_per_player: u32,
    /// Games the players of one address (for IPv6, its 64-bit prefix) may have waiting for an
    /// opponent at once
    #[arg(long, default_value_t = OpenGameSettings::default().per_address)]
    open_games_per_address: u32,
    /// Seconds a game waiting for an opponent is kept once its creator is gone; then it is
    /// withdrawn (and at a start, older ones are withdrawn instead of loaded)
    #[arg(long, value_name = "SECONDS", default_value_t = OpenGameSettings::default().withdraw_after.as_secs_f64())]
    withdraw_open_after: f64,
    /// Serve https and wss with the certificate chain in this PEM file (needs --tls-key)
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert's certificate, a PEM file
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// How the log on standard error is written: text lines, or JSON objects for a collector
    #[arg(long, value_enum, default_value = "text")]
    log_format: LogFormat,
    /// What is logged: error, warn, info or debug (or a filter such as khet_server=debug)
    #[arg(long, value_name = "LEVEL", default_value = "info")]
    log_level: String,
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

/// Where the games are kept: a PostgreSQL URL, or the built-in database's folder.
enum Place {
    Server(String),
    Folder(PathBuf),
}

impl Place {
    /// Where the operator's commands arrive: as given, or in the data folder.
    fn admin_socket(&self, given: Option<&PathBuf>) -> Option<PathBuf> {
        match (given, self) {
            (Some(path), _) => Some(path.clone()),
            // Windows has no Unix sockets (`admin::NO_SOCKET`): no socket unless one is asked for.
            (None, Place::Folder(dir)) => cfg!(unix).then(|| dir.join("admin.sock")),
            (None, Place::Server(_)) => None,
        }
    }

    /// The lock on the built-in database's folder, held while serving: one server a folder,
    /// and no restore under it (none for a database server).
    fn lock(&self) -> Result<Option<std::fs::File>, String> {
        match self {
            Place::Server(_) => Ok(None),
            Place::Folder(data) => khet_server::backup::lock_folder(data).map(Some),
        }
    }

    /// Opens the store kept here, and names it for messages (a URL without its password).
    async fn open(self) -> Result<(Store, String), String> {
        match self {
            Place::Server(url) => {
                let store = Store::open(&url)
                    .await
                    .map_err(|e| format!("{}: {e}", redacted(&url)))?;
                Ok((store, redacted(&url)))
            }
            Place::Folder(data) => {
                let store = Store::open_folder(&data)
                    .await
                    .map_err(|e| format!("{}: {e}", data.display()))?;
                Ok((store, data.display().to_string()))
            }
        }
    }

    fn of(cli: &Cli) -> Result<Place, String> {
        match (&cli.database, &cli.data) {
            (Some(url), _) => Ok(Place::Server(url.clone())),
            (None, Some(dir)) => Ok(Place::Folder(dir.clone())),
            (None, None) => data_folder()
                .map(Place::Folder)
                .ok_or_else(|| "no data folder: give one with --data".to_string()),
        }
    }
}

async fn run(
    args: Args,
    place: Place,
    admin_socket: Option<PathBuf>,
    config: Option<PathBuf>,
) -> Result<(), String> {
    khet_server::logs::init(args.log_format, &args.log_level)?;
    if let Some(config) = &config {
        khet_server::seal::warn_if_others_read(config);
    }
    // Held until the server ends: one server a data folder, and no restore under it.
    let _lock = place.lock()?;
    let (store, where_) = place.open().await?;
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(khet_server::tls::Tls::from_pem_files(cert, key)?),
        _ => None,
    };
    let scheme = if tls.is_some() { "wss" } else { "ws" };
    let admin = match admin_socket {
        Some(path) => Some(std::sync::Arc::new(khet_server::admin::Socket::bind(
            &path,
        )?)),
        None => None,
    };
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    // Whoever started the server may have stopped reading its output: never fail on that.
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "listening on {scheme}://{addr}\ndata in {where_}");
    let _ = stdout.flush();
    check_times(&args)?;
    let settings = server_settings(args, tls, admin)?;
    khet_server::serve(listener, store, settings, shutdown())
        .await
        .map_err(|e| e.to_string())
}

/// Refuses a time option (seconds or hours) outside its range.
fn check_times(args: &Args) -> Result<(), String> {
    if !(0.0..=86_400.0).contains(&args.abandon_grace) {
        return Err("--abandon-grace is 0 to 86400 seconds".into());
    }
    if !(1.0..=3_600.0).contains(&args.lease) {
        return Err("--lease is 1 to 3600 seconds".into());
    }
    if !(0.0..=8_760.0).contains(&args.bar_holds_network) {
        return Err("--bar-holds-network is 0 to 8760 hours".into());
    }
    if !(0.0..=604_800.0).contains(&args.withdraw_open_after) {
        return Err("--withdraw-open-after is 0 to 604800 seconds (a week)".into());
    }
    Ok(())
}

/// The server's settings from its options, with the certificate and the admin socket made
/// ready (and, for a node of a cluster, its secret and password read).
fn server_settings(
    args: Args,
    tls: Option<khet_server::tls::Tls>,
    admin: Option<std::sync::Arc<khet_server::admin::Socket>>,
) -> Result<khet_server::Settings, String> {
    Ok(khet_server::Settings {
        limits: LimitSettings {
            sockets_per_address: args.sockets_per_address,
            connects_per_minute: args.connects_per_minute,
            messages_per_second: args.messages_per_second,
            requests_per_minute: args.requests_per_minute,
            max_connections: args.max_connections,
        },
        trusted_proxies: args.trusted_proxy,
        allowed_origins: args.allow_origin,
        abandon_grace: Duration::from_secs_f64(args.abandon_grace),
        open_games: OpenGameSettings {
            per_player: args.open_games_per_player,
            per_address: args.open_games_per_address,
            withdraw_after: Duration::from_secs_f64(args.withdraw_open_after),
        },
        cluster: match args.broker {
            Some(broker) => Some(cluster_settings(
                broker,
                args.node,
                args.cluster,
                args.cluster_secret_file.as_deref(),
                args.broker_password_file.as_ref(),
                args.lease,
            )?),
            None => None,
        },
        tls,
        admin,
        identity: IdentityPolicy {
            games_before_rated: args.games_before_rated,
            rated_per_pair_per_day: args.rated_per_pair_per_day,
            bar_holds_network: Duration::from_secs_f64(args.bar_holds_network * 3600.0),
        },
        clock: std::sync::Arc::default(),
    })
}

/// A node's settings in the cluster sharing `broker`: the node's name (a new random one unless
/// given) and the cluster's checked, the shared secret and Redis's password read from their
/// files.
fn cluster_settings(
    broker: String,
    node: Option<String>,
    cluster: String,
    secret_file: Option<&std::path::Path>,
    password_file: Option<&PathBuf>,
    lease: f64,
) -> Result<khet_server::ClusterSettings, String> {
    let node = match node {
        Some(node) => node,
        None => khet_protocol::new_secret().map_err(|e| e.to_string())?[..8].to_string(),
    };
    if node.is_empty() || !node.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Err("--node is letters, digits and dashes".into());
    }
    if cluster.is_empty()
        || !cluster
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        return Err("--cluster is letters, digits and dashes".into());
    }
    let secret = secret_file.ok_or(
        "--broker needs --cluster-secret-file: the secret the nodes share, which \
         signs their messages (at least 32 bytes; docs/server.md)",
    )?;
    khet_server::seal::warn_if_others_read(secret);
    let secret = khet_server::seal::SharedSecret::from_file(secret)?;
    let broker_password = match password_file {
        Some(file) => {
            khet_server::seal::warn_if_others_read(file);
            let bytes = khet_server::seal::read_secret_file(file)?;
            let password = String::from_utf8(bytes)
                .map_err(|_| format!("{}: not UTF-8 text", file.display()))?;
            Some(khet_server::seal::Hidden(password))
        }
        None => None,
    };
    Ok(khet_server::ClusterSettings {
        name: cluster,
        broker,
        node,
        secret,
        broker_password,
        lease: Duration::from_secs_f64(lease),
    })
}

/// `backup`, `restore` and `admin`.
async fn tend(command: Tend, place: Place, admin_socket: Option<PathBuf>) -> Result<(), String> {
    let folder = || match &place {
        Place::Folder(data) => Ok(data.clone()),
        Place::Server(_) => Err(
            "PostgreSQL's games are backed up and restored with PostgreSQL's \
                                 own pg_dump and pg_restore (docs/server.md)"
                .to_string(),
        ),
    };
    match command {
        Tend::Admin { what } => {
            // On Windows `request` refuses with the reason: there are no Unix sockets there.
            let socket = match admin_socket {
                Some(socket) => socket,
                None if cfg!(unix) => {
                    return Err("no admin socket: give the server's --admin-socket".into());
                }
                None => PathBuf::from("admin.sock"),
            };
            admin(&socket, &what)?;
        }
        Tend::Backup { file } => {
            let copy = khet_server::backup::backup(&folder()?, &file).await?;
            println!(
                "backed up {} game(s) and {} player(s) to {}",
                copy.games,
                copy.players,
                file.display()
            );
        }
        Tend::Restore { file } => {
            let data = folder()?;
            let (copy, kept) = khet_server::backup::restore(&data, &file).await?;
            println!(
                "restored {} game(s) and {} player(s) from {} into {}",
                copy.games,
                copy.players,
                file.display(),
                data.display()
            );
            if let Some(kept) = kept {
                println!("the database it replaced is kept as {}", kept.display());
            }
        }
    }
    Ok(())
}

/// Sends `what` to the server listening on the admin socket at `socket`, and prints its answer.
fn admin(socket: &std::path::Path, what: &Admin) -> Result<(), String> {
    let (method, path, body) = match what {
        Admin::Players => ("GET", "/players".to_string(), String::new()),
        Admin::Games => ("GET", "/games".to_string(), String::new()),
        Admin::Rename { player, name } => ("POST", format!("/players/{player}/name"), name.clone()),
        Admin::Bar { player, reason } => ("POST", format!("/players/{player}/bar"), reason.clone()),
        Admin::Unbar { player } => ("POST", format!("/players/{player}/unbar"), String::new()),
        Admin::Unlist { code } => ("POST", format!("/games/{code}/unlist"), String::new()),
        Admin::Tournament { what } => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
            what.request(now)?
        }
    };
    if path.contains(['?', '#', ' ']) {
        return Err("an id or code has no spaces, ? or #".into());
    }
    let (status, answer) = khet_server::admin::request(socket, method, &path, &body)?;
    print!("{answer}");
    if status < 400 {
        Ok(())
    } else {
        Err(format!("the server refused ({status})"))
    }
}

fn main() -> ExitCode {
    let cli = match config::parse() {
        Ok(cli) => cli,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let done = Place::of(&cli).and_then(|place| {
        let admin_socket = place.admin_socket(cli.admin_socket.as_ref());
        match cli.command {
            Some(command) => runtime.block_on(tend(command, place, admin_socket)),
            None => runtime.block_on(run(cli.serve, place, admin_socket, cli.config)),
        }
    });
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
