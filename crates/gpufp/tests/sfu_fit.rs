//! The table fitter (mufu::fit): from outputs the model itself generates over the documented
//! capture binades (docs/sfu.md), it recovers a table that reproduces every captured output,
//! and it reports a corrupted capture as unexplainable. Tables: synthetic ones derived here
//! from the functions' Taylor expansions (always run), and the shared third-party table read
//! at run time (skipped when absent; `#[ignore]`d as it fits every core).

use gpufp::mufu::fit::{self, Outcome};
use gpufp::mufu::interp;
use gpufp::mufu::table::{Function, Row, Table, Tables};
use gpufp::mufu::Op;
use gpufp::F32;

/// The inputs a capture for `op` covers (docs/sfu.md, "What to capture").
fn capture_inputs(op: Op) -> Vec<u32> {
    let binades: &[u32] = match op {
        Op::Rcp | Op::Ex2 => &[127],
        Op::Rsq => &[127, 128],
        Op::Lg2 => &[126, 127],
        _ => &[125], // revolutions in [0.25, 0.5): every quadrant fraction
    };
    binades
        .iter()
        .flat_map(|&e| (0..1u32 << 23).map(move |f| e << 23 | f))
        .collect()
}

fn capture(op: Op, table: &Table) -> Vec<(u32, u32)> {
    capture_inputs(op)
        .into_iter()
        .map(|a| (a, interp::eval(op, table, F32(a)).0))
        .collect()
}

/// Fits `op` from the model's own outputs with `table` and checks the result: the model's
/// segment count, every captured output reproduced, and agreement with `table` on a stride
/// through all 2^32 inputs.
fn recovers(op: Op, table: &Table) {
    let pairs = capture(op, table);
    let result = fit::fit(op, &pairs).expect("a modelled core");
    let (fitted, reproduced) = result.table.clone().expect("a complete fit");
    let func = interp::function(op).expect("modelled");
    assert_eq!(
        fitted.index_bits(),
        table.index_bits(),
        "{op:?} segment count"
    );
    assert_eq!(reproduced, pairs.len(), "{op:?}");
    let differing = (0..table.rows().len())
        .filter(|&i| fitted.row(i) != table.row(i))
        .count();
    eprintln!("{op:?}: {differing} rows differ from the generating table");
    for a in (0..=u32::MAX).step_by(4093) {
        assert_eq!(
            interp::eval(op, &fitted, F32(a)),
            interp::eval(op, table, F32(a)),
            "{op:?} 0x{a:08x}"
        );
    }
    // A table file written from the fit reads back as the same table.
    let text = result.table_text().expect("a table");
    let back = Tables::parse(&text).expect("the written table parses");
    assert_eq!(back.get(func), Some(&fitted));
}

/// One output of the capture changed by one unit in the last place, in the middle of a
/// segment: that segment is unexplainable at every width and no table comes out.
fn rejects_corruption(op: Op, table: &Table) {
    let mut pairs = capture(op, table);
    let k = pairs.len() / 2 + (1 << 10) + 7;
    pairs[k].1 ^= 1;
    let result = fit::fit(op, &pairs).expect("a modelled core");
    assert!(
        result.table.is_none(),
        "{op:?}: a corrupted capture was fitted"
    );
    let model = result
        .attempts
        .iter()
        .find(|a| a.bits == table.index_bits())
        .expect("the model's width was tried");
    let unexplained: Vec<usize> = (0..model.segments.len())
        .filter(|&i| matches!(model.segments[i], Outcome::Unexplained(_)))
        .collect();
    let interp::Prepared::Point(p) = interp::prepare(op, F32(pairs[k].0), table.index_bits())
    else {
        panic!("the corrupted input is a table point")
    };
    assert_eq!(unexplained, vec![p.idx], "{op:?}");
}

// ---- synthetic tables: Taylor coefficients at each segment's start ----

const Q: u32 = 62;

fn mul(a: i128, b: i128) -> i128 {
    (a * b) >> Q
}

/// ln 2 = sum 1/(k 2^k), Q62.
fn ln2() -> i128 {
    let s: i128 = (1..=100).map(|k| (1i128 << (100 - k)) / k).sum();
    s >> (100 - Q)
}

/// 2^y for y in [0, 1), Q62, by the exponential series.
fn exp2(y: i128) -> i128 {
    let z = mul(y, ln2());
    let (mut term, mut sum) = (1i128 << Q, 0i128);
    for n in 1..30 {
        sum += term;
        term = mul(term, z) / n;
    }
    sum
}

/// RCP: sig 2^15 = 2^39 / (1 + u), u = j/128 + x/2^23, expanded at x = 0 (square(2x) ~ x^2/2^17).
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

/// EX2: sig 2^15 = 2^38 2^(j/64) 2^(x/2^23) (square(x) ~ x^2/2^19).
fn synthetic_ex2() -> Table {
    let ln2 = ln2();
    let rows = (0..64i128)
        .map(|j| {
            let e = exp2((j << Q) / 64);
            Row {
                a: (e >> (Q - 25)) as i64,
                b: (mul(e, ln2) >> (Q - 15)) as i64,
                c: (mul(mul(e, ln2), ln2) >> (Q - 10)) as i64,
            }
        })
        .collect();
    Table::new(Function::Ex2, rows).expect("a table")
}

#[test]
fn recovers_a_synthetic_rcp_table() {
    recovers(Op::Rcp, &synthetic_rcp());
}

#[test]
fn recovers_a_synthetic_ex2_table() {
    recovers(Op::Ex2, &synthetic_ex2());
}

#[test]
fn rejects_a_corrupted_capture() {
    rejects_corruption(Op::Rcp, &synthetic_rcp());
}

// ---- the shared table ----

fn shared_tables() -> Option<Tables> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/reference/sfu-g80-tables.tsv"
    );
    let text = std::fs::read_to_string(path).ok()?;
    Some(Tables::parse(&text).expect("the shared table parses"))
}

#[test]
#[ignore = "fits every core over full binades; run with --release"]
fn recovers_the_shared_tables() {
    let Some(t) = shared_tables() else {
        eprintln!("skipped: ../shared/reference/sfu-g80-tables.tsv is absent");
        return;
    };
    for op in [Op::Rcp, Op::Rsq, Op::Ex2, Op::Lg2, Op::Sin, Op::Cos] {
        let table = t
            .get(interp::function(op).expect("modelled"))
            .expect("in the file");
        recovers(op, table);
        eprintln!("{op:?}: recovered");
    }
    rejects_corruption(Op::Lg2, t.get(Function::Lg2).expect("lg2"));
}
