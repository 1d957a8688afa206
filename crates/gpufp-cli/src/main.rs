//! The `gpufp` command: the command-line contract in README.md (`eval`, `batch`, `parse`,
//! `run`), and test vectors (`gen`, `check`, `sweep`).

mod bench;
mod sfu;

use clap::{Parser, Subcommand};
use gpufp::front::{Options, Prepared};
use gpufp::ptx::{self, Opcode, PtxVersion, Target};
use gpufp::Policies;
use std::collections::HashMap;
use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;
use std::rc::Rc;

mod run;
mod sweep;
mod vectors;

/// A bit-exact model of GPU floating-point instructions.
#[derive(Parser)]
#[command(
    name = "gpufp",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("GPUFP_COMMIT"), ")"),
    about,
    long_about = None
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone, Copy)]
struct Where {
    /// Target (sm_XX, sm_XXa, sm_XXf); default: the lowest that has the instruction.
    #[arg(long, value_parser = parse_target)]
    target: Option<Target>,
    /// PTX ISA version (X.Y); default: the newest.
    #[arg(long, value_parser = parse_ptx)]
    ptx: Option<PtxVersion>,
}

/// How the model evaluates: policy alternatives and the MUFU core.
#[derive(clap::Args, Clone, Debug, Default)]
struct Model {
    /// Select an alternative of an open rule, `NAME=VALUE` (docs/semantics.md), e.g.
    /// `ftz_tininess=IeeeRounded`; repeatable.
    #[arg(long = "policy", value_name = "NAME=VALUE")]
    policies: Vec<String>,
    #[command(flatten)]
    sfu: sfu::SfuTables,
}

