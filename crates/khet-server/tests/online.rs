//! The server as players meet it: a real `khet-server` process on 127.0.0.1, real WebSocket
//! clients, games played to every kind of end, connections dropped and the server killed.

mod common;

use common::{
    Backend, Client, Db, Server, casual, claim_abandoned_win, pair, pharaoh_line, play_line,
    replayed,
};
use khet_engine::{Color, DrawReason, GameResult, WinReason};
use khet_protocol::{ClientMsg, ClockSpec, NewGame, Refusal, SeatChoice, Status};
use std::time::Duration;

fn a_game_ends_when_a_pharaoh_is_lit_and_its_record_replays(backend: Backend) {
    let data = Db::new(backend, "pharaoh");
    let server = Server::start(&data, 0, &[]);
    // Listed, so that the public list shows it at its end.
    let listed = NewGame {
        listed: true,
        ..casual()
    };
    let (mut silver, mut red, code) = pair(&server.url, listed);
    let line = pharaoh_line();
    play_line(&mut silver, &mut red, &mut [], &line);
    let won = GameResult::Win {
        winner: Color::Silver,
        reason: WinReason::PharaohHit,
    };
    assert_eq!(silver.wait_result(), won);
    assert_eq!(red.wait_result(), won);
    let game = replayed(&server, &code);
    assert_eq!(game.turns().len(), line.len());
    assert_eq!(game.result(), Some(won));
    // Each event was applied once, in order, by both.
    for c in [&silver, &red] {
        let mut sorted = c.applied.clone();
        sorted.dedup();
        assert_eq!(sorted, c.applied);
        assert!(
            c.applied.windows(2).all(|w| w[1] == w[0] + 1),
            "{:?}",
            c.applied
        );
    }
    // Too late for anything else.
    silver.refused(&ClientMsg::Resign, Refusal::NotNow);
    red.refused(
        &ClientMsg::Move {
            ply: line.len() as u32,
            mv: "a8+".into(),
        },
        Refusal::NotNow,
    );
    let (_, list) = server.get("/games");
    assert!(
        list.contains(&code) && list.contains("Silver wins"),
        "{list}"
    );
}

