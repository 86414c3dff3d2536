"""The deployment settings and the setup cell (issue 32, ``src/ropebook/ext/deployment.py``).

No guessed address: with no setting, nothing the repository or the build writes names a
repository or a hosted copy (the source tree here; the built site, its notebooks, the slides
and the PDFs of ``make book``). The settings turn on exactly the buttons they enable, the
student edition only its own repository. Every notebook of the book starts with the one setup
cell, which does nothing where ropelab is installed and otherwise installs from the wheel next
to it or from the site's address the build wrote in. The round trip through a served site is
``tests/test_student_roundtrip.py``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from ropebook.ext import deployment

ROOT = Path(__file__).resolve().parents[1]

SITE = Path(os.environ.get("ROPELAB_SITE", ROOT / "_build" / "html")).resolve()
KIT = Path(os.environ.get("ROPELAB_KIT", ROOT / "_build" / "kit")).resolve()

#: Addresses this book once guessed or that a launch button writes (GitHub's ``ropelab`` is an
#: unrelated organisation; Jupyter Book's default repository is its own).
GUESSED = re.compile(
    r"ropelab/rope-derived-and-run|github\.com/ropelab\b|mybinder\.org/v2|"
    r"colab\.research\.google\.com/github|executablebooks/jupyter-book|"
    r"ropelab\[book\] @ git\+",
    re.IGNORECASE,
)
SETTINGS = (
    "ROPELAB_SITE_URL",
    "ROPELAB_REPOSITORY",
    "ROPELAB_STUDENT_REPOSITORY",
    "ROPELAB_BRANCH",
)


def toc_notebooks() -> list[Path]:
    """Every notebook the book's table of contents lists, and the template's."""
    files: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.safe_load((ROOT / "_toc.yml").read_text()))
    found = [ROOT / f"{f}.ipynb" for f in files if (ROOT / f"{f}.ipynb").exists()]
    return [*found, ROOT / "book" / "templates" / "chapter.ipynb"]


def test_every_notebook_listed_in_the_toc_starts_with_the_current_setup_cell():
    notebooks = toc_notebooks()
    assert len(notebooks) >= 15  # 13 chapters, the cheat sheet, the template
    for path in notebooks:
        first = json.loads(path.read_text(encoding="utf-8"))["cells"][0]
        assert first["cell_type"] == "code", path.name
        assert "".join(first["source"]) == deployment.SETUP_CELL, f"{path.name}: old setup cell"
        assert "remove-cell" in first["metadata"].get("tags", []), path.name
        assert not first.get("outputs"), f"{path.name}: the setup cell must print nothing"


def test_the_setup_cell_names_no_address_and_fits_the_line_limit():
    assert not re.search(r"https?://", deployment.SETUP_CELL)
    assert max(len(line) for line in deployment.SETUP_CELL.splitlines()) <= 79


def _source_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    # tests/ is not shipped, and its leak tests plant guessed addresses on purpose
    skip = ("package-lock.json",)  # third-party tarball addresses only
    return [
        ROOT / name
        for name in listed
        if name not in skip
        and not name.startswith("tests/")
        and (ROOT / name).is_file()
        and Path(name).suffix in {".py", ".md", ".yml", ".yaml", ".txt", ".ipynb", ".toml", ".json"}
    ]


def test_no_guessed_address_in_the_repository():
    found = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path in _source_files()
        for match in [GUESSED.search(path.read_text(encoding="utf-8", errors="replace"))]
        if match
    ]
    assert not found, found


def _built(path: Path, how: str) -> Path:
    if not path.exists():
        pytest.fail(f"{path} is missing: run `{how}`")
    return path


def test_no_guessed_address_in_the_built_site_and_its_notebooks():
    """Every page, notebook download, script and text file of the site, with the student and
    Chinese editions inside it (built by ``make book`` with no deployment setting)."""
    site = _built(SITE / "index.html", "make book").parent
    suffixes = {".html", ".ipynb", ".js", ".txt", ".json", ".md", ".css"}
    checked, found = 0, []
    for path in site.rglob("*"):
        if path.suffix not in suffixes or not path.is_file():
            continue
        if path.name == "sphinx-thebe.js":
            continue  # thebe's library default, loaded by no page (src/ropebook/ext/no_thebe.py)
        checked += 1
        match = GUESSED.search(path.read_text(encoding="utf-8", errors="replace"))
        if match:
            found.append(f"{path.relative_to(site)}: {match.group(0)}")
    bundles = [*site.rglob("wheels/*.whl"), *site.rglob("downloads/*.zip")]
    for bundle in bundles:  # the wheel's metadata (the README) and the zips' notebooks
        with zipfile.ZipFile(bundle) as archive:
            for name in archive.namelist():
                if name.endswith((".ipynb", "METADATA")):
                    text = archive.read(name).decode("utf-8", errors="replace")
                    if GUESSED.search(text):
                        found.append(f"{bundle.relative_to(site)}: {name}")
    assert checked > 50 and len(bundles) > 10 and not found, found


def _pdf_text(pdf: Path) -> str:
    text = subprocess.run(
        ["pdftotext", "-q", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    urls = subprocess.run(["pdfinfo", "-url", str(pdf)], capture_output=True, text=True)
    return text + (urls.stdout if urls.returncode == 0 else "")


def test_no_guessed_address_in_the_slides_and_pdfs():
    kit = _built(KIT, "make kit")
    if shutil.which("pdftotext") is None:
        pytest.fail("pdftotext is missing: run `make texlive`")
    pdfs = sorted(kit.rglob("*.pdf"))
    decks = sorted((kit / "slides").rglob("*.html"))
    assert pdfs and decks, "no PDF or slide deck in the kit"
    found = [f"{p.relative_to(kit)}" for p in pdfs if GUESSED.search(_pdf_text(p))]
    found += [
        f"{p.relative_to(kit)}" for p in decks if GUESSED.search(p.read_text(errors="replace"))
    ]
    assert not found, found


# --- the settings -------------------------------------------------------------------------


def _buttons(monkeypatch, edition: str, **settings: str) -> dict:
    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    config = SimpleNamespace(
        html_theme_options={"launch_buttons": {"notebook_interface": "jupyterlab"}},
        ropelab_edition=edition,
    )
    deployment.configure_buttons(None, config)
    return config.html_theme_options


def test_no_setting_turns_every_button_off(monkeypatch):
    for edition in ("instructor", "student"):
        options = _buttons(monkeypatch, edition)
        assert options["repository_url"] == "" and options["use_repository_button"] is False
        assert options["launch_buttons"]["binderhub_url"] == ""
        assert options["launch_buttons"]["colab_url"] == ""


def test_the_repository_enables_binder_but_never_in_the_student_edition(monkeypatch):
    repository = "https://github.com/example/rope-book"
    options = _buttons(monkeypatch, "instructor", ROPELAB_REPOSITORY=repository)
    assert options["repository_url"] == repository and options["use_repository_button"]
    assert options["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert options["launch_buttons"]["colab_url"] == ""  # Colab: the site's notebook download
    assert options["repository_branch"] == "main" and options["path_to_docs"] == ""
    student = _buttons(monkeypatch, "student", ROPELAB_REPOSITORY=repository)
    assert student["repository_url"] == "" and student["launch_buttons"]["binderhub_url"] == ""
    own = "https://gitlab.com/example/rope-students"
    student = _buttons(
        monkeypatch, "student", ROPELAB_REPOSITORY=repository, ROPELAB_STUDENT_REPOSITORY=own
    )
    assert student["repository_url"] == own
    assert student["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert student["launch_buttons"]["colab_url"] == ""


def test_settings_must_be_web_addresses(monkeypatch):
    monkeypatch.setenv("ROPELAB_SITE_URL", "example.org/rope")
    with pytest.raises(ValueError, match="ROPELAB_SITE_URL"):
        deployment.settings()
    monkeypatch.setenv("ROPELAB_SITE_URL", "https://example.org/rope/")
    assert deployment.settings()["site_url"] == "https://example.org/rope"
    assert deployment.wheel_url("https://example.org/rope", "ropelab-1-py3-none-any.whl") == (
        "https://example.org/rope/wheels/ropelab-1-py3-none-any.whl"
    )
    assert deployment.wheel_url("", "ropelab-1-py3-none-any.whl") == ""


def test_the_build_writes_the_sites_wheel_address_into_the_download_only():
    notebook = {"cells": [{"cell_type": "code", "source": deployment.SETUP_CELL}]}
    url = "https://example.org/rope/wheels/ropelab-0.1.0-py3-none-any.whl"
    baked = "".join(deployment.bake_setup_cell(notebook, url)["cells"][0]["source"])
    assert f'WHEEL_URL = "{url}"' in baked and deployment.WHEEL_URL_LINE not in baked
    assert deployment.bake_setup_cell({"cells": []}, "") == {"cells": []}
    with pytest.raises(ValueError, match="setup cell"):
        deployment.bake_setup_cell({"cells": [{"source": "import ropelab"}]}, url)


# --- what the setup cell does -----------------------------------------------------------------

#: Runs the setup cell with ropelab hidden and pip replaced by a recorder.
_RECORD = """
import importlib.util, json, subprocess, sys
real = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: None if name == "ropelab" else real(name, *a)
calls = []
def run(args, **kwargs):
    calls.append(args)
    return subprocess.CompletedProcess(args, 0, "", "")
