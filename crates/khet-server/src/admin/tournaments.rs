//! The operator's tournaments: `POST /tournaments` with a [`NewTournament`] in JSON creates one
//! (the answer's first line is its code), `POST /tournaments/CODE/start|pause|resume|end`
//! steers one.

use super::refused;
use crate::hub::{Director, Hub};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use khet_protocol::{NewTournament, Refusal, TournamentKind, TournamentView, check_code};

fn answer(view: &TournamentView, what: &str) -> Response {
    format!(
        "{}\ntournament {} ({}) {what}; {} players\n",
        view.code,
        view.name,
        view.kind.name(),
        view.players.len()
    )
    .into_response()
}

fn refusal(r: &crate::messages::Refused) -> Response {
    let status = match r.code {
        Refusal::UnknownGame => StatusCode::NOT_FOUND,
        Refusal::Storage => StatusCode::SERVICE_UNAVAILABLE,
        Refusal::BadGame => StatusCode::BAD_REQUEST,
        _ => StatusCode::CONFLICT,
    };
    refused(status, r.reason.clone())
}

/// `POST /tournaments`: a new tournament; its code on the first line.
pub async fn create(State(hub): State<Hub>, body: String) -> Response {
    let new: NewTournament = match serde_json::from_str(&body) {
        Ok(new) => new,
        Err(e) => return refused(StatusCode::BAD_REQUEST, format!("not a tournament: {e}")),
    };
    let code = match hub.create_tournament(&new, Director::Operator).await {
        Ok(code) => code,
        Err(r) => return refusal(&r),
    };
    match hub.tournament_view(&code).await {
        Ok(view) => answer(&view, "created"),
        Err(r) => refusal(&r),
    }
}

/// `POST /tournaments/CODE/WHAT`: start, pause, resume or end tournament `code`.
pub async fn steer(State(hub): State<Hub>, Path((code, what)): Path<(String, String)>) -> Response {
    let Ok(code) = check_code(&code) else {
        return refused(
            StatusCode::BAD_REQUEST,
            format!("{code} is not a tournament's code"),
        );
    };
    let done = match what.as_str() {
        "start" => hub.start_tournament(&code, Director::Operator).await,
        "pause" => hub.pause_tournament(&code, true).await,
        "resume" => hub.pause_tournament(&code, false).await,
        "end" => hub.end_tournament(&code).await,
        _ => {
            return refused(
                StatusCode::NOT_FOUND,
                format!("{what}: start, pause, resume or end"),
            );
        }
    };
    match done {
        Ok(view) => {
            tracing::info!(tournament = %code, "{what} by the operator");
            answer(&view, &format!("{what}: {}", status_word(&view)))
        }
        Err(r) => refusal(&r),
    }
}

