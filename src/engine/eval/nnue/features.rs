//! The input features of the network: one per (colour relative to the
//! perspective, kind of man, square), with the squares mirrored by rank for
//! Black's perspective, and the hash that ties a net file to them; and,
//! for a net that has them, the king buckets: one such set of features per
//! bucket of the perspective's own king's square, the board seen mirrored
//! by file while that king stands on its right half.

use crate::rules::board::Position;
use crate::rules::types::{BOARD_CELLS, BOARD_WIDTH, Cell, Color, FILE_PAD, RANK_PAD, Square};
use crate::rules::variant::Variant;
use crate::util::hash::{fnv1a, fnv1a_from};

/// The input features of a variant: one per (colour relative to the
/// perspective, kind of man, square), squares mirrored by rank for Black's
/// perspective. Kinds are the variant's piece types (every stack type is a
/// kind of its own), in the variant's order. With king buckets, that set
/// (a *plane*) once per bucket, the perspective's own king's bucket
/// choosing the plane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    width: usize,
    height: usize,
    kinds: usize,
    hash: u64,
    /// Men on the board in the variant's start position (both sides'; a
    /// stack is one man): what [`Layout::bucket`] measures material by.
    start_men: usize,
    kings: KingBuckets,
}

/// Most king buckets a net may have.
pub const MAX_KING_BUCKETS: usize = 16;

/// The king buckets of a net: which plane of features a perspective uses
/// by where its own king stands, and whether it sees the board mirrored
/// by file while that king stands on the board's right half. A variant's
/// king is one man a side, never stacked, so each perspective has one
/// king square. None (the default) is one plane, never mirrored: the
/// layout of every net before king buckets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KingBuckets {
    /// Per square as the perspective sees it (rank-major from its own
    /// first rank, after the mirroring), its king's bucket there; empty
    /// for none.
    map: Vec<u8>,
    mirror: bool,
}

/// Why king buckets do not fit a board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KingBucketError {
    /// The map has `found` squares where the board has `squares`.
    WrongSquares { found: usize, squares: usize },
    /// A bucket at or beyond [`MAX_KING_BUCKETS`].
    TooMany(usize),
    /// A preset number that is not one of [`KingBuckets::PRESETS`].
    UnknownPreset(usize),
}

impl std::fmt::Display for KingBucketError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KingBucketError::WrongSquares { found, squares } => write!(
                f,
                "the king bucket map has {found} squares where the board has {squares}"
            ),
            KingBucketError::TooMany(b) => write!(
                f,
                "king bucket {b} is out of range (at most {MAX_KING_BUCKETS} buckets)"
            ),
            KingBucketError::UnknownPreset(n) => write!(
                f,
                "there is no preset of {n} king buckets (the presets: 0 to 4)"
            ),
        }
    }
}

impl std::error::Error for KingBucketError {}

impl KingBuckets {
    /// The preset bucket counts [`KingBuckets::preset`] knows.
    pub const PRESETS: std::ops::RangeInclusive<usize> = 0..=4;

    /// No king buckets: one plane, never mirrored.
    pub fn none() -> KingBuckets {
        KingBuckets::default()
    }

    /// King buckets from their parts as a net file stores them: `map`
    /// empty or one bucket a square, each below [`MAX_KING_BUCKETS`] (the
    /// board's size is checked where a layout takes them).
    pub fn from_parts(map: Vec<u8>, mirror: bool) -> Result<KingBuckets, KingBucketError> {
        if let Some(&b) = map.iter().find(|&&b| usize::from(b) >= MAX_KING_BUCKETS) {
            return Err(KingBucketError::TooMany(usize::from(b)));
        }
        Ok(KingBuckets { map, mirror })
    }

    /// The preset of `n` buckets for a board of `width` x `height`, every
    /// one but `n = 0` mirrored (the king's rank counted from its own
    /// side, its file after the mirroring):
    /// - 0: none;
    /// - 1: one bucket;
    /// - 2: the king on its first rank, or beyond;
    /// - 3: on its first rank, its second, or beyond;
    /// - 4: on its first rank in the corner quarter of the files, on its
    ///   first rank nearer the centre, on its second rank, or beyond.
    pub fn preset(n: usize, width: usize, height: usize) -> Result<KingBuckets, KingBucketError> {
        let bucket = |file: usize, rank: usize| -> u8 {
            match (n, rank) {
                (1, _) => 0,
                (2, 0) | (3, 0) => 0,
                (2, _) => 1,
                (3, 1) => 1,
                (3, _) => 2,
                (4, 0) if file < width.div_ceil(4) => 0,
                (4, 0) => 1,
                (4, 1) => 2,
                _ => 3,
            }
        };
        match n {
            0 => Ok(KingBuckets::none()),
            1..=4 => Ok(KingBuckets {
                map: (0..width * height)
                    .map(|i| bucket(i % width.max(1), i / width.max(1)))
                    .collect(),
                mirror: true,
            }),
            _ => Err(KingBucketError::UnknownPreset(n)),
        }
    }

