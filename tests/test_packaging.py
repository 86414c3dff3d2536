"""The package as a reader installs it: what each part declares, and a chapter run from the
built wheel in a clean virtual environment.

``make wheel-env`` (a step of ``make test``) builds the wheel and installs it with its
``book`` extra into ``.venv-wheel``, a virtual environment with nothing else in it but
torch 2.13.0, installed first as on Colab. Here a chapter is executed there, outside the
repository, and its printed outputs are compared with the committed ones.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import nbformat
import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
WHEEL_VENV = ROOT / ".venv-wheel"
PYTHON = WHEEL_VENV / "bin" / "python"
CHAPTER = ROOT / "notebooks" / "04_theta_spectrum.ipynb"


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_each_part_declares_what_it_imports():
    extras = pyproject()["project"]["optional-dependencies"]
    names = {extra: " ".join(extras[extra]) for extra in ("plots", "widgets", "torch", "lab", "hf")}
    assert "matplotlib" in names["plots"]
    assert "ipywidgets" in names["widgets"] and "ropelab[plots]" in names["widgets"]
    assert names["torch"].startswith("torch>=") and "==" not in names["torch"]
    assert "tqdm" in names["lab"] and "ropelab[torch]" in names["lab"]
    assert "transformers==" in names["hf"]
    book = " ".join(extras["book"])
    for extra in ("plots", "widgets", "torch", "lab", "hf"):
        assert extra in book
    base = " ".join(pyproject()["project"]["dependencies"])
    for heavy in ("matplotlib", "ipywidgets", "torch", "transformers"):
        assert heavy not in base


def test_requirements_and_colab_use_the_book_extra():
    requirements = (ROOT / "requirements.txt").read_text().splitlines()
    assert "torch==2.13.0" in requirements
    assert "-e .[book]" in requirements
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        setup = "".join(json.loads(path.read_text())["cells"][0]["source"])
        assert 'f"ropelab[book] @ {WHEEL_URL}"' in setup, f"{path.name}: no extra installed"


def _run(code: str, cwd: Path) -> subprocess.CompletedProcess:
    # a reader's environment: none of the repository's settings (conftest.py sets page mode)
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "ROPELAB_EXPLORE_SCRIPT")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    return subprocess.run(
        [str(PYTHON), "-c", code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )


@pytest.fixture(scope="module")
def wheel_env() -> Path:
    if not PYTHON.exists():
        pytest.fail("no .venv-wheel: run `make wheel-env` (make test does it) first")
    return PYTHON


def test_the_wheel_is_installed_not_the_source_tree(wheel_env, tmp_path):
    done = _run(
        "import ropelab, torch; print(ropelab.__file__); print(torch.__version__)", tmp_path
    )
    assert done.returncode == 0, done.stderr
    location, torch_version = done.stdout.split()
    assert str(WHEEL_VENV) in location and str(ROOT / "src") not in location
    assert torch_version.split("+")[0] == "2.13.0"


def test_the_wheel_ships_every_data_file(wheel_env, tmp_path):
    """Every file of the package that is not Python source (the explorables' script, the
    released configs, the lab's results and models) is in the installed package."""
    source = ROOT / "src" / "ropelab"
    expected = sorted(
        str(p.relative_to(source))
        for p in source.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    )
    done = _run(
        "import pathlib, ropelab\n"
        "root = pathlib.Path(ropelab.__file__).parent\n"
        "print('\\n'.join(sorted(str(p.relative_to(root)) for p in root.rglob('*')"
        " if p.is_file() and p.suffix not in ('.py', '.pyc') and '__pycache__' not in p.parts)))",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == expected


def _text_outputs(notebook: nbformat.NotebookNode) -> list[list[str]]:
    """Per code cell: its printed text and text/plain results (the numbers a reader sees)."""
    cells = []
    for cell in notebook.cells:
        if cell.cell_type != "code" or "nbval-ignore-output" in cell.metadata.get("tags", []):
            continue
        texts = []
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                texts.append(output.text)
            elif "data" in output and "text/html" not in output.data:
                texts.append(output.data.get("text/plain", ""))
        cells.append(texts)
    return cells


def test_a_chapter_runs_from_the_wheel(wheel_env, tmp_path):
    copy = tmp_path / CHAPTER.name
    copy.write_text(CHAPTER.read_text(encoding="utf-8"), encoding="utf-8")
    code = (
        "import nbformat\n"
        "from nbclient import NotebookClient\n"
        f"nb = nbformat.read({str(copy)!r}, as_version=4)\n"
        f"NotebookClient(nb, timeout=600, kernel_name='python3',"
        f" resources={{'metadata': {{'path': {str(tmp_path)!r}}}}}).execute()\n"
        f"nbformat.write(nb, {str(copy)!r})\n"
    )
    done = _run(code, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    ran = nbformat.read(copy, as_version=4)
    committed = nbformat.read(CHAPTER, as_version=4)
    assert _text_outputs(ran) == _text_outputs(committed)
    # live in a notebook, each explorable carries the script itself
    html = [
        o.data["text/html"]
        for c in ran.cells
        for o in c.get("outputs", [])
        if "text/html" in o.get("data", {}) and "ropelab-explorable" in o.data["text/html"]
    ]
    assert html and all("window.ropelabExplore = Object.assign" in h for h in html)
