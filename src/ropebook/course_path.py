"""Course paths through the book: 1, 2 and 4 lectures of 90 minutes (issue 31).

The chapters mark their own sections: the markdown cell that opens each ``##`` section carries
the cell metadata ``{"ropelab": {"course": "core"}}`` or ``"optional"`` (core: needed to
understand and implement RoPE and its main extensions in a first course), and the
"## Exercises" cell lists the chapter's core exercises,
``{"ropelab": {"course": "core", "core_exercises": ["ch1-predict-pairs", ...]}}``. The minutes
of each section come from ``tools/reading_time.py`` (:func:`reading_time.section_times`: the
chapter's lecture minutes, 1.5 x its reading time, shared out by what each section holds).

A path (:data:`PATHS`) names, for each lecture, the chapters it takes and which of their
sections: ``"core"`` (every core section of the chapter) or the titles of some of them. All the
rest is read from the chapters: the section titles and links, the minutes of each part and of
the lecture, the slides of the chapter decks that fall in those sections (the deck of
``tools/build_slides.py``: a title slide, the cells tagged ``slide`` in order, the What-to-
remember box last), the explorables to show live, the core exercises to set. The
two-lecture plan (:data:`PLAN_NOTES`) says what to do in each part of that path; it is
printed part by part in the path's order, so it cannot skip or reorder a part.

``book/teaching.md`` and its Chinese store ``book/zh/teaching.md`` are written by this tool,
both from the same data (Chinese titles from the chapters' own stores), never by hand::

    .venv/bin/python tools/course_path.py            # the paths, as a table per lecture
    .venv/bin/python tools/course_path.py --write    # write book/teaching.md and its zh store

``tests/test_course_path.py`` checks the markers, that the page and its store are current,
that every lecture's parts add up to its printed total and to at most 90 minutes, and that the
1- and 2-lecture paths take core sections only.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ropebook import ROOT, zh_store
from ropebook import reading_time as rt
from ropebook.book_toc import toc_docnames

LECTURE_MINUTES = 90
COURSE_KEY = "ropelab"
COURSES = ("core", "optional")
PAGE = ROOT / "book" / "teaching.md"
#: The primer on complex numbers (issue 31), read before the first lecture where the book has it.
PRIMER = "01a_complex_numbers"
ASSIGNMENTS_PAGE = "book/assignments"
EXPLORABLE = re.compile(r"\bexplorable\(\s*[\"'](\w+)[\"']")
TITLE = re.compile(r"^#\s+(\S+?)\.\s+(.+?)\s*$", re.MULTILINE)
EXERCISE_LABEL = re.compile(r"\{exercise\}[^\n]*\n:label: ([\w-]+)")


# --- what the chapters hold ---------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    """One ``##`` section of a chapter, as a path uses it."""

    stem: str
    title: str
    title_zh: str
    course: str | None
    reading_minutes: int
    lecture_minutes: int
    slides: tuple[int, ...]  # its slides' numbers in the chapter's deck
    explorables: tuple[str, ...]  # figure names of the explorables it shows


@dataclass(frozen=True)
class Chapter:
    """A chapter notebook of the table of contents, read for the paths."""

    stem: str
    number: str
    title: str
    title_zh: str
    sections: tuple[Section, ...]
    exercises: tuple[str, ...]  # every exercise label, in order
    core_exercises: tuple[str, ...]
    deck_size: int
    closing_slide: int | None  # the What-to-remember slide, when the deck ends with it

    def section(self, title: str) -> Section:
        for section in self.sections:
            if section.title == title:
                return section
        raise ValueError(f"{self.stem}: no section titled {title!r}")


