//! The neural evaluation (NNUE): the input features of a variant
//! ([`features`]), the net file ([`format`]), the arithmetic in a portable
//! and an AVX2 form ([`kernels`]), a net checked against its variant and
//! its output ([`net`]), and the per-thread accumulator stack that the
//! search keeps as it makes and unmakes moves ([`accumulators`]).

pub mod accumulators;
pub mod features;
pub mod format;
pub mod kernels;
pub mod net;

#[cfg(test)]
mod tests;

pub use accumulators::Accumulators;
pub use features::Layout;
pub use format::{Activation, NetError, Network};
pub use kernels::Kernel;
pub use net::Net;
