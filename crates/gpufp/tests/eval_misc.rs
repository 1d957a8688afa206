//! testp, copysign, abs, neg, `.sat`, sm_1x semantics, legacy defaults and operand checks, pinned
//! to the manual's text and docs/semantics.md (each expected value derived by hand in the comment).

use gpufp::ptx::{self, Context, EvalError, PtxVersion, Target};

fn eval_at(text: &str, ops: &[u64], target: Option<&str>) -> u64 {
    let mut i = ptx::parse_instr(text).unwrap();
    i.inputs = ops.len() as u8;
    let t: Option<Target> = target.map(|t| t.parse().unwrap());
    let checked = ptx::validate(&i, t, None).unwrap_or_else(|e| panic!("{text}: {e}"));
    let ctx = Context {
        target: Some(checked.default_target),
        ..Context::default()
    };
    ptx::eval(&checked.effective, ops, &ctx).unwrap()
}

fn e(text: &str, ops: &[u64]) -> u64 {
    eval_at(text, ops, None)
}

/// 9.7.3.1: the six properties; "positive and negative zero are considered normal numbers".
#[test]
fn testp_properties() {
    let cases: &[(&str, u64, u64)] = &[
        ("testp.finite.f32", 0x7F7F_FFFF, 1),
        ("testp.finite.f32", 0xFF80_0000, 0),
        ("testp.infinite.f32", 0xFF80_0000, 1),
        ("testp.infinite.f32", 0x7FC0_0000, 0),
        ("testp.number.f32", 0xFF80_0000, 1),
        ("testp.number.f32", 0x7F80_0001, 0),
        ("testp.notanumber.f32", 0xFF80_0001, 1),
        ("testp.normal.f32", 0x8000_0000, 1),
        ("testp.normal.f32", 0x0000_0001, 0),
        ("testp.subnormal.f32", 0x807F_FFFF, 1),
        ("testp.subnormal.f32", 0x0080_0000, 0),
        ("testp.subnormal.f64", 0x000F_FFFF_FFFF_FFFF, 1),
        ("testp.normal.f64", 0x0010_0000_0000_0000, 1),
        ("testp.notanumber.f64", 0xFFF0_0000_0000_0001, 1),
        ("testp.infinite.f64", 0xFFF0_0000_0000_0000, 1),
    ];
    for &(text, a, want) in cases {
        assert_eq!(e(text, &[a]), want, "{text} 0x{a:x}");
    }
}

/// 9.7.3.2: "Copy sign bit of a into value of b": bitwise, payloads kept.
#[test]
fn copysign_is_bitwise() {
    assert_eq!(e("copysign.f32", &[0x8000_0000, 0x3F80_0000]), 0xBF80_0000);
    assert_eq!(e("copysign.f32", &[0x0000_0000, 0xFFC0_1234]), 0x7FC0_1234);
    assert_eq!(
        e(
            "copysign.f64",
            &[0x8000_0000_0000_0000, 0x7FF0_0000_0000_0001]
        ),
        0xFFF0_0000_0000_0001
    );
}

/// abs/neg are additions of -0 on the GPU (as ptxas compiles them): NaN canonical for f32/f16/bf16,
/// `abs(-0) = +0`, `neg(+0) = -0`, `.ftz` flushes; f64 propagates the payload quieted.
#[test]
fn abs_neg_are_arithmetic() {
    assert_eq!(e("abs.f32", &[0x8000_0000]), 0x0000_0000);
    assert_eq!(e("neg.f32", &[0x0000_0000]), 0x8000_0000);
    assert_eq!(e("neg.f32", &[0x8000_0000]), 0x0000_0000);
    assert_eq!(e("abs.f32", &[0xFFC0_0001]), 0x7FFF_FFFF);
    assert_eq!(e("neg.f32", &[0x7F80_0001]), 0x7FFF_FFFF);
    assert_eq!(e("abs.f32", &[0x8000_0001]), 0x0000_0001);
    assert_eq!(e("abs.ftz.f32", &[0x8000_0001]), 0x0000_0000);
    assert_eq!(e("neg.ftz.f32", &[0x0000_0001]), 0x8000_0000);
    assert_eq!(e("abs.f16", &[0xFC01]), 0x7FFF);
    assert_eq!(e("neg.bf16x2", &[0x8000_3F80]), 0x0000_BF80);
    assert_eq!(
        e("abs.f64", &[0xFFF0_0000_0000_0001]),
        0x7FF8_0000_0000_0001
    );
    assert_eq!(
        e("neg.f64", &[0x7FF0_0000_0000_0001]),
        0xFFF8_0000_0000_0001
    );
    assert_eq!(
        e("abs.f64", &[0x8000_0000_0000_0000]),
        0x0000_0000_0000_0000
    );
}

