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

Needs neither torch nor matplotlib.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import check_count, check_positive
from .results import replicate_records, supported_or_censored

__all__ = [
    "PowerFit",
    "Spread",
    "exponent_fit",
    "fit_power_law",
    "length_spread",
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


def exponent_fit(results: dict[str, Any]) -> PowerFit | None:
    """:func:`fit_power_law` of the supported length against the base, through the pre-trained
    model and the fine-tunes with larger bases at the training length with all planes: every
    seed, censored ones left out (their length is only a lower bound). ``None`` with fewer than
    two such bases or three points. This is the exponent Theorem 2 puts at
    :math:`d_\text{extra}/d`."""
    plan = results["meta"]["plan"]
    pre_base, train_len = plan["model"]["base"], plan["train_len"]
    names = [
        r["name"]
        for r in results["models"]
        if r["kind"] != "baseline"
        and r["keep_planes"] is None
        and r["tune_len"] == train_len
        and (r["kind"] == "pretrain" or r["base"] > pre_base)
    ]
    bases, lengths = [], []
    for name in names:
        for record in replicate_records(results, name):
            length, censored = supported_or_censored(record)
            if not censored:
                bases.append(record["base"])
                lengths.append(length)
    if len(set(bases)) < 2 or len(bases) < 3:
        return None
    return fit_power_law(bases, lengths)
