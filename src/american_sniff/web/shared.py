"""The browser game's matches kept in the library's match store, such as PostgreSQL.

:class:`LibraryStore` gives the browser server (:mod:`american_sniff.web.app`)
the same methods as its own SQLite :class:`~american_sniff.web.store.Store`,
on top of any :class:`~american_sniff.store.MatchStore`: in practice
:class:`~american_sniff.store.PostgresStore`, which any number of processes
and machines may share (``american-sniff serve --db postgresql://...``).

* A match is the library's match; the browser game's setup (seats, tokens,
  names, the spectator's token) is its metadata.
* An append names the log length it was planned on, which the library
  store checks in the transaction that writes (its safe append): a refusal
  is :class:`~american_sniff.web.store.StaleLog`, as from the SQLite store.
* The server's few settings (its operator key, each match's rematch, why a
  match ended at a cap) are the library store's settings
  (:meth:`MatchStore.setting <american_sniff.store.MatchStore.setting>`), in
  a table of their own that no list of matches shows: the first value
  stored is the one every process reads.
* A failure of the database is a :class:`StorageFailure`, which the server
  treats as it treats SQLite's errors (the change is not made, and the
  player is told).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from ..store import (
    MAX_PAGE,
    Announcements,
    BrokenMatch,
    MatchExists,
    MatchStore,
    NoSuchMatch,
    PostgresStore,
    StaleAppend,
)
from ..store import LogEntry as LibraryEntry
from .store import LogEntry, StaleLog, StoredMatch, append_each, expected_lengths

__all__ = ["LibraryStore", "StorageFailure"]


class StorageFailure(sqlite3.Error):
    """The database could not read or write (it is down, full, or refused the connection).

    A kind of :class:`sqlite3.Error`, so that the server handles every
    backend's failures in one way.
    """


class LibraryStore:
    """The browser server's store on a library :class:`~american_sniff.store.MatchStore`.

    :param store: The library store (it is closed with this one).
    """

    def __init__(self, store: MatchStore) -> None:
        self.library = store
        self._database_errors = _database_errors(store)

    def close(self) -> None:
        """Close the library store."""
        self.library.close()

    def __enter__(self) -> LibraryStore:
        """The store itself; leaving the ``with`` block closes it."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close the store."""
        self.close()

    def _failure(self, error: BaseException) -> BaseException:
        """``error`` as the server expects it: a database failure is a :class:`StorageFailure`."""
        if isinstance(error, self._database_errors):
            return StorageFailure(str(error))
        return error

    def meta_of(self, key: str) -> str | None:
        """The stored value of ``key``, or None if there is none (nothing is stored)."""
        try:
            return self.library.setting_of(key)
        except Exception as error:
            raise self._failure(error) from None

    def meta(self, key: str, default: str) -> str:
        """The stored value of ``key``; ``default`` is stored (and returned) if there is none."""
        try:
            return self.library.setting(key, default)
        except Exception as error:
            raise self._failure(error) from None

    def create(self, match_id: str, created: float, setup: dict[str, Any]) -> None:
        """Store a new match with an empty log (``created`` is the store's own clock).

        :raises ValueError: if a match with that id exists, or the setup is not one.
        """
        try:
            self.library.create(
                int(setup["players"]), seed=int(setup["seed"]), match_id=match_id, metadata=setup
            )
        except MatchExists:
            raise ValueError(f"a match with the id {match_id!r} exists") from None
        except Exception as error:
            raise self._failure(error) from None

    def append(self, match_id: str, entry: LogEntry, *, expected: int | None = None) -> int:
        """Add ``entry`` at the end of the match's log; return its number (0 for the first).

        ``expected`` is the log length it was planned on; None reads the
        length now (for a single writer only).

        :raises StaleLog: if the log does not have ``expected`` entries.
        :raises ValueError: if the entry is not one, or there is no such match.
        :raises StorageFailure: if the database cannot write.
        """
        try:
            if expected is None:
                expected = self._length(match_id)
            self.library.append(match_id, expected, LibraryEntry(entry.kind, entry.value))
        except StaleAppend as stale:
            raise StaleLog(match_id, stale.expected, stale.length) from None
        except NoSuchMatch:
            raise ValueError(f"there is no match {match_id!r}") from None
        except Exception as error:
            raise self._failure(error) from None
        return expected

    def lease(self, match_id: str, seat: int, holder: str, seconds: float) -> bool:
        """Take or renew ``holder``'s lease on driving ``seat``'s bot; whether it holds it now.

        See :meth:`~american_sniff.store.MatchStore.lease`: one worker at a
        time holds it, and it passes on once it lapses (its worker died).

        :raises StorageFailure: if the database cannot be reached.
        """
        try:
            return self.library.lease(match_id, seat, holder, seconds)
        except Exception as error:
            raise self._failure(error) from None

    def listen(self, *, every: bool = True) -> Announcements | None:
        """A connection that hears the appends of every process, or None if the store has none.

        Every append, or, without ``every``, those to the matches it follows.
        Only PostgreSQL announces appends (:meth:`~american_sniff.store.PostgresStore.listen`).

        :raises StorageFailure: if the database cannot be reached.
        """
        if not isinstance(self.library, PostgresStore):
            return None
        try:
            return self.library.listen(every=every)
        except Exception as error:
            raise self._failure(error) from None

    def entries_since(self, match_id: str, start: int) -> tuple[LogEntry, ...]:
        """The entries of the match's log from number ``start`` on (a worker catching up).

        :raises ValueError: if there is no such match.
        :raises StorageFailure: if the database cannot be read.
        """
        try:
            found = self.library.entries(match_id, start)
        except NoSuchMatch:
            raise ValueError(f"there is no match {match_id!r}") from None
        except Exception as error:
            raise self._failure(error) from None
        return tuple(LogEntry(e.kind, e.value) for e in found)

    def _length(self, match_id: str) -> int:
        found = self.library.load(match_id)
        return found.length

    def append_many(
        self,
        entries: Sequence[tuple[str, LogEntry]],
        expected: Sequence[int | None] | None = None,
    ) -> list[int | Exception]:
        """Add each ``(match_id, entry)`` in order, each checked as if alone.

        They are written together (:meth:`MatchStore.append_many
        <american_sniff.store.MatchStore.append_many>`: on PostgreSQL, one
        commit for all, so that one writer keeps up with many moves at once).
        Returns each entry's number, or the error that refused it (see
        :meth:`append`); an error of the database refuses them all.

        :raises ValueError: if ``expected`` is not one per entry.
        """
        lengths = expected_lengths(entries, expected)
        try:
            appends = [
                (match_id, length, LibraryEntry(entry.kind, entry.value))
                for (match_id, entry), length in zip(entries, lengths, strict=True)
                if length is not None
            ]
        except ValueError:  # an entry that is not one: each is told its own error
            return append_each(self, entries, lengths)
        if len(appends) != len(entries):  # a length to read first: each alone (not the server's)
            return append_each(self, entries, lengths)
        try:
            written = self.library.append_many(appends)
        except Exception as error:  # nothing written (or, if the commit was lost, all checked)
            return [self._failure(error)] * len(entries)  # type: ignore[list-item]
        results: list[int | Exception] = []
        for (match_id, expected_length, _), result in zip(appends, written, strict=True):
            if isinstance(result, StaleAppend):
                results.append(StaleLog(match_id, result.expected, result.length))
            elif isinstance(result, NoSuchMatch):
                results.append(ValueError(f"there is no match {match_id!r}"))
            else:
                results.append(expected_length)
        return results

    def load(self, match_id: str) -> StoredMatch | None:
        """The match with that id, or None.

        :raises ValueError: if its log no longer replays (the reason says why).
        :raises StorageFailure: if the database cannot be read.
        """
        try:
            found = self.library.load(match_id)
        except (NoSuchMatch, ValueError):
            return None
        except Exception as error:
            raise self._failure(error) from None
        if isinstance(found, BrokenMatch):
            raise ValueError(f"the match {match_id!r} does not replay: {found.reason}")
        return StoredMatch(
            id=found.id,
            created=found.created,
            setup=dict(found.setup.metadata),
            log=tuple(LogEntry(e.kind, e.value) for e in found.log),
        )

    def ids(self) -> list[str]:
        """Every stored match's id, the newest first (their logs are not read)."""
        ids: list[str] = []
        try:
            while True:
                page = self.library.match_ids(MAX_PAGE, ids[-1] if ids else None)
                ids.extend(page)
                if len(page) < MAX_PAGE:
                    return ids
        except Exception as error:
            raise self._failure(error) from None

    def page_of_ids(self, after: str | None, limit: int) -> tuple[list[str], bool] | None:
        """Up to ``limit`` ids, newest first, from the match after ``after`` (the newest if None).

        Returns them with whether more follow, or None if there is no match
        ``after`` (or ``after`` is no match id). One query
        (:meth:`MatchStore.match_ids <american_sniff.store.MatchStore.match_ids>`),
        whatever the number of matches and the length of their logs.

        :raises ValueError: if ``limit`` is not from 1 to the library's ``MAX_PAGE - 1``.
        """
        if not 1 <= limit < MAX_PAGE:
            raise ValueError(f"a page of ids holds 1 to {MAX_PAGE - 1}, got {limit!r}")
        try:
            ids = list(self.library.match_ids(limit + 1, after))
        except (NoSuchMatch, ValueError):
            return None
        except Exception as error:
            raise self._failure(error) from None
        return ids[:limit], len(ids) > limit


def _database_errors(store: MatchStore) -> tuple[type[BaseException], ...]:
    """The exceptions that mean ``store``'s database failed."""
    errors: list[type[BaseException]] = [sqlite3.Error, OSError]
    try:
        import psycopg  # noqa: PLC0415 - only where the extra is installed
    except ImportError:
        pass
    else:
        errors.append(psycopg.Error)
    del store
    return tuple(errors)
