//! The front door: from an instruction's text and its operands' literals to the result and the
//! explanation of it, as plain data.
//!
//! Every front-end goes through here: the `gpufp` command, the Python package, the C library and
//! the web page. They render what this module returns and never repeat its work: parsing the
//! instruction, choosing its form by the number of operands, validating it for a target and PTX
//! ISA version, selecting policies, parsing operand literals, evaluating (one case or arrays), and
//! explaining a result (the effective instruction, warnings, the rules that fired, each lane's
//! guarantee, and the result under each alternative of every unverified policy).

use crate::fast::{self, SliceError};
use crate::mufu::CoreRef;
use crate::policy::Policies;
use crate::ptx::complete::{self, Completion};
use crate::ptx::guarantee::{self, Guarantee, Verdict};
use crate::ptx::value::{format_value, from_f64, parse_value};
use crate::ptx::{
    self, Checked, Context, EvalError, Instr, Note, Notes, Opcode, PtxVersion, Target,
};
use crate::vectors::{self, Level};
use core::fmt;

/// Where and how an instruction is evaluated.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The target (`sm_XX`); `None`: the lowest `sm_20` or later one that has the instruction.
    pub target: Option<Target>,
    /// The PTX ISA version; `None`: the newest.
    pub ptx: Option<PtxVersion>,
    /// The number of source operands; `None`: the opcode's usual number. Only `min`/`max` have
    /// two forms (2 or 3 operands).
    pub operands: Option<usize>,
    /// The policies in force (`Policies::default()` is the model's decision).
    pub policies: Policies,
    /// The special-function-unit core behind `.approx` instructions.
    pub core: CoreRef,
}

impl Options {
    /// Options from text, as a binding receives them: a target (`"sm_80"`), a PTX ISA version
    /// (`"8.0"`), the operand count, and policy selections by name and value.
    pub fn parse<'a>(
        target: Option<&str>,
        ptx: Option<&str>,
        operands: Option<usize>,
        policies: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Options, Error> {
        let mut opts = Options {
            target: target
                .map(str::parse)
                .transpose()
                .map_err(|e| Error::Options(format!("target: {e}")))?,
            ptx: ptx
                .map(str::parse)
                .transpose()
                .map_err(|e| Error::Options(format!("ptx: {e}")))?,
            operands,
            ..Options::default()
        };
        for (name, value) in policies {
            opts = opts.policy(name, value)?;
        }
        Ok(opts)
    }

    /// Selects a policy written `NAME=VALUE`, as the command line's `--policy` and the web
    /// page take it.
    pub fn select(self, selection: &str) -> Result<Options, Error> {
        let (name, value) = selection
            .split_once('=')
            .ok_or_else(|| Error::Policy("expected NAME=VALUE".into()))?;
        self.policy(name.trim(), value.trim())
    }

    /// Selects `value` for the policy `name` ([`Policies::set`]).
    pub fn policy(mut self, name: &str, value: &str) -> Result<Options, Error> {
        self.policies.set(name, value).map_err(Error::Policy)?;
        Ok(self)
    }
}

/// What is wrong, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The instruction text does not parse: the byte offset of what is wrong, and the message.
    Instr { column: usize, message: String },
    /// The instruction parses but is not valid: for the target, the PTX ISA version, or the
    /// number of operands.
    Invalid(String),
    /// Source operand `index` (0-based) is not a value of the instruction's type.
    Operand { index: usize, message: String },
    /// A policy selection names no policy or no value of it.
    Policy(String),
    /// A target or PTX ISA version that does not parse.
    Options(String),
    /// The instruction did not evaluate on these operands.
    Eval(EvalError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Instr { column, message } => write!(f, "column {}: {message}", column + 1),
            Error::Operand { index, message } => write!(f, "operand {}: {message}", index + 1),
            Error::Invalid(m) | Error::Policy(m) | Error::Options(m) => f.write_str(m),
            Error::Eval(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// The message with the instruction `text` it is about, as front-ends report it:
    /// ``"`add.foo.f32`, column 4: unknown modifier `.foo`"``, ``"`min.NaN.f32`: Feature ..."``.
    pub fn describe(&self, text: &str) -> String {
        match self {
            Error::Instr { .. } => format!("`{text}`, {self}"),
            Error::Invalid(_) => format!("`{text}`: {self}"),
            _ => self.to_string(),
        }
    }
}

impl From<EvalError> for Error {
    fn from(e: EvalError) -> Self {
        Error::Eval(e)
    }
}

/// An instruction parsed and validated once, ready to evaluate any number of times.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prepared {
    /// The instruction as written (modifiers in the manual's order when printed).
    pub instr: Instr,
    /// Its requirements, warnings, and what it means ([`Checked::effective`]).
    pub checked: Checked,
    /// The target, policies and MUFU core it is evaluated with.
    pub ctx: Context,
}

