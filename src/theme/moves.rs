//! The list of moves, two to a row, with what each shot hit; in a replay a click on a move
//! jumps there and the shown move is marked.

use crate::theme::side_color;
use bevy_egui::egui;
use khet_engine::Turn;

/// Draws the moves; `current` is how many are on the board (marked), and the answer is the
/// count of moves whose entry was clicked, if any.
pub fn move_list(
    ui: &mut egui::Ui,
    turns: &[Turn],
    current: Option<usize>,
    height: f32,
) -> Option<usize> {
    let mut clicked = None;
    egui::ScrollArea::vertical()
        .max_height(height)
        .stick_to_bottom(current.is_none())
        .show(ui, |ui| {
            egui::Grid::new("moves").striped(true).show(ui, |ui| {
                for (i, pair) in turns.chunks(2).enumerate() {
                    ui.label(format!("{}.", i + 1));
                    for (j, t) in pair.iter().enumerate() {
                        let n = 2 * i + j + 1;
                        let hit: String = t
                            .shot
                            .hits
                            .iter()
                            .map(|h| format!(" ×{}", h.square))
                            .collect();
                        let text = egui::RichText::new(format!("{}{hit}", t.mv))
                            .color(side_color(t.color))
                            .monospace();
                        let shown = current == Some(n);
                        let r = ui.add(egui::Button::selectable(shown, text).frame(false));
                        if current.is_some() && r.clicked() {
                            clicked = Some(n);
                        }
                    }
                    ui.end_row();
                }
            });
        });
    clicked
}
