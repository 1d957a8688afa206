//! Running cases on a backend and comparing them with the model, bit for bit.
//!
//! Cases run in batches of whole chunks (2^16 cases, docs/vectors.md). For each chunk the host
//! sums the digest terms of the device's results and of the model's, with
//! `gpufp::vectors::digest_term`, so the device's chunk digests are directly comparable with
//! `gpufp sweep --chunk-digests`; every case whose bits differ is a mismatch, and the first ones
//! are judged against the manual (`gpufp::ptx::guarantee::judge`) and against every alternative
//! of the model's open policies (which reading the device follows).

use crate::backend::{Backend, Batch, HwError};
use gpufp::ptx::guarantee::judge;
use gpufp::ptx::{self, Context, Instr};
use gpufp::vectors::sweep::CHUNK;
use gpufp::vectors::{digest_term, Plan, Space};
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// How a comparison runs.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Cases per backend call (rounded up to whole chunks).
    pub batch: u64,
    /// Host threads for the model.
    pub threads: usize,
    /// Mismatches kept (and judged) per instruction.
    pub keep: usize,
    /// Compare with the model (off: the device's digests only).
    pub model: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            batch: 1 << 24,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            keep: 100,
            model: true,
        }
    }
}

/// Whether the model took part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Model {
    /// Every case was compared.
    Compared,
    /// Not asked for.
    Off,
    /// The model could not evaluate the instruction (the message says why): device digests only.
    Unavailable(String),
}

/// One case where the device's bits are not the model's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub case: u64,
    pub operands: Vec<u64>,
    pub device: u64,
    pub model: u64,
    /// The device's result satisfies what the manual guarantees.
    pub within_spec: bool,
    /// The judge's words, one line per lane that differs.
    pub verdict: String,
    /// The alternatives of the open policies under which the model gives the device's bits,
    /// `name=value`.
    pub policies: Vec<String>,
}

/// What one instruction's cases gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub instr: Instr,
    /// `exhaustive`, `random N seed S`, or the name of a case list.
    pub space: String,
    pub count: u64,
    pub device_digest: u64,
    /// The space's chunk that holds the first case (a sweep of a range of its space starts
    /// inside it); `device_chunks[j]` and `bad_chunks` are numbered from it.
    pub first_chunk: u64,
    /// The device's digest of each chunk, the first one first.
    pub device_chunks: Vec<u64>,
    pub model: Model,
    pub model_digest: Option<u64>,
    /// Chunks whose digests differ, numbered in the space.
    pub bad_chunks: Vec<u64>,
    /// Cases whose bits differ.
    pub mismatches: u64,
    /// The first `keep` mismatches, judged.
    pub kept: Vec<Mismatch>,
    /// Seconds in the backend, and in total.
    pub backend_s: f64,
    pub total_s: f64,
}

impl Outcome {
    /// Violations among the kept (judged) mismatches.
    pub fn violations(&self) -> usize {
        self.kept.iter().filter(|m| !m.within_spec).count()
    }
}

/// The cases being compared: a sweep plan or an explicit list.
#[derive(Clone, Copy)]
pub enum Cases<'a> {
    Sweep(&'a Plan),
    List(&'a str, &'a [[u64; 3]]),
}

impl Cases<'_> {
    fn count(&self) -> u64 {
        match self {
            Cases::Sweep(p) => p.count,
            Cases::List(_, l) => l.len() as u64,
        }
    }
    /// The case number of position `k`: a sweep's cases are numbered in its whole space.
    fn number(&self, k: u64) -> u64 {
        match self {
            Cases::Sweep(p) => p.start + k,
            Cases::List(..) => k,
        }
    }
    /// The operands of position `k`.
    fn operands(&self, k: u64) -> [u64; 3] {
        match self {
            Cases::Sweep(p) => p.operands(p.start + k),
            Cases::List(_, l) => l[k as usize],
        }
    }
    /// Positions `k..k + n`.
    fn batch(&self, k: u64, n: u64) -> Batch<'_> {
        match self {
            Cases::Sweep(plan) => Batch::Sweep {
                plan,
                base: plan.start + k,
                n,
            },
            Cases::List(_, l) => Batch::Cases(&l[k as usize..(k + n) as usize]),
        }
    }
    fn first_chunk(&self) -> u64 {
        match self {
            Cases::Sweep(p) => p.first_chunk(),
            Cases::List(..) => 0,
        }
    }
    fn chunks(&self) -> u64 {
        match self {
            Cases::Sweep(p) => p.chunks(),
            Cases::List(_, l) => (l.len() as u64).div_ceil(CHUNK),
        }
    }
    /// The positions of chunk `j`: the first and one past the last. A sweep's chunks are those
    /// of its whole space, cut where the plan starts or ends.
    fn chunk(&self, j: u64) -> (u64, u64) {
        match self {
            Cases::Sweep(p) => {
                let (first, n) = p.chunk_cases(j);
                (first - p.start, first - p.start + n)
            }
            Cases::List(_, l) => (j * CHUNK, ((j + 1) * CHUNK).min(l.len() as u64)),
        }
    }
    fn space(&self) -> String {
        match self {
            Cases::Sweep(p) => match p.space {
                Space::Exhaustive => "exhaustive".into(),
                Space::Random { count, seed } => format!("random {count} seed {seed}"),
            },
            Cases::List(name, _) => (*name).into(),
        }
    }
}