impl Prepared {
    /// Parses and validates `text` with the options' number of source operands.
    pub fn new(text: &str, opts: &Options) -> Result<Prepared, Error> {
        let instr = ptx::parse_instr(text).map_err(|e| Error::Instr {
            column: e.span.start,
            message: e.message,
        })?;
        Prepared::from_instr(instr, opts)
    }

    /// Validates a parsed instruction with the options' number of source operands.
    pub fn from_instr(mut instr: Instr, opts: &Options) -> Result<Prepared, Error> {
        if let Some(n) = opts.operands {
            match instr.opcode {
                Opcode::Min | Opcode::Max if n == 2 || n == 3 => instr.inputs = n as u8,
                o if n != usize::from(o.default_inputs()) => {
                    return Err(Error::Invalid(format!(
                        "`{instr}` takes {} operand(s), got {n}",
                        o.default_inputs()
                    )));
                }
                _ => {}
            }
        }
        let checked = ptx::validate(&instr, opts.target, opts.ptx)
            .map_err(|e| Error::Invalid(e.0.join("; ")))?;
        let ctx = Context {
            target: Some(checked.default_target),
            policies: opts.policies,
            core: opts.core.clone(),
        };
        Ok(Prepared {
            instr,
            checked,
            ctx,
        })
    }

    /// The instruction the hardware runs: the same, or the legacy default it stands for.
    pub fn effective(&self) -> &Instr {
        &self.checked.effective
    }

    /// The number of source operands.
    pub fn inputs(&self) -> usize {
        usize::from(self.instr.inputs)
    }

    /// The width in bits of each source operand (and of the result, but for `testp`).
    pub fn width(&self) -> u32 {
        self.instr.ty.bits()
    }

    /// Whether the result is a predicate (`testp`), 0 or 1, rather than a value of the type.
    pub fn is_predicate(&self) -> bool {
        matches!(self.instr.opcode, Opcode::Testp(_))
    }

    /// Source operand `index` from its text: `0x` bits of the full width, an `0f`/`0d` literal, a
    /// decimal number, or `{lane0, lane1}` for a packed type (lanes in any of those forms).
    pub fn parse_operand(&self, index: usize, text: &str) -> Result<u64, Error> {
        parse_value(text, self.instr.ty).map_err(|message| Error::Operand { index, message })
    }

    /// Every source operand from its text; the count must be the instruction's.
    pub fn parse_operands<S: AsRef<str>>(&self, texts: &[S]) -> Result<Vec<u64>, Error> {
        self.check_count(texts.len())?;
        texts
            .iter()
            .enumerate()
            .map(|(k, t)| self.parse_operand(k, t.as_ref()))
            .collect()
    }

    /// Source operand `index` from a host `f64` value (its bits), converted to the operand's
    /// lane type as IEEE 754 convertFormat does, to nearest even, a NaN keeping its sign and the
    /// top of its payload, quieted ([`from_f64`]). A packed operand gets the value in both lanes.
    pub fn operand_from_f64(&self, bits: u64) -> u64 {
        from_f64(bits, self.instr.ty)
    }

    fn check_count(&self, n: usize) -> Result<(), Error> {
        if n == self.inputs() {
            return Ok(());
        }
        Err(Error::Eval(EvalError::Operands(format!(
            "`{}` takes {} operand(s), got {n}",
            self.instr,
            self.inputs()
        ))))
    }

    /// The result bits for one case.
    pub fn eval(&self, ops: &[u64]) -> Result<u64, Error> {
        Ok(ptx::eval(self.effective(), ops, &self.ctx)?)
    }

    /// Every element's result ([`fast::eval_slice`]): one operand slice per source operand.
    pub fn eval_slice(&self, ops: &[&[u64]], out: &mut [u64]) -> Result<(), SliceError> {
        fast::eval_slice(self.effective(), ops, &self.ctx, out)
    }

