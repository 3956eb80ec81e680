//! The tour's game: Silver's move by real clicks, its beam mid-flight, Red's reply lighting a
//! Pharaoh (its beam short of it, then its light), and the game-over window.

use crate::dev::script::{
    Autoplay, Flow, ON_THE_PANEL, STEP, click_on_screen, finish, game, point, shoot, when,
};
use crate::table::cues::PharaohMoment;
use crate::table::selection::{RotateSelected, Selection, SquareClicked};
use crate::table::{Phase, Show};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use khet_engine::{Move, Position, Square};

/// Two plies that end the game, the first a step with a long beam: Silver moves, then Red's
/// shot lights a Pharaoh (Classic has eight such lines; `docs/rules.md`, Perft).
fn find_plan(start: &Position) -> Option<(Move, Move)> {
    let mut best: Option<(usize, Move, Move)> = None;
    for m1 in start.legal_moves() {
        let mut p = *start;
        p.apply_move(m1);
        let len = khet_engine::fire(&p, start.side_to_move()).squares().len();
        let mut after = *start;
        if after.play_unchecked(m1).is_game_over() || !matches!(m1, Move::Step { .. }) {
            continue;
        }
        for m2 in after.legal_moves() {
            let mut q = after;
            if q.play_unchecked(m2).is_game_over() && best.as_ref().is_none_or(|b| len > b.0) {
                best = Some((len, m1, m2));
            }
        }
    }
    best.map(|(_, a, b)| (a, b))
}

fn plan(world: &World) -> Option<(Move, Move)> {
    world.resource::<Autoplay>().plan
}

/// The note of a picture of the game: the square the script clicks to select (the first
/// move's piece), the beam lit so far, the selection, the result, and where the shown beam
/// ends (the lit Pharaoh's square in its pictures).
fn game_note(world: &World, beam: &[Square]) -> String {
    let mut text = String::new();
    if let Some((m1, _)) = plan(world) {
        text += &format!("clicked {}\n", m1.from());
    }
    let lit: Vec<String> = beam.iter().map(ToString::to_string).collect();
    text += &format!("beam {}\n", lit.join(" "));
    let m = game(world);
    if let Some(sel) = world.resource::<Selection>().square(&m.game) {
        text += &format!("selected {sel}\n");
    }
    if let Some(r) = m.game.result() {
        text += &format!("result {r}\n");
    }
    let show = world.resource::<Show>();
    if let Some(end) = show.shot.as_ref().and_then(|s| s.segments.last()) {
        text += &format!("beam_end {}\n", end.to);
    }
    text
}

fn shoot_game(world: &mut World, name: &str, beam: &[Square]) {
    let note = game_note(world, beam);
    shoot(world, name, &note);
}

/// Lets the window, the scene and the panels settle.
pub fn settle(world: &mut World) -> Flow {
    when(world.resource::<Autoplay>().frames >= 30)
}

pub fn initial(world: &mut World) -> Flow {
    let plan = find_plan(game(world).game.position());
    world.resource_mut::<Autoplay>().plan = plan;
    if plan.is_none() {
        error!("autoplay: no scripted line found");
        world.write_message(AppExit::error());
        return Flow::Stay;
    }
    shoot_game(world, "01-initial", &[]);
    // The pointer rests on a button of the side panel first, so that egui last saw it over
    // one of its widgets: the click that follows comes from there.
    point(world, ON_THE_PANEL);
    Flow::After(5)
}

pub fn click_piece(world: &mut World) -> Flow {
    let Some((m1, _)) = plan(world) else {
        return Flow::Stay;
    };
    if !click_on_screen(world, m1.from()) {
        error!("autoplay: the board is not on screen");
        world.write_message(AppExit::error());
        return Flow::Stay;
    }
    Flow::After(6)
}

pub fn selected(world: &mut World) -> Flow {
    shoot_game(world, "02-selected", &[]);
    Flow::After(5)
}

/// From here to the game-over window, the animations step a fixed 50 ms a frame, so that the
/// slow software renderer still catches the beam's front, a flare and the Pharaoh's moment, at
/// the same moments in every run: set a frame before the move, whose first frame would
/// otherwise last as long as the machine took.
pub fn fixed_steps(world: &mut World) -> Flow {
    world.insert_resource(TimeUpdateStrategy::ManualDuration(STEP));
    Flow::Next
}

