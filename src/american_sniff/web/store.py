"""Where the browser game keeps its matches: one SQLite file, with an append-only log per match.

A match is stored as what it was set up with (its players, its seed, who
sits where, each seat's secret token) and a log of what happened, one row per
entry, never changed once written:

* ``move``: a move in the library's notation (``str(move)``), made by the seat
  to move;
* ``undo``: the number of moves the match goes back to (an undo against bots);
* ``continue``: a seat has seen a round's settlement and goes on (the entry's
  text is ``"SEAT ROUND"``).

A match is resumed by replaying its log from ``new_match(players, seed=seed)``
(see :mod:`american_sniff.web.game`): the states themselves are never stored,
so a stored match cannot hold a state that play does not reach.

A database file is kept in SQLite's write-ahead log mode (WAL), which
commits with one write to the log and lets reads go on during a write. The
server writes through a :class:`Writer`: a thread of its own that takes every
entry waiting and commits them in one transaction, so that no commit waits
on the event loop, and many matches' moves share one commit.

Several processes may share one database file (several servers behind a
balancer, or a restart that overlaps the old process). Each holds its own
copy of a match in memory, and a copy may be behind the log. So a change is
appended with the length of the log it was planned on (``expected``), which
is checked in the same transaction as the write: if another process wrote
meanwhile, the entry is refused with :class:`StaleLog`, and the log stays
one that replays. The refused process reads the match again and tells its
players the fresh state.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import attrs

from ..store.sqlite import locked_transaction, open_database

__all__ = [
    "BATCH",
    "BUSY",
    "GATHER",
    "LOG_KINDS",
    "LogEntry",
    "MatchBook",
    "StaleLog",
    "Store",
    "StoredMatch",
    "Writer",
]

#: The most log entries a :class:`Writer` commits in one transaction.
BATCH = 500

#: How long a busy :class:`Writer` waits for more entries to commit with the
#: one it has, in seconds: under load, several moves share a commit (at about
#: a thousand moves a second, this cut the server's CPU per move by a tenth).
GATHER = 0.002

#: A :class:`Writer` counts as busy for this many seconds after a transaction
#: ends; an entry that comes to an idle writer is written at once.
BUSY = 0.01

#: The kinds of log entry.
LOG_KINDS = ("move", "undo", "continue")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    setup TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS log (
    match_id TEXT NOT NULL REFERENCES matches(id),
    n INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('move', 'undo', 'continue')),
    value TEXT NOT NULL,
    PRIMARY KEY (match_id, n)
);
CREATE INDEX IF NOT EXISTS matches_newest ON matches (created DESC, id);
"""


class StaleLog(ValueError):
    """An entry refused because the match's log is not as long as the state it was planned on.

    Another writer (another process on the same database) appended
    meanwhile: the writer's copy of the match is stale, and it reads the
    match again (:meth:`Store.load`) before it plans anything more.

    :ivar match_id: The match.
    :ivar expected: How many entries the writer thought the log had.
    :ivar length: How many it has.
    """

    def __init__(self, match_id: str, expected: int, length: int) -> None:
        super().__init__(
            f"the log of the match {match_id!r} has {length} entries, not {expected}: "
            "it was written to since this copy of the match was read"
        )
        self.match_id = match_id
        self.expected = expected
        self.length = length


@attrs.frozen
class LogEntry:
    """One entry of a match's log.

    :ivar kind: One of :data:`LOG_KINDS`.
    :ivar value: The move text, the move count an undo goes back to, or
        ``"SEAT ROUND"`` for a ``continue``.
    """

    kind: str
    value: str


@attrs.frozen
class StoredMatch:
    """A match as stored: its id, its setup and its log.

    :ivar id: The match's id (in its links).
    :ivar created: When it was created, in seconds since the epoch.
    :ivar setup: What it was set up with, as JSON values (see
        :class:`american_sniff.web.game.Setup`).
    :ivar log: Its log entries, oldest first.
    """

    id: str
    created: float
    setup: dict[str, Any]
    log: tuple[LogEntry, ...]


