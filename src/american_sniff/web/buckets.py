"""Rate limits shared by every worker of one PostgreSQL database: token buckets in a table.

With ``american-sniff serve --workers N`` (or several ``serve`` processes on
one database behind a balancer), a limit that each process counted alone
would let a client do N times as much: create N times as many matches, by
sending its requests to each worker in turn. :class:`SharedBuckets` keeps
the buckets of the rare events in the database instead, in an ``UNLOGGED``
table (``sniff_buckets``: not written to the database's journal, so cheap,
and emptied if the database crashes, which only forgets who took what), and
takes a token with one ``INSERT ... ON CONFLICT DO UPDATE``: the row of the
bucket is locked while it is updated, so two workers that take at once
take one token each, on the database's one clock.

Which limits are shared (the names of :class:`~american_sniff.web.limits.SocketLimits`
and the server's): the new matches of an address (``create``), the new
WebSockets of an address (``reconnects``) and of a seat (``seat reconnects``),
and the hints of an address (``hints``). Each is one round trip to the
database per event, which the server makes in a thread. The rest stay each
worker's own, since a socket lives on one worker: the messages and hints of
one socket, the messages of an address (one round trip per message would
cost more than the message), and the counts of the sockets open at once
(a socket is counted by the worker that holds it, and forgotten with it).

If the database cannot be reached, each limit counts in this process alone
(:class:`~american_sniff.web.limits.RateLimit`) until it can again: a
limit never stops the server.
"""

from __future__ import annotations

import contextlib
import math
import re
import threading
import time
from typing import TYPE_CHECKING, Any

from .limits import Rate

if TYPE_CHECKING:
    import psycopg

__all__ = ["SharedBuckets", "SharedRateLimit"]

_SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,47}")

_TABLE = """CREATE UNLOGGED TABLE IF NOT EXISTS sniff_buckets (
    bucket TEXT NOT NULL,
    key TEXT NOT NULL,
    tokens DOUBLE PRECISION NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    taken BOOLEAN NOT NULL,
    PRIMARY KEY (bucket, key)
)"""

#: The database's clock, in seconds (one transaction, one time).
_NOW = "extract(epoch from now())"

#: The tokens a bucket holds now: what it held, and what came back since.
_FILLED = f"LEAST(%(burst)s, b.tokens + GREATEST(0, {_NOW} - b.at) / %(every)s)"

#: Take one token from a bucket, if it holds one (a new bucket is full).
_TAKE = (
    "INSERT INTO sniff_buckets AS b (bucket, key, tokens, at, taken) "
    f"VALUES (%(bucket)s, %(key)s, %(burst)s - 1, {_NOW}, true) "
    "ON CONFLICT (bucket, key) DO UPDATE SET "
    f"tokens = {_FILLED} - CASE WHEN {_FILLED} >= 1 THEN 1 ELSE 0 END, "
    f"taken = {_FILLED} >= 1, at = {_NOW} "
    "RETURNING tokens, taken"
)

#: A bucket untouched for its whole refill time is full: its row says nothing.
_FORGET = f"DELETE FROM sniff_buckets WHERE bucket = %s AND at < {_NOW} - %s"

#: The key under which the table is made (two workers that start at once).
_TABLE_LOCK = 0x736E6962

#: The longest key kept (an address or a seat); a longer one is cut.
_MAX_KEY = 200

#: After this many takes, a process forgets the full buckets.
_FORGET_EVERY = 1000

#: Seconds between two tries to reach the database again, after it failed.
_RETRY = 1.0


