"""Checks of the book's PDF (issue 18), used by ``tests/test_pdf.py``.

* :func:`overfull_boxes` reads XeLaTeX's log: every "Overfull \\hbox", how many points too wide,
  and whether it holds mathematics (a display equation, an aligned block, or a line whose
  material is in the math font), so that an equation cut off at the margin is found;
* :func:`math_widths` reads the width every display equation logged (``\\ropelabfit``): TeX
  does not report a display wider than the line as overfull, so the book measures each one;
* :func:`page_texts` is the text layer, page by page (``pdftotext``);
* :func:`pages_with_ink_outside` renders every page small (``pdftoppm``) and lists the pages
  with ink in a strip along the paper's edges, where nothing of the book belongs: anything
  there ran past the margins;
* :func:`normalized` folds text for comparisons (NFKC, so "𝜃𝑖" from the math font reads
  "θi"; no spaces or hyphens, which pdftotext places where lines break).
"""

from __future__ import annotations

import re
import subprocess
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path

#: "Overfull \hbox (12.3pt too wide) in paragraph at lines 10--12" and its variants.
OVERFULL = re.compile(
    r"^Overfull \\hbox \((?P<points>[\d.]+)pt too wide\) "
    r"(?:in paragraph at lines (?P<p1>\d+)--(?P<p2>\d+)"
    r"|in alignment at lines (?P<a1>\d+)--(?P<a2>\d+)"
    r"|detected at line (?P<line>\d+))",
    re.M,
)
MATH_FONT = re.compile(r"latinmodern-math|LatinModernMath|/OML/|/OMS/|/OMX/", re.I)
DISPLAY_BEGIN = re.compile(r"\\begin\{(equation|align|gather|multline|eqnarray)\*?\}")
DISPLAY_END = re.compile(r"\\end\{(equation|align|gather|multline|eqnarray)\*?\}")


@dataclass
class Overfull:
    points: float
    kind: str  #: "paragraph", "alignment" or "display"
    first: int
    last: int
    in_math: bool
    material: str  #: what the log prints of the box

    def describe(self) -> str:
        return (
            f"{self.points:.1f} pt too wide, {self.kind} at .tex lines {self.first}-{self.last}"
            f": {self.material.strip()[:120]}"
        )


def _inside_display(tex: list[str], line: int) -> bool:
    """Whether .tex line ``line`` (1-based) is inside a display-math environment."""
    for index in range(min(line, len(tex)) - 1, max(line - 400, 0) - 1, -1):
        text = tex[index]
        if DISPLAY_END.search(text) and index < line - 1:
            return False
        if DISPLAY_BEGIN.search(text):
            return True
    return False


def overfull_boxes(log: Path, tex: Path) -> list[Overfull]:
    """Every overfull line box of a XeLaTeX run, classified (math or not)."""
    text = log.read_text(encoding="utf-8", errors="replace")
    source = tex.read_text(encoding="utf-8", errors="replace").splitlines()
    boxes = []
    for match in OVERFULL.finditer(text):
        after = text[match.end() : match.end() + 400].split("\n\n")[0]
        if match.group("p1"):
            kind, first, last = "paragraph", int(match.group("p1")), int(match.group("p2"))
            in_math = bool(MATH_FONT.search(after))
        elif match.group("a1"):
            kind, first, last = "alignment", int(match.group("a1")), int(match.group("a2"))
            block = "\n".join(source[first - 1 : last])
            in_math = bool(re.search(r"\\begin\{(aligned|split|align|gather)", block)) or (
                _inside_display(source, first)
            )
        else:
            kind = "display"
            first = last = int(match.group("line"))
            in_math = _inside_display(source, first) or bool(MATH_FONT.search(after))
        boxes.append(Overfull(float(match.group("points")), kind, first, last, in_math, after))
    return boxes


MATH_WIDTH = re.compile(
    r"ropelab-math: natural=(?P<natural>[\d.]+)pt\s+shown=(?P<shown>[\d.]+)pt\s+"
    r"available=(?P<available>[\d.]+)pt\s+line=(?P<line>\d+)"
)


@dataclass
class MathWidth:
    """One display equation as ``\\ropelabfit`` (book/latex/ropelab-kit.sty) logged it."""

    natural: float
    shown: float
    available: float
    line: int


def math_widths(log: Path) -> list[MathWidth]:
    """Every display equation's natural, shown and available width, in points."""
    text = log.read_text(encoding="utf-8", errors="replace")
    return [
        MathWidth(
            float(m.group("natural")),
            float(m.group("shown")),
            float(m.group("available")),
            int(m.group("line")),
        )
        for m in MATH_WIDTH.finditer(text)
    ]


def page_texts(pdf: Path) -> list[str]:
    """The text layer of every page (``pdftotext``, in reading order)."""
    result = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True, check=True
    )
    return (
        result.stdout.split("\f")[:-1]
        if result.stdout.endswith("\f")
        else (result.stdout.split("\f"))
    )


def normalized(text: str) -> str:
    """NFKC, lower case, without whitespace, hyphens or soft hyphens."""
    folded = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"[\s\u00ad\-‐‑]+", "", folded)


def letters(text: str) -> str:
    """Only the letters and digits of ``text`` (NFKC, lower case): for comparing prose where
    typesetting changes quotes, dashes, spaces and subscripts."""
    folded = unicodedata.normalize("NFKC", text).lower()
    return "".join(ch for ch in folded if ch.isalnum())


def page_count(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    return int(re.search(r"^Pages:\s+(\d+)", info.stdout, re.M).group(1))


def pages_with_ink_outside(pdf: Path, strip_cm: float = 1.0, dpi: int = 24) -> list[int]:
    """Pages (1-based) with dark pixels within ``strip_cm`` of the paper's left or right edge
    or its bottom edge (the text block keeps 2.4 cm from the sides, the footer 1.2 cm)."""
    from PIL import Image

    strip = round(strip_cm / 2.54 * dpi)
    bad = []
    with tempfile.TemporaryDirectory(prefix="ropelab-pdfink-") as tmp:
        subprocess.run(
            ["pdftoppm", "-gray", "-r", str(dpi), "-png", str(pdf), f"{tmp}/p"], check=True
        )
        for path in sorted(Path(tmp).glob("p-*.png"), key=lambda p: int(p.stem.split("-")[1])):
            image = Image.open(path).convert("L")
            width, height = image.size
            regions = [
                (0, 0, strip, height),
                (width - strip, 0, width, height),
                (0, height - max(strip // 2, 1), width, height),
            ]
            if any(image.crop(box).getextrema()[0] < 160 for box in regions):
                bad.append(int(path.stem.split("-")[1]))
    return bad


def fonts(pdf: Path) -> list[str]:
    """The names of the fonts embedded in the PDF (``pdffonts``)."""
    result = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True)
    return [line.split()[0] for line in result.stdout.splitlines()[2:] if line.strip()]
