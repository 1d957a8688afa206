//! Which instruction variants exist, on which targets and PTX ISA versions (the "PTX ISA Notes" and
//! "Target ISA Notes" of PTX ISA 9.7.3 and 9.7.4), and what ptxas additionally accepts or rejects
//! (ptxas 13.5, run on each case). Messages follow ptxas's wording where it has one.

use super::instr::{Instr, Modifiers, Opcode, Type};
use crate::round::Round;
use core::fmt;
use core::str::FromStr;

/// A PTX ISA version, `.version X.Y`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PtxVersion {
    pub major: u8,
    pub minor: u8,
}

impl PtxVersion {
    pub const fn new(major: u8, minor: u8) -> Self {
        PtxVersion { major, minor }
    }
    /// The newest version ptxas 13.5 accepts.
    pub const NEWEST: PtxVersion = PtxVersion::new(9, 5);

    /// Every version ptxas 13.5 accepts; it refuses any other number.
    pub const ALL: [PtxVersion; 49] = {
        const LAST_MINOR: [u8; 10] = [0, 5, 3, 2, 3, 1, 5, 8, 8, 5];
        let mut all = [PtxVersion::new(0, 0); 49];
        let (mut major, mut n) = (1, 0);
        while major <= 9 {
            let mut minor = 0;
            while minor <= LAST_MINOR[major as usize] {
                all[n] = PtxVersion::new(major, minor);
                n += 1;
                minor += 1;
            }
            major += 1;
        }
        all
    };
}

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl FromStr for PtxVersion {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("`{s}` is not a PTX ISA version (expected X.Y, e.g. 7.8)");
        let (major, minor) = s.split_once('.').ok_or_else(bad)?;
        let v = PtxVersion::new(
            major.parse().map_err(|_| bad())?,
            minor.parse().map_err(|_| bad())?,
        );
        if minor.len() != 1 || !PtxVersion::ALL.contains(&v) {
            return Err(format!(
                "unknown PTX ISA version {s} (ptxas 13.5 knows 1.0-1.5, 2.0-2.3, 3.0-3.2, 4.0-4.3, \
                 5.0-5.1, 6.0-6.5, 7.0-7.8, 8.0-8.8, 9.0-9.5)"
            ));
        }
        Ok(v)
    }
}

/// The suffix of an architecture-specific target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetSuffix {
    /// `sm_90`: portable to later architectures.
    None,
    /// `sm_90a`: architecture-specific features.
    Arch,
    /// `sm_100f`: family-specific features.
    Family,
}

/// A `.target sm_XX[a|f]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    pub sm: u32,
    pub suffix: TargetSuffix,
}

/// Every target ptxas 13.5 knows (`sm_101` was renamed `sm_110`) with the first PTX ISA version
/// that accepts it: `(sm, base, a, f)`, a suffix's version `None` where the suffix does not exist.
const TARGETS: &[(u32, PtxVersion, Option<PtxVersion>, Option<PtxVersion>)] = &[
    (10, v(1, 0), None, None),
    (11, v(1, 0), None, None),
    (12, v(1, 2), None, None),
    (13, v(1, 2), None, None),
    (20, v(2, 0), None, None),
    (30, v(3, 0), None, None),
    (32, v(4, 0), None, None),
    (35, v(3, 1), None, None),
    (37, v(4, 1), None, None),
    (50, v(4, 0), None, None),
    (52, v(4, 1), None, None),
    (53, v(4, 2), None, None),
    (60, v(5, 0), None, None),
    (61, v(5, 0), None, None),
    (62, v(5, 0), None, None),
    (70, v(6, 0), None, None),
    (72, v(6, 1), None, None),
    (75, v(6, 3), None, None),
    (80, v(7, 0), None, None),
    (86, v(7, 1), None, None),
    (87, v(7, 4), None, None),
    (88, v(9, 0), None, None),
    (89, v(7, 8), None, None),
    (90, v(7, 8), Some(v(8, 0)), None),
    (100, v(8, 6), Some(v(8, 6)), Some(v(8, 8))),
    (103, v(8, 8), Some(v(8, 8)), Some(v(8, 8))),
    (107, v(9, 0), Some(v(9, 0)), Some(v(9, 0))),
    (110, v(9, 0), Some(v(9, 0)), Some(v(9, 0))),
    (120, v(8, 7), Some(v(8, 7)), Some(v(8, 8))),
    (121, v(8, 8), Some(v(8, 8)), Some(v(8, 8))),
];

