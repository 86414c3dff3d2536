"""ropelab.llamacpp_measured: the committed llama.cpp record, and the interleaved M-RoPE
plane rule restated from transformers and llama.cpp (tests/test_llamacpp.py checks it
against a run)."""

from __future__ import annotations

import pytest

from ropelab.llamacpp_measured import (
    imrope_axes_llamacpp,
    imrope_axes_transformers,
    llamacpp_record,
    unrotated_text_planes,
)


def test_record_is_the_pinned_release():
    record = llamacpp_record()
    assert record["node_llama_cpp"] == "3.21.1"
    assert record["llama_cpp_release"]["release"] == "v0.4.0"
    assert len(record["models"]) == 13


def test_transformers_rule_counts_each_axis():
    """Qwen3.5's 11, 11, 10 of 32 planes: every axis gets its share."""
    axes = imrope_axes_transformers([11, 11, 10], 32)
    assert [axes.count(a) for a in ("time", "height", "width")] == [11, 11, 10]
    assert axes[:6] == ["time", "height", "width"] * 2


def test_qwen3_vl_released_sections_leave_two_planes_still_in_llamacpp():
    """24, 20, 20 of 64: height and width stop at plane 59, and llama.cpp's time axis does
    not claim planes 61 and 62 (j % 3 != 0), which transformers turns with time."""
    assert unrotated_text_planes([24, 20, 20], 64) == [61, 62]
    theirs = imrope_axes_llamacpp([24, 20, 20], 64)
    assert theirs.count("time") == 22 and theirs.count("fourth") == 2


def test_qwen35_sections_agree():
    assert imrope_axes_llamacpp([11, 11, 10], 32) == imrope_axes_transformers([11, 11, 10], 32)


@pytest.mark.parametrize(
    ("sections", "planes", "word"),
    [([1, 2], 8, "sections"), ([4, 4, 4], 8, "planes"), ([1, -1, 1], 8, "sections entry")],
)
def test_bad_sections_name_the_argument(sections, planes, word):
    with pytest.raises(ValueError, match=word):
        imrope_axes_transformers(sections, planes)


def test_time_axis_bound_matches_the_measured_run():
    """Sections 2, 3, 3 of 8 planes: the run in llama.cpp matched transformers only with plane
    6 held still (src/ropelab/measured/llamacpp.json, model qwen3vl-sections)."""
    assert unrotated_text_planes([2, 3, 3], 8) == [6]
    (difference,) = llamacpp_record()["models"]["qwen3vl-sections"][
        "max_logprob_difference_alternatives"
    ].values()
    assert difference < 1e-5


def test_rope_modes_agree_with_the_measured_runs():
    """Every measured architecture is in the table, and its converter permuted the query rows
    exactly when llama.cpp pairs adjacent coordinates (NORM) while transformers' code for
    the family rotates halves; Cohere's transformers code already pairs adjacent ones."""
    from ropelab.gguf_meta import LLAMA_CPP_ROPE_MODES

    adjacent_in_transformers = {"command-r"}
    for name, model in llamacpp_record()["models"].items():
        arch = model["gguf_keys"]["general.architecture"]
        needs_permutation = (
            LLAMA_CPP_ROPE_MODES[arch] == "NORM" and arch not in adjacent_in_transformers
        )
        assert needs_permutation == model["query_rows_permuted"], name
