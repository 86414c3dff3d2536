"""Build the Chinese edition of the site (issue 27) from the English sources and the store.

The English notebooks and pages stay the only source. This tool writes a source tree of the
Chinese edition (``_build/zh-build/src/``) in which

* every notebook is the English one with its code cells and committed outputs untouched and
  each markdown cell and figure caption replaced by its Chinese unit from the translation store
  (``book/zh/<stem>.md``, ``tools/zh_store.py``); a unit with no current translation (none,
  stale, or not yet translated) keeps its English text, and the build prints one warning line
  per page with the count (the tests, not the build, fail on missing translations);
* every ``.md`` page is rebuilt block by block the same way;
* the Chinese-only units (keys ``zh-…``) are placed after the unit before them;

then builds it with the book's own ``_config.yml`` (execution off, as ``tools/build_site.py``
does: nothing executes twice; ``-W``: a warning fails) in Chinese: ``language: zh_CN`` (the
theme's strings), a Chinese title and Chinese numbers ("图 4.2", "表 4.1", "练习 3A.1",
"式 (4.2)"). The site goes into the kit, ``_build/kit/zh/``, from where ``make book`` copies
it to ``_build/html/zh/`` (``src/ropebook/ext/lecturer_kit.py``), as it does the student edition::

    .venv/bin/python tools/build_zh.py               # -> _build/kit/zh/
    .venv/bin/python tools/build_zh.py --tree-only   # only the source tree

Every page of both editions links to the same page in the other language
(``src/ropebook/ext/language_switch.py``). The Chinese PDF is ``tools/build_pdf.py --edition zh``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import time
from pathlib import Path

from ropebook import ROOT
from ropebook.book_toc import toc_docnames
from ropebook.build_site import build_with_config, quick_config
from ropebook.kit import ZH_DIR
from ropebook.zh_store import (
    CAPTION,
    CJK,
    COMMENTS,
    ZH_ONLY,
    english_units,
    read_store,
    store_path,
    untranslated,
)

WORK = ROOT / "_build" / "zh-build"
DEFAULT_OUT = ROOT / "_build" / "kit" / ZH_DIR
#: The edition's title when the introduction's heading is not translated yet.
ZH_TITLE = "RoPE：推导与实现"
#: The chapter number an English title gives ("# 4. The θᵢ spectrum" -> "4").
CHAPTER_TITLE = re.compile(r"^#\s+(\d+[A-Z]?)\.\s", re.MULTILINE)
#: Files of the book a build reads besides the pages (copied into the tree as they are).
BOOK_FILES = ("book/references.bib",)
#: The parts of ``_toc.yml`` in Chinese (the sidebar, the PDF's parts). A part not listed here
#: keeps its English caption, with a warning.
PART_CAPTIONS = {
    "Getting started": "入门",
    "Deriving RoPE": "推导 RoPE",
    "Frequencies, decay and extrapolation": "频率、衰减与外推",
    "RoPE in practice and beyond": "实践中的 RoPE 及其延伸",
    "Back matter": "附录",
}
#: The labels of the collapsed code cells (``metadata.mystnb.code_prompt_show`` and
#: ``code_prompt_hide``), which no store unit holds: the same few on every page. A new label
#: needs its Chinese here (``tests/test_zh_build.py`` fails on one left in English).
CODE_PROMPTS = {
    "Run it live: the same figure with sliders, drawn by Python (needs a running kernel: "
    "Colab, Binder or a local Jupyter)": "实时运行：同一张图，带滑块，由 Python 绘制"
    "（需要运行中的内核：Colab、Binder 或本地 Jupyter）",
    "Hide the live version": "收起实时版本",
    "Show the helpers that print this chapter's results (SymPy output one line at a time, "
    "verdicts in words)": "显示打印本章结果的辅助函数（SymPy 输出逐行打印，结论用文字给出）",
    "Hide the helpers": "收起辅助函数",
    "How these results were made: command, stages, times, versions": "这些结果是怎样得到的：命令、阶段、耗时与版本",
    "Hide the provenance": "收起来源信息",
}
_CAPTION_LINE = re.compile(r"^(\s*-?\s*caption:\s*)(.+?)\s*$", re.MULTILINE)


def current_translations(page: Path) -> dict[str, str]:
    """``{unit key: Chinese text}`` of the units of ``page`` whose translation is current (its
    English has not changed since, and it has Chinese in it), plus the Chinese-only units."""
    have = read_store(store_path(page))
    english = {unit.key: unit for unit in english_units(page)}
    found = {}
    for key, tr in have.items():
        if key.startswith(ZH_ONLY):
            found[key] = tr.text
            continue
        unit = english.get(key)
        if unit is not None and tr.sha == unit.sha and not untranslated(unit.text, tr.text):
            found[key] = tr.text
    return found


def chinese_only_after(page: Path) -> dict[str | None, list[tuple[str, str]]]:
    """The Chinese-only units of a page's store by the key of the unit before them (None: at
    the start of the page), in store order."""
    placed: dict[str | None, list[tuple[str, str]]] = {}
    previous: str | None = None
    for key, tr in read_store(store_path(page)).items():
        if key.startswith(ZH_ONLY):
            placed.setdefault(previous, []).append((key, tr.text))
        else:
            previous = key
    return placed


def _lines(text: str) -> list[str]:
    """A cell's ``source`` as nbformat writes it: lines with their newlines."""
    return text.splitlines(keepends=True)


