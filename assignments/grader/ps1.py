"""Hidden tests of ps1, derive and check: SymPy on the derivations, the
sheet's numbers recomputed here."""

from __future__ import annotations

import numpy as np
import sympy as sp

from .core import Check, Fail, answers, call, check_student_id, close, number

M, N, THETA, ANGLE = sp.symbols("m n theta alpha", real=True)
A, B, C, D = sp.symbols("a b c d", real=True)


def _rotation(angle):
    return sp.Matrix(
        [[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]]
    )


def _points(symbols, count: int = 6, seed: int = 7) -> list[dict]:
    rng = np.random.default_rng(seed)
    return [
        {s: sp.Float(float(rng.uniform(-3, 3))) for s in symbols}
        for _ in range(count)
    ]


def _value(expr, point) -> complex:
    return complex(sp.N(sp.sympify(expr).subs(point), 15))


def same(a, b, symbols) -> bool:
    """a == b: equal at random real points, then proved by simplify."""
    for point in _points(symbols):
        if abs(_value(a, point) - _value(b, point)) > 1e-9:
            return False
    difference = sp.expand_complex(sp.sympify(a - b))
    quick = sp.expand(sp.expand_trig(sp.expand(difference)))
    return quick == 0 or sp.simplify(difference) == 0


def same_matrix(a, b, symbols) -> bool:
    a, b = sp.Matrix(a), sp.Matrix(b)
    if a.shape != b.shape:
        return False
    return all(same(x, y, symbols) for x, y in zip(a, b, strict=True))


def _matrix(value, name: str) -> sp.Matrix:
    try:
        matrix = sp.Matrix(value)
    except Exception as error:
        raise Fail(
            f"{name} must return a SymPy Matrix, got {type(value).__name__}"
        ) from error
    if matrix.shape != (2, 2):
        raise Fail(f"{name} must return a 2 x 2 matrix, got {matrix.shape}")
    return matrix


def sheet_check(module, sheet) -> None:
    check_student_id(module, sheet)


def rotation_check(module, sheet) -> str:
    got = _matrix(call(module, "rotation")(ANGLE), "rotation(angle)")
    if same_matrix(got, _rotation(ANGLE), [ANGLE]):
        return "proved with SymPy: rotation(a) is the counter-clockwise turn."
    if same_matrix(got, _rotation(ANGLE).T, [ANGLE]):
        raise Fail(
            "rotation(a) turns clockwise: it is the transpose of the "
            "rotation by a. The first column is the image of (1, 0): "
            "(cos a, sin a); put -sin a in the top-right corner."
        )
    if same_matrix(
        got, sp.Matrix([[0, 1], [1, 0]]) * _rotation(ANGLE), [ANGLE]
    ):
        raise Fail("rotation(a): cos and sin are in each other's place.")
    raise Fail(
        "rotation(a) is not [[cos a, -sin a], [sin a, cos a]]: check it "
        "at a = pi/2, where it must send (1, 0) to (0, 1)."
    )


def relative_check(module, sheet) -> str:
    got = _matrix(
        call(module, "relative_matrix")(M, N, THETA), "relative_matrix"
    )
    expected = _rotation(M * THETA).T * _rotation(N * THETA)
    symbols = [M, N, THETA]
    if same_matrix(got, expected, symbols):
        return "proved with SymPy: R(m theta)^T R(n theta) = R((n - m) theta)."
    if same_matrix(got, _rotation((M - N) * THETA), symbols):
        raise Fail(
            "relative_matrix(m, n, theta) is R((m - n) theta): the sign of "
            "the angle is flipped. Transposing R(m theta) turns it back by "
            "m theta, so R(m theta)^T R(n theta) turns by (n - m) theta. "
            "Check it with m = 1, n = 0: it must be R(-theta)."
        )
    if same_matrix(got, _rotation((M + N) * THETA), symbols):
        raise Fail(
            "relative_matrix is R((m + n) theta): the transpose of R(m "
            "theta) is the rotation by -m theta, so the angles subtract."
        )
    raise Fail(
        "relative_matrix(m, n, theta) is not R(m theta)^T R(n theta) "
        "written as one rotation: multiply the two matrices out and use "
        "the angle-difference formulas."
    )


def complex_check(module, sheet) -> str:
    q, k = A + sp.I * B, C + sp.I * D
    got = call(module, "complex_score")(q, k, M, N, THETA)
    qm = _rotation(M * THETA) * sp.Matrix([A, B])
    kn = _rotation(N * THETA) * sp.Matrix([C, D])
    expected = (qm.T * kn)[0, 0]
    symbols = [A, B, C, D, M, N, THETA]
    if same(got, expected, symbols):
        return (
            "proved with SymPy: Re[q conj(k) e^{i(m-n)theta}] is the dot "
            "product of the rotated vectors."
        )
    phase = sp.exp(sp.I * (M - N) * THETA)
    wrong_conjugate = sp.re(sp.conjugate(q) * k * phase)
    if same(got, wrong_conjugate, symbols):
        raise Fail(
            "complex_score conjugates the wrong factor: it equals "
            "Re[conj(q) k e^{i(m-n)theta}]. The dot product of two plane "
            "vectors written as complex numbers z, w is Re[z conj(w)]; with "
            "z = q e^{i m theta} (the query) and w = k e^{i n theta} (the "
            "key) the conjugate belongs on the key: Re[q conj(k) "
            "e^{i(m-n)theta}]."
        )
    if same(got, sp.re(q * sp.conjugate(k) / phase), symbols):
        raise Fail(
            "complex_score turns by (n - m) theta: the exponent's sign is "
            "flipped. With the conjugate on the key the phase is "
            "e^{i(m-n)theta}."
        )
    if same(sp.re(got), expected, symbols):
        raise Fail(
            "complex_score is complex: its real part is right; the score "
            "is the real part Re[...] of the product."
        )
    raise Fail(
        "complex_score is not the score of the rotated q and k: write q at "
        "m as q e^{i m theta}, k at n as k e^{i n theta} and take the real "
        "part of the first times the conjugate of the second."
    )


