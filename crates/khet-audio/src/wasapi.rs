//! The few WASAPI calls the output needs on Windows: a shared-mode stream on the default (or a
//! named) render endpoint, fed 16-bit stereo that Windows converts to the device's own format.
//!
//! With `alsa`, the crate's only `unsafe`: COM calls through the `windows` crate (already in the
//! game's Windows build through wgpu), each documented by Microsoft's WASAPI reference.
#![allow(unsafe_code)]

use std::time::Duration;
use windows::Win32::Media::Audio::{
    AUDCLNT_SHAREMODE_SHARED, AUDCLNT_STREAMFLAGS_AUTOCONVERTPCM,
    AUDCLNT_STREAMFLAGS_SRC_DEFAULT_QUALITY, IAudioClient, IAudioRenderClient, IMMDevice,
    IMMDeviceEnumerator, MMDeviceEnumerator, WAVE_FORMAT_PCM, WAVEFORMATEX, eConsole, eRender,
};
use windows::Win32::System::Com::{
    CLSCTX_ALL, COINIT_MULTITHREADED, CoCreateInstance, CoInitializeEx, CoUninitialize,
};
use windows::core::HSTRING;

/// An open shared-mode stream taking interleaved 16-bit stereo frames. COM objects stay on the
/// thread that made them: the output opens and uses a `Pcm` on its own thread.
pub struct Pcm {
    client: IAudioClient,
    render: IAudioRenderClient,
    /// The stream's buffer, in frames.
    capacity: u32,
    /// How long to wait for room when the buffer is full: a quarter of it.
    nap: Duration,
    started: bool,
    // Last: COM is uninitialised after the interfaces above are released.
    _com: Com,
}

/// COM initialised on this thread until dropped.
struct Com;

impl Drop for Com {
    fn drop(&mut self) {
        // SAFETY: paired with the successful CoInitializeEx in `Pcm::open`, on the same thread.
        unsafe { CoUninitialize() };
    }
}

impl Pcm {
    /// Opens `device` ("default", or an endpoint's ID) for playback at `rate` Hz with about
    /// `latency_us` of buffering.
    pub fn open(device: &str, rate: u32, latency_us: u32) -> Result<Pcm, String> {
        // SAFETY: initialises COM for this thread; undone by `Com`'s drop.
        unsafe { CoInitializeEx(None, COINIT_MULTITHREADED) }
            .ok()
            .map_err(|e| format!("Windows' COM did not start: {e}"))?;
        let com = Com;
        let no_device = |e: windows::core::Error| format!("no sound device \"{device}\": {e}");
        // SAFETY: plain COM calls on interfaces this function owns; every out-value is returned
        // by the wrapper, none is read before it succeeds.
        let (client, capacity) = unsafe {
            let devices: IMMDeviceEnumerator =
                CoCreateInstance(&MMDeviceEnumerator, None, CLSCTX_ALL).map_err(no_device)?;
            let endpoint: IMMDevice = if device == "default" {
                devices.GetDefaultAudioEndpoint(eRender, eConsole)
            } else {
                devices.GetDevice(&HSTRING::from(device))
            }
            .map_err(no_device)?;
            let client: IAudioClient = endpoint.Activate(CLSCTX_ALL, None).map_err(no_device)?;
            let format = WAVEFORMATEX {
                wFormatTag: WAVE_FORMAT_PCM as u16,
                nChannels: 2,
                nSamplesPerSec: rate,
                nAvgBytesPerSec: rate * 4,
                nBlockAlign: 4,
                wBitsPerSample: 16,
                cbSize: 0,
            };
            // The buffer's length is in units of 100 ns.
            client
                .Initialize(
                    AUDCLNT_SHAREMODE_SHARED,
                    AUDCLNT_STREAMFLAGS_AUTOCONVERTPCM | AUDCLNT_STREAMFLAGS_SRC_DEFAULT_QUALITY,
                    i64::from(latency_us) * 10,
                    0,
                    &format,
                    None,
                )
                .map_err(|e| {
                    format!("the sound device \"{device}\" refused 16-bit stereo at {rate} Hz: {e}")
                })?;
            let capacity = client.GetBufferSize().map_err(no_device)?;
            (client, capacity)
        };
        // SAFETY: the client was initialised above, which GetService requires.
        let render: IAudioRenderClient = unsafe { client.GetService() }.map_err(no_device)?;
        let nap = Duration::from_micros(u64::from(capacity) * 250_000 / u64::from(rate.max(1)));
        Ok(Pcm {
            client,
            render,
            capacity,
            nap: nap.max(Duration::from_millis(1)),
            started: false,
            _com: com,
        })
    }

    /// Writes interleaved stereo frames, waiting for room in the stream's buffer until it takes
    /// them all. An error is the device gone for good (unplugged, say).
    pub fn write(&mut self, mut frames: &[i16]) -> Result<(), String> {
        let lost = |e: windows::core::Error| format!("the sound device stopped: {e}");
        while frames.len() >= 2 {
            // SAFETY: the client is initialised; the padding is the frames still queued.
            let queued = unsafe { self.client.GetCurrentPadding() }.map_err(lost)?;
            let room = self.capacity.saturating_sub(queued) as usize;
            let count = room.min(frames.len() / 2);
            if count == 0 {
                if !self.started {
                    self.start()?;
                }
                std::thread::sleep(self.nap);
                continue;
            }
            // SAFETY: GetBuffer hands out room for `count` frames of the stream's format
            // (4 bytes each), which is written in full before ReleaseBuffer gives it back.
            unsafe {
                let data = self.render.GetBuffer(count as u32).map_err(lost)?;
                std::ptr::copy_nonoverlapping(frames.as_ptr().cast::<u8>(), data, count * 4);
                self.render.ReleaseBuffer(count as u32, 0).map_err(lost)?;
            }
            frames = &frames[count * 2..];
        }
        if !self.started {
            self.start()?;
        }
        Ok(())
    }

    /// Starts the stream once the buffer holds sound, so that it does not begin with a gap.
    fn start(&mut self) -> Result<(), String> {
        // SAFETY: the client is initialised and not yet started.
        unsafe { self.client.Start() }
            .map_err(|e| format!("the sound device did not start: {e}"))?;
        self.started = true;
        Ok(())
    }
}

impl Drop for Pcm {
    fn drop(&mut self) {
        if self.started {
            // SAFETY: the client was started; stopping it before release ends the stream cleanly.
            let _ = unsafe { self.client.Stop() };
        }
    }
}
