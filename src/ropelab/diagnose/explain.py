"""The words of the report: for each root cause, what is wrong, the evidence, the fix.

Every function returns one :class:`~ropelab.diagnose.report.Finding`; the numbers come from
the measurements of :mod:`~ropelab.diagnose.angles`, :mod:`~ropelab.diagnose.structure` and
:mod:`~ropelab.diagnose.properties` (chapter 3A prints these reports).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .angles import DTYPES, FLOAT16_MAX, Frequencies, Offset, PositionMap, Precision
from .properties import NormChange, ScoreSpread
from .report import Finding, finding
from .structure import layout_pairs, other_layout

LAYOUT_WORDS = {
    "interleaved": "interleaved layout, pairs (2i, 2i+1)",
    "half": "half-split layout, pairs (i, i+d/2)",
}
ROTATE_FIX = {
    "half": "rotate_half(x) = (-x2, x1) on the two halves, with the table "
    "cat(mθ, mθ) (np.concatenate or torch.cat on the last axis)",
    "interleaved": "the pairwise rotation (-x[1::2], x[0::2]) put back into "
    "adjacent slots, with the table repeat(mθ, 2) (np.repeat or "
    "torch.repeat_interleave on the last axis)",
}


@dataclass(frozen=True)
class Context:
    """What was declared and what every message may quote."""

    layout: str
    dim: int
    base: float
    theta: np.ndarray
    max_error: float
    norms: NormChange | None = None
    spread: ScoreSpread | None = None


def _properties(ctx: Context) -> str:
    parts = []
    if ctx.norms is not None:
        over = "over all x" if ctx.norms.every_x else "over the rows tried"
        parts.append(f"‖fn(x)‖/‖x‖ ranges from {ctx.norms.low:.4f} to {ctx.norms.high:.4f} {over}")
    if ctx.spread is not None:
        s = ctx.spread
        parts.append(
            f"the same q, k at distance {s.distance} score {s.low[2]:.4f} at positions "
            f"({s.low[0]}, {s.low[1]}) and {s.high[2]:.4f} at ({s.high[0]}, {s.high[1]}) "
            f"(exact: {s.expected:.4f} at every such pair"
            + (
                "; q and k rotated in separate calls, as with a key cache)"
                if s.separate_calls
                else ")"
            )
        )
    return "; ".join(parts)


def _keeps_properties(ctx: Context) -> str:
    norm = ctx.norms.defect if ctx.norms is not None else float("nan")
    score = ctx.spread.defect if ctx.spread is not None else float("nan")
    return (
        f"norms are kept (largest change {norm:.1e}) and scores stay relative (largest "
        f"spread {score:.1e}), so nothing fails loudly"
    )


def exception(message: str, positions: str, ran_up_to: int | None, dim: int) -> Finding:
    ran = f" (it ran for positions up to {ran_up_to})" if ran_up_to is not None else ""
    return finding(
        "exception",
        f"fn raised {message.rstrip('.')}.",
        f"the call had x of shape (seq, {dim}), float64, and int64 positions {positions}{ran}.",
        "fn(x, positions) gets a float64 numpy array (seq, dim) and int64 positions (seq,) "
        "(torch.from_numpy converts both) and must accept any position up to 2^20: compute "
        "the angles from the positions rather than reading a fixed-length cache.",
    )


def shape(problem: str, input_shape: tuple[int, ...]) -> Finding:
    return finding(
        "shape",
        f"fn returned {problem} for an input of shape {input_shape}.",
        "the check needs one real, finite output row per input row.",
        "return the rotated vectors as a real array of x's shape, in x's layout (convert "
        "complex numbers back to pairs of reals).",
    )


def identity(change: float, reference: float) -> Finding:
    return finding(
        "identity",
        "fn returns its input unrotated.",
        f"max |fn(x) - x| = {change:.1e} for random rows at two sets of positions; the exact "
        f"rotation moves them by up to {reference:.2f}.",
        "return x·cos + rotate(x)·sin, not x (check that the rotated array is the one "
        "returned, and that the angles are positions·θ_i, not zeros).",
    )


def positions_ignored(change: float, used: list[int] | None, given: list[int]) -> Finding:
    how = (
        f" It rotates the rows as positions {used}, whatever the positions {given} say."
        if used is not None
        else ""
    )
    return finding(
        "positions",
        "fn ignores its positions argument: the output does not change when the positions "
        f"do.{how}",
        f"the same rows at two different sets of positions give outputs that differ by "
        f"{change:.1e}.",
        "index the cos/sin tables with the positions given (cos[positions]), not with "
        "arange(seq): with a key cache or packed sequences a token's position is not its row.",
    )


def row_order(change: float) -> Finding:
    return finding(
        "positions",
        "a row's rotation depends on its place in the batch, not only on its position.",
        f"reversing the rows together with their positions changes the outputs by up to "
        f"{change:.2f}.",
        "compute the angles of row k from positions[k] alone.",
    )


def positions_cause(cause: Offset | PositionMap, ctx: Context) -> Finding:
    if isinstance(cause, Offset):
        shift = cause.shift
        text = f"{shift:+g}" if shift != int(shift) else f"{int(shift):+d}"
        return finding(
            "positions",
            f"fn rotates every position m as m {text[0]} {text[1:]}: the positions are offset.",
            f"at position 0 the output is not x: plane 0 turned by "
            f"{math.remainder(shift * ctx.theta[0], 2 * math.pi):.4f} rad; at every probed "
            f"position the angles are (m {text[0]} {text[1:]})·θ_i; max error "
            f"{ctx.max_error:.2f}.",
            "use the positions as given: they count from 0 (no + 1) and already include any "
            "start offset.",
        )
    probed, used = cause.probed, cause.used
    wrong = used != probed
    clamp = int(used[wrong].max()) if wrong.any() else 0
    if np.array_equal(used, np.minimum(probed, clamp)):
        what = (
            f"fn rotates every position past {clamp} as {clamp}: a cos/sin cache of "
            f"{clamp + 1} positions read with clamped indices."
        )
    elif wrong.any() and np.array_equal(used, probed % (probed[wrong][0] - used[wrong][0])):
        period = int(probed[wrong][0] - used[wrong][0])
        what = f"fn rotates position m as m mod {period}: the cache index wraps around."
    elif (probed > 0).any() and np.array_equal(
        used, probed * (used[probed > 0][0] // probed[probed > 0][0])
    ):
        factor = int(used[probed > 0][0] // probed[probed > 0][0])
        what = f"fn rotates position m as {factor}·m: the positions are scaled."
    else:
        what = "fn rotates some positions as other positions."
    pairs = ", ".join(f"{p} as {u}" for p, u in zip(probed[wrong], used[wrong], strict=True))
    return finding(
        "positions",
        what,
        f"read off the angles of every plane: {_shorten(pairs)}; max error {ctx.max_error:.2f}.",
        "size the cache for the largest position (or compute the angles from the positions "
        "directly) and fail loudly on a position past its end.",
    )


def pairing(pairing_layout: str, pairs: list[tuple[int, int]], ctx: Context) -> Finding:
    declared = LAYOUT_WORDS[ctx.layout]
    expected = int(layout_pairs(ctx.dim, ctx.layout)[1][0])
    fix = f"pair as the declared layout: {ROTATE_FIX[ctx.layout]}."
    if pairing_layout in LAYOUT_WORDS:
        what = f"fn rotates as the {LAYOUT_WORDS[pairing_layout]}, not as the declared {declared}."
        partner = int(layout_pairs(ctx.dim, pairing_layout)[1][0])
        seen = f"coordinate 0 is paired with {partner} (expected {expected})"
        convert = "interleaved_to_half" if ctx.layout == "half" else "half_to_interleaved"
        fix += (
            f" If the weights were trained with the other layout, permute the rows of W_q and "
            f"W_k of each head once ({convert}) instead."
        )
    else:
        what = f"fn rotates pairs of coordinates that belong to neither layout, not the {declared}."
        listed = _shorten(", ".join(f"({a}, {b})" for a, b in pairs))
        seen = f"the pairs are {listed} (expected (0, {expected}), …)"
    return finding(
        "pairing",
        what,
        f"{seen}; {_keeps_properties(ctx)}, but the numbers differ by up to "
        f"{ctx.max_error:.2f}: weights trained with one pairing and run with the other lose "
        "their position patterns (chapter 3).",
        fix,
    )


def reordered(ctx: Context, inputs: list[int]) -> Finding:
    """Norms and relative scores hold, yet fn is not the declared rotation: the coordinates
    are in another order than the layout's."""
    expected = int(layout_pairs(ctx.dim, ctx.layout)[1][0])
    return finding(
        "pairing",
        f"fn keeps norms and relative scores but is not the rotation of the declared "
        f"{LAYOUT_WORDS[ctx.layout]}: it moves coordinates to other places.",
        f"output coordinate 0 is made of input coordinates {inputs} (expected [0, "
        f"{expected}]); {_keeps_properties(ctx)}; max error {ctx.max_error:.2f}.",
        f"rotate each pair in place, without reordering x or the output: {ROTATE_FIX[ctx.layout]}.",
    )


