"""docs/architecture.md against the source: every room in its tables, every cache in its policy.

Read from the sources under ``src/`` (their ``ast``), as
``tests/test_architecture.py`` reads the imports.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "american_sniff"
PAGE = ROOT / "docs" / "architecture.md"

#: Caches keyed by an object's id() whose entry holds the object otherwise
#: than as the first item of a tuple, each with where it is held.
HELD_OTHERWISE = {
    ("american_sniff.views.facts", "_SEEN"): "a _Seen holds its node (read: entry.node is node)",
    ("american_sniff.views.writer", "_ROUND_DOCS"): "entry = (result, ...), made just before",
    ("american_sniff.envs._kernel", "table"): (
        "the actions of the engine's interned moves, which live as long as its tables"
    ),
}


def _page() -> str:
    if not PAGE.is_file() or not SOURCE.is_dir():
        pytest.skip("the docs and the sources are not beside the tests")
    return PAGE.read_text(encoding="utf-8")


@functools.cache
def _modules() -> dict[str, ast.Module]:
    """Every module of the package by its dotted name, parsed."""
    found = {}
    for path in sorted(SOURCE.rglob("*.py")):
        parts = path.relative_to(SOURCE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = ast.parse(path.read_text(encoding="utf-8"))
    return found


def _written(target: ast.expr) -> str | None:
    """The name of the mapping an assignment's target writes an item of, if it does."""
    if not isinstance(target, ast.Subscript):
        return None
    mapping = target.value
    if isinstance(mapping, ast.Name):
        return mapping.id
    return mapping.attr if isinstance(mapping, ast.Attribute) else None


def _assignments(tree: ast.Module) -> list[ast.Assign]:
    """The assignments inside the functions of ``tree``."""
    return [
        node
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.Assign)
    ]


def caches() -> dict[tuple[str, str], set[str]]:
    """Each module-level cache, (owner, name), and the other modules that write it.

    A cache is a name bound at a module's top level to an empty dict and
    written item by item inside a function: by its owner, or by a module
    that imports it.
    """
    modules = _modules()
    empty: dict[str, list[str]] = {}
    for module, tree in modules.items():
        for node in tree.body:
            target, value = (
                (node.target, node.value)
                if isinstance(node, ast.AnnAssign)
                else (node.targets[0], node.value)
                if isinstance(node, ast.Assign) and len(node.targets) == 1
                else (None, None)
            )
            if isinstance(target, ast.Name) and isinstance(value, ast.Dict) and not value.keys:
                empty.setdefault(target.id, []).append(module)
    found: dict[tuple[str, str], set[str]] = {}
    for module, tree in modules.items():
        for node in _assignments(tree):
            for target in node.targets:
                name = _written(target)
                if name not in empty:
                    continue
                owners = empty[name]
                owner = module if module in owners else owners[0]
                writers = found.setdefault((owner, name), set())
                if module != owner:
                    writers.add(module)
    return found


def documented() -> dict[tuple[str, str], tuple[str, set[str]]]:
    """The page's table of caches: (owner, name) to (bound, the other modules that write it)."""
    rows: dict[tuple[str, str], tuple[str, set[str]]] = {}
    section = _page().split("## Caches", 1)[-1]
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not cells[0].startswith("`"):
            continue
        name, owner, _, bound, writers = cells
        rows[f"american_sniff.{owner.strip('`')}", name.strip("`")] = (
            bound,
            {f"american_sniff.{w}" for w in re.findall(r"`([\w.]+)`", writers)},
        )
    return rows


def test_every_module_of_the_package_is_in_the_tables() -> None:
    """Each module and package under ``american_sniff`` is named on the page."""
    page = _page()
    rooms = sorted(
        path.stem if path.is_file() else path.name
        for path in SOURCE.iterdir()
        if (path.suffix == ".py" and path.stem not in {"__init__", "__main__"})
        or (path.is_dir() and path.name != "__pycache__")
    )
    missing = [room for room in rooms if f"`{room}`" not in page]
    assert missing == [], f"docs/architecture.md does not name {missing}"


