"""Public tests of problem set 2: run ``python -m pytest`` in this folder.

Small cases you can check by hand, and the properties RoPE must have; the
grader's tests compare your functions with transformers on your sheet."""

import math

import numpy as np
import ps2_student as student
import pytest

from sheet import sheet

BASE = 10000.0


def my_sheet():
    if not student.STUDENT_ID.strip():
        pytest.skip("write your id in STUDENT_ID")
    return sheet("ps2", student.STUDENT_ID)


def test_inv_freq_by_hand():
    np.testing.assert_allclose(student.inv_freq(4, BASE), [1.0, 0.01])


def test_half_pairs_i_with_i_plus_half():
    got = student.rope_half(np.array([[1.0, 0, 0, 0]]), np.array([1]), BASE)
    np.testing.assert_allclose(
        got, [[math.cos(1), 0, math.sin(1), 0]], atol=1e-12
    )


def test_interleaved_pairs_neighbours():
    x = np.array([[1.0, 0, 0, 0]])
    got = student.rope_interleaved(x, np.array([1]), BASE)
    np.testing.assert_allclose(
        got, [[math.cos(1), math.sin(1), 0, 0]], atol=1e-12
    )


@pytest.mark.parametrize("name", ["rope_half", "rope_interleaved"])
def test_shapes_position_zero_and_norms(name):
    s = my_sheet()
    fn = getattr(student, name)
    x = np.random.default_rng(0).standard_normal((2, s.heads, 5, s.dim))
    positions = np.array([0, 1, 2, 100, 5000])
    y = np.asarray(fn(x, positions, s.base))
    assert y.shape == x.shape
    np.testing.assert_allclose(y[..., 0, :], x[..., 0, :], atol=1e-12)
    np.testing.assert_allclose(
        np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-10
    )


@pytest.mark.parametrize("name", ["rope_half", "rope_interleaved"])
def test_scores_depend_on_distance_only(name):
    s = my_sheet()
    fn = getattr(student, name)
    q, k = np.random.default_rng(1).standard_normal((2, 1, s.dim))

    def score(mq, nk):
        return float(
            fn(q, np.array([mq]), s.base)[0] @ fn(k, np.array([nk]), s.base)[0]
        )

    assert score(40, 13) == pytest.approx(score(40 + 999, 13 + 999), abs=1e-9)


def test_decode_step_shapes_and_cache():
    s = my_sheet()
    rng = np.random.default_rng(2)
    k, v = rng.standard_normal((2, s.heads, s.prefill, s.dim))
    cache = student.prefill(k, v, s.base)
    assert np.shape(cache["k"]) == (s.heads, s.prefill, s.dim)
    q1, k1, v1 = rng.standard_normal((3, s.heads, s.dim))
    out, new = student.decode_step(q1, k1, v1, cache, s.base)
    assert np.shape(out) == (s.heads, s.dim)
    assert np.shape(new["k"]) == (s.heads, s.prefill + 1, s.dim)
    np.testing.assert_allclose(new["k"][:, :-1], cache["k"])
