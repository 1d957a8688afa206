//! `fast::eval_slice` against the integer core `ptx::eval`, bit for bit, element for element.
//!
//! Each comparison runs the kernels compiled for every SIMD level this CPU has: the portable and
//! x86-64-v3 levels run the f64 kernels of `fast::narrow`/`fast::wide`, x86-64-v4 the AVX-512
//! kernels of `gpufp-simd`.
//!
//! CI: every kernel variant (type, operation, rounding, `.ftz`, `.sat`, `.relu`, `.oob`) on the
//! TestFloat-style case table of `vectors::gen` (level 2: the cross product where it is small,
//! then draws from the table) and on random bit patterns; the 16-bit binary kernels on all 2^16
//! values of `a` against a few values of `b`; every length up to 40 (partial SIMD groups).
//!
//! Long runs (ignored; `GPUFP_FAST_VARIANTS=v1,v2` limits the 16-bit ones to some variants):
//! - every 16-bit pair against the integer core, binary variants:
//!   `cargo test --release -p gpufp --test fast -- --ignored exhaustive_half --exact --nocapture`
//! - every 16-bit pair, AVX-512 kernel against the f64 kernel, every variant (fma: 16 addends):
//!   `cargo test --release -p gpufp --test fast -- --ignored exhaustive_half_avx512 --nocapture`
//! - 10^8 random cases over the f32 and f64 kernels:
//!   `cargo test --release -p gpufp --test fast -- --ignored random_1e8 --nocapture`

use gpufp::fast::{detected, eval_slice, eval_slice_at, Kernel, Level};
use gpufp::policy::ReluNegativeZero;
use gpufp::ptx::{eval, parse_instr, Context, Instr, Target};
use gpufp::vectors::{cases, mix, random_operand};
use rayon::prelude::*;

fn instr(text: &str) -> Instr {
    parse_instr(text).unwrap_or_else(|e| panic!("{text}: {}", e.message))
}

const ROUNDS: [&str; 4] = ["rn", "rz", "rm", "rp"];

/// Every narrow kernel variant: type, operation, rounding, and modifier suffix.
fn narrow_variants() -> Vec<String> {
    let mut v = Vec::new();
    for ty in ["f32", "f16", "bf16"] {
        for op in ["add", "sub", "mul", "fma"] {
            for rnd in ROUNDS {
                let mut extras = vec!["", ".ftz", ".sat", ".ftz.sat"];
                if ty != "f32" && op == "fma" {
                    extras.extend([".relu", ".ftz.relu", ".oob", ".oob.relu"]);
                }
                for x in extras {
                    v.push(format!("{op}.{rnd}{x}.{ty}"));
                }
            }
        }
    }
    v
}

fn wide_variants() -> Vec<String> {
    let mut v = Vec::new();
    for op in ["add", "sub", "mul", "fma", "div", "rcp", "sqrt"] {
        for rnd in ROUNDS {
            v.push(format!("{op}.{rnd}.f64"));
        }
    }
    v
}

/// Evaluates `cases` with the core and with `eval_slice` compiled for every SIMD level this CPU
/// has; panics on the first difference, naming the case.
fn compare(i: &Instr, ctx: &Context, cases: &[[u64; 3]]) {
    assert!(
        Kernel::for_instr(i, ctx).is_some(),
        "`{i}` has no kernel: the test would compare the core with itself"
    );
    let n = usize::from(i.inputs);
    let cols: Vec<Vec<u64>> = (0..n)
        .map(|k| cases.iter().map(|c| c[k]).collect())
        .collect();
    let ops: Vec<&[u64]> = cols.iter().map(Vec::as_slice).collect();
    let want: Vec<u64> = cases
        .iter()
        .map(|c| eval(i, &c[..n], ctx).unwrap())
        .collect();
    for level in [Level::Portable, Level::V3, Level::V4] {
        if level > detected() {
            continue;
        }
        let mut out = vec![0u64; cases.len()];
        eval_slice_at(level, i, &ops, ctx, &mut out).unwrap_or_else(|e| panic!("{i}: {e}"));
        for ((c, got), want) in cases.iter().zip(&out).zip(&want) {
            assert_eq!(
                got,
                want,
                "{i} {:x?} ({}): fast 0x{got:x}, core 0x{want:x}",
                &c[..n],
                level.name()
            );
        }
    }
}

