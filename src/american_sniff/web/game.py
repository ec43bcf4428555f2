"""One match of the browser game: its setup, its states, its bots, its log.

A :class:`Game` is rebuilt from its stored log (:mod:`american_sniff.web.store`)
by replaying it with the engine, so a match survives a restart of the server;
every change (a move, an undo, a seat going on after a settlement) is written
to the log before it takes effect in memory.

Turn order, the undo rule, the hints and the bots are the shared game
controller's (:class:`american_sniff.session.Session`); this module adds
what only a host needs: the seats' tokens, the stored log and its length,
reloading, and the settlements each person has read. Bots are made afresh
for every choice (:attr:`~american_sniff.session.Seeding.PER_CHOICE`), seeded
from the match's seed, the seat and the number of actions so far
(:func:`american_sniff.bots.bot_seed`): a bot's choice is a pure function of
what it sees and of that seed, so a resumed match goes on exactly as it
would have.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs

from ..bots import bot_seed
from ..engine import apply, new_match
from ..errors import IllegalMove
from ..moves import Move, parse_move
from ..records import MatchRecord, record_match
from ..rng import check_seed
from ..session import BotKind, GameError, Seeding, Session, SessionView, lone_move
from ..state import MatchState, log_of
from .hosting import SPECTATOR
from .store import LogEntry, MatchBook, StoredMatch

__all__ = [
    "BOT_KINDS",
    "HUMAN",
    "MAX_NAME",
    "SETUP_KEYS",
    "Change",
    "Game",
    "GameError",
    "NotABrowserMatch",
    "SeatSetup",
    "Setup",
    "bot_seed",
    "new_setup",
]

#: The kind of a seat that a person plays.
HUMAN = "human"

#: The bots a seat may be given, by name: the library's bot kind and its options.
#: The search bot comes in three strengths (deals sampled per choice).
BOT_KINDS: Mapping[str, tuple[str, Mapping[str, Any]]] = MappingProxyType(
    {
        "random": ("random", {}),
        "greedy": ("greedy", {}),
        "search-quick": ("search", {"playouts": 8}),
        "search": ("search", {"playouts": 24}),
        "search-strong": ("search", {"playouts": 64}),
    }
)

#: The longest name a person may give their seat, in characters.
MAX_NAME = 24

#: The search bot that gives hints.
HINT_BOT: BotKind = ("search", {"playouts": 24})


@attrs.frozen
class SeatSetup:
    """Who sits in one seat.

    :ivar kind: :data:`HUMAN`, or a name of :data:`BOT_KINDS`.
    :ivar token: The secret in a human seat's link; None for a bot.
    :ivar name: The name the person at a human seat goes by ("" for none,
        and always for a bot).
    """

    kind: str
    token: str | None
    name: str = ""

    @property
    def is_human(self) -> bool:
        """Whether a person plays this seat."""
        return self.kind == HUMAN


#: The keys of the setup the browser game stores with each match (:meth:`Setup.to_dict`).
SETUP_KEYS = ("players", "seed", "seats", "spectator")


class NotABrowserMatch(ValueError):
    """A stored match whose setup the browser game did not write: it cannot be served.

    Such as a match a host's own code made with the library's store
    (``PostgresStore(url).create(2, seed=1)``) without the browser game's
    setup in its metadata. The message says what is wrong, for the operator.
    """


@attrs.frozen
class Setup:
    """What a match was set up with.

    :ivar players: 2, 3 or 4.
    :ivar seed: The match's seed (deals, lots and bots).
    :ivar seats: Who sits in each seat, seat 0 first.
    :ivar spectator: The secret in the spectator link.
    """

    players: int
    seed: int
    seats: tuple[SeatSetup, ...]
    spectator: str

    def to_dict(self) -> dict[str, Any]:
        """The setup as JSON values (the seed as decimal text: it may exceed 2**53)."""
        return {
            "players": self.players,
            "seed": str(self.seed),
            "seats": [{"kind": s.kind, "token": s.token, "name": s.name} for s in self.seats],
            "spectator": self.spectator,
        }

    def again(self) -> Setup:
        """The setup of a rematch: the same seats, tokens and names, a fresh random seed.

        The same tokens let every link of this match open the same seat of
        the rematch.
        """
        return attrs.evolve(self, seed=secrets.randbits(64))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Setup:
        """The setup that :meth:`to_dict` wrote.

        :raises NotABrowserMatch: if ``data`` is not such a setup (a key is
            missing, or a value is not what the game writes).
        """
        missing = [repr(key) for key in SETUP_KEYS if key not in data]
        if missing:
            lacks = ", ".join(missing[:-1]) + " and " if len(missing) > 1 else ""
            raise NotABrowserMatch(
                f"the match was not made by the browser game: its setup lacks {lacks}{missing[-1]}"
            )
        try:
            seats = tuple(
                SeatSetup(s["kind"], s["token"], str(s.get("name", ""))) for s in data["seats"]
            )
            for seat in seats:
                if not seat.is_human and seat.kind not in BOT_KINDS:
                    raise ValueError(f"no seat kind {seat.kind!r}")
            return cls(
                players=int(data["players"]),
                seed=check_seed(int(data["seed"])),
                seats=seats,
                spectator=str(data["spectator"]),
            )
        except (AttributeError, KeyError, TypeError, ValueError) as error:
            raise NotABrowserMatch(
                "the match was not made by the browser game: its setup does not read as "
                f"the game's ({type(error).__name__}: {error})"
            ) from None


def new_setup(players: object, kinds: object, seed: object = None, names: object = None) -> Setup:
    """A setup with fresh tokens for ``kinds`` (one per seat), checked.

    ``names``, if given, holds one name per seat (text of at most
    :data:`MAX_NAME` characters, no control characters; "" for none); a bot's
    seat takes no name.

    >>> setup = new_setup(2, ["human", "greedy"], seed=1, names=["Ana", ""])
    >>> setup.seats[0].is_human, setup.seats[0].name, setup.seats[1].token
    (True, 'Ana', None)

    :raises GameError: if the player count, a seat kind, a name or the seed
        is wrong, or no seat is human.
    """
    if players not in (2, 3, 4) or isinstance(players, bool) or not isinstance(players, int):
        raise GameError(f"a match has 2, 3 or 4 players, not {players!r}")
    if not isinstance(kinds, (list, tuple)) or len(kinds) != players:
        raise GameError(f"name who sits in each of the {players} seats")
    for kind in kinds:
        if kind != HUMAN and kind not in BOT_KINDS:
            raise GameError(
                f"a seat is {HUMAN!r} or one of the bots {', '.join(BOT_KINDS)}, not {kind!r}"
            )
    if HUMAN not in kinds:
        raise GameError("at least one seat must be played by a person")
    given = _names(names, kinds)
    if seed is None:
        seed = secrets.randbits(64)
    try:
        seed = check_seed(seed if isinstance(seed, int) else int(str(seed), 0))
    except ValueError:
        raise GameError(f"a seed is an integer from 0 to 2**64 - 1, not {seed!r}") from None
    return Setup(
        players=players,
        seed=seed,
        seats=tuple(
            SeatSetup(kind, secrets.token_urlsafe(16) if kind == HUMAN else None, name)
            for kind, name in zip(kinds, given, strict=True)
        ),
        spectator=secrets.token_urlsafe(16),
    )


def _names(names: object, kinds: list[Any] | tuple[Any, ...]) -> list[str]:
    """The checked names of the seats (spaces trimmed), one per seat."""
    if names is None:
        return [""] * len(kinds)
    if not isinstance(names, (list, tuple)) or len(names) != len(kinds):
        raise GameError(f"give one name per seat ({len(kinds)}), or none")
    checked = []
    for kind, name in zip(kinds, names, strict=True):
        if not isinstance(name, str):
            raise GameError(f"a name is text, not {name!r}")
        name = " ".join(name.split())  # noqa: PLW2901 - the name as it is kept
        if len(name) > MAX_NAME or any(not c.isprintable() for c in name):
            raise GameError(f"a name is at most {MAX_NAME} printable characters")
        if name and kind != HUMAN:
            raise GameError("a bot's seat takes no name")
        checked.append(name)
    return checked


class Game(SessionView):
    """A match being played: its setup, every state from the first, the seats that went on.

    Made from a stored match (``Game(store.load(match_id), store)``) or a new
    one (:meth:`create`); each change goes to ``store`` first. Not safe to share between threads
    without a lock (the server holds one per game).
    """

    def __init__(self, stored: StoredMatch, store: MatchBook) -> None:
        self.id = stored.id
        self.created = stored.created
        self.setup = Setup.from_dict(stored.setup)
        self._store = store
        #: The shared controller: the states, turn order, undo, hints and bots.
        self.session = Session(
            [new_match(self.setup.players, seed=self.setup.seed)],
            {n: BOT_KINDS[s.kind] for n, s in enumerate(self.setup.seats) if not s.is_human},
            HINT_BOT,
            seeding=Seeding.PER_CHOICE,
        )
        self._log: list[LogEntry] = []
        self._continued: set[tuple[int, int]] = set()
        #: How many entries its log has: a change is appended only if the
        #: stored log is still that long (another process may have written).
        self.logged = 0
        self._rebuild(stored.log)
        #: How many changes were made since it was loaded: a change is planned
        #: at one version and may be made only at that version.
        self.version = 0

    def _rebuild(self, log: tuple[LogEntry, ...]) -> None:
        """Replay ``log``; on an error, the game is left as it was.

        A log that begins with the one this game holds (it grew) replays only
        its new entries; another is replayed from the first state.
        """
        session = self.session
        old_states, old_continued = session.states, self._continued
        held = len(self._log)
        if tuple(log[:held]) == tuple(self._log):
            session.states, self._continued = list(old_states), set(old_continued)
            new = log[held:]
        else:
            session.states = old_states[:1]
            self._continued = set()
            new = log
        try:
            for entry in new:
                self._replay(entry)
        except BaseException:
            session.states, self._continued = old_states, old_continued
            raise
        self._log = list(log)
        self.logged = len(log)

    def reload(self, stored: StoredMatch) -> None:
        """Take the match as ``stored`` now (another process wrote to its log).

        The game stays the same object, at a new :attr:`version`: changes
        planned before are refused by :meth:`take`. Only the entries after
        the ones it holds are replayed, when the stored log begins with them.

        :raises ValueError: if ``stored`` is another match.
        :raises IllegalMove: if its log does not replay (the game is left as it was).
        """
        if stored.id != self.id:
            raise ValueError(f"this is the match {self.id!r}, not {stored.id!r}")
        self._rebuild(stored.log)
        self.version += 1

    def catch_up(self, entries: Sequence[LogEntry]) -> None:
        """Take ``entries``, which another process appended after the ones this game holds.

        Like :meth:`reload`, with only the new entries read from the store.

        :raises IllegalMove: if they do not replay (the game is left as it was).
        """
        self._rebuild((*self._log, *entries))
        self.version += 1

    @classmethod
    def create(cls, store: MatchBook, setup: Setup, match_id: str | None = None) -> Game:
        """A new match with ``setup``, stored in ``store`` (a fresh id unless one is given)."""
        match_id = secrets.token_urlsafe(9) if match_id is None else match_id
        created = time.time()
        store.create(match_id, created, setup.to_dict())
        return cls(StoredMatch(match_id, created, setup.to_dict(), ()), store)

    # -- what it is now ----------------------------------------------------------------

    def viewer(self, token: str) -> int | str | None:
        """The seat whose token ``token`` is, :data:`SPECTATOR`, or None for no such token."""
        if not token:
            return None
        for seat, setup in enumerate(self.setup.seats):
            if setup.token is not None and secrets.compare_digest(setup.token, token):
                return seat
        if secrets.compare_digest(self.setup.spectator, token):
            return SPECTATOR
        return None

    def waiting_for(self) -> list[int]:
        """The human seats that have not yet gone on from the last settlement (bots wait)."""
        state = self.state
        # Whether the round has begun, without building its history: its log is
        # empty only in its first state.
        if state.round == 1 or state.winner is not None or log_of(state) is not None:
            return []
        return [
            seat
            for seat, setup in enumerate(self.setup.seats)
            if setup.is_human and (seat, state.round) not in self._continued
        ]

    def bot_to_move(self) -> bool:
        """Whether a bot is to move now (the match goes on and no person is still reading)."""
        state = self.state
        return (
            state.winner is None
            and not self.session.is_human(state.turn)
            and not self.waiting_for()
        )

    def forced(self) -> Move | None:
        """A draw or a pass that a human seat to move must make (made for them), else None."""
        return self.session.forced()

    def undo_point(self, seat: int) -> int | None:
        """How far ``seat``'s undo goes back, or None: :meth:`.Session.undo_point`."""
        return self.session.undo_point(seat)

    def record(self) -> MatchRecord:
        """The match's record so far (finished or not), seats named by who plays them."""
        names = [
            f"seat {n} ({s.kind if not s.is_human else 'person'})"
            for n, s in enumerate(self.setup.seats)
        ]
        return record_match(self.states, names=names)

    # -- changes -----------------------------------------------------------------------

    def plan_move(self, viewer: int | str | None, text: object, seq: object) -> Change:
        """The move ``text`` of the seat ``viewer``, to move at ``seq``, checked and not yet made.

        See :meth:`commit`.

        :raises GameError: if it is not that seat's turn, ``seq`` is stale or
            the move is not legal (the message names the rule).
        """
        state = self.state
        if not isinstance(viewer, int):
            raise GameError("only a seat can move")
        if state.winner is not None:
            raise GameError("the match is over")
        if state.turn != viewer:
            raise GameError(f"it is seat {state.turn}'s turn, not yours")
        if seq != self.seq:
            raise GameError("the table has changed since: look again and choose")
        if not isinstance(text, str):
            raise GameError("a move is text in the notation, like '[1|4] on [4|4] line B'")
        try:
            move = parse_move(text, strict=True)
            after = apply(state, move)
        except (IllegalMove, ValueError) as error:
            raise GameError(f"that move is refused: {error}") from None
        # Choosing a move shows the seat has read the last settlement: the one
        # before the round this move was made in. A move that ends the round
        # deals the next one, whose settlement the seat has yet to see, so it is
        # not marked. The mark is not logged: a restart derives it from the move
        # (see _replay), so it is made only where the log shows it, for a move
        # that was a choice (a draw or a pass that was the only move is the one
        # the server would have made for the seat).
        return Change(
            LogEntry("move", str(move)),
            self,
            move=move,
            state=after,
            continued=(viewer, state.round) if lone_move(state) is None else None,
        )

    def bot_move(self) -> Move:
        """The move of the bot to move (see the module's notes); nothing is applied."""
        return self.session.bot_move()

    def hint(self, seat: int) -> Move:
        """What the search bot would play for ``seat`` now.

        :raises GameError: if ``seat`` is not to move.
        """
        return self.session.hint(seat)

    def plan_play(self, move: Move) -> Change:
        """Apply ``move`` (a bot's or a forced one), not yet made: see :meth:`commit`.

        :raises IllegalMove: if ``move`` is not legal now.
        """
        return Change(LogEntry("move", str(move)), self, move=move, state=apply(self.state, move))

    def plan_undo(self, seat: int) -> Change:
        """Take back ``seat``'s last placement and every action after it: checked, not yet made.

        See :meth:`commit`.

        :raises GameError: if it may not (see :meth:`undo_point`).
        """
        point = self.session.checked_undo_point(seat)
        return Change(LogEntry("undo", str(point)), self, undo_to=point)

    def plan_go_on(self, seat: int) -> Change | None:
        """``seat`` has seen the last settlement, so bots may open the next round.

        Not yet made (None if the seat went on already): see :meth:`commit`.
        """
        key = (seat, self.state.round)
        if key in self._continued:
            return None
        return Change(LogEntry("continue", f"{seat} {self.state.round}"), self, continued=key)

    def commit(self, change: Change) -> None:
        """Write ``change`` to the log, then make it: if the write fails, nothing changes.

        A host that writes elsewhere (in a thread, say) calls :meth:`take`
        after its own write instead.

        :raises StaleLog: if the stored log is no longer the one the change
            was planned on (another process wrote to it): :meth:`reload` it.
        :raises sqlite3.Error: if the store cannot write.
        """
        self._store.append(self.id, change.entry, expected=change.logged)
        self.take(change)

    def take(self, change: Change) -> None:
        """Make ``change``, already in the log, in memory.

        :raises ValueError: if ``change`` was planned for another state of the match.
        """
        if change.game is not self or change.version != self.version:
            raise ValueError("this change was planned for another state of the match")
        if change.state is not None:
            self.states.append(change.state)
        if change.undo_to is not None:
            self.session.go_back(change.undo_to)
        if change.continued is not None:
            self._continued.add(change.continued)
        self._log.append(change.entry)
        self.logged += 1
        self.version += 1

    def _replay(self, entry: LogEntry) -> None:
        if entry.kind == "move":
            state = self.state
            self.states.append(apply(state, parse_move(entry.value, strict=True)))
            # A person's move that was a choice marks the seat as gone on, as
            # plan_move did when it was made.
            if self.session.is_human(state.turn) and lone_move(state) is None:
                self._continued.add((state.turn, state.round))
        elif entry.kind == "undo":
            self.session.go_back(int(entry.value))
        else:
            seat, number = entry.value.split()
            self._continued.add((int(seat), int(number)))


@attrs.frozen(eq=False)
class Change:
    """A change of a :class:`Game`, checked and not yet made: its log entry and its effect.

    Made by the game's ``plan_*`` methods; :meth:`Game.commit` writes and makes
    it, or a host writes ``entry`` itself and calls :meth:`Game.take`.

    :ivar entry: What goes in the log.
    :ivar game: The game it is for.
    :ivar move: The move made, if it is one.
    :ivar state: The state the move leads to, if it is one.
    :ivar undo_to: The number of actions an undo goes back to, if it is one.
    :ivar continued: The ``(seat, round)`` that goes on, if any.
    :ivar version: The game's :attr:`Game.version` it was planned at.
    :ivar logged: The length of the game's log it was planned at
        (:attr:`Game.logged`): it is appended only if the stored log is that long.
    """

    entry: LogEntry
    game: Game
    move: Move | None = None
    state: MatchState | None = None
    undo_to: int | None = None
    continued: tuple[int, int] | None = None
    version: int = attrs.field(
        default=attrs.Factory(lambda self: self.game.version, takes_self=True)
    )
    logged: int = attrs.field(default=attrs.Factory(lambda self: self.game.logged, takes_self=True))
