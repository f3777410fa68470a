//! Static exchange evaluation (SEE): the material a move wins or loses when
//! both sides then go on capturing on its destination square.
//!
//! The exchange: after the move, the sides capture on its destination in
//! turn, each with its cheapest man that can capture there (ties: the lowest
//! mailbox square), and each may stop instead. Values are the variant's
//! middlegame values ([`EvalTables::value`], a stack's value is the whole
//! stack's); royal men capture last and only onto a square the other side
//! does not attack at that moment (then the exchange ends). Pins are
//! ignored. Men that never capture (`quietAttackerTypes`) take no part,
//! but their attacks still keep a king off the square. A pawn-type man
//! capturing onto its promotion region becomes the most valuable promotion
//! type. Only the move itself can be en passant or a pair promotion (which
//! counts as the one promoted man).
//!
//! Attackers are found on a scratch copy of the cells by the reverse attack
//! rays of [`Variant::capture_attacks`]. When a man leaves its square, only
//! the rays through that square (its [`Variant::capture_map`] entry) are
//! scanned again, which brings in the men behind it (x-rays of sliders,
//! bent sliders, riders and lame leapers whose path cleared). Emptying a
//! square never ends another man's attack (no rule needs an occupied
//! square), so the attacker sets only grow, except by the men that capture.

use crate::engine::eval::EvalTables;
use crate::rules::attacks::{attacked, in_mask, man_attacks, scan_rays, slide_attacker};
use crate::rules::board::Position;
use crate::rules::board::position::MAX_MEN;
use crate::rules::types::{BOARD_CELLS, Cell, Color, Move, MoveKind, PieceType};
use crate::rules::variant::{CodeMask, PIN_OFFSET, Slide, SquareSet, Variant};

type Cells = [Cell; BOARD_CELLS];

/// Exchange value of a royal man: above any material, so that it captures
/// last. It is never lost in an exchange that starts with a legal move.
const ROYAL_VALUE: i32 = 1_000_000;

/// Captures in one exchange at most: each takes a man off the board.
const MAX_CAPTURES: usize = 2 * MAX_MEN;

/// Thresholds are clamped to this: every exchange value is far inside
/// (piece values are at most 100,000, a royal man counts `ROYAL_VALUE`,
/// and there are at most `MAX_CAPTURES` captures), so the balances of
/// [`see_ge`] never overflow.
const THRESHOLD_LIMIT: i32 = 1 << 30;

#[inline(always)]
fn value_of(v: &Variant, e: &EvalTables, t: PieceType) -> i32 {
    if v.piece(t).royal {
        ROYAL_VALUE
    } else {
        e.value[t.index()]
    }
}

/// What a pawn-type man of one colour becomes when it captures onto the
/// target.
#[derive(Clone, Copy)]
enum Promotion {
    /// The target is outside the colour's promotion region.
    None,
    /// It becomes this type (the most valuable promotion type), or may stay
    /// itself when `optional`.
    To { kind: PieceType, optional: bool },
    /// It may not land there (promotion is mandatory, no type to promote to).
    Barred,
}

/// An exchange in progress on one square.
struct Exchange<'a> {
    v: &'a Variant,
    e: &'a EvalTables,
    /// The board as the exchange has left it.
    cells: Cells,
    target: usize,
    /// Per colour, once `collected`: the squares of the men that capture
    /// onto the target on `cells`.
    attackers: [SquareSet; 2],
    /// The position and the move the exchange starts with.
    pos: &'a Position,
    mv: Move,
    collected: [bool; 2],
    /// The side to capture next.
    stm: Color,
    /// Exchange value of the man on the target.
    on_target: i32,
    promotion: [Promotion; 2],
}

/// What is known of an exchange before looking at the board: the material
/// the move wins by itself, the man it leaves on the target, and promotion
/// on the target.
struct Start {
    first_gain: i32,
    on_target: i32,
    promotion: [Promotion; 2],
    /// Per colour: the most a capture can gain by promoting (0 when none can).
    promotion_bound: [i32; 2],
}

