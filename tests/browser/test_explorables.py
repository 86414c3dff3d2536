"""The explorables on the built chapter pages, driven in Chromium and checked against ropelab.

For each chapter page with an explorable: the explorable is there and drawn; every control is moved
to both ends of its range, to a middle position and back to where it started (by setting the
input and dispatching an ``input`` event, as a reader's drag does); the input must then stand
where the Python clamp of the figure's spec puts it (a control with ``at_least`` cannot go below
the control it follows), and some position must change the figure. After each move the script's
parameters and data
(``window.ropelabExplore.instances``) are read back and compared with
:func:`ropelab.explorables.explorable_data` for the same parameters, computed here in Python.
The pages must log no console or page error and ask the network for nothing. The script is
the site's asset (``_static/ropelab/ropelab-explore.js``), loaded once per page. Each
explorable is driven on the English page and on its Chinese page (``zh/``), where the same
numbers must come with Chinese labels and readouts.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from ropelab.explorables import explorable_data, script
from ropelab.interactive import figure_spec
from tests.explorable_checks import assert_same

from .conftest import ZH

CHAPTERS = {
    "rotation2d": "notebooks/01_rotation_2d.html",
    "complex_pair": "notebooks/01a_complex_numbers.html",
    "complex_score": "notebooks/02_complex_derivation.html",
    "block_matrix": "notebooks/03_block_diagonal.html",
    "precision": "notebooks/03a_rope_in_code.html",
    "spectrum": "notebooks/04_theta_spectrum.html",
    "decay": "notebooks/05_long_range_decay.html",
    "calculator": "notebooks/06_scaling_laws.html",
    "extension_methods": "notebooks/08_rope_in_practice.html",
    "multiaxis": "notebooks/09_beyond_the_sources.html",
    "remapping": "notebooks/10_after_the_book.html",
}

READ = """kind => {
    const found = window.ropelabExplore.instances.filter(i => i.kind === kind);
    return found.length === 1 ? {params: found[0].params, data: found[0].data} : found.length;
}"""

CONTROLS = """kind => {
    const root = window.ropelabExplore.instances.find(i => i.kind === kind).root;
    return [...root.querySelectorAll('[data-param]')].map(c => ({
        name: c.dataset.param,
        options: c.tagName === 'SELECT' ? [...c.options].map(o => o.value) : null,
        min: c.min, max: c.max, value: c.value,
    }));
}"""

SET = """([kind, name, value]) => {
    const root = window.ropelabExplore.instances.find(i => i.kind === kind).root;
    const control = root.querySelector(`[data-param="${name}"]`);
    control.value = value;
    control.dispatchEvent(new Event('input', {bubbles: true}));
    return {value: control.value, min: control.min, shown: control.parentNode.textContent};
}"""


def settings_to_visit(control: dict[str, Any]) -> list[str]:
    """Both ends of a slider and a middle position (the options of a select), ordered so that
    each one differs from the value before it."""
    if control["options"]:
        others = [o for o in control["options"] if o != control["value"]]
        return [*others, control["value"]]
    low, high = int(control["min"]), int(control["max"])
    ends = [low, high] if int(control["value"]) != low else [high, low]
    return [str(v) for v in (*ends, (low + high) // 2)]


def expected_position(kind: str, params: dict[str, Any], name: str, position: str) -> str:
    """Where the input must stand after being set to ``position`` from ``params``: the
    position of the value that the Python clamp of the figure's spec gives (a control with
    ``at_least`` cannot go below the control it follows)."""
    spec = figure_spec(kind)
    control = spec.control(name)
    if control.is_choice:
        return position
    values = control.slider_values()
    clamped = spec.params(**{**params, name: values[int(position)]})[name]
    return str(min(range(len(values)), key=lambda i: abs(values[i] - clamped)))


@pytest.mark.parametrize("language", ["en", ZH])
@pytest.mark.parametrize("kind", list(CHAPTERS))
def test_explorable_matches_ropelab(open_page, screenshots_dir, kind, language):
    page, log = open_page(CHAPTERS[kind] if language == "en" else f"{ZH}/{CHAPTERS[kind]}")
    state = page.evaluate(READ, kind)
    assert isinstance(state, dict), f"expected one {kind} explorable on the page, found {state}"
    root = page.locator(f'.ropelab-explorable[data-kind="{kind}"]')
    assert root.locator("svg *").count() > 50, "the figure is not drawn"
    assert page.locator(".jupyter-widgets, .widget-area").count() == 0, "an empty widget box"
    root.scroll_into_view_if_needed()
    suffix = "" if language == "en" else f"-{language}"
    root.screenshot(path=str(screenshots_dir / f"explorable_{kind}{suffix}.png"))
    chinese = re.search(r"[\u4e00-\u9fff]", root.inner_text()) is not None
    assert chinese == (language == ZH), f"{kind}: labels and readout in the wrong language"
    assert_same(state["data"], explorable_data(kind, **state["params"]), f"{kind} at start")

    for control in page.evaluate(CONTROLS, kind):
        changed = False
        for value in [*settings_to_visit(control), control["value"]]:  # then back to the start
            before = state
            expected = expected_position(kind, before["params"], control["name"], value)
            moved = page.evaluate(SET, [kind, control["name"], value])
            where = f"{kind} with {control['name']} at position {value}"
            assert moved["value"] == expected, f"{where}: the input shows {moved['value']}"
            state = page.evaluate(READ, kind)
            where = f"{where}: {state['params']}"
            assert_same(state["data"], explorable_data(kind, **state["params"]), where)
            changed = changed or state["data"] != before["data"]
        assert changed, f"{kind}.{control['name']}: no position changed the figure"

    assert log.console_errors == [], f"console errors: {log.console_errors}"
    assert log.page_errors == [], f"page errors: {log.page_errors}"
    assert log.external_requests == [], f"requests to the network: {log.external_requests}"


def test_the_tune_slider_follows_the_training_length(open_page):
    """T_tune >= T_train: raising T_train above T_tune raises T_tune with it (chapter 6)."""
    page, log = open_page(CHAPTERS["calculator"])
    controls = {c["name"]: c for c in page.evaluate(CONTROLS, "calculator")}
    page.evaluate(SET, ["calculator", "tune_len", controls["tune_len"]["min"]])
    moved = page.evaluate(SET, ["calculator", "train_len", controls["train_len"]["max"]])
    params = page.evaluate(READ, "calculator")["params"]
    assert params["train_len"] == params["tune_len"] == 131072
    tune = page.evaluate(CONTROLS, "calculator")[3]
    assert tune["name"] == "tune_len" and tune["min"] == tune["value"] != "0"
    assert "131,072" in moved["shown"]
    assert log.page_errors == [] and log.console_errors == []


WALK = """([kind, name, target]) => {
    const instance = window.ropelabExplore.instances.find(i => i.kind === kind);
    const control = instance.root.querySelector(`[data-param="${name}"]`);
    for (let i = Number(control.min); i <= Number(control.max); i++) {
        control.value = i;
        control.dispatchEvent(new Event('input', {bubbles: true}));
        if (instance.params[name] === target) {
            return i;
        }
    }
    return null;
}"""


def test_the_calculator_at_the_critical_base(open_page):
    """β = β0 exactly: base 10,000 fine-tuned at T_tune = T_train is the pre-trained model, in
    the smaller-base regime with the bound T_train (ropelab.scaling.predict), not T_extra."""
    page, log = open_page(CHAPTERS["calculator"])
    params = page.evaluate(READ, "calculator")["params"]
    assert params["tune_len"] == params["train_len"] == 4096
    assert page.evaluate(WALK, ["calculator", "base", 10000]) is not None, "base 10,000 unreachable"
    state = page.evaluate(READ, "calculator")
    assert state["data"]["critical_base"] == 10000
    assert state["data"]["regime"] == "β ≤ β0: bound = T_tune"
    assert state["data"]["supported_length"] == 4096
    assert_same(state["data"], explorable_data("calculator", **state["params"]), "base = β0")
    assert log.page_errors == [] and log.console_errors == []


def test_the_script_is_defined_once(open_page):
    """Including the module again (a second explorable on a page) keeps the first definition."""
    page, log = open_page(CHAPTERS["spectrum"])
    page.evaluate("() => { window.firstApi = window.ropelabExplore; }")
    page.add_script_tag(content=script())
    same = page.evaluate(
        "() => window.ropelabExplore === window.firstApi"
        " && window.ropelabExplore.instances.length === 1"
    )
    assert same
    assert log.page_errors == [] and log.console_errors == []


@pytest.mark.parametrize("kind", ["spectrum", "calculator"])
def test_the_page_loads_the_script_once_as_an_asset(open_page, kind):
    page, log = open_page(CHAPTERS[kind])
    sources = page.evaluate(
        "() => [...document.scripts].map(s => s.src ? 'src:' + s.src : s.textContent.length)"
    )
    # Sphinx appends "?v=<checksum>" to the assets it adds
    served = [
        s for s in sources if isinstance(s, str) and s.split("?")[0].endswith("ropelab-explore.js")
    ]
    assert len(served) == 1 and "/_static/ropelab/" in served[0]
    inline = [s for s in sources if isinstance(s, int)]
    assert max(inline, default=0) < 2000, "a large inline script: the module was inlined"
    readout = page.locator(f'.ropelab-explorable[data-kind="{kind}"] .ropelab-readout')
    assert readout.inner_text().strip()
    assert log.page_errors == [] and log.console_errors == []
