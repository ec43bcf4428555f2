"""The browser game's server against hostile clients: the limits of sockets, rates and hosts.

Each test drives the application as a client would (Starlette's TestClient,
whose every connection comes from the address ``testclient``), or a real
uvicorn server on a loopback port where the limit lives in the HTTP server.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import socket
import threading
from pathlib import Path
from typing import Any, cast

import pytest

from american_sniff import MatchRecord
from american_sniff.web.game import Game, new_setup
from american_sniff.web.store import LogEntry, Store

pytest.importorskip("starlette")
pytest.importorskip("httpx2")  # TestClient's transport (Starlette 1 and later)

from starlette.applications import Starlette
from starlette.testclient import TestClient, WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

import american_sniff.web.routes as routes_module
from american_sniff.web.app import SECURITY_HEADERS, STATIC, create_app
from american_sniff.web.limits import Rate, RateLimit, SocketLimits
from web_sockets import refused

#: How long a test waits for a real server (a safety net, never reached when it is right).
_PATIENCE = 30


def _app(db: Path, **options: Any) -> Starlette:
    """A server on ``db`` whose bots do not wait."""
    return create_app(Store(db), bot_delay=0, **options)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A fresh database file."""
    return tmp_path / "matches.sqlite3"


def _create(client: TestClient, seats: list[str], seed: int | None = 7) -> dict[str, Any]:
    body: dict[str, Any] = {"players": len(seats), "seats": seats}
    if seed is not None:
        body["seed"] = seed
    response = client.post("/api/matches", json=body)
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made


def _token(url: str) -> str:
    return url.split("#", 1)[1]


def _server(client: TestClient) -> Any:
    return cast(Any, client.app).state.server


def _hello(ws: WebSocketTestSession, token: str) -> dict[str, Any]:
    ws.send_text(json.dumps({"type": "hello", "token": token}))
    message: dict[str, Any] = ws.receive_json()
    return message


def _error(ws: WebSocketTestSession) -> str:
    """The next error message's text, past the states the bots' moves bring."""
    while True:
        message = ws.receive_json()
        if message["type"] == "error":
            text: str = message["message"]
            return text


# -- sockets: the hello, and how many at once -------------------------------------------


def test_a_socket_that_says_no_hello_in_time_is_closed(db: Path) -> None:
    """Silence after the handshake is closed with 4408 once the hello's time is up."""
    limits = SocketLimits(hello_timeout=1.0)
    with TestClient(_app(db, limits=limits)) as client:
        made = _create(client, ["human", "greedy"])
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            refused(ws, "no hello came within 1 s", 4408)
        # A socket that says hello in time is served as before.
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            assert _hello(ws, _token(made["seats"][0]["url"]))["type"] == "state"


def test_a_seat_holds_a_few_sockets_at_once_and_spectators_are_not_counted(db: Path) -> None:
    """The third socket of a seat is refused with the reason; a spectator link is not a seat."""
    with TestClient(_app(db, limits=SocketLimits(per_seat=2))) as client:
        made = _create(client, ["human", "human"], seed=None)
        token = _token(made["seats"][0]["url"])
        spectator = _token(made["spectator"])
        path = f"/ws/{made['id']}"
        with client.websocket_connect(path) as one, client.websocket_connect(path) as two:
            assert _hello(one, token)["type"] == "state"
            assert _hello(two, token)["type"] == "state"
            with client.websocket_connect(path) as three:
                three.send_text(json.dumps({"type": "hello", "token": token}))
                refused(three, "this seat has 2 connections open")
            with client.websocket_connect(path) as other:  # the other seat has its own count
                assert _hello(other, _token(made["seats"][1]["url"]))["type"] == "state"
            watchers = [client.websocket_connect(path) for _ in range(3)]
            for watcher in watchers:
                assert _hello(watcher.__enter__(), spectator)["type"] == "state"
            for watcher in watchers:
                watcher.__exit__(None, None, None)
        # Once they are closed, the seat may connect again.
        with client.websocket_connect(path) as again:
            assert _hello(again, token)["type"] == "state"


