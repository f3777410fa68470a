//! The neural evaluation (NNUE): the input features of a variant
//! ([`features`]), the net file ([`format`]).

pub mod features;
pub mod format;

pub use features::Layout;
pub use format::{Activation, NetError, Network};
