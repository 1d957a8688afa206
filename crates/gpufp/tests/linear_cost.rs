//! Readers cost time and memory in proportion to their input: each is timed on an input and on
//! one four times as large, which may take at most eight times as long (linear growth takes four
//! times as long, a little more once the input outgrows the caches; the quadratic costs these
//! tests were written against took sixteen times), and its peak of allocated memory may grow at
//! most twelve times (four for linear growth, up to eight where a vector's capacity doubles past
//! the input, sixteen for quadratic memory).

use gpufp::ptx::run::parse_program;
use gpufp::ptx::value::parse_value;
use gpufp::ptx::Type;
use gpufp::visa::asm;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The system allocator, counting the bytes allocated now and their peak. (The unsafe code of a
/// global allocator lives here, in a test, not in the library.)
struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = NOW.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is passed to `System` unchanged; the counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, size) };
        if !q.is_null() {
            if size > layout.size() {
                grew(size - layout.size());
            } else {
                NOW.fetch_sub(layout.size() - size, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The most bytes `run` on `input` holds allocated at once, beyond what was allocated before.
fn peak<T>(input: &T, run: &impl Fn(&T)) -> usize {
    let base = NOW.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    run(input);
    PEAK.load(Ordering::Relaxed).saturating_sub(base)
}

/// The shortest of five timings of `run` on `input`, in seconds: the least disturbed by other
/// work. Building the input is not timed.
fn time<T>(input: &T, run: &impl Fn(&T)) -> f64 {
    (0..5)
        .map(|_| {
            let start = Instant::now();
            run(input);
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// One measurement at a time: the tests of this file would otherwise time each other.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Times `run` on `make(n)` (`n` doubled until a run takes 10 ms, so that timer noise does not
/// decide) and on `make(4n)`, and takes the peak memory of each.
fn linear<T>(what: &str, mut n: usize, make: impl Fn(usize) -> T, run: impl Fn(&T)) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let mut one = time(&make(n), &run);
    while one < 0.01 {
        n *= 2;
        one = time(&make(n), &run);
    }
    let four = time(&make(4 * n), &run);
    let (mem_one, mem_four) = (peak(&make(n), &run), peak(&make(4 * n), &run));
    println!("{what}: n = {n}: {one:.4} s, {mem_one} bytes; 4n: {four:.4} s, {mem_four} bytes");
    assert!(
        four < 8.0 * one,
        "{what}: four times the input took {:.1} times as long ({one:.4} s, then {four:.4} s)",
        four / one
    );
    // A reader that allocates next to nothing may double a small buffer: 64 KiB of slack.
    assert!(
        mem_four <= 12 * mem_one + (1 << 16),
        "{what}: four times the input took {mem_four} bytes at its peak, after {mem_one}"
    );
}

#[test]
fn many_register_declarations() {
    linear(
        "`.reg` lines of 4096 registers",
        // From half a million registers: their index (tens of MB) is past the caches at both
        // sizes, so the ratio measures the algorithm rather than the memory hierarchy (from a
        // quarter of a million, a busy machine measured up to 11 times).
        128,
        |n| -> String {
            (0..n)
                .map(|k| format!(".reg .f32 %r{k}_<4096>;\n"))
                .collect()
        },
        |text| {
            parse_program(text, None).unwrap();
        },
    );
}

#[test]
fn a_long_one_line_program() {
    linear(
        "statements on one line",
        10_000,
        |n| ".reg .f32 a, b; ".to_string() + &"add.rn.f32 a, a, b; ".repeat(n),
        |text| assert_eq!(parse_program(text, None).unwrap().decls.len(), 2),
    );
}

#[test]
fn a_long_decimal_literal() {
    linear(
        "digits of a decimal operand",
        1_000_000,
        |n| format!("1.{}e-5", "3".repeat(n)),
        |text| {
            parse_value(text, Type::F64).unwrap();
        },
    );
}

#[test]
fn many_visa_declarations() {
    linear(
        "vISA declarations",
        10_000,
        |n| -> String {
            (0..n)
                .map(|k| format!(".decl V{} v_type=G type=f num_elts=8\n", k + 33))
                .collect()
        },
        |text| {
            asm::parse_program(text, 32).unwrap();
        },
    );
}

#[test]
fn a_long_capture_file() {
    use gpufp::mufu::fit::parse_capture;
    linear(
        "capture lines",
        50_000,
        |n| -> String {
            (0..n)
                .map(|k| format!("0x{:08x} 0x3f800000\n", 0x3f80_0000 + k))
                .collect()
        },
        |text| assert!(!parse_capture(text).unwrap().is_empty()),
    );
}

#[test]
fn a_long_table_file() {
    use gpufp::mufu::table::Tables;
    // A table too small for any function is refused, after every line is read.
    linear(
        "table file lines",
        50_000,
        |n| "# a comment\n".repeat(n) + "function index A B C\nrcp 0 1 2 3\n",
        |text| assert!(Tables::parse(text).is_err()),
    );
}

#[test]
fn a_long_memory_list() {
    use gpufp::ptx::run::Machine;
    let program = parse_program(".reg .b32 r;\n", None).unwrap();
    linear(
        "--mem words",
        20_000,
        |n| format!("0x1000={}", vec!["0x12345678"; n].join(",")),
        |spec| Machine::new(&program).set_mem(spec).unwrap(),
    );
}

#[test]
fn long_instruction_text() {
    use gpufp::front::{complete, Options, Prepared};
    linear(
        "instruction text",
        1_000_000,
        |n| format!("add.rn.{}.f32", "x".repeat(n)),
        |text| {
            assert!(Prepared::new(text, &Options::default()).is_err());
            assert!(complete(text, &Options::default()).candidates.is_empty());
        },
    );
}

#[test]
fn many_register_assignments() {
    use gpufp::ptx::run::Machine;
    linear(
        "`--set` assignments, one per register",
        4_096,
        |n| {
            let decls: String = (0..n).map(|k| format!(".reg .f32 %r{k};\n")).collect();
            let program = parse_program(&decls, None).unwrap();
            let sets: Vec<String> = (0..n).map(|k| format!("%r{k}=1.5")).collect();
            (program, sets)
        },
        |(program, sets)| {
            let mut m = Machine::new(program);
            for s in sets {
                m.set(program, s).unwrap();
            }
        },
    );
}

#[test]
fn a_long_visa_byte_stream() {
    use gpufp::visa::encode::{decode, encode, from_hex, to_hex};
    let one =
        asm::parse_instruction("min (M1, 16) V35(0,0)<1> V33(0,0)<1;1,0> V34(0,0)<1;1,0>").unwrap();
    let bytes = encode(&one).unwrap();
    linear(
        "vISA instructions in hex",
        2_000,
        |n| to_hex(&bytes.repeat(n)),
        |hex| {
            let all = from_hex(hex).unwrap();
            let mut at = 0;
            while at < all.len() {
                let (i, len) = decode(&all[at..]).unwrap();
                assert_eq!(i, one);
                at += len;
            }
        },
    );
}

#[test]
fn many_visa_assignments() {
    use gpufp::visa::{assign, state::State};
    linear(
        "vISA `--set` lists, one per variable",
        1_000,
        |n| {
            let decls: String = (0..n)
                .map(|k| format!(".decl V{} v_type=G type=f num_elts=16\n", k + 33))
                .collect();
            let program = asm::parse_program(&decls, 32).unwrap();
            let values = vec!["0.5"; 16].join(",");
            let sets: Vec<String> = (0..n).map(|k| format!("V{}={values}", k + 33)).collect();
            (program, sets)
        },
        |(program, sets)| {
            let mut state = State::new(32).unwrap();
            for (_, d) in &program.decls {
                state.declare(d).unwrap();
            }
            for s in sets {
                assign::set(&mut state, s).unwrap();
            }
            assert!(!assign::show_all(&state).unwrap().is_empty());
        },
    );
}
