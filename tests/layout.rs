//! The game's layout keeps its promise: one folder per feature (or a leaf file), and no two of
//! them import each other, directly or around a longer circle. The composition roots (`lib.rs`,
//! `main.rs`) may name everything. Read from the sources, so a new import that closes a circle
//! fails here with the circle named.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The unit a file belongs to: its top folder under `src/`, or a top-level file's name.
fn unit(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let first = rel.components().next().expect("a component");
    let name = first.as_os_str().to_string_lossy();
    name.strip_suffix(".rs").unwrap_or(&name).to_string()
}

/// The code without comments (so that a doc link is not an import).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules `text` names through `crate::`: `crate::a::b` names `a`, and
/// `use crate::{a, b::c}` names `a` and `b`.
fn named(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The group's top-level items, up to its closing brace.
            let (mut depth, mut item, mut end) = (0, String::new(), group.len());
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        end = k;
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.insert(ident(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            names.insert(ident(&item));
            rest = &group[end..];
        } else {
            names.insert(ident(rest));
        }
    }
    names.retain(|n| !n.is_empty() && n != "self");
    names
}

/// The circles of `graph` (strongly connected parts of more than one unit).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    let reach = |from: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(u) = todo.pop() {
            for v in graph.get(&u).into_iter().flatten() {
                if seen.insert(v.clone()) {
                    todo.push(v.clone());
                }
            }
        }
        seen
    };
    let mut found: Vec<BTreeSet<String>> = Vec::new();
    for u in graph.keys() {
        let from_u = reach(u);
        if !from_u.contains(u) {
            continue;
        }
        let part: BTreeSet<String> = from_u
            .iter()
            .filter(|v| reach(v).contains(u))
            .cloned()
            .collect();
        if !found.contains(&part) {
            found.push(part);
        }
    }
    found
}

#[test]
fn no_two_features_import_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = unit(&src, file);
        if from == "lib" || from == "main" {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("a source file");
        for to in named(&code(&text)) {
            if to != from && to != "GameSet" && to != "core_plugin" && to != "view_plugin" {
                graph.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    // The reader sees what it should: the table is imported by the replay, not the reverse.
    assert!(graph["replay"].contains("table"), "{graph:?}");
    assert!(!graph["table"].contains("replay"), "{graph:?}");
    let found = circles(&graph);
    assert!(
        found.is_empty(),
        "features that import each other (directly or around a circle): {found:?}"
    );
}

#[test]
fn the_reader_finds_grouped_and_plain_imports_and_circles() {
    let text = "use crate::{a::B, c, d::{e, f}};\nfn x() { crate::g::h(); }";
    let want: BTreeSet<String> = ["a", "c", "d", "g"].map(String::from).into();
    assert_eq!(named(text), want);
    assert!(named(&code("// crate::z::Y in a comment")).is_empty());
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    graph.entry("a".into()).or_default().insert("b".into());
    graph.entry("b".into()).or_default().insert("c".into());
    assert!(circles(&graph).is_empty());
    graph.entry("c".into()).or_default().insert("a".into());
    assert_eq!(circles(&graph).len(), 1);
}
