//! Match logs read back: a stopped match resumed where it stopped, and the games a log shows.

use super::contenders::Contender;
use super::plan::MatchPlan;
use super::starts::{color_of_a, start_of};
use khet_engine::Color;

/// The longest match log `--resume` reads, in bytes.
const MAX_LOG: usize = 16 << 20;

/// The first line of a match's log: what its game lines do not say (the time a move, and how
/// many random plies open each pair or how long the book is), so that `--resume` can refuse a
/// log played another way.
pub(crate) fn plan_line(plan: &MatchPlan) -> String {
    let time = if plan.budgets {
        "each level its own time a move".to_string()
    } else {
        format!("{} ms a move", plan.movetime.as_millis())
    };
    match &plan.book {
        Some(book) if book.len() == 1 => format!("plan: {time}, a book of 1 position"),
        Some(book) => format!("plan: {time}, a book of {} positions", book.len()),
        None => format!("plan: {time}, {} random opening plies", plan.opening_plies),
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
    let mut logs = Vec::new();
    for path in paths {
        logs.push((path.display().to_string(), log_text(path)?));
    }
    let results = read_logs(&logs, a, plan)?;
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

/// The results for `a` of the games logs show (each a name for errors, and its text), read in
/// turn as [`read_resume`] reads files: a last game without its pair's other half is dropped.
pub(crate) fn read_logs(
    logs: &[(String, String)],
    a: &Contender,
    plan: &MatchPlan,
) -> Result<Vec<f64>, String> {
    let mut results = Vec::new();
    for (name, text) in logs {
        // A run resumed from a log ending in half a pair played that pair again.
        results.truncate(results.len() / 2 * 2);
        read_log(name, text, a, plan, &mut results)?;
    }
    results.truncate(results.len() / 2 * 2);
    Ok(results)
}

/// One log of [`read_logs`]: its games' results for `a` pushed after `results`.
fn read_log(
    name: &str,
    text: &str,
    a: &Contender,
    plan: &MatchPlan,
    results: &mut Vec<f64>,
) -> Result<(), String> {
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
