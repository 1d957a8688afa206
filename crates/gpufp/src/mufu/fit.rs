//! Recovering an interpolator table from captured MUFU results (docs/sfu.md).
//!
//! Each captured (input, output) pair puts the input in a segment with its fraction `x` and
//! squarer term `sq`, and the output pins `P = (A << sA) + B*x + C*sq` to an interval
//! ([`interp::interval`]): a linear constraint on the segment's integer (A, B, C). The search
//! is exact: three captured points bound C (Cramer's rule over the intervals, A taken as a
//! real), each C with two points bounds B, and each (B, C) gives A as the intersection of all
//! the points' intervals. Any (A, B, C) that reproduces every output lies in that box, so a
//! segment with no solution in it is one no coefficients can explain.

use super::interp::{self, Prepared, P_ANY};
use super::table::{Function, Row, Table, Tables, A_LIMIT, BC_LIMIT};
use super::Op;
use crate::format::F32;
use core::fmt;

/// A capture file: one `INPUT OUTPUT` pair of `0x` bit patterns per line, `#` comments.
pub fn parse_capture(text: &str) -> Result<Vec<(u32, u32)>, CaptureError> {
    let mut pairs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut words = line
            .split([' ', '\t'])
            .filter(|w| !w.is_empty())
            .map(|w| (w.as_ptr() as usize - line.as_ptr() as usize, w));
        let Some(first) = words.next() else { continue };
        if first.1.starts_with('#') {
            continue;
        }
        let err = |col: usize, message: String| CaptureError {
            line: n + 1,
            column: col + 1,
            message,
        };
        let mut pair = [0u32; 2];
        for (k, slot) in pair.iter_mut().enumerate() {
            let word = if k == 0 { Some(first) } else { words.next() };
            let (col, w) = word.ok_or_else(|| err(line.len(), "missing the output bits".into()))?;
            *slot = w
                .strip_prefix("0x")
                .filter(|h| !h.is_empty() && h.len() <= 8)
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .ok_or_else(|| err(col, format!("`{w}` is not a 32-bit `0x` hex bit pattern")))?;
        }
        if let Some((col, w)) = words.next() {
            return Err(err(col, format!("unexpected `{w}` after INPUT OUTPUT")));
        }
        pairs.push((pair[0], pair[1]));
    }
    Ok(pairs)
}

/// A malformed capture file: where (1-based line and column) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for CaptureError {}

/// What the fitter found for one segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Coefficients reproducing every captured output of the segment; `solutions` counts the
    /// (A, B, C) that do (capped at [`SOLUTION_CAP`]): more than one means the capture cannot
    /// tell them apart.
    Fitted { row: Row, solutions: u64 },
    /// No coefficients reproduce the captured outputs.
    Unexplained(String),
    /// The capture has no (or too few) inputs in the segment.
    Uncovered(String),
}

pub const SOLUTION_CAP: u64 = 1 << 20;

/// The fitter's result for one index width.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    pub bits: u32,
    pub segments: Vec<Outcome>,
}

impl Attempt {
    pub fn complete(&self) -> bool {
        self.segments
            .iter()
            .all(|o| matches!(o, Outcome::Fitted { .. }))
    }
    /// The table, when every segment was fitted.
    pub fn table(&self, func: Function) -> Option<Table> {
        let rows = self
            .segments
            .iter()
            .map(|o| match o {
                Outcome::Fitted { row, .. } => Some(*row),
                _ => None,
            })
            .collect::<Option<Vec<Row>>>()?;
        Table::new(func, rows)
    }
}

/// The whole fit of one core.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fit {
    pub op: Op,
    pub func: Function,
    /// One attempt per index width tried, smallest first; the fit stops at the first complete.
    pub attempts: Vec<Attempt>,
    /// Captured pairs the model decides without a table (special values) whose output differs
    /// from the model's.
    pub special_mismatches: Vec<(u32, u32, u32)>,
    /// The chosen table (the first complete attempt) and how many captured pairs it
    /// reproduces when run through the core.
    pub table: Option<(Table, usize)>,
    pub captured: usize,
}

