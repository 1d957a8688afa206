//! The `gpufp` command: the command-line contract of DESIGN.md (`eval`, `batch`, `parse`).

use clap::{Parser, Subcommand};
use gpufp::ptx::value::{format_value, parse_value};
use gpufp::ptx::{self, Context, Instr, Notes, Opcode, PtxVersion, Target};
use gpufp::Policies;
use std::collections::HashMap;
use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

/// A bit-exact model of GPU floating-point instructions.
#[derive(Parser)]
#[command(name = "gpufp", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone, Copy)]
struct Where {
    /// Target (sm_XX, sm_XXa, sm_XXf); default: the lowest that has the instruction.
    #[arg(long, value_parser = parse_target)]
    target: Option<Target>,
    /// PTX ISA version (X.Y); default: the newest.
    #[arg(long, value_parser = parse_ptx)]
    ptx: Option<PtxVersion>,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate one instruction: result bits, decoded value, and the rules that decided it.
    Eval {
        #[command(flatten)]
        at: Where,
        /// The instruction, e.g. `fma.rn.ftz.sat.f32`.
        instr: String,
        /// Operands: `0x` bits of the full width, `0f`/`0d` literals, or decimal numbers.
        #[arg(allow_hyphen_values = true)]
        operands: Vec<String>,
    },
    /// Evaluate `INSTR OPERAND...` lines from FILE (or stdin): one result line per case.
    Batch {
        #[command(flatten)]
        at: Where,
        file: Option<std::path::PathBuf>,
    },
    /// Validate an instruction; print its canonical form, operands and requirements.
    Parse {
        #[command(flatten)]
        at: Where,
        /// Number of source operands (2 or 3 for min/max).
        #[arg(long)]
        operands: Option<u8>,
        /// The instruction, e.g. `min.ftz.NaN.xorsign.abs.f32`.
        instr: String,
    },
}

fn parse_target(s: &str) -> Result<Target, String> {
    s.parse()
}

fn parse_ptx(s: &str) -> Result<PtxVersion, String> {
    s.parse()
}

/// An instruction ready to evaluate: what it means and where it runs.
#[derive(Clone, Copy)]
struct Ready {
    instr: Instr,
    effective: Instr,
    ctx: Context,
}

/// Parses and validates `text` with `sources` source operands. Errors name the column.
fn prepare(
    text: &str,
    sources: usize,
    at: Where,
) -> Result<(Ready, ptx::Checked), (usize, String)> {
    let instr = ptx::parse_instr(text).map_err(|e| (e.span.start, e.message))?;
    let ready = validated(instr, sources, at).map_err(|e| (0, e))?;
    Ok(ready)
}

fn validated(mut instr: Instr, sources: usize, at: Where) -> Result<(Ready, ptx::Checked), String> {
    match instr.opcode {
        Opcode::Min | Opcode::Max if sources == 2 || sources == 3 => instr.inputs = sources as u8,
        o if sources != usize::from(o.default_inputs()) => {
            return Err(format!(
                "`{instr}` takes {} operand(s), got {sources}",
                o.default_inputs()
            ));
        }
        _ => {}
    }
    let checked = ptx::validate(&instr, at.target, at.ptx).map_err(|e| e.0.join("; "))?;
    let ctx = Context {
        target: Some(checked.default_target),
        policies: Policies::default(),
    };
    let ready = Ready {
        instr,
        effective: checked.effective,
        ctx,
    };
    Ok((ready, checked))
}

fn parse_operands(ready: &Ready, operands: &[&str]) -> Result<Vec<u64>, String> {
    operands
        .iter()
        .enumerate()
        .map(|(k, o)| parse_value(o, ready.instr.ty).map_err(|e| format!("operand {}: {e}", k + 1)))
        .collect()
}

fn result_text(ready: &Ready, bits: u64) -> String {
    match ready.instr.opcode {
        Opcode::Testp(_) => bits.to_string(),
        _ => format!("0x{bits:0w$x}", w = (ready.instr.ty.bits() / 4) as usize),
    }
}

fn eval(at: Where, text: &str, operands: &[String]) -> Result<String, String> {
    let (ready, checked) =
        prepare(text, operands.len(), at).map_err(|(col, e)| format!("column {}: {e}", col + 1))?;
    let ops: Vec<&str> = operands.iter().map(String::as_str).collect();
    let bits = parse_operands(&ready, &ops)?;
    let mut notes = Notes::default();
    let d = ptx::eval_traced(&ready.effective, &bits, &ready.ctx, &mut notes)
        .map_err(|e| e.to_string())?;
    let mut out = format!("{}\n", result_text(&ready, d));
    if !matches!(ready.instr.opcode, Opcode::Testp(_)) {
        out += &format!("value: {}\n", format_value(d, ready.instr.ty));
    }
    if ready.effective != ready.instr {
        out += &format!("means: {}\n", ready.effective);
    }
    for w in &checked.warnings {
        out += &format!("warning: {w}\n");
    }
    for n in &notes.notes {
        out += &format!("rule: {n}\n");
    }
    for (name, value, policies) in ready.ctx.policies.alternatives() {
        let ctx = Context {
            policies,
            ..ready.ctx
        };
        if let Ok(other) = ptx::eval(&ready.effective, &bits, &ctx) {
            if other != d {
                out += &format!(
                    "policy: depends on unverified policy `{name}`: with `{value}` the result is {}\n",
                    result_text(&ready, other)
                );
            }
        }
    }
    Ok(out)
}

