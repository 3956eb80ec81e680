//! How the panels look and share the window: egui layout ([`PanelSpace`], [`PanelSet`]), the
//! side panel, dialogs and the way between screens, colours and texts, and the widgets several
//! features use (players, the rules form, the move list, a setup's preview). Each feature's own
//! panels live in its folder's `ui/`; they take their room from [`PanelSpace`], and the board's
//! picture gets what is left.

use bevy::asset::AssetEventSystems;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPostUpdateSet, EguiPrimaryContextPass, egui};

pub mod moves;
pub mod players;
pub mod preview;
pub mod rules_form;
mod widgets;
pub use widgets::*;

/// The part of the window (logical points) not yet taken by a panel this frame.
#[derive(Resource, Clone, Copy, Debug)]
pub struct PanelSpace {
    pub free: egui::Rect,
}

/// The order of the panels in a frame: the side panel takes the full height, the status bar
/// the bottom of what is left, then the board gets the rest and the overlays go on top.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub enum PanelSet {
    Begin,
    Side,
    Bottom,
    Viewport,
    Overlays,
}

pub(super) fn plugin(app: &mut App) {
    app.insert_resource(PanelSpace {
        free: egui::Rect::NOTHING,
    })
    .configure_sets(
        EguiPrimaryContextPass,
        (
            PanelSet::Begin,
            PanelSet::Side,
            PanelSet::Bottom,
            PanelSet::Viewport,
            PanelSet::Overlays,
        )
            .chain(),
    )
    .add_systems(EguiPrimaryContextPass, begin.in_set(PanelSet::Begin))
    // A frame's new glyphs reach the screen in that frame. egui adds a glyph to its font atlas
    // when text first needs it, and `bevy_egui` writes the atlas into its Bevy image after the
    // pass; the renderer takes a changed image only from that frame's asset events. Unordered,
    // the events ran first in nearly every frame here (tour probes: 34 of 37 atlas changes
    // reached the renderer a frame late), and that frame drew the new glyphs blank: issue 60's
    // clock without its last digit, or no egui at all on a new atlas (tour picture 08c). Bevy
    // orders its own text systems before these events for the same reason.
    .configure_sets(
        PostUpdate,
        EguiPostUpdateSet::PostProcessOutput.before(AssetEventSystems),
    );
}

fn begin(mut contexts: EguiContexts, mut space: ResMut<PanelSpace>) -> Result {
    space.free = contexts.ctx_mut()?.viewport_rect();
    Ok(())
}
