r"""The text under each interactive figure: a few lines of numbers, a function of its data.

Each readout is a plain function of the dict the figure's data function returns, written with
Python's own number formats (``f"{x:.3f}"``, ``f"{x:,.0f}"``, ``f"{x:.4g}"``).
``ropelab-explore.js`` writes the same lines in the browser with a port of those formats
(exact to the last digit: ties round half to even, as Python does), and the drift check
(``tests/test_explorable_drift.py``) compares the two strings on seeded random settings. The
live widgets print the same text, and so do the chapters where they show a figure's numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = [
    "block_readout",
    "calculator_readout",
    "complex_pair_readout",
    "complex_score_readout",
    "count",
    "decay_readout",
    "format_number",
    "lab_readout",
    "method_explorer_readout",
    "multiaxis_readout",
    "precision_readout",
    "remapping_readout",
    "rotation_readout",
    "sinusoid_readout",
    "spectrum_readout",
]


def format_number(value: float) -> str:
    """A number as the figures print it: ``1.00e+15`` from 10^12 up, ``12,345`` for whole
    numbers and from 100 up, three significant digits below (``3.98``, ``0.5``)."""
    value = float(value)
    if abs(value) >= 1e12:
        return f"{value:.2e}"
    if value.is_integer() or abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def count(number: int, noun: str) -> str:
    """``"1 plane"``, ``"3 planes"``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def rotation_readout(data: Mapping[str, Any]) -> str:
    r"""Chapter 1: the four scores of RoFormer eq. 16 (*d* = 2) for positions *m*, *n* and a
    shift *s* of both; the first three are equal, the fourth (the key moved alone) is not."""
    m, n = data["m"], data["n"]
    gap = abs(data["score"] - data["shifted_score"])
    # a gap at the level of rounding differs between machines: print its bound instead
    gap_text = "less than 1e-12 (rounding)" if gap < 1e-12 else f"{gap:.2e}"
    return "\n".join(
        [
            f"m = {m}, n = {n}, θ = {data['theta']:.2f} rad, shift s = {data['shift']}",
            f"score(m, n)         (R_m q)·(R_n k)          = {data['score']:+.6f}",
            f"score(m + s, n + s) (R_m+s q)·(R_n+s k)      = {data['shifted_score']:+.6f}",
            f"relative form       qᵀ R_(n−m) k, n − m = {n - m:+d} = {data['relative_score']:+.6f}",
            f"key moved alone     (R_m q)·(R_n+s k)        = {data['key_only_score']:+.6f}",
            f"score(m, n) and score(m + s, n + s) differ by {gap_text}",
        ]
    )


def _complex(z: Any) -> str:
    """``[re, im]`` as ``+0.1234 - 0.5678i``."""
    return f"{z[0]:+.4f} {'-' if z[1] < 0 else '+'} {abs(z[1]):.4f}i"


def complex_score_readout(data: Mapping[str, Any]) -> str:
    r"""Chapter 2: the rotated query and key as complex numbers, their product with the
    conjugate, and its real part next to the dot product of the rotated vectors."""
    return "\n".join(
        [
            f"q = {data['q_abs']:.2f}·e^({data['q_arg']:.2f}i), "
            f"k = {data['k_abs']:.2f}·e^({data['k_arg']:.2f}i), "
            f"m = {data['m']}, n = {data['n']}, θ = {data['theta']:.2f} rad",
            f"q·e^(imθ) = {_complex(data['rotated_q'])},  "
            f"k·e^(inθ) = {_complex(data['rotated_k'])}",
            f"q·conj(k)·e^(i(m−n)θ) = {_complex(data['product'])}, "
            f"(m − n)θ = {data['angle']:+.4f} rad",
            f"score: its real part {data['score']:+.6f}; (R_m q)·(R_n k) = {data['dot']:+.6f}",
        ]
    )


_TURNS = {
    1: " (one turn less)",
    -1: " (one turn more)",
}


