//! Tournaments played through a real server by the engine's bots (`khet-engine online
//! --tournament CODE`, each a program of its own), created and started by the operator's
//! commands on the server's admin socket. What the server says at the end
//! (`/tournaments/CODE.json`) is checked against the rules and against standings computed here
//! from the games' own records, independently of the server's tournament code.

mod common;

use common::{PATIENCE, Server, engine, finish, memory_temp};
use khet_engine::{Color, GameResult, Record};
use khet_protocol::{ServerMsg, TournamentStatus, TournamentView};
use khet_server::Settings;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::Child;
use std::time::{Duration, Instant};

/// How long a whole tournament may take before the test fails: generous (a loaded machine plays
/// a bot's game in seconds; a tournament here is a few of them, one round after another).
const TOURNAMENT_PATIENCE: Duration = Duration::from_secs(900);

/// A server's settings for a club of quick bots: they play a move every few milliseconds, past
/// what a person sends, and they and this test's polling all come from one address, loopback,
/// past what a household makes of pages and sockets (the operator's settings; a CI run was once
/// refused "too many requests" while it polled a tournament across a restart).
fn quick_bots() -> Settings {
    Settings {
        limits: khet_server::limits::LimitSettings {
            messages_per_second: 1000,
            connects_per_minute: 60_000,
            requests_per_minute: 60_000,
            ..Default::default()
        },
        ..Settings::default()
    }
}

/// A server with its admin socket, in a fresh folder.
struct Club {
    /// Always there but while it restarts.
    server: Option<Server>,
    admin: PathBuf,
    url: String,
    dir: PathBuf,
}

impl Club {
    fn open(name: &str) -> Club {
        let dir = memory_temp(name);
        let admin = dir.join("admin.sock");
        let socket = khet_server::admin::Socket::bind(&admin).expect("the admin socket");
        let settings = Settings {
            admin: Some(std::sync::Arc::new(socket)),
            ..quick_bots()
        };
        let server =
            Server::start_with(&dir.join("data"), "127.0.0.1:0".parse().unwrap(), settings);
        let url = format!("ws://{}", server.addr);
        Club {
            server: Some(server),
            admin,
            url,
            dir,
        }
    }

    fn server(&self) -> &Server {
        self.server.as_ref().expect("a running server")
    }

    /// Kills the server where it stands, and starts it again on the same data and address.
    fn restart(&mut self) {
        let server = self.server.take().expect("a running server");
        let addr = server.addr;
        server.stop();
        self.server = Some(Server::start_with(
            &self.dir.join("data"),
            addr,
            quick_bots(),
        ));
    }

