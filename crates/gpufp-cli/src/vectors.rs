//! `gpufp gen`, `gpufp check` and `gpufp sweep`: test vectors for a device or another model
//! (docs/vectors.md).

use super::{prepare, Model, Where};
use gpufp::front::{self, Options, Prepared};
use gpufp::ptx::guarantee::Verdict;
use gpufp::ptx::value::parse_value;
use gpufp::ptx::{self, EvalError, Opcode};
use gpufp::vectors::Level;
use std::collections::HashMap;
use std::io::{self, BufRead, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;

#[derive(clap::Args)]
pub struct GenArgs {
    #[command(flatten)]
    at: Where,
    #[command(flatten)]
    model: Model,
    /// Number of source operands (3 for the 3-input min/max).
    #[arg(long)]
    operands: Option<u8>,
    /// 1: the small tables, 2: larger tables and more cases.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    level: u8,
    /// Seed of the random draws.
    #[arg(long, default_value = "0", value_parser = parse_u64)]
    seed: u64,
    /// Number of cases (default: the table's cross product, within the level's bounds).
    #[arg(long, value_parser = parse_u64)]
    count: Option<u64>,
    /// The instruction, e.g. `fma.rn.ftz.f32`.
    instr: String,
}

#[derive(clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    at: Where,
    #[command(flatten)]
    model: Model,
    /// How many mismatches to explain.
    #[arg(long, default_value_t = 10)]
    show: usize,
    /// Print one JSON object: the counts and the mismatches shown.
    #[arg(long)]
    json: bool,
    /// The instruction the results are for.
    instr: String,
    /// Lines `[INSTR] OPERAND... RESULT` (stdin when absent or `-`).
    file: Option<PathBuf>,
}

pub(crate) fn parse_u64(s: &str) -> Result<u64, String> {
    gpufp::decimal::parse_unsigned(s)
        .and_then(|v| u64::try_from(v).ok())
        .ok_or_else(|| format!("`{s}` is not a 64-bit number"))
}

/// `text` validated with `operands` source operands (default: the opcode's usual number).
pub(crate) fn ready(
    text: &str,
    operands: Option<u8>,
    at: Where,
    model: &Model,
) -> Result<Prepared, String> {
    let opts = model.options(at)?;
    let n = operands
        .map(usize::from)
        .unwrap_or_else(|| ptx::parse_instr(text).map_or(0, |i| usize::from(i.inputs)));
    let opts = Options {
        operands: Some(n),
        ..opts
    };
    Prepared::new(text, &opts).map_err(|e| e.describe(text))
}

pub(crate) fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}

/// A write error, except a closed pipe (`gpufp gen ... | head`), which ends output quietly.
fn write_failed(e: &io::Error) -> ExitCode {
    if e.kind() == io::ErrorKind::BrokenPipe {
        ExitCode::SUCCESS
    } else {
        fail(format_args!("writing stdout: {e}"))
    }
}

pub fn gen(a: GenArgs) -> ExitCode {
    let ready = match ready(&a.instr, a.operands, a.at, &a.model) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let level = if a.level == 2 { Level::Two } else { Level::One };
    let n = ready.inputs();
    let width = ready.width();
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let bar = progress(a.count, "cases");
    for case in ready.cases(level, a.seed, a.count) {
        let (ops, d) = match case {
            Ok(c) => c,
            Err(e) => return fail(e),
        };
        bar.inc(1);
        let mut line = ready.instr.to_string();
        for &x in &ops[..n] {
            line.push(' ');
            line += &front::bits_text(x, width);
        }
        if let Err(e) = writeln!(out, "{line} {}", ready.result_text(d)) {
            return write_failed(&e);
        }
    }
    bar.finish_and_clear();
    match out.flush() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => write_failed(&e),
    }
}

