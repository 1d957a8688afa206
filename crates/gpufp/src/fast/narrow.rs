//! f16, bf16 and f32 `add`, `sub`, `mul`, `fma` (PTX ISA 9.7.3.3-9.7.3.6, 9.7.4.1-9.7.4.4) on
//! the host's binary64 arithmetic.
//!
//! Every value of these formats is exact in f64, and so is a product of two of them (at most 48
//! significant bits). A sum is `s + e` exactly (TwoSum, Knuth): `s` is the f64 sum rounded to
//! nearest, `e` the rounding error. Rounding `s + e` *to odd* in f64 (move `s` one ulp toward `e`
//! when `e != 0` and `s` is even) keeps the exact value's side of every boundary of a format with
//! at most `53 - 2` bits of precision (Boldo and Melquiond, "Emulation of FMA and correctly rounded
//! sums: proved algorithms using rounding to odd", IEEE TC 2008), so the one integer rounding in
//! [`round_to`] gives the correctly rounded result in any direction, with gradual underflow or
//! `.ftz`. No input makes the f64 arithmetic overflow or underflow (the largest exact result is
//! below 2^257, the smallest nonzero one above 2^-299), so no case falls back to the integer core.
//!
//! The PTX steps around the operation are the ones of `ptx::arith`, written branch-free so that
//! loops over them vectorize: `.oob` -> flush inputs (`.ftz`) -> operation -> canonical NaN ->
//! `.sat` / `.relu`.

use crate::format::{Format, F32};
use crate::policy::{Policies, ReluNegativeZero};
use crate::round::Round;

/// The operation of a narrow kernel: [`ADD`], [`SUB`], [`MUL`] or [`FMA`] (a const parameter, so
/// that each kernel loop is compiled for one operation).
pub type Op = u8;
pub const ADD: Op = 0;
pub const SUB: Op = 1;
pub const MUL: Op = 2;
pub const FMA: Op = 3;

/// The modifiers of one instruction, as the flags the branch-free code selects on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    /// Round to nearest even.
    pub rn: bool,
    /// Round toward +inf.
    pub rp: bool,
    /// Round toward -inf.
    pub rm: bool,
    /// Round toward zero.
    pub rz: bool,
    /// Flush subnormal inputs and tiny results (tininess after rounding with an unbounded
    /// exponent, the default `ftz_tininess`).
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    /// `.relu` keeps `-0.0` (`relu_negative_zero = Keep`).
    pub relu_keeps_negative_zero: bool,
    /// `.oob`: the OOB NaN pattern operands are compared with.
    pub oob: Option<u64>,
}

impl Mode {
    pub fn new(round: Round, ftz: bool, sat: bool, relu: bool, oob: bool, p: &Policies) -> Self {
        Mode {
            rn: round == Round::Rn,
            rp: round == Round::Rp,
            rm: round == Round::Rm,
            rz: round == Round::Rz,
            ftz,
            sat,
            relu,
            relu_keeps_negative_zero: p.relu_negative_zero == ReluNegativeZero::Keep,
            oob: oob.then_some(u64::from(p.oob_nan)),
        }
    }

    /// The rounding direction as a const parameter: 0 rn, 1 rz, 2 rm, 3 rp.
    pub fn round_code(&self) -> u8 {
        if self.rn {
            0
        } else if self.rm {
            2
        } else if self.rp {
            3
        } else {
            1
        }
    }

    /// The modifiers as a const parameter: [`FTZ`] | [`SAT`] | [`EXTRA`].
    pub fn flag_code(&self) -> u8 {
        let extra = self.relu || self.oob.is_some();
        let bit = |on: bool, b: u8| if on { b } else { 0 };
        bit(self.ftz, FTZ) | bit(self.sat, SAT) | bit(extra, EXTRA)
    }

