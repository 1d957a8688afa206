//! PTX ISA 9.7.3.8 and 9.7.3.13-9.7.3.22, 9.7.4.9-9.7.4.10: the approximate instructions
//! (`.approx`, `div.full`), as the exact IEEE glue ptxas wraps around one special-function-unit
//! operation (the SASS ptxas 13.5 emits, the same on sm_80 to sm_120; docs/mufu.md).
//!
//! The glue's compares are non-`.ftz` `FSETP`s against `2^-126` (a NaN is never scaled), its
//! fix-ups `FMUL`/`FADD` rounded to nearest without flushing; the `.ftz` forms are the bare MUFU
//! operation. What the MUFU returns comes from the [`Core`] in the context.

use super::arith::nan_result;
use super::eval::{Context, Rule, Trace};
use super::instr::{Instr, Opcode};
use crate::format::{Format, BF16, F16, F32, F64};
use crate::ieee;
use crate::mufu::{Core, Op, Op16, Op64};
use crate::round::{Round, Rounding};
use crate::steps;

/// `2^-126`, the `FSETP.GEU |a|, 1.175494350822287508e-38` threshold.
const TINY: u64 = 0x0080_0000;
/// `2^126`, the `FSETP.GT |b|, 8.50705917302346158658e+37` threshold of `div.full`, `rcp`.
const BIG: u64 = 0x7E80_0000;
/// `2^24`: tiny operands are scaled into the normal range by it.
const TWO_24: u64 = 0x4B80_0000;
const QUARTER: u64 = 0x3E80_0000;
const HALF: u64 = 0x3F00_0000;
/// `1/(2π)` rounded to f32: `FMUL.RZ t0, a, 0.15915493667125701904` before `MUFU.SIN`/`MUFU.COS`.
pub const INV_2PI: u64 = 0x3E22_F983;

fn f32c(bits: u64) -> F32 {
    F32::from_bits(bits)
}

/// `FMUL` (round to nearest, subnormals kept).
fn fmul(a: F32, b: F32) -> F32 {
    ieee::mul(a, b, Rounding::ieee(Round::Rn))
}

/// `FMUL.FTZ`: inputs and result flushed (the result under the context's tininess policy).
fn fmul_ftz(a: F32, b: F32, ctx: &Context) -> F32 {
    let r = steps::rounding(Round::Rn, true, &ctx.policies);
    ieee::mul(steps::ftz(a), steps::ftz(b), r)
}

/// `FSETP.GEU.AND P, PT, |a|, 2^-126`, negated: `|a| < 2^-126` and `a` is not NaN.
fn is_tiny(a: F32) -> bool {
    !a.is_nan() && a.abs_bits().to_bits() < TINY
}

/// `FSETP.GT.AND P, PT, |a|, 2^126`: false for NaN.
fn is_big(a: F32) -> bool {
    !a.is_nan() && a.abs_bits().to_bits() > BIG
}

/// One f32 MUFU operation on the context's core, noted.
fn mufu<T: Trace>(op: Op, a: F32, core: &dyn Core, t: &mut T) -> F32 {
    t.note(|| Rule::Mufu(op, core.name()));
    core.f32(op, a)
}

