//! The parts the server stands on, failing for real under a game: the test's own PostgreSQL
//! stopped (`pg_ctl -m immediate stop`, as a crash) and started again mid-game, under one node
//! and under two. A move sent while it is down is refused with a reason, never acknowledged and
//! then lost; once it is back, play goes on with no restart of the server, and the stored record
//! holds every acknowledged move once.

mod common;

use common::services::{Postgres, Redis};
use common::{Client, Db, PATIENCE, Server, casual, pharaoh_line, play_line, replayed};
use khet_protocol::{ClientMsg, Refusal};
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

/// `nodes` servers on `db` (two: a cluster sharing the tests' Redis).
fn servers(db: &Db, nodes: usize) -> Vec<Server> {
    if nodes == 1 {
        return vec![Server::start(db, 0, &[])];
    }
    let cluster = format!("test-{}", db.name());
    (0..nodes)
        .map(|i| {
            let name = format!("n{i}");
            let args = [
                "--broker",
                &Redis::get().url,
                "--cluster",
                &cluster,
                "--node",
                &name,
                "--lease",
                "10",
            ];
            Server::start(db, 0, &args)
        })
        .collect()
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
/// crash) mid-game between players on two nodes: the nodes subscribe again by themselves, the
/// move made meanwhile reaches the other node's player once, and the game goes on to its end.
#[test]
fn redis_restarted_between_two_nodes_loses_nothing_and_play_goes_on() {
    let redis = Redis::own();
    let db = Db::new(common::Backend::Postgres, "redis_restart");
    let cluster = format!("test-{}", db.name());
    let node = |name: &str| {
        let args = [
            "--broker",
            &redis.url,
            "--cluster",
            &cluster,
            "--node",
            name,
            "--lease",
            "10",
        ];
        Server::start(&db, 0, &args)
    };
    let (a, b) = (node("a"), node("b"));
    let (mut silver, mut red, code, line) = four_plies_in(&a.url, &format!("{},{}", b.url, a.url));
    let before = 4;

    redis.stop();
    // Silver plays on the game's own node: stored, and acknowledged.
    try_play(&mut silver, &line[before]).expect("a move on the owner's node");
    redis.start_again();
    // Red, on the other node, sees it once Redis is back, and answers; a connection that the
    // outage closed is taken up again as a client does.
    let start = Instant::now();
    while red.plies() <= before {
        assert!(
            start.elapsed() < PATIENCE,
            "Red never saw Silver's move after Redis came back"
        );
        if red.try_pump(Duration::from_millis(100)).is_err() {
            red.rejoin();
        }
    }
    play_line(&mut silver, &mut red, &mut [], &line[before + 1..]);
    let result = silver.wait_result();
    assert_eq!(red.wait_result(), result);
    let game = replayed(&b, &code);
    assert_eq!(game.turns().len(), line.len(), "every move once");
    drop((silver, red, a, b, redis));
}
