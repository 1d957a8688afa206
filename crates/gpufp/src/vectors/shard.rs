//! A sweep split across machines (docs/vectors.md, "Sweeps in shards"): shard `K/N` runs the
//! `K`-th of `N` contiguous ranges of the space ([`Plan::shard`]), taken from `--shard` or from
//! the job array the shard runs in (Slurm, Kubernetes); each shard leaves a [`Record`], which
//! also lets an interrupted shard resume, and [`merge`] checks that the records cover the space
//! exactly once and adds their digests into the digest of the whole space.

use super::sweep::{Plan, Progress};
use core::fmt;
use std::collections::BTreeMap;

/// Shard `k` of `n`, numbered from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub k: u64,
    pub n: u64,
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// A decimal or `0x` hexadecimal number of up to 128 bits.
fn parse_number(text: &str) -> Result<u128, String> {
    crate::decimal::parse_unsigned(text).ok_or_else(|| format!("`{text}` is not a number"))
}

impl Shard {
    /// `K/N`, with `K < N`.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("`{text}`: expected K/N, shard K (from 0) of N, e.g. 3/64");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (k, n) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        Shard::new(k, n)
    }

    pub fn new(k: u64, n: u64) -> Result<Shard, String> {
        if k >= n {
            return Err(format!(
                "shard {k}/{n}: shards are numbered 0 to {}",
                n.saturating_sub(1)
            ));
        }
        Ok(Shard { k, n })
    }

    /// The shard a job-array task is, from its environment (`var` reads a variable), and the
    /// variables that said so; `None` outside a job array.
    ///
    /// - Slurm array jobs: `SLURM_ARRAY_TASK_ID`, numbered from `SLURM_ARRAY_TASK_MIN` (0 when
    ///   unset) in steps of `SLURM_ARRAY_TASK_STEP` (1 when unset), of `SLURM_ARRAY_TASK_COUNT`.
    /// - Kubernetes Indexed Jobs: `JOB_COMPLETION_INDEX`, of `JOB_COMPLETIONS`, which Kubernetes
    ///   does not set: the Job's manifest sets it to its `.spec.completions`.
    pub fn from_env(
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<(Shard, String)>, String> {
        let number = |name: &str| -> Result<Option<u64>, String> {
            var(name)
                .map(|v| {
                    v.trim()
                        .parse()
                        .map_err(|_| format!("{name}=`{v}` is not a number"))
                })
                .transpose()
        };
        let required = |name: &str, with: &str| -> Result<u64, String> {
            number(name)?.ok_or_else(|| format!("{with} is set but {name} is not"))
        };
        if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            let n = required("SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_ID")?;
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
            if id < min || (id - min) % step != 0 {
                return Err(format!(
                    "SLURM_ARRAY_TASK_ID={id} is not in the array {min}, {}, ... (step {step})",
                    min + step
                ));
            }
            let shard = Shard::new((id - min) / step, n)
                .map_err(|e| format!("{e} (from SLURM_ARRAY_TASK_ID={id})"))?;
            let from = format!(
                "SLURM_ARRAY_TASK_ID={id}, SLURM_ARRAY_TASK_MIN={min}, \
                 SLURM_ARRAY_TASK_STEP={step}, SLURM_ARRAY_TASK_COUNT={n}"
            );
            return Ok(Some((shard, from)));
        }
        if let Some(k) = number("JOB_COMPLETION_INDEX")? {
            let n = required("JOB_COMPLETIONS", "JOB_COMPLETION_INDEX").map_err(|e| {
                format!("{e}: set it in the Job's manifest to its .spec.completions")
            })?;
            let shard = Shard::new(k, n)?;
            return Ok(Some((
                shard,
                format!("JOB_COMPLETION_INDEX={k}, JOB_COMPLETIONS={n}"),
            )));
        }
        Ok(None)
    }
}

