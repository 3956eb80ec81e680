//! Each picture's check: what the picture must show, judged from its pixels (colours counted
//! where the note says the squares are, text read by OCR), every reason it fails given.

use super::super::picture::{Image, Rect, Sidecar, read_text_scaled, red_lacquer, silver_piece};
use super::Run;

/// Whether `phrase` is in `text`, case aside, with at most one wrong, missing or extra
/// character in eight (what OCR gets wrong in egui's small text: `f` for `F`, `e` for `c`).
pub fn says(text: &str, phrase: &str) -> bool {
    let t: Vec<char> = text.to_lowercase().chars().collect();
    let p: Vec<char> = phrase.to_lowercase().chars().collect();
    // The least edits from the phrase to any part of the text (Sellers' algorithm).
    let mut col: Vec<usize> = (0..=p.len()).collect();
    let mut best = col[p.len()];
    for &c in &t {
        let mut prev_diag = col[0];
        col[0] = 0;
        for i in 1..=p.len() {
            let here = col[i];
            col[i] = (prev_diag + usize::from(p[i - 1] != c))
                .min(col[i - 1] + 1)
                .min(here + 1);
            prev_diag = here;
        }
        best = best.min(col[p.len()]);
    }
    best <= p.len() / 8
}

/// Fails with `why` unless `ok`.
fn want(failures: &mut Vec<String>, ok: bool, why: impl FnOnce() -> String) {
    if !ok {
        failures.push(why());
    }
}

/// `phrase` in the text read from `rect`, or a failure quoting what was read.
fn want_text(failures: &mut Vec<String>, text: &str, phrase: &str, where_: &str) {
    want(failures, says(text, phrase), || {
        format!("{where_} does not say {phrase:?}; read: {text:?}")
    });
}

// The colours the checks look for.

fn beam_colored(p: [u8; 3]) -> bool {
    p[0] >= 200 && p[0] as i32 - p[1] as i32 >= 50 && p[0] as i32 - p[2] as i32 >= 50
}

fn gold(p: [u8; 3]) -> bool {
    p[0] >= 200 && p[1] >= 140 && (p[2] as i32) < p[1] as i32 - 60
}

fn green(p: [u8; 3]) -> bool {
    p[1] >= 150 && p[1] as i32 - p[0] as i32 >= 60 && p[1] as i32 - p[2] as i32 >= 40
}

/// A lit Pharaoh glows white-hot over most of its square: at least this many of the 625
/// pixels within 12 of its centre (a highlight on polished metal covers a few dozen at most).
const GLOWING: usize = 200;

fn glow(p: [u8; 3]) -> bool {
    p[0] >= 245 && p[1] >= 215 && p[2] >= 160
}

/// The side panels' widths, with the text in them: the table's and the lessons' (the widest
/// with the clocks' game), the editor's, and the saved games'.
const GAME_PANEL: Rect = (0, 0, 330, 770);
const EDITOR_PANEL: Rect = (0, 0, 440, 770);
const OPEN_PANEL: Rect = (0, 0, 470, 770);

/// The squares named on a line of a note.
fn squares<'a>(run: &'a Run, name: &str, key: &str) -> Vec<&'a str> {
    run.line(name, key).split_whitespace().collect()
}

/// Of six empty squares' tiles, how many show the board (lit), not the background.
fn lit_tiles(img: &Image, side: &Sidecar) -> usize {
    ["d3", "e3", "f6", "g7", "b2", "e6"]
        .iter()
        .filter(|sq| {
            img.any_near(side.tile[**sq], 3, |p| {
                p.iter().map(|&c| c as u32).sum::<u32>() > 300
            })
        })
        .count()
}

/// The board drawn and Silver's pieces on it where the note says they stand: grey pixels over
/// each of their squares, none over empty sand squares.
fn board_and_pieces(run: &Run, name: &str, f: &mut Vec<String>) {
    let (img, note) = (run.img(name), run.note(name));
    let lit = lit_tiles(img, note);
    want(f, lit >= 5, || {
        format!("the board is not drawn ({lit}/6 tiles lit)")
    });
    let silver = squares(run, name, "silver");
    let shown = silver
        .iter()
        .filter(|sq| img.count_near(note.square[**sq], 10, silver_piece) >= 12)
        .count();
    want(
        f,
        !silver.is_empty() && shown * 10 >= silver.len() * 9,
        || {
            format!(
                "Silver's pieces are seen on {shown} of their {} squares",
                silver.len()
            )
        },
    );
}

