//! The command-line contract (README.md), run through the built `gpufp` binary.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn gpufp(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpufp"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gpufp");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn batch_example_from_the_issue() {
    let o = gpufp(&["batch"], "fma.rn.f32 0x3f800000 0x40000000 0x40400000\n");
    assert_eq!(stdout(&o), "0x40a00000\n");
    assert!(o.status.success());
}

/// One output line per case; blank and `#` lines skipped; a bad line gives `error:` with its
/// position and the batch goes on; exit status 1.
#[test]
fn batch_reports_bad_lines_and_carries_on() {
    let input = "# comment\n\nadd.f32 0x3f800000 0x3f800000\nadd.f32 0x3f800000 zz\nmul.rn.bf16 1.5 2\n\tbogus.f32 1 2\nmin.f16x2 0x7e00bc00 0x3c003c00\ntestp.normal.f64 0x0\n";
    let o = gpufp(&["batch"], input);
    let lines: Vec<String> = stdout(&o).lines().map(String::from).collect();
    assert_eq!(
        lines,
        [
            "0x40000000",
            "error: line 4, column 20: operand 2: `zz` is not a number, `0x` bit pattern or `0f`/`0d` literal",
            "0x4040",
            "error: line 6, column 2: unknown floating-point opcode `bogus`",
            "0x3c00bc00",
            "1",
        ]
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn batch_reads_a_file_and_respects_target() {
    let path = std::env::temp_dir().join(format!("gpufp-cli-test-{}.txt", std::process::id()));
    std::fs::write(&path, "min.NaN.f32 0x7fc00000 0x0\n").unwrap();
    let o = gpufp(&["batch", "--target", "sm_75", path.to_str().unwrap()], "");
    assert_eq!(
        stdout(&o),
        "error: line 1, column 1: Feature '.NaN' requires .target sm_80 or higher\n"
    );
    let o = gpufp(&["batch", "--target", "sm_80", path.to_str().unwrap()], "");
    assert_eq!(stdout(&o), "0x7fffffff\n");
    std::fs::remove_file(&path).unwrap();
    let o = gpufp(&["batch", "/nonexistent/gpufp"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("error: reading /nonexistent/gpufp"));
}

#[test]
fn eval_prints_bits_value_rules_and_policy_dependence() {
    let o = gpufp(&["eval", "mul.rn.ftz.f32", "0x3F7FFFFF", "0x00800000"], "");
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.starts_with("0x00000000\nvalue: 0\n"), "{out}");
    assert!(out.contains("rule: result tiny, flushed to zero"), "{out}");
    assert!(out.contains("policy: depends on unverified policy `ftz_tininess`: with `IeeeRounded` the result is 0x00800000"), "{out}");
    // Lane 0 is the low half: 1 + 1 = 2 (0x4000) there, 1 + -1 = +0 in lane 1.
    let o = gpufp(&["eval", "add.f16x2", "0x3c003c00", "0xbc003c00"], "");
    assert_eq!(stdout(&o), "0x00004000\nvalue: [2, 0]\n");
    let o = gpufp(&["eval", "max.f32", "-0.0", "0.0"], "");
    assert_eq!(stdout(&o), "0x00000000\nvalue: 0\n");
}

#[test]
fn eval_errors_exit_1() {
    for args in [
        &["eval", "fma.f32", "1", "2", "3"][..],
        &["eval", "add.f32", "1"],
        &["eval", "add.f16", "0x10000", "1"],
        &["eval", "add.xyz.f32", "1", "2"],
    ] {
        let o = gpufp(args, "");
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).starts_with("error: "),
            "{args:?}"
        );
    }
    // A malformed option value is a usage error (status 2), and says which value.
    let o = gpufp(&["eval", "--target", "sm_99", "add.f32", "1", "2"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown target `sm_99`"));
}

#[test]
fn parse_prints_canonical_form_and_requirements() {
    let o = gpufp(&["parse", "min.xorsign.abs.NaN.f32"], "");
    assert!(stdout(&o).starts_with("min.NaN.xorsign.abs.f32\noperands: d: .f32 (32 bits); a, b: .f32 (32 bits)\nrequires: sm_86, PTX ISA 7.2\n"));
    let o = gpufp(&["parse", "--target", "sm_80", "min.xorsign.abs.f16"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("Feature 'min.xorsign.abs' requires .target sm_86 or higher"));
}

#[test]
fn visa_asm_disasm_and_run() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let worked = format!("{dir}/../../examples/visa/worked.visa");
    let o = gpufp(&["visa", "asm", &worked], "");
    assert_eq!(stdout(&o), "45 03 01 00 5c 00 00 00 00 00 00 02 00 5c 00 00 00 00 00 22 01 00 5d 00 00 00 00 04 22 01\n");
    let o = gpufp(
        &[
            "visa",
            "disasm",
            "45 03 01 00 5C000000 00 00 0002 00 5C000000 00 00 2201 00 5D000000 00 04 2201",
        ],
        "",
    );
    assert_eq!(
        stdout(&o),
        "max (M1, 8) V92(0,0)<1> V92(0,0)<1;1,0> V93(0,4)<1;1,0>\n"
    );
    let o = gpufp(&["visa", "disasm", "45 03"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("truncated"));
    let example = format!("{dir}/../../examples/visa/minmax.visa");
    let o = gpufp(
        &[
            "visa",
            "run",
            &example,
            "--set",
            "V33=-0.5,-2",
            "--set",
            "V34=1,1",
            "--print",
            "V35",
            "--print",
            "V34",
        ],
        "",
    );
    let out = stdout(&o);
    assert!(
        out.starts_with(
            "V35[0] = 0x3f000000  0.5\nV35[1] = 0x3f800000  1\nV35[2] = 0x00000000  0\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "V34[0] = 0xbf000000  -0.5\nV34[1] = 0xc0000000  -2\nV34[2] = 0x00000000  0\n"
        ),
        "{out}"
    );
    let o = gpufp(&["visa", "run", &example, "--set", "V99=1"], "");
    assert!(String::from_utf8_lossy(&o.stderr).contains("V99 is not declared"));
}

/// `--set A0=...` with `&V<n>` addresses, `--print A0`, and the indirect example's result:
/// V34[k] = sat(max(-V33[2k], 0)) = [0.5, 1, 0, 0, ...]; V35[k] = min(V33[2k+1], V34[k]) as
/// half = [0.5, -1, 0, 0]. V35 follows V33 (64 bytes) and V34 (32 bytes): byte 96.
#[test]
fn visa_indirect_run() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let example = format!("{dir}/../../examples/visa/indirect.visa");
    let run = |set_a0: &str| {
        gpufp(
            &[
                "visa",
                "run",
                &example,
                "--set",
                "V33=-0.5,3,-2,-1,0.25,0.5,1,7",
                "--set",
                set_a0,
                "--print",
                "V35",
                "--print",
                "A0",
            ],
            "",
        )
    };
    let o = run("A0=&V33,&V35");
    let out = stdout(&o);
    assert!(
        out.starts_with(
            "V35[0] = 0x3800  0.5\nV35[1] = 0xbc00  -1\nV35[2] = 0x0000  0\nV35[3] = 0x0000  0\n"
        ),
        "{out}"
    );
    assert!(
        out.ends_with("A0[0] = 0x0000  0\nA0[1] = 0x0060  96\n"),
        "{out}"
    );
    // The same addresses as numbers and as offsets from another variable.
    assert_eq!(stdout(&run("A0=0,0x60")), out);
    let o = run("A0=&V34-32");
    assert!(String::from_utf8_lossy(&o.stderr).contains("`&V34-32`: expected `&V<number>`"));
    assert_eq!(stdout(&run("A0=&V33+0,&V34+32")), out);
    let o = run("A0=0,4096");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("dst r[A0(1),0]<1>:hf, channel 0: bytes 4096..4098 are outside the register file (128 bytes)"));
    let o = run("A0=70000");
    assert!(String::from_utf8_lossy(&o.stderr).contains("does not fit a 16-bit address"));
    // Every declared variable is printed by default, address variables after general ones.
    let o = gpufp(&["visa", "run", &example], "");
    assert!(stdout(&o).ends_with("V35[7] = 0x0000  0\nA0[0] = 0x0000  0\nA0[1] = 0x0000  0\n"));
}

/// `--policy NAME=VALUE` selects an alternative for `eval`, `batch`, `gen` and `check`; the
/// result and the alternatives shown are relative to it; bad selections are errors.
#[test]
fn policy_selection() {
    let args = ["mul.rn.ftz.f32", "0x3F7FFFFE", "0x00800001"];
    let o = gpufp(&["eval", args[0], args[1], args[2]], "");
    assert!(stdout(&o).starts_with("0x00800000\n"), "{}", stdout(&o));
    let o = gpufp(
        &[
            "eval",
            "--policy",
            "ftz_tininess=BeforeRounding",
            args[0],
            args[1],
            args[2],
        ],
        "",
    );
    assert_eq!(
        stdout(&o),
        "0x00000000\nvalue: 0\nrule: result tiny, flushed to zero (.ftz; policy ftz_tininess)\n\
         policy: depends on unverified policy `ftz_tininess`: with `IeeeRounded` the result is 0x00800000\n\
         policy: depends on unverified policy `ftz_tininess`: with `UnboundedRounded` the result is 0x00800000\n"
    );
    // Options anywhere before the instruction, and for batch and gen.
    let o = gpufp(
        &["batch", "--policy", "relu_negative_zero=Keep"],
        "fma.rn.relu.f16 -1 0 -0.0\n",
    );
    assert_eq!(stdout(&o), "0x8000\n");
    let o = gpufp(
        &[
            "gen",
            "--policy",
            "f64_nan=Canonical",
            "add.rn.f64",
            "--count",
            "3000",
        ],
        "",
    );
    let out = stdout(&o);
    assert!(o.status.success());
    assert!(
        out.contains(" 0x7fffffffffffffff\n"),
        "canonical NaNs appear"
    );
    assert!(!out.contains(" 0x7ff8000000000000\n") && !out.contains(" 0xfff8000000000000\n"));
    let o = gpufp(
        &["check", "--policy", "oob_nan=0x7E00", "fma.rn.oob.f16"],
        "0x7e00 0x3c00 0x3c00 0x0000\n",
    );
    assert!(stdout(&o).contains("exact: 1"), "{}", stdout(&o));
    for (bad, message) in [
        ("ftz_tininess", "expected NAME=VALUE"),
        ("nope=1", "unknown policy `nope`"),
        (
            "ftz_tininess=Never",
            "`Never` is not a value of policy `ftz_tininess`",
        ),
        ("mufu_core=fitted", "--sfu-tables"),
    ] {
        let o = gpufp(&["eval", "--policy", bad, "add.f32", "1", "2"], "");
        assert!(!o.status.success());
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(err.contains(message), "{bad}: {err}");
    }
}

/// Packed operands may be written as their lanes.
#[test]
fn packed_operands_as_lanes() {
    let o = gpufp(&["eval", "add.rn.f16x2", "{1.5, -2}", "0x3c003c00"], "");
    assert_eq!(stdout(&o), "0xbc004100\nvalue: [2.5, -1]\n");
    let o = gpufp(&["eval", "add.rn.f16x2", "{1.5}", "0x3c003c00"], "");
    assert!(String::from_utf8(o.stderr)
        .unwrap()
        .contains("2 lanes, got 1"));
}

/// Regressions: an exponent at `i64`'s end saturates (it wrapped to 1 before), and a short
/// bit pattern for a packed operand is refused rather than zero-filling the upper lane.
#[test]
fn huge_exponents_and_short_packed_bits() {
    let o = gpufp(&["eval", "add.f32", "1e9223372036854775807", "1"], "");
    assert!(stdout(&o).starts_with("0x7f800000\n"), "{}", stdout(&o));
    let o = gpufp(&["eval", "add.f32", "-1e-9223372036854775808", "0"], "");
    assert!(stdout(&o).starts_with("0x00000000\n"), "{}", stdout(&o));
    let o = gpufp(&["eval", "add.rn.f16x2", "0x3c00", "0x3c003c00"], "");
    assert!(!o.status.success());
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("operand 1: `0x3c00` has 4 hex digits; a `.f16x2` operand's bits have 8"),
        "{err}"
    );
}

