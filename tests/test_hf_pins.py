"""Pins for the statements about transformers 5.23 that chapters 3A and 8 and the cheat sheet
make and ``tests/test_hf_behaviour.py`` did not yet cover.

Each test builds a tiny model or config in code (seeded, nothing downloaded) and checks the
library's values against a formula or a recomputation written here. Each was seen to fail
with the behaviour changed on purpose: ``inv_freq`` registered persistent; cos/sin returned
in float32; ``.half()``/``.bfloat16()`` leaving ``inv_freq`` alone; ``inv_freq`` made in the
default dtype (so ``from_pretrained(dtype=...)`` rounds it); the old one-rope-type restore;
the ``"mrope"`` rename removed; a linear factor below 1 clamped, or its warning removed;
dynamic NTK reading the original-length key; Phi-3 falling back to
``max_position_embeddings``; Phi-3's cache reset removed (and given to a Llama);
``find_packed_sequence_indices`` finding nothing; GLM given Llama's ``rotate_half``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before transformers reads it
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from ropelab import hf_behaviour as hb  # noqa: E402

FLOAT32_AGREE = 1e-4  # float32 logits of order 10 that agree up to rounding


def theta(head_dim: int, base: float) -> np.ndarray:
    """theta_i = base^(-2i/d) in float64: the frequencies, independently of transformers."""
    return base ** (-np.arange(0, head_dim, 2) / head_dim)


def float32_theta(head_dim: int, base: float) -> np.ndarray:
    """transformers' formula, 1 / base ** (arange(0, d, 2) / d), evaluated in float32 with
    numpy (the exponent rounded to float32 first, as torch.arange(..., dtype=float) does)."""
    exponent = (np.arange(0, head_dim, 2, dtype=np.float32) / np.float32(head_dim)).astype(
        np.float32
    )
    return (np.float32(1.0) / np.power(np.float32(base), exponent)).astype(np.float32)


def bf16(x: np.ndarray) -> np.ndarray:
    """Round float32 values to bfloat16 by hand (8 significant bits, ties to even)."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return rounded.astype(np.uint32).view(np.float32)


# --- the inv_freq buffer ------------------------------------------------------------------


def test_inv_freq_is_a_non_persistent_buffer(tmp_path):
    model = hb.tiny_llama()
    rotary = model.model.rotary_emb
    buffers = dict(rotary.named_buffers())
    assert set(buffers) == {"inv_freq", "original_inv_freq"}
    assert np.abs(buffers["inv_freq"].numpy() - theta(8, 10000.0)).max() < 1e-7
    assert not any(k.endswith("inv_freq") for k in model.state_dict())
    model.save_pretrained(tmp_path)
    from safetensors import safe_open

    with safe_open(str(tmp_path / "model.safetensors"), framework="pt") as saved:
        keys = list(saved.keys())
    assert "model.embed_tokens.weight" in keys
    assert not any("inv_freq" in k for k in keys)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float64"])
def test_cos_and_sin_follow_the_input_dtype(dtype):
    """Angles in float32 from the float32 buffer, then cos and sin rounded to x's dtype."""
    model = hb.tiny_llama()
    x = torch.zeros(1, 1, dtype=getattr(torch, dtype))
    positions = torch.tensor([[0, 1, 100, 4095]])
    cos, sin = model.model.rotary_emb(x, positions)
    assert cos.dtype == x.dtype and sin.dtype == x.dtype
    angle = (positions[0].numpy()[:, None].astype(np.float32) * float32_theta(8, 10000.0)).astype(
        np.float32
    )
    angle = np.concatenate([angle, angle], axis=1).astype(np.float64)
    # float32 cos of a float32 angle, then rounded once more to the output's dtype
    step = {"bfloat16": 2.0**-8, "float16": 2.0**-11, "float64": 2.0**-23}[dtype]
    assert np.abs(cos[0].double().numpy() - np.cos(angle)).max() <= step
    assert np.abs(sin[0].double().numpy() - np.sin(angle)).max() <= step


