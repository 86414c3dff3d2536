"""Serve ``ropelab-explore.js`` once per page that shows an explorable (and
``ropelab-decoder.js`` after it on the page that shows the config decoder).

The explorables of :mod:`ropelab.explorables` carry the script in every output when a
notebook runs live. In the book the site serves it instead: this extension sets
``ROPELAB_EXPLORE_SCRIPT=page`` before any chapter is executed (the kernels inherit it;
:func:`ropebook.explorables.serve_scripts_from_page`), so
the outputs hold only their markup and config, copies the script from the installed package
into the built site, and adds it to the pages whose body holds an explorable.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

from ropebook.explorables import serve_scripts_from_page
from ropelab.explorables import (
    decoder_configs_script,
    decoder_script_path,
    script_path,
)

ASSET = "ropelab/ropelab-explore.js"
#: The config decoder of chapter 8A (``ropelab-decoder.js``), served to the pages that show
#: it, after ``ASSET`` (it uses that script's number formats).
DECODER_ASSET = "ropelab/ropelab-decoder.js"
#: The shipped configs for the decoder's menu (``window.ropelabDecoderConfigs``).
CONFIGS_ASSET = "ropelab/ropelab-decoder-configs.js"


def _copy_script(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / ASSET
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(script_path(), target)
    shutil.copyfile(decoder_script_path(), target.parent / Path(DECODER_ASSET).name)
    (target.parent / Path(CONFIGS_ASSET).name).write_text(
        decoder_configs_script(), encoding="utf-8"
    )


def _add_to_pages_with_explorables(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    body = context.get("body", "")
    if "ropelab-explorable" in body or "ropelab-decoder" in body:
        app.add_js_file(ASSET)
    if "ropelab-decoder" in body:
        app.add_js_file(CONFIGS_ASSET)
        app.add_js_file(DECODER_ASSET)


def setup(app: Sphinx) -> dict[str, Any]:
    serve_scripts_from_page()
    app.connect("html-page-context", _add_to_pages_with_explorables)
    app.connect("build-finished", _copy_script)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
