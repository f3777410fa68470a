//! Check and evasions: what threatens the king (checks, the squares that
//! would stop them, pinned men), found walking back from the king or out
//! from the attacking men, and the legal moves of a side in check.

use super::walker::man_moves;
use crate::rules::attacks::{
    Cells, KingTest, at, attacked_after, attacked_from_men, in_mask, safe_after,
};
use crate::rules::board::position::{MAX_MEN, Position};
use crate::rules::types::{BOARD_WIDTH, Color, MAX_FILES, MoveKind, MoveList};
use crate::rules::variant::{SquareSet, Variant};

/// Squares of one side's men, as in its piece list.
pub(super) type Men = arrayvec::ArrayVec<u8, MAX_MEN>;

/// Whether `a` is `b` or a square next to it (one of the offsets of
/// [`crate::rules::variant::AROUND`]): with `BOARD_WIDTH` 16, `a - b + 17` is
/// `16 * (ranks + 1) + (files + 1)`, in 0..=34 with a remainder by 16 of at
/// most 2 exactly when both lie in -1..=1 (boards are at most 12 files wide).
#[inline(always)]
pub(super) fn next_to(a: usize, b: usize) -> bool {
    const _: () = assert!(BOARD_WIDTH == 16 && MAX_FILES <= 14);
    let d = a.wrapping_sub(b).wrapping_add(17);
    d <= 34 && d & 15 <= 2
}

/// The men of `men` that may attack `centre` or a square next to it (see
/// [`crate::rules::variant::AttackTable::reach_around`]). The king's one-step
/// moves are tested from these men alone ([`attacked_from_men`]), with the
/// same answers as [`attacked`]: usually a few men rather than all, looked
/// up once for all the king's moves, against a walk from each target.
pub(super) fn men_around(cells: &Cells, v: &Variant, by: Color, centre: usize, men: &[u8]) -> Men {
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
pub(super) struct KingDanger {
    pub(super) checks: u32,
    pub(super) block: SquareSet,
    pub(super) pinned: SquareSet,
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
pub(super) fn king_danger_from_men(
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

pub(super) fn king_danger(cells: &Cells, v: &Variant, king: usize, us: Color) -> KingDanger {
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
pub(super) fn evasions(pos: &mut Position, out: &mut MoveList, d: &KingDanger) {
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
