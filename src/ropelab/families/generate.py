"""Generate the family table: every transformers model type, whether it has RoPE, and the
defaults, keys and layer kinds that decide it (issue 38, the data behind the config decoder).

Run ``python -m ropelab.families.generate --write`` with the pinned transformers (5.23.0) to
rewrite ``transformers_5_23.json``; without ``--write`` it prints a summary and exits with
status 1 when the committed table differs from a fresh generation. transformers is imported
lazily, here only: reading the table (:mod:`ropelab.families`) never needs it.

How each entry is made:

* **RoPE or not** (``source: module-source``): the modeling files of the model type's
  package are parsed (:mod:`ast`, nothing executed); the model classes declared for the
  config class (``config: XConfig`` or ``config_class = XConfig``) are followed through the
  classes and functions they name, in that package. The model has RoPE when that reaches a
  class whose name ends with ``RotaryEmbedding`` or a function ``apply_rotary_pos_emb`` /
  ``rotate_half`` (or any name with ``rotary``). A composite config (``text_config`` etc.)
  has RoPE through a sub-config whose model type has it (``rope_via``).
* **Defaults** (``source: config-class``): the config class instantiated with its defaults;
  every field that decides RoPE (the fixed names of :data:`BASIC_FIELDS` and any key matching
  :data:`ROPE_KEY`), as given, floats as Python writes them.
* **Reads** (``source: module-source``): the ``config.<name>`` attributes (and
  ``getattr(config, "<name>")``) in the rotary classes and the attention classes that apply
  RoPE, found with a regular expression.
* **Layer kinds** (``source: config-class``, or ``hand`` where :data:`HAND` completes them):
  one of :data:`LAYER_KINDS` per layer of the default config, from ``layer_types`` and its
  spellings; ``null`` with a ``reason`` where they cannot be read mechanically.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from . import LAYER_KINDS, MAPPED_FIELDS

__all__ = [
    "ALIASES",
    "BASIC_FIELDS",
    "HAND",
    "INTERVAL_KEYS",
    "LAYER_KINDS",
    "MAPPED_FIELDS",
    "OFFSET_KEYS",
    "ROPE_KEY",
    "TABLE_PATH",
    "defaults",
    "generate",
    "main",
    "render",
]

#: The committed table.
TABLE_PATH = Path(__file__).with_name("transformers_5_23.json")
#: The transformers release the table is generated from.
PINNED = "5.23.0"

#: Fields recorded for every RoPE model type when the config has them.
BASIC_FIELDS = (
    *MAPPED_FIELDS,
    "sliding_window",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "global_head_dim",
)
#: Any other config key that decides RoPE: bases, partial rotation in any spelling, scaling,
#: layer patterns and markers of layers without RoPE.
ROPE_KEY = re.compile(
    r"rope|rotary|theta|base_freq|nope|partial|layer_types|block_type|override_pattern"
    r"|sliding_window_pattern|attention_interval|attn_layer|layer_period|layer_offset"
    r"|hybrid_layer|mamba_layer|linear_attn|full_attn|pos_emb|position_embedding_type"
    r"|use_rope|floor_scale|attn_scale|temperature_tuning|compress_ratio"
)

# Names in layer_types-like lists and the kind they give (before RoPE/NoPE is decided).
_KIND_OF_NAME = {
    "full_attention": "attention",
    "sliding_attention": "attention",
    "chunked_attention": "attention",
    "attention": "attention",
    "global": "attention",
    "local": "attention",
    "compressed_sparse_attention": "attention",
    "indexed_attention": "attention",
    "window_attention": "attention",
    "reference_sliding_attention": "attention",
    "heavily_compressed_attention": "attention",
    "hybrid": "attention",
    "linear_attention": "linear_attention",
    "mamba": "state_space",
    "mamba2": "state_space",
    "recurrent": "state_space",
    "conv": "no_attention",
    "mlp": "no_attention",
    "moe": "no_attention",
}
#: Family spellings of the rope fields and what each means to the reader
#: (:func:`ropelab.config_fields.normalize_config`). An entry records the spellings its
#: configuration or modeling files name (``aliases``).
ALIASES = {
    "rotary_pct": "partial_rotary_factor",
    "rotary_emb_base": "rope_theta",
    "rotary_embedding_base": "rope_theta",
    "rotary_dim": "rotary_dim",
    "rope_local_base_freq": "sliding_attention.rope_theta",
    "compress_rope_theta": "compress.rope_theta",
    "layer_rope_theta": "layer_rope_theta",
    "alpha": "ntk_alpha",
}
#: Where a spelling is searched: the configuration files, or (``alpha``, a key of the rope
#: dict) the modeling files' ``rope_parameters.get("alpha")`` / ``["alpha"]``.
_ALIAS_IN_MODELING = {"alpha": re.compile(r"rope_parameters(?:\.get\(|\[)\s*[\"']alpha[\"']")}
#: Keys that give a periodic layer pattern's interval (every n-th layer is the other type).
INTERVAL_KEYS = (
    "sliding_window_pattern",
    "_sliding_window_pattern",
    "full_attention_interval",
    "attn_layer_period",
)
#: Keys that give the first layer of the other type when it is not the n-th (Jamba's
#: ``attn_layer_offset``: attention where ``i % attn_layer_period == attn_layer_offset``).
OFFSET_KEYS = ("attn_layer_offset",)
# nemotron_h's hybrid_override_pattern letters.
_PATTERN_LETTER = {"M": "state_space", "*": "attention", "-": "no_attention", "E": "no_attention"}
_ROTARY_FUNCTIONS = re.compile(r"rotary|rotate_half")
_CONFIG_READ = re.compile(r"config\.(\w+)|getattr\(\s*(?:self\.)?config\s*,\s*[\"'](\w+)")
# Module-source markers of attention layers that may skip RoPE.
_NOPE_MARKER = re.compile(r"\b(use_rope|no_rope_layers|nope|use_rotary|skip_rope)\b", re.I)

#: Entries completed by hand: the layer kinds the modeling source decides in code the
#: generator does not read. Each gives the rule and where it is in transformers 5.23.
HAND: dict[str, dict[str, Any]] = {
    "cohere2": {
        "nope": "full_attention",
        "why": "Cohere2Attention applies RoPE only when sliding_window is set for the layer "
        "(modeling_cohere2.py): its full-attention layers use no positions",
    },
    "exaone4": {
        "nope": "full_attention",
        "when": "sliding_window",
        "why": "Exaone4Attention skips RoPE on full-attention layers when the config has a "
        "sliding window (is_sliding or sliding_window is None, modeling_exaone4.py)",
    },
    "zamba2": {
        "rope_switch": {"key": "use_mem_rope", "on": [True]},
        "why": "Zamba2's shared attention builds and applies its rotary embedding only when "
        "use_mem_rope is true (modeling_zamba2.py, Zamba2Attention and Zamba2Model); the "
        "class default is false",
    },
    "granitemoehybrid": {
        "rope_switch": {"key": "position_embedding_type", "on": ["rope"]},
        "why": "GraniteMoeHybridModel builds rotary_emb only when position_embedding_type is "
        "'rope' (modeling_granitemoehybrid.py); the class default is None",
    },
    "gemma3_text": {
        "defaults": {"head_dim": 256, "num_attention_heads": 8},
        "why": "the released Gemma 3 4B text_config lacks head_dim and num_attention_heads; "
        "transformers fills them from Gemma3TextConfig's defaults (256, 8), recorded here "
        "explicitly so the decoder can apply them (they equal the config class's defaults)",
    },
}


# ---------------------------------------------------------------------------------------------
# Values


def _plain(value: Any) -> Any:
    """``value`` as JSON: tuples as lists, mappings with string keys, other objects by name."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return type(value).__name__


