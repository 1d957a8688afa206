//! Intel vISA MIN_MAX semantics, pinned with exact values (manual/visa-MIN_MAX.md and
//! SEMANTICS.md §6): every type's min and max at the extremes, signed/unsigned compares, the NaN
//! rule, `.sat` for float and every integer type, source modifiers (including `-(INT_MIN)`),
//! masks M1..M8 and NoMask for exec sizes 1..32, regions, GRF sizes, `%cr0` denormal controls.

use gpufp::policy::Policies;
use gpufp::visa::asm::{parse_instruction, parse_program};
use gpufp::visa::exec::execute;
use gpufp::visa::state::State;
use gpufp::visa::VType;

/// Runs `lines` after declaring V32 (src0), V33 (src1) and V34 (dst), `n` elements each of the
/// given types, with V32/V33 set to `a`/`b` and V34 to `init`.
fn run_with(
    state: &mut State,
    types: [VType; 3],
    a: &[u64],
    b: &[u64],
    init: u64,
    lines: &str,
) -> Vec<u64> {
    let n = a.len().max(b.len()).max(32);
    let decls: String = types
        .iter()
        .enumerate()
        .map(|(k, t)| {
            format!(
                ".decl V{} v_type=G type={} num_elts={n} align=GRF\n",
                32 + k,
                t.name()
            )
        })
        .collect();
    let p = parse_program(&format!("{decls}{lines}"), state.grf_size).unwrap();
    for (_, d) in &p.decls {
        state.declare(d).unwrap();
    }
    for k in 0..n {
        state.write(32, k, a.get(k).copied().unwrap_or(0)).unwrap();
        state.write(33, k, b.get(k).copied().unwrap_or(0)).unwrap();
        state.write(34, k, init).unwrap();
    }
    for (line, i) in &p.instrs {
        execute(i, state, &Policies::default()).unwrap_or_else(|e| panic!("line {line}: {e}"));
    }
    (0..n).map(|k| state.read(34, k).unwrap()).collect()
}

/// One channel of `op` on `a` (V32 type t0), `b` (V33 type t1) into V34 (type td).
fn one(op: &str, t: [VType; 3], a: u64, b: u64) -> u64 {
    let mut s = State::new(32).unwrap();
    run_with(
        &mut s,
        t,
        &[a],
        &[b],
        0,
        &format!("{op} (1) V34(0,0)<1> V32(0,0)<0;1,0> V33(0,0)<0;1,0>"),
    )[0]
}

use VType::*;

#[test]
fn integer_extremes_signed_and_unsigned() {
    // (type, min value bits, max value bits)
    let cases = [
        (B, 0x80, 0x7F),
        (W, 0x8000, 0x7FFF),
        (D, 0x8000_0000, 0x7FFF_FFFF),
        (Q, 1 << 63, (1 << 63) - 1),
    ];
    for (t, lo, hi) in cases {
        assert_eq!(one("min", [t, t, t], lo, hi), lo, "{t:?}");
        assert_eq!(one("max", [t, t, t], lo, hi), hi, "{t:?}");
        // -1 (all ones) is below 0 when signed.
        let ones = if t == Q {
            u64::MAX
        } else {
            (1 << (8 * t.size())) - 1
        };
        assert_eq!(one("min", [t, t, t], ones, 0), ones, "{t:?}");
    }
    for (t, ones) in [(UB, 0xFF), (UW, 0xFFFF), (UD, 0xFFFF_FFFF), (UQ, u64::MAX)] {
        assert_eq!(one("min", [t, t, t], ones, 0), 0, "{t:?}");
        assert_eq!(one("max", [t, t, t], ones, 1), ones, "{t:?}");
    }
    // Mixed signedness compares values: -1:d < 0xFFFFFFFF:ud.
    assert_eq!(
        one("min", [D, UD, D], 0xFFFF_FFFF, 0xFFFF_FFFF),
        0xFFFF_FFFF
    );
    assert_eq!(
        one("max", [D, UD, Q], 0xFFFF_FFFF, 0xFFFF_FFFF),
        0xFFFF_FFFF
    );
    assert_eq!(one("min", [D, UD, Q], 0xFFFF_FFFF, 0xFFFF_FFFF), u64::MAX);
    // Without .sat a result wraps to the destination: max(300:w, 0:w) into UB is 44.
    assert_eq!(one("max", [W, W, UB], 300, 0), 44);
}

