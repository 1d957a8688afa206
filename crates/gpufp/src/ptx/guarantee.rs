//! What the manual guarantees about a result: every bit, any NaN, or an error bound (PTX ISA
//! 9.7.3, 9.7.4; docs/mufu.md). The model's result always satisfies its guarantee; another
//! implementation's result is judged against it by [`judge`].

use super::bounds;
use super::eval::{eval, Context, EvalError};
use super::instr::{Instr, Opcode, Type};
use crate::format::{Format, BF16, F16, F32, F64};
use crate::steps;
use core::fmt;

/// The unit an error bound is measured in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Units in the last place of the exact value's binade (rcp, div): |d - f(x)| <= k * ulp(f(x)).
    Ulp,
    /// Representable steps from the correctly rounded result (ex2.f32): "2 ulp from correctly
    /// rounded result".
    UlpFromRounded,
    /// |d - f(x)| <= k * |f(x)|.
    Relative,
    /// |d - f(x)| <= k.
    Absolute,
}

/// An error bound `2^(log2_milli / 1000)` in `unit`, as the manual states it, on `range`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bound {
    pub unit: Unit,
    /// log2 of the bound in thousandths: 2^-20.5 is -20500, 2 ulp is 1000.
    pub log2_milli: i32,
    /// The input range the manual states the bound for, in its words.
    pub range: &'static str,
    /// Subnormal results may also be flushed to a sign-preserving zero (`.ftz`).
    pub ftz: bool,
}

/// What the manual determines about one lane's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Guarantee {
    /// Every bit is determined (IEEE rounding, a special-value table, a stated canonical NaN).
    Exact,
    /// The result is NaN and the manual leaves which NaN open ("an unspecified NaN").
    AnyNan,
    /// The result is NaN carrying one of the NaN inputs' payloads, quieted (f64: "NaN payloads
    /// are supported"); which input's is open.
    InputNan,
    /// The result is within a bound of the true value.
    Within(Bound),
    /// The manual gives no guarantee ("only best effort is provided").
    BestEffort,
    /// `rcp.approx.ftz.f64`, `rsqrt.approx.ftz.f64`: a "gross approximation" in the upper 32 bits
    /// with no stated bound; the lower 32 bits are zero.
    HighWordOnly,
}

/// How another implementation's result compares with one lane's guarantee.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub guarantee: Guarantee,
    /// The model's result for the lane.
    pub model: u64,
    /// The judged result for the lane.
    pub result: u64,
    /// The judged result has the model's bits.
    pub exact: bool,
    /// The judged result satisfies the guarantee.
    pub within_spec: bool,
    /// Why not, when it does not; for a bound, the measured error.
    pub explanation: String,
}

/// Each lane's guarantee for `i` on `ops` (lane 0 first).
pub fn guarantees(i: &Instr, ops: &[u64], ctx: &Context) -> Result<Vec<Guarantee>, EvalError> {
    let d = eval(i, ops, ctx)?;
    if matches!(i.opcode, Opcode::Testp(_)) {
        return Ok(vec![Guarantee::Exact]);
    }
    Ok((0..i.ty.lanes())
        .map(|k| {
            let (x, d) = lane_bits(i, ops, d, k);
            match i.ty.lane() {
                Type::F32 => lane_guarantee::<F32>(i, x, d, ctx),
                Type::F64 => lane_guarantee::<F64>(i, x, d, ctx),
                Type::F16 => lane_guarantee::<F16>(i, x, d, ctx),
                _ => lane_guarantee::<BF16>(i, x, d, ctx),
            }
        })
        .collect())
}

/// Lane `k`'s operands and result.
fn lane_bits(i: &Instr, ops: &[u64], d: u64, k: u32) -> ([u64; 3], u64) {
    let bits = i.ty.bits() / i.ty.lanes();
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let at = |v: u64| (v >> (k * bits)) & mask;
    let x = [0, 1, 2].map(|n| ops.get(n).map_or(0, |&v| at(v)));
    (x, at(d))
}

