//! Tournaments through real servers with real clients. Its page in a real browser (headless
//! Chromium): a player of the play page joins and withdraws with the page's button, two
//! programs create, join and start it over the protocol, and the page's standings, pairings and
//! results follow the game as it ends, without a reload. And across two nodes (real PostgreSQL
//! and Redis): the node that paired a round and holds its games is killed, and the other takes
//! them up and finishes the tournament. And a player's page: the rating's graph, the games and
//! the tournaments.

mod common;

use common::browser::Browser;
use common::services::Redis;
use common::{Backend, Client, Db, PATIENCE, Server, arrive};
use khet_protocol::tournament::TournamentKind;
use khet_protocol::{
    ClientMsg, ClockSpec, NewTournament, ServerMsg, TournamentStatus, TournamentView,
};
use std::time::{Duration, Instant};

/// A listed, casual Swiss of `rounds` rounds named `name`, on `minutes`+0 clocks.
fn swiss(name: &str, rounds: u32, minutes: u64) -> NewTournament {
    NewTournament {
        name: name.into(),
        kind: TournamentKind::Swiss { rounds },
        setup: "classic".into(),
        clock: ClockSpec::minutes(minutes, 0),
        rated: false,
        listed: true,
        starts_ms: None,
    }
}

/// Sends `msg` and waits for the tournament it is answered with.
fn ask(client: &mut Client, msg: &ClientMsg) -> TournamentView {
    client.send(msg);
    let asked = Instant::now();
    loop {
        assert!(asked.elapsed() < PATIENCE, "no answer to {msg:?}");
        match client.pump(Duration::from_millis(100)) {
            Some(ServerMsg::Tournament { tournament }) => return *tournament,
            Some(ServerMsg::Refused { reason, .. }) => panic!("{msg:?} refused: {reason}"),
            _ => {}
        }
    }
}

/// The standings' rows as the page shows them: each row's cells, joined by " | ".
fn rows(browser: &Browser) -> String {
    browser
        .eval(
            "[...document.querySelectorAll('#standings tbody tr')].map(r => \
             [...r.cells].map(c => c.textContent).join(' | ')).join('\\n')",
        )
        .as_str()
        .expect("text")
        .to_string()
}

