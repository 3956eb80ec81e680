//! The greedy player: one ply and no search, a stand-in for a person who has just learned the
//! rules (the weakest rung of the ladder of computer levels, issue 66). It plays each legal move
//! on a copy of the board and looks only at what that move's own shot did:
//!
//! 1. a move that wins at once (the game ends in the mover's win) is played;
//! 2. else, among the moves whose shot does not light the mover's own Pharaoh, the one whose shot
//!    gains the most material: each piece it removes counts its [`piece_value`], an enemy's for
//!    the mover and one of its own against it (so a neutral move is preferred to one that shoots
//!    its own piece);
//! 3. else a move that lights both Pharaohs (a draw) rather than one that loses;
//! 4. else (every move loses) any legal move.
//!
//! Ties, the quiet positions included, are broken uniformly at random by the [`Rng`]: the same
//! generator state and game give the same move. It never looks at the reply.

use crate::eval::piece_value;
use crate::game::{Game, GameResult};
use crate::moves::Move;
use crate::rng::Rng;

/// How good a move looks to the greedy player, best highest: its rank (3 wins at once, 2 does
/// not light its own Pharaoh, 1 lights both Pharaohs, 0 loses), then the material its shot
/// gains (counted in rank 2 only: every winning move, or every losing one, is as good as any
/// other).
type Verdict = (u8, i32);

/// The greedy player's move for the game's side to move (`None` when the game is over or it has
/// no move); see the [module](self) for the rule. `rng` breaks ties.
pub fn greedy_move(game: &Game, rng: &mut Rng) -> Option<Move> {
    let scored = greedy_verdicts(game);
    let best = scored.iter().map(|&(_, v)| v).max()?;
    let top: Vec<Move> = scored
        .iter()
        .filter(|&&(_, v)| v == best)
        .map(|&(mv, _)| mv)
        .collect();
    rng.pick(&top)
}

/// Every legal move with the greedy player's verdict on it, in [`Game::legal_moves`]' order.
fn greedy_verdicts(game: &Game) -> Vec<(Move, Verdict)> {
    let mover = game.side_to_move();
    // The result of one move does not depend on the history (repetitions are claimed, never
    // automatic), so each move is played on a game that starts here.
    let here = Game::new(*game.position());
    game.legal_moves()
        .into_iter()
        .map(|mv| {
            let mut after = here.clone();
            let Ok(turn) = after.play(mv) else {
                unreachable!("a legal move ({mv}) is refused")
            };
            let own_lit = turn.shot.pharaohs_hit().any(|c| c == mover);
            let gain: i32 = turn
                .shot
                .hits
                .iter()
                .map(|hit| {
                    let value = piece_value(hit.piece.kind());
                    if hit.piece.color() == mover {
                        -value
                    } else {
                        value
                    }
                })
                .sum();
            let verdict = match after.result() {
                Some(GameResult::Win { winner, .. }) if winner == mover => (3, 0),
                Some(GameResult::Win { .. }) => (0, 0),
                _ if own_lit => (1, 0),
                _ => (2, gain),
            };
            (mv, verdict)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::piece::Color;
    use crate::setup::catalogue;

    /// Positions reached by random play from every built-in setup of both editions, each with
    /// the seed it was reached by: a few games a setup, every ply of each.
    fn random_positions() -> Vec<(Game, u64)> {
        let mut out = Vec::new();
        for (i, (_, setup)) in catalogue().into_iter().enumerate() {
            for g in 0..6u64 {
                let seed = 1 + 100 * i as u64 + g;
                let mut rng = Rng::new(seed);
                let mut game = Game::new(setup.position);
                for _ in 0..80 {
                    if game.is_over() {
                        break;
                    }
                    out.push((game.clone(), seed));
                    let mv = rng.pick(&game.legal_moves()).unwrap();
                    game.play(mv).unwrap();
                }
            }
        }
        out
    }

    /// What `mv` does for the side to move: whether it wins at once, whether its shot lights the
    /// mover's own Pharaoh, and the material its shot gains (by `eval::capture_gain`, reckoned
    /// from the position's hits rather than the game's shot).
    fn outcome(game: &Game, mv: Move) -> (bool, bool, i32) {
        let mover = game.side_to_move();
        let mut next = game.clone();
        let lit = next
            .play(mv)
            .unwrap()
            .shot
            .pharaohs_hit()
            .any(|c| c == mover);
        let won = matches!(next.result(), Some(GameResult::Win { winner, .. }) if winner == mover);
        let mut board = *game.position();
        let hits = board.play_unchecked(mv);
        let gain = crate::eval::capture_gain(game.position(), mv, hits, mover);
        (won, lit, gain)
    }

    #[test]
    fn greedy_is_legal_safe_takes_wins_and_the_biggest_capture_and_is_reproducible() {
        let (mut with_win, mut with_trap, mut with_capture) = (0, 0, 0);
        for (game, seed) in random_positions() {
            let moves = game.legal_moves();
            let mv = greedy_move(&game, &mut Rng::new(seed)).expect("a move in a game not over");
            assert!(moves.contains(&mv), "{mv} is not legal");
            assert!(game.position().check_move(mv).is_ok());
            // The same seed and game give the same move.
            assert_eq!(greedy_move(&game, &mut Rng::new(seed)), Some(mv));
            let all: Vec<(bool, bool, i32)> = moves.iter().map(|&m| outcome(&game, m)).collect();
            let (won, lit, gain) = outcome(&game, mv);
            let safe = || all.iter().filter(|o| !o.1);
            if all.iter().any(|o| o.0) {
                with_win += 1;
                assert!(won, "{mv} does not win though a move does");
            } else if safe().next().is_some() {
                if all.iter().any(|o| o.1) {
                    with_trap += 1;
                }
                assert!(
                    !lit,
                    "{mv} lights its own Pharaoh though a move that does not exists"
                );
                let best = safe().map(|o| o.2).max().unwrap();
                assert_eq!(gain, best, "{mv} is not the biggest capture");
                if best > 0 {
                    with_capture += 1;
                }
            }
        }
        // The positions put each rule to the test.
        assert!(with_win > 0, "no position had a winning move");
        assert!(
            with_trap > 0,
            "no position had a move lighting the mover's Pharaoh"
        );
        assert!(with_capture > 0, "no position had a capture");
    }

    #[test]
    fn greedy_varies_in_quiet_positions_and_stops_when_the_game_is_over() {
        let start = Game::new(catalogue()[0].1.position);
        let mut rng = Rng::new(7);
        let chosen: std::collections::HashSet<Move> = (0..40)
            .map(|_| greedy_move(&start, &mut rng).unwrap())
            .collect();
        assert!(chosen.len() > 5, "{} distinct opening moves", chosen.len());
        let mut over = start.clone();
        over.resign(Color::Silver).unwrap();
        assert_eq!(greedy_move(&over, &mut Rng::new(1)), None);
    }
}
