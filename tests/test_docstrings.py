"""``help()`` shows every public docstring, in the pure build and in the compiled one.

mypyc gives a compiled function only its signature; the build hook
(``hatch_build.add_docstrings``) writes each source docstring into the C that
mypyc generates. CI runs this file against the compiled wheel too, where it
checks that the hook did its work.
"""

from __future__ import annotations

import importlib.util
import inspect
import pydoc
from pathlib import Path
from types import ModuleType

import attrs
import pytest

from american_sniff import (
    COMPILED,
    Layout,
    MatchState,
    PlayerView,
    apply,
    engine,
    legal_moves,
    new_match,
    rng,
    rules,
    score_of,
    validation,
)
from american_sniff.state import RoundInfo, RoundResult

ROOT = Path(__file__).resolve().parents[1]


def test_help_of_apply_shows_its_docstring() -> None:
    """``help(apply)`` prints the docstring's first line and what it raises."""
    text = pydoc.plain(pydoc.render_doc(apply))
    assert "The state after ``move``; ``state`` itself is left as it was." in text
    assert ":raises IllegalMove:" in text
    print("compiled build:", COMPILED)


@pytest.mark.parametrize("module", [engine, rules, rng, validation], ids=lambda m: m.__name__)
def test_every_public_function_of_the_compiled_modules_has_its_docstring(
    module: ModuleType,
) -> None:
    """Each function of the module's ``__all__`` documents itself."""
    names = [n for n in module.__all__ if inspect.isroutine(getattr(module, n))]
    assert names
    for name in names:
        assert inspect.getdoc(getattr(module, name)), f"{module.__name__}.{name} has no docstring"


def _undocumented(module: ModuleType) -> list[str]:
    """The public functions, classes, methods and properties of ``module`` with no docstring."""
    missing = []
    for name in module.__all__:
        value = getattr(module, name)
        if inspect.isroutine(value) and not inspect.getdoc(value):
            missing.append(name)
        if not inspect.isclass(value) or value.__module__ != module.__name__:
            continue
        if not inspect.getdoc(value):
            missing.append(name)
        fields = {field.name for field in attrs.fields(value)} if attrs.has(value) else set()
        for member in dir(value):
            if member.startswith("_") or member in fields:
                continue
            found = inspect.getattr_static(value, member)
            attribute = getattr(value, member)
            documented = isinstance(found, property) or inspect.isroutine(attribute)
            if (documented or callable(attribute)) and not inspect.getdoc(attribute):
                missing.append(f"{name}.{member}")
    return missing


#: The public modules the wheel compiles (the views package is compiled module by
#: module; its __init__ only re-exports).
COMPILED_PUBLIC = (
    "actions",
    "engine",
    "layout",
    "observation",
    "rng",
    "rules",
    "state",
    "tiles",
    "validation",
    "views.build",
    "views.events",
    "views.facts",
    "views.model",
    "views.reader",
    "views.writer",
)


@pytest.mark.parametrize("name", COMPILED_PUBLIC)
def test_every_public_name_of_the_compiled_modules_has_its_docstring(name: str) -> None:
    """Functions, classes, methods and properties of each module the wheel compiles.

    In the compiled build a method of an interpreted (attrs) class is a
    callable object that mypyc makes, and a function whose signature mypyc
    cannot write down gets no docstring at all: the build hook gives both
    theirs (``hatch_build.add_docstrings``), and this test fails if one is lost.
    """
    module = importlib.import_module(f"american_sniff.{name}")
    assert module.__all__
    assert _undocumented(module) == []


def _help_texts(module: ModuleType) -> list[tuple[str, str, str]]:
    """``(name, docstring's first line, what help() prints)`` of each class member of ``module``.

    Every public method and property of the public classes that ``module``
    defines, read through the class.
    """
    found = []
    for name in module.__all__:
        value = getattr(module, name)
        if inspect.isroutine(value) and getattr(value, "__module__", None) == module.__name__:
            doc = inspect.getdoc(value)
            if doc:
                found.append((name, doc.splitlines()[0], pydoc.plain(pydoc.render_doc(value))))
        if not inspect.isclass(value) or value.__module__ != module.__name__:
            continue
        fields = {field.name for field in attrs.fields(value)} if attrs.has(value) else set()
        for member in dir(value):
            if member.startswith("_") or member in fields:
                continue
            attribute = getattr(value, member)
            if not (
                isinstance(inspect.getattr_static(value, member), property) or callable(attribute)
            ):
                continue
            doc = inspect.getdoc(attribute)
            if doc and not inspect.isclass(attribute):
                found.append(
                    (
                        f"{name}.{member}",
                        doc.splitlines()[0],
                        pydoc.plain(pydoc.render_doc(attribute)),
                    )
                )
    return found