/// 9.7.3.3: "`add.sat.f32` clamps the result to [0.0, 1.0]. `NaN` results are flushed to `+0.0f`."
#[test]
fn sat() {
    assert_eq!(e("add.sat.f32", &[0x7F80_0000, 0xFF80_0000]), 0); // inf - inf = NaN -> +0
    assert_eq!(e("add.sat.f32", &[0x8000_0000, 0x8000_0000]), 0); // -0 -> +0
    assert_eq!(e("mul.sat.f32", &[0x4000_0000, 0x3F80_0000]), 0x3F80_0000); // 2 -> 1
    assert_eq!(e("sub.sat.f16", &[0x3C00, 0x4000]), 0x0000); // -1 -> +0
    assert_eq!(
        e("fma.rn.sat.f16x2", &[0x3800_3800, 0x3800_3800, 0x0000_0000]),
        0x3400_3400
    );
}

/// sm_1x: f32 instructions flush subnormals without `.ftz` (`sm1x_f32_flush`); `mad.f32`
/// truncates the product to 24 bits (`sm1x_mad`), except when `c` is zero.
#[test]
fn sm1x_semantics() {
    assert_eq!(
        eval_at("add.f32", &[0x0000_0001, 0x0000_0000], Some("sm_13")),
        0
    );
    assert_eq!(
        eval_at("add.f32", &[0x0000_0001, 0x0000_0000], Some("sm_20")),
        1
    );
    assert_eq!(eval_at("add.f64", &[1, 0], Some("sm_13")), 1);
    // (1 + 2^-23)(1 + 2^-22) = 1 + 3*2^-23 + 2^-45: truncated to 24 bits 1 + 3*2^-23; minus 1
    // leaves 3*2^-23 = 0x34C00000 (fma would keep the 2^-45: 0x34C00001).
    let (a, b, c) = (0x3F80_0001, 0x3F80_0002, 0xBF80_0000);
    assert_eq!(eval_at("mad.f32", &[a, b, c], Some("sm_13")), 0x34C0_0000);
    assert_eq!(eval_at("fma.rn.f32", &[a, b, c], None), 0x34C0_0001);
    // c = 0: mul then add, so the product rounds (to nearest): 1 + 3*2^-23 + 2^-45 -> 0x3F800003.
    assert_eq!(eval_at("mad.f32", &[a, b, 0], Some("sm_13")), 0x3F80_0003);
    // The same spelling on sm_20 with PTX ISA 3.0 is mad.rn.f32 (9.7.3.7 errata).
    let i = ptx::parse_instr("mad.f32").unwrap();
    let c20 = ptx::validate(
        &i,
        Some("sm_20".parse().unwrap()),
        Some(PtxVersion::new(3, 0)),
    )
    .unwrap();
    assert_eq!(c20.effective.to_string(), "mad.rn.f32");
}

#[test]
fn operand_errors_are_errors() {
    let i = ptx::parse_instr("add.f16").unwrap();
    let ctx = Context::default();
    assert!(matches!(
        ptx::eval(&i, &[0x1_0000, 0], &ctx),
        Err(EvalError::Operands(_))
    ));
    assert!(matches!(
        ptx::eval(&i, &[0], &ctx),
        Err(EvalError::Operands(_))
    ));
    // `lg2` without `.approx` parses but is not an instruction the manual defines.
    let bare = ptx::parse_instr("lg2.f32").unwrap();
    assert!(matches!(
        ptx::eval(&bare, &[0], &ctx),
        Err(EvalError::Unsupported(_))
    ));
    // sin.approx.f32 of +0 is +0 (9.7.3.18's table).
    let approx = ptx::parse_instr("sin.approx.f32").unwrap();
    assert_eq!(ptx::eval(&approx, &[0], &ctx), Ok(0));
}
