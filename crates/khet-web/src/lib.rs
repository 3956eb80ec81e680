//! The Khet rules engine for a browser page (issue 51): `khet-engine` compiled to
//! `wasm32-unknown-unknown` and exposed to JavaScript through wasm-bindgen. The page asks this
//! module everything about the rules (the board, the legal moves, the laser, the result) and
//! restates none of them.
//!
//! One class, [`KhetGame`]. What crosses to JavaScript is plain: strings, booleans, and JSON
//! text for anything with structure (`JSON.parse` on the page). A refused move, an unknown
//! setup or level, a game that is over: the method throws the engine's reason as a string,
//! never a panic. Its shapes, as the page reads them:
//!
//! - `KhetGame.setups()`: `[{name, title, edition, description}]`, every setup the engine
//!   embeds (Khet 2.0's first), `name` what `new KhetGame(name)` takes.
//! - `board()`: `{edition, side_to_move, position, pieces: [piece], lasers: [laser]}`; a piece is
//!   `{square, kind, color, facing, mirror, height, text}`: `kind` one of `pharaoh`, `sphinx`,
//!   `pyramid`, `anubis`, `scarab`, `djed`, `obelisk`, `eye` (the Eye of Horus), `color`
//!   `silver` or `red`, `facing` a Sphinx's or Anubis's `N`/`E`/`S`/`W` or a mirror's
//!   diagonal `NE`/`SE`/`SW`/`NW` (a two-sided mirror's is `NE` or `SE`), `mirror` its line `\`
//!   or `/` (else `null`), `height` 2 for a stack of two obelisks, `text` the engine's words
//!   for it. A laser is `{color, from, entry, dir}`: where it starts (`from`, a Sphinx's square,
//!   or `null` for Khet 1.0's fixed lasers beyond the edge), the first square it lights and its
//!   direction.
//! - `legalMoves()`: `{square: [move]}` for each piece of the side to move that has one; a move
//!   is `{text, kind, to, rotate}`: `kind` `step`, `swap`, `unstack` (the top obelisk alone) or
//!   `rotate`, `to` the destination square (`null` for a turn), `rotate` `cw` or `ccw` (`null`
//!   otherwise). `text` is what `play` takes.
//! - `play(text)` answers the turn: `{ply, color, move, shot, result}`; `lastShot()` and
//!   `preview(text)` a shot: `{color, text, segments, path, hits}`, `segments` each straight run
//!   `{from, entry, dir, to, end, turn}` (`end` `turned`, `split`, `blocked`, `hit`,
//!   `left_board` or `joined`; `turn` the new direction where it turned or split), `path` every
//!   square lit in order, `hits` `[{square, piece, effect}]` with `effect` `removed`,
//!   `top_removed` or `pharaoh_lit`.
//!
//! The computer plays the levels of the desktop game ([`Level::choose`] with
//! [`Level::budget`]), Master from the opening book, on the calling thread: the page runs this
//! module in a Web Worker so that it keeps drawing while the computer thinks.

use khet_engine::{
    Book, Color, Direction, Game, HitEffect, Level, Limits, Move, Piece, Position, Rng, Rotation,
    Searcher, Segment, SegmentEnd, Setup, Shot, Square, Turn, catalogue, fire,
};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use wasm_bindgen::prelude::*;

/// Transposition-table entries of the computer's searcher: the desktop game's (4 MiB).
const TABLE_ENTRIES: usize = 1 << 18;

/// A built-in setup, for the page's choice of game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SetupView {
    /// The catalogue name (`khet2/classic`), what [`KhetGame::new`] takes.
    pub name: String,
    /// What players call it.
    pub title: String,
    /// `Khet 2.0` or `Khet 1.0`.
    pub edition: String,
    /// A line or two for people choosing.
    pub description: String,
}

