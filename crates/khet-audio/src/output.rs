//! The device side: a thread that renders the shared mixer a period at a time and writes it to
//! the system's sound (ALSA on Linux, WASAPI on Windows). Dropping the [`Output`] stops the
//! thread and closes the device.

#[cfg(not(windows))]
use crate::alsa::Pcm;
#[cfg(windows)]
use crate::wasapi::Pcm;
use crate::{Mixer, OpenError, RATE};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Frames rendered per write: 10 ms, small enough that a ping starts with the flare it belongs to.
const PERIOD: usize = RATE as usize / 100;

/// Plays a shared mixer on the sound device until dropped.
pub struct Output {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    failed: Arc<Mutex<Option<String>>>,
}

impl Output {
    /// Opens `device` ("default" unless the player says otherwise) and starts playing `mixer`.
    pub fn open(device: &str, mixer: Arc<Mutex<Mixer>>) -> Result<Output, OpenError> {
        let stop = Arc::new(AtomicBool::new(false));
        let failed = Arc::new(Mutex::new(None));
        let (stop2, failed2) = (stop.clone(), failed.clone());
        // The device is opened on the thread that plays it (WASAPI's objects stay on the thread
        // that made them), which says at once whether it opened.
        let (opened_tx, opened) = std::sync::mpsc::sync_channel(1);
        let device = device.to_string();
        let thread = std::thread::Builder::new()
            .name("khet-sound".into())
            .spawn(move || {
                let mut pcm = match Pcm::open(&device, RATE, 40_000) {
                    Ok(pcm) => {
                        let _ = opened_tx.send(Ok(()));
                        pcm
                    }
                    Err(e) => {
                        let _ = opened_tx.send(Err(e));
                        return;
                    }
                };
                play(&mut pcm, &mixer, &stop2, &failed2);
            })
            .map_err(|e| OpenError(format!("could not start the sound thread: {e}")))?;
        let mut output = Output {
            stop,
            thread: Some(thread),
            failed,
        };
        match opened.recv() {
            Ok(Ok(())) => Ok(output),
            Ok(Err(e)) => Err(OpenError(e)),
            Err(_) => {
                output.thread.take().map(JoinHandle::join);
                Err(OpenError(
                    "the sound thread ended before opening the device".into(),
                ))
            }
        }
    }

    /// Why the device stopped playing, if it did (unplugged, say).
    pub fn failure(&self) -> Option<String> {
        self.failed.lock().ok().and_then(|f| f.clone())
    }
}

/// Renders the mixer a period at a time into the device until told to stop or the device fails.
fn play(pcm: &mut Pcm, mixer: &Mutex<Mixer>, stop: &AtomicBool, failed: &Mutex<Option<String>>) {
    let mut mono = vec![0.0f32; PERIOD];
    let mut frames = vec![0i16; PERIOD * 2];
    while !stop.load(Ordering::Relaxed) {
        match mixer.lock() {
            Ok(mut m) => m.render(&mut mono),
            // A panic elsewhere while holding the mixer: play silence.
            Err(_) => mono.fill(0.0),
        }
        for (f, s) in frames.chunks_exact_mut(2).zip(&mono) {
            let v = (s.clamp(-1.0, 1.0) * 32767.0) as i16;
            f[0] = v;
            f[1] = v;
        }
        if let Err(e) = pcm.write(&frames) {
            if let Ok(mut f) = failed.lock() {
                *f = Some(e);
            }
            return;
        }
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_device_is_an_error_not_a_panic() {
        let mixer = Arc::new(Mutex::new(Mixer::new(RATE)));
        let err = Output::open("khet-no-such-device", mixer).err();
        let err = err.expect("a device that does not exist cannot open");
        // The player is told which device failed, or that ALSA itself is missing.
        let alsa_missing = err.0.contains("libasound.so.2");
        assert!(
            alsa_missing
                || err
                    .0
                    .starts_with("no sound device \"khet-no-such-device\": "),
            "{err}"
        );
        // ALSA takes the name as a C string; WASAPI's endpoint IDs are counted strings.
        #[cfg(not(windows))]
        {
            let err = Output::open("nul\0inside", Arc::new(Mutex::new(Mixer::new(RATE)))).err();
            let err = err.expect("a name with a NUL byte cannot open");
            assert!(alsa_missing || err.0.contains("NUL byte"), "{err}");
        }
    }
}
