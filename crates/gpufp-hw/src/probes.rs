//! The hardware probes of the open policies (docs/semantics.md): explicit cases
//! whose device results settle each open decision. The harness runs them like any other cases,
//! and for each mismatch names the policy alternatives that reproduce the device's bits.

use gpufp::ptx::{parse_instr, Instr};

/// One probe set: the instruction (text), its operand count, the question, and the cases.
pub struct Probe {
    pub instr: String,
    pub inputs: u8,
    pub question: &'static str,
    pub cases: Vec<[u64; 3]>,
}

impl Probe {
    /// The parsed instruction with its operand count.
    pub fn instr(&self) -> Result<Instr, String> {
        let mut i = parse_instr(&self.instr).map_err(|e| format!("probe `{}`: {e}", self.instr))?;
        i.inputs = self.inputs;
        Ok(i)
    }
}

const FTZ: &str = "§3.1 FTZ: is a result that rounds up to the smallest normal flushed? \
                   (a) IEEE-rounded, (b) before rounding, (c) unbounded-exponent rounding";

fn p(instr: impl Into<String>, inputs: u8, question: &'static str, cases: &[[u64; 3]]) -> Probe {
    Probe {
        instr: instr.into(),
        inputs,
        question,
        cases: cases.to_vec(),
    }
}

