//! Every rule the manual leaves open, as one named value each (docs/semantics.md).
//!
//! [`Policies::default`] is the model's decision; [`POLICIES`] says for each one what the
//! alternatives are, what the evidence is, and whether a GPU has confirmed it. `docs/semantics.md`
//! is the same table in prose, and a test keeps the two in step.

use crate::round::Tininess;

/// How `f64` operations choose a NaN result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum F64Nan {
    /// IEEE 754 §6.2.3: the first NaN operand (a, b, c order), quieted, sign and payload kept;
    /// an invalid operation without NaN operands gives `0x7FFFFFFFFFFFFFFF`.
    FirstOperandQuieted,
    /// Every NaN result is `0x7FFFFFFFFFFFFFFF`, as for f32.
    Canonical,
}

/// What `.relu` does with a `-0.0` result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReluNegativeZero {
    /// `-0.0` becomes `+0.0`, like every other non-positive result.
    ToPositiveZero,
    /// `-0.0` is not negative and stays.
    Keep,
}

/// What half-precision min/max without `.NaN` return when both inputs are NaN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HalfMinMaxBothNan {
    /// The canonical NaN `0x7FFF`.
    Canonical,
    /// The pseudo-code read literally: operand `b`.
    SecondOperand,
}

/// Which NaN test guards `.xorsign` in the half-precision `max` pseudo-code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HalfMaxXorsignGuard {
    /// `!isNaN(d[i])`, as in `min` and the f32 pages: the manual's `fA[i]` read as a typo.
    Result,
    /// `!isNaN(fA[i])`, the pseudo-code read literally.
    FirstOperand,
}

/// How `mad.f32` computes on `sm_1x` targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sm1xMad {
    /// The product truncated (RZ) to 24 significant bits with an unbounded exponent, then added
    /// with `.rn`; f32 inputs and result flushed.
    TruncatedProduct,
}

/// Which source Intel vISA min/max returns when the two compare equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VisaEqualOperands {
    /// The compare's natural tie rule: `min` returns src1, `max` returns src0.
    CompareTieRule,
}

/// The model's choice for every open rule. `Policies::default()` is what `gpufp` uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Policies {
    /// §3.1: when an `.ftz` result counts as subnormal.
    pub ftz_tininess: Tininess,
    /// §3.2: which NaN an f64 operation returns.
    pub f64_nan: F64Nan,
    /// §3.3: `.relu` of `-0.0`.
    pub relu_negative_zero: ReluNegativeZero,
    /// §3.4: the "OOB NaN" bit pattern that `.oob` tests each 16-bit operand lane against.
    pub oob_nan: u16,
    /// §3.5: half min/max without `.NaN` when both inputs are NaN.
    pub half_minmax_both_nan: HalfMinMaxBothNan,
    /// §2: the NaN test guarding `.xorsign` in half-precision `max`.
    pub half_max_xorsign_guard: HalfMaxXorsignGuard,
    /// §3.6: `mad.f32` on `sm_1x`.
    pub sm1x_mad: Sm1xMad,
    /// §3.7: whether f32 instructions flush subnormal inputs and results on `sm_1x` without `.ftz`.
    pub sm1x_f32_flush: bool,
    /// §6: vISA min/max of equal operands (signed zeros).
    pub visa_equal_operands: VisaEqualOperands,
}

impl Default for Policies {
    fn default() -> Self {
        Policies {
            ftz_tininess: Tininess::UnboundedRounded,
            f64_nan: F64Nan::FirstOperandQuieted,
            relu_negative_zero: ReluNegativeZero::ToPositiveZero,
            oob_nan: 0x7FFF,
            half_minmax_both_nan: HalfMinMaxBothNan::Canonical,
            half_max_xorsign_guard: HalfMaxXorsignGuard::Result,
            sm1x_mad: Sm1xMad::TruncatedProduct,
            sm1x_f32_flush: true,
            visa_equal_operands: VisaEqualOperands::CompareTieRule,
        }
    }
}

/// Each selectable policy's values, in the order `gpufp eval` lists alternatives: one list
/// serves [`Policies::alternatives`] and [`Policies::set`].
const FTZ_TININESS: [Tininess; 3] = [
    Tininess::IeeeRounded,
    Tininess::BeforeRounding,
    Tininess::UnboundedRounded,
];
const F64_NAN: [F64Nan; 2] = [F64Nan::FirstOperandQuieted, F64Nan::Canonical];
const RELU_NEGATIVE_ZERO: [ReluNegativeZero; 2] =
    [ReluNegativeZero::ToPositiveZero, ReluNegativeZero::Keep];
