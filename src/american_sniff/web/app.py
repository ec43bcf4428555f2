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
  server's operator (the key is printed by ``american-sniff serve``), a page
  of at most :data:`LIST_PAGE` at a time (``limit`` and ``after``, see
  :meth:`Server.matches`).
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
  messages without the pictures, which are then not drawn for it. The table
  comes in the one drawing the page shows: the wide one as ``table``, or,
  when the hello says ``"table": "narrow"`` (a box under 560 pixels wide),
  the narrow one as ``table_narrow`` (see :mod:`american_sniff.web.pictures`);
  ``{"type": "table", "table": "wide"}`` (or ``"narrow"``) switches, and the
  state comes again with that drawing. The browser sends ``move``
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
* request headers over 16 KiB get 431, and a request whose ``Host`` is not
  one of the server's names gets 421 (see :func:`create_app`);
* every answer carries :data:`SECURITY_HEADERS` (a content security policy,
  nosniff, a referrer policy); the operator's key and the links' tokens are
  compared in constant time;
* a WebSocket says hello within 10 seconds (else close code 4408); an
  address, and a seat, hold a bounded number of WebSockets, and messages,
  hints and new WebSockets come at bounded rates, per socket and per address
  (:class:`~american_sniff.web.limits.SocketLimits`): over a rate, an
  ``error`` message names it, and a socket that keeps on is closed (4429);
* a match with no winner after :data:`MAX_ACTIONS` actions or
  :data:`MAX_ROUNDS` rounds is over, and says why (:meth:`Server.ended`);
* records are read, and the operator's list is read, in threads;
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
import json
import math
import secrets
import sqlite3
import threading
from collections.abc import Awaitable, Callable, Collection
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..errors import InvalidRecord
from ..records import MatchRecord
from ..session import hint_reason
from ..views import event_for, spectator_view, view_for
from .frames import MAX_REPLAY_ACTIONS, PAGE, Stopped, record_actions, record_frames
from .game import BOT_KINDS, HUMAN, Change, Game, GameError, new_setup
from .limits import (
    MAX_DEPTH,
    MAX_HEADER_BYTES,
    MAX_MESSAGE,
    Bucket,
    Rate,
    RateLimit,
    SocketLimits,
    host_allowed,
    json_depth,
    same_origin,
)
from .pictures import TABLES, WIDE, Pictures
from .shared import LibraryStore
from .store import MatchBook, StaleLog, StoredMatch, Writer

__all__ = [
    "BOT_SPEEDS",
    "FORGET_AFTER",
    "LEASE",
    "LIST_PAGE",
    "MAX_ACTIONS",
    "MAX_REPLAY_BYTES",
    "MAX_ROUNDS",
    "SECURITY_HEADERS",
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

#: The most actions a match may have: at this many, a match with no winner
#: ends, and says why (a match between people who never finish, or a script
#: that stalls, would otherwise grow for ever). Matches played out by random
#: moves take 1,434 actions at the most in 90 seeds; a real one, a few hundred.
MAX_ACTIONS = 5000

#: The most rounds a match may have: a match with no winner that would
#: start round ``MAX_ROUNDS + 1`` ends instead, and says why.
MAX_ROUNDS = 200

#: How many matches the operator's list gives at once (its ``limit``, at most).
LIST_PAGE = 100

#: How long a worker's lease on driving a bot seat lasts, in seconds, when
#: the matches are in the library's store (PostgreSQL): a worker renews it at
#: each move, and a worker that dies lets it pass to another after this long.
LEASE = 3.0

#: The headers every answer carries. The pages load their scripts and
#: styles from ``/static`` only (no inline script or style), draw pictures
#: inline as SVG, and talk to this server alone; no other site may frame
#: them, no browser may guess a type, and no link's address (whose fragment
#: is a secret, and which is never sent anyway) goes beyond the origin.
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}

#: How many replays are drawn at once; more wait their turn.
_REPLAYS_AT_ONCE = 2

#: Why a request from another site's page is refused.
_CROSS_SITE = (
    "this server takes moves and new matches only from its own pages "
    "(the request came from a page of another site)"
)

#: What the players are told when a bot's move could not be saved.
_BOTS_WAIT = "The bots try again when someone acts or reconnects."

#: What a browser is told when its change was planned on a stale copy of the
#: match (another server wrote to it meanwhile); it is sent the fresh state.
_STALE = "the table has changed since: look again and choose"


class _Stale(GameError):
    """A change refused because another server changed the match first (it was read again)."""


#: The close code of a WebSocket dropped for not reading, or for saying no
#: hello in time (the page reconnects).
_TOO_SLOW = 4408

#: The close code of a WebSocket over one of its limits (:class:`SocketLimits`).
_TOO_MANY = 4429

