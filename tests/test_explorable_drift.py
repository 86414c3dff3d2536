"""The drift check: ropelab-explore.js computes what ropelab computes, without a browser.

Node runs the script's pure functions (clamp, the data of each figure, the readout, the slider
grids) on a seeded grid of settings, at least 200 per figure, every control moved at once:
values on the slider grid, values between grid points, values outside the range, NaN,
infinities and things that are not numbers. Each result must equal Python's: the clamped
values exactly, every array, integer, flag and regime string of the data (reals to 1e-9), and
every readout to the character. A perturbation of any one formula of the script by 1e-7
(relative) must make the check fail (``test_a_perturbed_formula_is_caught``).

The Chinese edition (issue 27): the script also writes each readout in Chinese (for a page
whose ``<html lang>`` starts with "zh") and labels each control in Chinese. The Chinese readout
of every setting must hold exactly the numbers of Python's English readout, written the same
way (``readout_numbers``), and every control label and menu option has its Chinese.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ropelab.explorables import script_path
from ropelab.interactive import figure_spec, kinds
from ropelab.interactive.controls import Control
from ropelab.interactive.figures import BROWSER_KINDS
from tests.explorable_checks import assert_same

DRIFT_JS = Path(__file__).parent / "js" / "drift.js"
CJK = re.compile(r"[\u3400-\u9fff]")
SETTINGS_PER_FIGURE = 240
NODE = shutil.which("node")


def _raw_value(control: Control, rng: np.random.Generator) -> Any:
    """A value a reader, a notebook or a test might pass: mostly on or between the slider's
    grid points, sometimes outside the range or not a number at all."""
    draw = rng.random()
    if control.is_choice:
        options = list(control.options or ())
        if draw < 0.85:
            if control.multiple:
                size = int(rng.integers(1, len(options) + 1))
                return [str(o) for o in rng.choice(options, size=size, replace=False)]
            return str(options[int(rng.integers(len(options)))])
        return ["not an option", 3, None][int(rng.integers(3))]
    low, high = float(control.low), float(control.high)
    if draw < 0.6:
        grid = control.slider_values()
        return float(grid[int(rng.integers(len(grid)))])
    if draw < 0.85:
        if control.scale == "log":
            return float(math.exp(rng.uniform(math.log(low), math.log(high))))
        return float(rng.uniform(low, high))
    weird = [
        low - abs(low) - 1.0,
        high * 3.0 + 1.0,
        float("nan"),
        float("inf"),
        float("-inf"),
        "12",
        None,
        True,
    ]
    return weird[int(rng.integers(len(weird)))]


def _encode(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return {
            "special": "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        }
    return value


def _settings(kind: str, count: int, seed: int) -> list[dict[str, Any]]:
    spec = figure_spec(kind)
    rng = np.random.default_rng(seed)
    return [
        {"kind": kind, "raw": {c.name: _raw_value(c, rng) for c in spec.controls}}
        for _ in range(count)
    ]


def run_node(script: Path, settings: list[dict[str, Any]]) -> dict[str, Any]:
    """Run the script's pure functions in Node on ``settings``."""
    assert NODE is not None, "Node.js is needed (a build dependency: make assets runs npm)"
    figures = {
        kind: {
            "controls": [c.to_json() for c in figure_spec(kind).controls],
            "constants": dict(figure_spec(kind).constants),
        }
        for kind in kinds(explorable=True)
    }
    request = {
        "script": str(script),
        "figures": figures,
        "settings": [{"kind": s["kind"], "raw": {k: _encode(v) for k, v in s["raw"].items()}}
                     for s in settings],
    }  # fmt: skip
    done = subprocess.run(
        [NODE, str(DRIFT_JS)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, f"node failed:\n{done.stderr}"
    return json.loads(done.stdout)


def expected(settings: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any], str]]:
    """Python's clamped values, data and readout for each setting."""
    out = []
    for setting in settings:
        spec = figure_spec(setting["kind"])
        params = spec.params(**setting["raw"])
        data = spec.browser_data(**params)
        clamped = {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}
        out.append((clamped, data, spec.readout(data)))
    return out


