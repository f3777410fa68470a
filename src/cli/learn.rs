//! `amalgam learn`: the command line of the self-improvement loop. It
//! parses the options into [`LearnOptions`], runs the loop with the stop
//! of SIGINT and SIGTERM, and shows a progress line on a terminal.

use super::files::number_in;
use super::{CommandResult, MAX_THREADS};
use crate::rules::variant_set::VariantSet;
use crate::tools::learn::gate::{
    DEFAULT_CLOCK_TEXT, DEFAULT_MAX_GAMES, DEFAULT_SPRT, GateSettings,
};
use crate::tools::learn::sizes::{MAX_POSITIONS, MIN_POSITIONS, Sizes, WINDOW};
use crate::tools::learn::{
    DEFAULT_LAMBDA, DEFAULT_NODES, Ended, LearnOptions, Phase, Status, Stop,
};
use crate::tools::matches::config::MAX_GAMES;
use crate::tools::matches::limits::TimeControl;
use crate::tools::matches::stats::Sprt;
use crate::tools::train::{Architecture, Batch};
use clap::Args;
use clap::builder::RangedU64ValueParser;
use std::ffi::OsString;
use std::io::IsTerminal;
use std::ops::Bound::{Excluded, Included};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

/// The largest budget, in hours (about eleven years).
const MAX_HOURS: f64 = 100_000.0;

/// Improve a variant's evaluation unattended: self-play data, a net trained on it, a gate
/// match against the best so far, repeated; stopped, it continues from DIR
#[derive(Args, Debug)]
#[command(
    after_help = "DIR holds learn.log, best.nnue, progress.svg, data/ (each generation's \
                        games) and shards/ (data made elsewhere, read as data too). See \
                        docs/training.md."
)]
pub struct Learn {
    /// The variant
    variant: String,
    /// The folder of the run (made if it is not there; a stopped run continues from it)
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    /// Budget of this run, in hours (default: none)
    #[arg(long, value_name = "H",
          value_parser = number_in((Excluded(0.0), Included(MAX_HOURS)), "above 0, at most 100000"))]
    hours: Option<f64>,
    /// Stop once generation G of DIR is done (earlier runs' generations count)
    #[arg(long, value_name = "G",
          value_parser = RangedU64ValueParser::<u32>::new().range(1..=u64::from(u32::MAX)))]
    generations: Option<u32>,
    /// Threads of the data, the training and the gate (games at once)
    /// (default: every core)
    #[arg(long, value_name = "N",
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_THREADS))]
    threads: Option<usize>,
    /// Nodes a move in the data's games
    #[arg(long, value_name = "K", default_value_t = DEFAULT_NODES,
          value_parser = RangedU64ValueParser::<u64>::new().range(1..=1_000_000_000))]
    nodes: u64,
    /// New positions of every generation (default: half the data before it, within
    /// --min-positions and --max-positions)
    #[arg(long, value_name = "N",
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_POSITIONS as u64))]
    positions: Option<usize>,
    /// Fewest new positions of a generation
    #[arg(long, value_name = "N", default_value_t = MIN_POSITIONS,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_POSITIONS as u64))]
    min_positions: usize,
    /// Most new positions of a generation
    #[arg(long, value_name = "N", default_value_t = MAX_POSITIONS,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_POSITIONS as u64))]
    max_positions: usize,
    /// Most positions a candidate trains on (the newest data files)
    #[arg(long, value_name = "N", default_value_t = WINDOW,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=1_000_000_000))]
    window: usize,
    /// Hidden neurons per perspective (default: 32 below 1 M positions trained on, 128
    /// below 20 M, 256 from there)
    #[arg(long, value_name = "H",
          value_parser = RangedU64ValueParser::<usize>::new()
              .range(1..=u64::from(crate::engine::eval::nnue::format::MAX_HIDDEN)))]
    hidden: Option<usize>,
    /// Epochs of each training, the last fifth at a tenth of the step size
    /// (default: 30 from random weights, 10 from the best net's)
    #[arg(long, value_name = "N",
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    epochs: Option<usize>,
    /// Train every candidate from random weights (by default a candidate
    /// of the best net's size or wider starts from its weights, widened
    /// where it is wider, at step size 0.0003 instead of 0.001)
    #[arg(long)]
    fresh: bool,
    /// Positions per step (default: chosen for the data, as train does)
    #[arg(long, value_name = "B",
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=1 << 24))]
    batch: Option<usize>,
    /// Weight of the search score in the training target, from 0 (the result alone) to 1
    #[arg(long, value_name = "L", default_value_t = f64::from(DEFAULT_LAMBDA),
          value_parser = number_in((Included(0.0), Included(1.0)), "from 0 to 1"))]
    lambda: f64,
    /// Output buckets by material: the net's output layer once per share of
    /// the start position's men, each position scored by its share's
    #[arg(long, value_name = "B", default_value_t = Architecture::default().buckets,
          value_parser = RangedU64ValueParser::<usize>::new()
              .range(1..=u64::from(crate::engine::eval::nnue::features::MAX_BUCKETS)))]
    output_buckets: usize,
    /// King buckets of the nets trained, a preset as train's --king-buckets
    /// (0: none); the first such candidate starts from the best net's
    /// weights in every bucket
    #[arg(long, value_name = "K", default_value_t = Architecture::default().kings,
          value_parser = RangedU64ValueParser::<usize>::new().range(0..=4))]
    king_buckets: usize,
    /// The gate's SPRT: the candidate's Elo under H0
    #[arg(long, value_name = "ELO", default_value_t = DEFAULT_SPRT.elo0, allow_negative_numbers = true)]
    elo0: f64,
    /// The gate's SPRT: the candidate's Elo under H1 (promoted when accepted)
    #[arg(long, value_name = "ELO", default_value_t = DEFAULT_SPRT.elo1, allow_negative_numbers = true)]
    elo1: f64,
    /// The gate's SPRT: the chance of promoting a candidate no better than elo0
    #[arg(long, value_name = "P", default_value_t = DEFAULT_SPRT.alpha)]
    alpha: f64,
    /// The gate's SPRT: the chance of rejecting a candidate as good as elo1
    #[arg(long, value_name = "P", default_value_t = DEFAULT_SPRT.beta)]
    beta: f64,
    /// The gate's clock: [MOVES/]BASE+INC in seconds
    #[arg(long, value_name = "TC", default_value = DEFAULT_CLOCK_TEXT,
          value_parser = TimeControl::parse)]
    gate_tc: TimeControl,
    /// Most games of a gate (undecided there: rejected)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_GAMES,
          value_parser = RangedU64ValueParser::<usize>::new().range(2..=MAX_GAMES as u64))]
    gate_games: usize,
    /// Seed of the data's games and of the training
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
}

