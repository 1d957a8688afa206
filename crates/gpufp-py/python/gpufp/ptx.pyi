"""PTX instructions as numpy functions (see gpufp.ptx): modifiers as keywords."""

from typing import Any, Mapping

import numpy as np

def spell(
    opcode: str, type: str, rnd: str | None = None, prop: str | None = None, **flags: bool
) -> str: ...

def _op(
    *operands: Any,
    type: str | None = None,
    rnd: str | None = None,
    target: str | None = None,
    ptx: str | None = None,
    policy: Mapping[str, Any] | None = None,
    out: np.ndarray | None = None,
    **modifiers: Any,
) -> Any: ...

testp = _op
copysign = _op
add = _op
sub = _op
mul = _op
fma = _op
mad = _op
div = _op
abs = _op
neg = _op
min = _op
max = _op
rcp = _op
sqrt = _op
rsqrt = _op
sin = _op
cos = _op
lg2 = _op
ex2 = _op
tanh = _op
