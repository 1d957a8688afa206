//! The correctly rounded MUFU core against MPFR (via `rug`), and its f32 fast path against the
//! integer reference, bit for bit.
//!
//! MPFR rounds each function once into a precision chosen from the result's exponent: the
//! format's precision for normal results, fewer bits for subnormal ones, which is exactly IEEE
//! gradual underflow. `sin`/`cos` take their argument in revolutions: sin(2πx) is MPFR's
//! `sin_pi(2x)`, exact in its argument. Results are exactly representable in f64 and converted
//! to 16-bit formats by rustc_apfloat.

mod common;

use common::Rng;
use gpufp::mufu::{cr, fast, special_16, special_f32, special_f64_high, Op, Op16, Op64};
use gpufp::{Format, BF16, F16, F32};
use rug::Float;

/// The MPFR function for an operation, into a Float of precision `p`.
fn mpfr(op: Op, x: f64, p: u32) -> Float {
    let a = Float::with_val(64, x);
    let two_a = Float::with_val(64, x * 2.0);
    match op {
        Op::Rcp => Float::with_val(p, a.recip_ref()),
        Op::Rsq => Float::with_val(p, a.recip_sqrt_ref()),
        Op::Sqrt => Float::with_val(p, a.sqrt_ref()),
        Op::Ex2 => Float::with_val(p, a.exp2_ref()),
        Op::Lg2 => Float::with_val(p, a.log2_ref()),
        Op::Sin => Float::with_val(p, two_a.sin_pi_ref()),
        Op::Cos => Float::with_val(p, two_a.cos_pi_ref()),
        Op::Tanh => Float::with_val(p, a.tanh_ref()),
    }
}

