//! Variants: the data read from `variants.ini`, compiled once into immutable
//! tables that the move generator walks.

pub mod betza;
pub(crate) mod compile;
mod derive;
pub mod files;
pub mod ini;
mod keys;
mod read;

use crate::rules::sums::SumTable;
use crate::rules::types::{BOARD_CELLS, BOARD_WIDTH, Color, PieceType, Square};

pub use files::NetFileName;
pub use ini::{IniError, LoadError};
pub use keys::KEYS;

/// The ini file shipped with the engine.
pub const BUILTIN_INI: &str = include_str!("../../../variants.ini");
pub const BUILTIN_INI_NAME: &str = "variants.ini";

/// The parameter files the binary embeds, by the name an ini's
/// `evalParams` gives (the evaluation reads them; see [`ParamsFile`]).
pub const SHIPPED_PARAMS: &[(&str, &str)] = &[
    ("chess.params", include_str!("../../../params/chess.params")),
    (
        "combination.params",
        include_str!("../../../params/combination.params"),
    ),
    (
        "compound.params",
        include_str!("../../../params/compound.params"),
    ),
    (
        "team-mate.params",
        include_str!("../../../params/team-mate.params"),
    ),
];

/// A parameter file of the evaluation's weights, named by a variant's
/// `evalParams`: its text, and its name for errors.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParamsFile {
    pub text: String,
    pub name: String,
}

/// A set of squares of the padded mailbox.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SquareSet(pub [u64; 4]);

impl SquareSet {
    #[inline]
    pub fn insert(&mut self, sq: usize) {
        self.0[sq >> 6] |= 1u64 << (sq & 63);
    }
    #[inline]
    pub fn remove(&mut self, sq: usize) {
        self.0[sq >> 6] &= !(1u64 << (sq & 63));
    }
    #[inline]
    pub fn contains(&self, sq: usize) -> bool {
        sq < 256 && self.0[sq >> 6] & (1u64 << (sq & 63)) != 0
    }
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }
    pub fn intersect(&mut self, o: &SquareSet) {
        for (a, b) in self.0.iter_mut().zip(o.0.iter()) {
            *a &= b;
        }
    }
}

/// One compiled way of moving, in board deltas for one colour.
///
/// The squares `from + p` for `p` in `prelude` must be empty; then the man
/// moves from `from + start` in steps of `step`, up to `max` steps, each
/// square before the last empty. A plain leaper has no prelude, `start` 0 and
/// `max` 1; a lame leaper lists its blocking squares in the prelude; a bent
/// slider starts from its first step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub prelude: arrayvec::ArrayVec<i16, 3>,
    pub start: i16,
    pub step: i16,
    pub max: u8,
    pub quiet: bool,
    pub capture: bool,
    pub en_passant: bool,
    /// Only from the side's initial (double-step) region.
    pub initial: bool,
    /// A lame initial double step: the skipped square becomes the en-passant square.
    pub double_step: bool,
}

/// A piece's rules split by shape so that the common cases run in tight
/// loops: plain leapers and unlimited sliders that both move and capture,
/// and the rest.
#[derive(Clone, Debug, Default)]
pub struct FastRules {
    /// Leaps that move and capture.
    pub leaps: Vec<i16>,
    /// Leaps that only move.
    pub quiet_leaps: Vec<i16>,
    /// Leaps that only capture, and whether they also capture en passant.
    pub capture_leaps: Vec<(i16, bool)>,
    /// Unlimited slides that move and capture.
    pub rides: Vec<i16>,
    /// Initial lame double steps that only move: (skipped square, step).
    pub double_steps: Vec<(i16, i16)>,
    pub special: Vec<Rule>,
}

impl FastRules {
    pub fn from_rules(rules: &[Rule]) -> FastRules {
        let mut f = FastRules::default();
        for r in rules {
            let plain = r.prelude.is_empty() && r.start == 0 && !r.initial;
            match (plain, r.max, r.quiet, r.capture, r.en_passant) {
                (true, 1, true, true, false) => f.leaps.push(r.step),
                (true, 1, true, false, false) => f.quiet_leaps.push(r.step),
                (true, 1, false, true, ep) => f.capture_leaps.push((r.step, ep)),
                (true, 255, true, true, false) => f.rides.push(r.step),
                _ if r.double_step
                    && r.start == 0
                    && r.prelude.len() == 1
                    && !r.capture
                    && !r.en_passant =>
                {
                    f.double_steps.push((r.prelude[0], r.step))
                }
                _ => f.special.push(r.clone()),
            }
        }
        f
    }
}

