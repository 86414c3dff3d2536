"""The book's frame: every chapter notebook is in the table of contents and has the parts a
chapter must have (hidden setup cell, learning objectives first, exercises last, no separate
summary: the What-to-remember box is the chapter's one summary)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from tests import notebook_solutions

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())


def toc_files(node: object) -> list[str]:
    """Every ``file:`` entry of the table of contents, depth first."""
    if isinstance(node, dict):
        found = [node["file"]] if "file" in node else []
        for value in node.values():
            found += toc_files(value)
        return found
    if isinstance(node, list):
        return [f for item in node for f in toc_files(item)]
    return []


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def source(cell: dict) -> str:
    return "".join(cell["source"])


def headings(nb: dict) -> list[str]:
    return [
        line[3:].strip()
        for cell in nb["cells"]
        if cell["cell_type"] == "markdown"
        for line in source(cell).splitlines()
        if line.startswith("## ")
    ]


def test_every_notebook_is_in_the_toc_and_every_toc_entry_exists():
    listed = toc_files(TOC)
    notebooks = [f"notebooks/{p.stem}" for p in NOTEBOOKS]
    assert sorted(f for f in listed if f.startswith("notebooks/")) == notebooks
    for entry in listed:
        candidates = [ROOT / f"{entry}{suffix}" for suffix in (".md", ".ipynb")]
        assert any(c.exists() for c in candidates), f"{entry} is in _toc.yml but missing"


def test_book_pages_exist():
    for page in ["intro", "notation", "references"]:
        assert (ROOT / "book" / f"{page}.md").exists()
    bib = (ROOT / "book" / "references.bib").read_text()
    for key in [
        "su2024roformer",
        "vaswani2017attention",
        "shaw2018self",
        "yang2019xlnet",
        "raffel2020t5",
        "he2021deberta",
        "katharopoulos2020transformers",
    ]:
        assert f"{{{key}," in bib


def test_citations_resolve_to_bib_entries():
    keys = set(re.findall(r"@\w+\{([^,]+),", (ROOT / "book" / "references.bib").read_text()))
    for path in NOTEBOOKS:
        text = "\n".join(source(c) for c in load(path)["cells"] if c["cell_type"] == "markdown")
        for group in re.findall(r"\{cite(?::\w+)?\}`([^`]+)`", text):
            for key in group.split(","):
                assert key.strip() in keys, f"{path.name} cites unknown key {key!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_first_cell_installs_ropelab_on_colab_and_is_hidden(path):
    first = load(path)["cells"][0]
    assert first["cell_type"] == "code"
    assert "remove-cell" in first["metadata"].get("tags", [])
    text = source(first)
    assert 'find_spec("ropelab") is None' in text
    assert "WHEEL_URL" in text  # the site's wheel, never a repository (tests/test_deployment.py)
    assert not first.get("outputs"), "the setup cell must be silent where ropelab is installed"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_structure(path):
    nb = load(path)
    names = headings(nb)
    assert names, f"{path.name} has no '## ' sections"
    assert names[0] == "Learning objectives"
    assert names[-1] == "Exercises"
    assert "Summary" not in names, "the What-to-remember box is the one summary (issue 31)"
    markdown = "\n".join(source(c) for c in nb["cells"] if c["cell_type"] == "markdown")
    exercises = re.findall(r"```\{exercise\}[^\n]*\n:label: ([\w-]+)", markdown)
    solutions = re.findall(r"```\{solution(?:-start)?\} ([\w-]+)", markdown)
    assert len(exercises) >= 3, f"{path.name} has {len(exercises)} exercises"
    assert sorted(exercises) == sorted(solutions), "every exercise has exactly one solution"
    blocks = re.findall(r"```\{exercise\}.*?```", markdown, flags=re.DOTALL)
    assert any("predict" in block.lower() for block in blocks), (
        "at least one exercise asks the reader to change code and predict the result"
    )


#: The only reasons a cell may skip nbval's output comparison (its ``nbval-ignore-output``
#: tag): it shows a live widget (the output is a widget model, not text) or a wall-clock
#: timing (different on every machine and every run). The cell's code says which.
IGNORED_OUTPUT_REASONS = {
    "a live widget": re.compile(r"\blive_widget\("),
    "a wall-clock timing": re.compile(
        r"\btime_\w+\(|perf_counter|\btimeit\b|benchmarks/results\.json"
    ),
}

#: Chapters that still carry a "# nbval-ignore-output: ..." comment in a cell, a line meant
#: for developers that readers see (issue 13). Strict xfails: delete a chapter's line when
#: its comments are gone (the cell tag is enough).
NBVAL_COMMENTS_LEFT: set[str] = set()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_outputs_are_committed_and_ignored_outputs_have_an_allowed_reason(path):
    for cell in load(path)["cells"][1:]:
        if cell["cell_type"] != "code":
            continue
        assert cell["execution_count"] is not None, f"unexecuted cell in {path.name}"
        if "nbval-ignore-output" in cell["metadata"].get("tags", []):
            text = source(cell)
            reasons = [why for why, shows in IGNORED_OUTPUT_REASONS.items() if shows.search(text)]
            assert reasons, (
                f"{path.name}: a cell skips output comparison but is neither "
                f"{' nor '.join(IGNORED_OUTPUT_REASONS)}:\n{text[:200]}"
            )


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(
            p,
            id=p.name,
            marks=[pytest.mark.xfail(strict=True, reason="nbval comments left (issue 13)")]
            if p.name in NBVAL_COMMENTS_LEFT
            else [],
        )
        for p in NOTEBOOKS
    ],
)
def test_no_test_machinery_in_the_cells(path):
    """The cell tag says nbval skips an output; a comment saying so is for developers, and
    a reader sees it."""
    flagged = [
        source(cell).splitlines()[0]
        for cell in load(path)["cells"]
        if cell["cell_type"] == "code"
        and re.search(r"^\s*#\s*nbval", source(cell), flags=re.MULTILINE)
    ]
    assert flagged == [], f"{path.name}: cells with an nbval comment: {flagged}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_solutions_run_their_code(path):
    """Issue 21: a solution's code is an executed cell inside a gated solution, never fenced
    Python in markdown; each such cell prints what it finds, so nbval compares it."""
    nb = load(path)
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for block in notebook_solutions.SOLUTION_BLOCK.finditer(source(cell)):
            assert not notebook_solutions.FENCED_PYTHON.search(block.group("body")), (
                f"{path.name}: solution {block.group('label')} holds fenced Python; "
                "make it a code cell between solution-start and solution-end"
            )
    for label, cells in notebook_solutions.gated_solutions(nb["cells"]):
        for cell in cells:
            if cell["cell_type"] == "markdown":
                assert not notebook_solutions.FENCED_PYTHON.search(source(cell)), (
                    f"{path.name}: solution {label} holds fenced Python in its prose"
                )
        code = [c for c in cells if c["cell_type"] == "code"]
        assert code, f"{path.name}: gated solution {label} has no code cell (use {{solution}})"
        for cell in code:
            assert cell.get("outputs"), (
                f"{path.name}: a code cell of solution {label} prints nothing"
            )
            typed = re.findall(r"#\s*[-+]?\d[\d,.]*(?:e[-+]?\d+)?\s*$", source(cell), re.M)
            assert not typed, (
                f"{path.name}: solution {label} types its results in comments: {typed}"
            )
