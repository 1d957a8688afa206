//! Sweeps: every input of an instruction, or N random ones, in a fixed case order, summarised by
//! a digest that a GPU can recompute (docs/vectors.md). Two implementations agree on a sweep
//! exactly when their digests agree; the per-chunk sums say which 2^16 cases to look at when they
//! do not.

use crate::fast::{eval_slice, SliceError};
use crate::ptx::{eval, Context, EvalError, Instr};
use core::fmt;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// The SplitMix64 increment, 2^64 divided by the golden ratio.
pub const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// Cases per chunk digest.
pub const CHUNK: u64 = 1 << 16;

/// The SplitMix64 finalizer (Steele, Lea and Flood 2014): a bijection of u64 with good avalanche.
#[inline(always)]
pub fn mix(mut z: u64) -> u64 {
    z ^= z >> 30;
    z = z.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z ^= z >> 27;
    z = z.wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Operand `k` (0-based) of random case `i`: the (4i + k + 1)-th output of SplitMix64 seeded with
/// `seed`, truncated to the low `width` bits. Counter-based, so any case is computed on its own.
#[inline(always)]
pub fn random_operand(seed: u64, i: u64, k: u64, width: u32) -> u64 {
    let n = i.wrapping_mul(4).wrapping_add(k).wrapping_add(1);
    mask(mix(seed.wrapping_add(GOLDEN.wrapping_mul(n))), width)
}

/// Case `i`'s term of the digest: the digest is the wrapping sum of the terms.
#[inline(always)]
pub fn digest_term(i: u64, result: u64) -> u64 {
    mix(mix(i) ^ result)
}

#[inline(always)]
fn mask(x: u64, width: u32) -> u64 {
    if width >= 64 {
        x
    } else {
        x & ((1 << width) - 1)
    }
}

/// Which inputs a sweep covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Every input: operand patterns taken from the bits of the case index.
    Exhaustive,
    /// `count` cases with operands from [`random_operand`].
    Random { count: u64, seed: u64 },
}

/// Why a sweep cannot run or stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SweepError {
    /// The space, or the part of it asked for, is larger than a sweep covers.
    TooLarge(String),
    /// A range outside the space, or a shard that does not exist.
    Range(String),
    /// A case did not evaluate.
    Eval {
        case: u64,
        operands: Vec<u64>,
        error: EvalError,
    },
}

impl fmt::Display for SweepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SweepError::TooLarge(m) | SweepError::Range(m) => f.write_str(m),
            SweepError::Eval {
                case,
                operands,
                error,
            } => {
                write!(f, "case {case} (operands")?;
                for x in operands {
                    write!(f, " 0x{x:x}")?;
                }
                write!(f, "): {error}")
            }
        }
    }
}

impl std::error::Error for SweepError {}

/// The cases of a sweep of one instruction: the whole space's size, and the contiguous part of
/// it this plan runs, `start .. start + count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub instr: Instr,
    pub space: Space,
    /// Cases in the whole space: up to 2^64.
    pub size: u128,
    /// The first case the plan runs.
    pub start: u64,
    /// Number of cases the plan runs (fewer than 2^64).
    pub count: u64,
}

/// The most chunk sums [`sweep`] keeps (256 MiB of them): a plan with more chunks runs through
/// [`sweep_from`], which hands each chunk's sum on instead of keeping it.
pub const MAX_KEPT_CHUNKS: u64 = 1 << 25;

impl Plan {
    /// The number of cases of `space` for `instr`. An exhaustive space is the per-lane input
    /// space: each operand's lane pattern is a field of the case index, and packed types carry
    /// the same pattern in every lane; spaces over 2^64 cases are refused.
    pub fn size(instr: &Instr, space: Space) -> Result<u128, SweepError> {
        match space {
            Space::Random { count, .. } => Ok(u128::from(count)),
            Space::Exhaustive => {
                let bits = u32::from(instr.inputs) * lane_bits(instr);
                if bits > 64 {
                    let lanes = if instr.ty.lanes() > 1 {
                        " per lane"
                    } else {
                        ""
                    };
                    return Err(SweepError::TooLarge(format!(
                        "`{instr}` has {} operand(s) of {} bits{lanes}: 2^{bits} cases; \
                         --exhaustive covers at most 2^64 (use --random N)",
                        instr.inputs,
                        lane_bits(instr),
                    )));
                }
                Ok(1u128 << bits)
            }
        }
    }

