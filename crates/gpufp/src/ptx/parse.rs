//! Parsing PTX instruction text: the opcode form (`fma.rn.ftz.sat.f32`) and a whole statement
//! (`@!p fma.rn.f32 d, a, 0f3F800000, 1.5;`). Errors carry the byte span of what is wrong.

use super::instr::{Instr, Modifier, Modifiers, Opcode, TestpOp, Type, MODIFIERS};
use crate::decimal;
use crate::format::F64;
use crate::round::Round;
use core::fmt;
use core::ops::Range;

/// What is wrong with a piece of text, and where (byte offsets into it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub span: Range<usize>,
    pub message: String,
}

impl ParseError {
    fn new(span: Range<usize>, message: impl Into<String>) -> Self {
        ParseError {
            span,
            message: message.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.span.start + 1, self.message)
    }
}

impl std::error::Error for ParseError {}

/// The words of `text` separated by `.`, each with its byte range.
fn dot_words(text: &str) -> impl Iterator<Item = (Range<usize>, &str)> {
    let mut start = 0;
    text.split('.').map(move |w| {
        let r = start..start + w.len();
        start = r.end + 1;
        (r, w)
    })
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Parses the opcode form of an instruction: mnemonic, modifiers and type, separated by dots, in
/// any order after the mnemonic except that `.full` must directly follow `div` (as ptxas 13.5
/// accepts them). The input count is the opcode's usual one; [`parse_statement`] takes it from the
/// operands.
pub fn parse_instr(text: &str) -> Result<Instr, ParseError> {
    if let Some((i, c)) = text
        .char_indices()
        .find(|&(_, c)| !is_word_char(c) && c != '.')
    {
        return Err(ParseError::new(
            i..i + c.len_utf8(),
            format!("unexpected character `{c}` in instruction"),
        ));
    }
    let mut words = dot_words(text);
    let (head_span, head) = words.next().unwrap_or((0..0, ""));
    let opcode = Opcode::from_name(head).ok_or_else(|| {
        let message = if head.is_empty() {
            "missing opcode".to_string()
        } else {
            format!("unknown floating-point opcode `{head}`")
        };
        ParseError::new(head_span.clone(), message)
    })?;
    let mut testp: Option<TestpOp> = None;
    let mut ty: Option<Type> = None;
    let mut mods = Modifiers::default();
    for (index, (span, word)) in words.enumerate() {
        if word.is_empty() {
            return Err(ParseError::new(
                span.start.saturating_sub(1)..span.end + 1,
                "empty modifier",
            ));
        }
        let dotted = span.start - 1..span.end;
        if let Some(t) = Type::ALL.into_iter().find(|t| t.name() == word) {
            if let Some(first) = ty {
                return Err(ParseError::new(
                    dotted,
                    format!("second type `.{word}` after `.{}`", first.name()),
                ));
            }
            ty = Some(t);
        } else if let Some(op) = TestpOp::ALL.into_iter().find(|t| t.name() == word) {
            if !matches!(opcode, Opcode::Testp(_)) {
                return Err(ParseError::new(
                    dotted,
                    format!("`.{word}` is a `testp` property, not a modifier of `{head}`"),
                ));
            }
            if let Some(first) = testp {
                return Err(ParseError::new(
                    dotted,
                    format!(
                        "second `testp` property `.{word}` after `.{}`",
                        first.name()
                    ),
                ));
            }
            testp = Some(op);
        } else if let Some((_, m)) = MODIFIERS.into_iter().find(|(n, _)| *n == word) {
            if m == Modifier::Full && (opcode != Opcode::Div || index != 0) {
                return Err(ParseError::new(
                    dotted,
                    "`.full` must directly follow `div`",
                ));
            }
            if let (Modifier::Rnd(new), Some(old)) = (m, mods.rnd) {
                let message = if new == old {
                    format!("duplicate modifier `.{word}`")
                } else {
                    format!(
                        "conflicting rounding modifiers `.{}` and `.{word}`",
                        old.ptx_name()
                    )
                };
                return Err(ParseError::new(dotted, message));
            }
            if !mods.insert(m) {
                return Err(ParseError::new(
                    dotted,
                    format!("duplicate modifier `.{word}`"),
                ));
            }
        } else {
            // `testp` takes properties, not modifiers: `.nan` there means `.notanumber`.
            let testp_hint = match opcode {
                Opcode::Testp(_) if word.eq_ignore_ascii_case("nan") => Some("notanumber"),
                Opcode::Testp(_) if word.eq_ignore_ascii_case("inf") => Some("infinite"),
                _ => None,
            };
            let hint = testp_hint
                .or_else(|| {
                    MODIFIERS
                        .iter()
                        .map(|(n, _)| *n)
                        .chain(Type::ALL.iter().map(|t| t.name()))
                        .find(|n| n.eq_ignore_ascii_case(word))
                })
                .map(|n| format!(" (did you mean `.{n}`?)"))
                .unwrap_or_default();
            return Err(ParseError::new(
                dotted,
                format!("unknown modifier `.{word}`{hint}"),
            ));
        }
    }
    let opcode = match (opcode, testp) {
        (Opcode::Testp(_), Some(op)) => Opcode::Testp(op),
        (Opcode::Testp(_), None) => {
            return Err(ParseError::new(
                0..text.len(),
                "`testp` requires a property: .finite, .infinite, .number, .notanumber, .normal or .subnormal",
            ))
        }
        (o, _) => o,
    };
    let ty = ty.ok_or_else(|| {
        ParseError::new(
            0..text.len(),
            format!("missing instruction type (e.g. `{text}.f32`)"),
        )
    })?;
    Ok(Instr {
        opcode,
        ty,
        mods,
        inputs: opcode.default_inputs(),
    })
}

/// A PTX immediate operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Literal {
    /// `0fXXXXXXXX`: the bits of an f32.
    F32Hex(u32),
    /// `0dXXXXXXXXXXXXXXXX`: the bits of an f64.
    F64Hex(u64),
    /// A decimal floating-point literal: an f64 value (PTX ISA 4.5.1), converted to the operand
    /// type at use.
    Decimal(F64),
    /// An integer: the bit pattern of the operand (used for 16-bit and packed types).
    Int(u64),
}

