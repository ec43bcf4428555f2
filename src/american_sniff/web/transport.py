"""The WebSocket of the game: a browser's hello, its messages, and the limits per socket.

:meth:`Sockets.socket` serves one browser's WebSocket from its handshake to
its close: the origin check, the limits per client address (sockets open at
once, new sockets per second), the hello within
:attr:`~american_sniff.web.limits.SocketLimits.hello_timeout` that names the
link's token (a seat or the spectator), the limits per seat, then each of the
browser's messages within its rates (per socket and per address; a socket
that keeps on over a rate is closed with 4429) handed to the game flow
(:meth:`Flow.message <american_sniff.web.flow.Flow.message>`). The socket
joins its match's room (:class:`~american_sniff.web.rooms.Room`) for the
fan-out of the match's states while it is open.
"""

from __future__ import annotations

import asyncio
import collections
from typing import TYPE_CHECKING, Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from .cache import Rooms, Unservable
from .connection import (
    CROSS_SITE,
    TOO_SLOW,
    UNSERVABLE,
    Connection,
    parse,
    receive,
    refuse_socket,
    wire_of,
)
from .driver import Driver
from .flow import BOT_SPEEDS, Flow
from .game import GameError
from .limits import Limit, Rate, SocketLimits, same_origin, taken
from .pictures import CHANGED, TABLES, WIDE
from .rooms import Room, viewer_of

if TYPE_CHECKING:
    from .buckets import SharedBuckets

__all__ = ["Sockets"]


