"""Within one machine, every game WebSocket of a match served by one worker: the hand-off.

With ``american-sniff serve --workers N`` the workers accept on one
listening socket, and the system gives each new connection to any of them.
A match whose seats' sockets are on two workers costs both: each follows
the other's moves (the announcement applied), draws the table's pictures
and writes the states out, and both make the forced draws. So each match
has an **owner**, the worker :func:`owner` names from its id (a CRC-32 of
the id, the same in every process, modulo N), and a worker that is asked
for the game's WebSocket (``/ws/{id}``) of a match it does not own hands the
connection to the owner:

* before it forks, the supervisor makes one channel per worker
  (:class:`Channels`: a Unix datagram socket pair each, kept by the
  supervisor, so that a worker started again gets the same channel);
* the worker that read the request (:meth:`Handoff.pass_on`) sends the
  connection's file descriptor (``SCM_RIGHTS``) and the request it read, as
  bytes, on the owner's channel, then forgets the connection without
  closing it: the system keeps the TCP connection open as long as one
  process holds it;
* the owner (:class:`HandingServer`, a uvicorn server that also listens on
  its channel) takes the connection up exactly as if it had accepted it: a
  new connection of the server's own HTTP protocol, fed the request first.
  Everything after that (the limits of sockets, the hello's time, the
  upgrade) is the owner's, and the client's address is the real peer's (or,
  under trusted proxies, the forwarded one, as the request's headers travel
  with it);
* a worker that holds a match another worker owns, with no browser of it
  (it was created here, by ``POST /api/matches``), forgets it at the next
  move announced instead of following it
  (:attr:`Rooms.elsewhere <american_sniff.web.cache.Rooms.elsewhere>`).

A connection that cannot be handed on is served by the worker that has it,
as without a hand-off (correct, only dearer): its owner is not adopting
(not started yet, stopping, or ended), its channel is full or closed, the
request is over :data:`MAX_REQUEST` bytes, or anything else fails.

If the owner ends (``kill -9``) with connections still in its channel, the
supervisor closes them when it notes the end (:meth:`Channels.ended`); its
own sockets close too, and the page connects again, to a worker that
serves it itself; once the owner runs again, new connections go to it (a
socket served elsewhere meanwhile stays there until it closes). A
connection the owner cannot take up (it has no file descriptor left) is
closed, and its page connects again.

Between machines a balancer should still keep a match on one machine (for
example by the path ``/ws/{id}``): a hand-off crosses processes, not
machines. This needs Unix (file descriptors sent on Unix sockets), as the
workers do.
"""

from __future__ import annotations

import asyncio
import contextlib
import mmap
import socket
import zlib
from collections.abc import Callable, Sequence
from typing import Any, cast
from urllib.parse import unquote

import uvicorn

from .serving import HeaderTimeout

__all__ = ["MAX_REQUEST", "Channels", "HandingServer", "Handoff", "match_of", "owner"]

#: The most bytes of a request (its line, headers and anything read after them) handed on.
MAX_REQUEST = 64 << 10

#: The game WebSocket's path, before the match id.
_SOCKET_PATH = b"/ws/"


def owner(match_id: str, workers: int) -> int:
    """The number (1 to ``workers``) of the worker that owns ``match_id``.

    A CRC-32 of the id's UTF-8 bytes, modulo ``workers``: every process
    computes the same (Python's own ``hash`` of a string differs from
    process to process).

    >>> owner("abc", 1), owner("abc", 4), owner("abd", 4)
    (1, 3, 2)
    """
    return zlib.crc32(match_id.encode()) % workers + 1


def match_of(target: bytes) -> str | None:
    """The match id of a request's target if it is the game's WebSocket (``/ws/{id}``), else None.

    >>> match_of(b"/ws/Ab-9_x"), match_of(b"/ws/Ab%2D9?x=1"), match_of(b"/ws/"), match_of(b"/")
    ('Ab-9_x', 'Ab-9', None, None)
    """
    path = target.partition(b"?")[0]
    if not path.startswith(_SOCKET_PATH):
        return None
    rest = path[len(_SOCKET_PATH) :]
    if not rest or b"/" in rest:
        return None
    return unquote(rest.decode("ascii", "replace"))


