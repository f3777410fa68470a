//! Random openings: legal plies from the start position drawn from a
//! seeded generator, each stopping short of the end of the game.

use super::Opening;
use crate::rules::board::Position;
use crate::rules::game::outcome;
use crate::rules::variant::Variant;
use crate::util::rng::Rng;
use std::sync::Arc;

/// A random opening of `plies` legal moves that does not end the game.
pub fn random_opening(variant: &Arc<Variant>, plies: usize, rng: &mut Rng) -> Position {
    // Where no try gets that far (a variant whose games end sooner), the
    // longest opening of the tries that still leaves a game to play.
    let mut longest = Position::startpos(variant.clone());
    for _ in 0..RANDOM_OPENING_TRIES {
        let mut pos = Position::startpos(variant.clone());
        let mut ok = true;
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                ok = false;
                break;
            }
            let m = moves[(rng.next_u64() % moves.len() as u64) as usize];
            pos.make(m);
            if outcome(&mut pos).is_some() {
                pos.unmake();
                ok = false;
                break;
            }
        }
        if ok {
            return pos;
        }
        if pos.ply_count() > longest.ply_count() {
            longest = pos;
        }
    }
    longest
}

/// Random openings tried before the longest is taken (see [`random_opening`]).
const RANDOM_OPENING_TRIES: usize = 1000;

/// `count` openings of `plies` random legal moves from the start position;
/// the same seed gives the same openings.
pub fn random(variant: &Arc<Variant>, plies: usize, seed: u64, count: usize) -> Vec<Opening> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let pos = random_opening(variant, plies, &mut rng);
            Opening {
                fen: variant.start_fen.clone(),
                moves: pos.moves_played().collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::VariantSet;

    #[test]
    fn random_openings_repeat_with_the_seed() {
        let v = VariantSet::builtin().compile("team-mate").unwrap();
        let a = random(&v, 6, 7, 3);
        let b = random(&v, 6, 7, 3);
        assert_eq!(a.len(), 3);
        assert!(a.iter().all(|o| o.moves.len() == 6));
        assert_eq!(a[2].moves, b[2].moves);
        assert_ne!(a[0].moves, a[1].moves);
    }
}
