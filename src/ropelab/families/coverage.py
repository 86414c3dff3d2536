"""How much of transformers the config decoder gets right: every model type with RoPE,
measured (issue 38).

For each model type the table (:mod:`ropelab.families`) marks as having RoPE, the config
class is built with its defaults (for a composite config, the sub-config that brings RoPE),
the model's rotary embedding classes are built from it, as the model builds them, on CPU,
and their buffers are read: ``inv_freq`` per layer type (``<layer_type>_inv_freq`` in
multi-type modules) and the attention scaling on cos and sin. The same config, as
``config.to_dict()``, goes through :func:`ropelab.config_fields.normalize_config` and
:func:`ropelab.rope_config.frequencies_from_config`; the two are compared and the model type
is classified:

* ``matches``: every rotary layer type has the decoder's frequencies (relative error at most
  :data:`RTOL`, transformers computing in float32) and attention factor;
* ``differs: <what>``;
* ``decoder raises: <message>``;
* ``cannot instantiate on CPU: <reason>`` (no rotary class built from the config, or its
  construction fails).

Only the rotary modules are built, not the whole model: they are what the model builds from
the same config, and a whole model at its default size would not fit this machine's memory
or time. Which layers call the rotary function is measured on tiny models
(:func:`layer_calls`: at most 8 layers keeping the pattern, hidden size 64, one forward pass
of 5 tokens, the modeling module's ``apply_rotary…`` function counted per decoder layer) for
every text model whose layers are not all attention with RoPE, and a few controls
(``layer_calls`` in the record); the generic tiny sizes (:data:`_TINY`) are completed per
model type where a family's constraints need it (:data:`_TINY_FAMILY`: MoE groups, MLA,
Mamba heads, indexers), and encoders of images, audio or video are not measured. A
non-match carries ``; reason: …`` (:data:`REASONS`).

Run ``python -m ropelab.families.coverage --write`` to rewrite ``coverage_5_23.json``.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import inspect
import json
import re
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from . import family, rope_families
from .generate import quiet_transformers

__all__ = ["RECORD_PATH", "RTOL", "classify", "counts", "main", "measure", "render"]

#: The committed record.
RECORD_PATH = Path(__file__).with_name("coverage_5_23.json")
#: Relative tolerance on the frequencies (transformers computes them in float32).
RTOL = 1e-6
_CLASSES = ("matches", "differs", "decoder raises", "cannot instantiate on CPU")

#: Why a model type does not match, by its measured failure (first pattern that matches
#: ``"<class>: <what>"``, or the model type itself): genuine limitations, in plain words.
REASONS: tuple[tuple[str, str], ...] = (
    (
        r"got 'axial'",
        "vision encoder: 2-D axial rope over image patches, outside a text decoder's config",
    ),
    (
        r"no rotary class is built from the config",
        "rotary embedding built from explicit dimensions, no config fields to decode",
    ),
    (
        r"no inv_freq buffer",
        "vision encoder: its rotary module keeps no inv_freq buffer (2-D frequencies over "
        "image patches, computed on the fly)",
    ),
    (
        r"^cannot instantiate on CPU: (.*)$",
        "transformers 5.23 cannot build its rotary module from the default config on CPU: \\1",
    ),
    (
        r"rotary dimension int\(.*\) = (\d+) must be a positive even",
        "the config class's defaults give an odd rotary dimension (\\1 = hidden_size // "
        "num_attention_heads, times the partial factor); transformers builds ceil(d/2) "
        "frequencies over it, the decoder rejects it (released configs give an even head_dim)",
    ),
    (
        r"partial_rotary_factor must be in \(0, 1\], got",
        "image matcher: partial_rotary_factor is a multiplier of 2-D positional features, "
        "not a fraction of an attention head",
    ),
)
#: Config classes of encoders whose rope is not a text decoder's (vision, audio, video,
#: speech): their configs give no text decoder's head fields.
_ENCODER_CLASS = re.compile(
    r"Vision|Audio|Video|Vit|Image|Encoder|Speech|Transcribe|Diarization|Ctc|Token2Wav|Sam\d"
    r"|Dinov",
    re.I,
)
_ENCODER_REASON = (
    "encoder of images, audio or video ({config_class}): its rope is built from patch or "
    "frame sizes, not from a text decoder's head fields"
)


def _short(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}".splitlines()[0]
    return re.sub(r"0x[0-9a-f]+", "0x…", text)[:160]


def _rope_subconfigs(model_type: str) -> list[str]:
    """The sub-config keys that bring RoPE, ``text_config`` first."""
    rule = family(model_type)
    assert rule is not None
    keys = [
        key
        for key, sub in rule.sub_configs.items()
        if (sub_rule := family(sub)) is not None and sub_rule.rope
    ]
    return sorted(keys, key=lambda k: (k != "text_config", k))


def _rope_configs(model_type: str) -> tuple[Any, list[Any]]:
    """(the config as the decoder reads it, the configs to try building the rotary module
    from: the config itself, then its sub-configs with RoPE), with the class defaults."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    config = CONFIG_MAPPING[model_type]()
    return config, [config] + [getattr(config, k) for k in _rope_subconfigs(model_type)]


