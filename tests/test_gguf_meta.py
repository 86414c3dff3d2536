"""GGUF rope metadata (ropelab.gguf_meta): written by the gguf package's GGUFWriter, read back
by its GGUFReader, and turned back into the frequencies transformers computes."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from ropelab.config_fields import normalize_config
from ropelab.configs import load_config, shipped_configs
from ropelab.core import inv_freq
from ropelab.gguf_meta import (
    DIMENSION_COUNT,
    ROPE_KEYS,
    frequencies_from_gguf,
    gguf_rope_metadata,
    llamacpp_attention_factor,
    llamacpp_softmax_scale,
    read_gguf_rope,
    write_gguf,
)
from ropelab.rope_config import frequencies_from_config

gguf = pytest.importorskip("gguf")
NAMES = shipped_configs()


def main_group(name):
    """The rope group the converter writes: full attention's, else the only one."""
    layers = normalize_config(load_config(name)).layers
    return next((e for e in layers if e.layer_type == "full_attention"), layers[0])


def llamacpp_group_config(entry, arch):
    """A group's flat config as llama.cpp runs it: YaRN's betas 32 and 1 (read from the
    file only for Grok and Mistral 3), the computed attention factor, the rounded ramp."""
    params = dict(entry.rope_parameters)
    params.pop("attention_factor", None)
    if arch != "mistral3":
        params.pop("beta_fast", None)
        params.pop("beta_slow", None)
    if params.get("truncate") is False:
        params["truncate"] = True
    return dict(entry.config, rope_parameters=params)


def test_key_names_are_the_gguf_packages():
    for name, template in ROPE_KEYS.items():
        assert getattr(gguf.Keys.Rope, name) == template


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
def test_frequencies_read_back_are_llamacpps(name, tmp_path):
    """The file's frequencies are transformers' for the written group, except where llama.cpp
    itself differs: it ignores YaRN's betas (Kimi K2 ships beta_fast 1) and truncate false."""
    config = load_config(name)
    rope = gguf_rope_metadata(config)
    back = read_gguf_rope(write_gguf(tmp_path / "m.gguf", rope))
    entry = main_group(name)
    expected, attention = frequencies_from_config(llamacpp_group_config(entry, rope.arch))
    np.testing.assert_allclose(frequencies_from_gguf(back), expected, rtol=1e-6, atol=0)
    if rope.arch != "deepseek2":  # DeepSeek's m^2 goes to the softmax scale
        assert llamacpp_attention_factor(back) == pytest.approx(attention, rel=1e-6)
    else:
        assert llamacpp_attention_factor(back) == 1.0
        fields = normalize_config(config)
        assert llamacpp_softmax_scale(back) == pytest.approx(fields.softmax_scale, rel=1e-6)


def test_llamacpp_ignores_the_betas_kimi_k2_ships():
    rope = gguf_rope_metadata(load_config("kimi-k2-instruct"))
    assert rope.values["deepseek2.rope.scaling.yarn_beta_fast"] == 1.0  # written ...
    entry = main_group("kimi-k2-instruct")
    as_config, _ = frequencies_from_config(entry.config)
    assert np.max(np.abs(frequencies_from_gguf(rope) / as_config - 1)) > 0.01  # ... unused


def test_sliding_layers_use_the_swa_base():
    """Gemma 3 27B's config has no local base: llama.cpp's default 10,000 is transformers'."""
    for name in ("gemma-3-27b-it", "gemma-3-1b-it"):
        rope = gguf_rope_metadata(load_config(name))
        sliding = next(
            e for e in normalize_config(load_config(name)).layers if "sliding" in e.layer_type
        )
        expected, _ = frequencies_from_config(sliding.config)
        np.testing.assert_allclose(frequencies_from_gguf(rope, swa=True), expected, rtol=1e-12)
    with pytest.raises(ValueError, match="not restated"):
        frequencies_from_gguf(gguf_rope_metadata(load_config("qwen3-8b")), swa=True)


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
    assert list(rope.tensors) == ["rope_freqs.weight"]
    np.testing.assert_allclose(rope.tensors["rope_freqs.weight"], expected, rtol=1e-6)
    assert "llama.rope.scaling.type" not in rope.values
    assert "llama.rope.scaling.factor" not in rope.values


