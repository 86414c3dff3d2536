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

Terminology (:func:`term_problems`, :func:`first_mention_problems`): the bilingual glossary
(``book/glossary.md``) is the term base (:func:`glossary_terms`). Where an English unit's prose
uses a glossary term (whole words, any case, singular or plural), its translation must use
that term's Chinese, or keep the English of a term the field writes in Latin letters (RoPE,
YaRN, KV cache); the term's first mention in a page's running prose (not a heading, caption,
table cell or parenthesis) follows its Chinese with the English in parentheses,
外推（extrapolation）, and no other mention does (basic mathematics never:
``book/glossary_terms.json``). The style rules of ``src/ropebook/zh_rules.py`` (glosses, 倍, link
text, the number convention) run on every unit too. A unit whose term means something else (the
geometric plane of chapter 1) declares it in its translation: ``<!-- term plane: 平面 -->``.
The glossary and the references pages are not term-checked. ``tests/test_zh_edition.py`` runs
every check on every page and plants each kind of drift on copies.

Command line::

    python tools/zh_store.py stub notebooks/06_scaling_laws.ipynb   # add missing units (English
                                                                     # text, to be translated)
    python tools/zh_store.py check [PAGE ...]                        # every problem, exit 1 if any
    python tools/zh_store.py english PAGE KEY                        # one English unit
    python tools/zh_store.py status                                  # units per page

