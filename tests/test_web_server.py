"""The browser game's server, driven as a browser would drive it (Starlette's TestClient)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any, cast

import pytest

from american_sniff import MatchRecord, replay, view_for
from american_sniff.web.game import BOT_KINDS, Game
from american_sniff.web.store import Store
from web_leaks import hidden_tiles

pytest.importorskip("starlette")
pytest.importorskip("httpx2")  # TestClient's transport (Starlette 1 and later)

from starlette.applications import Starlette
from starlette.testclient import TestClient, WebSocketTestSession

import american_sniff.web.frames as frames_module
import american_sniff.web.routes as routes_module
from american_sniff.web.app import MAX_REPLAY_BYTES, create_app
from american_sniff.web.frames import PAGE
from american_sniff.web.limits import RateLimit, SocketLimits


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A fresh database file."""
    return tmp_path / "matches.sqlite3"


def _app(db: Path, **options: Any) -> Starlette:
    """A server on ``db`` whose bots do not wait, and whose socket limits are lifted.

    These tests play whole matches as fast as the server answers, far faster
    than a person: the limits on sockets have tests of their own
    (``test_web_limits.py``).
    """
    return create_app(Store(db), bot_delay=0, limits=SocketLimits.lifted(), **options)


@pytest.fixture
def client(db: Path) -> Iterator[TestClient]:
    """A client of a server on ``db`` whose bots do not wait."""
    with TestClient(_app(db)) as test_client:
        yield test_client


def _create(
    client: TestClient, players: int, seats: list[str], seed: int | None = 7
) -> dict[str, Any]:
    body: dict[str, Any] = {"players": players, "seats": seats}
    if seed is not None:
        body["seed"] = seed
    response = client.post("/api/matches", json=body)
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made


def _token(url: str) -> str:
    return url.split("#", 1)[1]


def _game(client: TestClient, match_id: str) -> Game:
    room = cast(Any, client.app).state.server.rooms.get(match_id)
    assert room is not None
    game = room.game
    assert isinstance(game, Game)
    return game


def _hello(ws: WebSocketTestSession, token: str) -> dict[str, Any]:
    ws.send_text(json.dumps({"type": "hello", "token": token}))
    message: dict[str, Any] = ws.receive_json()
    return message


class _Seat:
    """One browser of a seat: every message received, checked for hidden tiles as it comes."""

    def __init__(self, ws: WebSocketTestSession, game: Game, seat: int | None) -> None:
        self.ws, self.game, self.seat = ws, game, seat
        self.received: list[dict[str, Any]] = []

    def receive(self) -> dict[str, Any]:
        text = self.ws.receive_text()
        assert not hidden_tiles(text, self.game.states, self.seat), text
        message: dict[str, Any] = json.loads(text)
        self.received.append(message)
        return message

    def until(self, seq: int) -> dict[str, Any]:
        """Read messages until a state message with sequence number ``seq`` or more."""
        while True:
            message = self.receive()
            if message["type"] == "state" and message["view"]["seq"] >= seq:
                return message

    def send(self, **message: Any) -> None:
        self.ws.send_text(json.dumps(message))


def _my_choice(seat: _Seat, message: dict[str, Any]) -> dict[str, Any]:
    """Read state messages until the seat has something to do: place, go on, or see the end."""
    while True:
        if message["type"] == "state":
            view = message["view"]
            if view["winner"] is not None or seat.seat in message["waiting_for"]:
                return message
            if any(" " in m for m in view["legal_moves"] or []):
                return message
        message = seat.receive()


def _play_to_end(seat: _Seat, first: dict[str, Any], limit: int = 3000) -> dict[str, Any]:
    """Answer every state with the first legal placement, and go on after each settlement."""
    message = first
    for _ in range(limit):
        view = message["view"]
        if view["winner"] is not None:
            return message
        if seat.seat in message["waiting_for"]:
            seat.send(type="continue")
        elif any(" " in m for m in view["legal_moves"] or []):
            move = next(m for m in view["legal_moves"] if " " in m)
            seat.send(type="move", move=move, seq=view["seq"])
        message = seat.receive()
        while message["type"] != "state":
            message = seat.receive()
    raise AssertionError("the match did not end")


