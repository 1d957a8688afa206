//! The quadratic-interpolator MUFU model (mufu::interp) against the worst-case errors that the G80
//! model's description states for it (docs/sfu.md), measured against exact integer references
//! written here (no host floating point). The shared third-party table is read at run time from
//! ../shared/reference/sfu-g80-tables.tsv; tests that need it skip when it is absent. The sweeps
//! are exhaustive over the binades named; the long ones (ex2 over 74 binades, sin/cos over ±100π)
//! are `#[ignore]`d (run them with `--release -- --ignored`).

use gpufp::mufu::interp::{self, Interpolator};
use gpufp::mufu::table::{Function, Table, Tables};
use gpufp::mufu::{Core, Op};
use gpufp::F32;

fn shared_tables() -> Option<Tables> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/reference/sfu-g80-tables.tsv"
    );
    let text = std::fs::read_to_string(path).ok()?;
    Some(Tables::parse(&text).expect("the shared table parses"))
}

macro_rules! tables_or_skip {
    () => {
        match shared_tables() {
            Some(t) => t,
            None => {
                eprintln!("skipped: ../shared/reference/sfu-g80-tables.tsv is absent");
                return;
            }
        }
    };
}

fn table(t: &Tables, f: Function) -> &Table {
    t.get(f).expect("function in the shared table")
}

// ---- exact references, Q62 fixed point in i128 ----

const Q: u32 = 62;
const ONE: i128 = 1 << Q;

/// ln 2 = sum_{k>=1} 1/(k 2^k), in Q100 then Q62.
fn ln2() -> i128 {
    let s: i128 = (1..=100).map(|k| (1i128 << (100 - k)) / k).sum();
    s >> (100 - Q)
}

/// pi by Machin's formula pi/4 = 4 atan(1/5) - atan(1/239), in Q100.
fn pi_q100() -> i128 {
    let atan_inv = |n: i128| {
        let mut p = (1i128 << 100) / n;
        let mut s = 0i128;
        let mut j = 0;
        while p != 0 {
            let t = p / (2 * j + 1);
            s += if j % 2 == 0 { t } else { -t };
            p /= n * n;
            j += 1;
        }
        s
    };
    4 * (4 * atan_inv(5) - atan_inv(239))
}

/// 1/n! in Q62, n = 0..=30.
fn inv_factorials() -> Vec<i128> {
    let mut f = vec![ONE];
    let mut v = ONE;
    for n in 1..=30 {
        v /= n;
        f.push(v);
    }
    f
}

fn mul(a: i128, b: i128) -> i128 {
    (a * b) >> Q
}

/// Horner evaluation of sum c[k] y^k.
fn horner(c: &[i128], y: i128) -> i128 {
    c.iter().rev().fold(0, |acc, &ck| ck + mul(acc, y))
}

/// round(1000 * log2(num/den)), by repeated squaring, for 0 < num, den < 2^100.
fn log2_milli(num: u128, den: u128) -> i64 {
    let mut k = num.ilog2() as i64 - den.ilog2() as i64;
    let (n, d) = (num << (100 - num.ilog2()), den << (100 - den.ilog2()));
    // r = n / d in Q60, within (1/2, 2).
    let mut r = n / (d >> 60);
    if r < 1 << 60 {
        k -= 1;
        r <<= 1;
    }
    let mut frac: i64 = 0;
    for _ in 0..24 {
        r = (r * r) >> 60;
        frac <<= 1;
        if r >= 2 << 60 {
            frac |= 1;
            r >>= 1;
        }
    }
    let v = (k << 24) + frac; // log2 in Q24
    (v * 1000 + (1 << 23)) >> 24
}

fn bits(v: F32) -> (bool, i32, i128) {
    let b = v.0;
    (
        b >> 31 != 0,
        ((b >> 23) & 0xFF) as i32,
        i128::from(b & 0x7F_FFFF | 0x80_0000),
    )
}

/// A float's value in Q62 (for results with exponent >= 88).
fn q62(v: F32) -> i128 {
    if v.0 & 0x7FFF_FFFF == 0 {
        return 0;
    }
    let (s, e, m) = bits(v);
    let sh = e - 150 + Q as i32;
    let mag = if sh >= 0 { m << sh } else { m >> -sh };
    if s {
        -mag
    } else {
        mag
    }
}

