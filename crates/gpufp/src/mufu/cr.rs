//! The correctly rounded MUFU core: f(x) rounded to nearest even, computed with integers only.
//!
//! Ziv's strategy on [`real::enclose`]: enclose f(x) at some relative precision, round both ends;
//! when they agree that is the correctly rounded value, otherwise double the precision. None of
//! these functions is exactly halfway between two neighbours at a representable argument (their
//! exact values are powers of two, integers or 0 and ±1, which `enclose` returns as such), so the
//! loop ends.

use super::real::{self, Dyadic, Func};
use super::{Op, Op16, Op64};
use crate::format::{Format, F32};
use crate::round::{Round, Rounding};
use std::cmp::Ordering;

/// The first precision tried: 24 bits for the format and 24 to spare, so that only arguments
/// whose value lies within 2^-48 (relative) of a rounding boundary need a second step.
const FIRST_PREC: u32 = 48;

fn func(op: Op) -> Func {
    match op {
        Op::Rcp => Func::Rcp,
        Op::Rsq => Func::Rsqrt,
        Op::Sqrt => Func::Sqrt,
        Op::Ex2 => Func::Ex2,
        Op::Lg2 => Func::Lg2,
        Op::Sin => Func::SinRev,
        Op::Cos => Func::CosRev,
        Op::Tanh => Func::Tanh,
    }
}

/// The highest precision tried: far beyond the closest approach of any of these functions to a
/// rounding boundary at a 16-, 32- or 64-bit argument.
const MAX_PREC: u32 = 1 << 16;

/// A value correctly rounded by `round` from `enclose(prec)`'s enclosures of it: `round` must be
/// monotonic and return the same for a value and for itself rounded. `None` when an enclosure
/// is `None` or no precision up to 2^16 bits decides.
pub fn ziv<T: PartialEq>(
    enclose: impl Fn(u32) -> Option<(Dyadic, Dyadic)>,
    round: impl Fn(&Dyadic) -> T,
) -> Option<T> {
    let mut prec = FIRST_PREC;
    while prec <= MAX_PREC {
        let (lo, hi) = enclose(prec)?;
        let l = round(&lo);
        if lo == hi || l == round(&hi) {
            return Some(l);
        }
        prec *= 2;
    }
    None
}

/// [`ziv`] on `f(x)` for an `x` in f's domain.
fn ziv_at<T: PartialEq>(f: Func, x: &Dyadic, round: impl Fn(&Dyadic) -> T) -> T {
    ziv(|prec| real::enclose(f, x, prec), round)
        .expect("an argument in the domain, not a rounding boundary")
}

/// `f(x)` rounded to nearest even in `F` with gradual underflow and overflow to infinity.
fn nearest<F: Format>(f: Func, x: F) -> F {
    let rn = Rounding::ieee(Round::Rn);
    if f == Func::Ex2 {
        // 2^x overflows from x = EMAX + 1 on and rounds to +0 below EMIN - FRAC_BITS - 1: decided
        // without building a huge power of two.
        let d = Dyadic::from_format(x);
        if d.cmp_value(&Dyadic::new(F::EMAX + 1, 0)) != Ordering::Less {
            return F::infinity(false);
        }
        let floor = Dyadic::new(F::EMIN - F::FRAC_BITS as i32 - 2, 0);
        if d.cmp_value(&floor) == Ordering::Less {
            return F::zero(false);
        }
    }
    ziv_at(f, &Dyadic::from_format(x), |d| d.round::<F>(rn))
}

/// `op(a)` rounded to nearest even in f32, with gradual underflow and overflow to infinity, for
/// an `a` that [`super::special_f32`] leaves to the core (finite, nonzero, normal, in the domain).
/// `Sin` and `Cos` take `a` in revolutions: sin(2πa), cos(2πa). An exactly zero result
/// (sin of a multiple of 1/2, cos of an odd multiple of 1/4) is +0.
pub fn f32(op: Op, a: F32) -> F32 {
    nearest(func(op), a)
}

/// `op` on a normal 1.11.20 upper word `hi` (positive for `Rsq64h`): the value rounded to nearest
/// even at 21 significant bits, as an upper word; subnormal results flushed to a signed zero.
pub fn f64_high(op: Op64, hi: u32) -> u32 {
    let sign = hi & 0x8000_0000;
    let biased = i64::from((hi >> 20) & 0x7FF);
    let x = Dyadic::new(
        i64::from((hi & 0xF_FFFF) | 0x10_0000) * if sign != 0 { -1 } else { 1 },
        biased - 1023 - 20,
    );
    let f = match op {
        Op64::Rcp64h => Func::Rcp,
        Op64::Rsq64h => Func::Rsqrt,
    };
    let r = ziv_at(f, &x, |d| d.round_bits(21));
    // Normalize to a 21-bit significand (rounding may have carried to 2^21).
    let mut sig = r.sig.magnitude().clone();
    let mut exp = r.exp;
    while sig.bits() > 21 {
        sig >>= 1;
        exp += 1;
    }
    while sig.bits() < 21 {
        sig <<= 1;
        exp -= 1;
    }
    let biased = exp + 20 + 1023;
    if biased <= 0 {
        return sign;
    }
    if biased >= 0x7FF {
        return sign | 0x7FF0_0000;
    }
    let frac = u32::try_from(&sig).unwrap_or(0) & 0xF_FFFF;
    sign | (biased as u32) << 20 | frac
}

/// `op(a)` rounded to nearest even in `F` (f16 or bf16) with gradual underflow, for a finite
/// nonzero `a`.
pub fn half<F: Format>(op: Op16, a: F) -> F {
    let f = match op {
        Op16::Ex2 => Func::Ex2,
        Op16::Tanh => Func::Tanh,
    };
    nearest(f, a)
}
