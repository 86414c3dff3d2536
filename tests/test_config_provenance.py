"""Every shipped config says how it was obtained (issue 22): a public copy of the released file
names the repository, path and commit it was read from and which fields came from it; every
other file says it was assembled or taken from defaults, and from what. A config that leaves
fields to its class's defaults (Gemma 3 27B's ``text_config``) is read as transformers reads
it, not rejected."""

from __future__ import annotations

import re

import pytest

from ropelab.config_fields import normalize_config
from ropelab.configs import load_config, shipped_configs, source_of
from ropelab.rope_config import frequencies_from_config

#: The configs chapter 8 listed when issue 22 added the labels; a config added later states
#: its provenance too, or chapter 8 prints "provenance not stated" for it.
LABELLED = (
    "codellama-7b",
    "deepseek-v2",
    "deepseek-v3",
    "gemma-3-1b-it",
    "gemma-3-27b-it",
    "gpt-neox-20b",
    "gpt-oss-20b",
    "llama-3.1-8b-instruct",
    "llama-4-scout-17b-16e-instruct",
    "ministral-3-8b-instruct-2512",
    "phi-3-mini-128k-instruct",
    "qwen2.5-7b-instruct-yarn",
)

#: What issue 22 found for those twelve: read from a public copy of the released file (with
#: repository, path and commit), or assembled from other sources (and labelled so).
FROM_A_COPY = {
    "codellama-7b",
    "deepseek-v3",
    "gemma-3-1b-it",
    "gemma-3-27b-it",
    "gpt-neox-20b",
    "gpt-oss-20b",
    "ministral-3-8b-instruct-2512",
    "phi-3-mini-128k-instruct",
}

#: The eleven 2025-26 configs issue 25 added (the models people run in 2026); each names its
#: public copy, or the derived copies it was assembled from, by repository, path and commit.
RECENT = (
    "gemma-3n-e2b-it",
    "glm-4.5",
    "gpt-oss-120b",
    "kimi-k2-instruct",
    "llama-3.2-1b-instruct",
    "olmo-3-7b",
    "phi-4-mini-instruct",
    "qwen3-30b-a3b-yarn",
    "qwen3-8b",
    "qwen3-next-80b-a3b-instruct",
    "smollm3-3b",
)

#: What issue 25 found for those eleven: a public copy of the released file (a mirror, a
#: re-save, a print) for these; only derived copies (a pruned file, training recipes, another
#: size's file, a GGUF's metadata) for the other five, which are labelled "assembled".
RECENT_FROM_A_COPY = {
    "gemma-3n-e2b-it",
    "gpt-oss-120b",
    "llama-3.2-1b-instruct",
    "qwen3-30b-a3b-yarn",
    "qwen3-8b",
    "smollm3-3b",
}

#: A label that claims a public copy (verbatim or not) of the released file.
COPY_LABEL = re.compile(r"^a (verbatim )?public (re-saved )?(copy|mirror)\b")
#: "owner/name path at commit <sha>": a repository, a path in it and a full commit.
REPO_PATH_COMMIT = re.compile(r"\b[\w.-]+/[\w.-]+ [\w./-]+ at commit [0-9a-f]{40}\b")
#: The keys of a file that are not rope fields (and so need no source).
NOT_ROPE = {"_source", "architectures", "model_type", "text_config"}

STATED = [n for n in shipped_configs() if n in LABELLED or "provenance" in source_of(n)]


def named_fields(fields: str, heading: str) -> set[str]:
    """The keys listed after ``heading`` ("from that copy:", "restored:") up to a ";"."""
    match = re.search(rf"{re.escape(heading)}\s*([^;]*)", fields)
    return {key.strip() for key in match.group(1).split(",")} if match else set()


def rope_keys(name: str) -> set[str]:
    config = load_config(name)
    text = config.get("text_config", config)
    return {key for key in text if key not in NOT_ROPE}


def test_the_labelled_configs_are_shipped():
    assert set(LABELLED) <= set(shipped_configs())


@pytest.mark.parametrize("name", STATED)
def test_provenance_is_stated(name):
    source = source_of(name)
    label = source["provenance"]
    assert label.strip() and len(label) <= 79 - 4, label  # printed indented in chapter 8
    if COPY_LABEL.match(label):
        assert REPO_PATH_COMMIT.search(source["copied_from"]), name
    else:
        assert any(w in label for w in ("assembled", "defaults", "copy", "card")), label
        assert "verbatim" not in label, label


@pytest.mark.parametrize("name", LABELLED)
def test_the_twelve_say_whether_a_copy_was_found(name):
    label = source_of(name)["provenance"]
    assert bool(COPY_LABEL.match(label)) == (name in FROM_A_COPY), label
    if name not in FROM_A_COPY:
        assert label.startswith("assembled") or "card" in label, label


@pytest.mark.parametrize(
    "name", [n for n in STATED if COPY_LABEL.match(source_of(n)["provenance"])]
)
def test_a_copy_names_every_field_it_gave(name):
    """Each rope field of the file came from the named copy, or is listed as restored."""
    fields = source_of(name)["fields"]
    taken = named_fields(fields, "from that copy:")
    restored = named_fields(fields, "restored:")
    card = named_fields(fields, "from the model card:")
    assert taken, fields
    assert not taken & restored and not taken & card and not restored & card
    assert taken | restored | card == rope_keys(name)


def test_restored_fields_are_the_ones_a_unit_test_shrinks():
    """The two Gemma 3 copies come from a unit test that shrinks the depth and the window."""
    for name, layers, window in (("gemma-3-1b-it", 26, 512), ("gemma-3-27b-it", 62, 1024)):
        assert named_fields(source_of(name)["fields"], "restored:") == {
            "num_hidden_layers",
            "sliding_window",
        }
        config = load_config(name)
        text = config.get("text_config", config)
        assert (text["num_hidden_layers"], text["sliding_window"]) == (layers, window)


