r"""The bundler of the browser's two scripts: ``js/`` → ``ropelab-explore.js``, ``ropelab-decoder.js``.

The sources live in ``js/`` next to this file, one job a file (issue 37):

* ``js/core/``: what both scripts share: the rope mathematics, Python's number formats, the
  two languages, the controls, the SVG layer and the registry the figures register in;
* ``js/figures/<kind>.js``: one explorable each (its data, readouts in both languages from
  one ``facts(data)``, drawing, and its ``register`` call);
* ``js/mount/``: the script's API and the mounting on a page;
* ``js/decoder/``: the config decoder of chapter 8A, which reads the core from the explore
  script (``window.ropelabExplore.core``; in Node ``require('./ropelab-explore.js')``).

The bundler joins them, in the fixed order of the lists below, into two classic scripts
(no ES modules: a page read from disk and a self-contained notebook output must work). The
explore script is one IIFE whose top level holds the core and mount parts; each figure sits
in a block of its own, ``(function () { … })();``, so its helpers stay private. A name
defined twice at the top level of the core and mount parts, a figure's (or a decoder part's)
top-level name that shadows a core name, and two decoder parts defining one name are
rejected with a :class:`ValueError` naming both files. The decoder gets the rope types of
:data:`ropelab.rope_config.ROPE_TYPES` as a JSON table, written at build time, with the other
Python data its readers need: the legacy rope-type names
(:data:`ropelab.config_fields.LEGACY_TYPE_NAMES`), the types with an original length as
:func:`ropelab.config_fields.normalize_config` lists them, and the GGUF rope key names
(:data:`ropelab.gguf_meta.ROPE_KEYS`), and the family table the config reader reads
(:func:`family_table`: of :mod:`ropelab.families`' table, the fields
:func:`ropelab.config_fields.normalize_config` reads, one line a model type; the layer names'
kinds; the named rules of :data:`ropelab.config_fields.RULES`, each of which ``decoder/rules.js``
must define in its ``RULE_CODE`` table; the fields a family's alias may stand for,
:data:`ropelab.families.MAPPED_FIELDS`; the decoder sub-config keys read without a
``text_config``).

``python -m ropelab.explorables.bundle --write`` writes both scripts next to this file;
``--check`` fails (exit status 1) when a written script differs from the bundle. The scripts
are generated, never committed (``.gitignore``); :func:`ropelab.explorables.script_path`
writes them when they are missing or stale.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "DECODER_PARTS",
    "EXPLORE_CORE",
    "EXPLORE_TAIL",
    "FIGURES",
    "JS_DIR",
    "bundle_decoder",
    "bundle_explore",
    "core_names",
    "decoder_script_text",
    "explore_script_text",
    "family_table",
    "main",
    "rope_types_table",
    "top_level_names",
]

#: The sources' folder.
JS_DIR = Path(__file__).resolve().parent / "js"

GENERATED = (
    "// Generated from src/ropelab/explorables/js/ by ropelab.explorables.bundle: do not edit.\n"
    "// Edit the parts in js/, then run `python -m ropelab.explorables.bundle --write`.\n"
)

#: The explore script's doc comment, written above its IIFE.
EXPLORE_HEADER = "core/header.js"

#: The first core part: strict mode and the once-per-page guard; its names (``inBrowser``) are
#: each script's own, so the decoder defines them too.
EXPLORE_PRELUDE = "core/prelude.js"

#: The core parts, in order: the top level of the explore script, before the figures.
EXPLORE_CORE = (
    EXPLORE_PRELUDE,
    "core/math.js",
    "core/rope.js",
    "core/format.js",
    "core/language.js",
    "core/controls.js",
    "core/svg.js",
    "core/svg-marks.js",
    "core/registry.js",
)

#: The explorables, one file each (``figures/<kind>.js``), in the chapters' order
#: (``ropelab.interactive.kinds(explorable=True)``, checked by :func:`bundle_explore`).
FIGURES = (
    "rotation2d",
    "complex_pair",
    "complex_score",
    "block_matrix",
    "precision",
    "spectrum",
    "decay",
    "calculator",
    "extension_methods",
    "multiaxis",
    "remapping",
)

#: After the figures: the API (Node stops there) and the mounting.
EXPLORE_TAIL = (
    "mount/api.js",
    "mount/stack.js",
    "mount/style.js",
    "mount/mount.js",
)

#: The decoder's doc comment.
DECODER_HEADER = "decoder/header.js"

#: The decoder's parts, in order; the rope-type table is written after the first.
DECODER_PARTS = (
    "decoder/prelude.js",
    "decoder/checks.js",
    "decoder/layers.js",
    "decoder/families.js",
    "decoder/rules.js",
    "decoder/normalize.js",
    "decoder/rope-spec.js",
    "decoder/frequencies.js",
    "decoder/describe.js",
    "decoder/gguf.js",
    "decoder/decode.js",
    "decoder/view.js",
    "decoder/render.js",
    "decoder/mount.js",
)

# The names the bundle itself defines at the explore script's top level.
_GENERATED_CORE = "(bundle: the core object)"
_GENERATED_TYPES = "(bundle: the rope-type table)"
_GENERATED_DATA = "(bundle: Python's data)"

_DEFINITION = re.compile(
    r"^(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)"
    r"|^(?:const|let|var|class)\s+([A-Za-z_$][\w$]*)"
)
_DESTRUCTURING = re.compile(r"^(?:const|let|var)\s*\{([^}]*)\}\s*=")


def _lines_outside_templates(text: str) -> list[tuple[str, bool]]:
    """Each line with whether it starts outside a template literal (a multi-line `…`)."""
    out = []
    inside = False
    for line in text.split("\n"):
        out.append((line, not inside))
        if line.lstrip().startswith("//"):
            continue
        if len(re.findall(r"(?<!\\)`", line)) % 2:
            inside = not inside
    return out


def top_level_names(text: str) -> list[str]:
    """The names a part defines at its top level (column 0): ``function``, ``const``,
    ``let``, ``var``, ``class`` and ``const {a, b} = …``, in order."""
    names: list[str] = []
    for line, outside in _lines_outside_templates(text):
        if not outside:
            continue
        found = _DEFINITION.match(line)
        if found:
            names.append(found.group(1) or found.group(2))
            continue
        found = _DESTRUCTURING.match(line)
        if found:
            for item in found.group(1).split(","):
                name = item.split(":")[-1].split("=")[0].strip()
                if name:
                    names.append(name)
    return names


def _indent(text: str, prefix: str = "  ") -> str:
    """``text`` indented by ``prefix``, except blank lines and template literals' lines."""
    return "\n".join(
        prefix + line if outside and line.strip() else line
        for line, outside in _lines_outside_templates(text.rstrip("\n"))
    )


