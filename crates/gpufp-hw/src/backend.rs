//! Where cases run: a [`Backend`] returns the result bits of a batch of cases. [`crate::device::Gpu`]
//! runs the generated kernel on an NVIDIA GPU; [`Emulator`] evaluates the model itself, so the
//! whole harness (batches, digests, comparison, report) runs and is tested without a GPU.

use core::fmt;
use gpufp::ptx::{self, Context, Instr, PtxVersion, Target};
use gpufp::vectors::Plan;

/// Why cases could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HwError(pub String);

impl fmt::Display for HwError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HwError {}

/// A batch of cases of one instruction.
#[derive(Clone, Copy, Debug)]
pub enum Batch<'a> {
    /// Cases `[base, base + n)` of a sweep.
    Sweep { plan: &'a Plan, base: u64, n: u64 },
    /// Explicit cases (the first `instr.inputs` operands of each are used).
    Cases(&'a [[u64; 3]]),
}

impl Batch<'_> {
    /// Number of cases.
    pub fn len(&self) -> u64 {
        match self {
            Batch::Sweep { n, .. } => *n,
            Batch::Cases(c) => c.len() as u64,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The operands of the batch's case `j`.
    pub fn operands(&self, j: u64) -> [u64; 3] {
        match self {
            Batch::Sweep { plan, base, .. } => plan.operands(base + j),
            Batch::Cases(c) => c[j as usize],
        }
    }
}

/// Something that runs instructions on operand bits.
pub trait Backend {
    /// What it is, for reports: the GPU's name and target, or "emulator".
    fn describe(&self) -> String;
    /// The target its instructions are validated for.
    fn target(&self) -> Target;
    /// The result bits of every case of `batch`, in order (`testp`: 0 or 1).
    fn run(&mut self, instr: &Instr, batch: &Batch) -> Result<Vec<u64>, HwError>;
}

/// The PTX ISA version a module running `i` on `target` declares: the lowest that has both.
/// An error when `i` is not valid on `target`.
pub fn ptx_version(i: &Instr, target: Target) -> Result<PtxVersion, HwError> {
    let checked = ptx::validate(i, Some(target), None)
        .map_err(|e| HwError(format!("`{i}` is not valid on {target}: {e}")))?;
    Ok(checked.min_ptx.max(target.min_ptx()))
}

/// The model as a backend: each case evaluated with `gpufp::ptx::eval`. `fault` flips bits of
/// one case's result (case index within the sweep, or within the case list; XOR mask) so that
/// tests can check that the harness finds a wrong result.
pub struct Emulator {
    pub target: Target,
    pub ctx: Context,
    pub fault: Option<(u64, u64)>,
}

impl Backend for Emulator {
    fn describe(&self) -> String {
        format!("emulator (the model itself), {}", self.target)
    }

    fn target(&self) -> Target {
        self.target
    }

    fn run(&mut self, instr: &Instr, batch: &Batch) -> Result<Vec<u64>, HwError> {
        let n = usize::from(instr.inputs);
        let first = match batch {
            Batch::Sweep { base, .. } => *base,
            Batch::Cases(_) => 0,
        };
        (0..batch.len())
            .map(|j| {
                let ops = batch.operands(j);
                let r = crate::compare::model_result(instr, &ops[..n], &self.ctx)
                    .map_err(|e| HwError(format!("emulator: `{instr}`: {e}")))?;
                Ok(match self.fault {
                    Some((case, flip)) if case == first + j => r ^ flip,
                    _ => r,
                })
            })
            .collect()
    }
}
