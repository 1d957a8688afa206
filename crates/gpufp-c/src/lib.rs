//! libgpufp: the library's front door ([`gpufp::front`]) for C and C++.
//!
//! Bits in, bits out, no global state: an instruction is parsed and validated once into an
//! immutable `gpufp_instr`, which any number of threads may then evaluate at once. Every entry
//! point checks its pointers, catches any Rust panic (reported as `GPUFP_ERR_INTERNAL`, never
//! unwound into C), and reports errors as a status code plus, where the caller passes a
//! `gpufp_error`, a message naming what is wrong and where. docs/c.md states the ownership and
//! threading rules.

#![allow(non_camel_case_types)]

use gpufp::fast::SliceError;
use gpufp::front::{self, Options, Prepared, Word};
use gpufp::ptx::EvalError;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a call reports.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum gpufp_status {
    /// Success.
    GPUFP_OK = 0,
    /// The instruction text does not parse, or is not valid for the options' target, PTX ISA
    /// version or operand count (`column` says where).
    GPUFP_ERR_INSTR = 1,
    /// An operand literal is not a value of the instruction's type (`index` names the operand).
    GPUFP_ERR_OPERAND = 2,
    /// A policy name or value is unknown.
    GPUFP_ERR_POLICY = 3,
    /// The options' target or PTX ISA version does not parse.
    GPUFP_ERR_OPTIONS = 4,
    /// A null pointer, or counts, lengths or widths that do not fit the instruction.
    GPUFP_ERR_ARGUMENT = 5,
    /// An element of an array call did not evaluate (`index` names it; its operand is wider
    /// than the type), or the instruction is one the model does not evaluate.
    GPUFP_ERR_EVAL = 6,
    /// The caller's buffer is too small; what fits was written, NUL-terminated.
    GPUFP_ERR_BUFFER = 7,
    /// A defect in gpufp (a caught panic): please report it.
    GPUFP_ERR_INTERNAL = 8,
}

use gpufp_status::*;

/// Bytes of `gpufp_error::message`, the terminating NUL included.
pub const GPUFP_MESSAGE_LEN: usize = 256;

/// Why a call failed, filled in by the calls that take one (a null pointer is allowed).
#[repr(C)]
pub struct gpufp_error {
    pub status: gpufp_status,
    /// For an instruction text that does not parse, the 1-based column of what is wrong; else 0
    /// (an instruction that is not valid as a whole, and every other error).
    pub column: usize,
    /// The operand (0-based) or element index the error is about, or 0.
    pub index: usize,
    /// The message, NUL-terminated, cut to fit.
    pub message: [c_char; GPUFP_MESSAGE_LEN],
}

/// One policy selection, `name = value` (docs/semantics.md).
#[repr(C)]
pub struct gpufp_policy {
    pub name: *const c_char,
    pub value: *const c_char,
}

/// How an instruction is parsed and evaluated; every field may be zero or null for the default.
#[repr(C)]
pub struct gpufp_options {
    /// The target, e.g. `"sm_80"`; null: the lowest `sm_20` or later one that has the
    /// instruction.
    pub target: *const c_char,
    /// The PTX ISA version, e.g. `"8.0"`; null: the newest.
    pub ptx: *const c_char,
    /// The number of source operands; 0: the opcode's usual number (`min`/`max`: 2 or 3).
    pub operands: usize,
    /// Policy selections, `n_policies` of them (null when 0).
    pub policies: *const gpufp_policy,
    pub n_policies: usize,
    /// Threads an array call may use; 0 or 1: the calling thread only.
    pub threads: usize,
}

/// An instruction parsed and validated once; immutable, shareable between threads.
pub struct gpufp_instr {
    prepared: Prepared,
    threads: usize,
}

/// A failure: the status and, for the caller's `gpufp_error`, where and why.
struct Failure {
    status: gpufp_status,
    column: usize,
    index: usize,
    message: String,
}

impl Failure {
    fn new(status: gpufp_status, message: impl Into<String>) -> Failure {
        Failure {
            status,
            column: 0,
            index: 0,
            message: message.into(),
        }
    }

    fn argument(message: impl Into<String>) -> Failure {
        Failure::new(GPUFP_ERR_ARGUMENT, message)
    }
}