def _rotary_classes(model_type: str) -> list[type]:
    """The rotary embedding classes of a model type whose constructor takes a config (its
    sub-configs' where it has none of its own)."""
    rule = family(model_type)
    assert rule is not None
    if not any(name.endswith("RotaryEmbedding") for name in rule.rotary):
        subs = _rope_subconfigs(model_type)
        return _rotary_classes(rule.sub_configs[subs[0]]) if subs else []
    import transformers

    folder = Path(transformers.__file__).parent / "models" / rule.module
    out = []
    for path in sorted(folder.glob("modeling_*.py")):
        module = importlib.import_module(f"transformers.models.{rule.module}.{path.stem}")
        for name in rule.rotary:
            cls = getattr(module, name, None)
            if inspect.isclass(cls) and "config" in inspect.signature(cls.__init__).parameters:
                out.append(cls)
    return out


def _buffers(module: Any) -> dict[str, tuple[np.ndarray, float]]:
    """``{layer_type or "all": (inv_freq, attention scaling)}`` of a built rotary module."""
    out = {}
    for name, buffer in module.named_buffers(recurse=False):
        if not name.endswith("inv_freq") or "original" in name:
            continue
        prefix = name[: -len("inv_freq")].rstrip("_")
        scaling = getattr(
            module, f"{prefix}_attention_scaling" if prefix else "attention_scaling", 1.0
        )
        out[prefix or "all"] = (buffer.detach().double().numpy(), float(scaling))
    return out


def _rel_err(ours: np.ndarray, theirs: np.ndarray) -> float:
    return float(np.max(np.abs(ours - theirs) / np.maximum(np.abs(theirs), 1e-30), initial=0.0))


def _compare(hf: Mapping[str, tuple[np.ndarray, float]], ours: Mapping[str, Any]) -> str:
    reordered = False
    if set(hf) != set(ours) and not (len(hf) == 1 and len(ours) == 1):
        return f"differs: layer types {sorted(ours)} (transformers: {sorted(hf)})"
    pairs = [(next(iter(hf)), next(iter(ours)))] if len(hf) == 1 else [(k, k) for k in sorted(hf)]
    for theirs, mine in pairs:
        inv, scaling = hf[theirs]
        our_inv, our_scaling = ours[mine]
        where = "" if theirs == "all" else f" ({theirs})"
        if inv.shape != our_inv.shape:
            return f"differs: rotated dims {2 * our_inv.size} (transformers: {2 * inv.size}){where}"
        err = _rel_err(our_inv, inv)
        if err > RTOL and _rel_err(np.sort(our_inv), np.sort(inv)) <= RTOL:
            reordered = True
        elif err > RTOL:
            return f"differs: inv_freq, relative error {err:.1e}{where}"
        if abs(our_scaling - scaling) > 1e-6 * max(1.0, abs(scaling)):
            return (
                f"differs: attention factor {our_scaling:.6g} (transformers: {scaling:.6g}){where}"
            )
    if reordered:
        return (
            "matches: the same frequencies, reordered in the buffer (a multimodal rope's "
            "per-axis layout)"
        )
    return "matches"


