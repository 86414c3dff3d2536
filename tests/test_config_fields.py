"""ropelab.config_fields: released spellings read as transformers 5.23 reads them.

Each rule is checked against the transformers config class of the model it comes from, on
small configs written in the released spelling (the shipped real configs are in
test_shipped_configs.py).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator

import numpy as np
import pytest
import transformers
from transformers import GPTNeoXConfig, LlamaConfig, Phi3Config
from transformers.models.gemma3.configuration_gemma3 import Gemma3TextConfig

from ropelab.config_fields import LEGACY_TYPE_NAMES, normalize_config, v5_rope_parameters
from ropelab.rope_config import frequencies_from_config


@pytest.fixture(autouse=True, scope="module")
def _quiet_transformers() -> Iterator[None]:
    level = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()
    yield
    transformers.logging.set_verbosity(level)


@pytest.mark.parametrize("given", [{}, {"rotary_pct": 0.5}, {"rotary_emb_base": 12345}])
def test_gpt_neox_fields_follow_gpt_neox_config(given):
    raw = {"model_type": "gpt_neox", "hidden_size": 256, "num_attention_heads": 4} | given
    theirs = GPTNeoXConfig(**copy.deepcopy(raw)).rope_parameters
    flat = normalize_config(raw).layer().rope_parameters
    assert flat["partial_rotary_factor"] == theirs["partial_rotary_factor"]
    assert flat["rope_theta"] == theirs["rope_theta"]
    assert flat["rope_type"] == "default"


def test_gpt_neox_without_rotary_pct_rotates_a_quarter():
    fields = normalize_config(
        {"model_type": "gpt_neox", "hidden_size": 256, "num_attention_heads": 4}
    )
    inv, _ = frequencies_from_config(fields.layer().config)
    assert len(inv) == 64 // 4 // 2
    assert "no rotary_pct: GPTNeoXConfig's default 0.25" in fields.notes


def test_v4_and_v5_spellings_give_the_same_settings():
    v4 = {
        "hidden_size": 512,
        "num_attention_heads": 4,
        "max_position_embeddings": 131072,
        "rope_theta": 500000.0,
        "rope_scaling": {
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
            "rope_type": "llama3",
        },
    }
    v5 = {k: v for k, v in v4.items() if k not in ("rope_theta", "rope_scaling")}
    v5["rope_parameters"] = v5_rope_parameters(v4)
    assert v5["rope_parameters"]["rope_theta"] == 500000.0
    a, b = normalize_config(v4), normalize_config(v5)
    assert (a.spelling, b.spelling) == ("transformers 4", "transformers 5")
    np.testing.assert_array_equal(
        frequencies_from_config(a.layer().config)[0], frequencies_from_config(b.layer().config)[0]
    )
    assert (
        LlamaConfig(**copy.deepcopy(v4)).rope_parameters
        == LlamaConfig(**copy.deepcopy(v5)).rope_parameters
    )


def gemma3(**fields) -> dict:
    return {
        "model_type": "gemma3_text",
        "head_dim": 32,
        "hidden_size": 64,
        "num_attention_heads": 2,
        "num_hidden_layers": 12,
        "max_position_embeddings": 4096,
    } | fields


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"rope_theta": 2e6, "rope_local_base_freq": 5e3, "sliding_window_pattern": 4},
        {"rope_scaling": {"rope_type": "linear", "factor": 8.0}},
        {
            "rope_parameters": {
                "full_attention": {"rope_type": "linear", "factor": 4.0, "rope_theta": 1e6},
                "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
            }
        },
    ],
    ids=["defaults", "explicit", "v4-scaled", "v5-nested"],
)
def test_gemma3_layer_types_follow_gemma3_config(fields):
    raw = gemma3(**fields)
    config = Gemma3TextConfig(**copy.deepcopy(raw))
    ours = normalize_config(raw)
    assert {e.layer_type for e in ours.layers} == {"full_attention", "sliding_attention"}
    for entry in ours.layers:
        theirs = config.rope_parameters[entry.layer_type]
        assert entry.rope_parameters["rope_type"] == theirs["rope_type"]
        assert float(entry.rope_parameters["rope_theta"]) == float(theirs["rope_theta"])
        assert entry.rope_parameters.get("factor") == theirs.get("factor")
        assert entry.layers == tuple(
            i for i, t in enumerate(config.layer_types) if t == entry.layer_type
        )


@pytest.mark.parametrize(("legacy", "model_type"), [("su", "phi3"), ("yarn", "phi3")])
def test_phi3_legacy_type_names(legacy, model_type):
    factors = [1.0] * 16
    raw = {
        "model_type": model_type,
        "hidden_size": 128,
        "num_attention_heads": 4,
        "max_position_embeddings": 8192,
        "original_max_position_embeddings": 2048,
        "rope_scaling": {"type": legacy, "short_factor": factors, "long_factor": factors},
    }
    fields = normalize_config(raw)
    assert fields.layer().rope_parameters["rope_type"] == "longrope"
    if legacy == "yarn":  # Phi3Config itself renames it (and validates afterwards)
        assert Phi3Config(**copy.deepcopy(raw)).rope_parameters["rope_type"] == "longrope"


def test_generic_legacy_names_and_the_type_key():
    assert LEGACY_TYPE_NAMES == {"su": "longrope", "mrope": "default"}
    raw = {
        "hidden_size": 64,
        "num_attention_heads": 2,
        "rope_scaling": {"type": "mrope", "mrope_section": [4, 6, 6]},
    }
    assert normalize_config(raw).layer().rope_parameters["rope_type"] == "default"
    raw = {
        "hidden_size": 64,
        "num_attention_heads": 2,
        "rope_scaling": {"type": "linear", "factor": 2.0},
    }
    fields = normalize_config(raw)
    assert fields.layer().rope_parameters["rope_type"] == "linear"
    assert "legacy key 'type': 'linear' read as rope_type" in fields.notes


def test_original_length_defaults_to_max_position_embeddings_as_in_transformers():
    raw = {
        "hidden_size": 256,
        "num_attention_heads": 2,
        "max_position_embeddings": 32768,
        "rope_scaling": {"rope_type": "yarn", "factor": 4.0},
    }
    flat = normalize_config(raw).layer().rope_parameters
    theirs = LlamaConfig(**copy.deepcopy(raw)).rope_parameters
    assert (
        flat["original_max_position_embeddings"]
        == theirs["original_max_position_embeddings"]
        == 32768
    )


def test_llama4_rules():
    text = {
        "model_type": "llama4_text",
        "hidden_size": 64,
        "num_attention_heads": 2,
        "head_dim": 32,
        "num_hidden_layers": 8,
        "rope_theta": 5e5,
    }
    fields = normalize_config({"model_type": "llama4", "text_config": text})
    assert fields.nope_layers == (3, 7)  # no_rope_layer_interval 4 by default
    assert fields.query_temperature.layers == (3, 7)
    assert fields.layer().layers == (0, 1, 2, 4, 5, 6)
    off = normalize_config({"text_config": text | {"attn_temperature_tuning": False}})
    assert off.query_temperature is None


def test_missing_head_size_is_reported():
    with pytest.raises(ValueError, match="config must give head_dim"):
        normalize_config({"rope_theta": 1e4})
    with pytest.raises(ValueError, match=r"config must be a config\.json mapping"):
        normalize_config([1, 2])


def test_gemma4_proportional_layers_equal_transformers():
    from transformers import Gemma4TextConfig
    from transformers.models.gemma4.modeling_gemma4 import Gemma4TextRotaryEmbedding

    params = {
        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
        "full_attention": {
            "rope_type": "proportional",
            "partial_rotary_factor": 0.25,
            "rope_theta": 1e6,
        },
    }
    for extra in ({}, {"global_head_dim": 128}):
        raw = {
            "model_type": "gemma4_text",
            "head_dim": 64,
            "hidden_size": 128,
            "num_attention_heads": 2,
            "num_hidden_layers": 6,
            "rope_parameters": params,
        } | extra
        rotary = Gemma4TextRotaryEmbedding(Gemma4TextConfig(**copy.deepcopy(raw)))
        fields = normalize_config(raw)
        for entry in fields.layers:
            theirs = getattr(rotary, f"{entry.layer_type}_inv_freq").double().numpy()
            ours, attention = frequencies_from_config(entry.config)
            np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=0)
            assert attention == 1.0
        full = fields.layer("full_attention").config["head_dim"]
        assert full == extra.get("global_head_dim", 512)


@pytest.mark.parametrize(
    ("config", "field"),
    [
        (  # a rotary_dim alias (CodeGen's) on an MLA head without rotated part
            {"model_type": "codegen", "qk_rope_head_dim": 0, "rotary_dim": 64, "head_dim": 128},
            "rotary_dim",
        ),
        (  # HunYuan's NTK-alpha base alpha ** (d / (d - 2)) on a 2-wide head
            {
                "model_type": "hunyuan_v1_dense",
                "head_dim": 2,
                "rope_theta": 1e4,
                "rope_scaling": {"type": "dynamic", "alpha": 50.0},
            },
            "head_dim",
        ),
    ],
)
def test_a_division_by_zero_is_a_value_error_naming_the_field(config, field):
    with pytest.raises(ValueError, match=rf"^{field} = "):
        normalize_config(config)
