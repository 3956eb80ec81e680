//! The protocol fuzzed against a real server: two players on raw WebSockets send, step after
//! step, a seeded random mix of legal moves, moves out of turn or with a wrong ply, random move
//! text, every other message of the protocol with random fields (challenges and tournaments too), valid messages with random
//! bytes changed, binary frames and oversized ones. After each message a `ping`: its `pong`
//! says every answer to it has come (a connection handles its messages in order), so nothing
//! waits for a fixed time. Judged: every text the server sends is a message of the protocol
//! (every refusal with a code of its own and a reason); each answer against what was sent (junk
//! and bytes refused as outside the protocol, move text that is no legal move refused, a legal
//! move refused only as old or out of turn, a message of the protocol never refused as outside
//! it, an oversized one refused or closed: [`judge`]); a closed connection is opened again and
//! the seat taken back, the server answers each message within a minute and to the end, its log
//! shows no panic, and every game it stored replays legally.
//!
//! `KHET_FUZZ_STEPS` sets the number of steps (300 by default, the suite's share; a
//! benchmark-length run: `KHET_FUZZ_STEPS=20000 cargo test -p khet-server --test fuzz`) and
//! `KHET_FUZZ_SEED` the seed (a failure prints it).

mod common;

use common::{Backend, Db, Server, identity, next_text, raw, replayed};
use khet_engine::Rng;
use khet_protocol::view::BoardView;
use khet_protocol::{
    ClientMsg, ClockSpec, MAX_CLIENT_MESSAGE_BYTES, NewGame, Refusal, ServerMsg, VERSION,
};
use std::net::TcpStream;
use tungstenite::{Message, WebSocket};

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One fuzzing player: a raw socket, its seat, and the last view of its game.
struct Player {
    name: &'static str,
    identity: String,
    socket: WebSocket<TcpStream>,
    seat: Option<(String, String)>,
    view: Option<BoardView>,
    reconnects: u32,
    /// The refusals of the last exchange, by code.
    refused: Vec<Refusal>,
}

impl Player {
    fn connect(server: &Server, name: &'static str, identity: String) -> Player {
        let mut player = Player {
            name,
            identity,
            socket: raw(server),
            seat: None,
            view: None,
            reconnects: 0,
            refused: Vec::new(),
        };
        player.hello();
        player
    }

    fn hello(&mut self) {
        let hello = ClientMsg::Hello {
            version: VERSION,
            identity: self.identity.clone(),
            name: self.name.into(),
            views: true,
        };
        self.socket.send(Message::text(hello.to_json())).unwrap();
        let answer = next_text(&mut self.socket).expect("a welcome");
        assert!(
            matches!(ServerMsg::from_json(&answer), Ok(ServerMsg::Welcome { .. })),
            "{answer}"
        );
    }

    /// A new connection, and the seat taken again.
    fn reconnect(&mut self, server: &Server) {
        self.reconnects += 1;
        self.socket = raw(server);
        self.hello();
        self.back_to_the_game(server);
    }

    /// Follows its game again (after a message that left it, or a new connection).
    fn back_to_the_game(&mut self, server: &Server) {
        if let Some((code, secret)) = self.seat.clone() {
            let msg = ClientMsg::Play {
                code,
                secret,
                since: None,
            };
            if self.socket.send(Message::text(msg.to_json())).is_err() {
                // Closed by the server meanwhile (the message before it was one too many).
                self.reconnect(server);
            }
        }
    }

    /// The next text from the server; `None` when it closed the connection. No answer within
    /// [`common::PATIENCE`] is a hang, and fails.
    fn read_text(&mut self, seed: u64, step: u64) -> Option<String> {
        loop {
            match self.socket.read() {
                Ok(Message::Text(t)) => return Some(t.to_string()),
                Ok(Message::Close(_)) => return None,
                Ok(_) => {}
                // A signal to the process interrupts a read with a timeout: read again.
                Err(tungstenite::Error::Io(e)) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    panic!("seed {seed}, step {step}: the server did not answer in time")
                }
                Err(_) => return None,
            }
        }
    }

    /// Sends `message`, then a ping, and reads every answer up to the pong, the refusals kept in
    /// `refused`. False when the server closed the connection (then it is opened again).
    fn exchange(&mut self, server: &Server, message: Message, seed: u64, step: u64) -> bool {
        self.refused.clear();
        let sent = self.socket.send(message).is_ok()
            && self
                .socket
                .send(Message::text(ClientMsg::Ping.to_json()))
                .is_ok();
        loop {
            let Some(text) = sent.then(|| self.read_text(seed, step)).flatten() else {
                self.reconnect(server);
                return false;
            };
            let msg = ServerMsg::from_json(&text).unwrap_or_else(|e| {
                panic!("seed {seed}, step {step}: not a message of the protocol ({e}): {text}")
            });
            match msg {
                ServerMsg::Pong => return true,
                // A game it created or joined by the way: its own game stays the one to play.
                ServerMsg::Seat { code, secret, .. } if self.seat.is_none() => {
                    self.seat = Some((code, secret));
                }
                ServerMsg::View { view }
                    if self
                        .seat
                        .as_ref()
                        .is_some_and(|(code, _)| *code == view.code) =>
                {
                    self.view = Some(*view);
                }
                ServerMsg::Refused { code, reason } => {
                    assert!(
                        !reason.is_empty(),
                        "seed {seed}, step {step}: a refusal says why"
                    );
                    self.refused.push(code);
                }
                _ => {}
            }
        }
    }
}