/// A piece on its square.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PieceView {
    /// `e4`.
    pub square: String,
    /// `pharaoh`, `sphinx`, `pyramid`, `anubis`, `scarab`, `djed`, `obelisk` or `eye`.
    pub kind: &'static str,
    /// `silver` or `red`.
    pub color: &'static str,
    /// A Sphinx's or Anubis's direction, or a mirror's diagonal.
    pub facing: Option<String>,
    /// A mirror's line, `\` or `/`.
    pub mirror: Option<&'static str>,
    /// 2 for a stack of two obelisks, else 1.
    pub height: u8,
    /// The engine's words for it: `Silver Pyramid facing NE`.
    pub text: String,
}

/// Where a laser starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LaserView {
    /// Whose laser.
    pub color: &'static str,
    /// The Sphinx's square, or `None` for a fixed laser beyond the edge (Khet 1.0).
    pub from: Option<String>,
    /// The first square it lights.
    pub entry: String,
    /// Its direction: `N`, `E`, `S` or `W`.
    pub dir: String,
}

/// The board as the page draws it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BoardView {
    /// `Khet 2.0` or `Khet 1.0`.
    pub edition: String,
    /// `silver` or `red`.
    pub side_to_move: &'static str,
    /// The position string (what [`KhetGame::new`] also takes).
    pub position: String,
    /// Every piece, by square.
    pub pieces: Vec<PieceView>,
    /// Both lasers, Silver's first.
    pub lasers: Vec<LaserView>,
}

/// One legal move of a piece.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveView {
    /// The move text: `h2g2`, `j1+`, `d1e2^`.
    pub text: String,
    /// `step`, `swap`, `unstack` or `rotate`.
    pub kind: &'static str,
    /// Where the piece goes (`None` for a turn).
    pub to: Option<String>,
    /// `cw` or `ccw` for a turn.
    pub rotate: Option<&'static str>,
}

/// One straight run of a beam.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SegmentView {
    /// Where the light starts (a Sphinx or a mirror), `None` over the board's edge.
    pub from: Option<String>,
    /// The first square it lights.
    pub entry: String,
    /// Which way it travels.
    pub dir: String,
    /// The last square it reaches.
    pub to: String,
    /// `turned`, `split`, `blocked`, `hit`, `left_board` or `joined`.
    pub end: &'static str,
    /// Where it turned or split, the new direction.
    pub turn: Option<String>,
}

/// A piece a shot hit, as it stood before.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HitView {
    /// Where it stood.
    pub square: String,
    /// What it was.
    pub piece: PieceView,
    /// `removed`, `top_removed` or `pharaoh_lit`.
    pub effect: &'static str,
}

/// A whole shot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShotView {
    /// Whose laser fired.
    pub color: &'static str,
    /// The path in the rule book's text (`a7 a6(E) b6 …, off`).
    pub text: String,
    /// The beam, run by run, in tracing order.
    pub segments: Vec<SegmentView>,
    /// Every square lit, in order.
    pub path: Vec<String>,
    /// The pieces hit.
    pub hits: Vec<HitView>,
}

/// A move played and its shot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TurnView {
    /// 1 for the game's first move.
    pub ply: usize,
    /// Who moved.
    pub color: &'static str,
    /// The move text.
    pub r#move: String,
    /// The mover's shot after it.
    pub shot: ShotView,
    /// The result in words when the game ended there.
    pub result: Option<String>,
}

/// A game in the page: the engine's [`Game`] and the computer's searcher, whose tables carry
/// over from move to move.
#[wasm_bindgen]
pub struct KhetGame {
    game: Game,
    searcher: Searcher,
    seed: u32,
}

/// The game as its saved line (the searcher's tables are not worth printing).
impl std::fmt::Debug for KhetGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KhetGame({})", self.saved())
    }
}

/// The opening book, read once (a few milliseconds) when the computer first searches.
fn book() -> Arc<Book> {
    static BOOK: OnceLock<Arc<Book>> = OnceLock::new();
    BOOK.get_or_init(|| Arc::new(Book::builtin())).clone()
}

