"""What the pinned transformers does with RoPE (``ropelab.hf_behaviour``, issue 22).

Each test pins one behaviour of transformers 5.23 that chapter 8, chapter 3A or the cheat sheet
states, against values computed here independently (float64 formulas, our own small versions
of the rules); a future version that changes the behaviour fails here first.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from ropelab import hf_behaviour as hb  # noqa: E402
from ropelab.configs import load_config  # noqa: E402

FLOAT32_AGREE = 1e-4  # float32 logits of order 10 that agree up to rounding


def test_the_pinned_versions():
    assert transformers.__version__ == "5.23.0"
    assert torch.__version__.split("+")[0] == "2.13.0"


# --- 1. bfloat16 buffers ---------------------------------------------------------------------


def bf16(x: np.ndarray) -> np.ndarray:
    """Round to bfloat16 (8 significant bits, ties to even) by hand, from float32."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return rounded.astype(np.uint32).view(np.float32).astype(np.float64)


def test_model_to_bfloat16_casts_inv_freq_and_ruins_the_angles():
    positions = [100, 1000, 4096]
    cast = hb.cast_cos_errors(positions, base=500000.0, head_dim=128, how="to")
    assert cast.inv_freq_dtype == "bfloat16"
    # Independent: frequencies float32 -> bfloat16, angles in float32, cos rounded to bfloat16.
    theta = 500000.0 ** (-np.arange(0, 128, 2) / 128)
    rounded = bf16(theta.astype(np.float32))
    for m, got in zip(positions, cast.cos_error, strict=True):
        angle = (np.float32(m) * rounded.astype(np.float32)).astype(np.float64)
        expected = np.abs(bf16(np.cos(angle).astype(np.float32)) - np.cos(m * theta)).max()
        assert got == pytest.approx(expected, abs=0.01)
    assert cast.cos_error[0] > 0.05 and cast.cos_error[1] > 1.4 and cast.cos_error[2] > 1.9


@pytest.mark.parametrize("how", ["dtype", "fixed"])
def test_loading_in_bfloat16_or_restoring_keeps_float32_frequencies(how):
    result = hb.cast_cos_errors([100, 1000, 4096], how=how)
    assert result.inv_freq_dtype == "float32"
    assert result.cos_error.max() <= 2.0**-8  # the cos table's own bfloat16 rounding


# --- 2. packed rows --------------------------------------------------------------------------


def test_reset_position_ids_are_document_boundaries_without_mask_and_cache():
    """Which rows transformers reads as documents; what each attention implementation then
    computes is pinned in tests/test_hf_pins.py (eager and sdpa)."""
    assert hb.packed_sequence_indices([0, 1, 2, 0, 1, 0]) == [0, 0, 0, 1, 1, 2]
    assert hb.packed_sequence_indices([0, 1, 2, 3, 4, 5]) is None


def test_forward_numbers_tokens_in_order_and_generate_reads_the_mask():
    ids = [[0, 0, 5, 6, 7], [1, 2, 3, 4, 5]]
    mask = [[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]]
    assert hb.position_ids_seen(ids, mask, generate=False) == [[[0, 1, 2, 3, 4]]]
    seen = hb.position_ids_seen(ids, mask, generate=True, new_tokens=2)
    expected_first = np.maximum(np.cumsum(mask, axis=1) - 1, 0).tolist()
    assert seen == [expected_first, [[3], [5]]]


# --- 5. the batch decides --------------------------------------------------------------------

