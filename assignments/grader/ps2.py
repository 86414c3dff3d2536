"""Hidden tests of ps2, implement RoPE: against transformers' rotary
embedding and ``apply_rotary_pos_emb``; on failure, ropelab's diagnosis."""

from __future__ import annotations

import numpy as np

from . import hf
from .core import Check, Fail, call, check_student_id

TOLERANCE = 2e-3  # relative to |x|: transformers' angles are float32


def _inputs(sheet, *shape):
    rng = np.random.default_rng([sheet.dim, int(sheet.base), *shape])
    return rng.standard_normal(shape)


def _array(value, name: str, shape) -> np.ndarray:
    out = np.asarray(value, dtype=np.float64)
    if out.shape != tuple(shape):
        raise Fail(
            f"{name} returned shape {out.shape}, expected {tuple(shape)} "
            "(the shape of its input)."
        )
    return out


def _swapped(error: Exception, sheet) -> str:
    half_base = str(int(sheet.base) // 2)
    if half_base in str(error):
        return (
            f" An array of {half_base} values (base / 2) appeared: dim "
            "and base are swapped in a call (inv_freq takes (dim, base))."
        )
    return ""


def sheet_check(module, sheet) -> None:
    check_student_id(module, sheet)


def inv_freq_check(module, sheet) -> str:
    got = call(module, "inv_freq")(sheet.dim, sheet.base)
    got = np.asarray(got, dtype=np.float64)
    expected = hf.default_inv_freq(sheet.dim, sheet.base)
    if got.shape != expected.shape:
        if got.size == int(sheet.base) // 2:
            raise Fail(
                f"inv_freq({sheet.dim}, {sheet.base:g}) returned {got.size} "
                "values: dim and base are swapped (the arguments are "
                "(dim, base); there are dim/2 frequencies)."
            )
        raise Fail(
            f"inv_freq({sheet.dim}, {sheet.base:g}) returned shape "
            f"{got.shape}: there is one theta_i per pair, dim/2 = "
            f"{sheet.dim // 2} of them."
        )
    if np.allclose(got, expected, rtol=1e-6, atol=0):
        return ""
    i = np.arange(sheet.dim // 2)
    for exponent, what in (
        (i / sheet.dim, "i/d: the exponent needs 2i/d"),
        (2 * i, "2i without /d: divide the exponent by d"),
        (i, "i: the exponent is 2i/d"),
    ):
        if np.allclose(got, sheet.base ** (-exponent), rtol=1e-6):
            raise Fail(f"inv_freq uses the exponent {what}.")
    raise Fail(
        "inv_freq differs from transformers' LlamaRotaryEmbedding.inv_freq"
        f" (theta_0 = {got[0]:.6g}, theta_last = {got[-1]:.6g}; expected "
        f"1 and {expected[-1]:.6g}): theta_i = base^(-2i/d)."
    )


def _rope_check(module, sheet, name: str, layout: str) -> str:
    fn = call(module, name)
    positions = np.asarray(sheet.positions)
    x = _inputs(sheet, 2, sheet.heads, len(positions), sheet.dim)
    reference = (
        hf.rotate_half if layout == "half" else hf.rotate_interleaved
    )(x, positions, sheet.base)

    def as_fn(rows, pos):
        return fn(rows, pos, sheet.base)

    try:
        got = _array(fn(x.copy(), positions, sheet.base), name, x.shape)
    except Fail:
        raise
    except Exception as error:
        message = (
            f"{name}(x, positions, base) raised {type(error).__name__}: "
            f"{str(error).strip()}." + _swapped(error, sheet)
        )
        raise Fail(
            message + "\n" + hf.diagnosis(as_fn, layout, sheet.dim, sheet.base)
        ) from error
    error = np.linalg.norm(got - reference, axis=-1) / np.linalg.norm(
        x, axis=-1
    )
    if error.max() <= TOLERANCE:
        return ""
    swapped = _cos_sin_swapped(x, positions, sheet, layout)
    if np.allclose(got, swapped, atol=TOLERANCE):
        raise Fail(
            f"{name} has cos and sin in each other's place: at position 0 "
            "it must return x unchanged (cos 0 = 1 multiplies x, sin 0 = 0 "
            "multiplies the partner). Use x * cos + rotate(x) * sin."
        )
    where = np.unravel_index(np.argmax(error), error.shape)
    pairs = "(i, i + d/2)" if layout == "half" else "(2i, 2i + 1)"
    message = (
        f"{name} differs from transformers (pairs {pairs}, "
        f"theta_i = base^(-2i/d)): relative error {error.max():.2g} at "
        f"position {positions[where[-1]]} (your sheet: dim {sheet.dim}, "
        f"base {sheet.base:g})."
    )
    found = hf.diagnosis(as_fn, layout, sheet.dim, sheet.base)
    raise Fail(message + ("\n" + found if found else ""))


def _cos_sin_swapped(x, positions, sheet, layout: str) -> np.ndarray:
    """The rotation with cos and sin exchanged (a common slip)."""
    dim = sheet.dim
    theta = hf.default_inv_freq(dim, sheet.base)
    angles = np.asarray(positions, dtype=np.float64)[:, None] * theta
    cos, sin = np.sin(angles), np.cos(angles)
    if layout == "half":
        first, second = np.arange(dim // 2), np.arange(dim // 2, dim)
    else:
        first, second = np.arange(0, dim, 2), np.arange(1, dim, 2)
    out = np.empty_like(x)
    out[..., first] = x[..., first] * cos - x[..., second] * sin
    out[..., second] = x[..., second] * cos + x[..., first] * sin
    return out


def _rope_half_hint(module, sheet) -> str:
    """' Fix rope_half first...' when the student's rope_half is wrong."""
    try:
        half_check(module, sheet)
    except Exception:
        return (
            " Your rope_half fails test 2.2, and the cache uses it: fix "
            "rope_half first."
        )
    return ""


def half_check(module, sheet) -> str:
    return _rope_check(module, sheet, "rope_half", "half")


def interleaved_check(module, sheet) -> str:
    return _rope_check(module, sheet, "rope_interleaved", "interleaved")


def _decode_inputs(sheet):
    t = sheet.prefill
    return (
        _inputs(sheet, 1, sheet.heads, t + 1, sheet.dim)[0],
        _inputs(sheet, 2, sheet.heads, t + 1, sheet.dim)[0],
        _inputs(sheet, 3, sheet.heads, t + 1, sheet.dim)[0],
    )


def _cache(value, name: str, heads: int, t: int, dim: int):
    if not isinstance(value, dict) or set(value) < {"k", "v"}:
        raise Fail(f"{name} must return a dict with 'k' and 'v'.")
    shape = (heads, t, dim)
    return (
        _array(value["k"], f"{name}['k']", shape),
        _array(value["v"], f"{name}['v']", shape),
    )


def prefill_check(module, sheet) -> str:
    _, k, v = _decode_inputs(sheet)
    t = sheet.prefill
    cache = call(module, "prefill")(
        k[:, :t].copy(), v[:, :t].copy(), sheet.base
    )
    keys, values = _cache(cache, "prefill", sheet.heads, t, sheet.dim)
    expected = hf.rotate_half(k[:, :t], np.arange(t), sheet.base)
    if not np.allclose(values, v[:, :t], atol=1e-9):
        raise Fail(
            "prefill changed the values: only queries and keys are "
            "rotated; keep v as it is in the cache."
        )
    if np.allclose(keys, k[:, :t], atol=1e-9):
        raise Fail(
            "prefill stores the keys unrotated: rotate each key at its "
            "position (0 ... t - 1) before caching it."
        )
    if not np.allclose(keys, expected, atol=TOLERANCE):
        raise Fail(
            "prefill's keys are not rope_half(k, [0 ... t - 1], base) "
            "(checked against transformers)." + _rope_half_hint(module, sheet)
        )
    return ""


def _decode(module, sheet):
    q, k, v = _decode_inputs(sheet)
    t = sheet.prefill
    cache = {
        "k": hf.rotate_half(k[:, :t], np.arange(t), sheet.base),
        "v": v[:, :t].copy(),
    }
    out, new = call(module, "decode_step")(
        q[:, t].copy(), k[:, t].copy(), v[:, t].copy(), cache, sheet.base
    )
    out = _array(out, "decode_step's output", (sheet.heads, sheet.dim))
    keys, values = _cache(
        new, "decode_step's cache", sheet.heads, t + 1, sheet.dim
    )
    return q, k, v, cache, out, keys, values


def cache_check(module, sheet) -> str:
    _, k, v, cache, _, keys, values = _decode(module, sheet)
    t = sheet.prefill
    if not np.allclose(keys[:, :t], cache["k"], atol=1e-9) or not (
        np.allclose(values[:, :t], cache["v"], atol=1e-9)
    ):
        raise Fail(
            "decode_step changed the entries already in the cache: they "
            "were rotated once, at their own positions; append the new "
            "token's key and value, change nothing else."
        )
    new_key = keys[:, t]
    if not np.allclose(values[:, t], v[:, t], atol=1e-9):
        if np.allclose(
            values[:, t],
            hf.rotate_half(v[:, t][:, None], [t], sheet.base)[:, 0],
            atol=TOLERANCE,
        ):
            raise Fail(
                "decode_step rotates the value: RoPE turns queries and "
                "keys only (their dot product carries the position); "
                "append v unchanged."
            )
        raise Fail("decode_step's new value is not the v it was given.")
    if np.allclose(new_key, k[:, t], atol=1e-9):
        raise Fail(
            "decode_step appends the new key unrotated: every cached key "
            "is rotated at its own position; rotate k at the new token's "
            "position before appending it."
        )
    for position in range(max(0, t - 2), t + 3):
        rotated = hf.rotate_half(k[:, t][:, None], [position], sheet.base)
        if np.allclose(new_key, rotated[:, 0], atol=TOLERANCE):
            if position == t:
                return ""
            raise Fail(
                f"decode_step rotates the new token at position {position},"
                f" but after a cache of {t} tokens (positions 0 ... {t - 1})"
                f" it is at position {t}: the position of the new token is "
                "the cache's length before appending (off by "
                f"{position - t:+d})."
            )
    raise Fail(
        "decode_step's new key is not k rotated by rope_half at the new "
        f"position {t} (checked against transformers)."
        + _rope_half_hint(module, sheet)
    )


def output_check(module, sheet) -> str:
    q, k, v, _, out, _, _ = _decode(module, sheet)
    t = sheet.prefill
    k_all = hf.rotate_half(k, np.arange(t + 1), sheet.base)
    q_new = hf.rotate_half(q[:, t][:, None], [t], sheet.base)[:, 0]
    scores = np.einsum("hd,htd->ht", q_new, k_all) / np.sqrt(sheet.dim)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    expected = np.einsum("ht,htd->hd", weights, v)
    if np.allclose(out, expected, atol=TOLERANCE):
        return ""
    unrotated_q = np.einsum("hd,htd->ht", q[:, t], k_all) / np.sqrt(sheet.dim)
    w = np.exp(unrotated_q - unrotated_q.max(axis=-1, keepdims=True))
    if np.allclose(
        out,
        np.einsum("ht,htd->hd", w / w.sum(-1, keepdims=True), v),
        atol=TOLERANCE,
    ):
        raise Fail(
            "decode_step's query is not rotated: rotate q at the new "
            f"position {t} too."
        )
    raise Fail(
        "decode_step's output is not softmax(q K^T / sqrt(d)) V over the "
        f"{t + 1} tokens, with q and the new key rotated at position {t} "
        "(see test 2.5 first when it fails too)."
        + _rope_half_hint(module, sheet)
    )


CHECKS = [
    Check("2.0", "STUDENT_ID is yours", 1, sheet_check),
    Check("2.1", "inv_freq against transformers", 2, inv_freq_check),
    Check("2.2", "rope_half against apply_rotary_pos_emb", 4, half_check),
    Check("2.3", "rope_interleaved (pairs 2i, 2i+1)", 4, interleaved_check),
    Check("2.4", "prefill: the cache of the prompt", 2, prefill_check),
    Check("2.5", "decode_step: the new key and value", 4, cache_check),
    Check("2.6", "decode_step: the attention output", 3, output_check),
]
