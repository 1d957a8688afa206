//! f16 and bf16 add, sub, mul and div over all 2^32 operand pairs, in every rounding mode.
//!
//! rustc_apfloat needs over ten minutes for one such sweep, so the oracle here is an exact model
//! built on the host's IEEE binary64 arithmetic with error-free transformations: every 16-bit value
//! is exact in f64; a product of two is exact; a sum is `s + e` exactly (TwoSum); a quotient is
//! `q + r/b` with `r = fma(-q, b, a)` exact. The f64 value and the sign of the residual determine the
//! correctly rounded 16-bit result in every mode (f64 has more than `2p + 2` bits, so no 16-bit
//! rounding boundary lies between the f64 value and the true one), and a rounding function written
//! here, independent of the core, produces it. The oracle is itself checked against rustc_apfloat.
//!
//! The full sweeps are ignored tests (4 x 2^32 pairs each):
//! `cargo test --release -p gpufp --test exhaustive16 -- --ignored --test-threads 1`. The default
//! run sweeps a slice of them.

mod common;

use common::{ap_round, Rng};
use gpufp::{ieee, Format, Round, Rounding, BF16, F16};
use rayon::prelude::*;
use rustc_apfloat::ieee::{BFloat, Half};
use rustc_apfloat::Float;
use std::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

