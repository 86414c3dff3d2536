r"""Chapter 3's widget: the block-diagonal rotation :math:`R^d_{\Theta,m}` at any position.

Sliders for the head dimension *d*, the base :math:`\beta` and the position *m*, and a toggle
between the interleaved and the half-split layout; the heatmap is
:func:`ropelab.plots.blocks.plot_rotation_matrix`. The drawing is the plain function
:func:`draw_block_matrix`, which the tests call directly; :func:`block_matrix_widget` only
wires it to the controls.

Ranges (every reachable slider value is valid input):

* ``dim``: even, 2 .. 64 in steps of 2;
* ``base``: 2 .. 10^6 on a logarithmic slider;
* ``position``: integer, 0 .. 4096.
"""

from __future__ import annotations

import math
from typing import Any

from matplotlib.figure import Figure

from .._checks import LAYOUTS, check_layout
from ..plots.blocks import plot_rotation_matrix

__all__ = [
    "BASE_RANGE",
    "DEFAULTS",
    "DIM_RANGE",
    "POSITION_RANGE",
    "block_matrix_widget",
    "clamp",
    "draw_block_matrix",
]

DIM_RANGE = (2, 64)
BASE_RANGE = (2.0, 1e6)
POSITION_RANGE = (0, 4096)
DEFAULTS: dict[str, Any] = {"dim": 16, "base": 10000.0, "position": 2, "layout": "interleaved"}


def clamp(dim: Any, base: Any, position: Any) -> tuple[int, float, int]:
    """The slider values moved into their ranges: ``dim`` even in 2..64, ``base`` in
    2..1e6, ``position`` an integer in 0..4096 (an odd ``dim`` is rounded down)."""
    d = int(min(max(int(dim), DIM_RANGE[0]), DIM_RANGE[1]))
    d -= d % 2
    b = float(min(max(float(base), BASE_RANGE[0]), BASE_RANGE[1]))
    if not math.isfinite(b):
        b = DEFAULTS["base"]
    m = int(min(max(round(float(position)), POSITION_RANGE[0]), POSITION_RANGE[1]))
    return d, b, m


def draw_block_matrix(
    dim: int = DEFAULTS["dim"],
    base: float = DEFAULTS["base"],
    position: int = DEFAULTS["position"],
    layout: str = DEFAULTS["layout"],
) -> Figure:
    r"""The heatmap of :math:`R^d_{\Theta,m}` for the slider values (clamped, see :func:`clamp`).

    Entry ``[row, col]`` of the image is entry ``[row, col]`` of
    :func:`ropelab.core.rotation_matrix` at ``position`` with ``dim``, ``base`` and ``layout``;
    planes 0 and 1 are outlined.
    """
    d, b, m = clamp(dim, base, position)
    return plot_rotation_matrix(float(m), d, b, check_layout(layout), outline_planes=2)


def block_matrix_widget() -> Any:
    """The live widget: sliders for ``dim``, ``base``, ``position`` and a layout toggle.

    Needs a running kernel (Jupyter, Colab, Binder); each change redraws
    :func:`draw_block_matrix`. Sliders update on release to keep redraws cheap.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    dim = widgets.IntSlider(
        value=DEFAULTS["dim"],
        min=DIM_RANGE[0],
        max=DIM_RANGE[1],
        step=2,
        description="dim d",
        continuous_update=False,
    )
    base = widgets.FloatLogSlider(
        value=DEFAULTS["base"],
        base=10.0,
        min=math.log10(BASE_RANGE[0]),
        max=math.log10(BASE_RANGE[1]),
        step=0.05,
        description="base β",
        readout_format=".3g",
        continuous_update=False,
    )
    position = widgets.IntSlider(
        value=DEFAULTS["position"],
        min=POSITION_RANGE[0],
        max=POSITION_RANGE[1],
        step=1,
        description="position m",
        continuous_update=False,
    )
    layout = widgets.ToggleButtons(
        options=list(LAYOUTS), value=DEFAULTS["layout"], description="layout"
    )

    def show(dim: int, base: float, position: int, layout: str) -> None:
        draw_block_matrix(dim, base, position, layout)
        plt.show()

    return widgets.interactive(show, dim=dim, base=base, position=position, layout=layout)
