"""The match store's contract, run against both backends: SQLite and PostgreSQL.

PostgreSQL is the one at ``AMERICAN_SNIFF_POSTGRES_URL`` (by default
``postgresql://127.0.0.1:5432/test``); each test gets a schema of its own,
dropped after it. Where none answers the PostgreSQL tests are skipped with
the reason, and under ``AMERICAN_SNIFF_REQUIRE_POSTGRES=1`` (as ``.ci/run``
sets) they fail instead.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import sqlite3
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import apply, legal_moves, new_match, parse_move
from american_sniff.store import (
    MAX_LEASE,
    MAX_LOG,
    MAX_METADATA,
    MAX_PAGE,
    MAX_SETTING,
    MAX_SETTING_NAME,
    MAX_VALUE,
    Appended,
    BrokenMatch,
    LogEntry,
    Match,
    MatchExists,
    MatchStore,
    NoSuchMatch,
    PostgresStore,
    SQLiteStore,
    StaleAppend,
)
from american_sniff.store import _base as store_base
from pg_testing import POSTGRES_URL, postgres_schema

#: How to open a store: the backend's name and what it opens (a file or a schema).
Target = tuple[str, str]


def _open(target: Target) -> MatchStore:
    kind, where = target
    if kind == "sqlite":
        return SQLiteStore(where)
    return PostgresStore(POSTGRES_URL, schema=where)


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    """Where a test's stores live: a new SQLite file, or a new PostgreSQL schema."""
    if request.param == "sqlite":
        yield ("sqlite", str(tmp_path / "matches.db"))
    else:
        yield from (("postgres", schema) for schema in postgres_schema("sniff_test"))


@pytest.fixture
def opened(target: Target) -> Iterator[Callable[[], MatchStore]]:
    """Opens stores on the test's database (each its own connection); closes them after."""
    stores: list[MatchStore] = []

    def open_store() -> MatchStore:
        stores.append(_open(target))
        return stores[-1]

    yield open_store
    for store in stores:
        store.close()


@pytest.fixture
def store(opened: Callable[[], MatchStore]) -> MatchStore:
    """One store on the test's database."""
    return opened()


def _move(match: Match, pick: int = 0) -> LogEntry:
    moves = legal_moves(match.state)
    return LogEntry("move", str(moves[pick % len(moves)]))


def _play(store: MatchStore, match: Match, count: int) -> Match:
    """``count`` first legal moves appended to ``match``, one after another."""
    for _ in range(count):
        entry = _move(match)
        store.append(match.id, match.length, entry)
        match = match.after(entry)
    return match


# -- the contract ----------------------------------------------------------------------


def test_a_match_is_created_loaded_and_replayed(store: MatchStore) -> None:
    """Setup and metadata come back as given, and the log replays to the states played."""
    metadata = {"names": ["Ann", "Bob", "Cy"], "table": {"private": True}, "n": 1.5}
    match = store.create(3, seed=2**64 - 1, match_id="m-1", metadata=metadata)
    assert (match.setup.players, match.setup.seed, match.setup.metadata) == (3, 2**64 - 1, metadata)
    assert match.state == new_match(3, seed=2**64 - 1)
    assert match.length == 0
    played = _play(store, match, 40)
    loaded = store.load("m-1")
    assert loaded == played
    assert isinstance(loaded, Match)
    assert loaded.state.seq == 40
    state = new_match(3, seed=2**64 - 1)
    for _ in range(40):
        state = apply(state, legal_moves(state)[0])
    assert loaded.state == state


def test_undo_and_continue_entries_replay_as_the_browser_games(store: MatchStore) -> None:
    """An undo cuts the states back; a ``continue`` marks the seat and round; both count."""
    match = _play(store, store.create(2, seed=4), 6)
    for entry in (LogEntry("undo", "2"), LogEntry("continue", "1 1")):
        store.append(match.id, match.length, entry)
        match = match.after(entry)
    loaded = store.load(match.id)
    assert isinstance(loaded, Match)
    assert loaded.state.seq == 2
    assert loaded.length == 8
    assert loaded.continued == {(1, 1)}
    for entry, words in (
        (LogEntry("undo", "5"), "undo goes back"),
        (LogEntry("continue", "2 1"), "cannot go on"),
        (LogEntry("continue", "0 3"), "cannot go on"),
    ):
        with pytest.raises(ValueError, match=words):
            loaded.after(entry)


def test_the_entries_since_a_number_are_the_logs_tail_as_stored(store: MatchStore) -> None:
    """``entries(id, n)``: the log from entry n on, what a host that holds n entries lacks."""
    match = _play(store, store.create(2, seed=4), 6)
    store.append(match.id, match.length, LogEntry("undo", "2"))
    loaded = store.load(match.id)
    assert isinstance(loaded, Match)
    assert store.entries(match.id) == loaded.log
    assert store.entries(match.id, 4) == loaded.log[4:]
    assert store.entries(match.id, 6) == (LogEntry("undo", "2"),)
    assert store.entries(match.id, 7) == store.entries(match.id, MAX_LOG) == ()
    fresh = store.create(2)
    assert store.entries(fresh.id) == ()
    with pytest.raises(NoSuchMatch):
        store.entries("nobody")
    for start in (-1, MAX_LOG + 1, "0", 1.0, True):
        with pytest.raises(ValueError, match="start is a whole number"):
            store.entries(match.id, start)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="match id"):
        store.entries("' OR 1=1 --")


