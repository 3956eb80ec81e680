//! Matches: from all three Khet 2.0 setups with both colours (each opening played from both
//! sides, optionally after seeded random plies), at a fixed time per move, scored as wins, draws
//! and losses with an Elo difference and its 95% error bar, optionally stopped by a sequential
//! probability ratio test; and self-play tuning of the evaluation's weights.

use crate::out::{Failure, Out, say};
use khet_engine::eval::{Weights, material};
use khet_engine::search::{DrawLimits, Options};
use khet_engine::{Color, Game, GameResult, Level, Limits, Position, Rng, Searcher, Setup};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// One side of a match: a level of ours with its search's settings, or an external engine
/// command speaking the protocol (written `engine:COMMAND`, run by `sh -c`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Contender {
    /// A level of ours.
    Level {
        /// The level.
        level: Level,
        /// How its search is set.
        settings: Settings,
    },
    /// A program speaking the protocol.
    Engine(String),
}

/// How a level of ours plays a match: its search's [`Options`] (which the suffixes of
/// [`Contender`]'s names turn from their defaults, to play a change against the search without
/// it), and the settings only matches have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Its search's options: the suffixes of [`Contender`]'s names, `-cN` (contempt), `-wNAME=VALUE`
    /// (a weight, by its name in `eval::Weights`) and `@N` (threads) set them.
    pub options: Options,
    /// Whether a timed search plays the shipped opening book's move where it has one
    /// (`-nobook` off).
    pub book: bool,
    /// Time odds: it thinks this many times the match's time a move (`-xN`), to see what a
    /// stronger side of the same search would make of the same positions.
    pub time_factor: u32,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            options: Options::default(),
            // The game's Master and the protocol play from the book; a searcher alone does not.
            book: true,
            time_factor: 1,
        }
    }
}

/// Each suffix, what it sets, and how the contender's name says it (in this order: the names
/// in match logs, which `--resume` compares, depend on it).
#[rustfmt::skip]
const SUFFIXES: [(&str, fn(&mut Settings), &str); 9] = [
    ("-norep", |s| s.options.repetitions = false, " (no repetitions)"),
    ("-nolmr", |s| s.options.reductions = false, " (no reductions)"),
    ("-onelmr", |s| s.options.graded_reductions = false, " (one-ply reductions)"),
    ("-nonull", |s| s.options.null_moves = false, " (no null moves)"),
    ("-noasp", |s| s.options.aspiration = false, " (no aspiration)"),
    ("-notss", |s| s.options.threat_space = false, " (no threat-space search)"),
    ("-nobook", |s| s.book = false, " (no book)"),
    ("-nolmp", |s| s.options.late_move_pruning = false, " (no late-move pruning)"),
    ("-nohist", |s| s.options.history_gravity = false, " (no history gravity)"),
];

impl Settings {
    /// Sets `searcher` so.
    fn apply(&self, searcher: &mut Searcher) {
        searcher.options = self.options;
        searcher.book = self.book.then(crate::openings::shipped);
    }

    /// What the name adds to the level's for these settings: the words of each suffix whose
    /// setting they have (each suffix sets a value other than the default).
    fn describe(&self) -> String {
        let mut name = String::new();
        for (_, set, words) in SUFFIXES {
            let mut with = *self;
            set(&mut with);
            if with == *self {
                name += words;
            }
        }
        let options = &self.options;
        if options.contempt != khet_engine::search::DEFAULT_CONTEMPT {
            name += &format!(" (contempt {})", options.contempt);
        }
        let (mut mine, mut default) = (options.weights, Weights::default());
        for ((weight, value), (_, usual)) in mine.fields_mut().into_iter().zip(default.fields_mut())
        {
            if value != usual {
                name += &format!(" ({weight} {value})");
            }
        }
        if self.time_factor != 1 {
            name += &format!(" at {}x the time", self.time_factor);
        }
        if options.threads > 1 {
            name += &format!(" on {} threads", options.threads);
        }
        name
    }
}

impl Contender {
    fn name(&self) -> String {
        match self {
            Contender::Level { level, settings } => level.name().to_string() + &settings.describe(),
            Contender::Engine(cmd) => format!("engine '{cmd}'"),
        }
    }
}