impl Target {
    pub const fn new(sm: u32) -> Self {
        Target {
            sm,
            suffix: TargetSuffix::None,
        }
    }

    /// The first PTX ISA version that knows this target.
    pub fn min_ptx(self) -> PtxVersion {
        let (_, base, a, f) = TARGETS
            .iter()
            .find(|t| t.0 == self.sm)
            .expect("targets are only built from the table");
        match self.suffix {
            TargetSuffix::None => *base,
            TargetSuffix::Arch => a.expect("checked when parsed"),
            TargetSuffix::Family => f.expect("checked when parsed"),
        }
    }

    /// Every target ptxas 13.5 knows, lowest first, each architecture's `a` and `f` forms
    /// after its base form.
    pub fn all() -> Vec<Target> {
        let mut out = Vec::new();
        for &(sm, _, a, f) in TARGETS {
            out.push(Target::new(sm));
            for (exists, suffix) in [(a, TargetSuffix::Arch), (f, TargetSuffix::Family)] {
                if exists.is_some() {
                    out.push(Target { sm, suffix });
                }
            }
        }
        out
    }

    /// The lowest known target of at least `sm` (`sm_10` for 10, `sm_53` for 53).
    pub fn at_least(sm: u32) -> Target {
        let sm = TARGETS.iter().map(|t| t.0).find(|&s| s >= sm).unwrap_or(sm);
        Target::new(sm)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match self.suffix {
            TargetSuffix::None => "",
            TargetSuffix::Arch => "a",
            TargetSuffix::Family => "f",
        };
        write!(f, "sm_{}{suffix}", self.sm)
    }
}

impl FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad =
            || format!("unknown target `{s}` (expected sm_XX, sm_XXa or sm_XXf, e.g. sm_90a)");
        let rest = s.strip_prefix("sm_").ok_or_else(bad)?;
        let (digits, suffix) = match rest.strip_suffix('a') {
            Some(d) => (d, TargetSuffix::Arch),
            None => match rest.strip_suffix('f') {
                Some(d) => (d, TargetSuffix::Family),
                None => (rest, TargetSuffix::None),
            },
        };
        let sm: u32 = digits.parse().map_err(|_| bad())?;
        let row = TARGETS.iter().find(|t| t.0 == sm).ok_or_else(bad)?;
        let exists = match suffix {
            TargetSuffix::None => true,
            TargetSuffix::Arch => row.2.is_some(),
            TargetSuffix::Family => row.3.is_some(),
        };
        if !exists {
            return Err(bad());
        }
        Ok(Target { sm, suffix })
    }
}

/// A feature an instruction uses and the target and version it needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Need {
    /// How ptxas names the feature (`min.xorsign.abs`, `.NaN`, `add.bf16`).
    pub feature: String,
    pub sm: u32,
    pub ptx: PtxVersion,
}

/// A valid instruction's requirements and what it means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The instruction as the hardware runs it: the same, or the legacy default it stands for
    /// (`div.f32` before PTX ISA 1.4 is `div.approx.ftz.f32`).
    pub effective: Instr,
    /// The lowest target that has every feature used.
    pub min_target: Target,
    /// The target evaluation assumes when none is given: the lowest `sm_20` or later one that
    /// has the instruction, or `sm_10` for what exists only there (the truncating `mad.f32`).
    pub default_target: Target,
    /// The lowest PTX ISA version that has every feature used.
    pub min_ptx: PtxVersion,
    /// Every feature with its own requirement.
    pub needs: Vec<Need>,
    /// Accepted, but worth knowing (ptxas quirks, legacy defaults).
    pub warnings: Vec<String>,
}