const HALF_MINMAX_BOTH_NAN: [HalfMinMaxBothNan; 2] = [
    HalfMinMaxBothNan::Canonical,
    HalfMinMaxBothNan::SecondOperand,
];
const HALF_MAX_XORSIGN_GUARD: [HalfMaxXorsignGuard; 2] = [
    HalfMaxXorsignGuard::Result,
    HalfMaxXorsignGuard::FirstOperand,
];
const SM1X_F32_FLUSH: [bool; 2] = [true, false];
const SM1X_MAD: [Sm1xMad; 1] = [Sm1xMad::TruncatedProduct];
const VISA_EQUAL_OPERANDS: [VisaEqualOperands; 1] = [VisaEqualOperands::CompareTieRule];

impl Policies {
    /// Every single-policy deviation from `self`: the policy's name, the alternative value, and
    /// the policies with that one value changed. `gpufp eval` uses it to say when a result
    /// depends on an unverified decision.
    pub fn alternatives(&self) -> Vec<(&'static str, String, Policies)> {
        let mut out = Vec::new();
        let mut add = |name: &'static str, value: String, p: Policies| {
            if p != *self {
                out.push((name, value, p));
            }
        };
        let me = *self;
        for v in FTZ_TININESS {
            let p = Policies {
                ftz_tininess: v,
                ..me
            };
            add("ftz_tininess", format!("{v:?}"), p);
        }
        for v in F64_NAN {
            add("f64_nan", format!("{v:?}"), Policies { f64_nan: v, ..me });
        }
        for v in RELU_NEGATIVE_ZERO {
            let p = Policies {
                relu_negative_zero: v,
                ..me
            };
            add("relu_negative_zero", format!("{v:?}"), p);
        }
        for v in HALF_MINMAX_BOTH_NAN {
            let p = Policies {
                half_minmax_both_nan: v,
                ..me
            };
            add("half_minmax_both_nan", format!("{v:?}"), p);
        }
        for v in HALF_MAX_XORSIGN_GUARD {
            let p = Policies {
                half_max_xorsign_guard: v,
                ..me
            };
            add("half_max_xorsign_guard", format!("{v:?}"), p);
        }
        for v in SM1X_F32_FLUSH {
            let p = Policies {
                sm1x_f32_flush: v,
                ..me
            };
            add("sm1x_f32_flush", format!("{v:?}"), p);
        }
        out
    }

    /// Selects `value` for the policy `name` (the names and values of [`POLICIES`] and
    /// docs/semantics.md; values match without regard to case). `mufu_core` is not a field
    /// here: a core is chosen with the context ([`crate::ptx::Context::core`]).
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        fn pick<T: Copy + core::fmt::Debug>(
            name: &str,
            value: &str,
            all: &[T],
        ) -> Result<T, String> {
            all.iter()
                .copied()
                .find(|v| format!("{v:?}").eq_ignore_ascii_case(value))
                .ok_or_else(|| {
                    let names: Vec<String> = all.iter().map(|v| format!("`{v:?}`")).collect();
                    format!(
                        "`{value}` is not a value of policy `{name}`; it takes {}",
                        names.join(", ")
                    )
                })
        }
        match name {
            "ftz_tininess" => self.ftz_tininess = pick(name, value, &FTZ_TININESS)?,
            "f64_nan" => self.f64_nan = pick(name, value, &F64_NAN)?,
            "relu_negative_zero" => {
                self.relu_negative_zero = pick(name, value, &RELU_NEGATIVE_ZERO)?
            }
            "oob_nan" => {
                self.oob_nan = value
                    .strip_prefix("0x")
                    .or_else(|| value.strip_prefix("0X"))
                    .filter(|h| !h.is_empty() && h.len() <= 4)
                    .and_then(|h| u16::from_str_radix(h, 16).ok())
                    .ok_or_else(|| {
                        format!(
                            "`{value}` is not a value of policy `oob_nan`; it takes a 16-bit \
                             pattern `0xHHHH`"
                        )
                    })?
            }
            "half_minmax_both_nan" => {
                self.half_minmax_both_nan = pick(name, value, &HALF_MINMAX_BOTH_NAN)?
            }
            "half_max_xorsign_guard" => {
                self.half_max_xorsign_guard = pick(name, value, &HALF_MAX_XORSIGN_GUARD)?
            }
            "sm1x_mad" => self.sm1x_mad = pick(name, value, &SM1X_MAD)?,
            "sm1x_f32_flush" => self.sm1x_f32_flush = pick(name, value, &SM1X_F32_FLUSH)?,
            "visa_equal_operands" => {
                self.visa_equal_operands = pick(name, value, &VISA_EQUAL_OPERANDS)?
            }
            "mufu_core" => {
                return Err(
                    "policy `mufu_core` is not selected by value: the correctly rounded core is \
                     the default, and a fitted core is given by its tables (`--sfu-tables`)"
                        .into(),
                )
            }
            _ => {
                let names: Vec<String> = POLICIES.iter().map(|p| format!("`{}`", p.name)).collect();
                return Err(format!(
                    "unknown policy `{name}`; the policies are {}",
                    names.join(", ")
                ));
            }
        }
        Ok(())
    }

    /// Each field's name and value as [`Policies::set`] takes them, in [`POLICIES`] order.
    pub fn values(&self) -> Vec<(&'static str, String)> {
        vec![
            ("ftz_tininess", format!("{:?}", self.ftz_tininess)),
            ("f64_nan", format!("{:?}", self.f64_nan)),
            (
                "relu_negative_zero",
                format!("{:?}", self.relu_negative_zero),
            ),
            ("oob_nan", format!("0x{:04X}", self.oob_nan)),
            (
                "half_minmax_both_nan",
                format!("{:?}", self.half_minmax_both_nan),
            ),
            (
                "half_max_xorsign_guard",
                format!("{:?}", self.half_max_xorsign_guard),
            ),
            ("sm1x_mad", format!("{:?}", self.sm1x_mad)),
            ("sm1x_f32_flush", format!("{:?}", self.sm1x_f32_flush)),
            (
                "visa_equal_operands",
                format!("{:?}", self.visa_equal_operands),
            ),
        ]
    }

    /// Every value policy `name` takes, as [`Policies::set`] takes them; `None` for `oob_nan`,
    /// which takes any 16-bit pattern `0xHHHH`, and for a name that is no selectable policy.
    pub fn choices(name: &str) -> Option<Vec<String>> {
        fn names<T: core::fmt::Debug>(all: &[T]) -> Option<Vec<String>> {
            Some(all.iter().map(|v| format!("{v:?}")).collect())
        }
        match name {
            "ftz_tininess" => names(&FTZ_TININESS),
            "f64_nan" => names(&F64_NAN),
            "relu_negative_zero" => names(&RELU_NEGATIVE_ZERO),
            "half_minmax_both_nan" => names(&HALF_MINMAX_BOTH_NAN),
            "half_max_xorsign_guard" => names(&HALF_MAX_XORSIGN_GUARD),
            "sm1x_mad" => names(&SM1X_MAD),
            "sm1x_f32_flush" => names(&SM1X_F32_FLUSH),
            "visa_equal_operands" => names(&VISA_EQUAL_OPERANDS),
            _ => None,
        }
    }

    /// Applies `NAME=VALUE` selections in turn ([`Policies::set`]).
    pub fn with<'a>(
        mut self,
        selections: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Policies, String> {
        for (name, value) in selections {
            self.set(name, value)?;
        }
        Ok(self)
    }
}

