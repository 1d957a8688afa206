//! Decimal numbers (`1.5`, `-2.5e-3`) to a format, correctly rounded, with exact big-integer
//! arithmetic: no host float parsing.

use crate::format::Format;
use crate::round::{Round, Rounding, Unrounded};
use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};

/// An unsigned integer as the command line and files write counts, seeds and addresses:
/// decimal or `0x` hexadecimal, up to 128 bits.
pub fn parse_unsigned(text: &str) -> Option<u128> {
    match text.strip_prefix("0x") {
        Some(h) => u128::from_str_radix(h, 16).ok(),
        None => text.parse().ok(),
    }
}

/// Significant digits kept from a literal: every f64 rounding boundary (a representable value or
/// a midpoint) has at most 767, so digits past these can only tell that the value lies above
/// the kept ones, which one more nonzero digit says as well.
const KEEP: usize = 800;

/// The parts of `[-]digits[.digits][(e|E)[+-]digits]`: sign, the significant digits as one
/// integer (at most [`KEEP`] + 1 of them), their count, and the power of ten that scales them.
/// Exponents beyond `i64` saturate; the cost is linear in the text's length.
fn split(text: &str) -> Option<(bool, BigUint, usize, i64)> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], exponent(&body[i + 1..])?),
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = || int.bytes().chain(frac.bytes());
    if int.len() + frac.len() == 0 || !digits().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut sig: Vec<u8> = digits().skip_while(|&c| c == b'0').collect();
    let mut exp10 = exp.saturating_sub(frac.len() as i64);
    if sig.len() > KEEP {
        let sticky = sig[KEEP..].iter().any(|&c| c != b'0');
        exp10 = exp10.saturating_add((sig.len() - KEEP) as i64);
        sig.truncate(KEEP);
        if sticky {
            sig.push(b'1');
            exp10 = exp10.saturating_sub(1);
        }
    }
    let value = BigUint::parse_bytes(&sig, 10).unwrap_or_default();
    Some((neg, value, sig.len(), exp10))
}

/// A decimal exponent `[+-]digits`, saturated to `i64`.
fn exponent(text: &str) -> Option<i64> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let magnitude = digits.bytes().try_fold(0i64, |v, c| {
        v.checked_mul(10)?.checked_add(i64::from(c - b'0'))
    });
    Some(match (magnitude, neg) {
        (Some(m), true) => -m,
        (Some(m), false) => m,
        (None, true) => i64::MIN,
        (None, false) => i64::MAX,
    })
}

/// The top bits of `n` as a significand of at most 127 bits, lower bits jammed into bit 0.
fn to_unrounded(neg: bool, n: &BigUint, exp: i64) -> Unrounded {
    let bits = n.bits();
    let drop = bits.saturating_sub(127);
    let top = (n >> drop).to_u128().expect("at most 127 bits");
    let low_nonzero = n.trailing_zeros().is_some_and(|t| t < drop);
    Unrounded {
        sign: neg,
        exp: (exp + drop as i64) as i32,
        sig: top | u128::from(low_nonzero),
    }
}

/// Converts decimal text to `F`, rounded once in direction `round`; `None` if it is not a number.
///
/// Values beyond every format's range are clamped to a stand-in that rounds the same way (a huge
/// or tiny nonzero value), so exponents like `1e999999` cost nothing.
pub fn parse<F: Format>(text: &str, round: Round) -> Option<F> {
    let (neg, digits, count, exp10) = split(text)?;
    if digits.is_zero() {
        return Some(F::zero(neg));
    }
    let magnitude10 = exp10.saturating_add(count as i64);
    let r = Rounding::ieee(round);
    if magnitude10 > 400 {
        return Some(
            Unrounded {
                sign: neg,
                exp: 4096,
                sig: 1,
            }
            .round(r),
        );
    }
    if magnitude10 < -400 {
        return Some(
            Unrounded {
                sign: neg,
                exp: -4096,
                sig: 1,
            }
            .round(r),
        );
    }
    let v = if exp10 >= 0 {
        to_unrounded(neg, &(digits * BigUint::from(10u32).pow(exp10 as u32)), 0)
    } else {
        // digits / 10^k with at least 130 quotient bits, the remainder as a sticky bit.
        let den = BigUint::from(10u32).pow((-exp10) as u32);
        let shift = (130 + den.bits()).saturating_sub(digits.bits());
        let num = digits << shift;
        let q = &num / &den;
        let inexact = !(num % &den).is_zero();
        let mut u = to_unrounded(neg, &q, -(shift as i64));
        u.sig |= u128::from(inexact);
        u
    };
    Some(v.round(r))
}

