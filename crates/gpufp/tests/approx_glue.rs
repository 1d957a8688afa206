//! The approximate instructions' special-value tables (PTX ISA 9.7.3.13-9.7.3.22, 9.7.4.9-9.7.4.10)
//! and the IEEE glue around the MUFU as ptxas compiles it, tested on its own with a probe core that
//! returns its input, so every scaling step shows in the result. Expected values are derived by
//! hand or with rustc_apfloat, never from the model.

use gpufp::format::{BF16, F16, F32};
use gpufp::mufu::{Core, CoreRef, Op, Op16, Op64};
use gpufp::ptx::guarantee::{guarantees, Guarantee, Unit};
use gpufp::ptx::{self, Context};
use rustc_apfloat::ieee::{Double, Single};
use rustc_apfloat::{Float, Round};
use std::sync::Arc;

/// A core that returns its input unchanged (after nothing): the glue's steps show in the result.
#[derive(Debug)]
struct Probe;

impl Core for Probe {
    fn name(&self) -> String {
        "probe".into()
    }
    fn f32(&self, _: Op, a: F32) -> F32 {
        a
    }
    fn f64_high(&self, _: Op64, hi: u32) -> u32 {
        hi
    }
    fn f16(&self, _: Op16, a: F16) -> F16 {
        a
    }
    fn bf16(&self, _: Op16, a: BF16) -> BF16 {
        a
    }
}

fn run(text: &str, ops: &[u64], ctx: &Context) -> u64 {
    let mut i = ptx::parse_instr(text).unwrap();
    i.inputs = ops.len() as u8;
    let checked = ptx::validate(&i, None, None).unwrap_or_else(|e| panic!("{text}: {e}"));
    let ctx = Context {
        target: Some(checked.default_target),
        ..ctx.clone()
    };
    ptx::eval(&checked.effective, ops, &ctx).unwrap()
}

fn probe() -> Context {
    Context {
        core: CoreRef::new(Arc::new(Probe)),
        ..Context::default()
    }
}

fn s(bits: u64) -> Single {
    Single::from_bits(bits.into())
}

fn bits(x: Single) -> u64 {
    x.to_bits() as u64
}

/// rustc_apfloat's f32 product in direction `r`.
fn mul(a: u64, b: u64, r: Round) -> u64 {
    bits(s(a).mul_r(s(b), r).value)
}

const RN: Round = Round::NearestTiesToEven;

const NAN32: u64 = 0x7FC0_0000;
const INF32: u64 = 0x7F80_0000;
const NINF32: u64 = 0xFF80_0000;
const ONE32: u64 = 0x3F80_0000;

/// One row of a special-value table: input, and the result (None: "NaN", which for
/// single-precision instructions is "an unspecified NaN", PTX ISA 9.7.3, so any NaN passes).
type Row = (u64, Option<u64>);

fn check_table(text: &str, rows: &[Row], width: u32) {
    for ftz in [false, true] {
        let name = if ftz && !text.contains(".ftz") && width == 32 && !text.starts_with("tanh") {
            text.replacen(".approx", ".approx.ftz", 1)
        } else {
            text.to_string()
        };
        for &(a, want) in rows {
            let d = run(&name, &[a], &Context::default());
            let is_nan = match width {
                16 if text.contains("bf16") => d & 0x7F80 == 0x7F80 && d & 0x7F != 0,
                16 => d & 0x7C00 == 0x7C00 && d & 0x3FF != 0,
                32 => d & 0x7F80_0000 == 0x7F80_0000 && d & 0x7F_FFFF != 0,
                _ => {
                    d & 0x7FF0_0000_0000_0000 == 0x7FF0_0000_0000_0000
                        && d & 0xF_FFFF_FFFF_FFFF != 0
                }
            };
            match want {
                Some(w) => assert_eq!(d, w, "{name} 0x{a:x}: 0x{d:x}"),
                // The manual says "NaN" only: any NaN.
                None => assert!(is_nan, "{name} 0x{a:x}: 0x{d:x} is not a NaN"),
            }
        }
        if width != 32 || text.starts_with("tanh") {
            break;
        }
    }
}

