//! Evaluating an instruction on operand bit patterns: dispatch to the instruction families, lane by
//! lane for packed types, with an optional trace of the rules that decided the result.

use super::instr::{Instr, Opcode, Type};
use super::validate::Target;
use super::{approx, arith, minmax, sign, testp};
use crate::format::{Format, BF16, F16, F32, F64};
use crate::mufu::{CoreRef, Op, Op16, Op64};
use crate::policy::Policies;
use core::fmt;

/// Where an instruction runs: the target (for `sm_1x` semantics), the policies in force, and
/// the special-function-unit core behind `.approx` instructions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Context {
    pub target: Option<Target>,
    pub policies: Policies,
    pub core: CoreRef,
}

impl Context {
    /// Whether the target is an `sm_1x` one, where f32 semantics differ (policies `sm1x_mad`,
    /// `sm1x_f32_flush`).
    pub fn sm1x(&self) -> bool {
        self.target.is_some_and(|t| t.sm < 20)
    }
}

/// A rule that decided (part of) a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Source operand `n` (0-based) was subnormal and flushed to a signed zero.
    InputFlushed(u8),
    /// The result was tiny and flushed to a signed zero (`.ftz` under the tininess policy).
    OutputFlushed,
    /// The NaN result became the canonical NaN of the format.
    NanCanonicalized,
    /// The NaN result is an operand's NaN, quieted (f64 payload propagation).
    NanPropagated,
    /// `.sat` clamped the result into [+0, 1].
    Saturated,
    /// `.relu` turned a negative (or NaN) result into +0 (or the canonical NaN).
    Relu,
    /// `.oob`: source operand `n` is the OOB NaN, so the result is +0.
    Oob(u8),
    /// min/max: the result's sign is the XOR of the inputs' signs.
    Xorsign,
    /// min/max: the result is NaN, so `.xorsign` and `.abs` are ignored.
    XorsignIgnored,
    /// min/max: one input is NaN and the other is returned.
    OtherOperand,
    /// `sm_1x`: f32 subnormals are flushed without `.ftz`.
    Sm1xFlush,
    /// `sm_1x` `mad.f32`: the product is truncated to 24 bits before the addition.
    Sm1xTruncatedProduct,
    /// The special-function-unit operation, computed by the named core.
    Mufu(Op, String),
    /// The f64 high-word special-function-unit operation, computed by the named core.
    Mufu64(Op64, String),
    /// The 16-bit special-function-unit operation, computed by the named core.
    Mufu16(Op16, String),
    /// The approximate instruction's glue scaled operands or result around the MUFU operation.
    ApproxScaled(&'static str),
    /// `rsqrt.approx.f64` on an input that is not a positive normal number: the slow path.
    ApproxSlowPath,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = ["a", "b", "c"];
        match self {
            Rule::InputFlushed(n) => write!(
                f,
                "input {} subnormal, flushed to zero (.ftz)",
                names[usize::from(*n) % 3]
            ),
            Rule::OutputFlushed => write!(
                f,
                "result tiny, flushed to zero (.ftz; policy ftz_tininess)"
            ),
            Rule::NanCanonicalized => write!(f, "NaN result is the canonical NaN"),
            Rule::NanPropagated => write!(f, "NaN operand propagated, quieted (policy f64_nan)"),
            Rule::Saturated => write!(f, "clamped to [+0.0, 1.0] (.sat)"),
            Rule::Relu => write!(f, "negative result clamped to +0.0 (.relu)"),
            Rule::Oob(n) => write!(
                f,
                "input {} is the OOB NaN: result +0.0 (.oob; policy oob_nan)",
                names[usize::from(*n) % 3]
            ),
            Rule::Xorsign => write!(f, "sign = sign(a) XOR sign(b) (.xorsign)"),
            Rule::XorsignIgnored => write!(f, "result is NaN: .xorsign/.abs ignored"),
            Rule::OtherOperand => write!(f, "one input is NaN: the other input is returned"),
            Rule::Sm1xFlush => write!(f, "sm_1x: f32 subnormals flushed (policy sm1x_f32_flush)"),
            Rule::Sm1xTruncatedProduct => write!(
                f,
                "sm_1x mad: product truncated to 24 bits (policy sm1x_mad)"
            ),
            Rule::Mufu(op, core) => write!(
                f,
                "MUFU.{} computed by the {core} core (policy mufu_core)",
                format!("{op:?}").to_uppercase()
            ),
            Rule::Mufu64(op, core) => write!(
                f,
                "MUFU.{} on the upper word (lower word zero), computed by the {core} core (policy mufu_core)",
                format!("{op:?}").to_uppercase()
            ),
            Rule::Mufu16(op, core) => write!(
                f,
                "MUFU.{} (16-bit) computed by the {core} core (policy mufu_core)",
                format!("{op:?}").to_uppercase()
            ),
            Rule::ApproxScaled(what) => write!(f, "glue: {what}"),
            Rule::ApproxSlowPath => write!(
                f,
                "not a positive normal number: slow path (special values from the manual's table)"
            ),
        }
    }
}

