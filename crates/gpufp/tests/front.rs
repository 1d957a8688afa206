//! The front door (`gpufp::front`): preparing, typed and threaded array evaluation against the
//! integer core case by case, explanations, policy selection, and its errors.

use gpufp::front::{eval_text, Error, Options, Prepared, MIN_PART};
use gpufp::ptx::{self, Context};

/// SplitMix64: operands independent of the code under test.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn prepared(text: &str) -> Prepared {
    Prepared::new(text, &Options::default()).unwrap()
}

/// `eval_words` over every width, with one and several threads, lengths that split into parts
/// and partial blocks, and length-1 operands standing for every element: each element is what
/// `ptx::eval` gives for it.
#[test]
fn eval_words_is_eval_per_element() {
    fn run<T: gpufp::front::Word + TryFrom<u64>>(text: &str, n: usize, threads: usize) {
        let p = prepared(text);
        let w = p.width();
        let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
        let cols: Vec<Vec<u64>> = (0..p.inputs())
            .map(|k| {
                let len = if k == 1 { 1 } else { n };
                (0..len).map(|j| mix((j * 3 + k) as u64) & mask).collect()
            })
            .collect();
        let typed: Vec<Vec<T>> = cols
            .iter()
            .map(|c| c.iter().map(|&x| T::try_from(x).ok().unwrap()).collect())
            .collect();
        let views: Vec<&[T]> = typed.iter().map(Vec::as_slice).collect();
        let mut out = vec![T::from_u64(0); n];
        p.eval_words(&views, &mut out, threads).unwrap();
        for (j, r) in out.iter().enumerate() {
            let ops: Vec<u64> = cols
                .iter()
                .map(|c| c[if c.len() == 1 { 0 } else { j }])
                .collect();
            let want = ptx::eval(p.effective(), &ops, &p.ctx).unwrap();
            assert_eq!(r.to_u64(), want, "{text} element {j}");
        }
    }
    let n = 2 * MIN_PART + 1001;
    for threads in [1, 2, 3] {
        run::<u16>("fma.rn.ftz.f16", n, threads);
        run::<u16>("min.NaN.bf16", n, threads);
        run::<u32>("add.rz.sat.f32", n, threads);
        run::<u32>("fma.rn.relu.bf16x2", n, threads);
        run::<u32>("ex2.approx.ftz.f32", 5000, threads);
        run::<u64>("div.rm.f64", n, threads);
        run::<u64>("mul.rn.f32x2", 5000, threads);
    }
    run::<u32>("add.rn.f32", 0, 2);
    run::<u64>("fma.rz.f64", 1, 2);
    // Three parts, the last of one element, with a length-1 operand: no slicing past it.
    run::<u64>("fma.rz.f64", 2 * MIN_PART + 1, 3);
    run::<u32>("fma.rz.f32", 2 * MIN_PART + 1, 3);
}

#[test]
fn eval_words_predicates_are_bytes() {
    let p = prepared("testp.subnormal.f32");
    let ops = [1u32, 0x0080_0000, 0x8000_0001, 0x7FC0_0000];
    let mut out = [true; 4];
    p.eval_words(&[&ops], &mut out, 1).unwrap();
    assert_eq!(out, [true, false, true, false]);
    let mut bytes = [9u8; 4];
    p.eval_words(&[&ops], &mut bytes, 1).unwrap();
    assert_eq!(bytes, [1, 0, 1, 0]);
    let mut words = [9u32; 4];
    p.eval_words(&[&ops], &mut words, 1).unwrap();
    assert_eq!(words, [1, 0, 1, 0]);
    assert!(p.eval_words(&[&ops], &mut [0u16; 4], 1).is_err());
}

#[test]
fn eval_words_shape_errors() {
    let p = prepared("add.rn.f32");
    let a = [0u32; 4];
    let mut out = [0u32; 4];
    let msg = |r: Result<(), gpufp::fast::SliceError>| r.unwrap_err().to_string();
    assert_eq!(
        msg(p.eval_words(&[&[0u16; 4][..], &[0u16; 4]], &mut out, 1)),
        "`add.rn.f32` takes 32-bit operands, got 16-bit words"
    );
    assert_eq!(
        msg(p.eval_words(&[&a[..], &a], &mut [0u64; 4], 1)),
        "`add.rn.f32` gives 32-bit results, got 64-bit words to hold them"
    );
    assert_eq!(
        msg(p.eval_words(&[&a[..]], &mut out, 1)),
        "`add.rn.f32` takes 2 operand(s), got 1"
    );
    assert_eq!(
        msg(p.eval_words(&[&a[..], &a[..3]], &mut out, 1)),
        "operand 2 has 3 elements for 4 results"
    );
}

