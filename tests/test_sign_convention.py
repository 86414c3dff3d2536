"""One sign convention in the whole book (issue 31): the one ``book/notation.md`` states.

The convention ("Sign convention" in the notation page, RoFormer's): the query is at position
*m*, the key at *n*; the relative position is :math:`m - n` (the query is :math:`m - n` tokens
after the key); the matrix form is :math:`R_m^\\top R_n = R_{n-m}`, the complex form
:math:`\\operatorname{Re}[q\\,\\bar k\\,e^{i(m-n)\\theta}]`, and the two are one statement; the
complex conjugate is written with a bar, :math:`\\bar k` or :math:`\\overline{\\cdots}`.

This test reads every chapter notebook (markdown, code, text outputs), the cheat sheet, the
chapter template, the ``.md`` pages of ``book/``, the Chinese store ``book/zh/`` and the
slides' sources, and fails on the *other* forms (the package's docstrings and labels under
``src/ropelab`` on the first three):

* ``matrix``: the relative rotation with the subscript the other way round, :math:`R_{m-n}`,
  :math:`R^d_{\\Theta,m-n}`, :math:`R\\big((m-n)\\theta\\big)`, ``R_(m−n)``;
* ``complex``: the phase the other way round, :math:`e^{i(n-m)\\theta}`,
  :math:`e^{-i(m-n)\\theta}`, ``e^(i(n−m)θ)``;
* ``star``: the conjugate written with a star, :math:`k^*`, :math:`\\tilde k_i^*`,
  :math:`(W_k x_n)^*`, :math:`{}^*`, :math:`k^{\\ast}` (the symbols :math:`r^*` and
  :math:`i^*` of chapters 4 and 5 are not conjugates and are not read as such);
* ``offset``: the relative position named as :math:`n - m`: a bare ``$n - m$``, or "a
  function of / depends on / through / the offset / the distance $n - m$" (the subscript of
  :math:`R_{n-m}` and the angle :math:`(n - m)\\theta` of that rotation are the convention, not
  a breach of it, nor is "the subscript $n - m$").

A legitimate use of another form (a deliberately wrong identity, another paper's own sign)
is marked as such in its text and listed in ``ALLOWED`` below, by page, cell (or unit) id and
form, with the reason; an entry that no longer matches anything fails too, so the list
cannot go stale. ``test_planted_forms_are_found`` plants each form in a copy of a page.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from ropebook import zh_store

ROOT = Path(__file__).resolve().parents[1]


# --- the forms ---------------------------------------------------------------------------------

_M = r"\s*[-−]\s*"  # a minus sign (ASCII or U+2212), spaces allowed
OTHER_DIFF = rf"m{_M}n"  # inside the matrix / the phase: the other way round
OURS_DIFF = rf"n{_M}m"
# R with an optional superscript (R^d, R^{8,\text{half}}) and a subscript that opens with the
# difference, after an optional \Theta, and an optional parenthesis: R_{n-m}, R_{(n-m)\theta_i}
_R_SUB = r"R(?:\^(?:\{(?:[^{}]|\{[^{}]*\})*\}|\w))?_\{(?:\\Theta\s*,\s*)?\(?\s*"
_R_TEXT = r"R_\(\s*"  # printed text: R_(n−m)
_R_CALL = r"R\s*(?:\\big|\\Big|\\left)?\(\s*\(\s*"  # R((n-m)\theta), R\big((n-m)\theta\big)
_I = r"(?:\\mathrm\{i\}|\\mathrm\s*i|i)"


def _matrix(diff: str) -> re.Pattern[str]:
    return re.compile(rf"(?:{_R_SUB}|{_R_TEXT}|{_R_CALL}){diff}(?![\w])")


def _phase(diff: str, flipped: str) -> re.Pattern[str]:
    """e^{i(diff)...}, e^{-i(flipped)...}, e^(i(diff)θ), exp(i(diff)θ)."""
    return re.compile(
        rf"e\^\{{\s*{_I}\s*\(\s*{diff}\s*\)"
        rf"|e\^\{{\s*-\s*{_I}\s*\(\s*{flipped}\s*\)"
        rf"|e\^\(\s*[+]?i\s*\(\s*{diff}\s*\)"
        rf"|e\^\(\s*-\s*i\s*\(\s*{flipped}\s*\)"
        rf"|exp\(\s*i\s*\(\s*{diff}\s*\)"
    )


_PHRASE = (
    r"(?:function\s+of|depends?\s+(?:only\s+)?on|through|offsets?|distances?)"
    r"\s+(?:only\s+)?(?:the\s+offset\s+)?"
)


def _offset(a: str, b: str) -> re.Pattern[str]:
    """The relative position a - b named as a quantity: a bare $a - b$ or a phrase before it."""
    diff = rf"{a}{_M}{b}"
    return re.compile(rf"\$\s*{diff}\s*\$|{_PHRASE}\$\s*\(?\s*{diff}(?![\w}}])")


# the conjugate: a superscript star after anything but the bare symbols r^* and i^*
_STAR = re.compile(r"\^\s*(?:\*|\{\s*\*\s*\}|\\ast(?![a-zA-Z])|\{\s*\\ast\s*\})")
_NOT_CONJUGATE = re.compile(r"(?:^|[^\\\w])[ri]\s*$")  # r^* (ch. 5), i^* (ch. 4)
_SUBSCRIPT = re.compile(r"(?:subscript|下标)\s*(?:是|为)?\s*$")
_BAR = re.compile(r"\\bar(?![a-zA-Z])|\\overline\{")

OTHER: dict[str, re.Pattern[str]] = {
    "matrix": _matrix(OTHER_DIFF),
    "complex": _phase(OURS_DIFF, OTHER_DIFF),
    "offset": _offset("n", "m"),
}
OURS: dict[str, re.Pattern[str]] = {
    "matrix": _matrix(OURS_DIFF),
    "complex": _phase(OTHER_DIFF, OURS_DIFF),
    "offset": _offset("m", "n"),
}
FORMS = ("matrix", "complex", "star", "offset")


def stars(text: str) -> list[str]:
    """Every conjugate written with a star, with a little of what precedes it."""
    found = []
    for match in _STAR.finditer(text):
        before = text[max(0, match.start() - 12) : match.start()]
        if not _NOT_CONJUGATE.search(before):
            found.append(before.split("\n")[-1] + match.group(0))
    return found


def other_forms(text: str) -> dict[str, list[str]]:
    """The other forms in ``text``: {form: [the matches]} (forms with no match left out)."""
    found = {form: [m.group(0) for m in pat.finditer(text)] for form, pat in OTHER.items()}
    # "the subscript $n - m$" names the subscript of R_{n-m}, the convention's matrix form
    found["offset"] = [
        m.group(0)
        for m in OTHER["offset"].finditer(text)
        if not _SUBSCRIPT.search(text[max(0, m.start() - 20) : m.start()])
    ]
    found["star"] = stars(text)
    return {form: hits for form, hits in found.items() if hits}


def form_counts(text: str) -> Counter:
    """Counts of each form, the convention's (``ours``) and the other (``other``)."""
    counts: Counter = Counter()
    for form, hits in other_forms(text).items():
        counts[f"{form}:other"] += len(hits)
    for form, pat in OURS.items():
        counts[f"{form}:ours"] += len(pat.findall(text))
    counts["conjugate:bar"] += len(_BAR.findall(text))
    return counts


