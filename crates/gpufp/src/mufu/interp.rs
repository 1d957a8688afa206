//! The quadratic-interpolator model of the MUFU's RCP, RSQ, EX2, LG2 and SIN/COS cores
//! (the G80 model, docs/sfu.md).
//!
//! Each core splits its input's fraction into a segment index `idx` (the top bits) and a
//! fraction `x` (the rest), evaluates `P = (A << sA) + B*x + C*square(x)` with the row `idx`
//! of a coefficient table ([`super::table`]), then adds a rounding constant, shifts and
//! assembles a float. Evidence level: a research model of the G80 unit, not yet checked on a
//! current GPU. TANH, SQRT, RCP64H/RSQ64H and the 16-bit cores have no such model and are
//! delegated to [`CorrectlyRounded`], as is any function the table file lacks.
//!
//! Every core is written as [`prepare`] (input -> segment, `x`, squarer term, and what the
//! final step needs) and [`finish`] (P -> result bits), so that the fitter ([`super::fit`])
//! can invert [`finish`] exactly ([`interval`]).

use super::table::{Function, Row, Table, Tables};
use super::{special_f32, Core, CorrectlyRounded, Op, Op16, Op64};
use crate::format::{Format, BF16, F16, F32};

/// The G80 model (docs/sfu.md): "`square(x)`: a truncated squarer of a 17-bit x: add
/// `x >> (18 - i)` for every set bit i (0..16) of x, then shift the sum right by 1."
/// A wider `x` (a table with fewer segments than the model's) feeds the same array widened.
pub fn square(x: u64) -> i64 {
    let mut sum: u64 = 0;
    for i in 0..64 - x.leading_zeros() {
        if x >> i & 1 == 1 {
            sum += if i <= 18 {
                x >> (18 - i)
            } else {
                x << (i - 18)
            };
        }
    }
    (sum >> 1) as i64
}

/// The table each f32 operation reads; `None` for operations the model does not cover.
pub fn function(op: Op) -> Option<Function> {
    match op {
        Op::Rcp => Some(Function::Rcp),
        Op::Rsq => Some(Function::Rsqrt),
        Op::Ex2 => Some(Function::Ex2),
        Op::Lg2 => Some(Function::Lg2),
        Op::Sin | Op::Cos => Some(Function::Sin),
        Op::Sqrt | Op::Tanh => None,
    }
}

/// How far A is shifted left in P (the G80 model: `A << 13` for RCP and EX2, `A << 14` for RSQ,
/// `A << 12` for LG2, `A << 11` for SIN/COS).
pub fn a_shift(func: Function) -> u32 {
    match func {
        Function::Rcp | Function::Ex2 => 13,
        Function::Rsqrt => 14,
        Function::Lg2 => 12,
        Function::Sin => 11,
    }
}

/// One input's place in the interpolator: the row `idx`, the fraction `x`, the squarer term
/// `sq` (with its fixed shift: `P = (A << sA) + B*x + C*sq`), and the final step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    pub idx: usize,
    pub x: i64,
    pub sq: i64,
    pub post: Post,
}

/// What turns P into the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Post {
    /// RCP, RSQ, EX2: `sig = (P + k) >> shift`, assembled with `sign` and `exp`.
    Round {
        sign: bool,
        exp: i32,
        k: i64,
        shift: u32,
    },
    /// LG2 of an input with biased exponent `e`.
    Lg2 { e: i32 },
    /// SIN/COS: `r = P`, normalised, truncated, with sign `sign`.
    Sin { sign: bool },
}

/// An input either decided before the table (a special value) or a [`Point`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prepared {
    Done(u32),
    Point(Point),
}

/// `P = (A << sA) + B*x + C*sq` ("All arithmetic in signed 64-bit integers"; the row limits of
/// [`super::table`] keep it exact).
pub fn poly(func: Function, row: Row, p: &Point) -> i64 {
    (row.a << a_shift(func)) + row.b * p.x + row.c * p.sq
}

const FRAC: u32 = 0x7F_FFFF;

