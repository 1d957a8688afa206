//! vISA assembly text for declarations and `MIN_MAX` lines:
//! ```text
//! .decl V33 v_type=G type=f num_elts=16 align=GRF
//! .decl V34 v_type=G type=uw num_elts=8 alias=<V33, 32>
//! .decl A0 v_type=A num_elts=4
//! max.sat (M1, 16) V35(0,0)<1> (-)V33(0,0)<1;1,0> 0x3f800000:f
//! min (8) r[A0(1),-4]<1>:hf (-)r[A0(0),16]<8;8,1>:f 0:f
//! ```
//! Indirect operands follow the IGC vISA bytecode reader/disassembler:
//! `r[A<index>(<addr_offset>),<indirect_offset>]<region>:<type>`, with a source region
//! `<vs;w,hs>` or a destination region `<hs>`, and the source modifier before the `r`.
//! "`MIN[.sat] (<exec_size>) <dst> <src0> <src1> | MAX[.sat] (<exec_size>) <dst> <src0> <src1>`".
//! `(8)` means `(M1, 8)`; `NoMask` means `M1_NM`.

use super::encode::REGION_VALUES;
use super::state::{AddrDecl, Decl};
use super::{exec_size_code, MaskCtrl, MinMax, Op, Operand, Region, SrcMod, VType};
use crate::decimal;
use crate::format::{Format, F16, F32, F64};
use crate::round::Round;
use core::fmt;

/// What is wrong with a line, and where (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for AsmError {}

/// A parsed file: declarations and instructions, each with its line number.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    pub decls: Vec<(usize, Decl)>,
    /// Address variables (`.decl A0 v_type=A num_elts=4`).
    pub addr_decls: Vec<(usize, AddrDecl)>,
    pub instrs: Vec<(usize, MinMax)>,
}

/// A cursor over one line, tracking the byte column for errors.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

type Res<T> = Result<T, (usize, String)>;

impl<'a> Cursor<'a> {
    fn skip_space(&mut self) {
        while self.text[self.pos..].starts_with([' ', '\t']) {
            self.pos += 1;
        }
    }
    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }
    fn error<T>(&self, message: impl Into<String>) -> Res<T> {
        Err((self.pos, message.into()))
    }
    fn eat(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, s: &str) -> Res<()> {
        if self.eat(s) {
            Ok(())
        } else {
            self.error(format!("expected `{s}`"))
        }
    }
    /// A run of characters satisfying `f`.
    fn take(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        let start = self.pos;
        let len = self.rest().find(|c| !f(c)).unwrap_or(self.rest().len());
        self.pos += len;
        &self.text[start..start + len]
    }
    fn number(&mut self) -> Res<u64> {
        let at = self.pos;
        let digits = self.take(|c| c.is_ascii_digit());
        digits
            .parse()
            .map_err(|_| (at, "expected a number".to_string()))
    }
    fn small(&mut self, what: &str) -> Res<u8> {
        let at = self.pos;
        let n = self.number()?;
        u8::try_from(n).map_err(|_| (at, format!("{what} {n} is out of range")))
    }
    /// An optionally negative decimal number that fits an `i16`.
    fn signed(&mut self, what: &str) -> Res<i16> {
        let at = self.pos;
        let neg = self.eat("-");
        let n = i64::try_from(self.number()?).unwrap_or(i64::MAX);
        let v = if neg { -n } else { n };
        i16::try_from(v).map_err(|_| (at, format!("{what} {v} is out of range (-32768..=32767)")))
    }
    /// `A<number>`, an address variable's number.
    fn address_variable(&mut self) -> Res<u16> {
        let at = self.pos;
        if !self.eat("A") {
            return self.error("expected an address variable `A<number>`");
        }
        let n = self.number()?;
        u16::try_from(n).map_err(|_| (at, format!("address variable number {n} is out of range")))
    }
    fn variable(&mut self) -> Res<u32> {
        let at = self.pos;
        if !self.eat("V") {
            return self.error("expected a variable `V<number>`");
        }
        let n = self.number()?;
        u32::try_from(n).map_err(|_| (at, format!("variable number {n} is out of range")))
    }
}