/// The squares' box on screen, with a margin for the pieces.
fn board_box(side: &Sidecar) -> (std::ops::Range<i64>, std::ops::Range<i64>) {
    let xs = side.tile.values().map(|t| t.0 as i64);
    let ys = side.tile.values().map(|t| t.1 as i64);
    let (x0, x1) = (xs.clone().min().unwrap_or(0), xs.max().unwrap_or(0));
    let (y0, y1) = (ys.clone().min().unwrap_or(0), ys.max().unwrap_or(0));
    (x0 - 60..x1 + 60, y0 - 80..y1 + 60)
}

/// New pixels of `test` near `at` in `img`, against `before` (the same view).
fn new_near(img: &Image, before: &Image, at: (f32, f32), r: i64, test: fn([u8; 3]) -> bool) -> i64 {
    img.count_near(at, r, test) as i64 - before.count_near(at, r, test) as i64
}

/// A gold selection ring on `sq`: new gold pixels against `before`, around its tile. The ring's
/// near arc lies under the turn buttons, which stand on the square's near half; what shows of it
/// is centred within 30 pixels across the tile's middle and up to 45 behind it (the piece hides
/// some of it too).
fn ring_on(img: &Image, before: &Image, note: &Sidecar, sq: &str, f: &mut Vec<String>) {
    let (xs, ys) = board_box(note);
    let new_gold: Vec<(i64, i64)> = ys
        .flat_map(|y| xs.clone().map(move |x| (x, y)))
        .filter(|&(x, y)| img.at(x, y).is_some_and(gold) && !before.at(x, y).is_some_and(gold))
        .collect();
    let n = new_gold.len();
    let (sx, sy) = new_gold
        .iter()
        .fold((0, 0), |(sx, sy), &(x, y)| (sx + x, sy + y));
    let Some(&at) = note.tile.get(sq) else {
        f.push(format!("no square {sq:?} noted"));
        return;
    };
    let centre = (sx as f32 / n.max(1) as f32, sy as f32 / n.max(1) as f32);
    let (across, behind) = (centre.0 - at.0, at.1 - centre.1);
    want(
        f,
        n >= 40 && across.abs() < 30.0 && (-10.0..45.0).contains(&behind),
        || {
            format!(
                "no selection ring on {sq}: {n} new gold pixels, centred {across:.0} px across \
                 and {behind:.0} px behind its middle"
            )
        },
    );
}

/// Beam-coloured pixels over most of the squares the note says the beam has lit, and over
/// almost none far from it.
fn beam_along(run: &Run, name: &str, f: &mut Vec<String>) {
    let (img, note) = (run.img(name), run.note(name));
    let path = squares(run, name, "beam");
    want(f, path.len() >= 4, || {
        format!("the beam had lit too few squares: {path:?}")
    });
    let on_beam = path
        .iter()
        .filter(|sq| img.any_near(note.square[**sq], 6, beam_colored))
        .count();
    want(f, on_beam * 10 >= path.len() * 7, || {
        format!(
            "beam pixels on only {on_beam} of {} squares of {path:?}",
            path.len()
        )
    });
    let off_beam = ["a1", "b3", "c2", "d2", "a3"]
        .iter()
        .filter(|sq| !path.contains(sq) && img.any_near(note.square[**sq], 2, beam_colored))
        .count();
    want(f, off_beam <= 1, || {
        format!("beam colour where no beam is ({off_beam} squares)")
    });
}