#: The messages that change a match (refused once it ended at the cap).
_PLAY = frozenset({"move", "undo", "continue", "hint"})


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
    :param table: Which drawing of the table they carry
        (:data:`~american_sniff.web.pictures.WIDE` or
        :data:`~american_sniff.web.pictures.NARROW`): the one the page shows.
    :param limits: How fast it may send messages and ask for hints (its own
        token buckets, :attr:`messages` and :attr:`hints`).
    """

    def __init__(  # noqa: PLR0913 (the options are keyword-only, each with a default)
        self,
        socket: WebSocket,
        viewer: int | str,
        limit: int = SEND_QUEUE,
        *,
        pictures: bool = True,
        table: str = WIDE,
        limits: SocketLimits | None = None,
    ) -> None:
        self.socket = socket
        self.viewer = viewer
        self.pictures = pictures
        self.table = table
        self.dropped = False
        limits = SocketLimits() if limits is None else limits
        #: The socket's own bucket of messages.
        self.messages = Bucket(limits.messages)
        #: The socket's own bucket of hints.
        self.hints = Bucket(limits.hints)
        #: How many of its messages in a row were refused for a rate.
        self.refused = 0
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
    :param limits: What each WebSocket, client address and seat may do
        (:class:`~american_sniff.web.limits.SocketLimits`).
    :param max_actions: The most actions a match may have (:data:`MAX_ACTIONS`;
        None: no cap).
    :param max_rounds: The most rounds a match may have (:data:`MAX_ROUNDS`;
        None: no cap).
    :param public_url: The address the players reach the server at (such as
        ``https://sniff.example.org/``): the links are made from it. None:
        from each request's own address.
    :param lease: How long this worker's lease on driving a bot seat lasts
        (:data:`LEASE`), where the store has leases (the library's store).

    **Several workers.** On the library's store
    (:class:`~american_sniff.web.shared.LibraryStore`), a bot seat is driven
    only by the worker that holds its lease; another waits, and takes the
    seat over if the lease lapses. On PostgreSQL, :meth:`start` listens for
    the appends of every worker, and a match held here whose log grew is
    read again and sent to its browsers.
    """

    def __init__(  # noqa: PLR0913 (the options are keyword-only, each with a default)
        self,
        store: MatchBook,
        bot_delay: float = 0.7,
        creations: RateLimit | None = None,
        forget_after: float = FORGET_AFTER,
        *,
        limits: SocketLimits | None = None,
        max_actions: int | None = MAX_ACTIONS,
        max_rounds: int | None = MAX_ROUNDS,
        public_url: str | None = None,
        lease: float = LEASE,
    ) -> None:
        self.store = store
        self.lease = lease
        #: This worker's name in the bot seats' leases.
        self.worker = _token()[:12]
        self._listening: threading.Thread | None = None
        self._stop_listening = threading.Event()
        self._leases: set[tuple[str, int]] = set()  # the bot seats this worker drove
        self.bot_delay = bot_delay
        self.forget_after = forget_after
        self.creations = RateLimit() if creations is None else creations
        self.limits = SocketLimits() if limits is None else limits
        self.max_actions = max_actions
        self.max_rounds = max_rounds
        self.public_url = None if public_url is None else public_url.rstrip("/") + "/"
        self._address_messages = self.limits.address_messages.limit()
        self._address_hints = self.limits.address_hints.limit()
        self._reconnects = self.limits.reconnects.limit()
        self._seat_reconnects = self.limits.seat_reconnects.limit()
        self._per_address: collections.Counter[str] = collections.Counter()  # open sockets
        self._per_seat: collections.Counter[str] = collections.Counter()  # open sockets
        self._ended: dict[str, str] = {}  # why a match ended with no winner, by match
        self.key = store.meta("key", _token())
        self._games: dict[str, Game] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._sockets: dict[str, dict[Connection, asyncio.Task[None]]] = {}
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self._rematches: dict[str, str] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self._pictures: dict[str, Pictures] = {}  # each match's, see web.pictures
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

    def _read(self, match_id: str) -> tuple[StoredMatch, str | None, str | None] | None:
        """The stored match, the id of its rematch and why it ended at a cap; None for none."""
        stored = self.store.load(match_id)
        if stored is None:
            return None
        return (
            stored,
            self.store.meta_of(f"rematch {match_id}"),
            self.store.meta_of(f"ended {match_id}"),
        )

    def _loaded(self, stored: StoredMatch, rematch: str | None, ended: str | None) -> Game:
        """The game of ``stored``, now in memory (with its rematch, offered before)."""
        game = self._games[stored.id] = Game(stored, self.store)
        if rematch is not None:
            self._rematches[stored.id] = rematch
        if ended is not None:
            self._ended[stored.id] = ended
        else:
            self._cap(game)  # a cap lowered since the match was played
        self._idle(stored.id)
        return game

    # -- the host's cap on a match's length ---------------------------------------------

    def ended(self, game: Game) -> str | None:
        """Why ``game`` ended with no winner at this server's cap on its length, or None.

        Such a match takes no more moves, undos or hints; its record is given
        to its links, as a finished match's is, and a rematch may be asked.
        The reason is kept in the store, so that it stays ended after a
        restart.
        """
        return self._ended.get(game.id)

    def _cap(self, game: Game) -> bool:
        """End ``game`` if it has no winner and reached the cap; whether it ended just now."""
        state = game.state
        if game.id in self._ended or state.winner is not None:
            return False
        if self.max_actions is not None and game.seq >= self.max_actions:
            what = f"{self.max_actions} actions"
        elif self.max_rounds is not None and state.round > self.max_rounds:
            what = f"{self.max_rounds} rounds"
        else:
            return False
        reason = (
            f"The match is over with no winner: it reached this server's cap of {what} "
            f"(the scores stand at {', '.join(map(str, state.scores))})."
        )
        # If it cannot be kept, it is kept in memory: the cap is met again when loaded.
        with contextlib.suppress(sqlite3.Error):
            reason = self.store.meta(f"ended {game.id}", reason)
        self._ended[game.id] = reason
        return True

    def _announce_end(self, game: Game) -> None:
        """Tell every browser of ``game`` why it ended (the page shows it as a message)."""
        reason = self._ended[game.id]
        for connection in list(self._sockets.get(game.id, {})):
            self._error(game.id, connection, reason)

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
            self._ended,
            self._pictures,
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
        """Each human seat's link and the spectator link of ``game``.

        The links start with :attr:`public_url` if the server has one, else with ``base``.
        """
        base = base if self.public_url is None else self.public_url
        seats = [
            {"seat": n, "kind": s.kind, "name": s.name, "url": f"{base}play/{game.id}#{s.token}"}
            for n, s in enumerate(game.setup.seats)
            if s.token is not None
        ]
        spectator = f"{base}play/{game.id}#{game.setup.spectator}"
        return {"id": game.id, "seats": seats, "spectator": spectator}

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

    def pictures(self, game: Game, table: str = WIDE) -> dict[str, Any]:
        """The pictures of ``game``'s state with the ``table`` asked for, drawn once per state.

        They show only what every viewer sees, so every browser that shows
        that table gets the same (:class:`~american_sniff.web.pictures.Pictures`).
        A table is drawn again only when it changed: a draw or a pass keeps
        the table, and the last round's table stays for a whole round.
        """
        return self._drawn(game, table)[0]

    def _drawn(self, game: Game, table: str) -> tuple[dict[str, Any], str]:
        """:meth:`pictures`, and their JSON text (the members of an object, no braces)."""
        pictures = self._pictures.get(game.id)
        if pictures is None:
            pictures = self._pictures[game.id] = Pictures()
        return pictures.drawn(game.state, table)

    def text(
        self, game: Game, viewer: int | str, *, pictures: bool = True, table: str = WIDE
    ) -> str:
        """The message that tells ``viewer`` how the match stands, as JSON text.

        It holds the viewer's view and nothing more: ``type`` (``"state"``),
        ``match``, ``you``, ``seats``, ``names``, ``waiting_for``,
        ``can_undo``, ``rematch`` (the rematch's id, or null), ``ended`` (why
        the match ended at the server's cap, or null), ``view`` (the view
        document), ``event`` (the last action as the viewer sees it),
        ``settled``, and the :meth:`pictures` with ``table`` (the wide
        drawing, or the narrow one as ``table_narrow``) unless ``pictures``
        is false.

        The view and the event are made once per change of the match and
        viewer, the pictures once per state and table (the same for every
        viewer) and only if some browser shows them; only the small members
        are made for each message.
        """
        head, seen = self._seen(game, viewer)
        rematch = self._rematches.get(game.id)
        link = "null" if rematch is None else json.dumps(rematch)
        ended = self._ended.get(game.id)
        why = "null" if ended is None else json.dumps(ended)
        if not pictures:
            return f'{head}, "rematch": {link}, "ended": {why}, {seen}}}'
        return f'{head}, "rematch": {link}, "ended": {why}, {seen}, {self._drawn(game, table)[1]}}}'

    def rematch(self, game: Game) -> str:
        """The id of ``game``'s rematch, made the first time it is asked for (under its lock).

        The link is kept in the store's meta table, so that a restarted server
        gives the same rematch.

        :raises GameError: if the match is not over.
        """
        if game.state.winner is None and game.id not in self._ended:
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
                self.text(
                    game, connection.viewer, pictures=connection.pictures, table=connection.table
                ),
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
        if (task is not None and not task.done()) or game.id in self._ended:
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
                seat = game.state.turn
            if forced is None and not await self._holds(game.id, seat):
                # Another worker drives this bot: look again once it may have
                # moved, or its lease lapsed (it died).
                await asyncio.sleep(self.lease / 3)
                async with self.lock(game.id):
                    with contextlib.suppress(GameError):
                        await self._reload(game)
                continue
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
                except _Stale:
                    continue  # another server moved: look again at the fresh state
                except GameError as error:
                    for connection in list(self._sockets.get(game.id, {})):
                        self._error(game.id, connection, f"{error} {_BOTS_WAIT}")
                    return
                ended = self._cap(game)
            await self.broadcast(game)
            if ended:
                self._announce_end(game)
                return

    async def commit(self, game: Game, change: Change) -> None:
        """Write ``change`` to the store, then make it in ``game``; a failed write changes nothing.

        The write is the :class:`~american_sniff.web.store.Writer`'s, in its
        thread: the event loop goes on meanwhile.

        The change is logged only if the stored log is as long as the one it
        was planned on. If another process (another server on the same
        database) wrote meanwhile, nothing is written: the game is read again
        from the store, its browsers here are sent the fresh state, and
        a :class:`GameError` says that the table changed.

        :raises GameError: if the store cannot write (full disk, read-only
            file, a broken database), or the match changed meanwhile: the
            message says so, for the players.
        """
        self._unwritten[game.id] += 1
        written = asyncio.wrap_future(
            self.writer.submit(game.id, change.entry, expected=change.logged)
        )

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
        except StaleLog:
            await self._reload(game)
            raise _Stale(_STALE) from None

    async def _holds(self, match_id: str, seat: int) -> bool:
        """Whether this worker may drive ``seat``'s bot: it holds (or took) its lease.

        Always, where the store has no leases (one SQLite file); never while
        the database cannot be reached.
        """
        if not isinstance(self.store, LibraryStore):
            return True
        try:
            held = await asyncio.to_thread(
                self.store.lease, match_id, seat, self.worker, self.lease
            )
        except sqlite3.Error:
            return False
        if held:
            self._leases.add((match_id, seat))
        return held

    def start(self) -> None:
        """Listen for the appends of other workers, where the store announces them (PostgreSQL).

        Called when the application starts; :meth:`close` stops it.

        :raises sqlite3.Error: if the database cannot be reached.
        """
        if not isinstance(self.store, LibraryStore) or self._listening is not None:
            return
        heard = self.store.listen()
        if heard is None:
            return
        loop = asyncio.get_running_loop()
        self._listening = threading.Thread(
            target=self._listen, args=(heard, loop), name="american-sniff-listener", daemon=True
        )
        self._listening.start()

    def _listen(self, heard: Any, loop: asyncio.AbstractEventLoop) -> None:
        """Pass each announced append to the event loop, until :meth:`close` (in a thread).

        A lost connection is opened again (every second until it opens), and
        then every match held here is read again: what was announced
        meanwhile was lost with the connection.
        """
        while not self._stop_listening.is_set():
            try:
                if heard is None:
                    heard = self.store.listen()  # type: ignore[attr-defined]
                    loop.call_soon_threadsafe(self._catch_up_all)
                appended = heard.wait(0.25)
            except RuntimeError:  # pragma: no cover - the event loop closed first
                break
            except Exception:  # the connection was lost: listen again, then catch up
                with contextlib.suppress(Exception):
                    heard.close()
                heard = None
                self._stop_listening.wait(1.0)
                continue
            try:
                for note in appended:
                    loop.call_soon_threadsafe(self._announced, note.match_id, note.length)
            except RuntimeError:  # pragma: no cover - the event loop closed first
                break
        if heard is not None:
            with contextlib.suppress(Exception):
                heard.close()

    def _catch_up_all(self) -> None:
        """Read again every match held here whose log grew (after a lost listening connection)."""
        for match_id, game in list(self._games.items()):
            self._announced(match_id, game.logged + 1)

    def _announced(self, match_id: str, length: int) -> None:
        """A worker appended to ``match_id``'s log, which holds ``length`` entries now."""
        game = self._games.get(match_id)
        if game is None or game.logged >= length:
            return  # not held here, or this worker's own append
        task = asyncio.create_task(self._catch_up(game))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def _catch_up(self, game: Game) -> None:
        """Read ``game`` again, tell its browsers here, and let the bots go on."""
        async with self.lock(game.id):
            try:
                await self._reload(game)
            except GameError:
                return
        self.drive(game)

    async def _reload(self, game: Game) -> None:
        """Read ``game`` again from the store (another process wrote to it), and tell its browsers.

        Called under the game's lock, when a write was refused because the
        log had grown: this server's copy was behind. Every browser of the
        match here gets the fresh state.

        :raises GameError: if it cannot be read (the message says so).
        """
        try:
            stored = await asyncio.to_thread(self._read, game.id)
            if stored is None:  # pragma: no cover - matches are never deleted
                raise GameError("this match is no longer stored")
            if len(stored[0].log) == game.logged:
                return  # nothing new
            game.reload(stored[0])
        except (sqlite3.Error, ValueError) as error:
            raise GameError(
                f"the match changed on another server and could not be read again ({error})"
            ) from None
        _, rematch, ended = stored
        if rematch is not None:
            self._rematches[game.id] = rematch
        if ended is not None:
            self._ended[game.id] = ended
        await self.broadcast(game)

    async def close(self) -> None:
        """Stop the bots' tasks and the listener, give up the bot seats' leases, close the store."""
        self._stop_listening.set()
        if self._listening is not None:
            await asyncio.to_thread(self._listening.join)
        for handle in self._forgetting.values():
            handle.cancel()
        for task in self._drivers.values():
            task.cancel()
        for task in self._drivers.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await asyncio.to_thread(self.writer.close)
        # Hand the bot seats this worker drove to the others at once.
        if isinstance(self.store, LibraryStore):
            for match_id, seat in self._leases:
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(self.store.library.release, match_id, seat, self.worker)
        self.store.close()

    # -- the WebSocket -----------------------------------------------------------------

    async def socket(self, socket: WebSocket) -> None:
        """One browser's connection to one match."""
        await socket.accept()
        if not same_origin(socket.headers):
            await socket.send_json({"type": "error", "message": _CROSS_SITE})
            await socket.close(code=4403)
            return
        address = socket.client.host if socket.client is not None else ""
        refusal = self._address_refusal(address)
        if refusal is not None:
            await _refuse_socket(socket, refusal)
            return
        self._per_address[address] += 1
        try:
            await self._serve_socket(socket, address)
        finally:
            _done_one(self._per_address, address)

    def _address_refusal(self, address: str) -> str | None:
        """Why a new socket from ``address`` is refused (too many open, or too often), or None."""
        limits = self.limits
        if self._per_address[address] >= limits.per_address:
            return (
                f"this address has {limits.per_address} connections open, the most it may "
                "have at once: close some pages of this server"
            )
        wait = self._reconnects.take(address)
        if wait:
            return _too_often("new connections from this address", limits.reconnects, wait)
        return None

    def _seat_refusal(self, seat: str) -> str | None:
        """Why a new socket of ``seat`` is refused (too many open, or too often), or None."""
        limits = self.limits
        if self._per_seat[seat] >= limits.per_seat:
            return (
                f"this seat has {limits.per_seat} connections open, the most it may have at "
                "once: close another page of it"
            )
        wait = self._seat_reconnects.take(seat)
        if wait:
            return _too_often("new connections of this seat", limits.seat_reconnects, wait)
        return None

    async def _serve_socket(self, socket: WebSocket, address: str) -> None:
        """The connection of ``socket``, from its hello until it closes."""
        match_id = socket.path_params["match_id"]
        game = await self.load(match_id)
        viewer = None
        pictures, table = True, WIDE
        if game is not None:
            try:
                viewer, pictures, table = await self._greeted(socket, game)
            except WebSocketDisconnect:
                return
            except asyncio.TimeoutError:
                late = f"no hello came within {self.limits.hello_timeout:g} s: reconnect"
                await _refuse_socket(socket, late, _TOO_SLOW)
                return
        if game is None or viewer is None:
            await socket.send_json({"type": "error", "message": "no match has this link"})
            await socket.close(code=4404)
            return
        seat = f"{viewer} {match_id}" if isinstance(viewer, int) else ""
        if not await self._admitted(socket, seat, match_id):
            return
        connection = Connection(socket, viewer, pictures=pictures, table=table, limits=self.limits)
        pump = asyncio.create_task(connection.pump())
        self._sockets.setdefault(match_id, {})[connection] = pump
        try:
            self.send(match_id, connection, self.text(game, viewer, pictures=pictures, table=table))
            ended = self._ended.get(match_id)
            if ended is not None:
                self._error(match_id, connection, ended)
            self.drive(game)
            while not connection.dropped and not pump.done():
                message = await self._next(connection, address)
                if message is None:
                    continue
                if connection.refused >= self.limits.persist:
                    pump.cancel()
                    await _refuse_socket(socket, message["refused"])
                    break
                await self._message(game, connection, message)
        except WebSocketDisconnect:
            pass
        finally:
            if seat:
                _done_one(self._per_seat, seat)
            sockets = self._sockets.get(match_id, {})
            sockets.pop(connection, None)
            pump.cancel()
            if not sockets:
                self._idle(match_id)

    async def _admitted(self, socket: WebSocket, seat: str, match_id: str) -> bool:
        """Count one more socket of ``seat`` (a spectator's is ""), or refuse it if over a limit."""
        refusal = self._seat_refusal(seat) if seat else None
        if refusal is None:
            self._per_seat[seat] += 1
            return True
        if not self._sockets.get(match_id):
            self._idle(match_id)
        await _refuse_socket(socket, refusal)
        return False

    async def _next(self, connection: Connection, address: str) -> dict[str, Any] | None:
        """The next message of ``connection`` to carry out, None if it was answered with an error.

        A message over one of the rates is refused with an ``error`` message
        that names the rate; after :attr:`SocketLimits.persist` refused in a
        row, the message is ``{"refused": reason}``, and the socket is closed.

        :raises WebSocketDisconnect: if the browser went away.
        """
        match_id = connection.socket.path_params["match_id"]
        problem = ""
        try:
            text: str | None = await _receive(connection.socket)
        except GameError as error:
            text, problem = None, str(error)
        refusal = self._message_refusal(connection, address)
        message = None
        if refusal is None and text is not None:
            try:
                message = _parse(text)
            except GameError as error:
                problem = str(error)
            else:
                if message.get("type") == "hint":
                    refusal = self._hint_refusal(connection, address)
        if refusal is not None:
            connection.refused += 1
            if connection.refused >= self.limits.persist:
                return {"refused": f"{refusal}; the connection is closed"}
            self._error(match_id, connection, refusal)
            return None
        connection.refused = 0
        if message is None:
            self._error(match_id, connection, problem)
        return message

    def _message_refusal(self, connection: Connection, address: str) -> str | None:
        """Why one more message of ``connection`` is refused for a rate, or None."""
        wait = connection.messages.take()
        if wait:
            return _too_often("messages on this connection", self.limits.messages, wait)
        wait = self._address_messages.take(address)
        if wait:
            return _too_often("messages from this address", self.limits.address_messages, wait)
        return None

    def _hint_refusal(self, connection: Connection, address: str) -> str | None:
        """Why one more hint of ``connection`` is refused for a rate, or None."""
        wait = connection.hints.take()
        if wait:
            return _too_often("hints on this connection", self.limits.hints, wait)
        wait = self._address_hints.take(address)
        if wait:
            return _too_often("hints from this address", self.limits.address_hints, wait)
        return None

    async def _greeted(self, socket: WebSocket, game: Game) -> tuple[int | str | None, bool, str]:
        """The viewer whose token the hello gives (None: none), whether it draws, and what.

        What it draws is the hello's ``table`` (one of
        :data:`~american_sniff.web.pictures.TABLES`; anything else is the wide one).

        The browser counts as connected while its hello is awaited, so that
        the match is not forgotten meanwhile (the browser would keep a game
        that nobody else has).

        :raises WebSocketDisconnect: if the browser went away.
        :raises asyncio.TimeoutError: if no hello came within the
            :attr:`~american_sniff.web.limits.SocketLimits.hello_timeout`.
        """
        match_id = game.id
        self._arriving[match_id] += 1
        viewer = None
        try:
            text = await asyncio.wait_for(_receive(socket), self.limits.hello_timeout)
            hello = _parse(text)
            token = hello.get("token")
            viewer = _viewer(game, token)
            speed = hello.get("speed")
            if isinstance(viewer, int) and isinstance(speed, str) and speed in BOT_SPEEDS:
                self._speeds[match_id] = speed
            table = hello.get("table")
            return (
                viewer,
                hello.get("pictures", True) is not False,
                table if isinstance(table, str) and table in TABLES else WIDE,
            )
        except GameError:
            return None, True, WIDE
        finally:
            _done_one(self._arriving, match_id)
            if viewer is None and not self._arriving[match_id] and not self._sockets.get(match_id):
                self._idle(match_id)

    def _error(self, match_id: str, connection: Connection, message: str) -> None:
        self.send(match_id, connection, json.dumps({"type": "error", "message": message}))

    def _show(self, game: Game, connection: Connection, table: object) -> None:
        """Send ``connection`` its state again with the ``table`` its page now shows.

        :raises GameError: if ``table`` is not one of :data:`~american_sniff.web.pictures.TABLES`.
        """
        if not isinstance(table, str) or table not in TABLES:
            raise GameError(f"a table is one of {', '.join(TABLES)}")
        connection.table = table
        if connection.pictures:
            self.send(game.id, connection, self.text(game, connection.viewer, table=table))

    async def _message(self, game: Game, connection: Connection, message: dict[str, Any]) -> None:
        """Carry out one message of a browser and answer it."""
        viewer = connection.viewer
        ended = False
        try:
            kind = message.get("type")
            if kind == "table":
                self._show(game, connection, message.get("table"))
                return
            if not isinstance(viewer, int):
                raise GameError("a spectator watches: only the seats play")
            async with self.lock(game.id):
                change = None
                if kind == "rematch":
                    self.rematch(game)
                elif kind in _PLAY and game.id in self._ended:
                    raise GameError(self._ended[game.id])
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
                        "the messages are move, hint, undo, continue, speed, table and rematch"
                    )
                if change is not None:
                    await self.commit(game, change)
                    ended = self._cap(game)
        except GameError as error:
            self._error(game.id, connection, str(error))
            self.drive(game)  # bots stopped by a failed write try again
            return
        await self.broadcast(game)
        if ended:
            self._announce_end(game)
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

    def _is_key(self, given: str | None) -> bool:
        """Whether ``given`` is the operator's key (compared in constant time)."""
        return given is not None and secrets.compare_digest(given.encode(), self.key.encode())

    async def matches(self, request: Request) -> Response:
        """``GET /api/matches?key=KEY``: the stored matches with their links (the operator's).

        Newest first, a page at a time: at most ``limit`` matches (1 to
        :data:`LIST_PAGE`, the default) after the match whose id is ``after``
        (from the start if none); ``next`` is the ``after`` of the next page,
        or null after the last. The matches are read and replayed in a
        thread, and those not in memory are not kept there. A match whose log
        no longer replays is listed with its id and ``broken``, the reason.
        """
        if not self._is_key(request.query_params.get("key")):
            return _refuse("the list of matches needs the server's key", 403)
        try:
            limit = int(request.query_params.get("limit", str(LIST_PAGE)))
        except ValueError:
            return _refuse("limit is a whole number")
        if not 1 <= limit <= LIST_PAGE:
            return _refuse(f"limit is from 1 to {LIST_PAGE}")
        after = request.query_params.get("after")
        page, more = await asyncio.to_thread(self._page_of_ids, after, limit)
        if page is None:
            return _refuse("after names no stored match", 400)
        base = str(request.base_url)
        listed = await asyncio.to_thread(self._listed, page, base)
        return JSONResponse({"matches": listed, "next": page[-1] if more and page else None})

    def _page_of_ids(self, after: str | None, limit: int) -> tuple[list[str] | None, bool]:
        """The ids of one page of the list, and whether more follow (None: no such ``after``)."""
        ids = self.store.ids()
        start = 0
        if after is not None:
            try:
                start = ids.index(after) + 1
            except ValueError:
                return None, False
        return ids[start : start + limit], start + limit < len(ids)

    def _listed(self, ids: list[str], base: str) -> list[dict[str, Any]]:
        """The operator's list entries of ``ids`` (run in a thread: it may replay matches)."""
        listed: list[dict[str, Any]] = []
        for match_id in ids:
            game = self._games.get(match_id)
            try:
                if game is None:
                    stored = self.store.load(match_id)
                    if stored is None:  # pragma: no cover - deleted meanwhile
                        continue
                    game = Game(stored, self.store)
            except Exception as error:  # a log that no longer replays: listed as broken
                listed.append({"id": match_id, "broken": f"{type(error).__name__}: {error}"})
                continue
            state = game.state
            listed.append(
                {
                    **self.links(game, base),
                    "players": game.setup.players,
                    "kinds": [s.kind for s in game.setup.seats],
                    "round": state.round,
                    "scores": list(state.scores),
                    "winner": state.winner,
                    "ended": self._ended.get(match_id) or self.store.meta_of(f"ended {match_id}"),
                }
            )
        return listed

    async def _record_of(self, request: Request) -> tuple[Game | None, MatchRecord | Response]:
        game = await self.load(request.path_params["match_id"])
        if game is None:
            return None, _refuse("there is no such match", 404)
        token = request.query_params.get("token", "")
        if not self._is_key(request.query_params.get("key")):
            if _viewer(game, token) is None:
                return game, _refuse("this link is not one of the match's", 403)
            if game.state.winner is None and game.id not in self._ended:
                return game, _refuse(
                    "a running match's record holds every hand: it is given when the match "
                    "is over, or to the server's operator",
                    403,
                )
        return game, game.record()

    async def record(self, request: Request) -> Response:
        """``GET /api/matches/{id}/record``: the record, as a file to save."""
        game, record = await self._record_of(request)
        if isinstance(record, Response):
            return record
        assert game is not None
        return Response(
            await asyncio.to_thread(record.to_json, pretty=True),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="sniff-{game.id}.json"'},
        )

    async def frames(self, request: Request) -> Response:
        """``GET /api/matches/{id}/frames``: the replay viewer's frames of a stored match."""
        _, record = await self._record_of(request)
        if isinstance(record, Response):
            return record
        return await self._frames_page(request, record)

    async def replay(self, request: Request) -> Response:
        """``POST /api/replay``: the replay viewer's frames of the record sent, a page at a time."""
        if not same_origin(request.headers):
            return _refuse(_CROSS_SITE, 403)
        if not await self._may_replay(request):
            return _refuse(
                "replaying a record needs the server's key or a link of one of its matches", 403
            )
        body = await _body(request, MAX_REPLAY_BYTES)
        if body is None:
            return _refuse(f"a record to replay is at most {MAX_REPLAY_BYTES >> 20} MiB", 413)
        try:
            # A record of 1 MiB takes tens of milliseconds to read: in a thread.
            record = await asyncio.to_thread(MatchRecord.from_json, body)
        except (InvalidRecord, ValueError) as error:
            return _refuse(f"this record cannot be replayed: {error}")
        return await self._frames_page(request, record)

    async def _may_replay(self, request: Request) -> bool:
        """Whether ``request`` has the operator's key or a link (``match`` and ``token``)."""
        if self._is_key(request.query_params.get("key")):
            return True
        match_id = request.query_params.get("match", "")
        game = await self.load(match_id) if match_id else None
        return game is not None and _viewer(game, request.query_params.get("token")) is not None

    async def _frames_page(self, request: Request, record: MatchRecord) -> Response:
        """The page of ``record``'s frames that ``start`` and ``count`` ask for."""
        actions = await asyncio.to_thread(record_actions, record)
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