class Channels:
    """The channels of ``workers`` workers: made by the supervisor before it forks, then inherited.

    Worker ``n`` receives on its own channel; any worker sends on it. A
    byte per worker, in memory shared by every process, says whether that
    worker is adopting connections now (:meth:`Handoff.start` sets it,
    :meth:`Handoff.stop` and :meth:`ended` clear it): no connection is sent
    to a worker that is not.

    :raises ValueError: if ``workers`` is under 1.
    """

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers is 1 or more, got {workers}")
        #: How many workers there are.
        self.workers = workers
        self._inboxes: list[socket.socket] = []
        self._outboxes: list[socket.socket] = []
        for _ in range(workers):
            inbox, outbox = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
            inbox.setblocking(False)
            outbox.setblocking(False)
            self._inboxes.append(inbox)
            self._outboxes.append(outbox)
        self._adopting = mmap.mmap(-1, workers)  # shared with the forked workers

    def worker(self, number: int) -> Handoff:
        """The hand-off of worker ``number`` (1 to :attr:`workers`), in that worker."""
        if not 1 <= number <= self.workers:
            raise ValueError(f"a worker's number is from 1 to {self.workers}, got {number}")
        return Handoff(self, number)

    def adopting(self, number: int) -> bool:
        """Whether worker ``number`` takes connections on its channel now."""
        return bool(self._adopting[number - 1])

    def ended(self, number: int) -> int:
        """Worker ``number`` has ended (in the supervisor): it adopts nothing more.

        The connections left in its channel are closed (their clients
        connect again); returns how many.
        """
        self._adopting[number - 1] = 0
        closed = 0
        while True:
            try:
                _, fds, _, _ = socket.recv_fds(
                    self._inboxes[number - 1], MAX_REQUEST + 1, 4, socket.MSG_DONTWAIT
                )
            except OSError:  # empty (or closed)
                return closed
            for fd in fds:
                with contextlib.suppress(OSError):
                    socket.close(fd)
                closed += 1

    def close(self) -> None:
        """Close every channel (in the supervisor, once the workers have stopped)."""
        for box in (*self._inboxes, *self._outboxes):
            box.close()

    def _set(self, number: int, adopting: bool) -> None:
        self._adopting[number - 1] = int(adopting)

    def _send(self, number: int, request: bytes, fd: int) -> None:
        socket.send_fds(self._outboxes[number - 1], [request], [fd], socket.MSG_DONTWAIT)

    def _inbox(self, number: int) -> socket.socket:
        return self._inboxes[number - 1]


class Handoff:
    """One worker's end of the :class:`Channels`: it hands connections on and adopts others'.

    Made by :meth:`Channels.worker` in the worker.
    """

    def __init__(self, channels: Channels, number: int) -> None:
        self._channels = channels
        #: This worker's number, 1 to :attr:`workers`.
        self.number = number
        #: How many workers there are.
        self.workers = channels.workers
        #: Connections this worker handed to their match's owner.
        self.handed = 0
        #: Connections this worker kept although another owns their match (the hand-off failed).
        self.kept = 0
        #: Connections this worker adopted from another.
        self.adopted = 0
        self._loop: asyncio.AbstractEventLoop | None = None

    def owner_of(self, target: bytes) -> int | None:
        """The worker to hand a request for ``target`` to, or None to serve it here.

        None unless ``target`` is the game's WebSocket of a match that
        another worker owns.
        """
        match_id = match_of(target)
        if match_id is None or self.workers == 1:
            return None
        number = owner(match_id, self.workers)
        return None if number == self.number else number

    def elsewhere(self, match_id: str) -> bool:
        """Whether another worker owns ``match_id`` (and serves its browsers, if it is running)."""
        return self.workers > 1 and owner(match_id, self.workers) != self.number

    def pass_on(self, fd: int, request: bytes, number: int) -> bool:
        """Send the connection ``fd`` and its ``request`` to worker ``number``; whether it was sent.

        If it was, the caller forgets the connection (closing only its own
        descriptor); if not (the worker is not adopting, its channel is
        full or closed, the request is too long), the caller serves it.
        """
        if len(request) <= MAX_REQUEST and self._channels.adopting(number):
            # Counted before it goes: the owner may answer the browser before
            # this thread runs again.
            self.handed += 1
            try:
                self._channels._send(number, request, fd)
            except OSError:
                self.handed -= 1
            else:
                return True
        self.kept += 1
        return False

    def start(self, adopt: Callable[[socket.socket, bytes], None]) -> None:
        """Take connections from this worker's channel, in the running event loop, with ``adopt``.

        ``adopt`` gets each connection (a socket) and the request already
        read on it, and serves it.
        """
        loop = asyncio.get_running_loop()
        inbox = self._channels._inbox(self.number)
        loop.add_reader(inbox.fileno(), self._receive, inbox, adopt)
        self._loop = loop
        self._channels._set(self.number, True)

    def stop(self) -> None:
        """Take no more connections (what is left in the channel is the supervisor's to close)."""
        self._channels._set(self.number, False)
        if self._loop is not None:
            self._loop.remove_reader(self._channels._inbox(self.number).fileno())
            self._loop = None

    def _receive(self, inbox: socket.socket, adopt: Callable[[socket.socket, bytes], None]) -> None:
        """Adopt every connection waiting in the channel."""
        while True:
            try:
                request, fds, flags, _ = socket.recv_fds(
                    inbox, MAX_REQUEST + 1, 4, socket.MSG_DONTWAIT
                )
            except OSError:  # nothing more now
                return
            sockets = [socket.socket(fileno=fd) for fd in fds]
            if len(sockets) != 1 or flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
                for lost in sockets:  # not a whole message: nothing to serve
                    lost.close()
                continue
            self.adopted += 1
            adopt(sockets[0], request)


