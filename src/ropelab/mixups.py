r"""What a wrong rope configuration does, computed from the frequencies alone (chapter 8).

A model was trained with frequencies :math:`\theta'_i` on positions below
:math:`L_{\text{train}}`; an inference engine runs it with other frequencies
:math:`\phi_i` (the scaling dropped, a factor inverted, the wrong original length). Two
measures need no weights:

**Where each plane leaves its trained range.** Plane *i* turned by at most
:math:`L_{\text{train}}\theta'_i` in training. With :math:`\phi_i` the angle :math:`m\phi_i`
exceeds that from

.. math:: m_i = L_{\text{train}}\,\theta'_i / \phi_i ,

so beyond :math:`\min_i m_i` at least one plane shows the model angles it never saw (for a
plane with :math:`\phi_i \le \theta'_i`, :math:`m_i \ge L_{\text{train}}`).

**How much the scores change.** For queries and keys with independent standard normal
coordinates, the score at distance :math:`\Delta` under two sets of frequencies has
correlation

.. math::
    \rho(\Delta) = \frac{\mathbb{E}[s_\theta(\Delta)\,s_\phi(\Delta)]}{\sqrt{\mathbb{E}[s_\theta^2]\,
    \mathbb{E}[s_\phi^2]}} = \frac{2}{d}\sum_{i=0}^{d/2-1}\cos\big(\Delta(\theta_i - \phi_i)\big),

because each plane contributes :math:`(q_a k_a + q_b k_b)\cos\Delta\theta_i +
(q_a k_b - q_b k_a)\sin\Delta\theta_i` and the cross terms have mean 0. :math:`\rho = 1`
means the scores are unchanged; a trained model's queries and keys are not random, so this
is a yardstick, not a prediction of its behaviour. Explained in chapter 8 of the book.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_finite_array, check_positive

__all__ = ["first_below", "range_exit_positions", "score_correlation"]


def _pair(theta: Any, phi: Any) -> tuple[np.ndarray, np.ndarray]:
    theta = check_finite_array(theta, "theta")
    phi = check_finite_array(phi, "phi")
    if theta.shape != phi.shape or theta.ndim != 1:
        raise ValueError(
            f"theta and phi must be 1-d of one length, got {theta.shape} and {phi.shape}"
        )
    return theta, phi


def range_exit_positions(trained: Any, used: Any, train_len: float) -> np.ndarray:
    r"""Per plane, the position :math:`L\,\theta'_i/\phi_i` where the used angle leaves the
    trained range (``inf`` for a plane that does not rotate when used)."""
    trained, used = _pair(trained, used)
    length = check_positive(train_len, "train_len")
    with np.errstate(divide="ignore"):
        return np.where(used > 0, length * trained / np.where(used > 0, used, 1.0), np.inf)


def score_correlation(theta: Any, phi: Any, distances: Any) -> np.ndarray:
    r""":math:`\rho(\Delta) = \frac{2}{d}\sum_i \cos(\Delta(\theta_i - \phi_i))` at each distance."""
    theta, phi = _pair(theta, phi)
    delta = check_finite_array(distances, "distances")
    return np.cos(delta[..., None] * (theta - phi)).mean(axis=-1)


def first_below(values: Any, threshold: float, positions: Any) -> float | None:
    """The first of ``positions`` where ``values`` drops below ``threshold`` (None if never)."""
    values = check_finite_array(values, "values")
    positions = check_finite_array(positions, "positions")
    below = np.flatnonzero(values < threshold)
    return None if below.size == 0 else float(positions[below[0]])
