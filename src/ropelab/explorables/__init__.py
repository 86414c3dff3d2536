r"""Explorables: the book's interactive figures that respond without a Python kernel.

An explorable is one HTML output: a few labelled sliders (a select for the layout), an SVG
figure and a text readout, with an inline script, ``ropelab-explore.js`` (next to this file),
that redraws the figure in the browser. The same output responds on the static site, in
JupyterLab or Notebook and in Colab. The ipywidgets of :mod:`ropelab.widgets` draw the same
figures with matplotlib but need a running kernel.

Five kinds, one per chapter figure, with the slider ranges of the matching widget module:

* ``"rotation2d"`` (chapter 1): positions *m*, *n*, the frequency θ and a shift *s*; the
  rotated query and key and the score (:mod:`ropelab.widgets.rotation`);
* ``"block_matrix"`` (chapter 3): *d*, β, the position *m* and the layout; the heatmap of
  :math:`R^d_{\Theta,m}` (:mod:`ropelab.widgets.blocks`);
* ``"spectrum"`` (chapter 4): *d*, β, :math:`T_\text{train}`; the :math:`\theta_i` spectrum and
  the period chart (:mod:`ropelab.widgets.spectrum`);
* ``"decay"`` (chapter 5): β, *d* and the maximum distance; the ones score and RoFormer's
  relative upper bound (:mod:`ropelab.widgets.decay`);
* ``"calculator"`` (chapter 6): *d*, :math:`T_\text{train}`, β, :math:`T_\text{tune}`; the
  scaling-law prediction (:mod:`ropelab.widgets.extension`).

:func:`explorable_data` is the Python reference for the numbers the script computes, built
from ropelab's own functions; the browser tests compare the two at every control setting they
visit.
"""

from __future__ import annotations

import hashlib
import html
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
from IPython.display import HTML

from .._checks import LAYOUTS, check_layout
from ..core import inv_freq, rotation_matrix
from ..plots.rotation import relative_score_2d, rope_score_2d, rotate_2d, shifted_scores
from ..widgets import blocks, decay, extension, rotation, spectrum

__all__ = ["KINDS", "REFERENCE_BASE", "explorable", "explorable_data", "script"]

#: The spectrum explorer draws this base's θ_i dashed for comparison, as
#: :func:`ropelab.plots.spectrum.plot_spectrum_state` does.
REFERENCE_BASE = 10000.0

#: The keys of :func:`ropelab.widgets.extension.calculator_data` that the calculator
#: explorable computes (it does not draw the strip of extension methods, ``bands``).
CALCULATOR_KEYS = (
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
)


def _linear(label: str, low: float, high: float, step: float, **extra: Any) -> dict[str, Any]:
    """A slider over ``low + k·step`` (the ends included)."""
    return {"label": label, "min": low, "max": high, "scale": "linear", "step": step, **extra}


def _log(
    label: str, low: float, high: float, log_base: float, step: float, **extra: Any
) -> dict[str, Any]:
    """A logarithmic slider over ``log_base ** (k·step)`` (the ends included)."""
    return {
        "label": label,
        "min": low,
        "max": high,
        "scale": "log",
        "log_base": log_base,
        "step": step,
        **extra,
    }


# --------------------------------------------------------------------------------------
# Clamping: any parameter values moved into the widgets' ranges
# --------------------------------------------------------------------------------------


def _clamp_rotation(m: Any, n: Any, theta: Any, shift: Any) -> dict[str, Any]:
    """Positions and shift to integers in 0..POSITION_MAX, θ into [THETA_MIN, THETA_MAX]
    (the ranges of the chapter-1 sliders)."""

    def position(value: Any) -> int:
        return int(min(max(round(float(value)), 0), rotation.POSITION_MAX))

    theta = float(min(max(float(theta), rotation.THETA_MIN), rotation.THETA_MAX))
    return {"m": position(m), "n": position(n), "theta": theta, "shift": position(shift)}


def _clamp_blocks(dim: Any, base: Any, position: Any, layout: Any) -> dict[str, Any]:
    d, b, m = blocks.clamp(dim, base, position)
    return {"dim": d, "base": b, "position": m, "layout": check_layout(layout)}


