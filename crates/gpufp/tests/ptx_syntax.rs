//! The PTX instruction model against the manual and ptxas: every example and syntax line of
//! PTX ISA 9.7.3/9.7.4 parses, prints back canonically and validates on its documented target;
//! forbidden combinations are rejected with a specific message; the validator's verdicts equal
//! ptxas 13.5's on its recorded legality matrix; parse(print(x)) == x; no input panics.

use gpufp::ptx::{self, Instr, Modifiers, Opcode, PtxVersion, Target, Type};
use gpufp::Round;
use proptest::prelude::*;

fn target(s: &str) -> Target {
    s.parse().expect("known target")
}

/// Every floating-point example statement of the manual files, by section. Two examples lack
/// the closing `;` in the manual (9.7.3.5, 9.7.4.7); it is added here.
const EXAMPLES: &[(&str, &str)] = &[
    ("9.7.3.1", "testp.notanumber.f32  isnan, f0;"),
    ("9.7.3.1", "testp.infinite.f64    p, X;"),
    ("9.7.3.2", "copysign.f32  x, y, z;"),
    ("9.7.3.2", "copysign.f64  A, B, C;"),
    ("9.7.3.3", "@p  add.rz.ftz.f32  f1,f2,f3;"),
    ("9.7.3.3", "add.rp.ftz.f32x2    d, a, b;"),
    ("9.7.3.4", "sub.f32 c,a,b;"),
    ("9.7.3.4", "sub.rn.ftz.f32  f1,f2,f3;"),
    ("9.7.3.5", "mul.ftz.f32 circumf,radius,pi;"),
    ("9.7.3.6", "fma.rn.ftz.f32  w,x,y,z;"),
    ("9.7.3.6", "@p  fma.rn.f64      d,a,b,c;"),
    ("9.7.3.6", "fma.rp.ftz.f32x2 p,q,r,s;"),
    ("9.7.3.7", "@p  mad.f32  d,a,b,c;"),
    ("9.7.3.8", "div.approx.ftz.f32  diam,circum,3.14159;"),
    ("9.7.3.8", "div.full.ftz.f32    x, y, z;"),
    ("9.7.3.8", "div.rn.f64          xd, yd, zd;"),
    ("9.7.3.9", "abs.ftz.f32  x,f0;"),
    ("9.7.3.10", "neg.ftz.f32  x,f0;"),
    ("9.7.3.11", "@p  min.ftz.f32  z,z,x;"),
    ("9.7.3.11", "min.f64      a,b,c;"),
    ("9.7.3.11", "min.NaN.f32  f0,f1,f2;"),
    ("9.7.3.11", "min.xorsign.abs.f32 Rd, Ra, Rb;"),
    ("9.7.3.12", "max.ftz.f32  f0,f1,f2;"),
    ("9.7.3.12", "max.f64      a,b,c;"),
    ("9.7.3.12", "max.NaN.f32  f0,f1,f2;"),
    ("9.7.3.12", "max.xorsign.abs.f32 Rd, Ra, Rb;"),
    ("9.7.3.13", "rcp.approx.ftz.f32  ri,r;"),
    ("9.7.3.13", "rcp.rn.ftz.f32      xi,x;"),
    ("9.7.3.13", "rcp.rn.f64          xi,x;"),
    ("9.7.3.14", "rcp.approx.ftz.f64  xi,x;"),
    ("9.7.3.15", "sqrt.approx.ftz.f32  r,x;"),
    ("9.7.3.15", "sqrt.rn.ftz.f32      r,x;"),
    ("9.7.3.15", "sqrt.rn.f64          r,x;"),
    ("9.7.3.16", "rsqrt.approx.ftz.f32  isr, x;"),
    ("9.7.3.16", "rsqrt.approx.f64      ISR, X;"),
    ("9.7.3.17", "rsqrt.approx.ftz.f64 xi,x;"),
    ("9.7.3.18", "sin.approx.ftz.f32  sa, a;"),
    ("9.7.3.19", "cos.approx.ftz.f32  ca, a;"),
    ("9.7.3.20", "lg2.approx.ftz.f32  la, a;"),
    ("9.7.3.21", "ex2.approx.ftz.f32  xa, a;"),
    ("9.7.3.22", "tanh.approx.f32 ta, a;"),
    ("9.7.4.1", "add.f16        d0, a0, b0;"),
    ("9.7.4.1", "add.rn.f16     d1, a1, b1;"),
    ("9.7.4.1", "add.bf16       bd0, ba0, bb0;"),
    ("9.7.4.1", "add.rn.bf16    bd1, ba1, bb1;"),
    ("9.7.4.1", "add.f16x2  p3, p1, p2;"),
    ("9.7.4.1", "add.bf16x2  p6, p4, p5;"),
    ("9.7.4.2", "sub.f16        d0, a0, b0;"),
    ("9.7.4.2", "sub.rn.bf16    bd1, ba1, bb1;"),
    ("9.7.4.2", "sub.bf16x2      f5, f3, f4;"),
    ("9.7.4.3", "mul.f16        d0, a0, b0;"),
    ("9.7.4.3", "mul.rn.f16     d1, a1, b1;"),
    ("9.7.4.3", "mul.bf16       bd0, ba0, bb0;"),
    ("9.7.4.3", "mul.f16x2  p3, p1, p2;"),
    ("9.7.4.3", "mul.bf16x2  p6, p4, p5;"),
    ("9.7.4.4", "fma.rn.f16         d0, a0, b0, c0;"),
    ("9.7.4.4", "fma.rn.relu.f16    d1, a1, b1, c1;"),
    ("9.7.4.4", "fma.rn.oob.f16      d1, a1, b1, c1;"),
    ("9.7.4.4", "fma.rn.oob.relu.f16 d1, a1, b1, c1;"),
    ("9.7.4.4", "fma.rn.bf16        d1, a1, b1, c1;"),
    ("9.7.4.4", "fma.rn.relu.bf16   d1, a1, b1, c1;"),
    ("9.7.4.4", "fma.rn.oob.bf16       d1, a1, b1, c1;"),
    ("9.7.4.4", "fma.rn.oob.relu.bf16  d1, a1, b1, c1;"),
    ("9.7.4.4", "fma.rn.f16x2  p3, p1, p2, p2;"),
    ("9.7.4.4", "fma.rn.relu.f16x2  p3, p1, p2, p2;"),
    ("9.7.4.4", "fma.rn.oob.f16x2  p3, p1, p2, p2;"),
    ("9.7.4.4", "fma.rn.oob.relu.f16x2 p3, p1, p2, p2;"),
    ("9.7.4.4", "fma.rn.bf16x2       f2, f0, f1, f1;"),
    ("9.7.4.4", "fma.rn.relu.bf16x2  f2, f0, f1, f1;"),
    ("9.7.4.4", "fma.rn.oob.bf16x2  f2, f0, f1, f1;"),
    ("9.7.4.4", "fma.rn.oob.relu.bf16x2  f2, f0, f1, f1;"),
    ("9.7.4.5", "neg.ftz.f16  x,f0;"),
    ("9.7.4.5", "neg.bf16     x,b0;"),
    ("9.7.4.5", "neg.bf16x2   x1,b1;"),
    ("9.7.4.6", "abs.ftz.f16  x,f0;"),
    ("9.7.4.6", "abs.bf16     x,b0;"),
    ("9.7.4.6", "abs.bf16x2   x1,b1;"),
    ("9.7.4.7", "min.ftz.f16       h0,h1,h2;"),
    ("9.7.4.7", "min.f16x2         b0,b1,b2;"),
    ("9.7.4.7", "min.NaN.f16x2     b0,b1,b2;"),
    ("9.7.4.7", "min.bf16          h0, h1, h2;"),
    ("9.7.4.7", "min.NaN.bf16x2    b0, b1, b2;"),
    ("9.7.4.7", "min.xorsign.abs.bf16 Rd, Ra, Rb;"),
    ("9.7.4.8", "max.ftz.f16       h0,h1,h2;"),
    ("9.7.4.8", "max.f16x2         b0,b1,b2;"),
    ("9.7.4.8", "max.NaN.f16x2     b0,b1,b2;"),
    ("9.7.4.8", "max.xorsign.abs.f16 Rd, Ra, Rb;"),
    ("9.7.4.8", "max.bf16          h0, h1, h2;"),
    ("9.7.4.8", "max.NaN.bf16x2    b0, b1, b2;"),
    ("9.7.4.8", "max.xorsign.abs.bf16x2 Rd, Ra, Rb;"),
    ("9.7.4.9", "tanh.approx.f16    h1, h0;"),
    ("9.7.4.9", "tanh.approx.f16x2  hd1, hd0;"),
    ("9.7.4.9", "tanh.approx.bf16   b1, b0;"),
    ("9.7.4.9", "tanh.approx.bf16x2 hb1, hb0;"),
    ("9.7.4.10", "ex2.approx.f16         h1, h0;"),
    ("9.7.4.10", "ex2.approx.f16x2       hd1, hd0;"),
    ("9.7.4.10", "ex2.approx.ftz.bf16    b1, b2;"),
    ("9.7.4.10", "ex2.approx.ftz.bf16x2  hb1, hb2;"),
];

