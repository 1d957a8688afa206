//! Running straight-line PTX snippets such as the manual's example blocks: `.reg` declarations,
//! guards, labels, comments, every floating-point instruction (through [`eval`]), and the
//! instructions the examples use around them: `mov` (with `{a, b}` pack and unpack), float `cvt`,
//! float `setp`, `selp`, and `ld`/`st` of `.global` memory.
//!
//! Registers hold bit patterns; an operand's register must have the operand's size and a
//! compatible type (PTX ISA, "Operand Type Information", paraphrased: a bit-size type is
//! compatible with every type of the same size, and integer types of one size with each other).
//! Reading a register before it is written or given with [`Machine::set`] is an error, never a
//! silent zero.

use super::cvt::{setp, CmpOp, Cvt};
use super::eval::{eval, Context};
use super::instr::{Instr, Opcode, Type};
use super::parse::{parse_instr, parse_operand, Literal, Operand};
use super::validate::{validate, PtxVersion, Target};
use super::value::{format_value, parse_value};
use crate::format::{Format, BF16, F16, F32, F64};
use crate::ieee;
use crate::policy::Policies;
use crate::round::{Round, Rounding};
use core::fmt;
use std::collections::{BTreeMap, HashMap};

/// An error and where it is (1-based line and column of the program text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for RunError {}

/// The type of a register (`.reg .TYPE`) or of an operand an instruction expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegType {
    Pred,
    B(u32),
    U(u32),
    S(u32),
    F(Type),
}

impl RegType {
    fn parse(word: &str) -> Option<RegType> {
        let int = |w: &str| match w {
            "16" => Some(16),
            "32" => Some(32),
            "64" => Some(64),
            _ => None,
        };
        if word == "pred" {
            return Some(RegType::Pred);
        }
        if let Some(t) = Type::ALL.into_iter().find(|t| t.name() == word) {
            return Some(RegType::F(t));
        }
        let mut chars = word.chars();
        let kind = chars.next()?;
        let n = int(chars.as_str())?;
        match kind {
            'b' => Some(RegType::B(n)),
            'u' => Some(RegType::U(n)),
            's' => Some(RegType::S(n)),
            _ => None,
        }
    }

    pub fn bits(self) -> u32 {
        match self {
            RegType::Pred => 1,
            RegType::B(n) | RegType::U(n) | RegType::S(n) => n,
            RegType::F(t) => t.bits(),
        }
    }

    /// PTX ISA "Operand Type Information": the same type; or the same size, where one is a
    /// bit-size type or both are integers.
    fn accepts(self, want: RegType) -> bool {
        use RegType::*;
        if self == want {
            return true;
        }
        let int = |t| matches!(t, U(_) | S(_));
        self.bits() == want.bits()
            && self != Pred
            && want != Pred
            && (matches!(self, B(_)) || matches!(want, B(_)) || (int(self) && int(want)))
    }
}

impl fmt::Display for RegType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegType::Pred => f.write_str(".pred"),
            RegType::B(n) => write!(f, ".b{n}"),
            RegType::U(n) => write!(f, ".u{n}"),
            RegType::S(n) => write!(f, ".s{n}"),
            RegType::F(t) => write!(f, ".{}", t.name()),
        }
    }
}

/// A declared register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decl {
    pub name: String,
    pub ty: RegType,
    pub line: usize,
}

/// A source operand, resolved: a register, the bits of an immediate, or `{a, b, ...}` packed
/// with the first register in the lowest bits.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Src {
    Reg(usize),
    Imm(u64),
    Pack(Vec<usize>),
}

/// `[reg]`, `[reg+offset]` or `[offset]`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Addr {
    base: Option<usize>,
    offset: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Op {
    Float {
        /// As written (for messages) and as it runs (the legacy default it stands for).
        instr: Instr,
        effective: Instr,
        ctx: Context,
        dest: usize,
        srcs: Vec<Src>,
    },
    /// `mov.TYPE`: one destination, or `{a, b, ...}` to unpack into.
    Mov {
        ty: RegType,
        dests: Vec<usize>,
        src: Src,
    },
    Cvt {
        cvt: Cvt,
        dest: usize,
        srcs: Vec<Src>,
    },
    Setp {
        op: CmpOp,
        ty: Type,
        ftz: bool,
        p: usize,
        q: Option<usize>,
        a: Src,
        b: Src,
    },
    Selp {
        ty: RegType,
        dest: usize,
        a: Src,
        b: Src,
        c: Src,
    },
    Ld {
        ty: RegType,
        dest: usize,
        addr: Addr,
    },
    St {
        ty: RegType,
        addr: Addr,
        src: Src,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Stmt {
    line: usize,
    column: usize,
    guard: Option<(bool, usize)>,
    op: Op,
}

/// A parsed, type-checked program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub decls: Vec<Decl>,
    stmts: Vec<Stmt>,
    /// Each register's index in `decls`, by name: `--set` finds a register in constant time.
    names: HashMap<String, usize>,
}

/// The program text with comments blanked out (newlines kept), so byte offsets stay valid.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            out.extend(rest[..end].chars().map(|_| ' '));
            rest = &rest[end..];
        } else if rest.starts_with("/*") {
            let end = rest[2..].find("*/").map_or(rest.len(), |e| e + 4);
            out.extend(
                rest[..end]
                    .chars()
                    .map(|c| if c == '\n' { '\n' } else { ' ' }),
            );
            rest = &rest[end..];
        } else {
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Parsing state: the text, its line starts, where its multi-byte characters continue, and the
/// declarations so far (with an index by name, so each lookup costs the same however many).
struct Parser<'a> {
    text: &'a str,
    lines: Vec<usize>,
    continuations: Vec<usize>,
    decls: Vec<Decl>,
    names: HashMap<String, usize>,
    target: Option<Target>,
    /// The module's `.version`, which instructions are validated for.
    ptx: Option<PtxVersion>,
}

