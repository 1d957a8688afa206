"""An exact oracle independent of gpufp: binary formats decoded to ``fractions.Fraction`` and
exact results rounded once, in each IEEE 754 direction, back to bits. Pure Python integers."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Fmt:
    name: str
    exp_bits: int
    frac_bits: int

    @property
    def bits(self) -> int:
        return 1 + self.exp_bits + self.frac_bits

    @property
    def bias(self) -> int:
        return (1 << (self.exp_bits - 1)) - 1

    @property
    def emin(self) -> int:
        return 1 - self.bias

    @property
    def emax(self) -> int:
        return self.bias

    @property
    def p(self) -> int:
        return self.frac_bits + 1

    @property
    def exp_mask(self) -> int:
        return ((1 << self.exp_bits) - 1) << self.frac_bits

    @property
    def sign_bit(self) -> int:
        return 1 << (self.bits - 1)

    def is_nan(self, x: int) -> bool:
        return (x & self.exp_mask) == self.exp_mask and (x & ((1 << self.frac_bits) - 1)) != 0

    def is_inf(self, x: int) -> bool:
        return (x & ~self.sign_bit) == self.exp_mask

    def is_zero(self, x: int) -> bool:
        return (x & ~self.sign_bit) == 0

    def sign(self, x: int) -> int:
        return x >> (self.bits - 1)

    def value(self, x: int) -> Fraction:
        """The finite value of bits ``x``."""
        e = (x & self.exp_mask) >> self.frac_bits
        f = x & ((1 << self.frac_bits) - 1)
        if e == 0:
            v = Fraction(f) * Fraction(2) ** (self.emin - self.frac_bits)
        else:
            v = Fraction(f + (1 << self.frac_bits)) * Fraction(2) ** (e - self.bias - self.frac_bits)
        return -v if self.sign(x) else v

    def inf(self, neg: bool) -> int:
        return self.exp_mask | (self.sign_bit if neg else 0)

    def max_finite(self, neg: bool) -> int:
        return (self.exp_mask - (1 << self.frac_bits)) | ((1 << self.frac_bits) - 1) | (
            self.sign_bit if neg else 0
        )


F16 = Fmt("f16", 5, 10)
BF16 = Fmt("bf16", 8, 7)
F32 = Fmt("f32", 8, 23)
F64 = Fmt("f64", 11, 52)


def _round_int(m: Fraction, mode: str, neg: bool) -> int:
    """``m`` (>= 0) rounded to an integer in direction ``mode`` for a value of sign ``neg``."""
    q, r = divmod(m.numerator, m.denominator)
    if r == 0:
        return q
    if mode == "rz":
        return q
    if mode == "rn":
        twice = 2 * r
        if twice > m.denominator or (twice == m.denominator and q % 2 == 1):
            return q + 1
        return q
    up = (mode == "rp") != neg  # away from zero for rp on positives, rm on negatives
    return q + 1 if up else q


def round_exact(
    v: Fraction, fmt: Fmt, mode: str, zero_sign: int = 0, above: Fraction | None = None
) -> int:
    """The exact value ``v`` rounded once to ``fmt`` in ``mode`` (rn, rz, rm, rp), with gradual
    underflow; ``zero_sign`` is the sign of an exact zero. ``above``: the true value is not ``v``
    but lies strictly between ``v`` and ``v + above`` (``v > 0``), an interval that holds no
    rounding boundary in its interior (square root)."""
    if v == 0 and above is None:
        return fmt.sign_bit if zero_sign else 0
    neg = v < 0
    a = -v if neg else v
    e = a.numerator.bit_length() - a.denominator.bit_length() if a > 0 else fmt.emin
    # The bit lengths place the exponent within one: fix it exactly.
    while a >= Fraction(2) ** (e + 1):
        e += 1
    while a < Fraction(2) ** e:
        e -= 1
    e = max(e, fmt.emin)
    ulp = Fraction(2) ** (e - fmt.frac_bits)
    m = a / ulp
    if above is not None:
        # Any point strictly inside the interval rounds as the true value does.
        m += above / ulp / 2
    n = _round_int(m, mode, neg)
    if n == 1 << fmt.p:
        n >>= 1
        e += 1
    if e > fmt.emax:
        overflow_to_inf = mode == "rn" or (mode == "rp" and not neg) or (mode == "rm" and neg)
        return fmt.inf(neg) if overflow_to_inf else fmt.max_finite(neg)
    sign = fmt.sign_bit if neg else 0
    if n < 1 << fmt.frac_bits:
        return sign | n  # subnormal (or zero)
    return sign | ((e + fmt.bias) << fmt.frac_bits) | (n - (1 << fmt.frac_bits))


def sqrt_round(x: int, fmt: Fmt, mode: str) -> int:
    """The square root of finite non-negative bits ``x``, rounded once."""
    v = fmt.value(x)
    if v == 0:
        return x
    # v = M / 2^K exactly; sqrt(v) = sqrt(M * 2^(2J - K)) / 2^J with 2J - K >= 0 and many bits.
    num, den = v.numerator, v.denominator
    k = den.bit_length() - 1  # den is a power of two
    j = (k + 2 * fmt.p + 8) // 2 + fmt.p + 4
    scaled = num << (2 * j - k)
    s = math.isqrt(scaled)
    exact = s * s == scaled
    return round_exact(Fraction(s, 1 << j), fmt, mode, above=None if exact else Fraction(1, 1 << j))
