//! Test vectors (docs/vectors.md): the sweep's case order, random operands and digest recomputed
//! here from their definitions, without the library's digest code; SplitMix64 against its
//! published outputs; every 16-bit two-operand variant accepted by an exhaustive sweep; and the
//! generator's tables and case order against the documented structure.

use gpufp::ptx::{self, Context, Instr, Modifiers, Opcode, Type};
use gpufp::vectors::{self, gen, Level, Plan, Space, SweepError};
use gpufp::Round;
use std::collections::HashSet;

/// SplitMix64 as Vigna's reference `splitmix64.c` writes it: a generator state advanced by the
/// golden increment, each output the finalized state.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The finalizer alone, for the digest: mix(z) is the first output of SplitMix64 seeded with
/// z - golden.
fn mix(z: u64) -> u64 {
    SplitMix64(z.wrapping_sub(0x9E37_79B9_7F4A_7C15)).next()
}

/// The first outputs of `splitmix64.c` from state 0, as published with it.
#[test]
fn splitmix64_matches_its_published_outputs() {
    let mut s = SplitMix64(0);
    let first: Vec<u64> = (0..4).map(|_| s.next()).collect();
    assert_eq!(
        first,
        [
            0xE220_A839_7B1D_CDAF,
            0x6E78_9E6A_A1B9_65F4,
            0x06C4_5D18_8009_454F,
            0xF88B_B8A8_724C_81EC
        ]
    );
    for z in [0u64, 1, 0x1234_5678_9ABC_DEF0, u64::MAX] {
        assert_eq!(vectors::mix(z), mix(z), "mix(0x{z:x})");
    }
}

/// Operand k of random case i is output 4i + k + 1 of SplitMix64 from the seed, low bits kept.
#[test]
fn random_operands_are_the_splitmix64_stream() {
    for seed in [0u64, 7, u64::MAX - 3] {
        let mut s = SplitMix64(seed);
        for i in 0..50u64 {
            for k in 0..4u64 {
                let x = s.next();
                if k < 3 {
                    assert_eq!(vectors::random_operand(seed, i, k, 64), x);
                    assert_eq!(vectors::random_operand(seed, i, k, 16), x & 0xFFFF);
                    assert_eq!(vectors::random_operand(seed, i, k, 32), x & 0xFFFF_FFFF);
                }
            }
        }
    }
}

fn instr(text: &str) -> Instr {
    ptx::parse_instr(text).unwrap()
}

fn ctx(i: &Instr) -> Context {
    Context {
        target: Some(ptx::validate(i, None, None).unwrap().default_target),
        ..Context::default()
    }
}

/// The digest of cases `range` of a sweep, recomputed from docs/vectors.md: operands from the
/// case index, results from `ptx::eval`, each term mix(mix(i) ^ result), wrapping sums.
fn recompute(i: &Instr, ops: impl Fn(u64) -> Vec<u64>, range: std::ops::Range<u64>) -> u64 {
    recompute_from(i, ops, range.start, range.end - range.start)
}

/// [`recompute`] of the `count` cases from `first` (which may end at 2^64).
fn recompute_from(i: &Instr, ops: impl Fn(u64) -> Vec<u64>, first: u64, count: u64) -> u64 {
    let c = ctx(i);
    (0..count).fold(0u64, |sum, k| {
        let n = first + k;
        let r = ptx::eval(i, &ops(n), &c).unwrap();
        sum.wrapping_add(mix(mix(n) ^ r))
    })
}

#[test]
fn random_sweep_digest_recomputed_independently() {
    let i = instr("add.rn.bf16");
    let (count, seed) = (150_000u64, 42u64);
    // Output j of SplitMix64 from `seed` is mix(seed + j * golden).
    let ops = |n: u64| {
        (1..=2)
            .map(|k| {
                mix(seed.wrapping_add(0x9E37_79B9_7F4A_7C15u64.wrapping_mul(4 * n + k))) & 0xFFFF
            })
            .collect()
    };
    let plan = Plan::new(&i, Space::Random { count, seed }).unwrap();
    let outcome = vectors::sweep(&plan, &ctx(&i), 3).unwrap();
    assert_eq!(outcome.count, count);
    // Chunks of 2^16 cases, the last one partial.
    let bounds = [0u64, 65_536, 131_072, count];
    let chunks: Vec<u64> = bounds
        .windows(2)
        .map(|w| recompute(&i, ops, w[0]..w[1]))
        .collect();
    assert_eq!(outcome.chunks, chunks);
    let total = chunks.iter().fold(0u64, |a, c| a.wrapping_add(*c));
    assert_eq!(outcome.digest, total);
    assert_eq!(outcome.digest, recompute(&i, ops, 0..count));
}

