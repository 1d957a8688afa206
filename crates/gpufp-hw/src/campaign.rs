//! The campaign: every group of issue 10 as a list of jobs (one instruction over one case space),
//! run one after the other on a backend, each compared with the model, into a report directory:
//!
//! - `summary.tsv`: one row per job, appended as jobs finish; a rerun with the same directory
//!   skips the jobs already there, so a campaign can be spread over several device sessions;
//! - `report.md`: the summary as tables, with the first mismatches of each job;
//! - `mismatches/NAME.txt`: the mismatching cases as `gpufp check` input (`INSTR OPERAND...
//!   RESULT`, the device's result), each after a `#` line with the model's result, the verdict
//!   and the policy alternatives that give the device's bits;
//! - `chunks/NAME.txt`: the device's chunk digests (`gpufp sweep --chunk-digests` form) of jobs
//!   over more than one chunk that mismatched or could not be compared with the model;
//! - `probes/NAME.txt`: every probe case with the device's and the model's result;
//! - `tables/NAME.txt`: the 16-bit MUFU tables, `INPUT OUTPUT` for all 2^16 inputs;
//! - `captures/NAME.txt`: the f32 MUFU captures for `gpufp fit-sfu` (docs/sfu.md).

use crate::backend::{ptx_version, Backend, HwError};
use crate::capture::CAPTURES;
use crate::compare::{chunk_digests_text, compare, model_result, Cases, Model, Options, Outcome};
use crate::{probes, variants};
use gpufp::ptx::{Context, Instr, Opcode, Type};
use gpufp::vectors::gen::{cases, default_count, Level};
use gpufp::vectors::sweep::CHUNK;
use gpufp::vectors::{Plan, Space};
use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The campaign's groups; [`Group::ALL`] is the order they run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Group {
    /// The probes of the open policies.
    Probes,
    /// The 16-bit MUFU instructions (ex2, tanh on f16 and bf16): every input, table kept.
    Mufu16,
    /// The f32 MUFU captures for the table fitter (docs/sfu.md).
    Captures,
    /// Every other 16-bit variant with at most 2^32 inputs per lane: every input.
    Exhaustive16,
    /// 16-bit variants with three operands: random and structured cases.
    Random16,
    /// f32 one-operand variants that are not approximate: all 2^32 inputs.
    Exhaustive32,
    /// f32 one-operand approximate variants: all 2^32 inputs.
    Approx32,
    /// f32 and f32x2 variants with several operands: random and structured cases.
    Random32,
    /// f64 variants: random and structured cases.
    Random64,
}

impl Group {
    /// Cheapest and most telling first, so that a campaign cut short by its budget has the
    /// probes, the MUFU tables and captures, and the random sets.
    pub const ALL: [Group; 9] = [
        Group::Probes,
        Group::Mufu16,
        Group::Captures,
        Group::Random64,
        Group::Random32,
        Group::Random16,
        Group::Exhaustive32,
        Group::Approx32,
        Group::Exhaustive16,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Group::Probes => "probes",
            Group::Mufu16 => "mufu16",
            Group::Captures => "captures",
            Group::Exhaustive16 => "exhaustive16",
            Group::Random16 => "random16",
            Group::Exhaustive32 => "exhaustive32",
            Group::Approx32 => "approx32",
            Group::Random32 => "random32",
            Group::Random64 => "random64",
        }
    }

    /// The group of a variant from [`variants::all`].
    fn of(i: &Instr) -> Group {
        let lane = i.ty.bits() / i.ty.lanes();
        let scalar16 = matches!(i.ty, Type::F16 | Type::Bf16);
        match i.ty.lane() {
            Type::F16 | Type::Bf16
                if scalar16 && matches!(i.opcode, Opcode::Ex2 | Opcode::Tanh) =>
            {
                Group::Mufu16
            }
            Type::F16 | Type::Bf16 if u32::from(i.inputs) * lane <= 32 => Group::Exhaustive16,
            Type::F16 | Type::Bf16 => Group::Random16,
            Type::F64 => Group::Random64,
            _ if i.ty == Type::F32 && i.inputs == 1 && i.mods.approx => Group::Approx32,
            _ if i.ty == Type::F32 && i.inputs == 1 => Group::Exhaustive32,
            _ => Group::Random32,
        }
    }
}

