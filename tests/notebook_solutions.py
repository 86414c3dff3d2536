"""The exercise solutions of a chapter notebook, read from its cells (issue 21).

A solution with code is *gated*: a markdown cell opening ``{solution-start} LABEL``, the
chapter's executed code cells, and a markdown cell holding ``{solution-end}``.
sphinx-exercise merges them into one solution on the page.
"""

from __future__ import annotations

import re

SOLUTION_START = re.compile(r"^[`:]{3,}\{solution-start\}\s*(\S+)", re.M)
#: Python written into markdown (```python, ~~~py, {code-cell} python): never in a solution.
FENCED_PYTHON = re.compile(r"^\s*[`~]{3,}\s*(?:\{code-cell\}\s*)?(?:python|py|ipython3?)\b", re.M)
SOLUTION_BLOCK = re.compile(
    r"^(?P<fence>[`:]{3,})\{solution\}\s*(?P<label>\S+)\n(?P<body>.*?)^(?P=fence)\s*$", re.M | re.S
)


def cell_source(cell: dict) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def gated_solutions(cells: list[dict]) -> list[tuple[str, list[dict]]]:
    """(label, cells) for every gated solution: the cells from its ``solution-start`` to its
    ``solution-end``, both included. A start inside another solution, or a start without an
    end, is an error."""
    found: list[tuple[str, list[dict]]] = []
    current: tuple[str, list[dict]] | None = None
    for cell in cells:
        text = cell_source(cell)
        start = SOLUTION_START.search(text) if cell["cell_type"] == "markdown" else None
        if start:
            if current is not None:
                raise ValueError(f"solution {start.group(1)} starts inside {current[0]}")
            current = (start.group(1), [])
        if current is not None:
            current[1].append(cell)
            if cell["cell_type"] == "markdown" and "{solution-end}" in text:
                found.append(current)
                current = None
    if current is not None:
        raise ValueError(f"solution {current[0]} has no solution-end")
    return found


def solution_code_cells(cells: list[dict]) -> list[tuple[str, dict]]:
    """(label, code cell) for every code cell inside a gated solution."""
    return [
        (label, cell)
        for label, block in gated_solutions(cells)
        for cell in block
        if cell["cell_type"] == "code"
    ]