class SharedBuckets:
    """The token buckets of every worker on one PostgreSQL database.

    ``conninfo`` and ``schema`` are those of the
    :class:`~american_sniff.store.PostgresStore` of the matches (the table
    ``sniff_buckets`` is made beside theirs if missing). It holds one
    connection of its own, which threads share and take turns on.

    Making one raises ``psycopg.Error`` if the database cannot be reached.

    :raises ImportError: if psycopg is not installed (the ``postgres`` extra).
    :raises ValueError: if ``schema`` is not a plain lower-case name.
    """

    def __init__(
        self, conninfo: str, *, schema: str | None = None, connect_timeout: int = 10
    ) -> None:
        if schema is not None and _SCHEMA_NAME.fullmatch(schema) is None:
            raise ValueError(
                f"a schema is 1 to 48 lower-case letters, digits and '_', got {schema!r}"
            )
        import psycopg  # noqa: PLC0415 - an optional extra, loaded when used

        self._errors: tuple[type[BaseException], ...] = (psycopg.Error, OSError)
        self._conninfo = conninfo
        self._schema = schema
        self._connect_timeout = connect_timeout
        self._lock = threading.Lock()
        self._rates: dict[str, Rate] = {}
        self._takes = 0
        self._failed_at: float | None = None
        self._db: psycopg.Connection[Any] | None = self._connect()

    def _connect(self) -> psycopg.Connection[Any]:
        import psycopg  # noqa: PLC0415

        db = psycopg.connect(self._conninfo, autocommit=True, connect_timeout=self._connect_timeout)
        try:
            with db.transaction():
                db.execute("SELECT pg_advisory_xact_lock(%s)", (_TABLE_LOCK,))
                if self._schema is not None:
                    db.execute(f'CREATE SCHEMA IF NOT EXISTS "{self._schema}"')
                    db.execute(f'SET LOCAL search_path TO "{self._schema}"')
                db.execute(_TABLE)
            if self._schema is not None:
                db.execute(f'SET search_path TO "{self._schema}"')
        except BaseException:
            db.close()
            raise
        return db

    def limit(self, name: str, rate: Rate) -> SharedRateLimit:
        """The limit ``name`` of size ``rate``: one bucket per key, shared by every worker.

        Two limits of one name share their buckets, so every worker gives
        each limit the same name and size.
        """
        self._rates[name] = rate
        return SharedRateLimit(self, name, rate)

    def take(self, name: str, key: str, rate: Rate) -> float | None:
        """Take one token from the bucket ``(name, key)``: 0 if it may go on, else the wait.

        None if the database cannot be reached now (the caller counts alone).
        """
        with self._lock:
            if self._db is None:
                if self._failed_at is not None and time.monotonic() - self._failed_at < _RETRY:
                    return None
                try:
                    self._db = self._connect()
                except self._errors:
                    self._failed_at = time.monotonic()
                    return None
            parameters = {
                "bucket": name,
                "key": key[:_MAX_KEY],
                "burst": float(rate.burst),
                "every": rate.every,
            }
            try:
                row = self._db.execute(_TAKE, parameters).fetchone()
                self._takes += 1
                if self._takes % _FORGET_EVERY == 0:
                    self._forget()
            except self._errors:
                with contextlib.suppress(Exception):
                    self._db.close()
                self._db, self._failed_at = None, time.monotonic()
                return None
        assert row is not None
        tokens, taken = float(row[0]), bool(row[1])
        if taken:
            return 0.0
        return math.ceil((1 - tokens) * rate.every * 1000) / 1000

    def _forget(self) -> None:
        """Delete the rows of the buckets that are full again (under the lock)."""
        assert self._db is not None
        for name, rate in self._rates.items():
            self._db.execute(_FORGET, (name, rate.burst * rate.every))

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


class SharedRateLimit:
    """One limit of :class:`SharedBuckets`: a token bucket per key, ``burst`` at once, shared.

    It has the interface of :class:`~american_sniff.web.limits.RateLimit`;
    :meth:`take` is one round trip to the database (a server calls it in a
    thread). While the database cannot be reached, a
    :class:`~american_sniff.web.limits.RateLimit` of this process counts.
    """

    def __init__(self, buckets: SharedBuckets, name: str, rate: Rate) -> None:
        self.buckets = buckets
        self.name = name
        self.rate = rate
        #: How many may be taken at once.
        self.burst = rate.burst
        #: Seconds for one more to come back.
        self.every = rate.every
        self._alone = rate.limit()

    def take(self, key: str) -> float:
        """Take one for ``key``: 0 if it may go on, else the seconds until it may."""
        wait = self.buckets.take(self.name, key, self.rate)
        return self._alone.take(key) if wait is None else wait
