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