def complex_pair_readout(data: Mapping[str, Any]) -> str:
    r"""Chapter 1A: two complex numbers *z* and *w*, their product and the product with the
    conjugate; lengths multiply, angles add (and subtract with the conjugate). A measured
    angle lies in :math:`(-\pi, \pi]`, so it may differ from the sum by a whole turn."""

    def number(name: str, key: str) -> str:
        arg = data[f"{key}_arg"]
        return (
            f"{name} = {data[f'{key}_abs']:.2f}·e^({arg:.2f}i) = {_complex(data[key])}"
            f"   ({arg:.2f} rad = {math.degrees(arg):.1f}°)"
        )

    product_turns = _TURNS.get(data["product_turns"], "")
    conj_turns = _TURNS.get(data["conj_turns"], "")
    return "\n".join(
        [
            number("z", "z"),
            number("w", "w"),
            f"z·w       = {_complex(data['product'])}, length {data['product_abs']:.4f}"
            f" = |z|·|w| = {data['length_product']:.4f}",
            f"z·conj(w) = {_complex(data['conj_product'])}, length {data['conj_product_abs']:.4f}",
            f"arg z + arg w = {data['angle_sum']:+.4f} rad; "
            f"arg(z·w) = {data['product_arg']:+.4f}{product_turns}",
            f"arg z − arg w = {data['angle_difference']:+.4f} rad; "
            f"arg(z·conj(w)) = {data['conj_product_arg']:+.4f}{conj_turns}",
        ]
    )


def block_readout(data: Mapping[str, Any]) -> str:
    r"""Chapter 3: the size and layout of :math:`R^d_{\Theta,m}` and how far plane 0 and the
    slowest plane turn at position *m*."""
    dim, position, theta = data["dim"], data["position"], data["theta"]
    last = dim // 2 - 1

    def angle(i: int) -> str:
        return f"mθ_{i} = {position * theta[i]:.4f} rad"

    slowest = f"; θ_{last} = {theta[last]:.4g} rad per position" if last > 0 else ""
    turns = f", the slowest plane by {angle(last)}" if last > 0 else ""
    return "\n".join(
        [
            f"{count(dim // 2, 'plane')} of the {dim}×{dim} matrix, {data['layout']} layout"
            f"{slowest}",
            f"at m = {position}: plane 0 turns by {angle(0)}{turns}",
        ]
    )


def spectrum_readout(data: Mapping[str, Any]) -> str:
    r"""Chapter 4: how many planes complete a period within :math:`T_\text{train}`, the
    boundary plane, :math:`d_\text{extra}` and the range of wavelengths."""
    wavelength = data["wavelength"]
    return "\n".join(
        [
            f"full period within T_train = {format_number(data['train_len'])} tokens in "
            f"{data['n_full']} of {count(data['n_planes'], 'plane')}",
            f"  (λ_i ≤ T_train, i.e. θ_i ≥ 2π/T_train = {data['theta_threshold']:.4g}); "
            f"{data['n_partial']} do not",
            f"boundary (d/2)·log_β(T_train/2π) = {data['boundary']:.3f}; "
            f"d_extra = {data['critical_dim']}",
            f"wavelengths from {format_number(wavelength[0])} to "
            f"{format_number(wavelength[-1])} tokens",
        ]
    )


def _first_gap(values: Any) -> int:
    """The last integer before the first gap in a sorted list of integers that starts at 1."""
    for i, value in enumerate(values):
        if value != i + 1:
            return i
    return int(values[-1])


def decay_readout(data: Mapping[str, Any]) -> str:
    r"""Chapter 5: the ones score and the relative upper bound at the ends of the range."""
    score, bound = data["ones_score"], data["relative_upper_bound"]
    far = format_number(data["max_distance"])
    return "\n".join(
        [
            f"ones score: s(1) = {score[0]:.3f}, s({far}) = {score[-1]:.3f}; "
            f"band ±√d = ±{math.sqrt(data['dim']):.3f}",
            f"relative upper bound: {bound[0]:.3f} at r = 1, {bound[-1]:.3f} at r = {far} "
            f"({(data['dim'] / 2 + 1) / 2:.1f} at r = 0)",
            f"{len(data['distances'])} distances, every integer up to "
            f"{_first_gap(data['distances'])}",
        ]
    )


