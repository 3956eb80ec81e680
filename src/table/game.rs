//! The match at the table: the engine's [`Game`] (the single source of truth for the rules) with
//! who plays it and how, the messages that change it (the mouse, the keys, the panels and the
//! tests all write the same ones), and the turn flow: the move, then the shot shown
//! ([`super::show`]), then removal. The selection lives with the input code
//! ([`super::selection`]); what happened is told through [`News`].

use super::show::{Pace, Phase, Show, animation_dt, beam_timeline};
use super::spec::NewGameSpec;
use crate::news::News;
use crate::settings::Settings;
use bevy::prelude::*;
use khet_engine::{Color as Side, Game, GameResult, Mode, Move, Piece, Player, Position, Turn};

/// The match: the engine's game plus who plays it, how, and where it is saved.
#[derive(Resource)]
pub struct Match {
    pub game: Game,
    pub setup_name: String,
    pub spec: NewGameSpec,
    /// A pending draw offer, by this side.
    pub draw_offer: Option<Side>,
    /// When the game began (UTC, `2026-11-22T14:30:00Z`), also the base of its file name.
    pub date: String,
    /// Where the game is saved; chosen at its first save.
    pub file: Option<std::path::PathBuf>,
}

impl Match {
    pub fn new(spec: NewGameSpec) -> Match {
        let (game, date, file) = match &spec.resume {
            Some(r) => (r.game.clone(), r.date.clone(), r.file.clone()),
            None => (
                Game::new(spec.setup.position.with_rules(spec.rules)),
                crate::files::now_utc(),
                None,
            ),
        };
        Match {
            game,
            setup_name: spec.setup.name.clone(),
            spec,
            draw_offer: None,
            date,
            file,
        }
    }

    /// The spec that puts the match back on the table as it stands, with each side's time left
    /// if it has clocks (after a replay opened from it).
    pub fn spec_now(&self, remaining: Option<[std::time::Duration; 2]>) -> NewGameSpec {
        let mut spec = self.spec.clone();
        spec.resume = Some(super::spec::Resume {
            game: self.game.clone(),
            remaining,
            file: self.file.clone(),
            date: self.date.clone(),
        });
        spec
    }

    /// Who plays `side`.
    pub fn player(&self, side: Side) -> Player {
        self.spec.players[side.index()]
    }

    /// Whether a person has the move in a game still going.
    pub fn person_to_move(&self) -> bool {
        !self.game.is_over() && self.player(self.game.side_to_move()) == Player::Person
    }

    /// The pieces each side has lost, in order, from the game's turns.
    pub fn lost(&self) -> [Vec<Piece>; 2] {
        let mut lost = [Vec::new(), Vec::new()];
        for hit in self.game.turns().iter().flat_map(|t| &t.shot.hits) {
            if hit.effect != khet_engine::HitEffect::PharaohLit {
                lost[hit.piece.color().index()].push(hit.piece);
            }
        }
        lost
    }
}

/// Whether a match is on the table (run condition).
pub fn has_match(m: Option<Res<Match>>) -> bool {
    m.is_some()
}

// ---- messages in --------------------------------------------------------------------------------

/// Play this move for the side to move (checked by the engine).
#[derive(Message, Clone, Copy, Debug)]
pub struct MoveRequested(pub Move);

#[derive(Message, Clone, Debug)]
pub struct NewGameRequested(pub NewGameSpec);

/// Table actions from the panels and keys.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableAction {
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    ClaimDraw,
    Resign,
    /// Take back the last move (casual games; against the computer, back to the person's move).
    Undo,
    /// Complete the running animation at once.
    Skip,
    /// Show the last shot again.
    ReplayShot,
}

// ---- messages out -------------------------------------------------------------------------------

/// A move was played: the engine's turn (move and shot). The board the laser saw is `fired_on`.
#[derive(Message, Clone, Debug)]
pub struct MoveApplied {
    pub turn: Turn,
    pub fired_on: Position,
}

/// The game ended.
#[derive(Message, Clone, Copy, Debug)]
pub struct GameEnded(pub GameResult);

/// Moves were taken back (by undo, or a replay stepping back); the board is shown at once.
#[derive(Message, Clone, Copy, Debug)]
pub struct Undone {
    pub plies: usize,
}

