//! Evaluating one instruction over arrays of operands, fast.
//!
//! [`eval_slice`] gives, element for element, exactly what [`crate::ptx::eval()`] gives. Where an
//! instruction has a kernel, the host's floating point computes the result by a method that is
//! exact for it: on a CPU with AVX-512, gpufp-simd's kernels (the operation with static rounding;
//! f16/bf16 through f32 rounded to odd); elsewhere [`narrow`] (f16/bf16/f32 in f64 with
//! round-to-odd) and [`wide`] (f64 from round-to-nearest and error-free transformations), written
//! branch-free so that the loops vectorize. The few elements a kernel cannot decide go to the
//! integer core. Every other instruction is evaluated by the integer core element by element.
//! Tests check every kernel bit for bit against the integer core: per case class and on random
//! operands, and exhaustively for the 16-bit binary formats (`tests/fast.rs`).

pub mod narrow;
pub mod wide;

use crate::format::{Format, BF16, F16, F32};
use crate::ptx::{eval, Context, EvalError, Instr, Opcode, Type};
use crate::round::{Round, Tininess};
use core::fmt;
use core::marker::PhantomData;
use gpufp_dispatch::Job;
pub use gpufp_dispatch::{cap, detected, hardware, Level};

/// Elements per block: a block's operands and flags stay in L1.
const BLOCK: usize = 256;

/// Why [`eval_slice`] stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SliceError {
    /// The operand and result slices do not fit the instruction.
    Shape(String),
    /// Element `index` did not evaluate (the first such element).
    Eval { index: usize, error: EvalError },
}

impl fmt::Display for SliceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SliceError::Shape(m) => f.write_str(m),
            SliceError::Eval { index, error } => write!(f, "element {index}: {error}"),
        }
    }
}

impl std::error::Error for SliceError {}

impl SliceError {
    /// The error of a part that starts at element `start` of a longer slice, for that slice.
    pub fn offset(self, start: usize) -> SliceError {
        match self {
            SliceError::Eval { index, error } => SliceError::Eval {
                index: start + index,
                error,
            },
            shape => shape,
        }
    }
}

/// The kernel that computes an instruction, if one does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    F16(narrow::Op, narrow::Mode),
    Bf16(narrow::Op, narrow::Mode),
    F32(narrow::Op, narrow::Mode),
    F64(wide::Op, wide::Mode),
}

impl Kernel {
    /// The kernel for `i` in `ctx`, or `None` where only the integer core evaluates it: packed
    /// types, approximate instructions, `sm_1x` `mad.f32`, and tininess policies other than the
    /// default.
    pub fn for_instr(i: &Instr, ctx: &Context) -> Option<Kernel> {
        let m = i.mods;
        let p = &ctx.policies;
        if m.approx || m.full || i.inputs != i.opcode.default_inputs() {
            return None;
        }
        let round = m.rnd.unwrap_or(Round::Rn);
        let lane = i.ty;
        let sm1x_flush = lane == Type::F32 && ctx.sm1x() && p.sm1x_f32_flush && !m.ftz;
        let ftz = m.ftz || sm1x_flush;
        if lane == Type::F64 {
            let op = match i.opcode {
                Opcode::Add => wide::ADD,
                Opcode::Sub => wide::SUB,
                Opcode::Mul => wide::MUL,
                Opcode::Fma | Opcode::Mad => wide::FMA,
                Opcode::Div => wide::DIV,
                Opcode::Rcp => wide::RCP,
                Opcode::Sqrt => wide::SQRT,
                _ => return None,
            };
            if ftz || m.sat || m.relu || m.oob {
                return None;
            }
            return Some(Kernel::F64(op, wide::Mode::new(round)));
        }
        let op = match i.opcode {
            Opcode::Add => narrow::ADD,
            Opcode::Sub => narrow::SUB,
            Opcode::Mul => narrow::MUL,
            Opcode::Fma => narrow::FMA,
            // `mad.f32` without a rounding modifier on sm_1x truncates the product.
            Opcode::Mad if !(lane == Type::F32 && ctx.sm1x() && m.rnd.is_none()) => narrow::FMA,
            _ => return None,
        };
        if ftz && p.ftz_tininess != Tininess::UnboundedRounded {
            return None;
        }
        let half = matches!(lane, Type::F16 | Type::Bf16);
        let mode = narrow::Mode::new(round, ftz, m.sat, m.relu, m.oob && half, p);
        match lane {
            Type::F32 => Some(Kernel::F32(op, mode)),
            Type::F16 => Some(Kernel::F16(op, mode)),
            Type::Bf16 => Some(Kernel::Bf16(op, mode)),
            _ => None,
        }
    }

