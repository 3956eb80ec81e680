//! The UCI-like protocol as a GUI or a match runner speaks it: the engine runs as a process and
//! every test waits for its answers line by line.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

const CLASSIC: &str =
    "x33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1KA13X1 0";
/// Classic with Red's c7 Pyramid on j7, a square reserved for Silver: reachable only under
/// `permissive-swap`.
const RED_ON_J7: &str =
    "x33a3ka3p22/9p3/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1KA13X1 0";
/// Silver to move lights the Red Pharaoh by turning its j8 Pyramid.
const KILL_IN_ONE: &str = "x34k3P4/////2p17//4K4X1 0";

/// How long the tests wait for any answer before they fail, saying what they waited for:
/// generous, so that only a hang fails them, never a slow or loaded machine.
const PATIENCE: Duration = Duration::from_secs(60);

struct Engine {
    child: Child,
    /// `None` once the test closed the engine's input.
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_khet-engine"))
            .arg("uci")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin: Some(stdin),
            lines,
        }
    }

    fn input(&mut self) -> &mut ChildStdin {
        self.stdin.as_mut().expect("the input is open")
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input(), "{line}").unwrap();
        self.input().flush().unwrap();
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        self.input().write_all(bytes).unwrap();
        self.input().flush().unwrap();
    }

    /// Every line up to and including the first that starts with `prefix`; fails, with what
    /// came, if a line takes longer than [`PATIENCE`].
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            match self.lines.recv_timeout(PATIENCE) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(e) => panic!("no '{prefix}' ({e}); got {seen:?}"),
            }
        }
    }

    /// The move of the next `bestmove` line, with the lines before it.
    fn best(&mut self) -> (String, Vec<String>) {
        let lines = self.until("bestmove ");
        let last = lines.last().unwrap();
        (last["bestmove ".len()..].to_string(), lines)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = writeln!(stdin, "quit");
        }
        let _ = self.child.wait();
    }
}

fn errors(lines: &[String]) -> usize {
    lines
        .iter()
        .filter(|l| l.starts_with("info string error:"))
        .count()
}

#[test]
fn announces_itself_and_its_options() {
    let mut e = Engine::start(&[]);
    e.send("uci");
    let lines = e.until("uciok");
    assert!(
        lines.contains(&"id name khet-engine".to_string()),
        "{lines:?}"
    );
    for option in ["Level", "Rules", "Hash", "Contempt"] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("option name {option} type "))),
            "{option}: {lines:?}"
        );
    }
    e.send("isready");
    e.until("readyok");
}

/// The levels a program offering them to a person reads: the protocol's combo, its rating
/// lines and `khet-engine levels` all name the engine's levels, weakest first, with the
/// engine's ratings.
#[test]
fn the_levels_and_ratings_said_are_the_engines() {
    use khet_engine::Level;
    let mut e = Engine::start(&[]);
    e.send("uci");
    let lines = e.until("uciok");
    let said: Vec<(String, i32)> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("info string level "))
        .map(|l| {
            let (name, rating) = l.split_once(" rating ").expect("NAME rating R");
            (name.to_string(), rating.parse().expect("a rating"))
        })
        .collect();
    let engine: Vec<(String, i32)> = Level::ALL
        .iter()
        .map(|l| (l.name().to_string(), l.rating()))
        .collect();
    assert_eq!(said, engine);
    let combo = lines
        .iter()
        .find(|l| l.starts_with("option name Level type combo"))
        .expect("the Level option");
    let vars: Vec<&str> = combo.split(" var ").skip(1).collect();
    let names: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
    assert_eq!(vars, names);
    let listed = Command::new(env!("CARGO_BIN_EXE_khet-engine"))
        .arg("levels")
        .output()
        .expect("khet-engine levels");
    assert!(listed.status.success());
    let listed: Vec<(String, i32)> = String::from_utf8(listed.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (name, rating) = l.split_once(' ').expect("NAME RATING");
            (name.to_string(), rating.parse().expect("a rating"))
        })
        .collect();
    let lower: Vec<(String, i32)> = engine.iter().map(|(n, r)| (n.to_lowercase(), *r)).collect();
    assert_eq!(listed, lower);
    for (name, _) in &listed {
        e.send(&format!("setoption name Level value {name}"));
    }
    e.send("isready");
    assert_eq!(errors(&e.until("readyok")), 0, "every listed name is taken");
}

#[test]
fn searches_after_both_forms_of_position() {
    let mut e = Engine::start(&[]);
    e.send("position standard moves j1- a8-");
    e.send("go depth 3");
    let (best, lines) = e.best();
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 3 score ")),
        "{lines:?}"
    );
    assert_ne!(best, "none");
    // Khet2-AI's own form: the moves right after the position string. The answer is Red's:
    // legal as the reply to h2g1 (a Silver move, had h2g1 been ignored, would not be).
    e.send(&format!("position {CLASSIC} h2g1"));
    e.send("go depth 1");
    let (best, lines) = e.best();
    let start = khet_engine::parse_position(CLASSIC).unwrap();
    assert!(
        khet_engine::Game::from_moves(start, &["h2g1".to_string(), best.clone()]).is_ok(),
        "{best} is not Red's reply to h2g1: {lines:?}"
    );
}

