"""Number figures, tables, exercises and equations per chapter, with the chapter's own number.

The book's chapters carry their number in their title ("# 4. The θᵢ spectrum", "# 3A. RoPE in
code"); the table of contents is not numbered (3A could not be a toctree number). Sphinx then
counts every numbered thing across the whole book ("Exercise 17"). This extension renumbers them
after Sphinx has counted (``env-get-updated``), chapter by chapter:

* the n-th captioned figure of chapter 5 is "Figure 5.n", its n-th table "Table 5.n";
* the n-th exercise of chapter 3A is "Exercise 3A.n" (sphinx-exercise reads the same numbers,
  so "Solution to Exercise 3A.n" and ``{ref}``/``{numref}`` to an exercise agree);
* the n-th labelled equation of chapter 4 is "(4.n)", and ``{eq}`` references say the same.

A page whose title has no number (the introduction, the notation) numbers its things 1, 2, …
on its own. A notebook may set its number in its metadata instead of its title:
``{"metadata": {"ropelab": {"chapter": "3A"}}}`` (the title wins when both are present and
differ, with a warning).

Figure and table captions read "Figure 5.2: caption" (Sphinx writes "Figure 5.2 caption"; the
colon is added to the caption only, so ``{numref}`` still reads "Figure 5.2").
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: "4. The θᵢ spectrum" -> "4"; "3A. RoPE in code" -> "3A".
CHAPTER_TITLE = re.compile(r"^\s*(\d+[A-Z]?)\.\s")

#: Captions (not exercise titles) get a colon after their number.
_CAPTION_NUMBER = re.compile(
    r'(<span class="caption-number">(?:Figure|Table|Listing) [^<]*?) </span>'
)


@lru_cache(maxsize=64)
def _notebook_chapter(path: str, mtime: float) -> str | None:
    """``metadata.ropelab.chapter`` of a notebook file (None when absent or not a notebook)."""
    try:
        meta = json.loads(Path(path).read_text(encoding="utf-8")).get("metadata", {})
    except (OSError, ValueError):
        return None
    ropelab = meta.get("ropelab")
    return str(ropelab["chapter"]) if isinstance(ropelab, dict) and "chapter" in ropelab else None


def chapter_number(env: BuildEnvironment, docname: str) -> str | None:
    """The chapter number of a page: from its title, else from its notebook metadata."""
    title = env.titles.get(docname)
    match = CHAPTER_TITLE.match(title.astext()) if title is not None else None
    from_title = match.group(1) if match else None
    source = Path(env.doc2path(docname))
    from_meta = (
        _notebook_chapter(str(source), source.stat().st_mtime)
        if source.suffix == ".ipynb" and source.exists()
        else None
    )
    if from_title and from_meta and from_title != from_meta:
        logger.warning(
            "%s: chapter %s in its title but %s in its metadata (ropelab.chapter)",
            docname,
            from_title,
            from_meta,
            location=docname,
        )
    return from_title or from_meta


def renumber(app: Sphinx, env: BuildEnvironment) -> Iterable[str]:
    """Replace Sphinx's book-wide numbers by per-chapter ones (runs after Sphinx counted)."""
    for docname, by_type in env.toc_fignumbers.items():
        chapter = chapter_number(env, docname)
        prefix: tuple[str | int, ...] = (chapter,) if chapter else ()
        for numbers in by_type.values():
            # Sphinx registers the numbers in document order: keep that order, restart at 1.
            for count, node_id in enumerate(list(numbers), start=1):
                numbers[node_id] = (*prefix, count)
    # Sphinx's own collector already asked for every page whose numbers changed.
    return []


def add_caption_colons(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if "body" in context:
        context["body"] = _CAPTION_NUMBER.sub(r"\1: </span>", context["body"])


def check_titles(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Warn when a chapter notebook's title does not start with its number."""
    if docname.startswith("notebooks/") and chapter_number(app.env, docname) is None:
        logger.warning(
            "%s: a chapter's title starts with its number ('# 4. Title')",
            docname,
            location=docname,
        )


def setup(app: Sphinx) -> dict[str, Any]:
    # After Sphinx's TocTreeCollector (priority 500) has assigned its global numbers.
    app.connect("env-get-updated", renumber, priority=900)
    app.connect("doctree-resolved", check_titles)
    app.connect("html-page-context", add_caption_colons)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
