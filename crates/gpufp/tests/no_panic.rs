//! No operation panics on any bit pattern, in any rounding mode or subnormal rule (the tests run
//! with overflow checks on, so an arithmetic overflow inside the core is a panic too).

use gpufp::round::{Round, Rounding, Tininess};
use gpufp::{ieee, steps, Format, Policies, BF16, F16, F32, F64};
use proptest::prelude::*;

fn rounding_strategy() -> impl Strategy<Value = Rounding> {
    let round = prop_oneof![
        Just(Round::Rn),
        Just(Round::Rz),
        Just(Round::Rm),
        Just(Round::Rp)
    ];
    let ftz = prop_oneof![
        Just(None),
        Just(Some(Tininess::IeeeRounded)),
        Just(Some(Tininess::BeforeRounding)),
        Just(Some(Tininess::UnboundedRounded)),
    ];
    (round, ftz).prop_map(|(r, t)| match t {
        None => Rounding::ieee(r),
        Some(t) => Rounding::ftz(r, t),
    })
}

fn all_ops<F: Format>(a: u64, b: u64, c: u64, r: Rounding) {
    let (a, b, c) = (F::from_bits(a), F::from_bits(b), F::from_bits(c));
    let p = Policies::default();
    std::hint::black_box([
        ieee::add(a, b, r),
        ieee::sub(a, b, r),
        ieee::mul(a, b, r),
        ieee::fma(a, b, c, r),
        ieee::div(a, b, r),
        ieee::rcp(a, r),
        ieee::sqrt(a, r),
        steps::ftz(a),
        steps::saturate(a),
        steps::relu(a, &p),
        steps::canonicalize_nan(a),
        steps::nan_rule(a, &p),
    ]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]
    #[test]
    fn never_panics(a: u64, b: u64, c: u64, r in rounding_strategy()) {
        all_ops::<F16>(a, b, c, r);
        all_ops::<BF16>(a, b, c, r);
        all_ops::<F32>(a, b, c, r);
        all_ops::<F64>(a, b, c, r);
    }
}
