//! Decimal numbers (`1.5`, `-2.5e-3`) to a format, correctly rounded, with exact big-integer
//! arithmetic: no host float parsing.

use crate::format::Format;
use crate::round::{Round, Rounding, Unrounded};
use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};

/// The parts of `[-]digits[.digits][(e|E)[+-]digits]`: sign, all digits as one integer, and the
/// power of ten that scales it.
fn split(text: &str) -> Option<(bool, BigUint, i64)> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i64>().ok()?),
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = || int.chars().chain(frac.chars());
    if int.len() + frac.len() == 0 || !digits().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut value = BigUint::zero();
    for c in digits() {
        value = value * 10u32 + c.to_digit(10)?;
    }
    Some((neg, value, exp.checked_sub(frac.len() as i64)?))
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
    let (neg, digits, exp10) = split(text)?;
    if digits.is_zero() {
        return Some(F::zero(neg));
    }
    let magnitude10 = exp10 + digits.to_string().len() as i64;
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
