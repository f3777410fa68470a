//! Plain men (leaps and slides that move and capture alike) and pawn-like
//! steppers, in tight loops that the general walker would cover more
//! slowly; the pawn's double step, which the walker takes from here.

use super::sink::{MoveSink, emit, push_promoting};
use crate::rules::attacks::{Cells, at, in_mask};
use crate::rules::types::{Cell, Color, Move, MoveKind, MoveList, PieceType, Square};
use crate::rules::variant::{CodeMask, FastRules, Variant};

/// Moves of a plain man: leaps and slides that move and capture.
#[inline(always)]
fn plain_moves<S: MoveSink>(
    cells: &Cells,
    fast: &FastRules,
    landing: CodeMask,
    from: usize,
    t: PieceType,
    out: &mut S,
) {
    let base = Move::new(Square(from as u8), Square(0), t, t, MoveKind::Normal).0;
    let s = from as isize;
    for &d in &fast.leaps {
        let to = s + d as isize;
        out.push_if(
            in_mask(landing, at(cells, to)),
            Move(base | (to as u32) << 8),
        );
    }
    for &d in &fast.rides {
        let step = d as isize;
        let mut to = s + step;
        let mut c = at(cells, to);
        while c.is_empty() {
            out.push(Move(base | (to as u32) << 8));
            to += step;
            c = at(cells, to);
        }
        out.push_if(in_mask(landing, c), Move(base | (to as u32) << 8));
    }
}

/// Moves of a pawn-like man: move-only and capture-only leaps, initial
/// double steps, en passant, promotion, plain leaps and slides.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn stepper_moves<S: MoveSink, const PROMOTES: bool>(
    cells: &Cells,
    v: &Variant,
    fast: &FastRules,
    us: Color,
    from: usize,
    t: PieceType,
    ep: usize,
    out: &mut S,
) {
    let base = Move::new(Square(from as u8), Square(0), t, t, MoveKind::Normal).0;
    let landing = v.landing[us.index()];
    let s = from as isize;
    for &d in &fast.quiet_leaps {
        let to = s + d as isize;
        if at(cells, to).is_empty() {
            push_promoting(out, v, us, PROMOTES, base, to as usize, MoveKind::Normal);
        }
    }
    double_steps(cells, v, fast, us, from, base, PROMOTES, out);
    for &(d, ep_ok) in &fast.capture_leaps {
        let to = (s + d as isize) as usize;
        let c = cells[to];
        if c.is_piece() && in_mask(landing, c) {
            push_promoting(out, v, us, PROMOTES, base, to, MoveKind::Normal);
        } else if ep_ok && to == ep {
            out.push(Move::new(
                Square(from as u8),
                Square(to as u8),
                t,
                t,
                MoveKind::EnPassant,
            ));
        }
    }
    for &d in &fast.leaps {
        let to = s + d as isize;
        if in_mask(landing, at(cells, to)) {
            push_promoting(out, v, us, PROMOTES, base, to as usize, MoveKind::Normal);
        }
    }
    for &d in &fast.rides {
        let step = d as isize;
        let mut to = s + step;
        let mut c = at(cells, to);
        while c.is_empty() {
            push_promoting(out, v, us, PROMOTES, base, to as usize, MoveKind::Normal);
            to += step;
            c = at(cells, to);
        }
        if in_mask(landing, c) {
            push_promoting(out, v, us, PROMOTES, base, to as usize, MoveKind::Normal);
        }
    }
}

/// The initial double steps of a pawn-like man on `from` (`base`: the
/// move without its destination and kind): from its initial region only,
/// over an empty square onto an empty one.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn double_steps<S: MoveSink>(
    cells: &Cells,
    v: &Variant,
    fast: &FastRules,
    us: Color,
    from: usize,
    base: u32,
    promotes: bool,
    out: &mut S,
) {
    if fast.double_steps.is_empty() || !v.initial_region[us.index()].contains(from) {
        return;
    }
    let s = from as isize;
    for &(skip, d) in &fast.double_steps {
        let to = s + d as isize;
        if at(cells, s + skip as isize).is_empty() && at(cells, to).is_empty() {
            push_promoting(
                out,
                v,
                us,
                promotes,
                base,
                to as usize,
                MoveKind::DoubleStep,
            );
        }
    }
}

