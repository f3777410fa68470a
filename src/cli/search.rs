//! The commands that count moves or search one position at a time: `perft`,
//! `bench`, `go` and `epd`.

use super::{CommandResult, Hash, Limit, Threads, text};
use crate::rules::board::Position;
use crate::rules::variant_set::VariantSet;
use clap::Args;
use std::process::ExitCode;
use std::time::Instant;

/// The most best lines `go --multipv` reports (the engine's own limit too).
const MAX_MULTIPV: u64 = 256;

/// Count the positions DEPTH plies from a position (move generator test)
#[derive(Args, Debug)]
pub struct Perft {
    /// The variant
    variant: String,
    /// A FEN, or `startpos`
    #[arg(value_name = "FEN|startpos")]
    fen: String,
    /// Plies to count
    depth: u32,
    /// Print the count under each first move
    #[arg(long)]
    divide: bool,
    #[command(flatten)]
    threads: Threads,
}

impl Perft {
    pub(super) fn run(&self, set: &VariantSet) -> CommandResult {
        let (v, _) = crate::engine::eval::compile(set, &self.variant)
            .map_err(|errors| errors.iter().map(text).collect::<Vec<_>>().join("\n"))?;
        let pos = if self.fen == "startpos" {
            Position::startpos(v)
        } else {
            Position::from_fen(v, &self.fen).map_err(|e| format!("bad FEN: {e}"))?
        };
        let depth = self.depth;
        let start = Instant::now();
        let counts = crate::rules::perft::divide(&pos, depth, self.threads.threads);
        let elapsed = start.elapsed();
        let nodes: u64 = if depth == 0 {
            1
        } else {
            counts.iter().map(|c| c.1).sum()
        };
        if self.divide {
            for (m, n) in &counts {
                crate::outln!("{m}: {n}");
            }
        }
        let secs = elapsed.as_secs_f64();
        let nps = if secs > 0.0 { nodes as f64 / secs } else { 0.0 };
        crate::outln!("Nodes: {nodes}");
        crate::outln!("Time: {:.3} s, {:.1} M nodes/s", secs, nps / 1e6);
        Ok(ExitCode::SUCCESS)
    }
}

/// Search the benchmark positions to a fixed depth
#[derive(Args, Debug)]
#[command(after_help = "The last line gives the node count (the build's signature) and the speed.")]
pub struct Bench {
    /// Only this variant's positions (default: every variant's)
    variant: Option<String>,
    /// Search depth
    #[arg(long, value_name = "D", default_value_t = crate::engine::bench::BENCH_DEPTH)]
    depth: u32,
    #[command(flatten)]
    threads: Threads,
}

impl Bench {
    pub(super) fn run(&self, set: &VariantSet) -> CommandResult {
        let lines = crate::engine::bench::run(
            set,
            self.variant.as_deref(),
            self.depth,
            self.threads.threads,
        )
        .map_err(text)?;
        let mut nodes = 0;
        let mut time = 0.0;
        for (i, l) in lines.iter().enumerate() {
            crate::outln!(
                "Position {:2} {:12} {:>10} nodes {:>8.0} ms  {}",
                i + 1,
                l.variant,
                l.nodes,
                l.time.as_secs_f64() * 1000.0,
                l.fen
            );
            nodes += l.nodes;
            time += l.time.as_secs_f64();
        }
        crate::outln!("===========================");
        crate::outln!("Total time (ms) : {:.0}", time * 1000.0);
        crate::outln!("Nodes searched  : {nodes}");
        let nps = nodes as f64 / time.max(1e-9);
        crate::outln!("Nodes/second    : {nps:.0}");
        // The last line in the form that testing frameworks (OpenBench) read.
        crate::outln!("{nodes} nodes {nps:.0} nps");
        Ok(ExitCode::SUCCESS)
    }
}

/// Search one position and print the engine's info lines and best move
#[derive(Args, Debug)]
#[command(after_help = "Without a limit, the search runs for 1000 ms.")]
pub struct Go {
    /// The variant
    variant: String,
    /// A FEN, or `startpos`
    #[arg(value_name = "FEN|startpos")]
    fen: String,
    #[command(flatten)]
    limit: Limit,
    #[command(flatten)]
    threads: Threads,
    /// Best lines to report
    #[arg(long, value_name = "K", default_value_t = 1,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=MAX_MULTIPV))]
    multipv: usize,
    #[command(flatten)]
    hash: Hash,
    /// Play at this level (UCI_LimitStrength with UCI_Elo N): fewer nodes,
    /// a shallower search and a choice among the best few moves
    #[arg(long, value_name = "N")]
    elo: Option<u32>,
    /// Seed of a level's choice (the same seed, the same move)
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
}