    /// The AVX-512 kernel of [`gpufp_simd`] that computes the same results.
    fn simd(self) -> gpufp_simd::Kernel {
        use gpufp_simd::{Format, Op, Rounding, Steps};
        let rounding = |code: u8| match code {
            0 => Rounding::Nearest,
            1 => Rounding::TowardZero,
            2 => Rounding::Down,
            _ => Rounding::Up,
        };
        let narrow = |format, op, m: narrow::Mode| gpufp_simd::Kernel {
            format,
            op: match op {
                narrow::ADD => Op::Add,
                narrow::SUB => Op::Sub,
                narrow::MUL => Op::Mul,
                _ => Op::Fma,
            },
            rounding: rounding(m.round_code()),
            steps: Steps {
                ftz: m.ftz,
                sat: m.sat,
                relu: m.relu,
                relu_keeps_negative_zero: m.relu_keeps_negative_zero,
                oob: m.oob,
            },
        };
        match self {
            Kernel::F16(op, m) => narrow(Format::F16, op, m),
            Kernel::Bf16(op, m) => narrow(Format::Bf16, op, m),
            Kernel::F32(op, m) => narrow(Format::F32, op, m),
            Kernel::F64(op, m) => gpufp_simd::Kernel {
                format: Format::F64,
                op: match op {
                    wide::ADD => Op::Add,
                    wide::SUB => Op::Sub,
                    wide::MUL => Op::Mul,
                    wide::FMA => Op::Fma,
                    wide::DIV => Op::Div,
                    wide::RCP => Op::Rcp,
                    _ => Op::Sqrt,
                },
                rounding: rounding(m.round_code()),
                steps: Steps::default(),
            },
        }
    }
}

/// Evaluates `i` on every element: `out[k] = eval(i, [ops[0][k], ops[1][k], ...], ctx)`.
///
/// `ops` holds one slice per source operand, each as long as `out`. On an element that does not
/// evaluate, stops with its index; the elements before it are computed. The kernels run compiled
/// for the best SIMD level of the CPU ([`gpufp_dispatch`]; gpufp-simd at AVX-512).
pub fn eval_slice(
    i: &Instr,
    ops: &[&[u64]],
    ctx: &Context,
    out: &mut [u64],
) -> Result<(), SliceError> {
    eval_slice_at(Level::V4, i, ops, ctx, out)
}

/// [`eval_slice`] over words of the operands' width (`u16` for f16 and bf16, `u32` for f32),
/// read and written as they are by an AVX-512 kernel; `None`, computing nothing, where no such
/// kernel computes `i` on this CPU (the caller widens the words to `u64` for [`eval_slice`]).
/// The elements a kernel leaves go to the integer core, as in [`eval_slice`].
pub fn eval_words_simd<T>(
    i: &Instr,
    ops: &[&[T]],
    ctx: &Context,
    out: &mut [T],
) -> Option<Result<(), SliceError>>
where
    T: gpufp_simd::Word + Into<u64> + TryFrom<u64>,
{
    if detected() != Level::V4
        || ops.len() != usize::from(i.inputs)
        || ops.iter().any(|s| s.len() != out.len())
    {
        return None;
    }
    let k = Kernel::for_instr(i, ctx)?.simd();
    let mut fallback = Vec::new();
    if !k.run_words(ops, out, &mut fallback) {
        return None;
    }
    Some(core_at(i, ops, ctx, 0, out, fallback))
}

