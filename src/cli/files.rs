//! The commands that read or write variant files and their companions:
//! `tune` (parameter files), `pictures` (piece images) and `check` (ini
//! files, with the parameter and network files they name).

use super::{CommandResult, compile, text};
use crate::rules::variant::Variant;
use crate::rules::variant_set::VariantSet;
use crate::tools::datafile::{self, DataPosition, LoadError, Loaded};
use crate::tools::tune::TuneOptions;
use clap::builder::RangedU64ValueParser;
use clap::{Args, ValueEnum};
use std::ops::{Bound, Bound::Excluded, Bound::Included, RangeBounds};
use std::process::ExitCode;
use std::sync::Arc;

/// Most epochs one `tune` run may ask for.
const MAX_TUNE_EPOCHS: u64 = 100_000;

/// Largest batch of one `tune` step.
const MAX_TUNE_BATCH: u64 = 1 << 24;

/// A parser of numbers within `range`, which `words` describes.
pub(super) fn number_in(
    range: (Bound<f64>, Bound<f64>),
    words: &'static str,
) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
    move |s: &str| {
        let x: f64 = s.parse().map_err(text)?;
        if range.contains(&x) {
            Ok(x)
        } else {
            Err(format!("{x} is not {words}"))
        }
    }
}

/// The samples and comment lines of datagen files of `v` (either format),
/// each training position turned into a sample by `sample`; the first ten
/// bad lines are printed, and the error ends with `nothing`, what was
/// therefore not done.
pub(super) fn load_data<T: Send>(
    files: &[String],
    v: &Arc<Variant>,
    nothing: &str,
    sample: impl Fn(DataPosition) -> Result<T, String> + Sync + Send,
) -> Result<Loaded<T>, String> {
    load_data_with(files, v, nothing, || (), |_, line| sample(line))
}

/// [`load_data`] with a working state per thread (see
/// [`datafile::load_with`]).
pub(super) fn load_data_with<S, T: Send>(
    files: &[String],
    v: &Arc<Variant>,
    nothing: &str,
    init: impl Fn() -> S + Sync + Send,
    sample: impl Fn(&mut S, DataPosition) -> Result<T, String> + Sync + Send,
) -> Result<Loaded<T>, String> {
    datafile::load_with(files, v, init, sample).map_err(|e| {
        if let LoadError::Bad { errors, .. } = &e
            && errors.len() > 1
        {
            for line in errors.iter().take(10) {
                eprintln!("error: {line}");
            }
        }
        format!("{e}; {nothing}")
    })
}

/// The weights a fit starts from.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Start {
    /// The variant's weights (from its parameter file, if any)
    Current,
    /// The evaluation's defaults
    Defaults,
}

/// Fit the evaluation's weights to datagen files; writes a parameter file
#[derive(Args, Debug)]
pub struct Tune {
    /// The variant
    variant: String,
    /// Data files written by datagen
    #[arg(required = true)]
    files: Vec<String>,
    /// The parameter file to write
    #[arg(long, value_name = "PARAMS")]
    out: String,
    /// Passes over the training positions
    #[arg(long, value_name = "N", default_value_t = TuneOptions::default().epochs,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_TUNE_EPOCHS))]
    epochs: usize,
    /// Seed of the validation split and the shuffles
    #[arg(long, value_name = "S", default_value_t = TuneOptions::default().seed)]
    seed: u64,
    /// Weight of the search score in the target, from 0 (the result alone) to 1
    #[arg(long, value_name = "L", default_value_t = TuneOptions::default().lambda,
          value_parser = number_in((Included(0.0), Included(1.0)), "from 0 to 1"))]
    lambda: f64,
    /// Adam's step size, in centipawns (above 0, at most 1000)
    #[arg(long, value_name = "R", default_value_t = TuneOptions::default().rate,
          value_parser = number_in((Excluded(0.0), Included(1000.0)), "above 0, at most 1000"))]
    rate: f64,
    /// Positions per step
    #[arg(long, value_name = "B", default_value_t = TuneOptions::default().batch,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_TUNE_BATCH))]
    batch: usize,
    /// Share of the positions held out for validation, from 0 to 0.9
    #[arg(long, value_name = "SHARE", default_value_t = TuneOptions::default().validation,
          value_parser = number_in((Included(0.0), Included(0.9)), "from 0 to 0.9"))]
    validation: f64,
    /// Pull of every weight back to its start (from 0 to 1000000)
    #[arg(long, value_name = "D", default_value_t = TuneOptions::default().decay,
          value_parser = number_in((Included(0.0), Included(1.0e6)), "from 0 to 1000000"))]
    decay: f64,
    /// The weights the fit starts from
    #[arg(long, value_enum, default_value_t = Start::Current)]
    start: Start,
}

