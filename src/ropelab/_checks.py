"""Argument checks shared by every public function of :mod:`ropelab`.

Each check raises a :class:`ValueError` that names the argument, states the allowed
range and repeats the value it got, so that a reader of a notebook traceback knows
what to change without reading our source.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

import numpy as np

LAYOUTS = ("interleaved", "half")


def _is_real_scalar(value: Any) -> bool:
    return isinstance(value, Real | np.floating | np.integer) and not isinstance(value, bool)


def check_dim(dim: Any, name: str = "dim") -> int:
    """A head (or rotary) dimension: a positive even integer."""
    if isinstance(dim, bool) or not isinstance(dim, Integral | np.integer):
        if _is_real_scalar(dim) and float(dim).is_integer():
            dim = int(dim)
        else:
            raise ValueError(f"{name} must be a positive even integer, got {dim!r}")
    dim = int(dim)
    if dim <= 0 or dim % 2:
        raise ValueError(f"{name} must be a positive even integer, got {dim}")
    return dim


def check_count(value: Any, name: str, minimum: int = 1) -> int:
    """A count (a length, a number of heads or tokens): an integer >= ``minimum``.

    Floats with an integer value (``8.0``) are accepted; ``True``/``False``, NaN and fractions
    are not.
    """
    if isinstance(value, bool) or not _is_real_scalar(value):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    number = float(value)
    if not math.isfinite(number) or not number.is_integer() or number < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(number)


def check_positive(
    value: Any, name: str, *, minimum: float = 0.0, inclusive: bool = False
) -> float:
    """A finite real scalar above ``minimum`` (or at least ``minimum`` when ``inclusive``)."""
    if not _is_real_scalar(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value}")
    ok = value >= minimum if inclusive else value > minimum
    if not ok:
        bound = f">= {minimum:g}" if inclusive else f"> {minimum:g}"
        raise ValueError(f"{name} must be {bound}, got {value:g}")
    return value


def check_base(base: Any, name: str = "base") -> float:
    """A RoPE base: finite and > 0 (base = 1 is allowed: every θ_i is then 1)."""
    return check_positive(base, name)


def check_log_base(base: Any, name: str = "base") -> float:
    """A base used as the base of a logarithm: finite and > 1."""
    return check_positive(base, name, minimum=1.0)


def check_length(length: Any, name: str, *, minimum: float = 0.0, inclusive: bool = True) -> float:
    """A sequence length (a count of tokens): finite and at least ``minimum``."""
    return check_positive(length, name, minimum=minimum, inclusive=inclusive)


def check_train_len(train_len: Any, name: str = "train_len") -> float:
    r"""A length that enters :math:`\log(T/2\pi)`; it must exceed 2π so that the log is positive."""
    return check_positive(train_len, name, minimum=2 * math.pi)


def check_layout(layout: Any) -> str:
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    return layout


def check_finite_array(values: Any, name: str) -> np.ndarray:
    """A float64 array with no NaN or infinity."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be real numbers, got {values!r}") from error
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite (no NaN or infinity), got {values!r}")
    return array


def check_nonnegative_array(values: Any, name: str) -> np.ndarray:
    """Finite values >= 0, such as relative distances or lengths."""
    array = check_finite_array(values, name)
    if np.any(array < 0):
        raise ValueError(f"{name} must be >= 0, got a minimum of {array.min():g}")
    return array