@pytest.mark.parametrize("name", COMPILED_PUBLIC)
def test_help_on_each_function_and_method_of_a_compiled_module_shows_its_docstring(
    name: str,
) -> None:
    """``help()`` on each public function, method and property prints its docstring.

    In the compiled build these are mypyc's callable objects: ``help()``
    printed their repr (their docstring was their type's, which pydoc
    skips), or raised ``AttributeError`` for want of a ``__name__``. The
    build hook gives each its own (``hatch_build._callable_getset``).
    """
    module = importlib.import_module(f"american_sniff.{name}")
    texts = _help_texts(module)
    assert texts
    for member, first_line, text in texts:
        assert first_line in text, f"help({member}) does not show its docstring:\n{text[:300]}"
        assert " object>" not in text, f"help({member}) shows an object's repr"
    if name == "views.model":
        # The signature's lines (Python 3.13 writes a long one a parameter a line).
        lines = pydoc.plain(pydoc.render_doc(PlayerView.to_json)).splitlines()[2:12]
        head = " ".join(line.strip() for line in lines)
        assert head.startswith("to_json("), head
        assert "geometry" in head, head
        assert "= (48, 40)" in head or "=(48, 40)" in head, head
        assert list(inspect.signature(PlayerView.from_json).parameters) == ["text"]


#: Layout's public methods and properties (its fields are documented by the class).
LAYOUT_API = (
    "empty",
    "is_empty",
    "count",
    "points",
    "contributions",
    "fits",
    "tiles",
    "connections",
    "place",
    "check_place",
)


def test_every_public_layout_method_and_property_has_its_docstring() -> None:
    """Layout is a native class when compiled: its methods and properties keep their docstrings."""
    for name in LAYOUT_API:
        assert inspect.getdoc(getattr(Layout, name)), f"Layout.{name} has no docstring"
    assert inspect.getdoc(Layout)
    for function in (legal_moves, new_match, score_of):
        assert inspect.getdoc(function)


@pytest.mark.parametrize("cls", [MatchState, RoundInfo, RoundResult], ids=lambda c: c.__name__)
def test_the_state_classes_and_their_api_keep_their_docstrings(cls: type) -> None:
    """The state's classes are native when compiled: class, methods and properties documented."""
    doc = inspect.getdoc(cls)
    assert doc
    assert doc.startswith(("A whole match", "What stays fixed", "What happened"))
    assert ":ivar" in doc
    # Every public method and property; the fields are documented by the class.
    fields = {field.name for field in attrs.fields(cls)}
    names = [n for n in dir(cls) if not n.startswith("_") and n not in fields]
    assert names
    for name in names:
        assert inspect.getdoc(getattr(cls, name)), f"{cls.__name__}.{name} has no docstring"
    assert "drawn_count" in pydoc.plain(pydoc.render_doc(MatchState))