/// One 16-bit operand: a = i. Packed: the same pattern in both lanes.
#[test]
fn exhaustive_unary_sweep_digest_recomputed_independently() {
    for (text, ops) in [
        ("neg.bf16", (|n| vec![n]) as fn(u64) -> Vec<u64>),
        ("abs.f16x2", |n| vec![n | n << 16]),
        ("neg.bf16x2", |n| vec![n | n << 16]),
    ] {
        let i = instr(text);
        let plan = Plan::new(&i, Space::Exhaustive).unwrap();
        assert_eq!(plan.count, 1 << 16);
        let outcome = vectors::sweep(&plan, &ctx(&i), 2).unwrap();
        assert_eq!(outcome.chunks.len(), 1);
        assert_eq!(outcome.digest, recompute(&i, ops, 0..1 << 16), "{text}");
    }
}

/// Two 16-bit operands: a = i & 0xFFFF, b = i >> 16, so chunk c is b = c with every a.
#[test]
fn exhaustive_binary_chunks_recomputed_independently() {
    for (text, packed) in [("add.rn.f16", false), ("max.NaN.bf16x2", true)] {
        let i = instr(text);
        let plan = Plan::new(&i, Space::Exhaustive).unwrap();
        assert_eq!(plan.count, 1 << 32);
        assert_eq!(plan.chunks(), 1 << 16);
        let lanes = |x: u64| if packed { x | x << 16 } else { x };
        for c in [0u64, 0x3C00, 0x7E01, 0xFFFF] {
            let ops = |n: u64| vec![lanes(n & 0xFFFF), lanes(n >> 16)];
            let want = recompute(&i, ops, c << 16..(c + 1) << 16);
            assert_eq!(plan.chunk(c, &ctx(&i)).unwrap(), want, "{text} chunk {c}");
        }
    }
}

/// The exhaustive f32 unary order is a = i.
#[test]
fn exhaustive_f32_unary_order() {
    let plan = Plan::new(&instr("testp.normal.f32"), Space::Exhaustive).unwrap();
    assert_eq!(plan.count, 1 << 32);
    for n in [0u64, 1, 0x3F80_0000, 0xFFFF_FFFF] {
        assert_eq!(plan.operands(n)[0], n);
    }
}

#[test]
fn oversized_and_unmodelled_sweeps_are_errors() {
    // Over 2^64 cases: no exhaustive sweep.
    for text in ["fma.rn.f32", "add.rn.f64", "fma.rn.f32x2"] {
        let e = Plan::new(&instr(text), Space::Exhaustive).unwrap_err();
        assert!(matches!(e, SweepError::TooLarge(_)), "{text}");
        assert!(e.to_string().contains("--random"), "{e}");
    }
    // 2^64 cases: only in parts.
    for text in ["add.rn.f32", "neg.f64", "add.rn.f32x2"] {
        let e = Plan::new(&instr(text), Space::Exhaustive).unwrap_err();
        assert!(
            e.to_string().contains("--range START..END or --shard K/N"),
            "{e}"
        );
        assert_eq!(Plan::size(&instr(text), Space::Exhaustive), Ok(1 << 64));
        assert!(Plan::shard(&instr(text), Space::Exhaustive, 1, 2).is_ok());
    }
    // 2^48 cases: three 16-bit operands.
    let mut min3 = instr("min.f16");
    min3.inputs = 3;
    for i in [instr("fma.rn.f16"), instr("fma.rn.relu.bf16x2"), min3] {
        assert_eq!(
            Plan::new(&i, Space::Exhaustive).unwrap().count,
            1 << 48,
            "{i}"
        );
    }
    // `lg2` without `.approx` parses but the manual defines no such instruction.
    let i = instr("lg2.f32");
    let plan = Plan::new(&i, Space::Random { count: 10, seed: 0 }).unwrap();
    let e = vectors::sweep(&plan, &Context::default(), 2).unwrap_err();
    assert!(matches!(e, SweepError::Eval { case: 0, .. }), "{e}");
    // Approximate instructions sweep on the default core.
    let i = instr("ex2.approx.f32");
    let plan = Plan::new(&i, Space::Random { count: 10, seed: 0 }).unwrap();
    assert_eq!(vectors::sweep(&plan, &ctx(&i), 2).unwrap().count, 10);
}