#[test]
fn manual_examples_parse_print_and_validate() {
    for (section, text) in EXAMPLES {
        let s = ptx::parse_statement(text).unwrap_or_else(|e| panic!("{section} `{text}`: {e}"));
        let opcode_text = text
            .split_whitespace()
            .find(|w| !w.starts_with('@'))
            .unwrap();
        assert_eq!(s.instr.to_string(), opcode_text, "{section}: printed form");
        let checked = ptx::validate(&s.instr, None, None)
            .unwrap_or_else(|e| panic!("{section} `{text}`: {e}"));
        // It also validates on the target it reports, at the newest PTX ISA version.
        ptx::validate(&s.instr, Some(checked.min_target), Some(PtxVersion::NEWEST))
            .unwrap_or_else(|e| panic!("{section} `{text}` on {}: {e}", checked.min_target));
    }
}

#[test]
fn statements_carry_guards_and_literals() {
    use gpufp::ptx::{Literal, Operand};
    let s = ptx::parse_statement("@!p fma.rn.f32 d, a, 0f3F800000, 1.5;").unwrap();
    assert_eq!(
        s.guard.as_ref().map(|g| (g.negated, g.pred.as_str())),
        Some((true, "p"))
    );
    assert_eq!(s.dest, Operand::Reg("d".into()));
    assert_eq!(s.srcs[1], Operand::Imm(Literal::F32Hex(0x3F80_0000)));
    assert_eq!(
        s.srcs[2],
        Operand::Imm(Literal::Decimal(gpufp::F64(0x3FF8_0000_0000_0000)))
    );
    let s = ptx::parse_statement("div.approx.ftz.f32  diam,circum,3.14159;").unwrap();
    assert_eq!(
        s.srcs[1],
        Operand::Imm(Literal::Decimal(gpufp::F64(0x4009_21F9_F01B_866E)))
    );
    let s = ptx::parse_statement("add.f16 h, 0x3C00, 15360;").unwrap();
    assert_eq!(
        s.srcs,
        vec![
            Operand::Imm(Literal::Int(0x3C00)),
            Operand::Imm(Literal::Int(15360))
        ]
    );
    let s = ptx::parse_statement("max.NaN.f32 d, a, b, 0d3FF0000000000000;").unwrap();
    assert_eq!(s.instr.inputs, 3);
    assert_eq!(
        s.srcs[2],
        Operand::Imm(Literal::F64Hex(0x3FF0_0000_0000_0000))
    );
}

