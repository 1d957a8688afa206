//! AVX-512 kernels for gpufp's fast paths: the host's IEEE 754 `add`, `sub`, `mul`, `fma`, `div`
//! and `sqrt` with the rounding direction encoded in the instruction (embedded rounding, `{er}`),
//! so that every PTX rounding modifier runs at the speed of the plain operation.
//!
//! - **f32**: the operation in the instruction's direction is the IEEE 754 result PTX specifies
//!   (gradual underflow, overflow per direction); the PTX steps ([`Steps`]) are applied lane-wise.
//! - **f16, bf16**: the operands widen exactly to f32 and the operation runs three times, toward
//!   zero, down and up. The result toward zero with its last bit set where down and up differ is
//!   the exact result rounded *to odd* at f32's precision (and on its subnormal grid, 16 bits
//!   finer than either format's), which rounds to a format of at most 24 - 2 bits in any
//!   direction as the exact result does (Boldo and Melquiond, "Emulation of FMA and correctly
//!   rounded sums: proved algorithms using rounding to odd", IEEE TC 2008): by `vcvtps2ph` with
//!   the direction for f16, by integer rounding of the high half for bf16. An f16 product is exact
//!   in f32 and needs one multiplication.
//! - **f64**: the operation in the instruction's direction; NaN results (payload rules) are left
//!   to the caller.
//!
//! The caller (gpufp's `fast` module) checks these kernels bit for bit against gpufp's integer
//! core. They assume the default MXCSR (no flush-to-zero, no denormals-are-zero), as Rust code
//! does; the rounding-control bits do not matter.
//!
//! `unsafe` here: the loads and stores of 64-byte vectors from arrays of known length, and one
//! call into code compiled for AVX-512F and AVX-512DQ, guarded by run-time detection.
#![deny(unsafe_op_in_unsafe_fn)]

/// A floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    F16,
    Bf16,
    F32,
    F64,
}

/// An operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    /// `a * b + c`, rounded once.
    Fma,
    Div,
    /// `1 / a`.
    Rcp,
    Sqrt,
}

impl Op {
    /// The number of operands.
    pub fn inputs(self) -> usize {
        match self {
            Op::Rcp | Op::Sqrt => 1,
            Op::Fma => 3,
            _ => 2,
        }
    }
}

/// A rounding direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// To nearest, ties to even.
    Nearest,
    TowardZero,
    /// Toward negative infinity.
    Down,
    /// Toward positive infinity.
    Up,
}

/// The PTX steps around an f16, bf16 or f32 operation (PTX ISA 9.7.3.3-9.7.3.6, 9.7.4.1-9.7.4.4),
/// in the order PTX applies them: `.oob` operands, `.ftz` operands, the operation, NaN to the
/// canonical NaN, `.ftz` result, `.sat`, `.relu`, `.oob` result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Steps {
    /// Subnormal operands become zeros of their sign, and so does a result that is tiny after
    /// rounding with an unbounded exponent (gpufp's default `ftz_tininess`).
    pub ftz: bool,
    /// Clamp to `[+0.0, 1.0]`; NaN and `-0.0` become `+0.0`.
    pub sat: bool,
    /// A negative result becomes `+0.0`; NaN stays the canonical NaN.
    pub relu: bool,
    /// Under `.relu`, `-0.0` stays `-0.0`.
    pub relu_keeps_negative_zero: bool,
    /// `.oob`: the result is `+0.0` where an operand has these bits.
    pub oob: Option<u64>,
}

/// One instruction's kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel {
    pub format: Format,
    pub op: Op,
    pub rounding: Rounding,
    pub steps: Steps,
}

