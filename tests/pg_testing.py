"""The PostgreSQL the tests run against: where it is, and a fresh schema per test.

The database is ``AMERICAN_SNIFF_POSTGRES_URL`` (by default the machine's own,
``postgresql://127.0.0.1:5432/test``, trust authentication). Where none
answers, a test that needs it is skipped with the reason, or fails under
``AMERICAN_SNIFF_REQUIRE_POSTGRES=1`` (as ``.ci/run`` sets).
"""

from __future__ import annotations

import functools
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from american_sniff.store import PostgresStore
from american_sniff.web.shared import LibraryStore
from american_sniff.web.store import MatchBook, Store

POSTGRES_URL = os.environ.get("AMERICAN_SNIFF_POSTGRES_URL", "postgresql://127.0.0.1:5432/test")
REQUIRE_POSTGRES = os.environ.get("AMERICAN_SNIFF_REQUIRE_POSTGRES") == "1"


def psycopg_or_skip() -> None:
    """Skip the calling module without psycopg; fail it under ``AMERICAN_SNIFF_REQUIRE_POSTGRES=1``.

    Called at a module's top, where ``pytest.importorskip("psycopg")`` would
    skip even where PostgreSQL is required.
    """
    try:
        import psycopg  # noqa: F401
    except ImportError as error:
        if REQUIRE_POSTGRES:
            pytest.fail(f"psycopg is needed under AMERICAN_SNIFF_REQUIRE_POSTGRES=1 ({error})")
        pytest.skip(f"could not import psycopg: {error}", allow_module_level=True)


def postgres_schema(prefix: str) -> Iterator[str]:
    """A fresh schema on the test database, dropped afterwards; skip (or fail) without one."""
    try:
        import psycopg

        admin = psycopg.connect(POSTGRES_URL, autocommit=True, connect_timeout=3)
    except Exception as error:
        message = f"no PostgreSQL at {POSTGRES_URL} ({type(error).__name__}: {error})"
        if REQUIRE_POSTGRES:
            pytest.fail(f"{message}, and AMERICAN_SNIFF_REQUIRE_POSTGRES=1")
        pytest.skip(message)
    schema = f"{prefix}_{os.getpid()}_{secrets.token_hex(4)}"
    try:
        yield schema
    finally:
        admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        admin.close()


#: Opens a new connection to the test's database (each server opens its own).
Opener = Callable[[], MatchBook]


def library(schema: str) -> MatchBook:
    """The browser server's store on the library's PostgreSQL store, in ``schema``."""
    return LibraryStore(PostgresStore(POSTGRES_URL, schema=schema))


def openers(kind: str, tmp_path: Path) -> Iterator[Opener]:
    """How each server opens the shared database: a SQLite file, or a PostgreSQL schema."""
    if kind == "sqlite":
        yield lambda: Store(tmp_path / "matches.sqlite3")
        return
    for schema in postgres_schema("sniff_web"):
        yield functools.partial(library, schema)