subprocess.run = run
try:
    exec(open(sys.argv[1]).read())
    print(json.dumps(calls))
except RuntimeError as err:
    print("RuntimeError:", err)
"""


def _setup_cell_run(tmp_path: Path, cell: str) -> str:
    (tmp_path / "cell.py").write_text(cell)
    (tmp_path / "record.py").write_text(_RECORD)
    done = subprocess.run(
        [sys.executable, "record.py", "cell.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_the_setup_cell_does_nothing_where_ropelab_is_installed(tmp_path):
    (tmp_path / "cell.py").write_text(deployment.SETUP_CELL)
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "cell.py"], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert (done.stdout, done.stderr) == ("", "")
    assert time.monotonic() - start < 10


def test_the_setup_cell_installs_from_the_wheel_beside_it_else_from_the_site(tmp_path):
    assert "download this chapter's zip" in _setup_cell_run(tmp_path, deployment.SETUP_CELL)
    url = "https://example.org/rope/wheels/ropelab-0.1.0-py3-none-any.whl"
    baked = deployment.bake_setup_cell({"cells": [{"source": deployment.SETUP_CELL}]}, url)[
        "cells"
    ][0]["source"]
    (call,) = json.loads(_setup_cell_run(tmp_path, "".join(baked)))
    assert call[1:4] == ["-m", "pip", "install"] and call[-1] == f"ropelab[book] @ {url}"
    wheel = tmp_path / "ropelab-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    (call,) = json.loads(_setup_cell_run(tmp_path, "".join(baked)))
    assert call[-1] == f"ropelab[book] @ {wheel.resolve().as_uri()}"


# --- Binder ---------------------------------------------------------------------------------


def test_binder_installs_the_same_pins():
    binder = (ROOT / "binder" / "requirements.txt").read_text().splitlines()
    requirements = (ROOT / "requirements.txt").read_text().splitlines()
    assert "-r ../requirements.txt" in binder
    assert "torch==2.13.0" in requirements and "-e .[book]" in requirements
    torch = [line for line in binder if line.startswith("torch")]
    assert torch == ["torch==2.13.0+cpu"], "Binder pins the CPU build of the same torch"
