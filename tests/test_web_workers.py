"""Two browser servers on one database: a move planned on a stale copy of a match is refused.

A match reached through two processes (a round-robin balancer, or a
reconnect that lands on another one) is held in memory by both. A move sent
to the one whose copy is behind must not be logged after the other's: it is
refused, that server reloads the match from the database, and its client is
told the fresh state.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from american_sniff.engine import legal_moves
from american_sniff.moves import Place
from american_sniff.tiles import ALL_TILES
from american_sniff.views import view_for
from american_sniff.web.game import Change, Game, new_setup
from american_sniff.web.shared import LibraryStore
from american_sniff.web.store import LogEntry, MatchBook, Store
from pg_testing import POSTGRES_URL, Opener, library, postgres_schema

pytest.importorskip("starlette")
pytest.importorskip("httpx2")  # TestClient's transport (Starlette 1 and later)

from starlette.applications import Starlette
from starlette.testclient import TestClient, WebSocketTestSession

from american_sniff.web.app import Server, create_app
from american_sniff.web.flow import Flow, Stale
from american_sniff.web.limits import SocketLimits
from web_sockets import refused


def _app(store: MatchBook) -> Starlette:
    return create_app(store, bot_delay=0, limits=SocketLimits.lifted())


def _state(ws: WebSocketTestSession) -> dict[str, Any]:
    """The next state message (errors before it are skipped)."""
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == "state":
            return message


def test_a_move_through_a_stale_server_is_refused_and_the_match_still_loads(
    opener: Opener,
) -> None:
    """One seat's move for seq 0 through each of two servers: one lands, both end the same."""
    store = opener()
    game = Game.create(store, new_setup(2, ["human", "human"], seed=0))
    store.close()
    turn = game.state.turn
    token = game.setup.seats[turn].token
    assert token is not None
    with (
        TestClient(_app(opener())) as one,
        TestClient(_app(opener())) as two,
        one.websocket_connect(f"/ws/{game.id}") as first,
        two.websocket_connect(f"/ws/{game.id}") as second,
    ):
        first.send_text(json.dumps({"type": "hello", "token": token}))
        second.send_text(json.dumps({"type": "hello", "token": token}))
        seen_first, seen_second = _state(first), _state(second)
        assert seen_first["view"]["seq"] == seen_second["view"]["seq"] == 0
        moves = seen_first["view"]["legal_moves"]
        # The same seat moves through each server, both planned at seq 0.
        first.send_text(json.dumps({"type": "move", "move": moves[0], "seq": 0}))
        after_first = _state(first)
        assert after_first["view"]["seq"] == 1
        second.send_text(json.dumps({"type": "move", "move": moves[1], "seq": 0}))
        # The stale server reloaded the match and told its client the fresh state,
        after_second = second.receive_json()
        assert after_second["type"] == "state"
        assert after_second["view"] == after_first["view"]
        # and why its move was refused (on PostgreSQL, the other server's move
        # may be heard first: the move is then refused as not the seat's turn).
        refused = second.receive_json()
        assert refused["type"] == "error"
        assert "changed" in refused["message"] or "turn" in refused["message"]
    store = opener()
    stored = store.load(game.id)
    assert stored is not None
    assert stored.log == (LogEntry("move", moves[0]),)  # exactly one move landed
    assert Game(stored, store).seq == 1  # and the match loads
    store.close()


def test_a_bot_driver_on_a_stale_copy_reads_the_match_again_and_moves_not_twice(
    opener: Opener,
) -> None:
    """Two servers drive one bot seat: the one behind is refused, reloads, and stops."""
    store = opener()
    made = Game.create(store, new_setup(2, ["greedy", "human"], seed=0))
    store.close()
    assert made.bot_to_move()

    async def scenario() -> None:
        ahead = Server(opener(), bot_delay=0, limits=SocketLimits.lifted())
        behind = Server(opener(), bot_delay=0, limits=SocketLimits.lifted())
        try:
            front, back = await ahead.rooms.load(made.id), await behind.rooms.load(made.id)
            assert front is not None
            assert back is not None
            fast, slow = front.game, back.game
            async with front.lock:
                await ahead.flow.commit(front, fast.plan_play(fast.bot_move()))
            assert slow.seq == 0  # its copy is behind
            behind.driver.drive(back)
            assert back.driver is not None
            await back.driver
            assert slow.seq == 1
            assert slow.state == fast.state
            assert not slow.bot_to_move()
        finally:
            await ahead.close()
            await behind.close()

    asyncio.run(scenario())
    store = opener()
    stored = store.load(made.id)
    assert stored is not None
    assert len(stored.log) == 1  # the bot moved once
    assert Game(stored, store).seq == 1
    store.close()


def _hosts_own(store: MatchBook) -> str:
    """The id of a match made in ``store`` without the browser game's setup (a host's own)."""
    if isinstance(store, LibraryStore):  # as with PostgresStore(url).create(2, seed=1)
        return store.library.create(2, seed=1, metadata={"names": ["Ann", "Bob"]}).id
    store.create("hostsown0001", time.time(), {"names": ["Ann", "Bob"]})
    return "hostsown0001"


def test_a_match_the_hosts_own_code_made_is_listed_as_not_the_browser_games(
    opener: Opener,
) -> None:
    """A match made without the browser's setup: listed with that reason in words, no KeyError."""
    store = opener()
    foreign = _hosts_own(store)
    game = Game.create(store, new_setup(2, ["human", "greedy"], seed=0))
    with TestClient(_app(store)) as client:
        key = cast(Any, client.app).state.server.key
        listed = client.get("/api/matches", params={"key": key})
    assert listed.status_code == 200
    by_id = {m["id"]: m for m in listed.json()["matches"]}
    assert by_id[foreign] == {
        "id": foreign,
        "broken": "the match was not made by the browser game: its setup lacks 'players', "
        "'seed', 'seats' and 'spectator'",
    }
    assert by_id[game.id]["round"] == 1


