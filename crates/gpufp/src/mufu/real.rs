//! Exact real arithmetic for the functions behind the approximate instructions: dyadic
//! enclosures of f(x) at any precision, with integers only. The correctly rounded core and the
//! guarantee checks are built on it.
//!
//! Stub: to be written.

use num_bigint::BigInt;

/// The exact value `sig * 2^exp`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dyadic {
    pub sig: BigInt,
    pub exp: i64,
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
/// f(x) is exactly representable; `None` when x is outside f's domain.
pub fn enclose(f: Func, x: &Dyadic, prec: u32) -> Option<(Dyadic, Dyadic)> {
    unimplemented!("{f:?} {x:?} {prec}")
}