    /// The mode with the fields that `RND` and `FLAGS` fix made constants, so that the kernel
    /// compiled for them has no code for the others.
    #[inline(always)]
    fn fixed<const RND: u8, const FLAGS: u8>(&self) -> Mode {
        let extra = FLAGS & EXTRA != 0;
        Mode {
            rn: RND == 0,
            rz: RND == 1,
            rm: RND == 2,
            rp: RND == 3,
            ftz: FLAGS & FTZ != 0,
            sat: FLAGS & SAT != 0,
            relu: extra && self.relu,
            relu_keeps_negative_zero: self.relu_keeps_negative_zero,
            oob: if extra { self.oob } else { None },
        }
    }
}

/// [`Mode::flag_code`] bits: `.ftz`, `.sat`, and `.relu` or `.oob` (read from the mode).
pub const FTZ: u8 = 1;
pub const SAT: u8 = 2;
pub const EXTRA: u8 = 4;

/// The exact value of a bit pattern of `F` as an f64 (any NaN for a NaN).
#[inline(always)]
fn widen<F: Format>(x: u64) -> f64 {
    if F::BITS == 32 {
        return f64::from(f32::from_bits(x as u32));
    }
    let sign = (x >> (F::BITS - 1)) << 63;
    let e = (x & F::EXP_MASK) >> F::FRAC_BITS;
    let frac = x & F::FRAC_MASK;
    let emax_field = F::EXP_MASK >> F::FRAC_BITS;
    // Normal: rebias the exponent and move the fraction to the top of f64's.
    let normal = ((e as i64 - F::BIAS as i64 + 1023) as u64) << 52 | frac << (52 - F::FRAC_BITS);
    // Subnormal: 2^K (1 + frac 2^-52) - 2^K = frac 2^(EMIN - FRAC_BITS), both steps exact.
    let k = (F::EMIN - F::FRAC_BITS as i32 + 52 + 1023) as u64;
    let sub = (f64::from_bits(k << 52 | frac) - f64::from_bits(k << 52)).to_bits();
    let special = 0x7FF0_0000_0000_0000 | frac;
    let mag = if e == 0 {
        sub
    } else if e == emax_field {
        special
    } else {
        normal
    };
    f64::from_bits(sign | mag)
}

/// TwoSum (Knuth): `s = RN(a + b)` and `e` with `s + e = a + b` exactly, barring overflow.
#[inline(always)]
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// `s + e` rounded to odd in f64, as bits: `s` moved one ulp toward `e` when `e` is nonzero and
/// `s` is even. `s` is finite and nonzero whenever `e` is nonzero.
#[inline(always)]
fn round_to_odd(s: f64, e: f64) -> u64 {
    let bits = s.to_bits();
    let inexact = (e < 0.0) | (e > 0.0);
    // +1 moves away from zero, toward an `e` of the same sign; -1 toward zero.
    let toward = 1 - 2 * (((e.to_bits() ^ bits) >> 63) as i64);
    let apply = -i64::from(inexact & (bits & 1 == 0));
    bits.wrapping_add((toward & apply) as u64)
}

/// Whether rounding `kept | rem` at the boundary below `kept` goes up (`half` is the weight of the
/// first dropped bit).
#[inline(always)]
fn round_up(m: &Mode, neg: bool, kept: u64, rem: u64, half: u64) -> bool {
    let nearest = (rem > half) | ((rem == half) & (kept & 1 == 1));
    let directed = (rem != 0) & ((neg & m.rm) | (!neg & m.rp));
    (m.rn & nearest) | directed
}