def test_a_match_that_cannot_be_served_is_refused_in_words_not_with_a_500(
    opener: Opener,
) -> None:
    """A match the browser game did not make: its record, frames and socket each say why.

    They answered 500, or dropped the socket; a log that no longer replays is refused so too.
    """
    store = opener()
    foreign = _hosts_own(store)
    broken = Game.create(store, new_setup(2, ["human", "human"], seed=0))
    state = broken.state
    held = set(state.hands[state.turn])
    tile = next(t for t in sorted(ALL_TILES) if t not in held and t.is_double)
    store.append(broken.id, LogEntry("move", f"{tile} opens"), expected=0)  # not the seat's tile
    with TestClient(_app(store), raise_server_exceptions=False) as client:
        key = cast(Any, client.app).state.server.key
        for match_id, why in ((foreign, "not made by the browser game"), (broken.id, str(tile))):
            for path in ("record", "frames"):
                answer = client.get(f"/api/matches/{match_id}/{path}", params={"key": key})
                assert answer.status_code == 409, (path, answer.status_code)
                assert "cannot be served here" in answer.json()["error"]
                assert why in answer.json()["error"]
            with client.websocket_connect(f"/ws/{match_id}") as socket:
                refused(socket, "cannot be served here", 4409)
        assert client.get("/api/kinds").status_code == 200  # the server goes on


