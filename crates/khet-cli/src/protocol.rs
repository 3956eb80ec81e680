//! The UCI-like text protocol of the Khet2-AI engine (see `docs/rules.md`, The text
//! protocol), extended as chess GUIs and match runners expect:
//!
//! ```text
//! uci                                   -> id name, id author, option …, uciok
//! isready                               -> readyok
//! setoption name Level value master|expert|…|novice (`khet-engine levels`; after `uci`, an
//!                                        `info string level NAME rating R` line for each)
//! setoption name Rules value strict-swap,no-moves-draw   (any rule options, comma-separated)
//! setoption name Hash value MB          (transposition table, 1-4096)
//! setoption name Threads value N        (threads searching at once, 1-256; Lazy SMP)
//! setoption name Contempt value CP      (what a repetition draw costs the engine, centipawns)
//! setoption name DrawLimits value P,Q   (the game is drawn at P plies or after Q plies without a
//!                                        capture, as in matches: 200,100; 0 for no limit, the
//!                                        default, as the rule books have none)
//! setoption name OwnBook value true|false (a timed or node-limited search plays the opening
//!                                        book's move where it has one; on by default)
//! position standard|classic|imhotep|dynasty|khet1/…|<position string> [moves] m1 m2 …
//! go [depth N] [movetime MS] [nodes N] [mate N] [wtime MS btime MS winc MS binc MS
//!    movestogo N] [infinite]
//! stop | quit | newgame (ucinewgame)
//! ```
//! Answers `info depth D score S nodes N nps X time MS pv …` lines, one a finished depth
//! (`score mate N` for a forced Pharaoh hit in N moves, negative when the engine is lit), then
//! `info nodes N time MS` for the whole search, and `bestmove M`, or `bestmove none`
//! after an `info string` saying why (the game is over; the last `position` was refused). Both
//! forms of `position` are read: with the word `moves`, as written, and without, as that program
//! expects. A malformed or non-UTF-8 line gets `info string error: …` and the loop goes on.
//! The engine knows the game's moves, so it avoids repeating a position when it is ahead.

use khet_engine::search::{MAX_THREADS, Options};
use khet_engine::text::quote;
use khet_engine::{Clock, Color, DrawLimits, Game, Level, Limits, Rules, Searcher, Setup};
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// The transposition table's size by default, in MiB.
const DEFAULT_HASH_MB: usize = 16;
/// The longest line read; a longer one is refused (and read no further than needed).
const MAX_LINE: usize = 64 * 1024;

/// Standard output shared with the search thread. Once a write fails (the reader went away),
/// `closed` is set and the loop ends.
struct Say<W: Write> {
    out: Arc<Mutex<W>>,
    closed: Arc<AtomicBool>,
}

impl<W: Write> Clone for Say<W> {
    fn clone(&self) -> Self {
        Say {
            out: self.out.clone(),
            closed: self.closed.clone(),
        }
    }
}

impl<W: Write> Say<W> {
    fn line(&self, line: &str) {
        let ok = match self.out.lock() {
            Ok(mut w) => writeln!(w, "{line}").and_then(|()| w.flush()).is_ok(),
            Err(_) => false,
        };
        if !ok {
            self.closed.store(true, Ordering::Relaxed);
        }
    }

    fn error(&self, what: &str) {
        self.line(&format!("info string error: {what}"));
    }
}

/// The engine's settings, changed by `setoption`.
struct Settings {
    level: Level,
    rules: Rules,
    hash_mb: usize,
    /// The search's: `Contempt`, `Threads` and `DrawLimits` set its fields.
    search: Options,
    /// Whether a timed or node-limited search plays the opening book's move where it has one (`OwnBook`).
    own_book: bool,
}

struct Running {
    handle: JoinHandle<Searcher>,
    stop: Arc<AtomicBool>,
}

/// The protocol's state between lines.
struct Session<W: Write> {
    say: Say<W>,
    settings: Settings,
    searcher: Option<Searcher>,
    running: Option<Running>,
    /// The game set by the last `position`; `None` when that command was refused.
    game: Option<Game>,
    seed: u64,
}

