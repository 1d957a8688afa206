//! The gpufp playground's WebAssembly module: the library's front door ([`gpufp::front`]) as
//! JavaScript objects for the static page in `web/`. Every function here renders what the
//! library returns; none decides anything about an instruction. Bits cross as `0x` text, so no
//! 64-bit pattern passes through a JavaScript number.

use gpufp::examples::EXAMPLES;
use gpufp::front::{self, bits_text, Error, Options, Prepared};
use gpufp::policy::{Policies, POLICIES};
use gpufp::ptx::{PtxVersion, Target};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// What went wrong, for the field it belongs to.
#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct Problem {
    /// `instr`, `operand`, `policy`, `options` or `eval`.
    pub kind: &'static str,
    /// The message as the command line prints it.
    pub message: String,
    /// The byte offset in the instruction text of what does not parse.
    pub column: Option<usize>,
    /// The source operand (0-based) that does not parse.
    pub operand: Option<usize>,
}

impl Problem {
    fn new(e: &Error, text: &str) -> Problem {
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
#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct Layout {
    pub lanes: u32,
    pub bits: u32,
    pub exponent: u32,
    pub fraction: u32,
}

/// One lane of a value.
#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct Lane {
    pub bits: String,
    pub value: String,
}

/// A whole value (an operand or a result) and its lanes.
#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct Value {
    pub bits: String,
    pub lanes: Vec<Lane>,
}

/// What the validator says about instruction text as it is typed.
#[derive(Serialize, Debug, PartialEq, Eq)]
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
    pub predicate: bool,
    pub layout: Option<Layout>,
    pub min_target: Option<String>,
    pub min_ptx: Option<String>,
    /// Each feature used, with the target and PTX ISA version it needs.
    pub needs: Vec<String>,
    pub warnings: Vec<String>,
}

/// A result and everything that decided it ([`front::Explanation`]).
#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct Evaluation {
    pub ok: bool,
    pub error: Option<Problem>,
    pub instr: String,
    pub effective: Option<String>,
    pub operands: Vec<Value>,
    pub layout: Option<Layout>,
    /// The result as the command line prints it (`0x` bits, or `0`/`1` for `testp`).
    pub result: String,
    pub value: Option<String>,
    pub lanes: Vec<Lane>,
    pub warnings: Vec<String>,
    pub rules: Vec<String>,
    /// Each lane's guarantee.
    pub guarantees: Vec<String>,
    pub exact: bool,
    /// The result under each alternative of an unverified policy that changes it.
    pub alternatives: Vec<Alternative>,
    /// The `gpufp eval` command line that gives the same, and what it prints.
    pub command: String,
    pub text: String,
}

#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct Alternative {
    pub policy: String,
    pub value: String,
    pub result: String,
}

/// One policy, for the page's policy panel.
#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct Policy {
    pub name: String,
    pub default: String,
    pub evidence: String,
    pub status: String,
    /// Every value it takes; `None`: a free `0xHHHH` pattern.
    pub choices: Option<Vec<String>>,
}

#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct Example {
    pub section: String,
    pub instr: String,
    pub operands: Vec<String>,
    pub target: Option<String>,
    pub shows: String,
}

#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub word: String,
    pub text: String,
    pub complete: bool,
}

#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct Completion {
    pub start: usize,
    pub candidates: Vec<Candidate>,
}

fn some(s: &str) -> Option<&str> {
    Some(s.trim()).filter(|s| !s.is_empty())
}

/// Options from the page's fields: empty target and version mean the defaults; policies as
/// `NAME=VALUE`.
fn options(
    target: &str,
    ptx: &str,
    operands: Option<usize>,
    policies: &[String],
) -> Result<Options, Error> {
    let mut opts = Options::parse(some(target), some(ptx), operands, [])?;
    for p in policies {
        opts = opts
            .select(p)
            .map_err(|e| Error::Policy(format!("policy `{p}`: {e}")))?;
    }
    Ok(opts)
}

