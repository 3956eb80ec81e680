//! What happens on the table, moment by moment, for the eyes and ears: the laser fires, its
//! front turns at a mirror, stops on a shield or the wall, strikes a piece, lands; a moved
//! piece comes to rest. Derived each frame from the [`Show`]'s beam front, so the beam's
//! effects (`stage::effects`) and its sounds (`sound`) follow the same timeline and neither
//! knows the rules: everything comes from the engine's traced shot.
//!
//! A lit Pharaoh also gets a [`PharaohMoment`]: a short pause of its own before the game-over
//! window, skipped like any animation (a click, Space, or the instant speed).

use crate::settings::Settings;
use crate::table::animation_dt;
use crate::table::{NewGameRequested, Phase, Show, Undone};
use bevy::prelude::*;
use khet_engine::{Color as Side, Hit, HitEffect, Segment, SegmentEnd, Square};

/// One moment of the shown turn.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub enum Cue {
    /// A moved piece came to rest (the laser fires next).
    Placed,
    /// A laser starts to fire.
    Fire { side: Side },
    /// The front turned at a mirror, or split at an Eye of Horus, on this square.
    Reflect { square: Square, split: bool },
    /// The front stopped without a hit: on a Sphinx, an Anubis's shield (`Blocked`) or past the
    /// board's edge (`LeftBoard`). The segment says where.
    Stop { segment: Segment },
    /// The front reached a piece it hits.
    Strike { hit: Hit },
    /// The whole beam has arrived; the hit pieces leave the board now.
    Landed { pharaoh_lit: Option<Square> },
}

/// A lit Pharaoh's moment: the game-over window waits for it to end.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct PharaohMoment {
    pub square: Square,
    pub elapsed: f32,
}

/// How long a lit Pharaoh holds the stage, at normal speed.
pub const MOMENT_SECONDS: f32 = 1.6;

pub(crate) fn plugin(app: &mut App) {
    app.add_message::<Cue>().add_systems(
        Update,
        (emit_cues, start_moment, tick_moment)
            .chain()
            .after(crate::table::Flow)
            .in_set(crate::GameSet::Logic),
    );
}

/// Where the front was last frame, and what it was doing.
#[derive(Default)]
struct Tracker {
    front: Option<f32>,
    moving: bool,
}

fn emit_cues(show: Res<Show>, mut last: Local<Tracker>, mut cues: MessageWriter<Cue>) {
    let moving = matches!(show.phase, Phase::Moving { .. });
    let front = match show.phase {
        Phase::Firing { front } => Some(front),
        // A beam that landed (or was skipped through) counts as having come all the way.
        Phase::Lingering { .. } => last.front.map(|_| show.length),
        Phase::Idle | Phase::Moving { .. } => None,
    };
    let Some(shot) = show.shot.as_ref() else {
        *last = Tracker { front, moving };
        return;
    };
    if last.moving && !moving {
        cues.write(Cue::Placed);
    }
    if let Some(now) = front {
        let before = match last.front {
            Some(b) if b <= now => b,
            // A new shot (or a replay of the last): it starts from its laser.
            _ => {
                cues.write(Cue::Fire { side: shot.color });
                -1.0
            }
        };
        for cue in crossings(shot, &show.segment_starts, before, now) {
            cues.write(cue);
        }
        if before < show.length && now >= show.length {
            let pharaoh_lit = shot
                .hits
                .iter()
                .find(|h| h.effect == HitEffect::PharaohLit)
                .map(|h| h.square);
            cues.write(Cue::Landed { pharaoh_lit });
        }
    }
    *last = Tracker { front, moving };
}

/// The cues whose place along the beam lies in `(before, now]`, in order along it.
pub fn crossings(shot: &khet_engine::Shot, starts: &[f32], before: f32, now: f32) -> Vec<Cue> {
    let mut out: Vec<(f32, Cue)> = Vec::new();
    let within = |x: f32| x > before && x <= now;
    for (i, seg) in shot.segments.iter().enumerate() {
        let start = starts.get(i).copied().unwrap_or(0.0);
        // A turn or a split: the start of a later segment, once per square and place.
        if i > 0
            && let Some(square) = seg.from
            && within(start)
            && !out.iter().any(|(at, c)| {
                *at == start && matches!(c, Cue::Reflect { square: s, .. } if *s == square)
            })
        {
            let split = shot.segments[..i]
                .iter()
                .any(|s| s.to == square && matches!(s.end, SegmentEnd::Split(_)));
            out.push((start, Cue::Reflect { square, split }));
        }
        let end = start + crate::table::segment_length(seg);
        if !within(end) {
            continue;
        }
        match seg.end {
            SegmentEnd::Blocked | SegmentEnd::LeftBoard => {
                out.push((end, Cue::Stop { segment: *seg }));
            }
            SegmentEnd::Hit => {
                if let Some(hit) = shot.hits.iter().find(|h| h.square == seg.to) {
                    out.push((end, Cue::Strike { hit: *hit }));
                }
            }
            SegmentEnd::Turned(_) | SegmentEnd::Split(_) | SegmentEnd::Joined => {}
        }
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out.into_iter().map(|(_, c)| c).collect()
}

fn start_moment(mut cues: MessageReader<Cue>, mut commands: Commands) {
    for cue in cues.read() {
        if let Cue::Landed {
            pharaoh_lit: Some(square),
        } = cue
        {
            commands.insert_resource(PharaohMoment {
                square: *square,
                elapsed: 0.0,
            });
        }
    }
}

fn tick_moment(
    time: Res<Time>,
    settings: Res<Settings>,
    show: Res<Show>,
    moment: Option<ResMut<PharaohMoment>>,
    mut new_games: MessageReader<NewGameRequested>,
    mut undone: MessageReader<Undone>,
    mut next: ResMut<crate::frames::NextFrame>,
    mut commands: Commands,
) {
    let Some(mut moment) = moment else {
        new_games.clear();
        undone.clear();
        return;
    };
    next.now();
    let gone = new_games.read().count() + undone.read().count() > 0;
    // Skipping (a click, Space) or the instant speed ends it at once, like every animation.
    moment.elapsed += animation_dt(&time, &settings, &show).min(MOMENT_SECONDS * 2.0);
    if gone || moment.elapsed >= MOMENT_SECONDS {
        commands.remove_resource::<PharaohMoment>();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use khet_engine::{Position, Setup};

    fn shot_of(pos: &Position, side: Side) -> khet_engine::Shot {
        khet_engine::fire(pos, side)
    }

    #[test]
    fn crossings_follow_the_beam_once_each() {
        let pos = Setup::builtin("khet2/classic").unwrap().position;
        let shot = shot_of(&pos, Side::Silver);
        let (starts, length) = crate::table::beam_timeline(&shot);
        let all = crossings(&shot, &starts, -1.0, length);
        // In small steps, the same cues in the same order, each once.
        let mut stepped = Vec::new();
        let mut f = -1.0;
        while f < length {
            let next = (f + 0.37).min(length);
            stepped.extend(crossings(&shot, &starts, f, next));
            f = next;
        }
        assert_eq!(all, stepped);
        let reflections = shot.segments.len() - 1;
        assert_eq!(
            all.iter()
                .filter(|c| matches!(c, Cue::Reflect { .. }))
                .count(),
            reflections
        );
        // The last cue is where the beam ends.
        let last = shot.segments.last().unwrap();
        match all.last().unwrap() {
            Cue::Stop { segment } => assert_eq!(segment, last),
            Cue::Strike { hit } => assert_eq!(hit.square, last.to),
            other => panic!("the beam ended with {other:?}"),
        }
    }
}
