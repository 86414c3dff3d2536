"""One look for every figure of the book: sizes, colours and the figure factory."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

#: Colours used across chapters: queries, keys, and a neutral for references.
QUERY = "#1f77b4"
KEY = "#d62728"
NEUTRAL = "#7f7f7f"
ACCENT = "#2ca02c"
#: A sequential map for heatmaps of positive values and a diverging one for signed values.
SEQUENTIAL = "viridis"
DIVERGING = "RdBu_r"

WIDTH = 7.0  # inches: the text width of a book page
HEIGHT = 3.6


def new_figure(
    ncols: int = 1, nrows: int = 1, *, width: float = WIDTH, height: float = HEIGHT, **kwargs: Any
) -> tuple[Figure, Any]:
    """A figure with ``nrows x ncols`` axes in the book's size, with constrained layout."""
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), layout="constrained", **kwargs)
    return fig, axes