/// 9.7.3.13 rcp: -Inf -> -0.0, -0.0 -> -Inf, +0.0 -> +Inf, +Inf -> +0.0, NaN -> NaN.
#[test]
fn rcp_table() {
    check_table(
        "rcp.approx.f32",
        &[
            (NINF32, Some(0x8000_0000)),
            (0x8000_0000, Some(NINF32)),
            (0, Some(INF32)),
            (INF32, Some(0)),
            (NAN32, None),
        ],
        32,
    );
}

/// 9.7.3.14 rcp.approx.ftz.f64 (on a[63:32]): -Inf -> -0.0, -subnormal -> -Inf, -0.0 -> -Inf,
/// +0.0 -> +Inf, +subnormal -> +Inf, +Inf -> +0.0, "Input NaNs map to a canonical NaN with
/// encoding 0x7fffffff00000000". The lower word of the input is ignored.
#[test]
fn rcp_f64_table() {
    let rows = [
        (0xFFF0_0000_0000_0000, Some(0x8000_0000_0000_0000)),
        (0x800F_FFFF_FFFF_FFFF, Some(0xFFF0_0000_0000_0000)),
        (0x8000_0000_0000_0000, Some(0xFFF0_0000_0000_0000)),
        (0x0000_0000_1234_5678, Some(0x7FF0_0000_0000_0000)),
        (0x0000_0001_0000_0000, Some(0x7FF0_0000_0000_0000)),
        (0x7FF0_0000_0000_0000, Some(0)),
        (0x7FF8_0000_0000_0000, Some(0x7FFF_FFFF_0000_0000)),
        // -Inf in the upper word (the lower word is ignored) -> -0.0.
        (0xFFF0_0000_0000_0001, Some(0x8000_0000_0000_0000)),
    ];
    check_table("rcp.approx.ftz.f64", &rows, 64);
}

/// 9.7.3.15 sqrt: -Inf -> NaN, -normal -> NaN, -0.0 -> -0.0, +0.0 -> +0.0, +Inf -> +Inf.
#[test]
fn sqrt_table() {
    check_table(
        "sqrt.approx.f32",
        &[
            (NINF32, None),
            (0xBF80_0000, None),
            (0x8000_0000, Some(0x8000_0000)),
            (0, Some(0)),
            (INF32, Some(INF32)),
            (NAN32, None),
        ],
        32,
    );
}

/// 9.7.3.16 rsqrt: -Inf -> NaN, -normal -> NaN, -0.0 -> -Inf, +0.0 -> +Inf, +Inf -> +0.0; the
/// same table for rsqrt.approx.f64, whose NaN keeps its payload ("NaN payloads are supported for
/// double-precision instructions"; which NaN is a policy, so any NaN here).
#[test]
fn rsqrt_tables() {
    check_table(
        "rsqrt.approx.f32",
        &[
            (NINF32, None),
            (0xC000_0000, None),
            (0x8000_0000, Some(NINF32)),
            (0, Some(INF32)),
            (INF32, Some(0)),
            (NAN32, None),
        ],
        32,
    );
    check_table(
        "rsqrt.approx.f64",
        &[
            (0xFFF0_0000_0000_0000, None),
            (0xC000_0000_0000_0000, None),
            (0x8000_0000_0000_0000, Some(0xFFF0_0000_0000_0000)),
            (0, Some(0x7FF0_0000_0000_0000)),
            (0x7FF0_0000_0000_0000, Some(0)),
            (0x7FF8_0000_0000_0000, None),
        ],
        64,
    );
}

/// 9.7.3.17 rsqrt.approx.ftz.f64: -Inf -> NaN, -subnormal -> -Inf, -0.0 -> -Inf, +0.0 -> +Inf,
/// +subnormal -> +Inf, +Inf -> +0.0, NaN -> 0x7fffffff00000000.
#[test]
fn rsqrt_f64_ftz_table() {
    check_table(
        "rsqrt.approx.ftz.f64",
        &[
            (0xFFF0_0000_0000_0000, None),
            (0x8000_0000_0000_0001, Some(0xFFF0_0000_0000_0000)),
            (0x8000_0000_0000_0000, Some(0xFFF0_0000_0000_0000)),
            (0, Some(0x7FF0_0000_0000_0000)),
            (0x0008_0000_0000_0000, Some(0x7FF0_0000_0000_0000)),
            (0x7FF0_0000_0000_0000, Some(0)),
            (0xFFF0_0000_0000_0001, Some(0x7FFF_FFFF_0000_0000)),
        ],
        64,
    );
}

