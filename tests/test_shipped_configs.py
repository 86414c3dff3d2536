"""The shipped released configs (ropelab.configs): sources named, and every one decoded as
transformers 5.23 decodes it.

For each config the frequencies and the cos/sin factor of every layer type are compared with
the model's own rotary-embedding module in transformers; DeepSeek's softmax scale with
DeepseekV3Attention.scaling; Ministral 3's query temperature with transformers'
get_llama_4_attn_scale; Llama 4's with the queries its attention really passes on.

Two released files cannot be loaded by transformers 5.23 as they are, and the tests say so:
Llama 4 Scout's ``attn_temperature_tuning: 4`` (the strict config wants a bool) and the first
Phi-3-mini-128k release's rope type ``"su"`` (renamed to longrope after the step that moves
``original_max_position_embeddings`` into the rope dict, so validation fails). For those the
comparison uses the file with that one field corrected, which is what the models' released
code reads (a truthy flag; Phi-3's ``su`` scaling is transformers' longrope).
"""

from __future__ import annotations

import copy
import importlib
import math
from collections.abc import Iterator

import numpy as np
import pytest
import torch
import transformers
from transformers.models.auto.configuration_auto import CONFIG_MAPPING

from ropelab.config_fields import normalize_config, v5_rope_parameters
from ropelab.configs import load_config, shipped_configs, source_of
from ropelab.rope_config import frequencies_from_config

NAMES = shipped_configs()
RTOL = 2e-6  # transformers computes the frequencies in float32 (see test_rope_config.py)


@pytest.fixture(autouse=True, scope="module")
def _quiet_transformers() -> Iterator[None]:
    level = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()
    yield
    transformers.logging.set_verbosity(level)


def released(name: str) -> dict:
    return {k: v for k, v in load_config(name).items() if not k.startswith("_")}


def loadable(name: str) -> dict:
    """The released file with the one field transformers 5.23 cannot take corrected."""
    raw = copy.deepcopy(released(name))
    text = raw.get("text_config", raw)
    if "attn_temperature_tuning" in text:
        text["attn_temperature_tuning"] = bool(text["attn_temperature_tuning"])
    scaling = text.get("rope_scaling") or {}
    if scaling.get("type") == "su":
        scaling["type"] = "longrope"
    if raw.get("model_type") == "kimi_k2":  # DeepSeek-V3's code, as Kimi K2's card says
        raw["model_type"] = "deepseek_v3"
    return raw


def hf_text_config(raw: dict):
    raw = copy.deepcopy(raw)
    config = CONFIG_MAPPING[raw.pop("model_type")](**raw)
    return config.get_text_config()


def hf_rotary(config):
    package = config.model_type.removesuffix("_text")
    module = importlib.import_module(f"transformers.models.{package}.modeling_{package}")
    name = next(n for n in dir(module) if n.endswith("RotaryEmbedding") and "Vision" not in n)
    return module, getattr(module, name)(config)


def test_the_required_models_are_shipped():
    required = {
        "llama-3.1-8b-instruct",
        "qwen2.5-7b-instruct-yarn",
        "phi-3-mini-128k-instruct",
        "deepseek-v3",
        "gpt-oss-20b",
        "codellama-7b",
        "gpt-neox-20b",
        "gemma-3-27b-it",
        "llama-4-scout-17b-16e-instruct",
        "ministral-3-8b-instruct-2512",
    }
    assert required <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_every_config_names_its_source(name):
    source = source_of(name)
    assert set(source) >= {"model", "file", "revision", "copied_from"}
    assert source["file"].startswith(f"https://huggingface.co/{source['model']}/")
    assert source["file"].endswith("config.json")


def test_released_values_that_the_chapter_quotes():
    phi = released("phi-3-mini-128k-instruct")["rope_scaling"]
    assert len(phi["short_factor"]) == len(phi["long_factor"]) == 3072 // 32 // 2
    assert phi["long_factor"][-1] == pytest.approx(64.81001281738281)
    assert released("deepseek-v3")["qk_rope_head_dim"] == 64
    assert released("gpt-oss-20b")["rope_scaling"]["truncate"] is False
    assert released("gpt-neox-20b")["rotary_pct"] == 0.25
    assert released("codellama-7b")["rope_theta"] == 1_000_000
    scout = released("llama-4-scout-17b-16e-instruct")["text_config"]["rope_scaling"]
    assert scout["low_freq_factor"] == scout["high_freq_factor"] == 1.0


def test_transformers_rejects_two_released_files_as_they_are():
    with pytest.raises(Exception, match="attn_temperature_tuning"):
        hf_text_config(released("llama-4-scout-17b-16e-instruct"))
    with pytest.raises(KeyError, match="original_max_position_embeddings"):
        hf_text_config(released("phi-3-mini-128k-instruct"))


def layer_cases() -> list:
    return [
        pytest.param(name, entry.layer_type, id=f"{name}-{entry.layer_type}")
        for name in NAMES
        for entry in normalize_config(released(name)).layers
    ]