fn layout(p: &Prepared) -> Option<Layout> {
    let l = p.layout();
    Some(Layout {
        lanes: l.lanes,
        bits: l.bits,
        exponent: l.exponent,
        fraction: l.fraction,
    })
}

fn lanes(p: &Prepared, lanes: Vec<front::LaneValue>) -> Vec<Lane> {
    lanes
        .into_iter()
        .map(|l| Lane {
            bits: bits_text(l.bits, p.layout().bits),
            value: l.value,
        })
        .collect()
}

fn value(p: &Prepared, bits: u64) -> Value {
    Value {
        bits: bits_text(bits, p.width()),
        lanes: lanes(p, p.lanes(bits)),
    }
}

/// Checks instruction text for a target and PTX ISA version; `operands`: 0 for the usual
/// number.
pub fn check_text(text: &str, target: &str, ptx: &str, operands: usize) -> Check {
    let mut c = Check {
        ok: false,
        error: None,
        canonical: None,
        effective: None,
        inputs: 0,
        three: false,
        predicate: false,
        layout: None,
        min_target: None,
        min_ptx: None,
        needs: Vec::new(),
        warnings: Vec::new(),
    };
    let prepared = options(target, ptx, Some(operands).filter(|&n| n > 0), &[])
        .and_then(|o| Prepared::new(text.trim(), &o).map(|p| (p, o)));
    match prepared {
        Err(e) => c.error = Some(Problem::new(&e, text.trim())),
        Ok((p, o)) => {
            let three = Options {
                operands: Some(3),
                ..o
            };
            c.ok = true;
            c.canonical = Some(p.instr.to_string());
            c.effective = (p.effective() != &p.instr).then(|| p.effective().to_string());
            c.inputs = p.inputs();
            c.three = c.inputs == 2 && Prepared::new(text.trim(), &three).is_ok();
            c.predicate = p.is_predicate();
            c.layout = layout(&p);
            c.min_target = Some(p.checked.min_target.to_string());
            c.min_ptx = Some(p.checked.min_ptx.to_string());
            c.needs = p
                .checked
                .needs
                .iter()
                .map(|n| format!("{}: sm_{}, PTX ISA {}", n.feature, n.sm, n.ptx))
                .collect();
            c.warnings = p.checked.warnings.clone();
        }
    }
    c
}

/// The shell word for `s`: as it is when it needs no quoting, else in single quotes.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-+=:/,".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Evaluates instruction text on operand literals, as `gpufp eval` does.
pub fn evaluate_text(
    text: &str,
    operands: &[String],
    target: &str,
    ptx: &str,
    policies: &[String],
) -> Evaluation {
    let text = text.trim();
    let mut command = vec!["gpufp".to_string(), "eval".to_string()];
    for (flag, v) in [("--target", target), ("--ptx", ptx)] {
        if let Some(v) = some(v) {
            command.extend([flag.to_string(), shell_word(v)]);
        }
    }
    for p in policies {
        command.extend(["--policy".to_string(), shell_word(p)]);
    }
    command.push(shell_word(text));
    command.extend(operands.iter().map(|o| shell_word(o.trim())));
    let mut out = Evaluation {
        ok: false,
        error: None,
        instr: text.to_string(),
        effective: None,
        operands: Vec::new(),
        layout: None,
        result: String::new(),
        value: None,
        lanes: Vec::new(),
        warnings: Vec::new(),
        rules: Vec::new(),
        guarantees: Vec::new(),
        exact: false,
        alternatives: Vec::new(),
        command: command.join(" "),
        text: String::new(),
    };
    let run = || -> Result<(Prepared, Vec<u64>, front::Explanation), Error> {
        let opts = options(target, ptx, Some(operands.len()), policies)?;
        let p = Prepared::new(text, &opts)?;
        let trimmed: Vec<&str> = operands.iter().map(|o| o.trim()).collect();
        let ops = p.parse_operands(&trimmed)?;
        let e = p.explain(&ops)?;
        Ok((p, ops, e))
    };
    match run() {
        Err(e) => out.error = Some(Problem::new(&e, text)),
        Ok((p, ops, e)) => {
            out.ok = true;
            out.text = e.to_string();
            out.exact = e.exact();
            out.instr = e.instr;
            out.effective = e.effective;
            out.operands = ops.iter().map(|&b| value(&p, b)).collect();
            out.layout = layout(&p).filter(|_| !p.is_predicate());
            out.result = e.result_text;
            out.value = e.value;
            out.lanes = lanes(&p, e.lanes);
            out.warnings = e.warnings;
            out.rules = e.rules.iter().map(ToString::to_string).collect();
            out.guarantees = e.guarantees.iter().map(ToString::to_string).collect();
            out.alternatives = e
                .alternatives
                .into_iter()
                .map(|a| Alternative {
                    policy: a.policy.to_string(),
                    value: a.value,
                    result: a.result_text,
                })
                .collect();
        }
    }
    out
}