def test_a_whole_match_against_bots_over_the_websocket(client: TestClient) -> None:
    """One person against three bots plays to the end; no message names a hidden tile."""
    made = _create(client, 4, ["human", "greedy", "search-quick", "random"])
    game = _game(client, made["id"])
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": _token(made["seats"][0]["url"])}))
        seat = _Seat(ws, game, 0)
        last = _play_to_end(seat, seat.receive())
    assert last["view"]["winner"] == game.state.winner is not None
    assert game.state.round > 1  # a settlement was seen on the way
    assert any(m["type"] == "state" and m["view"]["last_round"] for m in seat.received)
    # Every seat's choice after the first was sent as the library's event too.
    events = [m["event"] for m in seat.received if m["type"] == "state" and m["event"]]
    assert events
    assert all(e["format"] == "american-sniff/event" for e in events)


def test_every_payload_is_the_seat_view_or_the_spectator_view(client: TestClient) -> None:
    """The view in each message is exactly what view_for gives that seat, or a spectator."""
    made = _create(client, 2, ["human", "human"], seed=None)
    game = _game(client, made["id"])
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        message = _hello(ws, _token(made["seats"][0]["url"]))
        assert message["view"] == json.loads(view_for(game.state, 0).to_json())
        assert "hands" not in json.dumps(message["view"]).replace('"hand_sizes"', "")
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        message = _hello(ws, _token(made["spectator"]))
        assert message["you"] == "spectator"
        assert message["view"] == json.loads(view_for(game.state, None).to_json())
        assert message["view"]["hand"] is None


def test_a_wrong_link_is_refused(client: TestClient) -> None:
    """A token that is not the match's gets an error and nothing of the match."""
    made = _create(client, 2, ["human", "greedy"])
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        message = _hello(ws, "not-a-token")
    assert message == {"type": "error", "message": "no match has this link"}
    with client.websocket_connect("/ws/nosuchmatch") as ws:
        assert ws.receive_json()["type"] == "error"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"players": 5, "seats": ["human"] * 5}, "2, 3 or 4 players"),
        ({"players": 2, "seats": ["human"]}, "each of the 2 seats"),
        ({"players": 2, "seats": ["human", "wizard"]}, "not 'wizard'"),
        ({"players": 2, "seats": ["greedy", "random"]}, "played by a person"),
        ({"players": 2, "seats": ["human", "greedy"], "seed": "x"}, "2**64 - 1"),
        ([], "JSON object"),
    ],
)
def test_a_bad_setup_is_refused_with_a_reason(client: TestClient, body: Any, words: str) -> None:
    """Each wrong setup gets a 400 whose message says what is wrong."""
    response = client.post("/api/matches", json=body)
    assert response.status_code == 400
    assert words in response.json()["error"]


def test_bad_messages_get_clear_errors(client: TestClient) -> None:
    """Stale, illegal, out-of-turn and malformed messages are refused with a reason."""
    made = _create(client, 2, ["human", "human"], seed=None)
    game = _game(client, made["id"])
    turn = game.state.turn
    tokens = [_token(s["url"]) for s in made["seats"]]
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        first = _hello(ws, tokens[turn])
        moves = first["view"]["legal_moves"]
        cases = [
            ({"type": "move", "move": moves[0], "seq": 5}, "has changed"),
            ({"type": "move", "move": "[6|6] on [0|0] high", "seq": 0}, "refused"),
            ({"type": "move", "move": 12, "seq": 0}, "notation"),
            ({"type": "dance"}, "messages are"),
            ({"type": "undo"}, "against bots only"),
        ]
        for message, words in cases:
            ws.send_text(json.dumps(message))
            answer = ws.receive_json()
            assert answer["type"] == "error", answer
            assert words in answer["message"], answer
        ws.send_text("not json")
        assert "JSON object" in ws.receive_json()["message"]
        ws.send_text("x" * 5000)
        assert "too long" in ws.receive_json()["message"]
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        _hello(ws, tokens[1 - turn])
        ws.send_text(json.dumps({"type": "move", "move": moves[0], "seq": 0}))
        assert "turn" in ws.receive_json()["message"]
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        _hello(ws, _token(made["spectator"]))
        ws.send_text(json.dumps({"type": "move", "move": moves[0], "seq": 0}))
        assert "spectator" in ws.receive_json()["message"]
    assert game.seq == 0  # nothing was applied


