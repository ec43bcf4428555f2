"""One browser's WebSocket on the wire: its queue of messages to send, reading and closing it.

This module knows a socket and nothing of the matches: a
:class:`Connection` is who the socket is (a seat or a spectator) with its
own bounded queue and sender, or the socket's :class:`Wire`, written to at
once, where the server offers one; :func:`receive` and :func:`parse` read a
browser's message within :data:`~american_sniff.web.limits.MAX_MESSAGE`
characters and :data:`~american_sniff.web.limits.MAX_DEPTH` levels;
:func:`refuse_socket` and :func:`close` end a socket without waiting on a
browser that does not read.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Mapping
from typing import Any, Protocol

from starlette.websockets import WebSocket, WebSocketDisconnect

from .game import GameError
from .limits import MAX_DEPTH, MAX_MESSAGE, Bucket, SocketLimits, json_depth

__all__ = [
    "CROSS_SITE",
    "SEND_QUEUE",
    "TOO_MANY",
    "TOO_SLOW",
    "UNSERVABLE",
    "WIRE",
    "Connection",
    "Wire",
    "close",
    "parse",
    "receive",
    "refuse_socket",
    "wire_of",
]

#: Why a request from another site's page is refused (a ``POST``, or a WebSocket).
CROSS_SITE = (
    "this server takes moves and new matches only from its own pages "
    "(the request came from a page of another site)"
)

#: How many messages may wait to be sent to one WebSocket. A browser that
#: lets more pile up (it does not read) is dropped: nobody else waits on it.
SEND_QUEUE = 32

#: The close code of a WebSocket dropped for not reading, or for saying no
#: hello in time (the page reconnects).
TOO_SLOW = 4408

#: The close code of a WebSocket over one of its limits (:class:`SocketLimits`).
TOO_MANY = 4429

#: The close code of a WebSocket to a match the server cannot serve (its log
#: no longer replays, or the browser game did not make it): the page does not
#: reconnect.
UNSERVABLE = 4409


#: The name under which a WebSocket's ASGI scope may offer the game a
#: :class:`Wire` (in ``scope["extensions"]``, as ``{"wire": the_wire}``):
#: ``american-sniff serve``'s server does (:class:`~american_sniff.web.serving.GameWire`).
WIRE = "american_sniff.wire"


class Wire(Protocol):
    """A WebSocket the game may write to at once, without the ASGI layers."""

    def send_text_now(self, text: str) -> bool:
        """Send ``text`` as one message now; False if it cannot be (closed, or not read)."""


def wire_of(scope: Mapping[str, Any]) -> Wire | None:
    """The :class:`Wire` a WebSocket's ASGI ``scope`` offers under :data:`WIRE`, or None."""
    extensions = scope.get("extensions")
    offered = extensions.get(WIRE) if isinstance(extensions, dict) else None
    wire = offered.get("wire") if isinstance(offered, dict) else None
    return wire if callable(getattr(wire, "send_text_now", None)) else None


class Connection:
    """One browser's open WebSocket: who it is and its bounded queue of messages to send.

    Messages are put in the queue without waiting (:meth:`offer`), and a task
    of its own (:meth:`pump`) sends them one by one, so a browser that does
    not read holds up only its own queue. When the queue is full the
    connection is dropped. Where the socket offers a :class:`Wire`, each
    message is written to it at once instead (the wire holds what the
    browser has not read yet, within its own bound), and the connection is
    dropped when the wire refuses one.

    :param socket: The WebSocket.
    :param viewer: The seat number, or :data:`~american_sniff.web.hosting.SPECTATOR`.
    :param limit: The most messages that may wait (:data:`SEND_QUEUE`).
    :param pictures: Whether its messages carry the pictures (the browser's
        page draws them; a scripted client may say it does not want them).
    :param table: Which drawing of the table they carry
        (:data:`~american_sniff.web.pictures.WIDE` or
        :data:`~american_sniff.web.pictures.NARROW`): the one the page shows.
    :param changed: Whether they carry each drawing only where it changed
        since the last state message sent here (the hello said
        :data:`~american_sniff.web.pictures.CHANGED`): see :attr:`shown`.
    :param limits: How fast it may send messages and ask for hints (its own
        token buckets, :attr:`messages` and :attr:`hints`).
    :param wire: The socket's :class:`Wire`, if it offers one (:func:`wire_of`).
    """

    def __init__(  # noqa: PLR0913 (the options are keyword-only, each with a default)
        self,
        socket: WebSocket,
        viewer: int | str,
        limit: int = SEND_QUEUE,
        *,
        pictures: bool = True,
        table: str = "wide",  # web.pictures.WIDE (pictures comes after this module)
        changed: bool = False,
        limits: SocketLimits | None = None,
        wire: Wire | None = None,
    ) -> None:
        #: The WebSocket.
        self.socket = socket
        #: The socket's wire, written to at once, or None (its messages are queued).
        self.wire = wire
        #: The seat number, or the spectator.
        self.viewer = viewer
        #: Whether its messages carry the pictures.
        self.pictures = pictures
        #: Which drawing of the table they carry (the page's, which may change).
        self.table = table
        #: Whether they carry each drawing only where it changed.
        self.changed = changed
        #: With :attr:`changed`: the text of each drawing the page holds (the
        #: last sent of each), by the message's member that carried it.
        self.shown: dict[str, str] = {}
        #: Whether it was dropped (its queue filled, or its socket failed).
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
        if self.wire is not None:
            if not self.wire.send_text_now(text):
                self.dropped = True
            return not self.dropped
        try:
            self._queue.put_nowait(text)
        except asyncio.QueueFull:
            self.dropped = True
            return False
        return True

    async def pump(self) -> None:
        """Send the queued messages until cancelled or the socket fails (with a wire: wait)."""
        if self.wire is not None:
            await asyncio.get_running_loop().create_future()  # until cancelled
        try:
            while True:
                text = await self._queue.get()
                await self.socket.send_text(text)
        except Exception:  # the browser went away
            self.dropped = True


async def receive(socket: WebSocket) -> str:
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


def parse(text: str) -> dict[str, Any]:
    """A browser's message as a JSON object.

    :raises GameError: if it is not one (too deep, not JSON, not an object).
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


async def refuse_socket(socket: WebSocket, reason: str, code: int = TOO_MANY) -> None:
    """Tell ``socket`` why it is refused (an ``error`` message), then close it with ``code``."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(socket.send_json({"type": "error", "message": reason}), 5)
    await close(socket, code, reason[:100])


async def close(socket: WebSocket, code: int, reason: str) -> None:
    """Close ``socket``, giving up after a few seconds (a browser that does not read)."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(socket.close(code=code, reason=reason), 5)
