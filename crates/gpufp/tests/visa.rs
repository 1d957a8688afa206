//! Intel vISA MIN_MAX semantics, pinned with exact values (Intel's vISA specification and
//! docs/semantics.md): every type's min and max at the extremes, signed/unsigned compares, the NaN
//! rule, `.sat` for float and every integer type, source modifiers (including `-(INT_MIN)`),
//! masks M1..M8 and NoMask for exec sizes 1..32, regions, GRF sizes, `%cr0` denormal controls,
//! and indirect operands (addresses, modifiers, `.sat`, regions, bounds, encoding).

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
                                                                          // Float modifiers are
                                                                          // sign operations.
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
            modifier.clone(),
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
        let indirect = (
            any::<u16>(),
            any::<u8>(),
            any::<i16>(),
            0..VType::ALL.len(),
            (stride(), stride(), stride()),
            modifier,
        )
            .prop_map(|(addr, addr_offset, offset, t, (vs, w, hs), modifier)| {
                Operand::Indirect {
                    addr,
                    addr_offset,
                    offset,
                    ty: VType::ALL[t],
                    region: Region::src(vs, w, hs),
                    modifier,
                }
            });
        prop_oneof![general, imm, indirect]
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
        let indirect_dst = (
            any::<u16>(),
            any::<u8>(),
            any::<i16>(),
            0..VType::ALL.len(),
            stride(),
        )
            .prop_map(|(addr, addr_offset, offset, t, hs)| Operand::Indirect {
                addr,
                addr_offset,
                offset,
                ty: VType::ALL[t],
                region: Region::dst(hs),
                modifier: SrcMod::None,
            });
        let dst = prop_oneof![dst, indirect_dst];
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
        fn text_never_panics(s in "\\PC{0,60}", t in "[.a-zA-Z0-9_(),;<>: =\\[\\]-]{0,80}") {
            let _ = parse_program(&s, 32);
            let _ = parse_program(&t, 64);
            let _ = parse_instruction(&t);
        }
    }
}

/// Indirect operands `r[A<n>(i),offset]<region>:type` (the IGC vISA bytecode
/// reader/disassembler's layout): channel `k` lives at `A<n>[i] + offset + element(k) * size` in
/// the register file, read and written as the operand's own type.
mod indirect {
    use super::*;
    use gpufp::visa::asm::parse_program;
    use gpufp::visa::encode::{decode, encode, from_hex, to_hex};

    /// A state with the declarations of `text` (general and address variables), and its
    /// instructions.
    fn setup(grf: usize, text: &str) -> (State, Vec<gpufp::visa::MinMax>) {
        let p = parse_program(text, grf).unwrap();
        let mut s = State::new(grf).unwrap();
        for (_, d) in &p.decls {
            s.declare(d).unwrap();
        }
        for (_, d) in &p.addr_decls {
            s.declare_address(d).unwrap();
        }
        (s, p.instrs.into_iter().map(|(_, i)| i).collect())
    }

    fn run(s: &mut State, instrs: &[gpufp::visa::MinMax]) -> Result<(), String> {
        instrs
            .iter()
            .try_for_each(|i| execute(i, s, &Policies::default()))
    }

    /// `V32` (type `t32`, 8 elements) holds `values`; `A0[0]` points at `V32`; one instruction
    /// `line` writes `V34` (type `td`); returns `V34[0]`.
    fn through_a0(t32: VType, values: &[u64], td: VType, line: &str) -> u64 {
        let text = format!(
            ".decl V32 v_type=G type={} num_elts=8\n.decl V34 v_type=G type={} num_elts=8\n.decl A0 v_type=A num_elts=2\n{line}",
            t32.name(),
            td.name()
        );
        let (mut s, instrs) = setup(32, &text);
        for (k, v) in values.iter().enumerate() {
            s.write(32, k, *v).unwrap();
        }
        let base = s.byte_offset(32).unwrap();
        s.set_address(0, 0, u16::try_from(base).unwrap()).unwrap();
        run(&mut s, &instrs).unwrap();
        s.read(34, 0).unwrap()
    }

