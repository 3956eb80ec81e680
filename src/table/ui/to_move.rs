//! The head of the game panel: the setup, whose move it is (or the result), the computer
//! thinking, who plays; and the pieces each side has lost.

use crate::table::Match;
use crate::theme::{piece_letter, side_color};
use bevy_egui::egui;
use khet_engine::Color as Side;
use khet_engine::{Game, GameResult};
use khet_engine::{Mode, Player};

/// What the panel's first line says.
#[derive(Debug, PartialEq)]
pub enum Headline {
    ToMove(Side),
    /// The shot that decides the game is on its way: who fired it.
    Firing(Side),
    Over(GameResult),
}

/// The result waits for the shot that decides it to land, as the game-over window does.
pub fn headline(game: &Game, in_flight: bool) -> Headline {
    match (game.result(), game.last_turn()) {
        (Some(_), Some(last)) if in_flight => Headline::Firing(last.color),
        (Some(r), _) => Headline::Over(r),
        (None, _) => Headline::ToMove(game.side_to_move()),
    }
}

/// `thinking`: for how many seconds the computer has been thinking, if it is. `in_flight`: a
/// shot is still on its way, so a result it decides is not told before the beam gets there.
pub fn to_move(ui: &mut egui::Ui, m: &Match, thinking: Option<f32>, in_flight: bool) {
    let side = m.game.side_to_move();
    // Online, a rated game is played under tournament rules; players know it as rated.
    let mode = match (m.spec.online, m.spec.mode) {
        (true, Mode::Tournament) => " · online, rated",
        (true, _) => " · online",
        (false, Mode::Tournament) => " · tournament",
        (false, _) => "",
    };
    ui.label(format!(
        "{} · {}{mode}",
        m.setup_name,
        m.game.start().edition()
    ));
    match headline(&m.game, in_flight) {
        Headline::Firing(shooter) => {
            ui.label(
                egui::RichText::new(format!("{shooter}'s laser fires…"))
                    .color(side_color(shooter))
                    .strong()
                    .size(18.0),
            );
        }
        Headline::Over(r) => {
            ui.label(egui::RichText::new(r.to_string()).strong());
        }
        Headline::ToMove(side) => {
            ui.horizontal(|ui| {
                let (dot, _) = ui.allocate_exact_size(egui::vec2(16.0, 16.0), egui::Sense::hover());
                ui.painter()
                    .circle_filled(dot.center(), 7.0, side_color(side));
                ui.label(
                    egui::RichText::new(format!("{side} to move"))
                        .color(side_color(side))
                        .strong()
                        .size(18.0),
                );
            });
        }
    }
    if let Some(secs) = thinking {
        ui.horizontal(|ui| {
            ui.spinner();
            let level = match m.player(side) {
                Player::Computer(l) => l.name(),
                Player::Person | Player::Online => "",
            };
            ui.label(format!("{side} ({level}) is thinking… {:.0} s", secs));
        });
    }
    for s in [Side::Silver, Side::Red] {
        if let Player::Computer(l) = m.player(s) {
            ui.small(
                egui::RichText::new(format!("{s}: computer, {}", l.name())).color(side_color(s)),
            );
        }
    }
}

pub fn lost(ui: &mut egui::Ui, m: &Match) {
    let lost = m.lost();
    for s in [Side::Silver, Side::Red] {
        let letters: Vec<&str> = lost[s.index()]
            .iter()
            .map(|p| piece_letter(p.kind()))
            .collect();
        let text = if letters.is_empty() {
            "nothing".into()
        } else {
            letters.join(" ")
        };
        ui.label(egui::RichText::new(format!("{s} lost: {text}")).color(side_color(s)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use khet_engine::{Diagonal, Direction, Edition, Piece, Position, Square};

    #[test]
    fn the_result_waits_for_the_beam() {
        // Silver's beam runs up the j file, where an Anubis shields it; a Pyramid on j8 would
        // turn it west along rank 8 into the Red Pharaoh on f8.
        let mut p = Position::empty(Edition::Khet2);
        for (at, piece) in [
            ("a8", Piece::sphinx(Side::Red, Direction::S)),
            ("j1", Piece::sphinx(Side::Silver, Direction::N)),
            ("e1", Piece::pharaoh(Side::Silver)),
            ("f8", Piece::pharaoh(Side::Red)),
            ("j5", Piece::anubis(Side::Silver, Direction::S)),
            ("j8", Piece::pyramid(Side::Silver, Diagonal::SW)),
        ] {
            let square: Square = at.parse().expect("a square");
            p.put(square, Some(piece));
        }
        let mut game = Game::new(p);
        assert_eq!(headline(&game, false), Headline::ToMove(Side::Silver));
        // The Anubis steps aside: the shot will light the Pharaoh.
        game.play_text("j5i5").expect("a legal move");
        let result = game.result().expect("the Red Pharaoh is lit");
        assert_eq!(headline(&game, true), Headline::Firing(Side::Silver));
        assert_eq!(headline(&game, false), Headline::Over(result));
    }
}
