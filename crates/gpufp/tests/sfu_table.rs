//! The MUFU table file format (mufu::table): round trip, and malformed files rejected with
//! the line and column of the problem.

use gpufp::mufu::table::{Function, Row, Table, Tables};

fn rows(n: usize) -> String {
    (0..n)
        .map(|i| format!("ex2\t{i}\t{}\t-3\t4\n", 1000 + i))
        .collect()
}

#[test]
fn round_trip_and_comments() {
    let text = format!("# a comment\n\nfunction index A B C\n{}", rows(64));
    let t = Tables::parse(&text).expect("parses");
    assert_eq!(t.functions().collect::<Vec<_>>(), vec![Function::Ex2]);
    let ex2 = t.get(Function::Ex2).expect("ex2");
    assert_eq!(ex2.index_bits(), 6);
    assert_eq!(
        ex2.row(5),
        Row {
            a: 1005,
            b: -3,
            c: 4
        }
    );
    assert_eq!(Tables::parse(&t.to_text()), Ok(t));
}

#[test]
fn widths_around_the_models() {
    for (n, ok) in [(16, false), (32, true), (64, true), (128, true)] {
        let rows = vec![Row::default(); n];
        assert_eq!(Table::new(Function::Ex2, rows).is_some(), ok, "{n} rows");
    }
}

fn error(text: &str) -> (usize, usize, String) {
    let e = Tables::parse(text).expect_err("malformed");
    (e.line, e.column, e.message)
}

#[test]
fn malformed_files_name_line_and_column() {
    let h = "function\tindex\tA\tB\tC\n";
    let cases: &[(String, usize, usize, &str)] = &[
        (String::new(), 1, 1, "no header"),
        ("rcp 0 1 2 3\n".into(), 1, 1, "expected the header"),
        (h.to_string(), 1, 1, "no rows"),
        (
            format!("{h}tanh 0 1 2 3\n"),
            2,
            1,
            "unknown function `tanh`",
        ),
        (format!("{h}ex2 x 1 2 3\n"), 2, 5, "index `x`"),
        (format!("{h}ex2 128 1 2 3\n"), 2, 5, "below 128"),
        (format!("{h}ex2 0 1.5 2 3\n"), 2, 7, "A `1.5`"),
        (
            format!("{h}ex2 0 1 2 99999999999\n"),
            2,
            11,
            "C `99999999999`",
        ),
        (format!("{h}ex2 0 1 2\n"), 2, 10, "expected 5 fields"),
        (format!("{h}ex2 0 1 2 3 4\n"), 2, 13, "expected 5 fields"),
        (
            format!("{h}ex2 0 1 2 3\nex2 0 1 2 3\n"),
            3,
            5,
            "index 0 appears twice",
        ),
        (format!("{h}{}", rows(63)), 2, 1, "lacks index 63"),
        (
            format!("{h}{}", rows(16)),
            2,
            1,
            "a table has 2^5 to 2^7 rows",
        ),
    ];
    for (text, line, column, message) in cases {
        let (l, c, m) = error(text);
        assert_eq!((l, c), (*line, *column), "{text:?}: {m}");
        assert!(m.contains(message), "{text:?}: {m}");
    }
}
