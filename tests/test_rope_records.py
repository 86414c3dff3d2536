"""A rope type is one RopeType record: describe, decoder, gguf_meta and engines read its fields.

A record planted into ROPE_TYPES (a copy of ``linear`` under a new name, then with single
fields changed) is described, decoded, given GGUF keys and vLLM lengths without any edit to
those modules, with the values the formulas give; and the records' data are consistent with
the code that reads them (warning codes, GGUF key names, attention formulas, JSON).
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import numpy as np
import pytest

from ropelab.core import inv_freq
from ropelab.decoder import WARNINGS, decode_config
from ropelab.describe import RopeDescription, describe_config
from ropelab.engines import vllm_cache_length, vllm_max_model_len
from ropelab.gguf_meta import ROPE_KEYS, gguf_rope_metadata
from ropelab.rope_config import (
    ROPE_TYPES,
    DescribedParameter,
    RopeType,
    frequencies_from_config,
)

HEAD, BASE, MAX_LEN = 64, 10000.0, 8192


def config(rope_type: str, **rope: Any) -> dict[str, Any]:
    """A Llama config whose rope dict is ``{"rope_type": rope_type, **rope}``."""
    return {
        "model_type": "llama",
        "head_dim": HEAD,
        "num_attention_heads": 4,
        "num_hidden_layers": 2,
        "max_position_embeddings": MAX_LEN,
        "rope_theta": BASE,
        "rope_scaling": {"rope_type": rope_type, **rope},
    }


def plant(monkeypatch: pytest.MonkeyPatch, **changes: Any) -> RopeType:
    """Register a copy of the ``linear`` record as ``"planted"``, with ``changes``."""
    record = dataclasses.replace(ROPE_TYPES["linear"], name="planted", **changes)
    monkeypatch.setitem(ROPE_TYPES, "planted", record)
    return record


def test_a_planted_copy_of_linear_is_described_decoded_and_served_like_linear(monkeypatch):
    plant(monkeypatch)
    planted, linear = config("planted", factor=4.0), config("linear", factor=4.0)
    # describe: every plane interpolated by the factor (position interpolation, theta / 4)
    layer = describe_config(planted).layers[0]
    np.testing.assert_allclose(layer.inv_freq, inv_freq(HEAD, BASE) / 4, rtol=1e-15)
    assert (layer.rope_type, layer.factor, layer.original_length) == ("planted", 4.0, None)
    assert (layer.kept, layer.stretched, layer.interpolated) == (0, 0, HEAD // 2)
    assert "planted, base 10,000, factor 4" in str(describe_config(planted))
    # decoder: the same record as linear's but for the name
    same = decode_config(linear)
    same["layers"][0]["rope_type"] = "planted"
    same["report"] = same["report"].replace(": linear,", ": planted,")
    assert decode_config(planted) == same
    # the no-op warning names the planted type
    codes = decode_config(config("planted", factor=1.0))["warnings"]
    assert ["no-op-block", "planted with factor 1: the block changes nothing"] in codes
    # GGUF: linear's scaling type and factor
    values = gguf_rope_metadata(planted).values
    assert values["llama.rope.scaling.type"] == "linear"
    assert values["llama.rope.scaling.factor"] == 4.0
    # vLLM: the declared length times the factor, a table of the declared length
    assert vllm_max_model_len(planted) == 4 * MAX_LEN
    assert vllm_cache_length(planted) == MAX_LEN


def test_each_field_of_a_planted_record_drives_the_behaviour(monkeypatch):
    plant(
        monkeypatch,
        described=(DescribedParameter("scale", "factor", "float"),),
        layer_warnings=(),
        gguf_scaling_type="yarn",
        gguf_note="planted: a note",
        vllm_max_len="unscaled",
        vllm_cache="max_scaled",
        reference="factor_one",
    )
    planted = config("planted", factor=4.0)
    layer = describe_config(planted).layers[0]
    assert layer.parameters == (("scale", 4.0),)
    # the reference is the type at factor 1: theta / 4 against theta, all interpolated still
    assert layer.interpolated == HEAD // 2
    assert decode_config(config("planted", factor=1.0))["warnings"] == []
    rope = gguf_rope_metadata(planted)
    assert rope.values["llama.rope.scaling.type"] == "yarn"
    assert "planted: a note" in rope.notes
    assert vllm_max_model_len(planted) == MAX_LEN
    assert vllm_cache_length(planted) == 4 * MAX_LEN


def test_a_planted_record_with_an_original_length_shows_it_and_checks_the_factor(monkeypatch):
    plant(
        monkeypatch,
        frequencies=ROPE_TYPES["yarn"].frequencies,
        factor="nullable",
        original_length=True,
        read=ROPE_TYPES["yarn"].read,
        layer_warnings=("factor-vs-lengths",),
        vllm_max_len="original_scaled",
        vllm_cache="original_scaled",
    )
    planted = config("planted", factor=None, original_max_position_embeddings=2048)
    layer = decode_config(planted)["layers"][0]
    # a null factor is max / original = 8192 / 2048 = 4; the extended length 2048 * 4
    assert (layer["factor"], layer["original_length"]) == (4.0, 2048)
    assert layer["extended_length"] == 8192
    # vLLM: original * factor (vLLM reads a null factor as 1, as for YaRN)
    scaled = config("planted", factor=8.0, original_max_position_embeddings=2048)
    assert vllm_cache_length(scaled) == vllm_max_model_len(scaled) == 2048 * 8
    assert vllm_max_model_len(planted) == 2048
    wrong = config("planted", factor=2.0, original_max_position_embeddings=2048)
    codes = [code for code, _ in decode_config(wrong)["warnings"]]
    assert codes == ["factor-vs-lengths"]


def test_a_rope_description_reads_its_fields_through():
    description = describe_config(config("linear", factor=2.0))
    assert isinstance(description, RopeDescription)
    for field in dataclasses.fields(description.fields):
        if field.name != "layers":
            assert getattr(description, field.name) == getattr(description.fields, field.name)
    assert description.head_dim == HEAD and description.num_layers == 2
    assert description.layers[0].rope_type == "linear"
    with pytest.raises(AttributeError):
        _ = description.no_such_attribute
    data = description.to_dict()
    assert list(data)[:3] == ["name", "model_type", "spelling"]
    assert data["layers"][0]["factor"] == 2.0


def test_the_records_name_warnings_and_gguf_keys_their_readers_know():
    for record in ROPE_TYPES.values():
        assert set(record.layer_warnings) <= set(WARNINGS), record.name
        assert all(key.name in ROPE_KEYS for key in record.gguf_keys), record.name
        assert (record.gguf_tensor is None) == (record.gguf_tensor_values is None), record.name
        if record.gguf_keys:
            assert record.gguf_scaling_type is not None, record.name


def test_the_records_data_are_json_for_the_browser():
    """Every field but the callables survives JSON (the bundler ships them to the page)."""
    for record in ROPE_TYPES.values():
        data = {
            f.name: getattr(record, f.name)
            for f in dataclasses.fields(record)
            if not callable(getattr(record, f.name))
        }
        text = json.dumps(data, default=dataclasses.asdict)
        assert json.loads(text)["name"] == record.name


ATTENTION = {
    "one": lambda s, original: 1.0,
    "yarn": lambda s, original: 0.1 * math.log(s) + 1.0,
    "longrope": lambda s, original: math.sqrt(1 + math.log(s) / math.log(original)),
}


@pytest.mark.parametrize("name", sorted(ROPE_TYPES))
def test_default_attention_is_the_formula_the_frequencies_use(name):
    """The attention factor the record names equals what its frequency function returns
    without an explicit one (s = 4, original length 2048; the formulas written here)."""
    record = ROPE_TYPES[name]
    rope: dict[str, Any] = {"rope_type": name, "rope_theta": BASE}
    if record.factor is not None:
        rope["factor"] = 4.0
    if record.original_length:
        rope["original_max_position_embeddings"] = 2048
    values = {"low_freq_factor": 1.0, "high_freq_factor": 4.0}
    for key in record.required:
        rope[key] = values.get(key, [1.0] * (HEAD // 2))
    raw = {"head_dim": HEAD, "max_position_embeddings": MAX_LEN, "rope_parameters": rope}
    _, attention = frequencies_from_config(raw)
    expected = ATTENTION[record.default_attention](4.0, 2048)
    assert attention == pytest.approx(expected, rel=1e-12)


def test_the_reference_field_picks_what_the_planes_are_compared_with(monkeypatch):
    """p-RoPE against itself at factor 1: of 32 planes, floor(0.5 * 64 / 2) = 16 rotate at
    theta / 2 (interpolated) and 16 are 0 in both (kept); against plain RoPE of the rotated
    fraction (16 planes) the shapes differ and the description refuses."""
    record = dataclasses.replace(ROPE_TYPES["proportional"], name="planted")
    monkeypatch.setitem(ROPE_TYPES, "planted", record)
    raw = dict(config("planted", factor=2.0), partial_rotary_factor=0.5)
    layer = describe_config(raw).layers[0]
    assert (layer.kept, layer.stretched, layer.interpolated) == (16, 0, 16)
    assert layer.parameters == (("rotated fraction", 0.5),)
    monkeypatch.setitem(ROPE_TYPES, "planted", dataclasses.replace(record, reference="plain"))
    with pytest.raises(ValueError, match="same shape"):
        describe_config(raw)
