"""Where the book is deployed, read in one place, and the package the site carries (issue 32).

Three environment variables, all optional, set by whoever deploys the site:

* ``ROPELAB_SITE_URL``: the address the built site (``_build/html``) is served from, e.g.
  ``https://example.org/rope``. Each chapter's notebook download (``_sources/…ipynb``) and
  its zip then install ``ropelab[book]`` from the site's own wheel
  (``<ROPELAB_SITE_URL>/wheels/ropelab-<version>-py3-none-any.whl``): a student uploads the
  notebook to Colab, runs its first cell, and has the package.
* ``ROPELAB_REPOSITORY``: a public Git repository holding this book (``https://github.com/…``):
  the instructor and Chinese editions get the repository button and the Binder button
  (``binder/`` installs the same pins); ``ROPELAB_BRANCH`` names its branch (default
  ``main``). There is no Colab button: it would open the committed notebook from the
  repository, which knows no wheel; on Colab a student uploads the site's notebook download.
* ``ROPELAB_STUDENT_REPOSITORY``: the same for the student edition, a repository holding the
  student notebooks only. The student edition never links ``ROPELAB_REPOSITORY`` (it holds the
  solutions); without this setting it has no repository or launch button at all.

With none set, no page, notebook, slide or PDF names a repository or a hosted copy: the
notebooks' setup cell names no address, the launch and repository buttons are off.

Whatever is set, every HTML build puts the wheel built from this repository into
``wheels/`` of the site and a zip per chapter into ``downloads/<chapter>.zip`` (the notebook
beside the wheel: the setup cell installs from the wheel next to it, offline), and adds the zip
to the page's download menu (next to the theme's ``.ipynb``). Nothing is added to the pages'
scripts or stylesheets (the folders are not ``_static``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from sphinx.application import Sphinx
from sphinx.util import logging

from ropebook import ROOT

LOGGER = logging.getLogger(__name__)

#: Where the wheel is built once and reused by every build of the same sources.
WHEEL_CACHE = ROOT / "_build" / "site-wheel"
#: The site's folders for the package and the chapter zips (not ``_static``).
WHEELS_DIR = "wheels"
ZIPS_DIR = "downloads"

#: The line of the notebooks' setup cell the build fills in (``tests/test_deployment.py``).
WHEEL_URL_LINE = 'WHEEL_URL = ""  # the site writes its wheel\'s address here'
#: The setup cell every notebook starts with (the template's and every chapter's first cell).
SETUP_CELL = f"""\
# Setup (hidden in the book): install ropelab, this book's package, with what
# a chapter needs, when it is missing (on Colab, say): from a ropelab wheel
# beside this notebook (the chapter's zip), else from the book's site. Where
# ropelab is installed this cell does nothing.
import importlib
import importlib.util
import pathlib
import subprocess
import sys

{WHEEL_URL_LINE}

if importlib.util.find_spec("ropelab") is None:
    wheels = sorted(pathlib.Path().glob("ropelab-*.whl"))
    if wheels:
        WHEEL_URL = wheels[-1].resolve().as_uri()
    if not WHEEL_URL:
        raise RuntimeError(
            "ropelab is missing: download this chapter's zip from the book's "
            "site and open the notebook next to the wheel it holds"
        )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            f"ropelab[book] @ {{WHEEL_URL}}",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise RuntimeError(done.stdout + done.stderr)
    importlib.invalidate_caches()"""


def settings() -> dict[str, str]:
    """The deployment settings from the environment (empty strings where unset), trailing
    slashes removed."""
    names = {
        "site_url": "ROPELAB_SITE_URL",
        "repository": "ROPELAB_REPOSITORY",
        "student_repository": "ROPELAB_STUDENT_REPOSITORY",
        "branch": "ROPELAB_BRANCH",
    }
    found = {key: os.environ.get(name, "").strip().rstrip("/") for key, name in names.items()}
    found["branch"] = found["branch"] or "main"
    for key in ("site_url", "repository", "student_repository"):
        value = found[key]
        if value and urlparse(value).scheme not in ("http", "https"):
            raise ValueError(f"{names[key]} must be an http(s) address, not {value!r}")
    return found


def wheel_url(site_url: str, wheel_name: str) -> str:
    """The address of the site's wheel (``""`` when the site's address is not set)."""
    return f"{site_url}/{WHEELS_DIR}/{wheel_name}" if site_url else ""


def bake_setup_cell(notebook: dict, url: str) -> dict:
    """``notebook`` with its setup cell's wheel address filled in (the built copy only)."""
    if not url:
        return notebook
    first = notebook["cells"][0]
    text = "".join(first["source"])
    if WHEEL_URL_LINE not in text:
        raise ValueError("the notebook's first cell is not the current setup cell")
    text = text.replace(WHEEL_URL_LINE, f"WHEEL_URL = {json.dumps(url)}")
    first["source"] = text.splitlines(keepends=True)
    return notebook


def _sources_newer_than(path: Path) -> bool:
    stamp = path.stat().st_mtime
    files = [ROOT / "pyproject.toml", ROOT / "README.md", *(ROOT / "src").rglob("*")]
    return any(
        f.is_file() and "__pycache__" not in f.parts and f.stat().st_mtime > stamp for f in files
    )