/// A rule, and the lane it applied to in a packed instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub lane: Option<u8>,
    pub rule: Rule,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.lane {
            Some(l) => write!(f, "lane {l}: {}", self.rule),
            None => write!(f, "{}", self.rule),
        }
    }
}

/// Receives the rules an evaluation applies. [`Silent`] costs nothing.
pub trait Trace {
    /// Whether notes are kept: rules that need extra work to detect are only checked then.
    const ENABLED: bool;
    fn note(&mut self, rule: impl FnOnce() -> Rule);
    /// Which lane of a packed instruction the following notes belong to.
    fn set_lane(&mut self, _lane: Option<u8>) {}
}

/// A trace that records nothing: the fast path.
pub struct Silent;

impl Trace for Silent {
    const ENABLED: bool = false;
    #[inline(always)]
    fn note(&mut self, _: impl FnOnce() -> Rule) {}
}

/// Records every rule with its lane.
#[derive(Default)]
pub struct Notes {
    pub notes: Vec<Note>,
    lane: Option<u8>,
}

impl Trace for Notes {
    const ENABLED: bool = true;
    fn note(&mut self, rule: impl FnOnce() -> Rule) {
        let note = Note {
            lane: self.lane,
            rule: rule(),
        };
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }
    fn set_lane(&mut self, lane: Option<u8>) {
        self.lane = lane;
    }
}

