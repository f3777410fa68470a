//! Alpha-beta search: iterative deepening, principal variation search with
//! aspiration windows, a shared transposition table, quiescence search,
//! null-move pruning, late-move reductions, check extension, mate-distance
//! pruning, draw detection, MultiPV and Lazy SMP.

pub mod history;
pub mod see;
pub mod time;
pub mod tt;

use crate::engine::eval::{PawnCache, evaluate};
use crate::rules::board::Position;
use crate::rules::movegen::{
    captures_of, captures_pseudo, gives_check, is_legal, leaves_king_safe_unchecked, legal_moves,
    legal_moves_king_untested, needs_test,
};
use crate::rules::types::{BOARD_CELLS, Color, Move, MoveKind, MoveList};
use crate::rules::variant::CodeMask;
use arrayvec::ArrayVec;
use history::{ContKey, SearchMemory};
use see::see_ge;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
pub use time::Limits;
use tt::{Bound, TranspositionTable};

/// Score of delivering mate now; mate in n plies scores `MATE - n`.
pub const MATE: i32 = 32000;
/// Scores beyond this are mate scores.
pub const MATE_BOUND: i32 = MATE - 1000;
const INFINITE: i32 = MATE + 1;
/// Entries of each thread's evaluation cache (a power of two; 1 MB).
const EVAL_CACHE_SIZE: usize = 1 << 16;
/// Deepest ply the search reaches.
pub const MAX_PLY: usize = 120;
/// The static evaluation of a node in check, which has none.
const NO_EVAL: i32 = i32::MIN / 2;
/// Ordering scores from here up are captures that do not lose material and
/// promotions (see [`Worker::score_moves`]).
const GOOD_CAPTURE_ORDER: i32 = 900_000;
/// Remaining moves from which [`Worker::pick`] finds the best in two
/// vectorised passes rather than one scalar pass.
const LONG_PICK: usize = 12;
/// The ordering score of the counter move; quiet moves below it are
/// ordered by their history.
const COUNTER_ORDER: i32 = 780_000;

/// A reported score: centipawns, or mate in moves (negative: being mated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    Cp(i32),
    Mate(i32),
}

impl Value {
    pub fn from_score(s: i32) -> Value {
        if s >= MATE_BOUND {
            Value::Mate((MATE - s + 1) / 2)
        } else if s <= -MATE_BOUND {
            Value::Mate(-(MATE + s) / 2)
        } else {
            Value::Cp(s)
        }
    }
}

/// What the search reports after each iteration (and each MultiPV line).
#[derive(Clone, Debug)]
pub struct SearchInfo {
    pub depth: u32,
    pub seldepth: u32,
    pub multipv: usize,
    pub value: Value,
    /// Upper or lower bound (aspiration failure), or exact.
    pub bound: Option<Bound>,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
    pub hashfull: u32,
    pub pv: Vec<Move>,
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub value: Value,
    pub depth: u32,
    pub nodes: u64,
}

/// Options that stay between searches.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    pub threads: usize,
    pub multipv: usize,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            threads: 1,
            multipv: 1,
        }
    }
}

/// How long depth 1 may run on after a stop, counted from the start of the
/// search, when the search has no time limit. With one, it may run until
/// twice the hard limit, which is at most the clock left.
const DEPTH1_GRACE: Duration = Duration::from_secs(1);

/// State shared by the threads of one search.
struct Shared {
    tt: Arc<TranspositionTable>,
    /// Set from outside (a `stop` command) or when the main thread is done.
    stop: Arc<AtomicBool>,
    done: AtomicBool,
    nodes: AtomicU64,
    start: Instant,
    hard: Option<Duration>,
    /// How long depth 1 may run on after a stop or limit (see
    /// [`Worker::finish_iteration`]).
    depth1_limit: Duration,
    node_limit: Option<u64>,
    /// The deepest iteration a helper thread completed: (depth, score, pv).
    helper_best: std::sync::Mutex<Option<(i32, i32, Vec<Move>)>>,
}

impl Shared {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.done.load(Ordering::Relaxed)
    }
}

/// Late-move reduction in plies for a depth and move number (from 1).
fn reduction(depth: i32, move_number: usize) -> i32 {
    if depth < 3 || move_number < 4 {
        return 0;
    }
    // The logarithmic shape used by most modern engines.
    (0.8 + (depth as f64).ln() * (move_number as f64).ln() / 2.4) as i32
}

fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The score a table entry proves for the window, if it proves one.
fn tt_cutoff(e: &tt::TtEntry, alpha: i32, beta: i32, ply: usize) -> Option<i32> {
    let s = from_tt(e.score, ply);
    let cut = match e.bound {
        Bound::Exact => true,
        Bound::Lower => s >= beta,
        Bound::Upper => s <= alpha,
    };
    cut.then_some(s)
}

struct RootMove {
    mv: Move,
    score: i32,
    pv: Vec<Move>,
}