def build_wheel() -> Path:
    """The wheel of this repository's ``ropelab`` (built with ``pip wheel`` into
    ``_build/site-wheel/`` unless a wheel at least as new as the sources is there)."""
    found = sorted(WHEEL_CACHE.glob("ropelab-*.whl"))
    if found and not _sources_newer_than(found[-1]):
        return found[-1]
    WHEEL_CACHE.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=WHEEL_CACHE.parent, prefix="site-wheel-") as tmp:
        # From a copy of what the wheel is made of, so that setuptools' build/ and egg-info
        # land there, not in the repository; the build environment's setuptools, no index.
        copy = Path(tmp) / "source"
        ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
        shutil.copytree(ROOT / "src", copy / "src", ignore=ignore)
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(ROOT / name, copy / name)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--no-build-isolation",
                "--quiet",
                "--disable-pip-version-check",
                "-w",
                tmp,
                str(copy),
            ],
            check=True,
        )
        built = sorted(Path(tmp).glob("ropelab-*.whl"))
        if len(built) != 1:
            raise RuntimeError(f"pip wheel built {len(built)} ropelab wheels")
        WHEEL_CACHE.mkdir(exist_ok=True)
        for old in WHEEL_CACHE.glob("ropelab-*.whl"):
            old.unlink()
        target = WHEEL_CACHE / built[0].name
        os.replace(built[0], target)  # one rename: a concurrent build never sees half a wheel
    return target


# --- the buttons ---------------------------------------------------------------------------


def _is_student(config: Any) -> bool:
    return getattr(config, "ropelab_edition", "instructor") == "student"


def configure_buttons(app: Sphinx, config: Any) -> None:
    """Repository, Binder and Colab buttons from the settings, or none of them."""
    found = settings()
    repository = found["student_repository"] if _is_student(config) else found["repository"]
    options = dict(config.html_theme_options or {})
    launch = dict(options.get("launch_buttons") or {})
    launch["binderhub_url"] = "https://mybinder.org" if repository else ""
    # No Colab button: it opens the committed notebook from GitHub, whose setup cell knows no
    # wheel; on Colab a student uploads the notebook downloaded from the site (or its zip).
    launch["colab_url"] = ""
    launch["jupyterhub_url"] = ""
    launch["thebe"] = False
    options["launch_buttons"] = launch
    options["repository_url"] = repository
    options["repository_branch"] = found["branch"]
    options["path_to_docs"] = ""
    options["use_repository_button"] = bool(repository)
    options["use_issues_button"] = False
    options["use_edit_page_button"] = False
    options["use_source_button"] = False
    config.html_theme_options = options
    config.ropelab_deployment = found


def _notebook_docs(app: Sphinx) -> list[str]:
    return sorted(
        doc for doc in app.env.found_docs if str(app.env.doc2path(doc)).endswith(".ipynb")
    )


def add_zip_button(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any
) -> None:
    """The chapter's zip (notebook and wheel) in the page's download menu."""
    if pagename not in set(_notebook_docs(app)):
        return
    url = context["pathto"](f"{ZIPS_DIR}/{Path(pagename).name}.zip", 1)
    chinese = (app.config.language or "").startswith("zh")
    button = {
        "type": "link",
        "url": url,
        "text": ".zip",
        "icon": "fas fa-file-zipper",
        "tooltip": "笔记本与 ropelab 安装包（离线运行）"
        if chinese
        else "Notebook and the ropelab package (runs offline)",
        "label": "download-zip-button",
    }
    for group in context.get("header_buttons", []):
        if group.get("label") == "download-buttons":
            group["buttons"].insert(1, button)
            return


# --- after the build: the wheel, the notebooks' address, the zips ---------------------------


def write_downloads(app: Sphinx, exception: Exception | None) -> None:
    """Copy the wheel into the site, fill in the notebook downloads' wheel address and zip
    each chapter's notebook with the wheel."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    wheel = build_wheel()
    wheels = out / WHEELS_DIR
    wheels.mkdir(exist_ok=True)
    shutil.copy2(wheel, wheels / wheel.name)
    url = wheel_url(app.config.ropelab_deployment["site_url"], wheel.name)
    zips = out / ZIPS_DIR
    zips.mkdir(exist_ok=True)
    for doc in _notebook_docs(app):
        source = out / "_sources" / f"{doc}.ipynb"
        if not source.is_file():
            continue
        notebook = bake_setup_cell(json.loads(source.read_text(encoding="utf-8")), url)
        text = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
        source.write_text(text, encoding="utf-8")
        stem = Path(doc).name
        with zipfile.ZipFile(zips / f"{stem}.zip", "w") as bundle:
            bundle.writestr(f"{stem}/{stem}.ipynb", text, compress_type=zipfile.ZIP_DEFLATED)
            bundle.write(wheel, f"{stem}/{wheel.name}")  # a wheel is compressed already
    LOGGER.info(f"deployment: wheel {wheel.name}, {len(_notebook_docs(app))} chapter zips")


def check_setup_cells(app: Sphinx, env: Any, docnames: list[str]) -> None:
    """Every notebook of the build starts with the current setup cell (re-read from disk)."""
    for doc in _notebook_docs(app):
        notebook = json.loads(Path(env.doc2path(doc)).read_text(encoding="utf-8"))
        if "".join(notebook["cells"][0]["source"]) != SETUP_CELL:
            LOGGER.warning(f"{doc}: its first cell is not the current setup cell (deployment.py)")


def setup(app: Sphinx) -> dict:
    app.add_config_value("ropelab_deployment", {}, "env")
    app.connect("config-inited", configure_buttons, priority=900)
    app.connect("html-page-context", add_zip_button, priority=502)
    app.connect("env-before-read-docs", check_setup_cells)
    app.connect("build-finished", write_downloads)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


__all__ = [
    "SETUP_CELL",
    "WHEEL_URL_LINE",
    "bake_setup_cell",
    "build_wheel",
    "settings",
    "wheel_url",
]
