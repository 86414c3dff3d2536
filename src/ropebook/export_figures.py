"""Every figure of the book as SVG and PDF, named by its number, in one archive (issue 18).

The figures are matplotlib figures drawn by ropelab functions in the chapters' cells. This
tool runs each chapter in a kernel of its own, in memory, with one extra first cell that makes
matplotlib's inline backend emit SVG and PDF beside PNG (``set_matplotlib_formats``); the
notebooks on disk, their committed outputs and nbval are untouched. Each figure cell of the
committed notebook (a code cell with a PNG output that the book shows) is matched with the
same cell of the run, and its vector outputs are written as::

    svg/fig-5-2-decay-sweep.svg     pdf/fig-5-2-decay-sweep.pdf

``5`` the chapter, ``2`` the figure's number in it (as the book numbers it: the n-th figure
with a caption, ``src/ropebook/ext/chapter_numbers.py``), ``decay-sweep`` the slug of its name
(cell metadata ``mystnb.figure.name = "fig-5-decay-sweep"``). A figure without a caption yet
has no number: ``fig-5-unnumbered-3.svg`` (its third such figure). ``index.json``,
``index.html`` and ``README.txt`` give every figure's number, caption (the same text as in
the book), chapter and files. Everything is zipped into
``_build/kit/kit/rope-derived-and-run-figures.zip``, which the site serves (its "Lecturer's
kit" menu and the introduction link to it)::

    .venv/bin/python tools/export_figures.py              # every chapter of _toc.yml
    .venv/bin/python tools/export_figures.py --jobs 1 notebooks/05_long_range_decay.ipynb

Each figure drawn again is checked against the book: its PNG (from the same drawing as its SVG
and PDF) looks like the committed PNG of the same cell (their thumbnails differ by at most
2.5 % on average; two different figures of the book differ by 5 % or more), and the SVG has
the same aspect ratio. The PNGs are in the archive too (``png/``).
"""

from __future__ import annotations

import argparse
import base64
import html
import json
import multiprocessing
import os
import re
import struct
import tempfile
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from ropebook import ROOT
from ropebook.book_toc import toc_notebooks
from ropebook.explorables import serve_scripts_from_page
from ropebook.kit import FIGURES_ARCHIVE

DEFAULT_OUT = ROOT / "_build" / "figures"
DEFAULT_KIT = ROOT / "_build" / "kit"
ARCHIVE_FOLDER = Path(FIGURES_ARCHIVE).stem

#: "5. Long-range decay" -> "5" (the same rule as src/ropebook/ext/chapter_numbers.py).
CHAPTER_TITLE = re.compile(r"^#\s+(\d+[A-Z]?)\.\s+(.*\S)")
#: Cells the book does not show.
HIDDEN_TAGS = {"remove-cell", "remove-output"}

#: The first cell of the export run (not saved anywhere): vector formats beside PNG,
#: reproducible files (no dates, fixed SVG ids).
VECTOR_SETUP = """\
import matplotlib
from matplotlib_inline.backend_inline import set_matplotlib_formats
matplotlib.rcParams["svg.hashsalt"] = "ropelab"
set_matplotlib_formats("png", "svg", "pdf")
"""


@dataclass
class Figure:
    """One figure of the book, as the index lists it."""

    chapter: str
    chapter_title: str
    page: str  #: the chapter's page in the site, e.g. notebooks/05_long_range_decay.html
    number: str | None  #: "5.2", or None for a figure without a caption yet
    name: str | None  #: mystnb.figure.name, e.g. fig-5-decay-sweep
    caption: str
    stem: str  #: fig-5-2-decay-sweep
    cell: int  #: index of the cell in the notebook
    output: int  #: index of the output in the cell
    svg: str = ""
    pdf: str = ""
    png: str = ""


def chapter_of(notebook: nbformat.NotebookNode) -> tuple[str, str]:
    """``("5", "Long-range decay")`` from the notebook's ``# 5. Long-range decay`` title."""
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                match = CHAPTER_TITLE.match(line)
                if match:
                    return match.group(1), match.group(2)
    raise ValueError("no chapter title ('# 5. Title') in the notebook")


def slug_of(name: str | None, chapter: str) -> str:
    """``fig-5-decay-sweep`` -> ``decay-sweep`` (the chapter prefix dropped)."""
    if not name:
        return ""
    prefix = f"fig-{chapter.lower()}-"
    slug = name[len(prefix) :] if name.lower().startswith(prefix) else name.removeprefix("fig-")
    return re.sub(r"[^a-z0-9]+", "-", slug.lower()).strip("-")