def _serve(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> tuple[int, Any]:
    """What ``serve`` returns with ``argv``, and the app it would run (nothing is served)."""
    uvicorn = pytest.importorskip("uvicorn")
    from american_sniff.cli import main
    from american_sniff.web import serving

    apps: list[Any] = []

    def run(self: Any, sockets: Any = None) -> None:
        apps.append(self.config.app)
        for listener in sockets or ():
            listener.close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    monkeypatch.setattr(serving, "tune_collector", lambda: None)
    code = main(["serve", "--port", "0", *argv])
    return code, apps[0] if apps else None


def test_serve_without_psycopg_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A PostgreSQL URL with psycopg missing is one line naming the extra; no traceback."""
    monkeypatch.setitem(__import__("sys").modules, "psycopg", None)
    code, app = _serve(monkeypatch, ["--db", "postgresql://127.0.0.1:5432/test"])
    assert (code, app) == (2, None)
    error = capsys.readouterr().err
    assert "american-sniff[web,postgres]" in error
    assert "Traceback" not in error


def test_serve_on_an_unreachable_postgresql_is_one_line_without_the_password(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A database that does not answer fails before serving, its password hidden."""
    pytest.importorskip("psycopg")
    code, app = _serve(monkeypatch, ["--db", "postgresql://ann:secret@127.0.0.1:1/test"])
    assert (code, app) == (1, None)
    error = capsys.readouterr().err
    assert "cannot open the database postgresql://ann:***@127.0.0.1:1/test" in error
    assert "secret" not in error
    assert error.count("\n") == 1  # psycopg's hint on a second line is left out


def test_serve_on_a_search_path_of_no_schema_says_to_create_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A URL whose search_path names a missing schema: one line saying to create it first."""
    for schema in postgres_schema("sniff_nosuch"):  # made by nobody: it does not exist
        url = f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
        code, app = _serve(monkeypatch, ["--db", url])
        assert (code, app) == (1, None)
        error = capsys.readouterr().err
        assert error.count("\n") == 1, error
        assert f"cannot open the database {url}: " in error
        assert "search_path names no schema that exists" in error
        assert "CREATE SCHEMA" in error
        assert "LINE 1" not in error


def test_serve_keeps_its_matches_in_postgresql(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``serve --db postgresql://...``: a match made through it is in the database."""
    for schema in postgres_schema("sniff_web"):
        import psycopg

        with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
            admin.execute(f'CREATE SCHEMA "{schema}"')
        url = f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
        code, app = _serve(monkeypatch, ["--db", url])
        assert code == 0
        assert "Matches are kept in the PostgreSQL database" in capsys.readouterr().out
        with TestClient(app) as client:
            made = client.post(
                "/api/matches",
                json={"players": 2, "seats": ["human", "greedy"]},
                headers={"host": "127.0.0.1:8000"},
            )
            assert made.status_code == 201, made.text
        store = library(schema)
        try:
            stored = store.load(made.json()["id"])
            assert stored is not None
            assert stored.setup["seats"][1]["kind"] == "greedy"
            assert store.meta_of("key") == app.state.server.key
        finally:
            store.close()


@pytest.fixture
def schema() -> Iterator[str]:
    """A new PostgreSQL schema on the test database."""
    yield from postgres_schema("sniff_web")


@pytest.fixture
def postgres(schema: str) -> Opener:
    """How each server opens one PostgreSQL schema (no SQLite twin: only it announces)."""
    return functools.partial(library, schema)


def _until_seq(app: Starlette, match_id: str, seq: int) -> None:
    """Wait (at most 10 s) until the server of ``app`` holds ``match_id`` at ``seq``."""
    server = app.state.server
    deadline = time.monotonic() + 10
    while server.rooms.get(match_id).game.seq < seq:
        assert time.monotonic() < deadline, "the other worker's move was never heard"
        time.sleep(0.01)


def test_a_move_through_one_worker_reaches_the_sockets_of_another(postgres: Opener) -> None:
    """Each seat on its own server: every move is announced, and both see it in order."""
    store = postgres()
    game = Game.create(store, new_setup(2, ["human", "human"], seed=0))
    store.close()
    tokens = [seat.token for seat in game.setup.seats]
    with (
        TestClient(_app(postgres())) as one,
        TestClient(_app(postgres())) as two,
        one.websocket_connect(f"/ws/{game.id}") as zero_ws,
        two.websocket_connect(f"/ws/{game.id}") as one_ws,
    ):
        sockets = {0: zero_ws, 1: one_ws}
        apps = {0: one.app, 1: two.app}
        for seat, ws in sockets.items():
            ws.send_text(json.dumps({"type": "hello", "token": tokens[seat]}))
        latest = {seat: _state(ws) for seat, ws in sockets.items()}
        for seq in range(2):  # two placements (seed 0 has no forced draw before the third)
            turn = latest[0]["view"]["turn"]
            move = latest[turn]["view"]["legal_moves"][0]
            sockets[turn].send_text(json.dumps({"type": "move", "move": move, "seq": seq}))
            other = 1 - turn
            _until_seq(cast(Starlette, apps[other]), game.id, seq + 1)
            latest = {seat: _state(ws) for seat, ws in sockets.items()}
            assert latest[0]["view"]["seq"] == latest[1]["view"]["seq"] == seq + 1
    store = postgres()
    stored = store.load(game.id)
    assert stored is not None
    assert len(stored.log) == 2
    store.close()


def test_one_worker_drives_a_bot_seat_and_another_takes_over_when_it_dies(
    postgres: Opener,
) -> None:
    """The bot's lease is one worker's; once it lapses (the worker died), another moves."""
    store = postgres()
    made = Game.create(store, new_setup(2, ["greedy", "human"], seed=0))
    store.close()

    async def scenario() -> None:
        dead = Server(postgres(), bot_delay=0, limits=SocketLimits.lifted(), lease=0.6)
        alive = Server(postgres(), bot_delay=0, limits=SocketLimits.lifted(), lease=0.6)
        try:
            assert await dead.driver.holds(made.id, 0)  # it drives the bot, then dies
            room = await alive.rooms.load(made.id)
            assert room is not None
            game = room.game
            started = time.monotonic()
            alive.driver.drive(room)
            await asyncio.sleep(0.3)
            assert game.seq == 0  # the lease is the dead worker's still
            assert room.driver is not None
            await asyncio.wait_for(room.driver, 5)
            assert game.seq == 1  # taken over, and moved once
            assert 0.5 < time.monotonic() - started < 5
        finally:
            await dead.close()
            await alive.close()

    asyncio.run(scenario())
    store = postgres()
    stored = store.load(made.id)
    assert stored is not None
    assert len(stored.log) == 1
    store.close()


def _serving(url: str) -> tuple[subprocess.Popen[str], str]:
    """An ``american-sniff serve`` process on the database ``url``, and its address."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "american_sniff",
            "serve",
            "--port",
            "0",
            "--db",
            url,
            "--bot-delay",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert "is served at http://" in line, line
    return process, line.split("http://", 1)[1].split("/", 1)[0]


def test_two_serve_processes_on_one_postgresql_each_seat_on_its_own(
    postgres: Opener, schema: str
) -> None:
    """Two real ``serve`` processes: each seat's socket on its own sees every move, in order."""
    websockets = pytest.importorskip("websockets.sync.client")
    store = postgres()
    game = Game.create(store, new_setup(2, ["human", "human"], seed=0))
    store.close()
    url = f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    processes = [_serving(url) for _ in range(2)]
    opened = contextlib.ExitStack()
    try:
        sockets = [
            opened.enter_context(
                websockets.connect(f"ws://{address}/ws/{game.id}", open_timeout=10)
            )
            for _, address in processes
        ]
        for seat, ws in enumerate(sockets):
            ws.send(json.dumps({"type": "hello", "token": game.setup.seats[seat].token}))

        def state(ws: Any) -> dict[str, Any]:
            while True:
                message: dict[str, Any] = json.loads(ws.recv(timeout=10))
                if message["type"] == "state":
                    return message

        latest = [state(ws) for ws in sockets]
        for seq in range(2):
            turn = latest[0]["view"]["turn"]
            move = latest[turn]["view"]["legal_moves"][0]
            sockets[turn].send(json.dumps({"type": "move", "move": move, "seq": seq}))
            latest = [state(ws) for ws in sockets]
            assert [m["view"]["seq"] for m in latest] == [seq + 1, seq + 1]
            assert [m["view"]["last_action"]["move"] for m in latest] == [move, move]
    finally:
        opened.close()
        for process, _ in processes:
            process.terminate()
            process.wait(10)
            assert process.stdout is not None
            process.stdout.close()


def test_a_worker_whose_listening_connection_drops_listens_again_and_catches_up(
    postgres: Opener, schema: str
) -> None:
    """The database ends the listening connection: the worker listens again, and reads again."""
    import psycopg

    store = postgres()
    game = Game.create(store, new_setup(2, ["human", "human"], seed=0))
    store.close()
    turn = game.state.turn
    with (
        TestClient(_app(postgres())) as one,
        TestClient(_app(postgres())) as two,
        one.websocket_connect(f"/ws/{game.id}") as mover,
        two.websocket_connect(f"/ws/{game.id}") as watcher,
    ):
        mover.send_text(json.dumps({"type": "hello", "token": game.setup.seats[turn].token}))
        watcher.send_text(json.dumps({"type": "hello", "token": game.setup.spectator}))
        move = _state(mover)["view"]["legal_moves"][0]
        assert _state(watcher)["view"]["seq"] == 0
        with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
            listening = (  # (each worker follows the match: its last query listened to it)
                "SELECT pid FROM pg_stat_activity WHERE query LIKE %s",
                (f'LISTEN "sniff_{schema}_%',),
            )
            deadline = time.monotonic() + 10
            while len(admin.execute(*listening).fetchall()) < 2:
                assert time.monotonic() < deadline, "the workers never followed the match"
                time.sleep(0.02)
            ended = admin.execute(
                f"SELECT pg_terminate_backend(pid) FROM ({listening[0]}) AS listeners",
                listening[1],
            ).fetchall()
        assert len(ended) == 2  # each worker's listening connection
        mover.send_text(json.dumps({"type": "move", "move": move, "seq": 0}))
        assert _state(mover)["view"]["seq"] == 1
        _until_seq(cast(Starlette, two.app), game.id, 1)
        assert _state(watcher)["view"]["seq"] == 1


def test_a_worker_that_stops_gives_its_bot_seats_up_at_once(postgres: Opener) -> None:
    """A worker closed in good order releases its leases: another drives the seat at once."""
    store = postgres()
    made = Game.create(store, new_setup(2, ["greedy", "human"], seed=0))
    store.close()

    async def scenario() -> None:
        leaving = Server(postgres(), bot_delay=0, limits=SocketLimits.lifted(), lease=60)
        staying = Server(postgres(), bot_delay=0, limits=SocketLimits.lifted(), lease=60)
        try:
            assert await leaving.driver.holds(made.id, 0)
            assert not await staying.driver.holds(made.id, 0)
            await leaving.close()
            assert await staying.driver.holds(made.id, 0)  # not 60 s later: now
        finally:
            await staying.close()

    asyncio.run(scenario())


def test_a_worker_forgets_the_leases_it_took_once_they_have_lapsed(postgres: Opener) -> None:
    """A worker remembers the bot seats it drove only while their leases may hold.

    Past twice a lease's time it neither counts the match as its own to
    follow (``leases``) nor keeps it: what it remembers is the matches it
    drove lately, not every match it ever drove.
    """
    store = postgres()
    made = [Game.create(store, new_setup(2, ["greedy", "human"], seed=n)) for n in range(3)]
    store.close()

    async def scenario() -> None:
        server = Server(postgres(), bot_delay=0, limits=SocketLimits.lifted(), lease=0.05)
        driver = server.driver
        try:
            assert await driver.holds(made[0].id, 0)
            assert await driver.holds(made[1].id, 0)
            assert driver.leases(made[0].id)
            assert not driver.leases(made[2].id)
            await asyncio.sleep(0.3)  # both lapsed (twice 0.05 s)
            assert not driver.leases(made[0].id)
            assert await driver.holds(made[2].id, 0)
            assert set(driver._leases) == {made[2].id}
            assert driver.leases(made[2].id)
        finally:
            await server.close()

    asyncio.run(scenario())


def test_a_killed_workers_bot_seat_moves_again_on_another_within_5_seconds(
    postgres: Opener, schema: str
) -> None:
    """``kill -9`` of the worker that drives a bot: the other drives it once the lease lapses."""
    websockets = pytest.importorskip("websockets.sync.client")
    store = postgres()
    game = Game.create(store, new_setup(2, ["greedy", "human"], seed=0))
    store.close()
    token = game.setup.seats[1].token
    url = f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    processes = [_serving(url) for _ in range(2)]
    (killed, first), (_, second) = processes

    def state(ws: Any, seq: int, timeout: float = 10) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(ws.recv(timeout=timeout))
            if message["type"] == "state" and message["view"]["seq"] >= seq:
                return message

    try:
        with websockets.connect(f"ws://{first}/ws/{game.id}", open_timeout=10) as ws:
            ws.send(json.dumps({"type": "hello", "token": token}))
            view = state(ws, 1)["view"]  # the first worker drove the bot's opening
        killed.kill()  # kill -9: its lease on the bot seat is never given up
        killed.wait(10)
        with websockets.connect(f"ws://{second}/ws/{game.id}", open_timeout=10) as ws:
            ws.send(json.dumps({"type": "hello", "token": token}))
            assert state(ws, 1)["view"]["seq"] == 1
            move = view["legal_moves"][0]
            ws.send(json.dumps({"type": "move", "move": move, "seq": 1}))
            state(ws, 2)
            started = time.monotonic()
            after = state(ws, 3, timeout=5)  # the bot moved again, on the second worker
            assert time.monotonic() - started < 5
            assert after["view"]["last_action"]["seat"] == 0
    finally:
        for process, _ in processes:
            process.kill()
            process.wait(10)
            assert process.stdout is not None
            process.stdout.close()
    store = postgres()
    stored = store.load(game.id)
    assert stored is not None
    assert Game(stored, store).seq >= 3  # the log still replays
    store.close()


def test_a_move_announced_while_a_worker_reads_the_match_is_not_lost(postgres: Opener) -> None:
    """Another worker's move lands after this one read the match, before it holds it: caught up."""
    store = postgres()
    game = Game.create(store, new_setup(2, ["human", "human"], seed=0))
    move = str(legal_moves(game.state)[0])
    store.close()

    async def scenario() -> None:
        reader = Server(postgres(), bot_delay=0, limits=SocketLimits.lifted())
        writer = postgres()
        rooms = reader.rooms
        read = rooms.read
        moved: list[int] = []

        def read_then_another_moves(match_id: str) -> Any:
            stored = read(match_id)  # the match as it was: no move yet
            if not moved:  # the first read only: announced before the match is followed
                writer.append(match_id, LogEntry("move", move), expected=0)
                moved.append(1)
            return stored

        rooms.read = read_then_another_moves  # type: ignore[method-assign]
        try:
            reader.start()
            room = await rooms.load(game.id)
            assert room is not None
            loaded = room.game
            deadline = time.monotonic() + 5
            while loaded.seq < 1:
                assert time.monotonic() < deadline, "the move announced during the read was lost"
                await asyncio.sleep(0.02)
        finally:
            writer.close()
            await reader.close()

    asyncio.run(scenario())


def test_two_seats_going_on_through_two_servers_both_go_on(opener: Opener) -> None:
    """At a settlement, each seat says ``continue`` to its own server: both are logged.

    The second server's copy is behind (the first seat's entry is new): the
    seat's going on does not depend on it, so it is planned again, not refused.
    """
    store = opener()
    game = Game.create(store, new_setup(2, ["human", "human"], seed=5))
    while game.state.round == 1:
        state = game.state
        forced = game.forced()
        if forced is not None:
            game.commit(game.plan_play(forced))
            continue
        move = next(m for m in view_for(state, state.turn).legal_moves if isinstance(m, Place))
        game.commit(game.plan_move(state.turn, str(move), game.seq))
    assert game.waiting_for() == [0, 1]
    store.close()
    tokens = [seat.token for seat in game.setup.seats]
    with (
        TestClient(_app(opener())) as one,
        TestClient(_app(opener())) as two,
        one.websocket_connect(f"/ws/{game.id}") as first,
        two.websocket_connect(f"/ws/{game.id}") as second,
    ):
        for ws, token in ((first, tokens[0]), (second, tokens[1])):
            ws.send_text(json.dumps({"type": "hello", "token": token}))
            assert _state(ws)["waiting_for"] == [0, 1]
        first.send_text(json.dumps({"type": "continue"}))
        assert _state(first)["waiting_for"] == [1]
        second.send_text(json.dumps({"type": "continue"}))
        while (message := second.receive_json())["type"] != "state" or message["waiting_for"]:
            assert message["type"] == "state", message  # no error: it went on
    store = opener()
    stored = store.load(game.id)
    assert stored is not None
    assert [e.kind for e in stored.log[-2:]] == ["continue", "continue"]
    assert Game(stored, store).waiting_for() == []
    store.close()


def _noting_follows(server: Server) -> set[str]:
    """The ids of the matches ``server``'s listener has followed, and read again, so far."""
    followed: set[str] = set()
    listener = server.listener
    caught_up = listener._followed

    def following(newly: list[str]) -> None:
        caught_up(newly)
        followed.update(newly)

    listener._followed = following  # type: ignore[method-assign]
    return followed


async def _first_move_through(server: Server, match_id: str) -> None:
    """The first legal move of the seat to play in ``match_id``, committed through ``server``."""
    room = await server.rooms.load(match_id)
    assert room is not None
    async with room.lock:
        game = room.game
        move = str(legal_moves(game.state)[0])
        await server.flow.commit(room, game.plan_move(game.state.turn, move, game.seq))


async def _until_followed(followed: set[str], ids: set[str]) -> None:
    """Wait until the listener has followed the matches ``ids`` (see :func:`_noting_follows`)."""
    deadline = time.monotonic() + 10
    while not ids <= followed:
        assert time.monotonic() < deadline, f"{ids - followed} were never followed"
        await asyncio.sleep(0.01)


def test_a_match_whose_browsers_another_worker_serves_is_forgotten_not_followed(
    postgres: Opener,
) -> None:
    """Held here with no browser, owned by another worker: the next append lets it go."""
    store = postgres()
    game = Game.create(store, new_setup(2, ["human", "human"], seed=0))
    other = Game.create(store, new_setup(2, ["human", "human"], seed=1))
    store.close()

    async def scenario() -> None:
        mover = Server(postgres(), bot_delay=0, limits=SocketLimits.lifted())
        holder = Server(postgres(), bot_delay=0, limits=SocketLimits.lifted())
        holder.rooms.elsewhere = lambda match_id: match_id == game.id  # (the hand-off's answer)
        followed = _noting_follows(holder)
        try:
            holder.start()
            held = await holder.rooms.load(game.id)
            kept = await holder.rooms.load(other.id)  # this worker's own: followed
            assert held is not None
            assert kept is not None
            await _until_followed(followed, {game.id, other.id})  # (the appends are heard)
            for made in (game, other):
                await _first_move_through(mover, made.id)
            deadline = time.monotonic() + 10
            while kept.game.seq < 1 or holder.rooms.get(game.id) is not None:
                assert time.monotonic() < deadline, "the appends were never heard"
                await asyncio.sleep(0.01)
            assert held.game.seq == 0  # forgotten, not followed
            assert holder.rooms.get(other.id) is kept
            again = await holder.rooms.load(game.id)  # the next browser reads it again
            assert again is not None
            assert again.game.seq == 1
        finally:
            await mover.close()
            await holder.close()

    asyncio.run(scenario())


def test_a_worker_catching_up_takes_the_announced_entry_without_a_read(
    postgres: Opener,
) -> None:
    """An announced move is taken from the announcement, replayed on the states held: no read."""
    store = postgres()
    game = Game.create(store, new_setup(2, ["human", "human"], seed=0))
    store.close()

    async def scenario() -> None:
        mover = Server(postgres(), bot_delay=0, limits=SocketLimits.lifted())
        follower = Server(postgres(), bot_delay=0, limits=SocketLimits.lifted())
        watched = _noting_follows(follower)
        try:
            follower.start()
            follows = await follower.rooms.load(game.id)
            moves = await mover.rooms.load(game.id)
            assert follows is not None
            assert moves is not None
            # (Once followed, it is read again, for what was appended before: not counted.)
            await _until_followed(watched, {game.id})
            await asyncio.gather(*list(follower.rooms.closing))
            held, moving = follows.game, moves.game
            library = follower.store.library  # type: ignore[attr-defined]
            loads: list[str] = []
            whole = library.load

            def load(match_id: str) -> Any:
                loads.append(match_id)
                return whole(match_id)

            library.load = load
            tails: list[int] = []
            tail = library.entries

            def entries(match_id: str, start: int = 0) -> Any:
                tails.append(start)
                return tail(match_id, start)

            library.entries = entries
            followed: list[int] = []
            follow = follower.flow.follow

            async def counted(room: Any, length: int, entry: Any) -> None:
                followed.append(length)
                await follow(room, length, entry)

            follower.flow.follow = counted  # type: ignore[method-assign]
            states = list(held.states)
            for seq in range(2):
                async with moves.lock:
                    state = moving.state
                    move = str(legal_moves(state)[0])
                    await mover.flow.commit(moves, moving.plan_move(state.turn, move, seq))
                deadline = time.monotonic() + 10
                while held.seq < seq + 1:
                    assert time.monotonic() < deadline, "the move was never heard"
                    await asyncio.sleep(0.01)
            await asyncio.gather(*list(follower.rooms.closing))  # every catching up done
            assert followed == [1, 2]  # each announcement taken once
            assert loads == []  # not the whole match,
            assert tails == []  # nor its tail: the announcement carried the entry
            assert held.states[:1] == states  # the states held were kept, not replayed
            assert held.state == moving.state
        finally:
            await mover.close()
            await follower.close()

    asyncio.run(scenario())


def test_a_worker_hears_the_appends_of_the_matches_it_holds_and_no_others(
    postgres: Opener,
) -> None:
    """Each match is announced on a channel of its own: a worker follows those it holds."""
    store = postgres()
    held_here, elsewhere = (
        Game.create(store, new_setup(2, ["human", "human"], seed=n)) for n in (0, 1)
    )
    store.close()

    async def scenario() -> None:
        mover = Server(postgres(), bot_delay=0, limits=SocketLimits.lifted())
        holder = Server(postgres(), bot_delay=0, limits=SocketLimits.lifted())
        listener = holder.listener
        heard: list[str] = []
        announced = listener._announced

        def noting(match_id: str, length: int, entry: Any = None) -> None:
            heard.append(match_id)
            announced(match_id, length, entry)

        listener._announced = noting  # type: ignore[method-assign]
        followed = _noting_follows(holder)
        try:
            holder.start()
            room = await holder.rooms.load(held_here.id)
            assert room is not None
            await _until_followed(followed, {held_here.id})
            heard.clear()
            for game in (elsewhere, held_here):  # announced in this order, to followers
                await _first_move_through(mover, game.id)
            deadline = time.monotonic() + 10
            while room.game.seq < 1:
                assert time.monotonic() < deadline, "the held match's move was never heard"
                await asyncio.sleep(0.01)
            assert heard == [held_here.id]  # (the other's, committed first, would be first)
        finally:
            await mover.close()
            await holder.close()

    asyncio.run(scenario())


def test_a_change_written_after_its_match_was_read_back_is_not_made_twice(
    opener: Opener,
) -> None:
    """The browser leaves while its move is written; the match is read back; then the write ends.

    The move is in the copy read back: taking it again (on a version that
    moved on) would fail in the loop's callback.
    """
    store = opener()
    game = Game.create(store, new_setup(2, ["human", "human"], seed=0))
    store.close()

    async def scenario() -> None:
        server = Server(opener(), bot_delay=0, limits=SocketLimits.lifted())
        failures: list[dict[str, Any]] = []
        asyncio.get_running_loop().set_exception_handler(lambda loop, c: failures.append(c))
        pending: concurrent.futures.Future[int] = concurrent.futures.Future()

        def submit(match_id: str, entry: LogEntry, *, expected: int | None = None) -> Any:
            server.store.append(match_id, entry, expected=expected)  # written now,
            return pending  # and said so later

        server.writer.submit = submit  # type: ignore[method-assign]
        try:
            room = await server.rooms.load(game.id)
            assert room is not None
            held = room.game
            change = held.plan_move(held.state.turn, str(legal_moves(held.state)[0]), 0)

            async def move() -> None:
                async with room.lock:
                    await server.flow.commit(room, change)

            task = asyncio.create_task(move())
            await asyncio.sleep(0.05)
            task.cancel()  # the browser went away: the lock is free, the write goes on
            with contextlib.suppress(asyncio.CancelledError):
                await task
            async with room.lock:
                await server.flow.reload(room)  # the match read back, with the move
            assert held.seq == 1
            pending.set_result(0)  # the write is said to be done only now
            await asyncio.sleep(0.05)
            assert failures == []
            assert (held.seq, held.logged) == (1, 1)
        finally:
            await server.close()

    asyncio.run(scenario())


def test_the_forced_actions_after_a_change_are_made_by_the_worker_that_made_it(
    postgres: Opener,
) -> None:
    """After one worker's move, the next seat's forced draw is its; the other does not race it."""
    from american_sniff.engine import apply
    from american_sniff.session import lone_move

    store = postgres()
    game = Game.create(store, new_setup(2, ["human", "human"], seed=0))
    while True:  # up to the move after which the next seat must draw
        forced = game.forced()
        if forced is not None:
            game.commit(game.plan_play(forced))
            continue
        state = game.state
        move = next(m for m in view_for(state, state.turn).legal_moves if isinstance(m, Place))
        if lone_move(apply(state, move)) is not None:
            break
        game.commit(game.plan_move(state.turn, str(move), game.seq))
    seq = game.seq
    store.close()

    async def scenario() -> None:
        leader = Server(postgres(), bot_delay=0, limits=SocketLimits.lifted())
        follower = Server(postgres(), bot_delay=0, limits=SocketLimits.lifted())
        writes: list[LogEntry] = []
        submit = follower.writer.submit

        def counted(match_id: str, entry: LogEntry, *, expected: int | None = None) -> Any:
            writes.append(entry)
            return submit(match_id, entry, expected=expected)

        follower.writer.submit = counted  # type: ignore[method-assign]
        try:
            follower.start()
            ahead = await leader.rooms.load(game.id)
            behind = await follower.rooms.load(game.id)
            assert ahead is not None
            assert behind is not None
            async with ahead.lock:
                change = ahead.game.plan_move(ahead.game.state.turn, str(move), seq)
                await leader.flow.commit(ahead, change)
            leader.driver.drive(ahead)  # the forced draw (and any after it)
            deadline = time.monotonic() + 10
            while behind.game.seq < seq + 2 or behind.game.forced() is not None:
                assert time.monotonic() < deadline, "the forced draw was never heard"
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.8)  # past the follower's wait
            assert writes == []  # the follower left them to the leader
            assert behind.game.state == ahead.game.state
        finally:
            await leader.close()
            await follower.close()

    asyncio.run(scenario())