/// A random string of `n` characters, markup, controls and far code points among them.
fn junk(rng: &mut Rng, n: usize) -> String {
    const PIECES: [&str; 10] = [
        "<img src=x onerror=p()>",
        "\"",
        "\\",
        "\u{0}",
        "\u{202e}",
        "🐍",
        "{",
        "}",
        "e4",
        "j1+",
    ];
    (0..n)
        .map(|_| {
            if rng.below(3) == 0 {
                PIECES[rng.below(PIECES.len())].to_string()
            } else {
                char::from(b' ' + rng.below(95) as u8).to_string()
            }
        })
        .collect()
}

fn random_code(rng: &mut Rng) -> String {
    let alphabet = khet_protocol::CODE_ALPHABET;
    (0..khet_protocol::CODE_CHARS)
        .map(|_| char::from(alphabet[rng.below(alphabet.len())]))
        .collect()
}

/// Any message of the protocol but a move, with random fields.
fn random_message(rng: &mut Rng, seat: Option<&(String, String)>) -> ClientMsg {
    let code = match (rng.below(2), seat) {
        (0, Some((code, _))) => code.clone(),
        _ => random_code(rng),
    };
    let clock = (rng.below(2) == 0).then(|| ClockSpec {
        initial_ms: rng.next_u64() % 4_000_000,
        increment_ms: rng.next_u64() % 100_000,
    });
    let setups = ["classic", "khet1/dynasty", "imhotep-eyes", "nonsense", ""];
    let game = NewGame {
        setup: setups[rng.below(setups.len())].into(),
        clock,
        color: khet_protocol::SeatChoice::Random,
        rated: rng.below(2) == 0,
        listed: rng.below(2) == 0,
        // Offered days, days not offered, and days with a clock.
        days_per_move: (rng.below(3) == 0).then(|| [1, 3, 14, 0, 4, 10_000][rng.below(6)]),
    };
    // A player's id, a challenge's id: the server's codes have their form, junk does not.
    let id = if rng.below(2) == 0 {
        random_code(rng)
    } else {
        let n = 1 + rng.below(12);
        junk(rng, n)
    };
    let kind = match rng.below(3) {
        0 => khet_protocol::TournamentKind::Swiss {
            rounds: u32::try_from(rng.below(40)).unwrap_or(0),
        },
        1 => khet_protocol::TournamentKind::RoundRobin {
            double: rng.below(2) == 0,
        },
        _ => khet_protocol::TournamentKind::Arena {
            minutes: u32::try_from(rng.below(2000)).unwrap_or(0),
        },
    };
    let name_length = rng.below(70);
    let tournament = khet_protocol::NewTournament {
        name: junk(rng, name_length),
        kind,
        setup: setups[rng.below(setups.len())].into(),
        clock: clock.unwrap_or(ClockSpec {
            initial_ms: 0,
            increment_ms: 0,
        }),
        rated: rng.below(2) == 0,
        listed: rng.below(2) == 0,
        starts_ms: (rng.below(2) == 0).then(|| rng.next_u64() % 4_000_000_000_000),
    };
    match rng.below(30) {
        0 => ClientMsg::OfferDraw,
        1 => ClientMsg::AcceptDraw,
        2 => ClientMsg::DeclineDraw,
        3 => ClientMsg::ClaimRepetition,
        4 => ClientMsg::RequestTakeback,
        5 => ClientMsg::AcceptTakeback,
        6 => ClientMsg::DeclineTakeback,
        7 => ClientMsg::ClaimAbandoned {
            draw: rng.below(2) == 0,
        },
        8 => ClientMsg::Lobby,
        9 => ClientMsg::Leaderboard,
        10 => ClientMsg::Leave,
        11 => ClientMsg::Watch {
            code,
            since: (rng.below(2) == 0).then(|| rng.next_u64() % 50),
        },
        12 => ClientMsg::Join { code },
        13 => ClientMsg::Play {
            code,
            secret: identity(),
            since: None,
        },
        14 => ClientMsg::Seek {
            clock,
            rated: rng.below(2) == 0,
        },
        15 => ClientMsg::Create(game),
        16 => ClientMsg::Challenges,
        17 => ClientMsg::Challenge { player: id, game },
        18 => ClientMsg::AcceptChallenge { id },
        19 => ClientMsg::DeclineChallenge { id },
        20 => ClientMsg::WithdrawChallenge { id },
        21 => ClientMsg::Rematch { code },
        22 => ClientMsg::CreateTournament(tournament),
        23 => ClientMsg::JoinTournament { code },
        24 => ClientMsg::WithdrawTournament { code },
        25 => ClientMsg::StartTournament { code },
        26 => ClientMsg::Tournament { code },
        27 => ClientMsg::MyGames,
        28 => ClientMsg::Tournaments,
        _ => ClientMsg::Resign,
    }
}

