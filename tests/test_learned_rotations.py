"""ropelab.learned_rotations and ropelab.proofs_generators (chapter 10): learned generators
(LieRE, ComRoPE), CoPE's counted positions and PaTH's Householder products."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ropelab import learned_rotations as lr
from ropelab import proofs_generators as pg
from ropelab.core import inv_freq, rotation_matrix
from ropelab.proofs import simplifies_to_zero

J = np.array([[0.0, -1.0], [1.0, 0.0]])


def _skew(rng: np.random.Generator, d: int) -> np.ndarray:
    m = rng.standard_normal((d, d))
    return m - m.T


def test_expm_skew_matches_torch():
    rng = np.random.default_rng(0)
    for d in (2, 4, 6):
        a = _skew(rng, d)
        expected = torch.linalg.matrix_exp(torch.tensor(a)).numpy()
        np.testing.assert_allclose(lr.expm_skew(a), expected, atol=1e-12)
        r = lr.expm_skew(a)
        np.testing.assert_allclose(r.T @ r, np.eye(d), atol=1e-12)


def test_rope_is_lie_with_block_generators():
    """RoPE's rotation at position m is exp(m A) with A = diag(theta_i J)."""
    theta = inv_freq(8, 10000.0)
    gen = np.zeros((8, 8))
    for i, t in enumerate(theta):
        gen[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = t * J
    for m in (0, 1, 7, 1000):
        np.testing.assert_allclose(
            lr.rotation_from_generators([gen], [m]), rotation_matrix(m, 8), atol=1e-9
        )


def test_commuting_generators_are_relative_and_others_are_not():
    rng = np.random.default_rng(1)
    base = _skew(rng, 4)
    commuting = [base, 0.5 * base]  # ComRoPE's linearly dependent family
    blocks = [np.kron(np.diag([1.0, 0.3]), J), np.kron(np.diag([0.7, 2.0]), J)]
    dense = [_skew(rng, 4), _skew(rng, 4)]
    for x, y in (([1.0, 2.0], [3.0, -1.0]), ([0.5, 0.0], [-2.0, 4.0])):
        assert lr.relative_defect(commuting, x, y) < 1e-12
        assert lr.relative_defect(blocks, x, y) < 1e-12
        assert lr.relative_defect(dense, x, y) > 1e-3
    assert np.linalg.norm(lr.commutator(*dense)) > 1e-3


def test_second_order_term_is_the_commutator():
    """Numerically: (R(tx)^T R(ty) - R(t(y - x))) / t^2 -> -1/2 (x1 y2 - x2 y1) [A1, A2]."""
    rng = np.random.default_rng(2)
    gens = [_skew(rng, 4), _skew(rng, 4)]
    x, y, t = np.array([1.0, 2.0]), np.array([3.0, -1.0]), 1e-5
    left = lr.rotation_from_generators(gens, t * x).T @ lr.rotation_from_generators(gens, t * y)
    diff = (left - lr.rotation_from_generators(gens, t * (y - x))) / t**2
    expected = -0.5 * (x[0] * y[1] - x[1] * y[0]) * lr.commutator(*gens)
    # the next term is of order t: a relative error of about 1e-4 at t = 1e-5
    assert np.abs(diff - expected).max() < 1e-3 * np.abs(expected).max()


def test_cope_counts_gates():
    q = np.zeros((5, 3))
    k = np.zeros((5, 3))
    positions = lr.cope_positions(q, k)  # every gate sigma(0) = 1/2
    for i in range(5):
        for j in range(i + 1):
            assert abs(positions[i, j] - 0.5 * (i - j + 1)) < 1e-12
    assert np.isnan(positions[0, 1])
    # gates open only on keys 1 and 3 (large dot products), shut elsewhere
    k[[1, 3], 0] = 50.0
    k[[0, 2, 4], 0] = -50.0
    q[:, 0] = 1.0
    counted = lr.cope_positions(q, k)
    assert abs(counted[4, 0] - 2.0) < 1e-12 and abs(counted[4, 2] - 1.0) < 1e-12


def test_path_contains_rope():
    """Two reflections at angles a and b per token turn by 2(a - b): t tokens of them give
    RoPE's score at the offset t with theta = 2(a - b)."""
    a, b = 0.4, 0.1
    u = np.array([np.cos(a), np.sin(a)])
    v = np.array([np.cos(b), np.sin(b)])
    q, k = np.array([0.3, -1.2]), np.array([0.8, 0.5])
    for t in (1, 2, 5):
        ws = np.array([u, v] * t)
        score = lr.path_score(q, k, ws, [2.0] * (2 * t))
        expected = q @ rotation_matrix(t, 2, inv_freq=[2 * (a - b)]) @ k
        assert abs(score - expected) < 1e-12


def test_householder_and_bad_inputs():
    h = lr.householder([3.0, 4.0], 2.0)
    np.testing.assert_allclose(h.T @ h, np.eye(2), atol=1e-15)
    with pytest.raises(ValueError, match="beta"):
        lr.householder([1.0, 0.0], 2.5)
    with pytest.raises(ValueError, match="zero vector"):
        lr.householder([0.0, 0.0], 1.0)
    with pytest.raises(ValueError, match="skew-symmetric"):
        lr.expm_skew(np.eye(2))
    with pytest.raises(ValueError, match="one coordinate per generator"):
        lr.rotation_from_generators([np.zeros((2, 2))], [1.0, 2.0])


@pytest.mark.parametrize(
    ("proof", "holds"),
    [
        (pg.commuting_relative, True),
        (pg.second_order_commutator, True),
        (pg.wrong_second_order, False),
        (pg.householder_pair_is_rotation, True),
    ],
)
def test_symbolic_proofs(proof, holds):
    assert simplifies_to_zero(proof()) is holds


def test_skew_symbols():
    s = pg.skew_symbols("A", 3)
    assert s.T == -s
    with pytest.raises(ValueError, match="size"):
        pg.skew_symbols("A", 1)
