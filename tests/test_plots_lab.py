"""ropelab.plots.lab (chapter 7): the figures draw exactly the committed results, and the
predicted curve is Theorem 2's formula computed here by hand."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.colors import to_rgba

from ropelab.lab.results import load_results, model_names, model_record
from ropelab.plots import lab as P


@pytest.fixture(scope="module")
def results():
    return load_results()


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_loss_curve_and_predicted_bound(results):
    r = model_record(results, "ft-1e6")
    context, loss, sem = P.loss_curve(r)
    assert context.shape == loss.shape == sem.shape == (2048 // 16,)
    assert context[0] == pytest.approx(8.5)  # mean of context lengths 1..16
    np.testing.assert_array_equal(loss, r["loss_curve"]["loss"])
    assert P.predicted_bound(r) == pytest.approx(2 * math.pi * 1e6 ** (12 / 32))
    assert P.predicted_bound(model_record(results, "ft-16")) is None


def test_colours_follow_the_base(results):
    colours = P.model_colours(results)
    assert set(colours) == set(model_names(results))
    assert colours["pretrain"] == "black"
    assert colours["ft-1e6"] == colours["ft-1e6-T256"]  # same base, same colour
    assert colours["ft-1e4"] == colours["ablate-1e4"]
    assert len({to_rgba(colours[n]) for n in ("ft-16", "ft-500", "ft-1e5", "ft-1e7")}) == 4


def test_plot_loss_curves_draws_the_data(results):
    names = ["pretrain", "ft-1e5", "ft-1e6"]
    fig = P.plot_loss_curves(results, names)
    ax = fig.axes[0]
    curves = [line for line in ax.get_lines() if len(line.get_xdata()) > 2]
    assert len(curves) == 3
    for line, name in zip(curves, names, strict=True):
        context, loss, _ = P.loss_curve(model_record(results, name))
        np.testing.assert_array_equal(line.get_xdata(), context)
        np.testing.assert_array_equal(line.get_ydata(), loss)
    vertical = sorted(
        line.get_xdata()[0]
        for line in ax.get_lines()
        if len(line.get_xdata()) == 2 and line.get_xdata()[0] == line.get_xdata()[1]
    )
    expected = [128.0, 2 * math.pi * 1e5**0.375, 2 * math.pi * 1e6**0.375]
    np.testing.assert_allclose(vertical, expected)  # the predicted bounds, all within 2048
    dots = [line for line in ax.get_lines() if len(line.get_xdata()) == 1]
    measured = [
        model_record(results, n)["measured"]["supported_length"]
        for n in names
        if model_record(results, n)["measured"]["supported_length"] is not None
    ]
    assert sorted(d.get_xdata()[0] for d in dots) == sorted(measured)
    assert ax.get_xlim() == (0.0, 2048.0)


def test_plot_loss_curves_options_and_errors(results):
    fig = P.plot_loss_curves(results, ["ft-16"], ylim=(0.5, 3.0), log_x=True, title="t")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_ylim() == (0.5, 3.0) and ax.get_title() == "t"
    with pytest.raises(ValueError, match="name must be one of"):
        P.plot_loss_curves(results, ["nope"])
    with pytest.raises(ValueError, match="at least one"):
        P.plot_loss_curves(results, [])


def test_plot_supported_vs_predicted(results):
    fig = P.plot_supported_vs_predicted(results)
    ax = fig.axes[0]
    theorem2 = ax.get_lines()[0]
    x, y = theorem2.get_xdata(), theorem2.get_ydata()
    assert x[0] == pytest.approx(1e4) and np.all(np.diff(x) > 0)
    np.testing.assert_allclose(y, 2 * math.pi * x ** (12 / 32), rtol=1e-12)
    small = ax.get_lines()[1]
    np.testing.assert_allclose(small.get_xdata(), [128 / (2 * math.pi), 1e4])
    np.testing.assert_allclose(small.get_ydata(), [128, 128])
    markers = {
        (float(line.get_xdata()[0]), float(line.get_ydata()[0]))
        for line in ax.get_lines()
        if len(line.get_xdata()) == 1
    }
    for r in results["models"]:
        m = r["measured"]
        length = m["supported_length"] if m["supported_length"] is not None else m["at_least"]
        assert (float(r["base"]), float(length)) in markers
    arrows = [t for t in ax.texts if getattr(t, "arrow_patch", None) is not None]
    n_censored = sum(r["measured"]["censored"] for r in results["models"])
    assert len(arrows) == n_censored
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"


def test_plot_qk_split_draws_every_layer(results):
    fig = P.plot_qk_split(results, "pretrain")
    visible = [ax for ax in fig.axes if ax.get_visible()]
    layers = model_record(results, "pretrain")["qk_split"]["layers"]
    assert len(visible) == len(layers) == 4
    for ax, layer in zip(visible, layers, strict=True):
        first, rest = (line for line in ax.get_lines() if len(line.get_xdata()) > 2)
        np.testing.assert_array_equal(first.get_ydata(), layer["first_d_extra"]["head_mean_curve"])
        np.testing.assert_array_equal(rest.get_ydata(), layer["rest"]["head_mean_curve"])
        np.testing.assert_array_equal(first.get_xdata(), layer["context"])
    # the ablation keeps only the first d_extra dims: the rest is exactly zero
    fig = P.plot_qk_split(results, "ablate-1e4")
    for ax in fig.axes:
        if ax.get_visible():
            rest = [line for line in ax.get_lines() if len(line.get_xdata()) > 2][1]
            assert np.all(rest.get_ydata() == 0.0)