/// `text` with a few random edits: characters replaced, deleted, inserted or doubled.
fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..=rng.below(3) {
        if chars.is_empty() {
            break;
        }
        let at = rng.below(chars.len());
        match rng.below(4) {
            0 => chars[at] = junk(rng, 1).chars().next().unwrap_or('x'),
            1 => {
                chars.remove(at);
            }
            2 => {
                let more: Vec<char> = junk(rng, 2).chars().collect();
                chars.splice(at..at, more);
            }
            _ => {
                let c = chars[at];
                chars.insert(at, c);
            }
        }
    }
    chars.into_iter().collect()
}

/// A new game between the two: `a` creates it, `b` joins.
fn new_game(server: &Server, a: &mut Player, b: &mut Player, seed: u64) {
    a.seat = None;
    b.seat = None;
    a.view = None;
    b.view = None;
    let create = ClientMsg::Create(NewGame {
        setup: "classic".into(),
        clock: Some(ClockSpec::minutes(30, 0)),
        color: khet_protocol::SeatChoice::Silver,
        rated: false,
        // Listed, so that `/games` shows it and the end replays it.
        listed: true,
        days_per_move: None,
    });
    // Answers come before the pong after them; a pong left over from a message that happened
    // to be a ping can come first: then the next one.
    let settle = |p: &mut Player, what: &str| {
        for _ in 0..3 {
            if p.seat.is_some() {
                return;
            }
            p.exchange(server, Message::Ping(Vec::new().into()), seed, 0);
        }
        panic!("seed {seed}: {} has no seat after {what}", p.name);
    };
    a.exchange(server, Message::text(create.to_json()), seed, 0);
    settle(a, "creating a game");
    let code = a.seat.clone().expect("a seat").0;
    let join = ClientMsg::Join { code };
    b.exchange(server, Message::text(join.to_json()), seed, 0);
    settle(b, "joining it");
}

/// What was sent, as far as the server's answer can be told from it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Sent {
    /// A move the player's last view listed as legal: refused, if at all, only because that
    /// view is old or the turn is the other side's.
    Legal,
    /// Move text that is no legal move (junk, or a ply ahead): refused, whatever the turn.
    NoMove,
    /// Another message of the protocol: never refused as outside it.
    Message,
    /// A message with random edits: anything.
    Mutated,
    /// Bytes, or text that is not JSON: refused as outside the protocol.
    NotProtocol,
    /// Past the size bound: refused or closed.
    TooLarge,
}

/// Checks the server's answer to what was sent: `open` whether the connection stayed open,
/// `refused` the refusals' codes.
fn judge(sent: Sent, open: bool, refused: &[Refusal], seed: u64, step: u64) {
    let why = format!("seed {seed}, step {step}: {sent:?} answered {refused:?} (open: {open})");
    let outside = |r: &Refusal| matches!(r, Refusal::NotProtocol | Refusal::TooLarge);
    match sent {
        Sent::Legal => assert!(
            refused.iter().all(|r| matches!(
                r,
                Refusal::NotYourTurn | Refusal::Stale | Refusal::NotNow | Refusal::NotPlaying
            )),
            "{why}"
        ),
        Sent::NoMove => assert!(!open || !refused.is_empty(), "{why}"),
        Sent::Message => assert!(!refused.iter().any(outside), "{why}"),
        Sent::Mutated => {}
        Sent::NotProtocol => assert!(!open || refused.contains(&Refusal::NotProtocol), "{why}"),
        Sent::TooLarge => assert!(!open || refused.iter().any(outside), "{why}"),
    }
}

