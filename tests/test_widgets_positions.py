"""ropelab.widgets.positions (chapter 0): the sliders only reach valid inputs."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pytest

from ropelab.plots.positions import sinusoid_figure
from ropelab.widgets.positions import LIMITS, sinusoid_explorer


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def sliders(widget) -> dict[str, widgets.Widget]:
    return {child.description: child for child in widget.children[:3]}


def test_defaults_are_the_static_figure_of_the_chapter():
    s = sliders(sinusoid_explorer())
    assert s["length L"].value == 100
    assert s["dim d"].value == 128
    assert s["base"].value == pytest.approx(10000.0)


def test_slider_ranges():
    s = sliders(sinusoid_explorer())
    assert (s["length L"].min, s["length L"].max) == (2, 1024)
    assert (s["dim d"].min, s["dim d"].max, s["dim d"].step) == (4, 512, 2)
    assert (s["base"].min, s["base"].max, s["base"].base) == (1.0, 6.0, 10.0)
    assert LIMITS["dim"][0] % 2 == 0 and LIMITS["dim"][2] % 2 == 0  # every dim is even


def test_initial_values_are_clamped():
    s = sliders(sinusoid_explorer(length=10**6, dim=7, base=1e9))
    assert s["length L"].value == 1024
    assert s["dim d"].value == 6
    assert s["base"].value == pytest.approx(1e6)
    s = sliders(sinusoid_explorer(length=0, dim=0, base=0.5))
    assert (s["length L"].value, s["dim d"].value) == (2, 4)
    assert s["base"].value == pytest.approx(10.0)


@pytest.mark.parametrize(
    ("length", "dim", "base"), [(2, 4, 10.0), (1024, 512, 1e6), (2, 512, 10.0), (1024, 4, 1e6)]
)
def test_every_corner_of_the_sliders_draws(length, dim, base):
    fig = sinusoid_figure(length, dim, base)
    image = np.asarray(fig.axes[0].get_images()[0].get_array())
    assert image.shape == (length, dim)
    assert np.all(np.abs(image) <= 1.0)
    assert image[0, 1] == 1.0  # cos(0)


def test_moving_a_slider_redraws():
    w = sinusoid_explorer()
    s = sliders(w)
    s["dim d"].value = 8
    s["length L"].value = 16
    assert w.kwargs == {"length": 16, "dim": 8, "base": pytest.approx(10000.0)}
