"""f32 and f64 add, sub, mul, fma, div and sqrt in all four rounding directions against an exact
oracle (``fractions.Fraction``, one rounding: tests/oracle.py), on special and random operands.

NaN results: the manual leaves the single-precision NaN unspecified ("Single-precision instructions
return an unspecified NaN", PTX ISA 9.7.3), so for f32 the test asserts a NaN, then the model's
documented choice, 0x7FFFFFFF. For f64 "NaN payloads are supported": a NaN operand's payload comes
back quieted, and which operand's is open; the test asserts it is one of them, then the model's
documented choice (the first, policy ``f64_nan``); an invalid operation on non-NaN operands gives
some NaN, the model's being 0x7FFFFFFFFFFFFFFF.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import gpufp
from oracle import F32, F64, Fmt, round_exact, sqrt_round

MODES = ("rn", "rz", "rm", "rp")
WORDS = {32: np.uint32, 64: np.uint64}


def specials(fmt: Fmt) -> list[int]:
    top = fmt.sign_bit
    one = fmt.bias << fmt.frac_bits
    min_normal = 1 << fmt.frac_bits
    vals = [
        0,
        1,  # least subnormal
        (1 << fmt.frac_bits) - 1,  # greatest subnormal
        min_normal,
        min_normal + 1,
        one,
        one + 1,
        one - 1,
        one + (1 << fmt.frac_bits),  # 2
        (one - (1 << fmt.frac_bits)) | ((1 << fmt.frac_bits) - 1),  # just under 1
        fmt.max_finite(False),
        fmt.max_finite(False) - 1,
        fmt.exp_mask,  # inf
        fmt.exp_mask | 1,  # signalling NaN
        fmt.exp_mask | (1 << (fmt.frac_bits - 1)) | 5,  # quiet NaN with a payload
        (fmt.bias + 3) << fmt.frac_bits | 0x5A5A5 & ((1 << fmt.frac_bits) - 1),
        (fmt.bias - 30) << fmt.frac_bits | 12345,
    ]
    return vals + [v | top for v in vals]


def random_bits(fmt: Fmt, n: int, rng: np.random.Generator) -> list[int]:
    """Half random bit patterns, half values with exponents near 1 (so that sums cancel and
    products stay in range)."""
    words = WORDS[fmt.bits]
    raw = rng.integers(0, 1 << fmt.bits, size=n, dtype=np.uint64).astype(words)
    out = [int(x) for x in raw[: n // 2]]
    for x in raw[n // 2 :]:
        x = int(x)
        e = fmt.bias + int(rng.integers(-8, 9))
        out.append((x & (fmt.sign_bit | ((1 << fmt.frac_bits) - 1))) | (e << fmt.frac_bits))
    return out


def quiet(fmt: Fmt, x: int) -> int:
    return x | (1 << (fmt.frac_bits - 1))


def canonical(fmt: Fmt) -> int:
    return (1 << (fmt.bits - 1)) - 1


def expected(op: str, fmt: Fmt, mode: str, ops: list[int]) -> tuple[int | None, list[int] | None]:
    """The oracle's result bits, or (None, NaNs allowed) when the result is NaN: the quieted NaN
    operands (f64), or [] for an invalid operation."""
    nans = [quiet(fmt, x) for x in ops if fmt.is_nan(x)]
    if nans:
        return None, nans
    neg = [fmt.sign(x) == 1 for x in ops]
    inf = [fmt.is_inf(x) for x in ops]
    zero = [fmt.is_zero(x) for x in ops]
    val = [None if i else fmt.value(x) for x, i in zip(ops, inf)]
    rm_zero = 1 if mode == "rm" else 0

    def add(sa: bool, ia: bool, va, sb: bool, ib: bool, vb, zero_a: bool, zero_b: bool):
        if ia or ib:
            if ia and ib and sa != sb:
                return None, []
            return fmt.inf(sa if ia else sb), None
        s = va + vb
        if s == 0:
            if zero_a and zero_b and sa == sb:
                return (fmt.sign_bit if sa else 0), None
            return (fmt.sign_bit if rm_zero else 0), None
        return round_exact(s, fmt, mode), None

    if op in ("add", "sub"):
        sb = neg[1] != (op == "sub")
        vb = None if val[1] is None else (-val[1] if op == "sub" else val[1])
        return add(neg[0], inf[0], val[0], sb, inf[1], vb, zero[0], zero[1])
    if op in ("mul", "fma"):
        ps = neg[0] != neg[1]
        if (inf[0] and zero[1]) or (inf[1] and zero[0]):
            return None, []
        pinf = inf[0] or inf[1]
        if op == "mul":
            if pinf:
                return fmt.inf(ps), None
            p = val[0] * val[1]
            if p == 0:
                return (fmt.sign_bit if ps else 0), None
            return round_exact(p, fmt, mode), None
        pv = None if pinf else val[0] * val[1]
        return add(ps, pinf, pv, neg[2], inf[2], val[2], pv == 0, zero[2])
    if op == "div":
        qs = neg[0] != neg[1]
        if (inf[0] and inf[1]) or (zero[0] and zero[1]):
            return None, []
        if inf[0] or zero[1]:
            return fmt.inf(qs), None
        if inf[1] or zero[0]:
            return (fmt.sign_bit if qs else 0), None
        return round_exact(val[0] / val[1], fmt, mode), None
    if op == "sqrt":
        x = ops[0]
        if zero[0]:
            return x, None
        if neg[0]:
            return None, []
        if inf[0]:
            return x, None
        return sqrt_round(x, fmt, mode), None
    raise AssertionError(op)


ARITY = {"add": 2, "sub": 2, "mul": 2, "fma": 3, "div": 2, "sqrt": 1}


def cases(op: str, fmt: Fmt, rng: np.random.Generator) -> list[list[int]]:
    n = ARITY[op]
    sp = specials(fmt)
    out: list[list[int]] = []
    if n == 1:
        out += [[x] for x in sp]
    elif n == 2:
        out += [[x, y] for x in sp for y in sp]
    else:
        pick = sp[::3]
        out += [[x, y, z] for x in pick for y in pick for z in pick]
    cols = [random_bits(fmt, 3000, rng) for _ in range(n)]
    out += [list(t) for t in zip(*cols)]
    return out


@pytest.mark.parametrize("fmt", [F32, F64], ids=lambda f: f.name)
@pytest.mark.parametrize("op", list(ARITY))
@pytest.mark.parametrize("mode", MODES)
def test_one_rounding(op: str, fmt: Fmt, mode: str) -> None:
    rng = np.random.default_rng([list(ARITY).index(op), fmt.bits, MODES.index(mode)])
    instr = gpufp.Instr(f"{op}.{mode}.{fmt.name}")
    ops = cases(op, fmt, rng)
    words = WORDS[fmt.bits]
    cols = [np.array([c[k] for c in ops], dtype=words) for k in range(ARITY[op])]
    got = instr(*cols)
    assert got.dtype == words
    for j, case in enumerate(ops):
        want, nans = expected(op, fmt, mode, case)
        r = int(got[j])
        where = f"{instr.text} {' '.join(hex(x) for x in case)}: got {r:#x}"
        if want is not None:
            assert r == want, f"{where}, want {want:#x}"
            continue
        assert fmt.is_nan(r), f"{where}, want a NaN"
        if fmt is F32:
            assert r == canonical(F32), f"{where}: the model's f32 NaN is 0x7FFFFFFF"
        elif nans:
            assert r in nans, f"{where}: an f64 NaN operand's payload, quieted"
            assert r == nans[0], f"{where}: the model's choice is the first NaN operand"
        else:
            assert r == canonical(F64), f"{where}: the model's invalid-operation NaN"


def test_oracle_is_not_the_model() -> None:
    """The oracle knows facts computed by hand, so that a shared mistake cannot hide."""
    # 1 + 2^-24 in f32: a tie between 1 and 1 + 2^-23, to even.
    one = 0x3F800000
    assert round_exact(F32.value(one) + Fraction(1, 1 << 24), F32, "rn") == one
    assert round_exact(F32.value(one) + Fraction(1, 1 << 24), F32, "rp") == one + 1
    assert round_exact(-F32.value(one) - Fraction(1, 1 << 24), F32, "rm") == 0xBF800001
    # The least subnormal halved: a tie to even (zero), and away in rp.
    assert round_exact(Fraction(1, 1 << 150), F32, "rn") == 0
    assert round_exact(Fraction(1, 1 << 150), F32, "rp") == 1
    # Overflow: rz and rm give the largest finite value for a positive result.
    assert round_exact(Fraction(1 << 200), F32, "rz") == 0x7F7FFFFF
    assert round_exact(Fraction(1 << 200), F32, "rn") == 0x7F800000
    assert sqrt_round(0x40000000, F32, "rn") == 0x3FB504F3  # sqrt(2)
    assert sqrt_round(0x40000000, F32, "rp") == 0x3FB504F4