/// A source or destination operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    Reg(String),
    Imm(Literal),
}

/// `@p` or `@!p` before an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    pub negated: bool,
    pub pred: String,
}

/// A whole instruction statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    pub guard: Option<Guard>,
    pub instr: Instr,
    pub dest: Operand,
    pub srcs: Vec<Operand>,
}

/// Parses a PTX identifier (`%f1`, `d`, `$x`, `_t0`): a letter, `_`, `$` or `%` first, then
/// letters, digits, `_` and `$`.
fn identifier(text: &str, span: Range<usize>) -> Result<String, ParseError> {
    let mut chars = text.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '$' | '%'));
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$')) {
        return Err(ParseError::new(
            span,
            format!("`{text}` is not a register name or literal"),
        ));
    }
    Ok(text.to_string())
}

fn hex_digits(
    digits: &str,
    count: usize,
    span: Range<usize>,
    what: &str,
) -> Result<u64, ParseError> {
    if digits.len() != count || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(ParseError::new(
            span,
            format!("{what} needs exactly {count} hex digits"),
        ));
    }
    u64::from_str_radix(digits, 16).map_err(|e| ParseError::new(span, e.to_string()))
}

/// Parses one operand: a literal (`0f3F800000`, `0d3FF0000000000000`, `0x3C00`, `15360`, `1.5`,
/// `-2.5e-3`) or a register name.
pub fn parse_operand(text: &str, span: Range<usize>) -> Result<Operand, ParseError> {
    let lower = text.to_ascii_lowercase();
    let lit = |l| Ok(Operand::Imm(l));
    if let Some(d) = lower.strip_prefix("0f") {
        return lit(Literal::F32Hex(
            hex_digits(d, 8, span, "an `0f` literal")? as u32
        ));
    }
    if let Some(d) = lower.strip_prefix("0d") {
        return lit(Literal::F64Hex(hex_digits(d, 16, span, "an `0d` literal")?));
    }
    if let Some(d) = lower.strip_prefix("0x") {
        return u64::from_str_radix(d, 16)
            .map(|v| Operand::Imm(Literal::Int(v)))
            .map_err(|_| ParseError::new(span, format!("`{text}` is not a hexadecimal integer")));
    }
    let starts_numeric = text.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '.');
    if !starts_numeric {
        return identifier(text, span).map(Operand::Reg);
    }
    if text.chars().all(|c| c.is_ascii_digit()) {
        return text
            .parse::<u64>()
            .map(|v| Operand::Imm(Literal::Int(v)))
            .map_err(|_| {
                ParseError::new(span, format!("integer `{text}` does not fit in 64 bits"))
            });
    }
    decimal::parse::<F64>(text, Round::Rn)
        .map(|v| Operand::Imm(Literal::Decimal(v)))
        .ok_or_else(|| ParseError::new(span, format!("`{text}` is not a number")))
}