impl Model {
    /// The front door's options for `at` with these selections.
    fn options(&self, at: Where) -> Result<Options, String> {
        let mut opts = Options {
            target: at.target,
            ptx: at.ptx,
            core: self.sfu.core()?,
            ..Options::default()
        };
        for p in &self.policies {
            opts = opts.select(p).map_err(|e| format!("--policy `{p}`: {e}"))?;
        }
        Ok(opts)
    }
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate one instruction: result bits, decoded value, and the rules that decided it.
    Eval {
        #[command(flatten)]
        at: Where,
        /// The instruction, e.g. `fma.rn.ftz.sat.f32`.
        instr: String,
        /// Operands: `0x` bits of the full width, `0f`/`0d` literals, decimal numbers, or a
        /// packed operand's lanes `{LANE0, LANE1}`.
        #[arg(allow_hyphen_values = true)]
        operands: Vec<String>,
        #[command(flatten)]
        model: Model,
        /// Print the result and everything that decided it as one JSON object (bits as `0x`
        /// text); on an error, `ok` is false and `error` says what and where.
        #[arg(long)]
        json: bool,
    },
    /// Evaluate `INSTR OPERAND...` lines from FILE (or stdin, also `-`): one result line per case.
    Batch {
        #[command(flatten)]
        at: Where,
        file: Option<std::path::PathBuf>,
        #[command(flatten)]
        model: Model,
    },
    /// Fit a MUFU core's coefficient table to captured (input, output) bit pairs.
    FitSfu {
        /// The core: rcp, rsqrt, ex2, lg2, sin or cos.
        function: String,
        /// Capture file: one `0xINPUT 0xOUTPUT` line per MUFU operation.
        capture: std::path::PathBuf,
        /// The table file to write.
        #[arg(short = 'o', long = "output", value_name = "TABLE")]
        output: std::path::PathBuf,
    },
    /// Run a straight-line PTX snippet (FILE, or `-` for stdin); print every register written
    /// and memory stored.
    Run {
        file: std::path::PathBuf,
        /// Target (sm_XX, sm_XXa, sm_XXf); default: each instruction's lowest.
        #[arg(long, value_parser = parse_target)]
        target: Option<Target>,
        /// A register's value before the run: `a=1.5`, `h=0x3c00`, `p=true`, `addr=0x100`.
        #[arg(long = "set", value_name = "REG=VALUE", allow_hyphen_values = true)]
        sets: Vec<String>,
        /// Memory before the run: `0x100=0x3c004000,0x00ff` (words stored little-endian in turn).
        #[arg(long = "mem", value_name = "ADDR=0xWORD,...")]
        mems: Vec<String>,
        /// Also print every register write, in order, with its line.
        #[arg(long)]
        trace: bool,
    },
    /// Intel vISA MIN_MAX: run, assemble, disassemble.
    Visa {
        #[command(subcommand)]
        command: VisaCommand,
    },
    /// Validate an instruction; print its canonical form, operands and requirements.
    Parse {
        #[command(flatten)]
        at: Where,
        /// Number of source operands (2 or 3 for min/max).
        #[arg(long)]
        operands: Option<u8>,
        /// The instruction, e.g. `min.ftz.NaN.xorsign.abs.f32`.
        instr: String,
        /// Print the verdict as one JSON object; on an error, `ok` is false and `error` says
        /// what and where.
        #[arg(long)]
        json: bool,
    },
    /// Print a shell completion script: `gpufp completions bash > /etc/bash_completion.d/gpufp`.
    Completions {
        /// bash, elvish, fish, powershell or zsh.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff): `gpufp man > gpufp.1 && man ./gpufp.1`; `gpufp man eval`
    /// for a subcommand's page (`gpufp-eval.1`).
    Man {
        /// A subcommand (`eval`, `visa`, ...).
        subcommand: Option<String>,
    },
    /// List every valid instruction for a target and PTX ISA version, one per line with its
    /// number of source operands; only those of OPCODE if given.
    List {
        #[command(flatten)]
        at: Where,
        /// An opcode (`fma`, `testp`, ...).
        opcode: Option<String>,
    },
    /// Test cases for one instruction: `INSTR OPERAND... EXPECTED` lines (docs/vectors.md).
    Gen(vectors::GenArgs),
    /// Judge `OPERAND... RESULT` lines from a device: bit-exact and against the manual.
    Check(vectors::CheckArgs),
    /// Evaluate every input or N random inputs (or a range or shard of them) on all cores; print
    /// count, time and digest.
    Sweep(sweep::SweepArgs),
    /// Check that shards' result files cover their space exactly once; print the whole digest.
    SweepMerge(sweep::MergeArgs),
    /// Throughput of the fast path against the host FPU, the integer core and other libraries.
    Bench(bench::BenchArgs),
}

#[derive(Subcommand)]
enum VisaCommand {
    /// Run the declarations and MIN/MAX lines of FILE; print the variables asked for.
    Run {
        file: std::path::PathBuf,
        /// Initial elements of a variable: `V33=1.5,2,0x3f800000` (numbers or bit patterns), or
        /// of an address variable: `A0=64,&V33,&V33+16` (byte addresses).
        #[arg(long = "set", value_name = "V=LIST")]
        sets: Vec<String>,
        /// A variable (`V33`) or address variable (`A0`) to print after the run (default: every
        /// declared one).
        #[arg(long = "print", value_name = "V")]
        prints: Vec<String>,
        /// Bytes per GRF register (32 or 64).
        #[arg(long, default_value_t = 32, value_parser = parse_grf)]
        grf: usize,
        /// The 32-bit execution mask (default: all channels enabled).
        #[arg(long, value_parser = parse_u32)]
        exec_mask: Option<u32>,
        /// `%cr0` (bits 6, 7, 10 allow DF, F, HF denormals; default: all allowed).
        #[arg(long, value_parser = parse_u32)]
        cr0: Option<u32>,
    },
    /// Assemble the MIN/MAX lines of FILE: one line of hex bytes per instruction.
    Asm {
        file: std::path::PathBuf,
        /// Bytes per GRF register (32 or 64).
        #[arg(long, default_value_t = 32, value_parser = parse_grf)]
        grf: usize,
    },
    /// Disassemble hex bytes (one or more instructions) into text.
    Disasm { hex: Vec<String> },
}

/// The command line with the options written after positional arguments moved before them, so
/// `gpufp eval add.rn.f32 1 2 --target sm_70` works although operands may start with `-` (`-1`,
/// `-inf`): a word starting with `--` that names a long option of the (sub)command is that
/// option wherever it stands, with its value; words after a bare `--` stay where they are.
fn hoist_options(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let mut words = args.into_iter();
    let mut head: Vec<std::ffi::OsString> = words.next().into_iter().collect();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    for w in words.by_ref() {
        let sub = w.to_str().and_then(|n| cmd.find_subcommand(n)).cloned();
        match sub {
            Some(c) if rest.is_empty() => {
                head.push(w);
                cmd = c;
            }
            _ => {
                rest.push(w);
                break;
            }
        }
    }
    rest.extend(words);
    let takes_value = |name: &str| {
        cmd.get_arguments()
            .find(|a| a.get_long() == Some(name))
            .map(|a| a.get_action().takes_values())
    };
    let (mut options, mut positional) = (Vec::new(), Vec::new());
    let mut words = rest.into_iter();
    while let Some(w) = words.next() {
        let text = w.to_str().unwrap_or_default();
        if text == "--" {
            positional.push(w);
            positional.extend(words.by_ref());
            break;
        }
        let name = text
            .strip_prefix("--")
            .map(|t| t.split('=').next().unwrap_or(t));
        match name.and_then(takes_value) {
            Some(value) => {
                let inline = text.contains('=');
                options.push(w);
                if value && !inline {
                    options.extend(words.next());
                }
            }
            None => positional.push(w),
        }
    }
    head.extend(options);
    head.extend(positional);
    head
}

fn parse_grf(s: &str) -> Result<usize, String> {
    match s {
        "32" => Ok(32),
        "64" => Ok(64),
        _ => Err(format!("a GRF register has 32 or 64 bytes, not `{s}`")),
    }
}

fn parse_u32(s: &str) -> Result<u32, String> {
    gpufp::decimal::parse_unsigned(s)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| format!("`{s}` is not a 32-bit number"))
}

