//! Intel vISA `MIN_MAX` (opcode 0x45): the instruction, its operands and regions, the kernel state
//! it reads and writes, its assembly text and its binary encoding (Intel's vISA
//! specification, MIN_MAX; the open points in docs/semantics.md, `visa_equal_operands`).

pub mod asm;
pub mod assign;
pub mod encode;
pub mod exec;
pub mod state;

use core::fmt;

/// The element types `MIN_MAX` supports ("Supported Types: B,D,DF,F,HF,Q,UB,UD,UQ,UW,W"), with
/// vISA's type codes (the immediate operand's type byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VType {
    UD,
    D,
    UW,
    W,
    UB,
    B,
    DF,
    F,
    UQ,
    Q,
    HF,
}

impl VType {
    pub const ALL: [VType; 11] = [
        VType::UD,
        VType::D,
        VType::UW,
        VType::W,
        VType::UB,
        VType::B,
        VType::DF,
        VType::F,
        VType::UQ,
        VType::Q,
        VType::HF,
    ];

    /// vISA's numeric type code.
    pub fn code(self) -> u8 {
        match self {
            VType::UD => 0,
            VType::D => 1,
            VType::UW => 2,
            VType::W => 3,
            VType::UB => 4,
            VType::B => 5,
            VType::DF => 6,
            VType::F => 7,
            VType::UQ => 11,
            VType::Q => 13,
            VType::HF => 14,
        }
    }

    pub fn from_code(code: u8) -> Option<VType> {
        VType::ALL.into_iter().find(|t| t.code() == code)
    }

    /// The lowercase spelling used in declarations (`type=f`) and immediates (`:f`).
    pub fn name(self) -> &'static str {
        match self {
            VType::UD => "ud",
            VType::D => "d",
            VType::UW => "uw",
            VType::W => "w",
            VType::UB => "ub",
            VType::B => "b",
            VType::DF => "df",
            VType::F => "f",
            VType::UQ => "uq",
            VType::Q => "q",
            VType::HF => "hf",
        }
    }

    pub fn from_name(s: &str) -> Option<VType> {
        VType::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(s))
    }

    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        match self {
            VType::UB | VType::B => 1,
            VType::UW | VType::W | VType::HF => 2,
            VType::UD | VType::D | VType::F => 4,
            VType::UQ | VType::Q | VType::DF => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, VType::HF | VType::F | VType::DF)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, VType::B | VType::W | VType::D | VType::Q)
    }

    /// The range of an integer type, as i128.
    pub fn int_range(self) -> (i128, i128) {
        let bits = 8 * self.size() as u32;
        if self.is_signed() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        }
    }
}

/// `min` or `max` (the Op byte's bit 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Min,
    Max,
}

/// The source modifier of an operand: `(-)`, `(abs)`, `(-abs)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SrcMod {
    #[default]
    None,
    Abs,
    Neg,
    NegAbs,
}

impl SrcMod {
    /// The modifier field of an operand's tag byte (bits 3-5): abs 1, neg 2, neg-abs 3.
    pub fn code(self) -> u8 {
        match self {
            SrcMod::None => 0,
            SrcMod::Abs => 1,
            SrcMod::Neg => 2,
            SrcMod::NegAbs => 3,
        }
    }

    pub fn text(self) -> &'static str {
        match self {
            SrcMod::None => "",
            SrcMod::Abs => "(abs)",
            SrcMod::Neg => "(-)",
            SrcMod::NegAbs => "(-abs)",
        }
    }
}

/// A source region `<vs;w,hs>` (vertical stride, width, horizontal stride, in elements) or a
/// destination region `<hs>` (only `hs` set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Region {
    pub vs: Option<u8>,
    pub w: Option<u8>,
    pub hs: Option<u8>,
}

impl Region {
    pub const fn src(vs: u8, w: u8, hs: u8) -> Self {
        Region {
            vs: Some(vs),
            w: Some(w),
            hs: Some(hs),
        }
    }

    pub const fn dst(hs: u8) -> Self {
        Region {
            vs: None,
            w: None,
            hs: Some(hs),
        }
    }

    /// The element index (relative to the operand's start) of channel `k`:
    /// `(k / w) * vs + (k % w) * hs` for a source, `k * hs` for a destination.
    pub fn element(self, k: usize) -> usize {
        match (self.vs, self.w) {
            (Some(vs), Some(w)) if w > 0 => {
                (k / usize::from(w)) * usize::from(vs)
                    + (k % usize::from(w)) * usize::from(self.hs.unwrap_or(0))
            }
            _ => k * usize::from(self.hs.unwrap_or(0)),
        }
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = |x: Option<u8>| x.map_or(String::new(), |v| v.to_string());
        match (self.vs, self.w) {
            (None, None) => write!(f, "<{}>", n(self.hs)),
            _ => write!(f, "<{};{},{}>", n(self.vs), n(self.w), n(self.hs)),
        }
    }
}

/// An operand of `MIN_MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A general variable `V<id>(row, col)<region>` with a source modifier.
    General {
        id: u32,
        row: u8,
        col: u8,
        region: Region,
        modifier: SrcMod,
    },
    /// An immediate `value:type`, as bits of the type's width.
    Imm { ty: VType, bits: u64 },
    /// An indirect operand `r[A<addr>(<addr_offset>),<offset>]<region>:<type>` (1x1 indirect
    /// addressing, after the IGC vISA bytecode reader/disassembler): its base byte address in the
    /// register file is element `addr_offset` of address variable `A<addr>` plus the signed byte
    /// `offset`; channel `k` reads or writes an element of type `ty` at
    /// `base + region.element(k) * size_of(ty)`, whatever variable those bytes belong to.
    Indirect {
        addr: u16,
        addr_offset: u8,
        offset: i16,
        ty: VType,
        region: Region,
        modifier: SrcMod,
    },
}

impl Operand {
    /// The source modifier (`None` for an immediate).
    pub fn modifier(&self) -> SrcMod {
        match *self {
            Operand::General { modifier, .. } | Operand::Indirect { modifier, .. } => modifier,
            Operand::Imm { .. } => SrcMod::None,
        }
    }
}

/// The execution mask control: channel offset group M1..M8, and NoMask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MaskCtrl {
    /// 0 for M1 .. 7 for M8: the first channel is `4 * group`.
    pub group: u8,
    /// `_NM`: ignore the execution mask.
    pub no_mask: bool,
}

impl MaskCtrl {
    /// The exec-size byte's bits 7..4.
    pub fn code(self) -> u8 {
        self.group | if self.no_mask { 8 } else { 0 }
    }

    pub fn from_code(code: u8) -> MaskCtrl {
        MaskCtrl {
            group: code & 7,
            no_mask: code & 8 != 0,
        }
    }
}

impl fmt::Display for MaskCtrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "M{}{}",
            self.group + 1,
            if self.no_mask { "_NM" } else { "" }
        )
    }
}

/// One `MIN_MAX` instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MinMax {
    pub op: Op,
    pub sat: bool,
    /// 1, 2, 4, 8, 16 or 32.
    pub exec_size: u8,
    pub mask: MaskCtrl,
    pub dst: Operand,
    pub src0: Operand,
    pub src1: Operand,
}

/// The exec-size byte's bits 2..0 for an execution size.
pub fn exec_size_code(size: u8) -> Option<u8> {
    [1u8, 2, 4, 8, 16, 32]
        .iter()
        .position(|&s| s == size)
        .map(|p| p as u8)
}
