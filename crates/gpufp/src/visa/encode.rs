//! The binary encoding of `MIN_MAX` (Intel's vISA specification, MIN_MAX, "Format"):
//!
//! ```text
//! | 0x45(MIN_MAX) | Exec_size | Op | Dst | Src0 | Src1 |
//! ```
//!
//! Multi-byte fields are little-endian. Each operand is a tag byte (class in bits 0-2: general 0,
//! indirect 3, immediate 5; modifier in bits 3-5: abs 1, neg 2, neg-abs 3, sat 4 on the
//! destination only; bits 6-7 zero) followed by its payload:
//!
//! - general: variable id (u32), row (u8), column (u8), region (u16: three nibbles, vertical
//!   stride in bits 0-3, width in bits 4-7, horizontal stride in bits 8-11, bits 12-15 zero);
//! - indirect (as the IGC vISA bytecode reader/disassembler reads it): address variable number
//!   `index` (u16), `addr_offset` (u8, the element of the address variable), `indirect_offset`
//!   (i16, a signed byte offset), `bit_property` (u8: the operand's type code
//!   ([`VType::code`]) in bits 0-3, bits 4-7 zero), region (u16, as for general operands);
//! - immediate: type byte ([`VType::code`]) and the value, 8 bytes for Q/UQ/DF, 4 for the rest.
//!
//! [`decode`] is strict: it accepts exactly the byte strings that [`encode`] produces, so that a
//! decoded instruction always re-encodes to the bytes it came from.

use core::fmt;

use super::{exec_size_code, MaskCtrl, MinMax, Op, Operand, Region, SrcMod, VType};

/// "MIN_MAX = 0x45".
const OPCODE: u8 = 0x45;

/// Operand classes (tag bits 0-2).
const CLASS_GENERAL: u8 = 0;
const CLASS_INDIRECT: u8 = 3;
const CLASS_IMM: u8 = 5;

/// The tag's modifier code for `.sat`; only the destination may carry it.
const MOD_SAT: u8 = 4;

/// The execution sizes in code order: "0b000: 1 element (scalar)" .. "0b101: 32 elements".
const EXEC_SIZES: [u8; 6] = [1, 2, 4, 8, 16, 32];

/// Region values in nibble-code order; code 0 is "absent", so value `REGION_VALUES[i]` has code
/// `i + 1`.
pub(crate) const REGION_VALUES: [u8; 7] = [0, 1, 2, 4, 8, 16, 32];

/// Why a byte string is not a valid `MIN_MAX` instruction, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// Offset of the offending byte (for truncation: where the missing field starts).
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for DecodeError {}

/// Which operand slot is being encoded or decoded: the destination alone may carry `.sat` and
/// has a `<hs>` region; sources have `<vs;w,hs>` regions and may be immediates. General and
/// indirect operands may fill any slot.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Dst,
    Src0,
    Src1,
}

impl Slot {
    fn name(self) -> &'static str {
        match self {
            Slot::Dst => "dst",
            Slot::Src0 => "src0",
            Slot::Src1 => "src1",
        }
    }
}

/// Encodes one instruction. Fails for values the format cannot represent rather than silently
/// truncating them.
pub fn encode(i: &MinMax) -> Result<Vec<u8>, String> {
    let size_code = exec_size_code(i.exec_size).ok_or_else(|| {
        format!(
            "execution size {} cannot be encoded (must be 1, 2, 4, 8, 16 or 32)",
            i.exec_size
        )
    })?;
    if i.mask.group > 7 {
        return Err(format!(
            "mask group {} cannot be encoded (must be 0..=7 for M1..M8)",
            i.mask.group
        ));
    }
    let mut out = Vec::with_capacity(32);
    out.push(OPCODE);
    // "Bit[2..0]: size of the region", "Bit[7..4]: execution mask"; bit 3 stays zero.
    out.push(size_code | (i.mask.code() << 4));
    // "Bit[0]: controls the operations - 0b0: min - 0b1: max".
    out.push(match i.op {
        Op::Min => 0,
        Op::Max => 1,
    });
    encode_operand(&mut out, &i.dst, Slot::Dst, i.sat)?;
    encode_operand(&mut out, &i.src0, Slot::Src0, false)?;
    encode_operand(&mut out, &i.src1, Slot::Src1, false)?;
    Ok(out)
}

/// The tag's modifier field of a general or indirect operand: `.sat` on the destination, the
/// source modifier on a source.
fn modifier_field(modifier: SrcMod, slot: Slot, sat: bool) -> Result<u8, String> {
    if slot != Slot::Dst {
        return Ok(modifier.code());
    }
    // The destination's modifier field carries `.sat`, so it cannot also hold a source modifier.
    if modifier != SrcMod::None {
        return Err(format!(
            "dst cannot have a source modifier (found {})",
            modifier.text()
        ));
    }
    Ok(if sat { MOD_SAT } else { 0 })
}