    /// Stops the server and removes its folder.
    fn close(mut self) {
        if let Some(server) = self.server.take() {
            server.stop();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }

    /// The operator's command, as `khet-server admin` sends it; its answer.
    fn admin(&self, method: &str, path: &str, body: &str) -> String {
        let asked = Instant::now();
        loop {
            // The socket is served once the server has taken up its games.
            match khet_server::admin::request(&self.admin, method, path, body) {
                Ok((status, answer)) => {
                    assert!(status < 400, "{method} {path}: {status} {answer}");
                    return answer;
                }
                Err(e) => assert!(asked.elapsed() < PATIENCE, "the admin socket: {e}"),
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Creates a tournament of `kind` (its JSON) with 10 s a side, so that every game ends
    /// within seconds whatever the bots make of it (two engines may play on for hundreds of
    /// plies), and a bot that sees its pairing late still comes in time; its code.
    fn create(&self, kind: &str) -> String {
        self.create_with(kind, 10_000, 0)
    }

    /// Creates a tournament of `kind` (its JSON) with `initial_ms` a side and `increment_ms` a
    /// move; its code.
    fn create_with(&self, kind: &str, initial_ms: u64, increment_ms: u64) -> String {
        let body = format!(
            r#"{{"name":"Club night","kind":{kind},"setup":"classic","clock":{{"initial_ms":{initial_ms},"increment_ms":{increment_ms}}}}}"#
        );
        let answer = self.admin("POST", "/tournaments", &body);
        answer.lines().next().expect("the code first").to_string()
    }

    fn view(&self, code: &str) -> TournamentView {
        let json = self.server().get(&format!("/tournaments/{code}.json"));
        // Read as the protocol reads it, in the message that carries it.
        match ServerMsg::from_json(&format!(r#"{{"type":"tournament","tournament":{json}}}"#)) {
            Ok(ServerMsg::Tournament { tournament }) => *tournament,
            other => panic!("not a tournament: {other:?}\n{json}"),
        }
    }

    /// The result of game `code` as its record says.
    fn result(&self, code: &str) -> GameResult {
        let text = self.server().get(&format!("/games/{code}.ron"));
        let record = Record::from_ron(&text, "record").expect("a record");
        record.result.expect("a finished game")
    }
}

/// A bot of the engine in tournament `code`, once it has said it joined.
fn bot(club: &Club, code: &str, n: usize) -> (Child, BufReader<std::process::ChildStdout>) {
    let identity = club.dir.join(format!("bot-{n}"));
    let mut child = engine(&[
        "online",
        "--server",
        &club.url,
        "--tournament",
        code,
        // Master at 5 ms a move: quick games (a level would hold each move for its least
        // pause, 0.7 s).
        "--movetime",
        "5",
        "--name",
        &format!("Bot {n}"),
        "--identity",
        identity.to_str().unwrap(),
    ]);
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert_eq!(first.trim(), format!("tournament {code} joined"), "bot {n}");
    (child, out)
}

/// Waits for every bot to end (the tournament over), failing after [`TOURNAMENT_PATIENCE`];
/// each bot's output.
fn all_end(bots: Vec<(Child, BufReader<std::process::ChildStdout>)>) -> Vec<String> {
    let started = Instant::now();
    let mut outputs = Vec::new();
    for (mut child, mut out) in bots {
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > TOURNAMENT_PATIENCE {
                let _ = child.kill();
                panic!("a bot still plays after {TOURNAMENT_PATIENCE:?}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
        let (status, _, err) = finish(child);
        assert_eq!(status, 0, "a bot failed: {err}");
        outputs.push(rest);
    }
    outputs
}

/// Points in quarters, as a number.
fn q(points: f64) -> u32 {
    (points * 4.0).round() as u32
}

/// The standings as FIDE's rules compute them, from the pairings and the games' records:
/// each player's points, Buchholz and Sonneborn–Berger, in quarters. A bye and a forfeit are
/// rounds without a game: their points count, and they count for Buchholz as a game against
/// oneself.
fn standings(club: &Club, view: &TournamentView) -> HashMap<String, (u32, u32, u32)> {
    // (opponent, quarters taken) for each game played; quarters and rounds without a game.
    let mut games: HashMap<String, Vec<(String, u32)>> = HashMap::new();
    let mut free: HashMap<String, (u32, u32)> = HashMap::new();
    for pairing in view.rounds.iter().flatten() {
        let silver = &pairing.silver_id;
        let Some(red) = &pairing.red_id else {
            let taken = if pairing.result.as_deref() == Some("bye") {
                4
            } else {
                0
            };
            let entry = free.entry(silver.clone()).or_default();
            *entry = (entry.0 + taken, entry.1 + 1);
            continue;
        };
        let forfeit = match pairing.result.as_deref() {
            Some("+/-") => Some([4, 0]),
            Some("-/+") => Some([0, 4]),
            Some("-/-") => Some([0, 0]),
            _ => None,
        };
        if let Some(taken) = forfeit {
            for (id, q) in [(silver, taken[0]), (red, taken[1])] {
                let entry = free.entry(id.clone()).or_default();
                *entry = (entry.0 + q, entry.1 + 1);
            }
            continue;
        }
        let code = pairing.code.as_deref().expect("a game's code");
        let [silver_q, red_q] = match club.result(code) {
            GameResult::Win {
                winner: Color::Silver,
                ..
            } => [4, 0],
            GameResult::Win { .. } => [0, 4],
            GameResult::Draw { .. } => [2, 2],
        };
        games
            .entry(silver.clone())
            .or_default()
            .push((red.clone(), silver_q));
        games
            .entry(red.clone())
            .or_default()
            .push((silver.clone(), red_q));
    }
    let ids: HashSet<&String> = games.keys().chain(free.keys()).collect();
    let points: HashMap<&String, u32> = ids
        .iter()
        .map(|&id| {
            let played: u32 = games.get(id).map_or(0, |g| g.iter().map(|(_, p)| p).sum());
            (id, played + free.get(id).map_or(0, |f| f.0))
        })
        .collect();
    ids.iter()
        .map(|&id| {
            let own = points[id];
            let mut buchholz = free.get(id).map_or(0, |f| f.1) * own;
            let mut sb = 0;
            for (opponent, taken) in games.get(id).into_iter().flatten() {
                buchholz += points[opponent];
                sb += match taken {
                    4 => points[opponent],
                    2 => points[opponent] / 2,
                    _ => 0,
                };
            }
            (id.clone(), (own, buchholz, sb))
        })
        .collect()
}

/// The order the standings must have: points, Buchholz, Sonneborn–Berger, highest first.
fn assert_standings(club: &Club, view: &TournamentView) {
    let expected = standings(club, view);
    assert_eq!(expected.len(), view.players.len());
    for p in &view.players {
        let said = (q(p.points), q(p.buchholz), q(p.sonneborn_berger));
        assert_eq!(
            said, expected[&p.id],
            "{}'s points, Buchholz and S-B",
            p.name
        );
    }
    let keys: Vec<(u32, u32, u32)> = view.players.iter().map(|p| expected[&p.id]).collect();
    let mut sorted = keys.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(keys, sorted, "the standings' order");
}

#[test]
fn a_swiss_of_seven_bots_over_three_rounds_pairs_byes_and_ranks_as_the_rules_say() {
    let club = Club::open("swiss");
    let code = club.create(r#"{"type":"swiss","rounds":3}"#);
    let bots: Vec<_> = (1..=7).map(|n| bot(&club, &code, n)).collect();
    let before = club.view(&code);
    assert_eq!(before.status, TournamentStatus::Created);
    assert_eq!(before.players.len(), 7);
    club.admin("POST", &format!("/tournaments/{code}/start"), "");
    let outputs = all_end(bots);

    let view = club.view(&code);
    assert_eq!(view.status, TournamentStatus::Finished);
    assert_eq!(view.rounds.len(), 3, "three rounds");
    let mut met = HashSet::new();
    let mut byes = HashSet::new();
    for (n, round) in view.rounds.iter().enumerate() {
        let games: Vec<_> = round.iter().filter(|p| p.red.is_some()).collect();
        let round_byes: Vec<_> = round.iter().filter(|p| p.red.is_none()).collect();
        assert_eq!(
            (games.len(), round_byes.len()),
            (3, 1),
            "round {}: {round:?}",
            n + 1
        );
        assert_eq!(round_byes[0].result.as_deref(), Some("bye"));
        assert!(
            byes.insert(round_byes[0].silver_id.clone()),
            "round {}: a second bye to {}",
            n + 1,
            round_byes[0].silver
        );
        for game in games {
            let red = game.red_id.clone().unwrap();
            let pair = if game.silver_id < red {
                (game.silver_id.clone(), red)
            } else {
                (red, game.silver_id.clone())
            };
            assert!(met.insert(pair), "round {}: a repeat: {game:?}", n + 1);
            let result = game.result.as_deref().expect("a result");
            assert!(
                ["1-0", "0-1", "1/2-1/2"].contains(&result),
                "every bot came: {game:?}"
            );
        }
    }
    assert_standings(&club, &view);
    // Each bot played its three games (or two and a bye) and knows where it ended.
    for (n, out) in outputs.iter().enumerate() {
        let games = out.lines().filter(|l| l.starts_with("game ")).count();
        let bye = byes.contains(
            &view
                .players
                .iter()
                .find(|p| p.name == format!("Bot {}", n + 1))
                .unwrap()
                .id,
        );
        assert_eq!(games, if bye { 2 } else { 3 }, "bot {}: {out}", n + 1);
        assert!(out.contains("tournament over: place "), "{out}");
    }
    club.close();
}

#[test]
fn a_player_who_never_comes_loses_by_forfeit_and_is_withdrawn_after_two_absences() {
    let club = Club::open("absent");
    // A short clock: the absent player's games end when their time runs out (the bots gain on
    // the increment).
    let code = club.create_with(r#"{"type":"swiss","rounds":3}"#, 6_000, 1_000);
    let mut bots: Vec<_> = (1..=3).map(|n| bot(&club, &code, n)).collect();
    // The fourth joins, then is gone for good.
    let (mut gone, _) = bot(&club, &code, 4);
    gone.kill().unwrap();
    let _ = gone.wait();
    club.admin("POST", &format!("/tournaments/{code}/start"), "");
    let outputs = all_end(std::mem::take(&mut bots));
    assert_eq!(outputs.len(), 3);

    let view = club.view(&code);
    assert_eq!(view.status, TournamentStatus::Finished);
    let absent = view.players.iter().find(|p| p.name == "Bot 4").unwrap();
    assert!(absent.withdrawn, "withdrawn after two absences: {view:?}");
    assert_eq!((absent.points, absent.games), (0.0, 0));
    let theirs: Vec<_> = view
        .rounds
        .iter()
        .flatten()
        .filter(|p| p.silver_id == absent.id || p.red_id.as_deref() == Some(&absent.id))
        .collect();
    assert_eq!(theirs.len(), 2, "paired twice, then no more: {theirs:?}");
    for p in theirs {
        let lost = if p.silver_id == absent.id {
            "-/+"
        } else {
            "+/-"
        };
        assert_eq!(p.result.as_deref(), Some(lost), "{p:?}");
        // The game itself ended on the absent player's clock.
        let GameResult::Win { reason, .. } = club.result(p.code.as_deref().unwrap()) else {
            panic!("a forfeit game drawn");
        };
        assert_eq!(reason, khet_engine::WinReason::Time);
    }
    // The three left: one of them has the last round's bye.
    let last = view.rounds.last().unwrap();
    assert_eq!(
        last.iter().filter(|p| p.red.is_none()).count(),
        1,
        "{last:?}"
    );
    assert_standings(&club, &view);
    club.close();
}

#[test]
fn a_round_robin_of_four_bots_meets_everyone_once_round_by_round() {
    let club = Club::open("round-robin");
    let code = club.create(r#"{"type":"round-robin"}"#);
    let bots: Vec<_> = (1..=4).map(|n| bot(&club, &code, n)).collect();
    club.admin("POST", &format!("/tournaments/{code}/start"), "");
    all_end(bots);

    let view = club.view(&code);
    assert_eq!(view.status, TournamentStatus::Finished);
    assert_eq!(view.rounds.len(), 3, "three rounds for four players");
    let mut met = HashSet::new();
    for round in &view.rounds {
        assert_eq!(round.len(), 2, "two games a round: {round:?}");
        let mut seated = HashSet::new();
        for game in round {
            let red = game.red_id.clone().expect("no rest among four");
            assert!(seated.insert(game.silver_id.clone()) && seated.insert(red.clone()));
            let mut pair = [game.silver_id.clone(), red];
            pair.sort();
            assert!(met.insert(pair), "a pair met twice: {game:?}");
        }
    }
    assert_eq!(met.len(), 6, "every pair of the four met");
    assert_standings(&club, &view);
    club.close();
}

/// An arena's score as lichess counts it: a win 2, a draw 1, doubled after two wins in a row.
fn arena_score(results: &[u32]) -> u32 {
    let (mut score, mut wins) = (0, 0);
    for &q in results {
        let base = match q {
            4 => 2,
            2 => 1,
            _ => 0,
        };
        score += if wins >= 2 { 2 * base } else { base };
        wins = if q == 4 { wins + 1 } else { 0 };
    }
    score
}

#[test]
fn an_arena_of_six_bots_pairs_the_free_again_until_its_time_and_plays_out_the_last_games() {
    let club = Club::open("arena");
    let code = club.create(r#"{"type":"arena","minutes":1}"#);
    let bots: Vec<_> = (1..=6).map(|n| bot(&club, &code, n)).collect();
    club.admin("POST", &format!("/tournaments/{code}/start"), "");
    all_end(bots);

    let view = club.view(&code);
    assert_eq!(view.status, TournamentStatus::Finished);
    let ends = view.ends_ms.expect("an arena's end");
    assert_eq!(ends, view.starts_ms.unwrap() + 60_000);
    assert!(
        view.rounds.len() >= 2,
        "paired again as players came free: {view:?}"
    );
    // Each player's results in the order played, from the games' records.
    let mut results: HashMap<String, Vec<u32>> = HashMap::new();
    for pairing in view.rounds.iter().flatten() {
        let red = pairing.red_id.clone().expect("an arena has no byes");
        let code = pairing.code.as_deref().expect("a game");
        let [s, r] = match club.result(code) {
            GameResult::Win {
                winner: Color::Silver,
                ..
            } => [4, 0],
            GameResult::Win { .. } => [0, 4],
            GameResult::Draw { .. } => [2, 2],
        };
        results
            .entry(pairing.silver_id.clone())
            .or_default()
            .push(s);
        results.entry(red).or_default().push(r);
    }
    for p in &view.players {
        let mine = results.get(&p.id).cloned().unwrap_or_default();
        assert_eq!(q(p.points), mine.iter().sum::<u32>(), "{}'s points", p.name);
        assert_eq!(
            p.arena_score,
            Some(arena_score(&mine)),
            "{}'s arena score",
            p.name
        );
    }
    let keys: Vec<(Option<u32>, u32)> = view
        .players
        .iter()
        .map(|p| (p.arena_score, q(p.points)))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(keys, sorted, "ordered by arena score, then points");
    club.close();
}

#[test]
fn a_tournament_goes_on_after_its_server_is_killed_and_started_again_between_rounds() {
    let mut club = Club::open("restart");
    let code = club.create(r#"{"type":"swiss","rounds":2}"#);
    let bots: Vec<_> = (1..=4).map(|n| bot(&club, &code, n)).collect();
    club.admin("POST", &format!("/tournaments/{code}/start"), "");
    // Round 1 played, round 2 paired: then the server dies where it stands.
    let asked = Instant::now();
    let paired = loop {
        let view = club.view(&code);
        if view.rounds.len() == 2 {
            break view;
        }
        assert!(
            asked.elapsed() < TOURNAMENT_PATIENCE,
            "round 2 never paired: {view:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    club.restart();
    all_end(bots);

    let view = club.view(&code);
    assert_eq!(view.status, TournamentStatus::Finished);
    assert_eq!(view.rounds.len(), 2, "no round paired twice: {view:?}");
    let codes =
        |rounds: &[Vec<khet_protocol::tournament::TournamentPairing>]| -> Vec<Option<String>> {
            rounds.iter().flatten().map(|p| p.code.clone()).collect()
        };
    assert_eq!(
        codes(&view.rounds),
        codes(&paired.rounds),
        "the games paired before the stop"
    );
    for pairing in view.rounds.iter().flatten() {
        let result = pairing.result.as_deref().expect("every game decided");
        assert!(["1-0", "0-1", "1/2-1/2"].contains(&result), "{pairing:?}");
    }
    assert_standings(&club, &view);
    club.close();
}

#[test]
fn a_tournament_with_a_start_time_starts_by_itself() {
    let club = Club::open("timed");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    // Its time comes once both bots have joined (each says so before the next starts).
    let starts = now + 10_000;
    let body = format!(
        r#"{{"name":"At eight","kind":{{"type":"swiss","rounds":1}},"setup":"classic","clock":{{"initial_ms":10000,"increment_ms":0}},"starts_ms":{starts}}}"#
    );
    let code = club
        .admin("POST", "/tournaments", &body)
        .lines()
        .next()
        .unwrap()
        .to_string();
    let bots: Vec<_> = (1..=2).map(|n| bot(&club, &code, n)).collect();
    assert_eq!(club.view(&code).status, TournamentStatus::Created);
    all_end(bots);
    let view = club.view(&code);
    assert_eq!(view.status, TournamentStatus::Finished);
    assert!(
        view.starts_ms.is_some_and(|at| u128::from(at) >= starts),
        "{view:?}"
    );
    assert_eq!(view.rounds.len(), 1);
    assert!(view.rounds[0][0].result.is_some());
    club.close();
}
