"""The book's own Sphinx extensions (src/ropebook/ext), on their own; the built pages are checked in
tests/browser/."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from docutils import nodes
from myst_nb.core.utils import coalesce_streams

from ropebook.ext import chapter_numbers, no_widget_state, ordered_streams


def stream(text: str, name: str = "stdout") -> dict:
    return {"output_type": "stream", "name": name, "text": text}


def display(tag: str) -> dict:
    return {"output_type": "display_data", "data": {"text/plain": tag}}


def test_streams_are_merged_only_where_they_are_consecutive():
    outputs = [stream("a\n"), display("A"), stream("b\n"), stream("c\n"), display("B"), stream("d")]
    merged = ordered_streams.merge_consecutive_streams(outputs, coalesce_streams)
    assert [(o["output_type"], o.get("text") or o["data"]["text/plain"]) for o in merged] == [
        ("stream", "a\n"),
        ("display_data", "A"),
        ("stream", "b\nc\n"),
        ("display_data", "B"),
        ("stream", "d\n"),
    ]
    # myst-nb's own merge, which the extension replaces, moves every line to the first box.
    every = coalesce_streams([stream("a\n"), display("A"), stream("b\n")])
    assert [o["output_type"] for o in every] == ["stream", "display_data"]


def test_the_extension_replaces_myst_nbs_merge():
    import myst_nb.core.render as render

    ordered_streams.setup(SimpleNamespace())
    merged = render.coalesce_streams([stream("a\n"), display("A"), stream("b\n")])
    assert [o["output_type"] for o in merged] == ["stream", "display_data", "stream"]


@pytest.mark.parametrize(
    ("title", "number"),
    [
        ("4. The θᵢ spectrum", "4"),
        ("3A. RoPE in code", "3A"),
        ("0. Why attention needs positions", "0"),
        ("10. Beyond", "10"),
        ("Notation", None),
        ("4 The spectrum", None),
        ("3a. lower-case letter", None),
    ],
)
def test_chapter_number_from_the_title(title, number):
    match = chapter_numbers.CHAPTER_TITLE.match(title)
    assert (match.group(1) if match else None) == number


def fake_env(titles: dict[str, str], fignumbers: dict) -> SimpleNamespace:
    return SimpleNamespace(
        titles={doc: nodes.title(text=t) for doc, t in titles.items()},
        toc_fignumbers=fignumbers,
        doc2path=lambda doc: f"/nonexistent/{doc}.md",
    )


def test_numbers_restart_in_every_chapter_with_its_own_number():
    env = fake_env(
        {
            "notebooks/03a": "3A. RoPE in code",
            "notebooks/05": "5. Decay",
            "book/notation": "Notation",
        },
        {
            "notebooks/03a": {"figure": {"f1": (7,), "f2": (8,)}, "exercise": {"e1": (17,)}},
            "notebooks/05": {"figure": {"g1": (9,)}, "displaymath": {"q1": (3,), "q2": (4,)}},
            "book/notation": {"table": {"t1": (2,)}},
        },
    )
    assert list(chapter_numbers.renumber(None, env)) == []
    assert env.toc_fignumbers == {
        "notebooks/03a": {
            "figure": {"f1": ("3A", 1), "f2": ("3A", 2)},
            "exercise": {"e1": ("3A", 1)},
        },
        "notebooks/05": {
            "figure": {"g1": ("5", 1)},
            "displaymath": {"q1": ("5", 1), "q2": ("5", 2)},
        },
        "book/notation": {"table": {"t1": (1,)}},
    }


def test_captions_get_a_colon_and_exercise_titles_do_not():
    body = (
        '<span class="caption-number">Figure 5.2 </span><span class="caption-text">x</span>'
        '<span class="caption-number">Table 3A.1 </span>'
        '<span class="caption-number">Exercise 5.1 </span>'
    )
    context = {"body": body}
    chapter_numbers.add_caption_colons(None, "p", "page.html", context, None)
    assert context["body"] == (
        '<span class="caption-number">Figure 5.2: </span><span class="caption-text">x</span>'
        '<span class="caption-number">Table 3A.1: </span>'
        '<span class="caption-number">Exercise 5.1 </span>'
    )


def test_the_widget_state_is_left_out_and_other_scripts_stay():
    """myst-nb's embedded ipywidgets state goes; the page's other scripts stay, in order."""
    from sphinx.builders.html._assets import _JavaScript

    state = _JavaScript("", type=no_widget_state.WIDGET_STATE_TYPE, body='{"state": {}}')
    served = _JavaScript("_static/ropelab/ropelab-explore.js")
    inline = _JavaScript("", body="var x = 1;")
    context = {"script_files": [served, state, inline]}
    no_widget_state._strip_widget_state(None, "page", "page.html", context, None)
    assert context["script_files"] == [served, inline]
    assert no_widget_state.is_widget_state(state) and not no_widget_state.is_widget_state(inline)
