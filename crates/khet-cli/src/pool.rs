//! `pool`: match logs taken together. A sequential test is often played as runs side by side
//! (one a core, each with its own random openings) and resumed over several sessions, each
//! resumption a log of its own; the test is all their game pairs in one sample. This reads the
//! logs `match` wrote and reports each, then all of them, as `match` reports one run: score,
//! Elo, and with `--sprt` the log-likelihood ratio and verdict.

use crate::matches::{Sprt, Verdict, elo, game_score, log_text};
use crate::out::{Failure, Out, say};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One log's games, as the scores of the contender each game line names first (A).
struct Log {
    name: String,
    /// Each finished pair's mean score (games 2k − 1 and 2k of the log).
    pairs: Vec<f64>,
    /// Every game's score, a last unpaired game included.
    results: Vec<f64>,
}

/// Reads one log: its `game N (…, NAME plays COLOUR): RESULT` lines, in turn.
fn read(path: &Path) -> Result<Log, String> {
    let name = path.display().to_string();
    let text = log_text(path)?;
    let mut numbered = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_start_matches('\u{feff}');
        let Some((number, score)) = game_score(line) else {
            continue;
        };
        let score = score.map_err(|why| format!("{name}:{}: {why}", i + 1))?;
        numbered.push((number, score));
    }
    let mut pairs = Vec::new();
    for w in numbered.windows(2) {
        let ((n, s), (m, t)) = (w[0], w[1]);
        // A run resumed after a half pair played that pair again: pair odd games with the next.
        if n % 2 == 1 && m == n + 1 {
            pairs.push((s + t) / 2.0);
        }
    }
    if numbered.is_empty() {
        return Err(format!("{name}: no game lines ('game N (…): RESULT')"));
    }
    Ok(Log {
        name,
        pairs,
        results: numbered.into_iter().map(|(_, s)| s).collect(),
    })
}

/// The line `pool` prints for some games: how many, the results, the score, Elo and (with a
/// test) its ratio and verdict.
fn summary(results: &[f64], pairs: &[f64], sprt: Option<Sprt>) -> String {
    let count = |v: f64| results.iter().filter(|&&r| r == v).count();
    let played = results.len();
    let score = 100.0 * results.iter().sum::<f64>() / played.max(1) as f64;
    let (pe, pm) = elo(pairs);
    // No "-0" for a level score.
    let pe = pe + 0.0;
    let mut line = format!(
        "{played} games ({} pairs): +{} ={} -{}, score {score:.1}%, Elo from the pairs {pe:+.0} ± {pm:.0}",
        pairs.len(),
        count(1.0),
        count(0.5),
        count(0.0),
    );
    if let Some(test) = sprt {
        let (lower, upper) = test.bounds();
        let verdict = match test.verdict(pairs) {
            Verdict::H1 => "H1 accepted (it gains)",
            Verdict::H0 => "H0 accepted (it does not gain that much)",
            Verdict::Continue => "no verdict",
        };
        line += &format!(
            "; SPRT [{}, {}]: LLR {:.2} in [{lower:.2}, {upper:.2}], {verdict}",
            test.elo0,
            test.elo1,
            test.llr(pairs)
        );
    }
    line
}

/// Reports each log, then all of them together.
pub fn run(logs: &[PathBuf], sprt: Option<Sprt>, out: &mut Out<impl Write>) -> Result<(), Failure> {
    let logs = logs
        .iter()
        .map(|p| read(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Failure::Input)?;
    for log in &logs {
        say!(
            out,
            "{}: {}",
            log.name,
            summary(&log.results, &log.pairs, sprt)
        );
    }
    let results: Vec<f64> = logs
        .iter()
        .flat_map(|l| l.results.iter().copied())
        .collect();
    let pairs: Vec<f64> = logs.iter().flat_map(|l| l.pairs.iter().copied()).collect();
    say!(
        out,
        "all {} logs: {}",
        logs.len(),
        summary(&results, &pairs, sprt)
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(dir: &Path, name: &str, text: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn pools_the_pairs_of_every_log_and_refuses_what_is_no_log() {
        let dir = std::env::temp_dir().join(format!("khet-pool-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = log(
            &dir,
            "a.log",
            b"plan: 100 ms a move, 4 random opening plies\n\
              game 1 (classic opening 1, Master plays Silver): Silver wins: the Red Pharaoh was lit after 90 plies\n\
              game 2 (classic opening 1, Master plays Red): draw at the move limit after 200 plies\n\
              game 3 (imhotep opening 2, Master plays Silver): Red wins: the Silver Pharaoh was lit after 80 plies\n",
        );
        // A resumed run, with a byte-order mark, starting at an odd game.
        let b = log(
            &dir,
            "b.log",
            "\u{feff}resumed after 2 games\n\
             game 3 (imhotep opening 2, Master plays Silver): draw without a capture after 120 plies\n\
             game 4 (imhotep opening 2, Master plays Red): Red wins: Silver resigned after 40 plies\n"
                .as_bytes(),
        );
        let mut out = Out::memory();
        let sprt = "0,20".parse().ok();
        assert!(run(&[a, b], sprt, &mut out).is_ok());
        let text = out.text();
        let lines: Vec<&str> = text.lines().collect();
        // a: one pair (1, ½) and a half pair; b: one pair (½, 1).
        assert!(lines[0].contains("3 games (1 pairs): +1 =1 -1"), "{text}");
        assert!(lines[1].contains("2 games (1 pairs): +1 =1 -0"), "{text}");
        assert!(
            lines[2].starts_with("all 2 logs: 5 games (2 pairs): +2 =2 -1, score 60.0%"),
            "{text}"
        );
        assert!(lines[2].contains("SPRT [0, 20]: LLR"), "{text}");
        for (name, bytes) in [
            ("none.log", &b"plan: nothing\n"[..]),
            (
                "bad.log",
                b"game 1 (classic, Master plays Silver): Blue wins\n",
            ),
            ("binary.log", b"\xff\xfe game 1"),
        ] {
            let path = log(&dir, name, bytes);
            match run(&[path], None, &mut Out::memory()) {
                Err(Failure::Input(why)) => assert!(why.contains(name), "{why}"),
                _ => panic!("{name} was read"),
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
