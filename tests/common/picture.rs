//! Screenshots of the real window and the notes the scripted tour writes beside them (where
//! each square is on screen, and what was shown), for the window test and the package test.

use std::collections::HashMap;
use std::path::Path;

/// A screenshot's pixels.
pub struct Image {
    pub width: usize,
    pub height: usize,
    pub rgb: Vec<[u8; 3]>,
}

impl Image {
    pub fn load(path: &Path) -> Image {
        let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut reader = png::Decoder::new(std::io::BufReader::new(file))
            .read_info()
            .expect("a PNG");
        let mut buf = vec![0; reader.output_buffer_size().expect("a frame size")];
        let info = reader.next_frame(&mut buf).expect("a frame");
        let channels = info.color_type.samples();
        let (width, height) = (info.width as usize, info.height as usize);
        let mut rgb = Vec::with_capacity(width * height);
        for y in 0..height {
            let row = &buf[y * info.line_size..];
            for x in 0..width {
                let p = &row[x * channels..];
                rgb.push([p[0], p[1], p[2]]);
            }
        }
        Image { width, height, rgb }
    }

    pub fn at(&self, x: i64, y: i64) -> Option<[u8; 3]> {
        if x < 0 || y < 0 || x as usize >= self.width || y as usize >= self.height {
            return None;
        }
        Some(self.rgb[y as usize * self.width + x as usize])
    }

    /// How many pixels within `r` of a point pass `test`.
    pub fn count_near(&self, (x, y): (f32, f32), r: i64, test: impl Fn([u8; 3]) -> bool) -> usize {
        let (x, y) = (x.round() as i64, y.round() as i64);
        (-r..=r)
            .flat_map(|dy| (-r..=r).map(move |dx| (dx, dy)))
            .filter(|&(dx, dy)| self.at(x + dx, y + dy).is_some_and(&test))
            .count()
    }

    /// How many pixels within `r` of a point differ from `before`'s at the same place by more
    /// than `by` in some channel (the two pictures taken from the same view).
    pub fn changed_near(&self, before: &Image, (x, y): (f32, f32), r: i64, by: u8) -> usize {
        let (x, y) = (x.round() as i64, y.round() as i64);
        (-r..=r)
            .flat_map(|dy| (-r..=r).map(move |dx| (x + dx, y + dy)))
            .filter(|&(x, y)| self.differs(before, x, y, by))
            .count()
    }

    /// Whether the pixel at (x, y) differs from `before`'s by more than `by` in some channel.
    pub fn differs(&self, before: &Image, x: i64, y: i64, by: u8) -> bool {
        match (self.at(x, y), before.at(x, y)) {
            (Some(a), Some(b)) => (0..3).any(|i| a[i].abs_diff(b[i]) > by),
            _ => false,
        }
    }

    /// The pixels of a rectangle that pass `test`, given the pixel and its place.
    pub fn count_in(
        &self,
        xs: std::ops::Range<i64>,
        ys: std::ops::Range<i64>,
        test: impl Fn(i64, i64, [u8; 3]) -> bool,
    ) -> usize {
        ys.flat_map(|y| xs.clone().map(move |x| (x, y)))
            .filter(|&(x, y)| self.at(x, y).is_some_and(|p| test(x, y, p)))
            .count()
    }

    /// Whether some pixel within `r` of (x, y) passes `test`.
    pub fn any_near(&self, (x, y): (f32, f32), r: i64, test: impl Fn([u8; 3]) -> bool) -> bool {
        let (x, y) = (x.round() as i64, y.round() as i64);
        (-r..=r).any(|dy| (-r..=r).any(|dx| self.at(x + dx, y + dy).is_some_and(&test)))
    }
}

/// The text file beside a screenshot: where squares are on screen, and what was shown.
pub struct Sidecar {
    pub square: HashMap<String, (f32, f32)>,
    pub tile: HashMap<String, (f32, f32)>,
    pub lines: HashMap<String, String>,
}

impl Sidecar {
    pub fn load(path: &Path) -> Sidecar {
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut s = Sidecar {
            square: HashMap::new(),
            tile: HashMap::new(),
            lines: HashMap::new(),
        };
        for line in text.lines() {
            let parts: Vec<&str> = line.split_whitespace().collect();
            match parts.as_slice() {
                ["square", sq, x, y] => {
                    s.square
                        .insert(sq.to_string(), (x.parse().unwrap(), y.parse().unwrap()));
                }
                ["tile", sq, x, y] => {
                    s.tile
                        .insert(sq.to_string(), (x.parse().unwrap(), y.parse().unwrap()));
                }
                [key, rest @ ..] => {
                    s.lines.insert(key.to_string(), rest.join(" "));
                }
                [] => {}
            }
        }
        s
    }
}