def test_a_move_through_a_server_that_missed_only_a_going_on_lands(opener: Opener) -> None:
    """At a settlement, one seat goes on through one server, the other opens through another.

    The second server's copy lacks the first seat's ``continue``, which adds
    no action: the move is planned on the same table, so it is planned again
    and lands, instead of being refused as stale.
    """
    store = opener()
    game = Game.create(store, new_setup(2, ["human", "human"], seed=5))
    while game.state.round == 1:
        state = game.state
        forced = game.forced()
        if forced is not None:
            game.commit(game.plan_play(forced))
            continue
        move = next(m for m in view_for(state, state.turn).legal_moves if isinstance(m, Place))
        game.commit(game.plan_move(state.turn, str(move), game.seq))
    opener_seat = game.state.turn
    other = 1 - opener_seat
    seq, round_now = game.seq, game.state.round
    opening = next(m for m in view_for(game.state, opener_seat).legal_moves if isinstance(m, Place))
    store.close()
    tokens = [seat.token for seat in game.setup.seats]
    with (
        TestClient(_app(opener())) as one,
        TestClient(_app(opener())) as two,
        one.websocket_connect(f"/ws/{game.id}") as going_on,
        two.websocket_connect(f"/ws/{game.id}") as opening_ws,
    ):
        for ws, seat in ((going_on, other), (opening_ws, opener_seat)):
            ws.send_text(json.dumps({"type": "hello", "token": tokens[seat]}))
            assert _state(ws)["view"]["seq"] == seq
        going_on.send_text(json.dumps({"type": "continue"}))
        assert other not in _state(going_on)["waiting_for"]
        opening_ws.send_text(json.dumps({"type": "move", "move": str(opening), "seq": seq}))
        while (message := opening_ws.receive_json())["type"] != "state" or (
            message["view"]["seq"] == seq
        ):
            assert message["type"] == "state", message  # no error: it landed
    store = opener()
    stored = store.load(game.id)
    assert stored is not None
    assert stored.log[-2:] == (
        LogEntry("continue", f"{other} {round_now}"),
        LogEntry("move", str(opening)),
    )
    store.close()


