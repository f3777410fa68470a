//! `amalgam train`: the command line of the network trainer. It parses the
//! options into the trainer's values (architecture, schedule, settings,
//! data files), runs [`Trainer::run`], and prints what it reports.

use super::files::number_in;
use super::{CommandResult, MAX_THREADS, compile};
use crate::engine::eval::nnue::{Activation, features::MAX_BUCKETS, format::MAX_HIDDEN};
use crate::rules::variant_set::VariantSet;
use crate::tools::datafile::LoadError;
use crate::tools::train::{
    ACTIVATIONS, Architecture, Batch, DECAYS, DataFiles, Epoch, Event, OptionError, Plan, Report,
    Schedule, Settings, StartNet, StopRequest, TrainError, Trainer, loss_text,
};
use crate::util::stop::Stop;
use clap::Args;
use clap::builder::{PossibleValue, PossibleValuesParser, RangedU64ValueParser, TypedValueParser};
use std::ffi::OsString;
use std::io::IsTerminal;
use std::ops::Bound::{Excluded, Included};
use std::process::ExitCode;
use std::time::Instant;

/// Most epochs one run may ask for.
const MAX_EPOCHS: u64 = 100_000;

/// Most warm-up steps one run may ask for.
const MAX_WARMUP: u64 = 1 << 32;

/// Largest batch of one step.
const MAX_BATCH: u64 = 1 << 24;

/// `--activation`: the trainer's activations by name.
fn activation_parser() -> impl TypedValueParser<Value = Activation> {
    PossibleValuesParser::new(
        ACTIVATIONS.map(|(name, _, help)| PossibleValue::new(name).help(help)),
    )
    .map(|name| {
        ACTIVATIONS
            .iter()
            .find(|(n, _, _)| *n == name)
            .map_or(Architecture::default().activation, |(_, a, _)| *a)
    })
}

/// Train a network for the neural evaluation on datagen files; writes a net file
#[derive(Args, Debug)]
pub struct Train {
    /// The variant
    variant: String,
    /// Data files written by datagen
    #[arg(required = true)]
    files: Vec<String>,
    /// The net file to write (checked before the training; replaced only
    /// when the new net is written)
    #[arg(long, value_name = "NET")]
    out: String,
    /// Hidden neurons per perspective
    #[arg(long, value_name = "H", default_value_t = Architecture::default().hidden,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=u64::from(MAX_HIDDEN)))]
    hidden: usize,
    /// Passes over the training positions
    #[arg(long, value_name = "N", default_value_t = Schedule::default().epochs(),
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_EPOCHS))]
    epochs: usize,
    /// Weight of the search score in the target, from 0 (the result alone) to 1
    #[arg(long, value_name = "L", default_value_t = as_written(Settings::default().lambda),
          value_parser = number_in((Included(0.0), Included(1.0)), "from 0 to 1"))]
    lambda: f64,
    /// Seed of the initial weights, the validation split and the shuffles
    #[arg(long, value_name = "S", default_value_t = Settings::default().seed)]
    seed: u64,
    /// Share of the positions held out for validation, from 0 to 0.9
    #[arg(long, value_name = "SHARE", default_value_t = Settings::default().validation,
          value_parser = number_in((Included(0.0), Included(0.9)), "from 0 to 0.9"))]
    validation: f64,
    /// Hold the validation positions out of the data files from number N
    /// on alone (counting from 1; the files before it all train): with
    /// --init, the data the start net has not trained on
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    validation_from: usize,
    /// Threads (default: every core); the result does not depend on them
    #[arg(long, value_name = "T",
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_THREADS))]
    threads: Option<usize>,
    /// Positions per step (default: the largest power of two up to 16384
    /// that gives at least 100 steps an epoch)
    #[arg(long, value_name = "B",
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_BATCH))]
    batch: Option<usize>,
    /// Adam's step size (above 0, at most 1)
    #[arg(long, value_name = "R", default_value_t = as_written(Schedule::default().rate()),
          value_parser = number_in((Excluded(0.0), Included(1.0)), "above 0, at most 1"))]
    lr: f64,
    /// The last N epochs run at a tenth of the step size (at most
    /// --epochs; --lr-schedule step only)
    #[arg(long, value_name = "N", default_value_t = 0)]
    lr_drop: usize,
    /// How the step size changes over the run
    #[arg(long, value_name = "SCHEDULE", default_value = "step",
          value_parser = PossibleValuesParser::new(
              DECAYS.map(|(name, help)| PossibleValue::new(name).help(help))))]
    lr_schedule: String,
    /// The step size the cosine decay ends at (default: a hundredth of --lr)
    #[arg(long, value_name = "R",
          value_parser = number_in((Included(0.0), Included(1.0)), "from 0 to 1"))]
    lr_final: Option<f64>,
    /// Steps at the start whose step size rises linearly to the schedule's
    #[arg(long, value_name = "STEPS", default_value_t = 0,
          value_parser = RangedU64ValueParser::<usize>::new().range(0..=MAX_WARMUP))]
    lr_warmup: usize,
    /// The hidden layer's activation
    #[arg(long, default_value = "screlu", value_parser = activation_parser())]
    activation: Activation,
    /// The checkpoint written after each epoch, for --resume (default: the
    /// net file's name with .ckpt added; kept when the net is written)
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<String>,
    /// Go on from the checkpoint of a stopped or finished run with the same
    /// options (more --epochs allowed); the net is the one an uninterrupted
    /// run writes
    #[arg(long)]
    resume: bool,
    /// Start from the weights of this net file (of the variant and of the
    /// same --hidden, --activation and --output-buckets) instead of random
    /// ones: the net goes on learning from the new data
    #[arg(long, value_name = "NET")]
    init: Option<String>,
    /// Train without the factoriser (a shared row per colour and kind,
    /// folded into the squares' rows at the end)
    #[arg(long)]
    no_factoriser: bool,
    /// Output buckets by material: the net's output layer once per share of
    /// the start position's men, each position scored by its share's
    #[arg(long, value_name = "B", default_value_t = Architecture::default().buckets,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=u64::from(MAX_BUCKETS)))]
    output_buckets: usize,
    /// King buckets: the inputs once per bucket of the perspective's own
    /// king's square, the board mirrored by file while that king is on its
    /// right half. 0: none; 1: mirrored only; 2: king on its first rank or
    /// beyond; 3: first, second, beyond; 4: first rank in the corner
    /// quarter, first rank nearer the centre, second, beyond. --init may
    /// name a net without them: its weights go into every bucket
    #[arg(long, value_name = "K", default_value_t = Architecture::default().kings,
          value_parser = RangedU64ValueParser::<usize>::new().range(0..=4))]
    king_buckets: usize,
}