    /// Buckets: 1 with none.
    pub fn count(&self) -> usize {
        self.map
            .iter()
            .map(|&b| usize::from(b) + 1)
            .max()
            .unwrap_or(1)
    }

    /// Whether there are none (one plane, never mirrored).
    pub fn is_none(&self) -> bool {
        self.map.is_empty() && !self.mirror
    }

    /// The bucket of each square (empty for none).
    pub fn map(&self) -> &[u8] {
        &self.map
    }

    /// Whether a perspective whose king is on the right half sees the
    /// board mirrored.
    pub fn mirror(&self) -> bool {
        self.mirror
    }
}

/// How one perspective sees the board under a layout's king buckets: the
/// first feature of its king's plane, and whether files are mirrored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct View {
    base: u32,
    mirror: bool,
}

impl View {
    /// The view of a layout without king buckets.
    pub const PLAIN: View = View {
        base: 0,
        mirror: false,
    };

    /// The first feature of the view's plane.
    pub fn base(self) -> usize {
        self.base as usize
    }

    /// Whether the view mirrors the board by file.
    pub fn mirror(self) -> bool {
        self.mirror
    }
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
            kings: KingBuckets::none(),
        }
    }

    /// The same layout with `kings` for king buckets, refused if their map
    /// is not one bucket a square of the board.
    pub fn with_kings(self, kings: KingBuckets) -> Result<Layout, KingBucketError> {
        if !kings.map.is_empty() && kings.map.len() != self.squares() {
            return Err(KingBucketError::WrongSquares {
                found: kings.map.len(),
                squares: self.squares(),
            });
        }
        Ok(Layout { kings, ..self })
    }

    /// The king buckets (none unless [`Layout::with_kings`] gave some).
    pub fn kings(&self) -> &KingBuckets {
        &self.kings
    }

    /// Features of one plane: 2 * kinds * width * height.
    pub fn plane(&self) -> usize {
        2 * self.kinds * self.width * self.height
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

    /// Number of inputs: a plane a king bucket.
    pub fn inputs(&self) -> usize {
        self.plane() * self.kings.count()
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

    /// How `perspective` sees `pos`: [`View::PLAIN`] without king buckets,
    /// else by its own king's square.
    #[inline]
    pub fn view(&self, pos: &Position, perspective: Color) -> View {
        if self.kings.is_none() {
            return View::PLAIN;
        }
        self.view_of_king(perspective, pos.king_square(perspective).index())
    }

    /// How White's perspective and Black's see `pos` ([`Layout::view`]).
    #[inline]
    pub fn views(&self, pos: &Position) -> [View; 2] {
        Color::BOTH.map(|c| self.view(pos, c))
    }

    /// [`Layout::view`] of `perspective` with its king on mailbox square
    /// `king` (a square off the board counts as the first bucket, not
    /// mirrored).
    pub fn view_of_king(&self, perspective: Color, king: usize) -> View {
        let Some((file, rank)) = self.file_rank(king) else {
            return View::PLAIN;
        };
        let rank = match perspective {
            Color::White => rank,
            Color::Black => self.height - 1 - rank,
        };
        let mirror = self.kings.mirror && 2 * file >= self.width;
        let file = if mirror { self.width - 1 - file } else { file };
        let bucket = self
            .kings
            .map
            .get(rank * self.width + file)
            .map_or(0, |&b| usize::from(b));
        View {
            // Below inputs(), which fits in u32 (checked where a net is read).
            base: (bucket * self.plane()) as u32,
            mirror,
        }
    }

    /// Mailbox square `sq` mirrored by file on this board (a square off
    /// the board as it is).
    #[inline]
    pub fn mirror_square(&self, sq: usize) -> usize {
        match self.file_rank(sq) {
            Some((file, _)) => sq - file + (self.width - 1 - file),
            None => sq,
        }
    }

    /// File and rank of mailbox square `sq` on this board.
    #[inline]
    fn file_rank(&self, sq: usize) -> Option<(usize, usize)> {
        if sq >= BOARD_CELLS {
            return None;
        }
        let (col, row) = (sq % BOARD_WIDTH, sq / BOARD_WIDTH);
        let file = col.checked_sub(FILE_PAD).filter(|&f| f < self.width)?;
        let rank = row.checked_sub(RANK_PAD).filter(|&r| r < self.height)?;
        Some((file, rank))
    }

    /// Feature index of `cell` standing on mailbox square `sq` seen from
    /// `perspective` with the view `view` ([`Layout::view`]); None for
    /// empty/offboard cells.
    #[inline]
    pub fn feature(&self, view: View, perspective: Color, cell: Cell, sq: usize) -> Option<usize> {
        let f = self.plain_feature(perspective, cell, sq)?;
        if !view.mirror {
            return Some(view.base as usize + f);
        }
        // Mirrored by file: the plane's square index is rank * width + file.
        let file = f % self.width;
        Some(view.base as usize + f - file + (self.width - 1 - file))
    }

    /// The feature of `cell` on `sq` from `perspective` in a plain view
    /// (the first plane, not mirrored): below [`Layout::plane`].
    #[inline]
    pub fn plain_feature(&self, perspective: Color, cell: Cell, sq: usize) -> Option<usize> {
        if !cell.is_piece() {
            return None;
        }
        let (file, rank) = self.file_rank(sq)?;
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
        let view = self.view(pos, perspective);
        for c in Color::BOTH {
            for &sq in pos.men(c) {
                let cell = pos.cell(Square(sq));
                if let Some(f) = self.feature(view, perspective, cell, sq as usize) {
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
                            let f = layout.plain_feature(p, cell, sq.index());
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
                            layout.plain_feature(Color::White, cell, sq.index()),
                            layout.plain_feature(Color::Black, flipped, mirrored),
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
        assert!(layout.plain_feature(Color::White, man, a1).is_some());
        for c in Color::BOTH {
            assert_eq!(layout.plain_feature(c, Cell::EMPTY, a1), None);
            assert_eq!(layout.plain_feature(c, Cell::OFFBOARD, a1), None);
            assert_eq!(layout.plain_feature(c, man, 0), None);
            assert_eq!(layout.plain_feature(c, man, BOARD_CELLS + 5), None);
            assert_eq!(layout.plain_feature(c, man, a1 - 1), None);
            let past_h = Square::new(v.files - 1, 0).index() + 1;
            assert_eq!(layout.plain_feature(c, man, past_h), None);
            let past_top = Square::new(0, v.ranks - 1).index() + BOARD_WIDTH;
            assert_eq!(layout.plain_feature(c, man, past_top), None);
            let unknown = Cell::piece(PieceType(v.pieces.len() as u8), Color::White);
            assert_eq!(layout.plain_feature(c, unknown, a1), None);
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

    fn with_preset(v: &Variant, n: usize) -> Layout {
        let kings = KingBuckets::preset(n, v.files, v.ranks).expect("preset");
        Layout::new(v).with_kings(kings).expect("fits")
    }

    /// The chess squares of the presets, worked out by hand: the king's
    /// rank from its own side, its file mirrored on the right half.
    #[test]
    fn king_buckets_of_the_presets_follow_the_kings_square() {
        let v = VariantSet::builtin().compile("chess").expect("chess");
        let layout = with_preset(&v, 4);
        let plane = layout.plane();
        assert_eq!(layout.inputs(), 4 * plane);
        let at = |file: usize, rank: usize| Square::new(file, rank).index();
        let view = |c, sq| {
            let w = layout.view_of_king(c, sq);
            (w.base() / plane, w.mirror())
        };
        // g1 and b1: the corner quarter; e1 and d1 nearer the centre;
        // e1 mirrored (file e is on the right half), d1 not.
        assert_eq!(view(Color::White, at(6, 0)), (0, true));
        assert_eq!(view(Color::White, at(1, 0)), (0, false));
        assert_eq!(view(Color::White, at(4, 0)), (1, true));
        assert_eq!(view(Color::White, at(3, 0)), (1, false));
        assert_eq!(view(Color::White, at(2, 1)), (2, false));
        assert_eq!(view(Color::White, at(4, 3)), (3, true));
        // Black's first rank is the eighth.
        assert_eq!(view(Color::Black, at(6, 7)), (0, true));
        assert_eq!(view(Color::Black, at(4, 6)), (2, true));
        assert_eq!(view(Color::Black, at(6, 0)), (3, true));
        // The other presets.
        let count = |n| KingBuckets::preset(n, 8, 8).expect("preset").count();
        assert_eq!(
            (count(0), count(1), count(2), count(3), count(4)),
            (1, 1, 2, 3, 4)
        );
        assert!(KingBuckets::preset(0, 8, 8).expect("none").is_none());
        assert!(!KingBuckets::preset(1, 8, 8).expect("one").is_none());
        assert_eq!(
            KingBuckets::preset(5, 8, 8),
            Err(KingBucketError::UnknownPreset(5))
        );
        // An odd board's middle file is its own mirror: not mirrored.
        let odd = KingBuckets::preset(1, 9, 9).expect("preset");
        assert_eq!(odd.map().len(), 81);
    }

    /// Under king buckets each view's features are distinct and lie in its
    /// own plane, in every shipped variant; a mirrored view's feature is
    /// the plain feature of the mirrored square in that plane.
    #[test]
    fn king_bucket_features_are_distinct_and_in_their_plane() {
        for v in shipped() {
            let layout = with_preset(&v, 4);
            let plane = layout.plane();
            let mut planes_used = HashSet::new();
            for &king in &v.squares {
                for p in Color::BOTH {
                    let view = layout.view_of_king(p, king.index());
                    planes_used.insert(view.base() / plane);
                    let mut seen = HashSet::new();
                    for &sq in &v.squares {
                        for t in 0..v.pieces.len() {
                            for c in Color::BOTH {
                                let cell = Cell::piece(PieceType(t as u8), c);
                                let f = layout.feature(view, p, cell, sq.index()).expect("feature");
                                assert!((view.base()..view.base() + plane).contains(&f));
                                assert!(seen.insert(f), "{}: {f} twice", v.name);
                                let on = if view.mirror() {
                                    layout.mirror_square(sq.index())
                                } else {
                                    sq.index()
                                };
                                let plain = layout.plain_feature(p, cell, on).expect("plain");
                                assert_eq!(f, view.base() + plain, "{}", v.name);
                            }
                        }
                    }
                    assert_eq!(seen.len(), plane, "{}", v.name);
                }
            }
            assert_eq!(planes_used.len(), 4, "{}", v.name);
        }
    }

    /// A position seen by a side whose king is on the right half is the
    /// position mirrored by file seen by that side with its king on the
    /// left half: the same features.
    #[test]
    fn a_mirrored_view_sees_the_mirrored_position() {
        let v = VariantSet::builtin().compile("chess").expect("chess");
        let layout = with_preset(&v, 4);
        let mirror = |fen: &str| -> String {
            let (board, rest) = fen.split_once(' ').expect("fen");
            let ranks: Vec<String> = board
                .split('/')
                .map(|r| {
                    // Digits stay digits: one-digit runs read back to front
                    // are the same runs.
                    r.chars().rev().collect()
                })
                .collect();
            format!("{} {rest}", ranks.join("/"))
        };
        for fen in [
            "r4rk1/ppp2ppp/2n5/3qp3/8/2NP1N2/PPP2PPP/R2Q1RK1 w - - 0 12",
            "8/5pk1/6p1/8/3K4/8/5P2/8 b - - 0 40",
        ] {
            let pos = Position::from_fen(v.clone(), fen).expect("fen");
            let flipped = Position::from_fen(v.clone(), &mirror(fen)).expect("mirrored fen");
            for p in Color::BOTH {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                layout.active(&pos, p, &mut a);
                layout.active(&flipped, p, &mut b);
                a.sort_unstable();
                b.sort_unstable();
                let mirrored = layout.view(&pos, p).mirror() != layout.view(&flipped, p).mirror();
                assert!(mirrored, "{fen}: one of the two views mirrors");
                assert_eq!(a, b, "{fen} {p:?}");
                // Not the plain layout's: there the two differ.
                let plain = Layout::new(&v);
                let (mut c, mut d) = (Vec::new(), Vec::new());
                plain.active(&pos, p, &mut c);
                plain.active(&flipped, p, &mut d);
                c.sort_unstable();
                d.sort_unstable();
                assert_ne!(c, d, "{fen}");
            }
        }
    }

    /// A map that is not one bucket a square, or a bucket beyond the most,
    /// is refused.
    #[test]
    fn king_buckets_that_do_not_fit_are_refused() {
        let v = VariantSet::builtin().compile("chess").expect("chess");
        assert_eq!(
            Layout::new(&v).with_kings(KingBuckets::preset(2, 10, 8).expect("preset")),
            Err(KingBucketError::WrongSquares {
                found: 80,
                squares: 64
            })
        );
        assert_eq!(
            KingBuckets::from_parts(vec![0, 16], true),
            Err(KingBucketError::TooMany(16))
        );
        assert!(KingBuckets::from_parts(vec![], true).is_ok());
    }
}
