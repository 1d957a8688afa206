//! Variables by name, as `gpufp visa run` takes and shows them: `V33=LIST` sets a general
//! variable's elements from the start with immediates of its type (`0.5`, `-1`, `0x3f800000`);
//! `A0=LIST` sets an address variable's elements with byte addresses (`64`, `0x40`, or `&V33` /
//! `&V33+16`: a variable's byte address in the register file plus an offset). Showing a variable
//! gives one line per element, `V33[0] = 0x3f000000  0.5`.

use super::asm::immediate;
use super::state::State;
use super::VType;

/// A variable's name: a general `V<n>` or an address `A<n>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Name {
    General(u32),
    Address(u16),
}

fn name(text: &str) -> Result<Name, String> {
    let bad = || format!("`{text}` is not a variable `V<number>` or `A<number>`");
    if let Some(n) = text.strip_prefix('V') {
        return n.parse().map(Name::General).map_err(|_| bad());
    }
    if let Some(n) = text.strip_prefix('A') {
        return n.parse().map(Name::Address).map_err(|_| bad());
    }
    Err(bad())
}

/// `V<id>=LIST` or `A<id>=LIST` (the forms the module documentation gives).
pub fn set(state: &mut State, assignment: &str) -> Result<(), String> {
    let (var, list) = assignment
        .split_once('=')
        .ok_or_else(|| format!("`{assignment}`: expected V=LIST"))?;
    match name(var)? {
        Name::Address(id) => {
            for (k, v) in list.split(',').enumerate() {
                let a = address(state, v.trim()).map_err(|e| format!("A{id}[{k}]: {e}"))?;
                state
                    .set_address(id, k, a)
                    .map_err(|e| format!("A{id}: {e}"))?;
            }
        }
        Name::General(id) => {
            let ty = state.var_type(id)?;
            for (k, v) in list.split(',').enumerate() {
                let bits = immediate(v.trim(), ty).map_err(|e| format!("{var}[{k}]: {e}"))?;
                state
                    .write(id, k, bits)
                    .map_err(|e| format!("{var}: {e}"))?;
            }
        }
    }
    Ok(())
}

/// Every element of the variable `text` names, one line each: `V33[0] = 0x3f000000  0.5`,
/// `A0[1] = 0x0060  96`.
pub fn show(state: &State, text: &str) -> Result<String, String> {
    show_name(state, name(text)?)
}

/// Every declared variable, general ones first, each as [`show`] gives it.
pub fn show_all(state: &State) -> Result<String, String> {
    let general = state.variables().map(Name::General);
    general
        .chain(state.address_variables().map(Name::Address))
        .map(|n| show_name(state, n))
        .collect()
}

fn show_name(state: &State, name: Name) -> Result<String, String> {
    let mut out = String::new();
    match name {
        Name::Address(id) => {
            for k in 0..state.address_num_elts(id)? {
                let a = state.address(id, k)?;
                out += &format!("A{id}[{k}] = 0x{a:04x}  {a}\n");
            }
        }
        Name::General(id) => {
            let ty = state.var_type(id)?;
            for k in 0..state.num_elts(id)? {
                let bits = state.read(id, k)?;
                out += &format!(
                    "V{id}[{k}] = 0x{bits:0w$x}  {}\n",
                    value_text(bits, ty),
                    w = 2 * ty.size()
                );
            }
        }
    }
    Ok(out)
}

/// An element's value as a number of its type.
pub fn value_text(bits: u64, ty: VType) -> String {
    match ty {
        VType::HF => crate::decimal::format(crate::F16(bits as u16)),
        VType::F => crate::decimal::format(crate::F32(bits as u32)),
        VType::DF => crate::decimal::format(crate::F64(bits)),
        t if t.is_signed() => {
            let w = 8 * t.size() as u32;
            let v = if w < 64 && bits >> (w - 1) & 1 == 1 {
                i128::from(bits) - (1i128 << w)
            } else {
                i128::from(bits as i64)
            };
            v.to_string()
        }
        _ => bits.to_string(),
    }
}