def _text(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _zh_heading(units: dict, key: str, level: str, fallback: str) -> str:
    """The heading line of a Chinese unit (``## 标题``), or the English where there is none."""
    unit = units.get(key)
    if unit is None:
        return fallback
    for line in unit.text.splitlines():
        if line.startswith(level + " "):
            return line[len(level) + 1 :].strip()
    return fallback


def toc_chapters(root: Path = ROOT) -> list[Path]:
    """The chapter notebooks ``_toc.yml`` lists, in reading order."""
    return [
        root / f"{entry}.ipynb"
        for entry in toc_docnames(root)
        if entry.startswith("notebooks/") and (root / f"{entry}.ipynb").exists()
    ]


def read_chapter(path: Path) -> Chapter:
    """A chapter's sections with their markers, minutes, slides and explorables."""
    path = Path(path)
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    units = zh_store.read_store(zh_store.STORE / f"{path.stem}.md")
    title_cell = next(c for c in cells if c["cell_type"] == "markdown" and TITLE.search(_text(c)))
    number, title = TITLE.search(_text(title_cell)).groups()
    title_zh = _zh_heading(units, str(title_cell.get("id")), "#", f"{number}. {title}")
    title_zh = title_zh.split(". ", 1)[1] if title_zh.startswith(f"{number}. ") else title_zh
    times = rt.section_times(path)
    # which section each cell is in (a cell that opens a section is in it)
    owner: list[int] = []
    current = 0
    seen = 0
    for cell in cells:
        if cell["cell_type"] == "markdown":
            found = len(rt.section_headings(_text(cell)))
            if found:
                seen += found
                current = seen - 1
        owner.append(max(current, 0))
    tagged = [i for i, c in enumerate(cells) if "slide" in c.get("metadata", {}).get("tags", [])]
    # a tagged cell makes one slide, or one per entry of a list in its ``slide`` metadata
    # (tools/build_slides.py: a derivation's steps, one slide each)
    slide_of: dict[int, list[int]] = {}
    next_slide = 2
    for cell_index in tagged:
        written = cells[cell_index].get("metadata", {}).get("slide")
        count = len(written) if isinstance(written, list) else 1
        slide_of[cell_index] = list(range(next_slide, next_slide + count))
        next_slide += count
    remember = [
        i
        for i, c in enumerate(cells)
        if c["cell_type"] == "markdown"
        and re.search(r"\{admonition\} What to remember\n:class: remember", _text(c))
    ]
    closing = None
    deck_size = next_slide - 1
    if remember and remember[0] not in slide_of:
        deck_size += 1
        closing = deck_size
    slides: dict[int, list[int]] = {}
    for cell, numbers in slide_of.items():
        slides.setdefault(owner[cell], []).extend(numbers)
    explorables: dict[int, list[str]] = {}
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "code" or not EXPLORABLE.search(_text(cell)):
            continue
        if "screen-only" not in cell.get("metadata", {}).get("tags", []):
            continue
        twin = cells[i + 1] if i + 1 < len(cells) else {}
        name = twin.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("name")
        if name:
            explorables.setdefault(owner[i], []).append(name)
    sections = []
    heading_cells = [
        c for c in cells if c["cell_type"] == "markdown" and rt.section_headings(_text(c))
    ]
    for index, t in enumerate(times):
        cell_id = t.cell_id
        sections.append(
            Section(
                stem=path.stem,
                title=t.title,
                title_zh=_zh_heading(units, cell_id, "##", t.title),
                course=t.course,
                reading_minutes=t.reading_minutes,
                lecture_minutes=t.lecture_minutes,
                slides=tuple(slides.get(index, [])),
                explorables=tuple(explorables.get(index, [])),
            )
        )
    markdown = "\n".join(_text(c) for c in cells if c["cell_type"] == "markdown")
    exercises = tuple(EXERCISE_LABEL.findall(markdown))
    exercise_cell = next((c for c in heading_cells if "## Exercises" in _text(c)), None)
    core_exercises: tuple[str, ...] = ()
    if exercise_cell is not None:
        marker = exercise_cell.get("metadata", {}).get(COURSE_KEY, {})
        core_exercises = tuple(marker.get("core_exercises", ()))
    return Chapter(
        path.stem,
        number,
        title,
        title_zh,
        tuple(sections),
        exercises,
        core_exercises,
        deck_size,
        closing,
    )


def marker_problems(path: Path) -> list[str]:
    """What is wrong with a chapter's course markers: a ``##`` section without a valid
    marker, or a core-exercise list that names no exercise of the chapter."""
    path = Path(path)
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    problems = []
    labels = set(EXERCISE_LABEL.findall("\n".join(_text(c) for c in cells)))
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        headings = rt.section_headings(_text(cell))
        if not headings:
            continue
        if len(headings) > 1:
            problems.append(f"{path.name}: one cell opens {len(headings)} sections")
        marker = cell.get("metadata", {}).get(COURSE_KEY, {})
        course = marker.get("course")
        for _, title in headings:
            if course not in COURSES:
                problems.append(
                    f"{path.name}: section {title!r} has no course marker "
                    f"(cell metadata {COURSE_KEY}.course: one of {COURSES}, got {course!r})"
                )
            if title == "Exercises":
                listed = marker.get("core_exercises")
                if not isinstance(listed, list):
                    problems.append(f"{path.name}: the Exercises cell lists no core_exercises")
                    continue
                for label in listed:
                    if label not in labels:
                        problems.append(f"{path.name}: core exercise {label!r} does not exist")
    return problems


# --- the paths ----------------------------------------------------------------------------------

Take = tuple[str, str | tuple[str, ...]]  # (chapter stem, "core" | "all" | section titles)


@dataclass(frozen=True)
class Lecture:
    title: str
    title_zh: str
    takes: tuple[Take, ...]
    problem_set: str | None = None


@dataclass(frozen=True)
class CoursePath:
    lectures: int
    name: str
    name_zh: str
    before: tuple[Take, ...]  # read before the first lecture
    plan: tuple[Lecture, ...]
    core_only: bool
    note: str = ""
    note_zh: str = ""


PROBLEM_SETS = ("ps1_derive_and_check", "ps2_implement_rope", "ps3_frequencies_and_extension")

DERIVE = Lecture(
    "From the goal to the rotation",
    "从目标到旋转",
    (
        ("00_why_positions", ("Attention is blind to word order", "The goal RoPE sets")),
        ("01_rotation_2d", "core"),
        ("02_complex_derivation", "core"),
    ),
    "ps1_derive_and_check",
)
IMPLEMENT = Lecture(
    "d dimensions, the code and the spectrum",
    "d 维、代码与频谱",
    (
        ("03_block_diagonal", "core"),
        (
            "03a_rope_in_code",
            ("RoPE from scratch in NumPy", "The same in PyTorch, with a cos/sin table"),
        ),
        (
            "04_theta_spectrum",
            (
                "One frequency per plane",
                "Wavelengths and the training length",
                "Explore the spectrum",
            ),
        ),
    ),
    "ps2_implement_rope",
)

PATHS: tuple[CoursePath, ...] = (
    CoursePath(
        1,
        "One lecture",
        "一次课",
        (
            (PRIMER, "all"),
            (
                "01_rotation_2d",
                ("Complex numbers are 2D vectors", "The rotation matrix from the polar form"),
            ),
        ),
        (
            Lecture(
                "RoPE in one lecture",
                "一次课讲完 RoPE",
                (
                    ("00_why_positions", ("The goal RoPE sets",)),
                    (
                        "01_rotation_2d",
                        (
                            "Relative position from absolute rotations",
                            "Try it: move both positions",
                        ),
                    ),
                    ("02_complex_derivation", ("RoFormer's solution",)),
                    (
                        "03_block_diagonal",
                        (
                            "From one plane to d/2 planes",
                            "The fast elementwise form",
                            "Two ways to pair coordinates",
                        ),
                    ),
                ),
                "ps2_implement_rope",
            ),
        ),
        core_only=True,
        note="The rotation matrix is read at home, so the lecture can start from the goal.",
        note_zh="旋转矩阵留给学生课前自己读，这样课堂可以直接从目标讲起。",
    ),
    CoursePath(
        2,
        "Two lectures",
        "两次课",
        ((PRIMER, "all"),),
        (DERIVE, IMPLEMENT),
        core_only=True,
    ),
    CoursePath(
        4,
        "Four lectures",
        "四次课",
        ((PRIMER, "all"),),
        (
            DERIVE,
            Lecture(
                "d dimensions and the code",
                "d 维与代码",
                (
                    ("03_block_diagonal", "core"),
                    (
                        "03_block_diagonal",
                        ("What the fast form saves", "Explore: the matrix at any position"),
                    ),
                    ("03a_rope_in_code", "core"),
                    ("03a_rope_in_code", ("The complex form of Meta's Llama code",)),
                ),
                "ps2_implement_rope",
            ),
            Lecture(
                "The spectrum and context extension",
                "频谱与上下文扩展",
                (("04_theta_spectrum", "core"), ("06_scaling_laws", "core")),
                "ps3_frequencies_and_extension",
            ),
            Lecture(
                "Decay and RoPE in practice",
                "衰减与实践中的 RoPE",
                (
                    ("05_long_range_decay", "core"),
                    ("08_rope_in_practice", "core"),
                    ("08_rope_in_practice", ("Converting checkpoints between layouts",)),
                    ("09_beyond_the_sources", "core"),
                ),
            ),
        ),
        core_only=False,
    ),
)

#: What to say and show in each part of the two-lecture path, in English and Chinese, keyed
#: by (chapter stem, section title). The page prints them in the path's order.
PLAN_NOTES: dict[tuple[str, str], tuple[str, str]] = {
    ("00_why_positions", "Attention is blind to word order"): (
        "Run the permutation cell: swap two words and the scores move with them. Say that "
        "attention alone cannot tell who bites whom.",
        "运行置换实验的单元：交换两个词，分数也跟着交换。告诉学生：单靠注意力分不清谁咬了谁。",
    ),
    ("00_why_positions", "The goal RoPE sets"): (
        "Write the goal on the board: each token is rotated by its own position, and the score "
        "sees only the offset $m - n$.",
        "把目标写在黑板上：每个 token 按自己的位置旋转，而分数只看到偏移 $m - n$。",
    ),
    ("01_rotation_2d", "Learning objectives"): (
        "Read the objectives aloud; send whoever is unsure of complex numbers to the primer.",
        "朗读学习目标；对复数没有把握的学生，请他们先读入门章节。",
    ),
    ("01_rotation_2d", "Complex numbers are 2D vectors"): (
        "Draw $a + bi$ as the point $(a, b)$; multiplying by $e^{i\\varphi}$ turns it by "
        "$\\varphi$.",
        "把 $a + bi$ 画成点 $(a, b)$；乘以 $e^{i\\varphi}$ 就把它转过 $\\varphi$。",
    ),
    ("01_rotation_2d", "The rotation matrix from the polar form"): (
        "Derive $R(\\varphi)$ from the angle-sum formulas on the board, then check it on "
        "$(1, 0)$ turned by $\\pi/4$.",
        "在黑板上由和角公式推出 $R(\\varphi)$，再用 $(1, 0)$ 转过 $\\pi/4$ 来检验。",
    ),
    ("01_rotation_2d", "Relative position from absolute rotations"): (
        "Prove $R_m^\\top R_n = R_{n-m}$, run the SymPy cell, and show the wrong variant fail "
        "the same check.",
        "证明 $R_m^\\top R_n = R_{n-m}$，运行 SymPy 单元，并演示错误的变体在同样的检查下失败。",
    ),
    ("01_rotation_2d", "Try it: move both positions"): (
        "Live: move both positions by the same amount and the score stays; change the offset "
        "and it moves. Ask the room to predict first.",
        "现场演示：两个位置挪动同样多，分数不变；改变偏移，分数就变。先让学生预测。",
    ),
    ("02_complex_derivation", "Learning objectives"): (
        "Turn the argument around: now we start from the requirement and find the rotation.",
        "把论证反过来：这次从要求出发，把旋转找出来。",
    ),
    ("02_complex_derivation", "The requirement"): (
        "In 2D the dot product is $\\operatorname{Re}[u\\,\\bar w]$; the conjugate turns a "
        "sum of angles into a difference.",
        "在二维中点积是 $\\operatorname{Re}[u\\,\\bar w]$；共轭把角度之和变成角度之差。",
    ),
    ("02_complex_derivation", "RoFormer's solution"): (
        "Give $f_q = q\\,e^{im\\theta}$, show that it is $R(m\\theta)$, and hand out the first "
        "problem set.",
        "给出 $f_q = q\\,e^{im\\theta}$，说明它就是 $R(m\\theta)$，然后布置第一份习题。",
    ),
    ("03_block_diagonal", "Learning objectives"): (
        "Recall the 2D result in one line; today it becomes $d/2$ planes and real code.",
        "用一句话回顾二维的结论；今天把它推广到 $d/2$ 个子空间（plane），并写成真正的代码。",
    ),
    ("03_block_diagonal", "From one plane to d/2 planes"): (
        "Draw the block-diagonal matrix; each plane turns at its own frequency "
        "$\\theta_i = \\beta^{-2i/d}$.",
        "画出分块对角矩阵；每个子空间以自己的频率 $\\theta_i = \\beta^{-2i/d}$ 旋转。",
    ),
    ("03_block_diagonal", "The fast elementwise form"): (
        "Replace the matrix by $x \\otimes \\cos + \\mathrm{rotate}(x) \\otimes \\sin$ and count "
        "the operations.",
        "用 $x \\otimes \\cos + \\mathrm{rotate}(x) \\otimes \\sin$ 代替矩阵，数一数运算次数。",
    ),
    ("03_block_diagonal", "Two ways to pair coordinates"): (
        "Show the interleaved and half-split layouts side by side and the permutation $P$ "
        "between them; warn that mixing them raises no error.",
        "把交错排布（interleaved layout）与对半排布（half-split layout）并排展示，"
        "以及它们之间的置换 $P$；提醒学生混用不会报任何错误。",
    ),
    ("03a_rope_in_code", "RoPE from scratch in NumPy"): (
        "Live-code the fifteen lines; compare with the exact rotation, never with itself.",
        "现场写出这十五行代码；要与精确的旋转对比，绝不和它自己对比。",
    ),
    ("03a_rope_in_code", "The same in PyTorch, with a cos/sin table"): (
        "Build the cos/sin table once and reuse it; form the angles in float32 or float64.",
        "只构建一次 cos/sin 表（cos/sin table）并反复使用；旋转角要在 float32 或 float64 中计算。",
    ),
    ("04_theta_spectrum", "One frequency per plane"): (
        "Plot $\\theta_i$ on a logarithmic axis: a straight line from the fastest plane to "
        "the slowest.",
        "在对数坐标上画出 $\\theta_i$：从最快的子空间到最慢的子空间是一条直线。",
    ),
    ("04_theta_spectrum", "Wavelengths and the training length"): (
        "Count the planes that complete a full period within the training length; the rest "
        "never turned in training.",
        "数一数在训练长度内走完全周期（full period）的子空间；其余的在训练中从未转满一圈。",
    ),
    ("04_theta_spectrum", "Explore the spectrum"): (
        "Live: change the base and watch the wavelengths of the slow planes stretch; hand out "
        "the second problem set.",
        "现场演示：改变底数（base），看低频（slow plane）子空间的周期（wavelength）被拉长；然后布置第二份习题。",
    ),
}


def _chapters(root: Path = ROOT) -> dict[str, Chapter]:
    return {path.stem: read_chapter(path) for path in toc_chapters(root)}


def _take(chapters: dict[str, Chapter], take: Take) -> list[Section]:
    stem, which = take
    chapter = chapters[stem]
    if which == "all":
        return list(chapter.sections)
    if which == "core":
        return [s for s in chapter.sections if s.course == "core" and s.title != "Exercises"]
    return [chapter.section(title) for title in which]


def resolve(path: CoursePath, chapters: dict[str, Chapter]) -> tuple[list, list[list[Section]]]:
    """The sections read before the first lecture and the sections of each lecture, in the
    book's order within a lecture. A take naming a chapter the book does not have: ValueError,
    except the primer, which is left out where the book has none."""
    before: list[Section] = []
    for take in path.before:
        if take[0] not in chapters:
            if take[0] == PRIMER:
                continue
            raise ValueError(f"path {path.lectures}: no chapter {take[0]!r} in _toc.yml")
        if take[1] == "all":  # a whole chapter: one line, its title and reading time
            chapter = chapters[take[0]]
            before.append(
                Section(
                    chapter.stem,
                    chapter.title,
                    chapter.title_zh,
                    None,
                    sum(s.reading_minutes for s in chapter.sections),
                    sum(s.lecture_minutes for s in chapter.sections),
                    (),
                    (),
                )
            )
            continue
        before += [s for s in _take(chapters, take) if s.title != "Exercises"]
    order = {stem: i for i, stem in enumerate(chapters)}
    lectures = []
    for lecture in path.plan:
        sections: list[Section] = []
        for take in lecture.takes:
            if take[0] not in chapters:
                raise ValueError(f"path {path.lectures}: no chapter {take[0]!r} in _toc.yml")
            sections += [s for s in _take(chapters, take) if s not in sections]
        positions = {
            (s.stem, s.title): i for c in chapters.values() for i, s in enumerate(c.sections)
        }
        sections.sort(key=lambda s: (order[s.stem], positions[(s.stem, s.title)]))
        if path.core_only:
            for s in sections:
                if s.course != "core":
                    raise ValueError(
                        f"the {path.lectures}-lecture path takes core sections only; "
                        f"{s.stem}: {s.title!r} is marked {s.course!r}"
                    )
        total = sum(s.lecture_minutes for s in sections)
        if total > LECTURE_MINUTES:
            raise ValueError(
                f"lecture {lecture.title!r} of the {path.lectures}-lecture path takes {total} "
                f"minutes, more than {LECTURE_MINUTES}"
            )
        lectures.append(sections)
    return before, lectures


# --- the page -----------------------------------------------------------------------------------


def _ranges(numbers: list[int]) -> str:
    numbers = sorted(set(numbers))
    parts, start = [], None
    for i, n in enumerate(numbers):
        if start is None:
            start = n
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            parts.append(f"{start}" if start == n else f"{start}–{n}")
            start = None
    return ", ".join(parts)


def _doc(stem: str, text: str) -> str:
    if "$" in text:
        raise ValueError(f"{stem}: a link text cannot show math, and {text!r} has some")
    text = text.replace("`", "").replace("<", "").replace(">", "")
    return f"{{doc}}`{text} <../notebooks/{stem}>`"


def _assignments_link() -> bool:
    return ASSIGNMENTS_PAGE in toc_docnames(ROOT)


T = {
    "en": {
        "title": "# Teaching with this book",
        "chapter": "Chapter",
        "section": "Section",
        "minutes": "Minutes",
        "total": "Total",
        "lecture": "Lecture",
        "before": "Before the first lecture, students read (reading time, not class time):",
        "slides": "Slides",
        "deck": "slides {ranges} of {size}",
        "live": "Show live",
        "none": "none",
        "set": "Exercises to set",
        "ps": "Problem set",
        "ps_none": "none with this lecture",
        "read_min": "{n} min",
        "primer_missing": "",
    },
    "zh": {
        "title": "# 用本书授课",
        "chapter": "章",
        "section": "小节",
        "minutes": "分钟",
        "total": "合计",
        "lecture": "第 {n} 次课",
        "before": "第一次课之前，学生先读（算阅读时间，不占课堂时间）：",
        "slides": "幻灯片",
        "deck": "第 {ranges} 页，共 {size} 页",
        "live": "现场演示",
        "none": "无",
        "set": "布置的练习",
        "ps": "习题",
        "ps_none": "这次课不配习题",
        "read_min": "{n} 分钟",
    },
}

INTRO = {
    "en": [
        "This page plans a course of one, two or four lectures of 90 minutes. Every chapter "
        "marks each of its sections core (needed to understand and implement RoPE and its "
        "main extensions in a first course) or optional, and every time below is computed "
        "from what the sections hold, at the rates of the chapters' own reading and teaching "
        "times: a section presented in class takes 1.5 times its reading time. The page is "
        "written by `tools/course_path.py` from those markers and `tools/reading_time.py`; "
        "nothing on it is typed by hand, so it changes when a chapter does.",
        "Each lecture lists its parts (a section of a chapter, with its minutes), the slides "
        "of the chapter decks that belong to those sections (the decks are under Slides in "
        "the Lecturer's kit menu of each chapter page), the explorables to show live, the "
        "core exercises of its chapters to set, and the problem set that goes with it. The "
        "one- and two-lecture paths take core sections only. The decks read the same "
        'markers: a slide of an optional section is tagged "optional" beside its title and '
        "in its notes, and a deck opened with `?core` after its address (for example "
        "`slides/02_complex_derivation.html?core`) shows the core sections' slides only.",
    ],
    "zh": [
        "本页为一次、两次或四次 90 分钟的课规划课程。每一章都把自己的每个小节标为核心（初次授课时理解并实现"
        "旋转位置编码及其主要扩展所必需的内容）或选讲。下面的每个时间都根据"
        "各小节的内容算出，所用的速率与各章自己的阅读时间和授课时间相同：一个小节在课堂上讲授所需的时间是"
        "其阅读时间的 1.5 倍。本页由 `tools/course_path.py` 根据这些标记和 `tools/reading_time.py` 生成，"
        "没有一处是手写的，所以章节变了，它也跟着变。",
        "每次课列出它的各个部分（某一章的一个小节及其分钟数）、各章幻灯片中属于这些小节的页（幻灯片在每个"
        "章节页面的讲师工具包菜单的 Slides 下）、要现场演示的交互图、从这些章节中布置的核心练习，以及与之"
        "配套的习题。一次课和两次课的方案只用核心小节。幻灯片读的是同一套标记：选讲小节的幻灯片在标题旁和"
        "讲稿里标有 optional（选讲），在幻灯片地址后加上 `?core`（例如 "
        "`slides/02_complex_derivation.html?core`）打开时只显示核心小节的幻灯片。",
    ],
}

ASSIGN = {
    "en": "The three autograded problem sets are in the repository under `assignments/` "
    "(`ps1_derive_and_check`, `ps2_implement_rope`, `ps3_frequencies_and_extension`): each is "
    "a folder with a notebook, a module of functions the student writes and public tests the "
    "student runs; the grader runs hidden tests on the module, with numbers drawn from each "
    "student's id{link}. Each lecture below names the one to hand out after it.",
    "zh": "三份自动评分的习题在仓库的 `assignments/` 下（`ps1_derive_and_check`、"
    "`ps2_implement_rope`、`ps3_frequencies_and_extension`）：每份是一个文件夹，里面有一个 "
    "notebook、一个由学生编写函数的模块，以及学生自己运行的公开测试；评分者在这个模块上运行隐藏测试，"
    "所用的数字由每个学生的 id 生成{link}。下面每次课都写明课后发哪一份。",
}

PLAN_INTRO = {
    "en": [
        "## A two-lecture plan, step by step",
        "The two-lecture path above, as a lecturer follows it: each step is one part of the "
        "path, in order, with its minutes and what to say or show. Before the first lecture, "
        "post the primer and ask students to read it; open the two chapter decks and the "
        "chapter pages (for the explorables) in a browser, which works offline.",
    ],
    "zh": [
        "## 两次课的逐步教案",
        "上面两次课的方案，按讲师实际讲课的顺序写出：每一步是方案中的一个部分，依次给出分钟数以及要讲什么、"
        "演示什么。第一次课之前，把入门章节发给学生并请他们先读；在浏览器中打开两章的幻灯片和章节页面"
        "（用于交互图），离线也能使用。",
    ],
}


def _section_cell(lang: str, section: Section) -> str:
    return _doc(section.stem, section.title if lang == "en" else section.title_zh)


def render(lang: str, root: Path = ROOT) -> str:
    """The page ``book/teaching.md`` (``lang="en"``), or its Chinese text block for block
    (``"zh"``), from the chapters and :data:`PATHS`."""
    if lang not in T:
        raise ValueError(f"lang must be one of {sorted(T)}, got {lang!r}")
    t = T[lang]
    chapters = _chapters(root)
    blocks = [t["title"], *INTRO[lang]]
    link = ""
    if _assignments_link():
        link = (
            " ({doc}`the assignments page <assignments>`)"
            if lang == "en"
            else "（{doc}`习题页面 <assignments>`）"
        )
    blocks.append(ASSIGN[lang].format(link=link))
    for path in PATHS:
        before, lectures = resolve(path, chapters)
        blocks.append(f"## {path.name if lang == 'en' else path.name_zh}")
        if path.note:
            blocks.append(path.note if lang == "en" else path.note_zh)
        if before:
            items = [
                f"- {chapters[s.stem].number}: {_section_cell(lang, s)} "
                f"({t['read_min'].format(n=s.reading_minutes)})"
                if lang == "en"
                else f"- {chapters[s.stem].number}：{_section_cell(lang, s)}"
                f"（{t['read_min'].format(n=s.reading_minutes)}）"
                for s in before
            ]
            blocks.append(t["before"] + "\n\n" + "\n".join(items))
        for number, (lecture, sections) in enumerate(zip(path.plan, lectures, strict=True), 1):
            total = sum(s.lecture_minutes for s in sections)
            if lang == "en":
                head = f"### Lecture {number}: {lecture.title} ({total} minutes)"
            else:
                head = f"### {t['lecture'].format(n=number)}：{lecture.title_zh}（{total} 分钟）"
            blocks.append(head)
            rows = [
                f"| {t['chapter']} | {t['section']} | {t['minutes']} |",
                "| --- | --- | ---: |",
            ]
            rows += [
                f"| {chapters[s.stem].number} | {_section_cell(lang, s)} | {s.lecture_minutes} |"
                for s in sections
            ]
            rows.append(f"| | **{t['total']}** | **{total}** |")
            blocks.append("\n".join(rows))
            blocks.append(_lecture_list(lang, lecture, sections, chapters))
    blocks += PLAN_INTRO[lang]
    two = next(p for p in PATHS if p.lectures == 2)
    _, lectures = resolve(two, chapters)
    for number, sections in enumerate(lectures, 1):
        total = sum(s.lecture_minutes for s in sections)
        if lang == "en":
            blocks.append(f"### Lecture {number} ({total} minutes)")
        else:
            blocks.append(f"### {t['lecture'].format(n=number)}（{total} 分钟）")
        steps, clock = [], 0
        for step, s in enumerate(sections, 1):
            note = PLAN_NOTES[(s.stem, s.title)][0 if lang == "en" else 1]
            start, clock = clock, clock + s.lecture_minutes
            number = chapters[s.stem].number
            if lang == "en":
                steps.append(
                    f"{step}. **{start}–{clock} min**, chapter {number}, "
                    f"{_section_cell(lang, s)}: {note}"
                )
            else:
                steps.append(
                    f"{step}. **第 {start}–{clock} 分钟**，第 {number} 章，"
                    f"{_section_cell(lang, s)}：{note}"
                )
        blocks.append("\n".join(steps))
    return "\n\n".join(blocks) + "\n"


def _lecture_list(lang: str, lecture: Lecture, sections: list[Section], chapters) -> str:
    t = T[lang]
    colon = ": " if lang == "en" else "："
    stems = list(dict.fromkeys(s.stem for s in sections))
    decks = []
    for stem in stems:
        chapter = chapters[stem]
        numbers = [1] + [n for s in sections if s.stem == stem for n in s.slides]
        if chapter.closing_slide:
            numbers.append(chapter.closing_slide)
        ranges = t["deck"].format(ranges=_ranges(numbers), size=chapter.deck_size)
        decks.append(
            f"`slides/{stem}.html` ({ranges})"
            if lang == "en"
            else f"`slides/{stem}.html`（{ranges}）"
        )
    live = [f"{{numref}}`{name}`" for s in sections for name in s.explorables]
    exercises = [
        f"{{numref}}`{label}`" for stem in stems for label in chapters[stem].core_exercises
    ]
    sep = ", " if lang == "en" else "、"
    if lecture.problem_set:
        if lecture.problem_set not in PROBLEM_SETS:
            raise ValueError(
                f"problem_set must be one of {PROBLEM_SETS}, got {lecture.problem_set!r}"
            )
        ps = f"`{lecture.problem_set}`"
    else:
        ps = t["ps_none"]
    return "\n".join(
        [
            f"- **{t['slides']}**{colon}{sep.join(decks)}",
            f"- **{t['live']}**{colon}{sep.join(live) or t['none']}",
            f"- **{t['set']}**{colon}{sep.join(exercises) or t['none']}",
            f"- **{t['ps']}**{colon}{ps}",
        ]
    )


def render_store(root: Path = ROOT) -> str:
    """The Chinese store of the page (``book/zh/teaching.md``): the English page's blocks,
    each with the Chinese block this tool renders from the same data."""
    english = zh_store.markdown_blocks(render("en", root))
    chinese = zh_store.markdown_blocks(render("zh", root))
    if len(english) != len(chinese):
        raise ValueError(f"the two renderings differ in blocks: {len(english)} != {len(chinese)}")
    parts = [f"<!-- Chinese edition of {PAGE.relative_to(ROOT)}: see tools/zh_store.py -->\n"]
    for i, (en, zh) in enumerate(zip(english, chinese, strict=True), start=1):
        parts.append(f"<!-- unit b{i:03d} en:{zh_store.unit_sha(en)} -->\n{zh.strip()}\n")
    return "\n".join(parts)


def write(root: Path = ROOT) -> list[Path]:
    """Write the page and its Chinese store; the files that changed."""
    changed = []
    for path, text in (
        (root / "book" / "teaching.md", render("en", root)),
        (root / "book" / "zh" / "teaching.md", render_store(root)),
    ):
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--write" in argv:
        for path in write():
            print(f"{path.relative_to(ROOT)}: written")
    chapters = _chapters()
    for path in PATHS:
        _, lectures = resolve(path, chapters)
        print(f"== {path.name}")
        for number, sections in enumerate(lectures, 1):
            total = sum(s.lecture_minutes for s in sections)
            print(f"  lecture {number}: {total} min")
            for s in sections:
                print(
                    f"    {s.lecture_minutes:>3}  {chapters[s.stem].number:>3}  {s.course}  {s.title}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
