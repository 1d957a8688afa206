//! `gpufp bench`: the throughput of `fast::eval_slice` and, in the same run on the same operand
//! arrays, of the host FPU's plain operation, the integer core (`ptx::eval` per element) and, with
//! the `baselines` feature, Berkeley SoftFloat (softfloat-wrapper) and rustc_apfloat. Each figure
//! is the median of `--reps` passes over the arrays.

use super::prepare;
use gpufp::fast::eval_slice;
use gpufp::front::Options;
use gpufp::ptx::{self, Instr, Opcode, Type};
use gpufp::vectors::mix;
use gpufp::Round;
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Elements per array: 4096 keeps the three operand and the result arrays (u64) in L2.
    #[arg(long, default_value_t = 4096, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    n: usize,
    /// Passes per measurement; the median is reported.
    #[arg(long, default_value_t = 31, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    reps: usize,
    /// Operand values: `moderate` (finite, normal, |exponent| <= 20: typical data) or `bits`
    /// (uniform random bit patterns: NaNs, infinities, subnormals, overflow and underflow).
    #[arg(long, default_value = "moderate", value_parser = ["moderate", "bits"])]
    operands: String,
    /// Measure the fast path only.
    #[arg(long)]
    fast_only: bool,
    /// Instructions (default: the set of the performance goals).
    instrs: Vec<String>,
}

const DEFAULT: &[&str] = &[
    "add.rn.f32",
    "add.rz.ftz.sat.f32",
    "sub.rm.f32",
    "mul.rp.f32",
    "mul.rn.ftz.f32",
    "fma.rn.f32",
    "fma.rz.ftz.sat.f32",
    "add.rn.f64",
    "add.rp.f64",
    "mul.rz.f64",
    "fma.rn.f64",
    "fma.rm.f64",
    "div.rn.f64",
    "div.rp.f64",
    "sqrt.rn.f64",
    "sqrt.rz.f64",
    "add.rn.f16",
    "mul.rn.bf16",
    "fma.rn.f16",
    "fma.rn.bf16",
];

/// The median of `reps` timings of `pass` over `n` elements, in results per second.
fn rate(n: usize, reps: usize, mut pass: impl FnMut()) -> f64 {
    pass();
    let mut t: Vec<f64> = (0..reps.max(1))
        .map(|_| {
            let s = Instant::now();
            pass();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    n as f64 / t[t.len() / 2]
}

/// Operand `k` of element `j` for type `ty`.
fn operand(moderate: bool, ty: Type, j: usize, k: usize) -> u64 {
    let r = mix((j as u64) << 2 | k as u64);
    let (e_bits, f_bits, bits) = match ty {
        Type::F64 => (11, 52, 64),
        Type::F16 => (5, 10, 16),
        Type::Bf16 => (8, 7, 16),
        _ => (8, 23, 32),
    };
    if !moderate {
        return if bits == 64 { r } else { r & ((1 << bits) - 1) };
    }
    let bias = (1u64 << (e_bits - 1)) - 1;
    let span = if ty == Type::F16 { 6 } else { 20 };
    let e = bias - span + (r >> 40) % (2 * span + 1);
    let sign = (r >> 63) << (bits - 1);
    sign | e << f_bits | (r & ((1 << f_bits) - 1))
}

/// An implementation measured beside the fast path: `None` where it lacks the operation.
type Baseline = fn(&Instr, &[u64], &[u64], &[u64], &mut [u64]) -> Option<()>;

/// The host FPU's plain operation (round to nearest, no PTX modifiers) on the same arrays,
/// compiled for the CPU's SIMD level as the fast path is.
fn host(i: &Instr, a: &[u64], b: &[u64], c: &[u64], out: &mut [u64]) -> Option<()> {
    gpufp_dispatch::run(Host { i, a, b, c, out })
}

struct Host<'a> {
    i: &'a Instr,
    a: &'a [u64],
    b: &'a [u64],
    c: &'a [u64],
    out: &'a mut [u64],
}

impl gpufp_dispatch::Job for Host<'_> {
    type Output = Option<()>;

    #[inline(always)]
    fn run<const HW_FMA: bool>(self) -> Option<()> {
        let Host { i, a, b, c, out } = self;
        host_loop(i, a, b, c, out)
    }
}

