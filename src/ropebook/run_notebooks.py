"""Execute chapter notebooks in place, as `make notebooks` does.

Runs each notebook top to bottom in its own folder with nbclient, with the explorables in the
book's "page" mode (their outputs leave the script to the site), then drops the widget state
(live ipywidgets need a kernel; the static site uses the explorables instead) and any per-cell
timing metadata, so that re-running an unchanged chapter changes its file only where an
output really changed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from ropebook.explorables import serve_scripts_from_page


def run(path: Path, timeout: int = 600) -> None:
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name="python3",
        record_timing=False,
        store_widget_state=True,  # nbclient's Output-widget hook needs it while running
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    # Saved widget state would make the static site load a widget manager; timings (left by
    # other tools: record_timing=False does not clear them) would churn every diff.
    notebook.metadata.pop("widgets", None)
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
    nbformat.write(notebook, path)


def main(paths: list[str] | None = None) -> None:
    # The outputs are those of the book: the site serves ropelab-explore.js once per page, so
    # no explorable output carries it (ropebook.explorables, ropebook.ext.ropelab_explore).
    serve_scripts_from_page()
    for name in sys.argv[1:] if paths is None else paths:
        print(f"executing {name}", flush=True)
        run(Path(name))


if __name__ == "__main__":
    main()