/// Runs the protocol until `quit` or the end of the input (which stop any search, after its
/// `bestmove`), or the output closing. `rules` are the
/// rule options until `setoption name Rules` changes them.
pub fn run<R: BufRead, W: Write + Send + 'static>(
    mut input: R,
    output: W,
    rules: Rules,
    threads: usize,
) {
    let mut session = Session {
        say: Say {
            out: Arc::new(Mutex::new(output)),
            closed: Arc::new(AtomicBool::new(false)),
        },
        settings: Settings {
            level: Level::Master,
            rules,
            hash_mb: DEFAULT_HASH_MB,
            search: Options {
                threads,
                ..Options::default()
            },
            own_book: true,
        },
        searcher: None,
        running: None,
        game: Setup::builtin("classic")
            .ok()
            .map(|s| Game::new(s.position.with_rules(rules))),
        seed: 0x5EED,
    };
    let mut buf = Vec::new();
    let mut number = 0usize;
    loop {
        buf.clear();
        let read = std::io::Read::take(&mut input, MAX_LINE as u64 + 1).read_until(b'\n', &mut buf);
        match read {
            // The end of the input is `quit`, as UCI engines take it: a running search, even
            // `go infinite` or a deep `go depth`, stops, answers its best move and the engine
            // exits (a GUI that closed the pipe must not leave it searching for ever).
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        number += 1;
        if buf.len() > MAX_LINE && buf.last() != Some(&b'\n') {
            session.say.error(&format!(
                "line {number} is longer than {MAX_LINE} bytes; ignored"
            ));
            if !skip_line(&mut input) {
                break;
            }
            continue;
        }
        let Ok(line) = std::str::from_utf8(&buf) else {
            session
                .say
                .error(&format!("line {number} is not UTF-8 text; ignored"));
            continue;
        };
        let line = line.strip_prefix('\u{feff}').unwrap_or(line);
        let words: Vec<&str> = line.split_whitespace().collect();
        if !session.handle(&words) || session.say.closed.load(Ordering::Relaxed) {
            break;
        }
    }
    session.finish();
}

/// Skips the rest of a line, a bounded piece at a time; `false` at the end of the input.
fn skip_line(input: &mut impl BufRead) -> bool {
    let mut piece = Vec::new();
    loop {
        piece.clear();
        match std::io::Read::take(&mut *input, MAX_LINE as u64).read_until(b'\n', &mut piece) {
            Ok(0) | Err(_) => return false,
            Ok(_) if piece.last() == Some(&b'\n') => return true,
            Ok(_) => {}
        }
    }
}

impl<W: Write + Send + 'static> Session<W> {
    /// Handles one command; `false` to quit.
    fn handle(&mut self, words: &[&str]) -> bool {
        let Some((&command, args)) = words.split_first() else {
            return true;
        };
        match command {
            "uci" => self.identify(),
            "isready" => self.say.line("readyok"),
            "setoption" => {
                self.finish();
                if let Err(e) = self.set_option(args) {
                    self.say.error(&e);
                }
            }
            "newgame" | "ucinewgame" => {
                self.finish();
                if let Some(s) = self.searcher.as_mut() {
                    s.clear();
                }
            }
            "position" => {
                self.finish();
                self.game = match Game::from_protocol(args, self.settings.rules) {
                    Ok(game) => Some(game),
                    Err(e) => {
                        self.say.error(&format!(
                            "{e}; no position is set until a position command is accepted"
                        ));
                        None
                    }
                };
            }
            "go" => self.go(args),
            "stop" => self.finish(),
            "quit" => return false,
            other => self
                .say
                .error(&format!("unknown command '{}'", quote(other))),
        }
        true
    }

    fn identify(&self) {
        let levels: Vec<String> = Level::ALL.iter().map(|l| format!("var {l}")).collect();
        for line in [
            "id name khet-engine".to_string(),
            "id author the Khet project".to_string(),
            format!(
                "option name Level type combo default {} {}",
                self.settings.level,
                levels.join(" ")
            ),
            format!(
                "option name Rules type string default {}",
                self.settings.rules
            ),
            format!(
                "option name Hash type spin default {} min 1 max 4096",
                self.settings.hash_mb
            ),
            format!(
                "option name Contempt type spin default {} min -1000 max 1000",
                self.settings.search.contempt
            ),
            format!(
                "option name Threads type spin default {} min 1 max {MAX_THREADS}",
                self.settings.search.threads
            ),
            format!(
                "option name DrawLimits type string default {}",
                limits_text(self.settings.search.draw_limits)
            ),
            format!(
                "option name OwnBook type check default {}",
                self.settings.own_book
            ),
        ] {
            self.say.line(&line);
        }
        // Each level's measured strength, for a program that offers the levels to a person.
        for level in Level::ALL {
            self.say.line(&format!(
                "info string level {level} rating {}",
                level.rating()
            ));
        }
        self.say.line("uciok");
    }

    /// `setoption name N value V` (names in any case; a name may be several words).
    fn set_option(&mut self, args: &[&str]) -> Result<(), String> {
        let usage =
            "setoption name <Level|Rules|Hash|Contempt|Threads|DrawLimits|OwnBook> value <value>";
        let (Some(&"name"), Some(at)) = (args.first(), args.iter().position(|w| *w == "value"))
        else {
            return Err(format!("expected '{usage}'"));
        };
        let name = args[1..at].join(" ").to_ascii_lowercase();
        let value = args[at + 1..].join(" ");
        match name.as_str() {
            "level" => self.settings.level = value.parse().map_err(|e| format!("Level: {e}"))?,
            "rules" => {
                self.settings.rules = value.parse().map_err(|e| format!("Rules: {e}"))?;
                if let Some(game) = &self.game {
                    // The rules are part of the position: read the moves again under them.
                    let start = game.start().with_rules(self.settings.rules);
                    let moves: Vec<String> =
                        game.turns().iter().map(|t| t.mv.to_string()).collect();
                    self.game = Some(Game::from_moves(start, &moves).map_err(|e| {
                        self.game = None;
                        format!("Rules: the position set before is illegal under them: {e}")
                    })?);
                }
            }
            "hash" => {
                let mb: usize = value
                    .parse()
                    .ok()
                    .filter(|mb| (1..=4096).contains(mb))
                    .ok_or_else(|| {
                        format!("Hash takes MiB from 1 to 4096, not '{}'", quote(&value))
                    })?;
                self.settings.hash_mb = mb;
                self.searcher = None;
            }
            "contempt" => {
                self.settings.search.contempt = value
                    .parse()
                    .ok()
                    .filter(|c: &i32| (-1000..=1000).contains(c))
                    .ok_or_else(|| {
                        format!(
                            "Contempt takes centipawns from -1000 to 1000, not '{}'",
                            quote(&value)
                        )
                    })?;
            }
            "threads" => {
                self.settings.search.threads = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_THREADS).contains(n))
                    .ok_or_else(|| {
                        format!("Threads takes 1 to {MAX_THREADS}, not '{}'", quote(&value))
                    })?;
            }
            "drawlimits" => self.settings.search.draw_limits = read_limits(&value)?,
            "ownbook" => {
                self.settings.own_book = match value.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => {
                        return Err(format!(
                            "OwnBook takes true or false, not '{}'",
                            quote(&value)
                        ));
                    }
                }
            }
            other => return Err(format!("unknown option '{}' ({usage})", quote(other))),
        }
        Ok(())
    }

    fn go(&mut self, args: &[&str]) {
        self.finish();
        let request = match read_go(args) {
            Ok(r) => r,
            Err(e) => {
                self.say.error(&e);
                return;
            }
        };
        let Some(game) = self.game.clone() else {
            self.say
                .line("info string error: no position (the last position command was refused)");
            self.say.line("bestmove none");
            return;
        };
        if let Some(result) = game.result() {
            self.say.line(&format!("info string game over: {result}"));
            self.say.line("bestmove none");
            return;
        }
        let side = game.side_to_move();
        let limits = request.limits(side);
        let mut searcher = self
            .searcher
            .take()
            .unwrap_or_else(|| Searcher::with_hash_mb(self.settings.hash_mb));
        // The quiescence search stays as the last move's level set it (`Level::choose` sets it
        // for each move it chooses).
        searcher.options = Options {
            quiescence: searcher.options.quiescence,
            ..self.settings.search
        };
        // Grandmaster is Master judging with the learned evaluation as well.
        searcher.options.learned |= self.settings.level == Level::Grandmaster;
        searcher.book = self.settings.own_book.then(crate::openings::shipped);
        let stop = searcher.stop_flag();
        stop.store(false, Ordering::Relaxed);
        let say = self.say.clone();
        // The lower levels choose among good moves with their own depth; time and the stop flag
        // still bound them. Master and Grandmaster, and any search to a depth, node count or
        // mate, search.
        let level = Some(self.settings.level).filter(|l| {
            !matches!(l, Level::Master | Level::Grandmaster)
                && limits.depth.is_none()
                && limits.nodes.is_none()
                && limits.mate.is_none()
        });
        self.seed = self.seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        let mut rng = khet_engine::Rng::new(self.seed);
        let handle = std::thread::spawn(move || {
            let best = match level {
                Some(level) => {
                    let budget = limits.time.unwrap_or(Duration::from_secs(1));
                    level.choose(&mut searcher, &game, budget, &mut rng)
                }
                None => {
                    let result = searcher.search_game(&game, limits, |r| say.line(&r.to_string()));
                    // The whole search's count and time, unfinished iteration included, as UCI
                    // engines end a search.
                    say.line(&format!(
                        "info nodes {} time {}",
                        result.nodes,
                        result.elapsed.as_millis()
                    ));
                    result.best
                }
            };
            say.line(&format!(
                "bestmove {}",
                best.map_or("none".to_string(), |m| m.to_string())
            ));
            searcher
        });
        self.running = Some(Running { handle, stop });
    }

    /// Stops a running search (it still answers `bestmove`) and takes its searcher back.
    fn finish(&mut self) {
        if let Some(r) = self.running.take() {
            r.stop.store(true, Ordering::Relaxed);
            if let Ok(s) = r.handle.join() {
                self.searcher = Some(s);
            }
        }
    }
}