/// An f64 pattern with its exponent moved into [2^-600, 2^600): products and quotients of two
/// such stay where the f64 kernels need no fallback.
fn moderate(x: u64) -> u64 {
    let e = 1023 - 600 + (x >> 52) % 1200;
    (x & 0x800F_FFFF_FFFF_FFFF) | e << 52
}

fn table_cases(i: &Instr, count: u64) -> Vec<[u64; 3]> {
    cases(i, gpufp::vectors::Level::Two, 7, Some(count)).collect()
}

fn random_cases(i: &Instr, seed: u64, count: u64) -> Vec<[u64; 3]> {
    let w = i.ty.bits();
    (0..count)
        .map(|j| [0, 1, 2].map(|k| random_operand(seed, j, k, w)))
        .collect()
}

#[test]
fn narrow_case_classes_and_random() {
    let ctx = Context::default();
    narrow_variants().par_iter().for_each(|text| {
        let i = instr(text);
        compare(&i, &ctx, &table_cases(&i, 40_000));
        compare(&i, &ctx, &random_cases(&i, 1, 10_000));
    });
}

#[test]
fn wide_case_classes_and_random() {
    let ctx = Context::default();
    wide_variants().par_iter().for_each(|text| {
        let i = instr(text);
        compare(&i, &ctx, &table_cases(&i, 100_000));
        compare(&i, &ctx, &random_cases(&i, 2, 50_000));
    });
}

/// f64 operands with moderate exponents (where no element falls back): the kernels' own path.
#[test]
fn wide_moderate_random() {
    let ctx = Context::default();
    wide_variants().par_iter().for_each(|text| {
        let i = instr(text);
        let c: Vec<[u64; 3]> = random_cases(&i, 3, 100_000)
            .into_iter()
            .map(|c| c.map(moderate))
            .collect();
        compare(&i, &ctx, &c);
    });
}

/// `sm_1x` flushes f32 subnormals without `.ftz`; `mad.rn.f32` is an fma.
#[test]
fn sm1x_and_mad() {
    let sm13 = Context {
        target: Some("sm_13".parse::<Target>().unwrap()),
        ..Context::default()
    };
    for text in ["add.rn.f32", "mul.rp.f32", "fma.rm.f32", "mad.rz.f32"] {
        let i = instr(text);
        compare(&i, &sm13, &table_cases(&i, 40_000));
    }
    let i = instr("mad.rn.f32");
    compare(&i, &Context::default(), &table_cases(&i, 40_000));
    assert!(Kernel::for_instr(&instr("mad.f32"), &sm13).is_none());
}

/// f32 `.ftz` products and fmas whose exact value is just below or above 2^-126: rounded with
/// gradual underflow many become 2^-126, while `.ftz`'s tininess (after rounding with an
/// unbounded exponent) flushes some of them, e.g. `mul.rn.ftz.f32 0x3F7FFFFF 0x00800000`
/// (2^-126 - 2^-150).
#[test]
fn f32_ftz_products_near_min_normal() {
    let ctx = Context::default();
    let variants: Vec<String> = narrow_variants()
        .into_iter()
        .filter(|t| {
            t.ends_with(".f32")
                && t.contains("ftz")
                && !t.starts_with("add")
                && !t.starts_with("sub")
        })
        .collect();
    variants.par_iter().for_each(|text| {
        let i = instr(text);
        let cases: Vec<[u64; 3]> = (0..20_000u64)
            .map(|j| {
                let r = |k: u64| mix(j << 3 | k);
                let sign = |k: u64| (r(k) & 1) << 31;
                // a just below 1 (or 1), b just above 2^-126 (or 2^-126): a b within a few
                // ulps of 2^-126, on either side.
                let a = (0x3F80_0000 - r(1) % 8) | sign(2);
                let b = (0x0080_0000 + r(3) % 8) | sign(4);
                // fma: an addend that cancels to near 2^-126 or is 0.
                let c = match r(5) % 3 {
                    0 => 0,
                    1 => (0x0000_0001 + r(6) % 4) | sign(7),
                    _ => (0x0100_0000 - r(6) % 4) | sign(7),
                };
                [a, b, c]
            })
            .collect();
        compare(&i, &ctx, &cases);
    });
}

