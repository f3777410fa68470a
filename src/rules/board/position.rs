//! The position: padded mailbox, side to move, rights, clocks, hash and the
//! history needed to unmake moves and detect repetitions.

use crate::rules::attacks::{self, KingTest};
use crate::rules::sums::Score;
use crate::rules::types::{BOARD_CELLS, Cell, Changes, Color, Move, MoveKind, PieceType, Square};
use crate::rules::variant::Variant;
use arrayvec::ArrayVec;
use std::sync::Arc;

/// Most men one side may have on the board.
pub const MAX_MEN: usize = 128;

/// Squares of one side's men, with O(1) removal.
#[derive(Clone, Debug)]
pub struct PieceList {
    pub squares: ArrayVec<u8, MAX_MEN>,
}

/// What `unmake` needs to restore a position.
#[derive(Clone, Debug)]
pub struct Undo {
    pub mv: Move,
    /// Old contents of every square the move changed, in order of change.
    changed: ArrayVec<(u8, Cell), 4>,
    castling: u8,
    ep: u8,
    ep_victim: u8,
    ep_in_hash: bool,
    halfmove: u32,
    hash: u64,
    pawn_hash: u64,
    psq: Score,
    phase: i32,
}

/// The mailbox with everything that changes with its contents: the hash,
/// piece lists and king squares.
#[derive(Clone, Debug)]
pub struct Board {
    pub(crate) cells: [Cell; BOARD_CELLS],
    pub(crate) hash: u64,
    pub(crate) kings: [u8; 2],
    pub(crate) lists: [PieceList; 2],
    /// Position of each occupied square in its side's list.
    pub(crate) list_index: [u8; BOARD_CELLS],
    /// Material and piece-square score from White's side (see [`super::sums`]).
    pub(crate) psq: Score,
    /// Game phase: the non-pawn material on the board.
    pub(crate) phase: i32,
    /// Hash of the pawn-type men alone (the key of the pawn-structure cache).
    pub(crate) pawn_hash: u64,
}

impl Board {
    /// Put `cell` on `sq`, keeping the hashes, scores, piece lists and king
    /// squares current.
    #[inline(always)]
    pub(crate) fn set(&mut self, v: &Variant, sq: usize, cell: Cell) {
        let old = self.cells[sq];
        if old == cell {
            return;
        }
        let z = &v.zobrist.pieces;
        let e = &v.sums;
        if old.is_piece() {
            let key = z[old.0 as usize * BOARD_CELLS + sq];
            self.hash ^= key;
            if v.promotion_pawns & old.kind().bit() != 0 {
                self.pawn_hash ^= key;
            }
            self.psq -= e.psq[old.0 as usize * BOARD_CELLS + sq];
            self.phase -= e.phase[old.0 as usize];
        }
        if cell.is_piece() {
            let key = z[cell.0 as usize * BOARD_CELLS + sq];
            self.hash ^= key;
            if v.promotion_pawns & cell.kind().bit() != 0 {
                self.pawn_hash ^= key;
            }
            self.psq += e.psq[cell.0 as usize * BOARD_CELLS + sq];
            self.phase += e.phase[cell.0 as usize];
        }
        self.restore(v, sq, cell);
    }

    /// Put `cell` on `sq` keeping only the piece lists and king squares
    /// current: when unmaking, the caller restores the hashes and scores
    /// saved before the move.
    #[inline]
    fn restore(&mut self, v: &Variant, sq: usize, cell: Cell) {
        let old = self.cells[sq];
        if old.is_piece() && (!cell.is_piece() || cell.color() != old.color()) {
            self.list_remove(old.color(), sq);
        }
        if cell.is_piece() {
            if !old.is_piece() || cell.color() != old.color() {
                self.list_add(cell.color(), sq);
            }
            if cell.kind() == v.king {
                self.kings[cell.color().index()] = sq as u8;
            }
        }
        self.cells[sq] = cell;
    }

    #[inline]
    fn list_add(&mut self, c: Color, sq: usize) {
        let list = &mut self.lists[c.index()].squares;
        self.list_index[sq] = list.len() as u8;
        // Capacity is checked when a FEN is read; a full list cannot grow further.
        let _ = list.try_push(sq as u8);
    }

    #[inline]
    fn list_remove(&mut self, c: Color, sq: usize) {
        let list = &mut self.lists[c.index()].squares;
        let i = self.list_index[sq] as usize;
        let Some(&last) = list.last() else { return };
        if i < list.len() {
            list[i] = last;
            self.list_index[last as usize] = i as u8;
            list.pop();
        }
    }
}

