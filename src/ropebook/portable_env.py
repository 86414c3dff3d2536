"""Run a command in the book's second numerical environment (issue 21).

The committed notebook outputs must not record which CPU ran them. ``make test`` therefore
runs the chapters' strict nbval twice: once as the machine is, once here, where

* numpy is held to its baseline SIMD: ``NPY_DISABLE_CPU_FEATURES`` names every dispatched
  feature above the baseline that this machine has (found at run time, so an AVX-512 machine
  and an AVX2 machine both drop to the same kernels);
* torch uses its portable kernels (``ATEN_CPU_CAPABILITY=default``);
* every thread pool has one thread (OpenMP, OpenBLAS, MKL, torch).

``OPENBLAS_CORETYPE`` is left as the machine sets it (some machines need it to compute
correctly). A cell that prints rounding noise then prints something else here and fails.

    python tools/portable_env.py --show                 # the settings, and numpy's view of them
    python tools/portable_env.py -- python -m pytest notebooks
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

_PROBE = (
    "import json, numpy._core._multiarray_umath as m;"
    "print(json.dumps({'baseline': list(m.__cpu_baseline__),"
    " 'dispatch': list(m.__cpu_dispatch__),"
    " 'features': {k: bool(v) for k, v in m.__cpu_features__.items()}}))"
)


def numpy_cpu(python: str = sys.executable) -> dict:
    """numpy's baseline, its dispatch targets and this CPU's features, read in a fresh process
    with no feature disabled."""
    env = {k: v for k, v in os.environ.items() if k != "NPY_DISABLE_CPU_FEATURES"}
    out = subprocess.run(
        [python, "-c", _PROBE], env=env, check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out)


def features_above_baseline(cpu: dict) -> list[str]:
    """The dispatch targets this machine supports (they are above the baseline by definition)."""
    baseline = set(cpu["baseline"])
    return [f for f in cpu["dispatch"] if cpu["features"].get(f) and f not in baseline]


def portable_environment(base: dict[str, str] | None = None, python: str = sys.executable) -> dict:
    """``base`` (default: this process's environment) with the portable settings applied."""
    env = dict(os.environ if base is None else base)
    disabled = features_above_baseline(numpy_cpu(python))
    if disabled:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(disabled)
    else:
        env.pop("NPY_DISABLE_CPU_FEATURES", None)
    env["ATEN_CPU_CAPABILITY"] = "default"
    for name in THREAD_VARIABLES:
        env[name] = "1"
    env["ROPELAB_PORTABLE"] = "1"
    return env


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    env = portable_environment()
    if argv[:1] == ["--show"] or not argv:
        for name in ("NPY_DISABLE_CPU_FEATURES", "ATEN_CPU_CAPABILITY", *THREAD_VARIABLES):
            print(f"{name}={env.get(name, '')}")
        return 0
    if argv[0] == "--":
        argv = argv[1:]
    return subprocess.call(argv, env=env)


if __name__ == "__main__":
    sys.exit(main())
