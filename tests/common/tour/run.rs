//! Running the scripted tour in a real window (under Xvfb, or Wine for the Windows build) and
//! loading the pictures and notes it leaves, each judged against its reference frame.

use super::super::picture::{Comparison, Image, Rect, Sidecar, compare, difference, read_text};
use super::{PICTURES, Picture, frames_dir};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Says `line` on the test's standard error as it runs, past the test harness's capture, so
/// that the run's log (CI's) shows it even when the test passes.
pub fn say(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// The game in a window of its own under Xvfb (at most 15 minutes), as the window tests run it:
/// at the Low preset, with settings and saves in `dir`, and `KHET_BROKEN` set to `broken` if
/// given. The caller adds the script's arguments.
pub fn game_in_window(dir: &Path, broken: Option<&str>) -> Command {
    let mut cmd = Command::new("timeout");
    cmd.args(["900", "xvfb-run", "-a", "-s", "-screen 0 1280x800x24"]);
    // `.ci/windows` runs the Windows build's game under Wine instead, judged the same way, in a
    // Wine desktop of the window's size: on Xvfb's screen alone, Wine lists display modes without
    // a refresh rate, which winit refuses.
    match std::env::var_os("KHET_TOUR_WINE") {
        Some(exe) => cmd
            .args(["wine", "explorer", "/desktop=khet,1280x800"])
            .arg(exe),
        None => cmd.arg(env!("CARGO_BIN_EXE_khet")),
    };
    // What a player without a graphics card gets (Auto picks Low on llvmpipe), and three
    // times as fast as High here; the pictures in `docs/` are taken at High.
    cmd.env("KHET_AUTOPLAY_QUALITY", "low")
        // Settings and saves of its own, as on a new machine: the run neither reads nor
        // overwrites the developer's.
        .env("KHET_CONFIG", dir.join("config"))
        .env("KHET_DATA", dir.join("data"))
        .env_remove("KHET_BROKEN");
    if let Some(parts) = broken {
        cmd.env("KHET_BROKEN", parts);
    }
    cmd
}

/// Runs the scripted tour in the real window under Xvfb, its pictures and notes in a new
/// folder named `name` under the temporary folder (which it returns), with `KHET_BROKEN` set to
/// `broken` if given. `KHET_E2E_DIR=DIR` judges the pictures of an earlier run instead, when
/// working on the checks (`.ci/test` never sets it); only a run with every part drawn takes it,
/// since its pictures are no run's with parts left out (`tests/e2e_broken.rs` has its own).
pub fn run_tour(name: &str, broken: Option<&str>) -> PathBuf {
    if let (Some(dir), None) = (std::env::var_os("KHET_E2E_DIR"), broken) {
        return PathBuf::from(dir);
    }
    let has_xvfb = Command::new("sh")
        .args(["-c", "command -v xvfb-run"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        has_xvfb,
        "xvfb-run is missing: apt-get install xvfb mesa-vulkan-drivers, or set KHET_SKIP_E2E=1"
    );
    // The process's number padded to one width: the saved games' screen shows the folder's
    // path, and a longer one would wrap its line and move what is below.
    let dir = std::env::temp_dir().join(format!("{name}-{:07}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut cmd = game_in_window(&dir, broken);
    cmd.arg("--autoplay").arg(&dir);
    let status = cmd.status().expect("timeout and xvfb-run run");
    assert!(status.success(), "the scripted tour failed: {status}");
    dir
}

/// A tour's pictures and notes, loaded from its folder.
pub struct Run {
    pub dir: PathBuf,
    images: HashMap<&'static str, Image>,
    notes: HashMap<&'static str, Sidecar>,
}

impl Run {
    pub fn load(dir: &Path) -> Run {
        let mut run = Run {
            dir: dir.to_path_buf(),
            images: HashMap::new(),
            notes: HashMap::new(),
        };
        for p in PICTURES {
            run.images
                .insert(p.name, Image::load(&dir.join(format!("{}.png", p.name))));
            run.notes
                .insert(p.name, Sidecar::load(&dir.join(format!("{}.txt", p.name))));
        }
        run
    }

    pub fn img(&self, name: &str) -> &Image {
        &self.images[name]
    }

    pub fn note(&self, name: &str) -> &Sidecar {
        &self.notes[name]
    }

    /// A line of a picture's note, or "" when it has none.
    pub fn line(&self, name: &str, key: &str) -> &str {
        self.note(name).lines.get(key).map_or("", String::as_str)
    }

    /// The text in `rect` of a picture, read from its pixels.
    pub fn text(&self, name: &str, rect: Rect) -> String {
        read_text(self.img(name), rect)
    }

    /// The picture judged against its reference frame, within the picture's tolerance.
    pub fn against_reference(&self, p: &Picture) -> Result<Comparison, String> {
        self.judge_as(p.name, p)
    }

    /// The picture `shown` judged as if it were `p`: against `p`'s reference, within `p`'s
    /// tolerance and mask (to show that a bound sees what a picture must have).
    pub fn judge_as(&self, shown: &str, p: &Picture) -> Result<Comparison, String> {
        let path = frames_dir().join(format!("{}.png", p.name));
        if !path.exists() {
            return Err(format!(
                "no reference frame {} (KHET_UPDATE_FRAMES=1 cargo test --test e2e writes them)",
                path.display()
            ));
        }
        let reference = Image::load(&path);
        let ignore: Vec<Rect> = p.moving.iter().map(|(r, _)| *r).collect();
        Ok(compare(
            &self.img(shown).halved(),
            &reference,
            p.tolerance,
            &ignore,
        ))
    }

    /// Writes the picture, its reference and their difference into `out`, for a person to look
    /// at; their paths.
    pub fn keep_failure(&self, p: &Picture, c: &Comparison, out: &Path) -> String {
        let _ = std::fs::create_dir_all(out);
        let picture = self.img(p.name).halved();
        let reference = Image::load(&frames_dir().join(format!("{}.png", p.name)));
        let names = ["picture", "reference", "difference"]
            .map(|kind| out.join(format!("{}-{kind}.png", p.name)));
        picture.save(&names[0]);
        reference.save(&names[1]);
        difference(&picture, &reference, &c.failed).save(&names[2]);
        names
            .iter()
            .map(|n| n.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}
