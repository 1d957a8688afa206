//! An exact big-integer model of IEEE operations, written independently of the core: operands
//! decode to exact dyadic numbers, add/mul/fma are computed exactly, div and sqrt to 200 extra
//! bits plus a sticky flag, and one rounding function implements IEEE gradual underflow and the
//! three `.ftz` tininess readings of policy `ftz_tininess`.

use gpufp::{Format, Round, Tininess};
use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{One, Zero};
use std::cmp::Ordering;

/// `(-1)^neg * (mag + s) * 2^exp`, where `s` is in (0, 1) when `sticky` and 0 otherwise.
#[derive(Clone, Debug)]
pub struct Exact {
    pub neg: bool,
    pub mag: BigUint,
    pub exp: i64,
    pub sticky: bool,
}

pub fn decode<F: Format>(x: F) -> Exact {
    let frac = x.frac();
    let e = x.biased_exp() as i64;
    let (mag, exp) = if e == 0 {
        (frac, i64::from(F::EMIN) - i64::from(F::FRAC_BITS))
    } else {
        (
            frac | (1 << F::FRAC_BITS),
            e - i64::from(F::BIAS) - i64::from(F::FRAC_BITS),
        )
    };
    Exact {
        neg: x.sign(),
        mag: BigUint::from(mag),
        exp,
        sticky: false,
    }
}

fn signed(x: &Exact, to_exp: i64) -> BigInt {
    let m = BigInt::from_biguint(if x.neg { Sign::Minus } else { Sign::Plus }, x.mag.clone());
    m << (x.exp - to_exp)
}

/// The exact sum; `None` when it is zero.
pub fn exact_add(x: &Exact, y: &Exact) -> Option<Exact> {
    let e = x.exp.min(y.exp);
    let s = signed(x, e) + signed(y, e);
    (!s.is_zero()).then(|| Exact {
        neg: s.sign() == Sign::Minus,
        mag: s.magnitude().clone(),
        exp: e,
        sticky: false,
    })
}

pub fn exact_mul(x: &Exact, y: &Exact) -> Exact {
    Exact {
        neg: x.neg != y.neg,
        mag: &x.mag * &y.mag,
        exp: x.exp + y.exp,
        sticky: false,
    }
}

const EXTRA: i64 = 200;

pub fn exact_div(x: &Exact, y: &Exact) -> Exact {
    let n = &x.mag << EXTRA as usize;
    Exact {
        neg: x.neg != y.neg,
        sticky: !(&n % &y.mag).is_zero(),
        mag: n / &y.mag,
        exp: x.exp - y.exp - EXTRA,
    }
}

pub fn exact_sqrt(x: &Exact) -> Exact {
    let shift = 2 * EXTRA + (x.exp & 1);
    let n = &x.mag << shift as usize;
    let root = n.sqrt();
    Exact {
        neg: false,
        sticky: &root * &root != n,
        mag: root,
        exp: (x.exp - shift) / 2,
    }
}

/// `|x| / 2^q` rounded to an integer in direction `r`.
pub fn round_at(x: &Exact, q: i64, r: Round) -> BigUint {
    let (floor, half_cmp, inexact) = if x.exp >= q {
        assert!(
            !x.sticky,
            "a sticky value must carry bits below every rounding position"
        );
        (&x.mag << (x.exp - q) as usize, Ordering::Less, false)
    } else {
        let k = (q - x.exp) as usize;
        let rem = &x.mag & ((BigUint::one() << k) - 1u32);
        let twice = &rem << 1u32;
        let half = BigUint::one() << k;
        let cmp = match twice.cmp(&half) {
            Ordering::Equal if x.sticky => Ordering::Greater,
            c => c,
        };
        (&x.mag >> k, cmp, !rem.is_zero() || x.sticky)
    };
    let odd = floor.bit(0);
    let up = match r {
        Round::Rn => half_cmp == Ordering::Greater || (half_cmp == Ordering::Equal && odd),
        Round::Rz => false,
        Round::Rm => x.neg && inexact,
        Round::Rp => !x.neg && inexact,
    };
    floor + u32::from(up)
}