impl From<front::Error> for Failure {
    fn from(e: front::Error) -> Failure {
        let message = e.to_string();
        match e {
            front::Error::Instr { column, .. } => Failure {
                column: column + 1,
                ..Failure::new(GPUFP_ERR_INSTR, message)
            },
            front::Error::Operand { index, .. } => Failure {
                index,
                ..Failure::new(GPUFP_ERR_OPERAND, message)
            },
            front::Error::Invalid(_) => Failure::new(GPUFP_ERR_INSTR, message),
            front::Error::Policy(_) => Failure::new(GPUFP_ERR_POLICY, message),
            front::Error::Options(_) => Failure::new(GPUFP_ERR_OPTIONS, message),
            // The operands do not fit the instruction: their count or width.
            front::Error::Eval(EvalError::Operands(_)) => Failure::argument(message),
            front::Error::Eval(EvalError::Unsupported(_)) => Failure::new(GPUFP_ERR_EVAL, message),
        }
    }
}

impl From<SliceError> for Failure {
    fn from(e: SliceError) -> Failure {
        let message = e.to_string();
        match e {
            SliceError::Shape(_) => Failure::argument(message),
            SliceError::Eval { index, .. } => Failure {
                index,
                ..Failure::new(GPUFP_ERR_EVAL, message)
            },
        }
    }
}

/// Writes `text` into `buf` of `len` bytes, NUL-terminated and cut to fit; whether it fitted.
///
/// # Safety
/// `buf` is null or points to `len` writable bytes.
unsafe fn write_text(text: &str, buf: *mut c_char, len: usize) -> bool {
    if buf.is_null() || len == 0 {
        return false;
    }
    let bytes = text.as_bytes();
    let n = bytes.len().min(len - 1);
    // SAFETY: the caller gives `len` writable bytes at `buf`; `n < len`.
    let out = unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), len) };
    out[..n].copy_from_slice(&bytes[..n]);
    out[n] = 0;
    n == bytes.len()
}

/// Runs `f`, catching a panic, and reports into `err`.
///
/// # Safety
/// `err` is null or points to a writable `gpufp_error`.
unsafe fn run(err: *mut gpufp_error, f: impl FnOnce() -> Result<(), Failure>) -> gpufp_status {
    let failure = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(e),
        Err(_) => Some(Failure::new(
            GPUFP_ERR_INTERNAL,
            "internal error in gpufp (a defect; please report it)",
        )),
    };
    let status = failure.as_ref().map_or(GPUFP_OK, |f| f.status);
    if !err.is_null() {
        // SAFETY: the caller gives a writable `gpufp_error` or null.
        let e = unsafe { &mut *err };
        e.status = status;
        e.column = failure.as_ref().map_or(0, |f| f.column);
        e.index = failure.as_ref().map_or(0, |f| f.index);
        let message = failure.as_ref().map_or("", |f| f.message.as_str());
        // SAFETY: `message` is the error's own array.
        unsafe { write_text(message, e.message.as_mut_ptr(), GPUFP_MESSAGE_LEN) };
    }
    status
}

/// A C string argument as UTF-8.
///
/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn c_str<'a>(p: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if p.is_null() {
        return Err(Failure::argument(format!("{what} is null")));
    }
    // SAFETY: the caller gives a NUL-terminated string.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| Failure::argument(format!("{what} is not UTF-8")))
}

/// The instruction behind a handle.
///
/// # Safety
/// `instr` is null or a live handle from [`gpufp_instr_parse`].
unsafe fn handle<'a>(instr: *const gpufp_instr) -> Result<&'a gpufp_instr, Failure> {
    // SAFETY: the caller gives a live handle or null.
    unsafe { instr.as_ref() }.ok_or_else(|| Failure::argument("the instruction is null"))
}

/// `len` elements at `p`, or an empty slice where `len` is 0.
///
/// # Safety
/// `p` points to `len` readable elements (or `len` is 0).
unsafe fn c_slice<'a, T>(p: *const T, len: usize, what: &str) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Failure::argument(format!("{what} is null")));
    }
    // SAFETY: the caller gives `len` readable elements.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// Parses and validates `text` (e.g. `"fma.rn.ftz.f32"`) with `opts` (null: defaults). Returns