fn piece_view(square: Square, piece: Piece) -> PieceView {
    let mirror = piece.mirror();
    PieceView {
        square: square.to_string(),
        kind: piece.kind().id(),
        color: piece.color().id(),
        facing: piece
            .facing()
            .map(|d| d.to_string())
            .or(mirror.map(|m| m.to_string())),
        // A mirror facing NE (or SW) runs from the square's north-west corner to its south-east.
        mirror: mirror.map(|m| {
            if (m as u8).is_multiple_of(2) {
                "\\"
            } else {
                "/"
            }
        }),
        height: piece.height(),
        text: piece.describe(),
    }
}

fn move_view(mv: Move) -> MoveView {
    let (kind, to, rotate) = match mv {
        Move::Step { to, .. } => ("step", Some(to), None),
        Move::Swap { to, .. } => ("swap", Some(to), None),
        Move::Unstack { to, .. } => ("unstack", Some(to), None),
        Move::Rotate { rotation, .. } => (
            "rotate",
            None,
            Some(match rotation {
                Rotation::Clockwise => "cw",
                Rotation::Anticlockwise => "ccw",
            }),
        ),
    };
    MoveView {
        text: mv.to_string(),
        kind,
        to: to.map(|s| s.to_string()),
        rotate,
    }
}

/// The first square a run of the beam lights (a mirror on the edge may send it straight off the
/// board: then its own square).
fn entry(seg: &Segment) -> Square {
    match seg.from {
        Some(from) => from.step(seg.dir).unwrap_or(seg.to),
        None => seg.edge_entry(),
    }
}

fn shot_view(shot: &Shot) -> ShotView {
    let segments = shot
        .segments
        .iter()
        .map(|seg| {
            let (end, turn): (&'static str, Option<Direction>) = match seg.end {
                SegmentEnd::Turned(d) => ("turned", Some(d)),
                SegmentEnd::Split(d) => ("split", Some(d)),
                SegmentEnd::Blocked => ("blocked", None),
                SegmentEnd::Hit => ("hit", None),
                SegmentEnd::LeftBoard => ("left_board", None),
                SegmentEnd::Joined => ("joined", None),
            };
            SegmentView {
                from: seg.from.map(|s| s.to_string()),
                entry: entry(seg).to_string(),
                dir: seg.dir.to_string(),
                to: seg.to.to_string(),
                end,
                turn: turn.map(|d| d.to_string()),
            }
        })
        .collect();
    ShotView {
        color: shot.color.id(),
        text: shot.to_string(),
        segments,
        path: shot.squares().iter().map(ToString::to_string).collect(),
        hits: shot
            .hits
            .iter()
            .map(|h| HitView {
                square: h.square.to_string(),
                piece: piece_view(h.square, h.piece),
                effect: match h.effect {
                    HitEffect::Removed => "removed",
                    HitEffect::TopRemoved => "top_removed",
                    HitEffect::PharaohLit => "pharaoh_lit",
                },
            })
            .collect(),
    }
}

/// JSON text of a view. Its types are plain structs and string-keyed maps, which always
/// serialise.
fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| unreachable!("a view serialises: {e}"))
}

fn level(name: &str) -> Result<Level, String> {
    name.parse::<Level>().map_err(|e| e.to_string())
}

/// The Rust API, which the JavaScript methods below wrap (and the native tests call).
impl KhetGame {
    /// Every setup the engine embeds.
    pub fn setup_views() -> Vec<SetupView> {
        catalogue()
            .into_iter()
            .map(|(name, s): (&str, Setup)| SetupView {
                name: name.to_string(),
                title: s.name,
                edition: s.edition.to_string(),
                description: s.description,
            })
            .collect()
    }