@pytest.mark.parametrize("cast", ["half", "bfloat16", "to"])
def test_half_and_bfloat16_cast_the_inv_freq_buffer(cast):
    model = hb.tiny_llama()
    before = model.model.rotary_emb.inv_freq.numpy().copy()
    if cast == "half":
        model.half()
        expected = before.astype(np.float16).astype(np.float32)
    elif cast == "bfloat16":
        model.bfloat16()
        expected = bf16(before)
    else:
        model.to(torch.bfloat16)
        expected = bf16(before)
    inv_freq = model.model.rotary_emb.inv_freq
    assert inv_freq.dtype == (torch.float16 if cast == "half" else torch.bfloat16)
    assert np.array_equal(inv_freq.float().numpy(), expected)
    assert not np.array_equal(expected, before)  # the rounding is real for base 10,000


def test_from_pretrained_with_a_dtype_keeps_inv_freq_in_float32(tmp_path):
    hb.tiny_llama().save_pretrained(tmp_path)
    with hb.quiet_transformers():
        loaded = transformers.AutoModelForCausalLM.from_pretrained(
            tmp_path, dtype=torch.bfloat16, local_files_only=True
        )
    assert loaded.model.embed_tokens.weight.dtype == torch.bfloat16
    inv_freq = loaded.model.rotary_emb.inv_freq
    assert inv_freq.dtype == torch.float32
    assert np.array_equal(inv_freq.numpy(), float32_theta(8, 10000.0))


# --- restoring after a cast -------------------------------------------------------------


@pytest.mark.parametrize("family", ["llama", "gemma3"])
def test_restore_brings_back_every_buffer_of_a_fresh_float32_model(family):
    make = {"llama": hb.tiny_llama, "gemma3": hb.tiny_gemma3}[family]
    fresh = {n: b for n, b in make().named_buffers() if n.endswith("inv_freq")}
    model = make().to(torch.bfloat16)
    assert all(dict(model.named_buffers())[n].dtype == torch.bfloat16 for n in fresh)
    restored = hb.restore_float32_inv_freq(model)
    assert sorted(restored) == sorted(fresh)
    after = dict(model.named_buffers())
    for name, buffer in fresh.items():
        assert after[name].dtype == torch.float32, name
        assert torch.equal(after[name], buffer), name
    if family == "gemma3":
        # one pair per layer type, each from its own base (10,000 local, 1,000,000 global)
        assert len(fresh) == 4
        for layer_type, base in (("sliding_attention", 1e4), ("full_attention", 1e6)):
            got = after[f"model.rotary_emb.{layer_type}_inv_freq"].numpy()
            assert np.array_equal(got, float32_theta(8, base))
    assert hb.restore_check(family) == {n: ("bfloat16", "float32", 0.0) for n in fresh}


