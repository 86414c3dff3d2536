"""Peak memory of one RoPE call, in multiples of the input's size (run by bench_kernels.memory_rows).

Runs in its own process with ``MALLOC_MMAP_THRESHOLD_`` set, so that every large block is
mapped on allocation and unmapped when freed and the resident set size follows the live
allocations. For each call: reset the peak (``/proc/self/clear_refs``), read the resident size,
call, read the peak (``VmHWM``). ``peak_x`` is the growth at the peak divided by ``x.nbytes``;
``extra_x`` subtracts the output (one ``x``), leaving the temporaries. Prints JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from bench_kernels import SHAPE, previous_rotate_pairs, random_q, transformers_tables
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

import ropelab
from ropelab.core import rotate_pairs
from ropelab.torch_modules import RotaryEmbedding


def status() -> dict[str, int]:
    values = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(("VmRSS", "VmHWM")):
            key, value = line.split(":")
            values[key] = int(value.split()[0]) * 1024
    return values


def probe(run: Callable[[], Any], nbytes: int) -> dict[str, float]:
    """Growth of the resident set at its peak during ``run()``, over ``nbytes``."""
    result = run()  # warm-up: code paths, caches, lazily built objects
    del result
    Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current VmRSS
    base = status()["VmRSS"]
    result = run()
    peak = status()["VmHWM"] - base
    out_bytes = (
        result.nbytes if isinstance(result, np.ndarray) else result.untyped_storage().nbytes()
    )
    return {"peak_x": peak / nbytes, "extra_x": (peak - out_bytes) / nbytes}


def main() -> None:
    q = random_q(SHAPE)
    seq = SHAPE[2]
    rope = RotaryEmbedding(SHAPE[3])
    cos, sin = rope.cos_sin_planes(torch.arange(seq))
    (cos_h, sin_h), _, _ = transformers_tables(SHAPE)
    k0 = q[:, :0]
    x = q.numpy().copy()
    cos_n, sin_n = cos.numpy().copy(), sin.numpy().copy()
    positions = np.arange(seq)
    calls = {
        "torch x.clone() (calibration: 0 extra)": lambda: q.clone(),
        "ropelab rotate_pairs torch, half": lambda: rotate_pairs(q, cos, sin, "half"),
        "ropelab rotate_pairs torch, interleaved": lambda: rotate_pairs(q, cos, sin, "interleaved"),
        "ropelab RotaryEmbedding.rotate, half": lambda: rope.rotate(q),
        "ropelab apply_rope torch, half": lambda: ropelab.apply_rope(q, positions, layout="half"),
        "transformers apply_rotary_pos_emb (Llama)": lambda: apply_rotary_pos_emb(
            q, k0, cos_h, sin_h
        )[0],
        "previous rotate_pairs torch, half": lambda: previous_rotate_pairs(q, cos, sin, "half"),
        "numpy x.copy() (calibration: 0 extra)": lambda: x.copy(),
        "ropelab rotate_pairs numpy, half": lambda: rotate_pairs(x, cos_n, sin_n, "half"),
        "ropelab rotate_pairs numpy, interleaved": lambda: rotate_pairs(
            x, cos_n, sin_n, "interleaved"
        ),
        "ropelab apply_rope numpy, half": lambda: ropelab.apply_rope(x, positions, layout="half"),
        "previous rotate_pairs numpy, half": lambda: previous_rotate_pairs(x, cos_n, sin_n, "half"),
    }
    results = [{"name": name, **probe(run, q.nbytes)} for name, run in calls.items()]
    print(json.dumps(results))


if __name__ == "__main__":
    main()
