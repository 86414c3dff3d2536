"""ropelab.lab.tables (chapter 7): every cell of the printed tables is the committed number,
and every line fits the page."""

from __future__ import annotations

import numpy as np
import pytest

from ropelab.lab.results import (
    claim_cell,
    load_results,
    model_record,
    replicate_records,
    testtime_records,
)
from ropelab.lab.tables import (
    format_losses,
    format_seeds,
    format_testtime,
    format_testtime_grid,
    length_cell,
)


@pytest.fixture(scope="module")
def results():
    return load_results()


def cell(record):
    m = record["measured"]
    return str(m["supported_length"]) if m["supported_length"] is not None else f">={m['at_least']}"


def test_length_cell():
    assert length_cell(None) == "n/a"
    assert length_cell({"supported_length": 836, "at_least": None}) == "836"
    assert length_cell({"supported_length": None, "at_least": 2033}) == ">=2033"


def test_claim_cell_names_each_claim():
    def record(claim, bound=None):
        return {"prediction": {"claim": claim, "expected_supported_length": bound}}

    assert claim_cell(record("bound", 1116.6)) == "1117"
    assert claim_cell(record("longer than control")) == ">ctrl"
    assert claim_cell(record("no hard bound (conjecture)")) == "conj."
    assert claim_cell(record("no hard bound (our reading)")) == "none"
    assert claim_cell(record("baseline")) == "-"


def test_format_losses(results):
    names = ["ft-1e4", "ft-16", "ablate-1e4", "nope"]
    lines = format_losses(results, names).splitlines()
    assert len(lines) == 1 + len(names) and max(map(len, lines)) <= 79
    for line, name in zip(lines[1:], names, strict=True):
        record = model_record(results, name)
        curve = np.asarray(record["loss_curve"]["loss"])
        fields = line.split()
        assert fields[0] == name and fields[3] == cell(record)
        # the reference is the mean of the bins over positions 64 to 127 (four bins of 16)
        assert float(fields[1]) == pytest.approx(curve[4:8].mean(), abs=5e-4)
        # the last 32 positions are the last two bins
        assert float(fields[2]) == pytest.approx(curve[-2:].mean(), abs=5e-4)
    with pytest.raises(ValueError, match="at least one"):
        format_losses(results, [])


def test_format_seeds(results):
    names = ["pretrain", "ft-1e4", "ft-1e6", "ft-16", "ft-60", "nope"]
    lines = format_seeds(results, names).splitlines()
    assert len(lines) == 1 + len(names) and max(map(len, lines)) <= 79
    for line, name in zip(lines[1:], names, strict=True):
        fields = line.split()
        assert fields[0] == name
        replicas = replicate_records(results, name)
        seeds = [cell(r) for r in replicas] + ["-"] * (3 - len(replicas))
        assert fields[3:6] == seeds
        values = [r["measured"]["supported_length"] or r["measured"]["at_least"] for r in replicas]
        mean = fields[6].rstrip("*")
        assert float(mean) == pytest.approx(np.mean(values), abs=0.5)
        if len(replicas) > 1:
            assert fields[7] == "±" and float(fields[8].rstrip("*")) == pytest.approx(
                np.std(values, ddof=1), abs=0.5
            )
    with pytest.raises(ValueError, match="at least one"):
        format_seeds(results, [])


def test_format_testtime(results):
    for model in ("pretrain", "ft-16", "ft-1e7"):
        lines = format_testtime(results, model).splitlines()
        records = testtime_records(results, model)
        assert len(lines) == 2 + len(records) and max(map(len, lines)) <= 79
        plain = model_record(results, model)
        plain_fields = lines[1].split()  # none (plain model) - <supported> <in win> ...
        assert plain_fields[3] == "-" and plain_fields[4] == cell(plain)
        assert float(plain_fields[5]) == pytest.approx(
            plain["measured"]["reference_loss"], abs=5e-4
        )
        for line, r in zip(lines[2:], records, strict=True):
            assert line.startswith(r["label"])
            rest = line[len(r["label"]) :].split()
            if not r["applicable"]:
                assert rest == ["-", "n/a"]
                continue
            m = r["measured"]
            assert rest[0] == str(r["ref_len"]) and rest[1] == cell(r)
            assert float(rest[2]) == pytest.approx(m["method_reference_loss"], abs=5e-4)
            assert float(rest[3]) == pytest.approx(m["mean_loss_past_train"], abs=5e-4)
            assert float(rest[4]) == pytest.approx(m["loss_at_eval_len"], abs=5e-4)


