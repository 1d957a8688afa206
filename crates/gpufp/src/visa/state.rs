//! The state a straight-line vISA kernel of `MIN_MAX` instructions reads and writes: general
//! variables laid out in a GRF-backed register file, address variables (`A<n>`, 16-bit byte
//! addresses into that file, for indirect operands), the 32-bit execution mask, and `%cr0`.

use super::VType;
use std::collections::BTreeMap;

/// vISA numbers the predefined variables 0..31; declared ones start at 32.
pub const FIRST_USER_VARIABLE: u32 = 32;

/// `%cr0` bits that allow denormals (docs/semantics.md, `visa_equal_operands`): DF bit 6, F bit 7,
/// HF bit 10. When a type's bit is clear, its denormal operands are flushed to a zero of the same
/// sign.
pub const CR0_DF_DENORM: u32 = 1 << 6;
pub const CR0_F_DENORM: u32 = 1 << 7;
pub const CR0_HF_DENORM: u32 = 1 << 10;

/// A general variable: `.decl V33 v_type=G type=f num_elts=16 align=GRF [alias=<V32, 0>]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decl {
    pub id: u32,
    pub ty: VType,
    pub num_elts: usize,
    /// Alignment in bytes of a variable that is not an alias.
    pub align: usize,
    /// `alias=<V, byte offset>`: shares the storage of another variable.
    pub alias: Option<(u32, usize)>,
}

/// An address variable: `.decl A0 v_type=A num_elts=4`. Its elements are 16-bit byte addresses
/// into the register file. Address variables are numbered as written (`A0` is number 0): the
/// model assumes vISA has no predefined address variables, so none are reserved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddrDecl {
    pub id: u16,
    pub num_elts: usize,
}

/// The most elements an address variable may have (vISA's address register file holds 16).
pub const MAX_ADDRESS_ELTS: usize = 16;

/// Where a variable lives: its byte offset in the register file and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Placed {
    ty: VType,
    offset: usize,
    size: usize,
}

/// The register file and the controls.
#[derive(Clone, Debug)]
pub struct State {
    /// Bytes per GRF register: 32, or 64 on newer parts.
    pub grf_size: usize,
    pub exec_mask: u32,
    pub cr0: u32,
    bytes: Vec<u8>,
    vars: BTreeMap<u32, Placed>,
    /// Address variables: their elements, outside the register file.
    addrs: BTreeMap<u16, Vec<u16>>,
}

/// The most bytes the declared variables may take together (4 MiB, 65,536 registers of 64
/// bytes), so memory stays in proportion to the program text.
pub const MAX_FILE_BYTES: usize = 4 << 20;

impl State {
    /// An empty state: every channel enabled, every denormal allowed (`%cr0` default).
    pub fn new(grf_size: usize) -> Result<State, String> {
        if grf_size != 32 && grf_size != 64 {
            return Err(format!("GRF size must be 32 or 64 bytes, not {grf_size}"));
        }
        Ok(State {
            grf_size,
            exec_mask: u32::MAX,
            cr0: CR0_DF_DENORM | CR0_F_DENORM | CR0_HF_DENORM,
            bytes: Vec::new(),
            vars: BTreeMap::new(),
            addrs: BTreeMap::new(),
        })
    }

    /// Declares a variable: a fresh one is placed at the next offset aligned as asked; an alias
    /// must lie inside the variable it aliases.
    pub fn declare(&mut self, d: &Decl) -> Result<(), String> {
        if d.id < FIRST_USER_VARIABLE {
            return Err(format!(
                "V{} is a predefined variable (declared ones start at V{FIRST_USER_VARIABLE})",
                d.id
            ));
        }
        if self.vars.contains_key(&d.id) {
            return Err(format!("V{} is declared twice", d.id));
        }
        if d.num_elts == 0 || d.num_elts > 4096 {
            return Err(format!(
                "V{}: num_elts must be 1..4096, not {}",
                d.id, d.num_elts
            ));
        }
        let size = d.num_elts * d.ty.size();
        let offset = match d.alias {
            Some((base, off)) => {
                let b = self
                    .vars
                    .get(&base)
                    .ok_or_else(|| format!("V{}: alias of undeclared V{base}", d.id))?;
                if off.checked_add(size).is_none_or(|end| end > b.size) {
                    return Err(format!(
                        "V{}: alias of {size} bytes at offset {off} does not fit in V{base} ({} bytes)",
                        d.id, b.size
                    ));
                }
                b.offset + off
            }
            None => {
                let align = d.align.max(1);
                self.bytes.len().div_ceil(align) * align
            }
        };
        if d.alias.is_none() {
            // Round the file up to whole registers so the next variable starts on its own.
            let end = (offset + size).div_ceil(self.grf_size) * self.grf_size;
            if end > MAX_FILE_BYTES {
                return Err(format!(
                    "V{}: the declared variables would take more than {MAX_FILE_BYTES} bytes",
                    d.id
                ));
            }
            self.bytes.resize(end.max(self.bytes.len()), 0);
        }
        self.vars.insert(
            d.id,
            Placed {
                ty: d.ty,
                offset,
                size,
            },
        );
        Ok(())
    }