/// The cases of one job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobSpace {
    Exhaustive,
    Random {
        count: u64,
        seed: u64,
    },
    /// `gpufp gen --level 2`'s cases (seed 0, default count).
    Gen,
    /// Probe cases, with the question they answer.
    Probe(String, Vec<[u64; 3]>),
    /// Capture `index` of [`CAPTURES`], every `stride`-th input.
    Capture {
        index: usize,
        stride: u32,
    },
}

/// One instruction over one case space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub group: Group,
    pub instr: Instr,
    pub space: JobSpace,
}

impl Job {
    /// Number of cases.
    pub fn count(&self) -> u64 {
        match &self.space {
            JobSpace::Exhaustive => {
                Plan::new(&self.instr, Space::Exhaustive).map_or(0, |p| p.count)
            }
            JobSpace::Random { count, .. } => *count,
            JobSpace::Gen => default_count(&self.instr, Level::Two),
            JobSpace::Probe(_, c) => c.len() as u64,
            JobSpace::Capture { index, stride } => CAPTURES[*index].operands(*stride).len() as u64,
        }
    }

    /// The space as the summary writes it.
    pub fn space_text(&self) -> String {
        match &self.space {
            JobSpace::Exhaustive => "exhaustive".into(),
            JobSpace::Random { count, seed } => format!("random {count} seed {seed}"),
            JobSpace::Gen => "gen level 2".into(),
            JobSpace::Probe(..) => "probes".into(),
            JobSpace::Capture { stride, .. } => format!("capture stride {stride}"),
        }
    }

    /// The job's identity in `summary.tsv`.
    pub fn key(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}",
            self.group.name(),
            self.instr,
            self.instr.inputs,
            self.space_text()
        )
    }

    /// A file name for the job's details.
    pub fn file_name(&self) -> String {
        let space = match &self.space {
            JobSpace::Exhaustive => "exhaustive".to_string(),
            JobSpace::Random { seed, .. } => format!("random-s{seed}"),
            JobSpace::Gen => "gen2".into(),
            JobSpace::Probe(..) => "probes".into(),
            JobSpace::Capture { index, .. } => return format!("{}.txt", CAPTURES[*index].core),
        };
        format!("{}-{}in-{space}.txt", self.instr, self.instr.inputs)
    }
}

/// What the campaign covers.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Groups to run (all when empty).
    pub groups: Vec<Group>,
    /// Only instructions whose canonical spelling contains one of these (all when empty).
    pub only: Vec<String>,
    /// Cases of each random job.
    pub random: u64,
    /// Seed of the random jobs.
    pub seed: u64,
    /// The captures take every `capture_stride`-th input.
    pub capture_stride: u32,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            groups: Vec::new(),
            only: Vec::new(),
            random: 1 << 24,
            seed: 1,
            capture_stride: 64,
        }
    }
}

/// Every job of the campaign, group by group.
pub fn plan(s: &Settings) -> Result<Vec<Job>, String> {
    let wanted = |g: Group| s.groups.is_empty() || s.groups.contains(&g);
    let named = |i: &Instr| {
        let t = i.to_string();
        s.only.is_empty() || s.only.iter().any(|o| t.contains(o.as_str()))
    };
    let mut jobs = Vec::new();
    if wanted(Group::Probes) {
        for p in probes::all() {
            let instr = p.instr()?;
            if named(&instr) {
                jobs.push(Job {
                    group: Group::Probes,
                    instr,
                    space: JobSpace::Probe(p.question.to_string(), p.cases),
                });
            }
        }
    }
    if wanted(Group::Captures) {
        for (index, c) in CAPTURES.iter().enumerate() {
            let instr = c.instr().map_err(|e| e.0)?;
            if named(&instr) {
                jobs.push(Job {
                    group: Group::Captures,
                    instr,
                    space: JobSpace::Capture {
                        index,
                        stride: s.capture_stride,
                    },
                });
            }
        }
    }
    let all = variants::all();
    let explicit = [Group::Probes, Group::Captures];
    for g in Group::ALL
        .into_iter()
        .filter(|&g| !explicit.contains(&g) && wanted(g))
    {
        for i in all.iter().filter(|i| Group::of(i) == g && named(i)) {
            let spaces = match g {
                Group::Mufu16 | Group::Exhaustive16 | Group::Exhaustive32 | Group::Approx32 => {
                    vec![JobSpace::Exhaustive]
                }
                Group::Probes | Group::Captures => Vec::new(),
                _ => vec![
                    JobSpace::Random {
                        count: s.random,
                        seed: s.seed,
                    },
                    JobSpace::Gen,
                ],
            };
            jobs.extend(spaces.into_iter().map(|space| Job {
                group: g,
                instr: *i,
                space,
            }));
        }
    }
    Ok(jobs)
}

