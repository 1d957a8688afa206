//! `gpufp sweep` and `gpufp sweep-merge`: a whole input space, a range of it, or one shard of
//! it, digested (docs/vectors.md); shards leave result files that resume an interrupted run and
//! merge into the digest of the whole space.

use super::vectors::{fail, parse_u64, progress, ready};
use super::{Model, Where};
use gpufp::vectors::shard::{self, Identity, Record, RunInfo};
use gpufp::vectors::{sweep_from, Observer, Progress, Space};
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The model's name in result files: the version and commit `gpufp --version` prints.
const GPUFP: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("GPUFP_COMMIT"), ")");

#[derive(clap::Args)]
pub struct SweepArgs {
    #[command(flatten)]
    at: Where,
    #[command(flatten)]
    model: Model,
    /// Number of source operands (3 for the 3-input min/max).
    #[arg(long)]
    operands: Option<u8>,
    /// Every input of the per-lane input space (up to 2^64 cases; a space of 2^64 runs in parts).
    #[arg(long, conflicts_with = "random", required_unless_present = "random")]
    exhaustive: bool,
    /// N cases with SplitMix64 operands.
    #[arg(long, value_name = "N", value_parser = parse_u64)]
    random: Option<u64>,
    /// Seed of the random operands (with --random).
    #[arg(long, value_parser = parse_u64)]
    seed: Option<u64>,
    /// Only cases START..END of the space (half-open; either end may be left out).
    #[arg(long, value_name = "START..END", conflicts_with = "shard")]
    range: Option<String>,
    /// Only shard K of N (from 0): the K-th of N equal contiguous ranges. Default: from the Slurm
    /// array (SLURM_ARRAY_TASK_ID, _COUNT) or Kubernetes Indexed Job (JOB_COMPLETION_INDEX,
    /// JOB_COMPLETIONS) the command runs in; `0/1` for the whole space.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Result file: written as the sweep goes and when it ends; a rerun with the same file
    /// resumes from it. Default for a shard: gpufp-sweep-INSTR-K-of-N.json.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Seconds between saves of the result file while running.
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    save_every: u64,
    /// Worker threads, 1 to 1024 (default: every core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
    /// Print one JSON object instead of `name: value` lines.
    #[arg(long)]
    json: bool,
    /// Write `CHUNK 0xDIGEST` per 2^16 cases to FILE (CHUNK numbered in the whole space).
    #[arg(long, value_name = "FILE")]
    chunk_digests: Option<PathBuf>,
    /// The instruction, e.g. `add.rn.f16`.
    instr: String,
}

#[derive(clap::Args)]
pub struct MergeArgs {
    /// Print one JSON object instead of `name: value` lines.
    #[arg(long)]
    json: bool,
    /// The shards' result files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// This machine's name, for the record.
fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map_or_else(|| "unknown".into(), |h| h.trim().to_string())
}

/// This machine's processor, for the record: its model name (where /proc/cpuinfo gives one)
/// and architecture.
fn cpu() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("model name")?.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        });
    match model {
        Some(m) => format!("{m} ({})", std::env::consts::ARCH),
        None => std::env::consts::ARCH.to_string(),
    }
}

fn read_record(path: &Path) -> Result<Record, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a gpufp sweep result file: {e}", path.display()))
}

/// Writes `record` to `path` through a temporary file, so that the file is always whole.
fn save(path: &Path, record: &Record) -> Result<(), String> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let text = serde_json::to_string_pretty(record).map_err(|e| e.to_string())? + "\n";
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| format!("writing {}: {e}", path.display()))
}

/// Opens the chunk digest file: new, or, when resuming after `done` chunks, cut to its first
/// `done` lines (later ones were written after the last save).
fn chunk_file(path: &Path, done: u64) -> Result<BufWriter<std::fs::File>, String> {
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    if done == 0 {
        return std::fs::File::create(path).map(BufWriter::new).map_err(err);
    }
    let mut keep = 0u64;
    let mut reader = std::io::BufReader::new(std::fs::File::open(path).map_err(err)?);
    let mut line = Vec::new();
    for _ in 0..done {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(err)?;
        if n == 0 || line.last() != Some(&b'\n') {
            return Err(format!(
                "{}: fewer chunk lines than the {done} chunks the result file says are done; \
                 remove both files to start over",
                path.display()
            ));
        }
        keep += n as u64;
    }
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(err)?;
    file.set_len(keep).map_err(err)?;
    let mut w = BufWriter::new(file);
    use std::io::Seek;
    w.seek(std::io::SeekFrom::End(0)).map_err(err)?;
    Ok(w)
}

