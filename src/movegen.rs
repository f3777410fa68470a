//! Legal move generation and square attacks on the padded mailbox.
//!
//! Moves are generated pseudo-legally from each man's compiled rules, then
//! filtered: a move needs an explicit test (the board changed in place, the
//! king's square scanned, the board restored) only when the side is in check,
//! the king moves, the move is castling or en passant, or the origin square
//! is a possible pin and is left empty. Every other move is legal as it stands:
//! emptying a square that is not on any attack path toward the king, or
//! filling a square, cannot expose the king.

use crate::board::position::{Changes, Position};
use crate::types::{BOARD_CELLS, Cell, Color, Move, MoveKind, MoveList, PieceType, Square};
use crate::variant::{AttackRay, SquareSet, Variant};

type Cells = [Cell; BOARD_CELLS];

/// Calls `f` with the square of every man of `color` that attacks `target`
/// along `rays`; stops early when `f` returns true (and then returns true).
#[inline]
pub(crate) fn scan_rays<F: FnMut(usize) -> bool>(
    cells: &Cells,
    v: &Variant,
    rays: &[AttackRay],
    target: usize,
    color: Color,
    mut f: F,
) -> bool {
    for ray in rays {
        let step = ray.step as isize;
        let mut base = target as isize;
        for &mask in &ray.masks {
            base -= step;
            let bc = cells[base as usize];
            if bc.is_offboard() {
                break;
            }
            let cand = (base - ray.start as isize) as usize;
            let c = if ray.start == 0 { bc } else { cells[cand] };
            if c.is_color(color)
                && mask & c.kind().bit() != 0
                && ray
                    .prelude
                    .iter()
                    .all(|&p| cells[(cand as isize + p as isize) as usize].is_empty())
                && (!ray.initial || v.initial_region[color.index()].contains(cand))
                && f(cand)
            {
                return true;
            }
            if !bc.is_empty() {
                break;
            }
        }
    }
    false
}

/// Whether `sq` is attacked by a man of `by`.
#[inline]
pub(crate) fn attacked(cells: &Cells, v: &Variant, sq: usize, by: Color) -> bool {
    scan_rays(cells, v, &v.attack_rays[by.index()], sq, by, |_| true)
}

pub(crate) fn is_attacked(pos: &Position, sq: usize, by: Color) -> bool {
    attacked(&pos.b.cells, &pos.variant, sq, by)
}

/// Every man of `color` that reaches `target` along `rays` (see [`scan_rays`]).
pub(crate) fn attackers_along<F: FnMut(usize) -> bool>(
    pos: &Position,
    rays: &[AttackRay],
    target: usize,
    color: Color,
    f: F,
) -> bool {
    scan_rays(&pos.b.cells, &pos.variant, rays, target, color, f)
}

/// Whether the king of `us` (on `king`) is in check, and which of `us`'s
/// squares are pinned (the only man between the king and an attacker, on a
/// path that must be empty for the attack).
fn king_danger(cells: &Cells, v: &Variant, king: usize, us: Color) -> (bool, SquareSet) {
    let them = us.flip();
    let mut check = false;
    let mut pinned = SquareSet::default();
    for ray in &v.attack_rays[them.index()] {
        let step = ray.step as isize;
        let mut base = king as isize;
        let mut blocker: Option<usize> = None;
        for &mask in &ray.masks {
            base -= step;
            let b = base as usize;
            let bc = cells[b];
            if bc.is_offboard() {
                break;
            }
            let cand = (base - ray.start as isize) as usize;
            let c = if ray.start == 0 { bc } else { cells[cand] };
            if c.is_color(them)
                && mask & c.kind().bit() != 0
                && (!ray.initial || v.initial_region[them.index()].contains(cand))
            {
                let mut count = usize::from(blocker.is_some());
                let mut pin = blocker;
                let mut blocked = false;
                for &p in &ray.prelude {
                    let s = (cand as isize + p as isize) as usize;
                    let pc = cells[s];
                    if pc.is_color(us) {
                        count += 1;
                        pin = Some(s);
                    } else if !pc.is_empty() {
                        blocked = true;
                    }
                }
                if !blocked {
                    match (count, pin) {
                        (0, _) => check = true,
                        (1, Some(s)) => pinned.insert(s),
                        _ => {}
                    }
                }
            }
            if !bc.is_empty() {
                if bc.is_color(us) && blocker.is_none() {
                    blocker = Some(b);
                    continue;
                }
                break;
            }
        }
    }
    (check, pinned)
}

