//! Who plays a match: a level of ours with its search's [`Options`] and the settings only
//! matches have, named by suffixes (`master-nonull@2`), the one-ply greedy player (`greedy`), or
//! an external engine (`engine:COMMAND`).

use khet_engine::eval::Weights;
use khet_engine::search::Options;
use khet_engine::{Level, Searcher};

/// One side of a match: a level of ours with its search's settings, the greedy player
/// ([`khet_engine::greedy`], written `greedy`), or an external engine command speaking the
/// protocol (written `engine:COMMAND`, run by `sh -c`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Contender {
    /// A level of ours.
    Level {
        /// The level.
        level: Level,
        /// How its search is set.
        settings: Settings,
    },
    /// The one-ply greedy player ([`khet_engine::greedy_move`]): a stand-in for a person who
    /// has just learned the rules.
    Greedy,
    /// A program speaking the protocol.
    Engine(String),
}

/// How a level of ours plays a match: its search's [`Options`] (which the suffixes of
/// [`Contender`]'s names turn from their defaults, to play a change against the search without
/// it), and the settings only matches have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Its search's options: the suffixes of [`Contender`]'s names, `-cN` (contempt), `-wNAME=VALUE`
    /// (a weight, by its name in `eval::Weights`) and `@N` (threads) set them.
    pub options: Options,
    /// Whether a timed search plays the shipped opening book's move where it has one
    /// (`-nobook` off).
    pub book: bool,
    /// Time odds: it thinks this many times the match's time a move (`-xN`), to see what a
    /// stronger side of the same search would make of the same positions.
    pub time_factor: u32,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            options: Options::default(),
            // The game's Master and the protocol play from the book; a searcher alone does not.
            book: true,
            time_factor: 1,
        }
    }
}

/// Each suffix, what it sets, and how the contender's name says it (in this order: the names
/// in match logs, which `--resume` compares, depend on it).
#[rustfmt::skip]
const SUFFIXES: [(&str, fn(&mut Settings), &str); 10] = [
    ("-norep", |s| s.options.repetitions = false, " (no repetitions)"),
    ("-nolmr", |s| s.options.reductions = false, " (no reductions)"),
    ("-onelmr", |s| s.options.graded_reductions = false, " (one-ply reductions)"),
    ("-nonull", |s| s.options.null_moves = false, " (no null moves)"),
    ("-noasp", |s| s.options.aspiration = false, " (no aspiration)"),
    ("-notss", |s| s.options.threat_space = false, " (no threat-space search)"),
    ("-nobook", |s| s.book = false, " (no book)"),
    ("-nolmp", |s| s.options.late_move_pruning = false, " (no late-move pruning)"),
    ("-nohist", |s| s.options.history_gravity = false, " (no history gravity)"),
    ("-nn", |s| s.options.learned = true, " (learned evaluation)"),
];

impl Settings {
    /// Sets `searcher` so.
    pub(super) fn apply(&self, searcher: &mut Searcher) {
        searcher.options = self.options;
        searcher.book = self.book.then(crate::openings::shipped);
    }

    /// What the name adds to the level's for these settings: the words of each suffix whose
    /// setting they have (each suffix sets a value other than the default).
    fn describe(&self) -> String {
        let mut name = String::new();
        for (_, set, words) in SUFFIXES {
            let mut with = *self;
            set(&mut with);
            if with == *self {
                name += words;
            }
        }
        let options = &self.options;
        if options.contempt != khet_engine::search::DEFAULT_CONTEMPT {
            name += &format!(" (contempt {})", options.contempt);
        }
        let (mut mine, mut default) = (options.weights, Weights::default());
        for ((weight, value), (_, usual)) in mine.fields_mut().into_iter().zip(default.fields_mut())
        {
            if value != usual {
                name += &format!(" ({weight} {value})");
            }
        }
        if self.time_factor != 1 {
            name += &format!(" at {}x the time", self.time_factor);
        }
        if options.threads > 1 {
            name += &format!(" on {} threads", options.threads);
        }
        name
    }
}

impl Contender {
    /// A level of ours as it plays in the game: no switches, one thread.
    pub(crate) fn level(level: Level) -> Contender {
        Contender::Level {
            level,
            settings: Settings::default(),
        }
    }

    pub(crate) fn name(&self) -> String {
        match self {
            Contender::Level { level, settings } => level.name().to_string() + &settings.describe(),
            Contender::Greedy => "Greedy".to_string(),
            Contender::Engine(cmd) => format!("engine '{cmd}'"),
        }
    }
}

