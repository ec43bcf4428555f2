"""The hand-off of a game WebSocket to the worker that owns its match (``web/handoff.py``).

Two uvicorn servers, each on its own event loop (a thread each) and its own
listening socket, stand for two workers: a client connects to the first for
a match that the second owns. Each server's application says which server
it is, so the test sees who served the socket.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("uvicorn")
starlette_routing = pytest.importorskip("starlette.routing")

from starlette.applications import Starlette  # noqa: E402
from starlette.responses import PlainTextResponse  # noqa: E402
from starlette.websockets import WebSocket  # noqa: E402

from american_sniff.web.handoff import (  # noqa: E402
    MAX_REQUEST,
    Channels,
    HandingServer,
    match_of,
    owner,
)
from american_sniff.web.serving import listen, server_config  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(socket, "send_fds"), reason="needs Unix sockets")

#: Generous limit on any wait, in seconds (never the test's verdict).
_PATIENCE = 10.0


def _app(name: str) -> Starlette:
    """An application that names itself and the client to each socket, then echoes one message."""

    async def play(websocket: WebSocket) -> None:
        await websocket.accept()
        client = websocket.client
        assert client is not None
        said = {"server": name, "client": client.host, "match": websocket.path_params["match_id"]}
        await websocket.send_text(json.dumps(said))
        await websocket.send_text("echo " + await websocket.receive_text())
        await websocket.close()

    async def page(request: Any) -> PlainTextResponse:
        return PlainTextResponse(name)

    return Starlette(
        routes=[
            starlette_routing.WebSocketRoute("/ws/{match_id}", play),
            starlette_routing.Route("/", page),
        ]
    )


class Running:
    """A uvicorn server for one worker of ``channels`` (or none), in a thread, on its own port."""

    def __init__(self, name: str, channels: Channels | None, number: int, **config: Any) -> None:
        self.listener = listen("127.0.0.1", 0)
        self.port = self.listener.getsockname()[1]
        settings = server_config(_app(name), **config)
        import uvicorn

        self.handoff = None if channels is None else channels.worker(number)
        self.server = (
            uvicorn.Server(settings)
            if self.handoff is None
            else HandingServer(settings, self.handoff)
        )
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.listener]}, daemon=True
        )
        self.thread.start()
        ready = threading.Event()
        for _ in range(int(_PATIENCE * 100)):
            if self.server.started:
                break
            ready.wait(0.01)
        assert self.server.started

    def stop(self) -> None:
        """Stop the server and wait for its thread."""
        self.server.should_exit = True
        self.thread.join(_PATIENCE)
        self.listener.close()


@pytest.fixture
def channels() -> Iterator[Channels]:
    """Channels for two workers."""
    made = Channels(2)
    yield made
    made.close()


def _owned_by(number: int, workers: int = 2) -> str:
    """A match id that worker ``number`` owns."""
    return next(f"m{n}" for n in range(100) if owner(f"m{n}", workers) == number)


def _upgrade(match_id: str, *headers: str) -> bytes:
    """A browser's request for the game's WebSocket of ``match_id``."""
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        f"GET /ws/{match_id} HTTP/1.1",
        "Host: 127.0.0.1",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
        *headers,
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _frame(text: str) -> bytes:
    """A client's masked text frame (short)."""
    payload = text.encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x81, 0x80 | len(payload)]) + mask + masked


class Client:
    """A raw WebSocket client: sends the request (and anything after it) at once, reads frames."""

    def __init__(self, port: int, request: bytes) -> None:
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=_PATIENCE)
        self.socket.sendall(request)
        self.buffer = b""

    def _fill(self) -> None:
        more = self.socket.recv(65536)
        if not more:
            raise EOFError("the server closed the connection")
        self.buffer += more

    def answer(self) -> bytes:
        """The answer's status line and headers."""
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        return head

    def text(self) -> str:
        """The next text frame's text (the server's frames are short and unmasked)."""
        while len(self.buffer) < 2:
            self._fill()
        size = self.buffer[1] & 0x7F
        assert size < 126
        while len(self.buffer) < 2 + size:
            self._fill()
        payload, self.buffer = self.buffer[2 : 2 + size], self.buffer[2 + size :]
        return payload.decode()

    def close(self) -> None:
        """Close the client's end."""
        self.socket.close()