def test_two_people_play_one_match_each_seeing_only_their_view(client: TestClient) -> None:
    """Two seats of one match, each its own socket: each move reaches both, no hidden tile."""
    made = _create(client, 3, ["human", "greedy", "human"], seed=None)
    game = _game(client, made["id"])
    tokens = {s["seat"]: _token(s["url"]) for s in made["seats"]}
    with (
        client.websocket_connect(f"/ws/{made['id']}") as ws0,
        client.websocket_connect(f"/ws/{made['id']}") as ws2,
    ):
        seats = {0: _Seat(ws0, game, 0), 2: _Seat(ws2, game, 2)}
        ws0.send_text(json.dumps({"type": "hello", "token": tokens[0]}))
        ws2.send_text(json.dumps({"type": "hello", "token": tokens[2]}))
        latest = {n: s.receive() for n, s in seats.items()}
        placed = 0
        while placed < 12 and game.state.winner is None:
            # Bring both browsers up to date, then let the seat to move (if a person) act.
            seq = game.seq
            latest = {
                n: s.until(seq) if latest[n]["view"]["seq"] < seq else latest[n]
                for n, s in seats.items()
            }
            if game.waiting_for():
                for n in game.waiting_for():
                    seats[n].send(type="continue")
                    latest[n] = seats[n].receive()
                continue
            turn = game.state.turn
            if turn not in seats or not game.setup.seats[turn].is_human:
                latest = {n: s.until(seq + 1) for n, s in seats.items()}
                continue
            view = latest[turn]["view"]
            move = next((m for m in view["legal_moves"] if " " in m), None)
            if move is None:  # a forced draw or pass, made by the server
                latest = {n: s.until(seq + 1) for n, s in seats.items()}
                continue
            seats[turn].send(type="move", move=move, seq=view["seq"])
            latest = {n: s.until(seq + 1) for n, s in seats.items()}
            placed += 1
    assert placed == 12 or game.state.winner is not None
    for n, seat in seats.items():
        hands = {tuple(m["view"]["hand"]) for m in seat.received if m["type"] == "state"}
        assert hands  # each saw its own hand, and (checked as received) nothing hidden
        assert all(m["you"] == n for m in seat.received if m["type"] == "state")


def test_hint_undo_and_settlement_wait(client: TestClient) -> None:
    """A hint is a legal move; undo takes back the last placement; bots wait after a settlement."""
    made = _create(client, 2, ["human", "greedy"], seed=2)
    game = _game(client, made["id"])
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        seat = _Seat(ws, game, 0)
        ws.send_text(json.dumps({"type": "hello", "token": _token(made["seats"][0]["url"])}))
        message = seat.receive()
        while not any(" " in m for m in message["view"]["legal_moves"] or []):
            message = seat.receive()
        seat.send(type="hint")
        hint = seat.receive()
        while hint["type"] != "hint":
            hint = seat.receive()
        assert hint["move"] in message["view"]["legal_moves"]
        seq = message["view"]["seq"]
        seat.send(type="move", move=hint["move"], seq=seq)
        after = _my_choice(seat, seat.until(seq + 1))
        assert after["can_undo"]
        seat.send(type="undo")
        undone = seat.receive()
        assert undone["view"]["seq"] == seq
        assert undone["view"] == json.loads(view_for(game.state, 0).to_json())
        assert undone["can_undo"] == (game.undo_point(0) is not None)
        # Play on to the first settlement: then the bot waits until the seat goes on.
        message = undone
        while True:
            message = _my_choice(seat, message)
            view = message["view"]
            if view["winner"] is not None or message["waiting_for"]:
                break
            move = next(m for m in view["legal_moves"] if " " in m)
            seat.send(type="move", move=move, seq=view["seq"])
            message = seat.receive()
    if view["winner"] is None:
        assert message["waiting_for"] == [0]
        assert view["last_round"]["hands"]  # the revealed hands
        if view["turn"] != 0:
            assert game.seq == view["seq"]  # the bot waits for the seat
            with client.websocket_connect(f"/ws/{made['id']}") as ws:
                seat = _Seat(ws, game, 0)
                ws.send_text(
                    json.dumps({"type": "hello", "token": _token(made["seats"][0]["url"])})
                )
                assert seat.receive()["waiting_for"] == [0]  # still, after a reload
                seat.send(type="continue")
                moved = seat.until(view["seq"] + 1)
            assert moved["waiting_for"] == []


