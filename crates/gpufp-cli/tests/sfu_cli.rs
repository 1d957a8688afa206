//! `gpufp fit-sfu` and `--sfu-tables` / `GPUFP_SFU_TABLES` through the built binary.

use gpufp::mufu::interp;
use gpufp::mufu::table::{Function, Row, Table};
use gpufp::mufu::Op;
use gpufp::F32;
use std::path::PathBuf;
use std::process::{Command, Output};

fn gpufp(args: &[&str], env: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gpufp"));
    c.args(args).env_remove("GPUFP_SFU_TABLES");
    if let Some(v) = env {
        c.env("GPUFP_SFU_TABLES", v);
    }
    c.output().expect("run gpufp")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpufp-sfu-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// RCP Taylor coefficients at each segment's start (docs/sfu.md's arithmetic), a table of
/// our own.
fn synthetic_rcp() -> Table {
    let rows = (0..128i64)
        .map(|j| {
            let d = 128 + j;
            Row {
                a: (1 << 33) / d,
                b: -(1i64 << 30) / (d * d),
                c: (1i64 << 31) / (d * d * d),
            }
        })
        .collect();
    Table::new(Function::Rcp, rows).expect("a table")
}

/// Every 32nd input of [1, 2) with the model's output; `corrupt` flips one output's last bit.
fn write_capture(name: &str, corrupt: bool) -> PathBuf {
    let table = synthetic_rcp();
    let mut s = String::from("# MUFU.RCP from the model\n");
    for (k, f) in (0..1u32 << 23).step_by(32).enumerate() {
        let a = 0x3F80_0000 | f;
        let mut d = interp::eval(Op::Rcp, &table, F32(a)).0;
        if corrupt && k == 100_000 {
            d ^= 1;
        }
        s += &format!("0x{a:08x} 0x{d:08x}\n");
    }
    let path = scratch(name);
    std::fs::write(&path, s).expect("write capture");
    path
}

#[test]
fn fit_sfu_writes_a_table_that_loads() {
    let capture = write_capture("good.txt", false);
    let table = scratch("good.tsv");
    let (c, t) = (capture.to_str().unwrap(), table.to_str().unwrap());
    let o = gpufp(&["fit-sfu", "rcp", c, "-o", t], None);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}{}", text(&o.stderr));
    assert!(out.contains("128 segments: 128 fitted"), "{out}");
    assert!(out.contains("reproduces 262144 of 262144"), "{out}");
    let o = gpufp(&["eval", "--sfu-tables", t, "add.f32", "1", "2"], None);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = gpufp(&["batch"], Some(t));
    assert!(o.status.success(), "{}", text(&o.stderr));
    for p in [capture, table] {
        std::fs::remove_file(p).expect("remove scratch file");
    }
}

#[test]
fn fit_sfu_reports_an_unexplainable_capture() {
    let capture = write_capture("bad.txt", true);
    let table = scratch("bad.tsv");
    let (c, t) = (capture.to_str().unwrap(), table.to_str().unwrap());
    let o = gpufp(&["fit-sfu", "rcp", c, "-o", t], None);
    let err = text(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("128 segments: 127 fitted, 1 unexplained"),
        "{err}"
    );
    assert!(err.contains("no table written"), "{err}");
    assert!(!table.exists());
    std::fs::remove_file(capture).expect("remove scratch file");
}

#[test]
fn bad_files_are_errors_with_line_and_column() {
    let bad = scratch("bad-table.tsv");
    std::fs::write(&bad, "function index A B C\nrcp 0 1 2\n").unwrap();
    let b = bad.to_str().unwrap();
    let o = gpufp(&["eval", "--sfu-tables", b, "add.f32", "1", "2"], None);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("line 2, column 10: expected 5 fields"));
    let o = gpufp(&["eval", "add.f32", "1", "2"], Some(b));
    assert!(
        text(&o.stderr).contains("line 2, column 10"),
        "{}",
        text(&o.stderr)
    );
    let o = gpufp(&["fit-sfu", "rcp", b, "-o", b], None);
    assert!(text(&o.stderr).contains("line 1, column 1: `function` is not a 32-bit"));
    std::fs::remove_file(bad).expect("remove scratch file");
}
