"""``american-sniff serve``: its options and its clear errors (the server itself: test_web_*)."""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from american_sniff.cli import main


def test_serve_is_listed_with_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    """``serve --help`` names the loopback default, the port and the database."""
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "--help"])
    assert exit_info.value.code == 0
    shown = capsys.readouterr().out
    for words in ("--host", "default 127.0.0.1", "--port", "--db", "--bot-delay", "[web]"):
        assert words in shown


def test_serve_help_says_the_matches_are_kept_in_sqlite_or_postgresql(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The description of ``serve --help`` names both stores ``--db`` takes, not SQLite alone."""
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    description = " ".join(capsys.readouterr().out.split("\noptions:", 1)[0].split())
    for words in ("SQLite file", "the default", "postgresql://", "survive a restart"):
        assert words in description, description


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--port", "70000"], "from 0 to 65535"),
        (["--port", "x"], "not a port number"),
        (["--bot-delay", "99"], "from 0 to 10 seconds"),
        (["--bot-delay", "soon"], "not a number of seconds"),
        (["--workers", "0"], "workers are from 1 to 64"),
        (["--workers", "many"], "not a whole number"),
    ],
)
def test_bad_options_are_usage_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    """A wrong port or delay is a usage error that says what is wrong."""
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", *argv])
    assert exit_info.value.code == 2
    assert words in capsys.readouterr().err


def test_without_the_extra_serve_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With uvicorn missing, one line names the extra to install; no traceback."""
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    assert main(["serve"]) == 2
    error = capsys.readouterr().err
    assert "pip install 'american-sniff[web]'" in error
    assert "Traceback" not in error


def test_a_database_that_cannot_be_opened_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A directory given as the database file fails with its name, before serving."""
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    assert main(["serve", "--db", str(tmp_path)]) == 1
    error = capsys.readouterr().err
    assert f"cannot open the database {tmp_path}" in error


def test_a_port_in_use_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    """Serving on a port another program holds fails with the port named, before serving."""
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        assert main(["serve", "--port", str(port), "--db", ":memory:"]) == 1
    assert f"cannot listen on 127.0.0.1 port {port}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--public-url", "sniff.example.org"], "http:// or https:// and a host"),
        (["--public-url", "https://sniff.example.org/?a=1"], "no query, fragment or user"),
        (["--public-url", "https://sniff.example.org:99999/"], "not a URL"),
        (["--trusted-proxy", "proxy.local"], "an IP address or network"),
        (["--max-actions", "-1"], "0 (none) or more"),
        (["--max-rounds", "many"], "not a whole number"),
    ],
)
def test_bad_hosting_options_are_usage_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    """A wrong public URL, proxy or cap is a usage error that says what is wrong."""
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", *argv])
    assert exit_info.value.code == 2
    assert words in capsys.readouterr().err


def _served(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> Any:
    """The uvicorn configuration ``serve`` would run with ``argv`` (nothing is served)."""
    uvicorn = pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    from american_sniff.web import serving

    configs: list[Any] = []

    def run(self: Any, sockets: Any = None) -> None:
        configs.append(self.config)
        for listener in sockets or ():
            listener.close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    monkeypatch.setattr(serving, "tune_collector", lambda: None)
    assert main(["serve", "--port", "0", "--db", ":memory:", *argv]) == 0
    return configs[0]


def test_serve_passes_the_hosting_options_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The caps, the public URL and the proxies reach the server; the defaults are the app's."""
    pytest.importorskip("starlette")
    pytest.importorskip("httpx2")
    from starlette.testclient import TestClient

    from american_sniff.cli.serve import DEFAULT_MAX_ACTIONS, DEFAULT_MAX_ROUNDS
    from american_sniff.web.app import MAX_ACTIONS, MAX_ROUNDS

    assert (DEFAULT_MAX_ACTIONS, DEFAULT_MAX_ROUNDS) == (MAX_ACTIONS, MAX_ROUNDS)
    config = _served(monkeypatch, [])
    server = config.app.state.server
    assert (server.max_actions, server.max_rounds, server.public_url) == (5000, 200, None)
    assert not config.proxy_headers  # X-Forwarded-For is believed from nobody
    with TestClient(config.app) as client:  # on loopback: this machine's names only
        assert client.get("/", headers={"host": "localhost:8000"}).status_code == 200
        assert client.get("/", headers={"host": "127.0.0.1:8000"}).status_code == 200
        assert client.get("/", headers={"host": "rebound.example:8000"}).status_code == 421
    argv = ["--max-actions", "0", "--max-rounds", "30", "--trusted-proxy", "10.0.0.0/8"]
    argv += ["--trusted-proxy", "::1", "--public-url", "https://sniff.example.org"]
    config = _served(monkeypatch, argv)
    server = config.app.state.server
    assert (server.max_actions, server.max_rounds) == (None, 30)
    assert server.public_url == "https://sniff.example.org/"
    assert config.proxy_headers
    assert config.forwarded_allow_ips == ["10.0.0.0/8", "::1"]
    with TestClient(config.app) as client:
        assert client.get("/", headers={"host": "sniff.example.org"}).status_code == 200
        assert client.get("/", headers={"host": "localhost"}).status_code == 421
    capsys.readouterr()


@pytest.mark.parametrize(
    ("argv", "start"),
    [
        ([], "http://127.0.0.1:"),
        (["--host", "0.0.0.0"], "http://127.0.0.1:"),
        (["--public-url", "https://sniff.example.org"], "https://sniff.example.org/#key="),
        (
            ["--host", "0.0.0.0", "--public-url", "http://example.org/sniff/"],
            "http://example.org/sniff/#key=",
        ),
    ],
)
def test_the_address_printed_is_one_to_open(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    start: str,
) -> None:
    """The public URL if there is one, else never a wildcard host: an address a browser opens."""
    _served(monkeypatch, argv)
    first, *rest = capsys.readouterr().out.splitlines()
    assert first.startswith(f"American Sniff is served at {start}"), first
    assert "#key=" in first
    told = "other machines reach it by this machine's name or address" in "\n".join(rest)
    assert told == (argv[:2] == ["--host", "0.0.0.0"] and "--public-url" not in argv)


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("0.0.0.0", "http://127.0.0.1:8000/#key=k"),
        ("", "http://127.0.0.1:8000/#key=k"),
        ("::", "http://[::1]:8000/#key=k"),
        ("192.168.1.20", "http://192.168.1.20:8000/#key=k"),
        ("localhost", "http://localhost:8000/#key=k"),
    ],
)
def test_a_wildcard_host_is_printed_as_loopback(host: str, url: str) -> None:
    """Listening on every address, the server is opened here by the loopback one."""
    from american_sniff.cli.serve import server_url

    assert server_url(host, 8000, "k") == url


def test_several_workers_on_a_sqlite_file_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--workers 2`` needs PostgreSQL: on a SQLite file, one line says so, and nothing serves."""
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    database = tmp_path / "games.sqlite3"
    assert main(["serve", "--port", "0", "--workers", "2", "--db", str(database)]) == 2
    error = capsys.readouterr().err
    assert "--workers needs the matches in PostgreSQL (--db postgresql://...)" in error
    assert not database.exists()  # refused before anything was opened


def test_serve_holds_the_connections_it_is_told_and_opens_the_files_they_need(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--max-connections``: the server's limit, and enough open files for it (up to the hard)."""
    resource = pytest.importorskip("resource")
    assert _served(monkeypatch, []).limit_concurrency == 1000
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    lowered = min(hard, 256)
    resource.setrlimit(resource.RLIMIT_NOFILE, (lowered, hard))
    try:
        config = _served(monkeypatch, ["--max-connections", "3000"])
        assert config.limit_concurrency == 3000
        now = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        assert now == (3100 if hard == resource.RLIM_INFINITY else min(hard, 3100))
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    with pytest.raises(SystemExit):
        main(["serve", "--max-connections", "5"])
    assert "from 10 to 1000000" in capsys.readouterr().err
