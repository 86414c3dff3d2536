"""llama.cpp, run (issue 36): the tiny models of tools/llamacpp_measure.py are built, converted
with llama.cpp's own converter and run in llama.cpp again on every ``make test``; the fresh
measurements must show what chapter 8A states and agree with the committed record
(src/ropelab/measured/llamacpp.json), which the chapter prints.

``make test`` installs llama.cpp first (``make llamacpp``); without it these tests fail, they
do not skip."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ropebook import llamacpp_measure

ROOT = Path(__file__).resolve().parents[1]


RECORD = json.loads(llamacpp_measure.RECORD.read_text())
AGREE = 1e-5  # float32 end to end: the measured agreement is about 1e-6
ROPE_ONLY = [
    "llama-linear",
    "llama-yarn",
    "llama3",
    "qwen2",
    "qwen3-yarn",
    "qwen3vl-imrope",
    "cohere-interleaved",
]
NOT_ROPE = ["phi-partial", "gemma3-two-bases"]  # GELU's tanh approximation differs in ggml
YARN = ["llama-yarn", "qwen3-yarn"]
NO_FACTOR = [
    "llama-linear",
    "llama3",
    "qwen2",
    "cohere-interleaved",
    "phi-partial",
    "gemma3-two-bases",
]


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    if not (llamacpp_measure.SOURCE_DIR / "convert_hf_to_gguf.py").exists():
        pytest.fail("llama.cpp is not installed: run `make llamacpp` (make test does)")
    record, _ = llamacpp_measure.measure(tmp_path_factory.mktemp("llamacpp"))
    return record


def test_the_pinned_release_ran(fresh):
    assert fresh["node_llama_cpp"] == "3.21.1"
    assert fresh["llama_cpp_release"] == {"repo": "ggml-org/llama.cpp", "release": "v0.4.0"}
    assert set(fresh["models"]) == {spec.name for spec in llamacpp_measure.MODELS}


def test_the_converter_writes_the_committed_keys(fresh):
    for name, model in fresh["models"].items():
        committed = RECORD["models"][name]
        assert model["gguf_keys"] == committed["gguf_keys"], name
        assert model["gguf_rope_tensors"].keys() == committed["gguf_rope_tensors"].keys(), name
        for tensor, values in model["gguf_rope_tensors"].items():
            assert values == pytest.approx(committed["gguf_rope_tensors"][tensor], rel=1e-6)


def test_qwen3_yarn_block_gives_three_scaling_keys_and_no_attention_factor(fresh):
    keys = fresh["models"]["qwen3-yarn"]["gguf_keys"]
    scaling = {k for k in keys if ".rope.scaling." in k}
    assert scaling == {
        "qwen3.rope.scaling.type",
        "qwen3.rope.scaling.factor",
        "qwen3.rope.scaling.original_context_length",
    }


@pytest.mark.parametrize("name", ROPE_ONLY)
def test_llamacpp_computes_what_transformers_computes(fresh, name):
    model = fresh["models"][name]
    assert model["max_logprob_difference"] < AGREE
    # the comparison sees the rope settings: without them the difference is 100 times larger
    assert model["max_logprob_difference_without_rope_settings"] > 100 * AGREE


@pytest.mark.parametrize("name", NOT_ROPE)
def test_differences_that_are_not_rope_are_there_at_position_0(fresh, name):
    """Position 0 is rotated by the identity: a difference already there is not the rope's."""
    model = fresh["models"][name]
    assert model["max_logprob_difference"] < 1e-3
    assert model["max_logprob_difference_position_0"] > 0.2 * model["max_logprob_difference"]
    assert (
        model["max_logprob_difference_without_rope_settings"] > 10 * model["max_logprob_difference"]
    )


def test_yarn_attention_factor_and_betas_from_the_config_are_ignored(fresh):
    model = fresh["models"]["llama-yarn-attn"]
    assert "llama.rope.scaling.yarn_attn_factor" in model["gguf_keys"]
    assert model["max_logprob_difference"] > 100 * AGREE
    alternatives = model["max_logprob_difference_alternatives"]
    assert alternatives["attention factor 1 + 0.1 ln s, YaRN's default betas 32 and 1"] < AGREE
    assert alternatives["attention factor 1 + 0.1 ln s, the config's betas 16 and 2"] > 100 * AGREE