/// The dry run: jobs and cases per group, and the host time the model needs for them at
/// `threads` threads, from the model's speed measured here on a sample of each group's first job.
pub fn dry_run(jobs: &[Job], ctx: &Context, threads: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<13} {:>5} {:>16} {:>14} {:>12}",
        "group", "jobs", "cases", "model cases/s", "model time"
    );
    let (mut total_cases, mut total_s) = (0u64, 0.0);
    for g in Group::ALL {
        let js: Vec<&Job> = jobs.iter().filter(|j| j.group == g).collect();
        if js.is_empty() {
            continue;
        }
        let cases: u64 = js.iter().map(|j| j.count()).sum();
        // Captures are written, not compared.
        let rate = if g == Group::Captures {
            None
        } else {
            js.iter().find_map(|j| model_rate(&j.instr, ctx))
        };
        let secs = rate.map(|r| cases as f64 / (r * threads.max(1) as f64));
        total_cases += cases;
        total_s += secs.unwrap_or(0.0);
        let _ = writeln!(
            out,
            "{:<13} {:>5} {:>16} {:>14} {:>12}",
            g.name(),
            js.len(),
            cases,
            match (g, rate) {
                (Group::Captures, _) => "not compared".into(),
                (_, None) => "no model".into(),
                (_, Some(r)) => format!("{r:.0}"),
            },
            secs.map_or("-".into(), |s| format!("{s:.0} s"))
        );
    }
    let _ = writeln!(
        out,
        "{:<13} {:>5} {total_cases:>16} {:>14} {:>12}",
        "total",
        jobs.len(),
        "",
        format!("{total_s:.0} s")
    );
    let _ = writeln!(
        out,
        "model time: one host thread per case at the measured rate, {threads} threads; \
         the GPU's own time is negligible beside it (see docs/hardware.md)"
    );
    out
}

/// Cases per second of the model on one thread, from 2^14 random cases of `i`; None when the
/// model cannot evaluate it.
fn model_rate(i: &Instr, ctx: &Context) -> Option<f64> {
    let plan = Plan::new(
        i,
        Space::Random {
            count: 1 << 14,
            seed: 7,
        },
    )
    .ok()?;
    let n = usize::from(i.inputs);
    model_result(i, &plan.operands(0)[..n], ctx).ok()?;
    let t = Instant::now();
    for k in 0..plan.count {
        gpufp::ptx::eval(i, &plan.operands(k)[..n], ctx).ok()?;
    }
    Some(plan.count as f64 / t.elapsed().as_secs_f64().max(1e-9))
}

/// How a campaign runs.
pub struct Run {
    pub dir: PathBuf,
    /// Start no job after this many seconds.
    pub budget_s: Option<f64>,
    pub opts: Options,
    pub ctx: Context,
}

const HEADER: &str = "group\tinstr\tinputs\tspace\tcount\tstatus\tdevice_digest\tmodel_digest\t\
                      bad_chunks\tmismatches\tjudged\tviolations\tbackend_s\ttotal_s\tnote";

