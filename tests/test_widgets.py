"""ropelab.widgets.live_widget: the live ipywidget of every interactive figure, from its spec.

For every figure: one widget per control with the spec's range, step and starting value; moving
any control to either end of its range redraws with exactly the spec's data for the values the
widget holds; a T_tune slider's lower end follows T_train.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pytest

from ropelab.interactive import FIGURES, figure_spec
from ropelab.widgets import live_widget

KINDS = [k for k in FIGURES if k != "lab"]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def same_data(a: dict, b: dict) -> bool:
    if set(a) != set(b):
        return False
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, dict):
            if not same_data(x, y):
                return False
        elif isinstance(x, str | type(None)):
            if x != y:
                return False
        elif not np.array_equal(np.asarray(x), np.asarray(y)):
            return False
    return True


@pytest.mark.parametrize("kind", KINDS)
def test_controls_follow_the_spec(kind):
    spec = figure_spec(kind)
    box = live_widget(kind)
    assert list(box.controls) == list(spec.names)
    for control in spec.controls:
        w = box.controls[control.name]
        assert w.description == control.label
        if control.is_choice:
            assert list(w.options) == list(control.options)
            continue
        if control.scale == "log":
            assert isinstance(w, widgets.FloatLogSlider) and w.base == control.log_base
            assert w.max == pytest.approx(math.log(control.high, control.log_base))
            if control.at_least is None:
                assert w.min == pytest.approx(math.log(control.low, control.log_base))
        else:
            assert w.max == control.high
            if control.at_least is None:
                assert w.min == control.low
            else:  # the lower end follows the control it names
                assert w.min == box.controls[control.at_least].value
        assert w.step == control.step
        assert w.value == pytest.approx(control.default)
    assert same_data(box.data, spec.compute())


@pytest.mark.parametrize("kind", KINDS)
def test_every_control_at_either_end_redraws_with_the_spec_data(kind):
    spec = figure_spec(kind)
    box = live_widget(kind)
    for control in spec.controls:
        w = box.controls[control.name]
        ends = control.options if control.is_choice else (w.max, w.min)
        for end in ends:
            if control.scale == "log" and not control.is_choice:
                w.value = control.log_base**end
            else:
                w.value = end
            values = {name: c.value for name, c in box.controls.items()}
            assert same_data(box.data, spec.compute(**values)), f"{kind}.{control.name}={end}"


def test_starting_values_are_clamped():
    box = live_widget("spectrum", dim=7, base=float("nan"), train_len=1e9)
    assert box.controls["dim"].value == 8
    assert box.controls["base"].value == pytest.approx(500000.0)
    assert box.controls["train_len"].value == pytest.approx(131072.0)
    names = ", ".join(figure_spec("spectrum").names)
    with pytest.raises(ValueError, match=f"takes the parameters {names}"):
        live_widget("spectrum", width=3)


def test_the_tune_slider_follows_the_training_length():
    box = live_widget("calculator")
    box.controls["train_len"].value = 65536
    tune = box.controls["tune_len"]
    assert tune.min == pytest.approx(16.0)
    assert tune.value >= 65536 and box.data["tune_len"] >= box.data["train_len"]
