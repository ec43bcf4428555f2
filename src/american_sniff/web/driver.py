"""The bot driver: the bots' moves, and the forced draws and passes, until a person is to choose.

:meth:`Driver.drive` starts one task per match (at most) whenever a bot or a
forced action is next; the task waits the bots' speed before each action,
asks the bot in a thread, and saves the move through
:meth:`Flow.commit <american_sniff.web.flow.Flow.commit>` like a person's.

**Several workers.** On the library's store
(:class:`~american_sniff.web.shared.LibraryStore`), a bot seat is driven
only by the worker that holds its lease (:data:`LEASE`, renewed at each
move); another waits, and takes the seat over if the lease lapses. A
worker that stops gives its leases up at once (:meth:`Driver.close`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import time

from starlette.concurrency import run_in_threadpool

from .flow import BOT_SPEEDS, Flow, Stale, token
from .game import GameError
from .rooms import Room
from .shared import LibraryStore

__all__ = ["FOLLOW", "LEASE", "Driver"]

#: Seconds a worker on the library's store (PostgreSQL) waits, beyond the
#: bots' delay, before it makes a forced draw or pass after another worker's
#: change: the worker that made the change makes the forced actions that
#: follow at once, and this one only if it did not (it died).
FOLLOW = 0.5

#: How long a worker's lease on driving a bot seat lasts, in seconds, when
#: the matches are in the library's store (PostgreSQL): a worker renews it at
#: each move, and a worker that dies lets it pass to another after this long.
LEASE = 3.0

#: After how many times :data:`LEASE` a lease this worker took has surely
#: lapsed, whatever the database's clock says: it forgets it then.
_LAPSED = 2

#: What the players are told when a bot's move could not be saved.
_BOTS_WAIT = "The bots try again when someone acts or reconnects."


class Driver:
    """The task of each match that plays its bots, and this worker's leases on bot seats.

    :param flow: How a change is saved and made.
    :param bot_delay: Seconds a bot waits before each action at the
        ``normal`` speed, so that a person can follow the play (0 in tests).
    :param lease: How long this worker's lease on driving a bot seat lasts
        (:data:`LEASE`), where the store has leases (the library's store).
    """

    def __init__(self, flow: Flow, bot_delay: float = 0.7, lease: float = LEASE) -> None:
        #: How a change is saved and made.
        self.flow = flow
        #: Seconds a bot waits before each action at the ``normal`` speed.
        self.bot_delay = bot_delay
        #: How long this worker's lease on driving a bot seat lasts, in seconds.
        self.lease = lease
        #: This worker's name in the bot seats' leases: its process id, a dash, a random part.
        self.worker = f"{os.getpid()}-{token()[:8]}"
        # Per match, each bot seat whose lease this worker took, and when it last
        # took it (time.monotonic); forgotten once that lease has surely lapsed.
        self._leases: dict[str, dict[int, float]] = {}
        self._pruned = time.monotonic()  # when the lapsed leases were last forgotten
        self._tasks: set[asyncio.Task[None]] = set()  # every task it started, done or not
        self._shared = isinstance(flow.store, LibraryStore)  # other workers may drive too

    def bot_wait(self, room: Room) -> float:
        """How long a bot of the match waits before each action, in seconds."""
        return self.bot_delay * BOT_SPEEDS[room.speed]

    def drive(self, room: Room) -> None:
        """Let the bots (and forced draws and passes) play until a person is to choose."""
        task = room.driver
        if (task is not None and not task.done()) or room.ended is not None:
            return
        game = room.game
        # A person is to choose (the usual case after a person's move): no task.
        # Every later change is followed by a call here, or made by the task.
        if game.forced() is None and not game.bot_to_move():
            return
        room.driver = task = asyncio.create_task(self._drive(room))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _drive(self, room: Room) -> None:
        game = room.game
        flow = self.flow
        waited = -1  # the log's length at which this task last left a forced action
        while True:
            async with room.lock:
                forced = game.forced()
                if forced is None and not game.bot_to_move():
                    return
                seat = game.state.turn
                elsewhere = self._shared and room.written < game.logged != waited
            if forced is not None and elsewhere:
                # Another worker wrote last: the forced actions that follow are its
                # to make (it goes on at once). Make them only if it does not.
                waited = game.logged
                await asyncio.sleep(self.bot_wait(room) + FOLLOW)
                async with room.lock:
                    with contextlib.suppress(GameError):
                        await flow.reload(room)
                continue
            if forced is None and not await self.holds(room.id, seat):
                # Another worker drives this bot: look again once it may have
                # moved, or its lease lapsed (it died).
                await asyncio.sleep(self.lease / 3)
                async with room.lock:
                    with contextlib.suppress(GameError):
                        await flow.reload(room)
                continue
            delay = self.bot_wait(room)
            if delay:
                await asyncio.sleep(delay)
            async with room.lock:
                move = game.forced()
                if move is None:
                    if not game.bot_to_move():
                        return
                    move = await run_in_threadpool(game.bot_move)
                try:
                    await flow.commit(room, game.plan_play(move))
                except Stale:
                    continue  # another server moved: look again at the fresh state
                except GameError as error:
                    room.tell_all(f"{error} {_BOTS_WAIT}")
                    return
                ended = flow.cap(room)
            room.broadcast()
            if ended is not None:
                room.tell_all(ended)
                return

    async def holds(self, match_id: str, seat: int) -> bool:
        """Whether this worker may drive ``seat``'s bot: it holds (or took) its lease.

        Always, where the store has no leases (one SQLite file); never while
        the database cannot be reached.
        """
        store = self.flow.store
        if not isinstance(store, LibraryStore):
            return True
        try:
            held = await asyncio.to_thread(store.lease, match_id, seat, self.worker, self.lease)
        except sqlite3.Error:
            return False
        if held:
            now = time.monotonic()
            self._leases.setdefault(match_id, {})[seat] = now
            if now - self._pruned > self.lease * _LAPSED:
                self._prune(now)
        return held

    def leases(self, match_id: str) -> bool:
        """Whether this worker drove a bot seat of ``match_id`` lately: its lease may still hold.

        A lease taken more than twice its time ago has lapsed (twice: the
        database's clock may run a little apart from this one's).
        """
        seats = self._leases.get(match_id)
        if not seats:
            return False
        return max(seats.values()) > time.monotonic() - self.lease * _LAPSED

    def _prune(self, now: float) -> None:
        """Forget the leases that have lapsed: only the matches driven lately are kept."""
        lapsed = now - self.lease * _LAPSED
        for match_id in [m for m, seats in self._leases.items() if max(seats.values()) <= lapsed]:
            del self._leases[match_id]
        self._pruned = now

    async def stop(self) -> None:
        """Stop every bot's task (and wait until each has stopped)."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def release(self) -> None:
        """Give up the bot seats' leases this worker took, so that others drive them at once."""
        store = self.flow.store
        if isinstance(store, LibraryStore):
            held = [(m, seat) for m, seats in self._leases.items() for seat in seats]
            for match_id, seat in held:
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(store.library.release, match_id, seat, self.worker)
