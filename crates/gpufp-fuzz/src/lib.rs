//! The pipelines the fuzz targets in `fuzz/` drive, one per input surface: each takes arbitrary
//! bytes, runs a reader and everything after it (validation, evaluation, printing, encoding),
//! and panics only when an invariant breaks (a round trip that changes a value, a bit pattern
//! wider than its type, an error located outside its input). A reader's own refusal is fine.
//! `tests/corpus.rs` replays `fuzz/corpus/` through them on the stable toolchain.
#![forbid(unsafe_code)]

use gpufp::front::{self, Options, Prepared};
use gpufp::mufu::{fit, table::Tables};
use gpufp::ptx::run::{parse_program, Machine};
use gpufp::ptx::value::{format_value, parse_value};
use gpufp::ptx::{self, Target, Type};
use gpufp::visa::{asm, encode, exec, state::State};
use gpufp::Policies;

/// A pipeline: bytes in, a panic only when an invariant breaks.
pub type Pipeline = fn(&[u8]);

/// The pipelines by name, as the fuzz targets and the corpus directories are named.
pub const PIPELINES: &[(&str, Pipeline)] = &[
    ("instr", instr),
    ("operand", operand),
    ("batch_line", batch_line),
    ("run_program", run_program),
    ("visa_text", visa_text),
    ("visa_bytes", visa_bytes),
    ("sfu_table", sfu_table),
    ("capture", capture),
];

fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// FNV-1a of the bytes: operand bits that follow the input, so a corpus replays identically.
fn hash(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The first byte picks a target (or none), the rest is the text.
fn target_and_text(data: &[u8]) -> Option<(Option<Target>, &str)> {
    let (sel, rest) = data.split_first()?;
    let targets = Target::all();
    let target = targets
        .get(usize::from(*sel) % (targets.len() + 1))
        .copied();
    Some((target, text(rest)?))
}

/// Instruction text: parse, print and parse back to the same instruction; validate for the
/// chosen target; complete; prepare, evaluate and explain on operands drawn from the input.
pub fn instr(data: &[u8]) {
    let Some((target, s)) = target_and_text(data) else {
        return;
    };
    let opts = Options {
        target,
        ..Options::default()
    };
    let c = front::complete(s, &opts);
    assert!(c.start <= s.len());
    match ptx::parse_instr(s) {
        Err(e) => assert!(e.span.start <= s.len(), "{s:?}: {e:?}"),
        Ok(i) => {
            let printed = i.to_string();
            assert_eq!(
                ptx::parse_instr(&printed),
                Ok(i),
                "{s:?} printed as {printed:?}"
            );
        }
    }
    if let Ok(p) = Prepared::new(s, &opts) {
        let h = hash(data);
        let mask = if p.width() == 64 {
            u64::MAX
        } else {
            (1 << p.width()) - 1
        };
        let ops: Vec<u64> = (0..p.inputs() as u64)
            .map(|k| h.rotate_left(17 * k as u32) & mask)
            .collect();
        if let Ok(r) = p.eval(&ops) {
            assert!(r & !mask == 0 || p.is_predicate() && r <= 1, "{s}: {r:#x}");
            let e = p.explain(&ops).expect("explain evaluates what eval does");
            assert_eq!(e.result, r);
        }
    }
}

/// An operand literal: the first byte picks the type. A value parses to bits of the type's
/// width; a scalar's printed value parses back to the same bits (NaNs: to a NaN).
pub fn operand(data: &[u8]) {
    let Some((sel, rest)) = data.split_first() else {
        return;
    };
    let Some(s) = text(rest) else { return };
    let ty = Type::ALL[usize::from(*sel) % Type::ALL.len()];
    let Ok(bits) = parse_value(s, ty) else { return };
    let w = ty.bits();
    assert!(
        w == 64 || bits >> w == 0,
        "{s:?} as {}: {bits:#x}",
        ty.name()
    );
    if ty.lanes() == 1 {
        let printed = format_value(bits, ty);
        let back = parse_value(&printed, ty).expect("a printed value parses");
        if printed != "nan" && printed != "-nan" {
            assert_eq!(back, bits, "{s:?} as {}: printed {printed:?}", ty.name());
        }
    }
}

/// A `gpufp batch` line: `INSTR OPERAND...`, evaluated as `gpufp eval` does.
pub fn batch_line(data: &[u8]) {
    let Some(s) = text(data) else { return };
    let mut words = s.split_whitespace();
    let Some(instr) = words.next() else { return };
    let operands: Vec<&str> = words.collect();
    if let Ok(e) = front::eval_text(instr, &operands, &Options::default()) {
        assert!(e.result_text.starts_with("0x") || e.value.is_none());
        let _ = e.to_string();
    }
}

/// A `gpufp run` program: parsed for the chosen target, every register set to 1 (each lane of
/// a packed one), run, and reported.
pub fn run_program(data: &[u8]) {
    let Some((target, s)) = target_and_text(data) else {
        return;
    };
    match parse_program(s, target) {
        Err(e) => assert!(e.line >= 1 && e.column >= 1, "{e:?}"),
        Ok(program) => {
            let mut m = Machine::new(&program);
            for d in &program.decls {
                // 1 for every register type but the packed ones, which take lanes.
                let one = m.set(&program, &format!("{}=1", d.name));
                if one.is_err() {
                    m.set(&program, &format!("{}={{1, 1}}", d.name))
                        .expect("1 or {1, 1} is a value of every register type");
                }
            }
            if m.run(&program).is_ok() {
                let _ = m.report(&program);
            }
        }
    }
}

/// vISA assembly: parsed; each instruction encodes and decodes back to itself; the program runs
/// on a fresh register file.
pub fn visa_text(data: &[u8]) {
    let Some(s) = text(data) else { return };
    let Ok(program) = asm::parse_program(s, 32) else {
        return;
    };
    for (_, i) in &program.instrs {
        if let Ok(bytes) = encode::encode(i) {
            let (back, n) = encode::decode(&bytes).expect("an encoding decodes");
            assert_eq!((&back, n), (i, bytes.len()));
        }
    }
    let Ok(mut state) = State::new(32) else {
        return;
    };
    for (_, d) in &program.decls {
        if state.declare(d).is_err() {
            return;
        }
    }
    for (_, d) in &program.addr_decls {
        if state.declare_address(d).is_err() {
            return;
        }
    }
    for (_, i) in &program.instrs {
        if exec::execute(i, &mut state, &Policies::default()).is_err() {
            return;
        }
    }
}

/// vISA bytes: decoded; what decodes encodes, and that decodes to the same instruction.
pub fn visa_bytes(data: &[u8]) {
    match encode::decode(data) {
        Err(e) => assert!(e.offset <= data.len(), "{e:?}"),
        Ok((i, n)) => {
            assert!(n <= data.len());
            let bytes = encode::encode(&i).expect("a decoded instruction encodes");
            assert_eq!(encode::decode(&bytes).expect("re-decodes").0, i);
        }
    }
}

/// An SFU coefficient table file: parsed, printed and parsed back to the same tables.
pub fn sfu_table(data: &[u8]) {
    let Some(s) = text(data) else { return };
    if let Ok(t) = Tables::parse(s) {
        assert_eq!(Tables::parse(&t.to_text()).as_ref(), Ok(&t));
    }
}

/// A capture file of `INPUT OUTPUT` pairs.
pub fn capture(data: &[u8]) {
    let Some(s) = text(data) else { return };
    if let Ok(pairs) = fit::parse_capture(s) {
        assert!(pairs.len() <= s.lines().count());
    }
}
