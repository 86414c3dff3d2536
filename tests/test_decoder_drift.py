"""The browser's config decoder (ropelab-decoder.js) computes what ropelab.decoder computes.

Node runs the script's ``decodeText`` on the text of every shipped config and of 300 seeded
random configs (model families drawn from the family table, both spellings, every rope type,
partial rotation, the families' own spellings (aliases), layer intervals, NoPE flags, legacy
keys, and broken values), and on every model type's default config (the family table's
class defaults with the model type, as the browser's injected table must read them); each
record must equal Python's
``decode_text``: every count, string and flag exactly, every real number to 1e-9 relative,
every warning code, every GGUF key. A config Python cannot read, the script cannot read
either, and both messages name the same field.

The page shows each record in its language (``view``): on a Chinese page every label and
sentence is Chinese and the numbers are those of the English view, written the same way.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import math
import re
import shutil
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ropelab import config_fields, decoder, describe, engines, gguf_meta
from ropelab.config_fields import normalize_config
from ropelab.configs import load_config, shipped_configs
from ropelab.decoder import decode_text
from ropelab.explorables import decoder_script_path
from ropelab.families import MAPPED_FIELDS, family
from ropelab.families import families as table_families
from ropelab.rope_config import ROPE_TYPES, RopeSpec, RopeType

NODE = shutil.which("node")
DRIFT_JS = Path(__file__).parent / "js" / "decoder_drift.js"
RANDOM_CONFIGS = 300
pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")

#: What Python's record holds that the page does not recompute: the text report (Python's
#: str(describe_config)) and the notes on how the spelling was read.
PYTHON_ONLY = ("report", "notes")


def run_node(texts: list[str]) -> list[dict[str, Any]]:
    request = json.dumps({"script": str(decoder_script_path()), "texts": texts})
    done = subprocess.run(
        [NODE, str(DRIFT_JS)], input=request, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def assert_same(py: Any, js: Any, where: str = "") -> None:
    if isinstance(py, dict):
        assert isinstance(js, dict), where
        keys = set(py) - set(PYTHON_ONLY)
        assert keys == set(js) - set(PYTHON_ONLY), (where, keys ^ set(js))
        for key in keys:
            assert_same(py[key], js[key], f"{where}.{key}")
    elif isinstance(py, list | tuple):
        assert isinstance(js, list) and len(py) == len(js), (where, py, js)
        for i, (a, b) in enumerate(zip(py, js, strict=True)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(py, bool) or py is None or isinstance(py, str):
        assert py == js, (where, py, js)
    else:
        assert isinstance(js, int | float) and not isinstance(js, bool), (where, py, js)
        assert math.isclose(py, js, rel_tol=1e-9, abs_tol=1e-300), (where, py, js)


def field_of(message: str) -> str | None:
    """The first field a message names: rope_scaling['x'] or a bare key name."""
    match = re.search(r"\['(\w+)'\]", message) or re.match(r"(\w+)", message)
    return match.group(1) if match else None


def compare(text: str, py: dict, js: dict) -> None:
    if "error" in py:
        assert "error" in js, (text, py["error"], js)
        if not py["error"].startswith(("not JSON", "the text must")):
            assert field_of(py["error"]) == field_of(js["error"]), (text, py, js)
        return
    assert "error" not in js, (text, js)
    assert_same(py, js)


#: The modules whose code tells model families apart (by comparing ``model_type``).
FAMILY_MODULES = (config_fields, decoder, describe, engines, gguf_meta)


def _strings(node: ast.AST, module: Any) -> set[str]:
    """The strings a comparison's operand names: literals, or a module table's entries."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return {s for item in node.elts for s in _strings(item, module)}
    if isinstance(node, ast.Name) and isinstance(
        table := getattr(module, node.id, None), tuple | list | set | frozenset | dict
    ):
        return {key for key in table if isinstance(key, str)}
    return set()