/// `.relu` under the other `relu_negative_zero` policy: `-0.0` stays `-0.0`.
#[test]
fn relu_keeping_negative_zero() {
    let mut ctx = Context::default();
    ctx.policies.relu_negative_zero = ReluNegativeZero::Keep;
    narrow_variants()
        .par_iter()
        .filter(|t| t.contains("relu"))
        .for_each(|text| {
            let i = instr(text);
            compare(&i, &ctx, &table_cases(&i, 40_000));
        });
}

/// Every length from 0 to 40 at every offset of a group, so that each kernel's partial last
/// group (the AVX-512 kernels work on 16 or 8 elements at a time) and fallback indices in it are
/// exercised.
#[test]
fn lengths_and_tails() {
    let ctx = Context::default();
    for text in [
        "add.rn.f32",
        "mul.rz.ftz.f32",
        "fma.rm.ftz.sat.bf16",
        "sub.rp.f16",
        "fma.rn.oob.relu.f16",
        "div.rp.f64",
        "sqrt.rm.f64",
    ] {
        let i = instr(text);
        let all = table_cases(&i, 4_000);
        for len in 0..=40 {
            for start in (0..all.len() - len).step_by(97) {
                compare(&i, &ctx, &all[start..start + len]);
            }
        }
    }
}

/// Elements the kernels cannot decide, and operands wider than the type, go to the core; the
/// error names the first bad element.
#[test]
fn fallback_and_errors() {
    let ctx = Context::default();
    let i = instr("add.rn.f16");
    let a = [0x3C00, 0x1_0000, 0x3C00];
    let b = [0x3C00, 0x3C00, 0x3C00];
    let mut out = [0u64; 3];
    let e = eval_slice(&i, &[&a, &b], &ctx, &mut out).unwrap_err();
    assert!(e.to_string().starts_with("element 1: "), "{e}");
    assert_eq!(out[0], 0x4000);
    assert!(eval_slice(&i, &[&a], &ctx, &mut out).is_err());
    assert!(eval_slice(&i, &[&a, &b[..2]], &ctx, &mut out).is_err());
    // No kernel: every element by the core.
    let i = instr("min.NaN.f32");
    let (a, b) = ([0x7FC0_0001u64, 0x3F80_0000], [0x3F80_0000u64, 0xBF80_0000]);
    let mut out = [0u64; 2];
    eval_slice(&i, &[&a, &b], &ctx, &mut out).unwrap();
    assert_eq!(out, [0x7FFF_FFFF, 0xBF80_0000]);
}

/// 16-bit binary kernels: every `a` against `b` from a spread of classes.
#[test]
fn half_all_a_some_b() {
    let ctx = Context::default();
    let bs = [
        0x0000u64, 0x8001, 0x03FF, 0x3C01, 0xC000, 0x7BFF, 0x7C00, 0x7E01,
    ];
    narrow_variants()
        .par_iter()
        .filter(|t| !t.ends_with("f32") && !t.starts_with("fma"))
        .for_each(|text| {
            let i = instr(text);
            let c: Vec<[u64; 3]> = bs
                .iter()
                .flat_map(|&b| (0..1u64 << 16).map(move |a| [a, b, 0]))
                .collect();
            compare(&i, &ctx, &c);
        });
}

/// Every 16-bit pair, in slices of 2^16 pairs on all cores.
fn exhaustive(text: &str) {
    let ctx = Context::default();
    let i = instr(text);
    let t = std::time::Instant::now();
    (0..1u64 << 16).into_par_iter().for_each(|b| {
        let c: Vec<[u64; 3]> = (0..1u64 << 16).map(|a| [a, b, 0]).collect();
        compare(&i, &ctx, &c);
    });
    println!("{text}: 2^32 pairs identical ({:.0?})", t.elapsed());
}

#[test]
#[ignore = "2^32 pairs per variant: minutes each"]
fn exhaustive_half() {
    for text in half_variants().iter().filter(|t| !t.starts_with("fma")) {
        exhaustive(text);
    }
}

