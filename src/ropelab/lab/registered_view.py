r"""Chapter 7's tables of the pre-registered analysis, read from ``registered.json`` (issue 35).

``src/ropelab/lab/results/registered.json`` is the result of
:mod:`ropelab.lab.registered_analysis` over the ten seeds of ``lab/PLAN.md`` (commit f1b9a5d,
amendment 1 in 91e943c), written from the records in ``lab/registered/`` and shipped as
package data, so that the chapter runs without the records. This module only reads and
formats it; nothing is recomputed here except counts over the stored per-seed values.

The measures (PLAN.md section 3): the primary one is loss-based, :math:`L_\text{past}`, the
mean loss over positions :math:`[128, 4096)` (nats per character), with
:math:`L_\text{within}` over :math:`[128, \lceil T_\text{extra}\rceil)` and
:math:`L_\text{past extra}` over :math:`[\lceil T_\text{extra}\rceil, 4096)`, each also as the
excess over the model's own reference, the mean loss over :math:`[64, 128)`; the secondary one
is the supported length at full resolution under the registered rule (margin 0.1 nats,
smoothing 32, persist 128) and the original first-crossing rule (persist 0). Every interval is
the plan's bootstrap over seeds *and* validation windows (percentiles 2.5 and 97.5; for the
seven small-base comparisons also the Bonferroni ones, 0.36 and 99.64, :math:`\alpha/7`).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .registered_report import format_interval
from .results import RESULTS_DIR

__all__ = [
    "EXPONENT_MODELS",
    "REGISTERED_PATH",
    "SMALL_BASE_MODELS",
    "SUBSETS",
    "format_comparisons",
    "format_grid",
    "format_models",
    "format_reference",
    "format_subset_verdicts",
    "format_theorem2",
    "load_registered",
    "rising_seeds",
    "verdicts_by_subset",
]

#: The committed result of ``python -m ropelab.lab.registered_analysis --write``.
REGISTERED_PATH = RESULTS_DIR / "registered.json"

#: The models of the exponent fit, the bases above :math:`\beta_0` (PLAN.md section 2).
EXPONENT_MODELS = ("ft-1e5", "ft-1e6", "ft-3e6", "ft-1e7")

#: The small bases of Theorem 1 (PLAN.md section 2).
SMALL_BASE_MODELS = ("ft-500", "ft-60", "ft-30", "ft-16")

#: The subsets the analysis reports, with the chapter's name for each.
SUBSETS = {"all": "seeds 0-9", "unseen": "seeds 3-9", "seen": "seeds 0-2"}

_ORDER = ("pretrain", "ft-1e4", *EXPONENT_MODELS, *SMALL_BASE_MODELS)


def load_registered(path: str | Path | None = None) -> dict[str, Any]:
    """The registered analysis (``registered.json``); ``path`` defaults to the package's copy.

    Raises ``ValueError`` when the file is not a complete registered analysis of format 1.
    """
    data = json.loads(Path(path or REGISTERED_PATH).read_text())
    if data.get("format") != "ropelab.lab registered analysis 1" or not data.get("complete"):
        raise ValueError(f"path: not a complete registered analysis: {path or REGISTERED_PATH}")
    return data


def _subset(reg: dict[str, Any], subset: str) -> dict[str, Any]:
    if subset not in reg["subsets"]:
        raise ValueError(f"subset must be one of {sorted(reg['subsets'])}, got {subset!r}")
    return reg["subsets"][subset]


def _length(stat: dict[str, Any]) -> str:
    lo, hi = stat["boot"]
    return f"{stat['mean']:.0f} [{lo:.0f}, {hi:.0f}]"


def _short(key: str) -> str:
    """``500 vs 1e4`` for ``ft-500 vs ft-1e4``: the bases only."""
    return key.replace("ft-", "")


#: The plan's verdict words as the chapter's narrow tables print them.
_VERDICT_CELL = {"inconclusive (depends on the rule)": "depends on rule"}


def format_models(reg: dict[str, Any], subset: str = "all") -> str:
    r"""Per model: :math:`L_\text{past}` (nats) and the supported length under the registered
    and the original rule (tokens), each the mean over seeds with its 95 % bootstrap interval.

    The length is the full-resolution reading of the analysis: its one reading and interval.
    """
    s = _subset(reg, subset)
    lengths = s["supported_length"]
    lines = [
        f"{'model':<9}{'L_past (nats)':<22}{'length, registered':<20}length, original",
    ]
    for name in _ORDER:
        past = s["primary"][name]["past"]
        lines.append(
            f"{name:<9}{past['mean']:.3f} {format_interval(past['boot'], sign=False):<16}"
            f"{_length(lengths['registered'][name]):<20}"
            f"{_length(lengths['original'][name])}"
        )
    return "\n".join(lines)


def format_comparisons(reg: dict[str, Any], subset: str = "all") -> str:
    r"""The seven small-base comparisons of PLAN.md section 5: the paired difference of
    :math:`L_\text{past}` (first model minus second, nats; below 0: the first model reads
    better), its Bonferroni interval (:math:`\alpha/7`, the one the verdict uses), its 95 %
    interval and the verdict."""
    s = _subset(reg, subset)
    lines = [
        f"{'L_past':<12}{'difference':>10}  {'Bonferroni':<20}{'95%':<20}verdict",
    ]
    for key, c in s["comparisons"].items():
        past = c["L_past"]
        lines.append(
            f"{_short(key):<12}{past['mean']:+10.3f}  "
            f"{format_interval(past['boot_family']):<20}"
            f"{format_interval(past['boot']):<20}{past['verdict']}"
        )
    return "\n".join(lines)


def format_theorem2(reg: dict[str, Any], subset: str = "all") -> str:
    r"""Theorem 2 in the registered analysis: the exponent and the curvature of
    :math:`\log L` on :math:`\log\beta` under both rules (mean over seeds, 95 % bootstrap
    interval; the claim is :math:`d_\text{extra}/d = 0.375`), then for each base above
    :math:`\beta_0` the excess :math:`L_\text{within}` and :math:`L_\text{past extra}` over the
    model's reference (nats) with their verdicts (PLAN.md section 5)."""
    s = _subset(reg, subset)
    exp, curv = s["exponent"], s["curvature"]
    lines = [f"{'rule':<12}{'exponent':<27}curvature"]
    for rule in ("registered", "original"):
        e, c = exp[rule], curv[rule]
        lines.append(
            f"{rule:<12}{e['mean']:+.3f} {format_interval(e['boot']):<20}"
            f"{c['mean']:+.3f} {format_interval(c['boot'])}"
        )
    lines.append(f"exponent = 0.375: {exp['verdict']} (both rules)")
    lines.append("")
    lines.append(f"{'model':<8}{'excess of':<14}{'mean, 95% interval':<27}verdict")
    for name in EXPONENT_MODELS:
        t = s["theorem2_loss"][name]
        for label, key, verdict in (
            ("L_within", "excess_within", "within_verdict"),
            ("L_past_extra", "excess_past_extra", "bound_verdict"),
        ):
            lines.append(
                f"{name:<8}{label:<14}{t[key]:+.3f} "
                f"{format_interval(t[key + '_boot']):<20}{t[verdict]}"
            )
    return "\n".join(lines)