/// [`eval_slice`] with the kernels compiled for `level` (or the best level of the CPU, if lower):
/// for tests and benchmarks of each level.
pub fn eval_slice_at(
    level: Level,
    i: &Instr,
    ops: &[&[u64]],
    ctx: &Context,
    out: &mut [u64],
) -> Result<(), SliceError> {
    if ops.len() != usize::from(i.inputs) {
        return Err(SliceError::Shape(format!(
            "`{i}` takes {} operands, got {} slices",
            i.inputs,
            ops.len()
        )));
    }
    if let Some(s) = ops.iter().find(|s| s.len() != out.len()) {
        return Err(SliceError::Shape(format!(
            "operand slice of {} elements for {} results",
            s.len(),
            out.len()
        )));
    }
    let kernel = Kernel::for_instr(i, ctx);
    if level.min(detected()) == Level::V4 {
        if let Some(k) = kernel.map(Kernel::simd) {
            let mut fallback = Vec::new();
            if k.run(ops, out, &mut fallback) {
                return core_at(i, ops, ctx, 0, out, fallback);
            }
        }
    }
    gpufp_dispatch::run_at(
        level,
        Slice {
            i,
            ops,
            ctx,
            out,
            kernel,
        },
    )
}

/// Evaluates with the integer core the elements `start + j` for `j` in `indices` (increasing),
/// into `out`, the results from element `start` on.
fn core_at<T: Copy + Into<u64> + TryFrom<u64>>(
    i: &Instr,
    ops: &[&[T]],
    ctx: &Context,
    start: usize,
    out: &mut [T],
    indices: impl IntoIterator<Item = usize>,
) -> Result<(), SliceError> {
    for j in indices {
        let index = start + j;
        let x = [0, 1, 2].map(|k| ops.get(k).map_or(0, |s| s[index].into()));
        let r = eval(i, &x[..ops.len()], ctx).map_err(|error| SliceError::Eval { index, error })?;
        // A result has the operands' width, which the words hold.
        out[j] = T::try_from(r).map_err(|_| {
            SliceError::Shape(format!("element {index}: a result wider than its words"))
        })?;
    }
    Ok(())
}

/// One [`eval_slice`] call, compiled per SIMD level.
struct Slice<'a> {
    i: &'a Instr,
    ops: &'a [&'a [u64]],
    ctx: &'a Context,
    out: &'a mut [u64],
    kernel: Option<Kernel>,
}

/// A kernel for one element: the result bits, and whether the integer core must decide it.
trait Element {
    fn apply(&self, a: u64, b: u64, c: u64) -> (u64, bool);
}

struct Narrow<F, const OP: u8, const RND: u8, const FLAGS: u8>(narrow::Mode, PhantomData<F>);

impl<F: Format, const OP: u8, const RND: u8, const FLAGS: u8> Element
    for Narrow<F, OP, RND, FLAGS>
{
    #[inline(always)]
    fn apply(&self, a: u64, b: u64, c: u64) -> (u64, bool) {
        narrow::eval::<F, OP, RND, FLAGS>(&self.0, a, b, c)
    }
}

struct Wide<const OP: u8, const RND: u8, const HW_FMA: bool>(wide::Mode);

impl<const OP: u8, const RND: u8, const HW_FMA: bool> Element for Wide<OP, RND, HW_FMA> {
    #[inline(always)]
    fn apply(&self, a: u64, b: u64, c: u64) -> (u64, bool) {
        wide::eval::<OP, RND, HW_FMA>(&self.0, a, b, c)
    }
}

/// No kernel: every element to the core.
struct Core;

impl Element for Core {
    #[inline(always)]
    fn apply(&self, _: u64, _: u64, _: u64) -> (u64, bool) {
        (0, true)
    }
}

/// Matches a runtime code against constants and evaluates `$body` with `$k` the matching one,
/// a constant: one compiled kernel per value.
macro_rules! select {
    ($code:expr, [$($c:tt),*], |$k:ident| $body:expr) => {
        match $code {
            $($c => {
                const $k: u8 = $c;
                $body
            })*
            code => unreachable!("kernel code {code}"),
        }
    };
}

#[inline(always)]
fn narrow_op<F: Format>(s: Slice<'_>, op: u8, m: narrow::Mode) -> Result<(), SliceError> {
    use narrow::{ADD, FMA, MUL, SUB};
    select!(op, [ADD, SUB, MUL, FMA], |OP| narrow_rnd::<F, OP>(s, m))
}

