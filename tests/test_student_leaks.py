"""The student edition hides the answers from every path (issue 31), read from the built files.

A lecturer posts ``student/`` alone. The crawl starts at ``student/index.html`` and
``student/zh/index.html`` and follows every ``href``, ``src`` and redirect of every page, every
``url()`` of every stylesheet, and opens every download: scripts, notebooks (``.ipynb``), zips
(and the wheels in them), PDFs (``pdftotext``, and their link annotations through
``pdfinfo -url``). It fails when

* a link leaves ``student/`` (to the instructor pages, the full Chinese edition, the kit's
  instructor PDF, the answer key), or goes to an outside host that is not one of the
  references the book cites (:data:`ALLOWED_HOSTS`, :data:`ALLOWED_GITHUB_OWNERS`: papers,
  other projects' issues; the book's own repository holds the solutions and is not one) or
  the students' own repository a deployment names (``ROPELAB_STUDENT_REPOSITORY``);
* anything reachable holds a solution: a solution's directive (``{solution} LABEL``,
  ``{solution-start} LABEL``), its HTML (``div.solution``, a ``…-solution-N`` anchor), the
  title "Solution to", a distinctive sentence of a solution's prose (English and Chinese), a
  distinctive line of a solution's code or of what that code printed.

The forbidden strings come from the source notebooks (``tools/student_notebooks.py`` finds the
solutions; the Chinese prose from the translation store through ``tools/build_zh.py``): a
sentence or line counts as distinctive when no student page's source holds it. A check that
finds nothing proves nothing, so each solution's strings must also be found on its page of the
full edition, and a copy of the student site with a planted leak must fail the crawl.

The kit's answer key (``_build/kit/answer-key/``) holds every solution with its outputs; its
student notebooks (``student-notebooks/``) hold none.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import unicodedata
import zipfile
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup

from ropebook.book_toc import toc_docnames
from ropebook.kit import STUDENT_DIR, ZH_DIR
from ropebook.student_notebooks import (
    ANSWER_KEY_DIR,
    STUDENT_NOTEBOOKS_DIR,
    cell_source,
    chapter_notebooks,
    read_notebook,
    solutions,
    student_notebook,
)

ROOT = Path(__file__).resolve().parents[1]


SITE = Path(os.environ.get("ROPELAB_SITE", ROOT / "_build" / "html")).resolve()
KIT = Path(os.environ.get("ROPELAB_KIT", ROOT / "_build" / "kit")).resolve()
STUDENT = SITE / STUDENT_DIR

#: Outside hosts a student page may link to: the references the book cites (papers, the
#: blogs and model cards it quotes). None of them holds this book's solutions.
ALLOWED_HOSTS = frozenset(
    {
        "arxiv.org",
        "doi.org",
        "huggingface.co",
        "labml.ai",
        "nn.labml.ai",
        "kexue.fm",
        "zhuanlan.zhihu.com",
    }
)
#: On GitHub, only other projects' issues and code the book cites (never this book's own
#: repository, which holds the solutions).
ALLOWED_GITHUB_OWNERS = frozenset({"huggingface", "erfanzar"})
#: What a page or file may hold that is not a link to follow.
SKIPPED_SCHEMES = ("mailto:", "data:", "javascript:", "tel:", "#", "about:")
#: Files read as text for forbidden strings (inside the site, a zip or a wheel).
TEXT_SUFFIXES = {".html", ".js", ".css", ".txt", ".md", ".json", ".py", ".svg", ".tex", ".csv"}
URL = re.compile(r"https?://[^\s\"'<>)\]\\]+")
CJK = re.compile(r"[\u4e00-\u9fff]")
SOLUTION_ANCHOR = re.compile(r"-solution-\d+$")


#: The title sphinx-exercise gives a solution, across a line break too.
SOLUTION_TITLE = re.compile(r"\bsolution\s+to\b")


def norm(text: str) -> str:
    """Text as compared: NFKC (full-width punctuation, ligatures, the ellipsis), lower case,
    without white space, dashes, hyphens and quotes (line breaks, hyphenation and smart quotes
    differ between a notebook, a page and a PDF)."""
    text = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"[\s\-\u2010-\u2015'\"\u2018\u2019\u201c\u201d`\u00ad\u200b]", "", text)


# --- the forbidden strings, from the source notebooks ------------------------------------


@dataclass(frozen=True)
class Forbidden:
    kind: str  # "label", "prose", "code", "output"
    page: str  # the docname
    label: str  # the exercise's label
    text: str

    @functools.cached_property
    def key(self) -> str:
        return norm(self.text)


def _sentences(markdown: str, chinese: bool) -> list[str]:
    """The plain-text sentences of solution prose long enough to be distinctive: math, code,
    roles, link targets and markup cut out (they render differently on a page and in a PDF)."""
    text = re.sub(r"^\s*[`:~]{3,}.*$", "|", markdown, flags=re.M)
    text = re.sub(r"^:[\w-]+:.*$", "|", text, flags=re.M)
    text = re.sub(r"\$\$.*?\$\$", "|", text, flags=re.S)
    text = re.sub(r"\\begin\{(\w+\*?)\}.*?\\end\{\1\}", "|", text, flags=re.S)
    text = re.sub(r"\$[^$]*\$", "|", text)
    text = re.sub(r"\{[\w:-]+\}`[^`]*`", "|", text)
    text = re.sub(r"`[^`]*`", "|", text)
    text = re.sub(r"\]\([^)]*\)", "|", text)
    text = re.sub(r"^\s*(?:[-*+]|\d+\.)\s+", "|", text, flags=re.M)
    text = re.sub(r"\n\s*\n", "|", text)
    found = []
    for run in re.split(r"[|*_\[\]{}()<>#\\]", text):
        run = " ".join(run.split())
        for sentence in re.split(r"(?<=[.;:!?。；：！？，,])\s*", run):
            sentence = sentence.strip(" .,;:，。；：")
            if chinese:
                if len(CJK.findall(sentence)) >= 10:
                    found.append(sentence)
            elif len(sentence) >= 30 and len(sentence.split()) >= 6:
                found.append(sentence)
    return found


def _output_lines(cell: dict) -> list[str]:
    lines = []
    for output in cell.get("outputs", []):
        text = output.get("text") or (output.get("data") or {}).get("text/plain") or ""
        text = text if isinstance(text, str) else "".join(text)
        lines += [" ".join(line.split()) for line in text.splitlines()]
    return [
        line
        for line in lines
        if len(line) >= 20 and len(re.findall(r"[A-Za-z]", line)) >= 3 and not line.startswith("<")
    ]


def _code_lines(cell: dict) -> list[str]:
    return [
        " ".join(line.split())
        for line in cell_source(cell).splitlines()
        if len(line.strip()) >= 30 and not line.strip().startswith("#")
    ]


def notebook_text(nb: dict) -> str:
    """Every cell's source and every text output of a notebook, one string."""
    parts = []
    for cell in nb.get("cells", []):
        parts.append(cell_source(cell))
        for output in cell.get("outputs", []):
            data = output.get("data") or {}
            texts = [v for k, v in data.items() if k.startswith("text/") or k.endswith("json")]
            for value in [output.get("text"), *texts]:
                if isinstance(value, list):
                    value = "".join(value)
                if isinstance(value, str):
                    parts.append(value)
    return "\n".join(parts)