fn lane_guarantee<F: Format>(i: &Instr, x: [u64; 3], d: u64, ctx: &Context) -> Guarantee {
    let x = x.map(F::from_bits);
    let d = F::from_bits(d);
    if i.mods.approx || i.mods.full {
        return approx_guarantee(i, x, ctx);
    }
    if !d.is_nan() {
        return Guarantee::Exact;
    }
    let inputs = &x[..usize::from(i.inputs)];
    let nan_input = inputs.iter().any(|v| v.is_nan());
    match i.opcode {
        // PTX ISA 9.7.3.11: "If `.NaN` modifier is specified, then the result is canonical `NaN`
        // if any of the inputs is `NaN`."
        Opcode::Min | Opcode::Max if i.mods.nan => Guarantee::Exact,
        // PTX ISA 9.7.4.4: "`.relu` clamps the result to 0 if negative. `NaN` result is converted
        // to canonical `NaN`."
        _ if i.mods.relu => Guarantee::Exact,
        // PTX ISA 9.7.3.9: "For `abs.f64`, `NaN` input is passed through unchanged."
        Opcode::Abs | Opcode::Copysign if F::BITS == 64 => Guarantee::Exact,
        // PTX ISA 9.7.3: "`NaN` payloads are supported for double-precision instructions";
        // 9.7.3.10: for `neg`, "`NaN` inputs yield an unspecified `NaN`".
        _ if F::BITS == 64 && nan_input && i.opcode != Opcode::Neg => Guarantee::InputNan,
        // PTX ISA 9.7.3: "Single-precision instructions return an unspecified `NaN`."
        _ => Guarantee::AnyNan,
    }
}

/// Where an f32 `sin`/`cos` bound holds: the largest f32 values <= 2π and <= 100π.
const TWO_PI_F32: u64 = 0x40C9_0FDA;
const HUNDRED_PI_F32: u64 = 0x439D_1462;

fn within(unit: Unit, log2_milli: i32, range: &'static str, ftz: bool) -> Guarantee {
    Guarantee::Within(Bound {
        unit,
        log2_milli,
        range,
        ftz,
    })
}

