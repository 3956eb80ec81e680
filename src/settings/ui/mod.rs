//! The settings screen: animation, colours, the camera's home view, the new-game defaults and
//! whether to offer an unfinished game at start, graphics and sound. Every change is saved.

use crate::screen::Screen;
use crate::settings::{Palette, Quality, Settings};
use crate::theme::{PanelSet, PanelSpace, nav, side_panel};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

pub(crate) fn plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        panel
            .run_if(in_state(Screen::Settings))
            .in_set(PanelSet::Side),
    );
}

fn panel(
    mut contexts: EguiContexts,
    mut space: ResMut<PanelSpace>,
    mut settings: ResMut<Settings>,
    mut go: ResMut<NextState<Screen>>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    side_panel(&ctx, &mut space, |ui| {
        nav(ui, Screen::Settings, &mut go);
        let mut s = settings.clone();
        ui.add(egui::Slider::new(&mut s.speed, 0.25..=3.0).text("animation speed"));
        ui.label("Laser colours");
        ui.radio_value(&mut s.palette, Palette::Classic, "Classic: both lasers red");
        ui.radio_value(
            &mut s.palette,
            Palette::PerSide,
            "By side: Silver blue, Red red",
        );
        ui.radio_value(
            &mut s.palette,
            Palette::ColourBlind,
            "Colour-blind safe: blue and orange",
        );
        ui.label("Camera home view (R)");
        ui.add(egui::Slider::new(&mut s.camera_pitch_degrees, 20.0..=89.0).text("pitch °"));
        ui.add(egui::Slider::new(&mut s.camera_distance, 8.0..=25.0).text("distance"));
        ui.separator();
        ui.label("New games");
        crate::theme::players::players(ui, &mut s.players, &mut s.computer_level);
        crate::theme::rules_form::rules(ui, &mut s.mode, &mut s.clock, &mut s.swap_landing);
        ui.separator();
        ui.checkbox(
            &mut s.offer_resume,
            "At start, offer to resume an unfinished game",
        );
        ui.checkbox(
            &mut s.laser_preview,
            "Laser preview while aiming a move (casual games)",
        );
        ui.separator();
        ui.label("Graphics");
        ui.horizontal(|ui| {
            for (q, label) in [
                (Quality::Auto, "Auto"),
                (Quality::Low, "Low"),
                (Quality::Medium, "Medium"),
                (Quality::High, "High"),
            ] {
                ui.radio_value(&mut s.quality, q, label);
            }
        })
        .response
        .on_hover_text("Low: the board drawn at half resolution with simple materials; no shadows, reflections, bloom or anti-aliasing; fewer shards. Medium: shadows, reflections, MSAA ×4, no bloom. High: all of it, with bloom. Auto: Low on a software renderer, else High");
        ui.checkbox(
            &mut s.camera_shake,
            "The camera shakes when the laser strikes",
        );
        ui.separator();
        let cores = crate::settings::cores();
        let auto = crate::settings::threads_for(0, cores);
        ui.horizontal(|ui| {
            ui.label("The computer thinks on");
            egui::ComboBox::from_id_salt("computer threads")
                .selected_text(match s.computer_threads {
                    0 => format!("Auto ({auto})"),
                    n => n.to_string(),
                })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut s.computer_threads, 0, format!("Auto ({auto})"));
                    for n in 1..=cores {
                        ui.selectable_value(&mut s.computer_threads, n, n.to_string());
                    }
                });
            ui.label(format!("of {cores} cores"));
        })
        .response
        .on_hover_text("Auto leaves one core to the window and gives the computer the rest; fewer keeps the machine free for other work");
        ui.checkbox(&mut s.computer_book, "Master opens from its book")
            .on_hover_text("Where its opening book has the position, Master plays the book's move (found by a long search) at once; off, it thinks from the first move");
        ui.separator();
        ui.label("Sound");
        ui.horizontal(|ui| {
            ui.add_enabled(
                !s.muted,
                egui::Slider::new(&mut s.volume, 0.0..=1.0).text("volume"),
            );
            ui.checkbox(&mut s.muted, "mute (M)");
        });
        ui.separator();
        if ui.button("Restore the defaults").clicked() {
            s = Settings::default();
        }
        settings.set_if_neq(s);
    });
    Ok(())
}
