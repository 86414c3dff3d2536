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
  float32. :func:`restore_float32_inv_freq` recomputes them after a cast.
* **Packed rows** (:func:`packed_row_gaps`): with no attention mask and no cache, a reset of
  ``position_ids`` (a step other than +1) starts a new document in the mask transformers
  builds (``find_packed_sequence_indices`` in ``masking_utils``).
* **Default position ids** (:func:`position_ids_seen`): the model's ``forward`` numbers the
  tokens ``0 .. T-1`` (plus the cache length) whatever the padding mask says; ``generate``
  derives them from the mask.
* **The batch decides** (:func:`batch_neighbour_gap`, :func:`cache_gaps`): ``dynamic`` and
  ``longrope`` read the largest position id of the whole batch; LongRoPE's switch from its
  short to its long factors breaks a KV cache as dynamic NTK does.
* **Layouts by family** (:func:`family_pairings`): which coordinates each family's rotary
  function turns together, found by rotating basis vectors.
* **Config keys** (:func:`yarn_config_errors`): what the strict config classes accept.

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
    "CastErrors",
    "batch_neighbour_gap",
    "cache_gaps",
    "cast_cos_errors",
    "family_pairings",
    "layout_of",
    "packed_row_gaps",
    "position_ids_seen",
    "restore_float32_inv_freq",
    "tiny_llama",
    "yarn_config_errors",
]


def tiny_llama(
    *,
    rope_parameters: dict[str, Any] | None = None,
    max_position_embeddings: int = 2048,
    num_layers: int = 2,
    seed: int = 0,
    initializer_range: float = 0.3,
) -> Any:
    """A ``LlamaForCausalLM`` of 2 layers, hidden 32, 4 query and 2 key/value heads of 8,
    vocabulary 48, float32, eager attention, weights drawn with ``torch.manual_seed(seed)``
    at standard deviation ``initializer_range`` (0.3, not transformers' 0.02, so that the
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
            attn_implementation="eager",
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


def restore_float32_inv_freq(model: Any) -> int:
    """Recompute ``inv_freq`` (and ``original_inv_freq``) of every rotary embedding of
    ``model`` in float32, from its config, after a cast such as ``model.to(torch.bfloat16)``.

    Returns the number of rotary modules restored. A module is one with an ``inv_freq``
    buffer, a ``config`` and a ``rope_type`` (transformers 5's rotary embeddings).
    """
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    restored = 0
    for module in model.modules():
        if not all(hasattr(module, a) for a in ("inv_freq", "config", "rope_type")):
            continue
        if not isinstance(module.rope_type, str):
            raise ValueError("model has a rotary embedding per layer type: not handled here")
        init = (
            module.compute_default_rope_parameters
            if module.rope_type == "default"
            else ROPE_INIT_FUNCTIONS[module.rope_type]
        )
        inv_freq, _ = init(module.config, device=module.inv_freq.device)
        module.register_buffer("inv_freq", inv_freq.float(), persistent=False)
        if hasattr(module, "original_inv_freq"):
            module.register_buffer("original_inv_freq", inv_freq.float().clone(), persistent=False)
        restored += 1
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


def packed_row_gaps(lengths: Sequence[int] = (4, 7, 3, 6), seed: int = 1) -> dict[str, np.ndarray]:
    """Largest |logit difference| per document between one packed row and each document run
    alone, through a tiny Llama (:func:`tiny_llama`), for each of :data:`PACKING_VARIANTS`.

    Tokens are drawn with ``torch.Generator().manual_seed(seed)``. Float32: a document that
    is kept apart shows a gap of about 1e-7, one that sees its neighbours one of about 0.1.
    """
    import torch

    lengths = [check_count(n, "lengths") for n in lengths]
    model = tiny_llama()
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
    return {
        "llama": half(llama, llama.LlamaRotaryEmbedding(LlamaConfig(**common))),
        "qwen2": half(qwen2, qwen2.Qwen2RotaryEmbedding(Qwen2Config(**common))),
        "gemma3": gemma,
        "gpt_neox": half(neox, neox.GPTNeoXRotaryEmbedding(neox_config)),
        "gptj": gpt_j,
        "cohere": half(cohere, cohere.CohereRotaryEmbedding(CohereConfig(**common))),
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
    from transformers.utils import logging as hf_logging

    results: dict[str, str] = {}
    log = logging.getLogger("transformers")
    for label, keys in cases.items():
        params = {"rope_type": "yarn", "rope_theta": 10000.0, **keys}
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        handler.setLevel(logging.WARNING)
        hf_logging.disable_default_handler()
        log.addHandler(handler)
        try:
            config = LlamaConfig(
                max_position_embeddings=max_position_embeddings, rope_parameters=params
            )
            got = config.rope_parameters
            results[label] = (
                f"accepted: original {got.get('original_max_position_embeddings')}, "
                f"factor {got.get('factor')}"
            )
        except Exception as error:
            text = " ".join(str(error).split())
            results[label] = f"{type(error).__name__}: {text}"
        finally:
            log.removeHandler(handler)
            hf_logging.enable_default_handler()
        if stream.getvalue().strip():
            results[f"{label} (warning)"] = stream.getvalue().strip().splitlines()[0]
    return results


def logged_warnings(make: Callable[[], Any]) -> tuple[Any, list[str]]:
    """Call ``make()`` and return its result with the first line of each message transformers
    logged at warning level or above meanwhile (its own handler is muted for the call)."""
    from transformers.utils import logging as hf_logging

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setLevel(logging.WARNING)
    log = logging.getLogger("transformers")
    hf_logging.disable_default_handler()
    log.addHandler(handler)
    try:
        result = make()
    finally:
        log.removeHandler(handler)
        hf_logging.enable_default_handler()
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