/// Runs the jobs not yet in `run.dir/summary.tsv` on `backend`, appending their rows, then
/// writes `report.md` from the whole summary. Progress goes to `log`. Returns the number of jobs
/// run and whether jobs were left for lack of time.
pub fn run(
    backend: &mut dyn Backend,
    jobs: &[Job],
    run: &Run,
    log: &mut dyn Write,
) -> Result<(usize, bool), HwError> {
    let io = |what: &Path| {
        let what = what.display().to_string();
        move |e: std::io::Error| HwError(format!("{what}: {e}"))
    };
    for sub in ["", "mismatches", "chunks", "probes", "tables", "captures"] {
        let d = run.dir.join(sub);
        std::fs::create_dir_all(&d).map_err(io(&d))?;
    }
    let summary = run.dir.join("summary.tsv");
    let existing = std::fs::read_to_string(&summary).unwrap_or_default();
    let done: HashSet<String> = existing
        .lines()
        .skip(1)
        .map(|l| l.split('\t').take(4).collect::<Vec<_>>().join("\t"))
        .collect();
    if existing.is_empty() {
        std::fs::write(&summary, format!("{HEADER}\n")).map_err(io(&summary))?;
    }
    let start = Instant::now();
    let mut ran = 0;
    let mut left = false;
    for job in jobs.iter().filter(|j| !done.contains(&j.key())) {
        if run
            .budget_s
            .is_some_and(|b| start.elapsed().as_secs_f64() > b)
        {
            left = true;
            break;
        }
        let row = one(backend, job, run)?;
        let _ = writeln!(log, "{}", row.replace('\t', "  "));
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&summary)
            .map_err(io(&summary))?;
        writeln!(f, "{row}").map_err(io(&summary))?;
        ran += 1;
    }
    let text = std::fs::read_to_string(&summary).map_err(io(&summary))?;
    let report = run.dir.join("report.md");
    std::fs::write(
        &report,
        report_md(&text, &backend.describe(), &run.ctx, &run.dir),
    )
    .map_err(io(&report))?;
    Ok((ran, left))
}

