//! The mixer: one-shot voices and keyed loops added up at [`crate::RATE`], scaled by the master
//! volume, and softly limited so that many pings at once never clip harshly.

use std::sync::Arc;

/// A mono sound in memory, shared by every voice that plays it.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    rate: u32,
    samples: Arc<[f32]>,
}

impl Clip {
    pub fn new(rate: u32, samples: Vec<f32>) -> Clip {
        Clip {
            rate: rate.max(1),
            samples: samples.into(),
        }
    }

    pub fn rate(&self) -> u32 {
        self.rate
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    pub fn samples(&self) -> &[f32] {
        &self.samples
    }

    /// Length in seconds.
    pub fn seconds(&self) -> f32 {
        self.samples.len() as f32 / self.rate as f32
    }

    /// The sample at a fractional position, linearly interpolated (wrapping for loops).
    fn at(&self, pos: f64, looping: bool) -> f32 {
        let n = self.samples.len();
        let i = pos.floor() as usize;
        let frac = (pos - pos.floor()) as f32;
        let a = self.samples[i % n];
        let j = i + 1;
        let b = if j < n {
            self.samples[j]
        } else if looping {
            self.samples[j % n]
        } else {
            0.0
        };
        a + (b - a) * frac
    }
}

#[derive(Debug)]
struct Voice {
    clip: Clip,
    /// Position in the clip's own samples.
    pos: f64,
    gain: f32,
    /// Set for loops: the key they are started and stopped by.
    key: Option<&'static str>,
    /// Loops fade in and out by this much per output sample (0 for one-shots).
    fade_step: f32,
    level: f32,
    stopping: bool,
}

/// How long a loop takes to fade in or out.
const FADE_SECONDS: f32 = 0.08;

/// The most voices at once; the oldest one-shot makes room for a new one.
const MAX_VOICES: usize = 32;

/// Adds up what is playing. Cheap to lock: the device thread holds it for one period's render.
#[derive(Debug)]
pub struct Mixer {
    rate: u32,
    voices: Vec<Voice>,
    volume: f32,
    muted: bool,
    /// How many clips were started, for the tests and the diagnostics.
    started: u64,
}

impl Mixer {
    pub fn new(rate: u32) -> Mixer {
        Mixer {
            rate: rate.max(1),
            voices: Vec::new(),
            volume: 1.0,
            muted: false,
            started: 0,
        }
    }

    /// The master volume, 0 to 1 (out-of-range values are clamped).
    pub fn set_volume(&mut self, volume: f32) {
        self.volume = if volume.is_finite() {
            volume.clamp(0.0, 1.0)
        } else {
            0.0
        };
    }

    pub fn volume(&self) -> f32 {
        self.volume
    }

    /// Muted, voices go on playing silently (a loop unmuted mid-beam is heard at once).
    pub fn set_muted(&mut self, muted: bool) {
        self.muted = muted;
    }

    pub fn muted(&self) -> bool {
        self.muted
    }

    /// Plays a clip once at `gain` (0 to 1).
    pub fn play(&mut self, clip: &Clip, gain: f32) {
        if clip.is_empty() {
            return;
        }
        if self.voices.len() >= MAX_VOICES
            && let Some(oldest) = self.voices.iter().position(|v| v.key.is_none())
        {
            self.voices.remove(oldest);
        }
        self.started += 1;
        self.voices.push(Voice {
            clip: clip.clone(),
            pos: 0.0,
            gain: gain.clamp(0.0, 1.0),
            key: None,
            fade_step: 0.0,
            level: 1.0,
            stopping: false,
        });
    }

    /// Starts a loop under `key`, fading in; a loop already playing under it goes on (and stops
    /// stopping).
    pub fn start_loop(&mut self, key: &'static str, clip: &Clip, gain: f32) {
        if clip.is_empty() {
            return;
        }
        if let Some(v) = self.voices.iter_mut().find(|v| v.key == Some(key)) {
            v.stopping = false;
            v.gain = gain.clamp(0.0, 1.0);
            return;
        }
        self.started += 1;
        self.voices.push(Voice {
            clip: clip.clone(),
            pos: 0.0,
            gain: gain.clamp(0.0, 1.0),
            key: Some(key),
            fade_step: 1.0 / (FADE_SECONDS * self.rate as f32),
            level: 0.0,
            stopping: false,
        });
    }

    /// Fades out the loop under `key`, if one plays.
    pub fn stop_loop(&mut self, key: &'static str) {
        for v in &mut self.voices {
            if v.key == Some(key) {
                v.stopping = true;
            }
        }
    }

    /// Whether a loop plays under `key` and is not fading out.
    pub fn is_looping(&self, key: &'static str) -> bool {
        self.voices
            .iter()
            .any(|v| v.key == Some(key) && !v.stopping)
    }

    /// Voices playing now.
    pub fn voices(&self) -> usize {
        self.voices.len()
    }

    /// Clips started since the mixer was made.
    pub fn started(&self) -> u64 {
        self.started
    }

