//! Where the player is: each screen is a Bevy state, entered through `NextState<Screen>`. What
//! belongs to one screen carries `DespawnOnExit(screen)`, and systems of one screen run under
//! `in_state(screen)`.

use bevy::prelude::*;

#[derive(States, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Screen {
    /// A game at the table.
    #[default]
    Playing,
    /// The saved games: continue, watch or delete.
    Open,
    /// A finished or saved game, watched move by move, with the engine's analysis.
    Replay,
    /// The player's settings.
    Settings,
    /// The tutorial's steps and the puzzles.
    Learn,
    /// The setup editor.
    Editor,
    /// Online play: the server, creating and joining games, the lobby, the leaderboard.
    Online,
}

pub(super) fn plugin(app: &mut App) {
    if !app.is_plugin_added::<bevy::state::app::StatesPlugin>() {
        app.add_plugins(bevy::state::app::StatesPlugin);
    }
    app.init_state::<Screen>();
    crate::frames::wake_on_transition::<Screen>(app);
}