/// A file's text, or standard input's for `-`.
fn read_file(path: &std::path::Path) -> Result<String, String> {
    if path.as_os_str() == "-" {
        return io::read_to_string(io::stdin()).map_err(|e| format!("reading stdin: {e}"));
    }
    std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))
}

fn visa(command: VisaCommand) -> Result<String, String> {
    use gpufp::visa::{asm, assign, encode, exec, state::State};
    match command {
        VisaCommand::Run {
            file,
            sets,
            prints,
            grf,
            exec_mask,
            cr0,
        } => {
            let text = read_file(&file)?;
            let program =
                asm::parse_program(&text, grf).map_err(|e| format!("{}: {e}", file.display()))?;
            let mut state = State::new(grf)?;
            state.exec_mask = exec_mask.unwrap_or(state.exec_mask);
            state.cr0 = cr0.unwrap_or(state.cr0);
            for (line, d) in &program.decls {
                state
                    .declare(d)
                    .map_err(|e| format!("{}: line {line}: {e}", file.display()))?;
            }
            for (line, d) in &program.addr_decls {
                state
                    .declare_address(d)
                    .map_err(|e| format!("{}: line {line}: {e}", file.display()))?;
            }
            for set in &sets {
                assign::set(&mut state, set).map_err(|e| format!("--set {set}: {e}"))?;
            }
            for (line, i) in &program.instrs {
                exec::execute(i, &mut state, &Policies::default())
                    .map_err(|e| format!("{}: line {line}: {e}", file.display()))?;
            }
            if prints.is_empty() {
                return assign::show_all(&state);
            }
            prints
                .iter()
                .map(|name| assign::show(&state, name))
                .collect()
        }
        VisaCommand::Asm { file, grf } => {
            let program = asm::parse_program(&read_file(&file)?, grf)
                .map_err(|e| format!("{}: {e}", file.display()))?;
            let mut out = String::new();
            for (line, i) in &program.instrs {
                let bytes = encode::encode(i)
                    .map_err(|e| format!("{}: line {line}: {e}", file.display()))?;
                out += &format!("{}\n", encode::to_hex(&bytes));
            }
            Ok(out)
        }
        VisaCommand::Disasm { hex } => {
            let bytes = encode::from_hex(&hex.join(" "))?;
            let mut out = String::new();
            let mut at = 0;
            while at < bytes.len() {
                let (i, n) = encode::decode(&bytes[at..])
                    .map_err(|e| format!("instruction at byte {at}: {e}"))?;
                out += &format!("{i}\n");
                at += n;
            }
            Ok(out)
        }
    }
}