/// The completions of instruction text for a target and PTX ISA version.
pub fn complete_text(text: &str, target: &str, ptx: &str) -> Completion {
    let opts = options(target, ptx, None, &[]).unwrap_or_default();
    let c = front::complete(text, &opts);
    Completion {
        start: c.start,
        candidates: c
            .candidates
            .into_iter()
            .map(|c| Candidate {
                word: c.word,
                text: c.text,
                complete: c.complete,
            })
            .collect(),
    }
}

/// Every policy with its evidence, status and values.
pub fn policy_list() -> Vec<Policy> {
    POLICIES
        .iter()
        .filter(|p| p.name != "mufu_core")
        .map(|p| Policy {
            name: p.name.to_string(),
            default: p.default.to_string(),
            evidence: p.evidence.to_string(),
            status: p.status.as_str().to_string(),
            choices: Policies::choices(p.name),
        })
        .collect()
}

/// The manual's examples ([`EXAMPLES`]).
pub fn example_list() -> Vec<Example> {
    EXAMPLES
        .iter()
        .map(|e| Example {
            section: e.section.to_string(),
            instr: e.instr.to_string(),
            operands: e.operands.iter().map(|o| o.to_string()).collect(),
            target: e.target.map(str::to_string),
            shows: e.shows.to_string(),
        })
        .collect()
}

fn js<T: Serialize>(v: &T) -> JsValue {
    // Plain structs of strings, numbers, booleans and lists always convert.
    serde_wasm_bindgen::to_value(v).unwrap_or(JsValue::NULL)
}

/// The library's version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// Every target, lowest first.
#[wasm_bindgen]
pub fn targets() -> Vec<String> {
    Target::all().iter().map(ToString::to_string).collect()
}

/// Every PTX ISA version, newest first.
#[wasm_bindgen]
pub fn ptx_versions() -> Vec<String> {
    PtxVersion::ALL
        .iter()
        .rev()
        .map(ToString::to_string)
        .collect()
}

/// [`check_text`] as an object.
#[wasm_bindgen]
pub fn check(text: &str, target: &str, ptx: &str, operands: usize) -> JsValue {
    js(&check_text(text, target, ptx, operands))
}

/// [`evaluate_text`] as an object.
#[wasm_bindgen]
pub fn evaluate(
    text: &str,
    operands: Vec<String>,
    target: &str,
    ptx: &str,
    policies: Vec<String>,
) -> JsValue {
    js(&evaluate_text(text, &operands, target, ptx, &policies))
}

/// [`complete_text`] as an object.
#[wasm_bindgen]
pub fn complete(text: &str, target: &str, ptx: &str) -> JsValue {
    js(&complete_text(text, target, ptx))
}

/// [`policy_list`] as an array.
#[wasm_bindgen]
pub fn policies() -> JsValue {
    js(&policy_list())
}

/// [`example_list`] as an array.
#[wasm_bindgen]
pub fn examples() -> JsValue {
    js(&example_list())
}