type Res<T> = Result<T, RunError>;

fn is_ident(w: &str) -> bool {
    let mut c = w.chars();
    c.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '$' | '%'))
        && c.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$'))
}

impl Parser<'_> {
    /// The 1-based line and column (in characters) of byte `at`, by binary search: the bytes
    /// from the line's start less the continuation bytes of multi-byte characters among them.
    fn position(&self, at: usize) -> (usize, usize) {
        let at = at.min(self.text.len());
        let line = self.lines.partition_point(|&s| s <= at);
        let start = self.lines[line - 1];
        let before = |x: usize| self.continuations.partition_point(|&c| c < x);
        let column = at - start - (before(at) - before(start)) + 1;
        (line, column)
    }

    fn err(&self, at: usize, message: impl Into<String>) -> RunError {
        let (line, column) = self.position(at);
        RunError {
            line,
            column,
            message: message.into(),
        }
    }

    /// The register named `name` (at byte `at`).
    fn reg(&self, name: &str, at: usize) -> Res<usize> {
        if !is_ident(name) {
            return Err(self.err(at, format!("`{name}` is not a register name")));
        }
        self.names
            .get(name)
            .copied()
            .ok_or_else(|| self.err(at, format!("undeclared register `{name}`")))
    }

    /// A register operand of type `want`.
    fn typed_reg(&self, name: &str, at: usize, want: RegType) -> Res<usize> {
        let r = self.reg(name, at)?;
        let have = self.decls[r].ty;
        if !have.accepts(want) {
            let needs = match want {
                RegType::B(n) => format!("a {n}-bit register"),
                RegType::Pred => "a .pred register".to_string(),
                _ => format!("{want} or .b{}", want.bits()),
            };
            return Err(self.err(
                at,
                format!("register `{name}` is {have}; this operand needs {needs}"),
            ));
        }
        Ok(r)
    }

    /// A source operand of type `want`: a register or an immediate.
    fn src(&self, (at, text): (usize, &str), want: RegType) -> Res<Src> {
        if let Some(inner) = text.strip_prefix('{') {
            return self.pack(at, inner, want).map(Src::Pack);
        }
        let op = parse_operand(text, at..at + text.len()).map_err(|e| self.err(at, e.message))?;
        match op {
            Operand::Reg(name) => self.typed_reg(&name, at, want).map(Src::Reg),
            Operand::Imm(lit) => immediate(lit, want)
                .map(Src::Imm)
                .map_err(|e| self.err(at, e)),
        }
    }

    /// A destination register of type `want`.
    fn dest(&self, (at, text): (usize, &str), want: RegType) -> Res<usize> {
        if text.starts_with('{') || text.starts_with('[') {
            return Err(self.err(at, "the destination must be a register"));
        }
        match parse_operand(text, at..at + text.len()).map_err(|e| self.err(at, e.message))? {
            Operand::Reg(name) => self.typed_reg(&name, at, want),
            Operand::Imm(_) => Err(self.err(at, "the destination must be a register")),
        }
    }

    /// The registers of `{a, b, ...}` (text after the `{`), each a `want.bits() / n`-bit piece.
    fn pack(&self, at: usize, inner: &str, want: RegType) -> Res<Vec<usize>> {
        let inner = inner
            .strip_suffix('}')
            .ok_or_else(|| self.err(at, "expected `}` closing the vector operand"))?;
        if !matches!(want, RegType::B(_)) {
            return Err(self.err(
                at,
                format!(
                    "a `{{...}}` vector operand needs a bit-size type (.b32, .b64), not {want}"
                ),
            ));
        }
        let parts = split_commas(inner, at + 1);
        let n = parts.len() as u32;
        if !matches!(n, 2 | 4) || want.bits() / n < 16 {
            return Err(self.err(
                at,
                format!("{want} packs 2 (or for .b64, 4) registers, found {n}"),
            ));
        }
        let piece = RegType::B(want.bits() / n);
        parts
            .into_iter()
            .map(|(a, t)| {
                if t.is_empty() {
                    return Err(self.err(a, "missing register"));
                }
                self.typed_reg(t, a, piece)
            })
            .collect()
    }

    /// `[reg]`, `[reg+N]`, `[reg-N]` or `[N]`.
    fn addr(&self, (at, text): (usize, &str)) -> Res<Addr> {
        let inner = text
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .ok_or_else(|| self.err(at, "expected an address `[reg]`, `[reg+N]` or `[N]`"))?;
        let int = |t: &str, a: usize| -> Res<i64> {
            let t = t.trim();
            let v = match t.strip_prefix("0x") {
                Some(h) => i64::from_str_radix(h, 16),
                None => t.parse(),
            };
            v.map_err(|_| self.err(a, format!("`{t}` is not an address offset")))
        };
        let at = at + 1;
        if inner.trim().starts_with(|c: char| c.is_ascii_digit()) {
            return Ok(Addr {
                base: None,
                offset: int(inner, at)?,
            });
        }
        let (name, offset) = match inner.find(['+', '-']) {
            Some(k) => {
                let v = int(&inner[k + 1..], at + k + 1)?;
                (&inner[..k], if &inner[k..=k] == "-" { -v } else { v })
            }
            None => (inner, 0),
        };
        let lead = name.len() - name.trim_start().len();
        let name = name.trim();
        let base = self.reg(name, at + lead)?;
        let ty = self.decls[base].ty;
        if !matches!(
            ty,
            RegType::B(32 | 64) | RegType::U(32 | 64) | RegType::S(32 | 64)
        ) {
            return Err(self.err(
                at + lead,
                format!("address register `{name}` is {ty}; it needs .u64, .b64, .s64 or 32 bits"),
            ));
        }
        Ok(Addr {
            base: Some(base),
            offset,
        })
    }
}