def test_a_worker_that_missed_an_announcement_reads_only_the_logs_tail(postgres: Opener) -> None:
    """Two entries announced as one, without its entry: the tail is read, not the whole match."""
    store = postgres()
    game = Game.create(store, new_setup(2, ["human", "human"], seed=0))
    store.close()

    async def scenario() -> None:
        follower = Server(postgres(), bot_delay=0, limits=SocketLimits.lifted())
        writer = postgres()
        try:
            room = await follower.rooms.load(game.id)
            assert room is not None
            moved = Game(await asyncio.to_thread(_stored, writer, game.id), writer)
            for _ in range(2):
                state = moved.state
                moved.commit(moved.plan_move(state.turn, str(legal_moves(state)[0]), moved.seq))
            library = follower.store.library  # type: ignore[attr-defined]
            loads: list[str] = []
            whole = library.load

            def load(match_id: str) -> Any:
                loads.append(match_id)
                return whole(match_id)

            library.load = load
            follower.listener._announced(game.id, 2, None)
            deadline = time.monotonic() + 10
            while room.game.seq < 2:
                assert time.monotonic() < deadline, "the tail was never read"
                await asyncio.sleep(0.01)
            assert loads == []
            assert room.game.state == moved.state
        finally:
            writer.close()
            await follower.close()

    asyncio.run(scenario())