/// Progress on standard error at most every half second, as datagen does,
/// and only to a terminal: in a file the overwritten lines would stay.
struct Progress {
    shown: bool,
    last: Instant,
    started: Instant,
}

impl Progress {
    fn new() -> Progress {
        Progress {
            shown: std::io::stderr().is_terminal(),
            last: Instant::now(),
            started: Instant::now(),
        }
    }

    fn show(&mut self, epoch: usize, done: usize, total: usize) {
        if !self.shown || self.last.elapsed().as_secs_f64() < 0.5 || done == total {
            return;
        }
        self.last = Instant::now();
        let secs = self.started.elapsed().as_secs_f64();
        eprint!(
            "\repoch {epoch}: {done}/{total} positions ({:.0}/s)   ",
            done as f64 / secs.max(1e-3)
        );
    }

    /// Clear the progress line before an epoch's line, and start timing the
    /// next epoch.
    fn epoch_done(&mut self) {
        if self.shown {
            eprint!("\r{:79}\r", "");
        }
        self.started = Instant::now();
    }
}

/// An epoch's line on standard output.
fn epoch_line(e: &Epoch) -> String {
    let speed = e.speed();
    format!(
        "epoch {}: training loss {:.6}, validation loss {}, {:.1} s, {speed:.0} positions/s ({:.0} per thread)",
        e.number,
        e.train_loss,
        loss_text(e.validation_loss),
        e.seconds,
        speed / e.threads as f64
    )
}

/// The lines that say how the run will go, once the data are read.
fn print_plan(p: &Plan) {
    eprintln!(
        "{} positions read in {:.1} s; {} inputs, {} hidden",
        p.positions, p.read_seconds, p.inputs, p.hidden
    );
    crate::outln!("batch {}", p.batch_text());
    if let Some(buckets) = p.buckets_text() {
        crate::outln!("training positions by output bucket: {buckets}");
    }
}

/// The summary of a finished run.
fn print_report(r: &Report) {
    crate::outln!("loss {}", r.losses.text("quantised net"));
    crate::outln!(
        "the hand-written evaluation's validation loss (the measure to beat): {}",
        loss_text(r.losses.hand_written)
    );
    crate::outln!(
        "the net of epoch {} is written ({})",
        r.written_epoch,
        r.written_why()
    );
    crate::outln!(
        "{} weight(s) clamped to the integer range in quantising",
        r.clamped
    );
    let epochs = r.schedule.epochs();
    let per_thread = (r.plan.training * epochs) as f64 / r.seconds.max(1e-9) / r.threads as f64;
    crate::outln!(
        "{} positions x {epochs} epochs in {:.1} s on {} thread(s) ({per_thread:.0} positions x epochs per second per thread); written to {}",
        r.plan.training,
        r.seconds,
        r.threads,
        r.settings.out
    );
    if let Some(w) = r.worse_than_hand_written() {
        eprintln!("warning: {w}");
    }
}

