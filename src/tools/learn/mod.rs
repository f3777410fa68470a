//! `amalgam learn`: the self-improvement loop of a variant, unattended.
//! Each generation makes self-play data with the best evaluation so far,
//! trains a candidate net on the data, and plays a gate match of the
//! candidate against the best; an accepted candidate becomes the best.
//! Everything lives in one folder, so that a stopped run (a signal, its
//! budget, a kill) continues where it stopped when started again:
//!
//! ```text
//! DIR/learn.log          one line a step, appended (log)
//! DIR/best.nnue          the best net, replaced whole on a promotion (nets)
//! DIR/best.ini           the variant with best.nnue, for the engines and datagen
//! DIR/progress.svg       Elo per promoted generation, loss per epoch (chart)
//! DIR/data/gen-NNNN.bin  each generation's games (data)
//! DIR/shards/            data made elsewhere (scripts/), read as data too
//! DIR/gen-NNNN/          candidate.nnue, candidate.ini, base.ini, gate.pgn
//! ```
//!
//! - [`log`]: the log's lines and what a restart reads from them
//! - [`sizes`]: positions per generation, the training window, hidden size
//! - [`data`]: the generations' files, cut to whole games; the window
//! - [`training`]: the trainer on a thread a stop does not wait for
//! - [`nets`]: variant files that give an engine a net; promotion
//! - [`gate`]: the gate match and its verdict
//! - [`chart`]: the progress picture

pub mod chart;
pub mod data;
pub mod gate;
pub mod log;
pub mod nets;
pub mod sizes;
pub mod training;

/// An empty folder of the unit tests, `name` telling it apart.
#[cfg(test)]
fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("amalgam-learn-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

use crate::engine::eval::Evaluator;
use crate::engine::eval::nnue::features::KingBuckets;
use crate::rules::variant::Variant;
use crate::rules::variant_set::VariantSet;
use crate::tools::train::report::positions_trained;
use crate::tools::train::settings::StopRequest;
use crate::tools::train::{
    Architecture, Batch, DataFiles, Event, Schedule, Settings, StartNet, Trainer, loss_text,
};
pub use crate::util::stop::{Stop, StopSignal};
use data::{DataProgress, Making};
use gate::{Gate, GateEnd, GateSettings, Side};
use log::{History, Line, Log};
use nets::Evaluation;
use sizes::Sizes;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a run is asked for.
#[derive(Clone, Debug)]
pub struct LearnOptions {
    pub dir: PathBuf,
    /// The budget of this run.
    pub hours: Option<f64>,
    /// Stop once this generation is done (counting earlier runs').
    pub generations: Option<u32>,
    pub threads: usize,
    /// Nodes a move in the data's games.
    pub nodes: u64,
    pub sizes: Sizes,
    /// Epochs of each training (none: [`DEFAULT_EPOCHS`] from random
    /// weights, [`START_NET_EPOCHS`] from the best net's).
    pub epochs: Option<usize>,
    /// Train every candidate from random weights, never from the best net's.
    pub fresh: bool,
    pub batch: Batch,
    pub lambda: f32,
    /// Output buckets of the nets trained (by material; 1: none).
    pub output_buckets: usize,
    /// The king bucket preset of the nets trained (0: none).
    pub king_buckets: usize,
    pub gate: GateSettings,
    pub seed: u64,
    /// The command line, for the log and the nets' provenance.
    pub command: String,
}

/// Nodes a move of the data's games by default: the setting of the
/// shipped nets' data.
pub const DEFAULT_NODES: u64 = 1_000;

/// Epochs of a training by default; the last fifth at a tenth of the step
/// size. The trainer keeps the epoch of the lowest validation loss, so
/// epochs past the best cost time only.
pub const DEFAULT_EPOCHS: usize = 30;

/// Epochs of a training from the best net's weights by default: it
/// starts where a random start is after dozens, and its best epoch came
/// early (see [`START_NET_RATE`]).
pub const START_NET_EPOCHS: usize = 10;

/// The step size of a training from the best net's weights, against the
/// trainer's default 0.001 from random ones. On 330 k new Compound
/// positions the shipped net's validation loss was 0.003115; epochs from
/// it at 0.001 made it worse at every epoch (0.003164 at the first), at
/// 0.0003 it fell to 0.003067, at 0.0001 to 0.003043 (from random weights
/// the same data reached 0.004483). On 970 k positions (five epochs):
/// 0.002831 to 0.002702 at 0.0003, to 0.002706 at 0.0001. A generation
/// from a net has at least a million positions.
pub const START_NET_RATE: f32 = 0.0003;

/// The weight of the search score in the training target by default: the
/// score alone. With the game's result in the target, nets on a few
/// million positions or fewer learn the games' results by heart (training
/// loss a quarter of the validation loss within a few epochs); the
/// scores of a search differ from position to position of a game.
pub const DEFAULT_LAMBDA: f32 = 1.0;

/// The share of a budget's time left that a generation's data may take
/// past its target (when no size is fixed): in an hour from nothing, the
/// first generation's games take 27 minutes and leave the rest to its
/// training, its gate and a second generation. On a chess-like variant a
/// first net on 1 M positions had a validation loss 10% below the
/// hand-written evaluation's and won its gate by +76 Elo; on the 2.6 M of
/// 27 minutes, 19% below and +235.
pub const DATA_SHARE: f64 = 0.45;

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The last generation asked for is done.
    Generations(u32),
    /// The budget of the run is spent.
    Budget,
    /// A signal (or a request of the caller) stopped it.
    Stopped(Option<StopSignal>),
}