/// 9.7.3.18 sin: -Inf -> NaN, -0.0 -> -0.0, +0.0 -> +0.0, +Inf -> NaN.
/// 9.7.3.19 cos: -Inf -> NaN, -0.0 -> +1.0, +0.0 -> +1.0, +Inf -> NaN.
#[test]
fn sin_cos_tables() {
    check_table(
        "sin.approx.f32",
        &[
            (NINF32, None),
            (0x8000_0000, Some(0x8000_0000)),
            (0, Some(0)),
            (INF32, None),
            (NAN32, None),
        ],
        32,
    );
    check_table(
        "cos.approx.f32",
        &[
            (NINF32, None),
            (0x8000_0000, Some(ONE32)),
            (0, Some(ONE32)),
            (INF32, None),
            (NAN32, None),
        ],
        32,
    );
}

/// 9.7.3.20 lg2: -Inf -> NaN, -normal -> NaN, -0.0 -> -Inf, +0.0 -> -Inf, +Inf -> +Inf.
#[test]
fn lg2_table() {
    check_table(
        "lg2.approx.f32",
        &[
            (NINF32, None),
            (0xBF80_0000, None),
            (0x8000_0000, Some(NINF32)),
            (0, Some(NINF32)),
            (INF32, Some(INF32)),
            (NAN32, None),
        ],
        32,
    );
}

/// 9.7.3.21 ex2: -Inf -> +0.0, -0.0 -> +1.0, +0.0 -> +1.0, +Inf -> +Inf.
#[test]
fn ex2_table() {
    check_table(
        "ex2.approx.f32",
        &[
            (NINF32, Some(0)),
            (0x8000_0000, Some(ONE32)),
            (0, Some(ONE32)),
            (INF32, Some(INF32)),
            (NAN32, None),
        ],
        32,
    );
}

/// 9.7.3.22 tanh: -Inf -> -1.0, -0.0 -> -0.0, +0.0 -> +0.0, +Inf -> 1.0; "The subnormal inputs
/// gets passed through to the output".
#[test]
fn tanh_table() {
    check_table(
        "tanh.approx.f32",
        &[
            (NINF32, Some(0xBF80_0000)),
            (0x8000_0000, Some(0x8000_0000)),
            (0, Some(0)),
            (INF32, Some(ONE32)),
            (NAN32, None),
            (0x0000_0001, Some(0x0000_0001)),
            (0x807F_FFFF, Some(0x807F_FFFF)),
        ],
        32,
    );
}

/// 9.7.4.9 tanh (f16, bf16): -Inf -> -1.0, -0.0 -> -0.0, +0.0 -> +0.0, +Inf -> 1.0.
/// 9.7.4.10 ex2.approx.ftz.bf16: -Inf -> +0.0, -subnormal -> +1.0, -0.0 -> +1.0, +0.0 -> +1.0,
/// +subnormal -> +1.0, +Inf -> +Inf; ex2.approx.f16: -Inf -> +0.0, ±0.0 -> +1.0, +Inf -> +Inf.
#[test]
fn half_tables() {
    check_table(
        "tanh.approx.f16",
        &[
            (0xFC00, Some(0xBC00)),
            (0x8000, Some(0x8000)),
            (0, Some(0)),
            (0x7C00, Some(0x3C00)),
            (0x7E00, None),
        ],
        16,
    );
    check_table(
        "tanh.approx.bf16",
        &[
            (0xFF80, Some(0xBF80)),
            (0x8000, Some(0x8000)),
            (0, Some(0)),
            (0x7F80, Some(0x3F80)),
            (0x7FC0, None),
        ],
        16,
    );
    check_table(
        "ex2.approx.ftz.bf16",
        &[
            (0xFF80, Some(0)),
            (0x8001, Some(0x3F80)),
            (0x8000, Some(0x3F80)),
            (0, Some(0x3F80)),
            (0x007F, Some(0x3F80)),
            (0x7F80, Some(0x7F80)),
            (0x7FC0, None),
        ],
        16,
    );
    check_table(
        "ex2.approx.f16",
        &[
            (0xFC00, Some(0)),
            (0x8000, Some(0x3C00)),
            (0, Some(0x3C00)),
            (0x7C00, Some(0x7C00)),
            (0x7E00, None),
        ],
        16,
    );
    // Packed forms apply the table to each half independently.
    let d = run("ex2.approx.f16x2", &[0xFC00_7C00], &Context::default());
    assert_eq!(d, 0x0000_7C00);
    let d = run("tanh.approx.bf16x2", &[0x7F80_8000], &Context::default());
    assert_eq!(d, 0x3F80_8000);
}