/// Every probe.
pub fn all() -> Vec<Probe> {
    // f32: 0x3F7FFFFE * 0x00800001 = 2^-126 (1 - 2^-46); 0x3F7FFFFF * 0x00800000 = 2^-126 - 2^-150.
    let mul32 = [
        [0x3F7F_FFFE, 0x0080_0001, 0],
        [0x3F7F_FFFF, 0x0080_0000, 0],
        [0xBF7F_FFFE, 0x0080_0001, 0],
        [0xBF7F_FFFF, 0x0080_0000, 0],
    ];
    let fma32: Vec<[u64; 3]> = mul32
        .iter()
        .flat_map(|c| [[c[0], c[1], 0], [c[0], c[1], 0x8000_0000]])
        .collect();
    // f16: 0x3BFE * 0x0401 = 2^-14 (1 - 2^-20); 0x3BFF * 0x0400 = 2^-14 - 2^-25.
    let mul16 = [
        [0x3BFE, 0x0401, 0],
        [0x3BFF, 0x0400, 0],
        [0xBBFE, 0x0401, 0],
        [0xBBFF, 0x0400, 0],
    ];
    let mut out = Vec::new();
    for r in ["rn", "rz", "rm", "rp"] {
        out.push(p(format!("mul.{r}.ftz.f32"), 2, FTZ, &mul32));
        out.push(p(format!("fma.{r}.ftz.f32"), 3, FTZ, &fma32));
        out.push(p(format!("mul.{r}.ftz.f16"), 2, FTZ, &mul16));
    }
    out.push(p(
        "add.rn.ftz.f32",
        2,
        FTZ,
        &[[0x0080_0001, 0x8080_0000, 0], [0x0080_0000, 0x8000_0001, 0]],
    ));
    // f64 NaN payloads: qNaN 0x7FF8...1, 0x7FF8...2, sNaN 0x7FF0...3, with a number (1.0).
    let (q1, q2, s3, one) = (
        0x7FF8_0000_0000_0001,
        0xFFF8_0000_0000_0002,
        0x7FF0_0000_0000_0003,
        0x3FF0_0000_0000_0000,
    );
    let pairs = [
        [q1, q2, 0],
        [q2, q1, 0],
        [s3, q1, 0],
        [q1, s3, 0],
        [one, s3, 0],
        [s3, one, 0],
        [one, q2, 0],
    ];
    const NAN64: &str = "§3.2 f64 NaN propagation: which NaN operand, quieted, payload kept?";
    for i in [
        "add.rn.f64",
        "sub.rn.f64",
        "mul.rn.f64",
        "div.rn.f64",
        "min.f64",
        "max.f64",
    ] {
        out.push(p(i, 2, NAN64, &pairs));
    }
    let triples: Vec<[u64; 3]> = [
        [q1, q2, s3],
        [one, one, s3],
        [s3, one, q1],
        [one, q2, q1],
        [0x7FF0_0000_0000_0000, 0, one],
    ]
    .to_vec();
    out.push(p("fma.rn.f64", 3, NAN64, &triples));
    for i in ["sqrt.rn.f64", "rcp.rn.f64"] {
        out.push(p(
            i,
            1,
            NAN64,
            &[
                [q1, 0, 0],
                [s3, 0, 0],
                [q2, 0, 0],
                [0xBFF0_0000_0000_0000, 0, 0],
            ],
        ));
    }
    const RELU: &str = "§3.3 .relu: does -0.0 become +0.0?";
    let relu16 = [
        [0x8000, 0x3C00, 0x8000],
        [0x3C00, 0x8000, 0x8000],
        [0xBC00, 0x3C00, 0x3C00],
        [0x7E01, 0x3C00, 0],
    ];
    out.push(p("fma.rn.relu.f16", 3, RELU, &relu16));
    out.push(p(
        "fma.rn.relu.bf16",
        3,
        RELU,
        &[
            [0x8000, 0x3F80, 0x8000],
            [0xBF80, 0x3F80, 0x3F80],
            [0x7FC1, 0x3F80, 0],
        ],
    ));
    const OOB: &str = "§3.4 .oob: which NaN is the out-of-bounds value that forces +0.0?";
    let mut oob = Vec::new();
    for nan in [0x7FFF, 0x7E00, 0xFFFF, 0x7C01, 0x7E01] {
        oob.extend([
            [nan, 0x3C00, 0x3C00],
            [0x3C00, nan, 0x3C00],
            [0x3C00, 0x3C00, nan],
        ]);
    }
    out.push(p("fma.rn.oob.f16", 3, OOB, &oob));
    out.push(p("fma.rn.oob.relu.f16", 3, OOB, &oob));
    const BOTH: &str = "§3.5 half min/max, both NaN, no .NaN: canonical NaN or operand b?";
    let both = [
        [0x7E01, 0x7E02, 0],
        [0xFE03, 0x7C01, 0],
        [0x7C01, 0xFE04, 0],
    ];
    for i in ["min.f16", "max.f16", "min.bf16", "max.bf16"] {
        let c: Vec<[u64; 3]> = if i.ends_with("bf16") {
            [[0x7FC1, 0x7FC2, 0], [0xFFC3, 0x7F81, 0]].to_vec()
        } else {
            both.to_vec()
        };
        out.push(p(i, 2, BOTH, &c));
    }
    const XOR: &str = "§2 half max .xorsign guard: !isNaN(d) (typo reading) or !isNaN(fA)?";
    let xs = [
        [0x7E00, 0xBC00, 0],
        [0xFE00, 0x3C00, 0],
        [0xBC00, 0x7E00, 0],
        [0x3C00, 0xFE00, 0],
        [0x7E00, 0xFE00, 0],
    ];
    for i in [
        "max.xorsign.abs.f16",
        "min.xorsign.abs.f16",
        "max.xorsign.abs.f16x2",
    ] {
        out.push(p(i, 2, XOR, &xs));
    }
    const ABS: &str = "§2 abs/neg at run time: NaN -> canonical NaN, abs(-0) = +0 (FADD lowering)";
    for i in ["abs.f32", "neg.f32", "abs.ftz.f32"] {
        out.push(p(
            i,
            1,
            ABS,
            &[
                [0xFFC0_0001, 0, 0],
                [0x7F80_0001, 0, 0],
                [0x8000_0000, 0, 0],
                [0x8000_0001, 0, 0],
            ],
        ));
    }
    for i in ["abs.f64", "neg.f64"] {
        out.push(p(
            i,
            1,
            NAN64,
            &[
                [0xFFF0_0000_0000_0001, 0, 0],
                [q1, 0, 0],
                [0x8000_0000_0000_0000, 0, 0],
            ],
        ));
    }
    out
}
