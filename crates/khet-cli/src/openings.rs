//! `openings`: the opening book made from kept games. Every position of the first plies of the
//! records (both sides to move) that the book does not have yet is searched for a long time,
//! and its move, depth and score go into the book file (see `khet_engine::book`). Positions are
//! taken in order of ply, several searched at once, and the file is rewritten whole (a
//! temporary file renamed) after each round, so a stopped run keeps what it found and a run
//! started again goes on from there.

use crate::files::{load_record, read_bounded, record_files, write_atomic};
use crate::out::{Failure, Out, say};
use khet_engine::{Book, BookMove, Limits, Position, Searcher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The book shipped with the engine, read once (a few milliseconds) and shared.
pub fn shipped() -> Arc<Book> {
    static SHIPPED: OnceLock<Arc<Book>> = OnceLock::new();
    SHIPPED.get_or_init(|| Arc::new(Book::builtin())).clone()
}

/// The largest book file read (a book of every position of thousands of games is a few MB).
const MAX_BOOK_BYTES: usize = 64 << 20;

/// What `openings` is asked for.
pub struct Plan {
    /// Folders of game records (`match --records`).
    pub records: Vec<PathBuf>,
    /// The book file, read first when it exists and written as it grows.
    pub file: PathBuf,
    /// Positions before this many plies of each game are taken.
    pub plies: usize,
    /// How long each position is searched.
    pub movetime: Duration,
    /// Positions searched at once, one thread each.
    pub jobs: usize,
}

/// Builds or extends the book; one line a position searched.
pub fn run(plan: &Plan, out: &mut Out<impl Write>) -> Result<(), Failure> {
    let mut book = read_book(&plan.file)?;
    let positions = positions(plan, &book, out)?;
    say!(
        out,
        "{} position(s) in the book, {} to search at {} ms each, {} at once",
        book.len(),
        positions.len(),
        plan.movetime.as_millis(),
        plan.jobs
    );
    for round in positions.chunks(plan.jobs.max(1)) {
        let found: Vec<(Position, Option<BookMove>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = round
                .iter()
                .map(|&p| scope.spawn(move || (p, search(&p, plan.movetime))))
                .collect();
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
        });
        for (p, entry) in found {
            match entry {
                Some(e) => {
                    say!(out, "{p} | {} | {} | {}", e.mv, e.depth, e.score);
                    book.insert(p, e);
                }
                None => say!(out, "{p}: no move (the game is over there)"),
            }
        }
        write_atomic(&plan.file, book.to_text().as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", plan.file.display()))?;
    }
    say!(out, "{} position(s) in {}", book.len(), plan.file.display());
    Ok(())
}

/// The book in `file`, or an empty one when there is no such file; a bad line is an error
/// with the file, line and reason (the book is the project's data, not to be half-read).
fn read_book(file: &Path) -> Result<Book, Failure> {
    let bytes = match read_bounded(file, MAX_BOOK_BYTES) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Book::default()),
        Err(e) => return Err(format!("cannot read {}: {e}", file.display()).into()),
    };
    if bytes.len() > MAX_BOOK_BYTES {
        return Err(format!("{}: larger than {MAX_BOOK_BYTES} bytes", file.display()).into());
    }
    let text =
        String::from_utf8(bytes).map_err(|e| format!("{}: not UTF-8 ({e})", file.display()))?;
    Book::parse(&text).map_err(|e| Failure::Input(format!("{}: {e}", file.display())))
}

/// The positions of the records' first plies that the book lacks, each once, by ply.
fn positions(
    plan: &Plan,
    book: &Book,
    out: &mut Out<impl Write>,
) -> Result<Vec<Position>, Failure> {
    let files = record_files(&plan.records)?;
    let mut by_ply: Vec<Vec<Position>> = vec![Vec::new(); plan.plies];
    let mut seen = std::collections::HashSet::new();
    for path in &files {
        let game = match load_record(path) {
            Ok(game) => game,
            Err(e) => {
                say!(out, "skipped {e}");
                continue;
            }
        };
        let positions = game.positions();
        for (ply, p) in positions.iter().enumerate().take(plan.plies) {
            // The last position of a finished game has no move to find.
            if ply >= game.turns().len() {
                break;
            }
            if !book.contains(p) && seen.insert((p.key(), *p)) {
                by_ply[ply].push(*p);
            }
        }
    }
    Ok(by_ply.into_iter().flatten().collect())
}

/// The move a search of `time` finds from `p`, as a book entry.
fn search(p: &Position, time: Duration) -> Option<BookMove> {
    let mut searcher = Searcher::with_hash_mb(64);
    let r = searcher.search(p, Limits::time(time), |_| {});
    Some(BookMove {
        mv: r.best?,
        depth: r.depth,
        score: r.score,
    })
}