/// `master`, with any of the suffixes `-norep` (the search blind to repetitions), `-nolmr`
/// (without late-move reductions), `-onelmr` (late moves reduced by one ply, not graded),
/// `-nonull` (without null moves), `-noasp` (without aspiration windows), `-notss` (without
/// the threat-space search), `-nobook` (without the opening book), `-nolmp` (without late-move
/// pruning), `-nohist` (without history gravity), `-cN` (a contempt of N centipawns),
/// `-wNAME=VALUE`
/// (an evaluation weight, named as in `eval::Weights`, set; it may be negative, and the suffix
/// may be given for several weights),
/// `-xN` (N times the match's time a move), then `@N` (on N threads); or `engine:COMMAND`.
impl std::str::FromStr for Contender {
    type Err = String;
    fn from_str(s: &str) -> Result<Contender, String> {
        if let Some(cmd) = s.strip_prefix("engine:") {
            return match cmd.trim() {
                "" => Err("engine: needs a command, e.g. engine:'./khet2ai'".into()),
                cmd => Ok(Contender::Engine(cmd.to_string())),
            };
        }
        let mut settings = Settings::default();
        let (s, threads) = match s.split_once('@') {
            Some((name, n)) => (
                name,
                n.parse()
                    .ok()
                    .filter(|n| (1..=khet_engine::search::MAX_THREADS).contains(n))
                    .ok_or_else(|| {
                        format!(
                            "'@{}' is not a thread count (1 to {})",
                            khet_engine::text::quote(n),
                            khet_engine::search::MAX_THREADS
                        )
                    })?,
            ),
            None => (s, 1),
        };
        settings.options.threads = threads;
        let mut name = s;
        'strip: loop {
            for (suffix, set, _) in SUFFIXES {
                if let Some(rest) = name.strip_suffix(suffix) {
                    set(&mut settings);
                    name = rest;
                    continue 'strip;
                }
            }
            if let Some((rest, last)) = name.rsplit_once('-')
                && let Some(Ok(c)) = last.strip_prefix('c').map(str::parse::<i32>)
                && (-1000..=1000).contains(&c)
            {
                settings.options.contempt = c;
                name = rest;
                continue 'strip;
            }
            if let Some((rest, last)) = name.rsplit_once('-')
                && let Some(Ok(x)) = last.strip_prefix('x').map(str::parse::<u32>)
            {
                if !(1..=100).contains(&x) {
                    return Err(format!("'-x{x}' is not a time factor (1 to 100)"));
                }
                settings.time_factor = x;
                name = rest;
                continue 'strip;
            }
            // Split at `-w`, not at the last `-`: a weight may be negative (`-wreach=-30`), as
            // `texel` can print it.
            if let Some((rest, last)) = name.rsplit_once("-w")
                && let Some((weight, value)) = last.split_once('=')
            {
                let value = value
                    .parse::<i32>()
                    .ok()
                    .filter(|v| (-10_000..=10_000).contains(v))
                    .ok_or_else(|| {
                        format!(
                            "'{}' is not a weight (-10000 to 10000)",
                            khet_engine::text::quote(value)
                        )
                    })?;
                let mut fields = settings.options.weights.fields_mut();
                let Some((_, slot)) = fields.iter_mut().find(|(name, _)| *name == weight) else {
                    let names: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
                    return Err(format!(
                        "no weight is called '{}' (the weights: {})",
                        khet_engine::text::quote(weight),
                        names.join(", ")
                    ));
                };
                **slot = value;
                name = rest;
                continue 'strip;
            }
            break;
        }
        let level = name.parse().map_err(|e: khet_engine::ParseNameError| {
            format!(
                "{e}; add -norep for a search blind to repetitions, -nolmr without reductions, -onelmr with one-ply reductions, -nonull without null moves, -noasp without aspiration windows, -notss without the threat-space search, -nobook without the opening book, -nolmp without late-move pruning, -nohist without history gravity, -cN with a contempt of N centipawns, -wNAME=VALUE with an evaluation weight set, -xN with N times the time a move, @N for N threads"
            )
        })?;
        Ok(Contender::Level { level, settings })
    }
}

/// An external engine process, its output read by a thread of its own so that an engine that
/// stops answering ends the match with a reason instead of hanging it.
struct External {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
}

/// How long an engine may take beyond the time it was given, or to start.
const GRACE: Duration = Duration::from_secs(10);

impl External {
    /// Starts `cmd` and checks that it reads commands (Khet2-AI's protocol has no handshake, so
    /// this asks for the first move of a game and waits for the answer).
    fn start(cmd: &str) -> Result<External, String> {
        let mut child = Command::new("sh")
            .args(["-c", cmd])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start '{cmd}': {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = External {
            child,
            stdin,
            lines,
        };
        e.choose("classic", &[], Duration::from_millis(10))
            .map_err(|err| format!("'{cmd}' does not play: {err}"))?;
        Ok(e)
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("engine gone: {e}"))
    }

    /// The first line that starts with `prefix`, within `wait`.
    fn wait_for(&mut self, prefix: &str, wait: Duration) -> Result<String, String> {
        let end = std::time::Instant::now() + wait;
        loop {
            let left = end.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.trim_start().starts_with(prefix) => {
                    return Ok(line.trim().to_string());
                }
                Ok(_) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(format!("no '{prefix}' within {} s", wait.as_secs()));
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(format!("the engine closed before answering '{prefix}'"));
                }
            }
        }
    }

    /// A new game: the engine forgets what it learned.
    fn new_game(&mut self) -> Result<(), String> {
        self.send("newgame")
    }

    /// Asks for a move in `setup` after `moves`, in the form without the word `moves` that the
    /// Khet2-AI program expects.
    fn choose(
        &mut self,
        setup: &str,
        moves: &[String],
        movetime: Duration,
    ) -> Result<String, String> {
        let start = if setup == "classic" {
            "standard"
        } else {
            setup
        };
        self.send(format!("position {start} {}", moves.join(" ")).trim_end())?;
        self.send(&format!("go movetime {}", movetime.as_millis()))?;
        let line = self.wait_for("bestmove", movetime + GRACE)?;
        Ok(line.split_whitespace().nth(1).unwrap_or("none").to_string())
    }
}

impl Drop for External {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A match's draws beyond the rule books (which have none): 200 plies, and 100 plies without
/// a capture, as Khet2-AI plays.
const LIMITS: DrawLimits = DrawLimits::MATCH;

/// Plies at the end of `game` in which no shot removed a piece.
pub(crate) fn quiet_plies(game: &Game) -> u32 {
    game.turns()
        .iter()
        .rev()
        .take_while(|t| t.shot.hits.is_empty())
        .count() as u32
}

/// Writes game `n`'s record into `dir` as `game-N.ron`, whole or not at all (a temporary file
/// renamed).
fn keep_record(dir: &std::path::Path, n: u32, setup: &str, game: &Game) -> Result<(), String> {
    let path = dir.join(format!("game-{n}.ron"));
    let tmp = dir.join(format!(".game-{n}.ron.tmp"));
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&tmp, khet_engine::Record::from_game(game, setup).to_ron()))
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether a match's game has ended: won, drawn by the rules, a limit or a repetition.
pub(crate) fn finished(game: &Game) -> bool {
    game.is_over()
        || LIMITS.reached(game.turns().len() as u32, quiet_plies(game))
        || game.can_claim_draw()
}

/// Why a game not won ended: `[0]` repetition, `[1]` the move limit, `[2]` the plies without a
/// capture.
const CAUSES: [&str; 3] = ["by repetition", "at the move limit", "without a capture"];

/// The index in [`CAUSES`] of why `game`, not won, ended.
fn draw_cause(game: &Game) -> usize {
    if game.can_claim_draw() {
        0
    } else if LIMITS.reached(game.turns().len() as u32, 0) {
        1
    } else {
        2
    }
}

/// A draw in which one side led by at least this much material (a Pyramid) was a win let slip.
const LEAD: i32 = 100;

