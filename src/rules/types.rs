//! Small value types shared by every module: colours, squares on the padded
//! mailbox, board cells (pieces) and moves.

use std::fmt;

/// Side to move / owner of a man.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    pub const BOTH: [Color; 2] = [Color::White, Color::Black];

    #[inline]
    pub fn flip(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Width of the padded mailbox. Real files sit in columns `FILE_PAD..FILE_PAD+12`;
/// the other columns are sentinels, so a leap of up to three files off either edge
/// lands on a sentinel (a leap off the right edge wraps into the left padding).
pub const BOARD_WIDTH: usize = 16;
/// Sentinel columns on the left of file `a`.
pub const FILE_PAD: usize = 3;
/// Sentinel rows below rank 1 (and at least as many above the last rank).
pub const RANK_PAD: usize = 3;
/// Largest board the mailbox holds.
pub const MAX_FILES: usize = 12;
pub const MAX_RANKS: usize = 10;
/// Cells in the mailbox array: enough that a three-step leap from any real square
/// stays inside the array (the largest real index is 206, plus 51).
pub const BOARD_CELLS: usize = 272;

/// A square of the padded mailbox (always a real square when stored in a move
/// or a position; intermediate arithmetic uses `usize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(pub u8);

impl Square {
    #[inline]
    pub fn new(file: usize, rank: usize) -> Square {
        Square(((rank + RANK_PAD) * BOARD_WIDTH + file + FILE_PAD) as u8)
    }
    #[inline]
    pub fn file(self) -> usize {
        self.0 as usize % BOARD_WIDTH - FILE_PAD
    }
    #[inline]
    pub fn rank(self) -> usize {
        self.0 as usize / BOARD_WIDTH - RANK_PAD
    }
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Letter of a file (`a` for 0).
pub fn file_char(file: usize) -> char {
    (b'a' + file as u8) as char
}

/// A board cell: empty, off-board sentinel, or a man (piece type and colour).
/// A man's code is `2 + 2 * type + colour`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cell(pub u8);

impl Cell {
    pub const EMPTY: Cell = Cell(0);
    pub const OFFBOARD: Cell = Cell(1);

    #[inline]
    pub fn piece(kind: PieceType, color: Color) -> Cell {
        Cell(2 + 2 * kind.0 + color as u8)
    }
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    #[inline]
    pub fn is_offboard(self) -> bool {
        self.0 == 1
    }
    /// True for a man of either colour.
    #[inline]
    pub fn is_piece(self) -> bool {
        self.0 >= 2
    }
    #[inline]
    pub fn color(self) -> Color {
        if self.0 & 1 == 0 {
            Color::White
        } else {
            Color::Black
        }
    }
    #[inline]
    pub fn kind(self) -> PieceType {
        PieceType((self.0 - 2) >> 1)
    }
    /// A man of colour `c`.
    #[inline]
    pub fn is_color(self, c: Color) -> bool {
        self.0 >= 2 && (self.0 & 1) == c as u8
    }
}

/// Index of a piece type (or, in stacking variants, a stack type) in the variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PieceType(pub u8);

impl PieceType {
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
    #[inline]
    pub fn bit(self) -> u64 {
        1u64 << self.0
    }
}

/// What kind of special handling a move needs when it is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum MoveKind {
    Normal = 0,
    /// A pawn-type double step: sets the en-passant square.
    DoubleStep = 1,
    EnPassant = 2,
    Castle = 3,
    Promotion = 4,
    /// Promotion that also leaves a copy of the new man on the origin square.
    PairPromotion = 5,
}

/// A move: origin, destination, the type of the part that moves (the whole
/// stack or a proper part of it), the type that stands on the destination
/// afterwards (promoted or merged), and a kind. Packed into 32 bits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(pub u32);

impl Move {
    pub const NONE: Move = Move(0);

    #[inline]
    pub fn new(
        from: Square,
        to: Square,
        part: PieceType,
        result: PieceType,
        kind: MoveKind,
    ) -> Move {
        Move(
            from.0 as u32
                | (to.0 as u32) << 8
                | (part.0 as u32) << 16
                | (result.0 as u32) << 22
                | (kind as u32) << 28,
        )
    }
    #[inline]
    pub fn from(self) -> Square {
        Square(self.0 as u8)
    }
    #[inline]
    pub fn to(self) -> Square {
        Square((self.0 >> 8) as u8)
    }
    #[inline]
    pub fn part(self) -> PieceType {
        PieceType(((self.0 >> 16) & 63) as u8)
    }
    #[inline]
    pub fn result(self) -> PieceType {
        PieceType(((self.0 >> 22) & 63) as u8)
    }
    #[inline]
    pub fn kind(self) -> MoveKind {
        // A table lookup: the top four bits index it directly.
        const KINDS: [MoveKind; 16] = {
            let mut k = [MoveKind::Normal; 16];
            k[1] = MoveKind::DoubleStep;
            k[2] = MoveKind::EnPassant;
            k[3] = MoveKind::Castle;
            k[4] = MoveKind::Promotion;
            k[5] = MoveKind::PairPromotion;
            k
        };
        KINDS[(self.0 >> 28) as usize]
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Move({}->{} part {} result {} {:?})",
            self.from().0,
            self.to().0,
            self.part().0,
            self.result().0,
            self.kind()
        )
    }
}

/// Capacity of a move list. Positions read from a FEN are refused when either
/// side has more than half this many pseudo-legal moves, which keeps every
/// reachable position well inside it.
pub const MAX_MOVES: usize = 1024;

pub type MoveList = arrayvec::ArrayVec<Move, MAX_MOVES>;

/// A board change list: (square, new contents).
pub type Changes = arrayvec::ArrayVec<(u8, Cell), 4>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_packing_round_trips() {
        let m = Move::new(
            Square::new(11, 9),
            Square::new(0, 0),
            PieceType(63),
            PieceType(17),
            MoveKind::PairPromotion,
        );
        assert_eq!(m.from(), Square::new(11, 9));
        assert_eq!(m.to(), Square::new(0, 0));
        assert_eq!(m.part(), PieceType(63));
        assert_eq!(m.result(), PieceType(17));
        assert_eq!(m.kind(), MoveKind::PairPromotion);
    }

    #[test]
    fn square_coordinates() {
        for f in 0..MAX_FILES {
            for r in 0..MAX_RANKS {
                let s = Square::new(f, r);
                assert_eq!((s.file(), s.rank()), (f, r));
                assert!(s.index() + 51 < BOARD_CELLS);
                assert!(s.index() >= 51);
            }
        }
    }

    #[test]
    fn cell_encoding() {
        let c = Cell::piece(PieceType(5), Color::Black);
        assert!(c.is_piece() && c.is_color(Color::Black) && !c.is_color(Color::White));
        assert_eq!(c.kind(), PieceType(5));
        assert!(!Cell::EMPTY.is_piece() && !Cell::OFFBOARD.is_piece());
    }
}