/// Expands a manual syntax line: `{.x}` is optional, `.rnd` is each rounding modifier, `{.rnd}`
/// is optional, and `rn_only` restricts `.rnd` to `.rn` (the half-precision `.rnd = { .rn }`).
fn expand(template: &str, rn_only: bool) -> Vec<String> {
    let rnd: &[&str] = if rn_only {
        &[".rn"]
    } else {
        &[".rn", ".rz", ".rm", ".rp"]
    };
    let mut out = vec![String::new()];
    let mut rest = template;
    while !rest.is_empty() {
        let (choices, len): (Vec<&str>, usize) = if let Some(r) = rest.strip_prefix("{.rnd}") {
            (
                std::iter::once("").chain(rnd.iter().copied()).collect(),
                rest.len() - r.len(),
            )
        } else if let Some(r) = rest.strip_prefix(".rnd") {
            (rnd.to_vec(), rest.len() - r.len())
        } else if rest.starts_with('{') {
            let end = rest.find('}').unwrap();
            (vec!["", &rest[1..end]], end + 1)
        } else {
            let end = rest[1..].find(['{', '.']).map_or(rest.len(), |e| e + 1);
            (vec![&rest[..end]], end)
        };
        out = out
            .iter()
            .flat_map(|p| choices.iter().map(move |c| format!("{p}{c}")))
            .collect();
        rest = &rest[len..];
    }
    out
}