def test_qwen2vl_reads_no_rms_epsilon(fresh):
    model = fresh["models"]["qwen2vl-mrope"]
    assert model["gguf_keys"]["qwen2vl.rope.dimension_sections"] == [2, 3, 3, 0]
    assert model["max_logprob_difference"] > 100 * AGREE
    assert (
        model["max_logprob_difference_alternatives"][
            "RMS norm epsilon 0 instead of the config's 10^-5"
        ]
        < AGREE
    )


def test_gemma3_layer_pattern_comes_from_the_architecture_not_layer_types(fresh):
    model = fresh["models"]["gemma3-layer-types"]
    assert model["max_logprob_difference"] > 100 * AGREE
    assert model["max_logprob_difference_alternatives"]["both layers local (base 100)"] < 1e-3


def test_query_rows_are_permuted_for_llama_only(fresh):
    permuted = {n for n, m in fresh["models"].items() if m["query_rows_permuted"]}
    assert permuted == {"llama-linear", "llama-yarn", "llama-yarn-attn", "llama3"}


@pytest.mark.parametrize("name", NO_FACTOR)
def test_context_shift_is_an_exact_rotation_without_an_attention_factor(fresh, name):
    shift = fresh["models"][name]["shift"]
    assert shift["error"] is None
    tolerance = AGREE if name in ROPE_ONLY else 1e-3
    assert shift["max_difference_from_exact_shift"] < tolerance
    # the erased tokens still shaped the kept cache: a shift is not a recomputation
    assert shift["max_difference_from_recomputation"] > 10 * tolerance


@pytest.mark.parametrize("name", YARN)
def test_yarn_context_shift_applies_the_attention_factor_again(fresh, name):
    shift = fresh["models"][name]["shift"]
    assert shift["max_difference_from_shift_with_factor_again"] < AGREE
    assert shift["max_difference_from_exact_shift"] > 10 * AGREE


@pytest.mark.parametrize("name", ["qwen2vl-mrope", "qwen3vl-imrope", "qwen3vl-sections"])
def test_multi_axis_cache_shift_aborts(fresh, name):
    error = fresh["models"][name]["shift"]["error"]
    assert error.startswith("process aborted")
    assert "seq_add() is only supported for n_pos_per_embd() == 1" in error


def test_interleaved_mrope_leaves_an_unclaimed_plane_still(fresh):
    """Sections 2, 3, 3: llama.cpp gives plane 6 the fourth position (0 for text); the
    restated rule (ropelab.llamacpp_measured) names the same plane."""
    from ropelab.llamacpp_measured import unrotated_text_planes

    model = fresh["models"]["qwen3vl-sections"]
    assert model["max_logprob_difference"] > 10 * AGREE
    (label,) = model["max_logprob_difference_alternatives"]
    assert model["max_logprob_difference_alternatives"][label] < AGREE
    assert unrotated_text_planes([2, 3, 3], 8) == [6]
    assert unrotated_text_planes([3, 3, 2], 8) == []


def test_gemma3_shift_with_both_caches(fresh):
    model = fresh["models"]["gemma3-two-bases"]
    for shift in (model["shift"], model["shift_swa_full_cache"]):
        assert shift["error"] is None
        assert shift["max_difference_from_exact_shift"] < 1e-3
    assert fresh["models"]["gemma3-layer-types"]["shift"]["error"].startswith("process aborted")


def _numbers(tree, path=""):
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from _numbers(value, f"{path}/{key}")
    elif isinstance(tree, float):
        yield path, tree


def test_fresh_numbers_agree_with_the_committed_record(fresh):
    """Each difference within a factor of ten or below the agreement threshold: the
    chapter's statements hold on this CPU as on the one that wrote the record."""
    committed = dict(_numbers(RECORD["models"]))
    for path, value in _numbers(fresh["models"]):
        if "/gguf" in path or "/config" in path:
            continue
        before = committed[path]
        if max(value, before) < AGREE:
            continue
        assert math.isclose(value, before, rel_tol=0.5), (path, value, before)
