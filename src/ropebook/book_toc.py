"""The book's table of contents (``_toc.yml``) as document names, in reading order.

One reader of the table of contents for the tools and the tests that walk the book: the site's
browser tests, the lecturer's kit (PDF, figures, slides, student edition) and its tests.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from ropebook import ROOT


def toc_docnames(root: Path = ROOT) -> list[str]:
    """Every ``root`` and ``file`` entry of ``root/_toc.yml`` in reading order, each once:
    ``["book/intro", "notebooks/00_why_positions", ..., "book/references"]``."""

    def files(node: object) -> list[str]:
        if isinstance(node, dict):
            own = [node[key] for key in ("root", "file") if key in node]
            return own + [f for value in node.values() for f in files(value)]
        if isinstance(node, list):
            return [f for item in node for f in files(item)]
        return []

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    return list(dict.fromkeys(files(toc)))


def toc_notebooks(root: Path = ROOT) -> list[Path]:
    """The chapter notebooks (``notebooks/``) in the order of ``_toc.yml``."""
    return [
        root / f"{entry}.ipynb"
        for entry in toc_docnames(root)
        if entry.startswith("notebooks/") and (root / f"{entry}.ipynb").exists()
    ]