    /// The sweep of `instr` over all of `space`. A space of 2^64 cases is refused: run it in
    /// parts ([`Plan::range`], [`Plan::shard`]).
    pub fn new(instr: &Instr, space: Space) -> Result<Plan, SweepError> {
        Plan::range(instr, space, 0, Plan::size(instr, space)?)
    }

    /// The cases `start..end` of `instr`'s `space` (fewer than 2^64 of them).
    pub fn range(instr: &Instr, space: Space, start: u128, end: u128) -> Result<Plan, SweepError> {
        let size = Plan::size(instr, space)?;
        if start > end || end > size {
            return Err(SweepError::Range(format!(
                "cases {start}..{end} are not a part of `{instr}`'s {size} cases (0..{size})"
            )));
        }
        let count = u64::try_from(end - start).map_err(|_| {
            SweepError::TooLarge(format!(
                "`{instr}`, cases {start}..{end}: 2^64 cases, more than one sweep runs; run it \
                 in parts (--range START..END or --shard K/N)"
            ))
        })?;
        Ok(Plan {
            instr: *instr,
            space,
            size,
            start: start as u64,
            count,
        })
    }

    /// Shard `k` of `n` (0-based): the `k`-th of `n` contiguous ranges of (nearly) equal size
    /// that together cover the space, `size * k / n .. size * (k + 1) / n`.
    pub fn shard(instr: &Instr, space: Space, k: u64, n: u64) -> Result<Plan, SweepError> {
        super::shard::Shard::new(k, n).map_err(SweepError::Range)?;
        let size = Plan::size(instr, space)?;
        // size <= 2^64 and k < n < 2^64: the products fit 128 bits.
        let bound = |j: u64| size * u128::from(j) / u128::from(n);
        Plan::range(instr, space, bound(k), bound(k + 1))
    }

    /// The case after the last one the plan runs (2^64 at the end of a 2^64 space).
    pub fn end(&self) -> u128 {
        u128::from(self.start) + u128::from(self.count)
    }

    /// The operands of case `i` (the first `instr.inputs` are used).
    #[inline]
    pub fn operands(&self, i: u64) -> [u64; 3] {
        let n = usize::from(self.instr.inputs).min(3);
        let mut ops = [0u64; 3];
        for (k, x) in ops.iter_mut().enumerate().take(n) {
            *x = self.operand(i, k as u32);
        }
        ops
    }

    /// Operand `k` of case `i`.
    #[inline(always)]
    fn operand(&self, i: u64, k: u32) -> u64 {
        match self.space {
            Space::Random { seed, .. } => {
                random_operand(seed, i, u64::from(k), self.instr.ty.bits())
            }
            Space::Exhaustive => {
                let l = lane_bits(&self.instr);
                let p = mask(i.checked_shr(k * l).unwrap_or(0), l);
                (0..self.instr.ty.lanes()).fold(0, |acc, lane| acc | p << (lane * l))
            }
        }
    }

    /// The space's chunk that holds the plan's first case: chunk `g` of the space covers cases
    /// `[g * CHUNK, (g + 1) * CHUNK)`.
    pub fn first_chunk(&self) -> u64 {
        self.start / CHUNK
    }

    /// Number of the space's chunks the plan runs cases of; the plan's chunk `j` is the
    /// space's chunk `first_chunk() + j`.
    pub fn chunks(&self) -> u64 {
        if self.count == 0 {
            return 0;
        }
        ((self.end() - 1) / u128::from(CHUNK)) as u64 - self.first_chunk() + 1
    }

    /// The cases the plan runs of its chunk `j`: the first and how many (a chunk is cut where
    /// the plan starts or ends inside it).
    pub fn chunk_cases(&self, j: u64) -> (u64, u64) {
        let g = u128::from(self.first_chunk() + j);
        let lo = (g * u128::from(CHUNK)).max(u128::from(self.start));
        let hi = ((g + 1) * u128::from(CHUNK)).min(self.end());
        (lo as u64, hi.saturating_sub(lo) as u64)
    }

