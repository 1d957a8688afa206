//! A fast path for the correctly rounded f32 core, using the host's f64 arithmetic and libm.
//!
//! The integer reference ([`super::cr::f32`]) takes microseconds per value; an exhaustive f32
//! sweep needs nanoseconds. For an f32 argument, the host computes f(x) in f64 with a relative
//! error far below 2^-46 (IEEE division and square root round once; glibc's exp2, log2, sin and
//! tanh are within a few f64 ulps; the arguments of sin and cos are reduced exactly first). Unless
//! that approximation lies within 2^-46 (relative) of a halfway point between two f32 values,
//! rounding it to f32 gives the correctly rounded value; otherwise, and for results near the
//! subnormal and overflow thresholds, the reference decides. Tests compare this path with the
//! reference bit for bit (tests/mufu_cr.rs).

use super::{cr, Op};
use crate::format::{Format, F32};

/// How close to a halfway point the f64 approximation may come before the reference decides, in
/// f64 ulps: 64 ulps are 2^-46 relative, against the few ulps the host functions err by.
const MARGIN: u64 = 64;

/// `op(a)` exactly as [`cr::f32`] returns it.
pub fn f32(op: Op, a: F32) -> F32 {
    let x = f64::from(f32::from_bits(a.to_bits() as u32));
    let y = match op {
        Op::Rcp => 1.0 / x,
        Op::Rsq => 1.0 / x.sqrt(),
        Op::Sqrt => x.sqrt(),
        Op::Ex2 => x.exp2(),
        Op::Lg2 => x.log2(),
        Op::Sin => sin_rev(x),
        Op::Cos => cos_rev(x),
        Op::Tanh => x.tanh(),
    };
    decide(y).unwrap_or_else(|| cr::f32(op, a))
}

/// `y` rounded to f32 where that is certainly the correctly rounded value of anything within
/// [`MARGIN`] ulps of `y`; `None` near a halfway point, below 2^-125 or from 2^127 on.
fn decide(y: f64) -> Option<F32> {
    let m = y.abs();
    if !(m >= f64::from_bits(0x3820_0000_0000_0000) && m < f64::from_bits(0x47E0_0000_0000_0000)) {
        return None;
    }
    // An f32 keeps 23 of the 52 fraction bits of a normal f64; the other 29 decide rounding.
    let rest = y.to_bits() & ((1 << 29) - 1);
    if rest.abs_diff(1 << 28) <= MARGIN {
        return None;
    }
    Some(F32::from_bits(u64::from((y as f32).to_bits())))
}

/// sin(2πt) for |t| <= 1/4, where the product's relative error (2^-52) is not amplified.
fn sin_tau(t: f64) -> f64 {
    (core::f64::consts::TAU * t).sin()
}

/// sin(2πx): x minus the nearest integer is exact in f64 for an f32 x, and so is 1/2 - r.
fn sin_rev(x: f64) -> f64 {
    let r = x - x.round();
    let t = r.abs();
    let s = if t > 0.25 {
        sin_tau(0.5 - t)
    } else {
        sin_tau(t)
    };
    if r < 0.0 {
        -s
    } else {
        s
    }
}

/// cos(2πx) = sin(2π(1/4 - |r|)), the subtraction exact.
fn cos_rev(x: f64) -> f64 {
    let r = x - x.round();
    sin_tau(0.25 - r.abs())
}
