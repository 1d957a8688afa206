//! The flush-to-zero probes of policy `ftz_tininess` under the three tininess readings:
//! (a) IEEE rounding, flush if the rounded result is subnormal; (b) flush if the exact result is
//! below 2^-126; (c) round with an unbounded exponent, flush if that is below 2^-126.

use gpufp::round::{Round, Rounding, Tininess};
use gpufp::{ieee, F16, F32};

const A: Tininess = Tininess::IeeeRounded;
const B: Tininess = Tininess::BeforeRounding;
const C: Tininess = Tininess::UnboundedRounded;

fn mul_ftz(a: u32, b: u32, r: Round, t: Tininess) -> u32 {
    ieee::mul(F32(a), F32(b), Rounding::ftz(r, t)).0
}

/// `mul.rn.ftz.f32 0x3F7FFFFE 0x00800001`: exact `2^-126 (1 - 2^-46)`, just below `2^-126`, and
/// rounds to `2^-126` at 24 bits: (b) gives 0, (a) and (c) give `0x00800000`.
#[test]
fn probe_product_just_below_min_normal() {
    let (a, b) = (
        0x3F7F_FFFE, /* 1 - 2^-23 */
        0x0080_0001, /* 2^-126 (1 + 2^-23) */
    );
    assert_eq!(mul_ftz(a, b, Round::Rn, A), 0x0080_0000);
    assert_eq!(mul_ftz(a, b, Round::Rn, B), 0x0000_0000);
    assert_eq!(mul_ftz(a, b, Round::Rn, C), 0x0080_0000);
    // Rounding toward zero keeps it below 2^-126 under every reading.
    for t in [A, B, C] {
        assert_eq!(mul_ftz(a, b, Round::Rz, t), 0);
    }
    assert_eq!(mul_ftz(a, b, Round::Rp, A), 0x0080_0000);
    assert_eq!(mul_ftz(a, b, Round::Rp, B), 0);
    assert_eq!(mul_ftz(a, b, Round::Rp, C), 0x0080_0000);
}

/// `mul.rn.ftz.f32 0x3F7FFFFF 0x00800000`: exact `2^-126 - 2^-150`. At 24 bits with an unbounded
/// exponent it is representable (`(2 - 2^-23) 2^-127`), so (c) and (b) flush; rounded into the
/// subnormal range it is a tie that goes to the even `2^-126`, so (a) gives `0x00800000`.
#[test]
fn probe_product_half_subnormal_ulp_below_min_normal() {
    let (a, b) = (
        0x3F7F_FFFF, /* 1 - 2^-24 */
        0x0080_0000, /* 2^-126 */
    );
    assert_eq!(mul_ftz(a, b, Round::Rn, A), 0x0080_0000);
    assert_eq!(mul_ftz(a, b, Round::Rn, B), 0);
    assert_eq!(mul_ftz(a, b, Round::Rn, C), 0);
    // With .rp the gradual result also rounds up to 2^-126; (c) still sees an exact value.
    assert_eq!(mul_ftz(a, b, Round::Rp, A), 0x0080_0000);
    assert_eq!(mul_ftz(a, b, Round::Rp, C), 0);
    // Negative: .rm mirrors .rp.
    assert_eq!(mul_ftz(a | 0x8000_0000, b, Round::Rm, A), 0x8080_0000);
    assert_eq!(mul_ftz(a | 0x8000_0000, b, Round::Rm, C), 0x8000_0000);
}

/// The same distinction through fma: `fma(1 - 2^-23, 2^-126 (1 + 2^-23), +0)` is the first probe.
/// And a sum: `2^-125 - 2^-126 (1 + 2^-23) = 2^-126 (1 - 2^-23)` is an exact subnormal, so every
/// reading flushes it, while gradual underflow keeps `0x007FFFFF`.
#[test]
fn probes_through_fma_and_add() {
    let fma = |t| {
        ieee::fma(
            F32(0x3F7F_FFFE),
            F32(0x0080_0001),
            F32(0),
            Rounding::ftz(Round::Rn, t),
        )
        .0
    };
    assert_eq!(fma(A), 0x0080_0000);
    assert_eq!(fma(B), 0);
    assert_eq!(fma(C), 0x0080_0000);
    // 2^-125 - 2^-126 (1 + 2^-23) = 2^-126 (1 - 2^-23): a subnormal, exactly representable.
    let add = |t| {
        ieee::add(
            F32(0x0100_0000),
            F32(0x8080_0001),
            Rounding::ftz(Round::Rn, t),
        )
        .0
    };
    assert_eq!(
        ieee::add(
            F32(0x0100_0000),
            F32(0x8080_0001),
            Rounding::ieee(Round::Rn)
        )
        .0,
        0x007F_FFFF
    );
    for t in [A, B, C] {
        assert_eq!(add(t), 0, "{t:?}");
    }
}

/// f16 has the same boundary at 2^-14: `(1 - 2^-10) * 2^-14 (1 + 2^-10)` rounds to 2^-14.
#[test]
fn probe_f16() {
    let mul = |t| ieee::mul(F16(0x3BFE), F16(0x0401), Rounding::ftz(Round::Rn, t)).0;
    assert_eq!(mul(A), 0x0400);
    assert_eq!(mul(B), 0);
    assert_eq!(mul(C), 0x0400);
    let mul = |t| ieee::mul(F16(0x3BFF), F16(0x0400), Rounding::ftz(Round::Rn, t)).0;
    assert_eq!(mul(A), 0x0400);
    assert_eq!(mul(B), 0);
    assert_eq!(mul(C), 0);
}