    /// The digest sum of the plan's chunk `j`, evaluating the cases in blocks with
    /// [`eval_slice`] (the same results as [`eval()`], faster where the instruction has a
    /// kernel). Operands and digest terms are computed by code compiled for the CPU's SIMD level
    /// ([`gpufp_dispatch`]).
    pub fn chunk(&self, j: u64, ctx: &Context) -> Result<u64, SweepError> {
        gpufp_dispatch::run(Chunk { plan: self, j, ctx })
    }
}

/// One chunk of a sweep, compiled per SIMD level.
struct Chunk<'a> {
    plan: &'a Plan,
    j: u64,
    ctx: &'a Context,
}

impl gpufp_dispatch::Job for Chunk<'_> {
    type Output = Result<u64, SweepError>;

    #[inline(always)]
    fn run<const HW_FMA: bool>(self) -> Self::Output {
        const BLOCK: u64 = 4096;
        let Chunk { plan, j, ctx } = self;
        let n = usize::from(plan.instr.inputs).min(3);
        let (mut base, mut left) = plan.chunk_cases(j);
        let mut cols = vec![vec![0u64; BLOCK as usize]; n];
        let mut out = vec![0u64; BLOCK as usize];
        let mut sum = 0u64;
        while left > 0 {
            let len = left.min(BLOCK) as usize;
            let (width, l) = (plan.instr.ty.bits(), lane_bits(&plan.instr));
            let packed = plan.instr.ty.lanes() == 2;
            for (k, col) in cols.iter_mut().enumerate() {
                let col = &mut col[..len];
                // `Plan::operand`'s operands, one loop per space so that each vectorizes (calling
                // `Plan::operand` per element made the add.rn.f16 sweep 5x slower).
                match plan.space {
                    Space::Random { seed, .. } => {
                        for (j, x) in col.iter_mut().enumerate() {
                            *x = random_operand(seed, base + j as u64, k as u64, width);
                        }
                    }
                    Space::Exhaustive => {
                        for (j, x) in col.iter_mut().enumerate() {
                            let i = base + j as u64;
                            let p = mask(i.checked_shr(k as u32 * l).unwrap_or(0), l);
                            *x = if packed { p | p << l } else { p };
                        }
                    }
                }
            }
            let ops: Vec<&[u64]> = cols.iter().map(|col| &col[..len]).collect();
            eval_slice(&plan.instr, &ops, ctx, &mut out[..len]).map_err(|e| {
                let (index, error) = match e {
                    SliceError::Eval { index, error } => (index, error),
                    SliceError::Shape(m) => (0, EvalError::Operands(m)),
                };
                SweepError::Eval {
                    case: base + index as u64,
                    operands: plan.operands(base + index as u64)[..n].to_vec(),
                    error,
                }
            })?;
            for (j, r) in out[..len].iter().enumerate() {
                sum = sum.wrapping_add(digest_term(base + j as u64, *r));
            }
            // `base` stays below 2^64: the last block of a 2^64 space ends the loop first.
            left -= len as u64;
            base = base.wrapping_add(len as u64);
        }
        Ok(sum)
    }
}

#[inline(always)]
fn lane_bits(i: &Instr) -> u32 {
    i.ty.bits() / i.ty.lanes()
}

/// What a sweep computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub count: u64,
    /// The wrapping sum of every case's [`digest_term`].
    pub digest: u64,
    /// The sum of each chunk's terms, the plan's chunk 0 first.
    pub chunks: Vec<u64>,
}

/// How far a sweep has come: its first `chunks` chunks are done, and `digest` is the sum of
/// their terms. A sweep resumes from it ([`sweep_from`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    pub chunks: u64,
    pub digest: u64,
}

/// What [`sweep_from`] tells its caller as it goes; both are called from the worker threads.
pub trait Observer: Sync {
    /// A chunk of `cases` cases finished (chunks finish in any order): for a progress display.
    fn finished(&self, cases: u64) {
        let _ = cases;
    }
    /// The plan's chunk `j`, whose sum is `sum`, is done and so is every chunk before it;
    /// `progress` includes it. Called once per chunk, in chunk order, one call at a time: for a
    /// chunk digest file and for saving the progress to resume from.
    fn done(&self, j: u64, sum: u64, progress: Progress) {
        let _ = (j, sum, progress);
    }
}

