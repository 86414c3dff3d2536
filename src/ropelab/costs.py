r"""What the fast elementwise form of RoPE saves over the dense matrix (chapter 3).

Rotating one vector :math:`x \in \mathbb{R}^d` at position *m* can be written two ways
(RoFormer, eq. 15 and eq. 34; the sources' eq. 7 and eq. 9):

* **dense**: :math:`y = R^d_{\Theta,m}\,x` with the full :math:`d \times d` matrix. Each of
  the *d* outputs is a dot product of length *d*: :math:`d^2` multiplications and
  :math:`d(d-1)` additions, and the matrix of every position has :math:`d^2` entries.
* **elementwise**: :math:`y = x \otimes \cos(m\Theta) + \mathrm{rotate}(x) \otimes \sin(m\Theta)`.
  Each output is :math:`x_a\cos - x_b\sin` or :math:`x_b\cos + x_a\sin`: two multiplications
  and one addition, so :math:`2d` multiplications and :math:`d` additions. The sign flips of
  ``rotate`` are not arithmetic (they turn an addition into a subtraction), and the tables
  hold :math:`d/2` cosines and :math:`d/2` sines per position, *d* numbers. Implementations
  that store the tables already repeated to length *d* (transformers' ``cat((freqs, freqs))``)
  keep :math:`2d`.

The elementwise counts are exactly those of a sparse product that skips the zeros of
:math:`R^d_{\Theta,m}`: the matrix has :math:`2d` non-zero entries (four per 2x2 block),
each used in one multiplication, and each row sums two products. Only a fraction
:math:`2d/d^2 = 2/d` of the dense matrix is non-zero.

All counts are per vector (one head of one token) and per position.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from ._checks import check_base, check_dim
from .core import inv_freq, rotate_pairs, rotation_matrix

__all__ = [
    "RotationCost",
    "cost_table",
    "dense_cost",
    "elementwise_cost",
    "nonzero_fraction",
    "time_dense_vs_elementwise",
]


@dataclass(frozen=True)
class RotationCost:
    """Operation counts of rotating one vector of length ``dim`` at one position.

    Attributes:
        dim: the head dimension *d*.
        multiplications: scalar multiplications per vector.
        additions: scalar additions and subtractions per vector.
        stored: numbers kept per position (the matrix, or the cos and sin tables).
    """

    dim: int
    multiplications: int
    additions: int
    stored: int

    @property
    def operations(self) -> int:
        """Multiplications plus additions: the arithmetic operations per vector."""
        return self.multiplications + self.additions


def dense_cost(dim: int) -> RotationCost:
    r"""Cost of :math:`R^d_{\Theta,m}\,x` as a dense matrix-vector product (chapter 3).

    .. math:: \text{mult} = d^2, \qquad \text{add} = d(d-1), \qquad \text{stored} = d^2

    Args:
        dim: head dimension *d*, a positive even integer.
    """
    d = check_dim(dim)
    return RotationCost(dim=d, multiplications=d * d, additions=d * (d - 1), stored=d * d)


def elementwise_cost(dim: int) -> RotationCost:
    r"""Cost of :math:`x \otimes \cos + \mathrm{rotate}(x) \otimes \sin` (RoFormer eq. 34; chapter 3).

    .. math:: \text{mult} = 2d, \qquad \text{add} = d, \qquad \text{stored} = d

    (*d*/2 cosines and *d*/2 sines per position.)

    Args:
        dim: head dimension *d*, a positive even integer.
    """
    d = check_dim(dim)
    return RotationCost(dim=d, multiplications=2 * d, additions=d, stored=d)


def nonzero_fraction(dim: int) -> float:
    r"""The fraction of non-zero entries of :math:`R^d_{\Theta,m}`: :math:`2d / d^2 = 2/d`.

    Exact for every position at which no :math:`\cos m\theta_i` or :math:`\sin m\theta_i`
    happens to vanish (at *m* = 0 the sines do, and only *d* entries are non-zero).

    Args:
        dim: head dimension *d*, a positive even integer.
    """
    return 2.0 / check_dim(dim)


def cost_table(dims: Iterable[int] = (64, 128, 256)) -> list[tuple[RotationCost, RotationCost]]:
    """``(dense_cost(d), elementwise_cost(d))`` for each *d* in ``dims`` (chapter 3's table)."""
    return [(dense_cost(d), elementwise_cost(d)) for d in dims]


def time_dense_vs_elementwise(
    seq_len: int = 2048,
    dim: int = 128,
    base: float = 10000.0,
    *,
    repeats: int = 5,
    seed: int = 0,
) -> dict[str, float]:
    r"""Wall-clock time of rotating ``seq_len`` vectors, dense versus elementwise (chapter 3).

    Both forms get their position-dependent data precomputed, as a model caches it: the
    dense form a stack of ``seq_len`` matrices :math:`R^d_{\Theta,m}` of shape
    ``(seq_len, dim, dim)`` (one per position, applied with a batched matrix-vector product),
    the elementwise form the ``(seq_len, dim/2)`` cosine and sine tables
    (:func:`ropelab.core.rotate_pairs`). Each form runs ``repeats`` times; the fastest run is
    reported. float64 numpy throughout. The numbers vary from machine to machine and run to
    run: a chapter prints them in a cell that nbval does not compare.

    Args:
        seq_len: number of positions (one vector each), >= 1.
        dim: head dimension *d*, a positive even integer.
        base: the RoPE base :math:`\beta`.
        repeats: timed runs per form, >= 1.
        seed: seed of the random vectors.

    Returns:
        ``dense_s`` and ``elementwise_s`` (seconds, fastest run), ``ratio``
        (dense / elementwise), ``max_abs_diff`` between the two results, and
        ``dense_bytes`` and ``table_bytes``, the memory of the precomputed data.
    """
    d = check_dim(dim)
    base = check_base(base)
    if isinstance(seq_len, bool) or not isinstance(seq_len, int) or seq_len < 1:
        raise ValueError(f"seq_len must be an integer >= 1, got {seq_len!r}")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {repeats!r}")
    positions = np.arange(seq_len, dtype=np.float64)
    x = np.random.default_rng(seed).standard_normal((seq_len, d))
    matrices = rotation_matrix(positions, d, base)  # (seq, d, d)
    angles = positions[:, None] * inv_freq(d, base)  # (seq, d/2)
    cos, sin = np.cos(angles), np.sin(angles)  # (seq, d/2) each

    def fastest(run: Callable[[], np.ndarray]) -> tuple[float, np.ndarray]:
        best, out = float("inf"), np.empty(0)
        for _ in range(repeats):
            start = time.perf_counter()
            out = run()
            best = min(best, time.perf_counter() - start)
        return best, out

    dense_s, dense = fastest(lambda: np.matmul(matrices, x[..., None])[..., 0])
    elementwise_s, fast = fastest(lambda: rotate_pairs(x, cos, sin, "interleaved"))
    return {
        "dense_s": dense_s,
        "elementwise_s": elementwise_s,
        "ratio": dense_s / elementwise_s,
        "max_abs_diff": float(np.abs(dense - fast).max()),
        "dense_bytes": float(matrices.nbytes),
        "table_bytes": float(cos.nbytes + sin.nbytes),
    }
