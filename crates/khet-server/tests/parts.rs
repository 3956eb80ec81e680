//! The parts the server stands on, failing for real under a game: the test's own PostgreSQL
//! stopped (`pg_ctl -m immediate stop`, as a crash) and started again mid-game, under one node
//! and under two; the test's own Redis stopped and started again between two nodes; and a node
//! frozen (SIGSTOP) past its lease, then let go on. A move sent while a part is down is refused
//! with a reason, never acknowledged and then lost; once it is back, play goes on with no
//! restart of the server, a player connected all along counts as present, and the stored record
//! holds every acknowledged move once.

mod common;

use common::services::{Postgres, Redis};
use common::{
    Backend, Client, Db, PATIENCE, Server, TempDir, casual, metric, pharaoh_line, play_line,
    replayed,
};
use khet_protocol::{ClientMsg, Refusal};
use std::path::Path;
use std::time::{Duration, Instant};

/// Sends `mv` as the next ply and waits for the answer: `Ok` once the server announced it, its
/// refusal otherwise.
fn try_play(c: &mut Client, mv: &str) -> Result<(), (Refusal, String)> {
    c.until(&format!("my turn to play {mv}"), |c| c.mirror().my_turn());
    let ply = c.plies();
    let refused = c.refusals.len();
    c.send(&ClientMsg::Move {
        ply: u32::try_from(ply).unwrap(),
        mv: mv.into(),
    });
    c.until(&format!("an answer to {mv}"), |c| {
        c.plies() > ply || c.refusals.len() > refused
    });
    match c.refusals.get(refused) {
        Some(refusal) => Err(refusal.clone()),
        None => Ok(()),
    }
}

/// Silver (at `silver_url`) creates a game, Red (at `red_url`) joins it, and they play the
/// first four plies of the line to a lit Pharaoh: both, the code and the whole line.
fn four_plies_in(silver_url: &str, red_url: &str) -> (Client, Client, String, Vec<String>) {
    let mut silver = Client::connect(silver_url, "Silver");
    let code = silver.create(casual());
    let mut red = Client::connect(red_url, "Red");
    red.join(&code);
    silver.until("the start", |c| {
        c.mirror().view.status == khet_protocol::Status::Playing
    });
    let line = pharaoh_line();
    play_line(&mut silver, &mut red, &mut [], &line[..4]);
    (silver, red, code, line)
}

/// Node `name` of the cluster on `db` over the broker `redis`, holding its games for `lease`
/// seconds, with `extra` arguments; its log (warnings) in `log` when given.
fn node(
    db: &Db,
    redis: &Redis,
    name: &str,
    lease: &str,
    extra: &[&str],
    log: Option<&Path>,
) -> Server {
    let extra = [&["--lease", lease], extra].concat();
    let args = common::node_args(db, &redis.url, &redis.secret_file, name, &extra);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match log {
        Some(log) => Server::start_logged(db, 0, &args, log),
        None => Server::start(db, 0, &args),
    }
}

/// `nodes` servers on `db` (two: a cluster sharing the tests' Redis).
fn servers(db: &Db, nodes: usize) -> Vec<Server> {
    if nodes == 1 {
        return vec![Server::start(db, 0, &[])];
    }
    (0..nodes)
        .map(|i| node(db, Redis::get(), &format!("n{i}"), "10", &[], None))
        .collect()
}