/// The words a kernel reads and writes, each holding one value's bits in its low bits: `u64`
/// (every format), `u32` (f16, bf16, f32), `u16` (f16, bf16).
pub trait Word: Copy + Default + sealed::Sealed {
    /// The words as `u64`s, where they are.
    fn as_u64(s: &[Self]) -> Option<&[u64]>;
    fn as_u64_mut(s: &mut [Self]) -> Option<&mut [u64]>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

impl Word for u16 {
    fn as_u64(_: &[Self]) -> Option<&[u64]> {
        None
    }
    fn as_u64_mut(_: &mut [Self]) -> Option<&mut [u64]> {
        None
    }
}

impl Word for u32 {
    fn as_u64(_: &[Self]) -> Option<&[u64]> {
        None
    }
    fn as_u64_mut(_: &mut [Self]) -> Option<&mut [u64]> {
        None
    }
}

impl Word for u64 {
    fn as_u64(s: &[Self]) -> Option<&[u64]> {
        Some(s)
    }
    fn as_u64_mut(s: &mut [Self]) -> Option<&mut [u64]> {
        Some(s)
    }
}

/// Whether this CPU runs the kernels (AVX-512F and AVX-512DQ).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    let yes = std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512dq");
    #[cfg(not(target_arch = "x86_64"))]
    let yes = false;
    yes
}

impl Kernel {
    /// Whether this crate has the kernel: `add`, `sub`, `mul`, `fma` on f16, bf16 and f32 with
    /// any steps; every operation on f64 without steps.
    pub fn supported(&self) -> bool {
        match self.format {
            Format::F64 => self.steps == Steps::default(),
            _ => matches!(self.op, Op::Add | Op::Sub | Op::Mul | Op::Fma),
        }
    }

    /// Computes `out[k]` from `ops[0][k]`, `ops[1][k]`, ... (each value's bits in the low bits of
    /// a `u64`), and appends to `fallback`, in increasing order, the indices of the elements it
    /// leaves to the caller, whose `out` is unspecified: an operand with bits above the format's
    /// width, an f64 NaN result, and an f32 `mul`/`fma` `.ftz` result of magnitude 2^-126
    /// (whether its exact value is tiny needs more bits than the result has).
    ///
    /// Returns `false`, computing nothing, where the CPU lacks AVX-512F or DQ or the kernel is not
    /// [`supported`](Kernel::supported). Panics if `ops` has fewer slices than the operation has
    /// operands, or one of them is not as long as `out`.
    pub fn run(&self, ops: &[&[u64]], out: &mut [u64], fallback: &mut Vec<usize>) -> bool {
        self.run_words(ops, out, fallback)
    }

