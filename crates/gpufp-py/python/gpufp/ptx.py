"""PTX instructions as numpy functions: modifiers as keywords.

``gpufp.ptx.fma(a, b, c, rnd="rn", ftz=True)`` is ``gpufp.eval("fma.rn.ftz.f32", a, b, c)`` for
float32 operands. The type comes from ``type=`` (``"f16x2"``, ...) or else from the first float
array operand's dtype; bit-pattern operands need ``type=``. Boolean keywords add a modifier
(``ftz``, ``sat``, ``relu``, ``oob``, ``approx``, ``full``, ``NaN`` (or ``nan``), ``xorsign``,
``abs``); ``rnd`` is ``"rn"``, ``"rz"``, ``"rm"`` or ``"rp"``. ``testp`` takes its property as
``prop=`` (``"finite"``, ``"notanumber"``, ...). ``target``, ``ptx``, ``policy`` and ``out`` are
as for :func:`gpufp.eval`. Every function validates the instruction it spells, as ptxas would.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import _native
from . import eval as _eval

_OPCODES, _PROPERTIES, _MODIFIERS = _native.spellings()
_TYPES = {name for name, _, _ in _native.types()}
_ROUNDINGS = ("rn", "rz", "rm", "rp")
__all__ = list(_OPCODES)


def _type_of(operands: tuple[Any, ...]) -> str:
    for x in operands:
        if isinstance(x, (np.ndarray, np.generic)):
            dt = np.asarray(x).dtype
            if dt.name == "bfloat16":
                return "bf16"
            if dt.kind == "f":
                return {2: "f16", 4: "f32", 8: "f64"}[dt.itemsize]
    raise TypeError("give type= (e.g. type='f32'): no float array operand to take it from")


def spell(opcode: str, type: str, rnd: str | None = None, prop: str | None = None, **flags: bool) -> str:
    """The instruction text for ``opcode`` with these modifiers, in the manual's order."""
    if opcode not in _OPCODES:
        raise ValueError(f"unknown opcode `{opcode}`")
    if type not in _TYPES:
        raise ValueError(f"unknown type `{type}`; the types are {', '.join(sorted(_TYPES))}")
    if rnd is not None and rnd not in _ROUNDINGS:
        raise ValueError(f"rnd: `{rnd}` is not one of {', '.join(_ROUNDINGS)}")
    names = {m.lower(): m for m in _MODIFIERS if m not in _ROUNDINGS}
    chosen = set()
    for key, on in flags.items():
        if key.lower() not in names:
            raise TypeError(f"`{key}` is not a modifier keyword of gpufp.ptx.{opcode}")
        if on:
            chosen.add(names[key.lower()])
    if rnd is not None:
        chosen.add(rnd)
    words = [opcode]
    if opcode == "testp":
        if prop is None:
            raise TypeError(f"testp needs prop=, one of {', '.join(_PROPERTIES)}")
        words.append(prop)
    elif prop is not None:
        raise TypeError("prop= is testp's")
    words += [m for m in _MODIFIERS if m in chosen]
    words.append(type)
    return ".".join(words)


def _function(opcode: str) -> Callable[..., Any]:
    def op(
        *operands: Any,
        type: str | None = None,
        rnd: str | None = None,
        target: str | None = None,
        ptx: str | None = None,
        policy: Any = None,
        out: np.ndarray | None = None,
        **modifiers: Any,
    ) -> Any:
        prop = modifiers.pop("prop", None)
        text = spell(opcode, type or _type_of(operands), rnd, prop, **modifiers)
        return _eval(text, *operands, target=target, ptx=ptx, policy=policy, out=out)

    op.__name__ = op.__qualname__ = opcode
    op.__doc__ = (
        f"PTX `{opcode}` on numpy arrays or scalars: modifiers as keywords "
        f"(see the gpufp.ptx module), e.g. gpufp.ptx.{opcode}(..., type='f32')."
    )
    return op


for _op in _OPCODES:
    globals()[_op] = _function(_op)
del _op