impl RootMove {
    /// The root moves, not yet searched.
    fn list(legal: &[Move]) -> Vec<RootMove> {
        legal
            .iter()
            .map(|&mv| RootMove {
                mv,
                score: -INFINITE,
                pv: vec![mv],
            })
            .collect()
    }
}

/// One search thread.
struct Worker<'a> {
    pos: Position,
    shared: &'a Shared,
    main: bool,
    nodes: u64,
    flushed: u64,
    seldepth: usize,
    killers: Vec<[Move; 2]>,
    /// Histories and counter moves, kept between searches.
    mem: SearchMemory,
    /// The continuation key of the move made at each ply of the current
    /// line (none for a null move).
    keys: Vec<Option<ContKey>>,
    /// Static evaluation at each ply of the current line (`NO_EVAL` in check).
    evals: Vec<i32>,
    /// The move a node at each ply leaves out (the table move, while its
    /// singularity is tested), or none.
    excluded: Vec<Move>,
    /// The depth of the current iteration.
    root_depth: i32,
    pv: Vec<Vec<Move>>,
    values: Vec<i32>,
    aborted: bool,
    /// Set while the main thread searches depth 1: a stop waits until that
    /// iteration is complete, so the move played has always been searched,
    /// unless depth 1 runs past `depth1_limit` (a position whose captures
    /// explode, such as a variant with many queens): then it stops too, and
    /// the best root move searched so far is played.
    finish_iteration: bool,
    /// Static evaluations by position hash (positions recur often in the
    /// quiescence search).
    eval_cache: Vec<(u64, i32)>,
    pawns: PawnCache,
    /// Whether the position with this hash is in check, when the parent node
    /// already found out (saves the child a scan).
    check_hint: (u64, bool),
}

