"""Hatchling build hook: compile the modules pyproject.toml lists with mypyc, and the C kernels.

The wheel target runs this hook (``[tool.hatch.build.targets.wheel.hooks.custom]``).
For a standard wheel it compiles the modules named by the hook's ``compile``
list with mypyc, builds the C extensions with setuptools' ``build_ext`` in a
temporary directory, and adds them to the wheel next to the ``.py`` sources;
Python's import system prefers an extension module to a ``.py`` file of the
same name, so the compiled modules are the ones imported. mypyc's shared
library, which the per-module extensions load, goes where mypyc's name for it
says: at the top level of the wheel for several modules
(``<hash>__mypyc.*.so``), beside the module for a single one
(``american_sniff/rng__mypyc.*.so``). The wheel is then tagged for this
interpreter and platform (``cp311-cp311-linux_x86_64``, ...).

The same ``build_ext`` run builds the plain C99 extensions of
:data:`C_EXTENSIONS` (the batched engine's kernel,
``american_sniff/batch/_cbatch.c``), which need no mypyc and no library
beyond Python's headers.

If the compilation fails, for lack of a C compiler or any other reason, the
hook prints one warning line on stderr and the wheel is built pure
(``py3-none-any``): the package runs the same either way, only slower.

Environment variables:

``AMERICAN_SNIFF_PURE=1``
    Build the pure-Python wheel without trying to compile.
``AMERICAN_SNIFF_COMPILE=required``
    Fail the build when the compilation fails, instead of falling back to the
    pure wheel (CI and cibuildwheel set it, so that a broken compilation can
    never ship as a pure wheel unnoticed). ``auto``, the default, falls back.
    A required build always compiles: it never takes its modules from the cache.
``AMERICAN_SNIFF_BUILD_CACHE``
    Where the compiled modules of earlier builds are kept, so that building the
    same sources again for the same interpreter (``pip install '.[web]'`` after
    ``pip install .``) takes seconds instead of minutes. By default
    ``$XDG_CACHE_HOME/american-sniff/build`` (``~/.cache/...``); ``off``
    turns the cache off. An entry's key is a SHA-256 of every file under
    ``src/``, ``pyproject.toml``, this file, the interpreter, the platform,
    mypy's version and the compiler variables (``CC``, ``CFLAGS``, ...), so
    any change compiles afresh; the :data:`CACHE_KEEP` newest entries are kept.

An editable install (``pip install -e .``) is never compiled, so that changes
to ``src/`` take effect at once. For development, ``python hatch_build.py
--batch-in-place`` builds the C extensions alone, next to their sources
(``src/american_sniff/batch/_cbatch.<tag>.so``, ignored by git), where the
editable install imports them; delete that file to go back to the Python kernel.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

from hatchling.builders.config import BuilderConfig
from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

#: Set to 1 to build the pure-Python wheel.
PURE_VARIABLE = "AMERICAN_SNIFF_PURE"
#: Set to ``required`` to make a failed compilation fail the build.
COMPILE_VARIABLE = "AMERICAN_SNIFF_COMPILE"

#: Where the compiled builds are cached, or ``off``.
CACHE_VARIABLE = "AMERICAN_SNIFF_BUILD_CACHE"
#: How many cached builds are kept (the most recently used ones).
CACHE_KEEP = 3
#: The environment variables that change what the C compiler makes.
COMPILER_VARIABLES = ("CC", "CFLAGS", "CPPFLAGS", "LDFLAGS", "LDSHARED", "ARCHFLAGS")

#: mypyc's C optimisation level (as black builds with) and debug-information
#: level (none: the wheels stay small).
OPT_LEVEL = "3"
DEBUG_LEVEL = "0"


#: The plain C extensions built beside mypyc's modules: (module name, C source).
C_EXTENSIONS = (("american_sniff.batch._cbatch", "src/american_sniff/batch/_cbatch.c"),)


def c_extensions(root: Path) -> list[Any]:
    """The setuptools ``Extension`` of each of :data:`C_EXTENSIONS`, C99 and optimised."""
    from setuptools import Extension  # noqa: PLC0415

    # MSVC takes no -std flag (and compiles C99 by default); gcc and clang do.
    flags = [] if sys.platform == "win32" else ["-std=c99", "-O3"]
    return [
        Extension(name, sources=[str(root / source)], extra_compile_args=flags)
        for name, source in C_EXTENSIONS
    ]


def build_extensions(extensions: list[Any], work: Path) -> dict[str, str]:
    """Build ``extensions`` with setuptools' ``build_ext`` under ``work``.

    Returns each built file's absolute path mapped to its path in the wheel.
    """
    from setuptools import Distribution  # noqa: PLC0415
    from setuptools.command.build_ext import build_ext  # noqa: PLC0415

    command = build_ext(Distribution({"name": "american-sniff", "ext_modules": extensions}))
    command.build_lib = str(work / "lib")
    command.build_temp = str(work / "temp")
    command.parallel = os.cpu_count() or 1
    command.ensure_finalized()
    command.run()
    built: dict[str, str] = {}
    for output in command.get_outputs():
        path = Path(output)
        built[str(path)] = path.relative_to(work / "lib").as_posix()
    return built


def build_in_place(root: Path) -> list[Path]:
    """Build the C extensions next to their sources under ``src/``; return the files written."""
    work = Path(tempfile.mkdtemp(prefix="american-sniff-c-"))
    try:
        built = build_extensions(c_extensions(root), work)
        written = []
        for path, inside in built.items():
            target = root / "src" / inside
            shutil.copyfile(path, target)
            written.append(target)
        return written
    finally:
        shutil.rmtree(work, ignore_errors=True)


def cache_root() -> Path | None:
    """The directory of the build cache, or None when ``AMERICAN_SNIFF_BUILD_CACHE=off``."""
    value = os.environ.get(CACHE_VARIABLE, "").strip()
    if value.lower() in {"off", "0", "no", "false"}:
        return None
    if value:
        return Path(value)
    base = os.environ.get("XDG_CACHE_HOME") or os.environ.get("LOCALAPPDATA")
    return (Path(base) if base else Path.home() / ".cache") / "american-sniff" / "build"


def build_key(root: Path) -> str:
    """The cache key of a compiled build of the sources under ``root`` for this interpreter.

    A SHA-256 over the interpreter, the platform, the extension suffix, mypy's
    version, the optimisation levels, the compiler variables, and the name
    and bytes of every source file under ``src/`` with ``pyproject.toml`` and
    this file: a change to any of them gives another key.
    """
    digest = hashlib.sha256()
    try:
        mypy_version = importlib.metadata.version("mypy")
    except importlib.metadata.PackageNotFoundError:
        mypy_version = "none"
    facts = [
        sys.version,
        sys.implementation.cache_tag or "",
        sysconfig.get_platform(),
        str(sysconfig.get_config_var("EXT_SUFFIX")),
        mypy_version,
        OPT_LEVEL,
        DEBUG_LEVEL,
        *(f"{name}={os.environ.get(name, '')}" for name in COMPILER_VARIABLES),
    ]
    for fact in facts:
        digest.update(fact.encode("utf-8", "surrogateescape") + b"\0")
    files = [root / "pyproject.toml", root / "hatch_build.py"]
    files += sorted(
        path
        for path in (root / "src").rglob("*")
        if path.is_file() and path.suffix in {".py", ".pyi", ".c", ".h", ".typed"}
    )
    for path in files:
        if path.is_file():
            digest.update(path.relative_to(root).as_posix().encode("utf-8", "surrogateescape"))
            digest.update(b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def cache_lookup(cache: Path, key: str) -> dict[str, str] | None:
    """The ``force_include`` map of the cached build ``key``, or None if it is not whole.

    A hit marks the entry as just used, so that pruning keeps it.
    """
    entry = cache / key
    try:
        manifest = json.loads((entry / "manifest.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, list) or not manifest:
        return None
    built: dict[str, str] = {}
    for inside in manifest:
        if not isinstance(inside, str) or inside.startswith("/") or ".." in inside.split("/"):
            return None
        path = entry / "files" / inside
        if not path.is_file():
            return None
        built[str(path)] = inside
    with contextlib.suppress(OSError):
        os.utime(entry)
    return built


def cache_store(cache: Path, key: str, built: dict[str, str]) -> Path:
    """Copy a build's files into the cache as entry ``key``, and prune to :data:`CACHE_KEEP`.

    The entry is written beside its place and renamed into it, so that a
    build interrupted half-way never leaves an entry that looks whole.
    Returns the entry's directory. Raises OSError when the cache cannot be written.
    """
    cache.mkdir(parents=True, exist_ok=True)
    entry = cache / key
    staging = Path(tempfile.mkdtemp(prefix=f".{key[:12]}-", dir=cache))
    try:
        for path, inside in built.items():
            target = staging / "files" / inside
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        (staging / "manifest.json").write_text(json.dumps(sorted(built.values())), "utf-8")
        if entry.exists():
            shutil.rmtree(entry, ignore_errors=True)
        staging.rename(entry)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    entries = sorted(
        (path for path in cache.iterdir() if path.is_dir() and not path.name.startswith(".")),
        key=lambda path: path.stat().st_mtime,
        reverse=True,
    )
    for old in entries[CACHE_KEEP:]:
        shutil.rmtree(old, ignore_errors=True)
    return entry


class ConfigurationError(Exception):
    """The hook's configuration or environment asks for something impossible."""


