"""Rope-relevant fields of real released ``config.json`` files, shipped with :mod:`ropelab`.

Each JSON file in this folder holds the fields of one released model that decide what its
rotary embedding does (head sizes, base, rope type and parameters, context lengths, layer
types, attention temperatures), spelled exactly as in the released file, plus a
``"_source"`` entry naming the model repository and file, the revision, and where the copy
was read. Chapter 8 of the book decodes them with :func:`ropelab.describe_config`.

Nothing here is downloaded: the files are package data.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["load_config", "shipped_configs", "source_of"]


@cache
def shipped_configs() -> tuple[str, ...]:
    """The names of the shipped configs (file names without ``.json``), sorted."""
    folder = resources.files(__name__)
    return tuple(
        sorted(p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json"))
    )


def load_config(name: str) -> dict[str, Any]:
    """A fresh copy of the shipped config ``name`` (see :func:`shipped_configs`)."""
    if name not in shipped_configs():
        raise ValueError(f"name must be one of {list(shipped_configs())}, got {name!r}")
    text = resources.files(__name__).joinpath(f"{name}.json").read_text(encoding="utf-8")
    return json.loads(text)


def source_of(name: str) -> dict[str, str]:
    """The ``"_source"`` entry of a shipped config: model, file, revision, copied_from."""
    return dict(load_config(name)["_source"])