/// Every syntax line of the manual (modifiers in the manual's order), its input count and the
/// target on which all its variants exist.
const SYNTAX: &[(&str, u8, &str, bool)] = &[
    ("testp.finite.f32", 1, "sm_20", false),
    ("testp.subnormal.f64", 1, "sm_20", false),
    ("copysign.f32", 2, "sm_20", false),
    ("copysign.f64", 2, "sm_20", false),
    ("add{.rnd}{.ftz}{.sat}.f32", 2, "sm_20", false),
    ("add{.rnd}{.ftz}.f32x2", 2, "sm_100", false),
    ("add{.rnd}.f64", 2, "sm_13", false),
    ("sub{.rnd}{.ftz}{.sat}.f32", 2, "sm_20", false),
    ("sub{.rnd}{.ftz}.f32x2", 2, "sm_100", false),
    ("sub{.rnd}.f64", 2, "sm_13", false),
    ("mul{.rnd}{.ftz}{.sat}.f32", 2, "sm_20", false),
    ("mul{.rnd}{.ftz}.f32x2", 2, "sm_100", false),
    ("mul{.rnd}.f64", 2, "sm_13", false),
    ("fma.rnd{.ftz}{.sat}.f32", 3, "sm_20", false),
    ("fma.rnd{.ftz}.f32x2", 3, "sm_100", false),
    ("fma.rnd.f64", 3, "sm_13", false),
    ("mad.rnd{.ftz}{.sat}.f32", 3, "sm_20", false),
    ("mad.rnd.f64", 3, "sm_13", false),
    ("div.approx{.ftz}.f32", 2, "sm_10", false),
    ("div.full{.ftz}.f32", 2, "sm_10", false),
    ("div.rnd{.ftz}.f32", 2, "sm_20", false),
    ("div.rnd.f64", 2, "sm_20", false),
    ("abs{.ftz}.f32", 1, "sm_10", false),
    ("abs.f64", 1, "sm_13", false),
    ("neg{.ftz}.f32", 1, "sm_10", false),
    ("neg.f64", 1, "sm_13", false),
    ("min{.ftz}{.NaN}{.xorsign.abs}.f32", 2, "sm_86", false),
    ("min{.ftz}{.NaN}{.abs}.f32", 3, "sm_100", false),
    ("min.f64", 2, "sm_13", false),
    ("max{.ftz}{.NaN}{.xorsign.abs}.f32", 2, "sm_86", false),
    ("max{.ftz}{.NaN}{.abs}.f32", 3, "sm_100", false),
    ("max.f64", 2, "sm_13", false),
    ("rcp.approx{.ftz}.f32", 1, "sm_10", false),
    ("rcp.rnd{.ftz}.f32", 1, "sm_20", false),
    ("rcp.rnd.f64", 1, "sm_20", false),
    ("rcp.approx.ftz.f64", 1, "sm_20", false),
    ("sqrt.approx{.ftz}.f32", 1, "sm_10", false),
    ("sqrt.rnd{.ftz}.f32", 1, "sm_20", false),
    ("sqrt.rnd.f64", 1, "sm_20", false),
    ("rsqrt.approx{.ftz}.f32", 1, "sm_10", false),
    ("rsqrt.approx.f64", 1, "sm_13", false),
    ("rsqrt.approx.ftz.f64", 1, "sm_20", false),
    ("sin.approx{.ftz}.f32", 1, "sm_10", false),
    ("cos.approx{.ftz}.f32", 1, "sm_10", false),
    ("lg2.approx{.ftz}.f32", 1, "sm_10", false),
    ("ex2.approx{.ftz}.f32", 1, "sm_10", false),
    ("tanh.approx.f32", 1, "sm_75", false),
    ("add{.rnd}{.ftz}{.sat}.f16", 2, "sm_53", true),
    ("add{.rnd}{.ftz}{.sat}.f16x2", 2, "sm_53", true),
    ("add{.rnd}.bf16", 2, "sm_90", true),
    ("add{.rnd}.bf16x2", 2, "sm_90", true),
    ("sub{.rnd}{.ftz}{.sat}.f16", 2, "sm_53", true),
    ("sub{.rnd}.bf16x2", 2, "sm_90", true),
    ("mul{.rnd}{.ftz}{.sat}.f16x2", 2, "sm_53", true),
    ("mul{.rnd}.bf16", 2, "sm_90", true),
    ("fma.rnd{.ftz}{.sat}.f16", 3, "sm_53", true),
    ("fma.rnd{.ftz}{.sat}.f16x2", 3, "sm_53", true),
    ("fma.rnd{.ftz}.relu.f16", 3, "sm_80", true),
    ("fma.rnd{.ftz}.relu.f16x2", 3, "sm_80", true),
    ("fma.rnd{.relu}.bf16", 3, "sm_80", true),
    ("fma.rnd{.relu}.bf16x2", 3, "sm_80", true),
    ("fma.rnd.oob{.relu}.f16", 3, "sm_90", true),
    ("fma.rnd.oob{.relu}.f16x2", 3, "sm_90", true),
    ("fma.rnd.oob{.relu}.bf16", 3, "sm_90", true),
    ("fma.rnd.oob{.relu}.bf16x2", 3, "sm_90", true),
    ("neg{.ftz}.f16", 1, "sm_53", false),
    ("neg{.ftz}.f16x2", 1, "sm_53", false),
    ("neg.bf16", 1, "sm_80", false),
    ("neg.bf16x2", 1, "sm_80", false),
    ("abs{.ftz}.f16", 1, "sm_53", false),
    ("abs{.ftz}.f16x2", 1, "sm_53", false),
    ("abs.bf16", 1, "sm_80", false),
    ("abs.bf16x2", 1, "sm_80", false),
    ("min{.ftz}{.NaN}{.xorsign.abs}.f16", 2, "sm_86", false),
    ("min{.ftz}{.NaN}{.xorsign.abs}.f16x2", 2, "sm_86", false),
    ("min{.NaN}{.xorsign.abs}.bf16", 2, "sm_86", false),
    ("min{.NaN}{.xorsign.abs}.bf16x2", 2, "sm_86", false),
    ("max{.ftz}{.NaN}{.xorsign.abs}.f16", 2, "sm_86", false),
    ("max{.NaN}{.xorsign.abs}.bf16x2", 2, "sm_86", false),
    ("tanh.approx.f16", 1, "sm_75", false),
    ("tanh.approx.f16x2", 1, "sm_75", false),
    ("tanh.approx.bf16", 1, "sm_90", false),
    ("tanh.approx.bf16x2", 1, "sm_90", false),
    ("ex2.approx.f16", 1, "sm_75", false),
    ("ex2.approx.f16x2", 1, "sm_75", false),
    ("ex2.approx.ftz.bf16", 1, "sm_90", false),
    ("ex2.approx.ftz.bf16x2", 1, "sm_90", false),
];