fn resignation_agreement_repetition_and_the_flag_end_games(backend: Backend) {
    let data = Db::new(backend, "endings");
    let server = Server::start(&data, 0, &[]);

    // Red resigns after one move each.
    let (mut silver, mut red, code) = pair(&server.url, casual());
    play_line(
        &mut silver,
        &mut red,
        &mut [],
        &["e1e2".into(), "f8f7".into()],
    );
    red.send(&ClientMsg::Resign);
    let resigned = GameResult::Win {
        winner: Color::Silver,
        reason: WinReason::Resignation,
    };
    assert_eq!(silver.wait_result(), resigned);
    assert_eq!(replayed(&server, &code).result(), Some(resigned));

    // A draw offered, declined, offered again and accepted.
    let (mut silver, mut red, code) = pair(&server.url, casual());
    silver.send(&ClientMsg::OfferDraw);
    red.until("the offer", |c| {
        c.mirror().view.draw_offer == Some(Color::Silver)
    });
    silver.refused(&ClientMsg::OfferDraw, Refusal::NotNow);
    silver.refused(&ClientMsg::AcceptDraw, Refusal::NotNow);
    red.send(&ClientMsg::DeclineDraw);
    silver.until("the decline", |c| c.mirror().view.draw_offer.is_none());
    silver.play("e1e2");
    red.until("the move", |c| c.plies() == 1);
    red.send(&ClientMsg::OfferDraw);
    silver.until("the offer", |c| {
        c.mirror().view.draw_offer == Some(Color::Red)
    });
    silver.send(&ClientMsg::AcceptDraw);
    let agreed = GameResult::Draw {
        reason: DrawReason::Agreement,
    };
    assert_eq!(red.wait_result(), agreed);
    assert_eq!(replayed(&server, &code).result(), Some(agreed));

    // Threefold repetition, claimed by the player to move when it is there and not before.
    let (mut silver, mut red, code) = pair(&server.url, casual());
    let cycle: Vec<String> = ["e1e2", "f8f7", "e2e1", "f7f8"].map(String::from).to_vec();
    play_line(&mut silver, &mut red, &mut [], &cycle);
    silver.refused(&ClientMsg::ClaimRepetition, Refusal::NotNow);
    play_line(&mut silver, &mut red, &mut [], &cycle);
    red.refused(&ClientMsg::ClaimRepetition, Refusal::NotYourTurn);
    silver.send(&ClientMsg::ClaimRepetition);
    let repeated = GameResult::Draw {
        reason: DrawReason::Repetition,
    };
    assert_eq!(red.wait_result(), repeated);
    assert_eq!(replayed(&server, &code).result(), Some(repeated));

    // A one-second clock: Silver does not move and loses on time, by the server's clock.
    let quick = NewGame {
        clock: Some(ClockSpec {
            initial_ms: 1000,
            increment_ms: 0,
        }),
        ..casual()
    };
    let (mut silver, mut red, code) = pair(&server.url, quick);
    let flagged = GameResult::Win {
        winner: Color::Red,
        reason: WinReason::Time,
    };
    assert_eq!(red.wait_result(), flagged);
    assert_eq!(silver.wait_result(), flagged);
    let clocks = silver.mirror().clocks().unwrap();
    assert_eq!(
        clocks.remaining_ms[0], 0,
        "Silver's time ran out: {clocks:?}"
    );
    assert_eq!(clocks.remaining_ms[1], 1000, "Red's never ran");
    assert_eq!(clocks.running, None);
    let (_, record) = server.get(&format!("/games/{code}.ron"));
    assert!(record.contains("remaining_ms: (0, 1000)"), "{record}");
}

fn take_backs_in_casual_games_only(backend: Backend) {
    let data = Db::new(backend, "takeback");
    // Fresh identities play rated at once here: the newcomers' rule is tests/identity.rs's.
    let server = Server::start(&data, 0, &["--games-before-rated", "0"]);
    let (mut silver, mut red, _) = pair(&server.url, casual());
    red.refused(&ClientMsg::RequestTakeback, Refusal::NotNow);
    play_line(
        &mut silver,
        &mut red,
        &mut [],
        &["e1e2".into(), "f8f7".into()],
    );
    // Silver asks back its move; Red's reply goes with it.
    silver.send(&ClientMsg::RequestTakeback);
    red.until("the request", |c| {
        c.mirror().view.takeback == Some(Color::Silver)
    });
    red.send(&ClientMsg::AcceptTakeback);
    silver.until("the take-back", |c| c.plies() == 0);
    red.until("the take-back", |c| c.plies() == 0);
    assert_eq!(
        silver.mirror().game.position(),
        red.mirror().game.position()
    );
    silver.play("h2h3");

    let rated = NewGame {
        rated: true,
        ..casual()
    };
    let (mut silver, mut red, _) = pair(&server.url, rated);
    silver.play("e1e2");
    red.until("the move", |c| c.plies() == 1);
    silver.refused(&ClientMsg::RequestTakeback, Refusal::NotNow);
}