def test_key_names_are_llama_cpps():
    # Qwen2.5's YaRN block (type, factor, original length): exactly those three scaling keys,
    # no attention factor, no betas, no dimension count (qwen2 rotates the whole head)
    rope = gguf_rope_metadata(load_config("qwen2.5-7b-instruct-yarn"))
    assert rope.values == {
        "qwen2.rope.scaling.type": "yarn",
        "qwen2.rope.scaling.factor": 4.0,
        "qwen2.rope.scaling.original_context_length": 32768,
        "qwen2.rope.freq_base": 1_000_000.0,
    }
    assert rope.head_dim == 128
    assert llamacpp_attention_factor(rope) == pytest.approx(1 + 0.1 * math.log(4.0))
    gemma = gguf_rope_metadata(load_config("gemma-3-27b-it"))
    assert gemma.values == {
        "gemma3.rope.scaling.type": "linear",
        "gemma3.rope.scaling.factor": 8.0,
        "gemma3.rope.freq_base": 1_000_000.0,
    }  # the file gives Gemma's default base 10^6 and no local base (rope_local_base_freq)
    one = gguf_rope_metadata(load_config("gemma-3-1b-it"))
    assert one.values["gemma3.rope.freq_base_swa"] == 10_000.0
    phi = gguf_rope_metadata(load_config("phi-4-mini-instruct"))
    assert phi.values == {
        "phi3.rope.scaling.original_context_length": 4096,
        "phi3.rope.dimension_count": 96,
        "phi3.rope.freq_base": 10_000.0,
        "phi3.rope.scaling.attn_factor": pytest.approx(
            math.sqrt(1 + math.log(131072 / 4096) / math.log(4096))
        ),
    }  # no scaling type: Phi3MiniModel writes none of the generic keys
    assert phi.tensors["rope_factors_long.weight"].shape == (48,)
    assert llamacpp_attention_factor(phi) == phi.values["phi3.rope.scaling.attn_factor"]
    long = frequencies_from_gguf(phi, seq_len=100_000)
    assert long[-1] == pytest.approx(inv_freq(96, 10_000.0)[-1] / 47.77, rel=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_dimension_count_only_where_the_converter_class_writes_it(name):
    rope = gguf_rope_metadata(load_config(name))
    assert rope.arch in DIMENSION_COUNT, rope.arch
    written = rope.key("DIMENSION_COUNT") in rope.values
    assert written == (DIMENSION_COUNT[rope.arch] is not None)
    assert (rope.head_dim is None) == written  # llama.cpp rotates the head otherwise


@pytest.mark.parametrize("name", NAMES)
def test_yarn_writes_only_the_keys_the_config_spells(name):
    config = load_config(name)
    rope = gguf_rope_metadata(config)
    text = config.get("text_config") or config
    block = text.get("rope_parameters") or text.get("rope_scaling") or {}
    if rope.values.get(rope.key("SCALING_TYPE")) != "yarn":
        return
    assert rope.key("SCALING_ATTN_FACTOR") not in rope.values  # LongRoPE's key
    spelled = {
        "SCALING_YARN_ATTN_FACTOR": "attention_factor" in block or "attn_factor" in block,
        "SCALING_YARN_BETA_FAST": "beta_fast" in block,
        "SCALING_YARN_BETA_SLOW": "beta_slow" in block,
        "SCALING_YARN_EXT_FACTOR": "extrapolation_factor" in block,
    }
    for key, present in spelled.items():
        assert (rope.key(key) in rope.values) == present, key


def test_log_multipliers_of_deepseek_and_ministral():
    v3 = gguf_rope_metadata(load_config("deepseek-v2"))
    assert v3.values["deepseek2.rope.scaling.yarn_log_multiplier"] == pytest.approx(0.0707)
    assert v3.values["deepseek2.rope.dimension_count"] == 64
    ministral = gguf_rope_metadata(load_config("ministral-3-8b-instruct-2512"))
    assert ministral.values["mistral3.rope.scaling.yarn_log_multiplier"] == 1.0
    assert gguf_rope_metadata(load_config("olmo-3-7b")).arch == "olmo2"


def test_the_files_attention_keys_do_not_change_llamacpps_yarn_factor():
    """yarn_attn_factor is read for Grok only; .scaling.attn_factor multiplies."""
    rope = gguf_rope_metadata(load_config("olmo-3-7b"))
    computed = 1 + 0.1 * math.log(8.0)
    assert llamacpp_attention_factor(rope) == pytest.approx(computed)
    changed = dict(rope.values)
    changed["olmo2.rope.scaling.yarn_attn_factor"] = 3.0
    assert llamacpp_attention_factor(replace(rope, values=changed)) == pytest.approx(computed)
    changed["olmo2.rope.scaling.attn_factor"] = 2.0
    assert llamacpp_attention_factor(replace(rope, values=changed)) == pytest.approx(2 * computed)


def test_a_config_without_heads_takes_the_class_defaults_as_the_converter_does():
    """The converter reads ``AutoConfig(...).to_dict()`` (conversion/base.py), so a config
    without ``num_attention_heads`` gets the class's default: LlamaConfig's 32 heads."""
    from transformers import LlamaConfig

    bare = {"model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096}
    expected = LlamaConfig(hidden_size=4096).head_dim
    assert expected == 128
    values = gguf_rope_metadata(bare).values
    assert values["llama.rope.dimension_count"] == expected
