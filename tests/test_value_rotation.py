"""ropelab.value_rotation: rotating v changes outputs, not scores; only q.k carries position."""

from __future__ import annotations

import numpy as np
import pytest

from ropelab.core import inv_freq, rotation_matrix
from ropelab.value_rotation import attention_with_rotated_values, shift_gap

D = 8


@pytest.fixture
def qkv():
    rng = np.random.default_rng(0)
    return tuple(rng.standard_normal((10, D)) for _ in range(3))


def test_rotating_values_keeps_scores_and_changes_outputs(qkv):
    q, k, v = qkv
    theta = inv_freq(D, 100.0)
    positions = np.arange(10) * 3.0
    plain = attention_with_rotated_values(q, k, v, positions, theta)
    rotated = attention_with_rotated_values(q, k, v, positions, theta, values="values")
    np.testing.assert_array_equal(rotated.scores, plain.scores)
    np.testing.assert_array_equal(rotated.weights, plain.weights)
    assert np.abs(rotated.outputs - plain.outputs).max() > 0.1
    # the first token attends only to itself: R_0 = I, so its output is unchanged
    np.testing.assert_allclose(rotated.outputs[0], plain.outputs[0], atol=1e-15)


def test_outputs_against_a_loop_with_rotation_matrices(qkv):
    q, k, v = qkv
    theta = inv_freq(D, 100.0)
    positions = np.arange(10) + 5.0
    result = attention_with_rotated_values(
        q, k, v, positions, theta, values="values+output", layout="half"
    )
    for m in range(10):
        expected = sum(
            result.weights[m, n]
            * rotation_matrix(positions[n] - positions[m], D, 100.0, "half")
            @ v[n]
            for n in range(m + 1)
        )
        np.testing.assert_allclose(result.outputs[m], expected, atol=1e-13)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_only_qk_rotation_is_shift_invariant(qkv, layout):
    q, k, v = qkv
    theta = inv_freq(D, 10000.0)
    positions = np.arange(10.0)
    assert shift_gap(q, k, v, positions, theta, 100.0, layout=layout) < 1e-12
    assert shift_gap(q, k, v, positions, theta, 100.0, values="values", layout=layout) > 0.1
    assert (
        shift_gap(q, k, v, positions, theta, 100.0, values="values+output", layout=layout) < 1e-12
    )


def test_bad_input_names_the_argument(qkv):
    q, k, v = qkv
    theta = inv_freq(D, 10000.0)
    with pytest.raises(ValueError, match="values must be one of"):
        attention_with_rotated_values(q, k, v, np.arange(10), theta, values="all")
    with pytest.raises(ValueError, match="q, k and v must be"):
        attention_with_rotated_values(q, k[:5], v, np.arange(10), theta)