def reason(model_type: str, measured: str) -> str | None:
    """Why a model type does not match: :data:`REASONS` by the measured failure, else an
    encoder's config class (:data:`_ENCODER_CLASS`) when the decoder finds no head fields;
    None when nothing explains it."""
    for pattern, words in REASONS:
        found = re.search(pattern, measured)
        if found:
            return found.expand(words)
    rule = family(model_type)
    if rule is not None and _ENCODER_CLASS.search(rule.config_class):
        return _ENCODER_REASON.format(config_class=rule.config_class)
    if rule is not None and "config must give head_dim" in measured:
        if len(rule.sub_configs) > 1 and "text_config" not in rule.sub_configs:
            keys = ", ".join(rule.sub_configs)
            return (
                f"composite of several models ({keys}) without a text_config: no one text "
                "decoder's config to read"
            )
    return None


def classify(model_type: str) -> str:
    """Measure one model type: ``"matches"`` or ``"<class>: <what>"``, a non-match followed
    by ``"; reason: <why>"`` when :func:`reason` explains it."""
    measured = _classify(model_type)
    if measured.startswith("matches"):
        return measured
    why = reason(model_type, measured)
    return measured if why is None else f"{measured}; reason: {why}"


def _classify(model_type: str) -> str:
    from ..config_fields import _text_config, normalize_config
    from ..rope_config import frequencies_from_config

    try:
        config, candidates = _rope_configs(model_type)
        _, key = _text_config(config.to_dict())
        sub = family(model_type).sub_configs.get(key) if key else None  # type: ignore[union-attr]
        classes = _rotary_classes(sub) if sub else []
        if classes:  # the decoder reads this sub-config: measure its rotary classes
            candidates = [getattr(config, key)]
        else:
            classes = _rotary_classes(model_type)
            if sub:
                candidates = [getattr(config, key), *candidates]
    except Exception as error:
        return f"cannot instantiate on CPU: {_short(error)}"
    if not classes:
        return "cannot instantiate on CPU: no rotary class is built from the config"
    hf: dict[str, tuple[np.ndarray, float]] = {}
    failures = []
    for cls in classes:
        for candidate in candidates:
            try:
                hf = _buffers(cls(config=candidate))
            except Exception as error:
                failures.append(f"{cls.__name__}: {_short(error)}")
                continue
            if hf:
                break
        if hf:
            break
    if not hf:
        reason = failures[0] if failures else "no inv_freq buffer in " + classes[0].__name__
        return f"cannot instantiate on CPU: {reason}"
    try:
        fields = normalize_config(config.to_dict())
        ours = {entry.layer_type: frequencies_from_config(entry.config) for entry in fields.layers}
    except Exception as error:
        return f"decoder raises: {_short(error)}"
    if not fields.layers and fields.layer_kinds:
        kinds = sorted(set(fields.layer_kinds))
        return (
            "matches: no layer of the default config applies RoPE "
            f"({', '.join(kinds)}; the rotary class is built for another part)"
        )
    return _compare(hf, ours)


@quiet_transformers
def measure(model_types: Iterable[str] | None = None) -> dict[str, str]:
    """``{model_type: classification}`` for the given model types (all with RoPE if None)."""
    import torch

    torch.manual_seed(0)
    chosen = rope_families() if model_types is None else tuple(model_types)
    return {mt: classify(mt) for mt in sorted(chosen)}


