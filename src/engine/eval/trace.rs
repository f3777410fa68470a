//! The tuner's reading of a position: every term of the evaluation with its
//! count ([`trace`]), and the score as a function of the weights.

use super::pawns::{lay_out_free_cells, pawn_terms};
use super::sink::Terms;
use super::tables::{EvalTables, relative_rank};
use super::terms::{NO_MATE_DIVISOR, few_men, mop_up, passed_terms, positional_terms};
use crate::rules::board::Position;
use crate::rules::sums::Score;
use crate::rules::types::{BOARD_CELLS, Color, Square};

/// The evaluation of a position as a function of its weights, for the
/// tuner: White's score is
/// `scale * (taper(sum of count * weight) + mop_up) + tempo_sign * taper(tempo)`
/// where `scale` is `1 / NO_MATE_DIVISOR` when [`Trace::no_mate`] holds for
/// the side the bracket favours, else 1.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// Weight index and White's count minus Black's, by index, none zero
    /// (the tempo is not among them).
    pub terms: Vec<(u32, i32)>,
    pub phase: i32,
    pub max_phase: i32,
    /// White's mop-up bonus minus Black's (fixed).
    pub mop_up: i32,
    /// Per side: few men are left and the side has no mating potential.
    pub no_mate: [bool; 2],
    /// +1 with White to move, -1 with Black.
    pub tempo_sign: i32,
}

/// The recorded terms of [`trace`].
struct Recorder(Vec<(u32, i32)>);

impl Terms for Recorder {
    const ALL: bool = true;
    fn add(&mut self, index: usize, color: Color, count: i32) {
        let n = if color == Color::White { count } else { -count };
        self.0.push((index as u32, n));
    }
}

/// Every term of the evaluation of `pos` (with its variant's tables `t`)
/// with its count.
pub fn trace(t: &EvalTables, pos: &Position) -> Trace {
    let v = &**pos.variant();
    let l = &t.params.layout;
    let mut rec = Recorder(Vec::new());
    for color in Color::BOTH {
        for &sq in pos.men(color) {
            let kind = pos.b.cells[sq as usize].kind().index();
            let sq = Square(sq);
            rec.add(l.value(kind), color, 1);
            let rank = relative_rank(v, sq, color);
            rec.add(l.psq(kind, sq.file(), rank), color, 1);
        }
    }
    let facts = pawn_terms(t, pos, &mut rec);
    passed_terms(t, pos, &facts.passed, &mut rec);
    let mut free = [[0; BOARD_CELLS]; 2];
    lay_out_free_cells(&facts.guarded, &mut free);
    positional_terms(t, pos, &free, &mut rec);
    let mut terms = rec.0;
    terms.sort_unstable_by_key(|&(i, _)| i);
    let mut merged: Vec<(u32, i32)> = Vec::with_capacity(terms.len());
    for (i, n) in terms {
        match merged.last_mut() {
            Some(last) if last.0 == i => last.1 += n,
            _ => merged.push((i, n)),
        }
    }
    merged.retain(|&(_, n)| n != 0);
    let few = few_men(pos);
    let no_mate = |c: Color| few && !pos.has_mating_potential(c);
    Trace {
        terms: merged,
        phase: pos.b.phase,
        max_phase: t.max_phase,
        mop_up: if few {
            mop_up(pos, Color::White) - mop_up(pos, Color::Black)
        } else {
            0
        },
        no_mate: [no_mate(Color::White), no_mate(Color::Black)],
        tempo_sign: if pos.side_to_move() == Color::White {
            1
        } else {
            -1
        },
    }
}

impl Trace {
    /// White's score (floating point, as the tuner sees it) with the
    /// middlegame and endgame halves of weight `i` given by `weight(i)`, and
    /// the factor the bracket was scaled by (its derivative's factor too).
    pub fn model(&self, weight: impl Fn(usize) -> (f64, f64), tempo: usize) -> (f64, f64) {
        let (mg, eg) = self.terms.iter().fold((0.0, 0.0), |(mg, eg), &(i, n)| {
            let (wm, we) = weight(i as usize);
            (mg + wm * f64::from(n), eg + we * f64::from(n))
        });
        let p = self.middlegame_share();
        let inner = mg * p + eg * (1.0 - p) + f64::from(self.mop_up);
        let scale = self.scale(inner);
        let (tm, te) = weight(tempo);
        let score = scale * inner + f64::from(self.tempo_sign) * (tm * p + te * (1.0 - p));
        (score, scale)
    }

