"""The package's conventions: dtypes, broadcasting, ``out=``, scalars, empty and non-contiguous
arrays, packed lanes, the Instr object, ``gpufp.ptx``, gen/check, explanations, threads, errors.

Expected bits here are facts of IEEE arithmetic worked out by hand (named in each test) or the
package's own scalar path (``Instr.explain``, one case at a time through the integer core), which
other tests hold against independent oracles."""

from __future__ import annotations

import subprocess
import threading

import numpy as np
import pytest

import gpufp

ml_dtypes = pytest.importorskip("ml_dtypes")
BF = np.dtype(ml_dtypes.bfloat16)


def bits(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    return x.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize])


# --- dtypes -------------------------------------------------------------------------------------


def test_fma_rounds_once_where_numpy_rounds_twice() -> None:
    # (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly, an f32; a*a alone is 1 + 2^-11 + 2^-24, a tie
    # at 24 bits that rounds to even, 1 + 2^-11, so numpy's a*a - 1 loses the 2^-24.
    a = np.float32(1 + 2**-12)
    got = gpufp.eval("fma.rn.f32", a, a, np.float32(-1))
    assert isinstance(got, np.float32)
    assert float(got) == 2**-11 + 2**-24
    assert float(a * a - np.float32(1)) == 2**-11


@pytest.mark.parametrize(
    "dtype,instr,one",
    [
        (np.float16, "add.rn.f16", 0x3C00),
        (np.float32, "add.rn.f32", 0x3F800000),
        (np.float64, "add.rn.f64", 0x3FF0000000000000),
        (BF, "add.rn.bf16", 0x3F80),
    ],
)
def test_every_dtype_values_and_bits(dtype, instr: str, one: int) -> None:
    x = np.array([1, 2, -0.5], dtype=np.float32).astype(dtype)
    got = gpufp.eval(instr, x, x)
    assert got.dtype == np.dtype(dtype)
    assert got.astype(np.float32).tolist() == [2, 4, -1]
    words = bits(x)
    got_bits = gpufp.eval(instr, words, words)
    assert got_bits.dtype == words.dtype
    assert np.array_equal(got_bits, bits(got))
    # Mixed: the first array operand decides the representation.
    assert gpufp.eval(instr, words, x).dtype == words.dtype
    assert gpufp.eval(instr, x, words).dtype == np.dtype(dtype)
    # 1 + 1 = 2: the exponent field one higher.
    one_plus_one = gpufp.eval(instr, words[:1], words[:1])[0]
    exponent_lsb = {2: 1 << 10, 4: 1 << 23, 8: 1 << 52}[words.dtype.itemsize]
    if dtype is BF:
        exponent_lsb = 1 << 7
    assert int(one_plus_one) == one + exponent_lsb


def test_python_scalars_are_values() -> None:
    assert gpufp.eval("add.rn.f32", 1.5, 2) == np.float32(3.5)
    assert isinstance(gpufp.eval("add.rn.f32", 1.5, 2), np.float32)
    # An int is exact before the one rounding: 2^24 + 1 is a tie to even in f32.
    assert bits(gpufp.eval("add.rn.f32", 2**24 + 1, 0)) == 0x4B800000
    # A huge int rounds to infinity as a decimal literal would.
    assert bits(gpufp.eval("add.rn.f32", 10**400, 0)) == 0x7F800000
    # A str is a literal: bits, 0f, decimal, lanes.
    assert bits(gpufp.eval("add.rn.f32", "0x3f800000", "0f3F800000")) == 0x40000000
    assert bits(gpufp.eval("add.rn.f16", "1e-8", 0)) == 0x0000  # below half the least subnormal
    # A float is converted once to the type, to nearest even: 1 + 2^-11 ties to 1 in f16.
    assert bits(gpufp.eval("add.rn.f16", 1 + 2**-11, -0.0)) == 0x3C00
    assert bits(gpufp.eval("add.rn.f16", 1 + 2**-11 + 2**-40, -0.0)) == 0x3C01
    # Lists hold scalars.
    got = gpufp.eval("mul.rn.f64", [1.5, 2, "0d4000000000000000"], 2.0)
    assert got.tolist() == [3.0, 4.0, 4.0] and got.dtype == np.float64


def test_bf16_scalars_need_ml_dtypes_only_for_values() -> None:
    assert gpufp.eval("add.rn.bf16", 1.0, 1.0) == np.array(2, dtype=np.float32).astype(BF)
    assert gpufp.eval("add.rn.bf16", np.uint16(0x3F80), 1.0) == np.uint16(0x4000)


