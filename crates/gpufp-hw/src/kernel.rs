//! The PTX kernel that runs one instruction over a range of cases: one thread per case, operands
//! computed from the case index exactly as `gpufp::vectors::sweep` defines them (docs/vectors.md),
//! or read from a buffer of explicit cases, and the result bits stored for the host.
//!
//! Parameters: `out` (results, `result_bytes` each, case `base + j` at element `j`), `inp`
//! (explicit cases: `inputs` u64 operands per case, case `j` first), `base` (the first case index),
//! `n` (the number of cases), `seed` (the random sweep's seed).
//!
//! The operand computation lies between the lines `// operands: begin` and `// operands: end`;
//! it uses only 64-bit integer instructions, so a test can interpret it on the CPU. The case index
//! is in `%rd8`, the seed in `%rd5`, and operand `k` ends in `%rd{10 + k}`.

use gpufp::ptx::{Instr, Opcode, PtxVersion, Target, Type};
use gpufp::vectors::sweep::GOLDEN;

/// The kernel's entry point.
pub const ENTRY: &str = "gpufp_hw";

/// Where the kernel's operands come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// The exhaustive sweep: operand `k`'s lane pattern is bits `[k*l, (k+1)*l)` of the case
    /// index (`l` the lane width), the same pattern in every lane of a packed type.
    Exhaustive,
    /// The random sweep: operand `k` of case `i` is `mix(seed + GOLDEN * (4i + k + 1))`.
    Random,
    /// Explicit cases, read from `inp`.
    Cases,
}

/// The SplitMix64 finalizer's multipliers (`gpufp::vectors::mix`).
const MIX1: u64 = 0xbf58_476d_1ce4_e5b9;
const MIX2: u64 = 0x94d0_49bb_1331_11eb;

/// Bytes of one stored result: the instruction's full width, one byte for `testp`'s predicate.
pub fn result_bytes(i: &Instr) -> usize {
    match i.opcode {
        Opcode::Testp(_) => 1,
        _ => (i.ty.bits() / 8) as usize,
    }
}

/// The register type an operand of `ty` lives in, and the suffix of its store.
fn reg_type(ty: Type) -> &'static str {
    match ty {
        Type::F32 => "f32",
        Type::F64 => "f64",
        Type::F16 | Type::Bf16 => "b16",
        Type::F16x2 | Type::Bf16x2 => "b32",
        Type::F32x2 => "b64",
    }
}

fn mask(width: u32) -> Option<u64> {
    (width < 64).then(|| (1u64 << width) - 1)
}

/// `z = mix(z)` on register `z`, with `%rd14` as scratch.
fn mix(out: &mut String, z: &str) {
    for (shift, mul) in [(30, Some(MIX1)), (27, Some(MIX2)), (31, None)] {
        out.push_str(&format!("  shr.u64 %rd14, {z}, {shift};\n"));
        out.push_str(&format!("  xor.b64 {z}, {z}, %rd14;\n"));
        if let Some(m) = mul {
            out.push_str(&format!("  mul.lo.u64 {z}, {z}, 0x{m:016x};\n"));
        }
    }
}

/// The operand computation: operand `k` into `%rd{10 + k}` from the case index `%rd8` (and, for
/// explicit cases, the launch index `%rd6` and the buffer `%rd2`).
fn operands(i: &Instr, source: Source) -> String {
    let n = u32::from(i.inputs);
    let width = i.ty.bits();
    let lanes = i.ty.lanes();
    let lane = width / lanes;
    let mut s = String::from("  // operands: begin\n");
    match source {
        Source::Exhaustive => {
            for k in 0..n {
                let r = format!("%rd{}", 10 + k);
                s += &format!("  shr.u64 {r}, %rd8, {};\n", k * lane);
                if let Some(m) = mask(lane) {
                    s += &format!("  and.b64 {r}, {r}, 0x{m:x};\n");
                }
                if lanes > 1 {
                    // Every lane gets the same pattern p: p | p << lane.
                    s += &format!("  mov.u64 %rd15, {r};\n");
                    for l in 1..lanes {
                        s += &format!("  shl.b64 %rd14, %rd15, {};\n", l * lane);
                        s += &format!("  or.b64 {r}, {r}, %rd14;\n");
                    }
                }
            }
        }
        Source::Random => {
            s += "  shl.b64 %rd9, %rd8, 2;\n";
            for k in 0..n {
                let r = format!("%rd{}", 10 + k);
                s += &format!("  add.u64 %rd13, %rd9, {};\n", k + 1);
                s += &format!("  mad.lo.u64 {r}, %rd13, 0x{GOLDEN:016x}, %rd5;\n");
                mix(&mut s, &r);
                if let Some(m) = mask(width) {
                    s += &format!("  and.b64 {r}, {r}, 0x{m:x};\n");
                }
            }
        }
        Source::Cases => {
            s += &format!("  mad.lo.u64 %rd9, %rd6, {}, %rd2;\n", 8 * n);
            for k in 0..n {
                s += &format!("  ld.global.u64 %rd{}, [%rd9+{}];\n", 10 + k, 8 * k);
            }
        }
    }
    s + "  // operands: end\n"
}

