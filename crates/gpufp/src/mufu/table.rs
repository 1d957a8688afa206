//! Coefficient tables for the quadratic-interpolator MUFU model ([`super::interp`]) and their
//! text file format (docs/sfu.md).
//!
//! The project ships no table: the coefficients are measured data (a GPU's, or a published
//! third party's), read from a file at run time.
//!
//! ```text
//! # comment lines and blank lines are skipped
//! function  index  A         B       C
//! rcp       0      67108864  -65536  1024
//! ...
//! ```
//! The first other line is the header `function index A B C`; every later line is one row:
//! a function name (`rcp`, `rsqrt`, `ex2`, `lg2`, `sin`, the last shared by SIN and COS), the
//! segment index in decimal, and the signed decimal coefficients A, B, C. Fields are separated
//! by tabs or spaces. A function's rows carry the indices 0..n-1 once each, in any order; n is
//! a power of two within [`Function::index_bits`]. A function may be absent from a file.

use core::fmt;

/// A function with its own table. SIN and COS share [`Function::Sin`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Function {
    Rcp,
    Rsqrt,
    Ex2,
    Lg2,
    Sin,
}

impl Function {
    pub const ALL: [Function; 5] = [
        Function::Rcp,
        Function::Rsqrt,
        Function::Ex2,
        Function::Lg2,
        Function::Sin,
    ];

    /// The name in a table file.
    pub fn name(self) -> &'static str {
        match self {
            Function::Rcp => "rcp",
            Function::Rsqrt => "rsqrt",
            Function::Ex2 => "ex2",
            Function::Lg2 => "lg2",
            Function::Sin => "sin",
        }
    }

    pub fn from_name(name: &str) -> Option<Function> {
        Function::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The model's index width (the G80 model: RCP and RSQ tables have 128 rows, the others 64).
    pub fn model_index_bits(self) -> u32 {
        match self {
            Function::Rcp | Function::Rsqrt => 7,
            Function::Ex2 | Function::Lg2 | Function::Sin => 6,
        }
    }

    /// The index widths a table may have: the model's, one fewer (the fraction `x` then gets one
    /// more bit than the hardware squarer is known to take) and one more (finer segments, same
    /// arithmetic). The fitter tries them in this order, smallest first.
    pub fn index_bits(self) -> core::ops::RangeInclusive<u32> {
        let k = self.model_index_bits();
        k - 1..=k + 1
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One segment's coefficients.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Row {
    pub a: i64,
    pub b: i64,
    pub c: i64,
}

/// Bounds that keep the model's 64-bit arithmetic exact: |A| < 2^40, |B|, |C| < 2^32.
pub const A_LIMIT: i64 = 1 << 40;
pub const BC_LIMIT: i64 = 1 << 32;

impl Row {
    /// Whether the coefficients are within [`A_LIMIT`] and [`BC_LIMIT`].
    pub fn in_limits(&self) -> bool {
        self.a.abs() < A_LIMIT && self.b.abs() < BC_LIMIT && self.c.abs() < BC_LIMIT
    }
}

/// One function's table: 2^k rows, indexed by the top k bits of the fraction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    rows: Vec<Row>,
    bits: u32,
}

impl Table {
    /// A table from its rows; `None` unless there are 2^k of them with k allowed for `func`
    /// and every row is within the coefficient limits.
    pub fn new(func: Function, rows: Vec<Row>) -> Option<Table> {
        let bits = rows.len().checked_ilog2()?;
        (rows.len().is_power_of_two()
            && func.index_bits().contains(&bits)
            && rows.iter().all(Row::in_limits))
        .then_some(Table { rows, bits })
    }
    pub fn index_bits(&self) -> u32 {
        self.bits
    }
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }
    pub fn row(&self, idx: usize) -> Row {
        self.rows[idx]
    }
}

/// The tables of one file, by function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tables {
    tables: [Option<Table>; 5],
}