/// Splits at top-level commas (not inside `{}` or `[]`): `(byte offset, trimmed text)` each.
fn split_commas(text: &str, base: usize) -> Vec<(usize, &str)> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push((start, &text[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push((start, &text[start..]));
    parts
        .into_iter()
        .map(|(s, p)| {
            let lead = p.len() - p.trim_start().len();
            (base + s + lead, p.trim())
        })
        .collect()
}

/// A scalar float `x` of format `F` as type `t`, rounded to nearest even (PTX ISA 4.5.1:
/// floating-point literals are converted to the instruction's type).
fn convert_to<F: Format>(x: F, t: Type) -> u64 {
    let r = Rounding::ieee(Round::Rn);
    match t {
        Type::F16 => ieee::convert::<F, F16>(x, r).to_bits(),
        Type::Bf16 => ieee::convert::<F, BF16>(x, r).to_bits(),
        Type::F32 => ieee::convert::<F, F32>(x, r).to_bits(),
        _ => ieee::convert::<F, F64>(x, r).to_bits(),
    }
}

/// The bits of an immediate operand of type `want`. Integers are bit patterns; `0f`/`0d` literals
/// are bits for a bit-size operand of their width and values for a float operand; decimal
/// literals are values of float operands.
fn immediate(lit: Literal, want: RegType) -> Result<u64, String> {
    let width = want.bits();
    let fits = |v: u64| {
        if width < 64 && v >> width != 0 {
            Err(format!("immediate 0x{v:x} does not fit in {want}"))
        } else {
            Ok(v)
        }
    };
    match (want, lit) {
        (RegType::Pred, _) => Err("a predicate operand cannot be an immediate".into()),
        (_, Literal::Int(v)) => fits(v),
        (RegType::F(t), _) if t.lanes() > 1 => Err(format!(
            "a .{} operand is a register or integer bits, not a floating-point literal",
            t.name()
        )),
        (RegType::F(t), Literal::F32Hex(b)) => Ok(convert_to(F32::from_bits(b.into()), t)),
        (RegType::F(t), Literal::F64Hex(b)) => Ok(convert_to(F64::from_bits(b), t)),
        (RegType::F(t), Literal::Decimal(x)) => Ok(convert_to(x, t)),
        (RegType::B(32), Literal::F32Hex(b)) => Ok(b.into()),
        (RegType::B(64), Literal::F64Hex(b)) => Ok(b),
        _ => Err(format!("this literal is not an immediate of {want}")),
    }
}

/// Parses `text` for `target` (None: each instruction's lowest target). Every instruction is
/// parsed, type-checked and validated here; errors name the line and column.
pub fn parse_program(text: &str, target: Option<Target>) -> Result<Program, RunError> {
    let clean = strip_comments(text);
    let mut lines = vec![0];
    lines.extend(clean.match_indices('\n').map(|(i, _)| i + 1));
    let mut p = Parser {
        text: &clean,
        lines,
        continuations: (clean.bytes().enumerate())
            .filter(|(_, b)| b & 0xC0 == 0x80)
            .map(|(k, _)| k)
            .collect(),
        decls: Vec::new(),
        names: HashMap::new(),
        target,
        ptx: None,
    };
    let mut stmts = Vec::new();
    let mut pos = 0;
    loop {
        pos += clean[pos..].len() - clean[pos..].trim_start().len();
        if pos >= clean.len() {
            break;
        }
        pos = labels(&p, pos)?;
        if pos >= clean.len() {
            break;
        }
        if let Some(next) = module_structure(&mut p, pos, target.is_some())? {
            pos = next;
            continue;
        }
        let end = match clean[pos..].find(';') {
            Some(e) => pos + e,
            None => {
                let t = clean[pos..].trim_end().len();
                return Err(p.err(pos + t, "expected `;` at the end of the statement"));
            }
        };
        missing_semicolon(&p, pos, end)?;
        if clean[pos..end].starts_with('.') {
            directive(&mut p, pos, end)?;
        } else if let Some(s) = statement(&p, pos, end)? {
            stmts.push(s);
        }
        pos = end + 1;
    }
    Ok(Program {
        decls: p.decls,
        stmts,
        names: p.names,
    })
}

/// What a module nvcc emits has around the straight-line code, at `pos`: the directives that end
/// with their line (`.version`, `.target`, `.address_size`, `.file`, `.loc`), a kernel's or
/// function's header up to its body's `{` (or a prototype's `;`), and the braces. `.version`
/// sets the PTX ISA version instructions are validated for; `.target` the target, unless one
/// was `given`. Returns where parsing goes on, or `None` when `pos` holds none of these.
fn module_structure(p: &mut Parser, pos: usize, given: bool) -> Res<Option<usize>> {
    let rest = &p.text[pos..];
    if rest.starts_with(['{', '}']) {
        return Ok(Some(pos + 1));
    }
    let word = rest.split_whitespace().next().unwrap_or_default();
    match word {
        ".visible" | ".weak" | ".extern" | ".entry" | ".func" => {
            // The header runs to the body's `{`, or to the `;` of a prototype, outside `(...)`.
            let mut depth = 0usize;
            for (k, c) in rest.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => depth = depth.saturating_sub(1),
                    '{' | ';' if depth == 0 => return Ok(Some(pos + k + 1)),
                    _ => {}
                }
            }
            Err(p.err(pos, format!("`{word}` header without a body `{{` or `;`")))
        }
        ".version" | ".target" | ".address_size" | ".file" | ".loc" => {
            // Only these look for the line's end, so that statements do not each scan to it.
            let line_end = pos + rest.find('\n').unwrap_or(rest.len());
            let raw = &p.text[pos + word.len()..line_end];
            let args = raw.trim();
            let at = line_end - raw.trim_start().len();
            match word {
                ".version" => p.ptx = Some(args.parse().map_err(|e: String| p.err(at, e))?),
                ".target" => {
                    let first = args.split(',').next().unwrap_or_default().trim();
                    let t: Target = first.parse().map_err(|e: String| p.err(at, e))?;
                    if !given {
                        p.target = Some(t);
                    }
                }
                ".address_size" if args != "32" && args != "64" => {
                    return Err(p.err(at, format!("`.address_size {args}`: expected 32 or 64")));
                }
                _ => {}
            }
            Ok(Some(line_end))
        }
        _ => Ok(None),
    }
}