/// What the sweep tells as it goes: the progress bar, the chunk digest file, and the result
/// file every `every`.
struct Saver<'a> {
    bar: indicatif::ProgressBar,
    first_chunk: u64,
    chunks: Option<Mutex<BufWriter<std::fs::File>>>,
    out: Option<&'a Path>,
    record: Mutex<(Record, Instant)>,
    every: Duration,
    started: Instant,
    elapsed_before: f64,
    failure: Mutex<Option<String>>,
}

impl Saver<'_> {
    fn fail(&self, e: String) {
        let mut f = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        f.get_or_insert(e);
    }
}

impl Observer for Saver<'_> {
    fn finished(&self, cases: u64) {
        self.bar.inc(cases);
    }

    fn done(&self, j: u64, sum: u64, progress: Progress) {
        if let Some(w) = &self.chunks {
            let mut w = w.lock().unwrap_or_else(|p| p.into_inner());
            if let Err(e) = writeln!(w, "{} 0x{sum:016x}", self.first_chunk + j) {
                self.fail(format!("writing the chunk digests: {e}"));
            }
        }
        let Some(out) = self.out else { return };
        let mut guard = self.record.lock().unwrap_or_else(|p| p.into_inner());
        let (record, saved) = &mut *guard;
        if saved.elapsed() < self.every {
            return;
        }
        if let Some(w) = &self.chunks {
            let flushed = w.lock().unwrap_or_else(|p| p.into_inner()).flush();
            if let Err(e) = flushed {
                return self.fail(format!("writing the chunk digests: {e}"));
            }
        }
        record.set_progress(progress);
        record.run.elapsed_s = self.elapsed_before + self.started.elapsed().as_secs_f64();
        if let Err(e) = save(out, record) {
            return self.fail(e);
        }
        *saved = Instant::now();
    }
}

/// The summary lines (or JSON) of a record.
fn print_record(r: &Record, out: Option<&Path>, json: bool, note: Option<&str>) {
    let space = r.space_text();
    let partial = r.start != 0 || r.end != r.size;
    if json {
        let mut v = serde_json::json!({
            "instr": r.instr, "space": space, "threads": r.run.threads, "simd": r.run.simd,
            "count": r.end - r.start, "elapsed_s": r.run.elapsed_s,
            "throughput": r.run.throughput, "digest": r.digest,
        });
        if partial {
            v["range"] = serde_json::json!({ "start": r.start, "end": r.end, "size": r.size });
        }
        if let Some(s) = &r.run.shard {
            v["shard"] = serde_json::json!({ "shard": s, "from": r.run.shard_from });
        }
        if let Some(o) = out {
            v["result_file"] = serde_json::json!(o.display().to_string());
        }
        if let Some(n) = note {
            v["note"] = serde_json::json!(n);
        }
        println!("{v}");
        return;
    }
    if let Some(n) = note {
        println!("note: {n}");
    }
    println!("instr: {}", r.instr);
    println!("space: {space}");
    if let Some(s) = &r.run.shard {
        println!(
            "shard: {s} (from {})",
            r.run.shard_from.as_deref().unwrap_or("?")
        );
    }
    if partial {
        println!("range: {}..{} of {}", r.start, r.end, r.size);
    }
    if let Some(o) = out {
        println!("result file: {}", o.display());
    }
    println!("threads: {}", r.run.threads);
    println!("simd: {}", r.run.simd);
    println!("count: {}", r.end - r.start);
    println!("elapsed: {:.3} s", r.run.elapsed_s);
    println!("throughput: {:.0} cases/s", r.run.throughput);
    println!("digest: {}", r.digest);
}