/// The pale-gold pixels in a band over `sq`, from its piece to the top of the picture, and the
/// band's size.
fn pillar(img: &Image, note: &Sidecar, sq: &str) -> (usize, usize) {
    let Some(&(px, py)) = note.square.get(sq) else {
        return (0, 1);
    };
    let pale = |p: [u8; 3]| p[0] >= 200 && p[1] >= 190 && p[2] >= 150;
    let band: Vec<(i64, i64)> = (20..=150)
        .flat_map(|dy| (-4..=4).map(move |dx| (px as i64 + dx, py as i64 - dy)))
        .filter(|&(_, y)| y >= 0)
        .collect();
    let lit = band
        .iter()
        .filter(|&&(x, y)| img.at(x, y).is_some_and(pale))
        .count();
    (lit, band.len())
}

/// The lit Pharaoh's square: where Red's beam ended.
fn lit_pharaoh(run: &Run) -> &str {
    run.line("03c-pharaoh-lit", "beam_end")
}

pub(super) fn initial(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    board_and_pieces(run, "01-initial", &mut f);
    f
}

pub(super) fn selected(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    let (img, before, note) = (
        run.img("02-selected"),
        run.img("01-initial"),
        run.note("02-selected"),
    );
    ring_on(
        img,
        before,
        note,
        run.line("02-selected", "clicked"),
        &mut f,
    );
    let dots = note
        .tile
        .values()
        .filter(|&&t| img.any_near(t, 4, green) && !before.any_near(t, 4, green))
        .count();
    want(&mut f, dots >= 2, || {
        format!("no destination highlights ({dots} squares)")
    });
    f
}

pub(super) fn beam(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    beam_along(run, "03-beam", &mut f);
    f
}

pub(super) fn pharaoh_before(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    beam_along(run, "03b-pharaoh-before", &mut f);
    let (lit, band) = pillar(
        run.img("03b-pharaoh-before"),
        run.note("03b-pharaoh-before"),
        lit_pharaoh(run),
    );
    want(&mut f, lit * 10 < band, || {
        format!("a pillar of light before the Pharaoh is lit ({lit} of {band})")
    });
    f
}

pub(super) fn pharaoh_lit(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    let end = lit_pharaoh(run);
    let (lit, band) = pillar(run.img("03c-pharaoh-lit"), run.note("03c-pharaoh-lit"), end);
    want(&mut f, !end.is_empty() && lit * 2 >= band, || {
        format!("no pillar of light over the lit Pharaoh on {end:?}: {lit} pale pixels of {band}")
    });
    f
}

pub(super) fn game_over(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    // egui's window over the board's middle, with its title and the result.
    let text = run.text("04-gameover", (400, 200, 1280, 620));
    want_text(&mut f, &text, "Game over", "the board's middle");
    let result = run.line("04-gameover", "result");
    want(&mut f, !result.is_empty(), || "the game is not over".into());
    want_text(&mut f, &text, result, "the board's middle");
    // The lit Pharaoh glows, on its own square, and nothing else is that bright.
    let (img, note) = (run.img("04-gameover"), run.note("04-gameover"));
    let end = lit_pharaoh(run);
    let glowing = note
        .square
        .get(end)
        .map_or(0, |&at| img.count_near(at, 12, glow));
    want(&mut f, glowing >= GLOWING, || {
        format!("the lit Pharaoh on {end:?} does not glow ({glowing} white-hot pixels)")
    });
    let others: Vec<&String> = note
        .square
        .iter()
        .filter(|(sq, at)| sq.as_str() != end && img.count_near(**at, 12, glow) >= GLOWING)
        .map(|(sq, _)| sq)
        .filter(|sq| {
            let (a, b) = (
                note.square[sq.as_str()],
                note.square.get(end).copied().unwrap_or_default(),
            );
            (a.0 - b.0).hypot(a.1 - b.1) > 40.0
        })
        .collect();
    want(&mut f, others.is_empty(), || format!("{others:?} glow too"));
    f
}