thread_local! {
    /// Set while the model runs under [`guarded`]: its panics are caught and reported.
    static IN_MODEL: Cell<bool> = const { Cell::new(false) };
}

/// Installs a panic hook that stays silent for panics the harness catches from the model (an
/// unfinished core) and passes every other panic to the previous hook.
pub fn quiet_model_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !IN_MODEL.with(Cell::get) {
            previous(info);
        }
    }));
}

/// Runs `f` (model code), catching a panic as an error with its message.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    IN_MODEL.with(|m| m.set(true));
    let r = catch_unwind(AssertUnwindSafe(f));
    IN_MODEL.with(|m| m.set(false));
    r.map_err(|p| {
        format!(
            "the model panicked: {}",
            p.downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| p.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)")
        )
    })
}

/// The model's result for `ops`, or why there is none (an error, or a panic of an unfinished
/// core, caught so that a campaign goes on with the device's digests).
pub fn model_result(instr: &Instr, ops: &[u64], ctx: &Context) -> Result<u64, String> {
    guarded(|| ptx::eval(instr, ops, ctx))?.map_err(|e| e.to_string())
}

/// Judges one mismatch: the manual's verdict, and which policy alternatives give the device's bits.
fn judged(
    instr: &Instr,
    case: u64,
    ops: &[u64],
    device: u64,
    model: u64,
    ctx: &Context,
) -> Mismatch {
    let (within_spec, verdict) = match guarded(|| judge(instr, ops, device, ctx)) {
        Ok(Ok(v)) => {
            let lanes = v.len();
            let words: Vec<String> = v
                .iter()
                .enumerate()
                .filter(|(_, v)| !v.exact)
                .map(|(k, v)| {
                    let lane = if lanes > 1 {
                        format!("lane {k}: ")
                    } else {
                        String::new()
                    };
                    let what = if v.within_spec {
                        "within spec"
                    } else {
                        "VIOLATION"
                    };
                    format!(
                        "{lane}{what}; guarantee: {}; {}",
                        v.guarantee, v.explanation
                    )
                })
                .collect();
            (v.iter().all(|v| v.within_spec), words.join(" | "))
        }
        Ok(Err(e)) => (false, format!("not judged: {e}")),
        Err(e) => (false, format!("not judged: {e}")),
    };
    let policies = ctx
        .policies
        .alternatives()
        .into_iter()
        .filter(|(_, _, p)| {
            let alt = Context {
                policies: *p,
                ..ctx.clone()
            };
            model_result(instr, ops, &alt) == Ok(device)
        })
        .map(|(name, value, _)| format!("{name}={value}"))
        .collect();
    Mismatch {
        case,
        operands: ops.to_vec(),
        device,
        model,
        within_spec,
        verdict,
        policies,
    }
}

/// What one chunk gave.
struct Chunk {
    device: u64,
    model: Option<u64>,
    mismatches: u64,
    first: Vec<(u64, [u64; 3], u64, u64)>,
}