def _read(source_dir: Path, part: str) -> str:
    return (source_dir / part).read_text(encoding="utf-8")


def _define(seen: dict[str, str], names: Sequence[str], where: str, what: str) -> None:
    for name in names:
        if name in seen:
            raise ValueError(
                f"{what}: {name!r} is defined at the top level of both {seen[name]} and {where}"
            )
        seen[name] = where


def _shadows(core: Mapping[str, str], names: Sequence[str], where: str) -> None:
    for name in names:
        if name in core:
            raise ValueError(
                f"{where} defines {name!r}, which shadows the core's {name!r} ({core[name]})"
            )


def core_names(source_dir: Path = JS_DIR, core: Sequence[str] = EXPLORE_CORE) -> dict[str, str]:
    """Every top-level name of the core parts → the part that defines it.

    Raises:
        ValueError: for a name two core parts define (naming both files and the name).
    """
    seen: dict[str, str] = {}
    for part in core:
        _define(seen, top_level_names(_read(source_dir, part)), part, "duplicate core name")
    return seen


def _core_object(names: Sequence[str]) -> str:
    entries = [f"{name}: {name}," for name in names]
    lines, current = [], ""
    for entry in entries:
        if current and len(current) + 1 + len(entry) > 96:
            lines.append(current)
            current = entry
        else:
            current = f"{current} {entry}" if current else entry
    lines.append(current)
    body = "\n".join(f"  {line}" for line in lines)
    return (
        "// Every name of the core parts (written by the bundler): the decoder's one copy of the\n"
        f"// rope mathematics, the formats and the language.\nconst core = {{\n{body}\n}};"
    )