#[test]
fn manual_syntax_lines_expand_parse_print_and_validate() {
    let mut count = 0;
    for &(template, inputs, on, rn_only) in SYNTAX {
        for text in expand(template, rn_only) {
            let mut i = ptx::parse_instr(&text).unwrap_or_else(|e| panic!("`{text}`: {e}"));
            i.inputs = inputs;
            assert_eq!(i.to_string(), text, "canonical print of {template}");
            ptx::validate(&i, Some(target(on)), None)
                .unwrap_or_else(|e| panic!("`{text}` on {on}: {e}"));
            count += 1;
        }
    }
    assert!(count > 250, "{count} variants");
}

/// Spelling, input count, target, PTX ISA version, and the message expected.
type Rejection = (
    &'static str,
    u8,
    Option<&'static str>,
    Option<&'static str>,
    &'static str,
);

/// Combinations the manual or ptxas forbid, with the message each must give.
#[test]
fn forbidden_combinations_have_specific_messages() {
    let cases: &[Rejection] = &[
        (
            "min.xorsign.f32",
            2,
            None,
            None,
            "`.xorsign` requires `.abs`",
        ),
        ("min.abs.f32", 2, None, None, "`.abs` requires `.xorsign`"),
        (
            "min.xorsign.abs.f32",
            3,
            None,
            None,
            "`.xorsign` is not allowed on `min.f32` with three inputs",
        ),
        ("min.f64", 3, None, None, "`min.f64` does not take 3 inputs"),
        (
            "min.NaN.f64",
            2,
            None,
            None,
            "`.NaN` is not allowed on `min.f64`",
        ),
        (
            "fma.f32",
            3,
            None,
            None,
            "rounding modifier required for `fma`",
        ),
        (
            "fma.f16",
            3,
            None,
            None,
            "rounding modifier required for `fma`",
        ),
        (
            "add.sat.f64",
            2,
            None,
            None,
            "`.sat` is not allowed on `add.f64`",
        ),
        (
            "add.ftz.f64",
            2,
            None,
            None,
            "`.ftz` is not allowed on `add.f64`",
        ),
        (
            "add.sat.f32x2",
            2,
            None,
            None,
            "`.sat` is not allowed on `add.f32x2`",
        ),
        (
            "add.rz.bf16",
            2,
            None,
            None,
            "only `.rn` rounding is allowed on `add.bf16`",
        ),
        (
            "add.ftz.bf16",
            2,
            None,
            None,
            "`.ftz` is not allowed on `add.bf16`",
        ),
        (
            "fma.rz.f16",
            3,
            None,
            None,
            "only `.rn` rounding is allowed on `fma.f16`",
        ),
        (
            "neg.ftz.bf16",
            1,
            None,
            None,
            "`.ftz` is not allowed on `neg.bf16`",
        ),
        (
            "fma.rn.relu.sat.f16",
            3,
            None,
            None,
            "`.relu` cannot be combined with `.sat`",
        ),
        (
            "fma.rn.ftz.oob.f16",
            3,
            None,
            None,
            "`.ftz` cannot be combined with `.oob`",
        ),
        (
            "fma.rn.relu.f32",
            3,
            None,
            None,
            "`.relu` is not allowed on `fma.f32`",
        ),
        (
            "ex2.approx.bf16",
            1,
            None,
            None,
            "`.ftz` required for `ex2.approx.bf16`",
        ),
        (
            "ex2.approx.ftz.f16",
            1,
            None,
            None,
            "`.ftz` is not allowed on `ex2.f16`",
        ),
        (
            "tanh.approx.ftz.f32",
            1,
            None,
            None,
            "`.ftz` is not allowed on `tanh.f32`",
        ),
        (
            "rcp.approx.f64",
            1,
            None,
            None,
            "`.ftz` required for `rcp.approx.f64`",
        ),
        (
            "div.approx.f64",
            2,
            None,
            None,
            "`.approx` is not allowed on `div.f64`",
        ),
        (
            "div.rn.ftz.f64",
            2,
            None,
            None,
            "`.ftz` is not allowed on `div.f64`",
        ),
        (
            "sqrt.approx.f64",
            1,
            None,
            None,
            "`.approx` is not allowed on `sqrt.f64`",
        ),
        (
            "div.approx.rn.f32",
            2,
            None,
            None,
            "only one of `.approx`, `.full` and a rounding modifier",
        ),
        (
            "div.f32",
            2,
            None,
            None,
            "rounding modifier or `.approx`, `.full` required for `div.f32`",
        ),
        (
            "rsqrt.f32",
            1,
            None,
            None,
            "`.approx` required for `rsqrt.f32`",
        ),
        (
            "tanh.f16",
            1,
            None,
            None,
            "`.approx` required for `tanh.f16`",
        ),
        (
            "sin.approx.f16",
            1,
            None,
            None,
            "`.f16` is not a type of `sin`",
        ),
        (
            "min.f32x2",
            2,
            None,
            None,
            "`.f32x2` is not a type of `min`",
        ),
        (
            "mad.f32",
            3,
            Some("sm_20"),
            None,
            "rounding modifier required for `mad.f32`",
        ),
        (
            "min.NaN.f32",
            2,
            Some("sm_75"),
            None,
            "Feature '.NaN' requires .target sm_80 or higher",
        ),
        (
            "min.xorsign.abs.f16",
            2,
            Some("sm_80"),
            None,
            "Feature 'min.xorsign.abs' requires .target sm_86 or higher",
        ),
        (
            "min.xorsign.abs.f32",
            2,
            None,
            Some("7.1"),
            "Feature 'min.xorsign.abs' requires PTX ISA .version 7.2 or later",
        ),
        (
            "min.f32",
            3,
            Some("sm_90"),
            None,
            "requires .target sm_100 or higher",
        ),
        (
            "add.f32x2",
            2,
            None,
            Some("8.5"),
            "Feature 'add.f32x2' requires PTX ISA .version 8.6 or later",
        ),
        (
            "add.bf16",
            2,
            Some("sm_89"),
            None,
            "Feature 'add.bf16' requires .target sm_90 or higher",
        ),
        (
            "fma.rn.oob.f16",
            3,
            Some("sm_86"),
            None,
            "Feature '.oob' requires .target sm_90 or higher",
        ),
        (
            "tanh.approx.f32",
            1,
            Some("sm_70"),
            None,
            "requires .target sm_75 or higher",
        ),
        (
            "add.rm.f32",
            2,
            Some("sm_13"),
            None,
            "requires .target sm_20 or higher",
        ),
        (
            "add.f32",
            2,
            Some("sm_90"),
            Some("7.5"),
            "Target sm_90 requires PTX ISA .version 7.8 or later",
        ),
    ];
    for &(text, inputs, t, p, want) in cases {
        let mut i = ptx::parse_instr(text).unwrap_or_else(|e| panic!("`{text}`: {e}"));
        i.inputs = inputs;
        let err = ptx::validate(&i, t.map(target), p.map(|p| p.parse().unwrap()))
            .expect_err(text)
            .to_string();
        assert!(err.contains(want), "`{text}`: got `{err}`, want `{want}`");
    }
}

