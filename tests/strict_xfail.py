"""Parametrize a check over chapters or pages, with a table of those that do not pass yet.

Used by the convention, kit, layout and print tests: each has a table ``stem -> what is still
wrong`` per check. A listed item is a strict xfail, so one that passes fails the run and the
tables stay current; every table is empty while the whole book follows every rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest


def strict_xfail_params(items: Iterable[str | Path], known: Mapping[str, str]) -> list[Any]:
    """One ``pytest.param`` per item (a notebook path or a built page), named by its stem and
    marked strict-xfail where ``known`` (stem -> reason) lists it."""
    params = []
    for item in items:
        stem = Path(item).stem
        marks = (
            [pytest.mark.xfail(strict=True, reason=f"{stem}: {known[stem]}")]
            if stem in known
            else []
        )
        params.append(pytest.param(item, id=stem, marks=marks))
    return params