/// Board changes of a move (see [`Position::changes`]).
#[inline]
fn move_changes(pos: &Position, mv: Move) -> Changes {
    pos.changes(mv)
}

/// Apply `changes` to the cells, test whether `king` is attacked by `them`,
/// restore the cells.
#[inline]
fn safe_after(cells: &mut Cells, v: &Variant, changes: &Changes, king: usize, them: Color) -> bool {
    let mut saved: arrayvec::ArrayVec<(u8, Cell), 4> = arrayvec::ArrayVec::new();
    for &(sq, c) in changes {
        saved.push((sq, cells[sq as usize]));
        cells[sq as usize] = c;
    }
    let safe = !attacked(cells, v, king, them);
    for &(sq, c) in saved.iter().rev() {
        cells[sq as usize] = c;
    }
    safe
}

/// Whether making `mv` leaves the mover's king unattacked.
pub(crate) fn leaves_king_safe(pos: &mut Position, mv: Move) -> bool {
    let us = pos.side;
    let ch = move_changes(pos, mv);
    let king = pos.b.kings[us.index()] as usize;
    let ksq = if mv.from().index() == king { mv.to().index() } else { king };
    safe_after(&mut pos.b.cells, &pos.variant, &ch, ksq, us.flip())
}

/// Push a move to `to`, expanded into promotions where the mover promotes.
#[inline]
#[allow(clippy::too_many_arguments)]
fn emit(out: &mut MoveList, v: &Variant, us: Color, from: usize, to: usize, part: PieceType, result: PieceType, kind: MoveKind) {
    let (f, t) = (Square(from as u8), Square(to as u8));
    if v.promotion_pawns & part.bit() != 0 && v.promotion_region[us.index()].contains(to) {
        for &p in &v.promotion_types {
            let _ = out.try_push(Move::new(f, t, part, p, MoveKind::Promotion));
        }
        for &p in &v.pair_promotion_types {
            let _ = out.try_push(Move::new(f, t, part, p, MoveKind::PairPromotion));
        }
        if !v.mandatory_promotion {
            let _ = out.try_push(Move::new(f, t, part, result, kind));
        }
        return;
    }
    let _ = out.try_push(Move::new(f, t, part, result, kind));
}

/// Moves of one part (the whole stack when `whole`) standing on `from`.
#[inline]
#[allow(clippy::too_many_arguments)]
fn part_moves(cells: &Cells, v: &Variant, us: Color, from: usize, part: PieceType, whole: bool, ep: usize, out: &mut MoveList) {
    let info = v.piece(part);
    let mut seen = SquareSet::default();
    let dedup = info.dedup;
    for rule in &info.rules[us.index()] {
        if rule.initial && !v.initial_region[us.index()].contains(from) {
            continue;
        }
        if !rule
            .prelude
            .iter()
            .all(|&p| cells[(from as isize + p as isize) as usize].is_empty())
        {
            continue;
        }
        let step = rule.step as isize;
        let mut sq = from as isize + rule.start as isize;
        for _ in 0..rule.max {
            sq += step;
            let to = sq as usize;
            let c = cells[to];
            if c.is_empty() {
                if rule.quiet {
                    if !dedup || !seen.contains(to) {
                        if dedup {
                            seen.insert(to);
                        }
                        let kind = if rule.double_step { MoveKind::DoubleStep } else { MoveKind::Normal };
                        emit(out, v, us, from, to, part, part, kind);
                    }
                } else if rule.en_passant && to == ep && whole && (!dedup || !seen.contains(to)) {
                    if dedup {
                        seen.insert(to);
                    }
                    let _ = out.try_push(Move::new(Square(from as u8), Square(to as u8), part, part, MoveKind::EnPassant));
                }
                continue;
            }
            if c.is_offboard() {
                break;
            }
            if c.color() != us {
                if rule.capture && whole && (!dedup || !seen.contains(to)) {
                    if dedup {
                        seen.insert(to);
                    }
                    emit(out, v, us, from, to, part, part, MoveKind::Normal);
                }
            } else if rule.quiet {
                if let Some(merged) = v.merge(part, c.kind()) {
                    if !dedup || !seen.contains(to) {
                        if dedup {
                            seen.insert(to);
                        }
                        let _ = out.try_push(Move::new(Square(from as u8), Square(to as u8), part, merged, MoveKind::Normal));
                    }
                }
            }
            break;
        }
    }
}