/// Runs `cases` of `instr` on `backend` and compares them with the model under `ctx`.
pub fn compare(
    backend: &mut dyn Backend,
    instr: &Instr,
    cases: Cases,
    ctx: &Context,
    opts: &Options,
) -> Result<Outcome, HwError> {
    let start = Instant::now();
    let count = cases.count();
    let n_in = usize::from(instr.inputs).min(3);
    let mut model = if !opts.model {
        Model::Off
    } else if count == 0 {
        Model::Compared
    } else {
        match model_result(instr, &cases.operands(0)[..n_in], ctx) {
            Ok(_) => Model::Compared,
            Err(e) => Model::Unavailable(e),
        }
    };
    let chunks = cases.chunks();
    let per_batch = opts.batch.div_ceil(CHUNK).max(1);
    let mut device_chunks = vec![0u64; chunks as usize];
    let mut model_chunks = vec![0u64; chunks as usize];
    let mut mismatches = 0u64;
    let mut first: Vec<(u64, [u64; 3], u64, u64)> = Vec::new();
    let mut backend_s = 0.0;
    let mut c0 = 0;
    while c0 < chunks {
        let c1 = (c0 + per_batch).min(chunks);
        let base = cases.chunk(c0).0;
        let end = cases.chunk(c1 - 1).1;
        let t = Instant::now();
        let results = backend.run(instr, &cases.batch(base, end - base))?;
        backend_s += t.elapsed().as_secs_f64();
        if results.len() as u64 != end - base {
            return Err(HwError(format!(
                "the backend returned {} results for {} cases",
                results.len(),
                end - base
            )));
        }
        let with_model = model == Model::Compared;
        let next = AtomicU64::new(c0);
        let failed = AtomicBool::new(false);
        let panic: Mutex<Option<String>> = Mutex::new(None);
        let done: Vec<Vec<(u64, Chunk)>> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..opts.threads.max(1))
                .map(|_| {
                    s.spawn(|| {
                        let mut mine = Vec::new();
                        loop {
                            let c = next.fetch_add(1, Ordering::Relaxed);
                            if c >= c1 {
                                break;
                            }
                            let (lo, hi) = cases.chunk(c);
                            let mut ch = Chunk {
                                device: 0,
                                model: None,
                                mismatches: 0,
                                first: Vec::new(),
                            };
                            for k in lo..hi {
                                let d = results[(k - base) as usize];
                                let i = cases.number(k);
                                ch.device = ch.device.wrapping_add(digest_term(i, d));
                            }
                            if with_model && !failed.load(Ordering::Relaxed) {
                                let r = guarded(|| {
                                    let mut sum = 0u64;
                                    let mut bad = Vec::new();
                                    for k in lo..hi {
                                        let (i, ops) = (cases.number(k), cases.operands(k));
                                        let m = ptx::eval(instr, &ops[..n_in], ctx)
                                            .map_err(|e| e.to_string())?;
                                        sum = sum.wrapping_add(digest_term(i, m));
                                        let d = results[(k - base) as usize];
                                        if d != m {
                                            bad.push((i, ops, d, m));
                                        }
                                    }
                                    Ok::<_, String>((sum, bad))
                                });
                                match r {
                                    Ok(Ok((sum, bad))) => {
                                        ch.model = Some(sum);
                                        ch.mismatches = bad.len() as u64;
                                        ch.first = bad.into_iter().take(opts.keep).collect();
                                    }
                                    Ok(Err(e)) | Err(e) => {
                                        failed.store(true, Ordering::Relaxed);
                                        panic
                                            .lock()
                                            .unwrap_or_else(|p| p.into_inner())
                                            .get_or_insert(e);
                                    }
                                }
                            }
                            mine.push((c, ch));
                        }
                        mine
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        if let Some(e) = panic.into_inner().unwrap_or_else(|p| p.into_inner()) {
            model = Model::Unavailable(e);
        }
        let mut done: Vec<(u64, Chunk)> = done.into_iter().flatten().collect();
        done.sort_by_key(|(c, _)| *c);
        for (c, ch) in done {
            device_chunks[c as usize] = ch.device;
            if let Some(m) = ch.model {
                model_chunks[c as usize] = m;
            }
            mismatches += ch.mismatches;
            let room = opts.keep.saturating_sub(first.len());
            first.extend(ch.first.into_iter().take(room));
        }
        c0 = c1;
    }
    let compared = model == Model::Compared;
    let kept = if compared {
        first
            .iter()
            .map(|(i, ops, d, m)| judged(instr, *i, &ops[..n_in], *d, *m, ctx))
            .collect()
    } else {
        Vec::new()
    };
    let bad_chunks = if compared {
        (0..chunks)
            .filter(|&c| device_chunks[c as usize] != model_chunks[c as usize])
            .map(|c| cases.first_chunk() + c)
            .collect()
    } else {
        Vec::new()
    };
    let sum = |v: &[u64]| v.iter().fold(0u64, |a, x| a.wrapping_add(*x));
    Ok(Outcome {
        instr: *instr,
        space: cases.space(),
        count,
        device_digest: sum(&device_chunks),
        first_chunk: cases.first_chunk(),
        model_digest: compared.then(|| sum(&model_chunks)),
        device_chunks,
        model,
        bad_chunks,
        mismatches: if compared { mismatches } else { 0 },
        kept,
        backend_s,
        total_s: start.elapsed().as_secs_f64(),
    })
}

/// The chunk digests in `gpufp sweep --chunk-digests` form: `CHUNK 0xDIGEST` per line, the
/// first numbered `first`.
pub fn chunk_digests_text(first: u64, chunks: &[u64]) -> String {
    chunks
        .iter()
        .enumerate()
        .map(|(c, d)| format!("{} 0x{d:016x}\n", first + c as u64))
        .collect()
}