/// A progress bar with rate and time left on standard error when it is a terminal (hidden
/// otherwise, so piped and redirected runs print nothing extra); a spinner with the rate when
/// the total is unknown.
pub(crate) fn progress(total: Option<u64>, unit: &str) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use std::io::IsTerminal;
    let template = match total {
        Some(_) => {
            format!("{{bar:40}} {{human_pos}}/{{human_len}} {unit} ({{rate}}, {{eta}} left)")
        }
        None => format!("{{spinner}} {{human_pos}} {unit} ({{rate}})"),
    };
    let style = ProgressStyle::with_template(&template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key(
            "rate",
            |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.2} M/s", s.per_sec() / 1e6);
            },
        );
    let bar = match total {
        Some(n) => ProgressBar::new(n),
        None => ProgressBar::no_length(),
    }
    .with_style(style)
    .with_finish(indicatif::ProgressFinish::AndClear);
    if !io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar
}

/// Counts over the checked lines.
#[derive(Default)]
struct Tally {
    cases: u64,
    exact: u64,
    within: u64,
    violations: u64,
    errors: u64,
    shown: usize,
}

/// The instruction of a `check` run, prepared for each operand count met.
struct Checker {
    text: String,
    opts: Options,
    by_count: HashMap<usize, Result<Rc<Prepared>, String>>,
}

/// What a line of `check` input is.
enum Line {
    Judged(Vec<Verdict>, Rc<Prepared>),
    Error(String),
}

impl Checker {
    fn line(&mut self, line: &str) -> Result<Line, EvalError> {
        let mut words: Vec<&str> = line.split([' ', '\t']).filter(|w| !w.is_empty()).collect();
        let first = words.first().copied().unwrap_or_default();
        if first.starts_with(|c: char| c.is_ascii_alphabetic()) && first.contains('.') {
            let same = match (ptx::parse_instr(first), ptx::parse_instr(&self.text)) {
                (Ok(x), Ok(y)) => x.opcode == y.opcode && x.ty == y.ty && x.mods == y.mods,
                _ => false,
            };
            if !same {
                return Ok(Line::Error(format!(
                    "`{}` is not the instruction checked, `{}`",
                    first, self.text
                )));
            }
            words.remove(0);
        }
        let Some((result, operands)) = words.split_last() else {
            return Ok(Line::Error("no result".into()));
        };
        if operands.is_empty() {
            return Ok(Line::Error(
                "expected OPERAND... RESULT, got one word".into(),
            ));
        }
        let (text, opts) = (&self.text, &self.opts);
        let ready = match self.by_count.entry(operands.len()).or_insert_with(|| {
            prepare(text, operands.len(), opts)
                .map(Rc::new)
                .map_err(|(_, e)| e)
        }) {
            Ok(r) => r.clone(),
            Err(e) => return Ok(Line::Error(e.clone())),
        };
        let ty = ready.instr.ty;
        let mut ops = Vec::with_capacity(operands.len());
        for (k, o) in operands.iter().enumerate() {
            match ready.parse_operand(k, o) {
                Ok(x) => ops.push(x),
                Err(e) => return Ok(Line::Error(e.to_string())),
            }
        }
        let result = match (ready.instr.opcode, *result) {
            (Opcode::Testp(_), "0") => Ok(0),
            (Opcode::Testp(_), "1") => Ok(1),
            (Opcode::Testp(_), r) => Err(format!("`{r}` is not a predicate result `0` or `1`")),
            (_, r) => parse_value(r, ty),
        };
        let result = match result {
            Ok(r) => r,
            Err(e) => return Ok(Line::Error(format!("result: {e}"))),
        };
        match ready.judge(&ops, result) {
            Ok(v) => Ok(Line::Judged(v, ready)),
            Err(front::Error::Eval(EvalError::Operands(e))) => Ok(Line::Error(e)),
            Err(front::Error::Eval(e)) => Err(e),
            Err(e) => Ok(Line::Error(e.to_string())),
        }
    }
}

