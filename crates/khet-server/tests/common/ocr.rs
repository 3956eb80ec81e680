//! Words on a screenshot and where they are, read by Tesseract: how the 3D page's tests find the
//! game's buttons, which egui draws into the canvas where no element of the page names them. A
//! player finds a button by its words too.

use super::browser::Picture;
use std::process::{Command, Stdio};

/// How many times larger the picture is made for Tesseract: the game's words are 12-14 pixels
/// high, which it reads poorly at their own size.
const SCALE: u32 = 3;

/// A word as Tesseract read it, its line, and its box in the picture's pixels.
#[derive(Clone, Debug)]
pub struct Word {
    pub text: String,
    /// Block, paragraph and line: words with the same three are one line.
    pub line: (u32, u32, u32),
    pub left: f64,
    pub top: f64,
    pub width: f64,
    pub height: f64,
}

/// The words of `picture`, in Tesseract's order (line by line).
pub fn words(picture: &Picture) -> Vec<Word> {
    let file = std::env::temp_dir().join(format!(
        "khet-ocr-{}-{:?}.png",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&file, grey_enlarged(picture)).expect("the picture written for Tesseract");
    let out = Command::new("tesseract")
        .arg(&file)
        .args(["-", "--psm", "11", "tsv"])
        .stderr(Stdio::null())
        .output()
        .expect("tesseract runs (apt-get install tesseract-ocr; .ci/test installs it)");
    let _ = std::fs::remove_file(&file);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(1)
        .filter_map(parse_row)
        .collect()
}

/// One row of Tesseract's TSV: level, page, block, paragraph, line, word, left, top, width,
/// height, confidence, text. Only words (level 5) with text.
fn parse_row(row: &str) -> Option<Word> {
    let cells: Vec<&str> = row.split('\t').collect();
    if cells.len() < 12 || cells[0] != "5" || cells[11].trim().is_empty() {
        return None;
    }
    let n = |i: usize| cells[i].parse::<u32>().ok();
    let scaled = |i: usize| n(i).map(|v| f64::from(v) / f64::from(SCALE));
    Some(Word {
        text: cells[11].trim().to_string(),
        line: (n(2)?, n(3)?, n(4)?),
        left: scaled(6)?,
        top: scaled(7)?,
        width: scaled(8)?,
        height: scaled(9)?,
    })
}

/// A word's letters and digits, lower case: what two readings of one word agree on.
fn plain(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The centres of `phrase` wherever its words stand in a row on one line, top first.
pub fn find(words: &[Word], phrase: &str) -> Vec<(f64, f64)> {
    let wanted: Vec<String> = phrase.split_whitespace().map(plain).collect();
    let mut found = Vec::new();
    if wanted.is_empty() {
        return found;
    }
    for start in 0..words.len() {
        let run = &words[start..(start + wanted.len()).min(words.len())];
        if run.len() == wanted.len()
            && run.iter().all(|w| w.line == run[0].line)
            && run
                .iter()
                .zip(&wanted)
                .all(|(w, want)| plain(&w.text) == *want)
        {
            let left = run[0].left;
            let right = run.iter().map(|w| w.left + w.width).fold(left, f64::max);
            let top = run.iter().map(|w| w.top).fold(f64::MAX, f64::min);
            let bottom = run.iter().map(|w| w.top + w.height).fold(top, f64::max);
            found.push(((left + right) / 2.0, (top + bottom) / 2.0));
        }
    }
    found.sort_by(|a, b| a.1.total_cmp(&b.1));
    found
}

/// The picture in grey, dark on light (the game's panels are light words on dark), `SCALE`
/// times larger: a PNG.
fn grey_enlarged(picture: &Picture) -> Vec<u8> {
    let (w, h) = (picture.width * SCALE, picture.height * SCALE);
    let mut grey = Vec::with_capacity((w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            let i = (((y / SCALE) * picture.width + x / SCALE) * 4) as usize;
            let [r, g, b] = [0, 1, 2].map(|k| u32::from(picture.rgba[i + k]));
            let luma = (299 * r + 587 * g + 114 * b) / 1000;
            grey.push(255 - u8::try_from(luma).unwrap_or(255));
        }
    }
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, w, h);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().expect("a PNG header");
    writer.write_image_data(&grey).expect("the PNG's pixels");
    writer.finish().expect("the PNG finished");
    png
}
