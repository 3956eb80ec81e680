//! The tutorial: short steps, each a small position with one goal that one move reaches. The
//! engine plays the move and fires; [`Goal::reached_by`] judges the shot, and [`why_missed`]
//! says in words where the beam went instead.

use khet_engine::{Color as Side, HitEffect, Kind, Piece, Position, SegmentEnd, Shot, Square};

/// What a step asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// Light the Red Pharaoh.
    LightPharaoh,
    /// Hit the piece on this square (remove it, or take the top obelisk of a stack).
    Hit(&'static str),
}

/// One step of the tutorial.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub title: &'static str,
    /// What the step teaches and what to do.
    pub text: &'static str,
    /// The position (Silver to move).
    pub position: &'static str,
    pub goal: Goal,
    /// The move that reaches the goal (the tests play it).
    pub intended: &'static str,
    /// A move that does not (the tests play it too).
    pub misses: &'static str,
}

/// The first lesson, in order.
pub const STEPS: [Step; 9] = [
    Step {
        title: "The Pyramid's mirror",
        text: "After every move your laser fires from your Sphinx (j1, pointing north). A Pyramid's \
               slanted face is a mirror: it turns the beam a quarter turn. Its two flat backs are \
               not: a beam that meets them destroys it. Turn your Pyramid on j5 so the beam goes \
               west and lights the Red Pharaoh: that wins the game.",
        position: "x29/2p27//3k5P2////4K4X1 0",
        goal: Goal::LightPharaoh,
        intended: "j5+",
        misses: "j5-",
    },
    Step {
        title: "Moving",
        text: "A turn is one move: step a piece one square in any of eight directions, or turn it a \
               quarter turn. Step your Pyramid from i4 into the beam's path so it turns the beam \
               west, onto the back of the Red Pyramid on c4.",
        position: "x29/5k4///2p45P31///4K4X1 0",
        goal: Goal::Hit("c4"),
        intended: "i4j4",
        misses: "i4+",
    },
    Step {
        title: "The Anubis's shield",
        text: "An Anubis survives a beam that meets its front (its shield) and stops it; from the \
               sides or the back it is destroyed. The Red Anubis on g6 faces east. Place your \
               Pyramid on g3 so the beam climbs the g file and strikes its side.",
        position: "x29/3k6/6a23///9P3/6P13/4K4X1 0",
        goal: Goal::Hit("g6"),
        intended: "g2g3",
        misses: "g2f3",
    },
    Step {
        title: "Turning the Sphinx",
        text: "Your Sphinx never moves and is never destroyed, but turning it is a move: it points \
               north or west. The Red Pharaoh stands on your first rank. Turn the Sphinx.",
        position: "x29///4K5/6P13///2k6X1 0",
        goal: Goal::LightPharaoh,
        intended: "j1-",
        misses: "g4g5",
    },
    Step {
        title: "Whose squares",
        text: "The j file, b1 and b8 (marked with an ankh) are Silver's; the a file, i1 and i8 \
               (an eye) are Red's. No piece may enter the other side's squares, but your own are \
               yours to use. The Red Pharaoh hides on a3: bring your Pyramid from i2 onto the j \
               file so the beam runs along the third rank.",
        position: "x29//4K5///k9/8P31/9X1 0",
        goal: Goal::LightPharaoh,
        intended: "i2j3",
        misses: "i2h3",
    },
    Step {
        title: "The Scarab's swap",
        text: "A Scarab is a mirror on both sides and is never destroyed. Instead of stepping it may \
               swap places with a next-door Pyramid or Anubis, of either colour. The Red Anubis on \
               e5 blocks your beam with its shield: swap your Scarab with it.",
        position: "x29//4S25/4a24P3///4k5/6K2X1 0",
        goal: Goal::LightPharaoh,
        intended: "e6e5",
        misses: "e6+",
    },
    Step {
        title: "The Eye of Horus",
        text: "The Eye of Horus (an expansion piece) is a half-silvered mirror: the beam goes \
               straight through it and is reflected as well, so one shot can go two ways. It is \
               never destroyed. Step your Eye into the beam where its reflection climbs to the \
               Red Pharaoh on g8.",
        position: "x25k3//7E12/2p36P3////4K4X1 0",
        goal: Goal::LightPharaoh,
        intended: "h6g5",
        misses: "h6h5",
    },
    Step {
        title: "Khet 1.0: fixed lasers and the Djed",
        text: "In Khet 1.0 the lasers are fixed under the board's corners: Silver's fires north up \
               the j file, Red's south down the a file. The Djed is 1.0's Scarab: two mirrors, \
               never destroyed. Turn your Djed on j4 so the beam goes west to the Red Pharaoh.",
        position: "2O27////3k5D2///5K4 0",
        goal: Goal::LightPharaoh,
        intended: "j4+",
        misses: "c8c7",
    },
    Step {
        title: "Khet 1.0: obelisks stack",
        text: "Obelisks of one colour stack two high and move together or one at a time. A beam \
               that hits a stack takes only its top obelisk, so a stack is a shield that takes two \
               shots. Step your Djed onto j5 and hit the Red stack on e5.",
        position: "/4k5//4o23D11///1O18/6K3 0",
        goal: Goal::Hit("e5"),
        intended: "i5j5",
        misses: "i5i4",
    },
];