/// Skips labels (`name:`) at `pos`.
fn labels(p: &Parser, mut pos: usize) -> Res<usize> {
    loop {
        let rest = &p.text[pos..];
        let word = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%')))
            .unwrap_or(rest.len());
        if word == 0 || !rest[word..].starts_with(':') || !is_ident(&rest[..word]) {
            return Ok(pos);
        }
        pos += word + 1;
        pos += p.text[pos..].len() - p.text[pos..].trim_start().len();
    }
}

/// A statement that runs over a line break into a line starting like an instruction or directive
/// (`add.f32`, `@p`, `.reg`) is missing its `;`.
fn missing_semicolon(p: &Parser, pos: usize, end: usize) -> Res<()> {
    let body = &p.text[pos..end];
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        let next = offset + line.len();
        if next < body.len() {
            let following = body[next..].trim_start();
            let word: String = following
                .chars()
                .take_while(|c| !c.is_whitespace())
                .collect();
            let starts_instr = following.starts_with(['@', '.'])
                || word.split_once('.').is_some_and(|(head, _)| is_ident(head));
            if starts_instr && !line.trim().is_empty() {
                let at = pos + offset + line.trim_end().len();
                return Err(p.err(at, "expected `;` at the end of the statement"));
            }
        }
        offset = next;
    }
    Ok(())
}

/// `.reg .TYPE a, b, %r<4>;` declares `a`, `b`, `%r0` ... `%r3`.
fn directive(p: &mut Parser, pos: usize, end: usize) -> Res<()> {
    let body = &p.text[pos..end];
    let mut words = body.split_whitespace();
    let first = words.next().unwrap_or_default();
    if first != ".reg" {
        return Err(p.err(
            pos,
            format!("unsupported directive `{first}` (gpufp run takes `.reg` declarations)"),
        ));
    }
    let rest_at = pos + first.len();
    let rest = &p.text[rest_at..end];
    let lead = rest.len() - rest.trim_start().len();
    let ty_word = rest.split_whitespace().next().unwrap_or("");
    let ty_at = rest_at + lead;
    let ty = ty_word
        .strip_prefix('.')
        .and_then(RegType::parse)
        .ok_or_else(|| {
            p.err(
                ty_at,
                format!("`{ty_word}` is not a register type (.pred, .b16/32/64, .u, .s, .f16, .f16x2, .bf16, .bf16x2, .f32, .f64)"),
            )
        })?;
    let names_at = ty_at + ty_word.len();
    let (line, _) = p.position(pos);
    for (at, name) in split_commas(&p.text[names_at..end], names_at) {
        let names: Vec<String> = match name.split_once('<') {
            Some((stem, count)) => {
                let n: usize = count
                    .strip_suffix('>')
                    .and_then(|c| c.parse().ok())
                    .filter(|&n| n <= 4096)
                    .ok_or_else(|| p.err(at, format!("`{name}`: expected `name<N>`")))?;
                (0..n).map(|k| format!("{stem}{k}")).collect()
            }
            None => vec![name.to_string()],
        };
        for n in names {
            if !is_ident(&n) {
                return Err(p.err(at, format!("`{n}` is not a register name")));
            }
            if p.names.contains_key(&n) {
                return Err(p.err(at, format!("register `{n}` is declared twice")));
            }
            p.names.insert(n.clone(), p.decls.len());
            p.decls.push(Decl { name: n, ty, line });
        }
    }
    Ok(())
}

/// One instruction statement `[@[!]p] opcode operands` between `pos` and the `;` at `end`.
fn statement(p: &Parser, mut pos: usize, end: usize) -> Res<Option<Stmt>> {
    let start = pos;
    let mut guard = None;
    if p.text[pos..end].starts_with('@') {
        let rest = &p.text[pos + 1..end];
        let len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (neg, name) = match rest[..len].strip_prefix('!') {
            Some(n) => (true, n),
            None => (false, &rest[..len]),
        };
        let at = pos + 1 + usize::from(neg);
        let r = p.typed_reg(name, at, RegType::Pred)?;
        guard = Some((neg, r));
        pos += 1 + len;
        pos += p.text[pos..end].len() - p.text[pos..end].trim_start().len();
    }
    let rest = &p.text[pos..end];
    if rest.trim().is_empty() {
        if guard.is_some() {
            return Err(p.err(pos, "missing instruction after the guard"));
        }
        return Ok(None);
    }
    let op_len = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let opword = &rest[..op_len];
    let operands_at = pos + op_len;
    let operands = if p.text[operands_at..end].trim().is_empty() {
        Vec::new()
    } else {
        split_commas(&p.text[operands_at..end], operands_at)
    };
    if let Some((at, _)) = operands.iter().find(|(_, t)| t.is_empty()) {
        return Err(p.err(*at, "missing operand"));
    }
    let head = opword.split('.').next().unwrap_or_default();
    // The end of a kernel's or function's straight-line body.
    if matches!(opword, "ret" | "ret.uni" | "exit") && operands.is_empty() && guard.is_none() {
        return Ok(None);
    }
    let op = match head {
        "mov" => mov(p, pos, opword, &operands)?,
        "cvt" => cvt(p, pos, opword, &operands)?,
        "setp" => setp_stmt(p, pos, opword, &operands)?,
        "selp" => selp(p, pos, opword, &operands)?,
        "ld" | "st" => ld_st(p, pos, opword, &operands)?,
        h if Opcode::from_name(h).is_some() => float(p, pos, opword, &operands)?,
        _ => {
            return Err(p.err(
                pos,
                format!(
                    "unknown or unsupported instruction `{opword}` (gpufp run takes the \
                     floating-point instructions, mov, cvt, setp, selp, ld.global, st.global)"
                ),
            ))
        }
    };
    let (line, column) = p.position(start);
    Ok(Some(Stmt {
        line,
        column,
        guard,
        op,
    }))
}

