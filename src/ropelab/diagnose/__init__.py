"""Check an implementation of RoPE and name its bug: :func:`diagnose_rope` (chapter 3A).

Modules, one job each:

* :mod:`~ropelab.diagnose.api` -- :func:`diagnose_rope`, the order of the checks;
* :mod:`~ropelab.diagnose.adapters` -- :func:`from_cos_sin`, a transformers-style cos/sin
  producer and ``apply_rotary_pos_emb`` as one ``fn(x, positions)``;
* :mod:`~ropelab.diagnose.probes` -- calling the implementation safely on built inputs;
* :mod:`~ropelab.diagnose.structure` -- the pairing and the cos/sin table, read off matrices;
* :mod:`~ropelab.diagnose.angles` -- direction, positions, frequencies, precision;
* :mod:`~ropelab.diagnose.properties` -- norm preservation and relative scores, measured;
* :mod:`~ropelab.diagnose.explain` -- the words of each finding;
* :mod:`~ropelab.diagnose.report` -- :class:`Finding`, :class:`Diagnosis`, :data:`CODES`.
"""

from .adapters import from_cos_sin
from .api import diagnose_rope
from .properties import scores_by_distance
from .report import CODES, Diagnosis, Finding

__all__ = [
    "CODES",
    "Diagnosis",
    "Finding",
    "diagnose_rope",
    "from_cos_sin",
    "scores_by_distance",
]
