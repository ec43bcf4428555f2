"""The HTTP endpoints of the browser game: new matches, their links and records, replays, pages.

:class:`Routes` answers ``POST /api/matches`` (a new match, at a bounded rate
per client address), ``GET /api/matches`` (the operator's list, a page at a
time, read in threads), ``GET /api/matches/{id}/record`` and ``/frames`` (a
match's record, to its links once it is over), ``POST /api/replay`` (a
record of at most :data:`MAX_REPLAY_BYTES` read in a thread, its frames a page
at a time, at most two drawn at once) and ``GET /api/kinds``; :func:`page`
serves the static pages. The module docstring of
:mod:`american_sniff.web.app` lists every route and its refusals.
"""

from __future__ import annotations

import asyncio
import math
import secrets
import sqlite3
import threading
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from ..errors import InvalidRecord
from ..records import MatchRecord
from .cache import Rooms, Unservable
from .connection import CROSS_SITE
from .flow import storage_failure
from .frames import MAX_REPLAY_ACTIONS, PAGE, Stopped, record_actions, record_frames
from .game import BOT_KINDS, HUMAN, Game, GameError, NotABrowserMatch, new_setup
from .limits import Limit, RateLimit, same_origin, taken
from .rooms import viewer_of
from .store import MatchBook

__all__ = ["LIST_PAGE", "MAX_REPLAY_BYTES", "STATIC", "Routes", "page", "refuse"]

#: The directory of the pages, scripts and styles.
STATIC = Path(str(resources.files("american_sniff.web") / "static"))

#: The largest record ``POST /api/replay`` reads, in bytes (1 MiB).
MAX_REPLAY_BYTES = 1 << 20

#: How many matches the operator's list gives at once (its ``limit``, at most).
LIST_PAGE = 100

#: How many replays are drawn at once; more wait their turn.
_REPLAYS_AT_ONCE = 2


