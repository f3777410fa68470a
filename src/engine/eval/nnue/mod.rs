//! The neural evaluation (NNUE): the input features of a variant
//! ([`features`]), the net file ([`format`]), the arithmetic in a portable
//! and an AVX2 form ([`kernels`]), a net checked against its variant and
//! its output ([`net`]), the embedded nets and the loading of the net a
//! variant names ([`network`]), and the per-thread accumulator stack that
//! follows the searched line as moves are made and unmade
//! ([`accumulators`]).

pub mod accumulators;
pub mod features;
pub mod format;
pub mod kernels;
pub mod net;
pub mod network;

#[cfg(test)]
mod tests;

pub use accumulators::Accumulators;
pub use features::Layout;
pub use format::{Activation, NetError, Network};
pub use kernels::Kernel;
pub use net::Net;
pub use network::{EMBEDDED_NETS, NetOrigin};
