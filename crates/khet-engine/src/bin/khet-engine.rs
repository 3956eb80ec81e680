//! `khet-engine`: the headless engine. Builds without Bevy.
//!
//! ```text
//! khet-engine perft <depth> [--setup NAME | --position STR] [--moves "M ..."] [--rules OPT,...]
//! khet-engine divide <depth> [same options]
//! khet-engine fire [--color silver|red] [same options]
//! khet-engine show [same options]
//! khet-engine bench [--depth D]
//! ```
//! Bad input gets a one-line error naming what is wrong and exit status 2.

use khet_engine::setup::default_setups_dir;
use khet_engine::*;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const USAGE: &str = "\
usage: khet-engine <command> [options]

commands:
  perft <depth>    count move sequences (KHET.md's definition)
  divide <depth>   perft split by first move
  fire             print the laser path and what it hits (--color silver|red, default: side to move)
  show             print the board
  bench            time perft(5) from Classic and the make-and-fire rate (--depth D)
  search           search the position: best move and score (--depth D, --movetime MS)
  bench-search     depth and nodes per second in 5 s from each setup (--movetime MS)
  uci              speak the UCI-like protocol of KHET.md on standard input and output
  match            play two levels against each other from all three setups, both colours
                   (--a LEVEL --b LEVEL --games N --movetime MS); prints W/D/L and Elo;
                   a side may be an external engine: --b 'engine:COMMAND'
  tune             self-play: each evaluation weight at x0.5 and x1.5 against the defaults
                   (--games N --depth D)

options:
  --setup NAME       classic, imhotep, dynasty (Khet 2.0), or a file under setups/
                     (khet1/classic, imhotep-eyes, ...), or a path to a .ron file; default classic
  --position STR     a position string, e.g. 'x33a3ka3p22/.../2P4A1KA13X1 0'
  --moves \"M ...\"    moves to play first, e.g. 'j1- a8+ h2g2'
  --rules OPT,...    rule options: strict-swap (default), permissive-swap, no-moves-draw (default),
                     no-moves-loss
  --setups DIR       where setups live (default: the repository's setups/)";

struct Options {
    command: String,
    depth: Option<u32>,
    setup: Option<String>,
    position: Option<String>,
    moves: Vec<String>,
    rules: Rules,
    color: Option<Color>,
    setups_dir: PathBuf,
    movetime: Option<u64>,
    a: khet_engine::matches::Contender,
    b: khet_engine::matches::Contender,
    games: u32,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut it = args.iter();
    let command = it.next().ok_or("no command given")?.clone();
    let mut o = Options {
        command,
        depth: None,
        setup: None,
        position: None,
        moves: Vec::new(),
        rules: Rules::default(),
        color: None,
        setups_dir: default_setups_dir(),
        movetime: None,
        a: khet_engine::matches::Contender::Level(Level::Master),
        b: khet_engine::matches::Contender::Level(Level::Beginner),
        games: 6,
    };
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--setup" => o.setup = Some(value("--setup")?),
            "--position" => o.position = Some(value("--position")?),
            "--moves" => o
                .moves
                .extend(value("--moves")?.split_whitespace().map(String::from)),
            "--rules" => o.rules = value("--rules")?.parse()?,
            "--setups" => o.setups_dir = PathBuf::from(value("--setups")?),
            "--depth" => o.depth = Some(parse_depth(&value("--depth")?)?),
            "--color" => {
                o.color = Some(match value("--color")?.to_ascii_lowercase().as_str() {
                    "silver" | "0" => Color::Silver,
                    "red" | "1" => Color::Red,
                    other => return Err(format!("--color must be silver or red, not '{other}'")),
                });
            }
            "--movetime" => {
                let v = value("--movetime")?;
                o.movetime = Some(
                    v.parse()
                        .map_err(|_| format!("--movetime takes milliseconds, not '{v}'"))?,
                );
            }
            "--a" => o.a = value("--a")?.parse()?,
            "--b" => o.b = value("--b")?.parse()?,
            "--games" => {
                let v = value("--games")?;
                o.games = v
                    .parse()
                    .map_err(|_| format!("--games takes a whole number, not '{v}'"))?;
            }
            "-h" | "--help" => return Err(String::new()),
            other
                if !other.starts_with('-')
                    && o.depth.is_none()
                    && matches!(o.command.as_str(), "perft" | "divide") =>
            {
                o.depth = Some(parse_depth(other)?);
            }
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    if o.setup.is_some() && o.position.is_some() {
        return Err("give --setup or --position, not both".into());
    }
    Ok(o)
}

fn parse_depth(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(d) if d <= 12 => Ok(d),
        _ => Err(format!(
            "depth must be a whole number from 0 to 12, not '{s}'"
        )),
    }
}

fn start_position(o: &Options) -> Result<Position, String> {
    let mut p = match (&o.position, &o.setup) {
        (Some(text), _) => parse_position(text).map_err(|e| format!("--position: {e}"))?,
        (None, name) => {
            let name = name.as_deref().unwrap_or("classic");
            find_setup(name, &o.setups_dir)
                .map_err(|e| e.to_string().replace('\n', "; "))?
                .position
        }
    };
    p.set_rules(o.rules);
    for (i, m) in o.moves.iter().enumerate() {
        let mv = p
            .parse_move(m)
            .map_err(|e| format!("--moves, move {}: {e}", i + 1))?;
        if p.play_unchecked(mv).is_game_over() && i + 1 < o.moves.len() {
            return Err(format!(
                "--moves, move {}: {m} ends the game; nothing can follow it",
                i + 1
            ));
        }
    }
    Ok(p)
}

fn run(o: &Options) -> Result<(), String> {
    match o.command.as_str() {
        "perft" => {
            let depth = o.depth.ok_or("perft needs a depth, e.g. perft 3")?;
            let p = start_position(o)?;
            let t = Instant::now();
            let n = perft(&p, depth);
            let s = t.elapsed().as_secs_f64();
            println!("perft({depth}) = {n}");
            eprintln!("{s:.3} s, {:.1} M nodes/s", n as f64 / s.max(1e-9) / 1e6);
        }
        "divide" => {
            let depth = o.depth.ok_or("divide needs a depth, e.g. divide 2")?;
            let p = start_position(o)?;
            let mut total = 0;
            for (mv, n) in divide(&p, depth) {
                println!("{mv} {n}");
                total += n;
            }
            println!("total {total}");
        }
        "fire" => {
            let p = start_position(o)?;
            let color = o.color.unwrap_or(p.side_to_move());
            let shot = fire(&p, color);
            println!("{color} fires: {shot}");
            if shot.hits.is_empty() {
                println!("hits nothing");
            }
            for hit in &shot.hits {
                let what = match hit.effect {
                    HitEffect::Removed => "removed",
                    HitEffect::TopRemoved => "loses its top obelisk",
                    HitEffect::PharaohLit => "lit: its owner loses",
                };
                println!("hit {}: {} {what}", hit.square, hit.piece);
            }
        }
        "show" => {
            let p = start_position(o)?;
            println!("{p}");
            println!("{}", position_to_string(&p));
        }
        "bench" => bench(o.depth.unwrap_or(5), &o.setups_dir)?,
        "search" => {
            let p = start_position(o)?;
            let limits = Limits {
                depth: o
                    .depth
                    .or(if o.movetime.is_none() { Some(5) } else { None }),
                time: o.movetime.map(Duration::from_millis),
                nodes: None,
            };
            let r = Searcher::default().search(&p, limits, |r| println!("{r}"));
            println!(
                "bestmove {}",
                r.best.map_or("none".into(), |m| m.to_string())
            );
        }
        "bench-search" => {
            let ms = o.movetime.unwrap_or(5000);
            for name in ["classic", "imhotep", "dynasty"] {
                let p = find_setup(name, &o.setups_dir)
                    .map_err(|e| e.to_string())?
                    .position;
                let r = Searcher::default().search(
                    &p,
                    Limits {
                        time: Some(Duration::from_millis(ms)),
                        ..Limits::default()
                    },
                    |_| {},
                );
                println!(
                    "{name}: depth {} in {:.2} s, {} nodes, {:.0} k nodes/s, best {}",
                    r.depth,
                    r.elapsed.as_secs_f64(),
                    r.nodes,
                    r.nodes as f64 / r.elapsed.as_secs_f64().max(1e-9) / 1e3,
                    r.best.map_or("none".into(), |m| m.to_string())
                );
            }
        }
        "uci" => khet_engine::uci::run(std::io::stdin().lock(), std::io::stdout(), &o.setups_dir),
        "tune" => {
            khet_engine::matches::tune(o.games, o.depth.unwrap_or(3), &o.setups_dir, |line| {
                println!("{line}");
            })?;
        }
        "match" => {
            let report = khet_engine::matches::play_match(
                o.a.clone(),
                o.b.clone(),
                o.games,
                Duration::from_millis(o.movetime.unwrap_or(100)),
                &o.setups_dir,
                |line| println!("{line}"),
            )?;
            println!("{report}");
        }
        other => return Err(format!("unknown command '{other}'")),
    }
    Ok(())
}

/// Times perft from Classic and the make-and-fire loop of the search (copy the position, make a
/// move, trace the beam, remove what it hit) over the positions of a fixed set of random games.
fn bench(depth: u32, dir: &std::path::Path) -> Result<(), String> {
    let classic = find_setup("classic", dir)
        .map_err(|e| e.to_string())?
        .position;
    let t = Instant::now();
    let n = perft(&classic, depth);
    let s = t.elapsed().as_secs_f64();
    println!(
        "perft({depth}) from Classic = {n} in {s:.2} s ({:.1} M nodes/s)",
        n as f64 / s / 1e6
    );

    // Positions from deterministic pseudo-random games from the three setups.
    let mut positions = Vec::new();
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    for name in ["classic", "imhotep", "dynasty"] {
        let start = find_setup(name, dir).map_err(|e| e.to_string())?.position;
        for _ in 0..20 {
            let mut p = start;
            for _ in 0..40 {
                positions.push(p);
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                if p.play_unchecked(moves[(seed % moves.len() as u64) as usize])
                    .is_game_over()
                {
                    break;
                }
            }
        }
    }
    let lists: Vec<(Position, Vec<Move>)> =
        positions.iter().map(|p| (*p, p.legal_moves())).collect();
    let mut made = 0u64;
    let mut checksum = 0u64;
    let t = Instant::now();
    while t.elapsed().as_secs_f64() < 2.0 {
        for (p, moves) in &lists {
            for &m in moves {
                let mut q = *p;
                let hits = q.play_unchecked(m);
                checksum = checksum.wrapping_add(q.arrangement_hash() ^ hits.squares as u64);
                made += 1;
            }
        }
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "make-and-fire: {made} in {s:.2} s = {:.1} M/s over {} positions (checksum {:x})",
        made as f64 / s / 1e6,
        lists.len(),
        checksum & 0xFFFF
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse_args(&args) {
        Ok(o) => o,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}\n(khet-engine --help for usage)");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
