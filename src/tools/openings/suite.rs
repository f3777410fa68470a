//! Opening suites: distinct positions reached by random legal plies from
//! the start position, each kept only when a short search scores it within
//! a margin of equality, written as EPD lines (`ce` holds the score).

use super::random::random_opening;
use crate::engine::eval::Evaluator;
use crate::engine::search::{Limits, SearchOptions, Searcher, Value};
use crate::rules::board::Position;
use crate::rules::variant::Variant;
use crate::util::rng::Rng;
use std::collections::HashSet;
use std::sync::Arc;

/// How a suite is made.
#[derive(Clone, Debug)]
pub struct SuiteOptions {
    pub count: usize,
    pub plies: usize,
    /// Largest score (centipawns, either side) a kept position may have.
    pub max_score: i32,
    pub seed: u64,
    /// Nodes of the search that scores each position.
    pub nodes: u64,
}

impl Default for SuiteOptions {
    fn default() -> Self {
        SuiteOptions {
            count: 500,
            plies: 8,
            max_score: 100,
            seed: 1,
            nodes: 20_000,
        }
    }
}

/// Candidates tried per position asked for, before the suite is given up
/// as short (a variant whose random openings are rarely balanced).
const TRIES_PER_POSITION: usize = 50;

/// The EPD lines of a suite. Deterministic for the options: random plies
/// from a seeded generator, then a one-thread node-limited search with a
/// fresh table. `progress` is told the positions kept and candidates tried.
pub fn generate(
    variant: &Arc<Variant>,
    eval: &Evaluator,
    opts: &SuiteOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Vec<String> {
    let mut rng = Rng::new(opts.seed);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let tries = opts.count.saturating_mul(TRIES_PER_POSITION);
    for tried in 1..=tries {
        if out.len() >= opts.count {
            break;
        }
        let pos = random_opening(variant, opts.plies, &mut rng);
        let fen = pos.to_fen();
        let key: String = fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
        if !seen.insert(key.clone()) {
            continue;
        }
        if let Some(cp) = score(&pos, eval, opts.nodes)
            && cp.abs() <= opts.max_score
        {
            out.push(format!("{key} ce {cp};"));
            progress(out.len(), tried);
        }
    }
    out
}

/// The search score of a position (side to move's view), none for a mate.
fn score(pos: &Position, eval: &Evaluator, nodes: u64) -> Option<i32> {
    let limits = Limits {
        nodes: Some(nodes),
        ..Default::default()
    };
    let r = Searcher::new(4).search(
        pos,
        eval,
        &limits,
        &SearchOptions::default(),
        &[],
        &mut |_| {},
    );
    match r.value {
        Value::Cp(cp) if r.best.is_some() => Some(cp),
        _ => None,
    }
}
