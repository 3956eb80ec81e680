//! A game as a page draws it, kept from the messages of the game's room: the connection of a
//! page that asked for views (`views` in its hello) and the watch page's keep a [`Mirror`] from
//! the very messages they pass on, and after each change send the game worked out by the engine
//! ([`BoardView`], legal moves included). The pages know no rules.

use khet_protocol::view::{BoardView, Presence};
use khet_protocol::{Applied, Mirror, ServerMsg};

/// A page's copy of its game.
#[derive(Default)]
pub struct Views {
    mirror: Option<Mirror>,
    presence: Presence,
}

/// What a message did to the copy.
#[derive(Debug, PartialEq, Eq)]
pub enum Seen {
    /// The game (or who is at the table) changed: the page needs a new view.
    Changed,
    /// Nothing a page shows changed.
    Same,
    /// Events are missing: the game must be followed again from a whole one.
    Gap,
    /// The server's game does not replay (a bug): nothing can be shown.
    Broken,
}

impl Views {
    /// Forgets the game: the next one starts from its whole [`ServerMsg::Sync`].
    pub fn reset(&mut self) {
        *self = Views::default();
    }

    /// Takes a message of the game's room.
    pub fn take(&mut self, msg: ServerMsg) -> Seen {
        match msg {
            ServerMsg::Sync { event, you, game } => match Mirror::from_sync(event, you, game) {
                Ok(mirror) => {
                    self.mirror = Some(mirror);
                    Seen::Changed
                }
                Err(_) => Seen::Broken,
            },
            ServerMsg::Event { n, event } => match self.mirror.as_mut().map(|m| m.apply(n, &event))
            {
                Some(Ok(Applied::Changed(_))) => Seen::Changed,
                Some(Ok(Applied::Duplicate)) => Seen::Same,
                Some(Err(_)) | None => Seen::Gap,
            },
            ServerMsg::Presence {
                connected,
                gone_ms,
                grace_ms,
                clocks,
            } => {
                self.presence = Presence {
                    connected,
                    gone_ms,
                    grace_ms,
                };
                match self.mirror.as_mut() {
                    Some(m) => {
                        m.set_clocks(clocks);
                        Seen::Changed
                    }
                    None => Seen::Same,
                }
            }
            _ => Seen::Same,
        }
    }

    /// The game as the page draws it at `now_ms` (the server's clock), once a whole game has
    /// come.
    pub fn view(&self, now_ms: u64) -> Option<BoardView> {
        let mut view = BoardView::new(self.mirror.as_ref()?, self.presence);
        view.left_ms = view.deadline_ms.map(|d| d.saturating_sub(now_ms));
        Some(view)
    }

    /// Takes `json`, a message just sent to a page that speaks the protocol; the
    /// [`ServerMsg::View`] to send after it, if it changed what the page shows. (A gap is the
    /// connection's to mend: it follows the game again from the last event it sent.) `now_ms` is
    /// the server's clock, which a correspondence game's time left is counted by.
    pub fn after(&mut self, json: &str, now_ms: u64) -> Option<String> {
        let msg = ServerMsg::from_json(json).ok()?;
        if self.take(msg) != Seen::Changed {
            return None;
        }
        let view = Box::new(self.view(now_ms)?);
        Some(ServerMsg::View { view }.to_json())
    }
}
