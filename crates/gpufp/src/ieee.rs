//! The exact, integer-only IEEE 754 operations: add, sub, mul, fma, div, sqrt, rcp.
//!
//! Each operation is a case analysis on operand categories (NaN, infinity, zero, finite), then an
//! exact integer computation whose only inexactness is a sticky bit, then one rounding through
//! [`Unrounded::round`]. No host floating point is used.
//!
//! NaN results follow IEEE 754 §6.2: a NaN operand propagates (the first NaN in operand order,
//! quieted, sign and payload kept); an invalid operation without NaN operands returns the format's
//! canonical NaN. PTX's per-format NaN rules are applied on top by [`crate::steps`].

use crate::format::Format;
use crate::round::{shift_right_jam, Round, Rounding, Unrounded};

/// IEEE 754 §6.2.3: the first NaN operand, quieted.
pub fn propagate_nan<F: Format>(operands: &[F]) -> Option<F> {
    operands.iter().find(|x| x.is_nan()).map(|x| x.quieted())
}

/// The magnitude of a finite nonzero value as `sig * 2^exp` (subnormals unnormalised).
fn unpack<F: Format>(x: F) -> Unrounded {
    let (exp, hidden) = match x.biased_exp() {
        0 => (F::EMIN, 0),
        e => (e as i32 - F::BIAS, 1 << F::FRAC_BITS),
    };
    Unrounded {
        sign: x.sign(),
        exp: exp - F::FRAC_BITS as i32,
        sig: u128::from(x.frac() | hidden),
    }
}

/// The sign of an exact zero sum of operands with different signs (IEEE 754 §6.3): `+0` in every
/// rounding direction except toward negative infinity.
fn exact_zero_sign(round: Round) -> bool {
    round == Round::Rm
}

/// Moves `sig`'s most significant bit to bit 125, leaving two bits of headroom for a carry.
fn align_top(x: Unrounded) -> Unrounded {
    let shift = x.sig.leading_zeros() as i32 - 2;
    Unrounded {
        sig: x.sig << shift,
        exp: x.exp - shift,
        ..x
    }
}

/// The exact sum of two nonzero finite values, rounded once; `None` for an exact zero.
///
/// Both significands are moved to bit 125; the one with the smaller exponent is shifted right
/// with jamming. Bits are only lost when the exponents differ by more than the narrower operand's
/// spare low bits, and then at most one leading bit cancels, so the sticky bit stays far below
/// the rounding position (the same argument as SoftFloat's `f64_mulAdd`).
fn add_magnitudes(x: Unrounded, y: Unrounded) -> Option<Unrounded> {
    let (x, y) = (align_top(x), align_top(y));
    let (big, small) = if (x.exp, x.sig) >= (y.exp, y.sig) {
        (x, y)
    } else {
        (y, x)
    };
    let d = (big.exp - small.exp) as u32;
    let small_sig = shift_right_jam(small.sig, d);
    let sig = if big.sign == small.sign {
        big.sig + small_sig
    } else {
        big.sig - small_sig
    };
    (sig != 0).then_some(Unrounded {
        sign: big.sign,
        exp: big.exp,
        sig,
    })
}

/// `a + b`, rounded once.
pub fn add<F: Format>(a: F, b: F, r: Rounding) -> F {
    if let Some(nan) = propagate_nan(&[a, b]) {
        return nan;
    }
    match (a.is_infinite(), b.is_infinite()) {
        (true, true) if a.sign() != b.sign() => return F::canonical_nan(),
        (true, _) => return a,
        (_, true) => return b,
        _ => {}
    }
    sum(Addend::of(a), b, r)
}

/// The first addend of [`sum`]: an operand, or in fma the exact product, never rounded.
enum Addend {
    Zero { sign: bool },
    Finite(Unrounded),
}

impl Addend {
    fn of<F: Format>(x: F) -> Self {
        if x.is_zero() {
            Addend::Zero { sign: x.sign() }
        } else {
            Addend::Finite(unpack(x))
        }
    }
}

/// `a + b` for finite `a` and `b`, rounded once; shared by add and fma.
fn sum<F: Format>(a: Addend, b: F, r: Rounding) -> F {
    match (a, b.is_zero()) {
        (Addend::Zero { sign }, true) => F::zero(if sign == b.sign() {
            sign
        } else {
            exact_zero_sign(r.round)
        }),
        // x + 0 = x exactly, but still rounded so that `.ftz` output rules see it.
        (Addend::Zero { .. }, false) => unpack(b).round(r),
        (Addend::Finite(x), true) => x.round(r),
        (Addend::Finite(x), false) => match add_magnitudes(x, unpack(b)) {
            Some(v) => v.round(r),
            None => F::zero(exact_zero_sign(r.round)),
        },
    }
}

/// `a - b`, rounded once. NaN operands propagate as they are (the negation does not touch them).
pub fn sub<F: Format>(a: F, b: F, r: Rounding) -> F {
    if let Some(nan) = propagate_nan(&[a, b]) {
        return nan;
    }
    add(a, b.neg_bits(), r)
}

/// The exact product of two finite nonzero values.
fn product<F: Format>(a: F, b: F) -> Unrounded {
    let (x, y) = (unpack(a), unpack(b));
    Unrounded {
        sign: x.sign != y.sign,
        exp: x.exp + y.exp,
        sig: x.sig * y.sig,
    }
}