    /// The engine's game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The board.
    pub fn board_view(&self) -> BoardView {
        let p = self.game.position();
        BoardView {
            edition: p.edition().to_string(),
            side_to_move: p.side_to_move().id(),
            position: p.to_string(),
            pieces: p
                .pieces()
                .map(|(sq, piece)| piece_view(sq, piece))
                .collect(),
            lasers: Color::ALL
                .into_iter()
                .map(|color| laser_view(p, color))
                .collect(),
        }
    }

    /// The legal moves of the side to move, by the square of the piece that makes them, in
    /// the engine's order; none once the game is over.
    pub fn moves_by_square(&self) -> BTreeMap<String, Vec<MoveView>> {
        let mut out: BTreeMap<String, Vec<MoveView>> = BTreeMap::new();
        for mv in self.game.legal_moves() {
            out.entry(mv.from().to_string())
                .or_default()
                .push(move_view(mv));
        }
        out
    }

    /// Plays `text` for the side to move, or the engine's reason it cannot.
    pub fn play_move(&mut self, text: &str) -> Result<TurnView, String> {
        let turn = self
            .game
            .play_text(text.trim())
            .map_err(|e| e.to_string())?
            .clone();
        Ok(self.turn_view(&turn))
    }

    /// The last move played and its shot.
    pub fn last_turn(&self) -> Option<TurnView> {
        self.game.last_turn().map(|turn| self.turn_view(turn))
    }

    fn turn_view(&self, turn: &Turn) -> TurnView {
        TurnView {
            ply: self.game.turns().len(),
            color: turn.color.id(),
            r#move: turn.mv.to_string(),
            shot: shot_view(&turn.shot),
            result: self.result(),
        }
    }

    /// Where the side to move's laser would go after `text`, without playing it.
    pub fn preview_shot(&self, text: &str) -> Result<ShotView, String> {
        self.shot_after(text).map(|shot| shot_view(&shot))
    }

    /// The shot the side to move would fire after `text`.
    fn shot_after(&self, text: &str) -> Result<Shot, String> {
        if let Some(r) = self.game.result() {
            return Err(format!("the game is over: {r}"));
        }
        let mut board = *self.game.position();
        let side = board.side_to_move();
        let mv = board.parse_move(text.trim()).map_err(|e| e.to_string())?;
        board.apply_move(mv);
        Ok(fire(&board, side))
    }

    /// The move the computer would play at `level` (the desktop game's levels, Master from
    /// the opening book), not played.
    pub fn choose(&mut self, level_name: &str) -> Result<Move, String> {
        let level = level(level_name)?;
        if let Some(r) = self.game.result() {
            return Err(format!("the game is over: {r}"));
        }
        self.searcher.book.get_or_insert_with(book);
        // The same game and seed give the same move; the lower levels vary with the ply.
        let mut rng = Rng::new(u64::from(self.seed) << 32 | self.game.turns().len() as u64);
        level
            .choose(&mut self.searcher, &self.game, level.budget(), &mut rng)
            .ok_or_else(|| "the side to move has no legal move".to_string())
    }

    /// The game's result in words, once it is over.
    pub fn result(&self) -> Option<String> {
        self.game.result().map(|r| r.to_string())
    }

    /// The moves played, in notation.
    pub fn move_texts(&self) -> Vec<String> {
        self.game.turns().iter().map(|t| t.mv.to_string()).collect()
    }
}

fn laser_view(p: &Position, color: Color) -> LaserView {
    let shot = fire(p, color);
    let first = shot.segments.first();
    LaserView {
        color: color.id(),
        from: first.and_then(|s| s.from).map(|s| s.to_string()),
        entry: first.map(|s| entry(s).to_string()).unwrap_or_default(),
        dir: first.map(|s| s.dir.to_string()).unwrap_or_default(),
    }
}