#[test]
fn float_min_max_and_nan_rule() {
    // HF, F, DF: 1 vs -2, and the NaN rule.
    assert_eq!(one("min", [F, F, F], 0x3F80_0000, 0xC000_0000), 0xC000_0000);
    assert_eq!(one("max", [HF, HF, HF], 0x3C00, 0xC000), 0x3C00);
    assert_eq!(
        one(
            "max",
            [DF, DF, DF],
            0xFFF0_0000_0000_0000,
            0x7FEF_FFFF_FFFF_FFFF
        ),
        0x7FEF_FFFF_FFFF_FFFF
    );
    // One NaN -> the other operand (either position).
    assert_eq!(one("min", [F, F, F], 0x7FC0_0001, 0x4000_0000), 0x4000_0000);
    assert_eq!(one("max", [F, F, F], 0x4000_0000, 0xFF80_0001), 0x4000_0000);
    // Both NaN -> src1, with its bits (payload and sign).
    assert_eq!(one("min", [F, F, F], 0x7FC0_0001, 0xFF80_0002), 0xFF80_0002);
    assert_eq!(one("max", [HF, HF, HF], 0x7E01, 0xFC02), 0xFC02);
    assert_eq!(
        one(
            "max",
            [DF, DF, DF],
            0x7FF8_0000_0000_0001,
            0x7FF0_0000_0000_0002
        ),
        0x7FF0_0000_0000_0002
    );
    // Equal operands (±0): min is sel.l -> src1 on a tie; max is sel.ge -> src0 (policy).
    assert_eq!(one("min", [F, F, F], 0x0000_0000, 0x8000_0000), 0x8000_0000);
    assert_eq!(one("min", [F, F, F], 0x8000_0000, 0x0000_0000), 0x0000_0000);
    assert_eq!(one("max", [F, F, F], 0x8000_0000, 0x0000_0000), 0x8000_0000);
    // Mixed float types compare exactly in the wider type; the result rounds to the destination.
    assert_eq!(one("max", [HF, F, F], 0x3C00, 0x3F80_0001), 0x3F80_0001);
    assert_eq!(one("max", [HF, F, HF], 0x3C00, 0x3F80_2000), 0x3C01); // 1 + 2^-10
    assert_eq!(one("max", [HF, F, HF], 0x3C00, 0x3F80_1000), 0x3C00); // 1 + 2^-11 ties to even
}

#[test]
fn saturation() {
    let sat = |t: [VType; 3], a, b| one("max.sat", t, a, b);
    assert_eq!(sat([F, F, F], 0x4000_0000, 0), 0x3F80_0000); // 2 -> 1
    assert_eq!(sat([F, F, F], 0xC000_0000, 0xBF80_0000), 0); // -1 -> +0
    assert_eq!(sat([F, F, F], 0x7FC0_0000, 0xFFC0_0000), 0); // NaN -> +0
    assert_eq!(sat([HF, HF, HF], 0x3800, 0), 0x3800); // 0.5 stays
    assert_eq!(
        sat([DF, DF, DF], 0x7FF0_0000_0000_0000, 0),
        0x3FF0_0000_0000_0000
    );
    // Integers clamp the exact result to the destination's range.
    assert_eq!(sat([D, D, B], 300, 0), 0x7F);
    assert_eq!(sat([D, D, B], 0xFFFF_FF00, 0xFFFF_FE00), 0x80); // -256 -> -128
    assert_eq!(sat([D, D, UB], 0xFFFF_FFFF, 0xFFFF_FFFE), 0); // -1 -> 0
    assert_eq!(sat([D, D, UB], 256, 0), 0xFF);
    assert_eq!(sat([D, D, W], 0x0001_0000, 0), 0x7FFF);
    assert_eq!(sat([D, D, UW], 0x0001_0000, 0), 0xFFFF);
    assert_eq!(sat([Q, Q, D], 1 << 40, 0), 0x7FFF_FFFF);
    assert_eq!(sat([D, D, UD], 0xFFFF_FFFF, 0xFFFF_FFFF), 0);
    assert_eq!(sat([UQ, UQ, Q], u64::MAX, 0), 0x7FFF_FFFF_FFFF_FFFF);
    assert_eq!(sat([Q, Q, UQ], 1 << 63, 1 << 63), 0);
}