def bundle_explore(
    source_dir: Path = JS_DIR,
    core: Sequence[str] = EXPLORE_CORE,
    figures: Sequence[str] = FIGURES,
    tail: Sequence[str] = EXPLORE_TAIL,
    header: str | None = EXPLORE_HEADER,
) -> str:
    """The explore script from the parts in ``source_dir`` (the lists' order).

    Raises:
        ValueError: for a top-level name defined twice in the core and tail parts, or a
            figure's top-level name that shadows one of them (naming both files and the
            name), or a figure file that does not register its kind.
    """
    names = core_names(source_dir, core)
    seen = dict(names)
    _define(seen, ["core"], _GENERATED_CORE, "duplicate core name")
    for part in tail:
        _define(seen, top_level_names(_read(source_dir, part)), part, "duplicate core name")
    chunks = [_indent(_read(source_dir, part)) for part in core]
    chunks.append(_indent(_core_object(list(names))))
    for kind in figures:
        part = f"figures/{kind}.js"
        text = _read(source_dir, part)
        _shadows(seen, top_level_names(text), part)
        if len(re.findall(rf"^register\('{re.escape(kind)}',", text, flags=re.M)) != 1:
            raise ValueError(f"{part} must register {kind!r} once, at its top level")
        chunks.append(f"  // {part}\n  (function () {{\n{_indent(text)}\n  }})();")
    chunks.extend(_indent(_read(source_dir, part)) for part in tail)
    head = _read(source_dir, header).rstrip("\n") + "\n" if header else ""
    return GENERATED + head + "(function () {\n" + "\n\n".join(chunks) + "\n})();\n"


