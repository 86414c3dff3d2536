r"""What the pinned transformers (5.23.0) does with RoPE, measured on tiny models (chapter 8).

Every function here builds a small model or module of transformers from a config written in
code (2 layers, hidden size 32, seeded random weights: nothing is downloaded), runs it, and
returns the evidence as numbers. Chapter 8, chapter 3A and the cheat sheet print it next to
each sentence that says what transformers does, and ``tests/test_hf_behaviour.py`` fails if
a future version behaves differently. The behaviours:

* **bfloat16 buffers** (:func:`cast_cos_errors`): ``model.to(torch.bfloat16)`` casts every
  floating buffer, ``inv_freq`` of the rotary embedding included, and the angles
  :math:`m\,\theta_i` are then formed from frequencies rounded to 8 significant bits.
  Loading with ``dtype=torch.bfloat16`` (``from_config``/``from_pretrained``) keeps them in
  float32. :func:`restore_float32_inv_freq` recomputes every one of them after a cast, one
  pair per layer type where the model has them (Gemma 3, :func:`restore_check`).
* **Packed rows** (:func:`packed_row_gaps`): with no attention mask and no cache, a reset of
  ``position_ids`` (a step other than +1) starts a new document in the mask transformers
  builds for eager and sdpa attention (``find_packed_sequence_indices`` in
  ``masking_utils``, transformers pull request 39194).
* **Default position ids** (:func:`position_ids_seen`): the model's ``forward`` numbers the
  tokens ``0 .. T-1`` (plus the cache length) whatever the padding mask says; ``generate``
  derives them from the mask.
* **The batch decides** (:func:`batch_neighbour_gap`, :func:`cache_gaps`,
  :func:`generate_cache_gaps`): ``dynamic`` and ``longrope`` read the largest position id of
  the whole batch; LongRoPE's switch from its short to its long factors breaks a KV cache as
  dynamic NTK does, in a hand-written decoding loop and under a Llama's ``generate``, but
  not under the ``generate`` of Phi-3 (and PhiMoE, Phi-4-multimodal), which drops the cache
  and runs the whole prefix again at the switch.
* **Layouts by family** (:func:`family_pairings`, :func:`rotate_half_outputs`): which
  coordinates each family's rotary function turns together, found by rotating basis vectors.
* **Config keys** (:func:`yarn_config_errors`, :func:`dynamic_reference_length`,
  :func:`phi3_original_lengths`): what the strict config classes accept, and which original
  length a rope type ends up with.

transformers, torch and the models are imported inside the functions, so ``import ropelab``
stays light.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_base, check_count, check_dim, check_positive

__all__ = [
    "FAMILIES",
    "TINY_LONGROPE",
    "CastErrors",
    "batch_neighbour_gap",
    "cache_gaps",
    "cast_cos_errors",
    "dynamic_reference_length",
    "family_pairings",
    "generate_cache_gaps",
    "layout_of",
    "packed_row_gaps",
    "phi3_original_lengths",
    "position_ids_seen",
    "restore_check",
    "restore_float32_inv_freq",
    "rotate_half_outputs",
    "tiny_gemma3",
    "tiny_llama",
    "tiny_phi3",
    "yarn_config_errors",
]


def tiny_llama(
    *,
    rope_parameters: dict[str, Any] | None = None,
    max_position_embeddings: int = 2048,
    num_layers: int = 2,
    seed: int = 0,
    initializer_range: float = 0.3,
    attn_implementation: str = "eager",
) -> Any:
    """A ``LlamaForCausalLM`` of 2 layers, hidden 32, 4 query and 2 key/value heads of 8,
    vocabulary 48, float32, eager attention (or ``attn_implementation``), weights drawn with
    ``torch.manual_seed(seed)`` at standard deviation ``initializer_range`` (0.3, not transformers' 0.02, so that the
    scores, and what changes them, are of order 1), in eval mode. transformers' log messages
    below errors are silenced while it is built."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    check_count(num_layers, "num_layers")
    with quiet_transformers():
        config = LlamaConfig(
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=num_layers,
            num_attention_heads=4,
            num_key_value_heads=2,
            vocab_size=48,
            max_position_embeddings=check_count(max_position_embeddings, "max_position_embeddings"),
            rope_parameters=rope_parameters or {"rope_type": "default", "rope_theta": 10000.0},
            attn_implementation=attn_implementation,
            initializer_range=check_positive(initializer_range, "initializer_range"),
        )
    torch.manual_seed(seed)
    return LlamaForCausalLM(config).eval()


@contextlib.contextmanager
def quiet_transformers() -> Any:
    """transformers' log messages below errors are dropped inside the block."""
    from transformers.utils import logging as hf_logging

    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(level)


# --- bfloat16 buffers -----------------------------------------------------------------------


@dataclass(frozen=True)
class CastErrors:
    """Largest |cos error| over the planes, per position, of a Llama rotary embedding
    against float64 angles from float64 frequencies."""

    positions: np.ndarray
    inv_freq_dtype: str  #: the dtype of ``inv_freq`` after the model was made
    cos_error: np.ndarray  #: one per position


def _rotary_module(config: Any) -> Any:
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    return LlamaRotaryEmbedding(config)