def _field(value: Any, source: str, **extra: Any) -> dict[str, Any]:
    return {"value": _plain(value), "source": source, **extra}


# ---------------------------------------------------------------------------------------------
# Module source


class _Package:
    """The top-level classes and functions of a model package's modeling files."""

    def __init__(self, files: Iterable[Path]):
        self.source: dict[str, str] = {}
        self.names: dict[str, set[str]] = {}
        self.bases: dict[str, list[str]] = {}
        self.config_of: dict[str, set[str]] = {}
        for path in sorted(files):
            text = path.read_text(encoding="utf-8")
            lines = text.splitlines()
            tree = ast.parse(text)
            for node in tree.body:
                if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                    self._add(node, lines)

    def _add(self, node: ast.ClassDef | ast.FunctionDef, lines: list[str]) -> None:
        name = node.name
        self.source[name] = "\n".join(lines[node.lineno - 1 : node.end_lineno])
        used: set[str] = set()
        configs: set[str] = set()
        body = node.body
        for stmt in body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == "_init_weights":
                continue
            for sub in ast.walk(stmt):
                if isinstance(sub, ast.Name):
                    used.add(sub.id)
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                if stmt.target.id == "config" and isinstance(stmt.annotation, ast.Name):
                    configs.add(stmt.annotation.id)
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name):
                if any(isinstance(t, ast.Name) and t.id == "config_class" for t in stmt.targets):
                    configs.add(stmt.value.id)
            if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
                for arg in stmt.args.args:
                    if arg.arg == "config" and isinstance(arg.annotation, ast.Name):
                        configs.add(arg.annotation.id)
        self.names[name] = used
        self.config_of[name] = configs
        self.bases[name] = [
            b.id
            for b in getattr(node, "bases", [])
            if isinstance(b, ast.Name) and not b.id.endswith("PreTrainedModel")
        ]

    def reachable(self, roots: Iterable[str]) -> set[str]:
        seen: set[str] = set()
        todo = [r for r in roots if r in self.names]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            todo += [n for n in self.names[name] | set(self.bases[name]) if n in self.names]
        return seen

    def roots(self, config_class: str) -> list[str]:
        return sorted(n for n, c in self.config_of.items() if config_class in c)


