"""The table's layer rule rebuilds ``layer_types`` as transformers computes them (issue 38).

For every family with an interval rule, and every family whose config class computes
``layer_types``, the class is built with 1, 5, 8 and 12 layers and with each interval key
(:data:`generate.INTERVAL_KEYS`, :data:`generate.OFFSET_KEYS`) set, whether the class reads
it or not; the decoder reads the same config without ``layer_types`` (the older released
spelling) and must give every layer the kind and rope settings it gives when the computed
``layer_types`` is there. A key the class ignores must not move the rebuilt pattern.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ropelab import families
from ropelab.config_fields import _layer_names, normalize_config

transformers = pytest.importorskip("transformers")
if transformers.__version__ != "5.23.0":  # pragma: no cover
    pytest.skip("the table is generated from transformers 5.23.0", allow_module_level=True)

from ropelab.families.generate import INTERVAL_KEYS, OFFSET_KEYS  # noqa: E402

COUNTS = (1, 5, 8, 12)
#: Classes whose ``layer_types`` is no interval (a fixed list, a rule of the layer count):
#: without ``layer_types`` the decoder rebuilds them at the default layer count only.
NOT_PERIODIC = {
    "dots3_note_text": "one indexed layer type per count, its rope dict chosen by count",
    "granitemoehybrid": "layers_block_type pattern, not periodic",
    "laguna": "per-layer list of the default count",
    "lfm3": "full_attn_idxs / conv list of the default count",
    "lfm3_vl_vision": "vision config, conv list of the default count",
    "mellum": "per-layer list of the default count",
    "mimo_v2_flash": "hybrid_layer_pattern list of the default count",
    "neomme": "the last layer full, others sliding (no period)",
    "zaya": "hybrid pattern of the default count",
}


def _per_layer(fields: Any, n: int) -> list[tuple[str, str | None]]:
    """Each layer's kind and (for a rotating layer) its rope settings."""
    out = []
    for i in range(n):
        entries = [x for x in fields.layers if i in x.layers]
        entries = entries or (list(fields.layers) if len(fields.layers) == 1 else [])
        kind = fields.layer_kinds[i] if fields.layer_kinds else "rope"
        params = entries[0].config["rope_parameters"] if entries and kind == "rope" else None
        out.append((kind, None if params is None else json.dumps(params, sort_keys=True)))
    return out


def _settings() -> list[dict[str, int]]:
    cases: list[dict[str, int]] = [{}]
    cases += [{key: value} for key in INTERVAL_KEYS for value in (2, 3)]
    cases += [{"attn_layer_period": 3, key: value} for key in OFFSET_KEYS for value in (0, 1)]
    return cases


def _checked() -> list[str]:
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    chosen = []
    for model_type in families.rope_families():
        rule = families.family(model_type)
        if rule is None or rule.sub_configs:
            continue
        interval = (rule.layer_rule or {}).get("interval")
        try:
            computed = CONFIG_MAPPING[model_type]().to_dict().get("layer_types")
        except Exception:
            continue
        if interval or computed:
            chosen.append(model_type)
    return chosen


def check(model_type: str) -> list[str]:
    """The cases where the decoder without ``layer_types`` differs from it with them."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    config_class = CONFIG_MAPPING[model_type]
    bad = []
    for n in COUNTS:
        for extra in _settings():
            try:
                values = config_class(num_hidden_layers=n, **extra).to_dict()
            except Exception:
                continue  # the class refuses the setting
            if not values.get("layer_types"):
                continue
            want = _per_layer(normalize_config(values), n)
            older = {k: v for k, v in {**values, **extra}.items() if k != "layer_types"}
            try:
                got = _per_layer(normalize_config(older), n)
            except ValueError as error:
                bad.append(f"{n} layers {extra}: raises {error}")
                continue
            if got != want:
                bad.append(f"{n} layers {extra}: {[k for k, _ in got]} != {[k for k, _ in want]}")
    return bad


def test_interval_rules_rebuild_layer_types() -> None:
    results = {model_type: check(model_type) for model_type in _checked()}
    assert len(results) >= 60
    differing = {mt for mt, bad in results.items() if bad}
    assert differing == set(NOT_PERIODIC), {
        mt: results[mt][:2] for mt in differing ^ set(NOT_PERIODIC)
    }
    for model_type in NOT_PERIODIC:
        rule = families.family(model_type)
        assert rule is not None and not (rule.layer_rule or {}).get("interval"), model_type


def test_every_interval_family_is_checked() -> None:
    checked = set(_checked())
    for model_type in families.rope_families():
        rule = families.family(model_type)
        if rule is not None and (rule.layer_rule or {}).get("interval"):
            assert model_type in checked, model_type


def test_ignored_keys_are_not_read() -> None:
    """Gemma 2 computes its pattern alone: a sliding_window_pattern in the file is ignored."""
    base = {"model_type": "gemma2", "num_hidden_layers": 6, "head_dim": 16}
    plain = normalize_config(base)
    assert normalize_config({**base, "sliding_window_pattern": 3}) == plain
    rule = families.family("gemma2")
    names = _layer_names({**base, "sliding_window_pattern": 3}, rule, 6, [])
    assert names == ["sliding_attention", "full_attention"] * 3