/// For a game that started with a side [`LEAD`] or more ahead in material (Silver's lead
/// `start_lead`): which contender played that side (0 `a`, 1 `b`) and how it did (0 won, 1 drew,
/// 2 lost), from `a`'s score.
fn from_ahead(start_lead: i32, a_color: Color, a_score: f64) -> Option<(usize, usize)> {
    if start_lead.abs() < LEAD {
        return None;
    }
    let ahead = if start_lead > 0 {
        Color::Silver
    } else {
        Color::Red
    };
    let (side, score) = if ahead == a_color {
        (0, a_score)
    } else {
        (1, 1.0 - a_score)
    };
    let column = if score == 1.0 {
        0
    } else if score == 0.0 {
        2
    } else {
        1
    };
    Some((side, column))
}

/// The Elo difference for a score fraction, and its 95% error bar from the per-game results.
pub(crate) fn elo(results: &[f64]) -> (f64, f64) {
    let n = results.len() as f64;
    if n == 0.0 {
        return (0.0, 0.0);
    }
    let mean = results.iter().sum::<f64>() / n;
    let mut var = results.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / n;
    if var == 0.0 {
        // All results alike: take the spread of a score shrunk by half a game towards 50%.
        let p = (mean * n + 0.5) / (n + 1.0);
        var = p * (1.0 - p);
    }
    let to_elo = |s: f64| {
        let s = s.clamp(0.5 / n, 1.0 - 0.5 / n);
        -400.0 * (1.0 / s - 1.0).log10()
    };
    let margin = 1.96 * (var / n).sqrt();
    let e = to_elo(mean);
    (e, (to_elo(mean + margin) - to_elo(mean - margin)) / 2.0)
}

/// The Khet 2.0 setups a match cycles through.
const SETUPS: [&str; 3] = ["classic", "imhotep", "dynasty"];

/// What a match is counting.
#[derive(Default)]
struct Tally {
    wins: u32,
    draws: u32,
    losses: u32,
    /// Draws in which `a` (index 0) or `b` (1) was a Pyramid or more ahead, by cause (see
    /// [`CAUSES`]).
    draws_led: [[u32; 2]; 3],
    /// Games that started with a side a Pyramid or more ahead in material (a book's won
    /// positions): won, drawn and lost by `a` (index 0) or `b` (1) playing that side.
    from_ahead: [[u32; 3]; 2],
    results: Vec<f64>,
    /// Each finished pair's mean score, the sequential test's samples.
    pairs: Vec<f64>,
}

impl Tally {
    /// Counts one game's score for `a`; whether it finished a pair.
    fn add(&mut self, score: f64) -> bool {
        match score {
            1.0 => self.wins += 1,
            0.0 => self.losses += 1,
            _ => self.draws += 1,
        }
        self.results.push(score);
        let n = self.results.len();
        let paired = n.is_multiple_of(2);
        if paired {
            self.pairs
                .push((self.results[n - 2] + self.results[n - 1]) / 2.0);
        }
        paired
    }
}

/// How a match is played: the time a move, how many games at most, the random opening plies
/// (the same for both games of a pair), and the sequential test that may end it sooner.
pub struct MatchPlan {
    /// Games at most (a pair's two games count two).
    pub games: u32,
    /// Time per move.
    pub movetime: Duration,
    /// Random plies played from the setup before the contenders take over.
    pub opening_plies: usize,
    /// A sequential probability ratio test, if one decides when to stop.
    pub sprt: Option<Sprt>,
    /// A folder to keep each game's record in (`game-N.ron`, which `khet-engine replay` and the
    /// game's Open screen read), to go through the games afterwards.
    pub records: Option<std::path::PathBuf>,
    /// Start positions to play instead of the setups' openings, each from both sides, in turn.
    pub book: Option<Vec<Position>>,
    /// The results of an earlier run of the same match (its log, read by [`read_resume`]):
    /// the match counts them and plays on from the game after them.
    pub resume: Vec<f64>,
}

/// The longest match log `--resume` reads, in bytes.
const MAX_LOG: usize = 16 << 20;

/// The first line of a match's log: what its game lines do not say (the time a move, and how
/// many random plies open each pair or how long the book is), so that `--resume` can refuse a
/// log played another way.
fn plan_line(plan: &MatchPlan) -> String {
    let ms = plan.movetime.as_millis();
    match &plan.book {
        Some(book) if book.len() == 1 => format!("plan: {ms} ms a move, a book of 1 position"),
        Some(book) => format!("plan: {ms} ms a move, a book of {} positions", book.len()),
        None => format!(
            "plan: {ms} ms a move, {} random opening plies",
            plan.opening_plies
        ),
    }
}

/// The results for `a` of the games match logs show, read in turn (a run resumed before logs
/// only its new games, so its logs are given in order), so that a stopped match, a sequential
/// test above all, goes on where it stopped instead of starting again. Only the `game N (…)`
/// lines `play_match` prints count. Each must name `a` as the match names it, be numbered in
/// turn from 1, and start where `plan` would start that game (the same setups, with or without
/// random opening plies, or the same book); a log's `plan:` line (see [`plan_line`]) must be
/// this plan's, so another time a move, number of opening plies or length of book is refused
/// (logs written before that line existed have none, and are read without that check); a last
/// game without its pair's other half is dropped, to be played again. The draws a side led are
/// not in the lines, so the summary counts them for the new games only.
pub fn read_resume(
    paths: &[std::path::PathBuf],
    a: &Contender,
    plan: &MatchPlan,
) -> Result<Vec<f64>, String> {
    let mut results = Vec::new();
    for path in paths {
        // A run resumed from a log ending in half a pair played that pair again.
        results.truncate(results.len() / 2 * 2);
        read_log(path, a, plan, &mut results)?;
    }
    results.truncate(results.len() / 2 * 2);
    if !paths.is_empty() && results.len() >= plan.games as usize {
        return Err(format!(
            "{} games played already, --games {} asks for no more",
            results.len(),
            plan.games
        ));
    }
    Ok(results)
}

