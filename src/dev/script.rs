//! What the scripted run's parts share: its state ([`Autoplay`]), taking a screenshot with a
//! note beside it, the animation step of scripted shots, and the end of the run (the frame
//! rates written to `fps.txt`, or a loud failure when a picture never came).

use crate::board::{BEAM_HEIGHT, BoardOnScreen, square_center};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use khet_engine::{Move, Square};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long a scripted run waits for any one step before it gives up and says what it waited
/// for. Generous, and in seconds rather than frames: a loaded 2-core machine draws the window
/// at a few frames a second, an idle one at fifty, and a step that waits for the network or a
/// screenshot waits as long either way.
pub const STEP_DEADLINE: Duration = Duration::from_secs(120);

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
    pub(super) last_frame: Option<Instant>,
    pub(super) plan: Option<(Move, Move)>,
    /// Of the lit Pharaoh's two pictures, how many are taken.
    pub(super) pharaoh_shots: u8,
    pub saved: Vec<PathBuf>,
    /// A value a later step compares with (the running clock at its first picture).
    pub mark: Option<std::time::Duration>,
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
            pharaoh_shots: 0,
            saved: Vec::new(),
            mark: None,
            parked: None,
            step_began: None,
        }
    }

    /// How long the current step has waited, once that is past [`STEP_DEADLINE`]; the clock
    /// starts again at each new step.
    pub fn overdue(&mut self) -> Option<Duration> {
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
}

/// The animation step of the scripted shots.
pub const STEP: std::time::Duration = std::time::Duration::from_millis(50);

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

pub fn shoot(auto: &mut Autoplay, name: &str, note: String, commands: &mut Commands) {
    let png = auto.dir.join(format!("{name}.png"));
    let _ = std::fs::write(auto.dir.join(format!("{name}.txt")), note);
    commands
        .spawn(Screenshot::primary_window())
        .observe(save_to_disk(png.clone()));
    auto.saved.push(png);
}

/// Ends the run once every screenshot is on disk, with the frame rates in `fps.txt`.
pub fn finish(auto: &mut Autoplay, exit: &mut MessageWriter<AppExit>) {
    if auto.saved.iter().all(|p| p.exists()) {
        let secs = auto.started.map_or(1.0, |s| s.elapsed().as_secs_f64());
        let fps = f64::from(auto.frames) / secs;
        let beam_fps = f64::from(auto.beam_frames) / auto.beam_seconds.max(0.001);
        let line = format!(
            "frames {} seconds {secs:.1} fps {fps:.1} beam_frames {} beam_fps {beam_fps:.1}\n",
            auto.frames, auto.beam_frames
        );
        let _ = std::fs::write(auto.dir.join("fps.txt"), &line);
        info!("autoplay done: {line}");
        exit.write(AppExit::Success);
    }
    // Screenshots that never reach the disk end the run at the script's frame limit.
}