fn binade(e: u32) -> impl Iterator<Item = F32> {
    (0..1u32 << 23).map(move |f| F32(e << 23 | f))
}

// ---- special values ----

/// `ex2.approx.f32` of 1.0, 0.5, -1.0 and 10.0: inputs >= -126 go straight to MUFU.EX2
/// (as ptxas compiles it), so these are the core's results. Integer powers of two come out exact;
/// 2^0.5 comes out as sqrt(2) rounded to nearest (integer square roots decide the rounding).
#[test]
fn ex2_approx_of_one_half_minus_one_and_ten() {
    let t = tables_or_skip!();
    let ex2 = table(&t, Function::Ex2);
    assert_eq!(
        interp::eval(Op::Ex2, ex2, F32(0x3F80_0000)),
        F32(0x4000_0000)
    );
    assert_eq!(
        interp::eval(Op::Ex2, ex2, F32(0xBF80_0000)),
        F32(0x3F00_0000)
    );
    assert_eq!(
        interp::eval(Op::Ex2, ex2, F32(0x4120_0000)),
        F32(0x4480_0000)
    );
    // sqrt(2) 2^23 lies in [s, s + 1); it rounds up when (2s + 1)^2 < 2^49.
    let s = (1u128 << 47).isqrt();
    let rn = if (2 * s + 1) * (2 * s + 1) < 1 << 49 {
        s + 1
    } else {
        s
    };
    let expected = 0x3F80_0000 | (rn as u32 & 0x7F_FFFF);
    assert_eq!(interp::eval(Op::Ex2, ex2, F32(0x3F00_0000)), F32(expected));
}

#[test]
fn special_values() {
    let t = tables_or_skip!();
    let core = Interpolator::new(t, "shared");
    let nan = F32(0x7FFF_FFFF);
    let cases: &[(Op, u32, u32)] = &[
        (Op::Rcp, 0x7F80_0000, 0x0000_0000),
        (Op::Rcp, 0xFF80_0000, 0x8000_0000),
        (Op::Rcp, 0x8000_0001, 0xFF80_0000),
        (Op::Rcp, 0x3F80_0000, 0x3F80_0000),
        (Op::Rcp, 0x7F00_0000, 0x0000_0000), // 1/2^127 flushes
        (Op::Rsq, 0x8000_0000, 0xFF80_0000),
        (Op::Rsq, 0xBF80_0000, nan.0),
        (Op::Rsq, 0x7F80_0000, 0x0000_0000),
        (Op::Rsq, 0x4080_0000, 0x3F00_0000), // 1/sqrt(4)
        (Op::Ex2, 0x7F80_0000, 0x7F80_0000),
        (Op::Ex2, 0xFF80_0000, 0x0000_0000),
        (Op::Ex2, 0x4300_0000, 0x7F80_0000), // 2^128
        (Op::Ex2, 0xC2FE_0000, 0x0000_0000), // 2^-127 flushes
        (Op::Ex2, 0x8000_0000, 0x3F80_0000),
        (Op::Ex2, 0x0000_0000, 0x3F80_0000),
        (Op::Ex2, 0x0000_0001, 0x3F80_0000), // subnormal counts as zero
        (Op::Lg2, 0x3F80_0000, 0x0000_0000),
        (Op::Lg2, 0x0000_0000, 0xFF80_0000),
        (Op::Lg2, 0xBF80_0000, nan.0),
        (Op::Lg2, 0x7F80_0000, 0x7F80_0000),
        (Op::Lg2, 0x4000_0000, 0x3F80_0000), // log2(2) = 1
        (Op::Sin, 0x7F80_0000, nan.0),
        (Op::Cos, 0xFF80_0000, nan.0),
        (Op::Sin, 0x0000_0000, 0x0000_0000),
        (Op::Sin, 0x8000_0000, 0x8000_0000),
        (Op::Cos, 0x0000_0000, 0x3F80_0000),
        (Op::Cos, 0x8000_0000, 0x3F80_0000),
        (Op::Sin, 0x3E80_0000, 0x3F80_0000), // a quarter revolution
    ];
    for &(op, a, d) in cases {
        assert_eq!(core.f32(op, F32(a)), F32(d), "{op:?} 0x{a:08x}");
    }
    for op in [Op::Rcp, Op::Rsq, Op::Ex2, Op::Lg2, Op::Sin, Op::Cos] {
        assert_eq!(core.f32(op, F32(0x7FC0_0001)), nan, "{op:?} NaN");
    }
}

