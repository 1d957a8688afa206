//! The gpufp playground's WebAssembly module: the library's front door as JavaScript objects
//! for the static page in `web/`. The records are the library's own ([`gpufp::report`], which
//! `gpufp eval --json` prints too); this crate only reads the page's text fields into
//! [`Options`] and hands the records over.

use gpufp::examples::EXAMPLES;
use gpufp::front::{Error, Options};
use gpufp::ptx::{PtxVersion, Target};
use gpufp::report::{self, Check, Completion, Evaluation, Problem};
use serde::Serialize;
use wasm_bindgen::prelude::*;

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

/// Checks instruction text for a target and PTX ISA version; `operands`: 0 for the usual
/// number.
pub fn check_text(text: &str, target: &str, ptx: &str, operands: usize) -> Check {
    match options(target, ptx, Some(operands).filter(|&n| n > 0), &[]) {
        Ok(opts) => Check::of(text, &opts),
        Err(e) => Check {
            error: Some(Problem::new(&e, text.trim())),
            ..Check::default()
        },
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
    match options(target, ptx, None, policies) {
        Ok(opts) => Evaluation::of(text, operands, &opts),
        Err(e) => Evaluation {
            error: Some(Problem::new(&e, text.trim())),
            instr: text.trim().to_string(),
            ..Evaluation::default()
        },
    }
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

/// The `gpufp eval` command line for the page's fields, quoted for a POSIX shell.
pub fn command_line(
    text: &str,
    operands: &[String],
    target: &str,
    ptx: &str,
    policies: &[String],
) -> String {
    let mut words = vec!["gpufp".to_string(), "eval".to_string()];
    for (flag, v) in [("--target", target), ("--ptx", ptx)] {
        if let Some(v) = some(v) {
            words.extend([flag.to_string(), shell_word(v)]);
        }
    }
    for p in policies {
        words.extend(["--policy".to_string(), shell_word(p)]);
    }
    words.push(shell_word(text.trim()));
    words.extend(operands.iter().map(|o| shell_word(o.trim())));
    words.join(" ")
}

/// The completions of instruction text for a target and PTX ISA version.
pub fn complete_text(text: &str, target: &str, ptx: &str) -> Completion {
    Completion::of(text, &options(target, ptx, None, &[]).unwrap_or_default())
}

fn js<T: Serialize>(v: &T) -> JsValue {
    // Plain records of strings, numbers, booleans and lists always convert.
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

/// [`command_line`].
#[wasm_bindgen]
pub fn command(
    text: &str,
    operands: Vec<String>,
    target: &str,
    ptx: &str,
    policies: Vec<String>,
) -> String {
    command_line(text, &operands, target, ptx, &policies)
}

/// [`complete_text`] as an object.
#[wasm_bindgen]
pub fn complete(text: &str, target: &str, ptx: &str) -> JsValue {
    js(&complete_text(text, target, ptx))
}

/// [`report::policies`] as an array.
#[wasm_bindgen]
pub fn policies() -> JsValue {
    js(&report::policies())
}

/// [`EXAMPLES`] as an array.
#[wasm_bindgen]
pub fn examples() -> JsValue {
    js(&EXAMPLES)
}