/// `op(x)` correctly rounded to nearest even in a format with `m` fraction bits, minimum normal
/// exponent `emin` and maximum `emax`, as an f64 (exact). Exact zeros keep MPFR's sign.
fn oracle(op: Op, x: f64, m: u32, emin: i32, emax: i32) -> f64 {
    let wide = mpfr(op, x, 256);
    if wide.is_zero() || wide.is_infinite() {
        return wide.to_f64();
    }
    let neg = wide.is_sign_negative();
    let e = wide.get_exp().expect("finite nonzero") - 1; // value = 0.1xxx * 2^exp
    let p = if e >= emin {
        m as i32 + 1
    } else {
        m as i32 + 1 - (emin - e)
    };
    let tiny = f64::from_bits(((1023 + emin - m as i32) as u64) << 52); // smallest subnormal
    let v = if p >= 1 {
        mpfr(op, x, p as u32).to_f64()
    } else if p == 0 && wide.to_f64().abs() != tiny / 2.0 {
        // (tiny/2, tiny): above the halfway point; exactly tiny/2 (2^x at an integer) ties to 0.
        if neg {
            -tiny
        } else {
            tiny
        }
    } else if neg {
        -0.0
    } else {
        0.0
    };
    if v.abs() >= f64::from_bits(((1023 + emax + 1) as u64) << 52) {
        return if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    v
}

fn f32_oracle(op: Op, a: F32) -> F32 {
    let v = oracle(
        op,
        f64::from(f32::from_bits(a.to_bits() as u32)),
        23,
        -126,
        127,
    );
    F32::from_bits(u64::from((v as f32).to_bits()))
}

const OPS: [Op; 8] = [
    Op::Rcp,
    Op::Rsq,
    Op::Sqrt,
    Op::Ex2,
    Op::Lg2,
    Op::Sin,
    Op::Cos,
    Op::Tanh,
];

/// Inputs every operation is checked on: around 1, the normal range's ends, the exact cases
/// (integers, powers of two and four, multiples of 1/4 revolution), and huge sin/cos arguments.
fn edges() -> Vec<u32> {
    let mut v = vec![
        0x3F80_0000,
        0x3F80_0001,
        0x3F7F_FFFF,
        0x4000_0000,
        0x4080_0000,
        0x4040_0000,
        0x3F00_0000,
        0x3E80_0000,
        0x3EAA_AAAB,
        0x0080_0000,
        0x0080_0001,
        0x0100_0000,
        0x7F7F_FFFF,
        0x7F00_0000,
        0x7E80_0000,
        0x42FE_0000,
        0x4300_0000,
        0x42FF_FFFF,
        0xC2FC_0000,
        0xC2FE_0000,
        0xC315_0000,
        0xC316_0000,
        0x4B00_0001,
        0x4B00_0000,
        0x4AFF_FFFF,
        0x4EFF_FFFF,
        0x3FC0_0000,
        0x3F40_0000,
        0x4120_0000,
        0x41A0_0000,
        0x3A80_0000,
        0x3880_0000,
        0x3380_0000,
        0x3F7F_FFFE,
        0x3F80_0002,
        0x4110_0000,
        0x4116_0000,
        0x4120_0001,
    ];
    let more: Vec<u32> = v.iter().map(|b| b | 0x8000_0000).collect();
    v.extend(more);
    v
}

fn random_f32(rng: &mut Rng) -> u32 {
    common::operand::<F32>(rng).to_bits() as u32
}

/// The integer reference agrees with MPFR on every edge and on random arguments.
#[test]
fn f32_reference_matches_mpfr() {
    let mut rng = Rng(0x5EED_0005);
    let n = common::case_count(1500);
    for op in OPS {
        let mut inputs = edges();
        inputs.extend((0..n).map(|_| random_f32(&mut rng)));
        let mut checked = 0;
        for bits in inputs {
            let a = F32::from_bits(u64::from(bits));
            if special_f32(op, a).is_some() || a.is_subnormal() {
                continue;
            }
            let got = cr::f32(op, a);
            let want = f32_oracle(op, a);
            if want.is_zero() {
                // The function's exact zero (sin of a multiple of 1/2 revolution, cos of an odd
                // multiple of 1/4): this core returns +0 whatever MPFR's sign.
                assert_eq!(got, F32::zero(false), "{op:?}({bits:#010x})");
            } else {
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "{op:?}({bits:#010x}): core {:#010x}, MPFR {:#010x}",
                    got.to_bits(),
                    want.to_bits()
                );
            }
            checked += 1;
        }
        println!("{op:?}: {checked} arguments match MPFR");
        assert!(checked > n / 4, "{op:?}: too few arguments in the domain");
    }
}

/// The f32 fast path returns the reference's bits on the edges and on random arguments; how
/// often it defers to the reference is printed.
#[test]
fn f32_fast_path_matches_reference() {
    let mut rng = Rng(0xFA57_0005);
    let n = common::case_count(20_000);
    for op in OPS {
        let mut inputs = edges();
        inputs.extend((0..n).map(|_| random_f32(&mut rng)));
        // Uniform bit patterns in the positive normal range, where most arguments lie.
        inputs.extend((0..n).map(|_| 0x0080_0000 + (rng.next() as u32) % 0x7E80_0000));
        // Subnormal results: 2^x for x in [-150, -125), 1/x for x in [2^125, 2^128).
        inputs.extend((0..n / 4).map(|_| match op {
            Op::Ex2 => 0xC2FA_0000 + (rng.next() as u32) % 0x001C_0000,
            _ => 0x7E00_0000 + (rng.next() as u32) % 0x0180_0000,
        }));
        for bits in inputs {
            let a = F32::from_bits(u64::from(bits));
            if special_f32(op, a).is_some() || a.is_subnormal() {
                continue;
            }
            assert_eq!(fast::f32(op, a), cr::f32(op, a), "{op:?}({bits:#010x})");
        }
    }
}

