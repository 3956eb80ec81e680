//! The scripted runs' interpreter: a run is an ordered list of [`Step`]s, each a named function
//! over the world that acts, waits for something, or takes a picture, and says whether the run
//! moves on ([`Flow`]). [`interpret`] runs the current step once a frame, counts frames for the
//! frame rates, and ends the run loudly when a step waits past [`STEP_DEADLINE`], naming what it
//! waited for. What the steps share lives here too: taking a screenshot with a note beside it,
//! clicks and pointer moves as the window reports them, and the run's end.

use crate::board::{BEAM_HEIGHT, BoardOnScreen, square_center};
use crate::table::{Match, Phase, Show};
use bevy::ecs::system::{RunSystemOnce, SystemParam};
use bevy::input::ButtonState;
use bevy::input::mouse::MouseButtonInput;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy::window::{CursorMoved, WindowEvent};
use bevy::winit::WinitSettings;
use khet_engine::{Move, Square};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long a scripted run waits for any one step before it gives up and says what it waited
/// for. Generous, and in seconds rather than frames: a loaded 2-core machine draws the window
/// at a few frames a second, an idle one at fifty, and a step that waits for the network or a
/// screenshot waits as long either way.
pub const STEP_DEADLINE: Duration = Duration::from_secs(120);

/// The animation step of the scripted shots that catch something mid-flight.
pub const STEP: Duration = Duration::from_millis(50);

/// One step of a run: what it does or waits for (said when it never comes), and its function.
pub struct Step {
    pub what: &'static str,
    pub run: fn(&mut World) -> Flow,
}

/// What a step's function says: not yet (it runs again next frame), done, or done and the next
/// step waits this many frames first (for what it asked to be drawn).
pub enum Flow {
    Stay,
    Next,
    After(u32),
}

/// Stays until `ready`, then moves on.
pub fn when(ready: bool) -> Flow {
    if ready { Flow::Next } else { Flow::Stay }
}

#[derive(Resource)]
pub struct Autoplay {
    pub dir: PathBuf,
    pub step: usize,
    pub wait: u32,
    pub frames: u32,
    pub started: Option<Instant>,
    /// Frames drawn and seconds passed while a beam was on its way.
    pub beam_frames: u32,
    pub beam_seconds: f64,
    last_frame: Option<Instant>,
    /// The game's two plies, found at the start (the first a step with a long beam).
    pub plan: Option<(Move, Move)>,
    pub saved: Vec<PathBuf>,
    /// A value a later step compares with (the running clock at its first picture).
    pub mark: Option<Duration>,
    /// A note kept for a picture taken on a later step, once what it describes is drawn.
    pub parked: Option<String>,
    /// The step last seen and when it began, for [`Autoplay::overdue`].
    step_began: Option<(usize, Instant)>,
}

impl Autoplay {
    pub fn new(dir: PathBuf) -> Autoplay {
        Autoplay {
            dir,
            step: 0,
            wait: 0,
            frames: 0,
            started: None,
            beam_frames: 0,
            beam_seconds: 0.0,
            last_frame: None,
            plan: None,
            saved: Vec::new(),
            mark: None,
            parked: None,
            step_began: None,
        }
    }

    /// How long the current step has waited, once that is past [`STEP_DEADLINE`]; the clock
    /// starts again at each new step.
    fn overdue(&mut self) -> Option<Duration> {
        let now = Instant::now();
        match self.step_began {
            Some((step, began)) if step == self.step => {
                Some(now - began).filter(|&waited| waited > STEP_DEADLINE)
            }
            _ => {
                self.step_began = Some((self.step, now));
                None
            }
        }
    }

    /// Counts a frame of the game, and of the beam's flight.
    fn count_frame(&mut self, firing: bool) {
        let now = Instant::now();
        self.frames += 1;
        self.started.get_or_insert(now);
        let wall = self.last_frame.map_or(0.0, |t| (now - t).as_secs_f64());
        self.last_frame = Some(now);
        if firing {
            self.beam_frames += 1;
            self.beam_seconds += wall;
        }
    }
}