def _clamp_spectrum(dim: Any, base: Any, train_len: Any) -> dict[str, Any]:
    d, b, t = spectrum.clamp_controls(dim, base, train_len)
    return {"dim": d, "base": b, "train_len": t}


def _clamp_decay(dim: Any, base: Any, max_distance: Any) -> dict[str, Any]:
    d, b, m = decay.clamp_params(dim, base, max_distance)
    return {"dim": d, "base": b, "max_distance": m}


def _clamp_calculator(dim: Any, train_len: Any, base: Any, tune_len: Any) -> dict[str, Any]:
    d, t, b, u = extension.clamp_inputs(dim, train_len, base, tune_len)
    return {"dim": d, "train_len": t, "base": b, "tune_len": u}


# --------------------------------------------------------------------------------------
# The data: what the script computes, from ropelab's functions
# --------------------------------------------------------------------------------------


def _rotation_data(m: int, n: int, theta: float, shift: int) -> dict[str, Any]:
    q = np.asarray(rotation.DEFAULT_Q, dtype=np.float64)
    k = np.asarray(rotation.DEFAULT_K, dtype=np.float64)
    scores = shifted_scores(q, k, m, n, theta, np.arange(rotation.POSITION_MAX + 1))
    return {
        "m": m,
        "n": n,
        "theta": theta,
        "shift": shift,
        "q": q,
        "k": k,
        "rotated_q": rotate_2d(q, m * theta),
        "rotated_k": rotate_2d(k, n * theta),
        "shifted_q": rotate_2d(q, (m + shift) * theta),
        "shifted_k": rotate_2d(k, (n + shift) * theta),
        "score": float(rope_score_2d(q, k, m, n, theta)),
        "shifted_score": float(rope_score_2d(q, k, m + shift, n + shift, theta)),
        "relative_score": float(relative_score_2d(q, k, n - m, theta)),
        "key_only_score": float(rope_score_2d(q, k, m, n + shift, theta)),
        "shifts": scores["shifts"],
        "both": scores["both"],
        "key_only": scores["key_only"],
    }


def _block_data(dim: int, base: float, position: int, layout: str) -> dict[str, Any]:
    return {
        "dim": dim,
        "base": base,
        "position": position,
        "layout": layout,
        "theta": inv_freq(dim, base),
        "matrix": rotation_matrix(float(position), dim, base, layout),
    }


def _spectrum_data(dim: int, base: float, train_len: float) -> dict[str, Any]:
    data = spectrum.spectrum_data(dim, base, train_len)
    data["reference_theta"] = inv_freq(dim, REFERENCE_BASE)
    return data


def _calculator_data(dim: int, train_len: int, base: float, tune_len: int) -> dict[str, Any]:
    data = extension.calculator_data(dim, train_len, base, tune_len)
    return {key: data[key] for key in CALCULATOR_KEYS}


def _calculator_defaults() -> dict[str, Any]:
    """The calculator widget's starting state: the defaults of its signature."""
    parameters = inspect.signature(extension.calculator_widget).parameters
    return {name: p.default for name, p in parameters.items()}


@dataclass(frozen=True)
class _Kind:
    """One explorable: its chapter, parameters, clamping, reference data and controls."""

    chapter: int
    defaults: dict[str, Any]
    clamp: Callable[..., dict[str, Any]]
    data: Callable[..., dict[str, Any]]
    controls: dict[str, dict[str, Any]]
    constants: dict[str, Any]