#[inline(always)]
fn host_loop(i: &Instr, a: &[u64], b: &[u64], c: &[u64], out: &mut [u64]) -> Option<()> {
    macro_rules! lanes {
        ($t:ty, $u:ty, $f:expr) => {{
            let f = $f;
            for j in 0..out.len() {
                let (x, y, z) = (
                    <$t>::from_bits(a[j] as $u),
                    <$t>::from_bits(b[j] as $u),
                    <$t>::from_bits(c[j] as $u),
                );
                out[j] = u64::from(f(x, y, z).to_bits());
            }
        }};
    }
    match (i.ty, i.opcode) {
        (Type::F32, Opcode::Add) => lanes!(f32, u32, |x: f32, y: f32, _| x + y),
        (Type::F32, Opcode::Sub) => lanes!(f32, u32, |x: f32, y: f32, _| x - y),
        (Type::F32, Opcode::Mul) => lanes!(f32, u32, |x: f32, y: f32, _| x * y),
        (Type::F32, Opcode::Fma) => lanes!(f32, u32, |x: f32, y, z| x.mul_add(y, z)),
        (Type::F64, Opcode::Add) => lanes!(f64, u64, |x: f64, y: f64, _| x + y),
        (Type::F64, Opcode::Sub) => lanes!(f64, u64, |x: f64, y: f64, _| x - y),
        (Type::F64, Opcode::Mul) => lanes!(f64, u64, |x: f64, y: f64, _| x * y),
        (Type::F64, Opcode::Fma) => lanes!(f64, u64, |x: f64, y, z| x.mul_add(y, z)),
        (Type::F64, Opcode::Div) => lanes!(f64, u64, |x: f64, y: f64, _| x / y),
        (Type::F64, Opcode::Rcp) => lanes!(f64, u64, |x: f64, _, _| 1.0 / x),
        (Type::F64, Opcode::Sqrt) => lanes!(f64, u64, |x: f64, _, _| x.sqrt()),
        _ => return None,
    }
    Some(())
}

#[cfg(feature = "baselines")]
mod baselines {
    use gpufp::ptx::{Instr, Opcode, Type};
    use gpufp::Round;
    use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
    use rustc_apfloat::{Float as _, Round as ApRound};
    use softfloat_wrapper::{Float as _, RoundingMode, BF16, F16, F32, F64};

    /// Berkeley SoftFloat's operation in the instruction's rounding direction.
    pub fn softfloat(i: &Instr, a: &[u64], b: &[u64], c: &[u64], out: &mut [u64]) -> Option<()> {
        let rnd = match i.mods.rnd.unwrap_or(Round::Rn) {
            Round::Rn => RoundingMode::TiesToEven,
            Round::Rz => RoundingMode::TowardZero,
            Round::Rm => RoundingMode::TowardNegative,
            Round::Rp => RoundingMode::TowardPositive,
        };
        macro_rules! run {
            ($t:ty, $u:ty) => {{
                for j in 0..out.len() {
                    let x = <$t>::from_bits(a[j] as $u);
                    let y = <$t>::from_bits(b[j] as $u);
                    let r = match i.opcode {
                        Opcode::Add => x.add(y, rnd),
                        Opcode::Sub => x.sub(y, rnd),
                        Opcode::Mul => x.mul(y, rnd),
                        Opcode::Fma | Opcode::Mad => {
                            x.fused_mul_add(y, <$t>::from_bits(c[j] as $u), rnd)
                        }
                        Opcode::Div => x.div(y, rnd),
                        Opcode::Sqrt => x.sqrt(rnd),
                        _ => return None,
                    };
                    out[j] = u64::from(r.to_bits());
                }
            }};
        }
        match i.ty {
            Type::F16 => run!(F16, u16),
            Type::Bf16 => run!(BF16, u16),
            Type::F32 => run!(F32, u32),
            Type::F64 => run!(F64, u64),
            _ => return None,
        }
        Some(())
    }

