//! Legal move generation on the padded mailbox.
//!
//! Moves are generated pseudo-legally from each man's compiled rules, then
//! filtered: a move needs an explicit test (the board changed in place, the
//! king's square scanned, the board restored) only when the side is in check,
//! the king moves, the move is castling or en passant, or the origin square
//! is a possible pin and is left empty. Every other move is legal as it stands:
//! emptying a square that is not on any attack path toward the king, or
//! filling a square, cannot expose the king.
//!
//! - `walker`: the general walker, the moves of any man (stack) by its rules;
//! - `plain`: plain men and pawn-like steppers in tight loops, and the
//!   pawn's double step;
//! - `sink`: where moves go (a list, or perft's counter), promotions;
//! - `castling`: castling moves;
//! - `check`: what threatens the king, and the moves out of check;
//! - `legal`: the legality filter over all the side's moves.
//!
//! The attack tests themselves are in [`crate::rules::attacks`].

mod castling;
mod check;
mod legal;
mod plain;
mod sink;
mod walker;

#[cfg(test)]
mod tests;

pub(crate) use walker::man_moves;

use crate::rules::attacks::{KingTest, in_mask, safe_after};
use crate::rules::board::position::{Position, king_safe_after};
use crate::rules::types::{Color, Move, MoveKind, MoveList};
use crate::rules::variant::CodeMask;
use castling::castling_moves;
use legal::{Mode, collect_legal};
use plain::simple_man_captures;
use sink::MoveCounter;
use walker::man_captures;

/// Whether making `mv` would attack the opponent's king, found on the cells
/// alone without making the move (for pruning decisions that spare checks).
pub fn gives_check(pos: &mut Position, mv: Move) -> bool {
    let changes = pos.changes(mv);
    let us = pos.side;
    let king = pos.b.kings[us.flip().index()] as usize;
    // The opponent's king is never attacked on our turn, so only attacks
    // through the changed squares need a look.
    !safe_after(
        &mut pos.b.cells,
        &pos.variant,
        &changes,
        king,
        us,
        KingTest::Through,
    )
}

/// Whether making `mv` leaves the mover's king unattacked.
pub fn leaves_king_safe(pos: &mut Position, mv: Move) -> bool {
    king_safe_after(pos, mv, false)
}

/// [`leaves_king_safe`] for a side that is not in check.
pub fn leaves_king_safe_unchecked(pos: &mut Position, mv: Move) -> bool {
    king_safe_after(pos, mv, true)
}

/// Whether a move captures or promotes.
#[inline]
pub fn is_tactical(pos: &Position, m: Move) -> bool {
    matches!(
        m.kind(),
        MoveKind::EnPassant | MoveKind::Promotion | MoveKind::PairPromotion
    ) || pos.b.cells[m.to().index()].is_color(pos.side.flip())
}

/// All pseudo-legal moves of `us`.
fn pseudo_moves(pos: &Position, us: Color, with_castling: bool, out: &mut MoveList) {
    let ep = if pos.side == us { pos.ep as usize } else { 0 };
    for &sq in pos.b.lists[us.index()].squares.iter() {
        man_moves(&pos.b.cells, &pos.variant, us, sq as usize, ep, out);
    }
    if with_castling && pos.castling >> (2 * us.index()) & 3 != 0 {
        castling_moves(pos, us, out);
    }
}

/// Captures and promotions of the side to move, pseudo-legal and without
/// pin detection: test those that [`needs_test`] with
/// [`leaves_king_safe_unchecked`] before making them (quiescence search
/// tests lazily, since a cutoff often comes before most moves are tried).
/// Only for a side not in check; in check, [`legal_moves`] gives the evasions.
#[inline]
pub fn captures_pseudo(pos: &Position, out: &mut MoveList) {
    captures_of(pos, pos.variant.landing[pos.side.index()] & !1, out);
}

