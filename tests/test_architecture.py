"""The package's architecture: an acyclic rules core that loads alone, and no private reach.

Read from the source (the ``ast`` of every module under ``src/``), so that the
checks hold for imports inside functions as well as at the top of a module.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import american_sniff

PACKAGE = "american_sniff"
SOURCE = Path(american_sniff.__file__).resolve().parent
if not (SOURCE / "engine.py").exists():  # a compiled install: read the sources of the tree
    SOURCE = Path(__file__).resolve().parents[1] / "src" / PACKAGE

#: The rules core: the modules that play the game, importing nothing beyond
#: attrs and the standard library.
CORE = frozenset(
    f"{PACKAGE}.{name}"
    for name in (
        "_fast",
        "_native",
        "deal",
        "engine",
        "errors",
        "layout",
        "moves",
        "points",
        "rng",
        "rules",
        "state",
        "tiles",
    )
)

#: Imports from the core to the rest of the package, each inside a function
#: and each with its reason. Nothing else of the core reaches out.
CORE_REACHES_OUT = {
    (f"{PACKAGE}.state", f"{PACKAGE}.serial"): (
        "MatchState.to_json and from_json load the JSON layer when they are called"
    ),
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _sources() -> dict[str, ast.Module]:
    return {
        _module_name(path): ast.parse(path.read_text(encoding="utf-8"), str(path))
        for path in sorted(SOURCE.rglob("*.py"))
    }


MODULES = _sources()


def _is_package(name: str) -> bool:
    return (SOURCE.parent / Path(*name.split(".")) / "__init__.py").exists()


def _base(module: str, node: ast.ImportFrom) -> str:
    """The absolute name of the module a ``from ... import`` reads from."""
    if not node.level:
        return node.module or ""
    package = module if _is_package(module) else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def _imports(module: str, tree: ast.Module) -> Iterator[tuple[str, ast.stmt]]:
    """Every package module that ``module`` imports, anywhere in it, with the statement."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    yield alias.name, node
        elif isinstance(node, ast.ImportFrom):
            base = _base(module, node)
            if base.split(".")[0] != PACKAGE:
                continue
            yield base, node
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:
                    yield f"{base}.{alias.name}", node


