//! Rounding an exact result to a format: the one place where every result of the core is rounded
//! (SoftFloat's `roundPack`), including output flush-to-zero under each tininess reading.

use crate::format::Format;

/// A PTX rounding modifier (PTX ISA 9.7.3, "Rounding modifiers").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Round {
    /// `.rn`: mantissa LSB rounds to nearest even.
    Rn,
    /// `.rz`: mantissa LSB rounds towards zero.
    Rz,
    /// `.rm`: mantissa LSB rounds towards negative infinity.
    Rm,
    /// `.rp`: mantissa LSB rounds towards positive infinity.
    Rp,
}

impl Round {
    pub const ALL: [Round; 4] = [Round::Rn, Round::Rz, Round::Rm, Round::Rp];

    /// The modifier as PTX spells it, without the dot.
    pub fn ptx_name(self) -> &'static str {
        match self {
            Round::Rn => "rn",
            Round::Rz => "rz",
            Round::Rm => "rm",
            Round::Rp => "rp",
        }
    }
}

/// When an `.ftz` result counts as subnormal and is flushed (policy `ftz_tininess`,
/// docs/semantics.md).
///
/// The readings differ only for exact results just below `2^EMIN` that round up to `2^EMIN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tininess {
    /// (a) Round with gradual underflow as IEEE 754 does; flush if the rounded value is subnormal.
    IeeeRounded,
    /// (b) Flush if the exact result is below `2^EMIN` (tininess before rounding).
    BeforeRounding,
    /// (c) Round to full precision with an unbounded exponent; flush if that is below `2^EMIN`
    /// (x86 MXCSR.FTZ; what ptxas's constant folder computes). The default.
    UnboundedRounded,
}

/// What happens to a result that would be subnormal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Subnormals {
    /// Gradual underflow (IEEE 754; PTX without `.ftz`).
    Keep,
    /// `.ftz`: subnormal results become a zero of the same sign, "subnormal" read as given.
    Flush(Tininess),
}

/// How one operation rounds its result: the rounding direction and the output-subnormal rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rounding {
    pub round: Round,
    pub subnormals: Subnormals,
}

impl Rounding {
    /// IEEE 754 rounding in the given direction with gradual underflow.
    pub const fn ieee(round: Round) -> Self {
        Rounding {
            round,
            subnormals: Subnormals::Keep,
        }
    }
    /// Rounding in the given direction, flushing tiny results under the given tininess reading.
    pub const fn ftz(round: Round, tininess: Tininess) -> Self {
        Rounding {
            round,
            subnormals: Subnormals::Flush(tininess),
        }
    }
}

/// A nonzero finite exact result: `(-1)^sign * sig * 2^exp`.
///
/// Bit 0 of `sig` may be a *sticky* bit: producers that had to drop low bits OR them into bit 0
/// (shift-right-jam), and keep bit 0 far below the rounding position, so that "nonzero below the
/// round bit" is all that bit 0 ever contributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unrounded {
    pub sign: bool,
    pub exp: i32,
    pub sig: u128,
}

/// Shifts right, ORing every bit shifted out into bit 0 (SoftFloat's `shiftRightJam`).
pub fn shift_right_jam(x: u128, n: u32) -> u128 {
    if n == 0 {
        x
    } else if n >= 128 {
        u128::from(x != 0)
    } else {
        (x >> n) | u128::from(x & ((1u128 << n) - 1) != 0)
    }
}

/// Keeps `sig >> r`, rounded in direction `round` for a value of sign `sign`.
///
/// `r` may be 128 or more (every bit is below the kept LSB). Returns the kept integer; it can be
/// one more than `sig >> r` (a carry into a new bit is the caller's to handle).
fn round_shifted(sig: u128, r: u32, sign: bool, round: Round) -> u128 {
    let (kept, half, rest) = match r {
        0 => return sig,
        1..=127 => {
            let kept = sig >> r;
            let half = (sig >> (r - 1)) & 1 == 1;
            let rest = sig & ((1u128 << (r - 1)) - 1) != 0;
            (kept, half, rest)
        }
        128 => (0, sig >> 127 == 1, sig & (u128::MAX >> 1) != 0),
        _ => (0, false, sig != 0),
    };
    let inexact = half || rest;
    let up = match round {
        Round::Rn => half && (rest || kept & 1 == 1),
        Round::Rz => false,
        Round::Rm => sign && inexact,
        Round::Rp => !sign && inexact,
    };
    kept + u128::from(up)
}

/// Whether a result overflowing the format becomes infinity (otherwise the largest finite number).
fn overflows_to_infinity(sign: bool, round: Round) -> bool {
    match round {
        Round::Rn => true,
        Round::Rz => false,
        Round::Rm => sign,
        Round::Rp => !sign,
    }
}

impl Unrounded {
    /// The same value with `sig`'s most significant bit at bit 127, and the exponent of that bit.
    fn normalized(self) -> (u128, i32) {
        let lz = self.sig.leading_zeros();
        (self.sig << lz, self.exp + (127 - lz as i32))
    }

    /// Whether the exact value is below `2^EMIN` in magnitude.
    pub fn is_tiny_before_rounding<F: Format>(self) -> bool {
        self.normalized().1 < F::EMIN
    }