/// Rounds an f64 (its bits) that is the round-to-odd image of the exact result to `F`, with
/// gradual underflow or `.ftz`, overflow per direction, NaN to the canonical NaN.
#[inline(always)]
pub fn round_to<F: Format>(bits: u64, m: &Mode) -> u64 {
    let neg = bits >> 63 != 0;
    let mag = bits & !(1 << 63);
    let e64 = (mag >> 52) as i64;
    let sig = (mag & ((1 << 52) - 1)) | 1 << 52;
    let exp = e64 - 1023;
    let p = i64::from(F::PRECISION);
    let emin = i64::from(F::EMIN);
    let sh0 = 53 - p;
    // Below 2^EMIN the kept bits stop at the subnormal LSB.
    let denorm = (emin - exp).max(0);
    let sh = (sh0 + denorm).min(63) as u32;
    let kept = sig >> sh;
    let rem = sig & ((1 << sh) - 1);
    let up = round_up(m, neg, kept, rem, 1 << (sh - 1));
    // Adding the kept significand (hidden bit included) to the exponent field minus one makes a
    // carry out of the significand, and a subnormal rounding up to 2^EMIN, land right.
    let base = if denorm > 0 {
        0
    } else {
        ((exp + i64::from(F::BIAS) - 1) as u64) << F::FRAC_BITS
    };
    let mut r = base.wrapping_add(kept + u64::from(up));
    let to_inf = m.rn | (neg & m.rm) | (!neg & m.rp);
    if (exp > i64::from(F::EMAX)) | (r >= F::INF) {
        r = if to_inf { F::INF } else { F::MAX_FINITE };
    }
    if m.ftz & tiny::<F>(f64::from_bits(bits), m) {
        r = 0;
    }
    if e64 == 0x7FF {
        r = F::INF;
    }
    if mag == 0 {
        r = 0;
    }
    let signed = r | if neg { F::SIGN_MASK } else { 0 };
    if mag > 0x7FF0_0000_0000_0000 {
        F::CANONICAL_NAN
    } else {
        signed
    }
}

/// Whether the exact value `x` (its round-to-odd image) rounded to `F`'s precision with an
/// unbounded exponent is below 2^EMIN: the `.ftz` tininess reading of `ftz_tininess`'s default.
///
/// With `t` the largest `P`-bit number below 2^EMIN (`2^EMIN - 2^(EMIN-P)`), that is `|x| < (t +
/// 2^EMIN) / 2` to nearest (the tie goes to the even 2^EMIN), `|x| <= t` rounding away from zero
/// and `|x| < 2^EMIN` toward zero. Each threshold has at most `P + 1` bits, so it is even in f64
/// and the round-to-odd image compares with it as the exact value does.
#[inline(always)]
fn tiny<F: Format>(x: f64, m: &Mode) -> bool {
    let min = f64::from_bits(((F::EMIN + 1023) as u64) << 52);
    let ulp = f64::from_bits(((F::EMIN - F::PRECISION as i32 + 1023) as u64) << 52);
    let a = x.abs();
    let neg = x.is_sign_negative();
    let away = (m.rp & !neg) | (m.rm & neg);
    let toward_zero = !m.rn & !away;
    (m.rn & (a < min - 0.5 * ulp)) | (away & (a <= min - ulp)) | (toward_zero & (a < min))
}

/// The bits of a value of sign `neg`, moved one step where the rounding direction says so, given
/// `mag`: +1 if the exact value's magnitude is above the value's, -1 if below, 0 if equal. Integer
/// arithmetic throughout, so that it vectorizes.
#[inline(always)]
fn step(bits: u64, neg: bool, mag: i64, m: &Mode) -> u64 {
    // The step in value terms: +1 toward +inf.
    let up = if neg { -mag } else { mag };
    let allowed = (m.rz & (mag < 0)) | (m.rp & (up > 0)) | (m.rm & (up < 0));
    bits.wrapping_add((mag & -i64::from(allowed)) as u64)
}

