//! Identities cost nothing, and a real server holds its ratings and its bars against that: a new
//! identity plays rated only after casual games, two identities' rated games count three times a
//! day, and a barred player's new identity from the same address is held (docs/server.md, "What
//! the server defends against").

mod common;

use common::{Backend, Client, Db, PATIENCE, Server, casual, identity, next_text};
use khet_protocol::client::{ClientError, Connection};
use khet_protocol::{ClientMsg, NewGame, Refusal, ServerMsg, Status, VERSION};
use std::net::{IpAddr, TcpStream};
use std::process::Command;
use std::time::Duration;
use tungstenite::client::IntoClientRequest;

fn rated() -> NewGame {
    NewGame {
        rated: true,
        ..casual()
    }
}

/// The refusal of `msg`, which must be `not_now`: its reason.
fn refused_not_now(client: &mut Client, msg: &ClientMsg) -> String {
    client.refused(msg, Refusal::NotNow);
    client.refusals.last().unwrap().1.clone()
}

/// A game between `silver`, who creates `new`, and `red`, who joins: each side moves once (if
/// `moves`), then Red resigns. Both follow the finished game after.
fn play_and_resign(silver: &mut Client, red: &mut Client, new: NewGame, moves: bool) {
    silver.seat = None;
    silver.mirror = None;
    let code = silver.create(new);
    red.seat = None;
    red.mirror = None;
    red.join(&code);
    silver.until("the start", |c| c.mirror().view.status == Status::Playing);
    if moves {
        silver.play("e1e2");
        red.until("the move", |c| c.plies() == 1);
        red.play("f8f7");
        silver.until("the move", |c| c.plies() == 2);
    }
    red.send(&ClientMsg::Resign);
    silver.wait_result();
    red.wait_result();
}

/// A player's rated games and rating, as the server welcomes it again.
fn standing(server: &Server, client: &Client) -> (u32, f64) {
    let again = Connection::open(&server.url, &client.identity, &client.name).unwrap();
    let info = (again.player.games, again.player.rating);
    again.close();
    info
}

fn a_new_identity_plays_rated_only_after_three_finished_games(backend: Backend) {
    let data = Db::new(backend, "newcomer");
    let server = Server::start(&data, 0, &[]);
    let mut ann = Client::connect(&server.url, "Ann");
    let mut bob = Client::connect(&server.url, "Bob");
    let why = refused_not_now(&mut ann, &ClientMsg::Create(rated()));
    assert!(why.contains("play 3 more casual game(s)"), "{why}");
    let seek = ClientMsg::Seek {
        clock: None,
        rated: true,
    };
    let why = refused_not_now(&mut bob, &seek);
    assert!(why.contains("casual"), "{why}");

    // A game resigned before both sides moved proves nothing.
    play_and_resign(&mut ann, &mut bob, casual(), false);
    let why = refused_not_now(&mut ann, &ClientMsg::Create(rated()));
    assert!(why.contains("play 3 more"), "{why}");
    for left in [2, 1] {
        play_and_resign(&mut ann, &mut bob, casual(), true);
        let why = refused_not_now(&mut ann, &ClientMsg::Create(rated()));
        assert!(why.contains(&format!("play {left} more")), "{why}");
    }
    // An eligible creator's rated game is still refused to a newcomer who joins it.
    play_and_resign(&mut ann, &mut bob, casual(), true);
    ann.seat = None;
    ann.mirror = None;
    let code = ann.create(rated());
    let mut newcomer = Client::connect(&server.url, "Newcomer");
    let why = refused_not_now(&mut newcomer, &ClientMsg::Join { code: code.clone() });
    assert!(why.contains("casual"), "{why}");
    // Three games finished: Bob plays rated.
    bob.seat = None;
    bob.mirror = None;
    bob.join(&code);
    ann.until("the start", |c| c.mirror().view.status == Status::Playing);
    assert!(bob.mirror().view.rated);
}

