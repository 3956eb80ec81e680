//! Words on a screenshot and where they are, read by Tesseract: how the 3D page's tests find the
//! game's buttons, which egui draws into the canvas where no element of the page names them. A
//! player finds a button by its words too.

use super::browser::Picture;
use std::process::{Command, Stdio};

/// How many times larger the picture is made for Tesseract: the game's words are 12-14 pixels
/// high, which it reads poorly at their own size.
const SCALE: u32 = 3;

/// A word as Tesseract read it, and its box in the picture's pixels.
#[derive(Clone, Debug)]
pub struct Word {
    pub text: String,
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
        left: scaled(6)?,
        top: scaled(7)?,
        width: scaled(8)?,
        height: scaled(9)?,
    })
}

/// A word's letters and digits, lower case, and a question mark if it ends so: what two
/// readings of one word agree on (a dialog's title `Resume?` is not its button `Resume`).
fn plain(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| c.is_alphanumeric() || *c == '?')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether `read` is `want` but for one letter read wrong, missed or added.
fn one_off(read: &[char], want: &[char]) -> bool {
    if read.len().abs_diff(want.len()) > 1 {
        return false;
    }
    let (short, long) = if read.len() <= want.len() {
        (read, want)
    } else {
        (want, read)
    };
    let start = short.iter().zip(long).take_while(|(a, b)| a == b).count();
    if start == short.len() {
        return true;
    }
    if short.len() == long.len() {
        short[start + 1..] == long[start + 1..]
    } else {
        short[start..] == long[start + 1..]
    }
}

/// Whether Tesseract's readings `read` are the words `want`: each the same, or one letter off
/// where the word is long enough to be known by the rest (four letters, or three beside a word
/// read exactly: `Mot now` is `Not now`, `tuterial` is `tutorial`, `0K` is not `OK`).
fn same_words(read: &[Vec<char>], want: &[Vec<char>]) -> bool {
    let exact = read.iter().zip(want).any(|(r, w)| r == w);
    read.iter().zip(want).all(|(r, w)| {
        r == w
            || ((w.len() >= 4 || (w.len() == 3 && exact))
                && r.contains(&'?') == w.contains(&'?')
                && one_off(r, w))
    })
}

/// Where a phrase stands: its centre, and whether its words are the whole line (a button's
/// words alone, not the heading that begins with them).
#[derive(Clone, Copy, Debug)]
pub struct Found {
    pub x: f64,
    pub y: f64,
    pub alone: bool,
}

/// Whether `next` stands right after `word` on the same row of text: its middle at the same
/// height, its start a little after `word`'s end. (Tesseract's own lines are not enough: reading
/// sparse text, it may put the last word of a title in a block of its own.)
fn follows(word: &Word, next: &Word) -> bool {
    let (a, b) = (word.top + word.height / 2.0, next.top + next.height / 2.0);
    let gap = next.left - (word.left + word.width);
    (a - b).abs() < word.height.max(next.height) * 0.6 && gap > -3.0 && gap < 3.0 * word.height
}

/// Wherever the words of `phrase` stand one after another on a row, top first.
pub fn find(words: &[Word], phrase: &str) -> Vec<Found> {
    let wanted: Vec<Vec<char>> = phrase.split_whitespace().map(plain).collect();
    let mut found = Vec::new();
    if wanted.is_empty() {
        return found;
    }
    for start in 0..words.len() {
        let run = &words[start..(start + wanted.len()).min(words.len())];
        if run.len() == wanted.len()
            && run.windows(2).all(|w| follows(&w[0], &w[1]))
            && same_words(
                &run.iter().map(|w| plain(&w.text)).collect::<Vec<_>>(),
                &wanted,
            )
        {
            let left = run[0].left;
            let right = run.iter().map(|w| w.left + w.width).fold(left, f64::max);
            let top = run.iter().map(|w| w.top).fold(f64::MAX, f64::min);
            let bottom = run.iter().map(|w| w.top + w.height).fold(top, f64::max);
            let (y, h) = ((top + bottom) / 2.0, bottom - top);
            // Alone: no other word on the row within a few letters of it.
            let alone = !words.iter().enumerate().any(|(i, w)| {
                !(start..start + run.len()).contains(&i)
                    && (w.top + w.height / 2.0 - y).abs() < h * 0.6
                    && w.left < right + 3.0 * h
                    && w.left + w.width > left - 3.0 * h
            });
            found.push(Found {
                x: (left + right) / 2.0,
                y,
                alone,
            });
        }
    }
    found.sort_by(|a, b| a.y.total_cmp(&b.y));
    found
}

/// The picture in grey, dark on light (the game's panels are light words on dark), `SCALE`
/// times larger and smoothed between pixels (Tesseract reads blocky letters worse): a PNG.
fn grey_enlarged(picture: &Picture) -> Vec<u8> {
    let (pw, ph) = (picture.width as usize, picture.height as usize);
    let ink: Vec<f64> = picture
        .rgba
        .chunks_exact(4)
        .map(|p| {
            255.0 - (0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2]))
        })
        .collect();
    let at = |x: usize, y: usize| ink[y.min(ph - 1) * pw + x.min(pw - 1)];
    let scale = SCALE as usize;
    let (w, h) = (pw * scale, ph * scale);
    let mut grey = Vec::with_capacity(w * h);
    for y in 0..h {
        for x in 0..w {
            let fx = ((x as f64 + 0.5) / scale as f64 - 0.5).max(0.0);
            let fy = ((y as f64 + 0.5) / scale as f64 - 0.5).max(0.0);
            let (x0, y0) = (fx.floor() as usize, fy.floor() as usize);
            let (tx, ty) = (fx - fx.floor(), fy - fy.floor());
            let v = at(x0, y0) * (1.0 - tx) * (1.0 - ty)
                + at(x0 + 1, y0) * tx * (1.0 - ty)
                + at(x0, y0 + 1) * (1.0 - tx) * ty
                + at(x0 + 1, y0 + 1) * tx * ty;
            grey.push(v.round().clamp(0.0, 255.0) as u8);
        }
    }
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, w as u32, h as u32);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().expect("a PNG header");
    writer.write_image_data(&grey).expect("the PNG's pixels");
    writer.finish().expect("the PNG finished");
    png
}
