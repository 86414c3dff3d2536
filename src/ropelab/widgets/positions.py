"""Interactive control of chapter 0: the sinusoidal encoding for a chosen length, dimension and base.

The drawing logic is :func:`ropelab.plots.positions.sinusoid_figure`, a plain function of
the slider values; the sliders only allow values that function accepts.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt

from ..plots.positions import sinusoid_figure

__all__ = ["LIMITS", "sinusoid_explorer"]

#: The slider ranges: ``(min, max, step)``; the base slider is logarithmic (exponents of 10).
LIMITS = {
    "length": (2, 1024, 2),
    "dim": (4, 512, 2),
    "log10_base": (1.0, 6.0, 0.1),
}


def _clamp(value: float, low: float, high: float) -> float:
    return min(max(value, low), high)


def sinusoid_explorer(length: int = 100, dim: int = 128, base: float = 10000.0) -> Any:
    r"""Sliders for :func:`~ropelab.plots.positions.sinusoid_figure` (chapter 0).

    ``length`` :math:`L \in [2, 1024]`, ``dim`` :math:`d \in [4, 512]` (even) and ``base``
    :math:`\beta \in [10, 10^6]` on a logarithmic slider. The initial values are clamped to
    these ranges (and ``dim`` rounded down to an even number), so every position of every
    slider is a valid input. The figure redraws when a slider is released.

    Returns:
        an ``ipywidgets.interactive`` widget (display it in a notebook).
    """
    import ipywidgets as widgets

    lo, hi, step = LIMITS["length"]
    length_slider = widgets.IntSlider(
        value=int(_clamp(int(length), lo, hi)),
        min=lo,
        max=hi,
        step=step,
        description="length L",
        continuous_update=False,
    )
    lo, hi, step = LIMITS["dim"]
    dim_slider = widgets.IntSlider(
        value=int(_clamp(int(dim) // 2 * 2, lo, hi)),
        min=lo,
        max=hi,
        step=step,
        description="dim d",
        continuous_update=False,
    )
    lo, hi, step = LIMITS["log10_base"]
    base_slider = widgets.FloatLogSlider(
        value=_clamp(float(base), 10.0**lo, 10.0**hi),
        base=10.0,
        min=lo,
        max=hi,
        step=step,
        description="base",
        continuous_update=False,
        readout_format=".3g",
    )

    def draw(length: int, dim: int, base: float) -> None:
        sinusoid_figure(length, dim, base)
        plt.show()

    return widgets.interactive(draw, length=length_slider, dim=dim_slider, base=base_slider)