def rope_types_table(rope_types: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """Each rope type's record as JSON: every field of the ``RopeType`` dataclass whose value
    JSON can carry (callables skipped, tuples as lists), so a field added later flows through.
    """
    if rope_types is None:
        from ..rope_config import ROPE_TYPES

        rope_types = ROPE_TYPES
    return {name: _plain(record) for name, record in rope_types.items()}


def _plain(value: Any) -> Any:
    """``value`` as JSON data: dataclasses as objects of their fields, tuples as lists;
    callables (and fields holding them) left out."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {}
        for field in dataclasses.fields(value):
            item = getattr(value, field.name)
            if not callable(item):
                out[field.name] = _plain(item)
        return out
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    json.dumps(value)  # a TypeError names a field JSON cannot carry
    return value


#: The class defaults :func:`ropelab.config_fields.normalize_config` reads from the table.
FAMILY_DEFAULTS = (
    "head_dim",
    "num_attention_heads",
    "num_key_value_heads",
    "rope_parameters",
    "rope_theta",
)


def family_table(entries: Mapping[str, Any] | None = None) -> str:
    """The family table as the browser reads it: a JSON object, one line per model type (in
    the table's order), holding what the config reader needs: ``rope`` (false only, for a
    model without a rotary embedding: its layers are read as NoPE, unlike an unknown type's),
    ``defaults`` (:data:`FAMILY_DEFAULTS`), ``derived`` (those the class computes),
    ``aliases``, ``layer_rule`` (whole: a rule added to the table reaches the browser) and ``sub_configs`` (only the
    decoder keys :func:`ropelab.config_fields.normalize_config` reads,
    ``config_fields._DECODER_KEYS``); empty fields left out."""
    from ..config_fields import _DECODER_KEYS

    if entries is None:
        from ..families import table

        entries = table()["model_types"]
    lines = []
    for model_type, entry in entries.items():
        defaults = entry.get("defaults", {})
        out: dict[str, Any] = {}
        if not entry.get("rope"):
            out["rope"] = False
        kept = {k: defaults[k]["value"] for k in FAMILY_DEFAULTS if k in defaults}
        if kept:
            out["defaults"] = kept
        derived = [k for k in FAMILY_DEFAULTS if "derived" in defaults.get(k, {})]
        if derived:
            out["derived"] = derived
        if entry.get("aliases"):
            out["aliases"] = dict(entry["aliases"])
        if entry.get("layer_rule"):
            out["layer_rule"] = dict(entry["layer_rule"])
        subs = {k: v for k, v in (entry.get("sub_configs") or {}).items() if k in _DECODER_KEYS}
        if subs:
            out["sub_configs"] = subs
        item = json.dumps(out, ensure_ascii=False, separators=(",", ":"))
        lines.append(f"  {json.dumps(model_type)}: {item}")
    return "{\n" + ",\n".join(lines) + "\n}"


def _rule_twins(source_dir: Path, rules: Mapping[str, Sequence[str]]) -> None:
    """Every named rule of ``rules`` has its JavaScript twin in ``decoder/rules.js``."""
    text = _read(source_dir, "decoder/rules.js")
    block = re.search(r"^const RULE_CODE = \{\n(.*?)^\};", text, flags=re.M | re.S)
    defined = set(re.findall(r"^  (\w+):", block.group(1), flags=re.M)) if block else set()
    missing = sorted({name for names in rules.values() for name in names} - defined)
    if missing:
        raise ValueError(
            f"config_fields.RULES names {missing}, which decoder/rules.js's RULE_CODE lacks"
        )


def bundle_decoder(
    rope_types: Mapping[str, Any] | None = None,
    source_dir: Path = JS_DIR,
    parts: Sequence[str] = DECODER_PARTS,
    core: Sequence[str] = EXPLORE_CORE,
    header: str | None = DECODER_HEADER,
) -> str:
    """The decoder script from the parts in ``source_dir``, with the rope-type table of
    ``rope_types`` (default :data:`ropelab.rope_config.ROPE_TYPES`), the legacy type names and
    the GGUF rope key names after the first part.

    Raises:
        ValueError: for a name two decoder parts define, or one that shadows a core name
            (the decoder reads the core from the explore script).
    """
    # the prelude's names (inBrowser) are each script's own; every other core name is shared
    shared = {n: p for n, p in core_names(source_dir, core).items() if p != EXPLORE_PRELUDE}
    from ..config_fields import _DECODER_KEYS, _ORIGINAL_LENGTH_TYPES, LEGACY_TYPE_NAMES, RULES
    from ..families import MAPPED_FIELDS, layer_names
    from ..gguf_meta import ROPE_KEYS

    if "decoder/rules.js" in parts:
        _rule_twins(source_dir, RULES)

    seen: dict[str, str] = {
        "ROPE_TYPES": _GENERATED_TYPES,
        "LEGACY_TYPE_NAMES": _GENERATED_DATA,
        "ORIGINAL_LENGTH_TYPES": _GENERATED_DATA,
        "GGUF_ROPE_KEYS": _GENERATED_DATA,
        "FAMILIES": _GENERATED_DATA,
        "LAYER_NAMES": _GENERATED_DATA,
        "RULES": _GENERATED_DATA,
        "MAPPED_FIELDS": _GENERATED_DATA,
        "DECODER_KEYS": _GENERATED_DATA,
    }
    _shadows(shared, list(seen), "the bundle's generated data")
    table = json.dumps(rope_types_table(rope_types), ensure_ascii=False, indent=2)
    generated = (
        "// The rope types of ropelab.rope_config.ROPE_TYPES, written by the bundler: every\n"
        "// field of each RopeType record that JSON carries.\n"
        f"const ROPE_TYPES = {table};\n"
        "// ropelab.config_fields.LEGACY_TYPE_NAMES: legacy rope-type names as transformers reads them\n"
        f"const LEGACY_TYPE_NAMES = {json.dumps(LEGACY_TYPE_NAMES)};\n"
        "// ropelab.config_fields._ORIGINAL_LENGTH_TYPES: the types whose original length the\n"
        "// top-level original_max_position_embeddings gives\n"
        f"const ORIGINAL_LENGTH_TYPES = {json.dumps(list(_ORIGINAL_LENGTH_TYPES))};\n"
        "// ropelab.gguf_meta.ROPE_KEYS: the gguf.Keys.Rope names ({arch} is the architecture)\n"
        f"const GGUF_ROPE_KEYS = {json.dumps(ROPE_KEYS, ensure_ascii=False, indent=2)};\n"
        "// ropelab.families' table (transformers 5.23), as the config reader reads it: per model\n"
        "// type, rope (false: no rotary embedding), the class defaults, derived, aliases and\n"
        "// layer_rule (ropelab.explorables.bundle.family_table)\n"
        f"const FAMILIES = {family_table()};\n"
        "// ropelab.families.layer_names(): each layer name's kind before RoPE is decided\n"
        f"const LAYER_NAMES = {json.dumps(dict(layer_names()), separators=(',', ':'))};\n"
        "// ropelab.config_fields.RULES: the named rules (code, in decoder/rules.js) by model type\n"
        f"const RULES = {json.dumps(RULES, separators=(',', ':'))};\n"
        "// ropelab.families.MAPPED_FIELDS: the standard fields a family's alias may spell otherwise\n"
        f"const MAPPED_FIELDS = {json.dumps(list(MAPPED_FIELDS))};\n"
        "// ropelab.config_fields._DECODER_KEYS: the sub-configs read, in order, without text_config\n"
        f"const DECODER_KEYS = {json.dumps(list(_DECODER_KEYS))};"
    )
    chunks = []
    for i, part in enumerate(parts):
        text = _read(source_dir, part)
        names = top_level_names(text)
        _shadows(shared, names, part)
        _define(seen, names, part, "duplicate decoder name")
        chunks.append(_indent(text))
        if i == 0:
            chunks.append(_indent(generated))
    head = _read(source_dir, header).rstrip("\n") + "\n" if header else ""
    return GENERATED + head + "(function () {\n" + "\n\n".join(chunks) + "\n})();\n"


def _check_order() -> None:
    from ..interactive import kinds

    expected = tuple(kinds(explorable=True))
    if FIGURES != expected:
        raise ValueError(
            f"bundle.FIGURES must list the explorables in chapter order {expected}, got {FIGURES}"
        )


def explore_script_text() -> str:
    """The text of ``ropelab-explore.js``: the bundle of ``js/`` (figures in chapter order).

    Raises:
        ValueError: if :data:`FIGURES` is not ``kinds(explorable=True)`` or the parts define
            a name twice (see :func:`bundle_explore`).
    """
    _check_order()
    return bundle_explore()


def decoder_script_text(rope_types: Mapping[str, Any] | None = None) -> str:
    """The text of ``ropelab-decoder.js`` for ``rope_types`` (default
    :data:`ropelab.rope_config.ROPE_TYPES`)."""
    return bundle_decoder(rope_types)


def _outputs() -> dict[Path, str]:
    here = Path(__file__).resolve().parent
    return {
        here / "ropelab-explore.js": explore_script_text(),
        here / "ropelab-decoder.js": decoder_script_text(),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """``--write`` writes both scripts next to this module; ``--check`` returns 1 (and names
    the script) when one is missing or differs from the bundle."""
    parser = argparse.ArgumentParser(
        prog="python -m ropelab.explorables.bundle", description=__doc__.split("\n")[0]
    )
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true", help="write the generated scripts")
    group.add_argument("--check", action="store_true", help="fail if a script is not the bundle")
    args = parser.parse_args(argv)
    stale = []
    for path, text in _outputs().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        if args.write:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
        else:
            stale.append(path.name)
    if stale:
        print(f"not the bundle of js/: {', '.join(stale)} (run --write)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
