//! Checking a result against an approximate instruction's error bound, exactly: the true value
//! is enclosed with [`crate::mufu::real`] (or computed exactly, for `div`), the bound is a dyadic
//! number no larger than the manual's `2^(k/1000)`, and every comparison is on integers.
//!
//! Two results always conform: the correctly rounded value (a bound cannot ask for more than the
//! format holds, e.g. a relative bound on an underflowing `ex2.approx.f16`), and, under `.ftz`, a
//! sign-preserving zero where the true value is below the format's normal range.

use super::eval::Context;
use super::guarantee::{Bound, Unit};
use super::instr::{Instr, Opcode};
use crate::decimal;
use crate::format::{Format, F32};
use crate::mufu::real::{enclose, Dyadic, Func};
use crate::round::{Round, Rounding};
use num_bigint::{BigInt, Sign};
use num_traits::{Signed, Zero};
use std::cmp::Ordering;

/// Relative precision of the enclosures: far below every bound the manual states (2^-23).
const PREC: u32 = 96;

/// `floor(2^(r/1000) * 2^62)` for the fractional exponents the manual uses: 2^-20.5, 2^-14.7,
/// 2^-22.9 and 2^-9.9, 2^-10.987. A test checks each by exact integer powers.
pub const FRACTIONS: [(u32, u64); 4] = [
    (500, 0x5A82_7999_FCEF_3242),
    (300, 0x4ECB_11EF_FE0C_A386),
    (100, 0x4497_EFB8_9419_9098),
    (13, 0x4094_4D4D_D5A6_43A8),
];

/// The bound `2^(log2_milli/1000)`, rounded down to a 63-bit dyadic (never above the manual's).
pub fn bound_value(log2_milli: i32) -> Dyadic {
    let q = log2_milli.div_euclid(1000);
    let r = log2_milli.rem_euclid(1000) as u32;
    if r == 0 {
        return dy(BigInt::from(1), i64::from(q));
    }
    let c = FRACTIONS
        .iter()
        .find(|(f, _)| *f == r)
        .map_or(1u64 << 62, |(_, c)| *c);
    dy(BigInt::from(c), i64::from(q) - 62)
}

fn dy(sig: BigInt, exp: i64) -> Dyadic {
    Dyadic { sig, exp }
}

fn align(a: &Dyadic, b: &Dyadic) -> (BigInt, BigInt, i64) {
    let e = a.exp.min(b.exp);
    (
        &a.sig << (a.exp - e) as usize,
        &b.sig << (b.exp - e) as usize,
        e,
    )
}

fn sub(a: &Dyadic, b: &Dyadic) -> Dyadic {
    let (x, y, e) = align(a, b);
    dy(x - y, e)
}

fn mul(a: &Dyadic, b: &Dyadic) -> Dyadic {
    dy(&a.sig * &b.sig, a.exp + b.exp)
}

fn abs(a: &Dyadic) -> Dyadic {
    dy(a.sig.abs(), a.exp)
}

/// The true value's function for an approximate instruction (sin/cos in radians).
fn func(i: &Instr) -> Func {
    match i.opcode {
        Opcode::Rcp => Func::Rcp,
        Opcode::Sqrt => Func::Sqrt,
        Opcode::Rsqrt => Func::Rsqrt,
        Opcode::Lg2 => Func::Lg2,
        Opcode::Ex2 => Func::Ex2,
        Opcode::Sin => Func::Sin,
        Opcode::Cos => Func::Cos,
        _ => Func::Tanh,
    }
}

/// An enclosure of the instruction's exact value at `x` (`a / b` for `div`), relative
/// precision `prec`; `None` outside the function's domain.
fn true_value(i: &Instr, x: &[Dyadic; 2], prec: u32) -> Option<(Dyadic, Dyadic)> {
    if i.opcode != Opcode::Div {
        return enclose(func(i), &x[0], prec);
    }
    let (a, b) = (&x[0], &x[1]);
    if b.sig.is_zero() {
        return None;
    }
    // a / b = (a.sig << k) / b.sig * 2^(a.exp - b.exp - k), k large enough for `prec` bits.
    let k = (prec as i64 + b.sig.bits() as i64 - a.sig.bits() as i64 + 2).max(0);
    let n = &a.sig << k as usize;
    let q = &n / &b.sig;
    let exact = &q * &b.sig == n;
    let e = a.exp - b.exp - k;
    // Truncation toward zero: widen away from zero by one unit unless exact.
    let step = if exact {
        BigInt::zero()
    } else if (a.sig.sign() == Sign::Minus) != (b.sig.sign() == Sign::Minus) {
        BigInt::from(-1)
    } else {
        BigInt::from(1)
    };
    let other = &q + step;
    let (lo, hi) = if q <= other { (q, other) } else { (other, q) };
    Some((dy(lo, e), dy(hi, e)))
}

