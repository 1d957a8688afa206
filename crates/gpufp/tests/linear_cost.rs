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

fn linear(what: &str, n: usize, f: impl Fn(usize)) {
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
