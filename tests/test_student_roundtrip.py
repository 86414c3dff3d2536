"""A chapter run as a student runs it (issue 32): from the book's site, outside the repository.

The site is built once (the quick build: committed outputs, no execution, with the wheel and
the chapter zips of ``src/ropebook/ext/deployment.py``) with ``ROPELAB_SITE_URL`` pointing at a
local HTTP server (``127.0.0.1``, a free port) that serves it. A chapter's page is fetched, its
notebook download (the ``_sources/…ipynb`` link on the page) is fetched from that link as a
browser would, and the notebook runs under strict nbval in a fresh virtual environment that
has only torch 2.13.0 (pinned first, as on Colab), nbclient, ipykernel, pytest and nbval: no
``ropelab``, no repository on the path. The setup cell installs ``ropelab[book]`` from the
served wheel, and every committed output must come out the same.

Between chapters only ``ropelab`` is uninstalled (its dependencies stay), so every chapter's
setup cell installs from the server again while the environment is built once. Then a
chapter's zip (notebook and wheel) runs with the server stopped and pip's index turned off
(``PIP_NO_INDEX``): the setup cell installs the wheel beside the notebook, offline.

The chapters with the heaviest needs: the lab's chapter 7, chapter 8 (transformers), 8A
(``gguf``), and one student notebook (``tools/student_notebooks.py`` on a chapter's download,
what the student edition offers). ``ROPELAB_EXPLORE_SCRIPT=page`` is the one setting the
kernels get from the test: the committed outputs are the site's (page mode), see conftest.py.
Marked ``roundtrip``; ``make test`` runs it. The site builds while the environment is made;
measured on a 2-core machine shared with other builds: 3.7 min at a load average of about 3
(site build and environment 69 s, the first setup cell, ropelab[book] with its dependencies,
33 s, each later one 3-4 s), 9.6 min at about 6; ``-s`` prints the times.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

import pytest

from ropebook.explorables import serve_scripts_from_page

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ["07_extrapolation_lab", "08_rope_in_practice", "08a_engines_and_checkpoints"]
#: The chapter whose student notebook runs, and the chapter whose zip runs offline.
STUDENT_CHAPTER = "04_theta_spectrum"
ZIP_CHAPTER = "08a_engines_and_checkpoints"
TORCH_PIN = "torch==2.13.0"
TOOLS = ["nbclient", "ipykernel", "pytest", "nbval"]

pytestmark = pytest.mark.roundtrip

TIMES: dict[str, float] = {}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _clean_env(**extra: str) -> dict[str, str]:
    """The environment of a student's machine: none of the repository's settings."""
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "ROPELAB_SITE_URL", "JUPYTER_PATH", "PYTHONHOME")
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("PYTEST")}
    serve_scripts_from_page(env)
    env.update(extra)
    return env


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def _fresh_venv(venv: Path) -> Path:
    """A fresh virtual environment with only torch and the tools that run a notebook."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=_clean_env())
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, TORCH_PIN], check=True, env=_clean_env())
    subprocess.run([*pip, *TOOLS], check=True, env=_clean_env())
    found = subprocess.run(
        [str(python), "-c", "import importlib.util as u; print(u.find_spec('ropelab'))"],
        capture_output=True,
        text=True,
        check=True,
        env=_clean_env(),
        cwd=venv,
    )
    assert found.stdout.strip() == "None", "the fresh environment must not have ropelab"
    return python


@pytest.fixture(scope="module")
def roundtrip(tmp_path_factory):
    """The quick site built for ``http://127.0.0.1:<port>`` and served there, and the fresh
    environment (made while the site builds)."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    out = tmp_path_factory.mktemp("roundtrip-site")
    start = time.monotonic()
    build = subprocess.Popen(
        [sys.executable, str(ROOT / "tools" / "build_site.py"), "--out", str(out)],
        cwd=ROOT,
        env={**os.environ, "ROPELAB_SITE_URL": url},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        python = _fresh_venv(tmp_path_factory.mktemp("student-venv") / "venv")
        TIMES["fresh venv"] = time.monotonic() - start
    finally:
        log, _ = build.communicate()
    assert build.returncode == 0, log[-5000:]
    TIMES["site build and fresh venv"] = time.monotonic() - start
    html = out / "_build" / "html"
    handler = functools.partial(_Quiet, directory=str(html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield {"url": url, "html": html, "server": server, "python": python}
    server.shutdown()
    server.server_close()
    print("\nround trip, seconds: " + ", ".join(f"{k} {v:.0f}" for k, v in TIMES.items()))


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as response:
        assert response.status == 200, url
        return response.read()


def _link(page_url: str, page: str, suffix: str, folder: str = "") -> str:
    """The page's one link ending in ``suffix`` (and, with ``folder``, into that folder of the
    site: a chapter's prose may link the kit's figures archive too), made absolute against the
    page's address."""
    links = sorted(set(re.findall(r'href="([^"#]+' + re.escape(suffix) + r')"', page)))
    if folder:
        links = [link for link in links if f"{folder}/" in link]
    assert len(links) == 1, f"{page_url}: links ending in {suffix}: {links}"
    return urllib.parse.urljoin(page_url, links[0])


def _download_notebook(site: dict, stem: str, folder: Path) -> Path:
    page_url = f"{site['url']}/notebooks/{stem}.html"
    page = _get(page_url).decode("utf-8")
    link = _link(page_url, page, ".ipynb")
    assert "/_sources/" in link
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{stem}.ipynb"
    target.write_bytes(_get(link))
    return target