pub(super) fn replay(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    let img = run.img("05-replay");
    // The evaluation bar: Silver's light share beside Red's, across the panel.
    let silver = |p: [u8; 3]| p[0] >= 215 && p[1] >= 220 && p[2] >= 230;
    let red = |p: [u8; 3]| p[0] >= 220 && p[1] <= 100 && p[2] <= 90;
    let bar_rows = (60..400)
        .filter(|&y| {
            let row: Vec<[u8; 3]> = (8..290).filter_map(|x| img.at(x, y)).collect();
            row.iter().filter(|p| silver(**p)).count() + row.iter().filter(|p| red(**p)).count()
                >= 250
        })
        .count();
    want(&mut f, bar_rows >= 10, || {
        format!("no evaluation bar in the panel ({bar_rows} rows)")
    });
    let text = run.text("05-replay", GAME_PANEL);
    want_text(&mut f, &text, "move 1 of 2", "the replay's panel");
    let best = run
        .line("05-replay", "analysis")
        .split_whitespace()
        .last()
        .unwrap_or("");
    want_text(&mut f, &text, "best line (depth", "the replay's panel");
    want_text(&mut f, &text, best, "the replay's panel");
    // Stepped back to move 1: the Pharaoh lit at the end no longer glows.
    let end = lit_pharaoh(run);
    let n = run
        .note("05-replay")
        .square
        .get(end)
        .map_or(0, |&at| img.count_near(at, 12, glow));
    want(&mut f, n < GLOWING / 4, || {
        format!("{end} still glows after stepping back ({n} pixels)")
    });
    f
}

pub(super) fn open(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    let text = run.text("06-open", OPEN_PANEL);
    want_text(&mut f, &text, "2 saved games", "the saved games' panel");
    // The damaged file, by name, with the reason it cannot be read.
    want_text(
        &mut f,
        &text,
        "damaged.ron:2: Expected end of string",
        "the saved games' panel",
    );
    want_text(
        &mut f,
        &text,
        run.line("04-gameover", "result"),
        "the saved games' panel",
    );
    f
}

pub(super) fn settings(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    let text = run.text("07-settings", GAME_PANEL);
    for phrase in [
        "animation speed",
        "Laser colours",
        "Graphics",
        "volume",
        "Restore the defaults",
    ] {
        want_text(&mut f, &text, phrase, "the settings' panel");
    }
    f
}

/// The two clocks' times read from the top of the board, in seconds: Silver's, Red's.
fn clock_times(run: &Run, name: &str) -> Result<(u32, u32), String> {
    let text = read_text_scaled(run.img(name), (330, 0, 1280, 70), 4);
    let times: Vec<u32> = text
        .split(|c: char| !(c.is_ascii_digit() || c == ':'))
        .filter_map(|t| {
            let (m, s) = t.split_once(':')?;
            let seconds = s.parse::<u32>().ok().filter(|v| s.len() == 2 && *v < 60)?;
            Some(m.parse::<u32>().ok()? * 60 + seconds)
        })
        .collect();
    match times[..] {
        [silver, red] => Ok((silver, red)),
        _ => Err(format!(
            "the top of {name} shows no two clocks; read: {text:?}"
        )),
    }
}

pub(super) fn clock(run: &Run) -> Vec<String> {
    match clock_times(run, "08-clock") {
        // 5 minutes and 3 s a move: after a move each, both near 5:00.
        Ok((s, r)) if (240..=306).contains(&s) && (240..=306).contains(&r) => Vec::new(),
        Ok(t) => vec![format!("the clocks show {t:?} s, not about five minutes")],
        Err(e) => vec![e],
    }
}

pub(super) fn clock_later(run: &Run) -> Vec<String> {
    match (
        clock_times(run, "08-clock"),
        clock_times(run, "08b-clock-later"),
    ) {
        // Silver's clock runs (Silver to move): 1.2 s and more later it shows one to three
        // seconds less, Red's the same.
        (Ok((s0, r0)), Ok((s1, r1))) if (1..=3).contains(&(s0 as i64 - s1 as i64)) && r0 == r1 => {
            Vec::new()
        }
        (Ok(a), Ok(b)) => vec![format!("the clocks went from {a:?} to {b:?} s")],
        (a, b) => [a.err(), b.err()].into_iter().flatten().collect(),
    }
}

/// Pixels of two pictures of the same size that differ by more than 60 in sum.
fn pixels_changed(a: &Image, b: &Image) -> usize {
    a.rgb
        .iter()
        .zip(&b.rgb)
        .filter(|(p, q)| {
            let d: i32 = (0..3)
                .map(|i| (i32::from(p[i]) - i32::from(q[i])).abs())
                .sum();
            d > 60
        })
        .count()
}

