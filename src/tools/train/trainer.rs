//! The training pipeline behind one entry point: a [`Trainer`] for a
//! variant and an architecture runs a [`Schedule`] with [`Settings`] on
//! [`DataFiles`], and reports as it goes. In order: the options and the net
//! file are checked before anything is read; the data are read into
//! positions and split; the batch is chosen; the fit runs its epochs; the
//! factoriser is folded in; the network is quantised and its loss taken by
//! the engine's own evaluation; the net file is written with its
//! provenance.

use super::checkpoint::{self, Fingerprint};
use super::error::{CheckpointError, TrainError};
use super::events::{Event, Plan};
use super::factor::Factoriser;
use super::fit::{Fit, FitEnd, FitState, Hooks, thread_pool};
use super::loader::{DataFiles, Reader};
use super::model::Shape;
use super::output::PendingNet;
use super::quantise::{dequantise, quantise, quantised_loss};
use super::report::{Losses, Report};
use super::schedule::Schedule;
use super::settings::{Architecture, Batch, Settings, StartNet};
use crate::engine::eval::Evaluator;
use crate::engine::eval::nnue::features::{KingBuckets, MAX_BUCKETS};
use crate::engine::eval::nnue::{Layout, Net, Network};
use crate::rules::variant::Variant;
use std::sync::Arc;
use std::time::Instant;

/// A run's values on their way to [`Trainer::train`]: the fingerprint
/// known before the data are read, and the checkpoint to resume.
struct Run<'a> {
    schedule: &'a Schedule,
    settings: &'a Settings,
    data: &'a DataFiles,
    threads: usize,
    fingerprint: Fingerprint,
    saved: Option<&'a [u8]>,
    checkpoint: &'a str,
}

/// Trains networks of one architecture for one variant.
pub struct Trainer {
    variant: Arc<Variant>,
    evaluator: Arc<Evaluator>,
    layout: Layout,
    architecture: Architecture,
}