def test_an_address_holds_a_bounded_number_of_sockets_even_without_a_hello(db: Path) -> None:
    """Sockets that never say hello count toward their address's limit from the handshake."""
    with TestClient(_app(db, limits=SocketLimits(per_address=3))) as client:
        made = _create(client, ["human", "greedy"])
        path = f"/ws/{made['id']}"
        idle = [client.websocket_connect(path) for _ in range(3)]
        for ws in idle:
            ws.__enter__()
        with client.websocket_connect(path) as fourth:
            refused(fourth, "this address has 3 connections open")
        for ws in idle:
            ws.send_text(json.dumps({"type": "hello", "token": "wrong"}))
            assert ws.receive_json()["message"] == "no match has this link"
            ws.__exit__(None, None, None)
        with client.websocket_connect(path) as ws:
            assert _hello(ws, _token(made["seats"][0]["url"]))["type"] == "state"


def test_reconnecting_over_and_over_isrefused(db: Path) -> None:
    """New sockets of one address, and of one seat, come at most at their rates."""
    limits = SocketLimits(reconnects=Rate(burst=3, every=60))
    with TestClient(_app(db, limits=limits)) as client:
        made = _create(client, ["human", "greedy"])
        path = f"/ws/{made['id']}"
        token = _token(made["seats"][0]["url"])
        for _ in range(3):
            with client.websocket_connect(path) as ws:
                assert _hello(ws, token)["type"] == "state"
        with client.websocket_connect(path) as ws:
            refused(ws, "too many new connections from this address: at most 3 at once")
    limits = SocketLimits(seat_reconnects=Rate(burst=2, every=60))
    with TestClient(_app(db, limits=limits)) as client:
        path = f"/ws/{made['id']}"
        for _ in range(2):
            with client.websocket_connect(path) as ws:
                assert _hello(ws, token)["type"] == "state"
        with client.websocket_connect(path) as ws:
            ws.send_text(json.dumps({"type": "hello", "token": token}))
            refused(ws, "too many new connections of this seat")
        with client.websocket_connect(path) as ws:  # a spectator is no seat
            assert _hello(ws, _token(made["spectator"]))["type"] == "state"


def _serve(app: Starlette, **config: Any) -> tuple[Any, threading.Thread, int]:
    """``app`` on a real uvicorn server on a free loopback port, started."""
    uvicorn = pytest.importorskip("uvicorn")
    from american_sniff.web.serving import listen, server_config

    listener = listen("127.0.0.1", 0)
    port = listener.getsockname()[1]
    server = uvicorn.Server(server_config(app, **config))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    for _ in range(_PATIENCE * 100):
        if server.started:
            break
        threading.Event().wait(0.01)
    return server, thread, port


def _upgrade(port: int, match_id: str) -> socket.socket:
    """A raw connection that asks for a WebSocket of ``match_id`` (and then says nothing)."""
    raw = socket.create_connection(("127.0.0.1", port), timeout=_PATIENCE)
    raw.sendall(
        f"GET /ws/{match_id} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    return raw


def _status(port: int, path: str = "/api/kinds", headers: str = "") -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=_PATIENCE) as raw:
        raw.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}\r\n".encode())
        return raw.recv(12)


def test_websockets_count_toward_the_connection_limit_and_leave_http_room(db: Path) -> None:
    """Idle WebSockets take at most nine tenths of the connections: HTTP still answers.

    Without the limit, WebSockets were accepted beyond the connection limit,
    and a thousand idle ones made every HTTP request answer 503.
    """
    store = Store(db)
    app = create_app(store, bot_delay=0, limits=SocketLimits.lifted())
    server, thread, port = _serve(app, max_connections=20)
    held: list[socket.socket] = []
    try:
        made = Game.create(store, new_setup(2, ["human", "human"]))
        answers = []
        for _ in range(25):
            raw = _upgrade(port, made.id)
            held.append(raw)
            answers.append(raw.recv(12))
        assert answers.count(b"HTTP/1.1 101") == 18  # nine tenths of 20, this one among them
        assert answers[-1] == b"HTTP/1.1 503"
        assert _status(port) == b"HTTP/1.1 200"
    finally:
        for raw in held:
            raw.close()
        server.should_exit = True
        thread.join(_PATIENCE)