#[test]
fn random_and_mutated_messages_refuse_with_codes_and_leave_records_that_replay() {
    let steps = env_number("KHET_FUZZ_STEPS", 300);
    let seed = env_number("KHET_FUZZ_SEED", 20_261_128);
    let data = Db::new(Backend::Sqlite, "fuzz");
    // The flood limits have their own tests (abuse.rs, and private.rs for the caps on games
    // waiting for an opponent): here every message, connection and create is answered.
    let log = data.folder().join("server.log");
    let server = Server::start_logged(
        &data,
        0,
        &[
            "--messages-per-second",
            "100000",
            "--connects-per-minute",
            "100000",
            "--open-games-per-player",
            "100000",
            "--open-games-per-address",
            "100000",
        ],
        &log,
    );
    let mut rng = Rng::new(seed);
    let mut silver = Player::connect(&server, "Silver fuzz", identity());
    let mut red = Player::connect(&server, "Red fuzz", identity());
    new_game(&server, &mut silver, &mut red, seed);
    let (mut games, mut moves_played) = (1, 0);
    // How many of each kind were sent and judged.
    let mut counts = [0u32; 6];
    for step in 0..steps {
        let over = [&silver, &red]
            .iter()
            .any(|p| p.view.as_ref().is_some_and(|v| v.result.is_some()));
        if over {
            new_game(&server, &mut silver, &mut red, seed);
            games += 1;
        }
        let player = if rng.below(2) == 0 {
            &mut silver
        } else {
            &mut red
        };
        let plies = player.view.as_ref().map_or(0, |v| v.moves.len()) as u32;
        let legal = player
            .view
            .as_ref()
            .map(|v| v.legal.clone())
            .unwrap_or_default();
        let (sent, message) = match rng.below(20) {
            // A legal move (out of turn for the side not to move).
            0..=7 if !legal.is_empty() => {
                moves_played += 1;
                let mv = legal[rng.below(legal.len())].mv.clone();
                (
                    Sent::Legal,
                    Message::text(ClientMsg::Move { ply: plies, mv }.to_json()),
                )
            }
            8 => {
                let n = rng.below(6);
                let mv = junk(&mut rng, n);
                // Junk can spell a legal move ("j1+").
                let sent = if legal.iter().any(|m| m.mv == mv) {
                    Sent::Legal
                } else {
                    Sent::NoMove
                };
                (
                    sent,
                    Message::text(ClientMsg::Move { ply: plies, mv }.to_json()),
                )
            }
            9 => {
                let ply = plies.wrapping_add(1 + rng.below(5) as u32);
                let mv = legal.first().map_or("e1e2".into(), |m| m.mv.clone());
                (
                    Sent::NoMove,
                    Message::text(ClientMsg::Move { ply, mv }.to_json()),
                )
            }
            10..=13 => (
                Sent::Message,
                Message::text(random_message(&mut rng, player.seat.as_ref()).to_json()),
            ),
            14..=16 => {
                let base = random_message(&mut rng, player.seat.as_ref()).to_json();
                (Sent::Mutated, Message::text(mutate(&mut rng, &base)))
            }
            17 => (
                Sent::NotProtocol,
                Message::binary(
                    (0..rng.below(64))
                        .map(|_| rng.next_u64() as u8)
                        .collect::<Vec<u8>>(),
                ),
            ),
            18 => (
                Sent::TooLarge,
                Message::text("x".repeat(MAX_CLIENT_MESSAGE_BYTES + 1 + rng.below(100))),
            ),
            _ => {
                let n = rng.below(40);
                (Sent::NotProtocol, Message::text(junk(&mut rng, n)))
            }
        };
        counts[sent as usize] += 1;
        let open = player.exchange(&server, message, seed, step);
        judge(sent, open, &player.refused, seed, step);
        // A message may have left the game (leave, watch, create, join): back to it.
        let (code, _) = player.seat.clone().expect("a seat");
        if player.view.as_ref().is_none_or(|v| v.code != code) || rng.below(4) == 0 {
            player.back_to_the_game(&server);
            // The answers to it, up to a pong (a WebSocket ping is answered below the protocol).
            player.exchange(&server, Message::Ping(Vec::new().into()), seed, step);
        }
    }
    eprintln!(
        "seed {seed}: {steps} steps, {games} games, {moves_played} legal moves sent, \
         {} reconnections; judged (legal, no move, message, mutated, not the protocol, too \
         large): {counts:?}",
        silver.reconnects + red.reconnects
    );
    // The server still answers, and every game it stored replays legally.
    assert_eq!(server.get("/healthz").0, 200);
    let (status, list) = server.get("/games");
    assert_eq!(status, 200);
    let list: serde_json::Value = serde_json::from_str(&list).expect("JSON");
    let codes: Vec<&str> = list
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|g| g["code"].as_str())
        .collect();
    assert!(codes.len() >= games, "{} games listed", codes.len());
    for code in codes {
        replayed(&server, code);
    }
    // No task of the server panicked on the way (a panicking connection only looks closed).
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        !log.contains("panicked"),
        "seed {seed}: the server panicked:\n{log}"
    );
}