#[test]
fn parse_errors_name_the_problem_and_its_span() {
    let cases: &[(&str, &str, usize)] = &[
        ("div.ftz.full.f32", "`.full` must directly follow `div`", 7),
        ("div.f32.full", "`.full` must directly follow `div`", 7),
        (
            "add.f32.rn.rz",
            "conflicting rounding modifiers `.rn` and `.rz`",
            10,
        ),
        ("add.ftz.ftz.f32", "duplicate modifier `.ftz`", 7),
        (
            "add.nan.f32",
            "unknown modifier `.nan` (did you mean `.NaN`?)",
            3,
        ),
        (
            "testp.nan.f32",
            "unknown modifier `.nan` (did you mean `.notanumber`?)",
            5,
        ),
        (
            "testp.inf.f64",
            "unknown modifier `.inf` (did you mean `.infinite`?)",
            5,
        ),
        ("add.f32.f64", "second type `.f64`", 7),
        ("addd.f32", "unknown floating-point opcode `addd`", 0),
        ("add.rn", "missing instruction type", 0),
        ("testp.f32", "`testp` requires a property", 0),
        ("add.finite.f32", "`.finite` is a `testp` property", 3),
        ("add..f32", "empty modifier", 3),
        ("add.f32 ", "unexpected character", 7),
    ];
    for &(text, want, at) in cases {
        let e = ptx::parse_instr(text).expect_err(text);
        assert!(e.message.contains(want), "`{text}`: got `{}`", e.message);
        assert_eq!(e.span.start, at, "`{text}`: span {:?}", e.span);
    }
    let stmt: &[(&str, &str)] = &[
        (
            "fma.rn.f32 d, a, b;",
            "`fma` takes a destination and 3 source operands, found 3",
        ),
        (
            "min.f32 d, a;",
            "`min` takes a destination and 2 or 3 source operands",
        ),
        ("add.f32 d, a, b", "expected `;`"),
        ("add.f32 d, a, ;", "missing operand"),
        ("add.f32 1.0, a, b;", "the destination must be a register"),
        ("add.f32 d, 0f3F80, b;", "exactly 8 hex digits"),
        ("add.f32 d, 1.2.3, b;", "`1.2.3` is not a number"),
        (
            "add.f32 d, a+b, b;",
            "`a+b` is not a register name or literal",
        ),
        ("@ add.f32 d, a, b;", "is not a register name"),
    ];
    for &(text, want) in stmt {
        let e = ptx::parse_statement(text).expect_err(text);
        assert!(e.message.contains(want), "`{text}`: got `{}`", e.message);
    }
}