/// Runs `steps` one frame's worth: the current step once (unless a wait is under way), or the
/// run's end after the last. `report` adds what the run's own helpers were doing to the message
/// of a step that never came.
pub fn interpret(world: &mut World, steps: &[Step], report: fn(&World) -> String) {
    // Every step reads the game on the table: none runs before there is one.
    let on_table = world.contains_resource::<Match>();
    if on_table {
        let firing = matches!(world.resource::<Show>().phase, Phase::Firing { .. });
        world.resource_mut::<Autoplay>().count_frame(firing);
    }
    let mut auto = world.resource_mut::<Autoplay>();
    if let Some(waited) = auto.overdue() {
        let (step, frames) = (auto.step, auto.frames);
        let (asked, on_disk) = (
            auto.saved.len(),
            auto.saved.iter().filter(|p| p.exists()).count(),
        );
        let what = steps.get(step).map_or("the pictures on disk", |s| s.what);
        error!(
            "scripted run: gave up at step {step} ({what}) after {:.0} s (deadline {} s), \
             {frames} frames in all; pictures asked for {asked}, on disk {on_disk}{}",
            waited.as_secs_f64(),
            STEP_DEADLINE.as_secs(),
            report(world)
        );
        world.write_message(AppExit::error());
        return;
    }
    if !on_table {
        return;
    }
    if auto.wait > 0 {
        auto.wait -= 1;
        return;
    }
    let Some(step) = steps.get(auto.step) else {
        finish(world);
        return;
    };
    let flow = (step.run)(world);
    let mut auto = world.resource_mut::<Autoplay>();
    match flow {
        Flow::Stay => {}
        Flow::Next => auto.step += 1,
        Flow::After(frames) => {
            auto.step += 1;
            auto.wait = frames;
        }
    }
}

/// The script drives the game frame by frame: the loop never rests, or it would wait on the
/// heartbeat for input nobody gives. It says so after the game has said whether anything moves
/// (`stage::rest`), so that [`still`] still tells a moving board from a still one.
pub fn keep_drawing(app: &mut App) {
    app.add_systems(
        Last,
        (|mut winit: ResMut<WinitSettings>| {
            let continuous = WinitSettings::continuous();
            if winit.focused_mode != continuous.focused_mode {
                *winit = continuous;
            }
        })
        .after(crate::stage::rest::sleep_until_wanted),
    );
}

/// Whether nothing moved in the last frame: no animation, no shake, no flare, no panel
/// settling. A picture compared with a reference waits for it where something may move.
pub fn still(world: &World) -> bool {
    !world.resource::<crate::frames::NextFrame>().moving()
}

/// No more to say when a step never comes.
pub fn nothing(_: &World) -> String {
    String::new()
}

/// Where each square is on screen, for a picture's note.
#[derive(SystemParam)]
pub struct BoardNote<'w, 's> {
    camera: BoardOnScreen<'w, 's>,
    windows: Query<'w, 's, &'static Window>,
}

impl BoardNote<'_, '_> {
    /// One line a square, in physical window pixels: `square` at the beam's height (where
    /// pieces and beams are seen) and `tile` on the board's surface.
    pub fn note(&self) -> String {
        let scale = self.windows.iter().next().map_or(1.0, Window::scale_factor);
        let mut text = String::new();
        for sq in Square::ALL {
            for (label, y) in [("square", BEAM_HEIGHT), ("tile", 0.0)] {
                if let Some(p) = self.camera.to_window(square_center(sq) + Vec3::Y * y) {
                    let p = p * scale;
                    text += &format!("{label} {sq} {:.1} {:.1}\n", p.x, p.y);
                }
            }
        }
        text
    }
}

