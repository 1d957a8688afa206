//! `gpufp gen`, `check` and `sweep` through the built binary (docs/vectors.md): gen's cases
//! round-trip through `batch`; check finds planted wrong results; sweep's digest and chunk file
//! equal a recomputation here from the documented definitions, with results from `batch`.

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
    let mut input = child.stdin.take().unwrap();
    let text = stdin.to_string();
    let writer = std::thread::spawn(move || input.write_all(text.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Each line without its last word, and the last words.
fn split_expected(text: &str) -> (String, Vec<String>) {
    let mut cases = String::new();
    let mut expected = Vec::new();
    for line in text.lines() {
        let (case, result) = line.rsplit_once(' ').unwrap();
        cases += case;
        cases.push('\n');
        expected.push(result.to_string());
    }
    (cases, expected)
}

#[test]
fn gen_round_trips_through_batch() {
    let variants: [&[&str]; 8] = [
        &["add.rn.f32"],
        &["fma.rn.ftz.sat.f16x2", "--count", "20000"],
        &["min.NaN.xorsign.abs.bf16"],
        &["testp.subnormal.f64", "--level", "2", "--count", "5000"],
        &["min.f32", "--operands", "3", "--count", "5000"],
        &["div.rn.f64", "--seed", "9", "--count", "5000"],
        &["sqrt.rz.f32", "--level", "2", "--count", "5000"],
        &["mul.rn.bf16x2", "--level", "2", "--count", "20000"],
    ];
    for args in variants {
        let g = gpufp(&[&["gen"], args].concat(), "");
        assert!(g.status.success(), "{args:?}: {}", stderr(&g));
        let (cases, expected) = split_expected(&stdout(&g));
        assert!(expected.len() >= 5000, "{args:?}");
        let b = gpufp(&["batch"], &cases);
        assert!(b.status.success(), "{args:?}");
        let got: Vec<&str> = std::str::from_utf8(&b.stdout).unwrap().lines().collect();
        let differ = got.iter().zip(&expected).filter(|(g, e)| *g != e).count();
        assert_eq!(got.len(), expected.len(), "{args:?}");
        assert_eq!(differ, 0, "{args:?}: {differ} differences");
    }
}

#[test]
fn gen_lines_are_batch_lines_with_the_expected_result() {
    // The cross product starts with +0 in every operand, then operand 0 steps through the table.
    let o = gpufp(&["gen", "add.f16"], "");
    let first: Vec<&str> = std::str::from_utf8(&o.stdout)
        .unwrap()
        .lines()
        .take(3)
        .collect();
    assert_eq!(
        first,
        [
            "add.f16 0x0000 0x0000 0x0000",
            "add.f16 0x0001 0x0000 0x0001",
            "add.f16 0x01ff 0x0000 0x01ff"
        ]
    );
    let o = gpufp(&["gen", "testp.finite.f32", "--count", "196"], "");
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 196);
    assert!(out.starts_with("testp.finite.f32 0x00000000 1\n"), "{out}");
}

#[test]
fn gen_and_sweep_refuse_what_they_cannot_sweep() {
    // Approximate instructions evaluate (docs/mufu.md): gen's cases pass check.
    let g = stdout(&gpufp(&["gen", "ex2.approx.f32", "--count", "300"], ""));
    assert_eq!(g.lines().count(), 300);
    assert!(gpufp(&["check", "ex2.approx.f32"], &g).status.success());
    // Over 2^64 cases: refused with the size; 2^64: only in parts.
    let o = gpufp(&["sweep", "fma.rn.f32", "--exhaustive"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("2^96 cases"), "{}", stderr(&o));
    let o = gpufp(&["sweep", "add.rn.f32", "--exhaustive"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("run it in parts"), "{}", stderr(&o));
    let o = gpufp(&["gen", "add.rn.f16", "--level", "3"], "");
    assert_eq!(o.status.code(), Some(2));
    let o = gpufp(&["gen", "bogus.f32"], "");
    assert!(stderr(&o).contains("unknown floating-point opcode `bogus`"));
}

/// gen's output with its own expected results passes; `OPERAND... RESULT` lines without the
/// instruction are read the same way.
#[test]
fn check_accepts_the_models_results() {
    let g = stdout(&gpufp(&["gen", "mul.rn.ftz.f16x2", "--count", "3000"], ""));
    let o = gpufp(&["check", "mul.rn.ftz.f16x2"], &g);
    assert!(o.status.success(), "{}", stdout(&o));
    assert_eq!(
        stdout(&o),
        "cases: 3000\nexact: 3000\nwithin spec: 3000\nviolations: 0\n"
    );
    let bare: String = g
        .lines()
        .map(|l| l.split_once(' ').unwrap().1.to_string() + "\n")
        .collect();
    let o = gpufp(&["check", "mul.rn.ftz.f16x2"], &bare);
    assert!(o.status.success(), "{}", stdout(&o));
}

/// Replaces the result of line `n` (1-based).
fn plant(text: &str, n: usize, result: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(k, l)| {
            if k + 1 == n {
                format!("{} {result}\n", l.rsplit_once(' ').unwrap().0)
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

#[test]
fn check_reports_a_planted_wrong_result() {
    // 1 + 2^-24 rounds to 1 (a tie, to even); 0x3f800001 is one ulp off.
    let text = "add.rn.f32 0x3f800000 0x33800000 0x3f800000\nadd.rn.f32 0x3f800000 0x3f800000 0x40000000\n";
    let o = gpufp(&["check", "add.rn.f32"], &plant(text, 1, "0x3f800001"));
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.starts_with("line 1: spec violation: add.rn.f32 0x3f800000 0x33800000 0x3f800001\n  result 0x3f800001 (1.00000012), model 0x3f800000 (1): VIOLATION"), "{out}");
    assert!(
        out.ends_with("cases: 2\nexact: 1\nwithin spec: 1\nviolations: 1\n"),
        "{out}"
    );
    // A packed lane: lane 1 wrong.
    let o = gpufp(
        &["check", "add.rn.f16x2"],
        "0x3c003c00 0x3c003c00 0x3c014000\n",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("lane 1: result 0x3c01"),
        "{}",
        stdout(&o)
    );
    assert!(!stdout(&o).contains("lane 0:"), "{}", stdout(&o));
}

#[test]
fn check_reports_malformed_lines() {
    let input =
        "0x3c00 0x3c00 0x4000\n# comment\n\n0x3c00 zz 0x4000\n0x4000\nadd.rn.f32 0x1 0x1 0x2\n";
    let o = gpufp(&["check", "add.rn.f16"], input);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("error: line 4: operand 2: `zz` is not a number"),
        "{out}"
    );
    assert!(
        out.contains("error: line 5: expected OPERAND... RESULT"),
        "{out}"
    );
    assert!(
        out.contains("error: line 6: `add.rn.f32` is not the instruction checked"),
        "{out}"
    );
    assert!(
        out.ends_with("cases: 1\nexact: 1\nwithin spec: 1\nviolations: 0\nerrors: 3\n"),
        "{out}"
    );
}

/// An f32 NaN result that is not the model's NaN is flagged by bit-exactness.
#[test]
fn check_flags_a_different_nan_as_not_exact() {
    let text = stdout(&gpufp(
        &["eval", "add.rn.f32", "0x7fc00001", "0x3f800000"],
        "",
    ));
    let model = text.lines().next().unwrap();
    assert_ne!(model, "0x7fc00000");
    let o = gpufp(
        &["check", "add.rn.f32"],
        "0x7fc00001 0x3f800000 0x7fc00000\n",
    );
    let out = stdout(&o);
    assert!(out.contains("line 1: "), "{out}");
    assert!(out.contains("cases: 1\nexact: 0\n"), "{out}");
}

/// PTX ISA 9.7.3: "Single-precision instructions return an unspecified NaN", so any NaN is
/// within spec for f32 `add` with a NaN operand.
#[test]
fn check_accepts_a_different_nan_where_the_manual_allows_any() {
    let o = gpufp(
        &["check", "add.rn.f32"],
        "0x7fc00001 0x3f800000 0x7fc00000\n0x7f800001 0xff800000 0xffc12345\n",
    );
    let out = stdout(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("differs from the model, within spec"), "{out}");
    assert!(
        out.ends_with("cases: 2\nexact: 0\nwithin spec: 2\nviolations: 0\n"),
        "{out}"
    );
    // A number where a NaN is due is still a violation.
    let o = gpufp(
        &["check", "add.rn.f32"],
        "0x7fc00001 0x3f800000 0x3f800000\n",
    );
    assert_eq!(o.status.code(), Some(1));
}

/// `ex2.approx.f32` of 1 is 2 within 2 ulp (PTX ISA 9.7.3.21); 256 ulp off is a violation.
#[test]
fn check_reports_an_approx_result_outside_its_bound() {
    let o = gpufp(&["check", "ex2.approx.f32"], "0x3f800000 0x40000100\n");
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("spec violation"), "{}", stdout(&o));
    assert!(stdout(&o).ends_with("violations: 1\n"), "{}", stdout(&o));
    let o = gpufp(&["check", "ex2.approx.f32"], "0x3f800000 0x40000000\n");
    assert!(o.status.success(), "{}", stdout(&o));
}

// The sweep definitions of docs/vectors.md, written out again here.

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn operand(seed: u64, i: u64, k: u64, width: u32) -> u64 {
    let x = mix(seed.wrapping_add(0x9E37_79B9_7F4A_7C15u64.wrapping_mul(4 * i + k + 1)));
    if width == 64 {
        x
    } else {
        x & ((1 << width) - 1)
    }
}

/// Per-chunk digests of `results`, from the definition.
fn chunk_digests(results: &[u64]) -> Vec<u64> {
    results
        .chunks(1 << 16)
        .enumerate()
        .map(|(c, rs)| {
            rs.iter().enumerate().fold(0u64, |sum, (j, r)| {
                let i = (c << 16) as u64 + j as u64;
                sum.wrapping_add(mix(mix(i) ^ r))
            })
        })
        .collect()
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).unwrap()
}

/// Runs `sweep ARGS --chunk-digests FILE`; its digest and chunk lines must equal the recomputation
/// from `lines` (the cases, in order) evaluated by `batch`.
fn sweep_agrees(args: &[&str], lines: &str) {
    let results: Vec<u64> = stdout(&gpufp(&["batch"], lines))
        .lines()
        .map(|l| {
            if l.len() == 1 {
                l.parse().unwrap()
            } else {
                hex(l)
            }
        })
        .collect();
    let chunks = chunk_digests(&results);
    let digest = chunks.iter().fold(0u64, |a, c| a.wrapping_add(*c));
    let path = std::env::temp_dir().join(format!(
        "gpufp-sweep-{}-{}.txt",
        std::process::id(),
        args[0]
    ));
    let p = path.to_str().unwrap();
    let o = gpufp(&[&["sweep"], args, &["--chunk-digests", p]].concat(), "");
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(&format!("\ncount: {}\n", results.len())),
        "{out}"
    );
    assert!(
        out.contains(" cases/s\n") && out.contains("\nelapsed: "),
        "{out}"
    );
    assert!(
        out.ends_with(&format!("digest: 0x{digest:016x}\n")),
        "{args:?}: {out}"
    );
    let file = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let want: String = chunks
        .iter()
        .enumerate()
        .map(|(c, d)| format!("{c} 0x{d:016x}\n"))
        .collect();
    assert_eq!(file, want, "{args:?}");
}

#[test]
fn random_sweep_digest_equals_the_definition() {
    let (count, seed) = (140_000u64, 0xC0FFEE);
    let lines: String = (0..count)
        .map(|i| {
            format!(
                "fma.rn.bf16x2 0x{:08x} 0x{:08x} 0x{:08x}\n",
                operand(seed, i, 0, 32),
                operand(seed, i, 1, 32),
                operand(seed, i, 2, 32)
            )
        })
        .collect();
    sweep_agrees(
        &[
            "fma.rn.bf16x2",
            "--random",
            "140000",
            "--seed",
            "0xC0FFEE",
            "--threads",
            "3",
        ],
        &lines,
    );
}

#[test]
fn exhaustive_unary_sweep_digest_equals_the_definition() {
    let lines: String = (0..1u64 << 16)
        .map(|i| format!("neg.f16x2 0x{:08x}\n", i | i << 16))
        .collect();
    sweep_agrees(&["neg.f16x2", "--exhaustive"], &lines);
    let lines: String = (0..1u64 << 16)
        .map(|i| format!("abs.bf16 0x{i:04x}\n"))
        .collect();
    sweep_agrees(&["abs.bf16", "--exhaustive"], &lines);
}

/// The check value of docs/vectors.md, computed there by the Python reference implementation.
#[test]
fn sweep_reproduces_the_documented_check_value() {
    let o = gpufp(
        &[
            "sweep",
            "testp.finite.f32",
            "--random",
            "1000",
            "--seed",
            "1",
        ],
        "",
    );
    assert!(
        stdout(&o).ends_with("digest: 0x176ae8b6fa30ddf1\n"),
        "{}",
        stdout(&o)
    );
    let doc = include_str!("../../../docs/vectors.md");
    assert!(doc.contains("0x176ae8b6fa30ddf1"));
}
