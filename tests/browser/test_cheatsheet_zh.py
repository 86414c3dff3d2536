"""The Chinese cheat sheet prints on one A4 page (issue 34), as the English one does
(``tests/browser/test_student.py``): Chromium's print to PDF, as a lecturer prints it, of the
Chinese edition's page and the Chinese student edition's. The print rules are the English
page's (``book/assets/ropelab-kit.css``, ``section#cheat-sheet``: the first section of the
page has that id in both languages, ``lecturer_kit.PAGE_IDS``)."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest

SETTLED = """async () => {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
        await MathJax.startup.promise;
    }
}"""


@pytest.mark.parametrize("relative", ["zh/book/cheatsheet.html", "student/zh/book/cheatsheet.html"])
def test_the_chinese_cheatsheet_prints_on_one_page(open_page, site, relative):
    if not (site / relative).exists():
        pytest.fail(f"{relative} is missing: make book builds the Chinese editions")
    page, log = open_page(relative)
    page.evaluate(SETTLED)
    assert page.evaluate("!!document.querySelector('section#cheat-sheet')"), relative
    page.emulate_media(media="print")
    with tempfile.TemporaryDirectory(prefix="ropelab-cheatsheet-zh-") as tmp:
        pdf = Path(tmp) / "cheatsheet.pdf"
        page.pdf(path=str(pdf), format="A4", print_background=True)
        info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
        text = subprocess.run(
            ["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True
        ).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info.stdout, re.M).group(1))
    assert pages == 1, f"{relative}: the Chinese cheat sheet prints on {pages} A4 pages"
    assert "速查表" in text and "配置键" in text, f"{relative}: the sheet's text is not printed"
    assert log.console_errors == []
