//! A PTX floating-point instruction as a plain value: opcode, type, modifier set and input count
//! (PTX ISA 9.7.3, 9.7.4). One table of spellings drives both parsing and printing.

use crate::round::Round;
use core::fmt;

/// The property `testp` tests (PTX ISA 9.7.3.1: `.op = { .finite, .infinite, .number,
/// .notanumber, .normal, .subnormal }`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TestpOp {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

impl TestpOp {
    pub const ALL: [TestpOp; 6] = [
        TestpOp::Finite,
        TestpOp::Infinite,
        TestpOp::Number,
        TestpOp::NotANumber,
        TestpOp::Normal,
        TestpOp::Subnormal,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TestpOp::Finite => "finite",
            TestpOp::Infinite => "infinite",
            TestpOp::Number => "number",
            TestpOp::NotANumber => "notanumber",
            TestpOp::Normal => "normal",
            TestpOp::Subnormal => "subnormal",
        }
    }
}

/// The floating-point opcodes of PTX ISA 9.7.3 and 9.7.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opcode {
    Testp(TestpOp),
    Copysign,
    Add,
    Sub,
    Mul,
    Fma,
    Mad,
    Div,
    Abs,
    Neg,
    Min,
    Max,
    Rcp,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
}

impl Opcode {
    /// Every opcode, `testp` with its first property standing for all six.
    pub const ALL: [Opcode; 20] = [
        Opcode::Testp(TestpOp::Finite),
        Opcode::Copysign,
        Opcode::Add,
        Opcode::Sub,
        Opcode::Mul,
        Opcode::Fma,
        Opcode::Mad,
        Opcode::Div,
        Opcode::Abs,
        Opcode::Neg,
        Opcode::Min,
        Opcode::Max,
        Opcode::Rcp,
        Opcode::Sqrt,
        Opcode::Rsqrt,
        Opcode::Sin,
        Opcode::Cos,
        Opcode::Lg2,
        Opcode::Ex2,
        Opcode::Tanh,
    ];

    /// The mnemonic, without any property or modifier.
    pub fn name(self) -> &'static str {
        match self {
            Opcode::Testp(_) => "testp",
            Opcode::Copysign => "copysign",
            Opcode::Add => "add",
            Opcode::Sub => "sub",
            Opcode::Mul => "mul",
            Opcode::Fma => "fma",
            Opcode::Mad => "mad",
            Opcode::Div => "div",
            Opcode::Abs => "abs",
            Opcode::Neg => "neg",
            Opcode::Min => "min",
            Opcode::Max => "max",
            Opcode::Rcp => "rcp",
            Opcode::Sqrt => "sqrt",
            Opcode::Rsqrt => "rsqrt",
            Opcode::Sin => "sin",
            Opcode::Cos => "cos",
            Opcode::Lg2 => "lg2",
            Opcode::Ex2 => "ex2",
            Opcode::Tanh => "tanh",
        }
    }

    /// The opcode with mnemonic `name` (`testp` with its first property standing for all six).
    pub fn from_name(name: &str) -> Option<Opcode> {
        Opcode::ALL.into_iter().find(|o| o.name() == name)
    }

    /// The number of source operands; min/max also have a 3-input form.
    pub fn default_inputs(self) -> u8 {
        match self {
            Opcode::Testp(_)
            | Opcode::Abs
            | Opcode::Neg
            | Opcode::Rcp
            | Opcode::Sqrt
            | Opcode::Rsqrt
            | Opcode::Sin
            | Opcode::Cos
            | Opcode::Lg2
            | Opcode::Ex2
            | Opcode::Tanh => 1,
            Opcode::Copysign
            | Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::Div
            | Opcode::Min
            | Opcode::Max => 2,
            Opcode::Fma | Opcode::Mad => 3,
        }
    }
}

/// The instruction types of PTX ISA 9.7.3 and 9.7.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    F32,
    F64,
    F32x2,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
}

impl Type {
    pub const ALL: [Type; 7] = [
        Type::F32,
        Type::F64,
        Type::F32x2,
        Type::F16,
        Type::F16x2,
        Type::Bf16,
        Type::Bf16x2,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Type::F32 => "f32",
            Type::F64 => "f64",
            Type::F32x2 => "f32x2",
            Type::F16 => "f16",
            Type::F16x2 => "f16x2",
            Type::Bf16 => "bf16",
            Type::Bf16x2 => "bf16x2",
        }
    }

    /// Width of an operand of this type in bits (lanes included).
    pub fn bits(self) -> u32 {
        match self {
            Type::F16 | Type::Bf16 => 16,
            Type::F32 | Type::F16x2 | Type::Bf16x2 => 32,
            Type::F64 | Type::F32x2 => 64,
        }
    }

    /// Number of SIMD lanes.
    pub fn lanes(self) -> u32 {
        match self {
            Type::F32x2 | Type::F16x2 | Type::Bf16x2 => 2,
            _ => 1,
        }
    }

    /// The width of one lane's exponent field; the sign is the top bit and the significand's
    /// fraction field the `lane().bits() - 1 - exponent_bits()` low bits.
    pub fn exponent_bits(self) -> u32 {
        match self.lane() {
            Type::F16 => 5,
            Type::F64 => 11,
            _ => 8,
        }
    }

    /// The scalar type of one lane.
    pub fn lane(self) -> Type {
        match self {
            Type::F32x2 => Type::F32,
            Type::F16x2 => Type::F16,
            Type::Bf16x2 => Type::Bf16,
            t => t,
        }
    }

    pub fn is_half(self) -> bool {
        matches!(self.lane(), Type::F16 | Type::Bf16)
    }

    pub fn is_bf16(self) -> bool {
        self.lane() == Type::Bf16
    }
}