def test_testp_returns_bool() -> None:
    x = np.float32([1, np.inf, np.nan, 1e-40, -0.0])
    assert gpufp.eval("testp.finite.f32", x).tolist() == [True, False, False, True, True]
    assert gpufp.eval("testp.subnormal.f32", x).tolist() == [False, False, False, True, False]
    assert gpufp.eval("testp.notanumber.f64", np.float64([np.nan, 0])).dtype == np.bool_
    assert gpufp.eval("testp.notanumber.f32", "nan") == np.bool_(True)


def test_packed_lanes_trailing_axis_and_words() -> None:
    a = np.float16([[1, 2], [3, 4], [-0.0, 65504]])
    b = np.float16([0.5, 0.25])
    got = gpufp.eval("add.rn.f16x2", a, b)
    assert got.shape == (3, 2) and got.dtype == np.float16
    assert got.tolist() == [[1.5, 2.25], [3.5, 4.25], [0.5, 65504]]
    # Non-contiguous lane arrays: a column-sliced view.
    wide = np.float16([[1, 9, 2, 9], [3, 9, 4, 9]])[:, ::2]
    assert gpufp.eval("add.rn.f16x2", wide, b).tolist() == [[1.5, 2.25], [3.5, 4.25]]
    # bf16x2 and f32x2.
    x = np.array([[1, -2]], dtype=np.float32)
    assert gpufp.eval("mul.rn.f32x2", x, x).tolist() == [[1, 4]]
    y = x.astype(BF)
    assert gpufp.eval("fma.rn.relu.bf16x2", y, y, -2.0).astype(np.float32).tolist() == [[0, 2]]
    with pytest.raises(ValueError, match="trailing axis of 2 lanes"):
        gpufp.eval("add.rn.f16x2", np.float16([1, 2, 3]), np.float16([1, 2, 3]))


def test_packed_words_value() -> None:
    # 1.5 = 0x3E00 and 2.25 = 0x4080: lane 0 in the low half.
    assert gpufp.eval("add.rn.f16x2", np.uint32(0x40003C00), "{0.5, 0.25}") == np.uint32(
        0x40803E00
    )


# --- shapes ---------------------------------------------------------------------------------------


def test_broadcasting_and_shapes() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.float32([[10], [20]])
    got = gpufp.eval("add.rn.f32", a, b)
    assert got.shape == (2, 3)
    assert np.array_equal(got, a + b)  # small integers: exact in both
    c = np.float32(1)
    got3 = gpufp.eval("fma.rn.f32", a, np.float32([1, 2, 3]), c)
    assert np.array_equal(got3, a * np.float32([1, 2, 3]) + c)
    with pytest.raises(ValueError, match="do not broadcast"):
        gpufp.eval("add.rn.f32", np.zeros(3, np.float32), np.zeros(4, np.float32))


def test_empty_and_zero_dim() -> None:
    e = np.zeros((0, 3), np.float32)
    got = gpufp.eval("add.rn.f32", e, np.float32(1))
    assert got.shape == (0, 3) and got.dtype == np.float32
    assert gpufp.eval("testp.finite.f32", e).shape == (0, 3)
    z = gpufp.eval("add.rn.f32", np.array(1, np.float32), np.array(2, np.float32))
    assert isinstance(z, np.float32) and z == 3


def test_non_contiguous_and_fortran_arrays() -> None:
    rng = np.random.default_rng(3)
    base = rng.standard_normal((64, 64)).astype(np.float32)
    views = [base[::2, ::3], base.T, np.asfortranarray(base), base[:, 5]]
    for v in views:
        got = gpufp.eval("mul.rz.f32", v, v)
        want = np.array([gpufp.explain("mul.rz.f32", float(x), float(x)).result for x in v.ravel()])
        assert np.array_equal(bits(got).ravel(), want.astype(np.uint32))


