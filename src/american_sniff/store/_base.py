"""What both backends share: the values, the checks of outside input, the replay, the contract."""

from __future__ import annotations

import abc
import json
import re
import secrets
import time
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ..engine import apply, new_match
from ..errors import IllegalMove
from ..moves import parse_move
from ..rng import MASK64
from ..state import MatchState

__all__ = [
    "ID_PATTERN",
    "LOG_KINDS",
    "MAX_ID",
    "MAX_LEASE",
    "MAX_LOG",
    "MAX_METADATA",
    "MAX_PAGE",
    "MAX_SETTING",
    "MAX_SETTING_NAME",
    "MAX_VALUE",
    "BrokenMatch",
    "LogEntry",
    "Match",
    "MatchExists",
    "MatchSetup",
    "MatchStore",
    "NoSuchMatch",
    "Page",
    "StaleAppend",
    "StoreError",
]

#: The kinds of log entry, as the browser game's store has them.
LOG_KINDS = ("move", "undo", "continue")

#: The longest match id, in characters (letters, digits, ``-`` and ``_``).
MAX_ID = 64

#: The longest value of a log entry, in characters.
MAX_VALUE = 64

#: The most entries a match's log may hold: an append beyond it is refused,
#: so a load replays at most this many.
MAX_LOG = 20_000

#: The longest host metadata of a match, in bytes of its JSON text.
MAX_METADATA = 65_536

#: The longest a bot seat's lease may last, in seconds (:meth:`MatchStore.lease`).
MAX_LEASE = 3600.0

#: The most matches one page of :meth:`MatchStore.matches` holds.
MAX_PAGE = 200

#: The longest name of a host's setting (:meth:`MatchStore.setting`), in characters.
MAX_SETTING_NAME = 120

#: The longest value of a host's setting, in characters.
MAX_SETTING = 10_000

#: What a match id (and a lease's holder) matches.
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ID = ID_PATTERN
_CURSOR = re.compile(r"[0-9]{1,19}")
_COUNT = re.compile(r"(0|[1-9][0-9]{0,8})")


# -- errors ----------------------------------------------------------------------------


class StoreError(Exception):
    """A request the store refuses for the state of the database (not for its input)."""


class NoSuchMatch(StoreError, LookupError):
    """There is no match with that id."""


class MatchExists(StoreError):
    """A match with that id exists already."""


class StaleAppend(StoreError):
    """The log is no longer as long as the state the entry was planned on: nothing was written.

    Another writer (a thread, a process, another machine) appended first. The
    host loads the match again (:meth:`MatchStore.load`), shows the client
    the state it finds, and lets it choose again.

    :ivar match_id: The match.
    :ivar expected: The length the append expected.
    :ivar length: The log's length now.
    """

    def __init__(self, match_id: str, expected: int, length: int) -> None:
        super().__init__(
            f"match {match_id!r}: the entry was planned on a log of {expected} entries, "
            f"but it holds {length}: load it again"
        )
        self.match_id = match_id
        self.expected = expected
        self.length = length


# -- values ----------------------------------------------------------------------------


def _check_kind(_: object, __: object, kind: Any) -> None:
    if kind not in LOG_KINDS:
        raise ValueError(f"a log entry is one of {', '.join(LOG_KINDS)}, got {kind!r}")


def _check_value(entry: LogEntry, _: object, value: Any) -> None:
    if type(value) is not str:
        raise TypeError(f"a log entry's value is text, got {type(value).__name__}")
    if not 0 < len(value) <= MAX_VALUE or not value.isascii() or not value.isprintable():
        raise ValueError(
            f"a log entry's value is printable ASCII of 1 to {MAX_VALUE} characters, "
            f"got {value[:MAX_VALUE]!r}{'...' if len(value) > MAX_VALUE else ''}"
        )
    if entry.kind == "move":
        try:
            parse_move(value, strict=True)
        except ValueError as error:
            raise ValueError(f"a move entry holds a move in the notation: {error}") from None
    elif entry.kind == "undo":
        if _COUNT.fullmatch(value) is None:
            raise ValueError(
                f"an undo entry holds the number of moves it goes back to, got {value!r}"
            )
    else:
        parts = value.split(" ")
        if len(parts) != 2 or not all(_COUNT.fullmatch(part) for part in parts):
            raise ValueError(f"a continue entry holds 'SEAT ROUND', got {value!r}")


