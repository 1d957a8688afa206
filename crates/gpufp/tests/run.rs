//! `gpufp run`'s interpreter on the manual's example blocks (`examples/ptx/`): every register write
//! of every block is pinned to a value worked out by hand (the reasoning beside it) or by an
//! independent oracle (rustc_apfloat, big-integer bounds, MPFR), never by `eval`. Approximate
//! instructions run on the default, correctly rounded MUFU core: their expected values are the
//! IEEE steps ptxas wraps around the MUFU (docs/mufu.md) around MPFR's correctly rounded
//! function. Bad programs give errors with line and column.

mod common;

use common::ap_round;
use gpufp::ptx::run::{parse_program, Machine, RunError};
use gpufp::ptx::Target;
use gpufp::{Format, Round, BF16, F16};
use rug::Float;
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float as _, FloatConvert};

fn example(name: &str) -> String {
    let path = format!("{}/../../examples/ptx/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `--target`, `--set` and `--mem` arguments of a file's `// args:` lines.
#[derive(Default)]
struct Args {
    target: Option<Target>,
    sets: Vec<String>,
    mems: Vec<String>,
}

fn args(text: &str) -> Args {
    let mut a = Args::default();
    let words: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("// args:"))
        .flat_map(str::split_whitespace)
        .collect();
    for pair in words.chunks(2) {
        match pair[0] {
            "--target" => a.target = Some(pair[1].parse().unwrap()),
            "--set" => a.sets.push(pair[1].to_string()),
            "--mem" => a.mems.push(pair[1].to_string()),
            other => panic!("unexpected argument {other}"),
        }
    }
    a
}

/// Every register write of a run: line, register, bits.
type Writes = Vec<(usize, String, u64)>;

fn run(text: &str, a: &Args) -> Result<(Writes, Machine), RunError> {
    run_with(text, a, true)
}

/// Runs `text` with the arguments `a`; a bad `--set` or `--mem` panics if `strict`, else is
/// skipped (for mangled programs whose declarations no longer match).
fn run_with(text: &str, a: &Args, strict: bool) -> Result<(Writes, Machine), RunError> {
    let program = parse_program(text, a.target)?;
    let mut m = Machine::new(&program);
    for s in &a.sets {
        let r = m.set(&program, s);
        assert!(r.is_ok() || !strict, "--set {s}: {r:?}");
    }
    for s in &a.mems {
        let r = m.set_mem(s);
        assert!(r.is_ok() || !strict, "--mem {s}: {r:?}");
    }
    m.run(&program)?;
    let writes = m
        .writes
        .iter()
        .map(|&(line, r, bits, _)| (line, program.decls[r].name.clone(), bits))
        .collect();
    Ok((writes, m))
}

/// Runs an example and compares every write with `expected`.
fn check(name: &str, expected: &[(usize, &str, u64)]) {
    let text = example(name);
    let (writes, _) = run(&text, &args(&text)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let expected: Writes = expected
        .iter()
        .map(|&(l, n, b)| (l, n.to_string(), b))
        .collect();
    assert_eq!(writes, expected, "{name}");
}

/// `f` of an exact `x`, computed by MPFR and rounded once to `p` bits (nearest even), as an
/// f64 (the results here are normal in every format).
fn mpfr(p: u32, x: f64, f: fn(&mut Float)) -> f64 {
    let mut y = Float::with_val(p, x);
    assert_eq!(y.to_f64(), x, "the argument fits {p} bits");
    f(&mut y);
    y.to_f64()
}

fn f32_bits(v: f64) -> u64 {
    u64::from((v as f32).to_bits())
}

/// An f64 exactly representable in f16 or bf16 as that format's bits.
fn half_bits(v: f64, bf16: bool) -> u64 {
    if bf16 {
        common::exact_f64_to_half::<BF16>(v).to_bits()
    } else {
        common::exact_f64_to_half::<F16>(v).to_bits()
    }
}

fn ap_div_f32(a: u32, b: u32) -> u64 {
    let r = Single::from_bits(a.into()) / Single::from_bits(b.into());
    r.value.to_bits() as u64
}

fn ap_div_f64(a: u64, b: u64) -> u64 {
    let r = Double::from_bits(a.into()) / Double::from_bits(b.into());
    r.value.to_bits() as u64
}

/// Whether `bits` (a positive normal value `m * 2^e`, `m` with `prec` bits) is `sqrt(2)`
/// correctly rounded: `(m - 1/2)^2 < 2 * 2^(-2e) < (m + 1/2)^2`, in integers.
fn is_rounded_sqrt2(m: u128, prec: u32) -> bool {
    // With e = -(prec - 1): 2 * 2^(2 (prec - 1)) * 4 = 2^(2 prec + 1) against (2m -+ 1)^2.
    let target = 1u128 << (2 * prec + 1);
    (2 * m - 1).pow(2) < target && target < (2 * m + 1).pow(2)
}

#[test]
fn testp_9_7_3_1() {
    // f0 = NaN is not a number; X = -inf is infinite.
    check("9.7.3.1-testp.ptx", &[(9, "isnan", 1), (11, "p", 1)]);
}

#[test]
fn copysign_9_7_3_2() {
    // "Copy sign bit of a into value of b": x = copysign(y = -1, z = 2.5) = -2.5;
    // A = copysign(B = 0.5, C = -3) = +3.
    check(
        "9.7.3.2-copysign.ptx",
        &[(8, "x", 0xC020_0000), (10, "A", 0x4008_0000_0000_0000)],
    );
}

#[test]
fn add_9_7_3_3() {
    // 1 + 2^-24 lies halfway between 1 and 1 + 2^-23: .rz gives 1.
    // f32x2 .rp: lane 0 = 1 + 2^-24 -> 1 + 2^-23 (0x3F800001); lane 1 = -1 - 2^-24 -> -1.
    check(
        "9.7.3.3-add.ptx",
        &[(11, "f1", 0x3F80_0000), (13, "d", 0xBF80_0000_3F80_0001)],
    );
}

#[test]
fn sub_9_7_3_4() {
    // 1 - 2^-24 = 0x3F7FFFFF exactly. With .ftz, f3 = 2^-127 (subnormal) flushes to 0, so
    // f1 = 2^-126 - 0 = 0x00800000 (without .ftz it would be 2^-127).
    check(
        "9.7.3.4-sub.ptx",
        &[(7, "c", 0x3F7F_FFFF), (9, "f1", 0x0080_0000)],
    );
}

#[test]
fn mul_9_7_3_5() {
    // 2 * pi only adds one to the exponent: 0x40490FDB -> 0x40C90FDB.
    check("9.7.3.5-mul.ptx", &[(8, "circumf", 0x40C9_0FDB)]);
}

#[test]
fn fma_9_7_3_6() {
    // y = 0x3EAAAAAB = 11184811 * 2^-25; 3y = 33554433 * 2^-25 = 1 + 2^-25 exactly, so
    // w = 3y - 1 = 2^-25 (0x33000000): one rounding only.
    // d = (1 + 2^-52)^2 - 1 = 2^-51 + 2^-104: the 2^-104 is half an ulp of 2^-51, ties to even
    // gives 2^-51 (biased exponent 1023 - 51 = 0x3CC).
    // f32x2 .rp.ftz: lane 0 = 1 * 2^-24 + 1 -> 1 + 2^-23; lane 1 = 2 * 1 + (subnormal flushed
    // to 0) = 2 exactly (without .ftz, .rp would give 0x40000001).
    check(
        "9.7.3.6-fma.ptx",
        &[
            (14, "w", 0x3300_0000),
            (16, "d", 0x3CC0_0000_0000_0000),
            (18, "pp", 0x4000_0000_3F80_0001),
        ],
    );
}

#[test]
fn mad_9_7_3_7() {
    // sm_1x mad.f32: a = b = 1 + 2^-12; a*b = 1 + 2^-11 + 2^-24, the product truncated to 24
    // bits drops 2^-24: 1 + 2^-11 - 1 = 2^-11 (0x3A000000); an fma would give 0x3A000400.
    check("9.7.3.7-mad.ptx", &[(9, "d", 0x3A00_0000)]);
}

#[test]
fn div_9_7_3_8() {
    // div.approx.ftz.f32 and div.full.ftz.f32 are a * MUFU.RCP(b) (FMUL.FTZ, round to nearest);
    // the divisors are normal and below 2^126, so no scaling. 3.14159 is 0x40490FD0 in f32.
    let rcp_pi = f32_bits(mpfr(24, f64::from(f32::from_bits(0x4049_0FD0)), |y| {
        y.recip_mut()
    }));
    let diam = (Single::from_bits(0x40C9_0FDB) * Single::from_bits(rcp_pi.into()))
        .value
        .to_bits() as u64;
    let rcp_3 = f32_bits(mpfr(24, 3.0, |y| y.recip_mut()));
    assert_eq!(rcp_3, 0x3EAA_AAAB); // 1/3 = 0.0101..b: 24 bits 1.0101..01, then 0101.. rounds up
                                    // 1 / 3 in f64, rounded to nearest, by rustc_apfloat.
    let third = ap_div_f64(0x3FF0_0000_0000_0000, 0x4008_0000_0000_0000);
    assert_eq!(third, 0x3FD5_5555_5555_5555);
    check(
        "9.7.3.8-div.ptx",
        &[(9, "diam", diam), (11, "x", rcp_3), (13, "xd", third)],
    );
}

#[test]
fn abs_neg_9_7_3_9_10() {
    // .ftz flushes the subnormal input to a zero of its sign first: abs(-0) = +0, neg(+0) = -0.
    check("9.7.3.9-abs.ptx", &[(7, "x", 0)]);
    check("9.7.3.10-neg.ptx", &[(7, "x", 0x8000_0000)]);
}

#[test]
fn min_9_7_3_11() {
    // min(2, -3) = -3; min.f64(NaN, 1.5) = 1.5 (the non-NaN operand); min.NaN(NaN, 1) is the
    // canonical NaN; min.xorsign.abs(-2, 3) = -(min(2, 3)) = -2 (sign = 1 XOR 0).
    check(
        "9.7.3.11-min.ptx",
        &[
            (11, "z", 0xC040_0000),
            (13, "a", 0x3FF8_0000_0000_0000),
            (17, "f0", 0x7FFF_FFFF),
            (21, "Rd", 0xC000_0000),
        ],
    );
}

#[test]
fn max_9_7_3_12() {
    // max(1, NaN) = 1; max.f64(-1, -0) = -0; max.NaN(1, NaN) = canonical NaN;
    // max.xorsign.abs(-2, 3) = -(max(2, 3)) = -3.
    check(
        "9.7.3.12-max.ptx",
        &[
            (9, "f0", 0x3F80_0000),
            (11, "a", 0x8000_0000_0000_0000),
            (15, "f0", 0x7FFF_FFFF),
            (19, "Rd", 0xC040_0000),
        ],
    );
}

#[test]
fn rcp_9_7_3_13() {
    // rcp.approx.ftz.f32 of 2 is MUFU.RCP(2) = 0.5 exactly.
    let f32_third = ap_div_f32(0x3F80_0000, 0x4040_0000);
    let f64_third = ap_div_f64(0x3FF0_0000_0000_0000, 0x4008_0000_0000_0000);
    check(
        "9.7.3.13-rcp.ptx",
        &[
            (10, "ri", 0x3F00_0000),
            (12, "xi", f32_third),
            (14, "xid", f64_third),
        ],
    );
}

#[test]
fn sqrt_9_7_3_15() {
    // sqrt(2) = 1.0110101000001001111001100110011111110011101111001100..b; sqrt.approx.ftz.f32
    // is MUFU.SQRT, correctly rounded by the default core, so both f32 lines write r32.
    let (r32, r64) = (0x3FB5_04F3u64, 0x3FF6_A09E_667F_3BCDu64);
    assert!(is_rounded_sqrt2(
        u128::from(r32 & 0x7F_FFFF | 0x80_0000),
        24
    ));
    assert!(is_rounded_sqrt2(
        u128::from(r64 & 0xF_FFFF_FFFF_FFFF | 1 << 52),
        53
    ));
    check(
        "9.7.3.15-sqrt.ptx",
        &[(10, "r", r32), (12, "r", r32), (14, "rd", r64)],
    );
}

#[test]
fn rcp_rsqrt_f64_9_7_3_14_17() {
    // 1/3 = 1.0101..b * 2^-2: 21 significant bits 1.01010101010101010101, the next bit 0, so the
    // upper word is 0x3FD55555 and the lower word zero (9.7.3.14).
    check(
        "9.7.3.14-rcp-approx-ftz-f64.ptx",
        &[(8, "xi", 0x3FD5_5555_0000_0000)],
    );
    // 1/sqrt(4) = 0.5 exactly; rsqrt.approx.f64's correction e = 1 - 4 * 0.25 = 0 keeps it.
    check(
        "9.7.3.16-rsqrt.ptx",
        &[(9, "isr", 0x3F00_0000), (11, "ISR", 0x3FE0_0000_0000_0000)],
    );
    check(
        "9.7.3.17-rsqrt-approx-ftz-f64.ptx",
        &[(8, "xi", 0x3FE0_0000_0000_0000)],
    );
}

#[test]
fn sin_cos_lg2_ex2_tanh_9_7_3_18_22() {
    // sin and cos: FMUL.RZ by 1/(2π) rounded (0x3E22F983); times 0.5 that is exact, 0x3DA2F983.
    // Then sin(2πt) = sinpi(2t), cos(2πt) = cospi(2t), rounded once.
    let t2 = f64::from(f32::from_bits(0x3E22_F983));
    let sin = f32_bits(mpfr(24, t2, |y| y.sin_pi_mut()));
    let cos = f32_bits(mpfr(24, t2, |y| y.cos_pi_mut()));
    check("9.7.3.18-sin.ptx", &[(8, "sa", sin)]);
    check("9.7.3.19-cos.ptx", &[(8, "ca", cos)]);
    // lg2(0.5) = -1 and ex2(0.5) = sqrt(2), exactly and correctly rounded.
    check("9.7.3.20-lg2.ptx", &[(8, "la", 0xBF80_0000)]);
    check("9.7.3.21-ex2.ptx", &[(8, "xa", 0x3FB5_04F3)]);
    let tanh = f32_bits(mpfr(24, 0.5, |y| y.tanh_mut()));
    check("9.7.3.22-tanh.ptx", &[(8, "ta", tanh)]);
}

#[test]
fn half_tanh_ex2_9_7_4_9_10() {
    // The 16-bit MUFU forms, correctly rounded: lanes 0.5 and 1.0 (f16 0x3800, 0x3C00; bf16
    // 0x3F00, 0x3F80), packed with lane 0 low.
    let tanh =
        |x: f64, bf16: bool| half_bits(mpfr(if bf16 { 8 } else { 11 }, x, |y| y.tanh_mut()), bf16);
    let pair = |lo: u64, hi: u64| hi << 16 | lo;
    check(
        "9.7.4.9-tanh.ptx",
        &[
            (10, "h1", tanh(0.5, false)),
            (12, "hd1", pair(tanh(0.5, false), tanh(1.0, false))),
            (14, "b1", tanh(0.5, true)),
            (16, "hb1", pair(tanh(0.5, true), tanh(1.0, true))),
        ],
    );
    // ex2(0.5) = sqrt(2) at 11 bits (f16) and 8 bits (bf16); ex2(1) = 2.
    let (s16, sb16) = (0x3DA8u64, 0x3FB5u64);
    assert!(is_rounded_sqrt2(u128::from(s16 & 0x3FF | 0x400), 11));
    assert!(is_rounded_sqrt2(u128::from(sb16 & 0x7F | 0x80), 8));
    check(
        "9.7.4.10-ex2.ptx",
        &[
            (10, "h1", s16),
            (12, "hd1", pair(s16, 0x4000)),
            (14, "b1", sb16),
            (16, "hb1", pair(sb16, 0x4000)),
        ],
    );
}

/// The writes shared by the cvt/pack part of 9.7.4.1-3: f0..f3 = 1.5, 2.25, 1, 2^-25 to f16,
/// then packed with the first register in the low half (PTX ISA `mov`).
fn half_prelude(op_p3: u64, op_p6: u64) -> Vec<(usize, &'static str, u64)> {
    vec![
        (28, "h0", 0x3E00), // 1.5
        (30, "h1", 0x4080), // 2.25
        (32, "h2", 0x3C00), // 1
        (34, "h3", 0x0000), // 2^-25 is half of the least subnormal 2^-24: ties to even, +0
        (36, "p1", 0x4080_3E00),
        (38, "p2", 0x0000_3C00),
        (40, "p3", op_p3),
        // cvt.rn.bf16x2.f32 d, a, b: a in the upper half. 3 -> 0x4040; 1 + 2^-8 is halfway
        // between 1 and 1 + 2^-7: ties to even, 0x3F80. 1 -> 0x3F80, -1 -> 0xBF80.
        (44, "p4", 0x4040_3F80),
        (46, "p5", 0x3F80_BF80),
        (48, "p6", op_p6),
    ]
}

fn half_block(name: &str, scalars: [u64; 4], p3: u64, p6: u64, f2: u64, f5: u64, ld_shift: usize) {
    let mut want = vec![
        (18, "d0", scalars[0]),
        (20, "d1", scalars[1]),
        (22, "bd0", scalars[2]),
        (24, "bd1", scalars[3]),
    ];
    want.extend(half_prelude(p3, p6));
    let s = ld_shift;
    want.extend([
        (52, "f0", 0x3C00_4000),
        (54, "f1", 0xC000_3C00),
        (56, "f2", f2),
        (58 + s, "f3", 0x4049_3F80),
        (60 + s, "f4", 0x3F80_3F80),
        (62 + s, "f5", f5),
    ]);
    check(name, &want);
}

#[test]
fn add_9_7_4_1() {
    // 1.5 + 2.25 = 3.75 (0x4380). 2048 + 1 = 2049: f16 has an ulp of 2 there, ties to even
    // gives 2048 (0x6800). bf16: 1 + 2^-7 is exact (0x3F81); 1 + 2^-8 ties to 1 (0x3F80).
    // f16x2: [1.5 + 1, 2.25 + 0] = [2.5, 2.25]; bf16x2: [1 + -1, 3 + 1] = [+0, 4].
    // Memory f16x2: [2 + 1, 1 + -2] = [3, -1]; bf16x2: [1 + 1, 3.140625 + 1]: 4.140625 is
    // halfway between 4.125 and 4.15625 (ulp 2^-5): ties to even, 4.125 (0x4084).
    half_block(
        "9.7.4.1-add.ptx",
        [0x4380, 0x6800, 0x3F81, 0x3F80],
        0x4080_4100,
        0x4080_0000,
        0xBC00_4200,
        0x4084_4000,
        0,
    );
}

#[test]
fn sub_9_7_4_2() {
    // 1.5 - 2.25 = -0.75 (0xBA00); 2048 - 1 = 2047 exact (0x67FF); 1 - 2^-7 = 0.9921875 and
    // 1 - 2^-8 exact in bf16 (ulp 2^-8 below 1): 0x3F7E, 0x3F7F.
    // f16x2: [1.5 - 1, 2.25 - 0] = [0.5, 2.25]; bf16x2: [1 - -1, 3 - 1] = [2, 2].
    // Memory: [2 - 1, 1 - -2] = [1, 3]; bf16x2 [1 - 1, 3.140625 - 1 = 2.140625 exact (0x4009)].
    half_block(
        "9.7.4.2-sub.ptx",
        [0xBA00, 0x67FF, 0x3F7E, 0x3F7F],
        0x4080_3800,
        0x4000_4000,
        0x4200_3C00,
        0x4009_0000,
        2,
    );
}

#[test]
fn mul_9_7_4_3() {
    // 1.5 * 2.25 = 3.375 (0x42C0); 2048 * 1 = 2048; bf16 2^-7 (0x3C00), 2^-8 (0x3B80).
    // f16x2: [1.5 * 1, 2.25 * 0] = [1.5, +0]; bf16x2: [1 * -1, 3 * 1] = [-1, 3].
    // Memory: [2 * 1, 1 * -2] = [2, -2]; bf16x2 [1 * 1, 3.140625 * 1].
    half_block(
        "9.7.4.3-mul.ptx",
        [0x42C0, 0x6800, 0x3C00, 0x3B80],
        0x0000_3E00,
        0x4040_BF80,
        0xC000_4000,
        0x4049_3F80,
        2,
    );
}

#[test]
fn fma_9_7_4_4() {
    // f16: 1.5 * 2 - 4 = -1. d1 = fma(a1, b1, c1) on 0x3C00, 0xC000, 0x3C00: as f16
    // 1 * -2 + 1 = -1 (0xBC00), .relu gives +0, .oob changes nothing (no OOB NaN operand);
    // as bf16 2^-7 * -2 + 2^-7 = -2^-7 (0xBC00), .relu gives +0.
    // f16x2 p3 = p1 * p2 + p2 with p1 = [-3, 0.5], p2 = [1, 2]: [-3 + 1, 1 + 2] = [-2, 3]
    // (0x4200C000); .relu: [+0, 3].
    // Memory: f0 = [0x3C00, 0x7FFF], f1 = [0xC000, 0x3C00]. f16x2: [1 * -2 - 2, NaN] =
    // [-4, canonical NaN]. bf16x2: lane 0 = 2^-7 * -2 - 2 = -2.015625 (exact, 0xC001), lane 1 is
    // NaN (0x7FFF is the OOB NaN): plain -> 0x7FFF; .relu -> [+0, canonical NaN]; .oob ->
    // [0xC001, +0]; .oob.relu -> [+0, +0].
    check(
        "9.7.4.4-fma.ptx",
        &[
            (17, "d0", 0xBC00),
            (19, "d1", 0xBC00),
            (21, "d1", 0x0000),
            (23, "d1", 0xBC00),
            (25, "d1", 0x0000),
            (29, "d1", 0xBC00),
            (31, "d1", 0x0000),
            (33, "d1", 0xBC00),
            (35, "d1", 0x0000),
            (39, "h0", 0xC200), // -3
            (41, "h1", 0x3800), // 0.5
            (43, "h2", 0x3C00), // 1
            (45, "h3", 0x4000), // 2
            (47, "p1", 0x3800_C200),
            (49, "p2", 0x4000_3C00),
            (51, "p3", 0x4200_C000),
            (53, "p3", 0x4200_0000),
            (55, "p3", 0x4200_C000),
            (57, "p3", 0x4200_0000),
            (61, "f0", 0x7FFF_3C00),
            (63, "f1", 0x3C00_C000),
            (65, "f2", 0x7FFF_C400),
            (69, "f2", 0x7FFF_C001),
            (71, "f2", 0x7FFF_0000),
            (73, "f2", 0x0000_C001),
            (75, "f2", 0x0000_0000),
        ],
    );
}

#[test]
fn neg_abs_9_7_4_5_6() {
    // neg.ftz.f16 of the subnormal 0x0001: flushed to +0, negated: -0. neg.bf16(1) = -1.
    // neg.bf16x2 [3, -0] = [-3, +0].
    check(
        "9.7.4.5-neg.ptx",
        &[
            (11, "x", 0x8000),
            (13, "x", 0xBF80),
            (15, "x1", 0x0000_C040),
        ],
    );
    // abs.ftz.f16(0x8001) = abs(-0) = +0; abs.bf16(-1) = 1; abs.bf16x2 [-3, -0] = [3, +0].
    check(
        "9.7.4.6-abs.ptx",
        &[
            (11, "x", 0x0000),
            (13, "x", 0x3F80),
            (15, "x1", 0x0000_4040),
        ],
    );
}

#[test]
fn min_9_7_4_7() {
    // min.ftz.f16(1, 0x8001 -> -0) = -0. f16x2: [min(1, 2), min(NaN, -2)] = [1, -2];
    // .NaN: [1, canonical NaN]. min.bf16(2^-7, 0x8001) = 0x8001 (negative subnormal, no .ftz).
    // bf16x2 .NaN on the same bits: [min(2^-7, 2), NaN] = [0x3C00, 0x7FFF].
    // min.xorsign.abs.bf16(-2, 1) = -(min(2, 1)) = -1.
    check(
        "9.7.4.7-min.ptx",
        &[
            (11, "h0", 0x8000),
            (13, "b0", 0xC000_3C00),
            (17, "b0", 0x7FFF_3C00),
            (19, "h0", 0x8001),
            (23, "b0", 0x7FFF_3C00),
            (27, "Rd", 0xBF80),
        ],
    );
}

#[test]
fn max_9_7_4_8() {
    // max.ftz.f16(0x0001 -> +0, -0) = +0. f16x2: [max(1, 2), max(NaN, -2)] = [2, -2]; .NaN:
    // [2, canonical NaN]. max.xorsign.abs.f16(-2, 1) = -(max(2, 1)) = -2.
    // max.bf16(0x0001, -0) = 0x0001. bf16x2 .NaN: [max(2^-7, 2), NaN] = [2, 0x7FFF].
    // bf16x2 xorsign.abs: [-2 vs 1 -> -(2), 1 vs -3 -> -(3)] = [-2, -3].
    check(
        "9.7.4.8-max.ptx",
        &[
            (12, "h0", 0x0000),
            (14, "b0", 0xC000_4000),
            (18, "b0", 0x7FFF_4000),
            (22, "Rd", 0xC000),
            (24, "h0", 0x0001),
            (28, "b0", 0x7FFF_4000),
            (32, "Rd2", 0xC040_C000),
        ],
    );
}

/// Runs `body` after `decls` with the given `--set`s; the final bits of register `reg`.
fn run_snippet(decls: &str, body: &str, sets: &[&str], reg: &str) -> Result<u64, RunError> {
    let text = format!("{decls}\n{body}\n");
    let a = Args {
        sets: sets.iter().map(|s| s.to_string()).collect(),
        ..Args::default()
    };
    let (writes, _) = run(&text, &a)?;
    Ok(writes
        .iter()
        .rev()
        .find(|w| w.1 == reg)
        .map(|w| w.2)
        .expect("written"))
}

fn ap_convert<A: FloatConvert<B>, B: rustc_apfloat::Float>(a: A, r: Round) -> u64 {
    let mut loses = false;
    a.convert_r(ap_round(r), &mut loses).value.to_bits() as u64
}

/// `cvt` narrowing f32 -> f16 / bf16 and f64 -> f32 in every rounding mode, and the exact
/// widenings, against rustc_apfloat's conversions.
#[test]
fn cvt_against_apfloat() {
    let f32s: [u32; 8] = [
        0x3F80_1000, // 1 + 2^-11: a tie in f16
        0x3F80_1001, // just above the tie
        0xC77F_F000, // -65520: rounds to -inf or -65504 in f16 by direction
        0x3380_0001, // just above 2^-24: f16 subnormal range
        0x3F80_8000, // 1 + 2^-8: a tie in bf16
        0xBF80_C000, // -(1 + 3 * 2^-9)
        0x0000_0001, // the least f32 subnormal
        0x4049_0FDB, // pi
    ];
    for r in Round::ALL {
        let n = r.ptx_name();
        for a in f32s {
            let set = format!("a=0x{a:08x}");
            let ap_a = Single::from_bits(a.into());
            let f16 = run_snippet(
                ".reg .f32 a; .reg .f16 h;",
                &format!("cvt.{n}.f16.f32 h, a;"),
                &[&set],
                "h",
            )
            .unwrap();
            assert_eq!(
                f16,
                ap_convert::<_, Half>(ap_a, r),
                "cvt.{n}.f16.f32 {a:08x}"
            );
            if matches!(r, Round::Rn | Round::Rz) {
                let bf16 = run_snippet(
                    ".reg .f32 a; .reg .bf16 h;",
                    &format!("cvt.{n}.bf16.f32 h, a;"),
                    &[&set],
                    "h",
                )
                .unwrap();
                assert_eq!(
                    bf16,
                    ap_convert::<_, BFloat>(ap_a, r),
                    "cvt.{n}.bf16 {a:08x}"
                );
            }
            let f64 = run_snippet(
                ".reg .f32 a; .reg .f64 d;",
                "cvt.f64.f32 d, a;",
                &[&set],
                "d",
            )
            .unwrap();
            assert_eq!(f64, ap_convert::<_, Double>(ap_a, r), "cvt.f64.f32 {a:08x}");
        }
        for d in [
            0x3FF0_0000_1000_0000u64,
            0xC7EF_FFFF_F000_0000,
            0x3690_0000_0000_0001,
        ] {
            let got = run_snippet(
                ".reg .f64 d; .reg .f32 f;",
                &format!("cvt.{n}.f32.f64 f, d;"),
                &[&format!("d=0x{d:016x}")],
                "f",
            )
            .unwrap();
            let want = ap_convert::<_, Single>(Double::from_bits(d.into()), r);
            assert_eq!(got, want, "cvt.{n}.f32.f64 {d:016x}");
        }
    }
}

/// `.relu`, `.sat`, `.ftz` and the packed order of `cvt`, by hand.
#[test]
fn cvt_modifiers_by_hand() {
    let one = |body: &str, set: &str, reg: &str| {
        run_snippet(
            ".reg .f32 a, b, f; .reg .f16 h; .reg .b32 p; .reg .f64 d;",
            body,
            &[set, "b=1"],
            reg,
        )
        .unwrap()
    };
    // .relu: -1 -> +0; NaN -> canonical NaN.
    assert_eq!(one("cvt.rn.relu.f16.f32 h, a;", "a=-1", "h"), 0);
    assert_eq!(one("cvt.rn.relu.f16.f32 h, a;", "a=nan", "h"), 0x7FFF);
    // .sat: 2 -> 1; -0.5 -> +0; NaN -> +0.
    assert_eq!(one("cvt.rn.sat.f16.f32 h, a;", "a=2", "h"), 0x3C00);
    assert_eq!(one("cvt.rn.sat.f16.f32 h, a;", "a=-0.5", "h"), 0);
    assert_eq!(one("cvt.rn.sat.f16.f32 h, a;", "a=nan", "h"), 0);
    // .ftz on an f32 source: a subnormal input becomes a signed zero.
    assert_eq!(
        one("cvt.ftz.f64.f32 d, a;", "a=0x80000001", "d"),
        0x8000_0000_0000_0000
    );
    // .ftz on an f32 result: 2^-140 from f64 is subnormal in f32 and flushes to +0.
    let tiny = run_snippet(
        ".reg .f64 d; .reg .f32 f;",
        "cvt.rn.ftz.f32.f64 f, d;",
        &["d=0x3730000000000000"],
        "f",
    )
    .unwrap();
    assert_eq!(tiny, 0);
    // Packed: a in the upper half, b in the lower half.
    assert_eq!(one("cvt.rn.f16x2.f32 p, a, b;", "a=2", "p"), 0x4000_3C00);
    assert_eq!(
        one("cvt.rn.relu.bf16x2.f32 p, a, b;", "a=-2", "p"),
        0x0000_3F80
    );
}

#[test]
fn setp_selp_mov_and_memory() {
    let text = "
        .reg .pred p, q, n;
        .reg .f32 a, b, c;
        .reg .b32 x, y;
        .reg .b16 lo, hi;
        .reg .u64 base;
        setp.lt.f32 p|q, a, b;      // 1 < NaN is false; q its complement
        setp.ltu.f32 n, a, b;       // unordered: true
        selp.f32 c, a, 0f40000000, q;
        mov.b32 x, 0x40003c00;
        mov.b32 {lo, hi}, x;        // lo = 0x3c00, hi = 0x4000
        mov.b32 y, {hi, lo};        // 0x3c004000
        st.global.b32 [base+8], y;
        L1: st.global.f32 [base + 12], c;
        ld.global.b32 x, [base + 8];
    ";
    let a = Args {
        sets: ["a=1", "b=nan", "base=0x100"].map(String::from).to_vec(),
        ..Args::default()
    };
    let (writes, m) = run(text, &a).unwrap();
    let got: Vec<(&str, u64)> = writes.iter().map(|w| (w.1.as_str(), w.2)).collect();
    assert_eq!(
        got,
        [
            ("p", 0),
            ("q", 1),
            ("n", 1),
            ("c", 0x3F80_0000),
            ("x", 0x4000_3C00),
            ("lo", 0x3C00),
            ("hi", 0x4000),
            ("y", 0x3C00_4000),
            ("x", 0x3C00_4000),
        ]
    );
    let bytes: Vec<u8> = (0x108..0x110).map(|k| m.mem[&k]).collect();
    assert_eq!(bytes, [0x00, 0x40, 0x00, 0x3C, 0x00, 0x00, 0x80, 0x3F]);
    let program = parse_program(text, None).unwrap();
    let report = m.report(&program);
    assert!(report.contains("[0x108] = 0x3c004000 .b32\n"), "{report}");
    assert!(report.contains("[0x10c] = 0x3f800000 .f32 1\n"), "{report}");
    // Signed zeros compare equal; a guard skips a statement.
    let zero = run_snippet(
        ".reg .pred p; .reg .f32 %f<3>;",
        "setp.eq.f32 p, %f0, %f1; @!p mov.f32 %f2, 0f3F800000; @p mov.f32 %f2, 0f40000000;",
        &["%f0=0.0", "%f1=-0.0"],
        "%f2",
    )
    .unwrap();
    assert_eq!(zero, 0x4000_0000);
}

/// Where an error is: (line, column).
fn error_at(text: &str, sets: &[&str]) -> (usize, usize, String) {
    let a = Args {
        sets: sets.iter().map(|s| s.to_string()).collect(),
        ..Args::default()
    };
    let e = run(text, &a).expect_err("an error");
    (e.line, e.column, e.message)
}

#[test]
fn bad_programs_name_line_and_column() {
    let cases: &[(&str, &[&str], usize, usize, &str)] = &[
        (
            ".reg .f32 a;\nadd.f32 a, a, b;",
            &[],
            2,
            15,
            "undeclared register `b`",
        ),
        (
            ".reg .f32 a;\n.reg .f64 d;\nadd.f32 a, a, d;",
            &[],
            3,
            15,
            "register `d` is .f64",
        ),
        (
            ".reg .f32 a; .reg .u32 u;\nadd.f32 a, a, u;",
            &[],
            2,
            15,
            "register `u` is .u32; this operand needs .f32 or .b32",
        ),
        (
            ".reg .f32 a, b;\nmul.f32 a, a, b  // no semicolon\nadd.f32 a, a, b;",
            &[],
            2,
            16,
            "expected `;`",
        ),
        (
            ".reg .f32 a, b;\nadd.f32 a, a, b",
            &[],
            2,
            16,
            "expected `;`",
        ),
        (
            ".reg .f32 a, b;\n  frob.f32 a, b;",
            &[],
            2,
            3,
            "unknown or unsupported instruction `frob.f32`",
        ),
        (
            ".reg .f32 a, b;\nadd.f33 a, a, b;",
            &[],
            2,
            4,
            "unknown modifier `.f33`",
        ),
        (
            ".reg .f32 a, b;\nadd.f32 a, a;",
            &[],
            2,
            1,
            "takes 3 operands",
        ),
        (
            ".reg .f32 a, b;\nadd.f32 a, a, b;",
            &["a=1"],
            2,
            1,
            "`b` is read before it is written",
        ),
        (".reg .f32 a;\n.reg .f32 a;", &[], 2, 11, "declared twice"),
        (".reg .f31 a;", &[], 1, 6, "not a register type"),
        // Module directives end with their line: a `;` is part of the target's name.
        (".target sm_90;", &[], 1, 9, "unknown target `sm_90;`"),
        (".global .f32 x;", &[], 1, 1, "unsupported directive"),
        (
            ".reg .f32 a; .reg .f16 h;\ncvt.f16.f32 h, a;",
            &[],
            2,
            1,
            "requires a rounding modifier",
        ),
        (
            ".reg .f32 a; .reg .f16 h;\ncvt.rni.f16.f32 h, a;",
            &[],
            2,
            5,
            "unsupported cvt modifier `.rni`",
        ),
        (
            ".reg .f32 a; .reg .s32 i;\ncvt.rn.s32.f32 i, a;",
            &[],
            2,
            8,
            "cvt between f16",
        ),
        (
            ".reg .f32 a; .reg .u64 p;\nld.global.f32 a, [p];",
            &["p=16"],
            2,
            1,
            "no memory there",
        ),
        (
            ".reg .f32 a; .reg .u64 p;\nld.shared.f32 a, [p];",
            &[],
            2,
            1,
            "`.global` state space",
        ),
        (
            ".reg .f32 a;\n@q add.f32 a, a, a;",
            &[],
            2,
            2,
            "undeclared register `q`",
        ),
        (
            ".reg .f32 a; .reg .pred p;\n@p add.f32 a, a, a;",
            &["a=1"],
            2,
            1,
            "`p` is read before",
        ),
        (
            ".reg .b32 x; .reg .f32 a, b;\nmov.b32 x, {a, b};",
            &[],
            2,
            13,
            "register `a` is .f32",
        ),
        (
            ".reg .f32 a;\nadd.f32 a, a, {a};",
            &[],
            2,
            15,
            "bit-size type",
        ),
    ];
    for &(text, sets, line, column, message) in cases {
        let (l, c, m) = error_at(text, sets);
        assert_eq!((l, c), (line, column), "{text:?}: {m}");
        assert!(m.contains(message), "{text:?}: {m}");
    }
    // The target is checked too.
    let e = parse_program(
        ".reg .f32 a;\nmin.xorsign.abs.f32 a, a, a;",
        Some("sm_80".parse().unwrap()),
    )
    .unwrap_err();
    assert_eq!((e.line, e.column), (2, 1));
    assert!(e.message.contains("sm_86"), "{e}");
}

/// Every prefix of every example, and every example with one character deleted, gives a
/// result or an error, never a panic.
#[test]
fn mangled_examples_never_panic() {
    let dir = format!("{}/../../examples/ptx", env!("CARGO_MANIFEST_DIR"));
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let a = args(&text);
        let body_start = text.find("\n\n").unwrap_or(0);
        for cut in (body_start..text.len()).filter(|&k| text.is_char_boundary(k)) {
            let _ = run_with(&text[..cut], &a, false);
            let mut deleted = text.clone();
            deleted.remove(cut);
            let _ = run_with(&deleted, &a, false);
        }
    }
}

#[test]
fn packing_two_halves_reports_lanes() {
    let text = ".reg .f16 h0, h1; .reg .b32 p; mov.b32 p, {h0, h1};";
    let program = parse_program(text, None).unwrap();
    let mut m = Machine::new(&program);
    m.set(&program, "h0=1.5").unwrap();
    m.set(&program, "h1=-2").unwrap();
    m.run(&program).unwrap();
    // h0 = 1.5 (0x3E00) in the low half, h1 = -2 (0xC000) in the high half.
    assert_eq!(m.report(&program), "p = 0xc0003e00 .f16x2 [1.5, -2]\n");
}

/// A module as nvcc emits it: `.version`, `.target` and `.address_size` lines, a kernel header
/// with parameters, braces and `ret`. `.target` is used unless a target is given; `.version`
/// bounds the features; the first statement outside the model is named with its place.
#[test]
fn nvcc_module_structure() {
    let module = "//\n// Generated by NVIDIA NVVM Compiler\n//\n\n.version 8.5\n.target sm_52\n\
                  .address_size 64\n\n\t// .globl\t_Z1kPf\n\n.visible .entry _Z1kPf(\n\
                  \t.param .u64 _Z1kPf_param_0\n)\n.maxntid 128, 1, 1\n{\n\
                  \t.reg .f32 \t%f<4>;\n\n\tfma.rn.f32 \t%f3, %f1, %f2, %f1;\n\
                  \tMIN\n\tret;\n\n}\n";
    let a = |target: Option<&str>| Args {
        target: target.map(|t| t.parse().unwrap()),
        sets: vec!["%f1=1.5".into(), "%f2=2".into()],
        mems: Vec::new(),
    };
    // fma(1.5, 2, 1.5) = 4.5; min(4.5, 2) = 2.
    let plain = module.replace("MIN", "min.f32 \t%f3, %f3, %f2;");
    let (writes, _) = run(&plain, &a(None)).unwrap();
    assert_eq!(
        writes,
        [
            (18, "%f3".to_string(), 0x4090_0000),
            (19, "%f3".to_string(), 0x4000_0000)
        ]
    );
    // `.target sm_52` has no min.NaN (sm_80); a given target overrides the module's.
    let nan = module.replace("MIN", "min.NaN.f32 \t%f3, %f3, %f2;");
    let e = run(&nan, &a(None)).unwrap_err();
    assert_eq!((e.line, e.column), (19, 2));
    assert!(e.message.contains("requires .target sm_80"), "{e}");
    assert!(run(&nan, &a(Some("sm_80"))).is_ok());
    let old = nan.replace(".version 8.5", ".version 6.0");
    let e = run(&old, &a(Some("sm_80"))).unwrap_err();
    assert!(e.message.contains("PTX ISA .version 7.0"), "{e}");
    // A parameter load is outside the model: that statement is named.
    let ld = module.replace("MIN", "ld.param.u64 \t%rd1, [_Z1kPf_param_0];");
    let ld = ld.replace(
        ".reg .f32 \t%f<4>;",
        ".reg .f32 \t%f<4>;\n\t.reg .b64 %rd<2>;",
    );
    let e = run(&ld, &a(None)).unwrap_err();
    assert_eq!((e.line, e.column), (20, 2));
    assert!(e.message.contains("`ld.param.u64`"), "{e}");
    for (bad, says) in [
        (".version 8.9", "unknown PTX ISA version"),
        (".target sm_51", "unknown target"),
        (".address_size 48", "expected 32 or 64"),
    ] {
        let text = format!("{bad}\n.reg .f32 a;\n");
        let e = parse_program(&text, None).unwrap_err();
        assert!(e.message.contains(says) && e.line == 1, "{bad}: {e}");
    }
}
