"""The browser game's ASGI application (Starlette): pages, a JSON API and one WebSocket per browser.

Routes:

* ``GET /``: the start page (set up a match, open a record in the viewer);
  ``GET /play/{id}``: the game page; ``GET /replay``: the replay viewer. The
  pages are package data (``web/static``) and need no build step.
* ``POST /api/matches``: a new match; answers with each human seat's link and
  the spectator link. A ``seed`` may be given only when one seat is a
  person's: a match between people is always dealt from the operating
  system's generator (:mod:`secrets`), and its seed is in no message, link or
  record given to a player before the match is over.
  Each link carries its secret token after ``#``, so that
  it never reaches a server log.
* ``GET /api/matches?key=KEY``: the stored matches with their links, for the
  server's operator (the key is printed by ``american-sniff serve``).
* ``GET /api/matches/{id}/record?token=T``: the match's record (a download).
  A finished match's record is given to any of its links; a running match's
  only with the operator's key, since it holds every hand and the stock.
* ``POST /api/replay?key=KEY`` (or ``?match=ID&token=T``, any link of a
  stored match): a record's text in, the replay viewer's frames out. The
  record is at most :data:`MAX_REPLAY_BYTES` (1 MiB; more is refused with
  413 as soon as it is seen) and
  :data:`~american_sniff.web.frames.MAX_REPLAY_ACTIONS` actions (413). The
  frames come a page at a time: ``start`` (default 0) and ``count`` (1 to
  :data:`~american_sniff.web.frames.PAGE`, the default); the answer's
  ``total`` says how many there are. At most two replays are drawn at once,
  in threads, and a replay whose client goes away stops.
  ``GET /api/matches/{id}/frames?token=T&start=N``: the same for a stored
  match, as its record is given.
* ``WS /ws/{id}``: the game. The browser's first message is
  ``{"type": "hello", "token": T}``; from then on the server sends
  ``{"type": "state", ...}`` after every change, holding the view document of
  the token's seat or the spectator view (:mod:`american_sniff.web.hosting`),
  the event of the last action as that viewer sees it
  (:func:`~american_sniff.views.event_for`), and pictures made from the view
  (the table and the tallies), and nothing else. A hello with
  ``"pictures": false`` (a scripted client that does not draw) gets the
  messages without the pictures, which are then not drawn for it. The browser sends ``move``
  (with the ``seq`` it saw), ``hint``, ``undo``, ``continue``, ``speed`` and,
  once the match is over, ``rematch``: a new match with the same seats, links
  and names and a fresh seed (one per match, however many ask), whose id every
  payload then names as ``rematch``. ``{"type": "speed", "speed": S}`` sets
  how fast the match's bots play (one of :data:`BOT_SPEEDS`; a seat's hello
  may carry ``"speed"`` too, where a value not in the list is ignored): the
  last seat to say it sets it for the whole match.

Limits and refusals (the numbers are in :mod:`american_sniff.web.limits`
and :mod:`american_sniff.web.serving`, and ``docs/playing-browser.md``):

* every message to a browser goes through its own queue of at most
  :data:`SEND_QUEUE` messages, sent by a task of its own; a browser that
  lets the queue fill (it does not read) is dropped with close code 4408,
  and the page reconnects. Nobody else waits on it;
* a browser's message is text of at most 4,096 characters, nested at most 4
  deep; anything else (binary, too long, too deep, not an object) gets an
  ``error`` message and the socket goes on;
* ``POST /api/matches``: 10 matches at once per client address, then one
  every 6 seconds (429 with ``Retry-After``);
* a ``POST`` or a WebSocket whose ``Origin`` names another site is refused
  (403, or an ``error`` message and close code 4403);
* request headers over 16 KiB get 431;
* every write to the database is made by a thread of its own
  (:class:`~american_sniff.web.store.Writer`), which commits every entry
  waiting in one transaction: no commit runs on the event loop;
* a change that the database cannot save (a full disk, a read-only file) is
  not made: its sender gets an ``error`` message saying so (for a bot's
  move, every browser of the match does), the match stays as it was, and it
  can be tried again.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import json
import math
import secrets
import sqlite3
import threading
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..errors import InvalidRecord
from ..layout import Layout
from ..records import MatchRecord
from ..render import render_svg, tally_svg
from ..state import MatchState
from ..views import event_for, event_to_dict, spectator_view, view_for
from .frames import MAX_REPLAY_ACTIONS, NARROW_PAGE, PAGE, Stopped, record_actions, record_frames
from .game import BOT_KINDS, HUMAN, Change, Game, GameError, new_setup
from .hints import hint_reason
from .hosting import viewer_document
from .limits import MAX_DEPTH, MAX_HEADER_BYTES, MAX_MESSAGE, RateLimit, json_depth, same_origin
from .store import Store, StoredMatch, Writer

__all__ = [
    "BOT_SPEEDS",
    "FORGET_AFTER",
    "MAX_REPLAY_BYTES",
    "SEND_QUEUE",
    "STATIC",
    "Connection",
    "Server",
    "create_app",
]

#: The directory of the pages, scripts and styles.
STATIC = Path(str(resources.files("american_sniff.web") / "static"))

#: The bots' speeds a seat may choose, each as the factor of the server's
#: ``bot_delay`` that a bot waits before each action: ``instant`` does not
#: wait, ``normal`` waits ``bot_delay`` (0.7 s unless the server says
#: otherwise), ``slow`` twice as long.
BOT_SPEEDS: dict[str, float] = {"instant": 0.0, "normal": 1.0, "slow": 2.0}

#: How many messages may wait to be sent to one WebSocket. A browser that
#: lets more pile up (it does not read) is dropped: nobody else waits on it.
SEND_QUEUE = 32

#: How long a match stays in memory once nobody is connected to it, in
#: seconds. Then it is forgotten (the store holds it) and loaded again by the
#: next browser that comes, so that a long-running server holds the matches
#: being played, not every match it has served.
FORGET_AFTER = 60.0

#: The largest record ``POST /api/replay`` reads, in bytes (1 MiB).
MAX_REPLAY_BYTES = 1 << 20

#: How many replays are drawn at once; more wait their turn.
_REPLAYS_AT_ONCE = 2

#: Why a request from another site's page is refused.
_CROSS_SITE = (
    "this server takes moves and new matches only from its own pages "
    "(the request came from a page of another site)"
)

#: What the players are told when a bot's move could not be saved.
_BOTS_WAIT = "The bots try again when someone acts or reconnects."

#: The close code of a WebSocket dropped for not reading (the page reconnects).
_TOO_SLOW = 4408


def _svg(document: str) -> str:
    """An SVG document without its XML declaration, to go inline in a page."""
    if document.startswith("<?xml"):
        document = document.split("\n", 1)[1]
    return document


class Connection:
    """One browser's open WebSocket: who it is and its bounded queue of messages to send.

    Messages are put in the queue without waiting (:meth:`offer`), and a task
    of its own (:meth:`pump`) sends them one by one, so a browser that does
    not read holds up only its own queue. When the queue is full the
    connection is dropped.

    :param socket: The WebSocket.
    :param viewer: The seat number, or :data:`~american_sniff.web.hosting.SPECTATOR`.
    :param limit: The most messages that may wait (:data:`SEND_QUEUE`).
    :param pictures: Whether its messages carry the pictures (the browser's
        page draws them; a scripted client may say it does not want them).
    """

    def __init__(
        self,
        socket: WebSocket,
        viewer: int | str,
        limit: int = SEND_QUEUE,
        *,
        pictures: bool = True,
    ) -> None:
        self.socket = socket
        self.viewer = viewer
        self.pictures = pictures
        self.dropped = False
        self._queue: asyncio.Queue[str] = asyncio.Queue(limit)

    def offer(self, text: str) -> bool:
        """Queue ``text`` to be sent; False, and the connection dropped, if the queue is full."""
        if self.dropped:
            return False
        try:
            self._queue.put_nowait(text)
        except asyncio.QueueFull:
            self.dropped = True
            return False
        return True

    async def pump(self) -> None:
        """Send the queued messages until cancelled or the socket fails."""
        try:
            while True:
                text = await self._queue.get()
                await self.socket.send_text(text)
        except Exception:  # the browser went away
            self.dropped = True


class Server:
    """The state of one running server: the store, the games in memory, the open sockets.

    :param store: Where matches are kept.
    :param bot_delay: Seconds a bot waits before each action, so that a
        person can follow the play (0 in tests).
    :param creations: The rate limit on new matches per client address
        (:class:`~american_sniff.web.limits.RateLimit`: 10 at once, then one
        every 6 seconds).
    :param forget_after: How long a match nobody is connected to stays in
        memory, in seconds (:data:`FORGET_AFTER`).
    """

    def __init__(
        self,
        store: Store,
        bot_delay: float = 0.7,
        creations: RateLimit | None = None,
        forget_after: float = FORGET_AFTER,
    ) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.forget_after = forget_after
        self.creations = RateLimit() if creations is None else creations
        self.key = store.meta("key", _token())
        self._games: dict[str, Game] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._sockets: dict[str, dict[Connection, asyncio.Task[None]]] = {}
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self._rematches: dict[str, str] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self._pictures: dict[str, tuple[MatchState, dict[str, Any], str]] = {}
        self._tables: dict[str, dict[str, tuple[Layout, str]]] = {}
        self._texts: dict[str, tuple[Game, int, dict[int | str, tuple[str, str]]]] = {}
        self._replays = asyncio.Semaphore(_REPLAYS_AT_ONCE)
        self._speeds: dict[str, str] = {}  # the bots' speed a seat chose, by match
        self._unwritten: collections.Counter[str] = collections.Counter()  # writes, by match
        self._arriving: collections.Counter[str] = collections.Counter()  # hellos awaited
        self._forgetting: dict[str, asyncio.TimerHandle] = {}
        self.writer = Writer(store)

    # -- games -------------------------------------------------------------------------

    def game(self, match_id: str) -> Game | None:
        """The match ``match_id``, loaded from the store the first time."""
        game = self._games.get(match_id)
        if game is None:
            stored = self._read(match_id)
            if stored is not None:
                game = self._loaded(*stored)
        return game

    async def load(self, match_id: str) -> Game | None:
        """:meth:`game`, with the database read in a thread (off the event loop)."""
        game = self._games.get(match_id)
        if game is not None:
            return game
        stored = await asyncio.to_thread(self._read, match_id)
        if stored is None:
            return None
        return self._games.get(match_id) or self._loaded(*stored)

    def _read(self, match_id: str) -> tuple[StoredMatch, str | None] | None:
        """The stored match and the id of its rematch, if it has one; None for no such match."""
        stored = self.store.load(match_id)
        if stored is None:
            return None
        return stored, self.store.meta_of(f"rematch {match_id}")

    def _loaded(self, stored: StoredMatch, rematch: str | None) -> Game:
        """The game of ``stored``, now in memory (with its rematch, offered before)."""
        game = self._games[stored.id] = Game(stored, self.store)
        if rematch is not None:
            self._rematches[stored.id] = rematch
        self._idle(stored.id)
        return game

    def in_memory(self, match_id: str) -> bool:
        """Whether the match ``match_id`` is held in memory now (see :data:`FORGET_AFTER`)."""
        return match_id in self._games

    def _idle(self, match_id: str) -> None:
        """Forget the match after :attr:`forget_after` seconds, unless someone is connected then."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # called outside the server's loop (a script): kept
            return
        handle = self._forgetting.pop(match_id, None)
        if handle is not None:
            handle.cancel()
        self._forgetting[match_id] = loop.call_later(self.forget_after, self._forget, match_id)

    def _forget(self, match_id: str) -> None:
        """Drop the match from memory if nobody uses it: no browser, no bot, no write waiting.

        The store holds everything the match needs; :meth:`load` reads it
        again. A match still in use is looked at again later, and one with a
        browser connected when its last one leaves.
        """
        self._forgetting.pop(match_id, None)
        if self._sockets.get(match_id) or self._arriving[match_id]:
            return  # the last browser to leave looks again
        lock = self._locks.get(match_id)
        driver = self._drivers.get(match_id)
        if (
            (lock is not None and lock.locked())
            or (driver is not None and not driver.done())
            or self._unwritten[match_id]
        ):
            self._idle(match_id)
            return
        for table in (
            self._games,
            self._locks,
            self._sockets,
            self._drivers,
            self._rematches,
            self._pictures,
            self._tables,
            self._texts,
            self._speeds,
        ):
            table.pop(match_id, None)

    def speed(self, match_id: str) -> str:
        """The bots' speed of the match ``match_id``: the last a seat chose, else ``normal``."""
        return self._speeds.get(match_id, "normal")

    def bot_wait(self, match_id: str) -> float:
        """How long a bot of the match ``match_id`` waits before each action, in seconds."""
        return self.bot_delay * BOT_SPEEDS[self.speed(match_id)]

    def lock(self, match_id: str) -> asyncio.Lock:
        """The lock every change of the match holds."""
        return self._locks.setdefault(match_id, asyncio.Lock())

    def links(self, game: Game, base: str) -> dict[str, Any]:
        """Each human seat's link and the spectator link of ``game``."""
        seats = [
            {"seat": n, "kind": s.kind, "name": s.name, "url": f"{base}play/{game.id}#{s.token}"}
            for n, s in enumerate(game.setup.seats)
            if s.token is not None
        ]
        spectator = f"{base}play/{game.id}#{game.setup.spectator}"
        return {"id": game.id, "seats": seats, "spectator": spectator}

    def payload(self, game: Game, viewer: int | str) -> dict[str, Any]:
        """The message that tells ``viewer`` how the match stands: its view and nothing more."""
        state = game.state
        doc = viewer_document(state, viewer)
        seat = viewer if isinstance(viewer, int) else None
        return {
            **self._members(game, viewer),
            "rematch": self._rematches.get(game.id),
            "view": doc,
            "event": None if game.seq == 0 else event_to_dict(event_for(state, seat)),
            "settled": doc["last_round"] is not None,
            **self.pictures(game),
        }

    def _members(self, game: Game, viewer: int | str) -> dict[str, Any]:
        """The payload's small members that change with the match (all but the rematch)."""
        return {
            "type": "state",
            "match": game.id,
            "you": viewer,
            "seats": [s.kind for s in game.setup.seats],
            "names": [s.name for s in game.setup.seats],
            "waiting_for": game.waiting_for(),
            "can_undo": isinstance(viewer, int) and game.undo_point(viewer) is not None,
        }

    def _seen(self, game: Game, viewer: int | str) -> tuple[str, str]:
        """The JSON text of the payload's members before ``rematch``, and after it.

        Made once per change of the match and viewer, by the library's own
        writers (``to_json``), which keep the pieces that views share (the
        table, the histories, the last round), and the same text for every
        socket of one viewer.
        """
        cached = self._texts.get(game.id)
        if cached is not None and cached[0] is game and cached[1] == game.version:
            seen = cached[2]
        else:
            seen = {}
            self._texts[game.id] = (game, game.version, seen)
        made = seen.get(viewer)
        if made is None:
            state = game.state
            seat = viewer if isinstance(viewer, int) else None
            view = spectator_view(state) if seat is None else view_for(state, seat)
            event = "null" if game.seq == 0 else event_for(state, seat).to_json()
            settled = "false" if view.last_round is None else "true"
            head = json.dumps(self._members(game, viewer))[:-1]
            made = seen[viewer] = (
                head,
                f'"view": {view.to_json()}, "event": {event}, "settled": {settled}',
            )
        return made

    def pictures(self, game: Game) -> dict[str, Any]:
        """The pictures of ``game``'s state (the tables and the tallies), drawn once per state.

        They show only what every viewer sees, so every browser gets the same.
        A table is drawn again only when it changed: a draw or a pass keeps
        the table, and the last round's table stays for a whole round.
        """
        return self._drawn(game)[0]

    def _drawn(self, game: Game) -> tuple[dict[str, Any], str]:
        """:meth:`pictures`, and their JSON text (the members of an object, no braces)."""
        state = game.state
        cached = self._pictures.get(game.id)
        if cached is not None and cached[0] is state:
            return cached[1], cached[2]
        tables = self._tables.setdefault(game.id, {})
        last = state.last_round
        pictures = {
            "table": _table(tables, "table", state.layout),
            "table_narrow": _table(tables, "narrow", state.layout, NARROW_PAGE),
            "last_table": None if last is None else _table(tables, "last", last.layout),
            "tallies": [_tally(score) for score in state.scores],
        }
        text = json.dumps(pictures)[1:-1]
        self._pictures[game.id] = (state, pictures, text)
        return pictures, text

    def text(self, game: Game, viewer: int | str, *, pictures: bool = True) -> str:
        """:meth:`payload` as JSON text (without the pictures if ``pictures`` is false).

        The view and the event are made once per change of the match and
        viewer, the pictures once per state (the same for every viewer) and
        only if some browser wants them; only the small members are made for
        each message.
        """
        head, seen = self._seen(game, viewer)
        rematch = self._rematches.get(game.id)
        link = "null" if rematch is None else json.dumps(rematch)
        if not pictures:
            return f'{head}, "rematch": {link}, {seen}}}'
        return f'{head}, "rematch": {link}, {seen}, {self._drawn(game)[1]}}}'

    def rematch(self, game: Game) -> str:
        """The id of ``game``'s rematch, made the first time it is asked for (under its lock).

        The link is kept in the store's meta table, so that a restarted server
        gives the same rematch.

        :raises GameError: if the match is not over.
        """
        if game.state.winner is None:
            raise GameError("a rematch is offered once the match is over")
        candidate = _token()[:12]
        chosen = self.store.meta(f"rematch {game.id}", candidate)
        if chosen == candidate:
            self._games[chosen] = Game.create(self.store, game.setup.again(), chosen)
            self._idle(chosen)
        self._rematches[game.id] = chosen
        return chosen

    async def broadcast(self, game: Game) -> None:
        """Queue every browser of ``game`` its payload; drop the browsers that do not read.

        Nothing here waits on a browser: each has its own queue and sender.
        """
        for connection in list(self._sockets.get(game.id, {})):
            self.send(
                game.id,
                connection,
                self.text(game, connection.viewer, pictures=connection.pictures),
            )

    def send(self, match_id: str, connection: Connection, text: str) -> None:
        """Queue ``text`` for ``connection``, and drop it if its queue is full."""
        if connection.offer(text):
            return
        pump = self._sockets.get(match_id, {}).pop(connection, None)
        if pump is not None:
            pump.cancel()
        task = asyncio.create_task(_close(connection.socket, _TOO_SLOW, "too slow: reconnect"))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def drive(self, game: Game) -> None:
        """Let the bots (and forced draws and passes) play until a person is to choose."""
        task = self._drivers.get(game.id)
        if task is not None and not task.done():
            return
        # A person is to choose (the usual case after a person's move): no task.
        # Every later change is followed by a call here, or made by the task.
        if game.forced() is None and not game.bot_to_move():
            return
        self._drivers[game.id] = asyncio.create_task(self._drive(game))

    async def _drive(self, game: Game) -> None:
        while True:
            async with self.lock(game.id):
                forced = game.forced()
                if forced is None and not game.bot_to_move():
                    return
            delay = self.bot_wait(game.id)
            if delay:
                await asyncio.sleep(delay)
            async with self.lock(game.id):
                move = game.forced()
                if move is None:
                    if not game.bot_to_move():
                        return
                    move = await run_in_threadpool(game.bot_move)
                try:
                    await self.commit(game, game.plan_play(move))
                except GameError as error:
                    for connection in list(self._sockets.get(game.id, {})):
                        self._error(game.id, connection, f"{error} {_BOTS_WAIT}")
                    return
            await self.broadcast(game)

    async def commit(self, game: Game, change: Change) -> None:
        """Write ``change`` to the store, then make it in ``game``; a failed write changes nothing.

        The write is the :class:`~american_sniff.web.store.Writer`'s, in its
        thread: the event loop goes on meanwhile.

        :raises GameError: if the store cannot write (full disk, read-only
            file, a broken database): the message says so, for the players.
        """
        self._unwritten[game.id] += 1
        written = asyncio.wrap_future(self.writer.submit(game.id, change.entry))

        def made(future: asyncio.Future[int]) -> None:
            # Made when written, even if the task that waits is cancelled meanwhile:
            # the memory never falls behind the log.
            _done_one(self._unwritten, game.id)
            if not future.cancelled() and future.exception() is None:
                game.take(change)

        written.add_done_callback(made)
        try:
            await asyncio.shield(written)
        except sqlite3.Error as error:
            raise GameError(_storage_failure(error)) from None

    async def close(self) -> None:
        """Stop the bots' tasks and close the store."""
        for handle in self._forgetting.values():
            handle.cancel()
        for task in self._drivers.values():
            task.cancel()
        for task in self._drivers.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await asyncio.to_thread(self.writer.close)
        self.store.close()

    # -- the WebSocket -----------------------------------------------------------------

    async def socket(self, socket: WebSocket) -> None:
        """One browser's connection to one match."""
        await socket.accept()
        if not same_origin(socket.headers):
            await socket.send_json({"type": "error", "message": _CROSS_SITE})
            await socket.close(code=4403)
            return
        match_id = socket.path_params["match_id"]
        game = await self.load(match_id)
        viewer = None
        pictures = True
        if game is not None:
            try:
                viewer, pictures = await self._greeted(socket, game)
            except WebSocketDisconnect:
                return
        if game is None or viewer is None:
            await socket.send_json({"type": "error", "message": "no match has this link"})
            await socket.close(code=4404)
            return
        connection = Connection(socket, viewer, pictures=pictures)
        pump = asyncio.create_task(connection.pump())
        self._sockets.setdefault(match_id, {})[connection] = pump
        try:
            self.send(match_id, connection, self.text(game, viewer, pictures=pictures))
            self.drive(game)
            while not connection.dropped and not pump.done():
                try:
                    text = await _receive(socket)
                except GameError as error:
                    self._error(match_id, connection, str(error))
                    continue
                await self._message(game, connection, text)
        except WebSocketDisconnect:
            pass
        finally:
            sockets = self._sockets.get(match_id, {})
            sockets.pop(connection, None)
            pump.cancel()
            if not sockets:
                self._idle(match_id)

    async def _greeted(self, socket: WebSocket, game: Game) -> tuple[int | str | None, bool]:
        """The viewer whose token the browser's hello gives (None: none), and whether it draws.

        The browser counts as connected while its hello is awaited, so that
        the match is not forgotten meanwhile (the browser would keep a game
        that nobody else has).

        :raises WebSocketDisconnect: if the browser went away.
        """
        match_id = game.id
        self._arriving[match_id] += 1
        viewer = None
        try:
            hello = _parse(await _receive(socket))
            token = hello.get("token")
            viewer = game.viewer(token) if isinstance(token, str) else None
            speed = hello.get("speed")
            if isinstance(viewer, int) and isinstance(speed, str) and speed in BOT_SPEEDS:
                self._speeds[match_id] = speed
            return viewer, hello.get("pictures", True) is not False
        except GameError:
            return None, True
        finally:
            _done_one(self._arriving, match_id)
            if viewer is None and not self._arriving[match_id] and not self._sockets.get(match_id):
                self._idle(match_id)

    def _error(self, match_id: str, connection: Connection, message: str) -> None:
        self.send(match_id, connection, json.dumps({"type": "error", "message": message}))

    async def _message(self, game: Game, connection: Connection, text: str) -> None:
        """Carry out one message of a browser and answer it."""
        viewer = connection.viewer
        try:
            message = _parse(text)
            kind = message.get("type")
            if not isinstance(viewer, int):
                raise GameError("a spectator watches: only the seats play")
            async with self.lock(game.id):
                change = None
                if kind == "move":
                    change = game.plan_move(viewer, message.get("move"), message.get("seq"))
                elif kind == "undo":
                    change = game.plan_undo(viewer)
                elif kind == "continue":
                    change = game.plan_go_on(viewer)
                elif kind == "rematch":
                    self.rematch(game)
                elif kind == "speed":
                    speed = message.get("speed")
                    if not isinstance(speed, str) or speed not in BOT_SPEEDS:
                        raise GameError(f"a bots' speed is one of {', '.join(BOT_SPEEDS)}")
                    self._speeds[game.id] = speed
                    return
                elif kind == "hint":
                    move = await run_in_threadpool(game.hint, viewer)
                    reason = hint_reason(view_for(game.state, viewer), move)
                    hint = {"type": "hint", "move": str(move), "reason": reason, "seq": game.seq}
                    self.send(game.id, connection, json.dumps(hint))
                    return
                else:
                    raise GameError(
                        "the messages are move, hint, undo, continue, speed and rematch"
                    )
                if change is not None:
                    await self.commit(game, change)
        except GameError as error:
            self._error(game.id, connection, str(error))
            self.drive(game)  # bots stopped by a failed write try again
            return
        await self.broadcast(game)
        self.drive(game)

    # -- HTTP --------------------------------------------------------------------------

    async def create(self, request: Request) -> Response:
        """``POST /api/matches``: a new match from ``{"players", "seats", "seed"}``."""
        if not same_origin(request.headers):
            return _refuse(_CROSS_SITE, 403)
        address = request.client.host if request.client is not None else ""
        wait = self.creations.take(address)
        if wait:
            return JSONResponse(
                {
                    "error": f"too many new matches from this address: try again in "
                    f"{math.ceil(wait)} s (at most {self.creations.burst} at once, then one "
                    f"every {self.creations.every:g} s)"
                },
                status_code=429,
                headers={"Retry-After": str(math.ceil(wait))},
            )
        try:
            body = await request.json()
        except ValueError:
            return _refuse("the request is not JSON")
        if not isinstance(body, dict):
            return _refuse("the request is a JSON object")
        seats = body.get("seats")
        people = sum(1 for kind in seats if kind == HUMAN) if isinstance(seats, list) else 0
        if people > 1 and body.get("seed") is not None:
            return _refuse(
                "a match between people is dealt from the server's own random seed: "
                "leave out the seed (a chosen seed would tell its chooser every hand)"
            )
        try:
            setup = new_setup(body.get("players"), seats, body.get("seed"), body.get("names"))
        except GameError as error:
            return _refuse(str(error))
        try:
            game = await asyncio.to_thread(Game.create, self.store, setup)
        except sqlite3.Error as error:
            return _refuse(_storage_failure(error), 503)
        self._games[game.id] = game
        self._idle(game.id)
        return JSONResponse(self.links(game, str(request.base_url)), status_code=201)

    async def matches(self, request: Request) -> Response:
        """``GET /api/matches?key=KEY``: every stored match with its links (the operator's)."""
        if request.query_params.get("key") != self.key:
            return _refuse("the list of matches needs the server's key", 403)
        listed = []
        for match_id in self.store.ids():
            game = self.game(match_id)
            if game is None:  # pragma: no cover - the ids come from the store
                continue
            state = game.state
            listed.append(
                {
                    **self.links(game, str(request.base_url)),
                    "players": game.setup.players,
                    "kinds": [s.kind for s in game.setup.seats],
                    "round": state.round,
                    "scores": list(state.scores),
                    "winner": state.winner,
                }
            )
        return JSONResponse({"matches": listed})

    def _record_of(self, request: Request) -> tuple[Game | None, MatchRecord | Response]:
        game = self.game(request.path_params["match_id"])
        if game is None:
            return None, _refuse("there is no such match", 404)
        token = request.query_params.get("token", "")
        key = request.query_params.get("key", "")
        if key != self.key:
            if game.viewer(token) is None:
                return game, _refuse("this link is not one of the match's", 403)
            if game.state.winner is None:
                return game, _refuse(
                    "a running match's record holds every hand: it is given when the match "
                    "is over, or to the server's operator",
                    403,
                )
        return game, game.record()

    async def record(self, request: Request) -> Response:
        """``GET /api/matches/{id}/record``: the record, as a file to save."""
        game, record = self._record_of(request)
        if isinstance(record, Response):
            return record
        assert game is not None
        return Response(
            record.to_json(pretty=True),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="sniff-{game.id}.json"'},
        )

    async def frames(self, request: Request) -> Response:
        """``GET /api/matches/{id}/frames``: the replay viewer's frames of a stored match."""
        _, record = self._record_of(request)
        if isinstance(record, Response):
            return record
        return await self._frames_page(request, record)

    async def replay(self, request: Request) -> Response:
        """``POST /api/replay``: the replay viewer's frames of the record sent, a page at a time."""
        if not same_origin(request.headers):
            return _refuse(_CROSS_SITE, 403)
        if not self._may_replay(request):
            return _refuse(
                "replaying a record needs the server's key or a link of one of its matches", 403
            )
        body = await _body(request, MAX_REPLAY_BYTES)
        if body is None:
            return _refuse(f"a record to replay is at most {MAX_REPLAY_BYTES >> 20} MiB", 413)
        try:
            record = MatchRecord.from_json(body)
        except (InvalidRecord, ValueError) as error:
            return _refuse(f"this record cannot be replayed: {error}")
        return await self._frames_page(request, record)

    def _may_replay(self, request: Request) -> bool:
        """Whether ``request`` has the operator's key or a link (``match`` and ``token``)."""
        if secrets.compare_digest(request.query_params.get("key", ""), self.key):
            return True
        match_id = request.query_params.get("match", "")
        game = self.game(match_id) if match_id else None
        return game is not None and game.viewer(request.query_params.get("token", "")) is not None

    async def _frames_page(self, request: Request, record: MatchRecord) -> Response:
        """The page of ``record``'s frames that ``start`` and ``count`` ask for."""
        actions = record_actions(record)
        if actions > MAX_REPLAY_ACTIONS:
            return _refuse(
                f"this record has {actions} actions: the server replays at most "
                f"{MAX_REPLAY_ACTIONS}",
                413,
            )
        try:
            start = int(request.query_params.get("start", "0"))
            count = int(request.query_params.get("count", str(PAGE)))
        except ValueError:
            return _refuse("start and count are whole numbers")
        if start < 0 or not 1 <= count <= PAGE:
            return _refuse(f"start is 0 or more, and count from 1 to {PAGE}")
        stop = threading.Event()
        async with self._replays:
            try:
                frames = await _unless_gone(request, stop, record_frames, record, start, count)
            except InvalidRecord as error:
                return _refuse(f"this record cannot be replayed: {error}")
            except Stopped:
                return _refuse("the client went away", 499)
        return JSONResponse(frames)

    async def kinds(self, request: Request) -> Response:
        """``GET /api/kinds``: who may sit in a seat."""
        return JSONResponse({"kinds": [HUMAN, *BOT_KINDS]})