def _nbval(python: Path, notebook: Path, **env: str) -> subprocess.CompletedProcess:
    sanitize = notebook.parent / "nbval_sanitize.cfg"
    shutil.copy(ROOT / "tests" / "nbval_sanitize.cfg", sanitize)
    return subprocess.run(
        [
            str(python),
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "--nbval",
            "--nbval-current-env",
            "--nbval-sanitize-with",
            str(sanitize),
            "--durations=0",
            "--durations-min=0",
            notebook.name,
        ],
        cwd=notebook.parent,
        env=_clean_env(**env),
        capture_output=True,
        text=True,
        check=False,
        timeout=1200,
    )


def _uninstall_ropelab(python: Path) -> None:
    subprocess.run(
        [str(python), "-m", "pip", "uninstall", "--quiet", "-y", "ropelab"],
        check=True,
        env=_clean_env(),
    )


def _installed_from(python: Path) -> str:
    """Where pip says the installed ropelab came from (its direct_url.json)."""
    code = (
        "import importlib.metadata as m;"
        "print(m.distribution('ropelab').read_text('direct_url.json'))"
    )
    done = subprocess.run(
        [str(python), "-c", code], capture_output=True, text=True, env=_clean_env(), cwd="/"
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["url"]


def _run_chapter(site: dict, notebook: Path, label: str) -> None:
    python = site["python"]
    _uninstall_ropelab(python)
    start = time.monotonic()
    done = _nbval(python, notebook)
    TIMES[label] = time.monotonic() - start
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    setup = re.search(r"([\d.]+)s call +\S+::Cell 0\b", done.stdout)
    if setup:
        TIMES[f"{label}: setup cell"] = float(setup.group(1))
    slowest = re.search(r"([\d.]+)s call +\S+::(Cell \d+)", done.stdout)
    if slowest:
        TIMES[f"{label}: slowest cell ({slowest.group(2)})"] = float(slowest.group(1))
    wheel = next((site["html"] / "wheels").glob("ropelab-*.whl")).name
    assert _installed_from(python) == f"{site['url']}/wheels/{wheel}"


def test_the_site_offers_each_chapter_with_its_wheel_address(roundtrip):
    site = roundtrip
    for stem in [*CHAPTERS, STUDENT_CHAPTER]:
        page_url = f"{site['url']}/notebooks/{stem}.html"
        page = _get(page_url).decode("utf-8")
        notebook = json.loads(_get(_link(page_url, page, ".ipynb")))
        setup = "".join(notebook["cells"][0]["source"])
        assert f'WHEEL_URL = "{site["url"]}/wheels/ropelab-' in setup
        assert _link(page_url, page, ".zip", "downloads").endswith(f"/downloads/{stem}.zip")
    wheels = sorted((site["html"] / "wheels").glob("ropelab-*.whl"))
    assert len(wheels) == 1 and wheels[0].stat().st_size > 100_000


def test_chapters_run_from_the_served_wheel(roundtrip, tmp_path):
    """The first chapter's setup cell installs ropelab[book] with its dependencies (timed as
    "first install"), the next ones ropelab alone."""
    for index, stem in enumerate(CHAPTERS):
        notebook = _download_notebook(roundtrip, stem, tmp_path / stem)
        label = f"{stem} (with the first install)" if index == 0 else stem
        _run_chapter(roundtrip, notebook, label)


def test_a_student_notebook_runs_from_the_served_wheel(roundtrip, tmp_path):
    from ropebook.student_notebooks import student_notebook

    downloaded = _download_notebook(roundtrip, STUDENT_CHAPTER, tmp_path / "download")
    chapter = json.loads(downloaded.read_text(encoding="utf-8"))
    student = student_notebook(chapter)
    assert len(student["cells"]) < len(chapter["cells"]), "no solution was removed"
    notebook = tmp_path / "student" / f"{STUDENT_CHAPTER}.ipynb"
    notebook.parent.mkdir()
    notebook.write_text(json.dumps(student, indent=1, ensure_ascii=False) + "\n")
    _run_chapter(roundtrip, notebook, f"student {STUDENT_CHAPTER}")


def test_a_chapter_zip_runs_offline(roundtrip, tmp_path):
    """The zip alone: the server stopped, pip without an index; the wheel beside the notebook
    is what the setup cell installs."""
    site, student_env = roundtrip, roundtrip["python"]
    page_url = f"{site['url']}/notebooks/{ZIP_CHAPTER}.html"
    archive = tmp_path / f"{ZIP_CHAPTER}.zip"
    archive.write_bytes(_get(_link(page_url, _get(page_url).decode("utf-8"), ".zip", "downloads")))
    with zipfile.ZipFile(archive) as bundle:
        names = sorted(bundle.namelist())
        bundle.extractall(tmp_path / "unzipped")
    assert names[0] == f"{ZIP_CHAPTER}/{ZIP_CHAPTER}.ipynb"
    assert re.fullmatch(rf"{ZIP_CHAPTER}/ropelab-[\w.]+-py3-none-any\.whl", names[1])
    site["server"].shutdown()  # the site is gone: only the zip is left
    _uninstall_ropelab(student_env)
    notebook = tmp_path / "unzipped" / ZIP_CHAPTER / f"{ZIP_CHAPTER}.ipynb"
    start = time.monotonic()
    done = _nbval(student_env, notebook, PIP_NO_INDEX="1")
    TIMES[f"zip {ZIP_CHAPTER} offline"] = time.monotonic() - start
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert _installed_from(student_env).startswith("file://")
    assert _installed_from(student_env).endswith(names[1].split("/")[1])
