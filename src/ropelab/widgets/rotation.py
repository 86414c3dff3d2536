r"""Chapter 1's widget: move the query and the key, and watch the score stay put.

Sliders set the query position *m*, the key position *n*, the frequency :math:`\theta` and a
shift *s* applied to both positions. The picture (:func:`relative_rotation_view`) shows
:math:`q, k`, the rotated :math:`R_m q, R_n k` and the shifted :math:`R_{m+s}q, R_{n+s}k`, and
the readout compares :math:`\text{score}(m, n)` with :math:`\text{score}(m+s, n+s)` and with
:math:`q^\top R_{n-m}k` (RoFormer eq. 16 with *d* = 2).

The drawing is the plain function :func:`relative_rotation_view` of the slider values, which
the tests call directly; :func:`relative_rotation_widget` only wires sliders to it. Every
value a slider can reach is a valid input of that function.
"""

from __future__ import annotations

import math
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display
from matplotlib.figure import Figure

from ..plots.rotation import (
    as_vector_2d,
    plot_relative_rotation,
    relative_score_2d,
    rope_score_2d,
)

__all__ = [
    "DEFAULTS",
    "DEFAULT_K",
    "DEFAULT_Q",
    "POSITION_MAX",
    "THETA_MAX",
    "THETA_MIN",
    "THETA_STEP",
    "relative_rotation_readout",
    "relative_rotation_view",
    "relative_rotation_widget",
]

#: Largest position (and shift) a slider reaches; positions start at 0.
POSITION_MAX = 64
#: The frequency slider covers (0, π]: from THETA_MIN to THETA_MAX in steps of THETA_STEP.
THETA_MIN = 0.01
THETA_MAX = 3.14
THETA_STEP = 0.01
#: The query and key before rotation (2D vectors) and the sliders' starting values.
DEFAULT_Q = (1.0, 0.4)
DEFAULT_K = (0.6, 0.9)
DEFAULTS: dict[str, Any] = {"m": 2, "n": 5, "theta": 0.5, "shift": 3}


def _check_position(value: Any, name: str) -> int:
    """An integer in ``[0, POSITION_MAX]`` (a float such as 3.0 is accepted)."""
    number = isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool
    )
    if not number or not math.isfinite(value) or not float(value).is_integer():
        raise ValueError(f"{name} must be an integer between 0 and {POSITION_MAX}, got {value!r}")
    if not 0 <= value <= POSITION_MAX:
        raise ValueError(f"{name} must be an integer between 0 and {POSITION_MAX}, got {value!r}")
    return int(value)


def _check_theta(value: Any) -> float:
    """A frequency in (0, π]."""
    number = isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool
    )
    if not number or not math.isfinite(value) or not 0.0 < value <= math.pi:
        raise ValueError(f"theta must be a real number in (0, pi], got {value!r}")
    return float(value)


def relative_rotation_readout(
    m: int, n: int, theta: float, shift: int, q: Any = DEFAULT_Q, k: Any = DEFAULT_K
) -> str:
    r"""The numbers behind the widget, as fixed-precision text (chapter 1).

    Lists :math:`(R_m q)^\top(R_n k)`, :math:`(R_{m+s} q)^\top(R_{n+s} k)`,
    :math:`q^\top R_{n-m} k` (all equal: RoFormer eq. 16) and, for contrast,
    :math:`(R_m q)^\top(R_{n+s} k)` where only the key moved.
    """
    m, n, shift = _check_position(m, "m"), _check_position(n, "n"), _check_position(shift, "shift")
    theta = _check_theta(theta)
    qv, kv = as_vector_2d(q, "q"), as_vector_2d(k, "k")
    score = float(rope_score_2d(qv, kv, m, n, theta))
    shifted = float(rope_score_2d(qv, kv, m + shift, n + shift, theta))
    relative = float(relative_score_2d(qv, kv, n - m, theta))
    key_only = float(rope_score_2d(qv, kv, m, n + shift, theta))
    same = abs(score - shifted) < 1e-12
    lines = [
        f"m = {m}, n = {n}, θ = {theta:.2f} rad, shift s = {shift}",
        f"score(m, n)         (R_m q)·(R_n k)          = {score:+.6f}",
        f"score(m + s, n + s) (R_m+s q)·(R_n+s k)      = {shifted:+.6f}",
        f"relative form       qᵀ R_(n−m) k, n − m = {n - m:+d} = {relative:+.6f}",
        f"key moved alone     (R_m q)·(R_n+s k)        = {key_only:+.6f}",
        f"score(m, n) = score(m + s, n + s) to 1e-12: {same}",
    ]
    return "\n".join(lines)