/// Parses one `MIN`/`MAX` line (no comment).
pub fn parse_instruction(text: &str) -> Result<MinMax, (usize, String)> {
    let mut c = Cursor { text, pos: 0 };
    c.skip_space();
    let at = c.pos;
    let mnemonic = c.take(|ch| ch.is_ascii_alphanumeric() || ch == '.' || ch == '_');
    let (name, sat) = match mnemonic.split_once('.') {
        Some((n, "sat")) => (n, true),
        Some((_, m)) => return Err((at, format!("unknown modifier `.{m}` (only `.sat`)"))),
        None => (mnemonic, false),
    };
    let op = match name.to_ascii_lowercase().as_str() {
        "min" => Op::Min,
        "max" => Op::Max,
        "" => return c.error("expected `min` or `max`"),
        other => {
            return Err((
                at,
                format!("unknown instruction `{other}` (only MIN and MAX are modelled)"),
            ))
        }
    };
    c.skip_space();
    c.expect("(")?;
    c.skip_space();
    let mut mask = MaskCtrl {
        group: 0,
        no_mask: false,
    };
    if !c.rest().starts_with(|ch: char| ch.is_ascii_digit()) {
        let at = c.pos;
        let word = c.take(|ch| ch.is_ascii_alphanumeric() || ch == '_');
        mask = match word {
            "NoMask" => MaskCtrl {
                group: 0,
                no_mask: true,
            },
            _ => {
                let (m, nm) = match word.strip_suffix("_NM") {
                    Some(m) => (m, true),
                    None => (word, false),
                };
                let group = m
                    .strip_prefix('M')
                    .and_then(|g| g.parse::<u8>().ok())
                    .filter(|g| (1..=8).contains(g))
                    .ok_or((
                        at,
                        format!("unknown mask control `{word}` (M1..M8, M1_NM..M8_NM, NoMask)"),
                    ))?;
                MaskCtrl {
                    group: group - 1,
                    no_mask: nm,
                }
            }
        };
        c.skip_space();
        c.expect(",")?;
        c.skip_space();
    }
    let at = c.pos;
    let exec_size = c.small("exec size")?;
    if exec_size_code(exec_size).is_none() {
        return Err((
            at,
            format!("exec size {exec_size} is not 1, 2, 4, 8, 16 or 32"),
        ));
    }
    c.skip_space();
    c.expect(")")?;
    let dst = operand(&mut c, true)?;
    let src0 = operand(&mut c, false)?;
    let src1 = operand(&mut c, false)?;
    c.skip_space();
    if !c.rest().is_empty() {
        return c.error(format!("unexpected `{}` after the last operand", c.rest()));
    }
    Ok(MinMax {
        op,
        sat,
        exec_size,
        mask,
        dst,
        src0,
        src1,
    })
}

fn operand(c: &mut Cursor, dst: bool) -> Res<Operand> {
    c.skip_space();
    if c.rest().is_empty() {
        return c.error(if dst {
            "missing destination"
        } else {
            "missing source operand"
        });
    }
    let at = c.pos;
    let modifier = if c.eat("(-abs)") {
        SrcMod::NegAbs
    } else if c.eat("(abs)") {
        SrcMod::Abs
    } else if c.eat("(-)") {
        SrcMod::Neg
    } else {
        SrcMod::None
    };
    if dst && modifier != SrcMod::None {
        return Err((at, "the destination takes no source modifier".into()));
    }
    if c.rest().starts_with('V') {
        let id = c.variable()?;
        c.expect("(")?;
        let row = c.small("row")?;
        c.expect(",")?;
        c.skip_space();
        let col = c.small("column")?;
        c.expect(")")?;
        let region = region(c, dst)?;
        return Ok(Operand::General {
            id,
            row,
            col,
            region,
            modifier,
        });
    }
    if c.eat("r[") {
        let addr = c.address_variable()?;
        c.expect("(")?;
        let addr_offset = c.small("address offset")?;
        c.expect(")")?;
        c.expect(",")?;
        c.skip_space();
        let offset = c.signed("indirect offset")?;
        c.expect("]")?;
        let region = region(c, dst)?;
        c.expect(":")?;
        let at = c.pos;
        let name = c.take(|ch| ch.is_ascii_alphanumeric());
        let ty = VType::from_name(name).ok_or((at, format!("unknown type `:{name}`")))?;
        return Ok(Operand::Indirect {
            addr,
            addr_offset,
            offset,
            ty,
            region,
            modifier,
        });
    }
    if dst {
        return c.error(
            "the destination must be a variable `V<n>(row,col)<stride>` or indirect `r[A<n>(i),offset]<stride>:type`",
        );
    }
    if modifier != SrcMod::None {
        return Err((at, "an immediate takes no source modifier".into()));
    }
    let text = c.take(|ch| !ch.is_whitespace());
    let (value, ty) = text.rsplit_once(':').ok_or((
        at,
        format!("`{text}`: an immediate needs a type, e.g. `1.5:f`"),
    ))?;
    let ty = VType::from_name(ty).ok_or((at, format!("unknown type `:{ty}`")))?;
    let bits = immediate(value, ty).map_err(|m| (at, m))?;
    Ok(Operand::Imm { ty, bits })
}

