"""``american-sniff check``: the referee on match record files."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from typing import Any

from ..errors import InvalidRecord
from ..records import load_record
from ..referee import check_record
from .options import Command

__all__ = ["COMMAND", "NAME"]

NAME = "check"

#: Exit codes: every record valid; a record the rules contradict; a file that is not a record.
EXIT_VALID, EXIT_DISCREPANCIES, EXIT_UNREADABLE = 0, 1, 2


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _run(args: argparse.Namespace) -> int:
    code = EXIT_VALID
    results: list[dict[str, Any]] = []
    for path in args.files:
        try:
            record = load_record(path)
        except OSError as error:
            message = f"cannot read the file: {error.strerror or error}"
        except InvalidRecord as error:
            message = str(error)
        else:
            report = check_record(record)
            if not report.ok:
                code = max(code, EXIT_DISCREPANCIES)
            results.append({"file": path, "error": None, "report": report.to_dict()})
            if not args.json:
                print(f"{path}: {report.text()}")
            continue
        message = _one_line(message)
        code = EXIT_UNREADABLE
        results.append({"file": path, "error": message, "report": None})
        print(f"american-sniff check: {path}: {message}", file=sys.stderr)
    if args.json:
        ok = code == EXIT_VALID
        print(json.dumps({"ok": ok, "files": results}, indent=2))
    return code


def _options(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``check`` to its parser."""
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="a match record in the JSON record format"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON document with every file's report, for scripts",
    )


#: The command's help, options and run function.
COMMAND = Command(
    NAME,
    summary="check match records against the rules",
    description=textwrap.fill(
        "Replay each match record (the JSON that 'american-sniff demo --record' "
        "writes, or that another implementation writes in the same format) and "
        "report every claim the rules contradict: an inconsistent deal or opener, "
        "an action out of turn or illegal (with its refusal code), a wrong drawn "
        "tile, end sum or points, a wrong end, finisher, deduction or score of a "
        "round, a wrong final score or winner, and actions after the match was won. "
        "Each discrepancy names its round and the index of its action (from 0).",
        width=78,
    ),
    notes=(
        "exit status:\n"
        "  0  every record is valid\n"
        "  1  a record has discrepancies (the report says which, and where)\n"
        "  2  a file is not a record (missing, not JSON, another format): one line each"
    ),
    examples=(
        "american-sniff demo --seed 7 --record match.json",
        "american-sniff check match.json",
        "american-sniff check --json first.json second.json",
    ),
    options=_options,
    run=_run,
)
