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


#: The exit status when the output cannot be written (a full disk, a closed stream).
EXIT_CANNOT_WRITE = 1
#: The exit status when a standard stream the command needs is closed.
EXIT_CLOSED = 2


def _fault(line: str) -> None:
    """Tell the fault on standard error, if it is open."""
    if sys.stderr is not None:
        try:
            print(line, file=sys.stderr)
            sys.stderr.flush()
        except OSError:  # pragma: no cover (nowhere left to tell)
            pass


def _silence_stdout() -> None:
    """Point standard output at devnull, so that the interpreter's last flush cannot fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # pragma: no cover (no file descriptor)
        sys.stdout = None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit code.

    A fault of the surroundings ends the command with one line on standard
    error and a non-zero status, never a traceback: a closed standard output
    (or input, for the commands that read it), an output that cannot be
    written (a full disk), or text that the output's encoding cannot show.
    """
    if sys.stdout is None:
        _fault("american-sniff: standard output is closed: nowhere to write")
        return EXIT_CLOSED
    top, subparsers = _parsers()
    args, extra = top.parse_known_args(argv)
    if extra:
        # An unknown option belongs to the command: show that command's usage.
        subparsers[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    name = f"american-sniff {args.command}"
    try:
        code: int = args.run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, as Unix tools do,
        # with the status of a process ended by SIGPIPE (128 + 13), so that a
        # script with `set -o pipefail` never mistakes it for success. Point
        # stdout at devnull so the interpreter's final flush cannot fail.
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        # Ctrl-C: stop without a traceback, with the status of SIGINT (128 + 2).
        print(file=sys.stderr)
        return EXIT_INTERRUPTED
    except UnicodeEncodeError as error:
        _silence_stdout()
        shown = error.object[error.start]
        _fault(
            f"{name}: the output's encoding ({error.encoding}) cannot show "
            f"{shown.encode('unicode_escape').decode('ascii')}; use --ascii where the "
            "command has it, or set PYTHONIOENCODING=utf-8"
        )
        return EXIT_CANNOT_WRITE
    except OSError as error:
        _silence_stdout()
        _fault(f"{name}: cannot write the output: {error.strerror or error}")
        return EXIT_CANNOT_WRITE
    return code