/// Saves a screenshot `NAME.png` of the window as it is drawn next, and beside it `NAME.txt`:
/// `note`, the squares of each side's pieces on the table, then where each square is on screen.
pub fn shoot(world: &mut World, name: &str, note: &str) {
    let mut squares = String::new();
    if let Some(m) = world.get_resource::<Match>() {
        for (side, color) in [
            ("silver", khet_engine::Color::Silver),
            ("red", khet_engine::Color::Red),
        ] {
            let mine: Vec<String> = m
                .game
                .position()
                .pieces()
                .filter(|(_, piece)| piece.color() == color)
                .map(|(sq, _)| sq.to_string())
                .collect();
            squares += &format!("{side} {}\n", mine.join(" "));
        }
    }
    squares += &world
        .run_system_once(|board: BoardNote| board.note())
        .unwrap_or_default();
    let dir = world.resource::<Autoplay>().dir.clone();
    let png = dir.join(format!("{name}.png"));
    let _ = std::fs::write(dir.join(format!("{name}.txt")), format!("{note}{squares}"));
    world
        .spawn(Screenshot::primary_window())
        .observe(save_to_disk(png.clone()));
    world.resource_mut::<Autoplay>().saved.push(png);
}

/// The note an earlier step kept for this picture.
pub fn take_parked(world: &mut World) -> String {
    world
        .resource_mut::<Autoplay>()
        .parked
        .take()
        .unwrap_or_default()
}

/// The game on the table (every step after the first frames has one).
pub fn game(world: &World) -> &Match {
    world.resource::<Match>()
}

/// Whether nothing is being shown: no beam on its way, no piece breaking.
pub fn idle(world: &World) -> bool {
    world.resource::<Show>().phase == Phase::Idle
}

pub fn go(world: &mut World, screen: crate::screen::Screen) {
    world
        .resource_mut::<NextState<crate::screen::Screen>>()
        .set(screen);
}

/// The pointer moves to `at` (logical window pixels), as the window reports it.
pub fn point(world: &mut World, at: Vec2) {
    let mut windows = world.query_filtered::<Entity, With<Window>>();
    if let Some(window) = windows.iter(world).next() {
        world.write_message(WindowEvent::CursorMoved(CursorMoved {
            window,
            position: at,
            delta: None,
        }));
    }
}

/// A real click, as the window reports one, on `sq`: the pointer moves there, presses and lets
/// go within one frame, as a quick hand does at 17 frames a second. The mouse's way through the
/// board's picture to picking is part of what is tested. False when the square is off screen.
pub fn click_on_screen(world: &mut World, sq: Square) -> bool {
    let target = square_center(sq) + Vec3::Y * BEAM_HEIGHT;
    let at = world
        .run_system_once(move |camera: BoardOnScreen| camera.to_window(target))
        .ok()
        .flatten();
    let mut windows = world.query_filtered::<Entity, With<Window>>();
    let (Some(at), Some(window)) = (at, windows.iter(world).next()) else {
        return false;
    };
    point(world, at);
    for state in [ButtonState::Pressed, ButtonState::Released] {
        world.write_message(WindowEvent::MouseButtonInput(MouseButtonInput {
            button: MouseButton::Left,
            state,
            window,
        }));
    }
    true
}

/// The pointer's resting place on the side panel (over its Hint button), away from the board.
pub const ON_THE_PANEL: Vec2 = Vec2::new(96.0, 190.0);

/// Ends the run once every screenshot is on disk, with the frame rates in `fps.txt`.
/// Screenshots that never reach the disk end the run at [`STEP_DEADLINE`].
pub fn finish(world: &mut World) {
    let auto = world.resource::<Autoplay>();
    if !auto.saved.iter().all(|p| p.exists()) {
        return;
    }
    let secs = auto.started.map_or(1.0, |s| s.elapsed().as_secs_f64());
    let fps = f64::from(auto.frames) / secs;
    let beam_fps = f64::from(auto.beam_frames) / auto.beam_seconds.max(0.001);
    let line = format!(
        "frames {} seconds {secs:.1} fps {fps:.1} beam_frames {} beam_fps {beam_fps:.1}\n",
        auto.frames, auto.beam_frames
    );
    let _ = std::fs::write(auto.dir.join("fps.txt"), &line);
    info!("scripted run done: {line}");
    world.write_message(AppExit::Success);
}