def cast_cos_errors(
    positions: Sequence[int],
    *,
    base: float = 500000.0,
    head_dim: int = 128,
    how: str = "to",
) -> CastErrors:
    r"""The cos table of ``LlamaRotaryEmbedding`` in bfloat16, made in one of three ways.

    ``how``: ``"to"`` builds the model in float32 and calls ``model.to(torch.bfloat16)``
    (``.to`` casts buffers, so ``inv_freq`` becomes bfloat16); ``"dtype"`` builds it with
    ``from_config(config, dtype=torch.bfloat16)`` (the buffer is made in float32 and stays
    so); ``"fixed"`` casts with ``.to`` and then calls :func:`restore_float32_inv_freq`.

    The error is :math:`\max_i |\widehat{\cos}(m\theta_i) - \cos(m\theta_i)|` with
    :math:`\theta_i = \beta^{-2i/d}` and :math:`m\theta_i` in float64 (chapter 3A).
    """
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig

    if how not in ("to", "dtype", "fixed"):
        raise ValueError(f"how must be one of 'to', 'dtype', 'fixed', got {how!r}")
    head_dim = check_dim(head_dim, "head_dim")
    base = check_base(base)
    pos = np.asarray(positions)
    if pos.ndim != 1 or pos.size == 0 or np.any(pos < 0) or np.any(pos != np.round(pos)):
        raise ValueError(f"positions must be non-negative integers, got {positions!r}")
    config = LlamaConfig(
        hidden_size=2 * head_dim,
        intermediate_size=8,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        vocab_size=8,
        head_dim=head_dim,
        rope_parameters={"rope_type": "default", "rope_theta": base},
    )
    torch.manual_seed(0)
    if how == "dtype":
        model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    else:
        model = AutoModelForCausalLM.from_config(config).to(torch.bfloat16)
        if how == "fixed":
            restore_float32_inv_freq(model)
    rotary = model.model.rotary_emb
    x = torch.zeros(1, 1, dtype=torch.bfloat16)
    with torch.no_grad():
        cos, _ = rotary(x, torch.as_tensor(pos, dtype=torch.long)[None])
    theta = base ** (-np.arange(0, head_dim, 2) / head_dim)
    exact = np.cos(pos[:, None].astype(np.float64) * theta)
    exact = np.concatenate([exact, exact], axis=1)
    error = np.abs(cos[0].double().numpy() - exact).max(axis=1)
    return CastErrors(pos, str(rotary.inv_freq.dtype).replace("torch.", ""), error)


def _rope_init(module: Any, rope_type: str) -> Callable[..., Any]:
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    if rope_type == "default":
        return module.compute_default_rope_parameters
    if rope_type not in ROPE_INIT_FUNCTIONS:
        raise ValueError(f"rope type {rope_type!r} has no initialisation function in transformers")
    return ROPE_INIT_FUNCTIONS[rope_type]


def _recomputed_inv_freq(name: str, module: Any) -> dict[str, Any]:
    """Buffer name -> float32 frequencies recomputed from the config, for the ``*inv_freq``
    buffers of one module: ``inv_freq``/``original_inv_freq`` of a module with one rope
    type, ``<layer type>_inv_freq``/``<layer type>_original_inv_freq`` of one with a rope
    type per layer type (``rope_type`` a dict, as Gemma 3's)."""
    buffers = [b for b, _ in module.named_buffers(recurse=False) if b.endswith("inv_freq")]
    if not buffers:
        return {}
    rope_type = getattr(module, "rope_type", None)
    config = getattr(module, "config", None)
    if config is None or not isinstance(rope_type, str | dict):
        raise ValueError(
            f"{name or 'model'} holds {', '.join(buffers)} but no config and rope_type to "
            "recompute them from (not a transformers 5 rotary embedding of a language model)"
        )
    device = getattr(module, buffers[0]).device
    if isinstance(rope_type, str):
        types: dict[str | None, str] = {None: rope_type}
    else:
        types = dict(rope_type)
    found: dict[str, Any] = {}
    for layer_type, kind in types.items():
        prefix = "" if layer_type is None else f"{layer_type}_"
        extra = {} if layer_type is None else {"layer_type": layer_type}
        inv_freq, _ = _rope_init(module, kind)(config, **extra)
        inv_freq = inv_freq.to(device)
        for buffer in (f"{prefix}inv_freq", f"{prefix}original_inv_freq"):
            if buffer in buffers:
                found[buffer] = inv_freq.float().clone()
    missing = sorted(set(buffers) - set(found))
    if missing:
        raise ValueError(
            f"{name or 'model'}: no rope type in its rope_type {rope_type!r} recomputes "
            f"{', '.join(missing)}"
        )
    return found


def restore_float32_inv_freq(model: Any) -> list[str]:
    """Recompute in float32, from the config, every rotary inverse-frequency buffer of
    ``model`` after a cast such as ``model.to(torch.bfloat16)``, ``.half()`` or
    ``.bfloat16()`` (which round them to the model's dtype; chapter 3A, chapter 8).

    Every buffer whose name ends in ``inv_freq`` is covered, in any of transformers 5's
    layouts: ``inv_freq`` and ``original_inv_freq`` of a rotary embedding with one rope type
    (Llama, Qwen, Phi-3 and most models; one module per layer or per layer type, as
    Granite's sliding-window models, is handled module by module), and
    ``<layer type>_inv_freq``, ``<layer type>_original_inv_freq`` of one with a rope type
    per layer type (Gemma 3's ``sliding_attention`` and ``full_attention``), each from its
    own layer type's parameters through transformers' own initialisation function
    (``compute_default_rope_parameters`` or ``ROPE_INIT_FUNCTIONS``). A dynamic rope type
    goes back to its frequencies of the original length (``max_seq_len_cached`` too), as at
    construction; it recomputes them again at the next longer input.

    Returns the restored buffers' qualified names. Raises ``ValueError`` naming the problem
    when the model has no such buffer, or when a module holds one but no ``config`` and
    ``rope_type`` to recompute it from (a vision encoder's rotary embedding, for one); it
    raises before changing anything.
    """
    plans = []
    for name, module in model.named_modules():
        found = _recomputed_inv_freq(name, module)
        if found:
            plans.append((name, module, found))
    if not plans:
        raise ValueError(
            "model has no rotary inverse-frequency buffer (no buffer named *inv_freq): "
            "nothing to restore"
        )
    restored = []
    for name, module, found in plans:
        for buffer, values in found.items():
            module.register_buffer(buffer, values, persistent=False)
            restored.append(f"{name}.{buffer}" if name else buffer)
        original = getattr(module, "original_max_seq_len", None)
        if original is not None:
            for attribute in dir(module):
                if attribute.endswith("max_seq_len_cached"):
                    setattr(module, attribute, original)
    return restored