/// The same on 2 * 10^6 random arguments per operation (about 30 s per operation on one core):
/// `cargo test --release -p gpufp --test mufu_cr -- --ignored --nocapture`.
#[test]
#[ignore]
fn f32_fast_path_matches_reference_at_scale() {
    use rayon::prelude::*;
    let n = common::case_count(2_000_000) as u64;
    for op in OPS {
        let results: Vec<Option<u32>> = (0..n)
            .into_par_iter()
            .filter_map(|i| {
                let bits = common::Rng(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ op as u64).next();
                let a = F32::from_bits(bits & 0xFFFF_FFFF);
                if special_f32(op, a).is_some() || a.is_subnormal() {
                    return None;
                }
                Some((fast::f32(op, a) != cr::f32(op, a)).then_some(bits as u32))
            })
            .collect();
        let bad: Vec<u32> = results.iter().flatten().copied().collect();
        println!(
            "{op:?}: {n} random bit patterns, {} in the domain compared, {} differ: {:x?}",
            results.len(),
            bad.len(),
            &bad[..bad.len().min(8)]
        );
        assert!(bad.is_empty());
    }
}

/// `RCP64H` and `RSQ64H` round to 21 significant bits; MPFR does the same at precision 21.
#[test]
fn f64_high_matches_mpfr() {
    let mut rng = Rng(0x64_0005);
    let mut words: Vec<u32> = (0..4000).map(|_| rng.next() as u32).collect();
    words.extend([
        0x3FF0_0000,
        0x3FF0_0001,
        0x3FEF_FFFF,
        0x0010_0000,
        0x7FEF_FFFF,
        0x7FD0_0000,
        0x7FC0_0001,
        0x4000_0000,
        0x4008_0000,
        0x8010_0000,
        0xFFEF_FFFF,
    ]);
    let mut checked = 0;
    for hi in words {
        for (op, f) in [(Op64::Rcp64h, Op::Rcp), (Op64::Rsq64h, Op::Rsq)] {
            if special_f64_high(op, hi).is_some() {
                continue;
            }
            let x = f64::from_bits(u64::from(hi) << 32);
            let v = mpfr(f, x, 21).to_f64();
            // Results below 2^-1022 are flushed to a signed zero.
            let v = if v.abs() < f64::MIN_POSITIVE {
                0.0f64.copysign(v)
            } else {
                v
            };
            let want = v.to_bits();
            assert_eq!(want as u32, 0, "21 bits fit the upper word");
            assert_eq!(
                cr::f64_high(op, hi),
                (want >> 32) as u32,
                "{op:?}({hi:#010x})"
            );
            checked += 1;
        }
    }
    assert!(checked > 3000);
}

fn half_exhaustive<F: Format>(bf16: bool) {
    let (m, emin, emax) = (F::FRAC_BITS, F::EMIN, F::EMAX);
    for (op16, op) in [(Op16::Ex2, Op::Ex2), (Op16::Tanh, Op::Tanh)] {
        let mut checked = 0;
        for bits in 0..1u64 << 16 {
            let a = F::from_bits(bits);
            if special_16(op16, a, false).is_some() {
                continue;
            }
            let want: F = common::exact_f64_to_half(oracle(op, bits_to_f64(a), m, emin, emax));
            assert_eq!(cr::half(op16, a), want, "{op16:?}({bits:#06x}) bf16={bf16}");
            checked += 1;
        }
        assert!(checked > 60_000);
    }
}

/// The exact value of a 16-bit pattern as an f64, through rustc_apfloat.
fn bits_to_f64<F: Format>(a: F) -> f64 {
    use rustc_apfloat::ieee::{BFloat, Double, Half};
    use rustc_apfloat::{Float as _, FloatConvert};
    let mut lost = false;
    let d: Double = if F::EXP_BITS == 5 {
        FloatConvert::convert(Half::from_bits(u128::from(a.to_bits() as u16)), &mut lost).value
    } else {
        FloatConvert::convert(BFloat::from_bits(u128::from(a.to_bits() as u16)), &mut lost).value
    };
    f64::from_bits(d.to_bits() as u64)
}

/// Every f16 and bf16 argument of `ex2` and `tanh`.
#[test]
fn half_reference_matches_mpfr_on_every_input() {
    half_exhaustive::<F16>(false);
    half_exhaustive::<BF16>(true);
}