/// A refusal's text; the bad lines of a data file are printed first (the
/// first ten).
fn error_text(e: TrainError) -> String {
    match e {
        TrainError::Data(LoadError::Bad { ref errors, .. }) if errors.len() > 1 => {
            for line in errors.iter().take(10) {
                eprintln!("error: {line}");
            }
            format!("{e}; nothing trained")
        }
        TrainError::Data(_) => format!("{e}; nothing trained"),
        e => e.to_string(),
    }
}

impl Train {
    /// The variant, refused with the names of those there are.
    fn trainer(&self, set: &VariantSet) -> Result<Trainer, String> {
        super::known_variant(set, &self.variant)?;
        let (v, tables) = compile(set, &self.variant)?;
        Ok(Trainer::new(
            v,
            tables,
            Architecture {
                hidden: self.hidden,
                activation: self.activation,
                factoriser: !self.no_factoriser,
                buckets: self.output_buckets,
                kings: self.king_buckets,
            },
        ))
    }

    /// The schedule the options ask for.
    fn schedule(&self) -> Result<Schedule, OptionError> {
        let step = Schedule::new(self.epochs, self.lr as f32, self.lr_drop)?;
        let schedule = if self.lr_schedule == "cosine" {
            step.cosine(self.lr_final.map(|r| r as f32))?
        } else if let Some(last) = self.lr_final {
            return Err(OptionError::FinalWithoutCosine(last as f32));
        } else {
            step
        };
        Ok(schedule.with_warmup(self.lr_warmup))
    }

    /// `args`: the whole command line, recorded in the net file.
    pub(super) fn run(&self, set: &VariantSet, args: &[OsString]) -> CommandResult {
        let schedule = self.schedule().map_err(|e| e.to_string())?;
        let stop =
            Stop::on_signals().map_err(|e| format!("cannot catch SIGINT and SIGTERM: {e}"))?;
        let trainer = self.trainer(set)?;
        let command: Vec<String> = std::iter::once("amalgam".to_string())
            .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
            .collect();
        let settings = Settings {
            seed: self.seed,
            lambda: self.lambda as f32,
            validation: self.validation,
            held_from: self.validation_from - 1,
            batch: self.batch.map_or(Batch::Auto, Batch::Given),
            threads: self.threads.unwrap_or(0),
            out: self.out.clone(),
            command: recorded_command(&command),
            checkpoint: self.checkpoint.clone(),
            resume: self.resume,
            init: self
                .init
                .as_deref()
                .map(|path| StartNet::read(path).map_err(|e| format!("--init {e}")))
                .transpose()?,
            notes: None,
            stop: StopRequest(Some(stop.clone())),
        };
        let mut progress = Progress::new();
        let mut on_event = |event: Event| match event {
            Event::Plan(p) => print_plan(&p),
            Event::Progress { epoch, done, total } => progress.show(epoch, done, total),
            Event::Epoch(e) => {
                progress.epoch_done();
                crate::outln!("{}", epoch_line(&e));
            }
        };
        let data = DataFiles::new(self.files.clone());
        if self.resume {
            eprintln!("resuming from {}", settings.checkpoint_path());
        }
        let report = match trainer.run(&schedule, &settings, &data, &mut on_event) {
            Err(e @ TrainError::Stopped { .. }) => {
                eprintln!("{e}");
                let signal = stop.signal();
                return Ok(ExitCode::from(
                    signal.map_or(1, crate::util::stop::StopSignal::exit_status),
                ));
            }
            r => r.map_err(error_text)?,
        };
        print_report(&report);
        Ok(ExitCode::SUCCESS)
    }
}

/// The command line recorded in the net file: without `--resume`, so
/// that a resumed run's net is the uninterrupted run's, byte for byte.
fn recorded_command(words: &[String]) -> String {
    words
        .iter()
        .filter(|w| *w != "--resume")
        .cloned()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `x` as the f64 its shortest decimal names (0.001f32 as 0.001, not
/// 0.0010000000474974513), so that help shows the default as written; it
/// converts back to the same f32.
fn as_written(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(f64::from(x))
}

#[cfg(test)]
mod tests {
    use super::as_written;

    #[test]
    fn a_default_step_size_shows_as_written_and_converts_back() {
        assert_eq!(as_written(0.001).to_string(), "0.001");
        for x in [0.001f32, 0.1, 1.0, 3e-4, f32::MIN_POSITIVE, 0.3] {
            assert_eq!(as_written(x) as f32, x);
        }
    }
}
