//! Legal move generation and square attacks on the padded mailbox.
//!
//! Moves are generated pseudo-legally from each man's compiled rules, then
//! filtered: a move needs an explicit test (the board changed in place, the
//! king's square scanned, the board restored) only when the side is in check,
//! the king moves, the move is castling or en passant, or the origin square
//! is a possible pin and is left empty. Every other move is legal as it stands:
//! emptying a square that is not on any attack path toward the king, or
//! filling a square, cannot expose the king.

use crate::rules::attacks::{
    Cells, KingTest, at, attacked, attacked_after, attacked_among, attacked_from_men, in_mask,
    safe_after,
};
use crate::rules::board::position::{MAX_MEN, Position, king_safe_after};
use crate::rules::types::{
    BOARD_WIDTH, Cell, Color, MAX_FILES, Move, MoveKind, MoveList, PieceType, Square,
};
use crate::rules::variant::{CodeMask, Rule, SquareSet, Variant};

/// Squares of one side's men, as in its piece list.
type Men = arrayvec::ArrayVec<u8, MAX_MEN>;

/// Whether `a` is `b` or a square next to it (one of the offsets of
/// [`crate::rules::variant::AROUND`]): with `BOARD_WIDTH` 16, `a - b + 17` is
/// `16 * (ranks + 1) + (files + 1)`, in 0..=34 with a remainder by 16 of at
/// most 2 exactly when both lie in -1..=1 (boards are at most 12 files wide).
#[inline(always)]
fn next_to(a: usize, b: usize) -> bool {
    const _: () = assert!(BOARD_WIDTH == 16 && MAX_FILES <= 14);
    let d = a.wrapping_sub(b).wrapping_add(17);
    d <= 34 && d & 15 <= 2
}

/// The men of `men` that may attack `centre` or a square next to it (see
/// [`crate::rules::variant::AttackTable::reach_around`]). The king's one-step
/// moves are tested from these men alone ([`attacked_from_men`]), with the
/// same answers as [`attacked`]: usually a few men rather than all, looked
/// up once for all the king's moves, against a walk from each target.
fn men_around(cells: &Cells, v: &Variant, by: Color, centre: usize, men: &[u8]) -> Men {
    let t = &v.attacks[by.index()];
    let mut near = Men::new();
    for &from in men {
        if t.may_attack_around(from as usize, centre, cells[from as usize].0) {
            let _ = near.try_push(from);
        }
    }
    near
}

/// What threatens a king: the number of checks (one man can check in two
/// ways at once), the squares where a man would stop every check (the
/// intersection of each check's checker square and path), and the pinned
/// squares (the only man between the king and an attacker, on a path that
/// must be empty for the attack).
#[derive(Debug, Default, PartialEq)]
struct KingDanger {
    checks: u32,
    block: SquareSet,
    pinned: SquareSet,
}

impl KingDanger {
    fn add_check(&mut self, squares: &SquareSet) {
        if self.checks == 0 {
            self.block = *squares;
        } else {
            self.block.intersect(squares);
        }
        self.checks += 1;
    }
}

/// [`king_danger`] from the attackers' side (see
/// [`crate::rules::variant::AttackTable::from_men`]): `men` holds the squares of
/// the opponent's men. Each man that can reach the king looks at its own
/// path: no man on it gives check, one of ours is pinned.
#[inline(never)]
fn king_danger_from_men(
    cells: &Cells,
    v: &Variant,
    king: usize,
    us: Color,
    men: &[u8],
) -> KingDanger {
    let them = us.flip();
    let t = &v.attacks[them.index()];
    let s = king as isize;
    let mut d = KingDanger::default();
    for &from in men {
        let c = cells[from as usize];
        if !t.may_attack(from as usize, king, c.0) {
            continue;
        }
        let f = from as isize;
        for a in t.entries_toward(from as usize, king) {
            if !in_mask(a.mask, c) {
                continue;
            }
            let step = a.step as isize;
            let ray = t.special.get(a.special as usize);
            if let Some(r) = ray
                && (at(cells, f + r.start as isize).is_offboard()
                    || r.initial && !v.initial_region[them.index()].contains(from as usize))
            {
                continue;
            }
            // Our men between (one at most can be pinned); an enemy man
            // or the edge blocks.
            let path = (1..a.steps as isize).map(|j| s - j * step);
            let prelude = ray
                .into_iter()
                .flat_map(|r| r.prelude.iter().map(|&p| f + p as isize));
            let mut ours = 0;
            let mut pin = 0;
            let mut blocked = false;
            for q in path.chain(prelude) {
                let pc = at(cells, q);
                if pc.is_color(us) {
                    ours += 1;
                    pin = q as usize;
                } else if !pc.is_empty() {
                    blocked = true;
                    break;
                }
            }
            match (blocked, ours) {
                (false, 0) => {
                    // The man, its prelude and the squares up to its base.
                    let mut set = SquareSet::default();
                    set.insert(from as usize);
                    for &p in ray.map_or(&[][..], |r| &r.prelude[..]) {
                        set.insert((f + p as isize) as usize);
                    }
                    for j in 1..=a.steps as isize {
                        set.insert((s - j * step) as usize);
                    }
                    d.add_check(&set);
                }
                (false, 1) => d.pinned.insert(pin),
                _ => {}
            }
        }
    }
    d
}

