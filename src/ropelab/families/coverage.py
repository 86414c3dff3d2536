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
or time. Which layers call the rotary function (layer kinds) is not measured here yet.

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


def measure(model_types: Iterable[str] | None = None) -> dict[str, str]:
    """``{model_type: classification}`` for the given model types (all with RoPE if None)."""
    import torch
    import transformers

    transformers.logging.set_verbosity_error()
    torch.manual_seed(0)
    chosen = rope_families() if model_types is None else tuple(model_types)
    return {mt: classify(mt) for mt in sorted(chosen)}


def counts(record: Mapping[str, str]) -> dict[str, int]:
    """How many model types are in each class."""
    tally = collections.Counter(value.split(":")[0] for value in record.values())
    return {name: tally.get(name, 0) for name in _CLASSES}


def render(record: Mapping[str, str]) -> str:
    """The record as committed: the transformers release, the counts and each model type."""
    body = {"transformers": "5.23.0", "counts": counts(record), "model_types": dict(record)}
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
    if args.write:
        RECORD_PATH.write_text(render(record), encoding="utf-8")
        print(f"wrote {RECORD_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
