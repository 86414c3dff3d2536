"""Display equations a phone can show whole (issue 33, "Phones").

MathJax 3 does not break lines, and a chapter's display equations are written for a 720-px
column: at 390 px (a 343-px column) most of them were wider than the screen. At build time
``src/ropebook/ext/light_pages.py`` asks this module to cut each display equation into *rows* of
*pieces* at the places a mathematician would break it:

* before every top-level relation (``=``, ``\\approx``, ``\\le``, ``\\to``, …): each one starts
  a new line, aligned on the relation;
* at every top-level ``\\qquad`` (the book puts two statements side by side with it): each
  statement becomes a row of its own, aligned on its first relation;
* before a top-level binary ``+``, ``-``, ``\\pm``, ``\\mp``: a line may be continued there,
  indented by a ``\\quad``, when what precedes it is too wide.

"Top level" means outside every brace group, ``\\left … \\right`` pair, environment (a
matrix is never cut) and bracket pair (``(``, ``[``, ``\\{``, ``\\langle``, with or without
``\\big``). ``typeset_math.js`` packs the pieces into lines no wider than the phone's column
(it measures them with MathJax's own metrics), typesets that narrow form beside the wide one,
and the page's script (``book/assets/ropelab-narrow.js``) shows it only where the wide one
does not fit. An equation with nothing to cut (one wide matrix) has no narrow form: the page
shrinks it or gives it a scroll cue.

A chapter can also write its own narrow form: a display equation whose TeX ends with the
comment ``% narrow: <TeX>`` (see DEVELOPERS.md) uses that TeX as its narrow form.
"""

from __future__ import annotations

import html
import re
from typing import Any

#: TeX's relations that the book uses at the top level of a display.
RELATIONS = {
    "=",
    "<",
    ">",
    r"\le",
    r"\leq",
    r"\ge",
    r"\geq",
    r"\ne",
    r"\neq",
    r"\approx",
    r"\equiv",
    r"\sim",
    r"\simeq",
    r"\cong",
    r"\propto",
    r"\to",
    r"\rightarrow",
    r"\Rightarrow",
    r"\Longrightarrow",
    r"\implies",
    r"\iff",
    r"\Longleftrightarrow",
    r"\Leftarrow",
    r"\Leftrightarrow",
    r"\mapsto",
    r"\in",
    r"\ll",
    r"\gg",
    r"\lesssim",
    r"\gtrsim",
    r"\coloneqq",
}
#: Between two statements: each step of a chain of them gets its line, uncut.
ARROWS = {
    r"\iff",
    r"\Longleftrightarrow",
    r"\Leftrightarrow",
    r"\implies",
    r"\Rightarrow",
    r"\Longrightarrow",
    r"\Leftarrow",
}
BINARY = {"+", "-", r"\pm", r"\mp"}
OPENING = {"(", "[", r"\{", r"\langle", r"\lvert", r"\lVert", r"\lfloor", r"\lceil"}
CLOSING = {")", "]", r"\}", r"\rangle", r"\rvert", r"\rVert", r"\rfloor", r"\rceil"}
#: A display environment whose rows are rows of the equation.
ROWS_ENVIRONMENTS = {"aligned", "align", "align*", "split", "gathered", "gather", "gather*"}
#: ``% narrow: …`` on the last line of a display's TeX: the author's own narrow form (Sphinx
#: may have glued its closing ``\end{split}\]`` to that line).
AUTHOR_FORM = re.compile(r"%\s*narrow:\s*(.*?)\s*(?=\n|\\end\{split\}\s*(?:\\\]|$)|\\\]|$)")

TOKEN = re.compile(r"\\[A-Za-z]+\*?|\\.|%[^\n]*|\s+|.", re.S)


def tokens(tex: str) -> list[str]:
    """TeX split into control sequences, single characters and runs of space."""
    return TOKEN.findall(tex)


class Unbalanced(ValueError):
    """Groups that do not close: the equation is left as it is."""


BARS = {"|", r"\|", r"\vert", r"\Vert"}


