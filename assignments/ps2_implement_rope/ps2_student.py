"""Problem set 2, implement RoPE: your functions.

Use numpy only (float64). Do not import ropelab or transformers here: the
grader refuses a module that does. x has shape (..., seq, d), positions has
shape (seq,), base is rope_theta.
"""

import numpy as np  # noqa: F401 (you will need it)

STUDENT_ID = ""  # your id, exactly as your instructor gave it


def inv_freq(dim, base):
    """2.1 theta_i = base^(-2i/dim) for i = 0 ... dim/2 - 1 (an array)."""
    raise NotImplementedError


def rope_half(x, positions, base):
    """2.2 Rotate the pairs (i, i + d/2) of x by positions[s] * theta_i
    (the half-split layout of Llama in transformers)."""
    raise NotImplementedError


def rope_interleaved(x, positions, base):
    """2.3 Rotate the pairs (2i, 2i + 1) of x by positions[s] * theta_i
    (the interleaved layout of RoFormer and GPT-J)."""
    raise NotImplementedError


def prefill(k, v, base):
    """2.4 The KV cache of a prompt: k and v of shape (heads, t, d) ->
    {"k": the keys rotated at positions 0 ... t - 1, "v": the values}
    (half-split layout)."""
    raise NotImplementedError


def decode_step(q, k, v, cache, base):
    """2.5-2.6 One new token after the t tokens in ``cache``: q, k, v of
    shape (heads, d). Returns (out, new_cache): out (heads, d) is
    softmax(q K^T / sqrt(d)) V over the t + 1 tokens, new_cache holds t + 1
    keys and values. Which position is the new token at?"""
    raise NotImplementedError
