"""How fast ``american-sniff serve`` hosts: scripted WebSocket clients, a database on disk.

The server runs in a child process exactly as ``american-sniff serve`` runs
it (:func:`american_sniff.web.serving.server_config`, a SQLite file in a
temporary directory), except that bots do not wait and the rate limit on new
matches is lifted (the benchmark creates hundreds). The clients run in this
process, one asyncio task per seat, each a ``websockets`` client that plays
its seat's first legal placement as soon as its state comes, and goes on
after each settlement. The clients do not draw, so their hello says
``"pictures": false`` and the server draws no table for them; with
``--pictures`` they ask for the pictures as the browser's page does. Every
match is between two people (two sockets), so every action is a person's
move or a draw the server makes for them.

Four measurements:

* ``load``: ``--matches`` matches at once (default 200) for ``--seconds``:
  the actions per second the server made, and each move's round trip (from
  the seat's send to its receipt of the state after it), p50 and p99;
* ``base``: ``--few`` matches (default 20), the same measurements;
* ``spectators``: the same ``--few`` matches while one more match is played
  with ``--spectators`` spectators (default 200) watching it: how much the
  others slow down (the round trip's ratio to ``base``);
* ``stuck``: the same ``--few`` matches while one more match has a
  spectator that never reads: the others' round trip, and whether the server
  dropped the stuck socket (close code 4408).

Each also gives the server process's CPU time per action (from
``/proc``), which a machine shared with other work slows far less than the
wall-clock numbers.

Usage (from the repository root)::

    PYTHONPATH=src python benchmarks/serve.py              # about 90 s
    PYTHONPATH=src python benchmarks/serve.py --quick      # a few seconds, a smoke test
    PYTHONPATH=src python benchmarks/serve.py --json serve.json
    PYTHONPATH=src python benchmarks/serve.py --pictures     # clients that draw, like browsers
    PYTHONPATH=src python benchmarks/serve.py --load-only --profile serve.prof  # cProfile, CPU

The results are in ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import inspect
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed


def _serve(db: str, profile: str | None = None) -> None:
    """The child: serve ``db`` on a free loopback port, and print the port.

    With ``profile``, the server runs under :mod:`cProfile`, whose statistics
    are written to that file when it stops.
    """
    import uvicorn  # noqa: PLC0415 - the child's own imports

    from american_sniff.web.app import create_app  # noqa: PLC0415
    from american_sniff.web.limits import RateLimit  # noqa: PLC0415
    from american_sniff.web.serving import listen, server_config  # noqa: PLC0415
    from american_sniff.web.store import Store  # noqa: PLC0415

    app = create_app(Store(db), bot_delay=0, creations=RateLimit(burst=10**9, every=1e-9))
    listener = listen("127.0.0.1", 0)
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    server = uvicorn.Server(server_config(app, max_connections=10_000))
    if profile is None:
        server.run(sockets=[listener])
        return
    import cProfile  # noqa: PLC0415 - only when asked
    import signal  # noqa: PLC0415

    def stop(number: int, frame: object) -> None:
        raise SystemExit(0)

    # uvicorn stops on SIGTERM, then raises it again: here that ends the
    # profiled call, so that its statistics are written.
    signal.signal(signal.SIGTERM, stop)
    profiler = cProfile.Profile(time.thread_time)  # CPU time: the machine may be busy
    try:
        profiler.runcall(server.run, sockets=[listener])
    finally:
        profiler.dump_stats(profile)


def _messages(actions: int, pictures: bool) -> dict[str, Any]:
    """The server's work per action without the network: the change and every message.

    20 two-person matches are played in this process through the server's
    own code (:meth:`Game.plan_move` or :meth:`Game.plan_play`, then
    :meth:`Game.take`) and each action's message is made for both seats
    (:meth:`Server.text`), with or without the pictures; no socket and no
    database write. The CPU time per action (``time.process_time``) is what
    a busy machine changes least.
    """
    from american_sniff.engine import legal_moves  # noqa: PLC0415 - the child's imports
    from american_sniff.web.app import Server  # noqa: PLC0415
    from american_sniff.web.game import Game, new_setup  # noqa: PLC0415
    from american_sniff.web.store import Store  # noqa: PLC0415

    if not pictures and "pictures" not in inspect.signature(Server.text).parameters:
        return {"actions": 0, "note": "this server always sends the pictures"}
    server = Server(Store(":memory:"), bot_delay=0)
    games = [Game.create(server.store, new_setup(2, ["human", "human"])) for _ in range(20)]
    done = 0
    started = time.process_time()
    while done < actions:
        for game in games:
            state = game.state
            if state.winner is not None:
                game = Game.create(server.store, new_setup(2, ["human", "human"]))  # noqa: PLW2901
                games.append(game)
                continue
            waiting = game.waiting_for()
            for seat in waiting:
                change = game.plan_go_on(seat)
                assert change is not None
                game.take(change)
            if waiting:
                continue
            forced = game.forced()
            if forced is not None:
                game.take(game.plan_play(forced))
            else:
                move = str(legal_moves(state)[0])
                game.take(game.plan_move(state.turn, move, game.seq))
            done += 1
            for seat in (0, 1):
                if pictures:
                    server.text(game, seat)
                else:
                    server.text(game, seat, pictures=False)
    cpu = time.process_time() - started
    return {"actions": done, "cpu_ms_per_action": round(cpu / done * 1000, 3)}


class Stats:
    """What the clients of one measurement saw."""

    def __init__(self) -> None:
        self.actions = 0
        self.trips: list[float] = []
        self.errors: list[str] = []

    def report(self, seconds: float) -> dict[str, Any]:
        """The measurement's numbers."""
        trips = sorted(self.trips)

        def quantile(q: float) -> float | None:
            return (
                None
                if not trips
                else round(trips[min(len(trips) - 1, int(q * len(trips)))] * 1000, 1)
            )

        return {
            "actions_per_s": round(self.actions / seconds, 1),
            "moves": len(trips),
            "trip_p50_ms": quantile(0.50),
            "trip_p99_ms": quantile(0.99),
            "trip_mean_ms": None if not trips else round(statistics.fmean(trips) * 1000, 1),
            "errors": len(self.errors),
        }