/// Moves of a plain or pawn-like man on `from`; false (and nothing
/// generated) for men that need the general walker.
#[inline(always)]
pub(super) fn simple_man_moves<S: MoveSink>(
    cells: &Cells,
    v: &Variant,
    us: Color,
    from: usize,
    ep: usize,
    out: &mut S,
) -> bool {
    let t = cells[from].kind();
    let info = v.piece(t);
    if info.plain {
        plain_moves(
            cells,
            &info.fast[us.index()],
            v.landing[us.index()],
            from,
            t,
            out,
        );
        true
    } else if info.stepper {
        let fast = &info.fast[us.index()];
        // Only a pawn type near its promotion region needs the promotion
        // tests; the others take the lighter instance.
        if v.promotion_pawns & t.bit() != 0 && v.promotion_near[us.index()].contains(from) {
            stepper_moves::<S, true>(cells, v, fast, us, from, t, ep, out);
        } else {
            stepper_moves::<S, false>(cells, v, fast, us, from, t, ep, out);
        }
        true
    } else {
        false
    }
}

/// Captures and promotions of a plain or pawn-like man (false, and nothing
/// generated, for men that need the general walker).
#[inline]
pub(super) fn simple_man_captures(
    cells: &Cells,
    v: &Variant,
    us: Color,
    from: usize,
    ep: usize,
    victims: CodeMask,
    out: &mut MoveList,
) -> bool {
    let t = cells[from].kind();
    let info = v.piece(t);
    if !info.plain && !info.stepper {
        return false;
    }
    // A pawn-type man that may promote with its next move needs the
    // promotion tests; every other man only captures (pawn types far from
    // promotion also take en passant, and never slide).
    if v.promotion_pawns & t.bit() != 0 && v.promotion_near[us.index()].contains(from) {
        pawn_captures(cells, v, us, from, t, ep, victims, out);
        return true;
    }
    // Without a victim worth taking, only en passant is left.
    if victims == 0 && ep == 0 {
        return true;
    }
    let fast = &info.fast[us.index()];
    let enemy = victims;
    let s = from as isize;
    let base = Move::new(Square(from as u8), Square(0), t, t, MoveKind::Normal).0;
    for &d in &fast.leaps {
        let to = (s + d as isize) as usize;
        if in_mask(enemy, cells[to]) {
            let _ = out.try_push(Move(base | (to as u32) << 8));
        }
    }
    for &(d, _) in &fast.capture_leaps {
        let to = (s + d as isize) as usize;
        if in_mask(enemy, cells[to]) {
            let _ = out.try_push(Move(base | (to as u32) << 8));
        }
    }
    if ep != 0 {
        push_en_passant(fast, from, t, ep, out);
    }
    for &d in &fast.rides {
        let step = d as isize;
        let mut to = s + step;
        while cells[to as usize].is_empty() {
            to += step;
        }
        if in_mask(enemy, cells[to as usize]) {
            let _ = out.try_push(Move(base | (to as u32) << 8));
        }
    }
    true
}

/// En-passant captures of the man on `from` onto `ep`.
#[inline]
fn push_en_passant(fast: &FastRules, from: usize, t: PieceType, ep: usize, out: &mut MoveList) {
    for &(d, ep_ok) in &fast.capture_leaps {
        if ep_ok && (from as isize + d as isize) as usize == ep {
            let _ = out.try_push(Move::new(
                Square(from as u8),
                Square(ep as u8),
                t,
                t,
                MoveKind::EnPassant,
            ));
        }
    }
}

/// Captures and promotions of a man of a pawn type (see
/// [`simple_man_captures`]).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn pawn_captures(
    cells: &Cells,
    v: &Variant,
    us: Color,
    from: usize,
    t: PieceType,
    ep: usize,
    victims: CodeMask,
    out: &mut MoveList,
) {
    let fast = &v.piece(t).fast[us.index()];
    let enemy = v.landing[us.index()] & !1;
    let region = &v.promotion_region[us.index()];
    // A capture that promotes comes whatever the victim.
    let takes =
        |c: Cell, to: usize| in_mask(victims, c) || (in_mask(enemy, c) && region.contains(to));
    let s = from as isize;
    let push = |out: &mut MoveList, to: usize| {
        emit(out, v, us, from, to, t, MoveKind::Normal, true);
    };
    for &d in &fast.leaps {
        let to = (s + d as isize) as usize;
        let c = cells[to];
        if takes(c, to) || (c.is_empty() && region.contains(to)) {
            push(out, to);
        }
    }
    for &(d, _) in &fast.capture_leaps {
        let to = (s + d as isize) as usize;
        if takes(cells[to], to) {
            push(out, to);
        }
    }
    if ep != 0 {
        push_en_passant(fast, from, t, ep, out);
    }
    for &d in &fast.quiet_leaps {
        let to = (s + d as isize) as usize;
        if cells[to].is_empty() && region.contains(to) {
            push(out, to);
        }
    }
    for &d in &fast.rides {
        let step = d as isize;
        let mut to = s + step;
        while cells[to as usize].is_empty() {
            if region.contains(to as usize) {
                push(out, to as usize);
            }
            to += step;
        }
        if takes(cells[to as usize], to as usize) {
            push(out, to as usize);
        }
    }
}
