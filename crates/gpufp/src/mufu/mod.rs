//! The special-function unit (MUFU) behind every `.approx` instruction (docs/mufu.md).
//!
//! ptxas turns each approximate instruction into exact IEEE glue around one MUFU operation (the
//! SASS ptxas 13.5 emits); the glue lives in [`crate::ptx::approx`]. What the MUFU itself returns
//! is undocumented, so the core is a swappable [`Core`]: the default, [`CorrectlyRounded`], returns
//! the correctly rounded function value of the core's input, which keeps every instruction within
//! the manual's bounds; a hardware-fitted core plugs in through the same trait:
//! [`interp::Interpolator`], the quadratic-interpolator model over a table file ([`table`]) that
//! [`fit`] recovers from GPU captures (docs/sfu.md). What every core shares (special values,
//! subnormal flushing) is [`special_f32`], [`special_f64_high`] and [`special_16`].

pub mod cr;
pub mod fast;
pub mod fit;
pub mod interp;
pub mod real;
pub mod table;

use crate::format::{Format, BF16, F16, F32};
use core::fmt;
use std::sync::Arc;

/// One f32 MUFU operation, named as in SASS. `Sin` and `Cos` take their argument in revolutions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Rcp,
    Rsq,
    Sqrt,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Tanh,
}

/// The f64 high-word operations `MUFU.RCP64H` and `MUFU.RSQ64H`: a 1.11.20 value in, one out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op64 {
    Rcp64h,
    Rsq64h,
}

/// The 16-bit operations `MUFU.EX2.F16/BF16` and `MUFU.TANH.F16/BF16`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op16 {
    Ex2,
    Tanh,
}

/// A model of the MUFU's arithmetic. Every method takes any bit pattern and returns the unit's
/// result for it, special values included (a core normally starts with the shared `special_*`).
pub trait Core: Send + Sync + fmt::Debug {
    /// A short name for traces and reports.
    fn name(&self) -> String;
    /// The f32 operation `op` on `a`.
    fn f32(&self, op: Op, a: F32) -> F32;
    /// The high-word operation `op` on the upper 32 bits of an f64; returns the result's upper
    /// word.
    fn f64_high(&self, op: Op64, hi: u32) -> u32;
    /// The f16 operation `op` on `a`.
    fn f16(&self, op: Op16, a: F16) -> F16;
    /// The bf16 operation `op` on `a`.
    fn bf16(&self, op: Op16, a: BF16) -> BF16;
}

/// The default core: the correctly rounded (to nearest even) function value of the input,
/// computed by [`cr`] with integers only; f32 values take [`fast`], proven identical by tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CorrectlyRounded;

impl Core for CorrectlyRounded {
    fn name(&self) -> String {
        "correctly-rounded".into()
    }
    fn f32(&self, op: Op, a: F32) -> F32 {
        special_f32(op, a).unwrap_or_else(|| flush_f32(op, fast::f32(op, a)))
    }
    fn f64_high(&self, op: Op64, hi: u32) -> u32 {
        special_f64_high(op, hi).unwrap_or_else(|| cr::f64_high(op, hi))
    }
    fn f16(&self, op: Op16, a: F16) -> F16 {
        special_16(op, a, false).unwrap_or_else(|| cr::half(op, a))
    }
    fn bf16(&self, op: Op16, a: BF16) -> BF16 {
        special_16(op, a, true).unwrap_or_else(|| match op {
            // PTX ISA 9.7.4.10: "`ex2.approx.ftz.bf16` flushes subnormal inputs and results".
            Op16::Ex2 => crate::steps::ftz(cr::half(op, a)),
            Op16::Tanh => cr::half(op, a),
        })
    }
}

/// The core an evaluation uses: the correctly rounded one unless another is given.
#[derive(Clone, Default)]
pub struct CoreRef(Option<Arc<dyn Core>>);

impl CoreRef {
    pub fn new(core: Arc<dyn Core>) -> CoreRef {
        CoreRef(Some(core))
    }
    pub fn get(&self) -> &dyn Core {
        match &self.0 {
            Some(c) => c.as_ref(),
            None => &CorrectlyRounded,
        }
    }
}

impl Eq for CoreRef {}

impl fmt::Debug for CoreRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.get().name())
    }
}