/// A match log's text, read within [`MAX_LOG`] bytes; the error names the file.
pub(crate) fn log_text(path: &std::path::Path) -> Result<String, String> {
    let name = path.display();
    let bytes = crate::files::read_bounded(path, MAX_LOG).map_err(|e| format!("{name}: {e}"))?;
    String::from_utf8(bytes).map_err(|_| format!("{name}: not UTF-8 text"))
}

/// One log of [`read_resume`]: its games' results for `a` pushed after `results`.
fn read_log(
    path: &std::path::Path,
    a: &Contender,
    plan: &MatchPlan,
    results: &mut Vec<f64>,
) -> Result<(), String> {
    let name = path.display();
    let text = log_text(path)?;
    let who = a.name();
    let plan_line = plan_line(plan);
    for (i, line) in text.lines().enumerate() {
        let at = |why: String| format!("{name}:{}: {why}", i + 1);
        let line = line.trim_start_matches('\u{feff}');
        if line.starts_with("plan: ") && line != plan_line {
            return Err(at(format!(
                "the log's '{}' is not this match's '{plan_line}'",
                khet_engine::text::quote(line)
            )));
        }
        let Some(rest) = line.strip_prefix("game ") else {
            continue;
        };
        let Some((number, rest)) = rest.split_once(" (") else {
            continue;
        };
        let Ok(number) = number.parse::<usize>() else {
            continue;
        };
        if number != results.len() + 1 {
            return Err(at(format!(
                "game {number} where game {} was due",
                results.len() + 1
            )));
        }
        let g = results.len() as u32;
        let color = color_of_a(g);
        let marker = format!(" plays {color}): ");
        let Some((start, result)) = rest.split_once(&marker) else {
            return Err(at(format!(
                "game {number} should be played by A as {color}"
            )));
        };
        let label = start_of(plan, g / 2)?.2;
        if start != format!("{label}, {who}") {
            return Err(at(format!(
                "game {number} was '{}', this match's is '{label}, {who}' (the same contenders, \
                 setups or book are needed)",
                khet_engine::text::quote(start)
            )));
        }
        let score = result_score(result, color).map_err(at)?;
        results.push(score);
    }
    Ok(())
}

/// The score of the side playing `color` in a game whose log line ends in `result` (as
/// [`play_match`] prints it: `Silver wins: …`, `draw …`, or a game's draw such as `Draw by
/// threefold repetition`).
fn result_score(result: &str, color: Color) -> Result<f64, String> {
    if result
        .get(..4)
        .is_some_and(|w| w.eq_ignore_ascii_case("draw"))
    {
        Ok(0.5)
    } else if result.starts_with(&format!("{color} wins")) {
        Ok(1.0)
    } else if result.starts_with(&format!("{} wins", color.other())) {
        Ok(0.0)
    } else {
        Err(format!(
            "'{}' is not a result",
            khet_engine::text::quote(result)
        ))
    }
}

/// A log's `game N (…, NAME plays COLOUR): RESULT` line read alone: its number, and the
/// score of the contender it names (or why its result cannot be read). `None` for other lines.
pub(crate) fn game_score(line: &str) -> Option<(usize, Result<f64, String>)> {
    let (number, rest) = line.strip_prefix("game ")?.split_once(" (")?;
    let number = number.parse().ok()?;
    let played = Color::ALL.into_iter().find_map(|color| {
        let (_, result) = rest.split_once(&format!(" plays {color}): "))?;
        Some(result_score(result, color))
    });
    Some((
        number,
        played.unwrap_or_else(|| Err(format!("game {number} names no side played"))),
    ))
}

/// The longest book read, in bytes.
const MAX_BOOK: usize = 4 << 20;

/// A book of start positions: one position string a line (as `show` prints them); blank lines
/// and lines starting with `#` are skipped. Every line is checked; the errors name the file and
/// the line.
pub fn read_book(path: &std::path::Path) -> Result<Vec<Position>, String> {
    let name = path.display();
    let bytes = crate::files::read_bounded(path, MAX_BOOK).map_err(|e| format!("{name}: {e}"))?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| format!("{name}: not UTF-8 text ({e})"))?
        .trim_start_matches('\u{feff}');
    let mut book = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match khet_engine::parse_position(line) {
            Ok(p) if p.legal_moves().is_empty() => {
                errors.push(format!("{name}:{}: no legal move", i + 1));
            }
            Ok(p) => book.push(p),
            Err(e) => errors.push(format!("{name}:{}: {e}", i + 1)),
        }
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    if book.is_empty() {
        return Err(format!("{name}: no positions"));
    }
    Ok(book)
}

/// A sequential probability ratio test of "`a` is `elo1` stronger" against "`a` is `elo0`
/// stronger", as fishtest and `OpenBench` judge engine changes: logistic Elo, the game pairs' mean
/// scores as the samples (pentanomial), the normal approximation of the log-likelihood ratio.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    /// The chance of accepting `elo1` when `elo0` holds.
    pub alpha: f64,
    /// The chance of accepting `elo0` when `elo1` holds.
    pub beta: f64,
}

/// What a test says so far.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// `elo1` is accepted: the change gains.
    H1,
    /// `elo0` is accepted: it does not gain that much.
    H0,
    /// Neither bound is crossed yet.
    Continue,
}

/// The expected score of a side `elo` stronger.
fn expected(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

impl Sprt {
    /// The log-likelihood ratio of `elo1` against `elo0` for the pairs' mean scores (each 0,
    /// ¼, ½, ¾ or 1), in the normal approximation: N (s1 − s0)(2m − s0 − s1) / 2σ². Two
    /// imaginary pairs, one at ¼ and one at ¾, join the real ones: a prior that keeps the spread
    /// above zero when every pair so far ended alike (a sweep still decides, a few games later).
    pub fn llr(&self, pairs: &[f64]) -> f64 {
        if pairs.is_empty() {
            return 0.0;
        }
        let samples = pairs.iter().chain(&[0.25, 0.75]);
        let n = pairs.len() as f64 + 2.0;
        let mean = samples.clone().sum::<f64>() / n;
        let var = samples.map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        let (s0, s1) = (expected(self.elo0), expected(self.elo1));
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    /// The bounds: accept `elo0` below the first, `elo1` above the second.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    pub fn verdict(&self, pairs: &[f64]) -> Verdict {
        let llr = self.llr(pairs);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Verdict::H1
        } else if llr <= lower {
            Verdict::H0
        } else {
            Verdict::Continue
        }
    }
}

