"""The browser game's SQLite store on its own: the safe append, the batches, the meta table.

These need no web extra (the store is the standard library's sqlite3), so the
main run covers them; the servers that use the store are tested in
``test_web_server.py`` and ``test_web_workers.py``.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from american_sniff.web.store import LogEntry, StaleLog, Store, Writer

OPEN = LogEntry("move", "[0|0] opens")
DRAW = LogEntry("move", "draws")


def _store(tmp_path: Path) -> Store:
    store = Store(tmp_path / "matches.sqlite3")
    store.create("m", 0.0, {"players": 2, "seed": 1})
    return store


def test_an_append_planned_on_a_shorter_log_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    """The expected length is checked in the write's transaction: a stale copy is told so."""
    with _store(tmp_path) as store:
        assert store.append("m", OPEN, expected=0) == 0
        with pytest.raises(StaleLog, match=r"has 1 entries, not 0") as refused:
            store.append("m", DRAW, expected=0)
        assert (refused.value.match_id, refused.value.expected, refused.value.length) == ("m", 0, 1)
        assert isinstance(refused.value, ValueError)
        loaded = store.load("m")
        assert loaded is not None
        assert loaded.log == (OPEN,)
        assert store.append("m", DRAW, expected=1) == 1


def test_two_writers_on_one_file_at_the_same_length_one_wins(tmp_path: Path) -> None:
    """Two stores (two servers) on one file, each planning on the same log: one entry lands."""
    first = _store(tmp_path)
    second = Store(tmp_path / "matches.sqlite3")
    try:
        results: list[object] = []
        barrier = threading.Barrier(2)

        def write(store: Store, entry: LogEntry) -> None:
            barrier.wait()
            try:
                results.append(store.append("m", entry, expected=0))
            except (StaleLog, sqlite3.OperationalError) as error:
                results.append(error)

        threads = [
            threading.Thread(target=write, args=(first, OPEN)),
            threading.Thread(target=write, args=(second, DRAW)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(type(r).__name__ for r in results) == ["StaleLog", "int"]
        loaded = first.load("m")
        assert loaded is not None
        assert len(loaded.log) == 1
    finally:
        first.close()
        second.close()


def test_a_batch_with_one_stale_entry_writes_the_others(tmp_path: Path) -> None:
    """append_many commits all at once where it can, else entry by entry, each with its error."""
    with _store(tmp_path) as store:
        store.create("n", 0.0, {"players": 2, "seed": 2})
        results = store.append_many([("m", OPEN), ("n", OPEN), ("m", DRAW)], [0, 5, 1])
        assert results[0] == 0
        assert results[2] == 1
        assert isinstance(results[1], StaleLog)
        untouched = store.load("n")
        assert untouched is not None
        assert untouched.log == ()
        with pytest.raises(ValueError, match="one expected length per entry"):
            store.append_many([("m", OPEN)], [])
        with pytest.raises(StaleLog):  # one entry alone: its error, as append gives it
            store.append_many([("m", OPEN)], [0])


def test_the_writer_hands_a_stale_entry_its_error(tmp_path: Path) -> None:
    """Writer.submit: the future gives the number, or StaleLog for a log that moved on."""
    with _store(tmp_path) as store:
        writer = Writer(store)
        try:
            assert writer.submit("m", OPEN, expected=0).result(timeout=10) == 0
            with pytest.raises(StaleLog):
                writer.submit("m", DRAW, expected=0).result(timeout=10)
            assert writer.submit("m", DRAW, expected=1).result(timeout=10) == 1
        finally:
            writer.close()


def test_the_writer_settles_a_loops_futures_with_one_call_per_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Writer.written: each entry's number or error, handed to the loop once per transaction."""

    async def scenario(store: Store, writer: Writer) -> list[int | BaseException]:
        loop = asyncio.get_running_loop()
        calls: list[object] = []
        original = loop.call_soon_threadsafe

        def counted(callback: object, *args: object) -> object:
            calls.append(callback)
            return original(callback, *args)  # type: ignore[arg-type]

        monkeypatch.setattr(loop, "call_soon_threadsafe", counted)
        with store._lock:  # the thread takes the first entry, and waits for the file
            futures = [writer.written("m", OPEN, expected=0)]
            await asyncio.sleep(0.05)
            futures += [
                writer.written("m", DRAW, expected=1),
                writer.written("m", DRAW, expected=1),  # stale once the one before is in
                writer.written("m", DRAW, expected=2),
                writer.written("nowhere", DRAW, expected=0),
            ]
        results = await asyncio.gather(*futures, return_exceptions=True)
        assert len(calls) <= 2  # one per transaction, where a thread's future makes five
        return results

    with _store(tmp_path) as store:
        writer = Writer(store)
        try:
            results = asyncio.run(scenario(store, writer))
        finally:
            writer.close()
        assert results[:2] == [0, 1]
        assert isinstance(results[2], StaleLog)
        assert results[3] == 2
        assert isinstance(results[4], ValueError)
        assert str(results[4]) == "there is no match 'nowhere'"
        loaded = store.load("m")
        assert loaded is not None
        assert loaded.log == (OPEN, DRAW, DRAW)


def test_an_idle_writer_writes_at_once_and_a_busy_one_gathers_a_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GATHER: no wait for an entry that finds the writer idle; a busy writer waits for more."""
    from american_sniff.web import store as module

    monkeypatch.setattr(module, "GATHER", 3.0)  # long: a wait would show
    monkeypatch.setattr(module, "BUSY", 30.0)
    with _store(tmp_path) as store:
        transactions: list[int] = []
        append_many = store.append_many

        def counted(entries: Any, expected: Any = None) -> list[int | Exception]:
            transactions.append(len(entries))
            return append_many(entries, expected)

        monkeypatch.setattr(store, "append_many", counted)
        writer = Writer(store)
        try:
            started = time.monotonic()
            assert writer.submit("m", OPEN, expected=0).result(timeout=60) == 0
            assert time.monotonic() - started < GATHER_SEEN  # idle: written at once
            # Busy now (a transaction just ended): the next entry waits for the one after.
            first = writer.submit("m", DRAW, expected=1)
            time.sleep(0.2)
            assert not first.done()
            second = writer.submit("m", DRAW, expected=2)
            assert (first.result(timeout=60), second.result(timeout=60)) == (1, 2)
            assert transactions == [1, 2]
        finally:
            writer.close()


#: Far less than the gathering time the test above sets (3 s), far more than a write.
GATHER_SEEN = 2.0


def test_meta_of_a_key_never_stored_is_none(tmp_path: Path) -> None:
    """meta_of reads without writing; meta stores the default the first time."""
    with _store(tmp_path) as store:
        assert store.meta_of("key") is None
        assert store.meta("key", "first") == "first"
        assert store.meta("key", "second") == "first"
        assert store.meta_of("key") == "first"
