r"""Reading an implementation's pairing and cos/sin table off its matrices (chapter 3A).

Any elementwise RoPE, right or wrong, computes for every coordinate *r*

.. math:: y_r = x_r \cos\psi_r + \sigma_r\, x_{\pi(r)} \sin\psi_r

where :math:`\pi` pairs each coordinate with a partner (``(2i, 2i+1)`` interleaved,
``(i, i + d/2)`` half split), :math:`\sigma_r = -1` for the first coordinate of a pair and
:math:`+1` for the second, and :math:`\psi_r` is the angle the cos/sin table holds for *r*. The
matrix ``M`` of ``x -> fn(x, m)`` (its column *j* is the output for the unit vector
:math:`e_j`) therefore has non-zero entries only on the diagonal and at ``(r, π(r))``: the
positions of the non-zeros give the pairing, and :math:`\psi_r = \operatorname{atan2}(\sigma_r
M_{r,\pi(r)}, M_{rr})` gives the table. A correct implementation has equal angles on both
coordinates of a pair (a plane rotation, chapter 3); a table laid out for the other pairing
gives unequal ones, and so breaks norms and relative scores (the root cause is the table).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import plane_coordinates

#: Two table entries are "the same angle" below this (radians); copies of one table agree
#: exactly, so this only absorbs the rounding of a dense matrix product.
TABLE_TOL = 1e-7


def wrap(angle: np.ndarray) -> np.ndarray:
    """Angles reduced to [-π, π)."""
    return (np.asarray(angle) + np.pi) % (2 * np.pi) - np.pi


def layout_pairs(dim: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """The (first, second) coordinates of each plane of ``layout``, in plane order."""
    return plane_coordinates(dim, layout)


def other_layout(layout: str) -> str:
    return "interleaved" if layout == "half" else "half"


@dataclass(frozen=True)
class Structure:
    """The pairing of an implementation and, when it has one, its per-coordinate table.

    ``pairing`` is ``"interleaved"``, ``"half"``, ``"diagonal"`` (no coordinate is coupled to
    another), ``"other"`` (pairs of neither layout; see ``pairs``) or ``"general"`` (some
    coordinate is coupled to several). ``angles[k, r]`` and ``amplitudes[k, r]`` are
    :math:`\\psi_r` and :math:`\\sqrt{\\cos^2 + \\sin^2}` at the k-th matrix position;
    ``table`` lists the layouts the table is laid out for (its angles repeat as that layout
    pairs them).
    """

    pairing: str
    pairs: list[tuple[int, int]]
    angles: np.ndarray | None = None
    amplitudes: np.ndarray | None = None
    table: tuple[str, ...] = ()


def coupling_pairs(
    matrices: np.ndarray, prefer: str = "interleaved"
) -> tuple[str, list[tuple[int, int]]]:
    """Which coordinates each output mixes, from the non-zero pattern of the matrices.

    For d = 2 both layouts pair (0, 1); ``prefer`` names the one reported then."""
    dim = matrices.shape[-1]
    magnitude = np.abs(matrices).sum(axis=0)
    off = magnitude.copy()
    np.fill_diagonal(off, 0.0)
    coupled = (off > 1e-6) | (off.T > 1e-6)
    partners = [np.flatnonzero(coupled[r]) for r in range(dim)]
    if all(p.size == 0 for p in partners):
        return "diagonal", []
    if any(p.size > 1 for p in partners):
        return "general", []
    pairs = sorted(
        {(min(r, int(p[0])), max(r, int(p[0]))) for r, p in enumerate(partners) if p.size}
    )
    alone = {r for r, p in enumerate(partners) if p.size == 0}
    for layout in (prefer, other_layout(prefer)):
        first, second = layout_pairs(dim, layout)
        planes = set(zip(first.tolist(), second.tolist(), strict=True))
        # coordinates coupled to nothing are planes that never turn (frequency 0), if they
        # fill whole planes of this layout
        still = {(a, b) for a, b in planes if a in alone and b in alone}
        if set(pairs) | still == planes and len(pairs) + len(still) == len(planes):
            return layout, [(int(a), int(b)) for a, b in zip(first, second, strict=True)]
    return "other", pairs


def read_structure(matrices: np.ndarray, prefer: str = "interleaved") -> Structure:
    """The pairing and per-coordinate table of matrices ``(K, d, d)`` (finite ones only);
    ``prefer``: the layout reported when both fit (d = 2)."""
    pairing, pairs = coupling_pairs(matrices, prefer)
    if pairing in ("diagonal", "general"):
        return Structure(pairing, pairs)
    dim = matrices.shape[-1]
    cos = np.empty((*matrices.shape[:1], dim))
    sin = np.empty_like(cos)
    for a, b in pairs:
        # y_a = x_a cos - x_b sin,  y_b = x_b cos + x_a sin
        cos[:, a], sin[:, a] = matrices[:, a, a], -matrices[:, a, b]
        cos[:, b], sin[:, b] = matrices[:, b, b], matrices[:, b, a]
    angles = np.arctan2(sin, cos)
    amplitudes = np.hypot(sin, cos)
    table = tuple(
        layout
        for layout in (prefer, other_layout(prefer))
        if _repeats_as(angles, amplitudes, layout)
    )
    return Structure(pairing, pairs, angles, amplitudes, table)


def _repeats_as(angles: np.ndarray, amplitudes: np.ndarray, layout: str) -> bool:
    """Whether each plane of ``layout`` finds the same table entry on both its coordinates."""
    first, second = layout_pairs(angles.shape[-1], layout)
    same_angle = np.abs(wrap(angles[:, first] - angles[:, second])) <= TABLE_TOL
    same_size = np.abs(amplitudes[:, first] - amplitudes[:, second]) <= TABLE_TOL
    return bool(np.all(same_angle & same_size))


@dataclass(frozen=True)
class Scale:
    """cos multiplied by ``cos`` and sin by ``sin`` in every plane (1 and 1: a rotation)."""

    cos: float
    sin: float

    @property
    def uniform(self) -> bool:
        return abs(self.cos - self.sin) <= 1e-6 * abs(self.cos)


def read_scale(
    matrices: np.ndarray, positions: list[int], pairs: list[tuple[int, int]]
) -> Scale | None:
    r"""The factors on cos and on sin, when the matrices are rotations with scaled entries.

    At position 0 every angle is 0, so ``M(0) = a·I`` gives the factor *a* on cos exactly, in
    any floating-point type. At small positions each pair has :math:`M_{aa} = a\cos\psi`
    and :math:`M_{ab} = -b\sin\psi`, so :math:`b = |M_{ab}| / \sqrt{1 - (M_{aa}/a)^2}`.
    Returns ``None`` when M(0) is not a multiple of the identity or the estimates of *b*
    disagree (no single pair of factors explains the matrices).
    """
    if 0 not in positions:
        return None
    zero = matrices[positions.index(0)]
    a = float(np.mean(np.diag(zero)))
    if a == 0 or np.abs(zero - a * np.eye(len(zero))).max() > 1e-9 * abs(a):
        return None
    estimates = []
    for k, position in enumerate(positions):
        if not 1 <= position <= 8:
            continue
        for r, partner in pairs:
            for row, col in ((r, partner), (partner, r)):
                c = matrices[k, row, row] / a
                if abs(c) < 0.95:
                    estimates.append(abs(matrices[k, row, col]) / np.sqrt(1.0 - c * c))
    if not estimates:
        return None
    b = float(np.median(estimates))
    if np.ptp(estimates) > 1e-6 * b:
        return None
    return Scale(a, b)


def unscale(matrices: np.ndarray, scale: Scale) -> np.ndarray:
    """The matrices with the factor on cos (diagonal) and on sin (off-diagonal) divided out."""
    dim = matrices.shape[-1]
    eye = np.eye(dim, dtype=bool)
    return np.where(eye, matrices / scale.cos, matrices / scale.sin)


def in_place_order(matrices: np.ndarray, pairs: list[tuple[int, int]]) -> str | None:
    r"""``"first"`` or ``"second"`` when every pair's matrix is that of a rotation computed
    in place, the named coordinate written first and then read for the other:

    .. math:: y_a = c x_a - s x_b,\quad y_b = c x_b + s y_a
        \;\Rightarrow\; M = \begin{pmatrix} c & -s\\ cs & c - s^2\end{pmatrix}

    (``"first"``; ``"second"`` is the mirror image). ``None`` when the pattern does not hold.
    """
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    m_aa, m_ab = matrices[:, a, a], matrices[:, a, b]
    m_ba, m_bb = matrices[:, b, a], matrices[:, b, b]
    if not np.any(np.abs(m_ab) > 1e-6):
        return None
    tol = 1e-9
    first = np.abs(m_ba + m_ab * m_aa).max() <= tol and np.abs(m_bb - m_aa + m_ab**2).max() <= tol
    if first:
        return "first"
    second = np.abs(m_ab + m_ba * m_bb).max() <= tol and np.abs(m_aa - m_bb + m_ba**2).max() <= tol
    return "second" if second else None


def plane_angles(structure: Structure, layout: str) -> np.ndarray:
    """The angle of every plane of ``layout`` at every matrix position, ``(K, d/2)``."""
    first, _ = layout_pairs(structure.angles.shape[-1], layout)
    return structure.angles[:, first]
