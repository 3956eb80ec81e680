//! The setups of one edition to choose from (broken files shown with their error), and a
//! preview of the chosen one.

use super::new_game::NewGameForm;
use crate::setups::SetupLibrary;
use bevy_egui::egui;

pub fn setups(
    ui: &mut egui::Ui,
    form: &mut NewGameForm,
    library: &SetupLibrary,
) -> Option<khet_engine::Setup> {
    ui.label("Setup");
    egui::ScrollArea::vertical()
        .max_height(180.0)
        .show(ui, |ui| {
            for listing in &library.listings {
                match &listing.setup {
                    Ok(setup) if setup.edition == form.edition => {
                        let chosen = form.chosen.as_deref() == Some(listing.label.as_str());
                        let label = format!("{} ({})", setup.name, listing.label);
                        if ui
                            .selectable_label(chosen, label)
                            .on_hover_text(&setup.description)
                            .clicked()
                        {
                            form.chosen = Some(listing.label.clone());
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        ui.add_enabled(
                            false,
                            egui::Button::selectable(false, format!("⚠ {}", listing.label)),
                        );
                        ui.label(
                            egui::RichText::new(e.to_string())
                                .small()
                                .color(egui::Color32::from_rgb(230, 150, 90)),
                        );
                    }
                }
            }
        });
    let chosen = form
        .chosen
        .as_deref()
        .and_then(|l| library.find(l))
        .filter(|s| s.edition == form.edition)
        .cloned();
    if let Some(setup) = &chosen {
        super::preview::preview(ui, &setup.position);
        ui.small(&setup.description);
    }
    chosen
}