    /// Every element's result over arrays of machine words: operands of the instruction's width
    /// (`u16`, `u32` or `u64`, lane 0 in the low bits), results of the same width (`testp`: 0 or
    /// 1), or one byte (`u8`, `bool`) for `testp`'s predicate. An operand of length 1 stands for
    /// every element. The words go as they are to [`fast::eval_slice`] (`u64`) or to the AVX-512
    /// kernels ([`fast::eval_words_simd`]), else widened block by block, on up to `threads`
    /// threads (each on a contiguous part of at least [`MIN_PART`] elements). On elements that do
    /// not evaluate, the lowest such index is reported; other results may be partly written.
    pub fn eval_words<T: Word, R: Word>(
        &self,
        ops: &[&[T]],
        out: &mut [R],
        threads: usize,
    ) -> Result<(), SliceError> {
        let width = self.width();
        if T::BITS != width {
            return Err(SliceError::Shape(format!(
                "`{}` takes {width}-bit operands, got {}-bit words",
                self.instr,
                T::BITS
            )));
        }
        if R::BITS != width && !(self.is_predicate() && R::BITS == 8) {
            return Err(SliceError::Shape(format!(
                "`{}` gives {width}-bit results, got {}-bit words to hold them",
                self.instr,
                R::BITS
            )));
        }
        if ops.len() != self.inputs() {
            return Err(SliceError::Shape(format!(
                "`{}` takes {} operand(s), got {}",
                self.instr,
                self.inputs(),
                ops.len()
            )));
        }
        if let Some((k, s)) = ops
            .iter()
            .enumerate()
            .find(|(_, s)| s.len() != out.len() && s.len() != 1)
        {
            return Err(SliceError::Shape(format!(
                "operand {} has {} elements for {} results",
                k + 1,
                s.len(),
                out.len()
            )));
        }
        let part =
            (out.len().div_ceil(threads.max(1)).div_ceil(WORD_BLOCK) * WORD_BLOCK).max(MIN_PART);
        if part >= out.len() {
            return self.words_part(ops, out, 0);
        }
        let results: Vec<Result<(), SliceError>> = std::thread::scope(|scope| {
            let workers: Vec<_> = out
                .chunks_mut(part)
                .enumerate()
                .map(|(n, chunk)| scope.spawn(move || self.words_part(ops, chunk, n * part)))
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        results.into_iter().collect()
    }

    /// The elements `start..start + out.len()` of [`Prepared::eval_words`]: the words as they are
    /// where a path takes them, else widened block by block.
    fn words_part<T: Word, R: Word>(
        &self,
        ops: &[&[T]],
        out: &mut [R],
        start: usize,
    ) -> Result<(), SliceError> {
        let len = out.len();
        // Operands are whole (all elements) or of length 1 (every element): this part of the
        // whole ones, as words of type `W`, or `None`.
        fn part<'s, T, W: 's>(
            ops: &[&'s [T]],
            view: impl Fn(&'s [T]) -> Option<&'s [W]>,
            start: usize,
            len: usize,
        ) -> Option<Vec<&'s [W]>> {
            ops.iter()
                .map(|s| {
                    let s = view(s).filter(|s| s.len() != 1 || (start == 0 && len == 1))?;
                    Some(&s[start..start + len])
                })
                .collect()
        }
        let offset = |e: SliceError| e.offset(start);
        // The words as they are: u64 for the slice path, u16 and u32 for AVX-512 kernels.
        if let Some(out) = R::as_u64_mut(out) {
            if let Some(ops) = part(ops, T::as_u64, start, len) {
                return self.eval_slice(&ops, out).map_err(offset);
            }
            return self.words_blocks(ops, out, start);
        }
        if let (Some(out), Some(ops)) = (R::as_u32_mut(out), part(ops, T::as_u32, start, len)) {
            if let Some(r) = fast::eval_words_simd(self.effective(), &ops, &self.ctx, out) {
                return r.map_err(offset);
            }
        }
        if let (Some(out), Some(ops)) = (R::as_u16_mut(out), part(ops, T::as_u16, start, len)) {
            if let Some(r) = fast::eval_words_simd(self.effective(), &ops, &self.ctx, out) {
                return r.map_err(offset);
            }
        }
        self.words_blocks(ops, out, start)
    }

    /// The elements `start..start + out.len()` of [`Prepared::eval_words`], widened to `u64`
    /// block by block for [`Prepared::eval_slice`].
    fn words_blocks<T: Word, R: Word>(
        &self,
        ops: &[&[T]],
        out: &mut [R],
        start: usize,
    ) -> Result<(), SliceError> {
        let mut bufs = [[0u64; WORD_BLOCK]; 3];
        let mut res = [0u64; WORD_BLOCK];
        let level = fast::detected();
        for (n, chunk) in out.chunks_mut(WORD_BLOCK).enumerate() {
            let at = start + n * WORD_BLOCK;
            let len = chunk.len();
            for (buf, s) in bufs.iter_mut().zip(ops) {
                match s {
                    [x] => buf[..len].fill(x.to_u64()),
                    _ => gpufp_dispatch::run_at(
                        level,
                        Widen {
                            from: &s[at..at + len],
                            to: &mut buf[..len],
                        },
                    ),
                }
            }
            let [a, b, c] = &bufs;
            let views: [&[u64]; 3] = [&a[..len], &b[..len], &c[..len]];
            self.eval_slice(&views[..ops.len()], &mut res[..len])
                .map_err(|e| e.offset(at))?;
            gpufp_dispatch::run_at(
                level,
                Narrow {
                    from: &res[..len],
                    to: chunk,
                },
            );
        }
        Ok(())
    }

    /// A result as the command line prints it: `0x` bits of the type's width, or `0`/`1` for
    /// `testp`.
    pub fn result_text(&self, bits: u64) -> String {
        if self.is_predicate() {
            bits.to_string()
        } else {
            bits_text(bits, self.width())
        }
    }

    /// A value of the instruction's type (a source operand, or a result but for `testp`'s)
    /// lane by lane, lane 0 first: each lane's bits and decoded value.
    pub fn lanes(&self, bits: u64) -> Vec<LaneValue> {
        let lane_ty = self.instr.ty.lane();
        let w = lane_ty.bits();
        let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
        (0..self.instr.ty.lanes())
            .map(|k| {
                let bits = (bits >> (k * w)) & mask;
                LaneValue {
                    bits,
                    value: format_value(bits, lane_ty),
                }
            })
            .collect()
    }

    /// How the instruction's values divide into lanes and fields.
    pub fn layout(&self) -> Layout {
        let ty = self.instr.ty;
        let bits = ty.lane().bits();
        let exponent = ty.exponent_bits();
        Layout {
            lanes: ty.lanes(),
            bits,
            exponent,
            fraction: bits - 1 - exponent,
        }
    }

    /// The result for one case with everything that decided it.
    pub fn explain(&self, ops: &[u64]) -> Result<Explanation, Error> {
        self.check_count(ops.len())?;
        let mut notes = Notes::default();
        let result = ptx::eval_traced(self.effective(), ops, &self.ctx, &mut notes)?;
        let guarantees = guarantee::guarantees(self.effective(), ops, &self.ctx)?;
        let mut alternatives = Vec::new();
        for (policy, value, policies) in self.ctx.policies.alternatives() {
            let ctx = Context {
                policies,
                ..self.ctx.clone()
            };
            if let Ok(other) = ptx::eval(self.effective(), ops, &ctx) {
                if other != result {
                    alternatives.push(Alternative {
                        policy,
                        value,
                        result: other,
                        result_text: self.result_text(other),
                    });
                }
            }
        }
        let lanes = if self.is_predicate() {
            Vec::new()
        } else {
            self.lanes(result)
        };
        Ok(Explanation {
            instr: self.instr.to_string(),
            effective: (self.effective() != &self.instr).then(|| self.effective().to_string()),
            operands: ops.to_vec(),
            result,
            result_text: self.result_text(result),
            value: (!self.is_predicate()).then(|| format_value(result, self.instr.ty)),
            lanes,
            warnings: self.checked.warnings.clone(),
            rules: notes.notes,
            guarantees,
            alternatives,
        })
    }

    /// Judges a result a device or another model gave for `ops`, lane by lane, against the
    /// model's bits and against the manual's guarantee.
    pub fn judge(&self, ops: &[u64], result: u64) -> Result<Vec<Verdict>, Error> {
        self.check_count(ops.len())?;
        Ok(guarantee::judge(self.effective(), ops, result, &self.ctx)?)
    }

    /// Why a judged result is not the model's: one line per differing lane with both values,
    /// the verdict and the guarantee, then the measured error where there is one; each line
    /// indented by two spaces.
    pub fn mismatch_text(&self, verdicts: &[Verdict]) -> String {
        let mut out = String::new();
        for (k, v) in verdicts.iter().enumerate().filter(|(_, v)| !v.exact) {
            let lane = if verdicts.len() > 1 {
                format!("lane {k}: ")
            } else {
                String::new()
            };
            let verdict = if v.within_spec {
                "within spec (not bit-exact)"
            } else {
                "VIOLATION"
            };
            out += &format!(
                "  {lane}result {}, model {}: {verdict}; guarantee: {}\n",
                self.lane_text(v.result),
                self.lane_text(v.model),
                v.guarantee
            );
            if !v.explanation.is_empty() {
                out += &format!("  {lane}{}\n", v.explanation);
            }
        }
        out
    }

    /// One lane's value: bits and the decoded number.
    fn lane_text(&self, bits: u64) -> String {
        if self.is_predicate() {
            return bits.to_string();
        }
        let ty = self.instr.ty.lane();
        format!(
            "{} ({})",
            bits_text(bits, ty.bits()),
            format_value(bits, ty)
        )
    }

    /// The test cases of docs/vectors.md for this instruction, in their order: each case's
    /// operands (unused ones zero) and the model's result.
    pub fn cases(
        &self,
        level: Level,
        seed: u64,
        count: Option<u64>,
    ) -> impl Iterator<Item = Result<([u64; 3], u64), Error>> + '_ {
        let n = self.inputs();
        vectors::cases(&self.instr, level, seed, count)
            .enumerate()
            .map(move |(j, ops)| {
                ptx::eval(self.effective(), &ops[..n], &self.ctx)
                    .map(|d| (ops, d))
                    .map_err(|e| Error::Eval(EvalError::Operands(format!("case {j}: {e}"))))
            })
    }
}

/// Elements converted and evaluated together by [`Prepared::eval_words`]: its buffers stay in L1.
const WORD_BLOCK: usize = 1024;

/// Elements below which [`Prepared::eval_words`] starts no thread.
pub const MIN_PART: usize = 1 << 14;

/// A machine word holding an operand's or a result's bits: `u16`, `u32`, `u64`, or a predicate
/// byte (`u8`, `bool`).
pub trait Word: Copy + Send + Sync {
    const BITS: u32;
    fn to_u64(self) -> u64;
    /// The low `BITS` bits of `x` (a predicate: whether `x` is not zero).
    fn from_u64(x: u64) -> Self;
    /// The words themselves where they are `u64`, `u32`, `u16`: no conversion is needed.
    fn as_u64(_: &[Self]) -> Option<&[u64]> {
        None
    }
    fn as_u64_mut(_: &mut [Self]) -> Option<&mut [u64]> {
        None
    }
    fn as_u32(_: &[Self]) -> Option<&[u32]> {
        None
    }
    fn as_u32_mut(_: &mut [Self]) -> Option<&mut [u32]> {
        None
    }
    fn as_u16(_: &[Self]) -> Option<&[u16]> {
        None
    }
    fn as_u16_mut(_: &mut [Self]) -> Option<&mut [u16]> {
        None
    }
}

impl Word for u64 {
    const BITS: u32 = 64;
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self
    }
    #[inline(always)]
    fn from_u64(x: u64) -> Self {
        x
    }
    fn as_u64(s: &[Self]) -> Option<&[u64]> {
        Some(s)
    }
    fn as_u64_mut(s: &mut [Self]) -> Option<&mut [u64]> {
        Some(s)
    }
}

macro_rules! word {
    ($t:ty $(, $as:ident, $as_mut:ident)?) => {
        impl Word for $t {
            const BITS: u32 = <$t>::BITS;
            #[inline(always)]
            fn to_u64(self) -> u64 {
                u64::from(self)
            }
            #[inline(always)]
            fn from_u64(x: u64) -> Self {
                x as $t
            }
            $(
                fn $as(s: &[Self]) -> Option<&[Self]> {
                    Some(s)
                }
                fn $as_mut(s: &mut [Self]) -> Option<&mut [Self]> {
                    Some(s)
                }
            )?
        }
    };
}

word!(u8);
word!(u16, as_u16, as_u16_mut);
word!(u32, as_u32, as_u32_mut);

impl Word for bool {
    const BITS: u32 = 8;
    #[inline(always)]
    fn to_u64(self) -> u64 {
        u64::from(self)
    }
    #[inline(always)]
    fn from_u64(x: u64) -> Self {
        x != 0
    }
}

/// Words widened to `u64`, compiled per SIMD level (the loop vectorizes to the level's width).
struct Widen<'a, T> {
    from: &'a [T],
    to: &'a mut [u64],
}