    #[test]
    fn source_modifiers_through_indirect_operands() {
        // V32[1] = INT_MIN: offset 4 bytes is element 1 of a D variable.
        let int_min = [0, 0x8000_0000];
        let line = |m: &str, op: &str| format!("{op} (1) V34(0,0)<1> {m}r[A0(0),4]<0;1,0>:d 5:d");
        // -(INT_MIN) is 2^31, larger than 5; it wraps only when stored in D.
        assert_eq!(through_a0(D, &int_min, Q, &line("(-)", "max")), 1 << 31);
        assert_eq!(through_a0(D, &int_min, D, &line("(-)", "max")), 0x8000_0000);
        assert_eq!(
            through_a0(D, &int_min, D, &line("(-)", "max.sat")),
            0x7FFF_FFFF
        );
        // |INT_MIN| = 2^31 as well; -|INT_MIN| = -2^31 is the minimum.
        assert_eq!(through_a0(D, &int_min, Q, &line("(abs)", "max")), 1 << 31);
        assert_eq!(
            through_a0(D, &int_min, Q, &line("(-abs)", "min")),
            (-(1i64 << 31)) as u64
        );
        assert_eq!(
            through_a0(D, &int_min, Q, &line("", "min")),
            (-(1i64 << 31)) as u64
        );
        // -5 and 7 with each modifier against 3.
        let vals = [0, 0xFFFF_FFFB, 7];
        let l = |m: &str, off: u8, op: &str| {
            format!("{op} (1) V34(0,0)<1> {m}r[A0(0),{off}]<0;1,0>:d 3:d")
        };
        assert_eq!(through_a0(D, &vals, Q, &l("", 4, "max")), 3);
        assert_eq!(through_a0(D, &vals, Q, &l("(abs)", 4, "max")), 5);
        assert_eq!(through_a0(D, &vals, Q, &l("(-)", 4, "max")), 5);
        assert_eq!(
            through_a0(D, &vals, Q, &l("(-abs)", 8, "min")),
            (-7i64) as u64
        );
        // The operand's own type decides, not the variable's: the same bytes as `:ud` are
        // 0xFFFFFFFB, above 3; as `:w` at offset 6 they are the high half, 0xFFFF = -1.
        assert_eq!(
            through_a0(D, &vals, Q, "max (1) V34(0,0)<1> r[A0(0),4]<0;1,0>:ud 3:ud"),
            0xFFFF_FFFB
        );
        assert_eq!(
            through_a0(D, &vals, Q, "min (1) V34(0,0)<1> r[A0(0),6]<0;1,0>:w 0:w"),
            u64::MAX
        );
        // Float modifiers are sign operations: -(1.0), |-2.0|, -|3.0|.
        let f = [0x3F80_0000, 0xC000_0000, 0x4040_0000];
        let fl = |m: &str, off: u8, op: &str| {
            format!("{op} (1) V34(0,0)<1> {m}r[A0(0),{off}]<0;1,0>:f 0:f")
        };
        assert_eq!(through_a0(F, &f, F, &fl("(-)", 0, "min")), 0xBF80_0000);
        assert_eq!(through_a0(F, &f, F, &fl("(abs)", 4, "max")), 0x4000_0000);
        assert_eq!(through_a0(F, &f, F, &fl("(-abs)", 8, "min")), 0xC040_0000);
        assert_eq!(through_a0(F, &f, F, &fl("", 4, "min")), 0xC000_0000);
    }

    #[test]
    fn nan_rule_through_indirect_operands() {
        // V32 = [qNaN with payload 1, 2.0, -sNaN with payload 2].
        let v = [0x7FC0_0001, 0x4000_0000, 0xFF80_0002];
        let l = |op: &str, a: u8, b: u8| {
            format!("{op} (1) V34(0,0)<1> r[A0(0),{a}]<0;1,0>:f r[A0(0),{b}]<0;1,0>:f")
        };
        // One NaN -> the other operand, in either position.
        assert_eq!(through_a0(F, &v, F, &l("min", 0, 4)), 0x4000_0000);
        assert_eq!(through_a0(F, &v, F, &l("max", 4, 8)), 0x4000_0000);
        // Both NaN -> src1 with its bits.
        assert_eq!(through_a0(F, &v, F, &l("min", 0, 8)), 0xFF80_0002);
        assert_eq!(through_a0(F, &v, F, &l("max", 8, 0)), 0x7FC0_0001);
        // A negated NaN is still NaN.
        assert_eq!(
            through_a0(F, &v, F, "max (1) V34(0,0)<1> (-)r[A0(0),0]<0;1,0>:f 1.5:f"),
            0x3FC0_0000
        );
    }