#: Plain models whose layers all rotate, measured as controls of the layer calls.
CONTROLS = ("llama", "qwen2", "mistral", "gemma3_text", "phi3", "deepseek_v3")
#: The sizes of a tiny model (only the keys its config class has are set).
_TINY = {
    "hidden_size": 64,
    "intermediate_size": 64,
    "moe_intermediate_size": 32,
    "shared_expert_intermediate_size": 32,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "vocab_size": 128,
    "num_experts": 4,
    "num_local_experts": 4,
    "n_routed_experts": 4,
    "num_experts_per_tok": 2,
    "n_shared_experts": 1,
    "max_position_embeddings": 256,
    "kv_lora_rank": 16,
    "q_lora_rank": 16,
    "qk_rope_head_dim": 8,
    "qk_nope_head_dim": 8,
    "v_head_dim": 16,
    "linear_num_key_heads": 2,
    "linear_num_value_heads": 4,
    "linear_key_head_dim": 16,
    "linear_value_head_dim": 16,
    "mamba_d_state": 8,
    "mamba_n_heads": 4,
    "mamba_d_head": 32,
    "mamba_headdim": 16,
    "n_mamba_heads": 4,
    "lru_width": 64,
    "global_head_dim": 32,
}
#: Sizes of a tiny model per model type, over :data:`_TINY`, where the generic sizes break a
#: constraint of the family's config class or modeling code (transformers 5.23). Each entry
#: keeps the family's pattern of layers; only sizes (and, where the default stack has no
#: layer of a kind, the list of layer types) change.
_TINY_FAMILY: dict[str, dict[str, Any]] = {
    # Group-limited MoE router (DeepseekV3TopkRouter): the 4 tiny experts are viewed as
    # n_group groups of num_experts // n_group, so n_group (default 8) must divide 4 and
    # topk_group must not exceed it. MLA sizes come from _TINY (16 + 8 = 24-wide q/k heads).
    "deepseek_v3": {"n_group": 1, "topk_group": 1},
    # The same router (BailingHybridMoeGate, default n_group 8), MLA full-attention layers
    # and KDA linear-attention layers (head_dim is replaced by qk_rope_head_dim in the class);
    # its to_dict spells the router's top-k num_experts_per_token (an attribute_map alias),
    # so _TINY's num_experts_per_tok is not applied: 8 of 4 experts.
    "bailing_hybrid": {"n_group": 1, "topk_group": 1, "num_experts_per_tok": 2},
    # MLA with key/value latents expanded to every query head: the attention takes
    # num_key_value_heads == num_attention_heads (the class default, 64 == 64); the DSA
    # indexer's heads and top-k sized to the tiny model and its 5 tokens.
    "mistral_large4_text": {
        "num_key_value_heads": 4,
        "index_n_heads": 2,
        "index_head_dim": 16,
        "index_topk": 4,
    },
    # The QSA indexer of the indexed-attention layers has no default sizes (all None: the
    # default config cannot build a model); the class requires them together, positive,
    # indexer_kv_heads == 1, indexer_budget divisible by indexer_compress_ratio, and the
    # rotary dimension (head_dim 16) within indexer_head_dim.
    "qwen4_exp_text": {
        "indexer_n_heads": 2,
        "indexer_kv_heads": 1,
        "indexer_head_dim": 16,
        "indexer_budget": 4,
        "indexer_compress_ratio": 2,
    },
    # Mamba2 blocks: mamba_headdim = mamba_expand * hidden_size // n_mamba_heads (2 * 64 / 4;
    # the class computes it, _TINY's 16 would override it); the shared attention block works
    # on 2 * hidden_size with num_key_value_heads == num_attention_heads (the class default).
    "zamba2": {"mamba_headdim": 32, "num_key_value_heads": 4},
    # Mamba2 blocks (sizes from _TINY: mamba_d_head 32 = mamba_expand * hidden_size //
    # mamba_n_heads, as the class checks). The default stack is Mamba only, which transformers
    # cannot run (its cache has no attention layer to give the sequence length), so the tiny
    # model interleaves attention as the released Granite 4.0-H does (every 4th layer here).
    "granitemoehybrid": {
        "mamba_chunk_size": 8,
        "shared_intermediate_size": 32,
        "layer_types": ["linear_attention"] * 3 + ["full_attention"] + ["linear_attention"] * 4,
    },
    # Bamba: the same (its default attn_layer_indices is None: Mamba only, which transformers
    # cannot run); one attention layer by index, as its released configs list them.
    "bamba": {"mamba_chunk_size": 8, "attn_layer_indices": [3]},
}