fn encode_operand(out: &mut Vec<u8>, op: &Operand, slot: Slot, sat: bool) -> Result<(), String> {
    let name = slot.name();
    match *op {
        Operand::General {
            id,
            row,
            col,
            region,
            modifier,
        } => {
            let modifier_code = modifier_field(modifier, slot, sat)?;
            check_region_shape(region, slot).map_err(|e| format!("{name} region {region}: {e}"))?;
            let region_bits = encode_region(region).map_err(|e| format!("{name} region: {e}"))?;
            out.push(CLASS_GENERAL | (modifier_code << 3));
            out.extend_from_slice(&id.to_le_bytes());
            out.push(row);
            out.push(col);
            out.extend_from_slice(&region_bits.to_le_bytes());
            Ok(())
        }
        Operand::Indirect {
            addr,
            addr_offset,
            offset,
            ty,
            region,
            modifier,
        } => {
            let modifier_code = modifier_field(modifier, slot, sat)?;
            check_region_shape(region, slot).map_err(|e| format!("{name} region {region}: {e}"))?;
            let region_bits = encode_region(region).map_err(|e| format!("{name} region: {e}"))?;
            out.push(CLASS_INDIRECT | (modifier_code << 3));
            out.extend_from_slice(&addr.to_le_bytes());
            out.push(addr_offset);
            out.extend_from_slice(&offset.to_le_bytes());
            out.push(ty.code());
            out.extend_from_slice(&region_bits.to_le_bytes());
            Ok(())
        }
        Operand::Imm { ty, bits } => {
            if slot == Slot::Dst {
                return Err(
                    "dst must be a general or indirect operand, not an immediate".to_string(),
                );
            }
            let width = ty.size();
            if width < 8 && bits >> (8 * width) != 0 {
                return Err(format!(
                    "{name} immediate 0x{bits:x} is wider than its type :{} ({width} byte(s))",
                    ty.name()
                ));
            }
            out.push(CLASS_IMM);
            out.push(ty.code());
            out.extend(bits.to_le_bytes().iter().take(imm_len(ty)));
            Ok(())
        }
    }
}

/// Bytes an immediate's value occupies: "8 bytes for Q, UQ, DF; 4 bytes for every other type".
fn imm_len(ty: VType) -> usize {
    if ty.size() == 8 {
        8
    } else {
        4
    }
}

/// A destination region is `<hs>` (vs and w null); a source region is `<vs;w,hs>` with all
/// three set. Enforced on both sides so decode and encode accept the same set.
fn check_region_shape(region: Region, slot: Slot) -> Result<(), &'static str> {
    match (slot, region.vs, region.w, region.hs) {
        (Slot::Dst, None, None, Some(_)) => Ok(()),
        (Slot::Dst, ..) => Err(
            "a destination region must be <hs>: vertical stride and width null, horizontal stride set",
        ),
        (_, Some(_), Some(_), Some(_)) => Ok(()),
        _ => Err("a source region must set vertical stride, width and horizontal stride"),
    }
}

fn encode_region(region: Region) -> Result<u16, String> {
    let nibble = |what: &str, v: Option<u8>| -> Result<u16, String> {
        match v {
            None => Ok(0),
            Some(x) => REGION_VALUES
                .iter()
                .position(|&r| r == x)
                .map(|p| p as u16 + 1)
                .ok_or_else(|| {
                    format!("{what} {x} cannot be encoded (must be 0, 1, 2, 4, 8, 16 or 32)")
                }),
        }
    };
    Ok(nibble("vertical stride", region.vs)?
        | (nibble("width", region.w)? << 4)
        | (nibble("horizontal stride", region.hs)? << 8))
}

/// A cursor over the input that reports truncation at the offset of the missing field.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn err(&self, offset: usize, message: impl Into<String>) -> DecodeError {
        DecodeError {
            offset,
            message: message.into(),
        }
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], DecodeError> {
        let left = self.bytes.len().saturating_sub(self.pos);
        let slice = self
            .pos
            .checked_add(n)
            .and_then(|end| self.bytes.get(self.pos..end));
        match slice {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(self.err(
                self.pos,
                format!("truncated: {what} needs {n} byte(s), {left} left"),
            )),
        }
    }

    fn u8(&mut self, what: &str) -> Result<u8, DecodeError> {
        Ok(le(self.take(1, what)?) as u8)
    }
}