/// Whether hardware has confirmed a decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Measured on a GPU by this project.
    Verified,
    /// Decided from the manual, ptxas's output or its constant folder; not yet measured.
    Unverified,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Verified => "verified",
            Status::Unverified => "unverified",
        }
    }
}

/// One open rule: its field in [`Policies`] (and its heading in docs/semantics.md), the default,
/// the evidence behind it and its status.
#[derive(Clone, Copy, Debug)]
pub struct PolicyInfo {
    pub name: &'static str,
    pub default: &'static str,
    pub evidence: &'static str,
    pub status: Status,
}

/// The documented list of policies, in docs/semantics.md order.
pub const POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "ftz_tininess",
        default: "UnboundedRounded",
        evidence: "ptxas 13.5 constant-folds mul.ftz.f32 0x3F7FFFFF*0x00800000 to +0 and \
                   0x3F7FFFFE*0x00800001 to 0x00800000, which only reading (c) gives",
        status: Status::Unverified,
    },
    PolicyInfo {
        name: "f64_nan",
        default: "FirstOperandQuieted",
        evidence: "IEEE 754 §6.2.3; DADD/DMUL/DFMA lowering; min/max.f64 with two NaNs returns b \
                   quieted (ptxas's SASS)",
        status: Status::Unverified,
    },
    PolicyInfo {
        name: "relu_negative_zero",
        default: "ToPositiveZero",
        evidence: "manual: .relu clamps negative results to 0; -0 read as clamped",
        status: Status::Unverified,
    },
    PolicyInfo {
        name: "oob_nan",
        default: "0x7FFF",
        evidence: "manual defers OOB NaN to the Tensors section; canonical NaN assumed",
        status: Status::Unverified,
    },
    PolicyInfo {
        name: "half_minmax_both_nan",
        default: "Canonical",
        evidence:
            "f16/bf16 NaN results measured canonical for .NaN; pseudo-code literally returns b",
        status: Status::Unverified,
    },
    PolicyInfo {
        name: "half_max_xorsign_guard",
        default: "Result",
        evidence: "half max pseudo-code tests !isNaN(fA[i]); min and the f32 pages test d[i]",
        status: Status::Unverified,
    },
    PolicyInfo {
        name: "sm1x_mad",
        default: "TruncatedProduct",
        evidence: "manual: mad.f32 on sm_1x truncates the mantissa of the product; legacy, no \
                   hardware available",
        status: Status::Unverified,
    },
    PolicyInfo {
        name: "sm1x_f32_flush",
        default: "true",
        evidence: "manual 9.7.3: single-precision instructions flush subnormals on sm_1x",
        status: Status::Unverified,
    },
    PolicyInfo {
        name: "mufu_core",
        default: "correctly-rounded",
        evidence: "contract level: within every manual bound; hardware cores are not documented",
        status: Status::Unverified,
    },
    PolicyInfo {
        name: "visa_equal_operands",
        default: "CompareTieRule",
        evidence: "vISA MIN_MAX is sel.l / sel.ge; signed zeros not specified",
        status: Status::Unverified,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every alternative `alternatives` offers can be selected by its name and value, and an
    /// unknown name or value is refused with the choices.
    #[test]
    fn set_selects_every_alternative() {
        let d = Policies::default();
        for (name, value, p) in d.alternatives() {
            let mut q = d;
            q.set(name, &value).unwrap();
            assert_eq!(q, p, "{name}={value}");
            q.set(name, &value.to_ascii_lowercase()).unwrap();
            assert_eq!(q, p, "{name}={value} in lower case");
        }
        let mut q = d;
        q.set("oob_nan", "0x7E00").unwrap();
        assert_eq!(q.oob_nan, 0x7E00);
        for info in POLICIES {
            if info.name != "mufu_core" {
                let mut q = d;
                q.set(info.name, info.default).unwrap();
                assert_eq!(q, d, "{}", info.name);
            }
        }
        let e = d.with([("ftz_tininess", "Sometimes")]).unwrap_err();
        assert!(e.contains("`IeeeRounded`"), "{e}");
        let e = d.with([("tininess", "IeeeRounded")]).unwrap_err();
        assert!(
            e.contains("unknown policy `tininess`") && e.contains("`f64_nan`"),
            "{e}"
        );
        assert!(d.with([("oob_nan", "0x10000")]).is_err());
        assert!(d.with([("oob_nan", "32767")]).is_err());
        assert!(d.with([("mufu_core", "correctly-rounded")]).is_err());
    }

    /// The table's defaults are the defaults the code uses.
    #[test]
    fn table_matches_default() {
        let mut actual = Policies::default().values();
        // Not a `Policies` field: a core may carry tables, so `ptx::Context::core` holds it.
        let core = crate::ptx::Context::default().core.get().name();
        actual.insert(actual.len() - 1, ("mufu_core", core));
        assert_eq!(actual.len(), POLICIES.len());
        for (info, (name, value)) in POLICIES.iter().zip(actual) {
            assert_eq!(info.name, name);
            assert_eq!(info.default, value, "default of {name}");
        }
    }
}
