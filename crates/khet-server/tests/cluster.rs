//! Several nodes: real `khet-server` processes sharing a real PostgreSQL database and a real
//! Redis (both started by the tests on 127.0.0.1). Players on different nodes finish games, a
//! spectator on a third node sees every move, the lobby and quick pairing span the nodes, and a
//! node killed mid-game has its games finished on the others with nothing acknowledged lost.

mod common;

use common::replayed;
use common::services::Redis;
use common::{Backend, Client, Db, Server, claim_abandoned_win, metric, pharaoh_line, play_line};
use khet_engine::{Color, GameResult, WinReason};
use khet_protocol::{ClientMsg, ClockSpec, NewGame, SeatChoice, Status};

/// Node `name` of the cluster on `db` (the tests share one Redis: each cluster has its own
/// name), holding its games for `lease` seconds.
fn node(db: &Db, name: &str, lease: &str) -> Server {
    node_with(db, name, lease, &[])
}

fn node_with(db: &Db, name: &str, lease: &str, extra: &[&str]) -> Server {
    node_on(db, 0, name, lease, extra)
}

fn node_on(db: &Db, port: u16, name: &str, lease: &str, extra: &[&str]) -> Server {
    let redis = Redis::get();
    let extra = [&["--lease", lease], extra].concat();
    let args = common::node_args(db, &redis.url, &redis.secret_file, name, &extra);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Server::start(db, port, &args)
}

/// Silver on node `a` creates a casual game and Red on node `b` joins it: the two, and its
/// code.
fn across(a: &Server, b: &Server) -> (Client, Client, String) {
    let mut silver = Client::connect(&a.url, "Silver on A");
    // Casual: fresh identities play rated only after a few games (identity.rs).
    let code = silver.create(common::casual());
    let mut red = Client::connect(&b.url, "Red on B");
    red.join(&code);
    (silver, red, code)
}

/// Silver on node `a` and Red on node `b` play a casual game to Silver's win; then the clients
/// and the nodes are dropped.
fn a_game_across(a: Server, b: Server) {
    let (mut silver, mut red, _) = across(&a, &b);
    silver.until("the start", |c| c.mirror().view.status == Status::Playing);
    play_line(&mut silver, &mut red, &mut [], &pharaoh_line());
    assert_eq!(red.wait_result(), silver_wins());
    drop((silver, red, a, b));
}

fn silver_wins() -> GameResult {
    GameResult::Win {
        winner: Color::Silver,
        reason: WinReason::PharaohHit,
    }
}

#[test]
fn players_on_two_nodes_finish_a_game_and_a_spectator_on_a_third_sees_every_move() {
    let db = Db::new(Backend::Postgres, "two_nodes");
    // Fresh identities play rated at once here: the newcomers' rule is tests/identity.rs's.
    let rated_at_once = ["--games-before-rated", "0"];
    let (a, b, c) = (
        node_with(&db, "a", "10", &rated_at_once),
        node_with(&db, "b", "10", &rated_at_once),
        node_with(&db, "c", "10", &rated_at_once),
    );
    let mut silver = Client::connect(&a.url, "Silver on A");
    let code = silver.create(NewGame {
        setup: "classic".into(),
        clock: Some(ClockSpec::minutes(10, 5)),
        color: SeatChoice::Silver,
        rated: true,
        listed: false,
        days_per_move: None,
    });
    let mut red = Client::connect(&b.url, "Red on B");
    red.join(&code);
    silver.until("the start", |c| c.mirror().view.status == Status::Playing);
    assert_eq!(red.you(), Color::Red);
    let mut spectator = Client::connect(&c.url, "Watcher on C");
    spectator.send(&ClientMsg::Watch {
        code: code.clone(),
        since: None,
    });
    spectator.until("the game", |c| c.mirror.is_some());
    spectator.until("both players here", |c| {
        c.presence.is_some_and(|(on, _)| on == [true, true])
    });

    let line = pharaoh_line();
    play_line(&mut silver, &mut red, &mut [&mut spectator], &line);
    for client in [&mut silver, &mut red, &mut spectator] {
        assert_eq!(client.wait_result(), silver_wins(), "{}", client.name);
    }
    // The spectator saw every event once, in order, with none missing.
    let first = spectator.mirror().event - spectator.applied.len() as u64;
    let expected: Vec<u64> = (first + 1..=spectator.mirror().event).collect();
    assert_eq!(spectator.applied, expected);
    assert!(
        spectator.applied.len() > line.len(),
        "every move and the end"
    );
    // Moves from B were refused nothing, and the stored record is the game, on every node.
    assert!(red.refusals.is_empty(), "{:?}", red.refusals);
    for server in [&a, &b, &c] {
        assert_eq!(replayed(server, &code).turns().len(), line.len());
    }
    // A rated game: both ratings moved, read by any node.
    let (_, players) = c.get("/players");
    assert!(
        players.contains("Silver on A") && players.contains("Red on B"),
        "{players}"
    );
}

