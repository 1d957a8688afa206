//! Operand values as `gpufp eval` and `gpufp batch` take them (README.md): raw bits `0x...` of
//! the operand's full width, PTX literals `0f...` / `0d...`, or decimal numbers (`1.5`, `-0.0`,
//! `1e-40`, `inf`, `-inf`, `nan`) converted to the operand type with round-to-nearest-even; a
//! packed operand also as its lanes, `{lane0, lane1}`, each in one of those forms.

use super::instr::Type;
use crate::decimal;
use crate::format::{Format, BF16, F16, F32, F64};
use crate::ieee;
use crate::round::{Round, Rounding};

/// A value of the scalar type `ty` from a format `F` value, rounded to nearest even.
fn convert_to<F: Format>(x: F, ty: Type) -> u64 {
    let r = Rounding::ieee(Round::Rn);
    match ty {
        Type::F32 => ieee::convert::<F, F32>(x, r).to_bits(),
        Type::F64 => ieee::convert::<F, F64>(x, r).to_bits(),
        Type::F16 => ieee::convert::<F, F16>(x, r).to_bits(),
        _ => ieee::convert::<F, BF16>(x, r).to_bits(),
    }
}

fn from_decimal(text: &str, ty: Type) -> Option<u64> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let special = match body.to_ascii_lowercase().as_str() {
        "inf" | "infinity" => Some(F64::infinity(neg)),
        "nan" => Some(F64::from_bits(
            F64::CANONICAL_NAN | if neg { F64::SIGN_MASK } else { 0 },
        )),
        _ => None,
    };
    if let Some(s) = special {
        // A NaN becomes the canonical NaN of the type, sign kept.
        if s.is_nan() {
            let nan = match ty {
                Type::F32 => F32::CANONICAL_NAN | (u64::from(neg) << 31),
                Type::F64 => s.to_bits(),
                _ => 0x7FFF | (u64::from(neg) << 15),
            };
            return Some(nan);
        }
        return Some(convert_to(s, ty));
    }
    match ty {
        Type::F32 => decimal::parse::<F32>(text, Round::Rn).map(|x| x.to_bits()),
        Type::F64 => decimal::parse::<F64>(text, Round::Rn).map(|x| x.to_bits()),
        Type::F16 => decimal::parse::<F16>(text, Round::Rn).map(|x| x.to_bits()),
        _ => decimal::parse::<BF16>(text, Round::Rn).map(|x| x.to_bits()),
    }
}

/// A host `f64` value (its bits) as an operand of type `ty`: IEEE 754 convertFormat to the lane
/// type, rounded to nearest even, a NaN keeping its sign and the top of its payload, quieted (as
/// numpy's `astype` converts); unchanged for `f64`. A packed type gets the value in every lane.
pub fn from_f64(bits: u64, ty: Type) -> u64 {
    let lane = match ty.lane() {
        Type::F64 => bits,
        t => convert_to(F64::from_bits(bits), t),
    };
    match ty.lanes() {
        1 => lane,
        _ => lane | lane << (ty.bits() / 2),
    }
}

/// Parses one operand of type `ty`.
pub fn parse_value(text: &str, ty: Type) -> Result<u64, String> {
    let width = ty.bits();
    if ty.lanes() > 1 {
        if let Some(body) = text.strip_prefix('{') {
            return parse_lanes(text, body, ty);
        }
    }
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        let v = u64::from_str_radix(hex, 16)
            .map_err(|_| format!("`{text}` is not a hexadecimal bit pattern"))?;
        // A packed operand's bits name every lane: a short pattern would zero the upper lanes
        // without saying so.
        let full = (width / 4) as usize;
        if ty.lanes() > 1 && hex.len() < full {
            return Err(format!(
                "`{text}` has {} hex digits; a `.{}` operand's bits have {full} (lane 0 in the \
                 low half), or give its lanes `{{lane0, lane1}}`",
                hex.len(),
                ty.name()
            ));
        }
        if width < 64 && v >> width != 0 {
            return Err(format!(
                "`{text}` is wider than the {width}-bit `.{}` operand",
                ty.name()
            ));
        }
        return Ok(v);
    }
    if ty.lanes() > 1 {
        return Err(format!(
            "`.{}` operands are given as raw bits `0x...` (lane 0 in the low half) or as lanes \
             `{{lane0, lane1}}`",
            ty.name()
        ));
    }
    let lower = text.to_ascii_lowercase();
    let hex = |digits: &str, n: usize| {
        (digits.len() == n)
            .then(|| u64::from_str_radix(digits, 16).ok())
            .flatten()
    };
    if let Some(d) = lower.strip_prefix("0f") {
        let v = hex(d, 8).ok_or_else(|| format!("`{text}`: an `0f` literal has 8 hex digits"))?;
        return Ok(convert_to(F32::from_bits(v), ty));
    }
    if let Some(d) = lower.strip_prefix("0d") {
        let v = hex(d, 16).ok_or_else(|| format!("`{text}`: an `0d` literal has 16 hex digits"))?;
        return Ok(convert_to(F64::from_bits(v), ty));
    }
    from_decimal(text, ty)
        .ok_or_else(|| format!("`{text}` is not a number, `0x` bit pattern or `0f`/`0d` literal"))
}