#[test]
fn preparing_picks_the_form_and_reports_errors() {
    let three = Options {
        operands: Some(3),
        ..Options::default()
    };
    assert_eq!(Prepared::new("max.f32", &three).unwrap().inputs(), 3);
    let e = Prepared::new("add.f32", &three).unwrap_err();
    assert_eq!(
        e,
        Error::Invalid("`add.f32` takes 2 operand(s), got 3".into())
    );
    assert_eq!(
        e.describe("add.f32"),
        "`add.f32`: `add.f32` takes 2 operand(s), got 3"
    );
    let e = Prepared::new("add.rn.f32.f16", &Options::default()).unwrap_err();
    assert_eq!(e.to_string(), "column 11: second type `.f16` after `.f32`");
    assert_eq!(
        e.describe("add.rn.f32.f16"),
        "`add.rn.f32.f16`, column 11: second type `.f16` after `.f32`"
    );
    let e = Options::parse(Some("sm_x"), None, None, []).unwrap_err();
    assert!(
        matches!(&e, Error::Options(m) if m.starts_with("target: ")),
        "{e}"
    );
    assert!(matches!(
        Options::parse(None, Some("nine"), None, []),
        Err(Error::Options(_))
    ));
    let o = Options::parse(
        Some("sm_80"),
        Some("7.0"),
        Some(3),
        [("f64_nan", "Canonical")],
    );
    let o = o.unwrap();
    assert_eq!((o.target.unwrap().sm, o.operands), (80, Some(3)));
    assert_eq!(o.policies.f64_nan, gpufp::policy::F64Nan::Canonical);
    let p = prepared("add.rn.f32");
    assert_eq!(
        p.parse_operand(1, "zz").unwrap_err().to_string(),
        "operand 2: `zz` is not a number, `0x` bit pattern or `0f`/`0d` literal"
    );
    assert!(p
        .parse_operands(&["1"])
        .unwrap_err()
        .to_string()
        .contains("got 1"));
    assert!(p.explain(&[1]).is_err());
    let e = Options::default()
        .policy("f64_nan", "Sometimes")
        .unwrap_err();
    assert!(matches!(e, Error::Policy(_)), "{e}");
}

/// The explanation carries the data every front-end shows; its text is `gpufp eval`'s.
#[test]
fn explanation() {
    let e = eval_text(
        "mul.rn.ftz.f32",
        &["0x3F7FFFFE", "0x00800001"],
        &Options::default(),
    )
    .unwrap();
    assert_eq!(e.result, 0x0080_0000);
    assert_eq!(e.value.as_deref(), Some("1.17549435e-38"));
    assert_eq!(e.lanes.len(), 1);
    assert!(e.exact());
    assert_eq!(e.alternatives.len(), 1);
    assert_eq!(e.alternatives[0].policy, "ftz_tininess");
    assert_eq!(e.alternatives[0].result, 0);
    assert_eq!(
        e.to_string(),
        "0x00800000\nvalue: 1.17549435e-38\npolicy: depends on unverified policy `ftz_tininess`: \
         with `BeforeRounding` the result is 0x00000000\n"
    );
    let opts = Options::default()
        .policy("ftz_tininess", "BeforeRounding")
        .unwrap();
    let e = eval_text("mul.rn.ftz.f32", &["0x3F7FFFFE", "0x00800001"], &opts).unwrap();
    assert_eq!(e.result, 0);
    let e = eval_text(
        "min.NaN.f16x2",
        &["{1, nan}", "{-2, 3}"],
        &Options::default(),
    )
    .unwrap();
    assert_eq!(e.result, 0x7FFF_C000);
    assert_eq!(e.lanes[0].bits, 0xC000);
    assert_eq!(e.lanes[1].value, "nan");
    assert!(e.rules.iter().any(|n| n.lane == Some(1)));
    let e = eval_text("testp.finite.f32", &["inf"], &Options::default()).unwrap();
    assert_eq!((e.result, e.value.as_ref(), e.lanes.len()), (0, None, 0));
    let e = eval_text("sqrt.approx.f32", &["2"], &Options::default()).unwrap();
    assert!(!e.exact());
    // The legacy default: the effective instruction is named.
    let old = Options {
        ptx: Some("1.3".parse().unwrap()),
        ..Options::default()
    };
    let e = eval_text("div.f32", &["1", "3"], &old).unwrap();
    assert_eq!(e.effective.as_deref(), Some("div.approx.ftz.f32"));
    assert_eq!(Context::default().policies, Options::default().policies);
}

