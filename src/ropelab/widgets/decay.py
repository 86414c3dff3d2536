r"""The long-range decay explorer of chapter 5: base, dimension and maximum distance sliders.

Three layers, so that each can be tested (and ported) on its own:

* :func:`decay_data` -- a pure function of the three slider values that returns the numbers
  drawn: the distances, the score of :math:`q = k = \mathbf 1` and RoFormer's relative upper
  bound. A browser version of the widget is to reproduce exactly this computation.
* :func:`plot_decay` -- the figure drawn from :func:`decay_data`; the book shows its default
  state as a static figure.
* :func:`decay_widget` -- the sliders (clamped to the valid ranges) and the output area.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ..decay import ones_score, relative_upper_bound
from ..plots.style import KEY, NEUTRAL, QUERY, new_figure

__all__ = [
    "BASE_RANGE",
    "DEFAULTS",
    "DIM_RANGE",
    "MAX_DISTANCE_RANGE",
    "NUM_DISTANCES",
    "clamp_params",
    "decay_data",
    "decay_distances",
    "decay_widget",
    "plot_decay",
]

#: Slider ranges (inclusive). The base and the maximum distance move on a log scale.
BASE_RANGE = (1.0, 1e7)
DIM_RANGE = (2, 256)
MAX_DISTANCE_RANGE = (16, 65536)
#: How many log-spaced distances :func:`decay_distances` asks for before duplicates go.
NUM_DISTANCES = 2048
#: The state the widget opens in (and the static figure of the book shows).
DEFAULTS = {"dim": 128, "base": 10000.0, "max_distance": 65536}


def clamp_params(dim: Any, base: Any, max_distance: Any) -> tuple[int, float, int]:
    """Move any slider values into the valid ranges: the widget never passes invalid input.

    ``dim`` goes to the nearest even integer in ``DIM_RANGE``, ``base`` is clipped to
    ``BASE_RANGE`` and ``max_distance`` is rounded and clipped to ``MAX_DISTANCE_RANGE``.
    Non-finite values go to the default.
    """
    dim_f = float(dim) if math.isfinite(float(dim)) else DEFAULTS["dim"]
    dim_i = 2 * round(dim_f / 2)
    dim_i = int(min(max(dim_i, DIM_RANGE[0]), DIM_RANGE[1]))
    base_f = float(base) if math.isfinite(float(base)) else DEFAULTS["base"]
    base_f = float(min(max(base_f, BASE_RANGE[0]), BASE_RANGE[1]))
    dist_f = float(max_distance) if math.isfinite(float(max_distance)) else DEFAULTS["max_distance"]
    dist_i = int(min(max(round(dist_f), MAX_DISTANCE_RANGE[0]), MAX_DISTANCE_RANGE[1]))
    return dim_i, base_f, dist_i


def decay_distances(max_distance: int, num: int = NUM_DISTANCES) -> np.ndarray:
    r"""The integer distances the explorer evaluates: log-spaced from 1 to ``max_distance``.

    .. math:: r_k = \big\lfloor M^{k/(N-1)} + \tfrac12 \big\rfloor, \qquad k = 0, \dots, N-1,

    with :math:`M` = ``max_distance`` and :math:`N` = ``num``; duplicates are removed (so every
    integer up to about :math:`N/\ln M` is present), and the result is sorted, starts at 1 and
    ends at :math:`M`.
    """
    max_distance = _check_int_range(max_distance, "max_distance", *MAX_DISTANCE_RANGE)
    k = np.arange(num, dtype=np.float64)
    raw = np.floor(float(max_distance) ** (k / (num - 1)) + 0.5)
    raw[-1] = max_distance
    return np.unique(raw.astype(np.int64))


def _check_int_range(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer | float | np.floating):
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {value!r}")
    if not float(value).is_integer() or not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {value!r}")
    return int(value)


def decay_data(dim: int, base: float, max_distance: int) -> dict[str, Any]:
    r"""Everything the decay explorer draws, as a pure function of its three sliders (chapter 5).

    * ``distances``: :func:`decay_distances` ``(max_distance)``, integers from 1 to
      ``max_distance``;
    * ``ones_score``: :math:`s(r) = \sum_{i=0}^{d/2-1} 2\cos(r\theta_i)`, the score of
      :math:`q = k = \mathbf 1` (:func:`ropelab.decay.ones_score`);
    * ``relative_upper_bound``: :math:`\frac{1}{d/2}\sum_{j=1}^{d/2}\big|\sum_{k<j}
      e^{\mathrm i r\theta_k}\big|`, RoFormer's bound divided by its constant (section 3.4.3,
      :func:`ropelab.decay.relative_upper_bound`);

    with :math:`\theta_i = \beta^{-2i/d}`. The inputs come back as ``dim``, ``base`` and
    ``max_distance``.

    Args:
        dim: even integer in ``DIM_RANGE`` (2 to 256).
        base: real number in ``BASE_RANGE`` (1 to 1e7).
        max_distance: integer in ``MAX_DISTANCE_RANGE`` (16 to 65536).

    Raises:
        ValueError: naming the argument and its range when a value is outside it.
    """
    dim = _check_int_range(dim, "dim", *DIM_RANGE)
    if dim % 2:
        raise ValueError(f"dim must be an even integer in [2, 256], got {dim}")
    if isinstance(base, bool) or not isinstance(base, int | float | np.integer | np.floating):
        raise ValueError(f"base must be a real number in [1, 1e7], got {base!r}")
    base = float(base)
    if not BASE_RANGE[0] <= base <= BASE_RANGE[1]:
        raise ValueError(f"base must be a real number in [1, 1e7], got {base!r}")
    distances = decay_distances(max_distance)
    return {
        "dim": dim,
        "base": base,
        "max_distance": int(max_distance),
        "distances": distances,
        "ones_score": ones_score(distances, dim, base),
        "relative_upper_bound": relative_upper_bound(distances, dim, base),
    }


def plot_decay(
    dim: int = DEFAULTS["dim"],
    base: float = DEFAULTS["base"],
    max_distance: int = DEFAULTS["max_distance"],
) -> Figure:
    r"""The explorer's figure: :func:`decay_data` drawn on a logarithmic distance axis.

    Left, the ones score with the band :math:`\pm\sqrt d` (the level of the score once the
    phases :math:`r\theta_i` have spread); right, the relative upper bound, which starts at
    :math:`(d/2 + 1)/2` at :math:`r = 0`. Chapter 5.
    """
    return _draw(decay_data(dim, base, max_distance))


def _format_base(base: float) -> str:
    """``10,000`` for large bases, ``3.98`` for small ones."""
    return f"{base:,.0f}" if base >= 100 else f"{base:.3g}"


def _draw(data: dict[str, Any]) -> Figure:
    """Draw the output of :func:`decay_data` (see :func:`plot_decay`)."""
    r = data["distances"]
    fig, (left, right) = new_figure(2)
    floor = math.sqrt(data["dim"])
    left.axhspan(-floor, floor, color=NEUTRAL, alpha=0.25, lw=0, label=r"$\pm\sqrt{d}$")
    left.plot(r, data["ones_score"], color=QUERY, lw=0.6, label=r"$s(r)$")
    left.axhline(0.0, color=NEUTRAL, lw=0.6)
    left.set_ylim(-1.05 * data["dim"], 1.05 * data["dim"])
    left.set_ylabel(r"score $s(r)$ of $q = k = \mathbf{1}$")
    left.set_title("ones score")
    left.legend(fontsize=8, loc="lower left")
    right.plot(r, data["relative_upper_bound"], color=KEY, lw=0.8)
    right.set_ylim(0, 1.05 * (data["dim"] // 2 + 1) / 2)
    right.set_ylabel("relative upper bound")
    right.set_title(r"RoFormer's relative upper bound $\frac{1}{d/2}\sum_j |S_j|$", fontsize=10)
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_xlim(1, data["max_distance"])
        ax.set_xlabel("distance $r$ (log scale)")
    fig.suptitle(
        f"d = {data['dim']}, base = {_format_base(data['base'])}, r up to {data['max_distance']:,}"
    )
    return fig


def decay_widget() -> Any:
    """Sliders for base (log, 1 to 1e7), dimension (even, 2 to 256) and maximum distance
    (powers of two, 16 to 65536), redrawing :func:`plot_decay` on every change (chapter 5).

    Every value a slider can reach is valid input, and :func:`clamp_params` guards the
    callback as well. Returns an ``ipywidgets.VBox``; its attribute ``data`` holds the
    :func:`decay_data` of the current figure.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    style = {"description_width": "initial"}
    base = widgets.FloatLogSlider(
        value=DEFAULTS["base"],
        base=10,
        min=math.log10(BASE_RANGE[0]),
        max=math.log10(BASE_RANGE[1]),
        step=0.1,
        readout_format=".3g",
        description="base β",
        style=style,
        continuous_update=False,
    )
    dim = widgets.IntSlider(
        value=DEFAULTS["dim"],
        min=DIM_RANGE[0],
        max=DIM_RANGE[1],
        step=2,
        description="head dim d",
        style=style,
        continuous_update=False,
    )
    max_distance = widgets.FloatLogSlider(
        value=DEFAULTS["max_distance"],
        base=2,
        min=math.log2(MAX_DISTANCE_RANGE[0]),
        max=math.log2(MAX_DISTANCE_RANGE[1]),
        step=1,
        readout_format=",.0f",
        description="max distance",
        style=style,
        continuous_update=False,
    )
    out = widgets.Output()
    box = widgets.VBox([widgets.HBox([base, dim, max_distance]), out])

    def redraw(_change: Any = None) -> None:
        d, b, m = clamp_params(dim.value, base.value, max_distance.value)
        box.data = decay_data(d, b, m)
        with out:
            out.clear_output(wait=True)
            fig = _draw(box.data)
            display(fig)
            plt.close(fig)

    for slider in (base, dim, max_distance):
        slider.observe(redraw, names="value")
    redraw()
    return box