def top_level(tex: str) -> list[tuple[int, str]]:
    """The tokens at depth 0 with their index in :func:`tokens`; the rest are skipped. Depth
    counts brace groups, environments, ``\\left … \\right``, brackets and ``|…|`` pairs."""
    found = []
    depth = 0
    open_bars: set[str] = set()
    toks = tokens(tex)
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok in (r"\left", r"\right"):
            if tok == r"\left" and depth == 0:
                found.append((i, tok))
            depth += 1 if tok == r"\left" else -1
            i += 1  # the delimiter that belongs to it
            while i < len(toks) and toks[i].isspace():
                i += 1
        elif tok in ("{", r"\begin") or tok in OPENING:
            depth += 1
        elif tok in ("}", r"\end") or tok in CLOSING:
            depth -= 1
        elif tok in BARS:
            kind = "|" if tok in ("|", r"\vert") else "||"
            if kind in open_bars:
                open_bars.discard(kind)
                depth -= 1
            else:
                open_bars.add(kind)
                depth += 1
        elif depth == 0:
            found.append((i, tok))
        if depth < 0:
            raise Unbalanced(tex)
        i += 1
    if depth != 0:
        raise Unbalanced(tex)
    return found


def split_top(tex: str, separators: set[str]) -> list[tuple[str, str]]:
    """``tex`` cut before every top-level token in ``separators``: ``[(separator, text)]``,
    the first with separator ``""``."""
    toks = tokens(tex)
    cuts = [i for i, tok in top_level(tex) if tok in separators]
    parts, start, sep = [], 0, ""
    for cut in cuts:
        parts.append((sep, "".join(toks[start:cut])))
        sep, start = toks[cut], cut + 1
    parts.append((sep, "".join(toks[start:])))
    return parts


def strip_space(tex: str) -> str:
    return re.sub(r"^(?:\s|\\[,;:!]|\\quad\b|\\qquad\b)+|(?:\s|\\[,;:!])+$", "", tex)


SPACING = {r"\,", r"\;", r"\:", r"\!", r"\ ", r"\quad", r"\qquad"}
#: After one of these a ``+`` or ``-`` is a sign, not a binary operator.
NO_OPERAND = RELATIONS | BINARY | {",", "(", "[", "&", r"\{", r"\left"}


def pieces_of(statement: str) -> list[list[str]]:
    """A statement cut into ``[kind, tex]`` pieces: kind ``first`` (what comes before the first
    cut), ``rel`` (starts with a relation) or ``bin`` (starts with a binary operator)."""
    top = dict(top_level(statement))
    pieces = [["first", ""]]
    previous = None  # the last token that is not space
    closed = False  # the last token closed a top-level \left … \right
    for i, tok in enumerate(tokens(statement)):
        if i in top and tok in RELATIONS:
            pieces.append(["rel", tok])
        elif i in top and tok in BINARY and previous is not None and previous not in NO_OPERAND:
            pieces.append(["bin", tok])
        elif i in top and tok == r"\left" and closed:
            # a product of two bracketed factors: a line may break between them
            pieces.append(["mul", tok])
        else:
            pieces[-1][1] += tok
        if not tok.isspace() and tok not in SPACING and not tok.startswith("%"):
            closed = previous == r"\right" and i - 1 not in top
            previous = tok
    out = [[kind, strip_space(text)] for kind, text in pieces]
    if out[0][0] == "first" and re.match(r"[+-]|\\(pm|mp)\b", out[0][1]):
        out[0][0] = "bin"
    return [piece for piece in out if piece[1]]


def environment_body(tex: str) -> tuple[str, str] | None:
    """``(name, body)`` when ``tex`` is one environment and nothing else."""
    match = re.fullmatch(
        r"\s*(?:\\displaystyle\s*)?\\begin\{([a-z]+\*?)\}(.*)\\end\{\1\}\s*[.,;]?\s*", tex, re.S
    )
    if not match:
        return None
    try:
        top_level(match.group(2))
    except Unbalanced:
        return None
    return match.group(1), match.group(2)