/// The guarantees of the approximate instructions (PTX ISA 9.7.3.8, 9.7.3.13-9.7.3.22, 9.7.4.9,
/// 9.7.4.10): the special-value tables are exact, an f32/f16 NaN is "an unspecified `NaN`",
/// everything else is bounded as each page states, or not at all.
fn approx_guarantee<F: Format>(i: &Instr, x: [F; 3], ctx: &Context) -> Guarantee {
    use Unit::*;
    let ftz = i.mods.ftz || (F::BITS == 32 && ctx.sm1x() && ctx.policies.sm1x_f32_flush);
    let flush = |v: F| if ftz { steps::ftz(v) } else { v };
    let (a, b) = (flush(x[0]), flush(x[1]));
    let full = "full range of inputs";
    let positive = "positive finite range";
    if F::BITS == 64 {
        // 9.7.3.14, 9.7.3.17: "Input `NaN`s map to a canonical `NaN` with encoding
        // `0x7fffffff00000000`. Subnormal inputs and results are flushed to sign-preserving zero."
        let hi = F64::from_bits(a.to_bits() & 0xFFFF_FFFF_0000_0000);
        return match () {
            _ if i.mods.ftz && (hi.is_nan() || hi.is_zero() || hi.is_subnormal()) => {
                Guarantee::Exact
            }
            _ if a.is_nan() => Guarantee::InputNan,
            _ if a.is_zero() || (a.is_infinite() && !a.sign()) => Guarantee::Exact,
            _ if a.sign() && i.opcode == Opcode::Rsqrt => Guarantee::AnyNan,
            _ if i.mods.ftz && a.is_infinite() => Guarantee::Exact,
            _ if i.mods.ftz => Guarantee::HighWordOnly,
            _ => Guarantee::BestEffort,
        };
    }
    if a.is_nan() || (i.opcode == Opcode::Div && b.is_nan()) {
        return Guarantee::AnyNan;
    }
    let special = a.is_zero() || a.is_infinite();
    let negative = a.sign() && !a.is_zero();
    let abs = a.abs_bits().to_bits();
    if F::BITS == 16 {
        let bf16 = F::EXP_BITS == 8;
        return match i.opcode {
            _ if special => Guarantee::Exact,
            // 9.7.4.10: "`ex2.approx.ftz.bf16` flushes subnormal inputs": -subnormal -> +1.0.
            Opcode::Ex2 if bf16 && x[0].is_subnormal() => Guarantee::Exact,
            Opcode::Ex2 if bf16 => within(Relative, -7000, full, true),
            Opcode::Ex2 => within(Relative, -9900, full, false),
            _ if bf16 => within(Absolute, -8000, full, false),
            _ => within(Absolute, -10987, full, false),
        };
    }
    match i.opcode {
        Opcode::Div => {
            let (bz, binf) = (b.is_zero(), b.is_infinite());
            let babs = b.abs_bits().to_bits();
            if i.mods.full {
                // 9.7.3.8: "The maximum `ulp` error is 2 across the full range of inputs."
                if bz || binf || a.is_infinite() {
                    Guarantee::BestEffort
                } else {
                    within(Ulp, 1000, full, ftz)
                }
            } else if !binf && babs > 0x7E80_0000 {
                // "For 2^126 < |b| < 2^128, if a is infinity, div.approx.f32 returns NaN,
                // otherwise it returns a sign-preserving zero."
                if a.is_infinite() {
                    Guarantee::AnyNan
                } else {
                    Guarantee::Exact
                }
            } else if (0x0080_0000..=0x7E80_0000).contains(&babs) && !a.is_infinite() {
                // "For |b| in [2^-126, 2^126], the maximum ulp error is 2."
                within(Ulp, 1000, "|b| in [2^-126, 2^126]", ftz)
            } else {
                Guarantee::BestEffort
            }
        }
        _ if i.opcode == Opcode::Tanh && a.is_subnormal() => Guarantee::Exact,
        _ if special => match i.opcode {
            Opcode::Sin | Opcode::Cos if a.is_infinite() => Guarantee::AnyNan,
            Opcode::Sqrt | Opcode::Rsqrt | Opcode::Lg2 if negative => Guarantee::AnyNan,
            _ => Guarantee::Exact,
        },
        Opcode::Sqrt | Opcode::Rsqrt | Opcode::Lg2 if negative => Guarantee::AnyNan,
        // 9.7.3.13: "The maximum ulp error is 1 across the full range of inputs."
        Opcode::Rcp => within(Ulp, 0, full, ftz),
        // 9.7.3.15: "The maximum relative error over the entire positive finite floating-point
        // range is 2^-23."
        Opcode::Sqrt => within(Relative, -23000, positive, ftz),
        // 9.7.3.16: "The maximum relative error for `rsqrt.f32` over the entire positive finite
        // floating-point range is 2^-22.9."
        Opcode::Rsqrt => within(Relative, -22900, positive, ftz),
        // 9.7.3.20: "The maximum absolute error is 2^-22 when the input operand is in the range
        // (0.5, 2). For positive finite inputs outside of this interval, maximum relative error
        // is 2^-22."
        Opcode::Lg2 if abs > 0x3F00_0000 && abs < 0x4000_0000 => {
            within(Absolute, -22000, "input in (0.5, 2)", ftz)
        }
        Opcode::Lg2 => within(
            Relative,
            -22000,
            "positive finite input outside (0.5, 2)",
            ftz,
        ),
        // 9.7.3.21: "The maximum ulp error is 2 ulp from correctly rounded result across the
        // full range of inputs."
        Opcode::Ex2 => within(UlpFromRounded, 1000, full, ftz),
        // 9.7.3.18-19: "[-2pi .. 2pi]: 2^-20.5; [-100pi .. +100pi]: 2^-14.7. Outside of the
        // range [-100pi .. +100pi], only best effort is provided."
        Opcode::Sin | Opcode::Cos if abs <= TWO_PI_F32 => {
            within(Absolute, -20500, "input in [-2π, 2π]", ftz)
        }
        Opcode::Sin | Opcode::Cos if abs <= HUNDRED_PI_F32 => {
            within(Absolute, -14700, "input in [-100π, 100π]", ftz)
        }
        Opcode::Sin | Opcode::Cos => Guarantee::BestEffort,
        // 9.7.3.22: "The maximum relative error over the entire floating point range is 2^-11."
        _ => within(Relative, -11000, "entire floating-point range", false),
    }
}