def known_families() -> list[str]:
    """Every model family the decoder knows, read off its code, not written here.

    The model types its modules compare ``model_type`` with (literals and the tables they
    name, ``startswith`` prefixes such as Gemma 4's ``"gemma4"``), llama.cpp's architecture
    table (:data:`ropelab.gguf_meta.ARCHITECTURES`), the shipped configs' model types, and
    ``"unknown"`` (what a config without one reads as).
    """
    families = {"unknown", *gguf_meta.ARCHITECTURES}
    for name in shipped_configs():
        families.add(normalize_config(load_config(name)).model_type)
    for module in FAMILY_MODULES:
        source = inspect.getsource(module)
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                texts = [ast.get_source_segment(source, x) or "" for x in operands]
                if any("model_type" in text for text in texts):
                    for operand, text in zip(operands, texts, strict=True):
                        if "model_type" not in text:
                            families |= _strings(operand, module)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "startswith"
                and "model_type" in (ast.get_source_segment(source, node.func.value) or "")
            ):
                families |= {s for arg in node.args for s in _strings(arg, module)}
    return sorted(families)


def _special(model_type: str) -> bool:
    """A family the table reads in its own way: spellings of its own, a named rule, a layer
    interval, pattern or NoPE rule, or blocks other than attention."""
    rule = family(model_type)
    assert rule is not None
    layer_rule = rule.layer_rule or {}
    odd_names = any(v != "attention" for v in layer_rule.get("names", {}).values())
    odd_field = layer_rule.get("field") not in (None, "layer_types", "num_hidden_layers")
    return bool(
        rule.aliases
        or model_type in config_fields.RULES
        or {"interval", "pattern", "nope_interval", "nope_layer_type", "rope_switch"}
        & set(layer_rule)
        or (rule.rope and (odd_names or odd_field))
    )


#: The model types of the family table whose model has a rotary embedding (those without
#: are read by :func:`test_every_model_type_of_the_table_decodes_as_python_does`).
TABLE_FAMILIES = [mt for mt in table_families() if family(mt).rope]  # type: ignore[union-attr]
#: The families read in their own way (table: :func:`_special`; code: :func:`known_families`):
#: dealt first, so that 300 configs draw each of them.
SPECIAL_FAMILIES = sorted({mt for mt in TABLE_FAMILIES if _special(mt)} | set(known_families()))
FAMILIES = sorted(set(TABLE_FAMILIES) | set(SPECIAL_FAMILIES))
ROPE_TYPE_NAMES = sorted(ROPE_TYPES)
#: Values a reader might write for a rope key (keys of no list here: a rule by the key's type
#: in RopeSpec, so that a new record's keys get values too).
KEY_VALUES: dict[str, list[Any]] = {
    "beta_fast": [32.0, 16.0, 1.0],
    "beta_slow": [1.0, 2.0],
    "truncate": [True, False],
    "mscale": [1.0, 0.707],
    "mscale_all_dim": [1.0, 0.707],
    "attention_factor": [1.0, 1.2],
    "low_freq_factor": [1.0],
    "high_freq_factor": [1.0, 4.0],
    "partial_rotary_factor": [0.25, 0.5, 1.0],
}
SPEC_TYPES = typing.get_type_hints(RopeSpec)


def key_value(key: str, planes: int, pick: Any) -> Any:
    """A value for a rope key: its list above, else by its type in RopeSpec (a per-plane
    list, a flag or a number)."""
    if key in KEY_VALUES:
        return pick(KEY_VALUES[key])
    kind = str(SPEC_TYPES.get(key, float))
    if "tuple" in kind:  # one number per plane (LongRoPE's factors)
        step = float(pick([0.0, 0.5]))
        return [round(1 + i * step, 3) for i in range(planes)]
    if "bool" in kind:
        return bool(pick([True, False]))
    return float(pick([1.0, 2.0]))


def rope_dict(record: RopeType, planes: int, rng: np.random.Generator, pick: Any) -> dict:
    """A rope dict of ``record``'s type from the record's own data: its factor rule, its
    original length, its required keys, and sometimes its optional and described keys."""
    rope: dict[str, Any] = {"rope_type": record.name}
    if record.factor == "required" or (record.factor is not None and rng.random() < 0.8):
        rope["factor"] = float(pick([1.0, 2.0, 4.0, 8.0, 32.0]))
    elif record.factor == "nullable":
        rope["factor"] = None  # null: max / original length
    if record.original_length and rng.random() < 0.8:
        rope["original_max_position_embeddings"] = int(pick([2048, 4096, 8192]))
    for key in record.required:
        rope[key] = key_value(key, planes, pick)
    extra = [*record.optional, *(shown.key for shown in record.described)]
    for key in dict.fromkeys(extra):
        if key not in rope and rng.random() < 0.35:
            rope[key] = key_value(key, planes, pick)
    return rope