/// The modifier words after the mnemonic, each with its byte offset.
fn words(pos: usize, opword: &str) -> Vec<(usize, &str)> {
    let mut at = pos;
    opword
        .split('.')
        .map(|w| {
            let r = (at, w);
            at += w.len() + 1;
            r
        })
        .skip(1)
        .collect()
}

fn count(p: &Parser, pos: usize, name: &str, ops: &[(usize, &str)], want: &[usize]) -> Res<()> {
    if want.contains(&ops.len()) {
        return Ok(());
    }
    let want = want
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(" or ");
    Err(p.err(
        pos,
        format!("`{name}` takes {want} operands, found {}", ops.len()),
    ))
}

/// The one type word of a `mov`/`selp`/`ld`/`st`, after the modifiers `allowed` (skipped).
fn one_type(p: &Parser, pos: usize, opword: &str, allowed: &[&str]) -> Res<RegType> {
    let mut ty = None;
    for (at, w) in words(pos, opword) {
        if allowed.contains(&w) {
            continue;
        }
        match RegType::parse(w) {
            Some(t) if ty.is_none() => ty = Some(t),
            _ => {
                return Err(p.err(
                    at,
                    format!("unsupported modifier or type `.{w}` in `{opword}`"),
                ))
            }
        }
    }
    ty.ok_or_else(|| p.err(pos, format!("`{opword}` needs a type")))
}

fn float(p: &Parser, pos: usize, opword: &str, ops: &[(usize, &str)]) -> Res<Op> {
    let mut instr = parse_instr(opword).map_err(|e| p.err(pos + e.span.start, e.message))?;
    let allowed: &[usize] = match instr.opcode {
        Opcode::Min | Opcode::Max => &[3, 4],
        o => &[usize::from(o.default_inputs()) + 1][..],
    };
    count(p, pos, opword, ops, allowed)?;
    instr.inputs = (ops.len() - 1) as u8;
    let checked = validate(&instr, p.target, p.ptx).map_err(|e| p.err(pos, e.to_string()))?;
    let ty = RegType::F(instr.ty);
    let dest_ty = match instr.opcode {
        Opcode::Testp(_) => RegType::Pred,
        _ => ty,
    };
    let dest = p.dest(ops[0], dest_ty)?;
    let srcs = ops[1..].iter().map(|&o| p.src(o, ty)).collect::<Res<_>>()?;
    Ok(Op::Float {
        instr,
        effective: checked.effective,
        ctx: Context {
            target: Some(checked.default_target),
            ..Context::default()
        },
        dest,
        srcs,
    })
}

/// `mov.TYPE d, a`; `mov.b32 d, {a, b}` packs, `mov.b32 {a, b}, d` unpacks. PTX ISA `mov`: the
/// first element of `{...}` is the least significant (`d = a | (b << 16)`).
fn mov(p: &Parser, pos: usize, opword: &str, ops: &[(usize, &str)]) -> Res<Op> {
    let ty = one_type(p, pos, opword, &[])?;
    if matches!(ty, RegType::F(t) if t != Type::F32 && t != Type::F64) {
        return Err(p.err(
            pos,
            format!("`mov{ty}` does not exist; use a bit-size type"),
        ));
    }
    count(p, pos, opword, ops, &[2])?;
    let dests = match ops[0].1.strip_prefix('{') {
        Some(inner) => p.pack(ops[0].0, inner, ty)?,
        None => vec![p.dest(ops[0], ty)?],
    };
    let src = p.src(ops[1], ty)?;
    if dests.len() > 1 && matches!(src, Src::Pack(_)) {
        return Err(p.err(ops[1].0, "unpack from a register, not from `{...}`"));
    }
    Ok(Op::Mov { ty, dests, src })
}

