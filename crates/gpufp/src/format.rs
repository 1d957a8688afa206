//! The four floating-point formats of PTX ISA 9.7.3/9.7.4 as bit patterns.
//!
//! A value of [`F16`], [`BF16`], [`F32`] or [`F64`] *is* its bit pattern: nothing here converts to
//! a host float. Every constant of a format follows from the two widths declared in
//! [`Format::EXP_BITS`] and [`Format::FRAC_BITS`], as in rustc_apfloat's semantics table.

use core::fmt;

/// The IEEE 754 category of a bit pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    Zero,
    Subnormal,
    Normal,
    Infinity,
    QuietNan,
    SignalingNan,
}

/// A binary interchange format, described by its field widths.
///
/// Implementors only name the widths, the canonical NaN and the conversions to and from `u64`;
/// everything else is derived.
pub trait Format: Copy + Eq + fmt::Debug + Send + Sync + 'static {
    /// The PTX type name (`f16`, `bf16`, `f32`, `f64`).
    const NAME: &'static str;
    /// Width of the exponent field.
    const EXP_BITS: u32;
    /// Width of the stored (trailing) significand field.
    const FRAC_BITS: u32;
    /// The NaN a PTX instruction returns when the manual calls for "canonical NaN"
    /// (f32 `0x7FFFFFFF`, f16/bf16 `0x7FFF`, f64 `0x7FFFFFFFFFFFFFFF`: docs/semantics.md).
    const CANONICAL_NAN: u64;

    /// Builds a value from the low `BITS` bits of `bits`; higher bits are ignored.
    fn from_bits(bits: u64) -> Self;
    /// The bit pattern, zero-extended.
    fn to_bits(self) -> u64;

    /// Total width in bits.
    const BITS: u32 = 1 + Self::EXP_BITS + Self::FRAC_BITS;
    /// Significand precision including the hidden bit.
    const PRECISION: u32 = Self::FRAC_BITS + 1;
    /// Exponent bias.
    const BIAS: i32 = (1 << (Self::EXP_BITS - 1)) - 1;
    /// Exponent of the smallest normal number.
    const EMIN: i32 = 1 - Self::BIAS;
    /// Exponent of the largest finite number.
    const EMAX: i32 = Self::BIAS;
    const SIGN_MASK: u64 = 1 << (Self::BITS - 1);
    const EXP_MASK: u64 = ((1 << Self::EXP_BITS) - 1) << Self::FRAC_BITS;
    const FRAC_MASK: u64 = (1 << Self::FRAC_BITS) - 1;
    /// The most significant trailing-significand bit: set in a quiet NaN.
    const QUIET_BIT: u64 = 1 << (Self::FRAC_BITS - 1);
    /// The bits of `+inf`.
    const INF: u64 = Self::EXP_MASK;
    /// The bits of the largest finite number.
    const MAX_FINITE: u64 = Self::EXP_MASK - 1;
    /// The bits of `1.0`.
    const ONE: u64 = (Self::BIAS as u64) << Self::FRAC_BITS;
    /// The bits of the smallest positive normal number, `2^EMIN`.
    const MIN_NORMAL: u64 = 1 << Self::FRAC_BITS;

    fn canonical_nan() -> Self {
        Self::from_bits(Self::CANONICAL_NAN)
    }
    fn infinity(negative: bool) -> Self {
        Self::from_bits(Self::INF | sign_bits::<Self>(negative))
    }
    fn zero(negative: bool) -> Self {
        Self::from_bits(sign_bits::<Self>(negative))
    }
    fn one() -> Self {
        Self::from_bits(Self::ONE)
    }
    fn sign(self) -> bool {
        self.to_bits() & Self::SIGN_MASK != 0
    }
    /// The biased exponent field.
    fn biased_exp(self) -> u64 {
        (self.to_bits() & Self::EXP_MASK) >> Self::FRAC_BITS
    }
    /// The trailing significand field.
    fn frac(self) -> u64 {
        self.to_bits() & Self::FRAC_MASK
    }
    fn class(self) -> Class {
        match (self.biased_exp(), self.frac()) {
            (0, 0) => Class::Zero,
            (0, _) => Class::Subnormal,
            (e, 0) if e == Self::EXP_MASK >> Self::FRAC_BITS => Class::Infinity,
            (e, f) if e == Self::EXP_MASK >> Self::FRAC_BITS => {
                if f & Self::QUIET_BIT != 0 {
                    Class::QuietNan
                } else {
                    Class::SignalingNan
                }
            }
            _ => Class::Normal,
        }
    }
    fn is_nan(self) -> bool {
        self.to_bits() & !Self::SIGN_MASK > Self::INF
    }
    fn is_signaling_nan(self) -> bool {
        self.class() == Class::SignalingNan
    }
    fn is_infinite(self) -> bool {
        self.to_bits() & !Self::SIGN_MASK == Self::INF
    }
    fn is_zero(self) -> bool {
        self.to_bits() & !Self::SIGN_MASK == 0
    }
    fn is_subnormal(self) -> bool {
        self.class() == Class::Subnormal
    }
    /// Neither NaN nor infinity.
    fn is_finite(self) -> bool {
        self.to_bits() & Self::EXP_MASK != Self::EXP_MASK
    }
    /// The same NaN with its quiet bit set; other values unchanged.
    fn quieted(self) -> Self {
        if self.is_nan() {
            Self::from_bits(self.to_bits() | Self::QUIET_BIT)
        } else {
            self
        }
    }
    /// The absolute value as a bit operation (sign cleared, NaN payload kept).
    fn abs_bits(self) -> Self {
        Self::from_bits(self.to_bits() & !Self::SIGN_MASK)
    }
    /// Negation as a bit operation (sign flipped, NaN payload kept).
    fn neg_bits(self) -> Self {
        Self::from_bits(self.to_bits() ^ Self::SIGN_MASK)
    }
}

