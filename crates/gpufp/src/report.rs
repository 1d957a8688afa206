//! The front door's answers as serializable records (feature `serde`): what `gpufp eval --json`
//! and `gpufp parse --json` print and what the web page receives. Every bit pattern is `0x` text,
//! so no 64-bit pattern passes through a JSON or JavaScript number.

use crate::front::{self, bits_text, Error, LaneValue, Options, Prepared};
use crate::policy::{Policies, POLICIES};
use serde::Serialize;

/// What went wrong, for the field it belongs to.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// `instr`, `operand`, `policy`, `options` or `eval`.
    pub kind: &'static str,
    /// The message with the instruction text it is about ([`Error::describe`]).
    pub message: String,
    /// The byte offset in the instruction text of what does not parse.
    pub column: Option<usize>,
    /// The source operand (0-based) that does not parse.
    pub operand: Option<usize>,
}

impl Problem {
    pub fn new(e: &Error, text: &str) -> Problem {
        let (kind, column, operand) = match e {
            Error::Instr { column, .. } => ("instr", Some(*column), None),
            Error::Invalid(_) => ("instr", None, None),
            Error::Operand { index, .. } => ("operand", None, Some(*index)),
            Error::Policy(_) => ("policy", None, None),
            Error::Options(_) => ("options", None, None),
            Error::Eval(_) => ("eval", None, None),
        };
        Problem {
            kind,
            message: e.describe(text),
            column,
            operand,
        }
    }
}

/// How a value divides into lanes and fields ([`front::Layout`]).
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub lanes: u32,
    pub bits: u32,
    pub exponent: u32,
    pub fraction: u32,
}

impl From<front::Layout> for Layout {
    fn from(l: front::Layout) -> Layout {
        Layout {
            lanes: l.lanes,
            bits: l.bits,
            exponent: l.exponent,
            fraction: l.fraction,
        }
    }
}

/// One lane of a value.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct Lane {
    pub bits: String,
    pub value: String,
}

/// A whole value (an operand or a result) and its lanes.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct Value {
    pub bits: String,
    pub lanes: Vec<Lane>,
}

fn lanes(p: &Prepared, lanes: Vec<LaneValue>) -> Vec<Lane> {
    lanes
        .into_iter()
        .map(|l| Lane {
            bits: bits_text(l.bits, p.layout().bits),
            value: l.value,
        })
        .collect()
}

/// What the validator says about instruction text.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct Check {
    pub ok: bool,
    pub error: Option<Problem>,
    /// The canonical spelling.
    pub canonical: Option<String>,
    /// The instruction it stands for, when that differs.
    pub effective: Option<String>,
    /// The number of source operands.
    pub inputs: usize,
    /// Whether the instruction has a three-operand form besides its usual two (min/max).
    pub three: bool,
    /// Whether the result is a predicate (`testp`).
    pub predicate: bool,
    pub layout: Option<Layout>,
    /// The lowest target and PTX ISA version that have every feature used.
    pub min_target: Option<String>,
    pub min_ptx: Option<String>,
    /// Each feature used, with the target and PTX ISA version it needs.
    pub needs: Vec<String>,
    pub warnings: Vec<String>,
}

impl Check {
    /// Checks instruction text with the options (their operand count, if any, picks the form).
    pub fn of(text: &str, opts: &Options) -> Check {
        let text = text.trim();
        match Prepared::new(text, opts) {
            Err(e) => Check {
                error: Some(Problem::new(&e, text)),
                ..Check::default()
            },
            Ok(p) => {
                let three = Options {
                    operands: Some(3),
                    ..opts.clone()
                };
                Check {
                    ok: true,
                    error: None,
                    canonical: Some(p.instr.to_string()),
                    effective: (p.effective() != &p.instr).then(|| p.effective().to_string()),
                    inputs: p.inputs(),
                    three: p.inputs() == 2 && Prepared::new(text, &three).is_ok(),
                    predicate: p.is_predicate(),
                    layout: Some(p.layout().into()),
                    min_target: Some(p.checked.min_target.to_string()),
                    min_ptx: Some(p.checked.min_ptx.to_string()),
                    needs: (p.checked.needs.iter())
                        .map(|n| format!("{}: sm_{}, PTX ISA {}", n.feature, n.sm, n.ptx))
                        .collect(),
                    warnings: p.checked.warnings.clone(),
                }
            }
        }
    }
}