def calculator_readout(data: Mapping[str, Any]) -> str:
    r"""Chapter 6: the regime and supported length of Theorem 3, :math:`d_\text{extra}`,
    :math:`T_\text{extra}`, the critical base, Theorem 1's thresholds, and the original length
    an extension method takes on top of the fine-tuned model (the supported length: the model
    is reliable to it; :func:`ropelab.calculator.extension_original_len`). No hard bound is
    called what the source calls it, a conjecture. Lines of at most 79 characters."""
    from ..scaling import REGIME_LARGER_BASE

    supported = data["supported_length"]
    tune = f"{data['tune_len']:,.0f}"
    beta1, beta2, beta3 = data["thresholds"]
    if supported is None:
        supported_text = "no hard bound (a conjecture of the source)"
        original = f"T_tune = {tune} tokens (no bound is predicted)"
    elif data["regime"] == REGIME_LARGER_BASE:
        supported_text = f"{supported:,.0f} tokens"
        original = f"T_extra = {supported:,.0f} tokens, not T_tune = {tune}"
    else:
        supported_text = f"{supported:,.0f} tokens"
        original = f"T_tune = {tune} tokens"
    return "\n".join(
        [
            f"regime: {data['regime']}",
            f"supported length (prediction): {supported_text}",
            f"d_extra = {data['d_extra']} of {data['dim']} dims "
            f"({data['full_period_planes']} planes saw a full period in pre-training)",
            f"Theorem 2's T_extra = 2π·β^(d_extra/d) = {data['extra_len']:,.0f}; "
            f"critical base β0 = {format_number(data['critical_base'])}",
            f"Theorem 1 thresholds at T_tune: β1 = {beta1:,.0f}, β2 = {beta2:,.0f}, "
            f"β3 = {beta3:,.0f}",
            "a test-time method on top starts from the reliable length L0 (the paper's",
            "rule for log scaling, xPos and dynamic NTK; the book's for YaRN, Llama 3):",
            f"  {original}",
        ]
    )


def method_explorer_readout(data: Mapping[str, Any]) -> str:
    r"""Chapters 6 and 8: how many planes a method keeps, stretches and interpolates, its
    attention factor, and the critical dimension of the original length."""
    before, after = data["wavelength_before"], data["wavelength_after"]
    return "\n".join(
        [
            f"{data['method']}, s = {data['factor']:.4g} ({data['original_len']:,} → "
            f"{data['target_len']:,} tokens): {data['kept']} planes kept, "
            f"{data['stretched']} stretched, {data['interpolated']} interpolated",
            f"attention factor {data['attention_factor']:.4f}; d_extra = "
            f"{data['critical_dim']} of {data['dim']} at the original length "
            f"({data['full_period_planes']} planes saw a full period)",
            f"longest wavelength {format_number(before[-1])} → {format_number(after[-1])} tokens",
        ]
    )


#: Chapter 3A's series (ropelab.precision.PRECISION_SERIES) as the readout names them.
PRECISION_LABELS = (
    ("float64", "float64 (bound)"),
    ("float32", "float32 angles"),
    ("bfloat16", "bfloat16 angles"),
    ("float16", "float16 angles"),
    ("bf16_theta", "θ_i in bfloat16"),
)
#: The cos error the readout counts from: a table entry off by more than 1 %.
PRECISION_COS_LIMIT = 0.01


