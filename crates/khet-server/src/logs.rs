//! The server's log: lines on standard error through `tracing`, with levels, as text for a
//! terminal or JSON for a log collector (`--log-format`). What is worth an operator's eye is at
//! `info` (a game created, ended or taken up; the server starting and stopping), what went
//! wrong at `warn` and `error`. No secret is ever logged: identities and seats' secrets are not
//! passed to the log, only games' codes and players' names.

use tracing_subscriber::EnvFilter;

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One line of text each, for a terminal or journald.
    Text,
    /// One JSON object each, for a log collector.
    Json,
}

/// Sends the log to standard error from now on: `level` is `error`, `warn`, `info`, `debug` or
/// `trace`, or a filter in `RUST_LOG`'s syntax (`khet_server=debug`).
pub fn init(format: LogFormat, level: &str) -> Result<(), String> {
    let filter = EnvFilter::try_new(level).map_err(|e| format!("--log-level {level}: {e}"))?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false);
    let installed = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
    installed.map_err(|e| format!("logging: {e}"))
}

/// How the log names game `code`: by its code if it is `listed`; otherwise by a tag made from
/// it with a key drawn at each start. An unlisted game's code is its secret (whoever has it may
/// join), and a log may go to a collector others read; the tag still tells one game's lines
/// from another's within a run (`khet-server admin games` shows the codes to the operator).
pub fn game(code: &str, listed: bool) -> String {
    if listed {
        return code.to_string();
    }
    static KEY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let key = KEY.get_or_init(|| crate::secret::new_secret().unwrap_or_default());
    let hash = crate::secret::hash(&format!("{key}{code}"));
    format!("unlisted-{}", &hash[..10])
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_unlisted_game_is_named_by_a_tag_that_does_not_show_its_code() {
        assert_eq!(super::game("ABCDEFGH", true), "ABCDEFGH");
        let tag = super::game("ABCDEFGH", false);
        assert!(
            !tag.contains("ABCDEFGH") && tag.starts_with("unlisted-"),
            "{tag}"
        );
        assert_eq!(tag, super::game("ABCDEFGH", false), "the same within a run");
        assert_ne!(tag, super::game("ABCDEFGJ", false));
    }
}
