"""Fixed-width tables of the lab's results for chapter 7 (at most 79 characters a line).

* :func:`format_losses` -- each model's loss inside the training window and at the end of the
  evaluated length, with its supported length;
* :func:`format_seeds` -- each model's supported length for every seed, the mean with its
  standard deviation, next to the prediction;
* :func:`format_testtime` -- one model with each test-time method: the length the method takes
  as the original, the supported length, the loss inside the training window and past it;
* :func:`format_exponent_fit` -- the exponent of the supported length against the base,
  fitted per seed, with its interval and the local exponents between neighbouring bases;
* :func:`format_margin_order` -- lengths re-read at several margins with their intervals, and
  which comparisons the intervals decide;
* :func:`format_testtime_grid` -- one number (supported length, or mean loss past the training
  length or at the end) for several models and every method.

Censored lengths print as ``>=N``; a method that does not apply prints ``n/a``. Needs neither
torch nor matplotlib.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .results import claim_cell, model_record, replicate_records, testtime_records
from .stats import SeedExponentFit, Spread, compare, length_spread
from .testtime import METHODS

__all__ = [
    "format_exponent_fit",
    "format_losses",
    "format_margin_order",
    "format_seeds",
    "format_testtime",
    "format_testtime_grid",
    "length_cell",
]


def length_cell(measured: dict[str, Any] | None) -> str:
    """A supported length as printed: ``836``, ``>=2033`` (censored), ``n/a`` (none)."""
    if measured is None:
        return "n/a"
    if measured["supported_length"] is None:
        return f">={measured['at_least']}"
    return str(measured["supported_length"])


def format_losses(results: dict[str, Any], names: Sequence[str]) -> str:
    r"""The loss of each model (seed 0) where it was trained and where it is read far past that.

    Columns: model, the reference loss over :math:`[T_\text{train}/2, T_\text{train})` (positions
    64 to 127 in chapter 7), the mean loss over the last positions of the evaluated length (one
    smoothing window, 32), and the supported length (``>=N`` when censored).
    """
    if not names:
        raise ValueError("names must name at least one model")
    lines = [f"{'model':<13}{'loss 64-127':>12}{'last 32':>10}{'supported':>11}"]
    for name in names:
        m = model_record(results, name)["measured"]
        lines.append(
            f"{name:<13}{m['reference_loss']:>12.3f}{m['loss_at_eval_len']:>10.3f}"
            f"{length_cell(m):>11}"
        )
    return "\n".join(lines)


def format_seeds(results: dict[str, Any], names: Sequence[str]) -> str:
    """Supported length per seed, mean ± standard deviation, and the prediction.

    Columns: model, base, prediction (as in :func:`ropelab.lab.experiment.format_summary`),
    the length of seeds 0, 1, 2 (``-`` for a seed not run), and ``mean ± sd`` over the seeds
    (a ``*`` marks a mean that includes a censored seed, so a lower bound).
    """
    if not names:
        raise ValueError("names must name at least one model")
    lines = [f"{'model':<12}{'base':>8}{'pred':>7}{'seed 0':>9}{'seed 1':>8}{'seed 2':>8}"
             f"{'mean ± sd':>16}"]  # fmt: skip
    for name in names:
        record = model_record(results, name)
        seeds = {
            r["replicate"]: length_cell(r["measured"]) for r in replicate_records(results, name)
        }
        spread, censored = length_spread(results, name)
        base = "-" if record["base"] is None else f"{record['base']:g}"
        mean = f"{spread.mean:.0f} ± {spread.sd:.0f}" if spread.n > 1 else f"{spread.mean:.0f}"
        lines.append(
            f"{name:<12}{base:>8}{claim_cell(record):>7}{seeds.get(0, '-'):>9}"
            f"{seeds.get(1, '-'):>8}{seeds.get(2, '-'):>8}{mean + ('*' if censored else ''):>16}"
        )
    return "\n".join(lines)


def format_testtime(results: dict[str, Any], model: str, replicate: int = 0) -> str:
    """One model with every test-time method run on it (the plain model first).

    Columns: method, the length it takes as the original (``T0``), the supported length, the
    mean loss over :math:`[T_\\text{train}/2, T_\\text{train})` (``in win``), over every
    position past :math:`T_\\text{train}` (``past``) and over the last positions (``end``).
    """
    record = model_record(results, model)
    m = record["measured"]
    curve = record["loss_curve"]["loss"]
    train_len = record["train_len"]
    width = record["loss_curve"]["bin_width"]
    past = sum(curve[train_len // width :]) / len(curve[train_len // width :])
    lines = [f"{'method':<24}{'T0':>6}{'supported':>11}{'in win':>9}{'past':>8}{'end':>8}"]
    lines.append(
        f"{'none (plain model)':<24}{'-':>6}{length_cell(m):>11}"
        f"{m['reference_loss']:>9.3f}{past:>8.3f}{m['loss_at_eval_len']:>8.3f}"
    )
    for r in testtime_records(results, model, replicate):
        if not r["applicable"]:
            lines.append(f"{r['label']:<24}{'-':>6}{'n/a':>11}")
            continue
        t = r["measured"]
        lines.append(
            f"{r['label']:<24}{r['ref_len']:>6}{length_cell(t):>11}"
            f"{t['method_reference_loss']:>9.3f}{t['mean_loss_past_train']:>8.3f}"
            f"{t['loss_at_eval_len']:>8.3f}"
        )
    return "\n".join(lines)


def _plain_value(record: dict[str, Any], column: str) -> str:
    m = record["measured"]
    if column == "supported":
        return length_cell(m)
    if column == "end":
        return f"{m['loss_at_eval_len']:.3f}"
    curve = record["loss_curve"]["loss"]
    start = record["train_len"] // record["loss_curve"]["bin_width"]
    return f"{sum(curve[start:]) / len(curve[start:]):.3f}"


def _method_value(record: dict[str, Any], column: str) -> str:
    if not record["applicable"]:
        return "n/a"
    if column == "supported":
        return length_cell(record["measured"])
    key = "loss_at_eval_len" if column == "end" else "mean_loss_past_train"
    return f"{record['measured'][key]:.3f}"


def format_testtime_grid(
    results: dict[str, Any],
    models: Sequence[str],
    column: str = "supported",
    replicate: int = 0,
) -> str:
    r"""One number per model (columns) and method (rows), the plain model first; ``n/a`` where
    a method does not apply.

    ``column``: ``"supported"`` (the supported length), ``"past"`` (the mean loss over every
    position past :math:`T_\text{train}`) or ``"end"`` (the mean loss over the last positions).
    """
    if not models:
        raise ValueError("models must name at least one model")
    if column not in ("supported", "past", "end"):
        raise ValueError(f"column must be 'supported', 'past' or 'end', got {column!r}")
    head = f"{'method':<24}" + "".join(f"{m:>11}" for m in models)
    lines = [head]
    plain = [_plain_value(model_record(results, m), column) for m in models]
    lines.append(f"{'none (plain model)':<24}" + "".join(f"{c:>11}" for c in plain))
    for method, label in METHODS.items():
        cells = []
        for m in models:
            found = [r for r in testtime_records(results, m, replicate) if r["method"] == method]
            cells.append(_method_value(found[0], column) if found else "-")
        if any(c != "-" for c in cells):
            lines.append(f"{label:<24}" + "".join(f"{c:>11}" for c in cells))
    return "\n".join(lines)


def _base(base: float) -> str:
    """``1e5``, ``3e6``, ``500``: a base as the lab names its models."""
    if base >= 1e4:
        mantissa, exponent = f"{base:.0e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return f"{base:g}"


def format_exponent_fit(fit: SeedExponentFit, theorem: float) -> str:
    r"""The exponent fitted per seed (:func:`ropelab.lab.stats.seed_exponent_fit`), its *t*
    interval over seeds (windows fixed), the local exponents between neighbouring bases, and
    Theorem 2's :math:`d_\text{extra}/d` (``theorem``) for comparison."""
    e = fit.exponent
    inside = e.mean - e.ci <= theorem <= e.mean + e.ci
    lines = [
        f"bases above beta0: {', '.join(_base(b) for b in fit.bases)}; {e.n} seeds; "
        f"censored points left out: {fit.censored}",
        f"exponent per seed: {', '.join(f'{b:.3f}' for b in fit.per_seed)}",
        f"mean {e.mean:.3f}, 95% interval {e.mean - e.ci:.3f} to {e.mean + e.ci:.3f} "
        f"(t, {e.n - 1} d.o.f.)",
        f"Theorem 2's d_extra/d = {theorem:.3f}: {'inside' if inside else 'outside'} the interval",
        "local exponent between neighbouring bases: mean, 95% interval",
    ]
    for a, b, s in fit.local:
        lines.append(
            f"  {_base(a):>4} -> {_base(b):<4} {s.mean:6.3f}   {s.mean - s.ci:6.3f} to "
            f"{s.mean + s.ci:.3f}"
        )
    return "\n".join(lines)


