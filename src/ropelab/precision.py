r"""What low-precision arithmetic does to RoPE's angles, cos/sin tables and scores (chapter 8).

RoPE rotates plane *i* at position *m* by the angle :math:`m\theta_i`. A model running in
half precision is tempted to form that angle in half precision too: positions and
frequencies cast to the model's dtype, multiplied there. The result is rounded to the
dtype's grid, whose spacing grows with the magnitude:

.. math:: \mathrm{ulp}(x) = 2^{\lfloor \log_2 |x| \rfloor - p + 1},

with :math:`p` bits of significand: 24 for float32, 11 for float16, 8 for bfloat16. An angle
of a few thousand radians in float16 is off by up to half a radian, and in bfloat16 even the
*position* is rounded: above 8,192 only multiples of 64 exist, so position 15,962 becomes
15,936. The cosine of a wrong angle is wrong by up to 2.

The fix is to form the angles in float64 (as :func:`ropelab.apply_rope` does) or at least
float32 (as transformers does, with autocast disabled), take cos and sin there, and only then
round the *table* to the model's dtype: the error then stays at the dtype's relative
precision, whatever the position.

The functions here emulate each dtype exactly in NumPy: every operation is computed in
float64 and rounded once to the dtype (correct rounding, ties to even), which is what IEEE
arithmetic in that dtype returns. bfloat16, which NumPy lacks, is rounded from float64 to
8 significant bits directly. Explained in chapter 8 of the book.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_base, check_count, check_dim, check_finite_array, check_positive
from .core import inv_freq
from .decay import decay_distances

__all__ = [
    "DTYPES",
    "AngleErrors",
    "angle_errors",
    "angles",
    "first_position_exceeding",
    "precision_explorer_data",
    "round_to_dtype",
    "score_errors",
    "significand_bits",
]

#: Significand bits (with the implicit leading 1) and exponent range of each dtype.
_FORMATS = {
    "float64": (53, -1022, 1023),
    "float32": (24, -126, 127),
    "float16": (11, -14, 15),
    "bfloat16": (8, -126, 127),
}
DTYPES = tuple(_FORMATS)
"""The dtypes this module emulates."""

_ANGLE_MODES = ("dtype", "float32", "float64")


def _check_dtype(dtype: Any) -> str:
    name = getattr(dtype, "name", None) or str(dtype).replace("torch.", "")
    if name not in _FORMATS:
        raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
    return name


def significand_bits(dtype: str) -> int:
    """Bits of significand, the implicit leading bit included (24 for float32)."""
    return _FORMATS[_check_dtype(dtype)][0]


def round_to_dtype(x: Any, dtype: str) -> np.ndarray:
    r"""Round float64 values to the nearest value representable in ``dtype`` (ties to even).

    For a value of exponent :math:`e` (:math:`2^e \le |x| < 2^{e+1}`) the representable
    neighbours are multiples of :math:`2^{e - p + 1}`; below the smallest normal exponent
    the spacing stays that of the smallest normal (subnormals); above the largest finite
    value the result is infinite. The result is returned as float64.
    """
    name = _check_dtype(dtype)
    x = np.asarray(x, dtype=np.float64)
    if name == "float64":
        return x.copy()
    if name in ("float32", "float16"):
        with np.errstate(over="ignore"):
            return x.astype(name).astype(np.float64)
    bits, emin, emax = _FORMATS[name]
    with np.errstate(invalid="ignore", over="ignore"):
        _, exponent = np.frexp(x)  # |x| = f 2^e with f in [0.5, 1): floor(log2|x|) = e - 1
        exponent = np.maximum(exponent - 1, emin)
        spacing = np.ldexp(1.0, exponent - bits + 1)
        rounded = np.round(x / spacing) * spacing  # np.round rounds halves to even
        largest = (2 - 2.0 ** (1 - bits)) * 2.0**emax
        return np.where(np.abs(rounded) > largest, np.sign(rounded) * np.inf, rounded)


def angles(positions: Any, theta: Any, mode: str, dtype: str = "bfloat16") -> np.ndarray:
    r"""The angles :math:`m\theta_i` as a model computes them, shape ``positions.shape + (d/2,)``.

    Args:
        positions: positions *m* (exact integers or floats).
        theta: frequencies :math:`\theta_i` (exact, float64).
        mode: ``"dtype"``: positions and frequencies rounded to ``dtype`` and multiplied in
            ``dtype`` (a model that keeps everything in half precision); ``"float32"``: the
            same in float32 (transformers' rotary embedding); ``"float64"``: exact up to
            float64 rounding (:mod:`ropelab`).
        dtype: the model's dtype, used by ``mode="dtype"``.
    """
    if mode not in _ANGLE_MODES:
        raise ValueError(f"mode must be one of {_ANGLE_MODES}, got {mode!r}")
    m = check_finite_array(positions, "positions")
    theta = check_finite_array(theta, "theta")
    work = {"dtype": _check_dtype(dtype), "float32": "float32", "float64": "float64"}[mode]
    product = round_to_dtype(m, work)[..., None] * round_to_dtype(theta, work)
    return round_to_dtype(product, work)


@dataclass(frozen=True)
class AngleErrors:
    """Errors against float64 at each position, the largest over the planes.

    Attributes:
        positions: the positions, ``(n,)``.
        angle: largest :math:`|\\hat\\phi - m\\theta_i|` (radians).
        cos, sin: largest error of the cos and sin table entries, as the model uses them
            (computed from the rounded angle, then rounded to the dtype).
        worst_plane: the plane of the largest cos error at each position.
    """

    positions: np.ndarray
    angle: np.ndarray
    cos: np.ndarray
    sin: np.ndarray
    worst_plane: np.ndarray


def angle_errors(
    positions: Any,
    dim: int = 128,
    base: float = 10000.0,
    *,
    dtype: str = "bfloat16",
    mode: str = "dtype",
) -> AngleErrors:
    r"""Largest angle, cos and sin errors over the planes at each position.

    The reference is :math:`\cos(m\theta_i)` in float64 with exact :math:`\theta_i`; the
    model's value is :math:`\mathrm{round}_{\text{dtype}}(\cos\hat\phi)` with
    :math:`\hat\phi` from :func:`angles` (``mode``). A position or angle beyond the dtype's
    largest value (65,504 in float16) rounds to infinity and has no cosine: its errors are NaN.
    """
    dim, base = check_dim(dim), check_base(base)
    dtype = _check_dtype(dtype)
    m = check_finite_array(positions, "positions").reshape(-1)
    theta = inv_freq(dim, base)
    exact = m[:, None] * theta
    approx = angles(m, theta, mode, dtype)
    with np.errstate(invalid="ignore"):  # an angle that overflowed to inf has no cos: NaN
        cos_err = np.abs(round_to_dtype(np.cos(approx), dtype) - np.cos(exact))
        sin_err = np.abs(round_to_dtype(np.sin(approx), dtype) - np.sin(exact))
    return AngleErrors(
        positions=m,
        angle=np.abs(approx - exact).max(axis=1),
        cos=cos_err.max(axis=1),
        sin=sin_err.max(axis=1),
        worst_plane=cos_err.argmax(axis=1),
    )


def first_position_exceeding(
    bound: float,
    dim: int = 128,
    base: float = 10000.0,
    *,
    dtype: str = "bfloat16",
    mode: str = "dtype",
    quantity: str = "cos",
    max_position: int = 1 << 20,
) -> int | None:
    """The first integer position whose largest ``quantity`` error exceeds ``bound``.

    ``quantity`` is ``"angle"``, ``"cos"`` or ``"sin"``. Positions ``0 .. max_position - 1``
    are scanned (in blocks); ``None`` if no position exceeds the bound.
    """
    bound = check_positive(bound, "bound")
    if quantity not in ("angle", "cos", "sin"):
        raise ValueError(f"quantity must be 'angle', 'cos' or 'sin', got {quantity!r}")
    block = 1 << 14
    for start in range(0, int(max_position), block):
        positions = np.arange(start, min(start + block, int(max_position)))
        errors = getattr(angle_errors(positions, dim, base, dtype=dtype, mode=mode), quantity)
        above = np.flatnonzero(errors > bound)
        if above.size:
            return int(positions[above[0]])
    return None


def score_errors(
    q: Any,
    k: Any,
    query_position: int,
    key_positions: Any,
    base: float = 10000.0,
    *,
    dtype: str = "bfloat16",
    mode: str = "dtype",
) -> np.ndarray:
    r"""Error of the score :math:`(R_m q)^\top (R_n k)/\sqrt d` caused by the angles alone.

    ``q`` and ``k`` are ``(d,)`` vectors (half-split layout); the query sits at
    ``query_position`` and the key at each of ``key_positions``. Both sides use the same
    float64 arithmetic except for the rotation tables: the model's cos and sin come from
    :func:`angles` (``mode``) rounded to ``dtype``, the reference from exact angles.

    Returns:
        ``(len(key_positions),)`` absolute score errors.
    """
    q = check_finite_array(q, "q").reshape(-1)
    k = check_finite_array(k, "k").reshape(-1)
    if q.shape != k.shape or q.size % 2:
        raise ValueError(
            f"q and k must be vectors of the same even length, got {q.shape}, {k.shape}"
        )
    dim = q.size
    theta = inv_freq(dim, check_base(base))
    dtype = _check_dtype(dtype)
    n = check_finite_array(key_positions, "key_positions").reshape(-1)
    m = np.array([float(query_position)])

    def rotate(x: np.ndarray, positions: np.ndarray, exact: bool) -> np.ndarray:
        if exact:
            phi = positions[:, None] * theta
            cos, sin = np.cos(phi), np.sin(phi)
        else:
            phi = angles(positions, theta, mode, dtype)
            cos, sin = round_to_dtype(np.cos(phi), dtype), round_to_dtype(np.sin(phi), dtype)
        a, b = x[: dim // 2], x[dim // 2 :]
        return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)

    def scores(exact: bool) -> np.ndarray:
        return rotate(k, n, exact) @ rotate(q, m, exact)[0] / np.sqrt(dim)

    return np.abs(scores(False) - scores(True))


# --- chapter 3A's explorable -----------------------------------------------------------------

#: How the angles are formed in each series of chapter 3A's explorable, in the order it draws
#: them: the name, the precision of the positions, frequencies and product, that of the
#: frequencies alone when they differ, and the dtype of the cos/sin table the model reads.
PRECISION_SERIES = (
    ("float64", "float64", None, "float64"),
    ("float32", "float32", None, "float32"),
    ("bfloat16", "bfloat16", None, "bfloat16"),
    ("float16", "float16", None, "float16"),
    ("bf16_theta", "float32", "bfloat16", "bfloat16"),
)
#: How many log-spaced positions the explorable draws (before duplicates go).
PRECISION_POSITIONS = 160


def precision_explorer_data(
    dim: int, base: float, max_position: int, num_positions: int = PRECISION_POSITIONS
) -> dict[str, Any]:
    r"""Chapter 3A's explorable: the angle and cos errors against the position, for angles
    :math:`m\theta_i` formed in float64, float32, bfloat16 and float16, and for
    :math:`\theta_i` rounded to bfloat16 (a model cast with ``.to(torch.bfloat16)`` rounds its
    ``inv_freq`` buffer; the angles are then formed in float32 from the rounded frequencies).

    Positions: :func:`ropelab.decay.decay_distances` ``(max_position, num_positions)``,
    integers log-spaced from 1. At each position, the largest error over the :math:`d/2`
    planes (:math:`\theta_i = \beta^{-2i/d}` in float64), against :math:`m\theta_i` in
    float64:

    * ``angle_<series>``: :math:`\max_i |\hat\phi_i - m\theta_i|` in radians, with
      :math:`\hat\phi_i = \mathrm{fl}(\mathrm{fl}(m)\,\mathrm{fl}(\theta_i))` rounded to
      the series' precision (:func:`angles`);
    * ``cos_<series>``: :math:`\max_i |\mathrm{round}(\cos\hat\phi_i) - \cos m\theta_i|`,
      the table entry rounded to the series' table dtype (:data:`PRECISION_SERIES`);

    for the series ``float32``, ``bfloat16``, ``float16`` and ``bf16_theta``. float64 is the
    reference, so its row is its rounding *bound*, not a measurement: the largest angle is
    :math:`m\theta_0 = m`, formed to within half a unit in the last place,
    :math:`\tfrac12\mathrm{ulp}(m) = 2^{\lfloor\log_2 m\rfloor - 53}` (``angle_float64``),
    and a cos entry to within that plus its own rounding, :math:`2^{-54}` (``cos_float64``).
    float16 holds no position above 65,504: its arrays stop at ``float16_positions``, the
    number of positions it can represent. The inputs come back as ``dim``, ``base`` and
    ``max_position``.

    Raises:
        ValueError: naming the argument and its range when a value is outside it.
    """
    dim, base = check_dim(dim), check_base(base)
    max_position = check_count(max_position, "max_position", minimum=2)
    positions = decay_distances(max_position, num_positions)
    m = positions.astype(np.float64)
    theta = inv_freq(dim, base)
    exact = m[:, None] * theta
    data: dict[str, Any] = {
        "dim": dim,
        "base": base,
        "max_position": int(max_position),
        "positions": positions,
    }
    _, exponent = np.frexp(m)  # m = f 2^e, f in [0.5, 1): floor(log2 m) = e - 1
    data["angle_float64"] = np.ldexp(1.0, exponent - 1 - 53)
    data["cos_float64"] = data["angle_float64"] + 2.0**-54
    finite = int(np.count_nonzero(np.isfinite(round_to_dtype(m, "float16"))))
    for name, work, theta_dtype, table in PRECISION_SERIES[1:]:
        rows = finite if name == "float16" else m.size
        frequencies = round_to_dtype(theta, theta_dtype) if theta_dtype else theta
        product = round_to_dtype(m[:rows, None], work) * round_to_dtype(frequencies, work)
        approx = round_to_dtype(product, work)
        cos = round_to_dtype(np.cos(approx), table)
        data[f"angle_{name}"] = np.abs(approx - exact[:rows]).max(axis=1)
        data[f"cos_{name}"] = np.abs(cos - np.cos(exact[:rows])).max(axis=1)
    data["float16_positions"] = finite
    return data