async def _receive(socket: WebSocket) -> str:
    """The next text message of ``socket``.

    :raises WebSocketDisconnect: if the browser went away.
    :raises GameError: for a binary frame or a message over :data:`MAX_MESSAGE`.
    """
    message = await socket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text")
    if not isinstance(text, str):
        raise GameError("a message is a JSON object, sent as text")
    if len(text) > MAX_MESSAGE:
        raise GameError("the message is too long")
    return text


def _parse(text: str) -> dict[str, Any]:
    """A browser's message as a JSON object.

    :raises GameError: if it is not one.
    """
    if json_depth(text) > MAX_DEPTH:
        raise GameError(f"a message nests at most {MAX_DEPTH} levels deep")
    try:
        message = json.loads(text)
    except ValueError:
        raise GameError("a message is a JSON object") from None
    if not isinstance(message, dict):
        raise GameError("a message is a JSON object")
    return message


def _table(
    tables: dict[str, tuple[Layout, str]],
    name: str,
    layout: Layout,
    page: tuple[int, int] | None = None,
) -> str:
    """The picture of ``layout`` on ``page`` (or the default page), drawn only when new.

    It is not drawn again when ``tables[name]`` was drawn from the same layout.
    """
    cached = tables.get(name)
    if cached is not None and cached[0] is layout:
        return cached[1]
    picture = _svg(
        render_svg(layout, caption=False)
        if page is None
        else render_svg(layout, caption=False, page=page)
    )
    tables[name] = (layout, picture)
    return picture