def test_gemma3_27b_is_read_with_its_class_defaults():
    """The released text_config of Gemma 3 27B omits the bases, the context length and the
    layer pattern; transformers fills Gemma3TextConfig's defaults and so does ropelab."""
    from transformers import Gemma3TextConfig

    text = load_config("gemma-3-27b-it")["text_config"]
    omitted = {"rope_theta", "rope_local_base_freq", "max_position_embeddings"}
    omitted |= {"sliding_window_pattern", "layer_types"}
    assert not omitted & set(text)
    defaults = Gemma3TextConfig(num_hidden_layers=text["num_hidden_layers"])
    params = defaults.rope_parameters
    fields = normalize_config(load_config("gemma-3-27b-it"))
    for entry in fields.layers:
        expected = [i for i, t in enumerate(defaults.layer_types) if t == entry.layer_type]
        assert list(entry.layers) == expected
        base = entry.config["rope_parameters"]["rope_theta"]
        assert base == params[entry.layer_type]["rope_theta"]
    assert {e.layer_type: len(e.layers) for e in fields.layers} == {
        "sliding_attention": 52,
        "full_attention": 10,
    }
    inv_freq, _ = frequencies_from_config(
        load_config("gemma-3-27b-it"), layer_type="full_attention"
    )
    head_dim = text["head_dim"]
    expected = 1.0 / (1e6 ** (2 * (head_dim // 2 - 1) / head_dim)) / 8.0
    assert inv_freq[-1] == pytest.approx(expected, rel=1e-12)


def test_ministral_keeps_both_spellings_of_its_rope_type():
    """The public copy of Ministral 3's file names the rope type twice, as
    Ministral3Config's defaults do."""
    params = load_config("ministral-3-8b-instruct-2512")["text_config"]["rope_parameters"]
    assert params["rope_type"] == params["type"] == "yarn"


def test_the_recent_configs_are_shipped_and_stated():
    assert set(RECENT) <= set(shipped_configs())
    assert set(RECENT) <= set(STATED)
    assert not set(RECENT) & set(LABELLED)


@pytest.mark.parametrize("name", RECENT)
def test_the_recent_eleven_name_repository_path_and_commit(name):
    """Issue 25: a copy is named by repository, path and commit; where only derived copies
    exist, the label says "assembled", the text says "derived", and each is named too."""
    source = source_of(name)
    label, copied_from = source["provenance"], source["copied_from"]
    assert bool(COPY_LABEL.match(label)) == (name in RECENT_FROM_A_COPY), label
    assert REPO_PATH_COMMIT.search(copied_from), copied_from
    assert "third-party ports" not in copied_from and "as quoted by" not in copied_from
    if name in RECENT_FROM_A_COPY:
        assert "from that copy:" in source["fields"], name
    else:
        assert label.startswith("assembled"), label
        assert copied_from.startswith("derived copies only"), copied_from
        assert source["fields"] == "rope-relevant fields only"


def test_every_named_commit_is_a_full_sha():
    """A commit is named in full (40 hex digits), never abbreviated, in every copied_from."""
    for name in RECENT:
        text = source_of(name)["copied_from"]
        for match in re.finditer(r"at commit (\S+?)[,;) ]", text + " "):
            assert re.fullmatch(r"[0-9a-f]{40}", match.group(1)), (name, match.group(1))


def test_qwen3_30b_takes_all_but_the_card_block_from_its_copy():
    """The released Qwen3-30B-A3B file has rope_scaling null; the shipped file adds the model
    card's YaRN block (factor 4 over 32,768 positions = 131,072) and nothing else."""
    fields = source_of("qwen3-30b-a3b-yarn")["fields"]
    assert named_fields(fields, "from the model card:") == {"rope_scaling"}
    config = load_config("qwen3-30b-a3b-yarn")
    block = config["rope_scaling"]
    assert block == {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
    assert block["factor"] * block["original_max_position_embeddings"] == 131072
    assert config["max_position_embeddings"] == 40960  # the released value, not raised


def test_phi4_mini_attention_factor_is_the_one_its_gguf_states():
    """The GGUF named for Phi-4-mini stores rope.scaling.attn_factor 1.190238 (a float32
    printed to six places); LongRoPE's factor sqrt(1 + ln s / ln L), s = 131072 / 4096, L = 4096
    (Phi3LongRoPEScaledRotaryEmbedding), is that number, and so is ropelab's."""
    import math

    config = load_config("phi-4-mini-instruct")
    scale = config["max_position_embeddings"] / config["original_max_position_embeddings"]
    formula = math.sqrt(1 + math.log(scale) / math.log(config["original_max_position_embeddings"]))
    inv_freq, attention_factor = frequencies_from_config(config)
    assert round(formula, 6) == 1.190238
    assert attention_factor == pytest.approx(formula, rel=1e-12)
    head_dim = config["hidden_size"] // config["num_attention_heads"]
    assert 2 * len(inv_freq) == int(head_dim * config["partial_rotary_factor"]) == 96


def test_kimi_k2_keeps_the_july_length():
    """The pruned copy keeps the July file's yarn block: factor 32 over 4,096 positions is the
    131,072 it serves (the 0905 update raised both to 64 and 262,144)."""
    config = load_config("kimi-k2-instruct")
    block = config["rope_scaling"]
    assert block["factor"] * block["original_max_position_embeddings"] == 131072
    assert config["max_position_embeddings"] == 131072
    assert "61 layers" in source_of("kimi-k2-instruct")["copied_from"]
    assert config["num_hidden_layers"] == 61