pub fn exponent_of_msb(x: &Exact) -> i64 {
    x.exp + x.mag.bits() as i64 - 1
}

/// Rounds a nonzero exact value to `F`: gradual underflow, or flush-to-zero under `ftz`.
pub fn round_model<F: Format>(x: &Exact, r: Round, ftz: Option<Tininess>) -> F {
    let p = i64::from(F::PRECISION);
    let (emin, emax) = (i64::from(F::EMIN), i64::from(F::EMAX));
    let zero = F::zero(x.neg);
    let msb = exponent_of_msb(x);
    let unbounded_q = msb - (p - 1);
    let tiny = match ftz {
        None | Some(Tininess::IeeeRounded) => false,
        Some(Tininess::BeforeRounding) => msb < emin,
        Some(Tininess::UnboundedRounded) => {
            let m = round_at(x, unbounded_q, r);
            unbounded_q + m.bits() as i64 - 1 < emin
        }
    };
    if tiny {
        return zero;
    }
    let q = unbounded_q.max(emin - (p - 1));
    let mut m = round_at(x, q, r);
    if m.is_zero() {
        return zero;
    }
    let e = q + m.bits() as i64 - 1;
    if e > emax {
        let inf = match r {
            Round::Rn => true,
            Round::Rz => false,
            Round::Rm => x.neg,
            Round::Rp => !x.neg,
        };
        return if inf {
            F::infinity(x.neg)
        } else {
            F::from_bits(F::MAX_FINITE | (F::SIGN_MASK * u64::from(x.neg)))
        };
    }
    let sign = if x.neg { F::SIGN_MASK } else { 0 };
    if e < emin {
        if ftz == Some(Tininess::IeeeRounded) {
            return zero;
        }
        return F::from_bits(sign | m.iter_u64_digits().next().unwrap_or(0));
    }
    if m.bits() as i64 > p {
        // A carry to 2^p: the same value with one bit less.
        m >>= 1u32;
    }
    let frac = m.iter_u64_digits().next().unwrap_or(0) & F::FRAC_MASK;
    F::from_bits(sign | (((e + i64::from(F::BIAS)) as u64) << F::FRAC_BITS) | frac)
}

#[derive(Clone, Copy, Debug)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Fma,
    Div,
    Sqrt,
}

pub const OPS: [Op; 6] = [Op::Add, Op::Sub, Op::Mul, Op::Fma, Op::Div, Op::Sqrt];

/// The model's result for finite operands whose exact result is finite and nonzero; `None`
/// otherwise (those cases are rustc_apfloat's to check).
pub fn model<F: Format>(op: Op, a: F, b: F, c: F, r: Round, ftz: Option<Tininess>) -> Option<F> {
    let arity = match op {
        Op::Sqrt => 1,
        Op::Fma => 3,
        _ => 2,
    };
    if ![a, b, c][..arity].iter().all(|x| x.is_finite()) {
        return None;
    }
    let (x, y, z) = (decode(a), decode(b), decode(c));
    let nonzero = |v: &F| !v.is_zero();
    let exact = match op {
        Op::Add => exact_add(&x, &y)?,
        Op::Sub => exact_add(&x, &Exact { neg: !y.neg, ..y })?,
        Op::Mul => (nonzero(&a) && nonzero(&b)).then(|| exact_mul(&x, &y))?,
        Op::Fma if a.is_zero() || b.is_zero() => (nonzero(&c)).then_some(z)?,
        Op::Fma => exact_add(&exact_mul(&x, &y), &z)?,
        Op::Div => (nonzero(&a) && nonzero(&b)).then(|| exact_div(&x, &y))?,
        Op::Sqrt => (nonzero(&a) && !a.sign()).then(|| exact_sqrt(&x))?,
    };
    Some(round_model(&exact, r, ftz))
}