    #[test]
    fn indirect_destination_with_sat() {
        // V33[k] = [2.0, -1.0, 0.5, NaN]; dst r[A1(1),8]<2>:f writes V34 elements 2, 4, 6, 8.
        let text = ".decl V33 v_type=G type=f num_elts=4\n.decl V34 v_type=G type=f num_elts=12\n.decl A1 v_type=A num_elts=2\nmax.sat (4) r[A1(1),8]<2>:f V33(0,0)<1;1,0> -0.0:f";
        let (mut s, instrs) = setup(32, text);
        for (k, v) in [0x4000_0000u64, 0xBF80_0000, 0x3F00_0000, 0x7FC0_0000]
            .iter()
            .enumerate()
        {
            s.write(33, k, *v).unwrap();
        }
        for k in 0..12 {
            s.write(34, k, 0xAAAA_AAAA).unwrap();
        }
        let base = s.byte_offset(34).unwrap();
        s.set_address(1, 1, u16::try_from(base).unwrap()).unwrap();
        run(&mut s, &instrs).unwrap();
        let got: Vec<u64> = (0..12).map(|k| s.read(34, k).unwrap()).collect();
        let z = 0xAAAA_AAAA;
        // 2 -> 1; max(-1, -0) = -0 -> +0; 0.5; NaN -> the other operand -0 -> +0.
        assert_eq!(
            got,
            vec![z, z, 0x3F80_0000, z, 0, z, 0x3F00_0000, z, 0, z, z, z]
        );
        // Integer .sat into a `:ub` indirect destination clamps; neighbouring bytes are kept.
        let text = ".decl V33 v_type=G type=d num_elts=4\n.decl V34 v_type=G type=ub num_elts=8\n.decl A0 v_type=A num_elts=1\nmax.sat (4) r[A0(0),1]<1>:ub V33(0,0)<1;1,0> -1000:d";
        let (mut s, instrs) = setup(32, text);
        for (k, v) in [300u64, 0xFFFF_FFFF, 77, 255].iter().enumerate() {
            s.write(33, k, *v).unwrap();
        }
        for k in 0..8 {
            s.write(34, k, 0x55).unwrap();
        }
        let base = s.byte_offset(34).unwrap();
        s.set_address(0, 0, u16::try_from(base).unwrap()).unwrap();
        run(&mut s, &instrs).unwrap();
        let got: Vec<u64> = (0..8).map(|k| s.read(34, k).unwrap()).collect();
        assert_eq!(got, vec![0x55, 0xFF, 0, 77, 255, 0x55, 0x55, 0x55]);
    }

    #[test]
    fn regions_with_strides() {
        // V32[k] = k (ud). Source r[A0(0),4]<8;4,2>:ud starts at element 1: channel k reads
        // element 1 + (k/4)*8 + (k%4)*2. Destination r[A0(1),0]<2>:ud writes V34 element 2k.
        let text = ".decl V32 v_type=G type=ud num_elts=32\n.decl V34 v_type=G type=ud num_elts=16\n.decl A0 v_type=A num_elts=2\nmax (8) r[A0(1),0]<2>:ud r[A0(0),4]<8;4,2>:ud 0:ud";
        let (mut s, instrs) = setup(32, text);
        for k in 0..32 {
            s.write(32, k, k as u64).unwrap();
        }
        for k in 0..16 {
            s.write(34, k, 0xFF).unwrap();
        }
        let (a, d) = (s.byte_offset(32).unwrap(), s.byte_offset(34).unwrap());
        s.set_address(0, 0, a as u16).unwrap();
        s.set_address(0, 1, d as u16).unwrap();
        run(&mut s, &instrs).unwrap();
        let reads = [1, 3, 5, 7, 9, 11, 13, 15];
        for (k, r) in reads.iter().enumerate() {
            assert_eq!(s.read(34, 2 * k), Ok(*r), "channel {k}");
            assert_eq!(s.read(34, 2 * k + 1), Ok(0xFF), "element {}", 2 * k + 1);
        }
        // <0;1,0> broadcasts; <1;1,0> on `:uw` steps 2 bytes, reading halves of V32's dwords.
        let text = ".decl V32 v_type=G type=ud num_elts=8\n.decl V34 v_type=G type=uw num_elts=8\n.decl A0 v_type=A num_elts=1\nmin (4) V34(0,0)<1> r[A0(0),2]<1;1,0>:uw r[A0(0),0]<0;1,0>:uw";
        let (mut s, instrs) = setup(32, text);
        for (k, v) in [0x0003_0010u64, 0x0001_0002, 0x0000_0007]
            .iter()
            .enumerate()
        {
            s.write(32, k, *v).unwrap();
        }
        run(&mut s, &instrs).unwrap();
        // src0 = uw elements 1..4 of V32 = [3, 2, 1, 7]; src1 = 0x10 everywhere.
        let got: Vec<u64> = (0..4).map(|k| s.read(34, k).unwrap()).collect();
        assert_eq!(got, vec![3, 2, 1, 7]);
    }