fn cvt(p: &Parser, pos: usize, opword: &str, ops: &[(usize, &str)]) -> Res<Op> {
    let ws = words(pos, opword);
    if ws.len() < 2 {
        return Err(p.err(
            pos,
            format!("`{opword}` needs a destination and a source type"),
        ));
    }
    let (mods, types) = ws.split_at(ws.len() - 2);
    let float_type = |(at, w): (usize, &str)| {
        Type::ALL
            .into_iter()
            .find(|t| t.name() == w)
            .ok_or_else(|| {
                p.err(
                    at,
                    format!("`.{w}`: gpufp run models cvt between f16, bf16, f32 and f64"),
                )
            })
    };
    let mut c = Cvt {
        rnd: None,
        ftz: false,
        sat: false,
        relu: false,
        dtype: float_type(types[0])?,
        atype: float_type(types[1])?,
    };
    for &(at, w) in mods {
        let round = Round::ALL.into_iter().find(|r| r.ptx_name() == w);
        let dup = match (w, round) {
            (_, Some(r)) => c.rnd.replace(r).is_some(),
            ("ftz", _) => std::mem::replace(&mut c.ftz, true),
            ("sat", _) => std::mem::replace(&mut c.sat, true),
            ("relu", _) => std::mem::replace(&mut c.relu, true),
            _ => {
                return Err(p.err(
                    at,
                    format!("unsupported cvt modifier `.{w}` (gpufp run takes .rn/.rz/.rm/.rp, .ftz, .sat, .relu)"),
                ))
            }
        };
        if dup {
            return Err(p.err(at, format!("second rounding or repeated modifier `.{w}`")));
        }
    }
    c.check().map_err(|e| p.err(pos, e))?;
    if let Some(t) = p.target.filter(|t| t.sm < c.min_sm()) {
        return Err(p.err(
            pos,
            format!(
                "`{opword}` requires .target sm_{} or higher (not {t})",
                c.min_sm()
            ),
        ));
    }
    let n = if c.dtype.lanes() > 1 { 2 } else { 1 };
    count(p, pos, opword, ops, &[n + 1])?;
    let dest = p.dest(ops[0], RegType::F(c.dtype))?;
    let srcs = ops[1..]
        .iter()
        .map(|&o| p.src(o, RegType::F(c.atype)))
        .collect::<Res<_>>()?;
    Ok(Op::Cvt { cvt: c, dest, srcs })
}

/// `setp.CmpOp{.ftz}.type p[|q], a, b` on f16, bf16, f32 or f64; `q` gets the complement.
fn setp_stmt(p: &Parser, pos: usize, opword: &str, ops: &[(usize, &str)]) -> Res<Op> {
    let ws = words(pos, opword);
    let (mut op, mut ftz, mut ty) = (None, false, None);
    for &(at, w) in &ws {
        if let Some((_, c)) = CmpOp::ALL.iter().find(|(n, _)| *n == w) {
            if op.replace(*c).is_some() {
                return Err(p.err(at, "second comparison operator"));
            }
        } else if w == "ftz" && !ftz {
            ftz = true;
        } else if let Some(t) = Type::ALL
            .into_iter()
            .find(|t| t.name() == w && t.lanes() == 1)
            .filter(|_| ty.is_none())
        {
            ty = Some(t);
        } else {
            return Err(p.err(
                at,
                format!("unsupported setp modifier or type `.{w}` (gpufp run compares f16, bf16, f32, f64)"),
            ));
        }
    }
    let op = op.ok_or_else(|| p.err(pos, "setp needs a comparison operator (.eq, .lt, ...)"))?;
    let ty = ty.ok_or_else(|| p.err(pos, "setp needs a floating-point type"))?;
    count(p, pos, opword, ops, &[3])?;
    let (at, d) = ops[0];
    let (pn, qn) = match d.split_once('|') {
        Some((a, b)) => (a.trim(), Some(b.trim())),
        None => (d, None),
    };
    let pr = p.typed_reg(pn, at, RegType::Pred)?;
    let q = qn
        .map(|q| p.typed_reg(q, at + d.find('|').unwrap_or(0) + 1, RegType::Pred))
        .transpose()?;
    Ok(Op::Setp {
        op,
        ty,
        ftz,
        p: pr,
        q,
        a: p.src(ops[1], RegType::F(ty))?,
        b: p.src(ops[2], RegType::F(ty))?,
    })
}

/// `selp.TYPE d, a, b, c`: PTX ISA `selp`: `d = (c == 1) ? a : b`.
fn selp(p: &Parser, pos: usize, opword: &str, ops: &[(usize, &str)]) -> Res<Op> {
    let ty = one_type(p, pos, opword, &[])?;
    if ty == RegType::Pred {
        return Err(p.err(pos, "`selp.pred` does not exist"));
    }
    count(p, pos, opword, ops, &[4])?;
    Ok(Op::Selp {
        ty,
        dest: p.dest(ops[0], ty)?,
        a: p.src(ops[1], ty)?,
        b: p.src(ops[2], ty)?,
        c: p.src(ops[3], RegType::Pred)?,
    })
}

/// `ld.global.TYPE d, [a]` and `st.global.TYPE [a], b` (little-endian bytes).
fn ld_st(p: &Parser, pos: usize, opword: &str, ops: &[(usize, &str)]) -> Res<Op> {
    let ws = words(pos, opword);
    if ws.first().map(|w| w.1) != Some("global") {
        return Err(p.err(
            pos,
            format!(
                "`{opword}`: gpufp run models only the `.global` state space (`ld.global.b32`)"
            ),
        ));
    }
    let ty = one_type(p, pos, opword, &["global"])?;
    if matches!(ty, RegType::Pred | RegType::F(Type::F32x2)) || ty.bits() < 16 {
        return Err(p.err(pos, format!("`{opword}`: {ty} is not a memory type here")));
    }
    if let RegType::F(t) = ty {
        if t != Type::F32 && t != Type::F64 {
            return Err(p.err(
                pos,
                format!("`{opword}`: load and store .{} as .b16 or .b32", t.name()),
            ));
        }
    }
    count(p, pos, opword, ops, &[2])?;
    if opword.starts_with("ld") {
        Ok(Op::Ld {
            ty,
            dest: p.dest(ops[0], ty)?,
            addr: p.addr(ops[1])?,
        })
    } else {
        Ok(Op::St {
            ty,
            addr: p.addr(ops[0])?,
            src: p.src(ops[1], ty)?,
        })
    }
}

/// A register's state after a run: its bits and the type they were last written as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegValue {
    pub bits: u64,
    /// The type of the instruction operand that last wrote it (`None`: given, not written).
    pub written_as: Option<RegType>,
}

