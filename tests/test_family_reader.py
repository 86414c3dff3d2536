"""The table-driven config reader against transformers 5.23 (issue 38).

Each case builds the config (or the tiny model's rotary module) with transformers and compares
its rotary buffers, or which layers call the rotary function, with what
:func:`ropelab.config_fields.normalize_config` reads from the same ``config.json``:

* Gemma 3 4B's released ``text_config`` (no ``head_dim``, no ``num_attention_heads``:
  Gemma3TextConfig's 256 and 8);
* ``rotary_dim`` (MiniMax-M2), NTK-alpha (HunYuan), a per-layer base of 0 (Granite SWA),
  the sliding layers' base under its own key (Gemma 3), an MLA head with no rotated part;
* hybrid stacks: state-space (Jamba, Bamba), linear attention (Qwen3-Next) and a family
  whose attention has no RoPE reported as such, with no base invented.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from ropelab import describe_config, frequencies_from_config
from ropelab.config_fields import normalize_config
from ropelab.decoder import decode_config

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
transformers.logging.set_verbosity_error()

#: google/gemma-3-4b-it's config.json, text_config as released (its rope fields and sizes).
GEMMA3_4B_TEXT = {
    "hidden_size": 2560,
    "intermediate_size": 10240,
    "model_type": "gemma3_text",
    "num_hidden_layers": 34,
    "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
    "sliding_window": 1024,
}


def _buffers(module) -> dict[str, np.ndarray]:
    out = {}
    for name, buffer in module.named_buffers(recurse=False):
        if name.endswith("inv_freq") and "original" not in name:
            out[name[: -len("inv_freq")].rstrip("_") or "all"] = buffer.double().numpy()
    return out


def _close(ours, theirs) -> None:
    np.testing.assert_allclose(np.asarray(ours), theirs, rtol=1e-6)


def test_gemma3_4b_text_config_decodes_as_transformers_reads_it() -> None:
    from transformers.models.gemma3.modeling_gemma3 import Gemma3RotaryEmbedding

    theirs = transformers.Gemma3TextConfig(**copy.deepcopy(GEMMA3_4B_TEXT))
    assert (theirs.head_dim, theirs.num_attention_heads) == (256, 8)
    fields = normalize_config({"model_type": "gemma3", "text_config": GEMMA3_4B_TEXT})
    assert (fields.head_dim, fields.num_heads, fields.num_kv_heads) == (256, 8, 4)
    hf = _buffers(Gemma3RotaryEmbedding(theirs))
    assert set(hf) == {e.layer_type for e in fields.layers}
    for entry in fields.layers:
        _close(frequencies_from_config(entry.config)[0], hf[entry.layer_type])
        assert entry.layers == tuple(
            i for i, t in enumerate(theirs.layer_types) if t == entry.layer_type
        )
    text = str(describe_config({"model_type": "gemma3", "text_config": GEMMA3_4B_TEXT}))
    assert "full_attention, 5 layers: linear, base 1,000,000, factor 8" in text


def test_rotary_dim_rotates_that_many_dims() -> None:
    from transformers.models.minimax_m2.modeling_minimax_m2 import MiniMaxM2RotaryEmbedding

    raw = {"model_type": "minimax_m2", "head_dim": 128, "rotary_dim": 64, "rope_theta": 5e6}
    raw |= {"hidden_size": 256, "num_attention_heads": 2, "num_hidden_layers": 2}
    hf = _buffers(MiniMaxM2RotaryEmbedding(transformers.MiniMaxM2Config(**copy.deepcopy(raw))))
    inv, _ = frequencies_from_config(normalize_config(raw).layer().config)
    assert len(inv) == 32
    _close(inv, hf["all"])


def test_ntk_alpha_is_a_fixed_base() -> None:
    from transformers.models.hunyuan_v1_dense.modeling_hunyuan_v1_dense import (
        HunYuanDenseV1RotaryEmbedding,
    )

    raw = {"model_type": "hunyuan_v1_dense", "head_dim": 128, "hidden_size": 256}
    raw |= {"num_attention_heads": 2, "num_hidden_layers": 2, "rope_theta": 10000.0}
    raw["rope_scaling"] = {"type": "dynamic", "alpha": 1000.0, "factor": 1.0}
    config = transformers.HunYuanDenseV1Config(**copy.deepcopy(raw))
    hf = _buffers(HunYuanDenseV1RotaryEmbedding(config))
    fields = normalize_config(raw)
    flat = fields.layer().rope_parameters
    assert flat["rope_type"] == "default"  # static: no length-dependent dynamic NTK
    assert flat["rope_theta"] == pytest.approx(10000.0 * 1000.0 ** (128 / 126))
    _close(frequencies_from_config(fields.layer().config)[0], hf["all"])


def test_layer_base_zero_marks_nope_and_bases_group_layers() -> None:
    raw = {"model_type": "granite_swa", "hidden_size": 64, "num_attention_heads": 2}
    raw |= {"num_hidden_layers": 4, "num_key_value_heads": 2, "intermediate_size": 64}
    raw |= {"vocab_size": 32, "layer_rope_theta": [10000.0, 0, 50000.0, 0]}
    config = transformers.GraniteSWAConfig(**copy.deepcopy(raw))
    model = transformers.AutoModel.from_config(config)
    bases = {
        float(e.config.rope_parameters["rope_theta"]): _buffers(e)["all"] for e in model.rotary_embs
    }
    fields = normalize_config(raw)
    assert fields.nope_layers == (1, 3)
    assert fields.layer_kinds == ("rope", "nope", "rope", "nope")
    assert {e.layer_type: e.layers for e in fields.layers} == {
        "rope_theta 10000": (0,),
        "rope_theta 50000": (2,),
    }
    for entry in fields.layers:
        _close(frequencies_from_config(entry.config)[0], bases[entry.rope_parameters["rope_theta"]])
    # which layers call RoPE in transformers: those given position embeddings
    calls = _rope_calls(model, config)
    assert calls == [i for i, k in enumerate(fields.layer_kinds) if k == "rope"]


def _rope_calls(model, config) -> list[int]:
    """The decoder layers whose attention calls the modeling module's apply_rotary_pos_emb."""
    import importlib

    module = importlib.import_module(type(model).__module__)
    original = module.apply_rotary_pos_emb
    called: list[int] = []
    current: list[int] = []

    def counting(*args, **kwargs):
        called.extend(current)
        return original(*args, **kwargs)

    def enter(i: int):
        return lambda *_: current.__setitem__(slice(None), [i])

    hooks = [layer.register_forward_pre_hook(enter(i)) for i, layer in enumerate(model.layers)]
    hooks += [layer.register_forward_hook(lambda *_: current.clear()) for layer in model.layers]
    module.apply_rotary_pos_emb = counting
    try:
        with torch.no_grad():
            model(input_ids=torch.tensor([[1, 2, 3, 4]]))
    finally:
        module.apply_rotary_pos_emb = original
        for hook in hooks:
            hook.remove()
    return sorted(set(called))


