r"""Error bars for the lab's measurements: spread over seeds and the fitted exponent (chapter 7).

Each replicate of the lab repeats the pre-training and some fine-tunes with other seeds (initial
weights and the order of the batches), so a supported length comes as a few numbers, one per
seed. :func:`spread` summarises them: mean, sample standard deviation, range, and the 95 %
confidence interval of the mean, :math:`\bar x \pm t_{0.975,\,n-1}\, s/\sqrt n`.

Theorem 2 predicts :math:`T_\text{extra} \propto \beta^{d_\text{extra}/d}`; :func:`fit_power_law`
fits :math:`\log L = a + b\log\beta` by least squares and gives the slope *b* with its
confidence interval :math:`b \pm t_{(1+c)/2,\,n-2}\,\mathrm{se}(b)`, with
:math:`\mathrm{se}(b)^2 = \frac{\sum_j r_j^2/(n-2)}{\sum_j (\log\beta_j - \overline{\log\beta})^2}`.
The quantiles of Student's *t* come from :func:`t_quantile` (no SciPy needed).

The fine-tunes of one seed share that seed's pre-trained model, so the points of one seed are
not independent: :func:`seed_exponent_fit` treats the **seed** as the unit. Each seed's own fit
over the bases above :math:`\beta_0` gives one exponent; their mean comes with the *t* interval
of :func:`spread` (windows fixed). The range of a pooled fit over resampled seeds is not an
interval and is not reported (issue 35); chapter 7's primary intervals are the registered
analysis's bootstrap over seeds and windows (:mod:`ropelab.lab.registered_stats`). :func:`compare` orders two
quantities measured per seed only when their 95 % intervals do not overlap, and calls the
comparison inconclusive otherwise; :func:`margin_order` applies it across margins.

Needs neither torch nor matplotlib.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import check_count, check_positive
from .results import remeasure_binned, replicate_records, supported_or_censored

__all__ = [
    "PowerFit",
    "SeedExponentFit",
    "Spread",
    "compare",
    "exponent_fit",
    "fit_power_law",
    "length_spread",
    "margin_order",
    "seed_exponent_fit",
    "spread",
    "t_quantile",
]


def _t_cdf_upper_half(x: float, dof: int) -> float:
    """:math:`\\int_0^x f_\\nu(u)\\,du` for Student's t density, by Simpson's rule."""
    log_norm = math.lgamma((dof + 1) / 2) - math.lgamma(dof / 2) - 0.5 * math.log(dof * math.pi)
    # substitute u = x v on [0, 1]; 4000 intervals keep the error below 1e-10 here
    v = np.linspace(0.0, 1.0, 4001)
    u = x * v
    f = np.exp(log_norm - (dof + 1) / 2 * np.log1p(u * u / dof))
    weights = np.ones_like(v)
    weights[1:-1:2], weights[2:-1:2] = 4.0, 2.0
    return float(x * (v[1] - v[0]) / 3.0 * np.dot(weights, f))


@functools.lru_cache(maxsize=256)
def t_quantile(p: float, dof: int) -> float:
    r"""The quantile :math:`t_{p,\nu}` of Student's *t* distribution with ``dof`` degrees of freedom.

    Solves :math:`\tfrac12 + \int_0^t f_\nu(u)\,du = p` (``0.5 <= p < 1``) by bisection, with
    :math:`f_\nu(u) \propto (1 + u^2/\nu)^{-(\nu+1)/2}` integrated by Simpson's rule after the
    substitution :math:`u = t\,v`. Accurate to about 1e-6 for :math:`p \le 0.995`
    (:math:`t_{0.975,2} = 4.3027`, :math:`t_{0.975,10} = 2.2281`).
    """
    dof = check_count(dof, "dof")
    if not 0.5 <= p < 1.0:
        raise ValueError(f"p must be in [0.5, 1), got {p}")
    target = p - 0.5
    lo, hi = 0.0, 1.0
    while _t_cdf_upper_half(hi, dof) < target:
        hi *= 2.0
        if hi > 1e6:
            raise ValueError(f"p = {p} is too close to 1 for dof = {dof}")
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if _t_cdf_upper_half(mid, dof) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class Spread:
    """Summary of one quantity measured once per seed.

    Attributes:
        values: the measurements, in replicate order.
        mean: their mean.
        sd: the sample standard deviation (``ddof = 1``; 0 for a single value).
        lo, hi: the smallest and largest value.
        ci: half-width of the 95 % confidence interval of the mean,
            :math:`t_{0.975,n-1}\\,s/\\sqrt n` (``nan`` for a single value).
    """

    values: tuple[float, ...]
    mean: float
    sd: float
    lo: float
    hi: float
    ci: float

    @property
    def n(self) -> int:
        return len(self.values)


def spread(values: Any) -> Spread:
    """:class:`Spread` of a 1-D sequence of finite numbers (at least one)."""
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("values must be a non-empty 1-D sequence of finite numbers")
    n = x.size
    sd = float(x.std(ddof=1)) if n > 1 else 0.0
    ci = t_quantile(0.975, n - 1) * sd / math.sqrt(n) if n > 1 else float("nan")
    return Spread(
        tuple(float(v) for v in x), float(x.mean()), sd, float(x.min()), float(x.max()), ci
    )


def length_spread(results: dict[str, Any], name: str) -> tuple[Spread, int]:
    """The supported lengths of model ``name`` over its replicates, and how many are censored.

    A censored replicate (the loss never rose past the margin) counts with its lower bound
    ``at_least``, so the mean is then a lower bound too.
    """
    lengths, censored = [], 0
    for record in replicate_records(results, name):
        length, is_censored = supported_or_censored(record)
        lengths.append(length)
        censored += int(is_censored)
    return spread(lengths), censored


@dataclass(frozen=True)
class PowerFit:
    """A least-squares fit :math:`L = A\\beta^{b}` on log-log axes (see :func:`fit_power_law`).

    Attributes:
        exponent: the slope *b*.
        prefactor: *A*.
        se: the standard error of *b*.
        lo, hi: the confidence interval of *b* at ``level``.
        level: the confidence level.
        n: the number of points.
    """

    exponent: float
    prefactor: float
    se: float
    lo: float
    hi: float
    level: float
    n: int

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the interval ``[lo, hi]``."""
        return self.lo <= value <= self.hi


