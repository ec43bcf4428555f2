"""The appends of other workers, heard on PostgreSQL, brought to this worker's rooms.

Where the store announces each append (the library's store on PostgreSQL,
``LISTEN/NOTIFY``), a :class:`Listener` thread waits for the announcements
of the matches held here, and of no others (each match is also announced on
a channel of its own, which the thread follows while the match is held, so a
worker is not woken for the many matches other workers hold), and passes
each to the event loop: a match held here whose log grew is read
again (:meth:`Flow.reload <american_sniff.web.flow.Flow.reload>`), its
browsers here are sent the fresh state, and its bots go on. A match held
here whose browsers another worker serves
(:attr:`Rooms.elsewhere <american_sniff.web.cache.Rooms.elsewhere>`: the
hand-off of :mod:`american_sniff.web.handoff`), and that nobody here uses
(no browser, no bot seat driven here, nothing under way: one created here,
say) is forgotten instead of followed; the next browser here reads it again. A lost
connection is opened again, and then every match held here is read again.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from typing import Any

from .cache import Rooms
from .driver import Driver
from .flow import Flow
from .game import GameError
from .rooms import Room
from .shared import LibraryStore
from .store import LogEntry

__all__ = ["GATHER", "WAIT", "Listener"]

#: How long the listening thread lets announcements gather after the first
#: of a batch, in seconds, before it hands them to the event loop at once.
#: Every worker hears every append of the database; woken for each, four
#: workers spent about a third of their CPU on the announcements.
GATHER = 0.01

#: How long the listening thread waits for an announcement at a time, in
#: seconds, before it looks for matches to follow or let go again.
WAIT = 0.05


class Listener:
    """The thread that hears the other workers' appends, and what it does with them.

    :param flow: How a match is read again (and so the rooms and the store).
    :param driver: The bot driver, to let the bots go on after an append.
    """

    def __init__(self, flow: Flow, driver: Driver) -> None:
        #: How a match is read again.
        self.flow = flow
        #: The bot driver.
        self.driver = driver
        self._listening: threading.Thread | None = None
        self._stop_listening = threading.Event()
        # The matches to follow (True) or no longer (False), in the order the
        # rooms were held and forgotten: the listening thread's to do.
        self._watched: queue.SimpleQueue[tuple[str, bool]] = queue.SimpleQueue()

    @property
    def rooms(self) -> Rooms:
        """The matches held in memory."""
        return self.flow.rooms

    def start(self) -> None:
        """Listen for the appends of other workers, where the store announces them (PostgreSQL).

        Called when the application starts; :meth:`stop` stops it.

        :raises sqlite3.Error: if the database cannot be reached.
        """
        store = self.flow.store
        if not isinstance(store, LibraryStore) or self._listening is not None:
            return
        heard = store.listen(every=False)
        if heard is None:
            return
        loop = asyncio.get_running_loop()
        rooms = self.rooms
        rooms.watch = self._watch
        for room in rooms:  # (held before it listened)
            self._watch(room.id, True)
        self._listening = threading.Thread(
            target=self._listen, args=(heard, loop), name="american-sniff-listener", daemon=True
        )
        self._listening.start()

    async def stop(self) -> None:
        """Stop listening (and wait for the thread to end)."""
        self._stop_listening.set()
        if self._listening is not None:
            await asyncio.to_thread(self._listening.join)

    def _watch(self, match_id: str, held: bool) -> None:
        """Follow ``match_id``'s appends from now on (``held``), or no longer: the thread will."""
        self._watched.put((match_id, held))

    def _listen(self, heard: Any, loop: asyncio.AbstractEventLoop) -> None:
        """Pass each announced append to the event loop, until :meth:`stop` (in a thread).

        It hears only the matches held here (:attr:`Rooms.watch
        <american_sniff.web.cache.Rooms.watch>`): it follows each as it is
        held, and then has it read again, since what was appended between
        its reading and the following was announced to nobody here. A lost
        connection is opened again (every second until it opens), follows
        the same matches, and then every match held here is read again: what
        was announced meanwhile was lost with the connection.
        """
        followed: set[str] = set()
        while not self._stop_listening.is_set():
            try:
                if heard is None:
                    heard = self.flow.store.listen(every=False)  # type: ignore[attr-defined]
                    for match_id in followed:
                        heard.follow(match_id)
                    loop.call_soon_threadsafe(self._catch_up_all)
                self._follow(heard, followed, loop)
                appended = heard.wait(WAIT)
                if appended:  # let the others on their way come too: one wake for them all
                    self._stop_listening.wait(GATHER)
                    appended += heard.wait(0)
            except RuntimeError:  # pragma: no cover - the event loop closed first
                break
            except Exception:  # the connection was lost: listen again, then catch up
                with contextlib.suppress(Exception):
                    heard.close()
                heard = None
                self._stop_listening.wait(1.0)
                continue
            if not appended:
                continue
            try:  # one wake of the event loop for all that came together
                loop.call_soon_threadsafe(self._announced_all, appended)
            except RuntimeError:  # pragma: no cover - the event loop closed first
                break
        if heard is not None:
            with contextlib.suppress(Exception):
                heard.close()

    def _follow(self, heard: Any, followed: set[str], loop: asyncio.AbstractEventLoop) -> None:
        """Follow the matches held since the last look, and no longer those let go (a thread's)."""
        newly = []
        while True:
            try:
                match_id, held = self._watched.get_nowait()
            except queue.Empty:
                break
            if held:
                followed.add(match_id)  # (first: a lost connection follows it again)
                heard.follow(match_id)
                newly.append(match_id)
            else:
                followed.discard(match_id)
                heard.unfollow(match_id)
        if newly:
            loop.call_soon_threadsafe(self._followed, newly)

    def _followed(self, newly: list[str]) -> None:
        """Read again each match just followed: what was appended meanwhile was heard by nobody.

        (Between the match's reading and its following, the appends were
        announced to nobody here.)
        """
        for match_id in newly:
            room = self.rooms.get(match_id)
            if room is not None:
                self._read_again(room)

    def _catch_up_all(self) -> None:
        """Read again every match held here whose log grew (after a lost listening connection)."""
        for room in self.rooms:
            self._announced(room.id, room.game.logged + 1)

    def _announced_all(self, appended: Any) -> None:
        """Each announced append of a batch, in order (``Appended`` values)."""
        for note in appended:
            entry = None if note.entry is None else LogEntry(note.entry.kind, note.entry.value)
            self._announced(note.match_id, note.length, entry)

    def _announced(self, match_id: str, length: int, entry: LogEntry | None = None) -> None:
        """A worker appended ``entry`` to ``match_id``'s log, which holds ``length`` entries now."""
        room = self.rooms.get(match_id)
        if room is None:
            return  # let go here since (a match is read again once followed)
        if room.game.logged < length:  # (else this worker's own append)
            elsewhere = self.rooms.elsewhere
            if (
                elsewhere is not None
                and not room.sockets
                and elsewhere(match_id)
                and not self.driver.leases(match_id)
                and self.rooms.let_go(room)
            ):
                return  # followed by the worker that serves its browsers, by nobody here
            self._behind(room, length, entry)

    def _read_again(self, room: Room) -> None:
        """The log of ``room``'s match grew by an unknown number of entries: read it again."""
        self._behind(room, room.game.logged + 1, None)

    def _behind(self, room: Room, length: int, entry: LogEntry | None) -> None:
        """The copy of ``room``'s match is behind its log: catch up, in a task of its own.

        The tasks take the match's lock in the order they were made, which is
        the order of the announcements.
        """
        task = asyncio.create_task(self._catch_up(room, length, entry))
        closing = self.rooms.closing
        closing.add(task)
        task.add_done_callback(closing.discard)

    async def _catch_up(self, room: Room, length: int, entry: LogEntry | None) -> None:
        """Take the entry announced (or read the match again), tell its browsers, let bots go on."""
        async with room.lock:
            try:
                await self.flow.follow(room, length, entry)
            except GameError:
                return
        self.driver.drive(room)