def build_mode() -> str:
    """``"pure"``, ``"auto"`` or ``"required"``, from the environment variables."""
    pure = os.environ.get(PURE_VARIABLE, "").strip().lower()
    compile_ = os.environ.get(COMPILE_VARIABLE, "").strip().lower() or "auto"
    if pure not in {"", "0", "1"}:
        raise ConfigurationError(f"{PURE_VARIABLE} must be 1 or 0, not {pure!r}")
    if compile_ not in {"auto", "required"}:
        raise ConfigurationError(f"{COMPILE_VARIABLE} must be auto or required, not {compile_!r}")
    if pure == "1":
        if compile_ == "required":
            raise ConfigurationError(
                f"{PURE_VARIABLE}=1 and {COMPILE_VARIABLE}=required contradict each other"
            )
        return "pure"
    return compile_


def say(message: str) -> None:
    """Print a line of the hook's own on stderr."""
    print(f"american-sniff build: {message}", file=sys.stderr, flush=True)


#: The terminal a line of :func:`announce` is also written to.
TERMINAL = "/dev/tty"


def announce(message: str) -> None:
    """Say ``message`` on stderr and, when stderr is not a terminal, on the terminal too.

    pip runs a build with its output captured and shows it only with ``-v``
    (or on a failure), so a line that a person must see before a long step
    (the compilation) goes to the controlling terminal as well, where there
    is one. Without one (CI, a build with no terminal), stderr alone.
    """
    say(message)
    if sys.stderr.isatty():
        return
    try:
        with open(TERMINAL, "w", encoding="utf-8") as terminal:
            terminal.write(f"american-sniff build: {message}\n")
    except OSError:
        pass


