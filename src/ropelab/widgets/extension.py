r"""The scaling-law calculator of chapter 6: head dim, lengths and base in, prediction out.

:func:`calculator_data` is the whole computation, a pure function of four numbers (a later
version of the book ports exactly it to the browser and compares numbers);
:func:`ropelab.plots.extension.plot_calculator` draws its result; :func:`calculator_widget`
wires four clamped sliders to both.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import scaling
from .._checks import check_dim, check_log_base, check_positive, check_train_len
from ..core import wavelengths
from ..rope_config import llama3_bands, yarn_ramp

__all__ = [
    "BASE_RANGE",
    "DIM_RANGE",
    "PRETRAIN_BASE",
    "TRAIN_RANGE",
    "TUNE_MAX",
    "calculator_data",
    "calculator_widget",
    "clamp_inputs",
    "summary_text",
]

#: The calculator's input ranges (inclusive): every value inside is valid input.
DIM_RANGE = (16, 256)
TRAIN_RANGE = (128, 131072)
BASE_RANGE = (2.0, 1e8)
TUNE_MAX = 2**20
#: The pre-training base the scaling laws assume (LLaMA 2's).
PRETRAIN_BASE = 10000.0

_KEPT, _PARTLY, _SCALED = 0, 1, 2


def _bands(dim: int, base: float, original: int) -> dict[str, np.ndarray]:
    """Per plane: 0 kept, 1 partly changed, 2 divided by the factor s, for four methods."""
    planes = dim // 2
    ntk = np.full(planes, _PARTLY)
    ntk[0], ntk[-1] = _KEPT, _SCALED
    weight = yarn_ramp(dim, base, original)
    yarn = np.where(weight <= 0.0, _KEPT, np.where(weight >= 1.0, _SCALED, _PARTLY))
    labels = llama3_bands(dim, base, original)
    llama3 = np.select([labels == "high", labels == "low"], [_KEPT, _SCALED], _PARTLY)
    return {
        "PI": np.full(planes, _SCALED),
        "NTK": ntk,
        "YaRN": yarn.astype(np.int64),
        "Llama 3": llama3.astype(np.int64),
    }


def calculator_data(dim: int, train_len: float, base: float, tune_len: float) -> dict[str, Any]:
    r"""Everything the calculator shows, for one setting (pre-training base 10 000).

    A model pre-trained at :math:`T_\text{train}` with base 10 000 is fine-tuned with base β at
    :math:`T_\text{tune} \ge T_\text{train}`. With :math:`\lambda_i = 2\pi\beta^{2i/d}`:

    * ``d_extra`` :math:`= 2\lceil \frac d2 \log_{10000} \frac{T_\text{train}}{2\pi}\rceil`
      (capped at *d*), ``full_period_planes`` the planes with :math:`2\pi\,10000^{2i/d} \le T_\text{train}`;
    * ``extra_len`` :math:`T_\text{extra} = 2\pi\beta^{d_\text{extra}/d}` (Theorem 2; it is the
      new wavelength of plane :math:`d_\text{extra}/2`);
    * ``critical_base`` :math:`\beta_0 = 10000^{\log_{T_\text{train}/2\pi}(T_\text{tune}/2\pi)}`;
    * ``regime``, ``effective_d_extra`` and ``supported_length`` from Theorem 3
      (:func:`ropelab.scaling.predict`): :math:`T_\text{extra}` above :math:`\beta_0`,
      :math:`T_\text{tune}` at or below it, ``None`` (no hard bound) once every plane completes
      a period within :math:`T_\text{tune}`;
    * ``thresholds``: :math:`(\beta_1, \beta_2, \beta_3) = (2T, T, T/2)/\pi` with
      :math:`T = T_\text{tune}` (Theorem 1);
    * ``bands``: per plane 0 (kept), 1 (partly changed) or 2 (divided by *s*) for PI
      (every plane 2), NTK-aware scaling (plane 0 kept, the last divided by exactly *s*, the
      rest partly), YaRN (ramp weight 0 / between / 1, :func:`ropelab.rope_config.yarn_ramp`)
      and Llama 3 (bands high / medium / low with factors 1 and 4,
      :func:`ropelab.rope_config.llama3_bands`): what each method would change to extend the
      fine-tuned model further, so with base β and original length :math:`T_\text{tune}`
      (rounded to an integer). They do not depend on the factor *s*.

    Source: Liu et al. 2024, "Scaling Laws of RoPE-based Extrapolation", Theorems 1-3.
    Chapter 6.

    Args:
        dim: head dimension *d*, positive and even.
        train_len: :math:`T_\text{train} > 2\pi`.
        base: β after fine-tuning, > 1.
        tune_len: :math:`T_\text{tune} \ge T_\text{train}`.

    Returns:
        A dict with the keys named above plus ``dim``, ``train_len``, ``base``, ``tune_len``,
        ``planes``, ``wavelengths`` (at β) and ``pretrain_wavelengths`` (at 10 000).
    """
    dim = check_dim(dim)
    train_len = check_train_len(train_len)
    base = check_log_base(base)
    tune_len = check_positive(tune_len, "tune_len")
    if tune_len < train_len:
        raise ValueError(f"tune_len must be >= train_len ({train_len:g}), got {tune_len:g}")
    prediction = scaling.predict(dim, train_len, base, tune_len, PRETRAIN_BASE)
    d_extra = int(scaling.critical_dim(dim, train_len, PRETRAIN_BASE))
    return {
        "dim": dim,
        "train_len": train_len,
        "base": base,
        "tune_len": tune_len,
        "planes": np.arange(dim // 2),
        "wavelengths": wavelengths(dim, base),
        "pretrain_wavelengths": wavelengths(dim, PRETRAIN_BASE),
        "d_extra": d_extra,
        "full_period_planes": scaling.full_period_planes(dim, train_len, PRETRAIN_BASE),
        "extra_len": float(scaling.extrapolation_bound(base, dim, train_len, PRETRAIN_BASE)),
        "critical_base": prediction.critical_base,
        "regime": prediction.regime,
        "effective_d_extra": prediction.d_extra,
        "supported_length": prediction.supported_length,
        "thresholds": scaling.small_base_thresholds(tune_len),
        "bands": _bands(dim, base, round(tune_len)),
    }


def clamp_inputs(dim: Any, train_len: Any, base: Any, tune_len: Any) -> tuple[int, int, float, int]:
    """Bring any slider values into the calculator's valid ranges.

    ``dim`` to the nearest even integer in 16..256; ``train_len`` to an integer in
    128..131072; ``base`` into 2..1e8; ``tune_len`` to an integer in ``train_len``..2^20.
    Every result is valid input for :func:`calculator_data`.
    """
    values = {"dim": dim, "train_len": train_len, "base": base, "tune_len": tune_len}
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
            raise ValueError(f"{name} must be a real number, got {value!r}")
        if not math.isfinite(float(value)):
            raise ValueError(f"{name} must be finite, got {value!r}")
    dim = 2 * round(float(dim) / 2)
    dim = min(max(dim, DIM_RANGE[0]), DIM_RANGE[1])
    train = round(min(max(float(train_len), TRAIN_RANGE[0]), TRAIN_RANGE[1]))
    beta = min(max(float(base), BASE_RANGE[0]), BASE_RANGE[1])
    tune = round(min(max(float(tune_len), train), TUNE_MAX))
    return dim, train, beta, tune


def summary_text(data: dict[str, Any]) -> str:
    """The calculator's three lines of text for a :func:`calculator_data` result."""
    supported = data["supported_length"]
    supported = "no hard bound" if supported is None else f"{supported:,.0f} tokens"
    beta1, beta2, beta3 = data["thresholds"]
    return (
        f"regime: {data['regime']}  |  supported length (prediction): {supported}\n"
        f"d_extra = {data['d_extra']} of {data['dim']} dims "
        f"({data['full_period_planes']} planes saw a full period in pre-training), "
        f"T_extra = {data['extra_len']:,.0f}, critical base β0 = {data['critical_base']:,.0f}\n"
        f"Theorem 1 thresholds at T_tune: β1 = {beta1:,.0f}, β2 = {beta2:,.0f}, β3 = {beta3:,.0f}"
    )


