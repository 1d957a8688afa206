//! min/max against an independent transcription of the manual's pseudo-code (PTX ISA 9.7.3.11,
//! 9.7.3.12, 9.7.4.7, 9.7.4.8): values compared through the host's f64 (exact for every input
//! format), with the manual's "-0.0 < +0.0" rule added; "NaN" is the canonical NaN (f32, f16, bf16;
//! docs/semantics.md, `half_minmax_both_nan`) and, for f64 with two NaN inputs, `b` quieted
//! (`f64_nan`).
//! Exhaustive over all f16 and bf16 pairs for every modifier combination (ignored tests; the
//! default run sweeps a slice), and f32 on large random sets.

mod common;

use common::{operand, Rng};
use gpufp::ptx::{self, Context, Instr, Modifiers, Opcode, Type};
use gpufp::{Format, BF16, F16, F32, F64};
use rayon::prelude::*;

/// The exact value of a non-NaN f16, bf16 or f32 pattern as an f64.
fn value<F: Format>(x: F) -> f64 {
    let sign = if x.sign() { -1.0 } else { 1.0 };
    if x.is_infinite() {
        return sign * f64::INFINITY;
    }
    let e = x.biased_exp() as i32;
    let (m, e) = if e == 0 {
        (x.frac(), 1)
    } else {
        (x.frac() | (1 << F::FRAC_BITS), e)
    };
    sign * m as f64 * 2f64.powi(e - F::BIAS - F::FRAC_BITS as i32)
}

/// `x < y` with "-0.0 < +0.0".
fn lt<F: Format>(x: F, y: F) -> bool {
    let (vx, vy) = (value(x), value(y));
    vx < vy || (vx == 0.0 && vy == 0.0 && x.sign() && !y.sign())
}

fn canonical<F: Format>() -> F {
    F::from_bits(F::CANONICAL_NAN)
}

/// `def min_num` / `min_nan` (and the max forms), for f32 and half precision.
fn two<F: Format>(max: bool, nan: bool, x: F, y: F) -> F {
    if x.is_nan() && y.is_nan() {
        return canonical();
    }
    if nan && (x.is_nan() || y.is_nan()) {
        return canonical();
    }
    if x.is_nan() {
        return y;
    }
    if y.is_nan() {
        return x;
    }
    let pick_x = if max { lt(y, x) } else { lt(x, y) };
    if pick_x {
        x
    } else {
        y
    }
}

/// The pseudo-code of the f32 and half-precision pages, one lane.
fn reference<F: Format>(max: bool, m: Modifiers, inputs: &[F]) -> F {
    let flush = |v: F| {
        if m.ftz && v.biased_exp() == 0 {
            F::from_bits(v.to_bits() & F::SIGN_MASK)
        } else {
            v
        }
    };
    let mut v: Vec<F> = inputs.iter().map(|&x| flush(x)).collect();
    let present_c = v.len() == 3;
    let xorsign = (v[0].to_bits() ^ v[1].to_bits()) & F::SIGN_MASK;
    if m.abs {
        for x in &mut v {
            *x = F::from_bits(x.to_bits() & !F::SIGN_MASK);
        }
    }
    let mut d = two(max, m.nan, v[0], v[1]);
    if present_c {
        d = two(max, m.nan, d, v[2]);
    }
    if m.xorsign && !present_c && !d.is_nan() {
        d = F::from_bits((d.to_bits() & !F::SIGN_MASK) | xorsign);
    }
    d
}

fn instr(max: bool, ty: Type, m: Modifiers, inputs: u8) -> Instr {
    Instr {
        mods: m,
        inputs,
        ..Instr::new(if max { Opcode::Max } else { Opcode::Min }, ty)
    }
}

/// Every modifier combination of two-input min/max for a type.
fn combos(ftz: bool) -> Vec<Modifiers> {
    let mut out = Vec::new();
    for bits in 0..8u8 {
        if bits & 1 != 0 && !ftz {
            continue;
        }
        let xa = bits & 4 != 0;
        out.push(Modifiers {
            ftz: bits & 1 != 0,
            nan: bits & 2 != 0,
            xorsign: xa,
            abs: xa,
            ..Modifiers::default()
        });
    }
    out
}

fn sweep16<F: Format>(ty: Type, his: &[u64]) {
    let ctx = Context::default();
    for max in [false, true] {
        for m in combos(ty == Type::F16) {
            let i = instr(max, ty, m, 2);
            let bad: u64 = his
                .par_iter()
                .map(|&hi| {
                    let mut bad = 0;
                    for lo in 0..=0xFFu64 {
                        let a = hi << 8 | lo;
                        for b in 0..=0xFFFFu64 {
                            let got = ptx::eval(&i, &[a, b], &ctx).unwrap();
                            let want = reference(max, m, &[F::from_bits(a), F::from_bits(b)]).to_bits();
                            if got != want {
                                if bad == 0 {
                                    eprintln!("{i} 0x{a:04x} 0x{b:04x}: got 0x{got:04x}, want 0x{want:04x}");
                                }
                                bad += 1;
                            }
                        }
                    }
                    bad
                })
                .sum();
            assert_eq!(bad, 0, "{i}: {bad} mismatches");
        }
    }
}

/// A slice of the exhaustive sweep in the default run: `a` with high byte 0x00 (subnormals),
/// 0x7C/0x7F (infinities, NaNs, large) or 0xBC (negative), every `b`.
#[test]
fn half_slice_every_combination() {
    sweep16::<F16>(Type::F16, &[0x03, 0x7E, 0xBC]);
    sweep16::<BF16>(Type::Bf16, &[0x00, 0x7F, 0xBF]);
}

