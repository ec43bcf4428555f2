"""The browser server's stores without a server: the web's own SQLite store and the library adapter.

These need no web extra (no Starlette), so the main run covers them; the
servers on top are tested in ``test_web_workers.py``, which shares the
``opener`` fixture from here.
"""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from american_sniff.web.game import Game, new_setup
from american_sniff.web.shared import LibraryStore
from american_sniff.web.store import LogEntry, StaleLog, Store
from pg_testing import Opener


def test_the_store_refuses_an_append_at_a_stale_length(tmp_path: Path) -> None:
    """An append checks the log's length as it writes; in a batch, only the stale one fails."""
    with Store(tmp_path / "m.sqlite3") as store:
        store.create("m", 0.0, {})
        assert store.append("m", LogEntry("continue", "0 1"), expected=0) == 0
        with pytest.raises(StaleLog, match="has 1 entries, not 0"):
            store.append("m", LogEntry("continue", "1 1"), expected=0)
        results = store.append_many(
            [("m", LogEntry("continue", "1 1")), ("m", LogEntry("continue", "0 2"))],
            expected=[1, 1],
        )
        assert results[0] == 1
        assert isinstance(results[1], StaleLog)
        stored = store.load("m")
        assert stored is not None
        assert [entry.value for entry in stored.log] == ["0 1", "1 1"]


def test_the_library_store_keeps_settings_apart_from_matches(opener: Opener) -> None:
    """A setting is stored once (the first value wins) and is no match of the list."""
    store = opener()
    try:
        assert store.meta_of("key") is None
        assert store.meta("key", "first") == "first"
        assert store.meta("key", "second") == "first"
        assert store.meta_of("key") == "first"
        game = Game.create(store, new_setup(2, ["human", "greedy"], seed=3))
        assert store.ids() == [game.id]
        library = getattr(store, "library", None)
        if library is not None:  # the library's own list has no settings either (no key)
            assert [m.id for m in library.matches().matches] == [game.id]
            assert library.setting_of("key") == "first"
        with pytest.raises(ValueError, match="exists"):
            store.create(game.id, 0.0, game.setup.to_dict())
        with pytest.raises(ValueError, match="no match"):
            store.append("nosuchmatch", LogEntry("continue", "0 1"), expected=0)
        assert store.load("nosuchmatch") is None
    finally:
        store.close()


