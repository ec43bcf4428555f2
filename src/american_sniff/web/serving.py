"""The browser game's HTTP server (uvicorn), with the limits of a connection.

:func:`server_config` is what ``american-sniff serve`` runs (and
``benchmarks/serve.py`` too). Beyond the application's own limits
(:mod:`american_sniff.web.limits`), it sets:

* request headers that come slowly are buffered up to
  :data:`~american_sniff.web.limits.MAX_HEADER_BYTES` (16 KiB; more is refused
  with 400, and headers that come at once beyond it get 431 from the
  application), and they must all arrive within :data:`HEADER_TIMEOUT`
  seconds of the connection (or of the previous answer on it), or the
  connection is closed: a client that opens connections and never finishes
  a request cannot lock others out;
* WebSocket frames of at most :data:`MAX_FRAME` bytes (16 KiB: a message is at
  most 4,096 characters); a longer one closes the socket (1009);
* at most :data:`MAX_CONNECTIONS` connections and requests at once; beyond
  that, new requests get 503. WebSockets count among them, and may take
  only nine tenths of them (:func:`socket_limit`): a WebSocket asked for
  beyond that gets 503 too, so that idle WebSockets can never leave HTTP
  without a connection;
* ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed only from the
  addresses given as ``trusted_proxies`` (``--trusted-proxy``), and from no
  address by default: a client that names another address is counted as
  the address it comes from;
* no per-message compression of WebSocket messages: compressing the same
  message once for every socket was the largest cost of a spectator, and
  the messages (mostly SVG) are a few kilobytes;
* each WebSocket is a :class:`GameWire`: uvicorn's own, which also lets the
  game write a message straight to the socket, and reads on while a few of
  the browser's messages wait, instead of stopping and starting to read for
  each one.

:func:`tune_collector`, which ``american-sniff serve`` calls before it
serves, makes the pauses of Python's cyclic garbage collector short and
rare. A server holds every state of each match being played, and with the
collector's usual thresholds a full collection of 200 matches' states
paused everything for up to 200 ms (``benchmarks/serve.py``: a move's round
trip p99 of 191 ms with 200 matches, 37 ms with the collector off, 28 to
70 ms tuned). Its :class:`Freezer` then freezes what the server makes four
times a second, so that the young collections, which paused the server 28
to 100 ms about every second at a thousand actions a second and found
nothing to free, do not come at all; it lets the collector look at
everything once every ten minutes. A host that embeds
:func:`~american_sniff.web.app.create_app` in a server of its own may call
it too; it changes the whole process.
"""

from __future__ import annotations

import asyncio
import gc
import socket
import threading
import time
from collections.abc import Sequence
from typing import Any, ClassVar, Protocol

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .connection import WIRE
from .limits import MAX_HEADER_BYTES

__all__ = [
    "COLLECTOR_THRESHOLDS",
    "FREEZE_EVERY",
    "HEADER_TIMEOUT",
    "MAX_CONNECTIONS",
    "MAX_FRAME",
    "READ_AHEAD",
    "SEND_BUFFER",
    "WHOLE_EVERY",
    "Freezer",
    "GameWire",
    "HeaderTimeout",
    "PassOn",
    "listen",
    "raise_file_limit",
    "server_config",
    "socket_limit",
    "tune_collector",
]

#: Seconds a client has to send a request's headers.
HEADER_TIMEOUT = 10.0

#: The longest WebSocket frame a browser may send, in bytes.
MAX_FRAME = 16 << 10

#: The most connections (and requests in progress) at once.
MAX_CONNECTIONS = 1000

#: How many of a browser's messages may wait for the game before the server
#: stops reading its socket (until the game has taken them all).
READ_AHEAD = 4

#: The most bytes that may wait to be sent on one WebSocket. A browser that
#: lets more pile up (it does not read) is dropped: nobody else waits on it.
#: It is about 32 of the largest state messages (a 4-player table, drawn).
SEND_BUFFER = 1 << 20

#: The cyclic collector's thresholds while serving (:func:`gc.set_threshold`):
#: a young collection after 50,000 new objects (instead of 700), a middle one
#: every 20 of those, a full one every 10 middle ones (a few minutes at a
#: thousand actions a second). Objects without cycles, which the engine's
#: states are, are freed at once whatever the thresholds.
COLLECTOR_THRESHOLDS = (50_000, 20, 10)


