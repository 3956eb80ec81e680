//! The opening book: moves found by long searches, played at once in the positions they were
//! found for.
//!
//! Why: at a fifth of a second a move, the search reaches five or six plies in the opening, and
//! some traps need eight. In the Imhotep setup, Red's seventh move g3g4 (chosen at 200 ms by the
//! search, its depth-6 iteration unfinished) loses three Pyramids by ply 27 to a plan that a search
//! of 3 s sees; against Khet2-AI, Master as Red there often lost two or three Pyramids by ply 27
//! (the games: `docs/engine-ledger.md`, *Opening book*). A book holds what the long search found,
//! for positions the engine has met: it learns its openings from its games (`khet-engine openings
//! --records DIR` searches the first plies of kept games and writes the book; see
//! `docs/engine.md`).
//!
//! The book is text, one position a line: `POSITION | MOVE | DEPTH | SCORE` (the position
//! string, the move in the protocol's notation, the depth the search completed and its score
//! in centipawns from the mover's side), `#` starting a comment. The engine does no I/O: the
//! book it ships is compiled in ([`Book::builtin`]); [`Book::parse`] reads any other.

use crate::moves::Move;
use crate::position::Position;
use std::collections::HashMap;

/// The book shipped with the engine (made by `khet-engine openings`, see `docs/engine.md`).
const BUILTIN: &str = include_str!("../book/openings.txt");

/// The first lines of a book written by [`Book::to_text`].
const HEADER: &str = "# The opening book (see khet_engine::book), made by `khet-engine openings`.\n\
# POSITION | MOVE | DEPTH | SCORE (centipawns, the mover's side)\n";

/// One position's entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move to play.
    pub mv: Move,
    /// The depth the search that chose it completed.
    pub depth: u32,
    /// Its score, in centipawns from the mover's side.
    pub score: i32,
}

/// Moves by position (its arrangement and side to move).
#[derive(Clone, Debug, Default)]
pub struct Book {
    entries: HashMap<u64, (Position, BookMove)>,
}

/// A line of a book that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookError {
    /// The 1-based line.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

impl std::fmt::Display for BookError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for BookError {}

impl Book {
    /// The book shipped with the engine. A line of it that cannot be read would be a bug the
    /// tests catch; were one to slip through, the book is read without it.
    pub fn builtin() -> Book {
        let (book, _errors) = Book::parse_lenient(BUILTIN);
        book
    }

    /// Reads a book, refusing it at its first bad line.
    pub fn parse(text: &str) -> Result<Book, BookError> {
        let (book, errors) = Book::parse_lenient(text);
        match errors.into_iter().next() {
            Some(e) => Err(e),
            None => Ok(book),
        }
    }

    /// Reads a book, keeping every good line and returning the errors of the others.
    pub fn parse_lenient(text: &str) -> (Book, Vec<BookError>) {
        let mut book = Book::default();
        let mut errors = Vec::new();
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            match parse_line(line) {
                Ok((position, entry)) => book.insert(position, entry),
                Err(reason) => errors.push(BookError {
                    line: i + 1,
                    reason,
                }),
            }
        }
        (book, errors)
    }

    /// Adds or replaces the entry for `position`.
    pub fn insert(&mut self, position: Position, entry: BookMove) {
        self.entries.insert(position.key(), (position, entry));
    }

    /// The entry for `position`, if the book has one whose move is legal there (a key shared
    /// by two positions, or a book made under other rules, gives nothing).
    pub fn probe(&self, position: &Position) -> Option<BookMove> {
        let (stored, entry) = self.entries.get(&position.key())?;
        (stored == position && position.is_legal(entry.mv)).then_some(*entry)
    }

    /// Whether the book has an entry for `position`.
    pub fn contains(&self, position: &Position) -> bool {
        self.entries
            .get(&position.key())
            .is_some_and(|(stored, _)| stored == position)
    }

    /// How many positions it has.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The book as text, one line a position, sorted by position string (so that a book made
    /// again from the same games reads the same).
    pub fn to_text(&self) -> String {
        let mut lines: Vec<String> = self
            .entries
            .values()
            .map(|(p, e)| format!("{p} | {} | {} | {}", e.mv, e.depth, e.score))
            .collect();
        lines.sort();
        let mut text = String::from(HEADER);
        for line in lines {
            text += &line;
            text.push('\n');
        }
        text
    }
}