/// The state's own systems, for ordering the computer after them.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub struct Flow;

pub(super) fn new_game(
    mut requests: MessageReader<NewGameRequested>,
    mut commands: Commands,
    mut show: ResMut<Show>,
    mut news: MessageWriter<News>,
    mut on_table: ResMut<NextState<super::OnTable>>,
) {
    if let Some(NewGameRequested(spec)) = requests.read().last() {
        // The same state again (one lesson after another) is no transition.
        NextState::set_if_neq(
            &mut on_table,
            if spec.lesson {
                super::OnTable::Lesson
            } else {
                super::OnTable::Game
            },
        );
        let m = Match::new(spec.clone());
        *show = Show::at_rest(&m.game, show.landings);
        news.write(match m.game.result() {
            Some(r) => News::Ended(r),
            None => News::ToMove(m.game.side_to_move()),
        });
        commands.insert_resource(m);
    }
}

pub(super) fn table_actions(
    mut actions: MessageReader<TableAction>,
    mut ended: MessageWriter<GameEnded>,
    mut undone: MessageWriter<Undone>,
    mut news: MessageWriter<News>,
    mut m: ResMut<Match>,
    mut show: ResMut<Show>,
) {
    for &action in actions.read() {
        let side = m.game.side_to_move();
        let mut result = None;
        // Online, the server decides these (`crate::online` forwards them).
        if m.spec.online && !matches!(action, TableAction::Skip | TableAction::ReplayShot) {
            continue;
        }
        match action {
            TableAction::OfferDraw => {
                if !m.game.is_over() && m.draw_offer.is_none() {
                    // A computer's answer comes from its search (see `ai`), never from a frame.
                    m.draw_offer = Some(side);
                    news.write(News::DrawOffered(side));
                }
            }
            TableAction::AcceptDraw => {
                if m.draw_offer.take().is_some() {
                    result = m.game.agree_draw().ok();
                }
            }
            TableAction::DeclineDraw => {
                if let Some(by) = m.draw_offer.take() {
                    news.write(News::DrawDeclined { by: by.other() });
                }
            }
            TableAction::ClaimDraw => match m.game.claim_draw() {
                Ok(r) => result = Some(r),
                Err(e) => {
                    news.write(News::NoDraw(e.to_string()));
                }
            },
            TableAction::Resign => result = m.game.resign(side).ok(),
            TableAction::Undo => {
                if let Some(plies) = undo(&mut m, &mut show, &mut news) {
                    undone.write(Undone { plies });
                }
            }
            TableAction::Skip => {
                if show.phase != Phase::Idle {
                    show.skip = true;
                }
            }
            TableAction::ReplayShot => {
                if show.is_idle() && show.shot.is_some() {
                    show.replay = true;
                    show.phase = Phase::Firing { front: 0.0 };
                }
            }
        }
        if let Some(r) = result {
            m.draw_offer = None;
            news.write(News::Ended(r));
            ended.write(GameEnded(r));
        }
    }
}

/// Takes back the last move, or against the computer everything back to the person's last move;
/// the board is shown as it was at once. `None` (and the news why) when nothing was taken back.
fn undo(m: &mut Match, show: &mut Show, news: &mut MessageWriter<News>) -> Option<usize> {
    if m.spec.mode == Mode::Tournament {
        news.write(News::NoTakeBack(
            "the move cannot be taken back in a tournament game",
        ));
        return None;
    }
    if !show.is_idle() {
        news.write(News::NoTakeBack("wait for the shot to land"));
        return None;
    }
    let has_person = m.spec.players.contains(&Player::Person);
    let mut plies = 0;
    while let Ok(turn) = m.game.undo() {
        plies += 1;
        // Against the computer, back to the person's own last move.
        if !has_person || m.player(turn.color) == Player::Person {
            break;
        }
    }
    if plies == 0 {
        news.write(News::NoTakeBack("there is no move to take back"));
        return None;
    }
    m.draw_offer = None;
    *show = Show::at_rest(&m.game, show.landings);
    news.write(News::TakenBack {
        plies,
        to_move: m.game.side_to_move(),
    });
    Some(plies)
}

