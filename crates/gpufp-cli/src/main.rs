//! The `gpufp` command: the command-line contract of DESIGN.md. `parse` is here; `eval` and
//! `batch` arrive with instruction evaluation.

use clap::{Parser, Subcommand};
use gpufp::ptx::{self, Instr, Opcode, PtxVersion, Target};
use std::process::ExitCode;

/// A bit-exact model of GPU floating-point instructions.
#[derive(Parser)]
#[command(name = "gpufp", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a PTX instruction; print its canonical form, operands and requirements.
    Parse {
        /// Check against this target (sm_XX, sm_XXa, sm_XXf); default: the lowest that has it.
        #[arg(long, value_parser = Target::from_str_arg)]
        target: Option<Target>,
        /// Check against this PTX ISA version (X.Y); default: the newest.
        #[arg(long, value_parser = PtxVersion::from_str_arg)]
        ptx: Option<PtxVersion>,
        /// Number of source operands (2 or 3 for min/max).
        #[arg(long)]
        operands: Option<u8>,
        /// The instruction, e.g. `min.ftz.NaN.xorsign.abs.f32`.
        instr: String,
    },
}

trait FromStrArg: Sized {
    fn from_str_arg(s: &str) -> Result<Self, String>;
}

impl<T: std::str::FromStr<Err = String>> FromStrArg for T {
    fn from_str_arg(s: &str) -> Result<Self, String> {
        s.parse()
    }
}

fn operand_line(i: &Instr) -> String {
    let ty = format!(".{} ({} bits)", i.ty.name(), i.ty.bits());
    let names = ["a", "b", "c"];
    let srcs = names[..usize::from(i.inputs).min(3)].join(", ");
    let dest = match i.opcode {
        Opcode::Testp(_) => ".pred".to_string(),
        _ => ty.clone(),
    };
    format!("d: {dest}; {srcs}: {ty}")
}

fn parse(
    target: Option<Target>,
    ptx: Option<PtxVersion>,
    operands: Option<u8>,
    text: &str,
) -> Result<String, String> {
    let mut i = ptx::parse_instr(text).map_err(|e| {
        format!(
            "{text}\n{}^ {e}",
            " ".repeat(e.span.start + "error: ".len())
        )
    })?;
    if let Some(n) = operands {
        i.inputs = n;
    }
    let checked = ptx::validate(&i, target, ptx).map_err(|e| e.0.join("\n"))?;
    let mut out = format!("{i}\noperands: {}\n", operand_line(&i));
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

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Parse {
            target,
            ptx,
            operands,
            instr,
        } => match parse(target, ptx, operands, &instr) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
    }
}