/// Legacy defaults: before PTX ISA 1.4, `div.f32` is `div.approx.ftz.f32` and `div.f64` is
/// `div.rn.f64` (9.7.3.8); `mad.f32` on sm_20+ is `mad.rn.f32` up to PTX ISA 3.1 (9.7.3.7 errata).
#[test]
fn legacy_defaults() {
    let eff = |text: &str, t: Option<&str>, p: &str| {
        let i = ptx::parse_instr(text).unwrap();
        ptx::validate(&i, t.map(target), Some(p.parse().unwrap())).map(|c| c.effective.to_string())
    };
    assert_eq!(eff("div.f32", None, "1.3").unwrap(), "div.approx.ftz.f32");
    assert_eq!(eff("div.f64", None, "1.3").unwrap(), "div.rn.f64");
    assert_eq!(eff("rcp.f32", None, "1.2").unwrap(), "rcp.approx.ftz.f32");
    assert_eq!(eff("sqrt.f64", None, "1.0").unwrap(), "sqrt.rn.f64");
    assert_eq!(eff("rsqrt.f64", None, "1.0").unwrap(), "rsqrt.approx.f64");
    assert_eq!(eff("sin.f32", None, "1.0").unwrap(), "sin.approx.ftz.f32");
    assert_eq!(eff("mad.f64", None, "1.3").unwrap(), "mad.rn.f64");
    assert!(eff("mad.f64", None, "1.4").is_err());
    assert_eq!(eff("mad.f32", Some("sm_20"), "3.0").unwrap(), "mad.rn.f32");
    assert_eq!(eff("mad.f32", Some("sm_20"), "3.1").unwrap(), "mad.rn.f32");
    assert!(eff("mad.f32", Some("sm_20"), "3.2").is_err());
    assert_eq!(eff("mad.f32", Some("sm_13"), "9.5").unwrap(), "mad.f32");
    assert!(eff("div.f32", None, "1.4").is_err());
}

#[test]
fn targets_and_versions_parse() {
    for t in [
        "sm_20", "sm_90a", "sm_100a", "sm_100f", "sm_120a", "sm_121f", "sm_110",
    ] {
        assert_eq!(target(t).to_string(), t);
    }
    for bad in ["sm_91", "sm_80a", "sm_75f", "compute_90", "sm_", "sm_90x"] {
        assert!(bad.parse::<Target>().is_err(), "{bad}");
    }
    assert_eq!("9.5".parse::<PtxVersion>(), Ok(PtxVersion::new(9, 5)));
    assert!("9.6".parse::<PtxVersion>().is_err());
    assert!("7".parse::<PtxVersion>().is_err());
}

