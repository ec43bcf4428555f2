"""``american-sniff conformance``: run the conformance vectors against an engine."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..conformance.coverage import CoverageError, coverage
from ..conformance.fuzz import fuzz
from ..conformance.kit import (
    DEFAULT_TIMEOUT,
    EngineError,
    SubprocessEngine,
    VectorResult,
    run_kit,
)
from ..conformance.loading import MANIFEST_NAME, InvalidVectors, export_vectors, load_vectors
from .options import Command, positive, read_number, seed

__all__ = ["COMMAND", "NAME", "REPLAY_HEADING"]

NAME = "conformance"
#: The line ``--fuzz`` prints before the request lines that replay its failure.
REPLAY_HEADING = "the shortest sequence of requests that still fails, to replay on a fresh engine:"


def _seconds(text: str) -> float:
    """An argparse type: a positive number of seconds."""
    value = read_number(text, float, "a number")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


def _print(result: VectorResult) -> None:
    print(result, flush=True)


def _fail(message: object) -> int:
    print(f"american-sniff conformance: {message}", file=sys.stderr)
    return 2


def _run(args: argparse.Namespace) -> int:
    if args.export is not None:
        try:
            manifest = export_vectors(args.export)
        except (InvalidVectors, OSError) as exc:
            return _fail(exc)
        count = sum(entry["vectors"] for entry in manifest["files"])
        print(
            f"wrote {len(manifest['files'])} vector files ({count} vectors) and "
            f"{MANIFEST_NAME} to {args.export}"
        )
        if args.engine is None:
            return 0
    if args.coverage:
        return _run_coverage(args)
    if args.engine is None:
        return _fail("give --engine CMD (or --export DIR)")
    if args.fuzz is not None:
        return _run_fuzz(args)
    try:
        vectors = load_vectors(args.vectors)
    except InvalidVectors as exc:
        return _fail(exc)
    text = not args.json
    try:
        with SubprocessEngine(args.engine, timeout=args.timeout) as engine:
            report = run_kit(engine, vectors, progress=_print if text else None)
    except EngineError as exc:
        return _fail(exc)
    if text:
        print(report.summary())
    else:
        print(json.dumps(report.to_dict(), indent=2))
    return 0 if report.passed else 1


def _run_coverage(args: argparse.Namespace) -> int:
    """Print the coverage table of the vectors; 1 if a class is unreached."""
    try:
        report = coverage(load_vectors(args.vectors))
    except (InvalidVectors, CoverageError) as exc:
        return _fail(exc)
    print(report.table())
    return 1 if report.missing else 0


def _run_fuzz(args: argparse.Namespace) -> int:
    try:
        with SubprocessEngine(args.engine, timeout=args.timeout) as engine:
            report = fuzz(engine, args.fuzz, args.seed, bias=args.bias)
    except EngineError as exc:
        return _fail(exc)
    reached = ", ".join(f"{name} {count}" for name, count in report.reached.items())
    if report.passed:
        print(f"rare positions reached: {reached}")
        print(report.summary())
        return 0
    print(f"{report.difference}\n\n{REPLAY_HEADING}")
    for line in report.lines:
        print(line)
    print(report.summary())
    return 1


def _options(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``conformance`` to its parser."""
    parser.add_argument(
        "--engine",
        metavar="CMD",
        help="the engine's command line (split like a shell does; no shell runs it)",
    )
    parser.add_argument(
        "--fuzz",
        type=positive,
        metavar="N",
        help="play N random matches in lockstep with the library instead of the vectors",
    )
    parser.add_argument(
        "--seed",
        type=seed,
        default=0,
        metavar="S",
        help="the fuzzer's seed (default 0): the same seed sends the same requests",
    )
    parser.add_argument(
        "--bias",
        action="store_true",
        help="with --fuzz: seek rare positions (4-player wins by seats 2 and 3, an empty stock)",
    )
    parser.add_argument(
        "--export",
        type=Path,
        metavar="DIR",
        help="write the vector files and a versioned manifest to DIR",
    )
    parser.add_argument(
        "--coverage",
        action="store_true",
        help="print which coverage classes the vectors reach (no engine needed); "
        "exit 1 if one is unreached",
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
        "and run every conformance vector against it, comparing every field of every "
        "answer. Prints PASS, FAIL or SKIP per vector, with the first difference, then "
        "a one-line summary. With --fuzz N, plays N random matches in lockstep with the "
        "library instead, and prints the shortest sequence of requests that still differs. With "
        "--export DIR, writes the vector files and a manifest for other languages. With "
        "--coverage, prints the classes of positions and inputs the vectors must reach, "
        "how many vectors reach each and the first of them. "
        "Exits 0 when everything agrees, 1 on a difference, 2 when the engine or the "
        "vectors cannot be used."
    ),
    examples=(
        'american-sniff conformance --engine "american-sniff engine"',
        'american-sniff conformance --engine "node my-engine.js" --json',
        'american-sniff conformance --engine "./engine" --vectors my-vectors/',
        'american-sniff conformance --engine "./engine" --fuzz 200 --seed 7',
        "american-sniff conformance --export vectors/",
        "american-sniff conformance --coverage",
    ),
    options=_options,
    run=_run,
)