/// The progress line on standard error, at most every half second, and
/// only to a terminal (in a file the overwritten lines would stay).
struct ProgressLine {
    shown: bool,
    last: Mutex<Option<Instant>>,
}

impl ProgressLine {
    fn show(&self, s: &Status) {
        if !self.shown {
            return;
        }
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        if last.is_some_and(|t| t.elapsed().as_secs_f64() < 0.5) {
            return;
        }
        *last = Some(Instant::now());
        let phase = match s.phase {
            Phase::Data(p) => format!(
                "data {}/{} positions ({:.0}/s)",
                p.positions, p.target, p.per_second
            ),
            Phase::Train {
                epoch,
                epochs,
                done,
                total,
            } => format!("training epoch {epoch}/{epochs}, {done}/{total} positions"),
            Phase::Gate => "gate match (games on standard output)".to_string(),
        };
        let left = s.left.map_or(String::new(), |d| {
            let m = d.as_secs() / 60;
            format!(", {}h{:02}m left", m / 60, m % 60)
        });
        eprint!("\r\x1b[2Kgeneration {}: {phase}{left}", s.generation);
    }
}

impl Learn {
    fn options(&self, args: &[OsString]) -> Result<LearnOptions, String> {
        let sprt = Sprt::from_params(
            &[
                (crate::tools::matches::stats::SprtKey::Elo0, self.elo0),
                (crate::tools::matches::stats::SprtKey::Elo1, self.elo1),
                (crate::tools::matches::stats::SprtKey::Alpha, self.alpha),
                (crate::tools::matches::stats::SprtKey::Beta, self.beta),
            ]
            .map(|(key, value)| crate::tools::matches::stats::SprtParam { key, value }),
        )
        .map_err(|e| format!("the gate's SPRT: {e}"))?;
        let threads = self
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let command: Vec<String> = std::iter::once("amalgam".to_string())
            .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
            .collect();
        Ok(LearnOptions {
            dir: self.dir.clone(),
            hours: self.hours,
            generations: self.generations,
            threads,
            nodes: self.nodes,
            sizes: Sizes {
                positions: self.positions,
                min_positions: self.min_positions,
                max_positions: self.max_positions,
                window: self.window,
                hidden: self.hidden,
            },
            epochs: self.epochs,
            fresh: self.fresh,
            batch: self.batch.map_or(Batch::Auto, Batch::Given),
            lambda: self.lambda as f32,
            output_buckets: self.output_buckets,
            king_buckets: self.king_buckets,
            gate: GateSettings {
                sprt,
                clock: self.gate_tc,
                max_games: self.gate_games,
                concurrency: threads,
            },
            seed: self.seed,
            command: command.join(" "),
        })
    }

    /// `args`: the whole command line, for the log.
    pub(super) fn run(&self, set: &VariantSet, args: &[OsString]) -> CommandResult {
        super::known_variant(set, &self.variant)?;
        let opts = self.options(args)?;
        let stop = Stop::on_signals().map_err(|e| format!("cannot catch signals: {e}"))?;
        let progress = ProgressLine {
            shown: std::io::stderr().is_terminal(),
            last: Mutex::new(None),
        };
        let result =
            crate::tools::learn::run(set, &self.variant, &opts, &stop, &|s| progress.show(s));
        if progress.shown {
            eprintln!();
        }
        let ended = result?;
        let dir = opts.dir.display();
        Ok(match ended {
            Ended::Generations(g) => {
                eprintln!(
                    "generation {g} done; the best net is {dir}/best.nnue (if one was promoted)"
                );
                ExitCode::SUCCESS
            }
            Ended::Budget => {
                eprintln!("the budget is spent; run the same command to go on");
                ExitCode::SUCCESS
            }
            Ended::Stopped(signal) => {
                eprintln!("stopped; run the same command to go on");
                ExitCode::from(signal.map_or(1, |s| s.exit_status()))
            }
        })
    }
}
