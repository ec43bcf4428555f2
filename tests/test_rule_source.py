"""No rule number outside ``rules``: every source of the package, Python, C and JavaScript, read.

``tests/test_batch_rules.py`` holds the kernels and encoders to ``rules``;
this test holds the rest of ``src/`` to it too. Each source is read with its
comments and strings left out (prose may say "250 points"), its tokens spaced
apart, and searched for the forms in which the game's numbers were once
retyped: a target, the scoring unit of five, the 28 tiles, the top number 6
(as 7 values, or 128 sets of them), a rule by number of players, a
partnership. The few numbers of those forms that are not rules are listed in
:data:`NOT_RULES`, each with what it is. Two files are not read: ``rules.py``,
where the numbers are written, and the files that ``tools/batch_header.py``
writes from it (``batch/_rules.h`` and ``web/static/rules.js``).
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "american_sniff"

#: Where the numbers are written, and what is written from there.
WRITTEN_THERE = frozenset({"rules.py", "batch/_rules.h", "web/static/rules.js"})

#: What no source may write, each with what it is, read from code with its
#: comments and strings removed and its tokens spaced apart.
RULE_NUMBERS = (
    (re.compile(r"(?<![\w.])(250|200)(?![\w.])"), "a target (rules.target)"),
    (
        re.compile(r"(%|//|/|\*) 5(?![\w.])|(?<![\w.])5 (\*|%)"),
        "the scoring unit (rules.SCORE_UNIT)",
    ),
    (re.compile(r"(?<![\w.])28(?![\w.])"), "the tiles of the set (rules.TILE_COUNT)"),
    (
        re.compile(
            r"(<|<=) (6|7|128)(?![\w.])|range \( (7|128|1 << 7) \)|<< 7(?![\w.])"
            r"|(?<![\w.])7 \*|\* 7(?![\w.])"
        ),
        "the top number and its 7 values (rules.MAX_PIPS)",
    ),
    (
        re.compile(
            r"\bplayers (==|!=|<=|>=|<|>|===|!==) \d|\d (==|!=|<=|>=|<|>|===|!==) players\b"
        ),
        "a rule by number of players (rules.hand_size, has_partners, PLAYER_COUNTS...)",
    ),
    (re.compile(r"% 2(?![\w.])|\+ 2 \) % \w+"), "a partnership (rules.side_of, partner_of)"),
    (re.compile(r"\+ 1 \) % players\b"), "the next seat (rules.next_seat)"),
)

#: The numbers of the forms above that are not rules: (file, a part of the
#: code line as this test spaces it out), each with what it is. Keep it short.
NOT_RULES = {
    ("batch/_npbatch.py", "assert py . RNG % 2 == 0"): "a slot's generator word is 8-byte aligned",
    ("batch/_npbatch.py", "assert py . STATE_WORDS % 2 == 0"): "a slot is 8-byte aligned",
    ("cli/serve.py", "DEFAULT_MAX_ROUNDS = 200"): "a server's bound on a match's rounds",
    ("web/flow.py", "MAX_ROUNDS = 200"): "a server's bound on a match's rounds",
    ("web/buckets.py", "_MAX_KEY = 200"): "the longest rate-limit key kept (an address or a seat)",
    ("store/_base.py", "MAX_PAGE = 200"): "a store's page of matches",
    ("web/limits.py", "address_messages : Rate = Rate ( burst = 200 , every = 0.02 )"): (
        "a rate limit's burst"
    ),
    ("conformance/kit.py", "quoted = answer [ : 200 ] . decode ( , )"): "a message's length",
    ("web/static/play.js", "if ( players === 2 ) return { [ me ] : , [ at ( 1 ) ] : } ;"): (
        "where the seats sit on the screen"
    ),
    (
        "web/static/play.js",
        "if ( players === 3 ) return { [ me ] : , [ at ( 1 ) ] : , [ at ( 2 ) ] : } ;",
    ): ("where the seats sit on the screen"),
    (
        "render/compact.py",
        "free : ( x + 5 * dx , y , heading ) }",
    ): ("a tile's length in the drawing"),
    (
        "render/compact.py",
        "Side . LINE_B : ( x + 5 * dx , y , heading ) ,",
    ): "a tile's length in the drawing",
    ("render/tally.py", "parts = [ ] * 5"): "a tally's five strokes",
    (
        "batch/_cbatch.c",
        "static const int8_t debruijn_index [ 32 ] =",
    ): ("a de Bruijn table of bit positions"),
    (
        "conformance/fuzz.py",
        "game = _Match ( engine , rng , seeded , if bias and number % 2 else bias , reached )",
    ): "every other fuzzed match is biased",
}

_OPERATOR = r"===|!==|==|!=|<=|>=|<<|>>|\+\+|--|&&|\|\||\*\*|//"
_C_TOKEN = re.compile(rf"{_OPERATOR}|\d[\w.]*|\w+|[^\w\s]")
_C_SKIPPED = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', re.DOTALL)
_JS_SKIPPED = re.compile(
    r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`", re.DOTALL
)


def _blank(match: re.Match[str]) -> str:
    """A skipped comment or string as the line breaks it held, so that lines keep their numbers."""
    return " " + "\n" * match.group().count("\n")


def python_lines(source: str) -> list[str]:
    """Each line of a Python source as its tokens apart from comments and strings, spaced."""
    lines: list[list[str]] = [[] for _ in source.splitlines()] or [[]]
    skipped = {tokenize.COMMENT, tokenize.STRING, tokenize.NL, tokenize.NEWLINE}
    skipped |= {tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    skipped |= {
        getattr(tokenize, name)
        for name in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
        if hasattr(tokenize, name)
    }
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skipped and token.start[0] <= len(lines):
            lines[token.start[0] - 1].append(token.string)
    return [" ".join(line) for line in lines]


def c_lines(source: str, skipped: re.Pattern[str] = _C_SKIPPED) -> list[str]:
    """Each line of a C (or, with ``_JS_SKIPPED``, JavaScript) source, spaced as above."""
    return [" ".join(_C_TOKEN.findall(line)) for line in skipped.sub(_blank, source).splitlines()]


def code_lines(path: Path) -> list[str]:
    """The lines of the source at ``path``, by its kind."""
    source = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return python_lines(source)
    return c_lines(source, _JS_SKIPPED if path.suffix == ".js" else _C_SKIPPED)


def rule_numbers(name: str, lines: list[str]) -> list[str]:
    """What of :data:`RULE_NUMBERS` the file ``name`` writes (:data:`NOT_RULES` aside), by line."""
    found = []
    for number, line in enumerate(lines, 1):
        if any(name == where and part in line for where, part in NOT_RULES):
            continue
        found += [
            f"{name}:{number}: {what}: {line.strip()}"
            for pattern, what in RULE_NUMBERS
            if pattern.search(line)
        ]
    return found


def sources() -> list[str]:
    """Every Python, C and JavaScript source of the package, by path under it."""
    found = []
    for path in sorted(PACKAGE.rglob("*")):
        name = path.relative_to(PACKAGE).as_posix()
        if path.suffix in {".py", ".c", ".h", ".js"} and name not in WRITTEN_THERE:
            found.append(name)
    return found


def test_the_check_finds_the_rule_numbers_once_written_outside_rules() -> None:
    """The forms found in the package before this test, in each language, in code only."""
    written = [
        python_lines("size = 7 if players == 2 else 6 if players == 3 else 5\n"),
        python_lines("won = score >= (250 if players == 2 else 200)\n"),
        python_lines("if score % 5 or abs(score) > MAX_SCORE:\n"),
        python_lines("mine = view.seat % 2 if view.players == 4 else view.seat\n"),
        python_lines("stock = 28 - players * HAND_SIZE[players]\n"),
        python_lines(
            "SET_OF = tuple(frozenset(v for v in range(7) if m >> v & 1) for m in range(128))\n"
        ),
        c_lines("for (v = 0; v <= 6; v++) {"),
        c_lines("if (players < 2 || players > 4) {"),
        c_lines("o[OB_VOIDS + 7 * r + t] = 1;"),
        c_lines(
            "const team = players === 4 ? ` (partner of ${(seat + 2) % 4})` : '';", _JS_SKIPPED
        ),
        c_lines("const side = view.players === 4 ? seat % 2 : seat;", _JS_SKIPPED),
    ]
    for lines in written:
        assert rule_numbers("x.py", lines), lines
    quiet = [
        python_lines('"""Wins at 250 points, in steps of % 5."""\nx = 1  # 200 seats % 2\n'),
        python_lines('text = f"{players == 4} of 28"\n'),
        c_lines('/* 250 or 200; seat % 2 */ const char *s = "players == 4";'),
        c_lines("int a = 2500, b = 1.5 * x, c = AS_MAX_PLAYERS, d = node[6];"),
        c_lines("// players === 4\nconst s = 'seat % 2', t = `28 tiles`;", _JS_SKIPPED),
    ]
    for lines in quiet:
        assert not rule_numbers("x.py", lines), lines


def test_lines_keep_their_numbers() -> None:
    """A hit names its line in the file, past docstrings, block comments and template strings."""
    python = python_lines('"""A\ndocstring."""\n\nx = 250\n')
    assert [n for n, line in enumerate(python, 1) if "250" in line] == [4]
    script = c_lines("/* a\nb */ const a = `x\ny`;\nconst b = 28;\n", _JS_SKIPPED)
    assert [n for n, line in enumerate(script, 1) if "28" in line] == [4]


def test_the_allowed_numbers_are_still_written() -> None:
    """Every entry of :data:`NOT_RULES` still stands in its file (a stale one is taken out)."""
    for name, line in NOT_RULES:
        path = PACKAGE / name
        if path.is_file():
            assert any(line in text for text in code_lines(path)), (name, line)


def test_every_language_of_the_package_is_read() -> None:
    """The check reads the Python, the C and the browser's scripts, not the files written."""
    read = sources()
    assert {Path(name).suffix for name in read} == {".py", ".c", ".js"}
    assert not WRITTEN_THERE & set(read)
    assert len(read) > 100


@pytest.mark.parametrize("name", sources())
def test_no_source_writes_a_rule_number(name: str) -> None:
    """Every number and decision of the rules comes from ``rules`` (via _rules.h, rules.js)."""
    found = rule_numbers(name, code_lines(PACKAGE / name))
    assert found == [], "\n".join(found)