class MatchBook(Protocol):
    """What the browser server needs of a store.

    :class:`Store` (SQLite) and :class:`~american_sniff.web.shared.LibraryStore`
    (the library's stores, PostgreSQL among them) both give it.

    A database failure is raised as a :class:`sqlite3.Error` by both.
    """

    def meta_of(self, key: str) -> str | None:
        """The stored value of ``key``, or None."""

    def meta(self, key: str, default: str) -> str:
        """The stored value of ``key``, storing ``default`` if there is none."""

    def create(self, match_id: str, created: float, setup: dict[str, Any]) -> None:
        """Store a new match with an empty log."""

    def append(self, match_id: str, entry: LogEntry, *, expected: int | None = None) -> int:
        """Add ``entry`` to the match's log if it holds ``expected`` entries."""

    def append_many(
        self,
        entries: Sequence[tuple[str, LogEntry]],
        expected: Sequence[int | None] | None = None,
    ) -> list[int | Exception]:
        """Add each entry, in order; each one's number or the error that refused it."""

    def load(self, match_id: str) -> StoredMatch | None:
        """The match with that id, or None."""

    def ids(self) -> list[str]:
        """Every stored match's id, the newest first."""

    def page_of_ids(self, after: str | None, limit: int) -> tuple[list[str], bool] | None:
        """Up to ``limit`` ids after the match ``after``, and whether more follow (as Store)."""

    def close(self) -> None:
        """Close the database."""


class Store:
    """A SQLite database of matches; safe to use from several threads.

    ``path`` is the database file (created if missing), or ``":memory:"``.
    """

    def __init__(self, path: str | Path) -> None:
        self._lock = threading.Lock()
        self._db = open_database(path)
        with self._lock:
            self._db.executescript(_SCHEMA)

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> Store:
        """The store itself; leaving the ``with`` block closes it."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close the database."""
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with locked_transaction(self._db, self._lock) as db:
            yield db

    def meta_of(self, key: str) -> str | None:
        """The stored value of ``key``, or None if there is none (nothing is stored)."""
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def meta(self, key: str, default: str) -> str:
        """The stored value of ``key``; ``default`` is stored (and returned) if there is none."""
        with self._transaction() as db:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            if row is not None:
                return str(row[0])
            db.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, default))
            return default

    def create(self, match_id: str, created: float, setup: dict[str, Any]) -> None:
        """Store a new match with an empty log.

        :raises ValueError: if a match with that id exists.
        """
        try:
            with self._transaction() as db:
                db.execute(
                    "INSERT INTO matches (id, created, setup) VALUES (?, ?, ?)",
                    (match_id, created, json.dumps(setup, sort_keys=True)),
                )
        except sqlite3.IntegrityError:
            raise ValueError(f"a match with the id {match_id!r} exists") from None

    def append(self, match_id: str, entry: LogEntry, *, expected: int | None = None) -> int:
        """Add ``entry`` at the end of the match's log; return its number (0 for the first).

        ``expected`` is how many entries the log has in the copy of the match
        that ``entry`` was planned on; it is checked in the same transaction
        as the write (None: no check, for a single writer).

        :raises StaleLog: if the log does not have ``expected`` entries.
        :raises ValueError: if the kind is unknown or there is no such match.
        :raises sqlite3.Error: if the database cannot write.
        """
        with self._transaction() as db:
            return _append(db, match_id, entry, expected)

    def append_many(
        self,
        entries: Sequence[tuple[str, LogEntry]],
        expected: Sequence[int | None] | None = None,
    ) -> list[int | Exception]:
        """Add each ``(match_id, entry)``, in order, in one transaction if all can be.

        ``expected`` gives each entry's expected log length (see
        :meth:`append`); by default none is checked. Returns each entry's
        number, or the error that refused it: if the transaction fails, each
        entry is tried again on its own, so that one bad or stale entry
        refuses only itself.

        :raises ValueError: if ``expected`` is not one per entry.
        """
        lengths = expected_lengths(entries, expected)
        try:
            with self._transaction() as db:
                return [
                    _append(db, match_id, entry, length)
                    for (match_id, entry), length in zip(entries, lengths, strict=True)
                ]
        except (ValueError, sqlite3.Error):
            if len(entries) == 1:
                raise
        return append_each(self, entries, lengths)

    def load(self, match_id: str) -> StoredMatch | None:
        """The match with that id, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT created, setup FROM matches WHERE id = ?", (match_id,)
            ).fetchone()
            if row is None:
                return None
            entries = self._db.execute(
                "SELECT kind, value FROM log WHERE match_id = ? ORDER BY n", (match_id,)
            ).fetchall()
        return StoredMatch(
            id=match_id,
            created=float(row[0]),
            setup=json.loads(row[1]),
            log=tuple(LogEntry(str(kind), str(value)) for kind, value in entries),
        )

    def ids(self) -> list[str]:
        """Every stored match's id, the newest first."""
        with self._lock:
            rows = self._db.execute("SELECT id FROM matches ORDER BY created DESC, id").fetchall()
        return [str(row[0]) for row in rows]

    def page_of_ids(self, after: str | None, limit: int) -> tuple[list[str], bool] | None:
        """Up to ``limit`` ids, newest first, from the match after ``after`` (the newest if None).

        Returns them with whether more follow, or None if there is no match
        ``after``. One query on an index, whatever the number of matches: the
        operator's list pages through it.
        """
        with self._lock:
            if after is None:
                rows = self._db.execute(
                    "SELECT id FROM matches ORDER BY created DESC, id LIMIT ?", (limit + 1,)
                ).fetchall()
            else:
                found = self._db.execute(
                    "SELECT created FROM matches WHERE id = ?", (after,)
                ).fetchone()
                if found is None:
                    return None
                rows = self._db.execute(
                    "SELECT id FROM matches WHERE created < ? OR (created = ? AND id > ?) "
                    "ORDER BY created DESC, id LIMIT ?",
                    (found[0], found[0], after, limit + 1),
                ).fetchall()
        ids = [str(row[0]) for row in rows]
        return ids[:limit], len(ids) > limit