fn split(f: u32, width: u32, bits: u32) -> (usize, u64) {
    let xw = width - bits;
    ((f >> xw) as usize, u64::from(f & ((1 << xw) - 1)))
}

/// The EX2 input step (the G80 model; on sm_70+ part of MUFU.EX2): "the float becomes
/// sign-magnitude fixed point with 7 integer and 23 fraction bits, truncating (round toward
/// zero); |x| >= 128 becomes the infinity code." Returns the sign and the 30-bit magnitude,
/// or `None` for the infinity code. Subnormal inputs count as zero.
pub fn ex2_fixed(a: F32) -> Option<(bool, u32)> {
    let e = (a.0 >> 23) & 0xFF;
    let neg = a.sign();
    if e == 0 {
        return Some((neg, 0));
    }
    let m = (a.0 & FRAC) | 0x80_0000;
    // |x| * 2^23 = m * 2^(e - 127); |x| >= 128 exactly when e >= 134.
    match e {
        134.. => None,
        127.. => Some((neg, m << (e - 127))),
        103..=126 => Some((neg, m >> (127 - e))),
        _ => Some((neg, 0)),
    }
}

/// The SIN/COS input step on sm_70+ (the G80 model; a hypothesis to check on
/// hardware): the operand `t` is in revolutions; "MUFU converts `|t| * 4` to the 2.23 fixed
/// format by truncation, modulo 4, keeping the sign of t". Returns the sign and the 25-bit
/// quadrant fixed point. Subnormal inputs count as zero. `t` must be finite.
pub fn sincos_fixed(t: F32) -> (bool, u32) {
    let e = (t.0 >> 23) & 0xFF;
    let neg = t.sign();
    if e == 0 {
        return (neg, 0);
    }
    let m = u64::from((t.0 & FRAC) | 0x80_0000);
    // |t| * 4 * 2^23 = m * 2^(e - 125).
    let q = match e {
        150.. => 0,
        125.. => m << (e - 125),
        101..=124 => m >> (125 - e),
        _ => 0,
    };
    (neg, (q & 0x1FF_FFFF) as u32)
}