class Sockets:
    """The open WebSockets of one server, counted per client address and per seat.

    :param flow: The game flow that carries out the browsers' messages (and
        so the rooms of the matches).
    :param driver: The bot driver, woken when a browser comes or acts.
    :param limits: What each WebSocket, client address and seat may do
        (:class:`~american_sniff.web.limits.SocketLimits`).
    :param buckets: The token buckets shared by every worker on the database
        (:class:`~american_sniff.web.buckets.SharedBuckets`), or None: each
        limit counted by this process alone. Shared: the new sockets of an
        address (``reconnects``) and of a seat (``seat_reconnects``), and an
        address's hints; each socket's own rates, an address's messages and
        the counts of sockets open at once stay this worker's.
    """

    def __init__(
        self,
        flow: Flow,
        driver: Driver,
        limits: SocketLimits | None = None,
        buckets: SharedBuckets | None = None,
    ) -> None:
        #: The game flow.
        self.flow = flow
        #: The bot driver.
        self.driver = driver
        #: What each WebSocket, client address and seat may do.
        self.limits = limits = SocketLimits() if limits is None else limits
        self._buckets = buckets
        self._address_messages = limits.address_messages.limit()  # per message: this worker's
        self._address_hints = self._limit("hints", limits.address_hints)
        self._reconnects = self._limit("reconnects", limits.reconnects)
        self._seat_reconnects = self._limit("seat reconnects", limits.seat_reconnects)
        self._per_address: collections.Counter[str] = collections.Counter()  # open sockets
        self._per_seat: collections.Counter[str] = collections.Counter()  # open sockets

    def _limit(self, name: str, rate: Rate) -> Limit:
        """The limit ``name`` of size ``rate``: shared by the workers if there are buckets."""
        return rate.limit() if self._buckets is None else self._buckets.limit(name, rate)

    @property
    def rooms(self) -> Rooms:
        """The matches held in memory."""
        return self.flow.rooms

    async def socket(self, socket: WebSocket) -> None:
        """One browser's connection to one match."""
        await socket.accept()
        if not same_origin(socket.headers):
            await socket.send_json({"type": "error", "message": CROSS_SITE})
            await socket.close(code=4403)
            return
        address = socket.client.host if socket.client is not None else ""
        refusal = await self._address_refusal(address)
        if refusal is not None:
            await refuse_socket(socket, refusal)
            return
        self._per_address[address] += 1
        try:
            await self._serve_socket(socket, address)
        finally:
            _done_one(self._per_address, address)

    async def _address_refusal(self, address: str) -> str | None:
        """Why a new socket from ``address`` is refused (too often, or too many open), or None."""
        limits = self.limits
        wait = await taken(self._reconnects, address)
        if wait:
            return _too_often("new connections from this address", limits.reconnects, wait)
        if self._per_address[address] >= limits.per_address:
            return (
                f"this address has {limits.per_address} connections open, the most it may "
                "have at once: close some pages of this server"
            )
        return None

    async def _seat_refusal(self, seat: str) -> str | None:
        """Why a new socket of ``seat`` is refused (too often, or too many open), or None."""
        limits = self.limits
        wait = await taken(self._seat_reconnects, seat)
        if wait:
            return _too_often("new connections of this seat", limits.seat_reconnects, wait)
        if self._per_seat[seat] >= limits.per_seat:
            return (
                f"this seat has {limits.per_seat} connections open, the most it may have at "
                "once: close another page of it"
            )
        return None

    async def _room_of(self, socket: WebSocket, match_id: str) -> tuple[Room | None, bool]:
        """The room of ``match_id`` (None if there is no such match), and whether it refused.

        A match the server cannot serve refuses the socket, saying why
        (:data:`~american_sniff.web.connection.UNSERVABLE`).
        """
        try:
            return await self.rooms.load(match_id), False
        except Unservable as error:
            await refuse_socket(socket, str(error), UNSERVABLE)
            return None, True

    async def _serve_socket(self, socket: WebSocket, address: str) -> None:
        """The connection of ``socket``, from its hello until it closes."""
        match_id = socket.path_params["match_id"]
        rooms = self.rooms
        room, refused = await self._room_of(socket, match_id)
        if refused:
            return
        viewer = None
        pictures: bool | str = True
        table = WIDE
        if room is not None:
            try:
                viewer, pictures, table = await self._greeted(socket, room)
            except WebSocketDisconnect:
                return
            except asyncio.TimeoutError:
                late = f"no hello came within {self.limits.hello_timeout:g} s: reconnect"
                await refuse_socket(socket, late, TOO_SLOW)
                return
        if room is None or viewer is None:
            await socket.send_json({"type": "error", "message": "no match has this link"})
            await socket.close(code=4404)
            return
        seat = f"{viewer} {match_id}" if isinstance(viewer, int) else ""
        if not await self._admitted(socket, seat, room):
            return
        connection = Connection(
            socket,
            viewer,
            pictures=pictures is not False,
            table=table,
            changed=pictures == CHANGED,
            limits=self.limits,
            wire=wire_of(socket.scope),
        )
        pump = asyncio.create_task(connection.pump())
        room.sockets[connection] = pump
        try:
            room.send(connection, room.text_for(connection))
            if room.ended is not None:
                room.error(connection, room.ended)
            self.driver.drive(room)
            while not connection.dropped and not pump.done():
                message = await self._next(room, connection, address)
                if message is None:
                    continue
                if connection.refused >= self.limits.persist:
                    pump.cancel()
                    await refuse_socket(socket, message["refused"])
                    break
                if await self.flow.message(room, connection, message):
                    self.driver.drive(room)
        except WebSocketDisconnect:
            pass
        finally:
            if seat:
                _done_one(self._per_seat, seat)
            room.sockets.pop(connection, None)
            pump.cancel()
            if not room.sockets:
                rooms.idle(room)

    async def _admitted(self, socket: WebSocket, seat: str, room: Room) -> bool:
        """Count one more socket of ``seat`` (a spectator's is ""), or refuse it if over a limit.

        The browser counts as arriving meanwhile (the seat's limit may ask the
        database): the match is neither forgotten nor let go under it, which
        would leave the socket on a copy that nothing here follows.
        """
        room.arriving += 1
        try:
            refusal = await self._seat_refusal(seat) if seat else None
        finally:
            room.arriving -= 1
        if refusal is None:
            self._per_seat[seat] += 1
            return True
        if not room.sockets:
            self.rooms.idle(room)
        await refuse_socket(socket, refusal)
        return False

    async def _next(
        self, room: Room, connection: Connection, address: str
    ) -> dict[str, Any] | None:
        """The next message of ``connection`` to carry out, None if it was answered with an error.

        A message over one of the rates is refused with an ``error`` message
        that names the rate; after :attr:`SocketLimits.persist` refused in a
        row, the message is ``{"refused": reason}``, and the socket is closed.

        :raises WebSocketDisconnect: if the browser went away.
        """
        problem = ""
        try:
            text: str | None = await receive(connection.socket)
        except GameError as error:
            text, problem = None, str(error)
        refusal = self._message_refusal(connection, address)
        message = None
        if refusal is None and text is not None:
            try:
                message = parse(text)
            except GameError as error:
                problem = str(error)
            else:
                if message.get("type") == "hint":
                    refusal = await self._hint_refusal(connection, address)
        if refusal is not None:
            connection.refused += 1
            if connection.refused >= self.limits.persist:
                return {"refused": f"{refusal}; the connection is closed"}
            room.error(connection, refusal)
            return None
        connection.refused = 0
        if message is None:
            room.error(connection, problem)
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

    async def _hint_refusal(self, connection: Connection, address: str) -> str | None:
        """Why one more hint of ``connection`` is refused for a rate, or None."""
        wait = connection.hints.take()
        if wait:
            return _too_often("hints on this connection", self.limits.hints, wait)
        wait = await taken(self._address_hints, address)
        if wait:
            return _too_often("hints from this address", self.limits.address_hints, wait)
        return None

    async def _greeted(
        self, socket: WebSocket, room: Room
    ) -> tuple[int | str | None, bool | str, str]:
        """The viewer whose token the hello gives (None: none), which pictures, and which table.

        The pictures are the hello's ``pictures``: False for none,
        :data:`~american_sniff.web.pictures.CHANGED` for each drawing only
        where it changed, True (anything else) for all of them in every
        message. The table is the hello's ``table`` (one of
        :data:`~american_sniff.web.pictures.TABLES`; anything else is the wide one).

        The browser counts as connected while its hello is awaited, so that
        the match is not forgotten meanwhile (the browser would keep a game
        that nobody else has).

        :raises WebSocketDisconnect: if the browser went away.
        :raises asyncio.TimeoutError: if no hello came within the
            :attr:`~american_sniff.web.limits.SocketLimits.hello_timeout`.
        """
        room.arriving += 1
        viewer = None
        try:
            text = await asyncio.wait_for(receive(socket), self.limits.hello_timeout)
            hello = parse(text)
            viewer = viewer_of(room.game, hello.get("token"))
            speed = hello.get("speed")
            if isinstance(viewer, int) and isinstance(speed, str) and speed in BOT_SPEEDS:
                room.speed = speed
            table = hello.get("table")
            pictures = hello.get("pictures", True)
            return (
                viewer,
                pictures if pictures is False or pictures == CHANGED else True,
                table if isinstance(table, str) and table in TABLES else WIDE,
            )
        except GameError:
            return None, True, WIDE
        finally:
            room.arriving -= 1
            if viewer is None and not room.arriving and not room.sockets:
                self.rooms.idle(room)


def _too_often(what: str, rate: Rate, wait: float) -> str:
    """The refusal of one more of ``what`` over ``rate``, with the time to wait."""
    pace = f"one every {rate.every:g} s" if rate.every >= 1 else f"{rate.per_second:g} a second"
    return f"too many {what}: at most {rate.burst} at once, then {pace}; try again in {wait:g} s"


def _done_one(counts: collections.Counter[str], key: str) -> None:
    """Count one of ``key``'s things as done, keeping no key at zero."""
    counts[key] -= 1
    if not counts[key]:
        del counts[key]
