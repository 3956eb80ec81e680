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

/// A file's module in its crate: its path under `src/` without `.rs`, a `mod.rs` its folder's,
/// `lib.rs` and `main.rs` the crate's root (`""`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.strip_suffix(".rs").unwrap_or(&last);
    if parts.is_empty() && (stem == "lib" || stem == "main") {
        return String::new();
    }
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    parts.join("/")
}

fn parent_of(module: &str) -> String {
    module
        .rsplit_once('/')
        .map_or(String::new(), |(p, _)| p.to_string())
}

fn joined(base: &str, path: &str) -> String {
    match (base.is_empty(), path.is_empty()) {
        (true, _) => path.to_string(),
        (_, true) => base.to_string(),
        _ => format!("{base}/{path}"),
    }
}

/// The paths `text` imports, each as the module it starts from and the names after it:
/// `crate::a::b` from the root, `super::a` from `module`'s parent, `self::a` from `module`.
fn imported_paths(module: &str, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (prefix, base) in [
        ("crate::", String::new()),
        ("super::", parent_of(module)),
        ("self::", module.to_string()),
    ] {
        let mut rest = text;
        while let Some(i) = rest.find(prefix) {
            // `super::super::` and a path's middle (`a::super::`) are rare; a name before the
            // prefix means it is not where the path starts.
            let before = rest[..i].chars().last();
            rest = &rest[i + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let items: Vec<String> = if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                group[..end].split(',').map(str::to_string).collect()
            } else {
                vec![rest.to_string()]
            };
            for item in items {
                let path: Vec<&str> = item
                    .trim_start()
                    .split("::")
                    .map(|s| {
                        let end = s
                            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                            .unwrap_or(s.len());
                        &s[..end]
                    })
                    .take_while(|s| !s.is_empty())
                    .collect();
                found.push(joined(&base, &path.join("/")));
            }
        }
    }
    found
}

/// The module an imported path lands in: the longest start of it that is a module of `modules`.
fn landing(path: &str, modules: &BTreeSet<String>) -> String {
    let mut at = path.to_string();
    loop {
        if modules.contains(&at) {
            return at;
        }
        match at.rsplit_once('/') {
            Some((p, _)) => at = p.to_string(),
            None => return String::new(),
        }
    }
}