/// The first half of a core: special values, the input step, and the segment split for a
/// table of 2^`bits` rows. `op` must be one [`function`] covers.
pub fn prepare(op: Op, a: F32, bits: u32) -> Prepared {
    let sign = a.sign();
    let e = ((a.0 >> 23) & 0xFF) as i32;
    let f = a.0 & FRAC;
    match op {
        // "Specials: ±inf -> ±0; ±0 (and subnormals) -> ±inf. Otherwise result exponent
        // `253 - e`; idx = (f >> 16) & 0x7F, x = f & 0xFFFF, x2 = square(x << 1);
        // sig = ((A << 13) + B*x + C*x2 + 0x47E7) >> 15. Sign kept."
        Op::Rcp => {
            if let Some(s) = special_f32(op, a) {
                return Prepared::Done(s.0);
            }
            let (idx, x) = split(f, 23, bits);
            Prepared::Point(Point {
                idx,
                x: x as i64,
                sq: square(x << 1),
                post: Post::Round {
                    sign,
                    exp: 253 - e,
                    k: 0x47E7,
                    shift: 15,
                },
            })
        }
        // "Specials: ±0 -> ±inf; negative -> NaN; +inf -> +0. Otherwise: let u = e - 127 and
        // m = (f - 0x800000) | ((u & 1) << 23); idx = m >> 17 (7 bits), result exponent
        // 127 - (u >> 1) - 1 (arithmetic shift). If m == 0 the result is exactly a power of
        // two (exponent + 1, significand 0x800000). Else x = m & 0x1FFFF,
        // sig = ((A << 14) + B*x + ((C*square(x)) << 2) + 0x7FFF) >> 16."
        Op::Rsq => {
            if let Some(s) = special_f32(op, a) {
                return Prepared::Done(s.0);
            }
            let u = e - 127;
            let m = f | (((u & 1) as u32) << 23);
            let exp = 127 - (u >> 1) - 1;
            if m == 0 {
                return Prepared::Done(assemble(false, exp + 1, 0x80_0000));
            }
            let (idx, x) = split(m, 24, bits);
            Prepared::Point(Point {
                idx,
                x: x as i64,
                sq: square(x) << 2,
                post: Post::Round {
                    sign: false,
                    exp,
                    k: 0x7FFF,
                    shift: 16,
                },
            })
        }
        // "positive: exponent i + 127; negative: if f != 0, exponent 127 - i - 1 and f
        // replaced by its bitwise complement within 23 bits (0x7FFFFF - f); if f == 0,
        // exponent 127 - i. idx = (f >> 17) & 0x3F, x = f & 0x1FFFF,
        // sig = ((A << 13) + B*x + C*square(x) + 0x77E2) >> 15. Specials: +inf -> +inf,
        // -inf -> +0, NaN -> NaN." Zero is no special case: it goes through row 0.
        Op::Ex2 => {
            if a.is_nan() {
                return Prepared::Done(F32::canonical_nan().0);
            }
            let Some((neg, fixed)) = ex2_fixed(a) else {
                return Prepared::Done(if sign { 0 } else { F32::INF as u32 });
            };
            let i = (fixed >> 23) as i32;
            let f = fixed & FRAC;
            let (exp, f) = match (neg, f) {
                (false, _) => (i + 127, f),
                (true, 0) => (127 - i, 0),
                (true, _) => (127 - i - 1, FRAC - f),
            };
            let (idx, x) = split(f, 23, bits);
            Prepared::Point(Point {
                idx,
                x: x as i64,
                sq: square(x),
                post: Post::Round {
                    sign: false,
                    exp,
                    k: 0x77E2,
                    shift: 15,
                },
            })
        }
        // "Specials: NaN -> NaN; ±0 -> -inf; negative -> NaN; +inf -> +inf; exactly 1.0 -> +0
        // (special-cased). Otherwise idx = (f >> 17) & 0x3F, x = f & 0x1FFFF,
        // t = ((A << 12) + B*x + ((C*square(x)) << 1) + 0x3345) >> 2."
        Op::Lg2 => {
            if let Some(s) = special_f32(op, a) {
                return Prepared::Done(s.0);
            }
            if a == F32::one() {
                return Prepared::Done(0);
            }
            let (idx, x) = split(f, 23, bits);
            Prepared::Point(Point {
                idx,
                x: x as i64,
                sq: square(x) << 1,
                post: Post::Lg2 { e },
            })
        }
        // "For COS add 1 to the quadrant and clear the sign. If the quadrant is odd, complement
        // the 23-bit fraction (0x7FFFFF - f). Quadrant bit 1 flips the sign.
        // idx = (f >> 17) & 0x3F, x = f & 0x1FFFF. sin(±inf) and NaN -> NaN."
        Op::Sin | Op::Cos => {
            if a.is_nan() || a.is_infinite() {
                return Prepared::Done(F32::canonical_nan().0);
            }
            let (mut sign, q) = sincos_fixed(a);
            let mut quadrant = q >> 23;
            let mut f = q & FRAC;
            if op == Op::Cos {
                quadrant = (quadrant + 1) & 3;
                sign = false;
            }
            if quadrant & 1 == 1 {
                f = FRAC - f;
            }
            sign ^= quadrant & 2 != 0;
            let (idx, x) = split(f, 23, bits);
            Prepared::Point(Point {
                idx,
                x: x as i64,
                sq: square(x),
                post: Post::Sin { sign },
            })
        }
        Op::Sqrt | Op::Tanh => Prepared::Done(CorrectlyRounded.f32(op, a).0),
    }
}

/// "Results are assembled from (sign, exponent, 24-bit significand): if the significand came
/// out exactly 2^24 it is halved and the exponent bumped; exponent <= 0 gives ±0 (flush);
/// exponent >= 255 gives ±inf." A significand outside [2^23, 2^24] (a table no fit produces)
/// keeps its low 23 bits.
pub fn assemble(sign: bool, exp: i32, sig: i64) -> u32 {
    let (exp, sig) = if sig == 1 << 24 {
        (exp + 1, sig >> 1)
    } else {
        (exp, sig)
    };
    let s = u32::from(sign) << 31;
    match exp {
        ..=0 => s,
        255.. => s | F32::INF as u32,
        _ => s | (exp as u32) << 23 | (sig as u32 & FRAC),
    }
}