def table_mismatch(
    table_layout: str, pairing_layout: str, steps: np.ndarray, ctx: Context
) -> Finding:
    """``steps[r]``: the angle coordinate r turns by from position 0 to position 1."""
    first, second = layout_pairs(ctx.dim, pairing_layout)
    plane = int(np.argmax(np.abs(steps[first] - steps[second])))
    a, b = int(first[plane]), int(second[plane])
    if ctx.layout == table_layout:
        fix = f"keep the table and rotate as the {table_layout} layout: {ROTATE_FIX[table_layout]}."
    else:
        fix = f"build the table for the {pairing_layout} layout: {ROTATE_FIX[pairing_layout]}."
    return finding(
        "table_mismatch",
        f"the cos/sin table is laid out for the {LAYOUT_WORDS[table_layout]}, but the "
        f"rotation pairs coordinates as the {LAYOUT_WORDS[pairing_layout]}: the two "
        "coordinates of a pair turn by different angles.",
        f"in the pair ({a}, {b}) coordinate {a} turns by {steps[a]:.4f} rad per position and "
        f"coordinate {b} by {steps[b]:.4f}; so {_properties(ctx)}.",
        fix,
    )


def direction(ctx: Context, measured: float) -> Finding:
    return finding(
        "direction",
        "fn rotates by -mθ_i instead of +mθ_i.",
        f"at position 1 plane 0 turned by {measured:+.4f} rad (expected "
        f"{ctx.theta[0]:+.4f}); {_keeps_properties(ctx)}, but the numbers differ by up to "
        f"{ctx.max_error:.2f} from the layout's rotation (transformers, Meta's Llama).",
        "the sign of the sin term: y_a = x_a cos - x_b sin and y_b = x_b cos + x_a sin; "
        "rotate_half(x) is (-x2, x1), not (x2, -x1); in complex form multiply by e^(+imθ), "
        "not by its conjugate.",
    )


