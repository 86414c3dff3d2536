"""ropelab.stacks2025 and ropelab.video_time (chapter 10) against transformers 5.23: the layer
patterns SmolLM3, Qwen3-Next and Qwen3.5 build from their config fields, the rotated part of
their heads, Qwen3.5's interleaved axes and Qwen2.5-VL's absolute-time ids."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import Qwen3NextConfig, SmolLM3Config
from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import Qwen2_5_VLModel
from transformers.models.qwen3_5.configuration_qwen3_5 import Qwen3_5TextConfig
from transformers.models.qwen3_5.modeling_qwen3_5 import Qwen3_5TextRotaryEmbedding
from transformers.models.qwen3_next.modeling_qwen3_next import Qwen3NextRotaryEmbedding

from ropelab import stacks2025, video_time
from ropelab.multimodal import plane_axes


@pytest.mark.parametrize("layers", [36, 12, 7])
def test_smollm3_no_rope_layers(layers):
    config = SmolLM3Config(num_hidden_layers=layers)
    assert stacks2025.rope_flags_every(layers, 4) == config.no_rope_layers
    if layers == 36:
        assert [i for i, f in enumerate(config.no_rope_layers) if not f] == list(range(3, 36, 4))


@pytest.mark.parametrize("config_class", [Qwen3NextConfig, Qwen3_5TextConfig])
def test_qwen_layer_types_and_rotary_part(config_class):
    config = config_class()
    flags = stacks2025.full_attention_flags(config.num_hidden_layers, 4)
    assert flags == [t == "full_attention" for t in config.layer_types]
    factor = config.rope_parameters["partial_rotary_factor"]
    dims = stacks2025.rotary_dims(config.head_dim, factor)
    assert dims == 64
    if config_class is Qwen3NextConfig:
        assert sum(flags) == 12 and config.num_hidden_layers == 48
        inv_freq, _ = Qwen3NextRotaryEmbedding.compute_default_rope_parameters(config)
        assert inv_freq.numel() == dims // 2


def test_qwen35_interleaved_axes_match_its_rotary_embedding():
    """Give the three axes the positions 1, 2, 3: transformers' recomposition picks, for each
    of the 32 planes, the axis that ropelab's interleaved allocation names."""
    assert Qwen3_5TextRotaryEmbedding(Qwen3_5TextConfig()).mrope_section == [11, 11, 10]
    # base 2: every plane turns by less than pi at positions 1 to 3, so angles read back
    params = {"rope_type": "default", "rope_theta": 2.0, "partial_rotary_factor": 0.25}
    rope = Qwen3_5TextRotaryEmbedding(Qwen3_5TextConfig(rope_parameters=params))
    sections = rope.mrope_section
    position_ids = torch.tensor([1, 2, 3]).view(3, 1, 1)
    cos, sin = rope(torch.zeros(1, 1, 1), position_ids)
    angles = torch.atan2(sin[0, 0, :32].double(), cos[0, 0, :32].double()).numpy()
    theta = rope.inv_freq.double().numpy()
    chosen = np.rint(angles / theta).astype(int) - 1
    np.testing.assert_array_equal(chosen, plane_axes("interleaved", 64, sections))


def test_kimi_linear_cache_share():
    """Kimi Linear: one MLA layer per three KDA layers, 'reducing KV cache usage by up to
    75%' (arXiv:2510.26692, abstract)."""
    assert 1 - stacks2025.growing_cache_share(1, 3) == 0.75


def test_stack_bad_inputs():
    with pytest.raises(ValueError, match="partial_rotary_factor"):
        stacks2025.rotary_dims(256, 1.5)
    with pytest.raises(ValueError, match="interval"):
        stacks2025.rope_flags_every(36, 0)


@pytest.mark.parametrize(
    ("groups", "seconds", "per_second"), [(3, 2.0, 25), (5, 1.0, 4), (6, 0.5, 3), (4, 4.0, 2)]
)
def test_qwen25_vl_temporal_ids(groups, seconds, per_second):
    """transformers' get_vision_position_ids with time_interval = tokens_per_second *
    second_per_grid; the docstring's example (25 per second, 2-second groups) is 0, 50, 100."""
    ids = Qwen2_5_VLModel.get_vision_position_ids(
        None, 0, torch.tensor([groups, 1, 1]), 1, 1, per_second * seconds
    )
    np.testing.assert_array_equal(video_time.temporal_ids(groups, seconds, per_second), ids[0])
    if (groups, seconds, per_second) == (3, 2.0, 25):
        assert ids[0].tolist() == [0, 50, 100]


def test_videorope_axes():
    axes = video_time.videorope_axes(64, 16)
    assert (axes[48:] == 0).all() and set(axes[:48]) == {1, 2}
    assert video_time.temporal_ids(4).tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="temporal_planes"):
        video_time.videorope_axes(8, 9)
