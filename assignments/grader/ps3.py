"""Hidden tests of ps3, frequencies and extension: against transformers'
rope init functions (default, linear, llama3) and SymPy (the NTK base)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from . import hf
from .core import Check, Fail, answers, call, check_student_id, close, number

RTOL = 1e-5  # transformers computes the frequencies in float32


def _vector(value, name: str, size: int, sheet) -> np.ndarray:
    out = np.asarray(value, dtype=np.float64)
    if out.shape != (size,):
        if out.size == int(sheet.base) // 2:
            raise Fail(
                f"{name} returned {out.size} values (base / 2): dim and "
                "base are swapped in a call (inv_freq takes (dim, base))."
            )
        raise Fail(
            f"{name} returned shape {out.shape}: expected ({size},), one "
            "value per plane (dim / 2 planes)."
        )
    return out


def _exponent_hint(got: np.ndarray, sheet, scale: float = 1.0) -> str:
    i = np.arange(sheet.dim // 2)
    for exponent, what in (
        (i / sheet.dim, "i/d: the exponent needs 2i/d"),
        (2 * i, "2i without /d: divide the exponent by d"),
    ):
        if np.allclose(got, sheet.base ** (-exponent) / scale, rtol=1e-6):
            return f" The exponent is {what}."
    return ""


def sheet_check(module, sheet) -> None:
    check_student_id(module, sheet)


def inv_freq_check(module, sheet) -> str:
    got = _vector(
        call(module, "inv_freq")(sheet.dim, sheet.base),
        "inv_freq",
        sheet.dim // 2,
        sheet,
    )
    expected = hf.default_inv_freq(sheet.dim, sheet.base)
    if np.allclose(got, expected, rtol=RTOL, atol=0):
        return ""

    def rotate(x, positions):  # a rotation with the student's theta_i
        theta = np.asarray(call(module, "inv_freq")(sheet.dim, sheet.base))
        angles = np.asarray(positions, dtype=np.float64)[:, None] * theta
        half = sheet.dim // 2
        x1, x2 = x[:, :half], x[:, half:]
        cos, sin = np.cos(angles), np.sin(angles)
        return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)

    found = hf.diagnosis(rotate, "half", sheet.dim, sheet.base)
    raise Fail(
        "inv_freq differs from transformers' rotary embedding: theta_i = "
        "base^(-2i/d), i = 0 ... d/2 - 1."
        + _exponent_hint(got, sheet)
        + ("\n" + found if found else "")
    )


def wavelength_check(module, sheet) -> str:
    got = _vector(
        call(module, "wavelengths")(sheet.dim, sheet.base),
        "wavelengths",
        sheet.dim // 2,
        sheet,
    )
    theta = hf.default_inv_freq(sheet.dim, sheet.base)
    expected = 2 * np.pi / theta
    if np.allclose(got, expected, rtol=RTOL):
        return ""
    if np.allclose(got, 1 / theta, rtol=RTOL):
        raise Fail(
            "wavelengths are 1/theta_i: a full turn is 2 pi radians, so "
            "plane i needs 2 pi / theta_i positions."
        )
    if np.allclose(got, theta, rtol=RTOL) or np.allclose(
        got, theta / (2 * np.pi), rtol=RTOL
    ):
        raise Fail(
            "wavelengths returns frequencies: the wavelength is the number "
            "of positions for one turn, 2 pi / theta_i (it grows with i)."
        )
    if np.allclose(got, 360 / theta, rtol=RTOL):
        raise Fail(
            "wavelengths counts a turn as 360: theta_i is in radians per "
            "position, so a turn is 2 pi."
        )
    raise Fail(
        "wavelengths differ from 2 pi / theta_i with transformers' "
        "theta_i." + _exponent_hint(2 * np.pi / got, sheet)
    )


def pi_check(module, sheet) -> str:
    got = _vector(
        call(module, "pi_inv_freq")(sheet.dim, sheet.base, sheet.factor),
        "pi_inv_freq",
        sheet.dim // 2,
        sheet,
    )
    params = {
        "rope_type": "linear",
        "rope_theta": sheet.base,
        "factor": sheet.factor,
    }
    expected = hf.init_inv_freq(sheet.dim, params)
    if np.allclose(got, expected, rtol=RTOL):
        return ""
    plain = hf.default_inv_freq(sheet.dim, sheet.base)
    if np.allclose(got, plain * sheet.factor, rtol=RTOL):
        raise Fail(
            f"pi_inv_freq multiplies theta_i by the factor {sheet.factor:g}:"
            " position interpolation squeezes the positions, m -> m / s, "
            "which divides every theta_i by s (the angles turn slower)."
        )
    if np.allclose(got, plain, rtol=RTOL):
        raise Fail(
            "pi_inv_freq returns the frequencies unchanged: divide every "
            "theta_i by the factor."
        )
    raise Fail(
        "pi_inv_freq differs from transformers' 'linear' rope type: "
        "theta_i / factor." + _exponent_hint(got, sheet, sheet.factor)
    )


def ntk_check(module, sheet) -> str:
    got = float(call(module, "ntk_base")(sheet.base, sheet.dim, sheet.factor))
    d, s, b, b2 = sp.symbols("d s beta beta2", positive=True)
    # the slowest plane (i = d/2 - 1) turns s times slower, theta_0 stays 1
    slowest = sp.Eq(b2 ** (-(d - 2) / d), b ** (-(d - 2) / d) / s)
    solution = sp.solve(slowest, b2)[0]
    values = {d: sheet.dim, s: sheet.factor, b: sheet.base}
    expected = float(solution.subs(values))
    if close(got, expected, 1e-9):
        return ""
    dim, factor = sheet.dim, sheet.factor
    for value, what in (
        (sheet.base * factor ** ((dim - 2) / dim), "(d - 2)/d, upside down"),
        (sheet.base * factor, "1: the factor alone is not enough"),
        (sheet.base * factor ** (dim / 2), "d/2"),
    ):
        if close(got, value, 1e-9):
            raise Fail(
                f"ntk_base raises the factor to the power {what}. Solve "
                "base'^(-(d-2)/d) = base^(-(d-2)/d) / s for base' (the "
                "slowest plane turns s times slower): base' = base * "
                "s^(d/(d-2))."
            )
    raise Fail(
        "ntk_base is not the base whose slowest plane turns factor times "
        "slower (solved with SymPy): base' = base * s^(d/(d-2))."
    )


def llama3_check(module, sheet) -> str:
    got = _vector(
        call(module, "llama3_inv_freq")(
            sheet.dim,
            sheet.base,
            sheet.factor,
            sheet.low_freq_factor,
            sheet.high_freq_factor,
            sheet.train_length,
        ),
        "llama3_inv_freq",
        sheet.dim // 2,
        sheet,
    )
    params = {
        "rope_type": "llama3",
        "rope_theta": sheet.base,
        "factor": sheet.factor,
        "low_freq_factor": sheet.low_freq_factor,
        "high_freq_factor": sheet.high_freq_factor,
        "original_max_position_embeddings": sheet.train_length,
    }
    expected = hf.init_inv_freq(
        sheet.dim, params, max_position_embeddings=4 * sheet.train_length
    )
    wrong = ~np.isclose(got, expected, rtol=RTOL)
    if not wrong.any():
        return ""
    theta = hf.default_inv_freq(sheet.dim, sheet.base)
    wavelength = 2 * np.pi / theta
    long_ = wavelength > sheet.train_length / sheet.low_freq_factor
    short = wavelength < sheet.train_length / sheet.high_freq_factor
    bands = []
    for mask, band, rule in (
        (short, "short wavelengths (< L / high_freq_factor)", "kept"),
        (
            long_,
            "long wavelengths (> L / low_freq_factor)",
            "divided by factor",
        ),
        (
            ~short & ~long_,
            "the blend between",
            "blended linearly in L / wavelength",
        ),
    ):
        planes = np.flatnonzero(wrong & mask)
        if planes.size:
            which = (
                f"plane {planes[0]}"
                if planes.size == 1
                else f"planes {planes.min()} to {planes.max()}"
            )
            bands.append(f"{band}: {which} wrong (this band is {rule})")
    raise Fail(
        "llama3_inv_freq differs from transformers' 'llama3' rope type in "
        + "; ".join(bands)
        + ". Compare the wavelength 2 pi / theta_i, not theta_i, with "
        "L / low_freq_factor and L / high_freq_factor."
    )


def _number_check(key: str, expected, hint: str):
    def check(module, sheet) -> str:
        check_student_id(module, sheet, short=True)
        given = number(answers(module, sheet), key)
        value = expected(sheet)
        if close(given, value, 1e-6):
            return ""
        raise Fail(f"ANSWERS[{key!r}] is {given!r}: {hint}")

    return check


def _wavelengths(sheet):
    return 2 * np.pi / hf.default_inv_freq(sheet.dim, sheet.base)


CHECKS = [
    Check("3.0", "STUDENT_ID is yours", 1, sheet_check),
    Check("3.1", "inv_freq against transformers", 2, inv_freq_check),
    Check("3.2", "wavelengths 2 pi / theta_i", 2, wavelength_check),
    Check("3.3", "pi_inv_freq against transformers' linear", 2, pi_check),
    Check("3.4", "ntk_base (solved with SymPy)", 2, ntk_check),
    Check("3.5", "llama3_inv_freq against transformers", 3, llama3_check),
    Check(
        "3.6",
        "your longest wavelength",
        1,
        _number_check(
            "longest_wavelength",
            lambda s: float(_wavelengths(s).max()),
            "the wavelength of the last plane, 2 pi base^((d-2)/d), in "
            "positions, for your dim and base.",
        ),
    ),
    Check(
        "3.7",
        "planes that turn within the training length",
        1,
        _number_check(
            "planes_full_turn",
            lambda s: int(np.sum(_wavelengths(s) <= s.train_length)),
            "count the planes whose wavelength is at most your train_length.",
        ),
    ),
    Check(
        "3.8",
        "your NTK base",
        1,
        _number_check(
            "ntk_base",
            lambda s: s.base * s.factor ** (s.dim / (s.dim - 2)),
            "ntk_base(base, dim, factor) for your sheet.",
        ),
    ),
    Check(
        "3.9",
        "planes Llama 3 keeps",
        1,
        _number_check(
            "llama3_kept",
            lambda s: int(
                np.sum(_wavelengths(s) < s.train_length / s.high_freq_factor)
            ),
            "count the planes whose wavelength is below train_length / "
            "high_freq_factor (they keep theta_i).",
        ),
    ),
]
