//! `gpufp run FILE` (`-`: standard input): runs a straight-line PTX snippet and prints what it
//! wrote.

use gpufp::ptx::run::{parse_program, Machine};
use gpufp::ptx::Target;
use std::path::Path;

/// Runs `file` with the registers of `sets` (`REG=VALUE`) and the memory of `mems`
/// (`ADDR=0xWORD,...`); returns the written registers and stored memory,
/// after every write in order if `trace`.
pub fn run(
    file: &Path,
    target: Option<Target>,
    sets: &[String],
    mems: &[String],
    trace: bool,
) -> Result<String, String> {
    let text = crate::read_file(file)?;
    let program = parse_program(&text, target).map_err(|e| format!("{}: {e}", file.display()))?;
    let mut machine = Machine::new(&program);
    for s in sets {
        machine
            .set(&program, s)
            .map_err(|e| format!("--set {s}: {e}"))?;
    }
    for m in mems {
        machine.set_mem(m).map_err(|e| format!("--mem {m}: {e}"))?;
    }
    machine
        .run(&program)
        .map_err(|e| format!("{}: {e}", file.display()))?;
    let mut out = String::new();
    if trace {
        out += &machine.trace(&program);
        out += "final:\n";
    }
    out += &machine.report(&program);
    Ok(out)
}