fn king_danger(cells: &Cells, v: &Variant, king: usize, us: Color) -> KingDanger {
    let them = us.flip();
    let t = &v.attacks[them.index()];
    let s = king as isize;
    let mut d = KingDanger::default();
    for &(step, mask) in &t.leaps {
        let q = s - step as isize;
        if in_mask(mask, at(cells, q)) {
            let mut set = SquareSet::default();
            set.insert(q as usize);
            d.add_check(&set);
        }
    }
    for sl in &t.slides {
        let step = sl.step as isize;
        let mut q = s;
        let mut k = 0u8;
        let mut blocker = 0usize;
        loop {
            q -= step;
            k += 1;
            let c = at(cells, q);
            if c.is_empty() {
                continue;
            }
            let mask = if k == 1 { sl.near } else { sl.far };
            if k <= sl.len && in_mask(mask, c) {
                if blocker == 0 {
                    let mut set = SquareSet::default();
                    for j in 1..=k as isize {
                        set.insert((s - j * step) as usize);
                    }
                    d.add_check(&set);
                } else {
                    d.pinned.insert(blocker);
                }
                break;
            }
            if blocker == 0 && c.is_color(us) {
                blocker = q as usize;
                continue;
            }
            break;
        }
    }
    for ray in &t.special {
        let step = ray.step as isize;
        let mut base = s;
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
            if in_mask(mask, c) && (!ray.initial || v.initial_region[them.index()].contains(cand)) {
                let mut count = usize::from(blocker.is_some());
                let mut pin = blocker;
                let mut blocked = false;
                for &p in &ray.prelude {
                    let sq = (cand as isize + p as isize) as usize;
                    let pc = cells[sq];
                    if pc.is_color(us) {
                        count += 1;
                        pin = Some(sq);
                    } else if !pc.is_empty() {
                        blocked = true;
                    }
                }
                if !blocked {
                    match (count, pin) {
                        (0, _) => {
                            let mut set = SquareSet::default();
                            set.insert(cand);
                            for &p in &ray.prelude {
                                set.insert((cand as isize + p as isize) as usize);
                            }
                            let mut q = s;
                            while q != base {
                                q -= step;
                                set.insert(q as usize);
                            }
                            d.add_check(&set);
                        }
                        (1, Some(sq)) => d.pinned.insert(sq),
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
    d
}

/// Legal moves when in check: the king's moves, and the moves that land on
/// a square stopping every check (or capture en passant), each tested.
fn evasions(pos: &mut Position, out: &mut MoveList, d: &KingDanger) {
    let us = pos.side;
    let them = us.flip();
    let king = pos.b.kings[us.index()] as usize;
    // The squares that stop every check (one man may check in two ways, so
    // even a double check can leave one); a man none of which lies within its
    // reach (on an empty board) has no evasion, unless en passant removes
    // the checker.
    let mut blocks: arrayvec::ArrayVec<isize, 32> = arrayvec::ArrayVec::new();
    let mut all_blocks = true;
    for (w, &word) in d.block.0.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            all_blocks &= blocks
                .try_push((w * 64 + bits.trailing_zeros() as usize) as isize)
                .is_ok();
            bits &= bits - 1;
        }
    }
    let ep = pos.ep as usize;
    let v = &*pos.variant;
    for &sq in pos.b.lists[us.index()].squares.iter() {
        let from = sq as usize;
        if from != king && ep == 0 && all_blocks {
            let reach = &v.piece(pos.b.cells[from].kind()).reach[us.index()];
            let off = crate::rules::variant::PIN_OFFSET - from as isize;
            if !blocks.iter().any(|&b| reach[(b + off) as usize]) {
                continue;
            }
        }
        man_moves(&pos.b.cells, v, us, from, ep, out);
    }
    let mut keep = 0;
    let mut near: Option<Men> = None;
    for i in 0..out.len() {
        let m = out[i];
        let from = m.from().index();
        if from != king && !d.block.contains(m.to().index()) && m.kind() != MoveKind::EnPassant {
            continue;
        }
        let ch = pos.changes(m);
        let ksq = if from == king { m.to().index() } else { king };
        let men = &pos.b.lists[them.index()].squares;
        let safe = if from == king && next_to(ksq, king) {
            let near =
                near.get_or_insert_with(|| men_around(&pos.b.cells, &pos.variant, them, king, men));
            let v = &*pos.variant;
            !attacked_after(&mut pos.b.cells, &ch, |cells| {
                attacked_from_men(cells, v, ksq, them, near)
            })
        } else {
            // A man landing on a square that stops every check touches every
            // attack entry that gave check (each check's squares are among the
            // squares its entry passes through), so only the entries through
            // the changed squares can still attack the king, as out of check.
            let test = if from != king && m.kind() != MoveKind::EnPassant {
                KingTest::Through
            } else {
                KingTest::All(men)
            };
            safe_after(&mut pos.b.cells, &pos.variant, &ch, ksq, them, test)
        };
        if safe {
            out[keep] = m;
            keep += 1;
        }
    }
    out.truncate(keep);
}

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

/// Push a move to `to`, expanded into promotions when `promotes` and the
/// destination is in the promotion region.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn emit(
    out: &mut MoveList,
    v: &Variant,
    us: Color,
    from: usize,
    to: usize,
    part: PieceType,
    kind: MoveKind,
    promotes: bool,
) {
    let (f, t) = (Square(from as u8), Square(to as u8));
    if promotes && v.promotion_region[us.index()].contains(to) {
        for &p in &v.promotion_types {
            let _ = out.try_push(Move::new(f, t, part, p, MoveKind::Promotion));
        }
        for &p in &v.pair_promotion_types {
            let _ = out.try_push(Move::new(f, t, part, p, MoveKind::PairPromotion));
        }
        if !v.mandatory_promotion {
            let _ = out.try_push(Move::new(f, t, part, part, kind));
        }
        return;
    }
    let _ = out.try_push(Move::new(f, t, part, part, kind));
}

/// Where a part may land and what happens there.
struct PartCtx<'a> {
    cells: &'a Cells,
    v: &'a Variant,
    us: Color,
    from: usize,
    part: PieceType,
    /// The whole stack moves (only then may it capture).
    whole: bool,
    promotes: bool,
    stackable: bool,
    ep: usize,
    /// Only the moves that [`captures_of`] keeps are wanted: the walk may
    /// leave out quiet moves that cannot promote and merges (it still
    /// yields some moves that are not kept; the caller filters).
    captures_only: bool,
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
    if quiet && !fast.double_steps.is_empty() && v.initial_region[us.index()].contains(from) {
        for &(skip, d) in &fast.double_steps {
            let to = s + d as isize;
            if at(cells, s + skip as isize).is_empty() && at(cells, to).is_empty() {
                emit(
                    out,
                    v,
                    us,
                    from,
                    to as usize,
                    part,
                    MoveKind::DoubleStep,
                    cx.promotes,
                );
            }
        }
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
fn plain_dedup_moves(
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
fn special_moves(cx: &PartCtx, rules: &[Rule], dedup: bool, out: &mut MoveList) {
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

/// Where generated moves go: a move list, or a counter for perft's bulk
/// counting at the last ply (the same generator code serves both).
pub(crate) trait MoveSink {
    fn push(&mut self, m: Move);
    /// Push `m` when `cond` holds (a counter adds without branching).
    fn push_if(&mut self, cond: bool, m: Move);
    /// All promotions of a move to `to`.
    fn promotions(
        &mut self,
        v: &Variant,
        us: Color,
        from: usize,
        to: usize,
        part: PieceType,
        kind: MoveKind,
    );
}

impl MoveSink for MoveList {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        let _ = self.try_push(m);
    }
    #[inline(always)]
    fn push_if(&mut self, cond: bool, m: Move) {
        if cond {
            let _ = self.try_push(m);
        }
    }
    #[inline(always)]
    fn promotions(
        &mut self,
        v: &Variant,
        us: Color,
        from: usize,
        to: usize,
        part: PieceType,
        kind: MoveKind,
    ) {
        emit(self, v, us, from, to, part, kind, true);
    }
}

/// Counts moves instead of storing them.
pub(crate) struct MoveCounter(pub usize);

impl MoveSink for MoveCounter {
    #[inline(always)]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }
    #[inline(always)]
    fn push_if(&mut self, cond: bool, _: Move) {
        self.0 += usize::from(cond);
    }
    #[inline(always)]
    fn promotions(&mut self, v: &Variant, _: Color, _: usize, _: usize, _: PieceType, _: MoveKind) {
        self.0 += v.promotion_types.len()
            + v.pair_promotion_types.len()
            + usize::from(!v.mandatory_promotion);
    }
}

/// Whether a move captures or promotes.
#[inline]
pub fn is_tactical(pos: &Position, m: Move) -> bool {
    matches!(
        m.kind(),
        MoveKind::EnPassant | MoveKind::Promotion | MoveKind::PairPromotion
    ) || pos.b.cells[m.to().index()].is_color(pos.side.flip())
}

/// Moves of a plain man: leaps and slides that move and capture.
#[inline(always)]
fn plain_moves<S: MoveSink>(
    cells: &Cells,
    fast: &crate::rules::variant::FastRules,
    landing: CodeMask,
    from: usize,
    t: PieceType,
    out: &mut S,
) {
    let base = Move::new(Square(from as u8), Square(0), t, t, MoveKind::Normal).0;
    let s = from as isize;
    for &d in &fast.leaps {
        let to = s + d as isize;
        out.push_if(
            in_mask(landing, at(cells, to)),
            Move(base | (to as u32) << 8),
        );
    }
    for &d in &fast.rides {
        let step = d as isize;
        let mut to = s + step;
        let mut c = at(cells, to);
        while c.is_empty() {
            out.push(Move(base | (to as u32) << 8));
            to += step;
            c = at(cells, to);
        }
        out.push_if(in_mask(landing, c), Move(base | (to as u32) << 8));
    }
}

/// Push a move of a man that may promote on arrival.
#[inline(always)]
fn push_promoting<S: MoveSink>(
    out: &mut S,
    v: &Variant,
    us: Color,
    promotes: bool,
    base: u32,
    to: usize,
    kind: MoveKind,
) {
    if promotes && v.promotion_region[us.index()].contains(to) {
        let m = Move(base);
        out.promotions(v, us, m.from().index(), to, m.part(), kind);
    } else {
        out.push(Move(base | (to as u32) << 8 | (kind as u32) << 28));
    }
}

/// Moves of a pawn-like man: move-only and capture-only leaps, initial
/// double steps, en passant, promotion, plain leaps and slides.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn stepper_moves<S: MoveSink, const PROMOTES: bool>(
    cells: &Cells,
    v: &Variant,
    fast: &crate::rules::variant::FastRules,
    us: Color,
    from: usize,
    t: PieceType,
    ep: usize,
    out: &mut S,
) {
    let base = Move::new(Square(from as u8), Square(0), t, t, MoveKind::Normal).0;
    let landing = v.landing[us.index()];
    let s = from as isize;
    for &d in &fast.quiet_leaps {
        let to = s + d as isize;
        if at(cells, to).is_empty() {
            push_promoting(out, v, us, PROMOTES, base, to as usize, MoveKind::Normal);
        }
    }
    if !fast.double_steps.is_empty() && v.initial_region[us.index()].contains(from) {
        for &(skip, d) in &fast.double_steps {
            let to = s + d as isize;
            if at(cells, s + skip as isize).is_empty() && at(cells, to).is_empty() {
                push_promoting(
                    out,
                    v,
                    us,
                    PROMOTES,
                    base,
                    to as usize,
                    MoveKind::DoubleStep,
                );
            }
        }
    }
    for &(d, ep_ok) in &fast.capture_leaps {
        let to = (s + d as isize) as usize;
        let c = cells[to];
        if c.is_piece() && in_mask(landing, c) {
            push_promoting(out, v, us, PROMOTES, base, to, MoveKind::Normal);
        } else if ep_ok && to == ep {
            out.push(Move::new(
                Square(from as u8),
                Square(to as u8),
                t,
                t,
                MoveKind::EnPassant,
            ));
        }
    }
    for &d in &fast.leaps {
        let to = s + d as isize;
        if in_mask(landing, at(cells, to)) {
            push_promoting(out, v, us, PROMOTES, base, to as usize, MoveKind::Normal);
        }
    }
    for &d in &fast.rides {
        let step = d as isize;
        let mut to = s + step;
        let mut c = at(cells, to);
        while c.is_empty() {
            push_promoting(out, v, us, PROMOTES, base, to as usize, MoveKind::Normal);
            to += step;
            c = at(cells, to);
        }
        if in_mask(landing, c) {
            push_promoting(out, v, us, PROMOTES, base, to as usize, MoveKind::Normal);
        }
    }
}

/// Moves of a plain or pawn-like man on `from`; false (and nothing
/// generated) for men that need the general walker.
#[inline(always)]
fn simple_man_moves<S: MoveSink>(
    cells: &Cells,
    v: &Variant,
    us: Color,
    from: usize,
    ep: usize,
    out: &mut S,
) -> bool {
    let t = cells[from].kind();
    let info = v.piece(t);
    if info.plain {
        plain_moves(
            cells,
            &info.fast[us.index()],
            v.landing[us.index()],
            from,
            t,
            out,
        );
        true
    } else if info.stepper {
        let fast = &info.fast[us.index()];
        // Only a pawn type near its promotion region needs the promotion
        // tests; the others take the lighter instance.
        if v.promotion_pawns & t.bit() != 0 && v.promotion_near[us.index()].contains(from) {
            stepper_moves::<S, true>(cells, v, fast, us, from, t, ep, out);
        } else {
            stepper_moves::<S, false>(cells, v, fast, us, from, t, ep, out);
        }
        true
    } else {
        false
    }
}

/// Captures and promotions of a plain or pawn-like man (false, and nothing
/// generated, for men that need the general walker).
#[inline]
fn simple_man_captures(
    cells: &Cells,
    v: &Variant,
    us: Color,
    from: usize,
    ep: usize,
    victims: CodeMask,
    out: &mut MoveList,
) -> bool {
    let t = cells[from].kind();
    let info = v.piece(t);
    if !info.plain && !info.stepper {
        return false;
    }
    // A pawn-type man that may promote with its next move needs the
    // promotion tests; every other man only captures (pawn types far from
    // promotion also take en passant, and never slide).
    if v.promotion_pawns & t.bit() != 0 && v.promotion_near[us.index()].contains(from) {
        pawn_captures(cells, v, us, from, t, ep, victims, out);
        return true;
    }
    // Without a victim worth taking, only en passant is left.
    if victims == 0 && ep == 0 {
        return true;
    }
    let fast = &info.fast[us.index()];
    let enemy = victims;
    let s = from as isize;
    let base = Move::new(Square(from as u8), Square(0), t, t, MoveKind::Normal).0;
    for &d in &fast.leaps {
        let to = (s + d as isize) as usize;
        if in_mask(enemy, cells[to]) {
            let _ = out.try_push(Move(base | (to as u32) << 8));
        }
    }
    for &(d, _) in &fast.capture_leaps {
        let to = (s + d as isize) as usize;
        if in_mask(enemy, cells[to]) {
            let _ = out.try_push(Move(base | (to as u32) << 8));
        }
    }
    if ep != 0 {
        push_en_passant(fast, from, t, ep, out);
    }
    for &d in &fast.rides {
        let step = d as isize;
        let mut to = s + step;
        while cells[to as usize].is_empty() {
            to += step;
        }
        if in_mask(enemy, cells[to as usize]) {
            let _ = out.try_push(Move(base | (to as u32) << 8));
        }
    }
    true
}

/// En-passant captures of the man on `from` onto `ep`.
#[inline]
fn push_en_passant(
    fast: &crate::rules::variant::FastRules,
    from: usize,
    t: PieceType,
    ep: usize,
    out: &mut MoveList,
) {
    for &(d, ep_ok) in &fast.capture_leaps {
        if ep_ok && (from as isize + d as isize) as usize == ep {
            let _ = out.try_push(Move::new(
                Square(from as u8),
                Square(ep as u8),
                t,
                t,
                MoveKind::EnPassant,
            ));
        }
    }
}

/// Captures and promotions of a man of a pawn type (see
/// [`simple_man_captures`]).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn pawn_captures(
    cells: &Cells,
    v: &Variant,
    us: Color,
    from: usize,
    t: PieceType,
    ep: usize,
    victims: CodeMask,
    out: &mut MoveList,
) {
    let fast = &v.piece(t).fast[us.index()];
    let enemy = v.landing[us.index()] & !1;
    let region = &v.promotion_region[us.index()];
    // A capture that promotes comes whatever the victim.
    let takes =
        |c: Cell, to: usize| in_mask(victims, c) || (in_mask(enemy, c) && region.contains(to));
    let s = from as isize;
    let push = |out: &mut MoveList, to: usize| {
        emit(out, v, us, from, to, t, MoveKind::Normal, true);
    };
    for &d in &fast.leaps {
        let to = (s + d as isize) as usize;
        let c = cells[to];
        if takes(c, to) || (c.is_empty() && region.contains(to)) {
            push(out, to);
        }
    }
    for &(d, _) in &fast.capture_leaps {
        let to = (s + d as isize) as usize;
        if takes(cells[to], to) {
            push(out, to);
        }
    }
    if ep != 0 {
        push_en_passant(fast, from, t, ep, out);
    }
    for &d in &fast.quiet_leaps {
        let to = (s + d as isize) as usize;
        if cells[to].is_empty() && region.contains(to) {
            push(out, to);
        }
    }
    for &d in &fast.rides {
        let step = d as isize;
        let mut to = s + step;
        while cells[to as usize].is_empty() {
            if region.contains(to as usize) {
                push(out, to as usize);
            }
            to += step;
        }
        if takes(cells[to as usize], to as usize) {
            push(out, to as usize);
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
fn man_captures(cells: &Cells, v: &Variant, us: Color, from: usize, ep: usize, out: &mut MoveList) {
    let t = cells[from].kind();
    part_moves::<true>(cells, v, us, from, t, true, ep, out);
    for &p in &v.piece(t).parts {
        if v.promotion_pawns & p.bit() != 0 {
            part_moves::<true>(cells, v, us, from, p, false, ep, out);
        }
    }
}

/// Castling moves of `us` whose preconditions hold on the board before the
/// move (the king is not in check, the squares it passes over are not
/// attacked); the landing square is judged by the legality test afterwards.
fn castling_moves(pos: &Position, us: Color, out: &mut MoveList) {
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
enum Mode<'a> {
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
fn collect_legal(pos: &mut Position, out: &mut MoveList, mut mode: Mode) -> bool {
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
    let us = pos.side;
    if m == Move::NONE || !pos.b.cells[m.from().index()].is_color(us) {
        return false;
    }
    let mut list = MoveList::new();
    if m.kind() == MoveKind::Castle {
        if in_check {
            return false;
        }
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
    list.contains(&m) && king_safe_after(pos, m, !in_check)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::attacks::attacked_plain;
    use crate::rules::variant::VariantSet;

    /// The tests from the men against those from the target, along random
    /// games: [`attacked_among`] against [`attacked`] on every square for
    /// both colours, also after the changes of each legal move are applied
    /// to the cells (the lists then stale, as in [`safe_after`]), and
    /// [`king_danger_from_men`] against [`king_danger`]. Returns how many
    /// attacks came from a special ray alone, how many positions were in
    /// check and how many had a pin, so that the caller can tell the tests
    /// were exercised.
    fn compare_attack_tests(name: &str, seed: u64) -> (usize, usize, usize) {
        let v = VariantSet::builtin()
            .compile(name)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let mut rng = crate::util::rng::Rng::new(seed);
        let mut special_only = 0;
        let mut checks = 0;
        let mut pins = 0;
        let mut list = MoveList::new();
        let mut compare = |cells: &Cells, men: [&[u8]; 2], what: &str| {
            for &sq in &v.squares {
                for by in [Color::White, Color::Black] {
                    let t = &v.attacks[by.index()];
                    let plain = attacked_plain(cells, t, sq.index() as isize);
                    let full = attacked(cells, &v, sq.index(), by);
                    let among = attacked_among(cells, &v, sq.index(), by, men[by.index()]);
                    assert_eq!(among, full, "{name} {what}: {sq:?} by {by:?}");
                    special_only += usize::from(full && !plain);
                }
            }
        };
        for _ in 0..40 {
            let mut pos = Position::startpos(v.clone());
            for _ in 0..(20 + rng.next_u64() % 120) {
                legal_moves(&mut pos, &mut list);
                if list.is_empty() {
                    break;
                }
                let men = [&pos.b.lists[0].squares[..], &pos.b.lists[1].squares[..]];
                compare(&pos.b.cells, men, "position");
                let us = pos.side;
                let king = pos.b.kings[us.index()] as usize;
                let danger = king_danger(&pos.b.cells, &v, king, us);
                assert_eq!(
                    king_danger_from_men(&pos.b.cells, &v, king, us, men[us.flip().index()]),
                    danger,
                    "{name}: king danger"
                );
                checks += usize::from(danger.checks > 0);
                pins += usize::from(danger.pinned != SquareSet::default());
                for &m in list.iter() {
                    let mut cells = pos.b.cells;
                    for (sq, c) in pos.changes(m) {
                        cells[sq as usize] = c;
                    }
                    // Only the opponent's list stays a superset of its men.
                    let mut men = men;
                    men[pos.side.index()] = &[];
                    let them = pos.side.flip();
                    for &sq in &v.squares {
                        let s = sq.index();
                        assert_eq!(
                            attacked_among(&cells, &v, s, them, men[them.index()]),
                            attacked(&cells, &v, s, them),
                            "{name} after {m:?}: {sq:?}"
                        );
                    }
                }
                let caps: Vec<Move> = list
                    .iter()
                    .copied()
                    .filter(|m| pos.b.cells[m.to().index()].is_color(pos.side.flip()))
                    .collect();
                let m = if !caps.is_empty() && rng.next_u64().is_multiple_of(3) {
                    caps[rng.next_u64() as usize % caps.len()]
                } else {
                    list[rng.next_u64() as usize % list.len()]
                };
                pos.make(m);
            }
        }
        (special_only, checks, pins)
    }

    #[test]
    fn attack_test_from_the_men_agrees_with_the_ray_scan() {
        for (name, seed) in [
            ("chess", 1),
            ("combination", 2),
            ("team-mate", 3),
            ("compound", 4),
        ] {
            let (special_only, checks, pins) = compare_attack_tests(name, seed);
            assert!(
                checks > 20 && pins > 20,
                "{name}: {checks} checks, {pins} pins"
            );
            if name == "team-mate" {
                // Bent sliders and the lame camel attack along special rays.
                assert!(special_only > 1000, "{name}: {special_only}");
            }
        }
    }

    /// The men that [`men_around`] keeps for a king attack each square next
    /// to it (the king moved there, capturing what stood there) exactly as
    /// all the men do, along random games in every variant, for both
    /// kings; and they are fewer than all in most positions.
    #[test]
    fn the_men_around_a_king_attack_its_next_squares_as_all_do() {
        for (name, seed) in [
            ("chess", 5),
            ("combination", 6),
            ("team-mate", 7),
            ("compound", 8),
        ] {
            let v = VariantSet::builtin()
                .compile(name)
                .unwrap_or_else(|e| panic!("{name}: {e:?}"));
            let mut rng = crate::util::rng::Rng::new(seed);
            let (mut attacked_squares, mut tests, mut fewer, mut positions) = (0, 0, 0, 0);
            for _ in 0..30 {
                random_game(Position::startpos(v.clone()), 100, &mut rng, |pos| {
                    positions += 1;
                    for us in Color::BOTH {
                        let them = us.flip();
                        let king = pos.b.kings[us.index()] as usize;
                        let men = &pos.b.lists[them.index()].squares;
                        let near = men_around(&pos.b.cells, &v, them, king, men);
                        fewer += usize::from(near.len() < men.len());
                        for &k in &crate::rules::variant::AROUND {
                            let to = (king as isize + k) as usize;
                            if pos.b.cells[to].is_offboard() || pos.b.cells[to].is_color(us) {
                                continue;
                            }
                            assert!(next_to(to, king));
                            let mut cells = pos.b.cells;
                            cells[king] = Cell::EMPTY;
                            cells[to] = pos.b.cells[king];
                            let all = attacked(&cells, &v, to, them);
                            assert_eq!(
                                attacked_from_men(&cells, &v, to, them, &near),
                                all,
                                "{name} {}: {them:?} on {to}",
                                pos.to_fen()
                            );
                            tests += 1;
                            attacked_squares += usize::from(all);
                        }
                    }
                });
            }
            assert!(
                attacked_squares > 300 && tests > 3 * attacked_squares / 2,
                "{name}: {attacked_squares} of {tests}"
            );
            assert!(
                fewer > positions,
                "{name}: {fewer} of {positions} (two kings each)"
            );
        }
    }

    /// `next_to` against files and ranks for every pair of squares of the
    /// largest board.
    #[test]
    fn next_to_is_one_file_and_one_rank() {
        let squares: Vec<usize> = (0..crate::rules::types::MAX_RANKS)
            .flat_map(|r| (0..MAX_FILES).map(move |f| (f, r)))
            .map(|(f, r)| {
                (r + crate::rules::types::RANK_PAD) * BOARD_WIDTH
                    + f
                    + crate::rules::types::FILE_PAD
            })
            .collect();
        let mut near = 0;
        for &a in &squares {
            for &b in &squares {
                let (fa, ra) = (a % BOARD_WIDTH, a / BOARD_WIDTH);
                let (fb, rb) = (b % BOARD_WIDTH, b / BOARD_WIDTH);
                let expected = fa.abs_diff(fb) <= 1 && ra.abs_diff(rb) <= 1;
                assert_eq!(next_to(a, b), expected, "{a} {b}");
                near += usize::from(expected);
            }
        }
        assert!(near > 500, "{near}");
    }

    /// Play a random game from `pos` of at most `moves` moves, each chosen
    /// uniformly among the legal ones, showing `visit` every position
    /// before its move (the game stops where no move is left).
    fn random_game(
        mut pos: Position,
        moves: u64,
        rng: &mut crate::util::rng::Rng,
        mut visit: impl FnMut(&Position),
    ) {
        let mut list = MoveList::new();
        for _ in 0..moves {
            legal_moves(&mut pos, &mut list);
            if list.is_empty() {
                break;
            }
            visit(&pos);
            let m = list[(rng.next_u64() % list.len() as u64) as usize];
            pos.make(m);
        }
    }

    /// What [`captures_of`] keeps of a man's moves (all enemy men victims).
    fn kept(pos: &Position, moves: &MoveList) -> Vec<Move> {
        let victims = pos.variant.landing[pos.side.index()] & !1;
        moves
            .iter()
            .copied()
            .filter(|m| {
                matches!(
                    m.kind(),
                    MoveKind::EnPassant | MoveKind::Promotion | MoveKind::PairPromotion
                ) || in_mask(victims, pos.b.cells[m.to().index()])
            })
            .collect()
    }

    /// [`man_captures`] against [`man_moves`] for every man of the side to
    /// move that the general walker moves, along random games from the
    /// start and from `fens` (men near promotion): the moves kept are the
    /// same, in the same order. Returns how many moves were kept and how
    /// many of them promote.
    fn compare_capture_walks(name: &str, fens: &[&str], seed: u64) -> (usize, usize) {
        let mut set = VariantSet::builtin();
        // A pawn type that slides forward (so that the general walker moves
        // it) and promotes, which no shipped variant has.
        let (_, errors) = set.load_str(
            "[sliding-pawns:chess]\ncustomPiece1 = x:mfRcfF\npromotionPawnTypes = px\n\
             startFen = 4k3/1X4X1/8/8/8/8/1x4x1/4K3 w - - 0 1\n",
            "test",
        );
        assert!(errors.is_empty(), "{errors:?}");
        let v = set
            .compile(name)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let mut rng = crate::util::rng::Rng::new(seed);
        let (mut captures, mut promotions) = (0, 0);
        for game in 0..60 {
            let (pos, plies) = match fens.get(game % 3) {
                Some(fen) if game % 3 < fens.len() => (
                    Position::from_fen(v.clone(), fen).unwrap_or_else(|e| panic!("{fen}: {e}")),
                    rng.next_u64() % 12,
                ),
                _ => (Position::startpos(v.clone()), 20 + rng.next_u64() % 200),
            };
            random_game(pos, plies + 1, &mut rng, |pos| {
                let us = pos.side;
                let ep = if pos.ep_in_hash { pos.ep as usize } else { 0 };
                for &from in &pos.b.lists[us.index()].squares {
                    let from = from as usize;
                    let info = v.piece(pos.b.cells[from].kind());
                    if info.plain || info.stepper {
                        continue;
                    }
                    let (mut full, mut walk) = (MoveList::new(), MoveList::new());
                    man_moves(&pos.b.cells, &v, us, from, ep, &mut full);
                    man_captures(&pos.b.cells, &v, us, from, ep, &mut walk);
                    let expected = kept(pos, &full);
                    assert_eq!(kept(pos, &walk), expected, "{name}: {}", pos.to_fen());
                    captures += expected.len();
                    promotions += expected
                        .iter()
                        .filter(|m| {
                            matches!(m.kind(), MoveKind::Promotion | MoveKind::PairPromotion)
                        })
                        .count();
                }
            });
        }
        (captures, promotions)
    }

    /// [`plain_dedup_moves`] against the general walker's de-duplicated walk
    /// ([`special_moves`]) for every such man of the side to move, along
    /// random Compound games (its queen also leaps two squares straight and
    /// diagonally, where its slides reach too): the same moves in the same
    /// order, and with only captures wanted, the same captures.
    #[test]
    fn plain_dedup_walk_is_the_general_walk() {
        let v = VariantSet::builtin()
            .compile("compound")
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert!(v.pieces.iter().any(|p| p.plain_dedup));
        let mut rng = crate::util::rng::Rng::new(9);
        let (mut compared, mut captures) = (0, 0);
        for _ in 0..40 {
            let moves = 10 + rng.next_u64() % 150;
            random_game(Position::startpos(v.clone()), moves, &mut rng, |pos| {
                let us = pos.side;
                for &from in &pos.b.lists[us.index()].squares {
                    let from = from as usize;
                    let part = pos.b.cells[from].kind();
                    let info = v.piece(part);
                    if !info.plain_dedup {
                        continue;
                    }
                    let rules = &info.rules[us.index()];
                    let cx = PartCtx {
                        cells: &pos.b.cells,
                        v: &v,
                        us,
                        from,
                        part,
                        whole: true,
                        promotes: false,
                        stackable: false,
                        ep: 0,
                        captures_only: false,
                    };
                    let (mut general, mut fast) = (MoveList::new(), MoveList::new());
                    special_moves(&cx, rules, true, &mut general);
                    let landing = v.landing[us.index()];
                    plain_dedup_moves(&pos.b.cells, landing, from, part, rules, false, &mut fast);
                    assert_eq!(fast, general, "{}", pos.to_fen());
                    let (mut general, mut fast) = (MoveList::new(), MoveList::new());
                    special_moves(
                        &PartCtx {
                            captures_only: true,
                            ..cx
                        },
                        rules,
                        true,
                        &mut general,
                    );
                    plain_dedup_moves(&pos.b.cells, landing, from, part, rules, true, &mut fast);
                    assert_eq!(fast, general, "{} (captures)", pos.to_fen());
                    compared += 1;
                    captures += fast.len();
                }
            });
        }
        assert!(compared > 1000 && captures > 100, "{compared} {captures}");
    }

    #[test]
    fn capture_walk_keeps_what_the_full_walk_keeps() {
        for (name, fens, seed) in [
            (
                "combination",
                &["1r1mk3/P1P5/8/8/8/D4c2/6p1/4K2R w K - 0 1"][..],
                5,
            ),
            (
                "team-mate",
                &[
                    "4k3/1P6/6B1/3b4/8/8/2p3P1/4K2C w K - 0 1",
                    "u3k2c/pppp1ppp/8/8/2J5/8/Pp1PPPPP/U3K2C b KQkq - 0 1",
                ][..],
                6,
            ),
            (
                "compound",
                &["2rk3d2/1S3S3S/10/10/3q6/10/3s3s2/2D2K2R1 w - - 0 1"][..],
                7,
            ),
            ("sliding-pawns", &[][..], 8),
        ] {
            let (captures, promotions) = compare_capture_walks(name, fens, seed);
            assert!(captures > 1000, "{name}: {captures} captures");
            // Only this pawn type promotes by the general walker.
            assert_eq!(
                promotions > 0,
                name == "sliding-pawns",
                "{name}: {promotions}"
            );
        }
    }

    #[test]
    fn start_position_move_counts() {
        let set = VariantSet::builtin();
        for (name, n) in [
            ("chess", 20),
            ("combination", 23),
            ("team-mate", 27),
            ("compound", 53),
        ] {
            let v = set
                .compile(name)
                .unwrap_or_else(|e| panic!("variant compiles: {e:?}"));
            let mut p = Position::startpos(v);
            let mut list = MoveList::new();
            legal_moves(&mut p, &mut list);
            assert_eq!(list.len(), n, "{name}");
        }
    }
}