#[test]
fn the_lobby_and_quick_pairing_span_the_nodes() {
    let db = Db::new(Backend::Postgres, "lobby_nodes");
    let (a, b) = (node(&db, "a", "10"), node(&db, "b", "10"));
    let mut waiting = Client::connect(&a.url, "Waiting on A");
    let code = waiting.create(NewGame {
        setup: "classic".into(),
        clock: Some(ClockSpec::minutes(5, 3)),
        color: SeatChoice::Random,
        rated: false,
        listed: true,
        days_per_move: None,
    });
    let mut browsing = Client::connect(&b.url, "Browsing on B");
    browsing.send(&ClientMsg::Lobby);
    browsing.until("the game of node A in the lobby of node B", |c| {
        c.lobby
            .as_ref()
            .is_some_and(|l| l.iter().any(|g| g.code == code))
    });
    let mut seeker = Client::connect(&b.url, "Seeking on B");
    seeker.send(&ClientMsg::Seek {
        clock: Some(ClockSpec::minutes(5, 3)),
        rated: false,
    });
    seeker.until("a seat", |c| c.seat.is_some() && c.mirror.is_some());
    assert_eq!(
        seeker.seat.as_ref().unwrap().0,
        code,
        "paired with A's game"
    );
    waiting.until("the start", |c| c.mirror().view.status == Status::Playing);
    browsing.until("the game gone from the lobby", |c| {
        c.lobby
            .as_ref()
            .is_some_and(|l| l.iter().all(|g| g.code != code))
    });
}

#[test]
fn a_node_killed_mid_game_has_its_games_finished_on_the_other_with_nothing_lost() {
    let db = Db::new(Backend::Postgres, "failover");
    let a = node(&db, "a", "2");
    let b = node(&db, "b", "2");
    // Each client knows both nodes, its own first.
    let both_a = format!("{},{}", a.url, b.url);
    let both_b = format!("{},{}", b.url, a.url);
    let mut silver = Client::connect(&both_a, "Silver on A");
    let code = silver.create(NewGame {
        setup: "classic".into(),
        clock: Some(ClockSpec::minutes(10, 5)),
        color: SeatChoice::Silver,
        rated: false,
        listed: false,
        days_per_move: None,
    });
    let mut red = Client::connect(&both_b, "Red on B");
    red.join(&code);
    silver.until("the start", |c| c.mirror().view.status == Status::Playing);
    let line = pharaoh_line();
    let half = line.len() / 2;
    play_line(&mut silver, &mut red, &mut [], &line[..half]);
    let position = *silver.mirror().game.position();
    let clocks = silver.mirror().clocks().unwrap();

    // A, the game's owner, dies without a word. Its lease runs out, B takes the game up, and
    // both players find it there (Silver's A refuses, so it goes on to B).
    a.kill();
    silver.rejoin();
    red.rejoin();
    for c in [&mut silver, &mut red] {
        c.until("both back", |c| {
            c.presence.is_some_and(|(on, _)| on == [true, true])
        });
    }
    for c in [&silver, &red] {
        assert_eq!(c.plies(), half, "{}: every acknowledged move", c.name);
        assert_eq!(c.mirror().game.position(), &position);
        let now = c.mirror().clocks().unwrap();
        let mover = c.mirror().game.side_to_move().other();
        assert_eq!(
            now.remaining_ms[mover.index()],
            clocks.remaining_ms[mover.index()],
            "the clock that was not running is as stored"
        );
    }
    play_line(&mut silver, &mut red, &mut [], &line[half..]);
    assert_eq!(silver.wait_result(), silver_wins());
    assert_eq!(red.wait_result(), silver_wins());
    let game = replayed(&b, &code);
    assert_eq!(game.turns().len(), line.len());
    assert_eq!(game.result(), Some(silver_wins()));
}

