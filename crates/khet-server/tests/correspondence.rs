//! Games that last days, against a server in this process whose clock the test sets forward
//! (`Settings::clock`): a turn's days run out only when the server's clock says so, a player's
//! absence alone never loses the game, the days are kept across a restart, and a player's list
//! of games puts those where it is their move first; in the play page too. And a challenge left
//! unanswered past its day is told expired to both players as it expires.

mod common;

use common::browser::Browser;
use common::{Client, PATIENCE, TempDir, arrive_at, click_move, create_as_silver, pharaoh_line};
use khet_engine::{Color, GameResult, WinReason};
use khet_protocol::{
    CHALLENGE_LIFETIME_MS, ChallengeStatus, ClientMsg, DAY_MS, MyGame, NewGame, Refusal,
    SeatChoice, ServerMsg, Status,
};
use khet_server::store::Store;
use khet_server::{Settings, WallClock};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A server in this process, on its own runtime, judging days by `clock`.
struct Inside {
    runtime: tokio::runtime::Runtime,
    addr: SocketAddr,
    url: String,
}

impl Inside {
    fn start(data: &Path, addr: SocketAddr, clock: &Arc<WallClock>) -> Inside {
        let settings = Settings {
            clock: clock.clone(),
            // A live game's absent player could be claimed against at once: a correspondence
            // game's must still not be.
            abandon_grace: Duration::from_millis(1),
            ..Settings::default()
        };
        let runtime = tokio::runtime::Runtime::new().unwrap();
        // A server stopped a moment ago may hold the address while its tasks wind down.
        let asked = Instant::now();
        let listener = loop {
            match std::net::TcpListener::bind(addr) {
                Ok(listener) => break listener,
                Err(e) => assert!(asked.elapsed() < PATIENCE, "{addr} never came free: {e}"),
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let data = data.to_path_buf();
        runtime.spawn(async move {
            let store = Store::open_folder(&data).await.unwrap();
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            khet_server::serve(listener, store, settings, std::future::pending())
                .await
                .unwrap();
        });
        Inside {
            runtime,
            addr,
            url: format!("ws://{addr}"),
        }
    }

    /// Stops at once, every task dropped where it stands.
    fn stop(self) {
        self.runtime.shutdown_background();
    }
}

fn now_ms() -> u64 {
    u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

fn days(days: u32, listed: bool) -> NewGame {
    NewGame {
        setup: "classic".into(),
        clock: None,
        color: SeatChoice::Silver,
        rated: false,
        listed,
        days_per_move: Some(days),
    }
}

/// Silver's and Red's players seated in a new game of `new` (Silver the creator).
fn pair(url: &str, new: NewGame) -> (Client, Client, String) {
    let mut silver = Client::connect(url, "Silver player");
    let code = silver.create(new);
    let mut red = Client::connect(url, "Red player");
    red.join(&code);
    silver.until("the start", |c| c.mirror().view.status == Status::Playing);
    (silver, red, code)
}

/// The deadline `client`'s game shows now.
fn deadline(client: &Client) -> u64 {
    client.mirror().view.deadline_ms.expect("a deadline")
}

/// `client` claims the game and is refused for now; the reason.
fn claim_refused(client: &mut Client) -> String {
    client.refused(&ClientMsg::ClaimAbandoned { draw: false }, Refusal::NotNow);
    client.refusals.last().unwrap().1.clone()
}

/// The player's list of games, as the server answers it.
fn my_games(client: &mut Client) -> Vec<MyGame> {
    client.send(&ClientMsg::MyGames);
    let asked = Instant::now();
    loop {
        assert!(asked.elapsed() < PATIENCE, "no list of games");
        if let Some(ServerMsg::MyGames { games }) = client.pump(Duration::from_millis(100)) {
            return games;
        }
    }
}

#[test]
fn a_turns_days_run_out_only_by_the_servers_clock_and_then_the_game_is_claimed_on_time() {
    let dir = TempDir::new("days-claim");
    let clock = Arc::new(WallClock::default());
    let server = Inside::start(&dir.0, "127.0.0.1:0".parse().unwrap(), &clock);
    let before = now_ms();
    let (mut silver, mut red, code) = pair(&server.url, days(3, false));
    let after = now_ms();
    let view = &silver.mirror().view;
    assert_eq!(view.days_per_move, Some(3));
    assert_eq!(
        view.clock, None,
        "an older client sees a game without clocks"
    );
    let first = deadline(&silver);
    assert!(
        (before + 3 * DAY_MS..=after + 3 * DAY_MS).contains(&first),
        "Silver's three days start with the game: {first} for a start in {before}..={after}"
    );

    let line = pharaoh_line();
    clock.advance(2 * DAY_MS);
    silver.play(&line[0]);
    red.until("Silver's move", |c| c.plies() == 1);
    // Each move's days start again: Red has three days from Silver's move, not what was left.
    let red_deadline = deadline(&red);
    assert!(
        red_deadline >= after + 5 * DAY_MS,
        "Red's days count from Silver's move, two days in: {red_deadline}"
    );
    assert_eq!(
        deadline(&silver),
        red_deadline,
        "both see the same deadline"
    );

    // Red goes away: past a live game's grace, but a correspondence game is played away.
    drop(red);
    silver.until("Red gone", |c| {
        c.presence.is_some_and(|(connected, _)| !connected[1])
    });
    let why = claim_refused(&mut silver);
    assert!(why.contains("3 days") || why.contains("2 days"), "{why}");

    // A minute before Red's days run out: still refused, and the reason says how long is left.
    clock.advance(red_deadline - 60_000 - clock.now_ms());
    let why = claim_refused(&mut silver);
    assert!(why.contains("minute") || why.contains("second"), "{why}");

    clock.advance(2 * 60_000);
    silver.send(&ClientMsg::ClaimAbandoned { draw: false });
    let won = GameResult::Win {
        winner: Color::Silver,
        reason: WinReason::Time,
    };
    assert_eq!(silver.wait_result(), won);
    assert_eq!(
        silver.mirror().view.deadline_ms,
        None,
        "a game over has no deadline"
    );
    assert_eq!(
        stored_result(&server, &code),
        Some(won),
        "the record says how it ended"
    );
    server.stop();
}

/// Game `code`'s result as its record at `/games/CODE.ron` has it.
fn stored_result(server: &Inside, code: &str) -> Option<GameResult> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(server.addr).unwrap();
    write!(
        s,
        "GET /games/{code}.ron HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    khet_engine::Record::from_ron(body, "record")
        .expect("a record")
        .result
}

#[test]
fn the_player_to_move_cannot_claim_and_a_draw_may_be_claimed_instead() {
    let dir = TempDir::new("days-draw");
    let clock = Arc::new(WallClock::default());
    let server = Inside::start(&dir.0, "127.0.0.1:0".parse().unwrap(), &clock);
    let (mut silver, mut red, _code) = pair(&server.url, days(1, false));
    clock.advance(2 * DAY_MS);
    // Silver's own days ran out: Silver cannot claim them, Red can.
    let why = claim_refused(&mut silver);
    assert!(why.contains("your move"), "{why}");
    red.send(&ClientMsg::ClaimAbandoned { draw: true });
    let result = red.wait_result();
    assert!(
        matches!(result, GameResult::Draw { .. }),
        "a draw claimed: {result:?}"
    );
    server.stop();
}

#[test]
fn a_turns_deadline_is_kept_across_a_restart() {
    let dir = TempDir::new("days-restart");
    let clock = Arc::new(WallClock::default());
    let server = Inside::start(&dir.0, "127.0.0.1:0".parse().unwrap(), &clock);
    let addr = server.addr;
    let (mut silver, mut red, _code) = pair(&server.url, days(2, false));
    let line = pharaoh_line();
    silver.play(&line[0]);
    red.until("Silver's move", |c| c.plies() == 1);
    let kept = deadline(&red);
    server.stop();

    // A day passes while the server is down: unlike a live clock's, the days ran on.
    clock.advance(DAY_MS);
    let server = Inside::start(&dir.0, addr, &clock);
    red.reconnect(false);
    red.until("the game again", |c| c.mirror.is_some());
    assert_eq!(deadline(&red), kept, "the same deadline after the restart");
    silver.reconnect(false);
    silver.until("the game again", |c| c.mirror.is_some());
    let why = claim_refused(&mut silver);
    assert!(why.contains("day") || why.contains("hour"), "{why}");
    clock.advance(DAY_MS + 60_000);
    silver.send(&ClientMsg::ClaimAbandoned { draw: false });
    assert!(matches!(
        silver.wait_result(),
        GameResult::Win {
            winner: Color::Silver,
            reason: WinReason::Time
        }
    ));
    server.stop();
}

#[test]
fn days_a_move_are_offered_only_as_listed_and_never_with_a_clock() {
    let dir = TempDir::new("days-refused");
    let clock = Arc::new(WallClock::default());
    let server = Inside::start(&dir.0, "127.0.0.1:0".parse().unwrap(), &clock);
    let mut ada = Client::connect(&server.url, "Ada");
    ada.refused(&ClientMsg::Create(days(4, false)), Refusal::BadGame);
    assert!(
        ada.refusals[0].1.contains("1, 2, 3, 5, 7, 14"),
        "{:?}",
        ada.refusals
    );
    let mut both = days(3, false);
    both.clock = Some(khet_protocol::ClockSpec::minutes(5, 0));
    ada.refused(&ClientMsg::Create(both), Refusal::BadGame);
    assert!(ada.refusals[1].1.contains("not both"), "{:?}", ada.refusals);
    server.stop();
}

#[test]
fn an_open_correspondence_game_waits_in_the_lobby_while_its_creator_is_away() {
    let dir = TempDir::new("days-lobby");
    let clock = Arc::new(WallClock::default());
    let server = Inside::start(&dir.0, "127.0.0.1:0".parse().unwrap(), &clock);
    let mut ada = Client::connect(&server.url, "Ada");
    let code = ada.create(days(7, true));
    drop(ada);
    let mut bea = Client::connect(&server.url, "Bea");
    bea.send(&ClientMsg::Lobby);
    bea.until("Ada's game in the lobby", |c| {
        c.lobby.as_ref().is_some_and(|l| {
            l.iter()
                .any(|g| g.code == code && g.days_per_move == Some(7))
        })
    });
    bea.join(&code);
    assert_eq!(
        bea.mirror().view.status,
        Status::Playing,
        "started with Ada away"
    );
    assert_eq!(bea.you(), Color::Red);
    server.stop();
}

#[test]
fn a_players_list_of_games_puts_their_move_first_soonest_deadline_first() {
    let dir = TempDir::new("days-mine");
    let clock = Arc::new(WallClock::default());
    let server = Inside::start(&dir.0, "127.0.0.1:0".parse().unwrap(), &clock);
    let url = &server.url;
    let ada_id = common::identity();
    let ada = |name: &str| Client::with_identity(url, name, &ada_id);
    let line = pharaoh_line();

    // Ada (Silver) to move, 7 days; Ada to move, 1 day (the sooner); Bea to move; one open.
    let mut games = Vec::new();
    for (n, d) in [(0, 7), (1, 1), (2, 3)] {
        let mut silver = ada("Ada");
        let code = silver.create(days(d, false));
        let mut red = Client::connect(url, &format!("Opponent {n}"));
        red.join(&code);
        silver.until("the start", |c| c.mirror().view.status == Status::Playing);
        if n == 2 {
            silver.play(&line[0]);
        }
        games.push((code, silver, red));
    }
    let mut waiting = ada("Ada");
    let open = waiting.create(NewGame {
        listed: false,
        ..days(5, false)
    });

    let mut asking = ada("Ada");
    let list = my_games(&mut asking);
    let codes: Vec<&str> = list.iter().map(|g| g.code.as_str()).collect();
    assert_eq!(
        codes,
        [
            games[1].0.as_str(),
            games[0].0.as_str(),
            open.as_str(),
            games[2].0.as_str()
        ],
        "Ada's move first, the sooner deadline first; then the rest, newest first: {list:?}"
    );
    assert!(list[0].your_turn && list[1].your_turn);
    assert!(!list[2].your_turn && !list[3].your_turn);
    assert_eq!(list[0].days_per_move, Some(1));
    assert_eq!(list[0].color, Some(Color::Silver));
    assert_eq!(
        list[0].opponent.as_ref().map(|p| p.name.as_str()),
        Some("Opponent 1")
    );
    assert_eq!(list[2].status, Status::Open);
    assert_eq!(list[2].opponent, None);
    assert_eq!(list[3].plies, 1);

    // The opponent's list: their move in the game where Ada moved.
    let (_, _, red) = &mut games[2];
    let theirs = my_games(red);
    assert_eq!(theirs.len(), 1);
    assert!(theirs[0].your_turn && theirs[0].color == Some(Color::Red));
    server.stop();
}

#[test]
fn a_challenge_to_a_correspondence_game_makes_one() {
    let dir = TempDir::new("days-challenge");
    let clock = Arc::new(WallClock::default());
    let server = Inside::start(&dir.0, "127.0.0.1:0".parse().unwrap(), &clock);
    let mut ada = Client::connect(&server.url, "Ada");
    let mut bea = Client::connect(&server.url, "Bea");
    bea.send(&ClientMsg::Challenges);
    let bea_id = bea.conn.player.id.clone();
    ada.send(&ClientMsg::Challenge {
        player: bea_id,
        game: days(14, false),
    });
    let asked = Instant::now();
    let id = loop {
        assert!(asked.elapsed() < PATIENCE, "no challenge reached Bea");
        if let Some(ServerMsg::Challenge { challenge }) = bea.pump(Duration::from_millis(100)) {
            assert_eq!(challenge.days_per_move, Some(14));
            break challenge.id;
        }
    };
    bea.send(&ClientMsg::AcceptChallenge { id });
    bea.until("the game", |c| {
        c.mirror
            .as_ref()
            .is_some_and(|m| m.view.status == Status::Playing)
    });
    assert_eq!(bea.mirror().view.days_per_move, Some(14));
    server.stop();
}

/// The play page's text of element `id`.
fn text_of(browser: &Browser, id: &str) -> String {
    let js = format!("document.getElementById('{id}').textContent");
    browser.eval(&js).as_str().unwrap_or_default().to_string()
}

/// Creates a game of `days` a move as Silver on the page's home; its code.
fn create_on_page(browser: &Browser, addr: &str, days: u32) -> String {
    browser.open(&format!("http://{addr}/play"));
    browser.until(
        "the create form",
        "!document.getElementById('home').hidden && document.querySelectorAll('#setup option').length >= 8",
    );
    browser.click(&format!("#clock option[value=\"{days}d\"]"));
    create_as_silver(browser)
}

#[test]
fn the_play_page_offers_days_lists_the_players_move_first_and_claims_once_the_server_says_time_is_up()
 {
    let dir = TempDir::new("days-page");
    let clock = Arc::new(WallClock::default());
    let server = Inside::start(&dir.0, "127.0.0.1:0".parse().unwrap(), &clock);
    let addr = server.addr.to_string();
    let browser = Browser::start(1280, 900);
    arrive_at(&browser, &addr, "Ada");
    let line = pharaoh_line();

    // A game of three days a move: Ada's move, then Bea's.
    let three = create_on_page(&browser, &addr, 3);
    let mut bea = Client::connect(&server.url, "Bea");
    bea.join(&three);
    browser.until(
        "Ada's days shown",
        "document.getElementById('days-left').textContent.startsWith('Your move: 2 days 23 hours left')",
    );
    assert_eq!(
        browser.eval("document.getElementById('claim-win').hidden"),
        serde_json::Value::Bool(true)
    );
    click_move(&browser, &line[0]);
    bea.until("Ada's move", |c| c.plies() == 1);
    browser.until(
        "Bea's days shown",
        "document.getElementById('days-left').textContent.startsWith('Red to move: 2 days 23 hours')",
    );
    // Bea goes away: a live game could be claimed after the grace (1 ms here); this one not.
    drop(bea);
    browser.until(
        "Bea away",
        "document.getElementById('player-top').textContent.includes('away')",
    );
    // For a person to look at (`KHET_DAYS_SHOTS`, or the target's folder for tests' files).
    let shots = common::shots_dir("KHET_DAYS_SHOTS", "days");
    std::fs::write(shots.join("days-table.png"), browser.screenshot()).unwrap();
    for id in ["claim-win", "claim-draw", "claim-time"] {
        let hidden = browser.eval(&format!("document.getElementById('{id}').hidden"));
        assert_eq!(hidden, serde_json::Value::Bool(true), "#{id} shown");
    }

    // A game of one day, Ada's move: first in her list, with its time left.
    let one = create_on_page(&browser, &addr, 1);
    let mut cy = Client::connect(&server.url, "Cy");
    cy.join(&one);
    browser.open(&format!("http://{addr}/play"));
    browser.until(
        "Ada's games listed",
        "document.querySelectorAll('#my-games li').length === 2",
    );
    let rows = browser.eval(
        "[...document.querySelectorAll('#my-games li')].map(li => [li.dataset.code, \
         li.classList.contains('your-turn'), li.textContent])",
    );
    let rows = rows.as_array().expect("the rows");
    assert_eq!(rows[0][0], one.as_str(), "{rows:?}");
    assert_eq!(rows[0][1], true, "{rows:?}");
    let first = rows[0][2].as_str().unwrap_or_default();
    assert!(
        first.contains("Your move") && first.contains("against Cy") && first.contains("23 hours"),
        "{first}"
    );
    assert_eq!(rows[1][0], three.as_str(), "{rows:?}");
    assert_eq!(rows[1][1], false, "{rows:?}");
    assert!(
        !text_of(&browser, "mine-section").is_empty(),
        "the section is shown"
    );
    std::fs::write(shots.join("days-my-games.png"), browser.screenshot()).unwrap();

    // Three days on by the server's clock (the browser's is as it was): Bea is out of time.
    clock.advance(3 * DAY_MS + 60_000);
    browser.click(&format!("#my-games a[data-open=\"{three}\"]"));
    browser.until(
        "the claim offered",
        "!document.getElementById('claim-time').hidden",
    );
    assert!(
        text_of(&browser, "days-left").contains("out of time"),
        "{}",
        text_of(&browser, "days-left")
    );
    std::fs::write(shots.join("days-claim.png"), browser.screenshot()).unwrap();
    browser.click("#claim-time");
    browser.until(
        "the win on time",
        "document.getElementById('result').textContent.includes('time ran out')",
    );
    server.stop();
}

/// The next challenge `client` is told of; fails after [`PATIENCE`].
fn next_challenge(client: &mut Client) -> khet_protocol::ChallengeInfo {
    let asked = Instant::now();
    loop {
        assert!(
            asked.elapsed() < PATIENCE,
            "{}: no challenge told",
            client.name
        );
        if let Some(ServerMsg::Challenge { challenge }) = client.pump(Duration::from_millis(100)) {
            return challenge;
        }
    }
}

#[test]
fn a_challenge_left_unanswered_past_its_day_is_told_expired_to_both_players() {
    let dir = TempDir::new("challenge-expiry");
    let clock = Arc::new(WallClock::default());
    let server = Inside::start(&dir.0, "127.0.0.1:0".parse().unwrap(), &clock);
    let mut ada = Client::connect(&server.url, "Ada");
    let mut bea = Client::connect(&server.url, "Bea");
    bea.send(&ClientMsg::Challenges);
    ada.send(&ClientMsg::Challenge {
        player: bea.conn.player.id.clone(),
        game: days(5, false),
    });
    let made = next_challenge(&mut ada);
    assert_eq!(next_challenge(&mut bea).status, ChallengeStatus::Pending);
    clock.advance(CHALLENGE_LIFETIME_MS + 1000);
    for client in [&mut ada, &mut bea] {
        let told = next_challenge(client);
        assert_eq!(
            (told.id.as_str(), told.status),
            (made.id.as_str(), ChallengeStatus::Expired)
        );
    }
    server.stop();
}
