//! What `scripts/smoke-web`'s page does in Chromium, natively, printed the same way: the script
//! compares the two line by line, and the times of `bench` for the page's speed against native.
//!
//! `cargo run --release -p khet-web --example smoke` prints the smoke lines;
//! `… -- bench REPEATS START DEPTH [START DEPTH …]` searches each start (a setup's name or a
//! position string, as `new KhetGame` takes it) to DEPTH, REPEATS times; `… -- levels` prints
//! each level's name and its time a move in milliseconds, weakest first (what the page is timed
//! against).

use khet_web::KhetGame;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("levels") {
        for level in khet_engine::Level::ALL {
            println!("{} {}", level.name(), level.budget().as_millis());
        }
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("bench") {
        let repeats: usize = args
            .get(1)
            .and_then(|r| r.parse().ok())
            .ok_or("bench REPEATS START DEPTH …")?;
        for job in args[2..].chunks(2) {
            let [start, depth] = job else {
                return Err("each START needs its DEPTH".into());
            };
            let depth: u32 = depth.parse().map_err(|_| format!("depth {depth}"))?;
            let game = KhetGame::new(start)?;
            for _ in 0..repeats {
                println!("bench {start} {}", game.bench_search(depth));
            }
        }
        return Ok(());
    }
    // The page's steps, in its order.
    println!("setups {}", KhetGame::setups());
    let mut g = KhetGame::new("classic")?;
    println!("board {}", g.board());
    println!("moves {}", g.legal_moves());
    let first = g
        .moves_by_square()
        .into_values()
        .next()
        .and_then(|moves| moves.into_iter().next())
        .ok_or("no legal move")?;
    println!("play {}", g.play(&first.text)?);
    let reply = g.computer_move("beginner")?;
    println!("beginner {reply}");
    println!("preview {}", g.preview(&reply)?);
    println!("refused {}", g.play("h2h4").err().unwrap_or_default());
    println!("play {}", g.play(&reply)?);
    println!("saved {}", g.saved());
    let k1 = KhetGame::new("khet1/classic")?;
    println!("khet1 {} {}", k1.board(), k1.legal_moves());
    Ok(())
}