@functools.cache
def sources() -> dict[str, dict[str, object]]:
    """``{language: {docname: notebook dict or .md text}}`` of the full editions' sources (the
    Chinese built from the translation store, as tools/build_zh.py does)."""
    from ropebook.build_zh import zh_markdown, zh_notebook

    found: dict[str, dict[str, object]] = {"en": {}, "zh": {}}
    for docname in toc_docnames():
        notebook = ROOT / f"{docname}.ipynb"
        if notebook.exists():
            found["en"][docname] = read_notebook(notebook)
            found["zh"][docname] = zh_notebook(notebook)[0]
        else:
            page = ROOT / f"{docname}.md"
            found["en"][docname] = page.read_text(encoding="utf-8")
            found["zh"][docname] = zh_markdown(page)[0]
    return found


@functools.cache
def public_text() -> str:
    """Everything a student may read (the student versions of every page in both languages,
    the package's source), normalised: a solution's sentence found here is not distinctive."""
    # The package a student installs (its wheel is in the site) prints the same messages.
    parts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "src").rglob("*.py"))]
    for pages in sources().values():
        for page in pages.values():
            parts.append(notebook_text(student_notebook(page)) if isinstance(page, dict) else page)
    return norm("\n".join(parts))


@functools.cache
def forbidden_strings() -> tuple[Forbidden, ...]:
    """The labels, prose, code and outputs of every solution in both languages that a student
    edition must never show."""
    public = public_text()
    found: dict[tuple[str, str], Forbidden] = {}
    for language, pages in sources().items():
        for docname, page in pages.items():
            if not isinstance(page, dict):
                continue
            for solution in solutions(page):
                items = [
                    ("label", "{solution-start} " + solution.label),
                    ("label", "{solution} " + solution.label),
                ]
                for prose in solution.prose:
                    items += [("prose", s) for s in _sentences(prose, language == "zh")]
                if language == "en":
                    for cell in solution.code_cells:
                        items += [("code", line) for line in _code_lines(cell)]
                        items += [("output", line) for line in _output_lines(cell)]
                for kind, text in items:
                    item = Forbidden(kind, docname, solution.label, text)
                    if kind == "label" or item.key not in public:
                        found.setdefault((item.key, docname), item)
    return tuple(found.values())


