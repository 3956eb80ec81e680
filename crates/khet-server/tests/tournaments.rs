//! A tournament's page in a real browser (headless Chromium) while its players play through a
//! real server: a player of the play page joins and withdraws with the page's button, two
//! programs create, join and start it over the protocol, and the page's standings, pairings and
//! results follow the game as it ends, without a reload.

mod common;

use common::browser::Browser;
use common::{Backend, Client, Db, PATIENCE, Server, arrive};
use khet_protocol::tournament::TournamentKind;
use khet_protocol::{
    ClientMsg, ClockSpec, NewTournament, ServerMsg, TournamentStatus, TournamentView,
};
use std::time::{Duration, Instant};

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
    let new = NewTournament {
        name: "Club <b>night</b>".into(),
        kind: TournamentKind::Swiss { rounds: 1 },
        setup: "classic".into(),
        clock: ClockSpec::minutes(5, 0),
        rated: false,
        listed: true,
        starts_ms: None,
    };
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
    // And the tournaments' page lists it.
    browser.open(&format!("http://{}/tournaments", server.addr));
    browser.until(
        "the list",
        "document.querySelector('#list tbody').textContent.includes('Club <b>night</b>')",
    );
}
