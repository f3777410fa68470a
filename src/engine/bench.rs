//! The `bench` positions: a fixed set per variant searched to a fixed depth
//! on one thread. The total node count is a signature of the search: it
//! changes only when search behaviour changes.

use crate::engine::search::{Limits, SearchOptions, Searcher};
use crate::rules::board::Position;
use crate::rules::variant_set::VariantSet;
use std::time::{Duration, Instant};

/// Default search depth of `bench`.
pub const BENCH_DEPTH: u32 = 9;

/// (variant, FEN) pairs searched by `bench`.
pub const POSITIONS: &[(&str, &str)] = &[
    (
        "chess",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ),
    (
        "chess",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    ),
    (
        "chess",
        "r3k2r/1b1nqpb1/p2ppnp1/1p4B1/3NP3/2N2Q2/PPP2PPP/2KR1B1R b kq - 3 11",
    ),
    (
        "chess",
        "r1bqk2r/pppp1Ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP2PP/RNBQK2R b KQkq - 0 5",
    ),
    ("chess", "8/2k5/8/1pP5/8/8/5K2/8 w - b6 0 1"),
    (
        "combination",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ),
    (
        "combination",
        "r3k2g/ppp1bppp/2a1p3/3p4/3P1B2/3L4/PPP2PPP/R3K2M w KQkq - 0 1",
    ),
    (
        "combination",
        "r2qk2r/pppp1ppp/2a2n2/2b1p3/2B1P3/2N2H2/PPPP1PPP/R1B1K2R w KQkq - 4 5",
    ),
    (
        "combination",
        "r3k2r/ppp2ppp/4ph2/8/1e2P3/6N1/PPQA1PPP/R3K2R w KQkq - 0 1",
    ),
    (
        "team-mate",
        "ufeakmnc/pppppppp/8/8/8/8/PPPPPPPP/UFEAKMNC w KQkq - 0 1",
    ),
    (
        "team-mate",
        "u2ak2c/1p1j1ppp/p1n1pf2/2m5/3P1E2/2J2N2/PP3PPP/U1M1K2C w KQkq - 0 1",
    ),
    ("team-mate", "4k3/1P6/6B1/3b4/8/8/2p3P1/4K2C w K - 0 1"),
    (
        "team-mate",
        "u2ak2c/pp3ppp/2p1p3/3A4/5c2/4P3/PPP2PPP/U3K1NC w KQkq - 0 1",
    ),
    (
        "compound",
        "rdcbqkbcdr/ssssssssss/10/10/10/10/SSSSSSSSSS/RDCBQKBCDR w KQkq - 0 1",
    ),
    (
        "compound",
        "r1cb1k1cdr/ss1s1sssss/2d5s1/2sSsD4/10/4C5/SSS1SSSSSS/RD1BQK1CDR w KQkq e6 0 8",
    ),
    (
        "compound",
        "r4k3r/ss1c1ss1ss/2d1s2q2/10/3S1b4/2D2C4/SS4SSSS/R4K3R w KQkq - 0 1",
    ),
    (
        "compound",
        "1r2k3d1/S1S4S2/10/3q6/6Q3/10/2s3s2s/1D2K3R1 w - - 0 1",
    ),
];

/// One bench line.
pub struct BenchLine {
    pub variant: String,
    pub fen: String,
    pub nodes: u64,
    pub time: Duration,
}

/// Search every bench position of `variant` (all when `None`) to `depth`,
/// each with a fresh 16 MB table, on `threads` threads.
pub fn run(
    set: &VariantSet,
    variant: Option<&str>,
    depth: u32,
    threads: usize,
) -> Result<Vec<BenchLine>, String> {
    let mut lines = Vec::new();
    for &(name, fen) in POSITIONS
        .iter()
        .filter(|(n, _)| variant.is_none_or(|v| v == *n))
    {
        let (v, eval) = crate::engine::eval::compile(set, name).map_err(|e| format!("{e:?}"))?;
        let pos = Position::from_fen(v, fen).map_err(|e| e.to_string())?;
        let mut searcher = Searcher::new(16);
        // Bring the tables' pages into memory before the clock starts.
        searcher.prefault(pos.variant());
        let limits = Limits {
            depth: Some(depth),
            ..Default::default()
        };
        let options = SearchOptions {
            threads,
            multipv: 1,
            ..Default::default()
        };
        let start = Instant::now();
        let r = searcher.search(&pos, &eval, &limits, &options, &[], &mut |_| {});
        lines.push(BenchLine {
            variant: name.to_string(),
            fen: fen.to_string(),
            nodes: r.nodes,
            time: start.elapsed(),
        });
    }
    if lines.is_empty() {
        return Err(format!(
            "no bench positions for variant '{}'",
            variant.unwrap_or("")
        ));
    }
    Ok(lines)
}
