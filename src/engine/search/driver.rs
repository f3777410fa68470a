//! The search's driver: iterative deepening with aspiration windows and
//! MultiPV at the root, the Lazy SMP helper threads, and the collection of
//! the result.

use super::history::SearchMemory;
use super::time::{self, Limits, TimeBudget};
use super::tt::TranspositionTable;
use super::{
    INFINITE, MATE, MATE_BOUND, MAX_PLY, NO_EVAL, SearchInfo, SearchOptions, SearchResult, Shared,
    Value, Worker,
};
use crate::engine::eval::Evaluator;
use crate::rules::board::Position;
use crate::rules::types::Move;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long depth 1 may run on after a stop, counted from the start of the
/// search, when the search has no time limit. With one, it may run until
/// twice the hard limit, which is at most the clock left.
const DEPTH1_GRACE: Duration = Duration::from_secs(1);

/// How many nodes depth 1 may run past a node limit when the search has no
/// time limit (about [`DEPTH1_GRACE`] at this engine's speed). Counted in
/// nodes, a one-thread search under a node limit is a function of its
/// position and limits alone, whatever the machine's load: `datagen`'s
/// files rebuild exactly. A `stop` from outside still ends depth 1 after
/// [`DEPTH1_GRACE`], however high the node limit.
const DEPTH1_NODE_GRACE: u64 = 1_000_000;

/// When depth 1, finished after a stop, must end too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Depth1Grace {
    /// At this time since the search began: always after a `stop` from
    /// outside, and after the limit too unless `nodes` is set.
    pub time: Duration,
    /// Under a node limit alone, at this many nodes searched.
    pub nodes: Option<u64>,
}

impl Depth1Grace {
    fn new(hard: Option<Duration>, node_limit: Option<u64>) -> Self {
        match hard {
            Some(h) => Depth1Grace {
                time: h.saturating_mul(2),
                nodes: None,
            },
            None => Depth1Grace {
                time: DEPTH1_GRACE,
                nodes: node_limit.map(|n| n.saturating_add(DEPTH1_NODE_GRACE)),
            },
        }
    }
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

impl Worker<'_> {
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
            self.make(m);
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
            self.unmake();
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

/// One search's question: the position, its variant's evaluator, the
/// limits and options, and the root moves to search (empty: all).
pub(super) struct Query<'a> {
    pub pos: &'a Position,
    pub eval: &'a Evaluator,
    pub limits: &'a Limits,
    pub options: &'a SearchOptions,
    pub search_moves: &'a [Move],
}

/// What every thread of a search starts from: the question, the root
/// moves, and the settings the iterations read.
struct Start<'a> {
    query: &'a Query<'a>,
    legal: Vec<Move>,
    max_depth: i32,
    multipv: usize,
}

/// The best move's history over the main thread's iterations, for the
/// scale of the soft time limit.
#[derive(Default)]
struct Trend {
    /// Iterations in a row that kept the best move.
    stable: u32,
    /// The best move and score of the last iteration.
    last: Option<(Move, i32)>,
}

/// Run a search of `query`. `on_info` is called by the main thread after
/// each iteration and each MultiPV line. `memory` holds the histories an
/// earlier search of the game learnt (it is resized, and so forgotten, when
/// the variant differs) and receives the main thread's.
pub(super) fn search(
    query: &Query,
    tt: &Arc<TranspositionTable>,
    memory: &mut SearchMemory,
    stop: &Arc<AtomicBool>,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> SearchResult {
    let (pos, limits) = (query.pos, query.limits);
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
        depth1_grace: Depth1Grace::new(budget.hard, limits.nodes),
        node_limit: limits.nodes,
        helper_best: std::sync::Mutex::new(None),
    };
    tt.new_search();
    let Some(start) = Start::new(query) else {
        return no_move(pos);
    };
    let mut result = SearchResult {
        best: Some(start.legal[0]),
        ponder: None,
        value: Value::Cp(0),
        depth: 0,
        nodes: 0,
    };
    std::thread::scope(|scope| {
        for id in 1..query.options.threads.max(1) {
            let (start, shared, mem) = (&start, &shared, memory.clone());
            let builder = std::thread::Builder::new().stack_size(32 << 20);
            let _ = builder.spawn_scoped(scope, move || start.helper(shared, id, mem));
        }
        let mut w = start.worker(&shared, true, std::mem::take(memory));
        start.iterate(&mut w, &budget, &mut result, on_info);
        start.finish(&mut w, &mut result, on_info);
        *memory = std::mem::take(&mut w.mem);
    });
    result.nodes = shared.nodes.load(Ordering::Relaxed);
    result
}