/// The validator against ptxas 13.5's recorded verdicts: 650 spellings (documented and not) on
/// 8 targets at `.version 9.5`, and the PTX ISA version ptxas demands for each.
#[test]
fn verdicts_match_ptxas_legality_matrix() {
    let data = include_str!("data/ptxas-13.5-legality.tsv");
    let mut lines = data.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let targets: Vec<Target> = header[3..11].iter().map(|t| target(t)).collect();
    let mut mismatches = Vec::new();
    let mut verdicts = 0;
    for line in lines {
        let cols: Vec<&str> = line.split('\t').collect();
        let (spelling, inputs) = (cols[0], cols[1].parse::<u8>().unwrap());
        let parsed = ptx::parse_instr(spelling).map(|mut i| {
            i.inputs = inputs;
            i
        });
        for (t, verdict) in targets.iter().zip(&cols[3..11]) {
            let ours = match &parsed {
                Ok(i) => {
                    ptx::validate(i, Some(*t), Some(PtxVersion::NEWEST)).map_err(|e| e.to_string())
                }
                Err(e) => Err(e.to_string()),
            };
            verdicts += 1;
            if ours.is_ok() != (*verdict == "1") {
                mismatches.push(format!(
                    "{spelling} ({inputs} in) on {t}: ptxas {verdict}, ours {ours:?}"
                ));
            }
        }
        if let (Ok(i), isa) = (&parsed, cols[11]) {
            if let Ok(c) = ptx::validate(i, None, None) {
                let ok = if isa == "-" {
                    c.min_ptx <= PtxVersion::new(6, 3)
                } else {
                    c.min_ptx.to_string() == isa
                };
                if !ok {
                    mismatches.push(format!(
                        "{spelling}: ptxas needs PTX ISA {isa}, ours {}",
                        c.min_ptx
                    ));
                }
            }
        }
    }
    assert!(verdicts >= 5000, "{verdicts}");
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

fn any_instr() -> impl Strategy<Value = Instr> {
    let opcode = (0..Opcode::ALL.len(), 0..6usize).prop_map(|(o, t)| match Opcode::ALL[o] {
        Opcode::Testp(_) => Opcode::Testp(gpufp::ptx::TestpOp::ALL[t]),
        op => op,
    });
    let rnd = prop_oneof![
        Just(None),
        Just(Some(Round::Rn)),
        Just(Some(Round::Rz)),
        Just(Some(Round::Rm)),
        Just(Some(Round::Rp))
    ];
    let mods = (rnd, proptest::collection::vec(any::<bool>(), 9)).prop_map(|(rnd, f)| Modifiers {
        rnd,
        approx: f[0],
        full: f[1],
        ftz: f[2],
        oob: f[3],
        sat: f[4],
        relu: f[5],
        nan: f[6],
        xorsign: f[7],
        abs: f[8],
    });
    (opcode, 0..Type::ALL.len(), mods, 1u8..4).prop_map(|(opcode, t, mods, inputs)| Instr {
        opcode,
        ty: Type::ALL[t],
        mods,
        inputs,
    })
}

/// Cases per property: `GPUFP_FUZZ_CASES` (a longer fuzzing run) or 20,000.
fn fuzz_cases() -> u32 {
    std::env::var("GPUFP_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(fuzz_cases()))]

    /// Every instruction value prints to text that parses back to the same value (up to the
    /// input count, which the opcode form does not carry); `.full` off `div` is the one spelling
    /// the parser refuses.
    #[test]
    fn print_then_parse_is_identity(i in any_instr()) {
        match ptx::parse_instr(&i.to_string()) {
            Ok(mut back) => {
                back.inputs = i.inputs;
                prop_assert_eq!(back, i);
            }
            Err(e) => prop_assert!(i.mods.full && i.opcode != Opcode::Div, "{}: {}", i, e),
        }
    }

    /// Validation never panics, whatever the value, target and version.
    #[test]
    fn validate_never_panics(i in any_instr(), t in 0usize..8, p in 10u8..96) {
        let targets = ["sm_10", "sm_20", "sm_53", "sm_80", "sm_86", "sm_90a", "sm_100f", "sm_120"];
        let v = PtxVersion::new(p / 10, p % 10);
        let _ = ptx::validate(&i, Some(target(targets[t])), Some(v));
        let _ = ptx::validate(&i, None, None);
    }

    /// Arbitrary text never panics the parsers.
    #[test]
    fn parsers_never_panic(
        s in "\\PC{0,40}",
        t in "[@!a-z0-9._ ,;%-]{0,60}",
        example in 0..EXAMPLES.len(),
        at in any::<usize>(),
        cut in 0usize..4,
        junk in "\\PC{0,3}",
    ) {
        // A manual example with a few characters cut out and others spliced in.
        let text = EXAMPLES[example].1;
        let mut at = at % (text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let end = (at + cut).min(text.len());
        let spliced = format!("{}{junk}{}", &text[..at], &text[end..]);
        for input in [&s, &t, &spliced] {
            let _ = ptx::parse_instr(input);
            if let Ok(st) = ptx::parse_statement(input) {
                if let Ok(c) = ptx::validate(&st.instr, None, None) {
                    let ops = vec![0x7FC0_0001; usize::from(st.instr.inputs)];
                    let _ = ptx::eval(&c.effective, &ops, &gpufp::ptx::Context::default());
                }
            }
        }
    }
}

/// Where the validator follows the manual and ptxas 13.5 does not (each case is counted):
/// `.target` below sm_13 accepts f64 instructions silently (the manual: "requires sm_13";
/// ptxas maps f64 to f32 there, `map_f64_to_f32`).
fn known_ptxas_divergence(i: &Instr, t: Target) -> bool {
    t.sm < 13 && i.ty == Type::F64
}

/// The validator against 12,946 ptxas 13.5 verdicts (1,667 spelling/operand/version groups on
/// sm_10 to sm_121, arch- and family-specific targets included), recorded by compiling one
/// module per case.
#[test]
fn verdicts_match_ptxas_probe() {
    let data = include_str!("data/ptxas-13.5-verdicts.tsv");
    let mut mismatches = Vec::new();
    let (mut compared, mut diverged) = (0, 0);
    for line in data.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (spelling, inputs) = (cols[0], cols[1].parse::<u8>().unwrap());
        let ptx: PtxVersion = cols[2].parse().unwrap();
        let parsed = ptx::parse_instr(spelling).map(|mut i| {
            i.inputs = inputs;
            i
        });
        for (list, accepted) in [(cols[3], true), (cols[4], false)] {
            for t in list.split(',').filter(|t| *t != "-") {
                let t = target(t);
                let ours = match &parsed {
                    Ok(i) => ptx::validate(i, Some(t), Some(ptx))
                        .map(|_| ())
                        .map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                };
                compared += 1;
                if ours.is_ok() != accepted {
                    if parsed.as_ref().is_ok_and(|i| known_ptxas_divergence(i, t)) {
                        diverged += 1;
                    } else {
                        mismatches.push(format!("{spelling} ({inputs} in) {t} .version {ptx}: ptxas {accepted}, ours {ours:?}"));
                    }
                }
            }
        }
    }
    assert!(compared > 12_000, "{compared}");
    assert!(diverged < 40, "{diverged} known divergences");
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
