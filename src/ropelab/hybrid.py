r"""Hybrid stacks: layers with RoPE and layers without any position encoding (NoPE; chapter 9).

A decoder with causal attention can learn positions without any position encoding
(Haviv et al., 2022; Kazemnejad et al., 2023): the causal mask alone tells a query how
many keys it sees. The simplest signal is uniform attention, which averages the values of
the :math:`t + 1` visible tokens; a value that only the first token carries then comes out
as :math:`1/(t + 1)`, a function of the absolute position (:func:`nope_position_signal`).

Recent models mix the two kinds of layer:

* **Llama 4** ("iRoPE"): three layers of every four use RoPE inside *chunked* attention
  (a query sees only the keys of its own chunk of 8192 tokens); every fourth layer has no
  RoPE and attends to the whole context. Those NoPE layers multiply their queries by a
  temperature that grows with the position *m* (0-based),

  .. math:: \tau(m) = 1 + 0.1\,\ln\!\Big(1 + \Big\lfloor \frac{m + 1}{8192} \Big\rfloor\Big),

  to keep the softmax from flattening over ever more keys (transformers'
  ``Llama4TextAttention``: ``attn_scales = log1p(floor((cache_position + 1) / floor_scale))
  * attn_scale + 1``, applied when ``attn_temperature_tuning`` and not ``use_rope``; the
  idea is Nakanishi's Scalable-Softmax, arXiv 2501.19399).
* **Cohere's Command R7B and Command A**: three sliding-window layers (window 4096) with
  RoPE, then one global layer without position embeddings (transformers' ``Cohere2``:
  ``sliding_window_pattern`` 4, RoPE applied only when the layer has a sliding window).

In both, every RoPE layer sees relative distances below its window or chunk, which fits in
the training length, so no RoPE plane ever meets an unseen angle; long-range retrieval is
left to the NoPE layers. :func:`layer_pattern` builds the stacks and :func:`llama4_temperature`
the temperature (one definition with :class:`ropelab.config_fields.QueryTemperature`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_count, check_finite_array, check_positive
from .config_fields import QueryTemperature

__all__ = [
    "DESIGNS",
    "LayerKind",
    "layer_pattern",
    "llama4_temperature",
    "max_rope_distance",
    "needle_weight",
    "nope_position_signal",
    "pattern_from_no_rope_layers",
]


@dataclass(frozen=True)
class LayerKind:
    """One layer of a hybrid stack.

    Attributes:
        rope: whether the layer rotates queries and keys.
        attention: ``"full"``, ``"chunked"`` or ``"sliding"``.
        span: the chunk or window size in tokens (``None`` for full attention).
    """

    rope: bool
    attention: str
    span: int | None

    def label(self) -> str:
        """``"RoPE, chunked 8192"``, ``"NoPE, full"``, ..."""
        kind = "RoPE" if self.rope else "NoPE"
        return f"{kind}, {self.attention}" + (f" {self.span}" if self.span else "")


#: The two released designs: the local attention of the RoPE layers, its span, and how
#: often a global NoPE layer comes (every ``period``-th layer, counting from 1).
DESIGNS: dict[str, dict[str, Any]] = {
    "llama4": {"attention": "chunked", "span": 8192, "period": 4},
    "command": {"attention": "sliding", "span": 4096, "period": 4},
}


def layer_pattern(
    n_layers: int, design: str = "llama4", *, period: int | None = None
) -> tuple[LayerKind, ...]:
    """The layers of a hybrid stack: layer ``i`` (0-based) is NoPE and global when ``(i + 1) % period == 0``.

    The rule of transformers' ``Llama4TextConfig`` (``no_rope_layer_interval`` 4) and
    ``Cohere2Config`` (``sliding_window_pattern`` 4). Chapter 9.

    Args:
        n_layers: number of layers (>= 1).
        design: ``"llama4"`` (RoPE layers chunked, 8192) or ``"command"`` (sliding, 4096).
        period: override the design's period (>= 1; 1 makes every layer NoPE).
    """
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {tuple(DESIGNS)}, got {design!r}")
    n_layers = check_count(n_layers, "n_layers")
    spec = DESIGNS[design]
    period = spec["period"] if period is None else check_count(period, "period")
    local = LayerKind(rope=True, attention=spec["attention"], span=spec["span"])
    glob = LayerKind(rope=False, attention="full", span=None)
    return tuple(glob if (i + 1) % period == 0 else local for i in range(n_layers))


def pattern_from_no_rope_layers(config: Mapping[str, Any]) -> tuple[LayerKind, ...]:
    """Read a Llama 4 config's ``no_rope_layers`` (1: RoPE, 0: NoPE) and ``attention_chunk_size``.

    A nested ``text_config`` is used when present, as in the released file
    (``ropelab.configs.load_config("llama-4-scout-17b-16e-instruct")``).
    """
    if not isinstance(config, Mapping):
        raise ValueError(f"config must be a mapping, got {type(config).__name__}")
    fields = config.get("text_config", config)
    flags = fields.get("no_rope_layers")
    if not isinstance(flags, Sequence) or not flags or any(f not in (0, 1) for f in flags):
        raise ValueError(f"config must have no_rope_layers, a list of 0 and 1, got {flags!r}")
    chunk = fields.get("attention_chunk_size")
    chunk = None if chunk is None else check_count(chunk, "attention_chunk_size")
    return tuple(
        LayerKind(rope=True, attention="chunked" if chunk else "full", span=chunk)
        if flag
        else LayerKind(rope=False, attention="full", span=None)
        for flag in flags
    )


def max_rope_distance(layers: Sequence[LayerKind]) -> int | None:
    """The largest relative distance any RoPE layer of the stack can see (``None``: unbounded).

    A chunk or window of *w* tokens holds distances up to ``w - 1``.
    """
    spans = [layer.span for layer in layers if layer.rope]
    if not spans:
        return 0
    if any(span is None for span in spans):
        return None
    return max(spans) - 1


def llama4_temperature(
    positions: Any, *, attn_scale: float = 0.1, floor_scale: int = 8192
) -> np.ndarray:
    r"""Llama 4's query temperature in its NoPE layers, :math:`1 + \beta\ln(1 + \lfloor (m+1)/L\rfloor)`.

    Args:
        positions: 0-based positions *m* (transformers' ``cache_position``), finite.
        attn_scale: :math:`\beta` > 0 (0.1 in the released config).
        floor_scale: *L* (8192 in the released config).

    Returns:
        float64 array shaped like ``positions``: 1 up to position 8190, 1.0693 from 8191.
    """
    positions = check_finite_array(positions, "positions")
    if np.any(positions < 0):
        raise ValueError(f"positions must be >= 0, got a minimum of {positions.min():g}")
    rule = QueryTemperature(
        source="attn_scale",
        beta=check_positive(attn_scale, "attn_scale"),
        length=check_count(floor_scale, "floor_scale"),
        offset=1,
        layers=(),
    )
    return rule.scale(positions)


def nope_position_signal(seq_len: int) -> np.ndarray:
    r"""What causal attention with equal scores extracts without any position encoding.

    Every query attends with the same logit to each of the :math:`t + 1` keys it can see
    (a softmax over a causal mask), and the value is 1 for the first token and 0 for the
    others. The output at position *t* is :math:`1/(t + 1)`: the absolute position, read
    from the mask alone (Kazemnejad et al., 2023, construct NoPE's position read-out this
    way). Computed by running the masked softmax, not from the formula.
    """
    seq_len = check_count(seq_len, "seq_len")
    logits = np.zeros((seq_len, seq_len))
    logits[np.triu_indices(seq_len, k=1)] = -np.inf  # causal mask
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    values = np.zeros(seq_len)
    values[0] = 1.0
    return weights @ values


def needle_weight(gap: Any, n_keys: Any, temperature: Any = 1.0) -> Any:
    r"""The softmax weight of one key whose logit exceeds that of ``n_keys - 1`` others by ``gap``.

    Multiplying the query by a temperature :math:`\tau` multiplies every logit, and so the
    gap, by :math:`\tau`:

    .. math:: w = \frac{e^{\tau g}}{e^{\tau g} + (n - 1)} = \frac{1}{1 + (n - 1)e^{-\tau g}} .

    With :math:`\tau = 1` the weight fades as the context grows; Llama 4's temperature
    (:func:`llama4_temperature`) slows that down (chapter 9).

    Args:
        gap: the logit gap *g* (finite; scalar or array).
        n_keys: the number of keys *n* >= 1 (scalar or array).
        temperature: :math:`\tau > 0` (scalar or array).
    """
    g = check_finite_array(gap, "gap")
    n = check_finite_array(n_keys, "n_keys")
    tau = check_finite_array(temperature, "temperature")
    if np.any(n < 1) or np.any(n != np.floor(n)):
        raise ValueError("n_keys must be integers >= 1")
    if np.any(tau <= 0):
        raise ValueError(f"temperature must be > 0, got a minimum of {tau.min():g}")
    weight = 1.0 / (1.0 + (n - 1.0) * np.exp(-tau * g))
    return weight[()] if weight.ndim == 0 else weight
