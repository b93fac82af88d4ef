"""The package's layout is its architecture: imports run one way and form no circle.

Wings, from the top: commands -> presentation -> analyses -> the survey's data (loaders) -> the
trace toolkit -> the shared ground (``paths``, ``files``, ``transaction``, ``terminal``,
``wording``, ``extras``). The toolkit stands alone: it imports only itself and the ground, so an
installed wheel validates, replays and imports without the survey; the survey's wings may use it. A
module may import its own wing and the wings below it, never one above, and no chain of
imports (at module level or inside a function) leads back to where it started.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

from masrl import paths

PACKAGE = paths.REPO_ROOT / "src" / "masrl"
LEVELS = {  # the wing a module belongs to -> its height
    "masrl.commands": 6,
    "masrl.presentation": 5,
    "masrl.analyses": 4,
    "masrl.data": 3,
    "masrl.traces": 2,
}
GROUND = 1  # masrl, paths, files, transaction, terminal, wording, extras
ENTRY = "masrl.__main__"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def level(module: str) -> int:
    for wing, height in LEVELS.items():
        if module == wing or module.startswith(wing + "."):
            return height
    return 7 if module == ENTRY else GROUND


def imports(module: str) -> set[str]:
    """The package modules ``module`` imports, anywhere in its body. ``from pkg import name``
    counts as importing the submodule ``pkg.name`` when there is one, else ``pkg`` itself."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "masrl")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                + ([node.module] if node.module else []))
            if base.split(".")[0] != "masrl":
                continue
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in MODULES else base)
    return {name for name in found if name in MODULES and name != module}


GRAPH = nx.DiGraph([(m, target) for m in MODULES for target in imports(m)])
GRAPH.add_nodes_from(MODULES)


def test_every_module_is_in_a_wing_or_on_the_ground():
    ground = sorted(m for m in MODULES if level(m) == GROUND)
    assert ground == ["masrl", "masrl.extras", "masrl.files", "masrl.paths", "masrl.terminal",
                      "masrl.transaction", "masrl.wording"]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_import_runs_up(module):
    upward = sorted(t for t in imports(module) if level(t) > level(module))
    assert upward == [], f"{module} (level {level(module)}) imports a higher wing: {upward}"


def test_no_circles():
    circles = [sorted(c) for c in nx.strongly_connected_components(GRAPH) if len(c) > 1]
    assert circles == []


def test_the_data_wing_knows_nothing_of_analyses_presentation_or_commands():
    data = [m for m in MODULES if m.startswith("masrl.data")]
    reached = set().union(*(nx.descendants(GRAPH, m) for m in data))
    assert sorted(r for r in reached if level(r) > LEVELS["masrl.data"]) == []


def test_the_toolkit_stands_alone():
    """Nothing the trace toolkit imports, however indirectly, belongs to the survey's wings."""
    toolkit = [m for m in MODULES if m.startswith("masrl.traces")]
    reached = set().union(*(nx.descendants(GRAPH, m) for m in toolkit))
    assert sorted(r for r in reached if not r.startswith("masrl.traces") and level(r) != GROUND) == []
