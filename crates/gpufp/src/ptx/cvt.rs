//! The float-to-float `cvt` forms and the float `setp` comparisons that the manual's example blocks
//! use around the floating-point instructions. The rules relied on from the PTX ISA `cvt`
//! and `setp` sections are quoted above each function.

use super::instr::Type;
use crate::format::{Format, BF16, F16, F32, F64};
use crate::ieee;
use crate::policy::Policies;
use crate::round::Round;
use crate::steps;

/// A float-to-float conversion: `cvt{.rnd}{.relu}{.ftz}{.sat}.dtype.atype`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cvt {
    pub rnd: Option<Round>,
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    /// Destination type: f16, bf16, f32, f64, or the packed f16x2 / bf16x2.
    pub dtype: Type,
    /// Source type: f16, bf16, f32 or f64 (f32 for the packed forms).
    pub atype: Type,
}

/// Whether every value of `a` is exactly a value of `d` (a widening conversion).
fn exact(d: Type, a: Type) -> bool {
    let (dp, ap) = (precision(d), precision(a));
    let (de, ae) = (exp_bits(d), exp_bits(a));
    dp >= ap && de >= ae
}

fn precision(t: Type) -> u32 {
    match t.lane() {
        Type::F16 => F16::PRECISION,
        Type::Bf16 => BF16::PRECISION,
        Type::F32 => F32::PRECISION,
        _ => F64::PRECISION,
    }
}

fn exp_bits(t: Type) -> u32 {
    match t.lane() {
        Type::F16 => F16::EXP_BITS,
        Type::Bf16 => BF16::EXP_BITS,
        Type::F32 => F32::EXP_BITS,
        _ => F64::EXP_BITS,
    }
}

impl Cvt {
    /// Checks the modifier combination against the PTX ISA `cvt` syntax:
    ///
    /// ```text
    /// cvt{.frnd}{.ftz}{.sat}.dtype.atype         d, a;  // fp rounding
    /// cvt.frnd2{.relu}{.satfinite}.f16.f32       d, a;
    /// cvt.frnd2{.relu}{.satfinite}.f16x2.f32     d, a, b;
    /// cvt.frnd2{.relu}{.satfinite}.bf16.f32      d, a;
    /// cvt.frnd2{.relu}{.satfinite}.bf16x2.f32    d, a, b;
    /// .frnd2 = { .rn, .rz };
    /// ```
    ///
    /// and "Floating-point rounding is required for float-to-float conversions that result in loss
    /// of precision". A rounding modifier on an exact (widening) conversion, and `cvt` between
    /// equal types (rounding to an integer), are not modelled and rejected here.
    pub fn check(&self) -> Result<(), String> {
        let (d, a) = (self.dtype, self.atype);
        let name = format!("cvt.{}.{}", d.name(), a.name());
        if a.lanes() > 1 || d == Type::F32x2 {
            return Err(format!(
                "`{name}` is not a float-to-float conversion gpufp models"
            ));
        }
        if d.lanes() > 1 && a != Type::F32 {
            return Err(format!(
                "`{name}`: the packed forms convert two `.f32` values"
            ));
        }
        if d == a {
            return Err(format!(
                "`{name}` rounds to an integer value; gpufp run does not model it"
            ));
        }
        let exact = d.lanes() == 1 && exact(d, a);
        match self.rnd {
            None if !exact => {
                return Err(format!(
                    "`{name}` loses precision and requires a rounding modifier (.rn, .rz, .rm, .rp)"
                ))
            }
            Some(r) if exact => {
                return Err(format!(
                    "`{name}` is exact; gpufp run takes it without a rounding modifier (got .{})",
                    r.ptx_name()
                ))
            }
            _ => {}
        }
        let half_from_f32 = d.is_half() && a == Type::F32;
        if self.relu && !half_from_f32 {
            return Err(format!(
                "`.relu` exists only for cvt to .f16, .f16x2, .bf16, .bf16x2 from .f32, not `{name}`"
            ));
        }
        let frnd2 = matches!(self.rnd, Some(Round::Rn | Round::Rz));
        if (d.is_bf16() || d.lanes() > 1 || self.relu) && !frnd2 {
            return Err(format!("`{name}` takes only .rn or .rz (.frnd2)"));
        }
        if (d.is_bf16() || d.lanes() > 1 || self.relu) && (self.ftz || self.sat) {
            return Err(format!("`{name}` (.frnd2 form) takes no .ftz or .sat"));
        }
        Ok(())
    }

    /// The lowest target with this form: the bf16, packed and `.relu` forms came with `sm_80`
    /// (PTX ISA `cvt`, Target ISA Notes, paraphrased); the others exist on every `sm_20` target.
    pub fn min_sm(&self) -> u32 {
        if self.dtype.is_bf16() || self.dtype.lanes() > 1 || self.relu {
            80
        } else {
            20
        }
    }

    /// Converts the source operands (one, or two for a packed destination).
    ///
    /// PTX ISA `cvt`: "For `.f16x2` and `.bf16x2` instruction type, two inputs `a` and `b` of
    /// `.f32` type are converted into `.f16` or `.bf16` type and the converted values are packed
    /// in the destination register `d`, such that the value converted from input `a` is stored in
    /// the upper half of `d` and the value converted from input `b` is stored in the lower half".
    pub fn apply(&self, srcs: &[u64], policies: &Policies) -> u64 {
        if self.dtype.lanes() > 1 {
            let one = Cvt {
                dtype: self.dtype.lane(),
                ..*self
            };
            return one.scalar(srcs[0], policies) << 16 | one.scalar(srcs[1], policies);
        }
        self.scalar(srcs[0], policies)
    }