fn rated_games_change_ratings_and_fill_the_leaderboard(backend: Backend) {
    let data = Db::new(backend, "rated");
    // Fresh identities play rated at once here: the newcomers' rule is tests/identity.rs's.
    let server = Server::start(&data, 0, &["--games-before-rated", "0"]);
    let rated = NewGame {
        rated: true,
        ..casual()
    };
    let (mut silver, mut red, _) = pair(&server.url, rated);
    red.send(&ClientMsg::Resign);
    silver.wait_result();
    let view = &silver.mirror().view;
    let (s, r) = (
        view.players[0].clone().unwrap(),
        view.players[1].clone().unwrap(),
    );
    assert!(s.rating > 1500.0 && r.rating < 1500.0, "{s:?} {r:?}");
    assert_eq!((s.games, r.games), (1, 1));
    assert!(s.provisional(), "one game leaves the rating provisional");
    let (status, board) = server.get("/players");
    assert_eq!(status, 200);
    let first = board.find("Silver player").expect("on the leaderboard");
    let second = board.find("Red player").expect("on the leaderboard");
    assert!(first < second, "best first: {board}");
    // The leaderboard over the socket says the same.
    let mut looker = Client::connect(&server.url, "Looker");
    looker.send(&ClientMsg::Leaderboard);
    let board = loop {
        if let Some(khet_protocol::ServerMsg::Leaderboard { players }) =
            looker.pump(Duration::from_millis(100))
        {
            break players;
        }
    };
    assert_eq!(board.len(), 2);
    assert_eq!(
        (board[0].id.as_str(), board[1].id.as_str()),
        (s.id.as_str(), r.id.as_str())
    );
    // The same installation is the same player the next time, under a new name.
    let again = Client::with_identity(&server.url, "Silver renamed", &silver.identity);
    assert_eq!(again.conn.player.id, s.id);
    assert_eq!(again.conn.player.games, 1);
}

fn the_lobby_lists_open_games_and_quick_pairing_fills_them(backend: Backend) {
    let data = Db::new(backend, "lobby");
    let server = Server::start(&data, 0, &[]);
    let mut looker = Client::connect(&server.url, "Looker");
    looker.send(&ClientMsg::Lobby);
    looker.until("the lobby", |c| c.lobby.is_some());
    assert_eq!(looker.lobby.as_ref().unwrap().len(), 0);

    let mut host = Client::connect(&server.url, "Host");
    let listed = NewGame {
        clock: Some(ClockSpec::minutes(5, 3)),
        color: SeatChoice::Red,
        listed: true,
        ..casual()
    };
    let code = host.create(listed);
    // A game for a friend is not listed.
    let mut friend_host = Client::connect(&server.url, "Private");
    friend_host.create(casual());
    looker.until("the open game", |c| {
        c.lobby
            .as_ref()
            .is_some_and(|l| l.iter().any(|g| g.code == code))
    });
    let entry = looker.lobby.clone().unwrap();
    assert_eq!(entry.len(), 1, "{entry:?}");
    assert_eq!(entry[0].joiner_color, Some(Color::Silver));
    assert_eq!(entry[0].creator.name, "Host");

    // Quick pairing with the same clock takes it; with another clock it opens a new game.
    let mut seeker = Client::connect(&server.url, "Seeker");
    seeker.send(&ClientMsg::Seek {
        clock: Some(ClockSpec::minutes(5, 3)),
        rated: false,
    });
    seeker.until("a seat", |c| c.mirror.is_some());
    assert_eq!(seeker.seat.as_ref().unwrap().0, code);
    assert_eq!(seeker.you(), Color::Silver);
    host.until("the start", |c| c.mirror().view.status == Status::Playing);
    looker.until("the game gone from the lobby", |c| {
        c.lobby.as_ref().is_some_and(Vec::is_empty)
    });
    let mut other = Client::connect(&server.url, "Other");
    other.send(&ClientMsg::Seek {
        clock: Some(ClockSpec::minutes(3, 2)),
        rated: false,
    });
    other.until("a seat", |c| c.mirror.is_some());
    assert_eq!(other.mirror().view.status, Status::Open);
    looker.until("the new open game", |c| {
        c.lobby.as_ref().is_some_and(|l| l.len() == 1)
    });
    // Its creator withdraws it: it leaves the lobby and its code is unknown.
    let withdrawn = other.seat.clone().unwrap().0;
    other.send(&ClientMsg::Resign);
    looker.until("the lobby empty", |c| {
        c.lobby.as_ref().is_some_and(Vec::is_empty)
    });
    let mut late = Client::connect(&server.url, "Late");
    late.refused(&ClientMsg::Join { code: withdrawn }, Refusal::UnknownGame);
}

