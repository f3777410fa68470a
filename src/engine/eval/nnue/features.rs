//! The input features of the network: one per (colour relative to the
//! perspective, kind of man, square), with the squares mirrored by rank for
//! Black's perspective, and the hash that ties a net file to them.

use crate::rules::board::Position;
use crate::rules::types::{BOARD_CELLS, BOARD_WIDTH, Cell, Color, FILE_PAD, RANK_PAD, Square};
use crate::rules::variant::Variant;
use crate::util::hash::{fnv1a, fnv1a_from};

/// The input features of a variant: one per (colour relative to the
/// perspective, kind of man, square), squares mirrored by rank for Black's
/// perspective. Kinds are the variant's piece types (every stack type is a
/// kind of its own), in the variant's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    width: usize,
    height: usize,
    kinds: usize,
    hash: u64,
    /// Men on the board in the variant's start position (both sides'; a
    /// stack is one man): what [`Layout::bucket`] measures material by.
    start_men: usize,
}

/// Most output buckets a net may have.
pub const MAX_BUCKETS: u32 = 16;

/// The output bucket of a position with `men` men on the board (both
/// sides'), of a variant that starts with `start_men`, for a net of
/// `buckets` buckets: `min(buckets - 1, (men - 1) * buckets / start_men)`.
/// The material from one man to the start position's is cut into
/// `buckets` equal shares, the fewest men in bucket 0 and the start
/// position (or more men) in the last; one bucket is always bucket 0.
/// Engine and trainer both take it from here, so that a net is evaluated
/// as it was trained.
#[inline]
pub fn output_bucket(men: usize, start_men: usize, buckets: usize) -> usize {
    if buckets <= 1 {
        return 0;
    }
    (men.saturating_sub(1) * buckets / start_men.max(1)).min(buckets - 1)
}

impl Layout {
    pub fn new(v: &Variant) -> Layout {
        // The hashed text: a tag naming this way of numbering features, the
        // board's size, then each kind's letter and Betza, in order; a
        // different board, men, moves or order of men gives another hash.
        let mut h = fnv1a(b"amalgam-features-1");
        h = fnv1a_from(h, &(v.files as u32).to_le_bytes());
        h = fnv1a_from(h, &(v.ranks as u32).to_le_bytes());
        h = fnv1a_from(h, &(v.pieces.len() as u32).to_le_bytes());
        for p in &v.pieces {
            let mut letter = [0u8; 4];
            h = fnv1a_from(h, p.letter.encode_utf8(&mut letter).as_bytes());
            h = fnv1a_from(h, &[0]);
            h = fnv1a_from(h, p.betza.as_bytes());
            h = fnv1a_from(h, &[0]);
        }
        // The start FEN's board field: a letter of a man is one man, digits
        // are runs of empty squares (the FEN was checked when the variant
        // was compiled).
        let board = v.start_fen.split_whitespace().next().unwrap_or("");
        let start_men = board
            .chars()
            .filter(|&c| !c.is_ascii_digit() && v.type_of_letter(c).is_some())
            .count();
        Layout {
            width: v.files,
            height: v.ranks,
            kinds: v.pieces.len(),
            hash: h,
            start_men,
        }
    }

    /// Men on the board in the variant's start position.
    pub fn start_men(&self) -> usize {
        self.start_men
    }

    /// The output bucket of `pos` for a net of `buckets` buckets
    /// ([`output_bucket`] of its men).
    #[inline]
    pub fn bucket(&self, pos: &Position, buckets: usize) -> usize {
        // Every evaluation asks: a net of one bucket needs no count.
        if buckets <= 1 {
            return 0;
        }
        let men = pos.men(Color::White).len() + pos.men(Color::Black).len();
        output_bucket(men, self.start_men, buckets)
    }

    /// Number of inputs: 2 * kinds * width * height.
    pub fn inputs(&self) -> usize {
        2 * self.kinds * self.width * self.height
    }

    /// Squares of the board: the features of one (colour, kind), which
    /// lie together.
    pub fn squares(&self) -> usize {
        self.width * self.height
    }

    /// Stable hash (FNV-1a over board width, height and each kind's
    /// identifying text: its letter and Betza), written in net files.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Feature index of `cell` standing on mailbox square `sq` seen from
    /// `perspective`; None for empty/offboard cells.
    #[inline]
    pub fn feature(&self, perspective: Color, cell: Cell, sq: usize) -> Option<usize> {
        if !cell.is_piece() || sq >= BOARD_CELLS {
            return None;
        }
        let (col, row) = (sq % BOARD_WIDTH, sq / BOARD_WIDTH);
        let file = col.checked_sub(FILE_PAD).filter(|&f| f < self.width)?;
        let rank = row.checked_sub(RANK_PAD).filter(|&r| r < self.height)?;
        let kind = cell.kind().index();
        if kind >= self.kinds {
            return None;
        }
        let (relative, rank) = match perspective {
            Color::White => (cell.color().index(), rank),
            Color::Black => (1 - cell.color().index(), self.height - 1 - rank),
        };
        Some(((relative * self.kinds + kind) * self.height + rank) * self.width + file)
    }

