//! Challenges and rematches (issue 65) against a real `khet-server`, with real clients: a
//! challenge accepted and played, one declined, one made to a player away and found at their
//! next hello, the refusals, and a rematch with colours swapped; the same between two nodes
//! (PostgreSQL and Redis), and the play page's buttons in a real browser.

mod common;

use common::browser::Browser;
use common::services::Redis;
use common::{
    Backend, Client, Db, PATIENCE, Server, arrive, casual, click_move, metric, pair, play_line,
};
use khet_engine::Color;
use khet_protocol::{
    ChallengeInfo, ChallengeStatus, ClientMsg, MAX_PENDING_CHALLENGES, NewGame, Refusal,
    SeatChoice, ServerMsg, Status,
};
use std::time::{Duration, Instant};

/// A player whose connection hears of their challenges, as the play page's does.
fn listening(url: &str, name: &str) -> Client {
    let mut client = Client::connect(url, name);
    client.send(&ClientMsg::Challenges);
    challenges(&mut client);
    client
}

/// Handles messages until the list of pending challenges comes; fails after [`PATIENCE`].
fn challenges(client: &mut Client) -> Vec<ChallengeInfo> {
    let start = Instant::now();
    loop {
        assert!(
            start.elapsed() < PATIENCE,
            "{}: no list of challenges",
            client.name
        );
        if let Some(ServerMsg::Challenges { challenges }) = client.pump(Duration::from_millis(100))
        {
            return challenges;
        }
    }
}

/// Handles messages until a challenge that `wanted` holds of comes; fails after [`PATIENCE`].
fn told(client: &mut Client, what: &str, wanted: impl Fn(&ChallengeInfo) -> bool) -> ChallengeInfo {
    let start = Instant::now();
    loop {
        assert!(
            start.elapsed() < PATIENCE,
            "{}: waited too long for {what} (refused: {:?})",
            client.name,
            client.refusals
        );
        if let Some(ServerMsg::Challenge { challenge }) = client.pump(Duration::from_millis(100))
            && wanted(&challenge)
        {
            return challenge;
        }
    }
}

