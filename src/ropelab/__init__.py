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
"""

from . import decay, scaling
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
from .rope_config import ROPE_TYPES, frequencies_from_config

__all__ = [
    "ROPE_TYPES",
    "apply_rope",
    "apply_rope_complex",
    "decay",
    "frequencies_from_config",
    "half_to_interleaved",
    "interleaved_to_half",
    "inv_freq",
    "layout_permutation",
    "rotate_pairs",
    "rotation_matrix",
    "scaling",
    "wavelengths",
]

__version__ = "0.1.0"