fn two_identities_rated_games_count_three_times_a_day(backend: Backend) {
    let data = Db::new(backend, "pair");
    // Fresh identities play rated at once here: only the pair's cap is tried.
    let server = Server::start(&data, 0, &["--games-before-rated", "0"]);
    let mut farmer = Client::connect(&server.url, "Farmer");
    let mut feeder = Client::connect(&server.url, "Feeder");
    let mut ratings = Vec::new();
    for _ in 0..3 {
        play_and_resign(&mut farmer, &mut feeder, rated(), false);
        ratings.push(standing(&server, &farmer));
    }
    assert_eq!(ratings[2].0, 3, "three rated games counted: {ratings:?}");
    assert!(ratings[2].1 > ratings[0].1, "{ratings:?}");

    // The fourth is refused to the joiner, and to quick pairing, before it starts.
    farmer.seat = None;
    farmer.mirror = None;
    let code = farmer.create(NewGame {
        listed: true,
        ..rated()
    });
    let why = refused_not_now(&mut feeder, &ClientMsg::Join { code: code.clone() });
    assert!(
        why.contains("Farmer") && why.contains("3 rated game(s)") && why.contains("casual"),
        "{why}"
    );
    feeder.seat = None;
    feeder.mirror = None;
    feeder.send(&ClientMsg::Seek {
        clock: None,
        rated: true,
    });
    feeder.until("a seat", |c| c.seat.is_some() && c.mirror.is_some());
    assert_ne!(feeder.seat.as_ref().unwrap().0, code, "paired with Farmer");
    assert_eq!(
        feeder.mirror().view.status,
        Status::Open,
        "a game of its own"
    );
    farmer.drain(Duration::from_millis(200));
    assert_eq!(farmer.mirror().view.status, Status::Open, "nobody joined");
    assert_eq!(standing(&server, &farmer), ratings[2], "the rating stands");

    // A casual game between them is played, and anyone else may join the rated one.
    let mut other = Client::connect(&server.url, "Someone else");
    other.join(&code);
    farmer.until("the start", |c| c.mirror().view.status == Status::Playing);
    play_and_resign(&mut farmer, &mut feeder, casual(), false);
}

/// `khet-server --data DIR admin ARGS`: whether it succeeded, and what it said.
fn admin(db: &Db, args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_khet-server"))
        .arg("--data")
        .arg(db.folder())
        .arg("admin")
        .args(args)
        .output()
        .expect("khet-server runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

/// A hello from a socket bound to `from` (another loopback address is another network): the
/// server's first answer.
fn hello_from(server: &Server, from: IpAddr, identity: &str, name: &str) -> ServerMsg {
    hello_via(server, from, None, identity, name)
}

/// A hello as [`hello_from`] sends it, with `forwarded_for` as its `X-Forwarded-For` (what a
/// reverse proxy at `from` says of its client).
fn hello_via(
    server: &Server,
    from: IpAddr,
    forwarded_for: Option<&str>,
    identity: &str,
    name: &str,
) -> ServerMsg {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let to: std::net::SocketAddr = server.addr.parse().unwrap();
    let stream = runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind((from, 0).into()).expect("a loopback address");
        socket.connect(to).await.expect("connects")
    });
    let stream: TcpStream = stream.into_std().unwrap();
    stream.set_nonblocking(false).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let mut request = format!("{}/ws", server.url).into_client_request().unwrap();
    if let Some(client) = forwarded_for {
        request
            .headers_mut()
            .insert("X-Forwarded-For", client.parse().unwrap());
    }
    let (mut socket, _) =
        tungstenite::client::client(request, stream).expect("the WebSocket opens");
    let hello = ClientMsg::Hello {
        version: VERSION,
        identity: identity.into(),
        name: name.into(),
        views: false,
    };
    socket
        .send(tungstenite::Message::text(hello.to_json()))
        .unwrap();
    let answer = next_text(&mut socket).expect("an answer");
    ServerMsg::from_json(&answer).unwrap()
}