def calculator_widget(
    dim: int = 128, train_len: int = 4096, base: float = 1e6, tune_len: int = 4096
) -> Any:
    """The live calculator: four sliders, a text summary and the chart of chapter 6.

    Sliders: head dim (even, 16..256), T_train (log, 128..131072), base (log, 2..1e8) and
    T_tune (log, from T_train up to 2^20; its lower end follows T_train). Every change redraws
    :func:`ropelab.plots.extension.plot_calculator` of :func:`calculator_data`.
    Needs a running kernel (Jupyter, Colab, Binder).
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    from ..plots.extension import plot_calculator

    dim, train_len, base, tune_len = clamp_inputs(dim, train_len, base, tune_len)
    layout = {"description_width": "90px"}
    dim_slider = widgets.IntSlider(
        dim, min=DIM_RANGE[0], max=DIM_RANGE[1], step=2, description="head dim d", style=layout
    )
    train_slider = widgets.FloatLogSlider(
        train_len,
        base=2,
        min=math.log2(TRAIN_RANGE[0]),
        max=math.log2(TRAIN_RANGE[1]),
        step=0.25,
        description="T_train",
        readout_format=".0f",
        style=layout,
    )
    base_slider = widgets.FloatLogSlider(
        base,
        base=10,
        min=math.log10(BASE_RANGE[0]),
        max=math.log10(BASE_RANGE[1]),
        step=0.05,
        description="base β",
        readout_format=".3g",
        style=layout,
    )
    tune_slider = widgets.FloatLogSlider(
        tune_len,
        base=2,
        min=math.log2(train_len),
        max=math.log2(TUNE_MAX),
        step=0.25,
        description="T_tune",
        readout_format=".0f",
        style=layout,
    )
    text = widgets.Output()
    chart = widgets.Output()

    def follow_train(change: dict[str, Any]) -> None:
        # T_tune may not fall below T_train: move the slider's lower end with it.
        tune_slider.min = math.log2(change["new"])

    train_slider.observe(follow_train, names="value")

    def redraw(dim: int, train_len: float, base: float, tune_len: float) -> None:
        data = calculator_data(*clamp_inputs(dim, train_len, base, tune_len))
        with text:
            text.clear_output(wait=True)
            print(summary_text(data))
        with chart:
            chart.clear_output(wait=True)
            fig = plot_calculator(data)
            display(fig)
            plt.close(fig)

    controls = {
        "dim": dim_slider,
        "train_len": train_slider,
        "base": base_slider,
        "tune_len": tune_slider,
    }
    widgets.interactive_output(redraw, controls)
    return widgets.VBox(
        [
            widgets.HBox([dim_slider, train_slider]),
            widgets.HBox([base_slider, tune_slider]),
            text,
            chart,
        ]
    )