    /// Every active feature of the position from `perspective` (cleared first).
    pub fn active(&self, pos: &Position, perspective: Color, out: &mut Vec<u32>) {
        out.clear();
        for c in Color::BOTH {
            for &sq in pos.men(c) {
                let cell = pos.cell(Square(sq));
                if let Some(f) = self.feature(perspective, cell, sq as usize) {
                    out.push(f as u32);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::types::PieceType;
    use crate::rules::variant_set::VariantSet;
    use std::collections::HashSet;

    fn shipped() -> Vec<std::sync::Arc<Variant>> {
        let set = VariantSet::builtin();
        let names = set.names().to_vec();
        assert!(names.len() >= 4, "{names:?}");
        names
            .iter()
            .map(|n| set.compile(n).unwrap_or_else(|e| panic!("{n}: {e:?}")))
            .collect()
    }

    /// Every (perspective, man, square) has its own index below `inputs`,
    /// and all the indices of one perspective are used.
    #[test]
    fn features_are_distinct_and_in_range_in_every_shipped_variant() {
        for v in shipped() {
            let layout = Layout::new(&v);
            assert_eq!(layout.inputs(), 2 * v.pieces.len() * v.files * v.ranks);
            for p in Color::BOTH {
                let mut seen = HashSet::new();
                for &sq in &v.squares {
                    for t in 0..v.pieces.len() {
                        for c in Color::BOTH {
                            let cell = Cell::piece(PieceType(t as u8), c);
                            let f = layout.feature(p, cell, sq.index());
                            let f = f.unwrap_or_else(|| panic!("{}: no feature", v.name));
                            assert!(f < layout.inputs(), "{}: {f} out of range", v.name);
                            assert!(seen.insert(f), "{}: {f} twice", v.name);
                        }
                    }
                }
                assert_eq!(seen.len(), layout.inputs(), "{}", v.name);
            }
        }
    }

    /// Black's view of a position is White's view of the position mirrored
    /// by rank with the colours swapped.
    #[test]
    fn the_perspectives_mirror_each_other_in_every_shipped_variant() {
        for v in shipped() {
            let layout = Layout::new(&v);
            for &sq in &v.squares {
                let mirrored = Square::new(sq.file(), v.ranks - 1 - sq.rank()).index();
                for t in 0..v.pieces.len() {
                    for c in Color::BOTH {
                        let cell = Cell::piece(PieceType(t as u8), c);
                        let flipped = Cell::piece(PieceType(t as u8), c.flip());
                        assert_eq!(
                            layout.feature(Color::White, cell, sq.index()),
                            layout.feature(Color::Black, flipped, mirrored),
                            "{} square {}",
                            v.name,
                            sq.index()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn empty_offboard_and_outside_squares_have_no_feature() {
        let v = &shipped()[0];
        let layout = Layout::new(v);
        let man = Cell::piece(PieceType(0), Color::White);
        let a1 = Square::new(0, 0).index();
        assert!(layout.feature(Color::White, man, a1).is_some());
        for c in Color::BOTH {
            assert_eq!(layout.feature(c, Cell::EMPTY, a1), None);
            assert_eq!(layout.feature(c, Cell::OFFBOARD, a1), None);
            assert_eq!(layout.feature(c, man, 0), None);
            assert_eq!(layout.feature(c, man, BOARD_CELLS + 5), None);
            assert_eq!(layout.feature(c, man, a1 - 1), None);
            let past_h = Square::new(v.files - 1, 0).index() + 1;
            assert_eq!(layout.feature(c, man, past_h), None);
            let past_top = Square::new(0, v.ranks - 1).index() + BOARD_WIDTH;
            assert_eq!(layout.feature(c, man, past_top), None);
            let unknown = Cell::piece(PieceType(v.pieces.len() as u8), Color::White);
            assert_eq!(layout.feature(c, unknown, a1), None);
        }
    }

    /// Bucket 0 holds the fewest men, the last the start position's and
    /// more; one bucket is always bucket 0 (the start positions: below).
    #[test]
    fn output_buckets_follow_the_men_on_the_board() {
        // 32 men in four buckets: 2..=8, 9..=16, 17..=24, 25..=32.
        let buckets: Vec<usize> = [2, 8, 9, 16, 17, 24, 25, 32, 40]
            .iter()
            .map(|&m| output_bucket(m, 32, 4))
            .collect();
        assert_eq!(buckets, [0, 0, 1, 1, 2, 2, 3, 3, 3]);
        assert_eq!(output_bucket(0, 0, 4), 0);
        assert_eq!(output_bucket(30, 32, 1), 0);
    }

    /// The start position has one active feature per man, the same set
    /// from both sides when the start position is symmetric; its men are
    /// counted from its FEN as the board holds them, and it lies in the
    /// last output bucket.
    #[test]
    fn active_features_of_the_start_positions() {
        for v in shipped() {
            let layout = Layout::new(&v);
            let pos = Position::from_fen(v.clone(), &v.start_fen).expect("start");
            let men = pos.men(Color::White).len() + pos.men(Color::Black).len();
            assert_eq!(layout.start_men(), men, "{}", v.name);
            for b in 1..=MAX_BUCKETS as usize {
                assert_eq!(layout.bucket(&pos, b), b - 1, "{} {b}", v.name);
                assert_eq!(output_bucket(2, men, b), 0, "{} {b}", v.name);
            }
            let mut w = Vec::new();
            let mut b = vec![7];
            layout.active(&pos, Color::White, &mut w);
            layout.active(&pos, Color::Black, &mut b);
            assert_eq!(w.len(), men, "{}", v.name);
            assert_eq!(b.len(), men, "{}", v.name);
            w.sort();
            b.sort();
            assert_eq!(w, b, "{}: start position not mirrored", v.name);
        }
    }

    /// The hash tells variants apart and is the same each time.
    #[test]
    fn layout_hashes_differ_between_shipped_variants() {
        let hashes: Vec<u64> = shipped().iter().map(|v| Layout::new(v).hash()).collect();
        let distinct: HashSet<u64> = hashes.iter().copied().collect();
        assert_eq!(distinct.len(), hashes.len(), "{hashes:x?}");
        let again: Vec<u64> = shipped().iter().map(|v| Layout::new(v).hash()).collect();
        assert_eq!(hashes, again);
    }
}
