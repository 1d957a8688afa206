//! What the manual guarantees about a result: every bit, any NaN, or an error bound (PTX ISA
//! 9.7.3, 9.7.4; SEMANTICS.md §5). The model's result always satisfies its guarantee; another
//! implementation's result is judged against it by [`judge`].

use super::eval::{eval, Context, EvalError};
use super::instr::Instr;
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
    let _ = d;
    Ok(vec![Guarantee::Exact; i.ty.lanes() as usize])
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
    let bits = (i.ty.bits() / i.ty.lanes()) as usize;
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    Ok(g.into_iter()
        .enumerate()
        .map(|(k, guarantee)| {
            let (m, r) = ((d >> (k * bits)) & mask, (result >> (k * bits)) & mask);
            Verdict {
                guarantee,
                model: m,
                result: r,
                exact: m == r,
                within_spec: m == r,
                explanation: String::new(),
            }
        })
        .collect())
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
