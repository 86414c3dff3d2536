"""How two computations agree, printed in words no CPU can change (issue 21).

Floating-point results differ in their last bits from one machine to the next: numpy picks
its ``sin``/``cos`` kernels by CPU (AVX-512, AVX2 or the baseline), torch picks its kernels
the same way, and a BLAS sums in an order that depends on the thread count. A difference of
two computations that agree up to rounding is therefore noise: ``1.1e-10`` on one machine,
``0.0e+00`` on another. The book never prints such a number. It prints the verdict against
a tolerance the reader understands ("agree to 1e-12"), and prints a number only when it
means something, at a precision that rounding cannot change (:func:`significant`).

>>> agreement([1.0, 2.0], [1.0, 2.0 + 3e-16], tol=1e-12)
'agree to 1e-12'
>>> agreement([1.0], [1.5], tol=1e-12)
'DIFFER: largest difference 0.5, above the tolerance 1e-12'
>>> within(3e-16, 1e-12)
'below 1e-12'
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._checks import check_count, check_positive

__all__ = ["agreement", "largest_difference", "significant", "tolerance_text", "within"]


def tolerance_text(tol: float) -> str:
    """A tolerance as a reader writes it: ``1e-12``, ``1e-9``, ``0.001``, ``2.5e-5``."""
    return _short_exponent(f"{check_positive(tol, 'tol'):g}")


def _short_exponent(text: str) -> str:
    """``1e-09`` -> ``1e-9``, ``1e+20`` -> ``1e20``: the exponent as a reader writes it."""
    mantissa, sep, exponent = text.partition("e")
    if not sep:
        return text
    sign = "-" if exponent.startswith("-") else ""
    return f"{mantissa}e{sign}{int(exponent.lstrip('+-'))}"


def largest_difference(a: Any, b: Any) -> float:
    """max |a − b| over all entries (NaN where either side has a NaN; inf where one is inf).

    Arrays of the same shape, or any pair numpy broadcasts; torch tensors are read through
    ``numpy()``.
    """
    left = np.asarray(_as_numpy(a), dtype=np.float64)
    right = np.asarray(_as_numpy(b), dtype=np.float64)
    try:
        diff = np.abs(left - right)
    except ValueError as error:
        raise ValueError(
            f"a and b must have shapes that broadcast, got {left.shape} and {right.shape}"
        ) from error
    if diff.size == 0:
        raise ValueError("a and b must hold at least one number, got empty arrays")
    if np.isnan(diff).any():
        return math.nan
    return float(diff.max())


def within(value: float, tol: float) -> str:
    """A difference stated against its tolerance: ``"below 1e-12"`` when ``|value| <= tol``.

    Otherwise the measured value appears with the word that tells the reader something is
    wrong (``"3.1e-05, ABOVE the tolerance 1e-12"``): on a machine where that happens the
    printed line changes, so strict nbval fails exactly there.
    """
    bound = tolerance_text(tol)
    value = float(value)
    if math.isfinite(value) and abs(value) <= float(tol):
        return f"below {bound}"
    return f"{value:.2g}, ABOVE the tolerance {bound}"


def agreement(a: Any, b: Any, *, tol: float) -> str:
    """Whether two computations agree: ``"agree to 1e-12"`` when max |a − b| <= ``tol``.

    Otherwise ``"DIFFER: largest difference 0.5, above the tolerance 1e-12"``.
    """
    bound = tolerance_text(tol)
    diff = largest_difference(a, b)
    if math.isfinite(diff) and diff <= float(tol):
        return f"agree to {bound}"
    return f"DIFFER: largest difference {diff:.2g}, above the tolerance {bound}"


def significant(value: float, digits: int = 2) -> str:
    """A number that means something (an angle error of 1.5 rad in bfloat16), at ``digits``
    significant digits: fixed notation between 1e-3 and 1e4, scientific outside.

    Use it for values far above rounding noise; a value at the rounding level belongs in
    :func:`within` or :func:`agreement`.
    """
    digits = check_count(digits, "digits", minimum=1)
    value = float(value)
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    exponent = math.floor(math.log10(abs(value)))
    if -3 <= exponent < 4:
        decimals = max(digits - 1 - exponent, 0)
        return f"{round(value, decimals):.{decimals}f}"
    return f"{value:.{digits - 1}e}"


def _as_numpy(value: Any) -> Any:
    detach = getattr(value, "detach", None)
    if detach is not None:
        return detach().cpu().double().numpy()
    return value
