"""A cos/sin table laid out for one pairing, rotated with the other (chapter 3).

``ropelab.proofs.mismatched_table_block`` describes the 2x2 map the pair (2i, 2i+1) gets from
a half-split table, cat(mθ, mθ), combined with a quarter turn of adjacent pairs. These tests
check it three independent ways: SymPy (its identities are exact, its control is not), a
NumPy reconstruction of the bug written here (whose matrix is read off from unit vectors),
and ``ropelab.diagnose_rope``, which must name exactly this bug.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import ropelab
from ropelab import proofs


def mismatched_rope(x: np.ndarray, positions: np.ndarray, base: float = 10000.0) -> np.ndarray:
    """The bug, written independently of ropelab: half-split table, adjacent-pair turn."""
    dim = x.shape[-1]
    theta = base ** (-np.arange(0, dim, 2) / dim)
    angles = np.asarray(positions, dtype=np.float64)[:, None] * theta[None, :]
    table = np.concatenate([angles, angles], axis=-1)  # coordinate j: angle of plane j % (d/2)
    turned = np.empty_like(x)
    turned[:, 0::2] = -x[:, 1::2]
    turned[:, 1::2] = x[:, 0::2]
    return x * np.cos(table) + turned * np.sin(table)


def map_matrix(fn, dim: int, position: int) -> np.ndarray:
    """The matrix of x -> fn(x, position), column j the image of the unit vector e_j."""
    eye = np.eye(dim)
    return fn(eye, np.full(dim, position)).T


@pytest.fixture(scope="module")
def block() -> dict:
    return proofs.mismatched_table_block()


def test_determinant_and_trace_are_exact_identities(block):
    assert proofs.simplifies_to_zero(block["determinant"])
    assert proofs.simplifies_to_zero(block["trace"])


def test_the_block_is_not_orthogonal(block):
    assert not proofs.simplifies_to_zero(block["orthogonality"])


def test_with_equal_frequencies_the_block_is_a_rotation(block):
    theta_a = sympy.Symbol("theta_a", real=True)
    theta_b = sympy.Symbol("theta_b", real=True)
    same = block["orthogonality"].subs(theta_b, theta_a)
    assert proofs.simplifies_to_zero(same)


def test_a_wrong_determinant_does_not_simplify(block):
    m = sympy.Symbol("m", real=True)
    theta_a = sympy.Symbol("theta_a", real=True)
    theta_b = sympy.Symbol("theta_b", real=True)
    wrong = sympy.Add(block["block"].det(), -sympy.cos(m * (theta_a + theta_b)), evaluate=False)
    assert not proofs.simplifies_to_zero(wrong)


@pytest.mark.parametrize("dim", [8, 64])
@pytest.mark.parametrize("position", [1, 3, 1000, 65_535])
def test_the_reconstruction_has_the_block_on_every_pair(block, dim, position):
    matrix = map_matrix(mismatched_rope, dim, position)
    theta = 10000.0 ** (-np.arange(0, dim, 2) / dim)
    symbols = {s.name: s for s in block["block"].free_symbols}
    numeric = sympy.lambdify(
        (symbols["m"], symbols["theta_a"], symbols["theta_b"]), block["block"], "numpy"
    )
    half = dim // 2
    for i in range(half):
        a, b = 2 * i, 2 * i + 1
        expected = np.array(numeric(position, theta[a % half], theta[b % half]), dtype=float)
        np.testing.assert_allclose(matrix[a : b + 1, a : b + 1], expected, atol=1e-12)
        # the map mixes each coordinate with its adjacent partner only
        rest = matrix[a : b + 1].copy()
        rest[:, a : b + 1] = 0.0
        assert np.abs(rest).max() == 0.0


@pytest.mark.parametrize("position", [1, 7, 1000])
def test_singular_values_are_the_square_roots_of_one_plus_minus_sine(position):
    dim = 8
    matrix = map_matrix(mismatched_rope, dim, position)
    theta = 10000.0 ** (-np.arange(0, dim, 2) / dim)
    half = dim // 2
    for i in range(half):
        a, b = 2 * i, 2 * i + 1
        gap = position * (theta[a % half] - theta[b % half])
        sines = abs(np.sin(gap))
        expected = np.sqrt([1 + sines, 1 - sines])
        found = np.linalg.svd(matrix[a : b + 1, a : b + 1], compute_uv=False)
        np.testing.assert_allclose(found, expected, atol=1e-9)


def test_norms_change_and_scores_depend_on_more_than_the_distance():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 64))
    out = mismatched_rope(x, np.array([0, 3, 1000, 65_535, 1_000_000]))
    ratio = np.linalg.norm(out, axis=1) / np.linalg.norm(x, axis=1)
    assert ratio[0] == pytest.approx(1.0, abs=1e-12)  # position 0: cos 1, sin 0
    assert np.abs(ratio[1:] - 1).max() > 0.01
    q, k = rng.standard_normal((2, 64))
    keys = np.array([0, 1000, 1_000_000])
    rotated_q = mismatched_rope(np.tile(q, (3, 1)), keys + 3)
    rotated_k = mismatched_rope(np.tile(k, (3, 1)), keys)
    scores = np.einsum("ij,ij->i", rotated_q, rotated_k)
    assert np.ptp(scores) > 0.1
    correct_q = ropelab.apply_rope(np.tile(q, (3, 1)), keys + 3, layout="half")
    correct_k = ropelab.apply_rope(np.tile(k, (3, 1)), keys, layout="half")
    assert np.ptp(np.einsum("ij,ij->i", correct_q, correct_k)) < 1e-9


def test_diagnose_rope_names_exactly_this_bug():
    report = ropelab.diagnose_rope(mismatched_rope, layout="half")
    assert not report.ok
    assert list(report.codes) == ["table_mismatch"]


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_each_fix_is_an_exact_rope_of_its_own_layout(layout):
    def fixed(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        dim = x.shape[-1]
        theta = 10000.0 ** (-np.arange(0, dim, 2) / dim)
        angles = positions.astype(np.float64)[:, None] * theta[None, :]
        turned = np.empty_like(x)
        if layout == "half":  # keep the table, rotate the halves
            table = np.concatenate([angles, angles], axis=-1)
            turned[:, : dim // 2], turned[:, dim // 2 :] = -x[:, dim // 2 :], x[:, : dim // 2]
        else:  # keep the adjacent turn, repeat each angle twice
            table = np.repeat(angles, 2, axis=-1)
            turned[:, 0::2], turned[:, 1::2] = -x[:, 1::2], x[:, 0::2]
        return x * np.cos(table) + turned * np.sin(table)

    assert ropelab.diagnose_rope(fixed, layout=layout).ok
    other = "interleaved" if layout == "half" else "half"
    assert not ropelab.diagnose_rope(fixed, layout=other).ok
