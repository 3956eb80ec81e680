//! Screenshots of the real window and the notes the scripted tour writes beside them (where
//! each square is on screen, and what was shown), for the window test and the package test.

use std::collections::HashMap;
use std::path::Path;

/// Silver's pieces: light grey, no hue (the board's sand, blue and red tiles all have one).
pub fn silver_piece(p: [u8; 3]) -> bool {
    let (lo, hi) = (*p.iter().min().unwrap_or(&0), *p.iter().max().unwrap_or(&0));
    lo >= 150 && hi - lo <= 14
}

/// Red lacquer, lit: red well above green and blue (the board's tiles are sand and grey).
pub fn red_lacquer(p: [u8; 3]) -> bool {
    p[0] >= 120
        && i32::from(p[0]) - i32::from(p[1]) >= 70
        && i32::from(p[0]) - i32::from(p[2]) >= 70
}

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

/// A rectangle of a picture: x0, y0, x1, y1 (the ends left out).
pub type Rect = (usize, usize, usize, usize);

impl Image {
    /// A blank picture of one colour.
    pub fn filled(width: usize, height: usize, color: [u8; 3]) -> Image {
        Image {
            width,
            height,
            rgb: vec![color; width * height],
        }
    }

    /// The picture at half its size, each pixel the mean of four: what the reference frames
    /// keep (a quarter of the bytes; the window's detail is judged by the checks themselves).
    pub fn halved(&self) -> Image {
        let (width, height) = (self.width / 2, self.height / 2);
        let mut rgb = Vec::with_capacity(width * height);
        for y in 0..height {
            for x in 0..width {
                let mut sum = [0u32; 3];
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let p = self.rgb[(2 * y + dy) * self.width + 2 * x + dx];
                    for c in 0..3 {
                        sum[c] += u32::from(p[c]);
                    }
                }
                rgb.push(sum.map(|s| ((s + 2) / 4) as u8));
            }
        }
        Image { width, height, rgb }
    }

    pub fn save(&self, path: &Path) {
        let file =
            std::fs::File::create(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut encoder = png::Encoder::new(
            std::io::BufWriter::new(file),
            self.width as u32,
            self.height as u32,
        );
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().expect("a PNG header");
        let bytes: Vec<u8> = self.rgb.iter().flatten().copied().collect();
        writer.write_image_data(&bytes).expect("a PNG written");
    }

    /// The part of the picture within `rect`.
    pub fn crop(&self, (x0, y0, x1, y1): Rect) -> Image {
        let (x1, y1) = (x1.min(self.width), y1.min(self.height));
        let mut rgb = Vec::with_capacity((x1 - x0) * (y1 - y0));
        for y in y0..y1 {
            rgb.extend_from_slice(&self.rgb[y * self.width + x0..y * self.width + x1]);
        }
        Image {
            width: x1 - x0,
            height: y1 - y0,
            rgb,
        }
    }

    /// Why the picture cannot be a drawn frame of the game, if it cannot: blank, nearly one
    /// colour, or a band of it left undrawn (one even colour across a full-width eighth of the
    /// height, as a frame cut off midway leaves). The game's background is a dark gradient and
    /// every screen has its panel, board and text, so each band of a real frame has some of
    /// them.
    pub fn undrawn(&self) -> Option<String> {
        self.undrawn_from_band(0)
    }

    /// [`Image::undrawn`], judging the bands (eighths of the height) from band `from` down only:
    /// without the side panel a frame's top eighth is the background alone but for the clocks'
    /// faces (the board stands below it), as the broken-features run draws it.
    pub fn undrawn_from_band(&self, from: usize) -> Option<String> {
        let mut colors: Vec<[u8; 3]> = self.rgb.iter().step_by(7).copied().collect();
        colors.sort_unstable();
        colors.dedup();
        if colors.len() < 500 {
            return Some(format!("nearly blank: {} colours", colors.len()));
        }
        let band = self.height / 8;
        for i in from..8 {
            let rows = &self.rgb[i * band * self.width..(i + 1) * band * self.width];
            let first = rows[0];
            let same = rows
                .iter()
                .filter(|p| (0..3).all(|c| p[c].abs_diff(first[c]) <= 2))
                .count();
            if same * 100 >= rows.len() * 98 {
                return Some(format!(
                    "rows {}..{} are one colour {first:?}: not drawn",
                    i * band,
                    (i + 1) * band
                ));
            }
        }
        None
    }
}