def test_a_fresh_match_gets_a_random_id_and_seed(store: MatchStore) -> None:
    """Without an id or a seed the store draws them; two matches differ."""
    first, second = store.create(2), store.create(2)
    assert first.id != second.id
    assert first.setup.seed != second.setup.seed
    assert store.load(first.id) == first


def test_the_same_id_twice_and_an_unknown_id_are_refused(store: MatchStore) -> None:
    """A taken id is :class:`MatchExists`; a missing match is :class:`NoSuchMatch`."""
    store.create(2, match_id="taken")
    with pytest.raises(MatchExists, match="taken"):
        store.create(4, match_id="taken")
    with pytest.raises(NoSuchMatch):
        store.load("nobody")
    with pytest.raises(NoSuchMatch):
        store.append("nobody", 0, LogEntry("undo", "0"))


def test_an_append_planned_on_another_length_is_refused(store: MatchStore) -> None:
    """Behind or ahead of the log: refused with the length now, and nothing is written."""
    match = _play(store, store.create(2, seed=9), 3)
    entry = _move(match)
    for expected in (0, 2, 4):
        with pytest.raises(StaleAppend) as caught:
            store.append(match.id, expected, entry)
        assert (caught.value.expected, caught.value.length) == (expected, 3)
    assert store.load(match.id) == match
    assert store.append(match.id, 3, entry) == 4


def test_many_appends_at_once_are_each_checked_as_if_alone(store: MatchStore) -> None:
    """A refused entry writes nothing; the ones before and after it are written."""
    one, two = store.create(2, seed=1), store.create(2, seed=2)
    first, second = _move(one), _move(two)
    results = store.append_many(
        [
            (one.id, 0, first),
            (two.id, 5, second),  # stale: the log is empty
            ("nobody", 0, second),  # no such match
            (two.id, 0, second),
            (one.id, 1, _move(one.after(first))),
        ]
    )
    assert results[0] == 1
    assert isinstance(results[1], StaleAppend)
    assert (results[1].expected, results[1].length) == (5, 0)
    assert isinstance(results[2], NoSuchMatch)
    assert results[3:] == [1, 2]
    assert store.load(one.id) == one.after(first).after(_move(one.after(first)))
    assert store.load(two.id) == two.after(second)
    assert store.append_many([]) == []
    with pytest.raises(ValueError, match="match id"):
        store.append_many([("not an id!", 0, first)])
    with pytest.raises(TypeError, match="LogEntry"):
        store.append_many([(one.id, 2, "move 1")])  # type: ignore[list-item]
    assert store.entries(one.id, 2) == ()  # nothing written by the refused calls


def test_a_hosts_settings_keep_their_first_value_apart_from_the_matches(
    opened: Callable[[], MatchStore],
) -> None:
    """The first value stored wins, for every connection; no list of matches shows a setting."""
    store, other = opened(), opened()
    match = store.create(2, seed=4)
    assert store.setting_of("key") is None
    assert store.setting("key", "first") == "first"
    assert other.setting("key", "second") == "first"
    assert other.setting_of("key") == "first"
    assert store.setting("empty", "") == ""  # an empty value is a value
    assert store.setting_of("empty") == ""
    assert [m.id for m in store.matches().matches] == [match.id]
    long_name, long_value = "n" * MAX_SETTING_NAME, "v" * MAX_SETTING
    assert store.setting(long_name, long_value) == long_value
    for name in ("", "n" * (MAX_SETTING_NAME + 1), None, 3, b"key"):
        with pytest.raises(ValueError, match="setting's name") as caught:
            store.setting(name, "x")  # type: ignore[arg-type]
        assert len(str(caught.value)) < 120
        with pytest.raises(ValueError, match="setting's name"):
            store.setting_of(name)  # type: ignore[arg-type]
    for value in ("v" * (MAX_SETTING + 1), None, 3, ["x"]):
        with pytest.raises(ValueError, match="setting's value") as caught:
            store.setting("other", value)  # type: ignore[arg-type]
        assert len(str(caught.value)) < 120
    assert store.setting_of("other") is None  # nothing written by the refused calls