/// f32: the round-to-odd `x` rounded by the host's conversion (to nearest, gradual underflow,
/// overflow to infinity), then moved one step toward the exact value where the direction says
/// so. `x` differs from `RN(x)` exactly when the exact value is not an f32 (an odd f64 never is,
/// and round-to-odd keeps every other value exact), and lies on the exact value's side; an
/// overflow to infinity lies above every finite `x`.
#[inline(always)]
fn round_f32(x: f64, m: &Mode) -> u64 {
    let r = x as f32;
    let bits = u64::from(r.to_bits());
    let neg = bits >> 31 != 0;
    // `x` and `RN(x)` have the same sign, so their magnitudes compare as their bit patterns.
    let (mx, mr) = (x.to_bits() << 1, f64::from(r).to_bits() << 1);
    let mag = i64::from(mx > mr) - i64::from(mx < mr);
    let mut r = step(bits, neg, mag, m);
    if m.ftz & tiny::<F32>(x, m) {
        r &= F32::SIGN_MASK;
    }
    if r & !F32::SIGN_MASK > F32::INF {
        F32::CANONICAL_NAN
    } else {
        r
    }
}

/// Flushes a subnormal bit pattern to the zero of its sign.
#[inline(always)]
fn flush<F: Format>(x: u64) -> u64 {
    if x & F::EXP_MASK == 0 {
        x & F::SIGN_MASK
    } else {
        x
    }
}

/// One element of the kernel `OP` on format `F`: the result bits, and whether the integer core
/// must decide it instead (an operand wider than the format, which the core reports as an error).
/// `RND` and `FLAGS` must be `m`'s [`Mode::round_code`] and [`Mode::flag_code`].
#[inline(always)]
pub fn eval<F: Format, const OP: Op, const RND: u8, const FLAGS: u8>(
    m: &Mode,
    a: u64,
    b: u64,
    c: u64,
) -> (u64, bool) {
    let m = &m.fixed::<RND, FLAGS>();
    let fma = OP == FMA;
    let wide = (a | b | if fma { c } else { 0 }) >> F::BITS != 0;
    let oob = match m.oob {
        Some(nan) => (a == nan) | (b == nan) | (fma & (c == nan)),
        None => false,
    };
    let (a, b, c) = if m.ftz {
        (flush::<F>(a), flush::<F>(b), flush::<F>(c))
    } else {
        (a, b, c)
    };
    let (x, y, z) = (widen::<F>(a), widen::<F>(b), widen::<F>(c));
    // The two addends of the final sum (the product for fma); a multiplication has only one.
    let (u, v) = match OP {
        ADD => (x, y),
        SUB => (x, -y),
        MUL => (x * y, 0.0),
        _ => (x * y, z),
    };
    let (s, e) = if OP == MUL { (u, 0.0) } else { two_sum(u, v) };
    // IEEE 754 §6.3: an exact zero sum is +0 unless both addends are -0, or -0 in every case
    // rounding toward -inf; the host's round-to-nearest sum is right but for the latter.
    let both_plus_zero = u.to_bits() == 0 && v.to_bits() == 0;
    let s = if (OP != MUL) & m.rm & (s == 0.0) & !both_plus_zero {
        -0.0
    } else {
        s
    };
    let odd = round_to_odd(s, e);
    let mut r = if F::BITS == 32 {
        round_f32(f64::from_bits(odd), m)
    } else {
        round_to::<F>(odd, m)
    };
    // PTX ISA 9.7.3.3: "`.sat` clamps the result to [0.0, 1.0]. `NaN` results are flushed to +0.0f."
    let nan = r & !F::SIGN_MASK > F::INF;
    let negative = r & F::SIGN_MASK != 0;
    if m.sat {
        r = if nan | negative {
            0
        } else if r > F::ONE {
            F::ONE
        } else {
            r
        };
    }
    // PTX ISA 9.7.4.4: "`.relu` clamps the result to 0 if negative. `NaN` result is converted to
    // canonical `NaN`." (It already is.)
    if m.relu & negative & !nan & !(m.relu_keeps_negative_zero & (r == F::SIGN_MASK)) {
        r = 0;
    }
    // PTX ISA 9.7.4.4: "`fma.oob` ... clamps the result to 0 if either of the operands is `OOB NaN`".
    if oob {
        r = 0;
    }
    (r, wide)
}
