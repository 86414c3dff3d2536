"""ropelab.complex_primer (chapter 1A): the numbers against cmath and the rotation matrix
written out here, the proofs against SymPy (each true identity simplifies to zero; a wrong
variant does not), the readout of the primer's figure and its static figure."""

from __future__ import annotations

import cmath
import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
import sympy

from ropelab import complex_primer as cp
from ropelab.interactive import figure_spec
from ropelab.plots import complex_primer as plots
from ropelab.proofs import simplifies_to_zero


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# --- numbers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("r", "phi"), [(1.0, 0.0), (2.0, math.pi / 3), (0.5, -2.5), (0.0, 1.0)])
def test_polar_against_cmath(r, phi):
    assert cp.polar(r, phi) == pytest.approx(cmath.rect(r, phi), abs=1e-15)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((-1.0, 0.0), "length must be a length >= 0"),
        ((float("nan"), 0.0), "length must be finite"),
        ((1.0, float("inf")), "angle must be finite"),
        ((1.0, [1.0, 2.0]), "angle must be a single real number"),
    ],
)
def test_polar_rejects_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        cp.polar(*args)


def test_angle_of():
    assert cp.angle_of(1j) == pytest.approx(math.pi / 2)
    assert cp.angle_of((-1.0, 0.0)) == pytest.approx(math.pi)
    assert cp.angle_of(complex(1, -1)) == pytest.approx(-math.pi / 4)
    with pytest.raises(ValueError, match="z must be non-zero"):
        cp.angle_of(0j)


@pytest.mark.parametrize(("z", "phi"), [((1.0, 0.5), 0.7), (2 - 1j, -2.0), ((0.0, 1.0), math.pi)])
def test_multiply_and_rotate_is_the_rotation_matrix(z, phi):
    value = complex(*z) if isinstance(z, tuple) else z
    out = cp.multiply_and_rotate(z, phi)
    by_hand = np.array(
        [
            value.real * math.cos(phi) - value.imag * math.sin(phi),
            value.real * math.sin(phi) + value.imag * math.cos(phi),
        ]
    )
    np.testing.assert_allclose(out["product"], by_hand, atol=1e-15)
    np.testing.assert_allclose(out["rotated"], by_hand, atol=1e-15)


@pytest.mark.parametrize(
    ("z_abs", "z_arg", "w_abs", "w_arg", "product_turns", "conj_turns"),
    [
        (1.2, 0.6, 0.9, 1.0, 0, 0),
        (1.2, 3.0, 0.9, 2.0, 1, 0),
        (1.2, -3.0, 0.9, 2.0, 0, -1),
        (0.1, -3.14, 2.0, -3.14, -1, 0),
        (2.0, 1.5, 0.5, -2.5, 0, 1),
    ],
)
def test_complex_pair_data_against_cmath(z_abs, z_arg, w_abs, w_arg, product_turns, conj_turns):
    data = cp.complex_pair_data(z_abs, z_arg, w_abs, w_arg)
    z, w = cmath.rect(z_abs, z_arg), cmath.rect(w_abs, w_arg)
    np.testing.assert_allclose(data["z"], [z.real, z.imag], atol=1e-15)
    np.testing.assert_allclose(data["conj_w"], [w.real, -w.imag], atol=1e-15)
    np.testing.assert_allclose(data["product"], [(z * w).real, (z * w).imag], atol=1e-12)
    zc = z * w.conjugate()
    np.testing.assert_allclose(data["conj_product"], [zc.real, zc.imag], atol=1e-12)
    assert data["product_abs"] == pytest.approx(z_abs * w_abs, rel=1e-12)
    assert data["conj_product_abs"] == pytest.approx(z_abs * w_abs, rel=1e-12)
    # lengths multiply; angles add (subtract) up to the counted whole turns
    assert data["product_arg"] == pytest.approx(cmath.phase(z * w), abs=1e-12)
    assert data["conj_product_arg"] == pytest.approx(cmath.phase(zc), abs=1e-12)
    assert (data["product_turns"], data["conj_turns"]) == (product_turns, conj_turns)
    two_pi = 2 * math.pi
    assert z_arg + w_arg == pytest.approx(data["product_arg"] + two_pi * product_turns)
    assert z_arg - w_arg == pytest.approx(data["conj_product_arg"] + two_pi * conj_turns)


