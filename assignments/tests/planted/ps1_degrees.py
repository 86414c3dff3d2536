"""Planted wrong solution of ps1: the relative angle in degrees.

The reference with one mistake a student makes (tests/test_assignments.py
checks that the grader fails it with a message naming the mistake).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

STUDENT_ID = None  # the reference answers every sheet


def rotation(angle):
    """The 2 x 2 matrix that turns a vector counter-clockwise by ``angle``."""
    return sp.Matrix(
        [[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]]
    )


def relative_matrix(m, n, theta):
    """R(m theta)^T R(n theta) as one rotation: R((n - m) theta)."""
    return rotation((n - m) * theta)


def complex_score(q, k, m, n, theta):
    """The score of q at position m and k at position n, q and k complex."""
    return sp.re(q * sp.conjugate(k) * sp.exp(sp.I * (m - n) * theta))


def _rotate(x: np.ndarray, position: float, dim: int, base: float):
    theta = base ** (-np.arange(0, dim, 2) / dim)
    angle = position * theta
    x0, x1 = x[0::2], x[1::2]
    out = np.empty(dim)
    out[0::2] = x0 * np.cos(angle) - x1 * np.sin(angle)
    out[1::2] = x0 * np.sin(angle) + x1 * np.cos(angle)
    return out


def ANSWERS(sheet) -> dict[str, float]:
    """The numbers of a sheet, computed (a student types them in)."""
    q = np.asarray(sheet.q, dtype=np.float64)
    k = np.asarray(sheet.k, dtype=np.float64)
    d, base = sheet.dim, sheet.base
    theta_j = base ** (-2 * sheet.plane / d)
    return {
        "score": float(
            _rotate(q, sheet.m, d, base) @ _rotate(k, sheet.n, d, base)
        ),
        "norm": float(np.linalg.norm(_rotate(q, sheet.m, d, base))),
        "relative_angle": float(
            np.degrees(np.mod((sheet.m - sheet.n) * theta_j, 2 * np.pi))
        ),
    }
