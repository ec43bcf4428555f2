"""The ``american-sniff`` command line: one module per command.

Each command module defines ``COMMAND``, a :class:`~american_sniff.cli.options.Command`:
its help (a summary, a description and examples), its options, and ``run``,
the function that carries the command out and returns the exit code.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .. import __version__
from . import check as _check
from . import conformance as _conformance
from . import demo as _demo
from . import engine as _engine
from . import play as _play
from . import render as _render
from . import serve as _serve
from . import simulate as _simulate
from .demo import demo

__all__ = ["demo", "main", "parser"]

#: The exit status when the output's reader goes away (as if ended by SIGPIPE).
EXIT_BROKEN_PIPE = 141
#: The exit status after Ctrl-C (as if ended by SIGINT).
EXIT_INTERRUPTED = 130

#: The command modules, in the order ``--help`` lists them.
_COMMANDS = (_demo, _play, _serve, _simulate, _check, _render, _engine, _conformance)


def parser() -> argparse.ArgumentParser:
    """The ``american-sniff`` argument parser, with every command (the docs read it)."""
    return _parsers()[0]


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser, and each command's own parser by name."""
    top = argparse.ArgumentParser(
        prog="american-sniff",
        description="The reference rules engine for the domino game American Sniff.",
        epilog="Run 'american-sniff COMMAND --help' for the options and examples of a command.",
    )
    top.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = top.add_subparsers(dest="command", metavar="COMMAND", required=True)
    return top, {module.COMMAND.name: module.COMMAND.register(commands) for module in _COMMANDS}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    top, subparsers = _parsers()
    args, extra = top.parse_known_args(argv)
    if extra:
        # An unknown option belongs to the command: show that command's usage.
        subparsers[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        code: int = args.run(args)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, as Unix tools do,
        # with the status of a process ended by SIGPIPE (128 + 13), so that a
        # script with `set -o pipefail` never mistakes it for success. Point
        # stdout at devnull so the interpreter's final flush cannot fail.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        # Ctrl-C: stop without a traceback, with the status of SIGINT (128 + 2).
        print(file=sys.stderr)
        return EXIT_INTERRUPTED
    return code