/// Shifts a positive `v` until its top bit is bit `top`, moving `exp` one per shift
/// (right shifts truncate).
fn normalise(mut v: i64, top: u32, mut exp: i32) -> (i64, i32) {
    while v < 1 << top {
        v <<= 1;
        exp -= 1;
    }
    while v >= 1 << (top + 1) {
        v >>= 1;
        exp += 1;
    }
    (v, exp)
}

/// The second half of a core: the result bits for the polynomial value `p`.
pub fn finish(post: &Post, p: i64) -> u32 {
    match *post {
        Post::Round {
            sign,
            exp,
            k,
            shift,
        } => assemble(sign, exp, (p + k) >> shift),
        // "t = (...) >> 2 (a 36-bit fraction of log2 of the significand), then
        // v = t + ((e - 127) << 36); if v < 0 the result is negative and v is replaced by its
        // bitwise complement. Normalise v so its top bit is bit 42 (decrementing an exponent
        // that starts at 127 + 6 for each left shift), keep v >> 19 as the 24-bit
        // significand. No rounding beyond the truncation in that shift."
        Post::Lg2 { e } => {
            let t = (p + 0x3345) >> 2;
            let mut v = t + (i64::from(e - 127) << 36);
            let neg = v < 0;
            if neg {
                v = !v;
            }
            let s = u32::from(neg) << 31;
            if v == 0 {
                return s;
            }
            let (v, exp) = normalise(v, 42, 127 + 6);
            s | (exp as u32) << 23 | ((v >> 19) as u32 & FRAC)
        }
        // "r = (A << 11) + B*x + C*square(x) (non-negative, < 2^38). Normalise r so its top
        // bit is bit 37, decrementing an exponent that starts at 127 for each left shift; keep
        // r >> 14 as the 24-bit significand; round toward zero." A non-positive r gives zero.
        Post::Sin { sign } => {
            let s = u32::from(sign) << 31;
            if p <= 0 {
                return s;
            }
            let (v, exp) = normalise(p, 37, 127);
            s | (exp as u32) << 23 | ((v >> 14) as u32 & FRAC)
        }
    }
}

/// A bound on |P| for every table within the row limits: "P may be anything".
pub const P_ANY: i128 = 1 << 60;

/// The values of P for which [`finish`] gives `out`, as an inclusive interval, restricted to
/// significands within [2^23, 2^24] for RCP/RSQ/EX2 and to the normalisation [`finish`]
/// performs; `None` when no such P exists. An interval of ±[`P_ANY`] means `out` says nothing
/// about P (a flushed or overflowed result).
pub fn interval(post: &Post, out: u32) -> Option<(i128, i128)> {
    let out_sign = out >> 31 != 0;
    let mag = out & 0x7FFF_FFFF;
    let out_exp = (mag >> 23) as i32;
    let out_sig = i128::from(mag & FRAC | 0x80_0000);
    let any = (-P_ANY, P_ANY);
    match *post {
        Post::Round {
            sign,
            exp,
            k,
            shift,
        } => {
            if out_sign != sign {
                return None;
            }
            let (lo, hi) = (1i128 << 23, 1i128 << 24);
            let (slo, shi) = if mag == 0 {
                match exp {
                    ..=-1 => return Some(any),
                    0 => (lo, hi - 1),
                    _ => return None,
                }
            } else if mag == F32::INF as u32 {
                match exp {
                    255.. => return Some(any),
                    254 => (hi, hi),
                    _ => return None,
                }
            } else if out_exp == exp && (1..=254).contains(&exp) {
                (out_sig, out_sig)
            } else if out_exp == exp + 1 && out_sig == lo && (0..=253).contains(&exp) {
                (hi, hi)
            } else {
                return None;
            };
            let k = i128::from(k);
            Some(((slo << shift) - k, (shi << shift) + (1 << shift) - 1 - k))
        }
        Post::Lg2 { e } => {
            if mag >= F32::INF as u32 {
                return None;
            }
            let (vlo, vhi) = if mag == 0 {
                (0, 0)
            } else {
                let base = out_sig << 19;
                unshift(base, base + (1 << 19) - 1, 127 + 6 - out_exp)?
            };
            let (vlo, vhi) = if out_sign {
                (-1 - vhi, -1 - vlo)
            } else {
                (vlo, vhi)
            };
            let off = i128::from(e - 127) << 36;
            Some((((vlo - off) << 2) - 0x3345, ((vhi - off) << 2) + 3 - 0x3345))
        }
        Post::Sin { sign } => {
            if out_sign != sign || mag >= F32::INF as u32 {
                return None;
            }
            if mag == 0 {
                return Some((-P_ANY, 0));
            }
            let base = out_sig << 14;
            unshift(base, base + (1 << 14) - 1, 127 - out_exp)
        }
    }
}