def random_config(
    rng: np.random.Generator, model_type: str | None = None, kind: str | None = None
) -> dict[str, Any]:
    """A config as a reader might paste it: mostly valid, sometimes not. ``model_type`` and
    ``kind`` (a rope type) are drawn from :data:`FAMILIES` and :data:`ROPE_TYPES` if not given."""
    pick = lambda options: options[int(rng.integers(len(options)))]  # noqa: E731
    model_type = pick(FAMILIES) if model_type is None else model_type
    kind = pick(ROPE_TYPE_NAMES) if kind is None else kind
    layers = int(pick([4, 8, 12, 24]))
    heads = int(pick([4, 8, 16]))
    head = int(pick([32, 64, 96, 128, 256]))
    config: dict[str, Any] = {
        "model_type": model_type,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "max_position_embeddings": int(pick([2048, 4096, 32768, 131072])),
    }
    if rng.random() < 0.7:
        config["head_dim"] = head
    else:
        config["hidden_size"] = head * heads
    if rng.random() < 0.3:
        config["partial_rotary_factor"] = float(pick([0.25, 0.5, 0.75, 1.0]))
    base = float(pick([10000.0, 500000.0, 1e6, 5e6]))
    planes = int(head * config.get("partial_rotary_factor", 1.0)) // 2
    rope = rope_dict(ROPE_TYPES[kind], planes, rng, pick)
    if model_type in ("deepseek_v2", "deepseek_v3", "kimi_k2"):
        config["qk_rope_head_dim"], config["qk_nope_head_dim"] = 64, 128
    if model_type == "deepseek_v4" and rng.random() < 0.5:
        config["compress_rope_theta"] = 160000.0
    if model_type in ("qwen3", "unknown") and rng.random() < 0.7:
        rope["mrope_section"] = [16, 8, 8]  # Qwen2-VL / Qwen3-VL sections
        if rng.random() < 0.5:
            rope["mrope_interleaved"] = True
        if kind == "default" and rng.random() < 0.3:
            rope["rope_type"] = "mrope"  # the legacy name, read as default
    if model_type.startswith("gemma3") and rng.random() < 0.5:
        config["rope_local_base_freq"] = 10000.0
    if model_type == "llama4_text" and rng.random() < 0.5:
        config["attn_temperature_tuning"] = pick([4, True, False, None])
    if model_type == "phi3" and kind == "longrope" and rng.random() < 0.5:
        rope["rope_type"] = "su"  # Phi-3's first release
    if model_type in ("smollm3", "llama4_text") and rng.random() < 0.5:
        config["no_rope_layers"] = [int((i + 1) % 4 != 0) for i in range(layers)]
    if model_type in ("cohere2", "exaone4", "olmo3") and rng.random() < 0.7:
        config["sliding_window"] = 4096
    table_spellings(config, model_type, rng, pick, layers, head)
    spelling = rng.random()
    if model_type.startswith("gemma4"):  # nested per layer type, as Gemma 4 ships
        config["rope_parameters"] = {
            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
            "full_attention": dict(rope, rope_theta=base),
        }
    elif spelling < 0.5:  # transformers 4: rope_theta at the top, rope_scaling
        config["rope_theta"] = base
        if kind != "default":
            legacy = dict(rope)
            if rng.random() < 0.3:
                legacy["type"] = legacy.pop("rope_type")
            config["rope_scaling"] = legacy
    else:  # transformers 5
        config["rope_parameters"] = dict(rope, rope_theta=base)
    broken = rng.random()
    rope_keys = config.get("rope_scaling") or config.get("rope_parameters") or {}
    rope_keys = rope_keys.get("full_attention", rope_keys)
    if broken < 0.04:
        config["head_dim"] = 63
    elif broken < 0.08:
        config["rope_theta"] = -1.0
    elif broken < 0.12 and ROPE_TYPES[kind].factor == "required":
        rope_keys.pop("factor", None)
    elif broken < 0.15:
        config["max_position_embeddings"] = 1.5
    return config


