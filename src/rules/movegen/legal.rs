//! The legality filter: all legal moves of the side to move, testing only
//! the moves that can expose the king (see [`super`]), or counting without
//! storing those that need no test.

use super::castling::castling_moves;
use super::check::{evasions, king_danger, king_danger_from_men};
use super::plain::simple_man_moves;
use super::sink::MoveCounter;
use super::walker::man_moves;
use crate::rules::attacks::{Cells, KingTest, at, attacked_among, in_mask, safe_after};
use crate::rules::board::position::Position;
use crate::rules::types::{Cell, Color, Move, MoveKind, MoveList};
use crate::rules::variant::Variant;

/// Keep the moves in `out[start..]` that leave the king safe, testing only
/// those for which `test` says a test is needed. Only for a side not in
/// check: moves that leave the king where it stands look only through the
/// squares they change.
#[inline]
fn filter_from(
    pos: &mut Position,
    out: &mut MoveList,
    start: usize,
    test: impl Fn(Move, &Position) -> bool,
) {
    let us = pos.side;
    let them = us.flip();
    let king = pos.b.kings[us.index()] as usize;
    let mut keep = start;
    for i in start..out.len() {
        let m = out[i];
        if test(m, pos) {
            let ch = pos.changes(m);
            let ksq = if m.from().index() == king {
                m.to().index()
            } else {
                king
            };
            let test = if ksq == king {
                KingTest::Through
            } else {
                KingTest::All(&pos.b.lists[them.index()].squares)
            };
            if !safe_after(&mut pos.b.cells, &pos.variant, &ch, ksq, them, test) {
                continue;
            }
        }
        out[keep] = m;
        keep += 1;
    }
    out.truncate(keep);
}

/// How `collect_legal` delivers moves.
pub(super) enum Mode<'a> {
    /// Every legal move into the list.
    All,
    /// Every legal move, except that the king's own moves (not castling)
    /// are left untested when the side is not in check.
    KingUntested,
    /// Moves of men that need no legality test are only counted.
    Count(&'a mut MoveCounter),
}

/// Legal moves of the side to move into `out` (see [`Mode`]); returns
/// whether the side to move is in check. Men that need no legality test are
/// neither the king nor possibly pinned, with no en-passant capture available.
pub(super) fn collect_legal(pos: &mut Position, out: &mut MoveList, mut mode: Mode) -> bool {
    out.clear();
    let us = pos.side;
    let king = pos.b.kings[us.index()] as usize;
    let danger = if pos.variant.attacks[us.flip().index()].from_men {
        let men = &pos.b.lists[us.flip().index()].squares;
        king_danger_from_men(&pos.b.cells, &pos.variant, king, us, men)
    } else {
        king_danger(&pos.b.cells, &pos.variant, king, us)
    };
    if danger.checks > 0 {
        evasions(pos, out, &danger);
        return true;
    }
    let pinned = danger.pinned;
    // En-passant captures are generated only when one of them is legal.
    let ep = if pos.ep_in_hash { pos.ep as usize } else { 0 };
    let n = pos.b.lists[us.index()].squares.len();
    for i in 0..n {
        let from = pos.b.lists[us.index()].squares[i] as usize;
        let tested = from == king || pinned.contains(from);
        let info = pos.variant.piece(pos.b.cells[from].kind());
        let simple = !tested && (info.plain || (info.stepper && ep == 0));
        if let Mode::Count(c) = &mut mode {
            if simple {
                simple_man_moves(&pos.b.cells, &pos.variant, us, from, ep, *c);
                continue;
            }
            if from == king && info.plain {
                c.0 += count_king_moves(
                    &mut pos.b.cells,
                    &pos.variant,
                    us,
                    from,
                    &pos.b.lists[us.flip().index()].squares,
                );
                continue;
            }
        }
        let start = out.len();
        man_moves(&pos.b.cells, &pos.variant, us, from, ep, out);
        if from == king {
            if !matches!(mode, Mode::KingUntested) {
                filter_from(pos, out, start, |_, _| true);
            }
        } else if tested {
            // Only moves that empty the square can unpin it; en passant also
            // removes a second man.
            filter_from(pos, out, start, |m, p| {
                m.kind() == MoveKind::EnPassant
                    || (m.kind() != MoveKind::PairPromotion
                        && m.part() == p.b.cells[m.from().index()].kind())
            });
        } else if ep != 0 {
            filter_from(pos, out, start, |m, _| m.kind() == MoveKind::EnPassant);
        }
    }
    if pos.castling >> (2 * us.index()) & 3 != 0 {
        let start = out.len();
        castling_moves(pos, us, out);
        filter_from(pos, out, start, |_, _| true);
    }
    false
}

/// Legal moves of a plain royal man: its targets are tested with the man
/// lifted off its square, so that it cannot shield a square it moves along.
fn count_king_moves(cells: &mut Cells, v: &Variant, us: Color, from: usize, men: &[u8]) -> usize {
    let them = us.flip();
    let fast = &v.piece(cells[from].kind()).fast[us.index()];
    let landing = v.landing[us.index()];
    let king = cells[from];
    cells[from] = Cell::EMPTY;
    let mut n = 0;
    let s = from as isize;
    for &d in &fast.leaps {
        let to = (s + d as isize) as usize;
        if in_mask(landing, cells[to]) && !attacked_among(cells, v, to, them, men) {
            n += 1;
        }
    }
    for &d in &fast.rides {
        let mut to = s + d as isize;
        loop {
            let c = at(cells, to);
            if in_mask(landing, c) && !attacked_among(cells, v, to as usize, them, men) {
                n += 1;
            }
            if !c.is_empty() {
                break;
            }
            to += d as isize;
        }
    }
    cells[from] = king;
    n
}