    /// White's score under `weights`.
    pub fn white_score(&self, weights: &[Score], tempo: usize) -> f64 {
        let half = |i: usize| (f64::from(weights[i].mg()), f64::from(weights[i].eg()));
        self.model(half, tempo).0
    }

    /// White's count minus Black's of the weight at `index`.
    pub fn count(&self, index: usize) -> i32 {
        self.terms
            .binary_search_by_key(&(index as u32), |&(i, _)| i)
            .map_or(0, |k| self.terms[k].1)
    }

    /// The middlegame share of the taper (phase over its maximum).
    pub fn middlegame_share(&self) -> f64 {
        let m = self.max_phase.max(1);
        f64::from(self.phase.clamp(0, m)) / f64::from(m)
    }

    /// The factor on a bracket worth `inner` for White.
    fn scale(&self, inner: f64) -> f64 {
        let ahead = if inner > 0.0 { 0 } else { 1 };
        if inner != 0.0 && self.no_mate[ahead] {
            1.0 / f64::from(NO_MATE_DIVISOR)
        } else {
            1.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::eval::{PawnCache, build_tables, compile, evaluate};
    use crate::rules::types::MoveList;
    use crate::rules::variant::{ParamsFile, Variant};
    use crate::rules::variant_set::VariantSet;
    use crate::util::rng::Rng;
    use std::sync::Arc;

    /// A copy of a shipped variant whose every weight is random (so that
    /// each term, those that default to zero too, counts).
    fn with_random_weights(name: &str, seed: u64) -> (Arc<Variant>, EvalTables) {
        let (v, evaluator) = compile(&VariantSet::builtin(), name).expect("variant");
        let t = evaluator.tables();
        let mut rng = Rng::new(seed);
        let mut p = t.params.clone();
        for w in p.weights.iter_mut() {
            let mut r = || (rng.next_u64() % 101) as i32 - 50;
            *w = Score::new(r(), r());
        }
        let text = p.to_text("random");
        let mut copy = (*v).clone();
        copy.piece_values = t.value.clone();
        copy.eval_params = Some(ParamsFile {
            text: text.clone(),
            name: "random".into(),
        });
        let (tables, sums) = build_tables(&copy).expect("tables");
        copy.sums = sums;
        assert_eq!(tables.params.to_text("random"), text);
        (Arc::new(copy), tables)
    }

    /// The tuner's reading of a position (its trace) gives the evaluation
    /// in play, up to the integer rounding of the taper and the scaling,
    /// along random games in every shipped variant.
    #[test]
    fn the_trace_gives_the_evaluation_along_random_games() {
        for name in ["chess", "combination", "team-mate", "compound"] {
            let (v, t) = with_random_weights(name, 7);
            let mut rng = Rng::new(11);
            let mut pawns = PawnCache::new();
            let mut checked = 0;
            for _game in 0..20 {
                let mut pos = Position::startpos(v.clone());
                for _ply in 0..120 {
                    let e = evaluate(&t, &pos, &mut pawns);
                    let white = if pos.side_to_move() == Color::White {
                        e
                    } else {
                        -e
                    };
                    let tr = trace(&t, &pos);
                    let model = tr.white_score(&t.params.weights, t.params.layout.tempo());
                    assert!(
                        (model - f64::from(white)).abs() <= 3.0,
                        "{name} {}: trace {model}, evaluate {white}",
                        pos.to_fen()
                    );
                    checked += 1;
                    let mut moves = MoveList::new();
                    crate::rules::movegen::legal_moves(&mut pos, &mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    let m = moves[(rng.next_u64() % moves.len() as u64) as usize];
                    pos.make(m);
                }
            }
            assert!(checked > 1000, "{name}: {checked}");
        }
    }
}
