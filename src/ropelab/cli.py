"""``python -m ropelab``: the book's decoders on the command line (chapter 8A).

``python -m ropelab describe CONFIG`` prints what a ``config.json`` makes the rotary embedding
do, per layer type (:func:`ropelab.describe_config`); ``--json`` prints the record of the
book's browser decoder (:func:`ropelab.decoder.decode_config`: every layer type's
frequencies, chapter 6's bounds, the GGUF keys llama.cpp would store, the warnings), or, with
``--seq-len``, the description at that length as JSON. ``CONFIG`` is a
file, ``-`` for standard input, or the name of a shipped config (``ropelab.configs``).

The file is parsed as JSON and nothing else: no field of it is evaluated. A file that is not
JSON, or a config the decoder cannot read, ends with exit status 2 and a message naming the
line or the field.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from .configs import load_config, shipped_configs
from .describe import RopeDescription, describe_config

__all__ = ["description_to_dict", "main", "read_config"]


def read_config(source: str, stdin: TextIO | None = None) -> dict[str, Any]:
    """The config named by ``source``: a JSON file, ``-`` (standard input) or a shipped name.

    Raises:
        ValueError: for a missing file, text that is not JSON (with its line and column) or
            JSON that is not an object.
    """
    if source == "-":
        text, where = (stdin or sys.stdin).read(), "standard input"
    elif not Path(source).exists() and source in shipped_configs():
        return load_config(source)
    else:
        path = Path(source)
        if not path.is_file():
            raise ValueError(
                f"CONFIG must be a JSON file, '-' or a shipped config "
                f"({', '.join(shipped_configs())}), got {source!r}"
            )
        text, where = path.read_text(encoding="utf-8"), str(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"{where} is not JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    if not isinstance(data, dict):
        raise ValueError(f"{where} must hold a JSON object (a config), got {type(data).__name__}")
    return data


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def description_to_dict(description: RopeDescription, config: Any = None) -> dict[str, Any]:
    """A :class:`ropelab.describe.RopeDescription` as JSON-ready data.

    With ``config`` and the ``gguf`` package, a ``"gguf"`` entry holds the GGUF rope metadata
    (keys, tensors as lists, notes).
    """
    out = _plain(description.to_dict())
    for layer in out["layers"]:
        layer["parameters"] = {name: value for name, value in layer["parameters"]}
    if config is not None:
        try:
            from .gguf_meta import gguf_rope_metadata

            rope = gguf_rope_metadata(config)
        except ImportError:
            return out
        out["gguf"] = {
            "arch": rope.arch,
            "values": rope.values,
            "tensors": {k: v.tolist() for k, v in rope.tensors.items()},
            "notes": list(rope.notes),
        }
    return out


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ropelab", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    describe = commands.add_parser(
        "describe", help="what a config.json makes the rotary embedding do, per layer type"
    )
    describe.add_argument("config", metavar="CONFIG", help="a config.json, '-' or a shipped name")
    describe.add_argument("--json", action="store_true", help="print JSON instead of text")
    describe.add_argument(
        "--seq-len",
        type=int,
        default=None,
        help="the current length, for dynamic NTK and LongRoPE (default: at initialisation)",
    )
    return parser


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None) -> int:
    """Run the command line; returns the exit status (0, or 2 for input it cannot decode)."""
    parser = _parser()
    args = parser.parse_args(argv)
    out = stdout or sys.stdout
    try:
        config = read_config(args.config)
        description = describe_config(config, seq_len=args.seq_len)
    except ValueError as error:
        print(f"python -m ropelab describe: error: {error}", file=sys.stderr)
        return 2
    if args.json:
        from .decoder import decode_config

        record = decode_config(config) if args.seq_len is None else None
        json.dump(record or description_to_dict(description, config), out, indent=2)
        out.write("\n")
    else:
        out.write(str(description) + "\n")
    return 0
