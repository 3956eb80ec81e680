//! One place for each figure: every figure the README quotes (its table under "## Figures") is a
//! row of the current-figures table that opens `docs/performance.md`, `docs/server.md` (its
//! load) or `docs/engine-ledger.md`, with the same value, command and date. Read from the files,
//! so a figure measured again and changed in one place only fails here, with the figure, the
//! README's value and the doc's named.

use std::collections::BTreeMap;
use std::path::Path;

/// The docs that hold figures, each opening them with a current-figures table.
const DOCS: [&str; 3] = [
    "docs/performance.md",
    "docs/server.md",
    "docs/engine-ledger.md",
];

/// The header of a doc's current-figures table.
const HEADER: [&str; 5] = ["figure", "value", "command", "date", "machine"];

/// A markdown table: its header's cells, and each row's cells with the row's line (from 1).
struct Table {
    header: Vec<String>,
    rows: Vec<(usize, Vec<String>)>,
}

/// A row of a doc's current-figures table: where it is, and its cells by column.
struct Current {
    place: String,
    cells: BTreeMap<String, String>,
}

/// The cells of a table's line, trimmed: `| a | b |` gives `a` and `b`. An escaped `\|` stays
/// in its cell.
fn cells(line: &str) -> Vec<String> {
    let line = line.trim();
    let line = line.strip_prefix('|').unwrap_or(line);
    let line = line.strip_suffix('|').unwrap_or(line);
    let (mut out, mut cell, mut escaped) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        if c == '|' && !escaped {
            out.push(cell.trim().to_string());
            cell.clear();
        } else {
            cell.push(c);
        }
        escaped = c == '\\' && !escaped;
    }
    out.push(cell.trim().to_string());
    out
}

fn is_table_line(line: &str) -> bool {
    line.trim_start().starts_with('|')
}

/// The line under a table's header: `|---|:---:|`.
fn is_delimiter(line: &str) -> bool {
    is_table_line(line)
        && cells(line)
            .iter()
            .all(|c| !c.is_empty() && c.chars().all(|ch| ch == '-' || ch == ':'))
}

/// The tables of a markdown text: a header line, the delimiter under it, and the rows up to the
/// first line that is not a table's.
fn tables(text: &str) -> Vec<Table> {
    let mut found = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((_, line)) = lines.next() {
        if !is_table_line(line) || !lines.peek().is_some_and(|&(_, next)| is_delimiter(next)) {
            continue;
        }
        lines.next();
        let mut rows = Vec::new();
        while let Some((i, row)) = lines.next_if(|&(_, l)| is_table_line(l)) {
            rows.push((i + 1, cells(row)));
        }
        found.push(Table {
            header: cells(line),
            rows,
        });
    }
    found
}

/// Whether `text` holds a date written 2026-11-28.
fn has_date(text: &str) -> bool {
    text.as_bytes().windows(10).any(|w| {
        w.iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            _ => b.is_ascii_digit(),
        })
    })
}

/// A README figure without its link to the history: `perft(5) ([more](docs/a.md#b))` is
/// `perft(5)`.
fn figure_name(cell: &str) -> &str {
    match cell.rfind(" ([") {
        Some(end) if cell.ends_with("))") => &cell[..end],
        _ => cell,
    }
}

/// The docs' current figures by name, and what is wrong with their tables: a doc without one, a
/// row of the wrong width, a row without a date, a name given twice.
fn current(docs: &[(&str, &str)]) -> (BTreeMap<String, Current>, Vec<String>) {
    let mut figures: BTreeMap<String, Current> = BTreeMap::new();
    let mut problems = Vec::new();
    for &(path, text) in docs {
        let ours: Vec<Table> = tables(text)
            .into_iter()
            .filter(|t| t.header == HEADER)
            .collect();
        if ours.is_empty() {
            problems.push(format!(
                "{path} has no current-figures table (headed | {} |)",
                HEADER.join(" | ")
            ));
        }
        for (line, row) in ours.into_iter().flat_map(|t| t.rows) {
            let place = format!("{path}:{line}");
            if row.len() != HEADER.len() {
                problems.push(format!(
                    "{place}: {} cells, not {}",
                    row.len(),
                    HEADER.len()
                ));
                continue;
            }
            let cells: BTreeMap<String, String> =
                HEADER.map(String::from).into_iter().zip(row).collect();
            if !has_date(&cells["date"]) {
                problems.push(format!(
                    "{place}: the date `{}` is not written 2026-11-28",
                    cells["date"]
                ));
            }
            let name = cells["figure"].clone();
            if let Some(first) = figures.get(&name) {
                problems.push(format!(
                    "`{name}` is a current figure twice: {} and {place}",
                    first.place
                ));
                continue;
            }
            figures.insert(name, Current { place, cells });
        }
    }
    (figures, problems)
}