def format_reference(reg: dict[str, Any], names: Sequence[str], subset: str = "all") -> str:
    """Each model's reference, its mean loss over positions [64, 128) inside the training
    window (nats), mean over seeds with its 95 % bootstrap interval: descriptive (the plan
    registers no test of it)."""
    s = _subset(reg, subset)
    lines = [f"{'model':<9}loss 64-127 (nats)"]
    for name in names:
        ref = s["primary"][name]["reference"]
        lines.append(f"{name:<9}{ref['mean']:.3f} {format_interval(ref['boot'], sign=False)}")
    return "\n".join(lines)


def format_grid(reg: dict[str, Any], subset: str = "all") -> str:
    """The plan's descriptive grid (PLAN.md section 3.2): the exponent over the bases above
    beta0 for margins 0.05, 0.1, 0.2 nats and persist 0, 64, 128 positions, read at
    16-position bins, mean over seeds with the *t* interval over seeds (windows fixed).
    Never a verdict."""
    s = _subset(reg, subset)
    lines = [f"{'margin':<8}{'persist':>7}  exponent, t interval"]
    for g in s["grid_descriptive"]:
        lines.append(
            f"{g['margin']:<8.2f}{g['persist']:>7}  {g['exponent_mean']:+.3f} "
            f"{format_interval(g['exponent_t'])}"
        )
    return "\n".join(lines)


def verdicts_by_subset(reg: dict[str, Any]) -> dict[str, dict[str, str]]:
    """``{verdict id: {subset: verdict}}`` for every verdict of PLAN.md section 5, the seven
    small-base comparisons' secondary verdicts by length (ids ending in ``(length)``) included."""
    table: dict[str, dict[str, str]] = {}
    for subset in SUBSETS:
        s = _subset(reg, subset)
        for v in s["verdicts"]:
            table.setdefault(v["id"], {})[subset] = v["verdict"]
        for key, c in s["comparisons"].items():
            table.setdefault(f"{key} (length)", {})[subset] = c["length"]["verdict"]
    return table


def format_subset_verdicts(reg: dict[str, Any]) -> str:
    """The verdicts of all ten seeds beside those of seeds 3-9 (unseen when the plan was
    written) and seeds 0-2 alone, with ``*`` where a subset differs from all ten."""
    rows = verdicts_by_subset(reg)
    lines = [f"{'verdict':<21}" + "".join(f"{SUBSETS[s]:<18}" for s in SUBSETS).rstrip()]
    for key, by in rows.items():
        cells = []
        for s in SUBSETS:
            mark = " *" if by[s] != by["all"] else ""
            cells.append(f"{_VERDICT_CELL.get(by[s], by[s]) + mark:<18}")
        lines.append(f"{_short(key):<21}" + "".join(cells).rstrip())
    return "\n".join(lines)


def rising_seeds(reg: dict[str, Any], rule: str, subset: str = "all") -> list[int]:
    r"""The seeds on which the supported length under ``rule`` rises strictly with the base
    through every base above :math:`\beta_0` (``EXPONENT_MODELS``)."""
    s = _subset(reg, subset)
    lengths = s["supported_length"][rule]
    per_model = [lengths[name]["per_seed"] for name in EXPONENT_MODELS]
    return [
        seed
        for k, seed in enumerate(s["seeds"])
        if all(a[k] < b[k] for a, b in itertools.pairwise(per_model))
    ]
