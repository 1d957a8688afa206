"""GPU-exact floating point on numpy arrays.

gpufp returns, bit for bit, what an NVIDIA GPU's PTX floating-point instructions return:
``fma`` with one rounding, ``.ftz`` flushing, ``.sat``/``.relu`` clamping, the device's NaN and
signed-zero rules for ``min``/``max``, the approximate instructions (``sqrt.approx``, ``ex2``,
``div.full``) as the special-function unit's glue computes them::

    >>> import numpy as np, gpufp
    >>> a = np.float32([1.0000001, 3.0]); b = np.float32([1.0000001, 1 / 3])
    >>> gpufp.eval("fma.rn.f32", a, b, np.float32(-1))   # one rounding
    >>> gpufp.eval("min.NaN.f16", np.float16([1, np.nan]), np.float16(0))

Operands are numpy arrays or scalars, broadcast together:

- float arrays of the instruction's lane type (``float16``, ``float32``, ``float64``,
  ``ml_dtypes.bfloat16``) are values; packed types (``f16x2``, ``bf16x2``, ``f32x2``) take a
  trailing axis of length 2 in the lane type, lane 0 first;
- unsigned integer arrays of the operand's width (``uint16``, ``uint32``, ``uint64``; packed:
  the whole register, lane 0 in the low bits) are bit patterns;
- Python ``float`` and ``int`` are values, rounded once to the lane type (nearest even); a ``str``
  is a literal as the ``gpufp`` command takes it (``"0x3f800000"``, ``"0f3F800000"``, ``"1.5"``,
  ``"{1.5, -2}"``); lists hold such scalars.

The result has the representation of the first array operand (bits in, bits out), or values when
no operand is an array; ``testp`` returns bool. Every semantic decision is the Rust library's.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from . import _native
from ._native import Error

__version__: str = _native.__version__
__all__ = [
    "Error",
    "Instr",
    "Explanation",
    "Alternative",
    "Rule",
    "Vectors",
    "CheckReport",
    "eval",
    "explain",
    "gen",
    "check",
    "policies",
    "simd_level",
    "ptx",
    "__version__",
]

_LITTLE = sys.byteorder == "little"
_UINT = {16: np.dtype(np.uint16), 32: np.dtype(np.uint32), 64: np.dtype(np.uint64)}
_FLOAT = {"f16": np.dtype(np.float16), "f32": np.dtype(np.float32), "f64": np.dtype(np.float64)}


def _bfloat16() -> np.dtype:
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError(
            "bf16 values need the ml_dtypes package (pip install ml_dtypes); "
            "or give bf16 operands as uint16 bit patterns"
        ) from None
    return np.dtype(ml_dtypes.bfloat16)


def _lane_dtype(lane_type: str) -> np.dtype:
    if lane_type == "bf16":
        return _bfloat16()
    return _FLOAT[lane_type]


def _is_bfloat16(dtype: np.dtype) -> bool:
    return dtype.name == "bfloat16"


def _policy_items(policy: Mapping[str, Any] | None) -> tuple[tuple[str, str], ...]:
    if policy is None:
        return ()
    if not isinstance(policy, Mapping):
        raise TypeError("policy: expected a dict {name: value}, e.g. {'ftz_tininess': 'IeeeRounded'}")
    return tuple((str(k), _policy_value(v)) for k, v in policy.items())


def _policy_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return f"0x{v:04X}"
    return str(v)


class Instr:
    """A PTX instruction parsed and validated once, callable on operands.

    ``Instr("fma.rn.ftz.f32")(a, b, c)`` is ``gpufp.eval("fma.rn.ftz.f32", a, b, c)``.
    ``operands`` picks the form where there are two (``min``/``max`` take 2 or 3); ``target``
    (``"sm_90"``) and ``ptx`` (``"8.6"``) validate the instruction as ptxas would for them;
    ``policy`` selects alternatives of the rules the manual leaves open
    (``{"ftz_tininess": "IeeeRounded"}``; see :func:`policies`). Raises :class:`Error` with the
    message the ``gpufp`` command gives.
    """

    __slots__ = ("_p",)

    def __init__(
        self,
        text: str,
        *,
        target: str | None = None,
        ptx: str | None = None,
        operands: int | None = None,
        policy: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(text, str):
            raise TypeError(f"instruction: expected a str, got {type(text).__name__}")
        items = _policy_items(policy)
        self._p = _native.Prepared(text, target, ptx, operands, list(items) or None)

    text = property(lambda self: self._p.text, doc="The canonical spelling.")
    effective = property(
        lambda self: self._p.effective,
        doc="The instruction the hardware runs (a legacy default may stand for another).",
    )
    opcode = property(lambda self: self._p.opcode, doc="The opcode, e.g. 'fma'.")
    testp_property = property(
        lambda self: self._p.property, doc="testp's property ('finite', ...), else None."
    )
    type = property(lambda self: self._p.type, doc="The type, e.g. 'f32' or 'bf16x2'.")
    lane_type = property(lambda self: self._p.lane_type, doc="The type of one lane.")
    modifiers = property(lambda self: tuple(self._p.modifiers), doc="Modifiers, manual's order.")
    inputs = property(lambda self: self._p.inputs, doc="The number of source operands.")
    width = property(lambda self: self._p.width, doc="Bits per operand.")
    lanes = property(lambda self: self._p.lanes, doc="Lanes per operand (2 for packed types).")
    min_target = property(lambda self: self._p.min_target, doc="The lowest target that has it.")
    min_ptx = property(lambda self: self._p.min_ptx, doc="The lowest PTX ISA version.")
    target = property(lambda self: self._p.target, doc="The target evaluation assumes.")
    needs = property(
        lambda self: tuple(self._p.needs),
        doc="(feature, target, PTX ISA version) for each feature with its own requirement.",
    )
    warnings = property(lambda self: tuple(self._p.warnings), doc="ptxas quirks, legacy defaults.")
    policies = property(lambda self: dict(self._p.policies), doc="The policies in force.")

    def __call__(self, *operands: Any, out: np.ndarray | None = None) -> Any:
        """Evaluates on numpy arrays or scalars (see the module's documentation)."""
        return _evaluate(self, operands, out)

    def explain(self, *operands: Any) -> "Explanation":
        """Everything that decided the result for one case of scalar operands."""
        bits = [int(_scalar_bits(self, k, x)) for k, x in enumerate(_count(self, operands))]
        return Explanation._from(self._p.explain(bits))

    def __repr__(self) -> str:
        return f"gpufp.Instr({self.text!r})"

    def __str__(self) -> str:
        return self.text


@functools.lru_cache(maxsize=256)
def _cached(text: str, n: int, target: str | None, ptx: str | None, policy: tuple) -> Instr:
    return Instr(text, target=target, ptx=ptx, operands=n, policy=dict(policy) or None)


def _instr(instr: str | Instr, n: int, target, ptx, policy) -> Instr:
    if isinstance(instr, Instr):
        if target is not None or ptx is not None or policy is not None:
            raise TypeError("target, ptx and policy are given to Instr(...), not with an Instr")
        return instr
    if not isinstance(instr, str):
        raise TypeError(f"instruction: expected a str or gpufp.Instr, got {type(instr).__name__}")
    return _cached(instr, n, target, ptx, _policy_items(policy))


def _count(instr: Instr, operands: Sequence[Any]) -> Sequence[Any]:
    if len(operands) != instr.inputs:
        raise TypeError(f"`{instr.text}` takes {instr.inputs} operand(s), got {len(operands)}")
    return operands


def _name(k: int) -> str:
    """The operand's name in messages, as the ``gpufp`` command says it; -1 is the result."""
    return "result" if k < 0 else f"operand {k + 1}"


def _literal(instr: Instr, k: int, text: str) -> int:
    try:
        return instr._p.parse_literal(text)
    except Error as e:
        raise Error(f"{_name(k)}: {e}") from None


def _scalar_bits(instr: Instr, k: int, x: Any) -> int:
    """A Python scalar's bits: float and int are values, str a literal."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{_name(k)}: bool is not a floating-point operand")
    if isinstance(x, str):
        return _literal(instr, k, x)
    if isinstance(x, int):
        return _literal(instr, k, str(x))
    if isinstance(x, float):
        return instr._p.float_operand(x)
    if isinstance(x, (np.ndarray, np.generic)):
        return int(_array_bits(instr, k, np.asarray(x))[0].reshape(()))
    raise TypeError(
        f"{_name(k)}: expected a numpy array, a float, an int or a str, got {type(x).__name__}"
    )


def _array_bits(instr: Instr, k: int, a: np.ndarray) -> tuple[np.ndarray, str]:
    """An array operand's bit patterns (uint of the operand width) and its kind."""
    width, lanes, lane_type = instr.width, instr.lanes, instr.lane_type
    words = _UINT[width]
    dt = a.dtype
    if dt.kind == "u":
        if dt.itemsize * 8 != width:
            raise TypeError(
                f"{_name(k)}: {dt.name} array for the {width}-bit `.{instr.type}` operand; "
                f"bit patterns are {words.name}"
            )
        return a.astype(words, copy=False), "bits"
    is_float = dt.kind == "f" or _is_bfloat16(dt)
    if not is_float:
        raise TypeError(
            f"{_name(k)}: {dt.name} array is neither {words.name} bit patterns nor "
            f"{lane_type} values"
        )
    want = _lane_dtype(lane_type)
    if dt != want:
        raise TypeError(
            f"{_name(k)}: {dt.name} array for a `.{instr.type}` operand; values are {want.name} "
            f"(convert explicitly, e.g. a.astype(...), or give {words.name} bit patterns)"
        )
    lane_words = _UINT[width // lanes]
    v = a.view(lane_words) if a.ndim else a.reshape(1).view(lane_words).reshape(())
    if lanes == 1:
        return v, "values"
    if a.ndim == 0 or a.shape[-1] != 2:
        raise ValueError(
            f"{_name(k)}: `.{instr.type}` values need a trailing axis of 2 lanes, got shape "
            f"{a.shape}"
        )
    if _LITTLE and v.flags.c_contiguous:
        # Lane 0 first in memory is the low half of the register.
        return v.view(words).reshape(a.shape[:-1]), "values"
    lo = v[..., 0].astype(words)
    hi = v[..., 1].astype(words)
    return lo | (hi << words.type(width // 2)), "values"


def _operand(instr: Instr, k: int, x: Any) -> tuple[np.ndarray, str | None]:
    """An operand as bit patterns, and its kind: 'bits', 'values', or None for scalars."""
    if isinstance(x, (np.ndarray, np.generic)):
        return _array_bits(instr, k, np.asarray(x))
    words = _UINT[instr.width]
    if isinstance(x, (list, tuple)):
        objs = np.asarray(x, dtype=object)
        flat = [_scalar_bits(instr, k, v) for v in objs.ravel()]
        return np.array(flat, dtype=words).reshape(objs.shape), None
    return np.array(_scalar_bits(instr, k, x), dtype=words), None


def _result_dtype(instr: Instr, kind: str) -> tuple[np.dtype, bool]:
    """The result's dtype, and whether a trailing lane axis is added."""
    if instr._p.is_predicate:
        return np.dtype(np.bool_), False
    if kind == "bits":
        return _UINT[instr.width], False
    return _lane_dtype(instr.lane_type), instr.lanes > 1


def _evaluate(instr: Instr, operands: Sequence[Any], out: np.ndarray | None) -> Any:
    _count(instr, operands)
    converted = [_operand(instr, k, x) for k, x in enumerate(operands)]
    kinds = [kind for _, kind in converted if kind is not None]
    kind = kinds[0] if kinds else "values"
    dtype, lane_axis = _result_dtype(instr, kind)
    bits = [b for b, _ in converted]
    try:
        shape = np.broadcast_shapes(*(b.shape for b in bits))
    except ValueError:
        shapes = ", ".join(str(b.shape) for b in bits)
        raise ValueError(f"operands do not broadcast together: shapes {shapes}") from None
    n = int(np.prod(shape, dtype=np.int64))
    flat = [
        b.reshape(1) if b.size == 1 else np.ascontiguousarray(np.broadcast_to(b, shape)).reshape(-1)
        for b in bits
    ]
    words = np.dtype(np.bool_) if instr._p.is_predicate else _UINT[instr.width]
    full = shape + (2,) if lane_axis else shape
    if out is not None:
        if not isinstance(out, np.ndarray):
            raise TypeError(f"out: expected a numpy array, got {type(out).__name__}")
        if out.dtype != dtype:
            raise TypeError(f"out: expected dtype {dtype.name}, got {out.dtype.name}")
        if out.shape != full:
            raise ValueError(f"out: expected shape {full}, got {out.shape}")
        if not out.flags.writeable:
            raise ValueError("out: array is read-only")
        overlaps = any(np.may_share_memory(out, b) for b in flat)
        if out.flags.c_contiguous and (not lane_axis or _LITTLE) and not overlaps:
            # The results go straight into `out`'s memory: lane 0 first is the low half.
            if n:
                instr._p.eval_into(flat, out.reshape(-1).view(words))
            return out
    result = np.empty(n, dtype=words)
    if n:
        instr._p.eval_into(flat, result)
    value = (_lanes(instr, result, dtype) if lane_axis else result.view(dtype)).reshape(full)
    if out is not None:
        out[...] = value
        return out
    return value[()] if value.ndim == 0 else value


def _lanes(instr: Instr, words: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Packed results as a trailing axis of 2 lanes of ``dtype``, lane 0 first."""
    if _LITTLE:
        return words.view(dtype).reshape(words.shape + (2,))
    half = instr.width // 2
    lane_words = _UINT[half]
    lanes = np.empty(words.shape + (2,), dtype=lane_words)
    lanes[..., 0] = words.astype(lane_words)
    lanes[..., 1] = (words >> words.dtype.type(half)).astype(lane_words)
    return lanes.view(dtype)


def eval(
    instr: str | Instr,
    *operands: Any,
    target: str | None = None,
    ptx: str | None = None,
    policy: Mapping[str, Any] | None = None,
    out: np.ndarray | None = None,
) -> Any:
    """The device's result of ``instr`` on numpy arrays or scalars, broadcast together.

    ``instr`` is an instruction's text (``"fma.rn.ftz.sat.f32"``) or an :class:`Instr`; the number
    of operands picks its form (``min``/``max`` take 2 or 3). ``target``, ``ptx`` and ``policy``
    are as for :class:`Instr`. ``out``, if given, receives the result (its dtype and shape must be
    the result's) and is returned. Large arrays run on every core without the GIL.
    """
    return _evaluate(_instr(instr, len(operands), target, ptx, policy), operands, out)


@dataclass(frozen=True)
class Rule:
    """A rule that decided (part of) a result, and the lane it applied to."""

    lane: int | None
    text: str

    def __str__(self) -> str:
        return self.text if self.lane is None else f"lane {self.lane}: {self.text}"


@dataclass(frozen=True)
class Alternative:
    """The result under another value of an unverified policy."""

    policy: str
    value: str
    result: int
    result_text: str


@dataclass(frozen=True)
class Explanation:
    """A result and everything that decided it; ``str()`` is what ``gpufp eval`` prints."""

    instr: str
    effective: str | None
    operands: tuple[int, ...]
    result: int
    result_text: str
    value: str | None
    lanes: tuple[tuple[int, str], ...]
    warnings: tuple[str, ...]
    rules: tuple[Rule, ...]
    guarantees: tuple[str, ...]
    exact: bool
    alternatives: tuple[Alternative, ...]
    text: str

    @classmethod
    def _from(cls, d: dict) -> "Explanation":
        return cls(
            instr=d["instr"],
            effective=d["effective"],
            operands=tuple(d["operands"]),
            result=d["result"],
            result_text=d["result_text"],
            value=d["value"],
            lanes=tuple(tuple(x) for x in d["lanes"]),
            warnings=tuple(d["warnings"]),
            rules=tuple(Rule(lane, text) for lane, text in d["rules"]),
            guarantees=tuple(text for _, text in d["guarantees"]),
            exact=all(exact for exact, _ in d["guarantees"]),
            alternatives=tuple(Alternative(*a) for a in d["alternatives"]),
            text=d["text"],
        )

    def __str__(self) -> str:
        return self.text


def explain(
    instr: str | Instr,
    *operands: Any,
    target: str | None = None,
    ptx: str | None = None,
    policy: Mapping[str, Any] | None = None,
) -> Explanation:
    """The result for one case of scalar operands, with the effective instruction, warnings,
    the rules that fired, each lane's guarantee, and the result under each alternative of every
    unverified policy that changes it."""
    return _instr(instr, len(operands), target, ptx, policy).explain(*operands)


@dataclass(frozen=True)
class Vectors:
    """Test cases: one uint array per source operand, and the model's results."""

    instr: str
    operands: tuple[np.ndarray, ...]
    expected: np.ndarray

    def __len__(self) -> int:
        return len(self.expected)


def gen(
    instr: str | Instr,
    *,
    level: int = 1,
    seed: int = 0,
    count: int | None = None,
    operands: int | None = None,
    target: str | None = None,
    ptx: str | None = None,
    policy: Mapping[str, Any] | None = None,
) -> Vectors:
    """The test cases ``gpufp gen`` writes, in its order, as arrays of bit patterns.

    Results are uint arrays of the operand width (bool for ``testp``)."""
    if isinstance(instr, Instr):
        i = _instr(instr, instr.inputs, target, ptx, policy)
    else:
        i = Instr(instr, target=target, ptx=ptx, operands=operands, policy=policy)
    cols, results = i._p.cases(level, seed, count)
    words = _UINT[i.width]
    ops = tuple(c.astype(words) for c in cols)
    expected = results.astype(np.bool_ if i._p.is_predicate else words)
    return Vectors(i.text, ops, expected)


@dataclass(frozen=True)
class CheckReport:
    """How results from a device or another model compare with the model and the manual."""

    cases: int
    exact: int
    within_spec: int
    violations: int
    exact_mask: np.ndarray
    within_spec_mask: np.ndarray
    mismatches: tuple[tuple[int, str], ...]

    @property
    def ok(self) -> bool:
        """No result violates the manual's guarantee."""
        return self.violations == 0


def check(
    instr: str | Instr,
    *operands: Any,
    result: Any,
    show: int = 10,
    target: str | None = None,
    ptx: str | None = None,
    policy: Mapping[str, Any] | None = None,
) -> CheckReport:
    """Judges ``result`` for ``instr`` on ``operands`` case by case, as ``gpufp check`` does: bit-exact
    against the model, and within the manual's guarantee (for ``.approx`` bounds and open NaNs).
    Operands and results take the forms :func:`eval` takes; ``mismatches`` explains the first
    ``show`` results that are not the model's."""
    i = _instr(instr, len(operands), target, ptx, policy)
    _count(i, operands)
    converted = [_operand(i, k, x)[0] for k, x in enumerate(operands)]
    if i._p.is_predicate:
        r = np.asarray(result)
        if r.dtype != np.bool_:
            raise TypeError(f"result: testp results are bool, got {r.dtype.name}")
        res = r.astype(np.uint64)
    else:
        res = _operand(i, -1, result)[0]
    try:
        shape = np.broadcast_shapes(res.shape, *(b.shape for b in converted))
    except ValueError:
        raise ValueError("operands and result do not broadcast together") from None
    flat = [np.broadcast_to(b, shape).reshape(-1).astype(np.uint64) for b in converted]
    res = np.broadcast_to(res, shape).reshape(-1).astype(np.uint64)
    exact, within, shown = i._p.judge(flat, res, show)
    return CheckReport(
        cases=len(res),
        exact=int(exact.sum()),
        within_spec=int(within.sum()),
        violations=int((~within).sum()),
        exact_mask=exact.reshape(shape),
        within_spec_mask=within.reshape(shape),
        mismatches=tuple((int(j), text) for j, text in shown),
    )


@dataclass(frozen=True)
class PolicyInfo:
    """One rule the manual leaves open: the model's default, its evidence and its status."""

    name: str
    default: str
    evidence: str
    status: str


def policies() -> tuple[PolicyInfo, ...]:
    """Every policy :class:`Instr` and :func:`eval` can select with ``policy={name: value}``."""
    return tuple(PolicyInfo(*p) for p in _native.policies())


def simd_level() -> str:
    """The SIMD level the fast paths run at on this CPU, capped by ``$GPUFP_SIMD`` (``portable``,
    ``v3`` or ``v4``, read once); raises :class:`Error` when that names no level."""
    return _native.simd_level()


from . import ptx  # noqa: E402  (uses the names above)