/// `START..END` (either may be left out: `START..`, `..END`), decimal or `0x` hexadecimal, as
/// the half-open range of case indices it names.
pub fn parse_range(text: &str, size: u128) -> Result<(u128, u128), String> {
    let (a, b) = text
        .split_once("..")
        .ok_or_else(|| format!("`{text}`: expected START..END"))?;
    let start = if a.is_empty() { 0 } else { parse_number(a)? };
    let end = if b.is_empty() { size } else { parse_number(b)? };
    Ok((start, end))
}

/// The part of `instr`'s `space` a command runs: `--range START..END`, else `--shard K/N`, else
/// the shard of the job array it runs in (`var` reads the environment, [`Shard::from_env`]),
/// else the whole space; with the shard and where it came from.
pub fn select(
    instr: &crate::ptx::Instr,
    space: super::Space,
    range: Option<&str>,
    shard: Option<&str>,
    var: impl Fn(&str) -> Option<String>,
) -> Result<(Plan, Option<(Shard, String)>), String> {
    let text = |e: super::SweepError| e.to_string();
    if let Some(r) = range {
        let size = Plan::size(instr, space).map_err(text)?;
        let (start, end) = parse_range(r, size).map_err(|e| format!("--range {e}"))?;
        return Ok((Plan::range(instr, space, start, end).map_err(text)?, None));
    }
    let shard = match shard {
        Some(s) => Some((Shard::parse(s)?, "--shard".to_string())),
        None => Shard::from_env(var)?,
    };
    let plan = match &shard {
        Some((s, _)) => Plan::shard(instr, space, s.k, s.n),
        None => Plan::new(instr, space),
    };
    Ok((plan.map_err(text)?, shard))
}

/// What a shard (or any sweep) leaves in its result file: what was swept, under which model,
/// which cases, and how far it came. The first fields say which sweep this is, and a shard
/// resumes, or records merge, only where they agree.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Record {
    /// The version of this file's layout.
    pub format: u32,
    /// The gpufp that computed it (version and commit): the model.
    pub gpufp: String,
    /// The instruction as it was evaluated, with its operand count.
    pub instr: String,
    pub inputs: u8,
    pub target: Option<String>,
    /// Every policy's value.
    pub policies: BTreeMap<String, String>,
    /// The MUFU core's name.
    pub core: String,
    /// `exhaustive` or `random`.
    pub space: String,
    pub seed: Option<u64>,
    /// Cases in the whole space.
    pub size: u128,
    /// The cases of this record: `start..end`.
    pub start: u128,
    pub end: u128,
    /// The chunks of this range done (all of them when `complete`), and their digest sum.
    pub chunks_done: u64,
    pub chunks: u64,
    pub complete: bool,
    /// `0x` and 16 hex digits.
    pub digest: String,
    /// How it ran: informative, never compared.
    pub run: RunInfo,
}

/// Where and how fast a record was computed.
#[derive(Clone, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RunInfo {
    /// `K/N` and where it came from, when the range is a shard.
    pub shard: Option<String>,
    pub shard_from: Option<String>,
    pub host: String,
    /// The processor's model name and architecture.
    pub cpu: String,
    pub threads: u64,
    pub simd: String,
    /// Seconds spent on the range so far, over every run that resumed it.
    pub elapsed_s: f64,
    /// Cases per second of the last run.
    pub throughput: f64,
    /// The chunk digest file written beside it, if any.
    pub chunk_digests: Option<String>,
}

/// The layout version [`Record::format`] names.
pub const FORMAT: u32 = 1;

impl Record {
    /// The fields that say which sweep a record is of (everything before `start`), as text.
    fn identity(&self) -> String {
        format!(
            "gpufp {}, `{}` ({} inputs), target {}, policies {:?}, core {}, {} space{} of {} cases",
            self.gpufp,
            self.instr,
            self.inputs,
            self.target.as_deref().unwrap_or("(none)"),
            self.policies,
            self.core,
            self.space,
            self.seed.map_or(String::new(), |s| format!(" (seed {s})")),
            self.size
        )
    }