/// `gpufp man [SUBCOMMAND]`: the manual page of the command or of one subcommand.
fn man(subcommand: Option<&str>) -> Result<String, String> {
    use clap::CommandFactory;
    let cli = Cli::command();
    let cmd = match subcommand {
        None => cli,
        Some(name) => {
            let sub = cli
                .find_subcommand(name)
                .ok_or_else(|| format!("`{name}` is not a subcommand of gpufp"))?;
            sub.clone()
                .name(format!("gpufp-{name}"))
                .version(cli.get_version().unwrap_or_default().to_string())
        }
    };
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut page)
        .map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&page).into_owned())
}

/// `gpufp list`: the catalog of valid instructions, `INSTR OPERANDS` per line.
fn list(at: Where, opcode: Option<&str>) -> Result<String, String> {
    use gpufp::ptx::{catalog, catalog_of, Opcode};
    let all = match opcode {
        None => catalog(at.target, at.ptx),
        Some(name) => {
            let o = Opcode::from_name(name)
                .ok_or_else(|| format!("unknown floating-point opcode `{name}`"))?;
            catalog_of(o, at.target, at.ptx)
        }
    };
    Ok(all.iter().map(|i| format!("{i} {}\n", i.inputs)).collect())
}

fn parse_target(s: &str) -> Result<Target, String> {
    s.parse()
}

fn parse_ptx(s: &str) -> Result<PtxVersion, String> {
    s.parse()
}

/// Parses and validates `text` with `sources` source operands. Errors name the byte column.
fn prepare(text: &str, sources: usize, opts: &Options) -> Result<Prepared, (usize, String)> {
    let opts = Options {
        operands: Some(sources),
        ..opts.clone()
    };
    Prepared::new(text, &opts).map_err(|e| match e {
        gpufp::front::Error::Instr { column, message } => (column, message),
        // A whole instruction that is not valid is named at its first column.
        e => (0, e.to_string()),
    })
}

fn eval(text: &str, operands: &[String], opts: &Options) -> Result<String, String> {
    let p = prepare(text, operands.len(), opts)
        .map_err(|(col, e)| format!("column {}: {e}", col + 1))?;
    let bits = p.parse_operands(operands).map_err(|e| e.to_string())?;
    Ok(p.explain(&bits).map_err(|e| e.to_string())?.to_string())
}

/// An instruction prepared for a batch, shared by its lines, or the error (with its column)
/// every line using it gets.
type Ready = Result<Rc<Prepared>, (usize, String)>;

/// The instructions a batch has seen, by spelling and operand count; the last one is checked
/// first since batches usually repeat one instruction.
#[derive(Default)]
struct Seen {
    last: Option<(String, usize, Ready)>,
    all: HashMap<(String, usize), Ready>,
}

impl Seen {
    fn get(&mut self, text: &str, n: usize, opts: &Options) -> Ready {
        if let Some((t, k, r)) = &self.last {
            if t == text && *k == n {
                return r.clone();
            }
        }
        let key = (text.to_string(), n);
        let r = self
            .all
            .entry(key)
            .or_insert_with(|| prepare(text, n, opts).map(Rc::new))
            .clone();
        self.last = Some((text.to_string(), n, r.clone()));
        r
    }
}

/// A batch line ready to evaluate: the instruction, its operands, and the column errors name.
struct Case {
    ready: Rc<Prepared>,
    bits: [u64; 3],
    n: usize,
    column: usize,
}

/// A parsed batch line, or its error with the byte column.
type Parsed = Result<Case, (usize, String)>;

