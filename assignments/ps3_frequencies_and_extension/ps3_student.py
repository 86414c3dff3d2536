"""Problem set 3, frequencies and extension: your functions and numbers.

Use numpy only. Do not import ropelab or transformers here: the grader
refuses a module that does.
"""

import numpy as np  # noqa: F401 (you will need it)

STUDENT_ID = ""  # your id, exactly as your instructor gave it


def inv_freq(dim, base):
    """3.1 theta_i = base^(-2i/dim) for i = 0 ... dim/2 - 1."""
    raise NotImplementedError


def wavelengths(dim, base):
    """3.2 The number of positions plane i takes for one full turn."""
    raise NotImplementedError


def pi_inv_freq(dim, base, factor):
    """3.3 The frequencies of linear position interpolation (PI) by
    ``factor``: positions m are read as m / factor."""
    raise NotImplementedError


def ntk_base(base, dim, factor):
    """3.4 The NTK-aware base: the base whose slowest plane (i = dim/2 - 1)
    turns ``factor`` times slower while theta_0 stays 1."""
    raise NotImplementedError


def llama3_inv_freq(
    dim, base, factor, low_freq_factor, high_freq_factor, original_max
):
    """3.5 Llama 3.1's frequencies: planes whose wavelength is below
    original_max / high_freq_factor keep theta_i; above
    original_max / low_freq_factor, theta_i / factor; in between, a linear
    blend with smooth = (original_max / wavelength - low_freq_factor) /
    (high_freq_factor - low_freq_factor):
    (1 - smooth) * theta_i / factor + smooth * theta_i."""
    raise NotImplementedError


# 3.6 - 3.9: the numbers of YOUR sheet (the notebook prints them with your
# functions). Copy every digit it prints.
ANSWERS = {
    "longest_wavelength": None,  # 3.6 in positions
    "planes_full_turn": None,  # 3.7 planes with wavelength <= train_length
    "ntk_base": None,  # 3.8 ntk_base for your base, dim and factor
    "llama3_kept": None,  # 3.9 planes whose theta_i Llama 3 keeps
}