@pytest.mark.parametrize(("name", "layer_type"), layer_cases())
def test_frequencies_equal_the_models_rotary_embedding(name, layer_type):
    config = hf_text_config(loadable(name))
    _, rotary = hf_rotary(config)
    if layer_type == "all":
        theirs, factor = rotary.inv_freq, rotary.attention_scaling
    else:
        theirs = getattr(rotary, f"{layer_type}_inv_freq")
        factor = getattr(rotary, f"{layer_type}_attention_scaling")
    entry = normalize_config(released(name)).layer(layer_type)
    ours, attention = frequencies_from_config(entry.config)
    # frequencies_from_config also takes the released file itself
    as_released = frequencies_from_config(
        released(name), layer_type=None if layer_type == "all" else layer_type
    )
    np.testing.assert_array_equal(as_released[0], ours)
    assert as_released[1] == attention
    np.testing.assert_allclose(ours, theirs.double().numpy(), rtol=RTOL, atol=0)
    assert attention == pytest.approx(float(factor), rel=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_layer_types_and_counts_follow_transformers(name):
    config = hf_text_config(loadable(name))
    fields = normalize_config(released(name))
    assert fields.num_layers == config.num_hidden_layers
    types = getattr(config, "layer_types", None)
    if len(fields.layers) > 1:
        for entry in fields.layers:
            assert entry.layers == tuple(i for i, t in enumerate(types) if t == entry.layer_type)
    if name.startswith("llama-4"):
        assert fields.nope_layers == tuple(i for i, u in enumerate(config.no_rope_layers) if not u)


@pytest.mark.parametrize("name", [n for n in NAMES if n.startswith("deepseek")])
def test_deepseek_softmax_scale_equals_transformers(name):
    config = hf_text_config(loadable(name))
    module, _ = hf_rotary(config)
    attention_class = next(n for n in dir(module) if n.endswith("Attention") and "Flash" not in n)
    small = copy.deepcopy(config)  # the scale does not depend on the layer sizes
    small.hidden_size, small.num_attention_heads = 64, 2
    small.q_lora_rank, small.kv_lora_rank = 16, 16
    head = config.qk_nope_head_dim + config.qk_rope_head_dim
    theirs = getattr(module, attention_class)(small, 0).scaling * math.sqrt(head)
    fields = normalize_config(released(name))
    scaling = released(name)["rope_scaling"]
    assert fields.head_dim == head == 192
    assert fields.softmax_scale == pytest.approx(theirs, rel=1e-12)
    m = 0.1 * scaling["mscale_all_dim"] * math.log(scaling["factor"]) + 1
    assert fields.softmax_scale == pytest.approx(m * m, rel=1e-15)


def test_ministral_query_temperature_equals_transformers():
    from transformers.models.ministral3.modeling_ministral3 import get_llama_4_attn_scale

    temperature = normalize_config(released("ministral-3-8b-instruct-2512")).query_temperature
    positions = torch.tensor([[0, 1, 16383, 16384, 40000, 262143]])
    theirs = get_llama_4_attn_scale(positions, 0.1, 16384).reshape(-1).double().numpy()
    np.testing.assert_allclose(temperature.scale(positions.numpy()[0]), theirs, rtol=1e-7)
    assert temperature.layers == tuple(range(34))
    assert temperature.first_change() == 16384


def test_llama4_query_temperature_equals_what_its_attention_does(monkeypatch):
    from transformers import Llama4TextConfig
    from transformers.models.llama4 import modeling_llama4 as M

    temperature = normalize_config(released("llama-4-scout-17b-16e-instruct")).query_temperature
    assert (temperature.beta, temperature.length, temperature.offset) == (0.1, 8192, 1)
    assert temperature.layers == tuple(range(3, 48, 4))
    # The same rule with a floor of 4 tokens, so that a short run crosses several floors.
    small = Llama4TextConfig(
        hidden_size=16,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=8,
        num_hidden_layers=4,
        no_rope_layers=[1, 1, 1, 0],
        attn_temperature_tuning=True,
        floor_scale=4,
        attn_scale=temperature.beta,
        use_qk_norm=False,
        intermediate_size=8,
        intermediate_size_mlp=8,
        vocab_size=10,
        num_local_experts=1,
    )
    small._attn_implementation = "eager"
    captured = {}
    original = M.eager_attention_forward

    def capture(module, query, *args, **kwargs):
        captured["query"] = query.detach()
        return original(module, query, *args, **kwargs)

    monkeypatch.setattr(M, "eager_attention_forward", capture)
    attention = M.Llama4TextAttention(small, 3)
    hidden = torch.randn(1, 21, 16, generator=torch.Generator().manual_seed(0))
    angles = M.Llama4TextRotaryEmbedding(small)(hidden, torch.arange(21)[None])
    with torch.no_grad():
        attention(hidden, angles, None)
        raw = attention.q_proj(hidden).view(1, 21, 2, 8).transpose(1, 2)
    measured = (captured["query"] / raw)[0, 0, :, 0].double().numpy()
    rule = type(temperature)(temperature.source, temperature.beta, 4, 1, ())
    np.testing.assert_allclose(rule.scale(np.arange(21)), measured, rtol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_v5_spelling_equals_transformers_rope_parameters(name):
    ours = v5_rope_parameters(released(name))
    theirs = hf_text_config(loadable(name)).rope_parameters
    nested = isinstance(next(iter(theirs.values())), dict)
    pairs = [(ours[k], theirs[k]) for k in theirs] if nested else [(ours, theirs)]
    for mine, hf in pairs:
        for key, value in mine.items():
            if key == "partial_rotary_factor" and key not in hf:
                continue
            assert hf[key] == value, (name, key)
        assert mine["rope_type"] == hf["rope_type"]
        assert float(mine["rope_theta"]) == float(hf["rope_theta"])
