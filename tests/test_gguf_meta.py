"""GGUF rope metadata (ropelab.gguf_meta): written by the gguf package's GGUFWriter, read back
by its GGUFReader, and turned back into the frequencies transformers computes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ropelab.config_fields import normalize_config
from ropelab.configs import load_config, shipped_configs
from ropelab.core import inv_freq
from ropelab.gguf_meta import (
    frequencies_from_gguf,
    gguf_rope_metadata,
    read_gguf_rope,
    write_gguf,
)
from ropelab.rope_config import frequencies_from_config

gguf = pytest.importorskip("gguf")
NAMES = shipped_configs()


def main_group(name):
    fields = normalize_config(load_config(name))
    scaled = [e for e in fields.layers if e.rope_parameters["rope_type"] != "default"]
    return (scaled or [fields.layers[-1]])[0]


@pytest.mark.parametrize("name", NAMES)
def test_round_trip_through_a_real_gguf_file(name, tmp_path):
    rope = gguf_rope_metadata(load_config(name))
    back = read_gguf_rope(write_gguf(tmp_path / f"{name}.gguf", rope))
    assert back.arch == rope.arch
    assert back.values.keys() == rope.values.keys()
    for key, value in rope.values.items():
        if isinstance(value, str):
            assert back.values[key] == value
        else:  # floats are stored as float32
            assert back.values[key] == pytest.approx(value, rel=1e-7)
    assert back.tensors.keys() == rope.tensors.keys()
    for tensor, array in rope.tensors.items():
        np.testing.assert_array_equal(back.tensors[tensor], array)


@pytest.mark.parametrize("name", NAMES)
def test_frequencies_read_back_equal_the_configs(name, tmp_path):
    entry = main_group(name)
    back = read_gguf_rope(write_gguf(tmp_path / "m.gguf", gguf_rope_metadata(entry.config)))
    ours, _ = frequencies_from_config(entry.config)
    theirs = frequencies_from_gguf(back)
    if entry.rope_parameters.get("truncate") is False:
        # GGUF has no truncate key: the file gives the rounded ramp, not the config's
        rounded = dict(entry.config, rope_parameters=dict(entry.rope_parameters, truncate=True))
        np.testing.assert_allclose(theirs, frequencies_from_config(rounded)[0], rtol=1e-6)
        assert np.max(np.abs(theirs / ours - 1)) > 0.1
    else:  # float32 storage of the base, factors and rope_freqs
        np.testing.assert_allclose(theirs, ours, rtol=1e-6, atol=0)


def test_llama3_divisors_follow_the_converters_rule():
    """rope_freqs: 1 below L/high, s above L/low, 1 / ((1 - g)/s + g) between (the converter's
    loop, written here from the Llama 3.1 formula, independently of rope_config)."""
    config = load_config("llama-3.1-8b-instruct")
    scaling = config["rope_scaling"]
    factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    original = scaling["original_max_position_embeddings"]
    expected = []
    for theta in inv_freq(128, config["rope_theta"]):
        wavelength = 2 * math.pi / theta
        if wavelength < original / high:
            expected.append(1.0)
        elif wavelength > original / low:
            expected.append(factor)
        else:
            g = (original / wavelength - low) / (high - low)
            expected.append(1 / ((1 - g) / factor + g))
    rope = gguf_rope_metadata(config)
    np.testing.assert_allclose(rope.tensors["rope_freqs"], expected, rtol=1e-6)
    assert "llama.rope.scaling.type" not in rope.values


def test_key_names_are_llama_cpps():
    rope = gguf_rope_metadata(load_config("qwen2.5-7b-instruct-yarn"))
    assert rope.values["qwen2.rope.scaling.type"] == "yarn"
    assert rope.values["qwen2.rope.scaling.factor"] == 4.0
    assert rope.values["qwen2.rope.scaling.original_context_length"] == 32768
    assert rope.values["qwen2.rope.freq_base"] == 1_000_000.0
    gemma = gguf_rope_metadata(load_config("gemma-3-27b-it"))
    assert gemma.values["gemma3.rope.freq_base_swa"] == 10_000.0
    assert gemma.values["gemma3.rope.scaling.type"] == "linear"
    phi = gguf_rope_metadata(load_config("phi-4-mini-instruct"))
    assert phi.values["phi3.rope.dimension_count"] == 96
    assert phi.tensors["rope_factors_long"].shape == (48,)
    long = frequencies_from_gguf(phi, seq_len=100_000)
    assert long[-1] == pytest.approx(inv_freq(96, 10_000.0)[-1] / 47.77, rel=1e-6)
