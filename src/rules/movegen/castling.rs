//! Castling moves, by the variant's castling rules.

use crate::rules::attacks::attacked;
use crate::rules::board::position::Position;
use crate::rules::types::{Cell, Color, Move, MoveKind, MoveList};

/// Castling moves of `us` whose preconditions hold on the board before the
/// move (the king is not in check, the squares it passes over are not
/// attacked); the landing square is judged by the legality test afterwards.
pub(super) fn castling_moves(pos: &Position, us: Color, out: &mut MoveList) {
    let cells = &pos.b.cells;
    let v = &*pos.variant;
    let them = us.flip();
    for rule in &v.castling {
        if rule.color != us || pos.castling & (1 << rule.bit) == 0 {
            continue;
        }
        // The squares between first: while the men are at home, the test
        // that fails most often.
        if !rule.empty.iter().all(|s| cells[s.index()].is_empty()) {
            continue;
        }
        let corner = cells[rule.rook_from.index()];
        if !corner.is_color(us) || v.castling_pieces & corner.kind().bit() == 0 {
            continue;
        }
        if cells[rule.king_from.index()] != Cell::piece(v.king, us) {
            continue;
        }
        if rule
            .king_path
            .iter()
            .any(|s| attacked(cells, v, s.index(), them))
        {
            continue;
        }
        let _ = out.try_push(Move::new(
            rule.king_from,
            rule.king_to,
            v.king,
            v.king,
            MoveKind::Castle,
        ));
    }
}