    /// Whether the value rounded to `F`'s precision with an unbounded exponent is below `2^EMIN`.
    pub fn is_tiny_after_unbounded_rounding<F: Format>(self, round: Round) -> bool {
        let (sig, e) = self.normalized();
        let kept = round_shifted(sig, 128 - F::PRECISION, self.sign, round);
        let carried = (kept >> F::PRECISION) as i32;
        e + carried < F::EMIN
    }

    /// The value truncated (rounded toward zero) to `bits` significant bits, exponent unbounded.
    pub fn truncated(self, bits: u32) -> Unrounded {
        let (sig, e) = self.normalized();
        Unrounded {
            sign: self.sign,
            exp: e - (bits as i32 - 1),
            sig: sig >> (128 - bits),
        }
    }

    /// Rounds to `F` as `rounding` says: gradual underflow or flush, overflow per direction.
    pub fn round<F: Format>(self, rounding: Rounding) -> F {
        let Rounding { round, subnormals } = rounding;
        let flush = match subnormals {
            Subnormals::Keep | Subnormals::Flush(Tininess::IeeeRounded) => false,
            Subnormals::Flush(Tininess::BeforeRounding) => self.is_tiny_before_rounding::<F>(),
            Subnormals::Flush(Tininess::UnboundedRounded) => {
                self.is_tiny_after_unbounded_rounding::<F>(round)
            }
        };
        if flush {
            return F::zero(self.sign);
        }
        let rounded: F = self.round_gradual(round);
        if subnormals == Subnormals::Flush(Tininess::IeeeRounded) && rounded.is_subnormal() {
            return F::zero(self.sign);
        }
        rounded
    }

    /// IEEE 754 rounding with gradual underflow.
    fn round_gradual<F: Format>(self, round: Round) -> F {
        let (sig, e) = self.normalized();
        let sign = if self.sign { F::SIGN_MASK } else { 0 };
        let overflow = || {
            if overflows_to_infinity(self.sign, round) {
                F::from_bits(sign | F::INF)
            } else {
                F::from_bits(sign | F::MAX_FINITE)
            }
        };
        if e > F::EMAX {
            return overflow();
        }
        // Below 2^EMIN the kept bits stop at the subnormal LSB, 2^(EMIN - FRAC_BITS).
        let denorm = (F::EMIN - e).max(0) as u32;
        let kept = round_shifted(
            sig,
            (128 - F::PRECISION).saturating_add(denorm),
            self.sign,
            round,
        );
        // Adding the significand (hidden bit included) to the exponent field minus one makes a
        // carry out of the significand, and a subnormal rounding up to 2^EMIN, land right.
        let base = if denorm > 0 {
            0
        } else {
            ((e + F::BIAS - 1) as u64) << F::FRAC_BITS
        };
        let magnitude = base + kept as u64;
        if magnitude >= F::INF {
            return overflow();
        }
        F::from_bits(sign | magnitude)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F16, F32};

    fn exact(sign: bool, exp: i32, sig: u128) -> Unrounded {
        Unrounded { sign, exp, sig }
    }

    #[test]
    fn rounds_ties_to_even_and_directed() {
        // 1 + 2^-24 is a tie between 1.0 and 1.0 + 2^-23 in f32.
        let tie = exact(false, -24, (1 << 24) + 1);
        assert_eq!(
            tie.round::<F32>(Rounding::ieee(Round::Rn)),
            F32(0x3F80_0000)
        );
        assert_eq!(
            tie.round::<F32>(Rounding::ieee(Round::Rz)),
            F32(0x3F80_0000)
        );
        assert_eq!(
            tie.round::<F32>(Rounding::ieee(Round::Rp)),
            F32(0x3F80_0001)
        );
        let neg = Unrounded { sign: true, ..tie };
        assert_eq!(
            neg.round::<F32>(Rounding::ieee(Round::Rm)),
            F32(0xBF80_0001)
        );
        assert_eq!(
            neg.round::<F32>(Rounding::ieee(Round::Rp)),
            F32(0xBF80_0000)
        );
    }

    #[test]
    fn overflow_per_direction() {
        let huge = exact(false, 200, 1);
        assert_eq!(
            huge.round::<F32>(Rounding::ieee(Round::Rn)),
            F32(0x7F80_0000)
        );
        assert_eq!(
            huge.round::<F32>(Rounding::ieee(Round::Rz)),
            F32(0x7F7F_FFFF)
        );
        assert_eq!(
            huge.round::<F32>(Rounding::ieee(Round::Rm)),
            F32(0x7F7F_FFFF)
        );
        let neg = exact(true, 200, 1);
        assert_eq!(
            neg.round::<F32>(Rounding::ieee(Round::Rm)),
            F32(0xFF80_0000)
        );
        assert_eq!(neg.round::<F16>(Rounding::ieee(Round::Rp)), F16(0xFBFF));
    }

    #[test]
    fn gradual_underflow() {
        // 2^-150 is half the smallest f32 subnormal: ties to even gives +0, rp gives 2^-149.
        let half_min = exact(false, -150, 1);
        assert_eq!(half_min.round::<F32>(Rounding::ieee(Round::Rn)), F32(0));
        assert_eq!(half_min.round::<F32>(Rounding::ieee(Round::Rp)), F32(1));
        assert_eq!(
            exact(false, -400, 3).round::<F32>(Rounding::ieee(Round::Rp)),
            F32(1)
        );
        assert_eq!(
            exact(true, -400, 3).round::<F32>(Rounding::ieee(Round::Rn)),
            F32(0x8000_0000)
        );
    }
}
