"""ropelab.proofs_beyond: every identity simplifies to exactly zero, every deliberately wrong
variant does not, and the symbolic builders agree with the numeric code they stand for."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from ropelab import proofs_beyond as pb
from ropelab.multimodal import apply_multiaxis_rope, plane_axes
from ropelab.proofs import simplifies_to_zero, symbolic_rotation


@pytest.mark.parametrize("name", sorted(pb.PROOFS))
def test_identity_simplifies_to_zero(name):
    assert simplifies_to_zero(pb.PROOFS[name]())


@pytest.mark.parametrize("name", sorted(pb.WRONG_VARIANTS))
def test_wrong_variant_does_not(name):
    assert not simplifies_to_zero(pb.WRONG_VARIANTS[name]())


def test_every_identity_has_a_wrong_variant():
    assert set(pb.PROOFS) == set(pb.WRONG_VARIANTS)


def test_larger_sizes():
    assert simplifies_to_zero(pb.mla_rotation_between(dim=4, d_in=3, d_latent=2))
    assert simplifies_to_zero(pb.mrope_text_is_rope((2, 3, 3)))
    assert simplifies_to_zero(pb.mrope_text_is_rope((3, 3, 2), "interleaved"))
    assert simplifies_to_zero(pb.multiaxis_relative_rotation("sections", (2, 3, 3)))


def test_wrong_mla_absorption_is_zero_only_at_offset_zero():
    diff = pb.wrong_mla_absorption().doit()
    m, n = sympy.Symbol("m", real=True), sympy.Symbol("n", real=True)
    at_zero = diff.subs(n, m)
    assert simplifies_to_zero(at_zero)
    values = {s: 0.3 + 0.1 * i for i, s in enumerate(sorted(diff.free_symbols, key=str))}
    values[m], values[n] = 0.0, 1.0
    assert float(abs(diff.subs(values)).norm()) > 1e-3


def test_symbolic_multiaxis_rotation_matches_the_numeric_rotation():
    axes = plane_axes("sections", 8, [1, 2, 1])
    thetas = [1.0, 0.3, 0.05, 0.01]
    position = [2.0, 5.0, 7.0]
    matrix = pb.symbolic_multiaxis_rotation(position, axes, "half", thetas)
    numeric = np.array(matrix.evalf(), dtype=float)
    x = np.random.default_rng(0).standard_normal(8)
    rotated = apply_multiaxis_rope(x[None], np.array([position]), np.array(thetas), axes)[0]
    np.testing.assert_allclose(numeric @ x, rotated, atol=1e-12)


def test_bad_inputs():
    with pytest.raises(ValueError, match="allocation"):
        pb.multiaxis_relative_rotation("diagonal", (1,))
    with pytest.raises(ValueError, match="axes must index positions"):
        pb.symbolic_multiaxis_rotation([sympy.Symbol("p")], [0, 1])
    with pytest.raises(ValueError, match="name"):
        pb.matrix_symbols("1W", 2, 2)
    with pytest.raises(ValueError, match="rows"):
        pb.matrix_symbols("W", 0, 2)


def test_linear_angles_cover_every_design():
    # the general proof at other sizes, and its builder reduces to the designs it stands for
    assert simplifies_to_zero(pb.linear_angles_relative(planes=4, axes=2))
    assert simplifies_to_zero(pb.linear_angles_relative(planes=2, axes=1))
    assert not simplifies_to_zero(pb.wrong_linear_angles_one_axis(planes=2, axes=2))
    m = sympy.Symbol("m", real=True)
    thetas = [sympy.Symbol(f"theta_{i}", real=True) for i in range(3)]
    one_axis = pb.linear_angle_rotation([m], sympy.Matrix(thetas))
    assert simplifies_to_zero(one_axis - symbolic_rotation(m, 6, "interleaved", thetas))
    axes = [int(a) for a in plane_axes("sections", 8, [1, 2, 1])]
    omega = sympy.zeros(4, 3)
    values = [1.0, 0.3, 0.05, 0.01]
    for i, (axis, theta) in enumerate(zip(axes, values, strict=True)):
        omega[i, axis] = theta
    position = [2.0, 5.0, 7.0]
    general = pb.linear_angle_rotation(position, omega)
    multiaxis = pb.symbolic_multiaxis_rotation(position, axes, "interleaved", values)
    np.testing.assert_allclose(
        np.array(general.evalf(), dtype=float),
        np.array(multiaxis.evalf(), dtype=float),
        atol=1e-12,
    )


def test_linear_angles_bad_inputs():
    with pytest.raises(ValueError, match="one column per position"):
        pb.linear_angle_rotation([sympy.Symbol("p")], sympy.zeros(2, 2))
    with pytest.raises(ValueError, match="planes"):
        pb.linear_angles_relative(planes=0)
    with pytest.raises(ValueError, match="axes"):
        pb.wrong_linear_angles_one_axis(axes=1)
