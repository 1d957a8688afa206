//! Exact real arithmetic for the functions behind the approximate instructions: dyadic
//! enclosures of f(x) at any precision, with integers only. The correctly rounded core
//! ([`super::cr`]) and the guarantee checks ([`crate::ptx::bounds`]) are built on it.
//!
//! Every function is evaluated in fixed point, `v * 2^-w`, carrying a proven bound `err` on the
//! distance to the true value in the same unit (`Fx`): each operation adds its own truncation
//! and propagates its operands' bounds. When the result is not precise enough relative to its
//! magnitude (cancellation near a zero of the function, a tiny argument), `w` grows and the
//! evaluation repeats. The constants (ln 2 and pi) come from the same arithmetic: ln 2 =
//! 2 atanh(1/3), pi = 16 atan(1/5) - 4 atan(1/239) (Machin).

use crate::format::Format;
use crate::round::{Rounding, Unrounded};
use num_bigint::{BigInt, Sign};
use num_traits::{One, Signed, ToPrimitive, Zero};

/// The exact value `sig * 2^exp`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dyadic {
    pub sig: BigInt,
    pub exp: i64,
}

/// Exponents of exact results are kept within ±2^16: far outside every format, so a result
/// clamped there (`ex2` of a huge integer) rounds exactly as the true value does.
const EXP_LIMIT: i64 = 1 << 16;

impl Dyadic {
    pub fn new(sig: impl Into<BigInt>, exp: i64) -> Dyadic {
        Dyadic {
            sig: sig.into(),
            exp,
        }
    }

    /// The exact value of a finite `x`.
    pub fn from_format<F: Format>(x: F) -> Dyadic {
        let e = x.biased_exp() as i64;
        let (m, exp) = if e == 0 {
            (x.frac(), i64::from(F::EMIN) - i64::from(F::FRAC_BITS))
        } else {
            (
                x.frac() | (1 << F::FRAC_BITS),
                e - i64::from(F::BIAS) - i64::from(F::FRAC_BITS),
            )
        };
        let m = BigInt::from(m);
        Dyadic::new(if x.sign() { -m } else { m }, exp)
    }

    pub fn is_zero(&self) -> bool {
        self.sig.is_zero()
    }

    /// Compares the exact values.
    pub fn cmp_value(&self, other: &Dyadic) -> std::cmp::Ordering {
        let e = self.exp.min(other.exp);
        (&self.sig << (self.exp - e) as usize).cmp(&(&other.sig << (other.exp - e) as usize))
    }

    /// `floor(log2 |self|)` of a nonzero value.
    pub fn ilog2(&self) -> i64 {
        self.sig.bits() as i64 - 1 + self.exp
    }

    /// Rounds to `F` with `rounding` (a zero gives +0).
    pub fn round<F: Format>(&self, rounding: Rounding) -> F {
        if self.sig.is_zero() {
            return F::zero(false);
        }
        // Keep 126 bits and a sticky bit: more than any format needs to round once.
        let bits = self.sig.bits();
        let m = self.sig.abs();
        let (mag, exp) = if bits > 126 {
            let drop = (bits - 126) as usize;
            let kept = &m >> drop;
            let sticky = (&kept << drop) != m;
            (
                kept | BigInt::from(u8::from(sticky)),
                self.exp + drop as i64,
            )
        } else {
            (m, self.exp)
        };
        let (_, digits) = mag.to_u64_digits();
        let sig = digits
            .iter()
            .rev()
            .fold(0u128, |acc, &d| (acc << 64) | u128::from(d));
        Unrounded {
            sign: self.sig.sign() == Sign::Minus,
            exp: exp.clamp(-100_000, 100_000) as i32,
            sig,
        }
        .round(rounding)
    }