def test_a_socket_handed_on_is_served_by_its_owner_on_the_same_connection(
    channels: Channels,
) -> None:
    """The owner serves it: the request the first worker read is not lost, the connection stays."""
    first, second = Running("first", channels, 1), Running("second", channels, 2)
    try:
        match_id = _owned_by(2)
        seen = Client(first.port, _upgrade(match_id))
        try:
            assert seen.answer().startswith(b"HTTP/1.1 101")
            said = json.loads(seen.text())
            assert said == {"server": "second", "client": "127.0.0.1", "match": match_id}
            seen.socket.sendall(_frame("hi"))
            assert seen.text() == "echo hi"
        finally:
            seen.close()
        assert first.handoff is not None
        assert second.handoff is not None
        assert (first.handoff.handed, second.handoff.adopted) == (1, 1)
        # A match the first worker owns, and any other request, stay where they are.
        own = Client(first.port, _upgrade(_owned_by(1)))
        try:
            assert own.answer().startswith(b"HTTP/1.1 101")
            assert json.loads(own.text())["server"] == "first"
        finally:
            own.close()
        page = Client(first.port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        try:
            assert page.answer().startswith(b"HTTP/1.1 200")
        finally:
            page.close()
        assert first.handoff.handed == 1
    finally:
        first.stop()
        second.stop()


def test_the_owner_applies_its_own_limits_and_believes_the_same_proxies(
    channels: Channels,
) -> None:
    """The socket limit is the owner's (503 there); a trusted proxy's address is the client's."""
    first = Running("first", channels, 1)
    second = Running("second", channels, 2, max_connections=1)  # no share for sockets
    try:
        refused = Client(first.port, _upgrade(_owned_by(2)))
        try:
            assert refused.answer().startswith(b"HTTP/1.1 503")
        finally:
            refused.close()
    finally:
        second.stop()
    third = Running("third", channels, 2, trusted_proxies=["127.0.0.1"])
    try:
        forwarded = Client(first.port, _upgrade(_owned_by(2), "X-Forwarded-For: 203.0.113.9"))
        try:
            assert forwarded.answer().startswith(b"HTTP/1.1 101")
            said = json.loads(forwarded.text())
            assert (said["server"], said["client"]) == ("third", "203.0.113.9")
        finally:
            forwarded.close()
    finally:
        first.stop()
        third.stop()


def test_a_socket_that_cannot_be_handed_on_is_served_where_it_landed(channels: Channels) -> None:
    """The owner not adopting, or its channel closed: the worker that has it serves it."""
    first = Running("first", channels, 1)
    try:
        match_id = _owned_by(2)
        assert not channels.adopting(2)  # the second worker never started
        alone = Client(first.port, _upgrade(match_id))
        try:
            assert alone.answer().startswith(b"HTTP/1.1 101")
            assert json.loads(alone.text())["server"] == "first"
            alone.socket.sendall(_frame("a"))
            assert alone.text() == "echo a"
        finally:
            alone.close()
        second = Running("second", channels, 2)
        channels._outboxes[1].close()  # the owner's channel, closed under it
        try:
            assert channels.adopting(2)
            closed = Client(first.port, _upgrade(match_id))
            try:
                assert closed.answer().startswith(b"HTTP/1.1 101")
                assert json.loads(closed.text())["server"] == "first"
                closed.socket.sendall(_frame("b"))
                assert closed.text() == "echo b"
            finally:
                closed.close()
        finally:
            second.stop()
        assert first.handoff is not None
        assert (first.handoff.handed, first.handoff.kept) == (0, 2)
    finally:
        first.stop()


def test_a_request_too_long_to_hand_on_is_served_where_it_landed(channels: Channels) -> None:
    """Over :data:`MAX_REQUEST` bytes are not sent on a channel."""
    handoff = channels.worker(1)
    channels._set(2, True)
    mine, theirs = socket.socketpair()
    with mine, theirs:
        assert not handoff.pass_on(mine.fileno(), b"x" * (MAX_REQUEST + 1), 2)
        assert handoff.pass_on(mine.fileno(), b"x" * MAX_REQUEST, 2)
    assert (handoff.kept, handoff.handed) == (1, 1)
    assert channels.ended(2) == 1


def test_connections_left_in_an_ended_workers_channel_are_closed(channels: Channels) -> None:
    """The supervisor closes them: their clients see the end and connect again."""
    handoff = channels.worker(1)
    channels._set(2, True)
    client, server = socket.socketpair()
    with client:
        assert handoff.pass_on(server.fileno(), b"GET /ws/x HTTP/1.1\r\n\r\n", 2)
        server.close()  # the sender forgets it: the channel holds the last descriptor
        client.setblocking(False)
        with pytest.raises(BlockingIOError):  # open: nothing to read, and no end
            client.recv(10)
        client.settimeout(_PATIENCE)
        assert channels.ended(2) == 1
        assert client.recv(10) == b""  # closed
    assert not channels.adopting(2)
    assert channels.ended(2) == 0


def test_only_game_sockets_of_another_workers_match_are_handed_on(channels: Channels) -> None:
    """The owner is the same in every process; other paths and one's own matches stay."""
    handoff = channels.worker(1)
    mine, theirs = _owned_by(1), _owned_by(2)
    assert handoff.owner_of(f"/ws/{theirs}".encode()) == 2
    assert handoff.owner_of(f"/ws/{theirs}?x=1".encode()) == 2
    assert handoff.owner_of(f"/ws/{mine}".encode()) is None
    assert handoff.owner_of(b"/") is None
    assert handoff.owner_of(b"/ws/a/b") is None
    assert match_of(b"/api/kinds") is None
    assert [owner("abc", n) for n in (1, 2, 3, 4)] == [1, 1, 1, 3]
    with pytest.raises(ValueError, match="from 1 to 2"):
        channels.worker(3)
    with pytest.raises(ValueError, match="1 or more"):
        Channels(0)


def test_the_owner_is_told_to_the_applications_rooms(channels: Channels, tmp_path: Any) -> None:
    """A worker's rooms know which matches another worker's browsers are served by."""
    from american_sniff.web.app import create_app
    from american_sniff.web.store import Store

    app = create_app(Store(tmp_path / "m.sqlite3"))
    rooms = app.state.server.rooms
    assert rooms.elsewhere is None  # one process: every match's browsers are here
    HandingServer(server_config(app), channels.worker(1))
    told = app.state.server.rooms.elsewhere
    assert told is not None
    assert told(_owned_by(2))
    assert not told(_owned_by(1))


class _Wire:
    """A transport that records what a protocol does with it (no network)."""

    def __init__(self, pending: int = 0, tls: bool = False) -> None:
        self.pending, self.tls = pending, tls
        self.written = b""
        self.closed = self.paused = False
        self.protocol: Any = None

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        if name == "socket":
            return self
        if name == "sslcontext":
            return object() if self.tls else None
        if name in {"peername", "sockname"}:
            return ("127.0.0.1", 5000)
        return default

    def fileno(self) -> int:
        return 99

    def getsockname(self) -> tuple[str, int]:
        return ("127.0.0.1", 8000)

    def getpeername(self) -> tuple[str, int]:
        return ("127.0.0.1", 5000)

    def get_write_buffer_size(self) -> int:
        return self.pending

    def write(self, data: bytes) -> None:
        self.written += data

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False

    def get_protocol(self) -> Any:
        return self.protocol

    def set_protocol(self, protocol: Any) -> None:
        self.protocol = protocol


class _Passes:
    """A hand-off that takes every game socket for worker 2."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, bytes, int]] = []

    def owner_of(self, target: bytes) -> int | None:
        return 2 if match_of(target) is not None else None

    def pass_on(self, fd: int, request: bytes, number: int) -> bool:
        self.sent.append((fd, request, number))
        return True


def test_a_connection_with_an_answer_still_going_out_or_tls_is_not_handed_on() -> None:
    """Only a plain connection with nothing left to write is handed: else it is served here."""
    import asyncio

    import uvicorn
    from uvicorn.server import ServerState

    from american_sniff.web.serving import HeaderTimeout

    async def main() -> None:
        passes = _Passes()
        kind = type("Sent", (HeaderTimeout,), {"handoff": passes, "socket_limit": 0})
        config = uvicorn.Config(_app("here"), http=kind, log_level="warning")
        config.load()
        for wire, handed in (
            (_Wire(), True),
            (_Wire(pending=10), False),
            (_Wire(tls=True), False),
        ):
            protocol = kind(config=config, server_state=ServerState(), app_state={})
            wire.protocol = protocol
            protocol.connection_made(wire)
            protocol.data_received(_upgrade("m1") + b"extra")
            if handed:
                assert passes.sent[-1][0] == 99
                assert passes.sent[-1][1].startswith(b"GET /ws/m1 HTTP/1.1\r\n")
                assert passes.sent[-1][1].endswith(b"\r\n\r\nextra")  # what came after it too
                assert (wire.closed, wire.paused, wire.written) == (True, True, b"")
            else:  # served here: the share of sockets is taken (socket_limit 0), 503
                assert wire.written.startswith(b"HTTP/1.1 503")
            protocol.connection_lost(None)
        assert len(passes.sent) == 1

    asyncio.run(main())
