r"""Explorables: the book's interactive figures that respond without a Python kernel.

An explorable is one HTML output: the controls of a figure's spec
(:mod:`ropelab.interactive.figures`), a figure area and a readout, with the spec's JSON
config; ``ropelab-explore.js`` (generated next to this file from ``js/`` by
:mod:`ropelab.explorables.bundle`) draws the figure in the browser, computing
the same numbers as the spec's data function, and redraws it when a control moves. The same
output responds on the static site, in JupyterLab or Notebook and in Colab.

Where the script comes from:

* on the book's pages the site serves ``ropelab-explore.js`` once, as an asset of every page
  (``ropebook.ext.ropelab_explore``), and an explorable's output holds only its markup, its
  config and a one-line call that mounts it; the committed notebooks hold the same outputs,
  so changing the script changes no notebook;
* anywhere else (Jupyter, Colab, Binder) each output carries the script itself, so it works
  on its own.

The environment variable :data:`SCRIPT_MODE_VARIABLE` chooses: ``"page"`` (set by the book's
Sphinx extension, ``tools/run_notebooks.py`` and the notebook tests) or ``"inline"`` (the
default).

:func:`explorable_data` is the Python reference for the numbers the script computes; the drift
check (``tests/test_explorable_drift.py``, run in Node) and the browser tests compare the two.
This module imports neither matplotlib nor ipywidgets.
"""

from __future__ import annotations

import functools
import getpass
import hashlib
import html
import json
import os
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from ..interactive import figure_spec, kinds
from ..interactive.controls import Control

__all__ = [
    "KINDS",
    "SCRIPT_MODE_VARIABLE",
    "Explorable",
    "config_decoder",
    "decoder_configs_script",
    "decoder_script_path",
    "explorable",
    "explorable_data",
    "script",
    "script_path",
]

#: The figures the browser draws, in chapter order.
KINDS = kinds(explorable=True)

#: The environment variable that says whether the page serves the script (``"page"``) or each
#: output carries it (``"inline"``, the default).
SCRIPT_MODE_VARIABLE = "ROPELAB_EXPLORE_SCRIPT"


def _spec(kind: str) -> Any:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    return figure_spec(kind)


def explorable_data(kind: str, **params: Any) -> dict[str, Any]:
    """The numbers the explorable ``kind`` draws for ``params``, computed by ropelab.

    ``params`` default to the figure's starting state and are clamped like every control
    (:func:`ropelab.interactive.clamp`); the keys are those of the script's
    ``instance.data`` (the spec's ``browser_keys``).

    Raises:
        ValueError: for an unknown ``kind`` (naming the allowed ones) or parameter name.
    """
    return _spec(kind).browser_data(**params)


EXPLORE_SCRIPT = "ropelab-explore.js"
DECODER_SCRIPT = "ropelab-decoder.js"


