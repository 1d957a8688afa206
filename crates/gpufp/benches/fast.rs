//! `fast::eval_slice` against the integer core and the host FPU's plain operation, on 4096
//! elements (operands and results in L2). `cargo bench -p gpufp --bench fast`; divan reports
//! the median time per pass, and the throughput in items (results) per second.
//! `gpufp bench` prints the same comparison as a table, with SoftFloat and rustc_apfloat.

use divan::counter::ItemsCount;
use divan::{black_box, Bencher};
use gpufp::fast::eval_slice;
use gpufp::ptx::{eval, parse_instr, Context};
use gpufp::vectors::mix;

fn main() {
    divan::main();
}

const N: usize = 4096;

/// Finite normal operands with exponents within 2^-20..2^20 of `bits`-bit type.
fn operands(bits: u32, k: u64) -> Vec<u64> {
    (0..N as u64)
        .map(|j| {
            let r = mix(j << 2 | k);
            match bits {
                32 => (r & 0x807F_FFFF) | (107 + (r >> 40) % 41) << 23,
                _ => (r & 0x800F_FFFF_FFFF_FFFF) | (1003 + (r >> 40) % 41) << 52,
            }
        })
        .collect()
}

const INSTRS: &[&str] = &[
    "add.rn.f32",
    "mul.rz.ftz.sat.f32",
    "fma.rp.f32",
    "add.rm.f64",
    "fma.rz.f64",
    "div.rp.f64",
];

#[divan::bench(args = INSTRS)]
fn fast(b: Bencher, text: &str) {
    let i = parse_instr(text).unwrap();
    let ctx = Context::default();
    let cols: Vec<Vec<u64>> = (0..i.inputs)
        .map(|k| operands(i.ty.bits(), k.into()))
        .collect();
    let ops: Vec<&[u64]> = cols.iter().map(Vec::as_slice).collect();
    let mut out = vec![0u64; N];
    b.counter(ItemsCount::new(N)).bench_local(|| {
        eval_slice(&i, black_box(&ops), &ctx, &mut out).unwrap();
        black_box(&mut out);
    });
}

#[divan::bench(args = INSTRS, sample_count = 20)]
fn core(b: Bencher, text: &str) {
    let i = parse_instr(text).unwrap();
    let ctx = Context::default();
    let n = usize::from(i.inputs);
    let cols: Vec<Vec<u64>> = (0..3).map(|k| operands(i.ty.bits(), k)).collect();
    let mut out = vec![0u64; N];
    b.counter(ItemsCount::new(N)).bench_local(|| {
        for (j, o) in out.iter_mut().enumerate() {
            let x = [cols[0][j], cols[1][j], cols[2][j]];
            *o = eval(&i, black_box(&x[..n]), &ctx).unwrap();
        }
        black_box(&mut out);
    });
}

/// The host's plain round-to-nearest f32 add and f64 add over the same kind of arrays.
#[divan::bench(args = [32, 64])]
fn host_add(b: Bencher, bits: u32) {
    let (x, y) = (operands(bits, 0), operands(bits, 1));
    let mut out = vec![0u64; N];
    b.counter(ItemsCount::new(N)).bench_local(|| {
        let (x, y) = (black_box(&x), black_box(&y));
        for j in 0..N {
            out[j] = if bits == 32 {
                u64::from((f32::from_bits(x[j] as u32) + f32::from_bits(y[j] as u32)).to_bits())
            } else {
                (f64::from_bits(x[j]) + f64::from_bits(y[j])).to_bits()
            };
        }
        black_box(&mut out);
    });
}