@pytest.fixture(scope="module")
def hook() -> object:
    """``hatch_build.py`` from the project's root (skips where it is not beside the tests)."""
    pytest.importorskip("hatchling")
    pytest.importorskip("mypyc")
    path = ROOT / "hatch_build.py"
    if not path.is_file():
        pytest.skip("hatch_build.py is not beside the tests")
    spec = importlib.util.spec_from_file_location("hatch_build_docs", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_hook_writes_docstrings_into_mypyc_output(hook: object, tmp_path: Path) -> None:
    """Functions, methods and read-only properties get the source's docstrings in the C."""
    source = tmp_path / "demo.py"
    source.write_text(
        'def run(x: int) -> int:\n    """Run it: "quoted", \\\\ and all."""\n    return x\n\n\n'
        "class Box:\n"
        '    """A box."""\n\n'
        '    def open(self) -> None:\n        """Open the box."""\n\n'
        "    @property\n"
        '    def empty(self) -> bool:\n        """Whether it is empty."""\n        return True\n'
        "\n\ndef bare() -> None:\n    pass\n",
        "utf-8",
    )
    c_dir = tmp_path / "c"
    c_dir.mkdir()
    generated = (
        '{"run", (PyCFunction)CPyPy_demo___run, METH_FASTCALL | METH_KEYWORDS, '
        'PyDoc_STR("run(x)\\n--\\n\\n") /* docstring */},\n'
        '{"bare", (PyCFunction)CPyPy_demo___bare, METH_FASTCALL | METH_KEYWORDS, '
        'PyDoc_STR("bare()\\n--\\n\\n") /* docstring */},\n'
        '{"open",\n (PyCFunction)CPyPy_demo___Box___open,\n'
        ' METH_FASTCALL | METH_KEYWORDS, PyDoc_STR("open($self)\\n--\\n\\n")},\n'
        '{"empty",\n (getter)demo___Box_get_empty,\nNULL, NULL, NULL},\n'
        "static PyTypeObject CPyType_demo___Box_template_ = {\n"
        '    .tp_name = "Box",\n'
        '    .tp_doc = PyDoc_STR("Box()\\n--\\n\\n"),\n'
        "};\n"
    )
    (c_dir / "demo.c").write_text(generated, "utf-8")
    assert hook.add_docstrings(c_dir, [source]) == 4  # type: ignore[attr-defined]
    text = (c_dir / "demo.c").read_text("utf-8")
    assert 'PyDoc_STR("run(x)\\n--\\n\\nRun it: \\"quoted\\", \\\\ and all.")' in text
    assert 'PyDoc_STR("bare()\\n--\\n\\n")' in text
    assert 'PyDoc_STR("open($self)\\n--\\n\\nOpen the box.")' in text
    assert 'NULL, "Whether it is empty.", NULL}' in text
    assert '.tp_doc = PyDoc_STR("Box()\\n--\\n\\nA box."),' in text


def test_the_hook_gives_a_methods_callable_class_its_docstring_name_and_signature(
    hook: object, tmp_path: Path
) -> None:
    """The callable class of an attrs method gets getters: its own ``__doc__``, names, signature.

    The signature is mypyc's ``__call__`` one when it wrote one, else one made
    from the source, a module constant's name replaced by its literal value.
    """
    source = tmp_path / "demo.py"
    source.write_text(
        "PAGE = (1, 2)\n\n\n"
        "class Box:\n"
        '    """A box."""\n\n'
        '    def open(self, x: int) -> None:\n        """Open the box."""\n\n'
        '    def shut(self, *, page: tuple[int, int] = PAGE) -> None:\n        """Shut it."""\n',
        "utf-8",
    )
    template = (
        "static PyMethodDef demo___{m}_Box_obj_methods[] = {{\n"
        '    {{"__call__",\n     (PyCFunction)CPyPy_demo___{m}_Box_obj_____call__,\n'
        "     METH_FASTCALL | METH_KEYWORDS, PyDoc_STR({sig})}},\n"
        "    {{NULL}}  /* Sentinel */\n}};\n"
        "static PyTypeObject CPyType_demo___{m}_Box_obj_template_ = {{\n"
        "    PyVarObject_HEAD_INIT(NULL, 0)\n"
        '    .tp_name = "{m}_Box_obj",\n'
        "    .tp_methods = demo___{m}_Box_obj_methods,\n"
        '    .tp_doc = PyDoc_STR("{m}_Box_obj()\\n--\\n\\n"),\n'
        "}};\n"
    )
    c_dir = tmp_path / "c"
    c_dir.mkdir()
    generated = template.format(m="open", sig='"__call__($self, x)\\n--\\n\\n"') + template.format(
        m="shut", sig="NULL"
    )
    (c_dir / "demo.c").write_text(generated, "utf-8")
    assert hook.add_docstrings(c_dir, [source]) == 2  # type: ignore[attr-defined]
    text = (c_dir / "demo.c").read_text("utf-8")
    assert text.count("static PyObject *CPyDoc_text(") == 1
    for name, value in [
        ("__doc__", "Open the box."),
        ("__name__", "open"),
        ("__qualname__", "Box.open"),
        ("__text_signature__", "($self, x)"),
        ("__doc__", "Shut it."),
        ("__text_signature__", "($self, *, page=(1, 2))"),
    ]:
        assert f'{{"{name}", CPyDoc_text, NULL, NULL, (void *)"{value}"}}' in text, name
    assert "    .tp_getset = CPyDoc_getset_demo___open_Box_obj,\n    .tp_methods = " in text
