//! A server open to the internet (issue 61): an unlisted game's code, which is all it takes to
//! join it, is in no public answer, metric or log line; and nobody can fill the server with
//! games waiting for an opponent: creates past the caps are refused, a game whose creator is
//! gone is withdrawn, and a restart loads none that waited too long. Real processes and sockets.

mod common;

use common::{
    Backend, Client, Db, PATIENCE, Server, casual, metric, pair, pharaoh_line, play_line, replayed,
};
use khet_protocol::{ClientMsg, NewGame, Refusal, ServerMsg, Status};
use std::time::{Duration, Instant};

fn listed() -> NewGame {
    NewGame {
        listed: true,
        ..casual()
    }
}

fn an_unlisted_game_is_in_no_public_answer_and_its_code_still_works(backend: Backend) {
    let data = Db::new(backend, "unlisted");
    let log = data.folder().join("server.log");
    let server = Server::start_logged(&data, 0, &["--log-level", "info"], &log);
    // Unlisted: one waiting (its creator here), one being played, one played to its end.
    let mut host = Client::connect(&server.url, "Host");
    let waiting = host.create(casual());
    let (mut silver, red, playing) = pair(&server.url, casual());
    silver.play("e1e2");
    let (mut s2, mut r2, ended) = pair(&server.url, casual());
    play_line(&mut s2, &mut r2, &mut [], &pharaoh_line());
    s2.wait_result();
    // Listed: one waiting, one played to its end.
    let mut lister = Client::connect(&server.url, "Lister");
    let shown = lister.create(listed());
    let (mut s3, mut r3, public) = pair(&server.url, listed());
    s3.send(&ClientMsg::Resign);
    r3.wait_result();
    let secret = [&waiting, &playing, &ended];

    let mut follower = Client::connect(&server.url, "Follower");
    follower.send(&ClientMsg::Lobby);
    follower.until("the listed game in the lobby", |c| {
        c.lobby
            .as_ref()
            .is_some_and(|g| g.iter().any(|g| g.code == shown))
    });
    let lobby: Vec<String> = follower
        .lobby
        .clone()
        .unwrap()
        .into_iter()
        .map(|g| g.code)
        .collect();
    let (status, games) = server.get("/games");
    assert_eq!(status, 200, "{games}");
    assert!(
        games.contains(&public),
        "the listed game played is listed: {games}"
    );
    let (_, page) = server.get("/");
    let (_, metrics) = server.get("/metrics");
    let (_, players) = server.get("/players");
    for code in secret {
        assert!(!games.contains(code.as_str()), "{code} in /games: {games}");
        assert!(!page.contains(code.as_str()), "{code} in /");
        assert!(!metrics.contains(code.as_str()), "{code} in /metrics");
        assert!(!players.contains(code.as_str()), "{code} in /players");
        assert!(!lobby.contains(code), "{code} in the lobby: {lobby:?}");
    }
    // The log at info holds the games' comings and goings, the listed ones by their codes, and
    // not one unlisted code.
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.matches("game created").count() >= 5, "{text}");
    assert!(text.contains(&shown), "{text}");
    for code in secret {
        assert!(!text.contains(code.as_str()), "{code} in the log:\n{text}");
    }

    // Whoever has the code still joins, watches, and reads the record.
    let mut friend = Client::connect(&server.url, "Friend");
    friend.join(&waiting);
    host.until("the start", |c| c.mirror().view.status == Status::Playing);
    let mut watcher = Client::connect(&server.url, "Watcher");
    watcher.send(&ClientMsg::Watch {
        code: playing.clone(),
        since: None,
    });
    watcher.until("the game watched", |c| c.plies() == 1);
    assert!(replayed(&server, &ended).result().is_some());
    drop((red, lister));
}

/// Sends `n` creates on `client`, `batch` at a time, each batch's answers read before the next:
/// the seats given and the refusals (each `not_now`, with a reason).
fn create_many(client: &mut Client, n: usize) -> (usize, usize) {
    let (mut seats, mut refused) = (0, 0);
    let mut sent = 0;
    while sent < n {
        let batch = 25.min(n - sent);
        for _ in 0..batch {
            client.send(&ClientMsg::Create(casual()));
        }
        sent += batch;
        let start = Instant::now();
        while seats + refused < sent {
            assert!(
                start.elapsed() < PATIENCE,
                "{}: answers to creates",
                client.name
            );
            match client.pump(Duration::from_millis(100)) {
                Some(ServerMsg::Seat { .. }) => seats += 1,
                Some(ServerMsg::Refused { code, reason }) => {
                    assert_eq!(code, Refusal::NotNow, "{reason}");
                    assert!(reason.contains("for an opponent"), "{reason}");
                    refused += 1;
                }
                _ => {}
            }
        }
    }
    (seats, refused)
}

/// The server's resident memory grew by less than a room a create would cost: 1,000 creates
/// made it grow by 23 MB before the caps (a room each), and by under 4 MB with them (the
/// connections' own buffers included); 12 MB leaves room for the allocator's moods.
fn flat(before_kb: u64, after_kb: u64) {
    assert!(
        after_kb < before_kb + 12 * 1024,
        "the server grew from {before_kb} kB to {after_kb} kB"
    );
}

/// Limits on connections and messages high enough that only the caps on open games refuse.
const UNLIMITED: [&str; 6] = [
    "--messages-per-second",
    "1000",
    "--sockets-per-address",
    "100",
    "--connects-per-minute",
    "1000",
];