#[inline(always)]
fn narrow_rnd<F: Format, const OP: u8>(s: Slice<'_>, m: narrow::Mode) -> Result<(), SliceError> {
    select!(
        m.round_code(),
        [0, 1, 2, 3],
        |RND| narrow_flags::<F, OP, RND>(s, m)
    )
}

#[inline(always)]
fn narrow_flags<F: Format, const OP: u8, const RND: u8>(
    s: Slice<'_>,
    m: narrow::Mode,
) -> Result<(), SliceError> {
    select!(m.flag_code(), [0, 1, 2, 3, 4, 5, 6, 7], |FLAGS| {
        narrow_drive::<F, OP, RND, FLAGS>(s, m)
    })
}

#[inline(always)]
fn narrow_drive<F: Format, const OP: u8, const RND: u8, const FLAGS: u8>(
    s: Slice<'_>,
    m: narrow::Mode,
) -> Result<(), SliceError> {
    let k = Narrow::<F, OP, RND, FLAGS>(m, PhantomData);
    drive(s.i, s.ops, s.ctx, s.out, k)
}

#[inline(always)]
fn wide_op<const HW_FMA: bool>(s: Slice<'_>, op: u8, m: wide::Mode) -> Result<(), SliceError> {
    use wide::{ADD, DIV, FMA, MUL, RCP, SQRT, SUB};
    select!(op, [ADD, SUB, MUL, FMA, DIV, RCP, SQRT], |OP| wide_rnd::<
        HW_FMA,
        OP,
    >(s, m))
}

#[inline(always)]
fn wide_rnd<const HW_FMA: bool, const OP: u8>(
    s: Slice<'_>,
    m: wide::Mode,
) -> Result<(), SliceError> {
    select!(m.round_code(), [0, 1, 2, 3], |RND| wide_drive::<
        HW_FMA,
        OP,
        RND,
    >(s, m))
}

#[inline(always)]
fn wide_drive<const HW_FMA: bool, const OP: u8, const RND: u8>(
    s: Slice<'_>,
    m: wide::Mode,
) -> Result<(), SliceError> {
    drive(s.i, s.ops, s.ctx, s.out, Wide::<OP, RND, HW_FMA>(m))
}

impl Job for Slice<'_> {
    type Output = Result<(), SliceError>;

    #[inline(always)]
    fn run<const HW_FMA: bool>(self) -> Self::Output {
        match self.kernel {
            Some(Kernel::F32(op, m)) => narrow_op::<F32>(self, op, m),
            Some(Kernel::F16(op, m)) => narrow_op::<F16>(self, op, m),
            Some(Kernel::Bf16(op, m)) => narrow_op::<BF16>(self, op, m),
            Some(Kernel::F64(op, m)) => wide_op::<HW_FMA>(self, op, m),
            None => drive(self.i, self.ops, self.ctx, self.out, Core),
        }
    }
}

/// Runs `kernel` block by block, then the integer core on the elements it flagged.
#[inline(always)]
fn drive(
    i: &Instr,
    ops: &[&[u64]],
    ctx: &Context,
    out: &mut [u64],
    kernel: impl Element,
) -> Result<(), SliceError> {
    let zeros = [0u64; BLOCK];
    let mut flags = [false; BLOCK];
    for (n, chunk) in out.chunks_mut(BLOCK).enumerate() {
        let start = n * BLOCK;
        let len = chunk.len();
        let operand = |k: usize| ops.get(k).map_or(&zeros[..len], |s| &s[start..start + len]);
        let (a, b, c) = (operand(0), operand(1), operand(2));
        let (a, b, c) = (&a[..len], &b[..len], &c[..len]);
        let flags = &mut flags[..len];
        let mut any = false;
        for j in 0..len {
            let (r, fallback) = kernel.apply(a[j], b[j], c[j]);
            chunk[j] = r;
            flags[j] = fallback;
            any |= fallback;
        }
        if any {
            let flagged = (0..len).filter(|&j| flags[j]);
            core_at(i, ops, ctx, start, chunk, flagged)?;
        }
    }
    Ok(())
}
