"""ropelab.multimodal against transformers' Qwen2-VL and Qwen3-VL code and formulas written here.

Numbers from the sources: Qwen2-VL's ``mrope_section`` [16, 24, 24] for head dimension 128
and base 1,000,000 (Qwen/Qwen2-VL-7B-Instruct config.json; transformers' default); Qwen3-VL's
[24, 20, 20] with ``mrope_interleaved`` (Qwen/Qwen3-VL config.json; transformers' default).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from transformers import Qwen2VLTextConfig, Qwen3VLTextConfig
from transformers.models.qwen2_vl import modeling_qwen2_vl
from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLVisionConfig
from transformers.models.qwen3_vl import modeling_qwen3_vl

from ropelab import apply_rope, inv_freq
from ropelab.multimodal import (
    apply_multiaxis_rope,
    axial_frequencies,
    largest_angle,
    multiaxis_angles,
    multiaxis_state,
    plane_axes,
    plane_axes_interleaved,
    plane_axes_sections,
    sequence_position_ids,
    text_position_ids,
    vision_position_ids,
)


def test_section_and_interleaved_allocations():
    axes = plane_axes_sections([16, 24, 24])
    np.testing.assert_array_equal(axes, [0] * 16 + [1] * 24 + [2] * 24)
    inter = plane_axes_interleaved([24, 20, 20])
    assert np.bincount(inter).tolist() == [24, 20, 20]
    assert inter[:6].tolist() == [0, 1, 2, 0, 1, 2]
    assert np.flatnonzero(inter == 1).tolist() == list(range(1, 60, 3))
    assert np.flatnonzero(inter == 2).tolist() == list(range(2, 60, 3))
    assert inter[60:].tolist() == [0, 0, 0, 0]


def _positions(T: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 50, size=(T, 3))  # distinct t, h, w per token


def _qwen_rotate(rotary, module, positions: np.ndarray, x: torch.Tensor) -> torch.Tensor:
    position_ids = torch.from_numpy(positions.T.copy())[:, None, :]  # (3, batch, T)
    cos, sin = rotary(x, position_ids)
    rotated, _ = module.apply_rotary_pos_emb(x, x, cos.double(), sin.double())
    return rotated


def test_mrope_matches_qwen2_vl():
    config = Qwen2VLTextConfig(
        hidden_size=4 * 128,
        num_attention_heads=4,
        num_key_value_heads=4,
        rope_parameters={
            "rope_type": "default",
            "rope_theta": 1_000_000.0,
            "mrope_section": [16, 24, 24],
        },
    )
    rotary = modeling_qwen2_vl.Qwen2VLRotaryEmbedding(config)
    torch.manual_seed(0)
    x = torch.randn(1, 4, 12, 128, dtype=torch.float64)
    positions = _positions(12)
    theirs = _qwen_rotate(rotary, modeling_qwen2_vl, positions, x)
    ours = apply_multiaxis_rope(
        x, positions, inv_freq(128, 1_000_000.0), plane_axes("sections", 128, [16, 24, 24])
    )
    torch.testing.assert_close(ours, theirs, rtol=0, atol=2e-5)  # transformers: float32 angles


def test_interleaved_mrope_matches_qwen3_vl():
    config = Qwen3VLTextConfig(
        hidden_size=4 * 128,
        num_attention_heads=4,
        num_key_value_heads=4,
        head_dim=128,
        rope_parameters={
            "rope_type": "default",
            "rope_theta": 5_000_000.0,
            "mrope_section": [24, 20, 20],
            "mrope_interleaved": True,
        },
    )
    rotary = modeling_qwen3_vl.Qwen3VLTextRotaryEmbedding(config)
    torch.manual_seed(1)
    x = torch.randn(1, 4, 12, 128, dtype=torch.float64)
    positions = _positions(12, seed=1)
    theirs = _qwen_rotate(rotary, modeling_qwen3_vl, positions, x)
    axes = plane_axes("interleaved", 128, [24, 20, 20])
    ours = apply_multiaxis_rope(x, positions, inv_freq(128, 5_000_000.0), axes)
    torch.testing.assert_close(ours, theirs, rtol=0, atol=2e-5)
    contiguous = apply_multiaxis_rope(
        x, positions, inv_freq(128, 5_000_000.0), plane_axes_sections([24, 20, 20])
    )
    assert (contiguous - theirs).abs().max() > 1e-2  # the allocation matters


@pytest.mark.parametrize("allocation", ["sections", "interleaved"])
def test_text_tokens_get_ordinary_rope(allocation):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((9, 128))
    p = np.arange(9) * 13.0
    positions = np.stack([p, p, p], axis=1)
    axes = plane_axes(allocation, 128, [16, 24, 24] if allocation == "sections" else [24, 20, 20])
    ours = apply_multiaxis_rope(x, positions, inv_freq(128, 1e6), axes)
    np.testing.assert_allclose(ours, apply_rope(x, p, base=1e6, layout="half"), atol=1e-12)


def test_axial_rope_matches_qwen2_vl_vision_encoder():
    config = Qwen2VLVisionConfig(embed_dim=2 * 80, num_heads=2)
    rotary = modeling_qwen2_vl.Qwen2VLVisionRotaryEmbedding(config)
    theta = axial_frequencies(80, config.rope_parameters["rope_theta"])
    np.testing.assert_allclose(theta[:20], rotary.inv_freq.double().numpy(), rtol=1e-6)
    np.testing.assert_allclose(theta[20:], theta[:20])
    rows, cols = np.meshgrid(np.arange(4), np.arange(5), indexing="ij")
    positions = np.stack([rows.ravel(), cols.ravel()], axis=1)  # (N, 2): row, column
    torch.manual_seed(3)
    x = torch.randn(20, 2, 80, dtype=torch.float64)  # (N, heads, head_dim)
    cos, sin = rotary(x, torch.from_numpy(positions))
    theirs, _ = modeling_qwen2_vl.apply_rotary_pos_emb_vision(x, x, cos.double(), sin.double())
    ours = apply_multiaxis_rope(x.transpose(0, 1), positions, theta, plane_axes("axial", 80))
    torch.testing.assert_close(ours.transpose(0, 1), theirs, rtol=0, atol=1e-5)
    np.testing.assert_allclose(theta[:20], [10000.0 ** (-4 * j / 80) for j in range(20)])


def test_vision_position_ids_match_transformers():
    ours = vision_position_ids(7, 2, 3, 4)
    theirs = modeling_qwen2_vl.Qwen2VLModel.get_vision_position_ids(
        None, 7, torch.tensor([2, 3, 4]), 1, 1
    )
    np.testing.assert_array_equal(ours, theirs.numpy())


def test_sequence_position_ids():
    ids = sequence_position_ids([("text", 3), ("image", 2, 3), ("text", 2)])
    expected = np.array(
        [
            [0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7],
            [0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7],
            [0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7],
        ]
    )
    np.testing.assert_array_equal(ids, expected)
    np.testing.assert_array_equal(text_position_ids(4, 2), [[4, 5], [4, 5], [4, 5]])


def test_explorer_state():
    state = multiaxis_state("sections", (16, 24, 24), (1, 2, 3), (4, 10, 3), max_offset=8)
    theta = inv_freq(128, 1e6)
    delta = np.array([3, 8, 0])[plane_axes_sections([16, 24, 24])]
    assert state.planes_per_axis() == {"t": 16, "h": 24, "w": 24}
    np.testing.assert_allclose(state.relative_angle, delta * theta)
    np.testing.assert_allclose(state.angle_b - state.angle_a, state.relative_angle, atol=1e-12)
    assert state.score == pytest.approx(2 * np.cos(delta * theta).sum())
    middle = state.offsets.tolist().index(0.0)
    np.testing.assert_allclose(state.axis_scores[:, middle], 128.0)
    h_axis = 2 * np.cos(3.0 * theta[16:40]).sum() + 2 * 40
    assert state.axis_scores[1, middle + 3] == pytest.approx(h_axis)
    json.dumps(state.to_dict())  # plain numbers only
    axial = multiaxis_state("axial", None, (0, 0), (2, 5), head_dim=64, base=100.0)
    assert axial.planes_per_axis() == {"row": 16, "col": 16}
    assert axial.score == pytest.approx(
        2 * np.cos(2 * axial_frequencies(64, 100.0)[:16]).sum()
        + 2 * np.cos(5 * axial_frequencies(64, 100.0)[16:]).sum()
    )


def test_qwen2_vl_width_planes_barely_turn():
    theta = inv_freq(128, 1_000_000.0)
    axes = plane_axes_sections([16, 24, 24])
    assert largest_angle(theta, axes, 2, 32) == pytest.approx(32 * 1e6 ** (-80 / 128))
    assert largest_angle(theta, axes, 2, 32) < 0.006
    inter = plane_axes_interleaved([24, 20, 20])
    assert largest_angle(theta, inter, 2, 32) == pytest.approx(32 * 1e6 ** (-4 / 128))


def test_angles_follow_each_plane_axis():
    angles = multiaxis_angles([[1.0, 10.0, 100.0]], [1.0, 1.0, 1.0], [2, 0, 1])
    np.testing.assert_allclose(angles, [[100.0, 1.0, 10.0]])


def test_bad_inputs():
    with pytest.raises(ValueError, match="add up to head_dim / 2 = 64"):
        plane_axes("sections", 128, [16, 24, 16])
    with pytest.raises(ValueError, match="allocation must be one of"):
        plane_axes("spiral", 128, [16, 24, 24])
    with pytest.raises(ValueError, match="3 entries"):
        plane_axes_interleaved([32, 32])
    with pytest.raises(ValueError, match="multiple of 4"):
        axial_frequencies(66)
    with pytest.raises(ValueError, match="last axis of length 3"):
        multiaxis_angles([[1.0, 2.0]], inv_freq(8), plane_axes_sections([1, 2, 1]))
    with pytest.raises(ValueError, match="segment"):
        sequence_position_ids([("video", 2, 2, 2)])


def test_multiaxis_ones_score_rotates_the_all_ones_vectors():
    from ropelab.multimodal import multiaxis_ones_score

    theta = axial_frequencies(16, 100.0)
    axes = plane_axes("axial", 16)
    offsets = np.array([[0.0, 0.0], [2.0, -3.0], [5.0, 1.0]])
    ones = np.ones((1, 16))
    expected = []
    for offset in offsets:
        key = apply_multiaxis_rope(ones, np.zeros((1, 2)), theta, axes)
        query = apply_multiaxis_rope(ones, offset[None], theta, axes)
        expected.append(float(query[0] @ key[0]))
    np.testing.assert_allclose(multiaxis_ones_score(offsets, theta, axes), expected, atol=1e-12)


def test_explorer_data_sections_and_an_empty_axis():
    from ropelab.multimodal import multiaxis_explorer_data

    data = multiaxis_explorer_data("sections", 16, 100, 0, 0, 0, 2, 3, 4)
    assert data["sections"] == [16, 48, 0] and data["planes_per_axis"] == [16, 48, 0]
    # no width plane: the width offset changes nothing
    moved = multiaxis_explorer_data("sections", 16, 100, 0, 0, 0, 2, 3, 30)
    assert moved["score"] == data["score"]
    theta = inv_freq(128, 1e6)
    expected = 2 * (np.cos(2 * theta[:16]).sum() + np.cos(3 * theta[16:]).sum())
    assert data["score"] == pytest.approx(expected, rel=1e-13)
    axial = multiaxis_explorer_data("axial", 16, 24, 9, 1, 2, 9, 4, 7)
    assert axial["axis_names"] == ["row", "col"] and axial["position_b"] == [4.0, 7.0]
    with pytest.raises(ValueError, match="n_axes must be at least 3"):
        multiaxis_angles([[1.0, 2.0]], inv_freq(8), plane_axes_sections([1, 2, 1]), n_axes=2)
