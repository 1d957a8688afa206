//! Sweeps: every input of an instruction, or N random ones, in a fixed case order, summarised by
//! a digest that a GPU can recompute (docs/vectors.md). Two implementations agree on a sweep
//! exactly when their digests agree; the per-chunk sums say which 2^16 cases to look at when they
//! do not.

use crate::fast::{eval_slice, SliceError};
use crate::ptx::{eval, Context, EvalError, Instr};
use core::fmt;
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
    /// The input space is larger than an exhaustive sweep covers (2^32 cases).
    TooLarge(String),
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
            SweepError::TooLarge(m) => f.write_str(m),
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

/// The cases of a sweep of one instruction: how many, and each one's operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub instr: Instr,
    pub space: Space,
    /// Number of cases.
    pub count: u64,
}

/// The most cases one sweep runs: 2^24 chunks, whose sums take 256 MiB. A plan may be larger
/// (its operands are defined for every index); [`sweep`] refuses to run it.
pub const MAX_RANDOM: u64 = 1 << 40;

impl Plan {
    /// The sweep of `instr` over `space`. An exhaustive sweep walks the per-lane input space:
    /// each operand's lane pattern is a field of the case index, and packed types carry the same
    /// pattern in every lane; spaces over 2^32 cases are refused.
    pub fn new(instr: &Instr, space: Space) -> Result<Plan, SweepError> {
        let count = match space {
            Space::Random { count, .. } => count,
            Space::Exhaustive => {
                let bits = u32::from(instr.inputs) * lane_bits(instr);
                if bits > 32 {
                    let lanes = if instr.ty.lanes() > 1 {
                        " per lane"
                    } else {
                        ""
                    };
                    return Err(SweepError::TooLarge(format!(
                        "`{instr}` has {} operand(s) of {} bits{lanes}: 2^{bits} cases; \
                         --exhaustive covers at most 2^32 (use --random N)",
                        instr.inputs,
                        lane_bits(instr)
                    )));
                }
                1 << bits
            }
        };
        Ok(Plan {
            instr: *instr,
            space,
            count,
        })
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
                let p = mask(i >> (k * l), l);
                (0..self.instr.ty.lanes()).fold(0, |acc, lane| acc | p << (lane * l))
            }
        }
    }

    /// Number of chunks: chunk `c` covers cases `[c * CHUNK, (c + 1) * CHUNK)`.
    pub fn chunks(&self) -> u64 {
        self.count.div_ceil(CHUNK)
    }

    /// The cases of chunk `c`: `[c * CHUNK, (c + 1) * CHUNK)`, the last chunk cut at the count.
    pub fn chunk_cases(&self, c: u64) -> core::ops::Range<u64> {
        c * CHUNK..self.count.min((c + 1).saturating_mul(CHUNK))
    }

    /// The digest sum of chunk `c`, evaluating the cases in blocks with [`eval_slice`] (the same
    /// results as [`eval()`], faster where the instruction has a kernel). Operands and digest terms
    /// are computed by code compiled for the CPU's SIMD level ([`gpufp_dispatch`]).
    pub fn chunk(&self, c: u64, ctx: &Context) -> Result<u64, SweepError> {
        gpufp_dispatch::run(Chunk { plan: self, c, ctx })
    }
}

/// One chunk of a sweep, compiled per SIMD level.
struct Chunk<'a> {
    plan: &'a Plan,
    c: u64,
    ctx: &'a Context,
}

impl gpufp_dispatch::Job for Chunk<'_> {
    type Output = Result<u64, SweepError>;

    #[inline(always)]
    fn run<const HW_FMA: bool>(self) -> Self::Output {
        const BLOCK: u64 = 4096;
        let Chunk { plan, c, ctx } = self;
        let n = usize::from(plan.instr.inputs).min(3);
        let cases = plan.chunk_cases(c);
        let (mut base, end) = (cases.start, cases.end);
        let mut cols = vec![vec![0u64; BLOCK as usize]; n];
        let mut out = vec![0u64; BLOCK as usize];
        let mut sum = 0u64;
        while base < end {
            let len = (end - base).min(BLOCK) as usize;
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
                            let p = mask((base + j as u64) >> (k as u32 * l), l);
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
            base += len as u64;
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
    /// The sum of each chunk's terms, chunk 0 first.
    pub chunks: Vec<u64>,
}

/// Runs `plan` on `threads` threads, which take chunks in turn. Case 0 is evaluated first, so an
/// instruction that does not evaluate fails at once.
pub fn sweep(plan: &Plan, ctx: &Context, threads: usize) -> Result<Outcome, SweepError> {
    sweep_with(plan, ctx, threads, &|_| {})
}

/// [`sweep`], calling `done` with the number of cases of each chunk as it finishes (from the
/// worker threads): for a progress display.
pub fn sweep_with(
    plan: &Plan,
    ctx: &Context,
    threads: usize,
    done: &(dyn Fn(u64) + Sync),
) -> Result<Outcome, SweepError> {
    // Each chunk's sum is kept (for --chunk-digests): memory grows with the count.
    if plan.count > MAX_RANDOM {
        return Err(SweepError::TooLarge(format!(
            "{} cases: a sweep takes at most 2^40 ({MAX_RANDOM}); split larger ones by seed",
            plan.count
        )));
    }
    if plan.count > 0 {
        let ops = plan.operands(0);
        let n = usize::from(plan.instr.inputs).min(3);
        eval(&plan.instr, &ops[..n], ctx).map_err(|error| SweepError::Eval {
            case: 0,
            operands: ops[..n].to_vec(),
            error,
        })?;
    }
    let chunks = plan.chunks();
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<SweepError>> = Mutex::new(None);
    let mut sums = vec![0u64; chunks as usize];
    let work = || {
        let mut mine = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            let c = next.fetch_add(1, Ordering::Relaxed);
            if c >= chunks {
                break;
            }
            match plan.chunk(c, ctx) {
                Ok(sum) => {
                    mine.push((c, sum));
                    let cases = plan.chunk_cases(c);
                    done(cases.end - cases.start);
                }
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
                    f.get_or_insert(e);
                }
            }
        }
        mine
    };
    let finished: Vec<Vec<(u64, u64)>> = std::thread::scope(|s| {
        // As many workers as the system gives, up to `threads`; the calling thread works too.
        let workers: Vec<_> = (1..threads.max(1))
            .map_while(|_| std::thread::Builder::new().spawn_scoped(s, work).ok())
            .collect();
        let mut done = vec![work()];
        done.extend(
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p))),
        );
        done
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    for (c, sum) in finished.into_iter().flatten() {
        sums[c as usize] = sum;
    }
    Ok(Outcome {
        count: plan.count,
        digest: sums.iter().fold(0, |a, s| a.wrapping_add(*s)),
        chunks: sums,
    })
}