/// Evaluates one lane of an f32 approximate instruction; `b` is the divisor of `div`.
pub fn approx_f32<T: Trace>(i: &Instr, a: F32, b: F32, ctx: &Context, t: &mut T) -> F32 {
    let core = ctx.core.get();
    // sm_1x: "Subnormal inputs and results [flushed] to sign-preserving zero" without `.ftz`
    // (policy `sm1x_f32_flush`, docs/semantics.md): the `.ftz` form, the bare MUFU operation.
    let ftz = i.mods.ftz || (ctx.sm1x() && ctx.policies.sm1x_f32_flush);
    let op = match i.opcode {
        Opcode::Rcp => Op::Rcp,
        Opcode::Sqrt => Op::Sqrt,
        Opcode::Rsqrt => Op::Rsq,
        Opcode::Lg2 => Op::Lg2,
        Opcode::Ex2 => Op::Ex2,
        Opcode::Sin => Op::Sin,
        Opcode::Cos => Op::Cos,
        Opcode::Tanh => Op::Tanh,
        _ => return nan_result(div(i, a, b, ftz, ctx, t), ctx, t),
    };
    let d = match op {
        // sin.approx{.ftz}.f32: t = a *rz 0x3e22f983; d = MUFU.SIN(t). ".ftz and non-.ftz
        // produce IDENTICAL code"; the FMUL.RZ does not flush.
        Op::Sin | Op::Cos => {
            let rev = ieee::mul(a, f32c(INV_2PI), Rounding::ieee(Round::Rz));
            mufu(op, rev, core, t)
        }
        Op::Tanh => mufu(op, a, core, t),
        _ if ftz => mufu(op, a, core, t),
        // rcp.approx.f32: s = |a| > 2^126 ? 0.25 : |a| < 2^-126 ? 2^24 : 1.0;
        //                 d = s * MUFU.RCP(a * s)
        Op::Rcp => {
            let s = if is_big(a) {
                t.note(|| Rule::ApproxScaled("|a| > 2^126: RCP(a * 0.25) * 0.25"));
                f32c(QUARTER)
            } else if is_tiny(a) {
                t.note(|| Rule::ApproxScaled("|a| < 2^-126: RCP(a * 2^24) * 2^24"));
                f32c(TWO_24)
            } else {
                F32::one()
            };
            fmul(s, mufu(op, fmul(a, s), core, t))
        }
        // sqrt.approx.f32: if (tiny) a *= 2^24; d = MUFU.SQRT(a); if (tiny) d *= 2^-12
        // rsqrt.approx.f32: if (tiny) a *= 2^24; d = MUFU.RSQ(a);  if (tiny) d *= 2^12
        // lg2.approx.f32:   if (tiny) a *= 2^24; d = MUFU.LG2(a);  if (tiny) d += -24.0
        Op::Sqrt | Op::Rsq | Op::Lg2 if is_tiny(a) => {
            let d = mufu(op, fmul(a, f32c(TWO_24)), core, t);
            match op {
                Op::Sqrt => {
                    t.note(|| Rule::ApproxScaled("|a| < 2^-126: SQRT(a * 2^24) * 2^-12"));
                    fmul(d, f32c(0x3980_0000))
                }
                Op::Rsq => {
                    t.note(|| Rule::ApproxScaled("|a| < 2^-126: RSQ(a * 2^24) * 2^12"));
                    fmul(d, f32c(0x4580_0000))
                }
                _ => {
                    t.note(|| Rule::ApproxScaled("|a| < 2^-126: LG2(a * 2^24) - 24"));
                    ieee::add(d, f32c(0xC1C0_0000), Rounding::ieee(Round::Rn))
                }
            }
        }
        // ex2.approx.f32: small = a < -126.0; if (small) a *= 0.5; d = MUFU.EX2(a);
        //                 if (small) d = d * d
        Op::Ex2 if !a.is_nan() && a.sign() && a.abs_bits().to_bits() > 0x42FC_0000 => {
            t.note(|| Rule::ApproxScaled("a < -126: EX2(a * 0.5) squared"));
            let d = mufu(op, fmul(a, f32c(HALF)), core, t);
            fmul(d, d)
        }
        _ => mufu(op, a, core, t),
    };
    nan_result(d, ctx, t)
}

/// `div.approx` and `div.full`, f32.
fn div<T: Trace>(i: &Instr, a: F32, b: F32, ftz: bool, ctx: &Context, t: &mut T) -> F32 {
    let core = ctx.core.get();
    let (mut a, mut b) = (a, b);
    if i.mods.full && is_big(b) {
        // div.full{.ftz}.f32: if (|b| > 0x1p126) { b *= 0.25; a *= 0.25; }
        t.note(|| Rule::ApproxScaled("|b| > 2^126: a and b scaled by 0.25"));
        let q = f32c(QUARTER);
        (a, b) = if ftz {
            (fmul_ftz(a, q, ctx), fmul_ftz(b, q, ctx))
        } else {
            (fmul(a, q), fmul(b, q))
        };
    }
    if !ftz && is_tiny(b) {
        // div.approx.f32, div.full.f32: if (|b| < 0x1p-126) { b *= 0x1p24; a *= 0x1p24; },
        // tested on the original b (div.full's two scalings are exclusive).
        t.note(|| Rule::ApproxScaled("|b| < 2^-126: a and b scaled by 2^24"));
        let s = f32c(TWO_24);
        (a, b) = (fmul(a, s), fmul(b, s));
    }
    // d = MUFU.RCP(b) * a, FMUL.FTZ under .ftz.
    let r = mufu(Op::Rcp, b, core, t);
    if ftz {
        fmul_ftz(a, r, ctx)
    } else {
        fmul(r, a)
    }
}

