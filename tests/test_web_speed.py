"""The bots' speed a seat chooses (instant, normal, slow), at the server (TestClient)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")  # TestClient's transport (Starlette 1 and later)

from starlette.testclient import TestClient, WebSocketTestSession

from american_sniff.web.app import BOT_SPEEDS, Server, create_app
from american_sniff.web.rooms import Room
from american_sniff.web.store import Store


@contextlib.contextmanager
def _seat_socket(
    client: TestClient, speed: object = None
) -> Iterator[tuple[str, WebSocketTestSession]]:
    """A new match's seat 0, greeted (with ``speed`` in its hello if given): its id and socket."""
    body = {"players": 2, "seats": ["human", "greedy"], "seed": 7}
    made: dict[str, Any] = client.post("/api/matches", json=body).json()
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        token = made["seats"][0]["url"].split("#", 1)[1]
        hello: dict[str, Any] = {"type": "hello", "token": token}
        if speed is not None:
            hello["speed"] = speed
        ws.send_text(json.dumps(hello))
        assert ws.receive_json()["type"] == "state"
        yield made["id"], ws


def _until(ws: WebSocketTestSession, kind: str) -> dict[str, Any]:
    """The next message of type ``kind`` (the states the bots' moves send are passed over)."""
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == kind:
            return message


def _server(client: TestClient) -> Server:
    server = cast(Any, client.app).state.server
    assert isinstance(server, Server)
    return server


def _room(server: Server, match_id: str) -> Room:
    room = server.rooms.get(match_id)
    assert room is not None
    return room


def test_the_speeds_are_factors_of_the_servers_delay() -> None:
    """Instant waits nothing, normal the server's delay (0.7 s by default), slow twice it."""
    assert BOT_SPEEDS == {"instant": 0.0, "normal": 1.0, "slow": 2.0}


def test_a_seat_sets_the_speed_by_its_hello_or_a_message_and_a_bad_one_is_refused(
    tmp_path: Path,
) -> None:
    """The hello's speed and a ``speed`` message set the match's; a wrong value gets an error."""
    store = Store(tmp_path / "m.sqlite3")
    with (
        TestClient(create_app(store, bot_delay=0)) as client,
        _seat_socket(client, "slow") as (
            match_id,
            ws,
        ),
    ):
        server = _server(client)
        assert server.driver.bot_wait(_room(server, match_id)) == 0  # (slow of no delay: none)
        assert _room(server, match_id).speed == "slow"
        ws.send_text(json.dumps({"type": "speed", "speed": "instant"}))
        ws.send_text(json.dumps({"type": "speed", "speed": "fast"}))
        answer = _until(ws, "error")
        assert answer == {
            "type": "error",
            "message": "a bots' speed is one of instant, normal, slow",
        }
        assert _room(server, match_id).speed == "instant"
        ws.send_text(json.dumps({"type": "speed", "speed": ["slow"]}))
        assert _until(ws, "error")["message"].startswith("a bots' speed is one of")
        assert _room(server, match_id).speed == "instant"
        # A hello with a speed not in the list leaves the speed as it was.
        with _seat_socket(client, "warp") as (other, _):
            assert _room(server, other).speed == "normal"


def test_the_wait_is_the_delay_times_the_speeds_factor(tmp_path: Path) -> None:
    """With a delay of 0.5 s: 0 at instant, 0.5 at normal (the default), 1.0 at slow."""
    store = Store(tmp_path / "m.sqlite3")
    with (
        TestClient(create_app(store, bot_delay=0.5)) as client,
        _seat_socket(client) as (
            match_id,
            ws,
        ),
    ):
        server = _server(client)
        waits = {"normal": server.driver.bot_wait(_room(server, match_id))}
        for speed in ("instant", "slow"):
            ws.send_text(json.dumps({"type": "speed", "speed": speed}))
            # (a wrong message's answer comes once the one before it is carried out)
            ws.send_text(json.dumps({"type": "speed"}))
            _until(ws, "error")
            waits[speed] = server.driver.bot_wait(_room(server, match_id))
        assert waits == {"normal": 0.5, "instant": 0.0, "slow": 1.0}