impl Start {
    #[inline]
    fn new(e: &EvalTables, pos: &Position, m: Move) -> Start {
        let v = &*pos.variant;
        let target = m.to().index();
        let victim = match m.kind() {
            MoveKind::Castle => Cell::EMPTY,
            MoveKind::EnPassant => pos.b.cells[pos.ep_victim as usize],
            _ => pos.b.cells[target],
        };
        let mut first_gain = if victim.is_color(pos.side.flip()) {
            value_of(v, e, victim.kind())
        } else {
            0
        };
        if matches!(m.kind(), MoveKind::Promotion | MoveKind::PairPromotion) {
            first_gain += e.value[m.result().index()] - e.value[m.part().index()];
        }
        // What `Position::changes` puts on the target.
        let on_target = match m.kind() {
            MoveKind::Castle => value_of(v, e, v.king),
            _ => value_of(v, e, m.result()),
        };
        let mut promotion = [Promotion::None; 2];
        let mut promotion_bound = [0; 2];
        if v.promotion_pawns != 0 {
            for c in Color::BOTH {
                if v.promotion_region[c.index()].contains(target) {
                    (promotion[c.index()], promotion_bound[c.index()]) = promotion_on(v, e);
                }
            }
        }
        Start {
            first_gain,
            on_target,
            promotion,
            promotion_bound,
        }
    }
}