    /// Rounded to nearest even at `p` significant bits, with an unbounded exponent.
    pub fn round_bits(&self, p: u64) -> Dyadic {
        let bits = self.sig.bits();
        if bits <= p {
            return self.clone();
        }
        let drop = (bits - p) as usize;
        let m = self.sig.abs();
        let kept = &m >> drop;
        let rest = &m - (&kept << drop);
        let half = BigInt::one() << (drop - 1);
        let up = rest > half || (rest == half && (&kept & BigInt::one()).is_one());
        let mut kept = if up { kept + 1 } else { kept };
        let mut exp = self.exp + drop as i64;
        // A carry to 2^p: one form per value, so that equal values compare equal.
        if kept.bits() > p {
            kept >>= 1;
            exp += 1;
        }
        let kept = if self.sig.is_negative() { -kept } else { kept };
        Dyadic::new(kept, exp)
    }

    /// `floor(self)` and the fraction `self - floor(self)` in [0, 1).
    fn split(&self) -> (BigInt, Dyadic) {
        if self.exp >= 0 {
            return (&self.sig << self.exp as usize, Dyadic::new(0, 0));
        }
        let sh = (-self.exp) as usize;
        let n = &self.sig >> sh;
        let frac = &self.sig - (&n << sh);
        (n, Dyadic::new(frac, self.exp))
    }

    fn add_int(&self, n: i64) -> Dyadic {
        if self.exp >= 0 {
            return Dyadic::new((&self.sig << self.exp as usize) + n, 0);
        }
        Dyadic::new(
            &self.sig + (BigInt::from(n) << (-self.exp) as usize),
            self.exp,
        )
    }

    fn neg(&self) -> Dyadic {
        Dyadic::new(-&self.sig, self.exp)
    }

    fn shl(&self, n: i64) -> Dyadic {
        Dyadic::new(self.sig.clone(), self.exp + n)
    }

    /// Compares with `2^e`.
    fn cmp_pow2(&self, e: i64) -> std::cmp::Ordering {
        if self.sig.is_zero() || self.ilog2() != e {
            return self.ilog2().cmp(&e);
        }
        let lower = self.sig.abs().trailing_zeros() == Some(self.sig.bits() - 1);
        if lower {
            std::cmp::Ordering::Equal
        } else {
            std::cmp::Ordering::Greater
        }
    }
}

/// A real function of one argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Func {
    Rcp,
    Rsqrt,
    Sqrt,
    Ex2,
    Lg2,
    /// sin(2πx): the argument in revolutions.
    SinRev,
    /// cos(2πx).
    CosRev,
    /// sin(x), x in radians.
    Sin,
    /// cos(x), x in radians.
    Cos,
    Tanh,
}

/// Dyadic bounds `lo <= f(x) <= hi` with `hi - lo <= 2^-prec * |f(x)|`, or `lo == hi` when
/// f(x) is exactly representable; `None` when x is outside f's domain (0 for `Rcp`, `Rsqrt` and
/// `Lg2`; negative for `Sqrt`, `Rsqrt` and `Lg2`).
pub fn enclose(f: Func, x: &Dyadic, prec: u32) -> Option<(Dyadic, Dyadic)> {
    let prec = u64::from(prec);
    let neg = x.sig.is_negative();
    match f {
        Func::Rcp if x.is_zero() => return None,
        Func::Rcp => return Some(rcp(x, prec)),
        Func::Sqrt | Func::Rsqrt | Func::Lg2 if neg => return None,
        Func::Rsqrt | Func::Lg2 if x.is_zero() => return None,
        Func::Sqrt => return Some(sqrt(x, prec)),
        Func::Rsqrt => return Some(rsqrt(x, prec)),
        _ => {}
    }
    // Working precision: the target, guard bits, and the argument's smallness (a tiny x has a
    // tiny sin or tanh, a fixed-point value needs that many more bits).
    let tiny = if x.is_zero() { 0 } else { (-x.ilog2()).max(0) };
    let mut w = prec + 32 + tiny as u64;
    loop {
        let r = match eval(f, x, w) {
            Eval::Exact(d) => return Some((d.clone(), d)),
            Eval::Approx(r) => r,
        };
        let mag = r.v.abs();
        if mag > r.err && (&r.err << (prec + 1) as usize) <= &mag - &r.err {
            let lo = Dyadic::new(&r.v - &r.err, r.exp - w as i64);
            let hi = Dyadic::new(&r.v + &r.err, r.exp - w as i64);
            return Some((lo, hi));
        }
        w += w / 2 + 32;
    }
}