    pub fn var_type(&self, id: u32) -> Result<VType, String> {
        self.vars
            .get(&id)
            .map(|p| p.ty)
            .ok_or_else(|| format!("V{id} is not declared"))
    }

    pub fn num_elts(&self, id: u32) -> Result<usize, String> {
        self.vars
            .get(&id)
            .map(|p| p.size / p.ty.size())
            .ok_or_else(|| format!("V{id} is not declared"))
    }

    /// The byte range of element `index` (in elements of the variable's type) of `V<id>`.
    fn element(&self, id: u32, index: usize) -> Result<(usize, usize), String> {
        let p = self
            .vars
            .get(&id)
            .ok_or_else(|| format!("V{id} is not declared"))?;
        let size = p.ty.size();
        let start = index
            .checked_mul(size)
            .filter(|s| s + size <= p.size)
            .ok_or_else(|| {
                format!(
                    "element {index} is outside V{id} ({} elements of type {})",
                    p.size / size,
                    p.ty.name()
                )
            })?;
        Ok((p.offset + start, size))
    }

    /// Reads element `index` of `V<id>` as bits, little-endian.
    pub fn read(&self, id: u32, index: usize) -> Result<u64, String> {
        let (at, size) = self.element(id, index)?;
        Ok(self.bytes[at..at + size]
            .iter()
            .rev()
            .fold(0u64, |acc, b| acc << 8 | u64::from(*b)))
    }

    /// Writes element `index` of `V<id>` (the low bytes of `bits`).
    pub fn write(&mut self, id: u32, index: usize, bits: u64) -> Result<(), String> {
        let (at, size) = self.element(id, index)?;
        for (k, b) in self.bytes[at..at + size].iter_mut().enumerate() {
            *b = (bits >> (8 * k)) as u8;
        }
        Ok(())
    }

    /// The element index that `V<id>(row, col)` starts at: `row * (GRF / size) + col`.
    pub fn origin(&self, id: u32, row: u8, col: u8) -> Result<usize, String> {
        let ty = self.var_type(id)?;
        Ok(usize::from(row) * (self.grf_size / ty.size()) + usize::from(col))
    }