/// Added to a square difference to index [`Variant::pin_lines`].
pub const PIN_OFFSET: isize = BOARD_CELLS as isize;

/// Offsets from a square to itself and to the eight squares next to it.
pub const AROUND: [isize; 9] = {
    let w = crate::rules::types::BOARD_WIDTH as isize;
    [0, 1, -1, w, -w, w + 1, w - 1, -w + 1, -w - 1]
};

/// A set of board cell codes (a man of one type and colour each): bit `code`.
pub type CodeMask = u64;

/// A reverse ray used to find attackers of a square: from the target walk back
/// `k` steps to `base = target - k*step`; an attacker stands on `base - start`,
/// its cell code in `masks[k-1]`, and the prelude squares (relative to the
/// attacker) are empty. The walk goes on past `base` only while it is empty.
#[derive(Clone, Debug)]
pub struct AttackRay {
    pub prelude: arrayvec::ArrayVec<i16, 3>,
    pub start: i16,
    pub step: i16,
    pub initial: bool,
    pub masks: arrayvec::ArrayVec<CodeMask, 12>,
}

/// The leaps and plain slides of both colours' attack tables merged: each
/// leap offset once, with the cell codes of both colours' men that leap
/// along it, and each slide once, with both colours' codes. A cell code
/// names its colour, so one look at a square finds the attackers of both
/// sides. Built only where the tables have no special rays, are looked
/// at from the target, and slide the same length along a step they share.
#[derive(Clone, Debug)]
pub struct BothSides {
    pub leaps: Vec<(i16, CodeMask)>,
    pub slides: Vec<Slide>,
}

impl BothSides {
    /// The merged table, or None where the two tables do not allow it.
    pub fn merge(tables: &[AttackTable; 2]) -> Option<BothSides> {
        let [w, b] = tables;
        if w.from_men || b.from_men || !w.special.is_empty() || !b.special.is_empty() {
            return None;
        }
        let mut leaps: Vec<(i16, CodeMask)> = Vec::new();
        for &(step, mask) in w.leaps.iter().chain(&b.leaps) {
            match leaps.iter_mut().find(|(s, _)| *s == step) {
                Some((_, m)) => *m |= mask,
                None => leaps.push((step, mask)),
            }
        }
        let mut slides: Vec<Slide> = Vec::new();
        for sl in w.slides.iter().chain(&b.slides) {
            match slides.iter_mut().find(|x| x.step == sl.step) {
                Some(x) if x.len == sl.len => {
                    x.near |= sl.near;
                    x.far |= sl.far;
                }
                Some(_) => return None,
                None => slides.push(sl.clone()),
            }
        }
        Some(BothSides { leaps, slides })
    }
}

/// A plain sliding attack ray: walking back from the target, the first man met
/// attacks when its code is in `near` (distance 1) or `far` (2..=len).
#[derive(Clone, Debug)]
pub struct Slide {
    pub step: i16,
    pub near: CodeMask,
    pub far: CodeMask,
    pub len: u8,
}

/// The attack rays of one colour, split by shape: plain leaps (one square to
/// look at), plain slides, and the rest (lame, bent, initial-only).
#[derive(Clone, Debug, Default)]
pub struct AttackTable {
    pub leaps: Vec<(i16, CodeMask)>,
    pub slides: Vec<Slide>,
    pub special: Vec<AttackRay>,
    /// The same attacks seen from the attacker: for the offset `o` (target
    /// minus attacker, plus [`PIN_OFFSET`]),
    /// `by_offset[o]..by_offset[o + 1]` indexes `man_attacks`, the ways a man
    /// standing at that offset from a target may attack it.
    pub by_offset: Vec<u32>,
    pub man_attacks: Vec<ManAttack>,
    /// Per offset as in `by_offset`: the cell codes of the men with some
    /// entry there, so that most men are passed over at one look.
    pub reach_codes: Vec<CodeMask>,
    /// Per offset as in `by_offset`, taken to a centre square: the cell
    /// codes of the men that may attack the centre or a square next to it
    /// (the union of `reach_codes` over the offsets of [`AROUND`]), so that
    /// the king's one-step moves are tested against those men alone.
    pub reach_around: Vec<CodeMask>,
    /// Attack tests walk from the attackers (see `attacks::attacked_among`)
    /// rather than from the target (see `index_by_offset` for when).
    pub from_men: bool,
}