def book_figures(path: Path) -> list[Figure]:
    """The figures a chapter shows, numbered as the book numbers them, from its committed
    outputs (no execution)."""
    notebook = nbformat.read(path, as_version=4)
    chapter, title = chapter_of(notebook)
    figures: list[Figure] = []
    numbered = unnumbered = 0
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or HIDDEN_TAGS & set(cell.metadata.get("tags", [])):
            continue
        images = [
            i for i, out in enumerate(cell.get("outputs", [])) if "image/png" in out.get("data", {})
        ]
        if not images:
            continue
        meta = (cell.metadata.get("mystnb") or {}).get("figure") or {}
        caption = str(meta.get("caption", "")).strip()
        name = meta.get("name")
        for k, output in enumerate(images):
            # myst-nb makes the whole cell output one figure: its first image carries the
            # number; a second image in the same cell is part of it (none in the book today).
            if caption and k == 0:
                numbered += 1
                number = f"{chapter}.{numbered}"
                slug = slug_of(name, chapter) or f"figure-{numbered}"
                stem = f"fig-{chapter.lower()}-{numbered}-{slug}"
            else:
                unnumbered += 1
                number = None
                stem = f"fig-{chapter.lower()}-unnumbered-{unnumbered}"
            figures.append(
                Figure(
                    chapter=chapter,
                    chapter_title=title,
                    page=str(path.relative_to(ROOT).with_suffix(".html")),
                    number=number,
                    name=name if number else None,
                    caption=caption if number else "",
                    stem=stem,
                    cell=index,
                    output=output,
                )
            )
    return figures


def png_size(data: str) -> tuple[int, int]:
    raw = base64.b64decode(data)
    width, height = struct.unpack(">II", raw[16:24])
    return width, height


#: Largest mean difference (0 to 1) between the thumbnails of a figure drawn again and of the
#: book's PNG: a figure drawn again differs by a pixel of cropping (bbox "tight") and by
#: anti-aliasing, about 0.01; two different figures of the book differ by 0.05 or more.
MAX_PIXEL_DIFFERENCE = 0.025


def pixel_difference(first: bytes, second: bytes) -> float:
    """Mean absolute difference (0 to 1) of two PNGs, as 160 x 100 grey thumbnails."""
    import io

    import numpy as np
    from PIL import Image

    def thumbnail(data: bytes) -> np.ndarray:
        image = Image.open(io.BytesIO(data)).convert("L").resize((160, 100))
        return np.asarray(image, dtype=float) / 255.0

    return float(np.abs(thumbnail(first) - thumbnail(second)).mean())


def svg_size(svg: str) -> tuple[float, float]:
    match = re.search(r'<svg[^>]*\swidth="([\d.]+)pt"[^>]*\sheight="([\d.]+)pt"', svg)
    if not match:
        raise ValueError("an SVG without a width and height in pt")
    return float(match.group(1)), float(match.group(2))


def run_vector(path: Path, timeout: int = 900) -> nbformat.NotebookNode:
    """The notebook executed in memory with SVG and PDF figure outputs (first cell added)."""
    from jupyter_client.manager import KernelManager

    notebook = nbformat.read(path, as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(VECTOR_SETUP))
    with tempfile.TemporaryDirectory(prefix="ropelab-kernel-") as sockets:
        # Kernels started at the same moment over TCP can pick the same ports and answer the
        # wrong client (the run then hangs): each kernel talks over its own IPC sockets.
        manager = KernelManager(kernel_name="python3", transport="ipc", ip=f"{sockets}/kernel")
        client = NotebookClient(
            notebook,
            km=manager,
            timeout=timeout,
            record_timing=False,
            store_widget_state=True,  # nbclient's Output-widget hook needs it while running
            resources={"metadata": {"path": str(path.parent)}},
        )
        client.execute()
    return notebook