/// The piece is selected already: the destination click moves it.
pub fn click_destination(world: &mut World) -> Flow {
    if let Some((m1, _)) = plan(world) {
        world.write_message(SquareClicked(m1.to()));
    }
    Flow::Next
}

/// Mid-flight, with a reflection's flare near its brightest: the beam has come at least 40% of
/// its way and turned a square or two ago (or, failing that, 80%).
pub fn beam(world: &mut World) -> Flow {
    let show = world.resource::<Show>();
    let Phase::Firing { front } = show.phase else {
        return Flow::Stay;
    };
    if front < 0.4 * show.length || !(just_turned(show, front) || front >= 0.8 * show.length) {
        return Flow::Stay;
    }
    let lit = lit_squares(show, front);
    shoot_game(world, "03-beam", &lit);
    Flow::Next
}

/// Red's reply, once Silver's show is over.
pub fn beam_ended(world: &mut World) -> Flow {
    let (Some((_, m2)), true) = (plan(world), crate::dev::script::idle(world)) else {
        return Flow::Stay;
    };
    world.write_message(SquareClicked(m2.from()));
    match m2 {
        Move::Rotate { rotation, .. } => {
            world.write_message(RotateSelected(rotation));
        }
        _ => {
            world.write_message(SquareClicked(m2.to()));
        }
    }
    Flow::Next
}

/// The Pharaoh before: the beam a square or two short of it.
pub fn pharaoh_before(world: &mut World) -> Flow {
    let show = world.resource::<Show>();
    match show.phase {
        Phase::Firing { front } if front >= show.length - 2.0 => {
            let lit = lit_squares(show, front);
            shoot_game(world, "03b-pharaoh-before", &lit);
            Flow::Next
        }
        _ => Flow::Stay,
    }
}

/// And lit: its pillar of light up, before the game-over window.
pub fn pharaoh_lit(world: &mut World) -> Flow {
    let lit = world
        .get_resource::<PharaohMoment>()
        .is_some_and(|m| m.elapsed >= 0.35);
    if lit {
        shoot_game(world, "03c-pharaoh-lit", &[]);
    }
    when(lit)
}

/// The game over and its show ended; the clocks run as a player's do again.
pub fn over(world: &mut World) -> Flow {
    let ended = game(world).game.is_over()
        && crate::dev::script::idle(world)
        && !world.contains_resource::<PharaohMoment>();
    if !ended {
        return Flow::Stay;
    }
    world.insert_resource(TimeUpdateStrategy::Automatic);
    Flow::After(10)
}

pub fn game_over(world: &mut World) -> Flow {
    shoot_game(world, "04-gameover", &[]);
    Flow::After(5)
}

/// `KHET_AUTOPLAY_SHORT=1`: only the game, for quick frame rates (the package's test).
pub fn short(world: &mut World) -> Flow {
    if std::env::var_os("KHET_AUTOPLAY_SHORT").is_none() {
        return Flow::Next;
    }
    finish(world);
    Flow::Stay
}

/// Whether the beam's front turned at a mirror between 0.6 and 2.5 squares ago: a flare is then
/// near its brightest.
fn just_turned(show: &Show, front: f32) -> bool {
    show.segment_starts
        .iter()
        .skip(1)
        .any(|s| (0.6..=2.5).contains(&(front - s)))
}

/// The squares the beam has lit so far (its front at `front` squares along the path).
fn lit_squares(show: &Show, front: f32) -> Vec<Square> {
    let Some(shot) = &show.shot else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, seg) in shot.segments.iter().enumerate() {
        let start = show.segment_starts.get(i).copied().unwrap_or(0.0);
        let mut sq = seg.from;
        let mut d = start;
        if sq.is_none() {
            // Entering over the edge: the first square is half a square in.
            let s = seg.edge_entry();
            d += 0.5;
            if d <= front {
                out.push(s);
            }
            sq = Some(s);
        }
        while let Some(s) = sq {
            if s == seg.to {
                break;
            }
            let next = s.step(seg.dir);
            d += 1.0;
            if let Some(n) = next
                && d <= front - 0.5
            {
                out.push(n);
            }
            sq = next;
        }
    }
    out
}
