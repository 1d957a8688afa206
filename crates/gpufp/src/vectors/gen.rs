//! Test cases in the manner of TestFloat's generator: operands built from a table of exponents
//! (zero and subnormals, the normal range's ends, the neighbourhood of 1 and of its rounding
//! ties, infinity and NaN) crossed with a table of significand patterns and both signs. Level 1
//! walks the cross product of these values over the operands where it is small enough; every
//! other case draws each operand from the table, with random significand bits a quarter of the
//! time. Lanes of packed types are drawn independently. docs/vectors.md states the tables.

use super::sweep::{mix, GOLDEN};
use crate::format::{Format, BF16, F16, F32, F64};
use crate::ptx::{Instr, Type};

/// How thorough the cases are: level 2 has larger tables and more cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    One,
    Two,
}

/// Field widths (exponent, trailing significand) of a scalar type.
fn fields(ty: Type) -> (u32, u32) {
    match ty.lane() {
        Type::F32 => (F32::EXP_BITS, F32::FRAC_BITS),
        Type::F64 => (F64::EXP_BITS, F64::FRAC_BITS),
        Type::F16 => (F16::EXP_BITS, F16::FRAC_BITS),
        _ => (BF16::EXP_BITS, BF16::FRAC_BITS),
    }
}

/// Biased exponents of the table for a format with `e` exponent and `m` significand bits.
///
/// Level 1: 0 (zeros, subnormals); 1, 2 (the smallest normals, 2^-126 for f32); the binade of 1
/// and its neighbours; 2^-(m+2)..2^-m, where adding 1 rounds to a tie or next to one; 2^m and
/// 2^(m+1), where the ulp reaches 1 and 2; the two largest binades (2^126, 2^127 for f32); and
/// all ones (infinity, NaN). Level 2 adds each anchor's neighbours within 3, the binades whose
/// squares land near the smallest normal and the largest finite value, and interior quarters.
pub fn exponents(e: u32, m: u32, level: Level) -> Vec<u64> {
    let top = (1i64 << e) - 1;
    let bias = (1i64 << (e - 1)) - 1;
    let m = i64::from(m);
    let anchors = [
        0,
        1,
        2,
        bias - m - 2,
        bias - m - 1,
        bias - m,
        bias - 1,
        bias,
        bias + 1,
        bias + m,
        bias + m + 1,
        top - 2,
        top - 1,
        top,
    ];
    let mut v: Vec<i64> = anchors.to_vec();
    if level == Level::Two {
        for a in anchors {
            v.extend(a - 3..=a + 3);
        }
        for a in [(bias + 1) / 2, bias + bias / 2, bias / 2, bias + bias / 4] {
            v.extend(a - 1..=a + 1);
        }
    }
    let mut out: Vec<u64> = v
        .into_iter()
        .filter(|x| (0..=top).contains(x))
        .map(|x| x as u64)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Trailing-significand patterns of the table for `m` significand bits, with `q` the quiet bit
/// (the half-ulp position when the value is shifted by one) and `a` all ones.
///
/// Level 1: 0, 1, q-1, q, q+1, a-1, a: zero, the lowest bit, both sides of the half, the top.
/// With the exponent all ones they give infinity, signalling NaNs (1, q-1) and quiet NaNs with
/// and without payload (q, q+1, a-1, a). Level 2 adds 2, 3, every single bit, runs of ones from
/// the top and from the bottom, and the two alternating patterns.
pub fn significands(m: u32, level: Level) -> Vec<u64> {
    let q = 1u64 << (m - 1);
    let a = (1u64 << m) - 1;
    let mut v = vec![0, 1, q - 1, q, q + 1, a - 1, a];
    if level == Level::Two {
        v.extend([2, 3, 0x5555_5555_5555_5555 & a, 0xAAAA_AAAA_AAAA_AAAA & a]);
        for j in 0..m {
            v.push(1 << j);
            v.push((1 << j) - 1);
            v.push(a ^ (a >> j));
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Every value of the table for scalar type `ty`: signs, crossed with [`exponents`], crossed with
/// [`significands`]; positive values first, by exponent, then by significand.
pub fn values(ty: Type, level: Level) -> Vec<u64> {
    let (e, m) = fields(ty);
    let exps = exponents(e, m, level);
    let sigs = significands(m, level);
    let mut out = Vec::with_capacity(2 * exps.len() * sigs.len());
    for sign in [0u64, 1] {
        for &x in &exps {
            for &s in &sigs {
                out.push(sign << (e + m) | x << m | s);
            }
        }
    }
    out
}

/// The number of cases `gen` writes when no count is given: the size of the cross product of the
/// table over the operands, kept within [10^4, 10^5] at level 1 and [2*10^5, 2*10^6] at level 2.
pub fn default_count(instr: &Instr, level: Level) -> u64 {
    let (lo, hi) = match level {
        Level::One => (10_000, 100_000),
        Level::Two => (200_000, 2_000_000),
    };
    full(instr, values(instr.ty, level).len()).map_or(hi, |f| f.clamp(lo, hi))
}

/// |table|^inputs, or None when that overflows u64.
fn full(instr: &Instr, table: usize) -> Option<u64> {
    (table as u64).checked_pow(u32::from(instr.inputs))
}

/// The cases of one instruction, as operand bit patterns (the first `instr.inputs` are used).
#[derive(Clone, Debug)]
pub struct Cases {
    instr: Instr,
    table: Vec<u64>,
    frac_mask: u64,
    seed: u64,
    count: u64,
    /// The cross product's size, when it is walked first (count >= its size).
    walk: Option<u64>,
    next: u64,
}

/// The first `count` cases (default: [`default_count`]) of `instr` at `level` from `seed`.
///
/// When `count` covers the cross product of the table over the operands, case `j` below its size
/// gives operand `k` (lane 0) the table value at digit `k` of `j` written in base |table|, operand
/// 0 fastest; all other operand lanes are drawn (see [`Cases::draw`]).
pub fn cases(instr: &Instr, level: Level, seed: u64, count: Option<u64>) -> Cases {
    let table = values(instr.ty, level);
    let count = count.unwrap_or_else(|| default_count(instr, level));
    let walk = full(instr, table.len()).filter(|&f| f <= count);
    Cases {
        instr: *instr,
        frac_mask: (1 << fields(instr.ty).1) - 1,
        table,
        seed,
        count,
        walk,
        next: 0,
    }
}

impl Cases {
    /// Random number `t` (< 4) of slot `s` (< 8) of case `j`: SplitMix64 of the seed at position
    /// 32j + 4s + t + 1.
    fn random(&self, j: u64, s: u64, t: u64) -> u64 {
        let n = j.wrapping_mul(32).wrapping_add(4 * s + t + 1);
        mix(self.seed.wrapping_add(GOLDEN.wrapping_mul(n)))
    }

    /// Slot `s` (operand k, lane l: s = 2k + l) of case `j` drawn from the table: the value at
    /// random 0 modulo the table's size, with its significand replaced by random 2's bits when
    /// random 1 is 0 modulo 4.
    pub fn draw(&self, j: u64, s: u64) -> u64 {
        let x = self.table[(self.random(j, s, 0) % self.table.len() as u64) as usize];
        if self.random(j, s, 1).is_multiple_of(4) {
            (x & !self.frac_mask) | (self.random(j, s, 2) & self.frac_mask)
        } else {
            x
        }
    }

    /// The operands of case `j`.
    pub fn case(&self, j: u64) -> [u64; 3] {
        let lanes = self.instr.ty.lanes();
        let lane_bits = self.instr.ty.bits() / lanes;
        let mut ops = [0u64; 3];
        let mut digits = j;
        for (k, x) in ops
            .iter_mut()
            .enumerate()
            .take(usize::from(self.instr.inputs))
        {
            let k = k as u64;
            for lane in 0..lanes {
                let v = match self.walk {
                    Some(size) if lane == 0 && j < size => {
                        let n = self.table.len() as u64;
                        let d = digits % n;
                        digits /= n;
                        self.table[d as usize]
                    }
                    _ => self.draw(j, 2 * k + u64::from(lane)),
                };
                *x |= v << (lane * lane_bits);
            }
        }
        ops
    }
}

impl Iterator for Cases {
    type Item = [u64; 3];

    fn next(&mut self) -> Option<[u64; 3]> {
        (self.next < self.count).then(|| {
            self.next += 1;
            self.case(self.next - 1)
        })
    }
}
