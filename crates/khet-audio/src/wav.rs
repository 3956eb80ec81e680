//! WAV files: 16-bit PCM, mono or stereo (mixed down to mono), any rate. Anything else is
//! refused with the reason; nothing here panics on bad bytes.

use crate::Clip;
use std::fmt;

/// The largest WAV file read (about three minutes of CD-quality stereo).
pub const MAX_BYTES: usize = 32 * 1024 * 1024;

/// Why a file is not a clip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WavError {
    TooBig(usize),
    NotRiffWave,
    /// A chunk claims more bytes than the file has.
    Truncated(&'static str),
    NoFormat,
    NoData,
    /// Only integer PCM (format 1) is read.
    Encoding(u16),
    Channels(u16),
    Bits(u16),
    Rate(u32),
}

impl fmt::Display for WavError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WavError::TooBig(n) => {
                write!(f, "too big for a sound ({n} bytes; at most {MAX_BYTES})")
            }
            WavError::NotRiffWave => write!(f, "not a WAV file (no RIFF/WAVE header)"),
            WavError::Truncated(what) => write!(f, "truncated in its {what}"),
            WavError::NoFormat => write!(f, "no `fmt ` chunk before the samples"),
            WavError::NoData => write!(f, "no `data` chunk"),
            WavError::Encoding(e) => write!(f, "encoding {e} is not plain PCM (1)"),
            WavError::Channels(c) => write!(f, "{c} channels (1 or 2 are read)"),
            WavError::Bits(b) => write!(f, "{b}-bit samples (16-bit are read)"),
            WavError::Rate(r) => write!(f, "sample rate {r} Hz is out of range"),
        }
    }
}

impl std::error::Error for WavError {}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Reads a WAV file's bytes.
pub fn decode(bytes: &[u8]) -> Result<Clip, WavError> {
    if bytes.len() > MAX_BYTES {
        return Err(WavError::TooBig(bytes.len()));
    }
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return Err(WavError::NotRiffWave);
    }
    let mut at = 12;
    let mut format: Option<(u16, u32)> = None;
    while at + 8 <= bytes.len() {
        let id = &bytes[at..at + 4];
        let size = u32_at(bytes, at + 4) as usize;
        let body = at + 8;
        let end = body.checked_add(size).ok_or(WavError::Truncated("chunk"))?;
        match id {
            b"fmt " => {
                if size < 16 || end > bytes.len() {
                    return Err(WavError::Truncated("`fmt ` chunk"));
                }
                let encoding = u16_at(bytes, body);
                let channels = u16_at(bytes, body + 2);
                let rate = u32_at(bytes, body + 4);
                let bits = u16_at(bytes, body + 14);
                if encoding != 1 {
                    return Err(WavError::Encoding(encoding));
                }
                if !(1..=2).contains(&channels) {
                    return Err(WavError::Channels(channels));
                }
                if bits != 16 {
                    return Err(WavError::Bits(bits));
                }
                if !(4_000..=192_000).contains(&rate) {
                    return Err(WavError::Rate(rate));
                }
                format = Some((channels, rate));
            }
            b"data" => {
                let (channels, rate) = format.ok_or(WavError::NoFormat)?;
                // A writer that died early leaves a size past the end: refuse it rather than
                // play half a sound the player would take for a bug.
                if end > bytes.len() {
                    return Err(WavError::Truncated("`data` chunk"));
                }
                let frame = 2 * channels as usize;
                let samples = bytes[body..end]
                    .chunks_exact(frame)
                    .map(|f| {
                        let sum: f32 = f
                            .chunks_exact(2)
                            .map(|s| f32::from(i16::from_le_bytes([s[0], s[1]])))
                            .sum();
                        sum / (f32::from(channels) * 32768.0)
                    })
                    .collect::<Vec<_>>();
                return Ok(Clip::new(rate, samples));
            }
            _ => {}
        }
        // Chunks are padded to an even length.
        at = end + (size & 1);
    }
    Err(if format.is_none() {
        WavError::NoFormat
    } else {
        WavError::NoData
    })
}

/// Writes mono 16-bit PCM: for the tests, and for anyone making clips in Rust.
pub fn encode(rate: u32, samples: &[f32]) -> Vec<u8> {
    let data = samples.len() * 2;
    let mut out = Vec::with_capacity(44 + data);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data as u32).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&rate.to_le_bytes());
    out.extend_from_slice(&(rate * 2).to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&(data as u32).to_le_bytes());
    for s in samples {
        let v = (s.clamp(-1.0, 1.0) * 32767.0).round() as i16;
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let samples: Vec<f32> = (0..100).map(|i| (i as f32 / 10.0).sin() * 0.5).collect();
        let clip = decode(&encode(22_050, &samples)).unwrap();
        assert_eq!(clip.rate(), 22_050);
        assert_eq!(clip.len(), 100);
        for (a, b) in clip.samples().iter().zip(&samples) {
            assert!((a - b).abs() < 1e-4);
        }
    }

    #[test]
    fn stereo_is_mixed_down() {
        let mut bytes = encode(8_000, &[0.0; 4]);
        // Make it a 2-frame stereo file: left full, right zero.
        bytes[22] = 2;
        for (i, v) in [32767i16, 0, 32767, 0].iter().enumerate() {
            bytes[44 + 2 * i..46 + 2 * i].copy_from_slice(&v.to_le_bytes());
        }
        let clip = decode(&bytes).unwrap();
        assert_eq!(clip.len(), 2);
        assert!((clip.samples()[0] - 0.5).abs() < 1e-3);
    }

    #[test]
    fn bad_files_are_refused_with_a_reason() {
        let good = encode(8_000, &[0.1; 50]);
        assert_eq!(decode(b"").unwrap_err(), WavError::NotRiffWave);
        assert_eq!(
            decode(b"\xef\xbb\xbfRIFF").unwrap_err(),
            WavError::NotRiffWave
        );
        assert_eq!(decode(&[0xff; 64]).unwrap_err(), WavError::NotRiffWave);
        // Cut anywhere: never a panic, and cut inside the samples it says so.
        for n in 0..good.len() {
            assert!(
                decode(&good[..n]).is_err(),
                "a file cut at {n} bytes was read"
            );
        }
        assert_eq!(
            decode(&good[..good.len() - 2]).unwrap_err(),
            WavError::Truncated("`data` chunk")
        );
        let mut bits = good.clone();
        bits[34] = 8;
        assert_eq!(decode(&bits).unwrap_err(), WavError::Bits(8));
        let mut float = good.clone();
        float[20] = 3;
        assert_eq!(decode(&float).unwrap_err(), WavError::Encoding(3));
        let mut huge_chunk = good.clone();
        huge_chunk[40..44].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode(&huge_chunk).is_err());
        assert!(matches!(
            decode(&vec![0; MAX_BYTES + 1]),
            Err(WavError::TooBig(_))
        ));
        let mut no_fmt = good.clone();
        no_fmt[12..16].copy_from_slice(b"junk");
        assert_eq!(decode(&no_fmt).unwrap_err(), WavError::NoFormat);
    }
}