def one_line(error: BaseException) -> str:
    """A short, single-line description of ``error``."""
    if isinstance(error, SystemExit):
        # mypyc reports type errors (already printed) by exiting.
        detail = error.code if isinstance(error.code, str) else f"exit status {error.code}"
        return f"mypyc stopped ({detail}; its messages are above)".splitlines()[0]
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def check_runtime_needs(c_dir: Path, dependencies: list[str]) -> None:
    """Fail unless the project depends on ``librt`` when the generated C imports it.

    Code that mypyc compiles from plain Python needs nothing at run time, but
    a module that uses mypyc's runtime library ``librt`` (``librt.strings``,
    ``librt.vecs``, ...) imports the ``librt`` package when it is loaded: a wheel
    without that dependency would install and then fail at import.
    """
    needed = sorted(
        {
            match
            for source in c_dir.rglob("*.c")
            for match in re.findall(r"import_(librt_\w+)\(\) < 0", source.read_text())
        }
    )
    names = {canonicalize_name(Requirement(dependency).name) for dependency in dependencies}
    if needed and "librt" not in names:
        raise ConfigurationError(
            f"the compiled modules import {', '.join(needed)}: add librt to the "
            "dependencies in pyproject.toml"
        )


def source_docstrings(source: Path) -> dict[str, str]:
    """The docstring of each function, class and method of a module: ``name`` or ``Class.name``."""
    tree = ast.parse(source.read_text("utf-8"))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node)
            if doc:
                found[node.name] = doc
        elif isinstance(node, ast.ClassDef):
            doc = ast.get_docstring(node)
            if doc:
                found[node.name] = doc
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    doc = ast.get_docstring(item)
                    if doc:
                        found[f"{node.name}.{item.name}"] = doc
    return found


