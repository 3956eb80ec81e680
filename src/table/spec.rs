//! What a new game starts from: the setup, the rules, who plays, casual or tournament, the
//! clock, and the moves already played when a game is taken up where it stood. Who plays and on
//! what terms ([`Player`], [`Mode`], [`TimeControl`]) are the engine's types, shared with the
//! settings and the saved games.

use khet_engine::{Game, Mode, Player, Rules, Setup, TimeControl};

/// What a new game starts from.
#[derive(Clone, Debug)]
pub struct NewGameSpec {
    pub setup: Setup,
    pub rules: Rules,
    pub players: [Player; 2],
    pub mode: Mode,
    pub clock: Option<TimeControl>,
    /// Moves already played from the setup (a resumed game, or "continue from here"), and the
    /// clocks as they stood then.
    pub resume: Option<Resume>,
    /// A tutorial step or a puzzle (`crate::learn`): no autosave, no computer opponent; the
    /// table is then in [`super::OnTable::Lesson`].
    pub lesson: bool,
    /// An online game (`crate::online`): the server decides draws, resignations, take-backs
    /// and the clocks, so the table forwards those and shows what the server says.
    pub online: bool,
}

impl NewGameSpec {
    /// A casual game without clocks from `setup`.
    pub fn casual(setup: Setup, players: [Player; 2]) -> NewGameSpec {
        NewGameSpec {
            setup,
            rules: Rules::default(),
            players,
            mode: Mode::Casual,
            clock: None,
            resume: None,
            lesson: false,
            online: false,
        }
    }
}

impl NewGameSpec {
    /// A casual game taking up `game` where it stands (a saved or pasted game, a replay's
    /// start, "continue from here"); the game's start, side to move included, is its setup.
    pub fn resuming(name: String, game: Game, players: [Player; 2], date: String) -> NewGameSpec {
        let start = *game.start();
        let setup = Setup {
            name,
            edition: start.edition(),
            description: String::new(),
            position: start,
        };
        NewGameSpec {
            rules: start.rules(),
            resume: Some(Resume {
                game,
                remaining: None,
                file: None,
                date,
            }),
            ..NewGameSpec::casual(setup, players)
        }
    }
}

/// A game to take up where it stood.
#[derive(Clone, Debug)]
pub struct Resume {
    pub game: Game,
    /// Each side's time left, if the game had clocks.
    pub remaining: Option<[std::time::Duration; 2]>,
    /// The file it was saved in: autosaves go on there.
    pub file: Option<std::path::PathBuf>,
    /// When it began.
    pub date: String,
}

/// A game from pasted text: the protocol's line (`position <start> moves …`, the word
/// `position` optional) or a position string.
pub fn game_from_text(text: &str, rules: khet_engine::Rules) -> Result<Game, String> {
    let text = text.trim().trim_start_matches('\u{feff}');
    if text.is_empty() {
        return Err("the clipboard is empty".into());
    }
    if text.len() > 64 * 1024 {
        return Err("the text is too long for a game".into());
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let words = match words.first() {
        Some(&"position") => &words[1..],
        _ => &words[..],
    };
    Game::from_protocol(words, rules)
}
