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
  that, new requests get 503;
* no per-message compression of WebSocket messages: compressing the same
  message once for every socket was the largest cost of a spectator, and
  the messages (mostly SVG) are a few kilobytes.

:func:`tune_collector`, which ``american-sniff serve`` calls before it
serves, makes the pauses of Python's cyclic garbage collector short and
rare. A server holds every state of each match being played, and with the
collector's usual thresholds a full collection of 200 matches' states
paused everything for up to 200 ms (``benchmarks/serve.py``: a move's round
trip p99 of 191 ms with 200 matches, 37 ms with the collector off, 28 to
70 ms tuned). A host that embeds :func:`~american_sniff.web.app.create_app` in a
server of its own may call it too; it changes the whole process.
"""

from __future__ import annotations

import asyncio
import gc
import socket
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .limits import MAX_HEADER_BYTES

__all__ = [
    "COLLECTOR_THRESHOLDS",
    "HEADER_TIMEOUT",
    "MAX_CONNECTIONS",
    "MAX_FRAME",
    "HeaderTimeout",
    "listen",
    "server_config",
    "tune_collector",
]

#: Seconds a client has to send a request's headers.
HEADER_TIMEOUT = 10.0

#: The longest WebSocket frame a browser may send, in bytes.
MAX_FRAME = 16 << 10

#: The most connections (and requests in progress) at once.
MAX_CONNECTIONS = 1000

#: The cyclic collector's thresholds while serving (:func:`gc.set_threshold`):
#: a young collection after 50,000 new objects (instead of 700), a middle one
#: every 20 of those, a full one every 10 middle ones (a few minutes at a
#: thousand actions a second). Objects without cycles, which the engine's
#: states are, are freed at once whatever the thresholds.
COLLECTOR_THRESHOLDS = (50_000, 20, 10)


def tune_collector() -> None:
    """Set :data:`COLLECTOR_THRESHOLDS`, after moving what exists now out of the collector's way.

    What was made before serving (modules, classes, the application) is
    collected once, then frozen (:func:`gc.freeze`): no collection walks it
    again.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


class HeaderTimeout(H11Protocol):
    """uvicorn's HTTP/1.1 connection, closed if a request's headers take too long to arrive.

    The clock starts when the connection is made and again after each
    answer; it stops when the headers are all in. A connection that became a
    WebSocket is not touched.
    """

    header_timeout = HEADER_TIMEOUT

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override, unused-ignore]
        """Start the connection and its clock."""
        super().connection_made(transport)
        self._header_clock: asyncio.TimerHandle | None = None
        self._start_clock()

    def on_response_complete(self) -> None:
        """An answer is sent: the next request's headers have their own time."""
        super().on_response_complete()
        self._start_clock()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the clock as the connection goes."""
        if self._header_clock is not None:
            self._header_clock.cancel()
        super().connection_lost(exc)

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


def server_config(app: Any, *, max_connections: int = MAX_CONNECTIONS) -> uvicorn.Config:
    """The uvicorn configuration of ``app`` with the limits of this module."""
    return uvicorn.Config(
        app,
        http=HeaderTimeout,
        ws="websockets-sansio",
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
