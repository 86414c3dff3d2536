"""The Chinese edition's translation store: one file per page, each unit tied to the English it translates.

The English notebooks and pages are the only source. A page's translatable *units* are its
markdown cells (a notebook: keyed by the cell's ``id``) and its figure captions (a code cell's
``metadata.mystnb.figure.caption``, keyed ``<cell id>:caption``) or its top-level blocks (a ``.md`` page:
blocks between blank lines, a fenced block or a ``$$`` block kept whole, keyed ``b001``,
``b002``, ...). The store ``book/zh/<page stem>.md`` holds, for every unit::

    <!-- unit KEY en:SHA -->
    the Chinese text of the unit (MyST markdown, as the English cell)

where SHA is :func:`unit_sha` of the English text the translation was written from. A unit
whose key starts with ``zh-`` (SHA ``000000000000``) is Chinese only (a translator's note, such
as the introduction's paragraph on what stays in English): it goes after the unit before it. The check
(:func:`check_page`) fails, naming the page and the unit, when an English unit changed after its
translation was written (stale), has no translation (missing), or a translation has no English
unit left (orphan); and it checks each translation against its English: every formula (inline
and display, character for character), every number, every cross-reference and link target,
every code span and every directive of the English must appear in the Chinese.

Command line::

    python tools/zh_store.py stub notebooks/06_scaling_laws.ipynb   # add missing units (English
                                                                     # text, to be translated)
    python tools/zh_store.py check [PAGE ...]                        # every problem, exit 1 if any
    python tools/zh_store.py english PAGE KEY                        # one English unit
    python tools/zh_store.py status                                  # units per page
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "book" / "zh"

MARKER = re.compile(r"^<!-- unit (\S+) en:([0-9a-f]{12}) -->[ \t]*$", re.MULTILINE)
CJK = re.compile(r"[\u3400-\u9fff]")
ZH_ONLY = "zh-"  # key prefix of a unit with no English counterpart


@dataclass(frozen=True)
class Unit:
    """One translatable piece of an English page."""

    key: str
    text: str

    @property
    def sha(self) -> str:
        return unit_sha(self.text)


def unit_sha(text: str) -> str:
    """First 12 hex digits of SHA-256 of ``text`` with trailing spaces and blank edges removed."""
    norm = "\n".join(line.rstrip() for line in text.strip().splitlines())
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:12]


CAPTION = ":caption"  # key suffix of a code cell's figure caption (metadata mystnb.figure)


def figure_caption(cell: dict) -> str | None:
    """The caption a code cell gives its figure (``metadata.mystnb.figure.caption``), if any."""
    figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
    caption = figure.get("caption") if isinstance(figure, dict) else None
    return caption if isinstance(caption, str) and caption.strip() else None


def _cell_text(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def markdown_blocks(text: str) -> list[str]:
    """Top-level blocks of a MyST page: fenced blocks and ``$$`` blocks stay whole."""
    blocks: list[str] = []
    current: list[str] = []
    fence: str | None = None
    in_math = False
    for line in text.splitlines():
        stripped = line.strip()
        if fence is None and not in_math:
            opening = re.match(r"^(`{3,}|:{3,})", stripped)
            if opening:
                fence = opening.group(1)
            elif stripped.startswith("$$") and not (len(stripped) > 2 and stripped.endswith("$$")):
                in_math = True
            elif not stripped:
                if current:
                    blocks.append("\n".join(current))
                    current = []
                continue
            current.append(line)
            continue
        current.append(line)
        if fence is not None and stripped == fence[0] * len(fence):
            fence = None
        elif in_math and stripped.endswith("$$"):
            in_math = False
    if current:
        blocks.append("\n".join(current))
    return blocks


def english_units(page: Path) -> list[Unit]:
    """The translatable units of an English page (a notebook or a ``.md`` page)."""
    page = Path(page)
    if page.suffix == ".ipynb":
        nb = json.loads(page.read_text(encoding="utf-8"))
        units = []
        for cell in nb["cells"]:
            if cell["cell_type"] == "markdown" and _cell_text(cell).strip():
                units.append(Unit(str(cell["id"]), _cell_text(cell)))
            caption = figure_caption(cell)
            if caption:
                units.append(Unit(f"{cell['id']}{CAPTION}", caption))
        return units
    body = page.read_text(encoding="utf-8")
    return [Unit(f"b{i:03d}", block) for i, block in enumerate(markdown_blocks(body), start=1)]


def store_path(page: Path) -> Path:
    return STORE / f"{Path(page).stem}.md"


@dataclass(frozen=True)
class Translation:
    key: str
    sha: str
    text: str


def read_store(path: Path) -> dict[str, Translation]:
    """``{unit key: Translation}`` of one store file (empty if it does not exist)."""
    if not path.exists():
        return {}
    body = path.read_text(encoding="utf-8")
    found = list(MARKER.finditer(body))
    units: dict[str, Translation] = {}
    for i, match in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(body)
        key = match.group(1)
        if key in units:
            raise ValueError(f"{path.name}: unit {key} appears twice")
        units[key] = Translation(key, match.group(2), body[match.end() : end].strip("\n"))
    return units


def write_store(path: Path, page: Path, units: Iterable[Translation]) -> None:
    rel = Path(page).resolve().relative_to(ROOT)
    parts = [f"<!-- Chinese edition of {rel}: see tools/zh_store.py -->\n"]
    for unit in units:
        parts.append(f"<!-- unit {unit.key} en:{unit.sha} -->\n{unit.text.strip()}\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts), encoding="utf-8")


def stub(page: Path) -> int:
    """Add every English unit that has no translation yet (as English text); keep the rest.

    Units are written in the English order; orphans are kept at the end for the translator to
    move or delete. Returns the number of units added.
    """
    path = store_path(page)
    have = read_store(path)
    attached: dict[str | None, list[Translation]] = {}
    previous: str | None = None
    for key, tr in have.items():
        if key.startswith(ZH_ONLY):
            attached.setdefault(previous, []).append(tr)
        else:
            previous = key
    ordered: list[Translation] = list(attached.get(None, []))
    added = 0
    keys = set()
    for unit in english_units(page):
        keys.add(unit.key)
        if unit.key in have:
            ordered.append(have[unit.key])
        else:
            ordered.append(Translation(unit.key, unit.sha, unit.text))
            added += 1
        ordered += attached.get(unit.key, [])
    ordered += [t for k, t in have.items() if k not in keys and not k.startswith(ZH_ONLY)]
    write_store(path, page, ordered)
    return added


# --- what a translation must keep --------------------------------------------------------

DISPLAY_MATH = re.compile(r"\$\$.+?\$\$", re.DOTALL)
ENV_MATH = re.compile(r"\\begin\{(\w+\*?)\}.+?\\end\{\1\}", re.DOTALL)
INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$(?!\$)", re.DOTALL)
ROLE = re.compile(r"\{([\w:-]+)\}`([^`]+)`")
CODE_SPAN = re.compile(r"(?<![`}])(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")
LABEL = re.compile(r"^\(([\w:.-]+)\)=\s*$", re.MULTILINE)
DIRECTIVE = re.compile(r"^\s*(?:`{3,}|:{3,})\{([\w:-]+)\}", re.MULTILINE)
OPTION = re.compile(r"^\s*:(label|name|class|tags|nonumber|number|header-rows|widths):.*$",
                    re.MULTILINE)  # fmt: skip
FENCE_LINE = re.compile(r"^\s*(?:`{3,}|:{3,}).*$", re.MULTILINE)
NUMBER = re.compile(r"(?<![\w.,\\^_{-])[-−]?\d+(?:[.,]\d+)*(?:[eE][+-]?\d+)?(?![\w])")


def _without(text: str, *patterns: re.Pattern[str]) -> str:
    for pattern in patterns:
        text = pattern.sub(" ", text)
    return text


def kept_items(text: str) -> dict[str, list[str]]:
    """What a translation of ``text`` must contain, by kind."""
    roles = ROLE.findall(text)
    no_roles = ROLE.sub(" ", FENCE_LINE.sub(" ", text))
    display = DISPLAY_MATH.findall(no_roles) + [
        m.group(0) for m in ENV_MATH.finditer(DISPLAY_MATH.sub(" ", no_roles))
    ]
    rest = _without(no_roles, DISPLAY_MATH, ENV_MATH)
    code = [m.group(0) for m in CODE_SPAN.finditer(rest)]
    rest = CODE_SPAN.sub(" ", rest)
    inline = [m.group(0) for m in INLINE_MATH.finditer(rest)]
    rest = INLINE_MATH.sub(" ", rest)
    links = LINK_TARGET.findall(rest)
    rest = LINK_TARGET.sub("]", rest)
    labels = [f"({x})=" for x in LABEL.findall(text)]
    directives = [f"{{{d}}}" for d in DIRECTIVE.findall(text)]
    options = [m.group(0).strip().split(":")[1] for m in OPTION.finditer(text)]
    options = [f":{name}:" for name in options]
    rest = _without(rest, LABEL, DIRECTIVE, OPTION)
    numbers = [n.replace("−", "-") for n in NUMBER.findall(rest)]
    return {
        "formula": display + inline,
        "reference": [f"{{{r}}}`{t}`" for r, t in roles] + links + labels,
        "code": code,
        "directive": directives + options,
        "number": numbers,
    }


def fidelity_problems(english: str, chinese: str) -> list[str]:
    """What the English has and the Chinese lacks (formulas, numbers, references, code)."""
    need = kept_items(english)
    have = kept_items(chinese)
    problems = []
    for kind, items in need.items():
        pool = list(have[kind])
        if kind in ("formula", "code", "reference", "directive"):
            pool_text = chinese
            for item in items:
                if item not in pool_text:
                    problems.append(f"{kind} missing: {item[:80]}")
            continue
        for item in sorted(set(items)):
            if item not in pool and item.replace(",", "") not in pool:
                problems.append(f"{kind} missing: {item}")
    return problems


def check_page(page: Path) -> list[str]:
    """Every drift and fidelity problem of one page's translation, as ``page: unit: what``."""
    page = Path(page)
    rel = page.resolve().relative_to(ROOT)
    path = store_path(page)
    if not path.exists():
        return [f"{rel}: no translation store {path.relative_to(ROOT)}"]
    have = read_store(path)
    problems = []
    units = english_units(page)
    keys = {u.key for u in units}
    for unit in units:
        tr = have.get(unit.key)
        if tr is None:
            problems.append(f"{rel}: unit {unit.key}: no translation")
            continue
        if tr.sha != unit.sha:
            problems.append(
                f"{rel}: unit {unit.key}: the English changed after it was translated "
                f"(translated en:{tr.sha}, now en:{unit.sha})"
            )
            continue
        if untranslated(unit.text, tr.text):
            problems.append(f"{rel}: unit {unit.key}: not translated (no Chinese text)")
            continue
        for p in fidelity_problems(unit.text, tr.text):
            problems.append(f"{rel}: unit {unit.key}: {p}")
    for key in have:
        if key not in keys and not key.startswith(ZH_ONLY):
            problems.append(f"{rel}: unit {key}: translation has no English unit left (orphan)")
    return problems