impl PartialEq for CoreRef {
    fn eq(&self, other: &CoreRef) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// The MUFU's NaN result for every format: the canonical NaN (docs/mufu.md).
fn nan<F: Format>() -> F {
    F::canonical_nan()
}

/// Special values shared by every f32 core, from the manual's tables for the bare (`.ftz`) MUFU
/// forms (PTX ISA 9.7.3.13-9.7.3.22): NaN -> canonical NaN; subnormal inputs are flushed to a
/// signed zero first, except by `Tanh` ("The subnormal inputs gets passed through to the
/// output", 9.7.3.22). `None`: `a` is finite, nonzero and in the function's domain; the core
/// computes it.
pub fn special_f32(op: Op, a: F32) -> Option<F32> {
    if a.is_nan() {
        return Some(nan());
    }
    if op == Op::Tanh && a.is_subnormal() {
        return Some(a);
    }
    let a = crate::steps::ftz(a);
    let neg = a.sign();
    let one = F32::one();
    if a.is_zero() {
        return Some(match op {
            Op::Rcp | Op::Rsq => F32::infinity(neg),
            Op::Sqrt | Op::Sin | Op::Tanh => a,
            Op::Ex2 | Op::Cos => one,
            Op::Lg2 => F32::infinity(true),
        });
    }
    if a.is_infinite() {
        return Some(match (op, neg) {
            (Op::Rcp, _) => F32::zero(neg),
            (Op::Rsq | Op::Sqrt | Op::Lg2, true) | (Op::Sin | Op::Cos, _) => nan(),
            (Op::Rsq, false) => F32::zero(false),
            (Op::Sqrt | Op::Lg2, false) => a,
            (Op::Ex2, _) if neg => F32::zero(false),
            (Op::Ex2, _) => a,
            (Op::Tanh, _) => F32::from_bits(one.to_bits() | (u64::from(neg) << 31)),
        });
    }
    if neg && matches!(op, Op::Rsq | Op::Sqrt | Op::Lg2) {
        return Some(nan());
    }
    None
}

/// The MUFU flushes subnormal results to a signed zero (the non-`.ftz` glue ptxas emits exists
/// to avoid them); `Tanh` results are never subnormal for a normal input.
fn flush_f32(op: Op, d: F32) -> F32 {
    if op == Op::Tanh {
        d
    } else {
        crate::steps::ftz(d)
    }
}

/// Special values of `RCP64H`/`RSQ64H` on a 1.11.20 upper word (PTX ISA 9.7.3.14, 9.7.3.17):
/// "Input `NaN`s map to a canonical `NaN` with encoding `0x7fffffff00000000`. Subnormal inputs
/// and results are flushed to sign-preserving zero." `None`: a positive (RSQ64H) or nonzero
/// (RCP64H) normal input, computed by the core.
pub fn special_f64_high(op: Op64, hi: u32) -> Option<u32> {
    let neg = hi >> 31 != 0;
    let exp = (hi >> 20) & 0x7FF;
    let sign = hi & 0x8000_0000;
    if exp == 0x7FF && hi & 0xF_FFFF != 0 {
        return Some(0x7FFF_FFFF);
    }
    if exp == 0 {
        // -0.0 and -subnormal -> -Inf; +0.0 and +subnormal -> +Inf (both tables).
        return Some(sign | 0x7FF0_0000);
    }
    if exp == 0x7FF {
        return Some(match op {
            Op64::Rcp64h => sign,
            Op64::Rsq64h if neg => 0x7FFF_FFFF,
            Op64::Rsq64h => 0,
        });
    }
    if neg && op == Op64::Rsq64h {
        return Some(0x7FFF_FFFF);
    }
    None
}

/// Special values of the 16-bit cores (PTX ISA 9.7.4.9, 9.7.4.10). `ftz`: the bf16 `ex2` form,
/// which "flushes subnormal inputs and results to sign-preserving zero".
pub fn special_16<F: Format>(op: Op16, a: F, ftz: bool) -> Option<F> {
    if a.is_nan() {
        return Some(nan());
    }
    let a = if ftz && op == Op16::Ex2 {
        crate::steps::ftz(a)
    } else {
        a
    };
    let neg = a.sign();
    match op {
        Op16::Ex2 if a.is_zero() => Some(F::one()),
        Op16::Ex2 if a.is_infinite() && neg => Some(F::zero(false)),
        Op16::Ex2 if a.is_infinite() => Some(a),
        Op16::Tanh if a.is_zero() => Some(a),
        Op16::Tanh if a.is_infinite() => Some(F::from_bits(F::ONE | (a.to_bits() & F::SIGN_MASK))),
        _ => None,
    }
}
