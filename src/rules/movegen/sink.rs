//! Where generated moves go: a move list, or a counter for perft's bulk
//! counting at the last ply (the same generator code serves both), and a
//! move's expansion into its promotions on arrival.

use crate::rules::types::{Color, Move, MoveKind, MoveList, PieceType, Square};
use crate::rules::variant::Variant;

/// A sink for generated moves.
pub(crate) trait MoveSink {
    fn push(&mut self, m: Move);
    /// Push `m` when `cond` holds (a counter adds without branching).
    fn push_if(&mut self, cond: bool, m: Move);
    /// All promotions of `m`, a move of `us` into its promotion region
    /// (`m` as it would stand without promoting).
    fn promotions(&mut self, v: &Variant, us: Color, m: Move);
}

impl MoveSink for MoveList {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        let _ = self.try_push(m);
    }
    #[inline(always)]
    fn push_if(&mut self, cond: bool, m: Move) {
        if cond {
            let _ = self.try_push(m);
        }
    }
    #[inline(always)]
    fn promotions(&mut self, v: &Variant, us: Color, m: Move) {
        emit(
            self,
            v,
            us,
            m.from().index(),
            m.to().index(),
            m.part(),
            m.kind(),
            true,
        );
    }
}

/// Counts moves instead of storing them.
pub(crate) struct MoveCounter(pub usize);

impl MoveSink for MoveCounter {
    #[inline(always)]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }
    #[inline(always)]
    fn push_if(&mut self, cond: bool, _: Move) {
        self.0 += usize::from(cond);
    }
    #[inline(always)]
    fn promotions(&mut self, v: &Variant, _: Color, _: Move) {
        self.0 += v.promotion_types.len()
            + v.pair_promotion_types.len()
            + usize::from(!v.mandatory_promotion);
    }
}

/// Push a move to `to`, expanded into promotions when `promotes` and the
/// destination is in the promotion region.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn emit(
    out: &mut MoveList,
    v: &Variant,
    us: Color,
    from: usize,
    to: usize,
    part: PieceType,
    kind: MoveKind,
    promotes: bool,
) {
    let (f, t) = (Square(from as u8), Square(to as u8));
    if promotes && v.promotion_region[us.index()].contains(to) {
        for &p in &v.promotion_types {
            let _ = out.try_push(Move::new(f, t, part, p, MoveKind::Promotion));
        }
        for &p in &v.pair_promotion_types {
            let _ = out.try_push(Move::new(f, t, part, p, MoveKind::PairPromotion));
        }
        if !v.mandatory_promotion {
            let _ = out.try_push(Move::new(f, t, part, part, kind));
        }
        return;
    }
    let _ = out.try_push(Move::new(f, t, part, part, kind));
}

/// Push a move of a man that may promote on arrival: `base` is the move
/// without its destination and kind.
#[inline(always)]
pub(super) fn push_promoting<S: MoveSink>(
    out: &mut S,
    v: &Variant,
    us: Color,
    promotes: bool,
    base: u32,
    to: usize,
    kind: MoveKind,
) {
    let m = Move(base | (to as u32) << 8 | (kind as u32) << 28);
    if promotes && v.promotion_region[us.index()].contains(to) {
        out.promotions(v, us, m);
    } else {
        out.push(m);
    }
}
