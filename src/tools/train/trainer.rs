//! The training pipeline behind one entry point: a [`Trainer`] for a
//! variant and an architecture runs a [`Schedule`] with [`Settings`] on
//! [`DataFiles`], and reports as it goes. In order: the options and the net
//! file are checked before anything is read; the data are read into
//! positions and split; the batch is chosen; the fit runs its epochs; the
//! factoriser is folded in; the network is quantised and its loss taken by
//! the engine's own evaluation; the net file is written with its
//! provenance.

use super::data::split;
use super::error::TrainError;
use super::events::{Event, Plan};
use super::factor::Factoriser;
use super::fit::{Fit, FitState, thread_pool};
use super::loader::{DataFiles, Reader};
use super::model::Shape;
use super::output::PendingNet;
use super::quantise::{quantise, quantised_loss};
use super::report::{Losses, Report};
use super::schedule::Schedule;
use super::settings::{Architecture, Batch, Settings};
use crate::engine::eval::Evaluator;
use crate::engine::eval::nnue::{Layout, Net};
use crate::rules::variant::Variant;
use std::sync::Arc;
use std::time::Instant;

/// Trains networks of one architecture for one variant.
pub struct Trainer {
    variant: Arc<Variant>,
    evaluator: Arc<Evaluator>,
    layout: Layout,
    architecture: Architecture,
}

impl Trainer {
    /// A trainer for `variant`, whose hand-written evaluation (the
    /// `evaluator`'s tables) is the measure its nets are compared with.
    pub fn new(
        variant: Arc<Variant>,
        evaluator: Arc<Evaluator>,
        architecture: Architecture,
    ) -> Trainer {
        Trainer {
            layout: Layout::new(&variant),
            variant,
            evaluator,
            architecture,
        }
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Train a net by `schedule` and `settings` on `data` and write it;
    /// `on_event` hears of the plan, the progress and each epoch.
    pub fn run(
        &self,
        schedule: &Schedule,
        settings: &Settings,
        data: &DataFiles,
        on_event: &mut (dyn FnMut(Event) + Send),
    ) -> Result<Report, TrainError> {
        self.architecture.check()?;
        settings.check()?;
        let pending = PendingNet::create(&settings.out).map_err(|error| TrainError::Output {
            path: settings.out.clone(),
            error,
        })?;
        // The reading too runs on the threads asked for.
        let pool = thread_pool(settings.threads)?;
        let threads = pool.current_num_threads();
        let report = pool.install(|| self.train(schedule, settings, data, threads, on_event))?;
        pending
            .commit(&report.network.to_bytes())
            .map_err(|error| TrainError::Output {
                path: settings.out.clone(),
                error,
            })?;
        Ok(report)
    }

    /// Everything between the checks and the writing, on the pool.
    fn train(
        &self,
        schedule: &Schedule,
        settings: &Settings,
        data: &DataFiles,
        threads: usize,
        on_event: &mut (dyn FnMut(Event) + Send),
    ) -> Result<Report, TrainError> {
        let layout = &self.layout;
        let arch = self.architecture;
        let started = Instant::now();
        let factoriser = arch
            .factoriser
            .then(|| Factoriser::new(layout.inputs(), layout.squares()));
        let loaded = data.load(&Reader {
            variant: &self.variant,
            layout,
            factoriser: factoriser.as_ref(),
            tables: self.evaluator.tables(),
        })?;
        let samples = &loaded.samples;
        let rows = factoriser.map_or(layout.inputs(), |f| f.rows());
        if samples.feature_bound() > rows {
            return Err(TrainError::FeatureBeyondInputs { inputs: rows });
        }
        let (validation, train) = split(samples.len(), settings.validation, settings.seed);
        if train.is_empty() {
            return Err(TrainError::NoTrainingPositions);
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
        };
        on_event(Event::Plan(plan));
        let fit_started = Instant::now();
        let shape = Shape {
            inputs: rows,
            hidden: arch.hidden,
            activation: arch.activation,
        };
        let fit = Fit {
            samples,
            validation: &validation,
            schedule,
            lambda: settings.lambda,
            batch: plan.batch,
            threads,
        };
        let mut trained = fit.run(FitState::new(shape, train, settings.seed), on_event);
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