#[test]
fn a_player_whose_node_died_counts_as_gone_and_the_game_can_be_claimed() {
    let db = Db::new(Backend::Postgres, "dead_proxy");
    let grace = ["--abandon-grace", "1"];
    let a = node_with(&db, "a", "2", &grace);
    let b = node_with(&db, "b", "2", &grace);
    let (mut silver, _red, code) = across(&a, &b);
    silver.until("Red here", |c| {
        c.presence.is_some_and(|(on, _)| on == [true, true])
    });
    // B dies with Red's connection; nobody tells A. Once B has been silent for a lease, A
    // stops counting B's followers, and Red is gone.
    b.kill();
    silver.until("Red gone", |c| {
        c.presence.is_some_and(|(on, _)| on == [true, false])
    });
    claim_abandoned_win(&mut silver, &a, &code);
}

#[test]
fn a_node_restarted_under_its_name_takes_its_games_back_at_once() {
    // A lease far longer than the clients' patience: only the node's own restart can serve the
    // game again in time.
    let db = Db::new(Backend::Postgres, "restart");
    let a = node(&db, "a", "120");
    let port = a.port();
    let (mut silver, mut red, _code) = common::pair(&a.url, common::casual());
    silver.play("e1e2");
    red.until("the move", |c| c.plies() == 1);
    a.kill();
    let _a = node_on(&db, port, "a", "120", &[]);
    silver.rejoin();
    red.rejoin();
    red.play("f8f7");
    silver.until("Red's move", |c| c.plies() == 2);
}

#[test]
fn a_game_created_while_its_node_looks_for_games_to_take_up_is_run_once() {
    // With a lease of 1 s the node looks for games without a live room three times a second.
    // A game it is creating is one of them for a moment; taken up then, it would run in two
    // rooms, and the creator, following the first, would never see the joiner's start.
    let db = Db::new(Backend::Postgres, "creating");
    let a = node_with(
        &db,
        "a",
        "1",
        &[
            "--connects-per-minute",
            "1000",
            "--sockets-per-address",
            "200",
        ],
    );
    const GAMES: usize = 40;
    let mut players = Vec::new();
    for _ in 0..GAMES {
        let (mut silver, mut red, _code) = common::pair(&a.url, common::casual());
        silver.play("e1e2");
        red.until("the move", |c| c.plies() == 1);
        players.push((silver, red));
    }
    // Each game in one room: as many rooms as games, none taken over from itself.
    assert_eq!(metric(&a, "khet_games_live"), GAMES as f64, "rooms");
    assert_eq!(metric(&a, "khet_lease_takeovers_total"), 0.0, "takeovers");
}

/// Publishes `payload` on `channel` of the tests' Redis, as anyone who reaches it can: how many
/// subscribers heard it.
fn publish_on_redis(channel: &str, payload: &str) -> u32 {
    let port = Redis::get().url.rsplit(':').next().unwrap().to_string();
    let out = std::process::Command::new("redis-cli")
        .args(["-p", &port, "PUBLISH", channel, payload])
        .output()
        .expect("redis-cli runs");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("a count")
}

/// Someone who can publish on the cluster's Redis, but has not the nodes' secret, sends node A
/// a command for its game as if from node B: Silver resigns. Unsigned, or signed with a made-up
/// seal, it is dropped (and counted): the game goes on, and its next moves, across the nodes,
/// are played.
#[test]
fn a_command_published_without_the_nodes_secret_is_ignored() {
    let db = Db::new(Backend::Postgres, "forged");
    let (a, b) = (node(&db, "a", "10"), node(&db, "b", "10"));
    let (mut silver, mut red, code) = across(&a, &b);
    silver.until("the start", |c| c.mirror().view.status == Status::Playing);

    let resign = serde_json::json!({
        "t": "request",
        "id": 1,
        "from": "b",
        "code": code,
        "req": {"act": {"seat": Color::Silver, "action": ClientMsg::Resign}},
    })
    .to_string();
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    let made_up = format!("k1 b {now_ms} 0 {}\n{resign}", "0".repeat(64));
    let channel = format!("test-{}:node:a", db.name());
    for forged in [&resign, &made_up] {
        assert_eq!(publish_on_redis(&channel, forged), 1, "node A heard it");
    }
    // Node A reads its channel in order: moves relayed from B after the forgeries are handled
    // after them.
    let line = pharaoh_line();
    play_line(&mut silver, &mut red, &mut [], &line[..2]);
    assert_eq!(silver.result(), None, "the game was ended by a forgery");
    assert_eq!(silver.mirror().view.status, Status::Playing);
    assert!(red.refusals.is_empty(), "{:?}", red.refusals);
    let metrics = a.get("/metrics").1;
    assert!(
        metrics.contains("\nkhet_cluster_messages_dropped_total 2\n"),
        "{metrics}"
    );
}

