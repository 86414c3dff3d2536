"""ropelab.rope_config: scaled RoPE frequencies from a config, checked against transformers.

Three kinds of test:

* Against transformers 5: for every rope type in ``ROPE_INIT_FUNCTIONS`` that we support
  (and for ``default``, computed by the model classes), over grids of head sizes, bases,
  factors and sequence lengths, in both config styles.
* Independent formula checks that do not touch transformers.
* Every bad input raises a ValueError that names the offending key.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import torch
import transformers
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import GPTNeoXConfig, LlamaConfig, Phi3Config
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

from ropelab.core import inv_freq
from ropelab.rope_config import (
    ROPE_TYPES,
    RopeSpec,
    dynamic_ntk_base,
    frequencies_by_layer_type,
    frequencies_from_config,
    llama3_bands,
    longrope_attention_factor,
    rope_spec_from_config,
    yarn_attention_factor,
    yarn_correction_range,
    yarn_ramp,
)

# Tolerance. transformers computes in float32 (unit roundoff u = 2^-24 ≈ 6e-8), we in float64.
# * It rounds the exponent x = 2i/d to float32 (exact when d is a power of two) and raises the
#   base to it: an exponent error δ ≤ x·u becomes a relative error ln(β)·δ in β^(-x). With
#   the largest effective bases here (β' ≲ 1e10 after dynamic NTK growth, ln β' ≲ 23) that is
#   ≲ 1.4e-6, plus a few u for the pow, the reciprocal and the float32 storage: RTOL = 2e-6.
# * YaRN forms its ramp weight w in float32 (error ~u) and blends θ(1 - w) + (θ/s)·w; Llama 3
#   does the same with its smooth factor in the medium band. Where the result is near θ/s, an
#   error u in the weight is a relative error of up to s·u. Hence
#   blend_rtol(s) = RTOL + 2·s·u (1.9e-6 was observed for YaRN at s = 32 with truncate=False,
#   2.09e-6 for Llama 3 at s = 6, head dim 78, base e^14.125).
# A real formula difference (a wrong plane, factor or band) is orders of magnitude larger.
U32 = 2.0**-24
RTOL = 2e-6


def blend_rtol(factor: float) -> float:
    return RTOL + 2 * factor * U32


# attention factors are Python floats (float64 math) on both sides.
ATTENTION_RTOL = 1e-12

HEADS = (32, 64, 128)
BASES = (10000.0, 500000.0, 1e6)
FACTORS = (2.0, 4.0, 8.0, 16.0, 32.0)
MAX_POS = 4096


@pytest.fixture(autouse=True, scope="module")
def _quiet_transformers() -> Iterator[None]:
    """transformers logs warnings for some legitimate configs (e.g. yarn factor mismatch)."""
    level = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()
    yield
    transformers.logging.set_verbosity(level)


def reference(fn: Callable[..., Any], config: Any, **kwargs: Any) -> tuple[np.ndarray, float]:
    inv, attention = fn(config, **kwargs)
    assert inv.dtype == torch.float32
    return inv.double().numpy(), float(attention)


def assert_same(
    ours: tuple[np.ndarray, float], theirs: tuple[np.ndarray, float], rtol: float = RTOL
) -> None:
    inv, attention = ours
    assert isinstance(inv, np.ndarray) and inv.dtype == np.float64
    assert type(attention) is float
    assert inv.shape == theirs[0].shape
    np.testing.assert_allclose(inv, theirs[0], rtol=rtol, atol=0)
    np.testing.assert_allclose(attention, theirs[1], rtol=ATTENTION_RTOL)


def check_against(
    raw: dict[str, Any],
    fn: Callable[..., Any],
    config_class: type = LlamaConfig,
    seq_lens: tuple[int | None, ...] = (None,),
    rtol: float = RTOL,
) -> None:
    """Compare ours (on the raw dict and on the transformers config) with ``fn``."""
    config = config_class(**copy.deepcopy(raw))
    for seq_len in seq_lens:
        kwargs = {} if seq_len is None else {"seq_len": seq_len}
        theirs = reference(fn, config, **kwargs)
        untouched = copy.deepcopy(raw)
        assert_same(frequencies_from_config(raw, seq_len), theirs, rtol)
        assert raw == untouched, "frequencies_from_config must not modify its config"
        assert_same(frequencies_from_config(config, seq_len), theirs, rtol)


def llama_raw(head: int, params: dict[str, Any], **top: Any) -> dict[str, Any]:
    return (
        {"head_dim": head, "hidden_size": 4 * head, "num_attention_heads": 4}
        | top
        | {"rope_parameters": params}
    )


# ---------------------------------------------------------------------------------------------
# Against transformers
# ---------------------------------------------------------------------------------------------


def test_every_transformers_rope_type_is_covered() -> None:
    # Every type transformers registers, "proportional" (Gemma 4's) included, is covered; a new
    # type in an upgrade should fail here.
    assert set(ROPE_TYPES) == {"default"} | set(ROPE_INIT_FUNCTIONS)


@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("head", HEADS)
def test_default_matches_llama(head: int, base: float) -> None:
    raw = llama_raw(head, {"rope_type": "default", "rope_theta": base})
    check_against(raw, LlamaRotaryEmbedding.compute_default_rope_parameters)


@pytest.mark.parametrize("partial", [0.25, 0.5, 0.75])
@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("head", HEADS)
def test_default_partial_rotary_matches_gpt_neox(head: int, base: float, partial: float) -> None:
    # Llama's default ignores partial_rotary_factor; GPT-NeoX's honours it.
    raw = {
        "hidden_size": 4 * head,
        "num_attention_heads": 4,
        "rope_parameters": {
            "rope_type": "default",
            "rope_theta": base,
            "partial_rotary_factor": partial,
        },
    }
    check_against(raw, GPTNeoXRotaryEmbedding.compute_default_rope_parameters, GPTNeoXConfig)
    assert frequencies_from_config(raw)[0].size == int(head * partial) // 2


def test_no_rope_keys_means_default_base_10000() -> None:
    raw = {"hidden_size": 256, "num_attention_heads": 4}
    check_against(raw, LlamaRotaryEmbedding.compute_default_rope_parameters)
    np.testing.assert_array_equal(frequencies_from_config(raw)[0], inv_freq(64, 10000.0))


@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("head", HEADS)
def test_linear_matches(head: int, base: float, factor: float) -> None:
    raw = llama_raw(head, {"rope_type": "linear", "rope_theta": base, "factor": factor})
    check_against(raw, ROPE_INIT_FUNCTIONS["linear"])


@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("head", HEADS)
def test_dynamic_matches_below_at_and_above_max_position(
    head: int, base: float, factor: float
) -> None:
    raw = llama_raw(
        head,
        {"rope_type": "dynamic", "rope_theta": base, "factor": factor},
        max_position_embeddings=MAX_POS,
    )
    seq_lens = (None, 0, 1, MAX_POS // 2, MAX_POS - 1, MAX_POS, MAX_POS + 1, 3 * MAX_POS + 7)
    check_against(raw, ROPE_INIT_FUNCTIONS["dynamic"], seq_lens=(*seq_lens, 8 * MAX_POS))


YARN_VARIANTS: dict[str, dict[str, Any]] = {
    "plain": {},
    "mscale": {"mscale": 0.707, "mscale_all_dim": 1.0},
    "mscale_equal": {"mscale": 1.0, "mscale_all_dim": 1.0},
    "mscale_only": {"mscale": 2.0},  # ignored without mscale_all_dim, as in transformers
    "attention_factor": {"attention_factor": 0.8},
    "no_truncate": {"truncate": False},
    "truncate_null": {"truncate": None},  # transformers tests it for truth: null = no truncation
    "betas": {"beta_fast": 16.0, "beta_slow": 2.0},
    "betas_zero": {"beta_fast": 0, "beta_slow": 0},  # `or` fallbacks: 0 means 32 / 1
    "no_original": {"original_max_position_embeddings": None},  # defaults to max_position
}


@pytest.mark.parametrize("variant", sorted(YARN_VARIANTS))
@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("head", HEADS)
def test_yarn_matches(head: int, base: float, factor: float, variant: str) -> None:
    params = {
        "rope_type": "yarn",
        "rope_theta": base,
        "factor": factor,
        "original_max_position_embeddings": MAX_POS,
    } | YARN_VARIANTS[variant]
    params = {k: v for k, v in params.items() if v is not None or k == "truncate"}
    raw = llama_raw(head, params, max_position_embeddings=int(factor * MAX_POS))
    check_against(raw, ROPE_INIT_FUNCTIONS["yarn"], rtol=blend_rtol(factor))


@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize("head", HEADS)
def test_yarn_null_factor_is_derived_from_lengths(head: int, factor: float) -> None:
    raw = llama_raw(
        head,
        {
            "rope_type": "yarn",
            "rope_theta": 1e6,
            "factor": None,
            "original_max_position_embeddings": MAX_POS,
        },
        max_position_embeddings=int(factor * MAX_POS),
    )
    check_against(raw, ROPE_INIT_FUNCTIONS["yarn"], rtol=blend_rtol(factor))
    assert rope_spec_from_config(raw).factor == factor


def test_yarn_top_level_original_length_wins() -> None:
    # transformers' standardize_rope_params copies a top-level original_max_position_embeddings
    # over the one in the rope dict (lazily, when the frequencies are computed).
    raw = llama_raw(
        64,
        {
            "rope_type": "yarn",
            "rope_theta": 1e6,
            "factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
        max_position_embeddings=16384,
        original_max_position_embeddings=2048,
    )
    check_against(raw, ROPE_INIT_FUNCTIONS["yarn"], rtol=blend_rtol(4.0))
    assert rope_spec_from_config(raw).original_max_position_embeddings == 2048


def longrope_raw(
    head: int,
    base: float,
    stretch: float,
    rng: np.random.Generator,
    partial: float = 1.0,
    **extra: Any,
) -> dict[str, Any]:
    """A Phi-3 style config: max_position_embeddings = stretch · original (4096)."""
    planes = int(head * partial) // 2
    short = np.sort(rng.uniform(1.0, 1.5, planes))
    long = np.sort(rng.uniform(1.0, 2 * stretch, planes))
    return {
        "hidden_size": 4 * head,
        "num_attention_heads": 4,
        "max_position_embeddings": int(stretch * MAX_POS),
        "original_max_position_embeddings": MAX_POS,
        "rope_parameters": {
            "rope_type": "longrope",
            "rope_theta": base,
            "short_factor": short.tolist(),
            "long_factor": long.tolist(),
            "partial_rotary_factor": partial,
        }
        | extra,
    }


LONGROPE_SEQ_LENS = (None, 0, 1, MAX_POS - 1, MAX_POS, MAX_POS + 1, 5 * MAX_POS)


@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("head", HEADS)
def test_longrope_matches_phi3(head: int, base: float, factor: float) -> None:
    rng = np.random.default_rng([head, int(base), int(factor)])
    raw = longrope_raw(head, base, factor, rng)
    check_against(raw, ROPE_INIT_FUNCTIONS["longrope"], Phi3Config, LONGROPE_SEQ_LENS)
    expected = math.sqrt(1 + math.log(factor) / math.log(MAX_POS))
    assert frequencies_from_config(raw)[1] == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize(
    "extra",
    [
        {"factor": 3.0},
        {"attention_factor": 1.25},
        {"factor": 2.0, "attention_factor": 0.9},
        # Phi-3's top-level original length (4096) wins over this one, as in transformers
        {"original_max_position_embeddings": 1024},
    ],
    ids=["factor", "attention_factor", "both", "dict_original_loses"],
)
@pytest.mark.parametrize("partial", [1.0, 0.75, 0.5])
def test_longrope_options_match_phi3(extra: dict[str, Any], partial: float) -> None:
    rng = np.random.default_rng(7)
    raw = longrope_raw(96, 10000.0, 8.0, rng, partial=partial, **extra)
    check_against(raw, ROPE_INIT_FUNCTIONS["longrope"], Phi3Config, LONGROPE_SEQ_LENS)


def test_longrope_on_llama_config_with_original_in_rope_dict() -> None:
    rng = np.random.default_rng(11)
    raw = longrope_raw(64, 500000.0, 16.0, rng)
    raw["rope_parameters"]["original_max_position_embeddings"] = raw.pop(
        "original_max_position_embeddings"
    )
    raw["head_dim"] = 64
    check_against(raw, ROPE_INIT_FUNCTIONS["longrope"], LlamaConfig, LONGROPE_SEQ_LENS)


@pytest.mark.parametrize("bands", [(1.0, 4.0), (2.0, 8.0), (0.5, 2.0)])
@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("head", HEADS)
def test_llama3_matches(head: int, base: float, factor: float, bands: tuple[float, float]) -> None:
    low, high = bands
    raw = llama_raw(
        head,
        {
            "rope_type": "llama3",
            "rope_theta": base,
            "factor": factor,
            "original_max_position_embeddings": 8192,
            "low_freq_factor": low,
            "high_freq_factor": high,
        },
        max_position_embeddings=int(factor * 8192),
    )
    check_against(raw, ROPE_INIT_FUNCTIONS["llama3"], rtol=blend_rtol(factor))


@pytest.mark.parametrize("partial", [0.5, 0.75])
@pytest.mark.parametrize("rope_type", ["linear", "dynamic", "yarn", "llama3"])
def test_partial_rotary_factor_in_scaled_types(rope_type: str, partial: float) -> None:
    params: dict[str, Any] = {
        "rope_type": rope_type,
        "rope_theta": 500000.0,
        "factor": 8.0,
        "partial_rotary_factor": partial,
    }
    if rope_type in ("yarn", "llama3"):
        params["original_max_position_embeddings"] = 4096
    if rope_type == "llama3":
        params |= {"low_freq_factor": 1.0, "high_freq_factor": 4.0}
    raw = llama_raw(128, params, max_position_embeddings=8 * 4096)
    rtol = blend_rtol(8.0) if rope_type in ("yarn", "llama3") else RTOL
    check_against(raw, ROPE_INIT_FUNCTIONS[rope_type], seq_lens=(None, 3 * 8 * 4096), rtol=rtol)
    assert frequencies_from_config(raw)[0].size == int(128 * partial) // 2


def legacy_params(rope_type: str) -> dict[str, Any]:
    return {
        "linear": {"factor": 4.0},
        "dynamic": {"factor": 4.0},
        "yarn": {"factor": 4.0, "original_max_position_embeddings": 2048, "beta_fast": 24},
        "llama3": {
            "factor": 4.0,
            "original_max_position_embeddings": 2048,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
        },
    }[rope_type]


@pytest.mark.parametrize("type_key", ["type", "rope_type"])
@pytest.mark.parametrize("rope_type", ["linear", "dynamic", "yarn", "llama3"])
def test_legacy_rope_theta_and_rope_scaling(rope_type: str, type_key: str) -> None:
    raw = {
        "head_dim": 64,
        "hidden_size": 256,
        "num_attention_heads": 4,
        "max_position_embeddings": 8192,
        "rope_theta": 500000.0,
        "rope_scaling": {type_key: rope_type} | legacy_params(rope_type),
    }
    rtol = blend_rtol(4.0) if rope_type in ("yarn", "llama3") else RTOL
    check_against(raw, ROPE_INIT_FUNCTIONS[rope_type], seq_lens=(None, 20000), rtol=rtol)
    new_style = {
        "head_dim": 64,
        "max_position_embeddings": 8192,
        "rope_parameters": {"rope_type": rope_type, "rope_theta": 500000.0}
        | legacy_params(rope_type),
    }
    for seq_len in (None, 20000):
        np.testing.assert_array_equal(
            frequencies_from_config(raw, seq_len)[0], frequencies_from_config(new_style, seq_len)[0]
        )


def test_legacy_longrope_rope_scaling_with_phi3() -> None:
    rng = np.random.default_rng(3)
    raw = longrope_raw(64, 10000.0, 4.0, rng)
    params = raw.pop("rope_parameters")
    raw["rope_theta"] = params.pop("rope_theta")
    params["type"] = params.pop("rope_type")
    raw["rope_scaling"] = params
    check_against(raw, ROPE_INIT_FUNCTIONS["longrope"], Phi3Config, LONGROPE_SEQ_LENS)


def test_precedence_rules() -> None:
    base = {"head_dim": 64, "max_position_embeddings": 4096}
    # rope_scaling (non-empty) wins over rope_parameters, as in convert_rope_params_to_dict
    spec = rope_spec_from_config(
        base
        | {
            "rope_scaling": {"type": "linear", "factor": 2.0},
            "rope_parameters": {"rope_type": "dynamic", "factor": 8.0},
        }
    )
    assert (spec.rope_type, spec.factor) == ("linear", 2.0)
    # rope_type wins over the legacy type
    spec = rope_spec_from_config(
        base | {"rope_scaling": {"type": "dynamic", "rope_type": "linear", "factor": 2.0}}
    )
    assert spec.rope_type == "linear"
    # the rope dict's rope_theta and partial_rotary_factor win over the top-level ones
    spec = rope_spec_from_config(
        base
        | {
            "rope_theta": 1e4,
            "partial_rotary_factor": 0.5,
            "rope_parameters": {"rope_theta": 1e6, "partial_rotary_factor": 0.25},
        }
    )
    assert (spec.rope_theta, spec.partial_rotary_factor, spec.rotary_dim) == (1e6, 0.25, 16)
    # head_dim falls back to hidden_size // num_attention_heads
    assert rope_spec_from_config({"hidden_size": 768, "num_attention_heads": 12}).head_dim == 64


def test_accepts_objects_with_to_dict_and_specs() -> None:
    class Config:
        def to_dict(self) -> dict[str, Any]:
            return {"head_dim": 32, "rope_parameters": {"rope_type": "linear", "factor": 2.0}}

    ours = frequencies_from_config(Config())
    np.testing.assert_allclose(ours[0], inv_freq(32, 10000.0) / 2, rtol=1e-15)
    spec = rope_spec_from_config(Config())
    assert frequencies_from_config(spec)[0].tobytes() == ours[0].tobytes()
    with pytest.raises(AttributeError):
        spec.factor = 3.0  # type: ignore[misc]


def test_seq_len_accepts_tensors_and_integral_floats() -> None:
    raw = llama_raw(
        64, {"rope_type": "dynamic", "factor": 4.0, "rope_theta": 1e4}, max_position_embeddings=512
    )
    expected = frequencies_from_config(raw, 2000)[0]
    for seq_len in (torch.tensor(2000), np.int64(2000), 2000.0, np.array(2000)):
        np.testing.assert_array_equal(frequencies_from_config(raw, seq_len)[0], expected)


dims = st.integers(min_value=2, max_value=80).map(lambda n: 2 * n)
log_bases = st.floats(min_value=math.log(100.0), max_value=math.log(1e7))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    rope_type=st.sampled_from(["linear", "dynamic", "yarn", "llama3"]),
    head=dims,
    log_base=log_bases,
    factor=st.floats(min_value=1.0, max_value=64.0),
    original=st.integers(min_value=256, max_value=16384),
    low=st.floats(min_value=0.25, max_value=4.0),
    gap=st.floats(min_value=0.25, max_value=8.0),
    betas=st.tuples(st.floats(4.0, 64.0), st.floats(0.25, 4.0)),
    truncate=st.booleans(),
    stretch=st.floats(min_value=0.0, max_value=8.0),
)
def test_random_configs_match_transformers(
    rope_type: str,
    head: int,
    log_base: float,
    factor: float,
    original: int,
    low: float,
    gap: float,
    betas: tuple[float, float],
    truncate: bool,
    stretch: float,
) -> None:
    max_pos = math.ceil(factor * original)
    params: dict[str, Any] = {"rope_type": rope_type, "rope_theta": math.exp(log_base)}
    params["factor"] = factor
    if rope_type in ("yarn", "llama3"):
        params["original_max_position_embeddings"] = original
    if rope_type == "yarn":
        params |= {"beta_fast": betas[0], "beta_slow": betas[1], "truncate": truncate}
    if rope_type == "llama3":
        params |= {"low_freq_factor": low, "high_freq_factor": low + gap}
    raw = llama_raw(head, params, max_position_embeddings=max_pos)
    seq_len = int(stretch * max_pos)
    rtol = blend_rtol(factor) if rope_type in ("yarn", "llama3") else RTOL
    check_against(raw, ROPE_INIT_FUNCTIONS[rope_type], seq_lens=(None, seq_len), rtol=rtol)


# ---------------------------------------------------------------------------------------------
# Independent formula checks
# ---------------------------------------------------------------------------------------------


def spec(rope_type: str, head: int = 64, base: float = 10000.0, **fields: Any) -> RopeSpec:
    return RopeSpec(rope_type=rope_type, head_dim=head, rope_theta=base, **fields)


@pytest.mark.parametrize("factor", [1.0, 2.5, 8.0])
def test_linear_is_default_over_factor(factor: float) -> None:
    theta, attention = frequencies_from_config(spec("linear", factor=factor))
    np.testing.assert_allclose(theta, inv_freq(64, 10000.0) / factor, rtol=1e-15)
    assert attention == 1.0


def test_dynamic_up_to_max_position_is_default() -> None:
    dynamic = spec("dynamic", factor=8.0, max_position_embeddings=2048)
    default = frequencies_from_config(spec("default"))
    for seq_len in (None, 0, 1, 1000, 2048):
        assert_same(frequencies_from_config(dynamic, seq_len), default)
        np.testing.assert_allclose(
            frequencies_from_config(dynamic, seq_len)[0], default[0], rtol=1e-15
        )
    longer = frequencies_from_config(dynamic, 2049)[0]
    assert np.all(longer[1:] < default[0][1:]) and longer[0] == 1.0


def test_dynamic_ntk_base_by_hand() -> None:
    # bracket 2·(2L)/L − 1 = 3, exponent 4/(4−2) = 2
    assert dynamic_ntk_base(10000.0, 4, 2.0, 2000, 1000) == pytest.approx(90000.0, rel=1e-15)
    assert dynamic_ntk_base(10000.0, 4, 2.0, 10, 1000) == 10000.0
    assert dynamic_ntk_base(10000.0, 4, 2.0, None, 1000) == 10000.0


@pytest.mark.parametrize("base", [10000.0, 500000.0])
@pytest.mark.parametrize("factor", [2.0, 8.0, 32.0])
def test_llama3_bands_are_kept_divided_and_blended(base: float, factor: float) -> None:
    original, low, high = 8192, 1.0, 4.0
    theta = inv_freq(128, base)
    wavelength = 2 * np.pi / theta
    ours = frequencies_from_config(
        spec(
            "llama3",
            128,
            base,
            factor=factor,
            original_max_position_embeddings=original,
            low_freq_factor=low,
            high_freq_factor=high,
        )
    )[0]
    labels = llama3_bands(128, base, original, low, high)
    high_band = wavelength < original / high
    low_band = wavelength > original / low
    assert high_band.any() and low_band.any()
    np.testing.assert_array_equal(labels == "high", high_band)
    np.testing.assert_array_equal(labels == "low", low_band)
    np.testing.assert_array_equal(ours[high_band], theta[high_band])
    np.testing.assert_allclose(ours[low_band], theta[low_band] / factor, rtol=1e-15)
    medium = labels == "medium"
    assert np.all(ours[medium] <= theta[medium]) and np.all(ours[medium] >= theta[medium] / factor)


@pytest.mark.parametrize("base", [10000.0, 1e6])
def test_yarn_with_factor_one_is_default(base: float) -> None:
    yarn = spec("yarn", 128, base, factor=1.0, original_max_position_embeddings=4096)
    theta, attention = frequencies_from_config(yarn)
    np.testing.assert_allclose(theta, inv_freq(128, base), rtol=1e-15)
    assert attention == 1.0


def test_yarn_keeps_fast_planes_and_interpolates_slow_ones() -> None:
    yarn = spec("yarn", 128, 10000.0, factor=16.0, original_max_position_embeddings=4096)
    theta = inv_freq(128, 10000.0)
    ours, attention = frequencies_from_config(yarn)
    weight = yarn_ramp(128, 10000.0, 4096)
    low, high = yarn_correction_range(128, 10000.0, 4096)
    assert 0 < low < high < 64 and low == int(low) and high == int(high)
    assert np.all(np.diff(weight) >= 0) and weight[0] == 0 and weight[-1] == 1
    kept, squeezed = weight == 0, weight == 1
    np.testing.assert_array_equal(ours[kept], theta[kept])
    np.testing.assert_allclose(ours[squeezed], theta[squeezed] / 16, rtol=1e-15)
    # a plane that turns more than beta_fast = 32 times over 4096 tokens is kept
    turns = 4096 * theta / (2 * np.pi)
    assert np.all(kept[turns > 32 * 1.2]) and np.all(squeezed[turns < 1 / 1.2])
    assert attention == pytest.approx(0.1 * math.log(16) + 1, rel=1e-15)


def test_yarn_attention_factor_cases() -> None:
    assert yarn_attention_factor(1.0) == 1.0
    assert yarn_attention_factor(0.5) == 1.0
    assert yarn_attention_factor(4.0) == pytest.approx(1 + 0.1 * math.log(4), rel=1e-15)
    assert yarn_attention_factor(40.0, 1.0, 1.0) == 1.0  # DeepSeek-V3's setting
    assert yarn_attention_factor(40.0, 2.0) == yarn_attention_factor(40.0)
    ratio = (1 + 0.07 * math.log(40)) / (1 + 0.1 * math.log(40))
    assert yarn_attention_factor(40.0, 0.7, 1.0) == pytest.approx(ratio, rel=1e-15)


def test_longrope_switches_factor_lists_at_original_length() -> None:
    short, long = [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]
    longrope = spec(
        "longrope",
        8,
        10000.0,
        factor=4.0,
        original_max_position_embeddings=1000,
        short_factor=short,
        long_factor=long,
    )
    theta = inv_freq(8, 10000.0)
    for seq_len, lists in ((None, short), (1000, short), (1001, long)):
        np.testing.assert_allclose(
            frequencies_from_config(longrope, seq_len)[0], theta / np.array(lists), rtol=1e-15
        )
    expected = math.sqrt(1 + math.log(4) / math.log(1000))
    assert frequencies_from_config(longrope)[1] == pytest.approx(expected, rel=1e-15)
    assert longrope_attention_factor(1.0, 1000) == 1.0


# ---------------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------------

GOOD_PARAMS: dict[str, dict[str, Any]] = {
    "default": {"rope_type": "default"},
    "linear": {"rope_type": "linear", "factor": 4.0},
    "dynamic": {"rope_type": "dynamic", "factor": 4.0},
    "yarn": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1024},
    "longrope": {
        "rope_type": "longrope",
        "short_factor": [1.0] * 32,
        "long_factor": [2.0] * 32,
        "original_max_position_embeddings": 1024,
    },
    "llama3": {
        "rope_type": "llama3",
        "factor": 4.0,
        "original_max_position_embeddings": 1024,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
    },
}


def good_config(rope_type: str) -> dict[str, Any]:
    return {
        "head_dim": 64,
        "max_position_embeddings": 4096,
        "rope_parameters": {"rope_theta": 10000.0} | copy.deepcopy(GOOD_PARAMS[rope_type]),
    }


@pytest.mark.parametrize("rope_type", sorted(GOOD_PARAMS))
def test_good_configs_are_accepted(rope_type: str) -> None:
    theta, attention = frequencies_from_config(good_config(rope_type), 5000)
    assert theta.shape == (32,) and np.all(np.isfinite(theta)) and attention > 0


NAN = float("nan")
INF = float("inf")

BAD_PARAMS = [
    ("default", {"rope_type": "ntk"}, "rope_type"),
    ("default", {"rope_type": "axial"}, "rope_type"),  # documented by transformers, not registered
    ("default", {"rope_type": None}, "rope_type"),
    ("default", {"rope_theta": 0.0}, "rope_theta"),
    ("default", {"rope_theta": -10000.0}, "rope_theta"),
    ("default", {"rope_theta": NAN}, "rope_theta"),
    ("default", {"rope_theta": INF}, "rope_theta"),
    ("default", {"rope_theta": "10000"}, "rope_theta"),
    ("default", {"partial_rotary_factor": 0.3}, "partial_rotary_factor"),  # int(19.2) = 19
    ("default", {"partial_rotary_factor": 0.0}, "partial_rotary_factor"),
    ("default", {"partial_rotary_factor": 1.5}, "partial_rotary_factor"),
    ("default", {"partial_rotary_factor": NAN}, "partial_rotary_factor"),
    ("linear", {"factor": None}, "factor"),
    ("linear", {"factor": NAN}, "factor"),
    ("linear", {"factor": INF}, "factor"),
    ("linear", {"factor": 0.5}, "factor"),
    ("linear", {"factor": -2.0}, "factor"),
    ("linear", {"factor": "4"}, "factor"),
    ("dynamic", {"factor": None}, "factor"),
    ("dynamic", {"factor": 0.0}, "factor"),
    ("yarn", {"factor": NAN}, "factor"),
    ("yarn", {"factor": 0.5}, "factor"),
    ("yarn", {"beta_fast": 1.0, "beta_slow": 2.0}, "beta_fast"),
    ("yarn", {"beta_fast": NAN}, "beta_fast"),
    ("yarn", {"beta_slow": -1.0}, "beta_slow"),
    ("yarn", {"mscale": NAN, "mscale_all_dim": 1.0}, "mscale"),
    ("yarn", {"mscale_all_dim": INF}, "mscale_all_dim"),
    ("yarn", {"attention_factor": NAN}, "attention_factor"),
    ("yarn", {"attention_factor": -1.0}, "attention_factor"),
    ("yarn", {"truncate": "yes"}, "truncate"),
    ("yarn", {"rope_theta": 1.0}, "rope_theta"),  # ln β is a denominator
    ("yarn", {"original_max_position_embeddings": 0}, "original_max_position_embeddings"),
    ("yarn", {"original_max_position_embeddings": 10.5}, "original_max_position_embeddings"),
    ("longrope", {"short_factor": None}, "short_factor"),
    ("longrope", {"long_factor": None}, "long_factor"),
    ("longrope", {"short_factor": [1.0] * 31}, "short_factor"),
    ("longrope", {"long_factor": [1.0] * 64}, "long_factor"),
    ("longrope", {"short_factor": [1.0] * 31 + [NAN]}, "short_factor"),
    ("longrope", {"long_factor": [1.0] * 31 + [0.0]}, "long_factor"),
    ("longrope", {"short_factor": 1.0}, "short_factor"),
    ("longrope", {"long_factor": "abc"}, "long_factor"),
    ("longrope", {"factor": 0.5}, "factor"),
    ("longrope", {"attention_factor": 0.0}, "attention_factor"),
    ("llama3", {"factor": None}, "factor"),
    ("llama3", {"low_freq_factor": None}, "low_freq_factor"),
    ("llama3", {"high_freq_factor": None}, "high_freq_factor"),
    (
        "llama3",
        {"high_freq_factor": 0.5},
        "high_freq_factor",
    ),  # below low_freq_factor (equal is allowed)
    ("llama3", {"low_freq_factor": NAN}, "low_freq_factor"),
    ("llama3", {"high_freq_factor": -4.0}, "high_freq_factor"),
]


@pytest.mark.parametrize(
    ("rope_type", "change", "match"),
    BAD_PARAMS,
    ids=[f"{t}-{'-'.join(c)}-{i}" for i, (t, c, _) in enumerate(BAD_PARAMS)],
)
def test_bad_rope_parameters_name_the_key(
    rope_type: str, change: dict[str, Any], match: str
) -> None:
    config = good_config(rope_type)
    config["rope_parameters"] |= change
    with pytest.raises(ValueError, match=match):
        frequencies_from_config(config)


@pytest.mark.parametrize("key", ["short_factor", "long_factor"])
def test_longrope_missing_lists(key: str) -> None:
    config = good_config("longrope")
    del config["rope_parameters"][key]
    with pytest.raises(ValueError, match=key):
        frequencies_from_config(config)


@pytest.mark.parametrize(
    ("rope_type", "key"),
    [
        ("linear", "factor"),
        ("dynamic", "factor"),
        ("yarn", "factor"),  # the key is required, though it may be null
        ("llama3", "factor"),
        ("llama3", "low_freq_factor"),
        ("llama3", "high_freq_factor"),
    ],
)
def test_missing_required_keys(rope_type: str, key: str) -> None:
    config = good_config(rope_type)
    del config["rope_parameters"][key]
    with pytest.raises(ValueError, match=key):
        frequencies_from_config(config)


BAD_TOP_LEVEL = [
    ({"head_dim": 0}, "head_dim"),
    ({"head_dim": -64}, "head_dim"),
    ({"head_dim": NAN}, "head_dim"),
    ({"head_dim": 63.5}, "head_dim"),
    ({"head_dim": 63}, "rotary dimension"),
    ({"head_dim": None}, "head_dim"),  # and no hidden_size / num_attention_heads
    ({"head_dim": None, "hidden_size": 256, "num_attention_heads": 0}, "num_attention_heads"),
    ({"head_dim": None, "hidden_size": NAN, "num_attention_heads": 4}, "hidden_size"),
    ({"rope_theta": NAN, "rope_parameters": None}, "rope_theta"),
    ({"rope_scaling": [1, 2]}, "rope_scaling"),
    ({"rope_parameters": "linear"}, "rope_parameters"),
    ({"rope_parameters": {"full_attention": {"rope_type": "default"}}}, "nested"),
    ({"max_position_embeddings": 0}, "max_position_embeddings"),
    ({"max_position_embeddings": NAN}, "max_position_embeddings"),
    ({"partial_rotary_factor": 0.3, "rope_parameters": None}, "partial_rotary_factor"),
]


@pytest.mark.parametrize(("change", "match"), BAD_TOP_LEVEL)
def test_bad_top_level_keys_name_the_key(change: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        frequencies_from_config(good_config("default") | change)


def test_scaled_types_need_lengths() -> None:
    config = good_config("dynamic")
    del config["max_position_embeddings"]
    with pytest.raises(ValueError, match="max_position_embeddings"):
        frequencies_from_config(config)
    config = good_config("yarn")
    del config["max_position_embeddings"]
    del config["rope_parameters"]["original_max_position_embeddings"]
    with pytest.raises(ValueError, match="original_max_position_embeddings"):
        frequencies_from_config(config)
    config = good_config("longrope")  # no factor: derived from the two lengths
    del config["max_position_embeddings"]
    with pytest.raises(ValueError, match="max_position_embeddings"):
        frequencies_from_config(config)


@pytest.mark.parametrize("seq_len", [-1, 2.5, NAN, INF, "100", True, [10]])
def test_bad_seq_len(seq_len: Any) -> None:
    with pytest.raises(ValueError, match="seq_len"):
        frequencies_from_config(good_config("dynamic"), seq_len)


def test_bad_config_object() -> None:
    with pytest.raises(ValueError, match="config"):
        frequencies_from_config(42)


def test_spec_checks_required_fields_at_use() -> None:
    with pytest.raises(ValueError, match="factor"):
        frequencies_from_config(RopeSpec(rope_type="linear", head_dim=64))
    with pytest.raises(ValueError, match="max_position_embeddings"):
        frequencies_from_config(RopeSpec(rope_type="dynamic", head_dim=64, factor=2.0))
    with pytest.raises(ValueError, match="rope_type"):
        RopeSpec(rope_type="su", head_dim=64)
    with pytest.raises(ValueError, match="dim"):
        frequencies_from_config(
            RopeSpec(rope_type="dynamic", head_dim=2, factor=2.0, max_position_embeddings=8)
        )


def test_helpers_reject_bad_arguments() -> None:
    with pytest.raises(ValueError, match="base"):
        dynamic_ntk_base(NAN, 64, 2.0, 100, 10)
    with pytest.raises(ValueError, match="max_position_embeddings"):
        dynamic_ntk_base(1e4, 64, 2.0, 100, 0)
    with pytest.raises(ValueError, match="factor"):
        yarn_attention_factor(0.0)
    with pytest.raises(ValueError, match="high_freq_factor"):
        llama3_bands(64, 1e4, 8192, 4.0, 1.0)
    with pytest.raises(ValueError, match="base"):
        yarn_ramp(64, 1.0, 4096)
    with pytest.raises(ValueError, match="original_max_position_embeddings"):
        longrope_attention_factor(4.0, 1)


# ---------------------------------------------------------------------------------------------
# Released config.json fields as they are (chapter 8)
# ---------------------------------------------------------------------------------------------


def test_proportional_matches_transformers() -> None:
    for head, base, fraction, factor in itertools.product(
        (64, 128, 256), BASES, (0.25, 0.5, 1.0), (None, 1.0, 2.0)
    ):
        params = {
            "rope_type": "proportional",
            "rope_theta": base,
            "partial_rotary_factor": fraction,
        }
        if factor is not None:
            params["factor"] = factor
        raw = llama_raw(head, params)
        check_against(raw, ROPE_INIT_FUNCTIONS["proportional"])
        inv, attention = frequencies_from_config(raw)
        assert inv.shape == (head // 2,) and attention == 1.0
        assert np.count_nonzero(inv) == int(fraction * head // 2)


@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize("edge", [1.0, 2.0, 32.0])
def test_llama3_with_equal_band_factors_matches_transformers(edge: float, factor: float) -> None:
    """Llama 4 Scout ships low_freq_factor == high_freq_factor == 1: no middle band."""
    for head, base in itertools.product(HEADS, BASES):
        params = {
            "rope_type": "llama3",
            "rope_theta": base,
            "factor": factor,
            "low_freq_factor": edge,
            "high_freq_factor": edge,
            "original_max_position_embeddings": 8192,
        }
        raw = llama_raw(head, params, max_position_embeddings=8192 * 16)
        check_against(raw, ROPE_INIT_FUNCTIONS["llama3"])
        inv, _ = frequencies_from_config(raw)
        theta = inv_freq(head, base)
        kept = 2 * math.pi / theta < 8192 / edge
        np.testing.assert_array_equal(inv[kept], theta[kept])
        np.testing.assert_allclose(inv[~kept], theta[~kept] / factor, rtol=1e-15)
    labels = llama3_bands(128, 500000.0, 8192, 1.0, 1.0)
    assert set(labels) == {"high", "low"} and np.sum(labels == "low") == 29


@pytest.mark.parametrize(
    "given", [{}, {"rotary_pct": 0.5}, {"rotary_emb_base": 12345.0}, {"rotary_pct": 1.0}]
)
def test_gpt_neox_released_fields(given: dict[str, Any]) -> None:
    raw = {"model_type": "gpt_neox", "hidden_size": 512, "num_attention_heads": 4} | given
    config = GPTNeoXConfig(**copy.deepcopy(raw))
    theirs = reference(GPTNeoXRotaryEmbedding.compute_default_rope_parameters, config)
    assert_same(frequencies_from_config(raw), theirs)


def test_deepseek_rotates_qk_rope_head_dim() -> None:
    from transformers import DeepseekV3Config
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3RotaryEmbedding

    raw = {
        "model_type": "deepseek_v3",
        "hidden_size": 256,
        "num_attention_heads": 4,
        "qk_rope_head_dim": 32,
        "qk_nope_head_dim": 64,
        "v_head_dim": 64,
        "max_position_embeddings": 163840,
        "rope_theta": 10000,
        "rope_scaling": {
            "type": "yarn",
            "factor": 40,
            "beta_fast": 32,
            "beta_slow": 1,
            "mscale": 1.0,
            "mscale_all_dim": 1.0,
            "original_max_position_embeddings": 4096,
        },
    }
    rotary = DeepseekV3RotaryEmbedding(DeepseekV3Config(**copy.deepcopy(raw)))
    inv, attention = frequencies_from_config(raw)
    assert inv.shape == (16,)
    np.testing.assert_allclose(inv, rotary.inv_freq.double().numpy(), rtol=blend_rtol(40.0))
    assert attention == pytest.approx(rotary.attention_scaling, rel=ATTENTION_RTOL)


@pytest.mark.parametrize(
    "fields",
    [
        {"rope_theta": 1e6, "rope_local_base_freq": 1e4},
        {"rope_scaling": {"rope_type": "linear", "factor": 8.0}},  # Gemma 3's own defaults
        {
            "rope_parameters": {
                "full_attention": {"rope_type": "linear", "factor": 4.0, "rope_theta": 5e5},
                "sliding_attention": {"rope_type": "default", "rope_theta": 2e4},
            }
        },
    ],
    ids=["v4-explicit", "v4-defaults", "v5-nested"],
)
def test_gemma3_frequencies_per_layer_type(fields: dict[str, Any]) -> None:
    from transformers.models.gemma3.configuration_gemma3 import Gemma3TextConfig
    from transformers.models.gemma3.modeling_gemma3 import Gemma3RotaryEmbedding

    raw = {
        "model_type": "gemma3_text",
        "head_dim": 64,
        "hidden_size": 128,
        "num_attention_heads": 2,
        "num_hidden_layers": 12,
        "max_position_embeddings": 8192,
    } | fields
    rotary = Gemma3RotaryEmbedding(Gemma3TextConfig(**copy.deepcopy(raw)))
    ours = frequencies_by_layer_type(raw)
    assert set(ours) == {"full_attention", "sliding_attention"}
    for layer_type, (inv, attention) in ours.items():
        theirs = getattr(rotary, f"{layer_type}_inv_freq").double().numpy()
        np.testing.assert_allclose(inv, theirs, rtol=RTOL)
        assert attention == getattr(rotary, f"{layer_type}_attention_scaling")
        np.testing.assert_array_equal(frequencies_from_config(raw, layer_type=layer_type)[0], inv)
    with pytest.raises(ValueError, match="nested per layer type"):
        frequencies_from_config(raw)
    with pytest.raises(ValueError, match="layer_type must be one of"):
        frequencies_from_config(raw, layer_type="chunked_attention")


def test_legacy_type_names_and_nested_text_config() -> None:
    factors = [1.5] * 16
    phi = {
        "model_type": "phi3",
        "hidden_size": 128,
        "num_attention_heads": 4,
        "max_position_embeddings": 16384,
        "original_max_position_embeddings": 2048,
        "rope_scaling": {"type": "su", "short_factor": factors, "long_factor": factors},
    }
    renamed = copy.deepcopy(phi)
    renamed["rope_scaling"]["type"] = "longrope"
    check_against(renamed, ROPE_INIT_FUNCTIONS["longrope"], Phi3Config, seq_lens=(None, 4096))
    for seq_len in (None, 4096):
        np.testing.assert_array_equal(
            frequencies_from_config(phi, seq_len)[0], frequencies_from_config(renamed, seq_len)[0]
        )
    mrope = {"head_dim": 64, "rope_scaling": {"type": "mrope", "mrope_section": [8, 12, 12]}}
    np.testing.assert_array_equal(frequencies_from_config(mrope)[0], inv_freq(64, 10000.0))
    nested = {"model_type": "llama4", "text_config": {"head_dim": 64, "rope_theta": 5e5}}
    np.testing.assert_array_equal(frequencies_from_config(nested)[0], inv_freq(64, 5e5))
    assert set(frequencies_by_layer_type(nested)) == {"all"}