def _stored(store: MatchBook, match_id: str) -> Any:
    stored = store.load(match_id)
    assert stored is not None
    return stored


def test_a_seat_going_on_refused_twice_through_a_server_behind_still_goes_on(
    opener: Opener,
) -> None:
    """A seat's ``continue``, refused as stale twice in a row, is planned again until it lands.

    Issue 41, as seen with two workers: one seat goes on through one worker
    and, at once, opens the round; the other seat goes on through another
    worker, whose copy lacks the first ``continue`` (refused, read again,
    planned again), then the opening (refused again). Going on depends on
    neither, so it lands, and its seat is told no "the table has changed".
    """
    store = opener()
    game = Game.create(store, new_setup(2, ["human", "human"], seed=5))
    while game.state.round == 1:
        state = game.state
        forced = game.forced()
        if forced is not None:
            game.commit(game.plan_play(forced))
            continue
        move = next(m for m in view_for(state, state.turn).legal_moves if isinstance(m, Place))
        game.commit(game.plan_move(state.turn, str(move), game.seq))
    opener_seat = game.state.turn
    other = 1 - opener_seat
    seq, round_now = game.seq, game.state.round
    opening = next(m for m in view_for(game.state, opener_seat).legal_moves if isinstance(m, Place))
    store.close()
    token = game.setup.seats[other].token
    writer = opener()
    ahead = Game(_stored(writer, game.id), writer)
    # What lands through the other worker just before each of this server's writes.
    going_on = ahead.plan_go_on(opener_seat)
    assert going_on is not None
    meanwhile = [
        lambda: ahead.commit(going_on),
        lambda: ahead.commit(ahead.plan_move(opener_seat, str(opening), seq)),
    ]
    app = _app(opener())
    server: Server = app.state.server
    commit = server.flow.commit

    async def racing(room: Any, change: Any) -> None:
        if meanwhile:
            meanwhile.pop(0)()
        await commit(room, change)

    server.flow.commit = racing  # type: ignore[method-assign]
    try:
        with TestClient(app) as client, client.websocket_connect(f"/ws/{game.id}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": token}))
            assert _state(ws)["view"]["seq"] == seq
            ws.send_text(json.dumps({"type": "continue"}))
            # Refused after the continue is carried out: any error of it comes first.
            ws.send_text(json.dumps({"type": "speed", "speed": "marker"}))
            states = []
            while (message := ws.receive_json())["type"] != "error" or (
                "speed" not in message["message"]
            ):
                assert message["type"] == "state", message  # no error: it went on
                states.append(message)
            assert states[-1]["view"]["seq"] == seq + 1
            assert states[-1]["waiting_for"] == []
    finally:
        writer.close()
    assert meanwhile == []  # refused twice
    store = opener()
    stored = store.load(game.id)
    assert stored is not None
    assert stored.log[-3:] == (
        LogEntry("continue", f"{opener_seat} {round_now}"),
        LogEntry("move", str(opening)),
        LogEntry("continue", f"{other} {round_now}"),
    )
    store.close()


