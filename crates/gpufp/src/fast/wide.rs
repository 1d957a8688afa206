//! f64 `add`, `sub`, `mul`, `fma`, `div`, `rcp`, `sqrt` (PTX ISA 9.7.3.3-9.7.3.8, 9.7.3.13,
//! 9.7.3.15, 9.7.4.4) in every rounding direction from the host's round-to-nearest.
//!
//! The host computes `s`, the result rounded to nearest; an error-free transformation gives the
//! sign of the exact result minus `s`: TwoSum for sums, TwoProduct (an fma, or Dekker's product
//! where the target has no fma) for products, the exact remainder `a - q b` of a quotient and
//! `a - s^2` of a square root (exact when nothing underflows: Boldo, Daumas, "Representable
//! correcting terms for possibly underflowing floating point operations", ARITH 2003), and a
//! four-term expansion sum (Shewchuk's Grow-Expansion) for fma. When the exact result is not `s`,
//! directed rounding is `s` or its neighbour toward the exact result, a step of one in the bits.
//!
//! Where an error term could underflow or a product overflow, where an operand is NaN or infinite
//! (payload rules, `f64_nan` policy) or a result overflows, the element goes to the integer core.

use super::narrow::two_sum;
use crate::round::Round;

/// The operation of an f64 kernel, a const parameter: [`ADD`] ... [`SQRT`].
pub type Op = u8;
pub const ADD: Op = 0;
pub const SUB: Op = 1;
pub const MUL: Op = 2;
pub const FMA: Op = 3;
pub const DIV: Op = 4;
pub const RCP: Op = 5;
pub const SQRT: Op = 6;

/// The rounding direction, as flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    pub rz: bool,
    pub rp: bool,
    pub rm: bool,
}

impl Mode {
    pub fn new(round: Round) -> Self {
        Mode {
            rz: round == Round::Rz,
            rp: round == Round::Rp,
            rm: round == Round::Rm,
        }
    }

    /// The rounding direction as a const parameter: 0 rn, 1 rz, 2 rm, 3 rp.
    pub fn round_code(&self) -> u8 {
        if self.rz {
            1
        } else if self.rm {
            2
        } else if self.rp {
            3
        } else {
            0
        }
    }
}

/// The biased exponent field.
#[inline(always)]
fn exp_field(x: f64) -> u64 {
    (x.to_bits() >> 52) & 0x7FF
}

/// Magnitudes with a biased exponent in `[LOW, HIGH)` keep every partial product and remainder
/// normal (>= 2^-1022 - 106 bits of headroom) and Dekker's splitting finite.
const LOW: u64 = 1023 - 900;
const HIGH: u64 = 1023 + 990;

#[inline(always)]
fn moderate(x: f64) -> bool {
    let e = exp_field(x);
    (LOW..HIGH).contains(&e)
}

/// TwoProduct: `p = RN(a b)` and `e` with `p + e = a b` exactly, for moderate operands and
/// product; by an fma where the target has one (`HW_FMA`), else by Dekker's product.
#[inline(always)]
fn two_product<const HW_FMA: bool>(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    if HW_FMA {
        (p, a.mul_add(b, -p))
    } else {
        // Dekker's product with Veltkamp's splitting into 26 + 27 bits.
        let split = |x: f64| {
            let t = x * 134_217_729.0; // 2^27 + 1
            let hi = t - (t - x);
            (hi, x - hi)
        };
        let (ah, al) = split(a);
        let (bh, bl) = split(b);
        let e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
        (p, e)
    }
}

/// The sign of `x0 + x1 + x2 + x3` (each finite), exactly: Grow-Expansion into a nonoverlapping
/// expansion, whose sign is that of its largest nonzero component. Returns -1.0, 0.0 or 1.0 as a
/// signed f64 (any value with the sign and zeroness of the sum).
#[inline(always)]
fn sum4_sign(x0: f64, x1: f64, x2: f64, x3: f64) -> f64 {
    let (q, h0) = two_sum(x1, x0);
    let (q1, g0) = two_sum(x2, h0);
    let (q2, g1) = two_sum(q1, q);
    let (r1, k0) = two_sum(x3, g0);
    let (r2, k1) = two_sum(r1, g1);
    let (r3, k2) = two_sum(r2, q2);
    let low = if k1 != 0.0 { k1 } else { k0 };
    let mid = if k2 != 0.0 { k2 } else { low };
    if r3 != 0.0 {
        r3
    } else {
        mid
    }
}