fn check_lines(a: &CheckArgs, input: &mut dyn BufRead, out: &mut dyn Write) -> io::Result<bool> {
    let mut checker = Checker {
        text: a.instr.clone(),
        opts: a.model.options(a.at).map_err(io::Error::other)?,
        by_count: HashMap::new(),
    };
    let mut t = Tally::default();
    let bar = progress(None, "lines");
    let mut shown = Vec::new();
    let mut line = String::new();
    let mut number = 0u64;
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        number += 1;
        bar.inc(1);
        let text = line.trim_end_matches(['\n', '\r']);
        let trimmed = text.trim_matches([' ', '\t']);
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        match checker.line(trimmed) {
            Err(e) if a.json => {
                let error = serde_json::json!({ "line": number, "error": e.to_string() });
                writeln!(out, "{error}")?;
                return Ok(false);
            }
            Err(e) => {
                writeln!(out, "error: line {number}: {e}")?;
                return Ok(false);
            }
            Ok(Line::Error(e)) => {
                t.errors += 1;
                if t.shown < a.show {
                    t.shown += 1;
                    if a.json {
                        shown.push(serde_json::json!({
                            "line": number, "kind": "error", "message": e.to_string(),
                        }));
                    } else {
                        writeln!(out, "error: line {number}: {e}")?;
                    }
                }
            }
            Ok(Line::Judged(verdicts, ready)) => {
                t.cases += 1;
                let exact = verdicts.iter().all(|v| v.exact);
                let within = verdicts.iter().all(|v| v.within_spec);
                t.exact += u64::from(exact);
                t.within += u64::from(within);
                t.violations += u64::from(!within);
                if !exact && t.shown < a.show {
                    t.shown += 1;
                    let what = if within {
                        "differs from the model, within spec"
                    } else {
                        "spec violation"
                    };
                    if a.json {
                        let details = ready.mismatch_text(&verdicts);
                        shown.push(serde_json::json!({
                            "line": number, "kind": what, "text": trimmed,
                            "details": details.lines().map(str::trim).collect::<Vec<_>>(),
                        }));
                    } else {
                        writeln!(out, "line {number}: {what}: {trimmed}")?;
                        write!(out, "{}", ready.mismatch_text(&verdicts))?;
                    }
                }
            }
        }
    }
    bar.finish_and_clear();
    if a.json {
        let summary = serde_json::json!({
            "cases": t.cases, "exact": t.exact, "within_spec": t.within,
            "violations": t.violations, "errors": t.errors, "shown": shown,
        });
        writeln!(out, "{summary}")?;
        return Ok(t.violations == 0 && t.errors == 0);
    }
    writeln!(out, "cases: {}", t.cases)?;
    writeln!(out, "exact: {}", t.exact)?;
    writeln!(out, "within spec: {}", t.within)?;
    writeln!(out, "violations: {}", t.violations)?;
    if t.errors > 0 {
        writeln!(out, "errors: {}", t.errors)?;
    }
    Ok(t.violations == 0 && t.errors == 0)
}

pub fn check(a: CheckArgs) -> ExitCode {
    if let Err(e) = ptx::parse_instr(&a.instr) {
        return fail(format_args!("`{}`, {e}", a.instr));
    }
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = match a.file.as_ref().filter(|p| p.as_os_str() != "-") {
        Some(path) => std::fs::File::open(path)
            .and_then(|f| check_lines(&a, &mut io::BufReader::new(f), &mut out)),
        None => check_lines(&a, &mut io::stdin().lock(), &mut out),
    };
    let flushed = out.flush();
    match (result, flushed) {
        (Ok(true), Ok(())) => ExitCode::SUCCESS,
        (Ok(false), Ok(())) => ExitCode::FAILURE,
        (Err(e), _) | (_, Err(e)) => {
            let name = (a.file.as_ref())
                .filter(|p| p.as_os_str() != "-")
                .map_or("stdin".to_string(), |p| p.display().to_string());
            fail(format_args!("reading {name}: {e}"))
        }
    }
}