@functools.lru_cache(maxsize=4096)
def _tally(score: int) -> str:
    return _svg(tally_svg(score))


def _storage_failure(error: sqlite3.Error) -> str:
    return (
        f"the server could not save this ({error}): nothing was changed, "
        "and the match is as it was; try again"
    )


async def _body(request: Request, limit: int) -> bytes | None:
    """The request's body, or None as soon as it is seen to be over ``limit`` bytes."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        return None
    parts = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        parts.append(chunk)
    return b"".join(parts)


async def _unless_gone(
    request: Request, stop: threading.Event, work: Callable[..., dict[str, Any]], *args: Any
) -> dict[str, Any]:
    """``work(*args, stop=stop)`` in a thread; ``stop`` is set if the client goes away.

    :raises Stopped: if it did, and the work stopped.
    """
    job = asyncio.ensure_future(run_in_threadpool(work, *args, stop=stop))
    watch = asyncio.ensure_future(_gone(request))
    try:
        await asyncio.wait({job, watch}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watch.cancel()
    if not job.done():
        stop.set()
    answer: dict[str, Any] = await job
    return answer


async def _gone(request: Request) -> None:
    """Return when the client of ``request`` (whose body is read) disconnects."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def _close(socket: WebSocket, code: int, reason: str) -> None:
    """Close ``socket``, giving up after a few seconds (a browser that does not read)."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(socket.close(code=code, reason=reason), 5)


def _token() -> str:
    return secrets.token_urlsafe(16)


def _refuse(message: str, status: int = 400) -> Response:
    return JSONResponse({"error": message}, status_code=status)


def _page(name: str) -> Callable[[Request], Awaitable[Response]]:
    async def page(request: Request) -> Response:
        return FileResponse(STATIC / name, media_type="text/html")

    return page


def _done_one(counts: collections.Counter[str], key: str) -> None:
    """Count one of ``key``'s things as done, keeping no key at zero."""
    counts[key] -= 1
    if not counts[key]:
        del counts[key]