// ---- worst-case errors (docs/sfu.md, Worst-case errors) ----

/// rcp: "0.975 ulp" over [1, 2) (every binade without flush is the same).
fn rcp_worst(t: &Tables) -> u64 {
    let rcp = table(t, Function::Rcp);
    let (mut num, mut den) = (0u128, 1u128);
    for x in binade(127) {
        let (_, e, m) = bits(x);
        let r = interp::eval(Op::Rcp, rcp, x);
        let (_, er, s) = bits(r);
        // |R - 1/x| / 2^-24 = |S 2^(er-126) M - 2^47| / M.
        let n = ((s * m) << (er - 126)) - (1i128 << 47);
        assert_eq!(e, 127);
        let n = n.unsigned_abs();
        if n * den > num * m as u128 {
            (num, den) = (n, m as u128);
        }
    }
    ((num * 1000 + den / 2) / den) as u64
}

#[test]
fn rcp_worst_case_is_0_975_ulp() {
    let t = tables_or_skip!();
    assert_eq!(rcp_worst(&t), 975);
}

/// rsqrt: "2^-22.935" relative over [1, 4).
#[test]
fn rsqrt_worst_case_is_2_pow_minus_22_935() {
    let t = tables_or_skip!();
    let rsq = table(&t, Function::Rsqrt);
    let mut worst: u128 = 0;
    for x in binade(127).chain(binade(128)) {
        let (_, ex, m) = bits(x);
        let (_, er, s) = bits(interp::eval(Op::Rsq, rsq, x));
        // y = R^2 x = S^2 M 2^-K; the relative error is sqrt(y) - 1.
        let k = 450 - 2 * er - ex;
        let d = s * s * m - (1i128 << k);
        let dq = if k >= 64 {
            d >> (k - 64)
        } else {
            d << (64 - k)
        }; // y - 1 in Q64
        let e = dq / 2 - ((dq * dq) >> 64) / 8;
        worst = worst.max(e.unsigned_abs());
    }
    assert_eq!(log2_milli(worst, 1 << 64), -22935);
}

/// lg2: "2^-22.148 abs on (0.5, 2)".
#[test]
fn lg2_worst_case_on_half_to_two_is_2_pow_minus_22_148() {
    let t = tables_or_skip!();
    let lg2 = table(&t, Function::Lg2);
    let ln2 = ln2();
    let mut worst: u128 = 0;
    for x in binade(126).chain(binade(127)).skip(1) {
        let (_, ex, m) = bits(x);
        // ln m = 2 atanh(z), z = (m - 1)/(m + 1), m = M / 2^23.
        let z = ((m - (1 << 23)) << Q) / (m + (1 << 23));
        let z2 = mul(z, z);
        let (mut p, mut s, mut j) = (z, 0i128, 0);
        while p != 0 {
            s += p / (2 * j + 1);
            p = mul(p, z2);
            j += 1;
        }
        let log2 = ((2 * s) << Q) / ln2 + (i128::from(ex - 127) << Q);
        let r = q62(interp::eval(Op::Lg2, lg2, x));
        worst = worst.max((r - log2).unsigned_abs());
    }
    assert_eq!(log2_milli(worst, 1 << Q), -22148);
}

/// ex2: "2.055 ulp" (of the exact result) over every binade of inputs down to 2^-30.
#[test]
#[ignore = "exhaustive binades; run with --release"]
fn ex2_worst_case_is_2_055_ulp() {
    let t = tables_or_skip!();
    let ex2 = table(&t, Function::Ex2);
    let c = inv_factorials();
    let ln2 = ln2();
    let mut worst: u128 = 0;
    let mut at = 0u32;
    for e in 97..=133u32 {
        for sign in [0, 1u32 << 31] {
            for x in binade(e) {
                let x = F32(x.0 | sign);
                let (neg, ex, m) = bits(x);
                // Below -126 ex2.approx squares MUFU.EX2(x/2); the core alone flushes there.
                if neg && (m << 17) > (126i128 << (150 - ex + 17)) {
                    continue;
                }
                // x in Q62 (its bits reach 2^-53 here), then floor into i + F.
                let sh = ex - 150 + Q as i32;
                let xq = if sh >= 0 { m << sh } else { m >> -sh };
                let xq = if neg { -xq } else { xq };
                let i = xq >> Q;
                let f = xq & (ONE - 1);
                let exact = horner(&c[..22], mul(f, ln2)); // 2^F in Q62, [1, 2)
                let r = interp::eval(Op::Ex2, ex2, x);
                let (_, er, s) = bits(r);
                // R / 2^i in Q62.
                let sh = er - 150 - i as i32 + Q as i32;
                let rq = if sh >= 0 { s << sh } else { s >> -sh };
                let err = (rq - exact).unsigned_abs(); // in Q62; the exact ulp is 2^-23
                if err > worst {
                    worst = err;
                    at = x.0;
                }
            }
        }
    }
    eprintln!("ex2 worst at 0x{at:08x}");
    assert_eq!(((worst * 1000 + (1 << 38)) >> 39) as u64, 2055);
}

