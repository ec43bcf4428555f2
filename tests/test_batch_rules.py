"""One written source of the rules: every kernel and encoder takes its numbers from ``rules``.

The Python kernels import :mod:`american_sniff.rules`; the C kernel includes
``batch/_rules.h``, which ``tools/batch_header.py`` writes from ``rules``,
``actions``, ``observation`` and the slot layout of ``batch/_pybatch.py``.
Three checks hold that together: the checked-in header is the one the tool
writes now; no kernel or encoder writes a rule number of its own (read from
the sources, comments and strings left out); and a scratch copy of the
package with one rule number changed plays by the new number in every kernel
and encoder.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tokenize
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "american_sniff"
TOOL = ROOT / "tools" / "batch_header.py"

#: The kernels and encoders, by path under the package: each must take every
#: rule number from ``rules`` (the generated header is read, not written, by them).
KERNELS_AND_ENCODERS = (
    "actions.py",
    "observation.py",
    "batch/__init__.py",
    "batch/_pybatch.py",
    "batch/_npbatch.py",
    "batch/observe.py",
    "batch/_cbatch.c",
    "batch/_cobserve.c",
    "batch/_cplay.c",
    "batch/_cendgame.c",
    "batch/_cvector.c",
    "batch/_cwaiting.c",
    "batch/_crecall.c",
    "batch/recall.py",
    "bots/_kernel.py",
    "envs/_kernel.py",
)


def _tool() -> ModuleType:
    """``tools/batch_header.py``, loaded from the repository (skips where it is not here)."""
    if not TOOL.is_file():
        pytest.skip("tools/batch_header.py is not beside the tests")
    spec = importlib.util.spec_from_file_location("batch_header", TOOL)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_checked_in_header_is_the_one_the_tool_writes() -> None:
    """``batch/_rules.h`` equals a fresh one (``python tools/batch_header.py`` writes it)."""
    tool = _tool()
    header = ROOT / tool.HEADER
    assert header.read_text(encoding="utf-8") == tool.render(), (
        "src/american_sniff/batch/_rules.h is stale: run python tools/batch_header.py"
    )


def test_the_tool_refuses_a_number_its_table_cannot_hold() -> None:
    """A rule grown past a table's C type is an error naming the table, not a wrapped number."""
    tool = _tool()
    assert tool._table("t", "int8_t", "as_rule_x", "3", [0, 127, -128])[1].startswith("static")
    with pytest.raises(ValueError, match=r"as_rule_x is int8_t, which cannot hold 128"):
        tool._table("t", "int8_t", "as_rule_x", "2", [0, 128])


# -- no rule number outside rules ---------------------------------------------

#: What a kernel must not write, each with what it is: read from code with its
#: comments and strings removed and its tokens spaced apart.
RULE_NUMBERS = (
    (re.compile(r"(?<![\w.])(250|200)(?![\w.])"), "a target (rules.target)"),
    (re.compile(r"(%|//|/|\*) 5(?![\w.])|(?<![\w.])5 (\*|%)"), "the scoring unit of five"),
    (
        re.compile(r"\bplayers (==|!=|<=|>=|<|>) \d|\d (==|!=|<=|>=|<|>) players\b"),
        "a rule by number of players (rules.hand_size, side_of, PLAYER_COUNTS...)",
    ),
    (re.compile(r"\bseat \w* ?% 2\b|\bseat % 2\b"), "a partnership (rules.side_of)"),
    (re.compile(r"\+ 1 \) % players\b"), "the next seat (rules.next_seat)"),
)


def python_code(source: str) -> str:
    """The tokens of a Python source apart from its comments and strings, one space between."""
    kept = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in {tokenize.COMMENT, tokenize.STRING, tokenize.NL, tokenize.NEWLINE}:
            kept.append("\n" if token.type in {tokenize.NL, tokenize.NEWLINE} else "")
            continue
        kept.append(token.string)
    return " ".join(kept)


_C_SKIPPED = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', re.DOTALL)
_C_TOKEN = re.compile(r"\d[\w.]*|\w+|[^\w\s]")