fn status_word(view: &TournamentView) -> String {
    serde_json::to_value(view.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// `khet-server admin tournament …`: the operator's tournament commands.
#[allow(clippy::doc_markdown)] // The doc comments are `--help`'s text, not Markdown.
#[derive(clap::Subcommand)]
pub enum TournamentCommand {
    /// Create a tournament; its code is the answer's first line
    Create {
        /// swiss, round-robin or arena
        #[arg(long)]
        kind: String,
        /// The built-in setup every game starts from (classic, imhotep, dynasty, khet1/…)
        #[arg(long, default_value = "classic")]
        setup: String,
        /// Every game's clock: minutes a side + seconds a move (5+3)
        #[arg(long)]
        clock: khet_protocol::ClockSpec,
        /// A Swiss's rounds
        #[arg(long)]
        rounds: Option<u32>,
        /// An arena's length in minutes
        #[arg(long)]
        minutes: Option<u32>,
        /// A round robin played twice, colours swapped
        #[arg(long)]
        double: bool,
        /// Rated games
        #[arg(long)]
        rated: bool,
        /// Its name (default: its kind and clock)
        #[arg(long)]
        name: Option<String>,
        /// Reached by its code only, not on the list
        #[arg(long)]
        unlisted: bool,
        /// Start by itself this many minutes from now (default: when told to start)
        #[arg(long, value_name = "MINUTES")]
        starts_in: Option<f64>,
    },
    /// Start a tournament now
    Start {
        /// Its code
        code: String,
    },
    /// Hold a tournament: games in play go on, no new pairings
    Pause {
        /// Its code
        code: String,
    },
    /// Let a paused tournament go on
    Resume {
        /// Its code
        code: String,
    },
    /// End a tournament: no new pairings; games in play are played out
    End {
        /// Its code
        code: String,
    },
}

impl TournamentCommand {
    /// The request it makes of the admin socket: method, path and body.
    pub fn request(&self, now_ms: u64) -> Result<(&'static str, String, String), String> {
        let steer = |code: &str, what: &str| {
            Ok(("POST", format!("/tournaments/{code}/{what}"), String::new()))
        };
        match self {
            TournamentCommand::Create {
                kind,
                setup,
                clock,
                rounds,
                minutes,
                double,
                rated,
                name,
                unlisted,
                starts_in,
            } => {
                let kind = match (kind.as_str(), rounds, minutes) {
                    ("swiss", Some(rounds), None) => TournamentKind::Swiss { rounds: *rounds },
                    ("swiss", _, _) => {
                        return Err("a Swiss needs --rounds N (and no --minutes)".into());
                    }
                    ("round-robin", None, None) => TournamentKind::RoundRobin { double: *double },
                    ("round-robin", _, _) => {
                        return Err("a round robin takes neither --rounds nor --minutes".into());
                    }
                    ("arena", None, Some(minutes)) => TournamentKind::Arena { minutes: *minutes },
                    ("arena", _, _) => {
                        return Err("an arena needs --minutes N (and no --rounds)".into());
                    }
                    (other, _, _) => {
                        return Err(format!(
                            "`{other}` is not a kind: swiss, round-robin or arena"
                        ));
                    }
                };
                let starts_ms = match starts_in {
                    Some(m) if m.is_finite() && *m >= 0.0 => Some(now_ms + (m * 60_000.0) as u64),
                    Some(_) => return Err("--starts-in takes minutes from now".into()),
                    None => None,
                };
                let new = NewTournament {
                    name: name
                        .clone()
                        .unwrap_or_else(|| format!("{} {clock}", kind.name())),
                    kind,
                    setup: setup.clone(),
                    clock: *clock,
                    rated: *rated,
                    listed: !unlisted,
                    starts_ms,
                };
                let body = serde_json::to_string(&new).map_err(|e| e.to_string())?;
                Ok(("POST", "/tournaments".to_string(), body))
            }
            TournamentCommand::Start { code } => steer(code, "start"),
            TournamentCommand::Pause { code } => steer(code, "pause"),
            TournamentCommand::Resume { code } => steer(code, "resume"),
            TournamentCommand::End { code } => steer(code, "end"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(subcommand)]
        what: TournamentCommand,
    }

    fn request(args: &[&str]) -> Result<(&'static str, String, String), String> {
        let cli = Cli::try_parse_from(std::iter::once("tournament").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        cli.what.request(1_000)
    }

    #[test]
    fn create_sends_the_tournament_the_operator_described() {
        let (method, path, body) = request(&[
            "create",
            "--kind",
            "swiss",
            "--rounds",
            "5",
            "--clock",
            "10+5",
            "--name",
            "Club night",
        ])
        .unwrap();
        assert_eq!((method, path.as_str()), ("POST", "/tournaments"));
        let new: NewTournament = serde_json::from_str(&body).unwrap();
        assert_eq!(new.kind, TournamentKind::Swiss { rounds: 5 });
        assert_eq!(new.clock, khet_protocol::ClockSpec::minutes(10, 5));
        assert_eq!(
            (new.name.as_str(), new.listed, new.rated),
            ("Club night", true, false)
        );
        let (_, _, body) = request(&[
            "create",
            "--kind",
            "arena",
            "--minutes",
            "45",
            "--clock",
            "3+2",
            "--starts-in",
            "30",
            "--rated",
        ])
        .unwrap();
        let new: NewTournament = serde_json::from_str(&body).unwrap();
        assert_eq!(new.kind, TournamentKind::Arena { minutes: 45 });
        assert_eq!(new.starts_ms, Some(1_000 + 30 * 60_000));
        assert!(new.rated && new.name == "arena 3+2");
        let (_, path, _) = request(&["start", "abcd2345"]).unwrap();
        assert_eq!(path, "/tournaments/abcd2345/start");
    }

    #[test]
    fn a_kind_without_its_length_or_with_another_is_refused_with_the_reason() {
        let refused = |args: &[&str]| request(args).unwrap_err();
        assert!(refused(&["create", "--kind", "swiss", "--clock", "5+3"]).contains("--rounds"));
        assert!(refused(&["create", "--kind", "arena", "--clock", "5+3"]).contains("--minutes"));
        let both = [
            "create",
            "--kind",
            "round-robin",
            "--rounds",
            "3",
            "--clock",
            "5+3",
        ];
        assert!(refused(&both).contains("neither"));
        assert!(
            refused(&["create", "--kind", "knockout", "--clock", "5+3"]).contains("not a kind")
        );
    }
}
