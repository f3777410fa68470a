//! The general walker: the moves of a man (a stack: the whole of it, then
//! each part) by its compiled rules, with promotion and merging on
//! arrival, and the walk toward captures alone.

use super::plain::{double_steps, simple_man_moves};
use super::sink::emit;
use crate::rules::attacks::{Cells, at, in_mask};
use crate::rules::types::{Cell, Color, Move, MoveKind, MoveList, PieceType, Square};
use crate::rules::variant::{CodeMask, Rule, SquareSet, Variant};

/// Where a part may land and what happens there.
pub(super) struct PartCtx<'a> {
    pub(super) cells: &'a Cells,
    pub(super) v: &'a Variant,
    pub(super) us: Color,
    pub(super) from: usize,
    pub(super) part: PieceType,
    /// The whole stack moves (only then may it capture).
    pub(super) whole: bool,
    pub(super) promotes: bool,
    pub(super) stackable: bool,
    pub(super) ep: usize,
    /// Only the moves that [`captures_of`] keeps are wanted: the walk may
    /// leave out quiet moves that cannot promote and merges (it still
    /// yields some moves that are not kept; the caller filters).
    pub(super) captures_only: bool,
}

impl PartCtx<'_> {
    /// Whether moves onto empty squares are wanted: always, except when
    /// only captures are and the part cannot promote.
    #[inline(always)]
    fn quiet_wanted(&self) -> bool {
        !self.captures_only || self.promotes
    }

    /// A move arriving on `to` (promoting where it must).
    #[inline(always)]
    fn arrive(&self, out: &mut MoveList, to: usize) {
        emit(
            out,
            self.v,
            self.us,
            self.from,
            to,
            self.part,
            MoveKind::Normal,
            self.promotes,
        );
    }

    /// A move or capture onto an occupied square (enemy: capture when whole;
    /// friend: merge when allowed).
    #[inline(always)]
    fn onto_man(&self, out: &mut MoveList, to: usize, c: Cell) {
        if c.color() != self.us {
            if self.whole {
                self.arrive(out, to);
            }
        } else if self.stackable
            && !self.captures_only
            && let Some(merged) = self.v.merge(self.part, c.kind())
        {
            let _ = out.try_push(Move::new(
                Square(self.from as u8),
                Square(to as u8),
                self.part,
                merged,
                MoveKind::Normal,
            ));
        }
    }
}

/// Moves of one part (the whole stack when `whole`) standing on `from`
/// (`CAPTURES_ONLY`: see [`PartCtx::captures_only`]; a constant, so that
/// the full walk carries no test of it).
#[inline]
#[allow(clippy::too_many_arguments)]
fn part_moves<const CAPTURES_ONLY: bool>(
    cells: &Cells,
    v: &Variant,
    us: Color,
    from: usize,
    part: PieceType,
    whole: bool,
    ep: usize,
    out: &mut MoveList,
) {
    let info = v.piece(part);
    let cx = PartCtx {
        captures_only: CAPTURES_ONLY,
        cells,
        v,
        us,
        from,
        part,
        whole,
        promotes: v.promotion_pawns & part.bit() != 0,
        stackable: info.stackable,
        ep,
    };
    if info.dedup {
        if info.plain_dedup && whole && !cx.promotes && !cx.stackable {
            let landing = v.landing[us.index()];
            let rules = &info.rules[us.index()];
            return plain_dedup_moves(cells, landing, from, part, rules, CAPTURES_ONLY, out);
        }
        return special_moves(&cx, &info.rules[us.index()], true, out);
    }
    let fast = &info.fast[us.index()];
    let s = from as isize;
    let quiet = cx.quiet_wanted();
    for &d in &fast.leaps {
        let to = s + d as isize;
        let c = at(cells, to);
        if c.is_empty() {
            if quiet {
                cx.arrive(out, to as usize);
            }
        } else if !c.is_offboard() {
            cx.onto_man(out, to as usize, c);
        }
    }
    if quiet {
        for &d in &fast.quiet_leaps {
            let to = s + d as isize;
            if at(cells, to).is_empty() {
                cx.arrive(out, to as usize);
            }
        }
    }
    if quiet {
        let base = Move::new(Square(from as u8), Square(0), part, part, MoveKind::Normal).0;
        double_steps(cells, v, fast, us, from, base, cx.promotes, out);
    }
    if whole {
        for &(d, ep_ok) in &fast.capture_leaps {
            let to = (s + d as isize) as usize;
            let c = cells[to];
            if c.is_piece() && c.color() != us {
                emit(out, v, us, from, to, part, MoveKind::Normal, cx.promotes);
            } else if ep_ok && to == ep {
                let _ = out.try_push(Move::new(
                    Square(from as u8),
                    Square(to as u8),
                    part,
                    part,
                    MoveKind::EnPassant,
                ));
            }
        }
    }
    for &d in &fast.rides {
        let step = d as isize;
        let mut to = s;
        loop {
            to += step;
            let c = at(cells, to);
            if c.is_empty() {
                // A slide onto an empty square never promotes.
                if !CAPTURES_ONLY {
                    let _ = out.try_push(Move::new(
                        Square(from as u8),
                        Square(to as u8),
                        part,
                        part,
                        MoveKind::Normal,
                    ));
                }
                continue;
            }
            if !c.is_offboard() {
                cx.onto_man(out, to as usize, c);
            }
            break;
        }
    }
    if !fast.special.is_empty() {
        special_moves(&cx, &fast.special, false, out);
    }
}

