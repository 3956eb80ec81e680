//! Sound for Khet, with nothing to install to build it.
//!
//! Bevy's audio (through cpal) needs the ALSA headers and `pkg-config` at build time. This crate
//! needs neither: it opens `libasound.so.2` at run time (present on practically every Linux
//! desktop, and routed to the sound server (`PulseAudio`, `PipeWire`) by ALSA plugins), and when the library
//! or a sound device is missing the game plays on silently and says why once. On Windows it
//! plays through WASAPI, the system's own sound interface, with the same silence and notice
//! when there is no device. In a browser it plays through Web Audio, from the first click or
//! key on (browsers allow a page no sound before).
//!
//! - [`wav`] reads 16-bit PCM WAV files into [`Clip`]s.
//! - [`Mixer`] adds up the playing voices, with a master volume, mute, and keyed loops that fade
//!   in and out (the laser's hum). It is pure and tested without a device.
//! - [`Output`] feeds a shared mixer to the sound device from a thread of its own.

#[cfg(not(any(windows, target_arch = "wasm32")))]
mod alsa;
mod mixer;
#[cfg(not(target_arch = "wasm32"))]
mod output;
#[cfg(windows)]
mod wasapi;
pub mod wav;
#[cfg(target_arch = "wasm32")]
mod web;

pub use mixer::{Clip, Mixer};
#[cfg(not(target_arch = "wasm32"))]
pub use output::Output;
#[cfg(target_arch = "wasm32")]
pub use web::Output;

/// Why there is no sound. The game plays on silently and says this once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenError(pub String);

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OpenError {}

/// The rate the mixer runs at and the device is opened with; clips at other rates are
/// resampled as they play.
pub const RATE: u32 = 44_100;