/// Parses `[@[!]pred] opcode dest, src, ...;`. The number of sources picks the form of min/max
/// (2 or 3 inputs); for every other opcode it must be the opcode's own count.
pub fn parse_statement(text: &str) -> Result<Statement, ParseError> {
    let end = text.trim_end().len();
    let body_end = text[..end]
        .strip_suffix(';')
        .map(str::len)
        .ok_or_else(|| ParseError::new(end..end, "expected `;` at the end of the statement"))?;
    let mut pos = text.len() - text.trim_start().len();
    let mut guard = None;
    if text[pos..].starts_with('@') {
        let rest = &text[pos + 1..body_end];
        let word_len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..word_len];
        let (negated, pred) = match word.strip_prefix('!') {
            Some(p) => (true, p),
            None => (false, word),
        };
        let pspan = pos + 1 + usize::from(negated)..pos + 1 + word_len;
        guard = Some(Guard {
            negated,
            pred: identifier(pred, pspan)?,
        });
        pos += 1 + word_len;
        pos += text[pos..].len() - text[pos..].trim_start().len();
    }
    let rest = &text[pos..body_end];
    let op_len = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let mut instr = parse_instr(&rest[..op_len]).map_err(|e| ParseError {
        span: e.span.start + pos..e.span.end + pos,
        ..e
    })?;
    let mut operands = Vec::new();
    let mut start = pos + op_len;
    for piece in text[start..body_end].split(',') {
        let lead = piece.len() - piece.trim_start().len();
        let word = piece.trim();
        let span = start + lead..start + lead + word.len();
        if word.is_empty() {
            return Err(ParseError::new(
                span.start..span.start.max(start + piece.len()),
                "missing operand",
            ));
        }
        operands.push(parse_operand(word, span)?);
        start += piece.len() + 1;
    }
    let whole = pos..body_end;
    let sources = operands.len().saturating_sub(1);
    let allowed: &[usize] = match instr.opcode {
        Opcode::Min | Opcode::Max => &[2, 3],
        o => &[o.default_inputs() as usize][..],
    };
    if !allowed.contains(&sources) {
        let want = allowed
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(" or ");
        return Err(ParseError::new(
            whole,
            format!(
                "`{}` takes a destination and {want} source operands, found {} operand(s)",
                instr.opcode.name(),
                operands.len()
            ),
        ));
    }
    instr.inputs = sources as u8;
    let mut operands = operands.into_iter();
    let dest = operands
        .next()
        .expect("checked above: at least two operands");
    if let Operand::Imm(_) = dest {
        return Err(ParseError::new(whole, "the destination must be a register"));
    }
    Ok(Statement {
        guard,
        instr,
        dest,
        srcs: operands.collect(),
    })
}
