//! `gpufp._native`: the library's front door ([`gpufp::front`]) for Python.
//!
//! Everything here converts between Python objects and the front door's data; the semantics,
//! parsing, validation and explanations are the library's. The `gpufp` Python package wraps
//! this module with numpy's dtype and broadcasting conventions.

use gpufp::front::{self, Options, Prepared as Inner, Word};
use gpufp::ptx::guarantee::Guarantee;
use gpufp::ptx::instr::MODIFIERS;
use gpufp::ptx::{Opcode, TestpOp, Type};
use gpufp::vectors::Level;
use numpy::{
    Element, PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadwriteArray1, PyUntypedArray,
};
use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(
    gpufp,
    Error,
    PyValueError,
    "An instruction, operand or policy gpufp cannot take: the message is the one the `gpufp` \
     command gives."
);

fn error(e: impl std::fmt::Display) -> PyErr {
    Error::new_err(e.to_string())
}

/// Runs `f`, turning a Rust panic into a Python exception that says it is a defect.
fn guarded<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let what = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(pyo3::exceptions::PySystemError::new_err(format!(
            "internal error in gpufp (please report it): {what}"
        )))
    })
}

/// Test cases: one operand column per source operand, and the results.
type Cases<'py> = (Vec<Bound<'py, PyArray1<u64>>>, Bound<'py, PyArray1<u64>>);

/// Per case: bit-exact, within the guarantee; and the first mismatches explained.
type Judged<'py> = (
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<bool>>,
    Vec<(usize, String)>,
);

/// The worker threads for arrays: every core.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// An instruction parsed and validated once (`gpufp.Instr` wraps it).
#[pyclass(frozen, module = "gpufp._native")]
struct Prepared {
    inner: Inner,
}

#[pymethods]
impl Prepared {
    #[new]
    #[pyo3(signature = (text, target=None, ptx=None, operands=None, policy=None))]
    fn new(
        text: &str,
        target: Option<&str>,
        ptx: Option<&str>,
        operands: Option<usize>,
        policy: Option<Vec<(String, String)>>,
    ) -> PyResult<Self> {
        guarded(|| {
            let policies = policy
                .iter()
                .flatten()
                .map(|(n, v)| (n.as_str(), v.as_str()));
            let opts = Options::parse(target, ptx, operands, policies).map_err(error)?;
            let inner = Inner::new(text, &opts).map_err(|e| error(e.describe(text)))?;
            Ok(Prepared { inner })
        })
    }

    /// The canonical spelling (the manual's modifier order).
    #[getter]
    fn text(&self) -> String {
        self.inner.instr.to_string()
    }

    /// The instruction the hardware runs (a legacy default may stand for another one).
    #[getter]
    fn effective(&self) -> String {
        self.inner.effective().to_string()
    }