/// One way a man can attack a target, seen from the man: the target lies
/// `steps` steps of `step` ahead of the man (for a special ray: of the
/// ray's base, `start` ahead of the man), the squares between are empty,
/// and the man's cell code is in `mask`.
#[derive(Clone, Copy, Debug)]
pub struct ManAttack {
    pub mask: CodeMask,
    pub step: i16,
    pub steps: u8,
    /// The special ray, whose start, prelude and initial rule apply too;
    /// [`ManAttack::PLAIN`] for a leap or plain slide.
    pub special: u16,
}

impl ManAttack {
    pub const PLAIN: u16 = u16::MAX;
}

impl AttackTable {
    /// Whether the man with cell code `code` on `from` has an attack entry
    /// toward `target` (its path not looked at; see [`ManAttack`]).
    #[inline(always)]
    pub fn may_attack(&self, from: usize, target: usize, code: u8) -> bool {
        let o = (target as isize - from as isize + PIN_OFFSET) as usize;
        (self.reach_codes[o] >> code) & 1 != 0
    }

    /// Whether the man with cell code `code` on `from` may attack `centre`
    /// or a square next to it (see `reach_around`).
    #[inline(always)]
    pub fn may_attack_around(&self, from: usize, centre: usize, code: u8) -> bool {
        let o = (centre as isize - from as isize + PIN_OFFSET) as usize;
        (self.reach_around[o] >> code) & 1 != 0
    }

    /// The entries along which a man on `from` may attack `target`.
    #[inline(always)]
    pub fn entries_toward(&self, from: usize, target: usize) -> &[ManAttack] {
        let o = (target as isize - from as isize + PIN_OFFSET) as usize;
        &self.man_attacks[self.by_offset[o] as usize..self.by_offset[o + 1] as usize]
    }

    /// Offsets (square minus king) of every square on an attack path toward
    /// a king, as a table indexed by offset + [`PIN_OFFSET`].
    pub fn pin_lines(&self) -> Vec<bool> {
        let mut t = vec![false; 2 * BOARD_CELLS];
        let mut mark = |off: isize| {
            let i = off + PIN_OFFSET;
            if (0..t.len() as isize).contains(&i) {
                t[i as usize] = true;
            }
        };
        for sl in &self.slides {
            for k in 1..=sl.len as isize {
                mark(-k * sl.step as isize);
            }
        }
        for r in &self.special {
            for k in 1..=r.masks.len() as isize {
                let base = -k * r.step as isize;
                mark(base);
                for &p in &r.prelude {
                    mark(base - r.start as isize + p as isize);
                }
            }
        }
        t
    }

    /// For each offset (square minus king, plus [`PIN_OFFSET`]), the attack
    /// entries whose verdict can change when that square changes: bit `i`
    /// names the `i`th of the leaps, then the slides, then the special rays.
    /// Empty when there are more than 64 entries (then every check test scans
    /// the whole table).
    pub fn check_map(&self) -> Vec<u64> {
        let entries = self.leaps.len() + self.slides.len() + self.special.len();
        if entries > 64 {
            return Vec::new();
        }
        let mut t = vec![0u64; 2 * BOARD_CELLS];
        let mut mark = |off: isize, bit: usize| {
            let i = off + PIN_OFFSET;
            if (0..t.len() as isize).contains(&i) {
                t[i as usize] |= 1 << bit;
            }
        };
        let mut bit = 0;
        for &(d, _) in &self.leaps {
            mark(-(d as isize), bit);
            bit += 1;
        }
        for sl in &self.slides {
            for k in 1..=sl.len as isize {
                mark(-k * sl.step as isize, bit);
            }
            bit += 1;
        }
        for r in &self.special {
            for k in 1..=r.masks.len() as isize {
                let base = -k * r.step as isize;
                let cand = base - r.start as isize;
                mark(base, bit);
                mark(cand, bit);
                for &p in &r.prelude {
                    mark(cand + p as isize, bit);
                }
            }
            bit += 1;
        }
        t
    }

