"""The embedded backend: one SQLite file (the standard library's sqlite3), nothing to set up."""

from __future__ import annotations

import pathlib
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from ._base import LogEntry
from ._sql import SQLStore

__all__ = ["SQLiteStore", "locked_transaction", "open_database"]


def open_database(path: str | pathlib.Path, *, timeout: float = 5.0) -> sqlite3.Connection:
    """A connection to the SQLite database at ``path``, as this package's stores keep one.

    Transactions are begun by hand (:func:`locked_transaction`), the
    connection may serve several threads (behind a lock), foreign keys are
    enforced, and a file (not ``":memory:"``) is kept in write-ahead-log mode
    (WAL), where reads go on during a write. A writer waits up to ``timeout``
    seconds for another's lock.

    :raises sqlite3.Error: if the file cannot be opened or is not a database
        (the connection is closed then).
    """
    db = sqlite3.connect(str(path), timeout=timeout, isolation_level=None, check_same_thread=False)
    try:
        db.execute("PRAGMA foreign_keys = ON")
        if str(path) != ":memory:":
            db.execute("PRAGMA journal_mode = WAL")
    except BaseException:
        db.close()
        raise
    return db


@contextmanager
def locked_transaction(
    db: sqlite3.Connection, lock: threading.Lock, begin: str = "BEGIN IMMEDIATE"
) -> Iterator[sqlite3.Connection]:
    """A transaction on ``db``, holding ``lock``: committed at the end, rolled back on any error.

    ``begin`` is the statement that opens it: ``BEGIN IMMEDIATE`` (the
    default) takes the file's write lock at once, before anything is read.
    """
    with lock:
        db.execute(begin)
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


_SCHEMA = """
CREATE TABLE IF NOT EXISTS sniff_matches (
    number INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    created REAL NOT NULL,
    setup TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sniff_log (
    match_id TEXT NOT NULL REFERENCES sniff_matches(id),
    n INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('move', 'undo', 'continue')),
    value TEXT NOT NULL,
    PRIMARY KEY (match_id, n)
);
CREATE TABLE IF NOT EXISTS sniff_leases (
    match_id TEXT NOT NULL REFERENCES sniff_matches(id),
    seat INTEGER NOT NULL,
    holder TEXT NOT NULL,
    expires REAL NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE IF NOT EXISTS sniff_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


class SQLiteStore(SQLStore):
    """Matches in a SQLite database file: the embedded default, with nothing to install.

    ``path`` is the database file, created with its tables if missing, or
    ``":memory:"`` for a store that lasts as long as the object. The tables
    are ``sniff_matches``, ``sniff_log``, ``sniff_leases`` and
    ``sniff_settings``, so the file may hold a host's own tables too.

    **Threads and processes.** One store object holds one connection and a
    lock: threads may share it, and take turns. Processes each open their
    own store on the same file (never pass one across ``fork``): the file is
    kept in write-ahead-log mode (WAL), where reads go on during a write, and
    every write is a ``BEGIN IMMEDIATE`` transaction, which takes the file's
    write lock before it reads the log's length, so of two appends planned on
    the same length exactly one is written. A writer waits up to ``timeout``
    seconds for another's lock, then fails with ``sqlite3.OperationalError``.
    SQLite serves processes of one machine; several machines need
    :class:`~american_sniff.store.PostgresStore`.

    Making one raises ``sqlite3.Error`` if the file cannot be opened or is not
    a database.
    """

    PARAMETER = "?"
    _duplicate = sqlite3.IntegrityError

    def __init__(self, path: str | pathlib.Path = ":memory:", *, timeout: float = 30.0) -> None:
        self._lock = threading.Lock()
        self._db = open_database(path, timeout=timeout)
        try:
            with self._transaction() as db:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
        except BaseException:
            self._db.close()
            raise

    @contextmanager
    def _transaction(self, *, write: bool = True) -> Iterator[sqlite3.Connection]:
        # A write takes the file's write lock at BEGIN, before it reads anything.
        with locked_transaction(
            self._db, self._lock, "BEGIN IMMEDIATE" if write else "BEGIN DEFERRED"
        ) as db:
            yield db

    def _append(self, match_id: str, expected: int, entry: LogEntry) -> None:
        with self._transaction() as db:
            self._append_entry(db, match_id, expected, entry)

    def _lease(self, match_id: str, seat: int, holder: str, seconds: float) -> bool:
        now = time.time()
        with self._transaction() as db:
            self._length(db, match_id)  # NoSuchMatch if there is none
            row = db.execute(
                "SELECT holder, expires FROM sniff_leases WHERE match_id = ? AND seat = ?",
                (match_id, seat),
            ).fetchone()
            if row is not None and row[0] != holder and row[1] > now:
                return False
            db.execute(
                "INSERT OR REPLACE INTO sniff_leases (match_id, seat, holder, expires) "
                "VALUES (?, ?, ?, ?)",
                (match_id, seat, holder, now + seconds),
            )
            return True