/// The result bits: `s` (the exact result rounded to nearest), or its neighbour toward the exact
/// result `s + err` (only err's sign and zeroness count) when the direction says so.
#[inline(always)]
fn directed(s: f64, err: f64, m: &Mode) -> u64 {
    let bits = s.to_bits();
    let neg = bits >> 63 != 0;
    // The exact magnitude relative to |s|: +1 above, -1 below, 0 equal.
    let inexact = (err < 0.0) | (err > 0.0);
    let mag = (1 - 2 * (((err.to_bits() ^ bits) >> 63) as i64)) & -i64::from(inexact);
    // The step in value terms: +1 toward +inf.
    let up = if neg { -mag } else { mag };
    let allowed = (m.rz & (mag < 0)) | (m.rp & (up > 0)) | (m.rm & (up < 0));
    bits.wrapping_add((mag & -i64::from(allowed)) as u64)
}

/// One element: the result bits and whether the integer core must decide it instead. `HW_FMA`:
/// the code is compiled for a target with an fma instruction.
#[inline(always)]
/// `RND` must be `m`'s [`Mode::round_code`].
pub fn eval<const OP: Op, const RND: u8, const HW_FMA: bool>(
    _: &Mode,
    a: u64,
    b: u64,
    c: u64,
) -> (u64, bool) {
    let m = &Mode {
        rz: RND == 1,
        rm: RND == 2,
        rp: RND == 3,
    };
    let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    let (s, err, ok) = match OP {
        ADD | SUB => {
            let y = if OP == SUB { -y } else { y };
            let (s, e) = two_sum(x, y);
            // IEEE 754 §6.3: an exact zero sum is -0 rounding toward -inf unless both are +0.
            let plus_zeros = (x.to_bits() == 0) & (y.to_bits() == 0);
            let s = if m.rm & (s == 0.0) & !plus_zeros {
                -0.0
            } else {
                s
            };
            (s, e, s.is_finite() & x.is_finite() & y.is_finite())
        }
        MUL => {
            let zero = (x == 0.0) | (y == 0.0);
            let (p, e) = two_product::<HW_FMA>(x, y);
            let ok =
                x.is_finite() & y.is_finite() & (zero | (moderate(x) & moderate(y) & moderate(p)));
            (p, if zero { 0.0 } else { e }, ok)
        }
        FMA => {
            let zero = (x == 0.0) | (y == 0.0);
            let (p, e) = two_product::<HW_FMA>(x, y);
            let s = x.mul_add(y, z);
            let p = if zero { x * y } else { p };
            let e = if zero { 0.0 } else { e };
            // a b + c - s = p + e + c - s; every term is exact.
            let err = sum4_sign(e, z, p, -s);
            let plus_zeros = (p.to_bits() == 0) & (z.to_bits() == 0);
            let s = if m.rm & (s == 0.0) & !plus_zeros {
                -0.0
            } else {
                s
            };
            let ok = x.is_finite()
                & y.is_finite()
                & (exp_field(z) < HIGH)
                & s.is_finite()
                & (zero | (moderate(x) & moderate(y) & moderate(p)));
            (s, err, ok)
        }
        DIV | RCP => {
            let (n, d) = if OP == RCP { (1.0, x) } else { (x, y) };
            let q = n / d;
            // r = n - q d exactly; the exact quotient minus q has the sign of r / d.
            let (p, e) = two_product::<HW_FMA>(q, d);
            let r = (n - p) - e;
            let err = if d < 0.0 { -r } else { r };
            let zero = (n == 0.0) & (d != 0.0) & d.is_finite();
            let ok = zero | (moderate(n) & moderate(d) & moderate(q));
            (q, if zero { 0.0 } else { err }, ok)
        }
        _ => {
            let s = x.sqrt();
            let (p, e) = two_product::<HW_FMA>(s, s);
            let r = (x - p) - e;
            let zero = x == 0.0;
            let ok = zero | ((x > 0.0) & moderate(x));
            (s, if zero { 0.0 } else { r }, ok)
        }
    };
    (directed(s, err, m), !ok)
}