    pub fn from_rays(rays: Vec<AttackRay>) -> AttackTable {
        let mut t = AttackTable::default();
        for r in rays {
            let plain = r.prelude.is_empty() && r.start == 0 && !r.initial;
            if plain && r.masks.len() == 1 {
                t.leaps.push((r.step, r.masks[0]));
            } else if plain && r.masks.len() >= 2 && r.masks[1..].iter().all(|&m| m == r.masks[1]) {
                t.slides.push(Slide {
                    step: r.step,
                    near: r.masks[0],
                    far: r.masks[1],
                    len: r.masks.len() as u8,
                });
            } else {
                t.special.push(r);
            }
        }
        t.index_by_offset();
        t
    }

    /// Fill `by_offset`, `man_attacks`, `reach_codes` and `from_men` from the
    /// leaps, slides and special rays.
    fn index_by_offset(&mut self) {
        let mut by_offset: Vec<Vec<ManAttack>> = vec![Vec::new(); 2 * BOARD_CELLS];
        let mut add = |o: isize, a: ManAttack| {
            let i = o + PIN_OFFSET;
            if a.mask != 0 && (0..by_offset.len() as isize).contains(&i) {
                by_offset[i as usize].push(a);
            }
        };
        let entry = |mask, step, steps, special| ManAttack {
            mask,
            step,
            steps,
            special,
        };
        for &(step, mask) in &self.leaps {
            add(step as isize, entry(mask, step, 1, ManAttack::PLAIN));
        }
        for sl in &self.slides {
            for k in 1..=sl.len {
                let mask = if k == 1 { sl.near } else { sl.far };
                let a = entry(mask, sl.step, k, ManAttack::PLAIN);
                add(k as isize * sl.step as isize, a);
            }
        }
        for (i, r) in self.special.iter().enumerate() {
            for (k, &mask) in r.masks.iter().enumerate() {
                let steps = k as u8 + 1;
                let a = entry(mask, r.step, steps, i as u16);
                add(steps as isize * r.step as isize + r.start as isize, a);
            }
        }
        self.by_offset = Vec::with_capacity(by_offset.len() + 1);
        for entries in &by_offset {
            self.by_offset.push(self.man_attacks.len() as u32);
            self.man_attacks.extend_from_slice(entries);
        }
        self.by_offset.push(self.man_attacks.len() as u32);
        self.reach_codes = by_offset
            .iter()
            .map(|entries| entries.iter().fold(0, |m, a| m | a.mask))
            .collect();
        let codes_at = |o: isize| {
            usize::try_from(o)
                .ok()
                .and_then(|i| self.reach_codes.get(i))
                .copied()
                .unwrap_or(0)
        };
        self.reach_around = (0..self.reach_codes.len() as isize)
            .map(|o| AROUND.iter().fold(0, |m, &k| m | codes_at(o + k)))
            .collect();
        // From the target a test looks at every leap and walks every slide
        // and special ray; from the men it looks at each man once, and
        // walks only the paths of those that can reach the target. The
        // special rays (bent and lame paths, each walked up to its length)
        // make the walks from the target the dearer; with leaps and slides
        // alone, walking from the men cost more in every variant measured
        // (callgrind on the bench: chess, Combination, Compound).
        self.from_men = !self.special.is_empty();
    }
}