#[test]
fn the_tournament_page_follows_its_players_and_results_live() {
    let db = Db::new(Backend::Sqlite, "tournament-page");
    let server = Server::start(&db, 0, &[]);
    let mut ann = Client::connect(&server.url, "Ann");
    let mut bob = Client::connect(&server.url, "Bob");
    let new = swiss("Club <b>night</b>", 1, 5);
    let code = ask(&mut ann, &ClientMsg::CreateTournament(new)).code;

    // A player of the play page joins with the page's button, then thinks better of it.
    let browser = Browser::start(1280, 800);
    arrive(&browser, &server, "Cleo");
    browser.open(&format!("http://{}/tournaments/{code}", server.addr));
    browser.until(
        "the name as text, not markup",
        "document.getElementById('title').textContent === 'Club <b>night</b>'",
    );
    browser.until(
        "the join button",
        "document.getElementById('enter').textContent === 'Join'",
    );
    browser.click("#enter");
    browser.until(
        "Cleo in the standings",
        "document.querySelector('#standings tbody').textContent.includes('Cleo')",
    );
    browser.until(
        "the withdraw button",
        "document.getElementById('enter').textContent === 'Withdraw'",
    );
    browser.click("#enter");
    browser.until(
        "Cleo withdrawn",
        "document.querySelector('#standings tbody').textContent.includes('Cleo (withdrawn)')",
    );

    // Two programs join, and its creator starts it: one game.
    ask(&mut ann, &ClientMsg::JoinTournament { code: code.clone() });
    ask(&mut bob, &ClientMsg::JoinTournament { code: code.clone() });
    let view = ask(&mut ann, &ClientMsg::StartTournament { code: code.clone() });
    assert_eq!(view.status, TournamentStatus::Running);
    let game = view.rounds[0][0]
        .code
        .clone()
        .expect("the game made with the pairing");
    browser.until(
        "the status",
        "document.getElementById('status').textContent === 'Under way'",
    );
    browser.until(
        "the game in play",
        "document.getElementById('rounds').textContent.includes('in play')",
    );
    let before = rows(&browser);
    assert!(
        before.contains("Ann | 0") && before.contains("Bob | 0"),
        "{before}"
    );

    // Each takes the seat the pairing gave them; Silver resigns.
    ann.join(&game);
    bob.join(&game);
    let silver = if view.rounds[0][0].silver == "Ann" {
        &mut ann
    } else {
        &mut bob
    };
    silver.send(&ClientMsg::Resign);
    let winner = if view.rounds[0][0].silver == "Ann" {
        "Bob"
    } else {
        "Ann"
    };
    browser.until(
        "the result on the page, without a reload",
        "document.getElementById('rounds').textContent.includes('0-1')",
    );
    browser.until(
        "the end",
        "document.getElementById('status').textContent === 'Finished'",
    );
    let after = rows(&browser);
    let first = after.lines().next().unwrap_or_default();
    assert!(first.starts_with(&format!("1 | {winner} | 1 |")), "{after}");
    // The crosstable: each player's game by the opponent's place, side and score, linked to
    // its record.
    let cells = browser.eval(
        "[...document.querySelectorAll('#crosstable tbody tr')].map(r => { \
         const c = r.querySelector('td[data-round=\"1\"]'); \
         const a = c && c.querySelector('a'); \
         return [c ? c.textContent : '', a ? a.getAttribute('href') : '']; })",
    );
    let shots = common::shots_dir("KHET_TOURNAMENT_SHOTS", "tournament");
    std::fs::write(shots.join("crosstable.png"), browser.screenshot()).unwrap();
    let record = format!("/games/{game}.ron");
    assert_eq!(
        cells,
        serde_json::json!([["2r1", record], ["1s0", record], ["", ""]]),
        "the winner played Red against the second, the second Silver against the first, and \
         Cleo, withdrawn before it, no game"
    );
    // And the tournaments' page lists it.
    browser.open(&format!("http://{}/tournaments", server.addr));
    browser.until(
        "the list",
        "document.querySelector('#list tbody').textContent.includes('Club <b>night</b>')",
    );
}

