"""``american-sniff engine``: the library served over the engine protocol."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..conformance.protocol import PROTOCOL_VERSION, serve
from .options import add_command

__all__ = ["NAME", "register"]

NAME = "engine"


def register(commands: Any) -> argparse.ArgumentParser:
    """Add the ``engine`` command to ``commands`` (an argparse subparsers object)."""
    parser = add_command(
        commands,
        NAME,
        summary="serve the library over the engine protocol (JSON lines on stdin/stdout)",
        description=(
            f"Answer engine-protocol requests (version {PROTOCOL_VERSION}) with this "
            "library: one JSON request per line on standard input, one JSON answer "
            "per line on standard output, until 'quit' or the end of the input. A "
            "malformed line gets an error answer naming the problem. See "
            "docs/protocol.md for the messages."
        ),
        examples=(
            "american-sniff engine < requests.jsonl",
            'american-sniff conformance --engine "american-sniff engine"',
        ),
    )
    parser.set_defaults(run=_run)
    return parser


def _run(args: argparse.Namespace) -> int:
    del args  # the command has no options
    return serve(sys.stdin.buffer, sys.stdout.buffer)
