//! Operand generators shared by the oracle tests: a counter-free SplitMix64 stream and bit
//! patterns biased toward the cases where floating-point implementations go wrong.
#![allow(dead_code)] // each test binary uses a different part of this module

pub mod exact;

use gpufp::{Format, Round};
use rustc_apfloat::Round as ApRound;

/// A PTX rounding modifier as rustc_apfloat's rounding direction.
pub fn ap_round(r: Round) -> ApRound {
    match r {
        Round::Rn => ApRound::NearestTiesToEven,
        Round::Rz => ApRound::TowardZero,
        Round::Rm => ApRound::TowardNegative,
        Round::Rp => ApRound::TowardPositive,
    }
}

/// SplitMix64: small, seedable, and good enough to spread test cases.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// How many random cases each (operation, format, rounding) triple gets: `GPUFP_CASES` or the
/// given default.
pub fn case_count(default: usize) -> usize {
    std::env::var("GPUFP_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// A significand field from patterns that exercise rounding: all zeros, all ones, a single bit,
/// halfway-looking tails, or random.
fn frac_pattern<F: Format>(rng: &mut Rng) -> u64 {
    let m = F::FRAC_MASK;
    let r = rng.next() & m;
    match rng.below(8) {
        0 => 0,
        1 => m,
        2 => 1 << rng.below(u64::from(F::FRAC_BITS)),
        3 => m ^ (1 << rng.below(u64::from(F::FRAC_BITS))),
        4 => r & !((1 << rng.below(u64::from(F::FRAC_BITS))) - 1),
        5 => r | ((1 << rng.below(u64::from(F::FRAC_BITS))) - 1),
        _ => r,
    }
}

/// A biased exponent field: near the bottom (subnormal, smallest normals), near the top
/// (overflow thresholds), near 1.0, or anywhere.
fn exp_pattern<F: Format>(rng: &mut Rng) -> u64 {
    let top = (1u64 << F::EXP_BITS) - 1; // inf/NaN
    let bias = F::BIAS as u64;
    match rng.below(8) {
        0 => 0,
        1 => 1 + rng.below(3),
        2 => top - 1 - rng.below(3),
        3 => top,
        4 | 5 => bias - 4 + rng.below(8),
        _ => rng.below(top + 1),
    }
}

/// A random bit pattern of `F`, biased toward zeros, subnormals, the normal/subnormal boundary,
/// overflow thresholds, infinities and NaNs (quiet and signalling, with payloads).
pub fn operand<F: Format>(rng: &mut Rng) -> F {
    let sign = rng.next() & 1;
    let bits = match rng.below(16) {
        0 => rng.next(),
        1 => 0,
        2 => F::MIN_NORMAL + rng.below(5) - 2,
        3 => F::MAX_FINITE - rng.below(3),
        _ => (exp_pattern::<F>(rng) << F::FRAC_BITS) | frac_pattern::<F>(rng),
    };
    F::from_bits((bits & !F::SIGN_MASK) | (sign << (F::BITS - 1)))
}

/// An operand near `x` in bits (a few ulps away, either sign).
pub fn near<F: Format>(rng: &mut Rng, x: F) -> F {
    let delta = rng.below(9);
    let bits = x.to_bits();
    let moved = if rng.next() & 1 == 0 {
        bits.wrapping_add(delta)
    } else {
        bits.wrapping_sub(delta)
    };
    F::from_bits(moved)
}

/// An f64 exactly representable in f16 or bf16 (`F`) as `F`, converted by rustc_apfloat.
pub fn exact_f64_to_half<F: Format>(v: f64) -> F {
    use rustc_apfloat::ieee::{BFloat, Double, Half};
    use rustc_apfloat::{Float as _, FloatConvert};
    let d = Double::from_bits(u128::from(v.to_bits()));
    let mut lost = false;
    let bits = if F::EXP_BITS == 5 {
        FloatConvert::<Half>::convert(d, &mut lost).value.to_bits()
    } else {
        FloatConvert::<BFloat>::convert(d, &mut lost)
            .value
            .to_bits()
    };
    assert!(!lost, "{v} is not exact in {}", F::NAME);
    F::from_bits(bits as u64)
}