@functools.cache
def _package(folder: Path) -> _Package:
    """The parsed modeling files of one model package (parsed once per run)."""
    return _Package(sorted(folder.glob("modeling_*.py")) if folder.is_dir() else [])


def _is_rotary(name: str) -> bool:
    return name.endswith("RotaryEmbedding") or bool(_ROTARY_FUNCTIONS.search(name.lower()))


def _reads(package: _Package, names: Iterable[str]) -> list[str]:
    keys: set[str] = set()
    for name in names:
        for match in _CONFIG_READ.finditer(package.source[name]):
            keys.add(match.group(1) or match.group(2))
    return sorted(keys)


# ---------------------------------------------------------------------------------------------
# Layer kinds


def _kinds_from_config(config: Any, n: int | None) -> tuple[list[str] | None, str, str]:
    """(kinds before RoPE is decided, the field they come from, reason if None)."""
    for key in ("layer_types", "layers_block_type", "block_types", "layers_block_types"):
        names = getattr(config, key, None)
        if isinstance(names, (list, tuple)) and names:
            names = [str(x) for x in names]
            if key == "block_types" and n is not None and len(names) < n:
                names = [names[i % len(names)] for i in range(n)]  # cycled (RecurrentGemma)
            unknown = sorted({x for x in names if x not in _KIND_OF_NAME})
            if unknown:
                return None, key, f"{key} names {unknown} of no known kind"
            return [_KIND_OF_NAME[x] for x in names], key, ""
    pattern = getattr(config, "hybrid_override_pattern", None)
    if isinstance(pattern, str) and pattern:
        unknown = sorted(set(pattern) - set(_PATTERN_LETTER))
        if unknown:
            return None, "hybrid_override_pattern", f"pattern letters {unknown} unknown"
        return [_PATTERN_LETTER[c] for c in pattern], "hybrid_override_pattern", ""
    if n is None:
        return None, "", "the config gives no num_hidden_layers"
    return ["attention"] * n, "num_hidden_layers", ""


def _aliases(folder: Path, config: Any = None) -> dict[str, str]:
    """The spellings of :data:`ALIASES` the model package names: a key read in its
    configuration files (``rotary_pct``, ``rope_local_base_freq``…), or a rope-dict key its
    modeling files read (``alpha``); and the config class's ``attribute_map`` spellings of
    :data:`MAPPED_FIELDS` (``kv_channels`` for ``head_dim``)."""
    config_text = "\n".join(
        p.read_text(encoding="utf-8") for p in sorted(folder.glob("configuration_*.py"))
    )
    modeling_text = "\n".join(
        p.read_text(encoding="utf-8") for p in sorted(folder.glob("modeling_*.py"))
    )
    out = {}
    for spelling, meaning in ALIASES.items():
        pattern = _ALIAS_IN_MODELING.get(spelling)
        found = (
            pattern.search(modeling_text)
            if pattern is not None
            else re.search(rf"\b{spelling}\b", config_text)
        )
        if found:
            out[spelling] = meaning
    mapped = getattr(type(config), "attribute_map", None) or {}
    for meaning, spelling in sorted(mapped.items()):
        if meaning in MAPPED_FIELDS and isinstance(spelling, str) and spelling != meaning:
            out[spelling] = meaning
    return out


