//! What the table is showing: the moved piece sliding or turning, then the beam growing along
//! the engine's traced shot, then the hit pieces leaving and the beam fading. Input waits while
//! it runs ([`Show::is_idle`]); a click, Space or the instant speed skips it.

use crate::settings::Settings;
use bevy::prelude::*;
use khet_engine::{Game, Position, Shot, Square};

/// How long the show's parts take at normal speed (the player's speed setting scales them).
/// Not a saved setting: tuning that tests may change.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct Pace {
    /// The moved piece slides or turns for this long.
    pub move_seconds: f32,
    /// How fast the beam's front travels.
    pub beam_squares_per_second: f32,
    /// The beam stays this long after it lands, fading.
    pub linger_seconds: f32,
}

impl Default for Pace {
    fn default() -> Pace {
        Pace {
            move_seconds: 0.35,
            beam_squares_per_second: 16.0,
            linger_seconds: 1.2,
        }
    }
}

/// How far animations move this frame: scaled by the speed setting, and everything at once
/// when the speed is 0 (tests) or the player skips.
pub fn animation_dt(time: &Time, settings: &Settings, show: &Show) -> f32 {
    if settings.speed <= 0.0 || show.skip {
        f32::INFINITY
    } else {
        time.delta_secs() * settings.speed
    }
}

/// What is being shown. Input is ignored unless `Idle`.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Phase {
    #[default]
    Idle,
    /// The moved piece slides or turns.
    Moving { elapsed: f32 },
    /// The beam grows along the path; `front` is how far it has come, in squares.
    Firing { front: f32 },
    /// The beam stays a while, then fades.
    Lingering { elapsed: f32 },
}

/// The shot being shown, and the board the entities show meanwhile.
#[derive(Resource, Default)]
pub struct Show {
    pub phase: Phase,
    /// The last shot, kept for drawing and replay.
    pub shot: Option<Shot>,
    /// The board the pieces show: after the move but before the hit pieces leave, while the
    /// beam is on its way; the engine's position otherwise.
    pub display: Option<Position>,
    /// Total length of the shot in squares, and where each segment starts along it.
    pub length: f32,
    pub segment_starts: Vec<f32>,
    /// Whether the shown shot is a replay (nothing is removed at its end).
    pub replay: bool,
    /// Complete the animation at once ("skip").
    pub skip: bool,
    /// Extra time the moved piece is shown before the laser fires (the computer's moves).
    pub pause: f32,
    /// How many shots have landed (not counting replays): the view flashes the hits of each.
    pub landings: u32,
    /// A shot kept drawn once it has landed, until something else is shown (the editor's fired
    /// laser): it no longer fades, and being still it asks for no frames.
    pub hold: bool,
}

impl Show {
    /// Nothing moving, the board as the game stands, the last shot kept for "replay shot".
    pub fn at_rest(game: &Game, landings: u32) -> Show {
        let shot = game.last_turn().map(|t| t.shot.clone());
        let (segment_starts, length) = shot.as_ref().map(beam_timeline).unwrap_or_default();
        Show {
            display: Some(*game.position()),
            shot,
            length,
            segment_starts,
            landings,
            ..Show::default()
        }
    }

    /// Whether the table takes input: nothing moving, the beam at most fading.
    pub fn is_idle(&self) -> bool {
        matches!(self.phase, Phase::Idle | Phase::Lingering { .. })
    }
}

/// Length in squares of a segment, as drawn: from the centre of `from` (or the board edge) to
/// the centre of `to` (or past the edge for a beam that leaves the board).
pub fn segment_length(seg: &khet_engine::Segment) -> f32 {
    let (fx, fy) = match seg.from {
        Some(f) => (f.file().index() as f32, f.rank().index() as f32),
        None => {
            let (dx, dy) = seg.dir.delta();
            let s = seg.edge_entry();
            (
                s.file().index() as f32 - 0.5 * dx as f32,
                s.rank().index() as f32 - 0.5 * dy as f32,
            )
        }
    };
    let (tx, ty) = (seg.to.file().index() as f32, seg.to.rank().index() as f32);
    let mut len = (tx - fx).abs() + (ty - fy).abs();
    if seg.end == khet_engine::SegmentEnd::LeftBoard {
        len += 0.6;
    }
    len
}

/// Where each segment starts along the beam (a split's branches start where their parent
/// reached the Eye), and the total length to the farthest end.
pub fn beam_timeline(shot: &Shot) -> (Vec<f32>, f32) {
    let mut starts = Vec::with_capacity(shot.segments.len());
    let mut ends_at: Vec<(Square, f32)> = Vec::new();
    let mut total: f32 = 0.0;
    for seg in &shot.segments {
        let start = match seg.from {
            Some(f) => ends_at
                .iter()
                .rev()
                .find(|(s, _)| *s == f)
                .map_or(0.0, |&(_, d)| d),
            None => 0.0,
        };
        let end = start + segment_length(seg);
        starts.push(start);
        ends_at.push((seg.to, end));
        total = total.max(end);
    }
    (starts, total)
}