fn parse_line(line: &str) -> Result<(Position, BookMove), String> {
    let fields: Vec<&str> = line.split('|').map(str::trim).collect();
    let [position, mv, depth, score] = fields[..] else {
        return Err(format!(
            "expected 'POSITION | MOVE | DEPTH | SCORE', found {} field(s)",
            fields.len()
        ));
    };
    let position: Position = position.parse().map_err(|e| format!("position: {e}"))?;
    let mv = position
        .parse_move(mv)
        .map_err(|e| format!("move '{}': {e}", crate::text::quote(mv)))?;
    if !position.is_legal(mv) {
        return Err(format!("move {mv} is not legal in {position}"));
    }
    let depth = depth
        .parse()
        .map_err(|_| format!("depth '{}' is not a number", crate::text::quote(depth)))?;
    let score = score
        .parse()
        .map_err(|_| format!("score '{}' is not a number", crate::text::quote(score)))?;
    Ok((position, BookMove { mv, depth, score }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::Setup;

    fn start(name: &str) -> Position {
        Setup::builtin(name).unwrap().position
    }

    #[test]
    fn a_book_reads_back_what_it_writes_and_answers_only_its_positions() {
        let p = start("classic");
        let mv = p.parse_move("j1-").unwrap();
        let mut book = Book::default();
        book.insert(
            p,
            BookMove {
                mv,
                depth: 9,
                score: -12,
            },
        );
        let text = book.to_text();
        let again = Book::parse(&text).unwrap();
        assert_eq!(again.len(), 1);
        assert_eq!(
            again.probe(&p).map(|e| (e.mv, e.depth, e.score)),
            Some((mv, 9, -12))
        );
        // The same board with the other side to move is another position.
        let mut red = p;
        red.set_side_to_move(crate::Color::Red);
        assert_eq!(again.probe(&red), None);
        assert_eq!(again.probe(&start("imhotep")), None);
    }

    #[test]
    fn a_bad_line_is_reported_with_its_number_and_reason() {
        let p = start("classic");
        let good = format!("{p} | j1- | 9 | 0");
        let cases = [
            (format!("# a book\n\n{good}\n{p} | j1-"), 4, "field"),
            (
                format!("{good}\nnot a position | j1- | 1 | 0"),
                2,
                "position",
            ),
            (format!("{p} | z9z9 | 1 | 0"), 1, "move"),
            // A move that reads but is not legal: Red's Sphinx, with Silver to move.
            (format!("{p} | a8- | 1 | 0"), 1, "a8-"),
            (format!("{p} | j1- | deep | 0"), 1, "depth"),
            (format!("{p} | j1- | 9 | 1e9"), 1, "score"),
        ];
        for (text, line, word) in cases {
            let e = Book::parse(&text).unwrap_err();
            assert_eq!(e.line, line, "{text}");
            assert!(e.reason.contains(word), "{e} for {text}");
            // Leniently, the good lines are kept.
            let (book, errors) = Book::parse_lenient(&text);
            assert_eq!(errors.len(), 1);
            assert_eq!(book.len(), usize::from(text.contains(&good)));
        }
        // A byte-order mark and comments are not entries.
        let with_bom = format!("\u{feff}{good} # searched for 2 s\n");
        assert_eq!(Book::parse(&with_bom).unwrap().len(), 1);
    }

    #[test]
    fn the_shipped_book_knows_the_imhotep_trap() {
        // Red's seventh move in the line that cost Master three Pyramids against Khet2-AI (see
        // the module docs): the 200 ms search played g3g4 here.
        let mut p = start("imhotep");
        let line = "e1d2 f8g7 b4b3 f5f6 c1c2 i5h6 j5j6 e8f8 j6- g6h7 e4+ f6+ e5f5";
        for mv in line.split(' ') {
            p.play(p.parse_move(mv).unwrap());
        }
        let entry = Book::builtin()
            .probe(&p)
            .expect("the position is in the book");
        assert_ne!(entry.mv.to_string(), "g3g4");
        assert!(entry.depth >= 7, "{entry:?}");
    }

    #[test]
    fn the_shipped_book_reads_without_error_and_every_move_is_legal() {
        let (book, errors) = Book::parse_lenient(BUILTIN);
        assert!(errors.is_empty(), "{errors:?}");
        assert!(!book.is_empty());
        for (position, entry) in book.entries.values() {
            assert!(position.is_legal(entry.mv), "{position}: {}", entry.mv);
        }
    }
}