/// rcp.approx.f32: s = |a| > 2^126 ? 0.25 : |a| < 2^-126 ? 2^24 : 1; d = s * MUFU.RCP(a * s).
/// With the probe core, d = s * (a * s) rounded twice; the .ftz form is the bare MUFU.
#[test]
fn rcp_glue() {
    let p = probe();
    let two24 = 0x4B80_0000;
    for a in [0x0000_0001u64, 0x807F_FFFF, 0x0040_0000] {
        let want = mul(two24, mul(a, two24, RN), RN);
        assert_eq!(run("rcp.approx.f32", &[a], &p), want, "0x{a:x}");
        assert_eq!(run("rcp.approx.ftz.f32", &[a], &p), a);
    }
    for a in [0x7F00_0000u64, 0xFE80_0001, 0x7F7F_FFFF] {
        let want = mul(0x3E80_0000, mul(a, 0x3E80_0000, RN), RN);
        assert_eq!(run("rcp.approx.f32", &[a], &p), want, "0x{a:x}");
    }
    // 2^126 itself and 2^-126 are not scaled.
    for a in [0x7E80_0000u64, 0x0080_0000, 0x3FC0_0000] {
        assert_eq!(run("rcp.approx.f32", &[a], &p), a);
    }
}

/// sqrt/rsqrt/lg2.approx.f32: tiny (|a| < 2^-126) inputs are scaled by 2^24 and the result by
/// 2^-12, 2^12, or -24 added.
#[test]
fn sqrt_rsqrt_lg2_glue() {
    let p = probe();
    for a in [0x0000_0001u64, 0x0012_3456, 0x807F_FFFF] {
        let scaled = mul(a, 0x4B80_0000, RN);
        assert_eq!(
            run("sqrt.approx.f32", &[a], &p),
            mul(scaled, 0x3980_0000, RN)
        );
        assert_eq!(
            run("rsqrt.approx.f32", &[a], &p),
            mul(scaled, 0x4580_0000, RN)
        );
        let lg2 = bits((s(scaled) + s(0xC1C0_0000)).value);
        assert_eq!(run("lg2.approx.f32", &[a], &p), lg2);
        for f in ["sqrt", "rsqrt", "lg2"] {
            assert_eq!(run(&format!("{f}.approx.ftz.f32"), &[a], &p), a);
        }
    }
    for a in [0x0080_0000u64, 0x3F80_0000] {
        assert_eq!(run("sqrt.approx.f32", &[a], &p), a);
    }
}

/// ex2.approx.f32: inputs below -126 are halved and the core's result squared
/// (`ex2.approx.f32 -130.0` is the square of the core's value at -65); -126 itself is not.
#[test]
fn ex2_glue() {
    let p = probe();
    let a = 0xC302_0000; // -130.0
    let half = 0xC282_0000; // -65.0
    assert_eq!(run("ex2.approx.f32", &[a], &p), mul(half, half, RN));
    assert_eq!(run("ex2.approx.ftz.f32", &[a], &p), a);
    assert_eq!(run("ex2.approx.f32", &[0xC2FC_0000], &p), 0xC2FC_0000);
    let below = 0xC2FC_0001; // just below -126
    let h = mul(below, 0x3F00_0000, RN);
    assert_eq!(run("ex2.approx.f32", &[below], &p), mul(h, h, RN));
}