@functools.cache
def forbidden_by_key() -> dict[str, Forbidden]:
    return {item.key: item for item in forbidden_strings()}


# --- the crawl ---------------------------------------------------------------------------


@dataclass
class Crawl:
    """What a crawl of one edition's folder reached and what it found wrong."""

    root: Path
    visited: set[Path] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)

    def where(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.root.parent))
        except ValueError:
            return str(path)

    def check_text(self, where: str, text: str) -> None:
        """Every forbidden string in ``text`` (one problem per string kind and page)."""
        flat = norm(text)
        # a whole-word phrase: with the white space gone, a PDF table's "RoFormer's solution"
        # over "Total" (the teaching page) would read as "solutionto"
        if SOLUTION_TITLE.search(" ".join(unicodedata.normalize("NFKC", text).lower().split())):
            self.problems.append(f"{where}: 'Solution to' (a solution's title)")
        reported = set()
        for key, item in forbidden_by_key().items():
            if key in flat and (item.kind, item.label) not in reported:
                reported.add((item.kind, item.label))
                self.problems.append(
                    f"{where}: solution {item.kind} of {item.label} ({item.page}): {item.text!r}"
                )

    def check_url(self, where: str, url: str) -> bool:
        """An outside link: True when it is a reference the book may cite."""
        parts = urlsplit(url if "://" in url else "https:" + url)
        host = (parts.hostname or "").removeprefix("www.")
        owner = parts.path.strip("/").split("/")[0]
        if host in ALLOWED_HOSTS or (host == "github.com" and owner in ALLOWED_GITHUB_OWNERS):
            return True
        if student_repository_link(url):
            return True
        self.problems.append(f"{where}: links outside the student edition: {url}")
        return False


