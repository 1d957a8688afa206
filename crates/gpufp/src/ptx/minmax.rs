//! PTX ISA 9.7.3.11/9.7.3.12 (f32, f64) and 9.7.4.7/9.7.4.8 (f16, bf16, x2): `min` and `max`.

use super::eval::{flush_inputs, Context, Lane, Rule, Trace};
use super::instr::{Instr, Opcode};
use crate::format::Format;
use crate::policy::{F64Nan, HalfMaxXorsignGuard, HalfMinMaxBothNan};

/// `x < y` in the order the manual uses: "-0.0 < +0.0 here"; neither is NaN.
fn less<F: Format>(x: F, y: F) -> bool {
    match (x.sign(), y.sign()) {
        (true, false) => true,
        (false, true) => false,
        (false, false) => x.to_bits() < y.to_bits(),
        (true, true) => x.to_bits() > y.to_bits(),
    }
}

/// The two-input operation of the pseudo-code:
/// ```text
/// def min_num (z, x, y) {                def min_nan (z, x, y) {
///     if (isNaN(x) && isNaN(y))              if (isNaN(x) || isNaN(y))
///         z = NaN;                               z = NaN;
///     else if (isNaN(x))                     else
///         z = y;                                 // note: -0.0 < +0.0 here
///     else if (isNaN(y))                         z = (x < y) ? x : y;
///         z = x;                             return z;
///     else                               }
///         // note: -0.0 < +0.0 here
///         z = (x < y) ? x : y;
///     return z;
/// }
/// ```
/// Which NaN "NaN" is: canonical for f32/f16/bf16; for f64 the SASS returns `b` quieted
/// (policy `f64_nan`, docs/semantics.md); half precision without `.NaN` per [`HalfMinMaxBothNan`].
fn two_inputs<F: Format, T: Trace>(
    max: bool,
    nan_mode: bool,
    x: F,
    y: F,
    ctx: &Context,
    t: &mut T,
) -> F {
    let p = &ctx.policies;
    match (x.is_nan(), y.is_nan()) {
        (true, true) => {
            if F::BITS == 64 && p.f64_nan == F64Nan::FirstOperandQuieted {
                t.note(|| Rule::NanPropagated);
                return y.quieted();
            }
            if F::BITS == 16
                && !nan_mode
                && p.half_minmax_both_nan == HalfMinMaxBothNan::SecondOperand
            {
                return y;
            }
            t.note(|| Rule::NanCanonicalized);
            F::canonical_nan()
        }
        (true, false) | (false, true) if nan_mode => {
            t.note(|| Rule::NanCanonicalized);
            F::canonical_nan()
        }
        (true, false) => {
            t.note(|| Rule::OtherOperand);
            y
        }
        (false, true) => {
            t.note(|| Rule::OtherOperand);
            x
        }
        (false, false) => {
            if less(x, y) != max {
                x
            } else {
                y
            }
        }
    }
}

/// Evaluates one lane of `min` or `max`:
/// ```text
/// if (.xorsign && !isPresent(c)) {
///     xorsign = getSignBit(a) ^ getSignBit(b);
/// }
/// if (.abs) {
///     a = |a|;
///     b = |b|;
///     if (isPresent(c)) {
///         c = |c|;
///     }
/// }
/// d = two_inputs_min(d, a, b)
/// if (isPresent(c)) {
///     d = two_inputs_min(d, d, c)
/// }
/// if (.xorsign && !isPresent(c) && !isNaN(d)) {
///     setSignBit(d, xorsign);
/// }
/// ```
/// `.ftz` flushes the inputs first, so xorsign sees flushed signs.
pub fn minmax<F: Format, T: Trace>(i: &Instr, lane: Lane<F>, ctx: &Context, t: &mut T) -> F {
    let m = i.mods;
    let max = i.opcode == Opcode::Max;
    let (mut x, _) = flush_inputs(i, &lane, ctx, t);
    let three = lane.n == 3;
    let xorsign = x[0].sign() != x[1].sign();
    if m.abs {
        x = x.map(|v| v.abs_bits());
    }
    let mut d = two_inputs(max, m.nan, x[0], x[1], ctx, t);
    if three {
        d = two_inputs(max, m.nan, d, x[2], ctx, t);
    }
    if m.xorsign && !three {
        // The half-precision `max` pseudo-code tests `!isNaN(fA[i])` here; read as a typo for
        // `d[i]` unless the policy says otherwise (policy `half_max_xorsign_guard`).
        let literal = F::BITS == 16
            && max
            && ctx.policies.half_max_xorsign_guard == HalfMaxXorsignGuard::FirstOperand;
        let guard_nan = if literal { x[0].is_nan() } else { d.is_nan() };
        if guard_nan {
            t.note(|| Rule::XorsignIgnored);
        } else {
            t.note(|| Rule::Xorsign);
            d = F::from_bits(
                (d.to_bits() & !F::SIGN_MASK) | if xorsign { F::SIGN_MASK } else { 0 },
            );
        }
    }
    d
}
