"""Family rules as data: what each transformers model type does with RoPE (issue 38).

The table ``transformers_5_23.json`` is generated from the pinned transformers by
:mod:`ropelab.families.generate` (its docstring says how each entry is made) and committed;
reading it needs only the standard library. :mod:`ropelab.families.coverage` measures the
config decoder against transformers for every model type with RoPE
(``coverage_5_23.json``).

>>> rule = family("gemma3_text")
>>> rule.defaults["head_dim"], rule.defaults["num_attention_heads"]
(256, 8)
>>> rule.sources["head_dim"]
'hand'
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from types import MappingProxyType
from typing import Any

__all__ = [
    "LAYER_KINDS",
    "MAPPED_FIELDS",
    "TABLE",
    "FamilyRule",
    "families",
    "family",
    "layer_names",
    "rope_families",
    "table",
]

#: The committed table's file name (package data).
TABLE = "transformers_5_23.json"
#: The kinds a layer may have: attention with RoPE, attention without, a state-space
#: (Mamba or recurrent) block, linear attention, a block without attention.
LAYER_KINDS = ("rope", "nope", "state_space", "linear_attention", "no_attention")
#: Standard fields a config class may spell otherwise through its ``attribute_map``
#: (``{"head_dim": "kv_channels"}`` in JetMoeConfig, DBRX's ``n_heads``…): the table records
#: them as aliases, the spelling meaning the standard field.
MAPPED_FIELDS = (
    "head_dim",
    "hidden_size",
    "num_attention_heads",
    "num_key_value_heads",
    "num_hidden_layers",
    "max_position_embeddings",
    "layer_types",
)


@dataclass(frozen=True)
class FamilyRule:
    """One model type of the table.

    Attributes:
        model_type: transformers' ``model_type``.
        config_class: its config class's name.
        module: the transformers package (``transformers.models.<module>``).
        rope: whether its model has a rotary embedding (itself or through a sub-config).
        rope_via: the sub-configs that bring RoPE to a composite model (``"text_config:
            gemma3_text"``), empty otherwise.
        sub_configs: ``{key: model_type}`` of the config's sub-configs.
        rotary: the rotary classes and functions its model classes reach.
        reads: the config keys its rotary and attention classes read (``config.<name>``).
        defaults: the config class's defaults for every field that decides RoPE, as given
            (``head_dim`` derived as ``hidden_size // num_attention_heads`` when the class
            has none); hand-completed values where :attr:`sources` says ``"hand"``.
        sources: for each default, ``"config-class"``, ``"module-source"`` or ``"hand"``.
        layer_kinds: one of :data:`LAYER_KINDS` per layer of the default config, or None.
        layer_kinds_source: ``"config-class"`` or ``"hand"`` (None with the kinds).
        reason: why :attr:`layer_kinds` is None (or why the config has no defaults).
        hand: why entries were completed by hand.
        aliases: the family's spellings of rope fields and what each means
            (``{"rotary_pct": "partial_rotary_factor"}``; :data:`generate.ALIASES`).
        layer_rule: how a config's layers get their kinds: ``field`` (the key read:
            ``layer_types``, ``layers_block_type``, ``hybrid_override_pattern`` or
            ``num_hidden_layers``), ``names`` (each name's kind before RoPE is decided:
            ``attention``, ``state_space``…), ``interval`` (``every`` n-th layer, n read from
            ``keys`` or ``default``, when the config gives no ``layer_types``), ``nope``
            (``no_rope_layers`` or ``layer_rope_theta``), ``nope_interval`` and
            ``nope_layer_type`` (hand: a layer type without RoPE, ``when`` a key is set),
            ``rope_switch`` (hand: the key, its values that turn RoPE on, the class's
            default; any other value leaves every attention layer without RoPE).
        derived: the defaults the config class computes from others (``head_dim`` from
            ``hidden_size // num_attention_heads``): a config giving those gets its own.
    """

    model_type: str
    config_class: str
    module: str
    rope: bool
    rope_via: tuple[str, ...] = ()
    sub_configs: Mapping[str, str] = field(default_factory=dict)
    rotary: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)
    layer_kinds: tuple[str, ...] | None = None
    layer_kinds_source: str | None = None
    reason: str | None = None
    hand: tuple[str, ...] = ()
    aliases: Mapping[str, str] = field(default_factory=dict)
    layer_rule: Mapping[str, Any] | None = None
    derived: frozenset[str] = frozenset()

    @property
    def head_dim(self) -> int | None:
        """The default head size (``head_dim``, or ``hidden_size // num_attention_heads``)."""
        value = self.defaults.get("head_dim")
        return value if isinstance(value, int) else None

    def layers_of(self, kind: str) -> tuple[int, ...]:
        """The layers of the default config that are of ``kind`` (empty if unknown)."""
        if kind not in LAYER_KINDS:
            raise ValueError(f"kind must be one of {LAYER_KINDS}, got {kind!r}")
        return tuple(i for i, k in enumerate(self.layer_kinds or ()) if k == kind)


@functools.lru_cache(maxsize=1)
def table() -> Mapping[str, Any]:
    """The committed table as read from the package (``transformers``, ``model_types``…)."""
    text = resources.files(__name__).joinpath(TABLE).read_text(encoding="utf-8")
    return MappingProxyType(json.loads(text))


def _rule(model_type: str, entry: Mapping[str, Any]) -> FamilyRule:
    defaults = entry.get("defaults", {})
    hand = [v["why"] for v in defaults.values() if v.get("source") == "hand" and "why" in v]
    if entry.get("hand"):
        hand.append(entry["hand"])
    kinds = entry.get("layer_kinds")
    return FamilyRule(
        model_type=model_type,
        config_class=entry["config_class"],
        module=entry["module"],
        rope=bool(entry.get("rope")),
        rope_via=tuple(entry.get("rope_via", {}).get("value", ())),
        sub_configs=MappingProxyType(dict(entry.get("sub_configs", {}))),
        rotary=tuple(entry.get("rotary", {}).get("value", ())),
        reads=tuple(entry.get("reads", {}).get("value", ())),
        defaults=MappingProxyType({k: v["value"] for k, v in defaults.items()}),
        sources=MappingProxyType({k: v["source"] for k, v in defaults.items()}),
        layer_kinds=None if kinds is None else tuple(kinds),
        layer_kinds_source=entry.get("layer_kinds_source"),
        reason=entry.get("reason") or entry.get("config_error"),
        hand=tuple(dict.fromkeys(hand)),
        aliases=MappingProxyType(dict(entry.get("aliases", {}))),
        layer_rule=entry.get("layer_rule"),
        derived=frozenset(k for k, v in defaults.items() if "derived" in v),
    )


@functools.cache
def family(model_type: str) -> FamilyRule | None:
    """The rule of one model type, or None if transformers 5.23 has no such model type."""
    entry = table()["model_types"].get(model_type)
    return None if entry is None else _rule(model_type, entry)


def families() -> tuple[str, ...]:
    """Every model type of the table (all of transformers 5.23's), sorted."""
    return tuple(sorted(table()["model_types"]))


def rope_families() -> tuple[str, ...]:
    """The model types whose model has a rotary embedding, sorted."""
    entries = table()["model_types"]
    return tuple(mt for mt in sorted(entries) if entries[mt].get("rope"))


def layer_names() -> Mapping[str, str]:
    """Every layer name the generator knows and its kind before RoPE is decided
    (``{"full_attention": "attention", "mamba": "state_space", …}``)."""
    return table().get("layer_names", {})
