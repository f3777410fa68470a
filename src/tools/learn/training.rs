//! A generation's training: the trainer's one entry point,
//! [`Trainer::run`], on a thread of its own. The trainer heeds the stop
//! request between two batches and writes its checkpoint there, and the
//! next run resumes from it (losing at most the batch in progress); the
//! wait for that is bounded, so that a stop asked for while the data are
//! still being read ends the loop soon all the same (the thread is then
//! left to end with the process, and the generation trains again).

use super::Stop;
use crate::tools::train::{DataFiles, Event, Report, Schedule, Settings, TrainError, Trainer};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How often the wait for the trainer looks at the stop request.
const STOP_POLL: Duration = Duration::from_millis(100);

/// How long a stopped training is given to reach a batch's end and write
/// its checkpoint.
const STOP_GRACE: Duration = Duration::from_secs(3);

/// What a training ended with.
pub enum Trained {
    Done(Box<Report>),
    /// Stopped before the end: no net is written (the checkpoint may be).
    Stopped,
    /// The checkpoint asked to be resumed was refused (why); nothing ran.
    CheckpointRefused(String),
}

/// Train with `trainer` on a thread of its own, passing its events to
/// `on_event` on this one; after a stop request the trainer is waited for
/// [`STOP_GRACE`] at most.
pub fn train(
    trainer: Trainer,
    schedule: Schedule,
    settings: Settings,
    data: DataFiles,
    stop: &Stop,
    on_event: &mut dyn FnMut(Event),
) -> Result<Trained, String> {
    let (events, received) = channel();
    let (done, finished) = channel();
    std::thread::spawn(move || {
        let mut send = |e: Event| {
            let _ = events.send(e);
        };
        let result = trainer.run(&schedule, &settings, &data, &mut send);
        let _ = done.send(result);
    });
    let mut stopped_at = None;
    loop {
        while let Ok(e) = received.try_recv() {
            on_event(e);
        }
        if stop.is_requested() {
            let since = *stopped_at.get_or_insert_with(Instant::now);
            if since.elapsed() >= STOP_GRACE {
                return Ok(Trained::Stopped);
            }
        }
        match finished.recv_timeout(STOP_POLL) {
            Ok(result) => {
                while let Ok(e) = received.try_recv() {
                    on_event(e);
                }
                return match result {
                    Ok(r) => Ok(Trained::Done(Box::new(r))),
                    Err(TrainError::Stopped { .. }) => Ok(Trained::Stopped),
                    Err(e @ TrainError::Checkpoint(_)) => {
                        Ok(Trained::CheckpointRefused(e.to_string()))
                    }
                    Err(e) => Err(e.to_string()),
                };
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err("the training ended without a result".to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::variant_set::VariantSet;
    use crate::tools::train::{Architecture, Batch, StopRequest};

    /// A training of the chess file of the tests, stopped before it begins
    /// when `stop` is asked for, resumed from its checkpoint when `resume`.
    fn run(dir: &std::path::Path, resume: bool, stop: &Stop) -> Trained {
        let (v, evaluator) =
            crate::engine::eval::compile(&VariantSet::builtin(), "chess").expect("chess");
        let trainer = Trainer::new(
            v,
            evaluator,
            Architecture {
                hidden: 16,
                ..Architecture::default()
            },
        );
        let settings = Settings {
            batch: Batch::Given(64),
            threads: 1,
            out: dir.join("candidate.nnue").display().to_string(),
            resume,
            stop: StopRequest(Some(stop.clone())),
            ..Settings::default()
        };
        let schedule = Schedule::new(2, 0.002, 0).expect("schedule");
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/train-chess.txt");
        let files = DataFiles::new(vec![data.to_string()]);
        train(trainer, schedule, settings, files, stop, &mut |_| {}).expect("trains")
    }

    /// A stop ends the training at a batch's end with its checkpoint
    /// written and no net; the next run resumes from the checkpoint and
    /// writes the net of a training never stopped.
    #[test]
    fn a_stopped_training_resumes_from_its_checkpoint() {
        let dir = crate::tools::learn::scratch_dir("training");
        let (net, checkpoint) = (dir.join("candidate.nnue"), dir.join("candidate.nnue.ckpt"));
        assert!(matches!(run(&dir, false, &Stop::new()), Trained::Done(_)));
        let whole = std::fs::read(&net).expect("net");
        for file in [&net, &checkpoint] {
            std::fs::remove_file(file).expect("written");
        }
        let stop = Stop::new();
        stop.request();
        assert!(matches!(run(&dir, false, &stop), Trained::Stopped));
        assert!(checkpoint.is_file() && !net.exists());
        assert!(matches!(run(&dir, true, &Stop::new()), Trained::Done(_)));
        assert!(
            std::fs::read(&net).expect("net") == whole,
            "the resumed net differs"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