/// Every valid two-operand instruction on a 16-bit type (legacy spellings included) is accepted
/// by an exhaustive sweep of 2^32 cases and evaluates a chunk.
#[test]
fn every_16bit_two_operand_variant_sweeps_exhaustively() {
    let rnds = [
        None,
        Some(Round::Rn),
        Some(Round::Rz),
        Some(Round::Rm),
        Some(Round::Rp),
    ];
    let mut variants = Vec::new();
    for op in Opcode::ALL {
        if op.default_inputs() != 2 {
            continue;
        }
        for ty in [Type::F16, Type::Bf16, Type::F16x2, Type::Bf16x2] {
            for rnd in rnds {
                for flags in 0..1u32 << 8 {
                    let f = |b: u32| flags >> b & 1 == 1;
                    let mods = Modifiers {
                        rnd,
                        full: f(0),
                        ftz: f(1),
                        oob: f(2),
                        sat: f(3),
                        relu: f(4),
                        nan: f(5),
                        xorsign: f(6),
                        abs: f(7),
                        approx: false,
                    };
                    let i = Instr {
                        mods,
                        ..Instr::new(op, ty)
                    };
                    if let Ok(c) = ptx::validate(&i, None, None) {
                        variants.push((i, c));
                    }
                }
            }
        }
    }
    eprintln!("{} 16-bit two-operand variants", variants.len());
    assert!(variants.len() > 100, "{} variants", variants.len());
    for (n, (i, c)) in variants.iter().enumerate() {
        let plan =
            Plan::new(&c.effective, Space::Exhaustive).unwrap_or_else(|e| panic!("{i}: {e}"));
        assert_eq!(plan.count, 1 << 32, "{i}");
        let ctx = Context {
            target: Some(c.default_target),
            ..Context::default()
        };
        // One chunk each, spread over the b operand's patterns.
        let chunk = (n as u64 * 0x9E37) & 0xFFFF;
        plan.chunk(chunk, &ctx)
            .unwrap_or_else(|e| panic!("{i}: {e}"));
    }
}

fn bits(sign: u64, exp: u64, frac: u64, e: u32, m: u32) -> u64 {
    sign << (e + m) | exp << m | frac
}

/// The tables hold what the issue asks for: min/max subnormal, the normal range's ends, ±0, ±inf,
/// quiet and signalling NaNs with payloads, values near 2^-126, 2^126, 1 and its rounding ties.
#[test]
fn tables_hold_the_special_values() {
    for (ty, e, m) in [
        (Type::F16, 5, 10),
        (Type::Bf16, 8, 7),
        (Type::F32, 8, 23),
        (Type::F64, 11, 52),
    ] {
        let v1: HashSet<u64> = gen::values(ty, Level::One).into_iter().collect();
        let v2: HashSet<u64> = gen::values(ty, Level::Two).into_iter().collect();
        assert!(v1.is_subset(&v2) && v2.len() > 2 * v1.len(), "{ty:?}");
        let top = (1u64 << e) - 1;
        let bias = top >> 1;
        let (q, a) = (1u64 << (m - 1), (1u64 << m) - 1);
        let m64 = u64::from(m);
        for sign in [0, 1] {
            let want = [
                (0, 0),              // zero
                (0, 1),              // min subnormal
                (0, a),              // max subnormal
                (1, 0),              // min normal (2^-126 for f32)
                (top - 1, a),        // max finite
                (top - 2, 0),        // 2^126 for f32
                (bias, 0),           // 1
                (bias, 1),           // 1 + ulp
                (bias - 1, a),       // 1 - ulp/2
                (bias - m64 - 1, 0), // half an ulp of 1: 1 + it is a tie
                (bias - m64 - 1, 1), // just above the tie
                (top, 0),            // infinity
                (top, a),            // canonical (PTX) quiet NaN
                (top, q),            // quiet NaN, no payload
                (top, q + 1),        // quiet NaN with payload
                (top, 1),            // signalling NaN
                (top, q - 1),        // signalling NaN, largest payload
            ];
            for (x, f) in want {
                let b = bits(sign, x, f, e, m);
                assert!(v1.contains(&b), "{ty:?} lacks 0x{b:x}");
            }
        }
        if ty == Type::F32 {
            assert!(v1.contains(&((126 + 127) << 23)));
        }
    }
}

