"""Keep printed lines next to the display they belong to.

myst-nb's ``nb_merge_streams`` joins *every* stdout chunk of a cell into the first one, so a
cell that prints a verdict, displays an equation, prints the next verdict and displays the next
equation shows both verdicts above both equations. Turning the option off instead leaves a loop
that printed in several chunks (the kernel flushes on its own schedule) as several boxes.

This extension keeps the option on but changes what it merges: only *consecutive* stream
outputs (a run of printed chunks with no display between them) become one box, each run with
myst-nb's own merging (its ``\\r``/``\\b`` handling and stderr-before-stdout order). Outputs
stay in the order the cell produced them. The chapters' notebooks themselves are unchanged;
only the rendered page differs.

myst-nb 1.x calls ``myst_nb.core.render.coalesce_streams`` while rendering a cell; the
extension replaces that name and fails the build when it is missing (a myst-nb that no longer
has it needs this extension revisited).
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError


def merge_consecutive_streams(outputs: list[Any], merge_run: Any) -> list[Any]:
    """``outputs`` with each run of consecutive stream outputs merged by ``merge_run``."""
    merged: list[Any] = []
    run: list[Any] = []
    for output in outputs:
        if output.get("output_type") == "stream":
            run.append(output)
            continue
        if run:
            merged.extend(merge_run(run))
            run = []
        merged.append(output)
    if run:
        merged.extend(merge_run(run))
    return merged


def setup(app: Sphinx) -> dict[str, Any]:
    try:
        import myst_nb.core.render as render
        from myst_nb.core.utils import coalesce_streams
    except ImportError as error:  # pragma: no cover - myst-nb is required by the book
        raise ExtensionError(f"ordered_streams needs myst-nb 1.x: {error}") from error
    if getattr(render, "coalesce_streams", None) is None:
        raise ExtensionError(
            "ordered_streams: myst_nb.core.render.coalesce_streams is gone; revisit the extension"
        )
    if not getattr(render.coalesce_streams, "_ropelab_ordered", False):

        def ordered(outputs: list[Any]) -> list[Any]:
            return merge_consecutive_streams(outputs or [], coalesce_streams)

        ordered._ropelab_ordered = True  # type: ignore[attr-defined]
        render.coalesce_streams = ordered
    return {"parallel_read_safe": True, "parallel_write_safe": True}
