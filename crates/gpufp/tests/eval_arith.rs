//! Every non-approximate arithmetic variant (add, sub, mul, fma, mad, div, rcp, sqrt on every
//! type, with each legal combination of rounding, `.ftz`, `.sat`, `.relu`, `.oob`) evaluated by
//! `ptx::eval` against an expectation built here from the manual's rules and independent oracles:
//! the big-integer model (`common/exact.rs`) for finite nonzero results, rustc_apfloat for the
//! special cases, and the manual's `.ftz`/`.sat`/`.relu`/`.oob`/NaN rules written out below.
//! Packed types: each lane equals the scalar result for that lane's operands.

mod common;

use common::exact::{model, Op};
use common::{ap_round, operand, Rng};
use gpufp::ptx::{self, Context, Instr, Modifiers, Opcode, Type};
use gpufp::{Format, Round, Tininess, BF16, F16, F32, F64};
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::Float;

/// Every valid non-approximate arithmetic instruction (sm_20+ semantics).
fn variants() -> Vec<Instr> {
    let ops = [
        Opcode::Add,
        Opcode::Sub,
        Opcode::Mul,
        Opcode::Fma,
        Opcode::Mad,
        Opcode::Div,
        Opcode::Rcp,
        Opcode::Sqrt,
    ];
    let rnds = [
        None,
        Some(Round::Rn),
        Some(Round::Rz),
        Some(Round::Rm),
        Some(Round::Rp),
    ];
    let mut out = Vec::new();
    for op in ops {
        for ty in Type::ALL {
            for rnd in rnds {
                for flags in 0..16u8 {
                    let mods = Modifiers {
                        rnd,
                        ftz: flags & 1 != 0,
                        sat: flags & 2 != 0,
                        relu: flags & 4 != 0,
                        oob: flags & 8 != 0,
                        ..Modifiers::default()
                    };
                    let i = Instr {
                        mods,
                        ..Instr::new(op, ty)
                    };
                    if let Ok(c) = ptx::validate(&i, None, None) {
                        if c.default_target.sm >= 20 && c.warnings.is_empty() {
                            out.push(i);
                        }
                    }
                }
            }
        }
    }
    out
}

/// The IEEE result (NaN as IEEE 754 §6.2.3 gives it) by rustc_apfloat.
fn apfloat<F: Format, A: Float>(op: Opcode, x: [F; 3], r: Round) -> F {
    let ap = |v: F| A::from_bits(u128::from(v.to_bits()));
    let (a, b, c) = (ap(x[0]), ap(x[1]), ap(x[2]));
    let rr = ap_round(r);
    let (v, inputs) = match op {
        Opcode::Add => (a.add_r(b, rr).value, &x[..2]),
        Opcode::Sub => (a.sub_r(b, rr).value, &x[..2]),
        Opcode::Mul => (a.mul_r(b, rr).value, &x[..2]),
        Opcode::Fma | Opcode::Mad => (a.mul_add_r(b, c, rr).value, &x[..3]),
        Opcode::Div => (a.div_r(b, rr).value, &x[..2]),
        Opcode::Rcp => (ap(F::one()).div_r(a, rr).value, &x[..1]),
        _ => unreachable!("sqrt specials are handled by the caller"),
    };
    if let Some(n) = inputs.iter().find(|v| v.is_nan()) {
        return F::from_bits(n.to_bits() | F::QUIET_BIT);
    }
    if v.is_nan() {
        return F::canonical_nan();
    }
    F::from_bits(v.to_bits() as u64)
}