def _viewer(game: Game, token: object) -> int | str | None:
    """The viewer whose link ``token`` is, or None (for any token that is no link's).

    A link's token is ASCII; :func:`secrets.compare_digest`, which compares
    it, refuses other text with an exception, so such a token is no link.
    """
    if not isinstance(token, str) or not token.isascii():
        return None
    return game.viewer(token)


def _too_often(what: str, rate: Rate, wait: float) -> str:
    """The refusal of one more of ``what`` over ``rate``, with the time to wait."""
    pace = f"one every {rate.every:g} s" if rate.every >= 1 else f"{rate.per_second:g} a second"
    return f"too many {what}: at most {rate.burst} at once, then {pace}; try again in {wait:g} s"


async def _refuse_socket(socket: WebSocket, reason: str, code: int = _TOO_MANY) -> None:
    """Tell ``socket`` why it is refused (an ``error`` message), then close it with ``code``."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(socket.send_json({"type": "error", "message": reason}), 5)
    await _close(socket, code, reason[:100])


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


def create_app(  # noqa: PLR0913 (the options are keyword-only, each with a default)
    store: MatchBook,
    *,
    bot_delay: float = 0.7,
    creations: RateLimit | None = None,
    forget_after: float = FORGET_AFTER,
    limits: SocketLimits | None = None,
    max_actions: int | None = MAX_ACTIONS,
    max_rounds: int | None = MAX_ROUNDS,
    public_url: str | None = None,
    hosts: Collection[str] | None = None,
    lease: float = LEASE,
) -> Starlette:
    """The application serving the matches of ``store``.

    ``bot_delay`` is how long each bot waits before it acts, in seconds;
    ``creations`` the rate limit on new matches; ``forget_after`` how long a
    match nobody is connected to stays in memory; ``limits`` what each
    WebSocket, address and seat may do; ``max_actions`` and ``max_rounds``
    the cap on a match's length; ``public_url`` the address the links start
    with; ``lease`` how long a worker's lease on a bot seat lasts (see
    :class:`Server`). The :class:`Server` is ``app.state.server``.

    ``hosts`` are the names a request's ``Host`` may give (an IP address is
    always let through, see :func:`~american_sniff.web.limits.host_allowed`);
    another gets 421, and a WebSocket is refused. By default, the host of
    ``public_url`` if one is given; else every name is let through.

    Every answer carries :data:`SECURITY_HEADERS`.
    """
    server = Server(
        store,
        bot_delay=bot_delay,
        creations=creations,
        forget_after=forget_after,
        limits=limits,
        max_actions=max_actions,
        max_rounds=max_rounds,
        public_url=public_url,
        lease=lease,
    )
    if hosts is None and public_url is not None:
        name = urlsplit(public_url).hostname
        hosts = () if name is None else (name,)
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
        server.start()
        yield
        await server.close()

    app = Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(_Guard, hosts=hosts)])
    app.state.server = server
    return app


class _Guard:
    """The checks and headers of every request.

    A request whose headers are over 16 KiB (``MAX_HEADER_BYTES``) gets 431,
    one whose ``Host`` is not one of ``hosts`` 421 (a WebSocket is refused),
    and every answer carries :data:`SECURITY_HEADERS`.
    """

    def __init__(self, app: ASGIApp, hosts: Collection[str] | None = None) -> None:
        self.app = app
        self.hosts = hosts
        self._headers = [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in {"http", "websocket"}:
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers", ())
        size = sum(len(name) + len(value) for name, value in headers)
        host = next((v.decode("latin-1") for k, v in headers if k == b"host"), "")
        wrong_host = self.hosts is not None and not host_allowed(host, self.hosts)
        if scope["type"] == "websocket":
            if size > MAX_HEADER_BYTES or wrong_host:
                await send({"type": "websocket.close", "code": 1008})
            else:
                await self.app(scope, receive, send)
            return

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *self._headers]}
            await send(message)

        if size > MAX_HEADER_BYTES:
            response = _refuse(f"the request's headers are over {MAX_HEADER_BYTES >> 10} KiB", 431)
            await response(scope, receive, secured)
        elif wrong_host:
            response = _refuse(
                f"this server does not answer for the host {host[:100]!r}: open it at its own "
                "address",
                421,
            )
            await response(scope, receive, secured)
        else:
            await self.app(scope, receive, secured)
