"""The game flow of a server: a browser's message carried out, a change saved then made.

:class:`Flow` is where a match changes. A seat's message (``move``,
``undo``, ``continue``, ``hint``, ``speed``, ``rematch``) is carried out
under the match's lock (:meth:`Flow.message`); each change is first written
to the store by the :class:`~american_sniff.web.store.Writer`'s thread and
made in memory only once written (:meth:`Flow.commit`), so a failed write
changes nothing and a change planned on a stale copy (another server wrote
meanwhile) is refused and the match read again (:meth:`Flow.reload`). The
host's cap on a match's length (:data:`MAX_ACTIONS`, :data:`MAX_ROUNDS`)
ends a match with no winner and says why (:meth:`Flow.cap`), and a match
that is over offers one rematch (:meth:`Flow.rematch`).

Who moves for the bots is :class:`~american_sniff.web.driver.Driver`'s
concern; it makes its changes through :meth:`Flow.commit` too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import sqlite3
from typing import Any

from starlette.concurrency import run_in_threadpool

from ..session import hint_reason
from ..state import MatchState
from ..views import view_for
from .cache import Rooms
from .connection import Connection
from .game import Change, Game, GameError
from .rooms import Room
from .shared import LibraryStore
from .store import LogEntry, MatchBook, StaleLog, Writer

__all__ = [
    "BOT_SPEEDS",
    "MAX_ACTIONS",
    "MAX_ROUNDS",
    "Flow",
    "Stale",
    "storage_failure",
    "token",
]

#: The bots' speeds a seat may choose, each as the factor of the server's
#: ``bot_delay`` that a bot waits before each action: ``instant`` does not
#: wait, ``normal`` waits ``bot_delay`` (0.7 s unless the server says
#: otherwise), ``slow`` twice as long.
BOT_SPEEDS: dict[str, float] = {"instant": 0.0, "normal": 1.0, "slow": 2.0}

#: The most actions a match may have: at this many, a match with no winner
#: ends, and says why (a match between people who never finish, or a script
#: that stalls, would otherwise grow for ever). Matches played out by random
#: moves take 1,434 actions at the most in 90 seeds; a real one, a few hundred.
MAX_ACTIONS = 5000

#: The most rounds a match may have: a match with no winner that would
#: start round ``MAX_ROUNDS + 1`` ends instead, and says why.
MAX_ROUNDS = 200

#: What a browser is told when its change was planned on a stale copy of the
#: match (another server wrote to it meanwhile); it is sent the fresh state.
_STALE = "the table has changed since: look again and choose"

#: How many times a message refused because the log grew is planned again
#: at most. Never reached in play: only the other seats' going on (one each a
#: round) leaves a move's table as it was, and a round ends; it only bounds
#: the work of one message.
_REPLANS = 64

#: The messages that change a match (refused once it ended at the cap).
_PLAY = frozenset({"move", "undo", "continue", "hint"})


class Stale(GameError):
    """A change refused because another server changed the match first (it was read again)."""


class Flow:
    """How the matches of one server change: messages, writes, the cap and the rematch.

    :param rooms: The matches held in memory.
    :param writer: The thread that writes every change to the store.
    :param max_actions: The most actions a match may have (:data:`MAX_ACTIONS`;
        None: no cap).
    :param max_rounds: The most rounds a match may have (:data:`MAX_ROUNDS`;
        None: no cap).
    """

    def __init__(
        self,
        rooms: Rooms,
        writer: Writer,
        max_actions: int | None = MAX_ACTIONS,
        max_rounds: int | None = MAX_ROUNDS,
    ) -> None:
        #: The matches held in memory.
        self.rooms = rooms
        #: The thread that writes every change to the store.
        self.writer = writer
        #: The most actions a match may have (None: no cap).
        self.max_actions = max_actions
        #: The most rounds a match may have (None: no cap).
        self.max_rounds = max_rounds

    @property
    def store(self) -> MatchBook:
        """Where the matches are kept."""
        return self.rooms.store

    # -- the host's cap on a match's length ---------------------------------------------

    def _at_cap(self, game: Game) -> bool:
        """Whether ``game`` reached this server's cap on a match's length."""
        return (self.max_actions is not None and game.seq >= self.max_actions) or (
            self.max_rounds is not None and game.state.round > self.max_rounds
        )

    def cap(self, room: Room) -> str | None:
        """End the match if it has no winner and reached the cap; why, if it ended just now.

        Such a match takes no more moves, undos or hints; its record is given
        to its links, as a finished match's is, and a rematch may be asked.
        The reason (:attr:`Room.ended <american_sniff.web.rooms.Room.ended>`)
        is kept in the store, so that it stays ended after a restart.
        """
        game = room.game
        state = game.state
        if room.ended is not None or state.winner is not None:
            return None
        if self.max_actions is not None and game.seq >= self.max_actions:
            what = f"{self.max_actions} actions"
        elif self.max_rounds is not None and state.round > self.max_rounds:
            what = f"{self.max_rounds} rounds"
        else:
            return None
        reason = (
            f"The match is over with no winner: it reached this server's cap of {what} "
            f"(the scores stand at {', '.join(map(str, state.scores))})."
        )
        # If it cannot be kept, it is kept in memory: the cap is met again when loaded.
        with contextlib.suppress(sqlite3.Error):
            reason = self.store.meta(f"ended {game.id}", reason)
        room.ended = reason
        return reason

    def rematch(self, room: Room) -> str:
        """The id of the match's rematch, made the first time it is asked for (under its lock).

        The link is kept in the store's meta table, so that a restarted server
        gives the same rematch.

        :raises GameError: if the match is not over.
        """
        game = room.game
        if game.state.winner is None and room.ended is None:
            raise GameError("a rematch is offered once the match is over")
        candidate = token()[:12]
        chosen = self.store.meta(f"rematch {game.id}", candidate)
        if chosen == candidate:
            self.rooms.hold(Game.create(self.store, game.setup.again(), chosen))
        room.rematch = chosen
        return chosen

    # -- a change, written then made ----------------------------------------------------

    async def commit(self, room: Room, change: Change) -> None:
        """Write ``change`` to the store, then make it in the game; a failed write changes nothing.

        The write is the :class:`~american_sniff.web.store.Writer`'s, in its
        thread: the event loop goes on meanwhile.

        The change is logged only if the stored log is as long as the one it
        was planned on. If another process (another server on the same
        database) wrote meanwhile, nothing is written: the game is read again
        from the store, its browsers here are sent the fresh state, and
        :class:`Stale` says that the table changed.

        :raises GameError: if the store cannot write (full disk, read-only
            file, a broken database), or the match changed meanwhile: the
            message says so, for the players.
        """
        game = room.game
        room.unwritten += 1
        written = self.writer.written(game.id, change.entry, expected=change.logged)

        def made(future: asyncio.Future[int]) -> None:
            # Made when written, even if the task that waits is cancelled meanwhile:
            # the memory never falls behind the log.
            room.unwritten -= 1
            if future.cancelled() or future.exception() is not None:
                return
            # Its waiter was cancelled (the browser left), the lock freed, and the
            # match read back from the store meanwhile: this entry is in it already.
            if game.logged > change.logged:
                return
            game.take(change)
            room.written = game.logged

        written.add_done_callback(made)
        try:
            await asyncio.shield(written)
        except sqlite3.Error as error:
            raise GameError(storage_failure(error)) from None
        except StaleLog:
            await self.reload(room)
            raise Stale(_STALE) from None

    async def follow(self, room: Room, length: int, entry: LogEntry | None) -> None:
        """Take ``entry``, another worker's append (the log's ``length``-th), and tell the browsers.

        Called under the match's lock, when the append was announced. If this
        copy holds the entries before it, the entry is replayed at once (no
        read); else, or if it does not replay, the match is read again
        (:meth:`reload`).

        :raises GameError: if it cannot be read (the message says so).
        """
        game = room.game
        if game.logged >= length:
            return  # taken already (read with an earlier one)
        if entry is None or game.logged != length - 1:
            await self.reload(room)
            return
        try:
            game.catch_up((entry,))
        except ValueError:  # not the log's (the channel carried another's text)
            await self.reload(room)
            return
        if game.state.winner is not None or self._at_cap(game):
            await self._read_settings(room)
        room.broadcast()

    async def _read_settings(self, room: Room) -> None:
        """Read the match's rematch and why it ended at a cap, which another worker may have set."""
        try:
            stored = await asyncio.to_thread(self.rooms.read, room.id)
        except (sqlite3.Error, ValueError) as error:
            raise GameError(f"the match could not be read again ({error})") from None
        if stored is not None:
            _, rematch, ended = stored
            room.rematch = rematch if rematch is not None else room.rematch
            room.ended = ended if ended is not None else room.ended

    async def reload(self, room: Room) -> None:
        """Read the match again from the store (another process wrote to it), and tell its browsers.

        Called under the match's lock, when a write was refused because the
        log had grown, or another worker announced an append: this server's
        copy was behind. Every browser of the match here gets the fresh state.

        :raises GameError: if it cannot be read (the message says so).
        """
        game = room.game
        store = self.store
        try:
            if isinstance(store, LibraryStore):  # only the new entries
                new = await asyncio.to_thread(store.entries_since, game.id, game.logged)
                if not new:
                    return  # nothing new
                game.catch_up(new)
                if game.state.winner is None and not self._at_cap(game):
                    room.broadcast()  # (no rematch yet, and not ended at a cap)
                    return
                stored = await asyncio.to_thread(self.rooms.read, game.id)
            else:
                stored = await asyncio.to_thread(self.rooms.read, game.id)
                if stored is not None and len(stored[0].log) == game.logged:
                    return  # nothing new
                if stored is not None:
                    game.reload(stored[0])
            if stored is None:  # pragma: no cover - matches are never deleted
                raise GameError("this match is no longer stored")
        except (sqlite3.Error, ValueError) as error:
            raise GameError(
                f"the match changed on another server and could not be read again ({error})"
            ) from None
        _, rematch, ended = stored
        if rematch is not None:
            room.rematch = rematch
        if ended is not None:
            room.ended = ended
        room.broadcast()

    # -- a browser's message ------------------------------------------------------------

    async def _commit_or_replan(
        self, room: Room, change: Change, viewer: int, message: dict[str, Any]
    ) -> None:
        """Commit ``change``; while the log grew meanwhile, plan the message again if it holds.

        Planned again on the match read back, where nothing it depends on
        changed: going on never depends on the others (only on its round), and
        a move or an undo only on the table (another seat going on, on another
        worker, adds no action). Each refusal means that another change
        landed, so it is tried again as often as it is refused: a seat that
        goes on may be refused twice or more, when the others go on and open
        the round through other workers meanwhile (issue 41).

        :raises Stale: where the message no longer holds.
        """
        game, kind = room.game, message.get("type")
        table = game.state  # what a move or an undo was planned on
        for _ in range(_REPLANS):
            try:
                await self.commit(room, change)
            except Stale:
                again = self._replan(game, change, viewer, kind, table)
                if again is None:
                    return  # (it went on already, read back from another worker)
                change = again
            else:
                return
        raise Stale(_STALE)

    @staticmethod
    def _replan(
        game: Game, change: Change, viewer: int, kind: object, table: MatchState
    ) -> Change | None:
        """The message planned again after a refusal, if nothing it depends on changed.

        :raises Stale: if something did.
        """
        if kind == "continue":
            continued = change.continued
            if continued is not None and game.state.round == continued[1]:
                return game.plan_go_on(viewer)
        elif game.state == table:  # the same table: another seat only went on
            move = change.move
            if kind == "move" and move is not None:
                return game.plan_move(viewer, str(move), game.seq)
            if kind == "undo":
                return game.plan_undo(viewer)
        raise Stale(_STALE)

    async def message(self, room: Room, connection: Connection, message: dict[str, Any]) -> bool:
        """Carry out one message of a browser and answer it; whether the bots may have to go on.

        A refused message is answered with an ``error`` message that says
        why; a change is followed by every browser's new state, and by the
        reason if it ended the match at the cap. A hint is answered to its
        asker alone, a speed sets the bots' speed of the match, and a table
        (the drawing of the table the page now shows) is answered with the
        asker's message again, with that drawing.
        """
        game = room.game
        viewer = connection.viewer
        ended = None
        try:
            kind = message.get("type")
            if kind == "table":  # the drawing of the table the page now shows
                room.show(connection, message.get("table"))
                return False
            if not isinstance(viewer, int):
                raise GameError("a spectator watches: only the seats play")
            async with room.lock:
                change = None
                if kind == "rematch":
                    self.rematch(room)
                elif kind in _PLAY and room.ended is not None:
                    raise GameError(room.ended)
                elif kind == "move":
                    change = game.plan_move(viewer, message.get("move"), message.get("seq"))
                elif kind == "undo":
                    change = game.plan_undo(viewer)
                elif kind == "continue":
                    change = game.plan_go_on(viewer)
                elif kind == "speed":
                    speed = message.get("speed")
                    if not isinstance(speed, str) or speed not in BOT_SPEEDS:
                        raise GameError(f"a bots' speed is one of {', '.join(BOT_SPEEDS)}")
                    room.speed = speed
                    return False
                elif kind == "hint":
                    move = await run_in_threadpool(game.hint, viewer)
                    reason = hint_reason(view_for(game.state, viewer), move)
                    hint = {"type": "hint", "move": str(move), "reason": reason, "seq": game.seq}
                    room.send(connection, json.dumps(hint))
                    return False
                else:
                    raise GameError(
                        "the messages are move, hint, undo, continue, speed, table and rematch"
                    )
                if change is not None:
                    await self._commit_or_replan(room, change, viewer, message)
                    ended = self.cap(room)
        except GameError as error:
            room.error(connection, str(error))
            return True  # bots stopped by a failed write try again
        room.broadcast()
        if ended is not None:
            room.tell_all(ended)
        return True


def storage_failure(error: sqlite3.Error) -> str:
    """What a sender is told when the store could not save its change."""
    return (
        f"the server could not save this ({error}): nothing was changed, "
        "and the match is as it was; try again"
    )


def token() -> str:
    """A new secret: 16 random bytes as URL-safe text (for keys, and the rematch's id)."""
    return secrets.token_urlsafe(16)
