"""The book's explorables serve their script from the page: the one place the book machinery
sets ``ropelab.explorables.SCRIPT_MODE_VARIABLE``.

In the book (the site, the kit, the committed outputs, nbval's run of the chapters) every
explorable output leaves ``ropelab-explore.js`` to the page, which serves it once
(:mod:`ropebook.ext.ropelab_explore`); a notebook run anywhere else carries the script in its
outputs (``ropelab.explorables``). Kernels started afterwards inherit the setting.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

from ropelab.explorables import SCRIPT_MODE_VARIABLE

#: The mode the book runs its chapters in.
PAGE_MODE = "page"


def serve_scripts_from_page(
    environ: MutableMapping[str, str] | None = None,
) -> MutableMapping[str, str]:
    """Set the explorables' script mode to ``"page"`` in ``environ`` (default: this process's
    environment, which kernels and subprocesses inherit) and return it."""
    environ = os.environ if environ is None else environ
    environ[SCRIPT_MODE_VARIABLE] = PAGE_MODE
    return environ