/// The expected result of one lane, from the manual's rules.
fn expected<F: Format, A: Float>(i: &Instr, x: [F; 3]) -> F {
    let m = i.mods;
    let n = usize::from(i.inputs);
    // 9.7.4.4 `.oob`: an operand equal to the OOB NaN (policy default 0x7FFF) forces +0.
    if m.oob && x[..n].iter().any(|v| v.to_bits() == 0x7FFF) {
        return F::zero(false);
    }
    // `.ftz`: subnormal inputs become zeros of the same sign.
    let flush = |v: F| {
        if m.ftz && v.biased_exp() == 0 {
            F::from_bits(v.to_bits() & F::SIGN_MASK)
        } else {
            v
        }
    };
    let x = x.map(flush);
    let r = m.rnd.unwrap_or(Round::Rn);
    let tininess = m.ftz.then_some(Tininess::UnboundedRounded);
    let exact_op = match i.opcode {
        Opcode::Add => Op::Add,
        Opcode::Sub => Op::Sub,
        Opcode::Mul => Op::Mul,
        Opcode::Fma | Opcode::Mad => Op::Fma,
        Opcode::Div | Opcode::Rcp => Op::Div,
        _ => Op::Sqrt,
    };
    let (a, b) = if i.opcode == Opcode::Rcp {
        (F::one(), x[0])
    } else {
        (x[0], x[1])
    };
    let mut d = match model(exact_op, a, b, x[2], r, tininess) {
        Some(d) => d,
        None if i.opcode == Opcode::Sqrt => {
            let s = x[0];
            if s.is_nan() {
                s.quieted()
            } else if s.is_zero() || s.to_bits() == F::INF {
                s
            } else {
                F::canonical_nan()
            }
        }
        None => apfloat::<F, A>(i.opcode, x, r),
    };
    // NaN results: canonical for f32/f16/bf16; f64 keeps the IEEE NaN (policy f64_nan).
    if d.is_nan() && F::BITS != 64 {
        d = F::canonical_nan();
    }
    // `.sat`: [+0, 1], NaN and -0 to +0.
    if m.sat {
        d = if d.is_nan() || d.sign() {
            F::zero(false)
        } else if d.to_bits() > F::ONE {
            F::one()
        } else {
            d
        };
    }
    // `.relu`: negative (and -0, policy default) to +0; NaN to canonical.
    if m.relu {
        d = if d.is_nan() {
            F::canonical_nan()
        } else if d.sign() {
            F::zero(false)
        } else {
            d
        };
    }
    d
}

fn check<F: Format, A: Float>(i: &Instr, cases: usize, rng: &mut Rng) -> Result<(), String> {
    let ctx = Context::default();
    let lanes = i.ty.lanes() as usize;
    let w = F::BITS;
    for _ in 0..cases {
        let mut ops = [0u64; 3];
        let mut want = 0u64;
        for lane in 0..lanes {
            let mut x = [operand::<F>(rng), operand::<F>(rng), operand::<F>(rng)];
            if i.mods.oob && rng.below(8) == 0 {
                x[rng.below(3) as usize] = F::from_bits(0x7FFF);
            }
            for (k, v) in x.iter().enumerate() {
                ops[k] |= v.to_bits() << (lane as u32 * w);
            }
            want |= expected::<F, A>(i, x).to_bits() << (lane as u32 * w);
        }
        let got =
            ptx::eval(i, &ops[..usize::from(i.inputs)], &ctx).map_err(|e| format!("{i}: {e}"))?;
        if got != want {
            return Err(format!("{i} {ops:x?}: got 0x{got:x}, want 0x{want:x}"));
        }
    }
    Ok(())
}

#[test]
fn every_arithmetic_variant_matches_the_oracles() {
    let variants = variants();
    assert!(variants.len() > 200, "{} variants", variants.len());
    eprintln!("{} arithmetic variants", variants.len());
    let mut rng = Rng(0xA217);
    let cases = common::case_count(3_000).min(50_000);
    let failures: Vec<String> = variants
        .iter()
        .filter_map(|i| {
            match i.ty.lane() {
                Type::F32 => check::<F32, Single>(i, cases, &mut rng),
                Type::F64 => check::<F64, Double>(i, cases, &mut rng),
                Type::F16 => check::<F16, Half>(i, cases, &mut rng),
                _ => check::<BF16, BFloat>(i, cases, &mut rng),
            }
            .err()
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} variants fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Packed lanes are independent: each lane of an x2 result is the scalar instruction's result.
#[test]
fn packed_lanes_equal_scalar_results() {
    let ctx = Context::default();
    let mut rng = Rng(7);
    for i in variants().into_iter().filter(|i| i.ty.lanes() == 2) {
        let scalar = Instr {
            ty: i.ty.lane(),
            ..i
        };
        let w = i.ty.bits() / 2;
        let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
        for _ in 0..2_000 {
            let ops: Vec<u64> = (0..i.inputs)
                .map(|_| {
                    rng.next()
                        & if i.ty.bits() == 64 {
                            u64::MAX
                        } else {
                            (1 << i.ty.bits()) - 1
                        }
                })
                .collect();
            let got = ptx::eval(&i, &ops, &ctx).unwrap();
            for lane in 0..2 {
                let lane_ops: Vec<u64> = ops.iter().map(|o| (o >> (lane * w)) & mask).collect();
                let want = ptx::eval(&scalar, &lane_ops, &ctx).unwrap();
                assert_eq!(
                    (got >> (lane * w)) & mask,
                    want,
                    "{i} lane {lane} of {ops:x?}"
                );
            }
        }
    }
}
