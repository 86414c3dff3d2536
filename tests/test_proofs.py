"""Tests of :mod:`ropelab.proofs`: the symbolic identities behind RoPE.

Three kinds of checks:

* every identity in ``PROOFS`` (and the block proofs at d = 2, 4, 6, 8, both layouts)
  simplifies to exactly zero, while wrong variants do not;
* the proofs stay symbolic: their results carry the position, angle and vector symbols;
* the SymPy builders, evaluated at random numbers, agree with the numeric
  :mod:`ropelab.core`, so the symbolic world and the code that runs are linked.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from ropelab import proofs
from ropelab.core import apply_rope, inv_freq, layout_permutation, rotation_matrix

DIMS = (2, 4, 6, 8)
LAYOUTS = ("interleaved", "half")

BLOCK_PROOFS = {
    "relative_rotation_block": proofs.relative_rotation_block,
    "score_depends_on_offset": proofs.score_depends_on_offset,
    "elementwise_form": proofs.elementwise_form,
    "orthogonality": proofs.orthogonality,
    "norm_preservation": proofs.norm_preservation,
}
PERMUTATION_PROOFS = {
    "layout_permutation_matrix": proofs.layout_permutation_matrix,
    "layout_permutation_vector": proofs.layout_permutation_vector,
}


def _names(result: sympy.Expr | sympy.MatrixBase) -> set[str]:
    return {symbol.name for symbol in result.free_symbols}


def _thetas(dim: int) -> set[str]:
    return {f"theta_{i}" for i in range(dim // 2)}


def _vector(name: str, dim: int) -> set[str]:
    return {f"{name}_{j}" for j in range(dim)}


# The symbols each registered proof must still contain (at its default dimension).
REQUIRED_SYMBOLS = {
    "relative_rotation_2d": {"m", "n", "theta"},
    "relative_rotation_block_interleaved": {"m", "n"} | _thetas(4),
    "relative_rotation_block_half": {"m", "n"} | _thetas(4),
    "complex_score_vs_real_dot": {"m", "n", "theta", "q_0", "q_1", "k_0", "k_1"},
    "complex_rotation_as_matrix": {"m", "theta", "q_0", "q_1"},
    "polar_form_rotation": {"m", "theta", "r", "varphi"},
    "complex_multiplication_as_matrix": {"a", "b", "c", "d"},
    "elementwise_form_interleaved": {"m"} | _thetas(4) | _vector("x", 4),
    "elementwise_form_half": {"m"} | _thetas(4) | _vector("x", 4),
    "orthogonality_2d": {"m", "theta_0"},
    "orthogonality_interleaved": {"m"} | _thetas(6),
    "orthogonality_half": {"m"} | _thetas(6),
    "norm_preservation_2d": {"m", "theta_0", "x_0", "x_1"},
    "norm_preservation_interleaved": {"m"} | _thetas(6) | _vector("x", 6),
    "norm_preservation_half": {"m"} | _thetas(6) | _vector("x", 6),
    "layout_permutation_matrix": {"m"} | _thetas(4),
    "layout_permutation_vector": {"m"} | _thetas(4) | _vector("x", 4),
    "score_depends_on_offset_interleaved": {"m", "n"}
    | _thetas(4)
    | _vector("q", 4)
    | _vector("k", 4),
    "score_depends_on_offset_half": {"m", "n"} | _thetas(4) | _vector("q", 4) | _vector("k", 4),
}


# --------------------------------------------------------------------------------------
# The identities hold
# --------------------------------------------------------------------------------------


def test_registry_lists_every_required_identity() -> None:
    assert set(proofs.PROOFS) == set(REQUIRED_SYMBOLS)
    assert "wrong_relative_rotation_2d" not in proofs.PROOFS


@pytest.mark.parametrize("name", sorted(proofs.PROOFS))
def test_registered_proof_simplifies_to_zero(name: str) -> None:
    assert proofs.simplifies_to_zero(proofs.PROOFS[name]())


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("name", sorted(BLOCK_PROOFS))
def test_block_proof_holds_at_every_dim(name: str, dim: int, layout: str) -> None:
    result = BLOCK_PROOFS[name](dim, layout)
    assert proofs.simplifies_to_zero(result)
    assert {"m"} | _thetas(dim) <= _names(result)


@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("name", sorted(PERMUTATION_PROOFS))
def test_permutation_proof_holds_at_every_dim(name: str, dim: int) -> None:
    result = PERMUTATION_PROOFS[name](dim)
    assert proofs.simplifies_to_zero(result)
    assert {"m"} | _thetas(dim) <= _names(result)


@pytest.mark.parametrize("dim", DIMS)
def test_block_matrix_shapes(dim: int) -> None:
    assert proofs.relative_rotation_block(dim).shape == (dim, dim)
    assert proofs.elementwise_form(dim).shape == (dim, 1)
    assert proofs.layout_permutation_vector(dim).shape == (dim, 1)
    assert isinstance(proofs.score_depends_on_offset(dim), sympy.Expr)
    assert isinstance(proofs.norm_preservation(dim), sympy.Expr)


# --------------------------------------------------------------------------------------
# Wrong identities are rejected
# --------------------------------------------------------------------------------------


def test_wrong_relative_rotation_does_not_simplify_to_zero() -> None:
    wrong = proofs.wrong_relative_rotation_2d()
    assert not proofs.simplifies_to_zero(wrong)
    assert {"m", "n", "theta"} <= _names(wrong)


def test_wrong_relative_rotation_differs_numerically() -> None:
    m, n = proofs.position_symbols()
    theta = proofs.theta_symbol()
    wrong = sympy.lambdify((m, n, theta), proofs.wrong_relative_rotation_2d(), "numpy")
    right = sympy.lambdify((m, n, theta), proofs.relative_rotation_2d(), "numpy")
    at = (1.0, 3.0, 0.7)
    assert np.max(np.abs(np.asarray(wrong(*at), dtype=float))) > 0.5
    np.testing.assert_allclose(np.asarray(right(*at), dtype=float), 0.0, atol=1e-12)
    # Off-diagonal entries of the wrong difference are ±2 sin((n - m)θ).
    assert np.asarray(wrong(*at), dtype=float)[1, 0] == pytest.approx(2 * np.sin(2 * 0.7))


@pytest.mark.parametrize("dim", (2, 4, 6))
def test_swapped_offset_in_block_form_is_rejected(dim: int) -> None:
    m, n = proofs.position_symbols()
    product = proofs.symbolic_rotation(m, dim).T * proofs.symbolic_rotation(n, dim)
    assert not proofs.simplifies_to_zero(product - proofs.symbolic_rotation(m - n, dim))


@pytest.mark.parametrize("dim", (4, 6))
def test_mixing_layouts_is_rejected(dim: int) -> None:
    m, _ = proofs.position_symbols()
    x = proofs.vector_symbols("x", dim)
    interleaved = proofs.symbolic_rotation(m, dim, "interleaved")
    half = proofs.symbolic_rotation(m, dim, "half")
    assert not proofs.simplifies_to_zero(interleaved - half)
    # cos/sin tables of one layout with the rotate of the other: not the rotation.
    cos, sin = proofs.symbolic_cos_sin(m, dim, "interleaved")
    mixed = x.multiply_elementwise(cos) + proofs.symbolic_rotate_pairs(
        x, "half"
    ).multiply_elementwise(sin)
    assert not proofs.simplifies_to_zero(mixed - interleaved * x)


@pytest.mark.parametrize("dim", (6, 8))
def test_conjugating_the_wrong_way_is_rejected(dim: int) -> None:
    # P R P^T, not P^T R P (they coincide at d = 4, where P is its own inverse).
    m, _ = proofs.position_symbols()
    perm = proofs.symbolic_layout_permutation(dim)
    assert perm != perm.T
    interleaved = proofs.symbolic_rotation(m, dim, "interleaved")
    half = proofs.symbolic_rotation(m, dim, "half")
    assert not proofs.simplifies_to_zero(perm.T * interleaved * perm - half)
    assert proofs.simplifies_to_zero(perm * interleaved * perm.T - half)


def test_score_with_wrong_offset_is_rejected() -> None:
    m, n = proofs.position_symbols()
    q = proofs.vector_symbols("q", 4)
    k = proofs.vector_symbols("k", 4)
    score = (proofs.symbolic_rotation(m, 4) * q).dot(proofs.symbolic_rotation(n, 4) * k)
    assert not proofs.simplifies_to_zero(score - q.dot(proofs.symbolic_rotation(m - n, 4) * k))


def test_complex_score_with_wrong_conjugate_is_rejected() -> None:
    m, n = proofs.position_symbols()
    theta = proofs.theta_symbol()
    q0, q1, k0, k1 = sympy.symbols("q_0 q_1 k_0 k_1", real=True)
    # Forgetting the conjugate on k gives a different function.
    score = sympy.re(
        (q0 + sympy.I * q1) * (k0 + sympy.I * k1) * sympy.exp(sympy.I * (m - n) * theta)
    )
    dot = (proofs.symbolic_rotation_2d(m * theta) * sympy.Matrix([q0, q1])).dot(
        proofs.symbolic_rotation_2d(n * theta) * sympy.Matrix([k0, k1])
    )
    assert not proofs.simplifies_to_zero(score - dot)


def test_simplifies_to_zero_on_known_expressions() -> None:
    x, y = sympy.symbols("x y", real=True)
    assert proofs.simplifies_to_zero(sympy.sin(x) ** 2 + sympy.cos(x) ** 2 - 1)
    assert proofs.simplifies_to_zero(sympy.cos(2 * x) - 2 * sympy.cos(x) ** 2 + 1)
    assert proofs.simplifies_to_zero(
        sympy.sin(x + y) - sympy.sin(x) * sympy.cos(y) - sympy.cos(x) * sympy.sin(y)
    )
    assert proofs.simplifies_to_zero(sympy.exp(sympy.I * x) - sympy.cos(x) - sympy.I * sympy.sin(x))
    assert proofs.simplifies_to_zero(sympy.zeros(3, 2))
    assert proofs.simplifies_to_zero(0)
    assert not proofs.simplifies_to_zero(sympy.sin(x) - sympy.cos(x))
    assert not proofs.simplifies_to_zero(sympy.sin(x) ** 2 - sympy.cos(x) ** 2)
    assert not proofs.simplifies_to_zero(sympy.sin(x) ** 2 + sympy.cos(x) ** 2)
    assert not proofs.simplifies_to_zero(sympy.Matrix([[0, 0], [0, sympy.sin(x)]]))
    assert not proofs.simplifies_to_zero(sympy.Rational(1, 10**12))


# --------------------------------------------------------------------------------------
# The proofs are symbolic
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(proofs.PROOFS))
def test_registered_proof_is_symbolic(name: str) -> None:
    result = proofs.PROOFS[name]()
    assert REQUIRED_SYMBOLS[name] <= _names(result)
    # Symbolic all the way: no floating-point numbers hidden inside.
    assert not result.atoms(sympy.Float)


def test_position_and_angle_symbols_are_real() -> None:
    m, n = proofs.position_symbols()
    assert m.is_real and n.is_real
    assert proofs.theta_symbol().is_real
    assert all(theta.is_real for theta in proofs.theta_symbols(8))
    assert len(proofs.theta_symbols(8)) == 4
    assert len(set(proofs.theta_symbols(8))) == 4
    assert all(entry.is_real for entry in proofs.vector_symbols("x", 5))


def test_difference_keeps_both_sides_visible() -> None:
    # The two sides of the layout identity are written identically entry by entry; the
    # difference must still be an unevaluated "a - a", not a bare zero.
    result = proofs.layout_permutation_matrix(4)
    assert any(entry != 0 for entry in result)
    assert all(entry.doit() == 0 for entry in result)
    assert _names(result) == {"m"} | _thetas(4)


def test_display_steps_of_the_2d_derivation() -> None:
    m, n = proofs.position_symbols()
    theta = proofs.theta_symbol()
    steps = proofs.relative_rotation_2d_steps()
    assert set(steps) == {"product", "simplified", "target", "difference"}
    expected = sympy.cos(m * theta) * sympy.cos(n * theta) + sympy.sin(m * theta) * sympy.sin(
        n * theta
    )
    assert sympy.expand(steps["product"][0, 0] - expected) == 0
    assert steps["simplified"][0, 0] in {sympy.cos(theta * (m - n)), sympy.cos(theta * (n - m))}
    assert steps["difference"] == sympy.zeros(2, 2)
    assert steps["target"] == proofs.symbolic_rotation_2d((n - m) * theta)


def test_display_steps_of_the_complex_derivation() -> None:
    steps = proofs.complex_rotation_steps()
    assert steps["complex"].has(sympy.exp)
    assert not steps["real_vector"].has(sympy.I)
    assert proofs.simplifies_to_zero(steps["real_vector"] - steps["matrix_times_q"])
    assert proofs.simplifies_to_zero(steps["complex"] - steps["expanded"])


# --------------------------------------------------------------------------------------
# Cross-check against the numeric core
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", DIMS)
def test_symbolic_rotation_matches_core(dim: int, layout: str) -> None:
    rng = np.random.default_rng(20210420 + dim)
    m, _ = proofs.position_symbols()
    thetas = proofs.theta_symbols(dim)
    numeric = sympy.lambdify((m, *thetas), proofs.symbolic_rotation(m, dim, layout), "numpy")
    for _ in range(5):
        position = rng.uniform(-100.0, 100.0)
        theta_values = rng.uniform(0.0, 2.0, size=dim // 2)
        expected = rotation_matrix(position, dim, layout=layout, inv_freq=theta_values)
        got = np.asarray(numeric(position, *theta_values), dtype=float)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", DIMS)
def test_symbolic_fast_form_matches_core(dim: int, layout: str) -> None:
    rng = np.random.default_rng(7 + dim)
    m, _ = proofs.position_symbols()
    thetas = proofs.theta_symbols(dim)
    x = proofs.vector_symbols("x", dim)
    fast = proofs.symbolic_apply_rope(x, m, layout)
    numeric = sympy.lambdify((m, *thetas, *x), fast, "numpy")
    for _ in range(5):
        position = rng.uniform(0.0, 500.0)
        theta_values = rng.uniform(0.0, 1.0, size=dim // 2)
        vector = rng.standard_normal(dim)
        expected = apply_rope(
            vector[None, :], np.array([position]), inv_freq=theta_values, layout=layout
        )[0]
        got = np.asarray(numeric(position, *theta_values, *vector), dtype=float).ravel()
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("dim", DIMS)
def test_symbolic_inv_freq_matches_core(dim: int) -> None:
    beta = sympy.Symbol("beta", positive=True)
    frequencies = proofs.symbolic_inv_freq(dim)
    assert all(f.free_symbols <= {beta} for f in frequencies)
    numeric = np.array([float(f.subs(beta, 10000)) for f in frequencies])
    np.testing.assert_allclose(numeric, inv_freq(dim), rtol=1e-15)
    with_base = proofs.symbolic_inv_freq(dim, base=500)
    np.testing.assert_allclose([float(f) for f in with_base], inv_freq(dim, 500.0), rtol=1e-15)


@pytest.mark.parametrize("dim", DIMS)
def test_symbolic_layout_permutation_matches_core(dim: int) -> None:
    symbolic = np.array(proofs.symbolic_layout_permutation(dim).tolist(), dtype=float)
    np.testing.assert_array_equal(symbolic, layout_permutation(dim))


def test_symbolic_rotation_with_default_frequencies_matches_core() -> None:
    m, _ = proofs.position_symbols()
    frequencies = proofs.symbolic_inv_freq(6, base=10000)
    matrix = proofs.symbolic_rotation(m, 6, "half", thetas=frequencies)
    got = np.array(matrix.subs(m, 37).evalf().tolist(), dtype=float)
    np.testing.assert_allclose(got, rotation_matrix(37, 6, layout="half"), atol=1e-12)


def test_symbolic_rotation_accepts_a_number_as_position() -> None:
    theta = proofs.theta_symbols(2)[0]
    matrix = proofs.symbolic_rotation(0, 2)
    assert matrix == sympy.eye(2)
    matrix = proofs.symbolic_rotation(sympy.Rational(1, 2), 2)
    assert matrix[1, 0] == sympy.sin(theta / 2)


# --------------------------------------------------------------------------------------
# Bad inputs
# --------------------------------------------------------------------------------------

DIM_FUNCTIONS = [
    proofs.theta_symbols,
    proofs.symbolic_inv_freq,
    proofs.symbolic_layout_permutation,
    proofs.relative_rotation_block,
    proofs.score_depends_on_offset,
    proofs.elementwise_form,
    proofs.orthogonality,
    proofs.norm_preservation,
    proofs.layout_permutation_matrix,
    proofs.layout_permutation_vector,
    lambda dim: proofs.symbolic_rotation(sympy.Symbol("m"), dim),
    lambda dim: proofs.symbolic_cos_sin(sympy.Symbol("m"), dim),
]

LAYOUT_FUNCTIONS = [
    lambda layout: proofs.symbolic_rotation(sympy.Symbol("m"), 4, layout),
    lambda layout: proofs.symbolic_cos_sin(sympy.Symbol("m"), 4, layout),
    lambda layout: proofs.symbolic_rotate_pairs(proofs.vector_symbols("x", 4), layout),
    lambda layout: proofs.symbolic_apply_rope(proofs.vector_symbols("x", 4), 1, layout),
    lambda layout: proofs.relative_rotation_block(4, layout),
    lambda layout: proofs.score_depends_on_offset(4, layout),
    lambda layout: proofs.elementwise_form(4, layout),
    lambda layout: proofs.orthogonality(4, layout),
    lambda layout: proofs.norm_preservation(4, layout),
]


@pytest.mark.parametrize("bad", [3, 0, -2, 2.5, "4", None, True])
@pytest.mark.parametrize("function", range(len(DIM_FUNCTIONS)))
def test_bad_dim_raises(function: int, bad: object) -> None:
    with pytest.raises(ValueError, match=r"dim must be a positive even integer"):
        DIM_FUNCTIONS[function](bad)


@pytest.mark.parametrize("bad", ["rotate_half", "Half", "", None])
@pytest.mark.parametrize("function", range(len(LAYOUT_FUNCTIONS)))
def test_bad_layout_raises(function: int, bad: object) -> None:
    with pytest.raises(ValueError, match=r"layout must be one of .*interleaved.*half"):
        LAYOUT_FUNCTIONS[function](bad)


def test_bad_thetas_raise() -> None:
    m, _ = proofs.position_symbols()
    with pytest.raises(ValueError, match=r"thetas must have dim/2 = 2 entries"):
        proofs.symbolic_rotation(m, 4, thetas=proofs.theta_symbols(6))
    with pytest.raises(ValueError, match=r"thetas must be a SymPy expression"):
        proofs.symbolic_rotation(m, 4, thetas=["a", "b"])


def test_bad_position_and_angle_raise() -> None:
    with pytest.raises(ValueError, match=r"position must be a SymPy expression"):
        proofs.symbolic_rotation("m", 4)
    with pytest.raises(ValueError, match=r"position must be"):
        proofs.symbolic_rotation(object(), 4)
    with pytest.raises(ValueError, match=r"angle must be"):
        proofs.symbolic_rotation_2d("theta")


def test_bad_vectors_raise() -> None:
    with pytest.raises(ValueError, match=r"x must be a vector of positive even length"):
        proofs.symbolic_rotate_pairs(sympy.Matrix([1, 2, 3]))
    with pytest.raises(ValueError, match=r"x must be a vector of positive even length"):
        proofs.symbolic_apply_rope(sympy.eye(2), 1)
    with pytest.raises(ValueError, match=r"length must be a positive integer"):
        proofs.vector_symbols("x", 0)
    with pytest.raises(ValueError, match=r"name must be"):
        proofs.vector_symbols("not a name", 2)
    with pytest.raises(ValueError, match=r"expr must be"):
        proofs.simplifies_to_zero("sin(x)")