/// Registers and memory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Machine {
    pub regs: Vec<Option<RegValue>>,
    pub mem: BTreeMap<u64, u8>,
    /// Every store, in order: address and type.
    pub stores: Vec<(u64, RegType)>,
    /// Every register write, in order: the statement's line, the register, the bits and the
    /// type they were written as.
    pub writes: Vec<(usize, usize, u64, RegType)>,
    /// The line of the statement running.
    line: usize,
    pub policies: Policies,
}

/// Parses an integer: `0x` hex or decimal (a leading `-` for two's complement).
fn int_value(text: &str, bits: u32) -> Result<u64, String> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text),
    };
    let v = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => body.parse(),
    }
    .map_err(|_| format!("`{text}` is not an integer (decimal or 0x hex)"))?;
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    if v & !mask != 0 {
        return Err(format!("`{text}` does not fit in {bits} bits"));
    }
    Ok(if neg { v.wrapping_neg() & mask } else { v })
}

impl Machine {
    pub fn new(program: &Program) -> Self {
        Machine {
            regs: vec![None; program.decls.len()],
            ..Machine::default()
        }
    }

    /// `--set NAME=VALUE`: a float register takes a number or literal of its type (see
    /// [`parse_value`]); a bit-size or integer register an integer (or `0f`/`0d` bits for
    /// `.b32`/`.b64`); a predicate `0`, `1`, `true` or `false`.
    pub fn set(&mut self, program: &Program, assignment: &str) -> Result<(), String> {
        let (name, value) = assignment
            .split_once('=')
            .ok_or_else(|| format!("`{assignment}`: expected REG=VALUE"))?;
        let r = *(program.names.get(name))
            .ok_or_else(|| format!("`{name}` is not a declared register"))?;
        let ty = program.decls[r].ty;
        let lower = value.to_ascii_lowercase();
        let bits = match ty {
            RegType::Pred => match lower.as_str() {
                "1" | "true" => 1,
                "0" | "false" => 0,
                _ => return Err(format!("{name}: a predicate is 0, 1, true or false")),
            },
            RegType::F(t) => parse_value(value, t)?,
            RegType::B(32) if lower.starts_with("0f") => parse_value(value, Type::F32)?,
            RegType::B(64) if lower.starts_with("0d") => parse_value(value, Type::F64)?,
            _ => int_value(value, ty.bits())?,
        };
        self.regs[r] = Some(RegValue {
            bits,
            written_as: None,
        });
        Ok(())
    }

    /// `--mem ADDR=WORD[,WORD...]`: each word `0x` with 2, 4, 8 or 16 hex digits is stored
    /// little-endian at the next address.
    pub fn set_mem(&mut self, spec: &str) -> Result<(), String> {
        let (addr, words) = spec
            .split_once('=')
            .ok_or_else(|| format!("`{spec}`: expected ADDR=0xWORD[,0xWORD...]"))?;
        let mut at = Some(int_value(addr, 64)?);
        for w in words.split(',') {
            let digits = w
                .strip_prefix("0x")
                .filter(|d| matches!(d.len(), 2 | 4 | 8 | 16))
                .ok_or_else(|| {
                    format!("`{w}`: a memory word is 0x with 2, 4, 8 or 16 hex digits")
                })?;
            let v =
                u64::from_str_radix(digits, 16).map_err(|_| format!("`{w}` is not hexadecimal"))?;
            for k in 0..digits.len() / 2 {
                let addr = at.ok_or_else(|| {
                    "the words run past the last address 0xffffffffffffffff".to_string()
                })?;
                self.mem.insert(addr, (v >> (8 * k)) as u8);
                at = addr.checked_add(1);
            }
        }
        Ok(())
    }

    fn read(&self, program: &Program, r: usize) -> Result<u64, String> {
        self.regs[r].as_ref().map(|v| v.bits).ok_or_else(|| {
            let name = &program.decls[r].name;
            format!(
                "register `{name}` is read before it is written (give it with --set {name}=VALUE)"
            )
        })
    }

    fn value(&self, program: &Program, s: &Src) -> Result<u64, String> {
        match s {
            Src::Imm(v) => Ok(*v),
            Src::Reg(r) => self.read(program, *r),
            Src::Pack(rs) => {
                let mut v = 0;
                for (k, r) in rs.iter().enumerate() {
                    let bits = program.decls[*r].ty.bits();
                    v |= self.read(program, *r)? << (bits * k as u32);
                }
                Ok(v)
            }
        }
    }

    fn write(&mut self, r: usize, bits: u64, as_: RegType) {
        self.writes.push((self.line, r, bits, as_));
        self.regs[r] = Some(RegValue {
            bits,
            written_as: Some(as_),
        });
    }

    fn address(&self, program: &Program, a: &Addr) -> Result<u64, String> {
        let base = a.base.map(|r| self.read(program, r)).transpose()?;
        Ok(base.unwrap_or(0).wrapping_add(a.offset as u64))
    }

    /// Runs `program` from the first statement to the last.
    pub fn run(&mut self, program: &Program) -> Result<(), RunError> {
        for s in &program.stmts {
            self.line = s.line;
            self.step(program, s).map_err(|message| RunError {
                line: s.line,
                column: s.column,
                message,
            })?;
        }
        Ok(())
    }

