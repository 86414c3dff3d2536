"""ropelab.lab.stats: Student's t quantiles against published tables, spreads and the fitted
exponent against numpy's own least squares."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ropelab.lab.stats import (
    Spread,
    compare,
    exponent_fit,
    fit_power_law,
    length_spread,
    margin_order,
    seed_exponent_fit,
    spread,
    t_quantile,
)

# Two-sided 95 % critical values of Student's t (NIST/SEMATECH e-Handbook, table 1.3.6.7.2)
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 10: 2.228, 20: 2.086, 30: 2.042}


def test_t_quantile_matches_the_published_table():
    for dof, value in T975.items():
        assert t_quantile(0.975, dof) == pytest.approx(value, abs=6e-4)
    assert t_quantile(0.5, 7) == pytest.approx(0.0, abs=1e-9)
    assert t_quantile(0.95, 10) == pytest.approx(1.812, abs=6e-4)  # one-sided 95 %
    assert t_quantile(0.975, 100_000) == pytest.approx(1.95996, abs=1e-4)  # the normal's
    with pytest.raises(ValueError, match="p must be"):
        t_quantile(1.0, 3)
    with pytest.raises(ValueError, match="dof"):
        t_quantile(0.9, 0)


def test_spread_of_three_seeds():
    s = spread([836, 900, 812])
    assert s.n == 3 and s.mean == pytest.approx(849.333333)
    sd = math.sqrt(((836 - s.mean) ** 2 + (900 - s.mean) ** 2 + (812 - s.mean) ** 2) / 2)
    assert s.sd == pytest.approx(sd) and (s.lo, s.hi) == (812, 900)
    assert s.ci == pytest.approx(4.3027 * sd / math.sqrt(3), rel=1e-4)
    one = spread([5.0])
    assert one.sd == 0.0 and math.isnan(one.ci)
    with pytest.raises(ValueError, match="values"):
        spread([])
    with pytest.raises(ValueError, match="values"):
        spread([1.0, float("inf")])


def test_fit_power_law_recovers_an_exact_law_and_agrees_with_polyfit():
    bases = np.array([1e4, 1e5, 1e6, 1e7])
    exact = fit_power_law(bases, 2 * math.pi * bases**0.375)
    assert exact.exponent == pytest.approx(0.375, abs=1e-12)
    assert exact.prefactor == pytest.approx(2 * math.pi, rel=1e-9)
    assert exact.se == pytest.approx(0.0, abs=1e-12)
    rng = np.random.default_rng(0)
    b = np.repeat(bases, 3)
    lengths = 3.0 * b**0.33 * np.exp(rng.normal(0, 0.05, b.size))
    fit = fit_power_law(b, lengths)
    (slope, _), cov = np.polyfit(np.log(b), np.log(lengths), 1, cov=True)
    assert fit.exponent == pytest.approx(slope, rel=1e-12)
    assert fit.se == pytest.approx(math.sqrt(cov[0, 0]), rel=1e-9)
    assert fit.hi - fit.exponent == pytest.approx(T975[10] * fit.se, rel=1e-3)
    assert fit.contains(fit.exponent) and fit.n == 12
    narrow = fit_power_law(b, lengths, level=0.5)
    assert narrow.hi - narrow.lo < fit.hi - fit.lo
    with pytest.raises(ValueError, match="at least 3"):
        fit_power_law([1e4, 1e5], [1, 2])
    with pytest.raises(ValueError, match="distinct"):
        fit_power_law([1e4] * 3, [1, 2, 3])
    with pytest.raises(ValueError, match="positive"):
        fit_power_law([1e4, 1e5, 1e6], [1, -2, 3])
    with pytest.raises(ValueError, match="level"):
        fit_power_law(b, lengths, level=1.0)


def test_the_interval_covers_the_true_exponent_at_its_level():
    """Simulated replicates: the 95 % interval holds the true exponent about 95 % of the time."""
    rng = np.random.default_rng(1)
    b = np.repeat([1e4, 1e5, 1e6, 1e7], 3)
    hits = sum(
        fit_power_law(b, b**0.375 * np.exp(rng.normal(0, 0.1, b.size))).contains(0.375)
        for _ in range(400)
    )
    assert 0.91 < hits / 400 < 0.99


def test_length_spread_over_replicates_with_censoring():
    def record(name, replicate, length, at_least=None):
        measured = {"supported_length": length, "at_least": at_least}
        return {"name": name, "replicate": replicate, "measured": measured}

    results = {
        "models": [record("ft-1e6", 0, 836), record("ft-1e7", 0, None, 2033)],
        "replicates": [
            record("ft-1e6", 2, 812),
            record("ft-1e6", 1, 900),
            record("ft-1e7", 1, 1700),
        ],
    }
    s, censored = length_spread(results, "ft-1e6")
    assert s.values == (836, 900, 812) and censored == 0  # replicate order
    s, censored = length_spread(results, "ft-1e7")
    assert s.values == (2033, 1700) and censored == 1
    with pytest.raises(ValueError, match="name must be one of"):
        length_spread(results, "ft-42")


def test_exponent_fit_uses_the_larger_bases_and_every_uncensored_seed():
    def record(name, base, replicate, length, kind="finetune", keep=None, tune=128):
        measured = {"supported_length": length, "at_least": None if length else 2033}
        return {"name": name, "base": base, "replicate": replicate, "kind": kind,
                "keep_planes": keep, "tune_len": tune, "measured": measured}  # fmt: skip

    law = {1e4: 180.0, 1e5: 420.0, 1e6: 840.0, 1e7: 1700.0}
    models = [
        record("pretrain", 1e4, 0, law[1e4], kind="pretrain"),
        record("ft-1e4", 1e4, 0, 999),  # the control: not a larger base
        record("ft-1e5", 1e5, 0, law[1e5]),
        record("ft-1e6", 1e6, 0, law[1e6]),
        record("ft-1e7", 1e7, 0, law[1e7]),
        record("ft-16", 16.0, 0, 300),
        record("ft-1e6-T256", 1e6, 0, 5000, tune=256),
        record("ablate-1e4", 1e4, 0, 3000, keep=6),
        {
            "name": "nope",
            "base": None,
            "replicate": 0,
            "kind": "baseline",
            "keep_planes": None,
            "tune_len": 128,
            "measured": {"supported_length": 150, "at_least": None},
        },
    ]
    replicates = [
        record("ft-1e6", 1e6, 1, law[1e6] * 1.1),
        record("ft-1e7", 1e7, 1, None),  # censored: left out
    ]
    results = {"meta": {"plan": {"model": {"base": 1e4}, "train_len": 128}},
               "models": models, "replicates": replicates}  # fmt: skip
    fit = exponent_fit(results)
    # the pre-trained model sits at beta0, where Theorem 3's bound is T_tune: not a point
    bases = [1e5, 1e6, 1e6, 1e7]
    lengths = [law[1e5], law[1e6], law[1e6] * 1.1, law[1e7]]
    assert fit.n == 4
    assert fit.exponent == pytest.approx(np.polyfit(np.log(bases), np.log(lengths), 1)[0])
    results["models"] = models[:2]
    assert exponent_fit(results) is None


def _finetune(name, base, replicate, length):
    measured = {"supported_length": length, "at_least": None if length else 4065}
    return {"name": name, "base": base, "replicate": replicate, "kind": "finetune",
            "keep_planes": None, "tune_len": 128, "measured": measured}  # fmt: skip


def _results(models, replicates, eval_len=4096):
    plan = {"model": {"base": 1e4}, "train_len": 128, "eval_len": eval_len}
    return {"meta": {"plan": plan}, "models": models, "replicates": replicates}


def test_seed_exponent_fit_takes_each_seed_as_one_unit():
    exponents = {0: 0.2, 1: 0.3, 2: 0.4}  # each seed follows its own exact power law
    bases = (1e5, 1e6, 3e6, 1e7)

    def length(seed, base):
        return 300.0 * (base / 1e5) ** exponents[seed]

    records = [
        _finetune(f"ft-{b:g}", b, seed, length(seed, b)) for seed in exponents for b in bases
    ]
    records.append({**_finetune("pretrain", 1e4, 0, 999.0), "kind": "pretrain"})
    models = [r for r in records if r["replicate"] == 0]
    fit = seed_exponent_fit(_results(models, [r for r in records if r["replicate"] > 0]))
    assert fit.bases == bases and fit.censored == 0
    np.testing.assert_allclose(fit.per_seed, [0.2, 0.3, 0.4], rtol=1e-12)
    assert fit.exponent.mean == pytest.approx(0.3)
    # t_{0.975, 2} = 4.302653 (published tables), sd of (0.2, 0.3, 0.4) = 0.1
    assert fit.exponent.ci == pytest.approx(4.302653 * 0.1 / np.sqrt(3), rel=1e-5)
    # the range of pooled fits over resampled seeds is no interval (issue 35): not reported
    assert not hasattr(fit, "resampled_lo") and not hasattr(fit, "resampled_hi")
    for (a, b, s), expected in zip(fit.local, [(1e5, 1e6), (1e6, 3e6), (3e6, 1e7)], strict=True):
        assert (a, b) == expected
        np.testing.assert_allclose(s.values, [0.2, 0.3, 0.4], rtol=1e-12)


def test_seed_exponent_fit_leaves_censored_points_and_thin_seeds_out():
    models = [_finetune("ft-1e5", 1e5, 0, 400.0), _finetune("ft-1e6", 1e6, 0, 800.0)]
    replicates = [_finetune("ft-1e5", 1e5, 1, 420.0), _finetune("ft-1e6", 1e6, 1, None)]
    assert seed_exponent_fit(_results(models, replicates)) is None  # seed 1 has one point
    replicates.append(_finetune("ft-1e5", 1e5, 2, 410.0))
    replicates.append(_finetune("ft-1e6", 1e6, 2, 1000.0))
    fit = seed_exponent_fit(_results(models, replicates))
    assert fit.censored == 1 and fit.exponent.n == 2
    assert fit.per_seed[0] == pytest.approx(np.log(2.0) / np.log(10.0))


def _spread(mean, half_width):
    return Spread((mean,) * 3, mean, 0.0, mean, mean, half_width)


def test_compare_orders_only_separated_intervals():
    assert compare(_spread(300, 20), _spread(200, 20)) == ">"
    assert compare(_spread(200, 20), _spread(300, 20)) == "<"
    assert compare(_spread(300, 60), _spread(200, 60)) == "inconclusive"  # 240 < 260
    assert compare(spread([300.0]), _spread(100, 1)) == "inconclusive"  # one seed: no interval
    # a floor on the half-width (the resolution of a binned reading)
    assert compare(_spread(200, 0), _spread(210, 0)) == "<"
    assert compare(_spread(200, 0), _spread(210, 0), floor=8.0) == "inconclusive"


def test_margin_order_rereads_each_seed_at_each_margin():
    width, context = 16, np.arange(8, 4096, 16) + 0.5

    def curve_record(name, replicate, rise_at):
        loss = np.where(context < rise_at, 1.0, 1.0 + 0.25)  # a step of 0.25 nats
        loss = np.where(context >= rise_at + 512, 1.5, loss)  # then 0.5 nats
        curve = {"context": context.tolist(), "loss": loss.tolist(), "sem": [0.0] * len(loss),
                 "bin_width": width}  # fmt: skip
        return {**_finetune(name, 500.0, replicate, 1), "loss_curve": curve}

    models = [curve_record("ft-500", 0, 256), curve_record("ft-60", 0, 1024)]
    replicates = [curve_record("ft-500", 1, 272), curve_record("ft-60", 1, 1024)]
    table = margin_order(_results(models, replicates), ["ft-500", "ft-60"], [0.1, 0.4, 0.6])
    # Two bins are averaged. Margin 0.1: the window straddling the first step already averages
    # 1.125 (centre 256.5 for a step at 256). Margin 0.4: the straddling window of the second
    # step averages 1.375, so the next one (both bins at 1.5) is the first past 1.4. Margin
    # 0.6: never, so the evaluated length.
    a, b = table[0.1]["ft-500"], table[0.1]["ft-60"]
    assert a.values == (256.5, 272.5) and b.values == (1024.5, 1024.5)
    assert table[0.4]["ft-500"].values == (784.5, 800.5)
    assert table[0.6]["ft-60"].values == (4096.0, 4096.0)
    with pytest.raises(ValueError, match="margin"):
        margin_order(_results(models, replicates), ["ft-500"], [0.0])


def test_seed_exponent_fit_at_a_margin_rereads_the_curves():
    context = np.arange(8, 4096, 16) + 0.5

    def record(base, replicate, rise_at):
        loss = np.where(context < rise_at, 1.0, 2.0)
        curve = {"context": context.tolist(), "loss": loss.tolist(), "sem": [0.0] * len(loss),
                 "bin_width": 16}  # fmt: skip
        return {**_finetune(f"ft-{base:g}", base, replicate, 1), "loss_curve": curve}

    # a step at 256 (base 1e5) and 1024 (base 1e7), both seeds: read back at 256.5 and 1024.5
    models = [record(1e5, 0, 256), record(1e7, 0, 1024)]
    replicates = [record(1e5, 1, 256), record(1e7, 1, 1024)]
    fit = seed_exponent_fit(_results(models, replicates), margin=0.3)
    expected = np.log(1024.5 / 256.5) / np.log(100.0)
    np.testing.assert_allclose(fit.per_seed, [expected, expected], rtol=1e-12)
