"""The controls of an interactive figure and the one clamp that every figure uses.

A :class:`Control` describes one slider or choice: its name (the keyword of the figure's data
function), label, range, step, scale and default. :func:`clamp` moves any values a reader, a
notebook or a test passes into the controls' valid ranges, the same way for every figure:

* a missing value, or one that is not a real number (a string, ``None``, ``True``), NaN or
  an infinity, becomes the control's default;
* a number outside ``[low, high]`` goes to the nearest end;
* an ``integer`` control rounds half up (``floor(x + 1/2)``, JavaScript's ``Math.round``), an
  ``even`` one rounds half up to a multiple of two (ranges of even controls have even ends);
* a control with ``at_least`` never falls below the value of the control it names
  (T_tune ≥ T_train);
* a choice keeps a value among its ``options`` and takes the default otherwise; a multiple
  choice keeps its valid options in the given order and takes the default when none is left.

``ropelab-explore.js`` implements the same rules (``clamp`` there), and the drift check of
``tests/test_explorable_drift.py`` compares the two on seeded random settings. Only numbers
and the standard library are used here, so importing this module is free.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any, Literal

__all__ = ["Control", "choice", "clamp", "linear", "log", "round_half_up"]


@dataclass(frozen=True, kw_only=True)
class Control:
    """One control of an interactive figure.

    Attributes:
        name: the keyword argument of the figure's data function it sets.
        label: what the reader sees next to it.
        default: the starting value (clamped values fall back to it).
        low, high: the inclusive range of a numeric control.
        step: the slider's step, in the control's units (linear) or in powers of
            ``log_base`` (log): a log slider with ``log_base`` 2 and ``step`` 0.5 moves by √2.
        scale: ``"linear"`` or ``"log"``.
        log_base: the base of a log slider's exponent.
        integer: the value is a whole number (rounded half up).
        even: the value is an even whole number (a head dimension).
        options: the choices of a select (``None`` for a slider).
        multiple: a choice of any number of the options (a list).
        at_least: the name of another control whose value is this one's lower end.
        decimals: digits shown next to a slider (``None``: the figure's number format).
    """

    name: str
    label: str
    default: Any
    low: float | None = None
    high: float | None = None
    step: float | None = None
    scale: Literal["linear", "log"] = "linear"
    log_base: float = 10.0
    integer: bool = False
    even: bool = False
    options: tuple[str, ...] | None = None
    multiple: bool = False
    at_least: str | None = None
    decimals: int | None = None

    def __post_init__(self) -> None:
        if self.options is not None:
            if not self.options:
                raise ValueError(f"control {self.name!r}: options must not be empty")
            defaults = self.default if self.multiple else (self.default,)
            if any(value not in self.options for value in defaults):
                raise ValueError(
                    f"control {self.name!r}: default {self.default!r} is not among its options"
                )
            return
        if self.low is None or self.high is None or self.step is None:
            raise ValueError(f"control {self.name!r}: a slider needs low, high and step")
        if not self.low < self.high or self.step <= 0:
            raise ValueError(
                f"control {self.name!r}: needs low < high and step > 0, got "
                f"low={self.low}, high={self.high}, step={self.step}"
            )
        if self.scale not in ("linear", "log"):
            raise ValueError(f"control {self.name!r}: scale must be 'linear' or 'log'")
        if self.scale == "log" and (self.low <= 0 or self.log_base <= 1):
            raise ValueError(f"control {self.name!r}: a log slider needs low > 0, log_base > 1")
        if self.even and (self.low % 2 or self.high % 2):
            raise ValueError(f"control {self.name!r}: an even control needs even ends")
        if not self.low <= self.default <= self.high:
            raise ValueError(
                f"control {self.name!r}: default {self.default} is outside "
                f"[{self.low}, {self.high}]"
            )

    @property
    def is_choice(self) -> bool:
        """Whether this is a select (or a multiple choice) rather than a slider."""
        return self.options is not None

    @property
    def whole(self) -> bool:
        """Whether values are whole numbers (``integer`` or ``even``)."""
        return self.integer or self.even

    def slider_values(self) -> list[float]:
        """The values the slider reaches, in order: ``low``, the grid points strictly inside
        the range, ``high``.

        The grid is the multiples of ``step`` (linear) or ``log_base`` raised to them (log), as
        in the ipywidgets sliders; ``j / (1/step)`` rather than ``j·step`` keeps ``0.01·j`` the
        decimal it stands for. Whole-number controls round each value half up. The same
        function is ``sliderValues`` in ``ropelab-explore.js``.
        """
        if self.is_choice:
            raise ValueError(f"control {self.name!r} is a choice, not a slider")
        low, high = float(self.low), float(self.high)
        if self.scale == "log":
            log_base = float(self.log_base)

            def to_unit(v: float) -> float:
                return math.log(v) / math.log(log_base)
        else:

            def to_unit(v: float) -> float:
                return v

        per_unit = 1 / self.step
        values = [low]
        first = math.ceil(to_unit(low) * per_unit - 1e-9)
        last = math.floor(to_unit(high) * per_unit + 1e-9)
        for j in range(first, last + 1):
            value = self.log_base ** (j / per_unit) if self.scale == "log" else j / per_unit
            if low + 1e-9 * abs(low) + 1e-12 < value < high * (1 - 1e-12):
                values.append(value)
        values.append(high)
        return [float(round_half_up(v)) for v in values] if self.whole else values

    def to_json(self) -> dict[str, Any]:
        """The control as the JSON object ``ropelab-explore.js`` reads."""
        spec: dict[str, Any] = {"name": self.name, "label": self.label, "default": self.default}
        if self.is_choice:
            spec["options"] = list(self.options or ())
            spec["multiple"] = self.multiple
            if self.multiple:
                spec["default"] = list(self.default)
            return spec
        spec.update(
            low=self.low,
            high=self.high,
            step=self.step,
            scale=self.scale,
            log_base=self.log_base,
            integer=self.integer,
            even=self.even,
        )
        if self.at_least is not None:
            spec["at_least"] = self.at_least
        if self.decimals is not None:
            spec["decimals"] = self.decimals
        return spec


def linear(
    name: str, label: str, default: float, low: float, high: float, step: float, **extra: Any
) -> Control:
    """A slider over ``low + k·step`` (both ends included)."""
    return Control(name=name, label=label, default=default, low=low, high=high, step=step, **extra)


def log(
    name: str,
    label: str,
    default: float,
    low: float,
    high: float,
    *,
    log_base: float = 10.0,
    step: float,
    **extra: Any,
) -> Control:
    """A logarithmic slider over ``log_base ** (k·step)`` (both ends included)."""
    return Control(
        name=name,
        label=label,
        default=default,
        low=low,
        high=high,
        step=step,
        scale="log",
        log_base=log_base,
        **extra,
    )


def choice(
    name: str, label: str, default: Any, options: Sequence[str], *, multiple: bool = False
) -> Control:
    """A select among ``options`` (several of them when ``multiple``)."""
    default = tuple(default) if multiple else default
    return Control(
        name=name, label=label, default=default, options=tuple(options), multiple=multiple
    )


def round_half_up(value: float) -> int:
    """The nearest integer, halves rounded up: JavaScript's ``Math.round``.

    Computed as ``floor(x)`` plus one when ``x - floor(x) >= 1/2``; the difference is exact
    for every float, unlike ``floor(x + 0.5)``.
    """
    whole = math.floor(value)
    return int(whole + 1) if value - whole >= 0.5 else int(whole)


def _number(value: Any) -> float | None:
    """``value`` as a finite float, or ``None`` when it is not a finite real number."""
    if isinstance(value, bool) or not isinstance(value, Real):
        try:  # numpy scalars and 0-d arrays
            import numpy as np

            if isinstance(value, np.generic | np.ndarray) and np.ndim(value) == 0:
                if value.dtype.kind in "biuf":
                    value = value.item()
        except ImportError:  # pragma: no cover
            pass
        if isinstance(value, bool) or not isinstance(value, Real):
            return None
    number = float(value)
    return number if math.isfinite(number) else None


def _clamp_one(control: Control, value: Any, floor: float | None) -> Any:
    if control.is_choice:
        options = control.options or ()
        if control.multiple:
            given = [value] if isinstance(value, str) else value
            try:
                kept = [v for v in given if isinstance(v, str) and v in options]
            except TypeError:
                kept = []
            kept = list(dict.fromkeys(kept))
            return tuple(kept) if kept else tuple(control.default)
        return value if isinstance(value, str) and value in options else control.default
    number = _number(value)
    if number is None:
        number = float(control.default)
    low = float(control.low) if floor is None else max(float(control.low), floor)
    number = min(max(number, low), float(control.high))
    if control.even:
        number = 2 * round_half_up(number / 2)
        number = min(max(number, low), float(control.high))
    elif control.integer:
        number = round_half_up(number)
    return int(number) if control.whole else float(number)


def clamp(controls: Sequence[Control], values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` moved into the controls' ranges (see the module docstring for the rules).

    Controls are taken in order, so a control's ``at_least`` must name an earlier one. Names
    in ``values`` that are not controls are ignored here; the figure spec reports them.

    Returns:
        ``{name: value}`` for every control, in the controls' order.
    """
    out: dict[str, Any] = {}
    for control in controls:
        floor = None
        if control.at_least is not None:
            if control.at_least not in out:
                raise ValueError(
                    f"control {control.name!r}: at_least names {control.at_least!r}, "
                    "which must be an earlier control"
                )
            floor = float(out[control.at_least])
        out[control.name] = _clamp_one(control, values.get(control.name, control.default), floor)
    return out