/// The result under another value of an unverified policy.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct Alternative {
    pub policy: String,
    pub value: String,
    pub result: String,
}

/// A result and everything that decided it ([`front::Explanation`]).
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct Evaluation {
    pub ok: bool,
    pub error: Option<Problem>,
    pub instr: String,
    pub effective: Option<String>,
    pub operands: Vec<Value>,
    /// `None` for `testp`, whose result is a predicate.
    pub layout: Option<Layout>,
    /// The result as the command line prints it (`0x` bits, or `0`/`1` for `testp`).
    pub result: String,
    pub value: Option<String>,
    pub lanes: Vec<Lane>,
    pub warnings: Vec<String>,
    pub rules: Vec<String>,
    /// Each lane's guarantee.
    pub guarantees: Vec<String>,
    /// Whether the manual determines every bit of every lane.
    pub exact: bool,
    /// The result under each alternative of an unverified policy that changes it.
    pub alternatives: Vec<Alternative>,
    /// What `gpufp eval` prints.
    pub text: String,
}

impl Evaluation {
    /// Evaluates instruction text on operand literals with the options, as `gpufp eval` does
    /// (the number of operands picks the form).
    pub fn of<S: AsRef<str>>(text: &str, operands: &[S], opts: &Options) -> Evaluation {
        let text = text.trim();
        let run = || -> Result<(Prepared, Vec<u64>, front::Explanation), Error> {
            let opts = Options {
                operands: Some(operands.len()),
                ..opts.clone()
            };
            let p = Prepared::new(text, &opts)?;
            let trimmed: Vec<&str> = operands.iter().map(|o| o.as_ref().trim()).collect();
            let ops = p.parse_operands(&trimmed)?;
            let e = p.explain(&ops)?;
            Ok((p, ops, e))
        };
        match run() {
            Err(e) => Evaluation {
                error: Some(Problem::new(&e, text)),
                instr: text.to_string(),
                ..Evaluation::default()
            },
            Ok((p, ops, e)) => Evaluation {
                ok: true,
                error: None,
                text: e.to_string(),
                exact: e.exact(),
                operands: ops
                    .iter()
                    .map(|&b| Value {
                        bits: bits_text(b, p.width()),
                        lanes: lanes(&p, p.lanes(b)),
                    })
                    .collect(),
                layout: (!p.is_predicate()).then(|| p.layout().into()),
                lanes: lanes(&p, e.lanes),
                instr: e.instr,
                effective: e.effective,
                result: e.result_text,
                value: e.value,
                warnings: e.warnings,
                rules: e.rules.iter().map(ToString::to_string).collect(),
                guarantees: e.guarantees.iter().map(ToString::to_string).collect(),
                alternatives: (e.alternatives.into_iter())
                    .map(|a| Alternative {
                        policy: a.policy.to_string(),
                        value: a.value,
                        result: a.result_text,
                    })
                    .collect(),
            },
        }
    }
}

/// One policy: its name, default, evidence, status and the values it takes.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    pub name: &'static str,
    pub default: &'static str,
    pub evidence: &'static str,
    pub status: &'static str,
    /// Every value it takes; `None`: a free `0xHHHH` pattern.
    pub choices: Option<Vec<String>>,
}

/// Every policy selected by value (not `mufu_core`, which a core's tables select).
pub fn policies() -> Vec<Policy> {
    POLICIES
        .iter()
        .filter(|p| p.name != "mufu_core")
        .map(|p| Policy {
            name: p.name,
            default: p.default,
            evidence: p.evidence,
            status: p.status.as_str(),
            choices: Policies::choices(p.name),
        })
        .collect()
}

/// A word that may come next in instruction text ([`crate::ptx::complete::Candidate`]).
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub word: String,
    pub text: String,
    pub complete: bool,
}

/// What may replace the word being typed ([`front::complete`]).
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub start: usize,
    pub candidates: Vec<Candidate>,
}

impl Completion {
    pub fn of(text: &str, opts: &Options) -> Completion {
        let c = front::complete(text, opts);
        Completion {
            start: c.start,
            candidates: (c.candidates.into_iter())
                .map(|c| Candidate {
                    word: c.word,
                    text: c.text,
                    complete: c.complete,
                })
                .collect(),
        }
    }
}