#: A number as the readouts write it: sign, digits with "," groups, decimals, exponent.
READOUT_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)*(?:e[-+]\d+)?")


def readout_numbers(text: str) -> list[str]:
    """The numbers of a readout, sorted (a Chinese sentence may order them differently)."""
    return sorted(READOUT_NUMBER.findall(text))


def drift(
    settings: list[dict[str, Any]],
    python: list[tuple[dict[str, Any], dict[str, Any], str]],
    node: dict[str, Any],
) -> list[str]:
    """Every difference between Node's results and Python's, as messages (empty: none)."""
    problems = []
    for setting, (clamped, data, text), result in zip(
        settings, python, node["results"], strict=True
    ):
        where = f"{setting['kind']} with {setting['raw']}"
        if result["clamped"] != clamped:
            problems.append(f"{where}: clamped to {result['clamped']}, ropelab says {clamped}")
            continue
        try:
            assert_same(result["data"], data, where)
        except AssertionError as error:
            problems.append(str(error))
            continue
        if result["readout"] != text:
            problems.append(f"{where}: readout\n{result['readout']}\nropelab says\n{text}")
            continue
        chinese = result.get("readout_zh", "")
        if readout_numbers(chinese) != readout_numbers(text) or not CJK.search(chinese):
            problems.append(f"{where}: Chinese readout\n{chinese}\nropelab says\n{text}")
    return problems


@pytest.fixture(scope="module")
def grid() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    settings = [
        s
        for seed, kind in enumerate(kinds(explorable=True))
        for s in _settings(kind, SETTINGS_PER_FIGURE, seed)
    ]
    return settings, run_node(script_path(), settings)


def test_the_script_draws_exactly_the_browser_figures(grid):
    _, node = grid
    assert tuple(node["kinds"]) == BROWSER_KINDS == kinds(explorable=True)


@pytest.mark.parametrize("kind", BROWSER_KINDS)
def test_script_agrees_with_ropelab(grid, kind):
    settings, node = grid
    mine = [(s, r) for s, r in zip(settings, node["results"], strict=True) if s["kind"] == kind]
    assert len(mine) >= 200
    for control in figure_spec(kind).controls:
        seen = {json.dumps(_encode(s["raw"][control.name])) for s, _ in mine}
        enough = len(control.options) + 1 if control.is_choice else 50
        assert len(seen) >= enough, f"{kind}.{control.name} took only {len(seen)} values"
    ours = [s for s, _ in mine]
    problems = drift(ours, expected(ours), {"results": [r for _, r in mine]})
    assert not problems, f"{len(problems)} of {len(mine)} settings drift; first:\n{problems[0]}"


@pytest.mark.parametrize("kind", BROWSER_KINDS)
def test_slider_grids_agree(grid, kind):
    _, node = grid
    for control in figure_spec(kind).controls:
        if control.is_choice:
            continue
        ours = control.slider_values()
        theirs = node["sliders"][kind][control.name]
        assert len(theirs) == len(ours), f"{kind}.{control.name}: grid length differs"
        np.testing.assert_allclose(theirs, ours, rtol=1e-12, err_msg=f"{kind}.{control.name}")
        assert ours[0] == control.low and ours[-1] == control.high


# Each formula of section (a) of the script, its result multiplied by (1 + 1e-7).
FORMULAS = [
    "invFreq",
    "wavelengths",
    "fullPeriodPlanes",
    "criticalDim",
    "extrapolationBound",
    "criticalBase",
    "smallBaseThresholds",
    "predict",
    "decayDistances",
    "onesScore",
    "relativeUpperBound",
    "rotate2d",
    "ropeScore2d",
    "relativeScore2d",
    "polar",
    "complexProduct",
    "wholeTurns",
    "rotationMatrix",
    "conjugateProduct",
    "roundToDtype",
    "formedErrors",
    # (not yarnCorrectionDim: its value only feeds a floor and a ceiling, so a 1e-7 change
    # shows only where it lies within 1e-7 of an integer; yarnRamp, which uses it, is here)
    "yarnRamp",
    "yarnAttentionFactor",
    "llama3Frequencies",
    "dynamicNtkBase",
    "illustrativeLongropeFactors",
    "longropeAttentionFactor",
    "methodFrequencies",
    "multiaxisOnesScore",
    "remappedPosition",
    "maxRemapped",
    "remapGrid",
]

