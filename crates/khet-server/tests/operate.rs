//! The server as its operator meets it: real `khet-server` processes, a real PostgreSQL of the
//! test's own (stopped and started again), real signals. What Prometheus scrapes moves by a
//! game's moves; `/readyz` follows the database; `SIGTERM` ends the server whatever its clients
//! or its database do; a backup made while games are played restores, and every record in it
//! replays; the configuration file is read, and the command line wins; the JSON log tells of
//! each game and holds no secret.

mod common;

use common::services::{Postgres, Redis};
use common::{
    Backend, Client, Db, PATIENCE, Server, casual, pair, pharaoh_line, play_line, replayed, tend,
    tend_on, text,
};
use khet_protocol::client::{ClientError, Connection};
use khet_protocol::{ClientMsg, Refusal};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn server_program() -> &'static str {
    env!("CARGO_BIN_EXE_khet-server")
}

/// The samples of a Prometheus text page: `name{labels}` to value.
fn scrape(server: &Server) -> HashMap<String, f64> {
    let (status, body) = server.get("/metrics");
    assert_eq!(status, 200, "{body}");
    body.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (name, value) = l.rsplit_once(' ').expect("a sample");
            (name.to_string(), value.parse().expect("a number"))
        })
        .collect()
}

fn sample(page: &HashMap<String, f64>, name: &str) -> f64 {
    page.get(name).copied().unwrap_or(0.0)
}

/// Silver (the creator) and Red, seated in a new casual game of `server`'s.
fn two_players(server: &Server) -> (Client, Client, String) {
    pair(&server.url, casual())
}

fn new_game(server: &Server) -> String {
    two_players(server).2
}