/// What JavaScript calls: strings, booleans and JSON text; errors are thrown as the engine's
/// reason.
#[wasm_bindgen]
impl KhetGame {
    /// A game from `start`: a built-in setup's name (`classic`, `khet2/imhotep-eyes`,
    /// `khet1/dynasty`, …) or a position string with its side to move, optionally followed by
    /// `moves` and the moves played since (what [`KhetGame::saved`] gives, to resume a game).
    #[wasm_bindgen(constructor)]
    pub fn new(start: &str) -> Result<KhetGame, String> {
        let words: Vec<&str> = start.split_whitespace().collect();
        let game = Game::from_protocol(&words, khet_engine::Rules::default())?;
        Ok(KhetGame {
            game,
            searcher: Searcher::new(TABLE_ENTRIES),
            seed: 0,
        })
    }

    /// Every setup the engine embeds, as JSON.
    pub fn setups() -> String {
        json(&KhetGame::setup_views())
    }

    /// The board, as JSON.
    pub fn board(&self) -> String {
        json(&self.board_view())
    }

    /// `silver` or `red`.
    #[wasm_bindgen(js_name = sideToMove)]
    pub fn side_to_move(&self) -> String {
        self.game.side_to_move().id().to_string()
    }

    /// The legal moves by piece square, as JSON.
    #[wasm_bindgen(js_name = legalMoves)]
    pub fn legal_moves(&self) -> String {
        json(&self.moves_by_square())
    }

    /// Plays `text`; the turn as JSON, or throws the engine's reason.
    pub fn play(&mut self, text: &str) -> Result<String, String> {
        self.play_move(text).map(|t| json(&t))
    }

    /// The last move's shot as JSON, `null` before the first move.
    #[wasm_bindgen(js_name = lastShot)]
    pub fn last_shot(&self) -> String {
        json(&self.last_turn().map(|t| t.shot))
    }

    /// The shot the side to move would fire after `text`, as JSON; throws the reason when
    /// `text` is not a legal move.
    pub fn preview(&self, text: &str) -> Result<String, String> {
        self.preview_shot(text).map(|s| json(&s))
    }

    /// The result in words, or `undefined` while the game goes on.
    #[wasm_bindgen(js_name = resultText)]
    pub fn result_text(&self) -> Option<String> {
        self.result()
    }

    /// Whether the game is over.
    #[wasm_bindgen(js_name = isOver)]
    pub fn is_over(&self) -> bool {
        self.game.is_over()
    }

    /// The moves played, as a JSON array of move texts.
    pub fn moves(&self) -> String {
        json(&self.move_texts())
    }

    /// The game as `new KhetGame` reads it back: its start and `moves …`.
    pub fn saved(&self) -> String {
        let line = self.game.to_protocol_line();
        line.strip_prefix("position ").unwrap_or(&line).to_string()
    }

    /// The computer's move at `level` (a level's name, as `khet-engine levels` lists them), as
    /// move text; not played.
    #[wasm_bindgen(js_name = computerMove)]
    pub fn computer_move(&mut self, level: &str) -> Result<String, String> {
        self.choose(level).map(|mv| mv.to_string())
    }

    /// The least time, in milliseconds, the page lets the computer at `level` seem to think
    /// before its move is shown ([`Level::least_pause`]).
    #[wasm_bindgen(js_name = leastPause)]
    pub fn least_pause(level_name: &str) -> Result<u32, String> {
        let pause = level(level_name)?.least_pause().as_millis();
        Ok(u32::try_from(pause).unwrap_or(u32::MAX))
    }

    /// A hint for the side to move: the move `level` would play, as JSON `{from, text, kind,
    /// to, rotate}`.
    pub fn hint(&mut self, level: &str) -> Result<String, String> {
        let mv = self.choose(level)?;
        #[derive(Serialize)]
        struct Hint {
            from: String,
            #[serde(flatten)]
            mv: MoveView,
        }
        Ok(json(&Hint {
            from: mv.from().to_string(),
            mv: move_view(mv),
        }))
    }