def test_sliding_base_under_its_own_key() -> None:
    raw = {"model_type": "gemma3_text", "head_dim": 64, "num_hidden_layers": 6}
    raw |= {"rope_theta": 1e6, "rope_local_base_freq": 2e4, "sliding_window_pattern": 3}
    fields = normalize_config(raw)
    sliding = fields.layer("sliding_attention")
    assert sliding.rope_parameters["rope_theta"] == 2e4
    theirs = transformers.Gemma3TextConfig(**copy.deepcopy(raw))
    assert theirs.rope_parameters["sliding_attention"]["rope_theta"] == 2e4
    assert sliding.layers == tuple(
        i for i, t in enumerate(theirs.layer_types) if t == "sliding_attention"
    )
    assert sliding.layers == (0, 1, 3, 4)


def test_mla_with_no_rotated_part_uses_no_positions() -> None:
    raw = {"model_type": "deepseek_v3", "num_hidden_layers": 3, "num_attention_heads": 4}
    raw |= {"qk_rope_head_dim": 0, "qk_nope_head_dim": 64, "rope_theta": 10000.0}
    fields = normalize_config(raw)
    assert fields.layers == () and fields.nope_layers == (0, 1, 2)
    assert "qk_rope_head_dim 0" in fields.nope_reasons[0]
    text = str(describe_config(raw))
    assert "base" not in text and "3 attention without RoPE: 0-2" in text


@pytest.mark.parametrize(
    ("model_type", "size"),
    [
        ("jamba", {"attn_layer_period": 2, "attn_layer_offset": 1}),
        ("bamba", {"attn_layer_indices": [1, 3]}),
    ],
)
def test_state_space_stacks_are_reported_as_such(model_type, size) -> None:
    config = transformers.AutoConfig.for_model(model_type, num_hidden_layers=4, **size)
    theirs = list(config.layer_types)
    raw = config.to_dict() | {"layer_types": theirs}  # transformers 5's spelling
    fields = normalize_config(raw)
    kinds = fields.layer_kinds
    assert [k == "state_space" for k in kinds] == [t != "full_attention" for t in theirs]
    record = decode_config(raw)
    assert {e["kind"] for e in record["layer_map"]} >= {"state_space"}
    if model_type == "jamba":  # JambaAttention has no rotary embedding: no base is invented
        assert record["layers"] == [] and "base" not in record["report"]
        assert set(kinds) == {"state_space", "nope"}


def test_linear_attention_stack_map_in_report_and_json() -> None:
    raw = {"model_type": "qwen3_next", "head_dim": 64, "num_hidden_layers": 8}
    raw |= {"num_attention_heads": 2, "rope_theta": 1e7}
    record = decode_config(raw)
    assert [(e["kind"], e["layers"]) for e in record["layer_map"]] == [
        ("linear_attention", [0, 1, 2, 4, 5, 6]),
        ("rope", [3, 7]),
    ]
    assert "layer map (8 layers):" in record["report"]
    assert "6 linear attention: 0-2, 4-6" in record["report"]
