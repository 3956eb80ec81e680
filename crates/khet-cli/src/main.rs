//! `khet-engine`: the engine on the command line. Perft, the laser, the board, search, the
//! UCI-like protocol, matches between levels or engines, tuning, replaying a game record, and
//! the setup editor's fairness batch.
//!
//! Bad input gets one line, `error: …`, and exit status 2; a closed output pipe ends a command
//! quietly; any other write error is one line and exit status 1.

mod bench;
mod commands;
mod files;
mod ladder;
mod learn;
mod matches;
mod online;
mod openings;
mod out;
mod pool;
mod protocol;
mod puzzles;
mod texel;
mod tournament;

use clap::{Args, Parser, Subcommand};
use khet_engine::{Color, Rules};
use out::{Failure, Out, say};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "khet-engine",
    version,
    about = "The Khet engine: perft, the laser, search, the UCI-like protocol and matches",
    after_help = "Setups: classic, imhotep, dynasty (Khet 2.0), khet1/classic, khet1/imhotep, \
                  khet1/dynasty, khet2/imhotep-eyes, khet2/dynasty-eyes are built in; a path \
                  to a .ron file works too."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Where a command starts: a setup or a position string, then some moves, under some rules.
#[derive(Args, Clone, Debug, Default)]
pub struct Start {
    /// A built-in setup (classic, imhotep, dynasty, khet1/classic, …) or a .ron file
    #[arg(long, conflicts_with = "position")]
    pub setup: Option<String>,
    /// A position string, e.g. 'x33a3ka3p22/…/2P4A1KA13X1 0'
    #[arg(long)]
    pub position: Option<String>,
    /// Moves to play first, e.g. 'j1- a8+ h2g2'
    #[arg(long, default_value = "")]
    pub moves: String,
    /// Rule options, comma-separated: strict-swap (default), permissive-swap, no-moves-draw
    /// (default), no-moves-loss
    #[arg(long, default_value = "")]
    pub rules: Rules,
    /// A folder of setup files to look in before the built-in ones
    #[arg(long)]
    pub setups: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Count move sequences (as docs/rules.md defines them)
    Perft {
        /// Plies, 0 to 12
        #[arg(value_parser = clap::value_parser!(u32).range(0..=12))]
        depth: u32,
        #[command(flatten)]
        start: Start,
    },
    /// Perft split by first move
    Divide {
        /// Plies, 0 to 12
        #[arg(value_parser = clap::value_parser!(u32).range(0..=12))]
        depth: u32,
        #[command(flatten)]
        start: Start,
    },
    /// Print the laser's path and what it hits
    Fire {
        /// Whose laser (default: the side to move)
        #[arg(long)]
        color: Option<Color>,
        #[command(flatten)]
        start: Start,
    },
    /// Print the board and its position string
    Show {
        #[command(flatten)]
        start: Start,
    },
    /// Search the position: an info line per depth, then the best move
    Search {
        /// Plies (default 5 when no time is given)
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=60))]
        depth: Option<u32>,
        /// Milliseconds
        #[arg(long)]
        movetime: Option<u64>,
        /// Threads searching at once (Lazy SMP)
        #[arg(long, default_value_t = 1, value_parser = threads)]
        threads: usize,
        /// Reduce late quiet moves by one ply, not more the deeper and later they are (the
        /// search as it was before graded reductions)
        #[arg(long)]
        one_ply_reductions: bool,
        /// Search every late quiet move near the horizon (the search as it was before late-move
        /// pruning)
        #[arg(long)]
        no_late_move_pruning: bool,
        /// Judge positions with the learned evaluation as well, as Grandmaster does
        #[arg(long)]
        learned: bool,
        #[command(flatten)]
        start: Start,
    },
    /// Time perft from Classic and the make-and-fire rate
    Bench {
        /// Perft depth
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=7))]
        depth: u32,
    },
    /// Depth and nodes per second from each setup in a fixed time
    BenchSearch {
        /// Milliseconds per setup
        #[arg(long, default_value_t = 5000)]
        movetime: u64,
        /// Threads searching at once (Lazy SMP)
        #[arg(long, default_value_t = 1, value_parser = threads)]
        threads: usize,
    },
    /// Speak the UCI-like protocol on standard input and output
    Uci {
        /// Rule options until `setoption name Rules` says otherwise
        #[arg(long, default_value = "")]
        rules: Rules,
        /// Threads until `setoption name Threads` says otherwise
        #[arg(long, default_value_t = 1, value_parser = threads)]
        threads: usize,
    },
    /// Play two contenders against each other from the three setups, both colours; a game is
    /// drawn at 200 plies, after 100 plies without a capture, or by repetition
    Match {
        /// A level (one of `khet-engine levels`: novice to grandmaster), with the search's switches -norep,
        /// -nolmr, -onelmr, -nonull, -noasp, -notss, -nobook, -nolmp, -nohist, -cN (contempt),
        /// -wNAME=VALUE (an evaluation weight) or -xN (N times the time a move), and @N for N
        /// threads; or greedy (one ply: a win, else the biggest capture that does not light its
        /// own Pharaoh, else a random move); or engine:COMMAND
        #[arg(long, default_value = "master")]
        a: matches::Contender,
        /// As --a
        #[arg(long, default_value = "beginner")]
        b: matches::Contender,
        /// Number of games
        #[arg(long, default_value_t = 6)]
        games: u32,
        /// Milliseconds per move
        #[arg(long, default_value_t = 100)]
        movetime: u64,
        /// Stop when a sequential probability ratio test of ELO0 against ELO1 (logistic Elo,
        /// alpha = beta = 0.05) decides, --games being the most played: --sprt 0,10
        #[arg(long, allow_hyphen_values = true)]
        sprt: Option<matches::Sprt>,
        /// Seeded random quiet plies before the contenders play (each opening played from both
        /// sides); 4 by default with --sprt, else 0
        #[arg(long)]
        opening_plies: Option<usize>,
        /// A folder to keep each game's record in (game-N.ron; `replay` reads them)
        #[arg(long)]
        records: Option<PathBuf>,
        /// A file of start positions, one position string a line, each played from both sides
        /// instead of the setups (e.g. won positions, to see a side convert them)
        #[arg(long, conflicts_with = "opening_plies")]
        book: Option<PathBuf>,
        /// The log of a stopped run of the same match (its standard output): its games count,
        /// and play goes on from the next pair (a sequential test continues where it stopped).
        /// Given again for each earlier run, in order, when a resumed run was stopped too
        #[arg(long)]
        resume: Vec<PathBuf>,
    },
    /// Measure the computer's levels against each other: each neighbouring pair of rungs (the
    /// greedy player, then the levels weakest first) plays a match, each level with its own
    /// time a move as the game gives it; then a table of each rung's rating (the greedy
    /// player's 0), its step from the rung below with the step's 95% error bar, and its median
    /// time a move
    Ladder {
        /// Games for each step (about 200 bring a 200-Elo step's error bar under ±60); with
        /// --resume, 0 plays none and makes the table from the logs alone
        #[arg(long, default_value_t = 200)]
        games: u32,
        /// Seeded random quiet plies before the rungs play (each opening played from both sides)
        #[arg(long, default_value_t = 4)]
        opening_plies: usize,
        /// The lowest rung measured: greedy (the default) or a level; the steps above add to
        /// its rating as the engine gives it
        #[arg(long, default_value = "greedy", value_parser = rung)]
        from: Rung,
        /// The highest level measured
        #[arg(long, default_value = "master")]
        top: khet_engine::Level,
        /// Ladder logs of earlier runs (in the order played), each step going on where they
        /// stopped; a step they hold in full is read, not played again
        #[arg(long)]
        resume: Vec<PathBuf>,
    },
    /// The computer's levels, weakest first, one a line: the name `match`, `setoption name Level`
    /// and `--level` take, and its rating (Elo above the greedy player, as `ladder` measured it)
    Levels,
    /// Tune the evaluation's weights from self-play positions by Texel's method (prints them)
    Texel {
        /// Self-play games (seeded; the same number gives the same weights)
        #[arg(long, default_value_t = 400)]
        games: u32,
        /// Search depth of the self-play games
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=6))]
        depth: u32,
        /// Games played at once (the weights found are the same for any number)
        #[arg(long, default_value_t = 1, value_parser = threads)]
        threads: usize,
        /// Label the game records in this folder (as `match --records` keeps them) instead of
        /// playing games; may be given more than once
        #[arg(long, conflicts_with_all = ["games", "depth", "threads"])]
        records: Vec<PathBuf>,
        /// Tune only these weights (named as in `eval::Weights`, comma-separated); the others
        /// stay as they are
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
    },
    /// The learned evaluation's data: seeded self-play games at a fixed depth, each quiet
    /// position written with the search's score and the game's result (a line each)
    LearnData {
        /// The first game's number (runs side by side take different ones)
        #[arg(long, default_value_t = 0)]
        from: u32,
        /// Games
        #[arg(long, default_value_t = 100)]
        games: u32,
        /// Search depth of the games
        #[arg(long, default_value_t = 5)]
        depth: u32,
        /// Games played at once
        #[arg(long, default_value_t = 1, value_parser = threads)]
        threads: usize,
    },
    /// Train the learned evaluation from `learn-data`'s lines and write the network
    LearnTrain {
        /// A file of `learn-data`'s lines; may be given more than once
        #[arg(long, required = true)]
        data: Vec<PathBuf>,
        /// A file of other games' lines to judge each epoch by, never trained on (none: every
        /// tenth position of the data); may be given more than once
        #[arg(long)]
        check: Vec<PathBuf>,
        /// Where the network is written
        #[arg(long)]
        to: PathBuf,
        /// Passes over the positions
        #[arg(long, default_value_t = 20)]
        epochs: u32,
        /// The scale of a score's chance of winning, 1 / (1 + 10^(−k·score/400))
        #[arg(long, default_value_t = 0.25)]
        k: f32,
        /// The share of the search's score in the target (the rest is the game's result)
        #[arg(long, default_value_t = 0.75)]
        lambda: f32,
        /// Adam's step
        #[arg(long, default_value_t = 0.001)]
        lr: f32,
        /// Weight decay (AdamW): each step pulls the weights towards 0 by this share of it
        #[arg(long, default_value_t = 0.0)]
        decay: f32,
    },
    /// Make or extend the opening book: search the first plies of kept games (`match
    /// --records`) for long and write each position's move into the book file
    Openings {
        /// A folder of game records; may be given more than once
        #[arg(long, required = true)]
        records: Vec<PathBuf>,
        /// The book file: read first if it exists (its positions are not searched again), and
        /// rewritten as it grows
        #[arg(long, default_value = "crates/khet-engine/book/openings.txt")]
        file: PathBuf,
        /// Take the positions before this many plies of each game
        #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=400))]
        plies: u32,
        /// Milliseconds to search each position
        #[arg(long, default_value_t = 3000, value_parser = clap::value_parser!(u64).range(1..))]
        movetime: u64,
        /// Positions searched at once, one thread each
        #[arg(long, default_value_t = 1, value_parser = threads)]
        jobs: usize,
    },
    /// Match logs taken together: each log's and all their game pairs' score and Elo, and with
    /// --sprt the sequential test's ratio and verdict (runs played side by side or resumed)
    Pool {
        /// The logs `match` wrote
        #[arg(required = true)]
        logs: Vec<PathBuf>,
        /// The test's bounds, as for `match`: --sprt 0,20 (or -10,5 for no loss)
        #[arg(long, allow_hyphen_values = true)]
        sprt: Option<matches::Sprt>,
    },
    /// Self-play: each evaluation weight at x0.5 and x1.5 against the defaults
    Tune {
        /// Games per variant
        #[arg(long, default_value_t = 6)]
        games: u32,
        /// Search depth in plies
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=8))]
        depth: u32,
    },
    /// Replay a game record: every ply and what its shot hit, the final position, the result
    Replay {
        /// A record file (RON)
        file: PathBuf,
        /// Search each position to this many plies and print the engine's move, score
        /// (centipawns, from the mover's side) and depth beside the move played
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=60))]
        depth: Option<u32>,
        /// Search each position for this many milliseconds, as --depth does
        #[arg(long, conflicts_with = "depth", value_parser = clap::value_parser!(u64).range(1..))]
        movetime: Option<u64>,
    },
    /// "Is it fair?": quick games from a setup, Silver's score with a 95 % error bar, perft(1, 2)
    Fairness {
        /// A built-in setup or a .ron file (the same as --setup)
        #[arg(conflicts_with_all = ["setup", "position"])]
        name: Option<String>,
        /// Games to play
        #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        games: u32,
        /// Plies after which a game counts as drawn
        #[arg(long, default_value_t = 150)]
        max_plies: usize,
        #[command(flatten)]
        start: Start,
    },
    /// Play one game through a Khet server (khet-server) and exit: prints `code CODE` first when
    /// it created the game, then the result and the game's code
    Online {
        #[command(flatten)]
        args: OnlineArgs,
    },
    /// "Light the Pharaoh in N" puzzles: mine them from the engine's games, or verify a file
    Puzzles {
        #[command(subcommand)]
        action: PuzzleAction,
    },
}