/// Keeps every chunk's sum, for [`sweep`].
struct Keep {
    sums: Mutex<Vec<u64>>,
}

impl Observer for Keep {
    fn done(&self, _: u64, sum: u64, _: Progress) {
        self.sums
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(sum);
    }
}

/// Runs `plan` on `threads` threads, which take chunks in turn, and keeps each chunk's sum. Case
/// 0 is evaluated first, so an instruction that does not evaluate fails at once. Plans of more
/// than [`MAX_KEPT_CHUNKS`] chunks are refused: run them with [`sweep_from`].
pub fn sweep(plan: &Plan, ctx: &Context, threads: usize) -> Result<Outcome, SweepError> {
    if plan.chunks() > MAX_KEPT_CHUNKS {
        return Err(SweepError::TooLarge(format!(
            "{} cases: `sweep` keeps at most 2^25 chunk sums (2^41 cases); run larger ones \
             with `sweep_from`",
            plan.count
        )));
    }
    let keep = Keep {
        sums: Mutex::new(Vec::with_capacity(plan.chunks() as usize)),
    };
    let p = sweep_from(plan, ctx, threads, Progress::default(), &keep)?;
    Ok(Outcome {
        count: plan.count,
        digest: p.digest,
        chunks: keep.sums.into_inner().unwrap_or_else(|p| p.into_inner()),
    })
}

/// The chunks done beyond the first not yet done, by index, until it is done.
struct Order {
    progress: Progress,
    ahead: BTreeMap<u64, u64>,
}

/// Runs `plan` from `from` (its first `from.chunks` chunks already done, with digest sum
/// `from.digest`) on `threads` threads, which take chunks in turn, telling `observer` as chunks
/// finish; returns the whole plan's progress: every chunk, and the digest. The memory it takes
/// does not grow with the plan. The plan's first case is evaluated first, so an instruction that
/// does not evaluate fails at once.
pub fn sweep_from(
    plan: &Plan,
    ctx: &Context,
    threads: usize,
    from: Progress,
    observer: &dyn Observer,
) -> Result<Progress, SweepError> {
    let chunks = plan.chunks();
    if from.chunks > chunks {
        return Err(SweepError::Range(format!(
            "resuming after chunk {} of a plan of {chunks} chunks",
            from.chunks
        )));
    }
    if plan.count > 0 {
        let ops = plan.operands(plan.start);
        let n = usize::from(plan.instr.inputs).min(3);
        eval(&plan.instr, &ops[..n], ctx).map_err(|error| SweepError::Eval {
            case: plan.start,
            operands: ops[..n].to_vec(),
            error,
        })?;
    }
    let next = AtomicU64::new(from.chunks);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<SweepError>> = Mutex::new(None);
    let order = Mutex::new(Order {
        progress: from,
        ahead: BTreeMap::new(),
    });
    let work = || {
        while !stop.load(Ordering::Relaxed) {
            let j = next.fetch_add(1, Ordering::Relaxed);
            if j >= chunks {
                break;
            }
            match plan.chunk(j, ctx) {
                Ok(sum) => {
                    observer.finished(plan.chunk_cases(j).1);
                    let mut guard = order.lock().unwrap_or_else(|p| p.into_inner());
                    let o = &mut *guard;
                    o.ahead.insert(j, sum);
                    while let Some(sum) = o.ahead.remove(&o.progress.chunks) {
                        let j = o.progress.chunks;
                        o.progress = Progress {
                            chunks: j + 1,
                            digest: o.progress.digest.wrapping_add(sum),
                        };
                        observer.done(j, sum, o.progress);
                    }
                }
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
                    f.get_or_insert(e);
                }
            }
        }
    };
    std::thread::scope(|s| {
        // As many workers as the system gives, up to `threads`; the calling thread works too.
        let workers: Vec<_> = (1..threads.max(1))
            .map_while(|_| std::thread::Builder::new().spawn_scoped(s, work).ok())
            .collect();
        work();
        for w in workers {
            w.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    Ok(order
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .progress)
}
