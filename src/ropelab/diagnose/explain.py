"""The words of the report: for each root cause, what is wrong, the evidence, the fix.

Every function returns one :class:`~ropelab.diagnose.report.Finding`; the numbers come from
the measurements of :mod:`~ropelab.diagnose.angles`, :mod:`~ropelab.diagnose.structure` and
:mod:`~ropelab.diagnose.properties` (chapter 3A prints these reports).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..agreement import significant
from .angles import DTYPES, FLOAT16_MAX, Frequencies, Offset, PositionMap, Precision
from .properties import NormChange, ScoreSpread
from .report import Finding, finding, format_tolerance
from .structure import Scale, layout_pairs, other_layout

#: The tolerance a report states for a property that holds ("norms are kept to 1e-9"): a
#: measured defect below it is rounding, and printing it would print a machine's noise.
KEPT = 1e-9


def bound(value: float, tol: float = KEPT) -> str:
    """``"below 1e-9"`` for a value at the rounding level, else the value at two significant
    digits (issue 21: a report never prints a number that differs from one CPU to the next)."""
    if math.isfinite(value) and abs(value) <= tol:
        return f"below {format_tolerance(tol)}"
    return significant(value, 2)


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
    tolerance: float = KEPT  # the verdict's tolerance: a property holds to it or fails

    def keeps_properties(self) -> bool:
        """Whether the measurements show norms kept and scores relative, to the tolerance."""
        norm = self.norms.defect if self.norms is not None else 0.0
        score = self.spread.defect if self.spread is not None else 0.0
        return norm <= self.tolerance and score <= self.tolerance


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
    """The two properties as measured: "kept" only when the measurements show it (to the
    verdict's tolerance), else the measured ranges, never a property they contradict."""
    norm = ctx.norms.defect if ctx.norms is not None else 0.0
    score = ctx.spread.defect if ctx.spread is not None else 0.0
    if not ctx.keeps_properties():
        return _properties(ctx)
    tol = ctx.tolerance
    return (
        f"norms are kept (largest change {bound(norm, tol)}) and scores stay relative "
        f"(largest spread {bound(score, tol)}), so nothing fails loudly"
    )


@dataclass(frozen=True)
class CallContext:
    """Where an exception or a bad output happened: which probe, on what input."""

    probe: str  # "first", "matrix", "pairs", "single", "again" or "batch"
    shape: tuple[int, ...]  # the x fn received
    positions: str  # the positions, in words
    ran_up_to: int | None = None  # the largest position of an earlier call that worked
    batched: bool = False


def _bad_input_fix(ctx: CallContext) -> str:
    if ctx.batched:
        return (
            "fn(x, positions) gets a float64 numpy array x of shape (batch, heads, seq, dim) "
            "and int64 positions of shape (batch, seq)"
        )
    return (
        "fn(x, positions) gets a float64 numpy array x of shape (seq, dim) and int64 "
        "positions of shape (seq,)"
    )


def exception(message: str, ctx: CallContext) -> Finding:
    """fn raised: the fix is written from the exception and the call that raised it."""
    kind = message.split(":", 1)[0]
    size = re.search(r"size (\d+)", message)
    ran = f" (earlier calls with positions up to {ctx.ran_up_to} ran)" if ctx.ran_up_to else ""
    evidence = (
        f"the call had x of shape {ctx.shape}, float64, and int64 positions {ctx.positions}{ran}."
    )
    if ctx.probe == "batch":
        fix = (
            "fn runs on one sequence of one head but not on a batch: the (batch, seq, dim) "
            "table must be broadcast over the heads by a head axis at 1, cos[:, None] "
            "(transformers' unsqueeze_dim=1 for q of shape (batch, heads, seq, dim)), and "
            "each sequence must use its own row of positions."
        )
    elif ctx.probe == "single":
        fix = (
            "fn runs on several rows but not on one, the call of every decode step with a key "
            "cache: look for a squeeze() that drops the sequence axis, or a table sliced by "
            "the number of rows instead of indexed by the positions."
        )
    elif ctx.ran_up_to is not None and ctx.probe in ("matrix", "pairs"):
        table = f"a table of {size[1]} positions" if size and kind == "IndexError" else "fn"
        fix = (
            f"{table} stops between positions {ctx.ran_up_to} and the ones of this call: "
            "compute the angles from the positions (or size a cos/sin cache for the "
            "largest position the model will see, and grow it on demand), and raise a "
            "clear error past a real limit."
        )
    elif kind == "AttributeError" and "numpy" in message:
        fix = (
            f"{_bad_input_fix(ctx)}: a torch implementation converts them first, "
            "torch.from_numpy(x) and torch.from_numpy(positions)."
        )
    elif kind == "NotImplementedError":
        fix = f"write the rotation: {_bad_input_fix(ctx)} and returns x rotated."
    else:
        fix = f"{_bad_input_fix(ctx)}: make fn run on such a call and return x's shape."
    return finding("exception", f"fn raised {message.rstrip('.')}.", evidence, fix)


def shape(
    problem: str, input_shape: tuple[int, ...], output_shape: tuple[int, ...] | None = None
) -> Finding:
    fix = (
        "return the rotated vectors as a real array of x's shape, in x's layout (convert "
        "complex numbers back to pairs of reals)."
    )
    if (
        output_shape is not None
        and len(input_shape) == 4
        and len(output_shape) == 4
        and input_shape[1] == 1
        and output_shape[1] == input_shape[2]
        and output_shape[2:] == input_shape[2:]
    ):
        fix = (
            f"the head axis of the output has the length of the sequence ({output_shape[1]}): "
            "the (batch, seq, dim) table got its new axis after the sequence axis and was "
            "broadcast against the heads. Insert it at axis 1, cos[:, None] (transformers' "
            "unsqueeze_dim=1 for q of shape (batch, heads, seq, dim); unsqueeze_dim=2 is for "
            "(batch, seq, heads, dim))."
        )
    return finding(
        "shape",
        f"fn returned {problem} for an input of shape {input_shape}.",
        "the check needs one real, finite output row per input row.",
        fix,
    )


def identity(reference: float) -> Finding:
    return finding(
        "identity",
        "fn returns its input unrotated.",
        f"fn(x) equals x (to 1e-12) for random rows at two sets of positions; the exact "
        f"rotation moves them by up to {reference:.2f}.",
        "return x·cos + rotate(x)·sin, not x (check that the rotated array is the one "
        "returned, and that the angles are positions·θ_i, not zeros).",
    )


def _row_pattern(used: list[int], given: list[int]) -> str | None:
    """Name how rows were rotated when it is a known mistake: the row index, or positions
    counted up from the first one."""
    seq = len(given)
    if used == list(range(seq)):
        return "row k as position k: the table is taken for arange(seq), not for the positions"
    if used == [given[0] + k for k in range(seq)]:
        return (
            f"row k as position {given[0]} + k: the table is sliced from the first position "
            f"on, table[start : start + seq], as if every call's positions counted up from "
            "its first one"
        )
    if used == [max(given) - seq + 1 + k for k in range(seq)]:
        return (
            "the rows as the last seq positions up to the largest one, table[-seq:], as if "
            "every call's positions counted up to its last one"
        )
    return None


_ROW_FIX = (
    "index the cos/sin table with the positions given, cos[positions], not with arange(seq) "
    "or a slice: with a key cache, packed sequences or padding a token's position is "
    "neither its row nor its row plus the first position."
)


def positions_ignored(used: list[int] | None, given: list[int]) -> Finding:
    pattern = _row_pattern(used, given) if used is not None else None
    how = ""
    if used is not None:
        how = f" It rotates the rows as positions {used}, whatever the positions {given} say"
        how += f" ({pattern})." if pattern else "."
    return finding(
        "positions",
        "fn ignores its positions argument: the output does not change when the positions "
        f"do.{how}",
        "the same rows at two different sets of positions give the same outputs (to 1e-12).",
        _ROW_FIX,
    )


def row_order(change: float, used: list[int] | None, given: list[int]) -> Finding:
    pattern = _row_pattern(used, given) if used is not None else None
    if pattern is not None:
        what = f"fn rotates {pattern}."
        evidence = (
            f"read off the angles of every plane, the rows at positions {given} are rotated "
            f"as {used}; reversing the rows together with their positions changes the "
            f"outputs by up to {change:.2f}."
        )
    else:
        what = "a row's rotation depends on its place in the batch, not only on its position."
        evidence = (
            f"reversing the rows together with their positions changes the outputs by up to "
            f"{change:.2f}."
        )
    return finding("positions", what, evidence, _ROW_FIX)


def positions_cause(
    cause: Offset | PositionMap, ctx: Context, grown: list[int] | None = None
) -> Finding:
    """``grown[k]``: the largest position of the calls before the k-th probe of ``cause``
    (a cache built by earlier calls ends there)."""
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
    fix = (
        "size the cache for the largest position (or compute the angles from the positions "
        "directly) and fail loudly on a position past its end."
    )
    if grown is not None and wrong.any():
        ends = np.array(grown) + 1  # the cache's length before the call
        restarted = np.where(probed >= ends, probed - ends, probed)
    if grown is not None and wrong.any() and np.array_equal(used, restarted):
        k = int(np.flatnonzero(wrong)[0])
        what = (
            "fn keeps a cos/sin cache that grows on demand, and the rows it appends count "
            "from 0 again: a position past the cache's end is rotated as its distance from "
            "that end."
        )
        fix = (
            "extend the cache with the rows of the new positions, arange(old_length, "
            "new_length), not arange(new_length - old_length)."
        )
        pairs = ", ".join(
            f"{p} as {u} (cache of {e})"
            for p, u, e in zip(probed[wrong], used[wrong], ends[wrong], strict=True)
        )
        evidence = (
            f"the probes ran in increasing order of position; read off the angles of every "
            f"plane: "
            f"{_shorten(pairs, 120)}; position {probed[k]} came after calls up to position "
            f"{ends[k] - 1}; max error {ctx.max_error:.2f}."
        )
        return finding("positions", what, evidence, fix)
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
        fix = "use the positions as given, without a factor."
    else:
        what = "fn rotates some positions as other positions."
    pairs = ", ".join(f"{p} as {u}" for p, u in zip(probed[wrong], used[wrong], strict=True))
    return finding(
        "positions",
        what,
        f"read off the angles of every plane: {_shorten(pairs)}; max error {ctx.max_error:.2f}.",
        fix,
    )


def single_token(
    checks: list[tuple[int, int | None, float]], batched: bool, layout: str
) -> Finding:
    """One-row calls disagree with calls of several rows. ``checks``: (position, the
    position the row was rotated as or None, relative difference) of each one-row call."""
    wrong = [c for c in checks if c[2] > 0]
    used = [c[1] for c in wrong]
    shape = "(1, 1, 1, dim)" if batched else "(1, dim)"
    if used and all(u == 0 for u in used):
        what = (
            "a call with one row, a decode step, rotates it as position 0 whatever its "
            "position; calls of several rows rotate every position right."
        )
        fix = (
            "take the table rows of the positions given, cos[positions], in the one-token "
            "path too: cos[:seq_len] (or cos[:1]) is the table of positions 0 .. seq_len - "
            "1, right only for a prompt that starts at 0."
        )
    elif used and all(u is not None for u in used):
        what = (
            "a call with one row, a decode step, rotates it as another position than its own; "
            "calls of several rows rotate every position right."
        )
        fix = "take the table rows of the positions given, cos[positions], in every call."
    else:
        what = (
            "a call with one row, a decode step, gives another output than a call of several "
            "rows at the same position."
        )
        fix = (
            "make the one-token path compute what a call of several rows computes: the same "
            "table, indexed by the positions given."
        )
    parts = []
    for position, as_, diff in wrong:
        seen = f"rotated as position {as_}" if as_ is not None else "not the same rotation"
        parts.append(
            f"one row (x of shape {shape}) at position {position}: {seen}, {diff:.2f} "
            "from the same row in a call of several rows"
        )
    evidence = "; ".join(parts) + "."
    return finding("positions", what, evidence, fix)


def batch_axes(pattern: str, used: np.ndarray, positions: np.ndarray, worst: float) -> Finding:
    """The batch probe: rows of x (batch, heads, seq, dim) rotated as other positions."""
    shape = f"x of shape (2, {used.shape[1]}, {used.shape[2]}, dim), positions {positions.tolist()}"
    if pattern == "first":
        what = (
            "in a batch, every sequence is rotated with the positions of the first one: "
            "the table is built from positions[0] alone."
        )
        fix = (
            "build the table from the whole (batch, seq) positions, one row of angles per "
            "sequence: with left padding or packing, sequences of a batch have different "
            "positions."
        )
    else:
        what = "in a batch, some rows are rotated as other positions than their own."
        fix = (
            "each row (b, h, s) must turn by positions[b, s]·θ_i: broadcast the (batch, seq, "
            "dim) table over the heads only."
        )
    b, h, s = map(int, np.argwhere(used != positions[:, None, :])[0])
    as_ = int(used[b, h, s]) if used[b, h, s] >= 0 else None
    got = f"rotated as {as_}" if as_ is not None else "rotated as none of the batch's positions"
    evidence = (
        f"{shape}: row (batch {b}, head {h}, token {s}) at position {positions[b, s]} is "
        f"{got}; the largest difference from the rotation fn gives each row alone is "
        f"{worst:.2f}."
    )
    return finding("positions", what, evidence, fix)


def pairing(pairing_layout: str, pairs: list[tuple[int, int]], ctx: Context) -> Finding:
    declared = LAYOUT_WORDS[ctx.layout]
    expected = int(layout_pairs(ctx.dim, ctx.layout)[1][0])
    fix = f"pair as the declared layout: {ROTATE_FIX[ctx.layout]}."
    consequence = (
        ": weights trained with one pairing and run with the other lose their position "
        "patterns (chapter 3)"
    )
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
        verb = "rotates" if ctx.keeps_properties() else "mixes"
        what = f"fn {verb} pairs of coordinates that belong to neither layout, not the {declared}."
        listed = _shorten(", ".join(f"({a}, {b})" for a, b in pairs))
        seen = f"the pairs are {listed} (expected (0, {expected}), …)"
        rot = 2 * len(pairs)
        still = ctx.dim - rot
        for layout in ("half", "interleaved"):
            first, second = layout_pairs(rot, layout) if rot else ((), ())
            if still and sorted(pairs) == sorted(zip(first, second, strict=True)):
                what = (
                    f"fn rotates only the first {rot} of {ctx.dim} coordinates, as the "
                    f"{LAYOUT_WORDS[layout]}, with d = {rot}, and passes the other {still} "
                    "through: a partial rotary embedding."
                )
                consequence = " from the rotation of the whole head"
                seen = (
                    f"coordinate 0 is paired with {int(second[0])} (expected {expected}), "
                    f"coordinates {rot} to {ctx.dim - 1} are not mixed with any other"
                )
                fix = (
                    f"if the model rotates only part of each head (partial_rotary_factor "
                    f"{rot / ctx.dim:g}), check that part alone: diagnose_rope with dim={rot} "
                    f"and layout={layout!r}. If it rotates the whole head, the rotary dimension "
                    f"must be {ctx.dim}, not {rot}."
                )
                break
    if ctx.keeps_properties():
        evidence = (
            f"{seen}; {_keeps_properties(ctx)}, but the numbers differ by up to "
            f"{ctx.max_error:.2f}{consequence}."
        )
    else:
        evidence = f"{seen}; {_properties(ctx)}; max error {ctx.max_error:.2f}."
    return finding("pairing", what, evidence, fix)


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


def _measured_properties(ctx: Context) -> str:
    """Norms and relative scores as measured, each either within the tolerance or with the
    measured defect (no range at 4 decimals that would hide a defect below 1e-4)."""
    tol = format_tolerance(ctx.tolerance)
    norm = ctx.norms.defect if ctx.norms is not None else 0.0
    score = ctx.spread.defect if ctx.spread is not None else 0.0
    parts = [
        f"norms are kept to {tol}"
        if norm <= ctx.tolerance
        else f"‖fn(x)‖/‖x‖ differs from 1 by up to {significant(norm, 2)}",
        f"scores at one distance n - m agree to {tol}"
        if score <= ctx.tolerance
        else f"scores at one distance n - m differ by up to {significant(score, 2)}",
    ]
    return " and ".join(parts)


def swapped(ctx: Context, measured: tuple[float, float]) -> Finding:
    """cos and sin exchanged: x·sin + rotate(x)·cos turns plane i by π/2 - mθ_i.
    ``measured``: the angle of plane 0 at positions 0 and 1."""
    at_zero, at_one = measured
    return finding(
        "direction",
        "cos and sin are swapped: fn computes x·sin + rotate(x)·cos, which turns plane i by "
        "π/2 - mθ_i, a quarter turn at position 0 and then backwards.",
        f"plane 0 turned by {at_zero:+.4f} rad at position 0 (expected +0.0000) and by "
        f"{at_one:+.4f} at position 1 (expected {ctx.theta[0]:+.4f}); every plane turns by "
        f"π/2 - mθ_i at every probed position; {_keeps_properties(ctx)}, but the numbers "
        f"differ by up to {ctx.max_error:.2f} from the layout's rotation.",
        "x·cos + rotate(x)·sin: cos multiplies x, sin multiplies the rotated copy "
        "(check the order of the two tables where they are unpacked, cos, sin = …).",
    )


def unexplained(
    ctx: Context, probes: list[tuple[str, float]], clean: list[str], dtype: str | None
) -> Finding:
    """The catch-all: errors above the tolerance that no cause the check knows explains.
    ``probes``: (where, relative error) above the tolerance, worst first; ``clean``: the
    probes within it; ``dtype``: the type whose rounding the errors' size matches, if any."""
    tol = format_tolerance(ctx.tolerance)
    where = "; ".join(f"{significant(e, 2)} in {name}" for name, e in probes[:4])
    if len(probes) > 4:
        where += f"; and {len(probes) - 4} more probes"
    evidence = f"relative errors above the tolerance {tol}: {where}"
    if clean:
        evidence += f"; within it: {', '.join(clean)}"
    evidence += f"; {_measured_properties(ctx)}."
    if dtype is not None:
        size = (
            f"float32 rounding (unit roundoff {_exponent(DTYPES['float32'])})"
            if dtype == "float32"
            else "rounding in a 16-bit type (unit roundoff 2^-11 float16, 2^-8 bfloat16)"
        )
        evidence += (
            f" The errors have the size of {size}, but no rounding the check knows "
            "(angles, frequencies, positions, tables) gives them."
        )
    fix = _NO_CAUSE_FIX
    if dtype == "float32":
        fix += (
            " If fn is meant to compute in float32, say so: diagnose_rope(fn, "
            "dtype='float32') checks it to the float32 tolerance 1e-6."
        )
    return finding(
        "unexplained",
        f"fn differs from the exact rotation by more than the tolerance {tol}, and the cause "
        "is unknown: none of the causes the check knows explains it.",
        evidence,
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


def per_coordinate_table(pairing_layout: str, steps: np.ndarray, ctx: Context) -> Finding:
    """A table with one frequency per coordinate, θ_r = base^(-r/d) for r = 0 .. d-1."""
    first, second = layout_pairs(ctx.dim, pairing_layout)
    a, b = int(first[0]), int(second[0])
    return finding(
        "table_mismatch",
        "the cos/sin table holds one frequency per coordinate, θ_r = base^(-r/d) for r = 0 "
        "… d-1, instead of one per plane: the two coordinates of a pair turn by different "
        "angles, so no pair is rotated.",
        f"in the pair ({a}, {b}) coordinate {a} turns by {steps[a]:.4f} rad per position and "
        f"coordinate {b} by {steps[b]:.4f}; expected {ctx.theta[0]:.4f} for both; so "
        f"{_properties(ctx)}.",
        f"d/2 frequencies, θ_i = base^(-2i/d) from np.arange(0, d, 2) / d, each used by "
        f"both coordinates of its plane: {ROTATE_FIX[pairing_layout]}.",
    )


def direction_one_coordinate(
    backwards: str, pairing_layout: str, ctx: Context, measured: tuple[float, float]
) -> Finding:
    """The sin term has the wrong sign in one coordinate of every pair: that coordinate turns
    by -mθ_i, the other by +mθ_i; the pair's matrix is symmetric, not a rotation."""
    first, second = layout_pairs(ctx.dim, pairing_layout)
    a, b = int(first[0]), int(second[0])
    if pairing_layout == "half":
        written = "(x2, x1)" if backwards == "first" else "(-x2, -x1)"
        right = f"rotate_half(x) must return (-x2, x1), not {written}"
    else:
        written = "(x_2i+1, x_2i)" if backwards == "first" else "(-x_2i+1, -x_2i)"
        right = f"the quarter turn of pair i must be (-x_2i+1, x_2i), not {written}"
    which = "first" if backwards == "first" else "second"
    return finding(
        "direction",
        f"the sin term has the wrong sign in the {which} coordinate of every pair: that "
        "coordinate turns by -mθ_i, its partner by +mθ_i, and the pair is not rotated (its "
        "matrix [[c, ∓s], [∓s, c]] is symmetric).",
        f"at position 1 coordinate {a} turned by {measured[0]:+.4f} rad and coordinate {b} by "
        f"{measured[1]:+.4f} (expected {ctx.theta[0]:+.4f} for both); so {_properties(ctx)}.",
        f"y_a = x_a cos - x_b sin and y_b = x_b cos + x_a sin: a minus on the sin term of "
        f"the first coordinate, a plus on the second; {right}.",
    )


def _ranges(indices: list[int]) -> str:
    """[0, 1, 2, 5, 7, 8] -> "0 to 2, 5, 7 to 8"."""
    parts, start = [], None
    for k, i in enumerate(indices):
        if start is None:
            start = i
        if k + 1 == len(indices) or indices[k + 1] != i + 1:
            parts.append(f"{start}" if start == i else f"{start} to {i}")
            start = None
    return ", ".join(parts)


def frequencies(cause: Frequencies, ctx: Context) -> Finding:
    measured, theta, dim, base = cause.measured, ctx.theta, ctx.dim, ctx.base
    half = theta.size
    still = [i for i in range(half) if abs(measured[i]) <= 1e-12 < theta[i]]
    right = [i for i in range(half) if abs(_wrap(measured[i] - theta[i])) <= 1e-7]
    if still and len(still) + len(right) == half:
        planes = sorted({0, still[0] - 1, still[0], half - 1} & set(range(half)))
        table = ", ".join(f"θ_{i} = {measured[i]:.6f} ({theta[i]:.6f})" for i in planes)
        return finding(
            "frequencies",
            f"planes {_ranges(still)} never turn: their frequency is 0 where base^(-2i/d) "
            f"is {theta[still[0]]:.6f} to {theta[still[-1]]:.6f}; the other "
            f"{len(right)} planes are right. fn rotates only part of the head, as a partial "
            "rotary embedding does.",
            f"measured θ_i (mod 2π) with the expected base^(-2i/d) in brackets: {table}; "
            f"{_keeps_properties(ctx)}.",
            f"if the model rotates the whole head, inv_freq needs all d/2 = {half} values, "
            "1.0 / base ** (np.arange(0, d, 2) / d), none padded with zeros. If only part of "
            "the head is meant to turn (partial_rotary_factor), check that part alone, with "
            "dim its size, and pass the rest through unchanged.",
        )
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


_PRECISION_SUBJECT = {
    "angles": "the angles m·θ_i are computed in low precision",
    "theta": "the frequencies θ_i are rounded to a low precision",
    "positions": "the positions are rounded to a low precision",
    "tables": "cos and sin (or the output) are rounded to a low precision",
}


def _exponent(unit: float) -> str:
    return f"2^{round(math.log2(unit))}"


def precision(
    cause: Precision, positions: np.ndarray, errors: np.ndarray, used: list[tuple[int, int]]
) -> Finding:
    """``errors[k]``: max |M(m) - R(m)| at ``positions[k]``; ``used``: (position, the position
    it turned as) for rounded positions. Only errors far above rounding noise are quoted, at
    two significant digits."""
    dtype, where = cause.dtype, cause.where
    behaviour = (
        "exact at position 0, off by about the same amount at every other position"
        if where == "tables"
        else "exact at position 0, wrong at large positions"
    )
    order = np.argsort(positions)
    positions, errors = positions[order], errors[order]
    finite = np.isfinite(errors)
    parts = []
    if where == "positions" and used:
        moved = [f"{p} as {u}" for p, u in used if p != u]
        parts.append(
            "read off the angles, positions turn as their "
            f"{dtype} roundings: {_shorten(', '.join(moved), 100)}"
        )
    largest = positions[finite].max(initial=0)
    if largest > 0:
        parts.append(
            f"error {significant(errors[positions == largest][0], 2)} at position {largest}"
        )
    above = np.flatnonzero(~finite | (errors > 1e-3))
    if above.size:
        k = above[0]
        value = "NaN or infinity" if not finite[k] else significant(errors[k], 2)
        parts.append(f"first above 1e-3 at position {positions[k]} ({value})")
    else:
        parts.append("never above 1e-3, but a float64 implementation is exact to 1e-9")
    if cause.overflow_from is not None:
        parts.append(
            f"NaN or infinity from position {cause.overflow_from} on (float16 stops at "
            f"{FLOAT16_MAX:.0f})"
        )
    evidence = "; ".join(parts)
    if where != "positions":
        others = ", ".join(
            f"{name} {_exponent(value)}" for name, value in DTYPES.items() if name != dtype
        )
        evidence += (
            f". The relative error of the angles is of the order of {dtype}'s unit roundoff "
            f"{_exponent(DTYPES[dtype])} ({others})"
        )
    evidence += "."
    if where == "positions":
        fix = (
            f"keep the positions integers (int64) or convert them to float32 or float64, "
            f"never to the model's dtype: position_ids.float(), not position_ids.to(x.dtype). "
            f"{dtype} holds integers exactly only up to "
            f"{2 ** (11 if dtype == 'float16' else 8)}."
        )
    elif where == "tables":
        fix = (
            f"nothing to fix if the model runs in {dtype}: the error does not grow with the "
            "position. Compared with a float64 reference, return float64 (compute in "
            "float64 and cast last)"
            + (
                ", or check it as float32 code, diagnose_rope(fn, dtype='float32')."
                if dtype == "float32"
                else "."
            )
        )
    elif dtype == "float32":
        fix = (
            "float32 angles are the common compromise (transformers forms them so). If "
            "positions this large matter, form θ_i and positions·θ_i in float64, take cos "
            "and sin there and cast only cos and sin to the model's dtype."
        )
    else:
        fix = (
            f"form θ_i and the angles positions·θ_i in float32 at least ({dtype} has "
            f"{'8' if dtype == 'bfloat16' else '11'} significant bits), float64 where it is "
            "available, and cast only cos and sin to the model's dtype; keep θ_i out of "
            "buffers that model.to(dtype) converts."
        )
    return finding(
        "precision", f"{_PRECISION_SUBJECT[where]}, likely {dtype}: {behaviour}.", evidence, fix
    )


def in_place(order: str, pairing_layout: str, ctx: Context, example: tuple) -> Finding:
    """A rotation computed in place: one coordinate of each pair is overwritten, then read."""
    first, second = layout_pairs(ctx.dim, pairing_layout)
    a, b = int(first[0]), int(second[0])
    written, reader = (a, b) if order == "first" else (b, a)
    position, got, rotation = example
    matrix = "[[c, -s], [cs, c - s²]]" if order == "first" else "[[c - s², -cs], [s, c]]"
    first_word = "first" if order == "first" else "second"
    other_word = "second" if order == "first" else "first"
    return finding(
        "in_place",
        f"fn overwrites the {first_word} coordinate of each pair in x (x_{written} of the "
        f"pair ({a}, {b}), …) and then reads it to compute the {other_word}: the second "
        "update sees an already rotated value.",
        f"the matrix of every pair is {matrix} (determinant c²), the in-place update, to "
        f"1e-9: at position {position} coordinate {reader} gets {got:+.4f}·x_{written} where "
        f"a rotation has {rotation:+.4f}; so {_properties(ctx)}; max error "
        f"{ctx.max_error:.2f}.",
        "compute both coordinates from the original x before writing either: write into a "
        f"new array (np.empty_like, torch.cat of the two halves), or keep a copy of the "
        f"{first_word} coordinates for the second update.",
    )


def scale(ctx: Context, found: Scale) -> Finding:
    """cos and sin multiplied by factors: the same one (a scaled rotation) or different ones."""
    if found.uniform:
        s = found.cos
        return finding(
            "scale",
            f"every cos/sin pair has length {significant(s, 5)} instead of 1: fn rotates "
            f"and scales every vector by {significant(s, 5)}, and so every score by "
            f"{significant(s * s, 5)}.",
            f"at position 0 fn(x) = {significant(s, 5)}·x (exactly x for a rotation); at "
            f"every position the matrix is {significant(s, 5)} times a rotation, so "
            f"‖fn(x)‖/‖x‖ = {significant(s, 5)} for every x, and scores stay relative "
            f"(largest spread {bound(ctx.spread.defect if ctx.spread else 0.0, 1e-9 * s * s)})"
            ".",
            "a rotation needs cos² + sin² = 1. If the factor is meant (YaRN's attention "
            "factor, transformers' attention_scaling), it is a temperature on the scores: "
            "check the rotation with the factor divided out.",
        )
    return finding(
        "scale",
        f"cos is multiplied by {significant(found.cos, 5)} and sin by "
        f"{significant(found.sin, 5)}: a factor applied to one of the two tables and not to "
        "the other, so no position gives a rotation.",
        f"at position 0 fn(x) = {significant(found.cos, 5)}·x (the cos factor, read where sin "
        f"= 0); at positions 1 to 8 the sin entries are {significant(found.sin, 5)}·sin mθ_i; "
        f"so {_properties(ctx)}.",
        "multiply cos and sin by the same factor (YaRN's attention factor goes on both, "
        "cos = emb.cos() * s and sin = emb.sin() * s), or by none.",
    )


_NO_CAUSE_FIX = (
    "none of the causes the check knows fits, so it has no fix to offer: compare fn with "
    "ropelab.apply_rope on the unit vectors at positions 0, 1 and 2, and look at what "
    "differs first (the pairing, the cos and sin of each coordinate, their angles)."
)


def not_orthogonal(ctx: Context, context: str = "", table: str = "") -> Finding:
    """Norms change and no specific cause fits: the evidence, and no borrowed advice."""
    return finding(
        "not_orthogonal",
        "fn changes the length of vectors, which a rotation never does, and none of the "
        f"causes the check knows explains it{context}.",
        f"{_properties(ctx)}{table}; max error {ctx.max_error:.2f}.",
        _NO_CAUSE_FIX,
    )


def not_relative(ctx: Context, calls: tuple | None = None, state: float | None = None) -> Finding:
    """Scores depend on more than m - n. ``calls``: (position, largest position of one call,
    largest of the other, difference) when two calls disagree about the same row; ``state``:
    the difference between the first call and the same call repeated at the end."""
    if state is not None:
        return finding(
            "not_relative",
            "fn keeps state between calls that changes its rotation: the same call gives "
            "another output after calls at larger positions.",
            f"the first call (rows at positions 0 to 8), repeated after calls up to position "
            f"{2**20}, changes by {state:.2f}; a key cached before that would no longer match "
            f"a query rotated after it; {_properties(ctx)}.",
            "a position's angles must never change once used: when a cos/sin cache grows, "
            "keep the rows it has (a dynamic base recomputed for the whole cache breaks "
            "every key already cached).",
        )
    if calls is not None:
        position, low, high, diff = calls
        return finding(
            "not_relative",
            "fn rotates a row according to the rest of the call, not only its position: "
            "the same row at the same position comes out differently in different calls.",
            f"a row at position {position} in a call whose largest position is {low} and in "
            f"one whose largest is {high} differ by {diff:.2f}; {_properties(ctx)}.",
            "compute the angles of each row from its own position only: nothing may depend "
            "on the call's length or largest position (a dynamic base computed per call "
            "does), or a key cached in one call and a query rotated in another disagree.",
        )
    return finding(
        "not_relative",
        "the score of q at m and k at n depends on more than m - n, and none of the causes "
        "the check knows explains it.",
        f"{_properties(ctx)}; max error {ctx.max_error:.2f}.",
        _NO_CAUSE_FIX,
    )


def _shorten(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: text.rfind(",", 0, limit)] + ", …"


def _wrap(angle: np.ndarray) -> np.ndarray:
    return (angle + np.pi) % (2 * np.pi) - np.pi


__all__ = [
    "CallContext",
    "Context",
    "batch_axes",
    "describe_law",
    "direction",
    "direction_one_coordinate",
    "exception",
    "frequencies",
    "identity",
    "in_place",
    "not_orthogonal",
    "not_relative",
    "other_layout",
    "pairing",
    "per_coordinate_table",
    "positions_cause",
    "positions_ignored",
    "precision",
    "row_order",
    "scale",
    "shape",
    "single_token",
    "swapped",
    "table_mismatch",
    "unexplained",
]