PERTURB = """
  function perturbed__(value) {
    if (typeof value === 'number') { return value * (1 + 1e-7); }
    if (Array.isArray(value)) { return value.map(perturbed__); }
    if (value && typeof value === 'object') {
      const out = {};
      for (const key of Object.keys(value)) { out[key] = perturbed__(value[key]); }
      return out;
    }
    return value;
  }
"""


def perturbed_script(tmp_path: Path, name: str) -> Path:
    """A copy of the script in which formula ``name`` returns its value times (1 + 1e-7)."""
    source = script_path().read_text(encoding="utf-8")
    pattern = re.compile(rf"\n  function {name}\(([^)]*)\) \{{")
    found = pattern.search(source)
    assert found, f"no function {name} in the script"
    wrapper = (
        f"\n  function {name}(...args) {{ return perturbed__({name}__exact(...args)); }}"
        f"\n  function {name}__exact({found.group(1)}) {{"
    )
    source = source[: found.start()] + PERTURB + wrapper + source[found.end() :]
    path = tmp_path / f"perturbed-{name}.js"
    path.write_text(source, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def small_grid() -> tuple[list[dict[str, Any]], list[Any]]:
    settings = [
        s for seed, kind in enumerate(BROWSER_KINDS) for s in _settings(kind, 40, 100 + seed)
    ]
    return settings, expected(settings)


def test_the_small_grid_agrees_unperturbed(small_grid):
    settings, python = small_grid
    assert drift(settings, python, run_node(script_path(), settings)) == []


@pytest.mark.parametrize("name", FORMULAS)
def test_a_perturbed_formula_is_caught(tmp_path, small_grid, name):
    settings, python = small_grid
    problems = drift(settings, python, run_node(perturbed_script(tmp_path, name), settings))
    assert problems, f"perturbing {name} by 1e-7 went unnoticed"


# --- the Chinese edition ----------------------------------------------------------------------


def test_every_control_has_a_chinese_label(grid):
    _, node = grid
    labels = node["translations"]["labels"]
    options = node["translations"]["options"]
    for kind in BROWSER_KINDS:
        for control in figure_spec(kind).controls:
            assert control.label in labels, f"{kind}.{control.name}: no Chinese label"
            chinese = labels[control.label]
            symbols_only = not re.search(r"[a-z]{3,}", re.sub(r"\w+_\w+", "", chinese))
            assert CJK.search(chinese) or symbols_only, f"{control.label}: {chinese}"
            assert readout_numbers(chinese) == readout_numbers(control.label), chinese
            if control.is_choice and control.name in options:
                missing = set(control.options or ()) - set(options[control.name])
                assert not missing, f"{kind}.{control.name}: no Chinese for {missing}"


def test_chinese_readouts_read_chinese(grid):
    settings, node = grid
    for setting, result in zip(settings, node["results"], strict=True):
        assert CJK.search(result["readout_zh"]), setting
        assert result["readout_zh"] != result["readout"]


@pytest.mark.parametrize(
    ("kind", "before", "after"),
    [
        ("spectrum", "= ${fmtF(d.boundary, 3)}；", "= ${fmtF(d.boundary, 2)}；"),
        ("calculator", "，β3 = ${t[2]}`", "，β3 = ${t[1]}`"),
        ("rotation2d", "平移 s = ${d.shift}`", "平移 s`"),
    ],
)
def test_a_chinese_readout_with_another_number_is_caught(tmp_path, small_grid, kind, before, after):
    settings, python = small_grid
    source = script_path().read_text(encoding="utf-8")
    assert source.count(before) == 1, before
    path = tmp_path / "planted.js"
    path.write_text(source.replace(before, after), encoding="utf-8")
    problems = drift(settings, python, run_node(path, settings))
    assert problems and all(p.startswith(kind) and "Chinese readout" in p for p in problems)