# --- packed rows ----------------------------------------------------------------------------


def _document_mask_4d(lengths: Sequence[int]) -> Any:
    import torch

    doc = torch.repeat_interleave(torch.arange(len(lengths)), torch.as_tensor(lengths))
    n = int(doc.numel())
    causal = torch.arange(n)[:, None] >= torch.arange(n)[None, :]
    allowed = (doc[:, None] == doc[None, :]) & causal
    return torch.where(allowed, 0.0, torch.finfo(torch.float32).min)[None, None]


#: The ways chapter 8 feeds one packed row to transformers: position ids, attention mask
#: (``None``, a 2D mask of ones, or the 4D document mask) and ``use_cache``.
PACKING_VARIANTS: dict[str, tuple[str, str, bool]] = {
    "reset ids, no mask, no cache": ("reset", "none", False),
    "reset ids, no mask, use_cache=True": ("reset", "none", True),
    "reset ids, 2D mask of ones": ("reset", "ones", False),
    "running ids, no mask": ("running", "none", False),
    "running ids, 4D document mask": ("running", "document", False),
}


def packed_row_gaps(
    lengths: Sequence[int] = (4, 7, 3, 6), seed: int = 1, attn_implementation: str = "eager"
) -> dict[str, np.ndarray]:
    """Largest |logit difference| per document between one packed row and each document run
    alone, through a tiny Llama (:func:`tiny_llama`) with the given attention implementation
    (``"eager"`` or ``"sdpa"`` on a CPU), for each of :data:`PACKING_VARIANTS`.

    Tokens are drawn with ``torch.Generator().manual_seed(seed)``. Float32: a document that
    is kept apart shows a gap of about 1e-7, one that sees its neighbours one of about 0.1.
    """
    import torch

    lengths = [check_count(n, "lengths") for n in lengths]
    if attn_implementation not in ("eager", "sdpa"):
        raise ValueError(
            f"attn_implementation must be 'eager' or 'sdpa', got {attn_implementation!r}"
        )
    model = tiny_llama(attn_implementation=attn_implementation)
    generator = torch.Generator().manual_seed(seed)
    docs = [torch.randint(0, 48, (n,), generator=generator) for n in lengths]
    row = torch.cat(docs)[None]
    total = row.shape[1]
    reset = torch.cat([torch.arange(n) for n in lengths])[None]
    running = torch.arange(total)[None]
    masks = {
        "none": None,
        "ones": torch.ones(1, total, dtype=torch.long),
        "document": _document_mask_4d(lengths),
    }
    starts = np.cumsum([0, *lengths])
    gaps = {}
    with torch.no_grad():
        alone = torch.cat([model(d[None], use_cache=False).logits[0] for d in docs])
        for label, (ids, mask, use_cache) in PACKING_VARIANTS.items():
            logits = model(
                row,
                position_ids=reset if ids == "reset" else running,
                attention_mask=masks[mask],
                use_cache=use_cache,
            ).logits[0]
            diff = (logits - alone).abs().amax(dim=-1).numpy()
            gaps[label] = np.array([diff[a:b].max() for a, b in itertools.pairwise(starts)])
    return gaps


def packed_sequence_indices(position_ids: Sequence[int]) -> list[int] | None:
    """transformers' document numbering of one row of position ids (``None``: one document)."""
    import torch
    from transformers.masking_utils import find_packed_sequence_indices

    found = find_packed_sequence_indices(torch.as_tensor([list(position_ids)]))
    return None if found is None else found[0].tolist()


# --- position ids ---------------------------------------------------------------------------


def position_ids_seen(
    input_ids: Sequence[Sequence[int]],
    attention_mask: Sequence[Sequence[int]],
    *,
    generate: bool,
    new_tokens: int = 2,
) -> list[list[list[int]]]:
    """The position ids the rotary embedding of a tiny Llama receives, call by call.

    ``generate=False``: one ``model(input_ids, attention_mask=...)`` call, no ``position_ids``
    given. ``generate=True``: ``model.generate`` (greedy, ``new_tokens`` tokens, pad id 0),
    which runs one forward per step. Returns one ``[batch][position]`` list per call.
    """
    import torch

    model = tiny_llama()
    seen: list[list[list[int]]] = []

    def hook(module: Any, args: Any, kwargs: Any, output: Any) -> None:
        seen.append(kwargs["position_ids"].tolist())

    handle = model.model.rotary_emb.register_forward_hook(hook, with_kwargs=True)
    ids = torch.as_tensor(input_ids)
    mask = torch.as_tensor(attention_mask)
    try:
        with torch.no_grad():
            if generate:
                model.generation_config.pad_token_id = 0
                model.generate(ids, attention_mask=mask, max_new_tokens=new_tokens, do_sample=False)
            else:
                model(ids, attention_mask=mask)
    finally:
        handle.remove()
    return seen


# --- the batch decides ----------------------------------------------------------------------


def _left_padded_batch(rows: Sequence[Any]) -> tuple[Any, Any, Any]:
    import torch

    width = max(len(r) for r in rows)
    ids = torch.zeros(len(rows), width, dtype=torch.long)
    mask = torch.zeros(len(rows), width, dtype=torch.long)
    for b, r in enumerate(rows):
        ids[b, width - len(r) :] = r
        mask[b, width - len(r) :] = 1
    position_ids = (mask.cumsum(-1) - 1).clamp(min=0)
    return ids, mask, position_ids