/// What the loop is doing, for a progress line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Phase {
    Data(DataProgress),
    Train {
        epoch: usize,
        epochs: usize,
        done: usize,
        total: usize,
    },
    Gate,
}

/// The loop's state for a progress line: the generation, its phase, and
/// the time left of the budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Status {
    pub generation: u32,
    pub phase: Phase,
    pub left: Option<Duration>,
}

/// How a phase ended.
enum Next {
    Done,
    Stopped,
}

/// A run of the loop.
struct Learn<'a> {
    set: &'a VariantSet,
    name: &'a str,
    variant: Arc<Variant>,
    /// The variant's evaluation as its files give it (the trainer's
    /// measure, and datagen's evaluation before any promotion).
    evaluator: Arc<Evaluator>,
    opts: &'a LearnOptions,
    dir: PathBuf,
    exe: PathBuf,
    stop: &'a Stop,
    deadline: Option<Instant>,
    log: Log,
    history: History,
    status: &'a (dyn Fn(&Status) + Sync),
}

/// Run the loop for the variant `name` of `set`: until the generations
/// asked for are done, the budget is spent or `stop` is requested (SIGINT
/// or SIGTERM through [`Stop::on_signals`]); `status` hears of its
/// progress.
pub fn run(
    set: &VariantSet,
    name: &str,
    opts: &LearnOptions,
    stop: &Stop,
    status: &(dyn Fn(&Status) + Sync),
) -> Result<Ended, String> {
    let (variant, evaluator) = compile(set, name)?;
    let io = |what: &Path, e: std::io::Error| format!("{}: {e}", what.display());
    for sub in ["data", "shards"] {
        let folder = opts.dir.join(sub);
        std::fs::create_dir_all(&folder).map_err(|e| io(&folder, e))?;
    }
    let dir = std::fs::canonicalize(&opts.dir).map_err(|e| io(&opts.dir, e))?;
    let exe = std::env::current_exe().map_err(|e| format!("this program's path: {e}"))?;
    for path in [&dir, &exe] {
        gate::without_spaces(path)?;
    }
    let log_path = dir.join("learn.log");
    let history = History::read(&log_path).map_err(|e| io(&log_path, e))?;
    let log = Log::open(&log_path).map_err(|e| io(&log_path, e))?;
    let deadline = opts
        .hours
        .map(|h| Instant::now() + Duration::from_secs_f64((h * 3600.0).clamp(0.0, 1e9)));
    if let Some(at) = deadline {
        // The budget asks for the stop a signal would.
        let stop = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
            stop.request();
        });
    }
    let mut learn = Learn {
        set,
        name,
        variant,
        evaluator,
        opts,
        dir,
        exe,
        stop,
        deadline,
        log,
        history,
        status,
    };
    learn.note(
        Line::new("run-start")
            .with("variant", name)
            .with("gen", learn.history.current())
            .with("threads", opts.threads)
            .with("left_out_lines", learn.history.left_out)
            .with("command", &opts.command),
    )?;
    let result = learn.generations();
    let stop_line = match &result {
        Ok(ended) => Line::new("run-stop").with("reason", ended_text(*ended)),
        Err(e) => Line::new("run-stop")
            .with("reason", "error")
            .with("error", e),
    };
    learn.note(stop_line)?;
    learn.chart();
    result
}

