"""ropelab.gguf_meta against what llama.cpp release v0.4.0 was measured to do
(src/ropelab/measured/llamacpp.json, written by tools/llamacpp_measure.py): for every tiny
model converted there, gguf_rope_metadata of its config gives exactly the keys, values and
tensors the converter wrote, and frequencies_from_gguf gives the frequencies llama.cpp was
shown to compute (its log-probabilities matched transformers' with those frequencies).

Needs neither llama.cpp nor transformers: the configs are rebuilt from the record's rope
fields and the tool's common fields, as released-config-like dicts with their model_type."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

from ropebook import llamacpp_measure
from ropelab.config_fields import normalize_config
from ropelab.core import inv_freq
from ropelab.decoder import decode_text
from ropelab.gguf_meta import (
    frequencies_from_gguf,
    gguf_rope_metadata,
    llamacpp_attention_factor,
    read_gguf_rope,
    write_gguf,
)
from ropelab.rope_config import frequencies_from_config

ROOT = Path(__file__).resolve().parents[1]


RECORD = json.loads(llamacpp_measure.RECORD.read_text())
MEASURED = RECORD["models"]
SPECS = {spec.name: spec for spec in llamacpp_measure.MODELS}
#: transformers' model_type of each config class the tool uses (and of its text config).
MODEL_TYPES = {
    "LlamaConfig": "llama",
    "Qwen2Config": "qwen2",
    "Qwen3Config": "qwen3",
    "PhiConfig": "phi",
    "Gemma3TextConfig": "gemma3_text",
    "Qwen2VLConfig": "qwen2_vl",
    "Qwen3VLConfig": "qwen3_vl",
    "CohereConfig": "cohere",
}
TEXT_MODEL_TYPES = {"Qwen2VLConfig": "qwen2_vl_text", "Qwen3VLConfig": "qwen3_vl_text"}
#: The config keys llama.cpp does not read for these architectures (the measured YaRN run
#: matched transformers without them): betas and the attention factor.
IGNORED_BY_LLAMACPP = ("beta_fast", "beta_slow", "attention_factor", "attn_factor")


def config_of(name: str) -> dict:
    """The measured model's config: the record's rope fields over the tool's common ones."""
    spec = SPECS[name]
    fields = {**llamacpp_measure.COMMON, **MEASURED[name]["config"]}
    if spec.vision is None:
        return {**fields, "model_type": MODEL_TYPES[spec.config_class]}
    text = {**fields, "model_type": TEXT_MODEL_TYPES[spec.config_class]}
    return {"model_type": MODEL_TYPES[spec.config_class], "text_config": text}


def main_group(config):
    """The rope group the converter writes: full attention's, else the only one."""
    layers = normalize_config(config).layers
    return next((e for e in layers if e.layer_type == "full_attention"), layers[0])


def llamacpp_config(entry):
    """A group's flat config as llama.cpp runs it: betas 32 and 1, computed attention factor."""
    params = {k: v for k, v in entry.rope_parameters.items() if k not in IGNORED_BY_LLAMACPP}
    return dict(entry.config, rope_parameters=params)


def test_the_record_is_the_tools_models():
    assert set(MEASURED) <= set(SPECS)  # the tool may list models not yet measured
    assert RECORD["llama_cpp_release"]["release"] == "v0.4.0"
    for name in MEASURED:
        assert MEASURED[name]["config"] == SPECS[name].fields, name


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_keys_values_and_tensors_are_the_converters(name):
    measured = MEASURED[name]
    rope = gguf_rope_metadata(config_of(name))
    written = {**rope.values, "general.architecture": rope.arch}
    assert written.keys() == measured["gguf_keys"].keys(), name
    for key, value in measured["gguf_keys"].items():
        if isinstance(value, float):  # float32 in the file, six decimals in the record
            assert written[key] == pytest.approx(value, rel=1e-6, abs=1e-6), key
        else:
            assert written[key] == value, key
    assert rope.tensors.keys() == measured["gguf_rope_tensors"].keys(), name
    for tensor, values in measured["gguf_rope_tensors"].items():
        np.testing.assert_allclose(rope.tensors[tensor], values, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_frequencies_are_the_ones_llamacpp_computes(name, tmp_path):
    config = config_of(name)
    back = read_gguf_rope(write_gguf(tmp_path / f"{name}.gguf", gguf_rope_metadata(config)))
    entry = main_group(config)
    expected, attention = frequencies_from_config(llamacpp_config(entry))
    np.testing.assert_allclose(frequencies_from_gguf(back), expected, rtol=1e-6, atol=0)
    assert llamacpp_attention_factor(back) == pytest.approx(attention, rel=1e-6)


def test_yarn_with_an_attention_factor_and_betas_runs_with_the_defaults():
    """llama-yarn-attn's file holds attention factor 1.25 and betas 16 and 2; llama.cpp's
    log-probabilities matched transformers with betas 32/1 and 1 + 0.1 ln 4 (to 1.1e-6), and
    not with the config's betas (3.3e-3): the frequencies read back are the default ones."""
    measured = MEASURED["llama-yarn-attn"]
    alternatives = measured["max_logprob_difference_alternatives"]
    defaults = "attention factor 1 + 0.1 ln s, YaRN's default betas 32 and 1"
    configs_betas = "attention factor 1 + 0.1 ln s, the config's betas 16 and 2"
    assert alternatives[defaults] < 1e-5 < 1e-3 < alternatives[configs_betas]
    assert measured["max_logprob_difference"] > 1e-3  # the config as transformers reads it

    rope = gguf_rope_metadata(config_of("llama-yarn-attn"))
    assert rope.values["llama.rope.scaling.yarn_attn_factor"] == 1.25
    assert "llama.rope.scaling.attn_factor" not in rope.values
    plain = config_of("llama-yarn")  # the same YaRN block without the three keys
    np.testing.assert_array_equal(
        frequencies_from_gguf(rope), frequencies_from_gguf(gguf_rope_metadata(plain))
    )
    as_config, _ = frequencies_from_config(main_group(config_of("llama-yarn-attn")).config)
    assert np.max(np.abs(frequencies_from_gguf(rope) / as_config - 1)) > 0.01
    assert llamacpp_attention_factor(rope) == pytest.approx(1 + 0.1 * math.log(4.0))


def test_the_sliding_base_is_read_for_the_local_layers():
    rope = gguf_rope_metadata(config_of("gemma3-two-bases"))
    np.testing.assert_allclose(frequencies_from_gguf(rope, swa=True), inv_freq(16, 100.0))
    np.testing.assert_allclose(frequencies_from_gguf(rope), inv_freq(16, 1e6), rtol=1e-12)


def test_the_browser_decoder_writes_the_measured_keys():
    """ropelab-decoder.js's ggufKeys gives the measured rows too (and the same as Python's)."""
    drift = ROOT / "tests" / "test_decoder_drift.py"
    spec = importlib.util.spec_from_file_location("decoder_drift", drift)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if module.NODE is None:
        pytest.skip("Node.js is not installed")
    texts = [json.dumps(config_of(name)) for name in sorted(MEASURED)]
    for name, js, text in zip(sorted(MEASURED), module.run_node(texts), texts, strict=True):
        module.compare(text, decode_text(text), js)
        rows = {key: value for key, value in js["gguf"] if not key.startswith("tensor ")}
        keys = {k: v for k, v in MEASURED[name]["gguf_keys"].items() if ".rope." in k}
        assert rows.keys() == keys.keys(), name