#[test]
fn cases_are_the_model_results() {
    let p = prepared("fma.rn.f32");
    let mut n = 0;
    for case in p.cases(gpufp::vectors::Level::One, 3, Some(100)) {
        let (ops, d) = case.unwrap();
        assert_eq!(d, p.eval(&ops).unwrap());
        n += 1;
    }
    assert_eq!(n, 100);
}

/// Every f16, bf16 and f32 kernel variant over its own words (`u16`, `u32`: the AVX-512
/// kernels read them as they are where the CPU has them) against `ptx::eval` element by element,
/// on special values of the format in every pair and random bit patterns, with a length that
/// leaves a partial group.
#[test]
fn typed_kernels_are_eval_per_element() {
    fn check<T: gpufp::front::Word + TryFrom<u64>>(text: &str, special: &[u64]) -> bool {
        let Ok(p) = Prepared::new(text, &Options::default()) else {
            return false;
        };
        let n = p.inputs();
        let mask = (1u64 << p.width()) - 1;
        let mut cols: Vec<Vec<u64>> = vec![Vec::new(); n];
        for (j, &x) in special.iter().enumerate() {
            for &y in special {
                cols[0].push(x);
                if n > 1 {
                    cols[1].push(y);
                }
                if n > 2 {
                    cols[2].push(special[(j * 7 + 3) % special.len()]);
                }
            }
        }
        for j in 0..3001u64 {
            for (k, c) in cols.iter_mut().enumerate() {
                c.push(mix(j * 5 + k as u64) & mask);
            }
        }
        let typed: Vec<Vec<T>> = cols
            .iter()
            .map(|c| c.iter().map(|&x| T::try_from(x).ok().unwrap()).collect())
            .collect();
        let views: Vec<&[T]> = typed.iter().map(Vec::as_slice).collect();
        let len = cols[0].len();
        let mut out = vec![T::from_u64(0); len];
        p.eval_words(&views, &mut out, 1).unwrap();
        for (j, r) in out.iter().enumerate() {
            let ops: Vec<u64> = cols.iter().map(|c| c[j]).collect();
            let want = ptx::eval(p.effective(), &ops, &p.ctx).unwrap();
            assert_eq!(r.to_u64(), want, "{text} {ops:x?}");
        }
        true
    }
    let half = [
        0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x3BFF, 0x3C01, 0x7BFF,
        0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x7FFF, 0x3800, 0x0200,
    ];
    let bf = [
        0x0000, 0x8000, 0x0001, 0x807F, 0x0080, 0x3F80, 0xBF80, 0x3F7F, 0x3F81, 0x7F7F, 0xFF7F,
        0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0x7FFF, 0x3F00, 0x0040,
    ];
    let single = [
        0x0000_0000,
        0x8000_0000,
        0x0000_0001,
        0x8000_0001,
        0x007F_FFFF,
        0x0080_0000,
        0x8080_0000,
        0x3F80_0000,
        0xBF80_0000,
        0x3F7F_FFFF,
        0x3F80_0001,
        0x7F7F_FFFF,
        0xFF7F_FFFF,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7F80_0001,
        0x7FFF_FFFF,
        0x3F00_0000,
        0x0040_0000,
        0x1F80_0000,
    ];
    let mut ran = 0;
    for op in ["add", "sub", "mul", "fma"] {
        for rnd in ["rn", "rz", "rm", "rp"] {
            for steps in [
                "",
                ".ftz",
                ".sat",
                ".ftz.sat",
                ".relu",
                ".oob",
                ".oob.relu",
                ".ftz.relu",
            ] {
                let spell = |ty: &str| format!("{op}.{rnd}{steps}.{ty}");
                ran += usize::from(check::<u16>(&spell("f16"), &half));
                ran += usize::from(check::<u16>(&spell("bf16"), &bf));
                ran += usize::from(check::<u32>(&spell("f32"), &single));
            }
        }
    }
    assert!(ran > 80, "{ran} variants");
}