/// At level 1 a two-operand instruction walks every pair of table values once, lane 0 of packed
/// types included; lane 1 is drawn independently; a seed reproduces its cases.
#[test]
fn level_one_walks_the_cross_product() {
    for text in ["add.rn.f32", "mul.rn.f16x2"] {
        let i = instr(text);
        let table = gen::values(i.ty, Level::One);
        let all: Vec<[u64; 3]> = vectors::cases(&i, Level::One, 5, None).collect();
        let size = table.len() * table.len();
        assert_eq!(all.len() as u64, gen::default_count(&i, Level::One));
        assert!(all.len() >= size);
        let lane = if i.ty.lanes() == 2 { 0xFFFF } else { u64::MAX };
        let pairs: HashSet<(u64, u64)> = all[..size]
            .iter()
            .map(|c| (c[0] & lane, c[1] & lane))
            .collect();
        assert_eq!(pairs.len(), size, "{text}");
        if i.ty.lanes() == 2 {
            let differ = all.iter().filter(|c| c[0] & 0xFFFF != c[0] >> 16).count();
            assert!(differ > all.len() * 9 / 10, "{text}: lanes vary together");
        }
        let again: Vec<[u64; 3]> = vectors::cases(&i, Level::One, 5, None).collect();
        assert!(all == again, "{text}: a seed reproduces its cases");
        let count = Some(size as u64 + 1000);
        let a: Vec<[u64; 3]> = vectors::cases(&i, Level::One, 5, count).collect();
        let b: Vec<[u64; 3]> = vectors::cases(&i, Level::One, 6, count).collect();
        assert!(a[..size] == b[..size] || i.ty.lanes() == 2, "{text}");
        assert!(a[size..] != b[size..], "{text}: seeds draw alike");
    }
}

/// Beyond the cross product each operand is a table value, a quarter of them with random
/// significand bits (the sign and exponent still from the table).
#[test]
fn draws_come_from_the_table() {
    let i = instr("fma.rn.f32");
    let table: HashSet<u64> = gen::values(i.ty, Level::One).into_iter().collect();
    let heads: HashSet<u64> = table.iter().map(|x| x >> 23).collect();
    let cases: Vec<[u64; 3]> = vectors::cases(&i, Level::One, 0, Some(20_000)).collect();
    let ops = cases.iter().flat_map(|c| c.iter().copied());
    let in_table = ops.clone().filter(|x| table.contains(x)).count();
    assert!(ops.clone().all(|x| heads.contains(&(x >> 23))));
    let n = 3 * cases.len();
    assert!(
        in_table > n * 7 / 10 && in_table < n * 85 / 100,
        "{in_table} of {n}"
    );
}

/// Three 16-bit operands: a = i & 0xFFFF, b = (i >> 16) & 0xFFFF, c = i >> 32, so chunk g holds
/// c = g >> 16, b = g & 0xFFFF and every a. Ranges inside the 2^48 space recomputed.
#[test]
fn ranges_of_the_fma_f16_space_recomputed_independently() {
    let i = instr("fma.rn.f16");
    let ops = |n: u64| vec![n & 0xFFFF, (n >> 16) & 0xFFFF, n >> 32];
    // c = 0x3C00 (1.0), b = 0x3C00: the chunk of a * 1 + 1; then a range across three chunks
    // starting and ending inside chunks; then the last cases of the space.
    let g = 0x3C00_3C00u64;
    for (first, count) in [
        (g << 16, 1u64 << 16),
        ((g << 16) + 1000, 2 * (1 << 16) + 5000),
        ((1u64 << 48) - 3000, 3000),
    ] {
        let start = u128::from(first);
        let plan = Plan::range(&i, Space::Exhaustive, start, start + u128::from(count)).unwrap();
        assert_eq!((plan.start, plan.count, plan.size), (first, count, 1 << 48));
        let got = vectors::sweep(&plan, &ctx(&i), 2).unwrap();
        assert_eq!(
            got.digest,
            recompute_from(&i, ops, first, count),
            "{first:#x}+{count}"
        );
        // The chunk sums are those of the space's chunks, cut at the range's ends.
        let mut at = first;
        for (j, sum) in got.chunks.iter().enumerate() {
            let (lo, n) = plan.chunk_cases(j as u64);
            assert_eq!(lo, at);
            assert_eq!(lo / (1 << 16), plan.first_chunk() + j as u64);
            assert_eq!(*sum, recompute_from(&i, ops, lo, n));
            at += n;
        }
        assert_eq!(at, first + count);
    }
}