/// Runs one job and writes its files; returns its summary row.
fn one(backend: &mut dyn Backend, job: &Job, run: &Run) -> Result<String, HwError> {
    let i = &job.instr;
    let row = |status: &str, o: Option<&Outcome>, note: &str| {
        let (dd, md, bad, mm, judged, viol, bs, ts) = match o {
            Some(o) => (
                format!("0x{:016x}", o.device_digest),
                o.model_digest.map_or("-".into(), |d| format!("0x{d:016x}")),
                o.bad_chunks.len().to_string(),
                o.mismatches.to_string(),
                o.kept.len().to_string(),
                o.violations().to_string(),
                format!("{:.3}", o.backend_s),
                format!("{:.3}", o.total_s),
            ),
            None => Default::default(),
        };
        format!(
            "{}\t{}\t{status}\t{dd}\t{md}\t{bad}\t{mm}\t{judged}\t{viol}\t{bs}\t{ts}\t{}",
            job.key(),
            job.count(),
            note.replace(['\t', '\n'], " ")
        )
    };
    if let Err(e) = ptx_version(i, backend.target()) {
        return Ok(row("not-on-device", None, &e.0));
    }
    if let JobSpace::Capture { index, stride } = job.space {
        let c = &CAPTURES[index];
        let text = match c.run(backend, stride) {
            Ok(t) => t,
            Err(e) => return Ok(row("error", None, &e.0)),
        };
        let p = run.dir.join("captures").join(job.file_name());
        std::fs::write(&p, text).map_err(|e| HwError(format!("{}: {e}", p.display())))?;
        let note = format!("fit: gpufp fit-sfu {} captures/{}", c.core, job.file_name());
        return Ok(row("captured", None, &note));
    }
    let list: Vec<[u64; 3]>;
    let plan: Plan;
    let cases = match &job.space {
        JobSpace::Exhaustive | JobSpace::Random { .. } => {
            let space = match job.space {
                JobSpace::Random { count, seed } => Space::Random { count, seed },
                _ => Space::Exhaustive,
            };
            plan = Plan::new(i, space).map_err(|e| HwError(e.to_string()))?;
            Cases::Sweep(&plan)
        }
        JobSpace::Gen => {
            list = cases(i, Level::Two, 0, None).collect();
            Cases::List("gen level 2", &list)
        }
        JobSpace::Probe(_, c) => Cases::List("probes", c),
        JobSpace::Capture { .. } => return Ok(row("error", None, "not a comparison")),
    };
    let o = match compare(backend, i, cases, &run.ctx, &run.opts) {
        Ok(o) => o,
        Err(e) => return Ok(row("error", None, &e.0)),
    };
    let name = job.file_name();
    let mut probe_verdict = None;
    let write = |sub: &str, text: String| {
        let p = run.dir.join(sub).join(&name);
        std::fs::write(&p, text).map_err(|e| HwError(format!("{}: {e}", p.display())))
    };
    if !o.kept.is_empty() {
        write("mismatches", mismatch_text(job, &o, &backend.describe()))?;
    }
    let compared = o.model == Model::Compared;
    if o.count > CHUNK && (!compared || !o.bad_chunks.is_empty()) {
        write(
            "chunks",
            chunk_digests_text(o.first_chunk, &o.device_chunks),
        )?;
    }
    if let JobSpace::Probe(question, c) = &job.space {
        let (text, verdict) = probe_text(backend, job, question, c, &run.ctx)?;
        write("probes", text)?;
        probe_verdict = Some(verdict);
    }
    if job.group == Group::Mufu16 {
        let plan = Plan::new(i, Space::Exhaustive).map_err(|e| HwError(e.to_string()))?;
        let r = backend.run(
            i,
            &crate::backend::Batch::Sweep {
                plan: &plan,
                base: 0,
                n: plan.count,
            },
        )?;
        let mut t = format!(
            "# {i} on {}: INPUT OUTPUT for every input\n",
            backend.describe()
        );
        for (x, y) in r.iter().enumerate() {
            let _ = writeln!(t, "0x{x:04x} 0x{y:04x}");
        }
        write("tables", t)?;
    }
    let (status, note) = match &o.model {
        Model::Compared if o.mismatches == 0 => ("match", probe_verdict.unwrap_or_default()),
        Model::Compared => ("MISMATCH", probe_verdict.unwrap_or_default()),
        Model::Off => ("device-only", "model off".to_string()),
        Model::Unavailable(e) => ("device-only", e.clone()),
    };
    Ok(row(status, Some(&o), &note))
}

fn bits(x: u64, width: u32) -> String {
    format!("0x{x:0w$x}", w = (width / 4) as usize)
}

fn result_text(i: &Instr, x: u64) -> String {
    match i.opcode {
        Opcode::Testp(_) => x.to_string(),
        _ => bits(x, i.ty.bits()),
    }
}

/// The mismatches as `gpufp check` input with `#` explanations.
fn mismatch_text(job: &Job, o: &Outcome, device: &str) -> String {
    let i = &job.instr;
    let mut t = format!(
        "# {i} ({} inputs), {}: {} of {} cases differ from the model on {device}; the first {} follow.\n\
         # Each line is `gpufp check` input (the device's result last): gpufp check {i} FILE\n",
        i.inputs,
        o.space,
        o.mismatches,
        o.count,
        o.kept.len()
    );
    for m in &o.kept {
        let policies = if m.policies.is_empty() {
            "none".to_string()
        } else {
            m.policies.join(", ")
        };
        let _ = writeln!(
            t,
            "# case {}: model {}; {}; policy alternatives giving the device's bits: {policies}",
            m.case,
            result_text(i, m.model),
            m.verdict
        );
        let ops: Vec<String> = m.operands.iter().map(|x| bits(*x, i.ty.bits())).collect();
        let _ = writeln!(t, "{i} {} {}", ops.join(" "), result_text(i, m.device));
    }
    t
}