def student_repository_link(url: str) -> bool:
    """A link to the students' own repository, or a Colab or Binder button that opens it, when
    the deployment names one (``ROPELAB_STUDENT_REPOSITORY``, src/ropebook/ext/deployment.py): it
    holds the student notebooks only."""
    repository = os.environ.get("ROPELAB_STUDENT_REPOSITORY", "").strip().rstrip("/")
    if not repository:
        return False
    if url.startswith(repository + "/") or url == repository:
        return True
    name = urlsplit(repository).path.strip("/").removesuffix(".git")
    host = urlsplit(url).hostname or ""
    return host in ("colab.research.google.com", "mybinder.org") and f"/{name}/" in url + "/"


def _html_links(soup: BeautifulSoup) -> list[str]:
    links = []
    for tag in soup.find_all(True):
        for attribute in ("href", "src", "xlink:href", "poster", "action", "data-src"):
            value = tag.get(attribute)
            if isinstance(value, str) and value.strip():
                links.append(value.strip())
        if tag.get("srcset"):
            links += [part.split()[0] for part in tag["srcset"].split(",") if part.strip()]
        if tag.name == "meta" and str(tag.get("http-equiv", "")).lower() == "refresh":
            match = re.search(r"url=(.+)", tag.get("content", ""), re.I)
            if match:
                links.append(match.group(1).strip("'\" "))
    return links


#: The problems found in an archive inside an archive (the same wheel is in every chapter's
#: zip), by its CRC and size, relative to the archive.
_NESTED: dict[tuple[int, int], list[str]] = {}


def _read_zip(crawl: Crawl, where: str, archive: zipfile.ZipFile) -> None:
    """The text members of a zip (and of the wheels and zips inside it)."""
    import io

    for name in archive.namelist():
        suffix = Path(name).suffix.lower()
        inner = f"{where}!{name}"
        if suffix in (".zip", ".whl"):
            info = archive.getinfo(name)
            seen = (info.CRC, info.file_size)
            if seen not in _NESTED:
                nested = Crawl(crawl.root)
                _read_zip(nested, "", zipfile.ZipFile(io.BytesIO(archive.read(name))))
                _NESTED[seen] = nested.problems
            crawl.problems += [f"{inner}{problem}" for problem in _NESTED[seen]]
        elif suffix == ".ipynb":
            _read_notebook(crawl, inner, json.loads(archive.read(name)))
        elif suffix in TEXT_SUFFIXES - {".svg"}:
            # (A figure's SVG draws its text as paths; its caption is in the archive's index.)
            text = archive.read(name).decode("utf-8", errors="replace")
            crawl.check_text(inner, text)


def _read_notebook(crawl: Crawl, where: str, nb: dict) -> None:
    text = notebook_text(nb)
    crawl.check_text(where, text)
    for url in sorted(set(URL.findall(text))):
        crawl.check_url(where, url.rstrip(".,;:"))


def _read_pdf(crawl: Crawl, where: str, path: Path) -> None:
    text = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    crawl.check_text(where, text)
    info = subprocess.run(
        ["pdfinfo", "-url", str(path)], capture_output=True, text=True, check=True
    ).stdout
    for line in info.splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 3:
            crawl.check_url(where, fields[2])


#: A file's problems and links by (device, inode, mtime, where): a hard-linked copy of the
#: site (the planted-leak test) reads only the files it changed.
_SCANNED: dict[tuple[int, int, int, str], tuple[list[str], list[str]]] = {}