def test_out() -> None:
    a = np.float32([1, 2, 3])
    out = np.empty(3, np.float32)
    assert gpufp.eval("add.rn.f32", a, a, out=out) is out
    assert out.tolist() == [2, 4, 6]
    # Non-contiguous out, and out that is an operand.
    big = np.zeros(6, np.float32)
    gpufp.eval("add.rn.f32", a, a, out=big[::2])
    assert big.tolist() == [2, 0, 4, 0, 6, 0]
    gpufp.eval("add.rn.f32", a, 1.0, out=a)
    assert a.tolist() == [2, 3, 4]
    # Packed values into out with the lane axis; bits into a words array; bool for testp.
    lanes = np.empty((1, 2), np.float16)
    gpufp.eval("add.rn.f16x2", np.float16([[1, 2]]), np.float16([[1, 1]]), out=lanes)
    assert lanes.tolist() == [[2, 3]]
    w = np.empty(1, np.uint32)
    gpufp.eval("add.rn.f32", np.uint32([0x3F800000]), 1.0, out=w)
    assert w[0] == 0x40000000
    p = np.empty(2, np.bool_)
    gpufp.eval("testp.number.f32", np.float32([1, np.nan]), out=p)
    assert p.tolist() == [True, False]
    with pytest.raises(TypeError, match="out: expected dtype float32"):
        gpufp.eval("add.rn.f32", a, a, out=np.empty(3, np.float64))
    with pytest.raises(ValueError, match=r"out: expected shape \(3,\)"):
        gpufp.eval("add.rn.f32", a, a, out=np.empty(4, np.float32))
    ro = np.empty(3, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        gpufp.eval("add.rn.f32", a, a, out=ro)
    with pytest.raises(TypeError, match="out: expected a numpy array"):
        gpufp.eval("add.rn.f32", a, a, out=[0, 0, 0])


# --- errors ---------------------------------------------------------------------------------------


def test_errors_name_what_and_where() -> None:
    assert issubclass(gpufp.Error, ValueError)
    with pytest.raises(gpufp.Error, match=r"`add\.foo\.f32`, column 4: unknown modifier `\.foo`"):
        gpufp.eval("add.foo.f32", 1, 1)
    with pytest.raises(gpufp.Error, match="requires .target sm_80"):
        gpufp.eval("min.NaN.f32", 1, 1, target="sm_70")
    with pytest.raises(gpufp.Error, match="operand 2: `zz` is not a number"):
        gpufp.eval("add.f32", 1, "zz")
    with pytest.raises(gpufp.Error, match="`0x3c00` has 4 hex digits"):
        gpufp.eval("add.rn.f16x2", "0x3c00", np.uint32(0))
    with pytest.raises(gpufp.Error, match="wider than the 16-bit"):
        gpufp.eval("add.rn.f16", "0x10000", 1)
    with pytest.raises(gpufp.Error, match=r"takes 2 operand\(s\), got 3"):
        gpufp.eval("add.rn.f32", 1, 2, 3)
    with pytest.raises(gpufp.Error, match="unknown policy `nope`"):
        gpufp.eval("add.rn.f32", 1, 2, policy={"nope": "x"})
    with pytest.raises(gpufp.Error, match="not a value of policy `ftz_tininess`"):
        gpufp.eval("add.rn.f32", 1, 2, policy={"ftz_tininess": "Never"})
    with pytest.raises(gpufp.Error, match="target"):
        gpufp.Instr("add.rn.f32", target="sm_x")
    with pytest.raises(TypeError, match=r"operand 1: float64 array for a `\.f32` operand"):
        gpufp.eval("add.rn.f32", np.float64([1]), 1)
    with pytest.raises(TypeError, match=r"operand 2: uint16 array for the 32-bit"):
        gpufp.eval("add.rn.f32", 1, np.uint16([1]))
    with pytest.raises(TypeError, match="int32 array is neither uint32 bit patterns"):
        gpufp.eval("add.rn.f32", np.int32([1]), 1)
    with pytest.raises(TypeError, match="bool is not a floating-point operand"):
        gpufp.eval("add.rn.f32", True, 1)
    with pytest.raises(TypeError, match="expected a numpy array, a float"):
        gpufp.eval("add.rn.f32", object(), 1)
    with pytest.raises(TypeError, match="expected a str or gpufp.Instr"):
        gpufp.eval(42, 1, 1)
    with pytest.raises(TypeError, match="target, ptx and policy are given to Instr"):
        gpufp.eval(gpufp.Instr("add.rn.f32"), 1, 1, target="sm_90")
    with pytest.raises(gpufp.Error, match=r"result: `x` is not a number"):
        gpufp.check("add.rn.f32", 1, 1, result="x")


def test_bf16_values_without_ml_dtypes_is_a_clear_error(monkeypatch) -> None:
    import builtins

    real = builtins.__import__

    def no_ml_dtypes(name, *args, **kwargs):
        if name == "ml_dtypes":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ml_dtypes)
    with pytest.raises(TypeError, match="ml_dtypes package"):
        gpufp.eval("add.rn.bf16", 1.0, 1.0)
    assert gpufp.eval("add.rn.bf16", np.uint16(0x3F80), 1.0) == np.uint16(0x4000)