/// `GPUFP_SIMD` caps the SIMD level the fast paths run at; a value that names no level is an
/// error, not ignored.
#[test]
fn simd_cap() {
    let run = |level: &str, args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_gpufp"))
            .env("GPUFP_SIMD", level)
            .args(args)
            .output()
            .unwrap()
    };
    let bench = ["bench", "--n", "64", "--reps", "1", "add.rn.f32"];
    let o = run("portable", &bench);
    assert!(
        stdout(&o).contains("SIMD level: portable"),
        "{}",
        stdout(&o)
    );
    let o = run("bogus", &["eval", "add.f32", "1", "2"]);
    assert!(!o.status.success());
    assert!(String::from_utf8(o.stderr)
        .unwrap()
        .contains("`bogus` is not a SIMD level; GPUFP_SIMD takes portable, v3 or v4"));
    // Results do not depend on the level.
    let batch = |level: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gpufp"))
            .env("GPUFP_SIMD", level)
            .arg("batch")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let lines: String = (0..2000u32)
            .map(|j| {
                let a = j.wrapping_mul(0x9E37_79B9);
                format!(
                    "fma.rz.ftz.f32 0x{a:08x} 0x{:08x} 0x3f800000\n",
                    a.rotate_left(7)
                )
            })
            .collect();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(lines.as_bytes())
            .unwrap();
        String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
    };
    let portable = batch("portable");
    assert_eq!(portable.lines().count(), 2000);
    assert_eq!(portable, batch("v3"));
    assert_eq!(portable, batch("v4"));
}

