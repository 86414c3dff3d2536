"""Part 1: applying RoPE to q of shape (1, 32, 4096, 128), float32, on the CPU.

Every ropelab kernel is compared with the memory-bandwidth floor (a copy of ``x``: a rotation
must read ``x`` and write its result once) and, for torch, with transformers' reference
(``apply_rotary_pos_emb`` of Llama for the half layout, of Cohere for the interleaved one), each
given the cos/sin tables it caches: ropelab's per-plane ``(seq, d/2)`` tables from
``RotaryEmbedding.cos_sin_planes``, transformers' full-width ``(1, seq, d)`` ones from its
rotary embedding module. transformers' function rotates q and k together; it gets a k with zero
heads, so that both sides rotate q alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from bench_common import ROOT, Row, measure, median_time
from transformers import CohereConfig, LlamaConfig
from transformers.models.cohere.modeling_cohere import CohereRotaryEmbedding
from transformers.models.cohere.modeling_cohere import (
    apply_rotary_pos_emb as cohere_apply_rotary_pos_emb,
)
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

import ropelab
from ropelab.core import inv_freq, rope_angles, rotate_pairs
from ropelab.torch_modules import RotaryEmbedding

SHAPE = (1, 32, 4096, 128)  # (batch, heads, seq, head dim)
LONG_SHAPE = (1, 8, 131072, 128)
KERNEL_TARGET = "≤1.5× copy, ≤0.5× transformers"
COPY_TARGET = "≤1.5× copy"


def previous_rotate_pairs(x: Any, cos: Any, sin: Any, layout: str) -> Any:
    """``ropelab.core.rotate_pairs`` before ``benchmarks/`` existed, for comparison.

    It cloned ``x`` and assigned ``a*cos - b*sin`` and ``b*cos + a*sin`` into slices: four
    products, a difference and a sum, each a temporary half the size of ``x``.
    """
    r = cos.shape[-1]
    out = x.copy() if isinstance(x, np.ndarray) else x.clone()
    if layout == "half":
        a, b = x[..., :r], x[..., r : 2 * r]
        out_a, out_b = (slice(0, r), slice(r, 2 * r))
    else:
        a, b = x[..., 0 : 2 * r : 2], x[..., 1 : 2 * r : 2]
        out_a, out_b = (slice(0, 2 * r, 2), slice(1, 2 * r, 2))
    out[..., out_a] = a * cos - b * sin
    out[..., out_b] = b * cos + a * sin
    return out


def fused_rotate_half(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """The half layout with fused multiply-adds (``addcmul_``): four passes per chunk instead of
    six, but ``x_a cos - x_b sin`` is rounded once, so the last bit differs from transformers'
    ``q * cos + rotate_half(q) * sin``. The variant ``ropelab.core`` did not adopt."""
    from ropelab import core

    r = cos.shape[-1]
    out = torch.empty_like(x)
    a, b, out_a, out_b = x[..., :r], x[..., r : 2 * r], out[..., :r], out[..., r : 2 * r]
    for rows, cos_rows in core._row_chunks(x, cos, core.TORCH_CHUNK_BYTES):
        c, s, ya, yb = cos[cos_rows], sin[cos_rows], out_a[rows], out_b[rows]
        torch.mul(a[rows], c, out=ya)
        ya.addcmul_(b[rows], s, value=-1)
        torch.mul(b[rows], c, out=yb)
        yb.addcmul_(a[rows], s)
    return out


def random_q(shape: tuple[int, ...], seed: int = 0) -> torch.Tensor:
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed))


def transformers_tables(
    shape: tuple[int, ...],
) -> tuple[tuple[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor], Callable]:
    """Llama's (half) and Cohere's (interleaved) cached cos/sin, and Llama's full computation."""
    _, heads, seq, head_dim = shape
    sizes = {"hidden_size": heads * head_dim, "num_attention_heads": heads}
    llama = LlamaRotaryEmbedding(
        LlamaConfig(**sizes, head_dim=head_dim, max_position_embeddings=seq)
    )
    cohere = CohereRotaryEmbedding(CohereConfig(**sizes, max_position_embeddings=seq))
    probe = torch.empty(1, dtype=torch.float32)
    position_ids = torch.arange(seq)[None]
    return llama(probe, position_ids), cohere(probe, position_ids), llama