def _interval(names: list[str]) -> tuple[int, str, str, int] | None:
    """``(n, every, other, offset)`` when layer ``i`` is ``every`` exactly where
    ``i % n == offset`` and ``other`` elsewhere (Gemma 3's 5 sliding : 1 full and Qwen3-Next's
    3 linear : 1 full, offset n - 1; Jamba's attention at 4, 12, 20…, offset 4 of 8)."""
    kinds = sorted(set(names))
    if len(kinds) != 2:
        return None
    for every in kinds:
        other = kinds[0] if every == kinds[1] else kinds[1]
        positions = [i for i, x in enumerate(names) if x == every]
        if len(positions) > 1:
            n, offset = positions[1] - positions[0], positions[0]
        else:
            n, offset = positions[0] + 1, positions[0]
        if (
            n > 1
            and offset < n
            and all((x == every) == (i % n == offset) for i, x in enumerate(names))
        ):
            return n, every, other, offset
    return None


def _probe_types(config_class: type, n: int, **extra: Any) -> list[str] | None:
    """The ``layer_types`` the config class computes for ``n`` layers (None if it fails)."""
    try:
        types = getattr(config_class(num_hidden_layers=n, **extra), "layer_types", None)
    except Exception:
        return None
    return [str(t) for t in types] if types else None


def _interval_rule(config_class: type, found: tuple[int, str, str, int]) -> dict[str, Any]:
    """The interval rule of a class whose default ``layer_types`` is periodic, the keys it
    reads found by trying them: a key is listed only where setting it changes the class's
    ``layer_types`` (Gemma 3n reads none, Cohere 2 reads ``sliding_window_pattern`` from its
    kwargs, Gemma 3 stores ``_sliding_window_pattern`` but ignores it as an argument), and
    ``last`` where the class makes the last layer ``every`` whatever the interval (Gemma 4)."""
    period, every, other, offset = found
    n = 4 * period + 1
    plain = _probe_types(config_class, n)
    keys = [
        k
        for k in INTERVAL_KEYS
        if plain is not None
        and _probe_types(config_class, n, **{k: period + 1}) not in (None, plain)
    ]
    rule: dict[str, Any] = {"default": period, "every": every, "else": other, "keys": keys}
    if offset != period - 1:  # else the n-th layer: (i + 1) % n == 0
        moved = (offset + 1) % period
        rule["offset"] = {
            "default": offset,
            "keys": [
                k
                for k in OFFSET_KEYS
                if plain is not None
                and _probe_types(config_class, n, **{k: moved}) not in (None, plain)
            ],
        }
    probed = [(c, _probe_types(config_class, c)) for c in range(1, 3 * period + 1)]
    probed = [(c, types) for c, types in probed if types is not None]
    rebuilt = {c: [every if i % period == offset else other for i in range(c)] for c, _ in probed}
    if any(types != rebuilt[c] for c, types in probed) and all(
        types == [*rebuilt[c][:-1], every] for c, types in probed
    ):
        rule["last"] = every
    return rule


_STATE_SPACE_CLASS = re.compile(r"Mamba|Mixer$|Rglru|RgLru|RGLRU|Recurrent(Block|Layer)$|SSM")


