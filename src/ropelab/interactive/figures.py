r"""One spec per interactive figure of the book: controls, data, static figure and readout.

An :class:`InteractiveFigure` says everything about one figure, once:

* ``controls``: its sliders and choices (:class:`~ropelab.interactive.controls.Control`),
  with their ranges, steps and defaults, clamped by the one
  :func:`~ropelab.interactive.controls.clamp`;
* ``data``: the function of the chapter's mathematics module that computes what is drawn,
  called with the clamped control values and the figure's ``constants``;
* ``figure``: the matplotlib function that draws that data (the static view, for print, the
  PDF and the live widget), named as ``"module:function"`` and imported only when used, so
  that reading a spec or computing its data never imports matplotlib;
* ``readout``: the text under the figure (:mod:`ropelab.interactive.readouts`);
* ``explorable``: whether ``ropelab-explore.js`` draws it in the browser too, and which keys
  of the data the browser computes (``browser_keys``).

Everything else is generated from these specs: the explorables' HTML and JSON config
(:mod:`ropelab.explorables`), the live ipywidgets (:func:`ropelab.widgets.live_widget`), the
benchmarks (``benchmarks/bench_widgets.py``) and the tests, which iterate over
:data:`FIGURES`. Adding a slider to a figure is one :class:`Control` here plus, when the
browser must compute something new, its formula in ``ropelab-explore.js``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from .. import (
    complex_primer,
    core,
    decay,
    extension,
    multimodal,
    positions,
    precision,
    rotation2d,
    spectrum,
)
from .. import remapping as remapping_module
from ..calculator import PRETRAIN_BASE, calculator_data
from . import readouts
from .controls import Control, choice, clamp, linear, log

__all__ = ["BROWSER_KINDS", "FIGURES", "InteractiveFigure", "figure_spec", "kinds"]


@dataclass(frozen=True)
class InteractiveFigure:
    """One interactive figure: see the module docstring.

    Attributes:
        kind: its name (``"spectrum"``).
        chapter: the chapter that shows it (``"4"``).
        title: a short description.
        controls: the controls, in the order they are shown.
        data: ``data(**params, **constants) -> dict``, in a mathematics module.
        readout: ``readout(data) -> str``.
        figure: ``"module:function"`` drawing ``data`` with matplotlib.
        constants: fixed inputs of ``data`` that the browser needs too (JSON-ready).
        explorable: whether ``ropelab-explore.js`` draws it (set from :data:`BROWSER_KINDS`).
        browser_keys: the keys of ``data`` the browser computes (``None``: all).
    """

    kind: str
    chapter: str
    title: str
    controls: tuple[Control, ...]
    data: Callable[..., dict[str, Any]]
    readout: Callable[[Mapping[str, Any]], str]
    figure: str
    constants: Mapping[str, Any] = field(default_factory=dict)
    explorable: bool = False
    browser_keys: tuple[str, ...] | None = None

    def control(self, name: str) -> Control:
        """The control called ``name``."""
        for control in self.controls:
            if control.name == name:
                return control
        raise ValueError(
            f"figure {self.kind!r} has the controls {', '.join(self.names)}; got {name!r}"
        )

    @property
    def names(self) -> tuple[str, ...]:
        """The control names, in order."""
        return tuple(c.name for c in self.controls)

    def defaults(self) -> dict[str, Any]:
        """The starting value of every control."""
        return {c.name: c.default for c in self.controls}

    def params(self, **given: Any) -> dict[str, Any]:
        """The defaults updated with ``given``, clamped into the controls' ranges.

        Raises:
            ValueError: for a name that is not one of the figure's controls.
        """
        unknown = sorted(set(given) - set(self.names))
        if unknown:
            raise ValueError(
                f"figure {self.kind!r} takes the parameters {', '.join(self.names)}; "
                f"got {', '.join(unknown)}"
            )
        return clamp(self.controls, {**self.defaults(), **given})

    def compute(self, **given: Any) -> dict[str, Any]:
        """The figure's data for ``given`` (clamped, see :meth:`params`)."""
        return self.data(**self.params(**given), **self.constants)

    def browser_data(self, **given: Any) -> dict[str, Any]:
        """The part of :meth:`compute` that ``ropelab-explore.js`` computes too."""
        data = self.compute(**given)
        if self.browser_keys is None:
            return data
        return {key: data[key] for key in self.browser_keys}

    def draw(self, data: Mapping[str, Any]) -> Any:
        """The static figure of ``data`` (a matplotlib Figure)."""
        module, function = self.figure.split(":")
        return getattr(importlib.import_module(module), function)(data)

    def to_json(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The JSON config an explorable is mounted with."""
        return {
            "kind": self.kind,
            "params": dict(params),
            "controls": [c.to_json() for c in self.controls],
            "constants": dict(self.constants),
        }


# --------------------------------------------------------------------------------------
# The figures, in chapter order
# --------------------------------------------------------------------------------------

_POSITION_MAX = 64


def _sinusoid() -> InteractiveFigure:
    return InteractiveFigure(
        kind="sinusoid",
        chapter="0",
        title="the sinusoidal encoding for a length, a dimension and a base",
        controls=(
            linear("length", "length L", 100, 2, 1024, 2, integer=True),
            linear("dim", "dim d", 128, 4, 512, 2, even=True),
            log("base", "base β", 10000.0, 10.0, 1e6, step=0.1),
        ),
        data=positions.sinusoid_data,
        readout=readouts.sinusoid_readout,
        figure="ropelab.plots.positions:draw_sinusoid",
    )


def _rotation2d() -> InteractiveFigure:
    position = {"low": 0, "high": _POSITION_MAX, "step": 1, "integer": True}
    return InteractiveFigure(
        kind="rotation2d",
        chapter="1",
        title="a query and a key turned by their positions, and shifted together",
        controls=(
            linear("m", "query position m", 2, **position),
            linear("n", "key position n", 5, **position),
            linear("theta", "θ (rad per position)", 0.5, 0.01, 3.14, 0.01, decimals=2),
            linear("shift", "shift s (both)", 3, **position),
        ),
        data=rotation2d.relative_rotation_data,
        readout=readouts.rotation_readout,
        figure="ropelab.plots.rotation:draw_relative_rotation",
        constants={
            "q": list(rotation2d.DEFAULT_Q),
            "k": list(rotation2d.DEFAULT_K),
            "max_shift": _POSITION_MAX,
        },
    )


def _complex_pair() -> InteractiveFigure:
    length = {"low": 0.1, "high": 2.0, "step": 0.05, "decimals": 2}
    angle = {"low": -3.14, "high": 3.14, "step": 0.01, "decimals": 2}
    return InteractiveFigure(
        kind="complex_pair",
        chapter="1A",
        title="two complex numbers z and w, their product z·w and z·conj(w)",
        controls=(
            linear("z_abs", "|z|", 1.2, **length),
            linear("z_arg", "arg z (rad)", 0.6, **angle),
            linear("w_abs", "|w|", 0.9, **length),
            linear("w_arg", "arg w (rad)", 1.0, **angle),
        ),
        data=complex_primer.complex_pair_data,
        readout=readouts.complex_pair_readout,
        figure="ropelab.plots.complex_primer:draw_complex_pair",
    )


def _complex_score() -> InteractiveFigure:
    positions = {"low": 0, "high": 32, "step": 1, "integer": True}
    return InteractiveFigure(
        kind="complex_score",
        chapter="2",
        title="the score as the real part of q·conj(k)·e^(i(m−n)θ) in the complex plane",
        controls=(
            linear("q_abs", "|q|", 1.2, 0.1, 2.0, 0.05, decimals=2),
            linear("q_arg", "arg q (rad)", 0.3, -3.14, 3.14, 0.01, decimals=2),
            linear("k_abs", "|k|", 0.9, 0.1, 2.0, 0.05, decimals=2),
            linear("k_arg", "arg k (rad)", 1.1, -3.14, 3.14, 0.01, decimals=2),
            linear("m", "query position m", 2, **positions),
            linear("n", "key position n", 5, **positions),
            linear("theta", "θ (rad per position)", 0.5, 0.01, 3.14, 0.01, decimals=2),
        ),
        data=rotation2d.complex_score_data,
        readout=readouts.complex_score_readout,
        figure="ropelab.plots.rotation:draw_complex_score",
    )


def _block_matrix() -> InteractiveFigure:
    return InteractiveFigure(
        kind="block_matrix",
        chapter="3",
        title="the block-diagonal rotation R at a position, in either layout",
        controls=(
            linear("dim", "dim d", 16, 2, 64, 2, even=True),
            log("base", "base β", 10000.0, 2.0, 1e6, step=0.05),
            linear("position", "position m", 2, 0, 4096, 1, integer=True),
            choice("layout", "layout", "interleaved", ("interleaved", "half")),
        ),
        data=core.block_matrix_data,
        readout=readouts.block_readout,
        figure="ropelab.plots.blocks:draw_block_matrix",
    )


def _precision() -> InteractiveFigure:
    return InteractiveFigure(
        kind="precision",
        chapter="3A",
        title="angle and cos errors against the position for angles formed in each precision",
        controls=(
            log("base", "base β", 10000.0, 100.0, 1e7, step=0.1),
            linear("dim", "head dim d", 128, 2, 256, 2, even=True),
            log(
                "max_position",
                "largest position",
                131072,
                16,
                2**20,
                log_base=2,
                step=0.5,
                integer=True,
            ),
        ),
        data=precision.precision_explorer_data,
        readout=readouts.precision_readout,
        figure="ropelab.plots.precision:draw_precision",
        constants={"num_positions": precision.PRECISION_POSITIONS},
    )


def _spectrum() -> InteractiveFigure:
    return InteractiveFigure(
        kind="spectrum",
        chapter="4",
        title="the θ_i spectrum and each plane's period against the training length",
        controls=(
            linear("dim", "head dim d", 128, 2, 256, 2, even=True),
            log("base", "base β", 500000.0, 2.0, 1e7, step=0.01),
            log("train_len", "T_train (tokens)", 8192.0, 16.0, 131072.0, log_base=2, step=0.5),
        ),
        data=spectrum.spectrum_data,
        readout=readouts.spectrum_readout,
        figure="ropelab.plots.spectrum:draw_spectrum_state",
        constants={"reference_base": 10000.0},
    )


def _decay() -> InteractiveFigure:
    return InteractiveFigure(
        kind="decay",
        chapter="5",
        title="the ones score and RoFormer's relative upper bound against the distance",
        controls=(
            log("base", "base β", 10000.0, 1.0, 1e7, step=0.1),
            linear("dim", "head dim d", 128, 2, 256, 2, even=True),
            log("max_distance", "max distance", 65536, 16, 65536, log_base=2, step=1, integer=True),
        ),
        data=decay.decay_data,
        readout=readouts.decay_readout,
        figure="ropelab.plots.decay:draw_decay",
        constants={"num_distances": decay.NUM_DISTANCES},
    )


def _calculator() -> InteractiveFigure:
    return InteractiveFigure(
        kind="calculator",
        chapter="6",
        title="the scaling-law calculator: the supported length after fine-tuning",
        controls=(
            linear("dim", "head dim d", 128, 16, 256, 2, even=True),
            log("train_len", "T_train", 4096, 128, 131072, log_base=2, step=0.25, integer=True),
            log("base", "base β", 1e6, 2.0, 1e8, step=0.05),
            # T_tune >= T_train: the slider's lower end follows T_train.
            log(
                "tune_len",
                "T_tune",
                4096,
                128,
                2**20,
                log_base=2,
                step=0.25,
                integer=True,
                at_least="train_len",
            ),
        ),
        data=calculator_data,
        readout=readouts.calculator_readout,
        figure="ropelab.plots.extension:plot_calculator",
        constants={"pretrain_base": PRETRAIN_BASE},
        # The browser draws no strip of extension methods ("bands").
        browser_keys=(
            "dim",
            "train_len",
            "base",
            "tune_len",
            "planes",
            "wavelengths",
            "pretrain_wavelengths",
            "d_extra",
            "full_period_planes",
            "extra_len",
            "critical_base",
            "regime",
            "effective_d_extra",
            "supported_length",
            "thresholds",
        ),
    )


def _extension_methods() -> InteractiveFigure:
    return InteractiveFigure(
        kind="extension_methods",
        chapter="6",
        title="what each context-extension method does to every plane",
        controls=(
            choice("method", "method", "Llama 3", extension.METHODS),
            linear("dim", "head dim d", 128, 16, 256, 2, even=True),
            log("base", "base β", 500000.0, 1000.0, 1e7, step=0.05),
            log(
                "original_len",
                "original length",
                8192,
                256,
                131072,
                log_base=2,
                step=0.5,
                integer=True,
            ),
            log(
                "target_len",
                "target length",
                65536,
                256,
                2**21,
                log_base=2,
                step=0.5,
                integer=True,
                at_least="original_len",
            ),
            linear("beta_slow", "YaRN β_slow (turns)", 1.0, 0.25, 8.0, 0.25, decimals=2),
            linear(
                "beta_fast",
                "YaRN β_fast (turns)",
                32.0,
                1.0,
                64.0,
                1.0,
                decimals=0,
                at_least="beta_slow",
            ),
            linear("low_freq_factor", "Llama 3 low factor", 1.0, 0.5, 8.0, 0.25, decimals=2),
            linear(
                "high_freq_factor",
                "Llama 3 high factor",
                4.0,
                0.5,
                32.0,
                0.25,
                decimals=2,
                at_least="low_freq_factor",
            ),
        ),
        data=extension.method_explorer_data,
        readout=readouts.method_explorer_readout,
        figure="ropelab.plots.extension:draw_method_explorer",
    )


def _multiaxis() -> InteractiveFigure:
    planes = {"low": 0, "high": 64, "step": 1, "integer": True}
    position = {"low": 0, "high": 32, "step": 1, "integer": True}
    return InteractiveFigure(
        kind="multiaxis",
        chapter="9",
        title="2D and multimodal RoPE: each plane's axis and angle, and the score's offsets",
        controls=(
            choice("allocation", "allocation", "sections", multimodal.ALLOCATIONS),
            linear("t_planes", "time planes", 16, **planes),
            linear("h_planes", "height planes", 24, **planes),
            linear("t_a", "token a: time", 0, **position),
            linear("h_a", "token a: height (row)", 0, **position),
            linear("w_a", "token a: width (column)", 0, **position),
            linear("t_b", "token b: time", 0, **position),
            linear("h_b", "token b: height (row)", 3, **position),
            linear("w_b", "token b: width (column)", 5, **position),
        ),
        data=multimodal.multiaxis_explorer_data,
        readout=readouts.multiaxis_readout,
        figure="ropelab.plots.beyond:draw_multiaxis",
        constants={"head_dim": 128, "base": 1_000_000.0, "max_offset": 32},
    )


def _lab() -> InteractiveFigure:
    from ..lab import view

    names = view.committed_model_names()
    return InteractiveFigure(
        kind="lab",
        chapter="7",
        title="the lab's loss curves and supported lengths at a chosen margin",
        controls=(
            choice(
                "names",
                "models",
                tuple(n for n in view.DEFAULT_MODELS if n in names) or names[:1],
                names,
                multiple=True,
            ),
            linear("margin", "margin (nats)", 0.1, 0.02, 0.5, 0.01, decimals=2),
            linear("max_len", "show up to", 2048, 256, 2048, 128, integer=True),
        ),
        data=view.lab_view_data,
        readout=readouts.lab_readout,
        figure="ropelab.plots.lab_view:plot_lab_view",
    )


def _remapping() -> InteractiveFigure:
    return InteractiveFigure(
        kind="remapping",
        chapter="10",
        title="training-free remapping: the relative position each score sees",
        controls=(
            choice("method", "method", "Self-Extend", remapping_module.METHODS),
            log("length", "input length", 16384, 1024, 2**20, log_base=2, step=0.25, integer=True),
            log(
                "train_len",
                "training length L",
                4096,
                512,
                262144,
                log_base=2,
                step=0.5,
                integer=True,
            ),
            log(
                "window",
                "window w (local size)",
                1024,
                16,
                65536,
                log_base=2,
                step=0.5,
                integer=True,
            ),
            linear("group", "Self-Extend group G", 5, 1, 64, 1, integer=True),
        ),
        data=remapping_module.remapping_data,
        readout=readouts.remapping_readout,
        figure="ropelab.plots.after:draw_remapping",
        constants={"points": 40, "row_points": 161},
    )


#: Builders of every interactive figure, by kind, in chapter order. A spec is built the
#: first time it is asked for (the lab's reads the committed results).
_BUILDERS: dict[str, Callable[[], InteractiveFigure]] = {
    "sinusoid": _sinusoid,
    "rotation2d": _rotation2d,
    "complex_pair": _complex_pair,
    "complex_score": _complex_score,
    "block_matrix": _block_matrix,
    "precision": _precision,
    "spectrum": _spectrum,
    "decay": _decay,
    "calculator": _calculator,
    "extension_methods": _extension_methods,
    "multiaxis": _multiaxis,
    "lab": _lab,
    "remapping": _remapping,
}

#: The kinds of interactive figure, in chapter order.
FIGURES = tuple(_BUILDERS)

#: The figures that are live widgets only; every other kind is an explorable too.
_WIDGET_ONLY = frozenset({"sinusoid", "lab"})

#: The figures ``ropelab-explore.js`` draws in the browser, in chapter order (each has its
#: file ``ropelab/explorables/js/figures/<kind>.js``; the drift check compares the two).
BROWSER_KINDS = tuple(k for k in FIGURES if k not in _WIDGET_ONLY)


def kinds(*, explorable: bool | None = None) -> tuple[str, ...]:
    """The figure kinds in chapter order; ``explorable=True`` keeps those the browser draws,
    ``False`` the others."""
    if explorable is None:
        return FIGURES
    return tuple(k for k in FIGURES if (k in BROWSER_KINDS) == explorable)


@cache
def figure_spec(kind: str) -> InteractiveFigure:
    """The spec of the figure ``kind``.

    Raises:
        ValueError: for an unknown kind, naming the known ones.
    """
    if kind not in _BUILDERS:
        raise ValueError(f"kind must be one of {', '.join(FIGURES)}; got {kind!r}")
    return replace(_BUILDERS[kind](), explorable=kind in BROWSER_KINDS)