/// The result of a search of a position without moves to search: mate or
/// stalemate.
fn no_move(pos: &Position) -> SearchResult {
    let value = if pos.in_check() {
        Value::Mate(0)
    } else {
        Value::Cp(0)
    };
    SearchResult {
        best: None,
        ponder: None,
        value,
        depth: 0,
        nodes: 0,
    }
}

impl<'a> Start<'a> {
    /// The start of a search of `query`; none when it has no move to search.
    fn new(query: &'a Query<'a>) -> Option<Start<'a>> {
        let mut root = query.pos.clone();
        let mut legal: Vec<Move> = root.legal_moves().to_vec();
        if !query.search_moves.is_empty() {
            legal.retain(|m| query.search_moves.contains(m));
        }
        if legal.is_empty() {
            return None;
        }
        let max_depth = query
            .limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 10)
            .clamp(1, MAX_PLY as u32 - 10) as i32;
        let multipv = query.options.multipv.clamp(1, legal.len());
        Some(Start {
            query,
            legal,
            max_depth,
            multipv,
        })
    }

    /// A thread of the search, at the root.
    fn worker<'s>(&self, shared: &'s Shared, main: bool, mem: SearchMemory) -> Worker<'s>
    where
        'a: 's,
    {
        let q = self.query;
        Worker::new(q.pos.clone(), shared, q.eval, main, mem, q.options.use_nnue)
    }

    /// A helper thread (Lazy SMP): iterations of its own, each completed
    /// one published for the main thread.
    fn helper(&self, shared: &Shared, id: usize, mem: SearchMemory) {
        let mut w = self.worker(shared, false, mem);
        let mut roots = RootMove::list(&self.legal);
        // Helpers start at different depths so that they desynchronise.
        let mut depth = 1 + (id % 2) as i32;
        while depth <= self.max_depth && !shared.stopped() {
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
            if depth == self.max_depth && self.query.limits.depth.is_some() {
                shared.done.store(true, Ordering::Relaxed);
            }
            depth += 1;
        }
        w.flush();
    }

    /// The main thread's iterations, one depth deeper each, until a limit,
    /// a stop or a forced mate ends them; what each finds goes into
    /// `result` and is reported.
    fn iterate(
        &self,
        w: &mut Worker,
        budget: &TimeBudget,
        result: &mut SearchResult,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) {
        let mut roots = RootMove::list(&self.legal);
        let mut prev = 0;
        let mut trend = Trend::default();
        for depth in 1..=self.max_depth {
            w.seldepth = 0;
            w.finish_iteration = depth == 1;
            for pv_idx in 0..self.multipv {
                aspiration_search(w, &mut roots, pv_idx, prev, depth);
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
            self.record(w, &roots, depth, completed, result, on_info);
            if !completed || w.shared.stopped() {
                break;
            }
            if !self.query.limits.infinite && self.enough(w, &roots, depth, budget, &mut trend) {
                break;
            }
        }
    }

    /// Keep what iteration `depth` found in `result`, and report it.
    fn record(
        &self,
        w: &mut Worker,
        roots: &[RootMove],
        depth: i32,
        completed: bool,
        result: &mut SearchResult,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) {
        let best = &roots[0];
        // An iteration cut short: a root move whose search finished
        // above the window's lower bound is kept first by the root search,
        // so it beats every move searched before it, the last best
        // included (whose own score is then set too).
        if !completed
            && depth > 1
            && self.multipv == 1
            && best.score > -INFINITE
            && result.best != Some(best.mv)
        {
            take_line(result, best.score, &best.pv);
            // Its line, so that the last one shown begins with the move played.
            on_info(&w.info_line(depth, 1, result.value, best.pv.clone()));
        }
        if !completed && depth == 1 && best.score > -INFINITE {
            // Depth 1 cut short (see `finish_iteration`): the best root
            // move searched so far (the root search keeps it first).
            take_line(result, best.score, &best.pv);
        }
        if completed {
            for (k, r) in roots.iter().take(self.multipv).enumerate() {
                if r.score == -INFINITE {
                    continue;
                }
                on_info(&w.info_line(depth, k + 1, Value::from_score(r.score), r.pv.clone()));
            }
            take_line(result, best.score, &best.pv);
            result.depth = depth as u32;
        }
    }

    /// Whether the main thread should start no deeper iteration after
    /// completing `depth`: a forced mate found, or the soft time limit
    /// reached (scaled by how long the best move has held and how far its
    /// score fell).
    fn enough(
        &self,
        w: &Worker,
        roots: &[RootMove],
        depth: i32,
        budget: &TimeBudget,
        trend: &mut Trend,
    ) -> bool {
        let (best, score) = (roots[0].mv, roots[0].score);
        if score.abs() >= MATE_BOUND && depth >= 2 * (MATE - score.abs()) + 2 {
            return true;
        }
        let drop = trend.last.map_or(0, |(_, s)| s.saturating_sub(score));
        trend.stable = match trend.last {
            Some((m, _)) if m == best => trend.stable + 1,
            _ => 0,
        };
        trend.last = Some((best, score));
        // A fixed time (`movetime`) is spent whole: the hard limit ends it.
        budget.soft.is_some_and(|soft| {
            !budget.fixed
                && w.shared.start.elapsed() >= soft.mul_f64(time::soft_scale(trend.stable, drop))
        })
    }

    /// After the main thread's iterations: a helper's deeper iteration
    /// replaces the result, and an infinite or pondering search waits for
    /// `stop` (or the end of pondering) before answering.
    fn finish(
        &self,
        w: &mut Worker,
        result: &mut SearchResult,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) {
        let shared = w.shared;
        let helper = shared.helper_best.lock().ok().and_then(|b| b.clone());
        if let Some((depth, score, pv)) = helper
            && depth as u32 > result.depth
            && self.multipv == 1
            && !pv.is_empty()
        {
            on_info(&w.info_line(depth, 1, Value::from_score(score), pv.clone()));
            take_line(result, score, &pv);
            result.depth = depth as u32;
        }
        while self.query.limits.waits_for_stop() && !shared.stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(2));
        }
        w.flush();
        shared.done.store(true, Ordering::Relaxed);
    }
}

