//! Every f32 approximate instruction on all 2^32 inputs stays within the manual's bound of the
//! true function (issue #5). `#[ignore]`d: run with
//! `cargo test --release -p gpufp --test approx_sweep -- --ignored --nocapture`.
//!
//! The true value here comes from the host's f64 libm (error below 2^-50 relative, at least 2^27
//! times smaller than every bound checked), which keeps a 2^32 sweep to minutes; CI checks the same
//! property with exact enclosures on edges and random inputs (`approx_bounds.rs`). The `.ftz` form
//! is the same computation as the plain one except where the glue scales (subnormal inputs, and
//! |a| > 2^126 for rcp, a < -126 for ex2); the sweep runs the plain form on every input and the
//! `.ftz` form on every input where the two can differ, and checks they agree elsewhere on a sample.

use gpufp::ptx::{self, Context, Instr};
use rayon::prelude::*;

fn instr(text: &str) -> Instr {
    let i = ptx::parse_instr(text).unwrap();
    ptx::validate(&i, None, None).unwrap().effective
}

fn f(bits: u64) -> f64 {
    f64::from(f32::from_bits(bits as u32))
}

/// The bound a lane must meet, in f64: (unit, value); `None`: no bound (special values are
/// checked exactly by approx_glue.rs, outside-range sin/cos have none).
#[derive(Clone, Copy, Debug)]
enum Unit {
    Ulp,
    UlpFromRounded,
    Relative,
    Absolute,
}

fn bound(op: &str, a: f64) -> Option<(Unit, f64)> {
    use Unit::*;
    if !a.is_finite() || a == 0.0 {
        return None;
    }
    let pos = a > 0.0;
    Some(match op {
        "rcp" => (Ulp, 1.0),
        "sqrt" if pos => (Relative, (-23f64).exp2()),
        "rsqrt" if pos => (Relative, (-22.9f64).exp2()),
        "lg2" if pos && a > 0.5 && a < 2.0 => (Absolute, (-22f64).exp2()),
        "lg2" if pos => (Relative, (-22f64).exp2()),
        "ex2" => (UlpFromRounded, 2.0),
        "sin" | "cos" if a.abs() <= 2.0 * std::f64::consts::PI => (Absolute, (-20.5f64).exp2()),
        "sin" | "cos" if a.abs() <= 100.0 * std::f64::consts::PI => (Absolute, (-14.7f64).exp2()),
        "tanh" => (Relative, (-11f64).exp2()),
        _ => return None,
    })
}

fn truth(op: &str, a: f64) -> f64 {
    match op {
        "rcp" => 1.0 / a,
        "sqrt" => a.sqrt(),
        "rsqrt" => 1.0 / a.sqrt(),
        "lg2" => a.log2(),
        "ex2" => a.exp2(),
        "sin" => a.sin(),
        "cos" => a.cos(),
        _ => a.tanh(),
    }
}

/// ulp of f32 at |t| (gradual underflow).
fn ulp32(t: f64) -> f64 {
    let e = if t == 0.0 {
        -126
    } else {
        (t.abs().log2().floor() as i32).max(-126)
    };
    f64::from(e - 23).exp2()
}

fn ordinal(x: f32) -> i64 {
    let b = i64::from(x.to_bits() & 0x7FFF_FFFF);
    if x.is_sign_negative() {
        -b
    } else {
        b
    }
}

/// The error of `d` in the bound's unit, or 0 when a .ftz flush to a signed zero is allowed.
fn error(unit: Unit, t: f64, d: u64, ftz: bool) -> f64 {
    let y = f(d);
    if ftz && y == 0.0 && t.abs() < f64::from(-126f32).exp2() {
        return 0.0;
    }
    if y.is_nan() {
        return f64::INFINITY;
    }
    // A correctly rounded result always conforms (underflow, overflow: 1/x of a tiny subnormal
    // is +inf), as `judge` rules.
    if y == f64::from(t as f32) {
        return 0.0;
    }
    match unit {
        Unit::Ulp => (y - t).abs() / ulp32(t),
        Unit::UlpFromRounded => (ordinal(y as f32) - ordinal(t as f32)).unsigned_abs() as f64,
        Unit::Relative => (y - t).abs() / t.abs(),
        Unit::Absolute => (y - t).abs(),
    }
}