/// a handle to free with [`gpufp_instr_free`], or null with `err` (if not null) filled in.
///
/// # Safety
/// `text` is a NUL-terminated string; `opts` is null or valid, its strings NUL-terminated and
/// its `policies` pointing to `n_policies` entries; `err` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn gpufp_instr_parse(
    text: *const c_char,
    opts: *const gpufp_options,
    err: *mut gpufp_error,
) -> *mut gpufp_instr {
    let mut out = std::ptr::null_mut();
    // SAFETY: forwarded from the caller's contract.
    unsafe {
        run(err, || {
            let source = c_str(text, "the instruction text")?;
            let (mut target, mut ptx, mut operands, mut policies, mut threads) =
                (None, None, None, Vec::new(), 1);
            if let Some(opts) = opts.as_ref() {
                if !opts.target.is_null() {
                    target = Some(c_str(opts.target, "the target")?);
                }
                if !opts.ptx.is_null() {
                    ptx = Some(c_str(opts.ptx, "the PTX ISA version")?);
                }
                operands = (opts.operands != 0).then_some(opts.operands);
                for p in c_slice(opts.policies, opts.n_policies, "the policies")? {
                    policies.push((
                        c_str(p.name, "a policy name")?,
                        c_str(p.value, "a policy value")?,
                    ));
                }
                threads = opts.threads.max(1);
            }
            let o = Options::parse(target, ptx, operands, policies)?;
            let prepared = Prepared::new(source, &o).map_err(|e| Failure {
                message: e.describe(source),
                ..Failure::from(e)
            })?;
            out = Box::into_raw(Box::new(gpufp_instr { prepared, threads }));
            Ok(())
        })
    };
    out
}

/// Frees an instruction; null is allowed.
///
/// # Safety
/// `instr` is null or a handle from [`gpufp_instr_parse`] not yet freed, used by no other call.
#[no_mangle]
pub unsafe extern "C" fn gpufp_instr_free(instr: *mut gpufp_instr) {
    if !instr.is_null() {
        // SAFETY: the handle came from `Box::into_raw` and is freed once.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(instr) })));
    }
}

/// The number of source operands (0 for a null handle).
///
/// # Safety
/// `instr` is null or a live handle.
#[no_mangle]
pub unsafe extern "C" fn gpufp_instr_inputs(instr: *const gpufp_instr) -> usize {
    // SAFETY: the caller's contract.
    unsafe { instr.as_ref() }.map_or(0, |i| i.prepared.inputs())
}

/// Bits per operand: 16, 32 or 64 (0 for a null handle).
///
/// # Safety
/// `instr` is null or a live handle.
#[no_mangle]
pub unsafe extern "C" fn gpufp_instr_width(instr: *const gpufp_instr) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { instr.as_ref() }.map_or(0, |i| i.prepared.width())
}

/// Whether the result is a predicate, 0 or 1 (`testp`).
///
/// # Safety
/// `instr` is null or a live handle.
#[no_mangle]
pub unsafe extern "C" fn gpufp_instr_is_predicate(instr: *const gpufp_instr) -> bool {
    // SAFETY: the caller's contract.
    unsafe { instr.as_ref() }.is_some_and(|i| i.prepared.is_predicate())
}

/// Writes the canonical spelling into `buf` (`len` bytes, NUL-terminated);
/// `GPUFP_ERR_BUFFER` when it was cut.
///
/// # Safety
/// `instr` is null or a live handle; `buf` points to `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn gpufp_instr_text(
    instr: *const gpufp_instr,
    buf: *mut c_char,
    len: usize,
) -> gpufp_status {
    // SAFETY: the caller's contract.
    unsafe {
        run(std::ptr::null_mut(), || {
            let i = handle(instr)?;
            if write_text(&i.prepared.instr.to_string(), buf, len) {
                Ok(())
            } else {
                Err(Failure::new(GPUFP_ERR_BUFFER, "buffer too small"))
            }
        })
    }
}

/// Source operand `index` from its text: `0x` bits of the full width, an `0f`/`0d` literal, a
/// decimal number, or `{lane0, lane1}` for packed types.
///
/// # Safety
/// `instr` is a live handle; `text` NUL-terminated; `bits` writable; `err` null or writable.
#[no_mangle]
pub unsafe extern "C" fn gpufp_parse_operand(
    instr: *const gpufp_instr,
    index: usize,
    text: *const c_char,
    bits: *mut u64,
    err: *mut gpufp_error,
) -> gpufp_status {
    // SAFETY: the caller's contract.
    unsafe {
        run(err, || {
            let i = handle(instr)?;
            let t = c_str(text, "the operand text")?;
            let v = i.prepared.parse_operand(index, t)?;
            *bits
                .as_mut()
                .ok_or_else(|| Failure::argument("bits is null"))? = v;
            Ok(())
        })
    }
}

