//! The names people give and read (a player's, a tournament's): what the server keeps of them,
//! and the invisible characters it refuses in them.

use crate::MAX_NAME_CHARS;

/// A display name as the server keeps it: trimmed, 1 to [`MAX_NAME_CHARS`] characters, no
/// control characters and no invisible formatting ones ([`is_format_char`]).
pub fn check_name(name: &str) -> Result<String, String> {
    check_text(name, "name", MAX_NAME_CHARS)
}

/// A name others read (`what`: a player's, a tournament's), as [`check_name`] checks a
/// player's: trimmed, 1 to `max` characters, none of them control or invisible formatting ones.
pub fn check_text(text: &str, what: &str, max: usize) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(format!("a {what} is needed"));
    }
    if text.chars().count() > max {
        return Err(format!("a {what} has at most {max} characters"));
    }
    if text.chars().any(char::is_control) {
        return Err(format!("a {what} may not have control characters"));
    }
    if let Some(c) = text.chars().find(|&c| is_format_char(c)) {
        return Err(format!(
            "a {what} may not have invisible formatting characters (it has U+{:04X}): they \
             reorder or hide what others read",
            u32::from(c)
        ));
    }
    Ok(text.to_string())
}

/// Unicode's format characters (general category Cf, as of Unicode 15.1) and its line and
/// paragraph separators: invisible, yet they change what surrounds them. In a name, a
/// right-to-left override (U+202E) shows `Ada` as someone else's name reversed, and a zero-width
/// space (U+200B) makes a second `Ada` that looks the same as the first. Listed here, not taken
/// from a crate, so that every client (the browser page's WebAssembly too) agrees with the
/// server without a Unicode table the size of the program.
pub fn is_format_char(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00AD
            | 0x0600..=0x0605
            | 0x061C
            | 0x06DD
            | 0x070F
            | 0x0890..=0x0891
            | 0x08E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x2028..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    )
}
