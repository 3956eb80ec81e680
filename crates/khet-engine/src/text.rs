//! What every text reader of the crate shares: the error for a word that names nothing, the
//! escaping that keeps a user's text on one line when an error quotes it, and the bounded read
//! that its callers' file readers share.

use std::fmt;

/// At most this many characters of a user's text are quoted in an error.
const QUOTE_MAX: usize = 48;

/// `text` made safe to quote in a one-line message: control characters (newlines, tabs, escape
/// sequences) are written as escapes, and a long text is cut with `…`.
///
/// ```
/// assert_eq!(khet_engine::text::quote("a\nb"), "a\\nb");
/// ```
pub fn quote(text: &str) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == QUOTE_MAX {
            out.push('…');
            break;
        }
        if c.is_control() || c == '\u{feff}' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Bytes from a file as text: at most `max` bytes (a caller reads at most `max + 1`, so a huge
/// file is never read whole), valid UTF-8, a leading byte-order mark dropped. The error is one
/// line; `what` names the kind of file in it ("a setup").
pub fn decode<'a>(bytes: &'a [u8], max: usize, what: &str) -> Result<&'a str, String> {
    if bytes.len() > max {
        return Err(format!("too big for {what} (more than {max} bytes)"));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|e| format!("not UTF-8 text (byte {} is not valid)", e.valid_up_to() + 1))?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(text))
}

/// The character (not byte) number, 1-based, of byte offset `at` in `text`.
pub(crate) fn char_number(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    let at = (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    text[..at].chars().count() + 1
}

/// A word that names none of the values of a type: a colour, a kind of piece, a file, a rank, a
/// direction, a diagonal, a level or a rule option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseNameError {
    /// What was expected, e.g. `"colour"`.
    pub what: &'static str,
    /// The text as given.
    pub text: String,
    /// The accepted words, for the message, e.g. `"silver or red"`.
    pub expected: &'static str,
}

impl ParseNameError {
    pub(crate) fn new(what: &'static str, text: &str, expected: &'static str) -> ParseNameError {
        ParseNameError {
            what,
            text: text.to_string(),
            expected,
        }
    }
}

impl fmt::Display for ParseNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a {} ({})",
            quote(&self.text),
            self.what,
            self.expected
        )
    }
}

impl std::error::Error for ParseNameError {}

/// At most `max + 1` bytes from `source`: enough for a reader of the crate's files (setups,
/// records, books) to see that one is bigger than it takes and refuse it, without reading a huge
/// file whole. The engine opens no files; the game and the command line hand it what they open.
pub fn read_bounded(source: impl std::io::Read, max: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    source.take(max as u64 + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_stay_on_one_line_and_count_characters() {
        assert_eq!(quote("x\r\ny\u{1b}[2J"), "x\\r\\ny\\u{1b}[2J");
        assert_eq!(quote(&"é".repeat(100)).chars().count(), QUOTE_MAX + 1);
        assert_eq!(char_number("ééx", 4), 3);
        assert_eq!(char_number("ééx", 0), 1);
    }
}