#[test]
fn source_modifiers() {
    let m = |line: &str, t: [VType; 3], a: u64, b: u64| {
        let mut s = State::new(32).unwrap();
        run_with(&mut s, t, &[a], &[b], 0, line)[0]
    };
    let line = |m0: &str, m1: &str, op: &str| {
        format!("{op} (1) V34(0,0)<1> {m0}V32(0,0)<0;1,0> {m1}V33(0,0)<0;1,0>")
    };
    // -(INT_MIN) does not wrap: it is 2^31, larger than 5, and wraps only when stored.
    assert_eq!(
        m(&line("(-)", "", "max"), [D, D, Q], 0x8000_0000, 5),
        0x8000_0000
    );
    assert_eq!(
        m(&line("(-)", "", "max"), [D, D, D], 0x8000_0000, 5),
        0x8000_0000
    );
    assert_eq!(
        m(&line("(-)", "", "max.sat"), [D, D, D], 0x8000_0000, 5),
        0x7FFF_FFFF
    );
    assert_eq!(m(&line("(abs)", "", "min"), [W, W, W], 0xFFFB, 3), 3); // |-5| vs 3
    assert_eq!(m(&line("(-abs)", "", "min"), [UB, UB, W], 7, 1), 0xFFF9); // -|7| = -7
                                                                          // Float modifiers are sign operations.
    assert_eq!(
        m(
            &line("(-)", "(abs)", "min"),
            [F, F, F],
            0x3F80_0000,
            0xC000_0000
        ),
        0xBF80_0000
    );
    assert_eq!(
        m(
            &line("", "(-abs)", "max"),
            [F, F, F],
            0xC040_0000,
            0x4000_0000
        ),
        0xC000_0000
    );
    // A negated NaN is still NaN: the other operand wins.
    assert_eq!(
        m(&line("(-)", "", "min"), [F, F, F], 0x7FC0_0000, 0x4000_0000),
        0x4000_0000
    );
}

#[test]
fn masks_and_exec_sizes() {
    let a: Vec<u64> = (0..32).collect();
    let b: Vec<u64> = (0..32).map(|k| 100 + k).collect();
    for size in [1usize, 2, 4, 8, 16, 32] {
        for group in 0..8usize {
            if group * 4 + size > 32 {
                continue;
            }
            for nm in [false, true] {
                let mask = 0xA5A5_A5A5u32;
                let mut s = State::new(32).unwrap();
                s.exec_mask = mask;
                let ctrl = format!("M{}{}", group + 1, if nm { "_NM" } else { "" });
                let got = run_with(
                    &mut s,
                    [UD, UD, UD],
                    &a,
                    &b,
                    0xDEAD,
                    &format!("max ({ctrl}, {size}) V34(0,0)<1> V32(0,0)<1;1,0> V33(0,0)<1;1,0>"),
                );
                for (k, v) in got.iter().enumerate() {
                    let enabled = k < size && (nm || mask >> (group * 4 + k) & 1 == 1);
                    let want = if enabled { 100 + k as u64 } else { 0xDEAD };
                    assert_eq!(*v, want, "{ctrl} size {size} channel {k}");
                }
            }
        }
    }
}

#[test]
fn regions_strides_widths_and_grf_size() {
    let a: Vec<u64> = (0..32).collect();
    // <8;4,2>: channel k reads element (k/4)*8 + (k%4)*2; dst <2> writes elements 0,2,4,...
    let mut s = State::new(32).unwrap();
    let got = run_with(
        &mut s,
        [UD, UD, UD],
        &a,
        &[],
        0xFF,
        "max (8) V34(0,0)<2> V32(0,0)<8;4,2> 0:ud",
    );
    let reads = [0, 2, 4, 6, 8, 10, 12, 14];
    for (k, r) in reads.iter().enumerate() {
        assert_eq!(got[2 * k], *r, "channel {k}");
        assert_eq!(got[2 * k + 1], 0xFF, "untouched element {}", 2 * k + 1);
    }
    // <0;1,0> broadcasts one element; (r, c) = (1, 2) starts at 1 * (GRF / 4) + 2.
    for (grf, start) in [(32usize, 10u64), (64, 18)] {
        let mut s = State::new(grf).unwrap();
        let got = run_with(
            &mut s,
            [UD, UD, UD],
            &a,
            &[],
            0,
            "max (4) V34(0,0)<1> V32(1,2)<0;1,0> 0:ud",
        );
        assert_eq!(&got[..4], &[start; 4], "GRF {grf}");
    }
    // Out of the variable's bounds is an error, not a panic.
    let mut s = State::new(32).unwrap();
    let p = parse_program(
        ".decl V32 v_type=G type=ud num_elts=4\nmax (8) V32(0,0)<1> V32(0,0)<1;1,0> 0:ud",
        32,
    )
    .unwrap();
    s.declare(&p.decls[0].1).unwrap();
    assert!(execute(&p.instrs[0].1, &mut s, &Policies::default())
        .unwrap_err()
        .contains("outside V32"));
}