/// The oracle's rounding at the edges of f32's range: gradual underflow and overflow.
#[test]
fn oracle_sanity() {
    assert_eq!(
        oracle(Op::Ex2, 0.5, 23, -126, 127),
        f64::from(std::f32::consts::SQRT_2)
    );
    assert_eq!(
        oracle(Op::Ex2, -149.0, 23, -126, 127),
        f64::from(f32::from_bits(1))
    );
    assert_eq!(oracle(Op::Ex2, -150.5, 23, -126, 127), 0.0);
    assert_eq!(oracle(Op::Ex2, 128.0, 23, -126, 127), f64::INFINITY);
}

/// A dyadic as an MPFR number (exact at 2,000 bits, more than any enclosure here holds).
fn dyadic_to_mpfr(d: &gpufp::mufu::real::Dyadic) -> Float {
    let sig = Float::with_val(2000, Float::parse(d.sig.to_string()).expect("an integer"));
    sig << i32::try_from(d.exp).expect("a moderate exponent")
}

/// `real::enclose` for every function, radians included (the bound checks use those): MPFR's
/// value at 400 bits lies in [lo, hi], and hi - lo is within the requested relative precision.
#[test]
fn enclosures_contain_mpfr_values() {
    use gpufp::mufu::real::{enclose, Dyadic, Func};
    let mut rng = Rng(0xE4C1_0005);
    let funcs = [
        Func::Rcp,
        Func::Rsqrt,
        Func::Sqrt,
        Func::Ex2,
        Func::Lg2,
        Func::SinRev,
        Func::CosRev,
        Func::Sin,
        Func::Cos,
        Func::Tanh,
    ];
    for f in funcs {
        let mut xs: Vec<u32> = edges();
        xs.extend((0..300).map(|_| random_f32(&mut rng)));
        // Radian arguments near multiples of π/2, where sin or cos nearly vanishes.
        xs.extend([
            0x4049_0FDB,
            0x40C9_0FDB,
            0x3FC9_0FDB,
            0x4096_CBE4,
            0x439D_13C3,
            0x4B49_0FDB,
        ]);
        for bits in xs {
            let a = F32::from_bits(u64::from(bits));
            if !a.is_finite() || (f == Func::Ex2 && f32::from_bits(bits).abs() > 1000.0) {
                continue;
            }
            let x = Dyadic::from_format(a);
            for prec in [60u32, 200] {
                let Some((lo, hi)) = enclose(f, &x, prec) else {
                    continue;
                };
                let v = f64::from(f32::from_bits(bits));
                let a = Float::with_val(64, v);
                let t = match f {
                    Func::Rcp => Float::with_val(400, a.recip_ref()),
                    Func::Rsqrt => Float::with_val(400, a.recip_sqrt_ref()),
                    Func::Sqrt => Float::with_val(400, a.sqrt_ref()),
                    Func::Ex2 => Float::with_val(400, a.exp2_ref()),
                    Func::Lg2 => Float::with_val(400, a.log2_ref()),
                    Func::SinRev => Float::with_val(400, Float::with_val(64, v * 2.0).sin_pi_ref()),
                    Func::CosRev => Float::with_val(400, Float::with_val(64, v * 2.0).cos_pi_ref()),
                    Func::Sin => Float::with_val(400, a.sin_ref()),
                    Func::Cos => Float::with_val(400, a.cos_ref()),
                    Func::Tanh => Float::with_val(400, a.tanh_ref()),
                };
                let (l, h) = (dyadic_to_mpfr(&lo), dyadic_to_mpfr(&hi));
                assert!(
                    l <= t && t <= h,
                    "{f:?}({bits:#010x}) at {prec}: {t} outside [{l}, {h}]"
                );
                let width = Float::with_val(2000, &h - &l);
                let allowed = Float::with_val(2000, t.abs_ref()) >> prec as i32;
                assert!(width <= allowed, "{f:?}({bits:#010x}) at {prec}: too wide");
            }
        }
    }
}
