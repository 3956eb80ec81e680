//! The Online screen's flow, headless, against a real server on 127.0.0.1 and a real opponent (a
//! protocol client): connect, create a game and get its code, the opponent joins, moves both
//! ways at the table, a draw offer declined, the opponent gone, the game closed and opened again
//! taking its seat from `online.ron`, and the server's result on the table; a challenge to a game
//! of days a move answered from the Online screen, and the player's games at the server listed on
//! coming back to it; and a game played to its end against a browser player (headless Chromium
//! on the server's play page, by clicks) who came by the link the Online screen shows.

mod common;

use bevy::prelude::*;
use common::web::browser::Browser;
use common::{game, headless_with, send, sq, temp_dir};
use khet::online::seats::OnlineFile;
use khet::online::{
    HostPort, Hosting, LinkState, Online, OnlineFiles, OnlineNotice, OnlineRequest, OnlineTable,
};
use khet::screen::Screen;
use khet::settings::Settings;
use khet::table::clock::Clocks;
use khet::table::selection::{RotateSelected, SquareClicked};
use khet::table::{Show, TableAction};
use khet_engine::{Color as Side, Game, GameResult, Player, Rotation, Setup, WinReason};
use khet_protocol::client::Connection;
use khet_protocol::{ClientMsg, ClockSpec, Mirror, NewGame, SeatChoice, ServerMsg, Status};
use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// A server in this process, on its own runtime, on a free port.
fn server(data: &Path) -> (tokio::runtime::Runtime, String) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    let data = data.to_path_buf();
    let settings = khet_server::Settings {
        abandon_grace: Duration::from_millis(500),
        ..khet_server::Settings::default()
    };
    runtime.spawn(async move {
        let store = khet_server::store::Store::open_folder(&data).await.unwrap();
        let listener = tokio::net::TcpListener::from_std(listener).unwrap();
        khet_server::serve(listener, store, settings, std::future::pending())
            .await
            .unwrap();
    });
    (runtime, url)
}

/// The game, headless, with its online file in `dir` and the server's address and a name.
fn the_game(dir: &Path, url: &str) -> App {
    let path = dir.join("online.ron");
    let (file, _) = OnlineFile::read(&path);
    let mut app = headless_with(0.0, |app| {
        app.insert_resource(OnlineFiles {
            file,
            path: Some(path),
        });
    });
    let mut settings = app.world_mut().resource_mut::<Settings>();
    settings.online_name = "Ada".into();
    settings.online_server = url.into();
    app
}

/// How long a step waits before the test fails, saying what it waited for: generous, so that
/// only a hang fails it.
const PATIENCE: Duration = Duration::from_secs(60);

