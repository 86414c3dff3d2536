"""ropelab.explorables.bundle: the browser's two scripts are the bundle of ``js/`` (issue 37).

The sources are one file a job (the core, one file per figure, the mounting, the decoder's
parts); the bundler joins them in a fixed order, rejects a name defined twice or a figure name
that shadows the core, and writes the decoder's rope types from ``ROPE_TYPES``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ropelab import decoder
from ropelab.explorables import bundle, decoder_script_path, script_path
from ropelab.interactive import kinds
from ropelab.rope_config import ROPE_TYPES

NODE = shutil.which("node")
DRIFT_JS = Path(__file__).parent / "js" / "decoder_drift.js"
REGISTER = re.compile(r"^register\('([\w-]+)',", re.M)


def test_the_generated_scripts_are_the_bundle():
    assert script_path().read_text(encoding="utf-8") == bundle.explore_script_text()
    assert decoder_script_path().read_text(encoding="utf-8") == bundle.decoder_script_text()
    assert script_path().parent == decoder_script_path().parent  # the decoder requires ./
    for text in (bundle.explore_script_text(), bundle.decoder_script_text()):
        assert text.startswith(bundle.GENERATED) and "do not edit" in text.splitlines()[0]


def test_every_source_file_is_at_most_400_lines():
    sources = sorted(bundle.JS_DIR.glob("*/*.js"))
    assert len(sources) > 30
    long = {
        p.name: n for p in sources if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert long == {}


def test_the_order_lists_every_source_once():
    listed = [
        bundle.EXPLORE_HEADER,
        *bundle.EXPLORE_CORE,
        *(f"figures/{kind}.js" for kind in bundle.FIGURES),
        *bundle.EXPLORE_TAIL,
        bundle.DECODER_HEADER,
        *bundle.DECODER_PARTS,
    ]
    on_disk = sorted(str(p.relative_to(bundle.JS_DIR)) for p in bundle.JS_DIR.glob("*/*.js"))
    assert sorted(listed) == on_disk and len(set(listed)) == len(listed)


def test_each_explorable_has_one_figure_file_that_registers_it():
    assert bundle.FIGURES == tuple(kinds(explorable=True))
    registered: dict[str, list[str]] = {}
    for path in sorted(bundle.JS_DIR.glob("*/*.js")):
        for kind in REGISTER.findall(path.read_text(encoding="utf-8")):
            registered.setdefault(kind, []).append(str(path.relative_to(bundle.JS_DIR)))
    assert registered == {kind: [f"figures/{kind}.js"] for kind in kinds(explorable=True)}
    # the script registers them in that order, one block each
    text = bundle.explore_script_text()
    blocks = re.findall(r"^  // figures/(\w+)\.js\n  \(function \(\) \{$", text, flags=re.M)
    assert blocks == list(kinds(explorable=True))


def _copy_sources(tmp_path: Path) -> Path:
    source = tmp_path / "js"
    shutil.copytree(bundle.JS_DIR, source)
    return source


def test_a_name_defined_by_two_core_parts_is_rejected(tmp_path):
    source = _copy_sources(tmp_path)
    (source / "core" / "planted.js").write_text(
        "// a second copy of a formula\nfunction invFreq(dim, base) {\n  return [];\n}\n",
        encoding="utf-8",
    )
    core = (*bundle.EXPLORE_CORE, "core/planted.js")
    with pytest.raises(ValueError, match=r"'invFreq'.*core/math\.js.*core/planted\.js"):
        bundle.bundle_explore(source_dir=source, core=core)
    # the same in a mount part, and a const
    (source / "mount" / "planted.js").write_text("const COLOURS = {};\n", encoding="utf-8")
    tail = (*bundle.EXPLORE_TAIL, "mount/planted.js")
    with pytest.raises(ValueError, match=r"'COLOURS'.*core/svg\.js.*mount/planted\.js"):
        bundle.bundle_explore(source_dir=source, tail=tail)
    # unplanted, the copy bundles to the script
    assert bundle.bundle_explore(source_dir=source) == bundle.explore_script_text()


def test_a_figure_name_that_shadows_a_core_name_is_rejected(tmp_path):
    source = _copy_sources(tmp_path)
    figure = source / "figures" / "spectrum.js"
    text = figure.read_text(encoding="utf-8")
    figure.write_text(text + "\nfunction fmtF(x) {\n  return String(x);\n}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"figures/spectrum\.js.*'fmtF'.*core/format\.js"):
        bundle.bundle_explore(source_dir=source)
    # two figures may each have a private helper of one name (their blocks keep them apart)
    figure.write_text(text + "\nconst LOCAL_NAME = 1;\n", encoding="utf-8")
    decay = source / "figures" / "decay.js"
    decay.write_text(decay.read_text(encoding="utf-8") + "\nconst LOCAL_NAME = 2;\n")
    assert "const LOCAL_NAME = 2;" in bundle.bundle_explore(source_dir=source)


def test_a_decoder_part_that_redefines_a_core_name_is_rejected(tmp_path):
    source = _copy_sources(tmp_path)
    part = source / "decoder" / "frequencies.js"
    part.write_text(
        part.read_text(encoding="utf-8") + "\nfunction yarnRamp() {\n  return [];\n}\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match=r"decoder/frequencies\.js.*'yarnRamp'.*core/rope\.js"):
        bundle.bundle_decoder(source_dir=source)


def test_the_decoder_defines_no_core_name():
    """One rope mathematics: the decoder reads invFreq, yarnRamp, … from the explore
    script's core and defines none of the core's names itself."""
    decoder = bundle.decoder_script_text()
    shared = {n for n, p in bundle.core_names().items() if p != bundle.EXPLORE_PRELUDE}
    assert {"invFreq", "yarnRamp", "yarnAttentionFactor", "llama3Frequencies", "fmtF"} <= shared
    # nothing at the script's top level (inside its IIFE) ...
    top = set(re.findall(r"^  (?:function|const|let|var|class)\s+([\w$]+)", decoder, re.M))
    assert top & shared == set()
    # ... and no function of the core's defined anywhere (no second invFreq)
    functions = set(re.findall(r"\bfunction\s+([\w$]+)\s*\(", decoder))
    core_functions = set(re.findall(r"^  function ([\w$]+)\(", bundle.explore_script_text(), re.M))
    assert functions & core_functions & shared == set()
    assert "core.invFreq(" in decoder and "core.yarnRamp(" in decoder
    assert "core.llama3Frequencies(" in decoder
    # and the explore script exports every core name under `core`
    explore = bundle.explore_script_text()
    for name in shared:
        assert re.search(rf"\b{re.escape(name)}: {re.escape(name)},", explore), name


def _records(rope_types) -> dict[str, dict]:
    """ROPE_TYPES's records as plain data, field by field (callables left out)."""

    def plain(value):
        if dataclasses.is_dataclass(value):
            return {
                field.name: plain(getattr(value, field.name))
                for field in dataclasses.fields(value)
                if not callable(getattr(value, field.name))
            }
        return [plain(v) for v in value] if isinstance(value, tuple) else value

    out = {name: plain(record) for name, record in rope_types.items()}
    assert out["llama3"]["gguf_tensor"] == "rope_freqs.weight"
    assert out["yarn"]["described"][0]["label"] == "beta_fast"
    return out


