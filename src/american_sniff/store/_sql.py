"""What the two SQL backends share: the statements on the same four tables, written once.

SQLite and PostgreSQL keep the same tables (``sniff_matches``, ``sniff_log``,
``sniff_leases`` and ``sniff_settings``) and read and write them with the same statements; they
differ in how a parameter is marked (``?`` for sqlite3, ``%s`` for psycopg),
in how a transaction is opened, in the error a duplicate id raises, and in
how a lease is taken. :class:`SQLStore` holds the rest.
"""

from __future__ import annotations

import abc
import threading
from contextlib import AbstractContextManager
from typing import Any, ClassVar

from ._base import LogEntry, MatchExists, MatchStore, NoSuchMatch, StaleAppend

__all__ = ["SQLStore"]


class SQLStore(MatchStore):
    """A :class:`MatchStore` on one database connection, its statements in plain SQL.

    A backend sets :attr:`PARAMETER` and :attr:`_duplicate`, holds its
    connection in ``_db`` and a lock in ``_lock``, and opens its transactions
    with :meth:`_transaction`. The statements here are written with ``?``;
    :meth:`_sql` gives them the backend's marker.
    """

    #: How the driver marks a parameter in a statement.
    PARAMETER: ClassVar[str] = "?"

    _db: Any
    _lock: threading.Lock
    #: The error the driver raises when an insert repeats a unique key.
    _duplicate: type[Exception]

    @abc.abstractmethod
    def _transaction(self, *, write: bool = True) -> AbstractContextManager[Any]:
        """A transaction on the connection, under the lock; it yields the connection.

        ``write`` is False for a transaction that only reads.
        """

    def _sql(self, statement: str) -> str:
        """``statement`` with each ``?`` replaced by the backend's parameter marker."""
        return statement.replace("?", self.PARAMETER)

    def _insert(self, match_id: str, created: float, setup_text: str) -> None:
        try:
            with self._transaction() as db:
                db.execute(
                    self._sql("INSERT INTO sniff_matches (id, created, setup) VALUES (?, ?, ?)"),
                    (match_id, created, setup_text),
                )
        except self._duplicate:
            raise MatchExists(f"a match with the id {match_id!r} exists") from None

    def _fetch(self, match_id: str) -> tuple[float, str, list[tuple[Any, Any, Any]]] | None:
        with self._transaction(write=False) as db:
            row = db.execute(
                self._sql("SELECT created, setup FROM sniff_matches WHERE id = ?"), (match_id,)
            ).fetchone()
            if row is None:
                return None
            return float(row[0]), row[1], self._log_rows(db, match_id)

    def _entries(self, match_id: str, start: int) -> list[tuple[Any, Any, Any]] | None:
        with self._transaction(write=False) as db:
            rows: list[tuple[Any, Any, Any]] = db.execute(
                self._sql(
                    "SELECT n, kind, value FROM sniff_log WHERE match_id = ? AND n >= ? ORDER BY n"
                ),
                (match_id, start),
            ).fetchall()
            if rows:
                return rows
            found = db.execute(self._sql("SELECT 1 FROM sniff_matches WHERE id = ?"), (match_id,))
            return None if found.fetchone() is None else []

    def _append_entry(self, db: Any, match_id: str, expected: int, entry: LogEntry) -> None:
        """Insert ``entry`` at number ``expected`` of the log, inside the caller's transaction.

        :raises NoSuchMatch: if there is no such match.
        :raises StaleAppend: if the log's length is not ``expected``.
        """
        length = self._length(db, match_id)
        if length != expected:
            raise StaleAppend(match_id, expected, length)
        db.execute(
            self._sql("INSERT INTO sniff_log (match_id, n, kind, value) VALUES (?, ?, ?, ?)"),
            (match_id, expected, entry.kind, entry.value),
        )

    def _page(
        self, count: int, before: int | None
    ) -> list[tuple[int, str, float, str, list[tuple[Any, Any, Any]]]]:
        with self._transaction(write=False) as db:
            rows = db.execute(
                self._sql(
                    "SELECT number, id, created, setup FROM sniff_matches "
                    "WHERE number < ? ORDER BY number DESC LIMIT ?"
                ),
                (2**63 - 1 if before is None else before, count),
            ).fetchall()
            return [
                (int(number), str(match_id), float(created), setup, self._log_rows(db, match_id))
                for number, match_id, created, setup in rows
            ]

    def _ids(self, count: int, after: str | None) -> list[str] | None:
        with self._transaction(write=False) as db:
            before = 2**63 - 1
            if after is not None:
                row = db.execute(
                    self._sql("SELECT number FROM sniff_matches WHERE id = ?"), (after,)
                ).fetchone()
                if row is None:
                    return None
                before = int(row[0])
            rows = db.execute(
                self._sql(
                    "SELECT id FROM sniff_matches WHERE number < ? ORDER BY number DESC LIMIT ?"
                ),
                (before, count),
            ).fetchall()
            return [str(match_id) for (match_id,) in rows]

    def _release(self, match_id: str, seat: int, holder: str) -> None:
        with self._transaction() as db:
            db.execute(
                self._sql(
                    "DELETE FROM sniff_leases WHERE match_id = ? AND seat = ? AND holder = ?"
                ),
                (match_id, seat, holder),
            )

    def _setting(self, name: str, default: str) -> str:
        with self._transaction() as db:
            db.execute(
                self._sql(
                    "INSERT INTO sniff_settings (name, value) VALUES (?, ?) "
                    "ON CONFLICT (name) DO NOTHING"
                ),
                (name, default),
            )
            row = db.execute(
                self._sql("SELECT value FROM sniff_settings WHERE name = ?"), (name,)
            ).fetchone()
        return str(row[0])

    def _setting_of(self, name: str) -> str | None:
        with self._transaction(write=False) as db:
            row = db.execute(
                self._sql("SELECT value FROM sniff_settings WHERE name = ?"), (name,)
            ).fetchone()
        return None if row is None else str(row[0])

    def _close(self) -> None:
        with self._lock:
            self._db.close()

    def _length(self, db: Any, match_id: str) -> int:
        """The length of the match's log; :class:`NoSuchMatch` if there is no such match."""
        found = db.execute(self._sql("SELECT 1 FROM sniff_matches WHERE id = ?"), (match_id,))
        if found.fetchone() is None:
            raise NoSuchMatch(f"there is no match {match_id!r}")
        row = db.execute(
            self._sql("SELECT COALESCE(MAX(n) + 1, 0) FROM sniff_log WHERE match_id = ?"),
            (match_id,),
        ).fetchone()
        return int(row[0])

    def _log_rows(self, db: Any, match_id: str) -> list[tuple[Any, Any, Any]]:
        """The match's log as rows of (number, kind, value), in order."""
        rows: list[tuple[Any, Any, Any]] = db.execute(
            self._sql("SELECT n, kind, value FROM sniff_log WHERE match_id = ? ORDER BY n"),
            (match_id,),
        ).fetchall()
        return rows