def format_margin_order(
    table: dict[float, dict[str, Spread | None]],
    pairs: Sequence[tuple[str, str]],
    floor: float = 0.0,
) -> str:
    """Supported lengths re-read at several margins (:func:`ropelab.lab.stats.margin_order`):
    ``mean±h`` over the seeds for each model, *h* the half-width of the 95 % interval of the
    mean; then the verdict of :func:`ropelab.lab.stats.compare` on each pair at each margin
    (``>``, ``<``, or ``?`` for inconclusive: the intervals overlap), each interval at least
    ``floor`` wide on either side (half a bin for a binned reading)."""
    if not table:
        raise ValueError("table must hold at least one margin")
    names = list(next(iter(table.values())))

    def short(name: str) -> str:
        return name.removeprefix("ft-")

    lines = [f"{'margin':<8}" + "".join(f"{short(n):>10}" for n in names)]
    for margin, row in table.items():
        cells = []
        for name in names:
            s = row[name]
            cells.append(
                "-" if s is None else f"{s.mean:.0f}±{s.ci:.0f}" if s.n > 1 else f"{s.mean:.0f}"
            )
        lines.append(f"{margin:<8g}" + "".join(f"{c:>10}" for c in cells))
    per_block = 5  # 8 + 5 x 12 characters: every line within 79
    for start in range(0, len(pairs), per_block):
        block = pairs[start : start + per_block]
        labels = [f"{short(a)} vs {short(b)}" for a, b in block]
        lines += ["", f"{'margin':<8}" + "".join(f"{label:>12}" for label in labels)]
        for margin, row in table.items():
            verdicts = []
            for a, b in block:
                sa, sb = row[a], row[b]
                v = "inconclusive" if sa is None or sb is None else compare(sa, sb, floor)
                verdicts.append("?" if v == "inconclusive" else v)
            lines.append(f"{margin:<8g}" + "".join(f"{v:>12}" for v in verdicts))
    return "\n".join(lines)