def test_restore_raises_when_there_is_nothing_to_restore():
    with pytest.raises(ValueError, match="no rotary inverse-frequency buffer"):
        hb.restore_float32_inv_freq(torch.nn.Linear(2, 2))

    class Stray(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("inv_freq", torch.ones(2), persistent=False)

    holder = torch.nn.Sequential(hb.tiny_llama().to(torch.bfloat16), Stray())
    with pytest.raises(ValueError, match="no config and rope_type"):
        hb.restore_float32_inv_freq(holder)
    # raised before changing anything
    assert holder[0].model.rotary_emb.inv_freq.dtype == torch.bfloat16


# --- config readings --------------------------------------------------------------------


def test_mrope_is_read_as_plain_rope():
    from transformers import Qwen2VLTextConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding

    params = {"rope_type": "mrope", "rope_theta": 10000.0, "mrope_section": [1, 1, 2]}
    config, logged = hb.logged_warnings(
        lambda: Qwen2VLTextConfig(hidden_size=32, num_attention_heads=4, rope_parameters=params)
    )
    assert logged == []
    assert config.rope_parameters["rope_type"] == "default"
    assert config.rope_parameters["mrope_section"] == [1, 1, 2]
    rotary = Qwen2VLRotaryEmbedding(config)
    assert rotary.attention_scaling == 1.0
    assert np.array_equal(rotary.inv_freq.numpy(), float32_theta(8, 10000.0))


def test_a_linear_factor_below_one_is_warned_about_and_used():
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    params = {"rope_type": "linear", "rope_theta": 10000.0, "factor": 0.5}
    config, logged = hb.logged_warnings(
        lambda: LlamaConfig(hidden_size=32, num_attention_heads=4, rope_parameters=params)
    )
    assert len(logged) == 1 and "factor" in logged[0] and "0.5" in logged[0]
    inv_freq, scaling = ROPE_INIT_FUNCTIONS["linear"](config, "cpu")
    assert scaling == 1.0
    # theta_i / s with s = 0.5: every plane turns twice as fast, not half as fast
    assert np.abs(inv_freq.double().numpy() - theta(8, 10000.0) / 0.5).max() < 1e-6


def test_dynamic_ntk_reads_max_position_embeddings_not_an_original_key():
    first, logged = hb.dynamic_reference_length(max_position_embeddings=16, original=8)
    assert first == 17  # the base moves past max_position_embeddings, not past 8
    assert len(logged) == 1 and "original_max_position_embeddings" in logged[0]
    # independently: transformers' dynamic rule at length 20 with L_orig = 16
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    params = {"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 4.0}
    with hb.quiet_transformers():
        config = LlamaConfig(
            hidden_size=16,
            num_attention_heads=2,
            max_position_embeddings=16,
            rope_parameters={**params, "original_max_position_embeddings": 8},
        )
    got, _ = ROPE_INIT_FUNCTIONS["dynamic"](config, "cpu", seq_len=20)
    base = 10000.0 * (4.0 * 20 / 16 - (4.0 - 1)) ** (8 / (8 - 2))
    assert np.abs(got.double().numpy() - theta(8, base)).max() < 1e-6


def test_phi3_config_fills_the_original_length_with_4096():
    assert hb.phi3_original_lengths() == {
        "top level 8,192": 8192,
        "rope block only 8,192": 4096,
        "given nowhere": 4096,
    }
    # the other config classes fill in max_position_embeddings instead
    from transformers import LlamaConfig

    params = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0}
    with hb.quiet_transformers():
        llama = LlamaConfig(max_position_embeddings=131072, rope_parameters=params)
    assert llama.rope_parameters["original_max_position_embeddings"] == 131072


# --- LongRoPE under generate ----------------------------------------------------------------


def test_phi3_generate_keeps_longrope_exact():
    phi3 = hb.generate_cache_gaps("phi3")
    assert phi3.shape == (40 - 6,)
    assert phi3.max() < FLOAT32_AGREE  # every step equals the recomputation without a cache


def test_a_llama_with_longrope_breaks_its_cache_under_generate():
    lengths = np.arange(6, 40)
    llama = hb.generate_cache_gaps("llama")
    assert llama[lengths <= 16].max() < FLOAT32_AGREE
    assert llama[lengths == 17][0] > 0.5 and llama[lengths > 16].min() > 0.1


# --- packing under each attention implementation available on a CPU ------------------------


@pytest.mark.parametrize("attn_implementation", ["eager", "sdpa"])
def test_reset_ids_separate_documents_under_each_attention(attn_implementation):
    model = hb.tiny_llama(attn_implementation=attn_implementation)
    assert model.config._attn_implementation == attn_implementation
    gaps = hb.packed_row_gaps(attn_implementation=attn_implementation)
    for label in ("reset ids, no mask, no cache", "running ids, 4D document mask"):
        assert gaps[label].max() < FLOAT32_AGREE, label
    for label in (
        "reset ids, no mask, use_cache=True",
        "reset ids, 2D mask of ones",
        "running ids, no mask",
    ):
        assert gaps[label][0] < FLOAT32_AGREE and gaps[label][1:].min() > 0.5, label


# --- layouts: what rotate_half means --------------------------------------------------------


def test_rotate_half_is_half_split_in_llama_and_adjacent_in_cohere_and_glm():
    x = np.arange(1, 9)
    halves = np.concatenate([-x[4:], x[:4]])
    pairs = np.stack([-x[1::2], x[0::2]], axis=1).reshape(-1)
    assert hb.rotate_half_outputs(8) == {
        "llama": halves.tolist(),
        "cohere": pairs.tolist(),
        "glm": pairs.tolist(),
    }
