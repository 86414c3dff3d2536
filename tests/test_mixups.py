"""ropelab.mixups: the score correlation against a Monte Carlo estimate with real rotations,
and the range-exit positions against a direct scan of the angles."""

from __future__ import annotations

import numpy as np
import pytest

from ropelab.core import apply_rope, inv_freq
from ropelab.mixups import first_below, range_exit_positions, score_correlation


def test_correlation_matches_monte_carlo():
    rng = np.random.default_rng(0)
    d, n = 16, 200_000
    theta = inv_freq(d, 100.0)
    phi = theta * np.linspace(1.0, 0.2, d // 2)
    q, k = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    for delta in (0.0, 3.0, 40.0):
        s_theta = np.einsum("nd,nd->n", apply_rope(q, delta, inv_freq=theta, layout="half"), k)
        s_phi = np.einsum("nd,nd->n", apply_rope(q, delta, inv_freq=phi, layout="half"), k)
        measured = np.corrcoef(s_theta, s_phi)[0, 1]
        assert score_correlation(theta, phi, delta) == pytest.approx(measured, abs=0.01)
    assert score_correlation(theta, theta, [5.0, 500.0]) == pytest.approx([1.0, 1.0])


def test_range_exit_by_scanning_the_angles():
    trained = np.array([1.0, 0.1, 0.01])
    used = np.array([1.0, 0.2, 0.08])
    exits = range_exit_positions(trained, used, 100)
    for i in range(3):
        m = np.arange(0, 1000, 0.5)
        first = m[m * used[i] > 100 * trained[i]][0]
        assert exits[i] == pytest.approx(first, abs=0.5)
    assert range_exit_positions([1.0], [0.0], 10)[0] == np.inf


def test_first_below_and_errors():
    assert first_below([1.0, 0.95, 0.8, 0.99], 0.9, [1, 2, 3, 4]) == 3.0
    assert first_below([1.0, 0.95], 0.5, [1, 2]) is None
    with pytest.raises(ValueError, match="theta and phi must be 1-d of one length"):
        score_correlation([1.0, 2.0], [1.0], [0.0])
    with pytest.raises(ValueError, match="train_len must be > 0"):
        range_exit_positions([1.0], [1.0], 0)
