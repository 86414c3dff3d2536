"""The chapter notebooks follow the conventions the site's layout relies on (issue 13).

Checked on the notebooks themselves, without building the site (the built pages are checked by
tests/browser/test_layout.py and test_print.py):

* a chapter's title carries its number, the one its file name gives ("04_…" -> "# 4. …",
  "03a_…" -> "# 3A. …"): src/ropebook/ext/chapter_numbers.py numbers figures and exercises from it;
* figure names and exercise labels carry the chapter too ("fig-4-spectrum", "ch3a-…"), so a
  reference says which chapter it points into, and a figure has a caption;
* a live ipywidgets cell (``live_widget(…)``) is a collapsed "run it live" block: tags
  ``hide-input``, ``remove-output``, ``screen-only`` and ``nbval-ignore-output``, and a
  ``mystnb.code_prompt_show`` that starts with "Run it live" and says what it needs.

``LIVE_BLOCKS_NOT_YET`` lists the chapters whose live cells are not converted yet: strict
xfails, delete your chapter's line when it passes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.strict_xfail import strict_xfail_params

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

# --- chapters not yet converted (issue 13) ----------------------------------------------------
LIVE_BLOCKS_NOT_YET: dict[str, str] = {}
# -----------------------------------------------------------------------------------------------

LIVE_BLOCK_TAGS = {"hide-input", "remove-output", "screen-only", "nbval-ignore-output"}


def chapter_of(path: Path) -> str:
    """ "04_theta_spectrum" -> "4"; "03a_rope_in_code" -> "3A"."""
    match = re.match(r"(\d+)([a-z]?)_", path.stem)
    assert match, f"{path.name}: a chapter file is named <number>[letter]_<name>.ipynb"
    return f"{int(match.group(1))}{match.group(2).upper()}"


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def text(cell: dict) -> str:
    return "".join(cell["source"])


@pytest.mark.parametrize("path", strict_xfail_params(NOTEBOOKS, {}))
def test_title_carries_the_chapter_number(path):
    first = next(c for c in cells(path) if c["cell_type"] == "markdown")
    title = text(first).splitlines()[0]
    assert re.match(rf"# {re.escape(chapter_of(path))}\. \S", title), (
        f"{path.name}: the title {title!r} must start with '# {chapter_of(path)}. '"
    )


@pytest.mark.parametrize("path", strict_xfail_params(NOTEBOOKS, {}))
def test_figure_names_and_exercise_labels_carry_the_chapter(path):
    chapter = chapter_of(path).lower()
    for index, cell in enumerate(cells(path)):
        figure = cell["metadata"].get("mystnb", {}).get("figure")
        if figure is not None:
            assert str(figure.get("name", "")).startswith(f"fig-{chapter}-"), (
                f"{path.name} cell {index}: figure name {figure.get('name')!r}, not fig-{chapter}-…"
            )
            assert str(figure.get("caption", "")).strip(), f"{path.name} cell {index}: no caption"
        if cell["cell_type"] == "markdown":
            for label in re.findall(r"```\{exercise\}[^\n]*\n:label: ([\w-]+)", text(cell)):
                assert label.startswith(f"ch{chapter}-"), (
                    f"{path.name}: exercise label {label!r}, not ch{chapter}-…"
                )


@pytest.mark.parametrize("path", strict_xfail_params(NOTEBOOKS, LIVE_BLOCKS_NOT_YET))
def test_live_widgets_are_collapsed_run_it_live_blocks(path):
    live = [
        (index, cell)
        for index, cell in enumerate(cells(path))
        if cell["cell_type"] == "code" and re.search(r"\blive_widget\(", text(cell))
    ]
    for index, cell in live:
        tags = set(cell["metadata"].get("tags", []))
        assert LIVE_BLOCK_TAGS <= tags, (
            f"{path.name} cell {index}: tags {sorted(tags)} lack {sorted(LIVE_BLOCK_TAGS - tags)}"
        )
        prompt = cell["metadata"].get("mystnb", {}).get("code_prompt_show", "")
        assert prompt.startswith("Run it live"), (
            f"{path.name} cell {index}: mystnb.code_prompt_show is {prompt!r}"
        )