/// [`special_moves`] with `dedup` for a whole man that neither promotes nor
/// stacks and whose rules are all plain (see
/// [`crate::rules::variant::PieceInfo::plain_dedup`]): the same moves in the same
/// order (each target once, by the first rule that reaches it), in a
/// tight loop. With `captures_only` the moves onto empty squares are left
/// out (their squares still count as reached).
#[inline]
pub(super) fn plain_dedup_moves(
    cells: &Cells,
    landing: CodeMask,
    from: usize,
    part: PieceType,
    rules: &[Rule],
    captures_only: bool,
    out: &mut MoveList,
) {
    let base = Move::new(Square(from as u8), Square(0), part, part, MoveKind::Normal).0;
    let mut seen = SquareSet::default();
    for rule in rules {
        let step = rule.step as isize;
        let mut sq = from as isize;
        for _ in 0..rule.max {
            sq += step;
            let to = sq as usize;
            let c = at(cells, sq);
            if c.is_empty() {
                if !seen.contains(to) {
                    seen.insert(to);
                    if !captures_only {
                        let _ = out.try_push(Move(base | (to as u32) << 8));
                    }
                }
                continue;
            }
            // An enemy man is taken where no earlier rule took it; a
            // friendly man or the edge stops the walk.
            if in_mask(landing, c) && !seen.contains(to) {
                seen.insert(to);
                let _ = out.try_push(Move(base | (to as u32) << 8));
            }
            break;
        }
    }
}

/// Moves of a part by the general rule walker; with `dedup`, each target is
/// taken once even when two rules reach it.
pub(super) fn special_moves(cx: &PartCtx, rules: &[Rule], dedup: bool, out: &mut MoveList) {
    let cells = cx.cells;
    let us = cx.us;
    let from = cx.from;
    let mut seen = SquareSet::default();
    for rule in rules {
        if rule.initial && !cx.v.initial_region[us.index()].contains(from) {
            continue;
        }
        if !rule
            .prelude
            .iter()
            .all(|&p| at(cells, from as isize + p as isize).is_empty())
        {
            continue;
        }
        let step = rule.step as isize;
        let mut sq = from as isize + rule.start as isize;
        for _ in 0..rule.max {
            sq += step;
            let to = sq as usize;
            let c = cells[to];
            if c.is_offboard() {
                break;
            }
            let fresh = !dedup || !seen.contains(to);
            if c.is_empty() {
                if rule.quiet {
                    // Left out or not, the square counts as taken, as
                    // en passant onto it must not follow.
                    if fresh && cx.quiet_wanted() {
                        let kind = if rule.double_step {
                            MoveKind::DoubleStep
                        } else {
                            MoveKind::Normal
                        };
                        emit(out, cx.v, us, from, to, cx.part, kind, cx.promotes);
                    }
                } else if rule.en_passant && to == cx.ep && cx.whole && fresh {
                    let _ = out.try_push(Move::new(
                        Square(from as u8),
                        Square(to as u8),
                        cx.part,
                        cx.part,
                        MoveKind::EnPassant,
                    ));
                } else {
                    continue;
                }
                if dedup {
                    seen.insert(to);
                }
                continue;
            }
            let acts = if c.color() == us {
                rule.quiet
            } else {
                rule.capture
            };
            if acts && fresh {
                let before = out.len();
                cx.onto_man(out, to, c);
                if dedup && out.len() > before {
                    seen.insert(to);
                }
            }
            break;
        }
    }
}

/// Moves of the man (stack) on `from`: the whole stack, then each part.
#[inline]
pub(crate) fn man_moves(
    cells: &Cells,
    v: &Variant,
    us: Color,
    from: usize,
    ep: usize,
    out: &mut MoveList,
) {
    if simple_man_moves(cells, v, us, from, ep, out) {
        return;
    }
    let t = cells[from].kind();
    part_moves::<false>(cells, v, us, from, t, true, ep, out);
    for &p in &v.piece(t).parts {
        part_moves::<false>(cells, v, us, from, p, false, ep, out);
    }
}

/// [`man_moves`] of a man that the general walker moves, walking only
/// toward what [`captures_of`] keeps: the whole stack's captures,
/// promotions and en passant (its parts never capture, and only those of
/// a promoting type can promote). The moves kept from its result are
/// those kept from [`man_moves`], in the same order. Out of line: inlined,
/// it made the capture generation of plain men dearer.
#[inline(never)]
pub(super) fn man_captures(
    cells: &Cells,
    v: &Variant,
    us: Color,
    from: usize,
    ep: usize,
    out: &mut MoveList,
) {
    let t = cells[from].kind();
    part_moves::<true>(cells, v, us, from, t, true, ep, out);
    for &p in &v.piece(t).parts {
        if v.promotion_pawns & p.bit() != 0 {
            part_moves::<true>(cells, v, us, from, p, false, ep, out);
        }
    }
}
