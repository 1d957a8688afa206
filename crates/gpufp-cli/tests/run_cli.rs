//! `gpufp run` through the built binary: the output format, `--trace`, `--mem`, and errors with
//! the file, line and column. Expected values are worked out by hand beside each.

use std::process::{Command, Output};

fn gpufp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpufp"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(args)
        .output()
        .expect("run gpufp")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// The arguments of a file's `// args:` lines.
fn file_args(path: &str) -> Vec<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    std::fs::read_to_string(format!("{root}/{path}"))
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("// args:"))
        .flat_map(|l| l.split_whitespace().map(String::from))
        .collect()
}

fn run_example(path: &str, extra: &[&str]) -> Output {
    let mut args = vec!["run".to_string(), path.to_string()];
    args.extend(file_args(path));
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    gpufp(&refs)
}

#[test]
fn prints_written_registers_with_bits_and_values() {
    // 9.7.3.6: w = 3 * 0x3EAAAAAB - 1 = 2^-25 (exact product 1 + 2^-25, one rounding);
    // d = (1 + 2^-52)^2 - 1 = 2^-51 after ties-to-even; pp lanes [1 + 2^-23, 2].
    let o = run_example("examples/ptx/9.7.3.6-fma.ptx", &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "w  = 0x33000000 .f32 2.98023224e-08\n\
         d  = 0x3cc0000000000000 .f64 4.4408920985006262e-16\n\
         pp = 0x400000003f800001 .f32x2 [1.00000012, 2]\n"
    );
}

#[test]
fn trace_lists_every_write_with_its_line() {
    // 9.7.4.5: neg.ftz.f16(subnormal) = -0, then neg.bf16(1) = -1 overwrites x;
    // neg.bf16x2 [3, -0] = [-3, +0].
    let o = run_example("examples/ptx/9.7.4.5-neg.ptx", &["--trace"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "line 11: x = 0x8000 .f16 -0\n\
         line 13: x = 0xbf80 .bf16 -1\n\
         line 15: x1 = 0x0000c040 .bf16x2 [-3, 0]\n\
         final:\n\
         x  = 0xbf80 .bf16 -1\n\
         x1 = 0x0000c040 .bf16x2 [-3, 0]\n"
    );
}

#[test]
fn loads_and_stores_memory() {
    let path = std::env::temp_dir().join(format!("gpufp-run-{}.ptx", std::process::id()));
    std::fs::write(
        &path,
        ".reg .b64 p;\n.reg .b32 x, y;\n\
         ld.global.b32 x, [p];\n\
         add.f16x2 y, x, x;      // [1 + 1, 2 + 2]\n\
         st.global.b32 [p+4], y;\n",
    )
    .unwrap();
    let o = gpufp(&[
        "run",
        path.to_str().unwrap(),
        "--set",
        "p=0x100",
        "--mem",
        "0x100=0x40003c00",
    ]);
    std::fs::remove_file(&path).ok();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "x = 0x40003c00 .b32\n\
         y = 0x44004000 .f16x2 [2, 4]\n\
         [0x104] = 0x44004000 .b32\n"
    );
}

#[test]
fn approximate_instructions_run_on_the_default_core() {
    // 9.7.3.21: ex2.approx.ftz.f32 0.5 = sqrt(2) correctly rounded (0x3FB504F3, 1.0110101
    // 00000100111100110|011.. rounds down); 9.7.3.20: lg2(0.5) = -1 exactly.
    let o = run_example("examples/ptx/9.7.3.21-ex2.ptx", &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "xa = 0x3fb504f3 .f32 1.41421354\n");
    let o = run_example("examples/ptx/9.7.3.20-lg2.ptx", &[]);
    assert_eq!(text(&o.stdout), "la = 0xbf800000 .f32 -1\n");
}

#[test]
fn bad_files_and_arguments_are_errors() {
    let path = std::env::temp_dir().join(format!("gpufp-run-bad-{}.ptx", std::process::id()));
    std::fs::write(&path, ".reg .f32 a;\nadd.f32 a, a, b;\n").unwrap();
    let p = path.to_str().unwrap();
    let o = gpufp(&["run", p]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        format!("error: {p}: line 2, column 15: undeclared register `b`\n")
    );
    std::fs::write(&path, ".reg .f32 a;\nadd.f32 a, a, a;\n").unwrap();
    let o = gpufp(&["run", p, "--set", "z=1"]);
    assert_eq!(
        text(&o.stderr),
        "error: --set z=1: `z` is not a declared register\n"
    );
    let o = gpufp(&["run", p, "--set", "a=0x1ffffffff"]);
    assert!(text(&o.stderr).contains("wider than the 32-bit"));
    let o = gpufp(&["run", p, "--mem", "0x10=0x123"]);
    assert!(text(&o.stderr).contains("2, 4, 8 or 16 hex digits"));
    std::fs::remove_file(&path).ok();
    let o = gpufp(&["run", "no/such/file.ptx"]);
    assert!(text(&o.stderr).starts_with("error: reading no/such/file.ptx"));
}
