//! Training a network for the neural evaluation (`amalgam train`) from
//! `datagen` files: see the network's shape and net file in
//! [`crate::engine::eval::nnue`].
//!
//! - [`data`]: positions as feature lists, the validation split
//! - [`factor`]: the factoriser's virtual features while training
//! - [`model`]: the float network, its loss and gradients
//! - [`adam`]: the optimiser
//! - [`fit`]: the epoch loop
//! - [`quantise`]: the integer network and its loss

pub mod adam;
pub mod data;
pub mod factor;
pub mod fit;
pub mod model;
pub mod quantise;

pub use data::{Baseline, Sample, Samples, sample};
pub use factor::Factoriser;
pub use fit::{Epoch, Event, TrainOptions, Trained, thread_pool, train};
pub use quantise::{Quantised, quantise, quantised_loss};