    /// Varies the lower levels' choices between games (the same seed and game, the same move).
    #[wasm_bindgen(js_name = setSeed)]
    pub fn set_seed(&mut self, seed: u32) {
        self.seed = seed;
    }

    /// Takes back the last move; throws when there is none.
    pub fn undo(&mut self) -> Result<(), String> {
        self.game.undo().map(|_| ()).map_err(|e| e.to_string())
    }

    /// Whether the side to move may claim a draw by threefold repetition.
    #[wasm_bindgen(js_name = canClaimDraw)]
    pub fn can_claim_draw(&self) -> bool {
        self.game.can_claim_draw()
    }

    /// Claims the draw by repetition; the result in words, or throws why not.
    #[wasm_bindgen(js_name = claimDraw)]
    pub fn claim_draw(&mut self) -> Result<String, String> {
        self.game
            .claim_draw()
            .map(|r| r.to_string())
            .map_err(|e| e.to_string())
    }

    /// `color` (`silver` or `red`) resigns; the result in words.
    pub fn resign(&mut self, color: &str) -> Result<String, String> {
        let color: Color = color
            .parse()
            .map_err(|e: khet_engine::ParseNameError| e.to_string())?;
        self.game
            .resign(color)
            .map(|r| r.to_string())
            .map_err(|e| e.to_string())
    }

    /// The game as the play page draws it: the view the server sends an online page
    /// (`khet_protocol::view::BoardView`, legal moves included), as JSON. `you` is the human's
    /// side (`silver` or `red`), `setup` the setup's name for the title, `names` Silver's and
    /// Red's names separated by a line break.
    pub fn view(&self, you: &str, setup: &str, names: &str) -> Result<String, String> {
        let you: Color = you
            .parse()
            .map_err(|e: khet_engine::ParseNameError| e.to_string())?;
        let mut names = names.lines().map(|n| {
            Some(khet_protocol::PlayerInfo {
                id: String::new(),
                name: n.to_string(),
                rating: 0.0,
                deviation: 0.0,
                games: 0,
            })
        });
        let result = self.game.result();
        let info = khet_protocol::GameView {
            code: String::new(),
            setup: setup.to_string(),
            start: self.game.start().to_string(),
            rated: false,
            clock: None,
            players: [names.next().flatten(), names.next().flatten()],
            moves: self.move_texts(),
            clocks: None,
            status: if result.is_some() {
                khet_protocol::Status::Over
            } else {
                khet_protocol::Status::Playing
            },
            result,
            draw_offer: None,
            takeback: None,
            days_per_move: None,
            deadline_ms: None,
        };
        Ok(json(&khet_protocol::view::BoardView::of(
            &self.game,
            &info,
            Some(you),
            result,
        )))
    }

    /// The shot the side to move would fire after `text`, drawn as the page draws a shot
    /// (`khet_protocol::view::ShotView`, lines in board units), as JSON.
    #[wasm_bindgen(js_name = previewView)]
    pub fn preview_view(&self, text: &str) -> Result<String, String> {
        self.shot_after(text)
            .map(|shot| json(&khet_protocol::view::ShotView::new(&shot)))
    }

    /// A fixed-depth search of the current position with a fresh searcher, for measuring the
    /// engine's speed in the page against native: JSON `{depth, nodes, ms, best}`.
    #[wasm_bindgen(js_name = benchSearch)]
    pub fn bench_search(&self, depth: u32) -> String {
        let mut searcher = Searcher::new(TABLE_ENTRIES);
        let found = searcher.search(self.game.position(), Limits::depth(depth), |_| {});
        #[derive(Serialize)]
        struct Bench {
            depth: u32,
            nodes: u64,
            ms: f64,
            best: Option<String>,
        }
        json(&Bench {
            depth: found.depth,
            nodes: found.nodes,
            ms: found.elapsed.as_secs_f64() * 1000.0,
            best: found.best.map(|m| m.to_string()),
        })
    }
}