impl<T: Word> gpufp_dispatch::Job for Widen<'_, T> {
    type Output = ();
    #[inline(always)]
    fn run<const HW_FMA: bool>(self) {
        for (d, s) in self.to.iter_mut().zip(self.from) {
            *d = s.to_u64();
        }
    }
}

/// `u64` results narrowed to words, compiled per SIMD level.
struct Narrow<'a, R> {
    from: &'a [u64],
    to: &'a mut [R],
}

impl<R: Word> gpufp_dispatch::Job for Narrow<'_, R> {
    type Output = ();
    #[inline(always)]
    fn run<const HW_FMA: bool>(self) {
        for (d, s) in self.to.iter_mut().zip(self.from) {
            *d = R::from_u64(*s);
        }
    }
}

/// `0x` and the bits, zero-padded to `width` bits.
pub fn bits_text(bits: u64, width: u32) -> String {
    format!("0x{bits:0w$x}", w = (width / 4) as usize)
}

/// How a value of an instruction's type divides: lanes (lane 0 in the low bits), each a sign
/// bit (the top one), an exponent field and a fraction field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub lanes: u32,
    /// The bits of one lane.
    pub bits: u32,
    pub exponent: u32,
    pub fraction: u32,
}

/// What may come next in instruction text typed so far, for the options' target and PTX ISA
/// version ([`complete::complete`]).
pub fn complete(text: &str, opts: &Options) -> Completion {
    complete::complete(text, opts.target, opts.ptx)
}

