//! An exact big-integer model of the core, written independently of it: operands decode to exact
//! dyadic numbers, add/mul/fma are computed exactly, div and sqrt to 200 extra bits plus a sticky
//! flag, and one rounding function implements IEEE gradual underflow and the three `.ftz`
//! tininess readings of SEMANTICS.md §3.1. It is the oracle for sqrt (rustc_apfloat has none) and
//! for flush-to-zero under every policy.

mod common;

use common::{case_count, operand, Rng};
use gpufp::{ieee, Format, Round, Rounding, Tininess, BF16, F16, F32, F64};
use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{One, Zero};
use rayon::prelude::*;
use std::cmp::Ordering;

/// `(-1)^neg * (mag + s) * 2^exp`, where `s` is in (0, 1) when `sticky` and 0 otherwise.
#[derive(Clone, Debug)]
struct Exact {
    neg: bool,
    mag: BigUint,
    exp: i64,
    sticky: bool,
}

fn decode<F: Format>(x: F) -> Exact {
    let frac = x.frac();
    let e = x.biased_exp() as i64;
    let (mag, exp) = if e == 0 {
        (frac, i64::from(F::EMIN) - i64::from(F::FRAC_BITS))
    } else {
        (
            frac | (1 << F::FRAC_BITS),
            e - i64::from(F::BIAS) - i64::from(F::FRAC_BITS),
        )
    };
    Exact {
        neg: x.sign(),
        mag: BigUint::from(mag),
        exp,
        sticky: false,
    }
}

fn signed(x: &Exact, to_exp: i64) -> BigInt {
    let m = BigInt::from_biguint(if x.neg { Sign::Minus } else { Sign::Plus }, x.mag.clone());
    m << (x.exp - to_exp)
}

/// The exact sum; `None` when it is zero.
fn exact_add(x: &Exact, y: &Exact) -> Option<Exact> {
    let e = x.exp.min(y.exp);
    let s = signed(x, e) + signed(y, e);
    (!s.is_zero()).then(|| Exact {
        neg: s.sign() == Sign::Minus,
        mag: s.magnitude().clone(),
        exp: e,
        sticky: false,
    })
}

fn exact_mul(x: &Exact, y: &Exact) -> Exact {
    Exact {
        neg: x.neg != y.neg,
        mag: &x.mag * &y.mag,
        exp: x.exp + y.exp,
        sticky: false,
    }
}

const EXTRA: i64 = 200;

fn exact_div(x: &Exact, y: &Exact) -> Exact {
    let n = &x.mag << EXTRA as usize;
    Exact {
        neg: x.neg != y.neg,
        sticky: !(&n % &y.mag).is_zero(),
        mag: n / &y.mag,
        exp: x.exp - y.exp - EXTRA,
    }
}

fn exact_sqrt(x: &Exact) -> Exact {
    let shift = 2 * EXTRA + (x.exp & 1);
    let n = &x.mag << shift as usize;
    let root = n.sqrt();
    Exact {
        neg: false,
        sticky: &root * &root != n,
        mag: root,
        exp: (x.exp - shift) / 2,
    }
}

/// `|x| / 2^q` rounded to an integer in direction `r`.
fn round_at(x: &Exact, q: i64, r: Round) -> BigUint {
    let (floor, half_cmp, inexact) = if x.exp >= q {
        assert!(
            !x.sticky,
            "a sticky value must carry bits below every rounding position"
        );
        (&x.mag << (x.exp - q) as usize, Ordering::Less, false)
    } else {
        let k = (q - x.exp) as usize;
        let rem = &x.mag & ((BigUint::one() << k) - 1u32);
        let twice = &rem << 1u32;
        let half = BigUint::one() << k;
        let cmp = match twice.cmp(&half) {
            Ordering::Equal if x.sticky => Ordering::Greater,
            c => c,
        };
        (&x.mag >> k, cmp, !rem.is_zero() || x.sticky)
    };
    let odd = floor.bit(0);
    let up = match r {
        Round::Rn => half_cmp == Ordering::Greater || (half_cmp == Ordering::Equal && odd),
        Round::Rz => false,
        Round::Rm => x.neg && inexact,
        Round::Rp => !x.neg && inexact,
    };
    floor + u32::from(up)
}

fn exponent_of_msb(x: &Exact) -> i64 {
    x.exp + x.mag.bits() as i64 - 1
}

