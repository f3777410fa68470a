//! Perft: counting the leaves of the legal move tree, with bulk counting at
//! the last ply, optionally spread over threads by root move.

use crate::rules::board::Position;
use crate::rules::movegen::{count_legal, legal_moves};
use crate::rules::types::{Move, MoveList};
use rayon::prelude::*;

/// Leaves of the move tree of depth `depth`.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return count_legal(pos) as u64;
    }
    let mut list = MoveList::new();
    legal_moves(pos, &mut list);
    let mut nodes = 0;
    for &m in list.iter() {
        pos.make(m);
        nodes += perft(pos, depth - 1);
        pos.unmake();
    }
    nodes
}

/// Per-root-move counts (move text, leaves), sorted by move text. With more
/// than one thread the root moves are shared out by rayon.
pub fn divide(pos: &Position, depth: u32, threads: usize) -> Vec<(String, u64)> {
    let mut root = pos.clone();
    let moves: Vec<Move> = root.legal_moves().to_vec();
    let count = |m: &Move| {
        let mut p = pos.clone();
        let text = p.move_text(*m);
        p.make(*m);
        let n = if depth == 0 {
            1
        } else {
            perft(&mut p, depth - 1)
        };
        (text, n)
    };
    let mut out: Vec<(String, u64)> = if threads > 1 {
        match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(pool) => pool.install(|| moves.par_iter().map(count).collect()),
            Err(_) => moves.iter().map(count).collect(),
        }
    } else {
        moves.iter().map(count).collect()
    };
    out.sort();
    out
}
