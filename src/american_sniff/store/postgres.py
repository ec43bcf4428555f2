"""The backend for hosts on several processes or machines: PostgreSQL, through psycopg 3.

psycopg is an optional extra (``pip install 'american-sniff[postgres]'``):
it is imported when a :class:`PostgresStore` is made, never by the base install.
"""

from __future__ import annotations

import re
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import attrs

from ._base import ID_PATTERN, LogEntry, NoSuchMatch, StaleAppend, check_id
from ._sql import SQLStore

if TYPE_CHECKING:
    import psycopg

__all__ = ["Announcements", "Appended", "PostgresStore"]

_SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,47}")

_TABLES = (
    """CREATE TABLE IF NOT EXISTS sniff_matches (
        number BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        created DOUBLE PRECISION NOT NULL,
        setup TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS sniff_log (
        match_id TEXT NOT NULL REFERENCES sniff_matches(id),
        n INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('move', 'undo', 'continue')),
        value TEXT NOT NULL,
        PRIMARY KEY (match_id, n)
    )""",
    """CREATE TABLE IF NOT EXISTS sniff_leases (
        match_id TEXT NOT NULL REFERENCES sniff_matches(id),
        seat INTEGER NOT NULL,
        holder TEXT NOT NULL,
        expires DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (match_id, seat)
    )""",
    """CREATE TABLE IF NOT EXISTS sniff_settings (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )""",
)

# The appends of a batch, each checked and written as if alone, in order, in the
# caller's one statement: one round trip and one commit for all (see _append_many).
# Each result is the log's new length (1 or more), -1 where there is no such
# match, or -2 - length where the log's length was not the one expected.
_APPEND_MANY_BODY = """
    DECLARE
        results INTEGER[] := '{}';
        have INTEGER;
        note TEXT;
    BEGIN
        FOR i IN 1 .. COALESCE(array_length(ids, 1), 0) LOOP
            IF NOT EXISTS (SELECT 1 FROM sniff_matches WHERE id = ids[i]) THEN
                results := results || -1;
                CONTINUE;
            END IF;
            SELECT COALESCE(MAX(n) + 1, 0) INTO have FROM sniff_log WHERE match_id = ids[i];
            IF have <> expected[i] THEN
                results := results || (-2 - have);
                CONTINUE;
            END IF;
            INSERT INTO sniff_log (match_id, n, kind, value)
                VALUES (ids[i], expected[i], kinds[i], texts[i]);
            -- Sent when the transaction commits, in this order, on the store's channel
            -- and on the match's own; the entry goes with it.
            note := ids[i] || ' ' || (expected[i] + 1) || ' ' || kinds[i] || ' ' || texts[i];
            PERFORM pg_notify(channel, note);
            PERFORM pg_notify(channels[i], note);
            results := results || (expected[i] + 1);
        END LOOP;
        RETURN results;
    END
"""
_APPEND_MANY = (
    "CREATE OR REPLACE FUNCTION sniff_append_many(ids TEXT[], expected INTEGER[], "
    "kinds TEXT[], texts TEXT[], channel TEXT, channels TEXT[]) RETURNS INTEGER[] "
    "LANGUAGE plpgsql "
    f"AS $${_APPEND_MANY_BODY}$$"
)


#: The database's clock, in seconds since the epoch.
_NOW = "extract(epoch from clock_timestamp())"

#: The key of the advisory lock under which the tables are made: two
#: processes that start at once do not both create them.
_SCHEMA_LOCK = 0x736E696666