def create_app(
    store: Store,
    *,
    bot_delay: float = 0.7,
    creations: RateLimit | None = None,
    forget_after: float = FORGET_AFTER,
) -> Starlette:
    """The application serving the matches of ``store``.

    ``bot_delay`` is how long each bot waits before it acts, in seconds;
    ``creations`` the rate limit on new matches; ``forget_after`` how long a
    match nobody is connected to stays in memory (see :class:`Server`). The
    :class:`Server` is ``app.state.server``.
    """
    server = Server(store, bot_delay=bot_delay, creations=creations, forget_after=forget_after)
    routes = [
        Route("/", _page("index.html")),
        Route("/play/{match_id}", _page("play.html")),
        Route("/replay", _page("replay.html")),
        Route("/how-to-play", _page("how-to-play.html")),
        Route("/api/kinds", server.kinds),
        Route("/api/matches", server.create, methods=["POST"]),
        Route("/api/matches", server.matches, methods=["GET"]),
        Route("/api/matches/{match_id}/record", server.record),
        Route("/api/matches/{match_id}/frames", server.frames),
        Route("/api/replay", server.replay, methods=["POST"]),
        WebSocketRoute("/ws/{match_id}", server.socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        yield
        await server.close()

    app = Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(_HeaderLimit)])
    app.state.server = server
    return app


class _HeaderLimit:
    """Refuse a request whose headers are over 16 KiB (``MAX_HEADER_BYTES``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        size = sum(len(name) + len(value) for name, value in scope.get("headers", ()))
        if scope["type"] == "http" and size > MAX_HEADER_BYTES:
            response = _refuse(f"the request's headers are over {MAX_HEADER_BYTES >> 10} KiB", 431)
            await response(scope, receive, send)
        elif scope["type"] == "websocket" and size > MAX_HEADER_BYTES:
            await send({"type": "websocket.close", "code": 1008})
        else:
            await self.app(scope, receive, send)