#[test]
#[ignore]
fn f16_exhaustive_every_combination() {
    sweep16::<F16>(Type::F16, &(0..=0xFF).collect::<Vec<_>>());
}

#[test]
#[ignore]
fn bf16_exhaustive_every_combination() {
    sweep16::<BF16>(Type::Bf16, &(0..=0xFF).collect::<Vec<_>>());
}

/// f32, two and three inputs, every modifier combination, on random operands biased toward
/// zeros, subnormals, infinities and NaNs (and equal magnitudes of opposite sign).
#[test]
fn f32_random_every_combination() {
    let ctx = Context::default();
    let mut three = Vec::new();
    for bits in 0..8u8 {
        three.push(Modifiers {
            ftz: bits & 1 != 0,
            nan: bits & 2 != 0,
            abs: bits & 4 != 0,
            ..Modifiers::default()
        });
    }
    let cases = common::case_count(1_000_000) / 8;
    for max in [false, true] {
        for (m, n) in combos(true)
            .into_iter()
            .map(|m| (m, 2))
            .chain(three.iter().map(|&m| (m, 3)))
        {
            let i = instr(max, Type::F32, m, n);
            let mut rng = Rng(u64::from(n) << 8 | u64::from(max));
            for _ in 0..cases {
                let mut x = [
                    operand::<F32>(&mut rng),
                    operand::<F32>(&mut rng),
                    operand::<F32>(&mut rng),
                ];
                if rng.below(4) == 0 {
                    x[1] = x[0].neg_bits();
                }
                let ops: Vec<u64> = x[..usize::from(n)].iter().map(|v| v.to_bits()).collect();
                let got = ptx::eval(&i, &ops, &ctx).unwrap();
                let want = reference(max, m, &x[..usize::from(n)]).to_bits();
                assert_eq!(got, want, "{i} {ops:08x?}");
            }
        }
    }
}

/// f64 has no modifiers; two NaNs give `b` quieted (`f64_nan`, and the SASS ptxas emits).
#[test]
fn f64_random() {
    let ctx = Context::default();
    let mut rng = Rng(64);
    for max in [false, true] {
        let i = instr(max, Type::F64, Modifiers::default(), 2);
        for _ in 0..200_000 {
            let (a, b) = (operand::<F64>(&mut rng), operand::<F64>(&mut rng));
            let want = if a.is_nan() && b.is_nan() {
                b.quieted()
            } else if a.is_nan() {
                b
            } else if b.is_nan() {
                a
            } else {
                let (va, vb) = (f64::from_bits(a.to_bits()), f64::from_bits(b.to_bits()));
                let a_first = if max {
                    va > vb || (va == vb && !a.sign())
                } else {
                    va < vb || (va == vb && a.sign())
                };
                if a_first {
                    a
                } else {
                    b
                }
            };
            assert_eq!(
                ptx::eval(&i, &[a.to_bits(), b.to_bits()], &ctx).unwrap(),
                want.to_bits(),
                "{i} {a:?} {b:?}"
            );
        }
    }
}

/// The manual's own notes, pinned.
#[test]
fn manual_notes() {
    let ctx = Context::default();
    let e = |text: &str, ops: &[u64]| {
        let mut i = ptx::parse_instr(text).unwrap();
        i.inputs = ops.len() as u8;
        ptx::eval(&i, ops, &ctx).unwrap()
    };
    // "If values of both inputs are 0.0, then +0.0 > -0.0."
    assert_eq!(e("min.f32", &[0x0000_0000, 0x8000_0000]), 0x8000_0000);
    assert_eq!(e("max.f32", &[0x8000_0000, 0x0000_0000]), 0x0000_0000);
    assert_eq!(e("min.f16", &[0x0000, 0x8000]), 0x8000);
    assert_eq!(e("max.bf16x2", &[0x8000_0000, 0x0000_8000]), 0x0000_0000);
    // One NaN: the other operand; `.NaN`: canonical NaN.
    assert_eq!(e("min.f32", &[0x7FC0_0001, 0x3F80_0000]), 0x3F80_0000);
    assert_eq!(e("min.NaN.f32", &[0x7FC0_0001, 0x3F80_0000]), 0x7FFF_FFFF);
    assert_eq!(e("max.NaN.f16", &[0x3C00, 0xFE01]), 0x7FFF);
    // "If the result of min is NaN then the .xorsign and .abs modifiers will be ignored."
    assert_eq!(
        e("min.NaN.xorsign.abs.f32", &[0xFFC0_0000, 0x3F80_0000]),
        0x7FFF_FFFF
    );
    // xorsign: |min| with sign(a) ^ sign(b), including a NaN operand's sign when the other is
    // returned.
    assert_eq!(
        e("min.xorsign.abs.f32", &[0xC000_0000, 0x3F80_0000]),
        0xBF80_0000
    );
    assert_eq!(
        e("max.xorsign.abs.f32", &[0xFFC0_0000, 0x3F80_0000]),
        0xBF80_0000
    );
    // Three inputs: op(op(a, b), c) with .abs on all.
    assert_eq!(
        e("min.abs.f32", &[0xC000_0000, 0x4040_0000, 0xBF80_0000]),
        0x3F80_0000
    );
    // `.ftz` flushes before comparing: min(-subnormal, +0) is -0.
    assert_eq!(e("min.ftz.f32", &[0x8000_0001, 0x0000_0000]), 0x8000_0000);
}
