"""The package against the Rust core through the ``gpufp`` command: every valid variant of every
instruction family (packed types and approximate instructions included), on random bit patterns,
gives the bits ``gpufp batch`` prints; ``explain`` prints what ``gpufp eval`` prints.

The command is ``$GPUFP_BIN`` (``.ci/run`` sets it), else ``target/{release,debug}/gpufp`` of this
checkout; without one the test is skipped, saying so."""

from __future__ import annotations

import itertools
import os
import pathlib
import subprocess

import numpy as np
import pytest

import gpufp

ROOT = pathlib.Path(__file__).resolve().parents[3]


def gpufp_bin() -> str:
    env = os.environ.get("GPUFP_BIN")
    if env:
        assert pathlib.Path(env).is_file(), f"GPUFP_BIN={env} does not exist"
        return env
    for profile in ("release", "debug"):
        p = ROOT / "target" / profile / "gpufp"
        if p.is_file():
            return str(p)
    pytest.skip("no gpufp command: set GPUFP_BIN or build it with cargo build -p gpufp-cli")


OPCODES, PROPERTIES, MODIFIERS = gpufp._native.spellings()
TYPES = [name for name, _, _ in gpufp._native.types()]
ROUNDINGS = [None, "rn", "rz", "rm", "rp"]
FLAGS = ["approx", "full", "ftz", "sat", "relu", "oob", "NaN", "xorsign", "abs"]


def variants() -> list[tuple[str, int]]:
    """Every valid (instruction, operand count) with at most three flags: the validator decides."""
    found = []
    for opcode in OPCODES:
        heads = [f"testp.{p}" for p in PROPERTIES] if opcode == "testp" else [opcode]
        counts = (2, 3) if opcode in ("min", "max") else (None,)
        for head, ty, rnd, n in itertools.product(heads, TYPES, ROUNDINGS, counts):
            for k in range(4):
                for flags in itertools.combinations(FLAGS, k):
                    mods = list(flags) + ([rnd] if rnd else [])
                    order = [m for m in MODIFIERS if m in mods]
                    text = ".".join([head, *order, ty])
                    try:
                        i = gpufp.Instr(text, operands=n)
                    except gpufp.Error:
                        continue
                    found.append((i.text, i.inputs))
    return sorted(set(found))


VARIANTS = variants()


def test_every_family_is_covered() -> None:
    opcodes = {text.split(".")[0] for text, _ in VARIANTS}
    assert opcodes == set(OPCODES)
    assert any("x2" in t for t, _ in VARIANTS) and any(".approx." in t for t, _ in VARIANTS)
    assert ("min.f32", 3) in VARIANTS and ("max.NaN.f32", 3) in VARIANTS
    assert len(VARIANTS) > 300


def interesting(width: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Random bit patterns, with every lane's exponent often near 1 or extreme."""
    words = {16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
    x = rng.integers(0, np.iinfo(np.uint64).max, n, dtype=np.uint64, endpoint=True)
    return (x & np.uint64((1 << width) - 1 if width < 64 else np.iinfo(np.uint64).max)).astype(words)


def test_batch_agrees(tmp_path: pathlib.Path) -> None:
    exe = gpufp_bin()
    rng = np.random.default_rng(2026)
    per = 24
    lines, expected = [], []
    for text, n in VARIANTS:
        i = gpufp.Instr(text, operands=n)
        ops = [interesting(i.width, per, rng) for _ in range(n)]
        got = i(*ops)
        for j in range(per):
            lines.append(" ".join([text] + [f"0x{int(o[j]):0{i.width // 4}x}" for o in ops]))
            r = int(got[j])
            expected.append(str(r) if got.dtype == np.bool_ else f"0x{r:0{i.width // 4}x}")
    path = tmp_path / "cases.txt"
    path.write_text("\n".join(lines) + "\n")
    out = subprocess.run([exe, "batch", str(path)], capture_output=True, text=True, check=True)
    printed = out.stdout.splitlines()
    assert len(printed) == len(expected)
    bad = [(l, e, p) for l, e, p in zip(lines, expected, printed) if e != p]
    assert not bad, f"{len(bad)} differ, first: {bad[:3]}"


@pytest.mark.parametrize(
    "args",
    [
        ["mul.rn.ftz.f32", "0x3F7FFFFE", "0x00800001"],
        ["fma.rn.relu.f16", "-1", "0", "-0.0"],
        ["ex2.approx.f32", "-130.0"],
        ["sin.approx.f32", "100"],
        ["min.NaN.xorsign.abs.bf16x2", "0x7fc0bf80", "{-2, 1}"],
        ["div.full.f32", "1", "3"],
        ["rsqrt.approx.ftz.f64", "0x3ff8000000000000"],
        ["testp.subnormal.f64", "0x1"],
        ["max.f32", "1", "nan", "-0.0"],
        ["fma.rn.oob.relu.bf16x2", "0x7fff3f80", "0x3f803f80", "0x3f803f80"],
    ],
)
def test_explain_prints_as_eval(args: list[str]) -> None:
    exe = gpufp_bin()
    cli = subprocess.run([exe, "eval", *args], capture_output=True, text=True, check=True).stdout
    assert str(gpufp.explain(*args)) == cli


def test_policy_selection_matches_cli() -> None:
    exe = gpufp_bin()
    args = ["mul.rn.ftz.f32", "0x3F7FFFFE", "0x00800001"]
    policy = {"ftz_tininess": "BeforeRounding"}
    cli = subprocess.run(
        [exe, "eval", "--policy", "ftz_tininess=BeforeRounding", *args],
        capture_output=True, text=True, check=True,
    ).stdout
    e = gpufp.explain(*args, policy=policy)
    assert str(e) == cli
    assert e.result == 0 and e.result_text == "0x00000000"
    assert {a.value for a in e.alternatives} == {"IeeeRounded", "UnboundedRounded"}
