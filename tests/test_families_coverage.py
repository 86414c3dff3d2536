"""The family table and the decoder's coverage record are current (issue 38).

* the committed ``transformers_5_23.json`` equals a fresh generation: whole entries for a
  sample of model types (with their sub-configs), and the config-class defaults of every
  model type with RoPE;
* ``coverage_5_23.json`` is current (every model type re-measured), and its counts are the ones
  stated here, so that a change to the decoder or the table is noticed;
* the Gemma 3 text defaults the released 4B ``text_config`` relies on are in the table.

The whole table's regeneration reads every modeling file (about 45 s here); the test
regenerates whole entries for a sample and the config-class defaults for all.
"""

from __future__ import annotations

import json

import pytest

from ropelab import families

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")
if transformers.__version__ != "5.23.0":  # pragma: no cover
    pytest.skip("the table is generated from transformers 5.23.0", allow_module_level=True)

from ropelab.families import coverage, generate  # noqa: E402

#: Whole entries regenerated: dense, sliding/full, hybrid, MLA, partial rotary, NoPE,
#: composite (with their sub-configs, added below).
SAMPLE = (
    "llama",
    "gemma3",
    "gemma3_text",
    "gpt_neox",
    "qwen3_next",
    "cohere2",
    "deepseek_v3",
    "phi3",
    "smollm3",
    "jamba",
)
#: The classification counts of the committed record.
COUNTS = {
    "cannot instantiate on CPU": 19,
    "decoder raises": 49,
    "differs": 2,
    "matches": 292,
}


def _committed() -> dict:
    return json.loads(generate.TABLE_PATH.read_text(encoding="utf-8"))


def test_table_entries_are_current() -> None:
    committed = _committed()["model_types"]
    chosen = set(SAMPLE)
    for model_type in SAMPLE:
        chosen |= set(committed[model_type].get("sub_configs", {}).values())
    fresh = generate.generate(chosen)["model_types"]
    for model_type in sorted(chosen):
        assert fresh[model_type] == committed[model_type], model_type


def test_table_defaults_are_current() -> None:
    committed = _committed()["model_types"]
    for model_type in families.rope_families():
        if "defaults" in committed[model_type]:
            fresh = generate.defaults(model_type)
            assert fresh == committed[model_type]["defaults"], model_type


def test_table_lists_every_model_type() -> None:
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    assert families.families() == tuple(sorted(CONFIG_MAPPING_NAMES))
    assert generate.render(_committed()) == generate.TABLE_PATH.read_text(encoding="utf-8")


def test_gemma3_text_defaults_for_the_released_4b_text_config() -> None:
    rule = families.family("gemma3_text")
    assert rule is not None and rule.rope
    assert rule.defaults["head_dim"] == 256 and rule.defaults["num_attention_heads"] == 8
    assert rule.sources["head_dim"] == "hand" and rule.hand
    assert rule.layers_of("rope") == tuple(range(26))
    assert families.family("no such model") is None


def test_coverage_is_current() -> None:
    """Every model type with RoPE re-measured (its rotary modules only: about 15 s)."""
    record = json.loads(coverage.RECORD_PATH.read_text(encoding="utf-8"))["model_types"]
    assert coverage.measure() == record


def test_coverage_counts() -> None:
    body = json.loads(coverage.RECORD_PATH.read_text(encoding="utf-8"))
    assert tuple(sorted(body["model_types"])) == families.rope_families()
    assert body["counts"] == coverage.counts(body["model_types"]) == COUNTS
    text = coverage.RECORD_PATH.read_text(encoding="utf-8")
    assert coverage.render(body["model_types"], body["layer_calls"]) == text


#: Layer calls re-measured: hybrid (linear attention, state-space), NoPE, control, MLA with
#: NoPE layers and an indexer (per-family tiny sizes), Mamba2 hybrid (per-family sizes).
CALLS_SAMPLE = (
    "cohere2",
    "qwen3_next",
    "recurrent_gemma",
    "smollm3",
    "llama",
    "mistral_large4_text",
    "zamba2",
    "zamba2 use_mem_rope=true",
)
#: Families whose attention applies RoPE only when a key says so (the table's
#: ``rope_switch``): measured at the class default (no layer calls it, and the decoder says
#: none) and switched on (their attention layers call it, as the decoder says). Zamba2's
#: shared attention reads ``use_mem_rope`` (default False, modeling_zamba2.py);
#: GraniteMoeHybrid builds its rotary_emb only for ``position_embedding_type == "rope"``
#: (default None; modeling_granitemoehybrid.py).
SWITCHED = {
    "zamba2": "matches: 0 of 8",
    "zamba2 use_mem_rope=true": "matches: 1 of 8",
    "granitemoehybrid": "matches: 0 of 8",
    "granitemoehybrid position_embedding_type=rope": "matches: 1 of 8",
}
#: Layer calls measured: 25 model types and the 2 switched-on variants, all matching.
LAYER_CALLS_COUNT = 27


def test_layer_calls_are_current() -> None:
    """Tiny models of a sample call the rotary function in the layers the decoder says."""
    calls = json.loads(coverage.RECORD_PATH.read_text(encoding="utf-8"))["layer_calls"]
    assert tuple(sorted(calls)) == tuple(
        sorted((*coverage.layer_call_types(), *coverage.SWITCHED_ON))
    )
    assert len(calls) == LAYER_CALLS_COUNT
    fresh = coverage.measure_layer_calls(CALLS_SAMPLE)
    assert fresh == {mt: calls[mt] for mt in CALLS_SAMPLE}
    assert [v for v in calls.values() if not v.startswith("matches")] == []
    for name, start in SWITCHED.items():
        assert calls[name].startswith(start), (name, calls[name])


def test_every_non_match_has_a_reason() -> None:
    """A model type that differs, raises or cannot be built says why, in plain words."""
    record = json.loads(coverage.RECORD_PATH.read_text(encoding="utf-8"))["model_types"]
    for model_type, value in record.items():
        if not value.startswith("matches"):
            assert "; reason: " in value, model_type
            assert coverage.reason(model_type, value.split("; reason: ")[0]), model_type


def test_the_decoder_reads_every_default_config_layer_by_layer_as_the_table_does() -> None:
    """For every model type with RoPE whose layer kinds the table holds (read from the config
    class, or by hand where the modeling code decides), the decoder reads the class's default
    config (``to_dict()``, as a released config.json spells it) into the same kind per layer:
    Bamba's ``attn_layer_indices``, LongCat-Flash's ``num_layers``, the RoPE switches of
    Zamba2 and GraniteMoeHybrid included."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    from ropelab.config_fields import normalize_config

    entries = families.table()["model_types"]
    compared, differ = 0, {}
    for model_type, entry in entries.items():
        expected = entry.get("layer_kinds")
        if not entry.get("rope") or not expected:
            continue
        try:
            fields = normalize_config(CONFIG_MAPPING[model_type]().to_dict())
        except ValueError:
            continue  # listed in the coverage record with its reason
        kinds = list(fields.layer_kinds) or ["rope"] * (fields.num_layers or 0)
        compared += 1
        if kinds != expected:
            differ[model_type] = (kinds[:6], expected[:6])
    assert differ == {}
    assert compared >= 230