/// Search the line `pv_idx` of the root moves at `depth`, in a window
/// around the last iteration's score `prev` (for the first line from depth
/// 5 on) that widens until the score falls inside it, or until the search
/// is cut short (`w.aborted`).
fn aspiration_search(w: &mut Worker, roots: &mut [RootMove], pv_idx: usize, prev: i32, depth: i32) {
    let mut delta = 25;
    let (mut lo, mut hi) = if depth >= 5 && pv_idx == 0 {
        ((prev - delta).max(-INFINITE), (prev + delta).min(INFINITE))
    } else {
        (-INFINITE, INFINITE)
    };
    loop {
        w.aborted = false;
        let score = w.root_search(roots, pv_idx, lo, hi, depth);
        if w.aborted {
            return;
        }
        if score <= lo && lo > -INFINITE {
            lo = (lo - delta).max(-INFINITE);
            delta *= 2;
        } else if score >= hi && hi < INFINITE {
            hi = (hi + delta).min(INFINITE);
            delta *= 2;
        } else {
            return;
        }
    }
}

/// The line `pv` with `score` becomes the result: its first move is played,
/// its second is the move to ponder.
fn take_line(result: &mut SearchResult, score: i32, pv: &[Move]) {
    result.best = pv.first().copied();
    result.ponder = pv.get(1).copied();
    result.value = Value::from_score(score);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_one_is_cut_by_nodes_under_a_node_limit_alone() {
        let grace = |time, nodes| Depth1Grace { time, nodes };
        assert_eq!(
            Depth1Grace::new(None, Some(1000)),
            grace(DEPTH1_GRACE, Some(1000 + DEPTH1_NODE_GRACE))
        );
        assert_eq!(
            Depth1Grace::new(None, Some(u64::MAX)),
            grace(DEPTH1_GRACE, Some(u64::MAX))
        );
        // A clock decides whenever there is one, nodes or not.
        let hard = Duration::from_millis(300);
        assert_eq!(
            Depth1Grace::new(Some(hard), Some(1000)),
            grace(Duration::from_millis(600), None)
        );
        assert_eq!(Depth1Grace::new(None, None), grace(DEPTH1_GRACE, None));
    }
}