/// A node is not started without the nodes' secret, or with one too short to be one.
#[test]
fn a_node_needs_a_secret_of_32_bytes() {
    let db = Db::new(Backend::Postgres, "nosecret");
    let short = common::TempDir::new("short-secret");
    let file = short.0.join("secret");
    std::fs::write(&file, "too short\n").unwrap();
    let run = |extra: &[&std::ffi::OsStr]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_khet-server"))
            .args(db.args())
            .args(["--listen", "127.0.0.1:0", "--broker", &Redis::get().url])
            .args(extra)
            .output()
            .expect("khet-server runs");
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let said = run(&[]);
    assert!(said.contains("--cluster-secret-file"), "{said}");
    let said = run(&["--cluster-secret-file".as_ref(), file.as_os_str()]);
    assert!(said.contains("at least 32"), "{said}");
}

/// A Redis that asks for a password (`requirepass`): nodes given it in a file
/// (`--broker-password-file`) play a game across them; a node without it does not start.
#[test]
fn nodes_reach_a_redis_with_a_password_given_in_a_file() {
    let redis = Redis::own();
    let port = redis.url.rsplit(':').next().unwrap().to_string();
    let password = "a password of the Redis's, not on any command line";
    let set = std::process::Command::new("redis-cli")
        .args(["-p", &port, "CONFIG", "SET", "requirepass", password])
        .output()
        .expect("redis-cli runs");
    assert!(set.status.success(), "{set:?}");
    let dir = common::TempDir::new("broker-password");
    let file = dir.0.join("password");
    std::fs::write(&file, format!("{password}\n")).unwrap();
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let file = file.display().to_string();
    let db = Db::new(Backend::Postgres, "password");
    let on = |name: &str, extra: &[&str]| {
        common::node_args(&db, &redis.url, &redis.secret_file, name, extra)
    };
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_khet-server"))
        .args(db.args())
        .args(["--listen", "127.0.0.1:0"])
        .args(on("x", &[]))
        .output()
        .expect("khet-server runs");
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("broker"), "{said}");

    let start = |name: &str| {
        let args = on(name, &["--broker-password-file", &file]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        Server::start(&db, 0, &args)
    };
    a_game_across(start("a"), start("b"));
    // As it was, so that it stops as the others do.
    let _ = std::process::Command::new("redis-cli")
        .args(["-p", &port, "-a", password, "--no-auth-warning"])
        .args(["CONFIG", "SET", "requirepass", ""])
        .output();
}

/// Redis over TLS (`rediss://`), with a certificate of an authority made for the test and
/// trusted by the nodes through `SSL_CERT_FILE` (as the system's authorities would be): two
/// nodes play a game across it.
#[test]
fn nodes_reach_redis_over_tls() {
    let dir = common::TempDir::new("redis-tls");
    let openssl = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .current_dir(&dir.0)
            .output()
            .expect("openssl runs");
        assert!(out.status.success(), "openssl {args:?}: {out:?}");
    };
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=test CA",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=localhost",
        "-keyout",
        "redis.key",
        "-out",
        "redis.csr",
    ]);
    std::fs::write(
        dir.0.join("ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
    )
    .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "redis.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        "ext",
        "-out",
        "redis.pem",
    ]);
    let port = common::services::free_port();
    let at = |f: &str| dir.0.join(f).display().to_string();
    let mut redis = std::process::Command::new("redis-server")
        .args([
            "--port",
            "0",
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .args(["--tls-port", &port.to_string(), "--tls-auth-clients", "no"])
        .args([
            "--tls-cert-file",
            &at("redis.pem"),
            "--tls-key-file",
            &at("redis.key"),
        ])
        .args(["--tls-ca-cert-file", &at("ca.pem"), "--dir", &at("")])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("redis-server runs");
    let start = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < common::PATIENCE, "Redis did not start");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let db = Db::new(Backend::Postgres, "tls");
    let url = format!("rediss://localhost:{port}");
    let ca = format!("SSL_CERT_FILE={}", at("ca.pem"));
    let node = |name: &str| {
        let mut args: Vec<std::ffi::OsString> = vec![
            ca.clone().into(),
            env!("CARGO_BIN_EXE_khet-server").into(),
            "--listen".into(),
            "127.0.0.1:0".into(),
            "--log-level".into(),
            "warn".into(),
        ];
        args.extend(db.args());
        let cluster = common::node_args(&db, &url, &Redis::get().secret_file, name, &[]);
        args.extend(cluster.into_iter().map(Into::into));
        Server::run(
            std::path::Path::new("/usr/bin/env"),
            &args,
            std::process::Stdio::inherit(),
        )
    };
    a_game_across(node("a"), node("b"));
    let _ = redis.kill();
    let _ = redis.wait();
}
