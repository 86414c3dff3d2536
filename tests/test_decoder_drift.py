"""The browser's config decoder (ropelab-decoder.js) computes what ropelab.decoder computes.

Node runs the script's ``decodeText`` on the text of every shipped config and of 300 seeded
random configs (model families, both spellings, every rope type, partial rotation, layer
types, NoPE flags, legacy keys, and broken values); each record must equal Python's
``decode_text``: every count, string and flag exactly, every real number to 1e-9 relative,
every warning code, every GGUF key. A config Python cannot read, the script cannot read
either, and both messages name the same field.

The page shows each record in its language (``view``): on a Chinese page every label and
sentence is Chinese and the numbers are those of the English view, written the same way.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ropelab.configs import load_config, shipped_configs
from ropelab.decoder import decode_text
from ropelab.explorables import decoder_script_path

NODE = shutil.which("node")
DRIFT_JS = Path(__file__).parent / "js" / "decoder_drift.js"
RANDOM_CONFIGS = 300
pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")

#: What Python's record holds that the page does not recompute: the text report (Python's
#: str(describe_config)) and the notes on how the spelling was read.
PYTHON_ONLY = ("report", "notes")


def run_node(texts: list[str]) -> list[dict[str, Any]]:
    request = json.dumps({"script": str(decoder_script_path()), "texts": texts})
    done = subprocess.run(
        [NODE, str(DRIFT_JS)], input=request, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def assert_same(py: Any, js: Any, where: str = "") -> None:
    if isinstance(py, dict):
        assert isinstance(js, dict), where
        keys = set(py) - set(PYTHON_ONLY)
        assert keys == set(js) - set(PYTHON_ONLY), (where, keys ^ set(js))
        for key in keys:
            assert_same(py[key], js[key], f"{where}.{key}")
    elif isinstance(py, list | tuple):
        assert isinstance(js, list) and len(py) == len(js), (where, py, js)
        for i, (a, b) in enumerate(zip(py, js, strict=True)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(py, bool) or py is None or isinstance(py, str):
        assert py == js, (where, py, js)
    else:
        assert isinstance(js, int | float) and not isinstance(js, bool), (where, py, js)
        assert math.isclose(py, js, rel_tol=1e-9, abs_tol=1e-300), (where, py, js)


def field_of(message: str) -> str | None:
    """The first field a message names: rope_scaling['x'] or a bare key name."""
    match = re.search(r"\['(\w+)'\]", message) or re.match(r"(\w+)", message)
    return match.group(1) if match else None


def compare(text: str, py: dict, js: dict) -> None:
    if "error" in py:
        assert "error" in js, (text, py["error"], js)
        if not py["error"].startswith(("not JSON", "the text must")):
            assert field_of(py["error"]) == field_of(js["error"]), (text, py, js)
        return
    assert "error" not in js, (text, js)
    assert_same(py, js)


def random_config(rng: np.random.Generator) -> dict[str, Any]:
    """A config as a reader might paste it: mostly valid, sometimes not."""
    pick = lambda options: options[int(rng.integers(len(options)))]  # noqa: E731
    model_type = pick(
        [
            "llama",
            "qwen3",
            "qwen3_next",
            "gemma3_text",
            "gemma3n_text",
            "olmo3",
            "smollm3",
            "phi3",
            "deepseek_v3",
            "kimi_k2",
            "gpt_neox",
            "cohere2",
            "exaone4",
            "llama4_text",
            "glm4_moe",
            "unknown",
        ]
    )
    layers = int(pick([4, 8, 12, 24]))
    heads = int(pick([4, 8, 16]))
    head = int(pick([32, 64, 96, 128, 256]))
    config: dict[str, Any] = {
        "model_type": model_type,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "max_position_embeddings": int(pick([2048, 4096, 32768, 131072])),
    }
    if rng.random() < 0.7:
        config["head_dim"] = head
    else:
        config["hidden_size"] = head * heads
    if rng.random() < 0.3:
        config["partial_rotary_factor"] = float(pick([0.25, 0.5, 0.75, 1.0]))
    base = float(pick([10000.0, 500000.0, 1e6, 5e6]))
    kind = pick(["default", "linear", "dynamic", "yarn", "longrope", "llama3"])
    original = int(pick([2048, 4096, 8192]))
    factor = float(pick([1.0, 2.0, 4.0, 8.0, 32.0]))
    rope: dict[str, Any] = {"rope_type": kind}
    if kind != "default":
        rope["factor"] = factor
    if kind in ("yarn", "longrope", "llama3") and rng.random() < 0.8:
        rope["original_max_position_embeddings"] = original
    if kind == "yarn":
        if rng.random() < 0.4:
            rope["beta_fast"], rope["beta_slow"] = pick([(32.0, 1.0), (1.0, 1.0), (16.0, 2.0)])
        if rng.random() < 0.3:
            rope["truncate"] = bool(rng.random() < 0.5)
        if model_type in ("deepseek_v3", "kimi_k2") and rng.random() < 0.7:
            rope["mscale"] = rope["mscale_all_dim"] = float(pick([1.0, 0.707]))
    if kind == "llama3":
        rope["low_freq_factor"], rope["high_freq_factor"] = pick([(1.0, 4.0), (1.0, 1.0)])
    if kind == "longrope":
        partial = config.get("partial_rotary_factor", 1.0)
        planes = int(head * partial) // 2
        rope["short_factor"] = [1.0] * planes
        rope["long_factor"] = [round(1 + i * 0.5, 3) for i in range(planes)]
    if model_type in ("deepseek_v3", "kimi_k2"):
        config["qk_rope_head_dim"], config["qk_nope_head_dim"] = 64, 128
    if model_type in ("qwen3", "unknown") and rng.random() < 0.7:
        rope["mrope_section"] = [16, 8, 8]  # Qwen2-VL / Qwen3-VL sections
        if rng.random() < 0.5:
            rope["mrope_interleaved"] = True
        if kind == "default" and rng.random() < 0.3:
            rope["rope_type"] = "mrope"  # the legacy name, read as default
    if model_type in ("gemma3_text", "gemma3n_text") and rng.random() < 0.5:
        config["rope_local_base_freq"] = 10000.0
    if model_type == "llama4_text" and rng.random() < 0.5:
        config["attn_temperature_tuning"] = pick([4, True, False, None])
    if model_type == "phi3" and kind == "longrope" and rng.random() < 0.5:
        rope["rope_type"] = "su"  # Phi-3's first release
    if model_type in ("smollm3", "llama4_text") and rng.random() < 0.5:
        config["no_rope_layers"] = [int((i + 1) % 4 != 0) for i in range(layers)]
    if model_type in ("cohere2", "exaone4", "olmo3") and rng.random() < 0.7:
        config["sliding_window"] = 4096
    spelling = rng.random()
    if spelling < 0.5:  # transformers 4: rope_theta at the top, rope_scaling
        config["rope_theta"] = base
        if kind != "default":
            legacy = dict(rope)
            if rng.random() < 0.3:
                legacy["type"] = legacy.pop("rope_type")
            config["rope_scaling"] = legacy
    else:  # transformers 5
        config["rope_parameters"] = dict(rope, rope_theta=base)
    broken = rng.random()
    if broken < 0.04:
        config["head_dim"] = 63
    elif broken < 0.08:
        config["rope_theta"] = -1.0
    elif broken < 0.12 and kind in ("linear", "dynamic", "llama3"):
        (config.get("rope_scaling") or config["rope_parameters"]).pop("factor", None)
    elif broken < 0.15:
        config["max_position_embeddings"] = 1.5
    return config


def cases() -> list[str]:
    texts = [json.dumps(load_config(name)) for name in shipped_configs()]
    rng = np.random.default_rng(20260)
    texts += [json.dumps(random_config(rng)) for _ in range(RANDOM_CONFIGS)]
    texts += [
        '{"hidden_size": ',
        "[1, 2, 3]",
        '{"model_type": "<img src=x onerror=alert(1)>", "head_dim": 64}',
        '{"head_dim": 64, "rope_scaling": {"rope_type": "linear"}}',
        '{"head_dim": 64, "rope_scaling": {"rope_type": "nope"}}',
    ]
    return texts


def test_the_script_decodes_every_config_as_python_does():
    texts = cases()
    results = run_node(texts)
    decoded = errors = 0
    for text, js in zip(texts, results, strict=True):
        py = decode_text(text)
        compare(text, py, js)
        errors += "error" in py
        decoded += "error" not in py
    assert decoded >= 250 and errors >= 10  # the seeded mix exercises both
    kinds = {layer["rope_type"] for r in results if "layers" in r for layer in r["layers"]}
    assert kinds >= {"default", "linear", "dynamic", "yarn", "longrope", "llama3"}


def test_a_perturbed_formula_is_caught(tmp_path):
    """Planting a 1e-7 relative error in the YaRN ramp makes the comparison fail."""
    source = decoder_script_path().read_text(encoding="utf-8")
    planted = source.replace(
        "(1 - w[i]) * t + w[i] * (t / spec.factor)",
        "(1 - w[i]) * t + w[i] * (t / spec.factor) * (1 + 1e-7)",
    )
    assert planted != source
    copy = tmp_path / "ropelab-decoder.js"
    copy.write_text(planted, encoding="utf-8")
    (tmp_path / "ropelab-explore.js").write_text(
        (decoder_script_path().parent / "ropelab-explore.js").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    text = json.dumps(load_config("qwen2.5-7b-instruct-yarn"))
    request = json.dumps({"script": str(copy), "texts": [text]})
    done = subprocess.run(
        [NODE, str(DRIFT_JS)], input=request, capture_output=True, text=True, check=True
    )
    with pytest.raises(AssertionError):
        compare(text, decode_text(text), json.loads(done.stdout)[0])


CJK = re.compile(r"[\u3400-\u9fff]")
NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)*(?:e[-+]\d+)?")


def view_strings(view: Any) -> list[str]:
    """Every string of a view, in order (the numbers are written into them)."""
    if isinstance(view, str):
        return [view]
    if isinstance(view, dict):
        return [s for key in sorted(view) for s in view_strings(view[key])]
    if isinstance(view, list):
        return [s for item in view for s in view_strings(item)]
    return [json.dumps(view)]


def run_views(script: Path, texts: list[str]) -> list[list[Any]]:
    request = json.dumps({"script": str(script), "texts": texts, "views": True})
    done = subprocess.run(
        [NODE, str(DRIFT_JS)], input=request, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def view_problems(views: list[list[Any]], texts: list[str]) -> list[str]:
    problems = []
    for text, (english, chinese) in zip(texts, views, strict=True):
        en, zh = view_strings(english), view_strings(chinese)
        if sorted(NUMBER.findall(" ".join(en))) != sorted(NUMBER.findall(" ".join(zh))):
            problems.append(f"{text[:80]}: numbers differ\n{en}\n{zh}")
        elif set(english) != set(chinese) or not CJK.search(" ".join(zh)):
            problems.append(f"{text[:80]}: the Chinese view is not a translation\n{zh}")
    return problems


def test_the_view_reads_the_same_numbers_in_both_languages():
    texts = cases()
    views = run_views(decoder_script_path(), texts)
    assert view_problems(views, texts) == []
    decoded = [v for v, t in zip(views, texts, strict=True) if "error" not in v[0]]
    assert len(decoded) >= 250
    # the fixed words of a Chinese page are Chinese; the names from the config are kept
    english, chinese = decoded[0]
    assert english["title"] == chinese["title"]
    assert all(CJK.search(name) for name, _ in chinese["layers"][0]["rows"][:10])
    assert [v for _, v in english["layers"][0]["rows"][:10]] == [
        v for _, v in chinese["layers"][0]["rows"][:10]
    ]


def test_a_chinese_view_with_another_number_is_caught(tmp_path):
    source = decoder_script_path().read_text(encoding="utf-8")
    before = "`${n0(b.bound)} 个 token（d_extra = ${b.critical_dim}）`"
    assert source.count(before) == 1
    planted = source.replace(before, "`${n0(b.bound)} 个 token`")
    copy = tmp_path / "ropelab-decoder.js"
    copy.write_text(planted, encoding="utf-8")
    (tmp_path / "ropelab-explore.js").write_text(
        (decoder_script_path().parent / "ropelab-explore.js").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    texts = [json.dumps(load_config(name)) for name in shipped_configs()]
    problems = view_problems(run_views(copy, texts), texts)
    assert problems and all("numbers differ" in p for p in problems)