impl Fit {
    /// The table file text of the fitted table.
    pub fn table_text(&self) -> Option<String> {
        let (table, _) = self.table.as_ref()?;
        let mut tables = Tables::default();
        tables.set(self.func, table.clone());
        Some(tables.to_text())
    }
}

/// Fits the table of `op` (one of RCP, RSQ, EX2, LG2, SIN, COS; COS fits the shared SIN table)
/// to captured (input bits, output bits) pairs.
pub fn fit(op: Op, pairs: &[(u32, u32)]) -> Result<Fit, String> {
    let func = interp::function(op).ok_or_else(|| {
        format!("{op:?} has no interpolator model (rcp, rsqrt, ex2, lg2, sin, cos do)")
    })?;
    let bits0 = *func.index_bits().start();
    let mut special_mismatches = Vec::new();
    let mut points: Vec<(u32, u32)> = Vec::with_capacity(pairs.len());
    for &(a, out) in pairs {
        match interp::prepare(op, F32(a), bits0) {
            Prepared::Done(d) if d != out => special_mismatches.push((a, out, d)),
            Prepared::Done(_) => {}
            Prepared::Point(_) => points.push((a, out)),
        }
    }
    let mut fit = Fit {
        op,
        func,
        attempts: Vec::new(),
        special_mismatches,
        table: None,
        captured: pairs.len(),
    };
    for bits in func.index_bits() {
        let attempt = fit_width(op, func, bits, &points);
        if let Some(table) = attempt.table(func) {
            let reproduced = pairs
                .iter()
                .filter(|&&(a, out)| interp::eval(op, &table, F32(a)).0 == out)
                .count();
            fit.table = Some((table, reproduced));
            fit.attempts.push(attempt);
            break;
        }
        fit.attempts.push(attempt);
    }
    Ok(fit)
}

/// One constraint: `lo <= (A << sA) + B*x + C*sq <= hi`.
#[derive(Clone, Copy, Debug)]
struct Constraint {
    x: i64,
    sq: i64,
    lo: i128,
    hi: i128,
}

fn fit_width(op: Op, func: Function, bits: u32, points: &[(u32, u32)]) -> Attempt {
    let n = 1usize << bits;
    let mut by_segment: Vec<Vec<Constraint>> = vec![Vec::new(); n];
    let mut bad: Vec<Option<String>> = vec![None; n];
    for &(a, out) in points {
        let Prepared::Point(p) = interp::prepare(op, F32(a), bits) else {
            continue;
        };
        match interp::interval(&p.post, out) {
            Some((lo, hi)) => by_segment[p.idx].push(Constraint {
                x: p.x,
                sq: p.sq,
                lo,
                hi,
            }),
            None => {
                bad[p.idx].get_or_insert_with(|| {
                    format!("input 0x{a:08x} gives 0x{out:08x}, which no coefficients produce")
                });
            }
        }
    }
    let segments = by_segment
        .into_iter()
        .zip(bad)
        .map(|(cons, bad)| match bad {
            Some(why) => Outcome::Unexplained(why),
            None => solve(func, cons),
        })
        .collect();
    Attempt { bits, segments }
}