/// How a picture is compared with its reference frame: both at half size, cut into square
/// regions of [`Tolerance::region`] pixels, each judged by the structural similarity of its
/// lightness (SSIM, which sees shapes, edges and text move or go) and the mean colour
/// difference of its pixels (CIE76 ΔE in L*a*b*, which sees a colour change that keeps the
/// shapes). A region fails below `ssim` or above `delta_e`.
#[derive(Clone, Copy, Debug)]
pub struct Tolerance {
    pub region: usize,
    pub ssim: f64,
    pub delta_e: f64,
}

/// A region of the compared pictures that failed, in half-size pixels.
#[derive(Clone, Debug)]
pub struct Failed {
    pub rect: Rect,
    pub ssim: f64,
    pub delta_e: f64,
}

/// The comparison of a picture with its reference: the failed regions, and the worst values
/// over all the regions that were judged.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub failed: Vec<Failed>,
    pub worst_ssim: f64,
    pub worst_delta_e: f64,
}

fn lab([r, g, b]: [u8; 3]) -> [f64; 3] {
    let lin = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let (r, g, b) = (lin(r), lin(g), lin(b));
    // sRGB to XYZ (D65), relative to the white point.
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| {
        if t > 0.008856 {
            t.cbrt()
        } else {
            7.787 * t + 16.0 / 116.0
        }
    };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

fn luma(p: [u8; 3]) -> f64 {
    0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2])
}

/// Compares `picture` with `reference` (both half-size, the same size) region by region,
/// leaving out the regions that touch any of `ignore` (half-size rectangles).
pub fn compare(picture: &Image, reference: &Image, tol: Tolerance, ignore: &[Rect]) -> Comparison {
    assert_eq!(
        (picture.width, picture.height),
        (reference.width, reference.height),
        "the picture and its reference differ in size"
    );
    let mut out = Comparison {
        failed: Vec::new(),
        worst_ssim: 1.0,
        worst_delta_e: 0.0,
    };
    let s = tol.region;
    for y0 in (0..picture.height).step_by(s) {
        for x0 in (0..picture.width).step_by(s) {
            let rect = (
                x0,
                y0,
                (x0 + s).min(picture.width),
                (y0 + s).min(picture.height),
            );
            let touches =
                |&(a0, b0, a1, b1): &Rect| rect.0 < a1 && a0 < rect.2 && rect.1 < b1 && b0 < rect.3;
            if ignore.iter().any(touches) {
                continue;
            }
            let (ssim, delta_e) = region_measures(picture, reference, rect);
            out.worst_ssim = out.worst_ssim.min(ssim);
            out.worst_delta_e = out.worst_delta_e.max(delta_e);
            if ssim < tol.ssim || delta_e > tol.delta_e {
                out.failed.push(Failed {
                    rect,
                    ssim,
                    delta_e,
                });
            }
        }
    }
    out
}