/// The variant `name` of `set` and its evaluation; the errors in one line.
fn compile(set: &VariantSet, name: &str) -> Result<(Arc<Variant>, Arc<Evaluator>), String> {
    crate::engine::eval::compile(set, name).map_err(|e| {
        e.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// Remove the files of trainings that a stop left unfinished in `folder`
/// (the trainer's hidden `.candidate.nnue.PID.tmp`, renamed only when the
/// net is written).
fn remove_unfinished_nets(folder: &Path) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with(".candidate.nnue.") && name.ends_with(".tmp") {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Whether a candidate with these validation losses (its own, the
/// hand-written evaluation's) is worth a gate: not when it predicts the
/// positions worse than the hand-written evaluation; yes when unknown.
fn worth_a_gate(losses: Option<(f64, f64)>) -> bool {
    losses.is_none_or(|(net, hand_written)| net <= hand_written)
}

fn ended_text(e: Ended) -> String {
    match e {
        Ended::Generations(g) => format!("generation-{g}-done"),
        Ended::Budget => "budget-spent".to_string(),
        Ended::Stopped(Some(s)) => s.to_string(),
        Ended::Stopped(None) => "stopped".to_string(),
    }
}

impl Learn<'_> {
    /// Write a line to the log and take it into the history.
    fn note(&mut self, line: Line) -> Result<(), String> {
        self.history.add(&line);
        self.log
            .write(&line)
            .map_err(|e| format!("{}: {e}", self.dir.join("learn.log").display()))
    }

    fn show(&self, generation: u32, phase: Phase) {
        (self.status)(&Status {
            generation,
            phase,
            left: self
                .deadline
                .map(|d| d.saturating_duration_since(Instant::now())),
        });
    }

    /// Why the loop stops now.
    fn stopped(&self) -> Ended {
        match self.stop.signal() {
            Some(s) => Ended::Stopped(Some(s)),
            None if self.deadline.is_some_and(|d| Instant::now() >= d) => Ended::Budget,
            None => Ended::Stopped(None),
        }
    }

    fn generations(&mut self) -> Result<Ended, String> {
        let mut g = self.history.current();
        loop {
            if let Some(last) = self.opts.generations.filter(|&last| g > last) {
                return Ok(Ended::Generations(last));
            }
            if self.stop.is_requested() {
                return Ok(self.stopped());
            }
            match self.generation(g)? {
                Next::Done => g += 1,
                Next::Stopped => return Ok(self.stopped()),
            }
        }
    }

    fn folder(&self, g: u32) -> PathBuf {
        self.dir.join(format!("gen-{g:04}"))
    }

    /// The phases of generation `g` not yet done.
    fn generation(&mut self, g: u32) -> Result<Next, String> {
        let folder = self.folder(g);
        std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        let record = self
            .history
            .generations
            .get(&g)
            .cloned()
            .unwrap_or_default();
        if record.data.is_none() && matches!(self.make_data(g)?, Next::Stopped) {
            return Ok(Next::Stopped);
        }
        let trained = record.trained && folder.join("candidate.nnue").is_file();
        if !trained && matches!(self.train(g)?, Next::Stopped) {
            return Ok(Next::Stopped);
        }
        let record = self.history.generations.get(&g);
        if record.is_some_and(|r| r.start_kept) {
            self.reject_unplayed(g, "no-better-than-start")
        } else if worth_a_gate(record.and_then(|r| r.losses)) {
            self.gate(g)
        } else {
            self.reject_unplayed(g, "loss-above-hand-written")
        }
    }

    /// A candidate that predicts the validation positions worse than the
    /// hand-written evaluation does is rejected without a gate: such a net
    /// plays worse than the evaluation that made its data (on little data
    /// a net overfits the games it saw), and its gate would cost minutes
    /// to say so. So is one that is the best net unchanged (trained from
    /// it, no epoch predicted the new data better). The next generation
    /// adds data.
    fn reject_unplayed(&mut self, g: u32, why: &str) -> Result<Next, String> {
        self.note(
            Line::new("gate-end")
                .with("gen", g)
                .with("games", 0)
                .with("why", why)
                .with("verdict", "rejected"),
        )?;
        self.chart();
        Ok(Next::Done)
    }

    /// The best evaluation now: its variant file (written afresh) when it
    /// is a net of the loop, and its name in the gate.
    fn best(&self, g: u32) -> Result<(PathBuf, &'static str), String> {
        let best_net = self.dir.join("best.nnue");
        let (path, eval, name) = if best_net.is_file() {
            (
                self.dir.join("best.ini"),
                Evaluation::Net("best.nnue"),
                "best",
            )
        } else if self.variant.nnue.is_some() {
            (
                self.folder(g).join("base.ini"),
                Evaluation::Own,
                "variant-net",
            )
        } else {
            (
                self.folder(g).join("base.ini"),
                Evaluation::HandWritten,
                "hand-written",
            )
        };
        let text = nets::variant_file(self.set, self.name, eval)?;
        nets::write_atomic(&path, text.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok((path, name))
    }

    /// The lines of the log that tell how generation `g`'s data were
    /// made: the runs' starts and the generation's own lines (not its
    /// epochs), for the candidate's provenance.
    fn generation_log(&self, g: u32) -> Vec<String> {
        let text = std::fs::read_to_string(self.dir.join("learn.log")).unwrap_or_default();
        text.lines()
            .filter(|l| {
                let line = l.split_once(' ').and_then(|(_, rest)| Line::parse(rest));
                line.is_some_and(|line| match line.event.as_str() {
                    "run-start" | "run-stop" => true,
                    "epoch" => false,
                    _ => line.generation() == Some(g),
                })
            })
            .map(str::to_string)
            .collect()
    }

    /// The net a candidate of `architecture` starts from, and its name in
    /// the log: the best net (the loop's, else the variant's own) where it
    /// can start that architecture (the same, or a narrower hidden layer,
    /// which the training widens) and `--fresh` is not given; else none
    /// ("random").
    fn start_net(
        &self,
        g: u32,
        architecture: &Architecture,
    ) -> Result<(Option<StartNet>, &'static str), String> {
        if self.opts.fresh {
            return Ok((None, "random"));
        }
        let (_, name) = self.best(g)?;
        let (network, net_name) = match name {
            "best" => {
                let best = StartNet::read(&self.dir.join("best.nnue").display().to_string())?;
                (best.network, best.name)
            }
            "variant-net" => match self.evaluator.net() {
                Some(net) => (net.network().clone(), net.name().to_string()),
                None => return Ok((None, "random")),
            },
            _ => return Ok((None, "random")),
        };
        // A net without king buckets starts one with them (its weights in
        // every bucket), a narrower net a wider one (its neurons kept, new
        // ones added); one with other king buckets starts none.
        let kings = KingBuckets::preset(architecture.kings, self.variant.files, self.variant.ranks)
            .map_err(|e| e.to_string())?;
        let kings_fit = network.kings.is_none() || network.kings == kings;
        Ok(
            if kings_fit && architecture.cannot_start(&network).is_none() {
                let start = StartNet {
                    name: net_name,
                    network,
                };
                (Some(start), name)
            } else {
                (None, "random")
            },
        )
    }

    /// The evaluation datagen plays with: the best net, else the
    /// variant's own evaluation.
    fn best_evaluator(&self, g: u32) -> Result<(Arc<Evaluator>, &'static str), String> {
        let (file, name) = self.best(g)?;
        if name != "best" {
            return Ok((self.evaluator.clone(), name));
        }
        let mut set = self.set.clone();
        crate::engine::eval::load_file_checked(&mut set, &file.display().to_string())
            .map_err(|e| e.with_check_hint())?;
        let (_, evaluator) = compile(&set, self.name)?;
        Ok((evaluator, name))
    }

    fn make_data(&mut self, g: u32) -> Result<Next, String> {
        let sizes = self.opts.sizes;
        let (evaluator, best) = self.best_evaluator(g)?;
        // The variant's own net, made elsewhere: the data it was trained
        // on are the measure of what a candidate needs.
        let rival = match best {
            "variant-net" => evaluator
                .net()
                .and_then(|n| positions_trained(&n.network().provenance))
                .unwrap_or(0),
            _ => 0,
        };
        let target = sizes.generation_positions(self.history.positions_before(g), rival);
        // With a budget and no fixed size, the games go on past the target
        // for a share of the time left: more data make a better net, and
        // the rest of the time is the training's and the gate's.
        let now = Instant::now();
        let past_target = self
            .deadline
            .filter(|_| sizes.positions.is_none())
            .map(|d| d.saturating_duration_since(now).mul_f64(DATA_SHARE));
        let goal = data::Goal {
            target,
            until: past_target.map(|t| now + t),
            most: sizes.max_positions.max(target),
        };
        let mut start = Line::new("data-start")
            .with("gen", g)
            .with("target", target);
        if rival > 0 {
            start = start.with("best_trained_on", rival);
        }
        if let Some(t) = past_target {
            start = start.with("until_seconds", t.as_secs());
        }
        self.note(
            start
                .with("nodes", self.opts.nodes)
                .with("evaluation", best),
        )?;
        let started = Instant::now();
        let making = Making {
            variant: &self.variant,
            evaluator: &evaluator,
            nodes: self.opts.nodes,
            threads: self.opts.threads,
            seed: self
                .opts
                .seed
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .wrapping_add(u64::from(g) << 32),
            stop: self.stop,
        };
        let file = data::generation_file(&self.dir.join("data"), g);
        let show = |p: DataProgress| self.show(g, Phase::Data(p));
        let counts = making.run(&file, goal, &show)?;
        let line = Line::new(if self.stop.is_requested() {
            "data-stop"
        } else {
            "data-end"
        })
        .with("gen", g)
        .with("positions", counts.positions)
        .with("games", counts.games)
        .with("seconds", format!("{:.1}", started.elapsed().as_secs_f64()));
        self.note(line)?;
        Ok(if self.stop.is_requested() {
            Next::Stopped
        } else {
            Next::Done
        })
    }

    fn train(&mut self, g: u32) -> Result<Next, String> {
        let folders = [self.dir.join("data"), self.dir.join("shards")];
        let window = data::window(
            &[&folders[0], &folders[1]],
            &self.variant,
            self.opts.sizes.window,
        );
        for left in &window.left_out {
            self.note(
                Line::new("data-left-out")
                    .with("gen", g)
                    .with("file", left.file.display())
                    .with("error", &left.why),
            )?;
        }
        let hidden = self.opts.sizes.hidden(window.positions);
        let architecture = Architecture {
            hidden,
            buckets: self.opts.output_buckets,
            kings: self.opts.king_buckets,
            ..Architecture::default()
        };
        let (start, start_name) = self.start_net(g, &architecture)?;
        // A candidate that goes on from the best is measured, and the best
        // with it, on data the best has not trained on.
        let held_from = match start_name {
            "best" => data::trained_on_by(&window.files, &self.dir.join("best.nnue")),
            _ => 0,
        };
        let (epochs, rate) = match &start {
            Some(_) => (self.opts.epochs.unwrap_or(START_NET_EPOCHS), START_NET_RATE),
            None => (
                self.opts.epochs.unwrap_or(DEFAULT_EPOCHS),
                Schedule::default().rate(),
            ),
        };
        let folder = self.folder(g);
        // A checkpoint left by a stopped run of this generation is resumed
        // when it matches what this run trains on; one that does not (the
        // window took in new shards, say) is dropped and the training starts
        // again.
        let checkpoint = folder.join("candidate.nnue.ckpt");
        let resume = checkpoint.is_file();
        self.note(
            Line::new("train-start")
                .with("gen", g)
                .with("positions", window.positions)
                .with("files", window.files.len())
                .with("hidden", hidden)
                .with("epochs", epochs)
                .with("start", start_name)
                .with("held_from_file", held_from + 1)
                .with("resume", if resume { "yes" } else { "no" }),
        )?;
        let out = folder.join("candidate.nnue");
        remove_unfinished_nets(&folder);
        let schedule = Schedule::new(epochs, rate, epochs / 5).map_err(|e| e.to_string())?;
        let settings = Settings {
            seed: self.opts.seed.wrapping_add(u64::from(g)),
            lambda: self.opts.lambda,
            held_from,
            batch: self.opts.batch,
            threads: self.opts.threads,
            out: out.display().to_string(),
            command: format!("{} (generation {g})", self.opts.command),
            checkpoint: Some(checkpoint.display().to_string()),
            resume,
            init: start,
            notes: Some((
                format!("The log of amalgam learn to generation {g}'s training"),
                self.generation_log(g),
            )),
            stop: StopRequest(Some(self.stop.clone())),
            ..Settings::default()
        };
        let trainer = Trainer::new(self.variant.clone(), self.evaluator.clone(), architecture);
        let files = DataFiles::new(
            window
                .files
                .iter()
                .map(|f| f.display().to_string())
                .collect(),
        );
        let started = Instant::now();
        let mut epoch_lines = Vec::new();
        let mut log_failed = false;
        let result = {
            let mut on_event = |e: Event| match e {
                Event::Progress { epoch, done, total } => self.show(
                    g,
                    Phase::Train {
                        epoch,
                        epochs,
                        done,
                        total,
                    },
                ),
                Event::Epoch(e) => {
                    let line = Line::new("epoch")
                        .with("gen", g)
                        .with("epoch", e.number)
                        .with("train", format!("{:.6}", e.train_loss))
                        .with("validation", loss_text(e.validation_loss))
                        .with("seconds", format!("{:.1}", e.seconds));
                    // Written at once; taken into the history after.
                    log_failed |= self.log.write(&line).is_err();
                    epoch_lines.push(line);
                }
                Event::Plan(_) => {}
            };
            training::train(trainer, schedule, settings, files, self.stop, &mut on_event)
        };
        for line in &epoch_lines {
            self.history.add(line);
        }
        if log_failed {
            return Err(format!(
                "{}: cannot be written",
                self.dir.join("learn.log").display()
            ));
        }
        let report = match result? {
            training::Trained::Stopped => {
                self.note(Line::new("train-stop").with("gen", g))?;
                return Ok(Next::Stopped);
            }
            training::Trained::CheckpointRefused(why) => {
                self.note(
                    Line::new("checkpoint-dropped")
                        .with("gen", g)
                        .with("error", why),
                )?;
                std::fs::remove_file(&checkpoint)
                    .map_err(|e| format!("{}: cannot be removed: {e}", checkpoint.display()))?;
                return self.train(g);
            }
            training::Trained::Done(r) => r,
        };
        let mut end = Line::new("train-end")
            .with("gen", g)
            .with("validation", loss_text(report.losses.quantised))
            // The start's loss on the same held-out positions: how much the
            // generation learnt, beside the measure to beat.
            .with("start_validation", loss_text(report.losses.before.1))
            .with("hand_written", loss_text(report.losses.hand_written))
            .with("epoch_written", report.written_epoch)
            .with(
                "start_kept",
                if report.no_better_than_start() {
                    "yes"
                } else {
                    "no"
                },
            )
            .with("seconds", format!("{:.1}", started.elapsed().as_secs_f64()));
        // A start lifted into another layout: its own loss, which the
        // candidate had to beat (`start_kept`), not the lifted model's.
        if let Some(own) = report.losses.start_own {
            end = end.with("start_own", loss_text(Some(own)));
        }
        self.note(end)?;
        self.chart();
        Ok(Next::Done)
    }

    fn gate(&mut self, g: u32) -> Result<Next, String> {
        let folder = self.folder(g);
        let (best_file, best_name) = self.best(g)?;
        let candidate_file = folder.join("candidate.ini");
        let text = nets::variant_file(self.set, self.name, Evaluation::Net("candidate.nnue"))?;
        nets::write_atomic(&candidate_file, text.as_bytes())
            .map_err(|e| format!("{}: {e}", candidate_file.display()))?;
        let candidate_name = format!("gen-{g}");
        let settings = self.opts.gate;
        self.note(
            Line::new("gate-start")
                .with("gen", g)
                .with("best", best_name)
                .with("clock", settings.clock.pgn())
                .with("max_games", settings.max_games)
                .with("elo0", settings.sprt.elo0)
                .with("elo1", settings.sprt.elo1),
        )?;
        self.show(g, Phase::Gate);
        let started = Instant::now();
        let gate = Gate {
            set: self.set,
            variant: self.name,
            exe: &self.exe,
            candidate: Side {
                name: &candidate_name,
                variant_file: &candidate_file,
            },
            best: Side {
                name: best_name,
                variant_file: &best_file,
            },
            pgn: &folder.join("gate.pgn"),
            settings,
            seed: u64::from(g),
            stop: self.stop,
        };
        // A run killed between the promotion and its log line: the
        // candidate is the best already, and the gate's file has its result.
        let promoted_before = std::fs::read(folder.join("candidate.nnue"))
            .is_ok_and(|c| std::fs::read(self.dir.join("best.nnue")).is_ok_and(|b| b == c));
        let played = if promoted_before {
            gate.result().map_err(GateEnd::Failed)
        } else {
            gate.play()
        };
        let result = match played {
            Ok(r) => r,
            Err(GateEnd::Stopped) => {
                self.note(Line::new("gate-stop").with("gen", g))?;
                return Ok(Next::Stopped);
            }
            Err(GateEnd::Failed(e)) => return Err(format!("the gate of generation {g}: {e}")),
        };
        if result.promoted() && !promoted_before {
            let best = self.dir.join("best.nnue");
            nets::promote(&folder.join("candidate.nnue"), &best)
                .map_err(|e| format!("{}: {e}", best.display()))?;
            // best.ini, the variant with the new net, for the user too.
            self.best(g)?;
        }
        let s = result.score;
        self.note(
            Line::new("gate-end")
                .with("gen", g)
                .with("games", s.games())
                .with("w", s.wins)
                .with("l", s.losses)
                .with("d", s.draws)
                .with("elo", format!("{:.1}", result.elo))
                .with("llr", format!("{:.2}", result.llr))
                .with("why", result.why())
                .with("seconds", format!("{:.1}", started.elapsed().as_secs_f64()))
                .with("verdict", result.verdict_text()),
        )?;
        self.chart();
        Ok(Next::Done)
    }

    /// Write the progress picture (a failure is only noted: the loop goes
    /// on without it).
    fn chart(&mut self) {
        let losses: Vec<(u32, Vec<f64>)> = self
            .history
            .generations
            .iter()
            .map(|(&g, x)| (g, x.validation.clone()))
            .collect();
        let text = chart::svg(self.name, &self.history.promoted_elo(), &losses);
        let path = self.dir.join("progress.svg");
        if let Err(e) = nets::write_atomic(&path, text.as_bytes()) {
            let _ = self.log.write(
                &Line::new("chart-failed").with("error", format!("{}: {e}", path.display())),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_candidate_with_a_loss_above_the_hand_written_one_skips_its_gate() {
        assert!(worth_a_gate(None));
        assert!(worth_a_gate(Some((0.010, 0.011))));
        assert!(worth_a_gate(Some((0.011, 0.011))));
        assert!(!worth_a_gate(Some((0.035686, 0.032323))));
    }

    #[test]
    fn a_stopped_trainings_file_is_removed_and_nothing_else() {
        let dir = scratch_dir("unfinished");
        for name in [".candidate.nnue.4242.tmp", "candidate.nnue", "gate.pgn"] {
            std::fs::write(dir.join(name), b"x").expect("write");
        }
        remove_unfinished_nets(&dir);
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["candidate.nnue", "gate.pgn"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