/// 1/x, exactly: `2^K / sig` truncated, widened by one unit unless it divides.
fn rcp(x: &Dyadic, prec: u64) -> (Dyadic, Dyadic) {
    let k = prec + x.sig.bits() + 2;
    let n = BigInt::one() << k as usize;
    let q = &n / &x.sig;
    let e = -x.exp - k as i64;
    if &q * &x.sig == n {
        let d = Dyadic::new(q, e);
        return (d.clone(), d);
    }
    let other = if x.sig.is_negative() { &q - 1 } else { &q + 1 };
    let (lo, hi) = if q < other { (q, other) } else { (other, q) };
    (Dyadic::new(lo, e), Dyadic::new(hi, e))
}

/// `x = s * 2^e` with an even `e`.
fn even_exponent(x: &Dyadic) -> (BigInt, i64) {
    if x.exp.rem_euclid(2) == 1 {
        (&x.sig << 1, x.exp - 1)
    } else {
        (x.sig.clone(), x.exp)
    }
}

/// sqrt(x) = isqrt(s * 2^2K) * 2^(e/2 - K), the integer root's floor and floor + 1.
fn sqrt(x: &Dyadic, prec: u64) -> (Dyadic, Dyadic) {
    if x.is_zero() {
        return (Dyadic::new(0, 0), Dyadic::new(0, 0));
    }
    let (s, e) = even_exponent(x);
    let k = prec + 2 + s.bits();
    let n = s << (2 * k) as usize;
    let r = n.sqrt();
    let exp = e / 2 - k as i64;
    if &r * &r == n {
        let d = Dyadic::new(r, exp);
        return (d.clone(), d);
    }
    (Dyadic::new(r.clone(), exp), Dyadic::new(r + 1, exp))
}

/// 1/sqrt(x) = sqrt(2^2K / s) * 2^(-e/2 - K): with q = floor(2^2K / s) and r = isqrt(q), the
/// true root lies in [r, r + 1).
fn rsqrt(x: &Dyadic, prec: u64) -> (Dyadic, Dyadic) {
    let (s, e) = even_exponent(x);
    let k = prec + 4 + s.bits();
    let n = BigInt::one() << (2 * k) as usize;
    let q = &n / &s;
    let r = q.sqrt();
    let exp = -e / 2 - k as i64;
    if &r * &r * &s == n {
        let d = Dyadic::new(r, exp);
        return (d.clone(), d);
    }
    (Dyadic::new(r.clone(), exp), Dyadic::new(r + 1, exp))
}

/// A fixed-point approximation `v * 2^-w` with `|true - v| <= err` units.
#[derive(Clone, Debug)]
struct Fx {
    v: BigInt,
    err: BigInt,
}

/// The result of one evaluation at a working precision: `(v ± err) * 2^(exp - w)`.
struct Approx {
    v: BigInt,
    err: BigInt,
    exp: i64,
}

enum Eval {
    Exact(Dyadic),
    Approx(Approx),
}

/// `ceil(n / 2^k)` of a nonnegative `n`.
fn ceil_shr(n: &BigInt, k: u64) -> BigInt {
    let q: BigInt = n >> k as usize;
    if &q << k as usize == *n {
        q
    } else {
        q + 1
    }
}

fn ceil_div(n: &BigInt, d: &BigInt) -> BigInt {
    let q = n / d;
    if &q * d == *n {
        q
    } else {
        q + 1
    }
}

/// Fixed-point arithmetic at `w` fraction bits, each operation bounding its error.
#[derive(Clone, Copy)]
struct Fixed {
    w: u64,
}

impl Fixed {
    fn int(self, n: i64) -> Fx {
        Fx {
            v: BigInt::from(n) << self.w as usize,
            err: BigInt::zero(),
        }
    }