def ratio_row(
    part: str,
    name: str,
    times: dict[str, float],
    key: str,
    refs: dict[str, str],
    target: str = "",
    limits: dict[str, float] | None = None,
    note: str = "",
) -> Row:
    """A row for ``times[key]`` with its ratios to ``times[refs[label]]`` and the target check."""
    ratios = {label: times[key] / times[ref] for label, ref in refs.items()}
    met = None
    if limits:
        met = all(ratios[label] <= limit for label, limit in limits.items())
    return Row(part, name, times[key] * 1e3, "ms", ratios, target, met, note)


def torch_rows(rounds: int) -> list[Row]:
    """torch, float32, q of SHAPE: ropelab against transformers and against x.clone()."""
    part = "1 torch q (1, 32, 4096, 128) f32"
    q = random_q(SHAPE)
    seq = SHAPE[2]
    rope = RotaryEmbedding(SHAPE[3])  # half layout
    cos, sin = rope.cos_sin_planes(torch.arange(seq))  # (seq, 64) each, the cache
    (cos_h, sin_h), (cos_i, sin_i), llama = transformers_tables(SHAPE)
    k0 = q[:, :0]  # zero heads: transformers rotates q alone
    positions = np.arange(seq)
    position_ids = torch.arange(seq)[None]
    times = measure(
        {
            "clone": lambda: q.clone(),
            "tf_half": lambda: apply_rotary_pos_emb(q, k0, cos_h, sin_h)[0],
            "rp_half": lambda: rotate_pairs(q, cos, sin, "half"),
            "prev_half": lambda: previous_rotate_pairs(q, cos, sin, "half"),
            "fused_half": lambda: fused_rotate_half(q, cos, sin),
            "module_half": lambda: rope.rotate(q),
            "tf_inter": lambda: cohere_apply_rotary_pos_emb(q, k0, cos_i, sin_i)[0],
            "rp_inter": lambda: rotate_pairs(q, cos, sin, "interleaved"),
            "prev_inter": lambda: previous_rotate_pairs(q, cos, sin, "interleaved"),
            "apply_half": lambda: ropelab.apply_rope(q, positions, layout="half"),
            "tf_full": lambda: apply_rotary_pos_emb(q, k0, *llama(q, position_ids))[0],
            "apply_inter": lambda: ropelab.apply_rope(q, positions, layout="interleaved"),
        },
        rounds,
    )
    half = {"copy": "clone", "transformers": "tf_half"}
    inter = {"copy": "clone", "transformers": "tf_inter"}
    limits = {"copy": 1.5, "transformers": 0.5}
    rows = [
        ratio_row(part, "x.clone() (the floor: read x, write a new tensor)", times, "clone", {}),
        ratio_row(
            part,
            "transformers apply_rotary_pos_emb (Llama, half), cached cos/sin",
            times,
            "tf_half",
            {"copy": "clone"},
        ),
        ratio_row(
            part,
            "ropelab rotate_pairs, half, cached cos/sin",
            times,
            "rp_half",
            half,
            KERNEL_TARGET,
            limits,
        ),
        ratio_row(
            part,
            "ropelab RotaryEmbedding.rotate, half (cache lookup + rotation)",
            times,
            "module_half",
            half,
            note="the lookup gathers cos/sin rows (cos_cached[positions], a copy) before rotating",
        ),
        ratio_row(part, "ropelab rotate_pairs, half, before this change", times, "prev_half", half),
        ratio_row(
            part,
            "variant not adopted: half with fused multiply-add (addcmul_)",
            times,
            "fused_half",
            half,
            note="4 passes instead of 6, but the last bit differs from transformers (chapter 3)",
        ),
        ratio_row(
            part,
            "transformers apply_rotary_pos_emb (Cohere, interleaved), cached cos/sin",
            times,
            "tf_inter",
            {"copy": "clone"},
        ),
        ratio_row(
            part,
            "ropelab rotate_pairs, interleaved, cached cos/sin",
            times,
            "rp_inter",
            inter,
            KERNEL_TARGET,
            limits,
        ),
        ratio_row(
            part,
            "ropelab rotate_pairs, interleaved, before this change",
            times,
            "prev_inter",
            inter,
        ),
        ratio_row(
            part,
            "transformers LlamaRotaryEmbedding + apply_rotary_pos_emb",
            times,
            "tf_full",
            {"copy": "clone"},
        ),
        ratio_row(
            part,
            "ropelab apply_rope, half (angles + cos/sin + rotation)",
            times,
            "apply_half",
            {"copy": "clone", "transformers": "tf_full"},
            "≤0.5× transformers (no cache)",
            {"transformers": 0.5},
        ),
        ratio_row(
            part,
            "ropelab apply_rope, interleaved (angles + cos/sin + rotation)",
            times,
            "apply_inter",
            {"copy": "clone"},
        ),
    ]
    buffer = torch.empty_like(q)
    kernel_only = measure(
        {
            "copy_": lambda: buffer.copy_(q),
            "half_out": lambda: rotate_pairs(q, cos, sin, "half", out=buffer),
            "inter_out": lambda: rotate_pairs(q, cos, sin, "interleaved", out=buffer),
        },
        rounds,
    )
    note = "into a preallocated tensor: no allocation, no page faults"
    rows += [
        ratio_row(part, "copy_ into a preallocated tensor", kernel_only, "copy_", {}, note=note),
        ratio_row(
            part,
            "ropelab rotate_pairs(out=...), half",
            kernel_only,
            "half_out",
            {"copy_": "copy_"},
        ),
        ratio_row(
            part,
            "ropelab rotate_pairs(out=...), interleaved",
            kernel_only,
            "inter_out",
            {"copy_": "copy_"},
        ),
    ]
    return rows