/// Every probe case: operands, the device's result, the model's, and the policy alternatives
/// that give the device's bits.
fn probe_text(
    backend: &mut dyn Backend,
    job: &Job,
    question: &str,
    list: &[[u64; 3]],
    ctx: &Context,
) -> Result<(String, String), HwError> {
    let i = &job.instr;
    let n = usize::from(i.inputs);
    let r = backend.run(i, &crate::backend::Batch::Cases(list))?;
    let mut t =
        format!("# {i}: {question}\n# operands, device, model, agreeing policy alternatives\n");
    let mut differ = 0;
    // The alternatives that agree with the device on every case where the default does not.
    let mut common: Option<Vec<String>> = None;
    for (ops, d) in list.iter().zip(r) {
        let m = model_result(i, &ops[..n], ctx);
        let alts: Vec<String> = ctx
            .policies
            .alternatives()
            .into_iter()
            .filter(|(_, _, p)| {
                let alt = Context {
                    policies: *p,
                    ..ctx.clone()
                };
                model_result(i, &ops[..n], &alt) == Ok(d)
            })
            .map(|(name, v, _)| format!("{name}={v}"))
            .collect();
        if m != Ok(d) {
            differ += 1;
            common = Some(match common {
                None => alts.clone(),
                Some(c) => c.into_iter().filter(|a| alts.contains(a)).collect(),
            });
        }
        let ops: Vec<String> = ops[..n].iter().map(|x| bits(*x, i.ty.bits())).collect();
        let _ = writeln!(
            t,
            "{i} {} -> device {} model {} {} [{}]",
            ops.join(" "),
            result_text(i, d),
            m.as_ref()
                .map_or_else(|e| format!("({e})"), |m| result_text(i, *m)),
            if m == Ok(d) { "same" } else { "DIFFERENT" },
            alts.join(", ")
        );
    }
    let verdict = match common {
        None => format!("probes: all {} as the model's defaults", list.len()),
        Some(c) if c.is_empty() => format!(
            "probes: {differ} of {} differ; no single policy alternative explains them",
            list.len()
        ),
        Some(c) => format!(
            "probes: {differ} of {} differ, all as under {}",
            list.len(),
            c.join(" or ")
        ),
    };
    Ok((t, verdict))
}

/// `report.md` from the summary rows.
fn report_md(summary: &str, device: &str, ctx: &Context, dir: &Path) -> String {
    let rows: Vec<Vec<&str>> = summary
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .filter(|r: &Vec<&str>| r.len() >= 15)
        .collect();
    let mut t = format!(
        "# gpufp hardware campaign\n\nDevice: {device}. Model core: {:?}; policies: the defaults \
         (docs/semantics.md). Rows: {}.\n\n",
        ctx.core,
        rows.len()
    );
    let count = |s: &str| rows.iter().filter(|r| r[5] == s).count();
    let _ = writeln!(
        t,
        "| status | jobs |\n|---|---|\n| match | {} |\n| MISMATCH | {} |\n| device-only | {} |\n\
         | captured | {} |\n| not-on-device | {} |\n| error | {} |\n",
        count("match"),
        count("MISMATCH"),
        count("device-only"),
        count("captured"),
        count("not-on-device"),
        count("error")
    );
    for g in Group::ALL {
        let rs: Vec<&Vec<&str>> = rows.iter().filter(|r| r[0] == g.name()).collect();
        if rs.is_empty() {
            continue;
        }
        let _ = writeln!(
            t,
            "## {}\n\n| instr | inputs | space | cases | status | mismatches | violations (of judged) | note |\n\
             |---|---|---|---|---|---|---|---|",
            g.name()
        );
        for r in rs {
            let _ = writeln!(
                t,
                "| `{}` | {} | {} | {} | {} | {} | {} ({}) | {} |",
                r[1], r[2], r[3], r[4], r[5], r[9], r[11], r[10], r[14]
            );
        }
        t.push('\n');
    }
    let mut details = String::new();
    for sub in ["probes", "mismatches"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect();
        names.sort();
        for n in names {
            let text = std::fs::read_to_string(dir.join(sub).join(&n)).unwrap_or_default();
            let head: Vec<&str> = text.lines().take(12).collect();
            let _ = write!(
                details,
                "### {sub}/{n}\n\n```\n{}\n```\n\n",
                head.join("\n")
            );
        }
    }
    if !details.is_empty() {
        t += "## Details (first lines of each file)\n\n";
        t += &details;
    }
    t
}