def expected_lengths(
    entries: Sequence[tuple[str, LogEntry]], expected: Sequence[int | None] | None
) -> list[int | None]:
    """One expected log length per entry of :meth:`MatchBook.append_many` (None: unchecked).

    :raises ValueError: if ``expected`` is not one per entry.
    """
    lengths: list[int | None] = [None] * len(entries) if expected is None else list(expected)
    if len(lengths) != len(entries):
        raise ValueError("give one expected length per entry")
    return lengths


def append_each(
    book: MatchBook, entries: Sequence[tuple[str, LogEntry]], lengths: Sequence[int | None]
) -> list[int | Exception]:
    """Append each entry in a transaction of its own: its number, or the error that refused it."""
    results: list[int | Exception] = []
    for (match_id, entry), length in zip(entries, lengths, strict=True):
        try:
            results.append(book.append(match_id, entry, expected=length))
        except (ValueError, sqlite3.Error) as error:
            results.append(error)
    return results


def _append(db: sqlite3.Connection, match_id: str, entry: LogEntry, expected: int | None) -> int:
    if entry.kind not in LOG_KINDS:
        raise ValueError(f"a log entry is one of {', '.join(LOG_KINDS)}, got {entry.kind!r}")
    row = db.execute(
        "SELECT COALESCE(MAX(n) + 1, 0) FROM log WHERE match_id = ?", (match_id,)
    ).fetchone()
    number = int(row[0])
    # A log with entries is a stored match's (the foreign key holds it): only an
    # empty one may be no match's at all.
    if (
        not number
        and db.execute("SELECT 1 FROM matches WHERE id = ?", (match_id,)).fetchone() is None
    ):
        raise ValueError(f"there is no match {match_id!r}")
    if expected is not None and number != expected:
        raise StaleLog(match_id, expected, number)
    db.execute(
        "INSERT INTO log (match_id, n, kind, value) VALUES (?, ?, ?, ?)",
        (match_id, number, entry.kind, entry.value),
    )
    return number


#: What waits in a :class:`Writer`'s queue: the match, the entry, its expected
#: log length and its future (a thread's, or an event loop's).
_Item = tuple[str, LogEntry, int | None, "Future[int] | asyncio.Future[int]"]