/// The v with `v << s` (or `v >> -s`) in [lo, hi], where lo..=hi lies within one binade.
fn unshift(lo: i128, hi: i128, s: i32) -> Option<(i128, i128)> {
    if !(0..=60).contains(&s) {
        return (-60..0).contains(&s).then(|| {
            let n = -s;
            (lo << n, ((hi + 1) << n) - 1)
        });
    }
    let lo = (lo + (1 << s) - 1) >> s;
    let hi = hi >> s;
    (lo <= hi).then_some((lo, hi))
}

/// The interpolator's result for `op` on `a` with `table` (the table of [`function`]`(op)`);
/// operations without a model are [`CorrectlyRounded`].
pub fn eval(op: Op, table: &Table, a: F32) -> F32 {
    let Some(func) = function(op) else {
        return CorrectlyRounded.f32(op, a);
    };
    match prepare(op, a, table.index_bits()) {
        Prepared::Done(bits) => F32(bits),
        Prepared::Point(p) => F32(finish(&p.post, poly(func, table.row(p.idx), &p))),
    }
}

/// The quadratic-interpolator core over tables read from a file; operations without a table
/// (and TANH, SQRT, RCP64H/RSQ64H, the 16-bit cores) are [`CorrectlyRounded`].
#[derive(Clone, Debug)]
pub struct Interpolator {
    tables: Tables,
    source: String,
}

impl Interpolator {
    /// `source` names where the tables came from (a file name), for [`Core::name`].
    pub fn new(tables: Tables, source: impl Into<String>) -> Interpolator {
        Interpolator {
            tables,
            source: source.into(),
        }
    }
    pub fn tables(&self) -> &Tables {
        &self.tables
    }
}

impl Core for Interpolator {
    fn name(&self) -> String {
        let modelled: Vec<&str> = self.tables.functions().map(Function::name).collect();
        let mut rest: Vec<&str> = Function::ALL
            .into_iter()
            .filter(|f| self.tables.get(*f).is_none())
            .map(Function::name)
            .collect();
        rest.extend(["sqrt", "tanh", "rcp64h", "rsq64h", "f16", "bf16"]);
        format!(
            "sfu-interpolator({}: {}; correctly-rounded: {})",
            self.source,
            modelled.join(" "),
            rest.join(" ")
        )
    }
    fn f32(&self, op: Op, a: F32) -> F32 {
        match function(op).and_then(|f| self.tables.get(f)) {
            Some(table) => eval(op, table, a),
            None => CorrectlyRounded.f32(op, a),
        }
    }
    fn f64_high(&self, op: Op64, hi: u32) -> u32 {
        CorrectlyRounded.f64_high(op, hi)
    }
    fn f16(&self, op: Op16, a: F16) -> F16 {
        CorrectlyRounded.f16(op, a)
    }
    fn bf16(&self, op: Op16, a: BF16) -> BF16 {
        CorrectlyRounded.bf16(op, a)
    }
}
