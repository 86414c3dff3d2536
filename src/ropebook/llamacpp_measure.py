"""Chapter 8A's llama.cpp runs: tiny seeded models built in transformers, converted by
llama.cpp's own converter, run in llama.cpp, and compared with transformers position by
position.

    python tools/llamacpp_measure.py [--write] [--work DIR]

Needs ``make llamacpp`` (node-llama-cpp 3.21.1 from the npm registry: prebuilt CPU binaries
and, in the same package, the llama.cpp source of that release). For every model it records

* the GGUF rope metadata and rope tensors the converter wrote (read back with the ``gguf``
  package shipped in the same llama.cpp tree);
* the largest difference between llama.cpp's and transformers' next-token log-probabilities
  over every position and vocabulary entry (both float32), and the same against a
  transformers model *without* the model's rope scaling, which shows the comparison sees
  the rope settings;
* whether the converter reordered the query rows (llama.cpp's interleaved-pair rope type
  needs the half-split rows of transformers' Llama permuted; half-split rope types keep them);
* a context shift: a prefix is evaluated, cells are erased from the cache (llama.cpp moves
  the later cells back and re-rotates their keys), a continuation is evaluated, and its
  log-probabilities are compared with a recomputation.

``--write`` stores the record in ``src/ropelab/measured/llamacpp.json`` (the chapter reads it);
``tests/test_llamacpp.py`` runs this again on every ``make test`` and compares.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ropebook import ROOT

LLAMACPP_DIR = ROOT / "tools" / "llamacpp"
SOURCE_DIR = ROOT / "_build" / "llamacpp" / "src"
RECORD = ROOT / "src" / "ropelab" / "measured" / "llamacpp.json"

VOCABULARY = 259  # llama-spm's three special tokens and 256 byte tokens
TOKENS = 192  # past every scaled model's original length of 64
CONTEXT = 256
NODE_LLAMA_CPP = "3.21.1"
SHIFT = {"prefix": 96, "erase": (16, 48), "continuation": 64}


@dataclass(frozen=True)
class TinyModel:
    """One tiny model: its transformers config class, the config fields, and the fields of a
    control config that differs only in the rope settings."""

    name: str
    config_class: str
    model_class: str
    fields: dict[str, Any]
    control: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    alternatives: dict[str, dict[str, Any]] = field(default_factory=dict)
    swa: bool = False
    vision: dict[str, Any] | None = None  # a vision-language model: the text fields nest
    interleaved: bool = False  # transformers rotates adjacent pairs (its cos/sin interleaved)


COMMON = {
    "vocab_size": VOCABULARY,
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": CONTEXT,
    "tie_word_embeddings": False,
}
PLAIN = {"rope_type": "default", "rope_theta": 10000.0}
YARN_4 = {
    "rope_type": "yarn",
    "factor": 4.0,
    "original_max_position_embeddings": 64,
    "rope_theta": 10000.0,
}
QWEN_VL_ROPE = {"rope_type": "default", "mrope_section": [2, 3, 3], "rope_theta": 1000000.0}
QWEN3_VL_ROPE = {
    "rope_type": "default",
    "mrope_section": [3, 3, 2],
    "mrope_interleaved": True,
    "rope_theta": 1000000.0,
}
QWEN3_VL_VISION = {
    "depth": 1,
    "hidden_size": 32,
    "num_heads": 2,
    "intermediate_size": 64,
    "out_hidden_size": 64,
    "deepstack_visual_indexes": [0],
}
GEMMA3 = {
    "head_dim": 16,
    "num_hidden_layers": 6,
    "layer_types": ["sliding_attention"] * 5 + ["full_attention"],
    "sliding_window": 512,  # wider than every run: the window itself is not under test
    "query_pre_attn_scalar": 16,
}
GEMMA3_BASES = {
    "sliding_attention": {"rope_type": "default", "rope_theta": 100.0},
    "full_attention": {"rope_type": "default", "rope_theta": 1000000.0},
}

MODELS = [
    TinyModel(
        "llama-linear",
        "LlamaConfig",
        "LlamaForCausalLM",
        {"rope_parameters": {"rope_type": "linear", "factor": 4.0, "rope_theta": 10000.0}},
        {"rope_parameters": PLAIN},
        "Llama, linear interpolation, factor 4",
    ),
    TinyModel(
        "llama-yarn",
        "LlamaConfig",
        "LlamaForCausalLM",
        {"rope_parameters": YARN_4},
        {"rope_parameters": PLAIN},
        "Llama, YaRN factor 4 from 64 positions, no attention factor in the config",
    ),
    TinyModel(
        "llama-yarn-attn",
        "LlamaConfig",
        "LlamaForCausalLM",
        {
            "rope_parameters": {
                **YARN_4,
                "attention_factor": 1.25,
                "beta_fast": 16.0,
                "beta_slow": 2.0,
            }
        },
        {"rope_parameters": PLAIN},
        "Llama, YaRN with an explicit attention factor 1.25 and betas 16 and 2",
        alternatives={
            "attention factor 1 + 0.1 ln s, the config's betas 16 and 2": {
                "rope_parameters": {**YARN_4, "beta_fast": 16.0, "beta_slow": 2.0}
            },
            "attention factor 1 + 0.1 ln s, YaRN's default betas 32 and 1": {
                "rope_parameters": YARN_4
            },
        },
    ),
    TinyModel(
        "llama3",
        "LlamaConfig",
        "LlamaForCausalLM",
        {
            "rope_parameters": {
                "rope_type": "llama3",
                "factor": 8.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 64,
                "rope_theta": 500000.0,
            }
        },
        {"rope_parameters": {"rope_type": "default", "rope_theta": 500000.0}},
        "Llama 3.1 scaling, factor 8 from 64 positions",
    ),
    TinyModel(
        "qwen2",
        "Qwen2Config",
        "Qwen2ForCausalLM",
        {"rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0}},
        {"rope_parameters": PLAIN},
        "Qwen2, base 10^6",
    ),
    TinyModel(
        "qwen3-yarn",
        "Qwen3Config",
        "Qwen3ForCausalLM",
        {
            "head_dim": 16,
            "rope_parameters": {
                "rope_type": "yarn",
                "factor": 4.0,
                "original_max_position_embeddings": 64,
                "rope_theta": 1000000.0,
            },
        },
        {"head_dim": 16, "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0}},
        "Qwen3 with the model cards' YaRN block (type, factor, original length), scaled down",
    ),
    TinyModel(
        "qwen2vl-mrope",
        "Qwen2VLConfig",
        "Qwen2VLForConditionalGeneration",
        {"rms_norm_eps": 1e-5, "rope_parameters": {**QWEN_VL_ROPE, "mrope_section": [2, 3, 3]}},
        {"rms_norm_eps": 1e-5, "rope_parameters": {**QWEN_VL_ROPE, "rope_theta": 10000.0}},
        "Qwen2-VL, M-RoPE sections 2, 3, 3 (text tokens only: every axis gets the same position)",
        alternatives={
            "RMS norm epsilon 0 instead of the config's 10^-5": {
                "rms_norm_eps": 0.0,
                "rope_parameters": {**QWEN_VL_ROPE, "mrope_section": [2, 3, 3]},
            }
        },
        vision={"depth": 1, "embed_dim": 32, "num_heads": 2, "hidden_size": 64, "mlp_ratio": 2},
    ),
    TinyModel(
        "qwen3vl-imrope",
        "Qwen3VLConfig",
        "Qwen3VLForConditionalGeneration",
        {"head_dim": 16, "rope_parameters": {**QWEN3_VL_ROPE, "mrope_section": [3, 3, 2]}},
        {"head_dim": 16, "rope_parameters": {**QWEN3_VL_ROPE, "rope_theta": 10000.0}},
        "Qwen3-VL, interleaved M-RoPE with sections 3, 3, 2 (text tokens only)",
        vision=QWEN3_VL_VISION,
    ),
    TinyModel(
        "qwen3vl-sections",
        "Qwen3VLConfig",
        "Qwen3VLForConditionalGeneration",
        {"head_dim": 16, "rope_parameters": {**QWEN3_VL_ROPE, "mrope_section": [2, 3, 3]}},
        {"head_dim": 16, "rope_parameters": {**QWEN3_VL_ROPE, "rope_theta": 10000.0}},
        "Qwen3-VL, interleaved M-RoPE with sections 2, 3, 3: the time axis gets fewer planes "
        "than the other two (Qwen3-VL's released 24, 20, 20 does the opposite)",
        alternatives={
            "plane 6 not rotated (llama.cpp gives it the fourth position, 0 for text)": {
                "head_dim": 16,
                "rope_parameters": {**QWEN3_VL_ROPE, "mrope_section": [2, 3, 3]},
                "_still_planes": [6],
            }
        },
        vision=QWEN3_VL_VISION,
    ),
    TinyModel(
        "cohere-interleaved",
        "CohereConfig",
        "CohereForCausalLM",
        # Command R ties the output to the embedding; its converter expects that
        {"rope_parameters": PLAIN, "logit_scale": 1.0, "tie_word_embeddings": True},
        {
            "rope_parameters": {"rope_type": "default", "rope_theta": 100.0},
            "logit_scale": 1.0,
            "tie_word_embeddings": True,
        },
        "Cohere (Command R): transformers rotates adjacent pairs, as llama.cpp's NORM does",
        interleaved=True,
    ),
    TinyModel(
        "phi-partial",
        "PhiConfig",
        "PhiForCausalLM",
        {
            # llama.cpp's phi2 has no grouped-query attention, and its converter writes a
            # feed-forward width of four times the hidden size
            "num_key_value_heads": 4,
            "intermediate_size": 256,
            "rope_parameters": {
                "rope_type": "default",
                "rope_theta": 10000.0,
                "partial_rotary_factor": 0.5,
            },
        },
        {
            "num_key_value_heads": 4,
            "intermediate_size": 256,
            "rope_parameters": {
                "rope_type": "default",
                "rope_theta": 10000.0,
                "partial_rotary_factor": 1.0,
            },
        },
        "Phi-2 style, half of each head rotated",
    ),
    TinyModel(
        "gemma3-two-bases",
        "Gemma3TextConfig",
        "Gemma3ForCausalLM",
        {**GEMMA3, "rope_parameters": GEMMA3_BASES},
        {**GEMMA3, "rope_parameters": {**GEMMA3_BASES, "sliding_attention": PLAIN}},
        "Gemma 3 text, six layers (five local, one global), local base 100 (not the usual "
        "10,000) and global base 10^6",
        swa=True,
    ),
    TinyModel(
        "gemma3-layer-types",
        "Gemma3TextConfig",
        "Gemma3ForCausalLM",
        {
            **GEMMA3,
            "num_hidden_layers": 2,
            "layer_types": ["sliding_attention", "full_attention"],
            "rope_parameters": GEMMA3_BASES,
        },
        {
            **GEMMA3,
            "num_hidden_layers": 2,
            "layer_types": ["sliding_attention", "full_attention"],
            "rope_parameters": {**GEMMA3_BASES, "sliding_attention": PLAIN},
        },
        "Gemma 3 text with two layers, local then global (not Gemma 3's five-to-one pattern)",
        alternatives={
            "both layers local (base 100)": {
                **GEMMA3,
                "num_hidden_layers": 2,
                "layer_types": ["sliding_attention", "sliding_attention"],
                "rope_parameters": GEMMA3_BASES,
            }
        },
    ),
]


def token_ids(count: int, seed: int = 0) -> list[int]:
    """Seeded token ids outside the three special tokens."""
    rng = np.random.default_rng(seed)
    return [int(t) for t in rng.integers(3, VOCABULARY, size=count)]


def build(spec: TinyModel, fields: dict[str, Any], out: Path | None = None, seed: int = 0):
    import torch
    import transformers

    torch.manual_seed(seed)
    fields = dict(fields)
    still = fields.pop("_still_planes", [])
    if spec.vision is None:
        config = getattr(transformers, spec.config_class)(**{**COMMON, **fields})
    else:
        config = getattr(transformers, spec.config_class)(
            text_config={**COMMON, **fields},
            vision_config=spec.vision,
            vocab_size=VOCABULARY,
            tie_word_embeddings=False,
            bos_token_id=1,
            eos_token_id=2,
            image_token_id=VOCABULARY - 1,
            video_token_id=VOCABULARY - 2,
            vision_start_token_id=VOCABULARY - 3,
        )
    model = getattr(transformers, spec.model_class)(config).eval()
    for name, module in model.named_modules():  # text planes that do not rotate: frequency 0
        if still and hasattr(module, "inv_freq") and "visual" not in name:
            module.inv_freq[still] = 0.0
    if out is not None:
        model.save_pretrained(out)
        # Gemma's converter counts the vocabulary rows it keeps in tokenizer.json.
        vocabulary = {f"<{i}>": i for i in range(VOCABULARY)}
        (out / "tokenizer.json").write_text(
            json.dumps({"model": {"vocab": vocabulary}, "added_tokens": []})
        )
    return model


def transformers_logprobs(model, tokens: list[int]) -> np.ndarray:
    import torch

    with torch.no_grad():
        logits = model(torch.tensor([tokens])).logits[0].float()
    return torch.log_softmax(logits, dim=-1).numpy().astype(np.float64)


def transformers_shift_logprobs(
    model,
    prefix: list[int],
    erase: tuple[int, int],
    continuation: list[int],
    factor_again: bool = False,
    interleaved: bool = False,
) -> np.ndarray:
    """The exact counterpart of llama.cpp's context shift, done in transformers.

    Evaluate ``prefix`` with a cache, delete the cached keys and values of positions
    ``erase[0] .. erase[1] - 1``, rotate every later cached key back by
    Δ = ``erase[1] - erase[0]`` positions (the pure rotation R(-Δ θ'_i) of each plane, with
    each layer's own frequencies and no attention factor: the cached keys carry it once
    already), then evaluate ``continuation`` from position ``len(prefix) - Δ``. The erased
    tokens still shaped the later tokens' cached states in every layer past the first, so
    this differs from a recomputation. ``factor_again`` also multiplies every kept key by
    the attention factor once more (what a shift would do if it applied the factor again);
    ``interleaved`` pairs adjacent coordinates, as the model's own rotation does.
    """
    import torch

    start, end = erase
    delta = end - start
    rotary = model.model.rotary_emb
    per_layer_type = isinstance(rotary.rope_type, dict)  # Gemma 3: one table per layer type
    probe = torch.zeros(1, 1, 1, dtype=torch.float32)
    with torch.no_grad():
        cache = model(torch.tensor([prefix]), use_cache=True).past_key_values
        for index, layer in enumerate(cache.layers):
            if not per_layer_type:
                cos, sin = rotary(probe, torch.tensor([[-delta]]))
                scaling = rotary.attention_scaling
            else:
                kind = model.config.layer_types[index]
                cos, sin = rotary(probe, torch.tensor([[-delta]]), kind)
                scaling = getattr(rotary, f"{kind}_attention_scaling")
            cos, sin = cos[0, 0] / scaling, sin[0, 0] / scaling
            rotated, half = cos.shape[-1], cos.shape[-1] // 2
            keys, values = layer.keys, layer.values
            later = keys[:, :, end:].clone()
            part = later[..., :rotated]
            if interleaved:  # pairs (2i, 2i + 1): (x, y) -> (-y, x)
                turned = torch.stack((-part[..., 1::2], part[..., 0::2]), dim=-1).flatten(-2)
            else:  # pairs (i, i + d/2)
                turned = torch.cat((-part[..., half:], part[..., :half]), dim=-1)
            later[..., :rotated] = part * cos + turned * sin
            kept = torch.cat((keys[:, :, :start], later), dim=2)
            if factor_again:
                kept[..., :rotated] = kept[..., :rotated] * scaling
            layer.keys = kept
            layer.values = torch.cat((values[:, :, :start], values[:, :, end:]), dim=2)
            if hasattr(layer, "cumulative_length"):  # a sliding-window layer counts its tokens
                layer.cumulative_length -= delta
        first = len(prefix) - delta
        positions = torch.arange(first, first + len(continuation))[None]
        logits = model(
            torch.tensor([continuation]), past_key_values=cache, position_ids=positions
        ).logits[0]
    return torch.log_softmax(logits.float(), dim=-1).numpy().astype(np.float64)


def read_gguf(path: Path):
    """A ``GGUFReader`` of ``path`` from the ``gguf-py`` of the llama.cpp tree that wrote it."""
    return llamacpp_gguf().GGUFReader(path)


def llamacpp_gguf():
    """The ``gguf`` package of the llama.cpp tree (``gguf-py/gguf``, not the one pip may have
    installed), imported once from its folder without putting the folder on ``sys.path``."""
    if "gguf" not in sys.modules:
        package = SOURCE_DIR / "gguf-py" / "gguf"
        spec = importlib.util.spec_from_file_location(
            "gguf", package / "__init__.py", submodule_search_locations=[str(package)]
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules["gguf"] = module
        spec.loader.exec_module(module)
    return sys.modules["gguf"]


def rope_metadata(reader) -> tuple[dict[str, Any], dict[str, list[float]]]:
    """The GGUF file's ``*.rope.*`` keys (and architecture) and its rope tensors."""
    keys: dict[str, Any] = {}
    for name, item in reader.fields.items():
        if ".rope." in name or name == "general.architecture":
            value = item.contents()
            keys[name] = round(value, 6) if isinstance(value, float) else value
    tensors = {
        t.name: [round(float(v), 6) for v in np.asarray(t.data).ravel()]
        for t in reader.tensors
        if t.name.startswith("rope")
    }
    return keys, tensors


def query_rows_permuted(spec: TinyModel, model, reader) -> bool:
    """True when the first layer's query rows in the GGUF file are a reordering of
    transformers' rows (llama.cpp's interleaved-pair rope type), False when identical."""
    stored = next(t for t in reader.tensors if t.name == "blk.0.attn_q.weight")
    weights = model.state_dict()
    ours = next(v for k, v in weights.items() if k.endswith("layers.0.self_attn.q_proj.weight"))
    ours = ours.numpy()
    written = np.asarray(stored.data).reshape(ours.shape)
    if np.array_equal(written, ours):
        return False
    rows = {row.tobytes() for row in ours}
    if all(row.tobytes() in rows for row in written):
        return True
    raise AssertionError(f"{spec.name}: stored query weight is not a row permutation")


def run_llamacpp(job: dict[str, Any], work: Path) -> dict[str, Any]:
    """One job in its own Node process. A shift that llama.cpp aborts on (a failed
    ``GGML_ASSERT`` ends the process) is recorded with the assertion, and the job is run
    again without the shift."""
    job_file = work / f"{job['name']}.job.json"
    job_file.write_text(json.dumps([job]))
    node = subprocess.run(
        ["node", str(LLAMACPP_DIR / "run_gguf.mjs"), str(job_file)],
        capture_output=True,
        text=True,
        cwd=LLAMACPP_DIR,
    )
    if node.returncode == 0:
        ran = json.loads(node.stdout)
        return {"release": ran["llama_cpp_release"], **ran["results"][0]}
    if "shift" not in job:
        raise RuntimeError(f"llama.cpp failed on {job['name']}:\n{node.stderr[-2000:]}")
    assertion = [line for line in node.stderr.splitlines() if "GGML_ASSERT" in line]
    if not assertion:
        raise RuntimeError(f"llama.cpp failed on {job['name']}:\n{node.stderr[-2000:]}")
    result = run_llamacpp({k: v for k, v in job.items() if k != "shift"}, work)
    where, _, message = assertion[-1].partition(": GGML_ASSERT")
    source_file = where.split("/llama.cpp/")[-1]
    result.update(
        shifted=None, shift_error=f"process aborted: GGML_ASSERT{message} ({source_file})"
    )
    return result


def largest_difference(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))))