    /// [`Kernel::run`] over words of another width, read and written as they are: `u32` for
    /// f16, bf16 and f32, `u16` for f16 and bf16, `u64` for every format. Returns `false`,
    /// computing nothing, where the words are narrower than the format or the format is f64 and
    /// the words are not `u64`, as well as where [`Kernel::run`] does.
    pub fn run_words<T: Word>(
        &self,
        ops: &[&[T]],
        out: &mut [T],
        fallback: &mut Vec<usize>,
    ) -> bool {
        let bits = 8 * core::mem::size_of::<T>();
        let fits = match self.format {
            Format::F64 => bits == 64,
            Format::F32 => bits >= 32,
            _ => true,
        };
        if !fits || !self.supported() || !available() {
            return false;
        }
        let n = self.op.inputs();
        assert!(
            ops.len() >= n && ops[..n].iter().all(|s| s.len() == out.len()),
            "{n} operand slices of {} elements needed",
            out.len()
        );
        // An operation ignores the slices past its operands: any of the right length will do.
        let operand = |k: usize| if k < n { ops[k] } else { ops[0] };
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `available` checked AVX-512F and DQ, the features `x86::run` enables.
        unsafe {
            x86::run(self, [operand(0), operand(1), operand(2)], out, fallback);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (operand, fallback);
        true
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Format, Kernel, Op, Rounding, Steps, Word};
    use core::arch::x86_64::*;
    use core::mem::size_of;

    const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    const ZERO: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
    const DOWN: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
    const UP: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;

    /// Formats and operations as const parameters.
    const F16: u8 = 0;
    const BF16: u8 = 1;
    const F32: u8 = 2;
    const ADD: u8 = 0;
    const SUB: u8 = 1;
    const MUL: u8 = 2;
    const FMA: u8 = 3;
    const DIV: u8 = 4;
    const RCP: u8 = 5;
    const SQRT: u8 = 6;
    /// The steps a narrow kernel is compiled for: `.ftz`, `.sat`, and `.relu` or `.oob` (read
    /// from [`Steps`]).
    const FTZ: u8 = 1;
    const SAT: u8 = 2;
    const EXTRA: u8 = 4;

    /// Evaluates `$body` with `$c` a constant equal to the runtime value's code: one compiled
    /// kernel per value.
    macro_rules! select {
        ($v:expr, $ty:ty, [$($p:pat => $k:expr),*], |$c:ident| $body:expr) => {
            match $v {
                $($p => {
                    const $c: $ty = $k;
                    $body
                })*
            }
        };
    }

    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) fn run<T: Word>(k: &Kernel, ops: [&[T]; 3], out: &mut [T], fb: &mut Vec<usize>) {
        use Rounding::*;
        let r = k.rounding;
        select!(r, i32, [Nearest => NEAREST, TowardZero => ZERO, Down => DOWN, Up => UP], |R| {
            if k.format == Format::F64 {
                // `run_words` passes f64 kernels `u64` words only.
                let (Some(a), Some(b), Some(c), Some(out)) = (
                    T::as_u64(ops[0]),
                    T::as_u64(ops[1]),
                    T::as_u64(ops[2]),
                    T::as_u64_mut(out),
                ) else {
                    return;
                };
                let ops = [a, b, c];
                select!(k.op, u8, [
                    Op::Add => ADD, Op::Sub => SUB, Op::Mul => MUL, Op::Fma => FMA,
                    Op::Div => DIV, Op::Rcp => RCP, Op::Sqrt => SQRT
                ], |OP| wide::<OP, R>(ops, out, fb))
            } else {
                let op = match k.op {
                    Op::Add => ADD,
                    Op::Sub => SUB,
                    Op::Mul => MUL,
                    _ => FMA,
                };
                let st = &k.steps;
                let bit = |on: bool, b: u8| if on { b } else { 0 };
                let extra = st.relu || st.oob.is_some();
                let flags = bit(st.ftz, FTZ) | bit(st.sat, SAT) | bit(extra, EXTRA);
                select!(op, u8, [ADD => ADD, SUB => SUB, MUL => MUL, _ => FMA], |OP| {
                    let f = k.format;
                    select!(f, u8, [Format::F16 => F16, Format::Bf16 => BF16, _ => F32], |FMT| {
                        select!(flags, u8, [
                            0 => 0, 1 => 1, 2 => 2, 3 => 3, 4 => 4, 5 => 5, 6 => 6, _ => 7
                        ], |FLAGS| narrow::<FMT, OP, R, FLAGS, T>(st, ops, out, fb))
                    })
                })
            }
        })
    }

    /// Appends the indices `base + i` of the set bits `i < len` of `mask`.
    #[inline]
    fn push(fb: &mut Vec<usize>, base: usize, mask: u32, len: usize) {
        let mut m = mask & (u32::MAX >> (32 - len));
        while m != 0 {
            fb.push(base + m.trailing_zeros() as usize);
            m &= m - 1;
        }
    }

