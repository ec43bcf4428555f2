"""The build: ``hatch_build.py``'s choices, and which modules the installed build compiled.

The builds themselves (compiled, pure, from the sdist) are made and tested by
``.ci/run``; these tests check the hook's small decisions, and that whatever
build is installed imports what it should: the compiled modules where it is a
platform wheel, the ``.py`` sources where it is pure or editable.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import pytest

from american_sniff import COMPILED, engine

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def hook() -> ModuleType:
    """``hatch_build.py``, loaded from the project's root (skips if that is not here)."""
    pytest.importorskip("hatchling")
    path = ROOT / "hatch_build.py"
    if not path.is_file():
        pytest.skip("hatch_build.py is not beside the tests")
    spec = importlib.util.spec_from_file_location("hatch_build", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("pure", "compile_", "mode"),
    [
        (None, None, "auto"),
        ("0", None, "auto"),
        ("1", None, "pure"),
        ("1", "auto", "pure"),
        (None, "auto", "auto"),
        (None, "required", "required"),
        ("0", "Required", "required"),
    ],
)
def test_the_environment_chooses_the_build(
    hook: ModuleType,
    monkeypatch: pytest.MonkeyPatch,
    pure: str | None,
    compile_: str | None,
    mode: str,
) -> None:
    """AMERICAN_SNIFF_PURE=1 builds pure; AMERICAN_SNIFF_COMPILE=required forbids the fallback."""
    for name, value in (("AMERICAN_SNIFF_PURE", pure), ("AMERICAN_SNIFF_COMPILE", compile_)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert hook.build_mode() == mode


@pytest.mark.parametrize(
    ("pure", "compile_", "message"),
    [
        ("yes", "auto", "AMERICAN_SNIFF_PURE must be"),
        ("0", "always", "AMERICAN_SNIFF_COMPILE must be"),
        ("1", "required", "contradict"),
    ],
)
def test_the_environment_cannot_ask_for_nonsense(
    hook: ModuleType, monkeypatch: pytest.MonkeyPatch, pure: str, compile_: str, message: str
) -> None:
    """A misspelt value, or a pure build that must compile, stops the build."""
    monkeypatch.setenv("AMERICAN_SNIFF_PURE", pure)
    monkeypatch.setenv("AMERICAN_SNIFF_COMPILE", compile_)
    with pytest.raises(hook.ConfigurationError, match=message):
        hook.build_mode()


def test_a_failure_is_told_on_one_line(hook: ModuleType) -> None:
    """The fallback's warning names the error on a single line."""
    error = OSError("command '/nonexistent' failed:\n  No such file or directory")
    assert hook.one_line(error) == (
        "OSError: command '/nonexistent' failed: No such file or directory"
    )
    assert hook.one_line(SystemExit(1)) == "mypyc stopped (exit status 1; its messages are above)"
    assert "\n" not in hook.one_line(SystemExit("error: one\nerror: two"))


@pytest.mark.parametrize(
    "dependencies", [["attrs>=23.1"], ["attrs>=23.1", "LibRT[extra]>=0.16; python_version<'4'"]]
)
def test_code_that_needs_no_librt_builds_either_way(
    hook: ModuleType, tmp_path: Path, dependencies: list[str]
) -> None:
    """Compiled plain Python needs nothing at run time, whatever the dependencies."""
    (tmp_path / "group.c").write_text("if (CPyStatics_Initialize() < 0) {\n")
    hook.check_runtime_needs(tmp_path, dependencies)


def test_code_that_imports_librt_needs_it_as_a_dependency(hook: ModuleType, tmp_path: Path) -> None:
    """A compiled module that loads librt would fail at import without the dependency."""
    (tmp_path / "group.c").write_text("if (import_librt_strings() < 0) {\nreturn -1;\n}\n")
    with pytest.raises(hook.ConfigurationError, match="librt_strings: add librt"):
        hook.check_runtime_needs(tmp_path, ["attrs>=23.1", "cattrs>=24.1"])
    hook.check_runtime_needs(tmp_path, ["attrs>=23.1", "librt>=0.16"])


def test_the_installed_build_imports_what_it_compiled() -> None:
    """A platform wheel imports its compiled modules; a pure or editable build, the sources."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    pyproject = ROOT / "pyproject.toml"
    if not pyproject.is_file():
        pytest.skip("pyproject.toml is not beside the tests")
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    listed = config["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]["compile"]
    wheel = importlib.metadata.distribution("american-sniff").read_text("WHEEL") or ""
    compiled = "Root-Is-Purelib: false" in wheel
    for path in listed:
        name = path.removeprefix("src/").removesuffix(".py").replace("/", ".")
        module = importlib.import_module(name)
        assert module.__file__ is not None
        assert module.__file__.endswith(".py") is not compiled, (name, module.__file__, wheel)


def test_compiled_says_which_build_runs() -> None:
    """``compiled()`` is False for the pure-Python build (the engine's file is a .py file).

    Kills the mutants of ``engine.compiled``.
    """
    assert engine.compiled() is COMPILED
    if engine.__file__.endswith(".py"):
        assert engine.compiled() is False


def test_the_c_extensions_are_c99_sources_of_the_package(hook: ModuleType) -> None:
    """Each C extension the hook builds names a C file under src/ and its module's dotted path."""
    extensions = hook.c_extensions(ROOT)
    assert [e.name for e in extensions] == ["american_sniff.batch._cbatch"]
    for extension, (name, source) in zip(extensions, hook.C_EXTENSIONS, strict=True):
        assert (ROOT / source).is_file()
        assert source == "src/" + name.replace(".", "/") + ".c"
        assert extension.sources == [str(ROOT / source)]
        assert "-std=c99" in extension.extra_compile_args


def test_the_batch_kernel_builds_in_place_and_loads(hook: ModuleType, tmp_path: Path) -> None:
    """``build_in_place`` compiles the kernel next to its source, and the module it makes works."""
    pytest.importorskip("setuptools")  # (a venv of Python 3.12 on has none of its own)
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler here")
    (tmp_path / "src/american_sniff/batch").mkdir(parents=True)
    # Every C file of the kernel: _cbatch.c includes _cplay.c, the playouts,
    # and the header of numbers, _rules.h.
    for source in (ROOT / "src/american_sniff/batch").glob("*.[ch]"):
        shutil.copyfile(source, tmp_path / "src/american_sniff/batch" / source.name)
    written = hook.build_in_place(tmp_path)
    assert len(written) == 1
    assert written[0].parent == tmp_path / "src/american_sniff/batch"
    spec = importlib.util.spec_from_file_location("american_sniff.batch._cbatch", written[0])
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.STATE_WORDS == 48


def _fake_project(root: Path) -> None:
    """A tree with the files a build key reads."""
    (root / "src" / "american_sniff").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (root / "hatch_build.py").write_text("# hook\n")
    (root / "src" / "american_sniff" / "tiles.py").write_text("X = 1\n")
    (root / "src" / "american_sniff" / "_c.c").write_text("int x;\n")


def test_the_build_key_changes_with_any_source_and_the_compiler(
    hook: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Editing a module, a C source or a compiler variable gives another key; bytecode does not."""
    monkeypatch.delenv("CFLAGS", raising=False)
    _fake_project(tmp_path)
    first = hook.build_key(tmp_path)
    assert len(first) == 64
    assert hook.build_key(tmp_path) == first
    cache_dir = tmp_path / "src" / "american_sniff" / "__pycache__"
    cache_dir.mkdir()
    (cache_dir / "tiles.cpython-311.pyc").write_bytes(b"\0")
    assert hook.build_key(tmp_path) == first
    (tmp_path / "src" / "american_sniff" / "tiles.py").write_text("X = 2\n")
    second = hook.build_key(tmp_path)
    assert second != first
    (tmp_path / "src" / "american_sniff" / "_c.c").write_text("int y;\n")
    third = hook.build_key(tmp_path)
    assert third not in {first, second}
    monkeypatch.setenv("CFLAGS", "-O0")
    assert hook.build_key(tmp_path) not in {first, second, third}


def test_the_build_cache_gives_back_what_was_stored(hook: ModuleType, tmp_path: Path) -> None:
    """A stored build is found whole under its key, another key misses, a damaged entry misses."""
    work = tmp_path / "work"
    (work / "american_sniff").mkdir(parents=True)
    built = {}
    for inside in ("american_sniff/tiles.cpython-311-x86_64-linux-gnu.so", "abc__mypyc.so"):
        path = work / inside
        path.write_bytes(inside.encode())
        built[str(path)] = inside
    cache = tmp_path / "cache"
    entry = hook.cache_store(cache, "k1", built)
    found = hook.cache_lookup(cache, "k1")
    assert found is not None
    assert sorted(found.values()) == sorted(built.values())
    for path, inside in found.items():
        assert Path(path).read_bytes() == inside.encode()
        assert Path(path).is_relative_to(entry)
    assert hook.cache_lookup(cache, "k2") is None
    (entry / "files" / "abc__mypyc.so").unlink()
    assert hook.cache_lookup(cache, "k1") is None
    (entry / "manifest.json").write_text('["../../etc/passwd"]')
    assert hook.cache_lookup(cache, "k1") is None
    (entry / "manifest.json").write_text("{not json")
    assert hook.cache_lookup(cache, "k1") is None


def test_the_build_cache_keeps_the_newest_entries(hook: ModuleType, tmp_path: Path) -> None:
    """Storing more than CACHE_KEEP builds drops the least recently used ones."""
    source = tmp_path / "m.so"
    source.write_bytes(b"so")
    cache = tmp_path / "cache"
    keys = [f"key{number}" for number in range(hook.CACHE_KEEP + 2)]
    for number, key in enumerate(keys):
        entry = hook.cache_store(cache, key, {str(source): "m.so"})
        os.utime(entry, (1_000_000 + number, 1_000_000 + number))
    remaining = sorted(path.name for path in cache.iterdir())
    assert remaining == sorted(keys[-hook.CACHE_KEEP :])


def test_the_cache_is_where_the_environment_says(
    hook: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """AMERICAN_SNIFF_BUILD_CACHE names the directory or turns the cache off; XDG is the default."""
    monkeypatch.setenv("AMERICAN_SNIFF_BUILD_CACHE", "off")
    assert hook.cache_root() is None
    monkeypatch.setenv("AMERICAN_SNIFF_BUILD_CACHE", str(tmp_path / "c"))
    assert hook.cache_root() == tmp_path / "c"
    monkeypatch.delenv("AMERICAN_SNIFF_BUILD_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert hook.cache_root() == tmp_path / "xdg" / "american-sniff" / "build"


@pytest.mark.parametrize("mode", ["auto", "required"])
def test_a_cached_build_is_reused_unless_compilation_is_required(
    hook: ModuleType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An automatic build takes a cached entry without compiling; a required one compiles.

    A build that compiles says so, and about how long it takes, in one line
    before it starts; one that reuses the cache does not.
    """
    reused = mode == "auto"
    _fake_project(tmp_path)
    cache = tmp_path / "cache"
    monkeypatch.setenv("AMERICAN_SNIFF_BUILD_CACHE", str(cache))
    monkeypatch.delenv("AMERICAN_SNIFF_PURE", raising=False)
    monkeypatch.setenv("AMERICAN_SNIFF_COMPILE", mode)
    so = tmp_path / "tiles.so"
    so.write_bytes(b"compiled")
    hook.cache_store(cache, hook.build_key(tmp_path), {str(so): "american_sniff/tiles.so"})
    compiled: list[bool] = []
    said_before: list[str] = []

    def compile_modules(*arguments: object) -> dict[str, str]:
        compiled.append(True)
        said_before.append(capsys.readouterr().err)
        return {str(so): "american_sniff/tiles.so"}

    monkeypatch.setattr(hook, "compile_modules", compile_modules)
    terminal = tmp_path / "tty"
    monkeypatch.setattr(hook, "TERMINAL", str(terminal))

    class Metadata:
        class core:  # the shape of hatchling's metadata
            dependencies: ClassVar[list[str]] = []

    plugin = hook.MypycBuildHook(
        str(tmp_path),
        {"compile": ["src/american_sniff/tiles.py"]},
        None,
        Metadata(),
        str(tmp_path),
        "wheel",
    )
    build_data: dict[str, Any] = {"force_include": {}}
    plugin.initialize("standard", build_data)
    plugin.finalize("standard", build_data, "")
    assert compiled == ([] if reused else [True])
    if not reused:
        assert said_before == [
            "american-sniff build: compiling the rules core (mypyc, C): 2 to 5 minutes; "
            "AMERICAN_SNIFF_PURE=1 skips it\n"
        ]
    assert "compiling the rules core" not in capsys.readouterr().err
    # pip hides a build's output: the line goes to the terminal too (stderr
    # is captured here, as under pip, so it is not one).
    told = terminal.read_text(encoding="utf-8") if terminal.exists() else ""
    assert told == ("" if reused else said_before[0])
    assert list(build_data["force_include"].values()) == ["american_sniff/tiles.so"]
    assert build_data["pure_python"] is False


# -- the vector generator is a tool of the repository, not of the package -------------------


def _loaded_by(statement: str) -> set[str]:
    """The modules a fresh interpreter holds after ``statement``."""
    program = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    )
    loaded: list[str] = json.loads(result.stdout)
    return set(loaded)


@pytest.mark.parametrize(
    "module",
    [
        "american_sniff.conformance",
        "american_sniff.conformance.kit",
        "american_sniff.conformance.fuzz",
    ],
)
def test_the_kit_and_the_fuzzer_load_no_generator(module: str) -> None:
    """Importing the kit or the fuzzer loads no generator, nor its closure (bots, records)."""
    loaded = _loaded_by(f"import {module}")
    assert module in loaded
    assert not {name for name in loaded if "generat" in name}
    assert not {"american_sniff.bots", "american_sniff.records", "american_sniff.referee"} & loaded


def test_the_package_holds_no_generator() -> None:
    """The installed package has no generator module; the repository's tools folder has it."""
    assert importlib.util.find_spec("american_sniff.conformance.generate") is None
    spec = importlib.util.find_spec("american_sniff.conformance")
    assert spec is not None
    assert spec.origin is not None
    folder = Path(spec.origin).parent
    assert not list(folder.glob("generat*"))
    assert (folder / "vectors" / "seeds.json").is_file()  # what it writes ships
    if (ROOT / "tools").is_dir():  # beside the tests in the repository and the sdist
        assert (ROOT / "tools" / "generate_vectors.py").is_file()
