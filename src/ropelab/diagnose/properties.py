r"""The two properties the book proved, measured on an implementation (chapters 1-3).

* Norm preservation: :math:`\lVert R_m x\rVert = \lVert x\rVert`. Measured by the singular
  values of the matrix of ``x -> fn(x, m)`` (all equal to 1 for a rotation) or, when ``fn`` is
  not linear, by the norms of random rows.
* Relative scores: :math:`(R_m q)^\top (R_n k) = q^\top R_{n-m} k` depends on *m* and *n* only
  through :math:`n - m`. Measured as the spread of the score of one fixed pair ``q, k`` over
  position pairs that share :math:`n - m` (:func:`score_spread`), or drawn as the score
  against the distance for several key positions (:func:`scores_by_distance`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import check_finite_array


@dataclass(frozen=True)
class NormChange:
    """Smallest and largest ‖fn(x)‖ / ‖x‖; ``defect`` is the largest |ratio - 1|.

    ``every_x``: the range holds for every x (singular values of the matrix), not only for
    the rows that were tried.
    """

    low: float
    high: float
    every_x: bool = False

    @property
    def defect(self) -> float:
        return max(abs(self.low - 1.0), abs(self.high - 1.0))


@dataclass(frozen=True)
class ScoreSpread:
    """The worst group of position pairs sharing n - m: its scores and where they differ most."""

    distance: int
    low: tuple[int, int, float]  # (m, n, score)
    high: tuple[int, int, float]
    expected: float = float("nan")  # the exact rotation's score at this distance
    separate_calls: bool = False  # q and k rotated in different calls of fn

    @property
    def defect(self) -> float:
        return abs(self.high[2] - self.low[2])


def matrix_norms(matrices: np.ndarray) -> NormChange:
    """Norm change from the singular values of each matrix ``(K, d, d)``."""
    singular = np.linalg.svd(matrices, compute_uv=False)
    return NormChange(float(singular.min()), float(singular.max()), every_x=True)


def row_norms(x: np.ndarray, y: np.ndarray) -> NormChange:
    """Norm change from rows: ‖y_k‖ / ‖x_k‖."""
    ratio = np.linalg.norm(y, axis=-1) / np.linalg.norm(x, axis=-1)
    return NormChange(float(ratio.min()), float(ratio.max()))


def combine(*changes: NormChange | None) -> NormChange | None:
    """The widest range of several norm measurements; ``every_x`` when the widest range is
    that of a measurement over every x (the rows tried add nothing to it)."""
    present = [c for c in changes if c is not None]
    if not present:
        return None
    low, high = min(c.low for c in present), max(c.high for c in present)
    every = [c for c in present if c.every_x]
    every_x = any(c.low <= low for c in every) and any(c.high >= high for c in every)
    return NormChange(low, high, every_x=every_x)


def score_spread(scores: dict[tuple[int, int], float]) -> ScoreSpread | None:
    """The group of pairs (m, n) with equal n - m whose scores differ most."""
    groups: dict[int, list[tuple[int, int, float]]] = {}
    for (m, n), value in scores.items():
        groups.setdefault(n - m, []).append((m, n, value))
    worst = None
    for distance, members in groups.items():
        if len(members) < 2:
            continue
        low = min(members, key=lambda item: item[2])
        high = max(members, key=lambda item: item[2])
        spread = ScoreSpread(distance, low, high)
        if worst is None or spread.defect > worst.defect:
            worst = spread
    return worst


def matrix_scores(
    matrices: dict[int, np.ndarray],
    q: np.ndarray,
    k: np.ndarray,
    distances: tuple[int, ...] = (0, 1, 2, 3, 5),
) -> dict[tuple[int, int], float]:
    """Scores (M_m q)·(M_n k) for every pair of probed positions m <= n whose distance
    n - m is one of ``distances`` (q and k rotated in separate calls, as a key cache does)."""
    positions = sorted(matrices)
    rotated_q = {p: matrices[p] @ q for p in positions}
    rotated_k = {p: matrices[p] @ k for p in positions}
    return {
        (m, n): float(rotated_q[m] @ rotated_k[n])
        for m in positions
        for n in positions
        if n - m in distances
    }


def scores_by_distance(fn: Any, q: Any, k: Any, distances: Any, key_positions: Any) -> np.ndarray:
    r"""The score of ``q`` at position n + r and ``k`` at position n, for every pair (n, r).

    .. math:: s_{j,t} = \mathrm{fn}(q, n_j + r_t)^\top\, \mathrm{fn}(k, n_j)

    For a correct RoPE every row (key position :math:`n_j`) is the same curve of the distance
    :math:`r_t` (RoFormer eq. 16; chapters 3 and 3A). All rows are rotated in one call of
    ``fn(x, positions)`` (float64 rows, int64 positions).

    Args:
        fn: an implementation ``fn(x, positions)`` as :func:`ropelab.diagnose_rope` calls it.
        q, k: two vectors of the same even length.
        distances: integer distances r (query position minus key position).
        key_positions: integer key positions n, each with n + r >= 0 for every r.

    Returns:
        float64 array ``(len(key_positions), len(distances))``.
    """
    q = check_finite_array(q, "q")
    k = check_finite_array(k, "k")
    if q.ndim != 1 or q.shape != k.shape or q.size == 0 or q.size % 2:
        raise ValueError(f"q and k must be vectors of one even length, got {q.shape}, {k.shape}")
    distances = _integers(distances, "distances")
    keys = _integers(key_positions, "key_positions")
    if (keys[:, None] + distances[None, :]).min() < 0 or keys.min() < 0:
        raise ValueError("key_positions + distances must be >= 0 (positions count from 0)")
    query_positions = (keys[:, None] + distances[None, :]).reshape(-1)
    rows = np.concatenate([np.tile(q, (query_positions.size, 1)), np.tile(k, (keys.size, 1))])
    positions = np.concatenate([query_positions, keys])
    out = np.asarray(fn(rows, positions), dtype=np.float64)
    rotated_q = out[: query_positions.size].reshape(keys.size, distances.size, -1)
    rotated_k = out[query_positions.size :]
    return np.einsum("jtd,jd->jt", rotated_q, rotated_k)


def _integers(values: Any, name: str) -> np.ndarray:
    array = check_finite_array(values, name).reshape(-1)
    if array.size == 0 or np.any(array != np.round(array)):
        raise ValueError(f"{name} must be a non-empty list of integers, got {values!r}")
    return array.astype(np.int64)
