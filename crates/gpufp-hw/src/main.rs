//! `gpufp-hw`: run gpufp's cases on an NVIDIA GPU and compare bit for bit (docs/hardware.md).

use clap::{Parser, Subcommand};
use gpufp::mufu::interp::Interpolator;
use gpufp::mufu::table::Tables;
use gpufp::mufu::CoreRef;
use gpufp::ptx::{self, Context, Instr, Target};
use gpufp::vectors::Space;
use gpufp::Policies;
use gpufp_hw::backend::{ptx_version, Backend, Emulator};
use gpufp_hw::campaign::{self, Group, Settings};
use gpufp_hw::compare::{chunk_digests_text, compare, Cases, Model, Options};
use gpufp_hw::device::Gpu;
use gpufp_hw::kernel::{kernel, Source};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Parser)]
#[command(
    name = "gpufp-hw",
    version,
    about = "Run gpufp's cases on an NVIDIA GPU and compare bit for bit"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Where cases run and what they are compared with.
#[derive(clap::Args, Clone)]
struct On {
    /// Run on the model itself instead of a GPU (tests the harness without one).
    #[arg(long)]
    emulate: bool,
    /// The emulator's target (with --emulate).
    #[arg(long, default_value = "sm_90", value_parser = parse_target)]
    target: Target,
    /// GPU ordinal.
    #[arg(long, default_value_t = 0)]
    device: usize,
    /// MUFU coefficient table file for the model's approximate instructions (docs/sfu.md;
    /// default: $GPUFP_SFU_TABLES, else the correctly rounded core).
    #[arg(long, value_name = "FILE")]
    sfu_tables: Option<PathBuf>,
    /// Host threads for the model (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Mismatches kept and judged per instruction.
    #[arg(long, default_value_t = 100)]
    keep: usize,
    /// Only the device's digests, no model.
    #[arg(long)]
    no_model: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Run the whole campaign (or the chosen groups) into a report directory.
    Campaign {
        #[command(flatten)]
        on: On,
        /// Print the plan and estimated case counts, run nothing.
        #[arg(long)]
        dry_run: bool,
        /// Report directory (jobs already in its summary.tsv are skipped).
        #[arg(long, default_value = "hw-report")]
        out: PathBuf,
        /// Groups to run (default: all).
        #[arg(long, value_enum)]
        group: Vec<Group>,
        /// Only instructions whose spelling contains this (repeatable).
        #[arg(long)]
        only: Vec<String>,
        /// Cases per random job.
        #[arg(long, default_value = "16777216", value_parser = parse_u64)]
        random: u64,
        /// Seed of the random jobs.
        #[arg(long, default_value = "1", value_parser = parse_u64)]
        seed: u64,
        /// The MUFU captures take every N-th input (1: whole binades).
        #[arg(long, default_value_t = 64)]
        capture_stride: u32,
        /// Start no new job after this many seconds (then rerun to go on).
        #[arg(long)]
        budget_s: Option<f64>,
        /// List every job in the dry run.
        #[arg(long)]
        list: bool,
    },
    /// `gpufp sweep` on the device: digest, chunk digests, and the mismatches with the model.
    Sweep {
        #[command(flatten)]
        on: On,
        /// Number of source operands (3 for the 3-input min/max).
        #[arg(long)]
        operands: Option<u8>,
        /// Every input of the per-lane input space.
        #[arg(long, conflicts_with = "random", required_unless_present = "random")]
        exhaustive: bool,
        /// N cases with SplitMix64 operands.
        #[arg(long, value_name = "N", value_parser = parse_u64)]
        random: Option<u64>,
        #[arg(long, default_value = "0", value_parser = parse_u64)]
        seed: u64,
        /// Only cases START..END of the space (half-open; either end may be left out), numbered
        /// as `gpufp sweep --range` numbers them.
        #[arg(long, value_name = "START..END", conflicts_with = "shard")]
        range: Option<String>,
        /// Only shard K of N, as `gpufp sweep --shard` (default: from a Slurm array's or
        /// Kubernetes Indexed Job's environment, when present).
        #[arg(long, value_name = "K/N")]
        shard: Option<String>,
        /// Write the device's `CHUNK 0xDIGEST` lines to FILE.
        #[arg(long, value_name = "FILE")]
        chunk_digests: Option<PathBuf>,
        instr: String,
    },
    /// Run the cases of a `gpufp gen` file on the device; write `gpufp check` input to stdout.
    Cases {
        #[command(flatten)]
        on: On,
        instr: String,
        file: PathBuf,
    },
    /// Print the kernel generated for an instruction.
    Ptx {
        #[arg(long, default_value = "sm_90", value_parser = parse_target)]
        target: Target,
        #[arg(long, value_enum, default_value = "random")]
        source: SourceArg,
        #[arg(long)]
        operands: Option<u8>,
        instr: String,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum SourceArg {
    Exhaustive,
    Random,
    Cases,
}

fn parse_u64(s: &str) -> Result<u64, String> {
    gpufp::decimal::parse_unsigned(s)
        .and_then(|v| u64::try_from(v).ok())
        .ok_or_else(|| format!("`{s}` is not a 64-bit number"))
}

fn parse_target(s: &str) -> Result<Target, String> {
    s.parse::<Target>().map_err(|e| format!("`{s}`: {e}"))
}

fn instr(text: &str, operands: Option<u8>) -> Result<Instr, String> {
    let mut i = ptx::parse_instr(text).map_err(|e| format!("`{text}`: {e}"))?;
    if let Some(n) = operands {
        i.inputs = n;
    }
    ptx::validate(&i, None, None).map_err(|e| format!("`{text}`: {e}"))?;
    Ok(i)
}

impl On {
    fn core(&self) -> Result<CoreRef, String> {
        let path = match &self.sfu_tables {
            Some(p) => p.clone(),
            None => match std::env::var_os("GPUFP_SFU_TABLES") {
                Some(p) if !p.is_empty() => PathBuf::from(p),
                _ => return Ok(CoreRef::default()),
            },
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("reading SFU tables {}: {e}", path.display()))?;
        let tables = Tables::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(CoreRef::new(Arc::new(Interpolator::new(
            tables,
            path.display().to_string(),
        ))))
    }

    /// The backend and the model's context for its target.
    fn open(&self) -> Result<(Box<dyn Backend>, Context), String> {
        let core = self.core()?;
        let backend: Box<dyn Backend> = if self.emulate {
            Box::new(Emulator {
                target: self.target,
                ctx: Context {
                    target: Some(self.target),
                    policies: Policies::default(),
                    core: core.clone(),
                },
                fault: None,
            })
        } else {
            Box::new(Gpu::open(self.device).map_err(|e| e.0)?)
        };
        let ctx = Context {
            target: Some(backend.target()),
            policies: Policies::default(),
            core,
        };
        Ok((backend, ctx))
    }

    fn options(&self) -> Options {
        let mut o = Options {
            keep: self.keep,
            model: !self.no_model,
            ..Options::default()
        };
        if let Some(t) = self.threads {
            o.threads = t;
        }
        o
    }
}

fn main() -> ExitCode {
    gpufp_hw::compare::quiet_model_panics();
    match run(Cli::parse().command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<ExitCode, String> {
    match command {
        Command::Campaign {
            on,
            dry_run,
            out,
            group,
            only,
            random,
            seed,
            capture_stride,
            budget_s,
            list,
        } => {
            let settings = Settings {
                groups: group,
                only,
                random,
                seed,
                capture_stride,
            };
            let jobs = campaign::plan(&settings)?;
            if dry_run {
                let ctx = Context {
                    target: Some(on.target),
                    policies: Policies::default(),
                    core: on.core()?,
                };
                if list {
                    for j in &jobs {
                        println!("{}\t{}", j.key(), j.count());
                    }
                }
                print!("{}", campaign::dry_run(&jobs, &ctx, on.options().threads));
                return Ok(ExitCode::SUCCESS);
            }
            let (mut backend, ctx) = on.open()?;
            eprintln!(
                "device: {}; {} jobs; report in {}",
                backend.describe(),
                jobs.len(),
                out.display()
            );
            let r = campaign::Run {
                dir: out.clone(),
                budget_s,
                opts: on.options(),
                ctx,
            };
            let (ran, left) = campaign::run(backend.as_mut(), &jobs, &r, &mut std::io::stderr())
                .map_err(|e| e.0)?;
            println!(
                "ran {ran} job(s){}; report: {}",
                if left {
                    ", more left (budget reached): run again to go on"
                } else {
                    ""
                },
                out.join("report.md").display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Sweep {
            on,
            operands,
            exhaustive,
            random,
            seed,
            range,
            shard,
            chunk_digests,
            instr: text,
        } => {
            let i = instr(&text, operands)?;
            let space = match (exhaustive, random) {
                (_, Some(count)) => Space::Random { count, seed },
                _ => Space::Exhaustive,
            };
            let (plan, shard) = gpufp::vectors::shard::select(
                &i,
                space,
                range.as_deref(),
                shard.as_deref(),
                |v| std::env::var(v).ok(),
            )?;
            let (mut backend, ctx) = on.open()?;
            let o = compare(
                backend.as_mut(),
                &i,
                Cases::Sweep(&plan),
                &ctx,
                &on.options(),
            )
            .map_err(|e| e.0)?;
            if let Some(p) = chunk_digests {
                std::fs::write(&p, chunk_digests_text(o.first_chunk, &o.device_chunks))
                    .map_err(|e| format!("writing {}: {e}", p.display()))?;
            }
            println!("instr: {i}");
            println!("space: {}", o.space);
            if let Some((s, from)) = &shard {
                println!("shard: {s} (from {from})");
            }
            if plan.start != 0 || plan.end() != plan.size {
                println!("range: {}..{} of {}", plan.start, plan.end(), plan.size);
            }
            println!("device: {}", backend.describe());
            println!("count: {}", o.count);
            println!("device time: {:.3} s", o.backend_s);
            println!("elapsed: {:.3} s", o.total_s);
            println!("digest: 0x{:016x}", o.device_digest);
            Ok(report_model(&o))
        }
        Command::Cases {
            on,
            instr: text,
            file,
        } => {
            let body = std::fs::read_to_string(&file)
                .map_err(|e| format!("reading {}: {e}", file.display()))?;
            let (list, n) = read_cases(&text, &body)?;
            let i = instr(&text, Some(n))?;
            let (mut backend, ctx) = on.open()?;
            let o = compare(
                backend.as_mut(),
                &i,
                Cases::List("cases", &list),
                &ctx,
                &on.options(),
            )
            .map_err(|e| e.0)?;
            let r = backend
                .run(&i, &gpufp_hw::backend::Batch::Cases(&list))
                .map_err(|e| e.0)?;
            let w = i.ty.bits() as usize / 4;
            for (ops, d) in list.iter().zip(r) {
                let ops: Vec<String> = ops[..usize::from(n)]
                    .iter()
                    .map(|x| format!("0x{x:0w$x}"))
                    .collect();
                let d = match i.opcode {
                    ptx::Opcode::Testp(_) => d.to_string(),
                    _ => format!("0x{d:0w$x}"),
                };
                println!("{i} {} {d}", ops.join(" "));
            }
            eprintln!("device: {}; cases: {}", backend.describe(), o.count);
            Ok(report_model_to_stderr(&o))
        }
        Command::Ptx {
            target,
            source,
            operands,
            instr: text,
        } => {
            let i = instr(&text, operands)?;
            let v = ptx_version(&i, target).map_err(|e| e.0)?;
            let s = match source {
                SourceArg::Exhaustive => Source::Exhaustive,
                SourceArg::Random => Source::Random,
                SourceArg::Cases => Source::Cases,
            };
            print!("{}", kernel(&i, s, target, v));
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The operands of a `gpufp gen` file (`INSTR OPERAND... EXPECTED`; `#` and blank lines skipped;
/// the instruction word optional), and their count.
fn read_cases(instr: &str, body: &str) -> Result<(Vec<[u64; 3]>, u8), String> {
    let mut list = Vec::new();
    let mut n = None;
    for (k, line) in body.lines().enumerate() {
        let mut words: Vec<&str> = line.split_whitespace().collect();
        if words.first().is_none_or(|w| w.starts_with('#')) {
            continue;
        }
        if words[0] == instr {
            words.remove(0);
        }
        let Some((_, ops)) = words.split_last() else {
            continue;
        };
        if ops.is_empty() || ops.len() > 3 || n.is_some_and(|n| n != ops.len()) {
            return Err(format!(
                "line {}: expected OPERAND... RESULT (1 to 3 operands, the same on every line)",
                k + 1
            ));
        }
        n = Some(ops.len());
        let mut c = [0u64; 3];
        for (slot, w) in c.iter_mut().zip(ops) {
            *slot = w
                .strip_prefix("0x")
                .and_then(|h| u64::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("line {}: `{w}` is not a 0x bit pattern", k + 1))?;
        }
        list.push(c);
    }
    let n = n.ok_or("no cases")?;
    Ok((list, n as u8))
}

fn model_lines(o: &gpufp_hw::compare::Outcome) -> (Vec<String>, bool) {
    let mut v = Vec::new();
    let ok = match &o.model {
        Model::Compared => {
            v.push(format!(
                "model digest: 0x{:016x}",
                o.model_digest.unwrap_or(0)
            ));
            v.push(format!("differing chunks: {}", o.bad_chunks.len()));
            v.push(format!("mismatches: {}", o.mismatches));
            for m in &o.kept {
                let ops: Vec<String> = m.operands.iter().map(|x| format!("0x{x:x}")).collect();
                v.push(format!(
                    "  case {} ({}): device 0x{:x}, model 0x{:x}: {}{}",
                    m.case,
                    ops.join(" "),
                    m.device,
                    m.model,
                    m.verdict,
                    if m.policies.is_empty() {
                        String::new()
                    } else {
                        format!("; as under {}", m.policies.join(", "))
                    }
                ));
            }
            o.mismatches == 0
        }
        Model::Off => true,
        Model::Unavailable(e) => {
            v.push(format!("model: unavailable ({e})"));
            true
        }
    };
    (v, ok)
}

fn report_model(o: &gpufp_hw::compare::Outcome) -> ExitCode {
    let (lines, ok) = model_lines(o);
    for l in lines {
        println!("{l}");
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn report_model_to_stderr(o: &gpufp_hw::compare::Outcome) -> ExitCode {
    let (lines, ok) = model_lines(o);
    for l in lines {
        eprintln!("{l}");
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