def _node_rope_types(script: Path) -> dict:
    code = f"process.stdout.write(JSON.stringify(require({json.dumps(str(script))}).ropeTypes))"
    done = subprocess.run([NODE, "-e", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_the_decoders_rope_types_are_rope_types_records():
    table = _node_rope_types(decoder_script_path())
    assert table == _records(ROPE_TYPES)
    assert list(table) == list(ROPE_TYPES)
    assert table["yarn"]["factor"] == "nullable" and table["longrope"]["required"] == [
        "short_factor",
        "long_factor",
    ]
    assert table["dynamic"]["needs_max_length"] is True


def _decode(script: Path, configs: list[dict]) -> list[dict]:
    request = json.dumps({"script": str(script), "texts": [json.dumps(c) for c in configs]})
    done = subprocess.run(
        [NODE, str(DRIFT_JS)], input=request, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_a_rope_type_without_a_js_frequency_function_is_an_error(tmp_path):
    """A type added to ROPE_TYPES flows into the decoder's table; with no JS frequency
    function for it the decoder reports an error (the drift test then disagrees with
    Python), never a silent fallback."""
    planted = dict(ROPE_TYPES)
    planted["planted"] = dataclasses.replace(ROPE_TYPES["linear"], name="planted")
    (tmp_path / "ropelab-explore.js").write_text(bundle.explore_script_text(), encoding="utf-8")
    script = tmp_path / "ropelab-decoder.js"
    script.write_text(bundle.decoder_script_text(planted), encoding="utf-8")
    assert _node_rope_types(script) == _records(planted)
    config = {"head_dim": 64, "max_position_embeddings": 8192, "rope_theta": 10000.0}
    using = dict(config, rope_scaling={"rope_type": "planted", "factor": 2.0})
    linear = dict(config, rope_scaling={"rope_type": "linear", "factor": 2.0})
    planted_result, linear_result = _decode(script, [using, linear])
    assert "planted" in planted_result.get("error", ""), planted_result
    assert "no frequency function" in planted_result["error"]
    assert "error" not in linear_result and linear_result["layers"][0]["rope_type"] == "linear"


def _same(py, js, where=""):
    """Python's record and Node's, after JSON: equal, numbers to 1e-9 relative."""
    if isinstance(py, dict):
        assert isinstance(js, dict) and set(py) - {"report", "notes"} == set(js), where
        for key in js:
            _same(py[key], js[key], f"{where}.{key}")
    elif isinstance(py, list):
        assert isinstance(js, list) and len(py) == len(js), (where, py, js)
        for i, (a, b) in enumerate(zip(py, js, strict=True)):
            _same(a, b, f"{where}[{i}]")
    elif isinstance(py, float | int) and not isinstance(py, bool):
        assert isinstance(js, float | int) and math.isclose(py, js, rel_tol=1e-9), (where, py, js)
    else:
        assert py == js, (where, py, js)


#: Configs whose records read every data field of the planted records below.
_RECORD_CONFIGS = {
    "yarn": {
        "model_type": "qwen2",
        "head_dim": 64,
        "num_attention_heads": 8,
        "num_hidden_layers": 2,
        "max_position_embeddings": 65536,
        "rope_theta": 1e6,
        "rope_scaling": {
            "rope_type": "yarn",
            "factor": 4.0,
            "original_max_position_embeddings": 8192,
            "beta_fast": 16,
            "beta_slow": 2,
            "truncate": False,
            "mscale": 1.0,
            "attention_factor": 1.2,
        },
    },
    "yarn factor 1": {
        "model_type": "llama",
        "head_dim": 64,
        "num_attention_heads": 8,
        "num_hidden_layers": 2,
        "max_position_embeddings": 8192,
        "rope_scaling": {"rope_type": "yarn", "factor": 1.0},
    },
    "llama3": {
        "model_type": "llama",
        "head_dim": 64,
        "num_attention_heads": 32,
        "num_hidden_layers": 2,
        "max_position_embeddings": 131072,
        "rope_theta": 500000.0,
        "rope_scaling": {
            "rope_type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
    },
    "phi3 su": {
        "model_type": "phi3",
        "hidden_size": 3072,
        "num_attention_heads": 32,
        "num_hidden_layers": 2,
        "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096,
        "rope_scaling": {"type": "su", "short_factor": [1.25] * 48, "long_factor": [1.5] * 48},
    },
}


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_the_js_decoder_follows_the_records_data(tmp_path, monkeypatch):
    """The decoder reads each record's data (described parameters, reference, layer
    warnings, GGUF scaling type, keys and tensor, default attention), never the type's name:
    with changed records it gives what Python gives with the same records."""
    planted = dict(ROPE_TYPES)
    yarn, llama3 = ROPE_TYPES["yarn"], ROPE_TYPES["llama3"]
    planted["yarn"] = dataclasses.replace(
        yarn,
        described=tuple(p for p in yarn.described if p.key != "beta_slow"),
        reference="factor_one",
        layer_warnings=(),
        gguf_scaling_type="planted-yarn",
        gguf_keys=tuple(reversed(yarn.gguf_keys)),
    )
    planted["llama3"] = dataclasses.replace(
        llama3, described=llama3.described[2:], gguf_tensor="planted_freqs.weight"
    )
    planted["longrope"] = dataclasses.replace(
        ROPE_TYPES["longrope"], default_attention="yarn", reference="factor_one"
    )
    (tmp_path / "ropelab-explore.js").write_text(bundle.explore_script_text(), encoding="utf-8")
    script = tmp_path / "ropelab-decoder.js"
    script.write_text(bundle.decoder_script_text(planted), encoding="utf-8")
    configs = list(_RECORD_CONFIGS.values())
    before = [json.loads(json.dumps(decoder.decode_config(c))) for c in configs]
    for name, record in planted.items():
        monkeypatch.setitem(ROPE_TYPES, name, record)
    after = [json.loads(json.dumps(decoder.decode_config(c))) for c in configs]
    for name, py, js in zip(_RECORD_CONFIGS, after, _decode(script, configs), strict=True):
        assert "error" not in js, (name, js)
        _same(py, js, name)
    # and the records' changes show: the planted records are not the shipped ones
    yarn_before, yarn_after = before[0], after[0]
    assert dict(yarn_before["layers"][0]["parameters"])["beta_slow"] == 2
    assert "beta_slow" not in dict(yarn_after["layers"][0]["parameters"])
    codes = {code for code, _ in yarn_before["warnings"] + before[1]["warnings"]}
    assert {"factor-vs-lengths", "yarn-truncate", "no-op-block"} <= codes
    assert not {code for code, _ in yarn_after["warnings"] + after[1]["warnings"]} & codes
    gguf = dict(yarn_after["gguf"])
    assert gguf["qwen2.rope.scaling.type"] == "planted-yarn"
    assert list(gguf)[1:3] == [
        "qwen2.rope.scaling.yarn_beta_slow",
        "qwen2.rope.scaling.yarn_beta_fast",
    ]
    assert ["tensor planted_freqs.weight", "32 values"] in after[2]["gguf"]
    # LongRoPE against itself at factor 1: every plane kept, none stretched
    assert (before[3]["layers"][0]["kept"], after[3]["layers"][0]["kept"]) == (0, 48)
    assert (
        dict(before[3]["gguf"])["phi3.rope.scaling.attn_factor"]
        != dict(after[3]["gguf"])["phi3.rope.scaling.attn_factor"]
    )


def test_check_reports_a_stale_script(tmp_path, monkeypatch, capsys):
    assert bundle.main(["--check"]) == 0
    stale = tmp_path / "ropelab-explore.js"
    stale.write_text("// an old copy\n", encoding="utf-8")
    monkeypatch.setattr(bundle, "_outputs", lambda: {stale: bundle.explore_script_text()})
    assert bundle.main(["--check"]) == 1
    assert "ropelab-explore.js" in capsys.readouterr().err
    assert bundle.main(["--write"]) == 0 and bundle.main(["--check"]) == 0
    assert stale.read_text(encoding="utf-8") == bundle.explore_script_text()