#[derive(Clone, Debug)]
pub struct Position {
    pub(crate) variant: Arc<Variant>,
    pub(crate) b: Board,
    pub(crate) side: Color,
    /// Castling rights, bit `2 * colour + (0 kingside | 1 queenside)`.
    pub(crate) castling: u8,
    /// En-passant square (0 when none) and the square of the man that may be
    /// captured there.
    pub(crate) ep: u8,
    pub(crate) ep_victim: u8,
    pub(crate) halfmove: u32,
    pub(crate) fullmove: u32,
    pub(crate) history: Vec<Undo>,
    /// Whether the en-passant square is part of the hash (only when a legal
    /// en-passant capture exists).
    pub(crate) ep_in_hash: bool,
}

impl Position {
    /// An empty board of the variant (sentinels set, nothing on it).
    pub(crate) fn empty(variant: Arc<Variant>) -> Position {
        let mut cells = [Cell::OFFBOARD; BOARD_CELLS];
        for s in &variant.squares {
            cells[s.index()] = Cell::EMPTY;
        }
        let hash = variant.zobrist.castling[0];
        Position {
            variant,
            b: Board {
                cells,
                hash,
                kings: [0, 0],
                lists: [
                    PieceList {
                        squares: ArrayVec::new(),
                    },
                    PieceList {
                        squares: ArrayVec::new(),
                    },
                ],
                list_index: [0; BOARD_CELLS],
                psq: Score::ZERO,
                phase: 0,
                pawn_hash: 0,
            },
            side: Color::White,
            castling: 0,
            ep: 0,
            ep_victim: 0,
            halfmove: 0,
            fullmove: 1,
            history: Vec::new(),
            ep_in_hash: false,
        }
    }

    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }
    pub fn side_to_move(&self) -> Color {
        self.side
    }
    pub fn hash(&self) -> u64 {
        self.b.hash
    }
    /// The hash of the men of the types that promote alone (the pawn
    /// structure).
    pub fn pawn_hash(&self) -> u64 {
        self.b.pawn_hash
    }
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove
    }
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }
    pub fn castling_rights(&self) -> u8 {
        self.castling
    }
    pub fn ep_square(&self) -> Option<Square> {
        (self.ep != 0).then_some(Square(self.ep))
    }
    #[inline]
    pub fn cell(&self, sq: Square) -> Cell {
        self.b.cells[sq.index()]
    }
    pub fn king_square(&self, c: Color) -> Square {
        Square(self.b.kings[c.index()])
    }
    /// Squares of a side's men.
    pub fn men(&self, c: Color) -> &[u8] {
        &self.b.lists[c.index()].squares
    }
    /// Number of moves made since the position was set up.
    pub fn ply_count(&self) -> usize {
        self.history.len()
    }
    /// Moves made since the position was set up.
    pub fn moves_played(&self) -> impl Iterator<Item = Move> + '_ {
        self.history.iter().map(|u| u.mv)
    }

    /// The board changes a move makes: (square, new contents).
    #[inline(always)]
    pub(crate) fn changes(&self, mv: Move) -> Changes {
        let v = &*self.variant;
        let us = self.side;
        let from = mv.from().index();
        let to = mv.to().index();
        let mut ch = Changes::new();
        match mv.kind() {
            MoveKind::Castle => {
                let rule = v.castling.iter().find(|c| {
                    c.color == us && c.king_from.index() == from && c.king_to.index() == to
                });
                if let Some(rule) = rule {
                    let rook = self.b.cells[rule.rook_from.index()];
                    ch.push((from as u8, Cell::EMPTY));
                    ch.push((rule.rook_from.0, Cell::EMPTY));
                    ch.push((to as u8, Cell::piece(v.king, us)));
                    ch.push((rule.rook_to.0, rook));
                }
            }
            kind => {
                let here = self.b.cells[from].kind();
                let remnant = match kind {
                    MoveKind::PairPromotion => Cell::piece(mv.result(), us),
                    _ => match v.remnant(here, mv.part()) {
                        Some(t) => Cell::piece(t, us),
                        None => Cell::EMPTY,
                    },
                };
                ch.push((from as u8, remnant));
                ch.push((to as u8, Cell::piece(mv.result(), us)));
                if kind == MoveKind::EnPassant {
                    ch.push((self.ep_victim, Cell::EMPTY));
                }
            }
        }
        ch
    }

    /// The undo record of `mv` (`Move::NONE` for a null move) before it is
    /// made: the state that making it changes, its board changes still to
    /// come.
    #[inline(always)]
    fn undo_record(&self, mv: Move) -> Undo {
        Undo {
            mv,
            changed: ArrayVec::new(),
            castling: self.castling,
            ep: self.ep,
            ep_victim: self.ep_victim,
            ep_in_hash: self.ep_in_hash,
            halfmove: self.halfmove,
            hash: self.b.hash,
            pawn_hash: self.b.pawn_hash,
            psq: self.b.psq,
            phase: self.b.phase,
        }
    }

    /// Make a move (which must be legal, or at least pseudo-legal).
    pub fn make(&mut self, mv: Move) {
        let changes = self.changes(mv);
        let v = &*self.variant;
        let us = self.side;
        let from = mv.from().index();
        let to = mv.to().index();
        let kind = mv.kind();
        let captured = kind != MoveKind::Castle && self.b.cells[to].is_color(us.flip());
        let mut undo = self.undo_record(mv);
        let resets = captured
            || kind == MoveKind::EnPassant
            || (kind != MoveKind::Castle && v.n_move_types & v.piece(mv.part()).members != 0);
        for &(sq, cell) in &changes {
            undo.changed.push((sq, self.b.cells[sq as usize]));
            self.b.set(v, sq as usize, cell);
        }
        // Castling rights: lost when the king or the corner man leaves (unless
        // the part left behind still holds the corner man) or is captured.
        let mut rights = self.castling;
        if rights != 0 {
            let from_mask = v.castle_mask[from];
            if from_mask != 0 {
                let rest = self.b.cells[from];
                let keeps = kind != MoveKind::Castle
                    && rest.is_piece()
                    && v.piece(rest.kind()).members & v.castling_pieces != 0;
                if !keeps {
                    rights &= !from_mask;
                }
            }
            if captured {
                rights &= !v.castle_mask[to];
            }
            if kind == MoveKind::Castle {
                rights &= !(3 << (2 * us.index()));
            }
            if rights != self.castling {
                self.b.hash ^= v.zobrist.castling[self.castling as usize]
                    ^ v.zobrist.castling[rights as usize];
                self.castling = rights;
            }
        }
        if self.ep_in_hash {
            self.b.hash ^= v.zobrist.en_passant[self.ep as usize];
            self.ep_in_hash = false;
        }
        self.ep = 0;
        self.ep_victim = 0;
        self.halfmove = if resets { 0 } else { self.halfmove + 1 };
        if us == Color::Black {
            self.fullmove += 1;
        }
        self.side = us.flip();
        self.b.hash ^= v.zobrist.side;
        self.history.push(undo);
        if kind == MoveKind::DoubleStep {
            // The skipped square lies midway between origin and destination.
            self.ep = ((from + to) / 2) as u8;
            self.ep_victim = to as u8;
            if self.ep_capture_possible() {
                self.ep_in_hash = true;
                self.b.hash ^= self.variant.zobrist.en_passant[self.ep as usize];
            }
        }
    }

    /// How many moves were made since the position was set up (null moves
    /// included).
    pub fn moves_made(&self) -> usize {
        self.history.len()
    }

    /// The squares that the moves made after the first `made` changed, each
    /// once with its contents before the first of those moves changed it
    /// (its contents now are the board's), appended to `out`: what a caller
    /// that knew the position `made` moves in must update. False when fewer
    /// moves were made, or when `out` fills (it then holds a part).
    pub fn changed_since<const N: usize>(
        &self,
        made: usize,
        out: &mut ArrayVec<(u8, Cell), N>,
    ) -> bool {
        let Some(undos) = self.history.get(made..) else {
            return false;
        };
        for undo in undos {
            for &(sq, old) in &undo.changed {
                if out.iter().all(|&(s, _)| s != sq) && out.try_push((sq, old)).is_err() {
                    return false;
                }
            }
        }
        true
    }

    /// The board changes of the last move made, read from its undo record:
    /// (square, old contents, new contents) in the order they were made. A
    /// square changed twice (a castling king landing where its partner
    /// stood) appears twice, its second old contents what the first change
    /// put there. Empty after a null move or with no move made.
    pub fn last_changes(&self) -> ArrayVec<(u8, Cell, Cell), 4> {
        let mut out = ArrayVec::new();
        let Some(undo) = self.history.last() else {
            return out;
        };
        for (i, &(sq, old)) in undo.changed.iter().enumerate() {
            let new = undo.changed[i + 1..]
                .iter()
                .find(|c| c.0 == sq)
                .map_or(self.b.cells[sq as usize], |c| c.1);
            out.push((sq, old, new));
        }
        out
    }

    /// Take back the last move made.
    pub fn unmake(&mut self) {
        let Some(undo) = self.history.pop() else {
            return;
        };
        let v = &*self.variant;
        for &(sq, cell) in undo.changed.iter().rev() {
            self.b.restore(v, sq as usize, cell);
        }
        self.b.pawn_hash = undo.pawn_hash;
        self.b.psq = undo.psq;
        self.b.phase = undo.phase;
        self.side = self.side.flip();
        if self.side == Color::Black {
            self.fullmove -= 1;
        }
        self.castling = undo.castling;
        self.ep = undo.ep;
        self.ep_victim = undo.ep_victim;
        self.ep_in_hash = undo.ep_in_hash;
        self.halfmove = undo.halfmove;
        self.b.hash = undo.hash;
    }

    /// Make a null move (pass), for search.
    pub fn make_null(&mut self) {
        let v = &*self.variant;
        let undo = self.undo_record(Move::NONE);
        if self.ep_in_hash {
            self.b.hash ^= v.zobrist.en_passant[self.ep as usize];
            self.ep_in_hash = false;
        }
        self.ep = 0;
        self.ep_victim = 0;
        self.halfmove += 1;
        if self.side == Color::Black {
            self.fullmove += 1;
        }
        self.side = self.side.flip();
        self.b.hash ^= v.zobrist.side;
        self.history.push(undo);
    }

    /// Hash of the current position computed from scratch.
    pub fn compute_hash(&self) -> u64 {
        let v = &*self.variant;
        let mut h = 0u64;
        for s in &v.squares {
            let c = self.b.cells[s.index()];
            if c.is_piece() {
                h ^= v.zobrist.pieces[c.0 as usize * BOARD_CELLS + s.index()];
            }
        }
        h ^= v.zobrist.castling[self.castling as usize];
        if self.side == Color::Black {
            h ^= v.zobrist.side;
        }
        if self.ep != 0 && self.clone().ep_capture_possible() {
            h ^= v.zobrist.en_passant[self.ep as usize];
        }
        h
    }

    /// Recompute the hash and the en-passant flag from scratch (after set-up).
    pub(crate) fn refresh_hash(&mut self) {
        self.ep_in_hash = self.ep != 0 && self.clone().ep_capture_possible();
        self.b.hash = self.compute_hash();
    }

    /// Whether the side to move has a legal en-passant capture.
    fn ep_capture_possible(&mut self) -> bool {
        if self.ep == 0 {
            return false;
        }
        let mut candidates: ArrayVec<u8, 16> = ArrayVec::new();
        let us = self.side;
        let variant = self.variant.clone();
        attacks::scan_rays(
            &self.b.cells,
            &variant,
            &variant.ep_rays[us.index()],
            self.ep as usize,
            us,
            |sq| {
                let _ = candidates.try_push(sq as u8);
                false
            },
        );
        for from in candidates {
            let part = self.b.cells[from as usize].kind();
            let mv = Move::new(
                Square(from),
                Square(self.ep),
                part,
                part,
                MoveKind::EnPassant,
            );
            if king_safe_after(self, mv, false) {
                return true;
            }
        }
        false
    }

    /// How many times the current position occurred before (same side to move,
    /// rights and legal en-passant captures), looking back over reversible moves.
    pub fn repetitions(&self) -> usize {
        let mut count = 0;
        let n = self.history.len();
        let back = (self.halfmove as usize).min(n);
        let mut i = 2;
        while i <= back {
            if self.history[n - i].hash == self.b.hash {
                count += 1;
            }
            i += 2;
        }
        count
    }

    /// Whether the side to move's king is attacked.
    pub fn in_check(&self) -> bool {
        let us = self.side;
        let king = self.b.kings[us.index()] as usize;
        match self.history.last() {
            // Before the last move our king stood unattacked (the mover's
            // king is never left in check), so only attacks through the
            // squares that move changed need a look.
            Some(undo) => attacks::attacked_through(
                &self.b.cells,
                &self.variant,
                king,
                us.flip(),
                undo.changed.iter().map(|&(sq, _)| sq as usize),
            ),
            None => is_attacked(self, king, us.flip()),
        }
    }

    /// Whether the position is dead by the variant's rule (see
    /// [`crate::rules::variant::DeadRule`]): the game is drawn.
    pub fn is_dead(&self) -> bool {
        let v = &*self.variant;
        match &v.dead {
            crate::rules::variant::DeadRule::NoMatingPotential => {
                !self.has_mating_potential(Color::White) && !self.has_mating_potential(Color::Black)
            }
            crate::rules::variant::DeadRule::Material { sets, color_bound } => {
                let side = |c: Color| {
                    let mut types: ArrayVec<PieceType, MAX_MEN> = self
                        .men(c)
                        .iter()
                        .map(|&sq| self.b.cells[sq as usize].kind())
                        .collect();
                    types.sort();
                    types
                };
                let (w, b) = (side(Color::White), side(Color::Black));
                let listed = sets.iter().any(|(x, y)| {
                    (x[..] == w[..] && y[..] == b[..]) || (x[..] == b[..] && y[..] == w[..])
                });
                listed || (*color_bound && self.only_color_bound_on_one_colour())
            }
        }
    }

    /// Whether every man but the kings is of a colour-bound type and all of
    /// them stand on squares of one colour.
    fn only_color_bound_on_one_colour(&self) -> bool {
        let v = &*self.variant;
        let mut shade = None;
        for c in Color::BOTH {
            for &sq in self.men(c) {
                let t = self.b.cells[sq as usize].kind();
                if t == v.king {
                    continue;
                }
                let s = v.square_shade(Square(sq));
                if v.mating.color_bound & t.bit() == 0 || *shade.get_or_insert(s) != s {
                    return false;
                }
            }
        }
        true
    }

    /// The man (type and colour) on a square, if any.
    pub fn piece_on(&self, sq: Square) -> Option<(PieceType, Color)> {
        let c = self.b.cells[sq.index()];
        c.is_piece().then(|| (c.kind(), c.color()))
    }

    /// Whether `color` still has mating potential (RULES.md: a pawn-type man,
    /// a man that mates alone, or a team of men that can force mate).
    pub fn has_mating_potential(&self, color: Color) -> bool {
        let v = &*self.variant;
        let mut men: ArrayVec<(PieceType, usize), MAX_MEN> = ArrayVec::new();
        for &sq in self.men(color) {
            let t = self.b.cells[sq as usize].kind();
            if t == v.king {
                continue;
            }
            if v.promotion_pawns & v.piece(t).members != 0 || v.mating.solo & t.bit() != 0 {
                return true;
            }
            // A stack counts as its members.
            let members = v.piece(t).members;
            for i in 0..v.pieces.len() {
                if members & (1u64 << i) != 0 {
                    let _ = men.try_push((PieceType(i as u8), v.square_shade(Square(sq))));
                }
            }
        }
        if men.len() < 2 {
            return false;
        }
        let bound = |t: PieceType| v.mating.color_bound & t.bit() != 0;
        if men.iter().all(|&(t, s)| bound(t) && s == men[0].1) {
            return false;
        }
        if men.len() == 2 {
            let (a, b) = (men[0].0, men[1].0);
            return !v
                .mating
                .pair_exceptions
                .iter()
                .any(|&(x, y)| (x == a && y == b) || (x == b && y == a));
        }
        true
    }
}

/// Whether `sq` is attacked by a man of `by`.
pub(crate) fn is_attacked(pos: &Position, sq: usize, by: Color) -> bool {
    attacks::attacked_among(
        &pos.b.cells,
        &pos.variant,
        sq,
        by,
        &pos.b.lists[by.index()].squares,
    )
}

/// Whether making `mv` leaves the mover's king unattacked; `not_in_check`
/// tells that the side to move is not in check, so that a king that stays
/// where it stands is looked at only through the squares the move changes.
#[inline]
pub(crate) fn king_safe_after(pos: &mut Position, mv: Move, not_in_check: bool) -> bool {
    let us = pos.side;
    let ch = pos.changes(mv);
    let king = pos.b.kings[us.index()] as usize;
    let ksq = if mv.from().index() == king {
        mv.to().index()
    } else {
        king
    };
    let test = if not_in_check && ksq == king {
        KingTest::Through
    } else {
        KingTest::All(&pos.b.lists[us.flip().index()].squares)
    };
    attacks::safe_after(&mut pos.b.cells, &pos.variant, &ch, ksq, us.flip(), test)
}
