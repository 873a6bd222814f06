"""The package's rooms: dependencies point one way and no module imports another in a loop.

Every ``import`` and ``from ... import`` in ``src/biasamp`` counts, those inside
functions and under ``TYPE_CHECKING`` included.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import biasamp

PACKAGE = Path(biasamp.__file__).parent

#: The layer of each room; a module may import only from its own room or from lower layers.
LAYERS: dict[str, int] = {
    "_version": 0,
    "_progress": 0,
    "_deprecation": 0,
    "_threads": 0,
    "_interrupts": 0,
    "_memory": 0,
    "_lazy": 0,
    "output": 0,
    "datasets": 0,
    "registry": 0,
    "inputs": 1,
    "counts": 2,
    "engines": 3,
    "results": 3,
    "metrics": 4,
    "uncertainty": 5,
    "predictability": 5,
    "mitigation": 5,
    "text": 5,
    "generated": 5,
    "comparison": 5,
    "auditing": 6,
    "torchmetrics": 6,
    "report": 6,
    "hf_evaluate": 6,
    "cli": 7,
    "__init__": 8,
    "__main__": 8,
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every biasamp module ``path`` imports (absolute or relative, anywhere in the file)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "biasamp")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] != "biasamp":
                continue
            found.add(module)
            for alias in node.names:  # "from biasamp.metrics import _mals" imports a module
                if (
                    (PACKAGE.parent / (module + "." + alias.name).replace(".", "/"))
                    .with_suffix(".py")
                    .exists()
                ):
                    found.add(module + "." + alias.name)
    return found - {name}


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        graph[name] = {m for m in _imports(path) if m in modules}
    return graph


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_room_has_a_layer() -> None:
    rooms = {_room(m) for m in _graph()}
    assert rooms <= set(LAYERS), sorted(rooms - set(LAYERS))


def test_dependencies_point_down() -> None:
    upward = []
    for module, imported in _graph().items():
        for target in imported:
            a, b = _room(module), _room(target)
            if a != b and LAYERS[b] >= LAYERS[a] and b != "__init__":
                upward.append(f"{module} -> {target}")
            if b == "__init__" and module != "biasamp":
                upward.append(f"{module} -> {target} (the package face)")
    assert upward == []


def test_no_import_loops() -> None:
    graph = _graph()
    # package __init__ files re-export their own room; the loop rule is about modules
    edges = {m: {t for t in ts if not (t == m.rsplit(".", 1)[0])} for m, ts in graph.items()}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert cycles == []


@pytest.mark.parametrize("name", sorted(set(biasamp.__all__) - {"__version__"}))
def test_public_names_documented_under_the_package(name: str) -> None:
    obj = getattr(biasamp, name)
    assert obj.__doc__, f"biasamp.{name} has no docstring"