    #[test]
    fn grf_size_moves_variables() {
        // V32 takes one register, so V33 starts at byte 32 (GRF 32) or 64 (GRF 64).
        let text = ".decl V32 v_type=G type=ud num_elts=1 align=GRF\n.decl V33 v_type=G type=ud num_elts=4 align=GRF\n.decl V34 v_type=G type=ud num_elts=4 align=GRF\n.decl A0 v_type=A num_elts=2\nmax (4) V34(0,0)<1> r[A0(0),0]<1;1,0>:ud 0:ud\nmax (4) V34(0,0)<1> V34(0,0)<1;1,0> r[A0(1),0]<1;1,0>:ud";
        for (grf, v33) in [(32usize, 32usize), (64, 64)] {
            let (mut s, instrs) = setup(grf, text);
            assert_eq!(s.byte_offset(33), Ok(v33), "GRF {grf}");
            for k in 0..4 {
                s.write(33, k, 10 + k as u64).unwrap();
            }
            // A0[0] = &V33 reads V33 on both; A0[1] = 32 reads V33 only on GRF 32 (on GRF 64
            // byte 32 is the unused rest of V32's register, zero).
            s.set_address(0, 0, v33 as u16).unwrap();
            s.set_address(0, 1, 32).unwrap();
            run(&mut s, &instrs).unwrap();
            let got: Vec<u64> = (0..4).map(|k| s.read(34, k).unwrap()).collect();
            assert_eq!(got, vec![10, 11, 12, 13], "GRF {grf}");
        }
        let (mut s, instrs) = setup(64, text);
        s.set_address(0, 1, 32).unwrap();
        s.write(32, 0, 99).unwrap();
        s.write(33, 0, 5).unwrap();
        s.set_address(0, 0, 0).unwrap();
        run(&mut s, &instrs).unwrap();
        // Channel 0 reads V32[0] = 99 through A0[0] = 0, then max with byte 32's zero.
        assert_eq!(s.read(34, 0), Ok(99));
    }

    #[test]
    fn out_of_range_addresses_are_errors() {
        let decls = ".decl V32 v_type=G type=ud num_elts=8\n.decl A0 v_type=A num_elts=2\n";
        // The file is one 32-byte register.
        let cases = [
            // Channel 4 of <1;1,0> from byte 16 reads bytes 32..36.
            ("max (8) V32(0,0)<1> r[A0(0),16]<1;1,0>:ud 0:ud", "src0 r[A0(0),16]<1;1,0>:ud, channel 4: bytes 32..36 are outside the register file (32 bytes)"),
            ("max (1) V32(0,0)<1> 0:ud r[A0(0),-1]<0;1,0>:ud", "src1 r[A0(0),-1]<0;1,0>:ud, channel 0: bytes -1..3 are outside the register file (32 bytes)"),
            ("max (1) r[A0(1),29]<1>:ud 0:ud 0:ud", "dst r[A0(1),29]<1>:ud, channel 0: bytes 29..33 are outside the register file (32 bytes)"),
            ("max (1) V32(0,0)<1> r[A0(2),0]<0;1,0>:ud 0:ud", "src0 r[A0(2),0]<0;1,0>:ud: element 2 is outside A0 (2 elements)"),
            ("max (1) V32(0,0)<1> r[A3(0),0]<0;1,0>:ud 0:ud", "src0 r[A3(0),0]<0;1,0>:ud: A3 is not declared"),
        ];
        for (line, want) in cases {
            let (mut s, instrs) = setup(32, &format!("{decls}{line}"));
            assert_eq!(run(&mut s, &instrs), Err(want.to_string()), "{line}");
        }
        // A large address with a large offset: no overflow, an error.
        let (mut s, instrs) = setup(
            32,
            &format!("{decls}max (1) V32(0,0)<1> r[A0(0),32767]<0;1,0>:uq 0:uq"),
        );
        s.set_address(0, 0, u16::MAX).unwrap();
        assert!(run(&mut s, &instrs)
            .unwrap_err()
            .contains("bytes 98302..98310 are outside"));
    }