/// One region value: those the encoding has a code for (0, 1, 2, 4, 8, 16, 32), so that `run`
/// takes exactly what `asm` encodes.
fn region_value(c: &mut Cursor, what: &str) -> Res<u8> {
    let at = c.pos;
    let v = c.small(what)?;
    if !REGION_VALUES.contains(&v) {
        return Err((at, format!("{what} {v} is not 0, 1, 2, 4, 8, 16 or 32")));
    }
    Ok(v)
}

/// A destination region `<hs>` or a source region `<vs;w,hs>`.
fn region(c: &mut Cursor, dst: bool) -> Res<Region> {
    c.expect("<")?;
    let region = if dst {
        let hs = region_value(c, "horizontal stride")?;
        Region::dst(hs)
    } else {
        let vs = region_value(c, "vertical stride")?;
        c.expect(";")?;
        let w = region_value(c, "width")?;
        c.expect(",")?;
        let hs = region_value(c, "horizontal stride")?;
        Region::src(vs, w, hs)
    };
    c.expect(">")?;
    Ok(region)
}

/// An immediate's bits: `0x` bit patterns of the type's width, integers in the type's range, or
/// decimal numbers for float types (rounded to nearest even).
pub fn immediate(value: &str, ty: VType) -> Result<u64, String> {
    let width = 8 * ty.size() as u32;
    if let Some(hex) = value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"))
    {
        let bits =
            u64::from_str_radix(hex, 16).map_err(|_| format!("`{value}` is not hexadecimal"))?;
        if width < 64 && bits >> width != 0 {
            return Err(format!(
                "`{value}` is wider than `:{}` ({width} bits)",
                ty.name()
            ));
        }
        return Ok(bits);
    }
    if ty.is_float() {
        // `inf`, `-inf` and `nan` (the default quiet NaN, sign clear) by name.
        let (neg, name) = match value.strip_prefix('-') {
            Some(v) => (true, v),
            None => (false, value),
        };
        let (inf, quiet, sign) = match ty {
            VType::HF => (F16::INF, F16::QUIET_BIT, F16::SIGN_MASK),
            VType::F => (F32::INF, F32::QUIET_BIT, F32::SIGN_MASK),
            _ => (F64::INF, F64::QUIET_BIT, F64::SIGN_MASK),
        };
        match name.to_ascii_lowercase().as_str() {
            "inf" => return Ok(inf | if neg { sign } else { 0 }),
            "nan" if !neg => return Ok(inf | quiet),
            _ => {}
        }
        let bits = match ty {
            VType::HF => decimal::parse::<F16>(value, Round::Rn).map(|x| u64::from(x.0)),
            VType::F => decimal::parse::<F32>(value, Round::Rn).map(|x| u64::from(x.0)),
            _ => decimal::parse::<F64>(value, Round::Rn).map(|x| x.0),
        };
        return bits.ok_or_else(|| format!("`{value}` is not a number"));
    }
    let v: i128 = value
        .parse()
        .map_err(|_| format!("`{value}` is not an integer"))?;
    let (lo, hi) = ty.int_range();
    if v < lo || v > hi {
        return Err(format!(
            "{v} is out of range for `:{}` ({lo}..={hi})",
            ty.name()
        ));
    }
    Ok((v as u128 as u64)
        & if width == 64 {
            u64::MAX
        } else {
            (1 << width) - 1
        })
}