fn spectators_watch_live_with_the_code_and_cannot_act(backend: Backend) {
    let data = Db::new(backend, "watch");
    let server = Server::start(&data, 0, &[]);
    let (mut silver, mut red, code) = pair(&server.url, casual());
    silver.play("e1e2");
    let mut watcher = Client::connect(&server.url, "Watcher");
    watcher.send(&ClientMsg::Watch {
        code: code.clone(),
        since: None,
    });
    watcher.until("the game", |c| c.plies() == 1);
    assert_eq!(watcher.mirror().you, None);
    red.play("f8f7");
    watcher.until("the live move", |c| c.plies() == 2);
    watcher.refused(&ClientMsg::Resign, Refusal::NotPlaying);
    watcher.refused(
        &ClientMsg::Move {
            ply: 2,
            mv: "e2e1".into(),
        },
        Refusal::NotPlaying,
    );
    silver.send(&ClientMsg::Resign);
    assert_eq!(
        watcher.wait_result(),
        GameResult::Win {
            winner: Color::Red,
            reason: WinReason::Resignation
        }
    );
}

fn a_dropped_connection_gets_what_it_missed_once_and_a_restarted_client_its_seat(backend: Backend) {
    let data = Db::new(backend, "reconnect");
    let server = Server::start(&data, 0, &[]);
    let (mut silver, mut red, _) = pair(&server.url, casual());
    silver.play("e1e2");
    red.until("the move", |c| c.plies() == 1);
    // Red's connection drops without a goodbye (the socket just closes); Silver sees it gone.
    let fresh = fresh_connection(&red);
    drop(std::mem::replace(&mut red.conn, fresh));
    silver.until("Red gone", |c| c.presence.is_some_and(|(on, _)| !on[1]));
    // Red comes back on the new connection and asks for what it missed since its last event.
    let (code, secret) = red.seat.clone().unwrap();
    let since = red.mirror().event;
    red.send(&ClientMsg::Play {
        code: code.clone(),
        secret: secret.clone(),
        since: Some(since),
    });
    silver.until("Red back", |c| c.presence.is_some_and(|(on, _)| on[1]));
    red.play("f8f7");
    silver.until("the move", |c| c.plies() == 2);
    // Red drops again and misses a move: it gets that event, not the whole game.
    let syncs = red.syncs;
    let fresh = fresh_connection(&red);
    drop(std::mem::replace(&mut red.conn, fresh));
    silver.until("Red gone", |c| c.presence.is_some_and(|(on, _)| !on[1]));
    silver.play("e2e1");
    let since = red.mirror().event;
    red.send(&ClientMsg::Play {
        code: code.clone(),
        secret: secret.clone(),
        since: Some(since),
    });
    red.until("the missed move", |c| c.plies() == 3);
    assert_eq!(red.syncs, syncs, "caught up with events, not a new sync");
    assert!(
        red.applied.windows(2).all(|w| w[1] == w[0] + 1),
        "{:?}",
        red.applied
    );
    // Sent twice (a move the client is unsure went through): played once.
    red.play("f7f8");
    red.refused(
        &ClientMsg::Move {
            ply: 3,
            mv: "f7f8".into(),
        },
        Refusal::Stale,
    );
    silver.until("the move", |c| c.plies() == 4);
    silver.drain(Duration::from_millis(200));
    assert_eq!(silver.plies(), 4);
    // A restarted program has only the secret: it gets the whole game and its side.
    silver.reconnect(false);
    silver.until("the game", |c| c.mirror.is_some());
    assert_eq!(silver.plies(), 4);
    assert_eq!(silver.you(), Color::Silver);
    assert_eq!(
        silver.mirror().game.position(),
        red.mirror().game.position()
    );
    silver.play("h2h3");
    red.until("the move", |c| c.plies() == 5);
}

fn fresh_connection(c: &Client) -> khet_protocol::client::Connection {
    khet_protocol::client::Connection::open(&c.url, &c.identity, &c.name).unwrap()
}