    fn step(&mut self, program: &Program, s: &Stmt) -> Result<(), String> {
        if let Some((neg, g)) = s.guard {
            if (self.read(program, g)? == 1) == neg {
                return Ok(());
            }
        }
        match &s.op {
            Op::Float {
                instr,
                effective,
                ctx,
                dest,
                srcs,
            } => {
                let ops = srcs
                    .iter()
                    .map(|x| self.value(program, x))
                    .collect::<Result<Vec<_>, _>>()?;
                let ctx = Context {
                    policies: self.policies,
                    ..ctx.clone()
                };
                let d = eval(effective, &ops, &ctx).map_err(|e| e.to_string())?;
                let as_ = match instr.opcode {
                    Opcode::Testp(_) => RegType::Pred,
                    _ => RegType::F(instr.ty),
                };
                self.write(*dest, d, as_);
            }
            Op::Mov { ty, dests, src } => {
                let v = self.value(program, src)?;
                let piece = ty.bits() / dests.len() as u32;
                for (k, d) in dests.iter().enumerate() {
                    let bits = if piece == 64 {
                        v
                    } else {
                        (v >> (piece * k as u32)) & ((1 << piece) - 1)
                    };
                    let as_ = match src {
                        _ if dests.len() > 1 => program.decls[*d].ty,
                        Src::Pack(rs) => packed_type(program, rs).unwrap_or(*ty),
                        _ => *ty,
                    };
                    self.write(*d, bits, as_);
                }
            }
            Op::Cvt { cvt, dest, srcs } => {
                let ops = srcs
                    .iter()
                    .map(|x| self.value(program, x))
                    .collect::<Result<Vec<_>, _>>()?;
                let d = cvt.apply(&ops, &self.policies);
                self.write(*dest, d, RegType::F(cvt.dtype));
            }
            Op::Setp {
                op,
                ty,
                ftz,
                p,
                q,
                a,
                b,
            } => {
                let r = setp(
                    *op,
                    *ty,
                    *ftz,
                    self.value(program, a)?,
                    self.value(program, b)?,
                );
                self.write(*p, r.into(), RegType::Pred);
                if let Some(q) = q {
                    self.write(*q, (!r).into(), RegType::Pred);
                }
            }
            Op::Selp { ty, dest, a, b, c } => {
                let v = if self.value(program, c)? == 1 {
                    self.value(program, a)?
                } else {
                    self.value(program, b)?
                };
                self.write(*dest, v, *ty);
            }
            Op::Ld { ty, dest, addr } => {
                let at = self.address(program, addr)?;
                let mut v = 0u64;
                for k in 0..u64::from(ty.bits() / 8) {
                    let byte = self.mem.get(&at.wrapping_add(k)).ok_or_else(|| {
                        format!(
                            "load from 0x{:x}: no memory there (give it with --mem 0x{at:x}=0x...)",
                            at.wrapping_add(k)
                        )
                    })?;
                    v |= u64::from(*byte) << (8 * k);
                }
                self.write(*dest, v, *ty);
            }
            Op::St { ty, addr, src } => {
                let at = self.address(program, addr)?;
                let v = self.value(program, src)?;
                for k in 0..u64::from(ty.bits() / 8) {
                    self.mem.insert(at.wrapping_add(k), (v >> (8 * k)) as u8);
                }
                self.stores.push((at, *ty));
            }
        }
        Ok(())
    }

    /// Every register write in order, one line each: `line N: reg = 0xBITS .type value`.
    pub fn trace(&self, program: &Program) -> String {
        let mut out = String::new();
        for &(line, r, bits, as_) in &self.writes {
            let d = &program.decls[r];
            out += &format!("line {line}: {} = {}\n", d.name, show(bits, d.ty, as_));
        }
        out
    }

    /// Every register the run wrote, in declaration order, and every stored memory location:
    /// bits, and the decoded value (lanes for packed values) of the type it was written as.
    pub fn report(&self, program: &Program) -> String {
        let mut out = String::new();
        let width = program
            .decls
            .iter()
            .zip(&self.regs)
            .filter(|(_, v)| v.as_ref().is_some_and(|v| v.written_as.is_some()))
            .map(|(d, _)| d.name.len())
            .max()
            .unwrap_or(0);
        for (d, v) in program.decls.iter().zip(&self.regs) {
            let Some(RegValue {
                bits,
                written_as: Some(as_),
            }) = v
            else {
                continue;
            };
            out += &format!("{:width$} = {}\n", d.name, show(*bits, d.ty, *as_));
        }
        let mut seen = Vec::new();
        for &(at, ty) in self.stores.iter().rev() {
            if seen.contains(&(at, ty)) {
                continue;
            }
            seen.push((at, ty));
        }
        seen.sort_by_key(|s| s.0);
        for (at, ty) in seen {
            let mut v = 0u64;
            for k in 0..u64::from(ty.bits() / 8) {
                v |= u64::from(self.mem[&at.wrapping_add(k)]) << (8 * k);
            }
            out += &format!("[0x{at:x}] = {}\n", show(v, ty, ty));
        }
        out
    }
}

/// The packed float type of `{a, b}` when both registers are f16, bf16 or f32 (shown as lanes).
fn packed_type(program: &Program, rs: &[usize]) -> Option<RegType> {
    let lane = program.decls[rs[0]].ty;
    if rs.len() != 2 || program.decls[rs[1]].ty != lane {
        return None;
    }
    match lane {
        RegType::F(Type::F16) => Some(RegType::F(Type::F16x2)),
        RegType::F(Type::Bf16) => Some(RegType::F(Type::Bf16x2)),
        RegType::F(Type::F32) => Some(RegType::F(Type::F32x2)),
        _ => None,
    }
}

/// `0xBITS .type value`: the value decoded as the written float type, or the register's float
/// type; bits alone for integer and bit-size values.
fn show(bits: u64, declared: RegType, written: RegType) -> String {
    if written == RegType::Pred {
        return format!("{bits} .pred");
    }
    let hex = format!("0x{bits:0w$x}", w = (declared.bits() / 4) as usize);
    let float = match (written, declared) {
        (RegType::F(t), _) | (_, RegType::F(t)) => Some(t),
        _ => None,
    };
    match float {
        Some(t) => format!("{hex} .{} {}", t.name(), format_value(bits, t)),
        None => format!("{hex} {written}"),
    }
}