/// Parses `.decl V33 v_type=G type=f num_elts=16 align=GRF alias=<V32, 0>`.
fn parse_decl(text: &str, grf: usize) -> Res<Decl> {
    let mut c = Cursor { text, pos: 0 };
    c.skip_space();
    c.expect(".decl")?;
    c.skip_space();
    let id = c.variable()?;
    let (mut ty, mut num_elts, mut align, mut alias) = (None, None, grf, None);
    loop {
        c.skip_space();
        if c.rest().is_empty() {
            break;
        }
        let at = c.pos;
        let key = c.take(|ch| ch.is_ascii_alphanumeric() || ch == '_');
        c.expect("=")?;
        let vat = c.pos;
        match key {
            "alias" => {
                c.expect("<")?;
                c.skip_space();
                let base = c.variable()?;
                c.skip_space();
                c.expect(",")?;
                c.skip_space();
                let off = c.number()?;
                c.skip_space();
                c.expect(">")?;
                alias = Some((base, off as usize));
            }
            _ => {
                let value = c.take(|ch| !ch.is_whitespace());
                match key {
                    "v_type" if value == "G" => {}
                    "v_type" => {
                        return Err((
                            vat,
                            format!(
                                "only general variables (v_type=G) and address variables \
                                 (`A<n>`, v_type=A) are modelled, not `{value}` for V{id}"
                            ),
                        ))
                    }
                    "type" => {
                        ty = Some(
                            VType::from_name(value)
                                .ok_or((vat, format!("unknown type `{value}`")))?,
                        )
                    }
                    "num_elts" => {
                        num_elts = Some(
                            value
                                .parse::<usize>()
                                .map_err(|_| (vat, format!("`{value}` is not a count")))?,
                        )
                    }
                    "align" => {
                        align = match value {
                            "byte" => 1,
                            "word" => 2,
                            "dword" => 4,
                            "qword" => 8,
                            "oword" => 16,
                            "hword" => 32,
                            "GRF" => grf,
                            "2GRF" => 2 * grf,
                            _ => return Err((vat, format!("unknown alignment `{value}`"))),
                        }
                    }
                    _ => return Err((at, format!("unknown declaration attribute `{key}`"))),
                }
            }
        }
    }
    let ty = ty.ok_or((0, format!("V{id}: missing `type=`")))?;
    let num_elts = num_elts.ok_or((0, format!("V{id}: missing `num_elts=`")))?;
    Ok(Decl {
        id,
        ty,
        num_elts,
        align,
        alias,
    })
}

/// Parses `.decl A0 v_type=A num_elts=4`: an address variable.
fn parse_addr_decl(text: &str) -> Res<AddrDecl> {
    let mut c = Cursor { text, pos: 0 };
    c.skip_space();
    c.expect(".decl")?;
    c.skip_space();
    let id = c.address_variable()?;
    let mut num_elts = None;
    loop {
        c.skip_space();
        if c.rest().is_empty() {
            break;
        }
        let at = c.pos;
        let key = c.take(|ch| ch.is_ascii_alphanumeric() || ch == '_');
        c.expect("=")?;
        let vat = c.pos;
        let value = c.take(|ch| !ch.is_whitespace());
        match key {
            "v_type" if value == "A" => {}
            "v_type" => {
                return Err((
                    vat,
                    format!("`A{id}` names an address variable: v_type=A, not `{value}`"),
                ))
            }
            "num_elts" => {
                num_elts = Some(
                    value
                        .parse::<usize>()
                        .map_err(|_| (vat, format!("`{value}` is not a count")))?,
                )
            }
            _ => {
                return Err((
                    at,
                    format!("unknown address declaration attribute `{key}` (v_type, num_elts)"),
                ))
            }
        }
    }
    let num_elts = num_elts.ok_or((0, format!("A{id}: missing `num_elts=`")))?;
    Ok(AddrDecl { id, num_elts })
}