/// One address: `64`, `0x40`, `&V33` or `&V33+16`.
fn address(state: &State, text: &str) -> Result<u16, String> {
    let value = match text.strip_prefix('&') {
        Some(rest) => {
            let (var, plus) = match rest.split_once('+') {
                Some((v, p)) => (v, Some(p)),
                None => (rest, None),
            };
            let id = var
                .strip_prefix('V')
                .and_then(|n| n.parse::<u32>().ok())
                .ok_or_else(|| {
                    format!("`{text}`: expected `&V<number>` or `&V<number>+<offset>`")
                })?;
            let offset = match plus {
                Some(p) => number(p).ok_or_else(|| format!("`{text}`: bad offset `{p}`"))?,
                None => 0,
            };
            (state.byte_offset(id)? as u64)
                .checked_add(offset)
                .ok_or_else(|| format!("`{text}`: the address does not fit 64 bits"))?
        }
        None => number(text).ok_or_else(|| {
            format!("`{text}` is not an address (a number, `&V<n>` or `&V<n>+<offset>`)")
        })?,
    };
    u16::try_from(value).map_err(|_| format!("`{text}` = {value} does not fit a 16-bit address"))
}

/// A decimal or `0x` hexadecimal number.
fn number(text: &str) -> Option<u64> {
    crate::decimal::parse_unsigned(text).and_then(|v| u64::try_from(v).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::visa::asm::parse_program;

    fn state(decls: &str) -> State {
        let program = parse_program(decls, 32).unwrap();
        let mut s = State::new(32).unwrap();
        for (_, d) in &program.decls {
            s.declare(d).unwrap();
        }
        for (_, d) in &program.addr_decls {
            s.declare_address(d).unwrap();
        }
        s
    }

    #[test]
    fn sets_and_shows_by_name() {
        let mut s = state(
            ".decl V33 v_type=G type=f num_elts=2\n.decl V34 v_type=G type=w num_elts=1\n\
             .decl A0 v_type=A num_elts=2",
        );
        set(&mut s, "V33=0.5, -1").unwrap();
        set(&mut s, "V34=-2").unwrap();
        // V33 fills the first 32-byte register, so V34 starts at byte 32.
        set(&mut s, "A0=&V34+2,0x10").unwrap();
        assert_eq!(
            show_all(&s).unwrap(),
            "V33[0] = 0x3f000000  0.5\nV33[1] = 0xbf800000  -1\nV34[0] = 0xfffe  -2\n\
             A0[0] = 0x0022  34\nA0[1] = 0x0010  16\n"
        );
        assert_eq!(show(&s, "V34").unwrap(), "V34[0] = 0xfffe  -2\n");
    }

    #[test]
    fn says_what_is_wrong() {
        let mut s = state(
            ".decl V33 v_type=G type=f num_elts=1\n.decl V34 v_type=G type=f num_elts=1\n\
             .decl A0 v_type=A num_elts=1",
        );
        let err = |s: &mut State, text: &str| set(s, text).unwrap_err();
        assert_eq!(err(&mut s, "V33"), "`V33`: expected V=LIST");
        assert_eq!(
            err(&mut s, "X1=0"),
            "`X1` is not a variable `V<number>` or `A<number>`"
        );
        assert_eq!(err(&mut s, "V40=0"), "V40 is not declared");
        assert!(err(&mut s, "V33=1,2").starts_with("V33: "));
        assert!(err(&mut s, "V33=pi").starts_with("V33[0]: "));
        assert_eq!(
            err(&mut s, "A0=70000"),
            "A0[0]: `70000` = 70000 does not fit a 16-bit address"
        );
        assert_eq!(
            err(&mut s, "A0=&V33+18446744073709551615"),
            "A0[0]: `&V33+18446744073709551615` = 18446744073709551615 does not fit a 16-bit address"
        );
        // V34 starts at byte 32.
        assert_eq!(
            err(&mut s, "A0=&V34+18446744073709551615"),
            "A0[0]: `&V34+18446744073709551615`: the address does not fit 64 bits"
        );
        assert!(show(&s, "V7").is_err());
    }
}