/// sin/cos.approx{.ftz}.f32: t = a *rz 0x3e22f983 (no flush), then MUFU.SIN/COS(t).
#[test]
fn sin_cos_glue() {
    let p = probe();
    let mut x = 0x1234_5678_9ABC_DEF0u64;
    let mut inputs = vec![
        0x3F80_0000u64,
        0x40C9_0FDB,
        0x0000_0001,
        0x8040_0000,
        0x7F7F_FFFF,
    ];
    for _ in 0..2000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        inputs.push(x & 0xFFFF_FFFF);
    }
    for a in inputs {
        if s(a).is_nan() {
            continue;
        }
        let want = mul(a, 0x3E22_F983, Round::TowardZero);
        for f in [
            "sin.approx.f32",
            "sin.approx.ftz.f32",
            "cos.approx.f32",
            "cos.approx.ftz.f32",
        ] {
            assert_eq!(run(f, &[a], &p), want, "{f} 0x{a:x}");
        }
    }
}

/// div.approx.f32: tiny |b| scales both by 2^24; d = RCP(b) * a. div.full.f32 also scales both
/// by 0.25 when |b| > 2^126. The .ftz forms use FMUL.FTZ and no tiny scaling.
#[test]
fn div_glue() {
    let p = probe();
    let (a, b) = (0x4040_0000u64, 0x0000_0003u64);
    let t = 0x4B80_0000;
    let want = mul(mul(b, t, RN), mul(a, t, RN), RN);
    assert_eq!(run("div.approx.f32", &[a, b], &p), want);
    assert_eq!(run("div.full.f32", &[a, b], &p), want);
    // .ftz: FMUL.FTZ flushes the subnormal MUFU input/result product to zero.
    assert_eq!(run("div.approx.ftz.f32", &[a, b], &p), 0);
    let big = 0x7F00_0000u64;
    let q = 0x3E80_0000;
    assert_eq!(
        run("div.full.f32", &[a, big], &p),
        mul(mul(big, q, RN), mul(a, q, RN), RN)
    );
    assert_eq!(
        run("div.full.ftz.f32", &[a, big], &p),
        mul(mul(big, q, RN), mul(a, q, RN), RN)
    );
    // div.approx has no upper scaling.
    assert_eq!(run("div.approx.f32", &[a, big], &p), mul(big, a, RN));
}

/// rsqrt.approx.f64: y = RSQ64H(a.hi) with a zero lower word; e = fma(a, -(y*y), 1);
/// p = fma(e, 0.375, 0.5); d = fma(p, y*e, y). Checked with rustc_apfloat's f64 fma.
#[test]
fn rsqrt_f64_glue() {
    let p = probe();
    let d = |b: u64| Double::from_bits(b.into());
    for a in [
        0x4000_0000_1234_5678u64,
        0x3FF8_0000_0000_0001,
        0x0010_0000_0000_0000,
    ] {
        let y = d(a & 0xFFFF_FFFF_0000_0000);
        let e = d(a).mul_add(-(y * y).value, d(0x3FF0_0000_0000_0000)).value;
        let pp = e
            .mul_add(d(0x3FD8_0000_0000_0000), d(0x3FE0_0000_0000_0000))
            .value;
        let want = pp.mul_add((y * e).value, y).value.to_bits() as u64;
        assert_eq!(run("rsqrt.approx.f64", &[a], &p), want, "0x{a:x}");
        assert_eq!(
            run("rsqrt.approx.ftz.f64", &[a], &p),
            a & 0xFFFF_FFFF_0000_0000
        );
    }
}

/// The bound constants: FRACTIONS[r] = floor(2^(r/1000) * 2^62), by exact integer powers.
#[test]
fn bound_constants() {
    use num_bigint::BigUint;
    for (r, c) in gpufp::ptx::bounds::FRACTIONS {
        let lo = BigUint::from(c).pow(1000);
        let hi = BigUint::from(c + 1).pow(1000);
        let two = BigUint::from(1u8) << (62 * 1000 + r as usize);
        assert!(lo <= two && two < hi, "2^({r}/1000)");
    }
}