/// The circles among the modules of the crate whose sources are in `src`. A module naming its
/// own descendants is composition (a `mod.rs`, `lib.rs` or `main.rs` declares and re-exports
/// them), not an import that can close a circle.
fn module_circles(src: &Path) -> Vec<BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(src, f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = module_of(src, file);
        let text = std::fs::read_to_string(file).expect("a source file");
        for path in imported_paths(&from, &code(&text)) {
            let to = landing(&path, &modules);
            let descendant = from.is_empty() || to.starts_with(&format!("{from}/"));
            if to != from && !descendant {
                graph.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    circles(&graph)
}

#[test]
fn no_two_modules_import_each_other_in_any_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = vec![root.join("src")];
    for entry in std::fs::read_dir(root.join("crates")).expect("crates/ is readable") {
        let src = entry.expect("an entry").path().join("src");
        if src.is_dir() {
            sources.push(src);
        }
    }
    let mut found = Vec::new();
    for src in &sources {
        for circle in module_circles(src) {
            found.push(format!("{}: {circle:?}", src.display()));
        }
    }
    assert!(
        found.is_empty(),
        "modules that import each other (directly or around a circle):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_module_reader_resolves_paths_and_finds_a_circle() {
    assert_eq!(module_of(Path::new("s"), Path::new("s/a/mod.rs")), "a");
    assert_eq!(module_of(Path::new("s"), Path::new("s/a/b.rs")), "a/b");
    assert_eq!(module_of(Path::new("s"), Path::new("s/lib.rs")), "");
    let paths = imported_paths(
        "a/b",
        "use super::c::D;\nuse crate::{e::F, g};\nx::super::h();",
    );
    assert_eq!(paths, ["e/F", "g", "a/c/D"].map(String::from).to_vec());
    let modules: BTreeSet<String> = ["a", "a/c", "e"].map(String::from).into();
    assert_eq!(landing("a/c/D", &modules), "a/c");
    assert_eq!(landing("e/F", &modules), "e");
    assert_eq!(landing("zz/y", &modules), "");
    // Two files that name each other: the circle is found (and one that names its parent only
    // is not one).
    let dir = std::env::temp_dir().join(format!("khet-layout-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("m")).expect("a folder");
    std::fs::write(dir.join("lib.rs"), "mod m;").expect("written");
    std::fs::write(dir.join("m/mod.rs"), "mod p; mod q; pub use p::P;").expect("written");
    std::fs::write(dir.join("m/p.rs"), "use super::q::Q; pub struct P;").expect("written");
    std::fs::write(dir.join("m/q.rs"), "use super::P; pub struct Q;").expect("written");
    assert!(module_circles(&dir).is_empty(), "a child naming its parent");
    std::fs::write(dir.join("m/q.rs"), "use super::p::P; pub struct Q;").expect("written");
    let found = module_circles(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        found,
        vec![["m/p", "m/q"].map(String::from).into()],
        "p and q name each other"
    );
}

/// The longest a source file may be, and a product function (tests aside): past these a reader
/// loses the thread, and a file or function that long usually holds two jobs.
const FILE_LINES: usize = 1000;
const FUNCTION_LINES: usize = 120;

/// Every Rust file of the workspace: each crate's sources, tests, benches and build scripts.
fn workspace_files(root: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![root.join("src"), root.join("tests"), root.join("benches")];
    for entry in std::fs::read_dir(root.join("crates")).expect("crates/ is readable") {
        let krate = entry.expect("an entry").path();
        dirs.extend(["src", "tests", "benches"].map(|d| krate.join(d)));
    }
    let mut files = Vec::new();
    for dir in dirs.iter().filter(|d| d.is_dir()) {
        rust_files(dir, &mut files);
    }
    files
}

/// The functions of `text` longer than `most` lines, with the line each starts on and its
/// length; a file's `#[cfg(test)]` part is tests and is not read. Braces are counted on the code
/// without comments and with character literals and strings blanked, so a `'{'` or a `"}"` does
/// not end a body.
fn long_functions(text: &str, most: usize) -> Vec<(usize, String, usize)> {
    let lines: Vec<String> = text
        .lines()
        .take_while(|l| l.trim() != "#[cfg(test)]")
        .map(|l| blank_literals(l.split("//").next().unwrap_or("")))
        .collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = fn_name(line) else { continue };
        let mut depth = 0i32;
        let mut opened = false;
        for (j, body) in lines.iter().enumerate().skip(i) {
            for c in body.chars() {
                match c {
                    ';' if !opened && depth == 0 => break,
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if !opened && body.trim_end().ends_with(';') {
                break;
            }
            if opened && depth == 0 {
                if j + 1 - i > most {
                    found.push((i + 1, name.clone(), j + 1 - i));
                }
                break;
            }
        }
    }
    found
}

/// The name of the function a line begins, if it begins one.
fn fn_name(line: &str) -> Option<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "fn")?;
    let before_ok = words[..at].iter().all(|w| {
        matches!(
            *w,
            "pub" | "const" | "async" | "unsafe" | "extern" | "\"C\""
        ) || w.starts_with("pub(")
    });
    let name = words.get(at + 1)?;
    let name: String = name
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (before_ok && !name.is_empty()).then_some(name)
}

/// The line with its character literals and strings' contents blanked (a string that runs on
/// to the next line is cut at the line's end: the braces of RON or JSON in tests' texts are not
/// counted, which is all this needs).
fn blank_literals(line: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_string => {
                chars.next();
            }
            '"' => {
                in_string = !in_string;
                out.push('"');
            }
            '\'' if !in_string => {
                // A character literal ('{', '\n'), or a lifetime ('a), which has no closing quote
                // two or three characters on.
                let rest: String = chars.clone().take(3).collect();
                let literal = rest.chars().nth(1) == Some('\'')
                    || (rest.starts_with('\\') && rest.chars().nth(2) == Some('\''));
                if literal {
                    let skip = if rest.starts_with('\\') { 3 } else { 2 };
                    for _ in 0..skip {
                        chars.next();
                    }
                }
                out.push('\'');
            }
            _ if in_string => {}
            c => out.push(c),
        }
    }
    out
}

#[test]
fn no_file_over_1000_lines_and_no_product_function_over_120() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for file in workspace_files(root) {
        let text = std::fs::read_to_string(&file).expect("a source file");
        let rel = file.strip_prefix(root).unwrap_or(&file);
        let lines = text.lines().count();
        if lines > FILE_LINES {
            found.push(format!("{}: {lines} lines", rel.display()));
        }
        let product = !rel.components().any(|c| {
            let c = c.as_os_str();
            c == "tests" || c == "benches"
        });
        if product {
            for (at, name, length) in long_functions(&text, FUNCTION_LINES) {
                found.push(format!(
                    "{}:{at}: fn {name} is {length} lines",
                    rel.display()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "over {FILE_LINES} lines a file, or {FUNCTION_LINES} a product function:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_function_reader_measures_bodies_and_skips_braces_in_literals_and_tests() {
    let text = "pub(crate) fn short() -> char {\n    '{'\n}\n\
                fn long() {\n    let s = \"}}}\";\n    x();\n    y();\n}\n\
                trait T {\n    fn declared(&self);\n}\n\
                #[cfg(test)]\nfn in_tests() {\n    a();\n    b();\n    c();\n}\n";
    assert_eq!(long_functions(text, 3), vec![(4, "long".to_string(), 5)]);
    assert_eq!(long_functions(text, 2).len(), 2, "short is 3 lines");
    assert_eq!(
        fn_name("    pub async fn go<'a>(x: &'a str) {"),
        Some("go".into())
    );
    assert_eq!(fn_name("let f = |x| x; // fn not"), None);
}
