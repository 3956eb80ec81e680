//! A client's copy of an online game: the engine's game rebuilt from the server's moves, with
//! every event applied exactly once.

use crate::{Clocks, GameEvent, GameView, PlayerInfo, Status};
use khet_engine::{Color, Game, GameResult, parse_position};
use std::fmt;

/// A game as a client follows it.
#[derive(Clone, Debug)]
pub struct Mirror {
    /// The game as the engine plays it: the board, the shots, the legal moves.
    pub game: Game,
    /// The server's view of it (players, clock, offers, result); its `moves` are kept in step
    /// with `game`.
    pub view: GameView,
    /// The number of the last event applied.
    pub event: u64,
    /// The client's side, if it plays.
    pub you: Option<Color>,
}

/// What applying an event did.
#[derive(Clone, Debug, PartialEq)]
pub enum Applied {
    /// The event was new and changed the game.
    Changed(GameEvent),
    /// It had been applied already (a resent event after a reconnection); nothing changed.
    Duplicate,
}

/// Why an event could not be applied: the client must ask for the game again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MirrorError {
    /// Events between the last applied and this one are missing.
    Gap {
        /// The last event applied.
        have: u64,
        /// The event received.
        got: u64,
    },
    /// The server's game does not replay with this engine (a bug on one side).
    Engine(String),
}

impl fmt::Display for MirrorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MirrorError::Gap { have, got } => {
                write!(f, "events {}–{} are missing", have + 1, got - 1)
            }
            MirrorError::Engine(e) => write!(f, "the server's game does not replay: {e}"),
        }
    }
}

impl std::error::Error for MirrorError {}

impl Mirror {
    /// The game of a [`crate::ServerMsg::Sync`].
    pub fn from_sync(
        event: u64,
        you: Option<Color>,
        view: GameView,
    ) -> Result<Mirror, MirrorError> {
        let start = parse_position(&view.start).map_err(|e| MirrorError::Engine(e.to_string()))?;
        let game = Game::from_moves(start, &view.moves).map_err(MirrorError::Engine)?;
        Ok(Mirror {
            game,
            view,
            event,
            you,
        })
    }

    /// Applies event `n`: once, in order. An event already applied is a [`Applied::Duplicate`];
    /// one after a gap is an error, and the mirror is unchanged.
    pub fn apply(&mut self, n: u64, event: &GameEvent) -> Result<Applied, MirrorError> {
        if n <= self.event {
            return Ok(Applied::Duplicate);
        }
        if n != self.event + 1 {
            return Err(MirrorError::Gap {
                have: self.event,
                got: n,
            });
        }
        let view = &mut self.view;
        match event {
            GameEvent::Started {
                players,
                clocks,
                deadline_ms,
            } => {
                view.players = [Some(players[0].clone()), Some(players[1].clone())];
                view.clocks = *clocks;
                view.deadline_ms = *deadline_ms;
                view.status = Status::Playing;
            }
            GameEvent::Moved {
                ply,
                mv,
                clocks,
                deadline_ms,
            } => {
                if *ply as usize != self.game.turns().len() {
                    return Err(MirrorError::Gap {
                        have: self.event,
                        got: n,
                    });
                }
                self.game
                    .play_text(mv)
                    .map_err(|e| MirrorError::Engine(format!("{mv}: {e}")))?;
                view.moves.push(mv.clone());
                view.clocks = *clocks;
                view.deadline_ms = *deadline_ms;
                // Offers and requests lapse with the next move.
                view.draw_offer = None;
                view.takeback = None;
            }
            GameEvent::DrawOffered { by } => view.draw_offer = Some(*by),
            GameEvent::DrawDeclined { .. } => view.draw_offer = None,
            GameEvent::TakebackRequested { by } => view.takeback = Some(*by),
            GameEvent::TakebackDeclined { .. } => view.takeback = None,
            GameEvent::TakenBack {
                plies,
                clocks,
                deadline_ms,
            } => {
                while self.game.turns().len() > *plies as usize {
                    self.game
                        .undo()
                        .map_err(|e| MirrorError::Engine(e.to_string()))?;
                }
                view.moves.truncate(*plies as usize);
                view.clocks = *clocks;
                view.deadline_ms = *deadline_ms;
                view.takeback = None;
                view.draw_offer = None;
            }
            GameEvent::Ended {
                result,
                clocks,
                players,
            } => {
                view.result = Some(*result);
                view.clocks = *clocks;
                view.deadline_ms = None;
                view.status = Status::Over;
                view.draw_offer = None;
                view.takeback = None;
                if let Some([silver, red]) = players {
                    view.players = [Some(silver.clone()), Some(red.clone())];
                }
            }
        }
        self.event = n;
        Ok(Applied::Changed(event.clone()))
    }