class Routes:
    """The HTTP endpoints of one server.

    :param rooms: The matches held in memory (and so the store).
    :param key: The operator's key.
    :param creations: The rate limit on new matches per client address (a
        :class:`~american_sniff.web.limits.RateLimit`, or one the workers
        share, :class:`~american_sniff.web.buckets.SharedRateLimit`).
    :param public_url: The address the links start with (ending with
        ``/``), or None: each request's own address.
    """

    def __init__(
        self,
        rooms: Rooms,
        key: str,
        creations: Limit | None = None,
        public_url: str | None = None,
    ) -> None:
        #: The matches held in memory.
        self.rooms = rooms
        #: The operator's key.
        self.key = key
        #: The rate limit on new matches per client address.
        self.creations: Limit = RateLimit() if creations is None else creations
        #: The address the links start with, or None.
        self.public_url = public_url
        self._replays = asyncio.Semaphore(_REPLAYS_AT_ONCE)

    @property
    def store(self) -> MatchBook:
        """Where the matches are kept."""
        return self.rooms.store

    def links(self, game: Game, base: str) -> dict[str, Any]:
        """Each human seat's link and the spectator link of ``game``.

        The links start with :attr:`public_url` if the server has one, else with ``base``.
        """
        base = base if self.public_url is None else self.public_url
        seats = [
            {"seat": n, "kind": s.kind, "name": s.name, "url": f"{base}play/{game.id}#{s.token}"}
            for n, s in enumerate(game.setup.seats)
            if s.token is not None
        ]
        spectator = f"{base}play/{game.id}#{game.setup.spectator}"
        return {"id": game.id, "seats": seats, "spectator": spectator}

    def is_key(self, given: str | None) -> bool:
        """Whether ``given`` is the operator's key (compared in constant time)."""
        return given is not None and secrets.compare_digest(given.encode(), self.key.encode())

    async def create(self, request: Request) -> Response:
        """``POST /api/matches``: a new match from ``{"players", "seats", "seed"}``."""
        if not same_origin(request.headers):
            return refuse(CROSS_SITE, 403)
        address = request.client.host if request.client is not None else ""
        wait = await taken(self.creations, address)
        if wait:
            return JSONResponse(
                {
                    "error": f"too many new matches from this address: try again in "
                    f"{math.ceil(wait)} s (at most {self.creations.burst} at once, then one "
                    f"every {self.creations.every:g} s)"
                },
                status_code=429,
                headers={"Retry-After": str(math.ceil(wait))},
            )
        try:
            body = await request.json()
        except ValueError:
            return refuse("the request is not JSON")
        if not isinstance(body, dict):
            return refuse("the request is a JSON object")
        seats = body.get("seats")
        people = sum(1 for kind in seats if kind == HUMAN) if isinstance(seats, list) else 0
        if people > 1 and body.get("seed") is not None:
            return refuse(
                "a match between people is dealt from the server's own random seed: "
                "leave out the seed (a chosen seed would tell its chooser every hand)"
            )
        try:
            setup = new_setup(body.get("players"), seats, body.get("seed"), body.get("names"))
        except GameError as error:
            return refuse(str(error))
        try:
            game = await asyncio.to_thread(Game.create, self.store, setup)
        except sqlite3.Error as error:
            return refuse(storage_failure(error), 503)
        self.rooms.hold(game)
        return JSONResponse(self.links(game, str(request.base_url)), status_code=201)

    async def matches(self, request: Request) -> Response:
        """``GET /api/matches?key=KEY``: the stored matches with their links (the operator's).

        Newest first, a page at a time: at most ``limit`` matches (1 to
        :data:`LIST_PAGE`, the default) after the match whose id is ``after``
        (from the start if none); ``next`` is the ``after`` of the next page,
        or null after the last. The matches are read and replayed in a
        thread, and those not in memory are not kept there. A match whose log
        no longer replays, or that the browser game did not make (a host's
        own, without its setup), is listed with its id and ``broken``, the reason.
        """
        if not self.is_key(request.query_params.get("key")):
            return refuse("the list of matches needs the server's key", 403)
        try:
            limit = int(request.query_params.get("limit", str(LIST_PAGE)))
        except ValueError:
            return refuse("limit is a whole number")
        if not 1 <= limit <= LIST_PAGE:
            return refuse(f"limit is from 1 to {LIST_PAGE}")
        after = request.query_params.get("after")
        page = await asyncio.to_thread(self.store.page_of_ids, after, limit)
        if page is None:
            return refuse("after names no stored match", 400)
        ids, more = page
        base = str(request.base_url)
        listed = await asyncio.to_thread(self._listed, ids, base)
        return JSONResponse({"matches": listed, "next": ids[-1] if more and ids else None})

    def _listed(self, ids: list[str], base: str) -> list[dict[str, Any]]:
        """The operator's list entries of ``ids`` (run in a thread: it may replay matches)."""
        listed: list[dict[str, Any]] = []
        for match_id in ids:
            room = self.rooms.get(match_id)
            try:
                if room is None:
                    stored = self.store.load(match_id)
                    if stored is None:  # pragma: no cover - deleted meanwhile
                        continue
                    game = Game(stored, self.store)
                else:
                    game = room.game
            except NotABrowserMatch as error:  # a host's own match: its message says so
                listed.append({"id": match_id, "broken": str(error)})
                continue
            except Exception as error:  # a log that no longer replays: listed as broken
                listed.append({"id": match_id, "broken": f"{type(error).__name__}: {error}"})
                continue
            state = game.state
            ended = None if room is None else room.ended
            listed.append(
                {
                    **self.links(game, base),
                    "players": game.setup.players,
                    "kinds": [s.kind for s in game.setup.seats],
                    "round": state.round,
                    "scores": list(state.scores),
                    "winner": state.winner,
                    "ended": ended or self.store.meta_of(f"ended {match_id}"),
                }
            )
        return listed

    async def _record_of(self, request: Request) -> tuple[Game | None, MatchRecord | Response]:
        try:
            room = await self.rooms.load(request.path_params["match_id"])
        except Unservable as error:
            return None, refuse(str(error), 409)
        if room is None:
            return None, refuse("there is no such match", 404)
        game = room.game
        token = request.query_params.get("token", "")
        if not self.is_key(request.query_params.get("key")):
            if viewer_of(game, token) is None:
                return game, refuse("this link is not one of the match's", 403)
            if game.state.winner is None and room.ended is None:
                return game, refuse(
                    "a running match's record holds every hand: it is given when the match "
                    "is over, or to the server's operator",
                    403,
                )
        return game, game.record()

    async def record(self, request: Request) -> Response:
        """``GET /api/matches/{id}/record``: the record, as a file to save."""
        game, record = await self._record_of(request)
        if isinstance(record, Response):
            return record
        assert game is not None
        return Response(
            await asyncio.to_thread(record.to_json, pretty=True),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="sniff-{game.id}.json"'},
        )

    async def frames(self, request: Request) -> Response:
        """``GET /api/matches/{id}/frames``: the replay viewer's frames of a stored match."""
        _, record = await self._record_of(request)
        if isinstance(record, Response):
            return record
        return await self._frames_page(request, record)

    async def replay(self, request: Request) -> Response:
        """``POST /api/replay``: the replay viewer's frames of the record sent, a page at a time."""
        if not same_origin(request.headers):
            return refuse(CROSS_SITE, 403)
        if not await self._may_replay(request):
            return refuse(
                "replaying a record needs the server's key or a link of one of its matches", 403
            )
        body = await _body(request, MAX_REPLAY_BYTES)
        if body is None:
            return refuse(f"a record to replay is at most {MAX_REPLAY_BYTES >> 20} MiB", 413)
        try:
            # A record of 1 MiB takes tens of milliseconds to read: in a thread.
            record = await asyncio.to_thread(MatchRecord.from_json, body)
        except (InvalidRecord, ValueError) as error:
            return refuse(f"this record cannot be replayed: {error}")
        return await self._frames_page(request, record)

    async def _may_replay(self, request: Request) -> bool:
        """Whether ``request`` has the operator's key or a link (``match`` and ``token``)."""
        if self.is_key(request.query_params.get("key")):
            return True
        match_id = request.query_params.get("match", "")
        try:
            room = await self.rooms.load(match_id) if match_id else None
        except Unservable:
            return False
        token = request.query_params.get("token")
        return room is not None and viewer_of(room.game, token) is not None

    async def _frames_page(self, request: Request, record: MatchRecord) -> Response:
        """The page of ``record``'s frames that ``start`` and ``count`` ask for."""
        actions = await asyncio.to_thread(record_actions, record)
        if actions > MAX_REPLAY_ACTIONS:
            return refuse(
                f"this record has {actions} actions: the server replays at most "
                f"{MAX_REPLAY_ACTIONS}",
                413,
            )
        try:
            start = int(request.query_params.get("start", "0"))
            count = int(request.query_params.get("count", str(PAGE)))
        except ValueError:
            return refuse("start and count are whole numbers")
        if start < 0 or not 1 <= count <= PAGE:
            return refuse(f"start is 0 or more, and count from 1 to {PAGE}")
        stop = threading.Event()
        async with self._replays:
            try:
                frames = await _unless_gone(request, stop, record_frames, record, start, count)
            except InvalidRecord as error:
                return refuse(f"this record cannot be replayed: {error}")
            except Stopped:
                return refuse("the client went away", 499)
        return JSONResponse(frames)

    async def kinds(self, request: Request) -> Response:
        """``GET /api/kinds``: who may sit in a seat."""
        return JSONResponse({"kinds": [HUMAN, *BOT_KINDS]})