impl<'a> Worker<'a> {
    fn new(pos: Position, shared: &'a Shared, main: bool, mem: SearchMemory) -> Worker<'a> {
        let values = pos.variant().eval.value.clone();
        Worker {
            pos,
            shared,
            main,
            nodes: 0,
            flushed: 0,
            seldepth: 0,
            killers: vec![[Move::NONE; 2]; MAX_PLY + 2],
            mem,
            keys: vec![None; MAX_PLY + 2],
            evals: vec![NO_EVAL; MAX_PLY + 2],
            excluded: vec![Move::NONE; MAX_PLY + 2],
            root_depth: 0,
            pv: vec![Vec::new(); MAX_PLY + 2],
            values,
            aborted: false,
            finish_iteration: false,
            eval_cache: vec![(0, 0); EVAL_CACHE_SIZE],
            pawns: PawnCache::new(),
            check_hint: (0, false),
        }
    }

    /// Count a node at `ply`; a score when the search must return at once
    /// (stopped, or at the maximum ply).
    fn enter_node(&mut self, ply: usize) -> Option<i32> {
        self.tick();
        self.seldepth = self.seldepth.max(ply);
        if self.shared.stopped()
            && (!self.finish_iteration || self.shared.start.elapsed() >= self.shared.depth1_limit)
        {
            self.aborted = true;
            return Some(0);
        }
        (ply >= MAX_PLY).then(|| self.evaluate())
    }

    /// The static evaluation, through the cache.
    fn evaluate(&mut self) -> i32 {
        let h = self.pos.hash();
        let slot = &mut self.eval_cache[(h as usize) & (EVAL_CACHE_SIZE - 1)];
        if slot.0 == h && h != 0 {
            return slot.1;
        }
        let e = evaluate(&self.pos, &mut self.pawns);
        *slot = (h, e);
        e
    }

    /// Count a node; every 1024 nodes publish the count and check the limits.
    #[inline]
    fn tick(&mut self) {
        self.nodes += 1;
        if let (true, Some(limit)) = (self.main, self.shared.node_limit)
            && self.shared.nodes.load(Ordering::Relaxed) + self.nodes - self.flushed >= limit
        {
            self.shared.done.store(true, Ordering::Relaxed);
        }
        if self.nodes & 1023 == 0 {
            self.shared
                .nodes
                .fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
            self.flushed = self.nodes;
            if self.main
                && let Some(hard) = self.shared.hard
                && self.shared.start.elapsed() >= hard
            {
                self.shared.done.store(true, Ordering::Relaxed);
            }
        }
    }

    fn flush(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
        self.flushed = self.nodes;
    }

    /// A line of the search's output for a root move's line, with the node
    /// count, time and table use of now.
    fn info_line(&mut self, depth: i32, multipv: usize, value: Value, pv: Vec<Move>) -> SearchInfo {
        self.flush();
        let nodes = self.shared.nodes.load(Ordering::Relaxed);
        let elapsed = self.shared.start.elapsed();
        SearchInfo {
            depth: depth as u32,
            seldepth: self.seldepth as u32,
            multipv,
            value,
            bound: None,
            nodes,
            nps: (nodes as f64 / elapsed.as_secs_f64().max(1e-6)) as u64,
            time_ms: elapsed.as_millis() as u64,
            hashfull: self.shared.tt.hashfull(),
            pv,
        }
    }

    /// Whether the position is drawn by rule (at a node below the root).
    fn is_draw(&self) -> bool {
        let v = self.pos.variant();
        if v.n_move_rule > 0 && self.pos.halfmove_clock() >= 2 * v.n_move_rule {
            return true;
        }
        if self.pos.repetitions() > 0 {
            return true;
        }
        let men = self.pos.men(Color::White).len() + self.pos.men(Color::Black).len();
        men <= 6
            && !self.pos.has_mating_potential(Color::White)
            && !self.pos.has_mating_potential(Color::Black)
    }

    /// Material that makes null-move pruning safe: at least two men that are
    /// neither the king nor of the pawn type.
    fn null_move_safe(&self) -> bool {
        let v = self.pos.variant();
        let us = self.pos.side_to_move();
        let pieces = self
            .pos
            .men(us)
            .iter()
            .filter(|&&sq| {
                let t = self.pos.cell(crate::rules::types::Square(sq)).kind();
                t != v.king && v.promotion_pawns & t.bit() == 0
            })
            .count();
        pieces >= 2
    }

    fn capture_value(&self, m: Move) -> Option<i32> {
        let c = self.pos.cell(m.to());
        if m.kind() == MoveKind::EnPassant {
            return Some(self.values[m.part().index()]);
        }
        if c.is_color(self.pos.side_to_move().flip()) {
            return Some(self.values[c.kind().index()]);
        }
        None
    }

    /// The continuation keys of the moves one and two plies before `ply`.
    fn before(&self, ply: usize) -> [Option<ContKey>; 2] {
        let at = |back: usize| ply.checked_sub(back).and_then(|p| self.keys[p]);
        [at(1), at(2)]
    }

    /// Index of the move just made (none after a null move or at the root
    /// position) in the counter-move table.
    fn counter_index(&self) -> Option<usize> {
        let last = self.pos.history.last()?.mv;
        (last != Move::NONE)
            .then(|| self.pos.cell(last.to()).0 as usize * BOARD_CELLS + last.to().index())
    }

    /// Whether the side to move's position is better than two plies before
    /// (or four, when that node was in check; yes when neither is known).
    fn improving(&self, ply: usize, eval: i32) -> bool {
        [2, 4]
            .iter()
            .filter_map(|&back| ply.checked_sub(back).map(|p| self.evals[p]))
            .find(|&e| e != NO_EVAL)
            .is_none_or(|e| eval > e)
    }

    /// Cell codes of the opponent's men worth at least `need`.
    fn victims_worth(&self, need: i32) -> CodeMask {
        let them = self.pos.side_to_move().flip() as u32;
        let mut mask = 0;
        for (t, &value) in self.values.iter().enumerate() {
            if value >= need {
                mask |= 1 << (2 + 2 * t as u32 + them);
            }
        }
        mask
    }

    /// Ordering scores for the moves of a node: captures that do not lose
    /// material by most valuable victim, then promotions, killers, the
    /// counter move, quiet moves by history, and last (with `sort_losers`)
    /// the captures that lose material.
    ///
    /// The scores of `list` are appended to `scores`.
    fn score_moves(
        &self,
        list: &[Move],
        ply: usize,
        sort_losers: bool,
        scores: &mut ArrayVec<i32, { crate::rules::types::MAX_MOVES }>,
    ) {
        let before = self.before(ply);
        let counter = self
            .counter_index()
            .map_or(Move::NONE, |k| self.mem.counters[k]);
        for &m in list.iter() {
            let s = if let Some(victim) = self.capture_value(m) {
                let mvv = victim * 16 - self.values[m.part().index()] / 16
                    + self.mem.capture(&self.pos, m) / 8;
                if sort_losers && !see_ge(&self.pos, m, 0) {
                    -1_000_000 + mvv
                } else {
                    1_000_000 + mvv
                }
            } else if matches!(m.kind(), MoveKind::Promotion | MoveKind::PairPromotion) {
                900_000 + self.values[m.result().index()]
            } else if m == self.killers[ply][0] {
                800_000
            } else if m == self.killers[ply][1] {
                790_000
            } else if m == counter {
                COUNTER_ORDER
            } else {
                self.mem.quiet(&self.pos, m, before)
            };
            let _ = scores.try_push(s);
        }
    }

    /// Bring the best-scored remaining move to position `i`.
    fn pick(
        list: &mut MoveList,
        scores: &mut ArrayVec<i32, { crate::rules::types::MAX_MOVES }>,
        i: usize,
    ) {
        let rest = &scores[i..];
        let best = if rest.len() >= LONG_PICK {
            // Two passes that the compiler turns into vector code: the
            // highest score, then its first position (as below).
            let top = rest.iter().copied().fold(i32::MIN, i32::max);
            i + rest.iter().position(|&s| s == top).unwrap_or(0)
        } else {
            let mut best = i;
            let mut top = scores[i];
            for (j, &s) in scores.iter().enumerate().skip(i + 1) {
                if s > top {
                    top = s;
                    best = j;
                }
            }
            best
        };
        list.swap(i, best);
        scores.swap(i, best);
    }

    /// The value of a node without legal moves: mated, or stalemate as the
    /// variant scores it.
    fn no_moves_value(&self, in_check: bool, ply: usize) -> i32 {
        if in_check {
            -MATE + ply as i32
        } else {
            self.pos.variant().stalemate_value as i32 * (MATE - ply as i32)
        }
    }

    /// Quiescence search. `in_check` is whether the side to move is in
    /// check, when the caller already knows it.
    fn qsearch(&mut self, mut alpha: i32, beta: i32, ply: usize, in_check: Option<bool>) -> i32 {
        if let Some(score) = self.enter_node(ply) {
            return score;
        }
        // Every entry is at least as deep as the quiescence search.
        if let Some(s) = self
            .shared
            .tt
            .probe(self.pos.hash())
            .and_then(|e| tt_cutoff(&e, alpha, beta, ply))
        {
            return s;
        }
        let in_check = in_check.unwrap_or_else(|| self.pos.in_check());
        let mut list = MoveList::new();
        let mut best = -INFINITE;
        if in_check {
            legal_moves(&mut self.pos, &mut list);
            if list.is_empty() {
                return -MATE + ply as i32;
            }
        } else {
            // Far above beta on material alone: no need for the full evaluation.
            let quick = crate::engine::eval::quick(&self.pos);
            if quick - crate::engine::eval::LAZY_MARGIN >= beta {
                return quick - crate::engine::eval::LAZY_MARGIN;
            }
            let stand_pat = self.evaluate();
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
            // The captures are generated only when the stand-pat fails to
            // cut, and only of men whose value can bring the score near alpha.
            captures_of(
                &self.pos,
                self.victims_worth(alpha - stand_pat - 200),
                &mut list,
            );
            // En passant and the choice not to promote come whatever the
            // victim: skip those that cannot bring the score near alpha.
            let mut keep = 0;
            for i in 0..list.len() {
                let m = list[i];
                let promo = matches!(m.kind(), MoveKind::Promotion | MoveKind::PairPromotion);
                if promo || stand_pat + self.capture_value(m).unwrap_or(0) + 200 >= alpha {
                    list[keep] = m;
                    keep += 1;
                }
            }
            list.truncate(keep);
        }
        let mut scores = ArrayVec::new();
        self.score_moves(&list, ply, false, &mut scores);
        for i in 0..list.len() {
            Self::pick(&mut list, &mut scores, i);
            let m = list[i];
            // Out of check, captures that lose material are not searched.
            if !in_check && !see_ge(&self.pos, m, 0) {
                continue;
            }
            if !in_check
                && needs_test(&self.pos, m)
                && !leaves_king_safe_unchecked(&mut self.pos, m)
            {
                continue;
            }
            self.pos.make(m);
            let score = -self.qsearch(-beta, -alpha, ply + 1, None);
            self.pos.unmake();
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
        pv_node: bool,
        null_ok: bool,
    ) -> i32 {
        self.pv[ply].clear();
        let in_check = if self.check_hint.0 == self.pos.hash() {
            self.check_hint.1
        } else {
            self.pos.in_check()
        };
        if in_check {
            depth += 1;
        }
        if depth <= 0 {
            return self.qsearch(alpha, beta, ply, Some(in_check));
        }
        if let Some(score) = self.enter_node(ply) {
            return score;
        }
        if ply > 0 {
            if self.is_draw() {
                return 0;
            }
            // Mate-distance pruning.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        let hash = self.pos.hash();
        let entry = self.shared.tt.probe(hash);
        let tt_move = entry.map_or(Move::NONE, |e| e.mv);
        // A search that leaves a move out neither takes the entry's score
        // (it is about all the moves) nor stores its own.
        let excluded = self.excluded[ply];
        if let Some(e) = entry
            && !pv_node
            && excluded == Move::NONE
            && e.depth >= depth
            && let Some(s) = tt_cutoff(&e, alpha, beta, ply)
        {
            return s;
        }
        // Internal iterative reduction: without a table move the first moves
        // tried are guesses, so the node is searched a ply shallower (its
        // entry then gives the next visit a move).
        if depth >= 4 && tt_move == Move::NONE {
            depth -= 1;
        }
        let eval = if in_check { NO_EVAL } else { self.evaluate() };
        self.evals[ply] = eval;
        let improving = !in_check && self.improving(ply, eval);
        if !pv_node && !in_check && ply > 0 && excluded == Move::NONE {
            // Reverse futility: far above beta near the leaves. Only at
            // the last four plies: deeper, a side far ahead after a
            // sacrifice is often lost to a quiet threat (a mate to come)
            // that the static evaluation cannot see, and a late quiet move
            // reduced into this range would never be searched again.
            if depth <= 4
                && eval - 90 * (depth - improving as i32) >= beta
                && beta.abs() < MATE_BOUND
            {
                return eval;
            }
            // Null move, not where zugzwang is likely.
            if null_ok && depth >= 3 && eval >= beta && self.null_move_safe() {
                let r = 3 + depth / 4;
                self.keys[ply] = None;
                self.pos.make_null();
                let score = -self.search(-beta, -beta + 1, depth - 1 - r, ply + 1, false, false);
                self.pos.unmake();
                if self.aborted {
                    return 0;
                }
                if score >= beta {
                    return if score >= MATE_BOUND { beta } else { score };
                }
            }
        }
        let mut list = MoveList::new();
        let mut scores = ArrayVec::new();
        // The table's move is tried before the others are generated.
        let mut tt_pending = excluded == Move::NONE && is_legal(&mut self.pos, tt_move, in_check);
        // Singular extension: when every other move falls well short of the
        // table move's score in a reduced search, the table move is the
        // only good one and is searched a ply deeper. When even without it
        // the node fails high, several moves refute the line (multi-cut).
        let mut tt_extension = 0;
        if let Some(e) = entry
            && tt_pending
            && ply > 0
            && depth >= 6
            && ply < 2 * self.root_depth as usize
            && e.depth >= depth - 3
            && e.bound != Bound::Upper
            && e.score.abs() < MATE_BOUND
        {
            let singular_beta = e.score - 2 * depth;
            self.excluded[ply] = tt_move;
            let v = self.search(
                singular_beta - 1,
                singular_beta,
                (depth - 1) / 2,
                ply,
                false,
                false,
            );
            self.excluded[ply] = Move::NONE;
            if self.aborted {
                return 0;
            }
            if v < singular_beta {
                tt_extension = 1;
            } else if !pv_node && singular_beta >= beta {
                return singular_beta;
            }
        }
        // The move already searched or left out, which the generated lists
        // must not bring again.
        let skip = if excluded != Move::NONE {
            excluded
        } else if tt_pending {
            tt_move
        } else {
            Move::NONE
        };
        // Staged generation: out of check the captures and promotions come
        // first, and the other moves are generated only when no capture
        // that wins or keeps material (and no promotion) is left, so a
        // cutoff by a capture saves their generation.
        let mut captures_generated = in_check;
        let mut rest_generated = false;
        // The moves `list[..staged]` are the captures and promotions, pseudo-legal.
        let mut staged = 0;
        let mut next = 0;
        let us = self.pos.side_to_move();
        let king = self.pos.king_square(us);
        let mut best = -INFINITE;
        let mut best_move = Move::NONE;
        let original_alpha = alpha;
        let mut quiets_tried: ArrayVec<Move, 64> = ArrayVec::new();
        let mut captures_tried: ArrayVec<Move, 32> = ArrayVec::new();
        let before = self.before(ply);
        let mut i = 0usize;
        loop {
            // The move, and its ordering score when it came from the list.
            let (m, order) = if tt_pending {
                tt_pending = false;
                (tt_move, None)
            } else {
                if !captures_generated {
                    captures_generated = true;
                    captures_pseudo(&self.pos, &mut list);
                    if let Some(k) = list.iter().position(|&x| x == skip) {
                        list.remove(k);
                    }
                    staged = list.len();
                    self.score_moves(&list, ply, true, &mut scores);
                }
                if next < list.len() {
                    Self::pick(&mut list, &mut scores, next);
                }
                if !rest_generated && (next >= list.len() || scores[next] < GOOD_CAPTURE_ORDER) {
                    rest_generated = true;
                    let mut rest = MoveList::new();
                    legal_moves_king_untested(&mut self.pos, &mut rest);
                    if rest.is_empty() {
                        return self.no_moves_value(in_check, ply);
                    }
                    let from = list.len();
                    for &m in rest.iter() {
                        if m != skip && !list[..staged].contains(&m) {
                            list.push(m);
                        }
                    }
                    self.score_moves(&list[from..], ply, true, &mut scores);
                    if next < list.len() {
                        Self::pick(&mut list, &mut scores, next);
                    }
                }
                if next >= list.len() {
                    break;
                }
                next += 1;
                let m = list[next - 1];
                if next <= staged {
                    // A pseudo-legal capture or promotion.
                    if needs_test(&self.pos, m) && !leaves_king_safe_unchecked(&mut self.pos, m) {
                        continue;
                    }
                } else if !in_check
                    && m.from() == king
                    && m.kind() != MoveKind::Castle
                    && !leaves_king_safe_unchecked(&mut self.pos, m)
                {
                    // The king's own moves come untested (see
                    // `legal_moves_king_untested`).
                    continue;
                }
                (m, Some(scores[next - 1]))
            };
            let promotion = matches!(m.kind(), MoveKind::Promotion | MoveKind::PairPromotion);
            let capture = self.capture_value(m).is_some();
            let quiet = !capture && !promotion;
            // A quiet move's ordering score is its history, except for the
            // table move, the killers and the counter move.
            let history = match order {
                _ if !quiet => 0,
                Some(s) if s < COUNTER_ORDER => s,
                _ => self.mem.quiet(&self.pos, m, before),
            };
            // Pruning near the leaves, once a move has been searched.
            // Quiet moves: late ones (late-move pruning), those that cannot
            // bring the static evaluation near alpha (futility) and those
            // that lose the man (exchange evaluation); checking moves are
            // spared, found here without making the move. Captures: those
            // that lose more than a depth-scaled margin.
            if !pv_node && !in_check && best > -MATE_BOUND && depth <= 6 {
                let prune = if quiet {
                    let late = if improving {
                        4 + depth * depth
                    } else {
                        (4 + depth * depth) / 2
                    };
                    (depth <= 5 && i as i32 >= late
                        || eval + 100 + 90 * depth <= alpha
                        || depth <= 4 && history < -4_000 * depth
                        || !see_ge(&self.pos, m, -25 * depth * depth))
                        && !gives_check(&mut self.pos, m)
                } else {
                    !promotion && !see_ge(&self.pos, m, -100 * depth)
                };
                if prune {
                    i += 1;
                    continue;
                }
            }
            self.keys[ply] = Some(self.mem.key(&self.pos, m));
            self.pos.make(m);
            let gives_check = quiet && self.pos.in_check();
            if quiet {
                self.check_hint = (self.pos.hash(), gives_check);
            }
            let mut score;
            if i == 0 {
                let extension = if m == tt_move { tt_extension } else { 0 };
                score = -self.search(-beta, -alpha, depth - 1 + extension, ply + 1, pv_node, true);
            } else {
                let mut r = if quiet && !in_check && !gives_check {
                    reduction(depth, i + 1)
                } else {
                    0
                };
                if pv_node {
                    r = (r - 1).max(0);
                }
                if m == self.killers[ply][0] || m == self.killers[ply][1] {
                    r = (r - 1).max(0);
                }
                // Moves with a good history are reduced less, bad ones more.
                r -= history / 16_384;
                let r = r.min(depth - 2).max(0);
                score = -self.search(-alpha - 1, -alpha, depth - 1 - r, ply + 1, false, true);
                if score > alpha && r > 0 {
                    score = -self.search(-alpha - 1, -alpha, depth - 1, ply + 1, false, true);
                }
                if score > alpha && score < beta {
                    score = -self.search(-beta, -alpha, depth - 1, ply + 1, true, true);
                }
            }
            self.pos.unmake();
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                best_move = m;
                if score > alpha {
                    alpha = score;
                    if pv_node {
                        let (head, tail) = self.pv.split_at_mut(ply + 1);
                        head[ply].clear();
                        head[ply].push(m);
                        head[ply].extend_from_slice(&tail[0]);
                    }
                    if score >= beta {
                        let bonus = history::bonus(depth);
                        if quiet {
                            if self.killers[ply][0] != m {
                                self.killers[ply][1] = self.killers[ply][0];
                                self.killers[ply][0] = m;
                            }
                            if let Some(k) = self.counter_index() {
                                self.mem.counters[k] = m;
                            }
                            self.mem.update_quiet(&self.pos, m, before, bonus);
                            for &q in &quiets_tried {
                                self.mem.update_quiet(&self.pos, q, before, -bonus);
                            }
                        } else if capture {
                            self.mem.update_capture(&self.pos, m, bonus);
                        }
                        // The captures tried first did not refute the line.
                        for &c in &captures_tried {
                            self.mem.update_capture(&self.pos, c, -bonus);
                        }
                        break;
                    }
                }
            }
            if quiet {
                let _ = quiets_tried.try_push(m);
            } else if capture {
                let _ = captures_tried.try_push(m);
            }
            i += 1;
        }
        if best == -INFINITE && excluded != Move::NONE {
            // The left-out move was the only one.
            return alpha;
        }
        if i == 0 && best == -INFINITE {
            // Every generated move was an illegal king move.
            return self.no_moves_value(in_check, ply);
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if excluded == Move::NONE {
            self.shared
                .tt
                .store(hash, best_move, to_tt(best, ply), depth, bound);
        }
        best
    }

    /// Search the root moves `first..` with a window; returns the best score.
    fn root_search(
        &mut self,
        roots: &mut [RootMove],
        first: usize,
        mut alpha: i32,
        beta: i32,
        depth: i32,
    ) -> i32 {
        let mut best = -INFINITE;
        let in_check = self.pos.in_check();
        self.evals[0] = NO_EVAL;
        self.root_depth = depth;
        for i in first..roots.len() {
            let m = roots[i].mv;
            self.keys[0] = Some(self.mem.key(&self.pos, m));
            self.pos.make(m);
            let mut score;
            if i == first {
                score = -self.search(-beta, -alpha, depth - 1, 1, true, true);
            } else {
                let quiet = self.pos.cell(m.to()).is_empty();
                let r = if quiet && !in_check && depth >= 3 && i - first >= 4 {
                    1
                } else {
                    0
                };
                score = -self.search(-alpha - 1, -alpha, depth - 1 - r, 1, false, true);
                if score > alpha && (score < beta || r > 0) {
                    score = -self.search(-beta, -alpha, depth - 1, 1, true, true);
                }
            }
            self.pos.unmake();
            if self.aborted {
                return best;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                roots[i].score = score;
                let mut pv = vec![m];
                pv.extend_from_slice(&self.pv[1]);
                roots[i].pv = pv;
                // Keep the best move first.
                roots[first..=i].rotate_right(1);
                alpha = score;
                if score >= beta {
                    return score;
                }
            } else {
                roots[i].score = -INFINITE;
            }
        }
        best
    }
}

/// Run a search on `pos` with the given limits. `on_info` is called by the
/// main thread after each iteration and each MultiPV line. `memory` holds
/// the histories an earlier search of the game learnt (it is resized, and so
/// forgotten, when the variant differs) and receives the main thread's.
#[allow(clippy::too_many_arguments)]
pub fn search(
    pos: &Position,
    limits: &Limits,
    options: &SearchOptions,
    tt: &Arc<TranspositionTable>,
    memory: &mut SearchMemory,
    stop: &Arc<AtomicBool>,
    search_moves: &[Move],
    on_info: &mut dyn FnMut(&SearchInfo),
) -> SearchResult {
    if !memory.fits(pos.variant()) {
        *memory = SearchMemory::new(pos.variant());
    }
    let budget = limits.budget();
    let shared = Shared {
        tt: tt.clone(),
        stop: stop.clone(),
        done: AtomicBool::new(false),
        nodes: AtomicU64::new(0),
        start: Instant::now(),
        hard: budget.hard,
        depth1_limit: budget.hard.map_or(DEPTH1_GRACE, |h| h.saturating_mul(2)),
        node_limit: limits.nodes,
        helper_best: std::sync::Mutex::new(None),
    };
    tt.new_search();
    let mut root = pos.clone();
    let mut legal: Vec<Move> = root.legal_moves().to_vec();
    if !search_moves.is_empty() {
        legal.retain(|m| search_moves.contains(m));
    }
    if legal.is_empty() {
        let value = if root.in_check() {
            Value::Mate(0)
        } else {
            Value::Cp(0)
        };
        return SearchResult {
            best: None,
            ponder: None,
            value,
            depth: 0,
            nodes: 0,
        };
    }
    let max_depth = limits
        .depth
        .unwrap_or(MAX_PLY as u32 - 10)
        .clamp(1, MAX_PLY as u32 - 10) as i32;
    let threads = options.threads.max(1);
    let multipv = options.multipv.clamp(1, legal.len());
    let mut result = SearchResult {
        best: Some(legal[0]),
        ponder: None,
        value: Value::Cp(0),
        depth: 0,
        nodes: 0,
    };
    std::thread::scope(|scope| {
        for id in 1..threads {
            let shared = &shared;
            let pos = pos.clone();
            let legal = legal.clone();
            let mem = memory.clone();
            let builder = std::thread::Builder::new().stack_size(32 << 20);
            let _ = builder.spawn_scoped(scope, move || {
                let mut w = Worker::new(pos, shared, false, mem);
                let mut roots = RootMove::list(&legal);
                // Helpers start at different depths so that they desynchronise.
                let mut depth = 1 + (id % 2) as i32;
                while depth <= max_depth && !shared.stopped() {
                    w.aborted = false;
                    w.root_search(&mut roots, 0, -INFINITE, INFINITE, depth);
                    if w.aborted {
                        break;
                    }
                    // Publish the iteration; the first thread to complete the
                    // last depth ends the search for all.
                    if let Ok(mut best) = shared.helper_best.lock()
                        && best.as_ref().is_none_or(|b| b.0 < depth)
                    {
                        *best = Some((depth, roots[0].score, roots[0].pv.clone()));
                    }
                    if depth == max_depth && limits.depth.is_some() {
                        shared.done.store(true, Ordering::Relaxed);
                    }
                    depth += 1;
                }
                w.flush();
            });
        }
        // The main thread.
        let mut w = Worker::new(pos.clone(), &shared, true, std::mem::take(memory));
        let mut roots = RootMove::list(&legal);
        let mut prev = 0;
        // Iterations in a row that kept the best move, and the best move
        // and score of the last one (for the soft limit's scale).
        let mut stable = 0u32;
        let mut last: Option<(Move, i32)> = None;
        for depth in 1..=max_depth {
            w.seldepth = 0;
            w.finish_iteration = depth == 1;
            for pv_idx in 0..multipv {
                // Aspiration window around the previous score.
                let mut delta = 25;
                let (mut lo, mut hi) = if depth >= 5 && pv_idx == 0 {
                    ((prev - delta).max(-INFINITE), (prev + delta).min(INFINITE))
                } else {
                    (-INFINITE, INFINITE)
                };
                loop {
                    w.aborted = false;
                    let score = w.root_search(&mut roots, pv_idx, lo, hi, depth);
                    if w.aborted {
                        break;
                    }
                    if score <= lo && lo > -INFINITE {
                        lo = (lo - delta).max(-INFINITE);
                        delta *= 2;
                    } else if score >= hi && hi < INFINITE {
                        hi = (hi + delta).min(INFINITE);
                        delta *= 2;
                    } else {
                        break;
                    }
                }
                if w.aborted {
                    break;
                }
                // Order the searched lines by score (best first).
                roots[pv_idx..].sort_by_key(|r| std::cmp::Reverse(r.score));
                if pv_idx == 0 {
                    prev = roots[0].score;
                }
            }
            let completed = !w.aborted;
            // An iteration cut short: a root move whose search finished
            // above the window's lower bound is kept first by the root search,
            // so it beats every move searched before it, the last best
            // included (whose own score is then set too).
            if !completed
                && depth > 1
                && multipv == 1
                && roots[0].score > -INFINITE
                && result.best != Some(roots[0].mv)
            {
                result.best = Some(roots[0].mv);
                result.ponder = roots[0].pv.get(1).copied();
                result.value = Value::from_score(roots[0].score);
                // Its line, so that the last one shown begins with the move played.
                on_info(&w.info_line(depth, 1, result.value, roots[0].pv.clone()));
            }
            if !completed && depth == 1 && roots[0].score > -INFINITE {
                // Depth 1 cut short (see `finish_iteration`): the best root
                // move searched so far (the root search keeps it first).
                result.best = Some(roots[0].mv);
                result.ponder = roots[0].pv.get(1).copied();
                result.value = Value::from_score(roots[0].score);
            }
            if completed {
                for (k, r) in roots.iter().take(multipv).enumerate() {
                    if r.score == -INFINITE {
                        continue;
                    }
                    on_info(&w.info_line(depth, k + 1, Value::from_score(r.score), r.pv.clone()));
                }
                result.best = Some(roots[0].mv);
                result.ponder = roots[0].pv.get(1).copied();
                result.value = Value::from_score(roots[0].score);
                result.depth = depth as u32;
            }
            if !completed || shared.stopped() {
                break;
            }
            // A forced mate found, or the soft time limit reached: stop.
            if !limits.infinite {
                if roots[0].score.abs() >= MATE_BOUND
                    && depth >= 2 * (MATE - roots[0].score.abs()) + 2
                {
                    break;
                }
                let (best, score) = (roots[0].mv, roots[0].score);
                let drop = last.map_or(0, |(_, s)| s.saturating_sub(score));
                stable = match last {
                    Some((m, _)) if m == best => stable + 1,
                    _ => 0,
                };
                last = Some((best, score));
                // A fixed time (`movetime`) is spent whole: the hard limit ends it.
                if let Some(soft) = budget.soft
                    && !budget.fixed
                    && shared.start.elapsed() >= soft.mul_f64(time::soft_scale(stable, drop))
                {
                    break;
                }
            }
        }
        // A helper may have completed a deeper iteration than the main thread.
        let helper = shared.helper_best.lock().ok().and_then(|b| b.clone());
        if let Some((depth, score, pv)) = helper
            && depth as u32 > result.depth
            && multipv == 1
            && !pv.is_empty()
        {
            on_info(&w.info_line(depth, 1, Value::from_score(score), pv.clone()));
            result.best = Some(pv[0]);
            result.ponder = pv.get(1).copied();
            result.value = Value::from_score(score);
            result.depth = depth as u32;
        }
        // An infinite or pondering search waits for `stop` (or the end of
        // pondering) before answering.
        while limits.waits_for_stop() && !shared.stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(2));
        }
        w.flush();
        shared.done.store(true, Ordering::Relaxed);
        *memory = std::mem::take(&mut w.mem);
    });
    result.nodes = shared.nodes.load(Ordering::Relaxed);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::selfplay::Rng;

    /// The picks of a whole list, made by [`Worker::pick`] and by the plain
    /// selection (the first best from `i` on, swapped to `i`), agree move
    /// for move, on lists short and long, with many equal scores.
    #[test]
    fn pick_takes_the_first_best_in_short_and_long_lists() {
        let mut rng = Rng::new(17);
        for len in (1..=40).chain([63, 64, 65, 200, 1024]) {
            for spread in [3, 1_000] {
                let mut list = MoveList::new();
                let mut scores = ArrayVec::<i32, { crate::rules::types::MAX_MOVES }>::new();
                for j in 0..len {
                    list.push(Move(j as u32));
                    scores.push((rng.next_u64() % spread) as i32 - spread as i32 / 2);
                }
                let (mut want, mut want_scores) = (list.clone(), scores.clone());
                for i in 0..len {
                    Worker::pick(&mut list, &mut scores, i);
                    let mut best = i;
                    for j in i + 1..len {
                        if want_scores[j] > want_scores[best] {
                            best = j;
                        }
                    }
                    want.swap(i, best);
                    want_scores.swap(i, best);
                    assert_eq!(list[i], want[i], "length {len}, spread {spread}, pick {i}");
                }
            }
        }
    }
}