    /// 16 words as 32-bit lanes, and the lanes whose word has bits above `width` (16 or 32),
    /// for the caller to report.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn load16<T: Word>(s: &[T; 16], width: u32) -> (__m512i, u16) {
        let p = s.as_ptr();
        match size_of::<T>() {
            8 => {
                // SAFETY: `s` holds 16 u64: the two unaligned 64-byte loads stay inside it.
                let (lo, hi) = unsafe {
                    let p = p.cast::<i64>();
                    (_mm512_loadu_epi64(p), _mm512_loadu_epi64(p.add(8)))
                };
                let high = _mm512_set1_epi64(!((1i64 << width) - 1));
                let wide = u16::from(_mm512_test_epi64_mask(lo, high))
                    | u16::from(_mm512_test_epi64_mask(hi, high)) << 8;
                let v = _mm512_inserti64x4::<1>(
                    _mm512_castsi256_si512(_mm512_cvtepi64_epi32(lo)),
                    _mm512_cvtepi64_epi32(hi),
                );
                (v, wide)
            }
            4 => {
                // SAFETY: `s` holds 16 u32: the unaligned 64-byte load stays inside it.
                let v = unsafe { _mm512_loadu_si512(p.cast()) };
                let wide = if width < 32 {
                    _mm512_test_epi32_mask(v, set1(!((1u32 << width) - 1)))
                } else {
                    0
                };
                (v, wide)
            }
            _ => {
                // SAFETY: `s` holds 16 u16: the unaligned 32-byte load stays inside it.
                let v = unsafe { _mm256_loadu_si256(p.cast()) };
                (_mm512_cvtepu16_epi32(v), 0)
            }
        }
    }

    /// Stores 16 32-bit lanes as words (zero-extended or truncated to the word).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn store16<T: Word>(d: &mut [T; 16], v: __m512i) {
        let p = d.as_mut_ptr();
        match size_of::<T>() {
            8 => {
                let lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(v));
                let hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(v));
                // SAFETY: `d` holds 16 u64: the two unaligned 64-byte stores stay inside it.
                unsafe {
                    let p = p.cast::<i64>();
                    _mm512_storeu_epi64(p, lo);
                    _mm512_storeu_epi64(p.add(8), hi);
                }
            }
            // SAFETY: `d` holds 16 u32: the unaligned 64-byte store stays inside it.
            4 => unsafe { _mm512_storeu_si512(p.cast(), v) },
            // SAFETY: `d` holds 16 u16: the unaligned 32-byte store stays inside it.
            _ => unsafe { _mm256_storeu_si256(p.cast(), _mm512_cvtepi32_epi16(v)) },
        }
    }

    /// Runs `lanes` over groups of `N` elements, the last one padded with zeros.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn groups<const N: usize, T: Word>(
        ops: [&[T]; 3],
        out: &mut [T],
        fb: &mut Vec<usize>,
        mut lanes: impl FnMut([&[T; N]; 3], &mut [T; N]) -> u32,
    ) {
        let n = out.len();
        let mut j = 0;
        while j + N <= n {
            let arg = |k: usize| <&[T; N]>::try_from(&ops[k][j..j + N]).unwrap();
            let dst = <&mut [T; N]>::try_from(&mut out[j..j + N]).unwrap();
            let m = lanes([arg(0), arg(1), arg(2)], dst);
            push(fb, j, m, N);
            j += N;
        }
        if j < n {
            let len = n - j;
            let mut pad = [[T::default(); N]; 3];
            for (p, s) in pad.iter_mut().zip(ops) {
                p[..len].copy_from_slice(&s[j..]);
            }
            let mut dst = [T::default(); N];
            let m = lanes([&pad[0], &pad[1], &pad[2]], &mut dst);
            out[j..].copy_from_slice(&dst[..len]);
            push(fb, j, m, len);
        }
    }

    /// The sign bit, the exponent field (also the infinity) and the canonical NaN of a narrow
    /// format, as 32-bit lanes.
    const fn sign(f: u8) -> u32 {
        if f == F32 {
            0x8000_0000
        } else {
            0x8000
        }
    }
    const fn inf(f: u8) -> u32 {
        match f {
            F16 => 0x7C00,
            BF16 => 0x7F80,
            _ => 0x7F80_0000,
        }
    }
    const fn canonical_nan(f: u8) -> u32 {
        if f == F32 {
            0x7FFF_FFFF
        } else {
            0x7FFF
        }
    }

    /// For f16 and bf16 (minimum exponent `EMIN`, precision `P`), the f32 bit patterns of
    /// `2^EMIN`, `2^EMIN - 2^(EMIN-P)` (the largest `P`-bit number below it) and
    /// `2^EMIN - 2^(EMIN-P-1)`: an exact value rounded with an unbounded exponent is tiny (below
    /// 2^EMIN) when its magnitude is below the first rounding toward zero, at most the second
    /// rounding away from zero, and below the third to nearest (the tie goes to the even 2^EMIN).
    /// Each is a multiple of two f32 ulps, so the round-to-odd image compares with it as the exact
    /// value does.
    const fn tiny_limits(f: u8) -> [u32; 3] {
        let (emin, p): (i32, i32) = if f == F16 { (-14, 11) } else { (-126, 8) };
        let min = ((emin + 127) as u32) << 23;
        // The f32 ulp just below 2^EMIN.
        let ulp = if emin - 24 > -149 { emin - 24 } else { -149 };
        [
            min,
            min - (1 << (emin - p - ulp)),
            min - (1 << (emin - p - 1 - ulp)),
        ]
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn set1(x: u32) -> __m512i {
        _mm512_set1_epi32(x as i32)
    }

    /// `OP` on f32 lanes in the direction `R`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn op32<const OP: u8, const R: i32>(x: __m512, y: __m512, z: __m512) -> __m512 {
        match OP {
            ADD => _mm512_add_round_ps::<R>(x, y),
            SUB => _mm512_sub_round_ps::<R>(x, y),
            MUL => _mm512_mul_round_ps::<R>(x, y),
            _ => _mm512_fmadd_round_ps::<R>(x, y, z),
        }
    }

    #[target_feature(enable = "avx512f,avx512dq")]
    fn narrow<const FMT: u8, const OP: u8, const R: i32, const FLAGS: u8, T: Word>(
        s: &Steps,
        ops: [&[T]; 3],
        out: &mut [T],
        fb: &mut Vec<usize>,
    ) {
        let width = if FMT == F32 { 32 } else { 16 };
        groups::<16, T>(ops, out, fb, |[a, b, c], dst| {
            // Operands with bits above the format's width are left to the caller to report.
            let ((a, wa), (b, wb)) = (load16(a, width), load16(b, width));
            let (c, wc) = if OP == FMA {
                load16(c, width)
            } else {
                (_mm512_setzero_si512(), 0)
            };
            let (r, more) = narrow16::<FMT, OP, R, FLAGS>(s, a, b, c);
            store16(dst, r);
            u32::from(wa | wb | wc | more)
        });
    }

    /// Flushes subnormal lanes to the zero of their sign.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn flush<const FMT: u8>(x: __m512i) -> __m512i {
        let subnormal = _mm512_testn_epi32_mask(x, set1(inf(FMT)));
        _mm512_mask_and_epi32(x, subnormal, x, set1(sign(FMT)))
    }

    /// The exact value of each lane as an f32.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn widen<const FMT: u8>(x: __m512i) -> __m512 {
        match FMT {
            F32 => _mm512_castsi512_ps(x),
            BF16 => _mm512_castsi512_ps(_mm512_slli_epi32::<16>(x)),
            _ => _mm512_cvtph_ps(_mm512_cvtepi32_epi16(x)),
        }
    }

    /// `vfpclassps` categories.
    const QNAN: i32 = 0x01;
    const DENORMAL: i32 = 0x20;
    const SNAN: i32 = 0x80;

    /// `.sat` on f32 lanes (PTX ISA 9.7.3.3: "`.sat` clamps the result to [0.0, 1.0]. `NaN`
    /// results are flushed to +0.0f."): x86 `max` returns its second operand where either is NaN
    /// and where both are zeros, so `max(r, +0)` maps NaN, `-0` and negatives to `+0`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn saturate(r: __m512) -> __m512 {
        _mm512_min_ps(_mm512_max_ps(r, _mm512_setzero_ps()), _mm512_set1_ps(1.0))
    }

    /// One group of 16 narrow lanes: the results, and the lanes left to the caller.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn narrow16<const FMT: u8, const OP: u8, const R: i32, const FLAGS: u8>(
        s: &Steps,
        a: __m512i,
        b: __m512i,
        c: __m512i,
    ) -> (__m512i, u16) {
        let (ftz, sat, extra) = (FLAGS & FTZ != 0, FLAGS & SAT != 0, FLAGS & EXTRA != 0);
        let sign_bit = set1(sign(FMT));
        // PTX ISA 9.7.4.4: "`fma.oob` ... clamps the result to 0 if either of the operands is
        // `OOB NaN`" (the operands as given).
        let oob = match s.oob {
            Some(p) if extra && p >> (if FMT == F32 { 32 } else { 16 }) == 0 => {
                let p = set1(p as u32);
                let hit = |x| _mm512_cmpeq_epi32_mask(x, p);
                hit(a) | hit(b) | if OP == FMA { hit(c) } else { 0 }
            }
            _ => 0,
        };
        let (a, b, c) = if ftz {
            (flush::<FMT>(a), flush::<FMT>(b), flush::<FMT>(c))
        } else {
            (a, b, c)
        };
        let (x, y, z) = (widen::<FMT>(a), widen::<FMT>(b), widen::<FMT>(c));
        let mut fallback = 0;
        let mut r = if FMT == F32 {
            let mut r = op32::<OP, R>(x, y, z);
            if ftz {
                // The result rounded with gradual underflow is subnormal exactly when the one
                // rounded with an unbounded exponent is below 2^-126, but for 2^-126 itself: an
                // exact sum of f32 numbers that small is an f32 number, a product may not be.
                if OP == MUL || OP == FMA {
                    fallback = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(
                        _mm512_abs_ps(r),
                        _mm512_set1_ps(f32::MIN_POSITIVE),
                    );
                }
                let tiny = _mm512_fpclass_ps_mask::<DENORMAL>(r);
                r = _mm512_castsi512_ps(_mm512_mask_and_epi32(
                    _mm512_castps_si512(r),
                    tiny,
                    _mm512_castps_si512(r),
                    sign_bit,
                ));
            }
            if sat {
                r = saturate(r);
            } else {
                let nan = _mm512_fpclass_ps_mask::<{ QNAN | SNAN }>(r);
                r = _mm512_mask_mov_ps(r, nan, _mm512_castsi512_ps(set1(canonical_nan(F32))));
            }
            _mm512_castps_si512(r)
        } else {
            let mut v = if FMT == F16 && OP == MUL {
                // An f16 product has at most 22 significant bits and lies in [2^-48, 2^32].
                op32::<MUL, NEAREST>(x, y, z)
            } else {
                let rz = _mm512_castps_si512(op32::<OP, ZERO>(x, y, z));
                let rd = op32::<OP, DOWN>(x, y, z);
                let ru = op32::<OP, UP>(x, y, z);
                let inexact = _mm512_cmp_ps_mask::<_CMP_NEQ_OQ>(rd, ru);
                let odd = _mm512_mask_or_epi32(rz, inexact, rz, set1(1));
                // IEEE 754 §6.3: an exact zero sum is -0 rounding down; toward zero it is +0
                // (but for -0 + -0), as to nearest and up.
                _mm512_castsi512_ps(if R == DOWN {
                    _mm512_mask_blend_epi32(inexact, _mm512_castps_si512(rd), odd)
                } else {
                    odd
                })
            };
            // Clamping before the rounding to the format gives what clamping after it does:
            // rounding is monotone and keeps 0 and 1; a tiny result it clamps to +0 would be
            // flushed to a zero and clamped to +0.
            if sat {
                v = saturate(v);
            }
            let nan = if sat {
                0
            } else {
                _mm512_fpclass_ps_mask::<{ QNAN | SNAN }>(v)
            };
            let v = _mm512_castps_si512(v);
            let mut r = if FMT == F16 {
                _mm512_cvtepu16_epi32(_mm512_cvt_roundps_ph::<R>(_mm512_castsi512_ps(v)))
            } else {
                // bf16 is the high half of f32: add the bias that carries into the kept half
                // where the direction rounds up, then drop the low half. To nearest the bias is
                // half an ulp less one, plus the kept half's last bit (ties to even).
                let negative = _mm512_srai_epi32::<31>(v);
                let bias = match R {
                    NEAREST => _mm512_add_epi32(
                        _mm512_and_si512(_mm512_srli_epi32::<16>(v), set1(1)),
                        set1(0x7FFF),
                    ),
                    UP => _mm512_andnot_si512(negative, set1(0xFFFF)),
                    DOWN => _mm512_and_si512(negative, set1(0xFFFF)),
                    _ => _mm512_setzero_si512(),
                };
                _mm512_srli_epi32::<16>(_mm512_add_epi32(v, bias))
            };
            if ftz {
                let [min, away, near] = tiny_limits(FMT);
                let vmag = _mm512_andnot_si512(set1(0x8000_0000), v);
                let vneg = _mm512_test_epi32_mask(v, set1(0x8000_0000));
                let below = |t: u32| _mm512_cmplt_epu32_mask(vmag, set1(t));
                let at_most = |t: u32| _mm512_cmple_epu32_mask(vmag, set1(t));
                let tiny = match R {
                    NEAREST => below(near),
                    UP => (vneg & below(min)) | (!vneg & at_most(away)),
                    DOWN => (!vneg & below(min)) | (vneg & at_most(away)),
                    _ => below(min),
                };
                r = _mm512_mask_and_epi32(r, tiny, r, sign_bit);
            }
            if !sat {
                r = _mm512_mask_mov_epi32(r, nan, set1(canonical_nan(FMT)));
            }
            r
        };
        // PTX ISA 9.7.4.4: "`.relu` clamps the result to 0 if negative. `NaN` result is
        // converted to canonical `NaN`" (it already is, and positive).
        if extra && s.relu {
            let negative = _mm512_test_epi32_mask(r, sign_bit);
            let kept = if s.relu_keeps_negative_zero {
                _mm512_cmpeq_epi32_mask(r, sign_bit)
            } else {
                0
            };
            r = _mm512_maskz_mov_epi32(!(negative & !kept), r);
        }
        if extra && s.oob.is_some() {
            r = _mm512_maskz_mov_epi32(!oob, r);
        }
        (r, fallback)
    }

    #[target_feature(enable = "avx512f,avx512dq")]
    fn wide<const OP: u8, const R: i32>(ops: [&[u64]; 3], out: &mut [u64], fb: &mut Vec<usize>) {
        groups::<8, u64>(ops, out, fb, |[a, b, c], dst| {
            // SAFETY: each array holds 8 u64: every 64-byte access stays inside it.
            let load = |s: &[u64; 8]| {
                _mm512_castsi512_pd(unsafe { _mm512_loadu_epi64(s.as_ptr().cast()) })
            };
            let (x, y, z) = (load(a), load(b), load(c));
            let r = match OP {
                ADD => _mm512_add_round_pd::<R>(x, y),
                SUB => _mm512_sub_round_pd::<R>(x, y),
                MUL => _mm512_mul_round_pd::<R>(x, y),
                FMA => _mm512_fmadd_round_pd::<R>(x, y, z),
                DIV => _mm512_div_round_pd::<R>(x, y),
                RCP => _mm512_div_round_pd::<R>(_mm512_set1_pd(1.0), x),
                _ => _mm512_sqrt_round_pd::<R>(x),
            };
            // SAFETY: as above.
            unsafe { _mm512_storeu_epi64(dst.as_mut_ptr().cast(), _mm512_castpd_si512(r)) };
            u32::from(_mm512_cmp_pd_mask::<_CMP_UNORD_Q>(r, r))
        });
    }
}