/// The correctly rounded (to nearest even) exact value.
fn correctly_rounded<F: Format>(i: &Instr, x: &[Dyadic; 2]) -> Option<F> {
    let rn = Rounding::ieee(Round::Rn);
    crate::mufu::cr::ziv(|prec| true_value(i, x, prec), |d| d.round::<F>(rn))
}

/// The position of a non-NaN value in the ordered list of all values, infinities included.
fn ordinal<F: Format>(x: F) -> i64 {
    let m = x.abs_bits().to_bits() as i64;
    if x.sign() {
        -m
    } else {
        m
    }
}

fn show(d: &Dyadic) -> String {
    decimal::format(d.round::<F32>(Rounding::ieee(Round::Rn)))
}

/// Whether `y` is within `b` of the instruction's exact value at `x`, and the measured error.
pub fn check<F: Format>(i: &Instr, b: Bound, x: [F; 3], y: F, ctx: &Context) -> (bool, String) {
    let ftz_in = i.mods.ftz || (F::BITS == 32 && ctx.sm1x() && ctx.policies.sm1x_f32_flush);
    let flush = |v: F| if ftz_in { crate::steps::ftz(v) } else { v };
    let xs = [
        Dyadic::from_format(flush(x[0])),
        Dyadic::from_format(flush(x[1])),
    ];
    if y.is_nan() {
        return (false, "a NaN where the manual bounds the error".into());
    }
    let cr = correctly_rounded::<F>(i, &xs);
    if cr == Some(y) {
        return (true, String::new());
    }
    let Some((lo, hi)) = true_value(i, &xs, PREC) else {
        return (false, "the exact value is undefined here".into());
    };
    let min_abs = if lo.sig.sign() != hi.sig.sign() && !lo.sig.is_zero() && !hi.sig.is_zero() {
        dy(BigInt::zero(), 0)
    } else if abs(&lo).cmp_value(&abs(&hi)) == Ordering::Less {
        abs(&lo)
    } else {
        abs(&hi)
    };
    let emin = i64::from(F::EMIN);
    if b.ftz && y.is_zero() {
        let below = min_abs.sig.is_zero() || min_abs.ilog2() < emin;
        let sign_ok = lo.sig.sign() != Sign::Minus || y.sign();
        if below && sign_ok {
            return (true, String::new());
        }
    }
    if y.is_infinite() {
        return (false, "infinite where the exact value is finite".into());
    }
    let bound = bound_value(b.log2_milli);
    if b.unit == Unit::UlpFromRounded {
        let Some(c) = cr else {
            return (false, "the correctly rounded value is undecided".into());
        };
        let steps = (ordinal(y) - ordinal(c)).unsigned_abs();
        let ok = dy(BigInt::from(steps), 0).cmp_value(&bound) != Ordering::Greater;
        let why = format!(
            "{steps} ulp from the correctly rounded result {}; the bound is {}",
            decimal::format(c),
            show(&bound)
        );
        return (ok, if ok { String::new() } else { why });
    }
    let yd = Dyadic::from_format(y);
    let e1 = abs(&sub(&yd, &lo));
    let e2 = abs(&sub(&yd, &hi));
    let err = if e1.cmp_value(&e2) == Ordering::Less {
        e2
    } else {
        e1
    };
    let scale = match b.unit {
        Unit::Absolute => dy(BigInt::from(1), 0),
        Unit::Relative => min_abs.clone(),
        _ => {
            let e = if min_abs.sig.is_zero() {
                emin
            } else {
                min_abs.ilog2().max(emin)
            };
            dy(BigInt::from(1), e - i64::from(F::FRAC_BITS))
        }
    };
    let limit = mul(&bound, &scale);
    let ok = err.cmp_value(&limit) != Ordering::Greater;
    let unit = match b.unit {
        Unit::Absolute => "absolute",
        Unit::Relative => "relative",
        _ => "ulp",
    };
    let measured = match b.unit {
        Unit::Absolute => show(&err),
        _ if scale.sig.is_zero() => "unbounded".into(),
        _ => {
            // err / scale to 32 bits.
            let (n, d, _) = align(&err, &scale);
            let q = (n << 32usize) / d;
            show(&dy(q, -32))
        }
    };
    let why = format!(
        "error {measured} ({unit}) exceeds the bound {} = {}",
        crate::ptx::guarantee::Guarantee::Within(b),
        show(&bound)
    );
    (ok, if ok { String::new() } else { why })
}
