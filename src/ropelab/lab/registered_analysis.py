r"""The registered analysis of issue 35, exactly as ``lab/PLAN.md`` sections 3 and 5 say, from
the stored records only (:mod:`ropelab.lab.registered_records`).

Per seed *s* and model *m*, from the per-window arrays (section 3.1), with windows *w*:

* :math:`L_\text{past}(m,s) = \overline{\ell_\text{past}(m,s,w)}^{\,w}`, likewise
  :math:`L_\text{within}`, :math:`L_\text{past\_extra}` and the reference (positions
  [64, 128)); each **excess** is the per-window difference from the reference, averaged;
* :math:`D_b(s) = L_\text{past}(\text{ft-}b, s) - L_\text{past}(\text{ft-1e4}, s)` for *b* in
  500, 60, 30, 16, and for the neighbours :math:`L_\text{past}(\text{smaller}) -
  L_\text{past}(\text{larger})` (60 − 500, 30 − 60, 16 − 30): the seven small-base comparisons,
  each predicted below 0.

Each statistic is the mean over seeds. Its **bootstrap** (section 5) redraws windows (row *b*
of :func:`ropelab.lab.registered.window_draws` with the plan's ``window_draw_seed``, one draw
for every model and seed) and seeds (row *b* of
:func:`ropelab.lab.registered_stats.seed_draws` with ``seed_draw_seed``, over the *n* seeds
analysed, ascending); percentile intervals at 95 % and, for the seven comparisons, at
:math:`\alpha/7` (Bonferroni). The *t* interval over seeds with the windows fixed
(:func:`ropelab.lab.stats.spread`) is reported beside it. Verdicts use the bootstrap
(:mod:`ropelab.lab.registered_verdicts`).

Secondary (sections 3.2 and 5): the supported length at full resolution under the registered
(persist 128) and the original (persist 0) rule: the point from the record, the resample *b*
from the record's ``boot_<rule>[b]`` (the same window draw), averaged over the seeds of seed
draw *b*; a censored length counts as ``at_least``. The seven comparisons are also made with
these lengths (smaller base longer; verdicts from the :math:`\alpha/7` intervals, combined over
the two rules by :func:`ropelab.lab.registered_verdicts.combine_rules`). The Bonferroni
percentiles are computed at exactly :math:`\alpha/14` = 0.357 % and 99.643 % (the plan's
"0.36 % and 99.64 %", rounded). The exponent: per seed, the least-squares
slope of :math:`\ln L` on :math:`\ln\beta` over ft-1e5, ft-1e6, ft-3e6 and ft-1e7, a censored
point left out (the seed enters with at least 3 points, else not at all; the same in every
resample); the statistic is the mean over seeds. The curvature: per seed the coefficient of
:math:`(\ln\beta)^2` of the quadratic fit through the same points (natural logarithms). The
grid of margins 0.05/0.1/0.2 × persist 0/64/128 is read from the binned curves
(:func:`ropelab.lab.results.remeasure_binned`) and is descriptive only.

:func:`analyse` computes one seed set; :func:`analyse_all` the seeds complete now, seeds 3–9
(unseen when the plan was written) and 0–2 (seen) alone, where the unseen verdicts differ from
the ones of all seeds, and the reproducibility check of section 1 (the re-run seeds 0–2 against
``src/ropelab/lab/results/results.json``).

``python -m ropelab.lab.registered_analysis`` prints the verdict table; ``--json PATH`` writes
the results (always with ``complete`` and ``missing_seeds``); ``--write`` writes the package's
``results/registered.json`` and **refuses** (exit status 2) unless every seed of the plan is
complete, so the shipped file is only ever the ten-seed analysis.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from . import registered_verdicts as v
from .evaluate import bin_curve
from .registered import load_record, read_plan, record_paths, window_draws
from .registered_records import RULES, Records, complete_seeds, load_records
from .registered_report import format_report
from .registered_stats import (
    draw_counts,
    masked_coefficient,
    percentile_interval,
    resampled_means,
    resampled_seed_means,
    seed_draws,
)
from .results import RESULTS_DIR, load_results, remeasure_binned, replicate_records
from .stats import spread

__all__ = [
    "FORMAT",
    "GRID_MARGINS",
    "GRID_PERSIST",
    "REGISTERED_JSON",
    "analyse",
    "analyse_all",
    "comparisons",
    "main",
    "reproducibility",
]

#: The format tag of the results.
FORMAT = "ropelab.lab registered analysis 1"
#: Where ``--write`` puts the ten-seed results (package data).
REGISTERED_JSON = RESULTS_DIR / "registered.json"
#: The descriptive grid of section 3.2.
GRID_MARGINS = (0.05, 0.1, 0.2)
GRID_PERSIST = (0, 64, 128)


def _num(x: float) -> float | None:
    return None if not math.isfinite(x) else float(x)


def _pair(interval: tuple[float, float]) -> list[float | None]:
    return [_num(interval[0]), _num(interval[1])]


def _summary(
    per_seed: np.ndarray, resampled: np.ndarray, alpha: float, family: int | None = None
) -> dict[str, Any]:
    """Mean over seeds (NaN seeds left out), its bootstrap percentile interval at ``alpha``
    (and at ``alpha / family``), and the *t* interval over the seeds with windows fixed."""
    values = np.asarray(per_seed, dtype=np.float64)
    finite = values[np.isfinite(values)]
    out: dict[str, Any] = {
        "per_seed": [_num(x) for x in values],
        "n": int(finite.size),
        "mean": _num(float(finite.mean())) if finite.size else None,
        "boot": _pair(percentile_interval(resampled, alpha)),
        "boot_failed": int((~np.isfinite(resampled)).sum()),
    }
    if family is not None:
        out["boot_family"] = _pair(percentile_interval(resampled, alpha / family))
    if finite.size >= 2:
        s = spread(finite)
        out["t"] = [s.mean - s.ci, s.mean + s.ci]
    else:
        out["t"] = [None, None]
    return out


def comparisons(block: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The seven small-base comparisons of section 5 as ``(id, minuend, subtrahend)``: each
    small base minus the control, then each smaller neighbour minus the larger."""
    control, small = block["control"], list(block["small_base_models"])
    out = [(f"{m} vs {control}", m, control) for m in small]
    out += [(f"{b} vs {a}", b, a) for a, b in itertools.pairwise(small)]
    return out