/// Runs frames until `done` holds (the network thread wakes nothing headless: frames are run).
fn until(app: &mut App, what: &str, done: impl Fn(&App) -> bool) {
    let start = Instant::now();
    while !done(app) {
        assert!(start.elapsed() < PATIENCE, "waited too long for {what}");
        app.update();
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The opponent: a protocol client keeping its own mirror.
struct Opponent {
    conn: Connection,
    mirror: Option<Mirror>,
}

impl Opponent {
    fn pump(&mut self, what: &str, done: impl Fn(&Opponent) -> bool) {
        let start = Instant::now();
        while !done(self) {
            assert!(start.elapsed() < PATIENCE, "opponent waited for {what}");
            match self.conn.recv(Duration::from_millis(20)).unwrap() {
                Some(ServerMsg::Sync { event, you, game }) => {
                    self.mirror = Some(Mirror::from_sync(event, you, game).unwrap());
                }
                Some(ServerMsg::Event { n, event }) => {
                    self.mirror.as_mut().unwrap().apply(n, &event).unwrap();
                }
                _ => {}
            }
        }
    }

    fn plies(&self) -> usize {
        self.mirror.as_ref().map_or(0, |m| m.game.turns().len())
    }
}

fn state(app: &App) -> Option<LinkState> {
    app.world()
        .get_resource::<Online>()
        .map(|o| o.state.clone())
}

/// A server in this process with its data in `dir`, and the game on its Online screen, connected
/// to it.
fn connected_to_a_server(dir: &Path) -> (tokio::runtime::Runtime, String, App) {
    let (runtime, url) = server(&dir.join("server"));
    let mut app = the_game(dir, &url);
    common::go_to(&mut app, Screen::Online);
    send(&mut app, OnlineRequest::Connect);
    until(&mut app, "connected", |a| {
        matches!(state(a), Some(LinkState::Connected(_)))
    });
    (runtime, url, app)
}

/// Creates `new` from the Online screen, as its form does; the game's code, once the server
/// gave it.
fn create(app: &mut App, new: NewGame) -> String {
    send(app, OnlineRequest::Send(ClientMsg::Create(new)));
    until(app, "a code", |a| {
        a.world().resource::<Online>().waiting.is_some()
    });
    app.world().resource::<Online>().waiting.clone().unwrap()
}

/// Runs frames until the online game is on the table, with these players.
fn at_the_table(app: &mut App, players: [Player; 2]) {
    until(app, "the table", |a| {
        a.world()
            .get_resource::<khet::table::Match>()
            .is_some_and(|m| m.spec.online)
            && *a.world().resource::<State<Screen>>().get() == Screen::Playing
    });
    assert_eq!(game(app).spec.players, players);
}

/// Runs frames until `online.ron` has no unfinished game: the seat is over.
fn seat_marked_over(app: &mut App) {
    until(app, "the seat marked over", |a| {
        a.world()
            .resource::<OnlineFiles>()
            .file
            .unfinished()
            .next()
            .is_none()
    });
}

#[test]
fn a_game_online_from_the_online_screen_to_its_result() {
    let dir = temp_dir("online-flow");
    let (runtime, url, mut app) = connected_to_a_server(&dir);
    let identity = app.world().resource::<OnlineFiles>().file.identity.clone();
    assert!(
        khet_protocol::is_secret(&identity),
        "an identity made at first use"
    );

    let code = create(
        &mut app,
        NewGame {
            setup: "khet2/classic".into(),
            clock: Some(ClockSpec::minutes(5, 3)),
            color: SeatChoice::Silver,
            rated: false,
            listed: true,
            days_per_move: None,
        },
    );
    assert_eq!(
        *app.world().resource::<State<Screen>>().get(),
        Screen::Online
    );

    // The friend joins with the code.
    let conn = Connection::open(&url, &format!("{:032x}", 0xB0B_u64), "Bob").unwrap();
    let mut bob = Opponent { conn, mirror: None };
    let joined = Instant::now();
    bob.conn
        .send(&ClientMsg::Join { code: code.clone() })
        .unwrap();
    bob.pump("the game", |b| b.mirror.is_some());

    // The game goes to the table: Ada Silver (a person here), Bob online; the server's clocks.
    at_the_table(&mut app, [Player::Person, Player::Online]);
    // The table shows the server's clocks: Silver's running from 5:00 since Bob joined, having
    // lost no more than the time since then, however long that was.
    let clocks = app.world().resource::<Clocks>().clone();
    assert!(clocks.left(Side::Silver) <= Duration::from_secs(300));
    assert!(
        clocks.left(Side::Silver) + joined.elapsed() + Duration::from_secs(1)
            >= Duration::from_secs(300),
        "{clocks:?}"
    );

    // Ada moves with the mouse; the server and Bob get it.
    send(&mut app, SquareClicked(sq("e1")));
    send(&mut app, SquareClicked(sq("e2")));
    assert_eq!(game(&app).game.turns().len(), 1);
    bob.pump("Ada's move", |b| b.plies() == 1);
    // Clicking for Bob is refused at the table.
    send(&mut app, SquareClicked(sq("f8")));
    assert_eq!(common::news(&app), Some(khet::news::News::OpponentsTurn));
    // Bob moves; the table plays it.
    bob.conn
        .send(&ClientMsg::Move {
            ply: 1,
            mv: "f8f7".into(),
        })
        .unwrap();
    until(&mut app, "Bob's move at the table", |a| {
        game(a).game.turns().len() == 2
    });
    assert_eq!(game(&app).game.turns()[1].mv.to_string(), "f8f7");

    // Bob offers a draw; Ada declines at the table.
    bob.conn.send(&ClientMsg::OfferDraw).unwrap();
    until(&mut app, "the offer", |a| {
        game(a).draw_offer == Some(Side::Red)
    });
    send(&mut app, TableAction::DeclineDraw);
    bob.pump("the decline", |b| {
        b.mirror
            .as_ref()
            .is_some_and(|m| m.view.draw_offer.is_none())
    });

    // Bob goes away: the table says so.
    let bob_identity = format!("{:032x}", 0xB0B_u64);
    drop(bob);
    until(&mut app, "Bob gone", |a| {
        a.world()
            .resource::<OnlineTable>()
            .absence
            .is_some_and(|ab| !ab.connected[1] && ab.gone(Side::Red).is_some())
    });

    // Ada's game closes and opens again: it takes its seat from online.ron.
    drop(app);
    let mut app = the_game(&dir, &url);
    let unfinished: Vec<String> = app
        .world()
        .resource::<OnlineFiles>()
        .file
        .unfinished()
        .map(|s| s.code.clone())
        .collect();
    assert_eq!(unfinished, std::slice::from_ref(&code));
    send(&mut app, OnlineRequest::Return(code.clone()));
    until(&mut app, "the game again", |a| {
        a.world()
            .get_resource::<khet::table::Match>()
            .is_some_and(|m| m.spec.online)
            && game(a).game.turns().len() == 2
    });
    assert_eq!(game(&app).spec.players, [Player::Person, Player::Online]);

    // Bob is back and resigns: the server's result is on the table, and the seat is over.
    let conn = Connection::open(&url, &bob_identity, "Bob").unwrap();
    let mut bob = Opponent { conn, mirror: None };
    bob.conn
        .send(&ClientMsg::Watch {
            code: code.clone(),
            since: None,
        })
        .unwrap();
    bob.pump("the game", |b| b.mirror.is_some());
    assert_eq!(bob.mirror.as_ref().unwrap().view.status, Status::Playing);
    drop(bob);
    // Bob takes his seat with his own secret: he has none here (a watcher cannot resign), so
    // Ada claims the game after he has been gone past the grace period instead.
    until(&mut app, "the claim allowed", |a| {
        a.world()
            .resource::<OnlineTable>()
            .absence
            .is_some_and(|ab| {
                ab.gone(Side::Red)
                    .is_some_and(|g| g > Duration::from_millis(600))
            })
    });
    send(
        &mut app,
        OnlineRequest::Send(ClientMsg::ClaimAbandoned { draw: false }),
    );
    until(&mut app, "the result", |a| game(a).game.result().is_some());
    assert_eq!(
        game(&app).game.result(),
        Some(GameResult::Win {
            winner: Side::Silver,
            reason: WinReason::Abandonment
        })
    );
    seat_marked_over(&mut app);
    let on_disk = std::fs::read_to_string(dir.join("online.ron")).unwrap();
    assert!(
        on_disk.contains(&code) && on_disk.contains("over: true"),
        "{on_disk}"
    );
    drop(app);
    runtime.shutdown_background();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A challenge reaches the Online screen (its list asked for on connecting), is accepted there,
/// and its game of three days a move goes to the table; the player's move there is sent, and,
/// back on the Online screen, the game is listed at the server as the opponent's move.
#[test]
fn a_challenge_to_a_game_of_days_is_accepted_on_the_online_screen_and_listed_after() {
    let dir = temp_dir("online-challenge");
    let (runtime, url, mut app) = connected_to_a_server(&dir);
    let ada = match state(&app) {
        Some(LinkState::Connected(me)) => me.id,
        other => panic!("not connected: {other:?}"),
    };
    let conn = Connection::open(&url, &format!("{:032x}", 0xBEA_u64), "Bea").unwrap();
    let mut bea = Opponent { conn, mirror: None };
    bea.conn
        .send(&ClientMsg::Challenge {
            player: ada,
            game: NewGame {
                setup: "khet2/classic".into(),
                clock: None,
                color: SeatChoice::Red,
                rated: false,
                listed: false,
                days_per_move: Some(3),
            },
        })
        .unwrap();
    until(&mut app, "the challenge on the Online screen", |a| {
        a.world().resource::<Online>().challenges.len() == 1
    });
    let challenge = app.world().resource::<Online>().challenges[0].clone();
    assert_eq!(challenge.from.name, "Bea");
    assert_eq!(challenge.days_per_move, Some(3));

    send(
        &mut app,
        OnlineRequest::Send(ClientMsg::AcceptChallenge { id: challenge.id }),
    );
    at_the_table(&mut app, [Player::Person, Player::Online]);
    let view = &app.world().resource::<OnlineTable>().mirror.view;
    assert_eq!(view.days_per_move, Some(3));
    assert!(view.deadline_ms.is_some(), "Ada's days are counted");
    until(&mut app, "the answered challenge gone from the list", |a| {
        a.world().resource::<Online>().challenges.is_empty()
    });
    send(&mut app, SquareClicked(sq("e1")));
    send(&mut app, SquareClicked(sq("e2")));
    assert_eq!(game(&app).game.turns().len(), 1, "Ada's move at the table");
    bea.pump("Ada's move", |b| b.plies() == 1);

    common::go_to(&mut app, Screen::Online);
    until(&mut app, "the game listed", |a| {
        a.world().resource::<Online>().mine.len() == 1
    });
    let listed = &app.world().resource::<Online>().mine[0];
    assert!(!listed.your_turn && listed.plies == 1, "{listed:?}");
    assert_eq!(listed.days_per_move, Some(3));
    assert_eq!(
        listed.opponent.as_ref().map(|p| p.name.as_str()),
        Some("Bea")
    );
    drop(app);
    runtime.shutdown_background();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tournament opened by its code on the Online screen is joined there, and its start and the
/// player's pairing come to the screen without a click (it asks again while shown).
#[test]
fn a_tournament_opened_on_the_online_screen_follows_its_start_without_a_click() {
    let dir = temp_dir("online-tournament");
    let (runtime, url, mut app) = connected_to_a_server(&dir);
    let ada = match state(&app) {
        Some(LinkState::Connected(me)) => me.id,
        other => panic!("not connected: {other:?}"),
    };
    let mut cleo = Connection::open(&url, &format!("{:032x}", 0xC1E0_u64), "Cleo").unwrap();
    let new = khet_protocol::NewTournament {
        name: "Club night".into(),
        kind: khet_protocol::TournamentKind::Swiss { rounds: 1 },
        setup: "classic".into(),
        clock: ClockSpec::minutes(5, 0),
        rated: false,
        listed: true,
        starts_ms: None,
    };
    cleo.send(&ClientMsg::CreateTournament(new)).unwrap();
    let asked = Instant::now();
    let code = loop {
        assert!(asked.elapsed() < PATIENCE, "no tournament made");
        if let Some(ServerMsg::Tournament { tournament }) =
            cleo.recv(Duration::from_millis(100)).unwrap()
        {
            break tournament.code;
        }
    };
    cleo.send(&ClientMsg::JoinTournament { code: code.clone() })
        .unwrap();
    // The screen lists it (what its list asks for on entering it, and every minute).
    send(&mut app, OnlineRequest::Send(ClientMsg::Tournaments));
    until(&mut app, "the tournament listed", |a| {
        a.world()
            .resource::<Online>()
            .tournaments
            .iter()
            .any(|t| t.code == code && t.name == "Club night")
    });

    send(
        &mut app,
        OnlineRequest::Send(ClientMsg::Tournament { code: code.clone() }),
    );
    send(
        &mut app,
        OnlineRequest::Send(ClientMsg::JoinTournament { code: code.clone() }),
    );
    until(&mut app, "Ada in the tournament", |a| {
        a.world()
            .resource::<Online>()
            .tournament
            .as_ref()
            .is_some_and(|t| t.players.iter().any(|p| p.id == ada))
    });
    cleo.send(&ClientMsg::StartTournament { code }).unwrap();
    until(&mut app, "the start and Ada's pairing, unasked", |a| {
        a.world()
            .resource::<Online>()
            .tournament
            .as_ref()
            .is_some_and(|t| {
                t.status == khet_protocol::TournamentStatus::Running && t.game_for(&ada).is_some()
            })
    });
    drop(app);
    runtime.shutdown_background();
    let _ = std::fs::remove_dir_all(&dir);
}

/// *Host on this computer*: the game runs a server itself; its own game connects to it, a friend
/// on the network joins the created game at the address shown and plays a move, the taken port
/// of a second host is refused with a clear notice, and stopping closes the server.
#[test]
fn hosting_on_this_computer_serves_a_friend_and_stops_when_asked() {
    let dir = temp_dir("online-host");
    let mut app = the_game(&dir, "ws://127.0.0.1:1");
    app.insert_resource(HostPort {
        port: 0,
        folder: Some(dir.join("hosted")),
    });
    common::go_to(&mut app, Screen::Online);

    send(&mut app, OnlineRequest::Host(0));
    until(&mut app, "connected to its own server", |a| {
        matches!(state(a), Some(LinkState::Connected(_)))
    });
    let hosting = app.world().resource::<Hosting>();
    let (address, port) = (hosting.address(), hosting.port());
    assert_eq!(
        app.world().resource::<Settings>().online_server,
        format!("ws://127.0.0.1:{port}")
    );
    assert!(address.starts_with("ws://") && address.ends_with(&format!(":{port}")));

    let code = create(
        &mut app,
        NewGame {
            setup: "khet2/classic".into(),
            clock: None,
            color: SeatChoice::Silver,
            rated: false,
            listed: false,
            days_per_move: None,
        },
    );
    // The friend, at the address the screen shows (this computer's address on its network).
    let conn = Connection::open(&address, &format!("{:032x}", 0xF00D_u64), "Friend").unwrap();
    let mut friend = Opponent { conn, mirror: None };
    friend
        .conn
        .send(&ClientMsg::Join { code: code.clone() })
        .unwrap();
    friend.pump("the game", |f| f.mirror.is_some());
    until(&mut app, "the table", |a| {
        a.world()
            .get_resource::<khet::table::Match>()
            .is_some_and(|m| m.spec.online)
    });
    send(&mut app, SquareClicked(sq("e1")));
    send(&mut app, SquareClicked(sq("e2")));
    friend.pump("the host's move", |f| f.plies() == 1);

    // A second game hosting on the same port: refused, saying why.
    let other = temp_dir("online-host-2");
    let mut second = the_game(&other, "ws://127.0.0.1:1");
    second.insert_resource(HostPort {
        port,
        folder: Some(other.join("hosted")),
    });
    send(&mut second, OnlineRequest::Host(port));
    until(&mut second, "the refusal", |a| {
        a.world().resource::<OnlineNotice>().0.is_some()
    });
    let notice = second.world().resource::<OnlineNotice>().0.clone().unwrap();
    assert!(
        notice.contains(&format!("port {port} is taken")),
        "{notice}"
    );
    assert!(second.world().get_resource::<Hosting>().is_none());

    // Stopping: the server closes, and the friend's connection with it.
    send(&mut app, OnlineRequest::StopHosting);
    until(&mut app, "no longer hosting", |a| {
        a.world().get_resource::<Hosting>().is_none()
    });
    let start = Instant::now();
    while Connection::open(&address, &format!("{:032x}", 0xF00D_u64), "Friend").is_ok() {
        assert!(start.elapsed() < PATIENCE, "the server still answers");
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(friend);
}

/// A game to its end: Silver's laser lights Red's Pharaoh at the last move, with steps and turns
/// on both sides (Red's both ways). Found as the server's tests find their `pharaoh_line`
/// (Silver searching two plies, Red at random, here seed 62); the test replays it natively
/// first.
const LINE: [&str; 11] = [
    "c1d2", "f5e6", "h2h3", "c7+", "c5+", "h4i4", "h3i3", "h5-", "j4j3", "h8i8", "j3j4",
];

/// The value of `expression` on the page, as text.
fn page_text(browser: &Browser, expression: &str) -> String {
    let value = browser.eval(expression);
    value.as_str().unwrap_or_default().to_string()
}

/// The moves the page lists (two to a line), as one text.
const PAGE_MOVES: &str =
    "[...document.querySelectorAll('#moves li')].map(li => li.textContent).join(' ')";

/// A page expression: the page lists `n` moves.
fn page_lists(n: usize) -> String {
    format!("{PAGE_MOVES}.split(' ').filter(m => m).length === {n}")
}

/// The moves the page lists, in order.
fn page_moves(browser: &Browser) -> Vec<String> {
    page_text(browser, PAGE_MOVES)
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// The pieces the page draws, in words ("Red Pyramid facing SE on c7"), sorted.
fn page_pieces(browser: &Browser) -> Vec<String> {
    let text = page_text(
        browser,
        "[...document.querySelectorAll('#board .pieces .piece title')]\
         .map(t => t.textContent).join('\\n')",
    );
    let mut pieces: Vec<String> = text.lines().map(str::to_string).collect();
    pieces.sort();
    pieces
}

/// The pieces on the desktop's table, in the page's words, sorted.
fn table_pieces(app: &App) -> Vec<String> {
    let position = game(app).game.position();
    let mut pieces: Vec<String> = position
        .pieces()
        .map(|(at, piece)| format!("{} on {at}", piece.describe()))
        .collect();
    pieces.sort();
    pieces
}

/// The page's square `name`, to click.
fn square(name: &str) -> String {
    format!("#board [data-square=\"{name}\"]")
}

/// A plain HTTP GET to the server at `ws_url`: the status and the body.
fn http_get(ws_url: &str, path: &str) -> (u16, String) {
    let host = ws_url.trim_start_matches("ws://");
    let mut stream = std::net::TcpStream::connect(host).expect("the server answers");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok());
    (status.expect("a status"), body.to_string())
}

/// The Online screen's link, opened in a browser: the friend gives a name on the play page and
/// plays Silver by clicks against the desktop game's Red, played through the table's requests
/// as the mouse sends them, to the Pharaoh lit. Each side sees the other's moves (the page its
/// list and its pieces, the table its game), both show the same result, and the server's record
/// has every move.
#[test]
fn a_browser_player_by_the_link_plays_the_desktop_game_to_its_end() {
    let start = Setup::builtin("classic").unwrap().position;
    let natively = Game::from_moves(start, &LINE).expect("the line is legal");
    assert_eq!(
        natively.result(),
        Some(GameResult::Win {
            winner: Side::Silver,
            reason: WinReason::PharaohHit
        }),
        "the line ends with Red's Pharaoh lit"
    );

    let dir = temp_dir("online-browser");
    let (runtime, url, mut app) = connected_to_a_server(&dir);
    let code = create(
        &mut app,
        NewGame {
            setup: "khet2/classic".into(),
            clock: None,
            color: SeatChoice::Red,
            rated: false,
            listed: false,
            days_per_move: None,
        },
    );
    // The link the Online screen shows, to send to the friend.
    let link = khet_protocol::play_link(&app.world().resource::<Online>().server, &code);
    assert_eq!(
        link,
        format!("http://{}/play/{code}", url.trim_start_matches("ws://"))
    );

    // The friend opens it in a browser that has never played: the page asks for a name.
    let browser = Browser::start(1280, 900);
    browser.open(&link);
    // A friend's link lands on the game: whose it is, and one field for a name.
    browser.until(
        "the invitation to play this game, and the name asked for",
        "!document.getElementById('invite').hidden && \
         document.getElementById('invite-text').textContent.includes('invites you') && \
         !document.getElementById('name').closest('[hidden]')",
    );
    browser.type_into("#name", "Bea");
    browser.click("#name-form button");
    browser.until(
        "the game, Silver to move",
        "document.getElementById('status').textContent.startsWith('Your move')",
    );
    // Her own side at the bottom, her opponent's at the top, both named.
    let bar = |id: &str| {
        page_text(
            &browser,
            &format!("document.getElementById('{id}').textContent"),
        )
    };
    let bars = [bar("player-top"), bar("player-bottom")];
    assert!(
        bars[0].starts_with("Red: Ada") && bars[1].starts_with("Silver: Bea"),
        "{bars:?}"
    );

    // The desktop goes to the table: Bea online as Silver, Ada a person here as Red.
    at_the_table(&mut app, [Player::Online, Player::Person]);
    let silver_name = app.world().resource::<OnlineTable>().mirror.view.players[0]
        .as_ref()
        .map(|p| p.name.clone());
    assert_eq!(silver_name.as_deref(), Some("Bea"));
    assert_eq!(page_pieces(&browser), table_pieces(&app));

    for (i, &mv) in LINE.iter().enumerate() {
        if i % 2 == 0 {
            // Bea's move, by clicks on the page once it shows her turn.
            browser.until(
                &format!("Bea's turn at move {}", i + 1),
                &format!(
                    "{} && document.getElementById('status').textContent.includes('Your move')",
                    page_lists(i)
                ),
            );
            browser.click(&square(&mv[..2]));
            match mv.as_bytes()[2] {
                b'+' => browser.click("[data-rotate=\"cw\"]"),
                b'-' => browser.click("[data-rotate=\"ccw\"]"),
                _ => browser.click(&square(&mv[2..4])),
            }
            until(&mut app, &format!("Bea's {mv} at the table"), |a| {
                game(a).game.turns().len() == i + 1 && a.world().resource::<Show>().is_idle()
            });
            assert_eq!(game(&app).game.turns()[i].mv.to_string(), mv);
            browser.until(&format!("Bea's {mv} on the page"), &page_lists(i + 1));
        } else {
            // Ada's move, as the mouse sends it at the table.
            send(&mut app, SquareClicked(sq(&mv[..2])));
            match mv.as_bytes()[2] {
                b'+' => send(&mut app, RotateSelected(Rotation::Clockwise)),
                b'-' => send(&mut app, RotateSelected(Rotation::Anticlockwise)),
                _ => send(&mut app, SquareClicked(sq(&mv[2..4]))),
            }
            assert_eq!(game(&app).game.turns().len(), i + 1, "Ada's {mv} played");
            assert_eq!(game(&app).game.turns()[i].mv.to_string(), mv);
            until(&mut app, "the table idle again", |a| {
                a.world().resource::<Show>().is_idle()
            });
            browser.until(&format!("Ada's {mv} on the page"), &page_lists(i + 1));
        }
        assert_eq!(page_moves(&browser), LINE[..=i], "the page's list");
        assert_eq!(page_pieces(&browser), table_pieces(&app), "after {mv}");
    }

    // Both show the server's result: Bea's laser lit Ada's Pharaoh.
    browser.until(
        "the result on the page",
        "!document.getElementById('result').hidden",
    );
    let on_page = page_text(&browser, "document.getElementById('result').textContent");
    until(&mut app, "the server's result at the table", |a| {
        a.world()
            .resource::<OnlineTable>()
            .mirror
            .view
            .result
            .is_some()
    });
    let at_table = game(&app).game.result();
    assert_eq!(at_table, natively.result());
    assert_eq!(
        app.world().resource::<OnlineTable>().mirror.view.result,
        at_table
    );
    assert_eq!(on_page, at_table.unwrap().to_string());
    seat_marked_over(&mut app);

    // The server's record has every move, and replays to the same end.
    let (status, record) = http_get(&url, &format!("/games/{code}.ron"));
    assert_eq!(status, 200, "{record}");
    let replayed = khet_engine::Record::from_ron(&record, "record")
        .and_then(|r| r.replay(&record, "record"))
        .unwrap_or_else(|e| panic!("the record replays: {e}\n{record}"));
    let stored: Vec<String> = replayed.turns().iter().map(|t| t.mv.to_string()).collect();
    assert_eq!(stored, LINE);
    assert_eq!(replayed.result(), at_table);

    drop(browser);
    drop(app);
    runtime.shutdown_background();
    let _ = std::fs::remove_dir_all(&dir);
}
