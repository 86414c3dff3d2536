"""ropelab.widgets.blocks: the sliders' ranges and the drawing function (chapter 3)."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from ropelab.widgets.blocks import (
    BASE_RANGE,
    DEFAULTS,
    DIM_RANGE,
    POSITION_RANGE,
    block_matrix_widget,
    clamp,
    draw_block_matrix,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def reference_matrix(m: float, dim: int, base: float, layout: str) -> np.ndarray:
    """R^d_{Θ,m} entry by entry, with θ_i = base^(-2i/d)."""
    matrix = np.zeros((dim, dim))
    for i in range(dim // 2):
        a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + dim // 2)
        phi = m * base ** (-2.0 * i / dim)
        matrix[a, a] = matrix[b, b] = math.cos(phi)
        matrix[a, b], matrix[b, a] = -math.sin(phi), math.sin(phi)
    return matrix


def controls(widget) -> dict:
    return {child.description: child for child in widget.children[:-1]}


def test_sliders_cover_exactly_the_valid_ranges():
    widget = block_matrix_widget()
    c = controls(widget)
    dim, base, position, layout = c["dim d"], c["base β"], c["position m"], c["layout"]
    assert (dim.min, dim.max, dim.step, dim.value) == (2, 64, 2, DEFAULTS["dim"])
    assert 10**base.min == pytest.approx(BASE_RANGE[0]) and 10**base.max == pytest.approx(1e6)
    assert base.value == pytest.approx(DEFAULTS["base"])
    assert (position.min, position.max, position.step) == (0, 4096, 1)
    assert list(layout.options) == ["interleaved", "half"]
    # every reachable value is valid input, and clamp leaves it alone
    for d in range(dim.min, dim.max + 1, dim.step):
        assert clamp(d, 10.0, 0)[0] == d
    exponents = np.arange(base.min, base.max + 1e-9, base.step)
    for value in 10.0**exponents:
        assert BASE_RANGE[0] * (1 - 1e-12) <= value <= BASE_RANGE[1] * (1 + 1e-12)
        assert clamp(2, value, 0)[1] == pytest.approx(value)
    assert widget.kwargs == DEFAULTS


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ((1, 1.0, -5), (2, 2.0, 0)),
        ((65, 1e9, 10_000), (64, 1e6, 4096)),
        ((7, 300.0, 12.6), (6, 300.0, 13)),
        ((16, 10000.0, 2), (16, 10000.0, 2)),
    ],
)
def test_clamp(given, expected):
    assert clamp(*given) == expected
    assert DIM_RANGE == (2, 64) and POSITION_RANGE == (0, 4096)


@pytest.mark.parametrize(
    ("dim", "base", "position", "layout"),
    [
        (16, 10000.0, 2, "interleaved"),
        (64, 1e6, 4096, "half"),
        (2, 2.0, 0, "half"),
        (10, 50.0, 7, "interleaved"),
    ],
)
def test_drawing_is_the_matrix(dim, base, position, layout):
    fig = draw_block_matrix(dim, base, position, layout)
    image = fig.axes[0].images[0].get_array()
    np.testing.assert_allclose(image, reference_matrix(position, dim, base, layout), atol=1e-12)


def test_drawing_clamps_out_of_range_values():
    fig = draw_block_matrix(100, 0.5, -3, "half")
    image = fig.axes[0].images[0].get_array()
    np.testing.assert_allclose(image, reference_matrix(0, 64, 2.0, "half"), atol=1e-12)
    with pytest.raises(ValueError, match="layout"):
        draw_block_matrix(8, 10.0, 1, "diagonal")