impl Tables {
    pub fn get(&self, func: Function) -> Option<&Table> {
        self.tables[func as usize].as_ref()
    }
    pub fn set(&mut self, func: Function, table: Table) {
        self.tables[func as usize] = Some(table);
    }
    /// The functions that have a table.
    pub fn functions(&self) -> impl Iterator<Item = Function> + '_ {
        Function::ALL.into_iter().filter(|f| self.get(*f).is_some())
    }

    /// The file text of these tables (the format in the module documentation).
    pub fn to_text(&self) -> String {
        let mut out = String::from("function\tindex\tA\tB\tC\n");
        for func in self.functions() {
            for (i, r) in self
                .get(func)
                .into_iter()
                .flat_map(|t| t.rows.iter().enumerate())
            {
                out += &format!("{func}\t{i}\t{}\t{}\t{}\n", r.a, r.b, r.c);
            }
        }
        out
    }

    /// Reads a table file's text.
    pub fn parse(text: &str) -> Result<Tables, TableError> {
        let mut header_seen = false;
        let mut rows: [Vec<Option<Row>>; 5] = Default::default();
        let mut first_line = [0usize; 5];
        for (n, line) in text.lines().enumerate() {
            let line_no = n + 1;
            let err = |column: usize, message: String| TableError {
                line: line_no,
                column: column + 1,
                message,
            };
            let fields: Vec<(usize, &str)> = fields(line).collect();
            if fields.is_empty() || fields[0].1.starts_with('#') {
                continue;
            }
            if !header_seen {
                let names: Vec<&str> = fields.iter().map(|f| f.1).collect();
                if names != ["function", "index", "A", "B", "C"] {
                    return Err(err(
                        fields[0].0,
                        "expected the header `function index A B C`".into(),
                    ));
                }
                header_seen = true;
                continue;
            }
            if fields.len() != 5 {
                let at = fields.get(5).map_or(line.len(), |f| f.0);
                return Err(err(
                    at,
                    format!(
                        "expected 5 fields (function index A B C), found {}",
                        fields.len()
                    ),
                ));
            }
            let (col, name) = fields[0];
            let func = Function::from_name(name).ok_or_else(|| {
                err(
                    col,
                    format!("unknown function `{name}` (expected rcp, rsqrt, ex2, lg2 or sin)"),
                )
            })?;
            let max_rows = 1usize << func.index_bits().end();
            let (col, text) = fields[1];
            let index: usize = text.parse().ok().filter(|i| *i < max_rows).ok_or_else(|| {
                err(
                    col,
                    format!("index `{text}` is not a number below {max_rows} for {func}"),
                )
            })?;
            let mut coef = [0i64; 3];
            for (k, slot) in coef.iter_mut().enumerate() {
                let (col, text) = fields[2 + k];
                let limit = if k == 0 { A_LIMIT } else { BC_LIMIT };
                *slot = text
                    .parse::<i64>()
                    .ok()
                    .filter(|v| v.abs() < limit)
                    .ok_or_else(|| {
                        err(
                            col,
                            format!(
                                "{} `{text}` is not a signed decimal integer of magnitude below 2^{}",
                                ["A", "B", "C"][k],
                                limit.ilog2()
                            ),
                        )
                    })?;
            }
            let list = &mut rows[func as usize];
            if list.is_empty() {
                first_line[func as usize] = line_no;
            }
            if list.len() <= index {
                list.resize(index + 1, None);
            }
            if list[index].is_some() {
                return Err(err(
                    fields[1].0,
                    format!("{func} index {index} appears twice"),
                ));
            }
            list[index] = Some(Row {
                a: coef[0],
                b: coef[1],
                c: coef[2],
            });
        }
        if !header_seen {
            return Err(TableError {
                line: text.lines().count().max(1),
                column: 1,
                message: "no header `function index A B C`: not a table file".into(),
            });
        }
        let mut tables = Tables::default();
        for func in Function::ALL {
            let list = std::mem::take(&mut rows[func as usize]);
            if list.is_empty() {
                continue;
            }
            let at = TableError {
                line: first_line[func as usize],
                column: 1,
                message: String::new(),
            };
            let n = list.len().next_power_of_two();
            let bits = n.ilog2();
            if !func.index_bits().contains(&bits) {
                let r = func.index_bits();
                return Err(TableError {
                    message: format!(
                        "{func} has {} rows; a table has 2^{} to 2^{} rows",
                        list.len(),
                        r.start(),
                        r.end()
                    ),
                    ..at
                });
            }
            let missing: Vec<String> = (0..n)
                .filter(|&i| !matches!(list.get(i), Some(Some(_))))
                .map(|i| i.to_string())
                .collect();
            if !missing.is_empty() {
                return Err(TableError {
                    message: format!(
                        "{func} table of {n} rows lacks index {}",
                        missing.join(", ")
                    ),
                    ..at
                });
            }
            let table =
                Table::new(func, list.into_iter().flatten().collect()).ok_or(TableError {
                    message: format!("{func}: not a valid table"),
                    ..at
                })?;
            tables.set(func, table);
        }
        if tables.functions().next().is_none() {
            return Err(TableError {
                line: text.lines().count().max(1),
                column: 1,
                message: "the file has a header but no rows".into(),
            });
        }
        Ok(tables)
    }
}

/// The fields of a line with their byte columns.
fn fields(line: &str) -> impl Iterator<Item = (usize, &str)> {
    line.split([' ', '\t'])
        .filter(|w| !w.is_empty())
        .map(move |w| (w.as_ptr() as usize - line.as_ptr() as usize, w))
}

/// A malformed table file: where (1-based line and column) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for TableError {}
