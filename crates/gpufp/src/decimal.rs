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
    fn rejects_garbage() {
        for t in ["", "-", ".", "1.2.3", "1e", "abc", "1e5x", "--1", "0x10"] {
            assert_eq!(parse::<F32>(t, Round::Rn), None, "{t}");
        }
    }
}
