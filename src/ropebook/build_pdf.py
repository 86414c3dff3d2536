"""Build the whole book as a PDF (issue 18): Jupyter Book's LaTeX builder, then XeLaTeX.

The book is built from the notebooks' committed outputs (execution off, as
``tools/build_site.py`` does), with the book's own ``_config.yml``: the LaTeX settings live in
``src/ropebook/ext/lecturer_kit.py`` and ``book/latex/``. One PDF per edition::

    .venv/bin/python tools/build_pdf.py                      # instructor and student
    .venv/bin/python tools/build_pdf.py --edition student    # one edition
    .venv/bin/python tools/build_pdf.py --edition zh         # the Chinese edition (issue 27)

Writes ``_build/pdf/<edition>/_build/latex/`` (the LaTeX sources and XeLaTeX's log, which
``tests/test_pdf.py`` reads) and the PDF into the kit, ``_build/kit/kit/rope-derived-and-run.pdf``
(``…-student.pdf``, ``…-zh.pdf``), from where the site build copies it
(``src/ropebook/ext/lecturer_kit.py``). The Chinese edition is built from the source tree
``tools/build_zh.py`` writes (the English notebooks with the translation store's units), in the
same class and preamble: xeCJK sets its Chinese in Noto Serif CJK SC, the Latin text in the
book's own fonts.
``make pdf`` runs it; TeX Live comes from Debian's packages (``make texlive``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from ropebook import ROOT
from ropebook.build_site import quick_config
from ropebook.kit import EDITIONS, LATEX_TARGET, ZH_DIR, pdf_name

#: The PDFs this tool builds: both editions of the English book, and the Chinese one.
PDF_EDITIONS = (*EDITIONS, ZH_DIR)

DEFAULT_OUT = ROOT / "_build" / "pdf"
DEFAULT_KIT = ROOT / "_build" / "kit"


def edition_config(edition: str, root: Path = ROOT) -> dict:
    """``_config.yml`` with execution off, for one edition, with the LaTeX document named."""
    if edition == ZH_DIR:
        from ropebook.build_zh import zh_config

        config = zh_config(root)
        config["sphinx"]["config"]["ropelab_edition"] = "instructor"
    else:
        config = quick_config(root)
        config["sphinx"].setdefault("config", {})["ropelab_edition"] = edition
    latex = config.setdefault("latex", {})
    latex["latex_engine"] = "xelatex"
    documents = latex.setdefault("latex_documents", {})
    documents["targetname"] = f"{LATEX_TARGET}.tex"
    if edition == ZH_DIR:
        documents["title"] = config["title"]
    elif edition != "instructor":
        documents["title"] = f"{config.get('title', 'RoPE, derived and run')} ({edition} edition)"
    return config


def build_latex(edition: str, out: Path, *, strict: bool = True) -> Path:
    """Run the LaTeX builder; return the folder holding ``rope-derived-and-run.tex``. The
    Chinese edition is built from its source tree, written into ``out/src`` first."""
    source = ROOT
    if edition == ZH_DIR:
        from ropebook.build_zh import report_missing, write_tree

        source = out / "src"
        report_missing(write_tree(source))
    with tempfile.TemporaryDirectory(prefix="ropelab-pdf-") as tmp:
        config_path = Path(tmp) / "_config.yml"
        config_path.write_text(
            yaml.safe_dump(edition_config(edition), sort_keys=False, allow_unicode=True)
        )
        command = [
            str(Path(sys.executable).parent / "jupyter-book"),
            "build",
            "--all",
            "--builder",
            "latex",
            "--config",
            str(config_path),
            "--path-output",
            str(out),
            str(source),
        ]
        if strict:
            command[3:3] = ["-W", "--keep-going"]
        subprocess.run(command, cwd=ROOT, check=True)
    return out / "_build" / "latex"


def run_xelatex(latex_dir: Path) -> Path:
    """latexmk with XeLaTeX until the references settle; the PDF's path."""
    tex = f"{LATEX_TARGET}.tex"
    command = [
        "latexmk",
        "-xelatex",
        "-interaction=nonstopmode",
        "-halt-on-error",
        "-file-line-error",
        tex,
    ]
    # Long log lines unbroken (TeX wraps at 79 characters), for src/ropebook/pdf_checks.py.
    env = {**os.environ, "max_print_line": "10000"}
    result = subprocess.run(command, cwd=latex_dir, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        log = latex_dir / f"{LATEX_TARGET}.log"
        tail = log.read_text(errors="replace")[-4000:] if log.exists() else result.stdout[-4000:]
        raise SystemExit(f"xelatex failed (see {log}):\n{tail}")
    return latex_dir / f"{LATEX_TARGET}.pdf"


def latex_dir(edition: str, out: Path = DEFAULT_OUT) -> Path:
    """Where the LaTeX sources and the log of an edition are."""
    return out / edition / "_build" / "latex"


def build(edition: str, out: Path, kit: Path, *, strict: bool = True) -> Path:
    started = time.perf_counter()
    folder = build_latex(edition, out / edition, strict=strict)
    sphinx_s = time.perf_counter() - started
    pdf = run_xelatex(folder)
    total = time.perf_counter() - started
    target = kit / pdf_name(edition)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(pdf, target)
    print(
        f"{edition} edition: {target} (LaTeX builder {sphinx_s:.0f} s, "
        f"XeLaTeX {total - sphinx_s:.0f} s)"
    )
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--edition",
        choices=(*PDF_EDITIONS, "both", "all"),
        default="all",
        help="both: the English editions; all (the default): those and the Chinese one",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="LaTeX work folder")
    parser.add_argument("--kit", type=Path, default=DEFAULT_KIT, help="the kit's folder")
    parser.add_argument(
        "--allow-warnings", action="store_true", help="do not stop on Sphinx warnings (no -W)"
    )
    args = parser.parse_args(argv)
    if shutil.which("latexmk") is None or shutil.which("xelatex") is None:
        print("latexmk/xelatex not found: `make texlive` installs TeX Live", file=sys.stderr)
        return 1
    editions = {"both": EDITIONS, "all": PDF_EDITIONS}.get(args.edition, (args.edition,))
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    for edition in editions:
        build(edition, out, args.kit.resolve(), strict=not args.allow_warnings)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
