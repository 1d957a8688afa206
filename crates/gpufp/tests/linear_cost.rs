//! Readers cost time in proportion to their input: each is timed on an input and on one twice
//! as large, and the second may take at most three times as long (linear growth doubles the
//! time; the quadratic costs these tests were written against quadrupled it).

use gpufp::ptx::run::parse_program;
use gpufp::ptx::value::parse_value;
use gpufp::ptx::Type;
use gpufp::visa::asm;
use std::time::Instant;

/// The median of five timings of `f(n)`, in seconds.
fn time(n: usize, f: &impl Fn(usize)) -> f64 {
    let mut t: Vec<f64> = (0..5)
        .map(|_| {
            let start = Instant::now();
            f(n);
            start.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[2]
}

/// One measurement at a time: the tests of this file would otherwise time each other.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn linear(what: &str, n: usize, f: impl Fn(usize)) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let (one, two) = (time(n, &f), time(2 * n, &f));
    println!("{what}: n = {n}: {one:.4} s, 2n: {two:.4} s");
    assert!(
        two < 3.0 * one.max(1e-3),
        "{what}: doubling the input took {:.1} times as long ({one:.4} s, then {two:.4} s)",
        two / one
    );
}

#[test]
fn many_register_declarations() {
    linear("`.reg` lines of 4096 registers", 4, |n| {
        let text: String = (0..n)
            .map(|k| format!(".reg .f32 %r{k}_<4096>;\n"))
            .collect();
        parse_program(&text, None).unwrap();
    });
}

#[test]
fn a_long_one_line_program() {
    linear("statements on one line", 20_000, |n| {
        let mut text = String::from(".reg .f32 a, b; ");
        for _ in 0..n {
            text += "add.rn.f32 a, a, b; ";
        }
        assert_eq!(parse_program(&text, None).unwrap().decls.len(), 2);
    });
}

#[test]
fn a_long_decimal_literal() {
    linear("digits of a decimal operand", 2_000_000, |n| {
        let text = format!("1.{}e-5", "3".repeat(n));
        parse_value(&text, Type::F64).unwrap();
    });
}

#[test]
fn many_visa_declarations() {
    linear("vISA declarations", 20_000, |n| {
        let text: String = (0..n)
            .map(|k| format!(".decl V{} v_type=G type=f num_elts=8\n", k + 33))
            .collect();
        asm::parse_program(&text, 32).unwrap();
    });
}

#[test]
fn a_long_capture_file() {
    use gpufp::mufu::fit::parse_capture;
    linear("capture lines", 100_000, |n| {
        let text: String = (0..n)
            .map(|k| format!("0x{:08x} 0x3f800000\n", 0x3f80_0000 + k))
            .collect();
        assert_eq!(parse_capture(&text).unwrap().len(), n);
    });
}

#[test]
fn a_long_table_file() {
    use gpufp::mufu::table::Tables;
    linear("table file lines", 100_000, |n| {
        let mut text = "# a comment\n".repeat(n);
        text += "function index A B C\n";
        // A table too small for any function is refused, after every line is read.
        text += "rcp 0 1 2 3\n";
        assert!(Tables::parse(&text).is_err());
    });
}

#[test]
fn a_long_memory_list() {
    use gpufp::ptx::run::Machine;
    let program = parse_program(".reg .b32 r;\n", None).unwrap();
    linear("--mem words", 50_000, |n| {
        let words = vec!["0x12345678"; n].join(",");
        Machine::new(&program)
            .set_mem(&format!("0x1000={words}"))
            .unwrap();
    });
}

#[test]
fn long_instruction_text() {
    use gpufp::front::{complete, Options, Prepared};
    linear("instruction text", 1_000_000, |n| {
        let text = format!("add.rn.{}.f32", "x".repeat(n));
        assert!(Prepared::new(&text, &Options::default()).is_err());
        assert!(complete(&text, &Options::default()).candidates.is_empty());
    });
}