def _cache_dir() -> Path:
    """The per-user folder for the scripts when the package's folder is not writable."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no user name (a container without a passwd entry)
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"ropelab-{user}-explorables"


def _write_if_changed(path: Path, text: str) -> None:
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    # written beside it and renamed, so a process reading it never sees half a script
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


@functools.cache
def _scripts_dir() -> Path:
    """The folder holding both generated scripts, equal to the bundle of ``js/``.

    Bundled once per process (:mod:`ropelab.explorables.bundle`); written into the package
    when missing or different, else into :func:`_cache_dir` where the package is read-only.
    Both scripts share the folder: the decoder requires ``./ropelab-explore.js`` in Node.
    """
    from .bundle import decoder_script_text, explore_script_text

    texts = {EXPLORE_SCRIPT: explore_script_text(), DECODER_SCRIPT: decoder_script_text()}
    package = Path(str(resources.files(__name__)))
    for folder in (package, _cache_dir()):
        try:
            for name, text in texts.items():
                _write_if_changed(folder / name, text)
        except OSError:
            continue
        return folder
    raise OSError(f"cannot write {EXPLORE_SCRIPT} into {package} or {_cache_dir()}")


def script_path() -> Path:
    """The path of ``ropelab-explore.js``, generated from ``js/`` (written into the package,
    or a per-user cache folder where the package is read-only, when missing or stale)."""
    return _scripts_dir() / EXPLORE_SCRIPT


def decoder_script_path() -> Path:
    """The path of ``ropelab-decoder.js`` (the config decoder of chapter 8A; it uses the core
    of ``ropelab-explore.js``, which lies in the same folder)."""
    return _scripts_dir() / DECODER_SCRIPT


@functools.cache
def script() -> str:
    """The text of ``ropelab-explore.js`` (the bundle of ``js/``)."""
    return script_path().read_text(encoding="utf-8")


def _script_inline() -> bool:
    mode = os.environ.get(SCRIPT_MODE_VARIABLE, "inline")
    if mode not in ("inline", "page"):
        raise ValueError(f"{SCRIPT_MODE_VARIABLE} must be 'inline' or 'page', got {mode!r}")
    return mode == "inline"


def _control_html(control: Control, value: Any) -> str:
    label = html.escape(control.label)
    name = html.escape(control.name)
    if control.is_choice:
        chosen = set(value) if control.multiple else {value}
        options = "".join(
            f'<option value="{html.escape(o)}"{" selected" if o in chosen else ""}>'
            f"{html.escape(o)}</option>"
            for o in control.options or ()
        )
        multiple = " multiple" if control.multiple else ""
        field = f'<select data-param="{name}"{multiple}>{options}</select>'
    else:
        # the script sets the slider's positions; <output> shows the value in use
        field = f'<input type="range" data-param="{name}" aria-label="{label}"><output></output>'
    return f'<label class="ropelab-control"><span>{label}</span>{field}</label>'


class Explorable:
    """The HTML of one explorable; Jupyter displays it (``_repr_html_``).

    Attributes:
        kind: the figure.
        params: its starting values (clamped).
        data: the HTML text.
    """

    def __init__(self, kind: str, params: dict[str, Any], markup: str) -> None:
        self.kind = kind
        self.params = params
        self.data = markup

    def _repr_html_(self) -> str:
        return self.data

    def __repr__(self) -> str:
        return f"Explorable({self.kind!r}, {self.params!r})"


def explorable(kind: str, **params: Any) -> Explorable:
    """The explorable ``kind`` as an HTML output (chapters 1, 3, 4, 5 and 6).

    A ``<div class="ropelab-explorable">`` holds the controls, the figure area, a readout and
    a ``<script type="application/json">`` with the config: the kind, the starting parameters
    (the spec's defaults updated with ``params``, clamped), the controls and the constants of
    the spec. A one-line script mounts every explorable not mounted yet; in ``"inline"`` mode
    the module itself comes first (see the module docstring). It needs no server, no network
    and no kernel. The output is deterministic: the element id is a hash of the config.

    Args:
        kind: one of :data:`KINDS`.
        **params: starting values, by the names of the figure's controls.

    Raises:
        ValueError: for an unknown ``kind`` (naming the allowed ones) or parameter name.
    """
    spec = _spec(kind)
    params = spec.params(**params)
    config_json = json.dumps(spec.to_json(params), ensure_ascii=False, sort_keys=True)
    element = f"ropelab-{kind}-{hashlib.sha256(config_json.encode()).hexdigest()[:12]}"
    controls = "".join(_control_html(c, params[c.name]) for c in spec.controls)
    # "</" would end the script element early wherever it appeared in the JSON.
    safe_json = config_json.replace("</", "<\\/")
    module = f"<script>\n{script()}\n</script>\n" if _script_inline() else ""
    markup = (
        f'<div class="ropelab-explorable tex2jax_ignore mathjax_ignore" id="{element}" '
        f'data-kind="{kind}" data-chapter="{spec.chapter}">'
        f'<div class="ropelab-controls">{controls}</div>'
        '<div class="ropelab-figure"><p>This interactive figure is drawn by JavaScript in the '
        "browser. In Jupyter, run the cell (or trust the notebook) to see it.</p></div>"
        '<div class="ropelab-readout"></div>'
        f'<script type="application/json" class="ropelab-config">{safe_json}</script>'
        "</div>\n"
        f"{module}"
        "<script>window.ropelabExplore && window.ropelabExplore.mountAll();</script>"
    )
    return Explorable(kind, params, markup)


def decoder_configs_script() -> str:
    """``window.ropelabDecoderConfigs = {...};``: the shipped configs, for the decoder's menu.

    The book's site serves it as an asset (``ropebook.ext.ropelab_explore``), so the chapter's
    output holds no config and changing a shipped config changes no notebook; in
    ``"inline"`` mode the output carries it.
    """
    from ..configs import load_config, shipped_configs

    configs = {name: load_config(name) for name in shipped_configs()}
    text = json.dumps(configs, ensure_ascii=False, sort_keys=True).replace("</", "<\\/")
    return f"window.ropelabDecoderConfigs = {text};\n"


def config_decoder(default: str = "olmo-3-7b") -> Explorable:
    """The config decoder of chapter 8A as an HTML output (``ropelab-decoder.js`` runs it).

    A menu of the shipped configs, a text box for a ``config.json`` (prefilled from the
    menu), a button, and an output area where the script shows, per layer type, the numbers
    of :func:`ropelab.decoder.decode_config`, a figure of the frequencies against plain RoPE,
    the GGUF keys and the warnings. The pasted text is parsed as JSON, never evaluated, and
    every string from it is shown as text. On the book's pages the site serves the scripts
    and the configs (:func:`decoder_configs_script`); in ``"inline"`` mode the output
    carries them (the decoder uses the number formats of ``ropelab-explore.js``).

    Raises:
        ValueError: if ``default`` is not a shipped config.
    """
    from ..configs import shipped_configs

    names = shipped_configs()
    if default not in names:
        raise ValueError(f"default must be one of {list(names)}, got {default!r}")
    scripts = ""
    if _script_inline():
        decoder = decoder_script_path().read_text(encoding="utf-8")
        scripts = (
            f"<script>\n{script()}\n</script>\n<script>\n{decoder_configs_script()}"
            f"{decoder}\n</script>\n"
        )
    markup = (
        '<div class="ropelab-decoder tex2jax_ignore mathjax_ignore" '
        f'data-default="{html.escape(default)}">'
        '<label class="ropelab-control"><span>Shipped config</span><select></select></label>'
        '<textarea rows="12" spellcheck="false" aria-label="config.json"></textarea>'
        '<button type="button">Decode</button>'
        '<div class="ropelab-decoder-output" aria-live="polite"><p>This decoder runs in the '
        "browser. In Jupyter, run the cell (or trust the notebook) to see it; anywhere, "
        "<code>python -m ropelab describe CONFIG.json</code> prints the same.</p></div>"
        "</div>\n"
        f"{scripts}"
        "<script>window.ropelabDecoder && window.ropelabDecoder.mountAll();</script>"
    )
    return Explorable("config_decoder", {"default": default}, markup)