def _literal_default(node: ast.expr, constants: dict[str, ast.expr]) -> str | None:
    """A default as a Python literal, through one module constant's name; None if it is not one."""
    if isinstance(node, ast.Name) and node.id in constants:
        node = constants[node.id]
    try:
        ast.literal_eval(node)
    except ValueError:
        return None
    return ast.unparse(node)


def _method_signature(item: ast.FunctionDef, constants: dict[str, ast.expr]) -> str | None:
    """One method's text signature (see :func:`source_signatures`), or None."""
    arguments = item.args
    positional = [*arguments.posonlyargs, *arguments.args]
    padding: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    bound = not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in item.decorator_list)
    named: list[tuple[str, ast.expr | None]] = []
    for index, (argument, default) in enumerate(
        zip(positional, [*padding, *arguments.defaults], strict=True)
    ):
        named.append((f"${argument.arg}" if index == 0 and bound else argument.arg, default))
        if index == len(arguments.posonlyargs) - 1:
            named.append(("/", None))
    if arguments.vararg is not None:
        named.append((f"*{arguments.vararg.arg}", None))
    elif arguments.kwonlyargs:
        named.append(("*", None))
    named.extend(zip((a.arg for a in arguments.kwonlyargs), arguments.kw_defaults, strict=True))
    if arguments.kwarg is not None:
        named.append((f"**{arguments.kwarg.arg}", None))
    parts = []
    for name, default in named:
        if default is None:
            parts.append(name)
            continue
        text = _literal_default(default, constants)
        if text is None:
            return None
        parts.append(f"{name}={text}")
    return "(" + ", ".join(parts) + ")"


def source_signatures(source: Path) -> dict[str, str]:
    r"""Each method's text signature, as CPython's ``__text_signature__`` writes one.

    ``Class.name`` maps to, say, ``"($self, *, geometry=False, page=(48, 40))"``:
    the bound first parameter marked ``$``, every default a literal (a module
    constant's name is replaced by its literal value). A method with a default
    that is no literal is left out. mypyc writes these for most methods; this
    fills in the ones it cannot.
    """
    tree = ast.parse(source.read_text("utf-8"))
    constants: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
            constants[node.target.id] = node.value
        elif isinstance(node, ast.Assign) and [type(t) for t in node.targets] == [ast.Name]:
            constants[node.targets[0].id] = node.value  # type: ignore[attr-defined]
    found: dict[str, str] = {}
    for cls in tree.body:
        if isinstance(cls, ast.ClassDef):
            for item in cls.body:
                if isinstance(item, ast.FunctionDef):
                    signature = _method_signature(item, constants)
                    if signature is not None:
                        found[f"{cls.name}.{item.name}"] = signature
    return found


#: The getter of every text that :func:`_callable_getset` gives a callable class.
_TEXT_GETTER = (
    "static PyObject *CPyDoc_text(PyObject *self, void *text)\n"
    "{\n    return PyUnicode_FromString((const char *)text);\n}\n"
)


def _callable_getset(match: re.Match[str], doc: str, signature: str | None) -> str:
    r"""A method's callable class (``<method>_<Class>_obj``), with ``__doc__``, ``__name__``...

    mypyc makes each method and property of an interpreted (attrs) class in a
    compiled module an instance of a callable class of its own. Its type's
    ``tp_doc`` alone is not enough: ``pydoc`` ignores an instance's docstring
    that is its type's (and then finds none), and reads ``__name__``, which
    those objects lack, so ``help()`` printed the object's repr, or failed.
    Getters on the type make the docstring the instance's own (the type's
    ``__doc__`` is then the getter, not a string), and give the name, the
    qualified name and the text signature.
    """
    from mypyc.codegen.cstring import encode_bytes_as_c_string  # noqa: PLC0415

    texts = {
        "__doc__": doc,
        "__name__": match["method"],
        "__qualname__": f"{match['owner']}.{match['method']}",
    }
    if signature is not None:
        texts["__text_signature__"] = signature
    entries = "".join(
        f'    {{"{name}", CPyDoc_text, NULL, NULL, '
        f'(void *)"{encode_bytes_as_c_string(text.encode("utf-8"))}"}},\n'
        for name, text in texts.items()
    )
    table = f"CPyDoc_getset_{match['module']}___{match['cls']}"
    return f"static PyGetSetDef {table}[] = {{\n{entries}    {{NULL}}\n}};\n" + match[0].replace(
        ".tp_methods = ", f".tp_getset = {table},\n    .tp_methods = ", 1
    )


