"""The embedded backend: one SQLite file (the standard library's sqlite3), nothing to set up."""

from __future__ import annotations

import pathlib
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ._base import LogEntry, MatchExists, MatchStore, NoSuchMatch, StaleAppend

__all__ = ["SQLiteStore"]

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
"""


class SQLiteStore(MatchStore):
    """Matches in a SQLite database file: the embedded default, with nothing to install.

    ``path`` is the database file, created with its tables if missing, or
    ``":memory:"`` for a store that lasts as long as the object. The tables
    are ``sniff_matches`` and ``sniff_log``, so the file may hold a host's
    own tables too.

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

    def __init__(self, path: str | pathlib.Path = ":memory:", *, timeout: float = 30.0) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            str(path), timeout=timeout, isolation_level=None, check_same_thread=False
        )
        try:
            self._db.execute("PRAGMA foreign_keys = ON")
            if str(path) != ":memory:":
                self._db.execute("PRAGMA journal_mode = WAL")
            with self._transaction() as db:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
        except BaseException:
            self._db.close()
            raise

    @contextmanager
    def _transaction(self, mode: str = "IMMEDIATE") -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute(f"BEGIN {mode}")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _insert(self, match_id: str, created: float, setup_text: str) -> None:
        try:
            with self._transaction() as db:
                db.execute(
                    "INSERT INTO sniff_matches (id, created, setup) VALUES (?, ?, ?)",
                    (match_id, created, setup_text),
                )
        except sqlite3.IntegrityError:
            raise MatchExists(f"a match with the id {match_id!r} exists") from None

    def _fetch(self, match_id: str) -> tuple[float, str, list[tuple[Any, Any, Any]]] | None:
        with self._transaction("DEFERRED") as db:
            row = db.execute(
                "SELECT created, setup FROM sniff_matches WHERE id = ?", (match_id,)
            ).fetchone()
            if row is None:
                return None
            return float(row[0]), row[1], _log_rows(db, match_id)

    def _append(self, match_id: str, expected: int, entry: LogEntry) -> None:
        with self._transaction() as db:
            if (
                db.execute("SELECT 1 FROM sniff_matches WHERE id = ?", (match_id,)).fetchone()
                is None
            ):
                raise NoSuchMatch(f"there is no match {match_id!r}")
            length = int(
                db.execute(
                    "SELECT COALESCE(MAX(n) + 1, 0) FROM sniff_log WHERE match_id = ?", (match_id,)
                ).fetchone()[0]
            )
            if length != expected:
                raise StaleAppend(match_id, expected, length)
            db.execute(
                "INSERT INTO sniff_log (match_id, n, kind, value) VALUES (?, ?, ?, ?)",
                (match_id, expected, entry.kind, entry.value),
            )

    def _page(
        self, count: int, before: int | None
    ) -> list[tuple[int, str, float, str, list[tuple[Any, Any, Any]]]]:
        with self._transaction("DEFERRED") as db:
            rows = db.execute(
                "SELECT number, id, created, setup FROM sniff_matches "
                "WHERE number < ? ORDER BY number DESC LIMIT ?",
                (2**63 - 1 if before is None else before, count),
            ).fetchall()
            return [
                (int(number), str(match_id), float(created), setup, _log_rows(db, match_id))
                for number, match_id, created, setup in rows
            ]

    def _lease(self, match_id: str, seat: int, holder: str, seconds: float) -> bool:
        now = time.time()
        with self._transaction() as db:
            if (
                db.execute("SELECT 1 FROM sniff_matches WHERE id = ?", (match_id,)).fetchone()
                is None
            ):
                raise NoSuchMatch(f"there is no match {match_id!r}")
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

    def _release(self, match_id: str, seat: int, holder: str) -> None:
        with self._transaction() as db:
            db.execute(
                "DELETE FROM sniff_leases WHERE match_id = ? AND seat = ? AND holder = ?",
                (match_id, seat, holder),
            )

    def _close(self) -> None:
        with self._lock:
            self._db.close()


def _log_rows(db: sqlite3.Connection, match_id: str) -> list[tuple[Any, Any, Any]]:
    return db.execute(
        "SELECT n, kind, value FROM sniff_log WHERE match_id = ? ORDER BY n", (match_id,)
    ).fetchall()