/// One lane of a value: its bits and its decoded value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneValue {
    pub bits: u64,
    pub value: String,
}

/// The result under another value of one unverified policy, where it differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alternative {
    /// The policy's name (docs/semantics.md).
    pub policy: &'static str,
    /// The alternative value.
    pub value: String,
    pub result: u64,
    pub result_text: String,
}

/// A result and everything that decided it. `Display` renders it as `gpufp eval` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The instruction as written, in canonical spelling.
    pub instr: String,
    /// The instruction it stands for, when that differs (legacy defaults).
    pub effective: Option<String>,
    /// The source operands' bits.
    pub operands: Vec<u64>,
    /// The result's bits (0 or 1 for `testp`).
    pub result: u64,
    /// The result as the command line prints it.
    pub result_text: String,
    /// The decoded value (`[lane0, lane1]` for packed types); `None` for `testp`.
    pub value: Option<String>,
    /// Each lane's bits and value, lane 0 first; empty for `testp`.
    pub lanes: Vec<LaneValue>,
    /// Accepted, but worth knowing (ptxas quirks, legacy defaults).
    pub warnings: Vec<String>,
    /// The rules that decided the result, in the order they applied, with their lanes.
    pub rules: Vec<Note>,
    /// What the manual guarantees about each lane's result.
    pub guarantees: Vec<Guarantee>,
    /// The result under each single-policy alternative that changes it.
    pub alternatives: Vec<Alternative>,
}