def _graph(only: frozenset[str] | None = None) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, tree in MODULES.items():
        if only is not None and module not in only:
            continue
        targets = {
            target
            for target, _ in _imports(module, tree)
            if target != module and (only is None or target in only)
        }
        # Importing a.b.c runs a and a.b first, but that is their loading, not a
        # dependency of the importer on their contents beyond the package's own.
        graph[module] = {t for t in targets if t != PACKAGE}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` as a list of modules (first repeated last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_cycle_finder_finds_a_cycle_and_only_a_cycle() -> None:
    """The check below can fail: a cycle of three is found, a diamond is not a cycle."""
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"d"}, "c": {"d"}, "d": set()}) is None


def test_every_core_module_is_in_the_source() -> None:
    """The core named here is the core that exists (a renamed module would escape the checks)."""
    assert set(MODULES) >= CORE


def test_the_core_has_no_import_cycle_even_inside_functions() -> None:
    """Among the core modules, every import (top-level or in a function) goes one way."""
    graph = _graph(CORE)
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_render_has_no_import_cycle_even_inside_functions() -> None:
    """The drawings' modules import one way, in functions too (labels below text and compact)."""
    render = frozenset(m for m in MODULES if m.startswith(f"{PACKAGE}.render."))
    assert {f"{PACKAGE}.render.text", f"{PACKAGE}.render.compact"} <= render
    graph = _graph(render)
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


#: The browser game's modules in the order of docs/architecture.md's table:
#: each imports only modules before it (in a function too).
WEB = tuple(
    f"{PACKAGE}.web.{name}"
    for name in (
        "store",
        "shared",
        "hosting",
        "frames",
        "game",
        "limits",
        "buckets",
        "connection",
        "pictures",
        "rooms",
        "cache",
        "flow",
        "driver",
        "listener",
        "transport",
        "routes",
        "app",
        "serving",
        "handoff",
        "workers",
    )
)


def test_the_browser_games_modules_import_one_way() -> None:
    """Each module of ``web`` imports only the modules before it in :data:`WEB`."""
    found = {m for m in MODULES if m.startswith(f"{PACKAGE}.web.")}
    assert set(WEB) == found  # a new module takes its place in the order
    graph = _graph(frozenset(WEB))
    for n, module in enumerate(WEB):
        later = graph[module] - set(WEB[:n])
        assert not later, f"{module} imports {sorted(later)}, which come after it"


def _imports_starlette(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        if any(name.split(".")[0] == "starlette" for name in names):
            return True
    return False


def test_every_module_that_needs_starlette_is_left_out_where_starlette_is_missing() -> None:
    """A module that imports Starlette (or a module that does) is in both lists of the extras.

    The root ``conftest.py`` leaves its doctests out of the collection, and
    the main run's coverage (``pyproject.toml``) leaves it out, where the
    ``web`` extra is not installed: else the main run would fail on it.
    """
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    root = Path(__file__).resolve().parents[1]
    if not (root / "conftest.py").is_file() or not (root / "pyproject.toml").is_file():
        pytest.skip("the repository's configuration is not beside the tests")
    graph: dict[str, set[str]] = {}  # what a module's loading loads (its top-level imports)
    needs = set()
    for module, tree in MODULES.items():
        top = ast.Module(
            body=[s for s in tree.body if isinstance(s, ast.ImportFrom | ast.Import)],
            type_ignores=[],
        )
        graph[module] = {t for t, _ in _imports(module, top) if t not in (module, PACKAGE)}
        if _imports_starlette(top):
            needs.add(module)
    grown = True
    while grown:
        more = {module for module, targets in graph.items() if targets & needs} - needs
        needs |= more
        grown = bool(more)
    paths = {
        "src/" + module.replace(".", "/") + ".py"
        for module in needs
        if module.startswith(f"{PACKAGE}.")
    }
    assert f"src/{PACKAGE}/web/app.py" in paths  # the check read the imports
    conftest = ast.parse((root / "conftest.py").read_text(encoding="utf-8"))
    listed = next(
        ast.literal_eval(node.value)
        for node in conftest.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "_NEEDS"
    )
    assert paths <= set(listed), sorted(paths - set(listed))
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    omitted = {path.removeprefix("*/") for path in config["tool"]["coverage"]["run"]["omit"]}
    assert {path.removeprefix("src/") for path in paths} <= omitted


def test_the_core_imports_nothing_of_the_package_beyond_the_core() -> None:
    """Core modules import only core modules, save the listed function-level imports."""
    outside = {
        (module, target): statement
        for module in sorted(CORE)
        for target, statement in _imports(module, MODULES[module])
        if target not in CORE and target != PACKAGE
    }
    assert set(outside) == set(CORE_REACHES_OUT)
    for statement in outside.values():
        assert statement.col_offset > 0, "only an import inside a function may reach out"


def test_the_core_imports_only_attrs_and_the_standard_library() -> None:
    """Outside the package, the core's top-level imports are attrs and the standard library."""
    allowed = set(sys.stdlib_module_names) | {"attrs", "mypy_extensions", PACKAGE}
    for module in sorted(CORE):
        for node in ast.walk(MODULES[module]):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed, f"{module} imports {name}"


def test_the_package_has_no_import_cycle_at_the_top_of_its_modules() -> None:
    """Top-level imports alone (what runs when a module loads) form no cycle anywhere."""
    graph: dict[str, set[str]] = {}
    for module, tree in MODULES.items():
        top = ast.Module(
            body=[s for s in tree.body if isinstance(s, ast.ImportFrom | ast.Import)],
            type_ignores=[],
        )
        graph[module] = {t for t, _ in _imports(module, top) if t not in (module, PACKAGE)}
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def _loaded_after(statement: str) -> list[str]:
    """The package's modules in ``sys.modules`` after ``statement``, in a fresh interpreter."""
    code = f"import sys, json; {statement}; print(json.dumps(sorted(sys.modules)))"
    output = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    return [name for name in json.loads(output) if name.split(".")[0] == PACKAGE]


@pytest.mark.parametrize(
    "statement",
    [
        "import american_sniff.rules",
        "import american_sniff.engine",
        "import american_sniff",
        "from american_sniff import apply, legal_moves, new_match",
    ],
)
def test_importing_the_rules_or_the_engine_loads_only_the_core(statement: str) -> None:
    """No JSON layer, records, bots, views or rendering until they are used."""
    loaded = set(_loaded_after(statement))
    assert loaded - {PACKAGE} <= CORE
    assert f"{PACKAGE}.rules" in loaded


def test_the_rest_of_the_api_loads_on_first_use() -> None:
    """A name outside the core loads its module when first read, and is then a plain global."""
    loaded = _loaded_after("import american_sniff as a; a.SearchBot; a.view_for")
    assert f"{PACKAGE}.bots.search" in loaded
    assert f"{PACKAGE}.views" in loaded
    assert f"{PACKAGE}.render" not in loaded


def test_the_lazy_names_are_all_exported_and_typed() -> None:
    """Every name that loads on first use is in ``__all__``, in ``dir()``, and typed for mypy."""
    lazy = american_sniff._LAZY
    assert set(lazy) <= set(american_sniff.__all__)
    assert set(american_sniff.__all__) <= set(dir(american_sniff))
    tree = MODULES[PACKAGE]
    typed: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom)
                for alias in statement.names:
                    typed[alias.name] = (statement.module or "").split(".")[0]
    assert typed == lazy
    for name, module in lazy.items():
        value = getattr(american_sniff, name)
        assert getattr(sys.modules[f"{PACKAGE}.{module}"], name) is value
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        american_sniff.not_a_name  # noqa: B018


# -- private names ---------------------------------------------------------------------


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _defined_here(tree: ast.Module) -> set[str]:
    """Every private name a module defines: functions, classes, assignments, fields, slots."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)  # a slot named in __slots__
    return {name for name in names if _is_private(name)}


def _private_reaches(module: str, tree: ast.Module) -> Iterator[str]:
    """Each private name that ``module`` takes from another module or another module's object."""
    here = _defined_here(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if _is_private(alias.name) and f"{_base(module, node)}.{alias.name}" not in MODULES:
                    source = "." * node.level + (node.module or "")
                    yield f"line {node.lineno}: from {source} import {alias.name}"
        elif isinstance(node, ast.Attribute) and _is_private(node.attr):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if node.attr not in here:
                yield f"line {node.lineno}: {ast.unparse(node)}"


#: Private names that a module may take from another, each with its reason (none).
PRIVATE_REACHES_ALLOWED: dict[str, str] = {
    # The standard library's documented exit of a forked child (which must not
    # run its parent's clean-up), not a private name of this package.
    f"{PACKAGE}.web.workers line 168: os._exit": "the exit of a forked worker",
}


def test_the_private_name_finder_finds_each_kind_of_reach() -> None:
    """The check below can fail: an imported private name and a foreign private attribute."""
    tree = ast.parse(
        "from .state import _action\n"
        "from . import _fast\n"
        "class Mine:\n"
        "    __slots__ = ('_own',)\n"
        "def f(state, mine):\n"
        "    return state._log, mine._own, _fast.DRAW, state.__class__\n"
    )
    found = list(_private_reaches(f"{PACKAGE}.referee", tree))
    assert found == ["line 1: from .state import _action", "line 6: state._log"]


def test_no_module_reaches_a_private_name_of_another() -> None:
    """``from m import _x`` and ``other._x`` stay within the module that owns ``_x``."""
    reaches = {
        f"{module} {reach}"
        for module, tree in MODULES.items()
        for reach in _private_reaches(module, tree)
    }
    assert reaches <= set(PRIVATE_REACHES_ALLOWED), sorted(reaches)