def _tiny_config(model_type: str, settings: Mapping[str, Any] | None = None) -> Any:
    """The default config made tiny: small sizes, at most 8 layers (more where needed to keep
    every kind of layer), per-layer lists cut to match; ``settings`` last."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    base = CONFIG_MAPPING[model_type]()
    values = base.to_dict()
    n = values.get("num_hidden_layers")
    if not isinstance(n, int):
        raise ValueError("the config gives no num_hidden_layers")
    lists = {k: v for k, v in values.items() if isinstance(v, list) and len(v) == n}
    kinds = lists.get("layer_types") or lists.get("layers_block_type") or [None] * n
    small = min(n, 8)
    while small < n and set(kinds[:small]) != set(kinds):
        small += 1
    overrides: dict[str, Any] = {k: v for k, v in _TINY.items() if k in values}
    overrides["num_hidden_layers"] = small
    overrides.update({k: v[:small] for k, v in lists.items()})
    for key in ("hybrid_layer_ids",):
        if isinstance(values.get(key), list):
            overrides[key] = [i for i in values[key] if i < small]
    if "qk_rope_head_dim" in values:
        overrides.pop("head_dim", None)  # MLA: the head is qk_nope + qk_rope
    overrides.update(_TINY_FAMILY.get(model_type, {}))
    overrides.update(settings or {})
    pad = values.get("pad_token_id")
    if "vocab_size" in overrides and isinstance(pad, int):
        overrides["vocab_size"] = max(overrides["vocab_size"], pad + 1)
    return CONFIG_MAPPING[model_type](**overrides)


def _decoder_layers(model: Any, n: int) -> list[Any]:
    """The model's list of decoder layers: the first ModuleList of ``n`` modules."""
    import torch

    for _, module in model.named_modules():
        if isinstance(module, torch.nn.ModuleList) and len(module) == n:
            return list(module)
    raise ValueError(f"no list of {n} decoder layers in {type(model).__name__}")


def layer_calls(model_type: str, settings: Mapping[str, Any] | None = None) -> str:
    """Which layers call the rotary function, measured on a tiny model and compared with the
    decoder's layer kinds: ``"matches: …"``, ``"differs: …"`` or ``"cannot build a tiny
    model: <reason>"``. The modeling module's ``apply_rotary_pos_emb`` (and any other rotary
    function the table lists) is wrapped; each call is counted for the decoder layer running.
    ``settings`` are config keys set on the tiny model (a family's switch, e.g. Zamba2's
    ``use_mem_rope``)."""
    import torch
    from transformers import AutoModel

    from ..config_fields import normalize_config

    rule = family(model_type)
    assert rule is not None
    try:
        config = _tiny_config(model_type, settings)
        torch.manual_seed(0)
        model = AutoModel.from_config(config).eval()
        n = config.num_hidden_layers
        layers = _decoder_layers(model, n)
    except Exception as error:
        return f"cannot build a tiny model: {_short(error)}"
    module = importlib.import_module(type(model).__module__)
    names = [x for x in rule.rotary if "apply_rotary" in x and callable(getattr(module, x, None))]
    if not names:
        return "cannot build a tiny model: no apply_rotary function in " + module.__name__
    current: list[int | None] = [None]
    calls = [0] * n
    originals = {name: getattr(module, name) for name in names}

    def wrap(function: Any) -> Any:
        def counted(*args: Any, **kwargs: Any) -> Any:
            if current[0] is not None:
                calls[current[0]] += 1
            return function(*args, **kwargs)

        return counted

    handles = []
    for i, layer in enumerate(layers):
        handles.append(
            layer.register_forward_pre_hook(lambda _m, _a, i=i: current.__setitem__(0, i))
        )
        handles.append(layer.register_forward_hook(lambda _m, _a, _o: current.__setitem__(0, None)))
    try:
        for name, function in originals.items():
            setattr(module, name, wrap(function))
        ids = torch.arange(1, 6).reshape(1, 5) % config.vocab_size
        with torch.no_grad():
            model(input_ids=ids)
    except Exception as error:
        return f"cannot build a tiny model: forward pass fails: {_short(error)}"
    finally:
        for name, function in originals.items():
            setattr(module, name, function)
        for handle in handles:
            handle.remove()
    fields = normalize_config(config.to_dict())
    ours = list(fields.layer_kinds) or ["rope"] * n
    theirs = ["rope" if c else "-" for c in calls]
    mine = ["rope" if k == "rope" else "-" for k in ours]
    if mine != theirs:
        return (
            f"differs: layers calling the rotary function {[i for i, c in enumerate(calls) if c]}"
            f" (decoder: {[i for i, k in enumerate(ours) if k == 'rope']})"
        )
    rotated = sum(1 for c in calls if c)
    return f"matches: {rotated} of {n} layers call {'/'.join(names)}"