DYNAMIC = {"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 4.0}
LONGROPE = {
    "rope_type": "longrope",
    "rope_theta": 10000.0,
    "short_factor": [1.0, 1.0, 1.0, 1.0],
    "long_factor": [1.0, 2.0, 4.0, 8.0],
    "original_max_position_embeddings": 16,
}
PLAIN = {"rope_type": "default", "rope_theta": 10000.0}
YARN = {
    "rope_type": "yarn",
    "rope_theta": 10000.0,
    "factor": 4.0,
    "original_max_position_embeddings": 16,
}


@pytest.mark.parametrize(
    ("params", "max_pos", "moves"),
    [(PLAIN, 16, False), (YARN, 64, False), (DYNAMIC, 16, True), (LONGROPE, 64, True)],
    ids=["default", "yarn", "dynamic", "longrope"],
)
def test_a_short_prompt_depends_on_its_neighbour(params, max_pos, moves):
    gap = hb.batch_neighbour_gap(params, max_pos, short=6, long=40)
    assert (gap > 0.1) if moves else (gap < FLOAT32_AGREE)


@pytest.mark.parametrize(
    ("params", "max_pos", "breaks"),
    [(PLAIN, 16, False), (YARN, 64, False), (DYNAMIC, 16, True), (LONGROPE, 64, True)],
    ids=["default", "yarn", "dynamic", "longrope"],
)
def test_kv_cache_breaks_past_the_switch(params, max_pos, breaks):
    gaps = hb.cache_gaps(params, max_pos, prompt=6, total=40)
    lengths = np.arange(6, 41)
    assert gaps[lengths <= 16].max() < FLOAT32_AGREE
    if breaks:
        assert gaps[lengths == 17][0] > 0.1 and gaps[lengths > 16].min() > 0.01
    else:
        assert gaps.max() < FLOAT32_AGREE


# --- 3. layouts by family --------------------------------------------------------------------


def test_each_family_rotates_its_own_pairs():
    expected = {
        "llama": "half-split",
        "qwen2": "half-split",
        "gemma3": "half-split",
        "gpt_neox": "half-split",
        "gptj": "interleaved",
        "cohere": "interleaved",
        "glm": "interleaved",
        "deepseek_v2": "interleaved",
        "deepseek_v3": "interleaved",
        "deepseek_v3, rope_interleave=False": "half-split",
        "llama4": "interleaved",
    }
    pairings = hb.family_pairings(8)
    assert list(pairings) == list(hb.FAMILIES)
    assert {f: hb.layout_of(p, 8) for f, p in pairings.items()} == expected
    assert transformers.DeepseekV3Config().rope_interleave is True


def test_layout_of():
    assert hb.layout_of([(0, 1), (2, 3)], 4) == "interleaved"
    assert hb.layout_of([(0, 2), (1, 3)], 4) == "half-split"
    assert hb.layout_of([(0, 3), (1, 2)], 4) == "other"


# --- 6. config keys ---------------------------------------------------------------------------


def test_yarn_requires_factor_and_defaults_the_original_length():
    found = hb.yarn_config_errors(32768)
    assert found["factor and original given"] == "accepted: original 8192, factor 4.0"
    assert found["original missing"] == "accepted: original 32768, factor 4.0"
    assert found["factor missing"].startswith("KeyError") and "factor" in found["factor missing"]
    assert found["original null"].startswith("StrictDataclassClassValidationError")
    assert "NoneType" in found["original null"]
    assert "factor null (warning)" in found


def test_qwen_original_length_mixup_logs_a_warning():
    qwen = load_config("qwen2.5-7b-instruct-yarn")
    qwen.pop("_source")

    def make(original):
        config = dict(qwen, rope_scaling=dict(qwen["rope_scaling"]))
        config["rope_scaling"]["original_max_position_embeddings"] = original
        return lambda: transformers.Qwen2Config(**config)

    card, card_log = hb.logged_warnings(make(32768))
    wrong, wrong_log = hb.logged_warnings(make(131072))
    assert card_log == []
    assert len(wrong_log) == 1 and "implicit factor" in wrong_log[0]
    # 5.23 uses the explicit factor 4 in both; before transformers#40320 (the fix of #38224)
    # a given original length replaced the factor by max_position_embeddings / original.
    assert card.rope_parameters["factor"] == 4.0 and wrong.rope_parameters["factor"] == 4.0
    old_rule = (
        qwen["max_position_embeddings"] / qwen["rope_scaling"]["original_max_position_embeddings"]
    )
    assert old_rule == 1.0  # the card's block: no YaRN at all under the old rule


def deepseek_reference_softmax_factor(max_seq_len, original_seq_len, factor, mscale):
    """Our own version of DeepSeek-V3's reference rule (inference/model.py, MLA): the softmax
    scale gains (0.1 * mscale * ln factor + 1)^2 only when the configured length exceeds the
    original one."""
    if max_seq_len <= original_seq_len:
        return 1.0
    return (0.1 * mscale * math.log(factor) + 1.0) ** 2


def test_deepseek_softmax_factor_transformers_always_reference_only_when_longer():
    m2 = (0.1 * math.log(40) + 1) ** 2
    for length in (163840, 4096):
        assert hb.deepseek_softmax_factor(length) == pytest.approx(m2, rel=1e-12)
    assert deepseek_reference_softmax_factor(163840, 4096, 40, 1.0) == pytest.approx(m2)
    assert deepseek_reference_softmax_factor(4096, 4096, 40, 1.0) == 1.0


# --- 8. what a layout conversion has to permute -------------------------------------------


def test_qk_parameters_that_a_conversion_permutes():
    assert hb.qk_parameters("llama") == {"q_proj.weight": (32, 32), "k_proj.weight": (16, 32)}
    assert hb.qk_parameters("qwen2")["q_proj.bias"] == (32,)
    assert hb.qk_parameters("qwen2")["k_proj.bias"] == (16,)
    for family in ("qwen3", "gemma3"):  # one weight per head coordinate, shared by heads
        shapes = hb.qk_parameters(family)
        assert shapes["q_norm.weight"] == (8,) and shapes["k_norm.weight"] == (8,)
    olmo = hb.qk_parameters("olmo2")  # over the whole projection
    assert olmo["q_norm.weight"] == (32,) and olmo["k_norm.weight"] == (16,)


# --- bad input ------------------------------------------------------------------------------


def test_bad_input_raises_value_error():
    with pytest.raises(ValueError, match="how"):
        hb.cast_cos_errors([1], how="cast")
    with pytest.raises(ValueError, match="positions"):
        hb.cast_cos_errors([-1])
    with pytest.raises(ValueError, match="family"):
        hb.qk_parameters("gpt2")
    with pytest.raises(ValueError, match="prompt"):
        hb.cache_gaps(PLAIN, 16, prompt=50, total=40)


# --- 10. the cheat sheet's key map and required keys --------------------------------------


def test_required_keys_per_rope_type():
    from ropelab import extension

    found = {}
    for method in extension.METHODS:
        config, _ = extension.method_config(method, 128, 10000.0, 4096, 16384)
        found[method] = hb.required_keys(config["rope_parameters"], 16384)
    assert found == {
        "PI": ["factor"],
        "NTK-aware": [],
        "dynamic NTK": ["factor"],
        "YaRN": ["factor"],
        "Llama 3": ["factor", "low_freq_factor", "high_freq_factor"],
        "LongRoPE": ["short_factor", "long_factor"],
    }


def test_config_key_map():
    rows = hb.config_key_map()
    m = 0.1 * math.log(40) + 1
    assert rows["rotary_pct"].endswith(f"{96 // 4} coordinates rotate")
    assert rows["partial_rotary_factor"].endswith(f"{128 // 2} coordinates rotate")
    assert rows["qk_rope_head_dim"].endswith("64 coordinates rotate")
    assert "rope_theta 500000" in rows["rope_scaling"] and "factor 2" in rows["rope_scaling"]
    assert rows["mscale / mscale_all_dim"].startswith(f"cos/sin factor {m:.4f}")
    assert "1.0000 with both 0.707" in rows["mscale / mscale_all_dim"]
    assert rows["attention_factor"].startswith("given 1.0: cos/sin factor 1.0000")
    planes = int(rows["truncate"].split("; ")[1].split()[0])
    assert 0 < planes < 64


def test_chapter_3a_case_base_10000_head_64():
    """Chapter 3A's precision table (base 10,000, heads of 64): after the cast the cos error
    is 0.43 at position 1,000 and about 2 at 16,383, for the same reason."""
    cast = hb.cast_cos_errors([1, 1000, 16383], base=10000.0, head_dim=64, how="to")
    assert cast.inv_freq_dtype == "bfloat16"
    assert cast.cos_error[0] < 0.01
    assert cast.cos_error[1] == pytest.approx(0.43, abs=0.02)
    assert cast.cos_error[2] > 1.9


# --- engines that cannot run here: ropelab against our own small versions --------------------


def meta_rotate(x: np.ndarray, m: float, base: float = 10000.0) -> np.ndarray:
    """Our own version of Meta's reference rotation (meta-llama/llama, llama/model.py,
    apply_rotary_emb; the same form in DeepSeek's and Llama 4's reference code): adjacent
    coordinates read as one complex number each, multiplied by exp(i m theta_i)."""
    d = x.shape[-1]
    theta = base ** (-np.arange(0, d, 2) / d)
    z = (x[0::2] + 1j * x[1::2]) * np.exp(1j * m * theta)
    out = np.empty(d)
    out[0::2], out[1::2] = z.real, z.imag
    return out


def neox_rotate(x: np.ndarray, m: float, base: float = 10000.0) -> np.ndarray:
    """Our own version of the half-split rule (vLLM with is_neox_style true, llama.cpp's NEOX
    rope type): coordinate i turns with coordinate i + d/2."""
    d = x.shape[-1]
    theta = base ** (-np.arange(0, d, 2) / d)
    a, b = x[: d // 2], x[d // 2 :]
    c, s = np.cos(m * theta), np.sin(m * theta)
    return np.concatenate([a * c - b * s, a * s + b * c])


def test_ropelab_layouts_match_the_engines_rules():
    import ropelab

    x = np.random.default_rng(0).standard_normal(64)
    for m in (1.0, 37.0, 4095.0):
        interleaved = ropelab.apply_rope(x, m, layout="interleaved")
        half = ropelab.apply_rope(x, m, layout="half")
        assert np.abs(interleaved - meta_rotate(x, m)).max() < 1e-12  # NORM, Meta, complex
        assert np.abs(half - neox_rotate(x, m)).max() < 1e-12  # NEOX, is_neox_style


def test_dynamic_ntk_once_for_the_longest_length_as_vllm_does():
    """vLLM (vllm/model_executor/layers/rotary_embedding.py, commit 5570cce) builds one
    dynamic-NTK table for max_position_embeddings * factor tokens, with the base of that
    length: beta * (s * s - (s - 1)) ** (d / (d - 2)). ropelab's rule at that length and
    transformers' dynamic init at that length give the same frequencies."""
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    from ropelab import kv_cache

    d, base, s, original = 64, 10000.0, 4.0, 2048
    vllm_base = base * (s * s - (s - 1)) ** (d / (d - 2))
    expected = vllm_base ** (-np.arange(0, d, 2) / d)
    ours, _ = kv_cache.dynamic_ntk_frequencies(d, base, s, original)(int(s * original))
    assert np.abs(ours - expected).max() < 1e-15
    config = LlamaConfig(
        hidden_size=2 * d,
        num_attention_heads=2,
        max_position_embeddings=original,
        rope_parameters={"rope_type": "dynamic", "rope_theta": base, "factor": s},
    )
    hf, _ = ROPE_INIT_FUNCTIONS["dynamic"](config, "cpu", seq_len=int(s * original))
    assert np.abs(hf.double().numpy() - expected).max() < 1e-6 * expected.max()
