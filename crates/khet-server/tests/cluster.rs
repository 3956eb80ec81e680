//! Several nodes: real `khet-server` processes sharing a real PostgreSQL database and a real
//! Redis (both started by the tests on 127.0.0.1). Players on different nodes finish games, a
//! spectator on a third node sees every move, the lobby and quick pairing span the nodes, and a
//! node killed mid-game has its games finished on the others with nothing acknowledged lost.

mod common;

use common::services::Redis;
use common::{Backend, Client, Db, Server, claim_abandoned_win, pharaoh_line, play_line, replayed};
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
    let cluster = format!("test-{}", db.name());
    let mut args = vec![
        "--broker",
        &Redis::get().url,
        "--cluster",
        &cluster,
        "--node",
        name,
        "--lease",
        lease,
    ];
    args.extend_from_slice(extra);
    Server::start(db, port, &args)
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
    let mut silver = Client::connect(&a.url, "Silver on A");
    let code = silver.create(NewGame {
        setup: "classic".into(),
        clock: None,
        color: SeatChoice::Silver,
        rated: false,
        listed: false,
    });
    let mut red = Client::connect(&b.url, "Red on B");
    red.join(&code);
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
    let a = node_with(&db, "a", "1", &["--connects-per-minute", "1000"]);
    for _ in 0..40 {
        let (mut silver, mut red, _code) = common::pair(&a.url, common::casual());
        silver.play("e1e2");
        red.until("the move", |c| c.plies() == 1);
    }
}