class Writer:
    """A thread that writes log entries to ``store``, many in one transaction.

    :meth:`submit` returns at once with a future of the entry's number; the
    thread takes every entry waiting (up to :data:`BATCH`; while it is busy,
    also those that come within :data:`GATHER` seconds) and commits them
    together (:meth:`Store.append_many`). Entries are written in the order
    they were submitted, each checked against its expected log length.

    :param store: The store to write to.
    """

    def __init__(self, store: MatchBook) -> None:
        self._store = store
        self._queue: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="american-sniff-writer")
        self._thread.daemon = True
        self._thread.start()

    def submit(self, match_id: str, entry: LogEntry, *, expected: int | None = None) -> Future[int]:
        """Queue ``entry``; the future gives its number in the log, or the write's error.

        ``expected`` is the log length it was planned on (see :meth:`Store.append`):
        the future's error is then :class:`StaleLog` if the log is not that long.
        """
        future: Future[int] = Future()
        self._queue.put((match_id, entry, expected, future))
        return future

    def written(
        self, match_id: str, entry: LogEntry, *, expected: int | None = None
    ) -> asyncio.Future[int]:
        """:meth:`submit` for a coroutine: the future is the running event loop's.

        The thread hands back every result of one transaction in a single
        call to the loop (:meth:`asyncio.loop.call_soon_threadsafe`), where a
        thread's future wakes the loop once for each entry. Call it from the
        loop's own thread.

        >>> import asyncio, pathlib, tempfile
        >>> store = Store(pathlib.Path(tempfile.mkdtemp()) / "matches.db")
        >>> store.create("m", 0.0, {"players": 2})
        >>> writer = Writer(store)
        >>> async def two_planned_on_one_log():
        ...     first = writer.written("m", LogEntry("continue", "0 1"), expected=0)
        ...     second = writer.written("m", LogEntry("continue", "1 1"), expected=0)
        ...     return await asyncio.gather(first, second, return_exceptions=True)
        >>> number, refused = asyncio.run(two_planned_on_one_log())
        >>> number, type(refused).__name__
        (0, 'StaleLog')
        >>> writer.close()
        """
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._queue.put((match_id, entry, expected, future))
        return future

    def close(self) -> None:
        """Write what is queued, then stop the thread."""
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        written = -BUSY  # when the last transaction ended (time.monotonic)
        while True:
            item = self._queue.get()
            batch = []
            # Busy (a transaction ended a moment ago): more entries are on their
            # way, and waiting GATHER for them saves commits. Idle: write at once.
            now = time.monotonic()
            until = now + GATHER if now - written < BUSY else now
            while item is not None:
                batch.append(item)
                if len(batch) >= BATCH:
                    break
                try:
                    item = self._queue.get(timeout=max(0.0, until - time.monotonic()))
                except queue.Empty:
                    break
            if batch:
                self._write(batch)
                written = time.monotonic()
            if item is None:
                return

    def _write(self, batch: list[_Item]) -> None:
        try:
            results = self._store.append_many(
                [(m, e) for m, e, _, _ in batch], [n for _, _, n, _ in batch]
            )
        except Exception as error:
            results = [error] * len(batch)
        looped: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[int], int | Exception]]]
        looped = {}
        for (_, _, _, future), result in zip(batch, results, strict=True):
            if isinstance(future, asyncio.Future):
                looped.setdefault(future.get_loop(), []).append((future, result))
            elif not future.cancelled():  # the server never cancels one
                _settle(future, result)
        for loop, settled in looped.items():
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(_settle_all, settled)


def _settle(future: Future[int] | asyncio.Future[int], result: int | Exception) -> None:
    """Give ``future`` the write's ``result``: the entry's number, or the error that refused it."""
    if isinstance(result, Exception):
        future.set_exception(result)
    else:
        future.set_result(result)


def _settle_all(settled: list[tuple[asyncio.Future[int], int | Exception]]) -> None:
    """:func:`_settle` each of an event loop's futures (in its thread), but those cancelled."""
    for future, result in settled:
        if not future.cancelled():
            _settle(future, result)