#: Sphinx wraps a display with rows in ``split`` (``align`` + ``aligned`` for several
#: paragraphs); what they wrap is the equation.
WRAPPERS = {"split", "align", "align*", "gather", "gather*", "equation", "equation*"}


def unwrapped(tex: str) -> str:
    """``tex`` without ``\\displaystyle`` and the wrappers around one inner environment."""
    while True:
        tex = re.sub(r"^\s*\\displaystyle\b\s*", "", tex).strip()
        env = environment_body(tex)
        if env and env[0] in WRAPPERS:
            inner = re.sub(r"^\s*\\displaystyle\b\s*", "", env[1]).strip()
            if environment_body(inner) or env[0].startswith("equation"):
                tex = inner
                continue
        return tex


def rows_of(tex: str) -> list[dict[str, Any]] | None:
    """The equation as rows ``{"lead": TeX before the alignment point, "pieces": [...]}``, or
    None when it has nothing to cut or cannot be read."""
    tex = re.sub(r"(?<!\\)%[^\n]*", "", tex).strip()
    try:
        tex = unwrapped(tex)
        env = environment_body(tex)
        if env and env[0] in ROWS_ENVIRONMENTS:
            source_rows = [r for _, r in split_top(env[1], {r"\\"})]
        elif env:
            return None
        else:
            top_level(tex)
            source_rows = [tex]
        rows = []
        for source in source_rows:
            source = re.sub(r"^\s*\[[^\]]*\]", "", source)  # \\[4pt]
            if not source.strip():
                continue
            cells = [c for _, c in split_top(source, {"&"})]
            lead, rest = (cells[0], "".join(cells[1:])) if len(cells) > 1 else ("", cells[0])
            statements = [s for _, s in split_top(rest, {r"\qquad", r"\quad"})]
            for number, statement in enumerate(statements):
                # a chain of equivalences or implications: a line per step, each step whole
                steps = split_top(statement, ARROWS)
                pieces = pieces_of(steps[0][1])
                pieces += [["rel", f"{arrow} {strip_space(step)}"] for arrow, step in steps[1:]]
                if not pieces:
                    continue
                this_lead = lead if number == 0 else ""
                kinds = [kind for kind, _ in pieces]
                if not strip_space(this_lead) and kinds[0] != "rel" and "rel" in kinds[1:]:
                    cut = kinds.index("rel")
                    this_lead = " ".join(text for _, text in pieces[:cut])
                    pieces = pieces[cut:]
                this_lead = re.sub(r"^\s*\\displaystyle\b", "", this_lead)
                rows.append({"lead": strip_space(this_lead), "pieces": pieces})
    except Unbalanced:
        return None
    cuts = sum(len(r["pieces"]) for r in rows) + sum(bool(r["lead"]) for r in rows)
    return rows if cuts > 1 else None


def display_tex(fragment: str) -> str | None:
    """The TeX of a display fragment (the inside of a ``div.math``), unescaped."""
    match = re.search(r"\\\[(.*?)\\\]|\$\$(.*?)\$\$", fragment, re.S)
    if not match:
        return None
    return html.unescape(match.group(1) if match.group(1) is not None else match.group(2))


def without_author_form(fragment: str) -> str:
    """The fragment with its ``% narrow: …`` comment taken out (the wide form)."""
    return AUTHOR_FORM.sub("", fragment)


def narrow_request(fragment: str) -> dict[str, Any] | None:
    """What ``typeset_math.js`` needs to make a fragment's narrow form: ``{"rows": [...]}``,
    or ``{"tex": …}`` for an author's own narrow form; None when there is none."""
    tex = display_tex(fragment)
    if tex is None:
        return None
    author = AUTHOR_FORM.search(tex)
    wide = AUTHOR_FORM.sub("", tex)
    if author:
        return {"wide": wide, "tex": author.group(1)}
    rows = rows_of(tex)
    return {"wide": wide, "rows": rows} if rows else None
