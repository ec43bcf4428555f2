"""``american-sniff conformance``: run the conformance vectors against an engine."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..conformance.kit import (
    DEFAULT_TIMEOUT,
    EngineError,
    SubprocessEngine,
    VectorResult,
    run_kit,
)
from ..conformance.loading import InvalidVectors, load_vectors
from .options import Command

__all__ = ["COMMAND", "NAME"]

NAME = "conformance"


def _seconds(text: str) -> float:
    """An argparse type: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


def _print(result: VectorResult) -> None:
    print(result, flush=True)


def _run(args: argparse.Namespace) -> int:
    try:
        vectors = load_vectors(args.vectors)
    except InvalidVectors as exc:
        print(f"american-sniff conformance: {exc}", file=sys.stderr)
        return 2
    text = not args.json
    try:
        with SubprocessEngine(args.engine, timeout=args.timeout) as engine:
            report = run_kit(engine, vectors, progress=_print if text else None)
    except EngineError as exc:
        print(f"american-sniff conformance: {exc}", file=sys.stderr)
        return 2
    if text:
        print(report.summary())
    else:
        print(json.dumps(report.to_dict(), indent=2))
    return 0 if report.passed else 1


def _options(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``conformance`` to its parser."""
    parser.add_argument(
        "--engine",
        required=True,
        metavar="CMD",
        help="the engine's command line (split like a shell does; no shell runs it)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON report, not text")
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"how long to wait for each answer (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--vectors", type=Path, metavar="DIR", help="run DIR's vector files, not the shipped ones"
    )


#: The command's help, options and run function.
COMMAND = Command(
    NAME,
    summary="check an engine against the conformance vectors",
    description=(
        "Start the program CMD, talk to it over the engine protocol (docs/protocol.md), "
        "and run every conformance vector against it: table positions, settlements, "
        "refusals and whole matches. Prints PASS or FAIL per vector, with the first "
        "difference, then a one-line summary. Exits 0 when every vector passes, 1 when "
        "one fails, 2 when the engine or the vectors cannot be used."
    ),
    examples=(
        'american-sniff conformance --engine "american-sniff engine"',
        'american-sniff conformance --engine "node my-engine.js" --json',
        'american-sniff conformance --engine "./engine" --vectors my-vectors/',
    ),
    options=_options,
    run=_run,
)