/// Why an instruction is not valid: one message per problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid(pub Vec<String>);

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join("; "))
    }
}

impl std::error::Error for Invalid {}

/// The types each opcode exists for.
pub fn types_of(opcode: Opcode) -> &'static [Type] {
    use Type::*;
    match opcode {
        Opcode::Testp(_) | Opcode::Copysign | Opcode::Mad | Opcode::Div | Opcode::Rcp => {
            &[F32, F64]
        }
        Opcode::Sqrt | Opcode::Rsqrt => &[F32, F64],
        Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Fma => {
            &[F32, F64, F32x2, F16, F16x2, Bf16, Bf16x2]
        }
        Opcode::Abs | Opcode::Neg | Opcode::Min | Opcode::Max => {
            &[F32, F64, F16, F16x2, Bf16, Bf16x2]
        }
        Opcode::Sin | Opcode::Cos | Opcode::Lg2 => &[F32],
        Opcode::Ex2 | Opcode::Tanh => &[F32, F16, F16x2, Bf16, Bf16x2],
    }
}

/// The modifiers (other than rounding) an opcode/type pair may carry, as a [`Modifiers`] mask;
/// `rnd` set to `Some(_)` means some rounding modifier is allowed.
fn allowed(i: &Instr) -> Modifiers {
    use Opcode::*;
    let t = i.ty;
    let f32 = t == Type::F32;
    let half = t.is_half();
    let bf16 = t.is_bf16();
    let rnd = Some(Round::Rn);
    let mut m = Modifiers::default();
    match i.opcode {
        Testp(_) | Copysign => {}
        Add | Sub | Mul | Fma | Mad => {
            m.rnd = rnd;
            m.ftz = matches!(t, Type::F32 | Type::F32x2 | Type::F16 | Type::F16x2);
            m.sat = f32 || (half && !bf16);
            if i.opcode == Fma && half {
                m.relu = true;
                m.oob = true;
            }
        }
        Div => {
            m.rnd = rnd;
            m.approx = f32;
            m.full = f32;
            m.ftz = f32;
        }
        Abs | Neg => m.ftz = f32 || (half && !bf16),
        Min | Max => {
            let has = t != Type::F64;
            m.ftz = f32 || (half && !bf16);
            m.nan = has;
            m.xorsign = has && i.inputs == 2;
            m.abs = has;
        }
        Rcp => {
            m.rnd = rnd;
            m.approx = true;
            m.ftz = true;
        }
        Sqrt => {
            m.rnd = rnd;
            m.approx = f32;
            m.ftz = f32;
        }
        Rsqrt | Sin | Cos | Lg2 => {
            m.approx = true;
            m.ftz = true;
        }
        Ex2 => {
            m.approx = true;
            m.ftz = f32 || bf16;
        }
        Tanh => m.approx = true,
    }
    m
}

const fn v(major: u8, minor: u8) -> PtxVersion {
    PtxVersion::new(major, minor)
}

/// The validation of one instruction, built up rule by rule.
struct Check<'a> {
    i: &'a Instr,
    ptx: PtxVersion,
    target: Option<Target>,
    errors: Vec<String>,
    needs: Vec<Need>,
    warnings: Vec<String>,
    effective: Instr,
}

impl Check<'_> {
    fn error(&mut self, message: impl Into<String>) {
        self.errors.push(message.into());
    }
    fn need(&mut self, feature: impl Into<String>, sm: u32, ptx: PtxVersion) {
        self.needs.push(Need {
            feature: feature.into(),
            sm,
            ptx,
        });
    }
    fn legacy(&self) -> bool {
        self.ptx < v(1, 4)
    }
    fn name(&self) -> String {
        format!("{}.{}", self.i.opcode.name(), self.i.ty.name())
    }
    fn sm1x(&self) -> bool {
        self.target.is_some_and(|t| t.sm < 20)
    }
}