/// `gpufp list`: each line is an instruction that `gpufp parse` accepts with that many operands
/// for that target; a target without a feature lists none of it.
#[test]
fn list_prints_what_parse_accepts() {
    let o = gpufp(&["list", "--target", "sm_86", "min"], "");
    assert!(o.status.success());
    let lines = stdout(&o);
    assert!(lines.lines().any(|l| l == "min.NaN.xorsign.abs.bf16x2 2"));
    assert!(
        !lines.contains(" 3"),
        "three-input min needs sm_100:\n{lines}"
    );
    for line in lines.lines() {
        let (instr, n) = line.split_once(' ').unwrap();
        let p = gpufp(&["parse", "--target", "sm_86", "--operands", n, instr], "");
        assert!(
            p.status.success(),
            "{line}: {}",
            String::from_utf8_lossy(&p.stderr)
        );
    }
    let sm75 = stdout(&gpufp(&["list", "--target", "sm_75"], ""));
    assert!(!sm75.contains(".NaN.") && !sm75.contains("bf16"));
    assert!(stdout(&gpufp(&["list"], "")).lines().count() > 400);
    let o = gpufp(&["list", "fmaa"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown floating-point opcode `fmaa`"));
}

/// Options may follow the operands; negative operands still read as operands, and words after
/// `--` are operands whatever they look like.
#[test]
fn options_after_operands() {
    let o = gpufp(&["eval", "add.rn.f32", "1", "2", "--target", "sm_70"], "");
    assert_eq!(stdout(&o), "0x40400000\nvalue: 3\n");
    let o = gpufp(&["eval", "add.rn.f32", "-1", "-inf", "--target=sm_70"], "");
    assert_eq!(stdout(&o), "0xff800000\nvalue: -inf\n");
    let o = gpufp(
        &[
            "eval",
            "mul.rn.ftz.f32",
            "0x3F7FFFFE",
            "0x00800001",
            "--policy",
            "ftz_tininess=BeforeRounding",
        ],
        "",
    );
    assert!(stdout(&o).starts_with("0x00000000\n"), "{}", stdout(&o));
    let o = gpufp(&["eval", "add.rn.f32", "--", "1", "-2"], "");
    assert!(stdout(&o).starts_with("0xbf800000\n"));
    let o = gpufp(&["eval", "add.rn.f32", "1", "2", "--bogus"], "");
    assert_eq!(o.status.code(), Some(1));
}

/// Values that used to panic, abort, wrap or be accepted are refused with a message.
#[test]
fn out_of_range_values_are_refused() {
    let dir = std::env::temp_dir().join(format!("gpufp-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let refused = |args: &[&str], code: i32, says: &str| {
        let o = gpufp(args, "");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    };
    let alias = file(
        "alias.visa",
        ".decl V33 v_type=G type=f num_elts=8\n\
         .decl V34 v_type=G type=f num_elts=1 alias=<V33, 18446744073709551615>\n",
    );
    refused(&["visa", "run", &alias], 1, "does not fit in V33");
    let region = file(
        "region.visa",
        ".decl V33 v_type=G type=f num_elts=16\n\
         max (M1, 8) V33(0,0)<1> V33(0,0)<9;8,1> V33(0,1)<1;1,0>\n",
    );
    refused(
        &["visa", "run", &region],
        1,
        "vertical stride 9 is not 0, 1, 2, 4, 8, 16 or 32",
    );
    refused(&["visa", "asm", "--grf", "7", &region], 2, "32 or 64 bytes");
    let addr = file(
        "addr.visa",
        ".decl V33 v_type=G type=f num_elts=8\n.decl V34 v_type=G type=f num_elts=8\n\
         .decl A0 v_type=A num_elts=1\n",
    );
    // V34 is at byte 32: 32 + (2^64 - 32) used to wrap to address 0.
    refused(
        &[
            "visa",
            "run",
            &addr,
            "--set",
            "A0=&V34+18446744073709551584",
        ],
        1,
        "does not fit 64 bits",
    );
    let many = file(
        "many.visa",
        &(0..200)
            .map(|k| format!(".decl V{} v_type=G type=q num_elts=4096\n", k + 33))
            .collect::<String>(),
    );
    refused(&["visa", "run", &many], 1, "more than 4194304 bytes");
    refused(
        &["sweep", "add.rn.f32", "--random", "5", "--threads", "0"],
        2,
        "1..=1024",
    );
    refused(
        &[
            "sweep",
            "add.rn.f32",
            "--random",
            "5",
            "--threads",
            "100000",
        ],
        2,
        "1..=1024",
    );
    // The largest random space takes no memory up front (it used to allocate its chunk sums):
    // its last thousand cases run as a range.
    let o = gpufp(
        &[
            "sweep",
            "add.rn.f16",
            "--random",
            "18446744073709551615",
            "--range",
            "18446744073709550615..",
        ],
        "",
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout(&o).contains("\ncount: 1000\n"), "{}", stdout(&o));
    refused(&["bench", "--reps", "0", "add.rn.f32"], 2, "--reps");
    let ptx = file("mem.ptx", ".reg .b32 r;\n");
    refused(
        &["run", &ptx, "--mem", "0xffffffffffffffff=0x1234"],
        1,
        "run past the last address",
    );
    // The last address itself takes a byte.
    let o = gpufp(&["run", &ptx, "--mem", "0xffffffffffffffff=0x12"], "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn json_of(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

/// `--json` on eval, parse, sweep and check: one object, with what the text output says.
#[test]
fn json_output() {
    let args = [
        "eval",
        "fma.rn.f16x2",
        "{1.5, 2048}",
        "{-2, 1}",
        "{0.25, nan}",
    ];
    let text = stdout(&gpufp(&args, ""));
    let j = json_of(&gpufp(&[&args[..], &["--json"]].concat(), ""));
    assert_eq!(j["ok"], true);
    assert_eq!(j["text"], text.as_str());
    assert_eq!(j["result"], "0x7fffc180");
    assert_eq!(j["lanes"][0]["value"], "-2.75");
    assert_eq!(j["operands"][0]["lanes"][1]["bits"], "0x6800");
    let o = gpufp(&["eval", "--json", "add.foo.f32", "1", "2"], "");
    assert_eq!(o.status.code(), Some(1));
    let j = json_of(&o);
    assert_eq!(
        (j["ok"].clone(), j["error"]["column"].clone()),
        (false.into(), 3.into())
    );

    let j = json_of(&gpufp(
        &[
            "parse",
            "--json",
            "--target",
            "sm_86",
            "min.xorsign.abs.f16",
        ],
        "",
    ));
    assert_eq!(j["canonical"], "min.xorsign.abs.f16");
    assert_eq!(j["min_target"], "sm_86");
    let o = gpufp(&["parse", "--json", "--target", "sm_75", "min.NaN.f32"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(json_of(&o)["error"]["message"]
        .as_str()
        .unwrap()
        .contains("sm_80"));

    let sweep = ["sweep", "add.rn.f16", "--random", "100000", "--seed", "7"];
    let text = stdout(&gpufp(&sweep, ""));
    let j = json_of(&gpufp(&[&sweep[..], &["--json"]].concat(), ""));
    assert!(text.contains(&format!("digest: {}", j["digest"].as_str().unwrap())));
    assert_eq!(j["count"], 100000);

    let lines = "add.rn.f32 1 2 0x40400000\nadd.rn.f32 1 2 0x40400001\n";
    let o = gpufp(&["check", "--json", "add.rn.f32", "-"], lines);
    assert_eq!(o.status.code(), Some(1));
    let j = json_of(&o);
    assert_eq!(
        (j["cases"].clone(), j["exact"].clone()),
        (2.into(), 1.into())
    );
    assert_eq!(j["violations"], 1);
    assert_eq!(j["shown"][0]["line"], 2);
}

/// `-` reads standard input; `--version` names the commit; completions and manual pages come
/// from the command's definition; a piped long sweep draws no progress bar.
#[test]
fn everyday_conveniences() {
    let o = gpufp(&["batch", "-"], "add.rn.f32 1 2\n");
    assert_eq!(stdout(&o), "0x40400000\n");
    let o = gpufp(
        &["run", "-", "--set", "a=1.5"],
        ".reg .f32 a, d;\nadd.rn.f32 d, a, a;\n",
    );
    assert_eq!(stdout(&o), "d = 0x40400000 .f32 3\n");
    let visa =
        ".decl V33 v_type=G type=d num_elts=8\nmax (M1, 8) V33(0,0)<1> V33(0,0)<1;1,0> 0x5:d\n";
    assert!(gpufp(&["visa", "asm", "-"], visa).status.success());
    let v = stdout(&gpufp(&["--version"], ""));
    assert!(v.starts_with("gpufp 0.1.0 (commit "), "{v}");
    let bash = stdout(&gpufp(&["completions", "bash"], ""));
    assert!(bash.contains("_gpufp()") && bash.contains("eval"));
    let man = stdout(&gpufp(&["man"], ""));
    assert!(man.contains(".TH gpufp 1") && man.contains("sweep"));
    let man = stdout(&gpufp(&["man", "eval"], ""));
    assert!(man.contains(".TH gpufp-eval 1") && man.contains("\\-\\-json"));
    assert_eq!(gpufp(&["man", "nope"], "").status.code(), Some(1));
    let o = gpufp(&["sweep", "add.rn.f32", "--random", "2000000"], "");
    assert!(o.status.success());
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
}

/// docs/vectors.md's sample `check` output is what `check` prints for its two cases.
#[test]
fn vectors_doc_check_sample() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/vectors.md"
    ))
    .unwrap();
    let after = doc.split("then the summary:\n\n```\n").nth(1).unwrap();
    let sample = after.split("```").next().unwrap();
    let lines = "add.rn.f32 0x3f800000 0x33800000 0x3f800001\n\
                 add.rn.f32 0x3f800000 0x3f800000 0x40000000\n";
    assert_eq!(stdout(&gpufp(&["check", "add.rn.f32"], lines)), sample);
}
