"""Decoder fixes of issue 38's coverage, each against transformers 5.23's rotary module:

* the config class's ``attribute_map`` spellings (JetMoe's ``kv_channels``, DBRX's
  ``n_heads``/``d_model``, Zamba2's ``attention_head_dim``) read as the standard fields;
* an MLA config whose rope dict gives a partial rotary factor (Mistral 4): the factor
  applies to the whole q/k head;
* rope dicts of layer types the config has no layer of (Mellum) are not reported;
* an encoder-decoder's ``decoder`` sub-config read when there is no ``text_config``
  (T5Gemma 2);
* Jamba's released ``attn_layer_period`` / ``attn_layer_offset``.
"""

from __future__ import annotations

import numpy as np
import pytest

from ropelab import frequencies_from_config
from ropelab.config_fields import normalize_config

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
transformers.logging.set_verbosity_error()


def _inv_freq(module) -> np.ndarray:
    return module.inv_freq.double().numpy()


def _ours(config: dict, layer_type: str = "all") -> np.ndarray:
    fields = normalize_config(config)
    return np.asarray(frequencies_from_config(fields.layer(layer_type).config)[0])


@pytest.mark.parametrize(
    ("model_type", "module", "cls", "released"),
    [
        ("jetmoe", "jetmoe", "JetMoeRotaryEmbedding", {"kv_channels": 96}),
        ("dbrx", "dbrx", "DbrxRotaryEmbedding", {"d_model": 1536, "n_heads": 12}),
        ("zamba2", "zamba2", "Zamba2RotaryEmbedding", {"attention_head_dim": 48}),
    ],
)
def test_attribute_map_spellings(model_type, module, cls, released) -> None:
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    mod = __import__(f"transformers.models.{module}.modeling_{module}", fromlist=[cls])
    theirs = CONFIG_MAPPING[model_type](**released)
    hf = _inv_freq(getattr(mod, cls)(config=theirs))
    config = {"model_type": model_type, "rope_parameters": {"rope_theta": 10000.0}, **released}
    if model_type == "dbrx":
        config["hidden_size"] = None  # only the released spellings
    else:
        config |= {"hidden_size": theirs.hidden_size, "num_attention_heads": 32}
    np.testing.assert_allclose(_ours(config), hf, rtol=1e-6)


def test_mla_partial_factor_applies_to_the_whole_head() -> None:
    from transformers.models.mistral4.modeling_mistral4 import Mistral4RotaryEmbedding

    theirs = transformers.Mistral4Config()
    hf = Mistral4RotaryEmbedding(theirs)
    ours = normalize_config(theirs.to_dict())
    assert ours.layer("all").config["head_dim"] * 0.5 == 64
    np.testing.assert_allclose(_ours(theirs.to_dict()), _inv_freq(hf), rtol=1e-6)
    np.testing.assert_allclose(
        frequencies_from_config(ours.layer("all").config)[0].size, _inv_freq(hf).size
    )


def test_rope_dicts_of_absent_layer_types_are_dropped() -> None:
    theirs = transformers.AutoConfig.for_model("mellum")
    fields = normalize_config(theirs.to_dict())
    assert [e.layer_type for e in fields.layers] == sorted(set(theirs.layer_types))


def test_decoder_sub_config_of_an_encoder_decoder() -> None:
    from transformers.models.t5gemma2.modeling_t5gemma2 import T5Gemma2RotaryEmbedding

    theirs = transformers.AutoConfig.for_model("t5gemma2")
    hf = T5Gemma2RotaryEmbedding(theirs.decoder)
    fields = normalize_config(theirs.to_dict())
    assert "fields read from decoder" in fields.notes
    for name in ("full_attention", "sliding_attention"):
        buffer = getattr(hf, f"{name}_inv_freq").double().numpy()
        np.testing.assert_allclose(_ours(theirs.to_dict(), name), buffer, rtol=1e-6)


def test_jamba_period_and_offset() -> None:
    theirs = transformers.JambaConfig(
        num_hidden_layers=16, attn_layer_period=4, attn_layer_offset=1
    )
    released = {
        "model_type": "jamba",
        "num_hidden_layers": 16,
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "attn_layer_period": 4,
        "attn_layer_offset": 1,
    }
    kinds = normalize_config(released).layer_kinds
    expected = ["nope" if t == "full_attention" else "state_space" for t in theirs.layer_types]
    assert list(kinds) == expected
    assert kinds.index("nope") == 1
