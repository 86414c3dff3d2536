r"""What the angles of each plane say about an implementation (chapter 3A).

Given the angle :math:`\varphi_i(m)` by which plane *i* turned at each probed position *m*, a
correct implementation has :math:`\varphi_i(m) = m\theta_i` (mod 2π) with
:math:`\theta_i = \beta^{-2i/d}`. Each root cause leaves its own signature:

* direction: :math:`\varphi_i(m) = -m\theta_i`; cos and sin swapped:
  :math:`\varphi_i(m) = \pi/2 - m\theta_i`;
* positions: :math:`\varphi_i(m) = p(m)\,\theta_i` with an integer :math:`p(m) \ne m` (an offset
  :math:`p = m + c`, a cache that clamps or wraps, the row index instead of the position);
* frequencies: :math:`\varphi_i(m) = m\,\theta'_i` with :math:`\theta' \ne \theta` (only known
  mod 2π: integer positions cannot tell :math:`\theta` from :math:`\theta + 2\pi`);
* precision: :math:`\varphi_i(m) = m\theta_i(1 + \epsilon)` with :math:`|\epsilon|` of the order
  of a floating-point type's unit roundoff :math:`u` (:math:`2^{-8}` bfloat16, :math:`2^{-11}`
  float16, :math:`2^{-24}` float32), exact at :math:`m = 0` and growing with *m*.

This module only measures and classifies; :mod:`ropelab.diagnose.explain` writes the words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..precision import round_to_dtype
from .structure import wrap

#: A float64 implementation is exact to about 1e-10 rad at position 2^20.
EXACT = 1e-9
#: Effective positions must explain every plane to this (radians).
POSITION_TOL = 1e-8
#: Relative angle errors up to this are rounding (bfloat16 has u = 2^-8; two roundings 2^-7).
ROUNDING = 2.0**-6
#: Unit roundoffs of the floating-point types an angle table is commonly built in.
DTYPES = {"bfloat16": 2.0**-8, "float16": 2.0**-11, "float32": 2.0**-24}
FLOAT16_MAX = 65504.0


@dataclass(frozen=True)
class Direction:
    """Rotates by -mθ_i; ``example`` is (plane, position, measured angle)."""


@dataclass(frozen=True)
class Swapped:
    """cos and sin exchanged, x·sin + rotate(x)·cos: every plane turns by π/2 - mθ_i (a
    quarter turn at position 0, then backwards). One cause, not a direction and an offset."""


@dataclass(frozen=True)
class Offset:
    """Every position m is rotated as m + ``shift``."""

    shift: float


@dataclass(frozen=True)
class PositionMap:
    """Position ``probed[k]`` is rotated as ``used[k]`` (a clamp, a wrap or another map)."""

    probed: np.ndarray
    used: np.ndarray


@dataclass(frozen=True)
class Frequencies:
    """The measured θ_i (mod 2π, in [-π, π)) differ from the declared ones."""

    measured: np.ndarray


@dataclass(frozen=True)
class Precision:
    """Angles that are right up to rounding in a low-precision type.

    ``where`` is ``"angles"`` (the products mθ_i are rounded), ``"theta"`` (θ_i itself is
    stored rounded), ``"positions"`` (the positions are rounded) or ``"tables"`` (cos and sin
    or the output are rounded: the error does not grow with the position).
    """

    dtype: str
    unit_roundoff: float
    where: str
    overflow_from: int | None = None


@dataclass
class AngleReport:
    """The causes found, and whether they explain every probe.

    ``law`` and ``start`` describe the rotation the causes found so far predict: plane *i*
    at position *m* turns by ``start[i] + m * law[i]`` (``None``: the declared θ_i).
    """

    causes: list = field(default_factory=list)
    explained: bool = True
    law: np.ndarray | None = None
    start: np.ndarray | None = None


def analyse_angles(
    positions: np.ndarray, phi: np.ndarray, amp_dev: np.ndarray, theta: np.ndarray
) -> AngleReport:
    """Classify the plane angles ``phi[k, i]`` measured at ``positions[k]``.

    ``phi`` holds NaN for the probes whose output was not finite; ``amp_dev[k]`` is the largest
    |cos² + sin² - 1|^(1/2) deviation at probe *k*. ``positions`` must include 0, 1, 2, 3.
    """
    finite = np.all(np.isfinite(phi), axis=1)
    m = positions.astype(np.float64)
    errors = np.full(len(m), np.inf)
    errors[finite] = np.abs(wrap(phi[finite] - m[finite, None] * theta)).max(axis=1)
    if finite.all() and errors.max() <= EXACT and amp_dev.max() <= EXACT:
        return AngleReport()

    if finite.all() and amp_dev.max() <= EXACT:
        found = _position_map(positions, phi, theta)
        if found:
            return AngleReport(found)
    if finite.any() and not finite.all() and amp_dev[finite].max() <= EXACT:
        rounded = _rounded_positions(positions, phi, finite, theta)
        if rounded is not None:
            return AngleReport([rounded])

    index = {int(p): k for k, p in enumerate(positions)}
    if not all(finite[index[p]] for p in (0, 1, 2, 3) if p in index) or not {0, 1} <= set(index):
        return _precision_or_unexplained(positions, phi, amp_dev, theta, [], None)
    start, step = phi[index[0]], wrap(phi[index[1]] - phi[index[0]])
    small = [index[p] for p in (2, 3, 5, 8) if p in index and finite[index[p]]]
    linear = max((np.abs(wrap(phi[k] - start - m[k] * step)).max() for k in small), default=0.0)
    causes: list = []
    law = theta
    if linear <= 1e-6:
        if _close(step, theta) and not _exact_other_law(step, theta, linear):
            law = theta
        elif _close(step, -theta):
            causes.append(Direction())
            law = -theta
        else:
            return AngleReport([Frequencies(step)])
        quarter = np.abs(wrap(start - np.pi / 2)).max() <= POSITION_TOL
        if causes and quarter:  # π/2 - mθ_i: cos and sin swapped, one cause
            causes = [Swapped()]
            start = np.full_like(theta, np.pi / 2)
        elif np.abs(start).max() > EXACT:
            shift = _offset(start, law)
            if shift is None:
                return AngleReport(causes, explained=False)
            causes.append(Offset(shift))
            start = wrap(shift * law)
        else:
            start = np.zeros_like(theta)
    else:
        start = np.zeros_like(theta)
    residual = wrap(phi[finite] - start - m[finite, None] * law)
    if np.abs(residual).max(initial=0.0) <= POSITION_TOL and amp_dev[finite].max() <= EXACT:
        return AngleReport(causes, explained=finite.all())
    return _precision_or_unexplained(
        positions, phi, amp_dev, law, causes, step if linear <= 1e-12 else None, start
    )


def _close(measured: np.ndarray, target: np.ndarray) -> bool:
    """Equal up to the rounding of a low-precision type (relative ``ROUNDING``)."""
    return bool(np.all(np.abs(wrap(measured - target)) <= ROUNDING * np.abs(target) + EXACT))


def _exact_other_law(step: np.ndarray, theta: np.ndarray, linear: float) -> bool:
    """Whether ``step`` is exactly a geometric sequence other than ``theta`` (a slightly wrong
    base), rather than ``theta`` plus rounding noise."""
    if linear > 1e-12 or np.abs(wrap(step - theta)).max() <= EXACT or step.size < 3:
        return False
    if np.any(step <= 0):
        return False
    planes = np.arange(step.size)
    slope, intercept = np.polyfit(planes, np.log(step), 1)
    return bool(np.abs(np.log(step) - (intercept + slope * planes)).max() <= 1e-10)


def _offset(start: np.ndarray, law: np.ndarray) -> float | None:
    """The shift c with start_i = c * law_i (mod 2π), assuming |c * law_i| < π on the
    slowest plane: read there, then refined plane by plane towards the fastest one."""
    order = np.argsort(np.abs(law))
    if law[order[0]] == 0:
        return None
    shift = float(start[order[0]] / law[order[0]])
    for i in order[1:]:
        turns = np.round((shift * law[i] - start[i]) / (2 * np.pi))
        shift = float((start[i] + 2 * np.pi * turns) / law[i])
    if np.abs(wrap(shift * law - start)).max() > 1e-6:
        return None
    nearest = round(shift)
    return float(nearest) if abs(shift - nearest) < 1e-4 else shift


def effective_position(
    phi: np.ndarray, theta: np.ndarray, span: int = 2**21, tol: float = POSITION_TOL
) -> int | None:
    """The integer p in [-span, span] with phi_i = p θ_i (mod 2π) for every plane, if any.

    The slowest plane gives p modulo its wavelength; each candidate is checked on all planes.
    """
    slow = int(np.argmin(theta))
    if theta[slow] <= 0:
        return None
    wavelength = 2 * np.pi / theta[slow]
    first = float(wrap(phi[slow]) / theta[slow])
    count = 2 * span / wavelength
    if count > 2e5:  # frequencies too fast to pin a position down cheaply
        return None
    ks = np.arange(
        math.floor((-span - first) / wavelength), math.ceil((span - first) / wavelength) + 1
    )
    candidates = np.unique(np.rint(first + ks * wavelength))
    residual = np.abs(wrap(phi[None, :] - candidates[:, None] * theta[None, :])).max(axis=1)
    best = int(np.argmin(residual))
    return int(candidates[best]) if residual[best] <= tol else None


def _position_map(positions: np.ndarray, phi: np.ndarray, theta: np.ndarray) -> list:
    """Causes read off the effective positions, when every probe has one (else [])."""
    used = [effective_position(row, theta) for row in phi]
    if any(p is None for p in used):
        return []
    used = np.array(used, dtype=np.int64)
    if np.array_equal(used, positions):
        return []
    plain = _simple_map(positions, used)
    if plain is None:
        flipped = _simple_map(positions, -used)  # rotating by -pθ: a direction bug as well
        if flipped is not None:
            return [Direction(), *flipped]
    return plain if plain is not None else [PositionMap(positions.copy(), used)]


def _rounded_positions(
    positions: np.ndarray, phi: np.ndarray, finite: np.ndarray, theta: np.ndarray
) -> Precision | None:
    """Positions rounded to float16, NaN where they overflow: every finite probe turns as
    its position rounded to float16, and every probe past float16's largest number is not
    finite."""
    if positions[~finite].min() <= FLOAT16_MAX or positions[finite].max() > FLOAT16_MAX:
        return None
    used = [effective_position(row, theta) for row in phi[finite]]
    if any(p is None for p in used):
        return None
    if not np.array_equal(np.array(used), round_to_dtype(positions[finite], "float16")):
        return None
    return Precision("float16", DTYPES["float16"], "positions", int(positions[~finite].min()))


def _simple_map(positions: np.ndarray, used: np.ndarray) -> list | None:
    """The identity, a constant shift or a rounding of the positions, if ``used`` is one."""
    if np.array_equal(used, positions):
        return []
    shifts = used - positions
    if np.all(shifts == shifts[0]):
        return [Offset(float(shifts[0]))]
    for dtype in ("float16", "bfloat16"):
        if np.array_equal(used, round_to_dtype(positions, dtype)):
            return [Precision(dtype, DTYPES[dtype], "positions")]
    return None


def _precision_or_unexplained(
    positions: np.ndarray,
    phi: np.ndarray,
    amp_dev: np.ndarray,
    law: np.ndarray,
    causes: list,
    step: np.ndarray | None,
    start: np.ndarray | None = None,
) -> AngleReport:
    """Precision when every error is rounding-sized; ``step`` is the measured θ_i when the
    angles are exactly linear in the position (then only θ_i itself can be rounded);
    ``start`` the angles at position 0 that an offset explains."""
    finite = np.all(np.isfinite(phi), axis=1)
    m = positions.astype(np.float64)
    start = np.zeros_like(law) if start is None else start
    error = np.abs(wrap(phi[finite] - start - m[finite, None] * law))
    scale = np.maximum(1.0, np.abs(start + m[finite, None] * law))
    unit = max(float((error / scale).max(initial=0.0)), float(amp_dev[finite].max(initial=0.0)))
    at_zero = positions[finite] == 0
    zero_error = float(error[at_zero].max(initial=0.0)) if at_zero.any() else 0.0
    if unit > ROUNDING or (zero_error > EXACT and not np.any(start)):
        return AngleReport(causes, explained=False)
    overflow = None
    if not finite.all():
        overflow = int(positions[~finite].min())
        if positions[finite].max(initial=0) >= overflow:  # non-finite in the middle: not rounding
            return AngleReport(causes, explained=False)
    dtype = "float16" if overflow is not None and overflow > FLOAT16_MAX else guess_dtype(unit)
    causes.append(Precision(dtype, unit, _where(positions, error, finite, step, law), overflow))
    return AngleReport(causes, law=law, start=start)


def guess_dtype(unit: float) -> str:
    """The floating-point type whose unit roundoff is nearest (in log2) to ``unit``."""
    if unit <= 0:
        return "float64"
    exponent = math.log2(unit)
    if exponent > -9.5:
        return "bfloat16"
    if exponent > -17.5:
        return "float16"
    if exponent > -40:
        return "float32"
    return "float64"


def _where(
    positions: np.ndarray,
    error: np.ndarray,
    finite: np.ndarray,
    step: np.ndarray | None,
    law: np.ndarray,
) -> str:
    """Which stage rounds: θ_i itself, the angles, or only the tables."""
    if step is not None and np.abs(step - law).max() > 1e-13 * np.abs(law).max():
        # θ_i itself is rounded only if the measured θ_i differ from the exact ones and equal
        # the rounded ones
        for dtype in ("float32", "float16", "bfloat16"):
            rounded = round_to_dtype(np.abs(law), dtype) * np.sign(law)
            if np.all(np.abs(step - rounded) <= _spacing(np.abs(law), dtype)):
                return "theta"
    probed = positions[finite]
    per_probe = error.max(axis=1)
    small = per_probe[(probed >= 1) & (probed <= 8)].max(initial=0.0)
    if probed.max(initial=0) < 1000:
        return "angles"
    large = per_probe[probed == probed.max()].max()  # the largest position that gave numbers
    return "tables" if large <= 10 * max(small, 1e-300) else "angles"


def _spacing(values: np.ndarray, dtype: str) -> np.ndarray:
    """One unit in the last place of ``dtype`` at ``values``."""
    bits = {"float32": 24, "float16": 11, "bfloat16": 8}[dtype]
    return 2.0 ** (np.floor(np.log2(values)) - (bits - 1))