/// The instructions a batch has seen, by spelling and operand count; the last one is checked
/// first since batches usually repeat one instruction.
/// An instruction prepared for a batch, or the error (with its column) every line using it gets.
type Prepared = Result<Ready, (usize, String)>;

#[derive(Default)]
struct Seen {
    last: Option<(String, usize, Prepared)>,
    all: HashMap<(String, usize), Prepared>,
}

impl Seen {
    fn get(&mut self, text: &str, n: usize, at: Where) -> Prepared {
        if let Some((t, k, r)) = &self.last {
            if t == text && *k == n {
                return r.clone();
            }
        }
        let key = (text.to_string(), n);
        let r = self
            .all
            .entry(key)
            .or_insert_with(|| prepare(text, n, at).map(|(r, _)| r))
            .clone();
        self.last = Some((text.to_string(), n, r.clone()));
        r
    }
}

/// Evaluates one batch line; the error carries the byte column.
fn batch_line(line: &str, at: Where, seen: &mut Seen) -> Result<String, (usize, String)> {
    let mut words = line.split([' ', '\t']).filter(|w| !w.is_empty());
    let instr_text = words.next().unwrap_or_default();
    let mut operands = [""; 3];
    let mut n = 0;
    for w in words {
        if n == operands.len() {
            return Err((col(line, w), "too many operands (at most 3)".into()));
        }
        operands[n] = w;
        n += 1;
    }
    let ready = seen
        .get(instr_text, n, at)
        .map_err(|(c, e)| (col(line, instr_text) + c, e))?;
    let mut bits = [0u64; 3];
    for k in 0..n {
        bits[k] = parse_value(operands[k], ready.instr.ty)
            .map_err(|e| (col(line, operands[k]), format!("operand {}: {e}", k + 1)))?;
    }
    let d = ptx::eval(&ready.effective, &bits[..n], &ready.ctx)
        .map_err(|e| (col(line, instr_text), e.to_string()))?;
    Ok(result_text(&ready, d))
}

/// The byte offset of `word` in `line` (`word` is a slice of it).
fn col(line: &str, word: &str) -> usize {
    word.as_ptr() as usize - line.as_ptr() as usize
}

fn batch(at: Where, input: &mut dyn BufRead) -> io::Result<bool> {
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut seen = Seen::default();
    let mut all_ok = true;
    let mut line = String::new();
    let mut number = 0usize;
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        number += 1;
        let text = line.trim_end_matches(['\n', '\r']);
        let trimmed = text.trim_start_matches([' ', '\t']);
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        match batch_line(text, at, &mut seen) {
            Ok(r) => writeln!(out, "{r}")?,
            Err((column, e)) => {
                all_ok = false;
                writeln!(out, "error: line {number}, column {}: {e}", column + 1)?;
            }
        }
    }
    out.flush()?;
    Ok(all_ok)
}

fn parse(at: Where, operands: Option<u8>, text: &str) -> Result<String, String> {
    let mut i = ptx::parse_instr(text).map_err(|e| {
        format!(
            "{text}\n{}^ {e}",
            " ".repeat(e.span.start + "error: ".len())
        )
    })?;
    if let Some(n) = operands {
        i.inputs = n;
    }
    let checked = ptx::validate(&i, at.target, at.ptx).map_err(|e| e.0.join("\n"))?;
    let ty = format!(".{} ({} bits)", i.ty.name(), i.ty.bits());
    let dest = if matches!(i.opcode, Opcode::Testp(_)) {
        ".pred".to_string()
    } else {
        ty.clone()
    };
    let srcs = ["a", "b", "c"][..usize::from(i.inputs).min(3)].join(", ");
    let mut out = format!("{i}\noperands: d: {dest}; {srcs}: {ty}\n");
    if checked.effective != i {
        out += &format!("means: {}\n", checked.effective);
    }
    out += &format!(
        "requires: {}, PTX ISA {}\n",
        checked.min_target, checked.min_ptx
    );
    for n in &checked.needs {
        out += &format!("  {}: sm_{}, PTX ISA {}\n", n.feature, n.sm, n.ptx);
    }
    for w in &checked.warnings {
        out += &format!("warning: {w}\n");
    }
    Ok(out)
}

fn report(r: Result<String, String>) -> ExitCode {
    match r {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Eval {
            at,
            instr,
            operands,
        } => report(eval(at, &instr, &operands)),
        Command::Parse {
            at,
            operands,
            instr,
        } => report(parse(at, operands, &instr)),
        Command::Batch { at, file } => {
            let result = match &file {
                Some(path) => {
                    std::fs::File::open(path).and_then(|f| batch(at, &mut io::BufReader::new(f)))
                }
                None => batch(at, &mut io::stdin().lock()),
            };
            match result {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::FAILURE,
                Err(e) => {
                    let name = file.map_or("stdin".to_string(), |p| p.display().to_string());
                    eprintln!("error: reading {name}: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}