@attrs.frozen
class LogEntry:
    """One entry of a match's log; refused at once if malformed.

    The kinds are those of the browser game's log:

    * ``move``: a move in the library's notation (``str(move)``), made by the
      seat to move;
    * ``undo``: the number of actions the match goes back to (``"12"``);
    * ``continue``: a seat has seen a round's settlement and goes on:
      ``"SEAT ROUND"``.

    :ivar kind: One of :data:`LOG_KINDS`.
    :ivar value: Its text: printable ASCII, 1 to :data:`MAX_VALUE` characters.

    :raises ValueError: if the kind is not one of :data:`LOG_KINDS` or the
        value is not of its form.
    :raises TypeError: if the value is not text.
    """

    kind: str = attrs.field(validator=_check_kind)
    value: str = attrs.field(validator=_check_value)


@attrs.frozen
class MatchSetup:
    """What a match was created with.

    :ivar players: 2, 3 or 4.
    :ivar seed: The match's seed: ``new_match(players, seed=seed)`` is its start.
    :ivar metadata: The host's own JSON object (names, seats' tokens, ...),
        kept as given and never read by the store.
    """

    players: int
    seed: int
    metadata: Mapping[str, Any]


@attrs.frozen
class Match:
    """A stored match, replayed: its setup, its log, and every state the log leads through.

    :ivar id: The match's id.
    :ivar created: When it was created, in seconds since the epoch.
    :ivar setup: What it was created with.
    :ivar log: Its log, oldest entry first.
    :ivar states: Its states from the start, after its undos: the last is now.
    :ivar continued: The ``(seat, round)`` pairs that went on (``continue``).
    """

    id: str
    created: float
    setup: MatchSetup
    log: tuple[LogEntry, ...]
    states: tuple[MatchState, ...] = attrs.field(repr=False)
    continued: frozenset[tuple[int, int]] = attrs.field(repr=False)

    @property
    def state(self) -> MatchState:
        """The state now."""
        return self.states[-1]

    @property
    def length(self) -> int:
        """How many entries the log holds: what :meth:`MatchStore.append` expects next."""
        return len(self.log)

    def after(self, entry: LogEntry) -> Match:
        """The match with ``entry`` at the end of its log, in memory; nothing is stored.

        A host checks an entry so before it appends it: a move must be legal
        now, an undo must go back, a ``continue`` must name a seat and the
        round now.

        :raises ValueError: (:class:`~american_sniff.IllegalMove` for a move)
            if the entry does not apply to the match now.
        """
        states = list(self.states)
        continued = set(self.continued)
        _replay(states, continued, entry, self.setup.players)
        return attrs.evolve(
            self, log=(*self.log, entry), states=tuple(states), continued=frozenset(continued)
        )


@attrs.frozen
class BrokenMatch:
    """A stored match that cannot be played: its setup or its log does not replay.

    Reported, never raised: a store that holds one still lists the others.

    :ivar id: The match's id.
    :ivar created: When it was created, in seconds since the epoch.
    :ivar length: How many entries its log holds.
    :ivar reason: What is wrong, naming the entry (counted from 0) if one is.
    :ivar entry: The number of the entry that does not replay, or None if its
        setup is unreadable.
    """

    id: str
    created: float
    length: int
    reason: str
    entry: int | None