/// Polls `GET path` until its status is `want`, within [`PATIENCE`]: the last body.
fn until_status(server: &Server, path: &str, want: u16, what: &str) -> String {
    let start = Instant::now();
    loop {
        let (status, body) = server.get(path);
        if status == want {
            return body;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "{what}: {path} still answers {status} after {} s: {body}",
            PATIENCE.as_secs()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_metrics_move_by_a_games_moves_its_refusal_and_its_end() {
    let db = Db::new(Backend::Sqlite, "metrics");
    let server = Server::start(&db, 0, &[]);
    let before = scrape(&server);
    let (mut silver, mut red, _) = two_players(&server);
    silver.refused(
        &ClientMsg::Move {
            ply: 0,
            mv: "a1a1".into(),
        },
        Refusal::Illegal,
    );
    let line = pharaoh_line();
    play_line(&mut silver, &mut red, &mut [], &line);
    silver.wait_result();
    let after = scrape(&server);
    let moved = |name: &str| sample(&after, name) - sample(&before, name);
    assert_eq!(moved("khet_games_created_total"), 1.0);
    assert_eq!(moved("khet_games_finished_total"), 1.0);
    assert_eq!(moved("khet_connections_total"), 2.0);
    assert_eq!(sample(&after, "khet_connections_open"), 2.0);
    #[allow(clippy::cast_precision_loss)]
    let plies = line.len() as f64;
    assert_eq!(moved("khet_move_seconds_count"), plies);
    assert_eq!(moved("khet_move_seconds_bucket{le=\"+Inf\"}"), plies);
    assert!(moved("khet_move_seconds_sum") > 0.0);
    assert_eq!(moved("khet_refusals_total{code=\"illegal\"}"), 1.0);
    assert_eq!(sample(&after, "khet_database_errors_total"), 0.0);
    drop((silver, red));
    // The gauge follows the connections down.
    let start = Instant::now();
    while sample(&scrape(&server), "khet_connections_open") != 0.0 {
        assert!(start.elapsed() < PATIENCE, "the connections counted closed");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn readyz_fails_while_postgresql_is_stopped_and_passes_when_it_is_back() {
    let pg = Postgres::own();
    let db = Db::on(&pg, "ready");
    let server = Server::start(&db, 0, &[]);
    assert_eq!(server.get("/healthz"), (200, "ok\n".to_string()));
    until_status(&server, "/readyz", 200, "with PostgreSQL up");
    pg.stop();
    let why = until_status(&server, "/readyz", 503, "with PostgreSQL stopped");
    assert!(why.contains("database"), "{why}");
    // What failed is named, not how: the database's own error (its host, its user) is the
    // log's, not anyone's who asks.
    assert_eq!(why, "not ready: database: not answering\n");
    assert_eq!(server.get("/healthz").0, 200, "the process still answers");
    pg.start_again();
    until_status(&server, "/readyz", 200, "with PostgreSQL back");
    // And it serves again: a game is created and stored.
    let code = new_game(&server);
    assert_eq!(server.get(&format!("/games/{code}.ron")).0, 200);
}

#[test]
fn sigterm_ends_the_server_with_a_half_sent_request_an_idle_connection_and_players_open() {
    let db = Db::new(Backend::Sqlite, "sigterm");
    let server = Server::start(&db, 0, &[]);
    let (silver, red, _) = two_players(&server);
    // Headers begun and never finished.
    let mut half = TcpStream::connect(&server.addr).unwrap();
    half.write_all(b"GET /healthz HTTP/1.1\r\nHost: khet\r\n")
        .unwrap();
    // A connection kept alive after its answer, idle.
    let mut idle = TcpStream::connect(&server.addr).unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: khet\r\n\r\n")
        .unwrap();
    let mut answer = [0; 12];
    idle.read_exact(&mut answer).unwrap();
    assert_eq!(&answer, b"HTTP/1.1 200");
    let status = server.terminate("with a half-sent request, an idle connection and two players");
    assert!(status.success(), "{status}");
    drop((half, idle, silver, red));
}

/// The database cut off: PostgreSQL frozen, so that the node's statements get no answer at all
/// (a stopped one refuses at once, which ends no differently from a healthy stop).
#[test]
fn sigterm_ends_a_node_whose_postgresql_does_not_answer() {
    let pg = Postgres::own();
    let db = Db::on(&pg, "gone");
    let cluster = format!("test-{}", db.name());
    let node = Server::start(
        &db,
        0,
        &[
            "--broker",
            &Redis::get().url,
            "--cluster",
            &cluster,
            "--cluster-secret-file",
            &Redis::get().secret_file,
        ],
    );
    // A game, so that the node holds a lease it would give up.
    let (silver, red, _) = two_players(&node);
    pg.pause();
    let status = node.terminate("its PostgreSQL frozen");
    pg.resume();
    assert!(status.success(), "{status}");
    drop((silver, red));
}

/// A backup, made with `khet-server backup` while a second game is being played.
#[test]
fn a_backup_made_while_games_are_played_restores_and_every_record_replays() {
    let db = Db::new(Backend::Sqlite, "backup");
    let server = Server::start(&db, 0, &[]);
    let (mut silver, mut red, finished) = two_players(&server);
    let line = pharaoh_line();
    play_line(&mut silver, &mut red, &mut [], &line);
    silver.wait_result();

    let (mut silver, mut red, playing) = two_players(&server);
    let acknowledged = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let player = {
        let (acknowledged, stop, line) = (acknowledged.clone(), stop.clone(), line.clone());
        std::thread::spawn(move || {
            // The same line, all but its last move, again and again would end the game; play
            // it up to one move before the end, as long as the backup runs.
            for mv in line.iter().take(line.len() - 1) {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                play_line(&mut silver, &mut red, &mut [], std::slice::from_ref(mv));
                acknowledged.store(silver.plies(), Ordering::Relaxed);
            }
            (silver, red)
        })
    };
    let start = Instant::now();
    while acknowledged.load(Ordering::Relaxed) < 2 {
        assert!(start.elapsed() < PATIENCE, "moves played");
        std::thread::sleep(Duration::from_millis(10));
    }
    let backup_dir = common::TempDir::new("backup-file");
    let file = backup_dir.0.join("khet.backup");
    let before = acknowledged.load(Ordering::Relaxed);
    let out = tend_on(db.folder(), "backup", &file);
    stop.store(true, Ordering::Relaxed);
    let (silver, red) = player.join().expect("the players' thread");
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("backed up 2 game(s) and 4 player(s)"),
        "{}",
        text(&out)
    );

    let restored = Db::new(Backend::Sqlite, "restored");
    let out = tend_on(restored.folder(), "restore", &file);
    assert!(out.status.success(), "{}", text(&out));
    let again = Server::start(&restored, 0, &[]);
    let done = replayed(&again, &finished);
    assert!(done.result().is_some(), "the finished game's end is kept");
    assert_eq!(done.turns().len(), line.len());
    let half = replayed(&again, &playing);
    assert!(
        half.turns().len() >= before,
        "every move acknowledged before the backup began is in it: {} < {before}",
        half.turns().len()
    );
    drop((silver, red, server));
}

#[test]
fn restore_refuses_a_running_server_and_junk_and_keeps_the_database_it_replaces() {
    let db = Db::new(Backend::Sqlite, "restore");
    let server = Server::start(&db, 0, &[]);
    let code = new_game(&server);
    let dir = common::TempDir::new("restore-files");
    let backup = dir.0.join("good.backup");
    let out = tend_on(db.folder(), "backup", &backup);
    assert!(out.status.success(), "{}", text(&out));
    let restore = |from: &Path| tend_on(db.folder(), "restore", from);

    let out = restore(&backup);
    assert!(!out.status.success());
    assert!(text(&out).contains("running on"), "{}", text(&out));
    assert!(server.terminate("before a restore").success());

    let junk = dir.0.join("junk.backup");
    std::fs::write(&junk, "these are not the games you are looking for\n").unwrap();
    let out = restore(&junk);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("not an SQLite database"),
        "{}",
        text(&out)
    );
    let out = restore(&dir.0.join("missing.backup"));
    assert!(text(&out).contains("no such file"), "{}", text(&out));

    let out = restore(&backup);
    assert!(out.status.success(), "{}", text(&out));
    let kept: PathBuf = text(&out)
        .lines()
        .find_map(|l| l.strip_prefix("the database it replaced is kept as "))
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("says where the old database is: {}", text(&out)));
    assert!(kept.is_file(), "{}", kept.display());
    let server = Server::start(&db, 0, &[]);
    assert_eq!(server.get(&format!("/games/{code}.ron")).0, 200);
}

#[test]
fn options_come_from_the_config_file_and_the_command_line_wins() {
    let dir = common::TempDir::new("config");
    let data = dir.0.join("data");
    let config = dir.0.join("khet-server.conf");
    std::fs::write(
        &config,
        format!(
            "# a comment\n\nlisten = 127.0.0.1:9\ndata = {}\nabandon-grace = 5\n",
            data.display()
        ),
    )
    .unwrap();
    let mut child = Command::new(server_program())
        .arg("--config")
        .arg(&config)
        .args(["--listen", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut said = String::new();
    for _ in 0..2 {
        std::io::BufRead::read_line(&mut out, &mut said).unwrap();
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(said.starts_with("listening on ws://127.0.0.1:"), "{said}");
    assert!(
        !said.contains("127.0.0.1:9\n"),
        "the command line's --listen wins: {said}"
    );
    assert!(
        said.contains(&format!("data in {}", data.display())),
        "the file's data folder: {said}"
    );

    std::fs::write(&config, "listen = 127.0.0.1:0\n\nnonsense = 1\n").unwrap();
    let out = tend(&["--config".as_ref(), config.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains(&format!(
            "{}:3: `nonsense` is not an option",
            config.display()
        )),
        "{}",
        text(&out)
    );
    std::fs::write(
        &config,
        "listen = 127.0.0.1:0\nsockets-per-address = many\n",
    )
    .unwrap();
    let out = tend(&["--config".as_ref(), config.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains(&format!("(from {}:2)", config.display())),
        "{}",
        text(&out)
    );
}

#[test]
fn the_json_log_tells_of_each_game_created_and_ended_and_holds_no_secret() {
    let db = Db::new(Backend::Sqlite, "log");
    let dir = common::TempDir::new("log");
    let log = dir.0.join("server.log");
    let server = Server::start_logged(
        &db,
        0,
        &["--log-format", "json", "--log-level", "info"],
        &log,
    );
    // Listed: an unlisted game's code is its secret, and the log names it by a tag
    // (tests/private.rs).
    let listed = khet_protocol::NewGame {
        listed: true,
        ..casual()
    };
    let (mut silver, red, code) = pair(&server.url, listed);
    silver.send(&ClientMsg::Resign);
    silver.wait_result();
    let secrets = [
        silver.identity.clone(),
        red.identity.clone(),
        silver.seat.clone().unwrap().1,
        red.seat.clone().unwrap().1,
    ];
    assert!(server.terminate("after one game").success());
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let said = |message: &str| {
        lines
            .iter()
            .any(|l| l["message"] == message && l["code"] == code.as_str() && l["level"] == "INFO")
    };
    assert!(said("game created"), "{text}");
    assert!(said("game ended"), "{text}");
    for secret in secrets {
        assert!(!text.contains(&secret), "a secret in the log: {text}");
    }
}

/// `khet-server --data DIR admin ARGS`: exit status and everything it said.
fn admin(db: &Db, args: &[&str]) -> (bool, String) {
    let mut all: Vec<&std::ffi::OsStr> =
        vec!["--data".as_ref(), db.folder().as_os_str(), "admin".as_ref()];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    let out = tend(&all);
    (out.status.success(), text(&out))
}

/// The id `admin players` shows for the player named `name`.
fn player_id(db: &Db, name: &str) -> String {
    let (ok, list) = admin(db, &["players"]);
    assert!(ok, "{list}");
    list.lines()
        .find(|l| l.contains(name))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("{name} in the list: {list}"))
        .to_string()
}

#[test]
fn the_operator_renames_bars_and_unlists_on_a_running_server() {
    let db = Db::new(Backend::Sqlite, "admin");
    let server = Server::start(&db, 0, &[]);
    let socket = db.folder().join("admin.sock");
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&socket).unwrap().permissions());
    assert_eq!(
        mode & 0o777,
        0o600,
        "only the server's user may open the admin socket"
    );

    let (mut silver, mut red, playing) = two_players(&server);
    let mut host = Client::connect(&server.url, "Host");
    let listed = host.create(khet_protocol::NewGame {
        listed: true,
        ..casual()
    });
    let (ok, games) = admin(&db, &["games"]);
    assert!(
        ok && games.contains(&playing) && games.contains(&listed),
        "{games}"
    );
    assert!(games.contains("open, listed"), "{games}");

    // A rename sticks: the player's own name at its next hello does not undo it.
    let red_id = player_id(&db, "Red player");
    let (ok, said) = admin(&db, &["rename", &red_id, "Renamed"]);
    assert!(ok, "{said}");
    let again = Connection::open(&server.url, &red.identity, "Red player").unwrap();
    assert_eq!(again.player.name, "Renamed");
    again.close();
    let (ok, said) = admin(&db, &["rename", &red_id, "bad\u{7}name"]);
    assert!(!ok && said.contains("control"), "{said}");

    // A bar: the game ends as resigned, the connection closes, and the identity is refused.
    let silver_id = player_id(&db, "Silver player");
    let (ok, said) = admin(&db, &["bar", &silver_id, "abusive chat"]);
    assert!(
        ok && said.contains(&format!("game {playing}: resigned")),
        "{said}"
    );
    let result = red.wait_result();
    assert_eq!(
        result,
        khet_engine::GameResult::Win {
            winner: khet_engine::Color::Red,
            reason: khet_engine::WinReason::Resignation
        }
    );
    silver.send(&ClientMsg::Ping);
    silver.until("the refusal", |c| !c.refusals.is_empty());
    assert_eq!(silver.refusals[0].0, Refusal::Barred);
    match Connection::open(&server.url, &silver.identity, "Silver player") {
        Err(ClientError::Refused(Refusal::Barred, why)) => {
            assert!(why.contains("abusive chat"), "{why}");
        }
        other => panic!("a barred identity connected: {:?}", other.err()),
    }
    let (_, list) = admin(&db, &["players"]);
    assert!(list.contains("barred: abusive chat"), "{list}");
    let (ok, said) = admin(&db, &["unbar", &silver_id]);
    assert!(ok, "{said}");
    Connection::open(&server.url, &silver.identity, "Silver player")
        .expect("let back")
        .close();

    // A listed game taken out of the lobby.
    let (ok, said) = admin(&db, &["unlist", &listed]);
    assert!(ok, "{said}");
    assert!(!server.get("/games").1.contains(&listed));
    let (ok, said) = admin(&db, &["unlist", &playing]);
    assert!(!ok && said.contains("not waiting"), "{said}");
    let (ok, said) = admin(&db, &["bar", "nobody42"]);
    assert!(!ok && said.contains("no player"), "{said}");
    drop((silver, red, host, server));
}

/// The tournament `code` as `/tournaments/CODE.json` has it.
fn tournament_json(server: &Server, code: &str) -> serde_json::Value {
    let (status, body) = server.get(&format!("/tournaments/{code}.json"));
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).expect("JSON")
}

#[test]
fn the_operator_creates_starts_pauses_and_ends_a_tournament_with_the_admin_command() {
    let db = Db::new(Backend::Sqlite, "admin_tournament");
    let server = Server::start(&db, 0, &[]);
    let create = [
        "tournament",
        "create",
        "--kind",
        "swiss",
        "--rounds",
        "3",
        "--clock",
        "10+5",
        "--name",
        "Club night",
    ];
    let (ok, said) = admin(&db, &create);
    assert!(ok, "{said}");
    let code = said.lines().next().unwrap_or_default().to_string();
    assert!(
        khet_protocol::check_code(&code).is_ok(),
        "the code first: {said}"
    );
    let t = tournament_json(&server, &code);
    assert_eq!(
        (t["name"].as_str(), t["status"].as_str()),
        (Some("Club night"), Some("created"))
    );
    assert_eq!(t["kind"]["rounds"], 3);
    assert_eq!(t["clock"]["initial_ms"], 600_000);

    // Refused with the reason: a Swiss without rounds, a start with fewer than two players.
    let (ok, said) = admin(
        &db,
        &["tournament", "create", "--kind", "swiss", "--clock", "5+3"],
    );
    assert!(!ok && said.contains("--rounds"), "{said}");
    let (ok, said) = admin(&db, &["tournament", "start", &code]);
    assert!(!ok && said.contains("two players"), "{said}");

    let mut players: Vec<Client> = ["Ann", "Bob"]
        .into_iter()
        .map(|name| Client::connect(&server.url, name))
        .collect();
    for p in &mut players {
        p.send(&ClientMsg::JoinTournament { code: code.clone() });
        let asked = Instant::now();
        while !matches!(
            p.pump(Duration::from_millis(100)),
            Some(khet_protocol::ServerMsg::Tournament { .. })
        ) {
            assert!(
                asked.elapsed() < common::PATIENCE,
                "{}: not joined: {:?}",
                p.name,
                p.refusals
            );
        }
    }
    let (ok, said) = admin(&db, &["tournament", "start", &code]);
    assert!(ok && said.contains("running"), "{said}");
    let t = tournament_json(&server, &code);
    assert_eq!(t["status"], "running");
    assert_eq!(
        t["rounds"].as_array().map(Vec::len),
        Some(1),
        "round 1 paired: {t}"
    );
    let (ok, said) = admin(&db, &["tournament", "pause", &code]);
    assert!(ok && said.contains("paused"), "{said}");
    assert_eq!(tournament_json(&server, &code)["status"], "paused");
    let (ok, said) = admin(&db, &["tournament", "pause", &code]);
    assert!(!ok && said.contains("not running"), "{said}");
    let (ok, said) = admin(&db, &["tournament", "resume", &code]);
    assert!(ok && said.contains("running"), "{said}");
    // Ended with its game in play: nothing new is paired, the game is played out and counts.
    let (ok, said) = admin(&db, &["tournament", "end", &code]);
    assert!(ok && said.contains("running"), "{said}");
    let t = tournament_json(&server, &code);
    assert!(t["ends_ms"].is_u64(), "{t}");
    let game = t["rounds"][0][0]["code"]
        .as_str()
        .expect("the game")
        .to_string();
    let ann = &mut players[0];
    ann.join(&game);
    ann.send(&ClientMsg::Resign);
    ann.wait_result();
    let asked = Instant::now();
    let t = loop {
        let t = tournament_json(&server, &code);
        if t["status"] == "finished" {
            break t;
        }
        assert!(asked.elapsed() < common::PATIENCE, "never finished: {t}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(
        t["rounds"].as_array().map(Vec::len),
        Some(1),
        "no round after the end: {t}"
    );
    assert!(
        t["rounds"][0][0]["result"].is_string(),
        "the game counted: {t}"
    );
    let (ok, said) = admin(&db, &["tournament", "end", &code]);
    assert!(!ok && said.contains("over"), "{said}");
    // Listed among the tournaments.
    let (_, list) = server.get("/tournaments.json");
    assert!(list.contains(&code), "{list}");
}