/// All pseudo-legal moves of `us` (castling only when not in check).
fn pseudo_moves(pos: &Position, us: Color, in_check: bool, out: &mut MoveList) {
    let cells = &pos.b.cells;
    let v = &*pos.variant;
    let ep = if pos.side == us { pos.ep as usize } else { 0 };
    for &sq in pos.b.lists[us.index()].squares.iter() {
        let from = sq as usize;
        let t = cells[from].kind();
        part_moves(cells, v, us, from, t, true, ep, out);
        for &p in &v.piece(t).parts {
            part_moves(cells, v, us, from, p, false, ep, out);
        }
    }
    let rights = pos.castling >> (2 * us.index()) & 3;
    if rights != 0 && !in_check {
        let them = us.flip();
        for rule in &v.castling {
            if rule.color != us || pos.castling & (1 << rule.bit) == 0 {
                continue;
            }
            let corner = cells[rule.rook_from.index()];
            if !corner.is_color(us) || v.castling_pieces & corner.kind().bit() == 0 {
                continue;
            }
            if cells[rule.king_from.index()] != Cell::piece(v.king, us) {
                continue;
            }
            if !rule.empty.iter().all(|s| cells[s.index()].is_empty()) {
                continue;
            }
            if rule.king_path.iter().any(|s| attacked(cells, v, s.index(), them)) {
                continue;
            }
            let _ = out.try_push(Move::new(rule.king_from, rule.king_to, v.king, v.king, MoveKind::Castle));
        }
    }
}

/// All legal moves of the side to move.
pub fn legal_moves(pos: &mut Position, out: &mut MoveList) {
    out.clear();
    let us = pos.side;
    let them = us.flip();
    let king = pos.b.kings[us.index()] as usize;
    let (in_check, pinned) = king_danger(&pos.b.cells, &pos.variant, king, us);
    pseudo_moves(pos, us, in_check, out);
    let mut keep = 0;
    for i in 0..out.len() {
        let m = out[i];
        let from = m.from().index();
        let kind = m.kind();
        let needs_test = in_check
            || from == king
            || matches!(kind, MoveKind::EnPassant | MoveKind::Castle)
            || (pinned.contains(from) && kind != MoveKind::PairPromotion && m.part() == pos.b.cells[from].kind());
        if needs_test {
            let ch = move_changes(pos, m);
            let ksq = if from == king { m.to().index() } else { king };
            if !safe_after(&mut pos.b.cells, &pos.variant, &ch, ksq, them) {
                continue;
            }
        }
        out[keep] = m;
        keep += 1;
    }
    out.truncate(keep);
}

/// Pseudo-legal moves of either side (for position sanity checks).
pub(crate) fn pseudo_legal_count(pos: &Position, color: Color) -> usize {
    let mut list = MoveList::new();
    pseudo_moves(pos, color, false, &mut list);
    list.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::VariantSet;

    #[test]
    fn start_position_move_counts() {
        let set = VariantSet::builtin();
        for (name, n) in [("chess", 20), ("combination", 23), ("team-mate", 27), ("compound", 53)] {
            let v = set.compile(name).expect("variant compiles");
            let mut p = Position::startpos(v);
            let mut list = MoveList::new();
            legal_moves(&mut p, &mut list);
            assert_eq!(list.len(), n, "{name}");
        }
    }
}
