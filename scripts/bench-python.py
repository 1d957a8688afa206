#!/usr/bin/env python3
"""Throughput of the Python package on large arrays, against the Rust array path and numpy.

For each instruction, on arrays of N elements (default 10^7) of the instruction's dtype, in one
run and interleaved pass by pass (medians of REPS passes):

- package: ``gpufp.Instr(text)(*operands, out=out)``, every core, GIL released;
- rust: the same Rust array path without Python (``Prepared::eval_words`` over the same words, on
  as many threads), so ``pkg/rust`` is what the binding costs (the median of the pass-by-pass
  ratios: the two passes of a pair run back to back);
- slice1: ``Prepared::eval_slice`` on one thread over u64 copies (the Rust API's plain slice call);
- numpy: numpy's own expression for the instruction on the same arrays (inexact where the
  instruction is not IEEE arithmetic numpy has: fma as a*b+c, bf16 through float32, approximate
  instructions as exact functions), and ``package/numpy`` its time ratio.

Usage: python scripts/bench-python.py [--n N] [--reps REPS] [INSTR...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

# numpy's OpenBLAS threads busy-wait after a BLAS call and take cores from the threads measured.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import gpufp  # noqa: E402

try:
    import ml_dtypes

    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:
    BF16 = None

DEFAULT = [
    "add.rn.f32",
    "fma.rn.f32",
    "fma.rz.ftz.sat.f32",
    "add.rn.f64",
    "fma.rn.f16",
    "mul.rn.bf16",
    "min.NaN.f32",
    "sqrt.approx.f32",
    "ex2.approx.ftz.f32",
]


def numpy_expr(text: str):
    op = text.split(".")[0]
    bf = text.endswith("bf16")

    def wrap(f):
        if not bf:
            return f
        return lambda *xs: f(*(x.astype(np.float32) for x in xs)).astype(BF16)

    return wrap(
        {
            "add": lambda a, b: a + b,
            "sub": lambda a, b: a - b,
            "mul": lambda a, b: a * b,
            "fma": lambda a, b, c: a * b + c,
            "div": lambda a, b: a / b,
            "min": np.fmin,
            "max": np.fmax,
            "sqrt": np.sqrt,
            "ex2": np.exp2,
        }[op]
    )


def operands(i: gpufp.Instr, n: int, rng: np.random.Generator) -> list[np.ndarray]:
    dtype = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "bf16": BF16}[i.lane_type]
    if dtype is None:
        raise SystemExit("bf16 needs ml_dtypes")
    return [(rng.random(n) * 4 - (0 if i.opcode == "sqrt" else 2)).astype(dtype) for _ in range(i.inputs)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10**7)
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("instrs", nargs="*", default=DEFAULT)
    args = ap.parse_args()
    threads = os.cpu_count() or 1
    print(
        f"n = {args.n} elements, median of {args.reps} interleaved passes, {threads} threads, "
        f"SIMD level: {gpufp.simd_level()}"
    )
    print(
        f"{'instruction':<22} {'package':>10} {'rust':>10} {'pkg/rust':>8} {'slice1':>10} "
        f"{'numpy':>10} {'pkg/numpy':>9}"
    )
    rng = np.random.default_rng(1)
    for text in args.instrs:
        i = gpufp.Instr(text)
        ops = operands(i, args.n, rng)
        words = [o.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[o.itemsize]) for o in ops]
        wide = [w.astype(np.uint64) for w in words]
        out = np.empty_like(ops[0])
        expr = numpy_expr(text)
        t_pkg, t_rust, t_slice, t_np = [], [], [], []
        with np.errstate(all="ignore"):
            for _ in range(args.reps):
                t = time.perf_counter()
                i(*ops, out=out)
                t_pkg.append(time.perf_counter() - t)
                t_rust += i._p.time_words(words, 1, threads)
                t_slice += i._p.time_slice(wide, 1)
                t = time.perf_counter()
                expr(*ops)
                t_np.append(time.perf_counter() - t)
        pkg, rust, sl, npy = (statistics.median(t) for t in (t_pkg, t_rust, t_slice, t_np))
        # Ratios pass by pass, then their median: the passes of a pair ran back to back.
        vs_rust = statistics.median(r / p for r, p in zip(t_rust, t_pkg))
        vs_np = statistics.median(n / p for n, p in zip(t_np, t_pkg))
        rate = lambda s: f"{args.n / s / 1e6:7.1f} M/s"  # noqa: E731
        print(
            f"{text:<22} {rate(pkg)} {rate(rust)} {vs_rust:8.2f} {rate(sl)} {rate(npy)} "
            f"{vs_np:9.2f}"
        )


if __name__ == "__main__":
    main()
