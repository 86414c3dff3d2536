"""Per-layer-type rotary embeddings of 2025-26 configs, decoded as transformers 5.23 runs them.

Two kinds of evidence. Frequencies: for configs in their released spelling (transformers 4's
``rope_scaling`` / ``rope_theta``, legacy keys), every rope group that
:func:`ropelab.config_fields.normalize_config` finds is compared with the buffer the model's
own rotary-embedding class builds from the same file: YaRN on OLMo 3's full layers only,
DeepSeek-V4's second base for its compressed layers, Gemma 3n's local base, Gemma 4's larger
global head. Layers without RoPE: a tiny model of each family (hidden size 32, random
weights) runs one forward pass with transformers' ``apply_rotary_pos_emb`` wrapped, and the
layers that called it are the layers :func:`normalize_config` says rotate.
"""

from __future__ import annotations

import importlib
import re
import warnings
from collections.abc import Iterator

import numpy as np
import pytest
import torch
import transformers
from transformers.models.auto.configuration_auto import CONFIG_MAPPING

import ropelab
from ropelab.config_fields import normalize_config
from ropelab.rope_config import frequencies_by_layer_type, frequencies_from_config

RTOL = 2e-6  # transformers computes the frequencies in float32


@pytest.fixture(autouse=True, scope="module")
def _quiet_transformers() -> Iterator[None]:
    level = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
    transformers.logging.set_verbosity(level)


def hf_config(raw: dict):
    raw = dict(raw)
    return CONFIG_MAPPING[raw.pop("model_type")](**raw).get_text_config()


def hf_rotary(config):
    package = type(config).__module__.split(".")[-2]
    module = importlib.import_module(f"transformers.models.{package}.modeling_{package}")
    name = next(n for n in dir(module) if n.endswith("RotaryEmbedding") and "Vision" not in n)
    return module, getattr(module, name)(config)