fn a_player_gone_past_the_grace_period_loses_the_game_on_claim(backend: Backend) {
    let data = Db::new(backend, "abandon");
    let server = Server::start(&data, 0, &["--abandon-grace", "1"]);
    let (mut silver, mut red, code) = pair(&server.url, casual());
    silver.play("e1e2");
    red.until("the move", |c| c.plies() == 1);
    red.conn.send(&ClientMsg::Leave).unwrap();
    silver.until("Red gone", |c| c.presence.is_some_and(|(on, _)| !on[1]));
    // At once is too early.
    silver.refused(&ClientMsg::ClaimAbandoned { draw: false }, Refusal::NotNow);
    claim_abandoned_win(&mut silver, &server, &code);
}

fn the_server_killed_mid_game_loses_nothing_it_acknowledged(backend: Backend) {
    let data = Db::new(backend, "kill");
    let server = Server::start(&data, 0, &[]);
    let port = server.port();
    let clocked = NewGame {
        clock: Some(ClockSpec::minutes(10, 5)),
        ..casual()
    };
    let (mut silver, mut red, code) = pair(&server.url, clocked);
    let line = pharaoh_line();
    let half = line.len() / 2;
    // Every event from here on happens after this moment.
    let playing = std::time::Instant::now();
    play_line(&mut silver, &mut red, &mut [], &line[..half]);
    let before = silver.mirror().clocks().unwrap();
    let position = *silver.mirror().game.position();

    server.kill();
    let server = Server::start(&data, port, &[]);
    // Both take their seats again as a dropped client does: on a new connection, from the
    // last event they have.
    silver.reconnect(true);
    red.reconnect(true);
    // Nothing was missed, so no whole game is sent; the presence of both brings the clocks.
    for c in [&mut silver, &mut red] {
        c.until("both back", |c| {
            c.presence.is_some_and(|(on, _)| on == [true, true])
        });
        assert_eq!(c.syncs, 1, "only the first sync");
    }
    for c in [&silver, &red] {
        assert_eq!(c.plies(), half, "every acknowledged move is there");
        assert_eq!(c.mirror().game.position(), &position);
        let after = c.mirror().clocks().unwrap();
        let mover = c.mirror().game.side_to_move();
        // The clock that was not running is exactly as stored; the running one lost no more
        // than the real time that passed since its last event (a second for rounding).
        assert_eq!(
            after.remaining_ms[mover.other().index()],
            before.remaining_ms[mover.other().index()]
        );
        assert!(after.remaining_ms[mover.index()] <= before.remaining_ms[mover.index()]);
        let passed = playing.elapsed().as_millis() as u64;
        assert!(
            after.remaining_ms[mover.index()] + passed + 1_000
                >= before.remaining_ms[mover.index()],
            "{before:?} {after:?}, {passed} ms passed"
        );
        assert_eq!(after.running, Some(mover));
    }
    play_line(&mut silver, &mut red, &mut [], &line[half..]);
    assert_eq!(
        silver.wait_result(),
        GameResult::Win {
            winner: Color::Silver,
            reason: WinReason::PharaohHit
        }
    );
    let game = replayed(&server, &code);
    assert_eq!(game.turns().len(), line.len());
}

on_each_backend!(
    a_game_ends_when_a_pharaoh_is_lit_and_its_record_replays,
    resignation_agreement_repetition_and_the_flag_end_games,
    take_backs_in_casual_games_only,
    rated_games_change_ratings_and_fill_the_leaderboard,
    the_lobby_lists_open_games_and_quick_pairing_fills_them,
    spectators_watch_live_with_the_code_and_cannot_act,
    a_dropped_connection_gets_what_it_missed_once_and_a_restarted_client_its_seat,
    a_player_gone_past_the_grace_period_loses_the_game_on_claim,
    the_server_killed_mid_game_loses_nothing_it_acknowledged,
);
