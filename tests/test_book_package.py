"""The book's machinery is a package (issue 37): ``ropebook`` (``src/ropebook/``), its Sphinx
extensions in ``ropebook.ext``. Nothing reaches a module by editing ``sys.path``, and no module
outside ``ropebook.ext`` imports a Sphinx extension (the names both need are in
``ropebook.kit``). ``ropebook`` is not in the ``ropelab`` wheel."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
#: Where the repository's own Python lives (assignments/ is the students' copy: its graders
#: put the problem set's folder on the path, as they must when a student runs them alone).
CHECKED = ("tools", "tests", "benchmarks", "book", "src")
#: The one edit left, and why.
ALLOWED: dict[str, str] = {
    "tools/llamacpp/convert.py": (
        "llama.cpp's own converter finds its vocabulary at sys.path[0]/models "
        "(conversion/base.py, _set_vocab_builtin): its tree must come first on the path"
    ),
}


def _python_files() -> list[Path]:
    files = [ROOT / "conftest.py"]
    for folder in CHECKED:
        files += [
            path
            for path in (ROOT / folder).rglob("*.py")
            if "node_modules" not in path.parts and "__pycache__" not in path.parts
        ]
    return sorted(files)


def sys_path_edits(source: str) -> list[int]:
    """Lines that call ``sys.path.insert``/``append``/``extend`` (or ``+=`` it)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("insert", "append", "extend"):
                target = node.func.value
        elif isinstance(node, ast.AugAssign):
            target = node.target
        if (
            isinstance(target, ast.Attribute)
            and target.attr == "path"
            and isinstance(target.value, ast.Name)
            and target.value.id == "sys"
        ):
            lines.append(node.lineno)
    return lines


def extension_imports(source: str) -> list[int]:
    """Lines that import ``ropebook.ext`` or one of its modules."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        if any(name == "ropebook.ext" or name.startswith("ropebook.ext.") for name in names):
            lines.append(node.lineno)
    return lines


def test_no_python_file_edits_sys_path():
    found = []
    for path in _python_files():
        relative = path.relative_to(ROOT).as_posix()
        for line in sys_path_edits(path.read_text(encoding="utf-8")):
            if relative not in ALLOWED:
                found.append(f"{relative}:{line}")
    assert not found, "import it as a package (ropebook.<module>) instead: " + ", ".join(found)


def test_no_module_outside_the_extensions_imports_one():
    package = ROOT / "src" / "ropebook"
    found = []
    for path in sorted(package.rglob("*.py")):
        if (package / "ext") in path.parents:
            continue
        for line in extension_imports(path.read_text(encoding="utf-8")):
            found.append(f"{path.relative_to(ROOT).as_posix()}:{line}")
    assert not found, "move what the tool needs into ropebook.kit: " + ", ".join(found)


@pytest.mark.parametrize(
    ("source", "edits", "imports"),
    [
        ("import sys\nsys.path.insert(0, 'tools')\n", [2], []),
        ("import sys\n\ndef f():\n    sys.path.append('x')\n", [4], []),
        ("import sys\nsys.path += ['x']\n", [2], []),
        ("from ropebook.ext.lecturer_kit import ZH_DIR\n", [], [1]),
        ("from ropebook.ext import deployment\n", [], [1]),
        ("import ropebook.ext.light_pages\n", [], [1]),
        ("import sys\nfrom ropebook.kit import ZH_DIR\nprint(sys.path)\n", [], []),
    ],
)
def test_a_planted_violation_is_found(source, edits, imports):
    assert sys_path_edits(source) == edits
    assert extension_imports(source) == imports


def test_the_extensions_are_listed_as_package_modules():
    import yaml

    sphinx = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["sphinx"]
    assert "local_extensions" not in sphinx
    ours = [name for name in sphinx["extra_extensions"] if name.startswith("ropebook")]
    modules = {path.stem for path in (ROOT / "src" / "ropebook" / "ext").glob("[!_]*.py")}
    # narrow_math is a helper of light_pages, language_switch is added by the editions' builds
    assert {name.removeprefix("ropebook.ext.") for name in ours} <= modules
    assert all(name.startswith("ropebook.ext.") for name in ours)


def test_the_wheel_holds_ropelab_only():
    find = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]["packages"]["find"]
    assert find["include"] == ["ropelab*"]