#[test]
fn cr0_denormal_controls() {
    // F denormal 0x00000001 vs -0: preserved by default, so max is the denormal.
    assert_eq!(one("max", [F, F, F], 1, 0x8000_0000), 1);
    let mut s = State::new(32).unwrap();
    s.cr0 &= !(1 << 7);
    // Flushed to +0, which ties with -0: max (sel.ge) returns src0 = +0.
    let got = run_with(
        &mut s,
        [F, F, F],
        &[1],
        &[0x8000_0000],
        7,
        "max (1) V34(0,0)<1> V32(0,0)<0;1,0> V33(0,0)<0;1,0>",
    );
    assert_eq!(got[0], 0);
    let mut s = State::new(32).unwrap();
    s.cr0 &= !(1 << 10);
    let got = run_with(
        &mut s,
        [HF, HF, HF],
        &[0x8001],
        &[0x0000],
        7,
        "min (1) V34(0,0)<1> V32(0,0)<0;1,0> V33(0,0)<0;1,0>",
    );
    assert_eq!(got[0], 0x0000); // -0 ties with +0: min returns src1
}

#[test]
fn mixing_integer_and_float_is_an_error() {
    let mut s = State::new(32).unwrap();
    let p = parse_program(
        ".decl V32 v_type=G type=f num_elts=8\nmax (1) V32(0,0)<1> V32(0,0)<0;1,0> 1:d",
        32,
    )
    .unwrap();
    s.declare(&p.decls[0].1).unwrap();
    assert!(execute(&p.instrs[0].1, &mut s, &Policies::default())
        .unwrap_err()
        .contains("cannot mix"));
    assert!(parse_instruction("max (1) V32(0,0)<1> V32(0,0)<0;1,0> 1.5:d").is_err());
}

mod round_trips {
    use gpufp::visa::asm::{parse_instruction, parse_program};
    use gpufp::visa::encode::{decode, encode};
    use gpufp::visa::{MaskCtrl, MinMax, Op, Operand, Region, SrcMod, VType};
    use proptest::prelude::*;

    fn stride() -> impl Strategy<Value = u8> {
        prop::sample::select(vec![0u8, 1, 2, 4, 8, 16, 32])
    }

    fn source() -> impl Strategy<Value = Operand> {
        let modifier =
            prop::sample::select(vec![SrcMod::None, SrcMod::Abs, SrcMod::Neg, SrcMod::NegAbs]);
        let general = (
            32u32..5000,
            any::<u8>(),
            any::<u8>(),
            stride(),
            stride(),
            stride(),
            modifier,
        )
            .prop_map(|(id, row, col, vs, w, hs, modifier)| Operand::General {
                id,
                row,
                col,
                region: Region::src(vs, w, hs),
                modifier,
            });
        let imm = (0..VType::ALL.len(), any::<u64>()).prop_map(|(t, bits)| {
            let ty = VType::ALL[t];
            let bits = if ty.size() == 8 {
                bits
            } else {
                bits & ((1 << (8 * ty.size())) - 1)
            };
            Operand::Imm { ty, bits }
        });
        prop_oneof![general, imm]
    }

    fn instruction() -> impl Strategy<Value = MinMax> {
        let size = prop::sample::select(vec![1u8, 2, 4, 8, 16, 32]);
        let dst =
            (32u32..5000, any::<u8>(), any::<u8>(), stride()).prop_map(|(id, row, col, hs)| {
                Operand::General {
                    id,
                    row,
                    col,
                    region: Region::dst(hs),
                    modifier: SrcMod::None,
                }
            });
        (
            any::<bool>(),
            any::<bool>(),
            size,
            0u8..8,
            any::<bool>(),
            dst,
            source(),
            source(),
        )
            .prop_map(
                |(max, sat, exec_size, group, no_mask, dst, src0, src1)| MinMax {
                    op: if max { Op::Max } else { Op::Min },
                    sat,
                    exec_size,
                    mask: MaskCtrl { group, no_mask },
                    dst,
                    src0,
                    src1,
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5_000))]

        /// text -> instruction -> bytes -> instruction -> text is the identity.
        #[test]
        fn asm_binary_disasm(i in instruction()) {
            let text = i.to_string();
            let parsed = parse_instruction(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e:?}")))?;
            prop_assert_eq!(parsed, i);
            let bytes = encode(&parsed).map_err(TestCaseError::fail)?;
            let (back, n) = decode(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(n, bytes.len());
            prop_assert_eq!(back.to_string(), text);
        }

        /// Arbitrary text never panics the assembler.
        #[test]
        fn text_never_panics(s in "\\PC{0,60}", t in "[.a-zA-Z0-9_(),;<>: =-]{0,80}") {
            let _ = parse_program(&s, 32);
            let _ = parse_program(&t, 64);
            let _ = parse_instruction(&t);
        }
    }
}