def test_a_page_of_ids_is_one_query_that_reads_no_match(
    opener: Opener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The operator's list pages through the ids after a given one, newest first.

    Neither store reads a match for it; on the library's store, nothing is
    replayed (it replayed every stored match for each page before).
    """
    store = opener()
    try:
        made = [Game.create(store, new_setup(2, ["human", "greedy"], seed=n)).id for n in range(5)]
        every = store.ids()
        assert sorted(every) == sorted(made)
        library = getattr(store, "library", None)

        def no_reading(*args: object, **kwargs: object) -> None:
            raise AssertionError("a page of ids read a match")

        monkeypatch.setattr(store, "load", no_reading)
        if library is not None:
            monkeypatch.setattr(library, "matches", no_reading)
            monkeypatch.setattr(library, "load", no_reading)
        assert store.ids() == every
        assert store.page_of_ids(None, 2) == (every[:2], True)
        assert store.page_of_ids(every[1], 2) == (every[2:4], True)
        assert store.page_of_ids(every[3], 2) == (every[4:], False)
        assert store.page_of_ids(every[4], 2) == ([], False)
        assert store.page_of_ids(None, 5) == (every, False)
        for after in ("nosuchmatch", "' OR 1=1 --", "a" * 1_048_576):
            assert store.page_of_ids(after, 2) is None
    finally:
        store.close()


def test_the_library_store_on_sqlite_and_its_failures(tmp_path: Path) -> None:
    """On the library's SQLite store: no announcements; a failed database is a StorageFailure."""
    from american_sniff import legal_moves
    from american_sniff.store import SQLiteStore
    from american_sniff.web.shared import StorageFailure

    store = LibraryStore(SQLiteStore(tmp_path / "m.sqlite3"))
    assert store.listen() is None  # only PostgreSQL announces
    game = Game.create(store, new_setup(2, ["human", "greedy"], seed=0))
    assert store.lease(game.id, 1, "worker-a", 5)
    assert not store.lease(game.id, 1, "worker-b", 5)
    move = str(legal_moves(game.state)[0])
    assert store.append(game.id, LogEntry("move", move)) == 0  # no length given: read now
    refused = store.append_many([(game.id, LogEntry("continue", "0 1"))], [0])
    assert isinstance(refused[0], StaleLog)
    store.append(game.id, LogEntry("move", move), expected=1)  # no longer legal: broken
    with pytest.raises(ValueError, match="does not replay"):
        store.load(game.id)
    with pytest.raises(ValueError, match="one expected length per entry"):
        store.append_many([(game.id, LogEntry("continue", "0 1"))], [])
    assert store.entries_since(game.id, 1) == (LogEntry("move", move),)  # as stored
    assert store.entries_since(game.id, 2) == ()
    with pytest.raises(ValueError, match="no match 'nobody'"):
        store.entries_since("nobody", 0)
    store.close()
    for call in (
        lambda: store.entries_since(game.id, 0),
        lambda: store.meta_of("key"),
        lambda: store.meta("key", "x"),
        store.ids,
        lambda: store.load(game.id),
        lambda: store.lease(game.id, 1, "worker-a", 5),
        lambda: store.append(game.id, LogEntry("continue", "0 1"), expected=1),
        lambda: store.create("other", 0.0, game.setup.to_dict()),
    ):
        with pytest.raises(StorageFailure):
            call()


def test_a_reload_replays_only_the_new_entries_and_a_bad_log_changes_nothing(
    tmp_path: Path,
) -> None:
    """A grown log is replayed from where the game was; a log that does not replay is refused."""
    from american_sniff import legal_moves

    with Store(tmp_path / "m.sqlite3") as store:
        game = Game.create(store, new_setup(2, ["human", "human"], seed=0))
        stored = store.load(game.id)
        assert stored is not None
        other = Game(stored, store)
        for _ in range(3):
            other.commit(
                other.plan_move(other.state.turn, str(legal_moves(other.state)[0]), other.seq)
            )
        stored = store.load(game.id)
        assert stored is not None
        first = game.states[0]
        game.reload(stored)
        assert game.states[0] is first  # kept, not replayed again
        assert game.state == other.state
        assert (game.seq, game.logged, game.version) == (3, 3, 1)
        before = game.states
        fresh = Game(stored, store)
        fresh.reload(stored)
        assert fresh.state == other.state
        with pytest.raises(ValueError, match="not 'elsewhere'"):
            game.reload(attrs.evolve(stored, id="elsewhere"))
        broken = attrs.evolve(stored, log=(*stored.log, LogEntry("move", "[6|6] opens")))
        with pytest.raises(ValueError, match=r"\[6\|6\]"):
            game.reload(broken)
        assert game.states is before
        assert (game.seq, game.logged) == (3, 3)


def test_a_game_catches_up_on_the_new_entries_alone(tmp_path: Path) -> None:
    """``catch_up``: the entries another process appended, replayed on the states held."""
    from american_sniff import legal_moves
    from american_sniff.store import SQLiteStore

    store = LibraryStore(SQLiteStore(tmp_path / "m.sqlite3"))
    game = Game.create(store, new_setup(2, ["human", "human"], seed=0))
    stored = store.load(game.id)
    assert stored is not None
    other = Game(stored, store)
    for _ in range(3):
        other.commit(other.plan_move(other.state.turn, str(legal_moves(other.state)[0]), other.seq))
    first = game.states[0]
    game.catch_up(store.entries_since(game.id, game.logged))
    assert game.states[0] is first
    assert game.state == other.state
    assert (game.seq, game.logged, game.version) == (3, 3, 1)
    before = game.states
    with pytest.raises(ValueError, match=r"\[6\|6\]"):
        game.catch_up([LogEntry("move", "[6|6] opens")])
    assert game.states is before  # a bad entry changes nothing
    assert (game.seq, game.logged, game.version) == (3, 3, 1)
    store.close()


def test_the_writers_batch_is_one_statement_on_postgres() -> None:
    """Entries written together go in one statement, one commit; each is still checked alone."""
    from typing import Any

    from american_sniff import legal_moves
    from american_sniff.store import PostgresStore
    from pg_testing import POSTGRES_URL, postgres_schema

    class Counted:
        """The store's connection, counting the statements sent on it."""

        def __init__(self, db: Any) -> None:
            self.db = db
            self.statements = 0

        def execute(self, *args: Any, **kwargs: Any) -> Any:
            self.statements += 1
            return self.db.execute(*args, **kwargs)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.db, name)

    for schema in postgres_schema("sniff_batch"):
        library = PostgresStore(POSTGRES_URL, schema=schema)
        store = LibraryStore(library)
        one = Game.create(store, new_setup(2, ["human", "human"], seed=0))
        two = Game.create(store, new_setup(2, ["human", "human"], seed=1))
        first, second = str(legal_moves(one.state)[0]), str(legal_moves(two.state)[0])
        counted = library._db = Counted(library._db)  # type: ignore[assignment]
        results = store.append_many(
            [
                (one.id, LogEntry("move", first)),
                (two.id, LogEntry("move", second)),
                (two.id, LogEntry("move", second)),  # planned on the same length: refused
                ("nobody", LogEntry("move", first)),
            ],
            [0, 0, 0, 0],
        )
        assert counted.statements == 1  # (autocommit: no BEGIN, no COMMIT of its own)
        library._db = counted.db
        assert results[:2] == [0, 0]
        assert isinstance(results[2], StaleLog)
        assert isinstance(results[3], ValueError)
        assert "no match 'nobody'" in str(results[3])
        assert store.entries_since(one.id, 0) == (LogEntry("move", first),)
        assert store.entries_since(two.id, 0) == (LogEntry("move", second),)
        store.close()
