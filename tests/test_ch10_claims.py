"""Chapter 10's corrected claims, each checked against an independent computation or the
library the source names (transformers 5.23): where Self-Extend's README numbers come from,
the exact limit of the chapter's exercise, how many DCA chunks 2^20 tokens span, Qwen3.5-27B's
layer count and Qwen2.5-VL's time ids with the released ``tokens_per_second``."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import torch
from transformers.models.qwen2_5_vl.configuration_qwen2_5_vl import Qwen2_5_VLVisionConfig
from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import Qwen2_5_VLModel
from transformers.models.qwen3_5.configuration_qwen3_5 import Qwen3_5TextConfig

from ropelab import remapping as remap
from ropelab import stacks2025, video_time


def brute_largest(length: int, group: int, window: int) -> int:
    """Self-Extend's largest relative position on ``length`` tokens, over every pair."""
    m, n = np.tril_indices(length)
    return int(np.max(remap.self_extend_relative(m, n, group, window)))


@pytest.mark.parametrize(("group", "readme"), [(5, 3979), (8, 2871)])
def test_self_extend_readme_positions_use_the_length_unfloored(group, readme):
    """datamllab/LongLM README: 15,800 tokens, neighbour window 1,024, 'positions 1,025 to
    3,979' with group 5 and '1,025 to 2,871' with group 8. Both are floor(T/G + w - w/G)
    with the length T = 15,800 in exact rational arithmetic."""
    length, window = 15800, 1024
    assert math.floor(Fraction(length, group) + window - Fraction(window, group)) == readme


def test_self_extend_map_gives_3979_and_2870():
    """The map's largest position puts the last query at T - 1 and floors both quotients:
    3,979 for G = 5 (the two differences cancel), 2,870 for G = 8 (8 divides 15,800 and
    1,024, so only the position's -1 is left)."""
    length, window = 15800, 1024
    by_formula = {g: (length - 1) // g + window - window // g for g in (5, 8)}
    assert by_formula == {5: 3979, 8: 2870}
    for g, top in by_formula.items():
        assert remap.max_relative("Self-Extend", length, group=g, window=window) == top
        assert remap.self_extend_relative(length - 1, 0, g, window) == top


def test_counting_positions_from_one_does_not_explain_both_readme_values():
    """The chapter's old reason for 2,871 (the last token counted as 15,800) would make the
    G = 5 value 3,980, not the README's 3,979."""
    assert remap.self_extend_relative(15800, 0, 8, 1024) == 2871
    assert remap.self_extend_relative(15800, 0, 5, 1024) == 3980


def longest_covered(train_len: int, group: int, window: int) -> int:
    """The longest input whose largest Self-Extend position is at most train_len - 1, by
    bisection on max_relative (non-decreasing in the length)."""
    lo, hi = 1, 10 * group * train_len
    while lo < hi:
        mid = (lo + hi + 1) // 2
        top = remap.max_relative("Self-Extend", mid, group=group, window=window)
        lo, hi = (mid, hi) if top <= train_len - 1 else (lo, mid - 1)
    return lo


@pytest.mark.parametrize(
    ("train_len", "window", "group"),
    [(4096, 1024, 5), (4096, 1024, 8), (4096, 1000, 7), (4096, 512, 3), (8192, 2048, 6)],
)
def test_exact_limit_is_w_mod_g_below_the_readme_bound(train_len, window, group):
    """Exercise ch10-predict-selfextend: the longest covered input is G (L - w + floor(w/G)),
    the README's (L - w) G + w less w mod G; not always G - 1 less."""
    exact = longest_covered(train_len, group, window)
    readme = remap.self_extend_max_length(train_len, group, window)
    assert exact == group * (train_len - window + window // group)
    assert readme - exact == window % group


def test_exercise_numbers():
    """16,380 tokens for w = 1,024, G = 5 (four short of 16,384); exactly 25,600 for G = 8."""
    assert longest_covered(4096, 5, 1024) == 16380
    assert remap.self_extend_max_length(4096, 5, 1024) == 16384
    assert longest_covered(4096, 8, 1024) == remap.self_extend_max_length(4096, 8, 1024)
    assert remap.self_extend_max_length(4096, 8, 1024) == 25600


@pytest.mark.parametrize(("train_len", "window", "group"), [(40, 10, 3), (32, 8, 4), (30, 7, 5)])
def test_exact_limit_against_every_pair(train_len, window, group):
    """The closed form of the limit against the map on every pair of small inputs."""
    exact = group * (train_len - window + window // group)
    assert brute_largest(exact, group, window) == train_len - 1
    assert brute_largest(exact + 1, group, window) == train_len


def test_dca_two_to_the_twenty_tokens():
    """Qwen2.5-1M (chunk_size 262,144, local_size 8,192): a chunk holds c = 253,952 tokens;
    2^20 tokens are four training lengths but about 4.13 chunks, and no score sees more
    than 262,144."""
    chunk_size, local_size = 262144, 8192
    c = chunk_size - local_size
    assert c == 253952
    assert 2**20 == 4 * chunk_size
    assert f"{2**20 / c:.2f}" == "4.13"
    assert 2**20 // c == 4 and 2**20 % c != 0
    top = remap.max_relative("DCA", 2**20, chunk_size=chunk_size, local_size=local_size)
    assert top == chunk_size


def test_qwen35_27b_has_16_attention_layers_of_64():
    """Qwen3.5-27B's text config: 64 layers, full_attention_interval 4, head_dim 256,
    partial_rotary_factor 0.25 (not Qwen3-Next-80B's 48 layers)."""
    config = Qwen3_5TextConfig(num_hidden_layers=64)
    flags = stacks2025.full_attention_flags(64, 4)
    assert flags == [t == "full_attention" for t in config.layer_types]
    assert sum(flags) == 16
    factor = config.rope_parameters["partial_rotary_factor"]
    assert stacks2025.rotary_dims(config.head_dim, factor) == 64


@pytest.mark.parametrize(("fps", "last"), [(2.0, 30), (0.5, 24)])
def test_qwen25_vl_ids_with_the_released_tokens_per_second(fps, last):
    """Qwen's released Qwen2.5-VL configs set vision_config.tokens_per_second = 2 (the class
    default is 4): a 16-second video in temporal patches of 2 frames gets ids up to 30 at
    2 frames/s and 24 at 0.5 frames/s, as transformers computes them."""
    assert Qwen2_5_VLVisionConfig().tokens_per_second == 4
    tps = 2
    seconds = 2 / fps
    groups = int(16 / seconds)
    ids = video_time.temporal_ids(groups, seconds, tps)
    hf = Qwen2_5_VLModel.get_vision_position_ids(
        None, 0, torch.tensor([groups, 1, 1]), 1, 1, tps * seconds
    )
    np.testing.assert_array_equal(ids, hf[0])
    assert int(ids[-1]) == last