/// The sin/cos ranges: 0x40C90FDA is the largest f32 <= 2π and 0x439D1462 the largest <= 100π
/// (checked against 40 digits of π), and the guarantee switches there.
#[test]
fn sin_cos_ranges() {
    use num_bigint::BigInt;
    // π * 10^40, truncated and rounded up.
    let pi: BigInt = "31415926535897932384626433832795028841971".parse().unwrap();
    let scale = BigInt::from(10u8).pow(40);
    let value = |b: u64| {
        let m = BigInt::from((b & 0x7F_FFFF) | 0x80_0000);
        let e = ((b >> 23) & 0xFF) as i32 - 150;
        (m, e)
    };
    for (b, k) in [(0x40C9_0FDAu64, 2u32), (0x439D_1462, 100)] {
        for (bits, below) in [(b, true), (b + 1, false)] {
            let (m, e) = value(bits);
            // m * 2^e <= k π  <=>  m * 10^40 <= k * pi_digits * 2^-e (e < 0 here).
            let lhs = m * &scale;
            let rhs = (BigInt::from(k) * &pi) << (-e) as usize;
            let rhs_up = (BigInt::from(k) * (&pi + 1)) << (-e) as usize;
            if below {
                assert!(lhs <= rhs, "0x{bits:x} <= {k}π");
            } else {
                assert!(lhs > rhs_up, "0x{bits:x} > {k}π");
            }
        }
    }
    let g = |a: u64| {
        guarantees(
            &ptx::parse_instr("sin.approx.f32").unwrap(),
            &[a],
            &Context::default(),
        )
    };
    let bound = |a: u64| match g(a).unwrap()[0] {
        Guarantee::Within(b) => Some((b.unit, b.log2_milli)),
        _ => None,
    };
    assert_eq!(bound(0xC0C9_0FDA), Some((Unit::Absolute, -20500)));
    assert_eq!(bound(0x40C9_0FDB), Some((Unit::Absolute, -14700)));
    assert_eq!(bound(0x439D_1462), Some((Unit::Absolute, -14700)));
    assert_eq!(bound(0x439D_1463), None);
    assert_eq!(g(0x439D_1463).unwrap()[0], Guarantee::BestEffort);
}

/// Which NaN: f32 NaN results are "an unspecified NaN"; `min.NaN` and `.relu` state the
/// canonical one; f64 "NaN payloads are supported".
#[test]
fn nan_guarantees() {
    let g = |t: &str, ops: &[u64]| {
        let mut i = ptx::parse_instr(t).unwrap();
        i.inputs = ops.len() as u8;
        guarantees(&i, ops, &Context::default()).unwrap()
    };
    assert_eq!(g("add.rn.f32", &[NAN32, ONE32]), [Guarantee::AnyNan]);
    assert_eq!(g("add.rn.f32", &[INF32, NINF32]), [Guarantee::AnyNan]);
    assert_eq!(g("add.rn.f32", &[ONE32, ONE32]), [Guarantee::Exact]);
    assert_eq!(g("min.NaN.f32", &[NAN32, ONE32]), [Guarantee::Exact]);
    assert_eq!(
        g("add.rn.f64", &[0x7FF0_0000_0000_0001, 0]),
        [Guarantee::InputNan]
    );
    assert_eq!(g("abs.f64", &[0x7FF0_0000_0000_0001]), [Guarantee::Exact]);
    assert_eq!(g("neg.f64", &[0x7FF0_0000_0000_0001]), [Guarantee::AnyNan]);
    assert_eq!(
        g(
            "fma.rn.relu.f16x2",
            &[0x7E00_3C00, 0x3C00_3C00, 0x3C00_3C00]
        ),
        [Guarantee::Exact, Guarantee::Exact]
    );
    assert_eq!(
        g("fma.rn.f16x2", &[0x7E00_3C00, 0x3C00_3C00, 0x3C00_3C00]),
        [Guarantee::Exact, Guarantee::AnyNan]
    );
    assert_eq!(
        g("rcp.approx.ftz.f64", &[0x7FF8_0000_0000_0000]),
        [Guarantee::Exact]
    );
    assert_eq!(
        g("rcp.approx.ftz.f64", &[0x4000_0000_0000_0000]),
        [Guarantee::HighWordOnly]
    );
    assert_eq!(
        g("rsqrt.approx.f64", &[0x4000_0000_0000_0000]),
        [Guarantee::BestEffort]
    );
    // div.approx.f32, 2^126 < |b| < 2^128: "if a is infinity, div.approx.f32 returns NaN,
    // otherwise it returns a sign-preserving zero".
    assert_eq!(
        g("div.approx.f32", &[ONE32, 0x7F00_0000]),
        [Guarantee::Exact]
    );
    assert_eq!(
        g("div.approx.f32", &[INF32, 0x7F00_0000]),
        [Guarantee::AnyNan]
    );
}