    /// Every declared variable's id, in order.
    pub fn variables(&self) -> impl Iterator<Item = u32> + '_ {
        self.vars.keys().copied()
    }

    /// The byte offset of `V<id>` in the register file: the address an indirect operand uses to
    /// reach its element 0.
    pub fn byte_offset(&self, id: u32) -> Result<usize, String> {
        self.vars
            .get(&id)
            .map(|p| p.offset)
            .ok_or_else(|| format!("V{id} is not declared"))
    }

    /// Bytes in the register file (every declared variable, rounded up to whole registers).
    pub fn file_size(&self) -> usize {
        self.bytes.len()
    }

    /// Declares an address variable, its elements 0.
    pub fn declare_address(&mut self, d: &AddrDecl) -> Result<(), String> {
        if self.addrs.contains_key(&d.id) {
            return Err(format!("A{} is declared twice", d.id));
        }
        if d.num_elts == 0 || d.num_elts > MAX_ADDRESS_ELTS {
            return Err(format!(
                "A{}: num_elts must be 1..{MAX_ADDRESS_ELTS}, not {}",
                d.id, d.num_elts
            ));
        }
        self.addrs.insert(d.id, vec![0; d.num_elts]);
        Ok(())
    }

    fn address_elements(&self, id: u16) -> Result<&Vec<u16>, String> {
        self.addrs
            .get(&id)
            .ok_or_else(|| format!("A{id} is not declared"))
    }

    /// Element `index` of address variable `A<id>`: a byte address.
    pub fn address(&self, id: u16, index: usize) -> Result<u16, String> {
        let elts = self.address_elements(id)?;
        elts.get(index)
            .copied()
            .ok_or_else(|| format!("element {index} is outside A{id} ({} elements)", elts.len()))
    }

    /// Sets element `index` of address variable `A<id>`.
    pub fn set_address(&mut self, id: u16, index: usize, value: u16) -> Result<(), String> {
        let elts = self
            .addrs
            .get_mut(&id)
            .ok_or_else(|| format!("A{id} is not declared"))?;
        let n = elts.len();
        let slot = elts
            .get_mut(index)
            .ok_or_else(|| format!("element {index} is outside A{id} ({n} elements)"))?;
        *slot = value;
        Ok(())
    }

    pub fn address_num_elts(&self, id: u16) -> Result<usize, String> {
        self.address_elements(id).map(Vec::len)
    }

    /// Every declared address variable's number, in order.
    pub fn address_variables(&self) -> impl Iterator<Item = u16> + '_ {
        self.addrs.keys().copied()
    }

    /// The byte range `[at, at + size)` if it lies inside the register file.
    fn bytes_at(&self, at: i64, size: usize) -> Result<core::ops::Range<usize>, String> {
        usize::try_from(at)
            .ok()
            .and_then(|a| Some(a..a.checked_add(size)?))
            .filter(|r| r.end <= self.bytes.len())
            .ok_or_else(|| {
                format!(
                    "bytes {at}..{} are outside the register file ({} bytes)",
                    at + size as i64,
                    self.bytes.len()
                )
            })
    }

    /// Reads `size` bytes (1, 2, 4 or 8) at byte address `at`, little-endian.
    pub fn read_at(&self, at: i64, size: usize) -> Result<u64, String> {
        let r = self.bytes_at(at, size)?;
        Ok(self.bytes[r]
            .iter()
            .rev()
            .fold(0u64, |acc, b| acc << 8 | u64::from(*b)))
    }

    /// Writes the low `size` bytes of `bits` at byte address `at`, little-endian.
    pub fn write_at(&mut self, at: i64, size: usize, bits: u64) -> Result<(), String> {
        let r = self.bytes_at(at, size)?;
        for (k, b) in self.bytes[r].iter_mut().enumerate() {
            *b = (bits >> (8 * k)) as u8;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(id: u32, ty: VType, n: usize, alias: Option<(u32, usize)>) -> Decl {
        Decl {
            id,
            ty,
            num_elts: n,
            align: 32,
            alias,
        }
    }

    #[test]
    fn layout_aliases_and_bounds() {
        let mut s = State::new(32).unwrap();
        s.declare(&decl(33, VType::F, 16, None)).unwrap();
        s.declare(&decl(34, VType::UB, 4, None)).unwrap();
        s.declare(&decl(35, VType::UW, 4, Some((33, 8)))).unwrap();
        s.write(33, 2, 0x3F80_0000).unwrap();
        assert_eq!(s.read(35, 0), Ok(0x0000));
        assert_eq!(s.read(35, 1), Ok(0x3F80));
        assert_eq!(s.origin(33, 1, 2), Ok(10));
        assert!(s.read(33, 16).unwrap_err().contains("outside V33"));
        assert!(s
            .declare(&decl(36, VType::D, 20, Some((33, 0))))
            .unwrap_err()
            .contains("does not fit"));
        assert!(s
            .declare(&decl(33, VType::D, 1, None))
            .unwrap_err()
            .contains("declared twice"));
        assert!(s
            .declare(&decl(5, VType::D, 1, None))
            .unwrap_err()
            .contains("predefined"));
        assert_eq!(s.byte_offset(34), Ok(64));
        assert_eq!(s.file_size(), 96);
        assert_eq!(s.read_at(8, 4), Ok(0x3F80_0000));
        s.write_at(65, 2, 0xBEEF).unwrap();
        assert_eq!(s.read(34, 1), Ok(0xEF));
        assert_eq!(s.read(34, 2), Ok(0xBE));
        assert!(s.read_at(95, 2).unwrap_err().contains("bytes 95..97"));
        assert!(s
            .read_at(-1, 1)
            .unwrap_err()
            .contains("outside the register file"));
        let wide = State::new(64).unwrap();
        assert!(State::new(48).is_err());
        assert_eq!(wide.grf_size, 64);
    }

    #[test]
    fn address_variables() {
        let mut s = State::new(32).unwrap();
        let a0 = AddrDecl { id: 0, num_elts: 4 };
        s.declare_address(&a0).unwrap();
        assert!(s.declare_address(&a0).unwrap_err().contains("twice"));
        assert!(s
            .declare_address(&AddrDecl {
                id: 1,
                num_elts: 17
            })
            .unwrap_err()
            .contains("1..16"));
        s.set_address(0, 3, 0x40).unwrap();
        assert_eq!(s.address(0, 3), Ok(0x40));
        assert_eq!(s.address(0, 0), Ok(0));
        assert!(s.address(0, 4).unwrap_err().contains("outside A0"));
        assert!(s
            .set_address(2, 0, 1)
            .unwrap_err()
            .contains("A2 is not declared"));
        assert_eq!(s.address_variables().collect::<Vec<_>>(), vec![0]);
        assert_eq!(s.address_num_elts(0), Ok(4));
    }
}