/// Polls `done` until it holds; fails after [`PATIENCE`], saying what never came.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < PATIENCE,
            "waited {} s for {what}",
            PATIENCE.as_secs()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn postgresql_restarted_mid_game(nodes: usize) {
    let pg = Postgres::own();
    let db = Db::on(&pg, &format!("pg_restart_{nodes}"));
    let servers = servers(&db, nodes);
    // Silver on the first node, Red on the last: with two, every move of Red's crosses Redis
    // to the game's owner, and its answer comes back.
    let (mut silver, mut red, code, line) = four_plies_in(&servers[0].url, &servers[nodes - 1].url);
    let before = 4;

    pg.stop();
    // Silver moves now (an even ply): refused with a reason, and nothing changed.
    match try_play(&mut silver, &line[before]) {
        Err((Refusal::Storage, why)) => assert!(why.contains("nothing changed"), "{why}"),
        other => panic!("a move while the database is down: {other:?}"),
    }
    assert_eq!(silver.plies(), before);

    pg.start_again();
    // The same move again, as a player would press again, until the server stores it again.
    let start = Instant::now();
    loop {
        match try_play(&mut silver, &line[before]) {
            Ok(()) => break,
            Err((Refusal::Storage, _)) => assert!(
                start.elapsed() < PATIENCE,
                "the server stores nothing {} s after PostgreSQL came back",
                PATIENCE.as_secs()
            ),
            Err(other) => panic!("{other:?}"),
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    red.until("Silver's move", |c| c.plies() > before);
    play_line(&mut silver, &mut red, &mut [], &line[before + 1..]);
    let result = silver.wait_result();
    assert_eq!(red.wait_result(), result);
    for server in &servers {
        let game = replayed(server, &code);
        assert_eq!(game.turns().len(), line.len(), "every move once");
        assert_eq!(game.result(), Some(result));
    }
}

#[test]
fn postgresql_restarted_under_one_node_loses_nothing_and_play_goes_on() {
    postgresql_restarted_mid_game(1);
}

#[test]
fn postgresql_restarted_under_two_nodes_loses_nothing_and_play_goes_on() {
    postgresql_restarted_mid_game(2);
}

/// Redis, which carries what crosses the nodes, stopped and started again (empty, as after a
/// crash) mid-game between players on two nodes, and down until the owner has given up
/// publishing the move made meanwhile and has taken the other node for gone (silent for a
/// lease). Nothing else would bring that move to the other node: its proxy must ask the owner
/// for what it missed once its node has subscribed again, so that the player and the spectator
/// there see it on the connections they have, once. And the owner, which stopped counting the
/// other node's player, must count it again when that node says it is still there: both players
/// shown present, and the opponent's claim that the player left refused, though the outage was
/// longer than the grace. Then the game goes on to its end, on the owner all along: its lease is
/// renewed in the database whatever the broker does.
#[test]
fn redis_restarted_between_two_nodes_loses_nothing_and_play_goes_on() {
    let redis = Redis::own();
    let db = Db::new(Backend::Postgres, "redis_restart");
    let logs = TempDir::new("redis_restart_logs");
    let log = logs.0.join("a.log");
    let grace = ["--abandon-grace", "1"];
    let (a, b) = (
        node(&db, &redis, "a", "10", &grace, Some(&log)),
        node(&db, &redis, "b", "10", &grace, None),
    );
    let (mut silver, mut red, code, line) = four_plies_in(&a.url, &b.url);
    let before = 4;
    let mut spectator = Client::connect(&b.url, "Watcher on B");
    spectator.send(&ClientMsg::Watch {
        code: code.clone(),
        since: None,
    });
    spectator.until("the game", |c| c.plies() == before);

    redis.stop();
    // Silver plays on the game's own node: stored, and acknowledged.
    try_play(&mut silver, &line[before]).expect("a move on the owner's node");
    let lost = format!("broker: publish on test-{}:game:{code}", db.name());
    // Every client reads meanwhile, as a client does (the server closes one silent for 30 s).
    let gone = Some([true, false]);
    wait_for(
        "node A to give up publishing Silver's move, and to show Red gone",
        || {
            for c in [&mut silver, &mut red, &mut spectator] {
                c.pump(Duration::from_millis(20));
            }
            silver.presence.map(|(on, _)| on) == gone
                && std::fs::read_to_string(&log).is_ok_and(|l| l.contains(&lost))
        },
    );
    // What the clients on B are told of presence from now on.
    red.presence = None;
    spectator.presence = None;
    redis.start_again();
    // The clients on B never reconnect: a closed connection fails the test.
    for c in [&mut red, &mut spectator] {
        c.until("Silver's move made while Redis was down", |c| {
            c.plies() > before
        });
    }
    // Red, connected all along, is shown present again on both nodes, and may not be claimed
    // against: gone 1 s is the grace, and A had counted Red gone far longer.
    for c in [&mut silver, &mut red, &mut spectator] {
        c.until("both players shown present after the outage", |c| {
            c.presence.is_some_and(|(on, _)| on == [true, true])
        });
    }
    let refused = silver.refusals.len();
    silver.send(&ClientMsg::ClaimAbandoned { draw: false });
    silver.until("the claim's answer", |c| {
        c.refusals.len() > refused || c.result().is_some()
    });
    assert_eq!(
        silver.result(),
        None,
        "the claim that Red left ended the game"
    );
    let (why, reason) = &silver.refusals[refused];
    assert!(
        *why == Refusal::NotNow && reason.contains("must be gone"),
        "the claim refused as not due: {why:?}, {reason}"
    );
    play_line(
        &mut silver,
        &mut red,
        &mut [&mut spectator],
        &line[before + 1..],
    );
    let result = silver.wait_result();
    assert_eq!(red.wait_result(), result);
    assert_eq!(spectator.wait_result(), result);
    // The spectator saw every event once, in order, with none missing.
    let first = spectator.applied[0];
    let expected: Vec<u64> = (first..=spectator.mirror().event).collect();
    assert_eq!(spectator.applied, expected);
    let game = replayed(&b, &code);
    assert_eq!(game.turns().len(), line.len(), "every move once");
    assert_eq!(game.result(), Some(result));
    // Node A renewed its lease all along: its renewals wait on the database, not on the broker.
    assert_eq!(
        metric(&b, "khet_lease_takeovers_total"),
        0.0,
        "B took A's game up"
    );
}

/// A node frozen (SIGSTOP) past its lease while the other node takes its games up, then let go
/// on (SIGCONT) believing it still owns them, as after a long stall of its machine. The leases'
/// tokens must keep it from writing anything for the games it lost (fencing, as `fencing.rs`
/// shows on the store alone), and its players, one who moved meanwhile and one who only waited,
/// must end up on the owner and finish their games with every acknowledged move stored once.
#[test]
fn a_paused_node_writes_nothing_for_the_games_it_lost_and_its_players_reach_the_owner() {
    let db = Db::new(Backend::Postgres, "paused");
    let (a, b) = (
        node(&db, Redis::get(), "a", "3", &[], None),
        node(&db, Redis::get(), "b", "3", &[], None),
    );
    // Two games of A's, each with Silver on A and Red on B; in the first Silver is to move, in
    // the second Red.
    let (on_a, on_b) = (
        format!("{},{}", a.url, b.url),
        format!("{},{}", b.url, a.url),
    );
    let (mut silver1, mut red1, code1, line) = four_plies_in(&on_a, &on_b);
    let (mut silver2, mut red2, code2, _) = four_plies_in(&on_a, &on_b);
    play_line(&mut silver2, &mut red2, &mut [], &line[4..5]);
    // Nothing taken up yet: a takeover later is the pause's, not renewals starved on a busy
    // machine.
    for (server, name) in [(&a, "A"), (&b, "B")] {
        let taken = metric(server, "khet_lease_takeovers_total");
        assert_eq!(taken, 0.0, "node {name} took a game up before A was paused");
    }

    a.pause();
    // Silver's move reaches frozen A, which will read it only once it goes on.
    silver1.send(&ClientMsg::Move {
        ply: 4,
        mv: line[4].clone(),
    });
    wait_for("node B to take up node A's two games", || {
        metric(&b, "khet_lease_takeovers_total") >= 2.0
    });
    // The Red players' proxies to A ended; they find their games on B, and Red moves there.
    red1.rejoin();
    red2.rejoin();
    red2.play(&line[5]);

    a.resume();
    // A handles Silver's move at last: refused as the game's server not answering (storage,
    // "reconnect"), or the connection closed, never acknowledged.
    let start = Instant::now();
    let refused = silver1.refusals.len();
    while silver1.refusals.len() == refused {
        assert!(
            start.elapsed() < PATIENCE,
            "node A never answered the move it got while frozen"
        );
        match silver1.try_pump(Duration::from_millis(100)) {
            Err(_) => break,
            Ok(_) => assert_eq!(
                silver1.plies(),
                4,
                "node A acknowledged a move of a game node B had taken up"
            ),
        }
    }
    if let Some((why, reason)) = silver1.refusals.get(refused) {
        assert!(
            *why == Refusal::Storage && reason.contains("reconnect"),
            "the move refused otherwise than as a game moved: {why:?}, {reason}"
        );
    }
    assert_eq!(
        replayed(&b, &code1).turns().len(),
        4,
        "node A stored a move of a game it had lost"
    );
    // Silver moves again, on the game's owner now, and the game goes on.
    silver1.rejoin();
    play_line(&mut silver1, &mut red1, &mut [], &line[4..]);
    // Silver of the second game, who only waited on A, sees Red's move made on B: on the
    // connection it has, or on a new one once A closes it.
    let start = Instant::now();
    while silver2.plies() < 6 {
        assert!(
            start.elapsed() < PATIENCE,
            "Silver, waiting on node A, never saw the move Red made on node B, the owner"
        );
        if silver2.try_pump(Duration::from_millis(100)).is_err() {
            silver2.rejoin();
        }
    }
    play_line(&mut silver2, &mut red2, &mut [], &line[6..]);
    for (silver, red, code) in [
        (&mut silver1, &mut red1, &code1),
        (&mut silver2, &mut red2, &code2),
    ] {
        let result = silver.wait_result();
        assert_eq!(red.wait_result(), result);
        for server in [&a, &b] {
            let game = replayed(server, code);
            assert_eq!(game.turns().len(), line.len(), "every move once");
            assert_eq!(game.result(), Some(result));
        }
    }
}
