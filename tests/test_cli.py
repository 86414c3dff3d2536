"""``python -m ropelab describe``: the same report as describe_config, JSON that holds the same
numbers, and clear errors (exit status 2) for input it cannot decode."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import numpy as np
import pytest

from ropelab import describe_config, frequencies_by_layer_type
from ropelab.cli import main
from ropelab.configs import load_config, shipped_configs
from ropelab.decoder import decode_config
from ropelab.rope_config import frequencies_from_config


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), stdout=out), out.getvalue()


@pytest.mark.parametrize("name", shipped_configs())
def test_text_is_describe_config_and_json_holds_its_numbers(name, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(load_config(name)))
    status, text = run("describe", str(path))
    assert status == 0
    assert text == str(describe_config(load_config(name))) + "\n"
    status, raw = run("describe", str(path), "--json")
    data = json.loads(raw)
    groups = frequencies_by_layer_type(load_config(name))
    assert [layer["layer_type"] for layer in data["layers"]] == list(groups)
    for layer in data["layers"]:
        inv, attention = groups[layer["layer_type"]]
        np.testing.assert_allclose(layer["inv_freq"], inv, rtol=1e-11)  # 12 digits
        assert layer["attention_factor"] == pytest.approx(attention, rel=1e-11)
    assert data == json.loads(json.dumps(decode_config(load_config(name))))
    status, raw = run("describe", str(path), "--json", "--seq-len", "200000")
    at_length = json.loads(raw)
    for layer in at_length["layers"]:  # the description at that length, unrounded
        inv, _ = frequencies_from_config(
            load_config(name), 200000, layer_type=None if len(groups) == 1 else layer["layer_type"]
        )
        np.testing.assert_array_equal(layer["inv_freq"], inv)


def test_the_module_runs_as_a_program():
    done = subprocess.run(
        [sys.executable, "-m", "ropelab", "describe", "smollm3-3b"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert "9 layers without RoPE (NoPE):\n    no_rope_layers" in done.stdout


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"hidden_size": ', "is not JSON: Expecting value at line 1"),
        ("[1, 2]", "must hold a JSON object"),
        ('{"num_attention_heads": 4}', "head_dim, or hidden_size and num_attention_heads"),
        (
            '{"head_dim": 64, "rope_scaling": {"rope_type": "linear"}}',
            "rope_scaling['factor'] is required for rope_type 'linear'",
        ),
        ('{"head_dim": 64, "rope_theta": -1}', "rope_theta"),
    ],
)
def test_bad_input_names_the_problem(text, message, tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(text)
    status, out = run("describe", str(path))
    assert status == 2 and out == ""
    assert message in capsys.readouterr().err


def test_a_missing_file_is_named(capsys):
    assert run("describe", "no-such-config.json")[0] == 2
    assert "'no-such-config.json'" in capsys.readouterr().err


def test_markup_in_a_field_is_printed_as_text_never_run(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "<script>alert(1)</script>", "head_dim": 64}))
    status, text = run("describe", str(path))
    assert status == 0
    assert "<script>alert(1)</script>" in text.splitlines()[0]
