//! PTX ISA 9.7.3.3-9.7.3.8, 9.7.3.13, 9.7.3.15 and 9.7.4.1-9.7.4.4: `add`, `sub`, `mul`, `fma`,
//! `mad`, and the IEEE-rounded `div`, `rcp`, `sqrt`, for every type.
//!
//! The pipeline reads like the manual: `.oob` test -> flush inputs (`.ftz`) -> the IEEE
//! operation, rounded once with `.rnd` (flushing tiny results under `.ftz`) -> the format's NaN
//! rule -> `.sat` / `.relu`.

use super::eval::{flush_inputs, Context, Lane, Rule, Trace};
use super::instr::{Instr, Opcode};
use crate::format::Format;
use crate::ieee;
use crate::round::{Round, Rounding};
use crate::steps;

/// The format's NaN rule for an arithmetic result (docs/semantics.md, "Decided with good evidence"
/// and `f64_nan`), noted.
pub fn nan_result<F: Format, T: Trace>(d: F, ctx: &Context, t: &mut T) -> F {
    if !d.is_nan() {
        return d;
    }
    let r = steps::nan_rule(d, &ctx.policies);
    t.note(|| {
        if r == d && r.to_bits() != F::CANONICAL_NAN {
            Rule::NanPropagated
        } else {
            Rule::NanCanonicalized
        }
    });
    r
}

/// Evaluates one lane of an arithmetic instruction.
pub fn arith<F: Format, T: Trace>(i: &Instr, lane: Lane<F>, ctx: &Context, t: &mut T) -> F {
    let m = i.mods;
    let p = &ctx.policies;
    // PTX ISA 9.7.4.4: "`fma.oob` ... clamps the result to 0 if either of the operands is `OOB NaN`
    // ... performed independently for each of the two SIMD operations."
    if m.oob {
        if let Some(k) = (0..lane.n).find(|&k| steps::is_oob(&[lane.x[k]], p)) {
            t.note(|| Rule::Oob(k as u8));
            return F::zero(false);
        }
    }
    let ([a, b, c], ftz) = flush_inputs(i, &lane, ctx, t);
    let r: Rounding = steps::rounding(m.rnd.unwrap_or(Round::Rn), ftz, p);
    let compute = |r: Rounding| match i.opcode {
        Opcode::Add => ieee::add(a, b, r),
        Opcode::Sub => ieee::sub(a, b, r),
        Opcode::Mul => ieee::mul(a, b, r),
        // PTX ISA 9.7.3.7, for `.target sm_1x`: "`mad.f32` computes the product of `a` and `b` at
        // double precision, and then the mantissa is truncated to 23 bits, but the exponent is
        // preserved. [...] The exception for `mad.f32` is when `c = +/-0.0`, `mad.f32` is
        // identical to the result computed using separate mul and add instructions."
        Opcode::Mad if sm1x_mad::<F>(i, ctx) && c.is_zero() => ieee::add(ieee::mul(a, b, r), c, r),
        Opcode::Mad if sm1x_mad::<F>(i, ctx) => ieee::fma_truncated_product(a, b, c, r),
        Opcode::Fma | Opcode::Mad => ieee::fma(a, b, c, r),
        Opcode::Div => ieee::div(a, b, r),
        Opcode::Rcp => ieee::rcp(a, r),
        _ => ieee::sqrt(a, r),
    };
    let mut d = compute(r);
    if sm1x_mad::<F>(i, ctx) {
        t.note(|| Rule::Sm1xTruncatedProduct);
    }
    if T::ENABLED && ftz && d.is_zero() && !compute(Rounding::ieee(r.round)).is_zero() {
        t.note(|| Rule::OutputFlushed);
    }
    d = nan_result(d, ctx, t);
    // PTX ISA 9.7.3.3: "`.sat` clamps the result to [0.0, 1.0]. `NaN` results are flushed to
    // +0.0f."
    if m.sat {
        let s = steps::saturate(d);
        if s != d {
            t.note(|| Rule::Saturated);
        }
        d = s;
    }
    // PTX ISA 9.7.4.4: "`.relu` clamps the result to 0 if negative. `NaN` result is converted to
    // canonical `NaN`."
    if m.relu {
        let s = steps::relu(d, p);
        if s != d {
            t.note(|| Rule::Relu);
        }
        d = s;
    }
    d
}

/// `mad.f32` without a rounding modifier on an `sm_1x` target.
fn sm1x_mad<F: Format>(i: &Instr, ctx: &Context) -> bool {
    i.opcode == Opcode::Mad && i.mods.rnd.is_none() && F::BITS == 32 && ctx.sm1x()
}
