//! Operand values as `gpufp eval` and `gpufp batch` take them (DESIGN.md): raw bits `0x...` of
//! the operand's full width, PTX literals `0f...` / `0d...`, or decimal numbers (`1.5`, `-0.0`,
//! `1e-40`, `inf`, `-inf`, `nan`) converted to the operand type with round-to-nearest-even.

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

/// Parses one operand of type `ty`.
pub fn parse_value(text: &str, ty: Type) -> Result<u64, String> {
    let width = ty.bits();
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        let v = u64::from_str_radix(hex, 16)
            .map_err(|_| format!("`{text}` is not a hexadecimal bit pattern"))?;
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
            "`.{}` operands are given as raw bits `0x...` (lane 0 in the low half)",
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
        assert!(parse_value("0x1ffff", Type::F16)
            .unwrap_err()
            .contains("wider than the 16-bit"));
        assert!(parse_value("1.5", Type::F16x2).is_err());
        assert!(parse_value("0f3F80", Type::F32).is_err());
        assert!(parse_value("abc", Type::F32).is_err());
    }

    #[test]
    fn decoded_values() {
        assert_eq!(format_value(0x40A0_0000, Type::F32), "5");
        assert_eq!(format_value(0xBC00_3E00, Type::F16x2), "[1.5, -1]");
    }
}
