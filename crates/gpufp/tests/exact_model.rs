//! The core against the exact big-integer model of `common/exact.rs`: the oracle for sqrt
//! (rustc_apfloat has none) and for flush-to-zero under every tininess reading.

mod common;

use common::exact::{model, Op, OPS};
use common::{case_count, operand, Rng};
use gpufp::{ieee, Format, Round, Rounding, Tininess, BF16, F16, F32, F64};
use rayon::prelude::*;

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