    /// `min.sat (M1, 8) r[A1(2),-4]<1>:hf (-)r[A0(0),16]<8;8,1>:f 0x0:f`, by hand:
    ///
    /// - `45` opcode; `03`: exec size 8 = code 3, M1 = 0 in bits 7-4; `00` min.
    /// - dst: tag `23` = class 3 | (sat 4 << 3); index 1 = `01 00`; addr_offset `02`;
    ///   indirect offset -4 = 0xfffc = `fc ff`; bit_property HF = 14 = `0e`; region `<1>`:
    ///   hs 1 has nibble code 2 in bits 8-11 = 0x0200 = `00 02`.
    /// - src0: tag `13` = class 3 | (neg 2 << 3); index 0 = `00 00`; addr_offset `00`; offset
    ///   16 = `10 00`; bit_property F = 7 = `07`; region `<8;8,1>` (nibble codes: absent 0,
    ///   then 0, 1, 2, 4, 8, 16, 32 are 1..7): vs 8 = code 5, w 8 = code 5, hs 1 = code 2 =
    ///   0x0255 = `55 02`.
    /// - src1: tag `05` (immediate), type `07` (F), value `00 00 00 00`.
    #[test]
    fn asm_bytes_disasm_by_hand() {
        let text = "min.sat (M1, 8) r[A1(2),-4]<1>:hf (-)r[A0(0),16]<8;8,1>:f 0x0:f";
        let i = parse_instruction(text).unwrap();
        assert_eq!(i.to_string(), text);
        let bytes = encode(&i).unwrap();
        let want =
            from_hex("45 03 00  23 0100 02 fcff 0e 0002  13 0000 00 1000 07 5502  05 07 00000000")
                .unwrap();
        assert_eq!(to_hex(&bytes), to_hex(&want));
        assert_eq!(decode(&bytes), Ok((i, 27)));
        assert_eq!(decode(&bytes).unwrap().0.to_string(), text);
        // Each modifier and a mixed general/indirect instruction survive the round trip.
        for text in [
            "max (M3_NM, 16) V40(1,2)<2> (abs)r[A7(15),-32768]<0;1,0>:b r[A65535(255),32767]<32;16,4>:uq",
            "min (M1, 1) r[A0(0),0]<0>:df (-abs)r[A1(1),8]<1;1,0>:df 0x3ff0000000000000:df",
            "max (M8, 4) r[A2(3),-2]<4>:w (-)V33(0,0)<1;1,0> (-)r[A2(0),6]<2;2,1>:uw",
        ] {
            let i = parse_instruction(text).unwrap();
            assert_eq!(i.to_string(), text);
            let (back, _) = decode(&encode(&i).unwrap()).unwrap();
            assert_eq!(back.to_string(), text);
        }
    }
}

/// `nan` and `inf` by name: the default quiet NaN (sign clear, only the quiet bit of the fraction
/// set) and the infinities, of each float type. `nan` used to come out as `+inf`.
#[test]
fn named_float_immediates() {
    use gpufp::visa::asm::immediate;
    for (ty, nan, inf) in [
        (VType::HF, 0x7E00u64, 0x7C00u64),
        (VType::F, 0x7FC0_0000, 0x7F80_0000),
        (VType::DF, 0x7FF8_0000_0000_0000, 0x7FF0_0000_0000_0000),
    ] {
        let sign = 1u64 << (8 * ty.size() - 1);
        assert_eq!(immediate("nan", ty), Ok(nan), "{ty:?}");
        assert_eq!(immediate("NaN", ty), Ok(nan), "{ty:?}");
        assert_eq!(immediate("inf", ty), Ok(inf), "{ty:?}");
        assert_eq!(immediate("-inf", ty), Ok(inf | sign), "{ty:?}");
    }
}