def layer_call_types() -> tuple[str, ...]:
    """The model types whose layer calls are measured: every text model (no sub-configs)
    whose default config the decoder reads with a layer that is not attention with RoPE,
    and the :data:`CONTROLS`. Encoders of images, audio or video (their config class named
    as :data:`_ENCODER_CLASS` says, e.g. ``Lfm3VlVisionConfig``) are not measured: their
    layers take patches or frames, not tokens, and their rope is outside a text decoder's
    config (``model_types`` gives each one's reason)."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    from ..config_fields import normalize_config

    chosen = set(CONTROLS)
    for model_type in rope_families():
        rule = family(model_type)
        if rule is None or rule.sub_configs or _ENCODER_CLASS.search(rule.config_class):
            continue
        try:
            kinds = normalize_config(CONFIG_MAPPING[model_type]().to_dict()).layer_kinds
        except Exception:
            continue
        if kinds:
            chosen.add(model_type)
    return tuple(sorted(chosen))


#: The layer calls measured once more with a family's RoPE switch turned on (the table's
#: ``layer_rule.rope_switch``): keyed ``"<model_type> <key>=<value>"``.
SWITCHED_ON = {
    "zamba2 use_mem_rope=true": ("zamba2", {"use_mem_rope": True}),
    "granitemoehybrid position_embedding_type=rope": (
        "granitemoehybrid",
        {"position_embedding_type": "rope"},
    ),
}


@quiet_transformers
def measure_layer_calls(model_types: Iterable[str] | None = None) -> dict[str, str]:
    """``{model_type: layer_calls(model_type)}`` (:func:`layer_call_types` and the
    :data:`SWITCHED_ON` variants if None; a name of :data:`SWITCHED_ON` measures its
    variant)."""
    chosen = (*layer_call_types(), *SWITCHED_ON) if model_types is None else tuple(model_types)
    return {
        name: layer_calls(*SWITCHED_ON[name]) if name in SWITCHED_ON else layer_calls(name)
        for name in sorted(chosen)
    }


def counts(record: Mapping[str, str]) -> dict[str, int]:
    """How many model types are in each class."""
    tally = collections.Counter(value.split(":")[0] for value in record.values())
    return {name: tally.get(name, 0) for name in _CLASSES}


def render(record: Mapping[str, str], calls: Mapping[str, str] | None = None) -> str:
    """The record as committed: the transformers release, the counts, each model type and
    the layer calls (:func:`measure_layer_calls`)."""
    body = {"transformers": "5.23.0", "counts": counts(record), "model_types": dict(record)}
    if calls is not None:
        body["layer_calls"] = dict(calls)
    return json.dumps(body, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Measure every model type with RoPE, print the counts; ``--write`` the record."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the committed record")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    record = measure()
    print(json.dumps(counts(record)), f"({time.perf_counter() - start:.0f} s)")
    reasons = collections.Counter(
        re.sub(r"\d[\d.e+-]*", "#", v) for v in record.values() if v != "matches"
    )
    for reason, n in reasons.most_common(10):
        print(f"{n:4d}  {reason}")
    calls = measure_layer_calls()
    print(
        sum(v.startswith("matches") for v in calls.values()), "of", len(calls), "layer calls match"
    )
    if args.write:
        RECORD_PATH.write_text(render(record, calls), encoding="utf-8")
        print(f"wrote {RECORD_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