@attrs.frozen
class Page:
    """One page of matches, newest first.

    :ivar matches: The matches, each replayed or reported broken.
    :ivar cursor: What to pass to :meth:`MatchStore.matches` for the next
        page, or None after the last.
    """

    matches: tuple[Match | BrokenMatch, ...]
    cursor: str | None


# -- replay ----------------------------------------------------------------------------


def _replay(
    states: list[MatchState], continued: set[tuple[int, int]], entry: LogEntry, players: int
) -> None:
    """Apply ``entry`` to a match's states and its seats that went on (in place)."""
    if entry.kind == "move":
        states.append(apply(states[-1], parse_move(entry.value, strict=True)))
    elif entry.kind == "undo":
        point = int(entry.value)
        if point >= len(states) - 1:
            raise ValueError(f"an undo goes back to {point} actions, but the match has had fewer")
        del states[point + 1 :]
    else:
        seat, number = (int(part) for part in entry.value.split(" "))
        if seat >= players or number != states[-1].round:
            raise ValueError(f"seat {seat} cannot go on from round {number} now")
        continued.add((seat, number))


def _replayed(
    match_id: str, created: float, setup_text: str, rows: list[tuple[Any, Any, Any]]
) -> Match | BrokenMatch:
    """A match from its stored row and log rows ``(n, kind, value)``, or why it is broken."""
    try:
        setup = _setup_from_text(setup_text)
    except (ValueError, TypeError, RecursionError) as error:
        reason = f"its setup is unreadable: {str(error)[:200]}"
        return BrokenMatch(match_id, created, len(rows), reason, None)
    states = [new_match(setup.players, seed=setup.seed)]
    continued: set[tuple[int, int]] = set()
    log: list[LogEntry] = []
    for number, (stored_number, kind, value) in enumerate(rows):
        if stored_number != number:
            return BrokenMatch(match_id, created, len(rows), f"entry {number} is missing", number)
        try:
            entry = LogEntry(kind, value)
            _replay(states, continued, entry, setup.players)
        except (IllegalMove, ValueError, TypeError) as error:
            reason = f"entry {number} ({kind} {str(value)[:MAX_VALUE]!r}) does not replay: {error}"
            return BrokenMatch(match_id, created, len(rows), reason, number)
        log.append(entry)
    return Match(match_id, created, setup, tuple(log), tuple(states), frozenset(continued))


# -- outside input ---------------------------------------------------------------------


def check_id(match_id: object) -> str:
    """``match_id`` if it is a match id: 1 to :data:`MAX_ID` letters, digits, ``-`` or ``_``.

    :raises ValueError: otherwise, naming the value (cut short).
    """
    if type(match_id) is not str or _ID.fullmatch(match_id) is None:
        shown = match_id[:MAX_ID] if isinstance(match_id, str) else match_id
        raise ValueError(f"a match id is 1 to {MAX_ID} letters, digits, '-' or '_', got {shown!r}")
    return match_id


def _check_setup(players: object, seed: object, metadata: object) -> tuple[int, int, str]:
    if type(players) is not int or players not in (2, 3, 4):
        raise ValueError(f"a match has 2, 3 or 4 players, got {players!r}")
    if type(seed) is not int or not 0 <= seed <= MASK64:
        raise ValueError(f"a seed is an integer from 0 to 2**64 - 1, got {seed!r}")
    if not isinstance(metadata, Mapping):
        raise TypeError(f"a match's metadata is a JSON object (a mapping), got {metadata!r}")
    try:
        meta = json.dumps(dict(metadata), sort_keys=True, allow_nan=False, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError) as error:
        raise ValueError(f"a match's metadata must be JSON: {error}") from None
    if len(meta) > MAX_METADATA:
        raise ValueError(f"a match's metadata is at most {MAX_METADATA} bytes of JSON")
    text = f'{{"metadata": {meta}, "players": {players}, "seed": "{seed}"}}'
    return players, seed, text