/// Parses one batch line; the error carries the byte column.
fn batch_line(line: &str, opts: &Options, seen: &mut Seen) -> Parsed {
    let mut words = line.split([' ', '\t']).filter(|w| !w.is_empty());
    let instr_text = words.next().unwrap_or_default();
    let mut operands = [""; 3];
    let mut n = 0;
    for w in words {
        if n == operands.len() {
            return Err((col(line, w), "too many operands (at most 3)".into()));
        }
        operands[n] = w;
        n += 1;
    }
    let ready = seen
        .get(instr_text, n, opts)
        .map_err(|(c, e)| (col(line, instr_text) + c, e))?;
    let mut bits = [0u64; 3];
    for k in 0..n {
        bits[k] = ready
            .parse_operand(k, operands[k])
            .map_err(|e| (col(line, operands[k]), e.to_string()))?;
    }
    Ok(Case {
        ready,
        bits,
        n,
        column: col(line, instr_text),
    })
}

/// The byte offset of `word` in `line` (`word` is a slice of it).
fn col(line: &str, word: &str) -> usize {
    word.as_ptr() as usize - line.as_ptr() as usize
}

/// Lines evaluated together: runs of one instruction go through `fast::eval_slice`.
const BATCH_BLOCK: usize = 4096;

/// Evaluates and writes the pending lines (line number, parsed case or error) in order.
fn batch_flush(pending: &mut Vec<(usize, Parsed)>, out: &mut dyn Write) -> io::Result<bool> {
    let mut all_ok = true;
    let mut k = 0;
    while k < pending.len() {
        let first = match &pending[k].1 {
            Err((column, e)) => {
                all_ok = false;
                writeln!(
                    out,
                    "error: line {}, column {}: {e}",
                    pending[k].0,
                    column + 1
                )?;
                k += 1;
                continue;
            }
            Ok(case) => case,
        };
        let same = |p: &(usize, Parsed)| {
            matches!(&p.1, Ok(c) if c.n == first.n
                && c.ready.effective() == first.ready.effective()
                && c.ready.ctx == first.ready.ctx)
        };
        let run = pending[k..].iter().take_while(|p| same(p)).count();
        let cases: Vec<&Case> = pending[k..k + run]
            .iter()
            .filter_map(|p| p.1.as_ref().ok())
            .collect();
        let cols: Vec<Vec<u64>> = (0..first.n)
            .map(|j| cases.iter().map(|c| c.bits[j]).collect())
            .collect();
        let ops: Vec<&[u64]> = cols.iter().map(Vec::as_slice).collect();
        let mut results = vec![0u64; run];
        let fast = first.ready.eval_slice(&ops, &mut results);
        for (j, c) in cases.iter().enumerate() {
            // On an error, every line of the run is evaluated on its own for its own message.
            let r = match fast {
                Ok(()) => Ok(results[j]),
                Err(_) => c.ready.eval(&c.bits[..c.n]),
            };
            match r {
                Ok(d) => writeln!(out, "{}", c.ready.result_text(d))?,
                Err(e) => {
                    all_ok = false;
                    writeln!(
                        out,
                        "error: line {}, column {}: {e}",
                        pending[k + j].0,
                        c.column + 1
                    )?;
                }
            }
        }
        k += run;
    }
    pending.clear();
    Ok(all_ok)
}

fn batch(opts: &Options, input: &mut dyn BufRead) -> io::Result<bool> {
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut seen = Seen::default();
    let mut all_ok = true;
    let mut line = String::new();
    let mut number = 0usize;
    let mut pending = Vec::with_capacity(BATCH_BLOCK);
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        number += 1;
        let text = line.trim_end_matches(['\n', '\r']);
        let trimmed = text.trim_start_matches([' ', '\t']);
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        pending.push((number, batch_line(text, opts, &mut seen)));
        if pending.len() == BATCH_BLOCK {
            all_ok &= batch_flush(&mut pending, &mut out)?;
        }
    }
    all_ok &= batch_flush(&mut pending, &mut out)?;
    out.flush()?;
    Ok(all_ok)
}