#[test]
fn a_barred_players_new_identity_from_the_same_address_is_held() {
    let db = Db::new(Backend::Sqlite, "held");
    let server = Server::start(&db, 0, &[]);
    let cheat = Client::connect(&server.url, "Cheat");
    let neighbour = Client::connect(&server.url, "Neighbour");
    let (ok, said) = admin(&db, &["bar", &cheat.conn.player.id, "engine use"]);
    assert!(ok, "{said}");
    assert!(said.contains("1 network(s)"), "{said}");

    // A new identity from the same address is refused, and told why and for how long.
    let local: IpAddr = [127, 0, 0, 1].into();
    match hello_from(&server, local, &identity(), "Cheat again") {
        ServerMsg::Refused {
            code: Refusal::Barred,
            reason,
        } => assert!(
            reason.contains("your network") && reason.contains("24 hour(s)"),
            "{reason}"
        ),
        other => panic!("a new identity from the barred address: {other:?}"),
    }
    // A player known here before the bar still connects from it, and a new one from another
    // address is welcome.
    Connection::open(&server.url, &neighbour.identity, "Neighbour")
        .expect("a known player connects")
        .close();
    let elsewhere: IpAddr = [127, 0, 0, 2].into();
    let welcome = hello_from(&server, elsewhere, &identity(), "Someone new");
    assert!(matches!(welcome, ServerMsg::Welcome { .. }), "{welcome:?}");

    // The barred identity tried from 127.0.0.2: held there too.
    let tried = hello_from(&server, elsewhere, &cheat.identity, "Cheat");
    assert!(matches!(
        tried,
        ServerMsg::Refused {
            code: Refusal::Barred,
            ..
        }
    ));
    let again = hello_from(&server, elsewhere, &identity(), "Third try");
    assert!(
        matches!(
            again,
            ServerMsg::Refused {
                code: Refusal::Barred,
                ..
            }
        ),
        "{again:?}"
    );

    // Let back: the holds go with the bar.
    let (ok, said) = admin(&db, &["unbar", &cheat.conn.player.id]);
    assert!(ok, "{said}");
    match Connection::open(&server.url, &identity(), "Fresh start") {
        Ok(conn) => conn.close(),
        Err(e) => panic!("held after the unbar: {e}"),
    }
    let welcome = hello_from(&server, elsewhere, &identity(), "Fresh too");
    assert!(matches!(welcome, ServerMsg::Welcome { .. }), "{welcome:?}");
    drop((cheat, neighbour));
}

#[test]
fn without_the_hold_a_bar_holds_no_address() {
    let db = Db::new(Backend::Sqlite, "unheld");
    let server = Server::start(&db, 0, &["--bar-holds-network", "0"]);
    let cheat = Client::connect(&server.url, "Cheat");
    let (ok, said) = admin(&db, &["bar", &cheat.conn.player.id, "engine use"]);
    assert!(ok && !said.contains("network"), "{said}");
    match Connection::open(&server.url, &identity(), "Cheat again") {
        Ok(conn) => conn.close(),
        Err(ClientError::Refused(code, why)) => panic!("refused: {code:?} {why}"),
        Err(e) => panic!("{e}"),
    }
}

on_each_backend!(
    a_new_identity_plays_rated_only_after_three_finished_games,
    two_identities_rated_games_count_three_times_a_day,
);

/// Behind a trusted proxy a bar holds the barred player's client network its `X-Forwarded-For`
/// named, not the proxy's: a new identity from that client is held, one from another client of
/// the same proxy is welcome (were the proxy's address kept, every new player behind it would
/// be held).
#[test]
fn behind_a_trusted_proxy_a_bar_holds_the_clients_network() {
    let db = Db::new(Backend::Sqlite, "proxyheld");
    let server = Server::start(&db, 0, &["--trusted-proxy", "127.0.0.1"]);
    let proxy: IpAddr = [127, 0, 0, 1].into();
    let cheat = identity();
    let ServerMsg::Welcome { player, .. } =
        hello_via(&server, proxy, Some("198.51.100.1"), &cheat, "Cheat")
    else {
        panic!("the cheat is welcomed first");
    };
    let (ok, said) = admin(&db, &["bar", &player.id, "engine use"]);
    assert!(ok, "{said}");
    assert!(said.contains("1 network(s)"), "{said}");
    let again = hello_via(
        &server,
        proxy,
        Some("198.51.100.1"),
        &identity(),
        "Cheat again",
    );
    assert!(
        matches!(
            again,
            ServerMsg::Refused {
                code: Refusal::Barred,
                ..
            }
        ),
        "a new identity from the barred client: {again:?}"
    );
    let other = hello_via(
        &server,
        proxy,
        Some("198.51.100.2"),
        &identity(),
        "Neighbour",
    );
    assert!(
        matches!(other, ServerMsg::Welcome { .. }),
        "another client of the proxy: {other:?}"
    );
}
