//! The approximate instructions' results conform to the manual's guarantee, judged exactly
//! (dyadic enclosures of the true value, integer comparisons; `ptx::guarantee::judge`): on the
//! edges, on random inputs, and on every input of the 16-bit forms. And the judge is not
//! vacuous: results moved away from the model's are caught where the bound says so.

use gpufp::ptx::guarantee::{judge, Guarantee};
use gpufp::ptx::{self, Context, Instr};

fn instr(text: &str, inputs: u8) -> Instr {
    let mut i = ptx::parse_instr(text).unwrap();
    i.inputs = inputs;
    ptx::validate(&i, None, None)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .effective
}

const UNARY_F32: [&str; 15] = [
    "rcp.approx.f32",
    "rcp.approx.ftz.f32",
    "sqrt.approx.f32",
    "sqrt.approx.ftz.f32",
    "rsqrt.approx.f32",
    "rsqrt.approx.ftz.f32",
    "lg2.approx.f32",
    "lg2.approx.ftz.f32",
    "ex2.approx.f32",
    "ex2.approx.ftz.f32",
    "sin.approx.f32",
    "sin.approx.ftz.f32",
    "cos.approx.f32",
    "cos.approx.ftz.f32",
    "tanh.approx.f32",
];

const DIV_F32: [&str; 4] = [
    "div.approx.f32",
    "div.approx.ftz.f32",
    "div.full.f32",
    "div.full.ftz.f32",
];