    /// How the game ended, as the server says (the engine knows only lit Pharaohs and no moves;
    /// resignations, agreements, flags and abandonment come from the server).
    pub fn result(&self) -> Option<GameResult> {
        self.view.result.or_else(|| self.game.result())
    }

    /// Whether it is the client's turn in a game being played.
    pub fn my_turn(&self) -> bool {
        self.view.status == Status::Playing
            && self.view.result.is_none()
            && self.you == Some(self.game.side_to_move())
    }

    /// The player of `side`, if seated.
    pub fn player(&self, side: Color) -> Option<&PlayerInfo> {
        self.view.players[side.index()].as_ref()
    }

    /// Takes the clocks of a [`crate::ServerMsg::Presence`].
    pub fn set_clocks(&mut self, clocks: Option<Clocks>) {
        self.view.clocks = clocks;
    }

    /// The clocks as last sent.
    pub fn clocks(&self) -> Option<Clocks> {
        self.view.clocks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use khet_engine::Setup;

    fn view() -> GameView {
        GameView {
            code: "abcd2345".into(),
            setup: "Classic".into(),
            start: Setup::builtin("classic").unwrap().position.to_string(),
            rated: false,
            clock: None,
            players: [None, None],
            moves: vec![],
            clocks: None,
            status: Status::Playing,
            result: None,
            draw_offer: None,
            takeback: None,
            days_per_move: None,
            deadline_ms: None,
        }
    }

    fn moved(ply: u32, mv: &str) -> GameEvent {
        GameEvent::Moved {
            ply,
            mv: mv.into(),
            clocks: None,
            deadline_ms: None,
        }
    }

    #[test]
    fn each_event_is_applied_once_and_in_order() {
        let mut mirror = Mirror::from_sync(4, Some(Color::Red), view()).unwrap();
        assert!(matches!(
            mirror.apply(5, &moved(0, "j1-")),
            Ok(Applied::Changed(_))
        ));
        assert_eq!(mirror.apply(5, &moved(0, "j1-")), Ok(Applied::Duplicate));
        assert_eq!(mirror.apply(3, &moved(0, "j1-")), Ok(Applied::Duplicate));
        assert_eq!(mirror.game.turns().len(), 1);
        assert!(mirror.my_turn());
        assert_eq!(
            mirror.apply(7, &moved(1, "a8+")),
            Err(MirrorError::Gap { have: 5, got: 7 })
        );
        assert_eq!(mirror.game.turns().len(), 1, "nothing applied after a gap");
        assert!(
            mirror.apply(6, &moved(1, "zz9")).is_err(),
            "a move the engine refuses"
        );
        assert_eq!(mirror.event, 5);
    }

    #[test]
    fn a_sync_rebuilds_the_game_from_its_moves() {
        let mut v = view();
        v.moves = vec!["j1-".into(), "a8+".into()];
        let mirror = Mirror::from_sync(9, None, v.clone()).unwrap();
        assert_eq!(mirror.game.turns().len(), 2);
        v.moves.push("not a move".into());
        assert!(matches!(
            Mirror::from_sync(9, None, v),
            Err(MirrorError::Engine(_))
        ));
    }
}