# --- Instr, ptx functions, explanations -----------------------------------------------------------


def test_instr_attributes() -> None:
    i = gpufp.Instr("min.xorsign.abs.NaN.f16x2")
    assert i.text == "min.NaN.xorsign.abs.f16x2" and str(i) == i.text
    assert (i.opcode, i.type, i.lane_type, i.inputs, i.width, i.lanes) == (
        "min", "f16x2", "f16", 2, 32, 2,
    )
    assert i.modifiers == ("NaN", "xorsign", "abs")
    assert i.min_target == "sm_86" and i.testp_property is None
    assert ("min.xorsign.abs", "sm_86", "7.2") in i.needs
    legacy = gpufp.Instr("div.f32", ptx="1.3")
    assert legacy.effective == "div.approx.ftz.f32"
    assert gpufp.Instr("testp.normal.f64").testp_property == "normal"
    three = gpufp.Instr("max.f32", operands=3)
    assert three.inputs == 3 and three(1.0, 3.0, 2.0) == np.float32(3)
    assert gpufp.Instr("mul.rn.ftz.f32", policy={"ftz_tininess": "IeeeRounded"}).policies[
        "ftz_tininess"
    ] == "IeeeRounded"
    assert repr(i) == "gpufp.Instr('min.NaN.xorsign.abs.f16x2')"


def test_ptx_functions_spell_and_validate() -> None:
    x = np.float32([1 + 2**-12])
    assert gpufp.ptx.fma(x, x, np.float32(-1), rnd="rn")[0] == np.float32(2**-11 + 2**-24)
    assert gpufp.ptx.spell("min", "f16", NaN=True, abs=True, xorsign=True) == (
        "min.NaN.xorsign.abs.f16"
    )
    assert gpufp.ptx.spell("div", "f32", full=True) == "div.full.f32"
    assert gpufp.ptx.spell("testp", "f32", prop="finite") == "testp.finite.f32"
    got = gpufp.ptx.min(np.float16([1, -0.0]), np.float16([np.nan, 0]), nan=True)
    assert np.isnan(got[0]) and bits(got)[0] == 0x7FFF
    assert gpufp.ptx.add(np.uint32([0x3F800000]), 1.0, type="f32", rnd="rz")[0] == 0x40000000
    assert gpufp.ptx.testp(np.float64([np.inf]), prop="infinite").tolist() == [True]
    with pytest.raises(TypeError, match="give type="):
        gpufp.ptx.add(1.0, 2.0)
    with pytest.raises(TypeError, match="not a modifier keyword"):
        gpufp.ptx.add(x, x, fast=True)
    with pytest.raises(gpufp.Error, match="sat"):
        gpufp.ptx.add(np.float64([1]), 1.0, rnd="rn", sat=True)
    with pytest.raises(ValueError, match="rnd"):
        gpufp.ptx.add(x, x, rnd="nearest")


def test_explanation_fields() -> None:
    e = gpufp.explain("mul.rn.ftz.f32", "0x3F7FFFFE", "0x00800001")
    assert e.result == 0x00800000 and e.result_text == "0x00800000"
    assert e.value == "1.17549435e-38" and e.exact
    assert e.alternatives == (
        gpufp.Alternative("ftz_tininess", "BeforeRounding", 0, "0x00000000"),
    )
    e = gpufp.explain("min.NaN.f16x2", "{1, nan}", "{-2, 3}")
    assert [l for l, _ in e.lanes] == [0xC000, 0x7FFF]
    assert any(r.lane == 1 for r in e.rules)
    e = gpufp.explain("ex2.approx.f32", -130.0)
    assert not e.exact and e.guarantees[0].startswith("within 2 ulp")
    assert any("MUFU.EX2" in r.text for r in e.rules)
    e = gpufp.explain("fma.rn.relu.f16", -1, 0, -0.0)
    assert e.result == 0 and any(".relu" in r.text for r in e.rules)
    assert e.alternatives[0].policy == "relu_negative_zero" and e.alternatives[0].result == 0x8000


def test_policies_listed() -> None:
    names = [p.name for p in gpufp.policies()]
    assert "ftz_tininess" in names and "f64_nan" in names
    assert all(p.status in ("verified", "unverified") for p in gpufp.policies())
    assert gpufp.simd_level()
    assert gpufp.__version__.count(".") == 2