/// `a * b`, rounded once.
pub fn mul<F: Format>(a: F, b: F, r: Rounding) -> F {
    if let Some(nan) = propagate_nan(&[a, b]) {
        return nan;
    }
    let sign = a.sign() != b.sign();
    match (
        a.is_infinite() || b.is_infinite(),
        a.is_zero() || b.is_zero(),
    ) {
        (true, true) => F::canonical_nan(),
        (true, false) => F::infinity(sign),
        (false, true) => F::zero(sign),
        (false, false) => product(a, b).round(r),
    }
}

/// `a * b + c` with a single rounding (IEEE 754 fusedMultiplyAdd).
///
/// Any NaN operand wins over the invalid product `0 * inf` (IEEE 754 §6.2.3: the first NaN in
/// operand order a, b, c).
pub fn fma<F: Format>(a: F, b: F, c: F, r: Rounding) -> F {
    multiply_add(a, b, c, r, |p| p)
}

/// `a * b + c` where the product is first truncated to `F`'s precision with an unbounded
/// exponent, then added and rounded once: the `mad.f32` of `sm_1x` (policy `sm1x_mad`).
pub fn fma_truncated_product<F: Format>(a: F, b: F, c: F, r: Rounding) -> F {
    multiply_add(a, b, c, r, |p| p.truncated(F::PRECISION))
}

/// A multiply-add whose exact product passes through `shape` before the addition.
fn multiply_add<F: Format>(
    a: F,
    b: F,
    c: F,
    r: Rounding,
    shape: impl Fn(Unrounded) -> Unrounded,
) -> F {
    if let Some(nan) = propagate_nan(&[a, b, c]) {
        return nan;
    }
    let sign = a.sign() != b.sign();
    let product_inf = a.is_infinite() || b.is_infinite();
    let product_zero = a.is_zero() || b.is_zero();
    if product_inf && product_zero {
        return F::canonical_nan();
    }
    match (product_inf, c.is_infinite()) {
        (true, true) if sign != c.sign() => return F::canonical_nan(),
        (true, _) => return F::infinity(sign),
        (_, true) => return c,
        _ => {}
    }
    let p = if product_zero {
        Addend::Zero { sign }
    } else {
        Addend::Finite(shape(product(a, b)))
    };
    sum(p, c, r)
}

/// `a / b`, rounded once.
pub fn div<F: Format>(a: F, b: F, r: Rounding) -> F {
    if let Some(nan) = propagate_nan(&[a, b]) {
        return nan;
    }
    let sign = a.sign() != b.sign();
    match (a.is_infinite(), b.is_infinite(), a.is_zero(), b.is_zero()) {
        (true, true, ..) | (_, _, true, true) => F::canonical_nan(),
        (true, ..) | (_, _, _, true) => F::infinity(sign),
        (_, true, ..) | (_, _, true, _) => F::zero(sign),
        _ => {
            // Dividend's MSB at bit 126 and divisor's at bit 62 give a 64- or 65-bit quotient:
            // at least 11 bits below the rounding position of any format, then the sticky bit.
            let (x, y) = (unpack(a), unpack(b));
            let xs = x.sig.leading_zeros() - 1;
            let ys = y.sig.leading_zeros() - 65;
            let (n, d) = (x.sig << xs, y.sig << ys);
            let (q, rem) = (n / d, n % d);
            Unrounded {
                sign,
                exp: (x.exp - xs as i32) - (y.exp - ys as i32),
                sig: q | u128::from(rem != 0),
            }
            .round(r)
        }
    }
}

/// `1 / a`, rounded once (PTX `rcp.rnd`).
pub fn rcp<F: Format>(a: F, r: Rounding) -> F {
    div(F::one(), a, r)
}

/// The integer square root and whether it was inexact (digit-by-digit, two bits at a time).
fn isqrt(n: u128) -> (u128, bool) {
    let mut rem = n;
    let mut root = 0u128;
    let mut bit = 1u128 << 126;
    while bit > n {
        bit >>= 2;
    }
    while bit != 0 {
        if rem >= root + bit {
            rem -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    (root, rem != 0)
}

/// The square root, rounded once. `sqrt(-0) = -0`; any other negative operand is invalid.
pub fn sqrt<F: Format>(a: F, r: Rounding) -> F {
    if let Some(nan) = propagate_nan(&[a]) {
        return nan;
    }
    if a.is_zero() {
        return a;
    }
    if a.sign() {
        return F::canonical_nan();
    }
    if a.is_infinite() {
        return a;
    }
    // Radicand scaled to 125 or 126 bits with an even exponent: a root of 63 bits, at least 10
    // below the rounding position of any format, then the sticky bit.
    let x = unpack(a);
    let mut shift = x.sig.leading_zeros() as i32 - 2;
    if (x.exp - shift) % 2 != 0 {
        shift += 1;
    }
    let (root, inexact) = isqrt(x.sig << shift);
    Unrounded {
        sign: false,
        exp: (x.exp - shift) / 2,
        sig: root | u128::from(inexact),
    }
    .round(r)
}

/// `x` converted to format `G`, rounded once (PTX `cvt` between floating-point types). A NaN keeps
/// its sign and the top bits of its payload, quieted.
pub fn convert<F: Format, G: Format>(x: F, r: Rounding) -> G {
    if x.is_nan() {
        let payload = if G::FRAC_BITS >= F::FRAC_BITS {
            x.frac() << (G::FRAC_BITS - F::FRAC_BITS)
        } else {
            x.frac() >> (F::FRAC_BITS - G::FRAC_BITS)
        };
        let sign = if x.sign() { G::SIGN_MASK } else { 0 };
        return G::from_bits(sign | G::INF | G::QUIET_BIT | payload);
    }
    if x.is_infinite() {
        return G::infinity(x.sign());
    }
    if x.is_zero() {
        return G::zero(x.sign());
    }
    unpack(x).round(r)
}
