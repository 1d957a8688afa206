//! Completion of instruction text as it is typed: which opcode, property, modifier or type may
//! come next so that the text can still become a valid instruction for a target and PTX ISA
//! version. Drawn from [`catalog_of`], so it offers exactly what the validator accepts.

use super::instr::{Instr, Opcode, TestpOp, Type, MODIFIERS};
use super::validate::{catalog_of, PtxVersion, Target};

/// What may replace the word being typed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    /// The byte offset where the word being typed starts: after the last `.`, or 0.
    pub start: usize,
    /// The words that fit, in the manual's order (opcodes as [`Opcode::ALL`]; then `testp`
    /// properties, modifiers in canonical order, types).
    pub candidates: Vec<Candidate>,
}

/// One word that fits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The word, without its dot: `fma`, `rn`, `f16x2`.
    pub word: String,
    /// The text with the word in place of the one being typed.
    pub text: String,
    /// Whether that text is already a whole valid instruction.
    pub complete: bool,
}

/// The words of an instruction after its mnemonic, as it is spelled: its `testp` property, its
/// modifiers and its type.
fn words(i: &Instr) -> Vec<&'static str> {
    let mut w = Vec::new();
    if let Opcode::Testp(op) = i.opcode {
        w.push(op.name());
    }
    w.extend(i.mods.iter().map(|(name, _)| name));
    w.push(i.ty.name());
    w
}

/// Every word that may follow a mnemonic, in the order candidates are offered.
fn vocabulary() -> impl Iterator<Item = &'static str> {
    TestpOp::ALL
        .into_iter()
        .map(TestpOp::name)
        .chain(MODIFIERS.iter().map(|(n, _)| *n))
        .chain(Type::ALL.into_iter().map(Type::name))
}

/// The completions of `text` for `target` and `ptx` (as [`super::validate()`] takes them). Text
/// that cannot become a valid instruction (an unknown word, a character that is not part of an
/// instruction) has none; the validator says why.
pub fn complete(text: &str, target: Option<Target>, ptx: Option<PtxVersion>) -> Completion {
    let start = text.rfind('.').map_or(0, |k| k + 1);
    let prefix = &text[start..];
    let mut out = Completion {
        start,
        candidates: Vec::new(),
    };
    if !text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    {
        return out;
    }
    let mut typed = text[..start].split('.').filter(|w| !w.is_empty());
    let Some(head) = typed.next() else {
        for opcode in Opcode::ALL {
            let name = opcode.name();
            if name.starts_with(prefix) && !catalog_of(opcode, target, ptx).is_empty() {
                out.candidates.push(Candidate {
                    word: name.to_string(),
                    text: name.to_string(),
                    complete: false,
                });
            }
        }
        return out;
    };
    let Some(opcode) = Opcode::from_name(head) else {
        return out;
    };
    let typed: Vec<&str> = typed.collect();
    if typed
        .iter()
        .enumerate()
        .any(|(k, t)| typed[..k].contains(t))
    {
        return out;
    }
    let forms: Vec<Vec<&'static str>> = catalog_of(opcode, target, ptx)
        .iter()
        .map(words)
        .filter(|w| typed.iter().all(|t| w.contains(t)))
        .collect();
    for word in vocabulary() {
        // `.full` must directly follow `div` (the parser's rule).
        let misplaced = word == "full" && !typed.is_empty();
        if !word.starts_with(prefix) || typed.contains(&word) || misplaced {
            continue;
        }
        let fits = forms.iter().filter(|w| w.contains(&word));
        let mut any = false;
        let mut complete = false;
        for w in fits {
            any = true;
            complete |= w.len() == typed.len() + 1;
        }
        if any {
            out.candidates.push(Candidate {
                word: word.to_string(),
                text: format!("{}{word}", &text[..start]),
                complete,
            });
        }
    }
    out
}