/// Parses a file of declarations and `MIN`/`MAX` lines; `//` starts a comment. The GRF size
/// decides what `align=GRF` means.
pub fn parse_program(text: &str, grf: usize) -> Result<Program, AsmError> {
    let mut p = Program::default();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split("//").next().unwrap_or_default();
        let err = |(col, message): (usize, String)| AsmError {
            line: n + 1,
            column: col + 1,
            message,
        };
        let trimmed = line.trim_start();
        if trimmed.is_empty() {
            continue;
        }
        let is_address = trimmed
            .strip_prefix(".decl")
            .is_some_and(|r| r.trim_start().starts_with('A'));
        if is_address {
            p.addr_decls
                .push((n + 1, parse_addr_decl(line).map_err(err)?));
        } else if trimmed.starts_with(".decl") {
            p.decls.push((n + 1, parse_decl(line, grf).map_err(err)?));
        } else if trimmed.starts_with('.') {
            let word = trimmed.split_whitespace().next().unwrap_or_default();
            return Err(err((
                line.len() - trimmed.len(),
                format!("unsupported directive `{word}` (only .decl)"),
            )));
        } else {
            p.instrs
                .push((n + 1, parse_instruction(line).map_err(err)?));
        }
    }
    Ok(p)
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::General {
                id,
                row,
                col,
                region,
                modifier,
            } => {
                write!(f, "{}V{id}({row},{col}){region}", modifier.text())
            }
            Operand::Imm { ty, bits } => write!(f, "0x{bits:x}:{}", ty.name()),
            Operand::Indirect {
                addr,
                addr_offset,
                offset,
                ty,
                region,
                modifier,
            } => write!(
                f,
                "{}r[A{addr}({addr_offset}),{offset}]{region}:{}",
                modifier.text(),
                ty.name()
            ),
        }
    }
}