#[test]
fn one_identity_creating_a_thousand_games_leaves_at_most_the_cap_open() {
    let data = Db::new(Backend::Sqlite, "cap-player");
    let server = Server::start(&data, 0, &UNLIMITED);
    let mut flooder = Client::connect(&server.url, "Flooder");
    let before = server.rss_kb();
    let (seats, refused) = create_many(&mut flooder, 1_000);
    let after = server.rss_kb();
    eprintln!("one identity, 1,000 creates: RSS {before} kB before, {after} kB after");
    flat(before, after);
    assert_eq!((seats, refused), (3, 997), "the default cap is 3 a player");
    assert_eq!(metric(&server, "khet_games_waiting"), 3.0);
    assert_eq!(metric(&server, "khet_games_live"), 3.0);
    // A withdrawn game frees its place.
    flooder.send(&ClientMsg::Resign);
    let start = Instant::now();
    while metric(&server, "khet_games_waiting") != 2.0 {
        assert!(start.elapsed() < PATIENCE, "the withdrawn game uncounted");
        flooder.drain(Duration::from_millis(50));
    }
    assert_eq!(create_many(&mut flooder, 2), (1, 1));
}

#[test]
fn fifty_identities_from_one_address_leave_at_most_the_address_cap_open() {
    let data = Db::new(Backend::Sqlite, "cap-address");
    let server = Server::start(&data, 0, &UNLIMITED);
    let before = server.rss_kb();
    let mut clients = Vec::new();
    let (mut seats, mut refused) = (0, 0);
    for i in 0..50 {
        let mut client = Client::connect(&server.url, &format!("Sybil {i}"));
        let (s, r) = create_many(&mut client, 20);
        seats += s;
        refused += r;
        clients.push(client);
    }
    let after = server.rss_kb();
    eprintln!("50 identities x 20 creates: RSS {before} kB before, {after} kB after");
    flat(before, after);
    assert_eq!(
        (seats, refused),
        (10, 990),
        "the default cap is 10 an address"
    );
    assert_eq!(metric(&server, "khet_games_waiting"), 10.0);
}

#[test]
fn an_open_game_is_withdrawn_once_its_creator_has_been_gone_a_while() {
    let data = Db::new(Backend::Sqlite, "withdraw");
    let settings = ["--withdraw-open-after", "1", "--open-games-per-player", "1"];
    let server = Server::start(&data, 0, &settings);
    let mut stayer = Client::connect(&server.url, "Stayer");
    let kept = stayer.create(casual());
    let mut leaver = Client::connect(&server.url, "Leaver");
    let left = leaver.create(listed());
    let identity = leaver.identity.clone();
    drop(leaver);
    let start = Instant::now();
    while server.get(&format!("/games/{left}.ron")).0 != 404 {
        assert!(
            start.elapsed() < PATIENCE,
            "the game of a creator gone is still there after {} s",
            PATIENCE.as_secs()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut joiner = Client::connect(&server.url, "Joiner");
    joiner.refused(
        &ClientMsg::Join { code: left.clone() },
        Refusal::UnknownGame,
    );
    assert_eq!(metric(&server, "khet_games_waiting"), 1.0);
    // Its place is free again (the cap is one game).
    let mut back = Client::with_identity(&server.url, "Leaver", &identity);
    back.create(casual());
    // The game whose creator stayed is still there to join.
    joiner.join(&kept);
    stayer.until("the start", |c| c.mirror().view.status == Status::Playing);
}

#[test]
fn a_restart_loads_no_open_game_that_waited_past_the_withdraw_time() {
    let data = Db::new(Backend::Sqlite, "restart");
    let many = [
        "--open-games-per-player",
        "100",
        "--open-games-per-address",
        "100",
        "--messages-per-second",
        "1000",
    ];
    let server = Server::start(&data, 0, &many);
    let mut creator = Client::connect(&server.url, "Creator");
    assert_eq!(create_many(&mut creator, 50), (50, 0));
    let code = creator.seat.clone().unwrap().0;
    let (mut silver, red, playing) = pair(&server.url, casual());
    silver.play("e1e2");
    drop((creator, red));
    let port = server.port();
    server.kill();

    // Young enough: all taken up again, waiting for their creators.
    let server = Server::start(&data, port, &[]);
    assert_eq!(metric(&server, "khet_games_live"), 51.0);
    assert_eq!(metric(&server, "khet_games_waiting"), 50.0);
    server.kill();

    // Older than the withdraw time: withdrawn at the start, none loaded; the game being played
    // is, and goes on.
    let log = data.folder().join("restart.log");
    let args = ["--withdraw-open-after", "0.001", "--log-level", "info"];
    let server = Server::start_logged(&data, port, &args, &log);
    assert_eq!(metric(&server, "khet_games_live"), 1.0);
    assert_eq!(metric(&server, "khet_games_waiting"), 0.0);
    // Not loaded and then withdrawn: never loaded.
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.matches("game taken up").count(), 1, "{text}");
    assert!(
        text.contains("withdrew the open games waiting too long"),
        "{text}"
    );
    assert_eq!(server.get(&format!("/games/{code}.ron")).0, 404);
    silver.presence = None;
    silver.reconnect(true);
    silver.until("the game again", |c| c.presence.is_some());
    assert_eq!(replayed(&server, &playing).turns().len(), 1);
}

on_each_backend!(an_unlisted_game_is_in_no_public_answer_and_its_code_still_works);
