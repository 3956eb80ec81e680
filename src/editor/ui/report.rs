//! What the engine says of the editor's board: each problem with its reason (its squares glow
//! on the board), the moves at hand (perft 1 and 2), and the fairness batch.

use crate::editor::Editor;
use crate::editor::fairness::{CheckFairness, Fairness};
use bevy::prelude::*;
use bevy_egui::egui;
use khet_engine::fairness::{Batch, FairReport};

pub fn report(
    ui: &mut egui::Ui,
    editor: &Editor,
    fairness: &Fairness,
    check: &mut MessageWriter<CheckFairness>,
) {
    let red = egui::Color32::from_rgb(255, 110, 90);
    if editor.problems.is_empty() {
        ui.label(
            egui::RichText::new("✔ A legal setup.").color(egui::Color32::from_rgb(110, 230, 120)),
        );
    } else {
        ui.label(
            egui::RichText::new(format!(
                "{} problem(s); saving waits until none remain:",
                editor.problems.len()
            ))
            .color(red),
        );
        for p in &editor.problems {
            ui.label(egui::RichText::new(format!("• {p}")).color(red));
        }
    }
    ui.horizontal(|ui| {
        let ok = editor.problems.is_empty();
        let button = ui.add_enabled(ok, egui::Button::new("Is it fair?"));
        if button.on_hover_text(format!(
                "The engine plays {} quick games from it (a quick two-ply player on both sides), in the background",
                Batch::default().games
            )).clicked() {
            check.write(CheckFairness {
                batch: Batch::default(),
                board: editor.board,
            });
        }
        if let Some((done, games)) = fairness.progress() {
            ui.spinner();
            ui.label(format!("{done} of {games} games"));
        }
    });
    if let Fairness::Done { report, board } = fairness {
        if *board != editor.board {
            ui.small("(for the board before your last changes)");
        }
        fair_report(ui, report);
    }
}

fn fair_report(ui: &mut egui::Ui, r: &FairReport) {
    ui.label(
        egui::RichText::new(format!(
            "Silver scores {:.0} % ± {:.0} over {} games",
            100.0 * r.silver_score,
            100.0 * r.margin,
            r.games
        ))
        .strong(),
    );
    ui.label(format!(
        "Silver won {}, Red {}, drawn {}; {:.0} plies on average.",
        r.silver_wins, r.red_wins, r.draws, r.mean_plies
    ));
    ui.label(format!(
        "Decided in the opening (by ply 12): {} of {}.{}",
        r.decided_early,
        r.games,
        if r.first_move_wins {
            " Silver's first move can light the Red Pharaoh!"
        } else {
            ""
        }
    ));
    ui.label(format!(
        "Mobility: perft(1) = {}, perft(2) = {} (Classic: 77 and 5,920).",
        r.perft1, r.perft2
    ));
}
