//! What is drawn over the board: file and rank labels, turn buttons beside the selected piece,
//! the clocks; and the evaluation bar the replay panel shows.

use super::{PanelSet, clock_text, side_color};
use crate::board::square_center;
use crate::clock::Clocks;
use crate::replay::Analysis;
use crate::selection::{RotateSelected, Selection, SelectionAction, StackMode};
use crate::state::{Match, Show, has_match};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use khet_engine::{Color as Side, File, Kind, Rank, Rotation, Score, Square};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        (labels, turn_buttons, clocks)
            .run_if(has_match)
            .in_set(PanelSet::Overlays),
    );
}

type BoardCamera<'w, 's> = Query<
    'w,
    's,
    (&'static Camera, &'static GlobalTransform),
    (With<Camera3d>, Without<bevy_egui::PrimaryEguiContext>),
>;

/// Window coordinates of a point on the board.
fn to_screen(camera: &BoardCamera, world: Vec3) -> Option<egui::Pos2> {
    let (cam, tf) = camera.single().ok()?;
    // `world_to_viewport` answers in window coordinates (the viewport's offset included).
    let p = cam.world_to_viewport(tf, world).ok()?;
    Some(egui::pos2(p.x, p.y))
}

fn labels(mut contexts: EguiContexts, camera: BoardCamera) -> Result {
    let ctx = contexts.ctx_mut()?;
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Background,
        egui::Id::new("labels"),
    ));
    let font = egui::FontId::proportional(15.0);
    let ink = egui::Color32::from_gray(200);
    for f in File::ALL {
        let sq = Square::from_coords(f, Rank::ALL[0]);
        if let Some(p) = to_screen(&camera, square_center(sq) + Vec3::new(0.0, 0.0, 0.78)) {
            painter.text(p, egui::Align2::CENTER_CENTER, f.char(), font.clone(), ink);
        }
    }
    for r in Rank::ALL {
        let sq = Square::from_coords(File::ALL[0], r);
        if let Some(p) = to_screen(&camera, square_center(sq) + Vec3::new(-0.8, 0.0, 0.0)) {
            painter.text(p, egui::Align2::CENTER_CENTER, r.char(), font.clone(), ink);
        }
    }
    Ok(())
}

fn turn_buttons(
    mut contexts: EguiContexts,
    camera: BoardCamera,
    m: Res<Match>,
    show: Res<Show>,
    selection: Res<Selection>,
    mut rotate: MessageWriter<RotateSelected>,
    mut actions: MessageWriter<SelectionAction>,
) -> Result {
    let Some(sel) = selection.square(&m.game).filter(|_| show.is_idle()) else {
        return Ok(());
    };
    let (Some(p), Some(piece)) = (
        to_screen(&camera, square_center(sel) + Vec3::new(0.0, 1.1, 0.0)),
        m.game.position().piece_at(sel),
    ) else {
        return Ok(());
    };
    egui::Area::new(egui::Id::new("turn"))
        .fixed_pos(p - egui::vec2(40.0, 20.0))
        .show(contexts.ctx_mut()?, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.horizontal(|ui| {
                    if piece.can_rotate() {
                        if ui
                            .button("↺")
                            .on_hover_text("Turn anticlockwise (Q)")
                            .clicked()
                        {
                            rotate.write(RotateSelected(Rotation::Anticlockwise));
                        }
                        if ui.button("↻").on_hover_text("Turn clockwise (E)").clicked() {
                            rotate.write(RotateSelected(Rotation::Clockwise));
                        }
                    }
                    if piece.kind() == Kind::Obelisk && piece.height() == 2 {
                        let mut mode = selection.stack_mode;
                        ui.selectable_value(&mut mode, StackMode::Whole, "move stack");
                        ui.selectable_value(&mut mode, StackMode::Top, "move top");
                        if mode != selection.stack_mode {
                            actions.write(SelectionAction::ToggleStackMode);
                        }
                    }
                });
            });
        });
    Ok(())
}

/// Both clocks at the top of the board; the running one bright.
fn clocks(
    mut contexts: EguiContexts,
    clocks: Option<Res<Clocks>>,
    m: Res<Match>,
    space: Res<super::PanelSpace>,
) -> Result {
    let Some(clocks) = clocks else { return Ok(()) };
    let running = (!m.game.is_over()).then(|| m.game.side_to_move());
    egui::Area::new(egui::Id::new("clocks"))
        .fixed_pos(egui::pos2(
            space.free.center().x - 110.0,
            space.free.top() + 8.0,
        ))
        .show(contexts.ctx_mut()?, |ui| {
            ui.horizontal(|ui| {
                for side in [Side::Silver, Side::Red] {
                    let on = running == Some(side);
                    let left = clocks.left(side);
                    let low = left.as_secs() < 10;
                    let text = egui::RichText::new(format!("{side} {}", clock_text(left)))
                        .monospace()
                        .size(22.0)
                        .color(if low {
                            egui::Color32::from_rgb(255, 120, 60)
                        } else {
                            side_color(side)
                        });
                    let frame = egui::Frame::popup(ui.style()).fill(if on {
                        egui::Color32::from_gray(60)
                    } else {
                        egui::Color32::from_gray(25)
                    });
                    frame.show(ui, |ui| {
                        ui.label(if on { text.strong() } else { text.weak() })
                    });
                }
            });
        });
    Ok(())
}

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