/// Evaluates one case: `n` operands' bits (lane 0 in the low bits) into `*result`.
///
/// # Safety
/// `instr` is a live handle; `operands` points to `n` values; `result` is writable.
#[no_mangle]
pub unsafe extern "C" fn gpufp_eval(
    instr: *const gpufp_instr,
    operands: *const u64,
    n: usize,
    result: *mut u64,
) -> gpufp_status {
    // SAFETY: the caller's contract.
    unsafe {
        run(std::ptr::null_mut(), || {
            let i = handle(instr)?;
            let ops = c_slice(operands, n, "operands")?;
            let r = result
                .as_mut()
                .ok_or_else(|| Failure::argument("result is null"))?;
            *r = i.prepared.eval(ops)?;
            Ok(())
        })
    }
}

/// The array calls' common body: `n_operands` arrays of `len` words into `results`.
///
/// # Safety
/// `operands` points to `n_operands` pointers, each to `len` words; `results` to `len`
/// writable words.
unsafe fn eval_array<T: Word>(
    instr: *const gpufp_instr,
    operands: *const *const T,
    n_operands: usize,
    len: usize,
    results: *mut T,
    err: *mut gpufp_error,
) -> gpufp_status {
    // SAFETY: the caller's contract.
    unsafe {
        run(err, || {
            let i = handle(instr)?;
            let ptrs = c_slice(operands, n_operands, "operands")?;
            let ops: Vec<&[T]> = ptrs
                .iter()
                .enumerate()
                .map(|(k, &p)| c_slice(p, len, &format!("operand {}", k + 1)))
                .collect::<Result<_, _>>()?;
            if len == 0 {
                return Ok(());
            }
            if results.is_null() {
                return Err(Failure::argument("results is null"));
            }
            let out = std::slice::from_raw_parts_mut(results, len);
            Ok(i.prepared.eval_words(&ops, out, i.threads)?)
        })
    }
}

/// Evaluates `len` elements of 16-bit operands (f16, bf16): `operands[k][j]` is operand `k` of
/// element `j`; results are 16-bit words (0 or 1 for `testp`). The fast path of the library, on
/// up to the options' `threads`. On `GPUFP_ERR_EVAL`, `err->index` is the first failing element.
///
/// # Safety
/// `instr` is a live handle; `operands` points to `n_operands` pointers to `len` words each;
/// `results` to `len` writable words; `err` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn gpufp_eval_u16(
    instr: *const gpufp_instr,
    operands: *const *const u16,
    n_operands: usize,
    len: usize,
    results: *mut u16,
    err: *mut gpufp_error,
) -> gpufp_status {
    // SAFETY: forwarded.
    unsafe { eval_array(instr, operands, n_operands, len, results, err) }
}

/// [`gpufp_eval_u16`] for 32-bit operands (f32, f16x2, bf16x2).
///
/// # Safety
/// As for [`gpufp_eval_u16`].
#[no_mangle]
pub unsafe extern "C" fn gpufp_eval_u32(
    instr: *const gpufp_instr,
    operands: *const *const u32,
    n_operands: usize,
    len: usize,
    results: *mut u32,
    err: *mut gpufp_error,
) -> gpufp_status {
    // SAFETY: forwarded.
    unsafe { eval_array(instr, operands, n_operands, len, results, err) }
}

/// [`gpufp_eval_u16`] for 64-bit operands (f64, f32x2).
///
/// # Safety
/// As for [`gpufp_eval_u16`].
#[no_mangle]
pub unsafe extern "C" fn gpufp_eval_u64(
    instr: *const gpufp_instr,
    operands: *const *const u64,
    n_operands: usize,
    len: usize,
    results: *mut u64,
    err: *mut gpufp_error,
) -> gpufp_status {
    // SAFETY: forwarded.
    unsafe { eval_array(instr, operands, n_operands, len, results, err) }
}

