//! The validator against the real ptxas, when it is installed: 700 generated spellings (valid and
//! not, modifiers in shuffled order) on two targets each, one PTX module per case. Set
//! `GPUFP_PTXAS` to the binary or put `ptxas` on PATH (PyPI `nvidia-cuda-nvcc`); without it the
//! test says so and passes. `cargo test -p gpufp --test ptxas_live -- --nocapture` shows the counts.

mod common;

use common::Rng;
use gpufp::ptx::{self, Instr, Modifier, Opcode, PtxVersion, Target, TestpOp, Type};
use rayon::prelude::*;
use std::path::PathBuf;
use std::process::Command;

fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GPUFP_PTXAS") {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| PathBuf::from(d).join("ptxas"))
        .find(|p| p.is_file())
}

/// Register declaration type, register prefix and load/store suffix per instruction type.
fn regs(ty: Type) -> (&'static str, &'static str, &'static str) {
    match ty {
        Type::F32 => (".f32", "%f", "f32"),
        Type::F64 => (".f64", "%fd", "f64"),
        Type::F16 | Type::Bf16 => (".b16", "%h", "b16"),
        Type::F16x2 | Type::Bf16x2 => (".b32", "%r", "b32"),
        Type::F32x2 => (".b64", "%x", "b64"),
    }
}

/// A kernel that loads the inputs from global memory, runs the instruction, stores the result.
fn module(spelling: &str, i: &Instr, target: Target, ptx: PtxVersion) -> String {
    let (decl, pre, mem) = regs(i.ty);
    let mut s = format!(
        ".version {ptx}\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 p) {{\n  .reg {decl} {pre}<8>;\n  .reg .b64 %rd<4>;\n  .reg .b32 %u<4>;\n  .reg .pred %p<2>;\n  ld.param.u64 %rd1, [p];\n"
    );
    for k in 1..=i.inputs {
        s += &format!("  ld.global.{mem} {pre}{k}, [%rd1+{}];\n", 8 * k);
    }
    let srcs: Vec<String> = (1..=i.inputs).map(|k| format!("{pre}{k}")).collect();
    if matches!(i.opcode, Opcode::Testp(_)) {
        s += &format!(
            "  {spelling} %p1, {};\n  selp.u32 %u1, 1, 0, %p1;\n  st.global.u32 [%rd1], %u1;\n",
            srcs.join(", ")
        );
    } else {
        s += &format!(
            "  {spelling} {pre}7, {};\n  st.global.{mem} [%rd1], {pre}7;\n",
            srcs.join(", ")
        );
    }
    s + "  ret;\n}\n"
}

/// A random instruction, valid on some target half of the time, spelled with its modifiers in
/// shuffled order and the type at a random place after them.
fn spelling(rng: &mut Rng, valid: &[Instr]) -> (String, Instr) {
    let mut i = if rng.below(2) == 0 {
        valid[rng.below(valid.len() as u64) as usize]
    } else {
        let opcode = match Opcode::ALL[rng.below(20) as usize] {
            Opcode::Testp(_) => Opcode::Testp(TestpOp::ALL[rng.below(6) as usize]),
            o => o,
        };
        let mut i = Instr::new(opcode, Type::ALL[rng.below(7) as usize]);
        for (_, m) in ptx::instr::MODIFIERS {
            let p = if matches!(m, Modifier::Rnd(_)) { 10 } else { 4 };
            if rng.below(p) == 0 && (!matches!(m, Modifier::Rnd(_)) || i.mods.rnd.is_none()) {
                i.mods.insert(m);
            }
        }
        if matches!(opcode, Opcode::Min | Opcode::Max) && rng.below(3) == 0 {
            i.inputs = 3;
        }
        i
    };
    // One more or one fewer modifier now and then: the near misses.
    if rng.below(4) == 0 {
        let (_, m) = ptx::instr::MODIFIERS[rng.below(13) as usize];
        if i.mods.has(m) {
            i.mods.remove(m);
        } else if !matches!(m, Modifier::Rnd(_)) || i.mods.rnd.is_none() {
            i.mods.insert(m);
        }
    }
    let (opcode, ty) = (i.opcode, i.ty);
    let mut words: Vec<&str> = i.mods.iter().map(|(n, _)| n).collect();
    // Shuffle; `.full` must stay first, as ptxas demands.
    for k in (1..words.len()).rev() {
        let j = rng.below(k as u64 + 1) as usize;
        words.swap(k, j);
    }
    if let Some(pos) = words.iter().position(|w| *w == "full") {
        words.remove(pos);
        words.insert(0, "full");
    }
    let mut text = opcode.name().to_string();
    if let Opcode::Testp(op) = opcode {
        text += &format!(".{}", op.name());
    }
    let type_at = rng.below(words.len() as u64 + 1) as usize;
    for (k, w) in words.iter().enumerate() {
        if k == type_at && words.first() != Some(&"full") {
            text += &format!(".{}", ty.name());
        }
        text += &format!(".{w}");
    }
    if !text.ends_with(ty.name()) && !text.contains(&format!(".{}.", ty.name())) {
        text += &format!(".{}", ty.name());
    }
    (text, i)
}