def test_a_match_survives_a_restart(db: Path) -> None:
    """A server on the same database resumes every match where it stood, links and all."""
    with TestClient(_app(db)) as client:
        made = _create(client, 2, ["human", "random"], seed=9)
        token = _token(made["seats"][0]["url"])
        game = _game(client, made["id"])
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            seat = _Seat(ws, game, 0)
            ws.send_text(json.dumps({"type": "hello", "token": token}))
            message = seat.receive()
            for _ in range(3):
                while not any(" " in m for m in message["view"]["legal_moves"] or []):
                    message = seat.receive()
                view = message["view"]
                seat.send(type="move", move=view["legal_moves"][0], seq=view["seq"])
                message = seat.until(view["seq"] + 1)
            before = seat.until(game.seq)
        states = list(game.states)
    with TestClient(_app(db)) as client:
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            resumed = _hello(ws, token)
        assert resumed["view"] == before["view"]
        assert _game(client, made["id"]).states == states


def test_records_are_given_as_the_rules_say(client: TestClient) -> None:
    """A running match's record only to the operator's key; a finished one to its links."""
    made = _create(client, 2, ["human", "greedy"], seed=4)
    server = cast(Any, client.app).state.server
    token = _token(made["seats"][0]["url"])
    url = f"/api/matches/{made['id']}/record"
    refused = client.get(url, params={"token": token})
    assert refused.status_code == 403
    assert "every hand" in refused.json()["error"]
    assert client.get(url, params={"token": "nope"}).status_code == 403
    assert client.get("/api/matches/none/record").status_code == 404
    running = client.get(url, params={"key": server.key})
    assert running.status_code == 200
    record = MatchRecord.from_json(running.text)
    assert record.winner is None
    listed = client.get("/api/matches", params={"key": server.key}).json()["matches"]
    assert [m["id"] for m in listed] == [made["id"]]
    assert client.get("/api/matches").status_code == 403
    # Finish the match, then any of its links gets the record and the replay's frames.
    game = _game(client, made["id"])
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        seat = _Seat(ws, game, 0)
        ws.send_text(json.dumps({"type": "hello", "token": token}))
        _play_to_end(seat, seat.receive())
    done = client.get(url, params={"token": _token(made["spectator"])})
    assert done.status_code == 200
    assert "attachment" in done.headers["content-disposition"]
    record = MatchRecord.from_json(done.text)
    assert list(replay(record))[-1] == game.state
    frames = client.get(f"/api/matches/{made['id']}/frames", params={"token": token}).json()
    assert frames["total"] == game.seq + 1
    assert len(frames["frames"]) == min(PAGE, game.seq + 1)  # the first page
    assert frames["winner"] == game.state.winner


def _round_one_record(client: TestClient) -> tuple[Game, str]:
    """A three-player match played by the bots through its first round, and its record's text."""
    made = _create(client, 3, ["human", "greedy", "greedy"], seed=5)
    game = _game(client, made["id"])
    while game.state.round == 1:
        move = game.bot_move() if game.bot_to_move() else None
        if move is None:
            state = game.state
            move = next(m for m in view_for(state, state.turn).legal_moves)
        game.commit(game.plan_play(move))
    return game, game.record().to_json()