def test_complex_pair_data_cleans_rounding_noise_and_checks_lengths():
    # z and w on one line: z·conj(w) is real, its imaginary part exactly 0 (not ±1e-17)
    data = cp.complex_pair_data(1.3, 0.7, 0.45, 0.7)
    assert data["conj_product"][1] == 0.0 and data["conj_product_arg"] == 0.0
    with pytest.raises(ValueError, match="w_abs must be a length > 0"):
        cp.complex_pair_data(1.0, 0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="z_abs must be a length >= 0"):
        cp.complex_pair_data(-1.0, 0.0, 1.0, 0.0)


def test_readout_states_the_numbers():
    spec = figure_spec("complex_pair")
    text = spec.readout(spec.compute(z_abs=1.2, z_arg=3.0, w_abs=0.9, w_arg=2.0))
    lines = text.splitlines()
    assert lines[0] == "z = 1.20·e^(3.00i) = -1.1880 + 0.1693i   (3.00 rad = 171.9°)"
    assert lines[2].endswith("length 1.0800 = |z|·|w| = 1.0800")
    expected = 5.0 - 2 * math.pi
    assert lines[4] == (f"arg z + arg w = +5.0000 rad; arg(z·w) = {expected:+.4f} (one turn less)")
    assert lines[5] == "arg z − arg w = +1.0000 rad; arg(z·conj(w)) = +1.0000"
    assert all(len(line) <= 79 for line in lines)


# --- proofs ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "proof",
    [
        cp.multiplication_adds_angles,
        cp.conjugate_reverses_angle,
        cp.conjugate_product_difference,
        cp.conjugate_score_offset,
        cp.score_shift_difference,
        cp.multiplication_is_rotation,
    ],
)
def test_each_identity_simplifies_to_zero_and_keeps_its_symbols(proof):
    difference = proof()
    assert simplifies_to_zero(difference)
    assert difference.free_symbols, "the difference must still show both sides"


def test_euler_by_the_derivative():
    steps = cp.euler_derivative()
    assert steps["derivative"] == 0
    assert simplifies_to_zero(steps["at_zero"])
    phi = sympy.Symbol("varphi", real=True)
    # f itself is 1, numerically at a few angles (a spot check of the conclusion)
    for value in (0.3, 2.0, -5.0):
        assert complex(steps["f"].subs(phi, value).evalf()) == pytest.approx(1.0)


def test_euler_series_terms():
    terms = cp.euler_series_terms(6)
    phi = sympy.Symbol("varphi", real=True)
    assert terms["difference"] == 0
    assert terms["exp"].coeff(phi, 3) == -sympy.I / 6
    assert terms["exp"].coeff(phi, 4) == sympy.Rational(1, 24)
    with pytest.raises(ValueError, match="order must be an integer from 2 to 20"):
        cp.euler_series_terms(1)


def test_wrong_variants_do_not_simplify_to_zero():
    # without the conjugate the score moves when both positions move: it carries m + n
    assert not simplifies_to_zero(cp.score_shift_difference(conjugate=False))
    # a conjugate that does not reverse the angle, and an angle sum in place of a difference
    r, alpha = sympy.Symbol("r", positive=True), sympy.Symbol("alpha", real=True)
    wrong = sympy.conjugate(r * sympy.exp(sympy.I * alpha)) - r * sympy.exp(sympy.I * alpha)
    assert not simplifies_to_zero(wrong)
    beta = sympy.Symbol("beta", real=True)
    z = r * (sympy.cos(alpha) + sympy.I * sympy.sin(alpha))
    w = sympy.cos(beta) + sympy.I * sympy.sin(beta)
    planted = sympy.expand(z * sympy.conjugate(w)) - r * sympy.exp(sympy.I * (alpha + beta))
    assert not simplifies_to_zero(planted)


# --- figures ---------------------------------------------------------------------------------


def test_static_figure_draws_the_data():
    spec = figure_spec("complex_pair")
    data = spec.compute(z_abs=1.5, z_arg=2.0, w_abs=0.5, w_arg=-1.0)
    ax = spec.draw(data).axes[0]
    tips = [(a.xy[0], a.xy[1]) for a in ax.texts if hasattr(a, "xy")]
    for key in ("z", "w", "conj_w", "product", "conj_product"):
        assert any(np.allclose(tip, data[key]) for tip in tips), key
    assert "|z| = 1.50, arg z = 2.00" in ax.get_title()


def test_euler_figure_shows_cos_and_sin():
    ax = plots.plot_euler(0.9).axes[0]
    labels = [line.get_label() for line in ax.lines]
    assert rf"$\cos\varphi = {math.cos(0.9):.3f}$" in labels
    assert rf"$\sin\varphi = {math.sin(0.9):.3f}$" in labels
