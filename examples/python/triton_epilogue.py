"""A matmul epilogue as Triton's interpreter runs it (numpy) and as the GPU runs it (gpufp).

Triton kernels often end with ``acc * scale + bias``, a ReLU and a cast to bf16 or f16, plus a
normalisation with ``rsqrt``/``sqrt``. Under ``TRITON_INTERPRET=1`` each step is a numpy
expression; on the device each is a PTX instruction. This script computes the epilogue both
ways on the same f32 accumulators and counts, step by step, the elements whose bits differ:

- ``fma.rn.f32``: numpy rounds ``acc * scale`` and then the sum, the GPU rounds once;
- ``.ftz``: with ``-ftz=true`` (``--use_fast_math``) the GPU flushes subnormal inputs and results;
  numpy keeps them;
- bf16: an emulator that rounds by adding 0x8000 and truncating rounds ties up, the GPU to even;
  ties are common when the accumulators are short sums of bf16 products;
- ``rsqrt.approx.f32``: the special-function unit's reciprocal square root, rounded once, where
  numpy's ``1 / np.sqrt(x)`` rounds twice. (gpufp's default MUFU core is correctly rounded per
  step; a fitted hardware core, docs/sfu.md, differs from numpy more.)

Run: python examples/python/triton_epilogue.py
"""

from __future__ import annotations

import numpy as np

import gpufp

rng = np.random.default_rng(0)
n = 1 << 20
acc = (rng.standard_normal(n) * 64).astype(np.float32)
scale = np.float32(1 / 3)
bias = (rng.standard_normal(n)).astype(np.float32)
# Some accumulators so small that the product is subnormal, as under-scaled fp8 GEMMs produce.
acc[:4096] = (rng.standard_normal(4096) * 1e-36).astype(np.float32)


def differ(name: str, numpy_bits: np.ndarray, gpu_bits: np.ndarray) -> int:
    n = len(gpu_bits)
    diff = np.flatnonzero(numpy_bits != gpu_bits)
    example = ""
    if diff.size:
        j = diff[0]
        example = f"  e.g. element {j}: numpy {numpy_bits[j]:#x}, GPU {gpu_bits[j]:#x}"
    print(f"{name:<34} {diff.size:>8} of {n} differ{example}")
    return diff.size


# 1. acc * scale + bias: two roundings in numpy, one on the GPU.
y_np = acc * scale + bias
y_gpu = gpufp.eval("fma.rn.f32", acc, scale, bias)
d1 = differ("fma.rn.f32 vs a*b+c", y_np.view(np.uint32), y_gpu.view(np.uint32))

# 2. The same under --use_fast_math: fma.rn.ftz.f32 flushes subnormal inputs and results.
y_ftz = gpufp.eval("fma.rn.ftz.f32", acc, scale, np.float32(0))
d2 = differ("fma.rn.ftz.f32 vs a*b (subnormals)", (acc * scale).view(np.uint32), y_ftz.view(np.uint32))

# 3. ReLU and the cast to bf16 of accumulators that are sums of two bf16 products (few
# significant bits, so many ties): the device rounds to even, a common emulator rounds ties up.
m = 1 << 16
k = [(rng.standard_normal(m) * 4).astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000) for _ in range(4)]
k = [x.view(np.float32) for x in k]
acc16 = np.maximum(k[0] * k[1] + k[2] * k[3], np.float32(0))
words = acc16.view(np.uint32)
ties_up = ((words + np.uint32(0x8000)) >> np.uint32(16)).astype(np.uint16)
# The device's bf16: the f32 value rounded once to nearest even (gpufp converts each operand so;
# adding -0.0 returns it unchanged).
bf16_gpu = gpufp.eval("add.rn.bf16", [float(x) for x in acc16], -0.0)
bf16_gpu = bf16_gpu.view(np.uint16)
d3 = differ("bf16 round-to-even vs ties-up", ties_up, bf16_gpu)

# 4. Normalisation: rsqrt.approx.f32 (rsqrtf) vs numpy's 1 / np.sqrt(x).
v = np.abs(y_gpu) + np.float32(1)
r_np = np.float32(1) / np.sqrt(v)
r_gpu = gpufp.eval("rsqrt.approx.f32", v)
d4 = differ("rsqrt.approx.f32 vs 1/np.sqrt", r_np.view(np.uint32), r_gpu.view(np.uint32))
if d4:
    j = np.flatnonzero(r_np != r_gpu)[0]
    print("\nwhy, for the first one (gpufp.explain):")
    print(str(gpufp.explain("rsqrt.approx.f32", float(v[j]))).rstrip())

assert min(d1, d2, d3, d4) > 0, "each step differs somewhere on these inputs"