/// Every pair of 16-bit operands (`fma` with three addends) through the `u16` word path against
/// the `u64` slice path, whose kernels `tests/fast.rs` holds against the integer core on every
/// pair: `cargo test --release -p gpufp --test front -- --ignored --nocapture`.
/// `GPUFP_FRONT_VARIANTS=add.rz.ftz.bf16,...` picks the variants.
#[test]
#[ignore]
fn typed_kernels_exhaustive_16() {
    let list = std::env::var("GPUFP_FRONT_VARIANTS").unwrap_or_else(|_| {
        "add.rn.f16,sub.rn.ftz.sat.f16,mul.rn.bf16,add.rn.bf16,fma.rn.ftz.sat.f16,fma.rn.oob.relu.bf16,fma.rn.relu.f16".into()
    });
    for text in list.split(',') {
        let p = prepared(text);
        let addends: &[u16] = if p.inputs() == 3 {
            &[0xBC01, 0x8000, 0x8001]
        } else {
            &[0]
        };
        let t = std::time::Instant::now();
        let a: Vec<u16> = (0..=u16::MAX).collect();
        let a64: Vec<u64> = a.iter().map(|&x| x.into()).collect();
        let (mut w, mut s) = (vec![0u16; a.len()], vec![0u64; a.len()]);
        for &c in addends {
            let c16 = vec![c; a.len()];
            let c64 = vec![u64::from(c); a.len()];
            for b in 0..=u16::MAX {
                let b16 = vec![b; a.len()];
                let b64 = vec![u64::from(b); a.len()];
                let (ops16, ops64): (Vec<&[u16]>, Vec<&[u64]>) = match p.inputs() {
                    2 => (vec![&a, &b16], vec![&a64, &b64]),
                    _ => (vec![&a, &b16, &c16], vec![&a64, &b64, &c64]),
                };
                p.eval_words(&ops16, &mut w, 1).unwrap();
                p.eval_slice(&ops64, &mut s).unwrap();
                let same = w.iter().zip(&s).all(|(x, y)| u64::from(*x) == *y);
                assert!(same, "{text}: b = {b:#06x}, c = {c:#06x}");
            }
        }
        println!(
            "{text}: every pair identical ({:.1} s)",
            t.elapsed().as_secs_f64()
        );
    }
}

/// f32 `.ftz` products and fmas within a few ulps of 2^-126 over `u32` words (the cases of
/// tests/fast.rs): where the AVX-512 kernel cannot tell tininess, its elements go to the integer
/// core, and each element is what `ptx::eval` gives, e.g. `mul.rn.ftz.f32 0x3F7FFFFF
/// 0x00800000` (2^-126 - 2^-150, flushed).
#[test]
fn typed_ftz_products_near_the_normal_limit() {
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for j in 0..20_000u64 {
        let r = |k: u64| mix(j << 3 | k);
        let sign = |k: u64| ((r(k) & 1) << 31) as u32;
        // a just below 1 (or 1), b just above 2^-126 (or 2^-126): a b within a few ulps of
        // 2^-126, on either side; an addend that cancels to near 2^-126, or 0.
        a.push((0x3F80_0000 - (r(1) % 8) as u32) | sign(2));
        b.push((0x0080_0000 + (r(3) % 8) as u32) | sign(4));
        c.push(match r(5) % 3 {
            0 => 0,
            1 => (0x0000_0001 + (r(6) % 4) as u32) | sign(7),
            _ => (0x0100_0000 - (r(6) % 4) as u32) | sign(7),
        });
    }
    for text in [
        "mul.rn.ftz.f32",
        "mul.rz.ftz.f32",
        "fma.rn.ftz.f32",
        "fma.rp.ftz.sat.f32",
    ] {
        let p = prepared(text);
        let ops: Vec<&[u32]> = [&a[..], &b[..], &c[..]][..p.inputs()].to_vec();
        let mut out = vec![0u32; a.len()];
        p.eval_words(&ops, &mut out, 1).unwrap();
        for (j, r) in out.iter().enumerate() {
            let x: Vec<u64> = ops.iter().map(|s| u64::from(s[j])).collect();
            let want = ptx::eval(p.effective(), &x, &p.ctx).unwrap();
            assert_eq!(u64::from(*r), want, "{text} {x:x?}");
        }
    }
}

/// Every listed choice of every policy is accepted by `set` and reported back by `values`;
/// `oob_nan` takes a pattern rather than a list.
#[test]
fn policy_choices_are_what_set_takes() {
    use gpufp::policy::{Policies, POLICIES};
    for info in POLICIES {
        let Some(choices) = Policies::choices(info.name) else {
            assert!(
                matches!(info.name, "oob_nan" | "mufu_core"),
                "{}",
                info.name
            );
            continue;
        };
        assert!(!choices.is_empty());
        for c in choices {
            let mut p = Policies::default();
            p.set(info.name, &c).unwrap();
            let (_, v) = p
                .values()
                .into_iter()
                .find(|(n, _)| *n == info.name)
                .unwrap();
            assert_eq!(v, c, "{}", info.name);
        }
    }
}