/// The PTX module that runs `i` (as spelled canonically) for `source` on `target`, declared as
/// PTX ISA `version`, with the entry point [`ENTRY`].
pub fn kernel(i: &Instr, source: Source, target: Target, version: PtxVersion) -> String {
    format!(
        "// gpufp-hw: {i} ({} input(s)), {source:?} operands\n\
         .version {version}\n.target {target}\n.address_size 64\n\n{}",
        i.inputs,
        entry(i, source, ENTRY)
    )
}

/// The kernel's entry point, named `name`, without the module header (several can share a
/// module).
pub fn entry(i: &Instr, source: Source, name: &str) -> String {
    let rt = reg_type(i.ty);
    let n = u32::from(i.inputs);
    let size = result_bytes(i);
    let mut s = format!(
        ".visible .entry {name}(\n  .param .u64 out,\n  .param .u64 inp,\n  .param .u64 base,\n  \
         .param .u64 n,\n  .param .u64 seed)\n{{\n\
         \x20 .reg .pred %p<3>;\n  .reg .b32 %w<8>;\n  .reg .b64 %rd<24>;\n  .reg .{rt} %v<4>;\n\
         \x20 ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [inp];\n  ld.param.u64 %rd3, [base];\n\
         \x20 ld.param.u64 %rd4, [n];\n  ld.param.u64 %rd5, [seed];\n\
         \x20 mov.u32 %w1, %ctaid.x;\n  mov.u32 %w2, %ntid.x;\n  mov.u32 %w3, %tid.x;\n\
         \x20 mul.wide.u32 %rd6, %w1, %w2;\n  cvt.u64.u32 %rd7, %w3;\n  add.u64 %rd6, %rd6, %rd7;\n\
         \x20 setp.ge.u64 %p1, %rd6, %rd4;\n  @%p1 bra DONE;\n  add.u64 %rd8, %rd3, %rd6;\n"
    );
    s += &operands(i, source);
    for k in 0..n {
        let r = 10 + k;
        s += &match rt {
            "f32" => format!(
                "  cvt.u32.u64 %w{}, %rd{r};\n  mov.b32 %v{k}, %w{};\n",
                4 + k,
                4 + k
            ),
            "b16" => format!("  cvt.u16.u64 %v{k}, %rd{r};\n"),
            "b32" => format!("  cvt.u32.u64 %v{k}, %rd{r};\n"),
            _ => format!("  mov.b64 %v{k}, %rd{r};\n"),
        };
    }
    let srcs: Vec<String> = (0..n).map(|k| format!("%v{k}")).collect();
    s += &format!("  mad.lo.u64 %rd20, %rd6, {size}, %rd1;\n");
    if matches!(i.opcode, Opcode::Testp(_)) {
        s += &format!(
            "  {i} %p2, {};\n  selp.u32 %w7, 1, 0, %p2;\n  st.global.u8 [%rd20], %w7;\n",
            srcs.join(", ")
        );
    } else {
        s += &format!(
            "  {i} %v3, {};\n  st.global.{rt} [%rd20], %v3;\n",
            srcs.join(", ")
        );
    }
    s + "DONE:\n  ret;\n}\n"
}
