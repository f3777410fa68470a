//! `amalgam train`: a network for the neural evaluation fitted to datagen
//! files, quantised and written as a net file with its provenance.

use super::files::{load_data_with, number_in};
use super::{CommandResult, MAX_THREADS, compile};
use crate::engine::eval::PawnCache;
use crate::engine::eval::nnue::{Activation, Layout, Net, format::MAX_HIDDEN};
use crate::rules::variant_set::VariantSet;
use crate::tools::train::{
    self, Baseline, Epoch, Event, Factoriser, Samples, TrainOptions, Trained,
};
use clap::builder::RangedU64ValueParser;
use clap::{Args, ValueEnum};
use std::ffi::OsString;
use std::ops::Bound::{Excluded, Included};
use std::process::ExitCode;
use std::time::Instant;

/// Most epochs one run may ask for.
const MAX_EPOCHS: u64 = 100_000;

/// Largest batch of one step.
const MAX_BATCH: u64 = 1 << 24;

/// Centipawns per unit of the network's output.
const SCALE: i32 = 400;

/// The activation of the hidden layer.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ActivationArg {
    /// Clipped ReLU: clamp(x, 0, 1)
    Crelu,
    /// Squared clipped ReLU: clamp(x, 0, 1) squared
    Screlu,
}

/// Train a network for the neural evaluation on datagen files; writes a net file
#[derive(Args, Debug)]
pub struct Train {
    /// The variant
    variant: String,
    /// Data files written by datagen
    #[arg(required = true)]
    files: Vec<String>,
    /// The net file to write
    #[arg(long, value_name = "NET")]
    out: String,
    /// Hidden neurons per perspective
    #[arg(long, value_name = "H", default_value_t = TrainOptions::default().hidden,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=u64::from(MAX_HIDDEN)))]
    hidden: usize,
    /// Passes over the training positions
    #[arg(long, value_name = "N", default_value_t = TrainOptions::default().epochs,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_EPOCHS))]
    epochs: usize,
    /// Weight of the search score in the target, from 0 (the result alone) to 1
    #[arg(long, value_name = "L", default_value_t = as_written(TrainOptions::default().lambda),
          value_parser = number_in((Included(0.0), Included(1.0)), "from 0 to 1"))]
    lambda: f64,
    /// Seed of the initial weights, the validation split and the shuffles
    #[arg(long, value_name = "S", default_value_t = TrainOptions::default().seed)]
    seed: u64,
    /// Share of the positions held out for validation, from 0 to 0.9
    #[arg(long, value_name = "SHARE", default_value_t = TrainOptions::default().validation,
          value_parser = number_in((Included(0.0), Included(0.9)), "from 0 to 0.9"))]
    validation: f64,
    /// Threads (default: every core); the result does not depend on them
    #[arg(long, value_name = "T",
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_THREADS))]
    threads: Option<usize>,
    /// Positions per step
    #[arg(long, value_name = "B", default_value_t = TrainOptions::default().batch,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_BATCH))]
    batch: usize,
    /// Adam's step size (above 0, at most 1)
    #[arg(long, value_name = "R", default_value_t = as_written(TrainOptions::default().rate),
          value_parser = number_in((Excluded(0.0), Included(1.0)), "above 0, at most 1"))]
    lr: f64,
    /// The last N epochs run at a tenth of the step size
    #[arg(long, value_name = "N", default_value_t = 0)]
    lr_drop: usize,
    /// The hidden layer's activation
    #[arg(long, value_enum, default_value_t = ActivationArg::Screlu)]
    activation: ActivationArg,
    /// Train without the factoriser (a shared row per colour and kind,
    /// folded into the squares' rows at the end)
    #[arg(long)]
    no_factoriser: bool,
}

/// A finished fit and what it was fitted to.
struct Finished<'a> {
    variant: &'a str,
    layout: &'a Layout,
    samples: &'a Samples,
    trained: Trained,
    opts: TrainOptions,
    seconds: f64,
    comments: Vec<String>,
}

/// Progress on standard error at most every half second, as datagen does.
struct Progress {
    last: Instant,
    started: Instant,
}