def export_chapter(path: Path, out: Path) -> list[Figure]:
    """Run one chapter and write its figures' SVG and PDF files into ``out``."""
    figures = book_figures(path)
    if not figures:
        return []
    committed = nbformat.read(path, as_version=4)
    executed = run_vector(path)
    for figure in figures:
        cell = executed.cells[figure.cell + 1]  # the setup cell comes first
        png_output = committed.cells[figure.cell].outputs[figure.output]
        images = [o for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
        committed_images = [
            o for o in committed.cells[figure.cell].outputs if "image/png" in o.get("data", {})
        ]
        if len(images) != len(committed_images):
            raise RuntimeError(
                f"{path.name} cell {figure.cell}: {len(images)} images now, "
                f"{len(committed_images)} committed"
            )
        output = images[committed_images.index(png_output)]
        data = output["data"]
        if "image/svg+xml" not in data or "application/pdf" not in data:
            raise RuntimeError(f"{path.name} cell {figure.cell}: no SVG/PDF output")
        svg = data["image/svg+xml"]
        svg = svg if isinstance(svg, str) else "".join(svg)
        width, height = svg_size(svg)
        png_w, png_h = png_size(png_output["data"]["image/png"])
        if abs(width / height - png_w / png_h) > 0.02 * (png_w / png_h):
            raise RuntimeError(
                f"{path.name} cell {figure.cell}: SVG {width:.0f}x{height:.0f} pt does not have "
                f"the aspect of the committed PNG {png_w}x{png_h} px"
            )
        fresh_png = base64.b64decode(data["image/png"])
        difference = pixel_difference(fresh_png, base64.b64decode(png_output["data"]["image/png"]))
        if difference > MAX_PIXEL_DIFFERENCE:
            raise RuntimeError(
                f"{path.name} cell {figure.cell}: drawn again, the figure differs from the book's "
                f"(mean pixel difference {difference:.4f}): run the chapter in place first"
            )
        figure.svg = f"svg/{figure.stem}.svg"
        figure.pdf = f"pdf/{figure.stem}.pdf"
        figure.png = f"png/{figure.stem}.png"
        (out / figure.svg).write_text(svg, encoding="utf-8")
        (out / figure.pdf).write_bytes(base64.b64decode(data["application/pdf"]))
        (out / figure.png).write_bytes(fresh_png)
    return figures


def write_index(figures: list[Figure], out: Path) -> None:
    (out / "index.json").write_text(
        json.dumps([asdict(f) for f in figures], indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    rows = []
    for f in figures:
        label = f"Figure {f.number}" if f.number else "Unnumbered figure"
        caption = html.escape(f.caption) if f.caption else "<em>(no caption in the book yet)</em>"
        rows.append(
            f'<figure id="{f.stem}"><img src="{f.svg}" alt="{label}" loading="lazy">'
            f"<figcaption><strong>{label}:</strong> {caption}<br>"
            f"<small>Chapter {f.chapter}, {html.escape(f.chapter_title)} · "
            f'<a href="{f.svg}">SVG</a> · <a href="{f.pdf}">PDF</a> · <a href="{f.png}">PNG</a>'
            "</small></figcaption></figure>"
        )
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>RoPE, derived and run: figures</title><style>"
        "body{font-family:sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}"
        "figure{margin:0 0 2.5rem}img{max-width:100%;height:auto}"
        "figcaption{margin-top:.5rem;line-height:1.4}</style></head><body>"
        "<h1>RoPE, derived and run: every figure</h1>"
        f"<p>{len(figures)} figures, as SVG and PDF, named by their number in the book.</p>\n"
        + "\n".join(rows)
        + "\n</body></html>\n"
    )
    (out / "index.html").write_text(page, encoding="utf-8")
    lines = [
        "RoPE, derived and run: every figure of the book as SVG (svg/), PDF (pdf/), PNG (png/).",
        "File names carry the figure's number: fig-5-2-decay-sweep is Figure 5.2.",
        "The captions are the book's; index.html shows them with the figures, index.json",
        "lists them for scripts. The figures are drawn by the ropelab package (MIT licence);",
        "please credit the book when you reuse them.",
        "",
    ]
    for f in figures:
        label = f"Figure {f.number}" if f.number else "(unnumbered)"
        lines.append(f"{f.stem}: {label}. {f.caption}".rstrip())
    (out / "README.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_archive(out: Path, archive: Path) -> None:
    """The figures folder as a zip (fixed timestamps, so an unchanged book gives the same file)."""
    archive.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(p for p in out.rglob("*") if p.is_file()):
            info = zipfile.ZipInfo(
                f"{ARCHIVE_FOLDER}/{path.relative_to(out).as_posix()}", (2026, 1, 1, 0, 0, 0)
            )
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, path.read_bytes())


def _export(args: tuple[str, str]) -> list[Figure]:
    path, out = args
    started = time.perf_counter()
    figures = export_chapter(Path(path), Path(out))
    print(f"  {Path(path).name}: {len(figures)} figures ({time.perf_counter() - started:.0f} s)")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every chapter")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--kit", type=Path, default=DEFAULT_KIT)
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args(argv)
    # The book's outputs: explorables leave their script to the site (tools/run_notebooks.py);
    # SOURCE_DATE_EPOCH keeps dates out of the PDF files.
    serve_scripts_from_page()
    os.environ.setdefault("SOURCE_DATE_EPOCH", "1767225600")
    paths = [p.resolve() for p in args.notebooks] or toc_notebooks()
    out = args.out.resolve()
    for sub in ("svg", "pdf", "png"):
        (out / sub).mkdir(parents=True, exist_ok=True)
        for old in (out / sub).iterdir():
            old.unlink()
    started = time.perf_counter()
    jobs = [(str(p), str(out)) for p in paths]
    if args.jobs > 1:
        # "spawn": a forked worker inherits the parent's ZeroMQ state and its kernel can hang.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=args.jobs, mp_context=context) as pool:
            results = list(pool.map(_export, jobs))
    else:
        results = [_export(job) for job in jobs]
    figures = [f for chapter in results for f in chapter]
    write_index(figures, out)
    archive = args.kit.resolve() / FIGURES_ARCHIVE
    write_archive(out, archive)
    numbered = sum(1 for f in figures if f.number)
    print(
        f"{len(figures)} figures ({numbered} numbered) -> {archive} "
        f"({time.perf_counter() - started:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
