"""Download links to the problem sets' student bundles (issue 31).

``tools/build_assignments.py --kit <kit>`` writes ``<kit>/assignments/<set>.zip``
(what a student downloads: notebook, stub module, public tests; nothing of
the answer key). Like the PDF and the slides of ``lecturer_kit.py``, the
site copies them from the kit it is built with (``ropelab_kit_dir``) into
its own ``assignments/`` folder when the build finishes, so the student
edition (``student/``) serves its own copy.

The role ``{assignment}`ps2_implement_rope``` writes a link to
``ps2_implement_rope.zip`` where the build has the file, and the file name
as code where it has none (the quick site, the PDF). The Chinese edition
has no kit of its own (``tools/build_zh.py``): it is served as ``zh/``
inside an English site of the same edition, so its pages link to that
site's copy (``../assignments/``), written when the kit holds the zip.
"""

from __future__ import annotations

import os
import posixpath
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from ropebook.ext.lecturer_kit import BOOK, _relative, kit_dir

ASSIGNMENTS_DIR = "assignments"
#: The kit the English site is built with (``make kit``; ``ROPELAB_KIT`` names
#: another, as for the kit's tests): where a Chinese page looks for the zips.
DEFAULT_KIT = Path(os.environ.get("ROPELAB_KIT", BOOK.parent / "_build" / "kit"))


def _chinese(app: Sphinx) -> bool:
    return getattr(app.config, "ropelab_language", "en") == "zh"


def bundle(app: Sphinx, name: str) -> Path:
    """Where the kit holds the zip of problem set folder ``name``."""
    kit = DEFAULT_KIT if _chinese(app) else kit_dir(app)
    return kit / ASSIGNMENTS_DIR / f"{name}.zip"


def assignment_role(
    role: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Any,
    options: dict | None = None,
    content: list | None = None,
) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    """``{assignment}`<folder>```: a link to the zip, or its name."""
    env = inliner.document.settings.env
    app = env.app
    name = text.strip()
    label = f"{name}.zip"
    if app.builder.format != "html" or not bundle(app, name).is_file():
        return [nodes.literal(rawtext, label)], []
    target = f"{ASSIGNMENTS_DIR}/{label}"
    if _chinese(app):
        page = app.builder.get_target_uri(env.docname)
        href = posixpath.relpath(f"../{target}", posixpath.dirname(page) or ".")
    else:
        href = _relative(app, env.docname, target)
    html = (
        f'<a class="reference external kit-assignment" href="{href}" download>'
        f"<code>{label}</code></a>"
    )
    return [nodes.raw(rawtext, html, format="html")], []


def copy_bundles(app: Sphinx, exception: Exception | None) -> None:
    """Copy the kit's student zips into the site (English editions)."""
    if exception is not None or app.builder.format != "html" or _chinese(app):
        return
    source = kit_dir(app) / ASSIGNMENTS_DIR
    if not source.is_dir():
        return
    out = Path(app.outdir) / ASSIGNMENTS_DIR
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.glob("*.zip")):
        shutil.copyfile(path, out / path.name)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_role("assignment", assignment_role)
    app.connect("build-finished", copy_bundles)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