# Released spellings (transformers 4 keys) of 2025-26 families that the book does not ship.
RELEASED = {
    "olmo3-yarn-full-only": {
        "model_type": "olmo3",
        "hidden_size": 64,
        "num_attention_heads": 2,
        "num_hidden_layers": 8,
        "max_position_embeddings": 65536,
        "rope_theta": 500000,
        "sliding_window": 4096,
        "rope_scaling": {
            "rope_type": "yarn",
            "factor": 8.0,
            "original_max_position_embeddings": 8192,
            "attention_factor": 1.2079441541679836,
            "beta_fast": 32.0,
            "beta_slow": 1.0,
        },
    },
    "deepseek-v4-two-bases": {
        "model_type": "deepseek_v4",
        "num_hidden_layers": 6,
        "hidden_size": 64,
        "num_attention_heads": 2,
        "head_dim": 512,
        "qk_rope_head_dim": 64,
        "rope_theta": 10000,
        "compress_rope_theta": 160000,
        "max_position_embeddings": 1048576,
        "compress_ratios": [0, 0, 4, 128, 4, 128],
        "rope_scaling": {
            "type": "yarn",
            "factor": 16,
            "original_max_position_embeddings": 65536,
            "beta_fast": 32,
            "beta_slow": 1,
        },
    },
    "gemma3n-local-base": {
        "model_type": "gemma3n_text",
        "num_hidden_layers": 10,
        "hidden_size": 64,
        "num_attention_heads": 2,
        "head_dim": 256,
        "rope_theta": 1_000_000.0,
        "rope_local_base_freq": 10_000.0,
        "rope_scaling": {"rope_type": "linear", "factor": 4.0},
    },
    "cohere2-nope-global": {
        "model_type": "cohere2",
        "num_hidden_layers": 8,
        "hidden_size": 64,
        "num_attention_heads": 2,
        "rope_theta": 50000,
        "sliding_window": 4096,
        "sliding_window_pattern": 4,
        "max_position_embeddings": 131072,
    },
    "exaone4-nope-global": {
        "model_type": "exaone4",
        "num_hidden_layers": 8,
        "hidden_size": 64,
        "num_attention_heads": 2,
        "rope_theta": 1_000_000,
        "sliding_window": 4096,
        "sliding_window_pattern": 4,
        "max_position_embeddings": 131072,
        "rope_scaling": {
            "rope_type": "llama3",
            "factor": 16.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
    },
    "qwen3-next-no-partial-key": {
        "model_type": "qwen3_next",
        "num_hidden_layers": 8,
        "hidden_size": 64,
        "num_attention_heads": 2,
        "head_dim": 256,
        "rope_theta": 10_000_000,
        "max_position_embeddings": 262144,
    },
}
# Spelled as transformers 5 writes them (nested by layer type): the defaults of the classes.
NESTED = ("gemma4_text", "mimo_v2_flash", "gemma3n_text", "olmo3", "deepseek_v4")
# Multi-axis sections (M-RoPE): the frequencies are plain RoPE's; the sections say which
# position axis turns which plane (blocks in Qwen2.5-VL, spelled with the legacy type
# "mrope"; interleaved in Qwen3-VL), with the released models' section sizes.
MULTI_AXIS = {
    "qwen2_5_vl_text": {
        "model_type": "qwen2_5_vl_text",
        "hidden_size": 3584,
        "num_attention_heads": 28,
        "num_hidden_layers": 4,
        "rope_theta": 1_000_000.0,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    },
    "qwen3_vl_text": {
        "model_type": "qwen3_vl_text",
        "head_dim": 128,
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_hidden_layers": 4,
        "rope_parameters": {
            "rope_type": "default",
            "rope_theta": 5_000_000.0,
            "mrope_section": [24, 20, 20],
            "mrope_interleaved": True,
        },
    },
}


def cases() -> list:
    out = [pytest.param(raw, id=name) for name, raw in RELEASED.items()]
    for model_type in NESTED:
        raw = CONFIG_MAPPING[model_type]().to_dict()
        out.append(pytest.param(raw, id=f"{model_type}-v5-default"))
    out += [pytest.param(raw, id=f"{name}-sections") for name, raw in MULTI_AXIS.items()]
    return out


@pytest.mark.parametrize("model_type", MULTI_AXIS)
def test_multi_axis_sections_are_described(model_type):
    raw = MULTI_AXIS[model_type]
    rope = raw.get("rope_parameters") or raw["rope_scaling"]
    sections = rope["mrope_section"]
    (layer,) = ropelab.describe_config(raw).layers
    params = dict(layer.parameters)
    assert layer.rope_type == "default"  # "mrope" is read as plain RoPE plus sections
    assert params["mrope_section"] == "/".join(str(x) for x in sections)
    assert params["mrope_interleaved"] is bool(rope.get("mrope_interleaved"))
    assert sum(sections) == layer.rotary_dim // 2  # every plane belongs to one axis
    assert list(hf_config(raw).rope_parameters["mrope_section"]) == sections


@pytest.mark.parametrize("raw", cases())
def test_every_rope_group_equals_the_models_buffer(raw):
    _, rotary = hf_rotary(hf_config(raw))
    groups = frequencies_by_layer_type(raw)
    theirs = {
        k[: -len("_inv_freq")]
        for k, _ in rotary.named_buffers()
        if k.endswith("_inv_freq") and not k.endswith("original_inv_freq")
    }
    assert set(groups) == (theirs or {"all"})
    for name, (inv, attention) in groups.items():
        buffer = rotary.inv_freq if name == "all" else getattr(rotary, f"{name}_inv_freq")
        factor = (
            rotary.attention_scaling
            if name == "all"
            else getattr(rotary, f"{name}_attention_scaling")
        )
        np.testing.assert_allclose(inv, buffer.double().numpy(), rtol=RTOL, atol=0)
        assert attention == pytest.approx(float(factor), rel=1e-12)


def test_the_rules_that_used_to_be_missed():
    olmo = frequencies_by_layer_type(RELEASED["olmo3-yarn-full-only"])
    assert olmo["sliding_attention"][1] == 1.0  # no YaRN temperature on sliding layers
    assert olmo["full_attention"][1] == pytest.approx(1.2079441541679836)
    v4 = normalize_config(RELEASED["deepseek-v4-two-bases"])
    assert [e.layer_type for e in v4.layers] == ["main", "compress"]
    assert v4.layer("main").rope_parameters["rope_theta"] == 10000
    assert v4.layer("compress").rope_parameters["rope_theta"] == 160000
    assert v4.layer("main").layers == (0, 1)
    gemma4 = normalize_config(CONFIG_MAPPING["gemma4_text"]().to_dict())
    full, sliding = gemma4.layer("full_attention"), gemma4.layer("sliding_attention")
    assert full.config["head_dim"] > sliding.config["head_dim"]


def test_the_nested_error_names_an_exported_function():
    raw = CONFIG_MAPPING["gemma4_text"]().to_dict()
    with pytest.raises(ValueError, match="frequencies_by_layer_type") as error:
        frequencies_from_config(raw)
    assert "ropelab.frequencies_by_layer_type" in str(error.value)
    assert ropelab.frequencies_by_layer_type is frequencies_by_layer_type
    assert "frequencies_by_layer_type" in ropelab.__all__


# --- Which layers rotate: a tiny model of each family, run once -------------------------------

TINY = {
    "qwen3_next": {
        "num_hidden_layers": 4,
        "hidden_size": 32,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "head_dim": 16,
        "intermediate_size": 32,
        "moe_intermediate_size": 16,
        "shared_expert_intermediate_size": 16,
        "num_experts": 2,
        "num_experts_per_tok": 1,
        "linear_num_key_heads": 2,
        "linear_num_value_heads": 2,
        "linear_key_head_dim": 8,
        "linear_value_head_dim": 8,
        "vocab_size": 16,
        "pad_token_id": 0,
    },
    "smollm3": {
        "num_hidden_layers": 4,
        "hidden_size": 32,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "intermediate_size": 32,
        "vocab_size": 16,
        "pad_token_id": 0,
    },
    "cohere2": {
        "num_hidden_layers": 4,
        "hidden_size": 32,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "intermediate_size": 32,
        "vocab_size": 16,
        "pad_token_id": 0,
        "sliding_window": 8,
    },
    "exaone4": {
        "num_hidden_layers": 4,
        "hidden_size": 32,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "intermediate_size": 32,
        "vocab_size": 16,
        "pad_token_id": 0,
        "sliding_window": 8,
        "sliding_window_pattern": 4,
    },
    "llama4_text": {
        "num_hidden_layers": 4,
        "hidden_size": 32,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "head_dim": 16,
        "intermediate_size": 32,
        "intermediate_size_mlp": 32,
        "num_local_experts": 1,
        "vocab_size": 16,
        "pad_token_id": 0,
    },
}


def rotating_layers(model_type: str, raw: dict) -> tuple[int, ...]:
    """Indices of the decoder layers that call the family's rotary function in one forward."""
    config = CONFIG_MAPPING[model_type](**raw)
    config._attn_implementation = "eager"
    module, _ = hf_rotary(config)
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(config)
    seen: list[int] = []
    current: list[int] = []
    name = "apply_rotary_pos_emb" if hasattr(module, "apply_rotary_pos_emb") else "apply_rotary_emb"
    original = getattr(module, name)

    def wrapped(*args, **kwargs):
        seen.append(current[-1])
        return original(*args, **kwargs)

    hooks = []
    for index, layer in enumerate(model.model.layers):
        hooks.append(layer.register_forward_pre_hook(lambda *_, i=index: current.append(i)))
    setattr(module, name, wrapped)
    try:
        with torch.no_grad():
            model(torch.arange(6)[None] % 16)
    finally:
        setattr(module, name, original)
        for hook in hooks:
            hook.remove()
    return tuple(sorted(set(seen)))


@pytest.mark.parametrize("model_type", sorted(TINY))
def test_the_layers_said_to_rotate_are_the_ones_that_do(model_type):
    raw = dict(TINY[model_type], model_type=model_type)
    fields = normalize_config(raw)
    said = tuple(sorted(i for entry in fields.layers for i in entry.layers))
    assert said == rotating_layers(model_type, TINY[model_type])
    assert set(said).isdisjoint(fields.nope_layers)
    assert len(said) + len(fields.nope_layers) == fields.num_layers
    assert fields.nope_layers  # every family here has layers without RoPE


def test_the_2025_26_models_are_shipped_with_their_sources():
    from ropelab.configs import shipped_configs, source_of

    required = {
        "qwen3-8b",
        "qwen3-30b-a3b-yarn",
        "qwen3-next-80b-a3b-instruct",
        "kimi-k2-instruct",
        "glm-4.5",
        "smollm3-3b",
        "llama-3.2-1b-instruct",
        "phi-4-mini-instruct",
        "olmo-3-7b",
        "gpt-oss-120b",
        "gemma-3n-e2b-it",
    }
    assert required <= set(shipped_configs())
    for name in required:
        source = source_of(name)
        assert source["file"] == f"https://huggingface.co/{source['model']}/blob/main/config.json"
        # issue 25: each names the public copy it was read from, or the derived copies it
        # was assembled from, by repository, path and commit (tests/test_config_provenance.py)
        assert re.search(r"[\w.-]+/[\w.-]+ [\w./-]+ at commit [0-9a-f]{40}", source["copied_from"])


def test_kimi_k2_softmax_scale_equals_deepseek_v3_attention():
    """Kimi K2 runs DeepSeek-V3's code: YaRN x32 with mscale_all_dim 1 gives the softmax
    m^2 = (0.1 ln 32 + 1)^2, as DeepseekV3Attention.scaling holds it."""
    import math

    from transformers.models.deepseek_v3 import modeling_deepseek_v3 as M

    from ropelab.configs import load_config

    raw = {k: v for k, v in load_config("kimi-k2-instruct").items() if not k.startswith("_")}
    raw["model_type"] = "deepseek_v3"
    config = hf_config(raw)
    config.hidden_size, config.num_attention_heads = 64, 2
    config.q_lora_rank, config.kv_lora_rank = 16, 16
    head = config.qk_nope_head_dim + config.qk_rope_head_dim
    theirs = M.DeepseekV3Attention(config, 0).scaling * math.sqrt(head)
    fields = normalize_config(load_config("kimi-k2-instruct"))
    assert fields.softmax_scale == pytest.approx(theirs, rel=1e-12)
    assert fields.softmax_scale == pytest.approx((0.1 * math.log(32) + 1) ** 2, rel=1e-15)
    ramp = np.asarray(frequencies_from_config(fields.layers[0].config)[0])
    plain = ropelab.inv_freq(64, 50000.0)
    ratio = ramp / plain  # beta_fast = beta_slow = 1: a step, no plane in between
    assert set(np.round(ratio, 12)) == {1.0, round(1 / 32, 12)}