/// Sweeps `text` over the inputs `pick` accepts; returns the worst error relative to the bound
/// (<= 1 passes) and its input.
fn sweep(text: &str, pick: impl Fn(u64) -> bool + Sync) -> (f64, u64) {
    let op = text.split('.').next().unwrap();
    let ftz = text.contains(".ftz");
    let i = instr(text);
    let ctx = Context::default();
    (0u64..1 << 16)
        .into_par_iter()
        .map(|hi| {
            let mut worst = (0f64, 0u64);
            for lo in 0..1u64 << 16 {
                let a = hi << 16 | lo;
                if !pick(a) {
                    continue;
                }
                let x = f(a);
                let x_in = if ftz && x.abs() < f64::from(-126f32).exp2() {
                    0.0
                } else {
                    x
                };
                let Some((unit, b)) = bound(op, x_in) else {
                    continue;
                };
                let d = ptx::eval(&i, &[a], &ctx).unwrap();
                let e = error(unit, truth(op, x_in), d, ftz) / b;
                if e > worst.0 {
                    worst = (e, a);
                }
            }
            worst
        })
        .reduce(|| (0.0, 0), |x, y| if y.0 > x.0 { y } else { x })
}

fn tiny(a: u64) -> bool {
    a & 0x7F80_0000 == 0
}

fn report(text: &str, worst: (f64, u64)) {
    println!(
        "{text:<22} worst error {:.4} of the bound at 0x{:08x}",
        worst.0, worst.1
    );
    assert!(
        worst.0 <= 1.0,
        "{text}: 0x{:08x} exceeds the bound",
        worst.1
    );
}

fn run(op: &str, ftz_differs: impl Fn(u64) -> bool + Sync + Copy) {
    let plain = format!("{op}.approx.f32");
    report(&plain, sweep(&plain, |_| true));
    if op != "tanh" {
        let ftz = format!("{op}.approx.ftz.f32");
        report(&ftz, sweep(&ftz, ftz_differs));
        // Elsewhere the two forms are the same computation: check on a sample.
        let (p, q) = (instr(&plain), instr(&ftz));
        let ctx = Context::default();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..1_000_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let a = x & 0xFFFF_FFFF;
            if !ftz_differs(a) {
                let (dp, dq) = (ptx::eval(&p, &[a], &ctx), ptx::eval(&q, &[a], &ctx));
                assert_eq!(dp, dq, "{op} 0x{a:x}");
            }
        }
    }
}

#[test]
#[ignore = "2^32 inputs per instruction; minutes on two cores"]
fn rcp_all_inputs() {
    run("rcp", |a| tiny(a) || (a & 0x7FFF_FFFF) > 0x7E80_0000);
}

#[test]
#[ignore = "2^32 inputs per instruction; minutes on two cores"]
fn sqrt_all_inputs() {
    run("sqrt", tiny);
}

#[test]
#[ignore = "2^32 inputs per instruction; minutes on two cores"]
fn rsqrt_all_inputs() {
    run("rsqrt", tiny);
}

#[test]
#[ignore = "2^32 inputs per instruction; minutes on two cores"]
fn lg2_all_inputs() {
    run("lg2", tiny);
}

#[test]
#[ignore = "2^32 inputs per instruction; minutes on two cores"]
fn ex2_all_inputs() {
    run("ex2", |a| {
        tiny(a) || (a >> 31 == 1 && (a & 0x7FFF_FFFF) > 0x42FC_0000)
    });
}

#[test]
#[ignore = "2^32 inputs per instruction; minutes on two cores"]
fn sin_all_inputs() {
    run("sin", tiny);
}

#[test]
#[ignore = "2^32 inputs per instruction; minutes on two cores"]
fn cos_all_inputs() {
    run("cos", tiny);
}

#[test]
#[ignore = "2^32 inputs per instruction; minutes on two cores"]
fn tanh_all_inputs() {
    run("tanh", |_| false);
}
