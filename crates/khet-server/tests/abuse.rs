//! Bad input and abuse against a real server: every message below is refused with its reason (or
//! its connection closed), the game it aimed at is unchanged, and the server goes on serving.

mod common;

use common::{Backend, Client, Db, Server, casual, identity, next_text, pair, raw};
use khet_protocol::client::Connection;
use khet_protocol::{
    ClientMsg, ClockSpec, MAX_CLIENT_MESSAGE_BYTES, NewGame, Refusal, ServerMsg, VERSION,
};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use tungstenite::Message;

fn refusal_of(text: &str) -> Refusal {
    match ServerMsg::from_json(text) {
        Ok(ServerMsg::Refused { code, .. }) => code,
        other => panic!("not a refusal: {other:?}"),
    }
}

/// Sends `first` as the first message of a new connection: it must be refused with `code`
/// and the connection closed.
fn refused_hello(server: &Server, first: &str, code: Refusal) {
    let mut socket = raw(server);
    socket.send(Message::text(first)).unwrap();
    let answer = next_text(&mut socket).unwrap_or_else(|| panic!("{first}: no answer"));
    assert_eq!(refusal_of(&answer), code, "{first}");
    assert_eq!(next_text(&mut socket), None, "{first}: closed after");
}

fn a_bad_hello_is_refused_and_the_connection_closed(backend: Backend) {
    let data = Db::new(backend, "hello");
    let server = Server::start(&data, 0, &[]);
    let hello = |version: u32, identity: &str, name: &str| {
        ClientMsg::Hello {
            version,
            identity: identity.into(),
            name: name.into(),
            views: false,
        }
        .to_json()
    };
    let id = identity();
    refused_hello(&server, &hello(VERSION + 1, &id, "Ada"), Refusal::Version);
    refused_hello(
        &server,
        &hello(VERSION, "not hex", "Ada"),
        Refusal::BadSecret,
    );
    refused_hello(
        &server,
        &hello(VERSION, "ABCDEF0123456789ABCDEF0123456789", "Ada"),
        Refusal::BadSecret,
    );
    refused_hello(&server, &hello(VERSION, &id, ""), Refusal::BadName);
    refused_hello(&server, &hello(VERSION, &id, "Ada\u{0}"), Refusal::BadName);
    // Names that read as another's: a right-to-left override, isolates, zero-width characters.
    for name in [
        "Ada\u{202E}ecivoN",
        "\u{2066}Ada\u{2069}",
        "A\u{200B}da",
        "A\u{200D}da",
        "Ada\u{2060}",
        "\u{FEFF}Ada",
        "Ad\u{00AD}a",
    ] {
        let mut socket = raw(&server);
        socket
            .send(Message::text(hello(VERSION, &id, name)))
            .unwrap();
        let answer = next_text(&mut socket).unwrap_or_else(|| panic!("{name:?}: no answer"));
        match ServerMsg::from_json(&answer) {
            Ok(ServerMsg::Refused {
                code: Refusal::BadName,
                reason,
            }) => assert!(reason.contains("invisible formatting"), "{reason}"),
            other => panic!("{name:?} was taken: {other:?}"),
        }
    }
    refused_hello(
        &server,
        &hello(VERSION, &id, &"n".repeat(25)),
        Refusal::BadName,
    );
    refused_hello(&server, &ClientMsg::Ping.to_json(), Refusal::NoHello);
    refused_hello(&server, "hello", Refusal::NotProtocol);
    refused_hello(
        &server,
        "\u{feff}{\"type\":\"hello\"}",
        Refusal::NotProtocol,
    );
    // Binary instead of text.
    let mut socket = raw(&server);
    socket
        .send(Message::binary(vec![0xff, 0xfe, 0x00]))
        .unwrap();
    assert_eq!(
        refusal_of(&next_text(&mut socket).unwrap()),
        Refusal::NotProtocol
    );
    // And the server still welcomes a good hello.
    Client::connect(&server.url, "Ada");
}