    /// A dyadic, truncated toward minus infinity when it has more than `w` fraction bits.
    fn dyadic(self, d: &Dyadic) -> Fx {
        let sh = d.exp + self.w as i64;
        if sh >= 0 {
            return Fx {
                v: &d.sig << sh as usize,
                err: BigInt::zero(),
            };
        }
        let v: BigInt = &d.sig >> (-sh) as usize;
        let exact = (&v << (-sh) as usize) == d.sig;
        Fx {
            v,
            err: BigInt::from(u8::from(!exact)),
        }
    }

    fn add(self, a: &Fx, b: &Fx) -> Fx {
        Fx {
            v: &a.v + &b.v,
            err: &a.err + &b.err,
        }
    }

    fn sub(self, a: &Fx, b: &Fx) -> Fx {
        Fx {
            v: &a.v - &b.v,
            err: &a.err + &b.err,
        }
    }

    fn neg(self, a: &Fx) -> Fx {
        Fx {
            v: -&a.v,
            err: a.err.clone(),
        }
    }

    /// `a * b`: |ab - a'b'| <= |a'| eb + |b'| ea + ea eb, plus one unit of truncation.
    fn mul(self, a: &Fx, b: &Fx) -> Fx {
        let p = &a.v * &b.v;
        let e = a.v.abs() * &b.err + b.v.abs() * &a.err + &a.err * &b.err;
        Fx {
            v: p >> self.w as usize,
            err: ceil_shr(&e, self.w) + 1,
        }
    }

    /// `a / b` for `|b| > eb`: |a/b - a'/b'| <= (ea |b'| + eb |a'|) / (|b'| (|b'| - eb)).
    fn div(self, a: &Fx, b: &Fx) -> Fx {
        let bv = b.v.abs();
        debug_assert!(bv > b.err, "divisor not bounded away from zero");
        let q = (&a.v << self.w as usize) / &b.v;
        let num = (&a.err * &bv + &b.err * a.v.abs()) << self.w as usize;
        let den = &bv * (&bv - &b.err);
        Fx {
            v: q,
            err: ceil_div(&num, &den) + 1,
        }
    }

    fn div_int(self, a: &Fx, k: u64) -> Fx {
        let k = BigInt::from(k);
        Fx {
            v: &a.v / &k,
            err: ceil_div(&a.err, &k) + 1,
        }
    }

    fn shr(self, a: &Fx, n: u64) -> Fx {
        Fx {
            v: &a.v >> n as usize,
            err: ceil_shr(&a.err, n) + 1,
        }
    }

    fn shl(self, a: &Fx, n: u64) -> Fx {
        Fx {
            v: &a.v << n as usize,
            err: &a.err << n as usize,
        }
    }

    /// An upper bound on `|a|` in units.
    fn bound(a: &Fx) -> BigInt {
        a.v.abs() + &a.err
    }

    /// Adds the tail of a series whose terms after `last` are bounded by `last`'s and shrink at
    /// least geometrically by 1/2: at most `2 * bound(last)` units. The series stop once a
    /// term's value is at most 2 units (its error bound need not shrink below that).
    fn with_tail(sum: Fx, last: &Fx) -> Fx {
        let tail = Fixed::bound(last) << 1;
        Fx {
            err: sum.err + tail,
            v: sum.v,
        }
    }

    /// Σ ±s^(2k+1)/(2k+1) for |s| <= 1/2: atanh(s), or atan(s) when `alternating`.
    fn odd_series(self, s: &Fx, alternating: bool) -> Fx {
        let s2 = self.mul(s, s);
        let mut p = s.clone();
        let mut sum = s.clone();
        let mut k = 1u64;
        loop {
            p = self.mul(&p, &s2);
            let t = self.div_int(&p, 2 * k + 1);
            let t = if alternating && k % 2 == 1 {
                self.neg(&t)
            } else {
                t
            };
            sum = self.add(&sum, &t);
            if p.v.abs() <= BigInt::from(2) {
                return Fixed::with_tail(sum, &p);
            }
            k += 1;
        }
    }

    /// ln 2 = 2 atanh(1/3).
    fn ln2(self) -> Fx {
        let third = self.div_int(&self.int(1), 3);
        self.shl(&self.odd_series(&third, false), 1)
    }

