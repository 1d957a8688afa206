//! `gpufp visa run` for address variables: `--set A0=LIST` (byte addresses as numbers or as
//! `&V33` / `&V33+16`, a variable's byte address in the register file plus an offset) and
//! `--print A0`.

use gpufp::visa::state::State;

/// The number of an address variable named `A<n>`, or `None` for any other name.
pub fn address_id(name: &str) -> Option<u16> {
    name.strip_prefix('A').and_then(|n| n.parse().ok())
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
    match text.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => text.parse().ok(),
    }
}

/// `--set A<id>=LIST`: sets the address variable's elements from the start.
pub fn set(state: &mut State, id: u16, list: &str) -> Result<(), String> {
    for (k, v) in list.split(',').enumerate() {
        let a = address(state, v.trim()).map_err(|e| format!("--set A{id}[{k}]: {e}"))?;
        state
            .set_address(id, k, a)
            .map_err(|e| format!("--set A{id}: {e}"))?;
    }
    Ok(())
}

/// Every element of `A<id>`: `A0[0] = 0x0040  64`.
pub fn print(state: &State, id: u16) -> Result<String, String> {
    let mut out = String::new();
    for k in 0..state.address_num_elts(id)? {
        let a = state.address(id, k)?;
        out += &format!("A{id}[{k}] = 0x{a:04x}  {a}\n");
    }
    Ok(out)
}