def c_code(source: str) -> str:
    """The tokens of a C source apart from its comments and strings, one space between."""
    lines = _C_SKIPPED.sub(" ", source).splitlines()
    return "\n".join(" ".join(_C_TOKEN.findall(line)) for line in lines)


def rule_numbers(code: str) -> list[str]:
    """What of :data:`RULE_NUMBERS` the spaced-out ``code`` writes: one line each."""
    found = []
    for number, line in enumerate(code.splitlines(), 1):
        for pattern, what in RULE_NUMBERS:
            if pattern.search(line):
                found.append(f"{what}: line {number}: {line.strip()}")
    return found


def test_the_check_finds_the_rule_numbers_kernels_once_wrote() -> None:
    """The forms the kernels used before ``rules`` was their source are found, in code only."""
    written = [
        python_code("size = 7 if players == 2 else 6 if players == 3 else 5\n"),
        python_code("won = score >= (250 if players == 2 else 200)\n"),
        python_code("loss = (pips + 2) // 5 * 5\n"),
        python_code("side = seat % 2 if players == 4 else seat\n"),
        c_code("points = sum > 0 && sum % 5 == 0 ? sum : 0;"),
        c_code("s[AS_TURN] = (seat + 1) % players;"),
        c_code("if (players < 2 || players > 4) {"),
        c_code("return players == 2 ? 250 : 200;"),
    ]
    for code in written:
        assert rule_numbers(code), code
    quiet = [
        python_code('"""Wins at 250 points, in steps of % 5."""\nx = 1  # 200 seats % 2\n'),
        c_code('/* 250 or 200; seat % 2 */ const char *s = "players == 4";'),
        c_code("int a = 2500, b = 1.5 * x, c = AS_MAX_PLAYERS;"),
    ]
    for code in quiet:
        assert not rule_numbers(code), code


@pytest.mark.parametrize("name", KERNELS_AND_ENCODERS)
def test_no_kernel_or_encoder_writes_a_rule_number(name: str) -> None:
    """Every number and decision of the rules comes from ``rules`` (the C kernel's via _rules.h)."""
    path = PACKAGE / name
    if not path.is_file():
        pytest.skip(f"{name} is not beside the tests")
    source = path.read_text(encoding="utf-8")
    code = python_code(source) if path.suffix == ".py" else c_code(source)
    assert rule_numbers(code) == [], f"{name} writes a rule number of its own"


# -- one change, followed everywhere ----------------------------------------------

#: Played in the scratch copy: each kernel's matches in lockstep with apply, to
#: the changed 2-player target, and the observation's target from each encoder.
_SCRATCH_PLAY = r"""
import json, random
from array import array
import american_sniff
from american_sniff import apply, new_match, rules
from american_sniff.actions import legal_actions, move_of
from american_sniff.batch import BACKENDS, FIELDS, STATE_WORDS, _pybatch, reset, step
from american_sniff.observation import OBSERVATION_FIELDS, OBSERVATION_SIZE, encode
from american_sniff.views import view_for

target_at = 0
for name, size in OBSERVATION_FIELDS:
    if name == "target":
        break
    target_at += size
scores, winner = FIELDS["scores"][0], FIELDS["winner"][0]


def words(state):
    return memoryview(state).cast("B").cast("i")


def observed(backend, state, n):
    # The target each batch encoder writes: the C kernel's, and numpy's where installed.
    if backend == "c":
        facts = array("q", [0] * (n * _pybatch.FACT_WORDS))
        for slot in range(n):
            row = slot * _pybatch.FACT_WORDS
            facts[row + _pybatch.F_MOVER] = -1
            facts[row + _pybatch.F_ROUND] = words(state)[slot * STATE_WORDS + FIELDS["round"][0]]
            facts[row + _pybatch.F_OPENER] = words(state)[slot * STATE_WORDS + FIELDS["turn"][0]]
        out = array("i", [0] * (n * OBSERVATION_SIZE))
        BACKENDS["c"].observe_into(state, facts, out)
        return {out[slot * OBSERVATION_SIZE + target_at] for slot in range(n)}
    if backend == "numpy":
        from american_sniff.batch.observe import observe, start_facts
        import numpy as np
        s = np.asarray(state)
        return set(observe(s, start_facts(s), backend="numpy")[:, target_at].tolist())
    return set()


report = {"package": american_sniff.__file__, "target": rules.target(2), "kernels": {}}
seeds = list(range(12))
for backend in sorted(BACKENDS):
    out = reset(seeds, 2, backend=backend)
    matches = [new_match(2, seed=seed) for seed in seeds]
    chooser = random.Random(7)
    targets = observed(backend, out.state, len(seeds))
    targets |= {encode(view_for(m, m.turn))[target_at] for m in matches}
    while any(m.winner is None for m in matches):
        actions = [chooser.choice(legal_actions(m)) if m.winner is None else 0 for m in matches]
        out = step(out.state, actions, backend=backend)
        matches = [
            m if m.winner is not None else apply(m, move_of(m, a)) for m, a in zip(matches, actions)
        ]
        for slot, m in enumerate(matches):
            base = slot * STATE_WORDS
            assert list(words(out.state)[base + scores : base + scores + 2]) == list(m.scores)
            assert words(out.state)[base + winner] == (-1 if m.winner is None else m.winner)
    report["kernels"][backend] = {
        "winning": sorted(m.scores[m.winner] for m in matches),
        "observed": sorted(targets),
    }
print(json.dumps(report))
"""