/// The clocks held at 4:44 and 4:33 for the new font atlas's pictures.
fn held_clocks(run: &Run, name: &str, f: &mut Vec<String>) {
    match clock_times(run, name) {
        Ok((284, 273)) => {}
        Ok(t) => f.push(format!("{name}: the clocks show {t:?} s, not (284, 273)")),
        Err(e) => f.push(e),
    }
}

pub(super) fn new_atlas(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    held_clocks(run, "08c-new-atlas", &mut f);
    // The same frame a few frames on: the first frame from the new atlas draws every glyph it
    // adds (a missing line of text or digit changes hundreds of pixels; a still window none).
    let changed = pixels_changed(run.img("08c-new-atlas"), run.img("08d-atlas-later"));
    want(&mut f, changed <= 20, || {
        format!(
            "the first frame from a new font atlas differs from the frames after it in {changed} pixels"
        )
    });
    f
}

pub(super) fn atlas_later(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    held_clocks(run, "08d-atlas-later", &mut f);
    f
}

pub(super) fn no_aim(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    // The piece picked up is ringed (the picture before it is the same view, unselected).
    let sq = run.line("09a-no-aim", "selected");
    ring_on(
        run.img("09a-no-aim"),
        run.img("08b-clock-later"),
        run.note("09a-no-aim"),
        sq,
        &mut f,
    );
    f
}

pub(super) fn preview(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    let (before, img, note) = (
        run.img("09a-no-aim"),
        run.img("09-preview"),
        run.note("09-preview"),
    );
    let path = squares(run, "09-preview", "path");
    want(&mut f, path.len() >= 4, || {
        format!("a short preview: {path:?}")
    });
    let seen = path
        .iter()
        .filter(|sq| img.changed_near(before, note.square[**sq], 8, 12) >= 3)
        .count();
    want(&mut f, seen * 2 >= path.len(), || {
        format!(
            "the preview is seen on {seen} of the {} squares of {path:?}",
            path.len()
        )
    });
    let stray = note
        .square
        .iter()
        .filter(|&(_, &p)| {
            path.iter().all(|sq| {
                let q = note.square[*sq];
                (p.0 - q.0).hypot(p.1 - q.1) > 45.0
            })
        })
        .filter(|(sq, _)| img.changed_near(before, note.square[sq.as_str()], 8, 12) >= 3)
        .count();
    want(&mut f, stray <= 1, || {
        format!("the picture changed on {stray} squares away from the preview")
    });
    f
}

pub(super) fn tutorial(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    let text = run.text("10-tutorial", GAME_PANEL);
    want_text(&mut f, &text, "The Scarab's swap", "the lesson's panel");
    let why = run.line("10-tutorial", "missed");
    want(
        &mut f,
        why.contains("shield stopped the beam on e5"),
        || format!("the miss noted: {why:?}"),
    );
    want_text(&mut f, &text, why, "the lesson's panel");
    f
}

pub(super) fn puzzle_before(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    board_and_pieces(run, "11a-puzzle", &mut f);
    let text = run.text("11a-puzzle", GAME_PANEL);
    want_text(
        &mut f,
        &text,
        "light the Red Pharaoh in 2",
        "the puzzle's panel",
    );
    f
}

pub(super) fn puzzle(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    let (before, img, note) = (
        run.img("11a-puzzle"),
        run.img("11-puzzle"),
        run.note("11-puzzle"),
    );
    let hint = run.line("11-puzzle", "hint");
    let from = hint.split_whitespace().next().unwrap_or("a1");
    // The ring is cyan (the reserved squares' blue is paler).
    let cyan = |p: [u8; 3]| p[2] >= 180 && p[1] >= 140 && i32::from(p[2]) - i32::from(p[0]) >= 70;
    let at = note.tile.get(from).copied().unwrap_or_default();
    let ring = img.count_near(at, 40, cyan) as i64 - before.count_near(at, 40, cyan) as i64;
    want(&mut f, !hint.is_empty() && ring >= 60, || {
        format!("no hint ring on {from} ({ring} new cyan pixels)")
    });
    let elsewhere = note
        .tile
        .values()
        .filter(|&&t| (t.0 - at.0).hypot(t.1 - at.1) > 100.0)
        .filter(|&&t| img.changed_near(before, t, 10, 30) >= 5)
        .count();
    want(&mut f, elsewhere <= 2, || {
        format!("the hint changed {elsewhere} squares away from {from}")
    });
    f
}