/// sin/cos: "on ±100π 2^-14.74" absolute, through the sm_70+ glue t = RZ(x * 0x3E22F983).
#[test]
#[ignore = "exhaustive binades; run with --release"]
fn sin_cos_worst_case_on_100pi_is_2_pow_minus_14_74() {
    let t = tables_or_skip!();
    let sin = table(&t, Function::Sin);
    let c = inv_factorials();
    let pi = pi_q100();
    let two_pi_q62 = pi >> (100 - Q - 1);
    // 1/(2 pi) in Q98 = 2^197 / (pi 2^100).
    let inv_two_pi = i128::try_from((num_bigint::BigInt::from(1) << 197u32) / pi).unwrap();
    let sin_c: Vec<i128> = (0..28)
        .map(|k| match k % 4 {
            1 => c[k],
            3 => -c[k],
            _ => 0,
        })
        .collect();
    let cos_c: Vec<i128> = (0..28)
        .map(|k| match k % 4 {
            0 => c[k],
            2 => -c[k],
            _ => 0,
        })
        .collect();
    let mut worst = [0u128; 2];
    for e in 120..=135u32 {
        for sign in [0, 1u32 << 31] {
            for x in binade(e) {
                let (_, ex, m) = bits(x);
                // |x| <= 100 pi: compare M 2^(e-150) with 100 pi in Q100.
                if (m << (ex - 50)) > 100 * pi {
                    continue;
                }
                let x = F32(x.0 | sign);
                let neg = sign != 0;
                // Revolutions u = |x| / (2 pi): fraction in Q62.
                let u = (m * inv_two_pi) >> (98 - Q + 150 - ex as u32);
                let frac = u & (ONE - 1);
                let quadrant = frac >> (Q - 2);
                let theta = mul(frac & ((ONE >> 2) - 1), two_pi_q62);
                let (s, co) = (horner(&sin_c, theta), horner(&cos_c, theta));
                let (s, co) = match quadrant {
                    0 => (s, co),
                    1 => (co, -s),
                    2 => (-s, -co),
                    _ => (-co, s),
                };
                let exact = [if neg { -s } else { s }, co];
                let tr = rz_mul(x, F32(0x3E22_F983));
                for (k, op) in [Op::Sin, Op::Cos].into_iter().enumerate() {
                    let r = q62(interp::eval(op, sin, tr));
                    worst[k] = worst[k].max((r - exact[k]).unsigned_abs());
                }
            }
        }
    }
    eprintln!(
        "sin {} cos {}",
        log2_milli(worst[0], 1 << Q),
        log2_milli(worst[1], 1 << Q)
    );
    // The stated value has two decimals: round the thousandths.
    let v = log2_milli(worst[0].max(worst[1]), 1 << Q);
    assert_eq!((v + 5).div_euclid(10), -1474);
}

/// f32 multiplication rounded toward zero, for normal operands with a normal product.
fn rz_mul(a: F32, b: F32) -> F32 {
    let (sa, ea, ma) = bits(a);
    let (sb, eb, mb) = bits(b);
    let p = ma * mb; // in [2^46, 2^48)
    let (sig, e) = if p >= 1 << 47 {
        (p >> 24, ea + eb - 126)
    } else {
        (p >> 23, ea + eb - 127)
    };
    F32(u32::from(sa ^ sb) << 31 | (e as u32) << 23 | (sig as u32 & 0x7F_FFFF))
}
