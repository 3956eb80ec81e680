//! The second half of the scripted run: after the game, a tour of the other screens, each
//! saved as a screenshot with a note beside it: the replay with the engine's analysis, the
//! saved games (with a damaged file among them), the settings, a game with clocks, and the
//! laser preview. Each picture's note says where the squares are on screen.

use super::script::{Autoplay, BoardNote, shoot};
use crate::replay::{Analysis, Step};
use crate::screen::Screen;
use crate::setups::SetupLibrary;
use crate::table::clock::Clocks;
use crate::table::laser_preview::{Aim, LaserPreview};
use crate::table::selection::SquareClicked;
use crate::table::{Match, MoveRequested, NewGameRequested, NewGameSpec, Phase, Show, Watch};
use bevy::prelude::*;
use bevy::window::{CursorMoved, WindowEvent};
use khet_engine::Move;
use khet_engine::{Player, TimeControl};

pub fn tour(
    mut auto: ResMut<Autoplay>,
    m: Option<Res<Match>>,
    show: Res<Show>,
    screen: Res<State<Screen>>,
    library: Res<SetupLibrary>,
    mut analysis: ResMut<Analysis>,
    games: Res<crate::saves::SavedGames>,
    (mut watch, mut steps, mut go): (
        MessageWriter<Watch>,
        MessageWriter<Step>,
        ResMut<NextState<Screen>>,
    ),
    (mut new_game, mut moves, mut clicks): (
        MessageWriter<NewGameRequested>,
        MessageWriter<MoveRequested>,
        MessageWriter<SquareClicked>,
    ),
    mut aim: ResMut<Aim>,
    preview: Res<LaserPreview>,
    (clocks, board): (Option<Res<Clocks>>, BoardNote),
    (windows, mut window_events): (Query<Entity, With<Window>>, MessageWriter<WindowEvent>),
    mut commands: Commands,
) {
    let Some(m) = m else { return };
    if auto.step < 8 || auto.wait > 0 {
        return;
    }
    let idle = show.phase == Phase::Idle;
    match auto.step {
        8 => {
            // A damaged file among the saved games, to be listed with its reason.
            let games = auto.dir.join("games");
            let _ = std::fs::create_dir_all(&games);
            let _ = std::fs::write(games.join("damaged.ron"), "Record(\n    start: \"x33a3ka");
            watch.write(Watch {
                game: m.game.clone(),
                name: m.setup_name.clone(),
                back_to: None,
            });
            analysis.enabled = true;
            auto.step = 9;
            auto.wait = 3;
        }
        9 if *screen.get() == Screen::Replay => {
            steps.write(Step::To(1));
            auto.step = 10;
        }
        10 => {
            let found = analysis
                .found
                .as_ref()
                .filter(|f| f.ply == 1 && m.game.turns().len() == 1);
            if let (Some(f), true) = (found, idle) {
                let note = format!(
                    "analysis {} best {}\n",
                    f.silver_score,
                    f.best.map(|b| b.to_string()).unwrap_or_default()
                );
                auto.step = 11;
                auto.wait = 8;
                // Taken on the next step, once the bar and the move are drawn.
                auto.parked = Some(note);
            }
        }
        11 => {
            let note = auto.parked.take().unwrap_or_default();
            shoot(&mut auto, "05-replay", note + &board.note(), &mut commands);
            go.set(Screen::Open);
            auto.step = 12;
            auto.wait = 6;
        }
        12 => {
            let damaged = games.0.iter().filter(|e| e.game.is_err()).count();
            let note = format!("games {} damaged {damaged}\n", games.0.len());
            shoot(&mut auto, "06-open", note + &board.note(), &mut commands);
            go.set(Screen::Settings);
            auto.step = 13;
            auto.wait = 6;
        }
        13 => {
            shoot(&mut auto, "07-settings", board.note(), &mut commands);
            let mut spec = NewGameSpec::casual(
                library.classic(),
                [Player::Person, Player::Computer(khet_engine::Level::Casual)],
            );
            spec.clock = Some(TimeControl::new(5, 3));
            new_game.write(NewGameRequested(spec));
            go.set(Screen::Playing);
            auto.step = 14;
            auto.wait = 5;
        }
        14 => {
            if let Ok(mv) = m.game.position().parse_move("h2h3") {
                moves.write(MoveRequested(mv));
            }
            auto.step = 15;
        }
        15 if m.game.turns().len() >= 2 && idle => {
            auto.step = 16;
            auto.wait = 5;
        }
        16 => {
            shoot(&mut auto, "08-clock", board.note(), &mut commands);
            auto.mark = clocks.map(|c| c.left(m.game.side_to_move()));
            auto.step = 17;
        }
        17 => {
            // The running clock a second and more later: its face shows another time.
            let now = clocks.map(|c| c.left(m.game.side_to_move()));
            if let (Some(then), Some(now)) = (auto.mark, now)
                && then.saturating_sub(now) >= std::time::Duration::from_millis(1200)
            {
                shoot(&mut auto, "08b-clock-later", board.note(), &mut commands);
                auto.step = 18;
            }
        }
        18 => {
            // The laser preview: a piece picked up, first without a destination pointed at.
            let step = m
                .game
                .legal_moves()
                .into_iter()
                .find(|mv| matches!(mv, Move::Step { .. }));
            if let Some(mv) = step {
                clicks.write(SquareClicked(mv.from()));
                auto.plan = Some((mv, mv));
            }
            // The pointer leaves the board for the side panel, so that it aims at nothing.
            if let Some(window) = windows.iter().next() {
                window_events.write(WindowEvent::CursorMoved(CursorMoved {
                    window,
                    position: Vec2::new(96.0, 190.0),
                    delta: None,
                }));
            }
            auto.step = 19;
            auto.wait = 6;
        }
        19 => {
            shoot(&mut auto, "09a-no-aim", board.note(), &mut commands);
            auto.step = 20;
            auto.wait = 2;
        }
        20 => {
            // Aimed only once the picture without the preview is taken.
            aim.square = auto.plan.map(|(mv, _)| mv.to());
            auto.step = 21;
            auto.wait = 6;
        }
        21 => {
            let note = match &preview.0 {
                Some((mv, shot)) => {
                    let path: Vec<String> =
                        shot.squares().iter().map(ToString::to_string).collect();
                    format!(
                        "preview {mv} hits {}\npath {}\n",
                        shot.hits.len(),
                        path.join(" ")
                    )
                }
                None => "preview none\n".into(),
            };
            shoot(&mut auto, "09-preview", note + &board.note(), &mut commands);
            auto.step = 22;
        }
        // 22 and on: crate::dev::learn.
        _ => {}
    }
}