/// What `go` asked for.
#[derive(Default)]
struct GoRequest {
    depth: Option<u32>,
    movetime: Option<u64>,
    nodes: Option<u64>,
    mate: Option<u32>,
    clock: [Option<u64>; 2],
    increment: [Option<u64>; 2],
    moves_to_go: Option<u32>,
}

impl GoRequest {
    fn limits(&self, side: Color) -> Limits {
        let mut limits = match self.clock[side.index()] {
            Some(_) => {
                let ms = |v: Option<u64>| Duration::from_millis(v.unwrap_or(0));
                Clock {
                    remaining: [ms(self.clock[0]), ms(self.clock[1])],
                    increment: [ms(self.increment[0]), ms(self.increment[1])],
                    moves_to_go: self.moves_to_go,
                }
                .limits(side)
            }
            None => Limits::default(),
        };
        if let Some(ms) = self.movetime {
            // What the answer takes to travel is held back.
            limits.time = Some(Duration::from_millis(
                ms.saturating_sub(ms.min(200) / 20).max(1),
            ));
            limits.soft = None;
        }
        limits.depth = self.depth;
        limits.nodes = self.nodes;
        limits.mate = self.mate;
        limits
    }
}

/// Reads `go`'s parameters; unknown words and bad numbers are refused.
fn read_go(args: &[&str]) -> Result<GoRequest, String> {
    let mut r = GoRequest::default();
    let mut it = args.iter();
    while let Some(&word) = it.next() {
        if word == "infinite" {
            continue;
        }
        let known = [
            "depth",
            "movetime",
            "nodes",
            "mate",
            "wtime",
            "btime",
            "winc",
            "binc",
            "movestogo",
        ];
        if !known.contains(&word) {
            return Err(format!("unknown go option '{}'", quote(word)));
        }
        let value = it
            .next()
            .ok_or_else(|| format!("go {word} needs a number"))?;
        let n: u64 = value
            .parse()
            .map_err(|_| format!("go {word}: '{}' is not a number", quote(value)))?;
        let small = || u32::try_from(n).map_err(|_| format!("go {word}: {n} is too large"));
        match word {
            "depth" => r.depth = Some(small()?.clamp(1, 60)),
            "movetime" => r.movetime = Some(n),
            "nodes" => r.nodes = Some(n),
            "mate" => r.mate = Some(small()?.clamp(1, 30)),
            "wtime" => r.clock[0] = Some(n),
            "btime" => r.clock[1] = Some(n),
            "winc" => r.increment[0] = Some(n),
            "binc" => r.increment[1] = Some(n),
            _ => r.moves_to_go = Some(small()?),
        }
    }
    Ok(r)
}

/// `P,Q`: the move limit in plies and the run of plies without a capture that draw a game, 0
/// for none.
fn read_limits(value: &str) -> Result<DrawLimits, String> {
    let bad = || {
        format!(
            "DrawLimits takes plies,plies-without-a-capture (0 for none, e.g. 200,100), not '{}'",
            quote(value)
        )
    };
    let (plies, quiet) = value.trim().split_once(',').ok_or_else(bad)?;
    let read = |n: &str| -> Result<Option<u32>, String> {
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        Ok(Some(n).filter(|&n| n > 0))
    };
    Ok(DrawLimits {
        plies: read(plies)?,
        quiet_plies: read(quiet)?,
    })
}

/// The limits as [`read_limits`] reads them.
fn limits_text(limits: DrawLimits) -> String {
    format!(
        "{},{}",
        limits.plies.unwrap_or(0),
        limits.quiet_plies.unwrap_or(0)
    )
}
