//! PTX ISA 9.7.3.1 `testp`: pure integer tests of the bits; no flushing.

use super::instr::TestpOp;
use crate::format::{Class, Format};

/// PTX ISA 9.7.3.1: "`testp.finite` True if the input is not infinite or `NaN`; `testp.infinite`
/// True if the input is positive or negative infinity; `testp.number` True if the input is not
/// `NaN`; `testp.notanumber` True if the input is `NaN`; `testp.normal` True if the input is a
/// normal number (not `NaN`, not infinity); `testp.subnormal` True if the input is a subnormal
/// number (not `NaN`, not infinity). As a special case, positive and negative zero are considered
/// normal numbers."
pub fn testp<F: Format>(op: TestpOp, a: F) -> bool {
    let class = a.class();
    let nan = matches!(class, Class::QuietNan | Class::SignalingNan);
    match op {
        TestpOp::Finite => a.is_finite(),
        TestpOp::Infinite => class == Class::Infinity,
        TestpOp::Number => !nan,
        TestpOp::NotANumber => nan,
        TestpOp::Normal => matches!(class, Class::Normal | Class::Zero),
        TestpOp::Subnormal => class == Class::Subnormal,
    }
}