#[derive(Subcommand)]
enum PuzzleAction {
    /// Play games from each setup of both editions and keep the positions with one winning move
    Mine {
        /// Games per setup, at most
        #[arg(long, default_value_t = 40)]
        games: u32,
        /// Write the puzzles (RON) here instead of printing them
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Check every puzzle of a file: a legal line, a win in exactly N, one winning first move
    Verify {
        /// A puzzle file (RON)
        path: PathBuf,
    },
}

/// What `online` was told: which server, what game to ask it for, and how to play it.
#[derive(Args)]
struct OnlineArgs {
    /// The server's address
    #[arg(long, value_name = "URL", default_value = "ws://127.0.0.1:7878")]
    server: String,
    /// Create a game (and print its code)
    #[arg(long, conflicts_with_all = ["join", "seek"])]
    create: bool,
    /// Join the game with this code
    #[arg(long, value_name = "CODE")]
    join: Option<String>,
    /// Quick pairing: the oldest open game with this clock, or a new one
    #[arg(long, conflicts_with = "join")]
    seek: bool,
    /// Join the tournament with this code and play every game paired in it, until it ends
    #[arg(long, value_name = "CODE", conflicts_with_all = ["create", "join", "seek"])]
    tournament: Option<String>,
    /// The setup of a created game
    #[arg(long, default_value = "classic")]
    setup: String,
    /// The time control, minutes+seconds a move (e.g. 5+3); none by default
    #[arg(long, value_name = "M+S")]
    clock: Option<khet_protocol::ClockSpec>,
    /// The creator's side: silver, red or random
    #[arg(long, default_value = "random")]
    color: khet_protocol::SeatChoice,
    /// A rated game
    #[arg(long)]
    rated: bool,
    /// Show a created game in the lobby
    #[arg(long)]
    listed: bool,
    /// Milliseconds a move (Master)
    #[arg(long, conflicts_with = "level")]
    movetime: Option<u64>,
    /// Play at a level (one of `khet-engine levels`: novice to grandmaster), with the clock's time
    #[arg(long)]
    level: Option<khet_engine::Level>,
    /// The name shown to the opponent
    #[arg(long, default_value = "khet-engine")]
    name: String,
    /// Trust the certificate in this PEM file for a wss:// server, beside the system's
    /// (a server with a certificate it made itself)
    #[arg(long, value_name = "FILE")]
    trust_cert: Option<std::path::PathBuf>,
    /// The file of this engine's identity, made on first use (default: the data folder's
    /// engine-identity)
    #[arg(long)]
    identity: Option<PathBuf>,
}

/// The lowest rung of `ladder`: the greedy player (`None`) or a level.
#[derive(Clone, Copy, Debug)]
struct Rung(Option<khet_engine::Level>);

fn rung(text: &str) -> Result<Rung, String> {
    if text.trim().eq_ignore_ascii_case("greedy") {
        return Ok(Rung(None));
    }
    text.parse()
        .map(|l| Rung(Some(l)))
        .map_err(|e: khet_engine::text::ParseNameError| format!("{e}, or greedy"))
}

/// A thread count: 1 to the search's most.
fn threads(text: &str) -> Result<usize, String> {
    text.parse()
        .ok()
        .filter(|n| (1..=khet_engine::search::MAX_THREADS).contains(n))
        .ok_or_else(|| {
            format!(
                "threads are 1 to {}, not '{}'",
                khet_engine::search::MAX_THREADS,
                khet_engine::text::quote(text)
            )
        })
}

fn run(command: Command, out: &mut Out<impl std::io::Write>) -> Result<(), Failure> {
    match command {
        Command::Perft { depth, start } => commands::perft(&start, depth, out),
        Command::Divide { depth, start } => commands::divide(&start, depth, out),
        Command::Fire { color, start } => commands::fire(&start, color, out),
        Command::Show { start } => commands::show(&start, out),
        Command::Search {
            depth,
            movetime,
            threads,
            one_ply_reductions,
            no_late_move_pruning,
            learned,
            start,
        } => {
            let mut options = search_options(threads, one_ply_reductions, no_late_move_pruning);
            options.learned = learned;
            commands::search(&start, depth, movetime, options, out)
        }
        Command::Bench { depth } => bench::bench(depth, out),
        Command::BenchSearch { movetime, threads } => bench::bench_search(movetime, threads, out),
        Command::Uci { rules, threads } => {
            protocol::run(std::io::stdin().lock(), std::io::stdout(), rules, threads);
            Ok(())
        }
        Command::Match {
            a,
            b,
            games,
            movetime,
            sprt,
            opening_plies,
            records,
            book,
            resume,
        } => {
            let plan = match_plan(
                &a,
                games,
                movetime,
                sprt,
                opening_plies,
                records,
                book,
                &resume,
            )?;
            matches::play_match(&a, &b, &plan, out).map(|_| ())
        }
        Command::Openings {
            records,
            file,
            plies,
            movetime,
            jobs,
        } => openings::run(&openings_plan(records, file, plies, movetime, jobs), out),
        Command::Pool { logs, sprt } => pool::run(&logs, sprt, out),
        Command::Tune { games, depth } => matches::tune(games, depth, out),
        Command::Ladder {
            games,
            opening_plies,
            from,
            top,
            resume,
        } => ladder::run(
            &ladder::Plan {
                games,
                opening_plies,
                from: from.0,
                top,
                resume,
            },
            out,
        ),
        Command::Levels => {
            for level in khet_engine::Level::ALL {
                say!(out, "{} {}", level.name().to_lowercase(), level.rating());
            }
            Ok(())
        }
        Command::Texel {
            games,
            depth,
            threads,
            records,
            only,
        } => {
            let free = texel::free_weights(&only).map_err(Failure::Input)?;
            texel::run(texel_source(games, depth, threads, records), free, out)
        }
        c @ (Command::LearnData { .. } | Command::LearnTrain { .. }) => learn_command(c, out),
        Command::Replay {
            file,
            depth,
            movetime,
        } => commands::replay(&file, depth, movetime, out),
        Command::Fairness {
            name,
            games,
            max_plies,
            mut start,
        } => {
            start.setup = name.or(start.setup);
            commands::fairness(&start, games, max_plies, out)
        }
        Command::Online { args } => online_game(args, out),
        Command::Puzzles {
            action: PuzzleAction::Mine { games, out: file },
        } => puzzles::mine(games, file.as_deref(), out),
        Command::Puzzles {
            action: PuzzleAction::Verify { path },
        } => puzzles::verify(&path, out),
    }
}

/// `learn-data` and `learn-train`.
fn learn_command(command: Command, out: &mut Out<impl std::io::Write>) -> Result<(), Failure> {
    match command {
        Command::LearnData {
            from,
            games,
            depth,
            threads,
        } => learn::data(from, games, depth, threads),
        Command::LearnTrain {
            data,
            check,
            to,
            epochs,
            k,
            lambda,
            lr,
            decay,
        } => learn::train(&data, &check, &to, epochs, k, lambda, (lr, decay), out),
        _ => Ok(()),
    }
}

/// The search's options from `search`'s switches (each names the old behaviour it turns back).
fn search_options(
    threads: usize,
    one_ply_reductions: bool,
    no_late_move_pruning: bool,
) -> khet_engine::search::Options {
    khet_engine::search::Options {
        threads,
        graded_reductions: !one_ply_reductions,
        late_move_pruning: !no_late_move_pruning,
        ..Default::default()
    }
}

/// A match's plan from `match`'s arguments: the opening plies' default, the book read, and the
/// logs of the runs it resumes read against the plan.
fn match_plan(
    a: &matches::Contender,
    games: u32,
    movetime: u64,
    sprt: Option<matches::Sprt>,
    opening_plies: Option<usize>,
    records: Option<PathBuf>,
    book: Option<PathBuf>,
    resume: &[PathBuf],
) -> Result<matches::MatchPlan, Failure> {
    let mut plan = matches::MatchPlan {
        games,
        movetime: std::time::Duration::from_millis(movetime),
        budgets: false,
        opening_plies: opening_plies.unwrap_or(if sprt.is_some() { 4 } else { 0 }),
        sprt,
        records,
        book: book
            .map(|path| matches::read_book(&path))
            .transpose()
            .map_err(Failure::Input)?,
        resume: Vec::new(),
    };
    plan.resume = matches::read_resume(resume, a, &plan).map_err(Failure::Input)?;
    Ok(plan)
}

/// The opening book's plan from `openings`' arguments.
fn openings_plan(
    records: Vec<PathBuf>,
    file: PathBuf,
    plies: u32,
    movetime: u64,
    jobs: usize,
) -> openings::Plan {
    openings::Plan {
        records,
        file,
        plies: plies as usize,
        movetime: std::time::Duration::from_millis(movetime),
        jobs,
    }
}

/// Where Texel tuning takes its positions: the game records given, or else seeded self-play.
fn texel_source(games: u32, depth: u32, threads: usize, records: Vec<PathBuf>) -> texel::Source {
    if records.is_empty() {
        texel::Source::SelfPlay {
            games,
            depth,
            threads,
        }
    } else {
        texel::Source::Records(records)
    }
}

/// Plays `online`: trusts the certificate given, asks the server for the game and plays it.
fn online_game(args: OnlineArgs, out: &mut Out<impl std::io::Write>) -> Result<(), Failure> {
    let OnlineArgs {
        server,
        create,
        join,
        seek,
        tournament,
        setup,
        clock,
        color,
        rated,
        listed,
        movetime,
        level,
        name,
        trust_cert,
        identity,
    } = args;
    if let Some(cert) = trust_cert {
        khet_protocol::client::trust_certificate(&cert)
            .map_err(|e| Failure::Input(e.to_string()))?;
    }
    let online = online::Online {
        server,
        strength: online_strength(level, movetime),
        name,
        identity: identity.unwrap_or_else(online::default_identity),
    };
    match tournament {
        Some(code) => tournament::play(&online, &code, out),
        None => {
            let request = online_request(create, join, seek, setup, clock, color, rated, listed)?;
            online::play(&online, &request, out)
        }
    }
}

/// What `online` asks the server for: a new game, a seat by its code, or quick pairing; exactly
/// one of the three must be asked.
fn online_request(
    create: bool,
    join: Option<String>,
    seek: bool,
    setup: String,
    clock: Option<khet_protocol::ClockSpec>,
    color: khet_protocol::SeatChoice,
    rated: bool,
    listed: bool,
) -> Result<online::Request, Failure> {
    match (create, join, seek) {
        (true, None, false) => Ok(online::Request::Create(khet_protocol::NewGame {
            setup,
            clock,
            color,
            rated,
            listed,
            days_per_move: None,
        })),
        (false, Some(code), false) => Ok(online::Request::Join(code)),
        (false, None, true) => Ok(online::Request::Seek { clock, rated }),
        _ => Err(Failure::Input(
            "say --create, --join CODE, --seek or --tournament CODE".into(),
        )),
    }
}

/// How the engine plays online: at a level, or as Master with a fixed time a move (Master at
/// the clock's pace when neither is given).
fn online_strength(level: Option<khet_engine::Level>, movetime: Option<u64>) -> online::Strength {
    match (level, movetime) {
        (Some(level), _) => online::Strength::Level(level),
        (None, Some(ms)) => online::Strength::MoveTime(std::time::Duration::from_millis(ms)),
        (None, None) => online::Strength::Level(khet_engine::Level::Master),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("bad arguments");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("error: {first} (khet-engine --help for usage)");
            return ExitCode::from(2);
        }
    };
    let mut out = Out::stdout();
    let result = run(cli.command, &mut out).and_then(|()| out.flush());
    match result {
        Ok(()) | Err(Failure::Closed) => ExitCode::SUCCESS,
        Err(Failure::Input(e)) => {
            let _ = out.flush();
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Write(e)) => {
            eprintln!("error: cannot write the output: {e}");
            ExitCode::from(1)
        }
    }
}