def _fill_callables(
    text: str, stems: str, docs: dict[str, dict[str, str]], written: dict[str, dict[str, str]]
) -> tuple[str, int]:
    """Every method's callable class in ``text`` given its docstring (:func:`_callable_getset`).

    Returns the new text and how many classes got one. It must run while every
    docstring in the C is still mypyc's bare signature (no braces inside a
    type, no ``};`` in a methods table).
    """
    # The text signature mypyc gives each class's __call__, by the name of its
    # methods table: {"__call__", (PyCFunction)..., ..., PyDoc_STR("__call__(sig)\n--\n\n")}.
    call_signature = re.compile(
        r"static PyMethodDef (?P<table>\w+)_methods\[\] = \{(?:(?!\};).)*?"
        r"\{\"__call__\",\s*\(PyCFunction\)\w+,\s*[A-Z_ |]+,\s*"
        r"PyDoc_STR\(\"__call__(?P<signature>\((?:[^\"\\]|\\.)*?\))\\n--\\n\\n\"\)",
        re.DOTALL,
    )
    # A method's callable class: static PyTypeObject CPyType_<module>___<m>_<C>_obj_template_ = {
    callable_type = re.compile(
        r"static PyTypeObject CPyType_(?P<module>" + stems + r")___"
        r"(?P<cls>(?P<method>\w+?)_(?P<owner>[A-Z]\w*)_obj)_template_ = \{"
        r"(?P<body>[^}]*?\.tp_methods = (?P<table>\w+)_methods,[^}]*?)\};"
    )

    count = 0
    signatures = {m["table"]: m["signature"] for m in call_signature.finditer(text)}

    def fill(match: re.Match[str]) -> str:
        nonlocal count
        method = f"{match['owner']}.{match['method']}"
        doc = docs[match["module"]].get(method)
        if doc is None or ".tp_getset" in match["body"]:
            return match[0]
        # The getters' one function, written before the first table that names it.
        helper = "" if count else _TEXT_GETTER
        count += 1
        signature = signatures.get(match["table"]) or written[match["module"]].get(method)
        return helper + _callable_getset(match, doc, signature)

    return callable_type.sub(fill, text), count


