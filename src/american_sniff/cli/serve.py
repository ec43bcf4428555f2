"""``american-sniff serve``: the browser game, served on this machine.

It needs the ``web`` extra (``pip install 'american-sniff[web]'``: Starlette
and uvicorn). Matches are kept in a SQLite file and survive a restart, or in
a PostgreSQL database (``--db postgresql://...``, the ``postgres`` extra),
which any number of ``serve`` processes share: ``--workers N`` starts N of
them on one listening socket (:mod:`american_sniff.web.workers`), and their
rate limits are counted together (:mod:`american_sniff.web.buckets`).
"""

from __future__ import annotations

import argparse
import ipaddress
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .options import Command, read_number

if TYPE_CHECKING:
    import socket

    from ..web.buckets import SharedBuckets
    from ..web.handoff import Handoff
    from ..web.store import MatchBook

__all__ = ["COMMAND", "NAME", "is_loopback", "is_wildcard", "server_url"]

NAME = "serve"

#: The database file used when ``--db`` is not given.
DEFAULT_DB = "american-sniff.sqlite3"

#: The defaults of ``--max-actions`` and ``--max-rounds`` (those of
#: :data:`american_sniff.web.app.MAX_ACTIONS` and ``MAX_ROUNDS``, which need
#: the web extra to import).
DEFAULT_MAX_ACTIONS = 5000
DEFAULT_MAX_ROUNDS = 200

#: The names of this machine that a server on a loopback address answers for
#: (an IP address, such as 127.0.0.1, is always let through).
LOOPBACK_NAMES = ("localhost",)


def server_url(host: str, port: int, key: str, public_url: str | None = None) -> str:
    """The start page's address to open, with the operator's key after ``#`` (it lists the matches).

    It is the public URL if the server has one; else ``host``'s, where a
    host that listens on every address (``0.0.0.0``, ``::``, empty) is opened
    on this machine by the loopback address.

    >>> server_url("127.0.0.1", 8000, "k")
    'http://127.0.0.1:8000/#key=k'
    >>> server_url("::1", 8000, "k")
    'http://[::1]:8000/#key=k'
    >>> server_url("0.0.0.0", 8000, "k"), server_url("::", 8000, "k")
    ('http://127.0.0.1:8000/#key=k', 'http://[::1]:8000/#key=k')
    >>> server_url("0.0.0.0", 8000, "k", "https://sniff.example.org")
    'https://sniff.example.org/#key=k'
    """
    if public_url is not None:
        return f"{public_url.rstrip('/')}/#key={key}"
    if is_wildcard(host):
        host = "::1" if ":" in host else "127.0.0.1"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/#key={key}"


def _port(text: str) -> int:
    value = read_number(text, int, "a port number")
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is from 0 to 65535, got {value}")
    return value


def _delay(text: str) -> float:
    value = read_number(text, float, "a number of seconds")
    if not 0 <= value <= 10:
        raise argparse.ArgumentTypeError(f"the delay is from 0 to 10 seconds, got {value}")
    return value


#: The most workers ``--workers`` may start.
MAX_WORKERS = 64


def _workers(text: str) -> int:
    value = read_number(text, int, "a whole number")
    if not 1 <= value <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"workers are from 1 to {MAX_WORKERS}, got {value}")
    return value


def _connections(text: str) -> int:
    value = read_number(text, int, "a whole number")
    if not 10 <= value <= 1_000_000:
        raise argparse.ArgumentTypeError(
            f"the connections at once are from 10 to 1000000, got {value}"
        )
    return value


def _cap(text: str) -> int | None:
    value = read_number(text, int, "a whole number")
    if value < 0:
        raise argparse.ArgumentTypeError(f"a cap is 0 (none) or more, got {value}")
    return value or None


def _public_url(text: str) -> str:
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - a bad port raises ValueError
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"not a URL: {text!r} ({error})") from None
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise argparse.ArgumentTypeError(
            f"the public URL is http:// or https:// and a host, such as "
            f"https://sniff.example.org/, got {text!r}"
        )
    if parts.query or parts.fragment or parts.username or parts.password:
        raise argparse.ArgumentTypeError(
            f"the public URL has no query, fragment or user, got {text!r}"
        )
    return text


def _proxy(text: str) -> str:
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"a trusted proxy is an IP address or network (such as 10.0.0.2 or 10.0.0.0/8), "
            f"got {text!r}"
        ) from None
    return text