def _rotate(x, position, dim, base, layout="interleaved"):
    theta = base ** (-np.arange(0, dim, 2) / dim)
    angle = position * theta
    if layout == "interleaved":
        first, second = np.arange(0, dim, 2), np.arange(1, dim, 2)
    else:
        first, second = np.arange(dim // 2), np.arange(dim // 2, dim)
    out = np.array(x, dtype=np.float64)
    x0, x1 = out[first].copy(), out[second].copy()
    out[first] = x0 * np.cos(angle) - x1 * np.sin(angle)
    out[second] = x0 * np.sin(angle) + x1 * np.cos(angle)
    return out


def _score(sheet, m, n, layout="interleaved"):
    q = _rotate(sheet.q, m, sheet.dim, sheet.base, layout)
    k = _rotate(sheet.k, n, sheet.dim, sheet.base, layout)
    return float(q @ k)


def score_check(module, sheet) -> str:
    check_student_id(module, sheet, short=True)
    given = number(answers(module, sheet), "score")
    expected = _score(sheet, sheet.m, sheet.n)
    if close(given, expected):
        return ""
    hints = [
        (
            _score(sheet, sheet.n, sheet.m),
            "q and k (or m and n) swapped: q "
            "is at m, k at n; the score turns by (m - n) theta_i",
        ),
        (
            _score(sheet, sheet.m, sheet.n, "half"),
            "pairs (i, i + d/2): this sheet pairs coordinates (2i, 2i + 1)",
        ),
        (
            float(np.dot(sheet.q, sheet.k)),
            "the score of the unrotated "
            "vectors: rotate q by m theta_i and k by n theta_i first",
        ),
    ]
    for value, hint in hints:
        if close(given, value, 1e-5):
            raise Fail(f"ANSWERS['score'] is {given!r}: {hint}.")
    raise Fail(
        f"ANSWERS['score'] is {given!r}, not the score of your sheet "
        "(theta_i = base^(-2i/d), pairs (2i, 2i + 1), q at m, k at n). "
        "Compute it with your relative_matrix per plane and copy all the "
        "digits the notebook prints."
    )


def norm_check(module, sheet) -> str:
    check_student_id(module, sheet, short=True)
    given = number(answers(module, sheet), "norm")
    expected = float(np.linalg.norm(sheet.q))
    if close(given, expected):
        return ""
    if close(given, expected**2):
        raise Fail(
            "ANSWERS['norm'] is the squared length: give ||R q||, the "
            "square root."
        )
    raise Fail(
        f"ANSWERS['norm'] is {given!r}: a rotation keeps lengths, so "
        "||R_m q|| is the length of your q, whatever m."
    )


def angle_check(module, sheet) -> str:
    check_student_id(module, sheet, short=True)
    given = number(answers(module, sheet), "relative_angle")
    theta = sheet.base ** (-2 * sheet.plane / sheet.dim)
    raw = (sheet.m - sheet.n) * theta
    expected = float(np.mod(raw, 2 * np.pi))
    if close(given, expected):
        return ""
    if close(given, float(np.degrees(expected)), 1e-5) or close(
        given, float(np.degrees(raw)), 1e-5
    ):
        raise Fail(
            "ANSWERS['relative_angle'] is in degrees: the sheet asks for "
            "radians in [0, 2 pi) (numpy's sin and cos take radians; "
            "theta_i = base^(-2i/d) is in radians per position)."
        )
    if close(given, raw, 1e-6):
        raise Fail(
            "ANSWERS['relative_angle'] is not reduced: give (m - n) "
            "theta_j modulo 2 pi, a value in [0, 2 pi)."
        )
    if close(given, float(np.mod(-raw, 2 * np.pi))):
        raise Fail(
            "ANSWERS['relative_angle'] has the wrong sign: the relative "
            "angle is (m - n) theta_j, reduced into [0, 2 pi)."
        )
    raise Fail(
        f"ANSWERS['relative_angle'] is {given!r}: compute (m - n) theta_j "
        "with theta_j = base^(-2j/d) for your plane j, modulo 2 pi."
    )


CHECKS = [
    Check("1.0", "STUDENT_ID is yours", 1, sheet_check),
    Check("1.1", "rotation (SymPy)", 2, rotation_check),
    Check("1.2", "relative_matrix: R(m)^T R(n) (SymPy)", 3, relative_check),
    Check("1.3", "complex_score: the conjugate (SymPy)", 3, complex_check),
    Check("1.4", "the score of your q and k", 2, score_check),
    Check("1.5", "the norm after the rotation", 1, norm_check),
    Check("1.6", "the relative angle of your plane", 2, angle_check),
]