def scan(root: Path, path: Path, where: str) -> tuple[list[str], list[str]]:
    """The problems of one file and the links it holds (to follow)."""
    stat = path.stat()
    cache_key = (stat.st_dev, stat.st_ino, stat.st_mtime_ns, where)
    if cache_key in _SCANNED:
        return _SCANNED[cache_key]
    found = Crawl(root)
    suffix = path.suffix.lower()
    links: list[str] = []
    if suffix == ".html":
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        if soup.select("div.solution, .solution-title") or any(
            SOLUTION_ANCHOR.search(str(tag.get("id", ""))) for tag in soup.find_all(id=True)
        ):
            found.problems.append(f"{where}: a solution element (div.solution)")
        found.check_text(where, soup.get_text(" "))
        links = _html_links(soup)
    elif suffix == ".css":
        text = path.read_text(encoding="utf-8", errors="replace")
        links = [u.strip("'\" ") for u in re.findall(r"url\(([^)]+)\)", text)]
    elif suffix in TEXT_SUFFIXES:
        found.check_text(where, path.read_text(encoding="utf-8", errors="replace"))
    elif suffix == ".ipynb":
        _read_notebook(found, where, json.loads(path.read_text(encoding="utf-8")))
    elif suffix in (".zip", ".whl"):
        _read_zip(found, where, zipfile.ZipFile(path))
    elif suffix == ".pdf":
        _read_pdf(found, where, path)
    _SCANNED[cache_key] = (found.problems, links)
    return found.problems, links


def crawl(root: Path, starts: list[Path]) -> Crawl:
    """Follow everything reachable from ``starts`` without leaving ``root``; read every file
    reached for forbidden strings."""
    root = root.resolve()
    found = Crawl(root)
    queue = deque(start.resolve() for start in starts)
    while queue:
        path = queue.popleft()
        if path in found.visited:
            continue
        found.visited.add(path)
        where = found.where(path)
        if not path.is_file():
            found.problems.append(f"{where}: missing")
            continue
        problems, links = scan(root, path, where)
        found.problems += problems
        for link in links:
            if link.startswith(SKIPPED_SCHEMES):
                continue
            if re.match(r"^(https?:)?//", link):
                found.check_url(where, link)
                continue
            if re.match(r"^[a-z][a-z0-9+.-]*:", link, re.I):
                found.problems.append(f"{where}: a link of another kind: {link}")
                continue
            relative = unquote(urlsplit(link).path)
            if not relative:
                continue
            target = (path.parent / relative).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_relative_to(root):
                found.problems.append(
                    f"{where}: links outside {root.name}/: {link} -> {found.where(target)}"
                )
                continue
            queue.append(target)
    return found


# --- tests -------------------------------------------------------------------------------


def need(path: Path, how: str = "make book") -> Path:
    if not path.exists():
        pytest.fail(f"{path} is missing: run `{how}`")
    return path


def student_starts(student: Path) -> list[Path]:
    return [student / "index.html", student / ZH_DIR / "index.html"]


@functools.cache
def student_crawl() -> Crawl:
    starts = [need(p) for p in student_starts(STUDENT)]
    return crawl(STUDENT, starts)


def test_every_solution_gives_forbidden_strings():
    """Every solution of both languages yields its labels and at least one sentence or printed
    line of its own; every gated solution's code yields code or output lines."""
    items = forbidden_strings()
    for language, pages in sources().items():
        for docname, page in pages.items():
            if not isinstance(page, dict):
                continue
            for solution in solutions(page):
                mine = [i for i in items if i.page == docname and i.label == solution.label]
                kinds = {i.kind for i in mine}
                text = {i.text for i in mine if i.kind == "prose"}
                assert "label" in kinds, (docname, solution.label)
                assert len(kinds - {"label"}) >= 1, f"{language} {docname} {solution.label}"
                if language == "zh":
                    assert any(CJK.search(t) for t in text) or "output" in kinds, (
                        f"zh {docname} {solution.label}: no Chinese sentence"
                    )
    assert len({i.label for i in items}) >= 60


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_forbidden_strings_are_on_the_full_editions_pages(language):
    """The check is not vacuous: the solutions' sentences, code and outputs are found, as the
    crawl compares them, on their pages of the full edition (instructor site, ``zh/``): nine
    in ten of them, and something of every solution."""
    site = SITE if language == "en" else SITE / ZH_DIR

    def mine(item: Forbidden) -> bool:
        if item.kind != "prose":
            return item.kind != "label"
        chinese = bool(CJK.search(item.text))
        return chinese if language == "zh" else not chinese

    pages: dict[str, str] = {}
    seen: dict[tuple[str, str], bool] = {}
    found = total = 0
    for item in filter(mine, forbidden_strings()):
        if item.page not in pages:
            page = need(site / f"{item.page}.html")
            pages[item.page] = norm(BeautifulSoup(page.read_text(), "html.parser").get_text(" "))
        hit = item.key in pages[item.page]
        total += 1
        found += hit
        seen[(item.page, item.label)] = seen.get((item.page, item.label), False) or hit
    missing = [key for key, hit in seen.items() if not hit]
    assert total > 200, total
    assert found / total > 0.9, f"{language}: only {found} of {total} strings on the full pages"
    assert len(seen) >= 60 and missing == [], f"{language}: nothing found of {missing}"