impl Step {
    /// The step's board.
    pub fn start(&self) -> Position {
        match khet_engine::parse_position(self.position) {
            Ok(p) => p,
            Err(e) => unreachable!("the tutorial's positions are checked by the tests: {e}"),
        }
    }
}

impl Goal {
    /// Whether this shot does what the step asks.
    pub fn reached_by(self, shot: &Shot) -> bool {
        match self {
            Goal::LightPharaoh => shot
                .hits
                .iter()
                .any(|h| h.effect == HitEffect::PharaohLit && h.piece.color() == Side::Red),
            Goal::Hit(square) => shot.hits.iter().any(|h| h.square.to_string() == square),
        }
    }

    /// The goal in a few words.
    pub fn describe(self) -> String {
        match self {
            Goal::LightPharaoh => "light the Red Pharaoh".to_string(),
            Goal::Hit(square) => format!("hit the piece on {square}"),
        }
    }
}

fn name(piece: Piece) -> String {
    format!("{} {}", piece.color(), piece.kind())
}

/// Where the beam went instead, in words: what it hit, what stopped it, or where it left.
pub fn why_missed(shot: &Shot, board_before_shot: &Position) -> String {
    let hits: Vec<String> = shot
        .hits
        .iter()
        .map(|h| format!("the {} on {}", name(h.piece), h.square))
        .collect();
    let ends: Vec<String> = shot
        .segments
        .iter()
        .filter_map(|s| end_words(s.end, s.to, board_before_shot))
        .collect();
    let mut out = ends.join(", and ");
    if !hits.is_empty() && out.is_empty() {
        out = format!("it hit {}", hits.join(" and "));
    }
    if out.is_empty() {
        out = "it went nowhere useful".to_string();
    }
    format!("Not this time: {out}. Try again.")
}

fn end_words(end: SegmentEnd, at: Square, board: &Position) -> Option<String> {
    let piece = board.piece_at(at);
    match (end, piece) {
        (SegmentEnd::LeftBoard, _) => Some(format!("the beam left the board past {at}")),
        (SegmentEnd::Blocked, Some(p)) if p.kind() == Kind::Anubis => {
            Some(format!("the {}'s shield stopped the beam on {at}", name(p)))
        }
        (SegmentEnd::Blocked, Some(p)) => Some(format!("the {} stopped the beam on {at}", name(p))),
        (SegmentEnd::Hit, Some(p)) if p.kind() == Kind::Pharaoh => {
            Some(format!("the beam lit the {} on {at}", name(p)))
        }
        (SegmentEnd::Hit, Some(p)) => Some(format!("the beam destroyed the {} on {at}", name(p))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shot_of(step: &Step, text: &str) -> (Shot, Position) {
        let mut board = step.start();
        let mv = board
            .parse_move(text)
            .unwrap_or_else(|e| panic!("{}: {text}: {e}", step.title));
        board.apply_move(mv);
        (khet_engine::fire(&board, Side::Silver), board)
    }

    #[test]
    fn every_step_is_solved_by_its_move_and_not_by_a_miss() {
        for step in &STEPS {
            let start = step.start();
            assert!(
                start.problems().is_empty(),
                "{}: {:?}",
                step.title,
                start.problems()
            );
            assert_eq!(start.side_to_move(), Side::Silver, "{}", step.title);
            // Nothing is reached before the move: the goal needs the move.
            let before = khet_engine::fire(&start, Side::Silver);
            assert!(
                !step.goal.reached_by(&before),
                "{} is solved already",
                step.title
            );
            let (good, _) = shot_of(step, step.intended);
            assert!(
                step.goal.reached_by(&good),
                "{}: {}",
                step.title,
                step.intended
            );
            let (bad, board) = shot_of(step, step.misses);
            assert!(
                !step.goal.reached_by(&bad),
                "{}: {}",
                step.title,
                step.misses
            );
            let why = why_missed(&bad, &board);
            assert!(
                why.starts_with("Not this time: ") && why.contains("beam"),
                "{}: {why}",
                step.title
            );
        }
    }

    #[test]
    fn the_other_sides_squares_are_refused() {
        let step = &STEPS[4];
        let err = step.start().parse_move("i2i1").expect_err("i1 is Red's");
        assert!(err.to_string().contains("i1"), "{err}");
    }

    #[test]
    fn a_miss_says_where_the_beam_went() {
        let (shot, board) = shot_of(&STEPS[5], "e6+");
        assert_eq!(
            why_missed(&shot, &board),
            "Not this time: the Red Anubis's shield stopped the beam on e5. Try again."
        );
    }
}