Slides (issue 34): a notebook's ``slide`` cell metadata (``tools/build_slides.py``: a slide's
title, lead, notes and part label, written for the projector) is translated in a store of its
own, ``book/zh/slides/<page stem>.md``, a unit per cell that has it, keyed ``<cell id>:slide``
(:data:`SLIDE`), stamped with the hash of the English metadata (:func:`slide_units`: its JSON,
keys sorted). The unit's text is the same JSON with the text fields (:data:`SLIDE_TEXT`) in
Chinese and everything else (a code slide's cell, lines and highlights) as in the English.
:func:`check_page` checks it like the page's own units (stale, missing, orphan; formulas,
numbers, code spans, the glossary's terms and the style rules in each text field), and
``stub`` adds its missing units. The Chinese decks read it (:func:`slide_translations`).
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
from typing import Any

from ropebook import ROOT, zh_rules

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
#: Key suffix of an exercise's code cell whose comments are translated (issue 34): the unit
#: holds the whole cell, and only its comments may differ from the English.
COMMENTS = ":comments"


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


def code_tokens(source: str) -> list[tuple[int, str]] | None:
    """The tokens of Python ``source`` without its comments and the line breaks of
    comment-only lines (``None`` if it does not tokenize): two cells with the same tokens
    differ at most in their comments."""
    import io
    import tokenize

    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    drop = {tokenize.COMMENT, tokenize.NL}
    return [(t.type, t.string) for t in tokens if t.type not in drop]


def _comments(source: str) -> list[str]:
    import io
    import tokenize

    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []
    return [t.string for t in tokens if t.type == tokenize.COMMENT]


def prose_comment(comment: str) -> bool:
    """Whether a ``#`` comment is words a reader reads (two English words or more), not a
    formula (``# m - n = 3``) or a tool's directive (``# fmt: skip``, ``# noqa``)."""
    body = comment.lstrip("#").strip()
    if re.match(r"(fmt|noqa|type|pragma|pylint)\b", body):
        return False
    return len(re.findall(r"[A-Za-z]{3,}", body)) >= 2


def has_comment(source: str) -> bool:
    """Whether Python ``source`` has a comment in words (:func:`prose_comment`)."""
    return any(prose_comment(c) for c in _comments(source))


def comment_problems(english: str, chinese: str) -> list[str]:
    """A translated exercise cell (``<id>:comments``) must be the English code with only its
    comments changed, and its comments must be Chinese."""
    want, got = code_tokens(english), code_tokens(chinese)
    if want is None or got != want:
        return ["the code differs from the English beyond its comments"]
    english_only = [c for c in _comments(chinese) if prose_comment(c) and not CJK.search(c)]
    return [f"comment not translated: {c[:60]}" for c in english_only]


def english_units(page: Path) -> list[Unit]:
    """The translatable units of an English page (a notebook or a ``.md`` page): a
    notebook's markdown cells, its figure captions, and the code cells of its exercises
    (after ``## Exercises``) that have comments (:data:`COMMENTS`)."""
    page = Path(page)
    if page.suffix == ".ipynb":
        nb = json.loads(page.read_text(encoding="utf-8"))
        units = []
        exercises = False
        for cell in nb["cells"]:
            text = _cell_text(cell)
            if cell["cell_type"] == "markdown" and text.strip():
                units.append(Unit(str(cell["id"]), text))
                exercises = exercises or text.lstrip().startswith("## Exercises")
            caption = figure_caption(cell)
            if caption:
                units.append(Unit(f"{cell['id']}{CAPTION}", caption))
            if exercises and cell["cell_type"] == "code" and has_comment(text):
                units.append(Unit(f"{cell['id']}{COMMENTS}", text))
        return units
    body = page.read_text(encoding="utf-8")
    return [Unit(f"b{i:03d}", block) for i, block in enumerate(markdown_blocks(body), start=1)]


def store_path(page: Path) -> Path:
    return STORE / f"{Path(page).stem}.md"


SLIDE = ":slide"  # key suffix of a cell's slide metadata (tools/build_slides.py's SLIDE_KEY)
#: The fields of a slide's metadata that are text a reader sees (the rest is kept as it is).
SLIDE_TEXT = ("title", "lead", "notes", "part")


def slide_json(spec: Any) -> str:
    """A cell's ``slide`` metadata as a unit's text: its JSON, keys sorted, one field a line."""
    return json.dumps(spec, ensure_ascii=False, indent=1, sort_keys=True)


def slide_units(page: Path) -> list[Unit]:
    """The slide metadata of a notebook's cells, a unit per cell that has it."""
    page = Path(page)
    if page.suffix != ".ipynb":
        return []
    nb = json.loads(page.read_text(encoding="utf-8"))
    return [
        Unit(f"{cell['id']}{SLIDE}", slide_json(cell["metadata"]["slide"]))
        for cell in nb["cells"]
        if cell.get("metadata", {}).get("slide") is not None
    ]


def slide_store_path(page: Path) -> Path:
    return STORE / "slides" / f"{Path(page).stem}.md"


def _slide_fields(spec: Any) -> list[dict[str, Any]]:
    return spec if isinstance(spec, list) else [spec]


def slide_unit_problems(stem: str, key: str, english: str, chinese: str) -> list[str]:
    """What is wrong with one slide unit's translation: not the English's shape (the same
    slides, the same fields, everything but the text fields unchanged), a text field left in
    English, and each text field's fidelity, glossary and style problems."""
    try:
        zh = json.loads(chinese)
    except json.JSONDecodeError as error:
        return [f"not the JSON of a slide's metadata ({error})"]
    en = json.loads(english)
    if isinstance(en, list) != isinstance(zh, list) or len(_slide_fields(en)) != len(
        _slide_fields(zh)
    ):
        return ["not the same slides as the English (a list of the same length)"]
    problems = []
    pairs = zip(_slide_fields(en), _slide_fields(zh), strict=True)
    for n, (en_spec, zh_spec) in enumerate(pairs, start=1):
        if set(en_spec) != set(zh_spec):
            problems.append(f"slide {n}: fields {sorted(zh_spec)}, English {sorted(en_spec)}")
            continue
        for field, value in en_spec.items():
            if field not in SLIDE_TEXT:
                if zh_spec[field] != value:
                    problems.append(f"slide {n}: {field} differs from the English")
                continue
            text = str(zh_spec[field])
            if untranslated(str(value), text):
                problems.append(f"slide {n}: {field} not translated (no Chinese text)")
                continue
            where = f"slide {n}: {field}: "
            problems += [where + p for p in fidelity_problems(str(value), text)]
            problems += [where + p for p in zh_rules.unit_problems(stem, key, text)]
            problems += [where + p for p in term_problems(str(value), text)]
    return problems


def check_slides(page: Path) -> list[str]:
    """The problems of a notebook's slide store (:data:`SLIDE`): stale, missing and orphan
    units and each translation's (:func:`slide_unit_problems`)."""
    page = Path(page)
    rel = page.resolve().relative_to(ROOT)
    units = slide_units(page)
    path = slide_store_path(page)
    if not units and not path.exists():
        return []
    have = read_store(path)
    store = path.relative_to(ROOT)
    problems = []
    for unit in units:
        tr = have.get(unit.key)
        if tr is None:
            problems.append(f"{rel}: {store}: unit {unit.key}: no translation")
        elif tr.sha != unit.sha:
            problems.append(
                f"{rel}: {store}: unit {unit.key}: the English changed after it was translated "
                f"(translated en:{tr.sha}, now en:{unit.sha})"
            )
        else:
            problems += [
                f"{rel}: {store}: unit {unit.key}: {p}"
                for p in slide_unit_problems(page.stem, unit.key, unit.text, tr.text)
            ]
    keys = {u.key for u in units}
    problems += [
        f"{rel}: {store}: unit {key}: translation has no English unit left (orphan)"
        for key in have
        if key not in keys
    ]
    return problems


def slide_translations(page: Path) -> dict[str, Any]:
    """``{cell id: the Chinese slide metadata}`` of a notebook's current slide units (those
    whose English has not changed since and that pass :func:`slide_unit_problems`'s shape
    check); a cell missing here keeps its English metadata."""
    english = {u.key: u for u in slide_units(page)}
    found = {}
    for key, tr in read_store(slide_store_path(page)).items():
        unit = english.get(key)
        if unit is None or tr.sha != unit.sha:
            continue
        try:
            spec = json.loads(tr.text)
        except json.JSONDecodeError:
            continue
        fields = _slide_fields(spec)
        if len(fields) == len(_slide_fields(json.loads(unit.text))) and any(
            CJK.search(str(f.get(k, ""))) for f in fields for k in SLIDE_TEXT
        ):
            found[key.removesuffix(SLIDE)] = spec
    return found


def stub_slides(page: Path) -> int:
    """Add the slide units a notebook's slide store lacks (English JSON, to be translated)."""
    units = slide_units(page)
    if not units:
        return 0
    path = slide_store_path(page)
    have = read_store(path)
    ordered, added = [], 0
    for unit in units:
        if unit.key in have:
            ordered.append(have[unit.key])
        else:
            ordered.append(Translation(unit.key, unit.sha, unit.text))
            added += 1
    keys = {u.key for u in units}
    ordered += [t for k, t in have.items() if k not in keys]
    write_store(path, page, ordered)
    return added


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
        text = unit.text.strip("\n").rstrip()  # a leading indent ("   3A. …") is kept
        parts.append(f"<!-- unit {unit.key} en:{unit.sha} -->\n{text}\n")
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


def _role_item(role: str, target: str) -> str:
    """What a translation must keep of a role: all of it, or only ``<label>`` when the role
    gives its own link text (``{ref}`the box <label>```), which is prose to translate."""
    titled = re.fullmatch(r"(.*\S)\s*<([^<>]+)>", target, re.DOTALL)
    return f"<{titled.group(2)}>`" if titled else f"{{{role}}}`{target}`"


def kept_items(text: str) -> dict[str, list[str]]:
    """What a translation of ``text`` must contain, by kind."""
    roles = ROLE.findall(text)
    no_roles = ROLE.sub(" ", FENCE_LINE.sub(" ", text))
    display = DISPLAY_MATH.findall(no_roles)
    rest = DISPLAY_MATH.sub(" ", no_roles)
    code = [m.group(0) for m in CODE_SPAN.finditer(rest)]
    rest = CODE_SPAN.sub(" ", rest)
    inline = [m.group(0) for m in INLINE_MATH.finditer(rest)]
    rest = INLINE_MATH.sub(" ", rest)
    # an environment outside $...$ (a bare \begin{align}); one inside $...$ is part of it
    display += [m.group(0) for m in ENV_MATH.finditer(rest)]
    rest = ENV_MATH.sub(" ", rest)
    links = LINK_TARGET.findall(rest)
    rest = LINK_TARGET.sub("]", rest)
    labels = [f"({x})=" for x in LABEL.findall(text)]
    directives = [f"{{{d}}}" for d in DIRECTIVE.findall(text)]
    options = [m.group(0).strip().split(":")[1] for m in OPTION.finditer(text)]
    options = [f":{name}:" for name in options]
    rest = _without(rest, LABEL, DIRECTIVE, OPTION)
    rest = zh_rules.SPACE_GROUPED.sub(lambda m: m.group(0).replace(" ", ""), rest)  # 10 000
    numbers = [n.replace("−", "-") for n in NUMBER.findall(rest)]
    return {
        "formula": display + inline,
        "reference": [_role_item(r, t) for r, t in roles] + links + labels,
        "code": code,
        "directive": directives + options,
        "number": numbers,
    }


TEXT_IN_MATH = re.compile(r"\\text\{([^{}]*)\}")


def _is_notation(formula: str, start: int) -> bool:
    """Whether the ``\\text{}`` at ``start`` is notation, a sub- or superscript label
    (``T_\\text{train}``, ``R^{d,\\text{half}}``), rather than words of a sentence: it follows
    ``_`` or ``^``, or a group it sits in opens right after one."""
    i = start - 1
    while i >= 0 and formula[i] == " ":
        i -= 1
    if i >= 0 and formula[i] in "_^":
        return True
    depth = 0
    while i >= 0:
        ch = formula[i]
        if ch == "}":
            depth += 1
        elif ch == "{":
            if depth == 0:
                if i > 0 and formula[i - 1] in "_^":
                    return True
            else:
                depth -= 1
        elif ch == "$":
            return False
        i -= 1
    return False


def prose_text_free(text: str) -> str:
    """``text`` with the words of every prose ``\\text{...}`` in its formulas replaced by
    ``…``: a formula's ``\\text{so}``, ``\\text{for all }`` or ``\\text{tokens}`` is a sentence's
    words, which a translation translates (issue 34); a label in a sub- or superscript
    (``T_\\text{train}``) is notation and must stay as it is."""

    def one(m: re.Match[str]) -> str:
        return m.group(0) if _is_notation(text, m.start()) else "\\text{…}"

    return TEXT_IN_MATH.sub(one, text)


def fidelity_problems(english: str, chinese: str) -> list[str]:
    """What the English has and the Chinese lacks (formulas, numbers, references, code). A
    formula is compared with the words of its prose ``\\text{}`` left out
    (:func:`prose_text_free`), so they may be translated."""
    need = kept_items(english)
    have = kept_items(chinese)
    problems = []
    for kind, items in need.items():
        pool = list(have[kind])
        if kind in ("formula", "code", "reference", "directive"):
            pool_text = chinese
            if kind == "formula":
                items = [prose_text_free(item) for item in items]
                pool_text = prose_text_free(chinese)
            for item in items:
                if item not in pool_text:
                    problems.append(f"{kind} missing: {item[:80]}")
            continue
        if not items:
            continue
        # numbers by value (issue 34): 2.6 million is 260 万, 10,000 is 10 000 and 1 万
        scaled = zh_rules.english_scaled(_number_text(english))
        values = zh_rules.number_values(_number_text(chinese), chinese=True)
        for item in sorted(set(items)):
            if item in scaled:  # "4 M": only its value, 400 万 (or 4 M, which zh_rules flags)
                if round(scaled[item], 6) in values:
                    continue
            elif item in pool or item.replace(",", "") in pool:
                continue
            elif round(float(item.replace(",", "")), 9) in values:
                continue
            problems.append(f"{kind} missing: {item}")
    return problems


def _number_text(text: str) -> str:
    """``text`` as the number check reads it: no formulas, code, roles, links or labels."""
    rest = ROLE.sub(" ", FENCE_LINE.sub(" ", text))
    rest = _without(rest, DISPLAY_MATH, CODE_SPAN, INLINE_MATH, ENV_MATH)
    rest = LINK_TARGET.sub("]", rest)
    return _without(rest, LABEL, DIRECTIVE, OPTION).replace("−", "-")


# --- terminology: the bilingual glossary is the term base --------------------------------

#: Pages the term check leaves alone: the glossary is the term base itself (its table pairs
#: each English term with its Chinese in separate cells), and the references are titles.
TERM_EXEMPT = ("glossary", "references")

#: English alternatives of the glossary that ordinary prose uses in other senses far more
#: often than in the glossary's ("the training length", "the argument of a function", "the
#: angle between two vectors"): their rows still apply through their other alternatives
#: ("modulus", "rotation angle").
GENERIC_ENGLISH = frozenset({"length", "angle", "argument"})

#: How the English prose also writes a glossary term ("a key cache" is the KV cache).
EXTRA_ENGLISH = {"KV cache": ("key cache", "key-value cache")}

#: Chinese that also renders an English alternative whose glossary Chinese names a noun the
#: English leaves out ("orthogonal" is an adjective; 正交矩阵 is "orthogonal matrix").
EXTRA_CHINESE = {"orthogonal": ("正交",), "block-diagonal": ("分块对角",)}


@dataclass(frozen=True)
class Term:
    """One English alternative of a glossary row and the Chinese that renders it."""

    english: str  #: as the glossary writes it ("query", "RoPE", "KV cache")
    chinese: tuple[str, ...]  #: any of these in the translation renders it
    keep_english: bool  #: the translation may keep the English itself (RoPE, YaRN, KV cache)
    row_english: tuple[str, ...]  #: every English alternative of the row (for the parentheses)
    gloss: bool = True  #: False: basic mathematics, never glossed (book/glossary_terms.json)
    book: bool = False  #: a book term (the glossary's "Book terms"): never glossed

    @property
    def pattern(self) -> re.Pattern[str]:
        return english_term_pattern(self.english)


def english_term_pattern(term: str) -> re.Pattern[str]:
    """``term`` in English prose: whole words, any case, singular or plural, a hyphen or a
    space between its words ("fine-tuning", "fine tuning"; "scaling law", "scaling laws")."""
    words = term.split()
    *head, last = words
    if re.search(r"[^aeiou]y$", last, re.I):
        tail = re.escape(last[:-1]) + "(?:y|ies)"
    elif re.search(r"(?:s|x|ch|sh)$", last, re.I):
        tail = re.escape(last[:-1] if last.endswith("s") and not last.endswith("ss") else last)
        tail += "(?:s|es)?" if not last.endswith("s") or last.endswith("ss") else "s?"
    else:
        tail = re.escape(last) + "s?"
    parts = [re.escape(w) for w in head] + [tail]
    body = r"[-\s]+".join(parts).replace(r"\-", r"[-\s]")
    return re.compile(rf"(?<![\w-]){body}(?![\w])", re.IGNORECASE)


def _acronym_of(short: str, long: str) -> bool:
    """Whether ``short`` abbreviates ``long``: its capitals are the initials of its words
    ("RoPE", "Rotary Position Embedding"; "OOD", "out of distribution")."""
    capitals = "".join(c for c in short if c.isupper())
    initials = "".join(w[0] for w in re.split(r"[\s-]+", long) if w).upper()
    return len(capitals) >= 2 and capitals == initials


def _kept_in_english(term: str) -> bool:
    """A term built on a name the field writes in Latin letters (an acronym or a mixed-case
    name: RoPE, YaRN, ALiBi, KV cache, NTK-aware scaling) may stay in English."""
    return any(sum(c.isupper() for c in token) >= 2 for token in re.split(r"[\s/]+", term))


def glossary_terms(path: Path | None = None) -> list[Term]:
    """The term base: every English alternative of ``book/glossary.md`` with its Chinese.

    A row's English is split at " / "; a parenthesis that abbreviates the term ("(RoPE)",
    "(OOD)") is one more alternative, any other ("(GGUF)") qualifies it and is dropped. Its
    Chinese ("†" removed) is split at " / " too: where both sides have the same number of
    alternatives they pair in order (query 查询, key 键, value 值), otherwise every Chinese
    alternative renders every English one (微调 or 续训 for fine-tuning). The alternatives of
    :data:`GENERIC_ENGLISH` are left out.
    """
    from ropebook.glossary import glossary_rows

    path = ROOT / "book" / "glossary.md" if path is None else Path(path)
    settings = glossary_settings(path.parent / "glossary_terms.json")
    terms: list[Term] = []
    for row in glossary_rows(path):
        gloss = row.term not in settings.get("no_gloss", [])
        # the sources' spelling and this book's retired renderings still render the term (so
        # the term check passes); zh_rules' [term-spelling] flags them
        older = {
            c: [settings.get("source_spelling", {}).get(c), *settings.get("retired", {}).get(c, [])]
            for c in row.chinese_terms
        }
        aside = re.search(r"\(([^)]*)\)", row.term)
        bare = re.sub(r"\s*\([^)]*\)", "", row.term)
        english = [t.strip() for t in bare.split(" / ") if t.strip()]
        chinese = row.chinese_terms
        pairs: list[tuple[str, tuple[str, ...]]]
        if len(english) == len(chinese) > 1:
            pairs = [(e, (c,)) for e, c in zip(english, chinese, strict=True)]
        else:
            pairs = [(e, tuple(chinese)) for e in english]
        if aside and _acronym_of(aside.group(1), english[0]):
            pairs.append((aside.group(1), tuple(chinese)))
        for e, renderings in list(pairs):
            pairs += [(variant, renderings) for variant in EXTRA_ENGLISH.get(e, ())]
        alternatives = tuple(e for e, _ in pairs)
        for term, renderings in pairs:
            if term.lower() in GENERIC_ENGLISH:
                continue
            extra = EXTRA_CHINESE.get(term.lower(), ())
            extra += tuple(o for c in renderings for o in older.get(c, []) if o)
            keep = any(
                _kept_in_english(e) or e.lower() in {c.lower() for c in renderings}
                for e, r in pairs
                if r == renderings
            )
            terms.append(Term(term, tuple(renderings) + extra, keep, alternatives, gloss))
    from ropebook.glossary import book_term_rows

    for book_row in book_term_rows(path):
        chinese = tuple(book_row.chinese_terms)
        older = tuple(o for c in chinese for o in settings.get("retired", {}).get(c, []))
        for english in book_row.terms:
            keep = english.lower() in {c.lower() for c in chinese}
            terms.append(
                Term(english, chinese + older, keep, tuple(book_row.terms), False, book=True)
            )
    return terms


def glossary_settings(path: Path) -> dict[str, Any]:
    """The glossary's per-row settings (``book/glossary_terms.json``): ``no_gloss`` lists the
    rows (their English as the table writes it) never glossed in the Chinese edition, the
    basic mathematics a reader of the book already knows (复数, 点积, 频率)."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


_TERMS_CACHE: dict[tuple[str, int], list[Term]] = {}


def _terms() -> list[Term]:
    path = ROOT / "book" / "glossary.md"
    key = (str(path), path.stat().st_mtime_ns)
    if key not in _TERMS_CACHE:
        _TERMS_CACHE[key] = glossary_terms(path)
    return _TERMS_CACHE[key]


HTML_TAG = re.compile(r"<[^>]+>")
URL = re.compile(r"https?://\S+")


#: A fenced block of code (```python, ~~~, ```{code-block}): no prose inside; a directive
#: fence (```{exercise}, :::{note}) holds prose and is not one.
CODE_BLOCK = re.compile(
    r"^[ \t]*(`{3,}|~{3,})[ \t]*(?:\{(?:code|code-block|code-cell|sourcecode)\}[^\n]*|(?!\{)[^\n]*)\n"
    r".*?^[ \t]*\1[ \t]*$",
    re.DOTALL | re.MULTILINE,
)


def prose(text: str) -> str:
    """``text`` without what is not prose: code blocks, formulas, roles, code spans, link
    targets, directive lines and options, labels, HTML tags and URLs (each replaced by a
    space). Roles go before code spans: a role's closing backtick opens no code span."""
    return _without(
        text, CODE_BLOCK, FENCE_LINE, DISPLAY_MATH, ROLE, CODE_SPAN, INLINE_MATH, ENV_MATH,
        LINK_TARGET, DIRECTIVE, OPTION, LABEL, HTML_TAG, URL,
    )  # fmt: skip


def _longest_matches(
    text: str, found: Iterable[tuple[int, int, Any]]
) -> list[tuple[int, int, Any]]:
    """The matches not inside a longer one ("critical base" hides its "base")."""
    ordered = sorted(found, key=lambda m: (m[0], -(m[1] - m[0])))
    kept: list[tuple[int, int, Any]] = []
    reach = -1
    for start, end, term in ordered:
        if end <= reach:
            continue
        kept.append((start, end, term))
        reach = max(reach, end)
    return kept


def english_terms_used(english: str, terms: list[Term] | None = None) -> list[Term]:
    """The glossary terms an English unit uses in its prose (each once, in order)."""
    terms = _terms() if terms is None else terms
    text = prose(english)
    found = [(m.start(), m.end(), t) for t in terms for m in t.pattern.finditer(text)]
    used: list[Term] = []
    for _, _, term in _longest_matches(text, found):
        if term not in used:
            used.append(term)
    return used


#: A translator's exception, inside a unit's translation (an HTML comment, which the page
#: does not show): ``<!-- term plane: 平面 -->`` says that this unit's "plane" is not the
#: glossary's (here the geometric plane of chapter 1) and is rendered 平面, which must occur.
TERM_EXCEPTION = re.compile(r"<!--\s*term\s+([^:>]+?)\s*:\s*([^>]+?)\s*-->")


def term_exceptions(chinese: str) -> dict[str, str]:
    """``{english term (lower case): its rendering}`` declared in a translation."""
    return {m.group(1).lower(): m.group(2) for m in TERM_EXCEPTION.finditer(chinese)}


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _chinese_pattern(chinese: str) -> re.Pattern[str]:
    """``chinese`` with or without spaces where it has them or not ("KV 缓存", "KV缓存")."""
    return re.compile(r"\s*".join(map(re.escape, chinese.replace(" ", ""))), re.IGNORECASE)


def term_problems(english: str, chinese: str, terms: list[Term] | None = None) -> list[str]:
    """The glossary terms of ``english`` whose Chinese the translation lacks.

    A term is rendered when the translation's prose has one of its Chinese alternatives
    (spaces ignored), or the English itself for a term the field keeps in English, or the
    rendering a :data:`TERM_EXCEPTION` comment declares for it.
    """
    bare = prose(chinese)
    squeezed = _squeeze(bare)
    exceptions = term_exceptions(chinese)
    problems = []
    for term in english_terms_used(english, terms):
        declared = exceptions.get(term.english.lower())
        if declared is not None:
            if _squeeze(declared) not in squeezed:
                problems.append(f"term {term.english!r}: the declared {declared} does not occur")
            continue
        if any(_squeeze(c) in squeezed for c in term.chinese):
            continue
        if term.keep_english and any(
            english_term_pattern(e).search(bare) for e in term.row_english
        ):
            continue
        wanted = " or ".join(term.chinese) + (f" or {term.english}" if term.keep_english else "")
        tag = "[book-term] " if term.book else ""
        problems.append(f"{tag}term {term.english!r} not rendered as {wanted}")
    return problems


#: A parenthesis that glosses a term: English words only ("Rotary Position Embedding，RoPE").
GLOSS_TEXT = re.compile(r"\s*[A-Za-z][A-Za-z' /,，、-]*")

#: What may follow a term's Chinese before the parenthesis: emphasis marks and spaces.
AFTER_TERM = re.compile(r"[*_]*\s*[（(]([^（()）]*)[)）]")


def _first_mention_text(key: str, chinese: str) -> tuple[str, str]:
    """The prose of a translation where a first mention may stand, and the same with every
    parenthesis's and every quotation's content blanked (same length): no heading, table
    cell or caption, nothing inside parentheses (issue 34: a gloss never stands in those, nor
    nested), nothing inside “…” (a source's own words take no gloss)."""
    if key.endswith(CAPTION):
        return "", ""
    kept = []
    for line in chinese.splitlines():
        if re.match(r"^#{1,6}\s", line) or line.strip().startswith("|"):
            line = ""
        kept.append(line)
    text = prose("\n".join(kept))
    masked = list(text)
    depth = 0
    for i, ch in enumerate(text):
        if ch in "）)”":
            depth = max(0, depth - 1)
        if depth:
            masked[i] = " "
        if ch in "（(“":
            depth += 1
    return text, "".join(masked)


def first_mention_problems(
    pairs: Iterable[tuple[Unit, Translation]],
    terms: list[Term] | None = None,
    quiet: Iterable[str] = (),
) -> list[str]:
    """Where a page glosses a glossary term wrongly: its first mention without the English,
    a second gloss, or a gloss on basic mathematics.

    ``pairs``: the page's translated units in order, each with its English. The first unit
    whose English uses a term (of a row and a Chinese rendering: "query" and "key" are two,
    "fast plane" and "high frequency", both 高频, one) and whose translation renders it in
    Chinese in running prose (not in a heading, a table cell, a caption or inside a
    parenthesis: :func:`_first_mention_text`) holds its first mention; the first occurrence of
    the Chinese there (not inside a longer glossary term: 旋转位置编码 does not mention 位置编码)
    must be followed by a parenthesis, full-width or ASCII, that names one of the row's English
    alternatives: 外推（extrapolation）. Not checked: a term rendered in English (RoPE), a
    one-character Chinese term (键, 值: ordinary words contain them), a term the unit declares
    an exception. A row whose ``gloss`` is off (basic mathematics) is never glossed, and a
    term is glossed once a page ([gloss-repeated] for a second gloss in running prose; a gloss
    in a heading, caption or table cell is ``zh_rules``' [heading-gloss], inside a parenthesis
    its [nested-parentheses]). A unit whose key is in ``quiet`` (a stale translation) takes its
    first mentions unreported.
    """
    quiet = set(quiet)
    terms = _terms() if terms is None else terms
    every_chinese = sorted(
        {c for t in terms for c in t.chinese if c.lower() != t.english.lower()},
        key=len,
        reverse=True,
    )
    by_chinese: dict[str, list[Term]] = {}
    for t in terms:
        for c in t.chinese:
            by_chinese.setdefault(c, []).append(t)
    seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    glossed: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    problems = []
    for unit, tr in pairs:
        text, masked = _first_mention_text(unit.key, tr.text)
        exceptions = term_exceptions(tr.text)
        found = [
            (m.start(), m.end(), c)
            for c in every_chinese
            for m in _chinese_pattern(c).finditer(masked)
        ]
        mentions = _longest_matches(masked, found)
        for term in english_terms_used(unit.text, terms):
            concept = (term.row_english, term.chinese)
            if concept in seen or term.english.lower() in exceptions:
                continue
            own = {c for c in term.chinese if len(c.replace(" ", "")) > 1}
            own -= {c for c in own if c.lower() in {e.lower() for e in term.row_english}}
            if not own or not term.gloss or concept in glossed:
                seen.add(concept)  # (glossed already: an earlier Chinese mention was first)
                continue
            first = next((m for m in mentions if m[2] in own), None)
            if first is None:
                continue  # only in a heading, caption, table or parenthesis: not yet mentioned
            seen.add(concept)
            paren = AFTER_TERM.match(text, first[1])
            inside = paren.group(1) if paren else ""
            if unit.key in quiet:
                continue
            if not any(english_term_pattern(e).search(inside) for e in term.row_english):
                names = ", ".join(term.row_english)
                problems.append(
                    f"unit {unit.key}: [first-mention] first mention of {term.english!r} "
                    f"({first[2]}) without the English in parentheses, as {first[2]}（{names}）"
                )
        for _, end, chinese in mentions:
            paren = AFTER_TERM.match(text, end)
            if paren is None or unit.key in quiet or not GLOSS_TEXT.fullmatch(paren.group(1)):
                continue
            for term in by_chinese.get(chinese, []):
                if not any(
                    english_term_pattern(e).search(paren.group(1)) for e in term.row_english
                ):
                    continue
                if not term.gloss:
                    what = "a book term" if term.book else "basic mathematics"
                    problems.append(
                        f"unit {unit.key}: [gloss-basic] {chinese}（{paren.group(1)}）: "
                        f"{term.english!r} is {what}, never glossed"
                    )
                elif (term.row_english, term.chinese) in glossed:
                    problems.append(
                        f"unit {unit.key}: [gloss-repeated] {chinese}（{paren.group(1)}）: "
                        f"{term.english!r} is glossed once a page, at its first mention"
                    )
                glossed.add((term.row_english, term.chinese))
                break
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
    checked: list[tuple[Unit, Translation]] = []  # translated units, for the first mentions
    stale: set[str] = set()
    style: list[str] = []  # the style rules of src/ropebook/zh_rules.py
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
            if CJK.search(tr.text):  # it still mentions its terms first, until retranslated
                checked.append((unit, tr))
                stale.add(unit.key)
            continue
        if unit.key.endswith(COMMENTS):
            problems += [
                f"{rel}: unit {unit.key}: {p}" for p in comment_problems(unit.text, tr.text)
            ]
            continue
        if untranslated(unit.text, tr.text):
            problems.append(f"{rel}: unit {unit.key}: not translated (no Chinese text)")
            continue
        for p in fidelity_problems(unit.text, tr.text):
            problems.append(f"{rel}: unit {unit.key}: {p}")
        style += [
            f"{rel}: unit {unit.key}: {p}"
            for p in zh_rules.unit_problems(page.stem, unit.key, tr.text)
        ]
        if page.stem not in TERM_EXEMPT:
            for p in term_problems(unit.text, tr.text):  # [book-term]: a style rule
                (style if p.startswith("[") else problems).append(f"{rel}: unit {unit.key}: {p}")
            checked.append((unit, tr))
    for key in have:
        if key not in keys and not key.startswith(ZH_ONLY):
            problems.append(f"{rel}: unit {key}: translation has no English unit left (orphan)")
    if page.stem not in TERM_EXEMPT:
        style += [f"{rel}: {p}" for p in first_mention_problems(checked, quiet=stale)]
    for key, tr in have.items():
        if key.startswith(ZH_ONLY):
            style += [
                f"{rel}: unit {key}: {p}" for p in zh_rules.unit_problems(page.stem, key, tr.text)
            ]
    return problems + zh_rules.ratcheted(page.stem, style) + check_slides(page)


def prose_words(text: str) -> int:
    bare = _without(
        text, FENCE_LINE, DISPLAY_MATH, ROLE, CODE_SPAN, INLINE_MATH, ENV_MATH, LINK_TARGET
    )
    bare = _without(bare, DIRECTIVE, OPTION, LABEL)
    return len(re.findall(r"[A-Za-z]{2,}", bare))


def untranslated(english: str, chinese: str) -> bool:
    """A unit with English prose (a word or more) whose translation has no Chinese character."""
    return prose_words(english) >= 1 and not CJK.search(chinese)


def pages() -> list[Path]:
    """Every page of the edition, in the order of ``_toc.yml``."""
    from ropebook.book_toc import toc_docnames

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
            if slide_units(page):
                added = stub_slides(page)
                print(
                    f"{page}: {added} slide units added to "
                    f"{slide_store_path(page).relative_to(ROOT)}"
                )
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