def add_docstrings(c_dir: Path, sources: list[Path]) -> int:
    r"""Put each compiled function's docstring in the C that mypyc wrote; return how many.

    mypyc gives a compiled function only its text signature (``"apply(state,
    move)\n--\n\n"``: CPython reads what precedes ``--`` as
    ``__text_signature__`` and the rest as ``__doc__``), so ``help()`` would
    show no docstring. The source's docstring is appended after the ``--``
    line of each function and method whose C name (``CPyPy_<module>___<name>``
    or ``CPyPy_<module>___<Class>___<name>``) names one, and a read-only
    property's getter (``<module>___<Class>_get_<name>``) gets its docstring.
    A native class's type (``CPyType_<module>___<Class>_template_``) gets the
    class's docstring after the constructor's signature in its ``tp_doc``:
    mypyc keeps only the signature, so ``help()`` and ``Class.__doc__`` would
    show nothing. A method or property of an interpreted (attrs) class gets
    its docstring, name and signature as getters of its callable class
    (:func:`_callable_getset`).
    """
    from mypyc.codegen.cstring import encode_bytes_as_c_string  # noqa: PLC0415

    docs = {source.stem: source_docstrings(source) for source in sources}
    written = {source.stem: source_signatures(source) for source in sources}
    stems = "|".join(re.escape(stem) for stem in sorted(docs, key=len, reverse=True))
    pattern = re.compile(
        r"(\(PyCFunction\)CPyPy_(?P<module>" + stems + r")___(?P<name>\w+),\s*"
        r"[A-Z_ |]+,\s*PyDoc_STR\(\"(?P<signature>(?:[^\"\\]|\\.)*?\\n--\\n\\n))\"\)"
    )
    count = 0

    def fill(match: re.Match[str]) -> str:
        nonlocal count
        module_docs = docs[match["module"]]
        name = match["name"]
        doc = module_docs.get(name) or module_docs.get(name.replace("___", ".", 1))
        if doc is None:
            return match[0]
        count += 1
        return match[1] + encode_bytes_as_c_string(doc.encode("utf-8")) + '")'

    # A read-only property: {name, getter, NULL setter, doc, closure}.
    getter = re.compile(
        r"(\(getter\)(?P<module>" + stems + r")___(?P<cls>\w+?)_get_(?P<name>\w+),\s*NULL, )NULL"
    )

    def fill_getter(match: re.Match[str]) -> str:
        nonlocal count
        doc = docs[match["module"]].get(f"{match['cls']}.{match['name']}")
        if doc is None:
            return match[0]
        count += 1
        return match[1] + '"' + encode_bytes_as_c_string(doc.encode("utf-8")) + '"'

    # A native class's type object: {..., .tp_doc = PyDoc_STR("Class(args)\n--\n\n"), ...}.
    native = re.compile(
        r"(static PyTypeObject CPyType_(?P<module>" + stems + r")___(?P<cls>\w+?)_template_ = \{"
        r"[^}]*?\.tp_doc = PyDoc_STR\(\"(?:[^\"\\]|\\.)*?\\n--\\n\\n)\"\)"
    )

    def fill_class(match: re.Match[str]) -> str:
        nonlocal count
        module_docs = docs[match["module"]]
        doc = module_docs.get(match["cls"])
        if doc is None:
            return match[0]
        count += 1
        return match[1] + encode_bytes_as_c_string(doc.encode("utf-8")) + '")'

    # A function mypyc can give no text signature (say, a default it cannot
    # write down) has no docstring at all: {..., PyDoc_STR(NULL)}.
    unsigned = re.compile(
        r"(\(PyCFunction\)CPyPy_(?P<module>" + stems + r")___(?P<name>\w+),\s*"
        r"[A-Z_ |]+,\s*PyDoc_STR\()NULL\)"
    )

    def fill_unsigned(match: re.Match[str]) -> str:
        nonlocal count
        module_docs = docs[match["module"]]
        name = match["name"]
        doc = module_docs.get(name) or module_docs.get(name.replace("___", ".", 1))
        if doc is None:
            return match[0]
        count += 1
        return match[1] + '"' + encode_bytes_as_c_string(doc.encode("utf-8")) + '")'

    for path in c_dir.rglob("*.c"):
        text = path.read_text("utf-8")
        # The callable classes first, while every docstring in the C is still
        # mypyc's bare signature (no braces inside a type, no "};" in a table).
        filled, added = _fill_callables(text, stems, docs, written)
        count += added
        filled = unsigned.sub(fill_unsigned, pattern.sub(fill, filled))
        filled = native.sub(fill_class, getter.sub(fill_getter, filled))
        if filled != text:
            path.write_text(filled, "utf-8")
    return count


def compile_modules(
    root: Path, sources: list[Path], work: Path, dependencies: list[str]
) -> dict[str, str]:
    """Compile ``sources`` with mypyc and build their extensions, and the C ones, under ``work``.

    Returns the ``force_include`` map of the built files: each absolute path
    to its path in the wheel. Raises whatever mypyc or setuptools raise when
    the compilation fails (and SystemExit for type errors).
    """
    if sys.implementation.name != "cpython":
        raise RuntimeError(f"mypyc compiles for CPython only, not {sys.implementation.name}")
    # Imported here, not at the top: the editable and pure builds do not need mypyc.
    from mypyc.build import mypycify  # noqa: PLC0415

    arguments = [
        # The project's own mypy settings (strict), and a cache kept out of the tree.
        "--config-file",
        str(root / "pyproject.toml"),
        "--cache-dir",
        str(work / "mypy_cache"),
        *(str(source) for source in sources),
    ]
    extensions = mypycify(
        arguments,
        opt_level=OPT_LEVEL,
        debug_level=DEBUG_LEVEL,
        target_dir=str(work / "c"),
    )
    # Each listed module needs an extension of its own, or it would stay pure
    # Python in a wheel tagged as compiled.
    names = {extension.name.rsplit(".", 1)[-1] for extension in extensions}
    missing = sorted(source.name for source in sources if source.stem not in names)
    if missing:
        raise RuntimeError(f"mypyc made no extension for {', '.join(missing)}")
    check_runtime_needs(work / "c", dependencies)
    say(f"docstrings written into the generated C: {add_docstrings(work / 'c', sources)}")
    return build_extensions([*extensions, *c_extensions(root)], work)


