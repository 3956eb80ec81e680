//! The egui panels: new game (edition, setup with a preview, players, rules), the game (side to
//! move, moves, lost pieces, draw offers and claims, resignation), turn buttons beside the
//! selected piece, the draw-offer dialog, the game-over window, and the board's labels.

use crate::board::square_center;
use crate::setups::SetupLibrary;
use crate::state::{
    KhetGame, NewGameRequested, NewGameSpec, Player, RotateSelected, Settings, Show, StackMode,
    TableAction,
};
use crate::view::camera::CameraAction;
use bevy::camera::Viewport;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use khet_engine::{
    Color as Side, Edition, File, Kind, Level, Position, Rank, Rotation, Rules, Square, SwapLanding,
};

#[derive(Clone, Copy, PartialEq, Eq, Default)]
enum Tab {
    #[default]
    Game,
    NewGame,
}

/// What the panels remember between frames.
#[derive(Resource)]
pub struct UiState {
    tab: Tab,
    edition: Edition,
    chosen: Option<String>,
    swap: SwapLanding,
    players: [Player; 2],
}

impl Default for UiState {
    fn default() -> UiState {
        UiState {
            tab: Tab::Game,
            edition: Edition::Khet2,
            chosen: Some("khet2/classic".into()),
            swap: SwapLanding::Strict,
            players: [Player::Person, Player::Computer(Level::Casual)],
        }
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<UiState>()
        .add_systems(EguiPrimaryContextPass, panels);
}

fn side_color(side: Side) -> egui::Color32 {
    match side {
        Side::Silver => egui::Color32::from_rgb(225, 230, 240),
        Side::Red => egui::Color32::from_rgb(235, 80, 70),
    }
}

fn piece_letter(kind: Kind) -> &'static str {
    match kind {
        Kind::Pharaoh => "K",
        Kind::Sphinx => "X",
        Kind::Pyramid => "P",
        Kind::Anubis => "A",
        Kind::Scarab => "S",
        Kind::Djed => "D",
        Kind::Obelisk => "O",
        Kind::Eye => "E",
    }
}

