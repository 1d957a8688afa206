"""Half precision against numpy and ml_dtypes.

numpy computes float16 ``+ - * /`` by converting both operands to float32, operating in float32
and rounding to float16. Rounding twice is innocuous here: a float32 result carries 24 bits, at
least 2p + 2 for float16's p = 11, and for +, -, *, / that makes the second rounding give the
correctly rounded result (Figueroa, "When is double rounding innocuous?", 1995). So numpy's float16
arithmetic is IEEE .rn, which is what add/sub/mul.rn.f16 are. PTX has no f16 division; numpy's
float32 division, IEEE .rn, is checked against div.rn.f32 below on f16-valued operands.

NaN results: half-precision instructions "return an unspecified NaN" (PTX ISA 9.7.4); the test
asserts a NaN where numpy has one, then the model's documented choice, the canonical 0x7FFF.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import gpufp
from oracle import BF16, round_exact

ALL16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


def b_values(rng: np.random.Generator) -> np.ndarray:
    special = np.array(
        [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x3BFF, 0x3C01, 0x7BFF,
         0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x1400, 0x6800],
        dtype=np.uint16,
    )
    return np.concatenate([special, rng.integers(0, 1 << 16, 46, dtype=np.uint16)])


@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_f16_rn_against_numpy(op: str) -> None:
    rng = np.random.default_rng(16)
    bs = b_values(rng)
    a = np.repeat(ALL16, len(bs)).view(np.float16)
    b = np.tile(bs, len(ALL16)).view(np.float16)
    with np.errstate(all="ignore"):
        want = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[op](a, b)
    got = gpufp.eval(f"{op}.rn.f16", a, b)
    assert got.dtype == np.float16
    w, g = want.view(np.uint16), got.view(np.uint16)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan), "NaN where numpy has NaN, nowhere else"
    assert np.all(g[nan] == 0x7FFF), "the model's half NaN is canonical"
    bad = np.flatnonzero(w[~nan] != g[~nan])
    assert bad.size == 0, (
        f"{op}.rn.f16 {a[~nan][bad[0]]!r} {b[~nan][bad[0]]!r}: "
        f"got {g[~nan][bad[0]]:#06x}, numpy {w[~nan][bad[0]]:#06x}"
    )
    assert len(a) == (1 << 16) * 64


def test_f32_div_against_numpy_via_f16_operands() -> None:
    """numpy's float32 division is IEEE .rn; on f16-valued operands it cannot overflow or lose
    bits to subnormals, and div.rn.f32 must agree exactly."""
    rng = np.random.default_rng(32)
    a = np.repeat(ALL16, 16).view(np.float16).astype(np.float32)
    b = np.tile(b_values(rng)[:16], 1 << 16).view(np.float16).astype(np.float32)
    with np.errstate(all="ignore"):
        want = a / b
    got = gpufp.eval("div.rn.f32", a, b)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))


ml_dtypes = pytest.importorskip("ml_dtypes")
BF = np.dtype(ml_dtypes.bfloat16)


def test_bf16_operands_convert_as_ml_dtypes() -> None:
    """A float32 value given to a bf16 instruction rounds to bf16 to nearest even, as
    ml_dtypes' float32 -> bfloat16 cast does. ``add.rn.bf16 x, -0.0`` returns x itself for
    every non-NaN x, so the operand conversion is what is observed."""
    rng = np.random.default_rng(7)
    bits = np.concatenate([
        rng.integers(0, 1 << 32, 200_000, dtype=np.uint64).astype(np.uint32),
        # Ties and near-ties between bf16 neighbours, at every exponent.
        (np.arange(1 << 16, dtype=np.uint32) << 16) | 0x8000,
        (np.arange(1 << 16, dtype=np.uint32) << 16) | 0x7FFF,
        (np.arange(1 << 16, dtype=np.uint32) << 16) | 0x8001,
    ])
    x = bits.view(np.float32)
    x = x[~np.isnan(x)]
    want = x.astype(BF)
    neg_zero = np.array(-0.0, dtype=np.float32).astype(BF)
    via_floats = gpufp.eval("add.rn.bf16", [float(v) for v in x[:2000]], -0.0)
    assert np.array_equal(via_floats.view(np.uint16), want[:2000].view(np.uint16))
    got = gpufp.eval("add.rn.bf16", want, neg_zero)
    assert got.dtype == BF
    assert np.array_equal(got.view(np.uint16), want.view(np.uint16))


@pytest.mark.parametrize("op", ["add", "mul"])
def test_bf16_arithmetic_exact(op: str) -> None:
    """add/mul.rn.bf16 on ml_dtypes arrays against the Fraction oracle, decoded by ml_dtypes."""
    rng = np.random.default_rng(8)
    a = rng.integers(0, 1 << 16, 4000, dtype=np.uint16)
    b = rng.integers(0, 1 << 16, 4000, dtype=np.uint16)
    got = gpufp.eval(f"{op}.rn.bf16", a.view(BF), b.view(BF))
    assert got.dtype == BF
    for x, y, r in zip(a.tolist(), b.tolist(), got.view(np.uint16).tolist()):
        if any(BF16.is_nan(v) or BF16.is_inf(v) for v in (x, y)):
            continue
        exact = BF16.value(x) + BF16.value(y) if op == "add" else BF16.value(x) * BF16.value(y)
        if exact == 0:
            continue  # zero signs are covered by the f32/f64 oracle test
        assert r == round_exact(exact, BF16, "rn"), f"{op}.rn.bf16 {x:#06x} {y:#06x}"
        # ml_dtypes decodes the result to the value the oracle rounded to.
        if not BF16.is_inf(r):
            value = Fraction(float(np.array(r, dtype=np.uint16).view(BF).astype(np.float32)))
            assert value == BF16.value(r)


def test_bf16_ties_round_to_even_not_up() -> None:
    """Emulators that round bf16 by adding 0x8000 round ties up; the device rounds to even."""
    one = np.array([0x3F80], dtype=np.uint16).view(BF)
    tie = np.float32(Fraction(1) + Fraction(1, 256))  # halfway between 1 and 1 + 2^-7
    assert float(tie) == 1 + 2**-8
    got = gpufp.eval("mul.rn.bf16", one, np.array([float(tie)]).astype(np.float32).astype(BF))
    # ml_dtypes itself rounds the tie to even, 1.0: then 1 * 1 = 1.
    assert got.view(np.uint16)[0] == 0x3F80
    got = gpufp.eval("fma.rn.bf16", one, one, np.array([0x3B80], dtype=np.uint16).view(BF))
    # 1 + 2^-8 is the tie: to even, 0x3F80.
    assert got.view(np.uint16)[0] == 0x3F80
