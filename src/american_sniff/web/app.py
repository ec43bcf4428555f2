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
  :meth:`Routes.matches <american_sniff.web.routes.Routes.matches>`).
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
  messages without the pictures, which are then not drawn for it; one with
  ``"pictures": "changed"`` (the page's own) gets each drawing only in the
  first state message and where it changed since the last one sent on that
  socket, and keeps the others. The table
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
  :data:`SEND_QUEUE` messages, sent by a task of its own (under
  ``american-sniff serve``, straight to the socket, which holds at most
  :data:`~american_sniff.web.serving.SEND_BUFFER` bytes not yet read); a
  browser that lets the queue fill (it does not read) is dropped with close
  code 4408, and the page reconnects. Nobody else waits on it;
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
  :data:`MAX_ROUNDS` rounds is over, and says why
  (:meth:`Flow.cap <american_sniff.web.flow.Flow.cap>`);
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
import contextlib
from collections.abc import Collection
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from .buckets import SharedBuckets
from .cache import FORGET_AFTER, Rooms
from .connection import SEND_QUEUE, Connection
from .driver import LEASE, Driver
from .flow import BOT_SPEEDS, MAX_ACTIONS, MAX_ROUNDS, Flow, token
from .game import Game
from .limits import (
    CREATE_BURST,
    CREATE_EVERY,
    MAX_HEADER_BYTES,
    Limit,
    Rate,
    RateLimit,
    SocketLimits,
    host_allowed,
)
from .listener import Listener
from .pictures import WIDE
from .routes import LIST_PAGE, MAX_REPLAY_BYTES, STATIC, Routes, page, refuse
from .store import MatchBook, Writer
from .transport import Sockets

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
    "operator_key",
]

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