/// Validates `i` for `target` (or the lowest target that has it) and PTX ISA version `ptx` (or
/// the newest). Returns its requirements, or every reason it is invalid.
pub fn validate(
    i: &Instr,
    target: Option<Target>,
    ptx: Option<PtxVersion>,
) -> Result<Checked, Invalid> {
    let mut c = Check {
        i,
        ptx: ptx.unwrap_or(PtxVersion::NEWEST),
        target,
        errors: Vec::new(),
        needs: Vec::new(),
        warnings: Vec::new(),
        effective: *i,
    };
    structure(&mut c);
    features(&mut c);
    if !c.errors.is_empty() {
        return Err(Invalid(c.errors));
    }
    let min_sm = c.needs.iter().map(|n| n.sm).max().unwrap_or(10);
    let min_ptx = c.needs.iter().map(|n| n.ptx).max().unwrap_or(v(1, 0));
    let mut errors = Vec::new();
    if let Some(t) = target {
        for n in &c.needs {
            if t.sm < n.sm {
                errors.push(format!(
                    "Feature '{}' requires .target sm_{} or higher",
                    n.feature, n.sm
                ));
            }
        }
        if t.min_ptx() > c.ptx {
            errors.push(format!(
                "Target {t} requires PTX ISA .version {} or later",
                t.min_ptx()
            ));
        }
    }
    if let Some(p) = ptx {
        for n in &c.needs {
            if p < n.ptx {
                errors.push(format!(
                    "Feature '{}' requires PTX ISA .version {} or later",
                    n.feature, n.ptx
                ));
            }
        }
    }
    if !errors.is_empty() {
        return Err(Invalid(errors));
    }
    Ok(Checked {
        effective: c.effective,
        min_target: target.unwrap_or_else(|| Target::at_least(min_sm)),
        default_target: target
            .or(c.target)
            .unwrap_or_else(|| Target::at_least(min_sm.max(20))),
        min_ptx,
        needs: c.needs,
        warnings: c.warnings,
    })
}

/// Types, modifier sets and operand counts that exist (manual syntax lines and ptxas §4).
fn structure(c: &mut Check) {
    let i = c.i;
    let m = i.mods;
    let name = c.name();
    if !types_of(i.opcode).contains(&i.ty) {
        c.error(format!(
            "`.{}` is not a type of `{}`",
            i.ty.name(),
            i.opcode.name()
        ));
        return;
    }
    let inputs_ok = match i.opcode {
        Opcode::Min | Opcode::Max => i.inputs == 2 || (i.inputs == 3 && i.ty == Type::F32),
        o => i.inputs == o.default_inputs(),
    };
    if !inputs_ok {
        c.error(format!("`{name}` does not take {} inputs", i.inputs));
        return;
    }
    let ok = allowed(i);
    for (word, modifier) in m.iter() {
        let permitted = match modifier {
            super::instr::Modifier::Rnd(_) => ok.rnd.is_some(),
            other => ok.has(other),
        };
        if !permitted {
            let extra = if i.inputs == 3 && word == "xorsign" {
                " with three inputs"
            } else {
                ""
            };
            c.error(format!("`.{word}` is not allowed on `{name}`{extra}"));
        }
    }
    // Half-precision arithmetic has only `.rn` (ptxas: "Illegal rounding modifier"), except
    // bf16 fma, which ptxas accepts and miscompiles.
    if let Some(r) = m.rnd {
        if r != Round::Rn && i.ty.is_half() {
            if i.opcode == Opcode::Fma && i.ty.is_bf16() {
                c.warnings.push(format!(
                    "`fma.{}.{}` is accepted by ptxas 13.5 but miscompiled (the rounding is dropped or \
                     the bits are treated as f16); the model computes the manual's semantics",
                    r.ptx_name(),
                    i.ty.name()
                ));
            } else {
                c.error(format!("only `.rn` rounding is allowed on `{name}`"));
            }
        }
    }
    if m.relu && m.sat {
        c.error("`.relu` cannot be combined with `.sat`");
    }
    if m.ftz && m.oob {
        c.error("`.ftz` cannot be combined with `.oob`");
    }
    if matches!(i.opcode, Opcode::Min | Opcode::Max) && ok.abs {
        if m.xorsign && !m.abs {
            c.error("`.xorsign` requires `.abs`");
        }
        if m.abs && !m.xorsign && i.inputs == 2 {
            c.error("`.abs` requires `.xorsign` (with two inputs)");
        }
    }
    required_modifiers(c);
}

