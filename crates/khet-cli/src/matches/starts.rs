//! Where a match's games start: the setups after seeded random plies, or a book of positions.

use super::plan::MatchPlan;
use khet_engine::{Color, Game, Position, Rng, Setup};

/// The Khet 2.0 setups a match cycles through.
pub(super) const SETUPS: [&str; 3] = ["classic", "imhotep", "dynasty"];

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
pub(super) fn start_of(plan: &MatchPlan, pair: u32) -> Result<(String, Game, String), String> {
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
pub(super) fn color_of_a(g: u32) -> Color {
    if g.is_multiple_of(2) {
        Color::Silver
    } else {
        Color::Red
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use khet_engine::eval::material;

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
