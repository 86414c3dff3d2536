"""The book's interactive figures, each defined once (:mod:`ropelab.interactive.figures`).

* :mod:`ropelab.interactive.controls` -- :class:`Control` and the one :func:`clamp`;
* :mod:`ropelab.interactive.figures` -- the spec of every figure (:func:`figure_spec`);
* :mod:`ropelab.interactive.readouts` -- the text under each figure.

Views read these specs: :mod:`ropelab.explorables` (the browser, no kernel) and
:mod:`ropelab.widgets` (ipywidgets, a running kernel). Importing this package imports the
chapters' mathematics modules but neither matplotlib nor ipywidgets.
"""

from .controls import Control, clamp
from .figures import FIGURES, InteractiveFigure, figure_spec, kinds

__all__ = ["FIGURES", "Control", "InteractiveFigure", "clamp", "figure_spec", "kinds"]