def test_format_testtime_grid(results):
    models = ["pretrain", "ft-16", "ft-1e5", "ft-1e6", "ft-1e7"]
    lines = format_testtime_grid(results, models).splitlines()
    assert max(map(len, lines)) <= 79 and lines[0].split()[1:] == models
    assert lines[1].split()[-5:] == [cell(model_record(results, m)) for m in models]
    for line in lines[2:]:
        label = line[:24].strip()
        cells = line[24:].split()
        for model, value in zip(models, cells, strict=True):
            found = [r for r in testtime_records(results, model) if r["label"] == label]
            assert value == (cell(found[0]) if found[0]["applicable"] else "n/a")
    past = format_testtime_grid(results, models, column="past").splitlines()
    assert len(past) == len(lines)
    for line in past[2:]:
        label = line[:24].strip()
        for model, value in zip(models, line[24:].split(), strict=True):
            found = next(r for r in testtime_records(results, model) if r["label"] == label)
            if found["applicable"]:
                assert float(value) == pytest.approx(
                    found["measured"]["mean_loss_past_train"], abs=5e-4
                )
    loss = model_record(results, "ft-1e6")["loss_curve"]["loss"]
    assert float(past[1].split()[-2]) == pytest.approx(np.mean(loss[8:]), abs=5e-4)
    with pytest.raises(ValueError, match="at least one"):
        format_testtime_grid(results, [])
    with pytest.raises(ValueError, match="column"):
        format_testtime_grid(results, models, column="mean")


def test_format_margin_order_marks_only_separated_intervals_and_fits_the_page():
    from ropelab.lab.stats import Spread
    from ropelab.lab.tables import format_margin_order

    def s(mean, half):
        return Spread((mean,) * 3, mean, 0.0, mean, mean, half)

    names = ["ft-1e4", "ft-500", "ft-60", "ft-30", "ft-16"]
    table = {
        0.1: dict(zip(names, [s(170, 20), s(235, 100), s(224, 10), s(166, 5), s(347, 10)],
                      strict=True)),
        0.3: dict(zip(names, [s(176, 0), s(390, 23), s(544, 173), s(352, 4), s(496, 0)],
                      strict=True)),
    }  # fmt: skip
    pairs = [("ft-500", "ft-1e4"), ("ft-60", "ft-1e4"), ("ft-30", "ft-1e4"),
             ("ft-16", "ft-1e4"), ("ft-500", "ft-60"), ("ft-60", "ft-30"),
             ("ft-16", "ft-500")]  # fmt: skip
    text = format_margin_order(table, pairs, floor=8.0)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 79
    assert lines[1].split() == ["0.1", "170±20", "235±100", "224±10", "166±5", "347±10"]
    # two blocks of verdicts (5 + 2 pairs); 0.1: 60 vs 1e4 is 214..234 against 150..190 -> ">"
    assert lines[4].split()[0] == "margin" and "16 vs 500" in lines[8]
    assert lines[5].split() == ["0.1", "?", ">", "?", ">", "?"]
    # 0.3: 30 vs 1e4 is 348..356 against 168..184 (the floor widens 176±0 to ±8) -> ">";
    # 500 vs 60 is 367..413 against 371..717 -> "?"
    assert lines[6].split() == ["0.3", ">", ">", ">", ">", "?"]
    assert lines[9].split() == ["0.1", ">", ">"] and lines[10].split() == ["0.3", ">", ">"]


def test_format_exponent_fit_prints_the_interval_and_the_verdict():
    from ropelab.lab.stats import SeedExponentFit, spread
    from ropelab.lab.tables import format_exponent_fit

    fit = SeedExponentFit(
        (1e5, 1e6, 1e7), (0.2, 0.3, 0.4), spread([0.2, 0.3, 0.4]),
        ((1e5, 1e6, spread([0.3, 0.3, 0.31])), (1e6, 1e7, spread([0.1, 0.3, 0.5]))), 0,
    )  # fmt: skip
    text = format_exponent_fit(fit, 0.375)
    assert "bases above beta0: 1e5, 1e6, 1e7; 3 seeds" in text
    assert "mean 0.300, 95% interval 0.052 to 0.548 (t, 2 d.o.f.)" in text  # 4.3027 x 0.1/√3
    assert "d_extra/d = 0.375: inside the interval" in text
    assert "pooled" not in text  # a range of resampled fits is no interval (issue 35)
    assert "outside" in format_exponent_fit(fit, 0.6)
    assert max(len(line) for line in text.splitlines()) <= 79