/// A packed operand written as its lanes, `{lane0, lane1}` (`body` is `text` after the `{`).
fn parse_lanes(text: &str, body: &str, ty: Type) -> Result<u64, String> {
    let inner = body
        .strip_suffix('}')
        .ok_or_else(|| format!("`{text}`: lanes end with `}}`"))?;
    let lanes: Vec<&str> = inner.split(',').map(str::trim).collect();
    if lanes.len() != 2 {
        return Err(format!(
            "`{text}`: a `.{}` operand has 2 lanes, got {}",
            ty.name(),
            lanes.len()
        ));
    }
    let w = ty.bits() / 2;
    let mut bits = 0;
    for (k, lane) in lanes.iter().enumerate() {
        let v = parse_value(lane, ty.lane()).map_err(|e| format!("lane {k}: {e}"))?;
        bits |= v << (k as u32 * w);
    }
    Ok(bits)
}

/// The decoded value of a result of type `ty`, lanes as `[lane0, lane1]`.
pub fn format_value(bits: u64, ty: Type) -> String {
    let lane = |b: u64| match ty.lane() {
        Type::F32 => decimal::format(F32::from_bits(b)),
        Type::F64 => decimal::format(F64::from_bits(b)),
        Type::F16 => decimal::format(F16::from_bits(b)),
        _ => decimal::format(BF16::from_bits(b)),
    };
    if ty.lanes() == 1 {
        return lane(bits);
    }
    let w = ty.bits() / 2;
    let mask = (1u64 << w) - 1;
    format!("[{}, {}]", lane(bits & mask), lane((bits >> w) & mask))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operand_forms() {
        assert_eq!(parse_value("0x3f800000", Type::F32), Ok(0x3F80_0000));
        assert_eq!(parse_value("1.5", Type::F16), Ok(0x3E00));
        assert_eq!(parse_value("-0.0", Type::Bf16), Ok(0x8000));
        assert_eq!(parse_value("1e-40", Type::F32), Ok(0x0001_16C2));
        assert_eq!(parse_value("inf", Type::F64), Ok(0x7FF0_0000_0000_0000));
        assert_eq!(parse_value("-inf", Type::F16), Ok(0xFC00));
        assert_eq!(parse_value("nan", Type::F32), Ok(0x7FFF_FFFF));
        assert_eq!(
            parse_value("0f3F800000", Type::F64),
            Ok(0x3FF0_0000_0000_0000)
        );
        assert_eq!(parse_value("0d3FF8000000000000", Type::F16), Ok(0x3E00));
        assert_eq!(parse_value("0x3c003c00", Type::F16x2), Ok(0x3C00_3C00));
        assert_eq!(parse_value("0x00003c00", Type::F16x2), Ok(0x3C00));
        assert!(parse_value("0x3c00", Type::F16x2)
            .unwrap_err()
            .contains("has 4 hex digits; a `.f16x2` operand's bits have 8"));
        assert!(parse_value("0x3f800000", Type::F32x2).is_err());
        assert_eq!(parse_value("0x1", Type::F32), Ok(1));
        assert!(parse_value("0x1ffff", Type::F16)
            .unwrap_err()
            .contains("wider than the 16-bit"));
        assert!(parse_value("1.5", Type::F16x2).is_err());
        assert_eq!(parse_value("{1.5, -2}", Type::F16x2), Ok(0xC000_3E00));
        assert_eq!(
            parse_value("{0x3f800000,0f40000000}", Type::F32x2),
            Ok(0x4000_0000_3F80_0000)
        );
        assert_eq!(parse_value("{1, 1}", Type::Bf16x2), Ok(0x3F80_3F80));
        assert!(parse_value("{1.5}", Type::F16x2)
            .unwrap_err()
            .contains("2 lanes, got 1"));
        assert!(parse_value("{1, 2, 3}", Type::F16x2).is_err());
        assert!(parse_value("{1, 2", Type::F16x2).is_err());
        assert!(parse_value("{1, 0x10000}", Type::F16x2)
            .unwrap_err()
            .contains("lane 1"));
        assert!(parse_value("{1, 2}", Type::F16).is_err());
        assert!(parse_value("0f3F80", Type::F32).is_err());
        assert!(parse_value("abc", Type::F32).is_err());
    }

    /// Host values convert once, to nearest even, with NaN payloads kept as `cvt` keeps them.
    #[test]
    fn host_values() {
        // 1 + 2^-11 is the tie between 1 and 1 + 2^-10 in f16: even is 1.
        assert_eq!(from_f64(0x3FF0_0200_0000_0000, Type::F16), 0x3C00);
        assert_eq!(from_f64(0x3FF0_0200_0000_0001, Type::F16), 0x3C01);
        // 2^-25 is the tie between 0 and the least f16 subnormal: even is +0.
        assert_eq!(from_f64(0x3E60_0000_0000_0000, Type::F16), 0x0000);
        assert_eq!(from_f64(0x3E60_0000_0000_0001, Type::F16), 0x0001);
        assert_eq!(
            from_f64(0x7FF4_0000_0000_0001, Type::F64),
            0x7FF4_0000_0000_0001
        );
        assert_eq!(from_f64(0xFFF8_0000_0000_0000, Type::F32), 0xFFC0_0000);
        assert_eq!(from_f64(0x3FF0_0000_0000_0000, Type::Bf16x2), 0x3F80_3F80);
    }

    #[test]
    fn decoded_values() {
        assert_eq!(format_value(0x40A0_0000, Type::F32), "5");
        assert_eq!(format_value(0xBC00_3E00, Type::F16x2), "[1.5, -1]");
    }
}
