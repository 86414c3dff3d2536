"""src/ropebook/ext/light_pages.py on its own: the math of a page typeset by MathJax in Node, with
its assistive MathML; a TeX error stops the build; the icon rules no page uses are dropped.
The built site's weights and typesetting are checked in Chromium (tests/browser/test_pages.py).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from ropebook.ext import light_pages

ROOT = Path(__file__).resolve().parents[1]

from sphinx.errors import ExtensionError  # noqa: E402

PAGE = """<html><head><title>t</title></head><body>
<p>Inline <span class="math notranslate nohighlight">\\(\\theta_i = \\beta^{-2i/d}\\)</span>.</p>
<div class="math notranslate nohighlight" id="equation-x">
<span class="eqno">(4.1)<a class="headerlink" href="#equation-x">#</a></span>
\\[\\begin{aligned} q_m &amp;= R_m q \\\\ \\operatorname{Re}[z] &amp;= a \\end{aligned}\\]</div>
<pre>not \\(math\\) in code</pre>
</body></html>"""


def app_stub(**mathjax3_config):
    return SimpleNamespace(config=SimpleNamespace(mathjax3_config=mathjax3_config))


def test_math_elements_are_found_and_code_is_left_alone():
    found = light_pages.math_fragments(PAGE)
    assert [m.group(2) for m in found] == ["span", "div"]
    assert found[0].group(3) == "\\(\\theta_i = \\beta^{-2i/d}\\)"


@pytest.mark.skipif(not (ROOT / "node_modules" / "mathjax").exists(), reason="make assets")
def test_a_page_is_typeset_with_assistive_mathml(tmp_path):
    page = tmp_path / "notebooks" / "page.html"
    page.parent.mkdir()
    page.write_text(PAGE, encoding="utf-8")
    assert light_pages.typeset_pages(app_stub(), tmp_path, [page]) == 2
    html = page.read_text(encoding="utf-8")
    assert html.count("<mjx-container") == 2
    assert html.count("<mjx-assistive-mml") == 2
    assert html.count('<mjx-container class="MathJax" jax="CHTML"') == 2
    assert html.count('display="true"') >= 1
    # the equation number and its link stay; code is untouched; no TeX is left in the math
    assert '<span class="eqno">(4.1)<a class="headerlink" href="#equation-x">#</a></span>' in html
    assert "<pre>not \\(math\\) in code</pre>" in html
    assert "\\theta" not in html.split("<pre>")[0]
    # the stylesheet points at MathJax's fonts relative to the page
    assert 'id="MJX-CHTML-styles"' in html
    assert "../_static/mathjax/output/chtml/fonts/woff-v2/MathJax_Main-Regular.woff" in html
    # a second pass leaves a typeset page alone
    assert light_pages.typeset_pages(app_stub(), tmp_path, [page]) == 0


@pytest.mark.skipif(not (ROOT / "node_modules" / "mathjax").exists(), reason="make assets")
def test_an_undefined_macro_stops_the_build(tmp_path):
    page = tmp_path / "page.html"
    page.write_text(PAGE.replace("\\operatorname", "\\operatornom"), encoding="utf-8")
    with pytest.raises(ExtensionError, match="could not read"):
        light_pages.typeset_pages(app_stub(), tmp_path, [page])


def test_unused_icon_rules_are_pruned_and_used_ones_kept(tmp_path):
    styles = tmp_path / "_static" / "styles"
    styles.mkdir(parents=True)
    css = (
        '.fa-bars:before,.fa-navicon:before{content:"\\f0c9"}'
        '.fa-ship:before{content:"\\f21a"}'
        '.admonition:after{content:"\\f05a"}'
    )
    (styles / "pydata-sphinx-theme.css").write_text(css, encoding="utf-8")
    saved = light_pages.prune_icon_rules(tmp_path, {0xF0C9})
    pruned = (styles / "pydata-sphinx-theme.css").read_text(encoding="utf-8")
    assert saved == len('.fa-ship:before{content:"\\f21a"}')
    assert '.fa-bars:before,.fa-navicon:before{content:"\\f0c9"}' in pruned
    assert ".admonition:after" in pruned and "fa-ship" not in pruned