/// Everything known about one piece type (or stack type).
#[derive(Clone, Debug)]
pub struct PieceInfo {
    /// Lower-case letter (Black's; White's is upper case).
    pub letter: char,
    /// The Betza string (for stacks, the members' strings joined).
    pub betza: String,
    /// Stack members as a bit set over piece types; a single man has its own bit.
    pub members: u64,
    pub royal: bool,
    pub stackable: bool,
    /// Rules for White and Black.
    pub rules: [Vec<Rule>; 2],
    /// Two rules can reach the same square: moves must be de-duplicated.
    pub dedup: bool,
    /// De-duplicated, and every rule a leap or slide that moves and
    /// captures from the man's own square (no prelude, offset start,
    /// initial region, en passant or double step): the de-duplicating walk
    /// takes a tight loop.
    pub plain_dedup: bool,
    /// The rules again, sorted for speed (per colour).
    pub fast: [FastRules; 2],
    /// Only plain leaps and slides, no promotion, stacking or de-duplication:
    /// the move generator's fastest path applies.
    pub plain: bool,
    /// No stacking, de-duplication or special rules: the pawn-like path applies.
    pub stepper: bool,
    /// Proper non-empty parts of a stack that may move alone.
    pub parts: Vec<PieceType>,
    /// Per colour, indexed by destination minus origin plus [`PIN_OFFSET`]:
    /// whether one move can cover that offset (see `derive::reach`).
    pub reach: [Vec<bool>; 2],
}

/// A castling move available to one side.
#[derive(Clone, Debug)]
pub struct CastlingRule {
    pub color: Color,
    pub bit: u8,
    pub king_from: Square,
    pub king_to: Square,
    pub rook_from: Square,
    pub rook_to: Square,
    /// Squares that must be empty (besides the king's and rook's own).
    pub empty: Vec<Square>,
    /// Squares the king passes over: none may be attacked.
    pub king_path: Vec<Square>,
    /// Kingside (towards the last file) or queenside.
    pub kingside: bool,
}

/// Rules that decide whether a side can still force mate.
#[derive(Clone, Debug, Default)]
pub struct MatingRules {
    /// Types that give mating potential on their own.
    pub solo: u64,
    /// Pairs of types that are not a mating team.
    pub pair_exceptions: Vec<(PieceType, PieceType)>,
    /// Types confined to squares of one colour.
    pub color_bound: u64,
}

/// When a position is dead (the game is drawn at once).
#[derive(Clone, Debug, Default)]
pub enum DeadRule {
    /// When neither side has mating potential (see [`MatingRules`]).
    #[default]
    NoMatingPotential,
    /// When the men on the board, kings included, are one of `sets` (one
    /// side's men and the other's, each sorted by type, either way round),
    /// or, with `color_bound`, when every man but the kings is of a
    /// colour-bound type and all of them stand on squares of one colour.
    Material {
        sets: Vec<(Vec<PieceType>, Vec<PieceType>)>,
        color_bound: bool,
    },
}

/// XBoard presentation of the variant.
#[derive(Clone, Debug, Default)]
pub struct XboardInfo {
    pub name: String,
    pub parent: String,
    pub piece_table: String,
}

/// Zobrist keys of a variant, from a fixed seed.
#[derive(Clone, Debug)]
pub struct Zobrist {
    /// Indexed by `cell code * BOARD_CELLS + square`.
    pub pieces: Vec<u64>,
    pub side: u64,
    pub castling: [u64; 16],
    pub en_passant: Vec<u64>,
}