    #[getter]
    fn opcode(&self) -> &'static str {
        self.inner.instr.opcode.name()
    }

    /// `testp`'s property (`finite`, ...), else `None`.
    #[getter]
    fn property(&self) -> Option<&'static str> {
        match self.inner.instr.opcode {
            Opcode::Testp(op) => Some(op.name()),
            _ => None,
        }
    }

    #[getter]
    fn r#type(&self) -> &'static str {
        self.inner.instr.ty.name()
    }

    /// The lane type of a packed type, else the type.
    #[getter]
    fn lane_type(&self) -> &'static str {
        self.inner.instr.ty.lane().name()
    }

    #[getter]
    fn modifiers(&self) -> Vec<&'static str> {
        self.inner.instr.mods.iter().map(|(n, _)| n).collect()
    }

    #[getter]
    fn inputs(&self) -> usize {
        self.inner.inputs()
    }

    /// Bits per operand.
    #[getter]
    fn width(&self) -> u32 {
        self.inner.width()
    }

    #[getter]
    fn lanes(&self) -> u32 {
        self.inner.instr.ty.lanes()
    }

    #[getter]
    fn is_predicate(&self) -> bool {
        self.inner.is_predicate()
    }

    #[getter]
    fn min_target(&self) -> String {
        self.inner.checked.min_target.to_string()
    }

    #[getter]
    fn min_ptx(&self) -> String {
        self.inner.checked.min_ptx.to_string()
    }

    /// The target evaluation assumes.
    #[getter]
    fn target(&self) -> String {
        self.inner.checked.default_target.to_string()
    }

    /// `(feature, target, ptx)` for each feature with its own requirement.
    #[getter]
    fn needs(&self) -> Vec<(String, String, String)> {
        self.inner
            .checked
            .needs
            .iter()
            .map(|n| (n.feature.clone(), format!("sm_{}", n.sm), n.ptx.to_string()))
            .collect()
    }

    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.inner.checked.warnings.clone()
    }

    /// The selected policies, `(name, value)` (docs/semantics.md).
    #[getter]
    fn policies(&self) -> Vec<(&'static str, String)> {
        self.inner.ctx.policies.values()
    }

    /// An operand's bits from its text (bits, `0f`/`0d` literal, decimal, lanes); the error
    /// message does not name the operand.
    fn parse_literal(&self, text: &str) -> PyResult<u64> {
        guarded(|| {
            self.inner.parse_operand(0, text).map_err(|e| match e {
                front::Error::Operand { message, .. } => error(message),
                e => error(e),
            })
        })
    }

    /// An operand's bits from a host float, rounded to nearest even (a packed type: every lane).
    fn float_operand(&self, x: f64) -> u64 {
        self.inner.operand_from_f64(x.to_bits())
    }

    /// Every element over 1-D contiguous arrays of words of the operand width (or of length 1),
    /// into `out` (the same width, or bool for `testp`), without the GIL, on every core.
    fn eval_into(
        &self,
        py: Python<'_>,
        ops: Vec<Bound<'_, PyUntypedArray>>,
        out: Bound<'_, PyUntypedArray>,
    ) -> PyResult<()> {
        guarded(|| match self.inner.width() {
            16 => self.eval_width::<u16>(py, &ops, &out),
            32 => self.eval_width::<u32>(py, &ops, &out),
            _ => self.eval_width::<u64>(py, &ops, &out),
        })
    }

    /// Everything that decided one case's result: the library's explanation as a dict.
    fn explain<'py>(&self, py: Python<'py>, ops: Vec<u64>) -> PyResult<Bound<'py, PyDict>> {
        let e = guarded(|| self.inner.explain(&ops).map_err(error))?;
        let d = PyDict::new(py);
        d.set_item("instr", &e.instr)?;
        d.set_item("effective", &e.effective)?;
        d.set_item("operands", &e.operands)?;
        d.set_item("result", e.result)?;
        d.set_item("result_text", &e.result_text)?;
        d.set_item("value", &e.value)?;
        let lanes: Vec<(u64, String)> = e.lanes.iter().map(|l| (l.bits, l.value.clone())).collect();
        d.set_item("lanes", lanes)?;
        d.set_item("warnings", &e.warnings)?;
        let rules: Vec<(Option<u8>, String)> = e
            .rules
            .iter()
            .map(|n| (n.lane, n.rule.to_string()))
            .collect();
        d.set_item("rules", rules)?;
        let guarantees: Vec<(bool, String)> = e
            .guarantees
            .iter()
            .map(|g| (*g == Guarantee::Exact, g.to_string()))
            .collect();
        d.set_item("guarantees", guarantees)?;
        let alternatives: Vec<(&str, String, u64, String)> = e
            .alternatives
            .iter()
            .map(|a| (a.policy, a.value.clone(), a.result, a.result_text.clone()))
            .collect();
        d.set_item("alternatives", alternatives)?;
        d.set_item("text", e.to_string())?;
        Ok(d)
    }

    /// The test cases of docs/vectors.md: one operand column per source operand, and results.
    fn cases<'py>(
        &self,
        py: Python<'py>,
        level: u8,
        seed: u64,
        count: Option<u64>,
    ) -> PyResult<Cases<'py>> {
        let level = match level {
            1 => Level::One,
            2 => Level::Two,
            _ => return Err(PyValueError::new_err("level is 1 or 2")),
        };
        let n = self.inner.inputs();
        let (cols, results) = guarded(|| {
            let mut cols = vec![Vec::new(); n];
            let mut results = Vec::new();
            for case in self.inner.cases(level, seed, count) {
                let (ops, d) = case.map_err(error)?;
                for (col, x) in cols.iter_mut().zip(ops) {
                    col.push(x);
                }
                results.push(d);
            }
            Ok((cols, results))
        })?;
        let cols = cols
            .into_iter()
            .map(|c| PyArray1::from_vec(py, c))
            .collect();
        Ok((cols, PyArray1::from_vec(py, results)))
    }

    /// Judges results case by case: whether each is the model's bits and within the manual's
    /// guarantee, and the explanations of the first `show` that are not the model's.
    fn judge<'py>(
        &self,
        py: Python<'py>,
        ops: Vec<PyReadonlyArray1<'py, u64>>,
        results: PyReadonlyArray1<'py, u64>,
        show: usize,
    ) -> PyResult<Judged<'py>> {
        let ops: Vec<Vec<u64>> = ops.iter().map(|o| o.as_array().to_vec()).collect();
        let results = results.as_array().to_vec();
        let (exact, within, shown) = guarded(|| {
            let mut exact = Vec::with_capacity(results.len());
            let mut within = Vec::with_capacity(results.len());
            let mut shown = Vec::new();
            for (j, &r) in results.iter().enumerate() {
                let case: Vec<u64> = ops.iter().map(|o| o[j]).collect();
                let v = self
                    .inner
                    .judge(&case, r)
                    .map_err(|e| error(format!("case {j}: {e}")))?;
                let e = v.iter().all(|v| v.exact);
                exact.push(e);
                within.push(v.iter().all(|v| v.within_spec));
                if !e && shown.len() < show {
                    shown.push((j, self.inner.mismatch_text(&v)));
                }
            }
            Ok((exact, within, shown))
        })?;
        Ok((
            PyArray1::from_vec(py, exact),
            PyArray1::from_vec(py, within),
            shown,
        ))
    }

    /// For the benchmark, the Rust slice path alone ([`Inner::eval_slice`] on one thread over
    /// `u64` copies of the operands): each of `reps` passes' seconds, after one to warm up.
    fn time_slice(
        &self,
        py: Python<'_>,
        ops: Vec<PyReadonlyArray1<'_, u64>>,
        reps: usize,
    ) -> PyResult<Vec<f64>> {
        let ops: Vec<Vec<u64>> = ops.iter().map(|o| o.as_array().to_vec()).collect();
        let n = ops.first().map_or(0, Vec::len);
        py.detach(|| {
            guarded(|| {
                let views: Vec<&[u64]> = ops.iter().map(Vec::as_slice).collect();
                let mut out = vec![0u64; n];
                timed(reps, || {
                    self.inner.eval_slice(&views, &mut out).map_err(error)
                })
            })
        })
    }

    /// For the benchmark, the Rust array path alone ([`Inner::eval_words`] over copies of the
    /// operands, words of the operand width, on `threads` threads): each pass's seconds, after
    /// one to warm up.
    fn time_words(
        &self,
        py: Python<'_>,
        ops: Vec<Bound<'_, PyUntypedArray>>,
        reps: usize,
        threads: usize,
    ) -> PyResult<Vec<f64>> {
        match self.inner.width() {
            16 => self.time_width::<u16>(py, &ops, reps, threads),
            32 => self.time_width::<u32>(py, &ops, reps, threads),
            _ => self.time_width::<u64>(py, &ops, reps, threads),
        }
    }

    fn __repr__(&self) -> String {
        format!("<gpufp._native.Prepared {}>", self.inner.instr)
    }
}