/// The largest `nodes N` of the `info` lines.
fn most_nodes(lines: &[String]) -> u64 {
    most_of("nodes", lines)
}

/// The largest number after `word` in the engine's `info` lines.
fn most_of(word: &str, lines: &[String]) -> u64 {
    lines
        .iter()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            words.find(|&w| w == word)?;
            words.next()?.parse().ok()
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn a_refused_position_leaves_no_position_behind() {
    let mut e = Engine::start(&[]);
    e.send("position dynasty");
    // Red's Pyramid on Silver's j file: refused under the default strict rules.
    e.send(&format!("position {RED_ON_J7}"));
    e.send("go depth 2");
    let (best, lines) = e.best();
    assert_eq!(best, "none", "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("reserved for Silver")),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.contains("no position")), "{lines:?}");
    // Under permissive-swap the same position is a game's.
    e.send("setoption name Rules value permissive-swap");
    e.send(&format!("position {RED_ON_J7}"));
    e.send("go depth 2");
    let (best, lines) = e.best();
    assert_ne!(best, "none", "{lines:?}");
    assert_eq!(errors(&lines), 0, "{lines:?}");
}

#[test]
fn the_rules_option_is_also_a_command_line_default() {
    let mut e = Engine::start(&["--rules", "permissive-swap"]);
    e.send(&format!("position {RED_ON_J7}"));
    e.send("go depth 1");
    let (best, lines) = e.best();
    assert_ne!(best, "none", "{lines:?}");
}

#[test]
fn bad_lines_get_an_error_and_the_loop_goes_on() {
    let mut e = Engine::start(&[]);
    e.send("position nonsense");
    e.send("go depth x");
    e.send("fly\u{1b}[2J");
    e.send_bytes(b"go \xff\xfe depth 1\n");
    e.send("setoption name Hash value 0");
    e.send("setoption name Level value emperor");
    e.send("setoption name Colour value red");
    e.send("position standard h2h4");
    e.send(&format!("position {}", "1".repeat(200_000)));
    e.send("position standard");
    e.send("go depth 1");
    let (best, lines) = e.best();
    assert_ne!(best, "none");
    assert_eq!(errors(&lines), 9, "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("longer than")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("not UTF-8")), "{lines:?}");
    assert!(!lines.iter().any(|l| l.contains('\u{1b}')), "{lines:?}");
}

#[test]
fn a_finished_game_says_why_there_is_no_move() {
    let mut e = Engine::start(&[]);
    e.send("position standard c5b6 e5e6");
    e.send("go depth 2");
    let (best, lines) = e.best();
    assert_eq!(best, "none");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string game over: ")),
        "{lines:?}"
    );
}

#[test]
fn mate_scores_and_go_mate() {
    let mut e = Engine::start(&[]);
    e.send(&format!("position {KILL_IN_ONE}"));
    e.send("go depth 3");
    let (best, lines) = e.best();
    assert_eq!(best, "j8-", "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains(" score mate 1 ")),
        "{lines:?}"
    );
    e.send("go mate 2");
    let (best, lines) = e.best();
    assert_eq!(best, "j8-", "{lines:?}");
}

#[test]
fn clocks_nodes_and_movetime() {
    let mut e = Engine::start(&[]);
    // The opening book would answer from the start at once: these are the search's limits.
    e.send("setoption name OwnBook value false");
    e.send("position imhotep");
    // Ten seconds on each clock: the engine plans at most a third of it (the plan itself is
    // checked in `time.rs`); without the clock it would search for minutes, past the answer's
    // deadline.
    e.send("go wtime 10000 btime 10000 winc 0 binc 0");
    let (best, _) = e.best();
    assert_ne!(best, "none");
    // A node limit bounds the nodes searched (the search looks once 1,024 more nodes are
    // counted, so it may pass the limit by that much, and by the few nodes it takes to unwind),
    // and a larger one allows more. The last `info` line counts the whole search.
    let slack = 2 * 1024;
    e.send("go nodes 3000");
    let (best, lines) = e.best();
    assert_ne!(best, "none", "{lines:?}");
    let few = most_nodes(&lines);
    assert!(few > 0 && few <= 3000 + slack, "{few} nodes: {lines:?}");
    e.send("go nodes 30000");
    let (_, lines) = e.best();
    let more = most_nodes(&lines);
    assert!(
        more > 3000 + slack && more <= 30000 + slack,
        "{more} nodes: {lines:?}"
    );
    // movetime is used (nearly) in full, not stopped at a fraction: the engine's own report of
    // the time it searched (its `info … time MS`), not the test's clock, which a loaded machine
    // stretches.
    e.send("go movetime 600");
    let (best, lines) = e.best();
    assert_ne!(best, "none");
    let searched = most_of("time", &lines);
    assert!(searched >= 500, "searched {searched} ms of 600: {lines:?}");
    // The lower levels play too.
    e.send("setoption name Level value beginner");
    e.send("go movetime 100");
    let (best, _) = e.best();
    assert_ne!(best, "none");
}

#[test]
fn go_infinite_runs_until_stop() {
    let mut e = Engine::start(&[]);
    e.send("position dynasty");
    e.send("go infinite");
    e.send("isready");
    e.until("readyok");
    e.send("stop");
    let (best, _) = e.best();
    assert_ne!(best, "none");
}

#[test]
fn the_end_of_input_stops_any_search_and_exits() {
    // A search that would run for hours, then the input closes: the engine answers its best
    // move so far and exits, as after `quit`.
    for go in ["go depth 1000", "go infinite"] {
        let mut e = Engine::start(&[]);
        e.send("position classic");
        e.send(go);
        e.send("isready");
        e.until("readyok");
        e.stdin = None;
        let (best, _) = e.best();
        assert_ne!(best, "none", "{go}");
        let deadline = Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = e.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "{go}: still running");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(status.success(), "{go}: {status}");
    }
}

#[test]
fn threads_are_an_option_and_a_flag() {
    let mut e = Engine::start(&["--threads", "2"]);
    e.send("uci");
    let lines = e.until("uciok");
    assert!(
        lines
            .iter()
            .any(|l| l == "option name Threads type spin default 2 min 1 max 256"),
        "{lines:?}"
    );
    e.send("position classic");
    e.send("go depth 4");
    let (best, lines) = e.best();
    assert_ne!(best, "none");
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 4 ")),
        "{lines:?}"
    );
    e.send("setoption name Threads value 0");
    e.send("setoption name Threads value lots");
    e.send("isready");
    let lines = e.until("readyok");
    assert_eq!(errors(&lines), 2, "{lines:?}");
    e.send("setoption name Threads value 3");
    e.send("go movetime 200");
    let (best, _) = e.best();
    assert_ne!(best, "none");
}