pub(super) fn play_moves(
    mut requests: MessageReader<MoveRequested>,
    mut new_games: MessageReader<NewGameRequested>,
    mut applied: MessageWriter<MoveApplied>,
    mut news: MessageWriter<News>,
    mut m: ResMut<Match>,
    mut show: ResMut<Show>,
) {
    // A move asked for before a new game came to the table belongs to the game left: the
    // computer's, found in the frame before a replay opened, was played into the replay when it
    // happened to be legal there.
    if new_games.read().count() > 0 {
        requests.clear();
        return;
    }
    for &MoveRequested(mv) in requests.read() {
        if !show.is_idle() {
            continue;
        }
        let mut fired_on = *m.game.position();
        match m.game.play(mv) {
            Ok(turn) => {
                let turn = turn.clone();
                fired_on.apply_move(turn.mv);
                // A move answers a standing offer of the other side's: it declines it.
                if let Some(by) = m.draw_offer.take()
                    && by != turn.color
                {
                    news.write(News::DrawDeclined { by: turn.color });
                }
                news.write(News::Played {
                    side: turn.color,
                    mv: turn.mv,
                });
                let (starts, length) = beam_timeline(&turn.shot);
                *show = Show {
                    phase: Phase::Moving { elapsed: 0.0 },
                    shot: Some(turn.shot.clone()),
                    display: Some(fired_on),
                    length,
                    segment_starts: starts,
                    replay: false,
                    skip: false,
                    pause: if m.player(turn.color) == Player::Person {
                        0.0
                    } else {
                        0.3
                    },
                    landings: show.landings,
                    hold: false,
                };
                applied.write(MoveApplied { turn, fired_on });
            }
            Err(e) => {
                news.write(News::Refused(e.to_string()));
            }
        }
    }
}

/// Moves the show along: the piece's move, the beam, the removal, the linger.
pub(super) fn advance_show(
    time: Res<Time>,
    settings: Res<Settings>,
    pace: Res<Pace>,
    m: Res<Match>,
    mut show: ResMut<Show>,
    mut ended: MessageWriter<GameEnded>,
    mut news: MessageWriter<News>,
    mut frames: ResMut<crate::frames::NextFrame>,
) {
    let dt = animation_dt(&time, &settings, &show);
    loop {
        let next = match show.phase.clone() {
            Phase::Idle => break,
            Phase::Moving { elapsed } => {
                let e = elapsed + dt;
                if e >= pace.move_seconds + show.pause {
                    Phase::Firing { front: 0.0 }
                } else {
                    Phase::Moving { elapsed: e }
                }
            }
            Phase::Firing { front } => {
                let f = front + dt * pace.beam_squares_per_second;
                if f >= show.length {
                    if !show.replay {
                        // The beam has landed: the hit pieces leave, the board is the engine's.
                        show.display = Some(*m.game.position());
                        show.landings += 1;
                        match m.game.result() {
                            Some(r) => {
                                news.write(News::Ended(r));
                                ended.write(GameEnded(r));
                            }
                            None => {
                                if let Some(t) = m.game.last_turn() {
                                    news.write(News::Landed {
                                        side: t.color,
                                        mv: t.mv,
                                        hits: t.shot.hits.len(),
                                        to_move: m.game.side_to_move(),
                                    });
                                }
                            }
                        }
                    }
                    show.replay = false;
                    Phase::Lingering { elapsed: 0.0 }
                } else {
                    Phase::Firing { front: f }
                }
            }
            Phase::Lingering { .. } if show.hold => break,
            Phase::Lingering { elapsed } => {
                let e = elapsed + dt;
                if e >= pace.linger_seconds {
                    Phase::Idle
                } else {
                    Phase::Lingering { elapsed: e }
                }
            }
        };
        let advanced = next != show.phase;
        show.phase = next;
        if show.phase == Phase::Idle {
            show.skip = false;
        }
        // With an instant speed, run through every phase in one frame.
        if !(advanced && dt.is_infinite()) {
            break;
        }
    }
    // The piece slides, the beam grows or fades: every frame is drawn until it is at rest (or
    // held, still).
    let held = show.hold && matches!(show.phase, Phase::Lingering { .. });
    if show.phase != Phase::Idle && !held {
        frames.now();
    }
}