def table_spellings(
    config: dict[str, Any],
    model_type: str,
    rng: np.random.Generator,
    pick: Any,
    layers: int,
    head: int,
) -> None:
    """The table's own readings, sometimes: each alias of the family under its spelling, the
    layer interval's and the NoPE interval's keys, the key a family's layer names sit under."""
    rule = family(model_type)
    if rule is None:
        return
    values = {
        "rope_theta": lambda: float(pick([10000.0, 1e6])),
        "partial_rotary_factor": lambda: float(pick([0.25, 0.5])),
        "rotary_dim": lambda: int(pick([head // 2, head // 4, 16])),
        "sliding_attention.rope_theta": lambda: float(pick([10000.0, 50000.0])),
        "compress.rope_theta": lambda: 160000.0,
        "layer_rope_theta": lambda: [
            float(pick([0.0, 10000.0, 1e6])) if rng.random() < 0.5 else 10000.0
            for _ in range(layers)
        ],
    }
    for spelling, meaning in rule.aliases.items():
        if rng.random() < 0.5 and meaning in values:
            config[spelling] = values[meaning]()
        elif meaning == "ntk_alpha" and rng.random() < 0.5:
            config["rope_scaling"] = {"type": "dynamic", "alpha": float(pick([1000.0, 50.0]))}
            config["rope_theta"] = 10000.0
    for spelling, meaning in rule.aliases.items():  # attribute_map spellings (MAPPED_FIELDS)
        if meaning in MAPPED_FIELDS and meaning in config and rng.random() < 0.5:
            config[spelling] = config.pop(meaning)
    layer_rule = rule.layer_rule or {}
    interval = layer_rule.get("interval") or {}
    # the interval's and its offset's keys, under the table's exact spellings
    if interval.get("keys") and rng.random() < 0.5:
        config[pick(interval["keys"])] = int(pick([2, 3, 4]))
    if (interval.get("offset") or {}).get("keys") and rng.random() < 0.5:
        config[pick(interval["offset"]["keys"])] = int(pick([0, 1, 3]))
    if layer_rule.get("nope_interval") and rng.random() < 0.5:
        config[layer_rule["nope_interval"]["key"]] = int(pick([2, 4]))
    field = layer_rule.get("field")
    names = sorted(layer_rule.get("names", {}))
    if field not in (None, "num_hidden_layers") and len(names) > 1 and rng.random() < 0.75:
        config[field] = [pick(names) for _ in range(layers)]
    switch = layer_rule.get("rope_switch")
    if switch and rng.random() < 0.75:  # on, or another value (the class's default)
        config[switch["key"]] = pick([*switch["on"], switch["default"]])
    if rule.defaults.get("qk_rope_head_dim") is not None and rng.random() < 0.5:
        config["qk_rope_head_dim"] = int(pick([0, 32, 64]))
        config["qk_nope_head_dim"] = 128


def random_configs(count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` random configs; the families (the special ones first) and rope types are
    dealt in shuffled rounds, so that every special family and every rope type is drawn once
    ``count`` reaches their number, and the other table families fill the rest."""
    rng = np.random.default_rng(seed)
    rest = sorted(set(FAMILIES) - set(SPECIAL_FAMILIES))
    families = [SPECIAL_FAMILIES[i] for i in rng.permutation(len(SPECIAL_FAMILIES))]
    families += [rest[i] for i in rng.permutation(len(rest))]
    kinds = [ROPE_TYPE_NAMES[i] for i in rng.permutation(len(ROPE_TYPE_NAMES))]
    return [
        random_config(rng, families[i % len(families)], kinds[i % len(kinds)]) for i in range(count)
    ]


def cases() -> list[str]:
    texts = [json.dumps(load_config(name)) for name in shipped_configs()]
    texts += [json.dumps(config) for config in random_configs(RANDOM_CONFIGS, 20260)]
    texts += [
        '{"hidden_size": ',
        "[1, 2, 3]",
        '{"model_type": "<img src=x onerror=alert(1)>", "head_dim": 64}',
        '{"head_dim": 64, "rope_scaling": {"rope_type": "linear"}}',
        '{"head_dim": 64, "rope_scaling": {"rope_type": "nope"}}',
    ]
    texts += [json.dumps(config) for config in FEATURE_CONFIGS]
    return texts


#: Configs of each reading issue 38 added (config_fields): an encoder-decoder's decoder
#: sub-config, attribute_map spellings, an MLA partial factor on the whole head, rope dicts of
#: absent layer types, an interval offset (0 too) and the last-layer override; and two
#: configs that divided by zero (and a family's RoPE switch, first): a rotary_dim alias on an MLA head without rotated part (an
#: error naming rotary_dim) and NTK-alpha on a 2-wide head (an error naming head_dim).
FEATURE_CONFIGS: list[dict[str, Any]] = [
    # attention layers listed by index (Bamba), the layer count from num_layers (LongCat)
    {"model_type": "bamba", "head_dim": 64, "num_hidden_layers": 8, "attn_layer_indices": [1, 5]},
    {"model_type": "bamba", "head_dim": 64, "num_hidden_layers": 4},
    {"model_type": "longcat_flash", "num_layers": 3, "head_dim": 64},
    # a family's RoPE switch (the table's rope_switch): off by default, on, Python's 1 == True
    {"model_type": "zamba2", "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 8},
    {
        "model_type": "zamba2",
        "hidden_size": 256,
        "num_attention_heads": 4,
        "num_hidden_layers": 8,
        "use_mem_rope": True,
    },
    {
        "model_type": "zamba2",
        "hidden_size": 256,
        "num_attention_heads": 4,
        "num_hidden_layers": 8,
        "use_mem_rope": 1,
    },
    {
        "model_type": "zamba2",
        "hidden_size": 256,
        "num_attention_heads": 4,
        "num_hidden_layers": 8,
        "use_mem_rope": None,
    },
    {
        "model_type": "granitemoehybrid",
        "head_dim": 64,
        "num_hidden_layers": 4,
        "position_embedding_type": "nope",
    },
    {
        "model_type": "granitemoehybrid",
        "head_dim": 64,
        "num_hidden_layers": 4,
        "layer_types": ["mamba", "mamba", "mamba", "attention"],
        "position_embedding_type": "rope",
    },
    {
        "model_type": "t5gemma2",
        "decoder": {"num_hidden_layers": 7, "head_dim": 64, "num_attention_heads": 4},
    },
    {"model_type": "t5gemma", "decoder": {"num_hidden_layers": 4, "head_dim": 64}},
    {"model_type": "dbrx", "d_model": 1536, "n_heads": 12, "n_layers": 4},
    {"model_type": "jetmoe", "kv_channels": 96, "num_attention_heads": 8},
    {
        "model_type": "mistral4",
        "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 64,
        "num_hidden_layers": 4,
        "rope_parameters": {"rope_theta": 1e4, "partial_rotary_factor": 0.5},
    },
    {
        "model_type": "mellum",
        "num_hidden_layers": 4,
        "head_dim": 64,
        "layer_types": ["full_attention"] * 4,
        "rope_parameters": {
            "full_attention": {"rope_type": "default", "rope_theta": 1e6},
            "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
        },
    },
    *(
        {
            "model_type": "jamba",
            "num_hidden_layers": 9,
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "attn_layer_period": 4,
            "attn_layer_offset": offset,
        }
        for offset in (0, 1, 3)
    ),
    {"model_type": "gemma4_text", "num_hidden_layers": 7, "head_dim": 64},
    {"model_type": "embedding_gemma2_text", "num_hidden_layers": 5, "sliding_window_pattern": 2},
    {
        "model_type": "codegen",
        "qk_rope_head_dim": 0,
        "rotary_dim": 64,
        "head_dim": 128,
        "num_hidden_layers": 4,
    },
    {  # HunYuan's NTK-alpha on a 2-wide head: alpha ** (d / (d - 2)), an error naming head_dim
        "model_type": "hunyuan_v1_dense",
        "head_dim": 2,
        "num_hidden_layers": 2,
        "rope_theta": 1e4,
        "rope_scaling": {"type": "dynamic", "alpha": 50.0},
    },
]


def test_the_script_decodes_every_config_as_python_does():
    texts = cases()
    results = run_node(texts)
    decoded = errors = 0
    for text, js in zip(texts, results, strict=True):
        py = decode_text(text)
        compare(text, py, js)
        errors += "error" in py
        decoded += "error" not in py
    assert decoded >= 250 and errors >= 10  # the seeded mix exercises both
    kinds = {layer["rope_type"] for r in results if "layers" in r for layer in r["layers"]}
    assert kinds == set(ROPE_TYPES)  # every record's type is decoded by both


def default_configs(model_type: str) -> list[dict[str, Any]]:
    """A model type's default config, three times: every class default of the family table
    (as the table records transformers' config class) with its ``model_type``; only the
    model type, its layer count, hidden size and heads (the table's, else 8 layers, 1024
    and 16), so that the head size (fixed or derived), the base and the layer pattern must
    come from the table the browser carries; and only the model type and its layer count,
    so that the heads come from the table too (the GGUF keys included: the converter reads
    the class's defaults through AutoConfig)."""
    rule = family(model_type)
    assert rule is not None
    full = {"model_type": model_type, **json.loads(json.dumps(dict(rule.defaults)))}
    generic = {
        "num_hidden_layers": len(rule.layer_kinds or ()) or 8,
        "hidden_size": 1024,
        "num_attention_heads": 16,
    }
    bare = {"model_type": model_type}
    for key, fallback in generic.items():
        value = rule.defaults.get(key)
        bare[key] = fallback if value is None else value
    sparse = {"model_type": model_type, "num_hidden_layers": bare["num_hidden_layers"]}
    return [full, bare, sparse]


def test_every_model_type_of_the_table_decodes_as_python_does():
    """Every model type of the family table (all of transformers 5.23's), read from its
    default config, gives the same record in the browser (identical errors where Python
    cannot read it): the injected table is the one Python reads."""
    types = table_families()
    texts = [json.dumps(c) for mt in types for c in default_configs(mt)]
    results = run_node(texts)
    decoded, hybrid = 0, set()
    for text, js in zip(texts, results, strict=True):
        py = decode_text(text)
        if "error" in py:
            assert js == py, (text, py, js)
            continue
        compare(text, py, js)
        decoded += 1
        if set(py["layer_kinds"]) - {"rope"}:
            hybrid.add(py["model_type"])
    assert len(types) > 800 and decoded >= 1000
    assert {"qwen3_next", "jamba", "llama4_text", "cohere2", "bert"} <= hybrid


def test_a_perturbed_formula_is_caught(tmp_path):
    """Planting a 1e-7 relative error in the YaRN ramp makes the comparison fail."""
    source = decoder_script_path().read_text(encoding="utf-8")
    planted = source.replace(
        "(1 - w[i]) * t + w[i] * (t / spec.factor)",
        "(1 - w[i]) * t + w[i] * (t / spec.factor) * (1 + 1e-7)",
    )
    assert planted != source
    copy = tmp_path / "ropelab-decoder.js"
    copy.write_text(planted, encoding="utf-8")
    (tmp_path / "ropelab-explore.js").write_text(
        (decoder_script_path().parent / "ropelab-explore.js").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    text = json.dumps(load_config("qwen2.5-7b-instruct-yarn"))
    request = json.dumps({"script": str(copy), "texts": [text]})
    done = subprocess.run(
        [NODE, str(DRIFT_JS)], input=request, capture_output=True, text=True, check=True
    )
    with pytest.raises(AssertionError):
        compare(text, decode_text(text), json.loads(done.stdout)[0])


CJK = re.compile(r"[\u3400-\u9fff]")
NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)*(?:e[-+]\d+)?")


def view_strings(view: Any) -> list[str]:
    """Every string of a view, in order (the numbers are written into them)."""
    if isinstance(view, str):
        return [view]
    if isinstance(view, dict):
        return [s for key in sorted(view) for s in view_strings(view[key])]
    if isinstance(view, list):
        return [s for item in view for s in view_strings(item)]
    return [json.dumps(view)]


def run_views(script: Path, texts: list[str]) -> list[list[Any]]:
    request = json.dumps({"script": str(script), "texts": texts, "views": True})
    done = subprocess.run(
        [NODE, str(DRIFT_JS)], input=request, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def view_problems(views: list[list[Any]], texts: list[str]) -> list[str]:
    problems = []
    for text, (english, chinese) in zip(texts, views, strict=True):
        en, zh = view_strings(english), view_strings(chinese)
        if sorted(NUMBER.findall(" ".join(en))) != sorted(NUMBER.findall(" ".join(zh))):
            problems.append(f"{text[:80]}: numbers differ\n{en}\n{zh}")
        elif set(english) != set(chinese) or not CJK.search(" ".join(zh)):
            problems.append(f"{text[:80]}: the Chinese view is not a translation\n{zh}")
    return problems


def test_the_view_reads_the_same_numbers_in_both_languages():
    texts = cases()
    views = run_views(decoder_script_path(), texts)
    assert view_problems(views, texts) == []
    decoded = [v for v, t in zip(views, texts, strict=True) if "error" not in v[0]]
    assert len(decoded) >= 250
    # the fixed words of a Chinese page are Chinese; the names from the config are kept
    english, chinese = decoded[0]
    assert english["title"] == chinese["title"]
    assert all(CJK.search(name) for name, _ in chinese["layers"][0]["rows"][:10])
    assert [v for _, v in english["layers"][0]["rows"][:10]] == [
        v for _, v in chinese["layers"][0]["rows"][:10]
    ]


def test_a_chinese_view_with_another_number_is_caught(tmp_path):
    source = decoder_script_path().read_text(encoding="utf-8")
    before = "`${n0(b.bound)} 个 token（d_extra = ${b.critical_dim}）`"
    assert source.count(before) == 1
    planted = source.replace(before, "`${n0(b.bound)} 个 token`")
    copy = tmp_path / "ropelab-decoder.js"
    copy.write_text(planted, encoding="utf-8")
    (tmp_path / "ropelab-explore.js").write_text(
        (decoder_script_path().parent / "ropelab-explore.js").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    texts = [json.dumps(load_config(name)) for name in shipped_configs()]
    problems = view_problems(run_views(copy, texts), texts)
    assert problems and all("numbers differ" in p for p in problems)


def test_the_random_configs_sample_every_rope_type_and_family():
    """The generator draws from the code's own tables: every record of ROPE_TYPES and every
    family the decoder's modules tell apart (Gemma 4 and DeepSeek-V4 among them) is drawn and
    decoded at least once, and a record planted into ROPE_TYPES gets configs too."""
    assert {"gemma4", "deepseek_v4", "llama4_text", "phi3", "unknown"} <= set(FAMILIES)
    assert {"qwen3_next", "hunyuan_v1_dense", "granite_swa", "bamba"} <= set(SPECIAL_FAMILIES)
    assert set(TABLE_FAMILIES) <= set(FAMILIES) and len(TABLE_FAMILIES) > 300
    configs = random_configs(RANDOM_CONFIGS, 20260)
    drawn = {c["model_type"] for c in configs}
    assert set(SPECIAL_FAMILIES) <= drawn and drawn <= set(FAMILIES)
    assert len(drawn - set(SPECIAL_FAMILIES)) >= RANDOM_CONFIGS - len(SPECIAL_FAMILIES)
    records = [decode_text(json.dumps(c)) for c in configs]
    decoded = [r for r in records if "error" not in r]
    kinds = {layer["rope_type"] for r in decoded for layer in r["layers"]}
    assert kinds == set(ROPE_TYPES)
    layer_kinds = {k for r in decoded for k in r["layer_kinds"]}
    assert {"nope", "state_space", "linear_attention"} <= layer_kinds


def test_a_planted_record_is_sampled(monkeypatch):
    planted = dataclasses.replace(ROPE_TYPES["llama3"], name="planted")
    monkeypatch.setitem(ROPE_TYPES, "planted", planted)
    monkeypatch.setattr(sys.modules[__name__], "ROPE_TYPE_NAMES", sorted(ROPE_TYPES))
    configs = random_configs(60, 1)
    rope = [c.get("rope_parameters") or c.get("rope_scaling") or {} for c in configs]
    rope = [r.get("full_attention", r) for r in rope]
    drawn = [r for r in rope if r.get("rope_type", r.get("type")) == "planted"]
    assert drawn
    assert all({"low_freq_factor", "high_freq_factor"} <= set(r) for r in drawn)
    assert any(decode_text(json.dumps(c)).get("layers") for c in configs if "planted" in str(c))
