//! Throughput of libgpufp's C API, against the Rust slice path in the same run.
//!
//! For each instruction, on arrays of N elements (default 10^6) of the operand width, one
//! thread, medians of REPS interleaved passes:
//! - `scalar`: one `gpufp_eval` call per element (calls per second);
//! - `array`: `gpufp_eval_u16/u32/u64` over the arrays;
//! - `slice`: `Prepared::eval_slice` over the same operands as `u64` arrays, the Rust API;
//! - `array/slice`: the array call's throughput as a fraction of the slice path's.
//!
//! `cargo run --release -p gpufp-c --example bench -- [--n N] [--reps REPS] [INSTR...]`. The C
//! functions are called as a C program calls them (the same `extern "C"` entry points).

use gpufp::front::{Options, Prepared};
use gpufp_c::*;
use std::ffi::CString;
use std::time::Instant;

const DEFAULT: &[&str] = &[
    "add.rn.f32",
    "fma.rn.f32",
    "fma.rz.ftz.sat.f32",
    "add.rn.f64",
    "fma.rn.f16",
    "mul.rn.bf16",
    "min.NaN.f32",
    "ex2.approx.ftz.f32",
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Moderate operands of `width` bits: exponents near 1, random significands and signs.
fn operand(width: u32, j: u64, k: u64) -> u64 {
    let r = mix(j * 3 + k);
    match width {
        16 => 0x3800 | (r & 0x87FF),
        32 => 0x3F00_0000 | (r & 0x80FF_FFFF),
        _ => 0x3FE0_0000_0000_0000 | (r & 0x800F_FFFF_FFFF_FFFF),
    }
}

fn time(mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

fn main() {
    let mut n = 1_000_000usize;
    let mut reps = 11usize;
    let mut instrs: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--n" => n = args.next().and_then(|v| v.parse().ok()).expect("--n N"),
            "--reps" => reps = args.next().and_then(|v| v.parse().ok()).expect("--reps R"),
            _ => instrs.push(a),
        }
    }
    if instrs.is_empty() {
        instrs = DEFAULT.iter().map(|s| s.to_string()).collect();
    }
    println!(
        "n = {n} elements, median of {reps} interleaved passes, one thread, SIMD level: {}",
        gpufp::fast::detected().name()
    );
    println!(
        "{:<22} {:>14} {:>12} {:>12} {:>11}",
        "instruction", "scalar", "array", "slice", "array/slice"
    );
    for text in &instrs {
        let c = CString::new(text.as_str()).unwrap();
        // SAFETY: a NUL-terminated string, null options and error.
        let instr =
            unsafe { gpufp_instr_parse(c.as_ptr(), std::ptr::null(), std::ptr::null_mut()) };
        assert!(!instr.is_null(), "{text} does not parse");
        let p = Prepared::new(text, &Options::default()).unwrap();
        let (inputs, width) = (p.inputs(), p.width());
        let cols: Vec<Vec<u64>> = (0..inputs as u64)
            .map(|k| (0..n as u64).map(|j| operand(width, j, k)).collect())
            .collect();
        let c16: Vec<Vec<u16>> = cols
            .iter()
            .map(|c| c.iter().map(|&x| x as u16).collect())
            .collect();
        let c32: Vec<Vec<u32>> = cols
            .iter()
            .map(|c| c.iter().map(|&x| x as u32).collect())
            .collect();
        let (mut o16, mut o32, mut o64) = (vec![0u16; n], vec![0u32; n], vec![0u64; n]);
        let mut out = vec![0u64; n];
        let (mut t_scalar, mut t_array, mut t_slice) = (Vec::new(), Vec::new(), Vec::new());
        let views: Vec<&[u64]> = cols.iter().map(Vec::as_slice).collect();
        for pass in 0..=reps {
            let ts = time(|| {
                let mut ops = [0u64; 3];
                for j in 0..n {
                    for k in 0..inputs {
                        ops[k] = cols[k][j];
                    }
                    // SAFETY: a live handle, `inputs` operands, a writable result.
                    unsafe { gpufp_eval(instr, ops.as_ptr(), inputs, &mut out[j]) };
                }
            });
            let mut array = || {
                // SAFETY: a live handle, `inputs` arrays of `n` words, `n` writable results.
                let s = unsafe {
                    match width {
                        16 => {
                            let p: Vec<*const u16> = c16.iter().map(|c| c.as_ptr()).collect();
                            gpufp_eval_u16(
                                instr,
                                p.as_ptr(),
                                inputs,
                                n,
                                o16.as_mut_ptr(),
                                std::ptr::null_mut(),
                            )
                        }
                        32 => {
                            let p: Vec<*const u32> = c32.iter().map(|c| c.as_ptr()).collect();
                            gpufp_eval_u32(
                                instr,
                                p.as_ptr(),
                                inputs,
                                n,
                                o32.as_mut_ptr(),
                                std::ptr::null_mut(),
                            )
                        }
                        _ => {
                            let p: Vec<*const u64> = cols.iter().map(|c| c.as_ptr()).collect();
                            gpufp_eval_u64(
                                instr,
                                p.as_ptr(),
                                inputs,
                                n,
                                o64.as_mut_ptr(),
                                std::ptr::null_mut(),
                            )
                        }
                    }
                };
                assert_eq!(s, gpufp_status::GPUFP_OK);
            };
            let mut slice = || p.eval_slice(&views, &mut out).unwrap();
            // Alternate which goes first: the second may find the f64 operands in cache.
            let (ta, tl) = if pass % 2 == 0 {
                let ta = time(&mut array);
                (ta, time(&mut slice))
            } else {
                let tl = time(&mut slice);
                (time(&mut array), tl)
            };
            // The first pass warms the arrays up.
            if pass > 0 {
                t_scalar.push(ts);
                t_array.push(ta);
                t_slice.push(tl);
            }
        }
        let same = match width {
            16 => o16.iter().zip(&out).all(|(a, b)| u64::from(*a) == *b),
            32 => o32.iter().zip(&out).all(|(a, b)| u64::from(*a) == *b),
            _ => o64 == out,
        };
        assert!(same, "{text}: the array call and the slice path differ");
        let ratio = median(t_slice.iter().zip(&t_array).map(|(s, a)| s / a).collect());
        let rate = |t: Vec<f64>| n as f64 / median(t) / 1e6;
        println!(
            "{text:<22} {:>8.1} Mcall/s {:>8.1} M/s {:>8.1} M/s {ratio:>11.2}",
            rate(t_scalar),
            rate(t_array),
            rate(t_slice)
        );
        // SAFETY: freed once.
        unsafe { gpufp_instr_free(instr) };
    }
}
