//! A scripted opening in the real window, for the end-to-end test and the frames-per-second
//! figure: it plays through the same messages the mouse writes, saves screenshots (the initial
//! board, a selected piece with its highlights, the beam mid-flight, the game-over window) and
//! beside each a text file with where the board's squares are on screen; then it tours the
//! other screens (the replay with analysis, the saved games, the settings, a game with clocks)
//! and exits.

use super::script::{Autoplay, STEP, finish};
use crate::board::{BEAM_HEIGHT, square_center};
use crate::table::selection::{RotateSelected, Selection, SquareClicked};
use crate::table::{Match, Phase, Show};
use bevy::input::ButtonState;
use bevy::input::mouse::MouseButtonInput;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy::time::TimeUpdateStrategy;
use bevy::window::{CursorMoved, WindowEvent};
use khet_engine::{Move, Position, Square};
use std::path::PathBuf;
use std::time::Instant;

pub struct AutoplayPlugin(pub PathBuf);

impl Plugin for AutoplayPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(Autoplay::new(self.0.clone()))
            // The scripted run is not a first start: no tutorial offer over the board. Its
            // pictures are taken at High quality unless KHET_AUTOPLAY_QUALITY says otherwise
            // (auto, low, medium), to measure the frame rate of each preset.
            .add_systems(
                Startup,
                |mut offer: ResMut<crate::learn::progress::TutorialOffer>,
                 mut settings: ResMut<crate::settings::Settings>| {
                    offer.0 = false;
                    settings.quality = quality_from_env();
                },
            )
            .add_systems(
                Update,
                (run, super::tour::tour, super::learn::learn)
                    .chain()
                    .in_set(crate::GameSet::Input),
            );
    }
}

pub(super) fn quality_from_env() -> crate::settings::Quality {
    use crate::settings::Quality;
    match std::env::var("KHET_AUTOPLAY_QUALITY").as_deref() {
        Ok("auto") => Quality::Auto,
        Ok("low") => Quality::Low,
        Ok("medium") => Quality::Medium,
        _ => Quality::High,
    }
}

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