fn editor_panel(run: &Run, name: &str, f: &mut Vec<String>) -> String {
    let text = run.text(name, EDITOR_PANEL);
    for phrase in ["Start from", "Symmetric", "Fire Silver", "Is it fair?"] {
        want_text(f, &text, phrase, "the editor's panel");
    }
    text
}

pub(super) fn editor_before(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    let text = editor_panel(run, "12a-editor", &mut f);
    want(&mut f, !says(&text, "problem(s)"), || {
        "problems listed before any was made".into()
    });
    f
}

pub(super) fn problem(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    // The Silver Pyramid the script put on Red's a4, marked red where the picture before had
    // no such red. (Its symmetric twin, a Red Pyramid on j5, is red itself and stands in the
    // fired beam: its mark cannot be told apart there.)
    let (before, img, note) = (
        run.img("12a-editor"),
        run.img("12-editor"),
        run.note("12-editor"),
    );
    let alarm = |p: [u8; 3]| p[0] >= 200 && p[1] <= 90 && p[2] <= 90;
    let marked = new_near(img, before, note.tile["a4"], 30, alarm);
    want(&mut f, marked >= 100, || {
        format!("no problem mark on a4 ({marked} new red pixels)")
    });
    let text = run.text("12-editor", EDITOR_PANEL);
    want_text(&mut f, &text, "2 problem(s)", "the editor's panel");
    want_text(
        &mut f,
        &text,
        "a4: the Silver Pyramid",
        "the editor's panel",
    );
    want_text(&mut f, &text, "reserved for Red", "the editor's panel");
    f
}

pub(super) fn report_before(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    let text = editor_panel(run, "13a-editor", &mut f);
    want(&mut f, !says(&text, "Silver scores"), || {
        "a fairness report before it was asked for".into()
    });
    f
}

pub(super) fn fairness(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    let text = run.text("13-fairness", EDITOR_PANEL);
    let games = run
        .line("13-fairness", "fair")
        .split_whitespace()
        .nth(1)
        .unwrap_or("?")
        .to_string();
    want(&mut f, games == "4", || {
        format!("the report noted {games} games, not 4")
    });
    want_text(&mut f, &text, "Silver scores", "the editor's panel");
    want_text(
        &mut f,
        &text,
        &format!("over {games} games"),
        "the editor's panel",
    );
    want_text(
        &mut f,
        &text,
        "Decided in the opening",
        "the editor's panel",
    );
    f
}

pub(super) fn break_before(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    let (img, note) = (run.img("14a-break-before"), run.note("14a-break-before"));
    let whole = img.count_near(note.square["c4"], 14, red_lacquer);
    want(
        &mut f,
        squares(run, "14a-break-before", "red").contains(&"c4") && whole >= 60,
        || format!("no Red piece whole on c4 ({whole} red pixels)"),
    );
    f
}

pub(super) fn breaking(run: &Run) -> Vec<String> {
    let mut f = Vec::new();
    let (before, img, note) = (
        run.img("14a-break-before"),
        run.img("14-break"),
        run.note("14-break"),
    );
    let c4 = note.square["c4"];
    let white = |p: [u8; 3]| p.iter().all(|&c| c >= 220);
    let flash = new_near(img, before, c4, 40, white);
    // The beam comes in along rank 4, a level line through c4 on screen: its band is left out.
    let shards = img.count_in(
        c4.0 as i64 - 70..c4.0 as i64 + 71,
        c4.1 as i64 - 70..c4.1 as i64 + 71,
        |x, y, p| {
            (y - c4.1 as i64).abs() > 8
                && red_lacquer(p)
                && !before.at(x, y).is_some_and(red_lacquer)
        },
    );
    want(&mut f, flash >= 300 && shards >= 150, || {
        format!("no piece breaking on c4: {flash} new flash and {shards} new shard pixels")
    });
    f
}