def _setup_from_text(text: object) -> MatchSetup:
    if not isinstance(text, str) or len(text) > MAX_METADATA + 100:
        raise ValueError("the stored setup is not JSON text of the allowed length")
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("metadata"), dict):
        raise ValueError("the stored setup is not an object with metadata")
    seed_text = data.get("seed")
    if not isinstance(seed_text, str) or not seed_text.isdigit() or len(seed_text) > 20:
        raise ValueError(f"the stored seed is not a seed: {seed_text!r}")
    players, seed, _ = _check_setup(data.get("players"), int(seed_text), data["metadata"])
    return MatchSetup(players, seed, data["metadata"])


def _check_length(expected: object) -> int:
    if type(expected) is not int:
        raise TypeError(f"the expected length is an integer, got {expected!r}")
    if not 0 <= expected < MAX_LOG:
        raise ValueError(f"a log holds 0 to {MAX_LOG} entries: none can follow {expected}")
    return expected


def _check_lease(seat: object, holder: object, seconds: object) -> tuple[int, str, float]:
    if type(seat) is not int or not 0 <= seat <= 3:
        raise ValueError(f"a seat is an integer from 0 to 3, got {seat!r}")
    if type(holder) is not str or _ID.fullmatch(holder) is None:
        shown = holder[:MAX_ID] if isinstance(holder, str) else holder
        raise ValueError(f"a holder is 1 to {MAX_ID} letters, digits, '-' or '_', got {shown!r}")
    if type(seconds) not in (int, float) or not 0 < seconds <= MAX_LEASE:  # type: ignore[operator]
        raise ValueError(
            f"a lease lasts more than 0 and at most {MAX_LEASE} seconds, got {seconds!r}"
        )
    return seat, holder, float(seconds)  # type: ignore[arg-type]


def _check_setting_name(name: object) -> str:
    if type(name) is not str or not 1 <= len(name) <= MAX_SETTING_NAME:
        raise ValueError(
            f"a setting's name is a text of 1 to {MAX_SETTING_NAME} characters, got {_brief(name)}"
        )
    return name


def _check_setting(value: object) -> str:
    if type(value) is not str or len(value) > MAX_SETTING:
        raise ValueError(
            f"a setting's value is a text of at most {MAX_SETTING} characters, got {_brief(value)}"
        )
    return value


def _brief(value: object) -> str:
    """A short description of ``value`` for an error message: its type, and its length if text."""
    if type(value) is str:
        return f"a text of {len(value)} characters"
    return type(value).__name__


def _check_cursor(cursor: object) -> int | None:
    if cursor is None:
        return None
    if type(cursor) is not str or _CURSOR.fullmatch(cursor) is None:
        shown = cursor[:40] if isinstance(cursor, str) else cursor
        raise ValueError(f"a cursor is what the page before gave, got {shown!r}")
    return int(cursor)


def _check_limit(limit: object) -> int:
    if type(limit) is not int or not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"a page holds 1 to {MAX_PAGE} matches, got {limit!r}")
    return limit


# -- the contract ----------------------------------------------------------------------


