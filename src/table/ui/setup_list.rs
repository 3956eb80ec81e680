//! The setups of one edition to choose from (broken files shown with their error), and a
//! preview of the chosen one.

use crate::setups::SetupLibrary;
use bevy_egui::egui;

/// The setups of `edition` to choose from; `chosen` is the label of the chosen one.
pub fn setups(
    ui: &mut egui::Ui,
    edition: khet_engine::Edition,
    chosen: &mut Option<String>,
    library: &SetupLibrary,
) -> Option<khet_engine::Setup> {
    ui.label("Setup");
    egui::ScrollArea::vertical()
        .max_height(180.0)
        .show(ui, |ui| {
            for listing in &library.listings {
                match &listing.setup {
                    Ok(setup) if setup.edition == edition => {
                        let is_chosen = chosen.as_deref() == Some(listing.label.as_str());
                        let label = format!("{} ({})", setup.name, listing.label);
                        if ui
                            .selectable_label(is_chosen, label)
                            .on_hover_text(&setup.description)
                            .clicked()
                        {
                            *chosen = Some(listing.label.clone());
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
    let chosen = chosen
        .as_deref()
        .and_then(|l| library.find(l))
        .filter(|s| s.edition == edition)
        .cloned();
    if let Some(setup) = &chosen {
        crate::theme::preview::preview(ui, &setup.position);
        ui.small(&setup.description);
    }
    chosen
}