/// Little-endian value of up to 8 bytes.
fn le(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

/// Decodes one instruction from the start of `bytes`; trailing bytes are left alone and the
/// count used is returned. Never panics; every error names the offending byte offset.
pub fn decode(bytes: &[u8]) -> Result<(MinMax, usize), DecodeError> {
    let mut r = Reader { bytes, pos: 0 };

    let opcode = r.u8("opcode")?;
    if opcode != OPCODE {
        return Err(r.err(
            0,
            format!("wrong opcode 0x{opcode:02x}: expected 0x45 (MIN_MAX)"),
        ));
    }

    let exec = r.u8("exec-size byte")?;
    if exec & 0x08 != 0 {
        return Err(r.err(
            1,
            format!("exec-size byte 0x{exec:02x}: reserved bit 3 is set"),
        ));
    }
    let size_code = exec & 0x07;
    let exec_size = *EXEC_SIZES.get(usize::from(size_code)).ok_or_else(|| {
        r.err(
            1,
            format!(
                "exec-size byte 0x{exec:02x}: bad size code {size_code} (0-5 for 1, 2, 4, 8, 16, 32)"
            ),
        )
    })?;
    let mask = MaskCtrl::from_code(exec >> 4);

    let op_byte = r.u8("op byte")?;
    let op = match op_byte {
        0 => Op::Min,
        1 => Op::Max,
        _ => {
            let message = format!("op byte 0x{op_byte:02x}: reserved bits 1-7 are set");
            return Err(r.err(2, message));
        }
    };

    let (dst, sat) = decode_operand(&mut r, Slot::Dst)?;
    let (src0, _) = decode_operand(&mut r, Slot::Src0)?;
    let (src1, _) = decode_operand(&mut r, Slot::Src1)?;

    let inst = MinMax {
        op,
        sat,
        exec_size,
        mask,
        dst,
        src0,
        src1,
    };
    Ok((inst, r.pos))
}

/// Decodes one operand; the flag is the destination's `.sat`.
fn decode_operand(r: &mut Reader<'_>, slot: Slot) -> Result<(Operand, bool), DecodeError> {
    let name = slot.name();
    let tag_at = r.pos;
    let tag = r.u8(&format!("{name} tag byte"))?;
    if tag & 0xc0 != 0 {
        return Err(r.err(
            tag_at,
            format!("{name} tag byte 0x{tag:02x}: reserved bits 6-7 are set"),
        ));
    }
    let class = tag & 0x07;
    let modifier_code = (tag >> 3) & 0x07;
    match class {
        CLASS_GENERAL | CLASS_INDIRECT => {}
        CLASS_IMM => {
            if slot == Slot::Dst {
                return Err(r.err(
                    tag_at,
                    "dst must be a general or indirect operand, found an immediate (class 5)",
                ));
            }
        }
        _ => {
            return Err(r.err(
                tag_at,
                format!(
                    "{name} tag byte 0x{tag:02x}: unknown operand class {class} \
                     (general 0, indirect 3, immediate 5)"
                ),
            ))
        }
    }

    // "Saturation: Yes" applies to the destination; "Source Modifier: arithmetic" to sources.
    let (modifier, sat) = match (slot, modifier_code) {
        (Slot::Dst, 0) => (SrcMod::None, false),
        (Slot::Dst, MOD_SAT) => (SrcMod::None, true),
        (Slot::Dst, 1..=3) => {
            return Err(r.err(
                tag_at,
                format!("dst cannot have a source modifier (modifier code {modifier_code})"),
            ))
        }
        (_, 0) => (SrcMod::None, false),
        (_, 1) => (SrcMod::Abs, false),
        (_, 2) => (SrcMod::Neg, false),
        (_, 3) => (SrcMod::NegAbs, false),
        (_, MOD_SAT) => {
            return Err(r.err(
                tag_at,
                format!("{name}: sat (modifier code 4) is only valid on the destination"),
            ))
        }
        _ => {
            return Err(r.err(
                tag_at,
                format!(
                    "{name} tag byte 0x{tag:02x}: unknown modifier code {modifier_code} \
                     (abs 1, neg 2, neg-abs 3, sat 4)"
                ),
            ))
        }
    };

    if class == CLASS_IMM {
        if modifier != SrcMod::None {
            return Err(r.err(
                tag_at,
                format!("{name}: an immediate cannot have a source modifier (modifier code {modifier_code})"),
            ));
        }
        let type_at = r.pos;
        let code = r.u8(&format!("{name} immediate type byte"))?;
        let ty = VType::from_code(code).ok_or_else(|| {
            r.err(
                type_at,
                format!("{name}: unknown type code {code} for an immediate"),
            )
        })?;
        let value_at = r.pos;
        let value = r.take(
            imm_len(ty),
            &format!("{name} immediate :{} value", ty.name()),
        )?;
        // The value sits in the low bytes; anything above the type's width must be zero.
        if let Some(extra) = value
            .iter()
            .enumerate()
            .skip(ty.size())
            .find(|(_, &b)| b != 0)
            .map(|(k, _)| k)
        {
            return Err(r.err(
                value_at + extra,
                format!(
                    "{name} immediate :{}: nonzero byte above the type's {}-byte width",
                    ty.name(),
                    ty.size()
                ),
            ));
        }
        return Ok((
            Operand::Imm {
                ty,
                bits: le(value),
            },
            false,
        ));
    }

    if class == CLASS_INDIRECT {
        let addr = le(r.take(2, &format!("{name} address variable"))?) as u16;
        let addr_offset = r.u8(&format!("{name} address offset"))?;
        let offset = le(r.take(2, &format!("{name} indirect offset"))?) as u16 as i16;
        let property_at = r.pos;
        let property = r.u8(&format!("{name} bit_property"))?;
        if property & 0xf0 != 0 {
            return Err(r.err(
                property_at,
                format!("{name} bit_property 0x{property:02x}: reserved bits 4-7 are set"),
            ));
        }
        let ty = VType::from_code(property).ok_or_else(|| {
            r.err(
                property_at,
                format!("{name}: unknown type code {property} for an indirect operand"),
            )
        })?;
        let region_at = r.pos;
        let region = decode_region(r, name)?;
        check_region_shape(region, slot)
            .map_err(|e| r.err(region_at, format!("{name} region {region}: {e}")))?;
        return Ok((
            Operand::Indirect {
                addr,
                addr_offset,
                offset,
                ty,
                region,
                modifier,
            },
            sat,
        ));
    }

    let id = le(r.take(4, &format!("{name} variable id"))?) as u32;
    let row = r.u8(&format!("{name} row"))?;
    let col = r.u8(&format!("{name} column"))?;
    let region_at = r.pos;
    let region = decode_region(r, name)?;
    check_region_shape(region, slot)
        .map_err(|e| r.err(region_at, format!("{name} region {region}: {e}")))?;
    Ok((
        Operand::General {
            id,
            row,
            col,
            region,
            modifier,
        },
        sat,
    ))
}

fn decode_region(r: &mut Reader<'_>, name: &str) -> Result<Region, DecodeError> {
    let at = r.pos;
    let bits = le(r.take(2, &format!("{name} region"))?) as u16;
    if bits & 0xf000 != 0 {
        return Err(r.err(
            at + 1,
            format!("{name} region 0x{bits:04x}: reserved bits 12-15 are set"),
        ));
    }
    // vs and w share the first byte, hs is in the second.
    let field = |shift: u16, what: &str, offset: usize| -> Result<Option<u8>, DecodeError> {
        let code = (bits >> shift) & 0xf;
        match code {
            0 => Ok(None),
            _ => REGION_VALUES
                .get(usize::from(code) - 1)
                .copied()
                .map(Some)
                .ok_or_else(|| {
                    r.err(
                        offset,
                        format!("{name} region: bad {what} nibble {code} (codes 0-7)"),
                    )
                }),
        }
    };
    Ok(Region {
        vs: field(0, "vertical stride", at)?,
        w: field(4, "width", at)?,
        hs: field(8, "horizontal stride", at + 1)?,
    })
}

/// Lowercase hex pairs separated by single spaces, e.g. `"45 03 01"`.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parses hex digits (either case); whitespace anywhere is ignored, so `"45 03"` and `"4503"` are
/// the same. Errors name the 0-based character position of a bad character, or the digit count
/// when it is odd.
pub fn from_hex(text: &str) -> Result<Vec<u8>, String> {
    let mut digits = Vec::with_capacity(text.len());
    for (pos, c) in text.chars().enumerate() {
        if c.is_whitespace() {
            continue;
        }
        match c.to_digit(16) {
            Some(d) => digits.push(d as u8),
            None => return Err(format!("bad hex character {c:?} at position {pos}")),
        }
    }
    if digits.len() % 2 != 0 {
        return Err(format!(
            "odd number of hex digits ({}): the last byte is incomplete",
            digits.len()
        ));
    }
    Ok(digits
        .chunks(2)
        .map(|p| p.iter().fold(0u8, |acc, &d| (acc << 4) | d))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn general(id: u32, row: u8, col: u8, region: Region, modifier: SrcMod) -> Operand {
        Operand::General {
            id,
            row,
            col,
            region,
            modifier,
        }
    }

    fn hex(s: &str) -> Vec<u8> {
        from_hex(s).expect("test hex")
    }

    fn round_trip(i: &MinMax, expected: &str) {
        let bytes = encode(i).expect("encodes");
        assert_eq!(to_hex(&bytes), to_hex(&hex(expected)));
        assert_eq!(decode(&bytes), Ok((*i, bytes.len())));
        // Trailing bytes are not consumed.
        let mut longer = bytes.clone();
        longer.extend_from_slice(&[0x45, 0xff]);
        assert_eq!(decode(&longer), Ok((*i, bytes.len())));
    }

    /// `max (M1, 8) V92(0,0)<1> V92(0,0)<1;1,0> V93(0,4)<1;1,0>`.
    fn worked_example() -> MinMax {
        MinMax {
            op: Op::Max,
            sat: false,
            exec_size: 8,
            mask: MaskCtrl {
                group: 0,
                no_mask: false,
            },
            dst: general(92, 0, 0, Region::dst(1), SrcMod::None),
            src0: general(92, 0, 0, Region::src(1, 1, 0), SrcMod::None),
            src1: general(93, 0, 4, Region::src(1, 1, 0), SrcMod::None),
        }
    }

    const WORKED_HEX: &str =
        "45 03 01 00 5C000000 00 00 0002 00 5C000000 00 00 2201 00 5D000000 00 04 2201";

    #[test]
    fn worked_example_bytes() {
        round_trip(&worked_example(), WORKED_HEX);
        assert_eq!(encode(&worked_example()).map(|b| b.len()), Ok(30));
    }

    /// `max.sat (M5_NM, 16) V10(1,2)<2> (-abs)V11(0,1)<8;4,2> 0x3f800000:f`
    ///
    /// - `45` opcode; `c4`: size 16 = code 4, M5_NM = code 12 in bits 7-4; `01` max.
    /// - dst: tag `20` (class 0, modifier 4 = sat), id `0a000000`, row `01`, col `02`,
    ///   region `<2>`: hs code 3 in bits 8-11 = 0x0300 = `00 03`.
    /// - src0: tag `18` (modifier 3 = neg-abs), id `0b000000`, row `00`, col `01`, region
    ///   `<8;4,2>`: vs code 5, w code 4, hs code 3 = 0x0345 = `45 03`.
    /// - src1: tag `05` (immediate), type `07` (F), value `00 00 80 3f`.
    #[test]
    fn sat_nomask_negabs_float_imm() {
        let i = MinMax {
            op: Op::Max,
            sat: true,
            exec_size: 16,
            mask: MaskCtrl {
                group: 4,
                no_mask: true,
            },
            dst: general(10, 1, 2, Region::dst(2), SrcMod::None),
            src0: general(11, 0, 1, Region::src(8, 4, 2), SrcMod::NegAbs),
            src1: Operand::Imm {
                ty: VType::F,
                bits: 0x3f80_0000,
            },
        };
        round_trip(
            &i,
            "45 c4 01 20 0a000000 01 02 0003 18 0b000000 00 01 4503 05 07 0000803f",
        );
    }

    /// `min (M2, 4) V300(0,0)<1> 0x3ff0000000000000:df 0xfffffffffffffffe:q`
    ///
    /// - `45`; `12`: size 4 = code 2, M2 = code 1; `00` min.
    /// - dst: tag `00`, id 300 = `2c010000`, row `00`, col `00`, region `<1>` = `00 02`.
    /// - src0: tag `05`, type `06` (DF), 8 value bytes `00 00 00 00 00 00 f0 3f`.
    /// - src1: tag `05`, type `0d` (Q), 8 value bytes `fe ff ff ff ff ff ff ff`.
    #[test]
    fn eight_byte_immediates() {
        let i = MinMax {
            op: Op::Min,
            sat: false,
            exec_size: 4,
            mask: MaskCtrl {
                group: 1,
                no_mask: false,
            },
            dst: general(300, 0, 0, Region::dst(1), SrcMod::None),
            src0: Operand::Imm {
                ty: VType::DF,
                bits: 0x3ff0_0000_0000_0000,
            },
            src1: Operand::Imm {
                ty: VType::Q,
                bits: 0xffff_ffff_ffff_fffe,
            },
        };
        round_trip(
            &i,
            "45 12 00 00 2c010000 00 00 0002 05 06 000000000000f03f 05 0d feffffffffffffff",
        );
    }

    /// `max (M8, 1) V5(2,3)<0> (abs)V6(4,5)<32;16,0> 0x3c00:hf`
    ///
    /// - `45`; `70`: size 1 = code 0, M8 = code 7; `01` max.
    /// - dst: tag `00`, id `05000000`, row `02`, col `03`, region `<0>`: hs code 1 = `00 01`.
    /// - src0: tag `08` (abs), id `06000000`, row `04`, col `05`, region `<32;16,0>`: vs code 7,
    ///   w code 6, hs code 1 = 0x0167 = `67 01`.
    /// - src1: tag `05`, type `0e` (HF), value in the low 2 of 4 bytes: `00 3c 00 00`.
    #[test]
    fn half_immediate_and_extreme_region() {
        let i = MinMax {
            op: Op::Max,
            sat: false,
            exec_size: 1,
            mask: MaskCtrl {
                group: 7,
                no_mask: false,
            },
            dst: general(5, 2, 3, Region::dst(0), SrcMod::None),
            src0: general(6, 4, 5, Region::src(32, 16, 0), SrcMod::Abs),
            src1: Operand::Imm {
                ty: VType::HF,
                bits: 0x3c00,
            },
        };
        round_trip(
            &i,
            "45 70 01 00 05000000 02 03 0001 08 06000000 04 05 6701 05 0e 003c0000",
        );
        // A nonzero byte above HF's 2-byte width (value bytes start at offset 23).
        let mut bad = encode(&i).expect("encodes");
        if let Some(b) = bad.get_mut(25) {
            *b = 1;
        }
        let e = decode(&bad).expect_err("high byte");
        assert_eq!(e.offset, 25);
        assert!(e.message.contains("above the type's 2-byte width"), "{e}");
    }

    fn decode_err(bytes: &[u8]) -> DecodeError {
        decode(bytes).expect_err("should not decode")
    }

    fn patched(hex_text: &str, at: usize, value: u8) -> Vec<u8> {
        let mut b = hex(hex_text);
        if let Some(x) = b.get_mut(at) {
            *x = value;
        }
        b
    }

    #[test]
    fn truncated() {
        let e = decode_err(&[]);
        assert_eq!(e.offset, 0);
        assert_eq!(
            e.to_string(),
            "byte 0: truncated: opcode needs 1 byte(s), 0 left"
        );

        let full = hex(WORKED_HEX);
        // Cut inside the dst region (offsets 10-11).
        let e = decode_err(full.get(..11).unwrap_or(&[]));
        assert_eq!(e.offset, 10);
        assert_eq!(e.message, "truncated: dst region needs 2 byte(s), 1 left");
        // Every proper prefix is truncated, never a panic.
        for n in 0..full.len() {
            let e = decode_err(full.get(..n).unwrap_or(&[]));
            assert!(e.message.starts_with("truncated"), "{n}: {e}");
            assert!(e.offset <= n, "{n}: {e}");
        }
        // An 8-byte immediate cut short.
        let e = decode_err(&hex("45 00 00 00 00000000 00 00 0002 05 06 0000"));
        assert_eq!(e.offset, 14);
        assert_eq!(
            e.message,
            "truncated: src0 immediate :df value needs 8 byte(s), 2 left"
        );
    }

    #[test]
    fn wrong_opcode() {
        let e = decode_err(&patched(WORKED_HEX, 0, 0x46));
        assert_eq!(e.offset, 0);
        assert_eq!(e.message, "wrong opcode 0x46: expected 0x45 (MIN_MAX)");
    }

    #[test]
    fn exec_and_op_bytes() {
        let e = decode_err(&patched(WORKED_HEX, 1, 0x0b));
        assert_eq!(e.offset, 1);
        assert_eq!(e.message, "exec-size byte 0x0b: reserved bit 3 is set");
        let e = decode_err(&patched(WORKED_HEX, 1, 0x06));
        assert_eq!(e.offset, 1);
        assert!(e.message.contains("bad size code 6"), "{e}");
        let e = decode_err(&patched(WORKED_HEX, 2, 0x03));
        assert_eq!(e.offset, 2);
        assert!(e.message.contains("reserved bits 1-7"), "{e}");
        // Every mask code decodes, NoMask included.
        for code in 0..16u8 {
            let (i, _) = decode(&patched(WORKED_HEX, 1, 0x03 | (code << 4))).expect("mask");
            assert_eq!(i.mask, MaskCtrl::from_code(code));
        }
    }

    /// `max (M2_NM, 16) r[A300(255),32767]<0>:uq (abs)r[A65535(1),-32768]<0;1,0>:b V7(0,0)<1;1,0>`
    ///
    /// - `45`; `94`: size 16 = code 4, M2_NM = code 9 in bits 7-4; `01` max.
    /// - dst: tag `03` (class 3, no sat), index 300 = `2c 01`, addr_offset `ff`, indirect offset
    ///   32767 = 0x7fff = `ff 7f`, bit_property UQ = 11 = `0b`, region `<0>`: hs code 1 = `00 01`.
    /// - src0: tag `0b` (class 3, modifier 1 = abs), index 65535 = `ff ff`, addr_offset `01`,
    ///   offset -32768 = 0x8000 = `00 80`, bit_property B = `05`, region `<0;1,0>`: vs code 1,
    ///   w code 2, hs code 1 = 0x0121 = `21 01`.
    /// - src1: tag `00`, id `07000000`, row `00`, col `00`, region `<1;1,0>` = 0x0122 = `22 01`.
    #[test]
    fn indirect_operands() {
        let i = MinMax {
            op: Op::Max,
            sat: false,
            exec_size: 16,
            mask: MaskCtrl {
                group: 1,
                no_mask: true,
            },
            dst: Operand::Indirect {
                addr: 300,
                addr_offset: 255,
                offset: 32767,
                ty: VType::UQ,
                region: Region::dst(0),
                modifier: SrcMod::None,
            },
            src0: Operand::Indirect {
                addr: 65535,
                addr_offset: 1,
                offset: -32768,
                ty: VType::B,
                region: Region::src(0, 1, 0),
                modifier: SrcMod::Abs,
            },
            src1: general(7, 0, 0, Region::src(1, 1, 0), SrcMod::None),
        };
        const BYTES: &str =
            "45 94 01 03 2c01 ff ff7f 0b 0001 0b ffff 01 0080 05 2101 00 07000000 00 00 2201";
        round_trip(&i, BYTES);
        // `.sat` on an indirect destination: modifier 4 in the dst tag.
        let mut sat = i;
        sat.sat = true;
        assert_eq!(
            encode(&sat).map(|b| b.get(3).copied()),
            Ok(Some(0x23)),
            "sat tag"
        );
        // bit_property: reserved high nibble (dst's at offset 9), unknown type code 8.
        let e = decode_err(&patched(BYTES, 9, 0x1b));
        assert_eq!(e.offset, 9);
        assert_eq!(
            e.message,
            "dst bit_property 0x1b: reserved bits 4-7 are set"
        );
        let e = decode_err(&patched(BYTES, 18, 0x08));
        assert_eq!(e.offset, 18);
        assert_eq!(
            e.message,
            "src0: unknown type code 8 for an indirect operand"
        );
        // A source-shaped region on an indirect destination (region at 10-11).
        let e = decode_err(&patched(BYTES, 10, 0x22));
        assert_eq!(e.offset, 10);
        assert!(e.message.contains("destination region must be <hs>"), "{e}");
        // A source modifier on an indirect destination.
        let e = decode_err(&patched(BYTES, 3, 0x13));
        assert_eq!(e.offset, 3);
        assert!(
            e.message.contains("dst cannot have a source modifier"),
            "{e}"
        );
        // Cut inside src0's indirect offset (offsets 16-17).
        let full = hex(BYTES);
        let e = decode_err(full.get(..17).unwrap_or(&[]));
        assert_eq!(e.offset, 16);
        assert_eq!(
            e.message,
            "truncated: src0 indirect offset needs 2 byte(s), 1 left"
        );
        let mut bad = i;
        bad.dst = Operand::Indirect {
            addr: 0,
            addr_offset: 0,
            offset: 0,
            ty: VType::D,
            region: Region::dst(1),
            modifier: SrcMod::Neg,
        };
        assert!(encode(&bad)
            .unwrap_err()
            .contains("dst cannot have a source modifier"));
        bad = i;
        bad.src0 = Operand::Indirect {
            addr: 0,
            addr_offset: 0,
            offset: 0,
            ty: VType::D,
            region: Region::src(1, 3, 0),
            modifier: SrcMod::None,
        };
        assert!(encode(&bad)
            .unwrap_err()
            .contains("width 3 cannot be encoded"));
    }

    #[test]
    fn unknown_class_and_reserved_tag_bits() {
        let e = decode_err(&patched(WORKED_HEX, 12, 0x06));
        assert_eq!(e.offset, 12);
        assert!(e.message.contains("unknown operand class 6"), "{e}");
        let e = decode_err(&patched(WORKED_HEX, 3, 0x40));
        assert_eq!(e.offset, 3);
        assert!(e.message.contains("reserved bits 6-7"), "{e}");
        let e = decode_err(&patched(WORKED_HEX, 21, 0x28));
        assert_eq!(e.offset, 21);
        assert!(e.message.contains("unknown modifier code 5"), "{e}");
    }

    #[test]
    fn sat_on_source() {
        // src1's tag is at offset 21.
        let e = decode_err(&patched(WORKED_HEX, 21, 0x20));
        assert_eq!(e.offset, 21);
        assert_eq!(
            e.message,
            "src1: sat (modifier code 4) is only valid on the destination"
        );
        // And on the destination it is `.sat`.
        let (i, _) = decode(&patched(WORKED_HEX, 3, 0x20)).expect("dst sat");
        assert!(i.sat);
    }

    #[test]
    fn bad_destination() {
        let e = decode_err(&patched(WORKED_HEX, 3, 0x10));
        assert_eq!(e.offset, 3);
        assert_eq!(
            e.message,
            "dst cannot have a source modifier (modifier code 2)"
        );
        let e = decode_err(&patched(WORKED_HEX, 3, 0x05));
        assert_eq!(e.offset, 3);
        assert!(
            e.message
                .contains("dst must be a general or indirect operand"),
            "{e}"
        );
        // A source-shaped region on the destination (region at offsets 10-11).
        let e = decode_err(&patched(WORKED_HEX, 10, 0x22));
        assert_eq!(e.offset, 10);
        assert!(e.message.contains("destination region must be <hs>"), "{e}");
        // A null width on a source (src0 region at offsets 19-20).
        let e = decode_err(&patched(WORKED_HEX, 19, 0x02));
        assert_eq!(e.offset, 19);
        assert!(e.message.contains("source region must set"), "{e}");
    }

    #[test]
    fn bad_region_nibble() {
        // src0's region is at offsets 19-20: vs nibble 9.
        let e = decode_err(&patched(WORKED_HEX, 19, 0x29));
        assert_eq!(e.offset, 19);
        assert_eq!(
            e.message,
            "src0 region: bad vertical stride nibble 9 (codes 0-7)"
        );
        // hs nibble 9, in the second region byte.
        let e = decode_err(&patched(WORKED_HEX, 20, 0x09));
        assert_eq!(e.offset, 20);
        assert!(e.message.contains("bad horizontal stride nibble 9"), "{e}");
        // Reserved bits 12-15.
        let e = decode_err(&patched(WORKED_HEX, 20, 0x11));
        assert_eq!(e.offset, 20);
        assert!(e.message.contains("reserved bits 12-15"), "{e}");
    }

    #[test]
    fn unknown_type_code() {
        let e = decode_err(&hex("45 00 00 00 00000000 00 00 0002 05 08 00000000"));
        assert_eq!(e.offset, 13);
        assert_eq!(e.message, "src0: unknown type code 8 for an immediate");
        let e = decode_err(&hex("45 00 00 00 00000000 00 00 0002 0d 07 00000000"));
        assert_eq!(e.offset, 12);
        assert!(
            e.message
                .contains("immediate cannot have a source modifier"),
            "{e}"
        );
    }

    #[test]
    fn encode_errors() {
        let ok = worked_example();
        let mut i = ok;
        i.exec_size = 3;
        assert!(encode(&i).unwrap_err().contains("execution size 3"));
        i = ok;
        i.mask.group = 8;
        assert!(encode(&i).unwrap_err().contains("mask group 8"));
        i = ok;
        i.src0 = general(1, 0, 0, Region::src(3, 1, 0), SrcMod::None);
        assert!(encode(&i)
            .unwrap_err()
            .contains("vertical stride 3 cannot be encoded"));
        i = ok;
        i.src1 = general(1, 0, 0, Region::src(1, 64, 0), SrcMod::None);
        assert!(encode(&i)
            .unwrap_err()
            .contains("width 64 cannot be encoded"));
        i = ok;
        i.dst = Operand::Imm {
            ty: VType::D,
            bits: 1,
        };
        assert!(encode(&i)
            .unwrap_err()
            .contains("dst must be a general or indirect operand"));
        i = ok;
        i.dst = general(1, 0, 0, Region::dst(1), SrcMod::Neg);
        assert!(encode(&i)
            .unwrap_err()
            .contains("dst cannot have a source modifier"));
        i = ok;
        i.dst = general(1, 0, 0, Region::src(1, 1, 0), SrcMod::None);
        assert!(encode(&i).unwrap_err().contains("destination region"));
        i = ok;
        i.src0 = general(1, 0, 0, Region::dst(1), SrcMod::None);
        assert!(encode(&i).unwrap_err().contains("source region"));
        i = ok;
        i.src1 = Operand::Imm {
            ty: VType::UW,
            bits: 0x1_0000,
        };
        assert!(encode(&i).unwrap_err().contains("wider than its type :uw"));
    }

    #[test]
    fn hex_text() {
        assert_eq!(to_hex(&[]), "");
        assert_eq!(to_hex(&[0x45, 0x03, 0xab]), "45 03 ab");
        assert_eq!(from_hex("45 03 AB"), Ok(vec![0x45, 0x03, 0xab]));
        assert_eq!(from_hex("4503aB"), Ok(vec![0x45, 0x03, 0xab]));
        assert_eq!(from_hex("  45\n03\t "), Ok(vec![0x45, 0x03]));
        assert_eq!(from_hex(""), Ok(vec![]));
        assert_eq!(
            from_hex("45 0g"),
            Err("bad hex character 'g' at position 4".to_string())
        );
        assert_eq!(
            from_hex("45 0"),
            Err("odd number of hex digits (3): the last byte is incomplete".to_string())
        );
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(from_hex(&to_hex(&bytes)), Ok(bytes));
    }

    fn region_value() -> impl Strategy<Value = u8> {
        prop::sample::select(REGION_VALUES.to_vec())
    }

    fn imm() -> impl Strategy<Value = Operand> {
        (prop::sample::select(VType::ALL.to_vec()), any::<u64>()).prop_map(|(ty, bits)| {
            let bits = if ty.size() < 8 {
                bits & ((1u64 << (8 * ty.size())) - 1)
            } else {
                bits
            };
            Operand::Imm { ty, bits }
        })
    }

    fn general_src() -> impl Strategy<Value = Operand> {
        (
            any::<u32>(),
            any::<u8>(),
            any::<u8>(),
            (region_value(), region_value(), region_value()),
            prop::sample::select(vec![SrcMod::None, SrcMod::Abs, SrcMod::Neg, SrcMod::NegAbs]),
        )
            .prop_map(|(id, row, col, (vs, w, hs), modifier)| {
                general(id, row, col, Region::src(vs, w, hs), modifier)
            })
    }

    fn modifier() -> impl Strategy<Value = SrcMod> {
        prop::sample::select(vec![SrcMod::None, SrcMod::Abs, SrcMod::Neg, SrcMod::NegAbs])
    }

    /// An indirect operand with a source region or, for `dst`, a destination region.
    fn indirect(dst: bool) -> impl Strategy<Value = Operand> {
        (
            any::<u16>(),
            any::<u8>(),
            any::<i16>(),
            prop::sample::select(VType::ALL.to_vec()),
            (region_value(), region_value(), region_value()),
            modifier(),
        )
            .prop_map(move |(addr, addr_offset, offset, ty, (vs, w, hs), m)| {
                Operand::Indirect {
                    addr,
                    addr_offset,
                    offset,
                    ty,
                    region: if dst {
                        Region::dst(hs)
                    } else {
                        Region::src(vs, w, hs)
                    },
                    modifier: if dst { SrcMod::None } else { m },
                }
            })
    }

    fn source() -> impl Strategy<Value = Operand> {
        prop_oneof![general_src(), imm(), indirect(false)]
    }

    fn destination() -> impl Strategy<Value = Operand> {
        prop_oneof![
            (any::<u32>(), any::<u8>(), any::<u8>(), region_value()).prop_map(
                |(id, row, col, hs)| general(id, row, col, Region::dst(hs), SrcMod::None)
            ),
            indirect(true),
        ]
    }

    fn min_max() -> impl Strategy<Value = MinMax> {
        (
            prop::sample::select(vec![Op::Min, Op::Max]),
            any::<bool>(),
            prop::sample::select(EXEC_SIZES.to_vec()),
            0u8..8,
            any::<bool>(),
            destination(),
            source(),
            source(),
        )
            .prop_map(
                |(op, sat, exec_size, group, no_mask, dst, src0, src1)| MinMax {
                    op,
                    sat,
                    exec_size,
                    mask: MaskCtrl { group, no_mask },
                    dst,
                    src0,
                    src1,
                },
            )
    }

    /// Arbitrary bytes: a third of them start with the opcode so decoding gets past byte 0, and
    /// a third also have indirect tags (class 3, any modifier) where each operand's tag sits when
    /// the operands before it are indirect, so the indirect payload decoder sees random bytes.
    fn byte_soup() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            prop::collection::vec(any::<u8>(), 0..64),
            prop::collection::vec(any::<u8>(), 0..63).prop_map(|mut v| {
                v.insert(0, OPCODE);
                v
            }),
            (
                prop::collection::vec(any::<u8>(), 0..40),
                [0u8..8, 0u8..8, 0u8..8]
            )
                .prop_map(|(mut v, mods)| {
                    v.resize(v.len().max(30), 0);
                    v.insert(0, OPCODE);
                    // Tags at 3, 12 and 21: each indirect payload is 8 bytes.
                    for (at, m) in [3usize, 12, 21].into_iter().zip(mods) {
                        if let Some(b) = v.get_mut(at) {
                            *b = CLASS_INDIRECT | (m << 3);
                        }
                    }
                    v
                }),
        ]
    }

    /// Re-encoding an accepted prefix gives back exactly that prefix.
    fn check_decoded(bytes: &[u8]) -> Result<(), TestCaseError> {
        match decode(bytes) {
            Ok((i, n)) => {
                prop_assert!(n <= bytes.len());
                prop_assert_eq!(encode(&i), Ok(bytes.get(..n).unwrap_or(&[]).to_vec()));
            }
            Err(e) => prop_assert!(e.offset <= bytes.len(), "{}", e),
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn round_trips(i in min_max(), tail in prop::collection::vec(any::<u8>(), 0..4)) {
            let bytes = encode(&i).map_err(TestCaseError::fail)?;
            prop_assert_eq!(decode(&bytes), Ok((i, bytes.len())));
            let mut longer = bytes.clone();
            longer.extend_from_slice(&tail);
            prop_assert_eq!(decode(&longer), Ok((i, bytes.len())));
            prop_assert_eq!(from_hex(&to_hex(&bytes)), Ok(bytes));
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in byte_soup()) {
            check_decoded(&bytes)?;
        }

        /// Valid encodings with one byte replaced: reaches deep into the decoder, and
        /// whatever it accepts must re-encode to the same bytes.
        #[test]
        fn mutated_encodings(i in min_max(), at in any::<prop::sample::Index>(), value in any::<u8>()) {
            let mut bytes = encode(&i).map_err(TestCaseError::fail)?;
            let k = at.index(bytes.len());
            if let Some(b) = bytes.get_mut(k) {
                *b = value;
            }
            check_decoded(&bytes)?;
        }
    }
}
