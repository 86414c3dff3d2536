"""``import ropelab`` is light, and every submodule is reachable as an attribute.

Each check runs in a fresh interpreter (``python -c``), so what another test imported cannot
hide a module that ``import ropelab`` pulls in, or one that attribute access fails to load.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "ropelab"
HEAVY = ("sympy", "torch", "matplotlib", "ipywidgets", "transformers", "IPython")


def run(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; it prints one JSON object as its last line."""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=300
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def public_submodules() -> set[str]:
    """Read from the source tree, not from the package: modules and subpackages not named _x."""
    modules = {p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("_")}
    packages = {
        p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists() and p.name[0] != "_"
    }
    return modules | packages


def test_import_loads_no_heavy_library_and_no_lazy_submodule():
    seen = run(
        "import json, sys, ropelab; "
        "print(json.dumps(sorted(m for m in sys.modules "
        f"if m.split('.')[0] in {HEAVY!r} or m.startswith('ropelab.'))))"
    )
    heavy = [m for m in seen if m.split(".")[0] in HEAVY]
    assert heavy == [], f"import ropelab loaded {heavy}"
    for lazy in ("ropelab.proofs", "ropelab.plots", "ropelab.widgets", "ropelab.torch_modules"):
        assert lazy not in seen, f"import ropelab imported {lazy} eagerly"


def test_attribute_access_imports_the_submodule():
    seen = run(
        "import json, sys, ropelab\n"
        "before = 'ropelab.proofs' in sys.modules, 'sympy' in sys.modules\n"
        "proofs = ropelab.proofs\n"
        "print(json.dumps({'before': before, 'name': proofs.__name__,\n"
        "    'same': proofs is sys.modules['ropelab.proofs'],\n"
        "    'sympy': 'sympy' in sys.modules, 'has_proofs': hasattr(proofs, 'PROOFS'),\n"
        "    'decay': ropelab.decay.__name__, 'scaling': ropelab.scaling.__name__,\n"
        "    'again': ropelab.proofs is proofs}))"
    )
    assert seen["before"] == [False, False]
    assert seen["name"] == "ropelab.proofs"
    assert seen["same"] and seen["again"] and seen["has_proofs"]
    assert seen["sympy"], "ropelab.proofs is the SymPy module: using it loads SymPy"
    assert (seen["decay"], seen["scaling"]) == ("ropelab.decay", "ropelab.scaling")


def test_dir_lists_every_public_submodule():
    names = run("import json, ropelab; print(json.dumps(dir(ropelab)))")
    missing = public_submodules() - set(names)
    assert missing == set(), f"dir(ropelab) does not list {sorted(missing)}"
    assert "apply_rope" in names and "__version__" in names


def test_every_public_submodule_is_reachable_as_an_attribute():
    expected = sorted(public_submodules())
    seen = run(
        "import json, ropelab\n"
        f"names = {expected!r}\n"
        "print(json.dumps({n: getattr(ropelab, n).__name__ for n in names}))"
    )
    assert seen == {name: f"ropelab.{name}" for name in expected}


def test_an_unknown_attribute_raises_attribute_error():
    seen = run(
        "import json, ropelab\n"
        "try:\n"
        "    ropelab.no_such_module\n"
        "    outcome = 'no error'\n"
        "except AttributeError as error:\n"
        "    outcome = str(error)\n"
        "print(json.dumps({'outcome': outcome, 'hasattr': hasattr(ropelab, 'proofz')}))"
    )
    assert seen == {
        "outcome": "module 'ropelab' has no attribute 'no_such_module'",
        "hasattr": False,
    }