    /// rustc_apfloat's operation in the instruction's rounding direction (it has no sqrt).
    pub fn apfloat(i: &Instr, a: &[u64], b: &[u64], c: &[u64], out: &mut [u64]) -> Option<()> {
        let rnd = match i.mods.rnd.unwrap_or(Round::Rn) {
            Round::Rn => ApRound::NearestTiesToEven,
            Round::Rz => ApRound::TowardZero,
            Round::Rm => ApRound::TowardNegative,
            Round::Rp => ApRound::TowardPositive,
        };
        macro_rules! run {
            ($t:ty) => {{
                for j in 0..out.len() {
                    let x = <$t>::from_bits(u128::from(a[j]));
                    let y = <$t>::from_bits(u128::from(b[j]));
                    let r = match i.opcode {
                        Opcode::Add => x.add_r(y, rnd),
                        Opcode::Sub => x.sub_r(y, rnd),
                        Opcode::Mul => x.mul_r(y, rnd),
                        Opcode::Fma | Opcode::Mad => {
                            x.mul_add_r(y, <$t>::from_bits(u128::from(c[j])), rnd)
                        }
                        Opcode::Div => x.div_r(y, rnd),
                        _ => return None,
                    };
                    out[j] = r.value.to_bits() as u64;
                }
            }};
        }
        match i.ty {
            Type::F16 => run!(Half),
            Type::Bf16 => run!(BFloat),
            Type::F32 => run!(Single),
            Type::F64 => run!(Double),
            _ => return None,
        }
        Some(())
    }
}

/// A rate in results per second, with a unit.
fn show(r: Option<f64>) -> String {
    match r {
        Some(r) if r >= 1e9 => format!("{:.2} G/s", r / 1e9),
        Some(r) => format!("{:.1} M/s", r / 1e6),
        None => "-".into(),
    }
}

fn ratio(x: f64, y: Option<f64>) -> String {
    y.map_or("-".into(), |y| format!("{:.2}", x / y))
}

