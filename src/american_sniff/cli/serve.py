"""``american-sniff serve``: the browser game, served on this machine.

It needs the ``web`` extra (``pip install 'american-sniff[web]'``: Starlette
and uvicorn). Matches are kept in a SQLite file and survive a restart.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .options import Command

__all__ = ["COMMAND", "NAME", "server_url"]

NAME = "serve"

#: The database file used when ``--db`` is not given.
DEFAULT_DB = "american-sniff.sqlite3"


def server_url(host: str, port: int, key: str) -> str:
    """The start page's address, with the operator's key after ``#`` (it lists the stored matches).

    >>> server_url("127.0.0.1", 8000, "k")
    'http://127.0.0.1:8000/#key=k'
    >>> server_url("::1", 8000, "k")
    'http://[::1]:8000/#key=k'
    """
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/#key={key}"


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is from 0 to 65535, got {value}")
    return value


def _delay(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= value <= 10:
        raise argparse.ArgumentTypeError(f"the delay is from 0 to 10 seconds, got {value}")
    return value


def _run(args: argparse.Namespace) -> int:
    try:
        import uvicorn  # noqa: PLC0415 - the extra is needed by this command only

        from ..web.app import create_app  # noqa: PLC0415
        from ..web.serving import listen, server_config, tune_collector  # noqa: PLC0415
        from ..web.store import Store  # noqa: PLC0415
    except ImportError as error:
        print(
            f"american-sniff serve: the browser game needs the web extra ({error.name} is "
            "missing): pip install 'american-sniff[web]'",
            file=sys.stderr,
        )
        return 2
    path = Path(args.db)
    try:
        store = Store(path)
    except Exception as error:  # sqlite3 errors, a directory, no permission
        print(f"american-sniff serve: cannot open the database {path}: {error}", file=sys.stderr)
        return 1
    # Bind the socket here, so that the address printed is the one served
    # (with --port 0, the port the system chose) and a port in use is one line.
    try:
        listener = listen(args.host, args.port)
    except OSError as error:
        store.close()
        print(
            f"american-sniff serve: cannot listen on {args.host} port {args.port}: "
            f"{error.strerror or error}",
            file=sys.stderr,
        )
        return 1
    port = listener.getsockname()[1]
    app = create_app(store, bot_delay=args.bot_delay)
    key = app.state.server.key
    print(f"American Sniff is served at {server_url(args.host, port, key)}", flush=True)
    print(f"Matches are kept in {path.resolve()}. Ctrl-C stops the server.", flush=True)
    server = uvicorn.Server(server_config(app))
    tune_collector()
    server.run(sockets=[listener])
    return 0


def _options(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``serve`` to its parser."""
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1: this machine only; "
        "0.0.0.0 lets other machines in)",
    )
    parser.add_argument(
        "--port", type=_port, default=8000, help="the port (default 8000; 0 picks a free one)"
    )
    parser.add_argument(
        "--db", default=DEFAULT_DB, help=f"the SQLite file of the matches (default {DEFAULT_DB})"
    )
    parser.add_argument(
        "--bot-delay",
        type=_delay,
        default=0.7,
        help="seconds each bot waits before it acts, so that the play can be followed "
        "(default 0.7)",
    )


#: The command's help, options and run function.
COMMAND = Command(
    NAME,
    summary="play in the browser: serve the game on this machine",
    description=(
        "Serve the browser game (needs the web extra: pip install "
        "'american-sniff[web]'). Open the address it prints; set up a match "
        "of 2, 3 or 4 players, each seat a person or a bot; play by clicking a "
        "tile and then one of its points on the table. Each person gets their "
        "own link, and a spectator link is given too. Matches are kept in a "
        "SQLite file, survive a restart, and download as records, which open "
        "in the replay viewer."
    ),
    examples=(
        "american-sniff serve",
        "american-sniff serve --port 8080 --db games.sqlite3",
    ),
    options=_options,
    run=_run,
)