fn parse(at: Where, operands: Option<u8>, text: &str) -> Result<String, String> {
    let mut i = ptx::parse_instr(text).map_err(|e| {
        format!(
            "{text}\n{}^ {e}",
            " ".repeat(e.span.start + "error: ".len())
        )
    })?;
    if let Some(n) = operands {
        i.inputs = n;
    }
    let checked = ptx::validate(&i, at.target, at.ptx).map_err(|e| e.0.join("\n"))?;
    let ty = format!(".{} ({} bits)", i.ty.name(), i.ty.bits());
    let dest = if matches!(i.opcode, Opcode::Testp(_)) {
        ".pred".to_string()
    } else {
        ty.clone()
    };
    let srcs = ["a", "b", "c"][..usize::from(i.inputs).min(3)].join(", ");
    let mut out = format!("{i}\noperands: d: {dest}; {srcs}: {ty}\n");
    if checked.effective != i {
        out += &format!("means: {}\n", checked.effective);
    }
    out += &format!(
        "requires: {}, PTX ISA {}\n",
        checked.min_target, checked.min_ptx
    );
    for n in &checked.needs {
        out += &format!("  {}: sm_{}, PTX ISA {}\n", n.feature, n.sm, n.ptx);
    }
    for w in &checked.warnings {
        out += &format!("warning: {w}\n");
    }
    Ok(out)
}

/// `value` as one line of JSON; exit status 1 unless `ok`.
fn print_json(value: &impl serde::Serialize, ok: bool) -> ExitCode {
    match serde_json::to_string(value) {
        Ok(text) => {
            println!("{text}");
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => report(Err(e.to_string())),
    }
}

fn report(r: Result<String, String>) -> ExitCode {
    match r {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse_from(hoist_options(std::env::args_os().collect()));
    if let Err(e) = gpufp_dispatch::cap() {
        return report(Err(e));
    }
    match cli.command {
        Command::Eval {
            at,
            instr,
            operands,
            model,
            json,
        } => match model.options(at) {
            Err(e) => report(Err(e)),
            Ok(opts) if json => {
                let e = gpufp::report::Evaluation::of(&instr, &operands, &opts);
                print_json(&e, e.ok)
            }
            Ok(opts) => report(eval(&instr, &operands, &opts)),
        },
        Command::FitSfu {
            function,
            capture,
            output,
        } => report(sfu::fit_sfu(&function, &capture, &output)),
        Command::Parse {
            at,
            operands,
            instr,
            json: true,
        } => {
            let opts = Options {
                target: at.target,
                ptx: at.ptx,
                operands: operands.map(usize::from),
                ..Options::default()
            };
            let c = gpufp::report::Check::of(&instr, &opts);
            print_json(&c, c.ok)
        }
        Command::Parse {
            at,
            operands,
            instr,
            ..
        } => report(parse(at, operands, &instr)),
        Command::Visa { command } => report(visa(command)),
        Command::List { at, opcode } => report(list(at, opcode.as_deref())),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), "gpufp", &mut io::stdout());
            ExitCode::SUCCESS
        }
        Command::Man { subcommand } => report(man(subcommand.as_deref())),
        Command::Gen(a) => vectors::gen(a),
        Command::Check(a) => vectors::check(a),
        Command::Sweep(a) => sweep::sweep(a),
        Command::SweepMerge(a) => sweep::merge(a),
        Command::Bench(a) => bench::bench(a),
        Command::Run {
            file,
            target,
            sets,
            mems,
            trace,
        } => report(run::run(&file, target, &sets, &mems, trace)),
        Command::Batch { at, file, model } => {
            let opts = match model.options(at) {
                Ok(opts) => opts,
                Err(e) => return report(Err(e)),
            };
            let result = match file.as_ref().filter(|p| p.as_os_str() != "-") {
                Some(path) => {
                    std::fs::File::open(path).and_then(|f| batch(&opts, &mut io::BufReader::new(f)))
                }
                None => batch(&opts, &mut io::stdin().lock()),
            };
            match result {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::FAILURE,
                Err(e) => {
                    let name = file.map_or("stdin".to_string(), |p| p.display().to_string());
                    eprintln!("error: reading {name}: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}