def numpy_rows(rounds: int) -> list[Row]:
    """numpy, float32, x of SHAPE: ropelab against x.copy()."""
    part = "1 numpy x (1, 32, 4096, 128) f32"
    x = random_q(SHAPE, seed=1).numpy()
    seq = SHAPE[2]
    angles = rope_angles(np.arange(seq), inv_freq(SHAPE[3]))
    cos, sin = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
    positions = np.arange(seq)
    times = measure(
        {
            "copy": lambda: x.copy(),
            "rp_half": lambda: rotate_pairs(x, cos, sin, "half"),
            "prev_half": lambda: previous_rotate_pairs(x, cos, sin, "half"),
            "rp_inter": lambda: rotate_pairs(x, cos, sin, "interleaved"),
            "prev_inter": lambda: previous_rotate_pairs(x, cos, sin, "interleaved"),
            "apply_half": lambda: ropelab.apply_rope(x, positions, layout="half"),
            "apply_inter": lambda: ropelab.apply_rope(x, positions, layout="interleaved"),
        },
        max(5, rounds * 2 // 3),
    )
    ref = {"copy": "copy"}
    limit = {"copy": 1.5}
    rows = [
        ratio_row(part, "x.copy() (the floor)", times, "copy", {}),
        ratio_row(
            part,
            "ropelab rotate_pairs, half, cached cos/sin",
            times,
            "rp_half",
            ref,
            COPY_TARGET,
            limit,
        ),
        ratio_row(part, "ropelab rotate_pairs, half, before this change", times, "prev_half", ref),
        ratio_row(
            part,
            "ropelab rotate_pairs, interleaved, cached cos/sin",
            times,
            "rp_inter",
            ref,
            COPY_TARGET,
            limit,
        ),
        ratio_row(
            part, "ropelab rotate_pairs, interleaved, before this change", times, "prev_inter", ref
        ),
        ratio_row(
            part,
            "ropelab apply_rope, half (angles + cos/sin + rotation)",
            times,
            "apply_half",
            ref,
        ),
        ratio_row(
            part,
            "ropelab apply_rope, interleaved (angles + cos/sin + rotation)",
            times,
            "apply_inter",
            ref,
        ),
    ]
    buffer = np.empty_like(x)
    kernel_only = measure(
        {
            "copyto": lambda: np.copyto(buffer, x),
            "half_out": lambda: rotate_pairs(x, cos, sin, "half", out=buffer),
            "inter_out": lambda: rotate_pairs(x, cos, sin, "interleaved", out=buffer),
        },
        max(5, rounds * 2 // 3),
    )
    rows += [
        ratio_row(part, "np.copyto into a preallocated array", kernel_only, "copyto", {}),
        ratio_row(
            part,
            "ropelab rotate_pairs(out=...), half",
            kernel_only,
            "half_out",
            {"copyto": "copyto"},
        ),
        ratio_row(
            part,
            "ropelab rotate_pairs(out=...), interleaved",
            kernel_only,
            "inter_out",
            {"copyto": "copyto"},
        ),
    ]
    return rows


def long_rows(rounds: int) -> list[Row]:
    """seq 131072, 8 heads (512 MiB): the kernels against the floor, and linear scaling.

    transformers is left out here: its temporaries make one call take seconds (it is compared
    at the shorter length above).
    """
    part = "1 long: q (1, 8, 131072, 128) f32"
    q = random_q(LONG_SHAPE, seed=2)
    seq = LONG_SHAPE[2]
    rope = RotaryEmbedding(LONG_SHAPE[3], max_cache_len=seq)
    cos, sin = rope.cos_sin_planes(torch.arange(seq))
    times = measure(
        {
            "clone": lambda: q.clone(),
            "rp_half": lambda: rotate_pairs(q, cos, sin, "half"),
            "rp_inter": lambda: rotate_pairs(q, cos, sin, "interleaved"),
        },
        max(3, rounds // 2),
        warmup=1,
    )
    limit = {"copy": 1.5}
    rows = [
        ratio_row(part, "x.clone() (the floor)", times, "clone", {}),
        ratio_row(
            part,
            "ropelab rotate_pairs, half, cached cos/sin",
            times,
            "rp_half",
            {"copy": "clone"},
            COPY_TARGET,
            limit,
        ),
        ratio_row(
            part,
            "ropelab rotate_pairs, interleaved, cached cos/sin",
            times,
            "rp_inter",
            {"copy": "clone"},
            COPY_TARGET,
            limit,
        ),
    ]
    rows += scaling_rows(part)
    return rows


def scaling_rows(part: str) -> list[Row]:
    """Cost per position of the cos/sin cache and of the float64 angles: 131072 vs 4096."""
    theta = inv_freq(128)

    def cache(n: int) -> Callable[[], Any]:
        positions = torch.arange(n)
        return lambda: RotaryEmbedding(128, max_cache_len=2**17).cos_sin_planes(positions)

    def angles(n: int) -> Callable[[], Any]:
        positions = np.arange(n)

        def run() -> tuple[np.ndarray, np.ndarray]:
            a = rope_angles(positions, theta)  # float64, as apply_rope and the cache form them
            return np.cos(a), np.sin(a)

        return run

    rows = []
    for label, make in (
        ("RotaryEmbedding cos/sin cache (fresh module)", cache),
        ("float64 angles + cos/sin", angles),
    ):
        short = median_time(make(4096), min_rounds=9)
        long = median_time(make(131072), min_rounds=5)
        per_position = (long / 131072) / (short / 4096)
        rows.append(Row(part, f"{label}, 4096 positions", short * 1e3))
        rows.append(
            Row(
                part,
                f"{label}, 131072 positions",
                long * 1e3,
                "ms",
                {"per-position cost vs 4096": per_position},
                "per position ≤1.5× (linear)",
                per_position <= 1.5,
            )
        )
    return rows


def compile_rows(rounds: int) -> list[Row]:
    """torch.compile of the plain half formula: cold compile time and steady state."""
    part = "1 torch.compile (inductor, CPU)"
    q = random_q(SHAPE, seed=3)
    cos, sin = RotaryEmbedding(SHAPE[3]).cos_sin_planes(torch.arange(SHAPE[2]))

    def formula(x: torch.Tensor, c: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        r = c.shape[-1]
        a, b = x[..., :r], x[..., r : 2 * r]
        return torch.cat((a * c - b * s, b * c + a * s), dim=-1)

    with tempfile.TemporaryDirectory() as cache_dir:
        previous = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir  # a cold compile, nothing reused
        try:
            torch._dynamo.reset()
            compiled = torch.compile(formula, dynamic=False)
            start = time.perf_counter()
            compiled(q, cos, sin)
            compile_s = time.perf_counter() - start
            times = measure(
                {
                    "clone": lambda: q.clone(),
                    "compiled": lambda: compiled(q, cos, sin),
                    "rp_half": lambda: rotate_pairs(q, cos, sin, "half"),
                },
                rounds,
            )
        finally:
            if previous is None:
                os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
            else:
                os.environ["TORCHINDUCTOR_CACHE_DIR"] = previous
            torch._dynamo.reset()
    saved = times["rp_half"] - times["compiled"]
    calls = compile_s / saved if saved > 0 else float("inf")
    verdict = (
        f"not adopted: {compile_s:.0f} s of compilation per process (and a C++ compiler at run "
        f"time) to save {saved * 1e3:.1f} ms per call: it pays off after {calls:.0f} calls"
        if saved > 0
        else "not adopted: no faster than rotate_pairs"
    )
    return [
        Row(part, "first call: cold compile of the half formula", compile_s, "s", note=verdict),
        ratio_row(
            part,
            "compiled half formula, steady state",
            times,
            "compiled",
            {"copy": "clone", "rotate_pairs": "rp_half"},
        ),
    ]


def memory_rows() -> list[Row]:
    """Peak memory during one call, from bench_memory.py in a fresh process."""
    part = "1 memory (peak RSS during the call)"
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536")  # freed blocks go back to the OS
    result = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("bench_memory.py"))],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    if result.returncode != 0:
        return [Row(part, "memory probe failed", None, note=result.stderr.strip()[-300:])]
    rows = []
    for item in json.loads(result.stdout):
        ours = item["name"].startswith("ropelab")
        rows.append(
            Row(
                part,
                item["name"],
                item["extra_x"],
                "x",
                {"peak incl. output": item["peak_x"]},
                "extra ≤1× x" if ours else "",
                item["extra_x"] <= 1.0 if ours else None,
            )
        )
    return rows


def chunk_rows(rounds: int) -> list[Row]:
    """The chunk sizes of ``ropelab.core``: the half layout at several sizes (not run by default)."""
    from ropelab import core

    part = "chunk size sweep (half layout, x of SHAPE)"
    q = random_q(SHAPE, seed=4)
    cos, sin = RotaryEmbedding(SHAPE[3]).cos_sin_planes(torch.arange(SHAPE[2]))
    x, cos_n, sin_n = q.numpy(), cos.numpy(), sin.numpy()
    saved = core.TORCH_CHUNK_BYTES, core.NUMPY_CHUNK_BYTES
    sizes = {"256 KiB": 2**18, "512 KiB": 2**19, "1 MiB": 2**20, "4 MiB": 2**22, "no chunks": 2**40}

    def torch_at(size: int) -> Callable[[], Any]:
        def run() -> Any:
            core.TORCH_CHUNK_BYTES = size
            return rotate_pairs(q, cos, sin, "half")

        return run

    def numpy_at(size: int) -> Callable[[], Any]:
        def run() -> Any:
            core.NUMPY_CHUNK_BYTES = size
            return rotate_pairs(x, cos_n, sin_n, "half")

        return run

    try:
        torch_times = measure(
            {"clone": lambda: q.clone()} | {k: torch_at(v) for k, v in sizes.items()}, rounds
        )
        numpy_times = measure(
            {"copy": lambda: x.copy()} | {k: numpy_at(v) for k, v in sizes.items()},
            max(5, rounds * 2 // 3),
        )
    finally:
        core.TORCH_CHUNK_BYTES, core.NUMPY_CHUNK_BYTES = saved
    rows = [
        ratio_row(part, f"torch, chunks of {k}", torch_times, k, {"copy": "clone"}) for k in sizes
    ]
    rows += [
        ratio_row(part, f"numpy, chunks of {k}", numpy_times, k, {"copy": "copy"}) for k in sizes
    ]
    return rows