def _cell_id(key: str) -> str:
    """A valid nbformat cell id for a Chinese-only unit's key."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", key)[:64]


def _markdown_cell(key: str, text: str) -> dict:
    return {"cell_type": "markdown", "id": _cell_id(key), "metadata": {}, "source": _lines(text)}


def zh_notebook(page: Path) -> tuple[dict, int]:
    """The Chinese notebook of ``page`` and the number of its units left in English."""
    nb = json.loads(page.read_text(encoding="utf-8"))
    chinese = current_translations(page)
    extra = chinese_only_after(page)
    missing = 0
    title = next(
        (
            found
            for c in nb["cells"]
            if c["cell_type"] == "markdown"
            and (found := CHAPTER_TITLE.search("".join(c["source"])))
        ),
        None,
    )
    if title:
        # The chapter's number, whatever the Chinese title looks like (chapter_numbers.py).
        nb.setdefault("metadata", {}).setdefault("ropelab", {})["chapter"] = title.group(1)
    cells = [_markdown_cell(key, text) for key, text in extra.get(None, [])]
    for cell in nb["cells"]:
        keys = []
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "markdown" and source.strip():
            key = str(cell["id"])
            keys.append(key)
            if key in chinese:
                cell["source"] = _lines(chinese[key])
            else:
                missing += 1
        if cell["cell_type"] == "code" and f"{cell['id']}{COMMENTS}" in chinese:
            cell["source"] = _lines(chinese[f"{cell['id']}{COMMENTS}"])  # comments translated
        mystnb = cell.get("metadata", {}).get("mystnb", {})
        for prompt in ("code_prompt_show", "code_prompt_hide"):
            if isinstance(mystnb, dict) and mystnb.get(prompt) in CODE_PROMPTS:
                mystnb[prompt] = CODE_PROMPTS[mystnb[prompt]]
        figure = cell.get("metadata", {}).get("mystnb", {}).get("figure")
        if isinstance(figure, dict) and str(figure.get("caption") or "").strip():
            key = f"{cell['id']}{CAPTION}"
            keys.append(key)
            if key in chinese:
                figure["caption"] = chinese[key]
            else:
                missing += 1
        cells.append(cell)
        for key in keys:
            cells += [_markdown_cell(k, text) for k, text in extra.get(key, [])]
    nb["cells"] = cells
    return nb, missing


def zh_markdown(page: Path) -> tuple[str, int]:
    """The Chinese ``.md`` page of ``page`` (block by block) and its blocks left in English."""
    chinese = current_translations(page)
    extra = chinese_only_after(page)
    blocks = [text for _, text in extra.get(None, [])]
    missing = 0
    for unit in english_units(page):
        if unit.key in chinese:
            blocks.append(chinese[unit.key])
        else:
            blocks.append(unit.text)
            missing += 1
        blocks += [text for _, text in extra.get(unit.key, [])]
    return "\n\n".join(block.strip("\n") for block in blocks) + "\n", missing


def book_sources(root: Path = ROOT) -> list[Path]:
    """Every page of the book (``_toc.yml``), as source files."""
    found = []
    for name in toc_docnames(root):
        for suffix in (".ipynb", ".md"):
            if (root / f"{name}{suffix}").exists():
                found.append(root / f"{name}{suffix}")
                break
        else:
            raise ValueError(f"_toc.yml lists {name}, which has no .ipynb or .md file")
    return found


def zh_toc(text: str) -> tuple[str, list[str]]:
    """``_toc.yml`` with its part captions in Chinese; the captions left in English."""
    left: list[str] = []

    def caption(match: re.Match[str]) -> str:
        english = match.group(2).strip("\"'")
        if english not in PART_CAPTIONS:
            left.append(english)
            return match.group(0)
        return match.group(1) + PART_CAPTIONS[english]

    return _CAPTION_LINE.sub(caption, text), left


def write_tree(tree: Path, root: Path = ROOT) -> dict[str, tuple[int, int]]:
    """Write the Chinese source tree into ``tree`` (replaced);
    ``{page: (units left in English, units)}``."""
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    for name in BOOK_FILES:
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / name, tree / name)
    # The site's own MathJax fonts (html_static_path), shared, not copied.
    (tree / "vendor").symlink_to(root / "vendor", target_is_directory=True)
    toc, left = zh_toc((root / "_toc.yml").read_text(encoding="utf-8"))
    (tree / "_toc.yml").write_text(toc, encoding="utf-8")
    for english in left:
        print(f"warning: _toc.yml: the part {english!r} has no Chinese caption (PART_CAPTIONS)")
    missing = {}
    for page in book_sources(root):
        relative = page.relative_to(root)
        target = tree / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if page.suffix == ".ipynb":
            nb, count = zh_notebook(page)
            text = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
        else:
            text, count = zh_markdown(page)
        target.write_text(text, encoding="utf-8")
        missing[str(relative)] = (count, len(english_units(page)))
    return missing


def zh_title(root: Path = ROOT) -> str:
    """The title of the Chinese edition: the introduction's heading as translated (so that the
    site's title and the first page's agree), else :data:`ZH_TITLE`."""
    intro = root / f"{toc_docnames(root)[0]}.md"
    heading = current_translations(intro).get("b001", "") if intro.exists() else ""
    match = re.match(r"#\s+(.+)", heading.strip())
    if match and CJK.search(match.group(1)):
        return match.group(1).strip()
    return ZH_TITLE


#: The kit the Chinese pages' "Lecturer's kit" menu links (``make kit``; ``ROPELAB_KIT`` names
#: another, as for the kit's tests).
DEFAULT_KIT = Path(os.environ.get("ROPELAB_KIT", ROOT / "_build" / "kit"))


def zh_config(root: Path = ROOT, kit: Path | None = None) -> dict:
    """The book's ``_config.yml`` for the Chinese edition (execution off). Its pages carry the
    "Lecturer's kit" menu in Chinese (issue 34): the Chinese decks, the Chinese PDF, the
    figures and the Chinese student edition of ``kit`` (default :data:`DEFAULT_KIT`), linked
    where the English site serves them, one folder up (``ropelab_kit_root: ".."``, so that
    nothing of the kit is copied into ``zh/`` twice)."""
    config = quick_config(root)
    config["title"] = zh_title(root)
    settings = config["sphinx"].setdefault("config", {})
    settings["language"] = "zh_CN"
    settings["ropelab_language"] = "zh"
    settings["ropelab_kit_dir"] = str((kit or DEFAULT_KIT).resolve())
    settings["ropelab_kit_root"] = ".."
    settings["numfig_format"] = {"figure": "图 %s", "table": "表 %s", "code-block": "代码 %s"}
    settings["math_eqref_format"] = "式 ({number})"
    # The PDF's table of contents (lecturer_kit.py keeps this after the book's own preamble).
    settings["latex_elements"] = {
        "preamble": r"\AtBeginDocument{\renewcommand{\contentsname}{目录}}"
    }
    return config


def report_missing(missing: dict[str, tuple[int, int]]) -> None:
    for page, (count, total) in missing.items():
        if count:
            print(
                f"warning: {page}: {count} of {total} units have no current translation"
                " (English kept)"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where the site goes")
    parser.add_argument("--work", type=Path, default=WORK, help="the build's own folder")
    parser.add_argument("--tree-only", action="store_true", help="write the source tree only")
    parser.add_argument("--allow-warnings", action="store_true", help="no -W")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    tree = args.work.resolve() / "src"
    missing = write_tree(tree)
    report_missing(missing)
    if args.tree_only:
        print(f"zh source tree: {tree}")
        return 0
    returncode = build_with_config(
        zh_config(), args.work, warnings_fail=not args.allow_warnings, tree=tree
    )
    if returncode != 0:
        return returncode
    out = args.out.resolve()
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(args.work.resolve() / "_build" / "html", out)
    print(f"zh edition: {out} ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