def test_a_refused_message_is_planned_again_only_where_what_it_depends_on_is_unchanged(
    tmp_path: Path,
) -> None:
    """``Flow._replan``: a move or an undo on its table, a going on in its round; else Stale."""
    store = Store(tmp_path / "matches.sqlite3")
    game = Game.create(store, new_setup(2, ["human", "greedy"], seed=3))
    while not game.session.is_human(game.state.turn) or game.forced() is not None:
        game.commit(game.plan_play(game.forced() or game.bot_move()))
    seat, table = game.state.turn, game.state
    move = next(m for m in view_for(table, seat).legal_moves if isinstance(m, Place))
    planned = game.plan_move(seat, str(move), game.seq)
    again = Flow._replan(game, planned, seat, "move", table)
    assert again is not None
    assert again.move == move
    assert again.logged == game.logged
    with pytest.raises(Stale, match="the table has changed since"):
        Flow._replan(game, planned, seat, "move", game.states[-2])  # another table
    game.commit(planned)  # a placement of the person's: it may be undone
    undo = game.plan_undo(seat)
    again = Flow._replan(game, undo, seat, "undo", game.state)
    assert again is not None
    assert again.undo_to == undo.undo_to
    with pytest.raises(Stale):
        Flow._replan(game, undo, seat, "undo", table)
    # (The person's move marked them gone on in this round: the other seat goes on.)
    other, round_now = 1 - seat, game.state.round
    going_on = game.plan_go_on(other)
    assert going_on is not None
    again = Flow._replan(game, going_on, other, "continue", table)  # (on any table)
    assert again is not None
    assert again.continued == (other, round_now)
    past = Change(LogEntry("continue", f"{other} 0"), game, continued=(other, round_now - 1))
    with pytest.raises(Stale):
        Flow._replan(game, past, other, "continue", game.state)  # its round is over
    store.close()