    /// pi/2 = 8 atan(1/5) - 2 atan(1/239).
    fn half_pi(self) -> Fx {
        let a = self.odd_series(&self.div_int(&self.int(1), 5), true);
        let b = self.odd_series(&self.div_int(&self.int(1), 239), true);
        self.sub(&self.shl(&a, 3), &self.shl(&b, 1))
    }

    /// e^y for |y| <= 1 by its Taylor series.
    fn exp(self, y: &Fx) -> Fx {
        let mut t = self.int(1);
        let mut sum = t.clone();
        let mut k = 1u64;
        loop {
            t = self.div_int(&self.mul(&t, y), k);
            sum = self.add(&sum, &t);
            if t.v.abs() <= BigInt::from(2) {
                return Fixed::with_tail(sum, &t);
            }
            k += 1;
        }
    }

    /// sin z (`cos` false) or cos z for |z| <= 1 by the Taylor series; the terms alternate and
    /// shrink, so the tail is below the last term.
    fn sin_cos(self, z: &Fx, cos: bool) -> Fx {
        let z2 = self.mul(z, z);
        let mut t = if cos { self.int(1) } else { z.clone() };
        let mut sum = t.clone();
        let mut k = if cos { 1u64 } else { 2 };
        loop {
            t = self.neg(&self.div_int(&self.mul(&t, &z2), k * (k + 1)));
            sum = self.add(&sum, &t);
            if t.v.abs() <= BigInt::from(2) {
                return Fixed::with_tail(sum, &t);
            }
            k += 2;
        }
    }
}

fn approx(r: Fx, exp: i64) -> Eval {
    Eval::Approx(Approx {
        v: r.v,
        err: r.err,
        exp,
    })
}

fn exact(d: Dyadic) -> Eval {
    Eval::Exact(d)
}

/// One evaluation of a transcendental `f` at working precision `w`.
fn eval(f: Func, x: &Dyadic, w: u64) -> Eval {
    let fx = Fixed { w };
    match f {
        Func::Ex2 => ex2(fx, x),
        Func::Lg2 => lg2(fx, x),
        Func::SinRev => sin_rev(fx, x, 0),
        Func::CosRev => sin_rev(fx, x, 1),
        Func::Sin => sin_rad(fx, x, 0),
        Func::Cos => sin_rad(fx, x, 1),
        Func::Tanh => tanh(fx, x),
        Func::Rcp | Func::Sqrt | Func::Rsqrt => unreachable!("algebraic functions are exact"),
    }
}

/// 2^x = 2^n * e^(f ln 2) with n = floor(x), f in [0, 1); exact for an integer x.
fn ex2(fx: Fixed, x: &Dyadic) -> Eval {
    let (n, f) = x.split();
    let n = n
        .to_i64()
        .unwrap_or(if x.sig.is_negative() {
            -EXP_LIMIT
        } else {
            EXP_LIMIT
        })
        .clamp(-EXP_LIMIT, EXP_LIMIT);
    if f.is_zero() {
        return exact(Dyadic::new(1, n));
    }
    let y = fx.mul(&fx.dyadic(&f), &fx.ln2());
    approx(fx.exp(&y), n)
}

/// log2 x = k + 2 atanh((m - 1)/(m + 1)) / ln 2 for x = m 2^k, m in [3/4, 3/2); exact for a
/// power of two.
fn lg2(fx: Fixed, x: &Dyadic) -> Eval {
    let mut k = x.ilog2();
    if x.cmp_pow2(k) == std::cmp::Ordering::Equal {
        return exact(Dyadic::new(k, 0));
    }
    let mut m = x.shl(-k);
    if m.sig.clone() * 2 >= BigInt::from(3) << (-m.exp) as usize {
        m = m.shl(-1);
        k += 1;
    }
    let s = fx.div(&fx.dyadic(&m.add_int(-1)), &fx.dyadic(&m.add_int(1)));
    let ln_m = fx.shl(&fx.odd_series(&s, false), 1);
    approx(fx.add(&fx.int(k), &fx.div(&ln_m, &fx.ln2())), 0)
}