/// `rcp.approx.ftz.f64`, `rsqrt.approx.ftz.f64` and `rsqrt.approx.f64`.
pub fn approx_f64<T: Trace>(i: &Instr, a: F64, ctx: &Context, t: &mut T) -> F64 {
    let core = ctx.core.get();
    let hi = (a.to_bits() >> 32) as u32;
    let op = if i.opcode == Opcode::Rcp {
        Op64::Rcp64h
    } else {
        Op64::Rsq64h
    };
    t.note(|| Rule::Mufu64(op, core.name()));
    // PTX ISA 9.7.3.14: "tmp = a[63:32]; d[63:32] = 1.0 / tmp; d[31:0] = 0x00000000;"
    let y = F64::from_bits(u64::from(core.f64_high(op, hi)) << 32);
    if i.mods.ftz {
        return y;
    }
    // rsqrt.approx.f64 (as ptxas compiles it): one second-order correction of the RSQ64H estimate,
    // for a positive normal `a`; any other input takes a slow-path subroutine.
    let rn = Rounding::ieee(Round::Rn);
    let correct = |a: F64, y: F64| {
        let e = ieee::fma(a, ieee::mul(y, y, rn).neg_bits(), F64::one(), rn);
        let p = ieee::fma(e, F64::from_bits(0x3FD8_0000_0000_0000), half64(), rn);
        ieee::fma(p, ieee::mul(y, e, rn), y, rn)
    };
    if (hi.wrapping_sub(0x0010_0000)) < 0x7FE0_0000 {
        t.note(|| Rule::ApproxScaled("one second-order correction of the estimate (DFMA steps)"));
        return correct(a, y);
    }
    t.note(|| Rule::ApproxSlowPath);
    rsqrt_f64_slow_path(a, ctx, |s| {
        let y = F64::from_bits(u64::from(core.f64_high(op, (s.to_bits() >> 32) as u32)) << 32);
        correct(s, y)
    })
}

fn half64() -> F64 {
    F64::from_bits(0x3FE0_0000_0000_0000)
}

/// `__cuda_sm20_drsqrt_f64_slowpath_v2`, which the manual's table pins for special inputs
/// (9.7.3.16): NaN -> NaN, -Inf and negative numbers -> NaN, ±0 -> ±Inf, +Inf -> +0. A positive
/// subnormal is modelled as scaled by 2^54 into the fast path and the result by 2^27 (the
/// subroutine's exact steps are not modelled; docs/mufu.md).
fn rsqrt_f64_slow_path(a: F64, ctx: &Context, fast: impl Fn(F64) -> F64) -> F64 {
    if a.is_nan() {
        return steps::nan_rule(a.quieted(), &ctx.policies);
    }
    if a.is_zero() {
        return F64::infinity(a.sign());
    }
    if a.sign() {
        return F64::canonical_nan();
    }
    if a.is_infinite() {
        return F64::zero(false);
    }
    let rn = Rounding::ieee(Round::Rn);
    let s = ieee::mul(a, F64::from_bits(((1023 + 54) as u64) << 52), rn);
    ieee::mul(fast(s), F64::from_bits(((1023 + 27) as u64) << 52), rn)
}

/// `tanh.approx` and `ex2.approx` on one f16 lane: the bare `MUFU.TANH.F16`/`MUFU.EX2.F16`.
pub fn approx_f16<T: Trace>(i: &Instr, a: F16, ctx: &Context, t: &mut T) -> F16 {
    let op = op16(i);
    t.note(|| Rule::Mufu16(op, ctx.core.get().name()));
    ctx.core.get().f16(op, a)
}

/// `tanh.approx` and `ex2.approx.ftz` on one bf16 lane: the bare `MUFU.TANH.BF16`/`MUFU.EX2.BF16`.
pub fn approx_bf16<T: Trace>(i: &Instr, a: BF16, ctx: &Context, t: &mut T) -> BF16 {
    let op = op16(i);
    t.note(|| Rule::Mufu16(op, ctx.core.get().name()));
    ctx.core.get().bf16(op, a)
}

fn op16(i: &Instr) -> Op16 {
    if i.opcode == Opcode::Ex2 {
        Op16::Ex2
    } else {
        Op16::Tanh
    }
}