    /// Fills `out` with the next mono samples, replacing what was there.
    pub fn render(&mut self, out: &mut [f32]) {
        out.fill(0.0);
        let master = if self.muted { 0.0 } else { self.volume };
        let rate = self.rate as f64;
        for v in &mut self.voices {
            let step = v.clip.rate as f64 / rate;
            let looping = v.key.is_some();
            let n = v.clip.len() as f64;
            for o in out.iter_mut() {
                if !looping && v.pos >= n {
                    break;
                }
                if looping {
                    let target = if v.stopping { 0.0 } else { 1.0 };
                    if v.level < target {
                        v.level = (v.level + v.fade_step).min(1.0);
                    } else if v.level > target {
                        v.level = (v.level - v.fade_step).max(0.0);
                    }
                    if v.stopping && v.level <= 0.0 {
                        break;
                    }
                }
                *o += v.clip.at(v.pos, looping) * v.gain * v.level * master;
                v.pos += step;
                if looping && v.pos >= n {
                    v.pos -= n;
                }
            }
        }
        self.voices.retain(|v| {
            if v.key.is_some() {
                !(v.stopping && v.level <= 0.0)
            } else {
                v.pos < v.clip.len() as f64
            }
        });
        // A soft knee above 0.8 keeps the sum within ±1 without a hard clip.
        for o in out.iter_mut() {
            let a = o.abs();
            if a > 0.8 {
                *o = o.signum() * (0.8 + 0.2 * ((a - 0.8) / 0.2).tanh());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(rate: u32, len: usize) -> Clip {
        Clip::new(
            rate,
            (0..len).map(|i| (i as f32 * 0.3).sin() * 0.5).collect(),
        )
    }

    fn energy(s: &[f32]) -> f32 {
        s.iter().map(|x| x * x).sum()
    }

    #[test]
    fn a_one_shot_plays_once_then_ends() {
        let mut m = Mixer::new(1000);
        m.play(&tone(1000, 300), 1.0);
        let mut buf = vec![0.0; 200];
        m.render(&mut buf);
        assert!(energy(&buf) > 1.0);
        assert_eq!(m.voices(), 1);
        m.render(&mut buf);
        assert!(energy(&buf[..100]) > 0.5);
        assert!(energy(&buf[100..]) == 0.0, "silence after the clip ends");
        assert_eq!(m.voices(), 0);
        assert_eq!(m.started(), 1);
    }

    #[test]
    fn volume_and_mute_scale_the_output() {
        let mut loud = Mixer::new(1000);
        let mut soft = Mixer::new(1000);
        soft.set_volume(0.5);
        let clip = tone(1000, 100);
        loud.play(&clip, 0.5);
        soft.play(&clip, 0.5);
        let (mut a, mut b) = (vec![0.0; 100], vec![0.0; 100]);
        loud.render(&mut a);
        soft.render(&mut b);
        assert!((energy(&a) / energy(&b) - 4.0).abs() < 0.01);
        let mut muted = Mixer::new(1000);
        muted.set_muted(true);
        muted.play(&clip, 1.0);
        muted.render(&mut a);
        assert_eq!(energy(&a), 0.0);
        soft.set_volume(f32::NAN);
        assert_eq!(soft.volume(), 0.0);
        soft.set_volume(7.0);
        assert_eq!(soft.volume(), 1.0);
    }

    #[test]
    fn a_loop_fades_in_keeps_going_and_fades_out() {
        let rate = 1000;
        let mut m = Mixer::new(rate);
        let hum = tone(rate, 50);
        m.start_loop("hum", &hum, 1.0);
        m.start_loop("hum", &hum, 1.0);
        assert_eq!(m.voices(), 1, "one loop per key");
        let mut buf = vec![0.0; 400];
        m.render(&mut buf);
        // Fading in over 80 samples: the first ten are quieter than ten later.
        assert!(energy(&buf[0..10]) < energy(&buf[200..210]));
        m.render(&mut buf);
        assert!(
            energy(&buf[300..400]) > 1.0,
            "still playing after many turns"
        );
        m.stop_loop("hum");
        assert!(!m.is_looping("hum"));
        m.render(&mut buf);
        assert!(energy(&buf[..40]) > 0.5, "fading out, not cut");
        assert!(energy(&buf[100..]) == 0.0, "silent once faded out");
        assert_eq!(m.voices(), 0);
    }

    #[test]
    fn other_rates_are_resampled() {
        let mut m = Mixer::new(1000);
        m.play(&tone(500, 100), 1.0);
        let mut buf = vec![0.0; 400];
        m.render(&mut buf);
        // 100 samples at half the rate last 200 output samples.
        assert!(energy(&buf[150..195]) > 0.1);
        assert!(energy(&buf[201..]) == 0.0);
    }

    #[test]
    fn many_voices_stay_within_full_scale() {
        let mut m = Mixer::new(1000);
        let clip = Clip::new(1000, vec![0.9; 100]);
        for _ in 0..100 {
            m.play(&clip, 1.0);
        }
        assert!(m.voices() <= MAX_VOICES);
        let mut buf = vec![0.0; 100];
        m.render(&mut buf);
        assert!(buf.iter().all(|s| s.abs() <= 1.0 && *s > 0.8));
    }
}
