//! `gpufp fit-sfu` and the `--sfu-tables FILE` / `GPUFP_SFU_TABLES` choice of MUFU core
//! (docs/sfu.md).

use gpufp::mufu::fit::{self, Outcome};
use gpufp::mufu::interp::Interpolator;
use gpufp::mufu::table::Tables;
use gpufp::mufu::{CoreRef, Op};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The environment variable naming a table file when `--sfu-tables` is absent.
pub const ENV: &str = "GPUFP_SFU_TABLES";

/// The `--sfu-tables` option shared by `eval` and `batch`.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct SfuTables {
    /// MUFU coefficient table file (docs/sfu.md): use the quadratic-interpolator model of
    /// RCP, RSQ, EX2, LG2, SIN/COS instead of the correctly rounded core
    /// (default: $GPUFP_SFU_TABLES, else the correctly rounded core).
    #[arg(long, value_name = "FILE")]
    pub sfu_tables: Option<PathBuf>,
}

impl SfuTables {
    /// The core to evaluate with: the interpolator over the named table file, or the default.
    pub fn core(&self) -> Result<CoreRef, String> {
        let path = match &self.sfu_tables {
            Some(p) => p.clone(),
            None => match std::env::var_os(ENV) {
                Some(p) if !p.is_empty() => PathBuf::from(p),
                _ => return Ok(CoreRef::default()),
            },
        };
        let tables = load(&path)?;
        let name = path.display().to_string();
        Ok(CoreRef::new(Arc::new(Interpolator::new(tables, name))))
    }
}

fn load(path: &Path) -> Result<Tables, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("reading SFU tables {}: {e}", path.display()))?;
    Tables::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The core names `fit-sfu` accepts.
fn parse_op(name: &str) -> Result<Op, String> {
    Ok(match name {
        "rcp" => Op::Rcp,
        "rsqrt" | "rsq" => Op::Rsq,
        "ex2" => Op::Ex2,
        "lg2" => Op::Lg2,
        "sin" => Op::Sin,
        "cos" => Op::Cos,
        _ => {
            return Err(format!(
                "`{name}`: expected rcp, rsqrt, ex2, lg2, sin or cos"
            ))
        }
    })
}

/// `gpufp fit-sfu FUNCTION CAPTURE -o TABLE`: fits, writes the table when every segment is
/// explained, and reports. Errors when a segment is unexplained or uncovered.
pub fn fit_sfu(function: &str, capture: &Path, output: &Path) -> Result<String, String> {
    let op = parse_op(function)?;
    let text = std::fs::read_to_string(capture)
        .map_err(|e| format!("reading {}: {e}", capture.display()))?;
    let pairs = fit::parse_capture(&text).map_err(|e| format!("{}: {e}", capture.display()))?;
    let result = fit::fit(op, &pairs)?;
    let mut out = format!(
        "{} captured pairs for {function} (table `{}`)\n",
        result.captured, result.func
    );
    for (a, got, model) in result.special_mismatches.iter().take(10) {
        out += &format!(
            "special value differs: input 0x{a:08x} captured 0x{got:08x}, model 0x{model:08x}\n"
        );
    }
    for attempt in &result.attempts {
        let count = |f: fn(&Outcome) -> bool| attempt.segments.iter().filter(|o| f(o)).count();
        out += &format!(
            "{} segments: {} fitted, {} unexplained, {} not covered",
            attempt.segments.len(),
            count(|o| matches!(o, Outcome::Fitted { .. })),
            count(|o| matches!(o, Outcome::Unexplained(_))),
            count(|o| matches!(o, Outcome::Uncovered(_))),
        );
        if attempt.complete() {
            out += &format!(
                "; {} with several solutions the capture cannot tell apart\n",
                count(|o| matches!(o, Outcome::Fitted { solutions, .. } if *solutions > 1))
            );
        } else {
            out += "\n";
        }
    }
    // Without a table, the details at the model's segment count.
    let model = result.func.model_index_bits();
    if result.table.is_none() {
        for attempt in result.attempts.iter().filter(|a| a.bits == model) {
            for (i, o) in attempt.segments.iter().enumerate() {
                match o {
                    Outcome::Fitted { .. } => {}
                    Outcome::Unexplained(why) => {
                        out += &format!("  segment {i}: unexplained: {why}\n")
                    }
                    Outcome::Uncovered(why) => {
                        out += &format!("  segment {i}: not covered: {why}\n")
                    }
                }
            }
        }
    }
    match (&result.table, result.table_text()) {
        (Some((_, reproduced)), Some(table)) => {
            std::fs::write(output, table)
                .map_err(|e| format!("writing {}: {e}", output.display()))?;
            out += &format!(
                "wrote {}: reproduces {reproduced} of {} captured pairs\n",
                output.display(),
                result.captured
            );
            if *reproduced == result.captured {
                Ok(out)
            } else {
                Err(format!(
                    "{out}the fitted table does not reproduce every pair"
                ))
            }
        }
        _ => Err(format!(
            "{out}no segment count explains the whole capture; no table written"
        )),
    }
}
