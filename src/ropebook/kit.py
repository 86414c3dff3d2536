"""The lecturer's kit's names, shared by the build tools, the Sphinx extension
:mod:`ropebook.ext.lecturer_kit` and the tests: the editions, the kit's folders and files in the
built site, the PDF's LaTeX target and the classes and tags the chapters carry.

A plain module (no Sphinx): the tools read these names here, never from an extension.
"""

from __future__ import annotations

from pathlib import Path

EDITIONS = ("instructor", "student")
#: The kit's folders and files, relative to the site's root.
KIT_DIR = "kit"
SLIDES_DIR = "slides"
STUDENT_DIR = "student"
#: The Chinese edition (issue 27, ``tools/build_zh.py``), copied into the English site.
ZH_DIR = "zh"
FIGURES_ARCHIVE = f"{KIT_DIR}/rope-derived-and-run-figures.zip"
#: The LaTeX document (``latex_documents``' target) and the PDF's name.
LATEX_TARGET = "rope-derived-and-run"
#: Classes of the two admonitions every chapter carries (book/../notes: kit conventions).
META_CLASS = "chapter-meta"
REMEMBER_CLASS = "remember"
#: Cell tag of the cells a chapter's slides are made of.
SLIDE_TAG = "slide"


def pdf_name(edition: str) -> str:
    """``kit/rope-derived-and-run.pdf`` (instructor) or ``kit/…-student.pdf``."""
    suffix = "" if edition == "instructor" else f"-{edition}"
    return f"{KIT_DIR}/{LATEX_TARGET}{suffix}.pdf"


def slides_path(docname: str, language: str = "en") -> str:
    """The deck of a chapter: ``notebooks/05_long_range_decay`` -> ``slides/05_long_range_decay.html``
    (the Chinese deck: ``slides/zh/05_long_range_decay.html``)."""
    folder = SLIDES_DIR if language == "en" else f"{SLIDES_DIR}/{ZH_DIR}"
    return f"{folder}/{Path(docname).name}.html"