fn click_move(
    mv: Move,
    clicks: &mut MessageWriter<SquareClicked>,
    rotate: &mut MessageWriter<RotateSelected>,
) {
    clicks.write(SquareClicked(mv.from()));
    match mv {
        Move::Rotate { rotation, .. } => {
            rotate.write(RotateSelected(rotation));
        }
        _ => {
            clicks.write(SquareClicked(mv.to()));
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn run(
    mut auto: ResMut<Autoplay>,
    game: Option<Res<Match>>,
    selection: Res<Selection>,
    show: Res<Show>,
    mut clicks: MessageWriter<SquareClicked>,
    mut rotate: MessageWriter<RotateSelected>,
    camera: crate::board::BoardOnScreen,
    windows: Query<(Entity, &Window)>,
    board: super::script::BoardNote,
    mut window_events: MessageWriter<WindowEvent>,
    moment: Option<Res<crate::table::cues::PharaohMoment>>,
    mut frames: ResMut<crate::frames::NextFrame>,
    mut commands: Commands,
    mut exit: MessageWriter<AppExit>,
) {
    // The script drives the game frame by frame: it never lets the loop rest.
    frames.now();
    // A step that waits for what never comes fails loudly, not at the test's time-out.
    if let Some(waited) = auto.overdue() {
        error!(
            "autoplay: gave up at step {} after {:.0} s (deadline {} s), {} frames in all; \
             pictures asked for {}, on disk {}",
            auto.step,
            waited.as_secs_f64(),
            super::script::STEP_DEADLINE.as_secs(),
            auto.frames,
            auto.saved.len(),
            auto.saved.iter().filter(|p| p.exists()).count()
        );
        exit.write(AppExit::error());
        return;
    }
    let Some(game) = game else { return };
    auto.frames += 1;
    // Wall-clock time between frames: Bevy's clocks follow the fixed animation step of the
    // scripted shots.
    let now = Instant::now();
    let wall = auto.last_frame.map_or(0.0, |t| (now - t).as_secs_f64());
    auto.last_frame = Some(now);
    if matches!(show.phase, Phase::Firing { .. }) {
        auto.beam_frames += 1;
        auto.beam_seconds += wall;
    }
    if auto.started.is_none() {
        auto.started = Some(Instant::now());
    }
    // KHET_AUTOPLAY_SHORT=1: only the game (two shots, the Pharaoh), for quick frame rates; the
    // tour is held back (a wait) until the screenshots are on disk.
    if auto.step == 8 && std::env::var_os("KHET_AUTOPLAY_SHORT").is_some() {
        auto.wait = 1;
        finish(&mut auto, &mut exit);
        return;
    }
    if auto.wait > 0 {
        auto.wait -= 1;
        return;
    }
    if auto.step >= 8 {
        return;
    }
    // The picture's note: where the squares are, the beam lit so far, and what was shown.
    let screenshot = |auto: &mut Autoplay, name: &str, beam: &[Square], commands: &mut Commands| {
        let png = auto.dir.join(format!("{name}.png"));
        let mut text = board.note();
        if let Some((m1, _)) = auto.plan {
            // The square the script clicks to select (the first move's piece).
            text += &format!("clicked {}\n", m1.from());
        }
        let lit: Vec<String> = beam.iter().map(ToString::to_string).collect();
        text += &format!("beam {}\n", lit.join(" "));
        if let Some(sel) = selection.square(&game.game) {
            text += &format!("selected {sel}\n");
        }
        if let Some(r) = game.game.result() {
            text += &format!("result {r}\n");
        }
        // Where the shown beam ends (the lit Pharaoh's square in its pictures).
        if let Some(end) = show.shot.as_ref().and_then(|s| s.segments.last()) {
            text += &format!("beam_end {}\n", end.to);
        }
        let _ = std::fs::write(auto.dir.join(format!("{name}.txt")), text);
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(png.clone()));
        auto.saved.push(png);
    };
    match auto.step {
        0 => {
            // Let the window, the scene and the panels settle.
            if auto.frames < 30 {
                return;
            }
            auto.plan = find_plan(game.game.position());
            screenshot(&mut auto, "01-initial", &[], &mut commands);
            // The pointer rests on a button of the side panel first (Hint), so that egui last
            // saw it over one of its widgets.
            if let Some((window, _)) = windows.iter().next() {
                window_events.write(WindowEvent::CursorMoved(CursorMoved {
                    window,
                    position: Vec2::new(96.0, 190.0),
                    delta: None,
                }));
            }
            auto.step = 1;
            auto.wait = 5;
        }
        1 => {
            let Some((m1, _)) = auto.plan else {
                error!("autoplay: no scripted line found");
                exit.write(AppExit::error());
                return;
            };
            // A real click, as the window reports one, on the piece: the mouse's way through
            // the board's picture to picking (`pointer`) is part of what is tested. A quick
            // one: the pointer comes from the side panel, and moves, presses and lets go
            // within one frame, as a quick hand does at 17 frames a second.
            let target = square_center(m1.from()) + Vec3::Y * BEAM_HEIGHT;
            let (Some(at), Some((window, _))) = (camera.to_window(target), windows.iter().next())
            else {
                error!("autoplay: the board is not on screen");
                exit.write(AppExit::error());
                return;
            };
            window_events.write(WindowEvent::CursorMoved(CursorMoved {
                window,
                position: at,
                delta: None,
            }));
            for state in [ButtonState::Pressed, ButtonState::Released] {
                window_events.write(WindowEvent::MouseButtonInput(MouseButtonInput {
                    button: MouseButton::Left,
                    state,
                    window,
                }));
            }
            auto.step = 2;
            auto.wait = 6;
        }
        2 => {
            screenshot(&mut auto, "02-selected", &[], &mut commands);
            auto.step = 3;
            auto.wait = 5;
        }
        3 => {
            // The piece is selected already: the destination click moves it. From here to the
            // game-over window, the animations step a fixed 50 ms a frame, so that the slow
            // software renderer still catches the beam's front, a flare and the Pharaoh's
            // moment.
            if let Some((m1, _)) = auto.plan {
                clicks.write(SquareClicked(m1.to()));
            }
            commands.insert_resource(TimeUpdateStrategy::ManualDuration(STEP));
            auto.step = 4;
        }
        4 => {
            // Mid-flight, with a reflection's flare near its brightest: the beam has come at
            // least 40% of its way and turned a square or two ago (or, failing that, 80%).
            if let Phase::Firing { front } = show.phase
                && front >= 0.4 * show.length
                && (just_turned(&show, front) || front >= 0.8 * show.length)
            {
                let lit = lit_squares(&show, front);
                screenshot(&mut auto, "03-beam", &lit, &mut commands);
                auto.step = 5;
            }
        }
        5 => {
            if show.phase == Phase::Idle
                && let Some((_, m2)) = auto.plan
            {
                click_move(m2, &mut clicks, &mut rotate);
                auto.step = 6;
            }
        }
        6 => match auto.pharaoh_shots {
            0 => {
                // The Pharaoh before: the beam a square or two short of it.
                if let Phase::Firing { front } = show.phase
                    && front >= show.length - 2.0
                {
                    let lit = lit_squares(&show, front);
                    screenshot(&mut auto, "03b-pharaoh-before", &lit, &mut commands);
                    auto.pharaoh_shots = 1;
                }
            }
            1 => {
                // And lit: its pillar of light up, before the game-over window.
                if moment.as_deref().is_some_and(|m| m.elapsed >= 0.35) {
                    screenshot(&mut auto, "03c-pharaoh-lit", &[], &mut commands);
                    auto.pharaoh_shots = 2;
                }
            }
            _ => {
                if game.game.is_over() && show.phase == Phase::Idle && moment.is_none() {
                    commands.insert_resource(TimeUpdateStrategy::Automatic);
                    auto.step = 7;
                    auto.wait = 10;
                }
            }
        },
        7 => {
            screenshot(&mut auto, "04-gameover", &[], &mut commands);
            auto.step = 8;
            auto.wait = 5;
        }
        _ => {}
    }
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