/// Magnitudes at the glue's and the functions' edges (both signs are used).
const EDGES: [u64; 30] = [
    0x0000_0001, // smallest subnormal
    0x0000_0003,
    0x0040_0000,
    0x007F_FFFF, // largest subnormal
    0x0080_0000, // 2^-126
    0x0080_0001,
    0x0100_0000,
    0x3F00_0000, // 0.5
    0x3F00_0001,
    0x3F7F_FFFF,
    0x3F80_0000, // 1
    0x3F80_0001,
    0x3FFF_FFFF,
    0x4000_0000, // 2
    0x40C9_0FDA, // largest f32 <= 2π
    0x40C9_0FDB,
    0x42FB_FFFF,
    0x42FC_0000, // 126
    0x42FC_0001,
    0x42FE_0000,
    0x42FF_FFFF,
    0x4300_0000, // 128
    0x4315_0000, // 149
    0x4316_0000, // 150
    0x439D_1462, // largest f32 <= 100π
    0x4B00_0000, // 2^23
    0x7E7F_FFFF,
    0x7E80_0000, // 2^126
    0x7E80_0001,
    0x7F7F_FFFF, // largest finite
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // SplitMix64.
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn conforms(i: &Instr, ops: &[u64], ctx: &Context) {
    let d = ptx::eval(i, ops, ctx).unwrap();
    for v in judge(i, ops, d, ctx).unwrap() {
        assert!(v.exact, "{i} {ops:x?}: the model judged against itself");
        assert!(
            v.within_spec,
            "{i} {ops:x?} -> 0x{d:x}: {} ({})",
            v.explanation, v.guarantee
        );
    }
}

fn f32_inputs(seed: u64, random: usize) -> Vec<u64> {
    let mut r = Rng(seed);
    let mut v: Vec<u64> = EDGES.iter().flat_map(|&e| [e, e | 0x8000_0000]).collect();
    v.extend((0..random).map(|_| r.next() & 0xFFFF_FFFF));
    // Values near the interesting magnitudes, too.
    v.extend((0..random).map(|_| {
        let e = EDGES[(r.next() % EDGES.len() as u64) as usize];
        (e ^ (r.next() & 0xFF)) | (r.next() & 0x8000_0000)
    }));
    v
}

#[test]
fn f32_unary_results_conform() {
    let ctx = Context::default();
    for text in UNARY_F32 {
        let i = instr(text, 1);
        for a in f32_inputs(1, 300) {
            conforms(&i, &[a], &ctx);
        }
    }
}

#[test]
fn f32_div_results_conform() {
    let ctx = Context::default();
    for text in DIV_F32 {
        let i = instr(text, 2);
        let xs = f32_inputs(2, 40);
        for &a in xs.iter().step_by(3) {
            for &b in &xs {
                conforms(&i, &[a, b], &ctx);
            }
        }
    }
}

#[test]
fn f64_results_conform() {
    let ctx = Context::default();
    let mut r = Rng(3);
    for text in [
        "rcp.approx.ftz.f64",
        "rsqrt.approx.ftz.f64",
        "rsqrt.approx.f64",
    ] {
        let i = instr(text, 1);
        for _ in 0..500 {
            conforms(&i, &[r.next()], &ctx);
        }
    }
}

/// Every input of the 16-bit forms (both lanes of the packed forms carry the same pattern set).
#[test]
fn half_results_conform_on_every_input() {
    let ctx = Context::default();
    for text in [
        "tanh.approx.f16",
        "tanh.approx.bf16",
        "ex2.approx.f16",
        "ex2.approx.ftz.bf16",
    ] {
        let i = instr(text, 1);
        for a in 0..1u64 << 16 {
            conforms(&i, &[a], &ctx);
        }
    }
    let i = instr("ex2.approx.f16x2", 1);
    let one = instr("ex2.approx.f16", 1);
    for a in (0..1u64 << 16).step_by(7) {
        let b = a.rotate_left(5) & 0xFFFF;
        let lo = ptx::eval(&one, &[a], &ctx).unwrap();
        let hi = ptx::eval(&one, &[b], &ctx).unwrap();
        assert_eq!(ptx::eval(&i, &[b << 16 | a], &ctx).unwrap(), hi << 16 | lo);
    }
}

/// `ex2.approx.f32 -130.0` is the square of the core's value at -65: 2^-65 squared is 2^-130,
/// the subnormal 2^19 * 2^-149. The `.ftz` form flushes it.
#[test]
fn ex2_below_minus_126_squares() {
    let ctx = Context::default();
    assert_eq!(
        ptx::eval(&instr("ex2.approx.f32", 1), &[0xC302_0000], &ctx).unwrap(),
        1 << 19
    );
    assert_eq!(
        ptx::eval(&instr("ex2.approx.ftz.f32", 1), &[0xC302_0000], &ctx).unwrap(),
        0
    );
}

/// The judge rejects results the bound excludes: moving an in-range result by 10^5 ulps
/// violates every f32 bound; one ulp violates none of the loose ones (tanh, sin, cos).
#[test]
fn judge_catches_violations() {
    let ctx = Context::default();
    let cases: &[(&str, u64)] = &[
        ("rcp.approx.f32", 0x4040_0000),
        ("sqrt.approx.f32", 0x4040_0000),
        ("rsqrt.approx.f32", 0x4040_0000),
        ("lg2.approx.f32", 0x4040_0000),
        ("lg2.approx.f32", 0x3F90_0000),
        ("ex2.approx.f32", 0x4040_0000),
        ("sin.approx.f32", 0x3F80_0000),
        ("cos.approx.f32", 0x4100_0000),
        ("tanh.approx.f32", 0x3F00_0000),
    ];
    for &(text, a) in cases {
        let i = instr(text, 1);
        let d = ptx::eval(&i, &[a], &ctx).unwrap();
        let far = judge(&i, &[a], d + 100_000, &ctx).unwrap()[0].clone();
        assert!(
            !far.within_spec && !far.exact,
            "{text} 0x{a:x}: 10^5 ulp accepted"
        );
        assert!(!far.explanation.is_empty());
        let near = judge(&i, &[a], d + 1, &ctx).unwrap()[0].clone();
        assert!(!near.exact);
        if ["tanh", "sin", "cos"].iter().any(|f| text.starts_with(f)) {
            assert!(matches!(near.guarantee, Guarantee::Within(_)));
            assert!(near.within_spec, "{text}");
        }
    }
    // ex2: "2 ulp from correctly rounded result": 3 steps away is out, 2 is in (the model is the
    // correctly rounded value).
    let i = instr("ex2.approx.f32", 1);
    let d = ptx::eval(&i, &[0x3FC0_0000], &ctx).unwrap();
    assert!(judge(&i, &[0x3FC0_0000], d + 2, &ctx).unwrap()[0].within_spec);
    assert!(!judge(&i, &[0x3FC0_0000], d + 3, &ctx).unwrap()[0].within_spec);
    // An f32 NaN result: any NaN is within spec but not the model's bits.
    let i = instr("add.rn.f32", 2);
    let v = &judge(&i, &[0x7FC0_0000, 0], 0x7FC0_0001, &ctx).unwrap()[0];
    assert!(v.within_spec && !v.exact);
}
