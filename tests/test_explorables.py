"""ropelab.explorables: the HTML output, its config, the clamping and the Python reference data.

The browser side (the script's numbers against :func:`explorable_data` at every control
setting) is tested in ``tests/browser/test_explorables.py``; here the script is only checked
to parse, with Node.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from importlib import resources

import numpy as np
import pytest

from ropelab.core import inv_freq, rotation_matrix
from ropelab.explorables import KINDS, REFERENCE_BASE, explorable, explorable_data, script
from ropelab.plots.rotation import rope_score_2d, rotate_2d
from ropelab.widgets import blocks, decay, extension, rotation, spectrum

SCRIPT = resources.files("ropelab.explorables").joinpath("ropelab-explore.js")


def config_of(html: str) -> dict:
    """The JSON config passed to ``mount`` in an explorable's inline script."""
    match = re.search(r"window\.ropelabExplore\.mount\(root, (\{.*\})\);\n", html)
    assert match, "no mount call with a JSON config in the output"
    return json.loads(match.group(1).replace("<\\/", "</"))


@pytest.mark.parametrize("kind", KINDS)
def test_output_is_self_contained(kind):
    html = explorable(kind).data
    assert script() in html  # the whole module, inline
    assert SCRIPT.read_text(encoding="utf-8") == script()
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html and "src=" not in html  # nothing to fetch
    config = config_of(html)
    assert config["kind"] == kind
    element = re.search(r'<div class="ropelab-explorable[^"]*" id="([^"]+)"', html).group(1)
    assert element.startswith(f"ropelab-{kind}-")
    assert f'data-kind="{kind}"' in html
    # one control per parameter, each with a data-param the script looks up
    assert sorted(config["controls"]) == sorted(config["params"])
    for name in config["params"]:
        assert html.count(f'data-param="{name}"') == 1


@pytest.mark.parametrize("kind", KINDS)
def test_output_is_deterministic(kind):
    assert explorable(kind).data == explorable(kind).data
    first = config_of(explorable(kind).data)
    name, value = next(iter(first["params"].items()))
    other = explorable(kind, **{name: value if isinstance(value, str) else value + 2}).data
    assert other != explorable(kind).data


def test_defaults_and_ranges_come_from_the_widgets():
    cases = {
        "rotation2d": (rotation.DEFAULTS, {"theta": (rotation.THETA_MIN, rotation.THETA_MAX)}),
        "block_matrix": (
            blocks.DEFAULTS,
            {"dim": blocks.DIM_RANGE, "base": blocks.BASE_RANGE, "position": blocks.POSITION_RANGE},
        ),
        "spectrum": (
            spectrum.DEFAULTS,
            {
                "dim": spectrum.DIM_RANGE,
                "base": spectrum.BASE_RANGE,
                "train_len": spectrum.TRAIN_LEN_RANGE,
            },
        ),
        "decay": (
            decay.DEFAULTS,
            {
                "dim": decay.DIM_RANGE,
                "base": decay.BASE_RANGE,
                "max_distance": decay.MAX_DISTANCE_RANGE,
            },
        ),
        "calculator": (
            {"dim": 128, "train_len": 4096, "base": 1e6, "tune_len": 4096},
            {
                "dim": extension.DIM_RANGE,
                "train_len": extension.TRAIN_RANGE,
                "base": extension.BASE_RANGE,
                "tune_len": (extension.TRAIN_RANGE[0], extension.TUNE_MAX),
            },
        ),
    }
    for kind, (defaults, ranges) in cases.items():
        config = config_of(explorable(kind).data)
        assert config["params"] == defaults, kind
        for name, (low, high) in ranges.items():
            control = config["controls"][name]
            assert (control["min"], control["max"]) == (low, high), (kind, name)
    assert config_of(explorable("block_matrix").data)["controls"]["layout"]["options"] == [
        "interleaved",
        "half",
    ]
    calculator = config_of(explorable("calculator").data)
    assert calculator["controls"]["tune_len"]["at_least"] == "train_len"
    assert calculator["constants"] == {"pretrain_base": extension.PRETRAIN_BASE}


@pytest.mark.parametrize(
    ("kind", "given", "expected"),
    [
        (
            "rotation2d",
            {"m": -5, "n": 70.4, "theta": 10.0, "shift": 3.6},
            {"m": 0, "n": 64, "theta": 3.14, "shift": 4},
        ),
        ("rotation2d", {"theta": 0.0}, {"m": 2, "n": 5, "theta": 0.01, "shift": 3}),
        (
            "block_matrix",
            {"dim": 7, "base": 1e9, "position": -3, "layout": "half"},
            {"dim": 6, "base": 1e6, "position": 0, "layout": "half"},
        ),
        (
            "spectrum",
            {"dim": 1000, "base": 0.5, "train_len": 1e9},
            {"dim": 256, "base": 2.0, "train_len": 131072.0},
        ),
        (
            "decay",
            {"dim": 3, "base": 1e12, "max_distance": 3},
            {"dim": 4, "base": 1e7, "max_distance": 16},
        ),
        (
            "calculator",
            {"dim": 8, "train_len": 5000.4, "base": 1.0, "tune_len": 100},
            {"dim": 16, "train_len": 5000, "base": 2.0, "tune_len": 5000},
        ),
        (
            "calculator",
            {"dim": 300, "train_len": 1e9, "base": 1e9, "tune_len": 1e9},
            {"dim": 256, "train_len": 131072, "base": 1e8, "tune_len": 2**20},
        ),
    ],
)
def test_params_are_clamped_like_the_widgets(kind, given, expected):
    assert config_of(explorable(kind, **given).data)["params"] == expected
    data = explorable_data(kind, **given)
    for name, value in expected.items():
        assert data[name] == value


