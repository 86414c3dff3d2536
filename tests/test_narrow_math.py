"""The narrow forms of display equations (issue 33, ``src/ropebook/ext/narrow_math.py``): where the
build may break an equation for a phone, and where it must not."""

from __future__ import annotations

from ropebook.ext.narrow_math import display_tex, narrow_request, rows_of, without_author_form


def test_a_chain_of_relations_gets_a_line_per_relation():
    rows = rows_of(r"(R_m q)^\top (R_n k) = q^\top R_m^\top R_n\, k = q^\top R_{n-m}\, k .")
    assert rows == [
        {
            "lead": r"(R_m q)^\top (R_n k)",
            "pieces": [["rel", r"= q^\top R_m^\top R_n\, k"], ["rel", r"= q^\top R_{n-m}\, k ."]],
        }
    ]


def test_statements_side_by_side_become_rows():
    rows = rows_of(r"a = r\cos\alpha, \qquad b = r\sin\alpha")
    assert [row["lead"] for row in rows] == ["a", "b"]


def test_sums_may_break_at_their_operators_but_not_inside_brackets():
    rows = rows_of(r"\lVert u\rVert^2 = \left(u_0 + u_1\right)^{2} - (a + b) + c")
    assert rows[0]["pieces"] == [
        ["rel", r"= \left(u_0 + u_1\right)^{2}"],
        ["bin", "- (a + b)"],
        ["bin", "+ c"],
    ]


def test_a_sign_is_not_an_operator():
    rows = rows_of(r"x = -a + b")
    assert rows[0]["pieces"] == [["rel", "= -a"], ["bin", "+ b"]]


def test_a_matrix_is_never_cut():
    assert rows_of(r"\begin{pmatrix} a = b \\ c + d \end{pmatrix}") is None
    rows = rows_of(r"M = \begin{pmatrix} a & b + c\\ d & e \end{pmatrix} = N")
    assert [kind for kind, _ in rows[0]["pieces"]] == ["rel", "rel"]


def test_sphinx_wrappers_and_sympy_outputs_are_read_through():
    tex = (
        r"\begin{split}\displaystyle \begin{aligned}x &= y + z\\ &\quad + w\end{aligned}\end{split}"
    )
    assert rows_of(tex) == [
        {"lead": "x", "pieces": [["rel", "= y"], ["bin", "+ z"]]},
        {"lead": "", "pieces": [["bin", "+ w"]]},
    ]


def test_a_chain_of_equivalences_keeps_each_step_whole():
    rows = rows_of(r"\lambda_i \le T \iff 2\pi \le T")
    assert rows[0]["pieces"] == [["rel", r"\le T"], ["rel", r"\iff 2\pi \le T"]]


def test_unbalanced_tex_and_equations_with_nothing_to_cut_have_no_narrow_form():
    assert rows_of(r"x = \left( a") is None
    assert rows_of(r"e^{i\varphi}") is None


def test_an_authors_narrow_form_wins_and_leaves_the_wide_form():
    fragment = (
        '<span class="eqno">(1.2)</span>\\[\\begin{split}a = b + c + d\n'
        "% narrow: \\begin{aligned}a &amp;= b\\\\ &amp;\\quad + c + d\\end{aligned}\\end{split}\\]"
    )
    request = narrow_request(fragment)
    assert request == {
        "wide": "\\begin{split}a = b + c + d\n\\end{split}",
        "tex": r"\begin{aligned}a &= b\\ &\quad + c + d\end{aligned}",
    }
    assert display_tex(without_author_form(fragment)) == "\\begin{split}a = b + c + d\n\\end{split}"


def test_chinese_words_in_a_wide_formula_are_measured_and_typeset():
    """The Chinese edition translates a formula's prose words (\\text{所以}); measuring such a
    formula for its narrow form must work in Node as for any other (it crashed MathJax's quick
    measuring path, which has no document to measure unknown characters in)."""
    import json
    import shutil
    import subprocess

    from ropebook.ext.light_pages import TYPESET_SCRIPT

    tex = (
        r"x = y + y + y + y + y + y + y + y + y + y \quad\text{所以}\quad z = w + w + w + w + w + w"
    )
    fragment = "\\[" + tex + "\\]"
    request = narrow_request(fragment)
    assert request is not None and request["rows"]
    payload = {"config": {}, "pages": [{"fragments": [fragment], "narrow": {"0": request}}]}
    node = shutil.which("node")
    assert node is not None, "make test installs Node.js (npm's mathjax needs it)"
    done = subprocess.run(
        [node, str(TYPESET_SCRIPT)], input=json.dumps(payload), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    page = json.loads(done.stdout)["pages"][0]
    assert "所以" in page["fragments"][0] and "0" in page["narrow"]