impl Go {
    pub(super) fn run(&self, set: VariantSet) -> CommandResult {
        let mut engine = crate::engine::Engine::with_variants(set);
        engine.set_variant(&self.variant).map_err(text)?;
        let fen = (self.fen != "startpos").then_some(self.fen.as_str());
        engine.set_position(fen, &[]).map_err(text)?;
        engine.set_threads(self.threads.threads);
        engine.set_multipv(self.multipv);
        engine.set_hash_mb(self.hash.hash).map_err(text)?;
        if let Some(elo) = self.elo {
            engine.set_elo(elo).map_err(text)?;
            engine.set_limit_strength(true);
        }
        if let Some(seed) = self.seed {
            engine.set_strength_seed(seed);
        }
        let mut limits = self.limit.limits();
        if limits.depth.is_none() && limits.nodes.is_none() && limits.movetime.is_none() {
            limits.movetime = Some(1000);
        }
        let pos = engine.position().clone();
        let r = engine.go(&limits, &[], &mut |info| {
            crate::outln!("{}", crate::engine::info_line(&pos, info))
        });
        let text = |m: Option<crate::Move>, p: &Position| m.map(|m| p.move_text(m));
        match text(r.best, &pos) {
            None => crate::outln!("bestmove (none)"),
            Some(b) => {
                let mut after = pos.clone();
                if let Some(m) = r.best {
                    after.make(m);
                }
                match text(r.ponder, &after) {
                    Some(p) => crate::outln!("bestmove {b} ponder {p}"),
                    None => crate::outln!("bestmove {b}"),
                }
            }
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// Run an EPD test suite (bm/am operations) and count the solved positions
#[derive(Args, Debug)]
#[command(after_help = "Without a limit, each position is searched for 1000 ms.")]
pub struct Epd {
    /// The EPD file
    file: String,
    /// The variant of the positions
    #[arg(long, value_name = "V", default_value = "chess")]
    variant: String,
    #[command(flatten)]
    limit: EpdLimit,
    #[command(flatten)]
    threads: Threads,
    #[command(flatten)]
    hash: Hash,
}

/// The limit of each position's search: a node count (independent of the
/// machine's speed and load) or a time; given both, the search stops at the
/// first reached.
#[derive(Args, Debug)]
#[group(multiple = true)]
struct EpdLimit {
    /// Search each position to N nodes
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// Search each position for MS milliseconds
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
}

impl Epd {
    pub(super) fn run(&self, set: VariantSet) -> CommandResult {
        let file = &self.file;
        let nodes = self.limit.nodes;
        let movetime = match nodes {
            Some(_) => self.limit.movetime,
            None => Some(self.limit.movetime.unwrap_or(1000)),
        };
        let text = crate::util::textfile::read(file, crate::util::textfile::MAX_DATA_BYTES)
            .map_err(|e| format!("{file}: {e}"))?;
        let mut engine = crate::engine::Engine::with_variants(set);
        engine.set_variant(&self.variant).map_err(super::text)?;
        engine.set_threads(self.threads.threads);
        engine.set_hash_mb(self.hash.hash).map_err(super::text)?;
        let v = engine.variant().clone();
        let (mut solved, mut total) = (0, 0);
        let mut failures = Vec::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let entry = match crate::tools::epd::parse_line(&v, line) {
                Ok(e) => e,
                Err(e) => {
                    crate::outln!("line {}: skipped: {e}", n + 1);
                    continue;
                }
            };
            total += 1;
            engine.new_game();
            engine
                .set_position(Some(&entry.fen), &[])
                .map_err(super::text)?;
            let limits = crate::engine::search::Limits {
                movetime,
                nodes,
                ..Default::default()
            };
            // The first iteration from which the best line always began with a
            // solving move: (depth, ms, nodes).
            let mut found: Option<(u32, u64, u64)> = None;
            let r = engine.go(&limits, &[], &mut |info| {
                if info.multipv != 1 {
                    return;
                }
                match info.pv.first() {
                    Some(&m) if entry.solved_by(m) => {
                        found.get_or_insert((info.depth, info.time_ms, info.nodes));
                    }
                    _ => found = None,
                }
            });
            let mut pos = entry.position.clone();
            let got = r
                .best
                .map(|m| pos.san(m))
                .unwrap_or_else(|| "(none)".into());
            let ok = r.best.is_some_and(|m| entry.solved_by(m));
            if ok {
                solved += 1;
            } else {
                let mut sans = |moves: &[crate::rules::types::Move]| {
                    moves
                        .iter()
                        .map(|&m| pos.san(m))
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                let mut wanted = Vec::new();
                if !entry.best.is_empty() {
                    wanted.push(format!("best {}", sans(&entry.best)));
                }
                if !entry.avoid.is_empty() {
                    wanted.push(format!("avoid {}", sans(&entry.avoid)));
                }
                failures.push(format!(
                    "{} {}: played {got}, {}",
                    entry.id,
                    entry.fen,
                    wanted.join(", ")
                ));
            }
            let when = match found {
                Some((depth, ms, n)) if ok => format!(" from depth {depth}, {ms} ms, {n} nodes"),
                _ => String::new(),
            };
            crate::outln!(
                "{} {} {got} ({}/{}){when}",
                entry.id,
                if ok { "ok  " } else { "FAIL" },
                solved,
                total
            );
        }
        crate::outln!("Failures:");
        for f in &failures {
            crate::outln!("  {f}");
        }
        crate::outln!("Solved {solved} of {total}");
        Ok(ExitCode::SUCCESS)
    }
}