def test_the_crawl_reaches_every_page_and_download():
    reached = student_crawl().visited
    for base in (STUDENT, STUDENT / ZH_DIR):
        for docname in toc_docnames():
            assert (base / f"{docname}.html").resolve() in reached, f"{base}: {docname}"
        for notebook in chapter_notebooks(ROOT):
            source = base / "_sources" / f"{notebook.relative_to(ROOT)}"
            assert source.resolve() in reached, f"not reached: {source}"
    kinds = {p.suffix for p in reached}
    assert {".html", ".ipynb", ".pdf", ".js", ".css"} <= kinds, kinds
    assert any(p.suffix == ".zip" for p in reached), "no download zip reached"


def test_the_student_edition_leaks_no_solution_and_no_link():
    problems = student_crawl().problems
    assert problems == [], f"{len(problems)} leaks:\n" + "\n".join(problems[:40])


def test_the_student_notebook_downloads_are_the_student_notebooks():
    for base, language in ((STUDENT, "en"), (STUDENT / ZH_DIR, "zh")):
        for notebook in chapter_notebooks(ROOT):
            docname = str(notebook.relative_to(ROOT).with_suffix(""))
            served = json.loads(need(base / "_sources" / f"{docname}.ipynb").read_text())
            expected = student_notebook(sources()[language][docname])
            # The same cells (a deployment may fill in the setup cell's wheel address).
            assert [(c["cell_type"], c.get("id")) for c in served["cells"]] == [
                (c["cell_type"], c.get("id")) for c in expected["cells"]
            ], f"{base}: {docname}"
            markdown = [cell_source(c) for c in served["cells"] if c["cell_type"] == "markdown"]
            assert markdown == [
                cell_source(c) for c in expected["cells"] if c["cell_type"] == "markdown"
            ], f"{base}: {docname}"


def _hardlinked_copy(source: Path, target: Path) -> None:
    shutil.copytree(source, target, copy_function=os.link, symlinks=True)


def _rewrite(path: Path, text: str) -> None:
    path.unlink()
    path.write_text(text, encoding="utf-8")


#: A launch button to the book's full notebooks (the kind the student edition had).
COLAB = (
    "https://colab.research.google.com/github/ropelab/rope-derived-and-run/blob/main/"
    "notebooks/01_rotation_2d.ipynb"
)


