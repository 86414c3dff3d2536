r"""Training-free position remapping (chapter 10): the relative position each score sees.

Plain RoPE gives the score of a query at position *m* and a key at *n* the rotation
:math:`R_{n-m}`, a function of the distance :math:`m - n` (chapter 1). The methods here
keep the weights and change only which relative position the score is given,
:math:`r(m, n)`, so that no score sees a distance the model was not trained on. Each map
is a function of *m* and *n* (:math:`0 \le n \le m`):

* **ReRoPE** (Su, 2023, https://kexue.fm/archives/9708 and github.com/bojone/rerope):
  :math:`r = \min(m - n, w)`: exact distances inside a window *w*, the distance *w* beyond.
* **Self-Extend** (Jin et al., 2024, arXiv:2401.01325; README of datamllab/LongLM):
  :math:`r = m - n` inside the neighbour window :math:`w`, else
  :math:`\lfloor m/G\rfloor - \lfloor n/G\rfloor + w - \lfloor w/G\rfloor`; a model trained
  on *L* tokens then covers :math:`(L - w)\,G + w` tokens (:func:`self_extend_max_length`).
* **Dual Chunk Attention** (An et al., 2024, arXiv:2402.17463), as vLLM's
  ``DualChunkRotaryEmbedding`` builds its tables (vllm-project/vllm,
  ``vllm/model_executor/layers/rotary_embedding/dual_chunk_rope.py``, commit 07b13497): with
  chunk size *s*, local size *l* and :math:`c = s - l`, keys sit at :math:`n \bmod c`; a query
  in the key's chunk sits at :math:`m \bmod c`, in the next chunk at
  :math:`\min(m \bmod c + c, s)`, farther at :math:`\min(2c - 1, s)`.
* **STRING** (An et al., 2024, arXiv:2410.18745; README of HKUNLP/STRING): with a shift *S*
  and a local value *W*, :math:`r = m - n` below *S*, else :math:`m - n - S + W`.

Every map returns integers; :func:`max_relative` gives the largest relative position any
score sees on an input of a given length, in closed form (the tests check it against the
maps on every pair of small inputs). :func:`remapping_data` is the explorable's data.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_count

__all__ = [
    "METHODS",
    "dca_relative",
    "max_relative",
    "relative_map",
    "relative_positions",
    "remapping_data",
    "rerope_relative",
    "rope_relative",
    "sample_positions",
    "self_extend_max_length",
    "self_extend_relative",
    "string_relative",
]

#: The maps, in the order the chapter and the explorable show them.
METHODS = ("RoPE", "ReRoPE", "Self-Extend", "DCA", "STRING")


def _pairs(m: Any, n: Any) -> tuple[np.ndarray, np.ndarray]:
    m_arr = np.asarray(m)
    n_arr = np.asarray(n)
    if m_arr.dtype.kind not in "iu" or n_arr.dtype.kind not in "iu":
        raise ValueError("m and n must be integer positions")
    m_arr, n_arr = np.broadcast_arrays(m_arr.astype(np.int64), n_arr.astype(np.int64))
    if (n_arr < 0).any() or (n_arr > m_arr).any():
        raise ValueError("positions must satisfy 0 <= n <= m (a causal query m and key n)")
    return m_arr, n_arr


def _out(values: np.ndarray) -> Any:
    return int(values) if values.ndim == 0 else values


def rope_relative(m: Any, n: Any) -> Any:
    """Plain RoPE: :math:`r = m - n`."""
    m_arr, n_arr = _pairs(m, n)
    return _out(m_arr - n_arr)


def rerope_relative(m: Any, n: Any, window: int) -> Any:
    r"""ReRoPE (Su, 2023): :math:`r = \min(m - n, w)`."""
    window = check_count(window, "window")
    m_arr, n_arr = _pairs(m, n)
    return _out(np.minimum(m_arr - n_arr, window))


def self_extend_relative(m: Any, n: Any, group: int, window: int) -> Any:
    r"""Self-Extend (Jin et al., 2024, eq. 3 and 4): :math:`m - n` when it is below the
    neighbour window *w*, else :math:`\lfloor m/G\rfloor - \lfloor n/G\rfloor + w -
    \lfloor w/G\rfloor`."""
    group = check_count(group, "group")
    window = check_count(window, "window")
    m_arr, n_arr = _pairs(m, n)
    distance = m_arr - n_arr
    grouped = m_arr // group - n_arr // group + window - window // group
    return _out(np.where(distance < window, distance, grouped))


def self_extend_max_length(train_len: int, group: int, window: int) -> int:
    """The longest input Self-Extend covers: :math:`(L - w)\\,G + w` (datamllab/LongLM
    README: ``(4096 - neighbor_window) * group_size + neighbor_window`` for Llama-2)."""
    train_len = check_count(train_len, "train_len")
    group = check_count(group, "group")
    window = check_count(window, "window")
    if window >= train_len:
        raise ValueError(f"window must be below train_len = {train_len}; got {window}")
    return (train_len - window) * group + window


def _check_chunks(chunk_size: int, local_size: int) -> tuple[int, int]:
    chunk_size = check_count(chunk_size, "chunk_size", minimum=2)
    local_size = check_count(local_size, "local_size", minimum=0)
    if local_size >= chunk_size:
        raise ValueError(
            f"local_size must be in [0, chunk_size - 1] = [0, {chunk_size - 1}]; got {local_size}"
        )
    return chunk_size, local_size


def dca_relative(m: Any, n: Any, chunk_size: int, local_size: int) -> Any:
    r"""Dual Chunk Attention as vLLM tabulates it: with :math:`c = s - l`, the key at
    :math:`n \bmod c` and the query at :math:`m \bmod c` (same chunk),
    :math:`\min(m \bmod c + c, s)` (next chunk) or :math:`\min(2c - 1, s)` (farther)."""
    chunk_size, local_size = _check_chunks(chunk_size, local_size)
    m_arr, n_arr = _pairs(m, n)
    c = chunk_size - local_size
    apart = m_arr // c - n_arr // c
    query = np.where(
        apart == 0,
        m_arr % c,
        np.where(apart == 1, np.minimum(m_arr % c + c, chunk_size), min(2 * c - 1, chunk_size)),
    )
    return _out(query - n_arr % c)


def string_relative(m: Any, n: Any, shift: int, local: int) -> Any:
    """STRING (An et al., 2024): :math:`m - n` below the shift *S*, else :math:`m - n - S + W`."""
    shift = check_count(shift, "shift")
    local = check_count(local, "local", minimum=0)
    if local > shift:
        raise ValueError(f"local must be in [0, shift] = [0, {shift}]; got {local}")
    m_arr, n_arr = _pairs(m, n)
    distance = m_arr - n_arr
    return _out(np.where(distance >= shift, distance - shift + local, distance))


def relative_positions(method: str, m: Any, n: Any, **params: int) -> Any:
    """The relative position ``method`` (one of :data:`METHODS`) gives the score of (m, n).

    ``params``: ``window`` (ReRoPE), ``group`` and ``window`` (Self-Extend), ``chunk_size``
    and ``local_size`` (DCA), ``shift`` and ``local`` (STRING); others are ignored.
    """
    if method == "RoPE":
        return rope_relative(m, n)
    if method == "ReRoPE":
        return rerope_relative(m, n, params["window"])
    if method == "Self-Extend":
        return self_extend_relative(m, n, params["group"], params["window"])
    if method == "DCA":
        return dca_relative(m, n, params["chunk_size"], params["local_size"])
    if method == "STRING":
        return string_relative(m, n, params["shift"], params["local"])
    raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")


def max_relative(method: str, length: int, **params: int) -> int:
    """The largest relative position any score sees on an input of ``length`` tokens
    (queries and keys at 0 to ``length - 1``), in closed form."""
    length = check_count(length, "length")
    top = length - 1  # plain RoPE's largest distance
    if method == "RoPE":
        return top
    if method == "ReRoPE":
        return min(top, check_count(params["window"], "window"))
    if method == "Self-Extend":
        group = check_count(params["group"], "group")
        window = check_count(params["window"], "window")
        if top < window:
            return top
        return max(window - 1, top // group + window - window // group)
    if method == "DCA":
        chunk_size, local_size = _check_chunks(params["chunk_size"], params["local_size"])
        c = chunk_size - local_size
        chunks = top // c  # the chunk of the last query
        if chunks == 0:
            return top
        if chunks == 1:  # the next-chunk rule only; best key at the start of chunk 0
            return max(c - 1, min(top % c + c, chunk_size))
        return max(c - 1, min(2 * c - 1, chunk_size))
    if method == "STRING":
        shift = check_count(params["shift"], "shift")
        local = check_count(params["local"], "local", minimum=0)
        if top < shift:
            return top
        return max(shift - 1, top - shift + local)
    raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")


def sample_positions(length: int, points: int) -> np.ndarray:
    """``points`` positions from 0 to ``length - 1``, evenly spaced, rounded half down."""
    return np.floor(np.linspace(0, length - 1, points) + 0.5 - 1e-9).astype(np.int64)


def relative_map(method: str, length: int, points: int = 40, **params: int) -> np.ndarray:
    """``points x points`` samples of the map: row *i* is the query at the *i*-th grid
    position, column *j* the key; entries above the diagonal (keys after the query) are -1."""
    length = check_count(length, "length", minimum=2)
    points = check_count(points, "points", minimum=2)
    grid = sample_positions(length, points)
    m, n = np.meshgrid(grid, grid, indexing="ij")
    causal = n <= m
    out = np.full(m.shape, -1, dtype=np.int64)
    out[causal] = relative_positions(method, m[causal], n[causal], **params)
    return out


def remapping_data(
    method: str,
    length: int,
    train_len: int,
    window: int,
    group: int,
    *,
    points: int = 40,
    row_points: int = 161,
) -> dict[str, Any]:
    """The explorable of chapter 10: the map on a ``points x points`` grid, the relative
    position the last query gives each of ``row_points`` keys, and the largest one.

    The controls map onto each method: ReRoPE's window and Self-Extend's neighbour window
    are ``window``; Self-Extend's group is ``group``; DCA uses the chunk size
    ``train_len`` and the local size ``window`` (Qwen2.5-1M's choice: the chunk is the
    training length); STRING shifts by ``int(0.33 * train_len)`` with the local value
    ``min(window, shift)`` (STRING's README uses 128).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    length = check_count(length, "length", minimum=2)
    train_len = check_count(train_len, "train_len", minimum=2)
    window = min(check_count(window, "window"), train_len - 1)
    group = check_count(group, "group")
    shift = max(1, int(0.33 * train_len))
    params = {
        "window": window,
        "group": group,
        "chunk_size": train_len,
        "local_size": window,
        "shift": shift,
        "local": min(window, shift),
    }
    keys = sample_positions(length, row_points)
    last = np.full_like(keys, length - 1)
    row = np.asarray(relative_positions(method, last, keys, **params), dtype=np.int64)
    largest = max_relative(method, length, **params)
    return {
        "method": method,
        "length": length,
        "train_len": train_len,
        "window": window,
        "group": group,
        "shift": shift,
        "grid": sample_positions(length, points),
        "relative": relative_map(method, length, points, **params),
        "keys": keys,
        "row": row,
        "max_relative": largest,
        "within": bool(largest < train_len),
        "self_extend_max_length": (train_len - window) * group + window,
    }
