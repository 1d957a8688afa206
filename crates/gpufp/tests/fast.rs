//! `fast::eval_slice` against the integer core `ptx::eval`, bit for bit, element for element.
//!
//! CI: every kernel variant (type, operation, rounding, `.ftz`, `.sat`, `.relu`, `.oob`) on the
//! TestFloat-style case table of `vectors::gen` (level 2: the cross product where it is small,
//! then draws from the table) and on random bit patterns; the 16-bit binary kernels on all 2^16
//! values of `a` against a few values of `b`.
//!
//! Long runs (ignored): every 16-bit pair for the binary 16-bit kernels,
//! `cargo test --release -p gpufp --test fast -- --ignored exhaustive --nocapture`, and 10^8
//! random cases over the f32 and f64 kernels,
//! `cargo test --release -p gpufp --test fast -- --ignored random_1e8 --nocapture`.

use gpufp::fast::{detected, eval_slice, eval_slice_at, Kernel, Level};
use gpufp::ptx::{eval, parse_instr, Context, Instr, Target};
use gpufp::vectors::{cases, random_operand};
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
    let only = std::env::var("GPUFP_FAST_VARIANTS").ok();
    for text in narrow_variants()
        .iter()
        .filter(|t| !t.ends_with("f32") && !t.starts_with("fma"))
        .filter(|t| only.as_ref().is_none_or(|o| o.split(',').any(|x| x == *t)))
    {
        exhaustive(text);
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
    let per = 100_000_000u64.div_ceil(variants.len() as u64);
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