impl<'a> Exchange<'a> {
    fn new(e: &'a EvalTables, pos: &'a Position, m: Move, start: &Start) -> Exchange<'a> {
        // The board is copied once, into the exchange itself, and the move
        // made there (a copy into a local first cost a second copy).
        let mut x = Exchange {
            v: &pos.variant,
            e,
            cells: pos.b.cells,
            target: m.to().index(),
            attackers: [SquareSet::default(); 2],
            pos,
            mv: m,
            collected: [false; 2],
            stm: pos.side.flip(),
            on_target: start.on_target,
            promotion: start.promotion,
        };
        for &(sq, c) in &pos.changes(m) {
            x.cells[sq as usize] = c;
        }
        x
    }

    /// Every man of `color` that captures onto the target, into its set.
    fn collect(&mut self, color: Color) {
        let v = self.v;
        let t = &v.capture_attacks[color.index()];
        self.collected[color.index()] = true;
        if t.from_men {
            let set = &mut self.attackers[color.index()];
            // The same men as the walks from the target below find: men
            // stand only where they stood before the move (the piece list),
            // where the move put them, and on the target, since the
            // exchange only empties squares besides the target. The
            // changes are worked out again rather than kept from `new`,
            // which would cost every exchange for the few that look here.
            let changed = self.pos.changes(self.mv);
            let men = self.pos.b.lists[color.index()].squares.iter();
            let squares = men.chain(changed.iter().map(|(q, _)| q));
            for q in squares.map(|&q| q as usize).chain([self.target]) {
                let c = self.cells[q];
                if t.may_attack(q, self.target, c.0)
                    && man_attacks(&self.cells, v, t, color, q, c, self.target)
                {
                    set.insert(q);
                }
            }
            return;
        }
        self.collect_plain(&t.leaps, &t.slides);
        let set = &mut self.attackers[color.index()];
        scan_rays(&self.cells, v, &t.special, self.target, color, |q| {
            set.insert(q);
            false
        });
    }

    /// The men that capture onto the target along `leaps` and `slides`,
    /// each into its own colour's set (a cell code names its colour, so
    /// one colour's table fills only that colour's set).
    #[inline(always)]
    fn collect_plain(&mut self, leaps: &[(i16, CodeMask)], slides: &[Slide]) {
        let s = self.target as isize;
        for &(d, mask) in leaps {
            let q = (s - d as isize) as usize;
            let c = self.cells[q];
            if in_mask(mask, c) {
                self.attackers[c.color().index()].insert(q);
            }
        }
        for sl in slides {
            if let Some(q) = slide_attacker(&self.cells, sl, s) {
                self.attackers[self.cells[q].color().index()].insert(q);
            }
        }
    }

    /// Every man of either colour that captures onto the target, into the
    /// sets of both. The second side is often needed (about 40% of the
    /// exchanges in chess, 67% in Compound) and costs almost nothing more
    /// in one walk. Collected now rather than when that side first
    /// captures, its set is the same then: until that capture only
    /// squares are emptied, and [`Exchange::add_xrays`] adds the men
    /// whose rays open through them to every collected set.
    fn collect_both(&mut self, both: &crate::rules::variant::BothSides) {
        self.collected = [true; 2];
        self.collect_plain(&both.leaps, &both.slides);
    }

    /// After `from` emptied: add the men whose rays through `from` now reach
    /// the target (only the slides and special rays can open; a leap's
    /// attacker is on the emptied square itself or unaffected).
    fn add_xrays(&mut self, from: usize) {
        let v = self.v;
        let off = (from as isize - self.target as isize + PIN_OFFSET) as usize;
        for color in Color::BOTH {
            if !self.collected[color.index()] {
                continue;
            }
            let t = &v.capture_attacks[color.index()];
            let map = &v.capture_map[color.index()];
            let set = &mut self.attackers[color.index()];
            let mut add = |q| {
                set.insert(q);
                false
            };
            if map.is_empty() {
                // No map (too many entries): every slide and special ray.
                for sl in &t.slides {
                    if let Some(q) = slide_attacker(&self.cells, sl, self.target as isize) {
                        add(q);
                    }
                }
                scan_rays(&self.cells, v, &t.special, self.target, color, add);
                continue;
            }
            // Entry bits: the leaps, then the slides, then the special rays.
            let mut bits = map[off].checked_shr(t.leaps.len() as u32).unwrap_or(0);
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if let Some(sl) = t.slides.get(i) {
                    if let Some(q) = slide_attacker(&self.cells, sl, self.target as isize) {
                        add(q);
                    }
                } else if let Some(ray) = t.special.get(i - t.slides.len()) {
                    let rays = std::slice::from_ref(ray);
                    scan_rays(&self.cells, v, rays, self.target, color, &mut add);
                }
            }
        }
    }

    /// The type a man of `kind` and `color` stands as on the target after
    /// capturing there, or None when it may not capture there.
    #[inline]
    fn arrival(&self, kind: PieceType, color: Color) -> Option<PieceType> {
        if self.v.promotion_pawns & kind.bit() == 0 {
            return Some(kind);
        }
        match self.promotion[color.index()] {
            Promotion::None => Some(kind),
            Promotion::Barred => None,
            Promotion::To { kind: p, optional } => Some(
                if optional && self.e.value[kind.index()] > self.e.value[p.index()] {
                    kind
                } else {
                    p
                },
            ),
        }
    }

    /// The next capture of the side to move, made on the scratch board:
    /// returns the material it wins, or None when the side has no capture
    /// (then the exchange is over).
    fn capture(&mut self) -> Option<i32> {
        let us = self.stm;
        if !self.collected[us.index()] {
            match &self.v.capture_both {
                Some(both) if !self.collected[us.flip().index()] => self.collect_both(both),
                _ => self.collect(us),
            }
        }
        let v = self.v;
        // The cheapest non-royal man, the lowest square among equals.
        let mut best: Option<(i32, usize, PieceType)> = None;
        let mut royal = false;
        for (w, &word) in self.attackers[us.index()].0.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let q = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let kind = self.cells[q].kind();
                if v.piece(kind).royal {
                    royal = true;
                    continue;
                }
                let value = self.e.value[kind.index()];
                if best.is_none_or(|(b, _, _)| value < b)
                    && let Some(arrives) = self.arrival(kind, us)
                {
                    best = Some((value, q, arrives));
                }
            }
        }
        let (own, from, arrives) = match best {
            Some(b) => b,
            None if royal => self.royal_capture(us)?,
            None => return None,
        };
        let after = value_of(v, self.e, arrives);
        let gain = self.on_target + after - own;
        self.cells[from] = Cell::EMPTY;
        self.cells[self.target] = Cell::piece(arrives, us);
        self.attackers[us.index()].remove(from);
        self.add_xrays(from);
        self.on_target = after;
        self.stm = us.flip();
        Some(gain)
    }

    /// A royal man of `us` that may capture onto the target: one whose
    /// target is not attacked once it has left its square (the lowest such
    /// square), as (value, square, type).
    fn royal_capture(&mut self, us: Color) -> Option<(i32, usize, PieceType)> {
        let set = self.attackers[us.index()];
        for (w, &word) in set.0.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let q = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let man = self.cells[q];
                self.cells[q] = Cell::EMPTY;
                // All attacks count here, those of men that never capture too.
                let safe = !attacked(&self.cells, self.v, self.target, us.flip());
                self.cells[q] = man;
                if safe {
                    return Some((ROYAL_VALUE, q, man.kind()));
                }
            }
        }
        None
    }
}