fn bad_moves_and_messages_change_nothing(backend: Backend) {
    let data = Db::new(backend, "moves");
    let server = Server::start(&data, 0, &[]);
    let (mut silver, mut red, code) = pair(&server.url, casual());
    silver.play("e1e2");
    red.until("the move", |c| c.plies() == 1);
    let event = red.mirror().event;
    let position = *red.mirror().game.position();

    let mv = |ply: u32, mv: &str| ClientMsg::Move { ply, mv: mv.into() };
    // Out of turn, replayed, from the future, illegal, not a move, a huge move.
    silver.refused(&mv(1, "e2e1"), Refusal::NotYourTurn);
    silver.refused(&mv(0, "e1e2"), Refusal::Stale);
    red.refused(&mv(0, "f8f7"), Refusal::Stale);
    red.refused(&mv(7, "f8f7"), Refusal::Stale);
    red.refused(&mv(1, "f8f6"), Refusal::Illegal);
    red.refused(&mv(1, "e1e2"), Refusal::Illegal);
    red.refused(&mv(1, "zz99"), Refusal::Illegal);
    red.refused(&mv(1, ""), Refusal::Illegal);
    red.refused(&mv(1, &"a".repeat(3000)), Refusal::Illegal);
    // Offers and claims out of place.
    red.refused(&ClientMsg::AcceptDraw, Refusal::NotNow);
    red.refused(&ClientMsg::DeclineTakeback, Refusal::NotNow);
    red.refused(&ClientMsg::ClaimAbandoned { draw: false }, Refusal::NotNow);
    red.refused(&ClientMsg::ClaimRepetition, Refusal::NotNow);
    red.refused(
        &ClientMsg::Hello {
            version: VERSION,
            identity: identity(),
            name: "Again".into(),
            views: false,
        },
        Refusal::NotProtocol,
    );
    // Someone else's seat, a forged secret, a malformed one, games that are not there.
    let (_, secret) = silver.seat.clone().unwrap();
    let mut intruder = Client::connect(&server.url, "Intruder");
    let forged = "0123456789abcdef0123456789abcdef".to_string();
    intruder.refused(
        &ClientMsg::Play {
            code: code.clone(),
            secret: forged,
            since: None,
        },
        Refusal::NotYourSeat,
    );
    intruder.refused(
        &ClientMsg::Play {
            code: code.clone(),
            secret: secret[..10].into(),
            since: None,
        },
        Refusal::BadSecret,
    );
    intruder.refused(&ClientMsg::Join { code: code.clone() }, Refusal::SeatTaken);
    intruder.refused(
        &ClientMsg::Join {
            code: "zzzzzzzz".into(),
        },
        Refusal::UnknownGame,
    );
    intruder.refused(
        &ClientMsg::Join {
            code: "../../etc".into(),
        },
        Refusal::UnknownGame,
    );
    intruder.refused(&ClientMsg::Resign, Refusal::NotPlaying);
    intruder.refused(&mv(1, "f8f7"), Refusal::NotPlaying);
    // Games the server does not offer.
    intruder.refused(
        &ClientMsg::Create(NewGame {
            setup: "no such setup".into(),
            ..casual()
        }),
        Refusal::BadGame,
    );
    intruder.refused(
        &ClientMsg::Create(NewGame {
            clock: Some(ClockSpec {
                initial_ms: 10,
                increment_ms: 0,
            }),
            ..casual()
        }),
        Refusal::BadGame,
    );
    // Joining one's own game.
    let mut host = Client::connect(&server.url, "Host");
    let own = host.create(casual());
    host.refused(&ClientMsg::Join { code: own }, Refusal::SeatTaken);

    // Nothing changed: the same event, the same position, Red still to move, and the game
    // goes on.
    red.drain(Duration::from_millis(100));
    assert_eq!(red.mirror().event, event);
    assert_eq!(red.mirror().game.position(), &position);
    red.play("f8f7");
    silver.until("the move", |c| c.plies() == 2);
}