/// Node `name` of a cluster on `db`, holding its games for 2 s.
fn node(db: &Db, name: &str) -> Server {
    let redis = Redis::get();
    let args = common::node_args(db, &redis.url, &redis.secret_file, name, &["--lease", "2"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Server::start(db, 0, &args)
}

/// `player` takes its seat in game `code` (none: no game), its last game left behind.
fn sit(player: &mut Client, code: &str) {
    // What the last game still sends comes before the pong: then it is left for good.
    player.send(&ClientMsg::Leave);
    player.send(&ClientMsg::Ping);
    let asked = Instant::now();
    while !matches!(
        player.pump(Duration::from_millis(100)),
        Some(ServerMsg::Pong)
    ) {
        assert!(asked.elapsed() < PATIENCE, "{}: no pong", player.name);
    }
    player.seat = None;
    player.mirror = None;
    if !code.is_empty() {
        player.join(code);
    }
}

/// Plays round `round` of `view`: each pairing's players take their seats, and Silver resigns.
fn play_round(players: &mut [Client], view: &TournamentView, round: usize) {
    for pairing in &view.rounds[round] {
        let code = pairing.code.clone().expect("a game");
        let red = pairing.red.clone().expect("no bye among four");
        for name in [&pairing.silver, &red] {
            let player = players
                .iter_mut()
                .find(|c| c.name == *name)
                .expect("a player");
            player.join(&code);
        }
        let silver = players
            .iter_mut()
            .find(|c| c.name == pairing.silver)
            .unwrap();
        silver.send(&ClientMsg::Resign);
        silver.wait_result();
    }
}

/// Asks `client` for the tournament until `done` holds; fails after [`PATIENCE`].
fn view_until(
    client: &mut Client,
    code: &str,
    what: &str,
    done: impl Fn(&TournamentView) -> bool,
) -> TournamentView {
    let asked = Instant::now();
    loop {
        let view = ask(client, &ClientMsg::Tournament { code: code.into() });
        if done(&view) {
            return view;
        }
        assert!(asked.elapsed() < PATIENCE, "never {what}: {view:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_node_holding_a_tournaments_games_dies_and_the_other_finishes_it() {
    let db = Db::new(Backend::Postgres, "tournament_failover");
    // A alone first: it pairs both rounds and holds their games.
    let a = node(&db, "a");
    let mut players: Vec<Client> = ["P1", "P2", "P3", "P4"]
        .into_iter()
        .map(|name| Client::connect(&a.url, name))
        .collect();
    let new = swiss("Two nodes", 2, 10);
    let code = ask(&mut players[0], &ClientMsg::CreateTournament(new)).code;
    for p in &mut players {
        ask(p, &ClientMsg::JoinTournament { code: code.clone() });
    }
    let view = ask(
        &mut players[0],
        &ClientMsg::StartTournament { code: code.clone() },
    );
    play_round(&mut players, &view, 0);
    let paired = view_until(&mut players[0], &code, "round 2 paired", |v| {
        v.rounds.len() == 2
    });

    // B joins the cluster, each player knows both nodes, and round 2's players sit down on A.
    let b = node(&db, "b");
    let both = format!("{},{}", a.url, b.url);
    for p in &mut players {
        p.url.clone_from(&both);
    }
    for pairing in &paired.rounds[1] {
        let game = pairing.code.clone().unwrap();
        for name in [&pairing.silver, pairing.red.as_ref().unwrap()] {
            sit(players.iter_mut().find(|c| c.name == *name).unwrap(), &game);
        }
    }
    // A dies without a word; B takes its games up when their leases run out, and its director
    // records what they end in.
    a.kill();
    for p in &mut players {
        p.rejoin();
    }
    for pairing in &paired.rounds[1] {
        let silver = players
            .iter_mut()
            .find(|c| c.name == pairing.silver)
            .unwrap();
        silver.send(&ClientMsg::Resign);
        silver.wait_result();
    }
    let mut watcher = Client::connect(&b.url, "Watcher");
    let done = view_until(&mut watcher, &code, "finished on B", |v| {
        v.status == TournamentStatus::Finished
    });
    assert_eq!(done.rounds.len(), 2, "no round paired again: {done:?}");
    let codes = |v: &TournamentView| -> Vec<Option<String>> {
        v.rounds.iter().flatten().map(|p| p.code.clone()).collect()
    };
    assert_eq!(
        codes(&done),
        codes(&paired),
        "the games A paired, finished on B"
    );
    for pairing in done.rounds.iter().flatten() {
        assert_eq!(
            pairing.result.as_deref(),
            Some("0-1"),
            "Silver resigned: {pairing:?}"
        );
    }
    // Each player has the points of the games they played as Red, and two games.
    for p in &done.players {
        let as_red = done
            .rounds
            .iter()
            .flatten()
            .filter(|g| g.red_id.as_deref() == Some(p.id.as_str()))
            .count();
        assert_eq!((p.points, p.games), (as_red as f64, 2), "{p:?}");
    }
}

#[test]
fn a_players_page_draws_the_rating_graph_and_lists_their_games_and_tournaments() {
    let db = Db::new(Backend::Sqlite, "player-page");
    let server = Server::start(&db, 0, &["--games-before-rated", "0"]);
    let mut silver = Client::connect(&server.url, "Sam <i>the</i> Silver");
    let mut red = Client::connect(&server.url, "Rae");
    // A rated game Silver wins, then a casual one still in play.
    let rated = silver.create(khet_protocol::NewGame {
        rated: true,
        listed: true,
        color: khet_protocol::SeatChoice::Silver,
        ..common::casual()
    });
    red.join(&rated);
    silver.until("the start", |c| {
        c.mirror().view.status == khet_protocol::Status::Playing
    });
    common::play_line(&mut silver, &mut red, &mut [], &common::pharaoh_line());
    red.wait_result();
    sit(&mut silver, "");
    let casual = silver.create(khet_protocol::NewGame {
        listed: true,
        color: khet_protocol::SeatChoice::Silver,
        ..common::casual()
    });
    sit(&mut red, &casual);
    // And a tournament.
    let new = swiss("Sunday Swiss", 3, 5);
    let code = ask(&mut red, &ClientMsg::CreateTournament(new)).code;
    ask(&mut silver, &ClientMsg::JoinTournament { code });

    let id = silver.conn.player.id.clone();
    let browser = Browser::start(1280, 800);
    browser.open(&format!("http://{}/players/{id}", server.addr));
    browser.until(
        "the name as text",
        "document.getElementById('name').textContent === 'Sam <i>the</i> Silver'",
    );
    browser.until(
        "the rating after one rated game",
        "document.getElementById('rating').textContent.includes('after 1 rated games')",
    );
    // The graph: the rating before the game and after it, the second higher (a win).
    let points = browser.eval(
        "document.getElementById('history').getAttribute('points').split(' ').map(p => p.split(',').map(Number))",
    );
    let points = points.as_array().expect("points");
    assert_eq!(points.len(), 2, "{points:?}");
    assert!(
        points[1][1].as_f64() < points[0][1].as_f64(),
        "a win draws the line up: {points:?}"
    );
    let rows = browser
        .eval("[...document.querySelectorAll('#games tbody tr')].map(r => r.dataset.code + ' ' + r.textContent).join('\\n')");
    let rows = rows.as_str().expect("text");
    assert!(
        rows.contains(&format!("{rated} ")) && rows.contains("won (rated)"),
        "{rows}"
    );
    assert!(
        rows.contains(&format!("{casual} ")) && rows.contains("playing"),
        "{rows}"
    );
    assert!(
        rows.find(&casual) < rows.find(&rated),
        "newest first: {rows}"
    );
    browser.until(
        "the tournament",
        "document.getElementById('tournaments').textContent.includes('Sunday Swiss')",
    );
    // The play page's leaderboard leads to it.
    let (status, board) = server.get("/players");
    assert_eq!(status, 200);
    assert!(board.contains(&id), "{board}");

    // A visitor who has never played here has no challenge to make; one who has challenges
    // from the page, through the play page.
    assert_eq!(
        browser.eval("document.getElementById('challenge').hidden"),
        serde_json::Value::Bool(true)
    );
    silver.send(&ClientMsg::Challenges);
    arrive(&browser, &server, "Vic");
    browser.open(&format!("http://{}/players/{id}", server.addr));
    browser.until(
        "the challenge link",
        "!document.getElementById('challenge').hidden && \
         document.getElementById('challenge').textContent === 'Challenge Sam <i>the</i> Silver'",
    );
    browser.click("#challenge");
    browser.until(
        "the play page's challenge button",
        "document.getElementById('challenge-player') && \
         !document.getElementById('challenge-player').hidden",
    );
    browser.click("#challenge-player");
    let asked = Instant::now();
    let challenge = loop {
        assert!(asked.elapsed() < PATIENCE, "no challenge reached Sam");
        if let Some(ServerMsg::Challenge { challenge }) = silver.pump(Duration::from_millis(100)) {
            break challenge;
        }
    };
    assert_eq!(challenge.from.name, "Vic");
    assert_eq!(challenge.to.id, id);
    browser.until("the hash gone", "location.hash === ''");
}