/// The most valuable promotion type, whether promotion is optional, and the
/// most a pawn-type man gains by promoting (both worked out with the
/// evaluation tables, see [`EvalTables::best_promotion`]).
fn promotion_on(v: &Variant, e: &EvalTables) -> (Promotion, i32) {
    let optional = !v.mandatory_promotion;
    match e.best_promotion {
        Some(kind) => (Promotion::To { kind, optional }, e.promotion_gain),
        None if optional => (Promotion::None, 0),
        None => (Promotion::Barred, 0),
    }
}

/// Whether the exchange started by `m` (a legal or pseudo-legal move of the
/// side to move) wins at least `threshold` centipawns for the side that
/// plays it, with the variant's evaluation tables `e`.
pub fn see_ge(e: &EvalTables, pos: &Position, m: Move, threshold: i32) -> bool {
    let start = Start::new(e, pos, m);
    let us = pos.side;
    let them = us.flip();
    let bound = start.promotion_bound;
    // `balance`: the result, less the threshold, if the exchange stopped now.
    // The opponent stops when that is below zero, we stop when it is not.
    let mut balance = start.first_gain - threshold.clamp(-THRESHOLD_LIMIT, THRESHOLD_LIMIT);
    if balance < 0 {
        return false;
    }
    // The opponent's turn: do we keep enough even if its capture is never
    // answered? Then the board need not be looked at.
    if balance - start.on_target - bound[them.index()] >= 0 {
        return true;
    }
    let mut x = Exchange::new(e, pos, m, &start);
    loop {
        // The opponent's capture (balance >= 0 before it).
        match x.capture() {
            None => return true,
            Some(gain) => balance -= gain,
        }
        if balance >= 0 {
            return true;
        }
        // Our turn, balance < 0: even an unanswered capture is not enough?
        if balance + x.on_target + bound[us.index()] < 0 {
            return false;
        }
        match x.capture() {
            None => return false,
            Some(gain) => balance += gain,
        }
        if balance < 0 {
            return false;
        }
        // The opponent's turn: do we keep enough even if its capture is
        // never answered?
        if balance - x.on_target - bound[them.index()] >= 0 {
            return true;
        }
    }
}