def _pages(client: TestClient, url: str, text: str) -> list[dict[str, Any]]:
    """Every frame of a replay, asked for ten at a time (the viewer asks for pages too)."""
    frames: list[dict[str, Any]] = []
    while True:
        answer = client.post(f"{url}&start={len(frames)}&count=10", content=text).json()
        assert answer["start"] == len(frames)
        frames.extend(answer["frames"])
        if len(frames) >= answer["total"]:
            return frames


def test_an_uploaded_record_opens_in_the_replay_viewer(client: TestClient) -> None:
    """POST /api/replay gives one frame per action, in pages; a broken record gets its reason."""
    game, text = _round_one_record(client)
    key = cast(Any, client.app).state.server.key
    frames = _pages(client, f"/api/replay?key={key}", text)
    assert len(frames) == game.seq + 1 > 10  # more than one page
    settled = [f for f in frames if f["settlement"]]
    assert len(settled) == 1
    assert settled[0]["hands"] == [
        [str(t) for t in hand]
        for hand in game.states[-1].last_round.hands  # type: ignore[union-attr]
    ]
    # A link of one of the server's matches may replay too.
    link = f"/api/replay?match={game.id}&token={game.setup.seats[0].token}"
    assert _pages(client, link, text) == frames
    bad = client.post(f"/api/replay?key={key}", content=text.replace('"players":3', '"players":9'))
    assert bad.status_code == 400
    assert "cannot be replayed" in bad.json()["error"]