/// The explanation of one case as `gpufp eval` prints it: result, value, the rules that fired,
/// the guarantee where the manual leaves bits open, and the result under each alternative of
/// an unverified policy. Written into `buf` (`len` bytes, NUL-terminated); `*needed` (if not
/// null) receives the bytes the whole text takes, NUL included; `GPUFP_ERR_BUFFER` when cut.
///
/// # Safety
/// `instr` is a live handle; `operands` points to `n` values; `buf` to `len` writable bytes;
/// `needed` and `err` are null or writable.
#[no_mangle]
pub unsafe extern "C" fn gpufp_explain(
    instr: *const gpufp_instr,
    operands: *const u64,
    n: usize,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
    err: *mut gpufp_error,
) -> gpufp_status {
    // SAFETY: the caller's contract.
    unsafe {
        run(err, || {
            let text = explanation(instr, operands, n)?;
            if let Some(needed) = needed.as_mut() {
                *needed = text.len() + 1;
            }
            if write_text(&text, buf, len) {
                Ok(())
            } else {
                Err(Failure::new(
                    GPUFP_ERR_BUFFER,
                    format!("the explanation takes {} bytes", text.len() + 1),
                ))
            }
        })
    }
}

/// [`gpufp_explain`] into a string the library allocates; free it with [`gpufp_string_free`].
/// Null on error.
///
/// # Safety
/// `instr` is a live handle; `operands` points to `n` values; `err` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn gpufp_explain_alloc(
    instr: *const gpufp_instr,
    operands: *const u64,
    n: usize,
    err: *mut gpufp_error,
) -> *mut c_char {
    let mut out = std::ptr::null_mut();
    // SAFETY: the caller's contract.
    unsafe {
        run(err, || {
            let text = explanation(instr, operands, n)?;
            out = CString::new(text)
                .map_err(|_| Failure::new(GPUFP_ERR_INTERNAL, "NUL in the explanation"))?
                .into_raw();
            Ok(())
        })
    };
    out
}

/// # Safety
/// As for [`gpufp_explain`].
unsafe fn explanation(
    instr: *const gpufp_instr,
    operands: *const u64,
    n: usize,
) -> Result<String, Failure> {
    // SAFETY: forwarded.
    let (i, ops) = unsafe { (handle(instr)?, c_slice(operands, n, "operands")?) };
    Ok(i.prepared.explain(ops)?.to_string())
}

/// Frees a string from [`gpufp_explain_alloc`]; null is allowed.
///
/// # Safety
/// `s` is null or a string from this library not yet freed.
#[no_mangle]
pub unsafe extern "C" fn gpufp_string_free(s: *mut c_char) {
    if !s.is_null() {
        // SAFETY: the string came from `CString::into_raw` and is freed once.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { CString::from_raw(s) })));
    }
}

/// The library's version, e.g. `"0.1.0"`: a static string.
#[no_mangle]
pub extern "C" fn gpufp_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic inside an entry point's body comes back as `GPUFP_ERR_INTERNAL` with a message;
    /// it does not unwind.
    #[test]
    fn panics_become_internal_errors() {
        let mut err = gpufp_error {
            status: GPUFP_OK,
            column: 9,
            index: 9,
            message: [1; GPUFP_MESSAGE_LEN],
        };
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        // SAFETY: `err` is a writable error.
        let s = unsafe { run(&mut err, || panic!("boom")) };
        std::panic::set_hook(hook);
        assert_eq!(s, GPUFP_ERR_INTERNAL);
        assert_eq!(
            (err.status, err.column, err.index),
            (GPUFP_ERR_INTERNAL, 0, 0)
        );
        // SAFETY: `run` NUL-terminated the message.
        let m = unsafe { CStr::from_ptr(err.message.as_ptr()) };
        assert!(m.to_str().unwrap().starts_with("internal error in gpufp"));
    }

    /// A message longer than the buffer is cut and NUL-terminated.
    #[test]
    fn long_messages_are_cut() {
        let mut buf = [1 as c_char; 8];
        // SAFETY: `buf` has 8 writable bytes.
        assert!(!unsafe { write_text("0123456789", buf.as_mut_ptr(), buf.len()) });
        // SAFETY: NUL-terminated above.
        assert_eq!(
            unsafe { CStr::from_ptr(buf.as_ptr()) }.to_bytes(),
            b"0123456"
        );
        // SAFETY: as above.
        assert!(unsafe { write_text("0123456", buf.as_mut_ptr(), buf.len()) });
        // SAFETY: null is allowed.
        assert!(!unsafe { write_text("x", std::ptr::null_mut(), 4) });
    }
}