/// The SSIM of the region's lightness (one window, the region) and its pixels' mean ΔE.
fn region_measures(a: &Image, b: &Image, (x0, y0, x1, y1): Rect) -> (f64, f64) {
    let n = ((x1 - x0) * (y1 - y0)) as f64;
    let (mut sa, mut sb, mut saa, mut sbb, mut sab, mut de) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for y in y0..y1 {
        for x in x0..x1 {
            let (p, q) = (a.rgb[y * a.width + x], b.rgb[y * b.width + x]);
            let (la, lb) = (luma(p), luma(q));
            sa += la;
            sb += lb;
            saa += la * la;
            sbb += lb * lb;
            sab += la * lb;
            if p != q {
                let (u, v) = (lab(p), lab(q));
                de +=
                    ((u[0] - v[0]).powi(2) + (u[1] - v[1]).powi(2) + (u[2] - v[2]).powi(2)).sqrt();
            }
        }
    }
    let (ma, mb) = (sa / n, sb / n);
    let (va, vb, cov) = (saa / n - ma * ma, sbb / n - mb * mb, sab / n - ma * mb);
    let (c1, c2) = ((0.01f64 * 255.0).powi(2), (0.03f64 * 255.0).powi(2));
    let ssim =
        ((2.0 * ma * mb + c1) * (2.0 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
    (ssim, de / n)
}

/// A picture of where `picture` and `reference` differ, for a person to look at: the
/// difference of each pixel, brightened, over a dimmed reference, with the failed regions
/// framed in red.
pub fn difference(picture: &Image, reference: &Image, failed: &[Failed]) -> Image {
    let mut out = Image::filled(picture.width, picture.height, [0, 0, 0]);
    for (i, (p, q)) in picture.rgb.iter().zip(&reference.rgb).enumerate() {
        let d = (0..3).map(|c| p[c].abs_diff(q[c])).max().unwrap_or(0);
        let base = luma(*q) as u8 / 4;
        out.rgb[i] = if d > 8 {
            [255, base.saturating_add(d), base]
        } else {
            [base; 3]
        };
    }
    for f in failed {
        let (x0, y0, x1, y1) = f.rect;
        for x in x0..x1 {
            out.rgb[y0 * out.width + x] = [255, 0, 0];
            out.rgb[(y1 - 1) * out.width + x] = [255, 0, 0];
        }
        for y in y0..y1 {
            out.rgb[y * out.width + x0] = [255, 0, 0];
            out.rgb[y * out.width + x1 - 1] = [255, 0, 0];
        }
    }
    out
}

/// The text in `rect` of the picture, as Tesseract reads it (Debian's `tesseract-ocr`): the
/// part cut out, made grey, three times as large (bilinear) and dark on light, which is how
/// Tesseract reads egui's small light text best. Whitespace, line breaks included, becomes one
/// space, so that a sentence wrapped over lines reads as one.
pub fn read_text(img: &Image, rect: Rect) -> String {
    read_text_scaled(img, rect, 3)
}

/// [`read_text`], the part made `scale` times as large: four for the clocks' digits, which
/// Tesseract reads wrong at three beside their faces' edges (`4359` for `4:59`).
pub fn read_text_scaled(img: &Image, rect: Rect, scale: usize) -> String {
    let part = img.crop(rect);
    let (w, h) = (part.width * scale, part.height * scale);
    let grey: Vec<f64> = part.rgb.iter().map(|p| 255.0 - luma(*p)).collect();
    let at = |x: usize, y: usize| grey[y.min(part.height - 1) * part.width + x.min(part.width - 1)];
    let mut big = Image::filled(w, h, [255, 255, 255]);
    for y in 0..h {
        for x in 0..w {
            let fx = (x as f64 + 0.5) / scale as f64 - 0.5;
            let fy = (y as f64 + 0.5) / scale as f64 - 0.5;
            let (x0, y0) = (fx.floor().max(0.0), fy.floor().max(0.0));
            let (tx, ty) = ((fx - x0).clamp(0.0, 1.0), (fy - y0).clamp(0.0, 1.0));
            let (xi, yi) = (x0 as usize, y0 as usize);
            let v = at(xi, yi) * (1.0 - tx) * (1.0 - ty)
                + at(xi + 1, yi) * tx * (1.0 - ty)
                + at(xi, yi + 1) * (1.0 - tx) * ty
                + at(xi + 1, yi + 1) * tx * ty;
            big.rgb[y * w + x] = [v.round() as u8; 3];
        }
    }
    let file = std::env::temp_dir().join(format!(
        "khet-ocr-{}-{:?}.png",
        std::process::id(),
        std::thread::current().id()
    ));
    big.save(&file);
    let mut cmd = std::process::Command::new("tesseract");
    cmd.arg(&file).args(["-", "--psm", "6"]);
    let out = cmd.output().unwrap_or_else(|e| {
        panic!("{cmd:?} did not run: {e} (apt-get install tesseract-ocr; .ci/test installs it)")
    });
    // An empty reading must mean an empty picture: a Tesseract that runs but cannot read (no
    // language data, a broken library) would otherwise fail every text check quietly, and pass
    // a run that wants them to fail. The picture it was given is kept for a look.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !stderr.lines().any(tesseract_error),
        "{cmd:?} failed ({}); it said:\n{stderr}",
        out.status
    );
    let _ = std::fs::remove_file(&file);
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a line Tesseract wrote on its standard error says it failed: missing language data
/// ("Error opening data file", "Failed loading language", "Could not initialize tesseract"),
/// an unreadable picture (Leptonica's "Error in pixReadStream"), a file it "can't open". What it
/// says on every run or of a picture with little text is no error: "Estimating resolution as
/// N", "Warning: Invalid resolution 0 dpi", "Empty page!!", "Detected N diacritics", "Image too
/// small to scale!!", "Line cannot be recognized!!".
fn tesseract_error(line: &str) -> bool {
    const FAILED: &[&str] = &[
        "error",
        "fail",
        "could not",
        "couldn't",
        "can't open",
        "cannot open",
    ];
    let line = line.to_lowercase();
    FAILED.iter().any(|word| line.contains(word))
}