/// `master`, with any of the suffixes `-norep` (the search blind to repetitions), `-nolmr`
/// (without late-move reductions), `-onelmr` (late moves reduced by one ply, not graded),
/// `-nonull` (without null moves), `-noasp` (without aspiration windows), `-notss` (without
/// the threat-space search), `-nobook` (without the opening book), `-nolmp` (without late-move
/// pruning), `-nohist` (without history gravity), `-cN` (a contempt of N centipawns),
/// `-wNAME=VALUE`
/// (an evaluation weight, named as in `eval::Weights`, set; it may be negative, and the suffix
/// may be given for several weights),
/// `-xN` (N times the match's time a move), then `@N` (on N threads); or `greedy` (any case);
/// or `engine:COMMAND`.
impl std::str::FromStr for Contender {
    type Err = String;
    fn from_str(s: &str) -> Result<Contender, String> {
        if let Some(cmd) = s.strip_prefix("engine:") {
            return match cmd.trim() {
                "" => Err("engine: needs a command, e.g. engine:'./khet2ai'".into()),
                cmd => Ok(Contender::Engine(cmd.to_string())),
            };
        }
        if s.trim().eq_ignore_ascii_case("greedy") {
            return Ok(Contender::Greedy);
        }
        let mut settings = Settings::default();
        let (s, threads) = match s.split_once('@') {
            Some((name, n)) => (
                name,
                n.parse()
                    .ok()
                    .filter(|n| (1..=khet_engine::search::MAX_THREADS).contains(n))
                    .ok_or_else(|| {
                        format!(
                            "'@{}' is not a thread count (1 to {})",
                            khet_engine::text::quote(n),
                            khet_engine::search::MAX_THREADS
                        )
                    })?,
            ),
            None => (s, 1),
        };
        settings.options.threads = threads;
        let mut name = s;
        'strip: loop {
            for (suffix, set, _) in SUFFIXES {
                if let Some(rest) = name.strip_suffix(suffix) {
                    set(&mut settings);
                    name = rest;
                    continue 'strip;
                }
            }
            if let Some((rest, last)) = name.rsplit_once('-')
                && let Some(Ok(c)) = last.strip_prefix('c').map(str::parse::<i32>)
                && (-1000..=1000).contains(&c)
            {
                settings.options.contempt = c;
                name = rest;
                continue 'strip;
            }
            if let Some((rest, last)) = name.rsplit_once('-')
                && let Some(Ok(x)) = last.strip_prefix('x').map(str::parse::<u32>)
            {
                if !(1..=100).contains(&x) {
                    return Err(format!("'-x{x}' is not a time factor (1 to 100)"));
                }
                settings.time_factor = x;
                name = rest;
                continue 'strip;
            }
            // Split at `-w`, not at the last `-`: a weight may be negative (`-wreach=-30`), as
            // `texel` can print it.
            if let Some((rest, last)) = name.rsplit_once("-w")
                && let Some((weight, value)) = last.split_once('=')
            {
                let value = value
                    .parse::<i32>()
                    .ok()
                    .filter(|v| (-10_000..=10_000).contains(v))
                    .ok_or_else(|| {
                        format!(
                            "'{}' is not a weight (-10000 to 10000)",
                            khet_engine::text::quote(value)
                        )
                    })?;
                let mut fields = settings.options.weights.fields_mut();
                let Some((_, slot)) = fields.iter_mut().find(|(name, _)| *name == weight) else {
                    let names: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
                    return Err(format!(
                        "no weight is called '{}' (the weights: {})",
                        khet_engine::text::quote(weight),
                        names.join(", ")
                    ));
                };
                **slot = value;
                name = rest;
                continue 'strip;
            }
            break;
        }
        if name.trim().eq_ignore_ascii_case("greedy") {
            return Err("greedy has no search, so none of the levels' suffixes".into());
        }
        let level = name.parse().map_err(|e: khet_engine::ParseNameError| {
            format!(
                "{e}, or greedy; add -norep for a search blind to repetitions, -nolmr without reductions, -onelmr with one-ply reductions, -nonull without null moves, -noasp without aspiration windows, -notss without the threat-space search, -nobook without the opening book, -nolmp without late-move pruning, -nohist without history gravity, -cN with a contempt of N centipawns, -wNAME=VALUE with an evaluation weight set, -xN with N times the time a move, @N for N threads"
            )
        })?;
        Ok(Contender::Level { level, settings })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The name and settings of the level of ours that `text` names.
    fn level(text: &str) -> (String, Settings) {
        let contender: Contender = text.parse().unwrap();
        let Contender::Level { settings, .. } = &contender else {
            panic!("{text}: not a level");
        };
        (contender.name(), *settings)
    }