def _cpu(pid: int) -> float:
    """The CPU seconds (user and system) the process ``pid`` has used (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: The server's process id (set by :func:`main`).
_SERVER = 0

#: Whether the clients ask for the pictures, as the browser's page does (``--pictures``).
_PICTURES = False


def _post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        answer: dict[str, Any] = json.loads(response.read())
    return answer


async def _new_match(base: str) -> dict[str, Any]:
    return await asyncio.to_thread(
        _post, base, "api/matches", {"players": 2, "seats": ["human"] * 2}
    )


async def _seat(
    ws_base: str, made: dict[str, Any], seat: int, stats: Stats | None, stop: asyncio.Event
) -> None:
    """Play one seat of a match until it ends or ``stop`` is set; count and time its moves."""
    token = made["seats"][seat]["url"].split("#", 1)[1]
    async with connect(f"{ws_base}ws/{made['id']}", max_size=None, open_timeout=60) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token, "pictures": _PICTURES}))
        sent_at = 0.0
        sent_seq = -1
        seen = 0
        went_on = 0
        while not stop.is_set():
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), 1))
            except TimeoutError:
                continue
            if message["type"] == "error":
                if stats is not None:
                    stats.errors.append(message["message"])
                continue
            if message["type"] != "state":
                continue
            view = message["view"]
            if stats is not None:
                if seat == 0 and view["seq"] > seen:
                    stats.actions += view["seq"] - seen
                if sent_seq >= 0 and view["seq"] > sent_seq:
                    stats.trips.append(time.perf_counter() - sent_at)
                    sent_seq = -1
            seen = max(seen, view["seq"])
            if view["winner"] is not None:
                return
            if seat in message["waiting_for"]:
                if went_on != view["round"]:
                    went_on = view["round"]
                    await ws.send(json.dumps({"type": "continue"}))
                continue
            if view["turn"] != seat or sent_seq == view["seq"]:
                continue
            placements = [m for m in view["legal_moves"] or [] if " " in m]
            if placements:
                sent_at, sent_seq = time.perf_counter(), view["seq"]
                await ws.send(json.dumps({"type": "move", "move": placements[0], "seq": sent_seq}))


async def _matches(base: str, ws_base: str, stats: Stats | None, stop: asyncio.Event) -> None:
    """One table: a match after another until ``stop``."""
    while not stop.is_set():
        made = await _new_match(base)
        await asyncio.gather(*(_seat(ws_base, made, n, stats, stop) for n in (0, 1)))


async def _watch(
    ws_base: str, made: dict[str, Any], stop: asyncio.Event, ready: asyncio.Event
) -> None:
    """A spectator that reads everything until ``stop``."""
    async with connect(f"{ws_base}ws/{made['id']}", max_size=None, open_timeout=120) as ws:
        token = made["spectator"].split("#", 1)[1]
        await ws.send(json.dumps({"type": "hello", "token": token, "pictures": _PICTURES}))
        await ws.recv()
        ready.set()
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ws.recv(), 1)


async def _measure(  # noqa: PLR0913, PLR0917 - one measurement's six settings
    base: str, ws_base: str, tables: int, seconds: float, extra: str | None, spectators: int
) -> dict[str, Any]:
    """``tables`` matches for ``seconds``, with an extra match watched (``extra``) or not."""
    stats = Stats()
    stop = asyncio.Event()
    side: list[asyncio.Task[Any]] = []
    stuck: ClientConnection | None = None
    if extra is not None:
        made = await _new_match(base)
        side += [asyncio.create_task(_seat(ws_base, made, n, None, stop)) for n in (0, 1)]
        if extra == "spectators":
            readies = [asyncio.Event() for _ in range(spectators)]
            side += [asyncio.create_task(_watch(ws_base, made, stop, r)) for r in readies]
            await asyncio.gather(*(r.wait() for r in readies))
        else:  # a spectator that never reads: its client stops reading after 2 frames
            # A small receive buffer, so that the network's buffers fill soon.
            raw = socket.socket()
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            raw.connect(("127.0.0.1", int(base.rsplit(":", 1)[1].strip("/"))))
            stuck = await connect(f"{ws_base}ws/{made['id']}", max_size=None, max_queue=2, sock=raw)
            token = made["spectator"].split("#", 1)[1]
            await stuck.send(json.dumps({"type": "hello", "token": token}))
    tasks = [asyncio.create_task(_matches(base, ws_base, stats, stop)) for _ in range(tables)]
    await asyncio.sleep(min(2.0, seconds / 5))  # everyone connected and playing
    stats.actions, stats.trips = 0, []
    started, cpu = time.perf_counter(), _cpu(_SERVER)
    await asyncio.sleep(seconds)
    elapsed, cpu = time.perf_counter() - started, _cpu(_SERVER) - cpu
    report = stats.report(elapsed)
    # What a busy machine cannot hide: the server's own CPU time per action.
    report["server_cpu_share"] = round(cpu / elapsed, 2)
    if stats.actions:
        report["server_cpu_ms_per_action"] = round(cpu / stats.actions * 1000, 2)
        report["actions_per_server_cpu_s"] = round(stats.actions / cpu, 1) if cpu else None
    stop.set()
    await asyncio.gather(*tasks, *side, return_exceptions=True)
    if stuck is not None:
        # Read what the stuck socket was sent: a few messages, then the server's close.
        code, frames = None, 0
        try:
            while True:
                await asyncio.wait_for(stuck.recv(), 10)
                frames += 1
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else None
        except TimeoutError:
            code = None
        report["stuck_frames"] = frames
        report["stuck_closed_with"] = code
    return report


async def _run(base: str, args: argparse.Namespace) -> dict[str, Any]:
    ws_base = base.replace("http://", "ws://")
    results: dict[str, Any] = {}
    print(f"load: {args.matches} matches for {args.seconds} s", flush=True)
    results["load"] = await _measure(base, ws_base, args.matches, args.seconds, None, 0)
    print(f"  {results['load']}", flush=True)
    if args.load_only:
        return results
    for name, extra in (("base", None), ("spectators", "spectators"), ("stuck", "stuck")):
        print(f"{name}: {args.few} matches for {args.seconds} s", flush=True)
        results[name] = await _measure(
            base, ws_base, args.few, args.seconds, extra, args.spectators
        )
        print(f"  {results[name]}", flush=True)
    for name in ("spectators", "stuck"):
        for q in ("p50", "p99"):
            before, after = results["base"][f"trip_{q}_ms"], results[name][f"trip_{q}_ms"]
            if before and after:
                results[name][f"slowdown_{q}"] = round(after / before, 2)
    return results


def main() -> int:
    """Run the measurements and print them (and write ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--serve", metavar="DB", help=argparse.SUPPRESS)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--few", type=int, default=20)
    parser.add_argument("--spectators", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--quick", action="store_true", help="small and short: a smoke test")
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument(
        "--pictures",
        action="store_true",
        help="the clients ask for the pictures (the tables drawn as SVG), as a browser does",
    )
    parser.add_argument(
        "--messages",
        type=int,
        metavar="N",
        help="only the server's own work for N actions, in this process (no network)",
    )
    parser.add_argument(
        "--load-only", action="store_true", help="only the load measurement (200 matches)"
    )
    parser.add_argument(
        "--profile", metavar="PATH", help="run the server under cProfile, its statistics to PATH"
    )
    args = parser.parse_args()
    if args.serve:
        _serve(args.serve, args.profile)
        return 0
    if args.messages:
        results = {
            "without pictures": _messages(args.messages, pictures=False),
            "with pictures": _messages(args.messages, pictures=True),
        }
        print(json.dumps(results, indent=2))
        return 0
    if args.quick:
        args.matches, args.few, args.spectators, args.seconds = 10, 4, 10, 2.0
    with tempfile.TemporaryDirectory() as directory:
        db = str(Path(directory) / "serve.sqlite3")
        child = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--serve",
                db,
                *(["--profile", str(Path(args.profile).resolve())] if args.profile else []),
            ],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        try:
            assert child.stdout is not None
            line = child.stdout.readline()
            if not line.startswith("PORT "):
                print("the server did not start", file=sys.stderr)
                return 1
            base = f"http://127.0.0.1:{int(line.split()[1])}/"
            global _SERVER, _PICTURES
            _SERVER, _PICTURES = child.pid, args.pictures
            results = asyncio.run(_run(base, args))
        finally:
            child.terminate()
            child.wait(30)
    results["meta"] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "args": {k: v for k, v in vars(args).items() if k != "serve"},
    }
    print(json.dumps(results, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    broken = [name for name in ("load", "base") if name in results and not results[name]["moves"]]
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