class Server:
    """One running server: its store and the parts that serve the matches, wired together.

    Each concern is a part of its own:

    * :attr:`rooms` (:class:`~american_sniff.web.cache.Rooms`): which matches
      are held in memory, each in its :class:`~american_sniff.web.rooms.Room`
      (its game, lock, sockets and the fan-out of its states), and when they
      are forgotten;
    * :attr:`flow` (:class:`~american_sniff.web.flow.Flow`): how a match
      changes: a browser's message, a change written then made, the cap on a
      match's length, the rematch;
    * :attr:`driver` (:class:`~american_sniff.web.driver.Driver`): the bots'
      moves and this worker's leases on bot seats;
    * :attr:`listener` (:class:`~american_sniff.web.listener.Listener`): the
      other workers' appends (PostgreSQL);
    * :attr:`sockets` (:class:`~american_sniff.web.transport.Sockets`): the
      WebSockets, their hello and their limits;
    * :attr:`routes` (:class:`~american_sniff.web.routes.Routes`): the HTTP
      endpoints.

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
    :param buckets: Token buckets shared by every worker on the database
        (:class:`~american_sniff.web.buckets.SharedBuckets`): the limits on
        new matches, on new WebSockets of an address and of a seat, and on
        an address's hints are then counted for all the workers together
        (it is closed with the server). None: each counted by this process.

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
        buckets: SharedBuckets | None = None,
    ) -> None:
        #: Where the matches are kept.
        self.store = store
        #: The rate limits shared by the workers on the database, or None.
        self.buckets = buckets
        #: The operator's key (kept in the store, so that it outlives a restart).
        self.key = operator_key(store)
        #: The thread that writes every change to the store.
        self.writer = Writer(store)
        #: The matches held in memory, each in its room.
        self.rooms = Rooms(store, forget_after)
        #: How the matches change.
        self.flow = Flow(self.rooms, self.writer, max_actions, max_rounds)
        self.rooms.arrived = self.flow.cap  # a cap lowered since a match was played
        #: The bots' moves.
        self.driver = Driver(self.flow, bot_delay, lease)
        #: The other workers' appends.
        self.listener = Listener(self.flow, self.driver)
        #: The WebSockets.
        self.sockets = Sockets(self.flow, self.driver, limits, buckets)
        public = None if public_url is None else public_url.rstrip("/") + "/"
        shared: Limit | None = creations
        if buckets is not None:
            size = (CREATE_BURST, CREATE_EVERY) if creations is None else creations.size
            shared = buckets.limit("create", Rate(*size))
        #: The HTTP endpoints.
        self.routes = Routes(self.rooms, self.key, shared, public)

    @property
    def public_url(self) -> str | None:
        """The address the links start with (ending with ``/``), or None: each request's own."""
        return self.routes.public_url

    @property
    def max_actions(self) -> int | None:
        """The most actions a match may have (None: no cap)."""
        return self.flow.max_actions

    @property
    def max_rounds(self) -> int | None:
        """The most rounds a match may have (None: no cap)."""
        return self.flow.max_rounds

    def text(
        self, game: Game, viewer: int | str, *, pictures: bool = True, table: str = WIDE
    ) -> str:
        """The message that tells ``viewer`` how ``game`` stands, as JSON text.

        See :meth:`Room.text <american_sniff.web.rooms.Room.text>`; a match
        that was not held in memory is held from now on.
        """
        return self.rooms.room(game).text(viewer, pictures=pictures, table=table)

    async def socket(self, socket: WebSocket) -> None:
        """``WS /ws/{id}``: one browser's connection to one match.

        See :meth:`Sockets.socket <american_sniff.web.transport.Sockets.socket>`.
        """
        await self.sockets.socket(socket)

    def start(self) -> None:
        """Listen for the appends of other workers, where the store announces them (PostgreSQL).

        Called when the application starts; :meth:`close` stops it.

        :raises sqlite3.Error: if the database cannot be reached.
        """
        self.listener.start()

    async def close(self) -> None:
        """Stop the bots' tasks and the listener, give up the bot seats' leases, close the store."""
        await self.listener.stop()
        self.rooms.close()
        await self.driver.stop()
        await asyncio.to_thread(self.writer.close)
        # Hand the bot seats this worker drove to the others at once.
        await self.driver.release()
        if self.buckets is not None:
            await asyncio.to_thread(self.buckets.close)
        self.store.close()


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
    buckets: SharedBuckets | None = None,
) -> Starlette:
    """The application serving the matches of ``store``.

    ``bot_delay`` is how long each bot waits before it acts, in seconds;
    ``creations`` the rate limit on new matches; ``forget_after`` how long a
    match nobody is connected to stays in memory; ``limits`` what each
    WebSocket, address and seat may do; ``max_actions`` and ``max_rounds``
    the cap on a match's length; ``public_url`` the address the links start
    with; ``lease`` how long a worker's lease on a bot seat lasts, and
    ``buckets`` the rate limits shared by the workers (see :class:`Server`).
    The :class:`Server` is ``app.state.server``.

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
        buckets=buckets,
    )
    if hosts is None and public_url is not None:
        name = urlsplit(public_url).hostname
        hosts = () if name is None else (name,)
    http = server.routes
    routes = [
        Route("/", page("index.html")),
        Route("/play/{match_id}", page("play.html")),
        Route("/replay", page("replay.html")),
        Route("/how-to-play", page("how-to-play.html")),
        Route("/api/kinds", http.kinds),
        Route("/api/matches", http.create, methods=["POST"]),
        Route("/api/matches", http.matches, methods=["GET"]),
        Route("/api/matches/{match_id}/record", http.record),
        Route("/api/matches/{match_id}/frames", http.frames),
        Route("/api/replay", http.replay, methods=["POST"]),
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


def operator_key(store: MatchBook) -> str:
    """The operator's key of the matches in ``store``, made and kept there the first time.

    Every server on one database gives the same key (the first one stored).
    """
    return store.meta("key", token())


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
            response = refuse(f"the request's headers are over {MAX_HEADER_BYTES >> 10} KiB", 431)
            await response(scope, receive, secured)
        elif wrong_host:
            response = refuse(
                f"this server does not answer for the host {host[:100]!r}: open it at its own "
                "address",
                421,
            )
            await response(scope, receive, secured)
        else:
            await self.app(scope, receive, secured)