/// A compiled variant. Immutable; shared between positions with `Arc`.
#[derive(Clone, Debug)]
pub struct Variant {
    pub name: String,
    pub files: usize,
    pub ranks: usize,
    pub start_fen: String,
    pub pieces: Vec<PieceInfo>,
    pub king: PieceType,
    /// The most men one square may hold (1: no stacking).
    pub stack_max: u8,
    /// `merge[a * n + b]`: the type formed when part `a` moves onto friendly `b`.
    merge: Vec<Option<PieceType>>,
    /// `remnant[a * n + b]`: the type left behind when part `b` leaves `a`
    /// (see [`Variant::remnant`]).
    remnant: Vec<Option<PieceType>>,
    pub promotion_pawns: u64,
    pub promotion_types: Vec<PieceType>,
    pub pair_promotion_types: Vec<PieceType>,
    pub mandatory_promotion: bool,
    pub promotion_region: [SquareSet; 2],
    /// Squares from which a man of a pawn type may promote with one move
    /// (capture generation takes a shorter path elsewhere).
    pub promotion_near: [SquareSet; 2],
    pub initial_region: [SquareSet; 2],
    pub castling: Vec<CastlingRule>,
    /// Types whose presence on the corner keeps a castling right; castling
    /// itself needs exactly one of these types alone on the corner.
    pub castling_pieces: u64,
    /// Castling bits touched by a move from or capture on each square.
    pub castle_mask: Vec<u8>,
    pub n_move_rule: u32,
    pub n_move_types: u64,
    pub n_fold_rule: u32,
    /// Score of the side to move when stalemated: 0 draw, 1 win, -1 loss.
    pub stalemate_value: i8,
    pub quiet_attackers: u64,
    pub mating: MatingRules,
    pub dead: DeadRule,
    pub xboard: XboardInfo,
    /// Attack rays per attacking colour.
    pub attacks: [AttackTable; 2],
    /// Per attacking colour: whether a square at `offset - PIN_OFFSET` from a
    /// king lies on some attack path toward it (a man there may be pinned).
    pub pin_lines: [Vec<bool>; 2],
    /// Per attacking colour: [`AttackTable::check_map`].
    pub check_map: [Vec<u64>; 2],
    /// Attack rays per attacking colour of the men that capture: `attacks`
    /// without the rays of `quiet_attackers` (for static exchange evaluation).
    pub capture_attacks: [AttackTable; 2],
    /// Per attacking colour: [`AttackTable::check_map`] of `capture_attacks`.
    pub capture_map: [Vec<u64>; 2],
    /// `capture_attacks` of both colours as one table, where both are
    /// leaps and plain slides looked at from the target (see
    /// [`BothSides`]).
    pub capture_both: Option<BothSides>,
    /// Per moving colour: cell codes a plain move may land on (empty or enemy).
    pub landing: [CodeMask; 2],
    /// En-passant capture rays per capturing colour.
    pub ep_rays: [Vec<AttackRay>; 2],
    pub zobrist: Zobrist,
    /// What each man adds to the board's incremental sums: zeros, until
    /// the evaluation installs its table (see [`SumTable`]).
    pub sums: SumTable,
    /// The ini's `pieceValues` by type, 0 where none was given.
    pub piece_values: Vec<i32>,
    /// The parameter file the ini's `evalParams` names, read but not
    /// parsed (the evaluation does that).
    pub eval_params: Option<ParamsFile>,
    /// The network file the ini's `nnue` names: its name only (the
    /// evaluation finds, reads and checks the net).
    pub nnue: Option<NetFileName>,
    /// Real squares of the board.
    pub squares: Vec<Square>,
    pub on_board: SquareSet,
}

impl Variant {
    pub fn piece(&self, t: PieceType) -> &PieceInfo {
        &self.pieces[t.index()]
    }

    /// The type formed by moving part `part` onto a friendly `target`, if allowed.
    #[inline]
    pub fn merge(&self, part: PieceType, target: PieceType) -> Option<PieceType> {
        self.merge[part.index() * self.pieces.len() + target.index()]
    }

    /// The stack left behind when `part` leaves `stack` (None when nothing stays).
    #[inline]
    pub fn remnant(&self, stack: PieceType, part: PieceType) -> Option<PieceType> {
        // The whole man moving, by far the most common case, needs no look-up.
        if stack == part {
            return None;
        }
        self.remnant[stack.index() * self.pieces.len() + part.index()]
    }

    /// Piece type from its letter (either case).
    pub fn type_of_letter(&self, c: char) -> Option<PieceType> {
        let l = c.to_ascii_lowercase();
        self.pieces
            .iter()
            .position(|p| p.letter == l)
            .map(|i| PieceType(i as u8))
    }

    pub fn letter(&self, t: PieceType, color: Color) -> char {
        let l = self.pieces[t.index()].letter;
        match color {
            Color::White => l.to_ascii_uppercase(),
            Color::Black => l,
        }
    }

    /// Square from file and rank when on this board.
    pub fn square(&self, file: usize, rank: usize) -> Option<Square> {
        (file < self.files && rank < self.ranks).then(|| Square::new(file, rank))
    }

    pub fn is_stacking(&self) -> bool {
        self.stack_max > 1
    }

    pub fn has_pair_promotion(&self) -> bool {
        !self.pair_promotion_types.is_empty()
    }

