"""ropelab.explorables: the HTML output, its config, where the script comes from, and the
Python reference data.

The script's numbers are compared with :func:`explorable_data` in Node on seeded settings
(``tests/test_explorable_drift.py``) and on the built pages in Chromium
(``tests/browser/test_explorables.py``); here the script is only checked to parse, with Node.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from ropelab import calculator, decay, spectrum
from ropelab.core import inv_freq, rotation_matrix
from ropelab.explorables import (
    KINDS,
    SCRIPT_MODE_VARIABLE,
    explorable,
    explorable_data,
    script,
    script_path,
)
from ropelab.interactive import figure_spec
from ropelab.rotation2d import DEFAULT_K, DEFAULT_Q, rope_score_2d, rotate_2d


@pytest.fixture(params=["inline", "page"])
def mode(request, monkeypatch):
    """Both ways of serving the script: in each output, or once by the page."""
    monkeypatch.setenv(SCRIPT_MODE_VARIABLE, request.param)
    return request.param


def config_of(html: str) -> dict:
    """The JSON config of an explorable's output."""
    match = re.search(
        r'<script type="application/json" class="ropelab-config">(\{.*?\})</script>', html
    )
    assert match, "no JSON config in the output"
    return json.loads(match.group(1).replace("<\\/", "</"))


@pytest.mark.parametrize("kind", KINDS)
def test_output_carries_the_config_and_the_script_where_needed(kind, mode):
    html = explorable(kind).data
    assert ("\n" + script() + "\n" in html) == (mode == "inline")
    assert html.endswith(
        "<script>window.ropelabExplore && window.ropelabExplore.mountAll();</script>"
    )
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html and "src=" not in html  # nothing to fetch
    config = config_of(html)
    spec = figure_spec(kind)
    assert config == json.loads(json.dumps(spec.to_json(spec.defaults())))
    element = re.search(r'<div class="ropelab-explorable[^"]*" id="([^"]+)"', html).group(1)
    assert element.startswith(f"ropelab-{kind}-")
    assert f'data-kind="{kind}"' in html and f'data-chapter="{spec.chapter}"' in html
    # one control per parameter, each with a data-param the script looks up
    assert [c["name"] for c in config["controls"]] == list(spec.names)
    assert set(config["params"]) == set(spec.names)
    for name in config["params"]:
        assert html.count(f'data-param="{name}"') == 1


def test_page_mode_outputs_do_not_change_with_the_script(monkeypatch):
    monkeypatch.setenv(SCRIPT_MODE_VARIABLE, "page")
    page = explorable("decay").data
    assert "ropelab-explore.js" not in page and "function " not in page
    assert len(page) < 4000
    monkeypatch.setenv(SCRIPT_MODE_VARIABLE, "sometimes")
    with pytest.raises(ValueError, match="must be 'inline' or 'page'"):
        explorable("decay")


def test_the_script_file_is_the_packaged_one():
    assert script_path().name == "ropelab-explore.js"
    assert script_path().read_text(encoding="utf-8") == script()


@pytest.mark.parametrize("kind", KINDS)
def test_output_is_deterministic(kind):
    assert explorable(kind).data == explorable(kind).data
    params = config_of(explorable(kind).data)["params"]
    name, value = next((n, v) for n, v in params.items() if not isinstance(v, str))
    step = -2 if value + 2 > figure_spec(kind).control(name).high else 2
    assert explorable(kind, **{name: value + step}).data != explorable(kind).data
    assert repr(explorable(kind)).startswith(f"Explorable('{kind}'")


def test_params_are_clamped(mode):
    out = explorable("calculator", dim=17, train_len=float("nan"), base=1e12, tune_len=5)
    assert out.params == {"dim": 18, "train_len": 4096, "base": 1e8, "tune_len": 4096}
    assert config_of(out.data)["params"] == out.params


def test_unknown_kind_and_parameter_raise():
    with pytest.raises(ValueError, match=", ".join(KINDS)):
        explorable("spectra")
    with pytest.raises(ValueError, match=", ".join(KINDS)):
        explorable_data("heatmap")
    with pytest.raises(ValueError, match=", ".join(figure_spec("spectrum").names) + "; got width"):
        explorable("spectrum", width=3)
    with pytest.raises(ValueError, match=", ".join(KINDS)):
        explorable("lab")
    # an unknown option is clamped to the default, like every control
    assert explorable("block_matrix", layout="diagonal").params["layout"] == "interleaved"


def test_json_cannot_close_the_script_early(monkeypatch):
    monkeypatch.setenv(SCRIPT_MODE_VARIABLE, "page")
    html = explorable("rotation2d").data
    body = html.split('class="ropelab-config">', 1)[1]
    assert body.index("</script>") == body.index("}</script>") + 1


def test_rotation_data_matches_ropelab():
    data = explorable_data("rotation2d", m=7, n=19, theta=0.73, shift=11)
    q, k = np.array(DEFAULT_Q), np.array(DEFAULT_K)
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
    np.testing.assert_array_equal(data["shifts"], np.arange(65))


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
    assert set(data) == set(reference) | {"reference_base", "reference_theta"}
    for key, value in reference.items():
        np.testing.assert_array_equal(data[key], value)
    np.testing.assert_array_equal(data["reference_theta"], inv_freq(64, 10000.0))


def test_decay_data_matches_ropelab():
    data = explorable_data("decay", dim=32, base=500.0, max_distance=1024)
    reference = decay.decay_data(32, 500.0, 1024)
    assert set(data) == set(reference)
    for key, value in reference.items():
        np.testing.assert_array_equal(data[key], value)


def test_calculator_data_matches_ropelab():
    data = explorable_data("calculator", dim=128, train_len=4096, base=20000.0, tune_len=16384)
    reference = calculator.calculator_data(128, 4096, 20000.0, 16384)
    assert set(data) == set(reference) - {"bands"}
    for key, value in data.items():
        np.testing.assert_array_equal(value, reference[key])
    # the paper's LLaMA 2 numbers: d_extra = 92, beta_0 = 71738 at 16K
    assert data["d_extra"] == 92 and round(data["critical_base"]) == 71738
    assert data["regime"] == "β ≤ β0: bound = T_tune" and data["supported_length"] == 16384
    assert data["effective_d_extra"] == 102  # 2 * ceil(64 * log_20000(16384 / 2pi))


def test_script_is_valid_javascript():
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: it is needed to check ropelab-explore.js")
    result = subprocess.run(
        [node, "--check", str(script_path())], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def test_script_defines_its_api_once():
    source = script()
    assert source.count("window.ropelabExplore = ") == 1
    assert "if (inBrowser && window.ropelabExplore) {\n    return;\n  }" in source
    # ES2020 (BigInt for Python's number formats), nothing later
    assert "??=" not in source and "||=" not in source