def measure(work: Path) -> tuple[dict[str, Any], dict[str, float]]:
    """Build, convert and run every tiny model; return the record and the seconds the
    conversion and the runs took (not part of the record: they depend on the machine)."""
    if not (SOURCE_DIR / "convert_hf_to_gguf.py").exists():
        raise SystemExit("llama.cpp is not set up: run `make llamacpp` first")
    tokens = token_ids(TOKENS)
    prefix = token_ids(SHIFT["prefix"], seed=1)
    continuation = token_ids(SHIFT["continuation"], seed=2)
    models = {}
    convert_args = []
    for spec in MODELS:
        models[spec.name] = build(spec, spec.fields, work / spec.name)
        convert_args += [str(work / spec.name), str(work / f"{spec.name}.gguf")]
    started = time.perf_counter()
    converted = subprocess.run(
        [sys.executable, str(LLAMACPP_DIR / "convert.py"), str(SOURCE_DIR), *convert_args],
        capture_output=True,
        text=True,
    )
    if converted.returncode:
        raise RuntimeError(f"llama.cpp's converter failed:\n{converted.stderr[-3000:]}")
    convert_seconds = time.perf_counter() - started
    jobs = [
        {
            "name": spec.name,
            "model": str(work / f"{spec.name}.gguf"),
            "vocabulary": VOCABULARY,
            "context": CONTEXT,
            "tokens": tokens,
            "shift": {
                "prefix": prefix,
                "erase": list(SHIFT["erase"]),
                "continuation": continuation,
            },
        }
        for spec in MODELS
    ]
    started = time.perf_counter()
    results = [run_llamacpp(job, work) for job in jobs]
    swa_full = {
        spec.name: run_llamacpp({**job, "swa_full": True}, work)
        for spec, job in zip(MODELS, jobs, strict=True)
        if spec.swa
    }
    run_seconds = time.perf_counter() - started
    record: dict[str, Any] = {
        "llama_cpp_release": results[0]["release"],
        "node_llama_cpp": NODE_LLAMA_CPP,
        "vocabulary": VOCABULARY,
        "tokens": TOKENS,
        "shift": SHIFT,
        "models": {},
    }
    for spec, result in zip(MODELS, results, strict=True):
        model = models[spec.name]
        ours = transformers_logprobs(model, tokens)
        theirs = np.array(result["logprobs"], dtype=np.float64)
        reader = read_gguf(work / f"{spec.name}.gguf")
        keys, tensors = rope_metadata(reader)
        entry: dict[str, Any] = {
            "note": spec.note,
            "config": spec.fields,
            "gguf_keys": keys,
            "gguf_rope_tensors": tensors,
            "query_rows_permuted": query_rows_permuted(spec, model, reader),
            "max_logprob_difference": largest_difference(theirs, ours),
            # position 0 is rotated by the identity: what differs there is not rope
            "max_logprob_difference_position_0": largest_difference(theirs[0], ours[0]),
            "max_logprob_difference_without_rope_settings": largest_difference(
                theirs, transformers_logprobs(build(spec, spec.control), tokens)
            ),
            "max_logprob_difference_alternatives": {
                label: largest_difference(
                    theirs, transformers_logprobs(build(spec, fields), tokens)
                )
                for label, fields in spec.alternatives.items()
            },
            "shift": shift_entry(spec, model, result, prefix, continuation),
        }
        if spec.name in swa_full:
            entry["shift_swa_full_cache"] = shift_entry(
                spec, model, swa_full[spec.name], prefix, continuation
            )
        record["models"][spec.name] = entry
    seconds = {"convert": round(convert_seconds, 1), "run": round(run_seconds, 1)}
    return record, seconds