    fn scalar(&self, a: u64, policies: &Policies) -> u64 {
        match self.atype {
            Type::F16 => self.from::<F16>(F16::from_bits(a), policies),
            Type::Bf16 => self.from::<BF16>(BF16::from_bits(a), policies),
            Type::F32 => self.from::<F32>(F32::from_bits(a), policies),
            _ => self.from::<F64>(F64::from_bits(a), policies),
        }
    }

    fn from<A: Format>(&self, a: A, policies: &Policies) -> u64 {
        match self.dtype {
            Type::F16 => self.convert::<A, F16>(a, policies).to_bits(),
            Type::Bf16 => self.convert::<A, BF16>(a, policies).to_bits(),
            Type::F32 => self.convert::<A, F32>(a, policies).to_bits(),
            _ => self.convert::<A, F64>(a, policies).to_bits(),
        }
    }

    /// PTX ISA `cvt` (paraphrased): `.ftz` flushes subnormal `.f32` inputs and results to
    /// sign-preserving zero; `.sat` clamps the result to [0.0, 1.0], a NaN result becoming +0.0;
    /// `.relu` clamps a negative result to 0 and makes a NaN result the canonical NaN. Other NaN
    /// results follow the destination format's NaN rule (canonical for f16, bf16 and f32,
    /// docs/semantics.md; f64 by the `f64_nan` policy).
    fn convert<A: Format, D: Format>(&self, a: A, policies: &Policies) -> D {
        let a = if self.ftz && A::BITS == 32 {
            steps::ftz(a)
        } else {
            a
        };
        let round = self.rnd.unwrap_or(Round::Rn);
        let ftz_out = self.ftz && D::BITS == 32;
        let d: D = ieee::convert(a, steps::rounding(round, ftz_out, policies));
        let d = steps::nan_rule(d, policies);
        if self.sat {
            steps::saturate(d)
        } else if self.relu {
            steps::relu(d, policies)
        } else {
            d
        }
    }
}

/// A `setp` comparison operator on floating-point values (PTX ISA `setp`: `.CmpOp = { eq, ne,
/// lt, le, gt, ge, equ, neu, ltu, leu, gtu, geu, num, nan }`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

impl CmpOp {
    pub const ALL: [(&'static str, CmpOp); 14] = [
        ("eq", CmpOp::Eq),
        ("ne", CmpOp::Ne),
        ("lt", CmpOp::Lt),
        ("le", CmpOp::Le),
        ("gt", CmpOp::Gt),
        ("ge", CmpOp::Ge),
        ("equ", CmpOp::Equ),
        ("neu", CmpOp::Neu),
        ("ltu", CmpOp::Ltu),
        ("leu", CmpOp::Leu),
        ("gtu", CmpOp::Gtu),
        ("geu", CmpOp::Geu),
        ("num", CmpOp::Num),
        ("nan", CmpOp::Nan),
    ];
}

/// The position of a non-NaN value on the number line, as an integer: the magnitude bits with
/// the sign applied, so that `-0` and `+0` compare equal.
fn order_key<F: Format>(x: F) -> i128 {
    let mag = i128::from(x.abs_bits().to_bits());
    if x.sign() {
        -mag
    } else {
        mag
    }
}

fn compare<F: Format>(op: CmpOp, a: F, b: F, ftz: bool) -> bool {
    let (a, b) = if ftz {
        (steps::ftz(a), steps::ftz(b))
    } else {
        (a, b)
    };
    let unordered = a.is_nan() || b.is_nan();
    let (x, y) = (order_key(a), order_key(b));
    // PTX ISA `setp` (paraphrased): an ordered comparison is false if either operand is NaN;
    // the `u` (unordered) ones are true then; `num` is true when both are numbers, `nan` when
    // either is NaN.
    match op {
        CmpOp::Eq => !unordered && x == y,
        CmpOp::Ne => !unordered && x != y,
        CmpOp::Lt => !unordered && x < y,
        CmpOp::Le => !unordered && x <= y,
        CmpOp::Gt => !unordered && x > y,
        CmpOp::Ge => !unordered && x >= y,
        CmpOp::Equ => unordered || x == y,
        CmpOp::Neu => unordered || x != y,
        CmpOp::Ltu => unordered || x < y,
        CmpOp::Leu => unordered || x <= y,
        CmpOp::Gtu => unordered || x > y,
        CmpOp::Geu => unordered || x >= y,
        CmpOp::Num => !unordered,
        CmpOp::Nan => unordered,
    }
}

/// `setp.CmpOp{.ftz}.type`: compares `a` and `b` of the scalar float type `ty`.
pub fn setp(op: CmpOp, ty: Type, ftz: bool, a: u64, b: u64) -> bool {
    match ty {
        Type::F16 => compare(op, F16::from_bits(a), F16::from_bits(b), ftz),
        Type::Bf16 => compare(op, BF16::from_bits(a), BF16::from_bits(b), ftz),
        Type::F32 => compare(op, F32::from_bits(a), F32::from_bits(b), ftz),
        _ => compare(op, F64::from_bits(a), F64::from_bits(b), ftz),
    }
}