impl Trainer {
    /// A trainer for `variant`, whose hand-written evaluation (the
    /// `evaluator`'s tables) is the measure its nets are compared with. A
    /// king bucket preset there is not is refused when the trainer runs
    /// ([`Architecture::check`]); till then the layout has none.
    pub fn new(
        variant: Arc<Variant>,
        evaluator: Arc<Evaluator>,
        architecture: Architecture,
    ) -> Trainer {
        let plain = Layout::new(&variant);
        let layout = KingBuckets::preset(architecture.kings, variant.files, variant.ranks)
            .ok()
            .and_then(|kings| plain.clone().with_kings(kings).ok())
            .unwrap_or(plain);
        Trainer {
            layout,
            variant,
            evaluator,
            architecture,
        }
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Train a net by `schedule` and `settings` on `data` and write it;
    /// `on_event` hears of the plan, the progress and each epoch. The
    /// checkpoint is written after each epoch (and kept: a finished run
    /// goes on with more epochs by `resume`).
    pub fn run(
        &self,
        schedule: &Schedule,
        settings: &Settings,
        data: &DataFiles,
        on_event: &mut (dyn FnMut(Event) + Send),
    ) -> Result<Report, TrainError> {
        self.architecture.check()?;
        settings.check()?;
        if let Some(start) = &settings.init {
            self.check_start(start)?;
        }
        let pending = PendingNet::create(&settings.out).map_err(|error| TrainError::Output {
            path: settings.out.clone(),
            error,
        })?;
        // The checkpoint's folder is made sure of as the net file's is.
        let checkpoint_file = settings.checkpoint_path();
        drop(
            PendingNet::create(&checkpoint_file).map_err(|error| CheckpointError::Write {
                file: checkpoint_file.clone(),
                error,
            })?,
        );
        let fingerprint = self.fingerprint(settings, data);
        let saved = if settings.resume {
            let bytes = std::fs::read(&checkpoint_file).map_err(|e| {
                TrainError::Checkpoint(if e.kind() == std::io::ErrorKind::NotFound {
                    CheckpointError::Missing(checkpoint_file.clone())
                } else {
                    CheckpointError::Io(checkpoint_file.clone(), e)
                })
            })?;
            // Checked before the data are read.
            checkpoint::fingerprint(&bytes, &checkpoint_file)?
                .check(&fingerprint, &checkpoint_file)?;
            Some(bytes)
        } else {
            None
        };
        // The reading too runs on the threads asked for.
        let pool = thread_pool(settings.threads)?;
        let threads = pool.current_num_threads();
        let run = Run {
            schedule,
            settings,
            data,
            threads,
            fingerprint,
            saved: saved.as_deref(),
            checkpoint: &checkpoint_file,
        };
        let report = pool.install(|| self.train(&run, on_event))?;
        pending
            .commit(&report.network.to_bytes())
            .map_err(|error| TrainError::Output {
                path: settings.out.clone(),
                error,
            })?;
        Ok(report)
    }

    /// Whether `start` is a net this trainer can go on from: the variant's
    /// layout (or the same without king buckets, which the training lifts
    /// into every bucket) and this architecture (activation, buckets, a
    /// hidden size no larger: a narrower one is widened).
    fn check_start(&self, start: &StartNet) -> Result<(), TrainError> {
        let (net, a) = (&start.network, &self.architecture);
        let layout = if net.kings.is_none() {
            Layout::new(&self.variant)
        } else {
            self.layout.clone()
        };
        let why = match net.check_layout(&layout) {
            Err(_) if net.layout_hash == layout.hash() && net.kings != *layout.kings() => {
                Some(format!(
                    "{} king bucket(s), not those of --king-buckets {}",
                    net.kings.count(),
                    a.kings
                ))
            }
            Err(e) => Some(format!("not a net of {}: {e}", self.variant.name)),
            Ok(()) => a.cannot_start(net),
        };
        why.map_or(Ok(()), |why| {
            Err(TrainError::StartNet {
                name: start.name.clone(),
                why,
            })
        })
    }

    /// Whether a start net is lifted into this training's layout: a net
    /// without king buckets for a layout with them (a start with other
    /// buckets is refused by [`Trainer::check_start`]).
    fn lifts(&self, start: &Network) -> bool {
        start.kings.is_none() && !self.layout.kings().is_none()
    }

    /// The validation loss of `start` as itself, in its own layout, on the
    /// positions `validation` numbers among `positions` (the data read
    /// again: the samples hold the trained layout's features).
    fn own_loss(
        &self,
        start: &StartNet,
        data: &DataFiles,
        validation: &[u32],
        positions: usize,
        lambda: f32,
    ) -> Result<f64, TrainError> {
        let layout = Layout::new(&self.variant);
        let net =
            Net::new(layout, start.network.clone(), &start.name).map_err(TrainError::NetRefused)?;
        let mut held_out = vec![false; positions];
        for &i in validation {
            held_out[i as usize] = true;
        }
        data.net_loss(&self.variant, &net, &held_out, lambda)
    }

    /// The model a training from `start` begins with, of `rows` inputs:
    /// the net's own weights; a net without king buckets, for a layout
    /// with them, lifted into every bucket (into the factoriser's rows,
    /// which every bucket shares, or else copied into each bucket's), so
    /// that the model begins from the net's evaluation, mirrored where a
    /// view is; a narrower net widened to this architecture's hidden size
    /// by neurons that add nothing yet (their feature weights from `seed`).
    fn start_model(
        &self,
        start: &Network,
        factoriser: Option<&Factoriser>,
        rows: usize,
        seed: u64,
    ) -> super::model::Model {
        let model = if self.lifts(start) {
            self.lifted(start, factoriser, rows)
        } else {
            dequantise(start, rows)
        };
        model.widened(self.architecture.hidden, seed)
    }

    /// A net without king buckets lifted into this layout's buckets (see
    /// [`Trainer::start_model`]).
    fn lifted(
        &self,
        start: &Network,
        factoriser: Option<&Factoriser>,
        rows: usize,
    ) -> super::model::Model {
        let layout = &self.layout;
        let plain = dequantise(start, start.inputs as usize);
        let (h, plane) = (plain.shape.hidden, plain.shape.inputs);
        let shape = Shape {
            inputs: rows,
            ..plain.shape
        };
        let rows_of = &plain.weights[..plane * h];
        let mut weights = Vec::with_capacity(shape.size());
        match factoriser {
            Some(_) => {
                weights.resize(layout.inputs() * h, 0.0);
                weights.extend_from_slice(rows_of);
            }
            None => {
                for _ in 0..layout.inputs() / plane.max(1) {
                    weights.extend_from_slice(rows_of);
                }
            }
        }
        weights.resize(shape.feature_bias(), 0.0);
        weights.extend_from_slice(&plain.weights[plain.shape.feature_bias()..]);
        super::model::Model { shape, weights }
    }

    /// What a checkpoint must match that is known before the data are
    /// read: the variant, the architecture, the settings that change the
    /// result, the data files' names and sizes.
    fn fingerprint(&self, settings: &Settings, data: &DataFiles) -> Fingerprint {
        let a = self.architecture;
        let files: Vec<String> = data
            .files
            .iter()
            .map(|f| match std::fs::metadata(f) {
                Ok(m) => format!("{f} ({} bytes)", m.len()),
                Err(_) => format!("{f} (unreadable)"),
            })
            .collect();
        let line = |n: &str, v: String| (n.to_string(), v);
        let mut lines = vec![
            line("variant", self.variant.name.clone()),
            line("feature layout", format!("{:016x}", self.layout.hash())),
            line("hidden", a.hidden.to_string()),
            line("activation", format!("{:?}", a.activation)),
            line("factoriser", a.factoriser.to_string()),
            line("output buckets", a.buckets.to_string()),
            line("seed", settings.seed.to_string()),
            line("lambda", settings.lambda.to_string()),
            line("validation", settings.validation.to_string()),
            line("data", files.join(", ")),
        ];
        // Only where there are some, so that the checkpoints of nets
        // without them are those of a build without this line.
        if a.kings > 0 {
            lines.insert(6, line("king buckets", a.kings.to_string()));
        }
        // Only where there is one, so that the checkpoints of random
        // starts are those of a build without this line.
        if let Some(start) = &settings.init {
            lines.push(line("start", start.text()));
        }
        if settings.held_from > 0 {
            lines.push(line("validation from file", settings.held_from.to_string()));
        }
        Fingerprint(lines)
    }

    /// Everything between the checks and the writing, on the pool.
    fn train(
        &self,
        run: &Run,
        on_event: &mut (dyn FnMut(Event) + Send),
    ) -> Result<Report, TrainError> {
        let Run {
            schedule,
            settings,
            data,
            threads,
            ..
        } = *run;
        let layout = &self.layout;
        let arch = self.architecture;
        let started = Instant::now();
        let factoriser = arch.factoriser.then(|| Factoriser::of(layout));
        let loaded = data.load(
            &Reader {
                variant: &self.variant,
                layout,
                factoriser: factoriser.as_ref(),
                tables: self.evaluator.tables(),
                buckets: arch.buckets,
            },
            settings.validation,
            settings.held_from,
            settings.seed,
        )?;
        let samples = &loaded.samples;
        let rows = factoriser.map_or(layout.inputs(), |f| f.rows());
        if samples.feature_bound() > rows {
            return Err(TrainError::FeatureBeyondInputs { inputs: rows });
        }
        let (validation, train) = (loaded.validation, loaded.train);
        if train.is_empty() {
            return Err(TrainError::NoTrainingPositions);
        }
        let mut bucket_positions = [0; MAX_BUCKETS as usize];
        for (n, count) in bucket_positions
            .iter_mut()
            .zip(samples.bucket_counts(&train, arch.buckets))
        {
            *n = count;
        }
        let plan = Plan {
            positions: samples.len(),
            read_seconds: started.elapsed().as_secs_f64(),
            training: train.len(),
            validation: validation.len(),
            inputs: layout.inputs(),
            hidden: arch.hidden,
            batch: settings.batch.size(train.len()),
            batch_chosen: settings.batch == Batch::Auto,
            buckets: arch.buckets,
            bucket_positions,
            start_men: layout.start_men(),
        };
        on_event(Event::Plan(plan));
        let fit_started = Instant::now();
        let shape = Shape {
            inputs: rows,
            hidden: arch.hidden,
            activation: arch.activation,
            buckets: arch.buckets,
        };
        let fit = Fit {
            samples,
            validation: &validation,
            schedule,
            lambda: settings.lambda,
            batch: plan.batch,
            threads,
        };
        let mut fingerprint = run.fingerprint.clone();
        fingerprint.0.extend([
            (
                "positions".to_string(),
                format!("{} training, {} validation", plan.training, plan.validation),
            ),
            ("batch".to_string(), plan.batch.to_string()),
        ]);
        let file = run.checkpoint;
        let state = match run.saved {
            Some(bytes) => {
                checkpoint::fingerprint(bytes, file)?.check(&fingerprint, file)?;
                checkpoint::from_bytes(bytes, file, shape, &train)?.go_on(
                    schedule,
                    plan.steps(),
                    file,
                )?
            }
            None => match &settings.init {
                Some(start) => FitState::from_model(
                    self.start_model(&start.network, factoriser.as_ref(), rows, settings.seed),
                    train,
                    settings.seed,
                ),
                None => FitState::new(shape, train, settings.seed),
            },
        };
        let mut save = |state: &FitState| {
            checkpoint::write(file, &checkpoint::to_bytes(&fingerprint, schedule, state)).map_err(
                |error| {
                    TrainError::Checkpoint(CheckpointError::Write {
                        file: file.to_string(),
                        error,
                    })
                },
            )
        };
        let mut hooks = Hooks {
            on_event,
            save: &mut save,
            stop: settings.stop.0.as_ref(),
        };
        let mut trained = match fit.run(state, &mut hooks)? {
            FitEnd::Done(trained) => trained,
            FitEnd::Stopped { epochs, batches } => {
                return Err(TrainError::Stopped {
                    epochs,
                    batches,
                    checkpoint: file.to_string(),
                });
            }
        };
        if let Some(f) = factoriser {
            trained.model = f.fold(&trained.model);
        }
        let seconds = fit_started.elapsed().as_secs_f64();
        if trained.model.weights.iter().any(|w| !w.is_finite()) {
            return Err(TrainError::Diverged);
        }
        let q = quantise(&trained.model, layout);
        let net = Net::new(layout.clone(), q.net, &settings.out).map_err(TrainError::NetRefused)?;
        let quantised = (!validation.is_empty())
            .then(|| quantised_loss(&net, samples, &validation, settings.lambda));
        let start_own = match &settings.init {
            Some(start) if self.lifts(&start.network) && !validation.is_empty() => {
                Some(self.own_loss(start, data, &validation, samples.len(), settings.lambda)?)
            }
            _ => None,
        };
        let mut report = Report {
            variant: self.variant.name.clone(),
            architecture: arch,
            schedule: *schedule,
            settings: settings.clone(),
            plan,
            losses: Losses {
                before: trained.before,
                after: trained.written_losses(),
                quantised,
                hand_written: trained.baseline,
                start_own,
            },
            written_epoch: trained.best_epoch,
            clamped: q.clamped,
            seconds,
            threads,
            network: net.network().clone(),
        };
        report.network.provenance = report.provenance(&loaded.comments);
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::super::data::Samples;
    use super::super::loader::{Baseline, Reader, Wanted};
    use super::*;
    use crate::rules::board::Position;
    use crate::rules::variant_set::VariantSet;
    use crate::tools::datafile::DataPosition;

    /// A net without king buckets, lifted into a layout with them, starts
    /// the model where the net was: a position whose kings stand on the
    /// left half is evaluated as the net evaluates it, one whose kings
    /// stand on the right half as the net evaluates its mirror image; with
    /// the factoriser and without.
    #[test]
    fn a_net_without_king_buckets_starts_every_bucket_where_it_was() {
        let set = VariantSet::builtin();
        let (v, evaluator) = crate::engine::eval::compile(&set, "chess").expect("chess");
        let plain = Layout::new(&v);
        let start = Network::random_with_buckets(&plain, 16, 2, 5);
        let plain_model = dequantise(&start, plain.inputs());
        let sample = |layout: &Layout, factoriser: Option<&Factoriser>, fen: &str| {
            let reader = Reader {
                variant: &v,
                layout,
                factoriser,
                tables: evaluator.tables(),
                buckets: 2,
            };
            let pos = Position::from_fen(v.clone(), fen).expect("fen");
            let line = DataPosition {
                pos: &pos,
                score: 0,
                result: 0.5,
                index: 0,
                game: None,
            };
            let s = reader
                .sample(&mut Baseline::new(), line, &Wanted(&[]))
                .expect("sample");
            Samples::new(vec![s]).with_virtuals(factoriser.map(Factoriser::virtuals))
        };
        for factoriser in [true, false] {
            let arch = Architecture {
                hidden: 16,
                buckets: 2,
                kings: 4,
                factoriser,
                ..Architecture::default()
            };
            let trainer = Trainer::new(v.clone(), evaluator.clone(), arch);
            let layout = trainer.layout();
            assert_eq!(layout.inputs(), 4 * plain.inputs());
            let fz = factoriser.then(|| Factoriser::of(layout));
            let rows = fz.map_or(layout.inputs(), |f| f.rows());
            let model = trainer.start_model(&start, fz.as_ref(), rows, 1);
            assert_eq!(model.weights.len(), model.shape.size());
            for (fen, as_plain) in [
                // Kings on d8 and c1: no view mirrored.
                (
                    "3k4/8/2n5/8/4P3/1B6/8/2K5 w - - 0 1",
                    "3k4/8/2n5/8/4P3/1B6/8/2K5 w - - 0 1",
                ),
                // Kings on f8 and g1: both mirrored.
                (
                    "5k2/8/2n5/8/4P3/1B6/8/6K1 b - - 0 1",
                    "2k5/8/5n2/8/3P4/6B1/8/1K6 b - - 0 1",
                ),
            ] {
                let lifted = model.output(&sample(layout, fz.as_ref(), fen).get(0));
                let want = plain_model.output(&sample(&plain, None, as_plain).get(0));
                assert!((lifted - want).abs() < 1e-4, "{fen}: {lifted} {want}");
            }
            // The net's own position, mirrored, is another evaluation: the
            // test can tell the two apart.
            let other = plain_model
                .output(&sample(&plain, None, "5k2/8/2n5/8/4P3/1B6/8/6K1 b - - 0 1").get(0));
            let mirrored = plain_model
                .output(&sample(&plain, None, "2k5/8/5n2/8/3P4/6B1/8/1K6 b - - 0 1").get(0));
            assert!((other - mirrored).abs() > 1e-3, "{other} {mirrored}");
        }
    }
}
