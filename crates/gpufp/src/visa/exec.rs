//! Executing `MIN_MAX` on a [`State`]:
//! ```text
//! for (i = 0; < exec_size; ++i) {
//!   if (ChEn[i]) {
//!     dst[i] = min/max(src0[i], src1[i]);
//!   }
//! }
//! ```
//! Channel `i` is enabled when the mask control is NoMask or bit `4 * group + i` of the execution
//! mask is set; disabled channels keep their destination value.

use super::state::{State, CR0_DF_DENORM, CR0_F_DENORM, CR0_HF_DENORM};
use super::{MinMax, Op, Operand, SrcMod, VType};
use crate::format::{Format, F16, F32, F64};
use crate::ieee;
use crate::policy::{Policies, VisaEqualOperands};
use crate::round::{Round, Rounding};

/// A source element: its type and bits.
#[derive(Clone, Copy, Debug)]
struct Value {
    ty: VType,
    bits: u64,
}

/// Integer value of `bits` read as type `ty`, widened (sign- or zero-extended).
fn int_value(v: Value) -> i128 {
    let w = 8 * v.ty.size() as u32;
    let masked = if w == 64 {
        v.bits
    } else {
        v.bits & ((1 << w) - 1)
    };
    if v.ty.is_signed() && masked >> (w - 1) & 1 == 1 {
        i128::from(masked) - (1i128 << w)
    } else {
        i128::from(masked)
    }
}

/// An integer source modifier on the widened value, so `-(INT_MIN)` does not wrap (§6).
fn int_modifier(x: i128, m: SrcMod) -> i128 {
    match m {
        SrcMod::None => x,
        SrcMod::Abs => x.abs(),
        SrcMod::Neg => -x,
        SrcMod::NegAbs => -x.abs(),
    }
}

/// A float source modifier: a sign-bit operation (NaN payloads kept).
fn float_modifier(v: Value, m: SrcMod) -> Value {
    let sign = 1u64 << (8 * v.ty.size() - 1);
    let bits = match m {
        SrcMod::None => v.bits,
        SrcMod::Abs => v.bits & !sign,
        SrcMod::Neg => v.bits ^ sign,
        SrcMod::NegAbs => v.bits | sign,
    };
    Value { bits, ..v }
}

/// Float operands and result in one format: convert, flush per `%cr0`, compare, pick.
fn float_min_max<F: Format>(op: Op, a: Value, b: Value, cr0: u32, equal: VisaEqualOperands) -> F {
    let (x, y) = (to_format::<F>(a, cr0), to_format::<F>(b, cr0));
    // "if one of the numbers is NaN and the other is not, MIN or MAX of the two numbers returns
    // the one that is not NaN. When both numbers are NaN, MIN or MAX of the two numbers returns
    // source1."
    match (x.is_nan(), y.is_nan()) {
        (true, _) => return y,
        (false, true) => return x,
        _ => {}
    }
    let VisaEqualOperands::CompareTieRule = equal;
    // min is `sel.l` (src0 < src1 ? src0 : src1), max is `sel.ge` (src0 >= src1 ? src0 : src1).
    let lt = ieee_less(x, y);
    let pick_x = match op {
        Op::Min => lt,
        Op::Max => !lt,
    };
    if pick_x {
        x
    } else {
        y
    }
}

/// IEEE `x < y` for non-NaN values (`-0 == +0`).
fn ieee_less<F: Format>(x: F, y: F) -> bool {
    if x.is_zero() && y.is_zero() {
        return false;
    }
    match (x.sign(), y.sign()) {
        (true, false) => true,
        (false, true) => false,
        (false, false) => x.to_bits() < y.to_bits(),
        (true, true) => x.to_bits() > y.to_bits(),
    }
}

fn denorm_allowed(ty: VType, cr0: u32) -> bool {
    let bit = match ty {
        VType::HF => CR0_HF_DENORM,
        VType::F => CR0_F_DENORM,
        _ => CR0_DF_DENORM,
    };
    cr0 & bit != 0
}

/// A float source in format `F` (exact widening, or the same format), its denormal flushed
/// when `%cr0` does not allow that type's denormals.
fn to_format<F: Format>(v: Value, cr0: u32) -> F {
    let r = Rounding::ieee(Round::Rn);
    let flush = !denorm_allowed(v.ty, cr0);
    if 8 * v.ty.size() as u32 == F::BITS {
        // The same format: the bits as they are (a NaN keeps its payload).
        return flush_if(F::from_bits(v.bits), flush);
    }
    match v.ty {
        VType::HF => ieee::convert(flush_if(F16::from_bits(v.bits), flush), r),
        VType::F => ieee::convert(flush_if(F32::from_bits(v.bits), flush), r),
        _ => ieee::convert(flush_if(F64::from_bits(v.bits), flush), r),
    }
}

fn flush_if<F: Format>(x: F, flush: bool) -> F {
    if flush && x.is_subnormal() {
        F::zero(x.sign())
    } else {
        x
    }
}

/// The widest of two float types: the compare happens there, exactly.
fn wider(a: VType, b: VType) -> VType {
    if a == VType::DF || b == VType::DF {
        VType::DF
    } else if a == VType::F || b == VType::F {
        VType::F
    } else {
        VType::HF
    }
}