def prose_words(text: str) -> int:
    bare = _without(
        text, FENCE_LINE, DISPLAY_MATH, ENV_MATH, CODE_SPAN, INLINE_MATH, ROLE, LINK_TARGET
    )
    bare = _without(bare, DIRECTIVE, OPTION, LABEL)
    return len(re.findall(r"[A-Za-z]{2,}", bare))


def untranslated(english: str, chinese: str) -> bool:
    """A unit with English prose (a word or more) whose translation has no Chinese character."""
    return prose_words(english) >= 1 and not CJK.search(chinese)


def pages() -> list[Path]:
    """Every page of the edition, in the order of ``_toc.yml``."""
    sys.path.insert(0, str(ROOT / "tools"))
    from book_toc import toc_docnames

    found = []
    for name in toc_docnames():
        for suffix in (".ipynb", ".md"):
            candidate = ROOT / f"{name}{suffix}"
            if candidate.exists():
                found.append(candidate)
                break
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("stub")
    s.add_argument("pages", nargs="+", type=Path)
    c = sub.add_parser("check")
    c.add_argument("pages", nargs="*", type=Path)
    e = sub.add_parser("english")
    e.add_argument("page", type=Path)
    e.add_argument("key")
    sub.add_parser("status")
    args = parser.parse_args(argv)
    if args.command == "stub":
        for page in args.pages:
            print(f"{page}: {stub(page)} units added to {store_path(page).relative_to(ROOT)}")
        return 0
    if args.command == "english":
        for unit in english_units(args.page):
            if unit.key == args.key:
                print(unit.text)
                return 0
        print(f"no unit {args.key} in {args.page}", file=sys.stderr)
        return 1
    if args.command == "status":
        for page in pages():
            units = english_units(page)
            have = read_store(store_path(page))
            done = sum(
                1 for u in units
                if u.key in have and have[u.key].sha == u.sha
                and not untranslated(u.text, have[u.key].text)
            )  # fmt: skip
            print(f"{page.relative_to(ROOT)}: {done}/{len(units)} units translated")
        return 0
    problems = []
    for page in args.pages or pages():
        problems += check_page(page)
    print("\n".join(problems) or "every unit translated and faithful")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