class HandingServer(uvicorn.Server):
    """A uvicorn server that hands game WebSockets to their match's owner, and adopts its own.

    ``config`` is the server's (:func:`~american_sniff.web.serving.server_config`),
    whose HTTP protocol is a :class:`~american_sniff.web.serving.HeaderTimeout`;
    ``handoff`` is this worker's (:meth:`Channels.worker`).
    """

    def __init__(self, config: uvicorn.Config, handoff: Handoff) -> None:
        protocol = config.http
        if not (isinstance(protocol, type) and issubclass(protocol, HeaderTimeout)):
            raise TypeError("the server's HTTP protocol is to be a HeaderTimeout")
        config.http = type("Handing", (protocol,), {"handoff": handoff})
        super().__init__(config)
        # The matches another worker owns are followed there: here, a match
        # held without a browser (one created here) is forgotten, not followed.
        # (The application of create_app: its Server is app.state.server.)
        server = getattr(getattr(config.app, "state", None), "server", None)
        rooms = getattr(server, "rooms", None)
        if rooms is not None and hasattr(rooms, "elsewhere"):
            rooms.elsewhere = handoff.elsewhere
        #: This worker's hand-off.
        self.handoff = handoff
        self._adoptions: set[asyncio.Task[Any]] = set()

    async def startup(self, sockets: Sequence[socket.socket] | None = None) -> None:  # type: ignore[override, unused-ignore]
        """Start serving, then adopt the connections handed to this worker."""
        await super().startup(sockets=None if sockets is None else list(sockets))
        if not self.should_exit:
            self.handoff.start(self._adopt)

    async def shutdown(self, sockets: Sequence[socket.socket] | None = None) -> None:  # type: ignore[override, unused-ignore]
        """Adopt nothing more, then stop as uvicorn does."""
        self.handoff.stop()
        await super().shutdown(sockets=None if sockets is None else list(sockets))

    def _adopt(self, connection: socket.socket, request: bytes) -> None:
        """Serve ``connection``, whose ``request`` another worker read, as if accepted here."""
        loop = asyncio.get_running_loop()
        config = self.config
        state = self.server_state
        app_state = self.lifespan.state

        def made() -> asyncio.Protocol:
            kind = cast("type[HeaderTimeout]", config.http_protocol_class)
            protocol = kind(config=config, server_state=state, app_state=app_state, _loop=loop)
            protocol.adopted = request
            return protocol

        async def connect() -> None:
            try:
                connection.setblocking(False)
                await loop.connect_accepted_socket(made, connection)
            except Exception:  # the connection went meanwhile: nothing to serve
                connection.close()

        task = loop.create_task(connect())
        self._adoptions.add(task)
        task.add_done_callback(self._adoptions.discard)