def frequencies(cause: Frequencies, ctx: Context) -> Finding:
    measured, theta, dim, base = cause.measured, ctx.theta, ctx.dim, ctx.base
    half = theta.size
    planes = sorted({0, 1, half // 2, half - 1} & set(range(half)))
    table = ", ".join(f"θ_{i} = {measured[i]:.6f} ({theta[i]:.6f})" for i in planes)
    return finding(
        "frequencies",
        f"fn turns plane i by the wrong angle per position: {describe_law(measured, dim, base)}",
        f"measured θ_i (mod 2π) with the expected base^(-2i/d) in brackets: {table}.",
        "θ_i = base^(-2i/d) for i = 0 … d/2-1: inv_freq = 1.0 / base ** (np.arange(0, d, 2) "
        "/ d), with d the rotary dimension and base the model's rope_theta.",
    )


def describe_law(measured: np.ndarray, dim: int, base: float) -> str:
    """Name the formula behind measured frequencies when it is a known mistake."""
    i = np.arange(dim // 2, dtype=np.float64)
    known = [
        (
            base ** (-i / dim),
            "θ_i = base^(-i/d): the exponent uses i where it needs 2i "
            "(np.arange(d // 2) / d instead of np.arange(0, d, 2) / d, or the head dimension "
            "2d as the denominator).",
        ),
        (base ** (2 * i / dim), "θ_i = base^(+2i/d): the minus sign of the exponent is missing."),
        (
            base ** (-2 * (i + 1) / dim),
            "θ_i = base^(-2(i+1)/d): the exponents start at 2/d instead of 0.",
        ),
    ]
    if dim > 2:
        known.append(
            (
                base ** (-2 * i / (dim - 2)),
                "θ_i = base^(-2i/(d-2)): the exponents run from 0 "
                "to 1 inclusive (np.linspace(0, 1, d // 2)), a denominator of d-2.",
            )
        )
    for values, words in known:
        if np.abs(_wrap(measured - values)).max() <= 1e-7:
            return words
    if measured.size >= 2 and np.all(measured > 0) and abs(measured[0] - 1.0) <= 1e-9:
        ratio = measured[1] / measured[0]
        fitted = ratio ** np.arange(measured.size)
        if ratio < 1 and np.abs(_wrap(measured - fitted)).max() <= 1e-7:
            effective = ratio ** (-dim / 2)
            denominator = dim * math.log(base) / math.log(effective)
            return (
                f"θ_i = b^(-2i/d) with b = {effective:.6g} instead of {base:g}: another base "
                f"(rope_theta), or equivalently a denominator of {denominator:.4g} instead of "
                f"d = {dim}."
            )
    if np.abs(_wrap(measured - measured[0])).max() <= 1e-9:
        return f"every plane turns by the same {measured[0]:.6f} rad per position."
    return "the measured θ_i follow none of the usual formulas."


def precision(cause: Precision, positions: np.ndarray, errors: np.ndarray) -> Finding:
    subject = {
        "angles": "the angles m·θ_i are computed in low precision",
        "theta": "the frequencies θ_i are rounded to a low precision",
        "positions": "the positions are rounded to a low precision",
        "tables": "cos and sin (or the output) are rounded to a low precision",
    }[cause.where]
    behaviour = (
        "exact at position 0, off by about the same amount at every other position"
        if cause.where == "tables"
        else "exact at position 0, wrong at large positions"
    )
    order = np.argsort(positions)
    positions, errors = positions[order], errors[order]
    finite = np.isfinite(errors)
    parts = []
    for p in (1, positions[finite].max(initial=0)):
        hit = np.flatnonzero((positions == p) & finite)
        if hit.size:
            parts.append(f"{errors[hit[0]]:.1e} at position {p}")
    evidence = "error " + ", ".join(parts)
    above = np.flatnonzero(~finite | (errors > 1e-3))
    if above.size:
        k = above[0]
        value = "NaN or infinity" if not finite[k] else f"{errors[k]:.1e}"
        evidence += f"; first above 1e-3 at position {positions[k]} ({value})"
    else:
        evidence += "; never above 1e-3, but a float64 implementation is exact to 1e-9"
    if cause.overflow_from is not None:
        evidence += (
            f"; NaN or infinity from position {cause.overflow_from} on (float16 stops at "
            f"{FLOAT16_MAX:.0f})"
        )
    evidence += (
        f". Relative angle error up to {cause.unit_roundoff:.1e} = "
        f"2^{math.log2(cause.unit_roundoff):.1f}: the signature of {cause.dtype} "
        f"({_roundoffs()})."
    )
    return finding(
        "precision",
        f"{subject}, likely {cause.dtype}: {behaviour}.",
        evidence,
        "compute θ_i and the angles positions·θ_i in float64 (at least float32), take cos and "
        "sin there, and cast only cos and sin to the model's dtype.",
    )


def _roundoffs() -> str:
    return ", ".join(f"{name} {value:.1e}" for name, value in DTYPES.items())


def not_orthogonal(ctx: Context, context: str = "") -> Finding:
    return finding(
        "not_orthogonal",
        "fn changes the length of vectors, which a rotation never does, and no cause above "
        f"explains it{context}.",
        f"{_properties(ctx)}; max error {ctx.max_error:.2f}.",
        "give each pair y_a = x_a cos - x_b sin and y_b = x_b cos + x_a sin with "
        "cos² + sin² = 1, both from the original x: write into a new array, not into x "
        "while it is still being read.",
    )


def scaled(ctx: Context, scale: float) -> Finding:
    """Every cos and sin multiplied by one factor: lengths scale by it, scores by its square."""
    return finding(
        "not_orthogonal",
        f"every cos/sin pair has length {scale:.4f} instead of 1: fn rotates and scales "
        f"every vector by {scale:.4f}, and so every score by {scale**2:.4f}.",
        f"{_properties(ctx)}.",
        "a rotation needs cos² + sin² = 1. If the factor is meant (YaRN's attention "
        "factor, transformers' attention_scaling), it is a temperature on the scores: check "
        "the rotation with the factor divided out.",
    )


def not_relative(ctx: Context, context: str = "") -> Finding:
    return finding(
        "not_relative",
        "the score of q at m and k at n depends on more than m - n, and no cause above "
        f"explains it{context}.",
        f"{_properties(ctx)}; max error {ctx.max_error:.2f}.",
        "make every angle m·θ_i with fixed θ_i: nothing may depend on the rest of the call "
        "(its length, its largest position), as a dynamic base does.",
    )


def _shorten(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: text.rfind(",", 0, limit)] + ", …"


def _wrap(angle: np.ndarray) -> np.ndarray:
    return (angle + np.pi) % (2 * np.pi) - np.pi


__all__ = [
    "Context",
    "describe_law",
    "direction",
    "exception",
    "frequencies",
    "identity",
    "not_orthogonal",
    "not_relative",
    "other_layout",
    "pairing",
    "positions_cause",
    "positions_ignored",
    "precision",
    "row_order",
    "shape",
    "table_mismatch",
]