def fit_power_law(bases: Any, lengths: Any, level: float = 0.95) -> PowerFit:
    """Fit :math:`\\log L = \\log A + b \\log\\beta` by least squares (module docstring).

    Args:
        bases: positive bases, one per point (repeat a base for its replicates).
        lengths: positive lengths, as many.
        level: the confidence level of the interval, in (0, 1).

    Raises:
        ValueError: fewer than three points, fewer than two distinct bases, or bad values.
    """
    x = np.asarray(bases, dtype=np.float64)
    y = np.asarray(lengths, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1 or x.size < 3:
        raise ValueError("bases and lengths must be 1-D of the same length, at least 3 points")
    if not (np.all(np.isfinite(x) & (x > 0)) and np.all(np.isfinite(y) & (y > 0))):
        raise ValueError("bases and lengths must be positive and finite")
    x, y = np.log(x), np.log(y)
    level = check_positive(level, "level")
    if level >= 1.0:
        raise ValueError(f"level must be in (0, 1), got {level:g}")
    sxx = float(((x - x.mean()) ** 2).sum())
    if sxx == 0.0:
        raise ValueError("bases must hold at least two distinct values")
    slope = float(((x - x.mean()) * (y - y.mean())).sum() / sxx)
    intercept = float(y.mean() - slope * x.mean())
    residual = y - (intercept + slope * x)
    dof = x.size - 2
    se = math.sqrt(float((residual**2).sum()) / dof / sxx)
    half = t_quantile((1 + level) / 2, dof) * se
    return PowerFit(slope, math.exp(intercept), se, slope - half, slope + half, level, x.size)


def _larger_base_names(results: dict[str, Any]) -> list[str]:
    """Fine-tunes at the training length, all planes, with a base above the pre-training's."""
    plan = results["meta"]["plan"]
    pre_base, train_len = plan["model"]["base"], plan["train_len"]
    return [
        r["name"]
        for r in results["models"]
        if r["kind"] == "finetune"
        and r["keep_planes"] is None
        and r["tune_len"] == train_len
        and r["base"] > pre_base
    ]


def exponent_fit(results: dict[str, Any]) -> PowerFit | None:
    r""":func:`fit_power_law` of the supported length against the base, pooled over every seed,
    through the fine-tunes with bases above the pre-training base :math:`\beta_0` (at the
    training length, all planes), censored lengths left out. The pre-trained model is not a
    point: at :math:`\beta = \beta_0` Theorem 3's bound is :math:`T_\text{tune}`, not Theorem
    2's :math:`T_\text{extra}`. Its interval treats the points as independent, which the seeds'
    shared pre-training makes them not: :func:`seed_exponent_fit` is the one to report. ``None``
    with fewer than two bases or three points."""
    bases, lengths = [], []
    for name in _larger_base_names(results):
        for record in replicate_records(results, name):
            length, censored = supported_or_censored(record)
            if not censored:
                bases.append(record["base"])
                lengths.append(length)
    if len(set(bases)) < 2 or len(bases) < 3:
        return None
    return fit_power_law(bases, lengths)


def _slope(x: np.ndarray, y: np.ndarray) -> float:
    x, y = np.log(x), np.log(y)
    sxx = float(((x - x.mean()) ** 2).sum())
    return float(((x - x.mean()) * (y - y.mean())).sum() / sxx)


@dataclass(frozen=True)
class SeedExponentFit:
    r"""The exponent of :math:`L \propto \beta^b` with the seed as the unit (module docstring).

    Attributes:
        bases: the bases fitted, ascending (all above the pre-training base).
        per_seed: each seed's own least-squares exponent, in replicate order.
        exponent: :func:`spread` of ``per_seed``: the mean and its 95 % *t* interval.
        local: ``(base_a, base_b, Spread)`` for each pair of neighbouring bases: the exponent
            between them, :math:`\log(L_b/L_a)/\log(\beta_b/\beta_a)`, per seed.
        censored: points left out because their length is only a lower bound.
    """

    bases: tuple[float, ...]
    per_seed: tuple[float, ...]
    exponent: Spread
    local: tuple[tuple[float, float, Spread], ...]
    censored: int


def seed_exponent_fit(
    results: dict[str, Any], margin: float | None = None
) -> SeedExponentFit | None:
    r"""The exponent fitted per seed over the bases above :math:`\beta_0` (module docstring).

    A seed enters with every base it has an uncensored length for (at least two); ``None`` when
    fewer than two seeds do. ``margin``: the lengths re-read at this margin from the binned
    curves (:func:`ropelab.lab.results.remeasure_binned`) instead of the recorded ones.
    """
    names = _larger_base_names(results)
    train_len = results["meta"]["plan"]["train_len"]
    by_seed: dict[int, dict[float, float]] = {}
    censored = 0
    for name in names:
        for record in replicate_records(results, name):
            if margin is None:
                length, is_censored = supported_or_censored(record)
            else:
                reread = remeasure_binned(record, train_len, margin)
                length, is_censored = (reread or 0.0), reread is None
            if is_censored:
                censored += 1
                continue
            by_seed.setdefault(int(record["replicate"]), {})[float(record["base"])] = length
    seeds = sorted(s for s, points in by_seed.items() if len(points) >= 2)
    if len(seeds) < 2:
        return None
    per_seed = []
    for seed in seeds:
        points = by_seed[seed]
        x = np.array(sorted(points))
        per_seed.append(_slope(x, np.array([points[b] for b in x])))
    bases = sorted({b for s in seeds for b in by_seed[s]})
    local = []
    for a, b in itertools.pairwise(bases):
        slopes = [
            math.log(by_seed[s][b] / by_seed[s][a]) / math.log(b / a)
            for s in seeds
            if a in by_seed[s] and b in by_seed[s]
        ]
        if slopes:
            local.append((a, b, spread(slopes)))
    return SeedExponentFit(
        tuple(bases), tuple(per_seed), spread(per_seed), tuple(local), censored,
    )  # fmt: skip


def compare(a: Spread, b: Spread, floor: float = 0.0) -> str:
    """``">"`` or ``"<"`` when the 95 % intervals of the two means do not overlap, else
    ``"inconclusive"`` (always, when either has a single value and so no interval).

    ``floor``: the least half-width an interval is given, such as the resolution of a reading
    (seeds that agree to the bin have a zero-width interval that says nothing finer).
    """
    if a.n < 2 or b.n < 2:
        return "inconclusive"
    ha, hb = max(a.ci, floor), max(b.ci, floor)
    if a.mean - ha > b.mean + hb:
        return ">"
    if a.mean + ha < b.mean - hb:
        return "<"
    return "inconclusive"


def margin_order(
    results: dict[str, Any], names: Any, margins: Any
) -> dict[float, dict[str, Spread | None]]:
    """``{margin: {name: Spread of its lengths over the seeds}}``, re-read at each margin.

    Each seed's length is :func:`ropelab.lab.results.remeasure_binned` of its binned loss curve
    (one bin of resolution); a seed whose loss never rises past the margin counts with the
    evaluated length as a lower bound. ``None`` for a model with no replicate.
    """
    plan = results["meta"]["plan"]
    train_len, eval_len = plan["train_len"], plan["eval_len"]
    table: dict[float, dict[str, Spread | None]] = {}
    for margin in margins:
        margin = check_positive(margin, "margin")
        row: dict[str, Spread | None] = {}
        for name in names:
            lengths = []
            for record in replicate_records(results, name):
                length = remeasure_binned(record, train_len, margin)
                lengths.append(float(eval_len) if length is None else length)
            row[name] = spread(lengths) if lengths else None
        table[margin] = row
    return table
