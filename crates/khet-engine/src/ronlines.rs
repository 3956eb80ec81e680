//! Where things stand in a RON text, found in one pass, so that an error about the 50th piece of a
//! setup or the 300th move of a record names its line without rescanning the text for each.
//!
//! RON's parser gives the line of a syntax error but not of each value it read; this scanner reads
//! the same text as tokens (strings, comments, brackets, field names) and remembers the line of
//! each top-level field and of each string inside a top-level field's list, in order. For a
//! setup, the `i`-th string in `pieces` is the `i`-th piece's square; for a record, the `i`-th
//! string in `moves` is the `i`-th move.

use std::collections::HashMap;

/// The lines of a RON text's top-level fields and of the strings in their values.
#[derive(Debug, Default)]
pub(crate) struct RonLines {
    fields: HashMap<String, usize>,
    strings: HashMap<String, Vec<usize>>,
}

impl RonLines {
    /// Scans `src` once.
    pub(crate) fn scan(src: &str) -> RonLines {
        let mut out = RonLines::default();
        let mut chars = src.chars().peekable();
        let mut line = 1;
        let mut depth = 0usize;
        let mut ident = String::new();
        let mut ident_line = 1;
        let mut last_ident: Option<(String, usize)> = None;
        let mut field: Option<String> = None;
        while let Some(c) = chars.next() {
            if c.is_alphanumeric() || c == '_' {
                if ident.is_empty() {
                    ident_line = line;
                }
                ident.push(c);
                continue;
            }
            if !ident.is_empty() {
                last_ident = Some((std::mem::take(&mut ident), ident_line));
            }
            match c {
                '\n' => line += 1,
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth = depth.saturating_sub(1),
                ':' if depth == 1 => {
                    if let Some((name, at)) = last_ident.take() {
                        out.fields.entry(name.clone()).or_insert(at);
                        field = Some(name);
                    }
                }
                '"' => {
                    let start = line;
                    let mut escaped = false;
                    for s in chars.by_ref() {
                        match s {
                            '\n' => line += 1,
                            '\\' if !escaped => {
                                escaped = true;
                                continue;
                            }
                            '"' if !escaped => break,
                            _ => {}
                        }
                        escaped = false;
                    }
                    if depth >= 2
                        && let Some(f) = &field
                    {
                        out.strings.entry(f.clone()).or_default().push(start);
                    }
                }
                '/' if chars.peek() == Some(&'/') => {
                    for s in chars.by_ref() {
                        if s == '\n' {
                            line += 1;
                            break;
                        }
                    }
                }
                '/' if chars.peek() == Some(&'*') => {
                    chars.next();
                    let mut nested = 1;
                    while nested > 0 {
                        match chars.next() {
                            None => break,
                            Some('\n') => line += 1,
                            Some('*') if chars.peek() == Some(&'/') => {
                                chars.next();
                                nested -= 1;
                            }
                            Some('/') if chars.peek() == Some(&'*') => {
                                chars.next();
                                nested += 1;
                            }
                            Some(_) => {}
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The line of top-level field `name`, if the text has it.
    pub(crate) fn field(&self, name: &str) -> Option<usize> {
        self.fields.get(name).copied()
    }

    /// The line of the `i`-th string inside field `name`'s value; else the field's line; else 1.
    pub(crate) fn string_in(&self, name: &str, i: usize) -> usize {
        self.strings
            .get(name)
            .and_then(|lines| lines.get(i).copied())
            .or_else(|| self.field(name))
            .unwrap_or(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_fields_and_list_strings_past_comments() {
        let src = "Setup(\n  name: \"e1 \\\" x\",\n  // \"a1\" in a comment\n  pieces: [\n    A(\"b2\"), /* \"c3\"\n */ B(\"d4\"),\n  ],\n)";
        let lines = RonLines::scan(src);
        assert_eq!(lines.field("name"), Some(2));
        assert_eq!(lines.field("pieces"), Some(4));
        assert_eq!(lines.string_in("pieces", 0), 5);
        assert_eq!(lines.string_in("pieces", 1), 6);
        assert_eq!(lines.string_in("pieces", 2), 4);
        assert_eq!(lines.string_in("nothing", 0), 1);
    }
}
