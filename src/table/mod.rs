//! The match at the table: the new game's specification, the match and its turn flow, the show
//! of each move and shot, the selection and the keys that make it (the mouse on the board is the
//! stage's, `crate::stage::pointer`), the clocks, the computer and the wins counted against its
//! levels (`ladder`), the piece entities, the shot's cues and the laser preview; `ui/` holds the
//! table's panels. Everything here runs headless (`core_plugin`) but `ui/`, which `view_plugin`
//! adds.
//!
//! What other features need of the table is re-exported here: the match, its messages, the
//! show and the new-game specification.

use bevy::prelude::*;

pub mod ai;
pub mod clock;
pub mod cues;
pub mod game;
pub mod input;
pub mod ladder;
pub mod laser_preview;
pub mod pieces;
pub mod selection;
pub mod show;
pub mod spec;
pub mod ui;

pub use game::{
    Flow, GameEnded, Match, MoveApplied, MoveRequested, NewGameRequested, TableAction, Undone,
    has_match,
};
pub use show::{Pace, Phase, Show, animation_dt, beam_timeline, segment_length};
pub use spec::{NewGameSpec, Resume};

/// What is on the table: a game, or a lesson (a tutorial step or a puzzle, `crate::learn`).
/// Set when a game starts, from its specification's `lesson`; in a lesson the computer
/// opponent, the clock, autosave and the game-over window stay away.
#[derive(States, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OnTable {
    #[default]
    Game,
    Lesson,
}

/// The player asked to watch this game move by move, from its start, with the match to return
/// to; the replay (`crate::replay`) answers. Defined here so that the table's buttons need
/// nothing of the replay.
#[derive(Message, Clone, Debug)]
pub struct Watch {
    pub game: khet_engine::Game,
    pub name: String,
    pub back_to: Option<NewGameSpec>,
}

/// The player asked to save the game under a name (the tools' button, Ctrl+S); the saved
/// games' dialog (`crate::saves`) answers.
#[derive(Message, Clone, Copy, Debug)]
pub struct OpenSaveDialog;

/// The table's headless part.
pub(super) fn plugin(app: &mut App) {
    input::plugin(app);
    // What is asked in one frame is acted on in the next, which is drawn.
    crate::frames::add_waking_message::<MoveRequested>(app);
    crate::frames::add_waking_message::<NewGameRequested>(app);
    crate::frames::add_waking_message::<TableAction>(app);
    crate::frames::add_waking_message::<Watch>(app);
    crate::frames::add_waking_message::<OpenSaveDialog>(app);
    crate::frames::wake_on_transition::<OnTable>(app);
    app.init_state::<OnTable>()
        .init_resource::<Pace>()
        .add_message::<MoveApplied>()
        .add_message::<GameEnded>()
        .add_message::<Undone>()
        .init_resource::<Show>()
        .add_systems(Startup, start_first_game)
        .add_systems(
            Update,
            game::new_game.in_set(Flow).in_set(crate::GameSet::Logic),
        )
        .add_systems(
            Update,
            (game::table_actions, game::play_moves, game::advance_show)
                .chain()
                .after(game::new_game)
                .run_if(has_match)
                .in_set(Flow)
                .in_set(crate::GameSet::Logic),
        );
    selection::plugin(app);
    clock::plugin(app);
    ai::plugin(app);
    ladder::plugin(app);
    laser_preview::plugin(app);
    cues::plugin(app);
    pieces::plugin(app);
}

/// The table is never empty: a hotseat game of Classic to begin with.
fn start_first_game(
    library: Res<crate::setups::SetupLibrary>,
    mut new_game: MessageWriter<NewGameRequested>,
) {
    new_game.write(NewGameRequested(NewGameSpec::casual(
        library.classic(),
        [khet_engine::Player::Person; 2],
    )));
}
