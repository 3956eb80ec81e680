//! Tournaments played through a real server by the engine's bots (`khet-engine online
//! --tournament CODE`, each a program of its own), created and started by the operator's
//! commands on the server's admin socket. What the server says at the end
//! (`/tournaments/CODE.json`) is checked against the rules and against standings computed here
//! from the games' own records, independently of the server's tournament code.

mod common;

use common::{PATIENCE, Server, engine, finish, temp};
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

/// A server with its admin socket, in a fresh folder.
struct Club {
    server: Server,
    admin: PathBuf,
    url: String,
    dir: PathBuf,
}

impl Club {
    fn open(name: &str) -> Club {
        let dir = temp(name);
        let admin = dir.join("admin.sock");
        let socket = khet_server::admin::Socket::bind(&admin).expect("the admin socket");
        let settings = Settings {
            admin: Some(std::sync::Arc::new(socket)),
            ..Settings::default()
        };
        let server =
            Server::start_with(&dir.join("data"), "127.0.0.1:0".parse().unwrap(), settings);
        let url = format!("ws://{}", server.addr);
        Club {
            server,
            admin,
            url,
            dir,
        }
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

    /// Creates a tournament of `kind` (its JSON) with a 5+0 clock; its code.
    fn create(&self, kind: &str) -> String {
        self.create_with(kind, 300_000, 0)
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
        let json = self.server.get(&format!("/tournaments/{code}.json"));
        // Read as the protocol reads it, in the message that carries it.
        match ServerMsg::from_json(&format!(r#"{{"type":"tournament","tournament":{json}}}"#)) {
            Ok(ServerMsg::Tournament { tournament }) => *tournament,
            other => panic!("not a tournament: {other:?}\n{json}"),
        }
    }

    /// The result of game `code` as its record says.
    fn result(&self, code: &str) -> GameResult {
        let text = self.server.get(&format!("/games/{code}.ron"));
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
        // Master at a tenth of a second a move: quick games, within the server's message
        // limits (a level would hold each move for its least pause, 0.7 s).
        "--movetime",
        "100",
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
    club.server.stop();
    let _ = std::fs::remove_dir_all(&club.dir);
}

#[test]
fn a_player_who_never_comes_loses_by_forfeit_and_is_withdrawn_after_two_absences() {
    let club = Club::open("absent");
    // A short clock: the absent player's games end when their time runs out (the bots, at a
    // tenth of a second a move, gain on the increment).
    let code = club.create_with(r#"{"type":"swiss","rounds":3}"#, 3_000, 1_000);
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
    club.server.stop();
    let _ = std::fs::remove_dir_all(&club.dir);
}