impl Tune {
    /// `words`: the command line after `tune`, recorded in the file.
    pub(super) fn run(&self, set: &VariantSet, words: &[String]) -> CommandResult {
        let (variant, files, out) = (&self.variant, &self.files, &self.out);
        let (v, evaluator) = compile(set, variant)?;
        let eval = evaluator.tables();
        let opts = TuneOptions {
            epochs: self.epochs,
            seed: self.seed,
            lambda: self.lambda,
            rate: self.rate,
            batch: self.batch,
            validation: self.validation,
            decay: self.decay,
        };
        let start = match self.start {
            Start::Current => eval.params.clone(),
            Start::Defaults => crate::engine::eval::default_weights(&v, eval),
        };
        let started = std::time::Instant::now();
        let loaded = load_data(files, &v, "nothing tuned", |line| {
            crate::tools::tune::sample(eval, line)
        })?;
        let (samples, provenance) = (loaded.samples, loaded.comments);
        if samples.is_empty() {
            return Err("no positions in the data files".into());
        }
        eprintln!(
            "{} positions read and traced in {:.1} s",
            samples.len(),
            started.elapsed().as_secs_f64()
        );
        let fit = std::time::Instant::now();
        let mut report_epoch = |e: usize, train: f64, validation: f64| {
            crate::outln!("epoch {e}: training loss {train:.6}, validation loss {validation:.6}");
        };
        let report = crate::tools::tune::tune(&start, &samples, &opts, &mut report_epoch);
        let secs = fit.elapsed().as_secs_f64();
        let (last_train, last_validation) = report.epochs.last().copied().unwrap_or(report.before);
        let speed = (report.train_positions * opts.epochs) as f64 / secs.max(1e-9);
        let mut header = vec![
            format!("Evaluation weights for {variant}, fitted by amalgam tune."),
            format!(
                "Command: amalgam {}",
                std::iter::once("tune")
                    .chain(words.iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            format!(
                "Positions: {} training, {} validation; epochs {}; K = {:.6}; lambda {}; decay {}",
                report.train_positions,
                report.validation_positions,
                opts.epochs,
                report.k,
                opts.lambda,
                opts.decay
            ),
            format!(
                "Loss before: training {:.6}, validation {:.6}; after: training {last_train:.6}, validation {last_validation:.6}",
                report.before.0, report.before.1
            ),
            "Data:".to_string(),
        ];
        header.extend(provenance);
        let text = report.params.to_text(&header.join("\n"));
        std::fs::write(out, text).map_err(|e| format!("{out}: {e}"))?;
        crate::outln!(
            "K {:.6}; loss before: training {:.6}, validation {:.6}; after: training {last_train:.6}, validation {last_validation:.6}",
            report.k,
            report.before.0,
            report.before.1
        );
        crate::outln!(
            "{} positions x {} epochs in {secs:.1} s ({speed:.0} positions x epochs per second); written to {out}",
            report.train_positions,
            opts.epochs
        );
        Ok(ExitCode::SUCCESS)
    }
}

/// SVG piece pictures for XBoard's -pieceImageDirectory
#[derive(Args, Debug)]
pub struct Pictures {
    /// The variant
    variant: String,
    /// The folder to write them to (made if missing)
    #[arg(long, value_name = "DIR")]
    out: String,
}

impl Pictures {
    pub(super) fn run(&self, set: &VariantSet) -> CommandResult {
        let (variant, out) = (&self.variant, &self.out);
        let (v, _) = compile(set, variant)?;
        let files = crate::protocol::xboard::pictures::pictures(&v);
        if files.is_empty() {
            return Err(format!(
                "variant '{variant}' has no piece table: XBoard draws it with its own men"
            ));
        }
        let dir = std::path::Path::new(out);
        std::fs::create_dir_all(dir).map_err(|e| format!("{out}: {e}"))?;
        for (name, svg) in &files {
            let path = dir.join(name);
            std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        crate::outln!("{} pictures in {out}", files.len());
        Ok(ExitCode::SUCCESS)
    }
}

/// Validate ini files and every variant they define
#[derive(Args, Debug)]
#[command(
    after_help = "The variants are compiled on top of the built-in file, so a user file may inherit from `chess`."
)]
pub struct Check {
    /// The ini files (default: the built-in variants.ini)
    files: Vec<String>,
}

impl Check {
    pub(super) fn run(&self) -> ExitCode {
        let files = &self.files;
        let mut set = VariantSet::builtin();
        let mut errors = Vec::new();
        let mut names: Vec<String> = Vec::new();
        if files.is_empty() {
            names = set.names().to_vec();
            let (_, e) = VariantSet::empty().load_str(
                crate::rules::variant::BUILTIN_INI,
                crate::rules::variant::BUILTIN_INI_NAME,
            );
            errors.extend(e);
        }
        for f in files {
            match set.load_file(f) {
                Ok((n, e)) => {
                    names.extend(n);
                    errors.extend(e);
                }
                Err(e) => errors.push(e),
            }
        }
        names.dedup();
        // Each variant's evaluation: the hand-written one, or its net (the
        // file or the embedded net) with its sizes and provenance.
        let mut evaluations = Vec::new();
        for name in &names {
            match crate::engine::eval::compile(&set, name) {
                Ok((_, eval)) => {
                    let mut text = format!("{name}: {}", eval.evaluation(true));
                    if let Some(net) = eval.net() {
                        let n = net.network();
                        text.push_str(&format!(
                            " ok: {} inputs, {} hidden, {:?}",
                            n.inputs, n.hidden, n.activation
                        ));
                        text.push_str(&provenance_summary(&n.provenance));
                    }
                    evaluations.push(text);
                }
                Err(e) => errors.extend(e),
            }
        }
        for line in &evaluations {
            crate::outln!("{line}");
        }
        for e in &errors {
            crate::outln!("{e}");
        }
        if errors.is_empty() {
            crate::outln!("ok: {} variant(s): {}", names.len(), names.join(", "));
            ExitCode::SUCCESS
        } else {
            crate::outln!("{} error(s)", errors.len());
            ExitCode::FAILURE
        }
    }
}

/// How many lines of a net's provenance `check` shows.
const PROVENANCE_LINES: usize = 8;

/// The first lines of a net's provenance text, each on a line of its own
/// and indented, with the count of the lines left out; control characters
/// (the file may come from anywhere) shown as `?`.
fn provenance_summary(provenance: &str) -> String {
    let lines: Vec<&str> = provenance
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let mut out = String::new();
    for line in lines.iter().take(PROVENANCE_LINES) {
        let clean: String = line
            .chars()
            .map(|c| if c.is_control() && c != '\t' { '?' } else { c })
            .collect();
        out.push_str("\n    ");
        out.push_str(&clean);
    }
    if lines.len() > PROVENANCE_LINES {
        out.push_str(&format!(
            "\n    ({} more lines of provenance)",
            lines.len() - PROVENANCE_LINES
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provenance_is_shown_in_part_and_cleaned() {
        let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        let shown = provenance_summary(&format!("bad\u{1b}[2J\n\n{text}"));
        let lines: Vec<&str> = shown.lines().skip(1).collect();
        assert_eq!(lines.len(), PROVENANCE_LINES + 1, "{shown}");
        assert_eq!(lines[0], "    bad?[2J");
        assert_eq!(lines[1], "    line 1");
        assert_eq!(lines[PROVENANCE_LINES], "    (3 more lines of provenance)");
        assert_eq!(provenance_summary(""), "");
    }
}