def _layer_rule(model_type: str, config: Any, package: _Package) -> dict[str, Any] | None:
    """How the reader finds each layer's kind in a user's config (stored as ``layer_rule``):
    the field it reads and its names' kinds, the interval that rebuilds ``layer_types`` when
    a config omits it, the per-layer NoPE markers, and the hand rule of :data:`HAND`.
    transformers 5.23 names Mamba and recurrent blocks ``linear_attention`` in
    ``layer_types``: where the package defines such a block (a class matching
    ``Mamba``, ``…Mixer``, ``Rglru``, ``RecurrentBlock``, ``SSM``), that name reads as ``state_space``."""
    n = getattr(config, "num_hidden_layers", None)
    if not isinstance(n, int) or _sub_configs(config):
        return None
    kinds, key, _ = _kinds_from_config(config, n)
    if kinds is None:
        return None
    field = key.split(" ")[0]
    rule: dict[str, Any] = {"field": field}
    if field == "hybrid_override_pattern":
        rule["names"] = dict(_PATTERN_LETTER)
    elif field != "num_hidden_layers":
        names = [str(x) for x in getattr(config, field)]
        rule["names"] = {x: _KIND_OF_NAME[x] for x in sorted(set(names))}
        if len(set(rule["names"].values())) > 1:
            rule["pattern"] = names  # the class's default, for configs giving no field
        if rule["names"].get("linear_attention") and any(
            _STATE_SPACE_CLASS.search(name) for name in package.names
        ):
            rule["names"]["linear_attention"] = "state_space"
        found = _interval(names) if field == "layer_types" else None
        if found is not None:
            rule["interval"] = _interval_rule(type(config), found)
    values = config.to_dict()
    if "attn_layer_indices" in values and field in ("layer_types", "layers_block_type"):
        # Bamba: the attention layers are listed by index, the rest are Mamba blocks
        probe = [
            str(x)
            for x in getattr(type(config)(num_hidden_layers=4, attn_layer_indices=[1]), field)
        ]
        rule["indices"] = {
            "key": "attn_layer_indices",
            "default": _plain(values["attn_layer_indices"]),
            "every": probe[1],
            "else": probe[0],
        }
        rule.setdefault("names", {}).setdefault(probe[1], _KIND_OF_NAME[probe[1]])
    layers = values.get("num_layers")
    if "num_hidden_layers" not in values and isinstance(layers, int) and layers > 0:
        # LongCat-Flash: num_hidden_layers is a property, num_layers times a whole number
        if n % layers == 0:
            rule["count"] = {"key": "num_layers", "times": n // layers}
    bases = getattr(config, "layer_rope_theta", None)
    flags = getattr(config, "no_rope_layers", None)
    if isinstance(bases, (list, tuple)):
        rule["nope"] = "layer_rope_theta"
    elif isinstance(flags, (list, tuple)):
        rule["nope"] = "no_rope_layers"
        interval = getattr(config, "no_rope_layer_interval", None)
        if isinstance(interval, int):
            rule["nope_interval"] = {"default": interval, "key": "no_rope_layer_interval"}
    hand = HAND.get(model_type, {})
    if "nope" in hand:
        rule["nope_layer_type"] = {"layer_type": hand["nope"], "when": hand.get("when")}
    if "rope_switch" in hand:
        switch = hand["rope_switch"]
        rule["rope_switch"] = {**switch, "default": _plain(getattr(config, switch["key"], None))}
    return rule


def _layer_kinds(model_type: str, config: Any, package: _Package, used: set[str]) -> dict[str, Any]:
    n = getattr(config, "num_hidden_layers", None)
    n = n if isinstance(n, int) else None
    subs = _sub_configs(config)
    if n is None and subs:
        return {
            "layer_kinds": None,
            "reason": "composite config: the layers are those of its sub-configs "
            + ", ".join(f"{k} ({v})" for k, v in subs.items()),
        }
    kinds, key, reason = _kinds_from_config(config, n)
    if kinds is None:
        return {"layer_kinds": None, "reason": reason}
    if "linear_attention" in kinds and any(_STATE_SPACE_CLASS.search(x) for x in package.names):
        # transformers names Mamba blocks linear_attention; the package says which they are
        kinds = ["state_space" if k == "linear_attention" else k for k in kinds]
    source = "config-class"
    nope_flags = getattr(config, "no_rope_layers", None)
    attention_rope = ["rope" if k == "attention" else k for k in kinds]
    out: dict[str, Any] = {}
    bases = getattr(config, "layer_rope_theta", None)
    if isinstance(bases, (list, tuple)) and len(bases) == len(kinds):
        # a per-layer base of 0 marks a layer without RoPE
        attention_rope = [
            ("nope" if base == 0 else "rope") if k == "rope" else k
            for k, base in zip(attention_rope, bases, strict=True)
        ]
        key += " + layer_rope_theta (0: no RoPE)"
    elif isinstance(nope_flags, (list, tuple)) and len(nope_flags) == len(kinds):
        attention_rope = [
            ("rope" if use else "nope") if k == "rope" else k
            for k, use in zip(attention_rope, nope_flags, strict=True)
        ]
        key += " + no_rope_layers"
    elif model_type in HAND and "nope" in HAND[model_type]:
        rule = HAND[model_type]
        names = list(getattr(config, "layer_types", None) or [])
        active = "when" not in rule or getattr(config, rule["when"], None) is not None
        if active and len(names) == len(kinds):
            attention_rope = [
                "nope" if k == "rope" and t == rule["nope"] else k
                for k, t in zip(attention_rope, names, strict=True)
            ]
        source = "hand"
        out["hand"] = rule["why"]
    elif model_type in HAND and "rope_switch" in HAND[model_type]:
        rule = HAND[model_type]
        switch = rule["rope_switch"]
        if getattr(config, switch["key"], None) not in switch["on"]:
            attention_rope = ["nope" if k == "rope" else k for k in attention_rope]
        source = "hand"
        out["hand"] = rule["why"]
    else:
        markers = sorted(
            {
                m.group(1).lower()
                for name in used
                for m in _NOPE_MARKER.finditer(package.source[name])
            }
        )
        if markers:
            return {
                "layer_kinds": None,
                "reason": f"the modeling source decides RoPE per layer ({', '.join(markers)}); "
                "not read mechanically",
            }
    out.update(
        {"layer_kinds": attention_rope, "layer_kinds_from": key, "layer_kinds_source": source}
    )
    return out


# ---------------------------------------------------------------------------------------------
# The table


def _transformers() -> Any:
    import transformers  # lazy: only the generator and the coverage measurement need it

    return transformers


def quiet_transformers(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` with transformers' log at errors only while it runs, then the caller's
    level again (a test after it may expect a warning)."""

    @functools.wraps(function)
    def quiet(*args: Any, **kwargs: Any) -> Any:
        logging = _transformers().logging
        level = logging.get_verbosity()
        logging.set_verbosity_error()
        try:
            return function(*args, **kwargs)
        finally:
            logging.set_verbosity(level)

    return quiet


def _sub_configs(config: Any) -> dict[str, str]:
    from transformers import PretrainedConfig

    out = {}
    for key, value in vars(config).items():
        if isinstance(value, PretrainedConfig):
            out[key] = str(value.model_type)
    return dict(sorted(out.items()))


def _defaults(config: Any) -> dict[str, Any]:
    values = config.to_dict()
    out: dict[str, Any] = {}
    for key in sorted(values):
        if key in BASIC_FIELDS or ROPE_KEY.search(key):
            if isinstance(values[key], Mapping) and "model_type" in values[key]:
                continue  # a sub-config
            out[key] = _field(values[key], "config-class")
    if "head_dim" not in out or out["head_dim"]["value"] is None:
        hidden = values.get("hidden_size")
        heads = values.get("num_attention_heads")
        if isinstance(hidden, int) and isinstance(heads, int) and heads:
            out["head_dim"] = _field(
                hidden // heads, "config-class", derived="hidden_size // num_attention_heads"
            )
    return out


def _with_hand(model_type: str, fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` with the hand-completed defaults of :data:`HAND` (the class's value kept
    beside each as ``config_class``)."""
    head = fields.get("head_dim")
    if head is not None and "derived" not in head:
        # a head size the class computes from hidden_size // num_attention_heads in its
        # __post_init__ (Mistral's) is derived, not fixed (Gemma 3's 256): doubling
        # hidden_size tells them apart
        from transformers.models.auto.configuration_auto import CONFIG_MAPPING

        hidden = fields.get("hidden_size", {}).get("value")
        try:
            wider = CONFIG_MAPPING[model_type](hidden_size=2 * hidden).head_dim
        except Exception:
            wider = head["value"]
        if isinstance(hidden, int) and wider != head["value"]:
            head["derived"] = "hidden_size // num_attention_heads"
    hand = HAND.get(model_type, {})
    for key, value in hand.get("defaults", {}).items():
        given = fields.get(key, {}).get("value")
        fields[key] = _field(value, "hand", why=hand["why"], config_class=given)
    return fields


@quiet_transformers
def defaults(model_type: str) -> dict[str, Any]:
    """The ``defaults`` entry of one model type, from its config class only (no modeling
    source is read): what the table test recomputes for every model type with RoPE."""
    _transformers()
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    return _with_hand(model_type, _defaults(CONFIG_MAPPING[model_type]()))


def _entry(model_type: str, config_class: str, module: str, root: Path) -> dict[str, Any]:
    transformers = _transformers()
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    entry: dict[str, Any] = {"config_class": config_class, "module": module}
    package = _package(root / module)
    roots = package.roots(config_class)
    used = package.reachable(roots)
    rotary = sorted(n for n in used if _is_rotary(n))
    try:
        config = CONFIG_MAPPING[model_type]()
    except Exception as error:  # a config class without usable defaults
        entry.update(rope=bool(rotary), config_error=f"{type(error).__name__}: {error}"[:200])
        return entry
    subs = _sub_configs(config)
    if subs:
        entry["sub_configs"] = subs
    entry["rope"] = bool(rotary)
    rule = _layer_rule(model_type, config, package)
    if rule is not None:
        entry["layer_rule"] = rule
    if not rotary:
        return entry
    entry["aliases"] = _aliases(root / module, config)
    del transformers
    entry["rotary"] = _field(rotary, "module-source", model_classes=roots)
    attention = sorted(
        n
        for n in used
        if n.endswith("Attention")
        and re.search(r"apply_rotary|rotary|position_embeddings", package.source[n])
    )
    entry["reads"] = _field(
        _reads(package, [n for n in rotary if n in package.source] + attention), "module-source"
    )
    entry["defaults"] = _with_hand(model_type, _defaults(config))
    entry.update(_layer_kinds(model_type, config, package, used))
    return entry


@quiet_transformers
def generate(model_types: Iterable[str] | None = None) -> dict[str, Any]:
    """The table, fresh from the installed transformers (which must be the pinned release).

    ``model_types``: a subset (all of transformers' model types when None).
    """
    transformers = _transformers()
    from transformers.models.auto.configuration_auto import (
        CONFIG_MAPPING_NAMES,
        model_type_to_module_name,
    )

    if transformers.__version__ != PINNED:
        raise RuntimeError(f"the table is generated from transformers {PINNED}")
    root = Path(transformers.__file__).parent / "models"
    chosen = sorted(CONFIG_MAPPING_NAMES if model_types is None else model_types)
    entries = {
        mt: _entry(mt, CONFIG_MAPPING_NAMES[mt], model_type_to_module_name(mt), root)
        for mt in chosen
    }
    # Composite configs have RoPE through a sub-config that has it.
    for entry in entries.values():
        via = [
            f"{key}: {sub}"
            for key, sub in entry.get("sub_configs", {}).items()
            if entries.get(sub, {}).get("rope")
        ]
        if via and not entry["rope"]:
            entry["rope"] = True
            entry["rope_via"] = _field(via, "config-class")
    return {
        "transformers": PINNED,
        "generated_by": "python -m ropelab.families.generate --write",
        "layer_kinds": list(LAYER_KINDS),
        "layer_names": dict(sorted(_KIND_OF_NAME.items())),
        "model_types": entries,
    }


def _dump(value: Any, indent: str) -> str:
    if isinstance(value, Mapping) and value:
        inner = indent + " "
        items = [f"{inner}{json.dumps(str(k))}: {_dump(value[k], inner)}" for k in sorted(value)]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(v, (Mapping, list)) for v in value):
        inner = indent + " "
        return "[\n" + ",\n".join(inner + _dump(v, inner) for v in value) + "\n" + indent + "]"
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def render(table: Mapping[str, Any]) -> str:
    """The table as committed: sorted keys, one-space indent, lists of numbers or strings on
    one line, a final newline (``json.loads`` reads it back as it was)."""
    return _dump(table, "") + "\n"


def main(argv: list[str] | None = None) -> int:
    """Print a summary; ``--write`` rewrites the committed table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the committed table")
    args = parser.parse_args(argv)
    table = generate()
    text = render(table)
    entries = table["model_types"]
    rope = [mt for mt, e in entries.items() if e.get("rope")]
    unread = [mt for mt in rope if "defaults" in entries[mt] and entries[mt]["layer_kinds"] is None]
    print(f"transformers {PINNED}: {len(entries)} model types, {len(rope)} with RoPE")
    print(f"layer kinds not read mechanically: {len(unread)}")
    if args.write:
        TABLE_PATH.write_text(text, encoding="utf-8")
        print(f"wrote {TABLE_PATH}")
        return 0
    current = TABLE_PATH.read_text(encoding="utf-8") if TABLE_PATH.exists() else ""
    if current != text:
        print("the committed table differs from a fresh generation; run with --write")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