def test_a_planted_leak_fails_the_crawl(tmp_path):
    """A copy of the student site with four leaks: a page linking the instructor PDF and a
    launch button to the full notebook, a Chinese page linking the full Chinese edition, a
    solution put back into a notebook download. The crawl reports each."""
    student = tmp_path / "html" / STUDENT_DIR
    _hardlinked_copy(need(STUDENT), student)
    page = student / "notebooks" / "01_rotation_2d.html"
    html = page.read_text(encoding="utf-8")
    _rewrite(
        page,
        html.replace(
            "</article>",
            f'<a href="../../kit/rope-derived-and-run.pdf">PDF</a><a href="{COLAB}">Colab</a>'
            "</article>",
            1,
        ),
    )
    zh_page = student / ZH_DIR / "notebooks" / "02_complex_derivation.html"
    html = zh_page.read_text(encoding="utf-8")
    _rewrite(
        zh_page,
        html.replace(
            "</article>",
            '<a href="../../../zh/notebooks/02_complex_derivation.html">全文</a></article>',
            1,
        ),
    )
    download = student / "_sources" / "notebooks" / "03_block_diagonal.ipynb"
    nb = json.loads(download.read_text(encoding="utf-8"))
    full = sources()["en"]["notebooks/03_block_diagonal"]
    planted = solutions(full)[0]
    nb["cells"] += planted.code_cells
    _rewrite(download, json.dumps(nb, indent=1, ensure_ascii=False))
    result = crawl(student, student_starts(student))
    report = "\n".join(result.problems)
    print(report)
    assert "links outside student/: ../../kit/rope-derived-and-run.pdf" in report
    assert f"links outside the student edition: {COLAB}" in report
    assert "links outside student/: ../../../zh/notebooks/02_complex_derivation.html" in report
    assert (
        f"student/_sources/notebooks/03_block_diagonal.ipynb: solution output of {planted.label}"
        in report
        or (
            f"student/_sources/notebooks/03_block_diagonal.ipynb: solution code of {planted.label}"
            in report
        )
    )


# --- the kit: answer key and student notebooks ---------------------------------------------


@pytest.mark.parametrize("notebook", chapter_notebooks(ROOT), ids=lambda p: p.stem)
def test_the_answer_key_holds_every_solution_with_its_outputs(notebook):
    key = read_notebook(
        need(KIT / ANSWER_KEY_DIR / "notebooks" / f"{notebook.stem}-answer-key.ipynb")
    )
    full = solutions(read_notebook(notebook))
    headings = [
        m.group(1)
        for c in key["cells"]
        if c["cell_type"] == "markdown" and (m := re.match(r"## `([^`]+)`", cell_source(c)))
    ]
    assert headings == [s.label for s in full]
    code = [c for c in key["cells"] if c["cell_type"] == "code"]
    expected = [c for s in full for c in s.code_cells]
    assert [cell_source(c) for c in code] == [cell_source(c) for c in expected]
    assert [c["outputs"] for c in code] == [c["outputs"] for c in expected]
    assert all(c["outputs"] for c in code), f"{notebook.stem}: a solution without output"
    text = norm(notebook_text(key))
    for item in forbidden_strings():
        if item.page == f"notebooks/{notebook.stem}" and item.kind in ("prose", "output"):
            if not CJK.search(item.text):
                assert item.key in text, f"{notebook.stem}: {item.text!r} not in the answer key"
    assert (
        KIT / ANSWER_KEY_DIR / ZH_DIR / "notebooks" / f"{notebook.stem}-answer-key.ipynb"
    ).is_file()


def test_the_answer_key_pdf_prints_the_solutions():
    pdf = need(KIT / ANSWER_KEY_DIR / "rope-derived-and-run-answer-key.pdf", "make kit")
    text = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert text.count("Solution to") >= 60


def test_the_kits_student_notebooks_hold_no_solution():
    folder = need(KIT / STUDENT_NOTEBOOKS_DIR, "make kit")
    result = Crawl(folder)
    notebooks = sorted(folder.rglob("*.ipynb"))
    assert len(notebooks) >= 2 * len(chapter_notebooks(ROOT))
    for path in notebooks:
        _read_notebook(result, str(path.relative_to(folder)), json.loads(path.read_text()))
    assert result.problems == []


def test_a_solution_title_is_found_across_a_line_break_and_not_inside_other_words():
    found = Crawl(STUDENT)
    found.check_text("planted", "Exercise 2.1\nSolution\nto Exercise 2.1")
    assert found.problems == ["planted: 'Solution to' (a solution's title)"]
    clean = Crawl(STUDENT)
    clean.check_text("table", "the requirement RoFormer's solution\nTotal 14 8")
    assert clean.problems == []