    /// Whether `self` is of the same sweep as `other` and the same cases: a shard rerun
    /// continues from it. `Err` says what differs.
    pub fn resumes(&self, other: &Record) -> Result<(), String> {
        self.same_sweep(other)?;
        if (self.start, self.end) != (other.start, other.end) {
            return Err(format!(
                "it holds cases {}..{}, not {}..{}",
                self.start, self.end, other.start, other.end
            ));
        }
        if self.chunks_done > self.chunks || self.chunks != other.chunks {
            return Err(format!(
                "it says {} of {} chunks are done, of a range of {} chunks",
                self.chunks_done, self.chunks, other.chunks
            ));
        }
        Ok(())
    }

    fn same_sweep(&self, other: &Record) -> Result<(), String> {
        if self.format != other.format {
            return Err(format!(
                "layout {} where {} is expected",
                self.format, other.format
            ));
        }
        let (a, b) = (self.identity(), other.identity());
        if a != b {
            return Err(format!("it is of another sweep: {a}, not {b}"));
        }
        Ok(())
    }

    /// The digest as a number.
    pub fn digest_value(&self) -> Result<u64, String> {
        self.digest
            .strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
            .ok_or_else(|| format!("digest `{}` is not 0x and 16 hex digits", self.digest))
    }

    /// How far the range has come: the progress a rerun resumes from.
    pub fn progress(&self) -> Result<Progress, String> {
        Ok(Progress {
            chunks: self.chunks_done,
            digest: self.digest_value()?,
        })
    }

    /// Records `progress`: its chunks done and their digest.
    pub fn set_progress(&mut self, progress: Progress) {
        self.chunks_done = progress.chunks;
        self.digest = format!("0x{:016x}", progress.digest);
    }

    /// The space as `sweep` prints it: `exhaustive`, or `random, seed S`.
    pub fn space_text(&self) -> String {
        match self.seed {
            Some(seed) => format!("random, seed {seed}"),
            None => self.space.clone(),
        }
    }
}

/// The record of a plan's range, before any of it has run.
pub fn record_for(plan: &Plan, identity: Identity, run: RunInfo) -> Record {
    let (space, seed) = match plan.space {
        super::Space::Exhaustive => ("exhaustive", None),
        super::Space::Random { seed, .. } => ("random", Some(seed)),
    };
    Record {
        format: FORMAT,
        gpufp: identity.gpufp,
        instr: plan.instr.to_string(),
        inputs: plan.instr.inputs,
        target: identity.target,
        policies: identity.policies,
        core: identity.core,
        space: space.into(),
        seed,
        size: plan.size,
        start: u128::from(plan.start),
        end: plan.end(),
        chunks_done: 0,
        chunks: plan.chunks(),
        complete: false,
        digest: format!("0x{:016x}", 0),
        run,
    }
}

/// The model a sweep ran under, as a record names it.
pub struct Identity {
    pub gpufp: String,
    pub target: Option<String>,
    pub policies: BTreeMap<String, String>,
    pub core: String,
}

impl Identity {
    /// The identity of evaluating with `ctx`, by the gpufp named `gpufp`.
    pub fn of(ctx: &crate::ptx::Context, gpufp: &str) -> Identity {
        Identity {
            gpufp: gpufp.to_string(),
            target: ctx.target.map(|t| t.to_string()),
            policies: (ctx.policies.values().into_iter())
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            core: ctx.core.get().name(),
        }
    }
}

/// The whole space, from the records of its shards.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    /// The first record, for what was swept.
    pub first: Record,
    pub shards: usize,
    pub count: u128,
    pub digest: u64,
    /// The shards' elapsed seconds, added.
    pub elapsed_s: f64,
}