/// Modifiers an instruction cannot go without, and the legacy defaults of PTX ISA before 1.4.
fn required_modifiers(c: &mut Check) {
    let i = c.i;
    let m = i.mods;
    let name = c.name();
    let approx_or_rnd = m.approx || m.full || m.rnd.is_some();
    match (i.opcode, i.ty) {
        (Opcode::Fma, _) if m.rnd.is_none() => c.error("rounding modifier required for `fma`"),
        (Opcode::Mad, Type::F64) if m.rnd.is_none() => {
            if c.legacy() {
                c.effective.mods.rnd = Some(Round::Rn);
            } else {
                c.error("rounding modifier required for `mad.f64` (PTX ISA 1.4 and later)");
            }
        }
        (Opcode::Mad, Type::F32) if m.rnd.is_none() && c.target.is_none() => {
            // The lowest target that has it is sm_1x, where it is the truncating legacy mad.
            c.need(
                "mad.f32 without rounding modifier (sm_1x form)",
                10,
                v(1, 0),
            );
            c.target = Some(Target::new(10));
        }
        (Opcode::Mad, Type::F32) if m.rnd.is_none() && !c.sm1x() => {
            // PTX ISA 9.7.3.7 errata: not enforced up to 3.0, a warning in 3.1, an error from 3.2.
            if c.ptx >= v(3, 2) {
                c.error("rounding modifier required for `mad.f32` on sm_20 and higher (PTX ISA 3.2 and later)");
            } else {
                c.effective.mods.rnd = Some(Round::Rn);
                if c.ptx == v(3, 1) {
                    c.warnings.push(
                        "`mad.f32` without rounding modifier defaults to `mad.rn.f32`".into(),
                    );
                }
            }
        }
        (Opcode::Div | Opcode::Rcp | Opcode::Sqrt, Type::F32) if !approx_or_rnd => {
            if c.legacy() {
                c.effective.mods.approx = true;
                c.effective.mods.ftz = true;
            } else {
                let what = if i.opcode == Opcode::Div {
                    "`.approx`, `.full`"
                } else {
                    "`.approx`"
                };
                c.error(format!(
                    "rounding modifier or {what} required for `{name}` (before PTX ISA 1.4 it meant `{}.approx.ftz.f32`)",
                    i.opcode.name()
                ));
            }
        }
        (Opcode::Div | Opcode::Rcp | Opcode::Sqrt, Type::F64) if !approx_or_rnd => {
            if c.legacy() {
                c.effective.mods.rnd = Some(Round::Rn);
            } else {
                c.error(format!("rounding modifier required for `{name}`"));
            }
        }
        (
            Opcode::Rsqrt | Opcode::Sin | Opcode::Cos | Opcode::Lg2 | Opcode::Ex2,
            Type::F32 | Type::F64,
        ) if !m.approx => {
            if c.legacy() {
                c.effective.mods.approx = true;
                c.effective.mods.ftz = i.ty == Type::F32;
            } else {
                c.error(format!("`.approx` required for `{name}`"));
            }
        }
        (Opcode::Ex2 | Opcode::Tanh, _) if !m.approx => {
            c.error(format!("`.approx` required for `{name}`"))
        }
        _ => {}
    }
    if (m.approx as u8 + m.full as u8 + m.rnd.is_some() as u8) > 1 {
        c.error(format!(
            "`{name}` takes only one of `.approx`, `.full` and a rounding modifier"
        ));
    }
    if i.opcode == Opcode::Ex2 && i.ty.is_bf16() && !m.ftz {
        c.error(format!("`.ftz` required for `ex2.approx.{}`", i.ty.name()));
    }
    if i.opcode == Opcode::Rcp && i.ty == Type::F64 {
        if m.approx && !m.ftz {
            c.error("`.ftz` required for `rcp.approx.f64`");
        }
        if m.rnd.is_some() && m.ftz {
            c.warnings.push(format!(
                "`.ftz` on `{}` is accepted by ptxas but not in the manual, and has no effect",
                i
            ));
            c.effective.mods.ftz = false;
        }
    }
}