def test_the_listener_hands_announcements_that_come_together_to_the_loop_at_once(
    tmp_path: Path,
) -> None:
    """After the first announcement of a batch, the thread waits GATHER for more: one wake."""
    from american_sniff.store import Appended
    from american_sniff.web import listener

    server = Server(Store(tmp_path / "m.sqlite3"), bot_delay=0, limits=SocketLimits.lifted())
    first, second = Appended("one", 1), Appended("one", 2)
    asked: list[float] = []

    class Heard:  # the listening connection: one at first, the other right after
        def wait(self, timeout: float) -> tuple[Appended, ...]:
            asked.append(timeout)
            if len(asked) == 1:
                return (first,)
            if len(asked) == 2:
                return (second,)
            server.listener._stop_listening.set()
            return ()

        def close(self) -> None:
            pass

    class Loop:
        def __init__(self) -> None:
            self.calls: list[tuple[Any, ...]] = []

        def call_soon_threadsafe(self, *call: Any) -> None:
            self.calls.append(call)

    loop = Loop()
    waited: list[float] = []
    server.listener._stop_listening.wait = waited.append  # type: ignore[method-assign,assignment]
    server.listener._listen(Heard(), cast(Any, loop))
    assert waited == [listener.GATHER]  # it let the second come
    assert asked[1] == 0  # and then took what had come, without waiting again
    assert loop.calls == [(server.listener._announced_all, (first, second))]
    asyncio.run(server.close())


def test_a_socket_being_admitted_keeps_its_match_held(tmp_path: Path) -> None:
    """While a seat's limit is asked (the database, with several workers), the match stays held.

    Let go then, at an announced append, it would leave the socket on a copy nothing here follows.
    """
    server = Server(Store(tmp_path / "m.sqlite3"), bot_delay=0, limits=SocketLimits.lifted())
    game = Game.create(server.store, new_setup(2, ["human", "human"], seed=0))
    asked: list[bool] = []

    async def scenario() -> None:
        room = await server.rooms.load(game.id)
        assert room is not None
        sockets = server.sockets

        async def seat_refusal(seat: str) -> str | None:
            asked.append(server.rooms.let_go(room))  # as an announcement would, meanwhile
            return None

        sockets._seat_refusal = seat_refusal  # type: ignore[method-assign]
        assert await sockets._admitted(cast(Any, None), f"0 {game.id}", room)
        assert server.rooms.get(game.id) is room
        assert room.arriving == 0
        await server.close()

    asyncio.run(scenario())
    assert asked == [False]
