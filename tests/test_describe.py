"""ropelab.describe_config: plane counts against each method's own band functions, the
frequencies against frequencies_from_config (and so transformers, test_shipped_configs.py),
and the report's content and width."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ropelab.config_fields import normalize_config
from ropelab.configs import load_config, shipped_configs
from ropelab.describe import describe_config, plane_kinds
from ropelab.rope_config import frequencies_from_config, llama3_bands, yarn_ramp


@pytest.mark.parametrize("name", shipped_configs())
def test_description_agrees_with_frequencies_from_config(name):
    config = load_config(name)
    description = describe_config(config)
    fields = normalize_config(config)
    for layer, entry in zip(description.layers, fields.layers, strict=True):
        inv, attention = frequencies_from_config(entry.config)
        np.testing.assert_array_equal(layer.inv_freq, inv)
        assert layer.attention_factor == attention
        assert layer.kept + layer.stretched + layer.interpolated == len(inv)
        assert layer.longest_wavelength[1] == pytest.approx(2 * math.pi / inv[inv > 0].min())
    text = str(description)
    assert max(len(line) for line in text.splitlines()) <= 79
    assert text.splitlines()[0].startswith(config["_source"]["model"])


def test_llama31_counts_are_its_bands():
    layer = describe_config(load_config("llama-3.1-8b-instruct")).layers[0]
    bands = llama3_bands(128, 500000.0, 8192, 1.0, 4.0)
    assert layer.kept == np.sum(bands == "high") == 29
    assert layer.stretched == np.sum(bands == "medium") == 6
    assert layer.interpolated == np.sum(bands == "low") == 29
    assert (layer.factor, layer.original_length) == (8.0, 8192)


@pytest.mark.parametrize(
    ("name", "dim", "base", "original", "truncate"),
    [
        ("qwen2.5-7b-instruct-yarn", 128, 1e6, 32768, True),
        ("deepseek-v3", 64, 1e4, 4096, True),
        ("gpt-oss-20b", 64, 150000.0, 4096, False),
        ("ministral-3-8b-instruct-2512", 128, 1e6, 16384, True),
    ],
)
def test_yarn_counts_are_its_ramp(name, dim, base, original, truncate):
    layer = describe_config(load_config(name)).layers[0]
    ramp = yarn_ramp(dim, base, original, truncate=truncate)
    assert layer.kept == np.sum(ramp == 0)
    assert layer.interpolated == np.sum(ramp == 1)
    assert layer.stretched == np.sum((ramp > 0) & (ramp < 1))


def test_other_methods():
    gemma = describe_config(load_config("gemma-3-27b-it"))
    full, sliding = gemma.layers[1], gemma.layers[0]
    assert (full.layer_type, full.rope_type, full.interpolated, full.num_layers) == (
        "full_attention",
        "linear",
        64,
        10,
    )
    assert (sliding.layer_type, sliding.kept, sliding.num_layers, sliding.base) == (
        "sliding_attention",
        64,
        52,
        1e4,
    )
    neox = describe_config(load_config("gpt-neox-20b")).layers[0]
    assert (neox.rotary_dim, neox.kept, neox.factor) == (24, 12, None)
    phi = describe_config(load_config("phi-3-mini-128k-instruct")).layers[0]
    assert (phi.stretched, phi.factor, phi.original_length) == (48, 32.0, 4096)
    assert phi.attention_factor == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)))
    # beyond the original length LongRoPE switches to its long factors
    long = describe_config(load_config("phi-3-mini-128k-instruct"), seq_len=5000).layers[0]
    assert long.longest_wavelength[1] == pytest.approx(
        2 * math.pi * 1e4 ** (94 / 96) * 64.81001281738281
    )


def test_report_mentions_what_acts_outside_the_rotation():
    deepseek = str(describe_config(load_config("deepseek-v3")))
    assert f"softmax scale 1/sqrt(192) x {(0.1 * math.log(40) + 1) ** 2:.6f}" in deepseek
    assert "64 dims rotate" in deepseek
    ministral = str(describe_config(load_config("ministral-3-8b-instruct-2512")))
    assert "queries of all layers x 1 + 0.1 ln(1 + floor(m / 16,384))" in ministral


def test_plane_kinds():
    theta = np.array([1.0, 0.5, 0.25, 0.0])
    kinds = plane_kinds(theta, np.array([1.0, 0.3, 0.0625, 0.0]), 4.0)
    np.testing.assert_array_equal(kinds, ["kept", "stretched", "interpolated", "kept"])
    assert list(plane_kinds(theta[:3], theta[:3] / 4, None)) == ["stretched"] * 3
    with pytest.raises(ValueError, match="same shape"):
        plane_kinds(theta, theta[:2], 2.0)