def is_loopback(host: str) -> bool:
    """Whether listening on ``host`` serves this machine only.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("localhost")
    (True, True, True)
    >>> is_loopback("0.0.0.0"), is_loopback("192.168.1.5")
    (False, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    """Whether listening on ``host`` listens on every address of this machine.

    >>> is_wildcard("0.0.0.0"), is_wildcard("::"), is_wildcard("")
    (True, True, True)
    >>> is_wildcard("127.0.0.1"), is_wildcard("192.168.1.5"), is_wildcard("localhost")
    (False, False, False)
    """
    if not host:
        return True
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def is_postgres_url(db: str) -> bool:
    """Whether ``--db`` names a PostgreSQL database (a ``postgresql://`` or ``postgres://`` URL).

    >>> is_postgres_url("postgresql://127.0.0.1/sniff"), is_postgres_url("games.sqlite3")
    (True, False)
    """
    return db.startswith(("postgresql://", "postgres://"))


def _without_password(url: str) -> str:
    """``url`` with any password in it hidden, to be printed.

    >>> _without_password("postgresql://ann:secret@db/sniff")
    'postgresql://ann:***@db/sniff'
    """
    scheme, _, rest = url.partition("://")
    userinfo, at, place = rest.rpartition("@")
    if not at or ":" not in userinfo:
        return url
    return f"{scheme}://{userinfo.split(':', 1)[0]}:***@{place}"


#: PostgreSQL's error code (SQLSTATE) for a schema that does not exist: the
#: one making the tables raises when no schema of the search_path exists.
INVALID_SCHEMA_NAME = "3F000"


def _why_not_opened(error: Exception) -> str:
    r"""Why the database could not be opened, in one line (the first of ``error``'s).

    A database error may run on over several lines (psycopg's hint, or the
    statement and a caret under it), which the one-line message leaves out.

    >>> _why_not_opened(OSError("refused\n\tIs the server running?"))
    'refused'
    """
    if getattr(error, "sqlstate", None) == INVALID_SCHEMA_NAME:
        return (
            "the connection's search_path names no schema that exists: "
            "create the schema first (CREATE SCHEMA name)"
        )
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def _postgres(url: str) -> MatchBook:
    """The browser server's store on the PostgreSQL database at ``url``.

    :raises ImportError: if psycopg is not installed.
    """
    from ..store import PostgresStore  # noqa: PLC0415
    from ..web.shared import LibraryStore  # noqa: PLC0415

    return LibraryStore(PostgresStore(url))


def _shared_buckets(url: str) -> SharedBuckets:
    """The rate limits that every worker on the PostgreSQL database at ``url`` counts together."""
    from ..web.buckets import SharedBuckets  # noqa: PLC0415

    return SharedBuckets(url)


def _refusal_of_workers(args: argparse.Namespace) -> str | None:
    """Why ``--workers`` cannot be what it is here, or None."""
    if args.workers == 1:
        return None
    if not is_postgres_url(args.db):
        return (
            "--workers needs the matches in PostgreSQL (--db postgresql://...): "
            "processes on one SQLite file do not hear each other's moves"
        )
    from ..web.workers import can_fork  # noqa: PLC0415

    if not can_fork():
        return "--workers needs a system that can fork processes (not Windows)"
    return None


def _open_store(
    db: str, sqlite: Callable[[Path], MatchBook]
) -> tuple[MatchBook, SharedBuckets | None, str] | int:
    """The store of ``--db``, the shared rate limits (PostgreSQL), and where the matches are.

    An exit code instead if it cannot be opened (after one line saying why).
    """
    if not is_postgres_url(db):
        path = Path(db)
        try:
            return sqlite(path), None, str(path.resolve())
        except Exception as error:  # sqlite3 errors, a directory, no permission
            print(
                f"american-sniff serve: cannot open the database {path}: {_why_not_opened(error)}",
                file=sys.stderr,
            )
            return 1
    try:
        store = _postgres(db)
        try:
            buckets = _shared_buckets(db)
        except BaseException:
            store.close()
            raise
    except ImportError:
        print(
            "american-sniff serve: keeping the matches in PostgreSQL needs psycopg 3: "
            "pip install 'american-sniff[web,postgres]'",
            file=sys.stderr,
        )
        return 2
    except Exception as error:  # psycopg's errors: no server, refused, bad URL
        print(
            f"american-sniff serve: cannot open the database {_without_password(db)}: "
            f"{_why_not_opened(error)}",
            file=sys.stderr,
        )
        return 1
    return store, buckets, f"the PostgreSQL database {_without_password(db)}"


def _run(args: argparse.Namespace) -> int:
    try:
        import uvicorn  # noqa: PLC0415 - the extra is needed by this command only

        from ..web.app import create_app  # noqa: PLC0415
        from ..web.serving import (  # noqa: PLC0415
            listen,
            raise_file_limit,
            server_config,
            tune_collector,
        )
        from ..web.store import Store  # noqa: PLC0415
    except ImportError as error:
        print(
            f"american-sniff serve: the browser game needs the web extra ({error.name} is "
            "missing): pip install 'american-sniff[web]'",
            file=sys.stderr,
        )
        return 2
    refusal = _refusal_of_workers(args)
    if refusal is not None:
        print(f"american-sniff serve: {refusal}", file=sys.stderr)
        return 2
    opened = _open_store(args.db, Store)
    if isinstance(opened, int):
        return opened
    store, buckets, where = opened
    raise_file_limit(args.max_connections)
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
    # The Host names the server answers for: the public URL's, or on loopback
    # this machine's (a page of another site cannot rebind them); else any.
    hosts = None if args.public_url or not is_loopback(args.host) else LOOPBACK_NAMES

    def serve(
        store: MatchBook, buckets: SharedBuckets | None, handoff: Handoff | None = None
    ) -> None:
        app = create_app(
            store,
            bot_delay=args.bot_delay,
            max_actions=args.max_actions,
            max_rounds=args.max_rounds,
            public_url=args.public_url,
            hosts=hosts,
            buckets=buckets,
        )
        config = server_config(
            app, max_connections=args.max_connections, trusted_proxies=args.trusted_proxy
        )
        if handoff is None:
            server = uvicorn.Server(config)
        else:  # a game WebSocket goes to the worker that owns its match
            from ..web.handoff import HandingServer  # noqa: PLC0415

            server = HandingServer(config, handoff)
        tune_collector()
        server.run(sockets=[listener])

    from ..web.app import operator_key  # noqa: PLC0415

    key = operator_key(store)
    address = server_url(args.host, port, key, args.public_url)
    print(f"American Sniff is served at {address}", flush=True)
    if args.public_url is None and is_wildcard(args.host):
        print(
            f"It listens on every address: other machines reach it by this machine's "
            f"name or address, port {port}.",
            flush=True,
        )
    print(f"Matches are kept in {where}. Ctrl-C stops the server.", flush=True)
    if args.workers == 1:
        serve(store, buckets)
        return 0
    # Each worker opens its own connections: none may cross the fork.
    store.close()
    if buckets is not None:
        buckets.close()
    return _supervised(listener, args, serve)


def _supervised(
    listener: socket.socket,
    args: argparse.Namespace,
    serve: Callable[[MatchBook, SharedBuckets | None, Handoff | None], None],
) -> int:
    """Serve on ``args.workers`` forked workers, each on its own connections to the database.

    Each game WebSocket is handed to the worker that owns its match
    (:mod:`american_sniff.web.handoff`).
    """
    from ..web.handoff import Channels  # noqa: PLC0415
    from ..web.workers import supervise  # noqa: PLC0415

    channels = Channels(args.workers)

    def work(number: int) -> None:
        serve(_postgres(args.db), _shared_buckets(args.db), channels.worker(number))

    print(f"{args.workers} workers serve on one socket.", flush=True)
    try:
        return supervise(listener, args.workers, work, channels=channels)
    finally:
        listener.close()


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
        "--db",
        default=DEFAULT_DB,
        help=f"the SQLite file of the matches (default {DEFAULT_DB}), or a PostgreSQL URL "
        "(postgresql://user@host/dbname, with the postgres extra) that several servers share",
    )
    parser.add_argument(
        "--workers",
        type=_workers,
        default=1,
        metavar="N",
        help="serve on N worker processes that share the listening socket (default 1); "
        "more than one needs a PostgreSQL --db. A worker that dies is started again, "
        "and Ctrl-C (or SIGTERM) stops them all",
    )
    parser.add_argument(
        "--max-connections",
        type=_connections,
        default=1000,
        metavar="N",
        help="the most connections and requests each worker holds at once (default 1000); "
        "WebSockets may take nine tenths of them, so that HTTP always has room",
    )
    parser.add_argument(
        "--bot-delay",
        type=_delay,
        default=0.7,
        help="seconds each bot waits before it acts, so that the play can be followed "
        "(default 0.7)",
    )
    parser.add_argument(
        "--public-url",
        type=_public_url,
        metavar="URL",
        help="the address players reach the server at, such as https://sniff.example.org/ "
        "(behind a proxy): the links and the address printed start with it, and a "
        "request naming another host is refused (421). Without it, links use the address "
        "each request names, and a server on a loopback address answers only for "
        "localhost and IP addresses",
    )
    parser.add_argument(
        "--trusted-proxy",
        type=_proxy,
        action="append",
        default=[],
        metavar="ADDR",
        help="an IP address or network of a reverse proxy whose X-Forwarded-For and "
        "X-Forwarded-Proto are believed (repeat it for more); by default none is, and "
        "the limits count the address each connection comes from",
    )
    parser.add_argument(
        "--max-actions",
        type=_cap,
        default=DEFAULT_MAX_ACTIONS,
        metavar="N",
        help="a match with no winner after N actions is over, and says why (default "
        f"{DEFAULT_MAX_ACTIONS}; 0: no cap)",
    )
    parser.add_argument(
        "--max-rounds",
        type=_cap,
        default=DEFAULT_MAX_ROUNDS,
        metavar="N",
        help="a match with no winner after N rounds is over, and says why (default "
        f"{DEFAULT_MAX_ROUNDS}; 0: no cap)",
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
        "own link, and a spectator link is given too. The matches survive a "
        "restart, and download as records, which open in the replay viewer. "
        "--db says where they are kept: a SQLite file (the default, "
        f"{DEFAULT_DB}), or a PostgreSQL database named by a postgresql:// URL "
        "(needs the postgres extra), which several servers share."
    ),
    examples=(
        "american-sniff serve",
        "american-sniff serve --port 8080 --db games.sqlite3",
        "american-sniff serve --public-url https://sniff.example/ --trusted-proxy ::1",
        "american-sniff serve --db postgresql://127.0.0.1/sniff --port 8001",
        "american-sniff serve --db postgresql://127.0.0.1/sniff --workers 4",
    ),
    options=_options,
    run=_run,
)
