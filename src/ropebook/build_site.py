"""Build the site from the notebooks' committed outputs, without executing them (about 15 s).

``make book`` executes every chapter (minutes). To check how pages lay out after editing a
chapter, run the chapter in place first (``tools/run_notebooks.py``, which refreshes its
committed outputs), then build from those outputs::

    .venv/bin/python tools/run_notebooks.py notebooks/04_theta_spectrum.ipynb
    .venv/bin/python tools/build_site.py                   # -> _build/quick/_build/html
    ROPELAB_SITE=_build/quick/_build/html .venv/bin/python -m pytest tests/browser -k 04_theta

(``make check-page PAGE=04_theta_spectrum`` does the last two steps.) The build uses the book's
own ``_config.yml`` with execution turned off and stops on any warning, as ``make book`` does.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from ropebook import ROOT

DEFAULT_OUT = ROOT / "_build" / "quick"


def quick_config(root: Path = ROOT) -> dict:
    """``_config.yml`` with execution off. Its extensions are modules of the ``ropebook``
    package (``ropebook.ext.*``), importable wherever the temporary config file lives."""
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    config.setdefault("execute", {})["execute_notebooks"] = "off"
    return config


def build_with_config(
    config: dict,
    out: Path,
    *,
    warnings_fail: bool = True,
    tree: Path = ROOT,
    builder: str = "html",
) -> int:
    """``jupyter-book build --all`` of ``tree`` (default the repository; the Chinese edition
    passes its own source tree) with ``config`` (written to a temporary ``_config.yml``) into
    ``out`` (``--path-output``); ``-W --keep-going`` unless ``warnings_fail`` is false. Returns
    jupyter-book's exit status."""
    with tempfile.TemporaryDirectory(prefix="ropelab-build-") as tmp:
        config_path = Path(tmp) / "_config.yml"
        config_path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
        command = [
            str(Path(sys.executable).parent / "jupyter-book"),
            "build",
            "--all",
            "--config",
            str(config_path),
            "--path-output",
            str(out.resolve()),
            str(Path(tree).resolve()),
        ]
        if builder != "html":
            command[3:3] = ["--builder", builder]
        if warnings_fail:
            command[3:3] = ["-W", "--keep-going"]
        return subprocess.run(command, cwd=ROOT, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="like --path-output")
    parser.add_argument(
        "--allow-warnings", action="store_true", help="do not stop on warnings (no -W)"
    )
    args = parser.parse_args(argv)
    returncode = build_with_config(quick_config(), args.out, warnings_fail=not args.allow_warnings)
    if returncode == 0:
        print(f"site: {args.out.resolve() / '_build' / 'html'}")
    return returncode


if __name__ == "__main__":
    raise SystemExit(main())