def _c_compiler() -> str | None:
    return shutil.which("cc") or shutil.which("gcc")


def test_one_rule_number_changed_in_a_scratch_copy_is_followed_everywhere(tmp_path: Path) -> None:
    """The 2-player target set to 60 in a copy's ``rules.py``: every kernel and encoder follows.

    The copy's header is written again by the tool and its C kernel compiled
    from it (where a C compiler is here); then each kernel plays 12 matches in
    lockstep with the copy's ``apply``, every one won at 60 points or a little
    more, and the observation's target is 60 from every encoder.
    """
    _tool()
    scratch = tmp_path / "copy"
    shutil.copytree(
        PACKAGE,
        scratch / "src" / "american_sniff",
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"),
    )
    shutil.copytree(ROOT / "tools", scratch / "tools")
    rules = scratch / "src" / "american_sniff" / "rules.py"
    text = rules.read_text(encoding="utf-8")
    written = "return 250 if players == 2 else 200"
    assert text.count(written) == 1, "rules.target is no longer written as this test expects"
    rules.write_text(text.replace(written, "return 60 if players == 2 else 200"), encoding="utf-8")
    environment = {**os.environ, "PYTHONPATH": str(scratch / "src")}
    environment.pop("AMERICAN_SNIFF_BATCH_EXTENSION", None)
    subprocess.run(
        [sys.executable, "tools/batch_header.py"], cwd=scratch, env=environment, check=True
    )
    header = (scratch / "src" / "american_sniff" / "batch" / "_rules.h").read_text()
    assert "as_rule_target[AS_MAX_PLAYERS + 1] = {\n    0, 0, 60, 200, 200\n};" in header
    compiler = _c_compiler()
    if compiler is not None:
        built = tmp_path / f"_cbatch{sysconfig.get_config_var('EXT_SUFFIX')}"
        source = scratch / "src" / "american_sniff" / "batch" / "_cbatch.c"
        include = sysconfig.get_paths()["include"]
        command = [compiler, "-std=c99", "-O1", "-shared", "-fPIC", f"-I{include}"]
        subprocess.run([*command, str(source), "-o", str(built)], check=True)
        environment["AMERICAN_SNIFF_BATCH_EXTENSION"] = str(built)
    result = subprocess.run(
        [sys.executable, "-c", _SCRATCH_PLAY],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["package"].startswith(str(scratch)), report["package"]
    assert report["target"] == 60
    expected = {"python"} | ({"c"} if compiler is not None else set())
    if importlib.util.find_spec("numpy") is not None:
        expected.add("numpy")
    assert set(report["kernels"]) == expected
    for backend, played in report["kernels"].items():
        assert played["observed"] == [60], backend
        # Won at the new target: the last placement passes 60 by less than 60.
        assert all(60 <= score < 120 for score in played["winning"]), (backend, played)