#[test]
fn validator_agrees_with_installed_ptxas() {
    let Some(ptxas) = find_ptxas() else {
        eprintln!("skipped: no ptxas (set GPUFP_PTXAS or put ptxas on PATH)");
        return;
    };
    let targets = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
        .map(|t| t.parse::<Target>().unwrap());
    let mut rng = Rng(0x5EED);
    // Every instruction valid on some target (tests/catalog.rs checks it against a brute force).
    let valid = ptx::catalog(None, None);
    let mut seen = std::collections::HashSet::new();
    let mut cases = Vec::new();
    while seen.len() < 700 {
        let (text, i) = spelling(&mut rng, &valid);
        if seen.insert((text.clone(), i.inputs)) {
            for _ in 0..2 {
                cases.push((text.clone(), i, targets[rng.below(6) as usize]));
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("gpufp-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let results: Vec<(bool, Option<String>)> = cases
        .par_iter()
        .enumerate()
        .map(|(n, (text, i, t))| {
            let src = dir.join(format!("k{n}.ptx"));
            let out = dir.join(format!("k{n}.cubin"));
            std::fs::write(&src, module(text, i, *t, PtxVersion::NEWEST)).unwrap();
            let run = Command::new(&ptxas)
                .arg(format!("-arch={t}"))
                .arg("-O0")
                .arg("-o")
                .arg(&out)
                .arg(&src)
                .output()
                .unwrap();
            let accepted = run.status.success() && out.exists();
            let ours = ptx::parse_instr(text)
                .map_err(|e| e.to_string())
                .and_then(|mut p| {
                    p.inputs = i.inputs;
                    ptx::validate(&p, Some(*t), Some(PtxVersion::NEWEST)).map_err(|e| e.to_string())
                });
            let mismatch = (ours.is_ok() != accepted).then(|| {
                format!(
                    "{text} ({} in) on {t}: ptxas {}, ours {ours:?}\n  {}",
                    i.inputs,
                    accepted,
                    String::from_utf8_lossy(&run.stderr).trim()
                )
            });
            (accepted, mismatch)
        })
        .collect();
    std::fs::remove_dir_all(&dir).ok();
    let accepted = results.iter().filter(|r| r.0).count();
    let mismatches: Vec<&String> = results.iter().filter_map(|r| r.1.as_ref()).collect();
    eprintln!(
        "{} cases ({} spellings): ptxas accepted {accepted}, {} disagreements",
        cases.len(),
        seen.len(),
        mismatches.len()
    );
    assert!(
        accepted > 50 && accepted < cases.len() - 50,
        "the generated set must mix valid and invalid spellings"
    );
    assert!(
        mismatches.is_empty(),
        "{}",
        mismatches
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
