//! Test vectors for devices and other models (docs/vectors.md): [`gen`] builds TestFloat-style
//! cases for one instruction, [`sweep()`] evaluates every input or N random ones in a fixed order and
//! digests the results so that a GPU can recompute and compare them. Judging a device's results
//! against the manual is [`crate::ptx::guarantee::judge`].

pub mod gen;
pub mod shard;
pub mod sweep;

pub use gen::{cases, Cases, Level};
pub use sweep::{
    digest_term, mix, random_operand, sweep, sweep_from, Observer, Outcome, Plan, Progress, Space,
    SweepError,
};