/// The value of `x` in decimal with `digits` significant digits, correctly rounded to nearest
/// (`1.5`, `-0`, `6.1035156e-05`, `inf`, `nan`). Enough digits identify the value: 5 for f16,
/// 4 for bf16, 9 for f32 and 17 for f64 ([`round_trip_digits`]).
pub fn format<F: Format>(x: F) -> String {
    let sign = if x.sign() { "-" } else { "" };
    if x.is_nan() {
        return format!("{sign}nan");
    }
    if x.is_infinite() {
        return format!("{sign}inf");
    }
    if x.is_zero() {
        return format!("{sign}0");
    }
    let digits = round_trip_digits::<F>();
    let (mut sig, mut e) = (x.frac(), x.biased_exp() as i64);
    if e == 0 {
        e = 1;
    } else {
        sig |= 1 << F::FRAC_BITS;
    }
    let e2 = e - i64::from(F::BIAS) - i64::from(F::FRAC_BITS);
    let (num, den) = if e2 >= 0 {
        (BigUint::from(sig) << e2 as usize, BigUint::from(1u32))
    } else {
        (BigUint::from(sig), BigUint::from(1u32) << (-e2) as usize)
    };
    // Decimal exponent k with 10^k <= value < 10^(k+1): start from a bit-length estimate.
    let mut k = (num.bits() as i64 - den.bits() as i64) * 30103 / 100_000 - 1;
    let ten = BigUint::from(10u32);
    let ge_pow = |k: i64| {
        if k >= 0 {
            num >= &den * ten.pow(k as u32)
        } else {
            &num * ten.pow((-k) as u32) >= den
        }
    };
    while ge_pow(k + 1) {
        k += 1;
    }
    while !ge_pow(k) {
        k -= 1;
    }
    // m = round(value * 10^(digits - 1 - k)), ties to even.
    let scale = i64::from(digits) - 1 - k;
    let (n, d) = if scale >= 0 {
        (&num * ten.pow(scale as u32), den.clone())
    } else {
        (num.clone(), &den * ten.pow((-scale) as u32))
    };
    let (q, r) = (&n / &d, &n % &d);
    let twice = &r << 1u32;
    let mut m = q.clone();
    if twice > d || (twice == d && q.bit(0)) {
        m += 1u32;
    }
    let mut text = m.to_string();
    if text.len() > digits as usize {
        // Rounding carried into a new digit (9.99.. -> 10.0..).
        text.pop();
        k += 1;
    }
    let trimmed = text.trim_end_matches('0');
    let with_point = |int: &str, frac: &str| {
        if frac.is_empty() {
            format!("{sign}{int}")
        } else {
            format!("{sign}{int}.{frac}")
        }
    };
    match k {
        // Fixed notation from 1e-5 up to the digits shown; scientific beyond.
        0.. if k < i64::from(digits) => {
            let padded = format!("{trimmed:0<width$}", width = k as usize + 1);
            let (int, frac) = padded.split_at(k as usize + 1);
            with_point(int, frac)
        }
        -5..=-1 => format!("{sign}0.{}{trimmed}", "0".repeat((-k - 1) as usize)),
        _ => {
            let (head, tail) = trimmed.split_at(1);
            format!(
                "{}e{}{:02}",
                with_point(head, tail),
                if k < 0 { "-" } else { "+" },
                k.abs()
            )
        }
    }
}

