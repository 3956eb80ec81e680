//! The computer's levels as a person climbs them: each game a person finishes against the
//! computer (not hotseat, not computer against computer, not a lesson, not online) counts
//! towards the wins in a row against its level ([`Streak`], kept in the settings, so across
//! restarts): a win adds one, or begins anew against another level; a loss or a draw ends them.
//! After two in a row the game-over window suggests the next level up ([`suggestion`]), and its
//! button asks for [`Climb`].

use crate::settings::{Settings, Streak};
use crate::table::{GameEnded, Match, NewGameRequested, has_match};
use bevy::prelude::*;
use khet_engine::{Color as Side, GameResult, Level, Player};

/// The person took the suggestion: a new game like the one on the table, with the computer at
/// this level, which the players' picker remembers from then on.
#[derive(Message, Clone, Copy, Debug)]
pub struct Climb(pub Level);

pub(super) fn plugin(app: &mut App) {
    crate::frames::add_waking_message::<Climb>(app).add_systems(
        Update,
        (count_result, climb)
            .chain()
            .run_if(has_match)
            .in_set(crate::GameSet::Logic)
            .after(super::Flow),
    );
}

/// The person's side and the computer's level, in a person's game against the computer.
pub fn against_computer(m: &Match) -> Option<(Side, Level)> {
    if m.spec.lesson || m.spec.online {
        return None;
    }
    match m.spec.players {
        [Player::Person, Player::Computer(level)] => Some((Side::Silver, level)),
        [Player::Computer(level), Player::Person] => Some((Side::Red, level)),
        _ => None,
    }
}

/// The wins in a row after a game against `level` that the person won or not (lost, drawn).
pub fn after_game(streak: Option<Streak>, level: Level, won: bool) -> Option<Streak> {
    let wins = match streak {
        Some(s) if s.level == level => s.wins,
        _ => 0,
    };
    won.then_some(Streak {
        level,
        wins: wins + 1,
    })
}

/// What the game-over window suggests for the match on the table, finished: after its person's
/// second win in a row (or later) against its level, the level beaten, the wins and the next
/// level up. Nothing at the top of the ladder.
pub fn suggestion(m: &Match, streak: Option<Streak>) -> Option<(Level, u32, Level)> {
    let (person, level) = against_computer(m)?;
    let won = matches!(m.game.result()?, GameResult::Win { winner, .. } if winner == person);
    let streak = streak.filter(|s| won && s.level == level && s.wins >= 2)?;
    Some((level, streak.wins, level.next()?))
}

/// Counts the result of each person's game against the computer, once: a win taken back and won
/// again is not a second win.
fn count_result(
    mut ended: MessageReader<GameEnded>,
    mut new_games: MessageReader<NewGameRequested>,
    m: Res<Match>,
    mut settings: ResMut<Settings>,
    mut counted: Local<bool>,
) {
    if let Some(&GameEnded(result)) = ended.read().last()
        && !*counted
        && let Some((person, level)) = against_computer(&m)
    {
        let won = matches!(result, GameResult::Win { winner, .. } if winner == person);
        settings.streak = after_game(settings.streak, level, won);
        *counted = true;
    }
    if new_games.read().count() > 0 {
        *counted = false;
    }
}

/// A new game like the one on the table, with the computer at the level asked for; the
/// new-game form and the players' picker take that level too.
fn climb(
    mut asked: MessageReader<Climb>,
    m: Res<Match>,
    mut settings: ResMut<Settings>,
    mut new_game: MessageWriter<NewGameRequested>,
) {
    let Some(&Climb(level)) = asked.read().last() else {
        return;
    };
    let mut spec = m.spec.clone();
    spec.resume = None;
    for player in &mut spec.players {
        if let Player::Computer(l) = player {
            *l = level;
        }
    }
    settings.computer_level = level;
    settings.players = spec.players;
    new_game.write(NewGameRequested(spec));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wins_count_against_one_level_and_a_loss_or_another_level_starts_again() {
        let streak = |level, wins| Some(Streak { level, wins });
        let one = after_game(None, Level::Casual, true);
        assert_eq!(one, streak(Level::Casual, 1));
        let two = after_game(one, Level::Casual, true);
        assert_eq!(two, streak(Level::Casual, 2));
        assert_eq!(after_game(two, Level::Casual, false), None);
        assert_eq!(
            after_game(two, Level::Skilled, true),
            streak(Level::Skilled, 1)
        );
    }
}