/// Why an instruction cannot be evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// The instruction is valid PTX that this model does not evaluate yet.
    Unsupported(String),
    /// The operands do not fit the instruction.
    Operands(String),
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Unsupported(m) | EvalError::Operands(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for EvalError {}

/// The operands of one lane, as a format's values.
pub struct Lane<F> {
    pub x: [F; 3],
    pub n: usize,
}

/// The lane's first `n` inputs with subnormals flushed to signed zeros, noted, where `.ftz`
/// says so or the target is `sm_1x` and the type f32 ([`Policies::sm1x_f32_flush`]); and
/// whether flushing is in force (results flush too).
///
/// [`Policies::sm1x_f32_flush`]: crate::policy::Policies::sm1x_f32_flush
pub fn flush_inputs<F: Format, T: Trace>(
    i: &Instr,
    lane: &Lane<F>,
    ctx: &Context,
    t: &mut T,
) -> ([F; 3], bool) {
    let sm1x = F::BITS == 32 && ctx.sm1x() && ctx.policies.sm1x_f32_flush && !i.mods.ftz;
    let ftz = i.mods.ftz || sm1x;
    let mut x = lane.x;
    if ftz {
        for (k, v) in x.iter_mut().enumerate().take(lane.n) {
            if v.is_subnormal() {
                t.note(|| {
                    if sm1x {
                        Rule::Sm1xFlush
                    } else {
                        Rule::InputFlushed(k as u8)
                    }
                });
                *v = crate::steps::ftz(*v);
            }
        }
    }
    (x, ftz)
}

/// Evaluates `i` on `ops` (one bit pattern per source operand, lane 0 in the low bits).
pub fn eval(i: &Instr, ops: &[u64], ctx: &Context) -> Result<u64, EvalError> {
    eval_traced(i, ops, ctx, &mut Silent)
}

/// Evaluates `i` on `ops`, telling `trace` every rule that decided the result.
pub fn eval_traced<T: Trace>(
    i: &Instr,
    ops: &[u64],
    ctx: &Context,
    trace: &mut T,
) -> Result<u64, EvalError> {
    if ops.len() != usize::from(i.inputs) {
        return Err(EvalError::Operands(format!(
            "`{i}` takes {} operands, got {}",
            i.inputs,
            ops.len()
        )));
    }
    let width = i.ty.bits();
    if let Some((n, x)) = ops
        .iter()
        .enumerate()
        .find(|(_, x)| width < 64 && **x >> width != 0)
    {
        return Err(EvalError::Operands(format!(
            "operand {} (0x{x:x}) is wider than {width} bits",
            n + 1
        )));
    }
    if let Opcode::Testp(op) = i.opcode {
        return Ok(match i.ty {
            Type::F64 => testp::testp(op, F64::from_bits(ops[0])),
            _ => testp::testp(op, F32::from_bits(ops[0])),
        } as u64);
    }
    let lanes = i.ty.lanes();
    let lane_bits = width / lanes;
    let mask = if lane_bits == 64 {
        u64::MAX
    } else {
        (1u64 << lane_bits) - 1
    };
    let mut result = 0u64;
    for lane in 0..lanes {
        if lanes > 1 {
            trace.set_lane(Some(lane as u8));
        }
        let shift = lane * lane_bits;
        let lane_ops = |k: usize| ops.get(k).map_or(0, |x| (x >> shift) & mask);
        let bits = [lane_ops(0), lane_ops(1), lane_ops(2)];
        let r = match i.ty.lane() {
            Type::F32 => scalar::<F32, T>(i, bits, ctx, trace)?,
            Type::F64 => scalar::<F64, T>(i, bits, ctx, trace)?,
            Type::F16 => scalar::<F16, T>(i, bits, ctx, trace)?,
            _ => scalar::<BF16, T>(i, bits, ctx, trace)?,
        };
        result |= r << shift;
    }
    trace.set_lane(None);
    Ok(result)
}

fn scalar<F: Format, T: Trace>(
    i: &Instr,
    bits: [u64; 3],
    ctx: &Context,
    trace: &mut T,
) -> Result<u64, EvalError> {
    let lane = Lane {
        x: bits.map(F::from_bits),
        n: usize::from(i.inputs),
    };
    if i.mods.approx || i.mods.full {
        return Ok(approx_lane(i, lane.x, ctx, trace));
    }
    let r: F = match i.opcode {
        Opcode::Add
        | Opcode::Sub
        | Opcode::Mul
        | Opcode::Fma
        | Opcode::Mad
        | Opcode::Div
        | Opcode::Rcp
        | Opcode::Sqrt => arith::arith(i, lane, ctx, trace),
        Opcode::Min | Opcode::Max => minmax::minmax(i, lane, ctx, trace),
        Opcode::Abs | Opcode::Neg => sign::abs_neg(i, &lane, ctx, trace),
        Opcode::Copysign => sign::copysign(lane.x[0], lane.x[1]),
        _ => return Err(EvalError::Unsupported(format!("`{i}` is not modelled yet"))),
    };
    Ok(r.to_bits())
}

/// One lane of an approximate instruction, by its format.
fn approx_lane<F: Format, T: Trace>(i: &Instr, x: [F; 3], ctx: &Context, trace: &mut T) -> u64 {
    let [a, b] = [x[0].to_bits(), x[1].to_bits()];
    match F::BITS {
        32 => approx::approx_f32(i, F32::from_bits(a), F32::from_bits(b), ctx, trace).to_bits(),
        64 => approx::approx_f64(i, F64::from_bits(a), ctx, trace).to_bits(),
        _ if F::EXP_BITS == 5 => approx::approx_f16(i, F16::from_bits(a), ctx, trace).to_bits(),
        _ => approx::approx_bf16(i, BF16::from_bits(a), ctx, trace).to_bits(),
    }
}
