"""Public tests of problem set 1: run ``python -m pytest`` in this folder.

They check the form of your answers on small cases; the grader's tests go
further (SymPy proofs, your sheet's numbers)."""

import math

import numpy as np
import ps1_student as student
import pytest
import sympy as sp

a, m, n, theta = sp.symbols("alpha m n theta", real=True)


def numeric(matrix) -> np.ndarray:
    return np.array(sp.Matrix(matrix).evalf(), dtype=float)


def test_student_id_is_set():
    assert student.STUDENT_ID.strip(), "write your id in STUDENT_ID"


def test_rotation_turns_x_axis_to_y_axis():
    turned = sp.Matrix(student.rotation(sp.pi / 2)) * sp.Matrix([1, 0])
    assert sp.simplify(turned - sp.Matrix([0, 1])) == sp.zeros(2, 1)


def test_rotation_keeps_lengths():
    r = sp.Matrix(student.rotation(a))
    assert sp.simplify(r.T * r - sp.eye(2)) == sp.zeros(2, 2)


def test_relative_matrix_on_numbers():
    def r(x):
        return np.array(
            [[math.cos(x), -math.sin(x)], [math.sin(x), math.cos(x)]]
        )

    got = numeric(student.relative_matrix(3, 7, sp.Rational(1, 10)))
    np.testing.assert_allclose(got, r(0.3).T @ r(0.7), atol=1e-12)


def test_relative_matrix_is_one_rotation():
    got = sp.Matrix(student.relative_matrix(m, n, theta))
    shifted = got.subs({m: m + 5, n: n + 5})
    assert sp.simplify(shifted - got) == sp.zeros(2, 2), (
        "it must depend on n - m only"
    )


def test_complex_score_on_numbers():
    q, k, mm, nn, th = 1 + 2j, -0.5 + 1j, 4, 1, 0.3
    got = complex(
        sp.N(student.complex_score(sp.sympify(q), sp.sympify(k), mm, nn, th))
    )

    def turn(z, x):
        w = z * complex(math.cos(x), math.sin(x))
        return np.array([w.real, w.imag])

    expected = turn(q, mm * th) @ turn(k, nn * th)
    assert abs(got.imag) < 1e-12, "a score is a real number"
    assert got.real == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("key", ["score", "norm", "relative_angle"])
def test_answers_are_numbers(key):
    value = student.ANSWERS[key]
    assert isinstance(value, int | float), f"fill in ANSWERS[{key!r}]"
    if key == "relative_angle":
        assert 0 <= value < 2 * math.pi, "radians in [0, 2 pi)"