def test_every_module_of_the_browser_game_is_in_its_table() -> None:
    """Each module of ``web`` (but its ``__init__``) has its row in the browser server's table."""
    section = _page().split("## The browser server", 1)[-1].split("\n## ", 1)[0]
    named = set(re.findall(r"`web\.(\w+)`", section))
    modules = {path.stem for path in (SOURCE / "web").glob("*.py") if path.stem != "__init__"}
    assert modules == named


def test_the_table_of_caches_is_every_cache_with_its_writers_and_bound() -> None:
    """Every module-level cache has a row: its owner, its other writers, and a bound in use."""
    rows = documented()
    found = caches()
    assert set(rows) == set(found)
    modules = {name: ast.unparse(tree) for name, tree in _modules().items()}
    for key, (bound, writers) in rows.items():
        assert writers == found[key], key
        limit = re.fullmatch(r"`(\w+)`", bound)
        if limit is not None:  # a limit: named in the owner, or the writers, beside a len()
            code = [modules[key[0]], *(modules[w] for w in writers)]
            assert any(re.search(rf"len\({key[1]}\).*{limit[1]}", c) for c in code), key
        else:
            assert "finite" in bound, key


def test_a_cache_keyed_by_id_holds_the_object_in_its_entry() -> None:
    """``cache[id(x)] = (x, ...)``: no other object can take the id while the entry lives."""
    _page()  # (skips where the sources are not beside the tests)
    seen = 0
    for module, tree in _modules().items():
        for node in _assignments(tree):
            for target in node.targets:
                if not isinstance(target, ast.Subscript):
                    continue
                key = target.slice
                keyed = key.elts[0] if isinstance(key, ast.Tuple) and key.elts else key
                if not (isinstance(keyed, ast.Call) and ast.unparse(keyed.func) == "id"):
                    continue
                seen += 1
                value = node.value
                held = ast.unparse(keyed.args[0])
                first = value.elts[0] if isinstance(value, ast.Tuple) and value.elts else value
                if ast.unparse(first) == held:  # the entry is the object, or begins with it
                    continue
                assert (module, _written(target)) in HELD_OTHERWISE, (module, ast.unparse(node))
    assert seen >= 10  # the check read the writes it is about


def _sized_caches() -> dict[str, list[str]]:
    """The function caches of each module: ``lru_cache`` functions and ``Memory`` names."""
    found: dict[str, list[str]] = {}
    for module, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                for decorator in node.decorator_list:
                    call = decorator.func if isinstance(decorator, ast.Call) else decorator
                    if ast.unparse(call).endswith(("lru_cache", "functools.cache")):
                        found.setdefault(module, []).append(node.name)
            elif (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and ast.unparse(node.value.func) == "Memory"
            ):
                found.setdefault(module, []).extend(ast.unparse(t) for t in node.targets)
    return found


def test_every_function_cache_is_sized_and_named_on_the_page() -> None:
    """``lru_cache`` always has a finite ``maxsize``; ``functools.cache`` takes no argument."""
    page = _page().split("## Caches", 1)[-1]
    seen = 0
    for module, tree in _modules().items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                text = ast.unparse(decorator)
                if "lru_cache" in text:
                    seen += 1
                    assert isinstance(decorator, ast.Call), (module, node.name)
                    sizes = [k.value for k in decorator.keywords if k.arg == "maxsize"]
                    assert sizes, (module, node.name)
                    assert ast.unparse(sizes[0]) != "None", (module, node.name)
                elif text == "functools.cache":
                    seen += 1
                    assert not node.args.args, (module, node.name)
    assert seen > 0
    for module, names in _sized_caches().items():
        for name in names:
            if name in {"_read_rounds_plainly", "converter"}:  # functools.cache, no argument
                continue
            assert f"`{name}`" in page, f"{module}.{name} is not in the caches section"