# --- what is read ------------------------------------------------------------------------------


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _outputs(cell: dict) -> str:
    parts = []
    for out in cell.get("outputs", []):
        text = out.get("text", "")
        parts.append("".join(text) if isinstance(text, list) else text)
        for mime in ("text/plain", "text/markdown", "text/latex"):
            value = out.get("data", {}).get(mime, "")
            parts.append("".join(value) if isinstance(value, list) else value)
    return "\n".join(parts)


def notebook_units(path: Path) -> Iterator[tuple[str, str]]:
    """(cell id, text) of every cell: markdown, or code with its text outputs and caption."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        text = _source(cell)
        if cell["cell_type"] == "code":
            caption = zh_store.figure_caption(cell) or ""
            text = "\n".join([text, _outputs(cell), caption])
        yield str(cell.get("id")), text


def page_units(path: Path) -> Iterator[tuple[str, str]]:
    """The units of any page read here: notebook cells, ``.md`` blocks, store units, a file."""
    if path.suffix == ".ipynb":
        yield from notebook_units(path)
    elif path.parent.name == "zh" and path.suffix == ".md":  # a Chinese store page
        for key, unit in zh_store.read_store(path).items():
            yield key.removesuffix(zh_store.CAPTION), unit.text
    elif path.suffix == ".md":
        for unit in zh_store.english_units(path):
            yield unit.key, unit.text
    else:
        yield "file", path.read_text(encoding="utf-8")


def pages() -> list[Path]:
    found = sorted((ROOT / "notebooks").glob("*.ipynb"))
    found += [ROOT / "book" / "cheatsheet.ipynb", ROOT / "book" / "templates" / "chapter.ipynb"]
    found += sorted((ROOT / "book").glob("*.md"))
    found += sorted(zh_store.STORE.glob("*.md"))
    found += [ROOT / "src" / "ropebook" / "build_slides.py"]
    found += sorted((ROOT / "book" / "slides").glob("*.js"))
    return found


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# --- the allowed uses: (page stem, unit id, form) -> why -----------------------------------------
# The page stem covers the English page and its Chinese unit (book/zh/<stem>.md).
ALLOWED: dict[tuple[str, str, str], str] = {
    ("00_why_positions", "9d9dfee6", "offset"): (
        "T5's bias is indexed by T5's own offset, key minus query, bucket(n - m); the cell "
        "says that T5 counts the other way"
    ),
    ("00_why_positions", "7f9c8472", "offset"): (
        "exercise on T5's buckets, stated in T5's offset n - m (key minus query), as marked"
    ),
    ("01_rotation_2d", "05d3eb74", "matrix"): (
        "the deliberately wrong identity R_m^T R_n = R_{m-n} that the symbolic check must reject"
    ),
    ("01_rotation_2d", "05d3eb74", "offset"): (
        "explains that SymPy prints cos theta(m - n) where the matrix of eq-1-relative has n - m"
    ),
    ("01_rotation_2d", "7f40b07c", "matrix"): "the code that checks the wrong identity R_{m-n}",
    ("01_rotation_2d", "d22932a8", "matrix"): "exercise on the wrong identity R_{m-n}",
    ("01_rotation_2d", "d22932a8", "complex"): (
        "solution that shows the two forms are one statement: Re[q conj(k) e^{i(m-n)theta}] "
        "= Re[conj(q) k e^{i(n-m)theta}], the n - m of R_{n-m}"
    ),
    ("01_rotation_2d", "d22932a8", "offset"): "the same sentence: the n - m of R_{n-m}",
    ("02_complex_derivation", "e0c564a2", "complex"): (
        "exercise on turning the other way: with -theta the phase is e^{-i(m-n)theta}"
    ),
    ("02_complex_derivation", "e0c564a2", "offset"): (
        "the same solution: -theta gives the score at distance n - m instead of m - n"
    ),
}


def breaches(path: Path) -> list[tuple[str, str, list[str]]]:
    """(unit id, form, matches) of every other form in a page that ``ALLOWED`` does not list."""
    stem = path.stem
    found = []
    for key, text in page_units(path):
        for form, hits in other_forms(text).items():
            if (stem, key, form) in ALLOWED:
                continue
            found.append((key, form, hits))
    return found


@pytest.mark.parametrize("page", pages(), ids=_rel)
def test_page_follows_the_sign_convention(page: Path) -> None:
    problems = breaches(page)
    assert not problems, (
        f"{_rel(page)} writes a form that book/notation.md's sign convention replaces "
        f"(R_{{n-m}}, e^{{i(m-n)θ}}, the offset m - n, the conjugate with a bar): {problems}"
    )


def test_every_allowed_use_is_still_there() -> None:
    """An allow-list entry whose cell no longer has the form is stale: delete it."""
    used = set()
    for page in pages():
        for key, text in page_units(page):
            for form in other_forms(text):
                used.add((page.stem, key, form))
    stale = sorted(set(ALLOWED) - used)
    assert not stale, f"allowed uses that are gone (delete them from ALLOWED): {stale}"
    # a listed use is allowed in the English page and its translation, and in nothing else
    assert all(stem in {p.stem for p in pages()} for stem, _, _ in ALLOWED)


def test_notation_page_states_the_convention() -> None:
    text = (ROOT / "book" / "notation.md").read_text(encoding="utf-8")
    section = text.split("## Sign convention", 1)
    assert len(section) == 2, "book/notation.md has no 'Sign convention' section"
    body = section[1].split("\n## ", 1)[0]
    words = " ".join(body.split())
    for needed in (r"R_{n-m}", r"e^{i(m-n)\theta}", r"\bar k", "$m - n$ tokens after the key"):
        assert needed in words, f"the sign convention does not state {needed!r}"
    assert not other_forms(body), other_forms(body)


# The package's docstrings and labels follow the same forms (the matrix, the phase, the
# conjugate; an offset written n - m is often code there, such as a group key, and is not read).
PACKAGE_ALLOWED: dict[tuple[str, str], str] = {
    ("src/ropelab/proofs.py", "matrix"): (
        "the docstring of the deliberately wrong identity R(m theta)^T R(n theta) = R((m-n) theta) "
        "that chapter 1's check rejects"
    ),
    ("src/ropelab/learned_rotations.py", "star"): (
        "U^* is the conjugate transpose of a matrix of eigenvectors, not a complex conjugate"
    ),
    ("src/ropelab/spectrum.py", "star"): "x^* is where a difference peaks, not a conjugate",
}


def test_package_follows_the_sign_convention() -> None:
    found = {}
    for path in sorted((ROOT / "src" / "ropelab").rglob("*")):
        if path.suffix not in {".py", ".js"}:
            continue
        forms = other_forms(path.read_text(encoding="utf-8"))
        forms.pop("offset", None)
        for form, hits in forms.items():
            found[(_rel(path), form)] = hits
    problems = {key: hits for key, hits in found.items() if key not in PACKAGE_ALLOWED}
    assert not problems, problems
    stale = sorted(set(PACKAGE_ALLOWED) - set(found))
    assert not stale, f"allowed uses that are gone (delete them from PACKAGE_ALLOWED): {stale}"


# --- the patterns find what they should, and nothing else ----------------------------------------


@pytest.mark.parametrize(
    ("text", "form"),
    [
        (r"$R_m^\top R_n = R_{m-n}$", "matrix"),
        (r"$R_{m - n}$", "matrix"),
        (r"$q^\top R^d_{\Theta,m-n}\, k$", "matrix"),
        (r"$R^{8,\text{half}}_{\Theta,m-n}$", "matrix"),
        (r"$R\big((m-n)\theta\big)$", "matrix"),
        (r"$R_{(m-n)\theta_i}$", "matrix"),
        ("So R_mᵀ R_n = R_(m−n).", "matrix"),
        (r"$\operatorname{Re}[q\,\bar k\,e^{i(n-m)\theta}]$", "complex"),
        (r"$e^{\mathrm{i}(n - m)\theta_i}$", "complex"),
        (r"$e^{-i(m-n)\theta}$", "complex"),
        ("q·conj(k)·e^(i(n−m)θ)", "complex"),
        (r"$h_i = \tilde q_i \tilde k_i^*$", "star"),
        (r"$q\, k^*$", "star"),
        (r"$(W_k x_n)^*$", "star"),
        (r"where ${}^*$ is the conjugate", "star"),
        (r"$q\,k^{\ast}$", "star"),
        (r"$z^{*}$", "star"),
        (r"a function of $n - m$ only", "offset"),
        (r"depends on the offset $n - m$", "offset"),
        (r"| the offset $n - m$ |", "offset"),
        (r"| $n - m$, RoPE part only |", "offset"),
        (r"only through $n-m$.", "offset"),
    ],
)
def test_other_form_is_found(text: str, form: str) -> None:
    assert form in other_forms(text), (text, other_forms(text))


@pytest.mark.parametrize(
    "text",
    [
        r"$R_m^\top R_n = R_{n-m}$, so the score is $q^\top R_{n-m}\,k$",
        r"$(R^d_{\Theta,m})^\top R^d_{\Theta,n} = R^d_{\Theta,n-m}$",
        r"$R\big((n-m)\theta_i\big)$ and $q_i^\top R_{(n-m)\theta_i} k_i$",
        r"$\operatorname{Re}[q\,\bar k\,e^{i(m-n)\theta}]$, $e^{\mathrm{i}(m-n)\theta_i}$",
        r"$\overline{e^{in\theta}} = e^{-in\theta}$",
        r"$r^* = \beta e^{-\gamma}$ and $i^* = \frac d2 x$, at $r^*$",
        r"the offset $m - n$; a function of $m - n$ only; $r = m - n$",
        r"$\cos (n-m)\theta$: one turn by $(n - m)\theta_i$",
        r"$\tilde p_{m-n}$, $\zeta_i^{(m-n)/512}$, $q^\top R_{n-m+8}\,q$",
        "q^T R_(n-m) k with n - m = 3",
        r"$n - m = 3$, the same rotation",
        r"The subscript $n - m$ of the matrix form and the phase $m - n$ are one statement",
        r"矩阵形式的下标 $n - m$ 与复数形式的相位 $m - n$ 是同一个命题",
        "x ** 2 * y",
    ],
)
def test_convention_and_other_symbols_pass(text: str) -> None:
    assert not other_forms(text), other_forms(text)


def test_planted_forms_are_found(tmp_path: Path) -> None:
    """Each form planted in a copy of chapter 3 (and of its Chinese unit) fails the page."""
    source = ROOT / "notebooks" / "03_block_diagonal.ipynb"
    assert not breaches(source)
    plants = {
        "matrix": r"The score is $q^\top R^d_{\Theta,m-n}\,k$.",
        "complex": r"The score is $\operatorname{Re}[q\,\bar k\,e^{i(n-m)\theta}]$.",
        "star": r"With $h_i = \tilde q_i \tilde k_i^*$.",
        "offset": r"Scores depend on $n - m$ only.",
    }
    for form, sentence in plants.items():
        nb = json.loads(source.read_text(encoding="utf-8"))
        cell = next(c for c in nb["cells"] if c["cell_type"] == "markdown")
        cell["source"] = _source(cell) + "\n\n" + sentence
        planted = tmp_path / source.name
        planted.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        found = breaches(planted)
        assert [(key, f) for key, f, _ in found] == [(str(cell["id"]), form)], found
    # the same planted in an allowed cell of another form is still found
    nb = json.loads((ROOT / "notebooks" / "01_rotation_2d.ipynb").read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c.get("id") == "05d3eb74")
    cell["source"] = _source(cell) + "\n\n" + plants["star"]
    planted = tmp_path / "01_rotation_2d.ipynb"
    planted.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert [(key, f) for key, f, _ in breaches(planted)] == [("05d3eb74", "star")]
    # and in the Chinese store: a unit of chapter 3's translation
    store = zh_store.STORE / "03_block_diagonal.md"
    assert not breaches(store)
    body = store.read_text(encoding="utf-8")
    marker = "<!-- unit ch3-relative-eq "
    assert marker in body
    head, tail = body.split(marker, 1)
    first_line, rest = tail.split("\n", 1)
    (tmp_path / "zh").mkdir()
    planted = tmp_path / "zh" / store.name
    planted.write_text(f"{head}{marker}{first_line}\n{plants['matrix']}\n{rest}", encoding="utf-8")
    assert [(key, f) for key, f, _ in breaches(planted)] == [("ch3-relative-eq", "matrix")]