/// Asks `uci` and checks that the engine announces `option` among its lines.
fn announces(e: &mut Engine, option: &str) {
    e.send("uci");
    let lines = e.until("uciok");
    assert!(lines.iter().any(|l| l == option), "{lines:?}");
}

#[test]
fn draw_limits_are_an_option() {
    let mut e = Engine::start(&[]);
    announces(&mut e, "option name DrawLimits type string default 0,0");
    // A game drawn after one more ply: every line ends in a draw, worth the contempt to the
    // engine.
    e.send("setoption name Contempt value 35");
    e.send("setoption name DrawLimits value 1,0");
    e.send("position classic");
    e.send("go depth 3");
    let (best, lines) = e.best();
    assert_ne!(best, "none");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info depth 3 score -35 ")),
        "{lines:?}"
    );
    e.send("setoption name DrawLimits value 200");
    e.send("setoption name DrawLimits value 200,-1");
    e.send("setoption name DrawLimits value 200,100");
    e.send("isready");
    let lines = e.until("readyok");
    assert_eq!(errors(&lines), 2, "{lines:?}");
    e.send("go depth 3");
    let (_, lines) = e.best();
    assert!(
        !lines
            .iter()
            .any(|l| l.starts_with("info depth 3 score -35 ")),
        "{lines:?}"
    );
}

#[test]
fn the_opening_book_answers_at_once_and_is_an_option() {
    let mut e = Engine::start(&[]);
    announces(&mut e, "option name OwnBook type check default true");
    // Every setup's start is in the shipped book: a minute's movetime is answered at once, by
    // one info line of no nodes.
    let book = khet_engine::Book::builtin();
    e.send("position imhotep");
    e.send("go movetime 60000");
    let (best, lines) = e.best();
    let start = khet_engine::Setup::builtin("imhotep").unwrap().position;
    let entry = book.probe(&start).expect("the start is in the book");
    assert_eq!(best, entry.mv.to_string(), "{lines:?}");
    assert_eq!(most_nodes(&lines), 0, "{lines:?}");
    // Off, the same search takes its time.
    e.send("setoption name OwnBook value maybe");
    e.send("setoption name OwnBook value false");
    e.send("isready");
    let lines = e.until("readyok");
    assert_eq!(errors(&lines), 1, "{lines:?}");
    e.send("go movetime 400");
    let (_, lines) = e.best();
    assert!(most_nodes(&lines) > 0, "{lines:?}");
    e.send("setoption name OwnBook value TRUE");
    e.send("go movetime 60000");
    let (best, _) = e.best();
    assert_eq!(best, entry.mv.to_string());
}
