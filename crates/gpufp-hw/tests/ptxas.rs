//! The generated kernels against the real ptxas, when it is installed: every campaign variant that
//! is valid on the target, with each operand source, compiled for sm_90, sm_100 and sm_120 (one
//! module per target and source, one entry per variant). Set `GPUFP_PTXAS` to the binary or put
//! `ptxas` on PATH (PyPI `nvidia-cuda-nvcc`), as crates/gpufp/tests/ptxas_live.rs does; without
//! it the test says so and passes.

use gpufp::ptx::Target;
use gpufp_hw::backend::ptx_version;
use gpufp_hw::kernel::{entry, Source};
use gpufp_hw::variants;
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

#[test]
fn ptxas_accepts_every_generated_kernel() {
    let Some(ptxas) = find_ptxas() else {
        eprintln!("skipped: no ptxas (set GPUFP_PTXAS or put ptxas on PATH)");
        return;
    };
    let all = variants::all();
    let dir = std::env::temp_dir().join(format!("gpufp-hw-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut kernels = 0;
    for sm in [90, 100, 120] {
        let target = Target::new(sm);
        let valid: Vec<_> = all
            .iter()
            .filter_map(|i| ptx_version(i, target).ok().map(|v| (i, v)))
            .collect();
        let version = valid.iter().map(|(_, v)| *v).max().unwrap();
        for source in [Source::Exhaustive, Source::Random, Source::Cases] {
            let mut module = format!(".version {version}\n.target {target}\n.address_size 64\n\n");
            for (k, (i, _)) in valid.iter().enumerate() {
                module += &format!("// {i} ({} in)\n", i.inputs);
                module += &entry(i, source, &format!("k{k}"));
            }
            let src = dir.join(format!("{target}-{source:?}.ptx"));
            let out = dir.join(format!("{target}-{source:?}.cubin"));
            std::fs::write(&src, &module).unwrap();
            let run = Command::new(&ptxas)
                .arg(format!("-arch={target}"))
                .arg("-o")
                .arg(&out)
                .arg(&src)
                .output()
                .unwrap();
            assert!(
                run.status.success(),
                "ptxas rejected {}: {}",
                src.display(),
                String::from_utf8_lossy(&run.stderr)
            );
            kernels += valid.len();
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    eprintln!("ptxas accepted {kernels} kernels");
    assert!(kernels > 1000);
}