    #[test]
    fn contenders_name_their_threads_and_switches() {
        let c: Contender = "master@2".parse().unwrap();
        assert_eq!(
            c,
            Contender::Level {
                level: Level::Master,
                settings: Settings {
                    options: Options {
                        threads: 2,
                        ..Options::default()
                    },
                    ..Settings::default()
                }
            }
        );
        assert_eq!(c.name(), "Master on 2 threads");
        assert!("master@0".parse::<Contender>().is_err());
        assert!("master-norep@x".parse::<Contender>().is_err());
        assert_eq!(
            "strong-norep".parse::<Contender>().map(|c| c.name()),
            Ok("Strong (no repetitions)".to_string())
        );
        assert_eq!(
            "master-noasp-norep@3"
                .parse::<Contender>()
                .map(|c| c.name()),
            Ok("Master (no repetitions) (no aspiration) on 3 threads".to_string())
        );
        assert_eq!(
            "master-c50-norep@2".parse::<Contender>().map(|c| c.name()),
            Ok("Master (no repetitions) (contempt 50) on 2 threads".to_string())
        );
        assert!("master-c5000".parse::<Contender>().is_err());
        assert_eq!(
            "master-x5-notss@2".parse::<Contender>().map(|c| c.name()),
            Ok("Master (no threat-space search) at 5x the time on 2 threads".to_string())
        );
        for odd in ["master-x0", "master-x101", "master-x", "master-x2.5"] {
            assert!(odd.parse::<Contender>().is_err(), "{odd}");
        }
        let (_, settings) = level("master-c0");
        let mut searcher = Searcher::new(1024);
        settings.apply(&mut searcher);
        assert_eq!(searcher.options.contempt, 0);
        let (_, settings) = level("master-nonull-noasp");
        assert!(!settings.options.null_moves && !settings.options.aspiration);
        assert!(settings.options.reductions);
        settings.apply(&mut searcher);
        assert!(!searcher.options.null_moves);
        Settings::default().apply(&mut searcher);
        assert_eq!(searcher.options, Options::default());
        assert!(searcher.book.is_some(), "Master plays from the book");
        assert!("master-limits".parse::<Contender>().is_err(), "removed");
        let on = Options::default();
        assert!(on.graded_reductions && on.late_move_pruning && on.history_gravity);
        // Each suffix: the name it gives, and what it sets in a searcher (the rest as before).
        let suffixes: [(&str, &str, fn(&Searcher) -> bool); 4] = [
            ("master-nobook", "Master (no book)", |s| s.book.is_none()),
            ("master-onelmr", "Master (one-ply reductions)", |s| {
                !s.options.graded_reductions && s.options.reductions
            }),
            ("master-nolmp", "Master (no late-move pruning)", |s| {
                !s.options.late_move_pruning && s.options.graded_reductions
            }),
            ("master-nohist", "Master (no history gravity)", |s| {
                !s.options.history_gravity && s.options.late_move_pruning
            }),
        ];
        for (text, name, set) in suffixes {
            let (named, settings) = level(text);
            assert_eq!(named, name);
            let mut searcher = Searcher::default();
            settings.apply(&mut searcher);
            assert!(set(&searcher), "{text}");
        }
        assert!(
            "master-nosuch"
                .parse::<Contender>()
                .unwrap_err()
                .contains("-nonull")
        );
    }

    #[test]
    fn greedy_is_a_contender_in_any_case() {
        for text in ["greedy", "Greedy", "GREEDY", " greedy "] {
            let contender: Contender = text.parse().unwrap();
            assert_eq!(contender, Contender::Greedy, "{text}");
            assert_eq!(contender.name(), "Greedy");
        }
        // It has no search, so none of the search's suffixes.
        for odd in ["greedy-norep", "greedy@2", "Greedy-c50"] {
            let err = odd.parse::<Contender>().unwrap_err();
            assert!(err.contains("greedy has no search"), "{odd}: {err}");
        }
        let err = "greedier".parse::<Contender>().unwrap_err();
        assert!(err.contains("or greedy"), "{err}");
    }

    #[test]
    fn a_weight_suffix_sets_one_evaluation_weight() {
        let Ok(Contender::Level { settings, .. }) = "master-wcapture_reach=35-c50".parse() else {
            panic!("a level");
        };
        let mut searcher = Searcher::new(1024);
        assert_ne!(
            searcher.options.weights.capture_reach, 35,
            "a value not the default"
        );
        settings.apply(&mut searcher);
        assert_eq!(searcher.options.weights.capture_reach, 35);
        assert_eq!(searcher.options.contempt, 50);
        let mut rest = searcher.options.weights;
        rest.capture_reach = Weights::default().capture_reach;
        assert_eq!(rest, Weights::default(), "the other weights are left");
        // Negative weights, as `texel` may print them, and several weights at once.
        let Ok(Contender::Level { settings, .. }) =
            "master-wcapture_reach=-113-wanubis=16-c20".parse()
        else {
            panic!("a level");
        };
        settings.apply(&mut searcher);
        assert_eq!(searcher.options.weights.capture_reach, -113);
        assert_eq!(searcher.options.weights.anubis, 16);
        assert_eq!(searcher.options.contempt, 20);
        let contender: Contender = "master-wreach=40".parse().unwrap();
        assert!(
            contender.name().contains("(reach 40)"),
            "{}",
            contender.name()
        );
        for (bad, says) in [
            ("master-wnosuch=3", "no weight is called 'nosuch'"),
            ("master-wreach=x", "'x' is not a weight"),
            ("master-wreach=99999", "is not a weight"),
            ("master-wreach=-99999", "is not a weight"),
            ("master-wreach=3-5", "'3-5' is not a weight"),
        ] {
            let err = bad.parse::<Contender>().unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