/// Where the README's figures and the docs' current ones disagree, one line each.
fn disagreements(readme: &str, docs: &[(&str, &str)]) -> Vec<String> {
    let (figures, mut problems) = current(docs);
    let quoted: Vec<Table> = tables(readme)
        .into_iter()
        .filter(|t| t.header.len() >= 2 && t.header[0] == "figure" && t.header[1] == "value")
        .collect();
    let [table] = quoted.as_slice() else {
        problems.push(format!(
            "README.md has {} tables headed | figure | value | …, not one",
            quoted.len()
        ));
        return problems;
    };
    for (line, row) in &table.rows {
        let place = format!("README.md:{line}");
        if row.len() != table.header.len() {
            problems.push(format!(
                "{place}: {} cells, not {}",
                row.len(),
                table.header.len()
            ));
            continue;
        }
        let name = figure_name(&row[0]);
        let Some(doc) = figures.get(name) else {
            problems.push(format!(
                "{place}: `{name}` is in no doc's current-figures table"
            ));
            continue;
        };
        for (column, said) in table.header.iter().zip(row).skip(1) {
            let Some(there) = doc.cells.get(column) else {
                problems.push(format!(
                    "{place}: the README's column `{column}` is not in {}'s table",
                    doc.place
                ));
                continue;
            };
            if said != there {
                problems.push(format!(
                    "`{name}`: the README's {column} is `{said}`, {}'s is `{there}`",
                    doc.place
                ));
            }
        }
    }
    problems
}

#[test]
fn the_readme_quotes_the_docs_current_figures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |path: &str| {
        std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let readme = read("README.md");
    let texts: Vec<(&str, String)> = DOCS.iter().map(|&path| (path, read(path))).collect();
    let docs: Vec<(&str, &str)> = texts
        .iter()
        .map(|(path, text)| (*path, text.as_str()))
        .collect();
    let problems = disagreements(&readme, &docs);
    assert!(
        problems.is_empty(),
        "the README's figures and the docs' current ones disagree:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_reader_names_a_changed_figure_with_both_values() {
    let doc = "# A doc\n\n| figure | value | command | date | machine |\n|---|---|---|---|---|\n\
               | perft(5) | 6.2 s | `khet-engine bench` | 2026-11-22 | 2 cores |\n";
    let readme = "## Figures\n\n| figure | value | command | date |\n|---|---|---|---|\n\
                  | perft(5) ([more](docs/a.md#b)) | 6.2 s | `khet-engine bench` | 2026-11-22 |\n";
    let docs = [("docs/a.md", doc)];
    let found = disagreements(readme, &docs);
    assert!(found.is_empty(), "{found:?}");

    let found = disagreements(&readme.replace("| 6.2 s", "| 6.0 s"), &docs);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        ["perft(5)", "6.0 s", "6.2 s", "docs/a.md:5"]
            .iter()
            .all(|s| found[0].contains(s)),
        "{found:?}"
    );

    let found = disagreements(&readme.replace("perft(5) (", "perft(6) ("), &docs);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`perft(6)` is in no doc's"), "{found:?}");

    let undated = doc.replace("| 2026-11-22 |", "| late |");
    let found = disagreements(readme, &[("docs/a.md", undated.as_str())]);
    assert!(found.iter().any(|p| p.contains("`late`")), "{found:?}");

    let found = disagreements(readme, &[("docs/a.md", doc), ("docs/b.md", "# No table")]);
    assert!(
        found.iter().any(|p| p.contains("docs/b.md has no")),
        "{found:?}"
    );

    let twice = disagreements(readme, &[("docs/a.md", doc), ("docs/c.md", doc)]);
    assert!(twice.iter().any(|p| p.contains("twice")), "{twice:?}");
}