/// The canonical text: `max.sat (M1, 16) V35(0,0)<1> (-)V33(0,0)<1;1,0> 0x3f800000:f`.
impl fmt::Display for MinMax {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = match self.op {
            Op::Min => "min",
            Op::Max => "max",
        };
        let sat = if self.sat { ".sat" } else { "" };
        write!(
            f,
            "{op}{sat} ({}, {}) {} {} {}",
            self.mask, self.exec_size, self.dst, self.src0, self.src1
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_the_issue_example() {
        let i = parse_instruction("max.sat (M1, 16) V35(0,0)<1> (-)V33(0,0)<1;1,0> 0x3f800000:f")
            .unwrap();
        assert_eq!(
            i.to_string(),
            "max.sat (M1, 16) V35(0,0)<1> (-)V33(0,0)<1;1,0> 0x3f800000:f"
        );
        let short = parse_instruction("min (8) V35(0,0)<1> V33(1,2)<8;4,2> -7:w").unwrap();
        assert_eq!(
            short.to_string(),
            "min (M1, 8) V35(0,0)<1> V33(1,2)<8;4,2> 0xfff9:w"
        );
        let nm =
            parse_instruction("MIN (NoMask, 4) V35(0,0)<2> (-abs)V33(0,0)<0;1,0> 1.5:hf").unwrap();
        assert_eq!(
            nm.to_string(),
            "min (M1_NM, 4) V35(0,0)<2> (-abs)V33(0,0)<0;1,0> 0x3e00:hf"
        );
    }

    #[test]
    fn errors_name_the_column() {
        let cases: &[(&str, usize, &str)] = &[
            (
                "add (8) V1(0,0)<1> V2(0,0)<1;1,0> V3(0,0)<1;1,0>",
                0,
                "unknown instruction `add`",
            ),
            (
                "max (M9, 8) V35(0,0)<1> V33(0,0)<1;1,0> 0x1:d",
                5,
                "unknown mask control `M9`",
            ),
            (
                "max (M1, 12) V35(0,0)<1> V33(0,0)<1;1,0> 0x1:d",
                9,
                "exec size 12",
            ),
            (
                "max (8) (-)V35(0,0)<1> V33(0,0)<1;1,0> 0x1:d",
                8,
                "no source modifier",
            ),
            (
                "max (8) V35(0,0)<1> V33(0,0)<1;1,0> 0x1ffff:w",
                36,
                "wider than `:w`",
            ),
            (
                "max (8) V35(0,0)<1> V33(0,0)<1;1,0> 300:ub",
                36,
                "out of range",
            ),
            (
                "max (8) V35(0,0)<1> V33(0,0)<1;1,0>",
                35,
                "missing source operand",
            ),
            (
                "max (8) V35(0,0)<1> V33(0,0)<1,1,0> 0x1:d",
                30,
                "expected `;`",
            ),
            (
                "max (8) V35(0,0)<1> r[A0(0),40000]<1;1,0>:d 0x1:d",
                28,
                "indirect offset 40000 is out of range",
            ),
            (
                "max (8) V35(0,0)<1> r[A0(0),-4]<1;1,0>:z 0x1:d",
                39,
                "unknown type `:z`",
            ),
            (
                "max (8) V35(0,0)<1> r[V0(0),0]<1;1,0>:d 0x1:d",
                22,
                "expected an address variable",
            ),
            (
                "max (8) V35(0,0)<1> r[A0(0),0]<1>:d 0x1:d",
                32,
                "expected `;`",
            ),
            (
                "max (8) (-)r[A0(0),0]<1>:d V35(0,0)<1;1,0> 0x1:d",
                8,
                "no source modifier",
            ),
            (
                "max (8) r[A0(300),0]<1>:d V35(0,0)<1;1,0> 0x1:d",
                13,
                "address offset 300",
            ),
            (
                "max (8) V35(0,0)<1> V33(0,0)<1;1,0> 1:x",
                36,
                "unknown type `:x`",
            ),
        ];
        for &(text, col, want) in cases {
            let (c, m) = parse_instruction(text).expect_err(text);
            assert!(m.contains(want), "`{text}`: {m}");
            assert_eq!(c, col, "`{text}`: {m}");
        }
    }

    #[test]
    fn declarations() {
        let p = parse_program(
            ".decl V33 v_type=G type=f num_elts=16 align=GRF\n.decl V34 v_type=G type=uw num_elts=8 alias=<V33, 32> // comment\n\nmax (8) V34(0,0)<1> V34(0,0)<1;1,0> 3:uw\n",
            32,
        )
        .unwrap();
        assert_eq!(p.decls[1].1.alias, Some((33, 32)));
        assert_eq!(p.instrs.len(), 1);
        let e = parse_program(".decl V33 v_type=S type=f num_elts=1", 32).unwrap_err();
        assert_eq!((e.line, e.column), (1, 18));
        let p = parse_program(
            ".decl A0 v_type=A num_elts=4\n  .decl A7 num_elts=1 v_type=A\nmin (8) r[A7(0),-4]<1>:hf (-)r[A0(3),16]<8;8,1>:f 0:f",
            32,
        )
        .unwrap();
        assert_eq!(
            p.addr_decls,
            vec![
                (1, AddrDecl { id: 0, num_elts: 4 }),
                (2, AddrDecl { id: 7, num_elts: 1 })
            ]
        );
        assert_eq!(
            p.instrs[0].1.to_string(),
            "min (M1, 8) r[A7(0),-4]<1>:hf (-)r[A0(3),16]<8;8,1>:f 0x0:f"
        );
        let e = parse_program(".decl A0 v_type=G num_elts=4", 32).unwrap_err();
        assert_eq!((e.line, e.column), (1, 17));
        let e = parse_program(".decl A0 v_type=A type=f", 32).unwrap_err();
        assert_eq!((e.line, e.column), (1, 19));
        let e = parse_program(".decl A0 v_type=A", 32).unwrap_err();
        assert!(e.message.contains("missing `num_elts=`"), "{e}");
        let e = parse_program("\n.kernel foo", 32).unwrap_err();
        assert!(e.message.contains("unsupported directive `.kernel`"));
    }
}