def test_the_replay_endpoint_is_bounded_and_needs_a_key_or_a_link(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No key or link: 403; over 1 MiB or over the actions' cap: 413; a bad page: 400."""
    game, text = _round_one_record(client)
    key = cast(Any, client.app).state.server.key
    for query in ("", "?key=nope", f"?match={game.id}&token=nope", "?match=none&token=x"):
        refused = client.post(f"/api/replay{query}", content=text)
        assert refused.status_code == 403, query
        assert "key or a link" in refused.json()["error"]
    big = client.post(f"/api/replay?key={key}", content=b" " * (MAX_REPLAY_BYTES + 1))
    assert big.status_code == 413
    assert "at most 1 MiB" in big.json()["error"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: the body is counted as it comes
        for _ in range(MAX_REPLAY_BYTES // 4096 + 2):
            yield b" " * 4096

    assert client.post(f"/api/replay?key={key}", content=chunks()).status_code == 413
    for page in ("start=-1", "count=0", f"count={PAGE + 1}", "start=x"):
        answer = client.post(f"/api/replay?key={key}&{page}", content=text)
        assert answer.status_code == 400, page
        assert "start" in answer.json()["error"]
    monkeypatch.setattr(routes_module, "MAX_REPLAY_ACTIONS", 10)
    long = client.post(f"/api/replay?key={key}", content=text)
    assert long.status_code == 413
    assert "at most 10" in long.json()["error"]


def test_a_replay_stops_when_its_client_goes_away(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client leaves before its frames are drawn: the drawing stops, no frame is made."""
    drawn: list[int] = []
    real = frames_module.record_frames

    def watched(record: MatchRecord, start: int, count: int, stop: threading.Event) -> Any:
        assert stop.wait(30)  # set by the server when it saw the client leave
        try:
            return real(record, start, count, stop=stop)
        finally:
            drawn.append(count)

    monkeypatch.setattr(routes_module, "record_frames", watched)
    monkeypatch.setattr(frames_module, "_frame", lambda *a: pytest.fail("a frame was drawn"))
    app = _app(db)
    text = json.dumps(json.loads(_record_text())).encode()
    sent: list[dict[str, Any]] = []

    async def main() -> None:
        messages: list[MutableMapping[str, Any]] = [
            {"type": "http.request", "body": text, "more_body": False},
            {"type": "http.disconnect"},
        ]

        async def receive() -> MutableMapping[str, Any]:
            if messages:
                return messages.pop(0)
            await asyncio.Event().wait()
            raise AssertionError  # pragma: no cover

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(dict(message))

        server = app.state.server
        scope = {
            "type": "http",
            "method": "POST",
            "path": "/api/replay",
            "raw_path": b"/api/replay",
            "query_string": f"key={server.key}".encode(),
            "headers": [(b"host", b"testserver")],
            "scheme": "http",
            "server": ("testserver", 80),
            "client": ("127.0.0.1", 1),
            "root_path": "",
            "http_version": "1.1",
        }
        await app(scope, receive, send)
        await server.close()

    asyncio.run(main())
    assert drawn == [PAGE]
    assert sent[0]["status"] == 499


def _record_text() -> str:
    from american_sniff import apply, legal_moves, new_match, record_match

    states = [new_match(2, seed=3)]
    for _ in range(20):
        states.append(apply(states[-1], legal_moves(states[-1])[0]))
    return record_match(states).to_json()


def test_the_pages_are_served(client: TestClient) -> None:
    """The three pages and their scripts come from package data."""
    for path in ("/", "/play/abc", "/replay", "/static/play.js", "/static/style.css"):
        response = client.get(path)
        assert response.status_code == 200, path
    assert client.get("/api/kinds").json()["kinds"] == ["human", *BOT_KINDS]


def test_a_match_between_people_refuses_a_chosen_seed(client: TestClient) -> None:
    """Whoever creates a match between people cannot choose (and so know) its deals."""
    response = client.post(
        "/api/matches", json={"players": 2, "seats": ["human", "human"], "seed": 3}
    )
    assert response.status_code == 400
    assert "random seed" in response.json()["error"]
    seeds = set()
    for _ in range(3):
        made = _create(client, 3, ["human", "human", "greedy"], seed=None)
        game = _game(client, made["id"])
        seeds.add(game.setup.seed)
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            first = _hello(ws, _token(made["seats"][0]["url"]))
        assert str(game.setup.seed) not in json.dumps(first)  # no player is told it
        assert str(game.setup.seed) not in json.dumps(made)
    assert len(seeds) == 3  # a fresh draw of the generator each time


def test_names_reach_the_links_and_every_payload(client: TestClient) -> None:
    """The names given at the setup are in the links and in each seat's messages."""
    body = {"players": 2, "seats": ["human", "human"], "names": ["Ana", "Bo"]}
    response = client.post("/api/matches", json=body)
    assert response.status_code == 201, response.text
    made = response.json()
    assert [s["name"] for s in made["seats"]] == ["Ana", "Bo"]
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        message = _hello(ws, _token(made["seats"][1]["url"]))
        assert message["names"] == ["Ana", "Bo"]
    refused = client.post(
        "/api/matches", json={"players": 2, "seats": ["human", "greedy"], "names": ["Ana", "X"]}
    )
    assert refused.status_code == 400
    assert "takes no name" in refused.json()["error"]


def test_a_rematch_keeps_the_seats_links_and_names(client: TestClient, db: Path) -> None:
    """Once over, a match's rematch: the same tokens and names, a new seed; one per match."""
    body = {"players": 2, "seats": ["human", "human"], "names": ["Ana", "Bo"]}
    made = client.post("/api/matches", json=body).json()
    game = _game(client, made["id"])
    tokens = [_token(s["url"]) for s in made["seats"]]
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        _hello(ws, tokens[1])
        ws.send_text(json.dumps({"type": "rematch"}))
        assert ws.receive_json() == {
            "type": "error",
            "message": "a rematch is offered once the match is over",
        }
    while game.state.winner is None:  # both people's moves: the first legal one each time
        game.commit(game.plan_play(view_for(game.state, game.state.turn).legal_moves[0]))
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        assert _hello(ws, tokens[1])["rematch"] is None
        ws.send_text(json.dumps({"type": "rematch"}))
        rematch = ws.receive_json()["rematch"]
        ws.send_text(json.dumps({"type": "rematch"}))  # asked again: the same one
        assert ws.receive_json()["rematch"] == rematch
    again = _game(client, rematch)
    assert again.seq == 0
    assert [s.token for s in again.setup.seats] == tokens
    assert [s.name for s in again.setup.seats] == ["Ana", "Bo"]
    assert again.setup.spectator == game.setup.spectator
    assert again.setup.seed != game.setup.seed
    # A server started again on the same database gives the same rematch.
    with TestClient(_app(db)) as restarted:
        with restarted.websocket_connect(f"/ws/{made['id']}") as ws:
            _hello(ws, tokens[0])
            ws.send_text(json.dumps({"type": "rematch"}))
            assert ws.receive_json()["rematch"] == rematch
        with restarted.websocket_connect(f"/ws/{rematch}") as ws:
            assert _hello(ws, tokens[0])["you"] == 0


def test_match_creation_is_rate_limited_per_address(db: Path) -> None:
    """After its burst, an address gets 429 with Retry-After until a match's time comes back."""
    now = [0.0]
    limit = RateLimit(burst=2, every=30, clock=lambda: now[0])
    with TestClient(_app(db, creations=limit)) as client:
        body = {"players": 2, "seats": ["human", "greedy"]}
        assert [client.post("/api/matches", json=body).status_code for _ in range(2)] == [201] * 2
        refused = client.post("/api/matches", json=body)
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "30"
        assert "try again in 30 s" in refused.json()["error"]
        now[0] = 30.0
        assert client.post("/api/matches", json=body).status_code == 201


def test_a_post_from_another_sites_page_is_refused(client: TestClient) -> None:
    """A cross-site POST (its Origin names another site) is refused; the server's own passes."""
    body = {"players": 2, "seats": ["human", "greedy"]}
    foreign = {"origin": "https://elsewhere.example"}
    refused = client.post("/api/matches", json=body, headers=foreign)
    assert refused.status_code == 403
    assert "another site" in refused.json()["error"]
    assert client.post("/api/replay", content=b"{}", headers=foreign).status_code == 403
    own = {"origin": "http://testserver"}
    assert client.post("/api/matches", json=body, headers=own).status_code == 201


def test_the_seat_that_went_on_is_not_asked_again_after_a_restart(db: Path) -> None:
    """Two people end round 1; the seat that ended it goes on; a restarted server asks the other."""
    with TestClient(_app(db)) as client:
        made = _create(client, 2, ["human", "human"], seed=None)
        tokens = [_token(seat["url"]) for seat in made["seats"]]
        game = _game(client, made["id"])
        with (
            client.websocket_connect(f"/ws/{made['id']}") as ws0,
            client.websocket_connect(f"/ws/{made['id']}") as ws1,
        ):
            seats = [_Seat(ws0, game, 0), _Seat(ws1, game, 1)]
            latest = []
            for seat, token in zip(seats, tokens, strict=True):
                seat.send(type="hello", token=token)
                latest.append(seat.until(0))
            while latest[0]["view"]["round"] == 1:
                view = latest[0]["view"]
                turn = view["turn"]
                mine = latest[turn]["view"]
                placements = [m for m in mine["legal_moves"] or [] if " " in m]
                if placements:
                    seats[turn].send(type="move", move=placements[0], seq=mine["seq"])
                latest = [seat.until(view["seq"] + 1) for seat in seats]
            ender = turn
            assert latest[ender]["waiting_for"] == [0, 1]
            seats[ender].send(type="continue")
            assert seats[ender].receive()["waiting_for"] == [1 - ender]
    with TestClient(_app(db)) as client:
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            resumed = _hello(ws, tokens[ender])
        assert resumed["view"]["round"] == 2
        assert resumed["waiting_for"] == [1 - ender]


def test_a_match_nobody_is_connected_to_is_forgotten_then_loaded_again(db: Path) -> None:
    """Memory holds the matches being played: an idle one is dropped, and comes back whole."""
    import time

    app = _app(db, forget_after=0.05)
    with TestClient(app) as client:
        server = cast(Any, app).state.server
        made = _create(client, 2, ["human", "human"], seed=None)
        tokens = [_token(seat["url"]) for seat in made["seats"]]
        with client.websocket_connect(f"/ws/{made['id']}") as watcher:
            turn = _hello(watcher, made["spectator"].split("#", 1)[1])["view"]["turn"]
            with client.websocket_connect(f"/ws/{made['id']}") as ws:
                view = _hello(ws, tokens[turn])["view"]
                time.sleep(0.3)  # browsers are connected: kept however long
                assert server.rooms.get(made["id"]) is not None
                move = next(m for m in view["legal_moves"] if " " in m)
                ws.send_text(json.dumps({"type": "move", "move": move, "seq": view["seq"]}))
                after = ws.receive_json()
                assert after["type"] == "state"
                assert after["view"]["seq"] == view["seq"] + 1
        _until_forgotten(server, made["id"])
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            again = _hello(ws, tokens[turn])
            assert server.rooms.get(made["id"]) is not None
        assert again["view"]["seq"] >= after["view"]["seq"]
    # Nothing was lost: what it gives is what a server started again on the store gives.
    with (
        TestClient(_app(db)) as restarted,
        restarted.websocket_connect(f"/ws/{made['id']}") as ws,
    ):
        assert _hello(ws, tokens[turn]) == again


def _until_forgotten(server: Any, match_id: str) -> None:
    """Wait (at most 5 s) until the server no longer holds the match in memory."""
    import time

    deadline = time.monotonic() + 5
    while (server.rooms.get(match_id) is not None) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not (server.rooms.get(match_id) is not None)


def test_a_browser_slow_to_say_hello_keeps_its_match_in_memory(db: Path) -> None:
    """A browser waited on for its hello counts as connected: no second game of one match."""
    import time

    app = _app(db, forget_after=0.1)
    with TestClient(app) as client:
        server = cast(Any, app).state.server
        made = _create(client, 2, ["human", "human"], seed=None)
        tokens = [_token(seat["url"]) for seat in made["seats"]]
        with client.websocket_connect(f"/ws/{made['id']}") as slow:
            time.sleep(0.4)  # the match's first forgetting is due meanwhile
            assert server.rooms.get(made["id"]) is not None
            first = _hello(slow, tokens[0])["view"]
            game = _game(client, made["id"])
            with client.websocket_connect(f"/ws/{made['id']}") as other:
                second = _hello(other, tokens[1])["view"]
                assert _game(client, made["id"]) is game  # one game, whoever comes
                turn = first["turn"]
                mover, watcher = (slow, other) if turn == 0 else (other, slow)
                view = first if turn == 0 else second
                move = next(m for m in view["legal_moves"] if " " in m)
                mover.send_text(json.dumps({"type": "move", "move": move, "seq": view["seq"]}))
                assert mover.receive_json()["view"]["seq"] == view["seq"] + 1
                assert watcher.receive_json()["view"]["seq"] == view["seq"] + 1


def test_a_forgotten_match_keeps_its_rematch(db: Path) -> None:
    """The rematch offered before a match was forgotten, or before a restart, is offered after."""
    app = _app(db, forget_after=0.05)
    with TestClient(app) as client:
        server = cast(Any, app).state.server
        made = _create(client, 2, ["human", "greedy"], seed=4)
        token = _token(made["seats"][0]["url"])
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            seat = _Seat(ws, _game(client, made["id"]), 0)
            ws.send_text(json.dumps({"type": "hello", "token": token}))
            _play_to_end(seat, seat.receive())
            ws.send_text(json.dumps({"type": "rematch"}))
            rematch = ws.receive_json()["rematch"]
        assert isinstance(rematch, str)
        _until_forgotten(server, made["id"])
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            assert _hello(ws, token)["rematch"] == rematch
    with (
        TestClient(_app(db)) as restarted,
        restarted.websocket_connect(f"/ws/{made['id']}") as ws,
    ):
        assert _hello(ws, token)["rematch"] == rematch
