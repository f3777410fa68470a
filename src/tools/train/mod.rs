//! Training a network for the neural evaluation (`amalgam train`) from
//! `datagen` files: see the network's shape and net file in
//! [`crate::engine::eval::nnue`]. One entry point, [`Trainer::run`], takes
//! the learning-rate schedule, the settings and the data as values:
//!
//! ```text
//! Trainer::new(variant, tables, architecture).run(&schedule, &settings, &data, &mut on_event)
//! ```
//!
//! - [`trainer`]: the pipeline, from the checks to the net file
//! - [`schedule`], [`settings`]: what a run is asked for
//! - [`loader`]: the data files read into positions
//! - [`data`]: positions as feature lists, the validation split
//! - [`factor`]: the factoriser's virtual features while training
//! - [`model`]: the float network, its loss and gradients
//! - [`adam`]: the optimiser
//! - [`fit`]: the epoch loop
//! - [`checkpoint`]: the state after each epoch, for `--resume`
//! - [`quantise`]: the integer network and its loss
//! - [`output`]: the net file, made sure of first and replaced whole
//! - [`events`], [`report`], [`error`]: what a run tells its caller

pub mod adam;
pub mod checkpoint;
pub mod data;
pub mod error;
pub mod events;
pub mod factor;
pub mod fit;
pub mod loader;
pub mod model;
pub mod output;
pub mod quantise;
pub mod report;
pub mod schedule;
pub mod settings;
pub mod trainer;

pub use error::{CheckpointError, OptionError, OutputError, TrainError};
pub use events::{Epoch, Event, Plan};
pub use loader::DataFiles;
pub use report::{Report, WorseThanHandWritten, loss_text};
pub use schedule::{DECAYS, Decay, Schedule};
pub use settings::{ACTIVATIONS, Architecture, Batch, Settings, StartNet, StopRequest};
pub use trainer::Trainer;