_KINDS: dict[str, _Kind] = {
    "rotation2d": _Kind(
        chapter=1,
        defaults=dict(rotation.DEFAULTS),
        clamp=_clamp_rotation,
        data=_rotation_data,
        controls={
            "m": _linear("query position m", 0, rotation.POSITION_MAX, 1),
            "n": _linear("key position n", 0, rotation.POSITION_MAX, 1),
            "theta": _linear(
                "θ (rad per position)",
                rotation.THETA_MIN,
                rotation.THETA_MAX,
                rotation.THETA_STEP,
                decimals=2,
            ),
            "shift": _linear("shift s (both)", 0, rotation.POSITION_MAX, 1),
        },
        constants={
            "q": list(rotation.DEFAULT_Q),
            "k": list(rotation.DEFAULT_K),
            "max_shift": rotation.POSITION_MAX,
        },
    ),
    "block_matrix": _Kind(
        chapter=3,
        defaults=dict(blocks.DEFAULTS),
        clamp=_clamp_blocks,
        data=_block_data,
        controls={
            "dim": _linear("dim d", *blocks.DIM_RANGE, 2),
            "base": _log("base β", *blocks.BASE_RANGE, 10, 0.05),
            "position": _linear("position m", *blocks.POSITION_RANGE, 1),
            "layout": {"label": "layout", "options": list(LAYOUTS)},
        },
        constants={},
    ),
    "spectrum": _Kind(
        chapter=4,
        defaults=dict(spectrum.DEFAULTS),
        clamp=_clamp_spectrum,
        data=_spectrum_data,
        controls={
            "dim": _linear("head dim d", *spectrum.DIM_RANGE, 2),
            "base": _log("base β", *spectrum.BASE_RANGE, 10, 0.01),
            "train_len": _log("T_train (tokens)", *spectrum.TRAIN_LEN_RANGE, 2, 0.5),
        },
        constants={"reference_base": REFERENCE_BASE},
    ),
    "decay": _Kind(
        chapter=5,
        defaults=dict(decay.DEFAULTS),
        clamp=_clamp_decay,
        data=decay.decay_data,
        controls={
            "base": _log("base β", *decay.BASE_RANGE, 10, 0.1),
            "dim": _linear("head dim d", *decay.DIM_RANGE, 2),
            "max_distance": _log("max distance", *decay.MAX_DISTANCE_RANGE, 2, 1, integer=True),
        },
        constants={"num_distances": decay.NUM_DISTANCES},
    ),
    "calculator": _Kind(
        chapter=6,
        defaults=_calculator_defaults(),
        clamp=_clamp_calculator,
        data=_calculator_data,
        controls={
            "dim": _linear("head dim d", *extension.DIM_RANGE, 2),
            "train_len": _log("T_train", *extension.TRAIN_RANGE, 2, 0.25, integer=True),
            "base": _log("base β", *extension.BASE_RANGE, 10, 0.05),
            # T_tune >= T_train: the slider's lower end follows T_train, as in the widget.
            "tune_len": _log(
                "T_tune",
                extension.TRAIN_RANGE[0],
                extension.TUNE_MAX,
                2,
                0.25,
                integer=True,
                at_least="train_len",
            ),
        },
        constants={"pretrain_base": extension.PRETRAIN_BASE},
    ),
}

#: The kinds of explorable, in chapter order.
KINDS = tuple(_KINDS)


def _kind(kind: str) -> _Kind:
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    return _KINDS[kind]


def _params(kind: str, given: dict[str, Any]) -> dict[str, Any]:
    """The widget defaults updated with ``given``, clamped into the widget ranges."""
    spec = _kind(kind)
    unknown = sorted(set(given) - set(spec.defaults))
    if unknown:
        raise ValueError(
            f"explorable {kind!r} takes the parameters {', '.join(spec.defaults)}; "
            f"got {', '.join(unknown)}"
        )
    return spec.clamp(**{**spec.defaults, **given})