def socket_limit(max_connections: int) -> int:
    """How many of ``max_connections`` WebSockets may take: all but a tenth, kept for HTTP.

    >>> socket_limit(1000), socket_limit(5)
    (900, 4)
    """
    return max_connections - max(1, max_connections // 10)


def raise_file_limit(connections: int) -> int:
    """Let this process open enough files for ``connections`` connections; the limit now.

    Each connection is a file, and so is each database connection; many
    systems let a process open only 1,024 unless it asks for more. The soft
    limit is raised towards ``connections`` and a hundred more, up to the hard
    limit (which only the system's administrator raises). Where there is no
    such limit (Windows), nothing is done and 0 is returned.
    """
    try:
        import resource  # noqa: PLC0415 - not on Windows
    except ImportError:  # pragma: no cover - Windows
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + 100
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        soft = wanted
    return int(soft)


def tune_collector(*, freezer: bool = True) -> Freezer | None:
    """Set :data:`COLLECTOR_THRESHOLDS`, after moving what exists now out of the collector's way.

    What was made before serving (modules, classes, the application) is
    collected once, then frozen (:func:`gc.freeze`): no collection walks it
    again. Then, unless ``freezer`` is false, a :class:`Freezer` keeps on
    freezing what the server makes, so that no young collection pauses it;
    it is returned (its thread is a daemon: it ends with the process).

    >>> import gc
    >>> thresholds = gc.get_threshold()
    >>> freezer = tune_collector()
    >>> gc.get_threshold() == COLLECTOR_THRESHOLDS, isinstance(freezer, Freezer)
    (True, True)
    >>> freezer.stop()
    >>> tune_collector(freezer=False) is None
    True
    >>> gc.unfreeze(); gc.set_threshold(*thresholds)  # (this example's process is no server)
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    return Freezer() if freezer else None


class PassOn(Protocol):
    """What :class:`HeaderTimeout` asks of a hand-off: a :class:`~.handoff.Handoff`."""

    def owner_of(self, target: bytes) -> int | None:
        """The worker to hand a request for ``target`` to, or None to serve it here."""

    def pass_on(self, fd: int, request: bytes, number: int) -> bool:
        """Send the connection ``fd`` and its ``request`` to worker ``number``; whether it went."""


#: How often a :class:`Freezer` moves what the process holds out of the
#: cyclic collector's way (:func:`gc.freeze`), in seconds.
FREEZE_EVERY = 0.25

#: How often a :class:`Freezer` lets the collector look at everything once
#: (:func:`gc.unfreeze`, then a full collection), in seconds.
WHOLE_EVERY = 600.0


class Freezer:
    """A thread that keeps the cyclic collector's young collections from pausing the server.

    A server holds its matches' states, their drawings' kept search and
    their texts: objects made every action and kept, which have no cycles
    (they are freed by their reference counts when the match is forgotten).
    Python's collector walks each of them at least once, and a young
    collection that walked a second's worth of them paused the whole server
    for 28 to 100 ms, and found nothing to free (``benchmarks/serve.py``,
    with :func:`tune_collector`'s thresholds, 1,000 actions a second).

    So every ``every`` seconds this thread freezes what exists
    (:func:`gc.freeze`, which takes no time whatever the count): the young
    generation stays small, and is collected seldom if ever. A cycle that
    became garbage only after it was frozen is kept until the next look at
    everything, every ``whole`` seconds: the whole heap unfrozen, collected
    once, and frozen again (one long pause, as the collector's own full
    collections are).

    :param every: Seconds between freezes (:data:`FREEZE_EVERY`).
    :param whole: Seconds between looks at everything (:data:`WHOLE_EVERY`).

    What the server makes once it runs is frozen within ``every`` seconds:

    >>> import gc, time
    >>> before = gc.get_freeze_count()
    >>> freezer = Freezer(every=0.01)
    >>> kept = [[n] for n in range(1000)]  # (lists: the collector tracks them)
    >>> for _ in range(1000):  # at most 10 s
    ...     if gc.get_freeze_count() >= before + 1000:
    ...         break
    ...     time.sleep(0.01)
    >>> gc.get_freeze_count() >= before + 1000
    True
    >>> freezer.stop()
    >>> gc.unfreeze()  # (this example's process is no server)
    """

    def __init__(self, every: float = FREEZE_EVERY, whole: float = WHOLE_EVERY) -> None:
        #: Seconds between freezes.
        self.every = every
        #: Seconds between looks at everything.
        self.whole = whole
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="american-sniff-freezer")
        self._thread.daemon = True
        self._thread.start()

    def _run(self) -> None:
        looked = time.monotonic()
        while not self._stopped.wait(self.every):
            if time.monotonic() - looked >= self.whole:
                gc.unfreeze()
                gc.collect()
                looked = time.monotonic()
            gc.freeze()

    def stop(self) -> None:
        """Stop the thread (what is frozen stays frozen)."""
        self._stopped.set()
        self._thread.join()


class HeaderTimeout(H11Protocol):
    """uvicorn's HTTP/1.1 connection, closed if a request's headers take too long to arrive.

    The clock starts when the connection is made and again after each
    answer; it stops when the headers are all in. A connection that became a
    WebSocket is not touched.
    """

    header_timeout = HEADER_TIMEOUT

    #: The most connections there may be when a WebSocket is asked for (None: no limit).
    socket_limit: int | None = None

    #: Where game WebSockets of matches another worker owns are handed on (None: nowhere).
    handoff: ClassVar[PassOn | None] = None

    #: The request another worker read on this connection before it handed it
    #: here (:mod:`american_sniff.web.handoff`), or None for a connection accepted here.
    adopted: bytes | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override, unused-ignore]
        """Start the connection and its clock (and read the request of an adopted connection)."""
        super().connection_made(transport)
        self._header_clock: asyncio.TimerHandle | None = None
        self._start_clock()
        if self.adopted is not None:  # read here before anything the connection sends next
            self.data_received(self.adopted)

    def on_response_complete(self) -> None:
        """An answer is sent: the next request's headers have their own time."""
        super().on_response_complete()
        self._start_clock()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the clock as the connection goes."""
        if self._header_clock is not None:
            self._header_clock.cancel()
        super().connection_lost(exc)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        """Become a WebSocket, unless the WebSockets' share of the connections is taken (503).

        A game WebSocket of a match that another worker owns is handed to
        it, if it takes it (:attr:`handoff`): then this process forgets the
        connection, and the limits are the other worker's.
        """
        if self.handoff is not None and self.adopted is None and self._pass_on(event):
            return
        if self.socket_limit is not None and len(self.connections) > self.socket_limit:
            # This connection is one of them until it upgrades: more than the
            # limit means the limit is reached without it.
            self.transport.write(_SOCKETS_FULL)
            self.transport.close()
            return
        super().handle_websocket_upgrade(event)

    def _pass_on(self, event: h11.Request) -> bool:
        """Hand the connection to the worker that owns its match; whether it was handed."""
        assert self.handoff is not None
        number = self.handoff.owner_of(event.target)
        if number is None:
            return False
        transport = self.transport
        socket_ = transport.get_extra_info("socket")
        if (
            socket_ is None
            or transport.get_extra_info("sslcontext") is not None  # (its state is here)
            or transport.get_write_buffer_size()  # an answer still going out: it goes first
        ):
            return False
        # The request as uvicorn gives it to its WebSocket protocol, and
        # whatever came after it on the connection.
        request = [event.method, b" ", event.target, b" HTTP/1.1\r\n"]
        for name, value in self.headers:
            request += [name, b": ", value, b"\r\n"]
        request += [b"\r\n", self.conn.trailing_data[0]]
        transport.pause_reading()  # nothing more is read here
        if not self.handoff.pass_on(socket_.fileno(), b"".join(request), number):
            transport.resume_reading()
            return False
        # The other worker holds the connection now: closing this process's
        # descriptor leaves it open (nothing is left to write, no shutdown is sent).
        transport.close()
        return True

    def _start_clock(self) -> None:
        if self._header_clock is not None:
            self._header_clock.cancel()
        self._header_clock = self.loop.call_later(self.header_timeout, self.headers_late)

    def headers_late(self) -> None:
        """The time is up: close the connection unless its request's headers are in."""
        self._header_clock = None
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return  # closed already, or a WebSocket now
        if self.conn.their_state is h11.IDLE:
            self.transport.close()


class GameWire(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket (the ``websockets`` library's sans-I/O protocol), cheaper per message.

    Two changes, neither seen by a browser:

    * **The game writes to it directly.** The scope of each WebSocket
      carries the connection itself in its extensions, under
      :data:`~american_sniff.web.connection.WIRE`; the game's
      :class:`~american_sniff.web.connection.Connection` then sends each
      message with :meth:`send_text_now`, which frames it and hands it to
      the socket at once, without a task, a queue and the ASGI layers in
      between. A socket whose unsent bytes would pass :data:`SEND_BUFFER`
      is refused the message (its browser does not read) and is dropped by
      the game.
    * **It reads ahead.** uvicorn stops reading a socket as soon as one
      message waits for the application, and starts again when it is taken:
      two system calls for each message. This one reads on until
      :data:`READ_AHEAD` messages wait, so a browser still cannot make it
      hold more than a few frames of :data:`MAX_FRAME` bytes.

    Everything else (the handshake, pings, the closing handshake, the limits
    on frames, the ASGI messages) is uvicorn's.
    """

    # uvicorn's own state, read and set here (declared for type checkers that
    # see uvicorn as Any: the web extra is optional).
    read_paused: bool
    close_sent: bool
    disconnected: bool

    def handle_connect(self, event: Any) -> None:
        """Take the handshake's request, and offer this connection to the game in its scope."""
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # none when the handshake was refused
        if scope is not None:
            scope["extensions"][WIRE] = {"wire": self}

    def send_receive_event_to_app(self) -> None:
        """Hand a whole message to the application; stop reading only if many wait."""
        paused = self.read_paused
        self.read_paused = True  # so that uvicorn's own code does not stop reading
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = paused
        if not paused and self.queue.qsize() >= READ_AHEAD:
            self.read_paused = True
            self.transport.pause_reading()

    def send_text_now(self, text: str) -> bool:
        """Send ``text`` as one text frame now; False if it cannot be (closed, or not read).

        Call it only once the handshake is complete (the game does, after
        accepting the socket).
        """
        transport = self.transport
        if self.close_sent or self.disconnected or transport.is_closing():
            return False
        data = text.encode()
        if transport.get_write_buffer_size() + len(data) > SEND_BUFFER:
            return False
        transport.write(_text_frame_head(len(data)) + data)
        return True


def _text_frame_head(length: int) -> bytes:
    """The head of a server's unmasked, final text frame of ``length`` bytes (RFC 6455, 5.2)."""
    if length < 126:
        return bytes((0x81, length))
    if length < 1 << 16:
        return bytes((0x81, 126)) + length.to_bytes(2, "big")
    return bytes((0x81, 127)) + length.to_bytes(8, "big")


#: The answer to a WebSocket asked for when the WebSockets' share is taken.
_SOCKETS_FULL = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: 40\r\n\r\n"
    b"too many WebSockets at once: try again\r\n"
)


def server_config(
    app: Any,
    *,
    max_connections: int = MAX_CONNECTIONS,
    trusted_proxies: Sequence[str] = (),
) -> uvicorn.Config:
    """The uvicorn configuration of ``app`` with the limits of this module.

    ``trusted_proxies`` are the addresses (or networks, such as
    ``10.0.0.0/8``) whose ``X-Forwarded-For`` and ``X-Forwarded-Proto``
    headers are believed; with none, the headers are ignored.
    """
    protocol = type(
        "LimitedHTTP", (HeaderTimeout,), {"socket_limit": socket_limit(max_connections)}
    )
    return uvicorn.Config(
        app,
        http=protocol,
        proxy_headers=bool(trusted_proxies),
        forwarded_allow_ips=list(trusted_proxies) or None,
        ws=GameWire,
        ws_max_size=MAX_FRAME,
        # Compressing each message for each socket cost more CPU than anything
        # else a spectator costs (benchmarks/serve.py): messages go as they are.
        ws_per_message_deflate=False,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        limit_concurrency=max_connections,
        log_level="warning",
    )


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host`` and ``port`` (0 picks a free port).

    :raises OSError: if it cannot.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
        listener.listen(1024)  # browsers may connect at once: they wait for the server
    except OSError:
        listener.close()
        raise
    return listener