/// `ELO0,ELO1` or `ELO0 ELO1`.
impl std::str::FromStr for Sprt {
    type Err = String;
    fn from_str(s: &str) -> Result<Sprt, String> {
        let parts: Vec<&str> = s.split([',', ' ']).filter(|p| !p.is_empty()).collect();
        let [e0, e1] = parts[..] else {
            return Err(format!(
                "--sprt takes ELO0,ELO1 (for example 0,10), not '{}'",
                khet_engine::text::quote(s)
            ));
        };
        let num = |t: &str| {
            t.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && v.abs() <= 2000.0)
                .ok_or_else(|| format!("'{}' is not an Elo", khet_engine::text::quote(t)))
        };
        let (elo0, elo1) = (num(e0)?, num(e1)?);
        if elo1 <= elo0 {
            return Err(format!("--sprt needs ELO0 < ELO1, not {elo0} and {elo1}"));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
        })
    }
}

/// The opening of pair `pair`: the setup (cycling) and `plies` seeded random moves that hit
/// nothing, so both sides keep their pieces and the games of different pairs differ.
pub(crate) fn opening(pair: u32, plies: usize) -> Result<(&'static str, Game), String> {
    let setup = SETUPS[pair as usize % 3];
    let start = Setup::builtin(setup).map_err(|e| e.to_string())?.position;
    let mut game = Game::new(start);
    let mut rng = Rng::new(0x0BE7_0000 + u64::from(pair) * 104_729);
    while game.turns().len() < plies {
        let quiet: Vec<_> = game
            .legal_moves()
            .into_iter()
            .filter(|&mv| {
                let mut p = *game.position();
                let hits = p.play_unchecked(mv);
                hits.count() == 0 && !hits.is_game_over()
            })
            .collect();
        let Some(mv) = rng.pick(&quiet) else { break };
        game.play(mv).map_err(|e| e.to_string())?;
    }
    Ok((setup, game))
}

/// Where pair `pair` of a match starts: the setup's name or the book position's string, the
/// game (after the opening's random plies), and the label its progress lines give it.
fn start_of(plan: &MatchPlan, pair: u32) -> Result<(String, Game, String), String> {
    Ok(match &plan.book {
        Some(book) => {
            let i = pair as usize % book.len();
            let p = book[i];
            (p.to_string(), Game::new(p), format!("book {}", i + 1))
        }
        None => {
            let (setup, game) = opening(pair, plan.opening_plies)?;
            let label = if plan.opening_plies > 0 {
                format!("{setup} opening {}", pair + 1)
            } else {
                setup.to_string()
            };
            (setup.to_string(), game, label)
        }
    })
}

/// The colour `a` plays in game `g` (from 0): Silver in a pair's first game, Red in its second.
fn color_of_a(g: u32) -> Color {
    if g.is_multiple_of(2) {
        Color::Silver
    } else {
        Color::Red
    }
}

/// The contenders of a match, ready to play.
struct Players<'a> {
    contenders: [&'a Contender; 2],
    searchers: [Searcher; 2],
    engines: [Option<External>; 2],
}

/// How one game ended, for `a`.
struct Outcome {
    score: f64,
    text: String,
    plies: usize,
    /// A draw in which `a` (0) or `b` (1) was a Pyramid or more ahead, and its cause (an index
    /// in [`CAUSES`]).
    draw_led: Option<(usize, usize)>,
    /// The game as played.
    game: Game,
}

impl Players<'_> {
    /// Plays `game` on, `a` playing `a_color`, to its end or the move limit.
    fn play(
        &mut self,
        setup: &str,
        mut game: Game,
        a_color: Color,
        movetime: Duration,
        seed: u64,
        out: &mut Out<impl Write>,
    ) -> Result<Outcome, Failure> {
        let mut rng = Rng::new(seed);
        self.searchers.iter_mut().for_each(Searcher::clear);
        for engine in self.engines.iter_mut().flatten() {
            engine.new_game()?;
        }
        let mut forfeit: Option<Color> = None;
        while !finished(&game) {
            let mover = game.side_to_move();
            let i = usize::from(mover != a_color);
            let contender = self.contenders[i];
            let mv = match contender {
                Contender::Level { level, settings } => {
                    let time = movetime * settings.time_factor;
                    level.choose(&mut self.searchers[i], &game, time, &mut rng)
                }
                Contender::Engine(_) => {
                    let moves: Vec<String> =
                        game.turns().iter().map(|t| t.mv.to_string()).collect();
                    let engine = self.engines[i].as_mut().ok_or("engine not started")?;
                    let text = engine.choose(setup, &moves, movetime)?;
                    match game.position().parse_move(&text) {
                        Ok(mv) => Some(mv),
                        Err(e) => {
                            // Khet2-AI answers `none` when it sees every move lose.
                            let why = if text == "none" {
                                String::new()
                            } else {
                                format!(" ({e})")
                            };
                            out.now(format_args!(
                                "{} answered '{text}' in a game not over{why}: it resigns",
                                contender.name()
                            ))?;
                            forfeit = Some(mover);
                            break;
                        }
                    }
                }
            };
            let Some(mv) = mv else { break };
            game.play(mv)
                .map_err(|e| format!("{} chose an illegal move: {e}", contender.name()))?;
        }
        if let Some(loser) = forfeit {
            let _ = game.resign(loser);
        }
        let mut draw_led = None;
        let score = match game.result() {
            Some(GameResult::Win { winner, .. }) if winner == a_color => 1.0,
            Some(GameResult::Win { .. }) => 0.0,
            _ => {
                let m = material(game.position());
                let a_lead = m[a_color.index()] - m[a_color.other().index()];
                let cause = draw_cause(&game);
                if a_lead >= LEAD {
                    draw_led = Some((0, cause));
                } else if -a_lead >= LEAD {
                    draw_led = Some((1, cause));
                }
                0.5
            }
        };
        Ok(Outcome {
            score,
            text: match game.result() {
                Some(r) => r.to_string(),
                None => format!("draw {}", CAUSES[draw_cause(&game)]),
            },
            plies: game.turns().len(),
            draw_led,
            game,
        })
    }
}