/// The operand arrays as 1-D arrays of `T` words, borrowed for reading.
fn read_words<'py, T: Word + Element>(
    ops: &[Bound<'py, PyUntypedArray>],
) -> PyResult<Vec<PyReadonlyArray1<'py, T>>> {
    ops.iter()
        .enumerate()
        .map(|(k, a)| {
            a.cast::<PyArray1<T>>()
                .map_err(|_| {
                    PyTypeError::new_err(format!(
                        "operand {}: expected a 1-D array of uint{}",
                        k + 1,
                        T::BITS
                    ))
                })?
                .try_readonly()
                .map_err(|e| PyValueError::new_err(format!("operand {}: {e}", k + 1)))
        })
        .collect()
}

/// Runs `f` once to warm up (the result buffer's pages), then `reps` times; each run's seconds.
fn timed(reps: usize, mut f: impl FnMut() -> PyResult<()>) -> PyResult<Vec<f64>> {
    f()?;
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = std::time::Instant::now();
        f()?;
        times.push(t.elapsed().as_secs_f64());
    }
    Ok(times)
}

impl Prepared {
    fn time_width<T: Word + Element>(
        &self,
        py: Python<'_>,
        ops: &[Bound<'_, PyUntypedArray>],
        reps: usize,
        threads: usize,
    ) -> PyResult<Vec<f64>> {
        let ops: Vec<Vec<T>> = read_words::<T>(ops)?
            .iter()
            .map(|a| a.as_array().to_vec())
            .collect();
        let n = ops.first().map_or(0, Vec::len);
        let views: Vec<&[T]> = ops.iter().map(Vec::as_slice).collect();
        py.detach(|| {
            guarded(|| {
                if self.inner.is_predicate() {
                    self.time_into(&views, vec![false; n], reps, threads)
                } else {
                    self.time_into(&views, vec![T::from_u64(0); n], reps, threads)
                }
            })
        })
    }

    fn time_into<T: Word, R: Word>(
        &self,
        ops: &[&[T]],
        mut out: Vec<R>,
        reps: usize,
        threads: usize,
    ) -> PyResult<Vec<f64>> {
        timed(reps, || {
            self.inner.eval_words(ops, &mut out, threads).map_err(error)
        })
    }

    fn eval_width<T: Word + Element>(
        &self,
        py: Python<'_>,
        ops: &[Bound<'_, PyUntypedArray>],
        out: &Bound<'_, PyUntypedArray>,
    ) -> PyResult<()> {
        let arrays = read_words::<T>(ops)?;
        let slices: Vec<&[T]> = arrays
            .iter()
            .enumerate()
            .map(|(k, a)| {
                a.as_slice().map_err(|_| {
                    PyValueError::new_err(format!("operand {}: not contiguous", k + 1))
                })
            })
            .collect::<PyResult<_>>()?;
        if self.inner.is_predicate() {
            self.eval_out::<T, bool>(py, &slices, out)
        } else {
            self.eval_out::<T, T>(py, &slices, out)
        }
    }

    fn eval_out<T: Word + Element, R: Word + Element>(
        &self,
        py: Python<'_>,
        ops: &[&[T]],
        out: &Bound<'_, PyUntypedArray>,
    ) -> PyResult<()> {
        let out = out.cast::<PyArray1<R>>().map_err(|_| {
            PyTypeError::new_err(format!(
                "out: expected a 1-D array of {}",
                if self.inner.is_predicate() {
                    "bool".to_string()
                } else {
                    format!("uint{}", R::BITS)
                }
            ))
        })?;
        let mut out: PyReadwriteArray1<'_, R> = out
            .try_readwrite()
            .map_err(|e| PyValueError::new_err(format!("out: {e}")))?;
        let out = out
            .as_slice_mut()
            .map_err(|_| PyValueError::new_err("out: not contiguous"))?;
        let n = threads();
        py.detach(|| self.inner.eval_words(ops, out, n))
            .map_err(error)
    }
}

/// The opcode names, `testp`'s properties, and the modifier names in the manual's order.
#[pyfunction]
fn spellings() -> (Vec<&'static str>, Vec<&'static str>, Vec<&'static str>) {
    (
        Opcode::ALL.iter().map(|o| o.name()).collect(),
        TestpOp::ALL.iter().map(|o| o.name()).collect(),
        MODIFIERS.iter().map(|(n, _)| *n).collect(),
    )
}

/// The type names with their widths in bits and lane counts.
#[pyfunction]
fn types() -> Vec<(&'static str, u32, u32)> {
    Type::ALL
        .iter()
        .map(|t| (t.name(), t.bits(), t.lanes()))
        .collect()
}

/// The documented policies: `(name, default, evidence, status)`.
#[pyfunction]
fn policies() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    gpufp::policy::POLICIES
        .iter()
        .map(|p| (p.name, p.default, p.evidence, p.status.as_str()))
        .collect()
}

/// The SIMD level the fast paths run at (capped by `$GPUFP_SIMD`).
#[pyfunction]
fn simd_level() -> PyResult<&'static str> {
    gpufp::fast::cap().map_err(error)?;
    Ok(gpufp::fast::detected().name())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Prepared>()?;
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(spellings, m)?)?;
    m.add_function(wrap_pyfunction!(types, m)?)?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add_function(wrap_pyfunction!(simd_level, m)?)?;
    Ok(())
}
