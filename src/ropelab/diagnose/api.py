r"""``diagnose_rope``: check an implementation of RoPE and name the bug (chapter 3A).

The checks run in the order of the causes they can rule out:

1. A call with random rows at small positions: does fn run, return x's shape, finite values?
2. The same rows at other positions, and in reverse order: does fn read its positions, and
   only the position of each row? (``identity``, ``positions``)
3. The matrix of ``x -> fn(x, m)`` at 24 positions from 0 to :math:`2^{20}`, one call each
   with the d unit vectors as rows, and a call with a query and a key at pairs of positions.
4. The calls of real code (issue 24): one token at a small and at a large position (a decode
   step), the first call again after all the others (a cache that grew, state kept between
   calls) and, for a batched fn, a batch of two sequences of four heads with different
   positions. Each is compared with what fn's own matrices give for the same rows.
   If every output of every probe equals the exact rotation to the tolerance (relative: 1e-9
   for float64, 1e-6 for float32, or the caller's), the diagnosis is OK, and only then.
5. Otherwise the pairing, the factors on cos and sin and the cos/sin table are read off the
   matrices (:mod:`~ropelab.diagnose.structure`: ``pairing``, ``scale``, ``in_place``,
   ``table_mismatch``, ``direction``), then the angle of every plane
   (:mod:`~ropelab.diagnose.angles`: ``direction``, ``positions``, ``frequencies``,
   ``precision``), then the calls of step 4 (``positions``, ``not_relative``). Only what these
   causes leave unexplained is reported as a failed property
   (:mod:`~ropelab.diagnose.properties`: ``not_orthogonal``, ``not_relative``), so that each
   root cause gives one finding, not one per symptom.
6. An error above the tolerance that none of these causes explains (one probe or several,
   the one-token path included) is never dropped: ``unexplained`` names each probe where it
   was measured and says that the cause is unknown.

About 32 calls of at most ``dim`` rows each.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from .._checks import check_base, check_dim, check_layout
from ..core import apply_rope, inv_freq, rotation_matrix
from . import explain
from .angles import (
    ROUNDING,
    Direction,
    Frequencies,
    Offset,
    PositionMap,
    Precision,
    Swapped,
    analyse_angles,
    effective_position,
)
from .probes import (
    BATCH_HEADS,
    BATCH_POSITIONS,
    MATRIX_POSITIONS,
    OTHER_ROW_POSITIONS,
    PAIR_GROUPS,
    ROW_POSITIONS,
    SINGLE_POSITIONS,
    Outcome,
    Prober,
)
from .properties import combine, matrix_norms, matrix_scores, row_norms, score_spread
from .report import Diagnosis, Finding
from .structure import (
    Scale,
    Structure,
    in_place_order,
    layout_pairs,
    plane_angles,
    read_scale,
    read_structure,
    unscale,
    wrap,
)

#: The verdict "exact": every output within this of the exact rotation, relative to ‖x‖.
TOLERANCE = 1e-9
#: The verdict's tolerance for an implementation that computes in each type (``dtype=``):
#: float64 is exact to about 2e-10 at position 2^20; float32 with angles formed in float64
#: (or exactly) and cos, sin, x and the products in float32 is exact to a few units of
#: 2^-24 ≈ 6e-8 at every position. (float32 *angles* are off by about m·θ_i·2^-24, 0.06 rad
#: at position 2^20: that is ``precision`` at either tolerance.)
TOLERANCES = {"float64": 1e-9, "float32": 1e-6}
#: The largest rotary dimension checked: 24 matrices of 1024 x 1024 float64 take 200 MB.
MAX_DIM = 1024
#: Beyond this relative difference, two calls disagree about the same row at the same position.
INCONSISTENT = 0.03


def diagnose_rope(
    fn: Callable[[np.ndarray, np.ndarray], Any],
    *,
    layout: str = "half",
    dim: int = 64,
    base: float = 10000.0,
    batched: bool = False,
    dtype: str = "float64",
    tolerance: float | None = None,
) -> Diagnosis:
    r"""Check an implementation of RoPE and name what is wrong with it (chapter 3A).

    ``fn(x, positions)`` receives a float64 numpy array ``x`` of shape ``(seq, dim)`` and an
    int64 array ``positions`` of shape ``(seq,)`` and returns the rotated array (numpy, or
    anything ``np.asarray`` reads, such as a CPU torch tensor). It is compared with the exact
    rotation :math:`R^d_{\Theta,m}` of ``layout`` with :math:`\theta_i = \beta^{-2i/d}`
    (RoFormer eq. 15 and 34) at positions up to :math:`2^{20}`.

    Args:
        fn: the implementation under test.
        layout: the pairing fn means to implement: ``"half"`` (pairs ``(i, i + d/2)``,
            transformers' ``rotate_half``) or ``"interleaved"`` (pairs ``(2i, 2i+1)``).
        dim: the rotary dimension *d*, a positive even integer up to 1024 (the check reads
            24 matrices of d x d: 0.8 MB at d = 64, 200 MB at d = 1024).
        base: :math:`\beta > 0` (``rope_theta``).
        batched: fn takes the shapes of transformers' q and ``position_ids``: ``x`` of shape
            ``(batch, heads, seq, dim)`` and positions ``(batch, seq)``, the same positions
            for every head. Every probe is then one sequence of one head, and one more call
            checks a batch of two sequences of four heads (:func:`from_cos_sin` wraps a
            transformers-style ``rotary`` and ``apply_rotary_pos_emb``).
        dtype: the type fn computes in, ``"float64"`` or ``"float32"``; it sets the
            tolerance when ``tolerance`` is None: 1e-9 for float64, 1e-6 for float32 (right
            float32 code, cos, sin and x in float32 with the angles formed in float64, is
            exact to a few units of 2^-24). fn still receives float64 arrays.
        tolerance: the verdict's tolerance on the relative error of every output, a number
            from 1e-15 to 1e-2 (None: the tolerance of ``dtype``). The report states it.

    Returns:
        A :class:`~ropelab.diagnose.report.Diagnosis`: ``ok`` is True only when every output
        of every probe equals the exact rotation to the tolerance (relative to the input's
        norm); otherwise ``findings`` has one :class:`~ropelab.diagnose.report.Finding` per
        root cause, with a code from :data:`~ropelab.diagnose.report.CODES`
        (``unexplained`` for errors no known cause explains). An exception raised inside
        ``fn`` becomes an ``"exception"`` finding; it is never propagated.

    Raises:
        ValueError: ``fn`` is not callable, ``dim`` is not a positive even integer up to
            1024, ``base`` is not a positive finite number, ``layout`` is unknown,
            ``dtype`` is not ``"float64"`` or ``"float32"``, or ``tolerance`` is not a number
            from 1e-15 to 1e-2.
    """
    if not callable(fn):
        raise ValueError(
            f"fn must be callable as fn(x, positions), got {type(fn).__name__} {fn!r:.60}"
        )
    layout = check_layout(layout)
    dim = check_dim(dim)
    if dim > MAX_DIM:
        raise ValueError(
            f"dim must be a positive even integer <= {MAX_DIM} (the check holds 24 matrices "
            f"of dim x dim float64), got {dim}"
        )
    base = check_base(base)
    if not isinstance(batched, bool | np.bool_):
        raise ValueError(f"batched must be True or False, got {batched!r}")
    if not isinstance(dtype, str) or dtype not in TOLERANCES:
        raise ValueError(f"dtype must be one of {tuple(TOLERANCES)}, got {dtype!r}")
    tol = _check_tolerance(tolerance, dtype)
    run = _Run(Prober(fn, dim, bool(batched)), layout, dim, base, tol)
    findings = run.diagnose()
    return Diagnosis(
        findings=findings,
        layout=layout,
        dim=dim,
        base=base,
        calls=run.prober.calls,
        max_error=run.max_error,
        positions=max(MATRIX_POSITIONS),
        tolerance=tol,
    )


def _check_tolerance(tolerance: Any, dtype: str) -> float:
    if tolerance is None:
        return TOLERANCES[dtype]
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float | np.floating):
        raise ValueError(f"tolerance must be a number from 1e-15 to 1e-2, got {tolerance!r}")
    value = float(tolerance)
    if not (math.isfinite(value) and 1e-15 <= value <= 1e-2):
        raise ValueError(f"tolerance must be a number from 1e-15 to 1e-2, got {tolerance!r}")
    return value


class _Run:
    """One diagnosis: the probes, their exact references, and the reasoning over them."""

    def __init__(
        self, prober: Prober, layout: str, dim: int, base: float, tol: float = TOLERANCE
    ) -> None:
        self.prober, self.layout, self.dim, self.base = prober, layout, dim, base
        self.tol = tol
        self.probe_errors: list[tuple[str, float]] = []  # (where, relative error) per probe
        self.rows: list[tuple[str, Outcome]] = []  # the calls of random rows, named
        self.single_gaps: list[tuple[int, float]] = []  # one-token calls vs fn's own matrix
        self.single_reported = False  # a one-token call got a ``positions`` finding
        self.theta = inv_freq(dim, base)
        self.max_error = float("nan")
        self.matrices: dict[int, np.ndarray] = {}  # position -> matrix (NaN when not finite)
        self.before: dict[int, int] = {}  # position -> largest position of the earlier calls
        self.exception: Finding | None = None
        self.checks: list[Outcome] = []  # the calls of real code (one token, again, batch)
        self.call_findings: list[Finding] = []
        self.state_change: float | None = None

    # ---------------------------------------------------------------- the probes

    def exact(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return apply_rope(x, positions.astype(np.float64), base=self.base, layout=self.layout)

    def _context(self, outcome: Outcome, probe: str, ran_up_to: int | None = None):
        return explain.CallContext(
            probe,
            tuple(outcome.input_shape),
            _describe_positions(outcome.positions),
            ran_up_to,
            self.prober.batched,
        )

    def _failure(
        self, outcome: Outcome, probe: str = "first", ran_up_to: int | None = None
    ) -> Finding | None:
        if outcome.error is not None:
            return explain.exception(outcome.error, self._context(outcome, probe, ran_up_to))
        if outcome.shape_problem is not None:
            return explain.shape(
                outcome.shape_problem, tuple(outcome.input_shape), outcome.output_shape
            )
        return None

    def diagnose(self) -> list[Finding]:
        x = self.prober.random_rows(len(ROW_POSITIONS))
        first = self.prober.call(x, ROW_POSITIONS)
        failure = self._failure(first)
        if failure is not None:
            return [failure]
        if not first.finite_rows().all():
            return [explain.shape("NaN or infinity at positions 0 to 8", first.input_shape)]
        reference = self.exact(x, ROW_POSITIONS)
        self.max_error = _relative_error(first.output, reference, x)
        self.rows.append(("the first call (rows at positions 0 to 8)", first))

        moved = self.prober.call(x, OTHER_ROW_POSITIONS)
        failure = self._failure(moved)
        if failure is not None:
            return [failure]
        self.rows.append(("the same rows at other positions", moved))
        change = float(np.abs(moved.output - first.output).max())
        if change <= 1e-12 * max(1.0, float(np.abs(first.output).max())):
            unrotated = float(np.abs(first.output - x).max())
            if unrotated <= 1e-12:
                return [explain.identity(float(np.abs(reference - x).max()))]
            used = self._row_positions(x, first.output)
            return [explain.positions_ignored(used, ROW_POSITIONS.tolist())]

        reversed_ = self.prober.call(x[::-1], ROW_POSITIONS[::-1])
        failure = self._failure(reversed_)
        if failure is not None:
            return [failure]
        self.rows.append(("the same rows in reverse order", reversed_))
        change = float(np.abs(reversed_.output[::-1] - first.output).max())
        if change > self.tol * float(np.linalg.norm(x, axis=-1).max()):
            used = self._row_positions(x, first.output)
            return [explain.row_order(change, used, ROW_POSITIONS.tolist())]

        failure = self._read_matrices()
        if failure is not None and failure.code == "shape":
            return [failure]
        self.exception = failure
        pairs = self.prober.random_rows(2)
        pairs /= np.linalg.norm(pairs, axis=-1, keepdims=True)  # unit q and k: scores in [-1, 1]
        pair_outcome = self._pair_probe(pairs)
        ran = max(self.matrices) if self.matrices else None
        failure = self._failure(pair_outcome, "pairs", ran)
        if failure is not None and failure.code == "shape":
            return [failure]
        if failure is not None and self.exception is None:
            self.exception = failure
        failure = self._call_checks(x, first)
        if failure is not None and failure.code == "shape":
            return [failure]
        if failure is not None and self.exception is None:
            self.exception = failure

        self._measure_errors(first, pair_outcome)
        if self.exception is None and self.max_error <= self.tol:
            return []
        findings = [self.exception] if self.exception is not None else []
        findings += self._explain(first, pair_outcome, pairs)
        for extra in self.call_findings:
            if extra.code == "not_relative":
                findings = [f for f in findings if f.code != "not_relative"]
            findings.append(extra)
        return findings + self._unexplained(findings)

    def _unexplained(self, findings: list[Finding]) -> list[Finding]:
        """The catch-all: an error above the tolerance that no finding explains. With no
        finding, every probe above the tolerance; with findings from the matrices, the
        one-token calls that differ from fn's own matrices (no cause read off the matrices
        explains a one-token path of its own), unless rounding (``precision``) was found."""
        ctx = getattr(self, "ctx", None)
        if ctx is None:
            ctx = explain.Context(
                self.layout, self.dim, self.base, self.theta, self.max_error, tolerance=self.tol
            )
        if not findings and self.max_error > self.tol:
            above = sorted(
                ((w, e) for w, e in self.probe_errors if not e <= self.tol),
                key=lambda item: -item[1] if math.isfinite(item[1]) else -math.inf,
            )
            clean = _clean_probes(self.probe_errors, self.tol)
            return [explain.unexplained(ctx, above, clean, _rounding_of(above))]
        if self.state_change is not None or any(f.code == "precision" for f in findings):
            return []
        if self.single_reported:
            return []  # the one-token path already has its finding
        gaps = [
            (f"one row at position {p} (a decode step), against fn's own matrix there", g)
            for p, g in self.single_gaps
            if g > self.tol
        ]
        if not gaps:
            return []
        return [explain.unexplained(ctx, gaps, [], _rounding_of(gaps))]

    def _read_matrices(self) -> Finding | None:
        """Read M(m) at every probe position; the first failure (exception or shape)."""
        last_ok = None
        for position in MATRIX_POSITIONS:
            self.before[position] = max(self.prober.history)
            outcome = self.prober.matrix(position)
            failure = self._failure(outcome, "matrix", last_ok)
            if failure is not None:  # larger positions would fail the same way
                return failure
            self.matrices[position] = outcome.output.T.copy()
            last_ok = position
        return None

    def _pair_probe(self, pairs: np.ndarray) -> Outcome | None:
        """A query and a key at every pair of PAIR_GROUPS, in one call."""
        rows, positions = [], []
        for group in PAIR_GROUPS:
            for m, n in group:
                rows += [pairs[0], pairs[1]]
                positions += [m, n]
        return self.prober.call(np.array(rows), np.array(positions, dtype=np.int64))

    # ---------------------------------------------------------------- the calls of real code

    def _own(self, row: np.ndarray, position: int) -> np.ndarray | None:
        """What fn's own matrix at ``position`` gives for ``row`` (None: not read)."""
        matrix = self.matrices.get(int(position))
        if matrix is None or not np.all(np.isfinite(matrix)):
            return None
        return matrix @ row

    def _call_checks(self, x: np.ndarray, first: Outcome) -> Finding | None:
        """One token at a time, the first call again, a batch: each against fn's own
        matrices (so that a bug of the matrices is not counted twice). Returns the first
        exception or bad shape; the findings go to ``call_findings``."""
        singles = []
        for position in SINGLE_POSITIONS:
            row = self.prober.random_rows(1)
            outcome = self.prober.call(row, np.array([position]))
            self.checks.append(outcome)
            failure = self._failure(outcome, "single")
            if failure is not None:
                return failure
            own = self._own(row[0], position)
            if own is None or not np.all(np.isfinite(outcome.output)):
                continue
            diff = float(np.linalg.norm(outcome.output[0] - own) / np.linalg.norm(row))
            self.single_gaps.append((position, diff))
            used = None
            if diff > INCONSISTENT:
                found = self._row_positions(row, outcome.output)
                used = found[0] if found is not None else None
            singles.append((position, used, diff if diff > INCONSISTENT else 0.0))
        again = self.prober.call(x, ROW_POSITIONS)
        self.checks.append(again)
        failure = self._failure(again, "again")
        if failure is not None:
            return failure
        change = _relative_error(again.output, first.output, x)
        if change > self.tol:
            # state kept between calls: the matrices read earlier no longer describe fn, so
            # the one-token calls cannot be compared with them
            self.state_change = change
        elif any(d > 0 for _, _, d in singles):
            self.single_reported = True
            self.call_findings.append(
                explain.single_token(singles, self.prober.batched, self.layout)
            )

        if self.prober.batched:
            failure = self._batch_probe()
            if failure is not None:
                return failure
        return None

    def _batch_probe(self) -> Finding | None:
        """Two sequences of BATCH_HEADS heads; each row against fn's matrix at its position."""
        batch, seq = BATCH_POSITIONS.shape
        x = self.prober.rng.standard_normal((batch, BATCH_HEADS, seq, self.dim))
        outcome = self.prober.call_shaped(x, BATCH_POSITIONS)
        failure = self._failure(outcome, "batch")
        if failure is not None:
            return failure
        positions = np.broadcast_to(BATCH_POSITIONS[:, None, :], x.shape[:-1])
        flat = Outcome(
            x.reshape(-1, self.dim), positions.reshape(-1), outcome.output.reshape(-1, self.dim)
        )
        self.checks.append(flat)
        candidates = sorted(set(BATCH_POSITIONS.ravel().tolist()))
        used = np.full(x.shape[:-1], -1, dtype=np.int64)
        worst = 0.0
        for index in np.ndindex(*x.shape[:-1]):
            row, out = x[index], outcome.output[index]
            norm = np.linalg.norm(row)
            own = self._own(row, int(positions[index]))
            if own is None or not np.all(np.isfinite(out)):
                used[index] = positions[index]
                continue
            worst = max(worst, float(np.linalg.norm(out - own) / norm))
            distances = [
                np.linalg.norm(out - self._own(row, p)) / norm
                if self._own(row, p) is not None
                else np.inf
                for p in candidates
            ]
            best = int(np.argmin(distances))
            if distances[best] <= INCONSISTENT:
                used[index] = candidates[best]
        if worst <= INCONSISTENT:
            return None
        first_row = np.broadcast_to(BATCH_POSITIONS[:1, None, :], used.shape)
        pattern = "first" if np.array_equal(used, first_row) else "other"
        self.call_findings.append(explain.batch_axes(pattern, used, BATCH_POSITIONS, worst))
        return None

    def _measure_errors(self, first: Outcome, pair_outcome: Outcome | None) -> None:
        """The relative error of every probe against the exact rotation, named; the
        largest is ``max_error`` (a matrix's error is that of its worst unit vector)."""
        named: list[tuple[str, Outcome | None]] = [
            *self.rows,
            ("the query-key pairs", pair_outcome),
        ]
        labels = {
            "single": "one row at position {p} (a decode step)",
            "again": "the first call repeated after all others",
        }
        for outcome in self.checks:
            if outcome.x.shape[0] == 1:
                named.append((labels["single"].format(p=int(outcome.positions[0])), outcome))
            elif outcome is self.checks[-1] and self.prober.batched:
                named.append(("the batch of 2 sequences of 4 heads", outcome))
            else:
                named.append((labels["again"], outcome))
        errors = []
        for where, outcome in named:
            if outcome is not None and outcome.output is not None:
                reference = self.exact(outcome.x, outcome.positions)
                errors.append((where, _relative_error(outcome.output, reference, outcome.x)))
        for position, matrix in self.matrices.items():
            exact = rotation_matrix(position, self.dim, self.base, self.layout)
            columns = np.linalg.norm(matrix - exact, axis=0)
            errors.append((f"the matrix at position {position}", _nan_max(columns)))
        self.probe_errors = errors
        self.max_error = float(max([self.max_error, *(e for _, e in errors)]))

    # ---------------------------------------------------------------- the reasoning

    def _row_positions(self, x: np.ndarray, y: np.ndarray) -> list[int] | None:
        """The position each row was rotated as, if every row is a rotation of the layout."""
        used = []
        for layout in (self.layout, explain.other_layout(self.layout)):
            first, second = layout_pairs(self.dim, layout)
            angles = np.arctan2(
                x[:, first] * y[:, second] - x[:, second] * y[:, first],
                x[:, first] * y[:, first] + x[:, second] * y[:, second],
            )
            used = [effective_position(row, self.theta) for row in angles]
            if all(p is not None for p in used):
                return [int(p) for p in used]
        return None

    def _consistency(self, first: Outcome, pair_outcome: Outcome | None):
        """Largest relative difference between a call's rows and M(position) @ row, with
        (position, the call's largest position, the matrix call's, difference)."""
        worst, detail = 0.0, None
        for outcome in (first, pair_outcome):
            if outcome is None or outcome.output is None:
                continue
            largest = int(outcome.positions.max())
            for row, position, out in zip(
                outcome.x, outcome.positions, outcome.output, strict=True
            ):
                own = self._own(row, int(position))
                if own is None or not np.all(np.isfinite(out)):
                    continue
                difference = float(np.linalg.norm(out - own) / np.linalg.norm(row))
                if difference > worst:
                    low, high = sorted((int(position), largest))
                    worst, detail = difference, (int(position), low, high, difference)
        return worst, detail

    def _context_measures(self, pairs: np.ndarray, pair_outcome: Outcome | None, linear: bool):
        """The property measurements every message may quote."""
        finite = {p: m for p, m in self.matrices.items() if np.all(np.isfinite(m))}
        norms = spread = None
        if finite:
            if linear:  # singular values are the norm changes only for a linear map
                norms = matrix_norms(np.stack(list(finite.values())))
            spread = score_spread(matrix_scores(finite, pairs[0], pairs[1]))
            if spread is not None:
                spread = replace(spread, separate_calls=True)
        if pair_outcome is not None and pair_outcome.output is not None:
            rows = pair_outcome.finite_rows()
            norms = combine(norms, row_norms(pair_outcome.x[rows], pair_outcome.output[rows]))
            scores = {}
            out, pos = pair_outcome.output, pair_outcome.positions
            for k in range(0, len(pos), 2):
                if rows[k] and rows[k + 1]:
                    scores[(int(pos[k]), int(pos[k + 1]))] = float(out[k] @ out[k + 1])
            in_call = score_spread(scores)
        for outcome in [o for _, o in self.rows] + self.checks:  # every call's rows
            rows = outcome.finite_rows()
            if rows.any():
                norms = combine(norms, row_norms(outcome.x[rows], outcome.output[rows]))
        if pair_outcome is not None and pair_outcome.output is not None:
            if in_call is not None and (spread is None or in_call.defect > spread.defect):
                spread = in_call
        if spread is not None:
            exact = rotation_matrix(spread.distance, self.dim, self.base, self.layout)
            spread = replace(spread, expected=float(pairs[0] @ exact @ pairs[1]))
        return explain.Context(
            self.layout, self.dim, self.base, self.theta, self.max_error, norms, spread, self.tol
        )

    def _explain(self, first: Outcome, pair_outcome: Outcome | None, pairs: np.ndarray):
        inconsistency, detail = self._consistency(first, pair_outcome)
        linear = inconsistency <= INCONSISTENT
        ctx = self._context_measures(pairs, pair_outcome, linear)
        self.ctx = ctx
        finite = {p: m for p, m in self.matrices.items() if np.all(np.isfinite(m))}
        if self.state_change is not None:
            self.call_findings.append(explain.not_relative(ctx, state=self.state_change))
        if not linear:
            if self.state_change is not None:
                return []
            return [explain.not_relative(ctx, calls=detail)]
        if not {0, 1, 2, 3} <= set(finite):
            return [self._property_finding(ctx, "")]
        structure = read_structure(np.stack([finite[p] for p in sorted(finite)]), self.layout)
        return self._explain_structure(structure, sorted(finite), ctx)

    def _scale(self, structure: Structure, positions: list[int]) -> Scale | None:
        """The factors on cos and sin, when they are not 1 (and the matrices explain them)."""
        stack = np.stack([self.matrices[p] for p in positions])
        found = read_scale(stack, positions, structure.pairs)
        if found is not None:
            if abs(found.cos - 1.0) <= TOLERANCE and abs(found.sin - 1.0) <= ROUNDING:
                return None
            return found
        if structure.amplitudes is None:
            return None
        amplitudes = structure.amplitudes
        median = float(np.median(amplitudes))
        if abs(median - 1.0) > ROUNDING and np.ptp(amplitudes) <= ROUNDING * median:
            return Scale(median, median)  # one factor, read where M(0) is not a multiple of I
        return None

    def _explain_structure(self, structure: Structure, positions: list[int], ctx) -> list[Finding]:
        if structure.pairing == "diagonal":
            return [
                self._property_finding(
                    ctx, ": no coordinate is mixed with its partner (is the sin term missing?)"
                )
            ]
        if structure.pairing == "general":
            return [self._property_finding(ctx, ": outputs mix more than two coordinates")]
        if structure.pairing == "other":
            return [explain.pairing("other", structure.pairs, ctx)]
        findings: list[Finding] = []
        pairing_layout = structure.pairing
        stack = np.stack([self.matrices[p] for p in positions])
        order = in_place_order(stack, structure.pairs)
        if order is not None:
            k = positions.index(1)
            a, b = structure.pairs[0]
            written, reader = (a, b) if order == "first" else (b, a)
            rotation = float(np.sin(self.theta[0])) * (1.0 if order == "first" else -1.0)
            example = (1, float(stack[k, reader, written]), rotation)
            return [explain.in_place(order, pairing_layout, ctx, example)]
        found = self._scale(structure, positions)
        if found is not None:
            # cos and sin multiplied by factors (an attention factor, as YaRN's): one cause;
            # the angles can still be read once the factors are divided out
            findings.append(explain.scale(ctx, found))
            for p in self.matrices:
                self.matrices[p] = unscale(self.matrices[p], found)
            stack = np.stack([self.matrices[p] for p in positions])
            structure = read_structure(stack, self.layout)
        if pairing_layout in structure.table:
            planes = pairing_layout
            if pairing_layout != self.layout:
                findings.append(explain.pairing(pairing_layout, structure.pairs, ctx))
        elif structure.table:
            planes = structure.table[0]
            index = {p: k for k, p in enumerate(positions)}
            steps = wrap(structure.angles[index[1]] - structure.angles[index[0]])
            findings.append(explain.table_mismatch(planes, pairing_layout, steps, ctx))
        else:
            return findings + self._no_table(structure, positions, ctx)
        amplitudes = structure.amplitudes
        amp_dev = np.abs(amplitudes - 1.0).max(axis=1)
        if amp_dev.max() > ROUNDING:
            note = ": the cos and sin it applies are not those of one angle"
            return [*findings, self._property_finding(ctx, note, structure)]
        all_positions = np.array(MATRIX_POSITIONS, dtype=np.int64)
        phi = np.full((len(all_positions), self.dim // 2), np.nan)
        dev = np.zeros(len(all_positions))
        rows = plane_angles(structure, planes)
        lookup = {p: k for k, p in enumerate(positions)}
        for k, p in enumerate(all_positions):
            if int(p) in lookup:
                phi[k] = rows[lookup[int(p)]]
                dev[k] = amp_dev[lookup[int(p)]]
        present = np.array([int(p) in self.matrices for p in all_positions])
        report = analyse_angles(all_positions[present], phi[present], dev[present], self.theta)
        errors = self._matrix_errors(all_positions[present], planes, report)
        for cause in report.causes:
            findings.append(
                self._angle_finding(
                    cause, ctx, phi, all_positions, errors, all_positions[present], planes
                )
            )
        if not report.explained:
            findings.append(self._property_finding(ctx, ""))
        return findings

    def _no_table(self, structure: Structure, positions: list[int], ctx) -> list[Finding]:
        """The two coordinates of a pair turn by different angles: a sign flipped in one of
        them, a table with one frequency per coordinate, or no cause the check knows."""
        angles, amplitudes = structure.angles, structure.amplitudes
        first, second = layout_pairs(self.dim, structure.pairing)
        index = {p: k for k, p in enumerate(positions)}
        k1 = index[1]
        mirrored = np.abs(wrap(angles[:, first] + angles[:, second])).max() <= 1e-9
        if mirrored and np.abs(amplitudes - 1.0).max() <= 1e-9:
            a, b = int(first[0]), int(second[0])
            measured = (float(angles[k1, a]), float(angles[k1, b]))
            # the coordinate that turns against the law of the other planes is the wrong one
            backwards = "first" if measured[0] < 0 < measured[1] else "second"
            return [explain.direction_one_coordinate(backwards, structure.pairing, ctx, measured)]
        steps = wrap(angles[k1] - angles[index[0]])
        per_coordinate = self.base ** (-np.arange(self.dim) / self.dim)
        if (
            np.abs(wrap(steps - per_coordinate)).max() <= 1e-7
            and np.abs(amplitudes - 1.0).max() <= ROUNDING
        ):
            return [explain.per_coordinate_table(structure.pairing, steps, ctx)]
        note = ": the two coordinates of a pair are not turned by one rotation"
        return [self._property_finding(ctx, note, structure)]

    def _matrix_errors(self, positions: np.ndarray, planes: str, report) -> np.ndarray:
        """max |M(m) - R(m)| at each position, R the rotation that the causes found other than
        precision predict (the exact one when there are none), to measure the rounding."""
        errors = np.empty(len(positions))
        for k, position in enumerate(positions):
            matrix = self.matrices[int(position)]
            if report.law is None:
                exact = rotation_matrix(int(position), self.dim, self.base, self.layout)
            else:
                angles = wrap(report.start + position * report.law)
                exact = rotation_matrix(1.0, self.dim, layout=planes, inv_freq=angles)
            errors[k] = np.abs(matrix - exact).max() if np.all(np.isfinite(matrix)) else np.inf
        return errors

    def _angle_finding(self, cause, ctx, phi, all_positions, errors, present, planes) -> Finding:
        if isinstance(cause, Direction):
            k = int(np.flatnonzero(all_positions == 1)[0])
            return explain.direction(ctx, float(phi[k, 0]))
        if isinstance(cause, Swapped):
            k0, k1 = (int(np.flatnonzero(all_positions == p)[0]) for p in (0, 1))
            return explain.swapped(ctx, (float(phi[k0, 0]), float(phi[k1, 0])))
        if isinstance(cause, Offset | PositionMap):
            grown = None
            if isinstance(cause, PositionMap):
                grown = [self.before.get(int(p), 0) for p in cause.probed]
            return explain.positions_cause(cause, ctx, grown)
        if isinstance(cause, Frequencies):
            return explain.frequencies(cause, ctx)
        if isinstance(cause, Precision):
            used = []
            if cause.where == "positions":
                for k, p in enumerate(all_positions):
                    if np.all(np.isfinite(phi[k])):
                        turned = effective_position(phi[k], self.theta)
                        if turned is not None:
                            used.append((int(p), int(turned)))
            return explain.precision(cause, present, errors, used)
        raise TypeError(f"unknown cause {cause!r}")  # pragma: no cover

    def _property_finding(self, ctx, note: str, structure: Structure | None = None) -> Finding:
        """A failed property, when no cause explains what the probes show."""
        norm = ctx.norms.defect if ctx.norms is not None else 0.0
        score = ctx.spread.defect if ctx.spread is not None else 0.0
        if norm > self.tol:
            table = ""
            if structure is not None and structure.amplitudes is not None:
                squares = structure.amplitudes**2
                table = (
                    f"; read off the matrices, cos² + sin² of a coordinate ranges from "
                    f"{squares.min():.4f} to {squares.max():.4f} (1 for a rotation)"
                )
            return explain.not_orthogonal(ctx, note, table)
        if score > self.tol or 1 not in self.matrices:
            return explain.not_relative(ctx)
        row = self.matrices[1][0]
        inputs = [int(c) for c in np.flatnonzero(np.abs(row) > 1e-12)]
        expected = [0, int(layout_pairs(self.dim, self.layout)[1][0])]
        if inputs != expected:
            return explain.reordered(ctx, inputs)
        # the coordinates are where the layout puts them: not a reordering, a cause unknown
        above = [(w, e) for w, e in self.probe_errors if not e <= self.tol]
        above.sort(key=lambda item: -item[1] if math.isfinite(item[1]) else -math.inf)
        clean = _clean_probes(self.probe_errors, self.tol)
        return explain.unexplained(ctx, above, clean, _rounding_of(above))


def _relative_error(output: np.ndarray, reference: np.ndarray, x: np.ndarray) -> float:
    difference = np.linalg.norm(output - reference, axis=-1) / np.linalg.norm(x, axis=-1)
    return float(np.nanmax(np.where(np.isfinite(difference), difference, np.inf)))


def _clean_probes(errors: list[tuple[str, float]], tol: float) -> list[str]:
    """The probes within the tolerance, in words (the matrices as one group)."""
    matrices = [w for w, _ in errors if w.startswith("the matrix at")]
    clean_matrices = [w for w, e in errors if w.startswith("the matrix at") and e <= tol]
    out = [w for w, e in errors if not w.startswith("the matrix at") and e <= tol]
    if matrices and len(clean_matrices) == len(matrices):
        out.append(f"the matrices at all {len(matrices)} positions (fn of the unit vectors)")
    return out


def _rounding_of(above: list[tuple[str, float]]) -> str | None:
    """The floating-point type whose rounding the largest unexplained error matches (None:
    larger than any rounding)."""
    finite = [e for _, e in above if math.isfinite(e)]
    if not finite:
        return None
    exponent = math.log2(max(finite))
    if -27 <= exponent <= -19:
        return "float32"
    if -14 <= exponent <= -5:
        return "16-bit"
    return None


def _nan_max(values: np.ndarray) -> float:
    return float(np.max(np.where(np.isfinite(values), values, np.inf)))


def _describe_positions(positions: np.ndarray) -> str:
    low, high = int(positions.min()), int(positions.max())
    return f"all equal to {low}" if low == high else f"from {low} to {high}"
