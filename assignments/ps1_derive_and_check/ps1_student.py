"""Problem set 1, derive and check: your answers.

Fill in every function (SymPy: the arguments are SymPy symbols, return SymPy
expressions) and the numbers of your own sheet. Do not import ropelab or
transformers here: the grader refuses a module that does.
"""

import sympy as sp  # noqa: F401 (you will need it)

STUDENT_ID = ""  # your id, exactly as your instructor gave it


def rotation(angle):
    """1.1 The 2 x 2 SymPy Matrix that turns a plane vector counter-clockwise
    by ``angle``."""
    raise NotImplementedError


def relative_matrix(m, n, theta):
    """1.2 R(m theta)^T R(n theta), simplified to ONE rotation matrix (use
    your ``rotation``)."""
    raise NotImplementedError


def complex_score(q, k, m, n, theta):
    """1.3 The score of the query q at position m and the key k at position
    n, with q and k written as complex numbers: a SymPy expression in
    q, k, m, n, theta (use sp.exp, sp.I, sp.conjugate, sp.re)."""
    raise NotImplementedError


# 1.4 - 1.6: the numbers of YOUR sheet (the notebook prints your sheet and
# computes them with your functions). Copy every digit it prints.
ANSWERS = {
    "score": None,  # 1.4 <R_m q, R_n k>, pairs (2i, 2i+1)
    "norm": None,  # 1.5 ||R_m q||
    "relative_angle": None,  # 1.6 (m - n) theta_j mod 2 pi, radians
}