/// Rounds a nonzero exact value to `F`: gradual underflow, or flush-to-zero under `ftz`.
fn round_model<F: Format>(x: &Exact, r: Round, ftz: Option<Tininess>) -> F {
    let p = i64::from(F::PRECISION);
    let (emin, emax) = (i64::from(F::EMIN), i64::from(F::EMAX));
    let zero = F::zero(x.neg);
    let msb = exponent_of_msb(x);
    let unbounded_q = msb - (p - 1);
    let tiny = match ftz {
        None | Some(Tininess::IeeeRounded) => false,
        Some(Tininess::BeforeRounding) => msb < emin,
        Some(Tininess::UnboundedRounded) => {
            let m = round_at(x, unbounded_q, r);
            unbounded_q + m.bits() as i64 - 1 < emin
        }
    };
    if tiny {
        return zero;
    }
    let q = unbounded_q.max(emin - (p - 1));
    let mut m = round_at(x, q, r);
    if m.is_zero() {
        return zero;
    }
    let e = q + m.bits() as i64 - 1;
    if e > emax {
        let inf = match r {
            Round::Rn => true,
            Round::Rz => false,
            Round::Rm => x.neg,
            Round::Rp => !x.neg,
        };
        return if inf {
            F::infinity(x.neg)
        } else {
            F::from_bits(F::MAX_FINITE | (F::SIGN_MASK * u64::from(x.neg)))
        };
    }
    let sign = if x.neg { F::SIGN_MASK } else { 0 };
    if e < emin {
        if ftz == Some(Tininess::IeeeRounded) {
            return zero;
        }
        return F::from_bits(sign | m.iter_u64_digits().next().unwrap_or(0));
    }
    if m.bits() as i64 > p {
        // A carry to 2^p: the same value with one bit less.
        m >>= 1u32;
    }
    let frac = m.iter_u64_digits().next().unwrap_or(0) & F::FRAC_MASK;
    F::from_bits(sign | (((e + i64::from(F::BIAS)) as u64) << F::FRAC_BITS) | frac)
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Add,
    Sub,
    Mul,
    Fma,
    Div,
    Sqrt,
}

const OPS: [Op; 6] = [Op::Add, Op::Sub, Op::Mul, Op::Fma, Op::Div, Op::Sqrt];

/// The model's result for finite operands whose exact result is finite and nonzero; `None`
/// otherwise (those cases are rustc_apfloat's to check).
fn model<F: Format>(op: Op, a: F, b: F, c: F, r: Round, ftz: Option<Tininess>) -> Option<F> {
    if ![a, b, c].iter().all(|x| x.is_finite()) {
        return None;
    }
    let (x, y, z) = (decode(a), decode(b), decode(c));
    let nonzero = |v: &F| !v.is_zero();
    let exact = match op {
        Op::Add => exact_add(&x, &y)?,
        Op::Sub => exact_add(&x, &Exact { neg: !y.neg, ..y })?,
        Op::Mul => (nonzero(&a) && nonzero(&b)).then(|| exact_mul(&x, &y))?,
        Op::Fma if a.is_zero() || b.is_zero() => (nonzero(&c)).then_some(z)?,
        Op::Fma => exact_add(&exact_mul(&x, &y), &z)?,
        Op::Div => (nonzero(&a) && nonzero(&b)).then(|| exact_div(&x, &y))?,
        Op::Sqrt => (nonzero(&a) && !a.sign()).then(|| exact_sqrt(&x))?,
    };
    Some(round_model(&exact, r, ftz))
}

fn core<F: Format>(op: Op, a: F, b: F, c: F, rounding: Rounding) -> F {
    match op {
        Op::Add => ieee::add(a, b, rounding),
        Op::Sub => ieee::sub(a, b, rounding),
        Op::Mul => ieee::mul(a, b, rounding),
        Op::Fma => ieee::fma(a, b, c, rounding),
        Op::Div => ieee::div(a, b, rounding),
        Op::Sqrt => ieee::sqrt(a, rounding),
    }
}

const FTZ: [Option<Tininess>; 4] = [
    None,
    Some(Tininess::IeeeRounded),
    Some(Tininess::BeforeRounding),
    Some(Tininess::UnboundedRounded),
];

fn rounding(r: Round, ftz: Option<Tininess>) -> Rounding {
    match ftz {
        None => Rounding::ieee(r),
        Some(t) => Rounding::ftz(r, t),
    }
}

