"""Which matches a server holds in memory: loaded from the store when asked, forgotten when idle.

:class:`Rooms` holds a :class:`~american_sniff.web.rooms.Room` for each match
that is being played or watched here. A match is loaded from the store the
first time it is asked for (its database read in a thread, off the event
loop), and forgotten :data:`FORGET_AFTER` seconds after the last browser
left it, once nothing else uses it (no hello awaited, no change under its
lock, no bot playing, no write waiting): the store holds everything it
needs, and the next browser loads it again. So a long-running server holds
the matches being played, not every match it has served.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

from .game import Game
from .rooms import Room
from .store import MatchBook, StoredMatch

__all__ = ["FORGET_AFTER", "Rooms", "Stored", "Unservable"]

#: How long a match stays in memory once nobody is connected to it, in
#: seconds. Then it is forgotten (the store holds it) and loaded again by the
#: next browser that comes, so that a long-running server holds the matches
#: being played, not every match it has served.
FORGET_AFTER = 60.0

#: A stored match as a room is made from it: the match, the id of its
#: rematch and why it ended at a host's cap (each None for none).
Stored = tuple[StoredMatch, str | None, str | None]


class Unservable(ValueError):
    """A stored match this server cannot serve, and why (the message, for its browsers).

    Its log no longer replays, or its setup is not the browser game's (a match
    a host's own code made with the library's store). The operator's list
    shows it with that reason; its record, its frames and its sockets are
    refused with it.
    """


class Rooms:
    """The rooms of the matches held in memory, by match id.

    :param store: Where the matches are kept.
    :param forget_after: How long a match nobody is connected to stays in
        memory, in seconds (:data:`FORGET_AFTER`).
    :param arrived: Called with each room loaded from the store (the server
        checks its cap on a match's length there).
    """

    def __init__(
        self,
        store: MatchBook,
        forget_after: float = FORGET_AFTER,
        arrived: Callable[[Room], object] | None = None,
    ) -> None:
        #: Where the matches are kept.
        self.store = store
        #: How long a match nobody is connected to stays in memory, in seconds.
        self.forget_after = forget_after
        #: Called with each room loaded from the store.
        self.arrived = arrived
        #: The tasks that close dropped sockets or catch up, kept until they are done.
        self.closing: set[asyncio.Task[None]] = set()
        #: Whether the browsers of a match are served by another worker (which
        #: follows it): a match held here that nobody here uses is then
        #: forgotten rather than followed (:meth:`let_go`). None: no match is.
        self.elsewhere: Callable[[str], bool] | None = None
        #: Called with a match's id and True when it is held from now on, and
        #: False when it no longer is (the listener follows the matches held).
        self.watch: Callable[[str, bool], object] | None = None
        self._rooms: dict[str, Room] = {}
        self._forgetting: dict[str, asyncio.TimerHandle] = {}  # when each is looked at again

    def __iter__(self) -> Iterator[Room]:
        """The rooms held now (a copy: the caller may load or forget meanwhile)."""
        return iter(list(self._rooms.values()))

    def get(self, match_id: str) -> Room | None:
        """The room of ``match_id`` if it is held in memory now, else None (nothing is loaded)."""
        return self._rooms.get(match_id)

    def room(self, game: Game) -> Room:
        """The room of ``game``, the match held here or one that is held from now on."""
        return self._rooms.get(game.id) or self.hold(game)

    def hold(self, game: Game) -> Room:
        """Hold ``game`` (new, or read from the store) in a room of its own; forget it when idle."""
        room = self._rooms[game.id] = Room(game, self.closing)
        self._watch(game.id, True)
        self.idle(room)
        return room

    async def load(self, match_id: str) -> Room | None:
        """The room of ``match_id``, its match read from the store in a thread if not held.

        None if there is no such match.

        :raises Unservable: if the match cannot be served (the message says why).
        """
        room = self._rooms.get(match_id)
        if room is not None:
            return room
        # (An append made while it is read is caught up once the match is
        # followed: see :attr:`watch`.)
        try:
            stored = await asyncio.to_thread(self.read, match_id)
        except ValueError as error:  # its log no longer replays
            raise Unservable(f"this match cannot be served here: {error}") from None
        if stored is None:
            return None
        try:
            room = self._rooms.get(match_id) or self.loaded(stored)
        except ValueError as error:  # not the browser game's, or its log does not replay
            raise Unservable(f"this match cannot be served here: {error}") from None
        return room

    def read(self, match_id: str) -> Stored | None:
        """The stored match, the id of its rematch and why it ended at a cap; None for none."""
        stored = self.store.load(match_id)
        if stored is None:
            return None
        return (
            stored,
            self.store.meta_of(f"rematch {match_id}"),
            self.store.meta_of(f"ended {match_id}"),
        )

    def loaded(self, stored: Stored) -> Room:
        """The room of a match read from the store, now held (with its rematch, offered before)."""
        match, rematch, ended = stored
        room = self._rooms[match.id] = Room(Game(match, self.store), self.closing)
        self._watch(match.id, True)
        room.rematch = rematch
        room.ended = ended
        if ended is None and self.arrived is not None:
            self.arrived(room)  # a cap lowered since the match was played
        self.idle(room)
        return room

    def idle(self, room: Room) -> None:
        """Forget the match after :attr:`forget_after` seconds, unless someone is connected then."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # called outside the server's loop (a script): kept
            return
        handle = self._forgetting.pop(room.id, None)
        if handle is not None:
            handle.cancel()
        self._forgetting[room.id] = loop.call_later(self.forget_after, self.forget, room)

    def forget(self, room: Room) -> None:
        """Drop the match from memory if nobody uses it: no browser, no bot, no write waiting.

        The store holds everything the match needs; :meth:`load` reads it
        again. A match still in use is looked at again later, and one with a
        browser connected when its last one leaves.
        """
        self._forgetting.pop(room.id, None)
        if room.sockets or room.arriving:
            return  # the last browser to leave looks again
        if room.busy():
            self.idle(room)
            return
        if self._rooms.pop(room.id, None) is not None:
            self._watch(room.id, False)

    def let_go(self, room: Room) -> bool:
        """Forget ``room``'s match now if nothing here uses it; whether it was forgotten.

        Nothing uses it when no browser is connected to it here, none is
        arriving, and no change, bot or write is under way
        (:meth:`Room.busy <american_sniff.web.rooms.Room.busy>`). The next
        browser reads it again (:meth:`load`).
        """
        if room.busy() or self._rooms.get(room.id) is not room:
            return False
        handle = self._forgetting.pop(room.id, None)
        if handle is not None:
            handle.cancel()
        del self._rooms[room.id]
        self._watch(room.id, False)
        return True

    def _watch(self, match_id: str, held: bool) -> None:
        if self.watch is not None:
            self.watch(match_id, held)

    def close(self) -> None:
        """Forget no more matches (the server stops)."""
        for handle in self._forgetting.values():
            handle.cancel()
