"""Where the time of the half-layout rotation goes (the profiles quoted in benchmarks/README.md).

``.venv/bin/python benchmarks/bench_profile.py``: for x of shape (1, 32, 4096, 128), float32,

* torch: ``torch.profiler`` over ten calls of ``rotate_pairs(x, cos, sin, "half")`` and of
  ``x.clone()``, operators sorted by their own CPU time;
* numpy: the steps of the kernel timed one by one over all chunks (allocating the output,
  packing ``x_a + i x_b``, the complex product, unpacking), against ``x.copy()`` and
  ``np.copyto``.
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import torch
from bench_kernels import SHAPE, random_q
from torch.profiler import ProfilerActivity, profile

from ropelab import core
from ropelab.core import rotate_pairs
from ropelab.torch_modules import RotaryEmbedding


def torch_profile(q: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> None:
    for label, run in (
        ("rotate_pairs(x, cos, sin, 'half')", lambda: rotate_pairs(q, cos, sin, "half")),
        ("x.clone()", lambda: q.clone()),
    ):
        for _ in range(3):
            run()
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            for _ in range(10):
                run()
        print(f"\ntorch, 10 calls of {label}")
        print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=8))


def numpy_steps(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, rounds: int = 7) -> None:
    """The numpy half-layout kernel of ropelab.core, step by step (same code, timed)."""
    r = cos.shape[-1]
    totals: dict[str, list[float]] = {
        k: [] for k in ("allocate out", "pack", "multiply", "unpack", "all")
    }
    for _ in range(rounds):
        steps = dict.fromkeys(totals, 0.0)
        began = time.perf_counter()
        start = time.perf_counter()
        out = np.empty_like(x)
        steps["allocate out"] += time.perf_counter() - start
        rotation = np.empty(cos.shape, np.complex64)
        rotation.real, rotation.imag = cos, sin
        a, b = x[..., :r], x[..., r : 2 * r]
        out_a, out_b = out[..., :r], out[..., r : 2 * r]
        chunks = core._row_chunks(x, cos, core.NUMPY_CHUNK_BYTES)
        buffer = np.empty(out_a[chunks[0][0]].shape, np.complex64)
        for rows, cos_rows in chunks:
            z = buffer
            start = time.perf_counter()
            z.real, z.imag = a[rows], b[rows]
            steps["pack"] += time.perf_counter() - start
            start = time.perf_counter()
            np.multiply(z, rotation[cos_rows], out=z)
            steps["multiply"] += time.perf_counter() - start
            start = time.perf_counter()
            out_a[rows], out_b[rows] = z.real, z.imag  # first touch of out: page faults
            steps["unpack"] += time.perf_counter() - start
        steps["all"] = time.perf_counter() - began
        for k, v in steps.items():
            totals[k].append(v)
        assert np.allclose(out, rotate_pairs(x, cos, sin, "half"), atol=1e-5)
    buffer_out = np.empty_like(x)
    copies = {
        "x.copy()": lambda: x.copy(),
        "np.copyto(preallocated, x)": lambda: np.copyto(buffer_out, x),
    }
    print(f"\nnumpy, half layout, chunks of {core.NUMPY_CHUNK_BYTES // 1024} KiB (median ms)")
    for k, v in totals.items():
        print(f"  {k:28s} {statistics.median(v) * 1e3:7.1f}")
    for k, run in copies.items():
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        print(f"  {k:28s} {statistics.median(times) * 1e3:7.1f}")


def main() -> None:
    q = random_q(SHAPE)
    cos, sin = RotaryEmbedding(SHAPE[3]).cos_sin_planes(torch.arange(SHAPE[2]))
    torch_profile(q, cos, sin)
    numpy_steps(q.numpy(), cos.numpy(), sin.numpy())


if __name__ == "__main__":
    main()
