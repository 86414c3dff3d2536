r"""The verdicts of the registered analysis: ``lab/PLAN.md`` section 5's table, as functions of
an interval ``(lo, hi)``.

| claim | support | refutation | otherwise |
| --- | --- | --- | --- |
| a difference is negative (:func:`below_zero`) | ``hi < 0`` | ``lo > 0`` | inconclusive (0 inside) |
| exponent = 0.375 (:func:`exponent_one_rule`) | ``lo <= 0.375 <= hi`` and ``[lo, hi]`` inside ``[0.275, 0.475]`` | ``hi < 0.375`` or ``lo > 0.375`` | inconclusive |
| excess L_within near the reference (:func:`at_most`) | ``hi <= 0.1`` | ``lo > 0.1`` | inconclusive |
| the bound is a real bound (:func:`above`) | ``lo > 0.1`` | ``hi <= 0.1`` | inconclusive |

An interval that touches 0 contains it. A length-based verdict is "support" or "refutation" only
when the registered and the original rule give the same one, else "inconclusive (depends on the
rule)" (:func:`combine_rules`, section 3.2). An interval with a NaN end is inconclusive.
"""

from __future__ import annotations

import math

__all__ = [
    "DEPENDS",
    "INCONCLUSIVE",
    "REFUTATION",
    "SUPPORT",
    "above",
    "at_most",
    "below_zero",
    "combine_rules",
    "exponent_one_rule",
]

SUPPORT = "support"
REFUTATION = "refutation"
INCONCLUSIVE = "inconclusive"
DEPENDS = "inconclusive (depends on the rule)"


def _finite(lo: float, hi: float) -> bool:
    return math.isfinite(lo) and math.isfinite(hi)


def below_zero(lo: float, hi: float) -> str:
    """The claim "the difference is below 0" (small base beats the control, the smaller
    neighbour beats the larger, by L_past): support when the whole interval is below 0,
    refutation when it is above, inconclusive when it contains 0."""
    if not _finite(lo, hi):
        return INCONCLUSIVE
    if hi < 0.0:
        return SUPPORT
    if lo > 0.0:
        return REFUTATION
    return INCONCLUSIVE


def exponent_one_rule(lo: float, hi: float, target: float, margin: float) -> str:
    """The exponent claim under one rule: support when ``[lo, hi]`` contains ``target`` and lies
    inside ``[target - margin, target + margin]`` (the equivalence margin), refutation when it
    excludes ``target``, inconclusive otherwise (contains it but too wide)."""
    if not _finite(lo, hi):
        return INCONCLUSIVE
    if hi < target or lo > target:
        return REFUTATION
    if lo >= target - margin and hi <= target + margin:
        return SUPPORT
    return INCONCLUSIVE


def at_most(lo: float, hi: float, threshold: float) -> str:
    """The claim "the excess stays near the reference": support when ``hi <= threshold``,
    refutation when ``lo > threshold``, inconclusive otherwise."""
    if not _finite(lo, hi):
        return INCONCLUSIVE
    if hi <= threshold:
        return SUPPORT
    if lo > threshold:
        return REFUTATION
    return INCONCLUSIVE


def above(lo: float, hi: float, threshold: float) -> str:
    """The claim "the bound is a real bound": support when ``lo > threshold``, refutation when
    ``hi <= threshold``, inconclusive otherwise."""
    if not _finite(lo, hi):
        return INCONCLUSIVE
    if lo > threshold:
        return SUPPORT
    if hi <= threshold:
        return REFUTATION
    return INCONCLUSIVE


def combine_rules(registered: str, original: str) -> str:
    """One length-based verdict from the verdicts under the two rules: the common verdict when
    they agree, :data:`DEPENDS` when they do not."""
    return registered if registered == original else DEPENDS
