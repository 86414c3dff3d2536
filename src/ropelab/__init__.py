"""ropelab: the computations behind the book *RoPE, derived and run*.

Every formula, number and figure of the book comes from this package. Modules:

* :mod:`ropelab.core` -- frequencies, rotation matrices, the fast elementwise form, layouts
  (chapters 1-4).
* :mod:`ropelab.rope_config` -- ``frequencies_from_config``: default, linear, dynamic NTK,
  YaRN, LongRoPE and Llama-3 frequencies, as transformers computes them (chapter 6).
* :mod:`ropelab.decay` -- long-range decay of the attention score (chapter 5).
* :mod:`ropelab.scaling` -- the scaling laws of RoPE extrapolation (chapter 6).
* :mod:`ropelab.proofs` -- SymPy derivations of the identities (chapters 1-3).
* :mod:`ropelab.torch_modules` -- a rotary embedding module and attention layers (chapters 3, 7);
  imported on demand, so ``import ropelab`` needs neither torch nor SymPy.
* :mod:`ropelab.describe` -- ``describe_config``: a released ``config.json`` decoded
  (chapter 8); :mod:`ropelab.config_fields` reads the released spellings and
  :mod:`ropelab.configs` ships real configs.
* :mod:`ropelab.checkpoints` -- ``permute_qk_weight`` / ``unpermute_qk_weight``: checkpoints
  between the interleaved and half-split layouts (chapter 8).
* :mod:`ropelab.diagnose` -- ``diagnose_rope``: checks an implementation of RoPE and names
  its bug (chapter 3A).

Every submodule is reachable as an attribute without importing it by hand
(``ropelab.proofs.PROOFS``, ``ropelab.plots.spectrum``): it is imported on first use (PEP 562
module ``__getattr__``), so ``import ropelab`` loads numpy and nothing heavier -- no SymPy,
torch, matplotlib or ipywidgets until a chapter asks for them.
"""

import importlib as _importlib
import pkgutil as _pkgutil
from types import ModuleType as _ModuleType

from .checkpoints import permute_qk_weight, unpermute_qk_weight
from .core import (
    apply_rope,
    apply_rope_complex,
    half_to_interleaved,
    interleaved_to_half,
    inv_freq,
    layout_permutation,
    rotate_pairs,
    rotation_matrix,
    wavelengths,
)
from .describe import describe_config
from .diagnose import Diagnosis, Finding, diagnose_rope
from .rope_config import ROPE_TYPES, frequencies_by_layer_type, frequencies_from_config

__all__ = [
    "ROPE_TYPES",
    "Diagnosis",
    "Finding",
    "apply_rope",
    "apply_rope_complex",
    "decay",
    "describe_config",
    "diagnose_rope",
    "frequencies_by_layer_type",
    "frequencies_from_config",
    "half_to_interleaved",
    "interleaved_to_half",
    "inv_freq",
    "layout_permutation",
    "permute_qk_weight",
    "rotate_pairs",
    "rotation_matrix",
    "scaling",
    "unpermute_qk_weight",
    "wavelengths",
]

__version__ = "0.1.0"

#: The package's public submodules (and subpackages), imported on first attribute access.
_SUBMODULES = frozenset(
    info.name for info in _pkgutil.iter_modules(__path__) if not info.name.startswith("_")
)


def __getattr__(name: str) -> _ModuleType:
    if name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _SUBMODULES)
