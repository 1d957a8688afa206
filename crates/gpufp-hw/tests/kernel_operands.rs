//! The generated kernels' operand code, interpreted on the CPU: for every variant of the campaign
//! and each operand source, the PTX between `// operands: begin` and `// operands: end` is run by
//! a small interpreter of its 64-bit integer instructions, and the operands it computes must be
//! the ones `gpufp::vectors::Plan` defines (random and exhaustive sweeps) or the ones in the case
//! buffer (explicit cases), for case indices across the range.

use gpufp::ptx::{Instr, Target};
use gpufp::vectors::{Plan, Space};
use gpufp_hw::backend::ptx_version;
use gpufp_hw::kernel::{kernel, Source};
use gpufp_hw::variants;
use std::collections::HashMap;

/// Runs the operand section of `ptx` with the given registers and memory; returns the registers.
fn interpret(
    ptx: &str,
    mut regs: HashMap<String, u64>,
    mem: &HashMap<u64, u64>,
) -> HashMap<String, u64> {
    let body = ptx
        .split("// operands: begin\n")
        .nth(1)
        .and_then(|s| s.split("  // operands: end").next())
        .expect("the kernel marks its operand code");
    for line in body.lines() {
        let line = line.trim().trim_end_matches(';');
        let (op, args) = line.split_once(' ').expect("an instruction with operands");
        let args: Vec<&str> = args.split(", ").map(str::trim).collect();
        let val = |a: &str, regs: &HashMap<String, u64>| -> u64 {
            if a.starts_with('%') {
                *regs
                    .get(a)
                    .unwrap_or_else(|| panic!("{a} read before written in `{line}`"))
            } else if let Some(h) = a.strip_prefix("0x") {
                u64::from_str_radix(h, 16).unwrap()
            } else {
                a.parse()
                    .unwrap_or_else(|_| panic!("operand `{a}` in `{line}`"))
            }
        };
        let v = match op {
            "ld.global.u64" => {
                let addr = args[1].trim_matches(['[', ']']);
                let (reg, off) = addr.split_once('+').unwrap_or((addr, "0"));
                mem[&(val(reg, &regs) + off.parse::<u64>().unwrap())]
            }
            _ => {
                let x: Vec<u64> = args[1..].iter().map(|a| val(a, &regs)).collect();
                match op {
                    "mov.u64" => x[0],
                    "shr.u64" => x[0] >> x[1],
                    "shl.b64" => x[0] << x[1],
                    "and.b64" => x[0] & x[1],
                    "or.b64" => x[0] | x[1],
                    "xor.b64" => x[0] ^ x[1],
                    "add.u64" => x[0].wrapping_add(x[1]),
                    "mul.lo.u64" => x[0].wrapping_mul(x[1]),
                    "mad.lo.u64" => x[0].wrapping_mul(x[1]).wrapping_add(x[2]),
                    _ => panic!("the interpreter does not know `{op}` (in `{line}`)"),
                }
            }
        };
        regs.insert(args[0].to_string(), v);
    }
    regs
}

fn operands_of(regs: &HashMap<String, u64>, n: u8) -> Vec<u64> {
    (0..u64::from(n))
        .map(|k| regs[&format!("%rd{}", 10 + k)])
        .collect()
}

fn indices(count: u64) -> Vec<u64> {
    let mut v = vec![
        0,
        1,
        2,
        0xFFFF,
        0x1_0000,
        0x1_0001,
        0x1234_5678,
        count - 1,
        count / 3,
    ];
    v.retain(|&i| i < count);
    v
}

#[test]
fn operand_code_computes_the_sweep_operands() {
    let target = Target::new(100);
    let mut checked = 0;
    for i in variants::all() {
        let Ok(v) = ptx_version(&i, target) else {
            continue;
        };
        for (source, space) in [
            (
                Source::Random,
                Space::Random {
                    count: u64::MAX,
                    seed: 0x0123_4567_89AB_CDEF,
                },
            ),
            (Source::Exhaustive, Space::Exhaustive),
        ] {
            let Ok(plan) = Plan::new(&i, space) else {
                continue;
            };
            let text = kernel(&i, source, target, v);
            for case in indices(plan.count) {
                let seed = match space {
                    Space::Random { seed, .. } => seed,
                    Space::Exhaustive => 0,
                };
                let regs = HashMap::from([("%rd8".to_string(), case), ("%rd5".to_string(), seed)]);
                let got = operands_of(&interpret(&text, regs, &HashMap::new()), i.inputs);
                let want = plan.operands(case)[..usize::from(i.inputs)].to_vec();
                assert_eq!(got, want, "{i} ({} in), {source:?}, case {case}", i.inputs);
                checked += 1;
            }
        }
    }
    assert!(checked > 3000, "only {checked} cases checked");
}

#[test]
fn operand_code_reads_explicit_cases() {
    let target = Target::new(100);
    for text in [
        "fma.rn.f32",
        "add.rn.f16x2",
        "rcp.approx.ftz.f64",
        "testp.normal.f64",
    ] {
        let i: Instr = gpufp::ptx::parse_instr(text).unwrap();
        let ptx = kernel(&i, Source::Cases, target, ptx_version(&i, target).unwrap());
        let n = u64::from(i.inputs);
        let base = 0x7000_0000;
        let mem: HashMap<u64, u64> = (0..10 * n)
            .map(|w| (base + 8 * w, 0xABCD_0000 + w))
            .collect();
        for j in [0u64, 3, 9] {
            let regs = HashMap::from([("%rd2".to_string(), base), ("%rd6".to_string(), j)]);
            let got = operands_of(&interpret(&ptx, regs, &mem), i.inputs);
            let want: Vec<u64> = (0..n).map(|k| 0xABCD_0000 + j * n + k).collect();
            assert_eq!(got, want, "{text}, case {j}");
        }
    }
}
