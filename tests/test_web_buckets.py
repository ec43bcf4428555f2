"""The rate limits that every worker on one PostgreSQL database counts together (web/buckets.py).

N workers that each counted alone would give a client N times each limit;
the buckets in the database give it once, whichever worker it reaches.
"""

from __future__ import annotations

import concurrent.futures
import json
import time
from collections.abc import Iterator

import pytest

from pg_testing import POSTGRES_URL, library, postgres_schema, psycopg_or_skip

pytest.importorskip("starlette")
pytest.importorskip("httpx2")  # TestClient's transport (Starlette 1 and later)

from starlette.testclient import TestClient

from american_sniff.web.app import create_app
from american_sniff.web.buckets import SharedBuckets
from american_sniff.web.game import Game, new_setup
from american_sniff.web.limits import Rate, SocketLimits
from web_sockets import refused

psycopg_or_skip()  # (not importorskip: under AMERICAN_SNIFF_REQUIRE_POSTGRES=1 it fails)


@pytest.fixture
def schema() -> Iterator[str]:
    """A new PostgreSQL schema on the test database."""
    yield from postgres_schema("sniff_buckets")


def _buckets(schema: str) -> SharedBuckets:
    return SharedBuckets(POSTGRES_URL, schema=schema)


def test_two_workers_take_from_one_bucket(schema: str) -> None:
    """Three at once in all: the fourth is refused whichever worker asks, with the wait."""
    one, two = _buckets(schema), _buckets(schema)
    try:
        rate = Rate(burst=3, every=60.0)
        first, second = one.limit("create", rate), two.limit("create", rate)
        taken = [first.take("10.0.0.1"), second.take("10.0.0.1"), first.take("10.0.0.1")]
        assert taken == [0.0, 0.0, 0.0]
        wait = second.take("10.0.0.1")
        assert 59 < wait <= 60  # each alone would have given three more
        assert first.take("10.0.0.1") > 0
        assert second.take("10.0.0.2") == 0  # another address has its own bucket
        assert two.limit("hints", rate).take("10.0.0.1") == 0  # another limit too
    finally:
        one.close()
        two.close()


def test_a_token_comes_back_after_its_time(schema: str) -> None:
    """Burst 1, one every 0.4 s: refused at once, given again once the time has passed."""
    buckets = _buckets(schema)
    try:
        limit = buckets.limit("reconnects", Rate(burst=1, every=0.4))
        assert limit.take("a") == 0
        wait = limit.take("a")
        assert 0 < wait <= 0.4
        time.sleep(0.45)
        assert limit.take("a") == 0
    finally:
        buckets.close()


def test_takes_at_once_from_many_connections_give_exactly_the_burst(schema: str) -> None:
    """60 takes from 4 connections at once, burst 20 and no refill: exactly 20 are given."""
    opened = [_buckets(schema) for _ in range(4)]
    try:
        limits = [b.limit("create", Rate(burst=20, every=3600.0)) for b in opened]
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            waits = list(pool.map(lambda n: limits[n % 4].take("x"), range(60)))
        assert waits.count(0.0) == 20
    finally:
        for buckets in opened:
            buckets.close()


def test_a_lost_connection_counts_alone_then_shares_again(schema: str) -> None:
    """The database ends the connection: no error, the process counts alone, then reconnects."""
    import psycopg

    buckets = _buckets(schema)
    other = _buckets(schema)
    try:
        limit = buckets.limit("create", Rate(burst=1, every=3600.0))
        assert limit.take("a") == 0
        assert other.limit("create", Rate(burst=1, every=3600.0)).take("a") > 0
        with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
            ended = admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE pid <> pg_backend_pid() AND query LIKE %s",
                ("INSERT INTO sniff_buckets%",),
            ).fetchall()
        assert ended
        assert limit.take("b") == 0  # the connection was found dead: this process alone
        time.sleep(1.1)
        assert limit.take("a") > 0  # connected again: the shared bucket of "a" is empty
    finally:
        buckets.close()
        other.close()


def test_the_full_buckets_are_forgotten(schema: str) -> None:
    """A bucket untouched for its whole refill time is deleted; one in use stays."""
    import psycopg

    buckets = _buckets(schema)
    try:
        buckets.limit("quick", Rate(burst=1, every=0.05)).take("a")
        buckets.limit("slow", Rate(burst=1, every=3600.0)).take("a")
        time.sleep(0.1)
        with buckets._lock:
            buckets._forget()
        with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
            rows = admin.execute(f'SELECT bucket FROM "{schema}".sniff_buckets').fetchall()
        assert rows == [("slow",)]
    finally:
        buckets.close()


def test_the_creation_limit_holds_across_two_workers(schema: str) -> None:
    """Two servers on one database: ten new matches from an address in all, not ten each."""
    apps = [create_app(library(schema), bot_delay=0, buckets=_buckets(schema)) for _ in range(2)]
    body = {"players": 2, "seats": ["human", "greedy"]}
    headers = {"host": "127.0.0.1:8000"}
    with TestClient(apps[0]) as one, TestClient(apps[1]) as two:
        codes = [
            (one if n % 2 else two).post("/api/matches", json=body, headers=headers).status_code
            for n in range(14)
        ]
        refused = two.post("/api/matches", json=body, headers=headers)
    assert codes == [201] * 10 + [429] * 4
    assert refused.status_code == 429
    assert "at most 10 at once" in refused.json()["error"]
    assert 0 < int(refused.headers["retry-after"]) <= 6


def test_new_sockets_of_an_address_are_limited_across_two_workers(schema: str) -> None:
    """Three new WebSockets at once per address in all: the fourth, on either, is refused."""
    store = library(schema)
    game = Game.create(store, new_setup(2, ["human", "human"], seed=0))
    store.close()
    limits = SocketLimits(reconnects=Rate(burst=3, every=60.0))
    apps = [
        create_app(library(schema), bot_delay=0, limits=limits, buckets=_buckets(schema))
        for _ in range(2)
    ]
    token = game.setup.spectator
    with TestClient(apps[0]) as one, TestClient(apps[1]) as two:
        for client in (one, two, one):
            with client.websocket_connect(f"/ws/{game.id}") as ws:
                ws.send_text(json.dumps({"type": "hello", "token": token}))
                assert ws.receive_json()["type"] == "state"
        with two.websocket_connect(f"/ws/{game.id}") as ws:
            refused(ws, "new connections from this address", 4429)
