"""Two browser servers on one database: a move planned on a stale copy of a match is refused.

A match reached through two processes (a round-robin balancer, or a
reconnect that lands on another one) is held in memory by both. A move sent
to the one whose copy is behind must not be logged after the other's: it is
refused, that server reloads the match from the database, and its client is
told the fresh state.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from american_sniff.web.game import Game, new_setup
from american_sniff.web.store import LogEntry, StaleLog, Store

pytest.importorskip("starlette")
pytest.importorskip("httpx2")  # TestClient's transport (Starlette 1 and later)

from starlette.applications import Starlette
from starlette.testclient import TestClient, WebSocketTestSession

from american_sniff.web.app import Server, create_app
from american_sniff.web.limits import SocketLimits


def _app(db: Path) -> Starlette:
    return create_app(Store(db), bot_delay=0, limits=SocketLimits.lifted())


def _state(ws: WebSocketTestSession) -> dict[str, Any]:
    """The next state message (errors before it are skipped)."""
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == "state":
            return message


def test_a_move_through_a_stale_server_is_refused_and_the_match_still_loads(
    tmp_path: Path,
) -> None:
    """One seat's move for seq 0 through each of two servers: one lands, both end the same."""
    db = tmp_path / "matches.sqlite3"
    with Store(db) as store:
        game = Game.create(store, new_setup(2, ["human", "human"], seed=0))
    turn = game.state.turn
    token = game.setup.seats[turn].token
    assert token is not None
    with (
        TestClient(_app(db)) as one,
        TestClient(_app(db)) as two,
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
        # and why its move was refused.
        refused = second.receive_json()
        assert refused["type"] == "error"
        assert "changed" in refused["message"]
    with Store(db) as store:
        stored = store.load(game.id)
        assert stored is not None
        assert stored.log == (LogEntry("move", moves[0]),)  # exactly one move landed
        assert Game(stored, store).seq == 1  # and the match loads


def test_a_bot_driver_on_a_stale_copy_reads_the_match_again_and_moves_not_twice(
    tmp_path: Path,
) -> None:
    """Two servers drive one bot seat: the one behind is refused, reloads, and stops."""
    db = tmp_path / "matches.sqlite3"
    with Store(db) as store:
        made = Game.create(store, new_setup(2, ["greedy", "human"], seed=0))
    assert made.bot_to_move()

    async def scenario() -> None:
        ahead = Server(Store(db), bot_delay=0, limits=SocketLimits.lifted())
        behind = Server(Store(db), bot_delay=0, limits=SocketLimits.lifted())
        try:
            fast, slow = await ahead.load(made.id), await behind.load(made.id)
            assert fast is not None
            assert slow is not None
            async with ahead.lock(made.id):
                await ahead.commit(fast, fast.plan_play(fast.bot_move()))
            assert slow.seq == 0  # its copy is behind
            behind.drive(slow)
            await behind._drivers[made.id]
            assert slow.seq == 1
            assert slow.state == fast.state
            assert not slow.bot_to_move()
        finally:
            await ahead.close()
            await behind.close()

    asyncio.run(scenario())
    with Store(db) as store:
        stored = store.load(made.id)
        assert stored is not None
        assert len(stored.log) == 1  # the bot moved once
        assert Game(stored, store).seq == 1


def test_the_store_refuses_an_append_at_a_stale_length(tmp_path: Path) -> None:
    """An append checks the log's length as it writes; in a batch, only the stale one fails."""
    with Store(tmp_path / "m.sqlite3") as store:
        store.create("m", 0.0, {})
        assert store.append("m", LogEntry("continue", "0 1"), expected=0) == 0
        with pytest.raises(StaleLog, match="has 1 entries, not 0"):
            store.append("m", LogEntry("continue", "1 1"), expected=0)
        results = store.append_many(
            [("m", LogEntry("continue", "1 1")), ("m", LogEntry("continue", "0 2"))],
            expected=[1, 1],
        )
        assert results[0] == 1
        assert isinstance(results[1], StaleLog)
        stored = store.load("m")
        assert stored is not None
        assert [entry.value for entry in stored.log] == ["0 1", "1 1"]
