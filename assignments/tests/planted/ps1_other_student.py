"""Planted wrong solution of ps1: another student's module and numbers.

Right for the sheet of id S2, graded as S1 (tests/test_assignments.py):
the numbers of one sheet do not answer another.
"""

from __future__ import annotations

import sympy as sp

STUDENT_ID = "S2"  # a classmate's module, handed in as S1's


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


ANSWERS = {
    "score": 18.07976619851083,
    "norm": 10.488088481701515,
    "relative_angle": 1.5416971803562287,
}