def relative_rotation_view(
    m: int, n: int, theta: float, shift: int, q: Any = DEFAULT_Q, k: Any = DEFAULT_K
) -> tuple[Figure, str]:
    r"""The widget's picture and readout for one setting of the sliders (chapter 1).

    Args:
        m, n: positions of the query and the key, integers in ``[0, POSITION_MAX]``.
        theta: the frequency :math:`\theta`, in (0, π] radians per position.
        shift: the shift *s* added to both positions, an integer in ``[0, POSITION_MAX]``.
        q, k: the query and the key before rotation (2D vectors).

    Returns:
        The figure of :func:`ropelab.plots.rotation.plot_relative_rotation` and the text of
        :func:`relative_rotation_readout`.
    """
    text = relative_rotation_readout(m, n, theta, shift, q, k)
    fig = plot_relative_rotation(
        q, k, int(m), int(n), float(theta), int(shift), max_shift=POSITION_MAX
    )
    return fig, text


def relative_rotation_widget(q: Any = DEFAULT_Q, k: Any = DEFAULT_K) -> widgets.VBox:
    """Sliders for *m*, *n*, θ and the shift *s*, redrawing :func:`relative_rotation_view`.

    Needs a running kernel (Jupyter, Colab, Binder); on a static page it shows the sliders
    without a picture.
    """
    qv, kv = as_vector_2d(q, "q"), as_vector_2d(k, "k")
    style = {"description_width": "initial"}
    layout = widgets.Layout(width="48%")
    sliders = {
        "m": widgets.IntSlider(
            value=DEFAULTS["m"], min=0, max=POSITION_MAX, description="query position m",
            style=style, layout=layout, continuous_update=False,
        ),
        "n": widgets.IntSlider(
            value=DEFAULTS["n"], min=0, max=POSITION_MAX, description="key position n",
            style=style, layout=layout, continuous_update=False,
        ),
        "theta": widgets.FloatSlider(
            value=DEFAULTS["theta"], min=THETA_MIN, max=THETA_MAX, step=THETA_STEP,
            description="θ (rad per position)", readout_format=".2f",
            style=style, layout=layout, continuous_update=False,
        ),
        "shift": widgets.IntSlider(
            value=DEFAULTS["shift"], min=0, max=POSITION_MAX, description="shift s (both)",
            style=style, layout=layout, continuous_update=False,
        ),
    }  # fmt: skip
    output = widgets.Output()

    def redraw(_: Any = None) -> None:
        values = {name: slider.value for name, slider in sliders.items()}
        fig, text = relative_rotation_view(q=qv, k=kv, **values)
        with output:
            output.clear_output(wait=True)
            print(text)
            display(fig)
        plt.close(fig)

    for slider in sliders.values():
        slider.observe(redraw, names="value")
    redraw()
    controls = widgets.VBox(
        [
            widgets.HBox([sliders["m"], sliders["n"]]),
            widgets.HBox([sliders["theta"], sliders["shift"]]),
        ]
    )
    box = widgets.VBox([controls, output])
    box.sliders = sliders  # for tests and for readers who want to drive it from code
    return box
