"""``american-sniff engine``: the library served over the engine protocol."""

from __future__ import annotations

import argparse
import sys

from ..conformance.protocol import PROTOCOL_VERSION, serve
from .options import Command

__all__ = ["COMMAND", "NAME"]

NAME = "engine"


def _run(args: argparse.Namespace) -> int:
    del args  # the command has no options
    if sys.stdin is None:
        print(
            "american-sniff engine: standard input is closed: no requests to read", file=sys.stderr
        )
        return 2
    return serve(sys.stdin.buffer, sys.stdout.buffer)


#: The command's help, options and run function.
COMMAND = Command(
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
    run=_run,
)