/// Significant decimal digits that identify every value of `F`: `ceil(p log10 2) + 1`.
pub fn round_trip_digits<F: Format>() -> u32 {
    (F::PRECISION * 30103).div_ceil(100_000) + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{BF16, F16, F32, F64};

    #[test]
    fn unsigned_integers() {
        assert_eq!(parse_unsigned("0"), Some(0));
        assert_eq!(parse_unsigned("281474976710656"), Some(1 << 48));
        assert_eq!(parse_unsigned("0x10000000000000000"), Some(1 << 64));
        assert_eq!(parse_unsigned("0xffFF"), Some(0xFFFF));
        for bad in [
            "",
            "0x",
            "-1",
            "1.5",
            "0x1g",
            "1e3",
            "340282366920938463463374607431768211456",
        ] {
            assert_eq!(parse_unsigned(bad), None, "{bad}");
        }
    }

    /// Exponents at and past `i64`'s ends saturate instead of wrapping.
    #[test]
    fn huge_exponents() {
        let inf = Some(F32(0x7F80_0000));
        assert_eq!(parse::<F32>("1e9223372036854775807", Round::Rn), inf);
        assert_eq!(parse::<F32>("123.5e9223372036854775807", Round::Rn), inf);
        assert_eq!(parse::<F32>("1e99999999999999999999999", Round::Rn), inf);
        assert_eq!(
            parse::<F32>("1e9223372036854775807", Round::Rz),
            Some(F32(0x7F7F_FFFF))
        );
        let zero = Some(F32(0));
        assert_eq!(parse::<F32>("1e-9223372036854775808", Round::Rn), zero);
        assert_eq!(parse::<F32>("0.5e-9223372036854775808", Round::Rn), zero);
        assert_eq!(
            parse::<F32>("1e-99999999999999999999999", Round::Rp),
            Some(F32(1))
        );
        assert_eq!(
            parse::<F32>("-0e99999999999999999999999", Round::Rn),
            Some(F32(0x8000_0000))
        );
        assert_eq!(parse::<F32>("1e+5", Round::Rn), Some(F32(0x47C3_5000)));
        assert_eq!(parse::<F32>("1e", Round::Rn), None);
        assert_eq!(parse::<F32>("1e+", Round::Rn), None);
        assert_eq!(parse::<F32>("1e1.5", Round::Rn), None);
    }

    /// Digits past the kept ones decide only whether the value lies above them: a tie followed
    /// by a far nonzero digit rounds up, followed by zeros stays a tie.
    #[test]
    fn long_literals() {
        // 1 + 2^-24 is the tie between 1 and the next f32; 2^-24 = 5.9604644775390625e-8.
        let tie = "1.000000059604644775390625";
        assert_eq!(parse::<F32>(tie, Round::Rn), Some(F32(0x3F80_0000)));
        let zeros = "0".repeat(5000);
        let above = format!("{tie}{zeros}1");
        assert_eq!(parse::<F32>(&above, Round::Rn), Some(F32(0x3F80_0001)));
        assert_eq!(
            parse::<F32>(&format!("{tie}{zeros}"), Round::Rn),
            Some(F32(0x3F80_0000))
        );
        let below = format!("1.000000059604644775390624{}", "9".repeat(5000));
        assert_eq!(parse::<F32>(&below, Round::Rn), Some(F32(0x3F80_0000)));
        // Leading zeros are not significant digits.
        let lead = format!("{}{tie}", "0".repeat(5000));
        assert_eq!(parse::<F32>(&lead, Round::Rn), Some(F32(0x3F80_0000)));
        assert_eq!(
            parse::<F64>(&format!("0.{}1", "0".repeat(5000)), Round::Rp),
            Some(F64(1))
        );
    }

    /// The cost is linear in the literal's length: doubling a long literal does not quadruple
    /// its time (the bound leaves room for a noisy machine).
    #[test]
    fn linear_cost() {
        let time = |n: usize| {
            let text = format!("1.{}", "3".repeat(n));
            let t = std::time::Instant::now();
            for _ in 0..5 {
                assert_eq!(
                    parse::<F64>(&text, Round::Rn),
                    Some(F64(0x3FF5_5555_5555_5555))
                );
            }
            t.elapsed().as_secs_f64()
        };
        time(1 << 16);
        let (small, large) = (time(1 << 19), time(1 << 20));
        assert!(
            large < 3.0 * small + 0.01,
            "2^19 digits {small} s, 2^20 digits {large} s"
        );
    }

    #[test]
    fn simple_values() {
        assert_eq!(parse::<F32>("1.5", Round::Rn), Some(F32(0x3FC0_0000)));
        assert_eq!(parse::<F32>("-0.0", Round::Rn), Some(F32(0x8000_0000)));
        assert_eq!(
            parse::<F64>("0.1", Round::Rn),
            Some(F64(0x3FB9_9999_9999_999A))
        );
        assert_eq!(
            parse::<F64>("0.1", Round::Rz),
            Some(F64(0x3FB9_9999_9999_9999))
        );
        assert_eq!(parse::<F32>("3.14159", Round::Rn), Some(F32(0x4049_0FD0)));
        assert_eq!(parse::<F16>("65504", Round::Rn), Some(F16(0x7BFF)));
        assert_eq!(parse::<F16>("65520", Round::Rn), Some(F16(0x7C00)));
        assert_eq!(parse::<BF16>("1e-40", Round::Rn), Some(BF16(0x0001)));
        assert_eq!(parse::<F32>("1e-40", Round::Rn), Some(F32(0x0001_16C2)));
        assert_eq!(
            parse::<F64>("1e999999", Round::Rn),
            Some(F64(0x7FF0_0000_0000_0000))
        );
        assert_eq!(parse::<F64>("1e-999999", Round::Rp), Some(F64(1)));
        assert_eq!(
            parse::<F64>("4.9406564584124654e-324", Round::Rn),
            Some(F64(1))
        );
        assert_eq!(parse::<F32>("16777217", Round::Rn), Some(F32(0x4B80_0000)));
        assert_eq!(parse::<F32>("16777219", Round::Rn), Some(F32(0x4B80_0002)));
    }

    #[test]
    fn formats_exactly_rounded() {
        assert_eq!(format(F32(0x3FC0_0000)), "1.5");
        assert_eq!(format(F32(0xC0A0_0000)), "-5");
        assert_eq!(format(F32(0x3DCC_CCCD)), "0.100000001");
        assert_eq!(format(F32(0x4B80_0000)), "16777216");
        assert_eq!(format(F32(0x7F7F_FFFF)), "3.40282347e+38");
        assert_eq!(format(F32(1)), "1.40129846e-45");
        assert_eq!(format(F16(0x3555)), "0.33325");
        assert_eq!(format(F16(0x0001)), "5.9605e-08");
        assert_eq!(format(BF16(0x3F80)), "1");
        assert_eq!(format(F64(0x3FB9_9999_9999_999A)), "0.10000000000000001");
        assert_eq!(format(F32(0x8000_0000)), "-0");
        assert_eq!(format(F32(0xFF80_0000)), "-inf");
        assert_eq!(format(F32(0x7FFF_FFFF)), "nan");
        assert_eq!(round_trip_digits::<F16>(), 5);
        assert_eq!(round_trip_digits::<BF16>(), 4);
        assert_eq!(round_trip_digits::<F32>(), 9);
        assert_eq!(round_trip_digits::<F64>(), 17);
    }

    #[test]
    fn rejects_garbage() {
        for t in ["", "-", ".", "1.2.3", "1e", "abc", "1e5x", "--1", "0x10"] {
            assert_eq!(parse::<F32>(t, Round::Rn), None, "{t}");
        }
    }
}