/// A float result in the destination's type (rounded to nearest if narrower), `.sat` applied:
/// "[0, 1] with NaN -> 0".
fn float_to_dst<F: Format>(x: F, dst: VType, sat: bool) -> u64 {
    let x = if sat { crate::steps::saturate(x) } else { x };
    if 8 * dst.size() as u32 == F::BITS {
        return x.to_bits();
    }
    let r = Rounding::ieee(Round::Rn);
    match dst {
        VType::HF => ieee::convert::<F, F16>(x, r).to_bits(),
        VType::F => ieee::convert::<F, F32>(x, r).to_bits(),
        _ => ieee::convert::<F, F64>(x, r).to_bits(),
    }
}

/// One channel: min/max of two source elements, as the destination type's bits.
fn channel(
    i: &MinMax,
    a: Value,
    b: Value,
    dst: VType,
    state: &State,
    p: &Policies,
) -> Result<u64, String> {
    let float = [a.ty, b.ty, dst].map(VType::is_float);
    if float.iter().any(|f| *f) != float.iter().all(|f| *f) {
        return Err("MIN_MAX cannot mix integer and floating-point operands".into());
    }
    let (m0, m1) = (i.src0.modifier(), i.src1.modifier());
    if float[0] {
        let (a, b) = (float_modifier(a, m0), float_modifier(b, m1));
        let eq = p.visa_equal_operands;
        return Ok(match wider(a.ty, b.ty) {
            VType::HF => float_to_dst(float_min_max::<F16>(i.op, a, b, state.cr0, eq), dst, i.sat),
            VType::F => float_to_dst(float_min_max::<F32>(i.op, a, b, state.cr0, eq), dst, i.sat),
            _ => float_to_dst(float_min_max::<F64>(i.op, a, b, state.cr0, eq), dst, i.sat),
        });
    }
    let (x, y) = (
        int_modifier(int_value(a), m0),
        int_modifier(int_value(b), m1),
    );
    let d = match i.op {
        Op::Min => x.min(y),
        Op::Max => x.max(y),
    };
    let (lo, hi) = dst.int_range();
    let d = if i.sat { d.clamp(lo, hi) } else { d };
    // Without `.sat` the result wraps to the destination's width.
    Ok((d as u128 as u64)
        & if dst.size() == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * dst.size())) - 1
        })
}

/// The byte address of channel `k` of an indirect operand (IGC vISA bytecode
/// reader/disassembler, 1x1 indirect addressing): `A<addr>[addr_offset] + offset` is the
/// operand's base, and the region steps from there in elements of the operand's own type.
fn indirect_address(
    state: &State,
    addr: u16,
    addr_offset: u8,
    offset: i16,
    ty: super::VType,
    region: super::Region,
    k: usize,
) -> Result<i64, String> {
    let base = i64::from(state.address(addr, usize::from(addr_offset))?) + i64::from(offset);
    Ok(base + (region.element(k) * ty.size()) as i64)
}

/// Element `k` of a source operand; `name` (`src0`, `src1`) labels errors.
fn source(o: &Operand, name: &str, k: usize, state: &State) -> Result<Value, String> {
    match *o {
        Operand::Imm { ty, bits } => Ok(Value { ty, bits }),
        Operand::General {
            id,
            row,
            col,
            region,
            ..
        } => {
            let ty = state.var_type(id)?;
            let index = state.origin(id, row, col)? + region.element(k);
            Ok(Value {
                ty,
                bits: state.read(id, index)?,
            })
        }
        Operand::Indirect {
            addr,
            addr_offset,
            offset,
            ty,
            region,
            ..
        } => {
            let at = indirect_address(state, addr, addr_offset, offset, ty, region, k)
                .map_err(|e| format!("{name} {o}: {e}"))?;
            let bits = state
                .read_at(at, ty.size())
                .map_err(|e| format!("{name} {o}, channel {k}: {e}"))?;
            Ok(Value { ty, bits })
        }
    }
}

/// Executes one instruction under `policies` (the tie rule of policy `visa_equal_operands`).
pub fn execute(i: &MinMax, state: &mut State, policies: &Policies) -> Result<(), String> {
    let dst_ty = match i.dst {
        Operand::General { id, .. } => state.var_type(id)?,
        Operand::Indirect { ty, .. } => ty,
        Operand::Imm { .. } => return Err("the destination must be a variable".into()),
    };
    let first = usize::from(i.mask.group) * 4;
    if first + usize::from(i.exec_size) > 32 {
        return Err(format!(
            "M{} with exec size {} runs past channel 31",
            i.mask.group + 1,
            i.exec_size
        ));
    }
    for k in 0..usize::from(i.exec_size) {
        let enabled = i.mask.no_mask || state.exec_mask >> (first + k) & 1 == 1;
        if !enabled {
            continue;
        }
        let a = source(&i.src0, "src0", k, state)?;
        let b = source(&i.src1, "src1", k, state)?;
        let d = channel(i, a, b, dst_ty, state, policies)?;
        write_dst(i, k, d, state)?;
    }
    Ok(())
}

/// Writes channel `k` of the destination.
fn write_dst(i: &MinMax, k: usize, d: u64, state: &mut State) -> Result<(), String> {
    match i.dst {
        Operand::General {
            id,
            row,
            col,
            region,
            ..
        } => {
            let index = state.origin(id, row, col)? + region.element(k);
            state.write(id, index, d)
        }
        Operand::Indirect {
            addr,
            addr_offset,
            offset,
            ty,
            region,
            ..
        } => {
            let at = indirect_address(state, addr, addr_offset, offset, ty, region, k)
                .map_err(|e| format!("dst {}: {e}", i.dst))?;
            state
                .write_at(at, ty.size(), d)
                .map_err(|e| format!("dst {}, channel {k}: {e}", i.dst))
        }
        Operand::Imm { .. } => Err("the destination must be a variable".into()),
    }
}