/// Every 16-bit `a` and `b` (and `c` from `cs` for fma): the AVX-512 kernel (level V4) against
/// the f64 round-to-odd kernel (level V3), two independent methods that share no code.
fn exhaustive_levels(text: &str, cs: &[u64]) {
    let ctx = Context::default();
    let i = instr(text);
    let t = std::time::Instant::now();
    let n = usize::from(i.inputs);
    let a: Vec<u64> = (0..1u64 << 16).collect();
    let len = a.len();
    // Per thread: b, c and the two results (reused: fresh 512 KiB vectors would be mapped and
    // faulted in for every b).
    let buffers = || {
        [
            vec![0u64; len],
            vec![0u64; len],
            vec![0u64; len],
            vec![0u64; len],
        ]
    };
    (0..1u64 << 16)
        .into_par_iter()
        .for_each_init(buffers, |[bs, cv, v4, v3], b| {
            bs.fill(b);
            for &c in cs {
                cv.fill(c);
                let ops = [&a[..], &bs[..], &cv[..]];
                eval_slice_at(Level::V4, &i, &ops[..n], &ctx, v4).unwrap();
                eval_slice_at(Level::V3, &i, &ops[..n], &ctx, v3).unwrap();
                if let Some(k) = (0..len).find(|&k| v4[k] != v3[k]) {
                    let core = eval(&i, &[a[k], b, c][..n], &ctx).unwrap();
                    panic!(
                        "{text} a={:#x} b={b:#x} c={c:#x}: AVX-512 {:#x}, f64 kernel {:#x}, core {core:#x}",
                        a[k], v4[k], v3[k]
                    );
                }
            }
        });
    println!(
        "{text}: AVX-512 == f64 kernel on {} x 2^32 operand sets ({:.1?})",
        cs.len(),
        t.elapsed()
    );
}

/// The 16-bit variants named by `GPUFP_FAST_VARIANTS` (default: all of them).
fn half_variants() -> Vec<String> {
    let only = std::env::var("GPUFP_FAST_VARIANTS").ok();
    narrow_variants()
        .into_iter()
        .filter(|t| !t.ends_with("f32"))
        .filter(|t| only.as_ref().is_none_or(|o| o.split(',').any(|x| x == t)))
        .collect()
}

#[test]
#[ignore = "2^32 pairs per variant, seconds each; needs AVX-512"]
fn exhaustive_half_avx512() {
    if detected() < Level::V4 {
        println!("skipped: this CPU has no AVX-512");
        return;
    }
    // fma: every a and b against addends that make exact zeros of either sign, cancellation and
    // subnormal sums (a normal, -0, a negative subnormal); `GPUFP_FMA_ADDENDS=0x..,0x..` for
    // others.
    let cs: Vec<u64> = std::env::var("GPUFP_FMA_ADDENDS")
        .map(|v| {
            v.split(',')
                .map(|x| u64::from_str_radix(x.trim_start_matches("0x"), 16).unwrap())
                .collect()
        })
        .unwrap_or_else(|_| vec![0xBC01, 0x8000, 0x8001]);
    for text in half_variants() {
        if text.starts_with("fma") {
            exhaustive_levels(&text, &cs);
        } else {
            exhaustive_levels(&text, &[0]);
        }
    }
}

#[test]
#[ignore = "10^8 cases: minutes"]
fn random_1e8() {
    let ctx = Context::default();
    let variants: Vec<String> = narrow_variants()
        .into_iter()
        .filter(|t| t.ends_with("f32"))
        .chain(wide_variants())
        .collect();
    // `GPUFP_FAST_RANDOM=N` for N cases in all instead.
    let total = std::env::var("GPUFP_FAST_RANDOM").map_or(100_000_000u64, |v| v.parse().unwrap());
    let per = total.div_ceil(variants.len() as u64);
    let t = std::time::Instant::now();
    variants.par_iter().enumerate().for_each(|(n, text)| {
        let i = instr(text);
        // f64: every other chunk with moderate exponents, where the kernels decide every case.
        for chunk in 0..per.div_ceil(1 << 16) {
            let c: Vec<[u64; 3]> = (chunk << 16..((chunk + 1) << 16).min(per))
                .map(|j| [0, 1, 2].map(|k| random_operand(n as u64, j, k, i.ty.bits())))
                .map(|c| {
                    if i.ty.bits() == 64 && chunk % 2 == 1 {
                        c.map(moderate)
                    } else {
                        c
                    }
                })
                .collect();
            compare(&i, &ctx, &c);
        }
    });
    println!(
        "{} variants x {per} random cases identical ({:.0?})",
        variants.len(),
        t.elapsed()
    );
}
