//! A generation's training: the trainer's one entry point,
//! [`Trainer::run`], on a thread of its own, so that a stop asked for
//! while it runs ends the loop at once: the trainer has no stop of its
//! own, and an epoch on much data takes minutes. A stopped training is
//! left unfinished (its net is not written; the process then ends) and
//! the generation trains again on the next run.

use super::Stop;
use crate::tools::train::{DataFiles, Event, Report, Schedule, Settings, Trainer};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

/// How often the wait for the trainer looks at the stop request.
const STOP_POLL: Duration = Duration::from_millis(100);

/// What a training ended with.
pub enum Trained {
    Done(Box<Report>),
    /// Stopped before the end: nothing is written.
    Stopped,
}

/// Train with `trainer` on a thread of its own, passing its events to
/// `on_event` on this one; a stop ends the wait (the training thread is
/// left to end with the process).
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
    loop {
        while let Ok(e) = received.try_recv() {
            on_event(e);
        }
        if stop.is_requested() {
            return Ok(Trained::Stopped);
        }
        match finished.recv_timeout(STOP_POLL) {
            Ok(result) => {
                while let Ok(e) = received.try_recv() {
                    on_event(e);
                }
                return result
                    .map(|r| Trained::Done(Box::new(r)))
                    .map_err(|e| e.to_string());
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err("the training ended without a result".to_string());
            }
        }
    }
}