class MypycBuildHook(BuildHookInterface[BuilderConfig]):
    """Compiles the listed modules into the wheel, or leaves it pure Python."""

    PLUGIN_NAME = "custom"

    #: The temporary directory of this build, removed when the wheel is written.
    work: Path | None = None

    def modules(self) -> list[Path]:
        """The absolute paths of the modules the hook's ``compile`` list names."""
        listed = self.config.get("compile")
        if not isinstance(listed, list) or not listed:
            raise ConfigurationError(
                "[tool.hatch.build.targets.wheel.hooks.custom] needs compile = "
                '["src/american_sniff/<module>.py", ...]'
            )
        root = Path(self.root)
        paths = []
        for entry in listed:
            if not isinstance(entry, str) or not entry.endswith(".py"):
                raise ConfigurationError(f"compile: {entry!r} is not the path of a .py file")
            path = root / entry
            if not path.is_file():
                raise ConfigurationError(f"compile: {entry} does not exist")
            paths.append(path)
        return paths

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Compile the listed modules into a standard wheel, if it can be done."""
        if self.target_name != "wheel" or version == "editable":
            return
        mode = build_mode()
        if mode == "pure":
            say(f"{PURE_VARIABLE}=1: building the pure-Python wheel")
            return
        sources = self.modules()
        root = Path(self.root)
        cache = cache_root()
        key = build_key(root) if cache is not None else ""
        if cache is not None and mode == "auto":
            cached = cache_lookup(cache, key)
            if cached is not None:
                self.use(build_data, cached)
                say(
                    f"reused the modules compiled for these sources from {cache / key} "
                    f"({CACHE_VARIABLE}=off compiles again)"
                )
                return
        announce(f"compiling the rules core (mypyc, C): 2 to 5 minutes; {PURE_VARIABLE}=1 skips it")
        started = time.monotonic()
        self.work = Path(tempfile.mkdtemp(prefix="american-sniff-mypyc-"))
        try:
            built = compile_modules(
                Path(self.root), sources, self.work, self.metadata.core.dependencies
            )
        except ConfigurationError:
            self.finalize(version, build_data, "")
            raise
        except (Exception, SystemExit) as error:
            reason = one_line(error)
            if mode == "required":
                self.finalize(version, build_data, "")
                raise RuntimeError(
                    f"american-sniff build: mypyc compilation failed and "
                    f"{COMPILE_VARIABLE}=required: {reason}"
                ) from error
            say(
                f"WARNING: building a pure-Python wheel, because the mypyc compilation "
                f"failed ({reason}); set {COMPILE_VARIABLE}=required to make this an error"
            )
            return
        self.use(build_data, built)
        say(
            f"compiled with mypyc in {time.monotonic() - started:.0f} s: "
            f"{', '.join(sorted(built.values()))}"
        )
        if cache is not None:
            try:
                say(f"kept for the next build of these sources in {cache_store(cache, key, built)}")
            except OSError as error:
                say(f"the build cache was not written ({one_line(error)}); the wheel is whole")

    @staticmethod
    def use(build_data: dict[str, Any], built: dict[str, str]) -> None:
        """Put the compiled files ``built`` into the wheel, and tag it for this interpreter."""
        build_data["force_include"].update(built)
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Remove the temporary build directory."""
        if self.work is not None:
            shutil.rmtree(self.work, ignore_errors=True)
            self.work = None


if __name__ == "__main__":
    if sys.argv[1:] != ["--batch-in-place"]:
        sys.exit("usage: python hatch_build.py --batch-in-place")
    for written in build_in_place(Path(__file__).resolve().parent):
        say(f"built {written}")