/// Plays `a` against `b` in pairs of games (one opening from both sides, cycling the setups),
/// one progress line a game, until `plan.games` or the test's verdict; then the summary: W/D/L,
/// score, Elo, the test's result, and the drawn games a side led.
pub fn play_match(
    a: &Contender,
    b: &Contender,
    plan: &MatchPlan,
    out: &mut Out<impl Write>,
) -> Result<(), Failure> {
    let mut tally = Tally::default();
    let mut players = Players {
        contenders: [a, b],
        searchers: [Searcher::new(1 << 18), Searcher::new(1 << 18)],
        engines: [None, None],
    };
    for (i, c) in [a, b].into_iter().enumerate() {
        match c {
            Contender::Engine(cmd) => players.engines[i] = Some(External::start(cmd)?),
            Contender::Level { settings, .. } => settings.apply(&mut players.searchers[i]),
        }
    }
    for &score in &plan.resume {
        tally.add(score);
    }
    say!(out, "{}", plan_line(plan));
    if !plan.resume.is_empty() {
        say!(
            out,
            "resumed after {} games (+{} ={} -{}); drawn-while-ahead counts are this run's only",
            plan.resume.len(),
            tally.wins,
            tally.draws,
            tally.losses
        );
    }
    let mut verdict = match plan.sprt {
        Some(test) if !tally.pairs.is_empty() => test.verdict(&tally.pairs),
        _ => Verdict::Continue,
    };
    let first = plan.resume.len() as u32;
    for g in first..plan.games {
        if verdict != Verdict::Continue {
            break;
        }
        let (setup, game, label) = start_of(plan, g / 2)?;
        let a_color = color_of_a(g);
        let seed = 0x5EED_0000 + u64::from(g) * 7919;
        let start_lead = {
            let m = material(game.position());
            m[0] - m[1]
        };
        let o = players.play(&setup, game, a_color, plan.movetime, seed, out)?;
        if let Some((side, column)) = from_ahead(start_lead, a_color, o.score) {
            tally.from_ahead[side][column] += 1;
        }
        let paired = tally.add(o.score);
        if let Some((side, cause)) = o.draw_led {
            tally.draws_led[cause][side] += 1;
        }
        if let Some(dir) = &plan.records {
            keep_record(dir, g + 1, &setup, &o.game)?;
        }
        out.now(format_args!(
            "game {} ({label}, {} plays {a_color}): {} after {} plies",
            g + 1,
            a.name(),
            o.text,
            o.plies
        ))?;
        if paired && let Some(test) = plan.sprt {
            verdict = test.verdict(&tally.pairs);
            if verdict != Verdict::Continue {
                break;
            }
        }
    }
    let played = tally.results.len();
    let (e, margin) = elo(&tally.results);
    say!(
        out,
        "{} vs {}: +{} ={} -{} over {played} games, score {:.1}%, Elo {e:+.0} ± {margin:.0}",
        a.name(),
        b.name(),
        tally.wins,
        tally.draws,
        tally.losses,
        100.0 * tally.results.iter().sum::<f64>() / played.max(1) as f64
    );
    if let Some(test) = plan.sprt {
        let (pe, pm) = elo(&tally.pairs);
        let (lower, upper) = test.bounds();
        say!(
            out,
            "SPRT [{}, {}] (alpha {}, beta {}): {} after {played} games ({} pairs), LLR {:.2} in [{lower:.2}, {upper:.2}], Elo from the pairs {pe:+.0} ± {pm:.0}",
            test.elo0,
            test.elo1,
            test.alpha,
            test.beta,
            match verdict {
                Verdict::H1 => "H1 accepted (it gains)".to_string(),
                Verdict::H0 => "H0 accepted (it does not gain that much)".to_string(),
                Verdict::Continue => format!("no verdict within {} games", plan.games),
            },
            tally.pairs.len(),
            test.llr(&tally.pairs)
        );
    }
    let led = |side: usize| {
        let by: Vec<String> = CAUSES
            .iter()
            .zip(tally.draws_led)
            .map(|(cause, n)| format!("{} {cause}", n[side]))
            .collect();
        let total: u32 = tally.draws_led.iter().map(|n| n[side]).sum();
        format!("{total} ({})", by.join(", "))
    };
    say!(
        out,
        "drawn while a Pyramid or more ahead: {} by {}, {} by {}",
        led(0),
        a.name(),
        led(1),
        b.name()
    );
    if tally.from_ahead.iter().flatten().any(|&n| n > 0) {
        let record = |side: usize| {
            let [w, d, l] = tally.from_ahead[side];
            format!("won {w}, drew {d}, lost {l}")
        };
        say!(
            out,
            "from a start a Pyramid or more ahead, the side ahead: {} by {}, {} by {}",
            record(0),
            a.name(),
            record(1),
            b.name()
        );
    }
    Ok(())
}

/// Plays one game between two fixed-depth searchers with the given weights, from `setup` after
/// `random_plies` seeded random opening moves; the score of `a` (1, ½ or 0).
fn weighted_game(
    a: Weights,
    b: Weights,
    a_color: Color,
    setup: &Position,
    depth: u32,
    random_plies: usize,
    rng: &mut Rng,
) -> f64 {
    let mut game = Game::new(*setup);
    let mut sa = Searcher::new(1 << 16);
    let mut sb = Searcher::new(1 << 16);
    sa.options.weights = a;
    sb.options.weights = b;
    sa.options.draw_limits = LIMITS;
    sb.options.draw_limits = LIMITS;
    while !finished(&game) {
        let mv = if game.turns().len() < random_plies {
            rng.pick(&game.legal_moves())
        } else {
            let s = if game.side_to_move() == a_color {
                &mut sa
            } else {
                &mut sb
            };
            s.search_game(&game, Limits::depth(depth), |_| {}).best
        };
        let Some(mv) = mv else { break };
        if game.play(mv).is_err() {
            break;
        }
    }
    match game.result() {
        Some(GameResult::Win { winner, .. }) if winner == a_color => 1.0,
        Some(GameResult::Win { .. }) => 0.0,
        _ => 0.5,
    }
}