/// The last chunk of a 2^64 space ends at 2^64: `neg.f64` of the largest patterns.
#[test]
fn the_end_of_a_2_64_space() {
    let i = instr("neg.f64");
    let size = 1u128 << 64;
    let plan = Plan::range(&i, Space::Exhaustive, size - 70_000, size).unwrap();
    assert_eq!(plan.chunks(), 2);
    let got = vectors::sweep(&plan, &ctx(&i), 2).unwrap();
    assert_eq!(
        got.digest,
        recompute_from(&i, |n| vec![n], u64::MAX - 69_999, 70_000)
    );
    let last = Plan::shard(&i, Space::Exhaustive, 9, 10).unwrap();
    assert_eq!(last.end(), size);
    assert!(Plan::range(&i, Space::Exhaustive, 0, size).is_err());
    assert!(Plan::range(&i, Space::Exhaustive, 5, size + 1).is_err());
    assert!(Plan::range(&i, Space::Exhaustive, 6, 5).is_err());
}

/// N shards cover the space once, in ranges whose sizes differ by at most one, and their
/// digests add up to the whole space's.
#[test]
fn shards_add_up_to_the_whole() {
    let i = instr("add.rn.bf16");
    let space = Space::Random {
        count: 150_000,
        seed: 42,
    };
    let whole = vectors::sweep(&Plan::new(&i, space).unwrap(), &ctx(&i), 2).unwrap();
    for n in [1u64, 2, 3, 7, 64] {
        let mut at = 0u128;
        let mut digest = 0u64;
        for k in 0..n {
            let p = Plan::shard(&i, space, k, n).unwrap();
            assert_eq!(u128::from(p.start), at);
            assert!(p.count == 150_000 / n || p.count == 150_000 / n + 1);
            digest = digest.wrapping_add(vectors::sweep(&p, &ctx(&i), 2).unwrap().digest);
            at = p.end();
        }
        assert_eq!(at, 150_000);
        assert_eq!(digest, whole.digest, "{n} shards");
    }
    assert!(Plan::shard(&i, space, 3, 3).is_err());
    // More shards than cases: some are empty, and still add up.
    let tiny = Space::Random { count: 3, seed: 1 };
    let sum = (0..5).fold(0u64, |s, k| {
        let p = Plan::shard(&i, tiny, k, 5).unwrap();
        s.wrapping_add(vectors::sweep(&p, &ctx(&i), 1).unwrap().digest)
    });
    let one = vectors::sweep(&Plan::new(&i, tiny).unwrap(), &ctx(&i), 1).unwrap();
    assert_eq!(sum, one.digest);
}

/// Records what `sweep_from` reports.
#[derive(Default)]
struct Seen(std::sync::Mutex<Vec<(u64, u64, vectors::Progress)>>);

impl vectors::Observer for Seen {
    fn done(&self, j: u64, sum: u64, progress: vectors::Progress) {
        self.0.lock().unwrap().push((j, sum, progress));
    }
}

/// The chunks `seen` reports are `from`, `from + 1`, ... in that order.
fn in_order(seen: &[(u64, u64, vectors::Progress)], from: u64) -> bool {
    seen.iter().enumerate().all(|(k, s)| s.0 == from + k as u64)
}

/// A sweep resumed from any chunk's progress finishes with the uninterrupted digest, and reports
/// the remaining chunks' sums in order.
#[test]
fn a_resumed_sweep_ends_with_the_same_digest() {
    use vectors::{sweep_from, Progress};
    let i = instr("mul.rn.f16");
    let plan = Plan::range(&i, Space::Exhaustive, 70_000, 70_000 + 9 * 65_536 + 123).unwrap();
    let whole = vectors::sweep(&plan, &ctx(&i), 2).unwrap();
    let seen = Seen::default();
    let end = sweep_from(&plan, &ctx(&i), 3, Progress::default(), &seen).unwrap();
    let seen = seen.0.into_inner().unwrap();
    assert_eq!(seen.len() as u64, plan.chunks());
    assert!(in_order(&seen, 0));
    assert_eq!(
        end,
        Progress {
            chunks: plan.chunks(),
            digest: whole.digest
        }
    );
    for (j, sum, progress) in &seen {
        assert_eq!(*sum, whole.chunks[*j as usize]);
        let resumed = Seen::default();
        let again = sweep_from(&plan, &ctx(&i), 2, *progress, &resumed).unwrap();
        assert_eq!(again, end, "resumed after chunk {j}");
        let rest = resumed.0.into_inner().unwrap();
        assert_eq!(rest.len() as u64, plan.chunks() - j - 1);
        assert!(in_order(&rest, j + 1));
        assert!(rest.iter().all(|(k, s, _)| *s == whole.chunks[*k as usize]));
    }
    assert!(sweep_from(
        &plan,
        &ctx(&i),
        1,
        Progress {
            chunks: 99,
            digest: 0
        },
        &Seen::default()
    )
    .is_err());
}