pub fn bench(a: BenchArgs) -> ExitCode {
    let texts: Vec<String> = if a.instrs.is_empty() {
        DEFAULT.iter().map(|s| s.to_string()).collect()
    } else {
        a.instrs.clone()
    };
    let moderate = a.operands == "moderate";
    let n = a.n.max(1);
    println!(
        "n = {n} elements per array, median of {} passes, operands: {}, one thread, SIMD level: {}",
        a.reps,
        a.operands,
        gpufp_dispatch::detected().name()
    );
    println!(
        "{:<22} {:>10} {:>10} {:>10} {:>9} {:>10} {:>8} {:>10} {:>8}",
        "instruction",
        "fast",
        "host",
        "core",
        "fast/host",
        "softfloat",
        "fast/sf",
        "apfloat",
        "fast/ap"
    );
    let mut rows = Vec::new();
    for text in &texts {
        let inputs = ptx::parse_instr(text)
            .map(|i| usize::from(i.opcode.default_inputs()))
            .unwrap_or(2);
        let ready = match prepare(text, inputs, &Options::default()) {
            Ok(r) => r,
            Err((_, e)) => {
                eprintln!("error: `{text}`: {e}");
                return ExitCode::FAILURE;
            }
        };
        let i = *ready.effective();
        let ctx = &ready.ctx;
        // The square root of a negative number is NaN: nonnegative operands for it.
        let sign = if i.opcode == Opcode::Sqrt && moderate {
            !(1u64 << (i.ty.bits() - 1))
        } else {
            u64::MAX
        };
        let cols: Vec<Vec<u64>> = (0..3)
            .map(|k| {
                (0..n)
                    .map(|j| operand(moderate, i.ty, j, k) & sign)
                    .collect()
            })
            .collect();
        let (x, y, z) = (&cols[0][..], &cols[1][..], &cols[2][..]);
        let ops: Vec<&[u64]> = cols[..inputs].iter().map(Vec::as_slice).collect();
        let mut out = vec![0u64; n];
        let fast = rate(n, a.reps, || {
            if let Err(e) = eval_slice(&i, black_box(&ops), ctx, &mut out) {
                eprintln!("error: `{text}`: {e}");
            }
            black_box(&mut out);
        });
        if a.fast_only {
            println!("{text:<22} {:>10}", show(Some(fast)));
            continue;
        }
        let core = rate(n, a.reps.min(5), || {
            for (j, o) in out.iter_mut().enumerate() {
                let v = [x[j], y[j], z[j]];
                *o = ptx::eval(&i, black_box(&v[..inputs]), ctx).unwrap_or(0);
            }
            black_box(&mut out);
        });
        let plain = Instr {
            mods: gpufp::ptx::Modifiers {
                rnd: Some(Round::Rn),
                ..Default::default()
            },
            ..i
        };
        let measure = |f: Baseline, target: &Instr, out: &mut Vec<u64>| {
            f(target, x, y, z, out)?;
            Some(rate(n, a.reps, || {
                f(target, black_box(x), black_box(y), black_box(z), out);
                black_box(&mut *out);
            }))
        };
        let host = measure(host, &plain, &mut out);
        #[cfg(feature = "baselines")]
        let (sf, ap) = (
            measure(baselines::softfloat, &i, &mut out),
            measure(baselines::apfloat, &i, &mut out),
        );
        #[cfg(not(feature = "baselines"))]
        let (sf, ap): (Option<f64>, Option<f64>) = (None, None);
        rows.push(Row {
            ty: i.ty,
            text: text.clone(),
            figures: [
                Some(fast),
                host.map(|h| fast / h),
                sf.map(|r| fast / r),
                ap.map(|r| fast / r),
            ],
        });
        println!(
            "{:<22} {:>10} {:>10} {:>10} {:>9} {:>10} {:>8} {:>10} {:>8}",
            text,
            show(Some(fast)),
            show(host),
            show(Some(core)),
            ratio(fast, host),
            show(sf),
            ratio(fast, sf),
            show(ap),
            ratio(fast, ap)
        );
    }
    if cfg!(not(feature = "baselines")) {
        println!("(softfloat and apfloat: build with `--features baselines`)");
    }
    lowest(&rows);
    ExitCode::SUCCESS
}

/// One measured instruction's figures: the fast path's rate, then its ratios to the host,
/// SoftFloat and rustc_apfloat.
struct Row {
    ty: Type,
    text: String,
    figures: [Option<f64>; 4],
}

/// For each type with several instructions, the lowest of each figure and where it occurred: the
/// figures to hold against the performance goals.
fn lowest(rows: &[Row]) {
    let mut types: Vec<Type> = Vec::new();
    for r in rows {
        if !types.contains(&r.ty) {
            types.push(r.ty);
        }
    }
    for ty in types {
        let of: Vec<&Row> = rows.iter().filter(|r| r.ty == ty).collect();
        if of.len() < 2 {
            continue;
        }
        let figure = |k: usize, name: &str| {
            let low = of
                .iter()
                .filter_map(|r| r.figures[k].map(|v| (v, &r.text)))
                .min_by(|x, y| x.0.total_cmp(&y.0));
            low.map(|(v, text)| {
                let v = if k == 0 {
                    show(Some(v))
                } else {
                    format!("{v:.2}")
                };
                format!("{name} {v} ({text})")
            })
        };
        let parts: Vec<String> = [
            (0, "fast"),
            (1, "fast/host"),
            (2, "fast/sf"),
            (3, "fast/ap"),
        ]
        .into_iter()
        .filter_map(|(k, name)| figure(k, name))
        .collect();
        println!("lowest of {} {}: {}", of.len(), ty.name(), parts.join(", "));
    }
}
