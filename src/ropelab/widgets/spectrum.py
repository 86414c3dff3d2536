r"""The θ_i spectrum explorer of chapter 4: base, dimension and training length on sliders.

* :func:`spectrum_data` -- the numbers behind the picture, a pure function of
  ``(dim, base, train_len)``: the frequencies :math:`\theta_i = \beta^{-2i/d}`, the wavelengths
  :math:`\lambda_i = 2\pi/\theta_i`, which planes complete a full period within
  :math:`T_\text{train}`, and the counts. The figure (:func:`ropelab.plots.spectrum.plot_spectrum_state`)
  draws exactly these arrays, so a port of this function reproduces the widget's numbers.
* :func:`clamp_controls` -- maps any slider reading into the valid ranges below.
* :func:`spectrum_widget` -- the ipywidgets control (needs a running kernel).

Slider ranges: ``dim`` even in ``[2, 256]``, ``base`` in ``[2, 1e7]`` (log slider),
``train_len`` in ``[16, 131072]`` tokens (log slider). Importing this module needs only numpy;
ipywidgets and matplotlib are imported when the widget is built.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import check_dim, check_log_base, check_positive, check_train_len
from ..core import inv_freq
from ..scaling import critical_dim, full_period_planes

__all__ = [
    "BASE_RANGE",
    "DEFAULTS",
    "DIM_RANGE",
    "TRAIN_LEN_RANGE",
    "clamp_controls",
    "spectrum_data",
    "spectrum_widget",
]

#: Inclusive slider ranges.
DIM_RANGE = (2, 256)
BASE_RANGE = (2.0, 1e7)
TRAIN_LEN_RANGE = (16.0, 131072.0)

#: The widget's initial state: Llama 3 (head dimension 128, base 500 000, pre-trained at 8192
#: tokens).
DEFAULTS = {"dim": 128, "base": 500000.0, "train_len": 8192.0}


def spectrum_data(dim: int, base: float, train_len: float) -> dict[str, Any]:
    r"""Every number the spectrum widget shows, for head dimension *d*, base β and :math:`T_\text{train}`.

    .. math::
        \theta_i = \beta^{-2i/d}, \qquad
        \lambda_i = \frac{2\pi}{\theta_i} = 2\pi\beta^{2i/d}, \qquad
        \text{turns}_i = \frac{T_\text{train}}{\lambda_i} = \frac{T_\text{train}\,\theta_i}{2\pi},
        \qquad i = 0, \dots, d/2 - 1.

    Plane *i* completes a full period within the training length when
    :math:`\lambda_i \le T_\text{train}`, equivalently :math:`\theta_i \ge 2\pi/T_\text{train}`
    (Liu et al., *Scaling Laws of RoPE-based Extrapolation*, section 3.2, eq. 12). Since
    :math:`\lambda_i` grows with *i* these planes are a prefix ``0 .. n_full - 1``. Chapter 4
    explains the spectrum; chapter 6 builds the scaling laws on the count.

    Args:
        dim: head dimension *d*, a positive even integer.
        base: β > 1.
        train_len: :math:`T_\text{train}` in tokens, > 2π.

    Returns:
        A dict with

        * ``dim`` (int), ``base`` and ``train_len`` (float): the inputs;
        * ``plane``: int64 array ``0 .. d/2 - 1``;
        * ``theta``: :math:`\theta_i` (radians per token), float64;
        * ``wavelength``: :math:`\lambda_i` (tokens), float64;
        * ``turns``: full turns plane *i* makes within :math:`T_\text{train}`, float64;
        * ``full_period``: bool array, :math:`\lambda_i \le T_\text{train}`;
        * ``theta_threshold``: :math:`2\pi/T_\text{train}`, the smallest frequency that
          completes a period;
        * ``boundary``: :math:`\frac d2\log_\beta\frac{T_\text{train}}{2\pi}`, the plane index
          (as a real number) whose wavelength is exactly :math:`T_\text{train}`: planes
          :math:`i \le` ``boundary`` complete a period;
        * ``n_planes`` (= d/2), ``n_full`` (planes with a full period, from
          :func:`ropelab.scaling.full_period_planes`), ``n_partial`` (= ``n_planes - n_full``);
        * ``critical_dim``: :math:`d_\text{extra} = 2\lceil\frac d2\log_\beta\frac{T_\text{train}}{2\pi}\rceil`
          capped at *d* (:func:`ropelab.scaling.critical_dim`); it equals ``2 * n_full``
          except when :math:`\frac d2\log_\beta\frac{T_\text{train}}{2\pi}` is an integer.
    """
    dim = check_dim(dim)
    base = check_log_base(base)
    train_len = check_train_len(train_len)
    theta = inv_freq(dim, base)
    wavelength = 2.0 * math.pi / theta
    full = wavelength <= train_len
    n_full = full_period_planes(dim, train_len, base)
    return {
        "dim": dim,
        "base": base,
        "train_len": train_len,
        "plane": np.arange(dim // 2, dtype=np.int64),
        "theta": theta,
        "wavelength": wavelength,
        "turns": train_len / wavelength,
        "full_period": full,
        "theta_threshold": 2.0 * math.pi / train_len,
        "boundary": dim / 2 * math.log(train_len / (2.0 * math.pi)) / math.log(base),
        "n_planes": dim // 2,
        "n_full": n_full,
        "n_partial": dim // 2 - n_full,
        "critical_dim": int(critical_dim(dim, train_len, base)),
    }


def clamp_controls(dim: float, base: float, train_len: float) -> tuple[int, float, float]:
    """Bring slider readings into the valid ranges: ``dim`` to the nearest even integer in
    ``[2, 256]``, ``base`` into ``[2, 1e7]``, ``train_len`` into ``[16, 131072]``.

    Every value this returns is valid input for :func:`spectrum_data`. Non-finite readings
    raise ``ValueError`` (a slider never produces them).
    """
    dim = check_positive(dim, "dim", minimum=-math.inf)
    base = check_positive(base, "base", minimum=-math.inf)
    train_len = check_positive(train_len, "train_len", minimum=-math.inf)
    even = 2 * round(dim / 2)
    even = min(max(even, DIM_RANGE[0]), DIM_RANGE[1])
    base = min(max(base, BASE_RANGE[0]), BASE_RANGE[1])
    train_len = min(max(train_len, TRAIN_LEN_RANGE[0]), TRAIN_LEN_RANGE[1])
    return int(even), float(base), float(train_len)


def spectrum_widget(
    dim: int = DEFAULTS["dim"],
    base: float = DEFAULTS["base"],
    train_len: float = DEFAULTS["train_len"],
) -> Any:
    r"""Sliders for *d*, β and :math:`T_\text{train}` that redraw the spectrum and the period chart.

    Each change calls :func:`ropelab.plots.spectrum.plot_spectrum_state` on the clamped values
    (:func:`clamp_controls`). The base and length sliders are logarithmic: β from 2 to
    :math:`10^7`, :math:`T_\text{train}` from 16 to 131072 tokens in steps of :math:`\sqrt 2`.
    Chapter 4. Needs a running kernel (Jupyter, Colab, Binder).

    Returns:
        An ``ipywidgets.interactive`` box (sliders plus the figure).
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from ..plots.spectrum import plot_spectrum_state

    dim, base, train_len = clamp_controls(dim, base, train_len)
    layout = widgets.Layout(width="95%")
    style = {"description_width": "150px"}
    dim_slider = widgets.IntSlider(
        value=dim,
        min=DIM_RANGE[0],
        max=DIM_RANGE[1],
        step=2,
        description="head dim d",
        continuous_update=False,
        layout=layout,
        style=style,
    )
    base_slider = widgets.FloatLogSlider(
        value=base,
        base=10.0,
        min=math.log10(BASE_RANGE[0]),
        max=math.log10(BASE_RANGE[1]),
        step=0.01,
        description="base β",
        readout_format=",.0f",
        continuous_update=False,
        layout=layout,
        style=style,
    )
    length_slider = widgets.FloatLogSlider(
        value=train_len,
        base=2.0,
        min=math.log2(TRAIN_LEN_RANGE[0]),
        max=math.log2(TRAIN_LEN_RANGE[1]),
        step=0.5,
        description="T_train (tokens)",
        readout_format=",.0f",
        continuous_update=False,
        layout=layout,
        style=style,
    )

    def redraw(dim: int, base: float, train_len: float) -> None:
        plot_spectrum_state(*clamp_controls(dim, base, train_len))
        plt.show()

    return widgets.interactive(redraw, dim=dim_slider, base=base_slider, train_len=length_slider)