class _Boot:
    """The registered draws for ``n`` seeds: window and seed counts and the seed rows."""

    def __init__(self, block: dict[str, Any], n_seeds: int, n_windows: int) -> None:
        resamples = int(block["bootstrap_resamples"])
        windows = window_draws(resamples, n_windows, block["window_draw_seed"])
        self.seed_rows = seed_draws(resamples, n_seeds, block["seed_draw_seed"])
        self.window_counts = draw_counts(windows, n_windows)
        self.seed_counts = draw_counts(self.seed_rows, n_seeds)

    def windows(self, per_window: np.ndarray) -> np.ndarray:
        return resampled_means(per_window, self.seed_counts, self.window_counts)

    def seeds(self, per_seed: np.ndarray) -> np.ndarray:
        return resampled_seed_means(per_seed, self.seed_rows)


def _fits(
    rec: Records, block: dict[str, Any], boot: _Boot, rule: str, degree: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """Per-seed leading coefficients (point) and their resampled means, and the censored count,
    of the degree-``degree`` fit of ln length on ln base over the exponent models."""
    cols = [rec.index(m) for m in block["exponent_models"]]
    x = np.log(np.array([rec.bases[c] for c in cols]))
    point = rec.points[rule][:, cols]
    mask = ~rec.censored[rule][:, cols]
    per_seed = masked_coefficient(x, np.log(point), mask, degree, 3)
    raw = rec.boot[rule][:, cols, :].astype(np.float64).transpose(0, 2, 1)  # (n, B, 4)
    ok = raw > 0
    logs = np.log(np.where(ok, raw, 1.0))
    resampled = boot.seeds(masked_coefficient(x, logs, ok, degree, 3))
    return per_seed, resampled, int((~mask).sum())


def _grid(rec: Records, block: dict[str, Any]) -> list[dict[str, Any]]:
    """The descriptive grid (section 3.2): per margin and persist, each model's mean length over
    seeds read off the binned curves (censored as ``at_least``) and the per-seed exponent."""
    width = int(block["record_bin_width"])
    context, _ = bin_curve(np.zeros(int(block["eval_len"])), width)
    smooth_bins = max(1, int(block["smooth_window"]) // width)
    cols = [rec.index(m) for m in block["exponent_models"]]
    x = np.log(np.array([rec.bases[c] for c in cols]))
    cells = []
    for margin in GRID_MARGINS:
        for persist in GRID_PERSIST:
            lengths = np.empty(rec.binned.shape[:2])
            cens = np.zeros(rec.binned.shape[:2], dtype=bool)
            for i in range(lengths.shape[0]):
                for j in range(lengths.shape[1]):
                    record = {
                        "loss_curve": {"context": context, "loss": rec.binned[i, j],
                                       "bin_width": width}
                    }  # fmt: skip
                    read = remeasure_binned(
                        record, int(block["train_len"]), margin, smooth_bins=smooth_bins,
                        persist=persist,
                    )  # fmt: skip
                    cens[i, j] = read is None
                    lengths[i, j] = rec.at_least if read is None else read
            slopes = masked_coefficient(x, np.log(lengths[:, cols]), ~cens[:, cols], 1, 3)
            finite = slopes[np.isfinite(slopes)]
            s = spread(finite) if finite.size >= 2 else None
            cells.append({
                "margin": margin, "persist": persist,
                "mean_length": {m: float(lengths[:, j].mean()) for j, m in enumerate(rec.models)},
                "censored": {m: int(cens[:, j].sum()) for j, m in enumerate(rec.models)},
                "exponent_per_seed": [_num(e) for e in slopes],
                "exponent_mean": None if s is None else s.mean,
                "exponent_t": [None, None] if s is None else [s.mean - s.ci, s.mean + s.ci],
            })  # fmt: skip
    return cells


def analyse(rec: Records, block: dict[str, Any]) -> dict[str, Any]:
    """The registered analysis of the seeds of ``rec`` (module docstring): primary measures,
    comparisons, secondary lengths, exponent, curvature, loss-based Theorem 2, the grid and the
    verdict table."""
    alpha = float(block["alpha"])
    n_windows = rec.windows["past"].shape[2]
    boot = _Boot(block, len(rec.seeds), n_windows)
    w = rec.windows
    primary: dict[str, Any] = {}
    for j, model in enumerate(rec.models):
        entry: dict[str, Any] = {}
        for key in ("reference", "past", "within", "past_extra"):
            x = w[key][:, j, :]
            if np.isnan(x).all():
                continue
            entry[key] = _summary(x.mean(1), boot.windows(x), alpha)
            if key != "reference":
                excess = x - w["reference"][:, j, :]
                entry[f"excess_{key}"] = _summary(excess.mean(1), boot.windows(excess), alpha)
        primary[model] = entry

    family = len(comparisons(block))
    compared: dict[str, Any] = {}
    for cid, a, b in comparisons(block):
        ia, ib = rec.index(a), rec.index(b)
        d = w["past"][:, ia, :] - w["past"][:, ib, :]
        loss = _summary(d.mean(1), boot.windows(d), alpha, family)
        loss["verdict"] = v.below_zero(*loss["boot_family"])
        lengths: dict[str, Any] = {}
        for rule in RULES:
            pts = rec.points[rule][:, ia] - rec.points[rule][:, ib]
            raw = {k: rec.boot[rule][:, k, :].astype(np.float64) for k in (ia, ib)}
            for k in raw:
                raw[k][raw[k] < 0] = rec.at_least
            s = _summary(pts, boot.seeds(raw[ia] - raw[ib]), alpha, family)
            lo, hi = s["boot_family"]
            s["verdict"] = v.below_zero(-hi, -lo)  # the smaller base is the longer
            lengths[rule] = s
        lengths["verdict"] = v.combine_rules(
            lengths["registered"]["verdict"], lengths["original"]["verdict"]
        )
        compared[cid] = {"minuend": a, "subtrahend": b, "L_past": loss, "length": lengths}

    supported: dict[str, Any] = {}
    for rule in RULES:
        raw = rec.boot[rule].astype(np.float64)
        raw[raw < 0] = rec.at_least
        supported[rule] = {
            m: {**_summary(rec.points[rule][:, j], boot.seeds(raw[:, j, :]), alpha),
                "censored": int(rec.censored[rule][:, j].sum())}
            for j, m in enumerate(rec.models)
        }  # fmt: skip

    target, margin = float(block["theorem2_exponent"]), float(block["equivalence_margin"])
    exponent: dict[str, Any] = {}
    curvature: dict[str, Any] = {}
    for rule in RULES:
        per_seed, resampled, n_cens = _fits(rec, block, boot, rule, 1)
        exponent[rule] = {**_summary(per_seed, resampled, alpha), "censored_points": n_cens}
        exponent[rule]["verdict"] = v.exponent_one_rule(*exponent[rule]["boot"], target, margin)
        per_seed, resampled, _ = _fits(rec, block, boot, rule, 2)
        curvature[rule] = _summary(per_seed, resampled, alpha)
        lo, hi = curvature[rule]["boot"]
        curvature[rule]["zero_inside"] = None if lo is None else bool(lo <= 0.0 <= hi)
    exponent["verdict"] = v.combine_rules(
        exponent["registered"]["verdict"], exponent["original"]["verdict"]
    )

    threshold = float(block["margin"])
    theorem2: dict[str, Any] = {}
    for m in block["exponent_models"]:
        within, past = primary[m]["excess_within"], primary[m]["excess_past_extra"]
        theorem2[m] = {
            "t_extra_position": rec.extra[rec.index(m)],
            "excess_within": within["mean"], "excess_within_boot": within["boot"],
            "within_verdict": v.at_most(*within["boot"], threshold),
            "excess_past_extra": past["mean"], "excess_past_extra_boot": past["boot"],
            "bound_verdict": v.above(*past["boot"], threshold),
        }  # fmt: skip

    control = block["control"]
    table = [
        {"id": cid, "claim": "small base beats the control" if c["subtrahend"] == control
         else "smaller neighbour beats the larger", "measure": "L_past difference (nats)",
         "mean": c["L_past"]["mean"], "interval": c["L_past"]["boot_family"],
         "interval_95": c["L_past"]["boot"], "t": c["L_past"]["t"],
         "verdict": c["L_past"]["verdict"]}
        for cid, c in compared.items()
    ]  # fmt: skip
    table.append({
        "id": "exponent", "claim": f"exponent = {target}", "measure": "mean per-seed slope",
        "mean": {r: exponent[r]["mean"] for r in RULES},
        "interval": {r: exponent[r]["boot"] for r in RULES},
        "t": {r: exponent[r]["t"] for r in RULES}, "verdict": exponent["verdict"],
    })  # fmt: skip
    for m, t2 in theorem2.items():
        table.append({
            "id": f"within {m}", "claim": "loss inside the bound stays near the reference",
            "measure": "excess L_within (nats)", "mean": t2["excess_within"],
            "interval": t2["excess_within_boot"], "t": primary[m]["excess_within"]["t"],
            "verdict": t2["within_verdict"],
        })  # fmt: skip
    for m, t2 in theorem2.items():
        table.append({
            "id": f"bound {m}", "claim": "the bound is a real bound",
            "measure": "excess L_past_extra (nats)", "mean": t2["excess_past_extra"],
            "interval": t2["excess_past_extra_boot"], "t": primary[m]["excess_past_extra"]["t"],
            "verdict": t2["bound_verdict"],
        })  # fmt: skip
    return {
        "seeds": list(rec.seeds),
        "n_seeds": len(rec.seeds),
        "primary": primary,
        "comparisons": compared,
        "supported_length": supported,
        "exponent": exponent,
        "curvature": curvature,
        "theorem2_loss": theorem2,
        "grid_descriptive": _grid(rec, block),
        "verdicts": table,
    }


def reproducibility(
    records_dir: str | Path, seen: Sequence[int], models: Sequence[str], results: dict[str, Any]
) -> list[dict[str, Any]]:
    """Section 1's check: for every re-run of a seen seed recorded so far, its supported length
    (registered rule, full resolution) and L_past against the committed ones (``results.json``:
    ``measured.supported_length``, persist 128, censored as ``at_least``; L_past as the mean of
    the binned loss curve past ``T_train``, whose bins are equal), with the differences
    re-run − committed."""
    rows = []
    for seed in seen:
        for model in models:
            if not record_paths(records_dir, seed, model)[0].exists():
                continue
            committed = next(
                (r for r in replicate_records(results, model) if r["replicate"] == seed), None
            )
            if committed is None:
                continue
            record, arrays = load_record(records_dir, seed, model)
            measured = committed["measured"]
            old = measured["supported_length"]
            old_len = float(measured["at_least"] if old is None else old)
            curve = committed["loss_curve"]
            start = int(committed["train_len"]) // int(curve["bin_width"])
            old_past = float(np.mean(curve["loss"][start:]))
            new = record["measured"]["supported"]["registered"]["full"]
            new_len = float(record["measured"]["at_least"] if new is None else new)
            new_past = float(np.mean(arrays["window_past"]))
            rows.append({
                "seed": int(seed), "model": model,
                "length_committed": old_len, "length_rerun": new_len,
                "length_difference": new_len - old_len,
                "censored": [old is None, new is None],
                "L_past_committed": old_past, "L_past_rerun": new_past,
                "L_past_difference": new_past - old_past,
            })  # fmt: skip
    return rows


def _verdict_map(result: dict[str, Any] | None) -> dict[str, str]:
    return {} if result is None else {row["id"]: row["verdict"] for row in result["verdicts"]}


def analyse_all(
    records_dir: str | Path, plan_md: str | Path, seeds: Sequence[int] | None = None
) -> dict[str, Any]:
    """The analysis of the complete seeds among ``seeds`` (default: the plan's), of the unseen
    ones (not in ``seen_seeds``) and of the seen ones alone (each with at least two seeds, else
    ``None``), the verdicts where unseen or seen differ from all, and the reproducibility
    check. ``complete`` is true only when every seed of the plan is analysed."""
    block = read_plan(plan_md)
    wanted = list(block["seeds"]) if seeds is None else [int(s) for s in seeds]
    done = complete_seeds(records_dir, wanted, block["models"])
    if len(done) < 2:
        raise ValueError(f"at least two complete seeds are needed, got {done}")
    rec = load_records(records_dir, done, block["models"])
    seen = [s for s in done if s in block["seen_seeds"]]
    unseen = [s for s in done if s not in block["seen_seeds"]]
    subsets = {
        "all": analyse(rec, block),
        "unseen": analyse(rec.subset(unseen), block) if len(unseen) >= 2 else None,
        "seen": analyse(rec.subset(seen), block) if len(seen) >= 2 else None,
    }
    every = _verdict_map(subsets["all"])
    differences = []
    for name in ("unseen", "seen"):
        other = _verdict_map(subsets[name])
        for key, verdict in other.items():
            if verdict != every[key]:
                differences.append({"subset": name, "id": key, "all": every[key], name: verdict})
    seen_wanted = [s for s in block["seen_seeds"] if s in wanted]
    repro = reproducibility(records_dir, seen_wanted, block["models"], load_results())
    missing = [s for s in block["seeds"] if s not in done]
    return {
        "format": FORMAT,
        "plan_md_sha256": hashlib.sha256(Path(plan_md).read_bytes()).hexdigest(),
        "complete": not missing,
        "missing_seeds": missing,
        "seeds_analysed": done,
        "records_sha256": rec.sha256,
        "subsets": subsets,
        "verdict_differences": differences,
        "reproducibility": repro,
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m ropelab.lab.registered_analysis``: print the verdict table, write the JSON."""
    parser = argparse.ArgumentParser(
        prog="python -m ropelab.lab.registered_analysis",
        description="The registered analysis of lab/PLAN.md from the records in lab/registered.",
    )
    parser.add_argument("--records", default="lab/registered", help="the records' folder")
    parser.add_argument("--plan-md", default="lab/PLAN.md", help="the registered plan")
    parser.add_argument("--seeds", type=int, nargs="+", default=None, help="default: the plan's")
    parser.add_argument("--json", default=None, help="write the results here (any seeds)")
    parser.add_argument(
        "--write", action="store_true",
        help=f"write {REGISTERED_JSON.name} into the package (refused unless all seeds are done)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    result = analyse_all(args.records, args.plan_md, args.seeds)
    print(format_report(result))
    text = json.dumps(result, indent=1) + "\n"
    if args.json:
        Path(args.json).write_text(text)
    if args.write:
        if not result["complete"] or args.seeds is not None:
            print(
                f"refusing to write {REGISTERED_JSON}: seeds {result['missing_seeds']} are not "
                "complete (or --seeds was given)",
                file=sys.stderr,
            )
            return 2
        REGISTERED_JSON.write_text(text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
