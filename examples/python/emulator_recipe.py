"""Recipe: replace an emulator's floating-point instructions with gpufp.

A functional GPU emulator (or a Numba-CUDA-simulator-style interpreter) typically maps each PTX
opcode to a numpy expression over the 32 lanes of a warp. Four of those expressions are wrong in
ways programs notice: ``fma`` as ``a*b+c``, ``min``/``max`` as ``np.minimum``/``np.maximum``
(NaN and -0.0 rules), and ``rsqrt.approx`` as ``1 / np.sqrt`` (two roundings). The fix: prepare each
instruction once with ``gpufp.Instr`` and call it on the lanes' bit patterns (uint32 in, uint32
out), as the register file holds them; inactive lanes keep their old value.

Run: python examples/python/emulator_recipe.py
"""

from __future__ import annotations

import numpy as np

import gpufp

WARP = 32

# Before: what emulators commonly do (on float32 views of the registers).
NUMPY_OPS = {
    "fma.rn.f32": lambda a, b, c: a * b + c,
    "min.f32": np.minimum,
    "max.f32": np.maximum,
    "rsqrt.approx.f32": lambda a: np.float32(1) / np.sqrt(a),
}

# After: one prepared instruction per opcode; bits in, bits out.
GPU_OPS = {text: gpufp.Instr(text) for text in NUMPY_OPS}


def execute(ops: dict, text: str, regs: dict, dst: str, srcs: list[str], mask: np.ndarray, bits: bool) -> None:
    """Executes one instruction for the active lanes of a warp."""
    args = [regs[s] if bits else regs[s].view(np.float32) for s in srcs]
    result = ops[text](*args)
    result = result if bits else np.asarray(result, dtype=np.float32).view(np.uint32)
    regs[dst] = np.where(mask, result, regs[dst])


def run(ops: dict, bits: bool) -> dict:
    lanes = np.arange(WARP, dtype=np.float32)
    regs = {
        "a": (1 + lanes * 2**-12).astype(np.float32).view(np.uint32),
        "b": np.where(lanes % 4 == 0, np.float32(np.nan), -lanes).astype(np.float32).view(np.uint32),
        "z": np.where(lanes % 2 == 0, np.float32(-0.0), np.float32(0.0)).view(np.uint32),
        "y": np.where(lanes % 2 == 0, np.float32(0.0), np.float32(-0.0)).view(np.uint32),
        "d": np.zeros(WARP, np.uint32),
        "e": np.zeros(WARP, np.uint32),
        "f": np.zeros(WARP, np.uint32),
        "g": np.zeros(WARP, np.uint32),
    }
    mask = np.arange(WARP) < 30  # two inactive lanes
    minus_one = np.full(WARP, np.float32(-1)).view(np.uint32)
    regs["m1"] = minus_one
    execute(ops, "fma.rn.f32", regs, "d", ["a", "a", "m1"], mask, bits)
    execute(ops, "min.f32", regs, "e", ["a", "b"], mask, bits)
    execute(ops, "max.f32", regs, "f", ["z", "y"], mask, bits)
    execute(ops, "rsqrt.approx.f32", regs, "g", ["a"], mask, bits)
    return regs


with np.errstate(invalid="ignore"):
    before = run(NUMPY_OPS, bits=False)
after = run(GPU_OPS, bits=True)
for reg, what in [("d", "fma"), ("e", "min with NaN"), ("f", "max of zeros"), ("g", "rsqrt.approx")]:
    diff = np.flatnonzero(before[reg] != after[reg])
    print(f"{what:<14} lanes that differ: {diff.tolist()}")
    if diff.size:
        j = diff[0]
        print(f"{'':<14} lane {j}: emulator {before[reg][j]:#010x}, device {after[reg][j]:#010x}")
assert np.array_equal(after["e"][:30:4], after["a"][:30:4]), "min ignores a NaN operand"
assert np.all(after["f"][:30] == 0), "max(-0.0, +0.0) is +0.0 on the device"