/// One modifier word, as the parser reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Modifier {
    Rnd(Round),
    Approx,
    Full,
    Ftz,
    Oob,
    Sat,
    Relu,
    NaN,
    Xorsign,
    Abs,
}

/// Every modifier with its spelling, in the manual's canonical order (`div.full`, `fma.rn.ftz.sat`,
/// `fma.rn.oob.relu`, `min.ftz.NaN.xorsign.abs`, `ex2.approx.ftz`). Parsing and printing both use
/// it. `.full` comes first because it must directly follow `div`.
pub const MODIFIERS: [(&str, Modifier); 13] = [
    ("full", Modifier::Full),
    ("approx", Modifier::Approx),
    ("rn", Modifier::Rnd(Round::Rn)),
    ("rz", Modifier::Rnd(Round::Rz)),
    ("rm", Modifier::Rnd(Round::Rm)),
    ("rp", Modifier::Rnd(Round::Rp)),
    ("ftz", Modifier::Ftz),
    ("oob", Modifier::Oob),
    ("sat", Modifier::Sat),
    ("relu", Modifier::Relu),
    ("NaN", Modifier::NaN),
    ("xorsign", Modifier::Xorsign),
    ("abs", Modifier::Abs),
];

/// The modifier set of an instruction: each modifier at most once, order irrelevant (as ptxas
/// 13.5 treats it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Modifiers {
    pub rnd: Option<Round>,
    pub approx: bool,
    pub full: bool,
    pub ftz: bool,
    pub oob: bool,
    pub sat: bool,
    pub relu: bool,
    pub nan: bool,
    pub xorsign: bool,
    pub abs: bool,
}

impl Modifiers {
    /// Whether `m` is in the set.
    pub fn has(&self, m: Modifier) -> bool {
        match m {
            Modifier::Rnd(r) => self.rnd == Some(r),
            Modifier::Approx => self.approx,
            Modifier::Full => self.full,
            Modifier::Ftz => self.ftz,
            Modifier::Oob => self.oob,
            Modifier::Sat => self.sat,
            Modifier::Relu => self.relu,
            Modifier::NaN => self.nan,
            Modifier::Xorsign => self.xorsign,
            Modifier::Abs => self.abs,
        }
    }

    /// Adds `m`; false if it (or another rounding modifier) is already there.
    pub fn insert(&mut self, m: Modifier) -> bool {
        let slot = match m {
            Modifier::Rnd(r) => {
                let fresh = self.rnd.is_none();
                self.rnd = Some(r);
                return fresh;
            }
            Modifier::Approx => &mut self.approx,
            Modifier::Full => &mut self.full,
            Modifier::Ftz => &mut self.ftz,
            Modifier::Oob => &mut self.oob,
            Modifier::Sat => &mut self.sat,
            Modifier::Relu => &mut self.relu,
            Modifier::NaN => &mut self.nan,
            Modifier::Xorsign => &mut self.xorsign,
            Modifier::Abs => &mut self.abs,
        };
        !core::mem::replace(slot, true)
    }

    /// Removes `m` (a rounding modifier only if it is that one).
    pub fn remove(&mut self, m: Modifier) {
        if self.has(m) {
            let mut rest = Modifiers::default();
            for (_, other) in self.iter().filter(|(_, o)| *o != m) {
                rest.insert(other);
            }
            *self = rest;
        }
    }

    /// The modifiers present, in canonical order, with their spellings.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, Modifier)> + '_ {
        MODIFIERS.into_iter().filter(|(_, m)| self.has(*m))
    }
}

/// A PTX floating-point instruction without operands: `fma.rn.ftz.sat.f32`, 3 inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instr {
    pub opcode: Opcode,
    pub ty: Type,
    pub mods: Modifiers,
    /// Number of source operands (2 or 3 for min/max; fixed by the opcode otherwise).
    pub inputs: u8,
}

impl Instr {
    /// An instruction with no modifiers and the opcode's usual input count.
    pub fn new(opcode: Opcode, ty: Type) -> Self {
        Instr {
            opcode,
            ty,
            mods: Modifiers::default(),
            inputs: opcode.default_inputs(),
        }
    }
}

/// The canonical spelling: the manual's modifier order, e.g. `min.ftz.NaN.xorsign.abs.f32`.
impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.opcode.name())?;
        if let Opcode::Testp(op) = self.opcode {
            write!(f, ".{}", op.name())?;
        }
        for (name, _) in self.mods.iter() {
            write!(f, ".{name}")?;
        }
        write!(f, ".{}", self.ty.name())
    }
}
