//! A request to stop a long job, shared by the threads that do the work:
//! set by SIGINT or SIGTERM (or by the job itself), read where the work
//! can end cleanly. No global state: the signal handler sets the flags this
//! value shares.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// A signal that asks a job to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopSignal {
    Interrupt,
    Terminate,
}

impl StopSignal {
    /// The exit status of a job that this signal stopped: 128 plus the
    /// signal's number, as a shell reports it.
    pub fn exit_status(self) -> u8 {
        match self {
            StopSignal::Interrupt => 130,
            StopSignal::Terminate => 143,
        }
    }
}

impl fmt::Display for StopSignal {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            StopSignal::Interrupt => "SIGINT",
            StopSignal::Terminate => "SIGTERM",
        })
    }
}

/// Whether a stop was asked for, and by which signal. Clones share it.
#[derive(Clone, Debug, Default)]
pub struct Stop {
    requested: Arc<AtomicBool>,
    /// The signal's number, 0 when none came.
    signal: Arc<AtomicUsize>,
}

impl Stop {
    /// A stop that only [`Stop::request`] sets.
    pub fn new() -> Stop {
        Stop::default()
    }

    /// A stop that SIGINT and SIGTERM set. A second signal ends the process
    /// at once (exit status 1), for a job that does not stop soon enough.
    pub fn on_signals() -> std::io::Result<Stop> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let stop = Stop::new();
        for sig in [SIGINT, SIGTERM] {
            // The shutdown is registered first, so that it sees the flag
            // unset on the first signal and set on the second.
            signal_hook::flag::register_conditional_shutdown(sig, 1, stop.requested.clone())?;
            signal_hook::flag::register_usize(sig, stop.signal.clone(), sig as usize)?;
            signal_hook::flag::register(sig, stop.requested.clone())?;
        }
        Ok(stop)
    }

    /// Ask for the stop.
    pub fn request(&self) {
        self.requested.store(true, Ordering::SeqCst);
    }

    pub fn is_requested(&self) -> bool {
        self.requested.load(Ordering::SeqCst)
    }

    /// The signal that asked for the stop, if one did.
    pub fn signal(&self) -> Option<StopSignal> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        match self.signal.load(Ordering::SeqCst) {
            s if s == SIGINT as usize => Some(StopSignal::Interrupt),
            s if s == SIGTERM as usize => Some(StopSignal::Terminate),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_request() {
        let a = Stop::new();
        let b = a.clone();
        assert!(!b.is_requested());
        a.request();
        assert!(b.is_requested());
        assert_eq!(b.signal(), None);
        assert_eq!(StopSignal::Terminate.exit_status(), 143);
        assert_eq!(StopSignal::Interrupt.to_string(), "SIGINT");
    }
}