/// A small drawing of a position: tinted reserved squares, pieces as letters.
fn preview(ui: &mut egui::Ui, position: &Position) {
    let cell = 17.0;
    let (rect, _) =
        ui.allocate_exact_size(egui::vec2(cell * 10.0, cell * 8.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    for sq in Square::ALL {
        let x = rect.left() + sq.file().index() as f32 * cell;
        let y = rect.top() + (7 - sq.rank().index()) as f32 * cell;
        let r = egui::Rect::from_min_size(egui::pos2(x, y), egui::vec2(cell - 1.0, cell - 1.0));
        let fill = match khet_engine::reserved_for(sq) {
            Some(Side::Silver) => egui::Color32::from_rgb(120, 130, 150),
            Some(Side::Red) => egui::Color32::from_rgb(130, 70, 65),
            None => egui::Color32::from_rgb(150, 135, 105),
        };
        painter.rect_filled(r, 2.0, fill);
        if let Some(p) = position.piece_at(sq) {
            let text = if p.height() == 2 {
                "OO"
            } else {
                piece_letter(p.kind())
            };
            let (disc, ink) = match p.color() {
                Side::Silver => (
                    egui::Color32::from_rgb(235, 238, 245),
                    egui::Color32::from_rgb(30, 30, 40),
                ),
                Side::Red => (egui::Color32::from_rgb(150, 20, 25), egui::Color32::WHITE),
            };
            painter.circle_filled(r.center(), cell * 0.45, disc);
            painter.text(
                r.center(),
                egui::Align2::CENTER_CENTER,
                text,
                egui::FontId::monospace(11.0),
                ink,
            );
        }
    }
}

#[allow(clippy::too_many_lines)]
fn panels(
    mut contexts: EguiContexts,
    mut ui_state: ResMut<UiState>,
    game: Option<Res<KhetGame>>,
    library: Res<SetupLibrary>,
    mut settings: ResMut<Settings>,
    show: Res<Show>,
    mut new_game: MessageWriter<NewGameRequested>,
    mut actions: MessageWriter<TableAction>,
    mut rotate: MessageWriter<RotateSelected>,
    mut camera_actions: MessageWriter<CameraAction>,
    mut camera: Query<
        (&mut Camera, &GlobalTransform),
        (With<Camera3d>, Without<bevy_egui::PrimaryEguiContext>),
    >,
    window: Query<&Window, With<PrimaryWindow>>,
    thinking: Option<Res<crate::ai::Thinking>>,
    mut hints: MessageWriter<crate::ai::HintRequested>,
    time: Res<Time>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let Some(game) = game else { return Ok(()) };
    let mut root = egui::Ui::new(
        ctx.clone(),
        "viewport".into(),
        egui::UiBuilder::new()
            .layer_id(egui::LayerId::background())
            .max_rect(ctx.viewport_rect()),
    );
    let side = game.game.side_to_move();

    let panel = egui::Panel::left("khet").default_size(300.0).resizable(false).show(&mut root, |ui| {
        ui.horizontal(|ui| {
            ui.heading("Khet");
            ui.selectable_value(&mut ui_state.tab, Tab::Game, "Game");
            ui.selectable_value(&mut ui_state.tab, Tab::NewGame, "New game");
        });
        ui.separator();
        match ui_state.tab {
            Tab::Game => {
                ui.label(format!("{} · {}", game.setup_name, game.game.start().edition()));
                match game.game.result() {
                    Some(r) => {
                        ui.label(egui::RichText::new(r.to_string()).strong());
                    }
                    None => {
                        ui.horizontal(|ui| {
                            let (dot, _) = ui.allocate_exact_size(egui::vec2(16.0, 16.0), egui::Sense::hover());
                            ui.painter().circle_filled(dot.center(), 7.0, side_color(side));
                            ui.label(egui::RichText::new(format!("{side} to move")).color(side_color(side)).strong().size(18.0));
                        });
                    }
                }
                if let Some(t) = thinking.as_deref().filter(|t| !t.hint) {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        let level = match game.spec.players[side.index()] {
                            Player::Computer(l) => l.name(),
                            Player::Person => "",
                        };
                        ui.label(format!("{side} ({level}) is thinking… {:.0} s", (time.elapsed_secs() - t.since).max(0.0)));
                    });
                }
                for s in [Side::Silver, Side::Red] {
                    if let Player::Computer(l) = game.spec.players[s.index()] {
                        ui.small(egui::RichText::new(format!("{s}: computer, {}", l.name())).color(side_color(s)));
                    }
                }
                ui.add_space(4.0);
                ui.label("Moves");
                egui::ScrollArea::vertical().max_height(220.0).stick_to_bottom(true).show(ui, |ui| {
                    egui::Grid::new("moves").striped(true).show(ui, |ui| {
                        for (i, pair) in game.game.turns().chunks(2).enumerate() {
                            ui.label(format!("{}.", i + 1));
                            for t in pair {
                                let hit = t.shot.hits.iter().map(|h| format!(" ×{}", h.square)).collect::<String>();
                                ui.label(egui::RichText::new(format!("{}{hit}", t.mv)).color(side_color(t.color)).monospace());
                            }
                            ui.end_row();
                        }
                    });
                });
                ui.add_space(4.0);
                for s in [Side::Silver, Side::Red] {
                    let lost: Vec<&str> = game.lost[s.index()].iter().map(|p| piece_letter(p.kind())).collect();
                    ui.label(egui::RichText::new(format!("{s} lost: {}", if lost.is_empty() { "nothing".into() } else { lost.join(" ") })).color(side_color(s)));
                }
                ui.separator();
                let live = !game.game.is_over();
                ui.horizontal_wrapped(|ui| {
                    if ui.add_enabled(live && game.draw_offer.is_none(), egui::Button::new("Offer draw")).clicked() {
                        actions.write(TableAction::OfferDraw);
                    }
                    let claim = ui.add_enabled(game.game.can_claim_draw(), egui::Button::new("Claim draw"));
                    if claim.clicked() {
                        actions.write(TableAction::ClaimDraw);
                    }
                    claim.on_disabled_hover_text(format!(
                        "A draw may be claimed when the same arrangement appears for the third time (now: {}).",
                        game.game.repetitions()
                    ));
                    if ui.add_enabled(live, egui::Button::new("Resign")).clicked() {
                        actions.write(TableAction::Resign);
                    }
                });
                ui.horizontal_wrapped(|ui| {
                    if ui.add_enabled(show.is_idle() && show.shot.is_some(), egui::Button::new("Replay shot")).clicked() {
                        actions.write(TableAction::ReplayShot);
                    }
                    if ui.add_enabled(!show.is_idle(), egui::Button::new("Skip")).clicked() {
                        actions.write(TableAction::Skip);
                    }
                    if ui.button("New game…").clicked() {
                        ui_state.tab = Tab::NewGame;
                    }
                    let person_to_move = game.spec.players[side.index()] == Player::Person;
                    let hint = ui.add_enabled(live && person_to_move && thinking.is_none() && show.is_idle(), egui::Button::new("Hint"));
                    if hint.on_hover_text("The move Master would play").clicked() {
                        hints.write(crate::ai::HintRequested);
                    }
                });
                ui.add(egui::Slider::new(&mut settings.speed, 0.25..=3.0).text("animation speed"));
                ui.horizontal(|ui| {
                    if ui.button("Reset view (R)").clicked() {
                        camera_actions.write(CameraAction::Home);
                    }
                    if ui.button("Flip sides (F)").clicked() {
                        camera_actions.write(CameraAction::Flip);
                    }
                });
                ui.small("Left click: select and move · Q / E or ↺ ↻: turn · right-drag: orbit · wheel: zoom · Space: skip");
            }
            Tab::NewGame => {
                ui.horizontal(|ui| {
                    ui.label("Edition");
                    ui.radio_value(&mut ui_state.edition, Edition::Khet2, "Khet 2.0");
                    ui.radio_value(&mut ui_state.edition, Edition::Khet1, "Khet 1.0");
                });
                ui.label("Setup");
                egui::ScrollArea::vertical().max_height(200.0).show(ui, |ui| {
                    for listing in &library.listings {
                        match &listing.setup {
                            Ok(setup) => {
                                if setup.edition != ui_state.edition {
                                    continue;
                                }
                                let chosen = ui_state.chosen.as_deref() == Some(listing.label.as_str());
                                if ui.selectable_label(chosen, format!("{} ({})", setup.name, listing.label)).on_hover_text(&setup.description).clicked() {
                                    ui_state.chosen = Some(listing.label.clone());
                                }
                            }
                            Err(e) => {
                                ui.add_enabled(false, egui::Button::selectable(false, format!("⚠ {}", listing.label)));
                                ui.label(egui::RichText::new(e.to_string()).small().color(egui::Color32::from_rgb(230, 150, 90)));
                            }
                        }
                    }
                });
                let chosen = ui_state.chosen.as_deref().and_then(|l| library.find(l)).filter(|s| s.edition == ui_state.edition).cloned();
                if let Some(setup) = &chosen {
                    preview(ui, &setup.position);
                    ui.small(&setup.description);
                }
                ui.label("Players");
                for s in [Side::Silver, Side::Red] {
                    let player = &mut ui_state.players[s.index()];
                    ui.horizontal(|ui| {
                        ui.label(egui::RichText::new(format!("{s}:")).color(side_color(s)));
                        let person = *player == Player::Person;
                        if ui.selectable_label(person, "Person").clicked() {
                            *player = Player::Person;
                        }
                        if ui.selectable_label(!person, "Computer").clicked() && person {
                            *player = Player::Computer(Level::Casual);
                        }
                    });
                    if let Player::Computer(level) = player {
                        ui.horizontal(|ui| {
                            ui.add_space(16.0);
                            for l in Level::ALL {
                                ui.selectable_value(level, l, l.name()).on_hover_text(l.description());
                            }
                        });
                        ui.horizontal(|ui| {
                            ui.add_space(16.0);
                            ui.small(level.description());
                        });
                    }
                }
                ui.label("Swap landing");
                ui.radio_value(&mut ui_state.swap, SwapLanding::Strict, "Strict: a swapped piece may not land on the other colour's square");
                ui.radio_value(&mut ui_state.swap, SwapLanding::Permissive, "Permissive: only the swapper's square is checked");
                ui.add_space(6.0);
                if ui.add_enabled(chosen.is_some(), egui::Button::new(egui::RichText::new("Start").strong())).clicked()
                    && let Some(setup) = chosen
                {
                    new_game.write(NewGameRequested(NewGameSpec {
                        setup,
                        rules: Rules { swap_landing: ui_state.swap, ..Rules::default() },
                        players: ui_state.players,
                    }));
                    ui_state.tab = Tab::Game;
                }
            }
        }
    });
    let panel_width = panel.response.rect.width();

    let status = egui::Panel::bottom("status").show(&mut root, |ui| {
        ui.label(&game.status);
    });
    let status_height = status.response.rect.height();

    // The 3D view fills the rest of the window.
    let (Ok((mut cam, cam_tf)), Ok(window)) = (camera.single_mut(), window.single()) else {
        return Ok(());
    };
    let scale = window.scale_factor();
    let pos = UVec2::new((panel_width * scale) as u32, 0);
    let size = UVec2::new(window.physical_width(), window.physical_height())
        .saturating_sub(pos + UVec2::new(0, (status_height * scale) as u32));
    if size.x > 0 && size.y > 0 {
        cam.viewport = Some(Viewport {
            physical_position: pos,
            physical_size: size,
            ..default()
        });
    }
    // `world_to_viewport` answers in window coordinates (the viewport's offset included).
    let to_screen = |world: Vec3| {
        cam.world_to_viewport(cam_tf, world)
            .ok()
            .map(|p| egui::pos2(p.x, p.y))
    };

    // File and rank labels beside the board.
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Background,
        egui::Id::new("labels"),
    ));
    let font = egui::FontId::proportional(15.0);
    for f in File::ALL {
        let sq = Square::from_coords(f, Rank::ALL[0]);
        if let Some(p) = to_screen(square_center(sq) + Vec3::new(0.0, 0.0, 0.78)) {
            painter.text(
                p,
                egui::Align2::CENTER_CENTER,
                f.char(),
                font.clone(),
                egui::Color32::from_gray(200),
            );
        }
    }
    for r in Rank::ALL {
        let sq = Square::from_coords(File::ALL[0], r);
        if let Some(p) = to_screen(square_center(sq) + Vec3::new(-0.8, 0.0, 0.0)) {
            painter.text(
                p,
                egui::Align2::CENTER_CENTER,
                r.char(),
                font.clone(),
                egui::Color32::from_gray(200),
            );
        }
    }

    // Turn buttons beside the selected piece.
    if let (Some(sel), true) = (game.selected, show.is_idle())
        && let Some(p) = to_screen(square_center(sel) + Vec3::new(0.0, 1.1, 0.0))
        && let Some(piece) = game.game.position().piece_at(sel)
    {
        egui::Area::new(egui::Id::new("turn"))
            .fixed_pos(p - egui::vec2(40.0, 20.0))
            .show(&ctx, |ui| {
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
                            let mut mode = game.stack_mode;
                            ui.selectable_value(&mut mode, StackMode::Whole, "move stack");
                            ui.selectable_value(&mut mode, StackMode::Top, "move top");
                            if mode != game.stack_mode {
                                actions.write(TableAction::ToggleStackMode);
                            }
                        }
                    });
                });
            });
    }

    // The other side answers a draw offer.
    if let Some(by) = game.draw_offer {
        egui::Window::new("Draw offered")
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_TOP, [0.0, 20.0])
            .show(&ctx, |ui| {
                ui.label(format!(
                    "{by} offers a draw. {}, do you accept?",
                    by.other()
                ));
                ui.horizontal(|ui| {
                    if ui.button("Accept").clicked() {
                        actions.write(TableAction::AcceptDraw);
                    }
                    if ui.button("Decline").clicked() {
                        actions.write(TableAction::DeclineDraw);
                    }
                });
            });
    }

    // Game over, once the last shot has landed.
    if let (Some(result), true) = (game.game.result(), show.is_idle()) {
        egui::Window::new("Game over")
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .show(&ctx, |ui| {
                ui.heading(result.to_string());
                ui.label(format!(
                    "after {} moves, {}",
                    game.game.turns().len(),
                    game.setup_name
                ));
                ui.horizontal(|ui| {
                    if ui.button("Rematch").clicked() {
                        new_game.write(NewGameRequested(game.spec.clone()));
                    }
                    if ui.button("New game…").clicked() {
                        ui_state.tab = Tab::NewGame;
                    }
                });
            });
    }
    Ok(())
}