/// Checks that `records` (each named by its file, for messages) are complete, of one sweep, and
/// cover its space exactly once, and adds their digests: the digest one run over the whole
/// space prints.
pub fn merge(records: &[(String, Record)]) -> Result<Merged, String> {
    let (name0, first) = records.first().ok_or("no shard records given")?;
    let mut sorted: Vec<&(String, Record)> = records.iter().collect();
    for (name, r) in &sorted {
        r.same_sweep(first)
            .map_err(|e| format!("{name} does not belong with {name0}: {e}"))?;
        if !r.complete {
            return Err(format!(
                "{name} is not complete: {} of {} chunks done (rerun its shard to finish it)",
                r.chunks_done, r.chunks
            ));
        }
        if r.start > r.end || r.end > r.size {
            return Err(format!(
                "{name}: cases {}..{} are outside the space",
                r.start, r.end
            ));
        }
    }
    sorted.sort_by_key(|(_, r)| (r.start, r.end));
    let mut at = 0u128;
    let mut last = "the start of the space";
    let mut digest = 0u64;
    let mut elapsed = 0.0;
    for (name, r) in &sorted {
        if r.start > at {
            return Err(format!(
                "cases {at}..{} are in no shard (a shard is missing between {last} and {name})",
                r.start
            ));
        }
        if r.start < at {
            return Err(format!(
                "cases {}..{} are in both {last} and {name} (a shard is given twice, or shards \
                 of different splits are mixed)",
                r.start,
                at.min(r.end)
            ));
        }
        digest = digest.wrapping_add(r.digest_value().map_err(|e| format!("{name}: {e}"))?);
        elapsed += r.run.elapsed_s;
        at = r.end;
        last = name;
    }
    if at < first.size {
        return Err(format!(
            "cases {at}..{} are in no shard (a shard is missing after {last})",
            first.size
        ));
    }
    Ok(Merged {
        first: first.clone(),
        shards: records.len(),
        count: first.size,
        digest,
        elapsed_s: elapsed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&str, &str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn shards_from_arguments_and_job_arrays() {
        assert_eq!(Shard::parse("3/64"), Ok(Shard { k: 3, n: 64 }));
        for bad in ["3", "64/64", "-1/4", "a/b", "1/0"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Shard::from_env(env(&[])), Ok(None));
        let slurm = Shard::from_env(env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "64"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(slurm.0, Shard { k: 3, n: 64 });
        assert!(slurm.1.contains("SLURM_ARRAY_TASK_ID=3"));
        // `--array=1-64` and `--array=10-136:2`.
        let task = |id: &str, min: &str, step: &str| {
            Shard::from_env(env(&[
                ("SLURM_ARRAY_TASK_ID", id),
                ("SLURM_ARRAY_TASK_COUNT", "64"),
                ("SLURM_ARRAY_TASK_MIN", min),
                ("SLURM_ARRAY_TASK_STEP", step),
            ]))
            .map(|s| s.map(|s| s.0))
        };
        assert_eq!(task("1", "1", "1"), Ok(Some(Shard { k: 0, n: 64 })));
        assert_eq!(task("136", "10", "2"), Ok(Some(Shard { k: 63, n: 64 })));
        assert!(task("11", "10", "2")
            .unwrap_err()
            .contains("not in the array"));
        assert!(task("138", "10", "2")
            .unwrap_err()
            .contains("numbered 0 to 63"));
        let e = Shard::from_env(env(&[("SLURM_ARRAY_TASK_ID", "3")])).unwrap_err();
        assert_eq!(
            e,
            "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not"
        );
        let k8s = Shard::from_env(env(&[
            ("JOB_COMPLETION_INDEX", "0"),
            ("JOB_COMPLETIONS", "8"),
        ]));
        assert_eq!(k8s.unwrap().unwrap().0, Shard { k: 0, n: 8 });
        let e = Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "0")])).unwrap_err();
        assert!(e.contains(".spec.completions"), "{e}");
        let e = Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "x")])).unwrap_err();
        assert_eq!(e, "JOB_COMPLETION_INDEX=`x` is not a number");
    }

    #[test]
    fn ranges() {
        assert_eq!(parse_range("5..10", 100), Ok((5, 10)));
        assert_eq!(parse_range("0x10..", 100), Ok((16, 100)));
        assert_eq!(parse_range("..7", 100), Ok((0, 7)));
        assert_eq!(
            parse_range("0..0x10000000000000000", 1 << 64),
            Ok((0, 1 << 64))
        );
        assert!(parse_range("5", 100).is_err());
        assert!(parse_range("a..b", 100).is_err());
    }

    #[test]
    fn a_range_then_a_shard_then_the_job_array_then_everything() {
        let i = crate::ptx::parse_instr("add.rn.f16").unwrap();
        let space = crate::vectors::Space::Exhaustive;
        let slurm = [
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        let pick = |range, shard, vars: &[(&str, &str)]| {
            select(&i, space, range, shard, env(vars)).map(|(p, s)| (p.start, p.count, s))
        };
        let (start, count, s) = pick(Some("10..20"), Some("0/2"), &slurm).unwrap();
        assert_eq!((start, count, s), (10, 10, None));
        let (start, count, s) = pick(None, Some("1/2"), &slurm).unwrap();
        assert_eq!((start, count), (1 << 31, 1 << 31));
        assert_eq!(s.unwrap(), (Shard { k: 1, n: 2 }, "--shard".to_string()));
        let (start, count, s) = pick(None, None, &slurm).unwrap();
        assert_eq!(
            (start, count, s.unwrap().0),
            (1 << 30, 1 << 30, Shard { k: 1, n: 4 })
        );
        assert_eq!(pick(None, None, &[]).unwrap(), (0, 1 << 32, None));
        assert!(pick(Some("5..1"), None, &[]).is_err());
        assert!(pick(None, Some("2/2"), &[]).is_err());
    }

    fn record(start: u128, end: u128, digest: u64) -> (String, Record) {
        let r = Record {
            format: FORMAT,
            gpufp: "test".into(),
            instr: "fma.rn.f16".into(),
            inputs: 3,
            target: Some("sm_53".into()),
            policies: BTreeMap::new(),
            core: "correctly-rounded".into(),
            space: "exhaustive".into(),
            seed: None,
            size: 100,
            start,
            end,
            chunks_done: 1,
            chunks: 1,
            complete: true,
            digest: format!("0x{digest:016x}"),
            run: RunInfo::default(),
        };
        (format!("shard-{start}"), r)
    }

    #[test]
    fn merge_covers_the_space_exactly_once() {
        let (a, b, c) = (
            record(0, 30, 1),
            record(30, 60, 2),
            record(60, 100, u64::MAX),
        );
        let m = merge(&[c.clone(), a.clone(), b.clone()]).unwrap();
        assert_eq!((m.shards, m.count, m.digest), (3, 100, 2));
        let e = merge(&[a.clone(), c.clone()]).unwrap_err();
        assert_eq!(
            e,
            "cases 30..60 are in no shard (a shard is missing between shard-0 and shard-60)"
        );
        let e = merge(&[a.clone(), b.clone()]).unwrap_err();
        assert_eq!(
            e,
            "cases 60..100 are in no shard (a shard is missing after shard-30)"
        );
        let e = merge(&[a.clone(), b.clone(), b.clone(), c.clone()]).unwrap_err();
        assert!(
            e.starts_with("cases 30..60 are in both shard-30 and shard-30"),
            "{e}"
        );
        let e = merge(&[a.clone(), record(20, 100, 0)]).unwrap_err();
        assert!(
            e.starts_with("cases 20..30 are in both shard-0 and shard-20"),
            "{e}"
        );
        let mut other = b.clone();
        other
            .1
            .policies
            .insert("ftz_tininess".into(), "IeeeRounded".into());
        let e = merge(&[a.clone(), other, c.clone()]).unwrap_err();
        assert!(e.starts_with("shard-30 does not belong with shard-0: it is of another sweep"));
        let mut partial = c.clone();
        partial.1.complete = false;
        let e = merge(&[a, b, partial]).unwrap_err();
        assert!(e.starts_with("shard-60 is not complete"), "{e}");
        assert!(merge(&[]).is_err());
    }
}