# -- rates: messages and hints ------------------------------------------------------------


def test_a_socket_over_its_message_rate_is_told_and_closed_if_it_persists(db: Path) -> None:
    """Over the rate, each message gets an error naming the limit; the persistent are closed."""
    limits = SocketLimits(messages=Rate(burst=3, every=60), persist=3)
    with TestClient(_app(db, limits=limits)) as client:
        made = _create(client, ["human", "greedy"])
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            _hello(ws, _token(made["seats"][0]["url"]))
            for _ in range(3):  # within the burst: carried out (here, refused as unknown)
                ws.send_text(json.dumps({"type": "dance"}))
                assert "the messages are" in _error(ws)
            for _ in range(2):
                ws.send_text(json.dumps({"type": "dance"}))
                assert _error(ws).startswith(
                    "too many messages on this connection: at most 3 at once, then one every 60 s"
                )
            ws.send_text(json.dumps({"type": "dance"}))
            last = ws.receive_json()  # the last error comes before the close
            assert "the connection is closed" in last["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4429


def test_an_address_shares_one_message_rate_across_its_sockets(db: Path) -> None:
    """Two sockets of one address draw on one bucket of messages."""
    limits = SocketLimits(address_messages=Rate(burst=4, every=60))
    with TestClient(_app(db, limits=limits)) as client:
        made = _create(client, ["human", "greedy"])
        path = f"/ws/{made['id']}"
        token = _token(made["seats"][0]["url"])
        with client.websocket_connect(path) as one, client.websocket_connect(path) as two:
            _hello(one, token)
            _hello(two, token)
            for ws in (one, two, one, two):
                ws.send_text(json.dumps({"type": "dance"}))
                assert "the messages are" in _error(ws)
            two.send_text(json.dumps({"type": "dance"}))
            assert "too many messages from this address" in _error(two)


def test_hints_have_a_rate_of_their_own(db: Path) -> None:
    """A hint is a bot's search: a socket asks for few, and is told when it asks too often."""
    limits = SocketLimits(hints=Rate(burst=1, every=60))
    with TestClient(_app(db, limits=limits)) as client:
        made = _create(client, ["human", "greedy"], seed=3)
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            state = _hello(ws, _token(made["seats"][0]["url"]))
            while state["view"]["turn"] != 0 or not state["view"]["legal_moves"]:
                state = ws.receive_json()
            ws.send_text(json.dumps({"type": "hint"}))
            assert ws.receive_json()["type"] == "hint"
            ws.send_text(json.dumps({"type": "hint"}))
            message = ws.receive_json()
            assert message["type"] == "error"
            assert "too many hints on this connection" in message["message"]
    limits = SocketLimits(address_hints=Rate(burst=1, every=60))
    with (
        TestClient(_app(db, limits=limits)) as client,
        client.websocket_connect(f"/ws/{made['id']}") as ws,
    ):
        _hello(ws, _token(made["seats"][0]["url"]))
        for kind in ("hint", "hint"):
            ws.send_text(json.dumps({"type": kind}))
        assert ws.receive_json()["type"] == "hint"
        assert "too many hints from this address" in ws.receive_json()["message"]


def test_the_default_limits_are_far_above_a_person(db: Path) -> None:
    """A person's pace is never near a default limit, and a script's is.

    A person moves or asks for a hint every few seconds and reloads now and then.
    """
    limits = SocketLimits()
    assert limits.messages.per_second >= 5
    assert limits.messages.burst >= 20
    assert limits.hints.burst >= 5
    assert limits.reconnects.burst >= 20
    assert limits.per_seat >= 3
    assert limits.per_address >= 50
    assert limits.hello_timeout >= 5
    assert limits.address_messages.per_second < 21_700 / 20  # the flood measured: 20 sockets


# -- off the event loop ---------------------------------------------------------------------


def _off_the_loop(calls: list[str], name: str, work: Any) -> Any:
    """``work``, which records ``name`` in ``calls`` and fails if run on an event loop."""

    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            calls.append(name)
            return work(*args, **kwargs)
        raise AssertionError(f"{name} ran on the event loop")

    return checked


def test_an_uploaded_record_is_read_in_a_thread(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a record (tens of milliseconds for a long one) does not stall the event loop."""
    calls: list[str] = []

    class Checked(MatchRecord):
        from_json = staticmethod(_off_the_loop(calls, "from_json", MatchRecord.from_json))

    monkeypatch.setattr(routes_module, "MatchRecord", Checked)
    with TestClient(_app(db)) as client:
        made = _create(client, ["human", "greedy"])
        key = _server(client).key
        record = client.get(f"/api/matches/{made['id']}/record", params={"key": key})
        answer = client.post("/api/replay", params={"key": key}, content=record.content)
        assert answer.status_code == 200, answer.text
    assert calls == ["from_json"]


def test_the_operators_list_comes_in_pages_read_in_a_thread(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``limit`` and ``after`` page the list; its matches are read off the loop, not kept."""
    with TestClient(_app(db, creations=RateLimit(burst=100))) as client:
        made = [_create(client, ["human", "greedy"], seed=n)["id"] for n in range(5)]
    store = Store(db)
    calls: list[str] = []
    monkeypatch.setattr(store, "load", _off_the_loop(calls, "load", store.load))
    with TestClient(create_app(store, bot_delay=0)) as client:
        server = _server(client)
        key = server.key
        seen: list[str] = []
        after = None
        pages = 0
        while True:
            params = {"key": key, "limit": "2", **({} if after is None else {"after": after})}
            page = client.get("/api/matches", params=params).json()
            assert len(page["matches"]) <= 2
            seen += [m["id"] for m in page["matches"]]
            pages += 1
            after = page["next"]
            if after is None:
                break
        assert pages == 3
        assert sorted(seen) == sorted(made)
        assert len(set(seen)) == 5
        assert not any(server.rooms.get(m) is not None for m in made)
        assert calls.count("load") == 5
        for params, words in [
            ({"limit": "0"}, "limit is from 1 to 100"),
            ({"limit": "x"}, "limit is a whole number"),
            ({"after": "nosuchmatch"}, "after names no stored match"),
        ]:
            answer = client.get("/api/matches", params={"key": key, **params})
            assert answer.status_code == 400
            assert words in answer.json()["error"]


def test_a_match_that_no_longer_replays_is_listed_as_broken(db: Path) -> None:
    """One broken log does not break the operator's list: it is named, with the reason."""
    with TestClient(_app(db)) as client:
        made = _create(client, ["human", "greedy"])
        other = _create(client, ["human", "greedy"], seed=8)
    store = Store(db)
    store.append(made["id"], LogEntry("move", "[6|6] on nothing"))
    with TestClient(create_app(store, bot_delay=0)) as client:
        listed = client.get("/api/matches", params={"key": _server(client).key})
        assert listed.status_code == 200
        by_id = {m["id"]: m for m in listed.json()["matches"]}
        assert "broken" in by_id[made["id"]]
        assert by_id[other["id"]]["round"] == 1


# -- secrets, headers and hosts ---------------------------------------------------------------


def test_the_operators_key_is_compared_in_constant_time(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every comparison with the key goes through :func:`secrets.compare_digest`."""
    compared: list[bytes | str] = []
    real = secrets.compare_digest

    def spy(a: Any, b: Any) -> bool:
        compared.append(a)
        return bool(real(a, b))

    monkeypatch.setattr(secrets, "compare_digest", spy)
    with TestClient(_app(db)) as client:
        made = _create(client, ["human", "greedy"])
        for path in ("/api/matches", f"/api/matches/{made['id']}/record"):
            compared.clear()
            assert client.get(path, params={"key": "guess"}).status_code == 403
            assert "guess" in compared or b"guess" in compared, path


def test_every_answer_carries_the_security_headers(db: Path) -> None:
    """Pages, scripts, the API, refusals, errors: each has the CSP, nosniff and referrer policy."""
    with TestClient(_app(db)) as client:
        made = _create(client, ["human", "greedy"])
        answers = [
            client.get("/"),
            client.get(f"/play/{made['id']}"),
            client.get("/static/play.js"),
            client.get("/api/kinds"),
            client.get("/api/matches"),  # 403
            client.get("/nowhere"),  # 404
            client.get("/", headers={"x-big": "a" * (17 << 10)}),  # 431
        ]
    for answer in answers:
        for name, value in SECURITY_HEADERS.items():
            assert answer.headers.get(name) == value, (answer.url, name)
    policy = SECURITY_HEADERS["content-security-policy"]
    assert "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy


def test_the_pages_need_no_inline_script_or_style() -> None:
    """The content security policy forbids inline code and styles: the pages have none."""
    for page in STATIC.glob("*.html"):
        text = page.read_text()
        for inline in ("<script>", "<style", " style=", " onclick="):
            assert inline not in text, page.name
    for script in STATIC.glob("*.js"):
        assert "style=" not in script.read_text(), script.name


def test_links_come_from_the_public_url_and_other_hosts_arerefused(db: Path) -> None:
    """With a public URL, the links start with it, and a rebinding ``Host`` is refused."""
    app = _app(db, public_url="https://sniff.example.org")
    with TestClient(app, base_url="https://sniff.example.org") as client:
        made = _create(client, ["human", "greedy"])
        assert made["spectator"].startswith(f"https://sniff.example.org/play/{made['id']}#")
        evil = {"host": "evil.example:8000", "origin": "http://evil.example:8000"}
        answer = client.post("/api/matches", json={"players": 2, "seats": ["human"]}, headers=evil)
        assert answer.status_code == 421
        assert "does not answer for the host" in answer.json()["error"]
        assert client.get("/", headers={"host": "evil.example"}).status_code == 421
        assert client.get("/", headers={"host": "127.0.0.1:8000"}).status_code == 200
        with (
            pytest.raises(WebSocketDisconnect),
            client.websocket_connect(f"/ws/{made['id']}", headers=evil) as ws,
        ):
            ws.receive_json()
        own = {"host": "sniff.example.org"}
        with client.websocket_connect(f"/ws/{made['id']}", headers=own) as ws:
            assert _hello(ws, _token(made["seats"][0]["url"]))["type"] == "state"


def test_forwarded_headers_are_believed_only_from_trusted_proxies(db: Path) -> None:
    """``X-Forwarded-For`` from loopback no longer lifts the limit on new matches.

    It did: each request naming another address had a rate limit of its own.
    """
    app = _app(db, creations=RateLimit(burst=1, every=600))
    server, thread, port = _serve(app)
    try:
        statuses = []
        for n in range(3):
            body = json.dumps({"players": 2, "seats": ["human", "greedy"]}).encode()
            with socket.create_connection(("127.0.0.1", port), timeout=_PATIENCE) as raw:
                raw.sendall(
                    f"POST /api/matches HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                    f"X-Forwarded-For: 203.0.113.{n}\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                statuses.append(raw.recv(12))
        assert statuses == [b"HTTP/1.1 201", b"HTTP/1.1 429", b"HTTP/1.1 429"]
    finally:
        server.should_exit = True
        thread.join(_PATIENCE)
    from american_sniff.web.serving import server_config

    config = server_config(app, trusted_proxies=["10.0.0.1"])
    assert config.proxy_headers
    assert config.forwarded_allow_ips == ["10.0.0.1"]


# -- the host's cap on a match's length ---------------------------------------------------------


def _play_until_over(ws: WebSocketTestSession, first: dict[str, Any]) -> dict[str, Any]:
    """Play seat 0's first legal placement (or go on) until a state says the match is over."""
    message = first
    for _ in range(5000):
        if message["type"] == "state":
            view = message["view"]
            if view["winner"] is not None or message["ended"] is not None:
                return message
            if 0 in message["waiting_for"]:
                ws.send_text(json.dumps({"type": "continue"}))
            elif view["turn"] == 0 and view["legal_moves"]:
                move = view["legal_moves"][0]
                ws.send_text(json.dumps({"type": "move", "move": move, "seq": view["seq"]}))
        message = ws.receive_json()
    raise AssertionError("the match did not end")


@pytest.mark.parametrize(
    ("cap", "words"), [({"max_actions": 12}, "cap of 12 actions"), ({"max_rounds": 1}, "1 rounds")]
)
def test_a_match_ends_at_the_hosts_cap_with_its_reason(
    db: Path, cap: dict[str, int], words: str
) -> None:
    """At the cap the match is over with no winner: every page and the store say why."""
    with TestClient(_app(db, limits=SocketLimits.lifted(), **cap)) as client:
        made = _create(client, ["human", "greedy"], seed=2)
        token = _token(made["seats"][0]["url"])
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            last = _play_until_over(ws, _hello(ws, token))
            assert last["view"]["winner"] is None
            assert words in last["ended"]
            told = ws.receive_json()
            assert told == {"type": "error", "message": last["ended"]}
            ws.send_text(json.dumps({"type": "hint"}))
            assert ws.receive_json()["message"] == last["ended"]
            seq = last["view"]["seq"]
        if "max_actions" in cap:
            assert seq == cap["max_actions"]
        room = _server(client).rooms.get(made["id"])
        assert room is not None
        game = room.game
        assert game.seq == seq  # no bot moved on
        record = client.get(f"/api/matches/{made['id']}/record", params={"token": token})
        assert record.status_code == 200  # as a finished match's
    # It stays over after a restart, with the same reason, and takes a rematch.
    with TestClient(_app(db, limits=SocketLimits.lifted())) as client:
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            state = _hello(ws, token)
            assert state["ended"] == last["ended"]
            assert ws.receive_json()["message"] == last["ended"]
            ws.send_text(json.dumps({"type": "rematch"}))
            assert ws.receive_json()["rematch"] is not None
        key = _server(client).key
        listed = client.get("/api/matches", params={"key": key}).json()["matches"]
        assert {m["id"]: m["ended"] for m in listed}[made["id"]] == last["ended"]
    with TestClient(_app(db)) as client:  # listed as over before anyone opens it
        listed = client.get("/api/matches", params={"key": key}).json()["matches"]
        assert {m["id"]: m["ended"] for m in listed}[made["id"]] == last["ended"]
        assert _server(client).rooms.get(made["id"]) is None


def test_a_match_under_the_cap_is_not_touched(db: Path) -> None:
    """A capped server leaves shorter matches alone: they end with a winner as before."""
    with TestClient(_app(db, limits=SocketLimits.lifted(), max_actions=3000)) as client:
        made = _create(client, ["human", "greedy"], seed=2)
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            last = _play_until_over(ws, _hello(ws, _token(made["seats"][0]["url"])))
        assert last["view"]["winner"] is not None
        assert last["ended"] is None


def test_a_token_that_is_not_ascii_is_no_link(db: Path) -> None:
    """Text that ``compare_digest`` cannot compare is refused as a wrong link, not a crash."""
    with TestClient(_app(db)) as client:
        made = _create(client, ["human", "greedy"])
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": "é"}))
            assert ws.receive_json()["message"] == "no match has this link"
        record = client.get(f"/api/matches/{made['id']}/record", params={"token": "é"})
        assert record.status_code == 403
        replay = client.post("/api/replay", params={"match": made["id"], "token": "é"})
        assert replay.status_code == 403
