//! Every instruction variant the campaign runs, by brute force over the model's validator: each
//! opcode and type with every rounding modifier and every set of the other modifiers, kept when
//! `gpufp::ptx::validate` accepts it on some target (the validator agrees with ptxas,
//! crates/gpufp/tests/ptxas_live.rs).

use gpufp::ptx::{self, instr::MODIFIERS, Instr, Modifier, Opcode, TestpOp, Type};
use gpufp::Round;

/// Every valid instruction, 3-input min/max included, in a fixed order. A spelling without a
/// rounding modifier is left out where the same instruction with `.rn` is valid: the manual
/// makes `.rn` the default and ptxas emits the same SASS (docs/semantics.md, "Default rounding").
pub fn all() -> Vec<Instr> {
    let flags: Vec<Modifier> = MODIFIERS
        .iter()
        .map(|(_, m)| *m)
        .filter(|m| !matches!(m, Modifier::Rnd(_)))
        .collect();
    let opcodes = Opcode::ALL
        .into_iter()
        .chain(TestpOp::ALL[1..].iter().map(|&t| Opcode::Testp(t)));
    let rounds = [
        None,
        Some(Round::Rn),
        Some(Round::Rz),
        Some(Round::Rm),
        Some(Round::Rp),
    ];
    let mut out = Vec::new();
    for opcode in opcodes {
        for ty in Type::ALL {
            for inputs in [opcode.default_inputs(), 3] {
                for rnd in rounds {
                    for set in 0..1u32 << flags.len() {
                        let mut i = Instr::new(opcode, ty);
                        i.inputs = inputs;
                        i.mods.rnd = rnd;
                        for (k, m) in flags.iter().enumerate() {
                            if set >> k & 1 == 1 {
                                i.mods.insert(*m);
                            }
                        }
                        if valid(&i) && !out.contains(&i) && !rn_default(&i) {
                            out.push(i);
                        }
                    }
                }
            }
        }
    }
    out
}

fn valid(i: &Instr) -> bool {
    ptx::validate(i, None, None).is_ok()
}

/// A spelling without a rounding modifier whose `.rn` form is valid: the same instruction.
fn rn_default(i: &Instr) -> bool {
    let mut rn = *i;
    rn.mods.rnd = Some(Round::Rn);
    i.mods.rnd.is_none() && !i.mods.approx && !i.mods.full && valid(&rn)
}