impl Explanation {
    /// Whether the manual determines every bit of every lane.
    pub fn exact(&self) -> bool {
        self.guarantees.iter().all(|g| *g == Guarantee::Exact)
    }
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.result_text)?;
        if let Some(v) = &self.value {
            writeln!(f, "value: {v}")?;
        }
        if let Some(e) = &self.effective {
            writeln!(f, "means: {e}")?;
        }
        for w in &self.warnings {
            writeln!(f, "warning: {w}")?;
        }
        for n in &self.rules {
            writeln!(f, "rule: {n}")?;
        }
        // Only where a bound or an open NaN is involved: "exact" is the rule.
        if !self.exact() {
            for (k, g) in self.guarantees.iter().enumerate() {
                match self.guarantees.len() {
                    1 => writeln!(f, "guarantee: {g}")?,
                    _ => writeln!(f, "guarantee: lane {k}: {g}")?,
                }
            }
        }
        for a in &self.alternatives {
            writeln!(
                f,
                "policy: depends on unverified policy `{}`: with `{}` the result is {}",
                a.policy, a.value, a.result_text
            )?;
        }
        Ok(())
    }
}

/// Parses `text` with the options and evaluates it on operand literals: `gpufp eval` in one call.
/// The number of operands picks the form ([`Options::operands`] is overridden).
pub fn eval_text<S: AsRef<str>>(
    text: &str,
    operands: &[S],
    opts: &Options,
) -> Result<Explanation, Error> {
    let opts = Options {
        operands: Some(operands.len()),
        ..opts.clone()
    };
    let p = Prepared::new(text, &opts)?;
    let ops = p.parse_operands(operands)?;
    p.explain(&ops)
}