/// What each feature needs, from the manual's PTX ISA and Target ISA notes.
fn features(c: &mut Check) {
    let i = *c.i;
    let m = i.mods;
    let t = i.ty;
    let op = i.opcode.name();
    let explicit = m.approx || m.full || m.ftz || m.rnd.is_some();
    let directed = matches!(m.rnd, Some(Round::Rz | Round::Rm | Round::Rp));
    let lane = format!("{op}.{}", t.lane().name());
    match t {
        Type::F32 => c.need(lane.clone(), 10, v(1, 0)),
        Type::F64 => c.need(format!("{op}.f64"), 13, v(1, 0)),
        Type::F32x2 => c.need(format!("{op}.f32x2"), 100, v(8, 6)),
        // Half-precision requirements differ per opcode: below.
        _ => {}
    }
    match i.opcode {
        Opcode::Testp(_) | Opcode::Copysign => c.need(op, 20, v(2, 0)),
        Opcode::Add | Opcode::Sub | Opcode::Mul => {
            if t.is_bf16() {
                c.need(lane.clone(), 90, v(7, 8));
            } else if t.is_half() {
                c.need(lane.clone(), 53, v(4, 2));
            }
            if t == Type::F32 && directed && matches!(m.rnd, Some(Round::Rm | Round::Rp)) {
                c.need(format!("{op}.f32 with .rm/.rp"), 20, v(1, 0));
            }
        }
        Opcode::Fma => {
            match t {
                Type::F32 => c.need("fma.f32", 20, v(2, 0)),
                Type::F64 => c.need("fma.f64", 13, v(1, 4)),
                Type::F16 | Type::F16x2 => c.need(lane.clone(), 53, v(4, 2)),
                Type::Bf16 | Type::Bf16x2 => c.need(lane.clone(), 80, v(7, 0)),
                Type::F32x2 => {}
            }
            if m.relu {
                c.need(".relu", 80, v(7, 0));
            }
            if m.oob {
                c.need(".oob", 90, v(8, 1));
            }
        }
        Opcode::Mad => {
            if t == Type::F32 && m.rnd.is_some() {
                c.need("mad.rnd.f32", 20, v(1, 4));
            }
        }
        Opcode::Div | Opcode::Rcp | Opcode::Sqrt => {
            if explicit {
                c.need(format!("{op} with explicit modifiers"), 10, v(1, 4));
            }
            match (t, m.rnd) {
                (Type::F32, Some(_)) => c.need(format!("{op}.rnd.f32"), 20, v(2, 0)),
                (Type::F64, Some(_)) if directed => {
                    c.need(format!("{op}.{{rz,rm,rp}}.f64"), 20, v(2, 0))
                }
                _ => {}
            }
            if i.opcode == Opcode::Rcp && t == Type::F64 && m.approx {
                c.need("rcp.approx.ftz.f64", 20, v(2, 1));
            }
        }
        Opcode::Abs | Opcode::Neg => {
            if t.is_bf16() {
                c.need(lane.clone(), 80, v(7, 0));
            } else if t.is_half() {
                let ptx = if i.opcode == Opcode::Abs {
                    v(6, 5)
                } else {
                    v(6, 0)
                };
                c.need(lane.clone(), 53, ptx);
            }
        }
        Opcode::Min | Opcode::Max => {
            if t.is_half() {
                c.need(lane.clone(), 80, v(7, 0));
            }
            if m.nan {
                c.need(".NaN", 80, v(7, 0));
            }
            if m.xorsign {
                c.need(format!("{op}.xorsign.abs"), 86, v(7, 2));
            }
            if i.inputs == 3 {
                c.need(format!("{op}.f32 with 3 input operands"), 100, v(8, 8));
            }
        }
        Opcode::Rsqrt | Opcode::Sin | Opcode::Cos | Opcode::Lg2 => {
            if explicit {
                c.need(format!("{op} with explicit modifiers"), 10, v(1, 4));
            }
            if i.opcode == Opcode::Rsqrt && t == Type::F64 && m.ftz {
                c.need("rsqrt.approx.ftz.f64", 20, v(4, 0));
            }
        }
        Opcode::Ex2 | Opcode::Tanh => match t {
            Type::F32 if i.opcode == Opcode::Ex2 => {
                if explicit {
                    c.need("ex2 with explicit modifiers", 10, v(1, 4));
                }
            }
            Type::Bf16 | Type::Bf16x2 => c.need(lane.clone(), 90, v(7, 8)),
            _ => c.need(lane.clone(), 75, v(7, 0)),
        },
    }
}

