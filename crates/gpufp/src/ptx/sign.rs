//! PTX ISA 9.7.3.2 `copysign`, 9.7.3.9/9.7.4.6 `abs`, 9.7.3.10/9.7.4.5 `neg`.
//!
//! `copysign` is a bit operation. `abs` and `neg` are *arithmetic* on the GPU (as ptxas compiles
//! them; docs/semantics.md): `abs.f32` is `FADD(|a|, -0)`, `neg.f32` is `FADD(-a, -0)`, f16 uses
//! HADD2, bf16 `HFMA2(-0 * 0 + x)`, f64 `DADD(-0, |a|)`. So a NaN input gives the format's NaN
//! result, `abs(-0) = +0`, `neg(+0) = -0`, and `.ftz` flushes subnormals.

use super::eval::{flush_inputs, Context, Lane, Trace};
use super::instr::{Instr, Opcode};
use crate::format::Format;
use crate::ieee;
use crate::round::Round;
use crate::steps;

/// PTX ISA 9.7.3.2: "Copy sign bit of `a` into value of `b`, and return the result as `d`."
pub fn copysign<F: Format>(a: F, b: F) -> F {
    F::from_bits((b.to_bits() & !F::SIGN_MASK) | (a.to_bits() & F::SIGN_MASK))
}

/// PTX ISA 9.7.3.9 `d = |a|` and 9.7.3.10 `d = -a`, as the hardware computes them: the sign
/// operation, then an addition of `-0.0`.
pub fn abs_neg<F: Format, T: Trace>(i: &Instr, lane: &Lane<F>, ctx: &Context, t: &mut T) -> F {
    let ([a, ..], ftz) = flush_inputs(i, lane, ctx, t);
    let x = if i.opcode == Opcode::Abs {
        a.abs_bits()
    } else {
        a.neg_bits()
    };
    let r = steps::rounding(Round::Rn, ftz, &ctx.policies);
    let d = ieee::add(F::zero(true), x, r);
    super::arith::nan_result(d, ctx, t)
}