/// Judges `result`, produced by a device or another model for `i` on `ops`, lane by lane.
pub fn judge(
    i: &Instr,
    ops: &[u64],
    result: u64,
    ctx: &Context,
) -> Result<Vec<Verdict>, EvalError> {
    let d = eval(i, ops, ctx)?;
    let g = guarantees(i, ops, ctx)?;
    if matches!(i.opcode, Opcode::Testp(_)) {
        let ok = d == result;
        return Ok(vec![Verdict {
            guarantee: Guarantee::Exact,
            model: d,
            result,
            exact: ok,
            within_spec: ok,
            explanation: explain_exact(ok, d),
        }]);
    }
    Ok(g.into_iter()
        .zip(0..)
        .map(|(guarantee, k)| {
            let (x, model) = lane_bits(i, ops, d, k);
            let (_, r) = lane_bits(i, ops, result, k);
            let (within_spec, explanation) = match i.ty.lane() {
                Type::F32 => check::<F32>(i, guarantee, x, model, r, ctx),
                Type::F64 => check::<F64>(i, guarantee, x, model, r, ctx),
                Type::F16 => check::<F16>(i, guarantee, x, model, r, ctx),
                _ => check::<BF16>(i, guarantee, x, model, r, ctx),
            };
            Verdict {
                guarantee,
                model,
                result: r,
                exact: model == r,
                within_spec,
                explanation,
            }
        })
        .collect())
}

fn explain_exact(ok: bool, model: u64) -> String {
    if ok {
        String::new()
    } else {
        format!("every bit is determined and the model gives 0x{model:x}")
    }
}

/// Whether `r` satisfies `g` for one lane, and why not.
fn check<F: Format>(
    i: &Instr,
    g: Guarantee,
    x: [u64; 3],
    model: u64,
    r: u64,
    ctx: &Context,
) -> (bool, String) {
    let rv = F::from_bits(r);
    let x = x.map(F::from_bits);
    match g {
        Guarantee::Exact => (model == r, explain_exact(model == r, model)),
        Guarantee::AnyNan if rv.is_nan() => (true, String::new()),
        Guarantee::AnyNan | Guarantee::InputNan if !rv.is_nan() => {
            (false, "the result must be a NaN".into())
        }
        Guarantee::InputNan => {
            let ok = x[..usize::from(i.inputs)]
                .iter()
                .any(|v| v.is_nan() && v.quieted().abs_bits() == rv.abs_bits());
            (
                ok,
                if ok {
                    String::new()
                } else {
                    "the NaN carries no input's payload".into()
                },
            )
        }
        Guarantee::HighWordOnly if r & 0xFFFF_FFFF != 0 => {
            (false, "the lower 32 bits must be zero".into())
        }
        Guarantee::HighWordOnly | Guarantee::BestEffort | Guarantee::AnyNan => {
            (true, String::new())
        }
        Guarantee::Within(b) => bounds::check(i, b, x, rv, ctx),
    }
}
impl fmt::Display for Guarantee {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Guarantee::Exact => f.write_str("exact: every bit is determined by the manual"),
            Guarantee::AnyNan => f.write_str("any NaN: the manual leaves the NaN unspecified"),
            Guarantee::InputNan => {
                f.write_str("an input NaN's payload, quieted (which input is open)")
            }
            Guarantee::Within(b) => write!(f, "{b}"),
            Guarantee::BestEffort => f.write_str("none: the manual gives no error bound here"),
            Guarantee::HighWordOnly => f.write_str(
                "upper word: no stated bound (a gross approximation); lower 32 bits zero",
            ),
        }
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.log2_milli;
        let v = if m % 1000 == 0 && (0..=3000).contains(&m) {
            format!("{}", 1 << (m / 1000))
        } else {
            let frac = format!("{:03}", m.unsigned_abs() % 1000);
            let frac = frac.trim_end_matches('0');
            let sign = if m < 0 { "-" } else { "" };
            let int = m.unsigned_abs() / 1000;
            if frac.is_empty() {
                format!("2^{sign}{int}")
            } else {
                format!("2^{sign}{int}.{frac}")
            }
        };
        let unit = match self.unit {
            Unit::Ulp => "ulp",
            Unit::UlpFromRounded => "ulp from the correctly rounded result",
            Unit::Relative => "relative error",
            Unit::Absolute => "absolute error",
        };
        write!(f, "within {v} {unit} ({})", self.range)?;
        if self.ftz {
            f.write_str("; subnormal results may flush to zero")?;
        }
        Ok(())
    }
}