/// [`captures_pseudo`] limited to the victims in `victims` (cell codes of
/// enemy men): ordinary captures of other men are left out; promotions and
/// en-passant captures all come (with the choice not to promote beside a
/// promotion). Quiescence search passes the men worth
/// taking, so that hopeless captures are never generated.
#[inline]
pub fn captures_of(pos: &Position, victims: CodeMask, out: &mut MoveList) {
    out.clear();
    let us = pos.side;
    let ep = if pos.ep_in_hash { pos.ep as usize } else { 0 };
    for &from in pos.b.lists[us.index()].squares.iter() {
        let from = from as usize;
        if !simple_man_captures(&pos.b.cells, &pos.variant, us, from, ep, victims, out) {
            let start = out.len();
            man_captures(&pos.b.cells, &pos.variant, us, from, ep, out);
            let mut keep = start;
            for j in start..out.len() {
                let m = out[j];
                if matches!(
                    m.kind(),
                    MoveKind::EnPassant | MoveKind::Promotion | MoveKind::PairPromotion
                ) || in_mask(victims, pos.b.cells[m.to().index()])
                {
                    out[keep] = m;
                    keep += 1;
                }
            }
            out.truncate(keep);
        }
    }
}

/// Whether a pseudo-legal capture from [`captures_pseudo`] needs the legality
/// test: only the king's moves, en passant and moves from squares on an
/// attack path toward the king can expose it.
#[inline]
pub fn needs_test(pos: &Position, m: Move) -> bool {
    let us = pos.side;
    let king = pos.b.kings[us.index()] as isize;
    let from = m.from().index();
    from as isize == king
        || m.kind() == MoveKind::EnPassant
        || pos.variant.pin_lines[us.flip().index()]
            [(from as isize - king + crate::rules::variant::PIN_OFFSET) as usize]
}

/// Whether `m` is a legal move here (for a move from the transposition
/// table, tried before the others are generated); `in_check` is whether
/// the side to move is in check.
pub fn is_legal(pos: &mut Position, m: Move, in_check: bool) -> bool {
    if m.kind() == MoveKind::Castle && in_check {
        return false;
    }
    is_pseudo_legal(pos, m) && king_safe_after(pos, m, !in_check)
}

/// Whether `m` is one of the moves that the side to move's man on its
/// origin makes by its rules (castling: one of the side's castling moves),
/// whatever it leaves its king to: a move that [`Position::make`] takes.
pub fn is_pseudo_legal(pos: &Position, m: Move) -> bool {
    let us = pos.side;
    if m == Move::NONE || !pos.b.cells[m.from().index()].is_color(us) {
        return false;
    }
    let mut list = MoveList::new();
    if m.kind() == MoveKind::Castle {
        castling_moves(pos, us, &mut list);
    } else {
        let ep = if pos.ep_in_hash { pos.ep as usize } else { 0 };
        man_moves(
            &pos.b.cells,
            &pos.variant,
            us,
            m.from().index(),
            ep,
            &mut list,
        );
    }
    list.contains(&m)
}

/// All legal moves of the side to move; returns whether it is in check.
pub fn legal_moves(pos: &mut Position, out: &mut MoveList) -> bool {
    collect_legal(pos, out, Mode::All)
}

/// [`legal_moves`], except that when the side is not in check the king's
/// moves other than castling are pseudo-legal: test them with
/// [`leaves_king_safe_unchecked`] before making them. Search tests lazily,
/// since a cutoff often comes before the king's moves are tried.
pub fn legal_moves_king_untested(pos: &mut Position, out: &mut MoveList) -> bool {
    collect_legal(pos, out, Mode::KingUntested)
}

/// Number of legal moves of the side to move (perft's bulk count).
pub fn count_legal(pos: &mut Position) -> usize {
    let mut list = MoveList::new();
    let mut counter = MoveCounter(0);
    collect_legal(pos, &mut list, Mode::Count(&mut counter));
    counter.0 + list.len()
}

/// Number of pseudo-legal moves of either side (for position sanity checks).
pub(crate) fn pseudo_legal_count(pos: &Position, color: Color) -> usize {
    let mut list = MoveList::new();
    pseudo_moves(pos, color, true, &mut list);
    list.len()
}