/// The exact value of the exchange started by `m` for the side that plays
/// it (see the module documentation), with the variant's evaluation
/// tables `e`.
pub fn see(e: &EvalTables, pos: &Position, m: Move) -> i32 {
    let start = Start::new(e, pos, m);
    let mut x = Exchange::new(e, pos, m, &start);
    // balance[k]: the result if the exchange stops after k captures
    // following `m` (even k: the opponent is to capture next).
    let mut balance = [0i32; MAX_CAPTURES + 1];
    balance[0] = start.first_gain;
    let mut n = 1;
    while n < balance.len() {
        let Some(gain) = x.capture() else { break };
        balance[n] = if n % 2 == 1 {
            balance[n - 1] - gain
        } else {
            balance[n - 1] + gain
        };
        n += 1;
    }
    // Back from the end: each side stops where going on would be worse.
    let mut value = balance[n - 1];
    for k in (0..n - 1).rev() {
        value = if k % 2 == 0 {
            value.min(balance[k])
        } else {
            value.max(balance[k])
        };
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::position::is_attacked;
    use crate::rules::movegen::{legal_moves, man_moves};
    use crate::rules::types::{MoveList, Square};
    use crate::rules::variant_set::VariantSet;
    use crate::util::rng::Rng;
    use std::collections::BTreeMap;

    // ---- The brute force: the definition of the module documentation,
    // played with the real move generator and make/unmake. ----

    fn worth(v: &Variant, e: &EvalTables, t: PieceType) -> i32 {
        if v.piece(t).royal {
            1_000_000
        } else {
            e.value[t.index()]
        }
    }

    /// Material `m` wins by itself (its victim and its promotion).
    fn move_gain(e: &EvalTables, pos: &Position, m: Move) -> i32 {
        let v = pos.variant();
        let victim = match m.kind() {
            MoveKind::Castle => Cell::EMPTY,
            MoveKind::EnPassant => pos.b.cells[pos.ep_victim as usize],
            _ => pos.cell(m.to()),
        };
        let mut gain = if victim.is_color(pos.side_to_move().flip()) {
            worth(v, e, victim.kind())
        } else {
            0
        };
        if matches!(m.kind(), MoveKind::Promotion | MoveKind::PairPromotion) {
            gain += worth(v, e, m.result()) - worth(v, e, m.part());
        }
        gain
    }

    /// Squares of the men of `color` with a pseudo-legal capture onto
    /// `target` (as if an enemy man stood there).
    fn direct_capturers(pos: &Position, target: Square, color: Color) -> Vec<usize> {
        let mut cells = pos.b.cells;
        cells[target.index()] = Cell::piece(PieceType(0), color.flip());
        let mut out = Vec::new();
        for &sq in pos.men(color) {
            let mut list = MoveList::new();
            man_moves(&cells, pos.variant(), color, sq as usize, 0, &mut list);
            if list.iter().any(|m| m.to() == target) {
                out.push(sq as usize);
            }
        }
        out
    }

    #[derive(Default)]
    struct Stats {
        /// Positions with a capture, each checked with all its captures.
        positions: usize,
        captures_checked: usize,
        quiet_checked: usize,
        en_passant_moves: usize,
        promotion_moves: usize,
        /// Captures in the brute-force exchanges, by kind.
        exchange_promotions: usize,
        stack_captures: usize,
        royal_captures: usize,
        royal_refused: usize,
        /// Captures by men that could not capture onto the target right
        /// after the move (revealed by men leaving), by letter.
        xrays: BTreeMap<char, usize>,
        /// Exchanges where a man that never captures attacks the target.
        quiet_attacker_present: usize,
        longest: usize,
        nonzero: usize,
        see_ge_calls: usize,
        see_ge_nanos: u128,
    }

    /// The exchange capture of the side to move onto `target`: its
    /// cheapest man (lowest square among equals) with a pseudo-legal
    /// capture there, a pawn-type man promoting to the most valuable type,
    /// a royal man only onto a square not attacked afterwards.
    fn next_capture(
        e: &EvalTables,
        pos: &mut Position,
        target: Square,
        st: &mut Stats,
    ) -> Option<Move> {
        let us = pos.side_to_move();
        let them = us.flip();
        if !pos.cell(target).is_color(them) {
            return None;
        }
        let v = pos.variant().clone();
        let mut list = MoveList::new();
        for &sq in pos.men(us) {
            man_moves(&pos.b.cells, &v, us, sq as usize, 0, &mut list);
        }
        let mut best: Option<((i32, usize, i32), Move)> = None;
        for &m in &list {
            if m.to() != target || m.kind() == MoveKind::PairPromotion {
                continue;
            }
            assert_eq!(
                m.part(),
                pos.cell(m.from()).kind(),
                "only whole stacks capture"
            );
            if v.piece(m.part()).royal {
                pos.make(m);
                let safe = !is_attacked(pos, target.index(), them);
                pos.unmake();
                if !safe {
                    st.royal_refused += 1;
                    continue;
                }
            }
            let key = (
                worth(&v, e, m.part()),
                m.from().index(),
                -worth(&v, e, m.result()),
            );
            if best.as_ref().is_none_or(|(k, _)| key < *k) {
                best = Some((key, m));
            }
        }
        best.map(|(_, m)| m)
    }

    /// What the side to move wins at best by going on with the exchange.
    fn brute_rest(
        e: &EvalTables,
        pos: &mut Position,
        target: Square,
        direct: &[Vec<usize>; 2],
        depth: usize,
        st: &mut Stats,
    ) -> i32 {
        let Some(c) = next_capture(e, pos, target, st) else {
            st.longest = st.longest.max(depth);
            return 0;
        };
        let v = pos.variant().clone();
        let us = pos.side_to_move();
        if c.kind() == MoveKind::Promotion {
            st.exchange_promotions += 1;
        }
        if v.piece(c.part()).members.count_ones() >= 2 {
            st.stack_captures += 1;
        }
        if v.piece(c.part()).royal {
            st.royal_captures += 1;
        }
        if !direct[us.index()].contains(&c.from().index()) {
            *st.xrays.entry(v.letter(c.part(), us)).or_default() += 1;
        }
        let gain = move_gain(e, pos, c);
        pos.make(c);
        let rest = brute_rest(e, pos, target, direct, depth + 1, st);
        pos.unmake();
        (gain - rest).max(0)
    }

    fn brute_see(e: &EvalTables, pos: &mut Position, m: Move, st: &mut Stats) -> i32 {
        let gain = move_gain(e, pos, m);
        pos.make(m);
        let direct = [
            direct_capturers(pos, m.to(), Color::White),
            direct_capturers(pos, m.to(), Color::Black),
        ];
        let rest = brute_rest(e, pos, m.to(), &direct, 0, st);
        pos.unmake();
        gain - rest
    }

    /// Whether a man that never captures attacks `target` (stepping onto it
    /// were it empty).
    fn quiet_attacker_on(pos: &Position, target: Square) -> bool {
        let v = pos.variant();
        let mut cells = pos.b.cells;
        cells[target.index()] = Cell::EMPTY;
        Color::BOTH.iter().any(|&c| {
            pos.men(c).iter().any(|&sq| {
                if sq == target.0 {
                    return false;
                }
                let t = pos.b.cells[sq as usize].kind();
                let mut list = MoveList::new();
                v.quiet_attackers & t.bit() != 0 && {
                    man_moves(&cells, v, c, sq as usize, 0, &mut list);
                    list.iter().any(|m| m.to() == target)
                }
            })
        })
    }

    /// `see` against the brute force, and `see_ge` against `see`.
    fn check(e: &EvalTables, pos: &mut Position, m: Move, rng: &mut Rng, st: &mut Stats) {
        let exact = see(e, pos, m);
        let brute = brute_see(e, pos, m, st);
        assert_eq!(
            exact,
            brute,
            "{}: {} in {}",
            pos.variant().name,
            pos.move_text(m),
            pos.to_fen()
        );
        let noise = (rng.next_u64() % 3001) as i32 - 1500;
        let thresholds = [
            exact - 1,
            exact,
            exact + 1,
            exact - 100,
            exact + 100,
            0,
            1,
            noise,
            i32::MIN,
            i32::MAX,
        ];
        let start = std::time::Instant::now();
        let answers = thresholds.map(|t| see_ge(e, pos, m, t));
        st.see_ge_nanos += start.elapsed().as_nanos();
        st.see_ge_calls += thresholds.len();
        for (t, answer) in thresholds.into_iter().zip(answers) {
            assert_eq!(
                answer,
                exact >= t,
                "{}: see_ge({}, {t}) with see {exact} in {}",
                pos.variant().name,
                pos.move_text(m),
                pos.to_fen()
            );
        }
        st.nonzero += usize::from(exact != 0);
        st.en_passant_moves += usize::from(m.kind() == MoveKind::EnPassant);
        st.promotion_moves += usize::from(matches!(
            m.kind(),
            MoveKind::Promotion | MoveKind::PairPromotion
        ));
        st.quiet_attacker_present += usize::from(quiet_attacker_on(pos, m.to()));
    }

    fn is_capture(pos: &Position, m: Move) -> bool {
        m.kind() == MoveKind::EnPassant
            || (m.kind() != MoveKind::Castle
                && pos.cell(m.to()).is_color(pos.side_to_move().flip()))
    }

    /// Random playouts from the start position, biased toward captures
    /// and pawn moves. At every other position every legal capture and one
    /// random quiet move are checked, until `positions` positions with a
    /// capture were.
    fn random_exchanges(name: &str, positions: usize, seed: u64) -> Stats {
        let (v, evaluator) = crate::engine::eval::compile(&VariantSet::builtin(), name)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let e = evaluator.tables();
        let mut rng = Rng::new(seed);
        let mut st = Stats::default();
        let mut list = MoveList::new();
        while st.positions < positions {
            let mut pos = Position::startpos(v.clone());
            let plies = 20 + rng.next_u64() % 300;
            for _ in 0..plies {
                legal_moves(&mut pos, &mut list);
                if list.is_empty() || pos.is_dead() {
                    break;
                }
                let caps: Vec<Move> = list
                    .iter()
                    .copied()
                    .filter(|&m| is_capture(&pos, m))
                    .collect();
                let quiet: Vec<Move> = list
                    .iter()
                    .copied()
                    .filter(|&m| !is_capture(&pos, m))
                    .collect();
                if !caps.is_empty() && rng.next_u64().is_multiple_of(2) {
                    st.positions += 1;
                    for &m in &caps {
                        check(e, &mut pos, m, &mut rng, &mut st);
                        st.captures_checked += 1;
                    }
                    if !quiet.is_empty() {
                        let m = quiet[rng.next_u64() as usize % quiet.len()];
                        check(e, &mut pos, m, &mut rng, &mut st);
                        st.quiet_checked += 1;
                    }
                }
                let pawns: Vec<Move> = list
                    .iter()
                    .copied()
                    .filter(|m| v.promotion_pawns & m.part().bit() != 0)
                    .collect();
                let r = rng.next_u64() % 10;
                let pick = if !caps.is_empty() && r < 5 {
                    caps[rng.next_u64() as usize % caps.len()]
                } else if !pawns.is_empty() && r < 7 {
                    pawns[rng.next_u64() as usize % pawns.len()]
                } else {
                    list[rng.next_u64() as usize % list.len()]
                };
                pos.make(pick);
            }
        }
        st
    }

    fn random_test(name: &str, seed: u64) {
        let start = std::time::Instant::now();
        let st = random_exchanges(name, 50_000, seed);
        println!(
            "{name}: {} positions, {} captures and {} quiet moves checked in {:.2?}; see != 0: {}; \
             en passant moves {}, promotion moves {}; in the exchanges: promotions {}, \
             stack captures {}, royal captures {} (refused {}), longest {}; \
             a quiet attacker on the target {}; x-ray captures {:?}; \
             see_ge {} ns a call",
            st.positions,
            st.captures_checked,
            st.quiet_checked,
            start.elapsed(),
            st.nonzero,
            st.en_passant_moves,
            st.promotion_moves,
            st.exchange_promotions,
            st.stack_captures,
            st.royal_captures,
            st.royal_refused,
            st.longest,
            st.quiet_attacker_present,
            st.xrays,
            st.see_ge_nanos / st.see_ge_calls.max(1) as u128
        );
        assert!(
            st.xrays.values().sum::<usize>() > 0,
            "{name}: no x-ray seen"
        );
        assert!(st.royal_captures > 0 && st.royal_refused > 0);
        if name == "compound" {
            assert!(st.en_passant_moves > 0);
        }
        if name == "team-mate" {
            assert!(st.quiet_attacker_present > 0, "no Brute attacked a target");
        }
        if name == "combination" {
            assert!(st.stack_captures > 0);
        }
        assert!(st.exchange_promotions > 0 && st.promotion_moves > 0);
    }

    #[test]
    fn random_chess() {
        random_test("chess", 1);
    }

    #[test]
    fn random_combination() {
        random_test("combination", 2);
    }

    #[test]
    fn random_team_mate() {
        random_test("team-mate", 3);
    }

    #[test]
    fn random_compound() {
        random_test("compound", 4);
    }

    // ---- Known values. ----

    /// `see` of `text` in `fen`, checked against the brute force and
    /// `see_ge` on both sides of it.
    fn value(variant: &str, fen: &str, text: &str) -> i32 {
        let (mut pos, evaluator) = crate::engine::eval::builtin(variant, fen);
        let e = evaluator.tables();
        let m = pos
            .parse_move(text)
            .unwrap_or_else(|e| panic!("{text} in {fen}: {e}"));
        let exact = see(e, &pos, m);
        assert_eq!(
            exact,
            brute_see(e, &mut pos, m, &mut Stats::default()),
            "{fen} {text}"
        );
        assert!(see_ge(e, &pos, m, exact) && !see_ge(e, &pos, m, exact + 1));
        exact
    }

    #[test]
    fn chess_values() {
        // An undefended pawn; a defended one; a rook battery (x-ray).
        assert_eq!(
            value("chess", "4k3/8/8/3p4/8/8/8/3RK3 w - - 0 1", "d1d5"),
            100
        );
        assert_eq!(
            value("chess", "4k3/4p3/3p4/8/8/8/8/3RK3 w - - 0 1", "d1d6"),
            100 - 500
        );
        let battery = "4k3/8/3r4/3p4/8/8/3R4/3RK3 w - - 0 1";
        assert_eq!(value("chess", battery, "d2d5"), 100);
        // Nxd5 Rxd5 Rxd5 and the rook behind takes back: without that
        // x-ray, white would win the pawn.
        let xray = "4k3/3r4/3r4/3p4/5N2/8/8/3RK3 w - - 0 1";
        assert_eq!(value("chess", xray, "f4d5"), 100 - 320);
        // A quiet move onto a square the pawn attacks.
        assert_eq!(
            value("chess", "4k3/8/8/3p4/8/8/8/2R1K3 w - - 0 1", "c1c4"),
            -500
        );
        // A capture that promotes, then taken back.
        assert_eq!(
            value("chess", "r3k3/rP6/8/8/8/8/8/4K3 w - - 0 1", "b7a8q"),
            500 + 850 - 950
        );
        // The king takes back only where it is safe: with the rook on d8 it
        // is not.
        assert_eq!(
            value("chess", "3rk3/8/2n5/8/3n4/4K3/1B6/8 w - - 0 1", "b2d4"),
            320 - 330
        );
        assert_eq!(
            value("chess", "4k3/8/2n5/8/3n4/4K3/1B6/8 w - - 0 1", "b2d4"),
            320 - 330 + 320
        );
    }

    #[test]
    fn combination_stack_captures_whole() {
        // The knight+rook stack M takes a rook (M = 320 + 500 + 10).
        assert_eq!(
            value("combination", "4k3/8/8/3r4/8/8/8/3MK3 w - - 0 1", "d1d5"),
            500
        );
        assert_eq!(
            value("combination", "4k3/8/4p3/3r4/8/8/8/3MK3 w - - 0 1", "d1d5"),
            500 - 830
        );
        // Its rook alone may not capture.
        let mut pos = Position::builtin("combination", "4k3/8/8/3r4/8/8/8/3MK3 w - - 0 1");
        assert!(pos.parse_move("d1d5r").is_err());
    }

    #[test]
    fn team_mate_brute_does_not_defend() {
        // The Brute on e5 attacks d4 but never takes back.
        assert_eq!(
            value("team-mate", "4k3/8/8/4b3/3n4/8/4N3/4K3 w - - 0 1", "e2d4"),
            327
        );
        // After Nxd4 Nxd4 the king would take back, but the Brute keeps it off d4.
        assert_eq!(
            value("team-mate", "4k3/8/2n5/4b3/3n4/4K3/4N3/8 w - - 0 1", "e2d4"),
            0
        );
        assert_eq!(
            value("team-mate", "4k3/8/2n5/8/3n4/4K3/4N3/8 w - - 0 1", "e2d4"),
            327
        );
    }

    #[test]
    fn compound_dragon_en_passant() {
        assert_eq!(
            value("compound", "5k4/10/10/3Ds5/10/10/10/5K4 w - e6 0 1", "d5e6"),
            110
        );
        // Defended by a Sergeant: the Dragon is lost.
        assert_eq!(
            value(
                "compound",
                "5k4/5s4/10/3Ds5/10/10/10/5K4 w - e6 0 1",
                "d5e6"
            ),
            110 - 380
        );
        // The victim's square opens the e-file for the rook-alfil behind it.
        assert_eq!(
            value(
                "compound",
                "5k4/5s4/10/3Ds5/10/10/10/4RK4 w - e6 0 1",
                "d5e6"
            ),
            110 - 380 + 110
        );
    }
}