def test_unknown_kind_and_parameter_raise():
    with pytest.raises(ValueError, match="rotation2d, block_matrix, spectrum, decay, calculator"):
        explorable("spectra")
    with pytest.raises(ValueError, match="rotation2d, block_matrix, spectrum, decay, calculator"):
        explorable_data("heatmap")
    with pytest.raises(ValueError, match="dim, base, train_len; got width"):
        explorable("spectrum", width=3)
    with pytest.raises(ValueError, match="layout"):
        explorable("block_matrix", layout="diagonal")


def test_json_cannot_close_the_script_early():
    html = explorable("rotation2d").data
    body = html.split("<script>", 1)[1]
    assert body.count("</script>") == 1 and body.endswith("</script>")


def test_rotation_data_matches_ropelab():
    data = explorable_data("rotation2d", m=7, n=19, theta=0.73, shift=11)
    q, k = np.array(rotation.DEFAULT_Q), np.array(rotation.DEFAULT_K)
    np.testing.assert_allclose(data["rotated_q"], rotate_2d(q, 7 * 0.73), rtol=0, atol=1e-15)
    np.testing.assert_allclose(data["shifted_k"], rotate_2d(k, 30 * 0.73), rtol=0, atol=1e-15)
    assert data["score"] == pytest.approx(float(rope_score_2d(q, k, 7, 19, 0.73)), abs=1e-15)
    # RoFormer eq. 16: shifting both positions keeps the score, which is q^T R_(n-m) k
    assert data["shifted_score"] == pytest.approx(data["score"], abs=1e-12)
    assert data["relative_score"] == pytest.approx(data["score"], abs=1e-12)
    np.testing.assert_allclose(data["both"], data["score"], rtol=0, atol=1e-12)
    assert data["key_only"][11] == pytest.approx(data["key_only_score"], abs=1e-15)
    angle = 12 * 0.73  # (n - m) theta, written out: q . R(angle) k
    c, s = np.cos(angle), np.sin(angle)
    by_hand = q[0] * (c * k[0] - s * k[1]) + q[1] * (s * k[0] + c * k[1])
    assert data["score"] == pytest.approx(by_hand, abs=1e-12)
    np.testing.assert_array_equal(data["shifts"], np.arange(rotation.POSITION_MAX + 1))


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_block_data_matches_ropelab(layout):
    data = explorable_data("block_matrix", dim=12, base=500.0, position=37, layout=layout)
    np.testing.assert_array_equal(data["matrix"], rotation_matrix(37.0, 12, 500.0, layout))
    np.testing.assert_array_equal(data["theta"], inv_freq(12, 500.0))
    # an orthogonal matrix whose plane 1 turns by 37 * 500^(-2/12)
    np.testing.assert_allclose(data["matrix"] @ data["matrix"].T, np.eye(12), atol=1e-14)
    a, b = (2, 3) if layout == "interleaved" else (1, 7)
    angle = 37 * 500.0 ** (-2 / 12)
    assert data["matrix"][b, a] == pytest.approx(np.sin(angle), abs=1e-14)


def test_spectrum_data_matches_ropelab():
    data = explorable_data("spectrum", dim=64, base=20000.0, train_len=2048.0)
    reference = spectrum.spectrum_data(64, 20000.0, 2048.0)
    assert set(data) == set(reference) | {"reference_theta"}
    for key, value in reference.items():
        np.testing.assert_array_equal(data[key], value)
    np.testing.assert_array_equal(data["reference_theta"], inv_freq(64, REFERENCE_BASE))


def test_decay_data_matches_ropelab():
    data = explorable_data("decay", dim=32, base=500.0, max_distance=1024)
    reference = decay.decay_data(32, 500.0, 1024)
    assert set(data) == set(reference)
    for key, value in reference.items():
        np.testing.assert_array_equal(data[key], value)


def test_calculator_data_matches_ropelab():
    data = explorable_data("calculator", dim=128, train_len=4096, base=20000.0, tune_len=16384)
    reference = extension.calculator_data(128, 4096, 20000.0, 16384)
    assert set(data) == set(reference) - {"bands"}
    for key, value in data.items():
        np.testing.assert_array_equal(value, reference[key])
    # the paper's LLaMA 2 numbers: d_extra = 92, beta_0 = 71738 at 16K
    assert data["d_extra"] == 92 and round(data["critical_base"]) == 71738
    assert data["regime"] == "smaller base" and data["supported_length"] == 16384
    assert data["effective_d_extra"] == 102  # 2 * ceil(64 * log_20000(16384 / 2pi))


def test_script_is_valid_javascript():
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: it is needed to check ropelab-explore.js")
    with resources.as_file(SCRIPT) as path:
        result = subprocess.run(
            [node, "--check", str(path)], capture_output=True, text=True, check=False
        )
    assert result.returncode == 0, result.stderr


def test_script_defines_its_api_once():
    source = script()
    assert source.count("window.ropelabExplore = ") == 1
    assert "if (window.ropelabExplore) {\n    return;\n  }" in source
    # ES2017: no syntax from later editions (optional chaining, nullish coalescing)
    assert "?." not in source and "??" not in source
