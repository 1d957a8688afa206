//! MUFU captures for the table fitter (docs/sfu.md, "Capturing and fitting on a GPU"): the
//! device's result for inputs across the binades the fitter needs, written as `INPUT OUTPUT`
//! lines of MUFU operands and results, the capture file `gpufp fit-sfu` reads.
//!
//! For RCP, RSQ, EX2 and LG2 the bare `.ftz` instruction is a single MUFU operation, so its operand
//! is the MUFU's. `sin.approx.f32` and `cos.approx.f32` first multiply by 1/(2π) with `FMUL.RZ`
//! (as ptxas compiles them); the MUFU operand is that product, computed here with the model's exact
//! multiplication, and only products inside the capture range are kept.

use crate::backend::{Backend, Batch, HwError};
use gpufp::ptx::approx::INV_2PI;
use gpufp::ptx::{parse_instr, Instr};
use gpufp::{ieee, Format, Round, Rounding, F32};

/// One capture: the core's name for `gpufp fit-sfu`, the instruction observed, and the range of
/// MUFU operands `[from, to]` (bit patterns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capture {
    pub core: &'static str,
    pub instr: &'static str,
    pub from: u32,
    pub to: u32,
}

/// The captures of docs/sfu.md's table "What to capture".
pub const CAPTURES: [Capture; 6] = [
    // [1, 2): the significand does not depend on the exponent.
    Capture {
        core: "rcp",
        instr: "rcp.approx.ftz.f32",
        from: 0x3F80_0000,
        to: 0x3FFF_FFFF,
    },
    // [1, 4): the exponent's parity selects the table half.
    Capture {
        core: "rsqrt",
        instr: "rsqrt.approx.ftz.f32",
        from: 0x3F80_0000,
        to: 0x407F_FFFF,
    },
    Capture {
        core: "ex2",
        instr: "ex2.approx.ftz.f32",
        from: 0x3F80_0000,
        to: 0x3FFF_FFFF,
    },
    // [0.5, 2).
    Capture {
        core: "lg2",
        instr: "lg2.approx.ftz.f32",
        from: 0x3F00_0000,
        to: 0x3FFF_FFFF,
    },
    // Revolutions [0.25, 0.5): every quadrant fraction.
    Capture {
        core: "sin",
        instr: "sin.approx.ftz.f32",
        from: 0x3E80_0000,
        to: 0x3EFF_FFFF,
    },
    Capture {
        core: "cos",
        instr: "cos.approx.ftz.f32",
        from: 0x3E80_0000,
        to: 0x3EFF_FFFF,
    },
];

impl Capture {
    fn revolutions(&self) -> bool {
        matches!(self.core, "sin" | "cos")
    }

    /// The instruction.
    pub fn instr(&self) -> Result<Instr, HwError> {
        parse_instr(self.instr).map_err(|e| HwError(format!("`{}`: {e}", self.instr)))
    }

    /// The MUFU operand of the instruction's operand `x`.
    pub fn mufu_operand(&self, x: u32) -> u32 {
        if self.revolutions() {
            let t = ieee::mul(
                F32::from_bits(u64::from(x)),
                F32::from_bits(INV_2PI),
                Rounding::ieee(Round::Rz),
            );
            t.to_bits() as u32
        } else {
            x
        }
    }

    /// The instruction's operands, every `stride`-th of the range: for sin and cos, the operands
    /// whose product with 1/(2π) lands in the range, i.e. `x` in about [π/2, π).
    pub fn operands(&self, stride: u32) -> Vec<u32> {
        let stride = stride.max(1);
        if self.revolutions() {
            // 0x3FC90FDA is just below π/2, 0x40490FDC just above π.
            (0x3FC9_0FDAu32..=0x4049_0FDC)
                .step_by(stride as usize)
                .filter(|&x| (self.from..=self.to).contains(&self.mufu_operand(x)))
                .collect()
        } else {
            (self.from..=self.to).step_by(stride as usize).collect()
        }
    }

    /// Runs the capture on `backend`: the capture file's text, a `#` header then `INPUT OUTPUT`
    /// per line (the MUFU's operand and result).
    pub fn run(&self, backend: &mut dyn Backend, stride: u32) -> Result<String, HwError> {
        let i = self.instr()?;
        let xs = self.operands(stride);
        let cases: Vec<[u64; 3]> = xs.iter().map(|&x| [u64::from(x), 0, 0]).collect();
        let mut results = Vec::with_capacity(cases.len());
        for part in cases.chunks(1 << 24) {
            results.extend(backend.run(&i, &Batch::Cases(part))?);
        }
        let mut t = format!(
            "# MUFU.{} via {}, {}; operands 0x{:08x}-0x{:08x}, every {stride}th instruction input\n",
            self.core.to_uppercase(),
            self.instr,
            backend.describe(),
            self.from,
            self.to
        );
        for (x, r) in xs.iter().zip(results) {
            t += &format!("0x{:08x} 0x{r:08x}\n", self.mufu_operand(*x));
        }
        Ok(t)
    }
}