def batch_neighbour_gap(
    rope_parameters: dict[str, Any],
    max_position_embeddings: int,
    short: int = 6,
    long: int = 40,
    seed: int = 2,
) -> float:
    """Largest |logit difference| of a ``short``-token prompt run alone and the same prompt
    in a left-padded batch beside a ``long``-token one (position ids from the mask, as
    ``generate`` makes them), through a tiny Llama with the given rope parameters. A fresh
    model for each run, so no frequencies carry over from one call to the next."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    prompt = torch.randint(1, 48, (check_count(short, "short"),), generator=generator)
    other = torch.randint(1, 48, (check_count(long, "long"),), generator=generator)
    with torch.no_grad():
        model = tiny_llama(
            rope_parameters=rope_parameters, max_position_embeddings=max_position_embeddings
        )
        alone = model(prompt[None], use_cache=False).logits[0]
        model = tiny_llama(
            rope_parameters=rope_parameters, max_position_embeddings=max_position_embeddings
        )
        ids, mask, position_ids = _left_padded_batch([prompt, other])
        batch = model(ids, attention_mask=mask, position_ids=position_ids, use_cache=False).logits[
            0, -short:
        ]
    return float((batch - alone).abs().max())


def cache_gaps(
    rope_parameters: dict[str, Any],
    max_position_embeddings: int,
    prompt: int = 6,
    total: int = 40,
    seed: int = 1,
) -> np.ndarray:
    """Largest |logit difference|, step by step, between decoding with transformers'
    ``DynamicCache`` (a ``prompt``-token prefill, then one token per call) and running the
    whole prefix again at each length, through a tiny Llama. Entry *j* is the step that
    ends at length ``prompt + j``."""
    import torch
    from transformers import DynamicCache

    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, 48, (check_count(total, "total"),), generator=generator)
    prompt = check_count(prompt, "prompt")
    if prompt > total:
        raise ValueError(f"prompt must be <= total ({total}), got {prompt}")
    gaps = []
    with torch.no_grad():
        cached_model = tiny_llama(
            rope_parameters=rope_parameters, max_position_embeddings=max_position_embeddings
        )
        full_model = tiny_llama(
            rope_parameters=rope_parameters, max_position_embeddings=max_position_embeddings
        )
        cache = DynamicCache(config=cached_model.config)
        out = cached_model(tokens[None, :prompt], past_key_values=cache, use_cache=True)
        steps = [out.logits[0, -1]]
        for n in range(prompt, total):
            out = cached_model(tokens[None, n : n + 1], past_key_values=cache, use_cache=True)
            steps.append(out.logits[0, -1])
        for j, length in enumerate(range(prompt, total + 1)):
            full = full_model(tokens[None, :length], use_cache=False).logits[0, -1]
            gaps.append(float((steps[j] - full).abs().max()))
    return np.array(gaps)


def tiny_phi3(
    *,
    rope_parameters: dict[str, Any],
    max_position_embeddings: int,
    original_max_position_embeddings: int,
    seed: int = 0,
) -> Any:
    """A ``Phi3ForCausalLM`` of the size of :func:`tiny_llama` (2 layers, hidden 32, 4 query and
    2 key/value heads of 8, vocabulary 48, float32, eager attention, standard deviation 0.3,
    ``torch.manual_seed(seed)``), in eval mode. ``original_max_position_embeddings`` is given
    at the top level, where ``Phi3Config`` keeps it (:func:`phi3_original_lengths`)."""
    import torch
    from transformers import Phi3Config, Phi3ForCausalLM

    with quiet_transformers():
        config = Phi3Config(
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            vocab_size=48,
            pad_token_id=0,
            bos_token_id=1,
            eos_token_id=2,
            max_position_embeddings=check_count(max_position_embeddings, "max_position_embeddings"),
            original_max_position_embeddings=check_count(
                original_max_position_embeddings, "original_max_position_embeddings"
            ),
            rope_parameters=rope_parameters,
            attn_implementation="eager",
            initializer_range=0.3,
        )
    torch.manual_seed(seed)
    return Phi3ForCausalLM(config).eval()


#: LongRoPE parameters of the chapter-8 demonstrations: a head of 8 (4 planes), original
#: length 16, the long factors stretching the slow planes.
TINY_LONGROPE = {
    "rope_type": "longrope",
    "rope_theta": 10000.0,
    "short_factor": [1.0, 1.0, 1.0, 1.0],
    "long_factor": [1.0, 2.0, 4.0, 8.0],
    "original_max_position_embeddings": 16,
}


def generate_cache_gaps(family: str, prompt: int = 6, total: int = 40, seed: int = 1) -> np.ndarray:
    """Largest |logit difference|, step by step, between ``generate`` (greedy, with its KV
    cache, ``output_logits=True``) and the same prefixes run again without a cache, for a
    tiny model with LongRoPE over an original length of 16 (:data:`TINY_LONGROPE`, declared
    length 64). ``family``: ``"phi3"`` (:func:`tiny_phi3`, whose ``generate`` drops the cache
    and runs the whole prefix again when the length first passes the original one) or
    ``"llama"`` (:func:`tiny_llama` given the same ``longrope`` block: no such step). Entry
    *j* is the token chosen at length ``prompt + j``, ``total - prompt`` entries."""
    import torch

    prompt = check_count(prompt, "prompt")
    total = check_count(total, "total")
    if prompt >= total:
        raise ValueError(f"prompt must be < total ({total}), got {prompt}")
    if family == "phi3":
        model = tiny_phi3(
            rope_parameters=dict(TINY_LONGROPE),
            max_position_embeddings=64,
            original_max_position_embeddings=16,
        )
    elif family == "llama":
        model = tiny_llama(rope_parameters=dict(TINY_LONGROPE), max_position_embeddings=64)
    else:
        raise ValueError(f"family must be 'phi3' or 'llama', got {family!r}")
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(3, 48, (1, prompt), generator=generator)
    with torch.no_grad(), quiet_transformers():
        out = model.generate(
            tokens,
            attention_mask=torch.ones_like(tokens),
            max_new_tokens=total - prompt,
            min_new_tokens=total - prompt,
            do_sample=False,
            pad_token_id=0,
            output_logits=True,
            return_dict_in_generate=True,
        )
        sequence = out.sequences[0]
        gaps = []
        for j, step_logits in enumerate(out.logits):
            length = prompt + j
            full = model(sequence[None, :length], use_cache=False).logits[0, -1]
            gaps.append(float((step_logits[0] - full).abs().max()))
    return np.array(gaps)


# --- config lengths -------------------------------------------------------------------------


def dynamic_reference_length(
    max_position_embeddings: int = 16, original: int = 8, head_dim: int = 8
) -> tuple[int, list[str]]:
    """Where transformers' ``dynamic`` rope type starts raising its base, for a ``LlamaConfig``
    whose rope block also holds ``original_max_position_embeddings`` (``original``) besides
    ``max_position_embeddings``: the first length whose frequencies (from
    ``ROPE_INIT_FUNCTIONS["dynamic"]`` at that length) differ from those at length 1, and
    the warnings logged when the config was built."""
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    head_dim = check_dim(head_dim, "head_dim")
    declared = check_count(max_position_embeddings, "max_position_embeddings")
    params = {
        "rope_type": "dynamic",
        "rope_theta": 10000.0,
        "factor": 4.0,
        "original_max_position_embeddings": check_count(original, "original"),
    }
    config, logged = logged_warnings(
        lambda: LlamaConfig(
            hidden_size=2 * head_dim,
            num_attention_heads=2,
            max_position_embeddings=declared,
            rope_parameters=params,
        )
    )
    init = ROPE_INIT_FUNCTIONS["dynamic"]
    start, _ = init(config, "cpu", seq_len=1)
    length = 1
    while length < 4 * max(declared, original):
        length += 1
        inv_freq, _ = init(config, "cpu", seq_len=length)
        if not bool((inv_freq == start).all()):
            return length, logged
    raise RuntimeError("the dynamic frequencies never moved")


def phi3_original_lengths() -> dict[str, int]:
    """The original length LongRoPE uses in ``Phi3Config`` (``rope_parameters
    ["original_max_position_embeddings"]`` after the config is built; declared length
    131,072), for the original length given at the top level, inside the rope block only,
    or nowhere."""
    from transformers import Phi3Config

    params = {
        "rope_type": "longrope",
        "rope_theta": 10000.0,
        "short_factor": [1.0] * 4,
        "long_factor": [1.0] * 4,
    }
    cases = {
        "top level 8,192": ({"original_max_position_embeddings": 8192}, {}),
        "rope block only 8,192": ({}, {"original_max_position_embeddings": 8192}),
        "given nowhere": ({}, {}),
    }
    found = {}
    for label, (top, block) in cases.items():
        with quiet_transformers():
            config = Phi3Config(
                hidden_size=32,
                num_attention_heads=4,
                max_position_embeddings=131072,
                rope_parameters={**params, **block},
                **top,
            )
        found[label] = int(config.rope_parameters["original_max_position_embeddings"])
    return found


# --- restoring float32 frequencies ----------------------------------------------------------


def tiny_gemma3(seed: int = 0) -> Any:
    """A ``Gemma3ForCausalLM`` of 2 layers (one ``sliding_attention``, window 4, base 10,000;
    one ``full_attention``, base 1,000,000), hidden 32, 4 query and 2 key/value heads of 8,
    vocabulary 48, float32, eager attention, ``torch.manual_seed(seed)``, in eval mode. Its
    rotary embedding holds one pair of buffers per layer type."""
    import torch
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    with quiet_transformers():
        config = Gemma3TextConfig(
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            head_dim=8,
            vocab_size=48,
            pad_token_id=0,
            bos_token_id=1,
            eos_token_id=2,
            sliding_window=4,
            layer_types=["sliding_attention", "full_attention"],
            attn_implementation="eager",
        )
    torch.manual_seed(seed)
    return Gemma3ForCausalLM(config).eval()


def restore_check(family: str) -> dict[str, tuple[str, str, float]]:
    """What :func:`restore_float32_inv_freq` does to a tiny ``"llama"`` (:func:`tiny_llama`)
    or ``"gemma3"`` (:func:`tiny_gemma3`) cast with ``model.to(torch.bfloat16)``: for each
    ``*inv_freq`` buffer, its dtype after the cast, its dtype after the restore and the
    largest |difference| from the same buffer of a fresh float32 model."""
    import torch

    makers = {"llama": tiny_llama, "gemma3": tiny_gemma3}
    if family not in makers:
        raise ValueError(f"family must be one of {sorted(makers)}, got {family!r}")
    fresh = dict(makers[family]().named_buffers())
    model = makers[family]().to(torch.bfloat16)
    cast = {n: str(b.dtype).replace("torch.", "") for n, b in model.named_buffers()}
    restore_float32_inv_freq(model)
    found = {}
    for name, buffer in model.named_buffers():
        if name.endswith("inv_freq"):
            gap = float((buffer.double() - fresh[name].double()).abs().max())
            found[name] = (cast[name], str(buffer.dtype).replace("torch.", ""), gap)
    return found


# --- layouts by family ----------------------------------------------------------------------


def _apply_half(module: Any, cos: Any, sin: Any, x: Any) -> Any:
    q, _ = module.apply_rotary_pos_emb(x, x, cos, sin)
    return q


def _family_rotations(head_dim: int) -> dict[str, Callable[[Any, Any], Any]]:
    """Family name -> ``rotate(x, position_ids)``, ``x`` of shape (1, 1, T, head_dim), built
    from that family's own rotary embedding class and apply function in transformers."""
    import transformers.models.cohere.modeling_cohere as cohere
    import transformers.models.deepseek_v2.modeling_deepseek_v2 as ds2
    import transformers.models.deepseek_v3.modeling_deepseek_v3 as ds3
    import transformers.models.gemma3.modeling_gemma3 as gemma3
    import transformers.models.glm.modeling_glm as glm
    import transformers.models.gpt_neox.modeling_gpt_neox as neox
    import transformers.models.gptj.modeling_gptj as gptj
    import transformers.models.llama.modeling_llama as llama
    import transformers.models.llama4.modeling_llama4 as llama4
    import transformers.models.qwen2.modeling_qwen2 as qwen2
    from transformers import (
        CohereConfig,
        DeepseekV2Config,
        DeepseekV3Config,
        Gemma3TextConfig,
        GlmConfig,
        GPTNeoXConfig,
        Llama4TextConfig,
        LlamaConfig,
        Qwen2Config,
    )

    d = head_dim
    common = {"hidden_size": 2 * d, "num_attention_heads": 2, "head_dim": d}

    def half(module: Any, rotary: Any) -> Callable[[Any, Any], Any]:
        def rotate(x: Any, pos: Any) -> Any:
            cos, sin = rotary(x, pos)
            return _apply_half(module, cos, sin, x)

        return rotate

    def gemma(x: Any, pos: Any) -> Any:
        cos, sin = gemma_rotary(x, pos, "full_attention")
        return _apply_half(gemma3, cos, sin, x)

    def gpt_j(x: Any, pos: Any) -> Any:
        table = gptj.create_sinusoidal_positions(int(pos.max()) + 1, d)
        sin, cos = table[pos].split(d // 2, dim=-1)
        return gptj.apply_rotary_pos_emb(x.transpose(1, 2), sin, cos).transpose(1, 2)

    def complex_form(module: Any, rotary: Any, heads_axis: int) -> Callable[[Any, Any], Any]:
        def rotate(x: Any, pos: Any) -> Any:
            freqs = rotary(x, pos)
            y = x if heads_axis == 1 else x.transpose(1, 2)
            q, _ = module.apply_rotary_emb(y, y, freqs)
            return q if heads_axis == 1 else q.transpose(1, 2)

        return rotate

    def deepseek_v3(interleave: bool) -> Callable[[Any, Any], Any]:
        config = DeepseekV3Config(
            **common, qk_rope_head_dim=d, qk_nope_head_dim=d, rope_interleave=interleave
        )
        rotary = ds3.DeepseekV3RotaryEmbedding(config)

        def rotate(x: Any, pos: Any) -> Any:
            cos, sin = rotary(x, pos)
            if config.rope_interleave:
                q, _ = ds3.apply_rotary_pos_emb_interleave(x, x, cos, sin)
            else:
                q, _ = ds3.apply_rotary_pos_emb(x, x, cos, sin)
            return q

        return rotate

    gemma_rotary = gemma3.Gemma3RotaryEmbedding(Gemma3TextConfig(**common))
    neox_config = GPTNeoXConfig(hidden_size=2 * d, num_attention_heads=2, rotary_pct=1.0)
    ds2_config = DeepseekV2Config(**common, qk_rope_head_dim=d, qk_nope_head_dim=d)
    glm_config = GlmConfig(**common, partial_rotary_factor=1.0)  # GLM's default rotates half
    return {
        "llama": half(llama, llama.LlamaRotaryEmbedding(LlamaConfig(**common))),
        "qwen2": half(qwen2, qwen2.Qwen2RotaryEmbedding(Qwen2Config(**common))),
        "gemma3": gemma,
        "gpt_neox": half(neox, neox.GPTNeoXRotaryEmbedding(neox_config)),
        "gptj": gpt_j,
        "cohere": half(cohere, cohere.CohereRotaryEmbedding(CohereConfig(**common))),
        "glm": half(glm, glm.GlmRotaryEmbedding(glm_config)),
        "deepseek_v2": complex_form(ds2, ds2.DeepseekV2RotaryEmbedding(ds2_config), 1),
        "deepseek_v3": deepseek_v3(True),
        "deepseek_v3, rope_interleave=False": deepseek_v3(False),
        "llama4": complex_form(
            llama4,
            llama4.Llama4TextRotaryEmbedding(Llama4TextConfig(**common)),
            2,
        ),
    }


#: The families :func:`family_pairings` checks, in print order.
FAMILIES = (
    "llama",
    "qwen2",
    "gemma3",
    "gpt_neox",
    "gptj",
    "cohere",
    "glm",
    "deepseek_v2",
    "deepseek_v3",
    "deepseek_v3, rope_interleave=False",
    "llama4",
)


def family_pairings(head_dim: int = 8) -> dict[str, list[tuple[int, int]]]:
    r"""Which coordinates each family's transformers rotary function turns together.

    For basis vectors :math:`e_a` rotated at position 1000 and :math:`e_b` at position 0,
    the score :math:`\langle R_{1000} e_a, R_0 e_b\rangle` is :math:`\cos 1000\theta` for
    :math:`b = a`, :math:`\pm\sin 1000\theta` for the partner of :math:`a` in its plane
    (at least 0.03 in size for every plane of a head of 8 and the families' default bases),
    and 0 otherwise,
    whatever order the function writes its output in (the same for queries and keys, so
    scores do not see it). Returns the sorted pairs ``(a, partner)``, ``a < partner``.
    """
    import torch

    head_dim = check_dim(head_dim, "head_dim")
    eye = torch.eye(head_dim)[None, None]  # (1, 1, T = head_dim, head_dim): e_0 .. e_{d-1}
    pairings = {}
    with torch.no_grad():
        for family, rotate in _family_rotations(head_dim).items():
            at1 = rotate(eye, torch.full((1, head_dim), 1000))[0, 0]
            at0 = rotate(eye, torch.zeros(1, head_dim, dtype=torch.long))[0, 0]
            scores = (at1 @ at0.T).double().numpy()
            pairs = set()
            for a in range(head_dim):
                others = [b for b in range(head_dim) if b != a and abs(scores[a, b]) > 1e-3]
                if len(others) != 1:
                    raise RuntimeError(f"{family}: coordinate {a} pairs with {others}")
                pairs.add(tuple(sorted((a, others[0]))))
            pairings[family] = sorted(pairs)
    return pairings


def layout_of(pairs: Sequence[tuple[int, int]], head_dim: int) -> str:
    """``"interleaved"`` for pairs (2i, 2i+1), ``"half-split"`` for (i, i + d/2), otherwise
    ``"other"``."""
    head_dim = check_dim(head_dim, "head_dim")
    found = sorted(tuple(p) for p in pairs)
    if found == [(2 * i, 2 * i + 1) for i in range(head_dim // 2)]:
        return "interleaved"
    if found == [(i, i + head_dim // 2) for i in range(head_dim // 2)]:
        return "half-split"
    return "other"


# --- config keys ----------------------------------------------------------------------------


def yarn_config_errors(max_position_embeddings: int = 32768) -> dict[str, str]:
    """What ``LlamaConfig`` does with a ``yarn`` block missing one of its keys.

    For each case, ``"accepted: original <n>, factor <f>"`` with the values the config then
    holds, or the exception's type and first line. Logged warnings are captured and
    returned under ``"<case> (warning)"``.
    """
    from transformers import LlamaConfig

    cases = {
        "factor and original given": {"factor": 4.0, "original_max_position_embeddings": 8192},
        "original null": {"factor": 4.0, "original_max_position_embeddings": None},
        "original missing": {"factor": 4.0},
        "factor missing": {"original_max_position_embeddings": 8192},
        "factor null": {"factor": None, "original_max_position_embeddings": 8192},
    }

    def build(params: dict[str, Any]) -> str:
        try:
            config = LlamaConfig(
                max_position_embeddings=max_position_embeddings, rope_parameters=params
            )
        except Exception as error:
            text = " ".join(str(error).split())
            return f"{type(error).__name__}: {text}"
        got = config.rope_parameters
        return (
            f"accepted: original {got.get('original_max_position_embeddings')}, "
            f"factor {got.get('factor')}"
        )

    results: dict[str, str] = {}
    for label, keys in cases.items():
        params = {"rope_type": "yarn", "rope_theta": 10000.0, **keys}
        results[label], warnings = logged_warnings(lambda params=params: build(params))
        if warnings:
            results[f"{label} (warning)"] = warnings[0]
    return results


def logged_warnings(make: Callable[[], Any]) -> tuple[Any, list[str]]:
    """Call ``make()`` and return its result with the first line of each message transformers
    logged at warning level or above meanwhile (its own handler is muted for the call).

    A message transformers logs once per process (``logger.warning_once``) is logged again
    here, and the log level is warning for the call, whatever ran before."""
    from transformers.utils import logging as hf_logging

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setLevel(logging.WARNING)
    log = logging.getLogger("transformers")
    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_warning()
    hf_logging.warning_once.cache_clear()
    hf_logging.disable_default_handler()
    log.addHandler(handler)
    try:
        result = make()
    finally:
        log.removeHandler(handler)
        hf_logging.enable_default_handler()
        hf_logging.set_verbosity(level)
    lines = [line for line in stream.getvalue().splitlines() if line.strip()]
    return result, lines


def deepseek_softmax_factor(max_position_embeddings: int, original: int = 4096) -> float:
    r"""The factor transformers' DeepSeek-V3 attention puts on :math:`1/\sqrt{d_{qk}}`, for
    YaRN with factor 40 and ``mscale_all_dim`` 1 over ``original`` positions, read from a
    ``DeepseekV3Attention`` built from a tiny config: ``module.scaling * sqrt(qk_head_dim)``.
    """
    from transformers import DeepseekV3Config
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3Attention

    params = {
        "rope_type": "yarn",
        "rope_theta": 10000.0,
        "factor": 40.0,
        "original_max_position_embeddings": check_count(original, "original"),
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "mscale": 1.0,
        "mscale_all_dim": 1.0,
    }
    with quiet_transformers():
        config = DeepseekV3Config(
            hidden_size=64,
            num_attention_heads=2,
            num_key_value_heads=2,
            q_lora_rank=16,
            kv_lora_rank=16,
            qk_rope_head_dim=8,
            qk_nope_head_dim=16,
            v_head_dim=16,
            max_position_embeddings=check_count(max_position_embeddings, "max_position_embeddings"),
            rope_parameters=params,
        )
        attention = DeepseekV3Attention(config, layer_idx=0)
    return float(attention.scaling * (8 + 16) ** 0.5)


def qk_parameters(family: str) -> dict[str, tuple[int, ...]]:
    """Shapes of the parameters of one attention layer of ``family`` (``"llama"``,
    ``"qwen2"``, ``"qwen3"``, ``"olmo2"``, ``"gemma3"``) that act on query or key
    coordinates, for a tiny config with 4 query heads and 2 key/value heads of 8: the
    projections, their biases and the q/k norms a layout conversion has to permute too."""
    import torch
    from transformers import (
        Gemma3TextConfig,
        LlamaConfig,
        Olmo2Config,
        Qwen2Config,
        Qwen3Config,
    )
    from transformers.models.gemma3.modeling_gemma3 import Gemma3Attention
    from transformers.models.llama.modeling_llama import LlamaAttention
    from transformers.models.olmo2.modeling_olmo2 import Olmo2Attention
    from transformers.models.qwen2.modeling_qwen2 import Qwen2Attention
    from transformers.models.qwen3.modeling_qwen3 import Qwen3Attention

    classes = {
        "llama": (LlamaConfig, LlamaAttention),
        "qwen2": (Qwen2Config, Qwen2Attention),
        "qwen3": (Qwen3Config, Qwen3Attention),
        "olmo2": (Olmo2Config, Olmo2Attention),
        "gemma3": (Gemma3TextConfig, Gemma3Attention),
    }
    if family not in classes:
        raise ValueError(f"family must be one of {sorted(classes)}, got {family!r}")
    config_class, attention_class = classes[family]
    with quiet_transformers():
        config = config_class(
            hidden_size=32, num_attention_heads=4, num_key_value_heads=2, head_dim=8
        )
        torch.manual_seed(0)
        attention = attention_class(config, layer_idx=0)
    return {
        name: tuple(p.shape)
        for name, p in attention.named_parameters()
        if name.split(".")[0] in ("q_proj", "k_proj", "q_norm", "k_norm")
    }


def required_keys(rope_parameters: dict[str, Any], max_position_embeddings: int) -> list[str]:
    """The keys of ``rope_parameters`` that transformers' ``LlamaConfig`` cannot do without:
    each key (but ``rope_type``) is left out in turn, and the ones whose absence raises are
    returned, in the order given. Checked with the other keys as given."""
    from transformers import LlamaConfig

    if "rope_type" not in rope_parameters:
        raise ValueError(f"rope_parameters must name its rope_type, got {rope_parameters!r}")
    required = []
    for key in rope_parameters:
        if key == "rope_type":
            continue
        partial = {k: v for k, v in rope_parameters.items() if k != key}
        try:
            with quiet_transformers():
                LlamaConfig(
                    hidden_size=256,
                    num_attention_heads=2,
                    max_position_embeddings=max_position_embeddings,
                    rope_parameters=partial,
                )
        except Exception:
            required.append(key)
    return required


def config_key_map() -> dict[str, str]:
    """What transformers 5.23 does with each rope key of a released config, one line each,
    measured by building the config (and its rotary embedding) with and without the key:

    ``rope_scaling`` (transformers 4 spelling, base at the top level) becomes
    ``rope_parameters``; ``rotary_pct`` (GPT-NeoX), ``partial_rotary_factor`` (Phi and others)
    and ``qk_rope_head_dim`` (DeepSeek) set the rotated part of a head; ``mscale`` /
    ``mscale_all_dim`` and ``attention_factor`` set YaRN's cos/sin factor; ``truncate``
    whether YaRN's ramp ends on whole planes.
    """
    import math

    from transformers import DeepseekV3Config, GPTNeoXConfig, LlamaConfig, PhiConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3RotaryEmbedding
    from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding
    from transformers.models.phi.modeling_phi import PhiRotaryEmbedding

    rows: dict[str, str] = {}
    with quiet_transformers():
        v4 = LlamaConfig(
            rope_theta=500000.0,
            rope_scaling={"rope_type": "linear", "factor": 2.0},
        )
        rows["rope_scaling"] = "read into rope_parameters with rope_theta: " + ", ".join(
            f"{k} {v:g}" for k, v in v4.rope_parameters.items() if k != "rope_type"
        )
        neox = GPTNeoXConfig(hidden_size=384, num_attention_heads=4, rotary_pct=0.25)
        rotated = 2 * GPTNeoXRotaryEmbedding(neox).inv_freq.numel()
        rows["rotary_pct"] = f"0.25 of a head of 96: {rotated} coordinates rotate"
        phi = PhiConfig(hidden_size=256, num_attention_heads=2, partial_rotary_factor=0.5)
        rotated = 2 * PhiRotaryEmbedding(phi).inv_freq.numel()
        rows["partial_rotary_factor"] = f"0.5 of a head of 128: {rotated} coordinates rotate"
        ds = DeepseekV3Config(qk_rope_head_dim=64, qk_nope_head_dim=128)
        rotated = 2 * DeepseekV3RotaryEmbedding(ds).inv_freq.numel()
        rows["qk_rope_head_dim"] = f"64 in a q/k head of 192: {rotated} coordinates rotate"

        def yarn(**extra: Any) -> tuple[Any, float]:
            params = {
                "rope_type": "yarn",
                "rope_theta": 10000.0,
                "factor": 40.0,
                "original_max_position_embeddings": 4096,
                **extra,
            }
            config = LlamaConfig(
                hidden_size=256,
                num_attention_heads=2,
                max_position_embeddings=163840,
                rope_parameters=params,
            )
            return ROPE_INIT_FUNCTIONS["yarn"](config, "cpu")

        _, plain = yarn()
        _, equal = yarn(mscale=0.707, mscale_all_dim=0.707)
        rows["mscale / mscale_all_dim"] = (
            f"cos/sin factor {plain:.4f} (0.1 ln s + 1 = {0.1 * math.log(40) + 1:.4f}) "
            f"without them, {equal:.4f} with both 0.707"
        )
        _, given = yarn(attention_factor=1.0)
        rows["attention_factor"] = f"given 1.0: cos/sin factor {given:.4f} instead of {plain:.4f}"
        whole, _ = yarn()
        exact, _ = yarn(truncate=False)
        moved = int((whole != exact).sum())
        rows["truncate"] = f"false: the ramp ends between planes; {moved} of 64 planes change"
    return rows


def rotate_half_outputs(head_dim: int = 8) -> dict[str, list[int]]:
    """What the function named ``rotate_half`` returns for the coordinates
    :math:`(1, 2, \\dots, d)` in transformers' Llama, Cohere and GLM modules: Llama's maps
    :math:`(x_1, x_2) \\mapsto (-x_2, x_1)` on the two halves of a head, Cohere's and GLM's
    :math:`(x_{2i}, x_{2i+1}) \\mapsto (-x_{2i+1}, x_{2i})` on adjacent pairs."""
    import torch
    import transformers.models.cohere.modeling_cohere as cohere
    import transformers.models.glm.modeling_glm as glm
    import transformers.models.llama.modeling_llama as llama

    head_dim = check_dim(head_dim, "head_dim")
    x = torch.arange(1, head_dim + 1, dtype=torch.float64)
    return {
        name: [int(v) for v in module.rotate_half(x).tolist()]
        for name, module in (("llama", llama), ("cohere", cohere), ("glm", glm))
    }
