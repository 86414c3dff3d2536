"""ropelab.plots.lab (chapter 7): the figures draw exactly the committed results, the predicted
curve is Theorem 2's formula computed here by hand, and the error bars span every seed."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.colors import to_rgba

from ropelab.lab.results import (
    baseline_names,
    load_results,
    model_names,
    model_record,
    replicate_records,
    testtime_records,
)
from ropelab.plots import lab as P


@pytest.fixture(scope="module")
def results():
    return load_results()


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def lengths(results, name):
    out = []
    for r in replicate_records(results, name):
        m = r["measured"]
        out.append(m["supported_length"] if m["supported_length"] is not None else m["at_least"])
    return out


def test_loss_curve_and_predicted_bound(results):
    r = model_record(results, "ft-1e6")
    context, loss, sem = P.loss_curve(r)
    eval_len = results["meta"]["plan"]["eval_len"]
    assert context.shape == loss.shape == sem.shape == (eval_len // 16,)
    assert context[0] == pytest.approx(8.5)  # mean of context lengths 1..16
    np.testing.assert_array_equal(loss, r["loss_curve"]["loss"])
    assert P.predicted_bound(r) == pytest.approx(2 * math.pi * 1e6 ** (12 / 32))
    assert P.predicted_bound(model_record(results, "ft-16")) is None
    assert P.predicted_bound(model_record(results, "ft-500")) is None  # Theorem 1: no bound


def test_colours_follow_the_base(results):
    colours = P.model_colours(results)
    assert set(colours) == {*model_names(results), *baseline_names(results)}
    assert colours["pretrain"] == "black" and colours["nope"] == P.BASELINE_COLOUR
    assert colours["ft-1e6"] == colours["ft-1e6-T256"]  # same base, same colour
    assert colours["ft-1e4"] == colours["ablate-1e4"]
    assert len({to_rgba(colours[n]) for n in ("ft-16", "ft-500", "ft-1e5", "ft-1e7")}) == 4
    assert P.model_linestyle(model_record(results, "nope")) == "--"


def test_plot_loss_curves_draws_the_data_and_the_seeds(results):
    names = ["pretrain", "ft-1e5", "ft-1e6", "nope"]
    fig = P.plot_loss_curves(results, names)
    ax = fig.axes[0]
    curves = [line for line in ax.get_lines() if len(line.get_xdata()) > 2]
    assert len(curves) == 4
    for line, name in zip(curves, names, strict=True):
        context, loss, _ = P.loss_curve(model_record(results, name))
        np.testing.assert_array_equal(line.get_xdata(), context)
        np.testing.assert_array_equal(line.get_ydata(), loss)
    # one band per model with several seeds, from the lowest to the highest seed's curve
    bands = [c for c in ax.collections if c.get_paths() and len(c.get_paths()[0].vertices) > 10]
    seeded = [n for n in names if len(replicate_records(results, n)) > 1]
    assert len(bands) == len(seeded) == 3
    top = np.max([P.loss_curve(r)[1] for r in replicate_records(results, "ft-1e6")], axis=0)
    band = bands[seeded.index("ft-1e6")].get_paths()[0].vertices
    assert band[:, 1].max() == pytest.approx(top.max())
    vertical = sorted(
        line.get_xdata()[0]
        for line in ax.get_lines()
        if len(line.get_xdata()) == 2 and line.get_xdata()[0] == line.get_xdata()[1]
    )
    expected = [128.0, 2 * math.pi * 1e5**0.375, 2 * math.pi * 1e6**0.375]
    np.testing.assert_allclose(vertical, expected)  # Theorem 3's T_tune, Theorem 2's bounds
    dots = [line for line in ax.get_lines() if len(line.get_xdata()) == 1]
    measured = [
        model_record(results, n)["measured"]["supported_length"]
        for n in names
        if model_record(results, n)["measured"]["supported_length"] is not None
    ]
    assert sorted(d.get_xdata()[0] for d in dots) == sorted(measured)
    assert ax.get_xlim() == (0.0, float(results["meta"]["plan"]["eval_len"]))
    plain = P.plot_loss_curves(results, names, seeds=False).axes[0]
    assert not [c for c in plain.collections if len(c.get_paths()[0].vertices) > 10]


def test_plot_loss_curves_options_and_errors(results):
    fig = P.plot_loss_curves(results, ["ft-16"], ylim=(0.5, 3.0), log_x=True, title="t")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_ylim() == (0.5, 3.0) and ax.get_title() == "t"
    with pytest.raises(ValueError, match="name must be one of"):
        P.plot_loss_curves(results, ["alibi-42"])
    with pytest.raises(ValueError, match="at least one"):
        P.plot_loss_curves(results, [])


def test_plot_supported_vs_predicted(results):
    fig = P.plot_supported_vs_predicted(results)
    ax = fig.axes[0]
    theorem2 = ax.get_lines()[0]
    x, y = theorem2.get_xdata(), theorem2.get_ydata()
    assert x[0] == pytest.approx(1e4) and np.all(np.diff(x) > 0)
    np.testing.assert_allclose(y, 2 * math.pi * x ** (12 / 32), rtol=1e-12)
    control = ax.get_lines()[1]  # Theorem 1: smaller bases beat the control's mean length
    np.testing.assert_allclose(control.get_ydata(), [np.mean(lengths(results, "ft-1e4"))] * 2)
    markers = {
        (float(line.get_xdata()[0]), round(float(line.get_ydata()[0]), 6))
        for line in ax.get_lines()
        if len(line.get_xdata()) == 1
    }
    for r in results["models"]:
        assert (float(r["base"]), round(float(np.mean(lengths(results, r["name"]))), 6)) in (
            markers
        )
    # every seed of a replicated model is a small dot at its base
    seeds = [line for line in ax.get_lines() if line.get_marker() == "." and len(line.get_xdata())]
    assert sorted(len(s.get_xdata()) for s in seeds) == sorted(
        len(replicate_records(results, r["name"]))
        for r in results["models"]
        if len(replicate_records(results, r["name"])) > 1
    )
    nope = [line for line in ax.get_lines() if "nope" in str(line.get_label())]
    assert nope and nope[0].get_ydata()[0] == lengths(results, "nope")[0]
    fit = [line for line in ax.get_lines() if str(line.get_label()).startswith("fit:")]
    bases, values = [], []
    for name in ("ft-1e5", "ft-1e6", "ft-3e6", "ft-1e7"):  # the bases above beta0
        for r in replicate_records(results, name):
            if not r["measured"]["censored"]:
                bases.append(r["base"])
                values.append(r["measured"]["supported_length"])
    slope, intercept = np.polyfit(np.log(bases), np.log(values), 1)
    fx, fy = fit[0].get_xdata(), fit[0].get_ydata()
    np.testing.assert_allclose(fy, np.exp(intercept) * fx**slope, rtol=1e-9)
    assert f"{slope:.3f}" in fit[0].get_label()
    arrows = [t for t in ax.texts if getattr(t, "arrow_patch", None) is not None]
    n_censored = sum(
        any(x["measured"]["censored"] for x in replicate_records(results, r["name"]))
        for r in results["models"]
    )
    assert len(arrows) == n_censored
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"


def test_plot_testtime_draws_every_applicable_method(results):
    models = ["ft-1e5", "ft-1e6", "ft-1e7"]
    fig = P.plot_testtime(results, models)
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 3
    for ax, name in zip(panels, models, strict=True):
        curves = [line for line in ax.get_lines() if len(line.get_xdata()) > 2]
        runs = [r for r in testtime_records(results, name) if r["applicable"]]
        assert len(curves) == 1 + len(runs)
        np.testing.assert_array_equal(
            curves[0].get_ydata(), P.loss_curve(model_record(results, name))[1]
        )
        for line, run in zip(curves[1:], runs, strict=True):
            np.testing.assert_array_equal(line.get_ydata(), run["loss_curve"]["loss"])
            assert to_rgba(line.get_color()) == to_rgba(P.METHOD_STYLES[run["method"]][0])
    one = P.plot_testtime(results, ["ft-16"], methods=["log-train"], ylim=(0.5, 4))
    curves = [line for line in one.axes[0].get_lines() if len(line.get_xdata()) > 2]
    assert len(curves) == 2 and one.axes[0].get_ylim() == (0.5, 4)
    with pytest.raises(ValueError, match="test-time records"):
        P.plot_testtime(results, ["ft-60"])
    with pytest.raises(ValueError, match="at least one"):
        P.plot_testtime(results, [])


def test_plot_qk_split_draws_every_layer(results):
    fig = P.plot_qk_split(results, "pretrain")
    visible = [ax for ax in fig.axes if ax.get_visible()]
    layers = model_record(results, "pretrain")["qk_split"]["layers"]
    assert len(visible) == len(layers) == results["meta"]["plan"]["model"]["n_layer"]
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