class MatchStore(abc.ABC):
    """The contract of both backends: matches created, loaded, listed, and appended to safely.

    A match is its setup and an append-only log; a load replays the log from
    ``new_match(players, seed=seed)``, so no stored match can hold a state
    that play does not reach. Use a store as a context manager, or call
    :meth:`close`.
    """

    def create(
        self,
        players: int,
        seed: int | None = None,
        *,
        match_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Match:
        """Store a new match with an empty log, and return it.

        :param players: 2, 3 or 4.
        :param seed: The match's seed; a fresh random one if None.
        :param match_id: Its id (see :func:`check_id`); a fresh random one if None.
        :param metadata: The host's JSON object, at most :data:`MAX_METADATA`
            bytes of JSON; it comes back as given (JSON's values).
        :raises ValueError: if an argument is out of its range, or the
            metadata is not JSON.
        :raises MatchExists: if a match with that id exists.
        """
        match_id = secrets.token_urlsafe(12) if match_id is None else check_id(match_id)
        seed = secrets.randbits(64) if seed is None else seed
        players, seed, text = _check_setup(players, seed, {} if metadata is None else metadata)
        created = time.time()
        self._insert(match_id, created, text)
        loaded = _replayed(match_id, created, text, [])
        assert isinstance(loaded, Match)
        return loaded

    def load(self, match_id: str) -> Match | BrokenMatch:
        """The match, replayed from its log; or a :class:`BrokenMatch` saying why it cannot be.

        :raises NoSuchMatch: if there is no match with that id.
        :raises ValueError: if ``match_id`` is not a match id.
        """
        row = self._fetch(check_id(match_id))
        if row is None:
            raise NoSuchMatch(f"there is no match {match_id!r}")
        created, setup_text, rows = row
        return _replayed(match_id, created, setup_text, rows)

    def append(self, match_id: str, expected: int, entry: LogEntry) -> int:
        """Write ``entry`` as entry number ``expected``, if the log holds exactly that many now.

        ``expected`` is the :attr:`Match.length` of the match the entry was
        planned on (check the entry first with :meth:`Match.after`). The check
        and the write are one transaction, so of two writers that planned on
        the same length exactly one is written, whatever threads, processes
        or machines they run in. Returns the log's new length.

        :raises StaleAppend: if the log holds another number of entries:
            nothing is written.
        :raises NoSuchMatch: if there is no match with that id.
        :raises ValueError: if ``match_id`` is not a match id, or ``expected``
            is negative or at least :data:`MAX_LOG`.
        :raises TypeError: if ``entry`` is not a :class:`LogEntry`, or
            ``expected`` not an integer.
        """
        check_id(match_id)
        expected = _check_length(expected)
        if type(entry) is not LogEntry:
            raise TypeError(f"append() needs a LogEntry, got {entry!r}")
        self._append(match_id, expected, entry)
        return expected + 1

    def append_many(
        self, appends: Sequence[tuple[str, int, LogEntry]]
    ) -> list[int | StaleAppend | NoSuchMatch]:
        """Each ``(match_id, expected, entry)`` appended as :meth:`append` does, in order.

        Each entry is checked and written as if alone: one that is refused
        (its log is not ``expected`` entries long, or there is no such match)
        writes nothing, and the others are still written. Returns, for each,
        the log's new length or the :class:`StaleAppend` or
        :class:`NoSuchMatch` that refused it. A backend may write them all in
        one transaction (PostgreSQL does: one commit for all, where
        :meth:`append` waits for one each); an error of the database itself
        then refuses them all, raised as :meth:`append` raises it.

        :raises ValueError: as :meth:`append` (before anything is written).
        :raises TypeError: as :meth:`append` (before anything is written).
        """
        checked = []
        for match_id, expected, entry in appends:
            check_id(match_id)
            if type(entry) is not LogEntry:
                raise TypeError(f"append_many() needs LogEntry values, got {entry!r}")
            checked.append((match_id, _check_length(expected), entry))
        return self._append_many(checked)

    def entries(self, match_id: str, start: int = 0) -> tuple[LogEntry, ...]:
        """The entries of the match's log from number ``start`` on, as stored (not replayed).

        What a host that holds a match's first ``start`` entries reads when
        it learns that the log grew (another process appended): it replays
        the new entries itself, on the states it holds, instead of loading
        the whole match again. Empty if the log holds ``start`` entries or
        fewer.

        :raises NoSuchMatch: if there is no match with that id.
        :raises ValueError: if ``match_id`` is not a match id, or ``start`` is
            not a whole number from 0 to :data:`MAX_LOG`.
        """
        if type(start) is not int or not 0 <= start <= MAX_LOG:
            raise ValueError(f"start is a whole number from 0 to {MAX_LOG}, got {start!r}")
        rows = self._entries(check_id(match_id), start)
        if rows is None:
            raise NoSuchMatch(f"there is no match {match_id!r}")
        return tuple(LogEntry(kind, value) for _, kind, value in rows)

    def matches(self, limit: int = 50, cursor: str | None = None) -> Page:
        """One page of matches, newest first, each replayed or reported broken.

        :param limit: How many at most, 1 to :data:`MAX_PAGE`.
        :param cursor: None for the first page, else the :attr:`Page.cursor`
            of the page before.
        :raises ValueError: if ``limit`` is out of range or ``cursor`` is not
            one a page gave.
        """
        limit = _check_limit(limit)
        before = _check_cursor(cursor)
        rows = self._page(limit + 1, before)
        more = len(rows) > limit
        rows = rows[:limit]
        matches = tuple(
            _replayed(match_id, created, setup_text, log)
            for _, match_id, created, setup_text, log in rows
        )
        return Page(matches, str(rows[-1][0]) if more else None)

    def match_ids(self, limit: int = 50, after: str | None = None) -> tuple[str, ...]:
        """The ids of up to ``limit`` matches, newest first, without reading their logs.

        What a host's list of matches pages through: one query, whatever the
        number of matches stored or the length of their logs, where
        :meth:`matches` replays each match it lists. With ``after``, the
        list goes on from the match after that one (the next older); fewer
        than ``limit`` ids mean the list ends there.

        >>> from american_sniff.store import SQLiteStore
        >>> store = SQLiteStore()
        >>> first, second, third = (store.create(2, seed=n).id for n in range(3))
        >>> store.match_ids(2) == (third, second)
        True
        >>> store.match_ids(2, after=second) == (first,)
        True
        >>> store.close()

        :param limit: How many at most, 1 to :data:`MAX_PAGE`.
        :param after: None for the newest, else the id of a stored match.
        :raises NoSuchMatch: if there is no match ``after``.
        :raises ValueError: if ``limit`` is out of range or ``after`` is not a match id.
        """
        limit = _check_limit(limit)
        if after is not None:
            check_id(after)
        ids = self._ids(limit, after)
        if ids is None:
            raise NoSuchMatch(f"there is no match {after!r}")
        return tuple(ids)

    def lease(self, match_id: str, seat: int, holder: str, seconds: float) -> bool:
        """Take or renew the lease on driving ``seat``'s bot; whether ``holder`` holds it now.

        A host with several workers lets exactly one drive each bot seat: a
        worker asks for the lease before it moves for the bot, and moves only
        while it holds it. The lease is ``holder``'s for ``seconds`` from now
        if nobody else holds one that has not expired; asking again before
        it expires renews it. A worker that dies stops renewing, and its
        leases pass to the first worker that asks once they expire. Renew
        well within ``seconds`` (every third of it, say). The clock is the
        database's for PostgreSQL, and the machine's for SQLite.

        A lease only says who drives; the moves still go through
        :meth:`append`, so a worker whose lease ran out unnoticed is refused
        by the safe append, never written twice.

        :raises NoSuchMatch: if there is no match with that id.
        :raises ValueError: if ``match_id`` or ``holder`` is not an id (1 to
            :data:`MAX_ID` letters, digits, ``-`` or ``_``), ``seat`` is not
            0 to 3, or ``seconds`` is not more than 0 and at most :data:`MAX_LEASE`.
        """
        check_id(match_id)
        seat, holder, length = _check_lease(seat, holder, seconds)
        return self._lease(match_id, seat, holder, length)

    def release(self, match_id: str, seat: int, holder: str) -> None:
        """Give up ``holder``'s lease on ``seat``'s bot at once, if it holds it (else nothing).

        :raises ValueError: as :meth:`lease` does.
        """
        check_id(match_id)
        seat, holder, _ = _check_lease(seat, holder, 1)
        self._release(match_id, seat, holder)

    def setting(self, name: str, default: str) -> str:
        """The host's setting ``name``: its stored value, else ``default``, stored now.

        Settings are a host's own short texts kept beside its matches, in a
        table of their own (``sniff_settings``), never listed among the
        matches: the browser server keeps there its operator's key, the id of
        each match's rematch, and why a match ended at the host's cap. A
        setting is written once: the first value stored wins, so two
        processes that store one at once both get the same value back.

        >>> from american_sniff.store import SQLiteStore
        >>> with SQLiteStore() as store:
        ...     first = store.setting("greeting", "hello")
        ...     second = store.setting("greeting", "goodbye")
        ...     first, second, store.setting_of("greeting"), store.setting_of("other")
        ('hello', 'hello', 'hello', None)

        :raises ValueError: if ``name`` is not a text of 1 to
            :data:`MAX_SETTING_NAME` characters, or ``default`` not one of at
            most :data:`MAX_SETTING`.
        """
        return self._setting(_check_setting_name(name), _check_setting(default))

    def setting_of(self, name: str) -> str | None:
        """The stored value of the host's setting ``name`` (:meth:`setting`), or None.

        :raises ValueError: if ``name`` is not a text of 1 to :data:`MAX_SETTING_NAME` characters.
        """
        return self._setting_of(_check_setting_name(name))

    def close(self) -> None:
        """Close the connection to the database."""
        self._close()

    def __enter__(self) -> MatchStore:
        """The store itself; leaving the ``with`` block closes it."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close the store."""
        self.close()

    # -- what a backend writes ---------------------------------------------------------

    @abc.abstractmethod
    def _insert(self, match_id: str, created: float, setup_text: str) -> None:
        """Insert the match; :class:`MatchExists` if its id is taken."""

    @abc.abstractmethod
    def _fetch(self, match_id: str) -> tuple[float, str, list[tuple[Any, Any, Any]]] | None:
        """The match's created time, setup text and log rows (n, kind, value), or None."""

    @abc.abstractmethod
    def _entries(self, match_id: str, start: int) -> list[tuple[Any, Any, Any]] | None:
        """The log rows (n, kind, value) from number ``start`` on, or None if no such match."""

    @abc.abstractmethod
    def _append(self, match_id: str, expected: int, entry: LogEntry) -> None:
        """Check the log's length and insert the entry, in one transaction."""

    def _append_many(
        self, appends: list[tuple[str, int, LogEntry]]
    ) -> list[int | StaleAppend | NoSuchMatch]:
        """Each checked append, each in a transaction of its own (a backend may do better)."""
        results: list[int | StaleAppend | NoSuchMatch] = []
        for match_id, expected, entry in appends:
            try:
                self._append(match_id, expected, entry)
            except (StaleAppend, NoSuchMatch) as refused:
                results.append(refused)
            else:
                results.append(expected + 1)
        return results

    @abc.abstractmethod
    def _page(
        self, count: int, before: int | None
    ) -> list[tuple[int, str, float, str, list[tuple[Any, Any, Any]]]]:
        """Up to ``count`` matches (number, id, created, setup text, log rows), newest first."""

    @abc.abstractmethod
    def _ids(self, count: int, after: str | None) -> list[str] | None:
        """Up to ``count`` ids, newest first, older than ``after`` (None: no ``after``)."""

    @abc.abstractmethod
    def _lease(self, match_id: str, seat: int, holder: str, seconds: float) -> bool:
        """Take or renew the lease in one transaction; whether ``holder`` holds it."""

    @abc.abstractmethod
    def _release(self, match_id: str, seat: int, holder: str) -> None:
        """Delete ``holder``'s lease, if it holds it."""

    @abc.abstractmethod
    def _setting(self, name: str, default: str) -> str:
        """Store ``default`` as ``name`` unless one is; the value stored, in one transaction."""

    @abc.abstractmethod
    def _setting_of(self, name: str) -> str | None:
        """The stored value of ``name``, or None."""

    @abc.abstractmethod
    def _close(self) -> None:
        """Close the connection."""
