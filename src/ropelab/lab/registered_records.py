"""The stored records of the registered runs, gathered into arrays for the analysis
(``lab/PLAN.md`` section 4).

:func:`complete_seeds` lists the seeds whose every model has a record; :func:`load_records`
reads them (through :func:`ropelab.lab.registered.load_record`, which checks each ``.npz``
against the SHA-256 in its JSON) into a :class:`Records`: per seed *s* and model *m*, the
per-window measures of section 3.1, the supported lengths at full resolution under the
registered and the original rule (point and the 10 000 window resamples, section 3.2) and the
window-averaged binned curve (for the descriptive grid).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .registered import load_record, record_paths

__all__ = ["RULES", "WINDOW_KEYS", "Records", "complete_seeds", "load_records"]

#: The two readings of the supported length (section 3.2) and their ``persist`` keys.
RULES = ("registered", "original")

#: The per-window arrays of a record (section 4), by the measure they hold.
WINDOW_KEYS = {
    "reference": "window_reference",
    "past": "window_past",
    "within": "window_within",
    "past_extra": "window_past_extra",
}


@dataclass(frozen=True)
class Records:
    """The records of ``seeds`` × ``models``, as arrays indexed ``[seed, model, ...]``.

    Attributes:
        seeds, models: the seeds (ascending) and the models (the plan's order).
        bases: each model's RoPE base.
        extra: each model's first position past :math:`T_\\text{extra}` (``None`` without).
        windows: ``{"reference"|"past"|"within"|"past_extra": (n_seeds, n_models, n_windows)}``.
        points: ``{rule: (n_seeds, n_models)}``: the supported length at full resolution from
            the record, the censored ones as ``at_least``.
        censored: ``{rule: (n_seeds, n_models)}``, bool.
        boot: ``{rule: (n_seeds, n_models, n_resamples)}`` int16, ``-1`` where censored.
        binned: ``(n_seeds, n_models, n_bins)``: the binned per-window losses averaged over
            the windows.
        at_least: the censoring length (the last centre's context, 4 081).
        sha256: ``{"seed-<k>/<model>": the .npz's SHA-256}``.
    """

    seeds: tuple[int, ...]
    models: tuple[str, ...]
    bases: tuple[float, ...]
    extra: tuple[int | None, ...]
    windows: dict[str, np.ndarray]
    points: dict[str, np.ndarray]
    censored: dict[str, np.ndarray]
    boot: dict[str, np.ndarray]
    binned: np.ndarray
    at_least: int
    sha256: dict[str, str] = field(default_factory=dict)

    def index(self, model: str) -> int:
        """The position of ``model`` in :attr:`models`."""
        return self.models.index(model)

    def subset(self, seeds: Sequence[int]) -> Records:
        """The same records restricted to ``seeds`` (each one of :attr:`seeds`)."""
        missing = [s for s in seeds if s not in self.seeds]
        if missing:
            raise ValueError(f"seeds must be among {list(self.seeds)}, got {missing}")
        rows = [self.seeds.index(s) for s in sorted(seeds)]
        return Records(
            tuple(sorted(seeds)), self.models, self.bases, self.extra,
            {k: v[rows] for k, v in self.windows.items()},
            {k: v[rows] for k, v in self.points.items()},
            {k: v[rows] for k, v in self.censored.items()},
            {k: v[rows] for k, v in self.boot.items()},
            self.binned[rows], self.at_least,
            {k: v for k, v in self.sha256.items() if int(k.split("/")[0][5:]) in seeds},
        )  # fmt: skip


def complete_seeds(
    out: str | os.PathLike, seeds: Sequence[int], models: Sequence[str]
) -> list[int]:
    """The seeds of ``seeds`` for which every model of ``models`` has its JSON and ``.npz``
    record under ``out`` (a JSON is written last, so it means "done")."""
    done = []
    for seed in seeds:
        paths = [record_paths(out, seed, m) for m in models]
        if all(j.exists() and n.exists() for j, n in paths):
            done.append(int(seed))
    return done


def load_records(out: str | os.PathLike, seeds: Sequence[int], models: Sequence[str]) -> Records:
    """Read the records of every seed in ``seeds`` and model in ``models`` (all must exist)."""
    seeds = sorted(int(s) for s in seeds)
    if not seeds:
        raise ValueError("seeds must not be empty")
    windows: dict[str, list[list[np.ndarray]]] = {k: [] for k in WINDOW_KEYS}
    points: dict[str, list[list[float]]] = {r: [] for r in RULES}
    censored: dict[str, list[list[bool]]] = {r: [] for r in RULES}
    boot: dict[str, list[list[np.ndarray]]] = {r: [] for r in RULES}
    binned: list[list[np.ndarray]] = []
    bases: list[float] = []
    extra: list[int | None] = []
    at_least: set[int] = set()
    sha: dict[str, str] = {}
    for i, seed in enumerate(seeds):
        for k in windows:
            windows[k].append([])
        for r in RULES:
            points[r].append([])
            censored[r].append([])
            boot[r].append([])
        binned.append([])
        for model in models:
            record, arrays = load_record(out, seed, model)
            measured: dict[str, Any] = record["measured"]
            if i == 0:
                bases.append(float(record["base"]))
                extra.append(measured["t_extra_position"])
            elif float(record["base"]) != bases[len(binned[-1])]:
                raise ValueError(f"seed {seed} {model}: base differs from seed {seeds[0]}")
            at_least.add(int(measured["at_least"]))
            sha[f"seed-{seed}/{model}"] = record["arrays"]["sha256"]
            for k, key in WINDOW_KEYS.items():
                windows[k][-1].append(np.asarray(arrays[key], dtype=np.float64))
            for r in RULES:
                full = measured["supported"][r]["full"]
                censored[r][-1].append(full is None)
                points[r][-1].append(float(measured["at_least"] if full is None else full))
                boot[r][-1].append(np.asarray(arrays[f"boot_{r}"]))
            binned[-1].append(np.asarray(arrays["window_loss"], dtype=np.float64).mean(0))
    if len(at_least) != 1:
        raise ValueError(f"records must share one 'at_least', got {sorted(at_least)}")
    return Records(
        tuple(seeds), tuple(models), tuple(bases), tuple(extra),
        {k: np.array(v) for k, v in windows.items()},
        {r: np.array(v) for r, v in points.items()},
        {r: np.array(v, dtype=bool) for r, v in censored.items()},
        {r: np.array(v) for r, v in boot.items()},
        np.array(binned), at_least.pop(), sha,
    )  # fmt: skip
