//! The PTX steps around an IEEE operation, in the order the manual applies them:
//! flush inputs -> operation -> NaN rule of the format -> `.sat` / `.relu`.
//!
//! Output flushing happens inside the rounding ([`crate::round::Subnormals`]) because two of the
//! three tininess readings need the exact, unrounded result.

use crate::format::Format;
use crate::policy::{F64Nan, Policies, ReluNegativeZero};
use crate::round::{Round, Rounding};

/// PTX ISA 9.7.3: "`.ftz` ... flushing subnormal inputs and results to sign-preserving zero".
///
/// As an input step: a subnormal operand becomes a zero of the same sign; all else is unchanged.
pub fn ftz<F: Format>(x: F) -> F {
    if x.is_subnormal() {
        F::zero(x.sign())
    } else {
        x
    }
}

/// The rounding of an instruction with rounding modifier `round`, with or without `.ftz`, under
/// the tininess reading of `policies`.
pub fn rounding(round: Round, ftz: bool, policies: &Policies) -> Rounding {
    if ftz {
        Rounding::ftz(round, policies.ftz_tininess)
    } else {
        Rounding::ieee(round)
    }
}

/// PTX ISA 9.7.3.3: "`add.sat.f32` clamps the result to [0.0, 1.0]. `NaN` results are flushed to
/// `+0.0f`." A `-0.0` result also becomes `+0.0` (ptxas folds `add.sat.f32(-0, -0)` to `+0`).
pub fn saturate<F: Format>(x: F) -> F {
    if x.is_nan() || x.sign() {
        F::zero(false)
    } else if x.to_bits() > F::ONE {
        F::one()
    } else {
        x
    }
}

/// PTX ISA 9.7.4.4: "`fma.relu` ... clamps the result to 0 if negative. `NaN` result is converted
/// to canonical `NaN`." What `-0.0` becomes is [`Policies::relu_negative_zero`].
pub fn relu<F: Format>(x: F, policies: &Policies) -> F {
    if x.is_nan() {
        F::canonical_nan()
    } else if x.is_zero() && policies.relu_negative_zero == ReluNegativeZero::Keep {
        x
    } else if x.sign() {
        F::zero(false)
    } else {
        x
    }
}

/// PTX ISA 9.7.3: "Single-precision instructions return an unspecified `NaN`"; the GPU returns
/// the canonical NaN of the format (docs/semantics.md).
pub fn canonicalize_nan<F: Format>(x: F) -> F {
    if x.is_nan() {
        F::canonical_nan()
    } else {
        x
    }
}

/// The NaN rule of a format's arithmetic results: f32, f16 and bf16 canonicalise; f64 keeps
/// payloads ("`NaN` payloads are supported for double-precision instructions") as
/// [`Policies::f64_nan`] says.
pub fn nan_rule<F: Format>(x: F, policies: &Policies) -> F {
    if F::BITS == 64 && policies.f64_nan == F64Nan::FirstOperandQuieted {
        x
    } else {
        canonicalize_nan(x)
    }
}

/// PTX ISA 9.7.4.4: "`fma.oob` ... clamps the result to 0 if either of the operands is `OOB NaN`".
/// Whether any of `operands` is the OOB NaN of [`Policies::oob_nan`].
pub fn is_oob<F: Format>(operands: &[F], policies: &Policies) -> bool {
    operands
        .iter()
        .any(|x| F::BITS == 16 && x.to_bits() == u64::from(policies.oob_nan))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{BF16, F16, F32, F64};

    #[test]
    fn saturate_clamps_and_flushes_nan_and_negative_zero() {
        assert_eq!(saturate(F32(0x7FC0_0000)), F32(0)); // NaN -> +0
        assert_eq!(saturate(F32(0xFFFF_FFFF)), F32(0)); // -NaN -> +0
        assert_eq!(saturate(F32(0x8000_0000)), F32(0)); // -0 -> +0
        assert_eq!(saturate(F32(0xBF80_0000)), F32(0)); // -1 -> +0
        assert_eq!(saturate(F32(0x3F80_0001)), F32(0x3F80_0000)); // 1+ulp -> 1
        assert_eq!(saturate(F32(0x7F80_0000)), F32(0x3F80_0000)); // inf -> 1
        assert_eq!(saturate(F32(0x3F7F_FFFF)), F32(0x3F7F_FFFF));
        assert_eq!(saturate(F16(0x0001)), F16(0x0001));
    }

    #[test]
    fn relu_policy() {
        let p = Policies::default();
        assert_eq!(relu(F16(0x8000), &p), F16(0));
        assert_eq!(relu(F16(0xBC00), &p), F16(0));
        assert_eq!(relu(F16(0xFE00), &p), F16(0x7FFF));
        assert_eq!(relu(BF16(0x3F80), &p), BF16(0x3F80));
        let keep = Policies {
            relu_negative_zero: ReluNegativeZero::Keep,
            ..p
        };
        assert_eq!(relu(F16(0x8000), &keep), F16(0x8000));
        assert_eq!(relu(F16(0x8001), &keep), F16(0));
    }

    #[test]
    fn nan_rules_per_format() {
        let p = Policies::default();
        assert_eq!(nan_rule(F32(0xFFC0_0001), &p), F32(0x7FFF_FFFF));
        assert_eq!(nan_rule(BF16(0xFFC1), &p), BF16(0x7FFF));
        assert_eq!(
            nan_rule(F64(0xFFF8_0000_0000_0001), &p),
            F64(0xFFF8_0000_0000_0001)
        );
        let canonical = Policies {
            f64_nan: F64Nan::Canonical,
            ..p
        };
        assert_eq!(
            nan_rule(F64(0xFFF8_0000_0000_0001), &canonical),
            F64(0x7FFF_FFFF_FFFF_FFFF)
        );
    }

    #[test]
    fn input_flush_keeps_sign() {
        assert_eq!(ftz(F32(0x8000_0001)), F32(0x8000_0000));
        assert_eq!(ftz(F32(0x007F_FFFF)), F32(0));
        assert_eq!(ftz(F32(0x0080_0000)), F32(0x0080_0000));
        assert_eq!(ftz(F16(0x83FF)), F16(0x8000));
    }

    #[test]
    fn oob_matches_policy_value_only() {
        let p = Policies::default();
        assert!(is_oob(&[F16(0x3C00), F16(0x7FFF)], &p));
        assert!(!is_oob(&[F16(0x7E00), F16(0xFFFF)], &p));
    }
}