/// Operands whose results land near `2^EMIN`, where the tininess readings differ: one operand
/// just below or above 1 (or a small power of two) and the other near the smallest normal.
fn tiny_case<F: Format>(op: Op, rng: &mut Rng) -> (F, F, F) {
    let near_one =
        F::from_bits(F::ONE - 8 + rng.below(16) - rng.below(2) * (rng.below(4) << F::FRAC_BITS));
    let near_min = F::from_bits(F::MIN_NORMAL + rng.below(16) - 8);
    let sign = |x: F, rng: &mut Rng| if rng.below(2) == 0 { x } else { x.neg_bits() };
    match op {
        Op::Add | Op::Sub | Op::Fma => {
            let a = sign(near_min, rng);
            let b = sign(F::from_bits(F::MIN_NORMAL * 2 + rng.below(16) - 8), rng);
            (
                a,
                if rng.below(2) == 0 { b } else { near_one },
                sign(b, rng),
            )
        }
        Op::Mul | Op::Div | Op::Sqrt => (sign(near_one, rng), sign(near_min, rng), near_one),
    }
}

fn check<F: Format>(cases: usize, seed: u64) {
    let failures: Vec<String> = OPS
        .par_iter()
        .flat_map_iter(|&op| {
            let mut bad = Vec::new();
            let mut rng = Rng(seed ^ ((op as u64) << 32));
            for i in 0..cases {
                let (a, b, c) = if i % 2 == 0 {
                    tiny_case::<F>(op, &mut rng)
                } else {
                    (operand(&mut rng), operand(&mut rng), operand(&mut rng))
                };
                // Mul/div of a near-one and a near-min operand are swapped half the time.
                let (a, b) = if i % 4 == 2 { (b, a) } else { (a, b) };
                for r in Round::ALL {
                    for ftz in FTZ {
                        let Some(want) = model(op, a, b, c, r, ftz) else { continue };
                        let got = core(op, a, b, c, rounding(r, ftz));
                        if got != want && bad.len() < 8 {
                            bad.push(format!("{op:?}.{r:?} ftz={ftz:?} {a:?} {b:?} {c:?}: got {got:?}, want {want:?}"));
                        }
                    }
                }
            }
            bad
        })
        .collect();
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}

#[test]
fn f16_against_exact_model() {
    check::<F16>(case_count(100_000), 1);
}

#[test]
fn bf16_against_exact_model() {
    check::<BF16>(case_count(100_000), 2);
}

#[test]
fn f32_against_exact_model() {
    check::<F32>(case_count(250_000), 3);
}

#[test]
fn f64_against_exact_model() {
    check::<F64>(case_count(250_000), 4);
}

/// sqrt of every 16-bit pattern in every mode, specials included: NaN -> the operand quieted,
/// negative nonzero -> canonical NaN, +-0 -> itself, +inf -> +inf.
#[test]
fn sqrt_exhaustive_16bit() {
    fn run<F: Format>() {
        for r in Round::ALL {
            for bits in 0..=0xFFFFu64 {
                let a = F::from_bits(bits);
                let want = if a.is_nan() {
                    F::from_bits(bits | F::QUIET_BIT)
                } else if a.is_zero() || a.to_bits() == F::INF {
                    a
                } else if a.sign() {
                    F::canonical_nan()
                } else {
                    model(Op::Sqrt, a, a, a, r, None).expect("finite positive")
                };
                assert_eq!(ieee::sqrt(a, Rounding::ieee(r)), want, "sqrt.{r:?} {a:?}");
            }
        }
    }
    run::<F16>();
    run::<BF16>();
}

/// sqrt on random positive finite f32 and f64 in every mode (1e6 each by default).
#[test]
fn sqrt_random_32_64() {
    fn run<F: Format>(cases: usize, seed: u64) {
        let bad: Vec<String> = Round::ALL
            .par_iter()
            .flat_map_iter(|&r| {
                let mut rng = Rng(seed + r as u64);
                (0..cases)
                    .filter_map(|_| {
                        let a = operand::<F>(&mut rng).abs_bits();
                        let want = model(Op::Sqrt, a, a, a, r, None)?;
                        let got = ieee::sqrt(a, Rounding::ieee(r));
                        (got != want)
                            .then(|| format!("sqrt.{r:?} {a:?}: got {got:?}, want {want:?}"))
                    })
                    .take(5)
                    .collect::<Vec<_>>()
            })
            .collect();
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
    run::<F32>(case_count(1_000_000), 5);
    run::<F64>(case_count(1_000_000), 6);
}
