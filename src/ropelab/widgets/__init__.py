"""The live version of every interactive figure: ipywidgets built from the figure's spec.

:func:`live_widget` turns a spec of :mod:`ropelab.interactive.figures` into controls, redraws
the spec's static figure (matplotlib) and prints its readout whenever a control is released.
It needs a running Python kernel (Jupyter, Colab, Binder); on the static site the explorables
of :mod:`ropelab.explorables` respond instead. Every figure is wired the same way: the values
of the controls go through the spec's clamp, its data function, its figure and its readout.
"""

from __future__ import annotations

import math
from typing import Any

from ..interactive import figure_spec
from ..interactive.controls import Control

__all__ = ["live_widget"]

_STYLE = {"description_width": "initial"}


def _exponent(value: float, control: Control) -> float:
    return math.log(value) / math.log(control.log_base)


def _control_widget(control: Control, value: Any) -> Any:
    """The ipywidget of one control, starting at ``value`` (already clamped)."""
    import ipywidgets as widgets

    common = {
        "description": control.label,
        "style": _STYLE,
        "layout": widgets.Layout(width="95%" if control.is_choice else "48%"),
    }
    if control.is_choice:
        options = list(control.options or ())
        if control.multiple:
            return widgets.SelectMultiple(
                options=options, value=tuple(value), rows=min(len(options), 11), **common
            )
        if len(options) <= 3:
            return widgets.ToggleButtons(options=options, value=value, **common)
        return widgets.Dropdown(options=options, value=value, **common)
    common["continuous_update"] = False
    if control.scale == "log":
        return widgets.FloatLogSlider(
            value=value,
            base=control.log_base,
            min=_exponent(control.low, control),
            max=_exponent(control.high, control),
            step=control.step,
            readout_format=",.0f" if control.whole else ".3g",
            **common,
        )
    if control.whole:
        return widgets.IntSlider(
            value=value, min=control.low, max=control.high, step=control.step, **common
        )
    decimals = 3 if control.decimals is None else control.decimals
    return widgets.FloatSlider(
        value=value,
        min=control.low,
        max=control.high,
        step=control.step,
        readout_format=f".{decimals}f",
        **common,
    )


def live_widget(kind: str, **params: Any) -> Any:
    """The live widget of the interactive figure ``kind``, starting at ``params``.

    Args:
        kind: a figure of :data:`ropelab.interactive.FIGURES` (``"spectrum"``, ``"decay"``,
            ``"calculator"``, ...).
        **params: starting values by control name (clamped like every control).

    Returns:
        An ``ipywidgets.VBox``: the controls, then the readout and the figure. Its attribute
        ``controls`` maps control names to their widgets and ``data`` holds the data of the
        figure shown.

    Raises:
        ValueError: for an unknown ``kind`` or control name.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    spec = figure_spec(kind)
    start = spec.params(**params)
    controls = {c.name: _control_widget(c, start[c.name]) for c in spec.controls}
    output = widgets.Output()
    flow = widgets.Layout(display="flex", flex_flow="row wrap", width="100%")
    box = widgets.VBox([widgets.Box(list(controls.values()), layout=flow), output])
    box.controls = controls

    def redraw(_change: Any = None) -> None:
        box.data = spec.compute(**{name: w.value for name, w in controls.items()})
        with output:
            output.clear_output(wait=True)
            print(spec.readout(box.data))
            figure = spec.draw(box.data)
            display(figure)
            plt.close(figure)

    for control in spec.controls:
        if control.at_least is not None:
            _follow(controls[control.at_least], controls[control.name], control)
    for control_widget in controls.values():
        control_widget.observe(redraw, names="value")
    redraw()
    return box


def _follow(floor: Any, follower: Any, control: Control) -> None:
    """Keep ``follower``'s lower end at ``floor``'s value (T_tune ≥ T_train)."""

    def move(change: dict[str, Any]) -> None:
        new = change["new"]
        follower.min = _exponent(new, control) if control.scale == "log" else new

    floor.observe(move, names="value")
    move({"new": floor.value})
