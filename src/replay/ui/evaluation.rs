//! The engine's view of a position in the replay: an evaluation bar, the score in words and the best line.

use crate::replay::Analysis;
use crate::table::Match;
use crate::theme::side_color;
use bevy_egui::egui;
use khet_engine::{Color as Side, Score};

/// The evaluation bar (Silver's share, white from the left), the score in Pyramids or as a
/// Pharaoh lit in N, and the best line.
pub fn evaluation(ui: &mut egui::Ui, analysis: &Analysis, m: &Match) {
    let Some(found) = analysis
        .found
        .as_ref()
        .filter(|f| f.ply == m.game.turns().len())
    else {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label(if m.game.is_over() {
                "The game is over here."
            } else {
                "Thinking…"
            });
        });
        return;
    };
    let (share, words) = match Score::from_raw(found.silver_score) {
        Score::Mate(n) if n > 0 => (1.0, format!("Silver lights the Pharaoh in {n}")),
        Score::Mate(n) => (0.0, format!("Red lights the Pharaoh in {}", -n)),
        Score::Centipawns(cp) => (
            1.0 / (1.0 + (-(cp as f32) / 400.0).exp()),
            format!("{:+.1} Pyramids for Silver", cp as f32 / 100.0),
        ),
    };
    let (rect, _) =
        ui.allocate_exact_size(egui::vec2(ui.available_width(), 18.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 3.0, side_color(Side::Red));
    let mut silver = rect;
    silver.set_width(rect.width() * share);
    painter.rect_filled(silver, 3.0, side_color(Side::Silver));
    painter.line_segment(
        [rect.center_top(), rect.center_bottom()],
        (1.0, egui::Color32::DARK_GRAY),
    );
    ui.label(egui::RichText::new(words).strong());
    let line: Vec<String> = found.line.iter().take(8).map(ToString::to_string).collect();
    ui.label(format!(
        "Best line (depth {}): {}",
        found.depth,
        line.join(" ")
    ));
}