/// The exact value of a non-NaN 16-bit pattern as an f64.
fn to_f64<F: Format>(x: F) -> f64 {
    if x.is_infinite() {
        return if x.sign() {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let (sig, exp) = match x.biased_exp() {
        0 => (x.frac(), F::EMIN - F::FRAC_BITS as i32),
        e => (
            x.frac() | (1 << F::FRAC_BITS),
            e as i32 - F::BIAS - F::FRAC_BITS as i32,
        ),
    };
    let pow2 = f64::from_bits(((exp + 1023) as u64) << 52);
    let v = sig as f64 * pow2;
    if x.sign() {
        -v
    } else {
        v
    }
}

/// Rounds `x + residual` to `F`, where `residual` is nonzero but smaller than any gap between f64
/// values near `x`, with only its sign known. `x` is finite and nonzero.
fn round_with_residual<F: Format>(x: f64, residual: Ordering, r: Round) -> F {
    let neg = x < 0.0;
    // The residual's sign relative to the magnitude.
    let mres = if neg { residual.reverse() } else { residual };
    let bits = x.abs().to_bits();
    let mut e = (bits >> 52) as i32 - 1023;
    let m = (bits & ((1 << 52) - 1)) | (1 << 52);
    if m == 1 << 52 && mres == Ordering::Less {
        // Just below a power of two: the true value lies in the binade below.
        e -= 1;
    }
    let frac_bits = F::FRAC_BITS as i32;
    let q = (e - frac_bits).max(F::EMIN - frac_bits);
    // x = m * 2^(E - 52); k low bits of m fall below the quantum 2^q.
    let k = (q - ((bits >> 52) as i32 - 1023 - 52)) as u32;
    let (floor, rem) = if k >= 64 {
        (0, m)
    } else {
        (m >> k, m & ((1u64 << k) - 1))
    };
    let half = if k >= 65 { 0 } else { 1u64 << (k - 1) };
    let half_cmp_rem = if k >= 65 {
        Ordering::Less
    } else {
        rem.cmp(&half)
    };
    let (floor, cmp, inexact) = match (rem, mres) {
        (0, Ordering::Equal) => (floor, Ordering::Less, false),
        (0, Ordering::Less) => (floor - 1, Ordering::Greater, true),
        (0, Ordering::Greater) => (floor, Ordering::Less, true),
        (_, _) => (floor, half_cmp_rem.then(mres), true),
    };
    let up = match r {
        Round::Rn => cmp == Ordering::Greater || (cmp == Ordering::Equal && floor & 1 == 1),
        Round::Rz => false,
        Round::Rm => neg && inexact,
        Round::Rp => !neg && inexact,
    };
    let (mut m, mut q) = (floor + u64::from(up), q);
    let sign = if neg { F::SIGN_MASK } else { 0 };
    if m >> (frac_bits + 1) != 0 {
        m >>= 1;
        q += 1;
    }
    if m < 1 << frac_bits {
        return F::from_bits(sign | m);
    }
    let exp = q + frac_bits;
    if exp > F::EMAX {
        let inf = match r {
            Round::Rn => true,
            Round::Rz => false,
            Round::Rm => neg,
            Round::Rp => !neg,
        };
        return F::from_bits(sign | if inf { F::INF } else { F::MAX_FINITE });
    }
    F::from_bits(sign | (((exp + F::BIAS) as u64) << F::FRAC_BITS) | (m & F::FRAC_MASK))
}

fn sign_of(x: f64) -> Ordering {
    x.partial_cmp(&0.0).expect("residuals are finite")
}

/// The correctly rounded result of `a op b` with IEEE 754 special cases and the core's NaN rule.
fn oracle<F: Format>(op: Op, a: F, b: F, r: Round) -> F {
    if let Some(nan) = [a, b].into_iter().find(|x| x.is_nan()) {
        return F::from_bits(nan.to_bits() | F::QUIET_BIT);
    }
    let (x, y) = (to_f64(a), to_f64(b));
    let y = if op == Op::Sub { -y } else { y };
    let (v, residual) = match op {
        Op::Add | Op::Sub => {
            let s = x + y;
            // TwoSum (Knuth): s + e == x + y exactly.
            let bb = s - x;
            let e = (x - (s - bb)) + (y - bb);
            (s, e)
        }
        Op::Mul => (x * y, 0.0),
        Op::Div => {
            let q = x / y;
            let rem = if q.is_finite() && q != 0.0 {
                (-q).mul_add(y, x)
            } else {
                0.0
            };
            (q, if y < 0.0 { -rem } else { rem })
        }
    };
    if v.is_nan() {
        F::canonical_nan()
    } else if v.is_infinite() {
        F::infinity(v < 0.0)
    } else if v == 0.0 {
        // An exact zero: a product or quotient keeps its sign; a sum of opposite signs is +0
        // except toward negative infinity (IEEE 754 §6.3).
        let same_sign_zeros =
            matches!(op, Op::Add | Op::Sub) && x.is_sign_negative() == y.is_sign_negative();
        let neg = match op {
            Op::Add | Op::Sub if !same_sign_zeros => r == Round::Rm,
            _ => v.is_sign_negative(),
        };
        F::zero(neg)
    } else {
        round_with_residual(v, sign_of(residual), r)
    }
}

fn core<F: Format>(op: Op, a: F, b: F, r: Round) -> F {
    let r = Rounding::ieee(r);
    match op {
        Op::Add => ieee::add(a, b, r),
        Op::Sub => ieee::sub(a, b, r),
        Op::Mul => ieee::mul(a, b, r),
        Op::Div => ieee::div(a, b, r),
    }
}

/// Compares the core with the oracle for every `b` and every `a` whose high byte is in `a_hi`.
fn sweep<F: Format>(op: Op, r: Round, a_hi: impl IntoParallelIterator<Item = u64>) {
    let (bad, first) = a_hi
        .into_par_iter()
        .map(|hi| {
            let mut bad = 0u64;
            let mut first = None;
            for lo in 0..=0xFFu64 {
                let a = F::from_bits(hi << 8 | lo);
                for b in 0..=0xFFFFu64 {
                    let b = F::from_bits(b);
                    let (got, want) = (core(op, a, b, r), oracle(op, a, b, r));
                    if got != want {
                        bad += 1;
                        first.get_or_insert((a, b, got, want));
                    }
                }
            }
            (bad, first)
        })
        .reduce(|| (0, None), |x, y| (x.0 + y.0, x.1.or(y.1)));
    assert_eq!(
        bad,
        0,
        "{op:?}.{r:?}.{}: {bad} mismatches, first {first:?}",
        F::NAME
    );
}

const OPS: [Op; 4] = [Op::Add, Op::Sub, Op::Mul, Op::Div];

/// The oracle agrees with rustc_apfloat, bit for bit, on random pairs.
#[test]
fn oracle_matches_apfloat() {
    fn run<F: Format, A: Float>(seed: u64) {
        let mut rng = Rng(seed);
        for _ in 0..200_000 {
            let (a, b) = (F::from_bits(rng.next()), F::from_bits(rng.next()));
            for op in OPS {
                for r in Round::ALL {
                    let (x, y) = (
                        A::from_bits(u128::from(a.to_bits())),
                        A::from_bits(u128::from(b.to_bits())),
                    );
                    let rr = ap_round(r);
                    let v = match op {
                        Op::Add => x.add_r(y, rr).value,
                        Op::Sub => x.sub_r(y, rr).value,
                        Op::Mul => x.mul_r(y, rr).value,
                        Op::Div => x.div_r(y, rr).value,
                    };
                    let want = oracle(op, a, b, r);
                    if v.is_nan() {
                        assert!(want.is_nan(), "{op:?}.{r:?} {a:?} {b:?}");
                    } else {
                        assert_eq!(
                            want.to_bits(),
                            v.to_bits() as u64,
                            "{op:?}.{r:?} {a:?} {b:?}"
                        );
                    }
                }
            }
        }
    }
    run::<F16, Half>(1);
    run::<BF16, BFloat>(2);
}

/// Every `a` with one of 4 spread-out high bytes (subnormal or tiny, near one, large or inf/NaN,
/// negative) against every `b`: 2^26 pairs per operation, format and mode.
#[test]
fn slice_every_op_format_mode() {
    let his = [0x03u64, 0x3C, 0x7C, 0xBB];
    for op in OPS {
        for r in Round::ALL {
            sweep::<F16>(op, r, his);
            sweep::<BF16>(op, r, his);
        }
    }
}

macro_rules! exhaustive {
    ($($name:ident: $f:ty, $op:ident;)*) => {$(
        /// All 2^32 pairs in each of the four rounding modes.
        #[test]
        #[ignore]
        fn $name() {
            for r in Round::ALL {
                sweep::<$f>(Op::$op, r, 0..=0xFFu64);
            }
        }
    )*};
}

exhaustive! {
    f16_add: F16, Add;
    f16_sub: F16, Sub;
    f16_mul: F16, Mul;
    f16_div: F16, Div;
    bf16_add: BF16, Add;
    bf16_sub: BF16, Sub;
    bf16_mul: BF16, Mul;
    bf16_div: BF16, Div;
}