class PostgresStore(SQLStore):
    """Matches in a PostgreSQL database, for hosts with more than one process or machine.

    ``conninfo`` is a libpq connection string or URL
    (``"postgresql://user@host:5432/dbname"``). With ``schema``, the tables
    live in that schema (created if missing; 1 to 48 lower-case letters,
    digits and ``_``); without it, in the connection's ``search_path``. The
    tables (``sniff_matches``, ``sniff_log``, ``sniff_leases`` and
    ``sniff_settings``) and the function ``sniff_append_many``
    (:meth:`~american_sniff.store.MatchStore.append_many` in one statement:
    one round trip and one commit for a whole batch) are made if missing.

    **Announcements.** Every append is announced on the database's own
    channel (``NOTIFY``), with its entry, sent when it commits, in the order
    of the commits:
    :meth:`listen` opens a connection that receives them, so each worker
    learns of every move any worker makes.

    **Threads, processes and machines.** One store object holds one
    connection and a lock: threads may share it, and take turns; a process
    opens its own (never pass one across ``fork``). Any number of processes
    on any number of machines may use one database: an append reads the
    log's length and inserts the entry at that number in one transaction,
    and the log's key is unique on ``(match_id, n)``, so of two appends
    planned on the same length one is written and the other, which waits
    for the first to commit, is refused with
    :class:`~american_sniff.store.StaleAppend`.

    Making one raises ``psycopg.Error`` if the database cannot be reached.

    :raises ImportError: if psycopg is not installed (the ``postgres`` extra).
    :raises ValueError: if ``schema`` is not a plain lower-case name.
    """

    PARAMETER = "%s"

    def __init__(
        self, conninfo: str, *, schema: str | None = None, connect_timeout: int = 10
    ) -> None:
        if schema is not None and (
            type(schema) is not str or _SCHEMA_NAME.fullmatch(schema) is None
        ):
            raise ValueError(
                f"a schema is 1 to 48 lower-case letters, digits and '_', got {schema!r}"
            )
        try:
            import psycopg  # noqa: PLC0415 - an optional extra, loaded when used
        except ImportError:
            raise ImportError(
                "PostgresStore needs psycopg 3: pip install 'american-sniff[postgres]'"
            ) from None
        self._errors = psycopg.errors
        self._duplicate = psycopg.errors.UniqueViolation
        self._conninfo = conninfo
        self._connect_timeout = connect_timeout
        self._channel = "sniff" if schema is None else f"sniff_{schema}"
        self._lock = threading.Lock()
        self._db: psycopg.Connection[Any] = psycopg.connect(
            conninfo, autocommit=True, connect_timeout=connect_timeout
        )
        try:
            with self._transaction() as db:
                db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                if schema is not None:
                    db.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
                    db.execute(f'SET search_path TO "{schema}"')
                for statement in _TABLES:
                    db.execute(statement)
                # Made (or made anew) only where it is missing or another version:
                # replacing one needs its owner, where the tables need nobody.
                found = db.execute(
                    "SELECT prosrc FROM pg_proc WHERE oid = to_regprocedure("
                    "'sniff_append_many(text[], integer[], text[], text[], text, text[])')"
                ).fetchone()
                if found is None or found[0] != _APPEND_MANY_BODY:
                    db.execute(_APPEND_MANY)
                    db.execute(  # (an earlier version took one argument fewer)
                        "DROP FUNCTION IF EXISTS "
                        "sniff_append_many(TEXT[], INTEGER[], TEXT[], TEXT[], TEXT)"
                    )
            if schema is not None:
                self._db.execute(f'SET search_path TO "{schema}"')
        except BaseException:
            self._db.close()
            raise

    @contextmanager
    def _transaction(self, *, write: bool = True) -> Iterator[psycopg.Connection[Any]]:
        # (Reads and writes alike: the unique log key settles two appends at once.)
        with self._lock, self._db.transaction():
            yield self._db

    def _append(self, match_id: str, expected: int, entry: LogEntry) -> None:
        result = self._append_many([(match_id, expected, entry)])[0]
        if not isinstance(result, int):
            raise result

    def _append_many(
        self, appends: list[tuple[str, int, LogEntry]]
    ) -> list[int | StaleAppend | NoSuchMatch]:
        # One statement for all (sniff_append_many, made with the tables): one
        # round trip and one commit, where an entry in a transaction of its own
        # would wait on the database six times (each wait gives up Python's
        # lock, which a busy event loop's thread may keep for a switch
        # interval, 5 ms, before the writer's thread gets it back). If another
        # transaction inserted one of these numbers meanwhile, nothing is
        # written, and each entry is tried in turn.
        if not appends:
            return []
        try:
            with self._lock:
                row = self._db.execute(
                    "SELECT sniff_append_many(%s::text[], %s::integer[], %s::text[], "
                    "%s::text[], %s, %s::text[])",
                    (
                        [match_id for match_id, _, _ in appends],
                        [expected for _, expected, _ in appends],
                        [entry.kind for _, _, entry in appends],
                        [entry.value for _, _, entry in appends],
                        self._channel,
                        [self._match_channel(match_id) for match_id, _, _ in appends],
                    ),
                ).fetchone()
        except self._errors.UniqueViolation:
            return self._append_each(appends)
        results: list[int | StaleAppend | NoSuchMatch] = []
        # (One result for each append: zip's strict check stands for the database's word.)
        for (match_id, expected, _), result in zip(appends, row[0] if row else (), strict=True):
            if result > 0:
                results.append(result)
            elif result == -1:
                results.append(NoSuchMatch(f"there is no match {match_id!r}"))
            else:
                results.append(StaleAppend(match_id, expected, -2 - result))
        return results

    def _append_each(
        self, appends: list[tuple[str, int, LogEntry]]
    ) -> list[int | StaleAppend | NoSuchMatch]:
        """The appends in one transaction, each in a savepoint of its own.

        A refused entry undoes only itself (its announcement too).
        """
        results: list[int | StaleAppend | NoSuchMatch] = []
        with self._transaction() as db:
            for match_id, expected, entry in appends:
                try:
                    with db.transaction():
                        self._append_entry(db, match_id, expected, entry)
                        note = f"{match_id} {expected + 1} {entry.kind} {entry.value}"
                        db.execute(
                            "SELECT pg_notify(%s, %s), pg_notify(%s, %s)",
                            (self._channel, note, self._match_channel(match_id), note),
                        )
                except (StaleAppend, NoSuchMatch) as refused:
                    results.append(refused)
                except self._errors.UniqueViolation:
                    # Another transaction wrote this number after we read the length.
                    results.append(StaleAppend(match_id, expected, self._length(db, match_id)))
                else:
                    results.append(expected + 1)
        return results

    def listen(self, *, every: bool = True) -> Announcements:
        """A new connection that receives this store's announcements: see :class:`Announcements`.

        With ``every`` (the default) it hears every append; without, only
        the appends to the matches it follows (:meth:`Announcements.follow`),
        each announced on a channel of its own: a worker that holds a few
        matches of many is not woken for the others.

        It raises ``psycopg.Error`` if the database cannot be reached.
        """
        return Announcements(
            self._conninfo,
            self._channel if every else None,
            self._connect_timeout,
            self._match_channel,
        )

    def _match_channel(self, match_id: str) -> str:
        """The channel of ``match_id``'s own announcements (at most 63 bytes: a PostgreSQL name).

        The store's channel and a CRC-32 of the id: two matches may share one,
        and a listener keeps only those it follows.
        """
        return f"{self._channel}_{zlib.crc32(match_id.encode()):08x}"

    def _lease(self, match_id: str, seat: int, holder: str, seconds: float) -> bool:
        with self._transaction() as db:
            self._length(db, match_id)  # NoSuchMatch if there is none
            # Inserted, or updated where the holder renews or the lease has
            # expired; the conflicting row is locked, so one of two asking at
            # once sees the other's lease.
            row = db.execute(
                "INSERT INTO sniff_leases (match_id, seat, holder, expires) "
                f"VALUES (%s, %s, %s, {_NOW} + %s) "
                "ON CONFLICT (match_id, seat) DO UPDATE "
                "SET holder = excluded.holder, expires = excluded.expires "
                f"WHERE sniff_leases.holder = excluded.holder OR sniff_leases.expires <= {_NOW} "
                "RETURNING holder",
                (match_id, seat, holder, seconds),
            ).fetchone()
            return row is not None


