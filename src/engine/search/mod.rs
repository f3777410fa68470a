//! Alpha-beta search: iterative deepening, principal variation search with
//! aspiration windows, a shared transposition table, quiescence search,
//! null-move pruning, late-move reductions, check extension, mate-distance
//! pruning, draw detection, MultiPV and Lazy SMP.
//!
//! This module holds the search's reported types and one search thread's
//! state ([`Worker`]) with its node counting; the driver (iterative
//! deepening, threads) is in `driver`, the node functions (alpha-beta and
//! quiescence) in `node`, and move ordering in `picker`. Searches are set
//! up and run through a [`Searcher`].

mod driver;
pub mod history;
mod node;
mod picker;
mod searcher;
pub mod see;
pub mod time;
pub mod tt;

use crate::engine::eval::{EvalTables, Evaluator, ThreadEval};
use crate::rules::board::Position;
use crate::rules::types::{BOARD_CELLS, Move, MoveKind};
use history::{ContKey, SearchMemory};
pub use searcher::Searcher;
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
    /// Evaluate with the variant's network where it has one (else, and
    /// when off, with the hand-written evaluation).
    pub use_nnue: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            threads: 1,
            multipv: 1,
            use_nnue: true,
        }
    }
}

/// State shared by the threads of one search.
struct Shared {
    tt: Arc<TranspositionTable>,
    /// Set from outside (a `stop` command) or when the main thread is done.
    stop: Arc<AtomicBool>,
    done: AtomicBool,
    nodes: AtomicU64,
    start: Instant,
    hard: Option<Duration>,
    /// When depth 1, searched on after a stop or limit, must end (see
    /// [`Worker::finish_iteration`]).
    depth1_grace: driver::Depth1Grace,
    node_limit: Option<u64>,
    /// The deepest iteration a helper thread completed: (depth, score, pv).
    helper_best: std::sync::Mutex<Option<(i32, i32, Vec<Move>)>>,
}

impl Shared {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.done.load(Ordering::Relaxed)
    }
}

/// One search thread.
struct Worker<'a> {
    pos: Position,
    shared: &'a Shared,
    /// The evaluation of the position's variant, following the searched
    /// line.
    eval: ThreadEval<'a>,
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
    /// unless depth 1 runs past `depth1_grace` (a position whose captures
    /// explode, such as a variant with many queens): then it stops too, and
    /// the best root move searched so far is played.
    finish_iteration: bool,
    /// Static evaluations by position hash (positions recur often in the
    /// quiescence search).
    eval_cache: Vec<(u64, i32)>,
    /// Whether the position with this hash is in check, when the parent node
    /// already found out (saves the child a scan).
    check_hint: (u64, bool),
}

impl<'a> Worker<'a> {
    fn new(
        pos: Position,
        shared: &'a Shared,
        evaluator: &'a Evaluator,
        main: bool,
        mem: SearchMemory,
        use_net: bool,
    ) -> Worker<'a> {
        let values = evaluator.tables().value.clone();
        let eval = evaluator.for_thread(&pos, use_net);
        Worker {
            pos,
            shared,
            eval,
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
            check_hint: (0, false),
        }
    }

    /// Count a node at `ply`; a score when the search must return at once
    /// (stopped, or at the maximum ply).
    fn enter_node(&mut self, ply: usize) -> Option<i32> {
        self.tick();
        self.seldepth = self.seldepth.max(ply);
        if self.shared.stopped() && (!self.finish_iteration || self.depth1_over()) {
            self.aborted = true;
            return Some(0);
        }
        (ply >= MAX_PLY).then(|| self.evaluate())
    }

    /// Whether depth 1, searched on after a stop, has run out of its grace.
    fn depth1_over(&self) -> bool {
        let grace = self.shared.depth1_grace;
        let clock_decides = grace.nodes.is_none() || self.shared.stop.load(Ordering::Relaxed);
        grace.nodes.is_some_and(|n| self.nodes_so_far() >= n)
            || (clock_decides && self.shared.start.elapsed() >= grace.time)
    }

    /// The nodes of the whole search so far, this thread's unpublished ones
    /// included.
    fn nodes_so_far(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed) + self.nodes - self.flushed
    }

    /// The hand-written evaluation's tables (exchange values), whichever
    /// evaluation is used.
    #[inline]
    fn tables(&self) -> &'a EvalTables {
        self.eval.tables()
    }

    /// The static evaluation, through the cache.
    fn evaluate(&mut self) -> i32 {
        let h = self.pos.hash();
        let slot = &mut self.eval_cache[(h as usize) & (EVAL_CACHE_SIZE - 1)];
        if slot.0 == h && h != 0 {
            return slot.1;
        }
        let e = self.eval.evaluate(&self.pos);
        *slot = (h, e);
        e
    }

    /// The static evaluation with the correction its pawn structure has
    /// earned in this game's searches.
    fn corrected_eval(&mut self) -> i32 {
        let raw = self.evaluate();
        (raw + self.mem.correction(&self.pos)).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// Make a move in the searched line (the accumulators follow it).
    #[inline]
    fn make(&mut self, m: Move) {
        self.pos.make(m);
        self.eval.push_move(&self.pos);
    }

    /// Make a null move in the searched line.
    #[inline]
    fn make_null(&mut self) {
        self.eval.push_null();
        self.pos.make_null();
    }

    /// Take back the last move or null move of the searched line.
    #[inline]
    fn unmake(&mut self) {
        self.eval.pop();
        self.pos.unmake();
    }

    /// Count a node; every 1024 nodes publish the count and check the limits.
    #[inline]
    fn tick(&mut self) {
        self.nodes += 1;
        if let (true, Some(limit)) = (self.main, self.shared.node_limit)
            && self.nodes_so_far() >= limit
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
}