impl Progress {
    fn show(&mut self, epoch: usize, done: usize, total: usize) {
        if self.last.elapsed().as_secs_f64() < 0.5 || done == total {
            return;
        }
        self.last = Instant::now();
        let secs = self.started.elapsed().as_secs_f64();
        eprint!(
            "\repoch {epoch}: {done}/{total} positions ({:.0}/s)   ",
            done as f64 / secs.max(1e-3)
        );
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

fn loss_text(loss: Option<f64>) -> String {
    loss.map_or_else(|| "none".to_string(), |l| format!("{l:.6}"))
}

impl Train {
    fn options(&self) -> TrainOptions {
        TrainOptions {
            hidden: self.hidden,
            activation: match self.activation {
                ActivationArg::Crelu => Activation::ClippedRelu,
                ActivationArg::Screlu => Activation::SquaredClippedRelu,
            },
            epochs: self.epochs,
            seed: self.seed,
            lambda: self.lambda as f32,
            validation: self.validation,
            batch: self.batch,
            rate: self.lr as f32,
            drop_epochs: self.lr_drop.min(self.epochs),
            scale: SCALE as f32,
            threads: self.threads.unwrap_or(0),
        }
    }

    /// `args`: the whole command line, recorded in the net file.
    pub(super) fn run(&self, set: &VariantSet, args: &[OsString]) -> CommandResult {
        let (v, eval) = compile(set, &self.variant)?;
        let layout = Layout::new(&v);
        let opts = self.options();
        // A folder that is not there is found before the training, not after.
        let out = std::path::Path::new(&self.out);
        if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty())
            && !dir.is_dir()
        {
            return Err(format!("{}: no such folder", dir.display()));
        }
        let factoriser =
            (!self.no_factoriser).then(|| Factoriser::new(layout.inputs(), layout.squares()));
        let started = Instant::now();
        // The reading too runs on the threads asked for.
        let loaded = train::thread_pool(opts.threads)?.install(|| {
            load_data_with(
                &self.files,
                &v,
                "nothing trained",
                || Baseline {
                    tables: &eval,
                    pawns: PawnCache::new(),
                },
                |hce, line| train::sample(&layout, factoriser.as_ref(), hce, line),
            )
        })?;
        let samples = Samples::new(loaded.samples);
        if samples.is_empty() {
            return Err("no positions in the data files".into());
        }
        eprintln!(
            "{} positions read in {:.1} s; {} inputs, {} hidden",
            samples.len(),
            started.elapsed().as_secs_f64(),
            layout.inputs(),
            opts.hidden
        );
        let mut progress = Progress {
            last: Instant::now(),
            started: Instant::now(),
        };
        let mut on_event = |event: Event| match event {
            Event::Progress { epoch, done, total } => progress.show(epoch, done, total),
            Event::Epoch(e) => {
                eprint!("\r{:79}\r", "");
                crate::outln!("{}", epoch_line(&e));
                progress.started = Instant::now();
            }
        };
        let fit = Instant::now();
        let rows = factoriser.map_or(layout.inputs(), |f| f.rows());
        let mut trained = train::train(&samples, rows, &opts, &mut on_event)?;
        if let Some(f) = factoriser {
            trained.model = f.fold(&trained.model);
        }
        let finished = Finished {
            variant: &v.name,
            layout: &layout,
            samples: &samples,
            trained,
            opts,
            seconds: fit.elapsed().as_secs_f64(),
            comments: loaded.comments,
        };
        self.write(&finished, args)
    }

    /// Quantise, report and write the net file.
    fn write(&self, f: &Finished, args: &[OsString]) -> CommandResult {
        let Finished {
            variant,
            layout,
            samples,
            trained,
            opts,
            seconds,
            comments,
        } = f;
        let chosen = trained
            .best_epoch
            .checked_sub(1)
            .and_then(|i| trained.epochs.get(i));
        let (train_loss, validation_loss) =
            chosen.map_or(trained.before, |e| (e.train_loss, e.validation_loss));
        if trained.model.weights.iter().any(|w| !w.is_finite()) {
            return Err(
                "the training diverged (weights no longer finite): try a lower --lr".into(),
            );
        }
        // The quantised net's loss first, with a provenance to be replaced.
        let q = train::quantise(&trained.model, layout.hash(), SCALE, String::new());
        let clamped = q.clamped;
        let net = Net::new((*layout).clone(), q.net, &self.out)
            .map_err(|e| format!("the trained net is refused: {e}"))?;
        let quantised = (!trained.validation.is_empty())
            .then(|| train::quantised_loss(&net, samples, &trained.validation, opts.lambda));
        let command: Vec<String> = std::iter::once("amalgam".to_string())
            .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
            .collect();
        let per_thread = (trained.train_positions * opts.epochs) as f64
            / seconds.max(1e-9)
            / trained.threads as f64;
        let mut provenance = vec![
            format!("Network for {variant}, trained by amalgam train."),
            format!("Command: {}", command.join(" ")),
            format!(
                "Seed {}; hidden {}; activation {:?}; factoriser {}; epochs {}; lambda {}; lr {}; lr drop {} epoch(s); batch {}",
                opts.seed,
                opts.hidden,
                opts.activation,
                if self.no_factoriser { "off" } else { "on" },
                opts.epochs,
                opts.lambda,
                opts.rate,
                opts.drop_epochs,
                opts.batch
            ),
            format!(
                "Positions: {} training, {} validation",
                trained.train_positions,
                trained.validation.len()
            ),
            format!(
                "Loss before: training {:.6}, validation {}; after: training {train_loss:.6}, validation {}; quantised: validation {}",
                trained.before.0,
                loss_text(trained.before.1),
                loss_text(validation_loss),
                loss_text(quantised)
            ),
            format!(
                "The hand-written evaluation's validation loss: {}",
                loss_text(trained.baseline)
            ),
            format!(
                "Written: the net of epoch {} (the lowest validation loss)",
                trained.best_epoch
            ),
            format!("Weights clamped in quantising: {clamped}"),
            "Data:".to_string(),
        ];
        provenance.extend(comments.iter().cloned());
        let mut net = net.network().clone();
        net.provenance = provenance.join("\n");
        let out = &self.out;
        std::fs::write(out, net.to_bytes()).map_err(|e| format!("{out}: {e}"))?;
        crate::outln!(
            "loss before: training {:.6}, validation {}; after: training {train_loss:.6}, validation {}; quantised net: validation {}",
            trained.before.0,
            loss_text(trained.before.1),
            loss_text(validation_loss),
            loss_text(quantised)
        );
        crate::outln!(
            "the hand-written evaluation's validation loss (the measure to beat): {}",
            loss_text(trained.baseline)
        );
        crate::outln!(
            "the net of epoch {} is written (the lowest validation loss)",
            trained.best_epoch
        );
        crate::outln!("{clamped} weight(s) clamped to the integer range in quantising");
        crate::outln!(
            "{} positions x {} epochs in {seconds:.1} s on {} thread(s) ({per_thread:.0} positions x epochs per second per thread); written to {out}",
            trained.train_positions,
            opts.epochs,
            trained.threads
        );
        Ok(ExitCode::SUCCESS)
    }
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