fn div_floor(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn div_ceil(a: i128, b: i128) -> i128 {
    -div_floor(-a, b)
}

/// The exact search of one segment.
fn solve(func: Function, mut cons: Vec<Constraint>) -> Outcome {
    // Merge the constraints of equal x (same x, same squarer term): intersect their intervals.
    cons.sort_by_key(|c| c.x);
    let mut merged: Vec<Constraint> = Vec::with_capacity(cons.len());
    for c in cons {
        match merged.last_mut() {
            Some(m) if m.x == c.x => {
                m.lo = m.lo.max(c.lo);
                m.hi = m.hi.min(c.hi);
            }
            _ => merged.push(c),
        }
    }
    if let Some(c) = merged.iter().find(|c| c.lo > c.hi) {
        return Outcome::Unexplained(format!(
            "the captured outputs at x = {} contradict each other",
            c.x
        ));
    }
    merged.retain(|c| c.lo > -P_ANY || c.hi < P_ANY);
    let two_sided: Vec<Constraint> = merged
        .iter()
        .copied()
        .filter(|c| c.lo > -P_ANY && c.hi < P_ANY)
        .collect();
    if two_sided.len() < 3 {
        return Outcome::Uncovered(format!(
            "{} captured fraction(s) pin the result; at least 3 are needed",
            two_sided.len()
        ));
    }
    let p0 = two_sided[0];
    let p2 = two_sided[two_sided.len() - 1];
    let mid = (p0.x + p2.x) / 2;
    let p1 = *two_sided
        .iter()
        .min_by_key(|c| (c.x - mid).abs())
        .unwrap_or(&p0);
    let (dx1, dx2) = (i128::from(p1.x - p0.x), i128::from(p2.x - p0.x));
    let (ds1, ds2) = (i128::from(p1.sq - p0.sq), i128::from(p2.sq - p0.sq));
    // (y1 - y0) dx2 - (y2 - y0) dx1 = C (ds1 dx2 - ds2 dx1), each y_j in [lo_j, hi_j].
    let d = ds1 * dx2 - ds2 * dx1;
    if d == 0 || dx1 == 0 {
        return Outcome::Uncovered("the captured fractions cannot separate B from C".into());
    }
    let n_min = dx2 * p1.lo - dx1 * p2.hi + (dx1 - dx2) * p0.hi;
    let n_max = dx2 * p1.hi - dx1 * p2.lo + (dx1 - dx2) * p0.lo;
    let (c_lo, c_hi) = if d > 0 {
        (div_ceil(n_min, d), div_floor(n_max, d))
    } else {
        (div_ceil(n_max, d), div_floor(n_min, d))
    };
    let bc = i128::from(BC_LIMIT);
    let (c_lo, c_hi) = (c_lo.max(1 - bc), c_hi.min(bc - 1));
    if c_hi - c_lo > 1 << 16 {
        return Outcome::Unexplained(format!("search box too large: C in [{c_lo}, {c_hi}]"));
    }
    // Coarse-to-fine order, so that a wrong candidate fails within a few points.
    let mut order: Vec<usize> = (0..merged.len()).collect();
    order.sort_by_key(|&i| core::cmp::Reverse(if i == 0 { 64 } else { i.trailing_zeros() }));
    let checks: Vec<Constraint> = [p0, p1, p2]
        .into_iter()
        .chain(order.into_iter().map(|i| merged[i]))
        .collect();
    let sa = interp::a_shift(func);
    let scale = 1i128 << sa;
    let a_lim = i128::from(A_LIMIT);
    let mut found: Option<Row> = None;
    let mut solutions: u64 = 0;
    let mut work: u64 = 0;
    for c in c_lo..=c_hi {
        let b_lo = div_ceil(p2.lo - p0.hi - c * ds2, dx2).max(1 - bc);
        let b_hi = div_floor(p2.hi - p0.lo - c * ds2, dx2).min(bc - 1);
        for b in b_lo..=b_hi {
            work += 1;
            if work > 1 << 22 {
                return Outcome::Unexplained("search box too large: too many (B, C)".into());
            }
            let (mut a_lo, mut a_hi) = (1 - a_lim, a_lim - 1);
            for k in &checks {
                let rest = b * i128::from(k.x) + c * i128::from(k.sq);
                if k.lo > -P_ANY {
                    a_lo = a_lo.max(div_ceil(k.lo - rest, scale));
                }
                if k.hi < P_ANY {
                    a_hi = a_hi.min(div_floor(k.hi - rest, scale));
                }
                if a_lo > a_hi {
                    break;
                }
            }
            if a_lo <= a_hi {
                solutions = solutions.saturating_add((a_hi - a_lo + 1) as u64);
                found.get_or_insert(Row {
                    a: a_lo as i64,
                    b: b as i64,
                    c: c as i64,
                });
            }
        }
    }
    match found {
        Some(row) => Outcome::Fitted {
            row,
            solutions: solutions.min(SOLUTION_CAP),
        },
        None => Outcome::Unexplained(format!(
            "no integer (A, B, C) reproduces the {} captured fractions (C bounded to [{c_lo}, {c_hi}])",
            merged.len()
        )),
    }
}
