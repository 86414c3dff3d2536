r"""Beyond fixed rotations (chapter 10): learned generators, contextual positions, Householder products.

* **LieRE** (Ostmeier et al., 2024, arXiv:2406.10322) and **ComRoPE** (Yu et al., 2025,
  arXiv:2506.03737) rotate a query or key at position :math:`x \in \mathbb{R}^N` by
  :math:`R(x) = \exp(\sum_i x_i A_i)` with learned skew-symmetric generators :math:`A_i`
  (:func:`rotation_from_generators`). RoPE is the case of fixed block-diagonal generators.
  ComRoPE proves that :math:`R(x)^\top R(y) = R(y - x)` for all positions exactly when the
  generators commute pairwise; :func:`relative_defect` measures how far a pair of positions
  is from the identity, and :mod:`ropelab.proofs_generators` proves both directions in SymPy.
* **CoPE** (Golovneva et al., 2024, arXiv:2405.18719): a key's position seen from query *i*
  is the number of gates :math:`g_{ik} = \sigma(q_i^\top k_k)` summed from the key to the
  query, :math:`p_{ij} = \sum_{k=j}^{i} g_{ik}` (:func:`cope_positions`).
* **PaTH** (Yang et al., 2025, arXiv:2505.16381): the transformation between key *j* and
  query *i* is the product of data-dependent Householder-like matrices
  :math:`H_t = I - \beta_t w_t w_t^\top` of the tokens after the key up to the query
  (:func:`path_score`).

The matrix exponential of a skew-symmetric matrix is computed through the eigenvectors of
the Hermitian matrix :math:`iA` (exact up to rounding, no SciPy).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._checks import check_finite_array

__all__ = [
    "commutator",
    "cope_positions",
    "expm_skew",
    "householder",
    "path_score",
    "relative_defect",
    "rotation_from_generators",
]


def _skew(a: Any, name: str) -> np.ndarray:
    arr = check_finite_array(a, name)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square matrix; got shape {arr.shape}")
    if not np.allclose(arr, -arr.T, atol=1e-12):
        raise ValueError(f"{name} must be skew-symmetric (A^T = -A)")
    return arr.astype(np.float64)


def expm_skew(a: Any) -> np.ndarray:
    r""":math:`\exp(A)` of a real skew-symmetric *A*: with :math:`iA = U\Lambda U^*`,
    :math:`\exp(A) = U e^{-i\Lambda} U^*` (real, orthogonal)."""
    a = _skew(a, "a")
    values, vectors = np.linalg.eigh(1j * a)
    return np.real(vectors @ np.diag(np.exp(-1j * values)) @ vectors.conj().T)


def commutator(a: Any, b: Any) -> np.ndarray:
    """:math:`[A, B] = AB - BA`."""
    a = check_finite_array(a, "a")
    b = check_finite_array(b, "b")
    return a @ b - b @ a


def rotation_from_generators(generators: Sequence[Any], position: Sequence[float]) -> np.ndarray:
    r""":math:`R(x) = \exp(\sum_i x_i A_i)` (LieRE, ComRoPE)."""
    mats = [_skew(g, f"generators[{i}]") for i, g in enumerate(generators)]
    x = check_finite_array(position, "position").reshape(-1)
    if len(mats) != x.size or not mats:
        raise ValueError(
            f"position must have one coordinate per generator ({len(mats)}); got {x.size}"
        )
    return expm_skew(sum(xi * g for xi, g in zip(x, mats, strict=True)))


def relative_defect(generators: Sequence[Any], x: Sequence[float], y: Sequence[float]) -> float:
    r""":math:`\lVert R(x)^\top R(y) - R(y - x)\rVert_F`: zero for every *x*, *y* exactly
    when the generators commute (ComRoPE, Theorem 3.1)."""
    x_arr = check_finite_array(x, "x").reshape(-1)
    y_arr = check_finite_array(y, "y").reshape(-1)
    left = rotation_from_generators(generators, x_arr).T @ rotation_from_generators(
        generators, y_arr
    )
    return float(np.linalg.norm(left - rotation_from_generators(generators, y_arr - x_arr)))


def cope_positions(queries: Any, keys: Any) -> np.ndarray:
    r"""CoPE's positions :math:`p_{ij} = \sum_{k=j}^{i} \sigma(q_i^\top k_k)` for
    :math:`j \le i` (NaN above the diagonal). ``queries`` and ``keys``: ``(T, d)``."""
    q = check_finite_array(queries, "queries")
    k = check_finite_array(keys, "keys")
    if q.ndim != 2 or q.shape != k.shape:
        raise ValueError(f"queries and keys must both be (T, d); got {q.shape} and {k.shape}")
    gates = 1.0 / (1.0 + np.exp(-(q @ k.T)))
    t = q.shape[0]
    out = np.full((t, t), np.nan)
    for i in range(t):
        # cumulative sum from the query back to each key
        out[i, : i + 1] = np.cumsum(gates[i, : i + 1][::-1])[::-1]
    return out


def householder(w: Any, beta: float) -> np.ndarray:
    r""":math:`H = I - \beta\, w w^\top` with *w* normalised (PaTH); :math:`\beta = 2` is a
    reflection, :math:`\beta \in (0, 2)` shrinks the *w* direction."""
    v = check_finite_array(w, "w").reshape(-1)
    norm = float(np.linalg.norm(v))
    if norm == 0.0:
        raise ValueError("w must not be the zero vector")
    if not 0.0 <= float(beta) <= 2.0:
        raise ValueError(f"beta must be in [0, 2]; got {beta}")
    v = v / norm
    return np.eye(v.size) - float(beta) * np.outer(v, v)


def path_score(q: Any, k: Any, ws: Any, betas: Sequence[float]) -> float:
    r"""PaTH's score of a query and a key with the tokens in between:
    :math:`q^\top H_{1} H_{2} \cdots H_{t}\, k` for the ``t`` rows of ``ws`` (the tokens
    after the key up to the query, nearest to the query first)."""
    q_arr = check_finite_array(q, "q").reshape(-1)
    k_arr = check_finite_array(k, "k").reshape(-1)
    w_arr = check_finite_array(ws, "ws")
    if w_arr.ndim != 2 or w_arr.shape[1] != q_arr.size or len(betas) != w_arr.shape[0]:
        raise ValueError("ws must be (t, d) with one beta per row and d = len(q)")
    transform = np.eye(q_arr.size)
    for w, beta in zip(w_arr, betas, strict=True):
        transform = transform @ householder(w, beta)
    return float(q_arr @ transform @ k_arr)
