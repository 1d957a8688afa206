//! Every IEEE operation of the core, in every format and rounding mode, against rustc_apfloat
//! (LLVM's APFloat): bit for bit, NaN payloads and zero signs included.
//!
//! rustc_apfloat has no notion of PTX's canonical NaN, so the expected NaN is derived here from the
//! IEEE 754 §6.2.3 rule the core implements: the first NaN operand quieted, or, when an invalid
//! operation has no NaN operand, the format's canonical NaN. Every other result is apfloat's.

mod common;

use common::{ap_round, case_count, near, operand, Rng};
use gpufp::{ieee, Format, Round, Rounding, BF16, F16, F32, F64};
use rayon::prelude::*;
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::Float;

/// The IEEE operations rustc_apfloat implements.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Fma,
    Rcp,
}

const OPS: [Op; 6] = [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Fma, Op::Rcp];

fn model<F: Format>(op: Op, a: F, b: F, c: F, r: Round) -> F {
    let r = Rounding::ieee(r);
    match op {
        Op::Add => ieee::add(a, b, r),
        Op::Sub => ieee::sub(a, b, r),
        Op::Mul => ieee::mul(a, b, r),
        Op::Div => ieee::div(a, b, r),
        Op::Fma => ieee::fma(a, b, c, r),
        Op::Rcp => ieee::rcp(a, r),
    }
}

fn oracle<F: Format, A: Float>(op: Op, a: F, b: F, c: F, r: Round) -> F {
    let ap = |x: F| A::from_bits(u128::from(x.to_bits()));
    let rr = ap_round(r);
    let (x, y, z) = (ap(a), ap(b), ap(c));
    let (result, nan_inputs) = match op {
        Op::Add => (x.add_r(y, rr).value, vec![a, b]),
        Op::Sub => (x.sub_r(y, rr).value, vec![a, b]),
        Op::Mul => (x.mul_r(y, rr).value, vec![a, b]),
        Op::Div => (x.div_r(y, rr).value, vec![a, b]),
        Op::Fma => (x.mul_add_r(y, z, rr).value, vec![a, b, c]),
        Op::Rcp => (ap(F::one()).div_r(x, rr).value, vec![a]),
    };
    if let Some(first) = nan_inputs.iter().find(|x| x.is_nan()) {
        F::from_bits(first.to_bits() | F::QUIET_BIT)
    } else if result.is_nan() {
        F::canonical_nan()
    } else {
        F::from_bits(result.to_bits() as u64)
    }
}

/// Operands for one case: mostly independent biased patterns; for fma, often an addend built to
/// cancel the product almost exactly.
fn case<F: Format>(op: Op, rng: &mut Rng) -> (F, F, F) {
    let a = operand::<F>(rng);
    let b = if rng.below(4) == 0 {
        near(rng, a)
    } else {
        operand::<F>(rng)
    };
    let c = if op == Op::Fma && rng.below(2) == 0 {
        let p: F = model(Op::Mul, a, b, a, Round::ALL[rng.below(4) as usize]);
        near(rng, p.neg_bits())
    } else {
        operand::<F>(rng)
    };
    (a, b, c)
}

fn check_random<F: Format, A: Float>(cases: usize, seed: u64) {
    let failures: Vec<String> = OPS
        .par_iter()
        .flat_map(|&op| Round::ALL.par_iter().map(move |&r| (op, r)))
        .flat_map_iter(|(op, r)| {
            let mut rng = Rng(seed ^ (op as u64) << 8 ^ r as u64);
            let mut bad = Vec::new();
            for _ in 0..cases {
                let (a, b, c) = case::<F>(op, &mut rng);
                let got = model(op, a, b, c, r);
                let want = oracle::<F, A>(op, a, b, c, r);
                if got != want && bad.len() < 5 {
                    bad.push(format!(
                        "{op:?}.{r:?} {a:?} {b:?} {c:?}: got {got:?}, want {want:?}"
                    ));
                }
            }
            bad
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn f16_random() {
    check_random::<F16, Half>(case_count(200_000), 16);
}

#[test]
fn bf16_random() {
    check_random::<BF16, BFloat>(case_count(200_000), 0xBF16);
}

#[test]
fn f32_random() {
    check_random::<F32, Single>(case_count(1_000_000), 32);
}

#[test]
fn f64_random() {
    check_random::<F64, Double>(case_count(1_000_000), 64);
}

/// Unary operations are cheap to check exhaustively for 16-bit formats in every mode.
#[test]
fn exhaustive_16bit_rcp_every_mode() {
    fn run<F: Format, A: Float>() {
        for r in Round::ALL {
            for bits in 0..=0xFFFFu64 {
                let a = F::from_bits(bits);
                assert_eq!(
                    model(Op::Rcp, a, a, a, r),
                    oracle::<F, A>(Op::Rcp, a, a, a, r),
                    "rcp.{r:?} {a:?}"
                );
            }
        }
    }
    run::<F16, Half>();
    run::<BF16, BFloat>();
}