def precision_readout(data: Mapping[str, Any]) -> str:
    r"""Chapter 3A: for each way of forming the angles, the largest angle and cos errors over
    the drawn positions, and the first position whose cos error exceeds 0.01."""
    positions = data["positions"]
    lines = [
        f"d = {data['dim']}, base {format_number(data['base'])}, positions 1 to "
        f"{format_number(data['max_position'])}; largest error over them:"
    ]
    for name, label in PRECISION_LABELS:
        angle, cos = data[f"angle_{name}"], data[f"cos_{name}"]
        above = [int(positions[i]) for i, c in enumerate(cos) if c > PRECISION_COS_LIMIT]
        first = f"from m = {format_number(above[0])}" if above else "nowhere"
        lines.append(
            f"{label:<17}angle {max(angle):.1e} rad, cos {max(cos):.1e}; "
            f"cos > {PRECISION_COS_LIMIT} {first}"
        )
    if data["float16_positions"] < len(positions):
        lines.append("float16 holds no position above 65,504: its curves stop there")
    return "\n".join(lines)


def multiaxis_readout(data: Mapping[str, Any]) -> str:
    r"""Chapter 9: how the planes are shared among the axes, the two positions and their
    offset, the all-ones score at that offset and the plane that turns most."""
    names = data["axis_names"]

    def point(values: Any) -> str:
        return "(" + ", ".join(f"{n} {v:g}" for n, v in zip(names, values, strict=True)) + ")"

    offset = [b - a for a, b in zip(data["position_a"], data["position_b"], strict=True)]
    turns = [abs(x) for x in data["relative_angle"]]
    widest = max(range(len(turns)), key=lambda i: (turns[i], -i))
    share = ", ".join(f"{n} {c}" for n, c in zip(names, data["planes_per_axis"], strict=True))
    return "\n".join(
        [
            f"{data['allocation']} allocation: planes per axis {share}",
            f"a = {point(data['position_a'])}, b = {point(data['position_b'])}, "
            f"offset {point(offset)}",
            f"all-ones score at the offset {data['score']:.3f} "
            f"(it is {2 * len(turns)} at offset 0)",
            f"widest turn {turns[widest]:.3f} rad: plane {widest}, "
            f"axis {names[data['axes'][widest]]}",
        ]
    )


def remapping_readout(data: Mapping[str, Any]) -> str:
    r"""Chapter 10: the largest relative position a remapping gives any score on the input,
    against the training length, and the relative position of the farthest key."""
    verdict = "within" if data["within"] else "beyond"
    return "\n".join(
        [
            f"{data['method']} on {format_number(data['length'])} tokens, "
            f"trained on {format_number(data['train_len'])}",
            f"largest relative position: {format_number(data['max_relative'])} "
            f"({verdict} the training length)",
            f"last query, first key: {format_number(data['row'][0])} "
            f"(RoPE: {format_number(data['length'] - 1)})",
            f"w = {format_number(data['window'])}, G = {data['group']}, "
            f"S = {format_number(data['shift'])}; Self-Extend (w, G) covers "
            f"{format_number(data['self_extend_max_length'])} tokens",
        ]
    )


def sinusoid_readout(data: Mapping[str, Any]) -> str:
    """Chapter 0: the size of the table and the range of its wavelengths."""
    wavelengths = [2 * math.pi / t for t in data["theta"]]
    return (
        f"{data['length']} positions × {data['dim']} coordinates, base "
        f"{format_number(data['base'])}: wavelengths from {format_number(wavelengths[0])} to "
        f"{format_number(wavelengths[-1])} tokens"
    )


def lab_readout(data: Mapping[str, Any]) -> str:
    """Chapter 7: each chosen model's supported length at the chosen margin, and its
    prediction."""
    lines = [f"margin {data['margin']:.2f} nats, lengths up to {data['max_len']:,}"]
    for model in data["models"]:
        measured = model["remeasured"]
        measured = "beyond the evaluated range" if measured is None else f"{measured:,.0f}"
        predicted = model["predicted"]
        predicted = "no bound predicted" if predicted is None else f"{predicted:,.0f}"
        lines.append(f"{model['name']}: supported {measured} (predicted {predicted})")
    return "\n".join(lines)
