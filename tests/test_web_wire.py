"""The served WebSocket (``serving.GameWire``): direct writes, reading ahead, its frames.

These drive uvicorn's WebSocket protocol class through a fake transport, as
uvicorn's own HTTP connection hands it an upgraded socket; a real server is
tested in ``test_web_host.py`` and the browser tests.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any, cast

import pytest

pytest.importorskip("uvicorn")

from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from american_sniff.web.connection import WIRE, Connection, wire_of
from american_sniff.web.serving import (
    READ_AHEAD,
    SEND_BUFFER,
    GameWire,
    server_config,
)

HANDSHAKE = (
    b"GET /ws/m HTTP/1.1\r\nHost: testserver\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


class FakeTransport(asyncio.Transport):
    """What uvicorn's WebSocket protocol uses of a socket's transport, recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.pauses = 0
        self.resumes = 0
        self.buffered = 0  # what the transport reports as not yet sent
        self.closing = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        """No socket, no addresses."""
        return default

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Keep what is written."""
        self.written += data

    def get_write_buffer_size(self) -> int:
        """What the test says is waiting."""
        return self.buffered

    def is_closing(self) -> bool:
        """Whether it was closed (or the test says so)."""
        return self.closing

    def close(self) -> None:
        """Close it."""
        self.closing = True

    def pause_reading(self) -> None:
        """Count a pause."""
        self.pauses += 1

    def resume_reading(self) -> None:
        """Count a resumption."""
        self.resumes += 1


def _client_frame(text: str) -> bytes:
    """A browser's masked, final text frame of ``text`` (short: under 126 bytes)."""
    data = text.encode()
    assert len(data) < 126
    mask = os.urandom(4)
    return (
        bytes((0x81, 0x80 | len(data))) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))
    )


def _frames(data: bytes) -> list[Frame]:
    """The server's frames in ``data`` (after the handshake's answer), parsed by ``websockets``."""
    reader = StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    frames = []
    while reader.buffer:  # what is not parsed yet
        parser = Frame.parse(reader.read_exact, mask=False)
        try:
            next(parser)
        except StopIteration as done:
            frames.append(done.value)
        else:  # pragma: no cover - the data ended inside a frame
            raise AssertionError("a frame was cut short")
    return frames


class App:
    """An ASGI application that accepts, then takes messages only when told to."""

    def __init__(self) -> None:
        self.scope: dict[str, Any] = {}
        self.accepted = asyncio.Event()
        self.take = asyncio.Event()
        self.taken: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Accept, wait to be told, then keep every message until the socket goes."""
        self.scope = scope
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        self.accepted.set()
        await self.take.wait()
        while True:
            message = await receive()
            if message["type"] != "websocket.receive":
                return
            self.taken.append(message["text"])


async def _opened(app: App) -> tuple[GameWire, FakeTransport]:
    """A GameWire that has taken the handshake and whose application accepted it."""
    config = Config(app, ws=GameWire, log_level="warning")
    config.load()
    wire = GameWire(config=config, server_state=ServerState(), app_state={})
    transport = FakeTransport()
    wire.connection_made(transport)
    wire.data_received(HANDSHAKE)
    await asyncio.wait_for(app.accepted.wait(), 10)
    assert transport.written.startswith(b"HTTP/1.1 101")
    return wire, transport


def _after_handshake(transport: FakeTransport) -> bytes:
    return bytes(transport.written.split(b"\r\n\r\n", 1)[1])


def test_the_served_sockets_are_game_wires() -> None:
    """``american-sniff serve``'s configuration uses the wire for every WebSocket."""
    assert server_config(App()).ws is GameWire


def test_the_wire_is_offered_in_the_scope_and_writes_frames_at_once() -> None:
    """The scope names the wire; each text is one final text frame, at once, of any length."""

    async def scenario() -> None:
        app = App()
        wire, transport = await _opened(app)
        assert wire_of(app.scope) is wire
        assert app.scope["extensions"][WIRE] == {"wire": wire}
        texts = ["", "x" * 125, "é" * 63, "y" * 126, "z" * 65_535, "w" * 65_536]
        for text in texts:
            assert wire.send_text_now(text)
        frames = _frames(_after_handshake(transport))
        assert [(f.opcode, f.fin) for f in frames] == [(Opcode.TEXT, True)] * len(texts)
        assert [bytes(f.data).decode() for f in frames] == texts

    asyncio.run(scenario())


def test_the_wire_refuses_a_message_when_the_browser_does_not_read_or_it_closed() -> None:
    """Over SEND_BUFFER bytes waiting, or once closing, a message is refused and nothing written."""

    async def scenario() -> None:
        app = App()
        wire, transport = await _opened(app)
        before = len(transport.written)
        transport.buffered = SEND_BUFFER - 10
        assert not wire.send_text_now("x" * 11)
        assert wire.send_text_now("x" * 10)  # exactly to the bound
        transport.buffered = 0
        transport.closing = True
        assert not wire.send_text_now("x")
        assert len(transport.written) == before + 2 + 10

    asyncio.run(scenario())


def test_the_wire_reads_ahead_a_few_messages_then_stops_until_they_are_taken() -> None:
    """No pause per message: reading stops at READ_AHEAD waiting, and starts when all are taken."""

    async def scenario() -> None:
        app = App()
        wire, transport = await _opened(app)
        sent = [json.dumps({"n": n}) for n in range(READ_AHEAD + 2)]
        for text in sent[: READ_AHEAD - 1]:
            wire.data_received(_client_frame(text))
        assert transport.pauses == 0  # uvicorn's own protocol would have paused already
        wire.data_received(_client_frame(sent[READ_AHEAD - 1]))
        assert transport.pauses == 1
        for text in sent[READ_AHEAD:]:  # what the socket had read before it paused
            wire.data_received(_client_frame(text))
        assert transport.pauses == 1
        app.take.set()
        for _ in range(1000):
            if len(app.taken) == len(sent):
                break
            await asyncio.sleep(0)
        assert app.taken == sent
        assert transport.resumes == 1

    asyncio.run(scenario())


class _Wire:
    """A wire that takes ``room`` bytes, then refuses."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.sent: list[str] = []

    def send_text_now(self, text: str) -> bool:
        if len(text) > self.room:
            return False
        self.room -= len(text)
        self.sent.append(text)
        return True


def test_a_connection_on_a_wire_writes_at_once_and_is_dropped_when_refused() -> None:
    """Connection.offer goes straight to the wire; a refusal drops the connection for good."""

    async def scenario() -> None:
        wire = _Wire(10)
        connection = Connection(cast(Any, object()), 0, wire=wire)
        pump = asyncio.create_task(connection.pump())
        assert connection.offer("12345")
        assert connection.offer("67890")
        assert not connection.offer("x")
        assert connection.dropped
        assert not connection.offer("")
        assert wire.sent == ["12345", "67890"]
        await asyncio.sleep(0)
        assert not pump.done()  # it waits, sending nothing, until cancelled
        pump.cancel()

    asyncio.run(scenario())


def test_a_scope_without_a_wire_offers_none() -> None:
    """Starlette's test client, another ASGI server or a stranger's extension: no wire."""
    assert wire_of({}) is None
    assert wire_of({"extensions": None}) is None
    assert wire_of({"extensions": {WIRE: "wire"}}) is None
    assert wire_of({"extensions": {WIRE: {"wire": object()}}}) is None
    wire = _Wire(1)
    assert wire_of({"extensions": {WIRE: {"wire": wire}}}) is wire
