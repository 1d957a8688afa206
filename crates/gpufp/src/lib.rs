//! gpufp: a bit-exact, executable model of GPU floating-point instructions.
//!
//! The contract of this crate, as rustc_apfloat states its own: no unsafe code, no global state,
//! no side effects, and **no host floating point** in the reference path. Values are bit patterns
//! ([`format`](mod@format)); every operation computes its exact result with integers and rounds it once
//! ([`round`]); rounding direction, flush-to-zero and every rule the manual leaves open are
//! arguments ([`policy`]), never global state. The host FPU is used only by fast paths that defer
//! to the integer reference wherever they could differ and are tested bit for bit against it
//! ([`fast`], [`mufu::fast`]).
#![forbid(unsafe_code)]

pub mod decimal;
pub mod examples;
pub mod fast;
pub mod format;
pub mod front;
pub mod ieee;
pub mod mufu;
pub mod policy;
pub mod ptx;
#[cfg(feature = "serde")]
pub mod report;
pub mod round;
pub mod steps;
pub mod vectors;
pub mod visa;

pub use format::{Class, Format, BF16, F16, F32, F64};
pub use policy::Policies;
pub use round::{Round, Rounding, Subnormals, Tininess};
