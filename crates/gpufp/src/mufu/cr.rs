//! The correctly rounded MUFU core: f(x) rounded to nearest even, computed with integers only.
//!
//! Stub: to be written.

use super::{Op, Op16, Op64};
use crate::format::{Format, F32};

/// `op(a)` rounded to nearest even in f32, with gradual underflow and overflow to infinity, for
/// an `a` that [`super::special_f32`] leaves to the core (finite, nonzero, normal, in the domain).
/// `Sin` and `Cos` take `a` in revolutions: sin(2πa), cos(2πa).
pub fn f32(op: Op, a: F32) -> F32 {
    unimplemented!("{op:?} {a:?}")
}

/// `op` on a normal 1.11.20 upper word `hi` (positive for `Rsq64h`): the value rounded to nearest
/// even at 21 significant bits, as an upper word; subnormal results flushed to a signed zero.
pub fn f64_high(op: Op64, hi: u32) -> u32 {
    unimplemented!("{op:?} {hi:x}")
}

/// `op(a)` rounded to nearest even in `F` (f16 or bf16) with gradual underflow, for a finite
/// nonzero `a`.
pub fn half<F: Format>(op: Op16, a: F) -> F {
    unimplemented!("{op:?} {a:?}")
}