/// Waits until the server counts `n` connections open (those closed have ended there too);
/// fails after [`PATIENCE`].
fn connections_open(server: &Server, n: u32) {
    let start = Instant::now();
    while metric(server, "khet_connections_open") != f64::from(n) {
        assert!(start.elapsed() < PATIENCE, "never {n} connections open");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Pings and handles messages until the pong: what the server sent before is handled. Fails
/// after [`PATIENCE`].
fn answered(client: &mut Client) {
    client.send(&ClientMsg::Ping);
    let start = Instant::now();
    while !matches!(
        client.pump(Duration::from_millis(100)),
        Some(ServerMsg::Pong)
    ) {
        assert!(start.elapsed() < PATIENCE, "{}: no pong", client.name);
    }
}

fn id(client: &Client) -> String {
    client.conn.player.id.clone()
}

/// Waits until `client` is seated in game `code` and has the game.
fn seated_in(client: &mut Client, code: &str) {
    client.until(&format!("a seat in {code}"), |c| {
        c.seat.as_ref().is_some_and(|(seat, _)| seat == code)
            && c.mirror.as_ref().is_some_and(|m| m.view.code == code)
    });
}

fn a_challenge_accepted_seats_both_and_the_game_plays(backend: Backend) {
    let data = Db::new(backend, "challenge_accepted");
    let server = Server::start(&data, 0, &[]);
    let mut ada = listening(&server.url, "Ada");
    let mut bea = listening(&server.url, "Bea");
    let game = NewGame {
        color: SeatChoice::Red,
        ..casual()
    };
    ada.send(&ClientMsg::Challenge {
        player: id(&bea),
        game,
    });
    let made = told(&mut ada, "the challenge made", |c| {
        c.status == ChallengeStatus::Pending
    });
    assert_eq!(
        (made.from.name.as_str(), made.to.name.as_str()),
        ("Ada", "Bea")
    );
    let received = told(&mut bea, "the challenge", |c| c.id == made.id);
    assert_eq!(received.color, SeatChoice::Red);
    // Only the challenged player may accept.
    ada.refused(
        &ClientMsg::AcceptChallenge {
            id: made.id.clone(),
        },
        Refusal::UnknownChallenge,
    );
    // Ada plays another game on a second connection, which keeps playing it.
    let mut busy = Client::with_identity(&server.url, "Ada", &ada.identity);
    let other = busy.create(casual());
    let mut cy = Client::connect(&server.url, "Cy");
    cy.join(&other);
    busy.send(&ClientMsg::Challenges);
    challenges(&mut busy);
    bea.send(&ClientMsg::AcceptChallenge {
        id: made.id.clone(),
    });
    let accepted = told(&mut ada, "the accept", |c| {
        c.id == made.id && c.status == ChallengeStatus::Accepted
    });
    let code = accepted.game.expect("the accept's game");
    seated_in(&mut ada, &code);
    seated_in(&mut bea, &code);
    for c in [&mut ada, &mut bea] {
        c.until("the start", |c| c.mirror().view.status == Status::Playing);
    }
    // The busy connection is given the seat, to take later, and stays at its game.
    busy.until("the seat", |c| {
        c.seat.as_ref().is_some_and(|(seat, _)| *seat == code)
    });
    answered(&mut busy);
    assert_eq!(busy.mirror().view.code, other, "still at its game");
    assert_eq!(ada.you(), Color::Red, "the challenger's side as asked");
    assert_eq!(bea.you(), Color::Silver);
    play_line(&mut bea, &mut ada, &mut [], &["e1e2".into(), "f8f7".into()]);
    // Answered once: a second accept finds nothing waiting.
    bea.refused(
        &ClientMsg::AcceptChallenge { id: made.id },
        Refusal::UnknownChallenge,
    );
}

fn a_challenge_declined_is_told_to_the_challenger_and_refusals_say_why(backend: Backend) {
    let data = Db::new(backend, "challenge_declined");
    let server = Server::start(&data, 0, &[]);
    let mut ada = listening(&server.url, "Ada");
    let mut bea = listening(&server.url, "Bea");
    ada.send(&ClientMsg::Challenge {
        player: id(&bea),
        game: casual(),
    });
    let received = told(&mut bea, "the challenge", |c| {
        c.status == ChallengeStatus::Pending
    });
    bea.send(&ClientMsg::DeclineChallenge {
        id: received.id.clone(),
    });
    let declined = told(&mut ada, "the decline", |c| {
        c.id == received.id && c.status == ChallengeStatus::Declined
    });
    assert_eq!(declined.game, None);
    assert!(challenges_of(&mut ada).is_empty(), "nothing waits");

    // Refused with reasons: nobody, oneself, a bad game, a second challenge to one player.
    let nobody = ClientMsg::Challenge {
        player: "abcd2345".into(),
        game: casual(),
    };
    ada.refused(&nobody, Refusal::UnknownPlayer);
    let myself = ClientMsg::Challenge {
        player: id(&ada),
        game: casual(),
    };
    ada.refused(&myself, Refusal::NotNow);
    let bad = ClientMsg::Challenge {
        player: id(&bea),
        game: NewGame {
            setup: "nowhere".into(),
            ..casual()
        },
    };
    ada.refused(&bad, Refusal::BadGame);
    let again = ClientMsg::Challenge {
        player: id(&bea),
        game: casual(),
    };
    ada.send(&again);
    told(&mut ada, "the second challenge", |c| {
        c.status == ChallengeStatus::Pending
    });
    ada.refused(&again, Refusal::NotNow);

    // At most so many waiting from one player.
    for n in 1..MAX_PENDING_CHALLENGES {
        let other = Client::connect(&server.url, &format!("Other {n}"));
        ada.send(&ClientMsg::Challenge {
            player: id(&other),
            game: casual(),
        });
        told(&mut ada, "a challenge made", |c| c.to.id == id(&other));
        other.conn.close();
    }
    let one_more = Client::connect(&server.url, "One too many");
    ada.refused(
        &ClientMsg::Challenge {
            player: id(&one_more),
            game: casual(),
        },
        Refusal::NotNow,
    );
    // A withdrawn one makes room, and its player is told.
    let oldest = challenges_of(&mut ada)[0].id.clone();
    ada.send(&ClientMsg::WithdrawChallenge { id: oldest });
    told(&mut bea, "the withdrawal", |c| {
        c.status == ChallengeStatus::Withdrawn
    });
    ada.send(&ClientMsg::Challenge {
        player: id(&one_more),
        game: casual(),
    });
    told(&mut ada, "the challenge with room again", |c| {
        c.to.id == id(&one_more)
    });
}

/// The pending challenges, asked for again.
fn challenges_of(client: &mut Client) -> Vec<ChallengeInfo> {
    client.send(&ClientMsg::Challenges);
    challenges(client)
}

fn a_challenge_to_a_player_away_is_seen_at_their_next_hello(backend: Backend) {
    let data = Db::new(backend, "challenge_away");
    let server = Server::start(&data, 0, &[]);
    let bea = Client::connect(&server.url, "Bea");
    let (bea_id, bea_identity) = (id(&bea), bea.identity.clone());
    bea.conn.close();
    let mut ada = listening(&server.url, "Ada");
    ada.send(&ClientMsg::Challenge {
        player: bea_id,
        game: casual(),
    });
    let made = told(&mut ada, "the challenge made", |c| {
        c.status == ChallengeStatus::Pending
    });
    let mut bea = Client::with_identity(&server.url, "Bea", &bea_identity);
    bea.send(&ClientMsg::Challenges);
    let waiting = challenges(&mut bea);
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert_eq!(waiting[0].id, made.id);
    assert_eq!(waiting[0].from.name, "Ada");
    // Not while the challenger is away: they would get no seat, and lose.
    let ada_identity = ada.identity.clone();
    ada.conn.close();
    connections_open(&server, 1);
    let accept = ClientMsg::AcceptChallenge { id: made.id };
    bea.refused(&accept, Refusal::NotNow);
    let mut ada = Client::with_identity(&server.url, "Ada", &ada_identity);
    ada.send(&ClientMsg::Challenges);
    assert_eq!(challenges(&mut ada).len(), 1, "the challenge waits");
    bea.send(&accept);
    let accepted = told(&mut ada, "the accept", |c| {
        c.status == ChallengeStatus::Accepted
    });
    let code = accepted.game.expect("a game");
    seated_in(&mut ada, &code);
    seated_in(&mut bea, &code);
    assert_eq!(
        ada.you(),
        Color::Silver,
        "casual() is the challenger's Silver"
    );
    play_line(&mut ada, &mut bea, &mut [], &["e1e2".into()]);
}

fn a_rematch_asked_by_both_is_played_with_colours_swapped(backend: Backend) {
    let data = Db::new(backend, "rematch");
    let server = Server::start(&data, 0, &[]);
    let (mut silver, mut red, code) = pair(&server.url, casual());
    // Not before the end.
    silver.refused(&ClientMsg::Rematch { code: code.clone() }, Refusal::NotNow);
    play_line(&mut silver, &mut red, &mut [], &["e1e2".into()]);
    red.send(&ClientMsg::Resign);
    silver.wait_result();
    red.wait_result();
    for c in [&mut silver, &mut red] {
        c.send(&ClientMsg::Challenges);
        challenges(c);
    }
    // A spectator may not ask.
    let mut watcher = Client::connect(&server.url, "Watcher");
    watcher.refused(
        &ClientMsg::Rematch { code: code.clone() },
        Refusal::NotPlaying,
    );
    red.send(&ClientMsg::Rematch { code: code.clone() });
    let asked = told(&mut silver, "the rematch asked", |c| {
        c.rematch_of.as_deref() == Some(code.as_str())
    });
    assert_eq!(asked.from.name, "Red player");
    // The other's own ask accepts it: one click each.
    silver.send(&ClientMsg::Rematch { code: code.clone() });
    let accepted = told(&mut red, "the rematch accepted", |c| {
        c.id == asked.id && c.status == ChallengeStatus::Accepted
    });
    let again = accepted.game.expect("the rematch's game");
    assert_ne!(again, code);
    seated_in(&mut silver, &again);
    seated_in(&mut red, &again);
    for c in [&mut silver, &mut red] {
        c.until("the start", |c| c.mirror().view.status == Status::Playing);
    }
    assert_eq!(silver.you(), Color::Red, "colours swapped");
    assert_eq!(red.you(), Color::Silver, "colours swapped");
    let game = &silver.mirror().view;
    assert_eq!((game.rated, game.clock), (false, None), "the same game");
    // The former Red opens.
    play_line(
        &mut red,
        &mut silver,
        &mut [],
        &["e1e2".into(), "f8f7".into()],
    );

    // A setup of Khet 1.0 (which a game names for people) is played again.
    let dynasty = NewGame {
        setup: "khet1/dynasty".into(),
        ..casual()
    };
    let (mut silver, mut red, code) = pair(&server.url, dynasty);
    red.send(&ClientMsg::Resign);
    silver.wait_result();
    red.wait_result();
    let setup = silver.mirror().view.setup.clone();
    silver.send(&ClientMsg::Challenges);
    challenges(&mut silver);
    red.send(&ClientMsg::Rematch { code: code.clone() });
    told(&mut silver, "the rematch asked", |c| {
        c.rematch_of.as_deref() == Some(code.as_str())
    });
    silver.send(&ClientMsg::Rematch { code: code.clone() });
    silver.until("the rematch", |c| {
        c.mirror.as_ref().is_some_and(|m| m.view.code != code)
    });
    assert_eq!(silver.mirror().view.setup, setup);
    assert_eq!(silver.you(), Color::Red, "colours swapped");
}

on_each_backend!(
    a_challenge_accepted_seats_both_and_the_game_plays,
    a_challenge_declined_is_told_to_the_challenger_and_refusals_say_why,
    a_challenge_to_a_player_away_is_seen_at_their_next_hello,
    a_rematch_asked_by_both_is_played_with_colours_swapped,
);

/// The play page: a challenge made from the leaderboard by a click, and its decline shown; a
/// challenge shown with its Accept, accepted by a click and played; after the game, the
/// opponent's rematch shown on the page's Rematch button and accepted by a click, colours
/// swapped.
#[test]
fn the_page_challenges_from_the_leaderboard_and_accepts_a_challenge_and_a_rematch() {
    let db = Db::new(Backend::Sqlite, "challenge_page");
    let server = Server::start(&db, 0, &["--games-before-rated", "0"]);
    // A rated game played, so that the leaderboard has its players.
    let rated = NewGame {
        rated: true,
        ..casual()
    };
    let (mut silver, mut red, _) = pair(&server.url, rated);
    red.send(&ClientMsg::Resign);
    silver.wait_result();
    silver.send(&ClientMsg::Challenges);
    challenges(&mut silver);
    let browser = Browser::start(1280, 900);
    arrive(&browser, &server, "Page player");
    let button = format!("[data-challenge=\"{}\"]", id(&silver));
    browser.until(
        "the leaderboard's Challenge button",
        &format!("!!document.querySelector('{button}')"),
    );
    browser.click(&button);
    let made = told(&mut silver, "the page's challenge", |c| {
        c.from.name == "Page player"
    });
    assert_eq!(made.setup, "khet2/classic", "the form's settings");
    silver.send(&ClientMsg::DeclineChallenge { id: made.id });
    browser.until(
        "the decline shown",
        "document.getElementById('challenge-news').textContent\
         .includes('Silver player declined your challenge')",
    );
    // The page's player id, as the page's identity has it.
    let identity = browser.eval("JSON.parse(localStorage.getItem('khet.identity'))");
    let page = Client::with_identity(&server.url, "Page player", identity.as_str().unwrap());
    let page_id = id(&page);
    page.conn.close();

    let mut ada = listening(&server.url, "Ada");
    ada.send(&ClientMsg::Challenge {
        player: page_id,
        game: NewGame {
            color: SeatChoice::Red,
            ..casual()
        },
    });
    browser.until(
        "the challenge shown",
        "document.getElementById('challenge-list').textContent.includes('Ada')",
    );
    let shots = common::shots_dir("KHET_PLAY_SHOTS", "play");
    std::fs::write(shots.join("challenge.png"), browser.screenshot()).unwrap();
    browser.click("[data-answer=\"accept_challenge\"]");
    let accepted = told(&mut ada, "the accept", |c| {
        c.status == ChallengeStatus::Accepted
    });
    let code = accepted.game.expect("a game");
    seated_in(&mut ada, &code);
    browser.until(
        "the page's move",
        "document.getElementById('status').textContent.startsWith('Your move')",
    );
    click_move(&browser, "e1e2");
    ada.until("the page's move", |c| c.plies() == 1);
    ada.send(&ClientMsg::Resign);
    browser.until(
        "the Rematch button",
        "!document.getElementById('rematch-bar').hidden",
    );
    ada.send(&ClientMsg::Challenges);
    challenges(&mut ada);
    ada.send(&ClientMsg::Rematch { code: code.clone() });
    browser.until(
        "the rematch offered",
        "document.getElementById('rematch').textContent === 'Accept the rematch'",
    );
    std::fs::write(shots.join("rematch.png"), browser.screenshot()).unwrap();
    browser.click("#rematch");
    let again = told(&mut ada, "the rematch accepted", |c| {
        c.rematch_of.as_deref() == Some(code.as_str()) && c.status == ChallengeStatus::Accepted
    })
    .game
    .expect("the rematch's game");
    seated_in(&mut ada, &again);
    assert_eq!(ada.you(), Color::Silver, "colours swapped");
    browser.until(
        "the page at the rematch",
        &format!("location.pathname === '/play/{again}'"),
    );
    ada.play("e1e2");
    browser.until(
        "the page's move in the rematch",
        "document.getElementById('status').textContent.includes('Your move')",
    );
}

/// Node `name` of a cluster on `db`, through the tests' Redis.
fn node(db: &Db, name: &str) -> Server {
    let redis = Redis::get();
    let args = common::node_args(db, &redis.url, &redis.secret_file, name, &["--lease", "10"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Server::start(db, 0, &args)
}

/// Two nodes: a challenge from a player on one to a player on the other is told there,
/// accepted there (not while the challenger is away from both), and both are seated and play;
/// a decline is told back; a rematch across the nodes is played with colours swapped.
#[test]
fn challenges_and_rematches_reach_players_on_other_nodes() {
    let db = Db::new(Backend::Postgres, "challenge_nodes");
    let (a, b) = (node(&db, "a"), node(&db, "b"));
    let mut ada = listening(&a.url, "Ada on A");
    let mut bea = listening(&b.url, "Bea on B");
    ada.send(&ClientMsg::Challenge {
        player: id(&bea),
        game: casual(),
    });
    let first = told(&mut bea, "the challenge from A", |c| {
        c.status == ChallengeStatus::Pending
    });
    bea.send(&ClientMsg::DeclineChallenge { id: first.id });
    told(&mut ada, "the decline from B", |c| {
        c.status == ChallengeStatus::Declined
    });
    ada.send(&ClientMsg::Challenge {
        player: id(&bea),
        game: casual(),
    });
    let second = told(&mut bea, "the second challenge", |c| {
        c.status == ChallengeStatus::Pending
    });
    // Not while Ada is away from every node: node B asks A, once it has heard A (A's
    // heartbeat brings A's open games to B's lobby).
    let mut keeper = Client::connect(&a.url, "Keeper on A");
    let listed = keeper.create(NewGame {
        listed: true,
        ..casual()
    });
    bea.send(&ClientMsg::Lobby);
    bea.until("A's open game in B's lobby", |c| {
        c.lobby
            .as_ref()
            .is_some_and(|games| games.iter().any(|g| g.code == listed))
    });
    let ada_identity = ada.identity.clone();
    ada.conn.close();
    connections_open(&a, 1);
    let accept = ClientMsg::AcceptChallenge { id: second.id };
    bea.refused(&accept, Refusal::NotNow);
    let mut ada = Client::with_identity(&a.url, "Ada on A", &ada_identity);
    ada.send(&ClientMsg::Challenges);
    challenges(&mut ada);
    bea.send(&accept);
    let code = told(&mut ada, "the accept from B", |c| {
        c.status == ChallengeStatus::Accepted
    })
    .game
    .expect("a game");
    seated_in(&mut ada, &code);
    seated_in(&mut bea, &code);
    assert_eq!((ada.you(), bea.you()), (Color::Silver, Color::Red));
    play_line(&mut ada, &mut bea, &mut [], &["e1e2".into(), "f8f7".into()]);
    bea.send(&ClientMsg::Resign);
    ada.wait_result();
    bea.wait_result();

    ada.send(&ClientMsg::Rematch { code: code.clone() });
    told(&mut bea, "the rematch asked from A", |c| {
        c.rematch_of.as_deref() == Some(code.as_str())
    });
    bea.send(&ClientMsg::Rematch { code: code.clone() });
    let again = told(&mut ada, "the rematch accepted on B", |c| {
        c.rematch_of.as_deref() == Some(code.as_str()) && c.status == ChallengeStatus::Accepted
    })
    .game
    .expect("the rematch's game");
    seated_in(&mut ada, &again);
    seated_in(&mut bea, &again);
    assert_eq!((ada.you(), bea.you()), (Color::Red, Color::Silver));
    play_line(&mut bea, &mut ada, &mut [], &["e1e2".into()]);
}
