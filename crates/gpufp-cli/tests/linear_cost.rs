//! The command line's own readers, of `batch` and `check` lines, cost time in proportion to
//! their input: each is timed through the built binary on an input file and on one four times as
//! large, which may take at most eight times as long (linear growth takes four; a quadratic cost
//! sixteen). What arguments carry (`--set` lists, `visa disasm`'s hex) is read by the library,
//! timed the same way, on inputs larger than a command line can hold, in
//! crates/gpufp/tests/linear_cost.rs.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

/// One command line: its arguments and a file, written untimed, passed as the last argument.
struct Input {
    args: Vec<String>,
    file: String,
}

/// The shortest of five wall-clock timings of the binary on `input`: the least disturbed by
/// other work. The process must succeed.
fn time(input: &Input, path: &PathBuf) -> f64 {
    let mut args = input.args.clone();
    std::fs::write(path, &input.file).unwrap();
    args.push(path.display().to_string());
    (0..5)
        .map(|_| {
            let start = Instant::now();
            let status = Command::new(env!("CARGO_BIN_EXE_gpufp"))
                .args(&args)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            let elapsed = start.elapsed().as_secs_f64();
            assert!(status.success(), "gpufp {:?} failed", &args[..1]);
            elapsed
        })
        .fold(f64::INFINITY, f64::min)
}

/// One measurement at a time: the tests of this file would otherwise time each other.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Times the binary on `make(n)` (`n` doubled until a run takes 50 ms, well above a process's
/// start-up) and on `make(4n)`.
fn linear(what: &str, mut n: usize, make: impl Fn(usize) -> Input) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let file = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "linear-cost-{}.txt",
        what.replace(|c: char| !c.is_ascii_alphanumeric(), "-")
    ));
    let mut one = time(&make(n), &file);
    while one < 0.05 {
        n *= 2;
        one = time(&make(n), &file);
    }
    let four = time(&make(4 * n), &file);
    println!("{what}: n = {n}: {one:.4} s, 4n: {four:.4} s");
    assert!(
        four < 8.0 * one,
        "{what}: four times the input took {:.1} times as long ({one:.4} s, then {four:.4} s)",
        four / one
    );
}

fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

#[test]
fn batch_lines() {
    // Runs of seven lines of one instruction, which the batch evaluates together, then the next.
    let spellings = [
        "add.rn.f32",
        "mul.rz.ftz.f32",
        "fma.rn.f16x2",
        "min.NaN.bf16",
    ];
    linear("batch lines", 2_000, |n| Input {
        args: args(&["batch"]),
        file: (0..n)
            .map(|k| match spellings[(k / 7) % 4] {
                "fma.rn.f16x2" => format!("fma.rn.f16x2 0x{k:08x} {{1.5,-2}} 0x3c003c00\n"),
                s => format!("{s} {k}.25 -0.125\n"),
            })
            .collect(),
    });
}

#[test]
fn check_lines() {
    linear("check lines", 2_000, |n| Input {
        args: args(&["check", "add.rn.f32"]),
        file: (0..n)
            .map(|k| {
                let a = 0x3f80_0000u32 + k as u32;
                format!("0x{a:08x} 0x00000000 0x{a:08x}\n")
            })
            .collect(),
    });
}
