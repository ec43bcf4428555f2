"""Where a host keeps its matches: a setup and an append-only log each, in SQLite or PostgreSQL.

A match is stored as what it was created with (its players, its seed, and
the host's own JSON metadata) and a log of what happened, one entry a row,
never changed once written: the kinds of the browser game's log (``move``,
``undo``, ``continue``; see :class:`LogEntry`). A load replays the log from
``new_match(players, seed=seed)``, so no stored match can hold a state that
play does not reach, and a log that no longer replays is reported as a
:class:`BrokenMatch`, never raised: one broken match never breaks a list.

Two backends keep the same contract (:class:`MatchStore`):

* :class:`SQLiteStore`, the embedded default: one file, the standard
  library's ``sqlite3``, nothing to set up; threads and processes of one
  machine;
* :class:`PostgresStore`, for hosts with several processes or machines:
  psycopg 3, the ``postgres`` extra (``pip install 'american-sniff[postgres]'``);
  the base install never imports it.

**The safe append.** :meth:`MatchStore.append` names the length of the log
the entry was planned on, and writes it only if the log still has that
length, in one transaction: a second writer that planned on the same state
is refused with :class:`StaleAppend` (which carries the length now), never
written after the first.

>>> from american_sniff import legal_moves
>>> with SQLiteStore() as store:
...     match = store.create(2, seed=7, metadata={"names": ["Ann", "Bob"]})
...     entry = LogEntry("move", str(legal_moves(match.state)[0]))
...     store.append(match.id, match.length, entry)     # planned on an empty log
...     try:
...         store.append(match.id, match.length, entry) # planned on it too: refused
...     except StaleAppend as error:
...         print("refused; the log holds", error.length)
...     store.load(match.id).state.seq
1
refused; the log holds 1
1
"""

from __future__ import annotations

from ._base import (
    LOG_KINDS,
    MAX_ID,
    MAX_LEASE,
    MAX_LOG,
    MAX_METADATA,
    MAX_PAGE,
    MAX_SETTING,
    MAX_SETTING_NAME,
    MAX_VALUE,
    BrokenMatch,
    LogEntry,
    Match,
    MatchExists,
    MatchSetup,
    MatchStore,
    NoSuchMatch,
    Page,
    StaleAppend,
    StoreError,
    check_id,
)
from .postgres import Announcements, Appended, PostgresStore
from .sqlite import SQLiteStore

__all__ = [
    "LOG_KINDS",
    "MAX_ID",
    "MAX_LEASE",
    "MAX_LOG",
    "MAX_METADATA",
    "MAX_PAGE",
    "MAX_SETTING",
    "MAX_SETTING_NAME",
    "MAX_VALUE",
    "Announcements",
    "Appended",
    "BrokenMatch",
    "LogEntry",
    "Match",
    "MatchExists",
    "MatchSetup",
    "MatchStore",
    "NoSuchMatch",
    "Page",
    "PostgresStore",
    "SQLiteStore",
    "StaleAppend",
    "StoreError",
    "check_id",
]
