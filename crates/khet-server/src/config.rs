//! `--config FILE`: the options from a file, as a service is configured (the package's
//! `/etc/khet-server/khet-server.conf`). One `name = value` a line, the name a long option's
//! without its dashes; `#` starts a comment. The file's options go before the command line's,
//! and one given on the command line wins: the file's is left out (and `--data` and
//! `--database`, which exclude each other, count as one).

use crate::Cli;
use clap::{CommandFactory, Parser};
use std::ffi::OsString;
use std::path::Path;

/// At most this much of a configuration file is read: it is a few lines.
const MAX_CONFIG_BYTES: u64 = 64 * 1024;

/// One `name = value` of the file, with its line.
struct Entry {
    name: String,
    value: String,
    line: usize,
}

/// The command line, with the file of `--config` read in; exits as clap does on `--help`,
/// `--version` and a command line it refuses (saying which line of the file, when the refused
/// option came from it).
pub fn parse() -> Result<Cli, String> {
    let given: Vec<OsString> = std::env::args_os().collect();
    let Some(file) = config_file(&given) else {
        return Ok(Cli::parse_from(given));
    };
    let entries = read(Path::new(&file))?;
    let on_command_line = long_names(&given[1..]);
    let mut args = vec![given[0].clone()];
    let mut from_file = Vec::new();
    for entry in &entries {
        let rival = match entry.name.as_str() {
            "data" => Some("database"),
            "database" => Some("data"),
            _ => None,
        };
        let overridden = on_command_line
            .iter()
            .any(|n| n == &entry.name || rival.is_some_and(|r| n == r));
        if !overridden {
            args.push(format!("--{}", entry.name).into());
            args.push(entry.value.clone().into());
            from_file.push(entry);
        }
    }
    args.extend(given[1..].iter().cloned());
    match Cli::try_parse_from(args) {
        Ok(cli) => Ok(cli),
        Err(e) => {
            let _ = e.print();
            let arg = e
                .get(clap::error::ContextKind::InvalidArg)
                .map(ToString::to_string)
                .unwrap_or_default();
            if let Some(entry) = from_file
                .iter()
                .find(|entry| arg.starts_with(&format!("--{} ", entry.name)))
            {
                eprintln!("(from {}:{})", Path::new(&file).display(), entry.line);
            }
            std::process::exit(e.exit_code());
        }
    }
}

/// The value of `--config` on the command line.
fn config_file(args: &[OsString]) -> Option<OsString> {
    let mut it = args.iter().skip(1);
    while let Some(arg) = it.next() {
        let text = arg.to_string_lossy();
        if text == "--" {
            break;
        }
        if text == "--config" {
            return it.next().cloned();
        }
        if let Some(value) = text.strip_prefix("--config=") {
            return Some(value.into());
        }
    }
    None
}

/// The long options named on the command line.
fn long_names(args: &[OsString]) -> Vec<String> {
    args.iter()
        .map(|a| a.to_string_lossy())
        .take_while(|a| a != "--")
        .filter_map(|a| {
            let name = a.strip_prefix("--")?;
            Some(name.split('=').next().unwrap_or(name).to_string())
        })
        .collect()
}

/// The options of `file`, each checked to be one the server has.
fn read(file: &Path) -> Result<Vec<Entry>, String> {
    let at = |line: usize, why: &str| format!("{}:{line}: {why}", file.display());
    let meta = std::fs::metadata(file).map_err(|e| format!("{}: {e}", file.display()))?;
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(at(
            0,
            &format!("{} bytes is too big for a configuration file", meta.len()),
        ));
    }
    let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let text = String::from_utf8(bytes).map_err(|_| at(0, "not UTF-8 text"))?;
    let command = Cli::command();
    let known: Vec<String> = command
        .get_arguments()
        .filter_map(|a| a.get_long().map(str::to_string))
        .filter(|name| !matches!(name.as_str(), "config" | "help" | "version"))
        .collect();
    // An option given once for each of several values (`trusted-proxy`) may have a line each.
    let repeatable: Vec<&str> = command
        .get_arguments()
        .filter(|a| matches!(a.get_action(), clap::ArgAction::Append))
        .filter_map(|a| a.get_long())
        .collect();
    let mut entries: Vec<Entry> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let Some((name, value)) = trimmed.split_once('=') else {
            return Err(at(line, "expected `name = value`"));
        };
        let (name, value) = (name.trim(), value.trim());
        if !known.iter().any(|k| k == name) {
            return Err(at(
                line,
                &format!("`{name}` is not an option (they are: {})", known.join(", ")),
            ));
        }
        if value.is_empty() {
            return Err(at(line, &format!("`{name}` has no value")));
        }
        if let Some(earlier) = entries
            .iter()
            .find(|e| e.name == name && !repeatable.contains(&name))
        {
            return Err(at(
                line,
                &format!("`{name}` is set already, on line {}", earlier.line),
            ));
        }
        entries.push(Entry {
            name: name.to_string(),
            value: value.to_string(),
            line,
        });
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_options_named_on_a_command_line_are_found_with_or_without_a_value() {
        let args: Vec<OsString> = ["--listen=1.2.3.4:5", "--data", "/x", "--", "--lease"]
            .into_iter()
            .map(OsString::from)
            .collect();
        assert_eq!(long_names(&args), ["listen", "data"]);
    }
}