def refuse(message: str, status: int = 400) -> Response:
    """A refusal: ``{"error": message}`` with the HTTP status ``status``."""
    return JSONResponse({"error": message}, status_code=status)


def page(name: str) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint that serves the static page ``name`` (an HTML file of :data:`STATIC`)."""

    async def serve(request: Request) -> Response:
        return FileResponse(STATIC / name, media_type="text/html")

    return serve


async def _body(request: Request, limit: int) -> bytes | None:
    """The request's body, or None as soon as it is seen to be over ``limit`` bytes."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        return None
    parts = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        parts.append(chunk)
    return b"".join(parts)


async def _unless_gone(
    request: Request, stop: threading.Event, work: Callable[..., dict[str, Any]], *args: Any
) -> dict[str, Any]:
    """``work(*args, stop=stop)`` in a thread; ``stop`` is set if the client goes away.

    :raises Stopped: if it did, and the work stopped.
    """
    job = asyncio.ensure_future(run_in_threadpool(work, *args, stop=stop))
    watch = asyncio.ensure_future(_gone(request))
    try:
        await asyncio.wait({job, watch}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watch.cancel()
    if not job.done():
        stop.set()
    answer: dict[str, Any] = await job
    return answer


async def _gone(request: Request) -> None:
    """Return when the client of ``request`` (whose body is read) disconnects."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