/// Every instruction valid for `target` and `ptx` (as [`validate`] takes them): each form of
/// `opcode` (every `testp` property for `testp`) with each of its types, each subset of the
/// modifiers that opcode and type may carry (with at most one rounding modifier), and min/max
/// with two and three inputs; in that order, each once, modifiers as [`Instr`] holds them.
pub fn catalog_of(opcode: Opcode, target: Option<Target>, ptx: Option<PtxVersion>) -> Vec<Instr> {
    use super::instr::{Modifier, TestpOp, MODIFIERS};
    let forms: Vec<Opcode> = match opcode {
        Opcode::Testp(_) => TestpOp::ALL.map(Opcode::Testp).to_vec(),
        o => vec![o],
    };
    let mut out = Vec::new();
    for opcode in forms {
        let inputs: &[u8] = match opcode {
            Opcode::Min | Opcode::Max => &[2, 3],
            o => &[o.default_inputs()][..],
        };
        for &ty in types_of(opcode) {
            for &n in inputs {
                let base = Instr {
                    inputs: n,
                    ..Instr::new(opcode, ty)
                };
                let ok = allowed(&base);
                let flags: Vec<Modifier> = MODIFIERS
                    .iter()
                    .map(|(_, m)| *m)
                    .filter(|m| !matches!(m, Modifier::Rnd(_)) && ok.has(*m))
                    .collect();
                let rnds: &[Option<Round>] = match ok.rnd {
                    Some(_) => &[
                        None,
                        Some(Round::Rn),
                        Some(Round::Rz),
                        Some(Round::Rm),
                        Some(Round::Rp),
                    ],
                    None => &[None],
                };
                for &rnd in rnds {
                    for set in 0..1u32 << flags.len() {
                        let mut i = base;
                        i.mods.rnd = rnd;
                        for (k, m) in flags.iter().enumerate() {
                            if set >> k & 1 == 1 {
                                i.mods.insert(*m);
                            }
                        }
                        if validate(&i, target, ptx).is_ok() {
                            out.push(i);
                        }
                    }
                }
            }
        }
    }
    out
}

/// Every valid instruction of every opcode ([`catalog_of`]), in [`Opcode::ALL`] order.
pub fn catalog(target: Option<Target>, ptx: Option<PtxVersion>) -> Vec<Instr> {
    Opcode::ALL
        .into_iter()
        .flat_map(|o| catalog_of(o, target, ptx))
        .collect()
}