# --- vectors --------------------------------------------------------------------------------------


def test_gen_matches_the_command() -> None:
    from test_cli_agreement import gpufp_bin

    v = gpufp.gen("fma.rn.ftz.f32", seed=5, count=300)
    assert len(v) == 300 and len(v.operands) == 3 and v.expected.dtype == np.uint32
    out = subprocess.run(
        [gpufp_bin(), "gen", "fma.rn.ftz.f32", "--seed", "5", "--count", "300"],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    mine = [
        " ".join(["fma.rn.ftz.f32", *(f"0x{int(o[j]):08x}" for o in v.operands), f"0x{int(v.expected[j]):08x}"])
        for j in range(300)
    ]
    assert mine == out
    t = gpufp.gen("testp.finite.f64")
    assert t.expected.dtype == np.bool_


def test_check_judges_like_the_command() -> None:
    v = gpufp.gen("add.rn.f32", count=500)
    r = gpufp.check("add.rn.f32", *v.operands, result=v.expected)
    assert (r.cases, r.exact, r.within_spec, r.violations, r.ok) == (500, 500, 500, 0, True)
    wrong = v.expected.copy()
    wrong[7] ^= 1
    r = gpufp.check("add.rn.f32", *v.operands, result=wrong)
    assert (r.exact, r.violations) == (499, 1) and not r.ok
    assert r.mismatches[0][0] == 7 and "VIOLATION" in r.mismatches[0][1]
    assert not r.exact_mask[7] and r.exact_mask.sum() == 499
    # Approximate results within the bound are within spec, not exact.
    x = np.float32([2.0])
    model = gpufp.eval("ex2.approx.f32", x)
    off = (bits(model) + 1).view(np.float32)
    r = gpufp.check("ex2.approx.f32", x, result=off)
    assert (r.exact, r.within_spec, r.violations) == (0, 1, 0)
    assert "within spec" in r.mismatches[0][1]
    # f32 NaN: any NaN is within spec (the manual's "unspecified NaN").
    r = gpufp.check("add.rn.f32", np.float32([np.inf]), np.float32([-np.inf]), result=np.uint32([0x7FC00000]))
    assert (r.exact, r.within_spec) == (0, 1)
    p = gpufp.check("testp.finite.f32", np.float32([1, np.inf]), result=np.array([True, True]))
    assert (p.exact, p.violations) == (1, 1)


# --- large arrays and threads ---------------------------------------------------------------------


@pytest.mark.parametrize("instr", ["fma.rz.ftz.sat.f32", "add.rn.f16", "min.NaN.f32", "sqrt.approx.f32", "fma.rn.sat.f16x2"])
def test_large_arrays_on_all_cores_equal_the_scalar_path(instr: str) -> None:
    i = gpufp.Instr(instr)
    rng = np.random.default_rng(11)
    n = 200_003  # several threads' parts, and a partial block
    words = {16: np.uint16, 32: np.uint32}[i.width]
    ops = [rng.integers(0, 1 << i.width, n, dtype=np.uint64).astype(words) for _ in range(i.inputs)]
    got = i(*ops)
    for j in list(range(0, n, 997)) + [n - 1]:
        assert int(got[j]) == i.explain(*(f"0x{int(o[j]):0{i.width // 4}x}" for o in ops)).result


def test_concurrent_calls_from_threads() -> None:
    rng = np.random.default_rng(12)
    a = rng.standard_normal(300_000).astype(np.float32)
    b = rng.standard_normal(300_000).astype(np.float32)
    want = {s: gpufp.eval(s, a, b) for s in ("add.rn.f32", "mul.rz.f32", "min.f32")}
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for _ in range(5):
                s = list(want)[k % 3]
                assert np.array_equal(gpufp.eval(s, a, b), want[s])
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_stubs_name_every_opcode() -> None:
    """ptx.pyi lists each generated function, so that type checkers see them all."""
    import pathlib

    stub = pathlib.Path(gpufp.ptx.__file__).with_suffix(".pyi").read_text()
    names = {line.split(" = ")[0] for line in stub.splitlines() if line.endswith(" = _op")}
    assert names == set(gpufp._native.spellings()[0])
    assert all(callable(getattr(gpufp.ptx, n)) for n in names)
    assert "fma" in (gpufp.ptx.fma.__doc__ or "")