def explorable_data(kind: str, **params: Any) -> dict[str, Any]:
    """The numbers the explorable ``kind`` draws for ``params``, computed by ropelab.

    ``params`` default to the widget's starting state and are clamped as the widget clamps
    them. The keys are those of the script's ``instance.data``:

    * ``"rotation2d"`` (chapter 1): the inputs; ``q``, ``k``; ``rotated_q`` = :math:`R_m q`,
      ``rotated_k`` = :math:`R_n k`, ``shifted_q``, ``shifted_k`` (shifted by *s*); ``score``,
      ``shifted_score``, ``relative_score`` (:math:`q^\\top R_{n-m}k`), ``key_only_score``;
      ``shifts``, ``both``, ``key_only`` (:func:`ropelab.plots.rotation.shifted_scores` over
      ``0 .. POSITION_MAX``);
    * ``"block_matrix"`` (chapter 3): the inputs, ``theta`` (:func:`ropelab.core.inv_freq`) and
      ``matrix`` (:func:`ropelab.core.rotation_matrix`);
    * ``"spectrum"`` (chapter 4): :func:`ropelab.widgets.spectrum.spectrum_data` plus
      ``reference_theta``, the spectrum of :data:`REFERENCE_BASE`;
    * ``"decay"`` (chapter 5): :func:`ropelab.widgets.decay.decay_data`;
    * ``"calculator"`` (chapter 6): :func:`ropelab.widgets.extension.calculator_data` without
      ``bands`` (:data:`CALCULATOR_KEYS`).

    Raises:
        ValueError: for an unknown ``kind`` (naming the allowed ones) or parameter name.
    """
    return _kind(kind).data(**_params(kind, params))


def script() -> str:
    """The text of ``ropelab-explore.js``, read from the installed package."""
    return resources.files(__name__).joinpath("ropelab-explore.js").read_text(encoding="utf-8")


def _control_html(name: str, spec: dict[str, Any], value: Any) -> str:
    label = html.escape(spec["label"])
    if "options" in spec:
        options = "".join(
            f'<option value="{o}"{" selected" if o == value else ""}>{o}</option>'
            for o in spec["options"]
        )
        field = f'<select data-param="{name}">{options}</select>'
    else:
        # the script sets the slider's positions; <output> shows the value in use
        field = f'<input type="range" data-param="{name}" aria-label="{label}"><output></output>'
    return f'<label class="ropelab-control"><span>{label}</span>{field}</label>'


def explorable(kind: str, **params: Any) -> HTML:
    """The explorable ``kind`` as a self-contained HTML output (chapters 1, 3, 4, 5 and 6).

    A ``<div class="ropelab-explorable">`` holds the controls, the figure area and a readout;
    an inline ``<script>`` carries ``ropelab-explore.js`` and mounts it with a JSON config:
    the kind, the starting parameters (the widget defaults updated with ``params``, clamped
    like the widget) and the slider ranges of :mod:`ropelab.widgets`. It needs no server, no
    network and no kernel, so the same output works on the static site, in Jupyter and in
    Colab. The output is deterministic: the element id is a hash of the config.

    Args:
        kind: one of :data:`KINDS`.
        **params: starting values, by the widget's parameter names.

    Raises:
        ValueError: for an unknown ``kind`` (naming the allowed ones) or parameter name.
    """
    spec = _kind(kind)
    config = {
        "kind": kind,
        "params": _params(kind, params),
        "controls": spec.controls,
        "constants": spec.constants,
    }
    config_json = json.dumps(config, ensure_ascii=False, sort_keys=True)
    element = f"ropelab-{kind}-{hashlib.sha256(config_json.encode()).hexdigest()[:12]}"
    controls = "".join(
        _control_html(name, control, config["params"][name])
        for name, control in spec.controls.items()
    )
    # "</" would end the script element early wherever it appeared in the JSON.
    safe_json = config_json.replace("</", "<\\/")
    markup = (
        f'<div class="ropelab-explorable tex2jax_ignore mathjax_ignore" id="{element}" '
        f'data-kind="{kind}" data-chapter="{spec.chapter}">'
        f'<div class="ropelab-controls">{controls}</div>'
        '<div class="ropelab-figure"><p>This interactive figure is drawn by JavaScript in the '
        "browser. In Jupyter, run the cell (or trust the notebook) to see it.</p></div>"
        '<div class="ropelab-readout"></div>'
        "</div>\n"
        f"<script>\n{script()}\n"
        "(function () {\n"
        "  var here = document.currentScript && document.currentScript.previousElementSibling;\n"
        f'  var root = here && here.id === "{element}" ? here : document.getElementById("{element}");\n'
        f"  window.ropelabExplore.mount(root, {safe_json});\n"
        "})();\n"
        "</script>"
    )
    return HTML(markup)