fn sign_bits<F: Format>(negative: bool) -> u64 {
    if negative {
        F::SIGN_MASK
    } else {
        0
    }
}

macro_rules! format {
    ($(#[$doc:meta])* $name:ident($repr:ty), $ptx:literal, exp $e:literal, frac $f:literal, nan $nan:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name(pub $repr);

        impl Format for $name {
            const NAME: &'static str = $ptx;
            const EXP_BITS: u32 = $e;
            const FRAC_BITS: u32 = $f;
            const CANONICAL_NAN: u64 = $nan;
            fn from_bits(bits: u64) -> Self {
                // Truncation to the format's width is the documented behaviour.
                $name(bits as $repr)
            }
            fn to_bits(self) -> u64 {
                u64::from(self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}(0x{:0w$x})", $ptx, self.0, w = (<$name as Format>::BITS / 4) as usize)
            }
        }
    };
}

format!(
    /// IEEE 754 binary16 (PTX `.f16`).
    F16(u16), "f16", exp 5, frac 10, nan 0x7FFF
);
format!(
    /// bfloat16: binary32 with the low 16 significand bits dropped (PTX `.bf16`).
    BF16(u16), "bf16", exp 8, frac 7, nan 0x7FFF
);
format!(
    /// IEEE 754 binary32 (PTX `.f32`).
    F32(u32), "f32", exp 8, frac 23, nan 0x7FFF_FFFF
);
format!(
    /// IEEE 754 binary64 (PTX `.f64`).
    F64(u64), "f64", exp 11, frac 52, nan 0x7FFF_FFFF_FFFF_FFFF
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_constants() {
        assert_eq!(F32::ONE, 0x3F80_0000);
        assert_eq!(F32::INF, 0x7F80_0000);
        assert_eq!(F32::MAX_FINITE, 0x7F7F_FFFF);
        assert_eq!(F32::EMIN, -126);
        assert_eq!(F16::ONE, 0x3C00);
        assert_eq!(F16::INF, 0x7C00);
        assert_eq!(F16::EMIN, -14);
        assert_eq!(BF16::ONE, 0x3F80);
        assert_eq!(BF16::MAX_FINITE, 0x7F7F);
        assert_eq!(F64::ONE, 0x3FF0_0000_0000_0000);
        assert_eq!(F64::EMIN, -1022);
        assert_eq!(F64::QUIET_BIT, 1 << 51);
    }

    #[test]
    fn classification() {
        assert_eq!(F32(0x8000_0000).class(), Class::Zero);
        assert_eq!(F32(0x0000_0001).class(), Class::Subnormal);
        assert_eq!(F32(0x0080_0000).class(), Class::Normal);
        assert_eq!(F32(0xFF80_0000).class(), Class::Infinity);
        assert_eq!(F32(0x7FC0_0000).class(), Class::QuietNan);
        assert_eq!(F32(0xFF80_0001).class(), Class::SignalingNan);
        assert_eq!(F16(0x7C01).class(), Class::SignalingNan);
        assert_eq!(BF16(0x7FC0).class(), Class::QuietNan);
        assert!(F64(0xFFF8_0000_0000_0000).is_nan());
        assert!(F32::canonical_nan().is_nan());
        assert_eq!(F32(0xFF80_0001).quieted(), F32(0xFFC0_0001));
    }
}
