"""Part 2: the time a figure takes to follow its controls.

Python: the data function each ipywidget calls when a slider moves, at the widget's starting
values and with every slider at the end of its range that makes the most work. Browser: the
explorables (``ropelab-explore.js``) on the built chapter pages, in headless Chromium (Debian's
``/usr/bin/chromium``, driven by Playwright; nothing is downloaded): each control is moved one
step and back, and the page measures with ``performance.now()`` the time from the ``input``
event to a laid-out new figure (the recompute, the new SVG, style and layout; painting is not
included).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_common import ROOT, Row, median_time

from ropebook.headless_chromium import CHROMIUM, CHROMIUM_ARGS, keep_offline
from ropelab.interactive import FIGURES, figure_spec

DEFAULT_TARGET_MS = 20.0
MAXIMUM_TARGET_MS = 100.0


def largest_settings(kind: str) -> dict[str, Any]:
    """Every slider at the top of its range (the most work), every option of a multiple
    choice, the last option of a choice."""
    settings: dict[str, Any] = {}
    for control in figure_spec(kind).controls:
        if control.multiple:
            settings[control.name] = tuple(control.options or ())
        elif control.is_choice:
            settings[control.name] = (control.options or ())[-1]
        else:
            settings[control.name] = control.high
    return settings


def python_cases() -> list[tuple[str, Callable[..., Any], dict[str, Any], dict[str, Any]]]:
    """(label, data function, defaults, largest settings) of every interactive figure: the
    work a live widget does when a control is released, before drawing."""
    cases = []
    for kind in FIGURES:
        spec = figure_spec(kind)
        cases.append(
            (
                f"ch {spec.chapter} {kind} ({spec.data.__module__}.{spec.data.__name__})",
                spec.compute,
                spec.defaults(),
                largest_settings(kind),
            )
        )
    return cases


def _settings(params: dict[str, Any]) -> str:
    return ", ".join(
        f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items()
    )


def python_rows() -> list[Row]:
    part = "2 Python widgets: data after a slider moves"
    rows = []
    for label, function, defaults, largest in python_cases():
        for setting, params, limit in (
            ("defaults", defaults, DEFAULT_TARGET_MS),
            ("largest", largest, MAXIMUM_TARGET_MS),
        ):
            seconds = median_time(lambda f=function, p=params: f(**p))
            rows.append(
                Row(
                    part,
                    f"{label}, {setting}",
                    seconds * 1e3,
                    target=f"<{limit:g} ms",
                    met=seconds * 1e3 < limit,
                    note=_settings(params),
                )
            )
    rows += figure_rows(part)
    return rows


def figure_rows(part: str) -> list[Row]:
    """For scale: a whole matplotlib redraw (data, figure, rendering) of every figure at its
    defaults, as the live widget does it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def redraw(kind: str) -> Callable[[], None]:
        spec = figure_spec(kind)

        def run() -> None:
            fig = spec.draw(spec.compute())
            fig.canvas.draw()
            plt.close(fig)

        return run

    return [
        Row(
            part,
            f"ch {figure_spec(kind).chapter} {kind}: whole matplotlib redraw, defaults",
            median_time(redraw(kind), min_rounds=5, min_seconds=0.5) * 1e3,
        )
        for kind in FIGURES
    ]


# In the page: move every control of every explorable one step and back, `reps` times, first at
# the starting values, then with every slider at its maximum; time from the input event to a
# laid-out figure.
MEASURE_JS = """
(reps) => {
  const api = window.ropelabExplore;
  if (!api) { return null; }
  const results = [];
  for (const inst of api.instances) {
    const controls = Array.from(inst.root.querySelectorAll('[data-param]'));
    const move = (el, value) => {
      el.value = String(value);
      const start = performance.now();
      el.dispatchEvent(new Event('input', { bubbles: true }));
      inst.root.getBoundingClientRect();
      void inst.root.offsetHeight;
      return performance.now() - start;
    };
    const session = () => {
      const times = {};
      for (const el of controls) {
        const name = el.getAttribute('data-param');
        times[name] = [];
        if (el.tagName === 'SELECT') {
          const values = Array.from(el.options).map((o) => o.value);
          const here = el.value;
          for (let i = 0; i < reps; i++) {
            for (const v of values) { if (v !== here) { times[name].push(move(el, v)); } }
            times[name].push(move(el, here));
          }
        } else {
          const here = Number(el.value);
          const other = here > Number(el.min) ? here - 1 : here + 1;
          for (let i = 0; i < reps; i++) {
            times[name].push(move(el, other));
            times[name].push(move(el, here));
          }
        }
      }
      return times;
    };
    const defaults = session();
    const params = Object.assign({}, inst.params);
    for (const el of controls) { if (el.tagName === 'INPUT') { move(el, el.max); } }
    const largest = session();
    results.push({ kind: inst.kind, defaults: defaults, params: params,
                   largest: largest, largest_params: Object.assign({}, inst.params) });
  }
  return results;
}
"""


def browser_rows(site: Path, reps: int = 5) -> list[Row]:
    part = "2 browser explorables (headless Chromium)"
    chromium = CHROMIUM
    from ropelab.explorables import script_path

    script = script_path()  # generated from ropelab/explorables/js/
    # every chapter page; those without an explorable are listed as such
    pages = sorted((site / "notebooks").glob("*.html"))
    missing = []
    if not script.exists():
        missing.append(f"{script.relative_to(ROOT)} does not exist")
    if not Path(chromium).exists():
        missing.append("chromium is not installed (make chromium)")
    if not pages:
        missing.append(f"no built chapter pages under {site} (make book)")
    if missing:
        return [Row(part, "explorables", None, note="not available: " + "; ".join(missing))]
    from playwright.sync_api import sync_playwright

    rows, without = [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            for page_path in pages:
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                keep_offline(page)
                page.goto(page_path.as_uri(), wait_until="load")
                results = page.evaluate(MEASURE_JS, reps)
                page.close()
                if not results:
                    without.append(page_path.name)
                    continue
                for result in results:
                    rows += _browser_result_rows(part, page_path.name, result)
        finally:
            browser.close()
    if without:
        rows.append(
            Row(
                part, "pages without explorables", None, note="not available: " + ", ".join(without)
            )
        )
    return rows


def _browser_result_rows(part: str, page: str, result: dict[str, Any]) -> list[Row]:
    rows = []
    for setting, limit, params_key in (
        ("defaults", DEFAULT_TARGET_MS, "params"),
        ("largest", MAXIMUM_TARGET_MS, "largest_params"),
    ):
        per_control = {
            name: statistics.median(times) for name, times in result[setting].items() if times
        }
        worst_control = max(per_control, key=per_control.get)
        worst = per_control[worst_control]
        rows.append(
            Row(
                part,
                f"{result['kind']} ({page[:2]}), {setting}: slowest control ({worst_control})",
                worst,
                target=f"<{limit:g} ms",
                met=worst < limit,
                note=json.dumps(
                    {
                        "median ms per control": {k: round(v, 2) for k, v in per_control.items()},
                        "settings": result[params_key],
                    }
                ),
            )
        )
    return rows