@attrs.frozen
class Appended:
    """An announcement: an entry was appended to a match's log, which now holds ``length``.

    :ivar match_id: The match.
    :ivar length: How many entries its log holds after the append.
    :ivar entry: The entry appended (number ``length - 1``), as the
        announcement carries it; None if it carries none of the right form.
        A follower that holds the ``length - 1`` entries before it replays it
        at once; one that holds fewer reads the log's tail
        (:meth:`~american_sniff.store.MatchStore.entries`). Not compared.
    """

    match_id: str
    length: int
    entry: LogEntry | None = attrs.field(default=None, eq=False)


def _entry(text: str) -> LogEntry | None:
    """The entry an announcement carries (``kind value``), or None if it is not one."""
    kind, _, value = text.partition(" ")
    try:
        return LogEntry(kind, value)
    except (TypeError, ValueError):
        return None


class Announcements:
    """A connection of its own that listens for the appends to one :class:`PostgresStore`.

    Made by :meth:`PostgresStore.listen`. Each append that commits from any
    process or machine arrives once, in the order of the commits, for the
    appends made after it began to listen: every append, or, where it was
    made with ``every=False``, those to the matches it follows
    (:meth:`follow`), from the moment it follows each. A worker that holds
    some matches loads a match again (or replays the new entries) when its
    length grows. If the connection is lost, the announcements of that time
    are lost with it: listen again (and follow again), then load the matches
    held, since they may have grown meanwhile.

    One object per thread (it is not locked); close it when done.
    """

    def __init__(
        self,
        conninfo: str,
        channel: str | None,
        connect_timeout: int,
        channel_of: Callable[[str], str],
    ) -> None:
        import psycopg  # noqa: PLC0415 - an optional extra, loaded when used

        self._channel_of = channel_of
        # The matches followed (None: every match is heard, on the store's channel).
        self._followed: set[str] | None = None if channel is not None else set()
        self._db: psycopg.Connection[Any] = psycopg.connect(
            conninfo, autocommit=True, connect_timeout=connect_timeout
        )
        if channel is not None:
            try:
                self._db.execute(f'LISTEN "{channel}"')
            except BaseException:
                self._db.close()
                raise

    def follow(self, match_id: str) -> None:
        """Hear the appends to ``match_id`` from now on (a listener made with ``every=False``).

        The appends committed before this returns are not announced to it: a
        host reads the match's log after it follows (or again, if it read it
        before), so that nothing falls between.

        It raises ``psycopg.Error`` if the connection is lost.

        :raises ValueError: if ``match_id`` is not a match id, or this
            listener hears every append already.
        """
        followed = self._followed_set()
        match_id = check_id(match_id)
        if match_id not in followed:
            channel = self._channel_of(match_id)
            if not any(self._channel_of(other) == channel for other in followed):
                self._db.execute(f'LISTEN "{channel}"')
            followed.add(match_id)

    def unfollow(self, match_id: str) -> None:
        """Hear no more of the appends to ``match_id`` (nothing if it was not followed).

        It raises ``psycopg.Error`` if the connection is lost.

        :raises ValueError: as :meth:`follow`.
        """
        followed = self._followed_set()
        match_id = check_id(match_id)
        if match_id in followed:
            followed.discard(match_id)
            channel = self._channel_of(match_id)
            if not any(self._channel_of(other) == channel for other in followed):
                self._db.execute(f'UNLISTEN "{channel}"')

    def _followed_set(self) -> set[str]:
        if self._followed is None:
            raise ValueError("this listener hears every append: it follows no match alone")
        return self._followed

    def wait(self, timeout: float) -> tuple[Appended, ...]:
        """The appends announced since the last call, oldest first; waits up to ``timeout`` seconds.

        Returns as soon as one has arrived (with every one that arrived with
        it), or an empty tuple when ``timeout`` passes with none.

        It raises ``psycopg.Error`` if the connection is lost.

        :raises ValueError: if ``timeout`` is negative.
        """
        if not timeout >= 0:
            raise ValueError(f"a timeout is 0 or more seconds, got {timeout!r}")
        notes = list(self._db.notifies(timeout=timeout, stop_after=1))
        if notes:
            notes += self._db.notifies(timeout=0)
        appended = []
        followed = self._followed
        for note in notes:
            match_id, _, rest = note.payload.partition(" ")
            length, _, written = rest.partition(" ")
            # Another program may notify the channel too: only the store's own are kept,
            # and of a match's own channel, which another match may share, the followed.
            if (
                ID_PATTERN.fullmatch(match_id)
                and length.isdigit()
                and len(length) < 10
                and (followed is None or match_id in followed)
            ):
                appended.append(Appended(match_id, int(length), _entry(written)))
        return tuple(appended)

    def close(self) -> None:
        """Stop listening and close the connection."""
        self._db.close()

    def __enter__(self) -> Announcements:
        """The object itself; leaving the ``with`` block closes it."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close the connection."""
        self.close()