pub fn sweep(a: SweepArgs) -> ExitCode {
    match run_sweep(&a) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

fn run_sweep(a: &SweepArgs) -> Result<(), String> {
    let ready = ready(&a.instr, a.operands, a.at, &a.model)?;
    let space = match (a.random, a.seed) {
        (Some(count), seed) => Space::Random {
            count,
            seed: seed.unwrap_or(0),
        },
        (None, Some(_)) => return Err("--seed applies to --random only".into()),
        (None, None) => Space::Exhaustive,
    };
    let instr = ready.effective();
    let (plan, shard) = shard::select(instr, space, a.range.as_deref(), a.shard.as_deref(), |v| {
        std::env::var(v).ok()
    })?;
    let out = a.out.clone().or_else(|| {
        shard.as_ref().map(|(s, _)| {
            PathBuf::from(format!(
                "gpufp-sweep-{}-{}-of-{}.json",
                instr.to_string().replace(['/', ' '], "_"),
                s.k,
                s.n
            ))
        })
    });
    let threads = a.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    let run = RunInfo {
        shard: shard.as_ref().map(|(s, _)| s.to_string()),
        shard_from: shard.as_ref().map(|(_, from)| from.clone()),
        host: host(),
        cpu: cpu(),
        threads: threads as u64,
        simd: gpufp_dispatch::detected().name().into(),
        chunk_digests: (a.chunk_digests.as_ref()).map(|p| p.display().to_string()),
        ..RunInfo::default()
    };
    let mut record = shard::record_for(&plan, Identity::of(&ready.ctx, GPUFP), run);
    let mut from = Progress::default();
    let mut elapsed_before = 0.0;
    let mut note = None;
    if let Some(path) = out.as_deref().filter(|p| p.exists()) {
        let old = read_record(path)?;
        old.resumes(&record).map_err(|e| {
            format!(
                "{} is not this sweep's result file: {e}; remove it or give another --out",
                path.display()
            )
        })?;
        if old.complete {
            print_record(
                &old,
                Some(path),
                a.json,
                Some("already complete; not run again"),
            );
            return Ok(());
        }
        from = old.progress()?;
        elapsed_before = old.run.elapsed_s;
        note = Some(format!(
            "resumed after chunk {} of {} from {}",
            old.chunks_done,
            old.chunks,
            path.display()
        ));
    }
    let chunks = match &a.chunk_digests {
        Some(p) => Some(Mutex::new(chunk_file(p, from.chunks)?)),
        None => None,
    };
    if let Some(path) = &out {
        save(path, &record)?;
    }
    // The cases of the chunks already done: up to the end of the last of them.
    let done_cases = match from.chunks {
        0 => 0,
        j => {
            let (first, n) = plan.chunk_cases(j - 1);
            first - plan.start + n
        }
    };
    let bar = progress(Some(plan.count), "cases");
    bar.inc(done_cases);
    let saver = Saver {
        bar,
        first_chunk: plan.first_chunk(),
        chunks,
        out: out.as_deref(),
        record: Mutex::new((record.clone(), Instant::now())),
        every: Duration::from_secs(a.save_every),
        started: Instant::now(),
        elapsed_before,
        failure: Mutex::new(None),
    };
    let start = Instant::now();
    let outcome = sweep_from(&plan, &ready.ctx, threads, from, &saver);
    saver.bar.finish_and_clear();
    let elapsed = start.elapsed().as_secs_f64();
    if let Some(e) = saver
        .failure
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
    {
        return Err(e);
    }
    let progress = outcome.map_err(|e| e.to_string())?;
    if let (Some(w), Some(p)) = (saver.chunks, &a.chunk_digests) {
        let flushed = w.into_inner().unwrap_or_else(|p| p.into_inner()).flush();
        flushed.map_err(|e| format!("writing {}: {e}", p.display()))?;
    }
    record.set_progress(progress);
    record.complete = true;
    record.run.elapsed_s = elapsed_before + elapsed;
    record.run.throughput = (plan.count - done_cases) as f64 / elapsed.max(1e-9);
    if let Some(path) = &out {
        save(path, &record)?;
    }
    // This run's time, not the resumed ones'.
    let mut shown = record.clone();
    shown.run.elapsed_s = elapsed;
    print_record(&shown, out.as_deref(), a.json, note.as_deref());
    Ok(())
}

pub fn merge(a: MergeArgs) -> ExitCode {
    let mut records = Vec::new();
    for f in &a.files {
        match read_record(f) {
            Ok(r) => records.push((f.display().to_string(), r)),
            Err(e) => return fail(e),
        }
    }
    let m = match shard::merge(&records) {
        Ok(m) => m,
        Err(e) => return fail(e),
    };
    let r = &m.first;
    let space = r.space_text();
    if a.json {
        let v = serde_json::json!({
            "instr": r.instr, "space": space, "shards": m.shards, "count": m.count,
            "elapsed_s": m.elapsed_s, "digest": format!("0x{:016x}", m.digest),
            "gpufp": r.gpufp, "target": r.target, "core": r.core, "policies": r.policies,
        });
        println!("{v}");
        return ExitCode::SUCCESS;
    }
    println!("instr: {}", r.instr);
    println!("space: {space}");
    println!("shards: {}", m.shards);
    println!("count: {}", m.count);
    println!("elapsed: {:.3} s (the shards' times added)", m.elapsed_s);
    println!("digest: 0x{:016x}", m.digest);
    ExitCode::SUCCESS
}