fn floods_and_oversized_frames_close_the_connection_and_nothing_else(backend: Backend) {
    let data = Db::new(backend, "flood");
    let server = Server::start(&data, 0, &[]);
    let (mut silver, mut red, _) = pair(&server.url, casual());

    // A frame over the limit: the connection is closed.
    let mut big = Connection::open(&server.url, &identity(), "Big").unwrap();
    let huge = format!(
        "{{\"type\":\"join\",\"code\":\"{}\"}}",
        "a".repeat(MAX_CLIENT_MESSAGE_BYTES)
    );
    let _ = big.send(&ClientMsg::Join { code: huge });
    let mut closed = false;
    for _ in 0..50 {
        if big.recv(Duration::from_millis(100)).is_err() {
            closed = true;
            break;
        }
    }
    assert!(closed, "an oversized frame closes the connection");

    // A flood of pings: refused as too many, then closed.
    let mut flood = Connection::open(&server.url, &identity(), "Flood").unwrap();
    let mut refused_rate = false;
    let mut closed = false;
    for _ in 0..200 {
        if flood.send(&ClientMsg::Ping).is_err() {
            break;
        }
    }
    for _ in 0..400 {
        match flood.recv(Duration::from_millis(50)) {
            Ok(Some(ServerMsg::Refused {
                code: Refusal::RateLimited,
                ..
            })) => refused_rate = true,
            Ok(_) => {}
            Err(_) => {
                closed = true;
                break;
            }
        }
    }
    assert!(
        refused_rate && closed,
        "rate {refused_rate}, closed {closed}"
    );

    // A player's own flood ends only their connection; the game goes on, and they take
    // their seat again.
    for _ in 0..200 {
        if red.conn.send(&ClientMsg::OfferDraw).is_err() {
            break;
        }
    }
    let mut gone = false;
    for _ in 0..400 {
        if red.conn.recv(Duration::from_millis(50)).is_err() {
            gone = true;
            break;
        }
    }
    assert!(gone, "the flooding connection is closed");
    red.reconnect(false);
    red.until("the game again", |c| c.mirror.is_some());
    assert_eq!(
        red.mirror().view.draw_offer,
        Some(khet_engine::Color::Red),
        "one offer stood"
    );
    silver.play("e1e2");
    red.until("the move", |c| c.plies() == 1);
}

fn too_many_sockets_from_one_address_are_turned_away(backend: Backend) {
    let data = Db::new(backend, "sockets");
    let server = Server::start(&data, 0, &["--sockets-per-address", "3"]);
    let open: Vec<Connection> = (0..3)
        .map(|i| Connection::open(&server.url, &identity(), &format!("P{i}")).unwrap())
        .collect();
    let fourth = Connection::open(&server.url, &identity(), "P4");
    assert!(fourth.is_err(), "a fourth socket is refused");
    drop(open);
    // The server frees their places as it sees them close: a new socket is admitted again.
    let closed = Instant::now();
    while let Err(e) = Connection::open(&server.url, &identity(), "P5") {
        assert!(
            closed.elapsed() < common::PATIENCE,
            "no room again once they closed: {e}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn a_client_vanishing_mid_frame_or_mid_handshake_harms_nothing(backend: Backend) {
    let data = Db::new(backend, "vanish");
    let mut server = Server::start(&data, 0, &[]);
    let (mut silver, mut red, _) = pair(&server.url, casual());
    // Half a handshake.
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.write_all(b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websock")
        .unwrap();
    drop(s);
    // A handshake, then half a frame: a masked text frame announcing 100 bytes, with 10.
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.write_all(
        b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
          Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    )
    .unwrap();
    let mut answer = [0u8; 12];
    s.read_exact(&mut answer).unwrap();
    assert_eq!(&answer, b"HTTP/1.1 101");
    s.write_all(&[
        0x81,
        0x80 | 100,
        1,
        2,
        3,
        4,
        b'{',
        b'"',
        b't',
        b'y',
        b'p',
        b'e',
    ])
    .unwrap();
    drop(s);
    // Garbage that is not HTTP at all.
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.write_all(&[0u8, 159, 146, 150, 255, 10, 13, 10, 13, 10])
        .unwrap();
    drop(s);
    assert!(server.alive());
    silver.play("e1e2");
    red.until("the move", |c| c.plies() == 1);
}

on_each_backend!(
    a_bad_hello_is_refused_and_the_connection_closed,
    bad_moves_and_messages_change_nothing,
    floods_and_oversized_frames_close_the_connection_and_nothing_else,
    too_many_sockets_from_one_address_are_turned_away,
    a_client_vanishing_mid_frame_or_mid_handshake_harms_nothing,
);