def test_a_setting_stored_by_many_threads_at_once_has_one_value(
    opened: Callable[[], MatchStore],
) -> None:
    """Eight threads, each with its own connection, store one setting at once: all get one value."""
    stores = [opened() for _ in range(8)]
    got: list[str] = []
    start = threading.Barrier(len(stores))

    def store_it(store: MatchStore, value: str) -> None:
        start.wait()
        got.append(store.setting("shared", value))

    threads = [threading.Thread(target=store_it, args=(s, f"v{n}")) for n, s in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(got) == len(stores)
    assert len(set(got)) == 1
    assert stores[0].setting_of("shared") == got[0]


def test_pages_list_every_match_once_newest_first(store: MatchStore) -> None:
    """Walking the cursors lists each match once; the last page has no cursor."""
    ids = [store.create(2, match_id=f"p{n}").id for n in range(7)]
    seen: list[str] = []
    page = store.matches(limit=3)
    while True:
        seen += [match.id for match in page.matches]
        if page.cursor is None:
            break
        page = store.matches(limit=3, cursor=page.cursor)
    assert seen == ids[::-1]
    assert store.matches(limit=7).cursor is None


def test_match_ids_page_newest_first_and_read_no_log(
    store: MatchStore, target: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``match_ids`` lists what ``matches`` lists, in its order, a page after a given id.

    It reads no log: a match whose log no longer replays is listed like any
    other, and listing replays nothing.
    """
    ids = [store.create(2, seed=n, match_id=f"i{n}").id for n in range(7)]
    _play(store, store.load("i3"), 2)  # type: ignore[arg-type]
    _write_raw(target, "UPDATE sniff_log SET value = ? WHERE match_id = ? AND n = 1", "[6|6]", "i3")
    assert isinstance(store.load("i3"), BrokenMatch)
    listed = [m.id for m in store.matches(limit=MAX_PAGE).matches]
    assert listed == ids[::-1]

    def no_replay(*args: object) -> None:
        raise AssertionError("match_ids replayed a match")

    monkeypatch.setattr(store_base, "_replayed", no_replay)
    seen: list[str] = []
    after = None
    while True:
        page = store.match_ids(3, after)
        seen += page
        if len(page) < 3:
            break
        after = page[-1]
    assert seen == listed
    assert store.match_ids(MAX_PAGE) == tuple(listed)
    assert store.match_ids(1, after="i0") == ()
    with pytest.raises(NoSuchMatch, match="nosuchmatch"):
        store.match_ids(3, after="nosuchmatch")
    for limit in (0, MAX_PAGE + 1, "3", None):
        with pytest.raises(ValueError, match="page"):
            store.match_ids(limit)  # type: ignore[arg-type]
    for after_text in ("' OR 1=1 --", "a" * 1_048_576, 7):
        with pytest.raises(ValueError, match="match id"):
            store.match_ids(3, after_text)  # type: ignore[arg-type]


_IDS = [f"h{n}" for n in range(6)]


@given(
    after=st.one_of(st.none(), st.sampled_from([*_IDS, "nosuch"]), st.text(max_size=80)),
    limit=st.one_of(st.integers(-2, MAX_PAGE + 2), st.none(), st.text(max_size=3)),
)
def test_match_ids_on_any_argument_gives_its_page_or_a_stated_error(
    after: str | None, limit: object
) -> None:
    """Any ``after`` and ``limit``: the page a plain slice of the ids gives, or a refusal."""
    valid_limit = type(limit) is int and 1 <= limit <= MAX_PAGE
    valid_after = after is None or store_base.ID_PATTERN.fullmatch(after) is not None
    with SQLiteStore() as store:
        for match_id in _IDS:
            store.create(2, match_id=match_id)
        newest = _IDS[::-1]
        if not (valid_limit and valid_after):
            with pytest.raises(ValueError, match=r"page|match id"):
                store.match_ids(limit, after)  # type: ignore[arg-type]
        elif after is not None and after not in _IDS:
            with pytest.raises(NoSuchMatch, match="no match"):
                store.match_ids(limit, after)  # type: ignore[arg-type]
        else:
            assert type(limit) is int
            start = 0 if after is None else newest.index(after) + 1
            assert store.match_ids(limit, after) == tuple(newest[start : start + limit])


@pytest.mark.parametrize("backend", ["sqlite"])
def test_an_empty_store_lists_nothing(backend: str) -> None:
    """A new store's first page is empty and final."""
    with SQLiteStore() as store:
        page = store.matches()
        ids = store.match_ids()
    assert (page.matches, page.cursor) == ((), None)
    assert ids == ()


# -- broken matches --------------------------------------------------------------------


def _write_raw(target: Target, statement: str, *values: object) -> None:
    """Change the database behind the store's back, as a fault or a hand would."""
    kind, where = target
    if kind == "sqlite":
        with contextlib.closing(sqlite3.connect(where)) as db, db:
            db.execute(statement, values)
        return
    import psycopg

    with psycopg.connect(POSTGRES_URL, autocommit=True) as connection:
        connection.execute(f'SET search_path TO "{where}"')
        connection.execute(statement.replace("?", "%s"), values)


def test_a_log_that_no_longer_replays_is_a_broken_match_in_load_and_list(
    store: MatchStore, target: Target
) -> None:
    """An illegal move, a gap and an unreadable setup: each reported, none raised."""
    good = _play(store, store.create(2, seed=1, match_id="good"), 2)
    _play(store, store.create(2, seed=2, match_id="illegal"), 2)
    _play(store, store.create(2, seed=3, match_id="gap"), 3)
    store.create(2, seed=4, match_id="setup")
    _write_raw(
        target, "UPDATE sniff_log SET value = ? WHERE match_id = ? AND n = 1", "[6|6]", "illegal"
    )
    _write_raw(target, "DELETE FROM sniff_log WHERE match_id = ? AND n = 1", "gap")
    _write_raw(target, "UPDATE sniff_matches SET setup = ? WHERE id = ?", "{not json", "setup")
    illegal = store.load("illegal")
    assert isinstance(illegal, BrokenMatch)
    assert (illegal.entry, illegal.length) == (1, 2)
    assert "entry 1" in illegal.reason
    assert "[6|6]" in illegal.reason
    gap = store.load("gap")
    assert isinstance(gap, BrokenMatch)
    assert (gap.entry, gap.reason) == (1, "entry 1 is missing")
    for number, text in enumerate(
        [
            '{"metadata": {}, "players": 5, "seed": "1"}',
            '{"metadata": {}, "seed": "x"}',
            "[]",
            "[" * 30_000 + "]" * 30_000,
            " " * (MAX_METADATA + 101),
        ]
    ):
        store.create(2, match_id=f"setup-{number}")
        _write_raw(
            target, "UPDATE sniff_matches SET setup = ? WHERE id = ?", text, f"setup-{number}"
        )
        broken = store.load(f"setup-{number}")
        assert isinstance(broken, BrokenMatch)
        assert "setup is unreadable" in broken.reason
    setup = store.load("setup")
    assert isinstance(setup, BrokenMatch)
    assert setup.entry is None
    assert "setup" in setup.reason
    listed = {match.id: match for match in store.matches().matches}
    assert listed["good"] == good
    broken_ids = {name for name, match in listed.items() if isinstance(match, BrokenMatch)}
    assert broken_ids == {"illegal", "gap", "setup"} | {f"setup-{n}" for n in range(5)}


# -- hostile input ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "value", "error", "words"),
    [
        ("drop", "x", ValueError, "one of"),
        ("move", "[9|9] on nothing", ValueError, "notation"),
        ("move", "", ValueError, "1 to 64"),
        ("move", "x" * 65, ValueError, "1 to 64"),
        ("move", "draw\n", ValueError, "printable"),
        ("move", "dr\u00e4w", ValueError, "ASCII"),
        ("move", b"draw", TypeError, "text"),
        ("undo", "-1", ValueError, "number of moves"),
        ("undo", "0012", ValueError, "number of moves"),
        ("continue", "1", ValueError, "SEAT ROUND"),
        ("continue", "a b", ValueError, "SEAT ROUND"),
    ],
)
def test_a_malformed_entry_is_refused_when_made(
    kind: str, value: object, error: type[Exception], words: str
) -> None:
    """Each malformed kind of entry is refused by :class:`LogEntry` itself, naming the problem."""
    with pytest.raises(error, match=words):
        LogEntry(kind, value)  # type: ignore[arg-type]


def test_hostile_arguments_are_refused_with_clear_errors(store: MatchStore) -> None:
    """Ids, setups, metadata, lengths, entries, limits and cursors are each checked."""
    match = store.create(2, match_id="ok")
    refused: list[tuple[Callable[[], object], type[Exception], str]] = [
        (lambda: store.create(2, match_id="a b"), ValueError, "match id"),
        (lambda: store.create(2, match_id="x" * 65), ValueError, "match id"),
        (lambda: store.create(2, match_id=7), ValueError, "match id"),  # type: ignore[arg-type]
        (lambda: store.create(5), ValueError, "2, 3 or 4"),
        (lambda: store.create(2, seed=-1), ValueError, "seed"),
        (lambda: store.create(2, seed=2**64), ValueError, "seed"),
        (lambda: store.create(2, metadata=[1]), TypeError, "mapping"),  # type: ignore[arg-type]
        (lambda: store.create(2, metadata={"x": {1, 2}}), ValueError, "JSON"),
        (lambda: store.create(2, metadata={"x": float("nan")}), ValueError, "JSON"),
        (lambda: store.create(2, metadata={"x": "y" * MAX_METADATA}), ValueError, "bytes"),
        (lambda: store.load("' OR 1=1 --"), ValueError, "match id"),
        (lambda: store.append("ok", -1, _move(match)), ValueError, "entries"),
        (lambda: store.append("ok", MAX_LOG, _move(match)), ValueError, "entries"),
        (lambda: store.append("ok", "0", _move(match)), TypeError, "integer"),  # type: ignore[arg-type]
        (lambda: store.append("ok", 0, ("move", "draw")), TypeError, "LogEntry"),  # type: ignore[arg-type]
        (lambda: store.matches(limit=0), ValueError, "page"),
        (lambda: store.matches(limit=MAX_PAGE + 1), ValueError, "page"),
        (lambda: store.matches(cursor="-1"), ValueError, "cursor"),
        (lambda: store.matches(cursor="9" * 200), ValueError, "cursor"),
    ]
    for call, error, words in refused:
        with pytest.raises(error, match=words):
            call()
    assert store.load("ok") == match
    assert [m.id for m in store.matches().matches] == ["ok"]


def test_a_deeply_nested_metadata_is_refused_not_crashed(store: MatchStore) -> None:
    """JSON nesting beyond the interpreter's recursion is a ValueError, not a crash."""
    nested: dict[str, Any] = {}
    for _ in range(100_000):
        nested = {"x": nested}
    with pytest.raises(ValueError, match="JSON"):
        store.create(2, metadata=nested)


@pytest.mark.parametrize(
    "call",
    [
        lambda store: LogEntry("move", "draw" * 262_144),
        lambda store: LogEntry("undo", "1" * 1_048_576),
        lambda store: store.load("a" * 1_048_576),
        lambda store: store.matches(cursor="1" * 1_048_576),
        lambda store: store.create(2, metadata={"x": "y" * 1_048_576}),
    ],
)
def test_a_mebibyte_of_hostile_input_is_refused_at_once(
    call: Callable[[MatchStore], object],
) -> None:
    """A 1 MiB id, entry, cursor or metadata is refused within its bound, before any write."""
    with SQLiteStore() as store:
        started = time.perf_counter()
        with pytest.raises(ValueError, match=r"64|cursor|id|bytes"):
            call(store)
        assert time.perf_counter() - started < 0.5
        assert store.matches().matches == ()


_VALID_TEXTS = ["draw", "pass", "[0|3] opens", "[1|4] on [4|4] line B", "12", "0", "1 2"]


@given(
    kind=st.sampled_from(["move", "undo", "continue"]),
    text=st.sampled_from(_VALID_TEXTS),
    cuts=st.lists(st.tuples(st.integers(0, 30), st.text(max_size=3)), max_size=4),
)
def test_mutated_entries_are_refused_or_of_their_kinds_form(
    kind: str, text: str, cuts: list[tuple[int, str]]
) -> None:
    """Entries mutated at random: each accepted one passes an independent check of its form."""
    for at, insert in cuts:
        text = text[:at] + insert + text[at + 1 :]
    try:
        entry = LogEntry(kind, text)
    except ValueError:
        return
    assert 0 < len(entry.value) <= MAX_VALUE
    assert entry.value.isascii()
    if kind == "move":
        assert str(parse_move(entry.value, strict=True)) == entry.value
    else:
        numbers = [int(part) for part in entry.value.split(" ")]
        assert " ".join(map(str, numbers)) == entry.value
        assert len(numbers) == (1 if kind == "undo" else 2)


def test_one_store_object_is_shared_by_threads(store: MatchStore) -> None:
    """Threads sharing one store (one connection behind its lock) each append to their match."""
    matches = [store.create(2, seed=n, match_id=f"t{n}") for n in range(4)]

    def play(match: Match) -> None:
        _play(store, match, 15)

    threads = [threading.Thread(target=play, args=(match,)) for match in matches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    for match in matches:
        loaded = store.load(match.id)
        assert isinstance(loaded, Match)
        assert loaded.state.seq == 15


def test_postgres_refuses_a_schema_name_that_is_not_plain() -> None:
    """The schema is put in SQL, so only plain names pass (checked before connecting)."""
    for schema in ('x"; DROP TABLE y; --', "Upper", "x" * 49, ""):
        with pytest.raises(ValueError, match="schema"):
            PostgresStore(POSTGRES_URL, schema=schema)


# -- two writers -----------------------------------------------------------------------

ROUNDS = 12


def _racer(
    target: Target,
    match_id: str,
    pick: int,
    barrier: Any,
    results: Any,
) -> None:
    """One of two writers: each round, load, wait for the other, append at the loaded length."""
    with _open(target) as store:
        for _ in range(ROUNDS):
            barrier.wait()
            match = store.load(match_id)
            assert isinstance(match, Match)
            barrier.wait()
            try:
                store.append(match_id, match.length, _move(match, pick))
                results.put((match.length, pick))
            except StaleAppend as error:
                results.put((match.length, -1 - error.length))
            barrier.wait()


def _check_race(store: MatchStore, match_id: str, results: list[tuple[int, int]]) -> None:
    """Each round one writer won and the other was refused at the length after it."""
    assert len(results) == 2 * ROUNDS
    for length in range(ROUNDS):
        outcomes = sorted(outcome for at, outcome in results if at == length)
        assert len(outcomes) == 2
        assert outcomes[0] == -1 - (length + 1)  # refused, seeing the winner's entry
        assert outcomes[1] in (0, 1)
    loaded = store.load(match_id)
    assert isinstance(loaded, Match)
    assert loaded.length == ROUNDS
    assert loaded.state.seq == ROUNDS


def test_two_threads_appending_at_one_length_one_wins(
    opened: Callable[[], MatchStore], target: Target
) -> None:
    """Two connections in two threads: one entry written a round, the other refused."""
    store = opened()
    match = store.create(4, seed=5, match_id="race")
    barrier = threading.Barrier(2, timeout=30)
    queue: Any = __import__("queue").SimpleQueue()
    threads = [
        threading.Thread(target=_racer, args=(target, match.id, pick, barrier, queue))
        for pick in (0, 1)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    results = [queue.get() for _ in range(queue.qsize())]
    _check_race(store, match.id, results)


def test_two_processes_appending_at_one_length_one_wins(
    opened: Callable[[], MatchStore], target: Target
) -> None:
    """Two processes, each with its own store on the database: the same, across processes."""
    store = opened()
    match = store.create(4, seed=6, match_id="race")
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2, timeout=60)
    results = context.Queue()
    processes = [
        context.Process(target=_racer, args=(target, match.id, pick, barrier, results))
        for pick in (0, 1)
    ]
    for process in processes:
        process.start()
    outcomes = [results.get(timeout=120) for _ in range(2 * ROUNDS)]
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    _check_race(store, match.id, outcomes)


def test_the_base_install_never_imports_psycopg() -> None:
    """Importing the store, and making a SQLite one, loads no psycopg."""
    code = (
        "import sys, american_sniff.store as s; s.SQLiteStore().close(); "
        "print('psycopg' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_postgres_without_psycopg_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without psycopg, making a PostgresStore is an ImportError naming the extra."""
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(ImportError, match=r"american-sniff\[postgres\]"):
        PostgresStore(POSTGRES_URL)


# -- bot leases ------------------------------------------------------------------------


def test_a_bot_seat_is_leased_to_one_holder_until_it_lapses(store: MatchStore) -> None:
    """One holder at a time; renewed by its holder; released, or lapsed, it passes on."""
    store.create(4, match_id="leased")
    assert store.lease("leased", 1, "worker-a", 30)
    assert not store.lease("leased", 1, "worker-b", 30)
    assert store.lease("leased", 2, "worker-b", 30)  # another seat is another lease
    assert store.lease("leased", 1, "worker-a", 30)  # renewed
    store.release("leased", 1, "worker-b")  # not b's: nothing happens
    assert not store.lease("leased", 1, "worker-b", 30)
    store.release("leased", 1, "worker-a")
    assert store.lease("leased", 1, "worker-b", 0.2)
    assert not store.lease("leased", 1, "worker-a", 30)
    time.sleep(0.3)  # b stopped renewing (it died, say): the lease lapses
    assert store.lease("leased", 1, "worker-a", 30)
    assert not store.lease("leased", 1, "worker-b", 30)


def test_leases_refuse_what_is_not_a_match_seat_holder_or_duration(store: MatchStore) -> None:
    """Each argument is checked; an unknown match is :class:`NoSuchMatch`."""
    store.create(2, match_id="m")
    with pytest.raises(NoSuchMatch):
        store.lease("none", 0, "w", 1)
    for call in (
        lambda: store.lease("m", 4, "w", 1),
        lambda: store.lease("m", True, "w", 1),
        lambda: store.lease("m", 0, "a b", 1),
        lambda: store.lease("m", 0, "w" * 1_000_000, 1),
        lambda: store.lease("m", 0, "w", 0),
        lambda: store.lease("m", 0, "w", MAX_LEASE + 1),
        lambda: store.lease("m", 0, "w", float("nan")),
        lambda: store.lease("m", 0, "w", "1"),  # type: ignore[arg-type]
        lambda: store.release("m", -1, "w"),
        lambda: store.lease("m x", 0, "w", 1),
    ):
        with pytest.raises(ValueError, match=r"seat|holder|seconds|match id"):
            call()


def test_two_workers_asking_at_once_get_one_lease(
    opened: Callable[[], MatchStore], target: Target
) -> None:
    """Two connections in two threads ask for each seat at the same moment: one gets it."""
    opened().create(4, match_id="contest")
    barrier = threading.Barrier(2, timeout=30)
    won: dict[str, list[int]] = {"a": [], "b": []}

    def ask(name: str) -> None:
        with _open(target) as store:
            for seat in range(4):
                barrier.wait()
                if store.lease("contest", seat, name, 30):
                    won[name].append(seat)

    threads = [threading.Thread(target=ask, args=(name,)) for name in won]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(won["a"] + won["b"]) == [0, 1, 2, 3]


# -- announcements (PostgreSQL) --------------------------------------------------------


@pytest.fixture
def postgres_target() -> Iterator[Target]:
    """A new PostgreSQL schema, without the SQLite twin."""
    yield from (("postgres", schema) for schema in postgres_schema("sniff_test"))


def test_every_append_is_announced_to_listeners_in_commit_order(postgres_target: Target) -> None:
    """A listener hears each append of any connection once, in order; nothing of other schemas."""
    with (
        _open(postgres_target) as store,
        _open(postgres_target) as writer,
        PostgresStore(POSTGRES_URL, schema=f"{postgres_target[1]}_x") as elsewhere,
    ):
        assert isinstance(store, PostgresStore)
        first, second = store.create(2, match_id="one"), store.create(3, match_id="two")
        with store.listen() as heard:
            assert heard.wait(0.05) == ()
            _play(writer, first, 2)
            _play(writer, second, 1)
            _play(elsewhere, elsewhere.create(2, match_id="one"), 1)  # another schema's
            with pytest.raises(StaleAppend):  # refused: not announced
                writer.append("one", 0, _move(first))
            got: list[Appended] = []
            while len(got) < 3:
                batch = heard.wait(5)
                assert batch
                got += batch
            assert got == [Appended("one", 1), Appended("one", 2), Appended("two", 1)]
            one, two = store.load("one"), store.load("two")
            assert isinstance(one, Match)
            assert isinstance(two, Match)
            assert [a.entry for a in got] == [*one.log, *two.log]  # each carries its entry
            assert heard.wait(0.1) == ()
            with pytest.raises(ValueError, match="timeout"):
                heard.wait(-1)
        import psycopg

        with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
            admin.execute(f'DROP SCHEMA "{postgres_target[1]}_x" CASCADE')


def test_a_batch_overtaken_by_another_writer_is_written_entry_by_entry(
    postgres_target: Target,
) -> None:
    """Another transaction's insert of a number of the batch refuses only that entry.

    PostgreSQL writes a batch in one statement. The other insert commits while the
    batch waits on it: the batch is tried again, each entry in turn, and only what was
    written is announced, in order.
    """
    import psycopg

    with _open(postgres_target) as store:
        assert isinstance(store, PostgresStore)
        one, two = store.create(2, match_id="one"), store.create(2, match_id="two")
        first, second = _move(one), _move(two)
        with store.listen() as heard, psycopg.connect(POSTGRES_URL) as other:
            other.execute(f'SET search_path TO "{postgres_target[1]}"')
            other.execute(  # in a transaction not yet committed: the batch waits on its key
                "INSERT INTO sniff_log (match_id, n, kind, value) VALUES (%s, 0, %s, %s)",
                ("one", first.kind, first.value),
            )
            results: list[Any] = []
            batch = threading.Thread(
                target=lambda: results.extend(
                    store.append_many(
                        [
                            ("two", 0, second),
                            ("one", 0, first),
                            ("two", 1, _move(two.after(second))),
                        ]
                    )
                )
            )
            batch.start()
            with psycopg.connect(POSTGRES_URL, autocommit=True) as watch:
                deadline = time.monotonic() + 10
                while not watch.execute("SELECT 1 FROM pg_locks WHERE NOT granted").fetchone():
                    assert time.monotonic() < deadline, "the batch never waited on the insert"
                    time.sleep(0.01)
            other.commit()
            batch.join(10)
            assert results[0] == 1
            assert isinstance(results[1], StaleAppend)
            assert (results[1].expected, results[1].length) == (0, 1)
            assert results[2] == 2
            got: list[Appended] = []
            while len(got) < 2:
                news = heard.wait(5)
                assert news
                got += news
            assert heard.wait(0.1) == ()  # (the other's insert did not announce itself)
        assert [(a.match_id, a.length) for a in got] == [("two", 1), ("two", 2)]
        loaded = store.load("two")
        assert isinstance(loaded, Match)
        assert loaded == two.after(second).after(_move(two.after(second)))
        assert store.load("one") == one.after(first)


def test_the_append_function_is_made_once_not_again_by_each_store(
    postgres_target: Target,
) -> None:
    """A second store leaves the append function as it is; one of another version is made anew.

    (Replacing a function needs its owner; the tables, made if missing, need nobody.)
    """
    import psycopg

    def version(admin: Any) -> tuple[Any, ...]:
        return tuple(
            admin.execute(
                "SELECT xmin, prosrc FROM pg_proc WHERE proname = 'sniff_append_many' "
                "AND pronamespace = to_regnamespace(%s)",  # (one: the older one is dropped)
                (postgres_target[1],),
            ).fetchone()
        )

    with _open(postgres_target), psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
        made = version(admin)
        with _open(postgres_target):
            assert version(admin) == made
        admin.execute(
            f'CREATE OR REPLACE FUNCTION "{postgres_target[1]}".sniff_append_many(ids TEXT[], '
            "expected INTEGER[], kinds TEXT[], texts TEXT[], channel TEXT, channels TEXT[]) "
            "RETURNS INTEGER[] LANGUAGE sql AS $$ SELECT '{}'::integer[] $$"
        )
        with _open(postgres_target) as again:
            assert version(admin)[1] == made[1]
            match = again.create(2, seed=1)
            assert again.append(match.id, 0, _move(match)) == 1


def test_a_batch_is_announced_in_its_order(postgres_target: Target) -> None:
    """The entries of one batch, over several matches, are heard in the batch's order."""
    with _open(postgres_target) as store:
        assert isinstance(store, PostgresStore)
        matches = [store.create(2, match_id=f"m{n}") for n in range(5)]
        appends = [(match.id, 0, _move(match)) for match in reversed(matches)]
        for match in matches:
            after = match.after(_move(match))
            appends.append((match.id, 1, _move(after)))
        with store.listen() as heard:
            assert store.append_many(appends) == [1] * 5 + [2] * 5
            got: list[Appended] = []
            while len(got) < 10:
                batch = heard.wait(5)
                assert batch
                got += batch
        assert [(a.match_id, a.length) for a in got] == [
            (match_id, expected + 1) for match_id, expected, _ in appends
        ]
        assert [a.entry for a in got] == [entry for _, _, entry in appends]


def test_a_listener_of_its_own_matches_hears_those_alone(postgres_target: Target) -> None:
    """``listen(every=False)`` hears the matches it follows, from then on, and no other."""
    with _open(postgres_target) as store, _open(postgres_target) as writer:
        assert isinstance(store, PostgresStore)
        one, two = store.create(2, match_id="one"), store.create(2, match_id="two")
        # The match's channel, as docs/embedding.md gives it to other languages.
        crc = zlib.crc32(b"one")
        assert store._match_channel("one") == f"sniff_{postgres_target[1]}_{crc:08x}"
        with store.listen(every=False) as heard, store.listen() as every:
            one = _play(writer, one, 1)  # before it follows: not heard
            heard.follow("one")
            heard.follow("one")  # (again: nothing more)
            one = _play(writer, one, 1)
            two = _play(writer, two, 2)
            got: list[Appended] = []
            deadline = time.monotonic() + 10
            while not got and time.monotonic() < deadline:
                got += heard.wait(1)
            got += heard.wait(0.2)
            assert got == [Appended("one", 2)]
            heard.unfollow("one")
            heard.unfollow("two")  # (not followed: nothing)
            _play(writer, one, 1)
            assert heard.wait(0.2) == ()
            everything: list[Appended] = []
            while len(everything) < 5:
                news = every.wait(5)
                assert news
                everything += news
            assert [(a.match_id, a.length) for a in everything] == [
                ("one", 1),
                ("one", 2),
                ("two", 1),
                ("two", 2),
                ("one", 3),
            ]
            with pytest.raises(ValueError, match="every append"):
                every.follow("one")
            with pytest.raises(ValueError, match="match id"):
                heard.follow("not an id!")


def test_matches_that_share_a_channel_are_told_apart(postgres_target: Target) -> None:
    """Two matches on one channel: the listener keeps the followed match's appends alone.

    It still hears them once the other match is no longer followed.
    """
    with _open(postgres_target) as store:
        assert isinstance(store, PostgresStore)
        shared = f"sniff_{postgres_target[1]}_shared"
        store._match_channel = lambda match_id: shared  # type: ignore[method-assign]
        one, two = store.create(2, match_id="one"), store.create(2, match_id="two")
        with store.listen(every=False) as heard:
            heard.follow("one")
            heard.follow("two")
            heard.unfollow("two")  # the channel stays: "one" still needs it
            _play(store, two, 1)
            _play(store, one, 1)
            got: list[Appended] = []
            deadline = time.monotonic() + 10
            while not got and time.monotonic() < deadline:
                got += heard.wait(1)
            got += heard.wait(0.2)
            assert got == [Appended("one", 1)]


def test_a_listener_drops_what_another_program_sent_on_its_channel(
    postgres_target: Target,
) -> None:
    """Only payloads of the store's form are announcements; anything else is left out."""
    import psycopg

    with _open(postgres_target) as store:
        assert isinstance(store, PostgresStore)
        channel = f"sniff_{postgres_target[1]}"
        with store.listen() as heard, psycopg.connect(POSTGRES_URL, autocommit=True) as other:
            for junk in ("", "one", "one x", "bad id 3", "one 99999999999", "one 4"):
                other.execute("SELECT pg_notify(%s, %s)", (channel, junk))
            for odd in ("one 5 move", "one 6 shout hello", "one 7 continue 0 1"):
                other.execute("SELECT pg_notify(%s, %s)", (channel, odd))
            got: list[Appended] = []
            deadline = time.monotonic() + 10
            while len(got) < 4 and time.monotonic() < deadline:
                got += heard.wait(1)
            got += heard.wait(0.1)
            assert got == [Appended("one", n) for n in (4, 5, 6, 7)]
            # An entry of the wrong form is none: the listener reads the log instead.
            assert [a.entry for a in got] == [None, None, None, LogEntry("continue", "0 1")]