/// Self-play tuning: each weight at ×0.5 and ×1.5 against the defaults, `games` games each
/// (pairs of colours from the same seeded random opening), fixed `depth`. One line per variant.
pub fn tune(games: u32, depth: u32, out: &mut Out<impl Write>) -> Result<(), Failure> {
    let starts: Vec<Position> = SETUPS
        .iter()
        .map(|n| Setup::builtin(n).map(|s| s.position))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let count = Weights::default().fields_mut().len();
    for field in 0..count {
        for factor in [0.5, 1.5] {
            let mut variant = Weights::default();
            let name = {
                let mut fields = variant.fields_mut();
                let (name, value) = &mut fields[field];
                **value = (f64::from(**value) * factor).round() as i32;
                *name
            };
            let mut results = Vec::new();
            for g in 0..games {
                let mut rng = Rng::new(0xC0FFEE + u64::from(g / 2) * 104_729);
                let color = if g % 2 == 0 {
                    Color::Silver
                } else {
                    Color::Red
                };
                let start = &starts[(g as usize / 2) % 3];
                results.push(weighted_game(
                    variant,
                    Weights::default(),
                    color,
                    start,
                    depth,
                    4,
                    &mut rng,
                ));
            }
            let (e, margin) = elo(&results);
            out.now(format_args!(
                "{name} ×{factor}: score {:.1}% over {games} games, Elo {e:+.0} ± {margin:.0} against the defaults",
                100.0 * results.iter().sum::<f64>() / results.len().max(1) as f64
            ))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_accepts_what_the_pairs_show() {
        let test: Sprt = "0,10".parse().unwrap();
        let (lower, upper) = test.bounds();
        assert!((upper - 2.944).abs() < 0.001 && (lower + 2.944).abs() < 0.001);
        // Fifty pairs won and fifty halved: a score of 75 %, far above both hypotheses.
        let strong: Vec<f64> = (0..100)
            .map(|i| if i % 2 == 0 { 1.0 } else { 0.5 })
            .collect();
        let llr = test.llr(&strong);
        // With the prior's two pairs: 102 samples, mean 76/102, the spread about it.
        let mean: f64 = 76.0 / 102.0;
        let var = (50.0 * (1.0 - mean).powi(2)
            + 50.0 * (0.5 - mean).powi(2)
            + (0.25 - mean).powi(2)
            + (0.75 - mean).powi(2))
            / 102.0;
        let (s0, s1) = (expected(0.0), expected(10.0));
        let want = 102.0 * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var);
        assert!((llr - want).abs() < 1e-9, "{llr} {want}");
        assert_eq!(test.verdict(&strong), Verdict::H1);
        // Even results, spread both ways: evidence for no gain.
        let even: Vec<f64> = (0..2000).map(|i| [0.25, 0.75][i % 2]).collect();
        assert_eq!(test.verdict(&even), Verdict::H0);
        // A few pairs decide nothing; a sweep decides, however alike its pairs.
        assert_eq!(test.verdict(&strong[..4]), Verdict::Continue);
        let sweep: Sprt = "0,200".parse().unwrap();
        assert_eq!(sweep.verdict(&[1.0; 3]), Verdict::Continue);
        assert_eq!(sweep.verdict(&[1.0; 12]), Verdict::H1);
    }

    #[test]
    fn the_test_is_read_from_its_bounds() {
        assert_eq!(
            "-5, 5".parse::<Sprt>().map(|t| (t.elo0, t.elo1)),
            Ok((-5.0, 5.0))
        );
        assert!("10,0".parse::<Sprt>().unwrap_err().contains("ELO0 < ELO1"));
        assert!("0".parse::<Sprt>().unwrap_err().contains("ELO0,ELO1"));
        assert!("0,x".parse::<Sprt>().unwrap_err().contains("not an Elo"));
        assert!("0,NaN".parse::<Sprt>().is_err());
    }

    #[test]
    fn a_book_is_read_line_by_line_and_its_errors_name_the_line() {
        let dir = std::env::temp_dir().join(format!("khet-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let classic = Setup::builtin("classic").unwrap().position;
        let path = dir.join("book.txt");
        std::fs::write(
            &path,
            format!(
                "\u{feff}# won positions\n\n{classic}\n  {}  \n",
                classic.mirrored()
            ),
        )
        .unwrap();
        assert_eq!(read_book(&path), Ok(vec![classic, classic.mirrored()]));
        std::fs::write(
            &path,
            format!("{classic}\nx33a3ka3p22 0\n# end\nnonsense\n"),
        )
        .unwrap();
        let e = read_book(&path).unwrap_err();
        assert!(
            e.contains("book.txt:2: ") && e.contains("book.txt:4: "),
            "{e}"
        );
        std::fs::write(&path, b"\xff\xfe").unwrap();
        assert!(read_book(&path).unwrap_err().contains("not UTF-8"));
        std::fs::write(&path, "# nothing\n").unwrap();
        assert!(read_book(&path).unwrap_err().contains("no positions"));
        assert!(read_book(&dir.join("missing.txt")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_committed_books_hold_won_positions() {
        let books = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/books");
        let first = read_book(&books.join("ahead.txt")).unwrap();
        let second = read_book(&books.join("ahead-2.txt")).unwrap();
        let fortress = read_book(&books.join("fortress.txt")).unwrap();
        assert_eq!((first.len(), second.len(), fortress.len()), (34, 59, 18));
        for p in first.iter().chain(&second).chain(&fortress) {
            let m = material(p);
            assert!((m[0] - m[1]).abs() >= 150, "{p}");
            assert!(!second.contains(p) || !first.contains(p), "{p} in both");
        }
    }

    #[test]
    fn contenders_name_their_threads_and_switches() {
        let c: Contender = "master@2".parse().unwrap();
        assert_eq!(
            c,
            Contender::Level {
                level: Level::Master,
                settings: Settings {
                    options: Options {
                        threads: 2,
                        ..Options::default()
                    },
                    ..Settings::default()
                }
            }
        );
        assert_eq!(c.name(), "Master on 2 threads");
        assert!("master@0".parse::<Contender>().is_err());
        assert!("master-norep@x".parse::<Contender>().is_err());
        assert_eq!(
            "strong-norep".parse::<Contender>().map(|c| c.name()),
            Ok("Strong (no repetitions)".to_string())
        );
        assert_eq!(
            "master-noasp-norep@3"
                .parse::<Contender>()
                .map(|c| c.name()),
            Ok("Master (no repetitions) (no aspiration) on 3 threads".to_string())
        );
        assert_eq!(
            "master-c50-norep@2".parse::<Contender>().map(|c| c.name()),
            Ok("Master (no repetitions) (contempt 50) on 2 threads".to_string())
        );
        assert!("master-c5000".parse::<Contender>().is_err());
        assert_eq!(
            "master-x5-notss@2".parse::<Contender>().map(|c| c.name()),
            Ok("Master (no threat-space search) at 5x the time on 2 threads".to_string())
        );
        for odd in ["master-x0", "master-x101", "master-x", "master-x2.5"] {
            assert!(odd.parse::<Contender>().is_err(), "{odd}");
        }
        let Ok(Contender::Level { settings, .. }) = "master-c0".parse() else {
            panic!("a level");
        };
        let mut searcher = Searcher::new(1024);
        settings.apply(&mut searcher);
        assert_eq!(searcher.options.contempt, 0);
        let Ok(Contender::Level { settings, .. }) = "master-nonull-noasp".parse() else {
            panic!("a level");
        };
        assert!(!settings.options.null_moves && !settings.options.aspiration);
        assert!(settings.options.reductions);
        let mut searcher = Searcher::new(1024);
        settings.apply(&mut searcher);
        assert!(!searcher.options.null_moves);
        Settings::default().apply(&mut searcher);
        assert!(searcher.options.null_moves);
        assert_eq!(searcher.options, Options::default());
        assert!("master-limits".parse::<Contender>().is_err(), "removed");
        assert!(searcher.book.is_some(), "Master plays from the book");
        let contender: Contender = "master-nobook".parse().unwrap();
        assert_eq!(contender.name(), "Master (no book)");
        let Contender::Level { settings, .. } = contender else {
            panic!("a level");
        };
        settings.apply(&mut searcher);
        assert!(searcher.book.is_none());
        let contender: Contender = "master-onelmr".parse().unwrap();
        assert_eq!(contender.name(), "Master (one-ply reductions)");
        let Contender::Level { settings, .. } = contender else {
            panic!("a level");
        };
        assert!(Options::default().graded_reductions, "on by default");
        settings.apply(&mut searcher);
        assert!(!searcher.options.graded_reductions && searcher.options.reductions);
        let contender: Contender = "master-nolmp".parse().unwrap();
        assert_eq!(contender.name(), "Master (no late-move pruning)");
        let Contender::Level { settings, .. } = contender else {
            panic!("a level");
        };
        assert!(Options::default().late_move_pruning, "on by default");
        let mut without = Searcher::default();
        settings.apply(&mut without);
        assert!(!without.options.late_move_pruning && without.options.graded_reductions);
        let contender: Contender = "master-nohist".parse().unwrap();
        assert_eq!(contender.name(), "Master (no history gravity)");
        let Contender::Level { settings, .. } = contender else {
            panic!("a level");
        };
        assert!(Options::default().history_gravity, "on by default");
        let mut without = Searcher::default();
        settings.apply(&mut without);
        assert!(!without.options.history_gravity && without.options.late_move_pruning);
        assert!(
            "master-nosuch"
                .parse::<Contender>()
                .unwrap_err()
                .contains("-nonull")
        );
    }

    #[test]
    fn a_weight_suffix_sets_one_evaluation_weight() {
        let Ok(Contender::Level { settings, .. }) = "master-wcapture_reach=35-c50".parse() else {
            panic!("a level");
        };
        let mut searcher = Searcher::new(1024);
        assert_ne!(
            searcher.options.weights.capture_reach, 35,
            "a value not the default"
        );
        settings.apply(&mut searcher);
        assert_eq!(searcher.options.weights.capture_reach, 35);
        assert_eq!(searcher.options.contempt, 50);
        let mut rest = searcher.options.weights;
        rest.capture_reach = Weights::default().capture_reach;
        assert_eq!(rest, Weights::default(), "the other weights are left");
        // Negative weights, as `texel` may print them, and several weights at once.
        let Ok(Contender::Level { settings, .. }) =
            "master-wcapture_reach=-113-wanubis=16-c20".parse()
        else {
            panic!("a level");
        };
        settings.apply(&mut searcher);
        assert_eq!(searcher.options.weights.capture_reach, -113);
        assert_eq!(searcher.options.weights.anubis, 16);
        assert_eq!(searcher.options.contempt, 20);
        let contender: Contender = "master-wreach=40".parse().unwrap();
        assert!(
            contender.name().contains("(reach 40)"),
            "{}",
            contender.name()
        );
        for (bad, says) in [
            ("master-wnosuch=3", "no weight is called 'nosuch'"),
            ("master-wreach=x", "'x' is not a weight"),
            ("master-wreach=99999", "is not a weight"),
            ("master-wreach=-99999", "is not a weight"),
            ("master-wreach=3-5", "'3-5' is not a weight"),
        ] {
            let err = bad.parse::<Contender>().unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn openings_are_quiet_seeded_and_differ_between_pairs() {
        let (setup, a) = opening(0, 4).unwrap();
        assert_eq!(setup, "classic");
        assert_eq!(a.turns().len(), 4);
        assert!(a.turns().iter().all(|t| t.shot.hits.is_empty()));
        let (_, again) = opening(0, 4).unwrap();
        assert_eq!(a.position(), again.position());
        let (_, other) = opening(3, 4).unwrap();
        assert_ne!(a.position(), other.position());
    }
}