    /// The same variant without its pair promotion: pawns promote only to
    /// the single pieces of `promotionPieceTypes`.
    pub fn without_pair_promotion(&self) -> Variant {
        Variant {
            pair_promotion_types: Vec::new(),
            ..self.clone()
        }
    }

    /// Name of a square, e.g. `e4` or `j10`.
    pub fn square_name(&self, sq: Square) -> String {
        format!(
            "{}{}",
            crate::rules::types::file_char(sq.file()),
            sq.rank() + 1
        )
    }

    /// Parse a square name on this board.
    pub fn parse_square(&self, s: &str) -> Option<Square> {
        let mut chars = s.chars();
        let f = chars.next()?;
        if !f.is_ascii_lowercase() {
            return None;
        }
        let rank_str = chars.as_str();
        if rank_str.is_empty()
            || rank_str.len() > 2
            || !rank_str.chars().all(|c| c.is_ascii_digit())
        {
            return None;
        }
        let rank: usize = rank_str.parse().ok()?;
        if rank == 0 || rank_str.starts_with('0') {
            return None;
        }
        self.square(f as usize - 'a' as usize, rank - 1)
    }

    /// Colour of a square (for colour-bound men): 0 dark, 1 light.
    pub fn square_shade(&self, sq: Square) -> usize {
        (sq.file() + sq.rank()) & 1
    }

    /// Delta of a board vector.
    pub fn delta(dx: i32, dy: i32) -> i16 {
        (dy * BOARD_WIDTH as i32 + dx) as i16
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::variant_set::VariantSet;

    /// The merged capture table of both colours holds every leap and slide
    /// of each colour's table (each code at its offset or on its step,
    /// with the same length) and nothing else; it is built for the
    /// variants whose tables allow it (the exchange evaluation's tests
    /// against a brute-force exchange then run through it) and not for
    /// Team-Mate, whose bent and lame attackers are walked from the men.
    #[test]
    fn both_sides_capture_table_is_the_union_of_the_two() {
        for (name, merged) in [
            ("chess", true),
            ("combination", true),
            ("compound", true),
            ("team-mate", false),
        ] {
            let v = VariantSet::builtin().compile(name).expect("variant");
            let Some(both) = &v.capture_both else {
                assert!(!merged, "{name}: no merged table");
                continue;
            };
            assert!(merged, "{name}: a merged table");
            let leap_codes = |step: i16, t: &[(i16, CodeMask)]| {
                t.iter()
                    .filter(|&&(s, _)| s == step)
                    .fold(0, |m, &(_, mask)| m | mask)
            };
            let [w, b] = &v.capture_attacks;
            for &(step, mask) in &both.leaps {
                assert_eq!(
                    mask,
                    leap_codes(step, &w.leaps) | leap_codes(step, &b.leaps)
                );
            }
            for &(step, mask) in w.leaps.iter().chain(&b.leaps) {
                assert_eq!(
                    leap_codes(step, &both.leaps) & mask,
                    mask,
                    "{name}: leap {step}"
                );
            }
            for sl in w.slides.iter().chain(&b.slides) {
                let m = both.slides.iter().find(|x| x.step == sl.step);
                let m = m.unwrap_or_else(|| panic!("{name}: slide {}", sl.step));
                assert_eq!(m.len, sl.len);
                assert_eq!((m.near & sl.near, m.far & sl.far), (sl.near, sl.far));
            }
            for m in &both.slides {
                let codes = |t: &AttackTable| {
                    t.slides
                        .iter()
                        .filter(|x| x.step == m.step)
                        .fold((0, 0), |(n, f), x| (n | x.near, f | x.far))
                };
                let (wn, wf) = codes(w);
                let (bn, bf) = codes(b);
                assert_eq!(
                    (m.near, m.far),
                    (wn | bn, wf | bf),
                    "{name}: slide {}",
                    m.step
                );
            }
        }
    }

    /// The header of the shipped ini file documents every key.
    #[test]
    fn ini_header_documents_every_key() {
        let header: String = BUILTIN_INI
            .lines()
            .take_while(|l| l.starts_with('#') || l.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        for (key, ..) in KEYS {
            assert!(
                header.contains(&format!("# {key} ")),
                "key {key} is not documented in variants.ini"
            );
        }
    }
}