def shift_entry(
    spec: TinyModel, model, result: dict[str, Any], prefix: list[int], continuation: list[int]
) -> dict[str, Any]:
    """llama.cpp's shifted continuation against its own recomputation, against the exact
    counterpart in transformers, and against that counterpart with the attention factor
    applied a second time."""
    if result["shifted"] is None:
        return {"error": result["shift_error"]}
    shifted = result["shifted"]
    erase = SHIFT["erase"]
    layout = {"interleaved": spec.interleaved}
    return {
        "error": None,
        "max_difference_from_recomputation": largest_difference(shifted, result["recomputed"]),
        "max_difference_from_exact_shift": largest_difference(
            shifted, transformers_shift_logprobs(model, prefix, erase, continuation, **layout)
        ),
        "max_difference_from_shift_with_factor_again": largest_difference(
            shifted,
            transformers_shift_logprobs(
                model, prefix, erase, continuation, factor_again=True, **layout
            ),
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {RECORD.relative_to(ROOT)}")
    parser.add_argument("--work", type=Path, help="keep the models and GGUF files here")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        record, seconds = measure(work)
    text = json.dumps(record, indent=1, sort_keys=True)
    if args.write:
        RECORD.parent.mkdir(parents=True, exist_ok=True)
        RECORD.write_text(text + "\n")
    summary = {
        name: {k: v for k, v in m.items() if k not in ("note", "config", "gguf_rope_tensors")}
        for name, m in record["models"].items()
    }
    print(json.dumps(summary, indent=1))
    print(seconds, record["llama_cpp_release"])


if __name__ == "__main__":
    main()