/// sin(2π x) (`quarter` 0) or cos(2π x) = sin(2π (x + 1/4)) (`quarter` 1). With 4 frac(x) =
/// q + t, t in [0, 1): sin(π/2 (q + t)) is ±sin(π/2 t) or ±cos(π/2 t); exact where t = 0.
fn sin_rev(fx: Fixed, x: &Dyadic, quarter: i64) -> Eval {
    let (_, r) = x.split();
    let (q, t) = r.shl(2).split();
    let q = (q.to_i64().unwrap_or(0) + quarter).rem_euclid(4);
    if t.is_zero() {
        return exact(Dyadic::new([0, 1, 0, -1][q as usize], 0));
    }
    quadrant(fx, &fx.dyadic(&t), q)
}

/// ±sin(π/2 t) or ±cos(π/2 t) for quadrant q and t in (0, 1), folded so that the series sees
/// an argument of at most π/4.
fn quadrant(fx: Fixed, t: &Fx, q: i64) -> Eval {
    let mut cos = q % 2 == 1;
    let half = fx.shr(&fx.int(1), 1);
    let t = if t.v > half.v {
        cos = !cos;
        fx.sub(&fx.int(1), t)
    } else {
        t.clone()
    };
    let z = fx.mul(&fx.half_pi(), &t);
    let r = fx.sin_cos(&z, cos);
    approx(if q >= 2 { fx.neg(&r) } else { r }, 0)
}

/// sin x (`quarter` 0) or cos x (`quarter` 1) in radians: x = (n + t) π/2 with n an integer,
/// computed with enough extra bits of π for the size of x.
fn sin_rad(fx: Fixed, x: &Dyadic, quarter: i64) -> Eval {
    if x.is_zero() {
        // sin 0 = 0, cos 0 = 1.
        return exact(Dyadic::new(quarter, 0));
    }
    let big = (x.ilog2() + 2).max(0) as u64;
    let wide = Fixed { w: fx.w + big };
    let hp = wide.half_pi();
    // x / (π/2) = n + t, t in [0, 1): the error of t is (x/hp^2) err(hp) plus truncation.
    let u = wide.div(&wide.dyadic(x), &hp);
    let n: BigInt = &u.v >> wide.w as usize;
    let t = wide.sub(
        &u,
        &Fx {
            v: &n << wide.w as usize,
            err: BigInt::zero(),
        },
    );
    let q = ((&n + quarter) % 4u8).to_i64().unwrap_or(0).rem_euclid(4);
    let t = Fx {
        v: t.v >> big as usize,
        err: ceil_shr(&t.err, big) + 1,
    };
    quadrant(fx, &t, q)
}

/// tanh x = 1 - 2 / (e^(2|x|) + 1), odd. With 2|x| = n ln 2 + r: 2/(e^(2|x|) + 1) =
/// 2^(1-n) / (e^r + 2^-n). Beyond |x| >= (w + 4)/2 the distance to ±1 is below 2^-(w+3).
fn tanh(fx: Fixed, x: &Dyadic) -> Eval {
    if x.is_zero() {
        return exact(Dyadic::new(0, 0));
    }
    let neg = x.sig.is_negative();
    let a = if neg { x.neg() } else { x.clone() };
    let sign = |r: Fx| if neg { fx.neg(&r) } else { r };
    let one = fx.int(1);
    if a.ilog2() >= 64 || a.split().0 >= BigInt::from((fx.w + 4) / 2) {
        let r = Fx {
            v: &one.v - 1,
            err: BigInt::from(2),
        };
        return approx(sign(r), 0);
    }
    let y = fx.dyadic(&a.shl(1));
    let ln2 = fx.ln2();
    let n = (&y.v / &ln2.v).to_u64().unwrap_or(0);
    let r = fx.sub(
        &y,
        &Fx {
            v: &ln2.v * n,
            err: &ln2.err * n,
        },
    );
    let e = fx.exp(&r);
    let d = fx.add(&e, &fx.shr(&one, n));
    let q = fx.div(&one, &d);
    let tail = if n == 0 {
        fx.shl(&q, 1)
    } else {
        fx.shr(&q, n - 1)
    };
    approx(sign(fx.sub(&one, &tail)), 0)
}
