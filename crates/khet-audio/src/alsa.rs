//! The few ALSA calls the output needs, looked up in `libasound.so.2` at run time.
//!
//! This is the crate's only `unsafe`: calls into a C library whose signatures are written out
//! below from `<alsa/pcm.h>` (alsa-lib 1.x, stable since 2002).
#![allow(unsafe_code)]

use libloading::Library;
use std::ffi::{CStr, CString, c_char, c_int, c_long, c_uint, c_ulong, c_void};

type PcmOpen = unsafe extern "C" fn(*mut *mut c_void, *const c_char, c_int, c_int) -> c_int;
type PcmSetParams =
    unsafe extern "C" fn(*mut c_void, c_int, c_int, c_uint, c_uint, c_int, c_uint) -> c_int;
type PcmWritei = unsafe extern "C" fn(*mut c_void, *const c_void, c_ulong) -> c_long;
type PcmRecover = unsafe extern "C" fn(*mut c_void, c_int, c_int) -> c_int;
type PcmClose = unsafe extern "C" fn(*mut c_void) -> c_int;
type StrError = unsafe extern "C" fn(c_int) -> *const c_char;

const SND_PCM_STREAM_PLAYBACK: c_int = 0;
const SND_PCM_FORMAT_S16_LE: c_int = 2;
const SND_PCM_ACCESS_RW_INTERLEAVED: c_int = 3;

/// An open playback device taking interleaved 16-bit stereo frames.
pub struct Pcm {
    handle: *mut c_void,
    writei: PcmWritei,
    recover: PcmRecover,
    close: PcmClose,
    strerror: StrError,
    // Last, so the library is unloaded after the handle is closed in `drop`.
    _lib: Library,
}

// SAFETY: an ALSA PCM handle may be used from any thread as long as one thread at a time uses
// it; `Pcm` is owned by the output thread alone and has no `&self` methods that call ALSA.
unsafe impl Send for Pcm {}

impl Pcm {
    /// Opens `device` (usually "default") for playback at `rate` Hz with about `latency_us` of
    /// buffering.
    pub fn open(device: &str, rate: u32, latency_us: u32) -> Result<Pcm, String> {
        // SAFETY: loading alsa-lib runs its initialisers, which have no preconditions.
        let lib = unsafe { Library::new("libasound.so.2") }
            .map_err(|e| format!("the ALSA library (libasound.so.2) is not installed: {e}"))?;
        // SAFETY: each symbol is looked up with the signature alsa-lib declares for it, and the
        // function pointers are only used while `lib` (kept in the `Pcm`) stays loaded.
        let (open, set_params, writei, recover, close, strerror) = unsafe {
            (
                *lib.get::<PcmOpen>(b"snd_pcm_open\0")
                    .map_err(|e| e.to_string())?,
                *lib.get::<PcmSetParams>(b"snd_pcm_set_params\0")
                    .map_err(|e| e.to_string())?,
                *lib.get::<PcmWritei>(b"snd_pcm_writei\0")
                    .map_err(|e| e.to_string())?,
                *lib.get::<PcmRecover>(b"snd_pcm_recover\0")
                    .map_err(|e| e.to_string())?,
                *lib.get::<PcmClose>(b"snd_pcm_close\0")
                    .map_err(|e| e.to_string())?,
                *lib.get::<StrError>(b"snd_strerror\0")
                    .map_err(|e| e.to_string())?,
            )
        };
        let name = CString::new(device).map_err(|_| "a device name with a NUL byte".to_string())?;
        let mut handle: *mut c_void = std::ptr::null_mut();
        // SAFETY: `handle` is a valid out-pointer and `name` a NUL-terminated string that
        // outlives the call.
        let err = unsafe { open(&mut handle, name.as_ptr(), SND_PCM_STREAM_PLAYBACK, 0) };
        if err < 0 || handle.is_null() {
            return Err(format!(
                "no sound device \"{device}\": {}",
                describe(strerror, err)
            ));
        }
        let pcm = Pcm {
            handle,
            writei,
            recover,
            close,
            strerror,
            _lib: lib,
        };
        // SAFETY: `handle` was just opened and is not yet used elsewhere.
        let err = unsafe {
            set_params(
                pcm.handle,
                SND_PCM_FORMAT_S16_LE,
                SND_PCM_ACCESS_RW_INTERLEAVED,
                2,
                rate,
                1,
                latency_us,
            )
        };
        if err < 0 {
            return Err(format!(
                "the sound device \"{device}\" refused 16-bit stereo at {rate} Hz: {}",
                describe(strerror, err)
            ));
        }
        Ok(pcm)
    }

    /// Writes interleaved stereo frames, blocking until the device takes them all; recovers
    /// from an underrun once per call. An error is the device gone for good.
    pub fn write(&mut self, mut frames: &[i16]) -> Result<(), String> {
        let mut recovered = false;
        while frames.len() >= 2 {
            let count = (frames.len() / 2) as c_ulong;
            // SAFETY: `frames` holds `count` interleaved stereo frames of i16, the format the
            // device was opened with, and stays borrowed for the call.
            let n = unsafe { (self.writei)(self.handle, frames.as_ptr().cast(), count) };
            if n >= 0 {
                frames = &frames[(n as usize * 2).min(frames.len())..];
                continue;
            }
            let err = n as c_int;
            // SAFETY: the handle is open; recover only inspects and resets its state.
            if recovered || unsafe { (self.recover)(self.handle, err, 1) } < 0 {
                return Err(describe(self.strerror, err));
            }
            recovered = true;
        }
        Ok(())
    }
}

impl Drop for Pcm {
    fn drop(&mut self) {
        // SAFETY: the handle is open and dropped once; nothing uses it afterwards.
        unsafe {
            (self.close)(self.handle);
        }
    }
}

fn describe(strerror: StrError, err: c_int) -> String {
    // SAFETY: snd_strerror returns a pointer to a static NUL-terminated message for any code.
    let text = unsafe { strerror(err) };
    if text.is_null() {
        return format!("error {err}");
    }
    // SAFETY: non-null, NUL-terminated and static, as above.
    unsafe { CStr::from_ptr(text) }
        .to_string_lossy()
        .into_owned()
}
